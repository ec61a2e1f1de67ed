import recorder
# Logger is the framework's own logging: its callers are the emitters; say() prints its caller's note
recorder.setup("src", skip=["relay/logger.py", "say"])
from relay.proto import Relay
for c, (name, port, limit, frames) in enumerate([
    ("north", 7001, 8, ["abc", "toolongframe!", "de"]),
    ("south", 7002, 4, ["!x", "ok"]),
    ("east", 7003, 16, ["a", "b", "!c", "d"]),
]):
    recorder.case(c)
    r = Relay(name, limit)
    r.start(port)
    r.forward(frames)
    r.stop()
recorder.write()
