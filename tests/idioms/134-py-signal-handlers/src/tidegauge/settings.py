import logging

log = logging.getLogger(__name__)

DEFAULTS = {"interval_s": 60, "datum_m": 0.0, "alarm_m": 4.5}


def load(text):
    conf = dict(DEFAULTS)
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or key not in DEFAULTS:
            log.warning("settings line %d ignored: %r", n, line)
            continue
        conf[key] = type(DEFAULTS[key])(value.strip())
    return conf
