#!/usr/bin/python3
"""Event log of uvicorn (Debian python3-uvicorn 0.17.6), an ASGI server, with
its applications and clients in one process, on 127.0.0.1.

    /usr/bin/python3 gen_uvicorn.py --out .deps/logs/uvicorn.csv.gz [--cases 1000] [--seed 1] [--jobs 10]
    /usr/bin/python3 gen_uvicorn.py --repo     # prints the directory to index

Indexed: the whole installed ``uvicorn`` directory
(``/usr/lib/python3/dist-packages/uvicorn``): both HTTP protocols
(``h11_impl.py`` and ``httptools_impl.py``, over ``python3-h11`` and
``python3-httptools``), both WebSocket protocols (``websockets_impl.py``
and ``wsproto_impl.py``, over ``python3-websockets`` and
``python3-wsproto``), the lifespan, the middlewares, the command line, the
multi-process and reload supervisors (StatReload, and WatchGodReload over
``python3-watchgod``), the gunicorn worker and the uvloop set-up (neither
run: uvloop is not installed).

A case is one deployment of a server.  It draws how the server runs:
``Server(Config(...))`` run in the case's process (``server.run()``,
``asyncio.run(server.serve())``, or ``server.run(sockets=[...])`` over a
socket ``Config.bind_socket()`` made), ``uvicorn.run()`` (with an import
string and ``debug`` on, it runs the reloader), the command line (the click
command ``uvicorn.main:main`` with arguments, its log configuration a JSON
file), ``uvicorn.run(..., workers=2)`` (the ``Multiprocess`` supervisor and
two spawned server processes) or a reloader (``uvicorn.run(...,
reload=True)``, WatchGodReload, or StatReload built as ``uvicorn.run``
builds it) whose watched file the client changes, sometimes adding a
directory it watches or one it excludes.  Its ``Config`` is random: the HTTP
protocol (``h11``, ``httptools``, ``auto``, or the protocol class), the
WebSocket protocol (``websockets``, ``wsproto``, ``auto``, ``none``), the
lifespan (``auto``, ``on``, ``off``), the interface (ASGI 3 as an object or
a function, ASGI 2 as a class, WSGI), the event loop set-up, the log level
(``trace`` in a tenth of the cases: per-connection lines and the
``MessageLoggerMiddleware``'s ASGI message lines), the access log on or
off, the log configuration (none, a ``dictConfig`` like uvicorn's own, a
JSON file), ``use_colors``, ``debug``, proxy headers and
``forwarded_allow_ips`` (sometimes from the environment), ``root_path``,
``limit_concurrency``, ``limit_max_requests``, the keep-alive timeout,
server and date headers, extra headers, WebSocket size limits, pings and
deflate, the backlog, an env file, TLS with a throw-away certificate (made
with ``python3-cryptography``; sometimes a key with a password), and the
bind: a free port of 127.0.0.1, ``localhost``, ``::1``, port 0, a Unix
socket path or the file descriptor of a Unix socket the generator binds.
The application is made for the case: a lifespan behaviour (complete,
unsupported, startup failed with or without a message, raising at startup
or shutdown, shutdown failed, returning early, slow, completing twice),
HTTP routes that answer, echo, stream, send large bodies, wait, outlive
their client, raise before or after the response started, return a value,
return without answering or without finishing, send after the end, send a
body first, start twice, send bad headers, contradict their
Content-Length, send an unknown message; WebSocket routes that echo,
refuse, raise before or after accepting, return without accepting, return
a value, send before accepting, send HTTP messages or send after closing.
In about a tenth of the cases the deployment first fails once and is
started again: an import string that does not import, a factory that is
not one, ``workers``/``reload`` without an import string, a taken port,
a Unix socket in a missing directory, a lifespan that fails.  Then 3-10
client steps over raw sockets: keep-alive requests, ``Connection:
close``, HTTP/1.0, pipelining, ``Expect: 100-continue``, chunked uploads,
concurrent connections (503s past ``limit_concurrency``), malformed and
oversized requests, unsupported upgrades, WebSockets (wsproto as the
client: text, binary, pings, deflate, subprotocols, clean and abrupt
closes, invalid handshakes, garbage frames), clients that leave
mid-request, slow and idle clients, requests with ``X-Forwarded-For``.  The
case ends by ``should_exit``, ``handle_exit()``, ``SIGINT`` or ``SIGTERM``
(the handlers uvicorn installs; signals go to the main thread, as in a
process of one thread), a second ``SIGINT`` (force exit), a CTRL+C of the
supervisor and its server processes, or its ``limit_max_requests``,
sometimes with slow requests, orphaned request tasks, WebSockets, idle and
half-sent requests still open; a shutdown still waiting after 1-2 s gets a
second CTRL+C (uvicorn 0.17.6's wsproto protocol gives a client that left
without a close frame no disconnect, so its application task and the
shutdown wait for ever).  uvicorn's own failures show as they are:
``uvicorn.run()`` with a Unix socket whose lifespan failed raises
``FileNotFoundError`` removing a socket it never made (counted in the case
exceptions), the ``Multiprocess`` supervisor keeps waiting when its server
processes exit (a CTRL+C ends it).

Capture: the ``uvicorn`` logger tree (``uvicorn.error``, ``uvicorn.access``,
``uvicorn.asgi``) at every level the case's configuration lets through
(DEBUG when it sets none, uvicorn's TRACE level when it sets ``trace``),
each record with its true call site.  The activity is
``record.getMessage()``: the message as uvicorn wrote it with its arguments,
what uvicorn's formatters print without colours (the
``extra={"color_message": ...}`` some calls pass, the same text with ANSI
styles, is not used).  Cases run ``--jobs`` at a time (10: they mostly wait),
each in a process of its own (forks of the generator, each running one case
after another, 40 at most), so every record of a process belongs to its open
case; the server runs in the process's main thread (where uvicorn installs
its signal handlers) and the client in a thread.  Processes, not threads:
uvicorn's configuration sets process-wide logger levels and handlers, and
the supervisors install signal handlers.  The server processes a supervisor
spawns (``multiprocessing`` spawn: they import this file) take the case from
the environment and capture their own records; their rows come back through
a file and are merged with the parent's by time.  Records whose source lies
outside the ``uvicorn`` directory are dropped and counted: those of the
generator's application (some lifespans log through ``uvicorn.error``) and
those of the ``websockets`` library, which logs its own lines through the
``uvicorn.error`` logger uvicorn hands it.  A case still running after
120 s is given up (its process killed, the case counted as lost).

Determinism: each case draws from its own generator (``<seed>-<i>``), in a
process of its own.  Two runs with one seed give the same cases with the
same requests; the events differ where the server's 0.1 s tick, shutdown
and concurrent connections race the client.  Messages hold process ids,
ports, temp paths and the ASGI scopes of the trace lines.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): the ``trace`` closure ``MessageLoggerMiddleware.__init__`` makes and
stores on its logger does nothing but call ``logger.log(TRACE_LOG_LEVEL,
...)``; its callers in ``MessageLoggerMiddleware.__call__`` and its
``inner_receive``/``inner_send`` are the emitters.
"""
import argparse
import asyncio
import atexit
import copy
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import shutil
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
import urllib.parse
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import uvicorn  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(uvicorn.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

import uvicorn.main  # noqa: E402
import wsproto.events as wse  # noqa: E402
from uvicorn.config import LOGGING_CONFIG, Config  # noqa: E402
from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: E402
from uvicorn.server import Server  # noqa: E402
from uvicorn.supervisors.statreload import StatReload  # noqa: E402
from wsproto import ConnectionType, WSConnection  # noqa: E402
from wsproto.extensions import PerMessageDeflate  # noqa: E402

try:
    import httptools  # noqa: F401
    HAVE_HTTPTOOLS = True
except ImportError:
    HAVE_HTTPTOOLS = False
try:
    import websockets  # noqa: F401
    HAVE_WEBSOCKETS = True
except ImportError:
    HAVE_WEBSOCKETS = False
try:
    import dotenv  # noqa: F401
    HAVE_DOTENV = True
except ImportError:
    HAVE_DOTENV = False
try:
    from uvicorn.supervisors.watchgodreload import WatchGodReload
except ImportError:
    WatchGodReload = None

WRAPPERS = {("uvicorn/middleware/message_logger.py", "trace")}
APP_ENV = "GEN_UVICORN_APP"      # the application's behaviour, for import strings
CHILD_ENV = "GEN_UVICORN_CHILD"  # the case of a supervisor's server processes
UV_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")

ITEMS = {"a1": "apple", "b2": "banana", "c3": "cherry"}
FAILURES = [lambda: ValueError("quantity must be positive"), lambda: KeyError("cart"),
            lambda: ZeroDivisionError("division by zero"), lambda: RuntimeError("backend unavailable"),
            lambda: TypeError("unsupported operand type(s)"), lambda: LookupError("no such order"),
            lambda: ConnectionRefusedError(111, "Connection refused")]
STATUSES = [200, 200, 201, 202, 204, 301, 304, 400, 401, 403, 404, 409, 418, 422, 429, 500, 502, 503,
            299, 599, 700]
AGENTS = ["bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", "python-requests/2.28.1",
          "Go-http-client/1.1", None]
FORWARDED = ["203.0.113.7", "198.51.100.23, 10.0.0.2", "2001:db8::5", "10.0.0.9, 127.0.0.1", "unknown"]
MALFORMED = [
    b"GARBAGE\r\n\r\n",
    b"GET /\r\n\r\n",
    b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
    b"GET / HTTP/1.1\r\n: empty name\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    b"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: a\r\n continuation\r\n\r\n",
    b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Nul: a\x00b\r\n\r\n",
    b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(range(32)) + b"\x00\x00\x02\x13\x01\x01\x00",
    b"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
    b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nBad Header\r\n\r\n",
]


# ---------------------------------------------------------------------------
# the application's code (its own frames never log, but through uvicorn.error)
# ---------------------------------------------------------------------------
def route_of(scope):
    path = scope.get("path") or "/"
    rp = scope.get("root_path") or ""
    if rp and path.startswith(rp):
        path = path[len(rp):] or "/"
    return path


def query_of(scope):
    return dict(urllib.parse.parse_qsl(scope.get("query_string", b"").decode("latin-1")))


async def read_body(receive):
    body = b""
    while True:
        m = await receive()
        if m["type"] == "http.disconnect":
            return None
        body += m.get("body", b"")
        if not m.get("more_body"):
            return body


async def respond(send, status, body=b"", ctype=b"text/plain; charset=utf-8", headers=(), length=True):
    hs = [(b"content-type", ctype)]
    if length and status not in (204, 304):
        hs.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": hs + list(headers)})
    await send({"type": "http.response.body", "body": body})


def failure(q):
    return FAILURES[int(q.get("f", "0")) % len(FAILURES)]()


async def lifespan_app(o, receive, send):
    b = o.get("lifespan", "complete")
    if b == "unsupported":
        raise ValueError("unsupported scope type 'lifespan'")
    await receive()  # lifespan.startup
    if b == "startup-raise":
        raise ConnectionRefusedError(111, "could not reach the database at 127.0.0.1:5432")
    if b == "startup-failed":
        await send({"type": "lifespan.startup.failed", "message": o.get("msg", "")})
        return
    if b == "slow-startup":
        await asyncio.sleep(0.15)
    if o.get("applog"):  # the application's own line through uvicorn's logger: dropped, counted
        logging.getLogger("uvicorn.error").info("Connected to the cache at %s in %d ms", "127.0.0.1:6379", 3)
    await send({"type": "lifespan.startup.complete"})
    if b == "double-complete":
        await send({"type": "lifespan.startup.complete"})
    if b == "return-early":
        return
    await receive()  # lifespan.shutdown
    if b == "shutdown-raise":
        raise RuntimeError("flushing the write-behind queue failed")
    if b == "shutdown-failed":
        await send({"type": "lifespan.shutdown.failed", "message": o.get("msg", "")})
        return
    if b == "slow-shutdown":
        await asyncio.sleep(0.15)
    await send({"type": "lifespan.shutdown.complete"})


async def http_app(scope, receive, send):
    path = route_of(scope)
    q = query_of(scope)
    head, _, rest = path.strip("/").partition("/")
    if head in ("", "ok", "health", "index.html"):
        return await respond(send, 200, b"hello %s" % q.get("name", "world").encode(), length=q.get("len") != "0")
    if head == "json":
        n = int(q.get("n", "3"))
        return await respond(send, 200, json.dumps({"items": list(range(n))}).encode(), b"application/json")
    if head == "items":
        if scope["method"] == "DELETE":
            return await respond(send, 403, b"may not delete %s" % rest.encode())
        if rest in ITEMS:
            return await respond(send, 200, ITEMS[rest].encode())
        return await respond(send, 404, b"no item %s" % rest.encode())
    if head == "status":
        code = int(rest) if rest.isdigit() else 200
        return await respond(send, code, b"" if code in (204, 304) else b"status %d" % code)
    if head == "echo":
        body = await read_body(receive)
        if body is None:
            return
        ctype = dict(scope["headers"]).get(b"content-type", b"application/octet-stream")
        return await respond(send, 200, body, ctype, length=q.get("chunked") != "1")
    if head == "stream":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        for i in range(int(q.get("chunks", "3"))):
            await send({"type": "http.response.body", "body": b"chunk %d\n" % i, "more_body": True})
            await asyncio.sleep(0.005)
        await send({"type": "http.response.body", "body": b""})
        return
    if head == "big":
        kb = int(q.get("kb", "256"))
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/octet-stream"),
                                (b"content-length", str(kb * 1024).encode())]})
        for i in range(kb // 16):
            await send({"type": "http.response.body", "body": b"x" * 16384, "more_body": i < kb // 16 - 1})
        return
    if head == "slow":
        await asyncio.sleep(int(q.get("ms", "100")) / 1000)
        return await respond(send, 200, b"slept")
    if head == "wait":  # a long poll: answers when the client leaves or the time is up
        await read_body(receive)
        try:
            m = await asyncio.wait_for(receive(), int(q.get("ms", "500")) / 1000)
            if m["type"] == "http.disconnect":
                return
        except asyncio.TimeoutError:
            pass
        return await respond(send, 200, b"no news")
    if head == "orphan":  # works on after its client left, then answers nobody
        await asyncio.sleep(int(q.get("ms", "300")) / 1000)
        return await respond(send, 200, b"report ready")
    if head == "raise":
        raise failure(q)
    if head == "raise-late":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise failure(q)
    if head == "return":
        await respond(send, 200, b"done")
        return {"status": "ok"} if q.get("v") == "dict" else "done"
    if head == "nothing":
        return
    if head == "incomplete":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"to be continued", "more_body": True})
        return
    if head == "send-after":
        await respond(send, 200, b"done")
        await send({"type": "http.response.body", "body": b"again"})
        return
    if head == "body-first":
        await send({"type": "http.response.body", "body": b"body before start"})
        return
    if head == "double-start":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.start", "status": 200, "headers": []})
        return
    if head == "trailers":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.trailers", "headers": [(b"x-checksum", b"abc")]})
        return
    if head == "bad-header":
        bad = [(b"x-note", b"line one\r\nline two")] if q.get("k") != "name" else [(b"bad name", b"v")]
        return await respond(send, 200, b"bad header", headers=bad)
    if head == "cl-long":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"3")]})
        await send({"type": "http.response.body", "body": b"longer than three"})
        return
    if head == "cl-short":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"50")]})
        await send({"type": "http.response.body", "body": b"short"})
        return
    if head == "where":
        info = {"client": scope.get("client"), "scheme": scope.get("scheme"), "root_path": scope.get("root_path"),
                "http_version": scope.get("http_version")}
        return await respond(send, 200, json.dumps(info).encode(), b"application/json")
    if head == "redirect":
        return await respond(send, 307, b"", headers=[(b"location", b"/ok")])
    return await respond(send, 404, b"not found")


