import recorder
recorder.setup("src")
from archive.pipeline import Pipeline, Photo
for c, (steps, photos) in enumerate([
    (["resize", "watermark"], [Photo("dunes.jpg", 4000, 3000), Photo("icon.png", 120, 120)]),
    (["strip-exif", "resize:1024"], [Photo("cat.jpg", 800, 600, {"gps": "52.5,13.4", "model": "X"})]),
    (["strip-exif:gps", "sharpen", "watermark:ACME"], [Photo("map.tif", 1800, 1200, {"gps": "1,2", "serial": "9A", "license": "cc0"})]),
    (["resize:3000", "watermark"], [Photo("bridge.jpg", 6000, 4000, {"license": "cc0"}), Photo("door.jpg", 1200, 1600)]),
]):
    recorder.case(c)
    p = Pipeline(steps)
    for ph in photos:
        p.ingest(ph)
recorder.write()
