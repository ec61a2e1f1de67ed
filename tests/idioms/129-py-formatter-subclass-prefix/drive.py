import sys

import recorder
recorder.setup("src")
# the code's BayFormatter writes each record of the depot loggers to stdout (not to the root):
# the message column is its line, "L module | message [-- Error: text]"
from depot.logsetup import install
from depot.stock import Stock
from depot.picking import PickList
from depot import climate
install(sys.stdout)
for c, (bays, orders, temps) in enumerate([
    ({"peas": {"qty": 40, "at": "F1", "reorder": 10}}, [("o1", [("peas", 12)])], [("F", "frozen", -21.0)]),
    ({"milk": {"qty": 8, "at": "C2", "reorder": 6}}, [("o2", [("milk", 3), ("milk", 9)])], [("C", "chilled", 6.5)]),
    ({"fish": {"qty": 20, "at": "F3"}}, [("o3", [("fish", 5), ("ice", 1)]), ("o4", [("fish", 15)])], [("F", "frozen", -27.0), ("C", "chilled", 3.0)]),
    ({"cream": {"qty": 2, "at": "C1", "reorder": 4}}, [("o5", [("cream", 2)])], []),
]):
    recorder.case(c)
    stock = Stock(bays)
    for oid, lines in orders:
        PickList(oid, lines).pick(stock)
    for zone, kind, t in temps:
        climate.check(zone, kind, t)
recorder.write()
