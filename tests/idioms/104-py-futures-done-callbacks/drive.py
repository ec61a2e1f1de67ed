import recorder
# the message column holds the thread's name, as a "%(threadName)s: %(message)s" formatter prints it;
# one worker per pool (thumb_0), its jobs started together: the order and the names are fixed
recorder.setup("src", fmt="%(threadName)s: %(message)s")
from thumbs.render import Job, render_all
for c, (jobs, drop) in enumerate([
    ([("beach.jpg", 320), ("dunes.png", 640)], ()),
    ([("map.tif", 8000), ("logo.png", 128), ("banner.jpg", 1200)], ("banner.jpg",)),
    ([("cat.jpg", 256), ("dog.jpg", 256), ("owl.jpg", 4096), ("fox.jpg", 512)], ("dog.jpg", "fox.jpg")),
]):
    recorder.case(c)
    render_all([Job(s, w) for s, w in jobs], drop)
recorder.write()
