import recorder
recorder.setup("src")
from scales.model import Batch
from scales.serial import Filler
for c, (product, target, scale, frames) in enumerate([
    ("flour", 1000, "S1", [b"\x02T 00020.0g\x03", b"\x02W 00480.4g S\x03", b"\x02W 00500.0g S\x03"]),
    ("sugar", 500, "S2", [b"\x02W 00120.0g\x03", b"\x02W 00310.0g S\x03", b"W 00010.0g S\x03"]),
    ("salt", 200, "S3", [b"\x02T 00005.5g\x03", b"\x02W 00150.0g S\x03", b"\x02W 00080.0g S\x03"]),
]):
    recorder.case(c)
    Filler(Batch(product, target)).feed(scale, frames)
recorder.write()
