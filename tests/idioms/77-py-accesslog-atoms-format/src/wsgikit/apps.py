import logging

from .accesslog import TIMING_FORMAT, AccessLog

log = logging.getLogger(__name__)

STOCK = {"kettle": 4, "toaster": 0}


def inventory(environ, start_response):
    item = environ["PATH_INFO"].rsplit("/", 1)[-1]
    if item not in STOCK:
        log.warning("unknown item %r requested", item)
        start_response("404 Not Found", [])
        return [b""]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"%s=%d\n" % (item.encode(), STOCK[item])]


def build(timing=False, custom=None):
    app = AccessLog(inventory)
    if timing:
        app = AccessLog(app, "wsgikit.timing", log_format=TIMING_FORMAT)
    if custom:
        app = AccessLog(app, "wsgikit.custom", custom)
    return app
