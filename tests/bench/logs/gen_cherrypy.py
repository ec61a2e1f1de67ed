#!/usr/bin/python3
"""Event log of CherryPy (Debian python3-cherrypy3 18.8.0, served by
python3-cheroot 9.0.0), web framework, HTTP server and clients in one
process, on 127.0.0.1.

    /usr/bin/python3 gen_cherrypy.py --out .deps/logs/cherrypy.csv.gz [--cases 600] [--seed 1]
    /usr/bin/python3 gen_cherrypy.py --repo     # prints the directory to index

Indexed: the whole installed ``cherrypy`` directory
(``/usr/lib/python3/dist-packages/cherrypy``), its shipped test suite
(``cherrypy/test``) and the Windows-only modules (``cherrypy/process/win32.py``)
included: nothing of them runs here, but their literals look like the
messages of the code under test.

A case is one application lifetime of ``cherrypy.engine``.  The generator
resets the process-wide state (config, tree, session and cache stores),
draws a site configuration -- server options (thread pool, socket and
shutdown timeouts, header and body size limits, HTTP/1.0, statistics, the
native ``CPHTTPServer`` instead of the WSGI server, sometimes a second
server), autoreload with a short frequency, tracebacks shown or not,
``log_headers``/``log_tracebacks`` on or off, a custom or broken access-log
format -- and an application tree: a main application (at ``/`` or a script
name) whose paths carry random tool settings, most tools with ``debug`` on
at random (``json_in``/``json_out``, ``sessions`` in RAM or files, also
through storage classes whose ``debug`` is on from construction, with
implicit, early or explicit locking, short timeouts, lock timeouts and a
fast cleanup monitor, ``session_auth``, ``staticdir``/``staticfile`` and
``serve_file`` ranges, ``caching`` with short delays, ``gzip``, ``encode``,
``etags``, ``allow``, ``proxy``, ``referer``, ``accept``, ``autovary``,
``ignore_headers``, ``expires``, ``flatten``, ``redirect``,
``err_redirect``, ``trailing_slash``, ``params``, ``response_headers``,
``log_hooks``, ``cpstats``, ``auth_basic``, ``auth_digest``, tools that fail
at a hook point, ``request.throw_errors``, a failing ``error_response``),
and some of: a REST application under ``MethodDispatcher``, a static-only
application, a grafted WSGI callable, an application mounted later through
the ``tree`` config namespace.  Engine plugins are added at random: monitors
(some whose callback fails, some with no thread), a ``PerpetualTimer``, a
PID file, ``DropPrivileges`` with only a umask, the signal handler, and a
site plugin listening on engine channels (``graceful``, ``stop``,
``before_request``, a custom channel), some listeners failing on purpose.
The engine starts with the HTTP server on a free port, then 3-15 steps run:
requests from ``http.client`` (keep-alive or not; pages with path and query
parameters, 404, 405, 400, handlers raising plain exceptions,
``HTTPError``, ``HTTPRedirect``, ``InternalRedirect`` and its loops, JSON
in and out with bad bodies, multipart uploads, streamed bodies that fail,
sessions with bogus, traversing, corrupt, expired and contended ids, good
and bad basic and digest credentials with stale nonces, cache hits, misses
and stampedes, ranges and conditional requests), raw socket exchanges
(malformed request lines and headers, HTTP/1.0, pipelining, chunked bodies,
oversized headers and bodies, connections closed mid-request or
mid-response), and engine operations (``graceful``, SIGUSR1, a second
``start``, a server restart, a publish on a custom channel, a late mount).
The case then ends by ``engine.stop()`` (sometimes twice, or with a failing
stop listener), by SIGTERM/SIGHUP through the signal handler, by an
``exit()`` from another thread while the main thread sits in
``engine.block()``, or by the autoreloader seeing a watched file change
(which stops the bus the way a restart does; the process is not
re-executed).  Every socket has a timeout and each case stops issuing steps
after 25 s.

Capture: the ``cherrypy`` logger tree at DEBUG: the global ``cherrypy.error``
and ``cherrypy.access`` loggers and each application's
``cherrypy.error.<id>`` and ``cherrypy.access.<id>`` (they propagate to
``cherrypy``), with each record's true call site.  The activity is the
composed message, the ``[dd/Mon/yyyy:HH:MM:SS]`` prefix included.  Cases run
one after another; at the end of a case the engine is stopped and every
thread it started is joined (bounded), and records from a thread of an
ended case are dropped and counted.  Records whose emitter lies outside the
``cherrypy`` directory are dropped and counted: cheroot reports its errors
through ``CPWSGIServer.error_log`` (a wrapper, below), so they resolve to
cheroot.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them), each doing nothing but forward, prefix or render a message:
``LogManager.error`` (prefixes the time and context, calls the logger),
``LogManager.__call__`` and ``_GlobalLogManager.__call__`` (``cherrypy.log``,
routing to the application's log), ``_buslog`` (the engine's ``log``
channel subscriber), ``Bus.log`` (appends the traceback, publishes on
``log``), ``Bus.publish`` only while it dispatches the ``log`` channel (its
"Error in ... listener" message for other channels is its own),
``CPWSGIServer.error_log``, ``auth_digest.TRACE`` and
``SessionAuth._debug_message``.  ``LogManager.access`` composes the access
line and calls the logger itself: it is the emitter of access lines.
"""
import argparse
import base64
import email.utils
import hashlib
import http.client
import http.cookies
import json
import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import warnings
import weakref

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import cherrypy  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(cherrypy.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

from cherrypy.lib import auth_basic, auth_digest, sessions, static  # noqa: E402
from cherrypy.lib import cpstats  # noqa: E402,F401 -- registers tools.cpstats
from cherrypy.process import plugins  # noqa: E402
from cherrypy.process.wspbus import states  # noqa: E402

WRAPPERS = {
    ("cherrypy/_cplogging.py", "error"),
    ("cherrypy/_cplogging.py", "__call__"),
    ("cherrypy/__init__.py", "__call__"),
    ("cherrypy/__init__.py", "_buslog"),
    ("cherrypy/process/wspbus.py", "log"),
    ("cherrypy/_cpwsgi_server.py", "error_log"),
    ("cherrypy/lib/auth_digest.py", "TRACE"),
    ("cherrypy/lib/cptools.py", "_debug_message"),
}
BUS_PUBLISH = ("cherrypy/process/wspbus.py", "publish")

USERS = {"alice": "wonderland", "bob": "builder"}
REALM = "bench"
DIGEST_KEY = "a565c27146791cfb"
STEP_BUDGET = 25.0


class CherryLog(_capture.EventLog):
    """The shared capture, plus: ``Bus.publish`` is a wrapper only for the
    ``log`` channel (decided on the frame), records of threads of an ended
    case and records emitted outside the package are dropped and counted."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.stale_threads = weakref.WeakSet()
        self.outside = 0
        self.stale = 0
        self.no_case = 0

    def emit(self, record):
        if self.case_id is None:
            self.no_case += 1
            return
        if threading.current_thread() in self.stale_threads:
            self.stale += 1
            return
        if self._rel(record.pathname)[1] is None:
            self.outside += 1
            return
        super().emit(record)

    def _helper(self, rel, frame):
        if (rel, frame.f_code.co_name) == BUS_PUBLISH:
            return frame.f_locals.get("channel") == "log"
        return (rel, frame.f_code.co_name) in WRAPPERS

    def _unwrap(self, record):
        target = os.path.realpath(record.pathname)
        f = sys._getframe()
        while f is not None and not (f.f_lineno == record.lineno
                                     and self._rel(f.f_code.co_filename)[0] == target):
            f = f.f_back
        while f is not None:
            ap, rel = self._rel(f.f_code.co_filename)
            if rel is None:
                self.outside += 1
                return None
            if not self._helper(rel, f):
                return ap, rel, f.f_code.co_name, f.f_lineno
            f = f.f_back
        return None


# ---------------------------------------------------------------------------
# the application's code (its own frames never log)
# ---------------------------------------------------------------------------
FAILURES = {
    "value": lambda: ValueError("quantity must be positive"),
    "key": lambda: KeyError("cart"),
    "zero": lambda: ZeroDivisionError("division by zero"),
    "type": lambda: TypeError("unsupported operand type(s)"),
    "os": lambda: OSError(5, "Input/output error"),
    "runtime": lambda: RuntimeError("inventory service unavailable"),
}


def fail_hook(**kwargs):
    raise RuntimeError("audit hook rejected the request")


def failing_error_response():
    raise RuntimeError("error page renderer crashed")


cherrypy.tools.bench_fail_handler = cherrypy.Tool("before_handler", fail_hook)
cherrypy.tools.bench_fail_finalize = cherrypy.Tool("before_finalize", fail_hook)
cherrypy.tools.bench_fail_end = cherrypy.Tool("on_end_request", fail_hook)


class TracedRamSession(sessions.RamSession):
    """Debug on from construction: the session tool sets ``debug`` on the
    instance after the constructor, so the constructor's own debug messages
    show only for a storage class that defaults to it."""

    debug = True


class TracedFileSession(sessions.FileSession):
    debug = True


SESSION_STORES = (sessions.RamSession, sessions.FileSession, TracedRamSession, TracedFileSession)


class Section:
    @cherrypy.expose
    def index(self):
        return "section index"

    @cherrypy.expose
    def detail(self, ref="0"):
        return "detail %s" % ref


class Secret:
    @cherrypy.expose
    def index(self):
        return "secret for %s" % cherrypy.request.login

    @cherrypy.expose
    def report(self):
        return "report for %s" % cherrypy.request.login


class Private:
    @cherrypy.expose
    def index(self):
        return "members area: %s" % cherrypy.request.login


class SessionPages:
    @cherrypy.expose
    def visit(self):
        n = cherrypy.session.get("visits", 0) + 1
        cherrypy.session["visits"] = n
        return "visits=%d" % n

    @cherrypy.expose
    def peek(self):
        return "id=%s" % cherrypy.session.id

    @cherrypy.expose
    def regen(self):
        cherrypy.session["visits"] = 0
        cherrypy.session.regenerate()
        return "regenerated"

    @cherrypy.expose
    def logout(self):
        cherrypy.session.delete()
        sessions.expire()
        return "bye"

    @cherrypy.expose
    def locked(self):
        cherrypy.session.acquire_lock()
        cherrypy.session["locked"] = True
        return "locked"

    @cherrypy.expose
    def slow(self, ms="300"):
        cherrypy.session["slow"] = True
        time.sleep(int(ms) / 1000)
        return "slow visit"


class Root:
    def __init__(self, files, static_debug):
        self.files = files
        self.static_debug = static_debug
        self.sub = Section()
        self.basic = Secret()
        self.digest = Secret()
        self.private = Private()
        self.sess = SessionPages()

    @cherrypy.expose
    def index(self):
        return "<h1>bench shop</h1>"

    @cherrypy.expose
    def page(self, name="world", lang=None):
        return "hello %s%s" % (name, " (%s)" % lang if lang else "")

    @cherrypy.expose
    def item(self, n: int):
        return "item %d" % n

    @cherrypy.expose
    def echo(self, **kw):
        return "%d fields: %s" % (len(kw), ", ".join(sorted(kw)))

    @cherrypy.expose
    def boom(self, kind="value"):
        raise FAILURES[kind]()

    @cherrypy.expose
    def deny(self, code="403", why=None):
        raise cherrypy.HTTPError(int(code), why)

    @cherrypy.expose
    def go(self, to="/page", status=None):
        raise cherrypy.HTTPRedirect(to, int(status) if status else None)

    @cherrypy.expose
    def internal(self, to="/page", qs=""):
        raise cherrypy.InternalRedirect(to, qs)

    @cherrypy.expose
    def loop(self):
        raise cherrypy.InternalRedirect("/loop")

    @cherrypy.expose
    def data(self, n="3", bad=None):
        if bad:
            return {"items": {1, 2}}
        return {"items": list(range(int(n)))}

    @cherrypy.expose
    def ingest(self):
        doc = cherrypy.request.json
        return {"keys": sorted(doc) if isinstance(doc, dict) else len(doc)}

    @cherrypy.expose
    def upload(self, file=None, note=""):
        if file is None or not hasattr(file, "file"):
            return "no file"
        return "%s: %d bytes (%s)" % (file.filename, len(file.file.read()), note)

    @cherrypy.expose
    def stream(self, fail=None, chunks="5"):
        def body():
            for i in range(int(chunks)):
                if fail and i == 2:
                    raise IOError("backend stream broke at chunk %d" % i)
                yield ("chunk %d\n" % i) * 40
        return body()
    stream._cp_config = {"response.stream": True}

    @cherrypy.expose
    def feed(self):
        def body():
            try:
                for i in range(400):
                    time.sleep(0.002)
                    yield b"x" * 8192
            except GeneratorExit:
                raise RuntimeError("feed cursor could not be released")
        return body()
    feed._cp_config = {"response.stream": True, "tools.encode.on": False, "tools.gzip.on": False}

    @cherrypy.expose
    def nested(self):
        def inner(k):
            for j in range(3):
                yield "part %d.%d\n" % (k, j)
        return (inner(k) for k in range(3))

    @cherrypy.expose
    def slow(self, ms="100"):
        time.sleep(int(ms) / 1000)
        return "slow done"

    @cherrypy.expose
    def cached(self, ms="0"):
        time.sleep(int(ms) / 1000)
        return "generated at %.6f" % time.time()

    @cherrypy.expose
    def big(self):
        cherrypy.response.headers["Content-Type"] = cherrypy.request.params.get("ct", "text/html")
        return "<p>lorem ipsum dolor sit amet</p>\n" * 200

    @cherrypy.expose
    def text(self, xml=None):
        if xml:
            cherrypy.response.headers["Content-Type"] = "application/xml"
            return "<r>caf\u00e9 \u2013 na\u00efve</r>"
        return "caf\u00e9 \u2013 na\u00efve \u65e5\u672c"

    @cherrypy.expose
    def etag(self):
        return "stable body for etags"

    @cherrypy.expose
    def hdrs(self):
        return "headers set"

    @cherrypy.expose
    def whoami(self):
        r = cherrypy.request
        return "%s %s %s" % (r.base, r.remote.ip, cherrypy.url())

    @cherrypy.expose
    def ref(self):
        return "referer ok"

    @cherrypy.expose
    def accept(self):
        return "media %s" % cherrypy.response.headers.get("Content-Type")

    @cherrypy.expose
    def vary(self):
        return "vary on %s" % cherrypy.request.headers.get("Accept-Language", "-")

    @cherrypy.expose
    def exp(self):
        cherrypy.response.headers["Last-Modified"] = "Tue, 01 Jan 2030 00:00:00 GMT"
        return "expiring"

    @cherrypy.expose
    def old(self):
        return "never reached"

    @cherrypy.expose
    def fragile(self):
        raise ValueError("fragile page broke")

    @cherrypy.expose
    def hookfail(self):
        return "hooked"

    @cherrypy.expose
    def errresp(self):
        raise LookupError("no such order")

    @cherrypy.expose
    def throw(self):
        raise ConnectionError("payment gateway refused")

    @cherrypy.expose
    def download(self, name="notes.txt", how="file"):
        path = os.path.join(self.files, name)
        if how == "download":
            return static.serve_download(path)
        if how == "fileobj":
            return static.serve_fileobj(open(path, "rb"), "text/plain", debug=self.static_debug)
        if how == "relative":
            return static.serve_file(name, debug=self.static_debug)
        return static.serve_file(path, disposition="inline" if how == "inline" else None,
                                 debug=self.static_debug)


@cherrypy.expose
class ItemsAPI:
    def __init__(self):
        self.items = {"a1": "apple", "b2": "banana", "c3": "cherry"}

    def GET(self, key=None):
        if key is None:
            return ",".join(sorted(self.items))
        if key not in self.items:
            raise cherrypy.NotFound()
        return self.items[key]

    def POST(self, key, name):
        self.items[key] = name
        cherrypy.response.status = 201
        return "created %s" % key

    def PUT(self, key, name):
        self.items[key] = name
        return "updated %s" % key

    def DELETE(self, key):
        del self.items[key]
        return "deleted %s" % key


class LateRoot:
    def __repr__(self):
        return "<LateRoot>"

    @cherrypy.expose
    def index(self):
        return "late app"


class LegacyWSGI:
    """A plain WSGI callable grafted beside the CherryPy applications."""

    def __repr__(self):
        return "<legacy WSGI app>"

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path.endswith("/crash"):
            raise RuntimeError("legacy app crashed")
        if path.endswith("/missing"):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"nope"]
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"legacy says hi ", environ.get("QUERY_STRING", "").encode()]


# ---------------------------------------------------------------------------
# engine plugins (their callables fail on purpose; they never log)
# ---------------------------------------------------------------------------
class Probe:
    """A monitor or timer callback that fails after a number of calls (0: never)."""

    def __init__(self, name, fail_after):
        self.name = name
        self.fail_after = fail_after
        self.calls = 0

    def __repr__(self):
        return "<probe %s>" % self.name

    def __call__(self):
        self.calls += 1
        if self.fail_after and self.calls >= self.fail_after:
            raise ConnectionError("%s probe lost its backend" % self.name)


class SitePlugin(plugins.SimplePlugin):
    """Listens on engine channels; the channels in ``fail`` raise."""

    def __init__(self, bus, fail):
        super().__init__(bus)
        self.fail = set(fail)
        self.fail_next_request = False

    def __repr__(self):
        return "<SitePlugin>"

    def start(self):
        pass  # a failing start listener makes Bus.start end the process

    def stop(self):
        if "stop" in self.fail:
            raise RuntimeError("site plugin could not flush its queue")

    def graceful(self):
        if "graceful" in self.fail:
            raise OSError("site plugin could not reopen its spool")

    def audit(self, event):
        if "audit" in self.fail:
            raise ValueError("audit sink rejected %r" % event)

    def before_request(self):
        if self.fail_next_request:
            self.fail_next_request = False
            raise RuntimeError("request quota service unreachable")

    def subscribe(self):
        super().subscribe()
        self.bus.subscribe("audit", self.audit)

    def unsubscribe(self):
        super().unsubscribe()
        self.bus.unsubscribe("audit", self.audit)


def _pick(r, weighted):
    total = sum(w for w, _ in weighted)
    x = r.uniform(0, total)
    for w, v in weighted:
        x -= w
        if x <= 0:
            return v
    return weighted[-1][1]


# ---------------------------------------------------------------------------
# clients
# ---------------------------------------------------------------------------
class Client:
    """http.client with an optional keep-alive connection and a cookie jar."""

    AGENTS = [None, "bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64; rv:109.0)"]

    def __init__(self, r, port):
        self.r = r
        self.port = port
        self.conn = None
        self.cookies = {}
        self.agent = r.choice(self.AGENTS)

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method, path, body=None, headers=None):
        h = {}
        if self.agent:
            h["User-Agent"] = self.agent
        if self.cookies:
            h["Cookie"] = "; ".join("%s=%s" % kv for kv in sorted(self.cookies.items()))
        h.update(headers or {})
        if self.conn is None or self.r.random() < 0.3:
            self.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            self.conn.request(method, path, body, h)
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException):
            self.close()
            return None, {}, b""
        for value in resp.headers.get_all("Set-Cookie") or []:
            c = http.cookies.SimpleCookie()
            try:
                c.load(value)
            except http.cookies.CookieError:
                continue
            for k, morsel in c.items():
                self.cookies[k] = morsel.value
        if resp.will_close:
            self.close()
        return resp.status, resp.headers, data


def raw_exchange(port, chunks, read=True, wait=2.0):
    """Send byte chunks on a fresh socket, then read until EOF or ``wait`` s."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
    except OSError:
        return
    try:
        for c in chunks:
            s.sendall(c)
        end = time.monotonic() + wait
        while read and time.monotonic() < end:
            s.settimeout(max(0.05, end - time.monotonic()))
            read = s.recv(65536)
    except OSError:
        pass
    finally:
        s.close()


def multipart(fields, files, boundary="benchBOUNDARY42"):
    out = []
    for k, v in fields.items():
        out.append(("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n"
                    % (boundary, k, v)).encode())
    for k, (fname, data, ctype) in files.items():
        out.append(("--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
                    "Content-Type: %s\r\n\r\n" % (boundary, k, fname, ctype)).encode() + data + b"\r\n")
    out.append(("--%s--\r\n" % boundary).encode())
    return b"".join(out), "multipart/form-data; boundary=%s" % boundary


def digest_header(challenge, user, password, method, uri, nonce=None):
    params = {}
    for part in challenge[len("Digest "):].split(","):
        if "=" in part:
            k, v = part.strip().split("=", 1)
            params[k] = v.strip('"')
    nonce = nonce or params.get("nonce", "")
    realm = params.get("realm", REALM)
    cnonce = "0a4f113b"
    ha1 = hashlib.md5(("%s:%s:%s" % (user, realm, password)).encode()).hexdigest()
    ha2 = hashlib.md5(("%s:%s" % (method, uri)).encode()).hexdigest()
    resp = hashlib.md5(("%s:%s:00000001:%s:auth:%s" % (ha1, nonce, cnonce, ha2)).encode()).hexdigest()
    return ('Digest username="%s", realm="%s", nonce="%s", uri="%s", algorithm=MD5, '
            'response="%s", qop=auth, nc=00000001, cnonce="%s"' % (user, realm, nonce, uri, resp, cnonce))


# ---------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, r, tmp):
        self.r = r
        self.dir = tempfile.mkdtemp(dir=tmp)
        self.monitors = []
        self.timers = []
        self.subscribed = []
        self.features = set()
        self.client = None
        self.port = None
        self.site = None
        self.signals = False
        self.end_mode = "stop"
        self.reload_file = None
        self.script = ""
        self.files = None
        self.cache_conf = None
        self.session_name = "session_id"
        self.session_dir = None
        self.session_timeout = 60
        self.session_locking = "implicit"
        self.alt_port = None

    # -- building the site ----------------------------------------------------
    def dbg(self, p=0.5):
        return self.r.random() < p

    def make_files(self):
        r = self.r
        files = os.path.join(self.dir, "files")
        os.makedirs(os.path.join(files, "docs"))
        for name, size in (("index.html", 300), ("app.css", 900), ("data.bin", r.choice([20000, 60000])),
                           ("notes.txt", 1200), ("docs/readme.txt", 500)):
            with open(os.path.join(files, name), "wb") as fh:
                fh.write(bytes(r.randrange(32, 127) for _ in range(64)) * (size // 64))
        return files

    def global_config(self):
        r = self.r
        native = r.random() < 0.08
        g = {
            "log.screen": False,
            "checker.on": False,
            "server.socket_host": "127.0.0.1",
            "server.socket_port": 0,
            "server.instance": "cherrypy._cpnative_server.CPHTTPServer" if native else None,
            "server.thread_pool": r.choice([1, 2, 4, 10]),
            "server.socket_timeout": r.choice([1, 2, 3]),
            "server.shutdown_timeout": 1,
            "server.max_request_header_size": 2048 if r.random() < 0.15 else 500 * 1024,
            "server.max_request_body_size": 4096 if r.random() < 0.15 else 100 * 1024 * 1024,
            "server.protocol_version": "HTTP/1.0" if r.random() < 0.1 else "HTTP/1.1",
            "server.statistics": r.random() < 0.2,
            "engine.autoreload.on": r.random() < 0.25,
            "engine.autoreload.frequency": r.choice([0.05, 0.1, 0.3]),
            "request.show_tracebacks": r.random() < 0.5,
            "request.show_mismatched_params": r.random() < 0.5,
            "tools.log_headers.on": r.random() < 0.6,
            "tools.log_tracebacks.on": r.random() < 0.85,
        }
        if native:
            self.features.add("native")
        if r.random() < 0.1:
            g["tools.encode.debug"] = True
        if r.random() < 0.1:
            g["tools.trailing_slash.debug"] = True
        if r.random() < 0.08:
            g["tools.proxy.on"] = True
            g["tools.proxy.debug"] = self.dbg()
        if r.random() < 0.08:
            g["request.query_string_encoding"] = "ascii"
        return g

    def session_config(self):
        r = self.r
        c = {"tools.sessions.on": True,
             "tools.sessions.debug": self.dbg(0.6),
             "tools.sessions.timeout": r.choice([60, 60, 0.004]),
             "tools.sessions.clean_freq": r.choice([0, 0.002, 0.005]),
             "tools.sessions.locking": _pick(r, [(6, "implicit"), (2, "early"), (2, "explicit")])}
        kind = r.choice(["ram", "file"])
        if r.random() < 0.15:
            c["tools.sessions.storage_type"] = kind
        elif kind == "file":
            c["tools.sessions.storage_class"] = r.choice([sessions.FileSession, TracedFileSession])
        else:
            c["tools.sessions.storage_class"] = r.choice([sessions.RamSession, TracedRamSession])
        if kind == "file":
            path = os.path.join(self.dir, "sessions")
            os.makedirs(path, exist_ok=True)
            c["tools.sessions.storage_path"] = path
            # without a lock timeout, a second acquire_lock() in the same
            # request (the /sess/locked page under implicit locking) waits forever
            c["tools.sessions.lock_timeout"] = r.choice([0.2, 1])
            self.features.add("filesessions")
            self.session_dir = path
        if r.random() < 0.2:
            c["tools.sessions.name"] = self.session_name = "shop_sid"
        if r.random() < 0.2:
            c["tools.sessions.httponly"] = True
        if r.random() < 0.2:
            c["tools.sessions.persistent"] = False
        self.session_timeout = c["tools.sessions.timeout"]
        self.session_locking = c["tools.sessions.locking"]
        return c

    def main_app_config(self, files):
        r = self.r
        dbg = self.dbg
        conf = {"/": {}}
        root = conf["/"]
        if r.random() < 0.2:
            root["tools.log_hooks.on"] = True
        if r.random() < 0.2:
            root["tools.cpstats.on"] = True
            root["tools.cpstats.debug"] = dbg()
        if r.random() < 0.15:
            root["tools.gzip.on"] = True
            root["tools.gzip.debug"] = dbg()
        if r.random() < 0.15:
            root["tools.trailing_slash.extra"] = True
            root["tools.trailing_slash.status"] = r.choice([None, 302, 307])
        if r.random() < 0.1:
            root["request.uri_encoding"] = "latin-1"
        conf["/item"] = {"tools.params.on": True}
        conf["/echo"] = {"tools.allow.on": self.dbg(0.7), "tools.allow.methods": r.choice([["POST"], ["GET", "POST"]]),
                         "tools.allow.debug": dbg()}
        conf["/data"] = {"tools.json_out.on": True, "tools.json_out.debug": dbg()}
        conf["/ingest"] = {"tools.json_in.on": True, "tools.json_in.force": r.random() < 0.7,
                           "tools.json_in.debug": dbg(), "tools.json_out.on": True,
                           "tools.json_out.debug": dbg()}
        conf["/nested"] = {"tools.flatten.on": True, "tools.flatten.debug": dbg()}
        conf["/static"] = {"tools.staticdir.on": True, "tools.staticdir.debug": dbg(),
                           "tools.staticdir.dir": files if r.random() < 0.85 else "files",
                           "tools.staticdir.root": self.dir if r.random() < 0.5 else "",
                           "tools.staticdir.index": r.choice(["", "index.html"]),
                           "tools.staticdir.match": r.choice(["", "", r"\.(css|txt|bin|html)$"])}
        conf["/robots.txt"] = {"tools.staticfile.on": True, "tools.staticfile.debug": dbg(),
                               "tools.staticfile.filename": r.choice([
                                   os.path.join(files, "notes.txt"), "notes.txt",
                                   os.path.join(files, "missing.txt")]),
                               "tools.staticfile.root": r.choice([files, None])}
        conf["/download"] = {"tools.ignore_headers.on": r.random() < 0.3,
                             "tools.ignore_headers.debug": dbg()}
        conf["/cached"] = {"tools.caching.on": True, "tools.caching.debug": dbg(),
                           "tools.gzip.on": r.random() < 0.5,
                           "tools.caching.delay": r.choice([1, 600]),
                           "tools.caching.antistampede_timeout": r.choice([0.05, 5])}
        self.cache_conf = conf["/cached"]
        conf["/big"] = {"tools.gzip.on": True, "tools.gzip.debug": dbg(),
                        "tools.gzip.mime_types": r.choice([["text/html", "text/plain"], ["text/*"],
                                                           ["application/*+xml"]])}
        conf["/text"] = {"tools.encode.on": True, "tools.encode.debug": dbg(),
                         "tools.encode.encoding": r.choice([None, None, "utf-8", "iso-8859-1", "utf-16"]),
                         "tools.encode.text_only": r.random() < 0.7}
        conf["/etag"] = {"tools.etags.on": True, "tools.etags.autotags": r.random() < 0.7,
                         "tools.etags.debug": dbg()}
        conf["/hdrs"] = {"tools.response_headers.on": True, "tools.response_headers.debug": dbg(),
                         "tools.response_headers.headers": [("X-Frame-Options", "DENY"),
                                                            ("Cache-Control", "private")]}
        conf["/whoami"] = {"tools.proxy.on": True, "tools.proxy.debug": dbg(),
                           "tools.proxy.local": r.choice(["X-Forwarded-Host", "Origin", ""]),
                           "tools.proxy.scheme": r.choice(["X-Forwarded-Proto", "X-Forwarded-Ssl"])}
        conf["/ref"] = {"tools.referer.on": True, "tools.referer.debug": dbg(),
                        "tools.referer.pattern": r"https?://(www\.)?example\.com/",
                        "tools.referer.accept": r.random() < 0.7,
                        "tools.referer.accept_missing": r.random() < 0.4}
        conf["/accept"] = {"tools.accept.on": True, "tools.accept.debug": dbg(),
                           "tools.accept.media": r.choice([["text/html", "application/json"],
                                                           "application/atom+xml"])}
        conf["/vary"] = {"tools.autovary.on": True, "tools.autovary.debug": dbg()}
        conf["/exp"] = {"tools.expires.on": True, "tools.expires.debug": dbg(),
                        "tools.expires.secs": r.choice([0, 3600]), "tools.expires.force": r.random() < 0.4}
        conf["/old"] = {"tools.redirect.on": True, "tools.redirect.debug": dbg(),
                        "tools.redirect.url": r.choice(["/page", "/sub/"]),
                        "tools.redirect.internal": r.random() < 0.5}
        conf["/fragile"] = {"tools.err_redirect.on": True, "tools.err_redirect.debug": dbg(),
                            "tools.err_redirect.url": "/page",
                            "tools.err_redirect.internal": r.random() < 0.6}
        conf["/hookfail"] = {"tools.%s.on" % r.choice(["bench_fail_handler", "bench_fail_finalize",
                                                       "bench_fail_end"]): True}
        conf["/errresp"] = {"request.error_response": failing_error_response}
        conf["/throw"] = {"request.throw_errors": True}
        conf["/basic"] = {"tools.auth_basic.on": True, "tools.auth_basic.realm": REALM,
                          "tools.auth_basic.checkpassword": auth_basic.checkpassword_dict(USERS),
                          "tools.auth_basic.debug": dbg(),
                          "tools.auth_basic.accept_charset": r.choice(["utf-8", "ISO-8859-1"])}
        conf["/digest"] = {"tools.auth_digest.on": True, "tools.auth_digest.realm": REALM,
                           "tools.auth_digest.get_ha1": auth_digest.get_ha1_dict_plain(USERS),
                           "tools.auth_digest.key": DIGEST_KEY, "tools.auth_digest.debug": dbg(),
                           "tools.auth_digest.accept_charset": r.choice(["utf-8", "ISO-8859-1"])}
        if r.random() < 0.45:
            self.features.add("sessions")
            sc = self.session_config()
            conf["/sess"] = dict(sc)
            if r.random() < 0.5:
                self.features.add("session_auth")
                conf["/private"] = dict(sc, **{
                    "tools.session_auth.on": True, "tools.session_auth.debug": dbg(0.7),
                    "tools.session_auth.check_username_and_password": check_login})
                if r.random() < 0.2:
                    conf["/private"]["tools.session_auth.anonymous"] = lambda: "guest"
        return conf

    def build(self):
        r = self.r
        files = self.make_files()
        self.files = files
        cherrypy.config.reset()
        cherrypy.config.update(self.global_config())
        cherrypy.tree.apps.clear()
        if hasattr(cherrypy, "session"):
            del cherrypy.session  # the next session tool call is a first one
        sessions.RamSession.cache.clear()
        sessions.RamSession.locks.clear()
        cherrypy.server.httpserver = None
        cherrypy.engine.execv = False

        self.script = r.choice(["", "", "", "/shop"])
        root = Root(files, self.dbg(0.5))
        conf = self.main_app_config(files)
        if hasattr(cherrypy, "_cache"):
            # the process-wide cache takes the tool's settings only when the
            # first request creates it
            cherrypy._cache.clear()
            cherrypy._cache.debug = self.cache_conf["tools.caching.debug"]
            cherrypy._cache.delay = self.cache_conf["tools.caching.delay"]
            cherrypy._cache.antistampede_timeout = self.cache_conf["tools.caching.antistampede_timeout"]
        if r.random() < 0.1:
            conf["/"]["log.access_log_format"] = r.choice([
                '{h} {l} {u} {t} "{r}" {s} {b} "{f}" "{a}" {i} {o}',
                '{z} {h} "{r}" {s} {b}',
                '{h} "{r}" {s} {x}'])  # an unknown field: the access line fails
        cherrypy.tree.mount(root, self.script, conf)
        if r.random() < 0.4:
            self.features.add("api")
            api_conf = {"/": {"request.dispatch": cherrypy.dispatch.MethodDispatcher(),
                              "tools.response_headers.on": True,
                              "tools.response_headers.headers": [("Content-Type", "text/plain")]}}
            if r.random() < 0.3:
                api_conf["/"]["log.access_log_format"] = '{h} "{r}" {s} {b} {i}'
            cherrypy.tree.mount(ItemsAPI(), "/api", api_conf)
        if r.random() < 0.25:
            self.features.add("files")
            cherrypy.tree.mount(None, "/files", {"/": {
                "tools.staticdir.on": True, "tools.staticdir.dir": files,
                "tools.staticdir.index": "index.html"}})
        if r.random() < 0.25:
            self.features.add("wsgi")
            if r.random() < 0.5:
                cherrypy.tree.graft(LegacyWSGI(), "/legacy")
            else:
                cherrypy.config.update({"tree.legacy": {"/legacy": LegacyWSGI()}})
        if r.random() < 0.12:
            self.features.add("alt")
            cherrypy.config.update({"server.alt.socket_host": "127.0.0.1", "server.alt.socket_port": 0,
                                    "server.alt.on": True, "server.alt.shutdown_timeout": 1,
                                    "server.alt.socket_timeout": 2})
            cherrypy.servers["alt"].httpserver = None
        self.add_plugins()

    def add_plugins(self):
        r = self.r
        eng = cherrypy.engine
        for k in range(_pick(r, [(6, 0), (3, 1), (1, 2)])):
            freq = r.choice([0.05, 0.1, 0.2, 0])
            m = plugins.Monitor(eng, Probe("health-%d" % k, r.choice([0, 0, 2, 4])), freq,
                                name=r.choice(["HealthCheck-%d" % k, None]))
            m.subscribe()
            self.monitors.append(m)
        if r.random() < 0.08:
            t = plugins.PerpetualTimer(0.05, Probe("flush", r.choice([0, 2])), bus=eng)
            t.daemon = True
            self.timers.append(t)
        if r.random() < 0.15:
            p = plugins.PIDFile(eng, os.path.join(self.dir, "shop.pid"))
            p.subscribe()
            self.subscribed.append(p)
        if r.random() < 0.12:
            cur = os.umask(0o022)
            os.umask(cur)
            p = plugins.DropPrivileges(eng, umask=cur if r.random() < 0.7 else None)
            p.subscribe()
            self.subscribed.append(p)
        if r.random() < 0.3:
            fail = [c for c in ("graceful", "audit") if r.random() < 0.4]
            self.end_mode = _pick(r, [(8, "stop"), (1, "stop-twice"), (1, "stop-fail")])
            if self.end_mode == "stop-fail":
                fail.append("stop")
            self.site = SitePlugin(eng, fail)
            self.site.subscribe()
        else:
            self.end_mode = _pick(r, [(9, "stop"), (1, "stop-twice")])
        if r.random() < 0.15:
            eng.signal_handler.subscribe()
            self.signals = True
        if self.end_mode == "stop":
            k = r.random()
            if self.signals and k < 0.3:
                self.end_mode = r.choice(["sigterm", "sighup"])
            elif k < 0.05:
                self.end_mode = "block"
            elif k < 0.09 and cherrypy.config.get("engine.autoreload.on"):
                self.end_mode = "reload"
                self.reload_file = os.path.join(self.dir, "site.conf")
                with open(self.reload_file, "w") as fh:
                    fh.write("[global]\n")
                eng.autoreload.files.add(self.reload_file)

    # -- life cycle -----------------------------------------------------------
    def start(self):
        cherrypy.engine.start()
        for t in self.timers:
            t.start()
        self.port = cherrypy.server.bound_addr[1]
        self.client = Client(self.r, self.port)
        if "alt" in self.features:
            self.alt_port = cherrypy.servers["alt"].bound_addr[1]

    def url(self, path):
        return self.script + path

    def steps(self):
        r = self.r
        f = self.features
        acts = [(6, self.a_page), (3, self.a_missing), (2, self.a_params), (2, self.a_post),
                (4, self.a_boom), (2, self.a_deny), (2, self.a_redirect), (2, self.a_internal),
                (2, self.a_json), (2, self.a_json_in), (2, self.a_upload), (2, self.a_stream),
                (3, self.a_static), (2, self.a_download), (3, self.a_cached), (2, self.a_gzip),
                (2, self.a_encode), (2, self.a_etag), (3, self.a_tools), (2, self.a_proxy),
                (2, self.a_basic), (2, self.a_digest), (3, self.a_failures), (4, self.a_raw),
                (1, self.a_engine)]
        if "sessions" in f:
            acts.append((7, self.a_session))
        if "session_auth" in f:
            acts.append((3, self.a_session_auth))
        if "api" in f:
            acts.append((3, self.a_api))
        if "files" in f:
            acts.append((1, self.a_files))
        if "wsgi" in f:
            acts.append((2, self.a_wsgi))
        end = time.monotonic() + STEP_BUDGET
        for _ in range(r.randint(3, 15)):
            if time.monotonic() > end or cherrypy.engine.state != states.STARTED:
                break
            _pick(r, acts)()

    def get(self, path, headers=None):
        return self.client.request("GET", self.url(path), None, headers)

    def finish(self):
        r = self.r
        eng = cherrypy.engine
        mode = self.end_mode
        self.client.close()
        if mode in ("sigterm", "sighup") and eng.state == states.STARTED:
            os.kill(os.getpid(), signal.SIGTERM if mode == "sigterm" else signal.SIGHUP)
        elif mode == "block" and eng.state == states.STARTED:
            stopper = threading.Thread(target=self._exit_later, args=(r.choice([0.05, 0.2]),),
                                       name="bench-shutdown")
            stopper.start()
            eng.block(interval=0.05)
            stopper.join(5)
        elif mode == "reload" and eng.state == states.STARTED:
            time.sleep(0.4)  # the autoreloader has taken its first mtimes
            st = os.stat(self.reload_file)
            os.utime(self.reload_file, (st.st_atime, st.st_mtime + 10))
            end = time.monotonic() + 5
            while eng.state != states.EXITING and time.monotonic() < end:
                time.sleep(0.05)
        if eng.state == states.STARTED:
            try:
                eng.stop()
            except Exception:  # a failing stop listener: the bus says which
                pass
            if mode == "stop-twice":
                eng.stop()

    def _exit_later(self, delay):
        time.sleep(delay)
        cherrypy.engine.exit()

    def cleanup(self):
        """Bring the process back to a state in which a new case can start."""
        eng = cherrypy.engine
        if self.client is not None:
            self.client.close()
        if eng.state in (states.STARTING, states.STARTED):
            try:
                eng.stop()
            except Exception:
                pass
        eng.execv = False
        for t in self.timers:
            t.cancel()
        for m in self.monitors:
            m.unsubscribe()
        for p in self.subscribed:
            p.unsubscribe()
        if self.site is not None:
            self.site.unsubscribe()
        if self.signals:
            eng.signal_handler.unsubscribe()
        if self.reload_file:
            eng.autoreload.files.discard(self.reload_file)
        cherrypy.config.update({"engine.autoreload.on": False})
        if "alt" in self.features:
            cherrypy.config.update({"server.alt.on": False})
        for cls in SESSION_STORES:
            if cls.clean_thread is not None:
                cls.clean_thread.unsubscribe()
                cls.clean_thread = None
        for app in list(cherrypy.tree.apps.values()):
            log = getattr(app, "log", None)
            if log is not None:
                eng.unsubscribe("graceful", log.reopen_files)
        cherrypy.tree.apps.clear()

    # -- steps ----------------------------------------------------------------
    def a_page(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            if self.alt_port and r.random() < 0.5:
                alt = Client(r, self.alt_port)
                alt.request("GET", self.url("/page?name=alt"))
                alt.close()
                return
            self.client.request(r.choice(["GET", "GET", "HEAD"]), self.url(r.choice(["/", "/index"])))
        elif k < 0.7:
            name = r.choice(["alice", "caf%C3%A9", "bob+builder", "%E2%9C%93", "x" * 40])
            q = "name=%s" % name + ("&lang=%s" % r.choice(["en", "fr"]) if r.random() < 0.3 else "")
            self.get("/page?" + q)
        elif k < 0.85:
            self.get(r.choice(["/sub", "/sub/", "/sub/detail?ref=7", "/sub/detail/", "/page/"]))
        else:
            self.get("/page?name=%FF%FE")  # not UTF-8

    def a_missing(self):
        r = self.r
        self.get(r.choice(["/nope", "/products/42/reviews", "/page/extra/segments", "/favicon.ico",
                           "/sub/detail/7/more", "/.git/config", "/%2e%2e/etc/passwd"]))

    def a_params(self):
        r = self.r
        self.get(r.choice(["/item?n=5", "/item?n=abc", "/item", "/item?n=1&extra=2", "/item/12",
                           "/page?name=a&name=b", "/page?unknown=1", "/sub/detail?ref=1&ref=2&x=3"]))

    def a_post(self):
        r = self.r
        body = "a=1&b=%s" % r.choice(["two", "%E2%82%AC", "x" * 300])
        method = r.choice(["POST", "POST", "PUT", "DELETE", "GET", "PATCH"])
        path = r.choice(["/echo", "/echo", "/page", "/"])
        self.client.request(method, self.url(path), body if method != "GET" else None,
                            {"Content-Type": "application/x-www-form-urlencoded"})

    def a_boom(self):
        self.get("/boom?kind=%s" % self.r.choice(list(FAILURES) + ["unknown"]),
                 {"Referer": "http://example.com/cart"} if self.r.random() < 0.3 else None)

    def a_deny(self):
        r = self.r
        q = "code=%s" % r.choice(["400", "401", "403", "404", "409", "418", "503", "999", "abc"])
        if r.random() < 0.5:
            q += "&why=%s" % r.choice(["quota+exceeded", "maintenance", "%3Cb%3Ebad%3C%2Fb%3E"])
        self.get("/deny?" + q)

    def a_redirect(self):
        r = self.r
        to = r.choice(["/page", "page?name=rel", "http://example.com/elsewhere", "/sub/", "//evil.example/"])
        st = r.choice(["", "&status=301", "&status=303", "&status=307", "&status=308", "&status=200"])
        self.get("/go?to=%s%s" % (to.replace("?", "%3F").replace("&", "%26"), st))

    def a_internal(self):
        r = self.r
        self.get(r.choice(["/internal?to=/page&qs=name%3Dinternal", "/internal?to=/nope", "/loop",
                           "/internal?to=/internal", "/internal?to=/boom"]))

    def a_json(self):
        r = self.r
        self.get(r.choice(["/data", "/data?n=10", "/data?bad=1", "/data?n=x"]),
                 {"Accept": "application/json"} if r.random() < 0.5 else None)

    def a_json_in(self):
        r = self.r
        k = r.random()
        if k < 0.35:
            body, ct = json.dumps({"sku": "a1", "qty": 2}), "application/json"
        elif k < 0.6:
            body, ct = r.choice(['{"sku": "a1", ', "[1, 2,", "nul", "\xff\xfe"]), "application/json"
        elif k < 0.8:
            body, ct = "sku=a1", "application/x-www-form-urlencoded"
        else:
            chunks = [b'{"sku": ', b'"b2"}']
            raw = (b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" % self.url("/ingest").encode())
            raw += b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
            raw_exchange(self.port, [raw])
            return
        self.client.request("POST", self.url("/ingest"), body.encode("latin-1"), {"Content-Type": ct})

    def a_upload(self):
        r = self.r
        k = r.random()
        if k < 0.55:
            files = {"file": ("report.csv", b"id,qty\n" + b"1,2\n" * r.choice([10, 800]), "text/csv")}
            body, ct = multipart({"note": r.choice(["monthly", "caf\u00e9"])}, files)
            if r.random() < 0.2:
                body += b"x" * 6000  # past the body limit of some cases
        elif k < 0.75:
            body, ct = multipart({"note": "no file here"}, {})
        elif k < 0.9:
            body, ct = b"--nope\r\nContent-Disposition: form-data\r\n\r\nbroken", "multipart/form-data"
        else:
            body, ct = multipart({}, {"file": ("a.bin", b"\x00" * 100, "application/octet-stream")})
            body = body[:-20]  # the closing boundary is cut
        self.client.request("POST", self.url("/upload"), body, {"Content-Type": ct})

    def a_stream(self):
        r = self.r
        k = r.random()
        if k < 0.4:
            self.get("/stream?chunks=%d" % r.choice([3, 8]))
        elif k < 0.7:
            self.get("/stream?fail=1")
        else:
            req = (b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % self.url("/feed").encode())
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
                s.sendall(req)
                s.recv(r.choice([100, 20000]))
                s.close()
            except OSError:
                pass

    def a_static(self):
        r = self.r
        path = "/static/" + r.choice(["app.css", "notes.txt", "data.bin", "docs/readme.txt", "docs/",
                                      "", "missing.png", "..%2f..%2fetc%2fpasswd", "docs"])
        h = {}
        k = r.random()
        if k < 0.15:
            h["Range"] = r.choice(["bytes=0-99", "bytes=100-199,300-399", "bytes=999999-", "bytes=-50",
                                   "bytes=abc"])
        elif k < 0.3:
            path = "/static/notes.txt"
            mtime = os.stat(os.path.join(self.files, "notes.txt")).st_mtime
            h[r.choice(["If-Modified-Since", "If-Modified-Since", "If-Unmodified-Since"])] = r.choice([
                "Sat, 01 Jan 2000 00:00:00 GMT", email.utils.formatdate(mtime, usegmt=True)])
        if r.random() < 0.2:
            self.client.request(r.choice(["POST", "HEAD"]), self.url(path), b"" if r.random() < 0.5 else None, h)
        else:
            self.get(path if r.random() < 0.8 else "/robots.txt", h)

    def a_download(self):
        r = self.r
        name = r.choice(["notes.txt", "data.bin", "missing.txt", "docs"])
        how = r.choice(["file", "file", "inline", "download", "fileobj", "relative"])
        h = {}
        if r.random() < 0.4:
            h["Range"] = r.choice(["bytes=0-9", "bytes=10-19,40-59", "bytes=5000000-", "bytes=-10"])
        if r.random() < 0.15:
            h["Connection"] = "close"
        self.get("/download?name=%s&how=%s" % (name, how), h)
        if name == "notes.txt" and how == "file" and r.random() < 0.5:
            mtime = os.stat(os.path.join(self.files, name)).st_mtime
            self.get("/download?name=%s" % name,
                     {"If-Modified-Since": email.utils.formatdate(mtime, usegmt=True)})

    def a_cached(self):
        r = self.r
        k = r.random()
        path = "/cached" + r.choice(["", "", "?v=2"])
        if k < 0.5:
            for _ in range(r.randint(2, 3)):
                self.get(path, {"Cache-Control": r.choice(["max-age=0", "no-cache", "max-age=abc"])}
                         if r.random() < 0.2 else None)
        elif k < 0.65:
            self.get(path)
            self.client.request("POST", self.url(path), b"", {"Content-Length": "0"})
            self.get(path, {"Pragma": "no-cache"} if r.random() < 0.3 else None)
        elif k < 0.8:
            self.get(path)
            time.sleep(1.1)
            self.get(path, {"Cache-Control": "max-age=0"} if r.random() < 0.5 else None)
        else:
            # a cached URI whose response varies (gzip adds Vary:
            # Accept-Encoding): the first request for a new variant computes
            # it, the second waits for it
            slow = self.url("/cached?ms=300")
            self.client.request("GET", slow, None, {"Accept-Encoding": "gzip"})
            self.concurrent([("GET", slow, None, {"Accept-Encoding": "identity"})] * 2, stagger=0.05)

    def a_gzip(self):
        r = self.r
        ae = r.choice([None, "gzip", "gzip, deflate", "x-gzip", "gzip;q=0", "identity", "deflate",
                       "identity;q=0, gzip;q=0", "*"])
        h = {"Accept-Encoding": ae} if ae else {}
        self.get(r.choice(["/big", "/big?ct=text/plain", "/big?ct=application/atom%2Bxml",
                           "/big?ct=image/png", "/page"]), h)

    def a_encode(self):
        r = self.r
        ac = r.choice([None, "utf-8", "iso-8859-5", "*", "bogus-charset", "utf-8;q=0, iso-8859-1;q=0",
                       "ascii", "utf-16, *;q=0.1"])
        self.get(r.choice(["/text", "/text?xml=1"]), {"Accept-Charset": ac} if ac else None)

    def a_etag(self):
        r = self.r
        st, hd, _ = self.get("/etag")
        tag = hd.get("ETag") if st else None
        k = r.random()
        if k < 0.4:
            self.get("/etag", {"If-None-Match": tag or '"nope"'})
        elif k < 0.6:
            self.get("/etag", {"If-Match": r.choice(['"other"', "*", tag or '"x"'])})
        elif k < 0.8:
            self.client.request("POST", self.url("/etag"), b"", {"If-None-Match": "*"})
        else:
            self.get("/etag", {"If-None-Match": "*"})

    def a_tools(self):
        r = self.r
        which = r.choice(["hdrs", "ref", "accept", "vary", "exp", "old", "nested"])
        h = {}
        if which == "ref":
            ref = r.choice([None, "http://example.com/cart", "https://evil.example/x", "garbage"])
            if ref:
                h["Referer"] = ref
        elif which == "accept":
            acc = r.choice([None, "text/html", "application/json;q=0.5, */*;q=0.1", "image/*",
                            "application/xml", "text/*", "application/atom+xml;q=0"])
            if acc:
                h["Accept"] = acc
        elif which == "vary":
            h["Accept-Language"] = r.choice(["en", "fr-CA"])
        self.get("/" + which, h)

    def a_proxy(self):
        r = self.r
        h = {}
        if r.random() < 0.7:
            h["X-Forwarded-For"] = r.choice(["203.0.113.9", "198.51.100.1, 10.0.0.2", "unknown"])
        if r.random() < 0.6:
            h["X-Forwarded-Host"] = r.choice(["shop.example.com", "a.example, b.example"])
        if r.random() < 0.4:
            h["X-Forwarded-Proto"] = r.choice(["https", "http"])
        if r.random() < 0.2:
            h["X-Forwarded-Ssl"] = "on"
        if r.random() < 0.2:
            h["Origin"] = "https://origin.example"
        self.get("/whoami", h)

    def a_basic(self):
        r = self.r
        cred = r.choice(["alice:wonderland", "alice:wrong", "mallory:x", "bob:builder", None, "!!",
                         "nocolon", "b\u00f6b:pw"])
        h = {}
        if cred == "!!":
            h["Authorization"] = "Basic !!!notbase64"
        elif cred is not None:
            h["Authorization"] = r.choice(["Basic", "Basic", "Bearer"]) + " " + base64.b64encode(
                cred.encode("utf-8")).decode()
        self.get(r.choice(["/basic/", "/basic/report"]), h)

    def a_digest(self):
        r = self.r
        uri = self.url(r.choice(["/digest/", "/digest/report"]))
        st, hd, _ = self.client.request("GET", uri)
        challenge = hd.get("WWW-Authenticate") if st else None
        if not challenge or r.random() < 0.1:
            self.client.request("GET", uri, None, {"Authorization": "Digest garbage"})
            return
        user, pw = r.choice([("alice", "wonderland"), ("alice", "nope"), ("mallory", "x"), ("bob", "builder")])
        nonce = None
        k = r.random()
        if k < 0.15:
            nonce = auth_digest.synthesize_nonce(REALM, DIGEST_KEY, timestamp=int(time.time()) - 3600)
        elif k < 0.25:
            nonce = "%d:%s" % (int(time.time()), "0" * 32)
        hdr = digest_header(challenge, user, pw, "GET", uri, nonce)
        if r.random() < 0.1:
            hdr = hdr.replace("qop=auth", "qop=auth-conf")
        self.client.request("GET", uri, None, {"Authorization": hdr})

    def a_failures(self):
        r = self.r
        which = r.choice(["hookfail", "errresp", "throw", "fragile", "data?bad=1", "old"])
        if which == "hookfail" and r.random() < 0.3 and self.site is not None:
            self.site.fail_next_request = True
            which = "page"
        self.get("/" + which)

    def a_session(self):
        r = self.r
        c = self.client
        name = self.session_name
        k = r.random()
        if k < 0.3:
            for _ in range(r.randint(1, 3)):
                self.get("/sess/visit")
        elif k < 0.4:
            c.cookies[name] = "%040x" % r.getrandbits(160)
            self.get("/sess/visit")
        elif k < 0.45:
            c.cookies[name] = r.choice(["../../etc/passwd", "..%2f..%2fx", "abc def"])
            self.get("/sess/peek")
        elif k < 0.55:
            self.get("/sess/visit")
            self.get("/sess/regen")
        elif k < 0.62:
            self.get("/sess/visit")
            self.get("/sess/logout")
        elif k < 0.72 and (self.session_locking == "explicit" or "filesessions" in self.features):
            # a second acquire_lock() of a RAM session under implicit locking
            # leaves its RLock held by the worker thread: later requests of
            # that session would wait forever
            self.get("/sess/visit")
            self.get("/sess/locked")
        elif k < 0.82:
            self.get("/sess/visit")
            if self.session_timeout < 1:
                time.sleep(0.4)
            self.get("/sess/visit")
        elif k < 0.9 and "filesessions" in self.features:
            sid = "%040x" % r.getrandbits(160)
            with open(os.path.join(self.session_dir, "session-" + sid), "wb") as fh:
                fh.write(r.choice([b"", b"not a pickle"]))
            c.cookies[name] = sid
            self.get("/sess/visit")
        else:
            self.get("/sess/visit")
            cookie = "; ".join("%s=%s" % kv for kv in c.cookies.items())
            self.concurrent([("GET", self.url("/sess/slow?ms=400"), None, {"Cookie": cookie}),
                             ("GET", self.url("/sess/visit"), None, {"Cookie": cookie})], stagger=0.1)

    def a_session_auth(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            self.get("/private/")
        elif k < 0.45:
            self.get(r.choice(["/private/login_screen", "/private/do_login", "/private/do_logout"]))
        else:
            user, pw = r.choice([("alice", "wonderland"), ("alice", "bad"), ("eve", "x")])
            self.client.request("POST", self.url("/private/do_login"),
                                "username=%s&password=%s&from_page=%s" % (user, pw, self.url("/private/")),
                                {"Content-Type": "application/x-www-form-urlencoded"})
            self.get("/private/")
            if r.random() < 0.4:
                self.client.request("POST", self.url("/private/do_logout"), "from_page=/",
                                    {"Content-Type": "application/x-www-form-urlencoded"})

    def a_api(self):
        r = self.r
        k = r.choice(["a1", "b2", "zz", None])
        path = "/api/" + (k or "")
        m = r.choice(["GET", "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
        body = "name=%s" % r.choice(["kiwi", "lime"]) if m in ("POST", "PUT") else None
        if m == "POST":
            path = "/api/?key=%s" % r.choice(["d4", "a1"])
        self.client.request(m, path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def a_files(self):
        self.client.request("GET", "/files/" + self.r.choice(["", "app.css", "docs/", "docs/readme.txt", "none"]))

    def a_wsgi(self):
        self.client.request("GET", "/legacy/" + self.r.choice(["", "hello?x=1", "missing", "crash"]))

    def a_raw(self):
        r = self.r
        port = self.port
        host = b"Host: 127.0.0.1\r\n"
        path = self.url("/page").encode()
        k = r.randrange(14)
        if k == 0:
            raw_exchange(port, [b"GARBAGE\r\n\r\n"])
        elif k == 1:
            raw_exchange(port, [b"GET %s HTTP/1.1\r\nConnection: close\r\n\r\n" % path])  # no Host
        elif k == 2:
            raw_exchange(port, [b"GET %s HTTP/1.0\r\n\r\n" % path])
        elif k == 3:
            reqs = [b"GET %s?name=p%d HTTP/1.1\r\n%s\r\n" % (path, i, host) for i in range(r.randint(2, 4))]
            reqs[-1] = reqs[-1][:-2] + b"Connection: close\r\n\r\n"
            raw_exchange(port, [b"".join(reqs)])
        elif k == 4:
            raw_exchange(port, [b"POST %s HTTP/1.1\r\n%sContent-Length: 100\r\n"
                                b"Content-Type: application/x-www-form-urlencoded\r\n\r\nname=cut"
                                % (self.url("/echo").encode(), host)], read=False)
            time.sleep(0.05)
        elif k == 5:
            raw_exchange(port, [b"GET %s HTTP/1.1\r\n%sX-Broken-Header\r\n\r\n" % (path, host)])
        elif k == 6:
            raw_exchange(port, [b"GET %s HTTP/1.1\r\n%sX-Big: %s\r\nConnection: close\r\n\r\n"
                                % (path, host, b"y" * 4000)])
        elif k == 7:
            raw_exchange(port, [b"GET http://127.0.0.1:%d%s?name=abs HTTP/1.1\r\n%sConnection: close\r\n\r\n"
                                % (port, path, host)])
        elif k == 8:
            raw_exchange(port, [b"GET %s HTTP/1.1\r\n%sCookie: bad cookie=\"\x01\"; ;;\r\n"
                                b"Connection: close\r\n\r\n" % (path, host)])
        elif k == 9:
            raw_exchange(port, [b"OPTIONS * HTTP/1.1\r\n%sConnection: close\r\n\r\n" % host])
        elif k == 10:
            raw_exchange(port, [b"BREW %s HTTP/1.1\r\n%sConnection: close\r\n\r\n" % (path, host)])
        elif k == 11:
            raw_exchange(port, [b"GET %s HTTP/1.1\r\n" % path, b"Host: 127.0.0.1\r\n"], read=False)
        elif k == 12:
            raw_exchange(port, [b"POST %s HTTP/1.1\r\n%sContent-Length: 50000\r\nExpect: 100-continue\r\n"
                                b"Connection: close\r\n\r\n" % (self.url("/echo").encode(), host)], wait=1.0)
        else:
            raw_exchange(port, [b"GET %s HTTP/2.0\r\n%s\r\n" % (path, host)])

    def a_engine(self):
        r = self.r
        eng = cherrypy.engine
        ops = ["graceful", "start", "restart", "publish", "mount"] + (["sigusr1"] if self.signals else [])
        op = r.choice(ops)
        if op == "graceful":
            try:
                eng.graceful()
            except Exception:  # a failing graceful listener
                pass
        elif op == "sigusr1":
            os.kill(os.getpid(), signal.SIGUSR1)
        elif op == "start":
            eng.start()  # already started: the listeners say so
        elif op == "restart":
            # a fresh server object: cheroot's own one rebinds its first
            # port, which the closing connections may still hold
            cherrypy.server.stop()
            cherrypy.server.httpserver = None
            cherrypy.server.start()
            self.port = self.client.port = cherrypy.server.bound_addr[1]
            self.client.close()
        elif op == "publish":
            try:
                eng.publish("audit", "price change")
            except Exception:  # a failing audit listener
                pass
        else:
            if "/late" not in cherrypy.tree.apps:
                cherrypy.config.update({"tree.late": cherrypy.Application(LateRoot(), "/late")})
            self.client.request("GET", "/late/")

    def concurrent(self, reqs, stagger=0.0):
        """Run requests at once, each on its own connection (bounded)."""
        def one(method, path, body, headers):
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request(method, path, body, headers)
                c.getresponse().read()
                c.close()
            except (OSError, http.client.HTTPException):
                pass
        ts = []
        for i, rq in enumerate(reqs):
            t = threading.Thread(target=one, args=rq, name="bench-client-%d" % i)
            t.start()
            ts.append(t)
            time.sleep(stagger)
        for t in ts:
            t.join(6)


def check_login(username, password):
    if USERS.get(username) != password:
        return "Wrong login/password"
    return None


def join_case_threads(before, budget=5.0):
    """Join the threads a case started (the HTTP server's, monitors', clients')."""
    end = time.monotonic() + budget
    keep = {getattr(getattr(cherrypy, "_cache", None), "expiration_thread", None)}
    for t in threading.enumerate():
        if t in before or t is threading.main_thread() or t in keep:
            continue
        t.join(max(0.0, end - time.monotonic()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    thread_errors = [0]

    def quiet_hook(args):
        # monitors and timers end by re-raising their callback's error; the
        # native server drops a failing streamed body without closing it
        thread_errors[0] += 1

    threading.excepthook = sys.unraisablehook = quiet_hook
    tmp = tempfile.mkdtemp(prefix="gen_cherrypy_")
    log = CherryLog(cherrypy, a.out, logger_names=["cherrypy"], wrappers=WRAPPERS)
    errors = {}
    t0 = time.time()
    try:
        for i in range(a.cases):
            r = random.Random("%d-%d" % (a.seed, i))
            before = set(threading.enumerate())
            log.case_id = "cherrypy-%04d" % i
            case = Case(r, tmp)
            try:
                case.build()
                case.start()
                case.steps()
                case.finish()
            except Exception as e:  # a broken case must not stop the generation
                errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                if os.environ.get("GEN_DEBUG"):
                    import traceback
                    traceback.print_exc()
            finally:
                case.cleanup()
                join_case_threads(before)
                log.stale_threads.update(t for t in threading.enumerate() if t is not threading.main_thread())
                log.end_case()
                shutil.rmtree(case.dir, ignore_errors=True)
        log.finish()
        cherrypy.engine.exit()  # stopped already: only settles the state the atexit hook checks
        sys.stderr.write("%s; dropped: %d records emitted outside cherrypy, %d from threads of ended cases, "
                         "%d outside any case; cases ended by an exception: %s; "
                         "errors in threads and finalizers: %d; %.0fs\n"
                         % (log.summary(), log.outside, log.stale, log.no_case, errors or "none",
                            thread_errors[0], time.time() - t0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