async def ws_app(scope, receive, send):
    path = route_of(scope)
    q = query_of(scope)
    kind = path.rstrip("/").rsplit("/", 1)[-1]
    m = await receive()
    if m["type"] != "websocket.connect":
        return
    if kind == "reject":
        await send({"type": "websocket.close", "code": 1008})
        return
    if kind == "raise":
        raise failure(q)
    if kind == "nothing":
        return
    if kind == "bad-first":
        await send({"type": "websocket.send", "text": "before accept"})
        return
    accept = {"type": "websocket.accept"}
    subs = scope.get("subprotocols") or []
    if subs and q.get("sub") != "no":
        accept["subprotocol"] = subs[0]
    if kind == "greet":
        accept["headers"] = [(b"x-greeting", b"hello")]
    await send(accept)
    if kind == "return-value":
        return "accepted"
    if kind == "bad-after":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        return
    if kind == "after-close":
        await send({"type": "websocket.close", "code": 1000})
        await send({"type": "websocket.send", "text": "after close"})
        return
    if kind == "raise-after":
        await receive()
        raise failure(q)
    if kind == "greet":
        for i in range(int(q.get("n", "2"))):
            await send({"type": "websocket.send", "text": "greeting %d" % i})
        await send({"type": "websocket.close", "code": int(q.get("code", "1000"))})
        return
    while True:  # echo
        m = await receive()
        if m["type"] == "websocket.disconnect":
            return
        if m.get("text") == "close":
            await send({"type": "websocket.close", "code": int(q.get("code", "1000"))})
            return
        if m.get("text") == "raise":
            raise failure(q)
        if m.get("text") is not None:
            await send({"type": "websocket.send", "text": m["text"]})
        else:
            await send({"type": "websocket.send", "bytes": m.get("bytes") or b""})


async def dispatch(o, scope, receive, send):
    t = scope["type"]
    if t == "lifespan":
        return await lifespan_app(o, receive, send)
    if t == "websocket":
        return await ws_app(scope, receive, send)
    return await http_app(scope, receive, send)


class App:
    """An ASGI 3 application object made for one case."""

    def __init__(self, opts):
        self.opts = opts

    async def __call__(self, scope, receive, send):
        return await dispatch(self.opts, scope, receive, send)


def function_app(opts):
    async def app(scope, receive, send):
        return await dispatch(opts, scope, receive, send)
    return app


class App2Base:
    """ASGI 2: the class is the application, an instance per scope."""
    opts = {}

    def __init__(self, scope):
        if scope["type"] == "lifespan" and self.opts.get("lifespan") == "unsupported":
            raise ValueError("unsupported scope type 'lifespan'")
        self.scope = scope

    async def __call__(self, receive, send):
        return await dispatch(self.opts, self.scope, receive, send)


def app2_class(opts):
    return type("App2", (App2Base,), {"opts": opts})


