import recorder
recorder.setup("src")
from authz.guard import authorize
for c, a in enumerate([("ann", 10, "read", "/a", 5), ("bob", 7300, "read", "/b", 5), ("cy", 5, "delete", "/c", 5), ("dee", 5, "write", "/d", 140), ("eve", 9000, "write", "/e", 1)]):
    recorder.case(c)
    authorize(*a)
recorder.write()
