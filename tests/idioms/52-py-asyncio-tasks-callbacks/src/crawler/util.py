import functools
import logging

log = logging.getLogger(__name__)


def timed(coro):
    @functools.wraps(coro)
    async def wrapper(*args):
        log.debug("Awaiting %s%r", coro.__name__, args)
        result = await coro(*args)
        log.debug("%s finished with %r", coro.__qualname__, result)
        return result
    return wrapper


class Session:
    def __init__(self, host):
        self.host = host

    async def __aenter__(self):
        log.info("Session to %s opened", self.host)
        return self

    async def __aexit__(self, et, ev, tb):
        log.info("Session to %s closed", self.host)
