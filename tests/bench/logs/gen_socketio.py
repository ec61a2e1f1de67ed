#!/usr/bin/python3
"""Event log of python-socketio (Debian python3-socketio 5.7.2) with
python-engineio (python3-engineio 4.3.4): server and client in one process,
on 127.0.0.1.

    /usr/bin/python3 gen_socketio.py --out .deps/logs/socketio.csv.gz [--cases 650] [--seed 1]
    /usr/bin/python3 gen_socketio.py --repo     # prints the directory to index

Indexed: ``<deps>/dist-packages`` (``--deps``, default ``.deps/corpus/socketio``),
a copy of the ``socketio`` and ``engineio`` directories of Debian's
dist-packages made by ``--repo`` (``.py`` files only).  The code runs from
Debian's own files, which the copy repeats: ``code.filepath`` is
``dist-packages/socketio/server.py``, ``dist-packages/engineio/socket.py``...

A case is one client lifetime against its own server.  The case picks the
variants: a sync server (``socketio.Server``, ``async_mode='threading'``,
served by a threading ``wsgiref`` server: Debian has no simple-websocket, so
it offers long-polling only) or an asyncio one (``socketio.AsyncServer`` on
aiohttp, in a thread running its own event loop), and a sync client
(``socketio.Client``: requests and websocket-client) or an asyncio one
(``socketio.AsyncClient``: aiohttp).  Server options are random (ping
interval and timeout, allowed transports, upgrades, CORS origins, buffer
size, compression, ``always_connect``, ``async_handlers``, a sid cookie), and
so are the client's (transports, namespaces ``/``, ``/chat`` (class-based
namespace), ``/admin`` (auth checked), an unknown one, reconnection delays
and attempts, an Origin header the server may refuse).  Then a script of 2-9
operations: emits with and without acks, ``call`` (waiting for the ack),
``send``, binary payloads, rooms (join, leave, say to a room, close a room),
broadcasts, server-to-client calls, handlers that raise on either side,
events nobody handles, server-side emits and disconnects, client-initiated
disconnects and reconnects, a server restart on the same port (the client
reconnects, or gives up after its attempts), a server that goes away for
good, an asyncio handler that blocks its event loop past the ping timeout, a
raw engine.io client speaking hand-made socket.io packets (some invalid), and
raw HTTP requests with protocol errors (unsupported EIO version, bad
transport, unknown sid, bad JSONP index, websocket without upgrade, PUT,
oversized or undecodable POST payloads, a refused origin, a handshake that
never polls again).  The case ends with the client's disconnect (unless the
script ended it) and the server's shutdown.

Capture: loggers ``socketio.server``, ``socketio.client``,
``engineio.server``, ``engineio.client`` (at INFO, what ``logger=True`` and
``engineio_logger=True`` set; the generator sets the levels first so that
the libraries add no stream handler of their own).  Records come from the
case's threads, the servers' threads and both event loops; each is
attributed to a case by the first frame up its stack whose ``self`` (or
``self.server``, for engine.io sockets) is a server or client created by that
case.  Records of no open case (a thread outliving its case) are dropped and
counted.  The sync server's background threads sleep through
``Server.sleep``, which the generator makes interruptible so that they end
with their case (the service task then logs its "canceled" line, as on a
process shutdown); asyncio servers are shut down by cancelling their tasks.

Wrappers: ``engineio/server.py`` ``_log_error_once`` (logs at ERROR the first
time a key is seen, then at INFO; nothing else), used by both server
variants: the caller (``server.py`` or ``asyncio_server.py``) is the emitter.
"""
import argparse
import asyncio
import contextlib
import io
import logging
import os
import random
import shutil
import socket
import sys
import threading
import time
import warnings
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import engineio  # noqa: E402
import socketio  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PKGS = ("socketio", "engineio")
DIST = os.path.dirname(os.path.realpath(os.path.dirname(socketio.__file__)))
INDEXED = "dist-packages"  # the copy's last component, as Debian's


def prepare_repo(deps):
    """Copy both packages' .py files into <deps>/dist-packages; return that directory."""
    return _capture.copy_packages(DIST, PKGS, os.path.join(deps, INDEXED))


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--cases", type=int, default=650)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deps", default=os.path.join(TOP, ".deps", "corpus", "socketio"))
    ap.add_argument("--repo", action="store_true")
    return ap.parse_args()


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(prepare_repo(parse_args().deps))
    sys.exit(0)

import aiohttp  # noqa: E402,F401  (the asyncio client and server need it)
import requests  # noqa: E402
from aiohttp import web  # noqa: E402

LOGGERS = ["socketio.server", "socketio.client", "engineio.server", "engineio.client"]
WRAPPERS = {("dist-packages/engineio/server.py", "_log_error_once")}
SECRET = "s3cret-token"


# ---------------------------------------------------------------------------
# capture: records attributed to the case owning the logging object
# ---------------------------------------------------------------------------
class Registry:
    def __init__(self):
        self.lock = threading.Lock()
        self.objs = {}  # id(obj) -> (obj, case id)
        self.local = threading.local()  # .cid: the case whose objects this thread is building

    @contextlib.contextmanager
    def building(self, cid):
        """Records of a constructor (its object not registered yet) go to cid."""
        self.local.cid = cid
        try:
            yield
        finally:
            self.local.cid = None

    def add(self, obj, cid):
        with self.lock:
            self.objs[id(obj)] = (obj, cid)

    def drop_case(self, cid):
        with self.lock:
            for k in [k for k, v in self.objs.items() if v[1] == cid]:
                del self.objs[k]

    def case_of(self, obj):
        v = self.objs.get(id(obj))
        return v[1] if v is not None and v[0] is obj else None


