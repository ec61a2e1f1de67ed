import functools
import logging
import weakref

from .events import Bus

log = logging.getLogger(__name__)


def _released(name, size):
    log.info("Finalizer released buffer %s (%d kB)", name, size)


class Buffer:
    def __init__(self, name, size):
        weakref.finalize(self, _released, name, size)


class Connection:
    def __init__(self, dsn):
        self.dsn = dsn
        self.closed = False

    def __del__(self):
        if not self.closed:
            log.warning("Connection to %s was never closed", self.dsn)


def on_resize(pool, old, new):
    log.info("Pool %s resized from %d to %d", pool, old, new)


def run(name, dsns, closed):
    bus = Bus()
    bus.subscribe("resize", functools.partial(on_resize, name))
    bus.subscribe("exhausted", lambda n: log.error("Pool %s exhausted after %d checkouts", name, n))
    buf = Buffer(name + "-buf", 64 * len(dsns))
    conns = [Connection(d) for d in dsns]
    bus.publish("resize", 0, len(conns))
    for conn in conns[:closed]:
        conn.closed = True
    if closed == 0:
        bus.publish("exhausted", len(conns))
    bus.publish("drain")
    del conns, buf
