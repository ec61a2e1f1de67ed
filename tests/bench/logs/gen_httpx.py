#!/usr/bin/python3
"""Event log of httpx 0.27.2 with httpcore 1.0.7 (from PyPI, pinned by
``pip/httpx/requirements.txt``), clients in this process against local
servers made for each case, on 127.0.0.1.

    /usr/bin/python3 gen_httpx.py --out .deps/logs/httpx.csv.gz [--cases 600] [--seed 1]
    /usr/bin/python3 gen_httpx.py --repo     # prints the directory to index

Indexed: ``<deps>/httpx-httpcore`` (``--deps``, default ``.deps/corpus/httpx``),
a copy of the ``httpx`` and ``httpcore`` directories of the pinned install in
``<deps>/site-packages`` made by ``--repo`` (``.py`` files only; anyio, also
installed there, is left out).  The code runs from the install, which the
copy repeats: ``code.filepath`` is ``httpx-httpcore/httpx/_client.py``,
``httpx-httpcore/httpcore/_sync/http11.py``...

A case is one client lifetime: a sync ``httpx.Client`` or an asyncio
``httpx.AsyncClient`` as the case draws, with random options: HTTP/1.1 or
HTTP/2 (ALPN over TLS, or prior knowledge over plain TCP), limits (pool size,
keep-alive count and expiry), timeouts (some tiny), an explicit transport
with connect retries, a local address, socket options or a Unix socket, a
proxy (an HTTP proxy forwarding plain requests and tunnelling TLS with
CONNECT, sometimes asking for credentials, or a SOCKS5 proxy, sometimes
refusing the login or the target), event hooks (one may raise for the
status), redirects followed or not with a random limit, basic or digest
auth, cookies, a base URL, TLS with a throw-away certificate made by
``openssl`` and ``verify`` drawn (the certificate file, a directory holding
it, an SSL context, off, or the default bundle, which refuses it; sometimes
through ``SSL_CERT_FILE``).  Its servers are made for it: one server
speaking HTTP/1.1 and HTTP/2 (both over TLS when the case uses TLS, the
protocol chosen by ALPN or by the HTTP/2 preface), that serves well-behaved,
slow, stalled, chunked, redirecting (also in loops and across origins),
authenticating, cookie-setting, closing-early, truncated, malformed and
HTTP/1.0 responses, and over HTTP/2 reset streams, GOAWAY and settings
changes; a raw server that closes, resets, says nothing, trickles its
answer byte by byte or answers garbage; and a closed port that refuses
connections.  Then 2-10 steps: requests read whole or streamed (read to
the end, by lines, raw, partly, or not at all), a few requests at once
(threads, or tasks), pauses past the keep-alive expiry, and requests to
the misbehaving peers.  The client is closed at the end of the case.
Without ``openssl`` the cases use plain HTTP only.

Capture: loggers ``httpx`` and ``httpcore`` at DEBUG.  Everything runs in
this process; the clients' records come from the case's thread (or the
threads it waits for), so ``case_id`` attributes them; a garbage collection
at the end of each case lets response streams left half-read log their end
inside the case.

Wrappers: every httpcore record is made by ``httpcore/_trace.py``'s
``Trace``, a context manager a call site opens as
``with Trace("connect_tcp", logger, request, kwargs) as trace:`` around the
operation it traces.  Its ``__enter__`` logs ``<name>.started`` with the
keyword arguments the caller handed it, its ``__exit__`` logs
``<name>.complete`` with the return value the caller stored in it, or
``<name>.failed`` with the exception; both go through ``trace``, which
renders the message (and hands the event to a request's ``trace``
extension, if any: none here) and calls the logger.  Nothing in the class
does anything but render and emit what its caller gives it, so ``trace``,
``atrace``, ``__enter__``, ``__exit__``, ``__aenter__`` and ``__aexit__`` are
declared wrappers: the emitter is the ``with`` (or ``async with``) line of
the caller in ``_sync/`` or ``_async/``, which logs the same text from its
two variants.  httpx's own records (``HTTP Request: ...``, the TLS context's
set-up) are logged directly.
"""
import argparse
import asyncio
import gc
import http.server
import logging
import os
import random
import select
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PKGS = ("httpx", "httpcore")
INDEXED = "httpx-httpcore"


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deps", default=os.path.join(TOP, ".deps", "corpus", "httpx"))
    ap.add_argument("--repo", action="store_true")
    return ap.parse_args()


def prepare_repo(deps):
    """Copy both packages' .py files into <deps>/httpx-httpcore; return that directory."""
    return _capture.copy_packages(os.path.join(deps, "site-packages"), PKGS,
                                  os.path.join(deps, INDEXED))


ARGS = parse_args()
if ARGS.repo:
    print(prepare_repo(ARGS.deps))
    sys.exit(0)

SITE = os.path.realpath(os.path.join(ARGS.deps, "site-packages"))
sys.path.insert(0, SITE)  # the pinned httpx, httpcore and anyio before anything else
import httpx  # noqa: E402
import httpcore  # noqa: E402

try:
    import h2.config  # noqa: E402
    import h2.connection  # noqa: E402
    import h2.errors  # noqa: E402
    import h2.events  # noqa: E402
    import h2.exceptions  # noqa: E402
    import h2.settings  # noqa: E402
    HAVE_H2 = True
except ImportError:
    HAVE_H2 = False
