import recorder
# the methods of fleet/blog.py are pure logging wrappers: their callers emit the messages
recorder.setup("src", skip=["fleet/blog.py"])
from fleet.drones import Drone
for c, (name, pad, battery, legs, zones) in enumerate([
    ("kite-1", "pad 3", 90, [("depot", "dock 4", 90, 1200)], [("A", "open")]),
    ("kite-2", "roof", 30, [("depot", "market", 180, 2400), ("market", "depot", 0, 2400)], [("B", "closed"), ("A", "open")]),
    ("hawk-7", "pad 1", 60, [("airfield", "hangar", 270, 800)], [("C", "no-fly")]),
]):
    recorder.case(c)
    d = Drone(name, pad, battery)
    d.take_off()
    for leg in legs:
        d.fly(*leg)
    for z, status in zones:
        d.enter(z, status)
    d.land(3.75 * len(legs))
recorder.write()
