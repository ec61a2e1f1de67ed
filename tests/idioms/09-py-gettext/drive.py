import recorder
recorder.setup("src")
from pkgmgr.install import install
for c, (nm, s, n) in enumerate([("requests", 120, 1), ("numpy", 20480, 300), ("six", 11, 2)]):
    recorder.case(c)
    install(nm, s, n)
recorder.write()
