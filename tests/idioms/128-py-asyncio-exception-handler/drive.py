import asyncio
import logging
import recorder
recorder.setup("src")
# asyncio's own debug record ("Using selector: ...") is not the code's
logging.getLogger("asyncio").setLevel(logging.WARNING)
from irrigation.controller import Controller
for c, (zones, stuck, dry, plan) in enumerate([
    (["lawn", "beds"], (), (), [("lawn", 20), ("beds", 10)]),
    (["lawn", "hedge"], ("hedge",), (), [("hedge", 15), ("lawn", 20)]),
    (["pots"], (), ("pots",), [("pots", 5), ("pond", 3)]),
    (["orchard", "veg", "herbs"], ("veg",), ("herbs",), [("orchard", 30), ("veg", 12), ("herbs", 4)]),
]):
    recorder.case(c)
    asyncio.run(Controller(zones, stuck, dry).run(plan))
recorder.write()
