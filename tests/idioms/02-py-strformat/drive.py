import recorder
recorder.setup("src")
from netlib.client import Client, Endpoint
for c, (h, s, r) in enumerate([("db1", 100, 50), ("cache-7", 3000, 21), ("api.local", 7, 7)]):
    recorder.case(c)
    cl = Client("w%d" % c, {"region": "eu-%d" % c})
    ep = Endpoint(h, 8000 + c)
    cl.connect(ep)
    cl.register()
    cl.report(ep, s, r)
    cl.close(ep)
recorder.write()
