import recorder
recorder.setup("src")
from pool.resources import run
for c, (nm, dsns, closed) in enumerate([("main", ["pg://a", "pg://b"], 2), ("reports", ["pg://r1", "pg://r2", "pg://r3"], 1), ("audit", ["pg://x"], 0)]):
    recorder.case(c)
    run(nm, dsns, closed)
recorder.write()
