import recorder
recorder.setup("src")
from deploykit.notes import run
for c, (t, n) in enumerate([("prod", 3), ("stage", 14), ("dev", 0)]):
    recorder.case(c)
    run(t, n)
recorder.write()