try:
    import socksio  # noqa: E402,F401
    HAVE_SOCKS = True
except ImportError:
    HAVE_SOCKS = False

TRACE = INDEXED + "/httpcore/_trace.py"
WRAPPERS = {(TRACE, f) for f in ("trace", "atrace", "__enter__", "__exit__", "__aenter__", "__aexit__")}
LOGGERS = ["httpx", "httpcore"]
USER, PASSWORD = "alice", "wonderland"


class HttpxLog(_capture.EventLog):
    """EventLog over the two packages of the install, paths as in the indexed copy."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.pkg_dirs = [os.path.join(SITE, p) for p in PKGS]

    def _rel(self, path):
        rp = self._realpath_cache.get(path)
        if rp is None:
            rp = os.path.realpath(path)
            self._realpath_cache[path] = rp
        for d in self.pkg_dirs:
            if rp.startswith(d + os.sep):
                return rp, INDEXED + "/" + os.path.relpath(rp, SITE).replace(os.sep, "/")
        return rp, None


# ---------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------
class Reply:
    """What a route answers, rendered by the HTTP/1.1 or the HTTP/2 side."""

    def __init__(self, status=200, body=b"", headers=(), action="ok", delay=0.0, reason=None):
        self.status, self.body, self.headers = status, body, list(headers)
        self.action, self.delay, self.reason = action, delay, reason


def route(st, method, target, headers, body):
    """The answer of the case's server to one request (target: path or absolute URI)."""
    u = urllib.parse.urlsplit(target)
    parts = [p for p in u.path.split("/") if p]
    q = dict(urllib.parse.parse_qsl(u.query))
    head = parts[0] if parts else "ok"
    st.hits += 1
    if st.close_every and st.hits % st.close_every == 0:
        close = True
    else:
        close = False
    hdrs = [("Connection", "close")] if close else []
    if head == "ok":
        return Reply(200, b"x" * int(q.get("size", "16")), hdrs + [("Content-Type", "text/plain")])
    if head == "json":
        return Reply(200, b'{"ok": true, "items": [1, 2, 3]}', hdrs + [("Content-Type", "application/json")])
    if head == "lines":
        return Reply(200, b"".join(b"line %d\n" % i for i in range(int(q.get("n", "5")))), hdrs)
    if head == "chunked":
        return Reply(200, b"abcd" * int(q.get("n", "3")), hdrs, action="chunked")
    if head == "slow":
        return Reply(200, b"slow", hdrs, delay=float(q.get("d", "0.1")))
    if head == "stall":  # headers now, the body later
        return Reply(200, b"z" * 64, hdrs, action="stall", delay=float(q.get("d", "0.2")))
    if head == "redirect":
        n = int(parts[1]) if len(parts) > 1 else 1
        code = int(q.get("code", "302"))
        if n <= 0:
            return Reply(200, b"landed", hdrs)
        if q.get("to"):
            loc = q["to"]
        elif q.get("abs"):
            loc = "%s://%s:%d/redirect/%d?code=%d&abs=1" % (st.scheme, q.get("host", "127.0.0.1"), st.port,
                                                              n - 1, code)
        else:
            loc = "/redirect/%d?code=%d" % (n - 1, code)
        return Reply(code, b"", hdrs + [("Location", loc)])
    if head == "loop":
        return Reply(302, b"", hdrs + [("Location", "/loop")])
    if head == "nolocation":
        return Reply(302, b"", hdrs)
    if head == "status":
        code = int(parts[1]) if len(parts) > 1 else 500
        return Reply(code, b"status %d" % code, hdrs)
    if head == "cookie":
        return Reply(200, b"cookies", hdrs + [("Set-Cookie", "session=s%d; Path=/" % st.hits),
                                              ("Set-Cookie", "theme=dark; Path=/; Max-Age=60")])
    if head == "basic":
        auth = headers.get("authorization", "")
        import base64
        want = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
        if auth == want:
            return Reply(200, b"welcome", hdrs)
        return Reply(401, b"who are you", hdrs + [("WWW-Authenticate", 'Basic realm="case"')])
    if head == "digest":
        auth = headers.get("authorization", "")
        if auth.startswith("Digest ") and ('username="%s"' % USER) in auth:
            return Reply(200, b"welcome", hdrs)
        return Reply(401, b"", hdrs + [("WWW-Authenticate",
                                        'Digest realm="case", qop="auth", nonce="n%d", opaque="o1", '
                                        'algorithm=%s' % (st.hits, q.get("alg", "MD5")))])
    if head == "upload":
        return Reply(201, b"got %d bytes" % len(body), hdrs)
    if head == "early":  # answers without reading the body, then closes
        return Reply(413, b"too large", [("Connection", "close")], action="early")
    if head == "close":
        return Reply(200, b"bye", [("Connection", "close")])
    if head == "http10":
        return Reply(200, b"old school", [], action="http10")
    if head == "drop":
        return Reply(action="drop")
    if head == "cut":
        return Reply(200, b"y" * 200, hdrs, action="cut")
    if head == "garbage":
        return Reply(action="garbage:" + q.get("kind", "status"))
    if head == "reset":
        return Reply(action="reset")
    if head == "goaway":
        return Reply(action="goaway")
    if head == "settings":
        return Reply(200, b"settings", hdrs, action="settings")
    if head == "big":
        return Reply(200, b"B" * int(q.get("size", "100000")), hdrs)
    return Reply(404, b"nothing here", hdrs)


