import logging

from .messages import MSG_EVICT, MSG_HIT_RATE

log = logging.getLogger(__name__)
WARN_FULL = "Cache %s is full (%d/%d), dropping oldest"


class Cache:
    MSG_CREATED = "Created cache %s"
    ERR_KEY = "Key %r rejected: %s"

    def __init__(self, name, cap):
        self.name = name
        self.cap = cap
        log.info(self.MSG_CREATED % name)

    def put(self, key, n):
        if not isinstance(key, str):
            log.error(self.ERR_KEY, key, "not a string")
            return
        if n >= self.cap:
            log.warning(WARN_FULL, self.name, n, self.cap)
            self.evict(n - self.cap + 1)

    def evict(self, k):
        log.info(MSG_EVICT, k, self.name)

    def stats(self, hits, total):
        log.info(MSG_HIT_RATE.format(name=self.name, rate=hits / total))
