import logging

log = logging.getLogger(__name__)


class LockBusy(RuntimeError):
    pass


class HostLock:
    held = set()

    def __init__(self, host):
        self.host = host

    def __enter__(self):
        if self.host in self.held:
            raise LockBusy(self.host)
        self.held.add(self.host)
        log.debug("lock on %s taken", self.host)
        return self

    def __exit__(self, *exc):
        self.held.discard(self.host)
        log.debug("lock on %s released", self.host)
        return False


class Volume:
    def __init__(self, device, size_gb, readonly=False):
        self.device = device
        self.size_gb = size_gb
        self.readonly = readonly
        self.snaps = 0

    def snapshot(self):
        if self.readonly:
            raise PermissionError("%s is read-only" % self.device)
        self.snaps += 1
        return "%s@%d" % (self.device, self.snaps)

    def release(self, snap):
        log.info("snapshot %s released (%d GB)", snap, self.size_gb)


class Target:
    def __init__(self, url, free_gb):
        self.url = url
        self.free_gb = free_gb
        self.copied = []

    def copy(self, snap, size_gb):
        if size_gb > self.free_gb:
            raise OSError("%s: %d GB needed, %d GB free" % (self.url, size_gb, self.free_gb))
        self.free_gb -= size_gb
        self.copied.append(snap)

    def close(self):
        log.debug("closed %s after %d copies", self.url, len(self.copied))
