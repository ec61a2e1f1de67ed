import logging

log = logging.getLogger(__name__)

LIMITS = {"frozen": (-25.0, -18.0), "chilled": (0.0, 5.0)}


def check(zone, kind, celsius):
    low, high = LIMITS[kind]
    if celsius > high:
        log.critical("%s zone %s at %.1f C, above %.1f", kind, zone, celsius, high)
    elif celsius < low:
        log.warning("%s zone %s at %.1f C, below %.1f", kind, zone, celsius, low)
    else:
        log.debug("zone %s ok", zone)
