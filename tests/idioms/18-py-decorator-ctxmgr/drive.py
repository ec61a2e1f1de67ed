import recorder
recorder.setup("src")
from taskrun.tasks import pipeline
for c, n in enumerate(["app", "xlib", "web"]):
    recorder.case(c)
    pipeline(n)
recorder.write()