REG = Registry()


class SioLog(_capture.EventLog):
    """EventLog over two packages of dist-packages, each record to its case."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.pkg_dirs = [os.path.join(DIST, p) for p in PKGS]
        self.buf = {}
        self.unattributed = 0

    def _rel(self, path):
        rp = self._realpath_cache.get(path)
        if rp is None:
            rp = os.path.realpath(path)
            self._realpath_cache[path] = rp
        for d in self.pkg_dirs:
            if rp.startswith(d + os.sep):
                return rp, INDEXED + "/" + os.path.relpath(rp, DIST).replace(os.sep, "/")
        return rp, None

    def attribute(self):
        f = sys._getframe(2)
        depth = 0
        while f is not None and depth < 40:
            obj = f.f_locals.get("self")
            if obj is not None:
                cid = REG.case_of(obj)
                if cid is None:
                    srv = getattr(obj, "server", None)
                    if srv is not None:
                        cid = REG.case_of(srv)
                if cid is not None:
                    return cid
            f = f.f_back
            depth += 1
        return getattr(REG.local, "cid", None)

    def emit(self, record):
        try:
            ap, rel = self._rel(record.pathname)
            if rel is None:
                return
            cid = self.attribute()
            func, line, wrapped = record.funcName, record.lineno, 0
            if self._is_wrapper(rel, func):
                u = self._unwrap(record)
                if u is None or u[1] is None:
                    return
                ap, rel, func, line = u
                wrapped = 1
            ts = _capture._dt.datetime.fromtimestamp(record.created, _capture._dt.timezone.utc) \
                .isoformat(timespec="microseconds")
            row = [cid, ts, _capture._escape(record.getMessage()), record.levelname, record.name,
                   rel, func, line, self.qn.qualname(ap, line), wrapped]
            with self._lock2:
                rows = self.buf.get(cid)
                if rows is None:
                    self.unattributed += 1
                    if os.environ.get("GEN_DEBUG"):
                        sys.stderr.write("unattributed %s %s:%s %s %s\n" % (
                            cid, rel, line, row[2][:100], threading.current_thread().name))
                else:
                    rows.append(row)
        except Exception:
            self.handleError(record)

    def open_case(self, cid):
        with self._lock2:
            self.buf[cid] = []

    def close_case(self, cid):
        with self._lock2:
            rows = self.buf.pop(cid, [])
            self._rows = rows
        self.end_case()


# ---------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------
class QuietHandler(WSGIRequestHandler):
    """No access log, no tracebacks of the app on stderr; connections tracked."""

    def setup(self):
        super().setup()
        with self.server.conns_lock:
            self.server.conns.add(self.connection)

    def finish(self):
        with self.server.conns_lock:
            self.server.conns.discard(self.connection)
        super().finish()

    def log_message(self, *a):
        pass

    def get_stderr(self):
        return io.StringIO()


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True

    def server_activate(self):
        self.conns = set()
        self.conns_lock = threading.Lock()
        super().server_activate()

    def drop_connections(self):
        """Reset the open connections, as a dying server process would (pending long-polls included)."""
        with self.conns_lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def install_sync(sio, st):
    @sio.event
    def connect(sid, environ, auth):
        if st.reject:
            return False
        sio.enter_room(sid, "lobby")

    @sio.event
    def disconnect(sid):
        pass

    @sio.on("echo")
    def echo(sid, data):
        return data

    @sio.on("join")
    def join(sid, room):
        sio.enter_room(sid, room)
        sio.emit("joined", {"room": room}, to=room)
        return "joined " + room

    @sio.on("leave")
    def leave(sid, room):
        sio.leave_room(sid, room)

    @sio.on("say")
    def say(sid, data):
        sio.emit("said", data, to=data.get("room", "lobby"), skip_sid=sid if data.get("skip") else None)

    @sio.on("shut")
    def shut(sid, room):
        sio.close_room(room)

    @sio.on("broadcast")
    def broadcast(sid, data):
        sio.emit("news", data)

    @sio.on("kick")
    def kick(sid, data=None):
        sio.disconnect(sid)

    @sio.on("fail")
    def fail(sid, data=None):
        raise ValueError("handler failed on %r" % (data,))

    @sio.on("ask")
    def ask(sid, data=None):
        try:
            return sio.call("question", {"q": data}, to=sid, timeout=0.5)
        except Exception as e:
            return "no answer: %s" % type(e).__name__

    @sio.on("binary")
    def binary(sid, data):
        return {"size": len(data), "blob": bytes(reversed(data))}

    @sio.on("block")
    def block(sid, data=None):
        time.sleep(st.block_for)

    class Chat(socketio.Namespace):
        def on_connect(self, sid, environ, auth):
            self.enter_room(sid, "chat-main")

        def on_message(self, sid, data):
            self.send("re: %s" % (data,), to=sid)

        def on_typing(self, sid, data):
            self.emit("typing", {"who": sid}, room="chat-main", skip_sid=sid)

        def on_fail(self, sid, data):
            raise KeyError("chat failure")

    sio.register_namespace(Chat("/chat"))

    @sio.on("connect", namespace="/admin")
    def admin_connect(sid, environ, auth):
        if not auth or auth.get("token") != SECRET:
            raise socketio.exceptions.ConnectionRefusedError("authentication failed")

    @sio.on("stats", namespace="/admin")
    def stats(sid, data=None):
        return {"rooms": len(sio.rooms(sid, namespace="/admin"))}


def install_async(sio, st):
    @sio.event
    async def connect(sid, environ, auth):
        if st.reject:
            return False
        sio.enter_room(sid, "lobby")

    @sio.event
    async def disconnect(sid):
        pass

    @sio.on("echo")
    async def echo(sid, data):
        return data

    @sio.on("join")
    async def join(sid, room):
        sio.enter_room(sid, room)
        await sio.emit("joined", {"room": room}, to=room)
        return "joined " + room

    @sio.on("leave")
    async def leave(sid, room):
        sio.leave_room(sid, room)

    @sio.on("say")
    async def say(sid, data):
        await sio.emit("said", data, to=data.get("room", "lobby"), skip_sid=sid if data.get("skip") else None)

    @sio.on("shut")
    async def shut(sid, room):
        await sio.close_room(room)

    @sio.on("broadcast")
    async def broadcast(sid, data):
        await sio.emit("news", data)

    @sio.on("kick")
    async def kick(sid, data=None):
        await sio.disconnect(sid)

    @sio.on("fail")
    async def fail(sid, data=None):
        raise ValueError("handler failed on %r" % (data,))

    @sio.on("ask")
    async def ask(sid, data=None):
        try:
            return await sio.call("question", {"q": data}, to=sid, timeout=0.5)
        except Exception as e:
            return "no answer: %s" % type(e).__name__

    @sio.on("binary")
    async def binary(sid, data):
        return {"size": len(data), "blob": bytes(reversed(data))}

    @sio.on("block")
    async def block(sid, data=None):
        time.sleep(st.block_for)  # blocks the server's event loop

    class Chat(socketio.AsyncNamespace):
        async def on_connect(self, sid, environ, auth):
            self.enter_room(sid, "chat-main")

        async def on_message(self, sid, data):
            await self.send("re: %s" % (data,), to=sid)

        async def on_typing(self, sid, data):
            await self.emit("typing", {"who": sid}, room="chat-main", skip_sid=sid)

        async def on_fail(self, sid, data):
            raise KeyError("chat failure")

    sio.register_namespace(Chat("/chat"))

    @sio.on("connect", namespace="/admin")
    async def admin_connect(sid, environ, auth):
        if not auth or auth.get("token") != SECRET:
            raise socketio.exceptions.ConnectionRefusedError("authentication failed")

    @sio.on("stats", namespace="/admin")
    async def stats(sid, data=None):
        return {"rooms": len(sio.rooms(sid, namespace="/admin"))}


class ServerState:
    def __init__(self):
        self.reject = False
        self.block_for = 0.0


class SyncHost:
    kind = "sync"
    stopped = False

    def __init__(self, cid, opts, st, port):
        self.cid, self.port = cid, port
        self.closed = False
        with REG.building(cid):
            self.sio = socketio.Server(async_mode="threading", logger=True, engineio_logger=True, **opts)
        eio = self.sio.eio
        eio.sleep = self._sleep  # interruptible: background threads end with the case
        REG.add(self.sio, cid)
        REG.add(eio, cid)
        install_sync(self.sio, st)
        self.httpd = make_server("127.0.0.1", port, socketio.WSGIApp(self.sio),
                                 server_class=ThreadingWSGIServer, handler_class=QuietHandler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       name="wsgi-%s" % cid, daemon=True)
        self.thread.start()

    def _sleep(self, seconds=0):
        end = time.time() + seconds
        while True:
            if self.closed:
                raise SystemExit()
            left = end - time.time()
            if left <= 0:
                return
            time.sleep(min(left, 0.05))

    def do(self, name, *a, **kw):
        return getattr(self.sio, name)(*a, **kw)

    def stop(self):
        self.stopped = True
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd.drop_connections()
        self.closed = True
        time.sleep(0.1)  # the background threads notice within one sleep step


class AsyncHost:
    kind = "async"
    stopped = False

    def __init__(self, cid, opts, st, port):
        self.cid, self.port = cid, port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="aio-%s" % cid, daemon=True)
        self.thread.start()
        with REG.building(cid):
            self.sio = socketio.AsyncServer(async_mode="aiohttp", logger=True, engineio_logger=True, **opts)
        REG.add(self.sio, cid)
        REG.add(self.sio.eio, cid)
        install_async(self.sio, st)
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(5)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _start(self):
        app = web.Application()
        self.sio.attach(app)
        self.runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self.runner.setup()
        self.site = web.TCPSite(self.runner, "127.0.0.1", self.port, shutdown_timeout=0.2)
        await self.site.start()

    def do(self, name, *a, **kw):
        r = getattr(self.sio, name)(*a, **kw)
        if asyncio.iscoroutine(r):
            return asyncio.run_coroutine_threadsafe(r, self.loop).result(3)
        return r

    async def _stop(self):
        try:
            await asyncio.wait_for(self.runner.cleanup(), 2)
        except Exception:
            pass
        me = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not me]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self):
        self.stopped = True
        try:
            asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(5)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.loop.is_running():
            self.loop.close()


# ---------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------
OPS = [("echo", 10), ("call", 6), ("send", 3), ("binary", 3), ("join", 6), ("leave", 3), ("say", 5),
       ("shut", 2), ("broadcast", 3), ("ask", 4), ("fail", 3), ("unhandled", 2), ("chat", 4), ("admin", 3),
       ("server_emit", 4), ("server_kick", 2), ("kick", 2), ("sleep", 3), ("reconnect", 2), ("restart", 3),
       ("vanish", 1), ("block", 1), ("raw_http", 4), ("raw_eio", 3), ("client_boom", 2)]


def pick(r, table):
    tot = sum(w for _, w in table)
    x = r.uniform(0, tot)
    for k, w in table:
        x -= w
        if x <= 0:
            return k
    return table[-1][0]


class Case:
    def __init__(self, cid, rng):
        self.cid = cid
        self.r = rng
        self.hosts = []
        self.st = ServerState()
        self.got = []
        self.events = threading.Event()
        self.ops = []
        self.notes = []  # options, op durations, failures: printed with GEN_DEBUG

    # -- configuration --------------------------------------------------------
    def configure(self):
        r = self.r
        self.server_kind = "async" if r.random() < 0.55 else "sync"
        self.client_kind = "async" if r.random() < 0.5 else "sync"
        o = {}
        o["ping_interval"] = r.choice([0.25, 0.5, 1, 5, 25])
        o["ping_timeout"] = r.choice([0.3, 1, 5, 20])
        if r.random() < 0.15:
            o["transports"] = r.choice([["polling"], ["websocket"]])
        if r.random() < 0.15:
            o["allow_upgrades"] = False
        if r.random() < 0.2:
            o["cors_allowed_origins"] = r.choice([["http://app.example"], "*", []])
        if r.random() < 0.15:
            o["max_http_buffer_size"] = r.choice([200, 2000])
        if r.random() < 0.2:
            o["http_compression"] = r.random() < 0.5
            o["compression_threshold"] = r.choice([0, 100])
        if r.random() < 0.1:
            o["cookie"] = r.choice(["io", {"name": "sid", "path": "/", "SameSite": "Strict"}])
        if r.random() < 0.12:
            o["always_connect"] = True
        if r.random() < 0.15:
            o["async_handlers"] = False
        self.opts = o
        self.notes.append(repr(o))
        self.st.reject = r.random() < 0.04
        c = {}
        c["transports"] = r.choice([None, None, None, ["polling"], ["websocket"], ["polling", "websocket"]])
        ns = ["/"]
        if r.random() < 0.4:
            ns.append("/chat")
        if r.random() < 0.25:
            ns.append("/admin")
        if r.random() < 0.06:
            ns.append("/nope")
        if r.random() < 0.1 and len(ns) > 1:
            ns.remove("/")
        c["namespaces"] = ns
        c["auth"] = {"token": SECRET if r.random() < 0.75 else "wrong"} if r.random() < 0.8 else None
        c["headers"] = {"Origin": r.choice(["http://app.example", "http://evil.example"])} \
            if r.random() < 0.08 else {}
        self.copts = c
        self.reconnection = r.random() < 0.85
        self.reconnection_attempts = r.choice([0, 0, 1, 2, 3])
        self.delay = r.choice([0.1, 0.2])
        # below the delay: a negative wait makes the asyncio client's
        # reconnection loop miss its abort event
        self.jitter = r.choice([0.0, 0.05])

    # -- servers ----------------------------------------------------------------
    def start_server(self, port=None):
        cls = AsyncHost if self.server_kind == "async" else SyncHost
        h = cls(self.cid, self.opts, self.st, port or _free_port())
        self.hosts.append(h)
        self.host = h
        self.port = h.port
        return h

    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def clients_sids(self):
        try:
            return list(self.host.sio.manager.rooms.get("/", {}).get(None, {}).keys())
        except Exception:
            return []

    # -- the client side ----------------------------------------------------------
    def on_event(self, *a):
        self.got.append(a)
        self.events.set()

    def client_kwargs(self):
        return dict(reconnection=self.reconnection, reconnection_attempts=self.reconnection_attempts,
                    reconnection_delay=self.delay, reconnection_delay_max=self.delay * 3,
                    randomization_factor=self.jitter, logger=True, engineio_logger=True, request_timeout=2)

    def script(self):
        r = self.r
        self.ops = [pick(r, OPS) for _ in range(r.randint(2, 9))]
        return self.ops

    def raw_http(self):
        """Protocol errors, sent by hand with requests (its own records are not captured)."""
        r = self.r
        base = self.url() + "/socket.io/"
        k = r.choice(["version", "transport", "sid", "post_sid", "jsonp", "ws_no_upgrade", "put", "origin",
                      "big_post", "bad_payload", "ghost", "options"])
        try:
            if k == "version":
                requests.get(base + "?EIO=3&transport=polling", timeout=2)
            elif k == "transport":
                requests.get(base + "?EIO=4&transport=" + r.choice(["flashsocket", "xhr"]), timeout=2)
            elif k == "sid":
                requests.get(base + "?EIO=4&transport=polling&sid=NoSuchSid%d" % r.randint(1, 99), timeout=2)
            elif k == "post_sid":
                requests.post(base + "?EIO=4&transport=polling&sid=gone%d" % r.randint(1, 99), data="4hi", timeout=2)
            elif k == "jsonp":
                requests.get(base + "?EIO=4&transport=polling&j=x%d" % r.randint(1, 9), timeout=2)
            elif k == "ws_no_upgrade":
                requests.get(base + "?EIO=4&transport=websocket", timeout=2)
            elif k == "put":
                requests.request(r.choice(["PUT", "DELETE", "PATCH"]), base + "?EIO=4&transport=polling", timeout=2)
            elif k == "options":
                requests.options(base + "?EIO=4&transport=polling", timeout=2)
            elif k == "origin":
                requests.get(base + "?EIO=4&transport=polling", headers={"Origin": "http://evil.example"}, timeout=2)
            else:
                h = requests.get(base + "?EIO=4&transport=polling", timeout=2)
                if h.status_code != 200 or '"sid":"' not in h.text:
                    return
                sid = h.text.split('"sid":"')[1].split('"')[0]
                url = base + "?EIO=4&transport=polling&sid=" + sid
                if k == "big_post":
                    requests.post(url, data="4" + "x" * r.choice([500, 5000]), timeout=2)
                elif k == "bad_payload":
                    requests.post(url, data=r.choice(["\x1e\x1e", "9zz", "4a\x1e7b"]), timeout=2)
                elif k == "ghost":
                    # a handshake that never polls again: the server's service task finds it
                    wait = self.opts["ping_interval"] + self.opts["ping_timeout"]
                    if wait <= 2:
                        time.sleep(wait + 0.3)
        except requests.RequestException:
            pass

    def finish(self):
        for h in self.hosts:
            if not h.stopped:
                try:
                    h.stop()
                except Exception:
                    pass


class SyncClientRun:
    """The case's script with a socketio.Client (threads)."""

    def __init__(self, case):
        self.c = case

    def make(self):
        c = self.c
        cl = socketio.Client(**c.client_kwargs())
        REG.add(cl, c.cid)
        REG.add(cl.eio, c.cid)
        for ev in ("joined", "said", "news", "typing", "message"):
            cl.on(ev, c.on_event)
        cl.on("typing", c.on_event, namespace="/chat")
        cl.on("message", c.on_event, namespace="/chat")

        @cl.on("question")
        def question(data):
            return {"answer": 42}

        @cl.on("boom")
        def boom(data=None):
            raise RuntimeError("client handler failed")

        @cl.on("connect_error")
        def connect_error(data):
            c.on_event("connect_error", data)

        if c.r.random() < 0.2:
            cl.on("*", lambda event, *args: c.on_event(event, *args))
        self.cl = cl
        return cl

    def connect(self):
        c = self.c
        try:
            self.cl.connect(c.url(), headers=dict(c.copts["headers"]), auth=c.copts["auth"],
                            transports=c.copts["transports"], namespaces=list(c.copts["namespaces"]),
                            wait_timeout=0.5)
            return True
        except Exception as e:
            c.notes.append("connect failed: %s" % e)
            return False

    def wait_events(self, t=0.3):
        self.c.events.clear()
        self.c.events.wait(t)

    def run(self):
        c, r = self.c, self.c.r
        self.make()
        if not self.connect():
            if c.reconnection and r.random() < 0.3:
                time.sleep(0.05)
                self.connect()
            self.cleanup()
            return
        for op in c.script():
            t = time.time()
            ok = self.op(op)
            c.notes.append("%s:%.2f" % (op, time.time() - t))
            if not ok:
                break
        t = time.time()
        self.cleanup()
        c.notes.append("cleanup:%.2f" % (time.time() - t))

    def op(self, op):
        c, r, cl = self.c, self.c.r, self.cl
        try:
            if op == "echo":
                if r.random() < 0.5:
                    cl.emit("echo", {"n": r.randint(1, 99)}, callback=lambda *a: c.on_event("ack", *a))
                    self.wait_events()
                else:
                    cl.emit("echo", r.choice(["hi", [1, 2, 3], {"a": None}]))
            elif op == "call":
                cl.call(r.choice(["echo", "echo", "nothing-here"]), {"x": r.random() < 0.5}, timeout=0.3)
            elif op == "send":
                cl.send("plain message %d" % r.randint(1, 9), namespace=r.choice(["/", "/chat"]))
            elif op == "binary":
                cl.call("binary", os.urandom(r.choice([8, 300])), timeout=0.5)
            elif op == "join":
                cl.call("join", r.choice(["room-a", "room-b", "lobby"]), timeout=1)
            elif op == "leave":
                cl.emit("leave", r.choice(["room-a", "lobby", "none"]))
            elif op == "say":
                cl.emit("say", {"room": r.choice(["lobby", "room-a"]), "skip": r.random() < 0.5, "text": "hey"})
                self.wait_events(0.2)
            elif op == "shut":
                cl.emit("shut", r.choice(["room-a", "lobby"]))
            elif op == "broadcast":
                cl.emit("broadcast", {"headline": "n%d" % r.randint(1, 9)})
                self.wait_events(0.2)
            elif op == "ask":
                cl.call("ask", r.randint(1, 5), timeout=1)
            elif op == "fail":
                if "/chat" in cl.namespaces and r.random() < 0.4:
                    cl.emit("fail", "x", namespace="/chat")
                else:
                    cl.emit("fail", r.randint(1, 9))
                time.sleep(0.05)
            elif op == "unhandled":
                cl.emit(r.choice(["nobody-listens", "typo_event"]), {"k": 1})
            elif op == "chat":
                ns = "/chat" if "/chat" in cl.namespaces else "/"
                cl.emit("typing", {"t": 1}, namespace=ns)
                cl.send("hello chat", namespace=ns)
                self.wait_events(0.2)
            elif op == "admin":
                cl.call("stats", None, namespace="/admin", timeout=0.5)
            elif op == "server_emit":
                c.host.do("emit", r.choice(["news", "boom", "question"]), {"from": "server"},
                          to=r.choice([None, "lobby", "room-a"]))
                self.wait_events(0.2)
            elif op == "client_boom":
                c.host.do("emit", "boom", {"n": 1})
                time.sleep(0.05)
            elif op == "server_kick":
                sids = c.clients_sids()
                if sids:
                    c.host.do("disconnect", sids[0])
                    time.sleep(0.1)
            elif op == "kick":
                cl.emit("kick")
                time.sleep(0.1)
                return False
            elif op == "sleep":
                time.sleep(r.choice([0.1, 0.3, 0.6]))
            elif op == "reconnect":
                cl.disconnect()
                time.sleep(0.02)
                return self.connect()
            elif op == "restart":
                return self.restart(r.random() < 0.8)
            elif op == "vanish":
                c.host.stop()
                time.sleep(c.delay * 4 + 0.2)
                return False
            elif op == "block":
                if c.host.kind == "async" and c.opts["ping_interval"] + c.opts["ping_timeout"] <= 1.5:
                    c.st.block_for = c.opts["ping_interval"] + c.opts["ping_timeout"] + 0.3
                    cl.emit("block")
                    time.sleep(c.st.block_for + 0.3)
                    c.st.block_for = 0
                    return self.reconnect_after(0.5)
            elif op == "raw_http":
                c.raw_http()
            elif op == "raw_eio":
                self.raw_eio()
        except (socketio.exceptions.SocketIOError, ValueError, RuntimeError, KeyError, OSError):
            pass
        return cl.connected

    def raw_eio(self):
        c, r = self.c, self.c.r
        e = engineio.Client(logger=True, request_timeout=2)
        REG.add(e, c.cid)
        e.on("message", lambda data: c.on_event("raw", data))
        try:
            e.connect(c.url(), engineio_path="socket.io",
                      transports=r.choice([None, ["polling"], ["websocket"]]))
        except Exception:
            return
        try:
            e.send("0" + r.choice(["", "/chat,", "/admin,", "/nope,"]) + "{}")
            for _ in range(r.randint(1, 3)):
                e.send(r.choice(['2["echo","raw"]', '21["echo",1]', '2/admin,["stats"]', '2["say",{}]',
                                 "9garbage", '2/chat,["typing",{}]', "3", '41["late"]', '1/nope,']))
            time.sleep(0.05)
        finally:
            try:
                # a graceful disconnect of a long-polling client waits for its
                # pending poll: up to a ping interval on some servers
                e.disconnect(abort=c.opts["ping_interval"] > 1 or r.random() < 0.5)
            except Exception:
                pass

    def restart(self, back):
        c = self.c
        port = c.port
        c.host.stop()
        time.sleep(c.delay * 1.5)
        if back:
            c.start_server(port)
            return self.reconnect_after(c.delay * 4 + 0.3)
        time.sleep(c.delay * 4 + 0.2)
        return False

    def reconnect_after(self, t):
        end = time.time() + t + 0.5
        while time.time() < end:
            if self.cl.connected:
                return True
            time.sleep(0.02)
        return self.cl.connected

    def cleanup(self):
        """Disconnect, stop the servers (a pending long-poll then returns), wait for the client's threads."""
        cl = self.cl
        try:
            if cl.connected or cl._reconnect_task is not None or cl.eio.state == "connected":
                cl.disconnect()
        except Exception:
            pass
        if cl._reconnect_task is not None and cl._reconnect_abort is not None:
            # disconnect() does not stop a reconnection loop; its abort event
            # does (the client's SIGINT handler sets it)
            cl._reconnect_abort.set()
        threads = [t for t in (cl._reconnect_task, getattr(cl.eio, "read_loop_task", None),
                               getattr(cl.eio, "write_loop_task", None)) if t is not None]
        end = time.time() + 0.3
        for t in threads:
            t.join(max(end - time.time(), 0))
        self.c.finish()
        for t in threads:
            t.join(2)


