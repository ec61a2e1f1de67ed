import recorder
recorder.setup("src")
from dbkit.pool import Pool
for c, (dsn, n) in enumerate([("pg://a", 5), ("pg://b", 500), ("mysql://c", 20)]):
    recorder.case(c)
    p = Pool(dsn, 4)
    cn = p.acquire(2.5)
    cn.execute("select 1", n)
    p.release(cn)
recorder.write()
