import logging
import time

logger = logging.getLogger(__name__)


class Pool:
    def __init__(self, dsn, size):
        self.dsn = dsn
        self.size = size
        logger.debug("Creating pool for %s with %d connections", dsn, size)

    def acquire(self, timeout):
        logger.debug("Acquire (timeout=%.1fs, free=%d/%d)", timeout, 3, self.size)
        return Conn(self, 7)

    def release(self, conn):
        logger.info("Released connection %(id)s back to %(dsn)s", {"id": conn.id, "dsn": self.dsn})


class Conn:
    def __init__(self, pool, cid):
        self.pool = pool
        self.id = cid

    def execute(self, sql, rows):
        logger.info("Executed %r: %d rows in %5.1f%% of budget", sql, rows, 12.5)
        if rows > 100:
            logger.warning("Slow query on conn %s: %-8s|", self.id, "SELECT")
        return rows
