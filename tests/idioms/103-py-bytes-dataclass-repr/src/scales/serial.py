import logging

from .model import Reading, Tare

log = logging.getLogger(__name__)

STX, ETX = b"\x02", b"\x03"


def decode(scale, frame):
    """b'\\x02W 00125.0g S\\x03' -> Reading; b'\\x02T 00020.0g\\x03' -> Tare."""
    if not (frame.startswith(STX) and frame.endswith(ETX)):
        log.warning("scale %s: framing error in %r (%s)", scale, frame, frame.hex(" "))
        return None
    kind, value, *flags = frame[1:-1].decode("ascii").split()
    grams = round(float(value.rstrip("g")))
    if kind == "T":
        tare = Tare(scale, grams)
        log.debug("tare set: %r", tare)
        return tare
    reading = Reading(scale, grams, stable="S" in flags)
    log.debug("decoded %r from %r", reading, frame)
    return reading


class Filler:
    def __init__(self, batch):
        self.batch = batch
        self.tare = None

    def feed(self, scale, frames):
        for frame in frames:
            item = decode(scale, frame)
            if isinstance(item, Tare):
                self.tare = item
            elif isinstance(item, Reading):
                if not item.stable:
                    log.info("skipping unstable %s", item)
                    continue
                self.batch.readings.append(item)
        done = 100.0 * self.batch.filled_g / self.batch.target_g
        log.info("%s at %.1f%% of target (tare %r)", self.batch.product, done, self.tare)
        if done > 105:
            log.error("overfill: %r", self.batch)
