import recorder
recorder.setup("src")
from jobq.worker import Worker
for c, (q, d, j, e) in enumerate([("default", 12000, "a1", 0.5), ("mail", 3, "b22", 12.25), ("bulk", 1500000, "c333", 0.0015)]):
    recorder.case(c)
    w = Worker(c)
    w.start(q, d)
    w.run(j, e)
    w.stop(c)
recorder.write()
