import recorder
# the agent is a child process: its output reaches the log through the scheduler, which relays it
recorder.setup("src")
from snapshots.scheduler import nightly
for c, volumes in enumerate([
    [("home", 1200, 310.5, True)],
    [("mail", 0, 0.0, False), ("media", 40, 812.0, False)],
    [("db", 12, 95.25, True), ("logs", 300, 48.0, False)],
]):
    recorder.case(c)
    nightly(volumes)
recorder.write()
