import recorder
recorder.setup("src")
from dfkit.frame import Frame
for c, col in enumerate(["a", "b", "c"]):
    recorder.case(c)
    f = Frame([{"a": 1, "b": None}, {"a": 2, "b": 3}])
    f.append({"a": 5, "c": 1})
    f.mean(col)
    f.to_csv("out%d.csv" % c, sep=";" if c else ",")
recorder.write()
