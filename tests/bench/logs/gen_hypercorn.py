#!/usr/bin/python3
"""Event log of Hypercorn (Debian python3-hypercorn 0.13.2, with python3-trio
0.22.0 for its second backend), an ASGI server, with its applications and
clients in one process, on 127.0.0.1.

    /usr/bin/python3 gen_hypercorn.py --out .deps/logs/hypercorn.csv.gz [--cases 850] [--seed 1] [--jobs 4]
    /usr/bin/python3 gen_hypercorn.py --repo     # prints the directory to index

Indexed: the whole installed ``hypercorn`` directory
(``/usr/lib/python3/dist-packages/hypercorn``): both backends (``asyncio/``
and ``trio/``, whose ``run.py``, ``lifespan.py`` and ``task_group.py`` log
the same texts), the protocols, the middleware, the QUIC/HTTP/3 modules
(``aioquic`` is not in Debian 12: they never run) and the multi-process
runner (not run either).

A case is one server lifetime.  The case draws its backend (asyncio or
trio) and a ``Config`` (built by attributes, ``Config.from_mapping`` or
``Config.from_toml``): 1-3 binds on free ports of 127.0.0.1, some as
``fd://`` sockets the generator binds; sometimes TLS with a throw-away
certificate (made with ``python3-cryptography``) plus plain
``insecure_bind`` ports, ALPN ``h2`` or not; random keep-alive, read,
graceful, startup and shutdown timeouts, ``h11_max_incomplete_size``,
HTTP/2 stream, header-list and frame limits, ``max_app_queue_size``,
``server_names``, ``root_path``, the WebSocket message size limit and ping
interval, ``alt_svc_headers``, the server header; the access-log format
(Hypercorn's default, or one of a dozen ``%(h)s``-style formats of request,
response and header atoms, JSON-like ones, unknown atoms); the logger
targets (``logging.Logger`` objects, or files, from which Hypercorn builds
its own handlers); a statsd host (a UDP sink in the generator: the
backend's ``StatsdLogger`` then replaces the ``Logger``); sometimes a user
``Logger`` subclass whose ``atoms()`` adds an atom.  The ASGI application is
made for the case: ASGI 3, or ASGI 2 as a class or a function; a lifespan
behaviour (complete, unsupported, ignored, raising at startup, failing
startup, too slow for ``startup_timeout``, raising at or after shutdown, slow
at shutdown, sending an unknown message); HTTP handlers that answer with
random statuses and headers, stream, echo bodies, send large bodies, push
(HTTP/2), wait for the client's disconnect, raise before, during and after
the response, return without answering, send a body before the start, an
unknown message type, pseudo headers or a non-numeric status, run two
failing children (a trio nursery's ``MultiError``, ``asyncio.gather``);
WebSocket handlers that echo, refuse, deny with an HTTP response, raise
before or after accepting, return without accepting, send bad messages or
HTTP messages after accepting, close with codes; sometimes mounted in
Hypercorn's dispatcher beside a WSGI application under
``AsyncioWSGIMiddleware``/``TrioWSGIMiddleware``, or wrapped in its
HTTP-to-HTTPS redirect middleware.  Then 4-14 steps of clients: HTTP/1.1
on keep-alive connections (h11 as the client: bodies, chunked uploads,
``Expect: 100-continue``, HEAD, user agents, referers, request ids),
single requests with ``Connection: close``, concurrent connections,
HTTP/1.0, pipelining, malformed request lines and headers, oversize headers
and targets, bad lengths and chunks, a TLS hello on a plain port, early
disconnects (some by RST), slowloris and idle connections past the
timeouts, TLS ports spoken to in plain text, HTTP/2 by prior knowledge,
``h2c`` upgrade or ALPN (the h2 library as the client: up to ten streams,
server push accepted or refused, streams reset, a garbage frame, GOAWAY or
not), WebSockets over HTTP/1.1 (wsproto as the client: text, binary,
pings, deflate, subprotocols, clean and abrupt closes, invalid handshakes,
garbage frames) and over HTTP/2 (RFC 8441 extended ``CONNECT``), requests
with a wrong ``Host``.  The case ends with the shutdown trigger, sometimes
with connections still open.  Hypercorn 0.13.2 on trio ends the whole
server on some of these (an exception escaping a connection's handler:
``BusyResourceError``, h11's ``LocalProtocolError`` from WebSocket pings
after a close, ``KeyError`` in the HTTP/2 protocol, ``TooSlowError`` from
the read timeout, which is rare on trio for that reason): such a case ends
there, and the summary line counts these endings.

Capture: the ``hypercorn`` logger tree at DEBUG (``hypercorn.error`` and
``hypercorn.access``, which the generator hands to the config, or which
Hypercorn builds from file targets: the capture is then added to the access
logger, which does not propagate).  The activity is the rendered message:
for access lines, the config's format applied to the ``AccessLogAtoms``
mapping.  Each case's server runs in a thread of its own (its own asyncio
loop, or ``trio.run``), and ``--jobs`` cases (4) run side by side, each
client in a worker thread: a record belongs to the case whose server thread
emitted it (records of any other thread, such as a server outliving its
case, are dropped and counted), and cases are written in order.  A case
with file targets makes Hypercorn replace the handlers of the process-wide
loggers: it runs alone.  Every socket has a timeout; a server that does not
stop is left behind and counted.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): Hypercorn logs only through its own ``hypercorn.logging.Logger``,
whose async methods ``access``, ``critical``, ``error``, ``warning``,
``info``, ``debug``, ``exception`` and ``log`` do nothing but forward the
message to the stdlib logger (``access`` renders the line: the config's
format and the atoms); ``statsd.StatsdLogger``'s methods of the same names
call them and send the matching metric to statsd.  All are declared
wrappers, so every record is wrapped and its emitter is the call site in
``run.py``, ``lifespan.py``, ``task_group.py`` (of either backend),
``http_stream.py`` or ``ws_stream.py``.
"""
import argparse
import asyncio
import datetime
import functools
import logging
import os
import random
import shutil
import socket
import ssl
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import hypercorn  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(hypercorn.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

warnings.simplefilter("ignore")  # trio 0.22 deprecates MultiError, which hypercorn uses

import h11  # noqa: E402
import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events  # noqa: E402
import h2.exceptions  # noqa: E402
import h2.settings  # noqa: E402
import trio  # noqa: E402
import wsproto  # noqa: E402
import wsproto.events as wse  # noqa: E402
import wsproto.utilities  # noqa: E402
from wsproto.connection import Connection as WSFrames, ConnectionType  # noqa: E402
from wsproto.extensions import PerMessageDeflate  # noqa: E402

import hypercorn.asyncio  # noqa: E402
import hypercorn.trio  # noqa: E402
from hypercorn.config import Config  # noqa: E402
from hypercorn.logging import Logger  # noqa: E402
from hypercorn.middleware import (AsyncioWSGIMiddleware, HTTPToHTTPSRedirectMiddleware,  # noqa: E402
                                  TrioWSGIMiddleware)
from hypercorn.middleware.dispatcher import (AsyncioDispatcherMiddleware,  # noqa: E402
                                             TrioDispatcherMiddleware)

LOG_METHODS = ("access", "critical", "error", "warning", "info", "debug", "exception", "log")
WRAPPERS = ({("hypercorn/logging.py", f) for f in LOG_METHODS}
            | {("hypercorn/statsd.py", f) for f in LOG_METHODS})

ACCESS_FORMATS = [
    '%(h)s %(r)s %(s)s %(b)s %(D)s',
    '%(h)s - "%(R)s" %(s)s %(st)s "%(a)s"',
    '%(t)s %(m)s %(U)s %(q)s %(H)s -> %(s)s',
    '%(p)s %(S)s %(Uq)s %(s)s %({content-type}o)s %(L)s',
    'access %(m)s %(U)s status=%(s)s took=%(D)sus',
    '%(h)s "%(r)s" %(s)s %({x-request-id}i)s %({x-cache}o)s',
    '[%(S)s] %(R)s %(s)s %(st)s',
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s',
    '%(m)s %(Uq)s %(H)s %(s)s "%(f)s" len=%(B)s',
    '%(h)s %({host}i)s %(R)s %(s)s T=%(T)s',
    '{"remote": "%(h)s", "request": "%(r)s", "status": %(s)s, "ua": "%(a)s"}',
    '%(s)s %(m)s %(U)s rid=%(rid)s',
]

STATUSES = [200, 200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 409, 418,
            422, 429, 500, 502, 503, 299, 599]
AGENTS = ["bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", "python-h11/0.14",
          "Go-http-client/1.1", ""]
FAILURES = [lambda: ValueError("quantity must be positive"), lambda: KeyError("cart"),
            lambda: ZeroDivisionError("division by zero"), lambda: RuntimeError("backend unavailable"),
            lambda: TypeError("unsupported operand type(s)"), lambda: LookupError("no such order")]


# ---------------------------------------------------------------------------
# capture: records attributed to the case whose server thread emitted them
# ---------------------------------------------------------------------------
class HcLog(_capture.EventLog):
    """The shared capture, for cases that run side by side: each record goes
    to the case whose server thread emitted it (``owners``: thread ident ->
    case id), into that case's buffer; a finished case is written once every
    case before it is, so the log holds the cases in order."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.case_id = "-"  # the base class's own check; cases are told apart below
        self.owners = {}
        self.bufs = {}
        self.done = {}
        self.next_index = 0
        self.stray = 0
        self.outside = 0
        self._wlock = threading.Lock()

    def open_case(self, cid):
        with self._lock2:
            self.bufs[cid] = []

    def emit(self, record):
        cid = self.owners.get(record.thread)
        if cid is None:
            self.stray += 1
            return
        try:
            ap, rel = self._rel(record.pathname)
            if rel is None:
                self.outside += 1
                return
            func, line, wrapped = record.funcName, record.lineno, 0
            if self._is_wrapper(rel, func):
                u = self._unwrap(record)
                if u is None or u[1] is None:
                    self.outside += 1
                    return
                ap, rel, func, line = u
                wrapped = 1
            ts = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(
                timespec="microseconds")
            row = [cid, ts, _capture._escape(record.getMessage()), record.levelname, record.name,
                   rel, func, line, self.qn.qualname(ap, line), wrapped]
            with self._lock2:
                buf = self.bufs.get(cid)
                if buf is not None:
                    buf.append(row)
        except Exception:  # never break the library under test
            self.handleError(record)

    def close_case(self, index, cid, ident):
        with self._lock2:
            if self.owners.get(ident) == cid:
                del self.owners[ident]
            rows = self.bufs.pop(cid, [])
        with self._wlock:
            self.done[index] = rows
            while self.next_index in self.done:
                with self._lock2:
                    self._rows = self.done.pop(self.next_index)
                super().end_case()
                self.case_id = "-"
                self.next_index += 1


class LoggerGate:
    """Cases whose logger targets are files make Hypercorn replace the
    handlers of the process-wide ``hypercorn.access``/``hypercorn.error``
    loggers: such a case runs alone; the others share the loggers."""

    def __init__(self):
        self.cond = threading.Condition()
        self.shared = 0
        self.alone = False

    def enter(self, alone):
        with self.cond:
            if alone:
                self.cond.wait_for(lambda: not self.alone and self.shared == 0)
                self.alone = True
            else:
                self.cond.wait_for(lambda: not self.alone)
                self.shared += 1

    def leave(self, alone):
        with self.cond:
            if alone:
                self.alone = False
            else:
                self.shared -= 1
            self.cond.notify_all()


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
free_port = _capture.free_port
release_ports = _capture.release_ports


def listening_ports():
    ports = set()
    try:
        with open("/proc/net/tcp") as fh:
            next(fh)
            for line in fh:
                f = line.split()
                if f[3] == "0A":
                    ports.add(int(f[1].split(":")[1], 16))
    except OSError:
        pass
    return ports


_CTX = {}


def client_ctx(alpn):
    key = tuple(alpn or ())
    ctx = _CTX.get(key)
    if ctx is None:
        ctx = _CTX[key] = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        if alpn:
            ctx.set_alpn_protocols(alpn)
    return ctx


def connect(port, tls=False, alpn=None, timeout=2.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if tls:
        s = client_ctx(alpn).wrap_socket(s, server_hostname="localhost")
    return s


def drain(s, limit=1 << 20, idle=0.05):
    """Read until the peer closes, or stays quiet for ``idle`` seconds once
    it has answered (Hypercorn keeps some connections open after an error
    response); the socket's own timeout bounds the wait for a first byte."""
    got = 0
    try:
        while got < limit:
            d = s.recv(65536)
            if not d:
                break
            got += len(d)
            s.settimeout(idle)
    except OSError:
        pass
    return got


def raw_exchange(port, chunks, tls=False, wait=1.0, pause=0.0, read=True, rst=False):
    try:
        s = connect(port, tls, ["http/1.1"], timeout=wait)
    except OSError:
        return
    try:
        for c in chunks:
            s.sendall(c)
            if pause:
                time.sleep(pause)
        if read:
            drain(s)
        if rst:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    finally:
        s.close()


# ---------------------------------------------------------------------------
# the application's code (its own frames never log)
# ---------------------------------------------------------------------------
class LifespanError(Exception):
    pass


class BenchApp:
    """An ASGI 3 application made for one case."""

    def __init__(self, case):
        self.c = case
        self.rng = random.Random(case.cid + "-app")  # the case's own generator stays the client's
        self.backend = case.backend
        self.lifespan_mode = case.lifespan
        self.root = case.root_path

    async def sleep(self, s):
        if self.backend == "asyncio":
            await asyncio.sleep(s)
        else:
            await trio.sleep(s)

    async def __call__(self, scope, receive, send):
        t = scope["type"]
        if t == "lifespan":
            return await self.lifespan(receive, send)
        path = scope["path"]
        if self.root and path.startswith(self.root):
            path = path[len(self.root):] or "/"
        parts = path.strip("/").split("/")
        q = {}
        for kv in scope.get("query_string", b"").decode("latin1").split("&"):
            if "=" in kv:
                k, v = kv.split("=", 1)
                q[k] = v
        if t == "http":
            name = parts[0] or "ok"
            h = getattr(self, "h_" + name.replace("-", "_"), None)
            if h is None:
                return await respond(send, 404, b"no such page\n")
            return await h(scope, receive, send, parts, q)
        if t == "websocket":
            name = parts[1] if len(parts) > 1 and parts[0] == "ws" else "echo"
            h = getattr(self, "w_" + name.replace("-", "_"), None) or self.w_echo
            return await h(scope, receive, send, q)
        raise RuntimeError("unknown scope type %s" % t)

    # -- lifespan -------------------------------------------------------------
    async def lifespan(self, receive, send):
        m = self.lifespan_mode
        if m == "unsupported":
            raise LifespanError("lifespan not supported by this application")
        if m == "ignore":
            return
        msg = await receive()
        if m == "unexpected":
            await send({"type": "lifespan.startup.ready"})
        if m == "fail-startup":
            await send({"type": "lifespan.startup.failed", "message": "database unreachable"})
            return
        if m == "slow-startup":
            await self.sleep(self.c.slow_startup)
        if m == "raise-startup":
            raise LifespanError("cannot load settings")
        await send({"type": "lifespan.startup.complete"})
        msg = await receive()
        if msg["type"] != "lifespan.shutdown":
            return
        if m == "raise-shutdown":
            raise LifespanError("flush failed")
        if m == "slow-shutdown":
            await self.sleep(self.c.slow_shutdown)
        await send({"type": "lifespan.shutdown.complete"})
        if m == "raise-after":
            raise LifespanError("late cleanup failed")

    # -- HTTP handlers ----------------------------------------------------------
    async def h_ok(self, scope, receive, send, parts, q):
        await respond(send, 200, b"ok\n", [(b"x-request-id", b"r-%s" % q.get("id", "0").encode())])

    async def h_text(self, scope, receive, send, parts, q):
        n = int(q.get("n", "64"))
        await respond(send, 200, b"x" * n, [(b"x-cache", b"MISS")])

    async def h_json(self, scope, receive, send, parts, q):
        await respond(send, 200, b'{"items": [1, 2, 3]}', ctype=b"application/json")

    async def h_status(self, scope, receive, send, parts, q):
        code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 200
        body = b"" if code in (204, 304) else b"status %d\n" % code
        hs = [(b"location", b"/ok")] if code in (301, 302) else []
        await respond(send, code, body, hs)

    async def h_stream(self, scope, receive, send, parts, q):
        n = int(q.get("chunks", "3"))
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for i in range(n):
            await send({"type": "http.response.body", "body": b"data: %d\n\n" % i, "more_body": True})
            if q.get("gap"):
                await self.sleep(0.005)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def h_echo(self, scope, receive, send, parts, q):
        body = await read_body(receive)
        if body is None:
            return
        await respond(send, 200, body, [(b"x-length", str(len(body)).encode())],
                      ctype=dict(scope["headers"]).get(b"content-type", b"application/octet-stream"))

    async def h_slow(self, scope, receive, send, parts, q):
        await self.sleep(int(q.get("ms", "20")) / 1000.0)
        await respond(send, 200, b"slow\n")

    async def h_large(self, scope, receive, send, parts, q):
        n = int(q.get("kb", "100"))
        await respond(send, 200, b"L" * (n * 1024))

    async def h_raise(self, scope, receive, send, parts, q):
        raise self.rng.choice(FAILURES)()

    async def h_raise_late(self, scope, receive, send, parts, q):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise self.rng.choice(FAILURES)()

    async def h_raise_mid(self, scope, receive, send, parts, q):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise self.rng.choice(FAILURES)()

    async def h_empty(self, scope, receive, send, parts, q):
        return

    async def h_body_first(self, scope, receive, send, parts, q):
        await send({"type": "http.response.body", "body": b"too early"})

    async def h_bad_type(self, scope, receive, send, parts, q):
        await send({"type": "http.response.trailers", "headers": []})

    async def h_bad_header(self, scope, receive, send, parts, q):
        await send({"type": "http.response.start", "status": 200, "headers": [(b":status", b"200")]})
        await send({"type": "http.response.body", "body": b"x"})

    async def h_bad_status(self, scope, receive, send, parts, q):
        await send({"type": "http.response.start", "status": "two hundred", "headers": []})
        await send({"type": "http.response.body", "body": b"x"})

    async def h_twice(self, scope, receive, send, parts, q):
        await respond(send, 200, b"first\n")
        await send({"type": "http.response.body", "body": b"second"})

    async def h_push(self, scope, receive, send, parts, q):
        for p in ("/text?n=10", "/json")[:int(q.get("n", "2"))]:
            await send({"type": "http.response.push", "path": p, "headers": []})
        await respond(send, 200, b"<html>pushed</html>", ctype=b"text/html")

    async def h_longpoll(self, scope, receive, send, parts, q):
        # waits for the client's disconnect (or gives up and answers)
        deadline = time.monotonic() + int(q.get("ms", "300")) / 1000.0
        while time.monotonic() < deadline:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                if q.get("late"):
                    await respond(send, 200, b"too late\n")
                return
            if not msg.get("more_body"):
                await self.sleep(0.01)
                break
        await respond(send, 200, b"poll\n")

    async def h_multi(self, scope, receive, send, parts, q):
        async def fail(i):
            raise FAILURES[i % len(FAILURES)]()
        if self.backend == "trio":
            async with trio.open_nursery() as n:
                n.start_soon(fail, 0)
                if q.get("both"):
                    n.start_soon(fail, 3)
        else:
            await asyncio.gather(fail(0), fail(3))

    async def h_head(self, scope, receive, send, parts, q):
        await respond(send, 200, b"body that HEAD suppresses\n")

    async def h_cookies(self, scope, receive, send, parts, q):
        await respond(send, 200, b"set\n", [(b"set-cookie", b"sid=abc; Path=/"),
                                              (b"set-cookie", b"theme=dark"), (b"cache-control", b"no-store")])

    async def h_info(self, scope, receive, send, parts, q):
        text = "%s %s %s %s" % (scope["http_version"], scope["scheme"], scope["method"],
                                scope["asgi"].get("version"))
        await respond(send, 200, text.encode())

    # -- WebSocket handlers ---------------------------------------------------------
    async def _accept(self, scope, receive, send, sub=None, headers=None):
        msg = await receive()
        if msg["type"] != "websocket.connect":
            return False
        m = {"type": "websocket.accept"}
        offered = scope.get("subprotocols") or []
        if sub is None and offered:
            sub = offered[0]
        if sub:
            m["subprotocol"] = sub
        if headers:
            m["headers"] = headers
        await send(m)
        return True

    async def w_echo(self, scope, receive, send, q):
        if not await self._accept(scope, receive, send):
            return
        while True:
            msg = await receive()
            if msg["type"] == "websocket.disconnect":
                return
            if msg.get("text") == "close":
                await send({"type": "websocket.close", "code": int(q.get("code", "1000"))})
                return
            if msg.get("bytes") is not None:
                await send({"type": "websocket.send", "bytes": msg["bytes"]})
            else:
                await send({"type": "websocket.send", "text": "echo: %s" % msg.get("text")})

    async def w_reject(self, scope, receive, send, q):
        await receive()
        await send({"type": "websocket.close"})

    async def w_deny(self, scope, receive, send, q):
        await receive()
        body = b"not allowed here\n"
        await send({"type": "websocket.http.response.start", "status": int(q.get("status", "403")),
                    "headers": [(b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})

    async def w_raise(self, scope, receive, send, q):
        await receive()
        raise self.rng.choice(FAILURES)()

    async def w_nothing(self, scope, receive, send, q):
        return

    async def w_raise_after(self, scope, receive, send, q):
        if not await self._accept(scope, receive, send):
            return
        await receive()
        raise self.rng.choice(FAILURES)()

    async def w_bad_send(self, scope, receive, send, q):
        if not await self._accept(scope, receive, send):
            return
        await send({"type": "websocket.send", "text": 42})

    async def w_http_after(self, scope, receive, send, q):
        if not await self._accept(scope, receive, send):
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def w_greet(self, scope, receive, send, q):
        if not await self._accept(scope, receive, send, headers=[(b"x-greeting", b"hello")]):
            return
        for i in range(int(q.get("n", "3"))):
            await send({"type": "websocket.send", "text": "tick %d" % i})
        await send({"type": "websocket.close", "code": 4000 + int(q.get("n", "3")), "reason": "done"})


async def respond(send, status=200, body=b"", headers=None, ctype=b"text/plain"):
    hs = [(b"content-type", ctype), (b"content-length", str(len(body)).encode())] + list(headers or [])
    await send({"type": "http.response.start", "status": status, "headers": hs})
    await send({"type": "http.response.body", "body": body})


async def read_body(receive):
    body = bytearray()
    while True:
        msg = await receive()
        if msg["type"] == "http.disconnect":
            return None
        body.extend(msg.get("body", b""))
        if not msg.get("more_body"):
            return bytes(body)


def asgi2_class(app):
    class Asgi2App:  # hypercorn calls the class with the scope
        def __init__(self, scope):
            self.scope = scope

        async def __call__(self, receive, send):
            await app(self.scope, receive, send)
    return Asgi2App


def asgi2_function(app):
    def asgi2_app(scope):
        async def instance(receive, send):
            await app(scope, receive, send)
        return instance
    return asgi2_app


class LegacyMount:
    """The WSGI application under Hypercorn's WSGI middleware, as a user
    mounts it in the dispatcher: the middleware ignores lifespan, which the
    dispatcher waits for from every mount, so this answers it."""

    def __init__(self, wsgi):
        self.wsgi = wsgi

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                await send({"type": msg["type"] + ".complete"})
                if msg["type"] == "lifespan.shutdown":
                    return
        await self.wsgi(scope, receive, send)


def legacy_wsgi(environ, start_response):
    path = environ.get("PATH_INFO", "/")
    if path.startswith("/crash"):
        raise RuntimeError("legacy application crashed")
    if path.startswith("/missing"):
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not here\n"]
    body = ("legacy %s %s\n" % (environ["REQUEST_METHOD"], path)).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


class BenchLogger(Logger):
    """A user's Logger subclass adding an atom (its own frames never log)."""

    def atoms(self, request, response, request_time):
        atoms = super().atoms(request, response, request_time)
        atoms["rid"] = dict(request.get("headers", [])).get(b"x-request-id", b"-").decode("latin1")
        return atoms


# ---------------------------------------------------------------------------
# HTTP/1.1, HTTP/2 and WebSocket clients
# ---------------------------------------------------------------------------
class H1:
    """One HTTP/1.1 connection, h11 as the client."""

    def __init__(self, port, host, tls=False, timeout=2.0):
        self.sock = connect(port, tls, ["http/1.1"], timeout)
        self.conn = h11.Connection(h11.CLIENT)
        self.host = host
        self.dead = False

    def _send(self, ev):
        data = self.conn.send(ev)
        if data:
            self.sock.sendall(data)

    def request(self, method, target, headers=(), body=None, chunks=0, expect=False, close=False):
        if self.dead:
            return None
        if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
            self.conn.start_next_cycle()
        elif self.conn.our_state is not h11.IDLE:
            self.dead = True
            return None
        hs = [("Host", self.host)] + list(headers)
        if body is not None and not chunks:
            hs.append(("Content-Length", str(len(body))))
        if chunks:
            hs.append(("Transfer-Encoding", "chunked"))
        if expect:
            hs.append(("Expect", "100-continue"))
        if close:
            hs.append(("Connection", "close"))
        try:
            self._send(h11.Request(method=method, target=target, headers=hs))
            if body is not None:
                if chunks:
                    step = max(1, len(body) // chunks)
                    for i in range(0, len(body), step):
                        self._send(h11.Data(data=body[i:i + step]))
                elif body:
                    self._send(h11.Data(data=body))
            self._send(h11.EndOfMessage())
            return self.read_response()
        except (OSError, h11.ProtocolError):
            self.dead = True
            return None

    def read_response(self):
        status = None
        while True:
            ev = self.conn.next_event()
            if ev is h11.NEED_DATA:
                try:
                    data = self.sock.recv(65536)
                except OSError:
                    self.dead = True
                    return status
                self.conn.receive_data(data)
                continue
            if isinstance(ev, h11.Response):
                status = ev.status_code
            elif isinstance(ev, h11.EndOfMessage):
                if self.conn.their_state is not h11.DONE or self.conn.our_state is not h11.DONE:
                    self.dead = True
                return status
            elif isinstance(ev, h11.ConnectionClosed) or ev is h11.PAUSED:
                self.dead = True
                return status

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class H2:
    """One HTTP/2 connection, the h2 library as the client."""

    def __init__(self, port, host, mode, tls=False, push=True, timeout=2.0, first_path="/ok"):
        self.host = host
        self.tls = tls
        self.dead = False
        self.open = set()
        self.statuses = []
        self.ws_streams = {}
        self.conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        if not push:
            self.conn.local_settings = h2.settings.Settings(
                client=True, initial_values={h2.settings.SettingCodes.ENABLE_PUSH: 0})
        self.sock = connect(port, tls, ["h2"] if tls else None, timeout)
        if mode == "upgrade" and not tls:
            settings = self.conn.initiate_upgrade_connection()
            req = (b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                   b"Upgrade: h2c\r\nHTTP2-Settings: %s\r\nUser-Agent: bench-h2c\r\n\r\n"
                   % (first_path.encode(), host.encode(), settings))
            self.sock.sendall(req)
            buf = b""
            while b"\r\n\r\n" not in buf:
                d = self.sock.recv(65536)
                if not d:
                    self.dead = True
                    return
                buf += d
            head, rest = buf.split(b"\r\n\r\n", 1)
            if b" 101" not in head.split(b"\r\n")[0]:
                self.dead = True
                return
            self.open.add(1)
            self.sock.sendall(self.conn.data_to_send())
            if rest:
                self._feed(rest)
        else:
            self.conn.initiate_connection()
            self.sock.sendall(self.conn.data_to_send())

    def _flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def _feed(self, data):
        for ev in self.conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                for k, v in ev.headers:
                    if k == ":status":
                        self.statuses.append(int(v))
            elif isinstance(ev, h2.events.DataReceived):
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                if ev.stream_id in self.ws_streams:
                    self.ws_streams[ev.stream_id].receive_data(ev.data)
            elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)):
                self.open.discard(ev.stream_id)
            elif isinstance(ev, h2.events.PushedStreamReceived):
                self.open.add(ev.pushed_stream_id)
            elif isinstance(ev, h2.events.ConnectionTerminated):
                self.dead = True
        self._flush()

    def request(self, method, path, body=None, headers=()):
        if self.dead:
            return None
        sid = self.conn.get_next_available_stream_id()
        hs = [(":method", method), (":path", path), (":scheme", "https" if self.tls else "http"),
              (":authority", self.host)] + list(headers)
        self.conn.send_headers(sid, hs, end_stream=body is None)
        if body is not None:
            self.conn.send_data(sid, body, end_stream=True)
        self.open.add(sid)
        self._flush()
        return sid

    def websocket(self, path, subprotocol=None):
        sid = self.conn.get_next_available_stream_id()
        hs = [(":method", "CONNECT"), (":protocol", "websocket"), (":path", path),
              (":scheme", "https" if self.tls else "http"), (":authority", self.host),
              ("sec-websocket-version", "13")]
        if subprotocol:
            hs.append(("sec-websocket-protocol", subprotocol))
        self.conn.send_headers(sid, hs, end_stream=False)
        self.open.add(sid)
        self.ws_streams[sid] = WSFrames(ConnectionType.CLIENT)
        self._flush()
        return sid

    def ws_send(self, sid, event, end=False):
        self.conn.send_data(sid, self.ws_streams[sid].send(event), end_stream=end)
        self._flush()

    def reset(self, sid):
        self.conn.reset_stream(sid)
        self.open.discard(sid)
        self._flush()

    def pump(self, timeout=1.0, until_done=True, idle=0.04):
        """Read until every open stream ended (or, until_done False, until
        the server stays quiet for ``idle`` seconds), at most ``timeout``."""
        end = time.monotonic() + timeout
        while not self.dead and (self.open or not until_done) and time.monotonic() < end:
            self.sock.settimeout(max(0.01, min(idle, end - time.monotonic())))
            try:
                d = self.sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                self.dead = True
                break
            if not d:
                self.dead = True
                break
            try:
                self._feed(d)
            except h2.exceptions.ProtocolError:
                self.dead = True

    def close(self, goaway=True):
        try:
            if goaway and not self.dead:
                self.conn.close_connection()
                self._flush()
        except (OSError, h2.exceptions.ProtocolError):
            pass
        try:
            self.sock.close()
        except OSError:
            pass


class WS:
    """A WebSocket over HTTP/1.1, wsproto as the client."""

    def __init__(self, port, host, target, tls=False, subprotocols=(), deflate=False, timeout=2.0):
        self.sock = connect(port, tls, ["http/1.1"], timeout)
        self.ws = wsproto.WSConnection(ConnectionType.CLIENT)
        self.accepted = None
        self.closed = False
        self.sock.sendall(self.ws.send(wse.Request(
            host=host, target=target, subprotocols=list(subprotocols),
            extensions=[PerMessageDeflate()] if deflate else [])))
        self._read_until(lambda: self.accepted is not None)

    def _read_until(self, cond, timeout=1.5):
        end = time.monotonic() + timeout
        while not cond() and not self.closed and time.monotonic() < end:
            try:
                d = self.sock.recv(65536)
            except OSError:
                self.closed = True
                break
            try:
                if not d:
                    self.ws.receive_data(None)
                    self.closed = True
                else:
                    self.ws.receive_data(d)
                for ev in self.ws.events():
                    if isinstance(ev, wse.AcceptConnection):
                        self.accepted = True
                    elif isinstance(ev, (wse.RejectConnection, wse.RejectData)):
                        self.accepted = False
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
            except Exception:
                self.closed = True

    got = 0

    def send(self, event, wait_reply=True):
        if self.closed or not self.accepted:
            return
        try:
            self.sock.sendall(self.ws.send(event))
        except Exception:
            self.closed = True
            return
        if wait_reply:
            before = self.got
            self._read_until(lambda: self.got > before, timeout=0.5)

    def close(self, code=1000, clean=True):
        if clean and self.accepted and not self.closed:
            try:
                self.sock.sendall(self.ws.send(wse.CloseConnection(code=code, reason="bye")))
                self._read_until(lambda: False, timeout=0.3)
            except Exception:
                pass
        try:
            self.sock.close()
        except OSError:
            pass


# ---------------------------------------------------------------------------
# a case: config, application, server thread, client steps
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, cid, r, tmp, certs, statsd_port, log):
        self.cid, self.r, self.tmp, self.certs, self.log = cid, r, tmp, certs, log
        self.statsd_port = statsd_port
        self.backend = pick(r, [(1, "asyncio"), (1, "trio")])
        self.notes = []
        self.thread = None
        self.tls = False
        self.ports, self.insecure_ports, self.fd_socks = [], [], []
        self.ready = threading.Event()
        self.stopper = None
        self.error = None
        self.held = []  # client objects left open until the shutdown

    # -- configuration ------------------------------------------------------
    def plan_targets(self):
        self.targets = pick(self.r, [(11, "objects"), (1, "files")])

    def plan(self):
        r = self.r
        self.tls = self.certs is not None and r.random() < 0.15
        self.alpn_h2 = r.random() < 0.8
        n = pick(r, [(6, 1), (3, 2), (1, 3)])
        self.ports = [free_port() for _ in range(n)]
        self.insecure_ports = [free_port() for _ in range(r.randint(1, 2))] if self.tls else []
        self.fd_socks = []
        binds = []
        for p in self.ports:
            if r.random() < 0.15:
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", p))
                self.fd_socks.append(s)
                binds.append("fd://%d" % s.fileno())
            else:
                binds.append(pick(r, [(8, "127.0.0.1:%d"), (1, "localhost:%d")]) % p)
        self.keep_alive = pick(r, [(6, r.uniform(1.0, 5.0)), (2, r.uniform(0.1, 0.4))])
        # (a trio server's read timeout ends the whole server: TooSlowError escapes)
        self.read_timeout = pick(r, [(7 if self.backend == "asyncio" else 30, None),
                                     (2, r.uniform(0.15, 0.5)), (1, 3)])
        self.root_path = pick(r, [(5, ""), (1, "/api")])
        self.server_names = pick(r, [(6, []), (1, ["bench.test"]), (1, ["bench.test", "127.0.0.1"])])
        self.lifespan = pick(r, [(10, "complete"), (5, "unsupported"),
                                 (3 if self.backend == "asyncio" else 0.3, "ignore"), (2, "slow-startup"),
                                 (2, "raise-shutdown"), (2, "raise-after"), (1, "slow-shutdown"),
                                 (1, "unexpected"), (1, "raise-startup"), (0.3, "fail-startup"),
                                 (0.3, "startup-timeout")])
        self.slow_startup = r.uniform(0.01, 0.05)
        self.slow_shutdown = r.uniform(0.01, 0.3)
        self.ws_max = pick(r, [(4, 16 * 1024 * 1024), (1, r.choice([64, 256, 1024]))])
        self.h11_max = pick(r, [(4, 16 * 1024), (1, r.choice([300, 1024, 4096]))])
        self.fmt = pick(r, [(4, None)] + [(1, f) for f in ACCESS_FORMATS])
        self.statsd = self.targets == "objects" and r.random() < 0.2
        self.custom_logger = self.targets == "objects" and not self.statsd and r.random() < 0.15
        if self.fmt and "%(rid)s" in self.fmt and not self.custom_logger:
            self.fmt = ACCESS_FORMATS[0]
        m = {
            "bind": binds,
            "keep_alive_timeout": self.keep_alive,
            # every connection's keep-alive timer outlives its client: the
            # shutdown waits for them this long
            "graceful_timeout": pick(r, [(12, r.uniform(0.01, 0.05)), (2, r.uniform(0.1, 0.2)), (0.4, 1.0)]),
            "h11_max_incomplete_size": self.h11_max,
            "h2_max_concurrent_streams": pick(r, [(4, 100), (1, r.randint(1, 4))]),
            "h2_max_inbound_frame_size": pick(r, [(4, 2 ** 14), (1, 2 ** 15)]),
            "h2_max_header_list_size": pick(r, [(4, 2 ** 16), (1, 1024)]),
            "include_server_header": r.random() < 0.8,
            # (with 1, an application that never reads leaves the protocol
            # blocked on the http.disconnect message: a deadlock)
            "max_app_queue_size": pick(r, [(8, 10), (2, r.randint(2, 3)), (0.2, 1)]),
            "websocket_max_message_size": self.ws_max,
            "backlog": r.choice([16, 100, 128]),
            "startup_timeout": 0.1 if self.lifespan == "startup-timeout" else pick(r, [(3, 60), (1, 5)]),
            "shutdown_timeout": pick(r, [(3, 60), (1, 0.1)]) if self.lifespan == "slow-shutdown" else 60,
            "loglevel": pick(r, [(3, "DEBUG"), (1, "INFO")]),
        }
        if self.lifespan == "startup-timeout":
            self.lifespan = "slow-startup"
            self.slow_startup = 0.3
        if self.read_timeout is not None:
            m["read_timeout"] = self.read_timeout
        if self.root_path:
            m["root_path"] = self.root_path
        if self.server_names:
            m["server_names"] = self.server_names
        if r.random() < 0.2:
            m["websocket_ping_interval"] = r.uniform(0.05, 0.3)
        if r.random() < 0.15:
            m["alt_svc_headers"] = ['h2=":%d"; ma=60' % self.ports[0]]
        if self.fmt:
            m["access_log_format"] = self.fmt
        if self.tls:
            m["certfile"], m["keyfile"] = self.certs
            m["insecure_bind"] = ["127.0.0.1:%d" % p for p in self.insecure_ports]
            m["alpn_protocols"] = ["h2", "http/1.1"] if self.alpn_h2 else ["http/1.1"]
            m["ssl_handshake_timeout"] = r.choice([0.5, 2, 60])
        if self.statsd:
            m["statsd_host"] = "127.0.0.1:%d" % self.statsd_port
            if r.random() < 0.5:
                m["statsd_prefix"] = r.choice(["bench", "web."])
            if r.random() < 0.3:
                m["dogstatsd_tags"] = "env:bench,case:%s" % self.cid
        how = pick(r, [(5, "attrs"), (2, "mapping"), (2, "toml")])
        if how == "mapping":
            config = Config.from_mapping(m)
        elif how == "toml":
            path = os.path.join(self.tmp, "hypercorn.toml")
            with open(path, "w") as fh:
                for k, v in m.items():
                    fh.write("%s = %s\n" % (k, toml_value(v)))
            config = Config.from_toml(path)
        else:
            config = Config()
            for k, v in m.items():
                setattr(config, k, v)
        self.notes.append(how)
        # the logger targets
        acc, err = logging.getLogger("hypercorn.access"), logging.getLogger("hypercorn.error")
        if self.targets == "objects":
            config.accesslog, config.errorlog = acc, err
        else:
            config.accesslog = os.path.join(self.tmp, "access.log")
            config.errorlog = os.path.join(self.tmp, "error.log") if r.random() < 0.7 else err
        if self.custom_logger:
            config.logger_class = BenchLogger
        if self.targets == "files":
            config.log  # hypercorn builds its handlers now; the capture joins the access logger
            acc.addHandler(self.log)
        self.config = config
        self.build_app()

    def build_app(self):
        r = self.r
        app = BenchApp(self)
        style = pick(r, [(8, "asgi3"), (1, "asgi2-class"), (1, "asgi2-function")])
        outer = app
        if style == "asgi2-class":
            outer = asgi2_class(app)
        elif style == "asgi2-function":
            outer = asgi2_function(app)
        self.dispatch = r.random() < 0.15 and self.lifespan in (
            "complete", "slow-startup", "raise-shutdown", "raise-after", "slow-shutdown")
        if self.dispatch:
            wsgi = (AsyncioWSGIMiddleware if self.backend == "asyncio" else TrioWSGIMiddleware)(
                legacy_wsgi, max_body_size=r.choice([64, 2 ** 16]))
            disp = AsyncioDispatcherMiddleware if self.backend == "asyncio" else TrioDispatcherMiddleware
            outer = disp({"/legacy": LegacyMount(wsgi), "": outer})
        self.redirect = self.tls and r.random() < 0.3
        if self.redirect:
            outer = HTTPToHTTPSRedirectMiddleware(outer, r.choice([None, "localhost:%d" % self.ports[0]]))
        self.app = outer
        self.notes += [style, self.lifespan] + (["dispatch"] if self.dispatch else []) + \
            (["redirect"] if self.redirect else [])

    # -- the server thread ----------------------------------------------------
    def start(self):
        self.thread = threading.Thread(target=self._run, name="hypercorn-" + self.cid, daemon=True)
        self.thread.start()
        end = time.monotonic() + 5.0
        want = set(self.ports + self.insecure_ports)
        while time.monotonic() < end and self.thread.is_alive():
            if self.ready.wait(0.003):
                break
            if self.backend == "asyncio" and want <= listening_ports():
                time.sleep(0.003)
                break
        for s in self.fd_socks:
            s.detach()  # hypercorn owns the descriptor now
        self.fd_socks = []
        return self.thread.is_alive()

    def _run(self):
        self.log.owners[threading.get_ident()] = self.cid
        try:
            if self.backend == "asyncio":
                self._run_asyncio()
            else:
                trio.run(self._trio_main)
        except BaseException as e:  # the server's own end: lifespan failures, crashes
            self.error = e
        finally:
            self.ready.set()

    def _run_asyncio(self):
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        stop = asyncio.Event()
        self.stopper = lambda: loop.call_soon_threadsafe(stop.set)
        try:
            loop.run_until_complete(hypercorn.asyncio.serve(self.app, self.config, shutdown_trigger=stop.wait))
        finally:
            try:
                tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
                for t in tasks:
                    t.cancel()
                if tasks:
                    loop.run_until_complete(asyncio.wait(tasks, timeout=1.0))
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                asyncio.set_event_loop(None)
                loop.close()

    async def _trio_main(self):
        token = trio.lowlevel.current_trio_token()
        stop = trio.Event()
        self.stopper = lambda: token.run_sync_soon(stop.set)
        async with trio.open_nursery() as n:
            await n.start(functools.partial(hypercorn.trio.serve, self.app, self.config,
                                            shutdown_trigger=stop.wait))
            self.ready.set()

    def stop(self):
        r = self.r
        for c in self.held:
            if r.random() < 0.5:
                try:
                    c.close()
                except Exception:
                    pass
        if self.stopper is not None and self.thread.is_alive():
            try:
                self.stopper()
            except Exception:
                pass
        # an idle keep-alive connection can hold an asyncio server's
        # shutdown until its client goes away
        self.thread.join(self.config.graceful_timeout + 0.25)
        for c in self.held:
            try:
                c.close()
            except Exception:
                pass
        self.held = []
        self.thread.join(8.0)
        return not self.thread.is_alive()

    # -- client steps -----------------------------------------------------------
    def host_for(self, port, wrong=False):
        if wrong:
            return self.r.choice(["evil.test", "127.0.0.2:%d" % port, ""])
        if self.server_names:
            return "bench.test" if self.r.random() < 0.9 else self.r.choice(self.server_names)
        return "127.0.0.1:%d" % port

    def endpoint(self):
        """A (port, tls) to talk to."""
        r = self.r
        if self.tls:
            if self.insecure_ports and r.random() < 0.3:
                return r.choice(self.insecure_ports), False
            return r.choice(self.ports), True
        return r.choice(self.ports), False

    def path(self, name):
        return self.root_path + name

    def http_target(self):
        r = self.r
        k = pick(r, [(10, "ok"), (5, "text"), (3, "json"), (6, "status"), (4, "stream"), (3, "echo"),
                     (3, "slow"), (1, "large"), (3, "raise"), (2, "raise-late"), (2, "raise-mid"),
                     (2, "empty"), (1, "body-first"), (1, "bad-type"), (1, "bad-header"),
                     (1, "bad-status"), (1, "twice"), (1, "push"), (1, "multi"), (2, "head"),
                     (1, "cookies"), (1, "info"), (2, "missing"), (1, "legacy")])
        if k == "ok":
            return "GET", self.path("/ok?id=%d" % r.randint(1, 999)), None
        if k == "text":
            return "GET", self.path("/text?n=%d" % r.choice([0, 10, 100, 5000])), None
        if k == "json":
            return r.choice(["GET", "GET", "OPTIONS"]), self.path("/json"), None
        if k == "status":
            return r.choice(["GET", "GET", "POST", "DELETE", "PUT"]), self.path("/status/%d" % r.choice(STATUSES)), None
        if k == "stream":
            return "GET", self.path("/stream?chunks=%d%s" % (r.randint(0, 5), r.choice(["", "&gap=1"]))), None
        if k == "echo":
            return r.choice(["POST", "PUT", "PATCH"]), self.path("/echo"), b"e" * r.choice([0, 10, 300, 70000])
        if k == "slow":
            return "GET", self.path("/slow?ms=%d" % r.choice([1, 10, 40])), None
        if k == "large":
            return "GET", self.path("/large?kb=%d" % r.choice([20, 100, 300])), None
        if k == "multi":
            return "GET", self.path("/multi%s" % r.choice(["", "?both=1", "?both=1"])), None
        if k == "head":
            return "HEAD", self.path(r.choice(["/head", "/ok", "/status/404"])), None
        if k == "missing":
            return "GET", r.choice([self.path("/nowhere"), "/outside-root", self.path("/favicon.ico")]), None
        if k == "legacy":
            return r.choice(["GET", "POST"]), self.path("/legacy/%s" % r.choice(["", "hello?x=1", "missing", "crash"])), \
                None
        return "GET", self.path("/" + k), None

    def step(self):
        r = self.r
        kinds = [(10, self.s_keepalive), (4, self.s_close), (2, self.s_http10), (2, self.s_pipeline),
                 (3, self.s_malformed), (2, self.s_disconnect), (1, self.s_slow_client),
                 (4, self.s_websocket), (1, self.s_ws_invalid), (3, self.s_concurrent)]
        if self.alpn_h2 or not self.tls:
            kinds.append((5, self.s_h2))
            kinds.append((1, self.s_h2_ws))
        if self.server_names:
            kinds.append((2, self.s_wrong_host))
        if self.tls:
            kinds.append((1, self.s_tls_plain))
        f = pick(r, kinds)
        t = time.time()
        f()
        if os.environ.get("GEN_DEBUG"):
            self.notes.append("%s:%.2f" % (f.__name__[2:], time.time() - t))

    def s_keepalive(self):
        r = self.r
        port, tls = self.endpoint()
        try:
            c = H1(port, self.host_for(port), tls)
        except OSError:
            return
        for i in range(r.randint(1, 8)):
            m, p, body = self.http_target()
            hs = [("User-Agent", r.choice(AGENTS))] if r.random() < 0.7 else []
            if r.random() < 0.3:
                hs.append(("Referer", "http://bench.test/page/%d" % r.randint(1, 9)))
            if r.random() < 0.3:
                hs.append(("X-Request-Id", "req-%04d" % r.randint(0, 9999)))
            if body is not None:
                hs.append(("Content-Type", r.choice(["text/plain", "application/json"])))
            chunks = r.choice([0, 0, 3]) if body else 0
            c.request(m, p, hs, body, chunks=chunks, expect=body is not None and r.random() < 0.3)
            if c.dead:
                c.close()
                try:
                    c = H1(port, self.host_for(port), tls)
                except OSError:
                    return
        if r.random() < 0.06:
            self.held.append(c)  # idle at the shutdown
        else:
            c.close()

    def s_close(self):
        port, tls = self.endpoint()
        try:
            c = H1(port, self.host_for(port), tls)
        except OSError:
            return
        m, p, body = self.http_target()
        c.request(m, p, [("User-Agent", self.r.choice(AGENTS))], body, close=True)
        c.close()

    def s_http10(self):
        port, tls = self.endpoint()
        m, p, body = self.http_target()
        req = b"%s %s HTTP/1.0\r\n" % (m.encode(), p.encode())
        if self.r.random() < 0.5:
            req += b"Host: %s\r\n" % self.host_for(port).encode()
        if body is not None:
            req += b"Content-Length: %d\r\n\r\n" % len(body) + body
        else:
            req += b"\r\n"
        raw_exchange(port, [req], tls)

    def s_pipeline(self):
        port, tls = self.endpoint()
        host = self.host_for(port).encode()
        reqs = []
        for i in range(self.r.randint(2, 4)):
            m, p, body = self.http_target()
            if body is not None:
                m, body = "GET", None
            reqs.append(b"%s %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (m.encode(), p.encode(), host))
        reqs[-1] = reqs[-1][:-2] + b"Connection: close\r\n\r\n"
        raw_exchange(port, [b"".join(reqs)], tls, wait=1.5)

    def s_malformed(self):
        r = self.r
        port, tls = self.endpoint()
        host = self.host_for(port).encode()
        ok = self.path("/ok").encode()
        k = r.randrange(12)
        if k == 0:
            chunks = [b"GARBAGE\r\n\r\n"]
        elif k == 1:
            chunks = [b"GET %s HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\n\r\n" % (ok, host, b"y" * r.choice([500, 5000, 20000]))]
        elif k == 2:
            chunks = [b"GET %s HTTP/1.1\r\nHost: %s\r\nBroken Header\r\n\r\n" % (ok, host)]
        elif k == 3:
            chunks = [b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: abc\r\n\r\n" % (self.path("/echo").encode(), host)]
        elif k == 4:
            chunks = [b"POST %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n0\r\n\r\n"
                      % (self.path("/echo").encode(), host)]
        elif k == 5:
            chunks = [b"GET /%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (b"a" * r.choice([2000, 20000]), host)]
        elif k == 6:
            chunks = [b"GET %s HTTP/1.1\r\n\r\n" % ok]  # no Host
        elif k == 7:
            chunks = [b"GET %s HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n" % ok]
        elif k == 8:
            chunks = [b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(r.randrange(256) for _ in range(40))]
        elif k == 9:
            chunks = [b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (b"/%ZZ%" + ok, host)]
        elif k == 10:
            chunks = [b"GET %s HTTP/3.0\r\nHost: %s\r\n\r\n" % (ok, host)]
        else:
            chunks = [b"GET %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n"
                      b"Connection: close\r\n\r\n0\r\n\r\n" % (ok, host)]
        raw_exchange(port, chunks, tls, wait=1.0)

    def s_disconnect(self):
        r = self.r
        port, tls = self.endpoint()
        host = self.host_for(port).encode()
        k = r.randrange(4)
        if k == 0:  # the request, then gone before the answer
            p = self.path(r.choice(["/slow?ms=40", "/longpoll?ms=300", "/longpoll?ms=300&late=1", "/stream?chunks=5&gap=1"]))
            raw_exchange(port, [b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (p.encode(), host)], tls,
                         read=False, rst=r.random() < 0.5)
            time.sleep(0.06)
        elif k == 1:  # half a body
            raw_exchange(port, [b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\n\r\nhalf"
                                % (self.path("/echo").encode(), host)], tls, read=False)
            time.sleep(0.03)
        elif k == 2:  # a large response not read
            raw_exchange(port, [b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (self.path("/large?kb=300").encode(), host)],
                         tls, read=False, rst=True)
            time.sleep(0.03)
        else:  # connect and leave
            raw_exchange(port, [], tls, read=False)

    def s_slow_client(self):
        r = self.r
        port, tls = self.endpoint()
        host = self.host_for(port).encode()
        limit = min(self.keep_alive, self.read_timeout or 99)
        if limit > 0.6:  # the server would wait too long: a slow but complete request
            raw_exchange(port, [b"GET %s HT" % self.path("/ok").encode(), b"TP/1.1\r\nHost: %s\r\n" % host,
                                b"Connection: close\r\n\r\n"], tls, pause=0.02)
            return
        if r.random() < 0.5:  # slowloris: headers never end
            raw_exchange(port, [b"GET %s HTTP/1.1\r\n" % self.path("/ok").encode(), b"Host: %s\r\n" % host,
                                b"X-A: 1\r\n"], tls, pause=0.03, wait=limit + 0.5)
        else:  # an idle connection after a request
            try:
                c = H1(port, self.host_for(port), tls, timeout=limit + 0.5)
                c.request("GET", self.path("/ok"))
                drain(c.sock)
                c.close()
            except OSError:
                pass

    def s_concurrent(self):
        r = self.r
        n = r.randint(2, 4)
        jobs = []
        for i in range(n):
            port, tls = self.endpoint()
            jobs.append((port, self.host_for(port), tls) + self.http_target())

        def one(port, host, tls, m, p, body):
            try:
                c = H1(port, host, tls)
                c.request(m, p, [("User-Agent", "bench-concurrent")], body, close=True)
                c.close()
            except OSError:
                pass
        ts = [threading.Thread(target=one, args=j) for j in jobs]
        for t in ts:
            t.start()
        for t in ts:
            t.join(5)

    def s_wrong_host(self):
        port, tls = self.endpoint()
        try:
            c = H1(port, self.host_for(port, wrong=True), tls)
        except OSError:
            return
        c.request("GET", self.path("/ok"), close=True)
        c.close()
        if self.r.random() < 0.5:
            try:
                ws = WS(port, self.host_for(port, wrong=True), self.path("/ws/echo"), tls)
                ws.close()
            except OSError:
                pass

    def s_tls_plain(self):
        raw_exchange(self.r.choice(self.ports), [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"], wait=0.5)

    def ws_target(self):
        r = self.r
        k = pick(r, [(8, "echo"), (2, "reject"), (2, "deny"), (2, "raise"), (1, "nothing"), (2, "raise-after"),
                     (1, "bad-send"), (1, "http-after"), (2, "greet")])
        q = ""
        if k == "deny":
            q = "?status=%d" % r.choice([401, 403, 404, 429])
        elif k == "echo" and r.random() < 0.3:
            q = "?code=%d" % r.choice([1000, 1001, 4001, 4403])
        elif k == "greet":
            q = "?n=%d" % r.randint(0, 4)
        return k, self.path("/ws/%s%s" % (k, q))

    def s_websocket(self):
        r = self.r
        port, tls = self.endpoint()
        k, target = self.ws_target()
        subs = r.choice([(), (), ("chat",), ("chat", "superchat")])
        try:
            ws = WS(port, self.host_for(port), target, tls, subprotocols=subs, deflate=r.random() < 0.3)
        except OSError:
            return
        if ws.accepted:
            for i in range(r.randint(0, 4)):
                if r.random() < 0.2:
                    ws.send(wse.Ping(payload=b"p%d" % i), wait_reply=False)
                elif r.random() < 0.3:
                    ws.send(wse.BytesMessage(data=b"\x00" * r.choice([10, 100, 2000])))
                else:
                    ws.send(wse.TextMessage(data="hello %d " % i + "z" * r.choice([0, 50, 500])))
            if k == "echo" and r.random() < 0.3:
                ws.send(wse.TextMessage(data="close"))
        fin = r.random()
        if fin < 0.08 and ws.accepted:
            self.held.append(ws)  # open at the shutdown
        else:
            ws.close(code=r.choice([1000, 1001, 4000]), clean=fin > 0.3)

    def s_ws_invalid(self):
        r = self.r
        port, tls = self.endpoint()
        host = self.host_for(port).encode()
        p = self.path("/ws/echo").encode()
        k = r.randrange(4)
        if k == 0:  # no key
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Version: 13\r\n\r\n" % (p, host)
        elif k == 1:  # an old version
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n" % (p, host)
        elif k == 2:  # HTTP/1.0
            req = b"GET %s HTTP/1.0\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % (p, host)
        else:  # accepted, then garbage frames
            req = b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % (p, host)
            raw_exchange(port, [req, b"\x8f\x85garbage-frame"], tls, pause=0.02, wait=0.5)
            return
        raw_exchange(port, [req], tls, wait=0.8)

    def s_h2(self):
        r = self.r
        port, tls = self.endpoint()
        mode = "alpn" if tls else pick(r, [(2, "prior"), (1, "upgrade")])
        if tls and not self.alpn_h2:
            return self.s_keepalive()
        try:
            c = H2(port, self.host_for(port), mode, tls, push=r.random() < 0.7,
                   first_path=self.path(r.choice(["/ok", "/json", "/text?n=100", "/status/404", "/raise"])))
        except (OSError, h2.exceptions.ProtocolError):
            return
        try:
            for i in range(r.randint(1, 10)):
                m, p, body = self.http_target()
                if m == "HEAD" and r.random() < 0.5:
                    m = "GET"
                if body is not None and len(body) > 60000:
                    body = body[:30000]
                if r.random() < 0.3:
                    p = self.path("/push?n=%d" % r.randint(1, 2))
                hs = [("user-agent", r.choice(AGENTS) or "h2-bench")]
                if r.random() < 0.3:
                    hs.append(("x-request-id", "h2-%03d" % r.randint(0, 999)))
                sid = c.request(m, p, body, hs)
                if sid is None:
                    break
                if r.random() < 0.1:
                    c.reset(sid)
                if r.random() < 0.3:
                    c.pump(1.0)
            c.pump(1.5)
            fin = r.random()
            if fin < 0.1:
                c.sock.sendall(b"\x00\x00\x08\x07\x00\x00\x00\x00\x01garbage!")  # a bad frame
                c.pump(0.2, until_done=False, idle=0.05)
                c.close(goaway=False)
            elif fin < 0.15:
                self.held.append(c)
            else:
                c.close(goaway=r.random() < 0.7)
        except (OSError, h2.exceptions.ProtocolError, KeyError):
            c.close(goaway=False)

    def s_h2_ws(self):
        r = self.r
        port, tls = self.endpoint()
        if tls and not self.alpn_h2:
            return self.s_websocket()
        try:
            c = H2(port, self.host_for(port), "alpn" if tls else "prior", tls)
            c.pump(0.2, until_done=False, idle=0.03)  # the server's settings (extended CONNECT)
            k, target = self.ws_target()
            sid = c.websocket(target, r.choice([None, "chat"]))
            c.pump(0.3, until_done=False, idle=0.05)
            if sid in c.open:
                for i in range(r.randint(0, 3)):
                    c.ws_send(sid, wse.TextMessage(data="h2 hello %d" % i))
                    c.pump(0.1, until_done=False, idle=0.03)
                if r.random() < 0.6:
                    c.ws_send(sid, wse.CloseConnection(code=1000), end=r.random() < 0.15)
                    c.pump(0.2, until_done=False, idle=0.05)
            c.close()
        except (OSError, h2.exceptions.ProtocolError, KeyError, wsproto.utilities.LocalProtocolError):
            try:
                c.close(goaway=False)
            except Exception:
                pass


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    return "[%s]" % ", ".join(toml_value(x) for x in v)


def reset_loggers():
    for name in ("hypercorn.access", "hypercorn.error"):
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            lg.removeHandler(h)
            if not isinstance(h, _capture.EventLog):
                h.close()
        lg.propagate = True
        lg.setLevel(logging.NOTSET)


def drain_udp(s):
    try:
        while True:
            s.recv(65536)
    except OSError:
        pass


def run_case(i, a, tmp, certs, statsd_port, log, gate, stats):
    cid = "hc-%05d" % i
    r = random.Random("%d-%d" % (a.seed, i))
    cdir = os.path.join(tmp, cid)
    os.makedirs(cdir)
    case = Case(cid, r, cdir, certs, statsd_port, log)
    tc = time.time()
    log.open_case(cid)
    alone = None
    try:
        # the first draws decide whether the case needs the loggers alone
        case.plan_targets()
        alone = case.targets == "files"
        gate.enter(alone)
        case.plan()
        t = time.time()
        started = case.start()
        case.notes.append("start:%.2f" % (time.time() - t))
        if started:
            for _ in range(r.randint(4, 14)):
                if not case.thread.is_alive():
                    break
                case.step()
    except Exception as e:  # a broken case must not stop the generation
        stats.count("errors", type(e).__name__)
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        t = time.time()
        if case.thread is not None and not case.stop():
            stats.count("stuck", "servers")
        case.notes.append("stop:%.2f" % (time.time() - t))
        for s in case.fd_socks:
            s.close()
        if case.error is not None:
            stats.count("errors", "server:" + type(case.error).__name__)
            if os.environ.get("GEN_DEBUG") == "2":
                import traceback
                traceback.print_exception(case.error)
        stats.count("backends", case.backend)
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %s %s %d events %.2fs %s\n" % (
                cid, case.backend, "tls" if case.tls else "tcp", " ".join(case.notes),
                len(log.bufs.get(cid, [])), time.time() - tc,
                type(case.error).__name__ if case.error else ""))
        if alone is not None:
            if alone:
                reset_loggers()
            gate.leave(alone)
        release_ports(case.ports + case.insecure_ports)
        log.close_case(i, cid, case.thread.ident if case.thread is not None else None)
        shutil.rmtree(cdir, ignore_errors=True)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.d = {"errors": {}, "stuck": {}, "backends": {}}

    def count(self, what, key):
        with self.lock:
            self.d[what][key] = self.d[what].get(key, 0) + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=850)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4, help="cases run side by side")
    a = ap.parse_args()
    sys.setswitchinterval(0.0005)  # servers and clients hand the GIL back and forth on every exchange
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    logging.getLogger("trio").setLevel(logging.CRITICAL + 1)
    thread_errors = {}

    def excepthook(args):
        k = args.exc_type.__name__
        thread_errors[k] = thread_errors.get(k, 0) + 1
    threading.excepthook = excepthook
    sys.unraisablehook = lambda args: None
    tmp = tempfile.mkdtemp(prefix="gen_hypercorn_")
    statsd = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    statsd.bind(("127.0.0.1", 0))
    statsd.setblocking(False)
    log = HcLog(hypercorn, a.out, logger_names=["hypercorn"], wrappers=WRAPPERS)
    gate = LoggerGate()
    stats = Stats()
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            run_case(i, a, tmp, certs, statsd.getsockname()[1], log, gate, stats)
            drain_udp(statsd)

    try:
        made = _capture.self_signed_cert(tmp)
        certs = (made["cert"], made["key"]) if made else None
        if only:  # debugging: the skipped cases count as written
            log.done.update({i: [] for i in range(a.cases) if i not in todo})
        workers = [threading.Thread(target=worker, name="bench-worker-%d" % k) for k in range(max(1, a.jobs))]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        log.finish()
        logging.getLogger("hypercorn").setLevel(logging.CRITICAL + 1)  # servers left behind stay quiet
        sys.stderr.write("%s; backends %s; dropped: %d records of no open case, %d emitted outside "
                         "hypercorn; servers that did not stop: %d; case or server exceptions: %s; "
                         "thread exceptions: %s; %.0fs\n"
                         % (log.summary(), stats.d["backends"], log.stray, log.outside,
                            stats.d["stuck"].get("servers", 0), stats.d["errors"] or "none",
                            thread_errors or "none", time.time() - t0))
    finally:
        statsd.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