def wsgi_app(environ, start_response):
    path = environ.get("PATH_INFO", "/")
    head = path.strip("/").split("/")[-1] if path.strip("/") else ""
    if head == "raise":
        raise RuntimeError("template not found")
    if head == "echo":
        body = environ["wsgi.input"].read()
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return [body]
    if head == "slow":
        time.sleep(0.05)
    if head.isdigit():
        start_response("%s Status" % head, [("Content-Type", "text/plain")])
        return [b"status"]
    if head in ("", "ok", "slow", "json", "health"):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"hello from wsgi"]
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b"not found"]


# the same behaviours for import strings ("__main__:env_app"): from the environment
def _env_opts():
    return json.loads(os.environ.get(APP_ENV) or "{}")


class EnvApp:
    async def __call__(self, scope, receive, send):
        return await dispatch(_env_opts(), scope, receive, send)


env_app = EnvApp()


def env_app_factory():
    return App(_env_opts())


class EnvApp2(App2Base):
    @property
    def opts(self):
        return _env_opts()


env_wsgi = wsgi_app


# ---------------------------------------------------------------------------
# capture
# ---------------------------------------------------------------------------
LOG = None


def capture_handler():
    """The process's capture, for the ``()`` factories of the logging
    configurations cases hand uvicorn."""
    return LOG


class OutsideCounter(logging.Filter):
    """Counts the records emitted outside uvicorn (the capture drops them):
    the generator's own and those of other libraries."""

    def __init__(self, pkg_dir):
        super().__init__()
        self.pkg_dir = pkg_dir + os.sep
        self.own_file = os.path.realpath(os.path.abspath(__file__))
        self.own = 0
        self.other = 0

    def filter(self, record):
        p = os.path.realpath(record.pathname)
        if not p.startswith(self.pkg_dir):
            if p == self.own_file:
                self.own += 1
            else:
                self.other += 1
        return True


def reset_loggers():
    """uvicorn's configuration changes the levels, handlers and propagation of
    its loggers: each case starts from the capture alone on ``uvicorn``."""
    for name in UV_LOGGERS:
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            lg.removeHandler(h)
            if h is not LOG:
                h.close()
        lg.setLevel(logging.NOTSET)
        lg.propagate = True
        lg.disabled = False
    lg = logging.getLogger("uvicorn")
    lg.setLevel(logging.DEBUG)
    lg.addHandler(LOG)


class _DebugLastResort(logging.Handler):
    """GEN_DEBUG: a record no handler took (a process without the capture)."""

    def emit(self, record):
        chain = []
        lg = logging.getLogger(record.name)
        while lg is not None:
            chain.append("%s:%s:%s:%s" % (lg.name, lg.level, lg.propagate, lg.handlers))
            lg = lg.parent if lg.propagate else None
        sys.stderr.write("LASTRESORT pid=%d ppid=%d env=%s main=%s case=%s %s %r\n" % (
            os.getpid(), os.getppid(), os.environ.get(CHILD_ENV), __name__, LOG.case_id if LOG else None,
            " | ".join(chain), record.getMessage()[:80]))


def quiet():
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    logging.getLogger("concurrent.futures").setLevel(logging.CRITICAL + 1)
    warnings.simplefilter("ignore")
    sys.unraisablehook = lambda args: None
    threading.excepthook = lambda args: None


def child_capture():
    """In a server process a supervisor spawned: capture its records for the
    case named in the environment and write them to a file at exit."""
    global LOG
    spec = json.loads(os.environ[CHILD_ENV])
    LOG = _capture.EventLog(uvicorn, os.devnull, logger_names=["uvicorn"], wrappers=WRAPPERS)
    LOG.setLevel(logging.NOTSET)  # uvicorn's TRACE level (5) too, when a case sets it
    counter = OutsideCounter(LOG.pkg_dir)
    LOG.addFilter(counter)
    LOG.case_id = spec["cid"]
    quiet()
    try:  # PR_SET_PDEATHSIG: a server process goes when the case's process goes
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass

    def dump():
        path = os.path.join(spec["dir"], "child-%d.json" % os.getpid())
        with open(path + ".tmp", "w") as fh:
            json.dump({"rows": LOG._rows, "own": counter.own, "other": counter.other}, fh)
        os.rename(path + ".tmp", path)
    atexit.register(dump)


def log_config_dict(r, level):
    """A logging configuration like uvicorn's LOGGING_CONFIG, the capture as
    its handlers."""
    d = copy.deepcopy(LOGGING_CONFIG)
    d["handlers"] = {"default": {"()": "__main__.capture_handler", "formatter": "default"},
                     "access": {"()": "__main__.capture_handler", "formatter": "access"}}
    d["loggers"]["uvicorn"]["level"] = level
    d["loggers"]["uvicorn.error"]["level"] = level
    return d


# ---------------------------------------------------------------------------
# clients
# ---------------------------------------------------------------------------
_CTX = []


def client_ctx():
    if not _CTX:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        _CTX.append(ctx)
    return _CTX[0]