GARBAGE = {
    "status": b"HTTP/1.1 2OO OK\r\nContent-Length: 2\r\n\r\nok",
    "header": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBroken header line\r\n\r\nok",
    "text": b"hello there, this is not HTTP\r\n\r\n",
    "length": b"HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\nok",
    "version": b"HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok",
}


class H1(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self):
        st = self.server.st
        if st.proxy_auth and self.server.is_proxy and "Proxy-Authorization" not in self.headers \
                and self.path.startswith("http"):
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        early = urllib.parse.urlsplit(self.path).path.startswith("/early")
        body = b"" if early else self._body()
        rep = route(st, self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        if rep.delay and rep.action != "stall":
            time.sleep(rep.delay)
        a = rep.action
        if a == "drop" or a in ("reset", "goaway"):
            self.close_connection = True
            return
        if a.startswith("garbage:"):
            self.wfile.write(GARBAGE.get(a[8:], GARBAGE["status"]))
            self.close_connection = True
            return
        if a == "http10":
            self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + rep.body)
            self.close_connection = True
            return
        self.send_response(rep.status)
        for k, v in rep.headers:
            self.send_header(k, v)
        if a == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if self.command != "HEAD":
                for i in range(0, len(rep.body), 4):
                    self.wfile.write(b"4\r\n" + rep.body[i:i + 4] + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(rep.body) + (100 if a == "cut" else 0)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if a == "stall":
            self.wfile.flush()
            time.sleep(rep.delay)
        self.wfile.write(rep.body)
        if a in ("cut", "early"):
            self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = handle_any

    def do_CONNECT(self):
        st = self.server.st
        if st.proxy_auth and "Proxy-Authorization" not in self.headers:
            self.send_response(407)
            self.send_header("Proxy-Authenticate", 'Basic realm="proxy"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        host, _, port = self.path.rpartition(":")
        if host not in ("127.0.0.1", "localhost") or st.proxy_deny:
            self.send_response(403 if st.proxy_deny else 502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        try:
            up = socket.create_connection(("127.0.0.1", int(port)), timeout=2)
        except OSError:
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        pipe(self.connection, up)


def pipe(a, b, limit=5.0):
    """Copy bytes both ways until either side closes (or the time runs out)."""
    end = time.time() + limit
    socks = [a, b]
    try:
        while time.time() < end:
            r, _, _ = select.select(socks, [], [], 0.1)
            for s in r:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        try:
            b.close()
        except OSError:
            pass


def h2_serve(sock, srv):
    """A small HTTP/2 server side for one connection, each stream answered in its own thread."""
    st = srv.st
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False,
                                                                       header_encoding="utf-8"))
    settings = {}
    if st.h2_max_streams:
        settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS] = st.h2_max_streams
    conn.initiate_connection()
    if settings:
        conn.update_settings(settings)
    lock = threading.Lock()
    window = threading.Condition(lock)
    dead = []

    def flush():
        data = conn.data_to_send()
        if data:
            sock.sendall(data)

    with lock:
        flush()
    reqs, bodies = {}, {}

    def respond(sid, headers, body):
        rep = route(st, headers.get(":method", "GET"), headers.get(":path", "/"), headers, body)
        if rep.delay and rep.action != "stall":
            time.sleep(rep.delay)
        a = rep.action
        try:
            with lock:
                if dead:
                    return
                if a == "drop" or a.startswith("garbage:"):
                    dead.append(1)
                    sock.shutdown(socket.SHUT_RDWR)
                    return
                if a == "reset":
                    conn.reset_stream(sid, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
                    flush()
                    return
                if a == "goaway":
                    conn.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=sid - 2)
                    flush()
                    return
                if a == "settings":
                    conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 3,
                                          h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 32768})
                hs = [(":status", str(rep.status))] + [(k.lower(), v) for k, v in rep.headers
                                                      if k.lower() != "connection"]
                hs.append(("content-length", str(len(rep.body) + (100 if a == "cut" else 0))))
                conn.send_headers(sid, hs, end_stream=headers.get(":method") == "HEAD")
                flush()
            if headers.get(":method") == "HEAD":
                return
            if a == "stall":
                time.sleep(rep.delay)
            data = rep.body
            while data:
                with lock:
                    while not dead and min(conn.local_flow_control_window(sid),
                                           conn.max_outbound_frame_size) <= 0:
                        if not window.wait(1.0):
                            return
                    if dead:
                        return
                    n = min(len(data), conn.local_flow_control_window(sid), conn.max_outbound_frame_size)
                    conn.send_data(sid, data[:n])
                    data = data[n:]
                    flush()
            with lock:
                if a == "cut":
                    dead.append(1)
                    sock.shutdown(socket.SHUT_RDWR)
                    return
                conn.end_stream(sid)
                flush()
        except (h2.exceptions.H2Error, OSError, KeyError):
            pass

    sock.settimeout(0.2)
    idle_until = time.time() + 1.5
    while not dead and not srv.stopped and time.time() < idle_until:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not data:
            break
        idle_until = time.time() + 1.5
        with lock:
            try:
                events = conn.receive_data(data)
            except h2.exceptions.H2Error:
                break
            for ev in events:
                if isinstance(ev, h2.events.RequestReceived):
                    reqs[ev.stream_id] = dict(ev.headers)
                    bodies[ev.stream_id] = b""
                elif isinstance(ev, h2.events.DataReceived):
                    bodies[ev.stream_id] = bodies.get(ev.stream_id, b"") + ev.data
                    conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                elif isinstance(ev, h2.events.StreamEnded):
                    t = threading.Thread(target=respond, daemon=True,
                                         args=(ev.stream_id, reqs.pop(ev.stream_id, {}),
                                               bodies.pop(ev.stream_id, b"")))
                    t.start()
                elif isinstance(ev, h2.events.WindowUpdated):
                    window.notify_all()
                elif isinstance(ev, h2.events.ConnectionTerminated):
                    dead.append(1)
            try:
                flush()
            except OSError:
                break
    with lock:
        dead.append(1)
        window.notify_all()


