import recorder
# the message column keeps the logger's name and the level, as a "%(name)s %(levelname)s: %(message)s" formatter prints them
recorder.setup("src", fmt="%(name)s %(levelname)s: %(message)s")
from harbor.cranes import Crane, Scheduler
from harbor.yard import Straddle
for c, (berth, limits, manifest) in enumerate([
    ("B1", [40.0], [("MSKU100001", 24.5), ("MSKU100002", 12.0)]),
    ("B2", [30.0, 45.0], [("CSQU300044", 38.0), ("CSQU300045", 41.2), ("TGHU500009", 9.9)]),
    ("B7", [20.0], [("OOLU770001", 26.0)]),
]):
    recorder.case(c)
    cranes = [Crane(n + 1, lim) for n, lim in enumerate(limits)]
    Scheduler(berth, cranes).unload(manifest)
    # the yard's carriers log "lifted ..." too, under their own loggers
    s = Straddle(c + 1)
    for tier, (container, tonnes) in enumerate(manifest[:1], start=c + 3):
        s.lift(container, tonnes)
        s.stack(container, "R%d" % (c + 1), tier)
recorder.write()
