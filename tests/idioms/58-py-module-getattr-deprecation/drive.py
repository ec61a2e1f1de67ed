import recorder
recorder.setup("src")
from geo.track import Track
from geo import units
for c, (pts, close) in enumerate([([1.0, 2.5], True), ([0.0, 3.0, 7.5], False), ([4.0], False)]):
    recorder.case(c)
    t = Track(pts)
    t.length_mi()
    if c:
        t.length
        units.mi_to_km(3)
    t.open = not close
    del t
recorder.write()