class CaseState:
    """Server-side knobs of one case, shared by its servers."""

    def __init__(self, r):
        self.hits = 0
        self.close_every = pick(r, [(6, 0), (1, 2), (1, 3)])
        self.h2_max_streams = pick(r, [(4, None), (1, 1), (1, 2)])
        self.proxy_auth = False
        self.proxy_deny = False
        self.socks_mode = "ok"
        self.scheme = "http"
        self.port = 0


class Server:
    """Accepts on 127.0.0.1 (or a Unix socket); each connection in its own thread.

    kind: 'http' (HTTP/1.1 and HTTP/2 by ALPN or preface), 'raw:MODE'
    (misbehaving), 'socks' (a SOCKS5 proxy)."""

    def __init__(self, st, kind="http", tls=None, unix=None, is_proxy=False):
        self.st, self.kind, self.tls, self.is_proxy = st, kind, tls, is_proxy
        self.stopped = False
        self.conns = set()
        self.lock = threading.Lock()
        if unix:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(unix)
            self.port = 0
        else:
            self.sock = socket.socket()
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
        self.sock.listen(64)
        self.sock.settimeout(0.05)
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stopped:
            try:
                c, addr = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.conns.add(c)
            threading.Thread(target=self.serve, args=(c, addr), daemon=True).start()

    def serve(self, c, addr):
        try:
            c.settimeout(1.5)  # an idle or stuck peer is let go soon
            if self.kind.startswith("raw:"):
                self.raw(c, self.kind[4:])
            elif self.kind == "socks":
                self.socks(c)
            else:
                self.http(c, addr)
        except Exception:
            pass
        finally:
            with self.lock:
                self.conns.discard(c)
            try:
                c.close()
            except OSError:
                pass

    def http(self, c, addr):
        s = c
        if self.tls is not None:
            try:
                s = self.tls.wrap_socket(c, server_side=True)
            except (ssl.SSLError, OSError):
                return
            with self.lock:
                self.conns.add(s)
            proto = s.selected_alpn_protocol()
            if proto == "h2" and HAVE_H2:
                try:
                    h2_serve(s, self)
                finally:
                    with self.lock:
                        self.conns.discard(s)
                    s.close()
                return
        elif HAVE_H2:
            try:
                head = c.recv(3, socket.MSG_PEEK)
            except OSError:
                return
            if head == b"PRI":
                h2_serve(c, self)
                return
        try:
            H1(s, addr if addr else ("unix", 0), self)
        finally:
            if s is not c:  # the TLS socket took over the descriptor
                with self.lock:
                    self.conns.discard(s)
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def raw(self, c, mode):
        if mode == "close":
            return
        if mode == "reset":
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        c.settimeout(0.1)
        end = time.time() + (0.6 if mode == "silent" else 0.3)
        got = b""
        while time.time() < end and not self.stopped and b"\r\n\r\n" not in got:
            try:
                d = c.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if not d:
                return
            got += d
        if mode == "silent":
            while time.time() < end and not self.stopped:
                time.sleep(0.05)
            return
        if mode == "trickle":
            for b in b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello":
                c.sendall(bytes([b]))
                time.sleep(0.01)
            return
        c.sendall(GARBAGE.get(mode, GARBAGE["text"]))

    def socks(self, c):
        st = self.st
        f = c.makefile("rb")
        ver, n = f.read(2)
        methods = f.read(n)
        if st.socks_mode in ("auth", "badauth") and 2 in methods:
            c.sendall(b"\x05\x02")
            f.read(1)
            u = f.read(f.read(1)[0])
            p = f.read(f.read(1)[0])
            ok = st.socks_mode == "auth" and u == USER.encode() and p == PASSWORD.encode()
            c.sendall(b"\x01\x00" if ok else b"\x01\x01")
            if not ok:
                return
        elif st.socks_mode in ("auth", "badauth"):
            c.sendall(b"\x05\xff")
            return
        else:
            c.sendall(b"\x05\x00")
        ver, cmd, _, atyp = f.read(4)
        if atyp == 1:
            host = socket.inet_ntoa(f.read(4))
        elif atyp == 3:
            host = f.read(f.read(1)[0]).decode()
        else:
            host = socket.inet_ntop(socket.AF_INET6, f.read(16))
        port = struct.unpack("!H", f.read(2))[0]
        if st.socks_mode == "refuse" or host not in ("127.0.0.1", "localhost"):
            c.sendall(b"\x05\x05\x00\x01" + socket.inet_aton("0.0.0.0") + b"\x00\x00")
            return
        try:
            up = socket.create_connection(("127.0.0.1", port), timeout=2)
        except OSError:
            c.sendall(b"\x05\x05\x00\x01" + socket.inet_aton("0.0.0.0") + b"\x00\x00")
            return
        c.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack("!H", port))
        pipe(c, up)

    def stop(self):
        self.stopped = True
        try:
            self.sock.close()
        except OSError:
            pass
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(1)


