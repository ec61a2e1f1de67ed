import logging
from datetime import datetime, timedelta

log = logging.getLogger(__name__)

MAX_GAP = timedelta(days=40)


class Reading:
    def __init__(self, meter, at, litres):
        self.meter = meter
        self.at = datetime.fromisoformat(at)
        self.litres = litres


def usage(readings):
    """Litres used between consecutive readings, skipping the suspect ones."""
    used = 0
    for prev, cur in zip(readings, readings[1:]):
        gap = cur.at - prev.at
        if gap > MAX_GAP:
            log.warning("meter %s: %s between readings (%s to %s)", cur.meter, gap, prev.at.date(), cur.at.date())
        delta = cur.litres - prev.litres
        if delta < 0:
            log.error(f"meter {cur.meter} ran backwards on {cur.at:%d %b %Y at %H:%M}: {delta:+,} l")
            continue
        used += delta
    log.debug("{} readings, {:,} litres from {:%Y-%m-%d} to {:%Y-%m-%d}".format(
        len(readings), used, readings[0].at, readings[-1].at))
    return used
