import recorder
recorder.setup("src", fmt="%(message)s")
from cfgkit.loader import Loader
for c, a in enumerate([("h1", "80", "r"), ("h 2", "99999", "r"), ("h3", "0", "x"), ("h 4", "22", "w")]):
    recorder.case(c)
    Loader().load(*a)
recorder.write()
