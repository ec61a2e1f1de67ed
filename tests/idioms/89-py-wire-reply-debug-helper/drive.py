import json
import recorder
# Client._wire prints what it is handed: its callers _send and _reply emit the wire lines
recorder.setup("src", skip=["_wire"])
from kvclient.client import Client


class LoopbackServer:
    """The server side, outside src/: answers each line written to it."""

    def __init__(self, name):
        self.name = name
        self.data = {}
        self.replies = []

    def write(self, line):
        verb, *args = line.decode().split()
        if verb == "SET":
            self.data[args[0]] = args[1]
            self.replies.append(b"+OK stored %d bytes\r\n" % len(args[1]))
        elif verb == "GET":
            v = self.data.get(args[0])
            self.replies.append(b"+" + v.encode() + b"\r\n" if v else b"-ERR no such key '" + args[0].encode() + b"'\r\n")
        elif verb == "STATS":
            body = {"server": self.name, "keys": len(self.data), "uptime_s": 3600}
            self.replies.append(b"$" + json.dumps(body).encode() + b"\r\n")

    def readline(self):
        return self.replies.pop(0)


for c, (debug, ops) in enumerate([
    (True, [("set", "color", "teal"), ("get", "color"), ("stats",)]),
    (False, [("get", "size"), ("set", "size", "XL"), ("stats",)]),
    (True, [("set", "user:7", "ann"), ("set", "user:8", "bob"), ("get", "user:9"), ("stats",)]),
]):
    recorder.case(c)
    cl = Client(LoopbackServer("kv-%d" % c), debug=debug)
    for op, *args in ops:
        getattr(cl, op)(*args)
recorder.write()
