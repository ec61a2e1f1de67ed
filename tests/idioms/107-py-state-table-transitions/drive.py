import recorder
recorder.setup("src")
from laundry.washer import Washer
PROGRAMS = {"cotton": {"temp": 60, "rpm": 1400, "minutes": 95}, "wool": {"temp": 30, "rpm": 600, "minutes": 40}}
for c, (unit, program, events) in enumerate([
    ("W1", "cotton", [("door_closed", {}), ("paid", {"amount": 4.5}), ("full", {}), ("done", {}), ("done", {})]),
    ("W2", "wool", [("paid", {"amount": 3.0}), ("door_closed", {}), ("paid", {"amount": 3.0}), ("leak", {}), ("done", {})]),
    ("W7", "wool", [("door_closed", {}), ("paid", {"amount": 3.25}), ("full", {}), ("done", {}), ("done", {})]),
]):
    recorder.case(c)
    w = Washer(unit, PROGRAMS[program])
    for event, data in events:
        w.fire(event, **data)
recorder.write()