class AsyncClientRun:
    """The case's script with a socketio.AsyncClient (its own event loop)."""

    def __init__(self, case):
        self.c = case

    def make(self):
        c = self.c
        cl = socketio.AsyncClient(**c.client_kwargs())
        REG.add(cl, c.cid)
        REG.add(cl.eio, c.cid)
        for ev in ("joined", "said", "news", "typing", "message"):
            cl.on(ev, c.on_event)
        cl.on("typing", c.on_event, namespace="/chat")
        cl.on("message", c.on_event, namespace="/chat")

        @cl.on("question")
        async def question(data):
            return {"answer": 42}

        @cl.on("boom")
        async def boom(data=None):
            raise RuntimeError("client handler failed")

        @cl.on("connect_error")
        def connect_error(data):
            c.on_event("connect_error", data)

        if c.r.random() < 0.2:
            cl.on("*", lambda event, *args: c.on_event(event, *args))
        self.cl = cl
        return cl

    async def connect(self):
        c = self.c
        try:
            await self.cl.connect(c.url(), headers=dict(c.copts["headers"]), auth=c.copts["auth"],
                                  transports=c.copts["transports"], namespaces=list(c.copts["namespaces"]),
                                  wait_timeout=0.5)
            return True
        except Exception as e:
            c.notes.append("connect failed: %s" % e)
            return False

    async def wait_events(self, t=0.3):
        self.c.events.clear()
        end = time.time() + t
        while time.time() < end and not self.c.events.is_set():
            await asyncio.sleep(0.01)

    async def host(self, name, *a, **kw):
        return await asyncio.get_running_loop().run_in_executor(None, lambda: self.c.host.do(name, *a, **kw))

    async def run(self):
        c, r = self.c, self.c.r
        self.make()
        if not await self.connect():
            if c.reconnection and r.random() < 0.3:
                await asyncio.sleep(0.05)
                await self.connect()
            await self.cleanup()
            return
        for op in c.script():
            t = time.time()
            ok = await self.op(op)
            c.notes.append("%s:%.2f" % (op, time.time() - t))
            if not ok:
                break
        t = time.time()
        await self.cleanup()
        c.notes.append("cleanup:%.2f" % (time.time() - t))

    async def op(self, op):
        c, r, cl = self.c, self.c.r, self.cl
        try:
            if op == "echo":
                if r.random() < 0.5:
                    await cl.emit("echo", {"n": r.randint(1, 99)}, callback=lambda *a: c.on_event("ack", *a))
                    await self.wait_events()
                else:
                    await cl.emit("echo", r.choice(["hi", [1, 2, 3], {"a": None}]))
            elif op == "call":
                await cl.call(r.choice(["echo", "echo", "nothing-here"]), {"x": r.random() < 0.5}, timeout=0.3)
            elif op == "send":
                await cl.send("plain message %d" % r.randint(1, 9), namespace=r.choice(["/", "/chat"]))
            elif op == "binary":
                await cl.call("binary", os.urandom(r.choice([8, 300])), timeout=0.5)
            elif op == "join":
                await cl.call("join", r.choice(["room-a", "room-b", "lobby"]), timeout=1)
            elif op == "leave":
                await cl.emit("leave", r.choice(["room-a", "lobby", "none"]))
            elif op == "say":
                await cl.emit("say", {"room": r.choice(["lobby", "room-a"]), "skip": r.random() < 0.5, "text": "hey"})
                await self.wait_events(0.2)
            elif op == "shut":
                await cl.emit("shut", r.choice(["room-a", "lobby"]))
            elif op == "broadcast":
                await cl.emit("broadcast", {"headline": "n%d" % r.randint(1, 9)})
                await self.wait_events(0.2)
            elif op == "ask":
                await cl.call("ask", r.randint(1, 5), timeout=1)
            elif op == "fail":
                if "/chat" in cl.namespaces and r.random() < 0.4:
                    await cl.emit("fail", "x", namespace="/chat")
                else:
                    await cl.emit("fail", r.randint(1, 9))
                await asyncio.sleep(0.05)
            elif op == "unhandled":
                await cl.emit(r.choice(["nobody-listens", "typo_event"]), {"k": 1})
            elif op == "chat":
                ns = "/chat" if "/chat" in cl.namespaces else "/"
                await cl.emit("typing", {"t": 1}, namespace=ns)
                await cl.send("hello chat", namespace=ns)
                await self.wait_events(0.2)
            elif op == "admin":
                await cl.call("stats", None, namespace="/admin", timeout=0.5)
            elif op == "server_emit":
                await self.host("emit", r.choice(["news", "boom", "question"]), {"from": "server"},
                                to=r.choice([None, "lobby", "room-a"]))
                await self.wait_events(0.2)
            elif op == "client_boom":
                await self.host("emit", "boom", {"n": 1})
                await asyncio.sleep(0.05)
            elif op == "server_kick":
                sids = c.clients_sids()
                if sids:
                    await self.host("disconnect", sids[0])
                    await asyncio.sleep(0.1)
            elif op == "kick":
                await cl.emit("kick")
                await asyncio.sleep(0.1)
                return False
            elif op == "sleep":
                await asyncio.sleep(r.choice([0.1, 0.3, 0.6]))
            elif op == "reconnect":
                await cl.disconnect()
                await asyncio.sleep(0.02)
                return await self.connect()
            elif op == "restart":
                return await self.restart(r.random() < 0.8)
            elif op == "vanish":
                await asyncio.get_running_loop().run_in_executor(None, c.host.stop)
                await asyncio.sleep(c.delay * 4 + 0.2)
                return False
            elif op == "block":
                if c.host.kind == "async" and c.opts["ping_interval"] + c.opts["ping_timeout"] <= 1.5:
                    c.st.block_for = c.opts["ping_interval"] + c.opts["ping_timeout"] + 0.3
                    await cl.emit("block")
                    await asyncio.sleep(c.st.block_for + 0.3)
                    c.st.block_for = 0
                    return await self.reconnect_after(0.5)
            elif op == "raw_http":
                await asyncio.get_running_loop().run_in_executor(None, c.raw_http)
            elif op == "raw_eio":
                await self.raw_eio()
        except (socketio.exceptions.SocketIOError, ValueError, RuntimeError, KeyError, OSError,
                asyncio.TimeoutError):
            pass
        return cl.connected

    async def raw_eio(self):
        c, r = self.c, self.c.r
        e = engineio.AsyncClient(logger=True, request_timeout=2)
        REG.add(e, c.cid)
        e.on("message", lambda data: c.on_event("raw", data))
        try:
            await e.connect(c.url(), engineio_path="socket.io",
                            transports=r.choice([None, ["polling"], ["websocket"]]))
        except Exception:
            return
        try:
            await e.send("0" + r.choice(["", "/chat,", "/admin,", "/nope,"]) + "{}")
            for _ in range(r.randint(1, 3)):
                await e.send(r.choice(['2["echo","raw"]', '21["echo",1]', '2/admin,["stats"]', '2["say",{}]',
                                       "9garbage", '2/chat,["typing",{}]', "3", '41["late"]', '1/nope,']))
            await asyncio.sleep(0.05)
        finally:
            try:
                await e.disconnect(abort=c.opts["ping_interval"] > 1 or r.random() < 0.5)
            except Exception:
                pass

    async def restart(self, back):
        c = self.c
        port = c.port
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, c.host.stop)
        await asyncio.sleep(c.delay * 1.5)
        if back:
            await loop.run_in_executor(None, c.start_server, port)
            return await self.reconnect_after(c.delay * 4 + 0.3)
        await asyncio.sleep(c.delay * 4 + 0.2)
        return False

    async def reconnect_after(self, t):
        end = time.time() + t + 0.5
        while time.time() < end:
            if self.cl.connected:
                return True
            await asyncio.sleep(0.02)
        return self.cl.connected

    async def cleanup(self):
        """Disconnect, stop the servers (a pending long-poll then returns), wait for the client's tasks."""
        cl = self.cl
        try:
            if cl.connected or cl._reconnect_task is not None or cl.eio.state == "connected":
                await asyncio.wait_for(cl.disconnect(), 2)
        except Exception:
            pass
        if cl._reconnect_task is not None and cl._reconnect_abort is not None:
            # disconnect() does not stop a reconnection loop (which also
            # swallows cancellation); its abort event does
            cl._reconnect_abort.set()
        tasks = [t for t in (cl._reconnect_task, getattr(cl.eio, "read_loop_task", None),
                             getattr(cl.eio, "write_loop_task", None)) if t is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=0.3)
        await asyncio.get_running_loop().run_in_executor(None, self.c.finish)
        tasks = [t for t in tasks if not t.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        try:
            if cl.eio.http is not None and not cl.eio.http.closed:
                await cl.eio.http.close()
        except Exception:
            pass


def run_case(case):
    case.configure()
    case.start_server()
    try:
        if case.client_kind == "sync":
            SyncClientRun(case).run()
        else:
            asyncio.run(AsyncClientRun(case).run())
    finally:
        time.sleep(0.02)
        case.finish()


def main():
    a = parse_args()
    if not a.out:
        sys.exit("--out FILE required")
    prepare_repo(a.deps)
    warnings.simplefilter("ignore")
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    logging.getLogger("aiohttp").setLevel(logging.CRITICAL)
    thread_errors = {}

    def excepthook(args):  # a sync handler raising in its own thread
        if args.exc_type is SystemExit:
            return
        k = args.exc_type.__name__
        thread_errors[k] = thread_errors.get(k, 0) + 1
    threading.excepthook = excepthook
    log = SioLog(socketio, a.out, logger_names=LOGGERS, wrappers=WRAPPERS)
    for n in LOGGERS:  # what logger=True sets; set first so that no stream handler is added
        logging.getLogger(n).setLevel(logging.INFO)
    errors = {}
    t0 = time.time()
    for i in range(a.cases):
        cid = "sio-%05d" % i
        case = Case(cid, random.Random("%d-%d" % (a.seed, i)))
        log.open_case(cid)
        tc = time.time()
        try:
            run_case(case)
        except Exception as e:  # a broken case must not stop the generation
            errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
            if os.environ.get("GEN_DEBUG"):
                import traceback
                traceback.print_exc()
        finally:
            REG.drop_case(cid)
            if os.environ.get("GEN_DEBUG"):
                sys.stderr.write("%s %s/%s %s %s %d events %.2fs\n" % (
                    cid, case.server_kind, case.client_kind, case.copts["transports"], case.notes,
                    len(log.buf.get(cid, [])), time.time() - tc))
            log.close_case(cid)
    log.finish()
    for n in LOGGERS:  # threads outliving their case must not reach logging's last resort handler
        logging.getLogger(n).setLevel(logging.CRITICAL + 1)
    sys.stderr.write("%s; %d records of no open case dropped; cases ended by an exception: %s; "
                     "exceptions in handler threads: %s; %.0fs\n"
                     % (log.summary(), log.unattributed, errors or "none", thread_errors or "none",
                        time.time() - t0))


if __name__ == "__main__":
    main()