class Wire:
    """A client connection with a read buffer and a small HTTP/1.1 response reader."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def fill(self):
        d = self.sock.recv(65536)
        if not d:
            raise EOFError("closed")
        self.buf += d

    def until(self, sep):
        while sep not in self.buf:
            self.fill()
        i = self.buf.index(sep)
        out, self.buf = self.buf[:i], self.buf[i + len(sep):]
        return out

    def exactly(self, n):
        while len(self.buf) < n:
            self.fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        try:
            while True:
                self.fill()
        except (EOFError, OSError):
            pass
        out, self.buf = self.buf, b""
        return out

    def response(self, method="GET"):
        while True:
            head = self.until(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            status = int(lines[0].split(b" ", 2)[1])
            hs = {}
            for ln in lines[1:]:
                k, _, v = ln.partition(b":")
                hs[k.strip().lower()] = v.strip()
            if status >= 200 or status == 101:
                break
        if method == "HEAD" or status in (204, 304, 101):
            body = b""
        elif b"content-length" in hs:
            body = self.exactly(int(hs[b"content-length"]))
        elif hs.get(b"transfer-encoding", b"").lower() == b"chunked":
            body = b""
            while True:
                n = int(self.until(b"\r\n").split(b";")[0], 16)
                if n == 0:
                    self.until(b"\r\n")
                    break
                body += self.exactly(n)
                self.until(b"\r\n")
        else:
            body = self.rest()
        return status, hs, body

    def close(self, rst=False):
        try:
            if rst:
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.sock.close()
        except OSError:
            pass


def request_bytes(method, target, host, headers=(), body=None, close=False, version="1.1", chunked=False):
    lines = ["%s %s HTTP/%s" % (method, target, version)]
    if host is not None:
        lines.append("Host: %s" % host)
    for k, v in headers:
        lines.append("%s: %s" % (k, v))
    if body is not None:
        if chunked:
            lines.append("Transfer-Encoding: chunked")
        else:
            lines.append("Content-Length: %d" % len(body))
    if close:
        lines.append("Connection: close")
    out = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    if body is not None:
        if chunked:
            parts = [body[i:i + 700] for i in range(0, len(body), 700)] or [b""]
            out += b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts if p) + b"0\r\n\r\n"
        else:
            out += body
    return out


class WS:
    """A WebSocket client (wsproto) on one connection."""

    def __init__(self, sock, host, target, subprotocols=(), deflate=False, headers=(), timeout=2.0):
        self.sock = sock
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.accepted = self.rejected = self.closed = False
        self.got = 0
        self.sock.settimeout(timeout)
        ext = [PerMessageDeflate()] if deflate else []
        self.sock.sendall(self.ws.send(wse.Request(host=host, target=target, subprotocols=list(subprotocols),
                                                   extensions=ext, extra_headers=list(headers))))
        self.pump(lambda: self.accepted or self.rejected or self.closed, timeout)

    def pump(self, done=None, timeout=1.0):
        end = time.monotonic() + timeout
        while not (done and done()) and not self.closed:
            left = end - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                self.closed = True
                break
            self.ws.receive_data(data or None)
            if not data:
                self.closed = True
            for ev in self.ws.events():
                if isinstance(ev, wse.AcceptConnection):
                    self.accepted = True
                elif isinstance(ev, (wse.RejectConnection, wse.RejectData)):
                    self.rejected = True
                elif isinstance(ev, wse.CloseConnection):
                    try:
                        self.sock.sendall(self.ws.send(ev.response()))
                    except Exception:
                        pass
                    self.closed = True
                elif isinstance(ev, wse.Ping):
                    self.sock.sendall(self.ws.send(ev.response()))
                elif isinstance(ev, wse.Message):
                    self.got += 1

    def send(self, ev, reply=True):
        self.sock.sendall(self.ws.send(ev))
        if reply:
            n = self.got
            self.pump(lambda: self.got > n, 0.5)

    def close(self, code=1000, clean=True):
        try:
            if clean and self.accepted and not self.closed:
                self.sock.sendall(self.ws.send(wse.CloseConnection(code=code)))
                self.pump(None, 0.5)
        except Exception:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class CaseDone(Exception):
    pass


class Case:
    def __init__(self, cid, r, cdir, certs, stats):
        self.cid, self.r, self.cdir, self.certs, self.stats = cid, r, cdir, certs, stats
        self.notes = []
        self.ports = []
        self.held = []
        self.socks = []
        self.server = None
        self.server_done = threading.Event()
        self.client = None
        self.tls = False
        self.unix = None
        self.port = None
        self.chost = "127.0.0.1"
        self.host_header = "127.0.0.1"
        self.requests = 0
        self.src = None
        self.env = {}

    # -- plan ---------------------------------------------------------------
    def free_port(self):
        p = _capture.free_port()
        self.ports.append(p)
        return p

    def plan(self):
        r = self.r
        self.kind = pick(r, [(70, "serve"), (12, "run"), (7, "cli"), (5, "workers"), (6, "reload")])
        supervised = self.kind in ("workers", "reload")
        o = self.opts = {}
        o["lifespan"] = pick(r, [(48, "complete"), (6, "unsupported"), (6, "startup-failed"), (4, "startup-raise"),
                                 (6, "shutdown-failed"), (5, "shutdown-raise"), (5, "return-early"),
                                 (5, "slow-startup"), (3, "double-complete"), (5, "slow-shutdown")])
        if supervised and o["lifespan"] in ("startup-failed", "startup-raise", "double-complete", "unsupported"):
            o["lifespan"] = "complete"
        if o["lifespan"] in ("startup-failed", "shutdown-failed"):
            o["msg"] = pick(r, [(3, ""), (2, "Migrations are not applied: run the upgrade first"),
                                (2, "Could not load the model weights from the configured path"),
                                (1, "Required setting SECRET_KEY is missing")])
        o["applog"] = r.random() < 0.1
        kw = self.kw = {}
        https = ["h11", "httptools", "auto", H11Protocol] if HAVE_HTTPTOOLS else ["h11", "auto", H11Protocol]
        kw["http"] = pick(r, [(w, h) for w, h in zip((38, 34, 18, 10), https)])
        wss = [(36, "websockets"), (36, "wsproto"), (18, "auto"), (10, "none")] if HAVE_WEBSOCKETS else \
            [(60, "wsproto"), (25, "auto"), (15, "none")]
        kw["ws"] = pick(r, wss)
        kw["lifespan"] = pick(r, [(50, "auto"), (35, "on"), (15, "off")])
        self.interface = pick(r, [(70, "auto"), (10, "asgi3"), (13, "asgi2"), (7, "wsgi")])
        if supervised and self.interface == "wsgi":
            self.interface = "auto"
        if self.interface == "wsgi" and kw["lifespan"] == "on" and r.random() < 0.7:
            kw["lifespan"] = "auto"
        if self.interface != "auto":
            kw["interface"] = self.interface
        kw["log_level"] = pick(r, [(62, None), (8, "trace"), (10, "debug"), (11, "info"), (3, "warning"),
                                   (3, logging.INFO), (3, 5)])
        if r.random() < 0.15:
            kw["access_log"] = False
        self.log_config = "none" if supervised else pick(r, [(68, "none"), (20, "dict"), (12, "json")])
        if self.kind == "cli":
            self.log_config = "json"
        if self.log_config == "none":
            kw["log_config"] = None
        else:
            d = log_config_dict(r, pick(r, [(3, "INFO"), (1, "DEBUG")]))
            if self.log_config == "dict":
                kw["log_config"] = d
            else:
                path = os.path.join(self.cdir, "logging.json")
                with open(path, "w") as fh:
                    json.dump(d, fh)
                kw["log_config"] = path
        if r.random() < 0.3:
            kw["use_colors"] = r.random() < 0.5
        if r.random() < 0.08:
            kw["debug"] = True
        if r.random() < 0.12:
            kw["proxy_headers"] = False
        elif r.random() < 0.35:
            ips = pick(r, [(3, "*"), (2, "127.0.0.1"), (2, "10.0.0.2,127.0.0.1"), (1, "192.0.2.1")])
            if r.random() < 0.3:
                self.env["FORWARDED_ALLOW_IPS"] = ips
            else:
                kw["forwarded_allow_ips"] = ips
        if r.random() < 0.25:
            kw["root_path"] = r.choice(["/api", "/v1/shop", "/app"])
        if r.random() < 0.12:
            kw["limit_concurrency"] = r.randint(2, 4)
        if r.random() < 0.08 and not supervised:
            kw["limit_max_requests"] = r.randint(3, 10)
        kw["timeout_keep_alive"] = pick(r, [(55, 5), (25, 1), (20, 0.3)])
        if r.random() < 0.1:
            kw["server_header"] = False
        if r.random() < 0.1:
            kw["date_header"] = False
        if r.random() < 0.15:
            kw["headers"] = [["X-Served-By", "bench-%d" % r.randint(1, 9)], ["Cache-Control", "no-store"]][
                :r.randint(1, 2)]
        if r.random() < 0.1:
            kw["ws_max_size"] = 4096
        if r.random() < 0.1:
            kw["ws_ping_interval"] = 0.3
            kw["ws_ping_timeout"] = 0.3
        if r.random() < 0.2:
            kw["ws_per_message_deflate"] = False
        if r.random() < 0.08:
            kw["backlog"] = 64
        if r.random() < 0.2:
            kw["loop"] = r.choice(["asyncio", "none", "auto"])
        if HAVE_DOTENV and r.random() < 0.06:
            path = os.path.join(self.cdir, ".env")
            with open(path, "w") as fh:
                fh.write("GEN_BENCH_GREETING=hello\nGEN_BENCH_FEATURES=search,cart\n")
            kw["env_file"] = path
        if not supervised and r.random() < 0.03:
            kw["reload_dirs"] = [self.cdir]  # without reload: uvicorn warns
        # the bind
        b = pick(r, [(66, "tcp"), (5, "localhost"), (7, "ipv6"), (5, "port0"), (10, "uds"), (7, "fd")])
        if supervised or self.kind == "cli":
            b = "tcp" if b in ("fd", "port0", "localhost") or supervised else b
        if self.kind != "serve" and b in ("fd", "port0"):
            b = "tcp"
        self.bind = b
        if b == "uds":
            self.unix = kw["uds"] = os.path.join(self.cdir, "app.sock")
        elif b == "fd":
            self.unix = os.path.join(self.cdir, "fd.sock")
        else:
            self.port = kw["port"] = 0 if b == "port0" else self.free_port()
            if b == "localhost":
                kw["host"] = "localhost"
            elif b == "ipv6":
                kw["host"] = self.chost = "::1"
                self.host_header = "[::1]:%d" % self.port
            if b != "ipv6":
                self.host_header = "%s:%d" % (kw.get("host", "127.0.0.1"), self.port)
            if self.certs and r.random() < 0.12:
                self.tls = True
                kw["ssl_certfile"] = self.certs["cert"]
                if r.random() < 0.3:
                    kw["ssl_keyfile"] = self.certs["key_pw"]
                    kw["ssl_keyfile_password"] = "s3cret"
                else:
                    kw["ssl_keyfile"] = self.certs["key"]
        # the application
        if self.interface == "wsgi":
            self.app, self.app_str = wsgi_app, "__main__:env_wsgi"
        elif self.interface == "asgi2" or (self.interface == "auto" and r.random() < 0.12):
            self.app, self.app_str = app2_class(o), "__main__:EnvApp2"
        else:
            if r.random() < 0.3:
                self.app = function_app(o)
            else:
                self.app = App(o)
            self.app_str = "__main__:env_app"
            if r.random() < 0.5:
                self.app_str = "__main__:env_app_factory"
                if r.random() < 0.75:
                    kw["factory"] = True
        self.use_string = self.kind in ("cli", "workers", "reload") or (self.kind == "run" and r.random() < 0.5)
        if "factory" in kw and not self.use_string:
            del kw["factory"]
        # uvicorn.run() with an import string and debug on runs the reloader
        self.supervised = supervised or (self.kind == "run" and self.use_string and bool(kw.get("debug")))
        if self.supervised:
            kw.pop("limit_max_requests", None)
        self.mode = pick(r, [(45, "run"), (35, "serve"), (20, "sockets")]) if self.kind == "serve" else None
        if self.bind == "fd" and self.mode == "sockets":
            self.mode = "run"
        self.stop = self.plan_stop()
        # a first start that fails, then the deployment is started again
        self.attempts = []
        if not supervised and r.random() < 0.1:
            self.attempts.append(pick(r, [(3, "import"), (2, "factory"), (2, "workers"), (2, "taken"),
                                          (1, "bind-taken"), (1, "uds-missing"), (2, "lifespan")]))
            if self.attempts[-1] == "lifespan":  # the application fixed: its lifespan completes now
                o["lifespan"] = "complete"

    def plan_stop(self):
        r = self.r
        if "limit_max_requests" in self.kw:
            return "max-requests"
        if self.kind == "serve":
            return pick(r, [(30, "flag"), (25, "sigint"), (25, "sigterm"), (10, "force"), (10, "handle-exit")])
        if self.kind in ("run", "cli") and not self.supervised:
            return pick(r, [(40, "sigint"), (45, "sigterm"), (15, "force")])
        return pick(r, [(1, "sigint"), (1, "sigterm"), (1, "ctrl-c")])

    # -- servers --------------------------------------------------------------
    def run(self):
        for k in self.attempts:
            try:
                self.failed_attempt(k)
            except SystemExit:
                pass
            except Exception as e:
                self.count("attempt errors", "%s:%s" % (k, type(e).__name__))
            self.notes.append("attempt:" + k)
        self.prepare_env()
        try:
            getattr(self, "run_" + self.kind)()
        except SystemExit as e:
            self.notes.append("exit:%s" % e.code)
        finally:
            self.server_done.set()
            if self.client is not None:
                self.client.join(60)
                if self.client.is_alive():
                    self.count("errors", "client-stuck")

    def failed_attempt(self, k):
        r = self.r
        kw = {"log_config": self.kw["log_config"], "lifespan": self.kw["lifespan"], "port": self.free_port(),
              "http": self.kw["http"]}
        if self.kw.get("log_level") is not None:
            kw["log_level"] = self.kw["log_level"]
        if k == "import":
            bad = r.choice(["gen_bench_missing:app", "__main__:no_such_app", "__main__", "__main__:env_app.missing"])
            uvicorn.run(bad, **kw)
        elif k == "factory":
            uvicorn.run("__main__:env_app", factory=True, **kw)
        elif k == "workers":
            extra = {"workers": 2} if r.random() < 0.6 else {"reload": True}
            if "reload" in extra and r.random() < 0.5:
                extra["reload_dirs"] = [self.cdir]
            uvicorn.run(App(self.opts), **extra, **kw)
        elif k in ("taken", "bind-taken"):
            s = socket.socket()
            s.bind(("127.0.0.1", kw["port"]))
            s.listen(1)
            try:
                config = Config(App(dict(self.opts, lifespan="complete")), **kw)
                if k == "taken":
                    Server(config).run()
                else:
                    config.bind_socket()
            finally:
                s.close()
        elif k == "uds-missing":
            kw.pop("port")
            kw["uds"] = os.path.join(self.cdir, "missing", "app.sock")
            config = Config(App(self.opts), **kw)
            sock = config.bind_socket()
            Server(config).run(sockets=[sock])
        elif k == "lifespan":
            kw["lifespan"] = "on"
            o = dict(self.opts, lifespan=r.choice(["startup-failed", "startup-raise"]),
                     msg="Database is still starting up")
            Server(Config(App(o), **kw)).run()

    def prepare_env(self):
        os.environ[APP_ENV] = json.dumps(self.opts)
        os.environ.update(self.env)

    def start_client(self):
        self.client = threading.Thread(target=self.client_main, name="bench-client")
        self.client.start()

    def run_serve(self):
        kw = dict(self.kw)
        if self.bind == "fd":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(self.unix)
            self.socks.append(s)
            kw["fd"] = s.fileno()
        config = Config(self.app, **kw)
        self.server = server = Server(config)
        if self.mode == "sockets":
            sock = config.bind_socket()
            self.socks.append(sock)
            if self.bind == "port0":
                self.port = sock.getsockname()[1]
            self.start_client()
            server.run(sockets=[sock])
        elif self.mode == "serve":
            self.start_client()
            asyncio.run(server.serve())
        else:
            self.start_client()
            server.run()

    def run_run(self):
        if self.supervised:  # debug: a reloader, watching the working directory
            self.child_env()
            old = os.getcwd()
            os.chdir(self.cdir)
            self.notes.append("debug-reload")
        try:
            self.start_client()
            uvicorn.run(self.app_str if self.use_string else self.app, **self.kw)
        finally:
            if self.supervised:
                os.chdir(old)

    def run_cli(self):
        kw, r = self.kw, self.r
        args = [self.app_str, "--log-config", kw["log_config"]]
        if self.unix:
            args += ["--uds", self.unix]
        else:
            args += ["--port", str(self.port)] + (["--host", kw["host"]] if "host" in kw else [])
        args += ["--http", kw["http"] if isinstance(kw["http"], str) else "h11"]
        for k in ("ws", "lifespan", "interface", "loop", "root_path", "forwarded_allow_ips",
                  "limit_concurrency", "limit_max_requests", "ws_max_size", "backlog", "env_file",
                  "ssl_certfile", "ssl_keyfile", "ssl_keyfile_password"):
            if k in kw and not (k == "loop" and kw[k] == "none"):
                v = kw[k]
                args += ["--" + k.replace("_", "-"), v if isinstance(v, str) else str(v)]
        if kw.get("log_level") is not None:
            lv = kw["log_level"]
            args += ["--log-level", lv if isinstance(lv, str) else {5: "trace", 20: "info"}[lv]]
        for flag, k, default in (("access-log", "access_log", True), ("proxy-headers", "proxy_headers", True),
                                 ("server-header", "server_header", True), ("date-header", "date_header", True)):
            if kw.get(k, default) is False:
                args.append("--no-" + flag)
        if "use_colors" in kw:
            args.append("--use-colors" if kw["use_colors"] else "--no-use-colors")
        if "ws_per_message_deflate" in kw:
            args += ["--ws-per-message-deflate", "False"]
        if kw.get("factory"):
            args.append("--factory")
        args += ["--timeout-keep-alive", str(max(1, int(kw["timeout_keep_alive"])))]
        for h in kw.get("headers", []):
            args += ["--header", "%s:%s" % tuple(h)]
        if "reload_dirs" in kw:
            args += ["--reload-dir", self.cdir]
        if r.random() < 0.2:
            args += ["--app-dir", self.cdir]
        self.start_client()
        sys.modules["uvicorn.main"].main.main(args=args, prog_name="uvicorn", standalone_mode=False)

    def child_env(self):
        d = os.path.join(self.cdir, "children")
        os.makedirs(d, exist_ok=True)
        os.environ[CHILD_ENV] = json.dumps({"cid": self.cid, "dir": d})

    def run_workers(self):
        self.child_env()
        self.start_client()
        uvicorn.run(self.app_str, workers=2, **self.kw)

    def run_reload(self):
        r = self.r
        self.src = os.path.join(self.cdir, "src")
        os.makedirs(self.src)
        with open(os.path.join(self.src, "views.py"), "w") as fh:
            fh.write("GREETING = 'hello'\n")
        self.child_env()
        kw = dict(self.kw, reload=True, reload_delay=0.1)
        kw["reload_dirs"] = [self.src] if r.random() < 0.85 else [os.path.join(self.cdir, "gone")]
        if r.random() < 0.2:
            kw["reload_excludes"] = ["*.tmp"]
        if r.random() < 0.3:
            kw["reload_includes"] = r.choice([["*.html"], ["templates", "*.html"]])
        self.includes = kw.get("reload_includes", [])
        how = pick(r, [(2, "run"), (1, "stat")] if WatchGodReload else [(1, "run")])
        self.notes.append("reloader:" + how)
        old = os.getcwd()
        os.chdir(self.cdir)  # the reloaders also watch the working directory
        try:
            self.start_client()
            if how == "run":
                uvicorn.run(self.app_str, **kw)
            else:  # StatReload, built as uvicorn.run builds its reloader
                config = Config(self.app_str, **kw)
                server = Server(config)
                sock = config.bind_socket()
                StatReload(config, target=server.run, sockets=[sock]).run()
        finally:
            os.chdir(old)

    # -- the client -------------------------------------------------------------
    def count(self, what, key):
        d = self.stats[what]
        d[key] = d.get(key, 0) + 1

    def connect(self, timeout=3.0):
        if self.unix:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            try:
                s.connect(self.unix)
            except OSError:
                s.close()
                raise
        else:
            s = socket.create_connection((self.chost, self.port), timeout=timeout)
        if self.tls:
            s = client_ctx().wrap_socket(s, server_hostname="localhost")
        return s

    def alive(self):
        if self.server_done.is_set():
            raise CaseDone()

    def wait_ready(self):
        end = time.monotonic() + (15 if self.supervised else 6)
        while time.monotonic() < end:
            if self.server_done.is_set():
                return None
            if self.port == 0:
                srv = self.server
                if srv is None or not srv.started:
                    time.sleep(0.01)
                    continue
                self.port = srv.servers[0].sockets[0].getsockname()[1]
                self.host_header = "127.0.0.1:%d" % self.port
            try:
                return Wire(self.connect(timeout=2.0))
            except (OSError, ValueError):
                time.sleep(0.01)
        return None

    def client_main(self):
        r = self.r
        try:
            w = self.wait_ready()
            if w is None:
                self.notes.append("never-ready")
                if self.supervised and not self.server_done.is_set():
                    # its server processes gave up (the supervisor does not
                    # notice): the operator's CTRL+C
                    self.signal_server(signal.SIGINT)
                return
            self.notes.append("ready")
            self.s_requests(w)
            for _ in range(r.randint(3, 10)):
                self.alive()
                if self.kind == "reload" and r.random() < 0.25:
                    self.s_change()
                step = self.pick_step()
                t = time.monotonic()
                try:
                    getattr(self, "s_" + step)()
                except CaseDone:
                    raise
                except (OSError, EOFError, ValueError, IndexError) as e:
                    self.count("step errors", "%s:%s" % (step, type(e).__name__))
                except Exception as e:
                    self.count("step errors", "%s:%s" % (step, type(e).__name__))
                if os.environ.get("GEN_DEBUG") and time.monotonic() - t > 0.5:
                    self.notes.append("slow-step:%s:%.1f" % (step, time.monotonic() - t))
            if self.kind == "reload" and not any(n == "changed" for n in self.notes):
                self.s_change()
                self.s_requests()
            self.shutdown_phase()
        except CaseDone:
            pass
        except Exception as e:
            self.count("errors", "client:" + type(e).__name__)
            if os.environ.get("GEN_DEBUG"):
                import traceback
                traceback.print_exc()
        finally:
            for h in self.held:
                try:
                    h.close()
                except Exception:
                    pass
            if not self.server_done.wait(20):
                self.escalate()

    def signal_server(self, sig):
        """A signal to this process, for the server or supervisor in its main
        thread: delivered to that thread, as in a process of one thread (a
        signal the kernel hands the client's thread would not wake a main
        thread blocked in ``Event.wait()``, as ``Multiprocess`` waits)."""
        signal.pthread_kill(threading.main_thread().ident, sig)

    def force(self):
        """A second CTRL+C: to the server, or to the supervisor's server
        processes (their process group's CTRL+C)."""
        if self.server_done.is_set():
            return
        if self.server is not None:
            self.server.handle_exit(signal.SIGINT, None)
        elif self.supervised:
            for p in multiprocessing.active_children():
                try:
                    os.kill(p.pid, signal.SIGINT)
                except OSError:
                    pass
        else:
            self.signal_server(signal.SIGINT)

    def escalate(self):
        self.count("stuck", "servers")
        if self.server is not None:
            self.server.should_exit = True
            self.server.force_exit = True
        else:
            self.force()
            if self.supervised and not self.server_done.is_set():
                self.signal_server(signal.SIGTERM)
        if not self.server_done.wait(10) and self.supervised:
            for p in multiprocessing.active_children():
                p.kill()

    def pick_step(self):
        r = self.r
        ws_ok = self.interface != "wsgi"
        table = [(28, "requests"), (7, "close"), (4, "http10"), (5, "pipeline"), (3, "expect"), (3, "chunked"),
                 (6 if "limit_concurrency" not in self.kw else 16, "concurrent"), (7, "malformed"),
                 (2, "oversize"), (2, "upgrade"), (16 if ws_ok else 2, "websocket"), (3 if ws_ok else 0, "ws_invalid"),
                 (4, "abort"), (2, "slowloris"), (2 if self.kw["timeout_keep_alive"] <= 1 else 0, "idle"),
                 (6, "proxied")]
        return pick(r, table)

    # targets
    def path(self, p):
        rp = self.kw.get("root_path")
        if rp and self.r.random() < 0.7:
            return rp + p
        return p

    def target(self):
        r = self.r
        k = pick(r, [(18, "/"), (10, "/json"), (9, "/items"), (10, "/status"), (8, "/echo"), (4, "/stream"),
                     (2, "/big"), (5, "/slow"), (6, "/raise"), (2, "/raise-late"), (2, "/return"), (2, "/nothing"),
                     (2, "/incomplete"), (2, "/send-after"), (1, "/body-first"), (1, "/double-start"),
                     (1, "/trailers"), (1, "/bad-header"), (1, "/cl-long"), (1, "/cl-short"), (3, "/where"),
                     (2, "/redirect"), (3, "/head"), (3, "/missing"), (1, "/delete")])
        method, body, p = "GET", None, k
        if k == "/":
            p = r.choice(["/", "/ok", "/health", "/?name=ada", "/index.html", "/?len=0"])
        elif k == "/json":
            p = "/json?n=%d" % r.randint(0, 20)
        elif k == "/items":
            p = "/items/%s" % r.choice(["a1", "b2", "c3", "zz", "a%20b"])
        elif k == "/status":
            p = "/status/%d" % r.choice(STATUSES)
        elif k == "/echo":
            method = r.choice(["POST", "PUT", "PATCH"])
            body = r.choice([b"", b"hello", b"x" * 1000, b'{"qty": 3}', b"z" * 70000])
            p = "/echo" + r.choice(["", "?chunked=1"])
        elif k == "/stream":
            p = "/stream?chunks=%d" % r.randint(0, 6)
        elif k == "/big":
            p = "/big?kb=%d" % r.choice([64, 256, 1024])
        elif k == "/slow":
            p = "/slow?ms=%d" % r.choice([10, 50, 150])
        elif k in ("/raise", "/raise-late"):
            p = "%s?f=%d" % (k, r.randrange(len(FAILURES)))
        elif k == "/return":
            p = "/return" + r.choice(["", "?v=dict"])
        elif k == "/bad-header":
            p = "/bad-header" + r.choice(["", "?k=name"])
        elif k == "/head":
            method, p = "HEAD", r.choice(["/", "/json", "/stream"])
        elif k == "/missing":
            p = r.choice(["/missing", "/static/app.css", "/favicon.ico"])
        elif k == "/delete":
            method, p = "DELETE", "/items/a1"
        if self.interface == "wsgi" and k not in ("/", "/echo", "/raise", "/status", "/slow", "/missing", "/head"):
            p = r.choice(["/", "/json", "/raise", "/slow", "/404", "/%d" % r.choice([200, 201, 404, 500])])
        q = "&" if "?" in p else "?"
        if r.random() < 0.1:
            p += q + "page=%d&q=%s" % (r.randint(1, 9), r.choice(["shoes", "caf%C3%A9", "a+b"]))
        return method, self.path(p), body

    def headers(self, forwarded=False):
        r = self.r
        hs = []
        ua = r.choice(AGENTS)
        if ua:
            hs.append(("User-Agent", ua))
        if r.random() < 0.2:
            hs.append(("Accept", r.choice(["text/html", "application/json", "*/*"])))
        if forwarded or r.random() < 0.05:
            hs.append(("X-Forwarded-For", r.choice(FORWARDED)))
            if r.random() < 0.6:
                hs.append(("X-Forwarded-Proto", r.choice(["https", "http", "wss"])))
        return hs

    def exchange(self, w, method, p, body=None, close=False, version="1.1", hs=None, chunked=False):
        w.sock.sendall(request_bytes(method, p, self.host_header, hs if hs is not None else self.headers(),
                                     body, close, version, chunked))
        self.requests += 1
        return w.response(method)

    # steps
    def s_requests(self, w=None):
        r = self.r
        n = r.randint(1, 5)
        for i in range(n):
            self.alive()
            if w is None:
                w = Wire(self.connect())
            m, p, body = self.target()
            try:
                status, hs, _ = self.exchange(w, m, p, body, close=(i == n - 1 and r.random() < 0.3))
                if hs.get(b"connection", b"").lower() == b"close":
                    w.close()
                    w = None
            except (OSError, EOFError, ValueError, IndexError):
                w.close()
                w = None
        if w is not None:
            if r.random() < 0.1:
                self.held.append(w)  # an idle keep-alive connection, left open
            else:
                w.close(rst=r.random() < 0.1)

    def s_close(self):
        w = Wire(self.connect())
        m, p, body = self.target()
        self.exchange(w, m, p, body, close=True)
        w.close()

    def s_http10(self):
        w = Wire(self.connect())
        m, p, body = self.target()
        self.exchange(w, m, p, body, version="1.0", close=False)
        w.close()

    def s_pipeline(self):
        r = self.r
        w = Wire(self.connect())
        reqs = []
        for i in range(r.randint(2, 4)):
            m, p, body = self.target()
            if body is not None and len(body) > 2000:
                body = body[:2000]
            reqs.append((m, p, body))
        w.sock.sendall(b"".join(request_bytes(m, p, self.host_header, self.headers(), body) for m, p, body in reqs))
        self.requests += len(reqs)
        for m, p, body in reqs:
            w.response(m)
        w.close()

    def s_expect(self):
        r = self.r
        w = Wire(self.connect())
        body = b"q" * r.choice([10, 5000])
        head = request_bytes("POST", self.path("/echo"), self.host_header,
                             self.headers() + [("Expect", "100-continue")], body)
        w.sock.sendall(head[:len(head) - len(body)])
        self.requests += 1
        if r.random() < 0.8:
            first = w.until(b"\r\n\r\n")  # 100 Continue, sent when the application reads
            if first.startswith(b"HTTP/1.1 100"):
                w.sock.sendall(body)
                w.response("POST")
        w.close()

    def s_chunked(self):
        r = self.r
        w = Wire(self.connect())
        body = bytes(r.randrange(97, 123) for _ in range(r.choice([10, 3000])))
        self.exchange(w, "POST", self.path("/echo"), body, chunked=True)
        w.close()

    def s_concurrent(self):
        r = self.r
        n = r.randint(2, 5)
        jobs = []
        for i in range(n):
            jobs.append(self.target() if r.random() < 0.5 else ("GET", self.path("/slow?ms=%d" % r.choice([80, 200])),
                                                                  None))
        out = []

        def one(m, p, body):
            try:
                w = Wire(self.connect())
                w.sock.sendall(request_bytes(m, p, self.host_header, [("User-Agent", "bench-concurrent")], body,
                                             close=True))
                out.append(w.response(m)[0])
                w.close()
            except (OSError, EOFError, ValueError, IndexError):
                pass
        ts = [threading.Thread(target=one, args=j) for j in jobs]
        for t in ts:
            t.start()
        for t in ts:
            t.join(5)
        self.requests += n

    def s_malformed(self):
        r = self.r
        w = Wire(self.connect())
        data = r.choice(MALFORMED)
        if r.random() < 0.3:  # after a good request on the same connection
            try:
                self.exchange(w, "GET", self.path("/ok"), None)
            except (OSError, EOFError, ValueError):
                w.close()
                w = Wire(self.connect())
        w.sock.sendall(data)
        w.sock.settimeout(1.0)
        w.rest()
        w.close()

    def s_oversize(self):
        r = self.r
        w = Wire(self.connect())
        k = r.randrange(3)
        if k == 0:  # one huge header
            req = b"GET %s HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n" % (self.path("/ok").encode(),
                                                                        b"a" * r.choice([20000, 90000]))
        elif k == 1:  # many headers
            req = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 200)
                                                             for i in range(500)) + b"\r\n"
        else:  # a huge request target
            req = b"GET /" + b"p" * r.choice([20000, 100000]) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        try:
            w.sock.sendall(req)
        except OSError:
            pass
        w.sock.settimeout(1.0)
        w.rest()
        w.close()

    def s_upgrade(self):
        r = self.r
        w = Wire(self.connect())
        proto = r.choice(["h2c", "TLS/1.2", "foo/1", "websocket"])
        hs = [("Connection", "Upgrade"), ("Upgrade", proto)]
        if proto == "h2c":
            hs[0] = ("Connection", "Upgrade, HTTP2-Settings")
            hs.append(("HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"))
        w.sock.sendall(request_bytes("GET", self.path("/ok"), self.host_header, hs))
        w.sock.settimeout(1.0)
        w.rest()
        w.close()

    def ws_target(self):
        r = self.r
        k = pick(r, [(10, "echo"), (2, "reject"), (2, "raise"), (2, "raise-after"), (1, "nothing"),
                     (1, "return-value"), (1, "bad-first"), (1, "bad-after"), (1, "after-close"), (3, "greet")])
        q = ""
        if k == "echo" and r.random() < 0.3:
            q = "?code=%d" % r.choice([1000, 1001, 4001, 4403])
        elif k == "greet":
            q = "?n=%d&code=%d" % (r.randint(0, 3), r.choice([1000, 1000, 4000]))
        elif k in ("raise", "raise-after"):
            q = "?f=%d" % r.randrange(len(FAILURES))
        return k, self.path("/ws/%s%s" % (k, q))

    def s_websocket(self):
        r = self.r
        k, target = self.ws_target()
        subs = r.choice([(), (), ("chat",), ("chat", "superchat")])
        ws = WS(self.connect(), self.host_header, target, subs, deflate=r.random() < 0.3,
                headers=[("X-Forwarded-For", r.choice(FORWARDED))] if r.random() < 0.15 else [])
        if ws.accepted:
            for i in range(r.randint(0, 4)):
                if ws.closed:
                    break
                x = r.random()
                if x < 0.15:
                    ws.send(wse.Ping(payload=b"p%d" % i), reply=False)
                elif x < 0.35:
                    ws.send(wse.BytesMessage(data=b"\x00" * r.choice([10, 100, 5000])))
                else:
                    ws.send(wse.TextMessage(data="hello %d " % i + "z" * r.choice([0, 50, 5000])))
            if k == "echo" and not ws.closed and r.random() < 0.3:
                ws.send(wse.TextMessage(data=r.choice(["close", "close", "raise"])))
        fin = r.random()
        if fin < 0.08 and ws.accepted and not ws.closed:
            self.held.append(ws)  # open at the shutdown
        else:
            ws.close(code=r.choice([1000, 1001, 4000]), clean=fin > 0.25)

    def s_ws_invalid(self):
        r = self.r
        w = Wire(self.connect())
        p = self.path("/ws/echo").encode()
        host = self.host_header.encode()
        k = r.randrange(5)
        key = b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        if k == 0:
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Version: 13\r\n\r\n" % (p, host)
        elif k == 1:
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s" \
                  b"Sec-WebSocket-Version: 8\r\n\r\n" % (p, host, key)
        elif k == 2:
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Key: not-base64\r\nSec-WebSocket-Version: 13\r\n\r\n" % (p, host)
        else:
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n%s" \
                  b"Sec-WebSocket-Version: 13\r\n\r\n" % (p, host, key)
        w.sock.sendall(req)
        w.sock.settimeout(0.8)
        if k == 3:  # accepted, then a frame with a reserved opcode, unmasked
            time.sleep(0.05)
            try:
                w.sock.sendall(b"\x8f\x05garbage-frame")
            except OSError:
                pass
        elif k == 4:  # accepted, then the connection drops without a close frame
            time.sleep(0.05)
            w.close(rst=r.random() < 0.5)
            return
        w.rest()
        w.close()

    def s_abort(self):
        r = self.r
        w = Wire(self.connect())
        k = r.randrange(4)
        if k == 0:
            w.sock.sendall(request_bytes("GET", self.path("/orphan?ms=%d" % r.choice([100, 300])), self.host_header))
        elif k == 1:
            w.sock.sendall(request_bytes("GET", self.path("/wait?ms=800"), self.host_header))
        elif k == 2:
            w.sock.sendall(request_bytes("GET", self.path("/slow?ms=200"), self.host_header))
        else:  # half a body
            w.sock.sendall(request_bytes("POST", self.path("/echo"), self.host_header, body=b"x" * 1000)[:-600])
        self.requests += 1
        time.sleep(0.03)
        w.close(rst=r.random() < 0.4)

    def s_slowloris(self):
        r = self.r
        w = Wire(self.connect())
        p = self.path("/ok").encode()
        parts = [b"GET %s HT" % p, b"TP/1.1\r\nHost: x\r\n", b"X-Slow: 1\r\n", b"\r\n"]
        for c in parts:
            w.sock.sendall(c)
            time.sleep(0.05)
        w.response("GET")
        w.close()

    def s_idle(self):
        w = Wire(self.connect())
        self.exchange(w, "GET", self.path("/ok"))
        time.sleep(float(self.kw["timeout_keep_alive"]) + 0.2)
        try:
            w.sock.sendall(request_bytes("GET", self.path("/ok"), self.host_header))
            w.response("GET")
        except (OSError, EOFError, ValueError):
            pass
        w.close()

    def s_proxied(self):
        w = Wire(self.connect())
        for i in range(self.r.randint(1, 3)):
            m, p, body = self.target()
            if self.r.random() < 0.5:
                p = self.path("/where")
            self.exchange(w, m, p, body, hs=self.headers(forwarded=True))
        w.close()

    def s_change(self):
        """Changes the reloader's watched file (or adds an excluded directory)."""
        if self.src is None:
            return
        r = self.r
        if r.random() < 0.2:  # a directory the watcher excludes
            os.makedirs(os.path.join(self.src, ".cache"), exist_ok=True)
        if "templates" in self.includes and r.random() < 0.6:  # a new directory to watch
            os.makedirs(os.path.join(self.cdir, "templates"), exist_ok=True)
            with open(os.path.join(self.cdir, "templates", "index.html"), "w") as fh:
                fh.write("<h1>{{ greeting }}</h1>\n")
        fn = os.path.join(self.src, "views.py")
        with open(fn, "a") as fh:
            fh.write("GREETING = %r\n" % r.choice(["hi", "hey", "hello again"]))
        t = time.time() + 2 + len(self.notes)
        os.utime(fn, (t, t))
        self.notes.append("changed")
        time.sleep(0.4)

    def hold(self):
        """Something still open when the shutdown comes."""
        r = self.r
        k = pick(r, [(3, "slow"), (2, "orphan"), (2, "ws"), (2, "idle"), (1, "partial"), (1, "body")])
        if k == "ws" and self.interface == "wsgi":
            k = "idle"
        if k == "slow":
            w = Wire(self.connect())
            w.sock.settimeout(3)

            def read():
                try:
                    w.response("GET")
                except (OSError, EOFError, ValueError):
                    pass
            w.sock.sendall(request_bytes("GET", self.path("/slow?ms=%d" % r.choice([300, 600])), self.host_header))
            t = threading.Thread(target=read)
            t.start()
            self.held.append(w)
        elif k == "orphan":
            w = Wire(self.connect())
            w.sock.sendall(request_bytes("GET", self.path("/orphan?ms=%d" % r.choice([300, 700])), self.host_header))
            time.sleep(0.02)
            w.close()
        elif k == "ws":
            ws = WS(self.connect(), self.host_header, self.path("/ws/echo"))
            self.held.append(ws)
        elif k == "idle":
            w = Wire(self.connect())
            self.exchange(w, "GET", self.path("/ok"))
            self.held.append(w)
        elif k == "partial":
            w = Wire(self.connect())
            w.sock.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n" % self.path("/ok").encode())
            self.held.append(w)
        else:
            w = Wire(self.connect())
            w.sock.sendall(request_bytes("POST", self.path("/echo"), self.host_header, body=b"y" * 100)[:-60])
            self.held.append(w)
        self.requests += 1
        self.notes.append("hold:" + k)

    def shutdown_phase(self):
        r = self.r
        if self.stop == "max-requests":  # the server stops by itself after its limit
            n = self.kw["limit_max_requests"]
            for _ in range(n + 2):
                if self.server_done.wait(0.25):
                    return
                try:
                    w = Wire(self.connect())
                    self.exchange(w, "GET", self.path("/ok"), close=True)
                    w.close()
                except (OSError, EOFError, ValueError):
                    pass
            self.stop = "flag" if self.server is not None else "sigint"
        if r.random() < 0.3:
            for _ in range(r.randint(1, 2)):
                try:
                    self.hold()
                except (OSError, EOFError, ValueError):
                    pass
            time.sleep(0.05)
        self.alive()
        s = self.stop
        self.notes.append("stop:" + s)
        if s == "flag":
            self.server.should_exit = True
        elif s == "handle-exit":
            self.server.handle_exit(signal.SIGTERM, None)
        elif s in ("sigint", "sigterm"):
            self.signal_server(signal.SIGINT if s == "sigint" else signal.SIGTERM)
        elif s == "ctrl-c":  # the terminal's CTRL+C reaches the supervisor and its server processes
            for p in multiprocessing.active_children():
                os.kill(p.pid, signal.SIGINT)
            self.signal_server(signal.SIGINT)
        elif s == "force":
            if self.server is not None:
                self.server.handle_exit(signal.SIGINT, None)
                time.sleep(r.choice([0.01, 0.15]))
                self.server.handle_exit(signal.SIGINT, None)
            else:
                self.signal_server(signal.SIGINT)
                time.sleep(0.02)
                if not self.server_done.is_set():
                    self.signal_server(signal.SIGINT)
        time.sleep(r.choice([0.2, 0.4, 0.7]))
        for h in self.held:
            h.close()
        self.held = []
        # a shutdown that waits on a connection or a task that does not end
        # (uvicorn's wsproto protocol gives a client that left without a close
        # frame no disconnect): CTRL+C again
        if not self.server_done.wait(r.choice([1.0, 2.0])):
            self.notes.append("forced")
            self.force()


