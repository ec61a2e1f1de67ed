import logging

from .remote import fetch_manifest

log = logging.getLogger(__name__)


class SyncJob:
    def __init__(self, url):
        self.url = url

    def run(self):
        log.info("Sync of %s started", self.url)
        m = self._attempt()
        if m:
            self._finish(m)

    def _attempt(self):
        try:
            return fetch_manifest(self.url)
        except ValueError:
            log.exception("Sync of %s failed", self.url)
        except KeyError as e:
            log.error("Unknown scheme for %s: %r", self.url, e, exc_info=True)

    def _finish(self, m):
        log.info("Sync of %s done: %d files", self.url, m["files"])
