#!/usr/bin/python3
"""Event log of aiohttp (Debian python3-aiohttp 3.8.4), its web server and its
HTTP client in one process, on 127.0.0.1.

    /usr/bin/python3 gen_aiohttp.py --out .deps/logs/aiohttp.csv.gz [--cases 700] [--seed 1] [--jobs 8]
    /usr/bin/python3 gen_aiohttp.py --repo     # prints the directory to index

Indexed: the whole installed ``aiohttp`` directory
(``/usr/lib/python3/dist-packages/aiohttp``): server, client, streams,
parsers (the C extensions run; their ``.so`` files are not indexed), the
gunicorn worker, the pytest plugin and test utilities (never run).

A case is one server lifetime, with the client sessions made for it.  The
case draws how the server runs: an ``Application`` behind ``AppRunner`` and
one or two sites (``TCPSite``, ``UnixSite``, ``SockSite`` over a socket the
generator binds), the low-level ``web.Server`` behind ``ServerRunner``,
``web.run_app`` (ended by a ``SIGINT`` the client sends when done), the
same ``AppRunner`` set-up built the old way (client session, connector and
cookie jar made before the event loop runs, on a loop in debug mode), or
aiohttp's ``GunicornWebWorker`` run in the process (see below).  The
application gets random middlewares (authentication storing the user on the
request, timing, an error-page middleware turning 404s and ``ValueError``s
into JSON, one that fails on a query flag, ``normalize_path_middleware``,
an old-style middleware factory), ``client_max_size``, a sub-application,
static files (index listing, symlinks followed or not, a symlink loop), an
``on_shutdown`` hook closing open websockets (or not) and debug mode (the
deprecated ``debug=True``) in about half the cases.  The handlers answer
text, JSON, forms and multipart uploads, echo bodies, redirect (chains and a
loop), set cookies (some that Python's cookie parser refuses), stream
chunked bodies (some failing half-way), raise plain exceptions,
``HTTPException``s and ``asyncio.TimeoutError``, return ``None``, a dict or
a raised-style ``HTTPException``, set a header with a CRLF in it, register
``on_eof`` callbacks that raise, poll a finished body in a loop, ignore the
body, and serve websockets (echo, JSON, a message that makes the handler
raise, closes by either side, subprotocols, heartbeats, a message size
limit).  The request handler gets random ``keepalive_timeout``,
``lingering_time``, line, field and header limits, ``read_bufsize``, and a
logger of its own or aiohttp's; the access log is aiohttp's
``AccessLogger`` with its default format or one of ten others, a subclass
adding an atom (the user the authentication middleware stored; a request
that never reached the application makes it fail), an
``AbstractAccessLogger`` subclass that skips health checks and static files
and hands the rest to an ``AccessLogger``, one that writes JSON lines of its
own (records of the generator's code: dropped, counted), or none.  Then
5-16 client steps: ``ClientSession`` requests with random options
(``TCPConnector`` limits, keep-alive, ``force_close``, timeouts,
``raise_for_status``, HTTP/1.0, cookie jars, redirects followed or not, a
redirect limit), concurrent requests queueing on a small connector limit,
requests given up by client timeouts, streamed reads (``iter_chunked``,
``readline``, a read loop past the end, ``on_eof`` callbacks that raise),
sessions trusting the environment (``NETRC`` naming a broken or a missing
file, HTTPS and WSS proxies, which aiohttp ignores with a warning, a plain
HTTP proxy that is the case's own server, ``no_proxy``), websocket clients
(subprotocols the server does not know, pings, JSON, binary, closes, oversized
messages), and raw sockets: pipelined keep-alive requests, HTTP/1.0,
malformed request lines, headers, lengths and chunks, oversized lines and
too many headers, a TLS hello, bodies sent slowly, in part or not at all,
connections dropped before the answer, websocket upgrades done wrong.
Sessions give a request up after 3 s: aiohttp 3.8.4 sometimes leaves a
reused keep-alive connection stalled behind a body the handler did not read
(small ``read_bufsize``, a handler that ignores the body).  The case ends
with ``runner.cleanup()`` (or the worker's or ``run_app``'s own shutdown),
sometimes with a slow request, an idle keep-alive connection and a
websocket still open and a short ``shutdown_timeout``.

The gunicorn worker: ``GunicornWebWorker`` is built as gunicorn's arbiter
builds it (a gunicorn ``Config`` with random keep-alive, ``max_requests``,
access log format, the worker's pid set after the fork) over a listening
socket, and ``init_process()`` runs it in the case's process; the client
runs in a task the application's ``on_startup`` hook starts.  It ends by a
``SIGTERM``, ``SIGQUIT`` or ``SIGINT`` the client sends itself, by its
``max_requests``, by an ``on_shutdown`` hook that fails ("Exception in
gunicorn worker"), or, in a few cases, as an orphan: the case forks a
stand-in arbiter, which forks the worker and exits a moment later, so the
worker sees its parent change ("Parent changed, shutting down"); its rows
come back through a file.  The worker's logger is a subclass of gunicorn's
``glogging.Logger`` whose level methods are the stdlib logger's own
(gunicorn's ``Logger`` would forward them through frames of its own file,
outside the indexed directory, and the capture would drop them).

Capture: the ``aiohttp`` logger tree (``aiohttp.access``,
``aiohttp.client``, ``aiohttp.internal``, ``aiohttp.server``, ``aiohttp.web``,
``aiohttp.websocket``) at DEBUG, the case's own loggers under ``bench``
(``bench.access``, ``bench.server``, ``bench.web``, handed to the runner and
the application) and gunicorn's ``gunicorn.error`` and ``gunicorn.access``
for the worker, each record with its true call site.  Server and client
share the case's event loop and thread.  Cases run ``--jobs`` at a time
(8: they mostly wait on timers and sockets), each in a process of its own
(forks of the generator, each running one case after another), so every
record of a process belongs to its open case; the rows go back to the main
process, which writes the cases in order.  Processes, not threads: a case
changes process-wide state (the environment a trusting session reads,
signal handlers of ``run_app`` and the worker, the current event loop, a
fork), and processes use the cores.  Records whose source lies outside the
``aiohttp`` directory (the generator's JSON access logger) are dropped and
counted.  Each case is given up after 60 s.

Determinism: each case draws from its own generator (``<seed>-<i>``), in a
process of its own.  Two runs with one seed give the same cases with the
same requests; about seven cases in ten log the same emitters in the same
order, the others differ where concurrent requests, client timeouts and
server shutdowns race (1-2% of the events).  Messages hold times
(``%t``, ``%T``, ``%Tf``, ``%D`` of the access formats), process ids
(``%P``, the worker's name), ports (``%{Host}i``) and temp paths.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): ``RequestHandler.log_debug`` and ``log_exception`` in
``web_protocol.py`` only forward their arguments to the handler's logger
(``log_debug`` when the handler is in debug mode); ``RequestHandler.log_access``
only hands the request, the response and the elapsed time to the access
logger; ``AccessLogger.log`` in ``web_log.py`` renders the line from what its
caller hands it (the format's atoms over request, response and time; its
"Error in logging" when an atom fails goes with it).  The emitters are then
the call sites in ``RequestHandler.start``, ``_handle_request``,
``finish_response`` (access lines: two sites, the first when writing the
response failed because the client had gone) and ``handle_error``.  The
generator's ``AbstractAccessLogger`` subclass that hands lines to an
``AccessLogger`` sits between two wrappers: its frames are walked through
(``skip_files``), so its lines go to the same sites.
"""
import argparse
import asyncio
import ctypes
import json
import logging
import multiprocessing
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import aiohttp  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(aiohttp.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

from aiohttp import WSCloseCode, WSMsgType, web  # noqa: E402
from aiohttp.abc import AbstractAccessLogger  # noqa: E402
from aiohttp.web_log import AccessLogger  # noqa: E402

try:
    from aiohttp.worker import GunicornWebWorker
    from gunicorn import glogging
    from gunicorn.config import Config as GunicornConfig
except ImportError:  # python3-gunicorn missing: no worker cases
    GunicornWebWorker = None

AIOHTTP_LOGGERS = ("aiohttp.access", "aiohttp.client", "aiohttp.internal", "aiohttp.server",
                   "aiohttp.web", "aiohttp.websocket")
CAPTURED = ["aiohttp", "bench", "gunicorn.error", "gunicorn.access"]
WRAPPERS = {("aiohttp/web_protocol.py", "log_access"), ("aiohttp/web_protocol.py", "log_debug"),
            ("aiohttp/web_protocol.py", "log_exception"), ("aiohttp/web_log.py", "log")}

# None: aiohttp's default '%a %t "%r" %s %b "%{Referer}i" "%{User-Agent}i"'
ACCESS_FORMATS = [
    '%a "%r" %s %b %Tf',
    '%r %s %D',
    '%a %t "%r" %s %b "%{Referer}i" "%{User-Agent}i" %D',
    '%{X-Request-Id}i %a "%r" %s %{Content-Type}o',
    '%t [%P] %r -> %s in %Tfs',
    '%s %b %{Host}i %r',
    '{"remote": "%a", "request": "%r", "status": %s, "bytes": %b, "took_us": %D}',
    'access: %a %{X-Forwarded-For}i "%r" %s %T',
    '%a - - %t "%r" %s %b',
    '%r %s len=%{Content-Length}o type=%{Content-Type}o agent="%{User-Agent}i"',
]
AGENTS = ["bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", None, "Go-http-client/1.1"]
REFERERS = ["http://127.0.0.1/", "https://example.test/search?q=aiohttp", None, None]
BAD_COOKIES = [",=1", "k=v; Domain=127.0.0.1; ,bad=1", "@home=1", "a=1; b(c)=2"]
ITEMS = {"a1": "apple", "b2": "banana", "c3": "cherry"}
FAILURES = {
    "value": lambda: ValueError("quantity must be positive"),
    "key": lambda: KeyError("cart"),
    "zero": lambda: ZeroDivisionError("division by zero"),
    "type": lambda: TypeError("unsupported operand type(s)"),
    "runtime": lambda: RuntimeError("backend unavailable"),
    "os": lambda: OSError(5, "Input/output error"),
    "reset": lambda: ConnectionResetError("upstream reset the connection"),
    "timeout": lambda: asyncio.TimeoutError(),
}
HTTP_ERRORS = {
    400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden, 404: web.HTTPNotFound,
    409: web.HTTPConflict, 410: web.HTTPGone, 422: web.HTTPUnprocessableEntity,
    429: web.HTTPTooManyRequests, 500: web.HTTPInternalServerError, 502: web.HTTPBadGateway,
    503: web.HTTPServiceUnavailable, 504: web.HTTPGatewayTimeout,
}
# raw requests that aiohttp's parser refuses (400 and "Error handling request") or reads its own way
MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"GET /\r\n\r\n",
    b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
    b"GET / HTTP/1.1\r\n: empty name\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    b"POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    b"GET / HTTP/2.0\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n continuation\r\n\r\n",
    b"G@T / HTTP/1.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nSec-WebSocket-Key1: 4 @1  46546xW%0l 1 5\r\n\r\n",
    b"GET / HTTP/1.1\r\nX-Nul: a\x00b\r\n\r\n",
    b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(range(32)) + b"\x00\x00\x02\x13\x01\x01\x00",
    b"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
]