# ---------------------------------------------------------------------------
# worker processes
# ---------------------------------------------------------------------------
OUTSIDE = None
ARGS = None
STRAY = [0]


def stray_signal(sig, frame):
    """A SIGINT or SIGTERM while no server of a case listens for it: counted."""
    STRAY[0] += 1


def restore_signals():
    signal.signal(signal.SIGINT, stray_signal)
    signal.signal(signal.SIGTERM, stray_signal)


def init_worker(seed, top, certs):
    global LOG, OUTSIDE, ARGS
    ARGS = (seed, top, certs)
    LOG = _capture.EventLog(uvicorn, os.devnull, logger_names=["uvicorn"], wrappers=WRAPPERS)
    LOG.setLevel(logging.NOTSET)  # uvicorn's TRACE level (5) too, when a case sets it
    OUTSIDE = OutsideCounter(LOG.pkg_dir)
    LOG.addFilter(OUTSIDE)
    quiet()
    restore_signals()
    # uvicorn reopens the parent's stdin by its number in those processes,
    # which inherit only descriptors 0-2: stdin is /dev/null on 0
    fd = os.open(os.devnull, os.O_RDONLY)
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)
    sys.stdin = open(0, closefd=False)
    sys.setswitchinterval(0.0005)  # server and client hand the GIL back and forth on every exchange


