import logging

from .context import request_id

log = logging.getLogger(__name__)


def handle(rid, user, path):
    token = request_id.set(rid)
    try:
        log.info("%s requested %s", user, path, extra={"user": user})
        if path.startswith("/admin") and user != "root":
            log.warning("Access to %s denied", path, extra={"user": user, "status": 403})
            return 403
        log.debug("Served %s in %d ms", path, len(path) * 3)
        return 200
    finally:
        request_id.reset(token)
        log.debug("Request context cleared")