# ---------------------------------------------------------------------------
# the application's code (its own frames never log)
# ---------------------------------------------------------------------------
def cfg_of(request):
    return request.config_dict["cfg"]


@web.middleware
async def auth_mw(request, handler):
    tok = request.headers.get("Authorization", "")
    request["user"] = tok[len("Bearer tok-"):] if tok.startswith("Bearer tok-") else "anonymous"
    if request.path.startswith("/private") and request["user"] == "anonymous":
        raise web.HTTPUnauthorized(text="token required", headers={"WWW-Authenticate": "Bearer"})
    return await handler(request)


@web.middleware
async def timing_mw(request, handler):
    t = time.monotonic()
    resp = await handler(request)
    if isinstance(resp, web.StreamResponse) and not resp.prepared:
        resp.headers["X-Elapsed"] = "%.4f" % (time.monotonic() - t)
    return resp


@web.middleware
async def error_page_mw(request, handler):
    try:
        return await handler(request)
    except web.HTTPNotFound:
        return web.json_response({"error": "not found", "path": request.path}, status=404)
    except ValueError as e:
        return web.json_response({"error": str(e)}, status=400)


@web.middleware
async def flaky_mw(request, handler):
    if "mwfail" in request.query:
        raise RuntimeError("middleware could not reach the session store")
    return await handler(request)


async def legacy_mw_factory(app, handler):
    # an old-style middleware (a factory of the application and the handler)
    async def mw(request):
        return await handler(request)
    return mw


async def h_index(request):
    return web.Response(text="hello %s" % request.query.get("name", "world"))


async def h_health(request):
    return web.Response(text="ok")


async def h_json(request):
    n = int(request.query.get("n", "3"))
    return web.json_response({"items": list(range(n)), "user": request.get("user")})


async def h_item(request):
    item = request.match_info["item"]
    if request.method == "DELETE":
        raise web.HTTPForbidden(text="user %s may not delete %s" % (request.get("user", "anonymous"), item))
    if item not in ITEMS:
        raise web.HTTPNotFound(text="no item %s" % item)
    return web.Response(text=ITEMS[item])


async def h_echo(request):
    body = await request.read()
    return web.Response(body=body, content_type=request.content_type or "application/octet-stream")


async def h_form(request):
    data = await request.post()
    out = {}
    for k, v in data.items():
        out[k] = v if isinstance(v, str) else "<file %s, %d bytes>" % (v.filename, len(v.file.read()))
    return web.json_response(out)


async def h_upload(request):
    reader = await request.multipart()
    parts = []
    async for part in reader:
        data = await part.read()
        parts.append({"name": part.name, "filename": part.filename, "size": len(data)})
    return web.json_response({"parts": parts})


async def h_boom(request):
    if request.query.get("late"):
        await asyncio.sleep(0.002)
    raise FAILURES[request.query.get("kind", "value")]()


async def h_http(request):
    code = int(request.match_info["code"])
    cls = HTTP_ERRORS.get(code, web.HTTPInternalServerError)
    headers = {"Retry-After": "3"} if code in (429, 503) else None
    raise cls(text="refused with %d" % code, headers=headers)


async def h_timeout(request):
    # an upstream call with a deadline, not caught: aiohttp answers 504
    await asyncio.wait_for(asyncio.sleep(1), float(request.query.get("s", "0.005")))


async def h_slow(request):
    await asyncio.sleep(int(request.query.get("ms", "50")) / 1000)
    return web.Response(text="slow done")


async def h_none(request):
    return None  # forgot the return: "Missing return statement on request handler"


async def h_notresp(request):
    return {"status": "ok"}  # not a response


async def h_badheader(request):
    return web.Response(text="x", headers={"X-Trace": "abc\r\nX-Injected: 1"})


async def h_returnexc(request):
    return web.HTTPAccepted(text="queued")  # returned instead of raised (deprecated)


async def h_stream(request):
    n = int(request.query.get("n", "5"))
    fail = int(request.query.get("fail", "-1"))
    resp = web.StreamResponse(headers={"Content-Type": "text/plain"})
    if request.query.get("length"):
        resp.content_length = sum(len(b"line %d\n" % i) for i in range(n))
    else:
        resp.enable_chunked_encoding()
    await resp.prepare(request)
    for i in range(n):
        if i == fail:
            raise RuntimeError("producer failed after %d lines" % i)
        await resp.write(b"line %d\n" % i)
        await asyncio.sleep(0)
    await resp.write_eof()
    return resp


async def h_redirect(request):
    n = int(request.match_info["n"])
    if n <= 0:
        return web.Response(text="landed")
    raise web.HTTPFound("/redirect/%d" % (n - 1))


async def h_loop(request):
    raise web.HTTPTemporaryRedirect("/loop")


