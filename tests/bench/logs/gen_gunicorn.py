#!/usr/bin/python3
"""Event log of Gunicorn (Debian python3-gunicorn 20.1.0), a pre-fork WSGI
HTTP server: each case's server runs as a child process of the generator
(its arbiter, and the workers the arbiter forks), on 127.0.0.1.

    /usr/bin/python3 gen_gunicorn.py --out .deps/logs/gunicorn.csv.gz [--cases 700] [--seed 1] [--jobs 8]
    /usr/bin/python3 gen_gunicorn.py --repo     # prints the directory to index

Indexed: the whole installed ``gunicorn`` directory
(``/usr/lib/python3/dist-packages/gunicorn``): the arbiter, the HTTP
parser, the logger, the statsd logger, and every worker class (``sync``
and ``gthread`` run; the ``eventlet``, ``gevent`` and ``tornado`` workers
are indexed, not run: the first two need packages not installed, and
Gunicorn's tornado worker leaves the requests' logging to tornado;
``base_async.py`` logs the same texts as ``sync.py``).

A case is one server lifetime.  The case draws a configuration: the worker
class (``sync``, or ``gthread`` with 1-4 threads and a worker-connection
limit), 1-3 workers, the bind (a listening socket the generator binds and
hands over as ``fd://N``,
one or two ``127.0.0.1:PORT`` addresses, sometimes one already taken for a
second so that the arbiter retries, or a Unix socket), TLS with a
throw-away certificate (when ``openssl`` is there), the worker timeout
(short in some cases, so that a hanging request gets its worker killed),
the graceful timeout, keep-alive, ``max_requests`` with jitter, request
line and header limits, the PROXY protocol with allowed and refused
sources, ``preload_app``, a pid file, a process name, statsd (to a UDP
sink, or to a closed port: sends then fail), syslog over UDP, the log level
(debug, info, warning), the error log (stderr or a file), the access log
(stdout or a file, or none) and its format (Gunicorn's default or one of
six others of request, response, header and environment atoms), or a
``logconfig_dict`` or an INI ``logconfig`` instead, hooks that fail
(``post_request``, ``worker_exit``, ``post_fork``), an application that
fails to load or to import, and a file watched by the reloader.  The WSGI
application, defined here, answers with fixed and random statuses, JSON,
redirects, missing pages, large and streamed (chunked) bodies, a file
through ``wsgi.file_wrapper``, the legacy ``write`` callable, slow and
hanging answers, and fails by raising before and after the response
started, by setting an invalid header, by not starting a response, by
exiting its worker or killing it.  Once the arbiter's ``when_ready`` hook
has run (its signal handlers are then in place), 5-14 steps: requests with
``http.client`` (keep-alive, HEAD, POST bodies, basic credentials good and
garbled, referers and user agents), raw sockets (HTTP/1.0, pipelining,
malformed request lines, methods, versions and headers, oversized lines and
headers, bad chunked bodies, bad ``Content-Length``, conflicting scheme
headers, PROXY lines, plain text to a TLS port, a TLS hello to a plain
port, connections closed before or in the middle of a request or of the
response, idle connections), concurrent clients, and signals to the
arbiter (``HUP`` to reload with a changed worker count, ``TTIN``,
``TTOU``, ``USR1``, ``WINCH``, ``USR2`` to re-execute it) or to a worker
(``KILL``, ``TERM``, ``QUIT``, ``ABRT``, ``INT``).  The case ends with
``TERM`` (graceful), ``INT`` or ``QUIT`` to the arbiter, ``TERM`` to its
whole process group at once, or with the arbiter killed, after which its
workers notice the parent's change; an arbiter re-executed by ``USR2``
outlives its parent for a second (it logs its promotion) and gets ``TERM``
too.  Hooks failing on purpose make some cases end early: a worker that
fails to boot or an application that fails to load halt the arbiter.

Capture: ``_capture.py``'s handler runs inside the server's processes, on
the ``gunicorn.error`` and ``gunicorn.access`` loggers (which do not
propagate); Gunicorn's ``Logger.setup`` is wrapped so that the handler is
attached again after Gunicorn (or a ``logconfig_dict``/``logconfig``)
replaces the loggers' handlers.  The loggers' levels are the ones
Gunicorn (or the case's logging configuration) sets.  Every process (the
arbiter, its forked workers, a
re-executed arbiter) appends its rows to a file of its own in the case's
temp dir, flushed per record, so that a killed worker loses nothing; at the
end of the case the generator merges the files by timestamp and adds each
emitter's qualified name (parsing each file once, not in every worker).
Records whose emitter lies outside the ``gunicorn`` directory (the case's
hooks, compiled under the name ``gunicorn.conf.py`` so that tracebacks in
messages do not carry this file's path) are dropped and counted.  Cases run ``--jobs`` at a time, each
server in its own process group; every socket has a timeout, a server that
does not stop is killed with its group, and the generator adopts and reaps
the workers of killed arbiters (it is a child subreaper).

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): Gunicorn logs only through its ``glogging.Logger``, whose methods
``critical``, ``error``, ``warning``, ``info``, ``debug``, ``exception`` and
``log`` do nothing but forward to the stdlib logger, and ``access``, which
renders the access line (the configured format applied to the atoms it
collects) and logs it; ``instrument/statsd.py``'s ``Statsd`` subclass
overrides the same methods to call them and send the matching metric.
All are declared wrappers, so every record is wrapped and the access
line's emitter is the worker's call site (``handle_request`` in ``sync.py``
or ``gthread.py``, or ``handle_error`` in ``workers/base.py``).  Two texts
of their own go with them (``access`` logging a traceback when the atoms
fail, ``Statsd.log``'s "Failed to log to statsd"): attributed to the
caller as well; neither occurred in the runs seen.  ``Statsd._sock_send``
("Error sending message to statsd") and ``Logger._get_user`` ("Couldn't
get username") are not wrappers and are their records' emitters.
"""
import argparse
import csv
import ctypes
import datetime
import glob
import http.client
import json
import logging
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import gunicorn  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(gunicorn.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

LOG_METHODS = ("critical", "error", "warning", "info", "debug", "exception", "log", "access")
WRAPPERS = ({("gunicorn/glogging.py", f) for f in LOG_METHODS}
            | {("gunicorn/instrument/statsd.py", f) for f in LOG_METHODS})

DEFAULT_ACCESS = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'
ACCESS_FORMATS = [
    (6, None),  # Gunicorn's default
    (2, '%(h)s "%(r)s" %(s)s %(b)s %(L)s'),
    (2, '%({x-forwarded-for}i)s %(m)s %(U)s?%(q)s %(s)s %(M)sms pid=%(p)s'),
    (2, '{"remote": "%(h)s", "method": "%(m)s", "path": "%(U)s", "status": "%(s)s", '
        '"bytes": "%(B)s", "ua": "%(a)s"}'),
    (1, '%(t)s %(H)s %(s)s %({content-type}o)s rid=%({x-request-id}i)s %(D)sus'),
    (1, '%(h)s:%({remote_port}e)s %(u)s "%(r)s" -> %(s)s in %(T)ss'),
    (1, 'access %(m)s %(U)s status=%(s)s size=%(b)s agent="%(a)s" referer="%(f)s"'),
]
AGENTS = ["bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", "python-requests/2.28.1",
          "Go-http-client/1.1", None]
FAILURES = [lambda: ValueError("quantity must be positive"), lambda: KeyError("cart"),
            lambda: ZeroDivisionError("division by zero"), lambda: RuntimeError("backend unavailable"),
            lambda: TypeError("unsupported operand type(s)"), lambda: LookupError("no such order")]
REASONS = {200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently",
           302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 418: "I'm a teapot",
           429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
           503: "Service Unavailable", 299: "Whatever", 599: "Network Timeout"}


# ---------------------------------------------------------------------------
# the server side: runs in the case's child process (`--serve SPEC`)
# ---------------------------------------------------------------------------
class ProcessCapture(_capture.EventLog):
    """The shared capture inside the server's processes.  The base class
    computes the true emitter (unwrapping the declared wrappers); each row
    goes to a file of the emitting process (the arbiter and every forked
    worker each open their own on their first record), flushed at once:
    workers are killed by signals.  Rows start with ``R``; a record whose
    emitter is outside gunicorn leaves an ``O`` row, to be counted."""

    def __init__(self, rowdir):
        # the base class's own output is never used: rows go to rowdir
        super().__init__(gunicorn, os.devnull, logger_names=["gunicorn.error"], wrappers=WRAPPERS)
        self.rowdir = rowdir
        self._pid = None
        self._file = None
        self._csv = None
        self.attach()

    def attach(self):
        for name in ("gunicorn.error", "gunicorn.access"):
            lg = logging.getLogger(name)
            if self not in lg.handlers:
                lg.addHandler(self)

    def _writer(self):
        pid = os.getpid()
        if pid != self._pid:  # a forked worker: never write to the parent's file
            self._pid = pid
            self._file = open(os.path.join(self.rowdir, "rows-%d.csv" % pid), "a", newline="",
                              encoding="utf-8")
            self._csv = csv.writer(self._file)
        return self._csv

    def emit(self, record):
        try:
            ap, rel = self._rel(record.pathname)
            func, line, wrapped = record.funcName, record.lineno, 0
            if rel is not None and self._is_wrapper(rel, func):
                u = self._unwrap(record)
                ap, rel, func, line = u if u is not None else (None, None, None, None)
                wrapped = 1
            if rel is None:
                row = ["O", record.name]
            else:
                ts = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(
                    timespec="microseconds")
                # the generator resolves the qualified name from the file (parsed once there,
                # not in every forked worker)
                row = ["R", ts, _capture._escape(record.getMessage()), record.levelname, record.name,
                       rel, func, line, ap, wrapped]
            self._writer().writerow(row)
            self._file.flush()
        except Exception:  # never break the server under test
            self.handleError(record)


def make_wsgi_app(spec):
    """The case's WSGI application.  It logs nothing itself."""
    from urllib.parse import parse_qs
    big = b"0123456789abcdef" * 64  # 1 KiB
    fpath = os.path.join(spec["dir"], "static.bin")

    def arg(q, k, d):
        try:
            return type(d)(q.get(k, [d])[0])
        except (TypeError, ValueError):
            return d

    def app(environ, start_response):
        path = environ.get("PATH_INFO", "/")
        q = parse_qs(environ.get("QUERY_STRING", ""))
        method = environ["REQUEST_METHOD"]
        if path in ("/", "/ok"):
            body = b"ok\n"
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body] if method != "HEAD" else []
        if path == "/json":
            body = json.dumps({"items": list(range(arg(q, "n", 3))), "user": environ.get("REMOTE_USER")}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path.startswith("/status/"):
            try:
                code = int(path.rsplit("/", 1)[1])
            except ValueError:
                code = 400
            start_response("%d %s" % (code, REASONS.get(code, "Custom")), [("Content-Type", "text/plain")])
            return [] if code in (204, 304) else [b"status %d\n" % code]
        if path == "/redirect":
            start_response("302 Found", [("Location", "/ok"), ("Content-Length", "0")])
            return []
        if path == "/raise":
            raise FAILURES[arg(q, "k", 0) % len(FAILURES)]()
        if path == "/raise-late":
            start_response("200 OK", [("Content-Type", "text/plain")])

            def late():
                yield b"partial "
                raise FAILURES[arg(q, "k", 1) % len(FAILURES)]()
            return late()
        if path == "/slow":
            time.sleep(min(arg(q, "s", 0.1), 1.0))
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"slow\n"]
        if path == "/hang":
            time.sleep(min(arg(q, "s", 3.0), 6.0))
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"late\n"]
        if path == "/large":
            n = min(arg(q, "kb", 64), 8192)
            start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                      ("Content-Length", str(n * 1024))])
            return (big for _ in range(n))
        if path == "/stream":
            n, pause = min(arg(q, "n", 4), 50), min(arg(q, "pause", 0.0), 0.2)
            start_response("200 OK", [("Content-Type", "text/plain")])  # no length: chunked on HTTP/1.1

            def chunks():
                for i in range(n):
                    yield b"chunk %d %s\n" % (i, big[:100])
                    if pause:
                        time.sleep(pause)
            return chunks()
        if path == "/file":
            start_response("200 OK", [("Content-Type", "application/octet-stream"),
                                      ("Content-Length", str(os.path.getsize(fpath)))])
            return environ["wsgi.file_wrapper"](open(fpath, "rb"), 4096)
        if path == "/echo":
            data = environ["wsgi.input"].read()
            body = b"got %d bytes\n" % len(data)
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/write":
            write = start_response("200 OK", [("Content-Type", "text/plain")])
            write(b"written by the legacy write callable\n")
            return []
        if path == "/bad-header":
            k = arg(q, "k", 0)
            if k == 0:
                start_response("200 OK", [("X-Note", "line\r\nbreak")])
            else:
                start_response("200 OK", [("X Bad Name", "v")])
            return [b"never\n"]
        if path == "/no-start":
            return [b"no status\n"]
        if path == "/exit":
            sys.exit(3)  # leaves the worker through its request handler
        if path == "/crash":
            os.kill(os.getpid(), signal.SIGKILL)
        if path == "/hookfail":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"the post_request hook fails after this\n"]
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"no page at %s\n" % path.encode("utf-8", "replace")]
    return app


