import logging
import recorder
recorder.setup("src", level=1)
from httpx2 import transport as t
for c, (m, u, s) in enumerate([("GET", "/a", 200), ("POST", "/b", 503), ("PUT", "/c/1", 404)]):
    recorder.case(c)
    t.configure(c == 0)
    t.send(m, u, s)
    if s >= 500:
        t.retry(u, 2)
recorder.write()
