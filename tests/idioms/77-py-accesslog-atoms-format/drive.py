import recorder
recorder.setup("src")
from wsgikit.apps import build


def environ(path, method="GET", query="", user=None, c=0, i=0):
    return {"PATH_INFO": path, "REQUEST_METHOD": method, "QUERY_STRING": query, "REMOTE_ADDR": "10.1.%d.%d" % (c, i + 2),
            "REMOTE_USER": user, "SERVER_PROTOCOL": "HTTP/1.1", "wsgikit.request_time": "06/Dec/2026:10:0%d:%02d +0000" % (c, i * 5),
            "wsgikit.elapsed_us": 1500 + 250 * i}


for c, (timing, custom, reqs) in enumerate([
    (False, None, [("/stock/kettle", "GET", "", None), ("/stock/anvil", "GET", "", None)]),
    (True, None, [("/stock/toaster", "GET", "full=1", "ann"), ("/stock/kettle", "HEAD", "", "ann")]),
    (False, "%(h)s %(u)s %(r)s status=%(s)s", [("/stock/kettle", "GET", "", "bob")]),
    (False, "%(h)s %(x)s", [("/stock/toaster", "GET", "", None)]),
]):
    recorder.case(c)
    app = build(timing, custom)
    for i, (path, method, query, user) in enumerate(reqs):
        app(environ(path, method, query, user, c, i), lambda status, headers: None)
recorder.write()