HOOKS = """
def post_request(worker, req, environ, resp):
    if req.path == "/hookfail":
        raise RuntimeError("audit log unavailable for %s" % req.path)


def worker_exit(server, worker):
    raise OSError(28, "No space left on device")


def post_fork(server, worker):
    if worker.age >= spec["post_fork_fail"]:
        raise RuntimeError("cannot open the session store")


def when_ready(server):
    # the arbiter's signal handlers are in place: the generator may signal it now
    open(os.path.join(spec["dir"], "ready"), "w").close()
    if spec["when_ready"]:
        # logged from outside gunicorn: the capture drops (and counts) it
        server.log.info("bench: server ready")
"""


def serve(spec_path):
    with open(spec_path) as fh:
        spec = json.load(fh)
    from gunicorn import glogging
    from gunicorn.app.base import BaseApplication
    from gunicorn.errors import AppImportError

    cap = ProcessCapture(spec["dir"])
    orig_setup = glogging.Logger.setup

    # Gunicorn's Logger (and dictConfig/fileConfig) replaces the loggers'
    # handlers: attach the capture again after each setup.
    def setup(self, cfg):
        orig_setup(self, cfg)
        cap.attach()
    glogging.Logger.setup = setup

    # The hooks are compiled under the name of Gunicorn's usual config file:
    # a traceback in a message ("Exception during worker exit:\n...") then
    # names that file, not this generator's path on this machine.
    hooks = {"os": os, "spec": spec}
    exec(compile(HOOKS, "gunicorn.conf.py", "exec"), hooks)
    post_request, worker_exit, post_fork, when_ready = (
        hooks[k] for k in ("post_request", "worker_exit", "post_fork", "when_ready"))

    class CaseApp(BaseApplication):
        def __init__(self):
            self.loads = 0
            super().__init__()

        def load_config(self):
            for k, v in spec["settings"].items():
                self.cfg.set(k, v)
            if self.loads:  # a reload (HUP) reads a changed configuration
                for k, v in spec["reload"].items():
                    self.cfg.set(k, v)
            self.loads += 1
            if spec["post_request_fail"]:
                self.cfg.set("post_request", post_request)
            if spec["worker_exit_fail"]:
                self.cfg.set("worker_exit", worker_exit)
            if spec["post_fork_fail"]:
                self.cfg.set("post_fork", post_fork)
            self.cfg.set("when_ready", when_ready)

        def load(self):
            fail = spec["load_fail"]
            if fail == "import":
                raise AppImportError("Failed to find attribute 'application' in 'shop.wsgi'.")
            if fail == "error":
                raise ImportError("No module named 'shop.settings'")
            if fail == "syntax":
                raise SyntaxError("invalid syntax", (os.path.join(spec["dir"], "wsgi_app.py"), 3, 5, "def (\n"))
            return make_wsgi_app(spec)

    CaseApp().run()


