import recorder
# HarbourLogger.notice and .audit only log what they are handed: their callers emit
recorder.setup("src", skip=["ferry/logs.py"])
from ferry.booking import Sailing
for c, (route, dep, seats, lanes, bookings, cancels) in enumerate([
    ("Oban-Mull", "09:40", 120, (1, 1), [("B1", 2, "car", "SK12 ABC"), ("B2", 4, None, None)], ["B1"]),
    ("Oban-Mull", "13:10", 5, (1, 1), [("B3", 6, None, None), ("B4", 1, "truck", "LX70 TRK"), ("B5", 1, "bike", "cycle-7")], ["B9"]),
    ("Ardrossan-Brodick", "07:00", 300, (1, 1), [("B6", 1, "truck", "T1"), ("B7", 1, "truck", "T2"), ("B8", 1, "truck", "T3"), ("B10", 2, "van", "V1")], ["B6"]),
]):
    recorder.case(c)
    s = Sailing(route, dep, seats, *lanes)
    for b in bookings:
        s.book(*b)
    for ref in cancels:
        s.cancel(ref)
recorder.write()