def new_stats():
    return {"errors": {}, "step errors": {}, "attempt errors": {}, "stuck": {}, "kinds": {}, "http": {}, "ws": {},
            "own": 0, "other": 0, "child rows": 0, "stray signals": 0}


def run_case(i):
    seed, top, certs = ARGS
    cid = "uv-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    stats = new_stats()
    cdir = os.path.join(top, "c%d" % i)
    os.makedirs(cdir)
    env0 = dict(os.environ)
    path0 = list(sys.path)
    case = Case(cid, r, cdir, certs, stats)
    case.env = {}
    OUTSIDE.own = OUTSIDE.other = 0
    STRAY[0] = 0
    t = time.time()
    reset_loggers()
    LOG._rows = []
    LOG.case_id = cid
    try:
        case.plan()
        case.run()
    except BaseException as e:  # a broken case must not stop the generation
        stats["errors"][type(e).__name__] = stats["errors"].get(type(e).__name__, 0) + 1
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        restore_signals()
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
        stats["own"], stats["other"] = OUTSIDE.own, OUTSIDE.other
        stats["stray signals"] = STRAY[0]
        d = os.path.join(cdir, "children")
        if os.path.isdir(d):  # the rows of the supervisors' server processes
            for fn in sorted(os.listdir(d)):
                if fn.endswith(".json"):
                    with open(os.path.join(d, fn)) as fh:
                        c = json.load(fh)
                    rows.extend(c["rows"])
                    stats["child rows"] += len(c["rows"])
                    stats["own"] += c["own"]
                    stats["other"] += c["other"]
            rows.sort(key=lambda row: row[1])
        kind = getattr(case, "kind", "?")
        stats["kinds"][kind] = 1
        http = case.kw.get("http") if hasattr(case, "kw") else None
        stats["http"][http if isinstance(http, str) else "class"] = 1
        stats["ws"][case.kw.get("ws", "?") if hasattr(case, "kw") else "?"] = 1
        _capture.release_ports(case.ports)
        for s in case.socks:
            try:
                s.close()
            except OSError:
                pass
        os.environ.clear()
        os.environ.update(env0)
        sys.path[:] = path0
        shutil.rmtree(cdir, ignore_errors=True)
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s pid=%d %s %s %s/%s %s %d events %.2fs\n" % (
                cid, os.getpid(), kind, getattr(case, "bind", "?"), case.kw.get("http") if hasattr(case, "kw") else "?",
                case.kw.get("ws") if hasattr(case, "kw") else "?", " ".join(case.notes), len(rows), time.time() - t))
    return i, cid, rows, stats


