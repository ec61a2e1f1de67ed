import logging

from .win_flags import filter_for

log = logging.getLogger(__name__)


class DirectoryChangesWatcher:
    def __init__(self, root):
        self.root = root
        self.handles = {}
        self.seen = 0
        log.debug("completion port for %s ready", root)

    def add(self, path, kinds):
        handle = 0x40 + 4 * len(self.handles)
        self.handles[handle] = path
        log.info("watching %s for %s", path, ", ".join(kinds))
        filter_for(kinds)
        return handle

    def dispatch(self, events):
        log.debug("%d events pending under %s", len(events), self.root)
        for handle, kind, name in events:
            self.seen += 1
            if handle not in self.handles:
                log.warning("event %s on %s for a stale watch", kind, name)
                continue
            log.info("%s: %s/%s", kind, self.handles[handle], name)

    def close(self):
        log.info("watcher closed after %d events", self.seen)
