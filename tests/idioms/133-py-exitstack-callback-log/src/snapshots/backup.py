import logging
from contextlib import ExitStack, closing

from .resources import HostLock, LockBusy

log = logging.getLogger(__name__)


def report_failure(exc_type, exc, tb):
    if exc_type is not None:
        log.error("backup aborted: %s: %s", exc_type.__name__, exc)
    return False


def back_up(host, volumes, target):
    log.info("backing up %d volume(s) of %s to %s", len(volumes), host, target.url)
    try:
        with ExitStack() as stack:
            stack.enter_context(HostLock(host))
            stack.enter_context(closing(target))
            stack.push(report_failure)
            for vol in volumes:
                snap = vol.snapshot()
                stack.callback(vol.release, snap)
                stack.callback(log.debug, "dropping snapshot %s of %s", snap, host)
                target.copy(snap, vol.size_gb)
            log.info("%s: %d snapshot(s) copied", host, len(target.copied))
    except LockBusy:
        log.warning("%s is being backed up already, skipped", host)
        return False
    except (OSError, PermissionError):
        return False
    return True
