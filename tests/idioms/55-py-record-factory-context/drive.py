import recorder
# the message column is the whole line of a formatter that prints the request id and the level
recorder.setup("src", fmt="%(request_id)s %(levelname)s %(message)s")
from gateway.handlers import handle
for c, reqs in enumerate([[("r-101", "ann", "/home"), ("r-102", "ann", "/admin/users")], [("r-201", "root", "/admin/logs")], [("r-301", "bob", "/cart"), ("r-302", "cy", "/admin")]]):
    recorder.case(c)
    for r in reqs:
        handle(*r)
recorder.write()
