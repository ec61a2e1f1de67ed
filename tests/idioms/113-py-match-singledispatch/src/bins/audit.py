import functools
import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class Recount:
    bin: str
    counted: int


@functools.singledispatch
def describe(change):
    log.warning("unknown change %r left out of the audit", change)


@describe.register
def _(change: int):
    log.info("audit: stock %s by %d", "raised" if change > 0 else "lowered", abs(change))


@describe.register
def _(change: Recount):
    log.info("audit: bin %s recounted at %d units", change.bin, change.counted)


@describe.register(list)
def _describe_all(changes):
    if changes:
        log.debug("audit: %d recounts", len(changes))
    for change in changes:
        describe(change)
