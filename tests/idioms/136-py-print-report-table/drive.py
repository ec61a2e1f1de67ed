import recorder
recorder.setup("src")
from bikefleet.fleet import Bike, Fleet
from bikefleet.report import daily
for c, (depot, bikes, trips, damaged, kinds) in enumerate([
    ("Harbour", [("B01", "city", 120.0), ("B02", "city", 480.5)], [("B01", 4.2), ("B02", 30.1), ("B01", 2.0)], [], None),
    ("Station", [("E10", "ebike", 900.0), ("C11", "cargo", 10.0), ("B12", "city", 0.0)], [("E10", 12.5), ("X99", 1.0), ("C11", 3.3)], ["C11"], None),
    ("Campus", [("B20", "city", 50.0)], [], [], {"ebike"}),
]):
    recorder.case(c)
    f = Fleet(depot, [Bike(*b) for b in bikes])
    for bike_id in damaged:
        f.report_damage(bike_id)
    for t in trips:
        f.trip(*t)
    daily(f, kinds)
recorder.write()
