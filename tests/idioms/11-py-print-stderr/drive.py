import recorder
recorder.setup("src", skip=["eprint"])
from clitool.main import main
for c, (p, n, b) in enumerate([("a.csv", 10, 0), ("b.csv", 250, 3), ("c.json", 7, 1)]):
    recorder.case(c)
    main(p, n, b)
recorder.write()
