import logging
import recorder
recorder.setup("src")
# asyncio's own debug record ("Using selector: ...") is not the code's
logging.getLogger("asyncio").setLevel(logging.WARNING)
from manifest.desk import Desk
for c, (port, mid, lines, cur) in enumerate([
    ("Antwerp", "M-100", [("MSCU1", "toys", 12000), ("MSCU2", "tea", 9000)], ["EUR"]),
    ("Antwerp", "M-101", [("MSCU3", "steel", 31000), ("OOLU4", "ivory", 800)], ["EUR", "USD"]),
    ("Genoa", "M-102", [("HL-5", "mercury", 0), ("HLXU6", "wine", 20000)], ["GBP", "EUR", "JPY"]),
    ("Genoa", "M-103", [("CMAU7", "rice", -5)], ["USD", "CHF"]),
]):
    recorder.case(c)
    Desk(port).clear(mid, lines, cur)
recorder.write()
