import contextlib
import functools
import logging
import time

log = logging.getLogger(__name__)


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        log.debug("Calling %s with %d args", func.__name__, len(args))
        try:
            return func(*args, **kwargs)
        finally:
            log.debug("%s returned", func.__qualname__)
    return wrapper


def retry(times):
    def deco(fn):
        def inner(*a):
            for i in range(times):
                try:
                    return fn(*a)
                except RuntimeError as e:
                    log.warning("Attempt %d/%d of %s failed: %s", i + 1, times, fn.__name__, e)
            log.error("All %d attempts of %s failed", times, fn.__name__)
        return inner
    return deco


class Timer:
    def __init__(self, label):
        self.label = label

    def __enter__(self):
        log.info("Entering %s", self.label)
        self.t = time.monotonic()
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            log.error("%s aborted by %s", self.label, et.__name__)
        log.info("Leaving %s after %.0f ms", self.label, 0.0)
        return False


@contextlib.contextmanager
def workdir(path):
    log.info("Using workdir %s", path)
    try:
        yield path
    finally:
        log.info("Cleaning workdir %s", path)
