import logging

log = logging.getLogger(__name__)

FLAGS = {"create": 0x100, "modify": 0x2, "delete": 0x200, "move": 0xC0}

_cache = {}


def mask_for(kinds):
    key = tuple(kinds)
    if key in _cache:
        return _cache[key]
    mask = 0
    for k in kinds:
        mask |= FLAGS[k]
    log.debug("notify mask for %s is %#x", "+".join(kinds), mask)
    _cache[key] = mask
    return mask
