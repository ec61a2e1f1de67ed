import logging

access_log = logging.getLogger("tinyhttp.access")
error_log = logging.getLogger("tinyhttp.error")

MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


class Request:
    def __init__(self, client, method, path, agent, when, referer=None):
        self.client = client
        self.method = method
        self.path = path
        self.agent = agent
        self.when = when
        self.referer = referer

    @property
    def requestline(self):
        return "%s %s HTTP/1.1" % (self.method, self.path)


class Response:
    def __init__(self, status, body=b"", elapsed_ms=0):
        self.status = status
        self.body = body
        self.elapsed_ms = elapsed_ms


class Handler:
    slow_ms = 500

    def __init__(self, routes):
        self.routes = routes

    def _timestamp(self, when):
        year, month, day, hour, minute, second = when
        return "%02d/%s/%04d:%02d:%02d:%02d +0000" % (day, MONTHS[month - 1], year, hour, minute, second)

    def _format(self, req, resp):
        size = len(resp.body) if resp.body else "-"
        return '%s - - [%s] "%s" %d %s "%s" "%s"' % (
            req.client, self._timestamp(req.when), req.requestline,
            resp.status, size, req.referer or "-", req.agent)

    def _format_slow(self, req, resp):
        return "slow response to %s: %s took %d ms (limit %d ms)" % (
            req.client, req.requestline, resp.elapsed_ms, self.slow_ms)

    def describe_failure(self, req, exc):
        return f"{req.method} {req.path} failed with {type(exc).__name__}: {exc}"

    def dispatch(self, req):
        view = self.routes.get(req.path)
        if view is None:
            return Response(404, b"not found")
        try:
            return view(req)
        except Exception as exc:
            error_log.error(self.describe_failure(req, exc))
            return Response(500)

    def handle(self, req):
        resp = self.dispatch(req)
        access_log.info(self._format(req, resp))
        if resp.elapsed_ms > self.slow_ms:
            error_log.warning(self._format_slow(req, resp))
        return resp
