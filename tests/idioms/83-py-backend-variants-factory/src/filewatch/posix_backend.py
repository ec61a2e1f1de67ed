import logging

from .posix_flags import mask_for

log = logging.getLogger(__name__)


class NotifyWatcher:
    def __init__(self, root):
        self.root = root
        self.watches = {}
        self.seen = 0
        log.debug("notify instance for %s ready", root)

    def add(self, path, kinds):
        wd = len(self.watches) + 1
        self.watches[wd] = path
        log.info("watching %s for %s", path, ", ".join(kinds))
        mask_for(kinds)
        return wd

    def dispatch(self, events):
        log.debug("%d events pending under %s", len(events), self.root)
        for wd, kind, name in events:
            self.seen += 1
            if wd not in self.watches:
                log.warning("event %s on %s for a stale watch", kind, name)
                continue
            log.info("%s: %s/%s", kind, self.watches[wd], name)

    def close(self):
        log.info("watcher closed after %d events", self.seen)
