import recorder
recorder.setup("src")
# the code's dictConfig sends the package's records to its own stdout handler (not to the root):
# the message column is that handler's line, "LEVEL   logger | message"
from greenhouse.controller import Controller
from greenhouse.logconf import configure
for c, (verbose, zones, readings, beds) in enumerate([
    (False, {"north": 21.0}, {"north": (23.5, 70)}, {"tomatoes": 30, "basil": 12}),
    (True, {"north": 21.0, "south": 18.0}, {"north": (21.2, 90), "south": (15.0, 60), "attic": (30.0, 40)}, {}),
    (True, {"east": 24.0}, {"east": (26.0, 88)}, {"peppers": 45}),
    (False, {"west": 19.0}, {"west": (19.1, 50)}, {"lettuce": 50, "herbs": 10}),
]):
    recorder.case(c)
    configure(verbose)
    Controller(zones).cycle(readings, beds)
recorder.write()