MAIN_CONNS = []  # the main process's ends of the workers' pipes


def worker_loop(conn, args):
    """A worker process: runs the cases it is sent, one after another."""
    for c in MAIN_CONNS:  # copies of other workers' pipes: closed, so that each end sees its peer go
        c.close()
    del MAIN_CONNS[:]
    init_worker(*args)
    while True:
        try:
            i = conn.recv()
        except (EOFError, OSError):
            break
        if i is None:
            break
        conn.send(run_case(i))


class Worker:
    """A forked worker process with a pipe of its own (a process, not a pool
    worker: the supervisors' server processes are its children)."""

    def __init__(self, ctx, args):
        self.conn, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=worker_loop, args=(theirs, args))
        self.proc.start()
        theirs.close()
        MAIN_CONNS.append(self.conn)
        self.case = None
        self.since = 0.0
        self.done = 0

    def send(self, i):
        self.case, self.since = i, time.monotonic()
        self.conn.send(i)

    def stop(self, kill=False):
        try:
            if kill:
                self.proc.kill()
            else:
                self.conn.send(None)
        except (OSError, ValueError):
            pass
        self.conn.close()
        if self.conn in MAIN_CONNS:
            MAIN_CONNS.remove(self.conn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=10, help="cases run side by side, each in a process "
                    "(they mostly wait)")
    a = ap.parse_args()
    if os.environ.get("GEN_DEBUG"):  # SIGUSR1 prints every thread's stack (workers inherit it)
        import faulthandler
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    tmp = tempfile.mkdtemp(prefix="gen_uvicorn_")
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    totals = new_stats()
    lost = 0
    workers = []
    try:
        certs = _capture.self_signed_cert(tmp, key_password=b"s3cret")
        ctx = multiprocessing.get_context("fork")
        args = (a.seed, tmp, certs)
        # the main process only writes: its capture listens to no logger
        log = _capture.EventLog(uvicorn, a.out, logger_names=["uvicorn.bench-unused"], wrappers=WRAPPERS)
        workers = [Worker(ctx, args) for _ in range(max(1, min(a.jobs, len(todo))))]
        queue = list(todo)
        results = {}
        order = list(todo)
        written = 0
        while written < len(order):
            for k, w in enumerate(workers):
                if w.case is None and queue:
                    if w.done >= 40:  # a fresh process every 40 cases: what a case leaks does not pile up
                        w.stop()
                        w.proc.join(10)
                        w = workers[k] = Worker(ctx, args)
                    w.send(queue.pop(0))
            busy = {w.conn: w for w in workers if w.case is not None}
            for c in multiprocessing.connection.wait(list(busy), timeout=1.0):
                w = busy[c]
                try:
                    i, cid, rows, stats = w.conn.recv()
                except (EOFError, OSError):  # the process died: the case is lost
                    results[w.case] = None
                    w.stop(kill=True)
                    workers[workers.index(w)] = Worker(ctx, args)
                    continue
                results[i] = (cid, rows, stats)
                w.case = None
                w.done += 1
            for k, w in enumerate(workers):
                if w.case is not None and time.monotonic() - w.since > 120:  # a case that hangs: lost
                    results[w.case] = None
                    w.stop(kill=True)
                    workers[k] = Worker(ctx, args)
            while written < len(order) and order[written] in results:
                res = results.pop(order[written])
                written += 1
                if res is None:
                    lost += 1
                    continue
                cid, rows, stats = res
                log.write_case(cid, rows)
                for k, v in stats.items():
                    if isinstance(v, dict):
                        for kk, n in v.items():
                            totals[k][kk] = totals[k].get(kk, 0) + n
                    else:
                        totals[k] += v
        log.finish()
        sys.stderr.write(
            "%s; kinds %s; http %s; ws %s; rows of supervised server processes: %d; dropped: %d records of the "
            "generator's application, %d of other libraries (websockets) through uvicorn's loggers; "
            "first attempts' errors: %s; case exceptions: %s; client step errors: %s; servers that did not stop: "
            "%d; signals that found no server: %d; lost cases: %d; %.0fs\n"
            % (log.summary(), dict(sorted(totals["kinds"].items())), dict(sorted(totals["http"].items())),
               dict(sorted(totals["ws"].items())), totals["child rows"], totals["own"], totals["other"],
               totals["attempt errors"] or "none", totals["errors"] or "none", totals["step errors"] or "none",
               totals["stuck"].get("servers", 0), totals["stray signals"], lost, time.time() - t0))
        if log.cases_written == 0:
            sys.exit("gen_uvicorn: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        for w in workers:
            w.stop()
        for w in workers:
            w.proc.join(10)
            if w.proc.is_alive():
                w.proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if os.environ.get("GEN_DEBUG"):
    logging.lastResort = _DebugLastResort()
if __name__ == "__mp_main__" and os.environ.get(CHILD_ENV):
    child_capture()

if __name__ == "__main__":
    main()
