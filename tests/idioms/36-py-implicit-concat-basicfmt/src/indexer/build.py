import logging

logger = logging.getLogger(__name__)


class Builder:
    def __init__(self, root):
        self.root = root

    def start(self, n):
        logger.info("Indexing %d documents under %s; "
                    "this may take a while", n, self.root)

    def shard(self, i, total, size):
        logger.debug(
            "Shard %d/%d written "
            "(%d bytes) "
            "to %s/shards", i, total, size, self.root)

    def done(self, secs):
        logger.info(f"Index of {self.root} built in "
                    f"{secs:.1f}s, " "now optimizing")
