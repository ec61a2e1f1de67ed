import recorder
# the message column is the line of the program's own "{"-style formatter, written to stderr;
# BraceAdapter.log only hands its caller's message on
recorder.setup("src", skip=["greenhouse/logs.py:log"])
from greenhouse.logs import configure
from greenhouse.climate import Controller, Sensor
configure()
for c, (house, target, readings, vents) in enumerate([
    ("tomatoes", 24.0, [("north", "air", 23.5), ("south", "soil", 19.25)], 4),
    ("orchids", 21.5, [("east", "air", 26.0)], 0),
    ("herbs", 18.0, [("west", "air", 18.5), ("west", "leaf", 12.0), ("north", "soil", 17.0)], 3),
]):
    recorder.case(c)
    ctl = Controller(house, target)
    for bay, kind, value in readings:
        ctl.reading(Sensor(bay, kind), value)
    ctl.vent({"vents": vents})
recorder.write()