async def h_cookies(request):
    resp = web.Response(text="cookies set")
    resp.set_cookie("session", "s-%s" % request.query.get("v", "1"), max_age=3600, httponly=True)
    resp.set_cookie("theme", "dark", path="/")
    if request.query.get("del"):
        resp.del_cookie("theme")
    if "bad" in request.query:
        resp.headers.add("Set-Cookie", BAD_COOKIES[int(request.query["bad"]) % len(BAD_COOKIES)])
    return resp


async def h_whoami(request):
    return web.json_response({"cookies": dict(request.cookies), "user": request.get("user")})


def _failing_eof_callback():
    raise RuntimeError("upload metrics sink is down")


async def h_eofcb(request):
    # a metrics hook on the end of the body that fails; registered before
    # the body is read (it may still be on its way) and once more after
    request.content.on_eof(_failing_eof_callback)
    body = await request.read()
    if request.query.get("twice"):
        request.content.on_eof(_failing_eof_callback)
    return web.Response(text="got %d bytes" % len(body))


async def h_readloop(request):
    # a read loop that keeps polling a body that has ended
    got = b""
    for _ in range(int(request.query.get("tries", "8"))):
        got += await request.content.read(1024)
    return web.Response(text="read %d bytes" % len(got))


async def h_ignore(request):
    return web.Response(text="not reading your body")


async def h_private(request):
    return web.Response(text="secret for %s" % request["user"])


async def h_file(request):
    return web.FileResponse(os.path.join(cfg_of(request)["static"], "data.bin"))


async def h_gzip(request):
    resp = web.Response(text="compressible " * 200)
    resp.enable_compression()
    return resp


async def h_admin_stats(request):
    return web.json_response({"websockets": len(request.config_dict["websockets"])})


async def h_ws(request):
    c = cfg_of(request)
    ws = web.WebSocketResponse(protocols=c["ws_protocols"], heartbeat=c["ws_heartbeat"],
                               max_msg_size=c["ws_max"], compress=c["ws_compress"])
    await ws.prepare(request)
    socks = request.config_dict["websockets"]
    socks.add(ws)
    try:
        await ws_echo(ws, rich=True)
    finally:
        socks.discard(ws)
    return ws


async def ws_echo(ws, rich):
    """Echoes a websocket's messages until it closes; "boom" makes the
    handler raise and "close" closes it.  rich (the application's handler):
    JSON comes back as JSON, and an error frame ends the loop."""
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            if msg.data == "boom":
                raise ValueError("cannot handle message %r" % msg.data)
            if msg.data == "close":
                await ws.close(code=4000, message=b"asked to close")
                break
            if rich and msg.data.startswith("{"):
                await ws.send_json(json.loads(msg.data))
            else:
                await ws.send_str(msg.data)
        elif msg.type == WSMsgType.BINARY:
            await ws.send_bytes(msg.data)
        elif rich and msg.type == WSMsgType.ERROR:
            break


async def close_websockets(app):
    for ws in list(app["websockets"]):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")


async def failing_shutdown(app):
    raise ConnectionError("could not flush the session store")


class UserAccessLogger(AccessLogger):
    """aiohttp's access line plus the user the authentication middleware put
    on the request; a request that never reached the application (a bad
    request) has none: KeyError, which AccessLogger.log reports as "Error in
    logging"."""

    def __init__(self, logger, log_format=AccessLogger.LOG_FORMAT):
        super().__init__(logger, log_format)
        self._log_format += " user=%s"

    def _format_line(self, request, response, time):
        return list(super()._format_line(request, response, time)) + [("user", request["user"])]


class QuietAccessLogger(AbstractAccessLogger):
    """Skips health checks and static files, hands the rest to AccessLogger."""

    def __init__(self, logger, log_format):
        super().__init__(logger, log_format)
        self.inner = AccessLogger(logger, log_format)

    def log(self, request, response, time):
        if request.path == "/health" or request.path.startswith("/static/"):
            return
        self.inner.log(request, response, time)


class JsonAccessLogger(AbstractAccessLogger):
    """Writes its own JSON line: these records are the generator's (dropped)."""

    def log(self, request, response, time):
        self.logger.info(json.dumps({"method": request.method, "path": request.path,
                                     "status": response.status, "took": round(time, 4)}))


if GunicornWebWorker is not None:
    class WorkerLogger(glogging.Logger):
        """gunicorn's logger with the stdlib logger's level methods bound in
        (gunicorn's own forward from frames in its file, outside the indexed
        directory, so their records would be dropped)."""

        def __init__(self, cfg):
            super().__init__(cfg)
            for name in ("critical", "error", "warning", "info", "debug", "exception", "log"):
                setattr(self, name, getattr(self.error_log, name))

    class WorkerApp:
        """What gunicorn hands a worker: an object whose wsgi() is the application."""

        def __init__(self, app):
            self.app = app

        def wsgi(self):
            return self.app


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def make_static(top):
    d = os.path.join(top, "static")
    os.makedirs(os.path.join(d, "sub", "dir"))
    files = {"index.html": b"<html><body>bench</body></html>\n", "app.css": b"body { color: #333 }\n" * 20,
             "app.js": b"console.log('bench');\n" * 40, "data.bin": bytes(range(256)) * 256,
             "sub/dir/file.txt": b"nested\n"}
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as fh:
            fh.write(data)
    with open(os.path.join(top, "outside.txt"), "wb") as fh:
        fh.write(b"outside the static root\n")
    os.symlink("../outside.txt", os.path.join(d, "link.txt"))
    os.symlink("loop.txt", os.path.join(d, "loop.txt"))  # a symlink loop: resolve() raises
    with open(os.path.join(top, "bad.netrc"), "w") as fh:
        fh.write("machine 127.0.0.1 login bob password\n  garbage-token here\n")
    with open(os.path.join(top, "good.netrc"), "w") as fh:
        fh.write("machine 127.0.0.1 login bob password pw\n")
    return d


async def read_until_quiet(reader, idle=0.06, limit=1 << 20):
    """Reads until the peer closes, or stays quiet for ``idle`` seconds once
    it has answered (keep-alive connections stay open)."""
    got = 0
    first = True
    while got < limit:
        try:
            d = await asyncio.wait_for(reader.read(65536), 1.0 if first else idle)
        except (asyncio.TimeoutError, OSError):
            break
        if not d:
            break
        got += len(d)
        first = False
    return got