def make_cert(tmp):
    """A throw-away self-signed certificate for localhost and 127.0.0.1 (None without openssl)."""
    if not shutil.which("openssl"):
        return None
    key, crt = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    r = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", key, "-out", crt], capture_output=True)
    if r.returncode:
        return None
    both = os.path.join(tmp, "both.pem")
    with open(both, "w") as fh:
        fh.write(open(crt).read() + open(key).read())
    capath = os.path.join(tmp, "capath")
    os.makedirs(capath)
    h = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", crt], capture_output=True, text=True)
    if h.returncode == 0:
        shutil.copyfile(crt, os.path.join(capath, h.stdout.strip() + ".0"))
    return {"crt": crt, "key": key, "both": both, "capath": capath}


def pick(r, table):
    return _capture.pick(r, table)


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, cid, r, cert, tmp):
        self.cid, self.r, self.cert, self.tmp = cid, r, cert, tmp
        self.servers = []
        self.notes = []

    def setup(self):
        r = self.r
        st = self.st = CaseState(r)
        self.kind = "async" if r.random() < 0.5 else "sync"
        self.tls = bool(self.cert) and r.random() < 0.45
        self.http2 = HAVE_H2 and r.random() < 0.45
        self.prior = self.http2 and not self.tls and r.random() < 0.6
        tls_ctx = None
        if self.cert:
            tls_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls_ctx.load_cert_chain(self.cert["crt"], self.cert["key"])
            tls_ctx.set_alpn_protocols(["h2", "http/1.1"] if HAVE_H2 and r.random() < 0.8 else ["http/1.1"])
        st.scheme = "https" if self.tls else "http"
        self.main = Server(st, "http", tls_ctx if self.tls else None)
        st.port = self.main.port
        self.servers.append(self.main)
        # the other scheme, for cross-scheme redirects and mismatches
        self.other = Server(st, "http", None if self.tls else tls_ctx)
        self.servers.append(self.other)
        self.raw = {m: None for m in ("close", "reset", "silent", "trickle", "text", "status", "header")}
        self.dead = _capture.free_port()
        self.uds = None
        if r.random() < 0.08 and not self.tls:
            self.uds = os.path.join(self.tmp, "%s.sock" % self.cid)
            self.servers.append(Server(st, "http", None, unix=self.uds))
        self.host = pick(r, [(3, "127.0.0.1"), (2, "localhost")])
        self.base = "%s://%s:%d" % (st.scheme, self.host, self.main.port)
        self.proxy = None
        pk = pick(r, [(6, None), (2, "http"), (1, "http-auth"), (1, "socks" if HAVE_SOCKS else None),
                      (0.3, "refused")])
        if pk in ("http", "http-auth"):
            st.proxy_auth = pk == "http-auth" and r.random() < 0.7
            st.proxy_deny = r.random() < 0.1
            ps = Server(st, "http", is_proxy=True)
            self.servers.append(ps)
            cred = "%s:%s@" % (USER, PASSWORD) if pk == "http-auth" and r.random() < 0.6 else ""
            self.proxy = "http://%s127.0.0.1:%d" % (cred, ps.port)
        elif pk == "socks":
            st.socks_mode = pick(r, [(5, "ok"), (1, "auth"), (1, "badauth"), (1, "refuse")])
            ps = Server(st, "socks")
            self.servers.append(ps)
            cred = "%s:%s@" % (USER, PASSWORD) if st.socks_mode in ("auth", "badauth") else ""
            if st.socks_mode == "badauth":
                cred = "%s:wrong@" % USER
            self.proxy = "socks5://%s127.0.0.1:%d" % (cred, ps.port)
        elif pk == "refused":
            self.proxy = "http://127.0.0.1:%d" % _capture.free_port()

    def raw_url(self, mode):
        if self.raw[mode] is None:
            s = Server(self.st, "raw:" + mode)
            self.servers.append(s)
            self.raw[mode] = s
        return "http://127.0.0.1:%d/raw" % self.raw[mode].port

    # -- client options ---------------------------------------------------
    def verify(self):
        r = self.r
        if not self.cert:
            return True
        return pick(r, [(4, self.cert["crt"]), (1, self.cert["capath"]), (2, "ctx"), (2, False),
                        (1, True), (0.3, os.path.join(self.tmp, "missing.pem"))])

    def client_kwargs(self):
        r = self.r
        kw = {}
        v = self.verify()
        if v == "ctx":
            ctx = ssl.create_default_context(cafile=self.cert["crt"])
            if r.random() < 0.3:
                ctx = ssl.create_default_context()  # the system's trust store: refuses ours
            v = ctx
        self.env_bundle = False
        if v is True and self.cert and r.random() < 0.5:
            self.env_bundle = True  # SSL_CERT_FILE names ours, read when trust_env
        kw["verify"] = v
        if r.random() < 0.15 and self.cert:
            kw["cert"] = pick(r, [(1, self.cert["both"]), (1, (self.cert["crt"], self.cert["key"]))])
        if r.random() < 0.2:
            kw["trust_env"] = False
        kw["http2"] = self.http2
        limits = {}
        if r.random() < 0.5:
            limits["max_connections"] = pick(r, [(2, 1), (2, 2), (1, 10), (1, None)])
        if r.random() < 0.4:
            limits["max_keepalive_connections"] = pick(r, [(1, 0), (2, 1), (1, 5)])
        if r.random() < 0.4:
            limits["keepalive_expiry"] = pick(r, [(1, 0.05), (1, 0.3), (1, 5.0), (1, None)])
        if limits:
            kw["limits"] = httpx.Limits(**limits)
        if r.random() < 0.6:
            kw["timeout"] = httpx.Timeout(pick(r, [(3, 2.0), (1, 0.25), (1, 5.0)]),
                                          connect=pick(r, [(3, 1.0), (1, 0.2)]),
                                          pool=pick(r, [(2, 0.1), (2, 1.0), (1, 0.02)]))
        kw["follow_redirects"] = r.random() < 0.6
        if r.random() < 0.3:
            kw["max_redirects"] = pick(r, [(1, 1), (1, 3), (1, 5)])
        if r.random() < 0.3:
            kw["cookies"] = {"preset": "1", "lang": "en"}
        if r.random() < 0.3:
            kw["headers"] = {"User-Agent": "case/%s" % self.cid, "X-Case": self.cid}
        if r.random() < 0.4:
            kw["base_url"] = self.base
        auth = pick(r, [(5, None), (2, "basic"), (1, "tuple"), (2, "digest"), (1, "wrong")])
        if auth == "basic":
            kw["auth"] = httpx.BasicAuth(USER, PASSWORD)
        elif auth == "tuple":
            kw["auth"] = (USER, PASSWORD)
        elif auth == "digest":
            kw["auth"] = httpx.DigestAuth(USER, PASSWORD)
        elif auth == "wrong":
            kw["auth"] = httpx.DigestAuth("mallory", "guess") if r.random() < 0.5 else ("mallory", "guess")
        self.hooks = pick(r, [(4, None), (2, "log"), (1, "raise")])
        # an explicit transport: retries, local address, socket options, a Unix socket
        self.transport_kw = None
        if self.uds or r.random() < 0.4:
            t = {"retries": pick(r, [(2, 0), (3, 1), (2, 2)])}
            if self.uds:
                t["uds"] = self.uds
            if r.random() < 0.3:
                t["local_address"] = "127.0.0.1" if self.host == "127.0.0.1" or r.random() < 0.5 else "0.0.0.0"
            if r.random() < 0.3:
                t["socket_options"] = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            if self.prior:
                t["http1"] = False
            self.transport_kw = t
        elif self.prior:
            self.transport_kw = {"http1": False, "retries": 0}
        if self.proxy and (self.uds is None):
            if self.transport_kw is not None:
                self.transport_kw["proxy"] = self.proxy
            else:
                kw["proxy"] = self.proxy
        return kw

    # -- the script -------------------------------------------------------
    def path(self):
        r = self.r
        return pick(r, [
            (14, "/ok?size=%d" % r.choice([0, 16, 512, 4096])),
            (3, "/json"),
            (3, "/lines?n=%d" % r.randint(1, 8)),
            (4, "/chunked?n=%d" % r.randint(1, 6)),
            (4, "/redirect/%d?code=%d%s" % (r.randint(1, 3), r.choice([301, 302, 303, 307, 308]),
                                           r.choice(["", "&abs=1", "&abs=1&host=localhost"]))),
            (1, "/redirect/1?to=%s" % urllib.parse.quote(
                "%s://127.0.0.1:%d/ok" % ("http" if self.tls else "https", self.other.port), safe="")),
            (1, "/loop"), (0.5, "/nolocation"),
            (3, "/status/%d" % r.choice([400, 401, 403, 404, 418, 429, 500, 502, 503])),
            (2, "/slow?d=%.2f" % r.choice([0.05, 0.15, 0.4])),
            (2, "/stall?d=%.2f" % r.choice([0.05, 0.3])),
            (2, "/cookie"), (2, "/basic"), (2, "/digest%s" % r.choice(["", "?alg=SHA-256", "?alg=MD5-SESS"])),
            (2, "/close"), (1, "/http10"), (2, "/drop"), (2, "/cut"),
            (1, "/garbage?kind=%s" % r.choice(sorted(GARBAGE))),
            (1.5 if self.http2 else 0.3, "/reset"), (1 if self.http2 else 0.2, "/goaway"),
            (1.5 if self.http2 else 0.2, "/settings"),
            (1, "/big?size=%d" % r.choice([70000, 200000])),
            (1, "/missing"),
        ])

    def request(self):
        r = self.r
        k = r.random()
        if k < 0.04:
            url = "http://127.0.0.1:%d/ok" % self.dead  # refused
        elif k < 0.10:
            url = self.raw_url(pick(r, [(2, "close"), (1, "reset"), (1, "silent"), (1, "trickle"),
                                        (1, "text"), (1, "status"), (1, "header")]))
        elif k < 0.13:
            # the other scheme's server: TLS to a plain port, plain to a TLS port
            url = "%s://127.0.0.1:%d/ok" % ("https" if not self.tls and self.cert and r.random() < 0.5
                                           else "http", self.other.port if r.random() < 0.5 else self.main.port)
        else:
            url = self.base + self.path()
        method = pick(r, [(10, "GET"), (2, "POST"), (1, "PUT"), (1, "HEAD"), (1, "DELETE"), (0.5, "PATCH")])
        kw = {}
        if method in ("POST", "PUT", "PATCH"):
            body = pick(r, [(2, "content"), (2, "json"), (1, "data"), (1, "files"), (1, "stream")])
            if body == "content":
                kw["content"] = b"p" * r.choice([5, 300, 20000])
            elif body == "json":
                kw["json"] = {"n": r.randint(1, 9), "tags": ["a", "b"]}
            elif body == "data":
                kw["data"] = {"field": "value", "other": "x"}
            elif body == "files":
                kw["files"] = {"upload": ("notes.txt", b"file body\n" * 20, "text/plain")}
            else:
                kw["stream"] = r.randint(1, 4)
            if r.random() < 0.4:
                url = self.base + pick(r, [(2, "/upload"), (1, "/early")])
        if r.random() < 0.15:
            kw["follow_redirects"] = not self.r.random() < 0.5
        if r.random() < 0.1:
            kw["timeout"] = pick(r, [(1, 0.1), (1, 0.02), (1, None)])
        if r.random() < 0.1:
            kw["params"] = {"q": "search term", "page": r.randint(1, 3)}
        if r.random() < 0.08 and url.startswith("https"):
            kw["extensions"] = {"sni_hostname": r.choice(["wrong.example", "localhost"])}
        read = pick(r, [(8, "read"), (2, "stream"), (1, "lines"), (1, "raw"), (1, "part"), (1, "noread")])
        return {"method": method, "url": url, "kw": kw, "read": read, "raise": r.random() < 0.15}

    def script(self):
        r = self.r
        steps = []
        for _ in range(r.randint(2, 10)):
            k = pick(r, [(12, "req"), (2, "many"), (1, "pause"), (1, "send")])
            if k == "req":
                steps.append(("req", self.request()))
            elif k == "many":
                steps.append(("many", [self.request() for _ in range(r.randint(2, 4))]))
            elif k == "pause":
                steps.append(("pause", r.choice([0.05, 0.35])))
            else:
                steps.append(("send", self.request()))
        return steps

    def stop(self):
        for s in self.servers:
            s.stop()
        _capture.release_ports([self.dead])


