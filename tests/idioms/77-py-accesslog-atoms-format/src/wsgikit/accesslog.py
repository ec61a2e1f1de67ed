import logging

COMMON_FORMAT = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s'
TIMING_FORMAT = '%(r)s -> %(s)s in %(D)sus (%(b)s bytes)'


def atoms(environ, status, size, elapsed_us):
    query = environ.get("QUERY_STRING")
    path = environ["PATH_INFO"] + ("?" + query if query else "")
    return {
        "h": environ.get("REMOTE_ADDR", "-"),
        "l": "-",
        "u": environ.get("REMOTE_USER") or "-",
        "t": "[%s]" % environ["wsgikit.request_time"],
        "r": "%s %s %s" % (environ["REQUEST_METHOD"], path, environ.get("SERVER_PROTOCOL", "HTTP/1.0")),
        "s": status.split(None, 1)[0],
        "b": str(size) if size else "-",
        "D": str(elapsed_us),
    }


class AccessLog:
    """Middleware writing one line a request, in log_format (a %-format of
    the atoms above)."""

    def __init__(self, app, logger_name="wsgikit.access", log_format=COMMON_FORMAT):
        self.app = app
        self.log_format = log_format
        self.logger = logging.getLogger(logger_name)

    def __call__(self, environ, start_response):
        seen = {}

        def recording_start(status, headers):
            seen["status"] = status
            return start_response(status, headers)

        body = self.app(environ, recording_start)
        size = sum(len(chunk) for chunk in body)
        self.access(environ, seen["status"], size)
        return body

    def access(self, environ, status, size):
        values = atoms(environ, status, size, environ.get("wsgikit.elapsed_us", 0))
        try:
            self.logger.info(self.log_format % values)
        except (KeyError, ValueError, TypeError) as e:
            self.logger.error("bad access log format %r (%s: %s)", self.log_format, type(e).__name__, e)