class Case:
    def __init__(self, cid, r, top, stats):
        self.cid, self.r, self.top, self.stats = cid, r, top, stats
        self.notes = []
        self.sessions = []
        self.writers = []
        self.tasks = []
        self.env_saved = None

    # -- plan ------------------------------------------------------------------
    def plan(self):
        r = self.r
        gu = 1 if GunicornWebWorker else 0
        self.kind = pick(r, [(66, "runner"), (8, "lowlevel"), (7, "run_app"), (7, "legacy"),
                             (5 * gu, "worker"), (1.5 * gu, "orphan")])
        self.debug = self.kind == "legacy" or r.random() < 0.55
        self.unix = self.kind in ("runner", "legacy", "run_app") and r.random() < 0.12
        self.sock_site = not self.unix and self.kind in ("runner", "legacy", "lowlevel") and r.random() < 0.15
        self.second_site = self.kind in ("runner", "legacy") and not self.unix and r.random() < 0.1
        self.static = os.path.join(self.top, "static")
        self.path = os.path.join(self.top, "s-%s.sock" % self.cid) if self.unix else None
        self.port = 0
        self.cfg = {
            "static": self.static,
            "ws_protocols": pick(r, [(3, ()), (2, ("chat", "v2.chat")), (1, ("graphql-ws",))]),
            "ws_heartbeat": pick(r, [(4, None), (1, r.uniform(0.02, 0.1))]),
            "ws_max": pick(r, [(4, 4 * 1024 * 1024), (1, 512)]),
            "ws_compress": r.random() < 0.8,
        }
        kw = {
            "keepalive_timeout": pick(r, [(5, 75.0), (2, r.uniform(0.05, 0.3))]),
            "lingering_time": pick(r, [(3, 10.0), (3, r.uniform(0.02, 0.2)), (1, 0.0)]),
            "tcp_keepalive": r.random() < 0.85,
        }
        if r.random() < 0.15:
            kw["max_line_size"] = r.choice([120, 400, 1024])
        if r.random() < 0.15:
            kw["max_field_size"] = r.choice([200, 600, 2048])
        if r.random() < 0.1:
            kw["max_headers"] = r.choice([6, 12, 32])
        if r.random() < 0.1:
            kw["read_bufsize"] = r.choice([256, 1024])
        if r.random() < 0.25:
            kw["logger"] = logging.getLogger("bench.server")
        self.access = pick(r, [(55, "default"), (8, "user"), (8, "quiet"), (4, "json"), (4, "none")])
        if self.kind in ("worker", "orphan") and self.access in ("user", "quiet", "json"):
            self.access = "default"  # the worker builds its AccessLogger itself
        if self.kind == "lowlevel" and self.access == "user":
            self.access = "default"  # no application, no middleware storing the user
        self.access_format = pick(r, [(5, None)] + [(1, f) for f in ACCESS_FORMATS])
        if self.access != "none":
            kw["access_log"] = logging.getLogger("bench.access") if r.random() < 0.2 \
                else logging.getLogger("aiohttp.access")
            if self.access_format:
                kw["access_log_format"] = self.access_format
            kw["access_log_class"] = {"default": AccessLogger, "user": UserAccessLogger,
                                      "quiet": QuietAccessLogger, "json": JsonAccessLogger}[self.access]
        else:
            kw["access_log"] = None
        self.handler_kw = kw
        self.middlewares = []
        if r.random() < 0.5:
            self.middlewares.append(auth_mw)
        elif self.access == "user":
            self.middlewares.append(auth_mw)
        for mw, p in ((timing_mw, 0.4), (error_page_mw, 0.3), (flaky_mw, 0.25), (legacy_mw_factory, 0.06)):
            if r.random() < p:
                self.middlewares.append(mw)
        if r.random() < 0.15:
            self.middlewares.insert(0, web.normalize_path_middleware(append_slash=r.random() < 0.5,
                                                                     merge_slashes=True))
        r.shuffle(self.middlewares)
        self.client_max_size = pick(r, [(5, 1024 ** 2), (1, 2048)])
        self.close_ws_on_shutdown = r.random() < 0.6
        self.shutdown_timeout = pick(r, [(3, 60.0), (2, r.uniform(0.02, 0.3))])
        self.leave_open = r.random() < 0.25
        self.notes += [self.kind, "debug" if self.debug else "-", self.access,
                       "unix" if self.unix else ("sock" if self.sock_site else "tcp")]

    # -- the application ----------------------------------------------------------
    def make_app(self):
        r = self.r
        kw = {"middlewares": self.middlewares, "client_max_size": self.client_max_size}
        if self.debug and self.kind != "legacy":
            kw["debug"] = True  # deprecated, still honoured (the legacy loop is in debug mode)
        if r.random() < 0.2:
            kw["logger"] = logging.getLogger("bench.web")
        app = web.Application(**kw)
        app["cfg"] = self.cfg
        app["websockets"] = set()
        routes = [
            web.get("/", h_index), web.get("/health", h_health), web.get("/json", h_json),
            web.get("/items/{item}", h_item), web.delete("/items/{item}", h_item),
            web.post("/echo", h_echo), web.put("/echo", h_echo), web.post("/form", h_form),
            web.post("/upload", h_upload), web.get("/boom", h_boom), web.get("/http/{code:\\d+}", h_http),
            web.get("/timeout", h_timeout), web.get("/slow", h_slow), web.get("/none", h_none),
            web.get("/notresp", h_notresp), web.get("/badheader", h_badheader),
            web.get("/returnexc", h_returnexc), web.get("/stream", h_stream),
            web.get("/redirect/{n:\\d+}", h_redirect), web.get("/loop", h_loop),
            web.get("/cookies", h_cookies), web.get("/whoami", h_whoami),
            web.post("/eofcb", h_eofcb), web.get("/eofcb", h_eofcb), web.post("/readloop", h_readloop),
            web.post("/ignore", h_ignore), web.get("/private", h_private), web.get("/file", h_file),
            web.get("/gzip", h_gzip), web.get("/ws", h_ws),
        ]
        app.add_routes(routes)
        app.router.add_static("/static", self.static, show_index=r.random() < 0.5,
                              follow_symlinks=r.random() < 0.4, append_version=r.random() < 0.2)
        if r.random() < 0.5:
            admin = web.Application(middlewares=[auth_mw] if r.random() < 0.5 else [])
            admin.router.add_get("/stats", h_admin_stats)
            admin.router.add_get("/boom", h_boom)
            app.add_subapp("/admin/", admin)
        if self.close_ws_on_shutdown:
            app.on_shutdown.append(close_websockets)
        return app

    async def lowlevel_handler(self, request):
        """The low-level server's one handler: a few of the application's
        pages, dispatched by hand."""
        p = request.path
        if p == "/ws":
            return await h_ws_lowlevel(request, self.cfg)
        if p == "/boom":
            return await h_boom(request)
        if p == "/slow":
            return await h_slow(request)
        if p == "/none":
            return await h_none(request)
        if p == "/timeout":
            return await h_timeout(request)
        if p in ("/echo", "/upload", "/form"):
            return await h_echo(request)
        if p == "/eofcb":
            return await h_eofcb(request)
        if p == "/readloop":
            return await h_readloop(request)
        if p == "/stream":
            return await h_stream(request)
        if p.startswith("/http/") and p[6:].isdigit():
            raise HTTP_ERRORS.get(int(p[6:]), web.HTTPInternalServerError)(text="refused")
        if p in ("/", "/json", "/health"):
            return web.Response(text="low-level %s" % p)
        return web.Response(status=404, text="no page %s" % p)

    # -- client plumbing ------------------------------------------------------------
    def base(self):
        return "http://localhost" if self.unix else "http://127.0.0.1:%d" % self.port

    def connector(self, **kw):
        if self.unix:
            return aiohttp.UnixConnector(self.path, force_close=kw.get("force_close", False),
                                         limit=kw.get("limit", 100))
        return aiohttp.TCPConnector(**kw)

    def session(self, connector=None, **kw):
        # a client that gives up after 3 s (aiohttp 3.8.4 sometimes leaves a
        # reused keep-alive connection stalled behind a body it did not read)
        kw.setdefault("timeout", aiohttp.ClientTimeout(total=3))
        s = aiohttp.ClientSession(connector=connector or self.connector(), **kw)
        self.sessions.append(s)
        return s

    def headers(self):
        r = self.r
        h = {}
        ua = r.choice(AGENTS)
        if ua:
            h["User-Agent"] = ua
        ref = r.choice(REFERERS)
        if ref:
            h["Referer"] = ref
        if r.random() < 0.3:
            h["X-Request-Id"] = "req-%04x" % r.randrange(65536)
        if r.random() < 0.15:
            h["X-Forwarded-For"] = "10.0.%d.%d" % (r.randrange(256), r.randrange(256))
        if r.random() < 0.3:
            h["Authorization"] = "Bearer tok-%s" % r.choice(["alice", "bob"])
        return h

    def pick_request(self):
        """(method, path, request kwargs) of one request."""
        r = self.r
        k = pick(r, [(10, "index"), (5, "json"), (4, "item"), (2, "delete"), (4, "echo"), (2, "form"),
                     (2, "upload"), (5, "boom"), (4, "http"), (2, "timeout"), (2, "slow"), (1.5, "none"),
                     (1, "notresp"), (1, "badheader"), (1, "returnexc"), (3, "stream"), (3, "redirect"),
                     (1, "loop"), (3, "cookies"), (1, "whoami"), (2, "eofcb"), (1, "eofget"),
                     (1.5, "readloop"), (2, "ignore"), (2, "private"), (1.5, "admin"), (1.5, "mwfail"),
                     (2, "missing"), (1, "method"), (1.5, "static"), (1, "file"), (1, "gzip"),
                     (2, "health"), (1, "head"), (0.6, "slashes")])
        if k == "index":
            return "GET", "/" + r.choice(["", "?name=bob", "?name=%C3%A9l%C3%A8ve"]), {}
        if k == "json":
            return "GET", "/json?n=%s" % r.choice(["1", "3", "20", "x"]), {}
        if k == "item":
            return "GET", "/items/%s" % r.choice(["a1", "b2", "c3", "zz", "q9"]), {}
        if k == "delete":
            return "DELETE", "/items/%s" % r.choice(["a1", "zz"]), {}
        if k == "echo":
            size = pick(r, [(5, r.randint(0, 200)), (2, r.randint(1000, 5000)), (1, 70000)])
            return r.choice(["POST", "PUT"]), "/echo", {"data": b"e" * size}
        if k == "form":
            fd = aiohttp.FormData()
            fd.add_field("name", "bench")
            if r.random() < 0.5:
                fd.add_field("file", b"x" * r.randint(10, 3000), filename="notes.txt", content_type="text/plain")
            return "POST", "/form", {"data": fd}
        if k == "upload":
            if r.random() < 0.2:
                return "POST", "/upload", {"data": b"not multipart"}
            fd = aiohttp.FormData()
            for i in range(r.randint(1, 3)):
                fd.add_field("part%d" % i, b"p" * r.randint(1, 2000), filename="f%d.bin" % i)
            return "POST", "/upload", {"data": fd}
        if k == "boom":
            return "GET", "/boom?kind=%s%s" % (r.choice(list(FAILURES)), r.choice(["", "&late=1"])), {}
        if k == "http":
            return "GET", "/http/%d" % r.choice(list(HTTP_ERRORS)), {}
        if k == "timeout":
            return "GET", "/timeout", {}
        if k == "slow":
            return "GET", "/slow?ms=%d" % r.choice([5, 20, 60]), {}
        if k in ("none", "notresp", "badheader", "returnexc", "loop", "whoami", "private", "file", "gzip",
                 "health"):
            return "GET", "/" + k, {"headers": {"Accept-Encoding": "gzip, deflate"}} if k == "gzip" else {}
        if k == "stream":
            q = "n=%d" % r.randint(1, 30)
            if r.random() < 0.3:
                q += "&fail=%d" % r.randint(0, 3)
            if r.random() < 0.3:
                q += "&length=1"
            return "GET", "/stream?" + q, {}
        if k == "redirect":
            return "GET", "/redirect/%d" % r.randint(0, 6), {}
        if k == "cookies":
            q = "v=%d" % r.randint(1, 9)
            if r.random() < 0.5:
                q += "&bad=%d" % r.randrange(len(BAD_COOKIES))
            if r.random() < 0.2:
                q += "&del=1"
            return "GET", "/cookies?" + q, {}
        if k == "eofcb":
            return "POST", "/eofcb" + r.choice(["", "?twice=1"]), {"data": b"m" * r.randint(1, 3000)}
        if k == "eofget":
            return "GET", "/eofcb", {}
        if k == "readloop":
            return "POST", "/readloop?tries=%d" % r.choice([3, 8, 12]), {"data": b"r" * r.randint(1, 3000)}
        if k == "ignore":
            # (a large body the server does not read stalls the connection the
            # client then reuses, until the keep-alive timeout: raw steps only)
            return "POST", "/ignore", {"data": b"i" * r.choice([100, 3000])}
        if k == "admin":
            return "GET", "/admin/%s" % r.choice(["stats", "boom?kind=key", "nothing"]), {}
        if k == "mwfail":
            return "GET", "/json?mwfail=1", {}
        if k == "missing":
            return "GET", r.choice(["/nothing", "/items/", "/favicon.ico", "/api/v1/users"]), {}
        if k == "method":
            return r.choice(["PATCH", "OPTIONS", "PUT"]), r.choice(["/", "/items/a1", "/json"]), {}
        if k == "static":
            return "GET", "/static/" + r.choice(["app.css", "app.js", "index.html", "nope.txt", "", "sub/",
                                                 "sub/dir/file.txt", "link.txt", "loop.txt"]), {}
        if k == "head":
            return "HEAD", r.choice(["/", "/json", "/static/app.css"]), {}
        return "GET", r.choice(["//double//slashes", "/json/", "/items/a1/"]), {}

    async def do_request(self, s, method, path, kw, read="all"):
        try:
            async with s.request(method, self.base() + path, **kw) as resp:
                if read == "all":
                    await resp.read()
                elif read == "part":
                    await resp.content.read(10)
                return resp.status
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            return None

    # -- client steps ---------------------------------------------------------------
    async def s_requests(self):
        r = self.r
        ckw = {}
        if r.random() < 0.3:
            ckw["limit"] = r.choice([1, 2, 10])
        if r.random() < 0.15:
            ckw["force_close"] = True
        elif r.random() < 0.2:
            ckw["keepalive_timeout"] = r.choice([0.01, 2.0])
        if not self.unix and r.random() < 0.1:
            ckw["enable_cleanup_closed"] = True
        skw = {"headers": self.headers()}
        if r.random() < 0.3:
            skw["timeout"] = aiohttp.ClientTimeout(total=r.choice([0.05, 0.5, 5]))
        if r.random() < 0.1:
            skw["raise_for_status"] = True
        if r.random() < 0.1:
            skw["version"] = aiohttp.HttpVersion10
        if r.random() < 0.1:
            skw["auto_decompress"] = False
        jar = pick(r, [(3, None), (2, "unsafe"), (1, "dummy")])
        if jar == "unsafe":
            skw["cookie_jar"] = aiohttp.CookieJar(unsafe=True)
        elif jar == "dummy":
            skw["cookie_jar"] = aiohttp.DummyCookieJar()
        s = self.session(self.connector(**ckw), **skw)
        for _ in range(r.randint(1, 12)):
            m, p, kw = self.pick_request()
            if r.random() < 0.2:
                kw["allow_redirects"] = False
            elif r.random() < 0.2:
                kw["max_redirects"] = r.choice([1, 2, 3])
            await self.do_request(s, m, p, kw, read=pick(r, [(9, "all"), (1, "part"), (0.5, "none")]))

    async def s_concurrent(self):
        r = self.r
        s = self.session(self.connector(limit=r.choice([1, 2, 3]), limit_per_host=r.choice([0, 1, 2])),
                         headers=self.headers())
        reqs = [self.pick_request() for _ in range(r.randint(3, 16))]
        await asyncio.gather(*(self.do_request(s, m, p, kw) for m, p, kw in reqs))

    async def s_abort(self):
        # requests the client gives up on: the server's handlers are cancelled
        r = self.r
        s = self.session(timeout=aiohttp.ClientTimeout(total=r.choice([0.01, 0.03])))
        for _ in range(r.randint(1, 3)):
            p = r.choice(["/slow?ms=150", "/slow?ms=60", "/stream?n=3000", "/timeout?s=0.1"])
            await self.do_request(s, "GET", p, {})
        await asyncio.sleep(0.02)

    async def s_stream(self):
        r = self.r
        s = self.session(headers=self.headers())
        try:
            tail = r.choice(["", "", "&length=1", "&fail=%d" % r.randint(1, 5)])
            q = "/stream?n=%d%s" % (r.randint(2, 40), tail)
            async with s.get(self.base() + q) as resp:
                how = r.choice(["chunked", "lines", "loop", "eofcb", "any"])
                if how == "eofcb":
                    resp.content.on_eof(_failing_eof_callback)
                if how == "chunked":
                    async for _ in resp.content.iter_chunked(r.choice([4, 64])):
                        pass
                elif how == "lines":
                    async for _ in resp.content:
                        pass
                elif how == "loop":
                    # keeps reading past the end, as a loop that ignores b"" would
                    for _ in range(r.choice([4, 9, 12])):
                        await resp.content.read(32)
                else:
                    await resp.read()
                if how == "eofcb" and r.random() < 0.5:
                    resp.content.on_eof(_failing_eof_callback)
        except (aiohttp.ClientError, asyncio.TimeoutError):
            pass

    async def s_cookies(self):
        r = self.r
        s = self.session(cookie_jar=aiohttp.CookieJar(unsafe=True), headers=self.headers())
        for _ in range(r.randint(1, 3)):
            await self.do_request(s, "GET", "/cookies?v=%d&bad=%d" % (r.randint(1, 9), r.randrange(8)), {})
        await self.do_request(s, "GET", "/whoami", {})

    async def s_trust_env(self):
        # proxies and credentials from the environment (this process's own:
        # the case runs alone in it)
        r = self.r
        if self.unix:
            return await self.s_requests()
        env = {"NETRC": pick(r, [(3, os.path.join(self.top, "bad.netrc")),
                                 (2, os.path.join(self.top, "missing.netrc")),
                                 (1, os.path.join(self.top, "good.netrc"))])}
        if r.random() < 0.6:
            env["https_proxy"] = r.choice(["https://proxy.bench.test:3128", "https://user:pw@10.9.9.9:8443"])
        if r.random() < 0.3:
            env["wss_proxy"] = "https://wsproxy.bench.test:443"
        if r.random() < 0.4:
            env["http_proxy"] = "http://127.0.0.1:%d" % self.port  # the case's own server answers as the proxy
        if r.random() < 0.2:
            env["no_proxy"] = "127.0.0.1,localhost"
        self.set_env(env)
        s = self.session(trust_env=True, headers=self.headers())
        for _ in range(r.randint(1, 4)):
            m, p, kw = self.pick_request()
            await self.do_request(s, m, p, kw)
        if r.random() < 0.3:
            await self.ws_session(s)

    async def s_ws(self):
        r = self.r
        s = self.session(headers=self.headers() if r.random() < 0.5 else None)
        await self.ws_session(s)

    async def ws_session(self, s):
        r = self.r
        kw = {}
        k = r.random()
        if k < 0.35:
            kw["protocols"] = r.choice([("chat",), ("soap", "v1.proto"), ("v2.chat", "chat"), ("graphql-ws",)])
        if r.random() < 0.15:
            kw["heartbeat"] = r.uniform(0.02, 0.08)
        if r.random() < 0.15:
            kw["receive_timeout"] = 0.05
        if r.random() < 0.15:
            kw["max_msg_size"] = 256
        if r.random() < 0.2:
            kw["compress"] = 15
        if r.random() < 0.2:
            kw["origin"] = "http://evil.example"
        path = "/ws" if r.random() < 0.93 else r.choice(["/nothing", "/"])
        try:
            ws = await asyncio.wait_for(s.ws_connect(self.base() + path, **kw), 2)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            return
        try:
            for _ in range(r.randint(1, 6)):
                what = r.choice(["text", "text", "json", "binary", "big", "ping", "boom", "close"])
                if what == "text":
                    await ws.send_str("hello %d" % r.randrange(100))
                elif what == "json":
                    await ws.send_json({"op": "sub", "topic": r.choice(["a", "b"])})
                elif what == "binary":
                    await ws.send_bytes(bytes(r.randrange(256) for _ in range(16)))
                elif what == "big":
                    await ws.send_str("x" * r.choice([600, 5000]))
                elif what == "ping":
                    await ws.ping(b"p")
                    await asyncio.sleep(0.01)
                    continue
                else:
                    await ws.send_str(what)
                msg = await asyncio.wait_for(ws.receive(), 0.5)
                if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.ERROR, WSMsgType.CLOSING):
                    break
            if r.random() < 0.8:
                await ws.close(code=r.choice([1000, 1001, 4001]), message=b"bye")
        except (aiohttp.ClientError, asyncio.TimeoutError, RuntimeError, ConnectionError):
            pass
        finally:
            if r.random() < 0.9 or not ws.closed:
                await ws.close()

    async def wait_listening(self):
        """The startup hooks that start the client run before the sites
        listen: waits until a connection goes through."""
        for _ in range(400):
            try:
                _, w = await self.open_raw()
                w.close()
                return
            except (OSError, asyncio.TimeoutError):
                await asyncio.sleep(0.005)

    async def open_raw(self):
        if self.unix:
            return await asyncio.wait_for(asyncio.open_unix_connection(self.path), 2)
        return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 2)

    def raw_request(self, method, path, body=None, headers=None, version="HTTP/1.1", close=False):
        h = {"Host": "127.0.0.1:%d" % self.port if not self.unix else "localhost"}
        h.update(headers or {})
        if body is not None:
            h["Content-Length"] = str(len(body))
        if close:
            h["Connection"] = "close"
        out = "%s %s %s\r\n" % (method, path, version) + "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
        return out.encode("latin1") + (body or b"")

    async def s_raw(self):
        try:
            reader, writer = await self.open_raw()
        except (OSError, asyncio.TimeoutError):
            return
        self.writers.append(writer)
        try:
            await asyncio.wait_for(self._raw(reader, writer), 3)
        except (OSError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()

    async def _raw(self, reader, writer):
        r = self.r
        k = pick(r, [(8, "pipeline"), (7, "malformed"), (2, "long-line"), (2, "headers"), (3, "partial"),
                     (3, "slow-body"), (3, "drop"), (2, "ws-bad"), (2, "ignore-body"), (1, "http10")])
        self.notes.append("raw:" + k)
        if k == "pipeline":
            reqs = []
            for _ in range(r.randint(2, 5)):
                m, p, kw = self.pick_request()
                if "data" in kw and not isinstance(kw["data"], bytes):
                    continue
                if p.startswith(("/slow", "/timeout")) or m == "HEAD":
                    continue
                reqs.append(self.raw_request(m, p, kw.get("data"), self.headers()))
            if r.random() < 0.5:
                writer.write(b"".join(reqs))
                await read_until_quiet(reader)
            else:
                for q in reqs:
                    writer.write(q)
                    await read_until_quiet(reader)
        elif k == "malformed":
            bad = r.choice(MALFORMED)
            writer.write(self.raw_request("GET", "/json") + bad if r.random() < 0.3 else bad)
            await read_until_quiet(reader)
        elif k == "long-line":
            writer.write(self.raw_request("GET", "/?q=" + "a" * r.choice([300, 2000, 9000])))
            await read_until_quiet(reader)
        elif k == "headers":
            if r.random() < 0.5:
                h = {"X-Big": "b" * r.choice([500, 3000, 9000])}
            else:
                h = {"X-H%d" % i: "v" for i in range(r.choice([20, 40, 140]))}
            writer.write(self.raw_request("GET", "/", None, h))
            await read_until_quiet(reader)
        elif k == "partial":
            # a body announced longer than what comes, then the client goes
            p = r.choice(["/echo", "/eofcb", "/upload", "/ignore"])
            head = self.raw_request("POST", p, None, {"Content-Length": str(r.choice([100, 5000]))})
            writer.write(head + b"p" * r.randint(0, 50))
            await asyncio.sleep(r.choice([0.0, 0.02, 0.08]))
            if r.random() < 0.3:
                writer.transport.abort()
            else:
                writer.close()
            await asyncio.sleep(0.03)
        elif k == "slow-body":
            # the body arrives after the handler started (eof callbacks
            # registered before the end, lingering reads)
            p = r.choice(["/eofcb", "/eofcb", "/echo", "/readloop", "/ignore"])
            size = r.choice([20, 400])
            writer.write(self.raw_request("POST", p, None, {"Content-Length": str(size)}) + b"s" * 5)
            await asyncio.sleep(r.choice([0.01, 0.05]))
            writer.write(b"s" * (size - 5))
            await read_until_quiet(reader)
        elif k == "drop":
            # the client goes away before the answer
            p = r.choice(["/slow?ms=80", "/slow?ms=30", "/stream?n=2000", "/timeout?s=0.05", "/boom?late=1"])
            writer.write(self.raw_request("GET", p))
            await asyncio.sleep(r.choice([0.0, 0.01, 0.04]))
            if r.random() < 0.4:
                writer.transport.abort()
            else:
                writer.close()
            await asyncio.sleep(0.1)
        elif k == "ws-bad":
            h = {"Upgrade": "websocket", "Connection": "Upgrade"}
            kk = r.random()
            if kk < 0.3:
                h["Sec-WebSocket-Version"] = "13"  # no key
            elif kk < 0.55:
                h.update({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "99"})
            elif kk < 0.8:
                h.update({"Sec-WebSocket-Key": "short", "Sec-WebSocket-Version": "13"})
            else:
                h.update({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
                          "Sec-WebSocket-Protocol": "soap, wamp"})
            writer.write(self.raw_request("GET", "/ws", None, h))
            await read_until_quiet(reader)
        elif k == "ignore-body":
            size = r.choice([2000, 100000])
            writer.write(self.raw_request("POST", "/ignore", None, {"Content-Length": str(size)}) + b"i" * 100)
            await read_until_quiet(reader)
            await asyncio.sleep(r.choice([0.0, 0.1, 0.25]))
            if r.random() < 0.5:
                writer.write(b"i" * (size - 100))
                await asyncio.sleep(0.02)
        else:
            for _ in range(r.randint(1, 3)):
                m, p, kw = self.pick_request()
                if isinstance(kw.get("data", b""), bytes) and not p.startswith(("/slow", "/timeout")):
                    writer.write(self.raw_request(m, p, kw.get("data"), {"Connection": "keep-alive"}, "HTTP/1.0"))
                    await read_until_quiet(reader)

    STEPS = [("s_requests", 12), ("s_concurrent", 3), ("s_raw", 9), ("s_ws", 4), ("s_abort", 3),
             ("s_stream", 2), ("s_cookies", 1.5), ("s_trust_env", 1.5)]

    async def client_steps(self):
        r = self.r
        for _ in range(r.randint(5, 16)):
            name = pick(r, [(w, n) for n, w in self.STEPS])
            self.notes.append(name[2:])
            try:
                await asyncio.wait_for(getattr(self, name)(), 8)
            except Exception as e:  # the client's failures are part of the case
                k = "%s:%s" % (name[2:], type(e).__name__)
                self.stats["step errors"][k] = self.stats["step errors"].get(k, 0) + 1
                if os.environ.get("GEN_DEBUG") == "2":
                    import traceback
                    traceback.print_exc()
        await asyncio.sleep(0.01)

    async def hold_open(self):
        """What is left open when the server stops: a slow request in
        flight, an idle keep-alive connection, an open websocket."""
        r = self.r
        s = self.session()
        slow = "/slow?ms=%d" % r.choice([200, 1500])
        self.tasks.append(asyncio.ensure_future(self.do_request(s, "GET", slow, {})))
        try:
            reader, writer = await self.open_raw()
            self.writers.append(writer)
            writer.write(self.raw_request("GET", "/json"))
        except (OSError, asyncio.TimeoutError):
            pass
        if r.random() < 0.5:
            try:
                ws = await asyncio.wait_for(s.ws_connect(self.base() + "/ws"), 2)
                await ws.send_str("still here")
                self.tasks.append(asyncio.ensure_future(ws.receive()))
            except (aiohttp.ClientError, asyncio.TimeoutError):
                pass
        await asyncio.sleep(0.03)

    async def close_clients(self):
        for t in self.tasks:
            t.cancel()
        for w in self.writers:
            w.close()
        for s in self.sessions:
            try:
                await asyncio.wait_for(s.close(), 2)
            except Exception:
                pass
        await asyncio.sleep(0)

    def set_env(self, env):
        if self.env_saved is None:
            self.env_saved = {k: os.environ.get(k) for k in ("NETRC", "https_proxy", "wss_proxy",
                                                             "http_proxy", "no_proxy")}
        for k in self.env_saved:
            os.environ.pop(k, None)
        os.environ.update(env)

    def restore_env(self):
        if self.env_saved is not None:
            for k, v in self.env_saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    # -- server lifetimes ------------------------------------------------------------
    async def start_sites(self, runner):
        r = self.r
        st = self.shutdown_timeout
        if self.unix:
            site = web.UnixSite(runner, self.path, shutdown_timeout=st)
        elif self.sock_site:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
            site = web.SockSite(runner, sock, shutdown_timeout=st)
        else:
            site = web.TCPSite(runner, "127.0.0.1", 0, shutdown_timeout=st, backlog=r.choice([16, 128]),
                               reuse_address=r.random() < 0.5)
        await site.start()
        if not self.unix and not self.sock_site:
            self.port = runner.addresses[0][1]
        if self.second_site:
            self.path2 = os.path.join(self.top, "s2-%s.sock" % self.cid)
            await web.UnixSite(runner, self.path2, shutdown_timeout=st).start()

    async def run_runner(self, pre_session=None):
        if self.kind == "lowlevel":
            runner = web.ServerRunner(web.Server(self.lowlevel_handler, debug=self.debug, **self.handler_kw))
        else:
            runner = web.AppRunner(self.make_app(), **self.handler_kw)
        await runner.setup()
        try:
            await self.start_sites(runner)
            if pre_session is not None:
                self.sessions.append(pre_session)
                for _ in range(self.r.randint(1, 5)):
                    m, p, kw = self.pick_request()
                    await self.do_request(pre_session, m, p, kw)
            await self.client_steps()
            if self.leave_open:
                await self.hold_open()
        finally:
            await runner.cleanup()
            await self.close_clients()

    def run_legacy(self):
        # the pre-3.8 style: loop made and set by hand, in debug mode, and
        # the client's objects made before it runs
        loop = asyncio.new_event_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = 10.0
        asyncio.set_event_loop(loop)
        try:
            jar = aiohttp.CookieJar(unsafe=True, loop=loop) if self.r.random() < 0.5 else None
            conn = aiohttp.UnixConnector(self.path) if self.unix else \
                aiohttp.TCPConnector(limit=self.r.choice([2, 100]))
            sess = aiohttp.ClientSession(connector=conn, cookie_jar=jar)
            loop.run_until_complete(asyncio.wait_for(self.run_runner(sess), 60))
        finally:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                asyncio.set_event_loop(None)
                loop.close()

    def run_app(self):
        app = self.make_app()
        sock = None
        kw = {k: v for k, v in self.handler_kw.items()
              if k in ("keepalive_timeout", "access_log", "access_log_format", "access_log_class")}
        if self.unix:
            kw["path"] = self.path
        else:
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
            kw["sock"] = sock

        async def client(app):
            try:
                await self.wait_listening()
                await self.client_steps()
                if self.leave_open:
                    await self.hold_open()
            finally:
                os.kill(os.getpid(), signal.SIGINT)  # run_app's handler: GracefulExit

        async def start_client(app):
            self.tasks.append(asyncio.get_running_loop().create_task(client(app)))

        async def close_clients(app):
            await self.close_clients()

        app.on_startup.append(start_client)
        app.on_cleanup.append(close_clients)
        loop = asyncio.new_event_loop()
        guard = loop.call_later(60, lambda: os.kill(os.getpid(), signal.SIGINT))
        try:
            web.run_app(app, shutdown_timeout=self.shutdown_timeout, print=None, handle_signals=True,
                        loop=loop, **kw)
        finally:
            guard.cancel()
            if not loop.is_closed():
                loop.close()
            asyncio.set_event_loop(None)
            if sock is not None:
                sock.close()

    def worker_plan(self):
        r = self.r
        cfg = GunicornConfig()
        cfg.set("accesslog", os.devnull if self.access != "none" else None)
        cfg.set("errorlog", os.devnull)
        cfg.set("loglevel", "debug")
        cfg.set("keepalive", pick(r, [(3, 2), (1, 75)]))
        cfg.set("graceful_timeout", pick(r, [(3, 1), (1, 2)]))
        if self.access_format:
            cfg.set("access_log_format", self.access_format)
        self.end = pick(r, [(4, "signal"), (2, "max_requests"), (2, "failing-shutdown")])
        if self.kind == "orphan":
            self.end = "orphan"
        if self.end == "max_requests":
            cfg.set("max_requests", r.randint(3, 12))
        self.gcfg = cfg
        self.notes.append("end:" + self.end)

    def run_worker(self):
        """aiohttp's gunicorn worker, as gunicorn's arbiter builds it, in this
        process; the client runs in a task the application's startup starts."""
        r = self.r
        app = self.make_app()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        worker = None

        async def client(app):
            try:
                await self.wait_listening()
                await self.client_steps()
                if self.end == "max_requests":
                    for _ in range(15):  # past max_requests; the worker notices at its next beat
                        s = self.session()
                        await self.do_request(s, "GET", "/", {})
                if self.leave_open:
                    await self.hold_open()
            finally:
                if self.end in ("signal", "failing-shutdown"):
                    os.kill(os.getpid(), r.choice([signal.SIGTERM, signal.SIGQUIT, signal.SIGINT]))

        async def start_client(app):
            loop = asyncio.get_running_loop()
            self.tasks.append(loop.create_task(client(app)))
            # should no ending come (a worker that never sees its max_requests)
            loop.call_later(30, worker.handle_quit, signal.SIGQUIT, None)

        async def close_clients(app):
            await self.close_clients()

        app.on_startup.append(start_client)
        if self.end == "failing-shutdown":
            app.on_shutdown.append(failing_shutdown)
        app.on_cleanup.append(close_clients)
        log = WorkerLogger(self.gcfg)
        worker = GunicornWebWorker(1, os.getppid(), [sock], WorkerApp(app), 30, self.gcfg, log)
        worker.pid = os.getpid()  # what the arbiter sets in the forked worker
        asyncio.set_event_loop(asyncio.new_event_loop())  # the arbiter's, which the worker closes
        try:
            worker.init_process()
        except SystemExit:
            pass
        finally:
            worker.tmp.close()
            for fd in getattr(worker, "PIPE", ()):
                os.close(fd)
            sock.close()
            asyncio.set_event_loop(None)

    def run_orphan(self):
        """A stand-in arbiter forks the worker and exits a moment later: the
        worker's parent changes.  The worker's rows come back in a file."""
        out = os.path.join(self.top, "orphan-%s.json" % self.cid)
        lifetime = self.r.uniform(0.3, 0.9)
        arbiter = os.fork()
        if arbiter == 0:
            try:
                if os.fork() == 0:
                    try:
                        self.run_worker()
                        rows, LOG._rows = LOG._rows, []
                        with open(out + ".tmp", "w") as fh:
                            json.dump({"rows": rows, "outside": OUTSIDE.n}, fh)
                        os.rename(out + ".tmp", out)
                    finally:
                        os._exit(0)
                time.sleep(lifetime)
            finally:
                os._exit(0)
        os.waitpid(arbiter, 0)
        end = time.time() + 20
        while not os.path.exists(out) and time.time() < end:
            time.sleep(0.02)
            reap()
        reap()
        if os.path.exists(out):
            with open(out) as fh:
                d = json.load(fh)
            LOG._rows.extend(d["rows"])
            OUTSIDE.n += d["outside"]
            os.remove(out)
        else:
            self.stats["errors"]["orphan worker lost"] = self.stats["errors"].get("orphan worker lost", 0) + 1

    def run(self):
        self.plan()
        try:
            if self.kind in ("worker", "orphan"):
                self.worker_plan()
                if self.kind == "orphan":
                    self.run_orphan()
                else:
                    self.run_worker()
            elif self.kind == "run_app":
                self.run_app()
            elif self.kind == "legacy":
                self.run_legacy()
            else:
                asyncio.run(asyncio.wait_for(self.run_runner(), 60))
        finally:
            self.restore_env()


async def h_ws_lowlevel(request, cfg):
    # the low-level server's requests have no application: the same echo, with
    # the case's settings handed in
    ws = web.WebSocketResponse(protocols=cfg["ws_protocols"], heartbeat=cfg["ws_heartbeat"],
                               max_msg_size=cfg["ws_max"])
    await ws.prepare(request)
    await ws_echo(ws, rich=False)
    return ws


def reap():
    """Reaps orphaned workers reparented to this process (a subreaper)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------
class OutsideCounter(logging.Filter):
    """Counts the records emitted outside aiohttp (the capture drops them)."""

    def __init__(self, pkg_dir):
        super().__init__()
        self.pkg_dir = pkg_dir + os.sep
        self.n = 0

    def filter(self, record):
        if not os.path.realpath(record.pathname).startswith(self.pkg_dir):
            self.n += 1
        return True


LOG = None
OUTSIDE = None
ARGS = None


def init_worker(seed, top):
    global LOG, OUTSIDE, ARGS
    ARGS = (seed, top)
    # this process's capture; its rows go back to the main process per case
    LOG = _capture.EventLog(aiohttp, os.devnull, logger_names=CAPTURED, wrappers=WRAPPERS,
                            skip_files=[os.path.abspath(__file__)])
    for name in AIOHTTP_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    OUTSIDE = OutsideCounter(LOG.pkg_dir)
    LOG.addFilter(OUTSIDE)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    warnings.simplefilter("ignore")
    sys.unraisablehook = lambda args: None
    try:  # orphaned workers of the orphan cases come to this process, which reaps them
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    sys.stderr.flush()


def run_case(i):
    seed, top = ARGS
    cid = "aiohttp-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    stats = {"errors": {}, "step errors": {}, "kinds": {}, "outside": 0}
    cdir = os.path.join(top, "c%d" % os.getpid())
    case = Case(cid, r, cdir, stats)
    OUTSIDE.n = 0
    LOG._rows = []
    LOG.case_id = cid
    t = time.time()
    try:
        case.run()
    except BaseException as e:  # a broken case must not stop the generation
        stats["errors"][type(e).__name__] = 1
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
        stats["outside"] = OUTSIDE.n
        stats["kinds"][getattr(case, "kind", "?")] = 1
        for p in os.listdir(cdir):
            if p.endswith((".sock", ".json", ".tmp")):
                os.remove(os.path.join(cdir, p))
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %d events %.2fs\n" % (cid, " ".join(case.notes), len(rows), time.time() - t))
    return i, cid, rows, stats


def prepare_worker_dir(top):
    d = os.path.join(top, "c%d" % os.getpid())
    if not os.path.isdir(d):
        os.makedirs(d)
        make_static(d)


def pool_init(seed, top):
    init_worker(seed, top)
    prepare_worker_dir(top)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=700)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=8,
                    help="cases run side by side, each in a process (they mostly wait)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gen_aiohttp_")
    # the main process only writes: its capture listens to no logger
    log = _capture.EventLog(aiohttp, a.out, logger_names=["aiohttp.bench-unused"], wrappers=WRAPPERS)
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    totals = {"errors": {}, "step errors": {}, "kinds": {}, "outside": 0}
    try:
        ctx = multiprocessing.get_context("fork")
        # a fresh process every 40 cases: file descriptors or memory a case
        # leaks do not pile up
        with ctx.Pool(max(1, a.jobs), initializer=pool_init, initargs=(a.seed, tmp), maxtasksperchild=40) as pool:
            pending = [(i, pool.apply_async(run_case, (i,))) for i in todo]
            for i, res in pending:
                try:
                    i, cid, rows, stats = res.get(timeout=180)
                except multiprocessing.TimeoutError:  # its process died: the case is lost
                    totals["errors"]["lost"] = totals["errors"].get("lost", 0) + 1
                    continue
                log.write_case(cid, rows)
                for k in ("errors", "step errors", "kinds"):
                    for kk, v in stats[k].items():
                        totals[k][kk] = totals[k].get(kk, 0) + v
                totals["outside"] += stats["outside"]
        log.finish()
        sys.stderr.write("%s; kinds %s; dropped: %d records emitted outside aiohttp; case exceptions: %s; "
                         "client step errors: %s; %.0fs\n"
                         % (log.summary(), dict(sorted(totals["kinds"].items())), totals["outside"],
                            totals["errors"] or "none", totals["step errors"] or "none", time.time() - t0))
        if log.cases_written == 0:
            sys.exit("gen_aiohttp: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