def body_iter(n):
    for i in range(n):
        yield b"chunk-%d;" % i


async def abody_iter(n):
    for i in range(n):
        yield b"chunk-%d;" % i


ERRORS = (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError, httpcore.ConnectionNotAvailable,
          ssl.SSLError, OSError, ValueError, RuntimeError, KeyError, TypeError)


def open_client(c, make, kw):
    """The case's client, made by make (the sync or the async driver's) from
    kw, with SSL_CERT_FILE set while it is made when the case draws that;
    None when it cannot be made (noted in the case)."""
    env = c.env_bundle
    if env:
        os.environ["SSL_CERT_FILE"] = c.cert["crt"]
    try:
        return make(kw)
    except ERRORS as e:
        c.notes.append("client: %s" % type(e).__name__)
        return None
    finally:
        if env:
            os.environ.pop("SSL_CERT_FILE", None)

class SyncRun:
    def __init__(self, case):
        self.c = case

    def make(self, kw):
        c = self.c
        if c.hooks:
            def on_request(request):
                request.headers["X-Hooked"] = "1"

            def on_response(response):
                if c.hooks == "raise":
                    response.read()
                    response.raise_for_status()
            kw["event_hooks"] = {"request": [on_request], "response": [on_response]}
        if c.transport_kw is not None:
            t = dict(c.transport_kw)
            for k in ("verify", "cert", "http2", "limits", "trust_env"):
                if k in kw:
                    t[k] = kw.pop(k)
            kw["transport"] = httpx.HTTPTransport(**t)
        return httpx.Client(**kw)

    def one(self, cl, q, send=False):
        kw = dict(q["kw"])
        if "stream" in kw:
            kw["content"] = body_iter(kw.pop("stream"))
        t0 = time.time()
        try:
            if send:
                fr = kw.pop("follow_redirects", None)
                kw.pop("timeout", None)
                req = cl.build_request(q["method"], q["url"], **kw)
                resp = cl.send(req, stream=q["read"] != "read", follow_redirects=fr if fr is not None
                               else cl.follow_redirects)
                self.consume(resp, q["read"])
            elif q["read"] == "read":
                resp = cl.request(q["method"], q["url"], **kw)
                if q["raise"]:
                    resp.raise_for_status()
            else:
                with cl.stream(q["method"], q["url"], **kw) as resp:
                    self.consume(resp, q["read"])
        except ERRORS as e:
            self.c.notes.append(type(e).__name__)
        if time.time() - t0 > 1:  # what makes a case slow (shown with GEN_DEBUG)
            self.c.notes.append("slow %s %s %.1fs" % (q["method"], q["url"], time.time() - t0))

    def consume(self, resp, how):
        try:
            if how == "stream":
                for _ in resp.iter_bytes(chunk_size=1024):
                    pass
            elif how == "lines":
                for _ in resp.iter_lines():
                    pass
            elif how == "raw":
                for _ in resp.iter_raw():
                    pass
            elif how == "part":
                for _ in resp.iter_bytes(chunk_size=8):
                    break
            elif how == "read":
                resp.read()
        finally:
            resp.close()

    def run(self):
        c = self.c
        kw = c.client_kwargs()
        steps = c.script()
        cl = open_client(c, self.make, kw)
        if cl is None:
            return
        try:
            for kind, arg in steps:
                if kind == "req":
                    self.one(cl, arg)
                elif kind == "send":
                    self.one(cl, arg, send=True)
                elif kind == "pause":
                    time.sleep(arg)
                else:
                    ts = [threading.Thread(target=self.one, args=(cl, q)) for q in arg]
                    for t in ts:
                        t.start()
                    for t in ts:
                        t.join(10)
        finally:
            cl.close()