# ---------------------------------------------------------------------------
# the generator side: plans a case, runs its server, drives it as a client
# ---------------------------------------------------------------------------
def make_cert(tmp):
    """A throw-away self-signed certificate, or None without openssl."""
    exe = shutil.which("openssl")
    if exe is None:
        return None
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    try:
        subprocess.run([exe, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-keyout", key, "-out", cert, "-days", "30", "-subj", "/CN=localhost"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return cert, key


free_port = _capture.free_port
release_ports = _capture.release_ports


def listening(port):
    try:
        with open("/proc/net/tcp") as fh:
            next(fh)
            for line in fh:
                f = line.split()
                if f[3] == "0A" and int(f[1].split(":")[1], 16) == port:
                    return True
    except OSError:
        return True  # cannot tell: let the requests find out
    return False


def children_of(pid):
    """The pids of the children of pid (its workers, for the arbiter):
    from /proc's children lists, or, in a kernel without them, from every
    process's parent pid."""
    kids = []
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as fh:
                kids.extend(int(x) for x in fh.read().split())
        return kids
    except FileNotFoundError:
        pass
    except (OSError, ValueError):
        return kids
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


class Reaper:
    """The generator is a child subreaper: the workers of a killed arbiter
    become its children, and are reaped here (only pids that no running
    case's Popen waits for)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.popen = set()
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            self.ok = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            self.ok = False

    def add(self, pid):
        with self.lock:
            self.popen.add(pid)

    def remove(self, pid):
        with self.lock:
            self.popen.discard(pid)

    def reap(self, wait=0.0):
        """Reap the adopted children that have ended; with wait, keep at it
        until none is left (killed ones take a moment to end)."""
        t = time.time() + wait
        while True:
            with self.lock:
                mine = set(self.popen)
            left = 0
            for pid in children_of(os.getpid()):
                if pid in mine:
                    continue
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == 0:
                        left += 1
                except ChildProcessError:
                    pass
            if not left or time.time() >= t:
                return left
            time.sleep(0.05)


def drain(s, limit=None, idle=None):
    """Read until the server closes, limit bytes, or (idle) a pause after
    the first bytes: a kept-alive connection stays open."""
    n = 0
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            if idle is not None and n == 0:
                s.settimeout(idle)
            n += len(d)
            if limit is not None and n >= limit:
                break
    except OSError:
        pass
    return n


class Case:
    def __init__(self, cid, r, cdir, certs, reaper, stats):
        self.cid, self.r, self.dir, self.certs, self.reaper, self.stats = cid, r, cdir, certs, reaper, stats
        self.proc = None
        self.ports = []
        self.unix = None
        self.fd_socks = []
        self.udp = []
        self.blocker = None
        self.notes = []
        self.reexec = False

    # -- the plan ---------------------------------------------------------
    def plan(self):
        r = self.r
        st = {}
        self.worker = pick(r, [(55, "sync"), (45, "gthread")])
        st["worker_class"] = self.worker
        st["workers"] = r.choice([1, 1, 2, 2, 3])
        if self.worker == "gthread":
            st["threads"] = r.randint(1, 4)
            st["worker_connections"] = pick(r, [(8, 1000), (2, r.randint(2, 10)), (1, st["threads"])])
        st["keepalive"] = pick(r, [(3, 2), (2, 5), (1, 0), (1, 1)])
        self.short_timeout = r.random() < 0.14
        self.timeout = (1 if self.worker == "sync" else 2) if self.short_timeout else 30
        st["timeout"] = self.timeout
        st["graceful_timeout"] = r.choice([1, 1, 2, 3])
        if r.random() < 0.2:
            st["max_requests"] = r.randint(2, 12)
            st["max_requests_jitter"] = r.choice([0, 0, 3])
        self.limit_line = pick(r, [(7, 4094), (2, r.choice([120, 300, 1000])), (1, 0)])
        st["limit_request_line"] = self.limit_line
        self.limit_fields = pick(r, [(7, 100), (2, r.choice([5, 10, 20]))])
        st["limit_request_fields"] = self.limit_fields
        self.limit_field_size = pick(r, [(7, 8190), (2, r.choice([100, 256, 1000]))])
        st["limit_request_field_size"] = self.limit_field_size
        self.proxy = r.random() < 0.12
        if self.proxy:
            st["proxy_protocol"] = True
            st["proxy_allow_ips"] = pick(r, [(3, "127.0.0.1"), (1, "*"), (1, "10.0.0.5")])
        if r.random() < 0.1:
            st["forwarded_allow_ips"] = r.choice(["*", "10.0.0.1"])
        st["preload_app"] = r.random() < 0.2
        st["sendfile"] = r.random() < 0.8
        if r.random() < 0.3:
            st["pidfile"] = os.path.join(self.dir, "gunicorn.pid")
        if r.random() < 0.3:
            st["proc_name"] = r.choice(["shop", "api-server", "bench"])
        if r.random() < 0.15:
            st["raw_env"] = ["SHOP_MODE=bench", "FEATURE_X=%d" % r.randint(0, 1)]
        self.tls = self.certs is not None and r.random() < 0.12
        if self.tls:
            st["certfile"], st["keyfile"] = self.certs
        # the bind
        self.bind_kind = pick(r, [(5, "fd"), (4, "addr"), (1, "two"), (0.6, "in-use"), (0.8, "unix")])
        if self.bind_kind == "unix":
            self.unix = os.path.join(self.dir, "gunicorn.sock")
            st["bind"] = ["unix:" + self.unix]
        elif self.bind_kind != "fd":
            self.ports = [free_port() for _ in range(2 if self.bind_kind == "two" else 1)]
            st["bind"] = ["127.0.0.1:%d" % p for p in self.ports]
        # logging
        level = pick(r, [(45, "debug"), (42, "info"), (13, "warning")])
        st["loglevel"] = level
        if r.random() < 0.3:
            st["errorlog"] = os.path.join(self.dir, "error.log")
        fmt = pick(r, ACCESS_FORMATS)
        if fmt is not None:
            st["access_log_format"] = fmt
        self.access = pick(r, [(5, "-"), (3, "file"), (2, None)])
        if self.access == "file":
            st["accesslog"] = os.path.join(self.dir, "access.log")
        elif self.access == "-":
            st["accesslog"] = "-"
        conf = pick(r, [(80, None), (12, "dict"), (8, "ini")])
        if conf == "dict":
            st["logconfig_dict"] = self.log_dict(level)
        elif conf == "ini":
            st["logconfig"] = self.log_ini(level)
        if r.random() < 0.12:
            u = self.udp_sink()
            if r.random() < 0.2:  # nobody listens there: sends fail
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("127.0.0.1", 0))
                u = s.getsockname()[1]
                s.close()
            st["statsd_host"] = "127.0.0.1:%d" % u
            st["statsd_prefix"] = r.choice(["shop", "bench.api", ""])
            if r.random() < 0.3:
                st["dogstatsd_tags"] = "env:bench,team:web"
        if r.random() < 0.06:
            st["syslog"] = True
            st["syslog_addr"] = "udp://127.0.0.1:%d" % self.udp_sink()
            st["syslog_prefix"] = r.choice(["shop", None]) or "gunicorn"
            st["disable_redirect_access_to_syslog"] = r.random() < 0.5
        self.reload_file = None
        if r.random() < 0.04:
            self.reload_file = os.path.join(self.dir, "settings.ini")
            with open(self.reload_file, "w") as fh:
                fh.write("[shop]\nmode = 1\n")
            st["reload"] = True
            st["reload_engine"] = "poll"
            st["reload_extra_files"] = [self.reload_file]
        self.workers = st["workers"]
        spec = {
            "dir": self.dir,
            "settings": st,
            "reload": {"workers": r.choice([1, 2, 3])},
            "post_request_fail": r.random() < 0.12,
            "worker_exit_fail": r.random() < 0.07,
            "post_fork_fail": pick(r, [(97, 0), (1.5, 1), (1.5, 2)]),
            "when_ready": r.random() < 0.2,
            "load_fail": pick(r, [(95, None), (2, "import"), (2, "error"), (1, "syntax")]),
        }
        if spec["load_fail"] == "syntax" and not st.get("reload"):
            spec["load_fail"] = "error"
        if spec["load_fail"] and st["preload_app"]:
            st["preload_app"] = False  # a failure at preload only prints, never logs
        self.spec = spec
        self.post_request_fail = spec["post_request_fail"]
        with open(os.path.join(self.dir, "static.bin"), "wb") as fh:
            fh.write(os.urandom(1024) * r.choice([1, 16, 200]))

    def udp_sink(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        self.udp.append(s)
        return s.getsockname()[1]

    def log_dict(self, level):
        r = self.r
        if r.random() < 0.5:  # only the root: Gunicorn's defaults for the rest, at INFO
            return {"root": {"level": "INFO", "handlers": ["console"]}}
        return {
            "version": 1, "disable_existing_loggers": False,
            "formatters": {"brief": {"format": "%(levelname)s %(name)s: %(message)s"}},
            "handlers": {"null": {"class": "logging.NullHandler"},
                         "err": {"class": "logging.StreamHandler", "formatter": "brief",
                                 "stream": "ext://sys.stderr"}},
            "loggers": {"gunicorn.error": {"level": r.choice([level.upper(), "DEBUG"]),
                                           "handlers": ["err"], "propagate": False},
                        "gunicorn.access": {"level": "INFO", "handlers": ["null"], "propagate": False}},
            "root": {"level": "WARNING", "handlers": []},
        }

    def log_ini(self, level):
        path = os.path.join(self.dir, "logging.ini")
        with open(path, "w") as fh:
            fh.write("[loggers]\nkeys=root,error,access\n\n[handlers]\nkeys=null\n\n[formatters]\nkeys=\n\n"
                     "[logger_root]\nlevel=WARNING\nhandlers=null\n\n"
                     "[logger_error]\nlevel=%s\nhandlers=null\npropagate=0\nqualname=gunicorn.error\n\n"
                     "[logger_access]\nlevel=INFO\nhandlers=null\npropagate=0\nqualname=gunicorn.access\n\n"
                     "[handler_null]\nclass=NullHandler\nargs=()\n" % level.upper())
        return path

    # -- the server ---------------------------------------------------------
    def start(self):
        st = self.spec["settings"]
        pass_fds = ()
        if self.bind_kind == "fd":
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(64)
            self.fd_socks.append(s)
            self.ports = [s.getsockname()[1]]
            st["bind"] = ["fd://%d" % s.fileno()]
            pass_fds = (s.fileno(),)
        elif self.bind_kind == "in-use":  # taken for a while: the arbiter retries every second
            self.blocker = socket.socket()
            self.blocker.bind(("127.0.0.1", self.ports[0]))
            self.blocker.listen(1)
        spec_path = os.path.join(self.dir, "spec.json")
        with open(spec_path, "w") as fh:
            json.dump(self.spec, fh)
        err = subprocess.DEVNULL if os.environ.get("GEN_DEBUG") != "2" else None
        self.proc = subprocess.Popen([sys.executable, "-B", os.path.abspath(__file__), "--serve", spec_path],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                     pass_fds=pass_fds, start_new_session=True, cwd=self.dir)
        self.reaper.add(self.proc.pid)
        for s in self.fd_socks:  # the server holds its copy now; ours would keep the port open
            s.close()
        if self.blocker is not None:
            time.sleep(self.r.choice([0.6, 1.3]))
            self.blocker.close()
        ready = os.path.join(self.dir, "ready")  # written by the arbiter's when_ready hook
        t = time.time() + 8
        while time.time() < t and self.alive():
            if os.path.exists(ready):
                return True
            time.sleep(0.02)
        return False

    def alive(self):
        return self.proc is not None and proc_state(self.proc.pid) not in (None, "Z")

    def kill(self, sig):
        if self.alive():
            try:
                os.kill(self.proc.pid, sig)
            except OSError:
                pass

    def stop(self):
        """End the server: the drawn ending, a bounded wait, then the whole
        process group is killed (workers of a killed arbiter, a re-executed
        arbiter), and the arbiter reaped."""
        r = self.r
        end = pick(r, [(60, "term"), (14, "int"), (14, "quit"), (6, "kill-arbiter"), (6, "none")])
        if not self.alive():
            end = "exited"
        self.notes.append("end:" + end)
        if end == "kill-arbiter":
            self.kill(signal.SIGKILL)
            time.sleep(0.1)
            try:  # a request lets a sync worker leave its wait and see the new parent
                self.client_get("/ok", timeout=1.5)
            except OSError:
                pass
            time.sleep(1.2)
        elif end == "none":  # the whole group gets TERM at once, as from a terminal's ^C
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except OSError:
                pass
        elif end != "exited":
            self.kill({"term": signal.SIGTERM, "int": signal.SIGINT, "quit": signal.SIGQUIT}[end])
        t = time.time() + self.spec["settings"]["graceful_timeout"] + 3
        while self.alive() and time.time() < t:
            time.sleep(0.02)
        stuck = self.alive()
        if self.reexec and not stuck:
            # the arbiter re-executed by USR2 outlives it: give it a turn of its
            # loop to see its parent gone, then stop it the way ^C would
            time.sleep(1.1)
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except OSError:
                pass
            time.sleep(self.spec["settings"]["graceful_timeout"] + 0.3)
        try:  # the group id stays reserved while the arbiter is an unreaped zombie
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()
        self.reaper.remove(self.proc.pid)
        self.reaper.reap()
        self.stats.count("exit", str(self.proc.returncode))
        self.notes.append("exit:%s" % self.proc.returncode)
        return not stuck

    def close(self):
        for s in self.udp + ([self.blocker] if self.blocker else []):
            s.close()
        release_ports(self.ports if self.bind_kind != "fd" else [])

    # -- clients ------------------------------------------------------------
    def connect(self, timeout=3.0, tls=None):
        if self.unix is not None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(self.unix)
        else:
            s = socket.create_connection(("127.0.0.1", self.r.choice(self.ports)), timeout=timeout)
        if self.tls if tls is None else tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            try:
                s = ctx.wrap_socket(s, server_hostname="localhost")
            except (OSError, ssl.SSLError):
                s.close()
                raise
        return s

    def raw(self, chunks, pause=0.0, read=True, timeout=3.0, rst=False, limit=None, tls=None, wait=None):
        try:
            s = self.connect(timeout, tls)
        except OSError:
            return 0
        n = 0
        try:
            for c in chunks:
                s.sendall(c)
                if pause:
                    time.sleep(pause)
            if wait:
                time.sleep(wait)
            if read:
                n = drain(s, limit, idle=0.3)
        except OSError:
            pass
        finally:
            if rst:
                try:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                except OSError:
                    pass
            s.close()
        return n

    def headers(self):
        r = self.r
        hs = {}
        ua = r.choice(AGENTS)
        if ua:
            hs["User-Agent"] = ua
        if r.random() < 0.3:
            hs["Referer"] = r.choice(["http://localhost/", "https://shop.example/cart", "-"])
        if r.random() < 0.25:
            hs["X-Request-Id"] = "req-%04d" % r.randint(0, 9999)
        if r.random() < 0.15:
            hs["X-Forwarded-For"] = "203.0.113.%d" % r.randint(1, 254)
        return hs

    def target(self):
        r = self.r
        k = pick(r, [(12, "/"), (6, "/json"), (6, "/status"), (5, "/missing"), (3, "/raise"), (2, "/raise-late"),
                     (3, "/slow"), (3, "/large"), (3, "/stream"), (2, "/file"), (2, "/write"), (1, "/bad-header"),
                     (1, "/no-start"), (2, "/redirect"), (2, "/echo"), (0.4, "/crash")]
                 # SystemExit in a gthread request thread only leaves the client waiting
                 + ([(0.4, "/exit")] if self.worker == "sync" else [])
                 + ([(3, "/hookfail")] if self.post_request_fail else []))
        if k == "/":
            return r.choice(["/", "/ok", "/ok?page=%d" % r.randint(1, 9)])
        if k == "/json":
            return "/json?n=%d" % r.randint(0, 5)
        if k == "/status":
            return "/status/%d" % r.choice(list(REASONS))
        if k == "/missing":
            return r.choice(["/missing", "/cart/%d" % r.randint(1, 99), "/favicon.ico", "/static/app.js"])
        if k in ("/raise", "/raise-late"):
            return "%s?k=%d" % (k, r.randrange(len(FAILURES)))
        if k == "/slow":
            return "/slow?s=%.2f" % r.choice([0.05, 0.1, 0.2])
        if k == "/large":
            return "/large?kb=%d" % r.choice([16, 64, 256])
        if k == "/stream":
            return "/stream?n=%d" % r.randint(1, 8)
        if k == "/bad-header":
            return "/bad-header?k=%d" % r.randint(0, 1)
        return k

    def client_get(self, path, timeout=3.0):
        s = self.connect(timeout)
        try:
            s.sendall(b"GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % path.encode())
            drain(s)
        finally:
            s.close()

    def http_conn(self, timeout=3.0):
        if self.unix is not None:
            return None
        port = self.r.choice(self.ports)
        if self.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ctx)
        return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def request(self, c, method, path, body=None, extra=None):
        hs = self.headers()
        hs.update(extra or {})
        try:
            c.request(method, path, body=body, headers=hs)
            resp = c.getresponse()
            resp.read()
            return resp.status
        except (OSError, http.client.HTTPException):
            c.close()
            return None

    def s_requests(self):
        r = self.r
        for _ in range(r.randint(1, 4)):
            c = self.http_conn()
            if c is None:
                return self.s_raw_get()
            self.request(c, pick(r, [(9, "GET"), (1, "HEAD")]), self.target())
            c.close()

    def s_raw_get(self):
        self.raw([b"GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % self.target().encode()])

    def s_keepalive(self):
        r = self.r
        c = self.http_conn()
        if c is None:
            return self.s_pipeline()
        for _ in range(r.randint(2, 6)):
            if self.request(c, "GET", self.target()) is None:
                break
        c.close()

    def s_http10(self):
        r = self.r
        ka = b"Connection: keep-alive\r\n" if r.random() < 0.4 else b""
        self.raw([b"GET %s HTTP/1.0\r\n%s\r\n" % (self.target().encode(), ka)], timeout=2.0)

    def s_post(self):
        r = self.r
        body = os.urandom(r.choice([10, 1000, 50000]))
        k = r.randrange(4)
        if k == 0:
            c = self.http_conn()
            if c is not None:
                self.request(c, r.choice(["POST", "PUT"]), "/echo", body,
                             {"Content-Type": "application/octet-stream"})
                c.close()
                return
        if k <= 1:  # chunked
            parts = [body[i:i + 4000] for i in range(0, len(body), 4000)]
            data = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"
            self.raw([b"POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
                      b"Connection: close\r\n\r\n", data])
        elif k == 2:  # a bad chunk size, or a chunk without its terminator
            bad = r.choice([b"zz\r\nhello\r\n0\r\n\r\n", b"5\r\nhelloXX0\r\n\r\n"])
            self.raw([b"POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n" + bad])
        else:  # the body ends before its length
            self.raw([b"POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n" + body[:100]],
                     read=False, wait=0.05)

    def s_malformed(self):
        r = self.r
        req = r.choice([
            b"GARBAGE\r\n\r\n",
            b"GET /\r\n\r\n",
            b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n",
            b"get /ok HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /ok HTTP/2.5\r\nHost: x\r\n\r\n",
            b"GET /ok HTTP/1.1\r\nHost: x\r\nBadHeaderLine\r\n\r\n",
            b"GET /ok HTTP/1.1\r\nHost: x\r\nBad Name: x\r\n\r\n",
            b"GET /ok HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            b"GET /ok HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(32) + b"\r\n\r\n",
            b"PROXY TCP4 192.0.2.1 127.0.0.1 4000 80\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET /ok HTTP/1.1\r\nHost: x\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Ssl: off\r\n\r\n",
        ])
        self.raw([req], timeout=2.0)

    def s_oversize(self):
        r = self.r
        k = r.randrange(3)
        if k == 0:
            n = (self.limit_line or 4094) + r.choice([10, 500])
            req = b"GET /ok?q=%s HTTP/1.1\r\nHost: x\r\n\r\n" % (b"a" * n)
        elif k == 1:
            n = self.limit_fields + r.choice([1, 20])
            req = b"GET /ok HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(n)) + b"\r\n"
        else:
            n = self.limit_field_size + r.choice([10, 300])
            req = b"GET /ok HTTP/1.1\r\nHost: x\r\nCookie: %s\r\n\r\n" % (b"c" * n)
        self.raw([req], timeout=2.0)

    def s_early_close(self):
        r = self.r
        k = r.randrange(3)
        if k == 0:  # half a request line
            self.raw([b"GET /ok HT"], read=False, wait=0.05)
        elif k == 1:  # headers never finished
            self.raw([b"GET /ok HTTP/1.1\r\nHost: x\r\n"], read=False, wait=0.05, rst=r.random() < 0.3)
        else:  # connect and leave
            self.raw([], read=False, wait=0.02)

    def s_abort_response(self):
        r = self.r
        if r.random() < 0.5:
            req = b"GET /large?kb=%d HTTP/1.1\r\nHost: x\r\n\r\n" % r.choice([4096, 8192])
        else:
            req = b"GET /stream?n=40&pause=0.02 HTTP/1.1\r\nHost: x\r\n\r\n"
        self.raw([req], limit=2000, rst=r.random() < 0.6)
        time.sleep(0.1)

    def s_slow_client(self):
        self.raw([b"GET /ok HT", b"TP/1.1\r\nHost: x\r\n", b"Connection: close\r\n\r\n"], pause=0.05)

    def s_idle(self):
        r = self.r
        wait = r.choice([0.2, 0.5]) if not self.short_timeout else self.timeout + 1.2
        self.raw([], read=False, wait=wait)

    def s_pipeline(self):
        r = self.r
        reqs = b"".join(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % self.target().encode()
                        for _ in range(r.randint(2, 3)))
        self.raw([reqs + b"GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"], timeout=2.0)

    def s_concurrent(self):
        r = self.r
        paths = [self.target() for _ in range(r.randint(2, 4))]

        def one(p):
            try:
                self.client_get(p)
            except OSError:
                pass
        ts = [threading.Thread(target=one, args=(p,)) for p in paths]
        for t in ts:
            t.start()
        for t in ts:
            t.join(5)

    def s_auth(self):
        r = self.r
        cred = r.choice([b"Basic dXNlcjpwYXNz", b"Basic YWxpY2U6c2VjcmV0", b"Basic !!!notbase64",
                         b"Basic bm9jb2xvbg==", b"Bearer abc.def", b"Basic //79"])
        self.raw([b"GET /json HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nConnection: close\r\n\r\n" % cred])

    def s_proxy(self):
        r = self.r
        line = r.choice([b"PROXY TCP4 192.0.2.10 127.0.0.1 51000 80\r\n",
                         b"PROXY TCP6 2001:db8::1 ::1 51000 80\r\n",
                         b"PROXY UNKNOWN\r\n",
                         b"PROXY TCP9 192.0.2.10 127.0.0.1 51000 80\r\n",
                         b"PROXY TCP4 999.0.2.10 127.0.0.1 51000 80\r\n",
                         b"PROXY TCP4 192.0.2.10 127.0.0.1 port 80\r\n"])
        self.raw([line + b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % self.target().encode()],
                 timeout=2.0)

    def s_tls_mismatch(self):
        if self.tls:  # plain text to the TLS port
            self.raw([b"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"], tls=False, timeout=2.0)
        elif self.certs is not None and self.unix is None:  # a TLS client to the plain port
            try:
                s = self.connect(2.0, tls=True)
                s.close()
            except (OSError, ssl.SSLError):
                pass

    def s_hang(self):
        self.raw([b"GET /hang?s=%d HTTP/1.1\r\nHost: x\r\n\r\n" % (self.timeout + 3)],
                 timeout=self.timeout + 2.5)

    def serving(self):
        """The arbiter runs and still listens (a halting one must not get signals)."""
        if not self.alive():
            return False
        if self.unix is not None:
            return os.path.exists(self.unix)
        return all(listening(p) for p in self.ports)

    def s_signal(self, name):
        sig = getattr(signal, "SIG" + name.upper())
        if not self.serving():
            return
        self.reexec = self.reexec or name == "usr2"
        self.kill(sig)
        time.sleep({"hup": 0.4, "ttin": 0.3, "ttou": 0.3, "usr2": 0.6}.get(name, 0.1))

    def s_kill_worker(self):
        r = self.r
        sig = pick(r, [(3, signal.SIGKILL), (2, signal.SIGTERM), (2, signal.SIGQUIT), (1, signal.SIGABRT),
                       (1, signal.SIGINT)])
        k = r.randrange(6)  # drawn first: the draws after it do not depend on the pids found
        kids = sorted(children_of(self.proc.pid))
        if not kids:
            return
        try:
            os.kill(kids[k % len(kids)], sig)
        except OSError:
            pass
        time.sleep(0.3)

    def s_touch(self):
        with open(self.reload_file, "a") as fh:
            fh.write("mode = %d\n" % self.r.randint(2, 9))
        time.sleep(1.3)  # the poll reloader looks once a second

    def step(self):
        r = self.r
        k = pick(r, [(14, "requests"), (6, "keepalive"), (3, "http10"), (4, "post"), (5, "malformed"),
                     (3, "oversize"), (3, "early_close"), (2.5, "abort_response"), (1.5, "slow_client"),
                     (1.5, "idle" if not self.short_timeout else "requests"), (2, "pipeline"), (2, "concurrent"),
                     (2, "auth"), (1.5, "tls_mismatch"), (1.5, "hup"), (1.5, "ttin"), (1.2, "ttou"),
                     (0.8, "usr1"), (0.6, "winch"), (0.25, "usr2"), (1.2, "kill_worker")]
                 + ([(4, "proxy")] if self.proxy else [])
                 + ([(3, "hang"), (0.5, "idle")] if self.short_timeout and self.worker == "sync" else [])
                 + ([(3, "touch")] if self.reload_file else []))
        self.notes.append(k)
        if k in ("hup", "ttin", "ttou", "usr1", "winch", "usr2"):
            self.s_signal(k)
        else:
            getattr(self, "s_" + k)()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.d = {"errors": {}, "stuck": {}, "workers": {}, "exit": {}, "outside": {}}

    def count(self, what, key, n=1):
        with self.lock:
            self.d[what][key] = self.d[what].get(key, 0) + n


class OrderedLog:
    """Cases finish out of order (``--jobs`` run at a time); the log holds
    them in order: a finished case waits until every case before it is
    written."""

    def __init__(self, log):
        self.log = log
        self.lock = threading.Lock()
        self.done = {}
        self.next = 0

    def put(self, index, cid, rows):
        with self.lock:
            self.done[index] = (cid, rows)
            while self.next in self.done:
                cid, rows = self.done.pop(self.next)
                self.log.write_case(cid, rows)
                self.next += 1


_QN = _capture.QualnameIndex()
_QN_LOCK = threading.Lock()


def collect(cid, cdir, stats):
    """The rows every process of the case wrote, merged by timestamp (the
    sort is stable: a process's own rows keep their order), each with the
    qualified name of its emitter's enclosing function."""
    rows = []
    for fn in sorted(glob.glob(os.path.join(cdir, "rows-*.csv"))):
        with open(fn, newline="", encoding="utf-8") as fh:
            for row in csv.reader(fh):
                if row and row[0] == "R" and len(row) == 10:
                    with _QN_LOCK:
                        row[8] = _QN.qualname(row[8], int(row[7]))
                    rows.append(row[1:])
                elif row and row[0] == "O":
                    stats.count("outside", row[1] if len(row) > 1 else "?")
    rows.sort(key=lambda x: x[0])
    return [[cid] + x for x in rows]


def run_case(i, a, tmp, certs, reaper, out, stats):
    cid = "gu-%05d" % i
    r = random.Random("%d-%d" % (a.seed, i))
    cdir = os.path.join(tmp, cid)
    os.makedirs(cdir)
    case = Case(cid, r, cdir, certs, reaper, stats)
    tc = time.time()
    rows = []
    try:
        case.plan()
        stats.count("workers", case.worker)
        if case.start():
            time.sleep(0.05)
            deadline = time.time() + 10
            for _ in range(r.randint(5, 14)):
                if not case.serving() or time.time() > deadline:
                    break
                case.step()
            time.sleep(0.05)
    except Exception as e:  # a broken case must not stop the generation
        stats.count("errors", type(e).__name__)
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        if case.proc is not None and not case.stop():
            stats.count("stuck", "servers")
        case.close()
        rows = collect(cid, cdir, stats)
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %s %d events %.2fs\n" % (cid, case.worker if hasattr(case, "worker") else "?",
                                                            " ".join(case.notes), len(rows), time.time() - tc))
        out.put(i, cid, rows)
        shutil.rmtree(cdir, ignore_errors=True)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=700)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=8, help="cases run side by side (their servers mostly wait)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gen_gunicorn_")
    reaper = Reaper()
    stats = Stats()
    log = _capture.EventLog(gunicorn, a.out, logger_names=["gunicorn.bench-unused"], wrappers=WRAPPERS)
    out = OrderedLog(log)
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    if only:  # debugging: the skipped cases count as written
        out.done.update({i: ("-", []) for i in range(a.cases) if i not in todo})
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            run_case(i, a, tmp, certs, reaper, out, stats)

    try:
        certs = make_cert(tmp)
        workers = [threading.Thread(target=worker, name="bench-worker-%d" % k) for k in range(max(1, a.jobs))]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        reaper.reap(wait=5.0)
        log.finish()
        sys.stderr.write("%s; workers %s; arbiter exit statuses %s; dropped: %d records emitted outside "
                         "gunicorn; servers killed after their ending: %d; case exceptions: %s; tls %s; "
                         "subreaper %s; %.0fs\n"
                         % (log.summary(), stats.d["workers"], stats.d["exit"], sum(stats.d["outside"].values()),
                            stats.d["stuck"].get("servers", 0), stats.d["errors"] or "none",
                            "yes" if certs else "no (no openssl)", "yes" if reaper.ok else "no",
                            time.time() - t0))
        if log.cases_written == 0:
            sys.exit("gen_gunicorn: no case logged anything (run with GEN_DEBUG=2 to see the servers' errors)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
