import logging

log = logging.getLogger(__name__)

FILTERS = {"create": 0x1, "modify": 0x10, "delete": 0x1, "move": 0x2}

_cache = {}


def filter_for(kinds):
    key = tuple(kinds)
    if key in _cache:
        return _cache[key]
    flt = 0
    for k in kinds:
        flt |= FILTERS[k]
    log.debug("change filter for %s is %#x", "+".join(kinds), flt)
    _cache[key] = flt
    return flt
