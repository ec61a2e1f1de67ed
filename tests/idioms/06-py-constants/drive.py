import recorder
recorder.setup("src")
from cachelib.cache import Cache
for c, (nm, cap, n) in enumerate([("users", 10, 10), ("tokens", 5, 2), ("pages", 3, 7)]):
    recorder.case(c)
    k = Cache(nm, cap)
    k.put("k%d" % c, n)
    k.put(42, 0)
    k.stats(c + 1, 4)
recorder.write()
