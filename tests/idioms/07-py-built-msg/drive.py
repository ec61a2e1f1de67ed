import recorder
recorder.setup("src")
from deploykit.plan import run
for c, (p, s, t) in enumerate([({"add": 3, "remove": 0}, ["a", "b"], "prod"), ({"add": 1, "remove": 2}, ["x"], "stage"), ({"add": 0, "remove": 5}, ["m", "n", "o"], "dev")]):
    recorder.case(c)
    run(p, s, t)
recorder.write()