class AsyncRun:
    def __init__(self, case):
        self.c = case

    def make(self, kw):
        c = self.c
        if c.hooks:
            async def on_request(request):
                request.headers["X-Hooked"] = "1"

            async def on_response(response):
                if c.hooks == "raise":
                    await response.aread()
                    response.raise_for_status()
            kw["event_hooks"] = {"request": [on_request], "response": [on_response]}
        if c.transport_kw is not None:
            t = dict(c.transport_kw)
            for k in ("verify", "cert", "http2", "limits", "trust_env"):
                if k in kw:
                    t[k] = kw.pop(k)
            kw["transport"] = httpx.AsyncHTTPTransport(**t)
        return httpx.AsyncClient(**kw)

    async def one(self, cl, q, send=False):
        kw = dict(q["kw"])
        if "stream" in kw:
            kw["content"] = abody_iter(kw.pop("stream"))
        try:
            if send:
                fr = kw.pop("follow_redirects", None)
                kw.pop("timeout", None)
                req = cl.build_request(q["method"], q["url"], **kw)
                resp = await cl.send(req, stream=q["read"] != "read", follow_redirects=fr if fr is not None
                                     else cl.follow_redirects)
                await self.consume(resp, q["read"])
            elif q["read"] == "read":
                resp = await cl.request(q["method"], q["url"], **kw)
                if q["raise"]:
                    resp.raise_for_status()
            else:
                async with cl.stream(q["method"], q["url"], **kw) as resp:
                    await self.consume(resp, q["read"])
        except ERRORS as e:
            self.c.notes.append(type(e).__name__)

    async def consume(self, resp, how):
        try:
            if how == "stream":
                async for _ in resp.aiter_bytes(chunk_size=1024):
                    pass
            elif how == "lines":
                async for _ in resp.aiter_lines():
                    pass
            elif how == "raw":
                async for _ in resp.aiter_raw():
                    pass
            elif how == "part":
                async for _ in resp.aiter_bytes(chunk_size=8):
                    break
            elif how == "read":
                await resp.aread()
        finally:
            await resp.aclose()

    async def run(self):
        c = self.c
        kw = c.client_kwargs()
        steps = c.script()
        cl = open_client(c, self.make, kw)
        if cl is None:
            return
        try:
            for kind, arg in steps:
                if kind == "req":
                    await asyncio.wait_for(self.one(cl, arg), 10)
                elif kind == "send":
                    await asyncio.wait_for(self.one(cl, arg, send=True), 10)
                elif kind == "pause":
                    await asyncio.sleep(arg)
                else:
                    await asyncio.wait_for(asyncio.gather(*[self.one(cl, q) for q in arg]), 10)
        except asyncio.TimeoutError:
            c.notes.append("step timed out")
        finally:
            await cl.aclose()


