import logging

logger = logging.getLogger(__name__)


class Importer:
    def __init__(self, album):
        self.album = album

    def _log(self, msg, *args, level=logging.INFO):
        logger.log(level, "[%s] " + msg, self.album, *args)

    def _debug(self, msg, *args):
        self._log(msg, *args, level=logging.DEBUG)

    def start(self, folders):
        self._log("Starting with %d source folders", len(folders))

    def add(self, path, size):
        self._debug("Read %s (%d kB)", path, size)
        if size > 10000:
            self._log("Skipping %s: too large", path, level=logging.WARNING)

    def close(self, reason):
        self._log("Closing import (%s)", reason)
        logger.info("Importer %s closed", self.album)
