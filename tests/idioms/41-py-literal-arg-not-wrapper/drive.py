import recorder
recorder.setup("src")
from svc.db import startup
for c in range(3):
    recorder.case(c)
    startup()
recorder.write()