def main():
    a = ARGS
    if not a.out:
        sys.exit("--out FILE required")
    prepare_repo(a.deps)
    import warnings
    warnings.simplefilter("ignore")
    logging_quiet()
    tmp = tempfile.mkdtemp(prefix="gen_httpx_")
    os.environ.pop("SSL_CERT_FILE", None)
    os.environ.pop("SSL_CERT_DIR", None)
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
              "all_proxy", "no_proxy", "SSLKEYLOGFILE"):
        os.environ.pop(k, None)  # the machine's settings must not reach the clients (trust_env)
    errors = {}
    try:
        cert = make_cert(tmp)
        log = HttpxLog(httpx, a.out, logger_names=LOGGERS, wrappers=WRAPPERS)
        t0 = time.time()
        for i in range(a.cases):
            cid = "hx-%05d" % i
            case = Case(cid, random.Random("%d-%d" % (a.seed, i)), cert, tmp)
            log.case_id = cid
            tc = time.time()
            try:
                case.setup()
                if case.kind == "sync":
                    SyncRun(case).run()
                else:
                    asyncio.run(AsyncRun(case).run())
            except Exception as e:  # a broken case must not stop the generation
                errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                if os.environ.get("GEN_DEBUG"):
                    import traceback
                    traceback.print_exc()
            finally:
                gc.collect()  # half-read response streams log their end inside the case
                case.stop()
                if os.environ.get("GEN_DEBUG"):
                    sys.stderr.write("%s %s tls=%s h2=%s proxy=%s %d events %.2fs %s\n" % (
                        cid, case.kind, getattr(case, "tls", None), getattr(case, "http2", None),
                        getattr(case, "proxy", None), len(log._rows), time.time() - tc, case.notes))
                log.end_case()
        log.finish()
        for n in LOGGERS:
            logging.getLogger(n).setLevel(logging.CRITICAL + 1)
        sys.stderr.write("%s; cases ended by an exception: %s; %.0fs\n"
                         % (log.summary(), errors or "none", time.time() - t0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def logging_quiet():
    # asyncio's own complaints (unretrieved task exceptions of aborted steps)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


if __name__ == "__main__":
    main()
