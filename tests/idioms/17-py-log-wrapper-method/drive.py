import recorder
recorder.setup("src", skip=["_log", "_debug"])
from photos.importer import Importer
for c, (nm, size) in enumerate([("holidays", 200), ("family", 40000), ("garden", 12000)]):
    recorder.case(c)
    s = Importer(nm)
    s.start(["a", "b"][: c + 1])
    s.add("%s/img1.jpg" % nm, size)
    s.close("done")
recorder.write()
