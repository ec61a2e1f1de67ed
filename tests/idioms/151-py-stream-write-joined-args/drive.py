import recorder
recorder.setup("src", skip=["relay/out.py"])
from relay.hub import Console, Hub
for c, (name, cap, cmds) in enumerate([
        ("north", 2, [("join", "ann", "10.0.0.1"), ("join", "bob", "10.0.0.2"), ("join", "cy", "10.0.0.3"), ("leave", "ann")]),
        ("south", 5, [("leave", "dee"), ("ping",), ("join", "eve", "10.0.1.9")]),
        ("east", 1, [("join", "fay", "10.0.2.1"), ("kick", "fay"), ("leave", "fay")])]):
    recorder.case(c)
    Console(Hub(name, cap)).run(cmds)
recorder.write()
