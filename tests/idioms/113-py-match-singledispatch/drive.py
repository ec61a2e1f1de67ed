import recorder
recorder.setup("src")
from bins.audit import Recount
from bins.commands import run
for c, (commands, limit, recounts) in enumerate([
    ([{"op": "add", "sku": "bolt-m4", "qty": 50}, {"op": "remove", "sku": "bolt-m4", "qty": 45}], 10, []),
    ([{"op": "add", "sku": "nut-m6", "qty": 0}, ["move", "nut-m6", "C-12"], {"op": "remove", "sku": "nut-m6", "qty": 3},
      {"op": "scrap", "sku": "nut-m6"}], 5, [Recount("C-12", 40), "A-1"]),
    ([{"op": "add", "sku": "washer", "qty": 200}, {"op": "add", "sku": "hinge", "qty": 4}, ("hinge",)], 20, [Recount("B-3", 7)]),
]):
    recorder.case(c)
    run(commands, limit, recounts)
recorder.write()
