#!/usr/bin/python3
"""Event log of Werkzeug (Debian python3-werkzeug 2.2.2), the WSGI toolkit and
its development server, serving applications built per case to clients in
the same process, on 127.0.0.1 (also ``::1`` and Unix sockets).

    /usr/bin/python3 gen_werkzeug.py --out .deps/logs/werkzeug.csv.gz [--cases 1000] [--seed 1]
    /usr/bin/python3 gen_werkzeug.py --repo     # prints the directory to index

Indexed: the installed ``werkzeug`` directory
(``/usr/lib/python3/dist-packages/werkzeug``): the development server
(``serving.py``), the reloader, the debugger, routing, wrappers, the
middleware and the rest of the toolkit.  Everything werkzeug logs goes
through ``werkzeug._internal._log`` to the ``werkzeug`` logger: access lines,
tracebacks of failing requests, TLS errors, the startup banner, the reloader's
and the debugger's lines.

A case is one application lifetime.  The generator draws a plan -- an
application (a ``werkzeug.routing.Map`` of 16-31 rules over random names,
under a ``Submount`` prefix or not, strict or lax slashes, merged slashes,
``redirect_defaults``; converters ``int``, ``float``, ``path``, ``uuid``,
``any``, ``string(length=...)`` and two of the application's own, one of
them refusing values with ``ValidationError``; ``redirect_to`` rules, a
websocket rule; handlers for lists, items, forms, uploads, JSON, Basic auth,
cookies, conditional and range responses, ``send_from_directory``, redirects
with every 3xx code, streamed and large bodies, ``abort`` with many codes,
URL building, slow answers, and failures: exceptions raised in handlers, in
the middle of a streamed body, str written where bytes belong, SQLite
errors, ``abort(599)``), an error policy (``HTTPException`` objects returned
as responses, other exceptions left to the server or turned into 500s),
middleware (``ProxyFix``, ``SharedDataMiddleware`` with a directory and the
debugger's package data, ``DispatcherMiddleware`` mounting a health check, an
admin application and a legacy application that uses ``write()``,
``ProfilerMiddleware``, ``LintMiddleware``, ``ProxyMiddleware`` forwarding to
a second werkzeug server of the case, which may be stopped mid-case), the
debugger on some cases (``DebuggedApplication`` with random ``evalex``,
``pin_security``, ``pin_logging``, console path, and ``WERKZEUG_DEBUG_PIN``
unset, a number, a dashed pin or ``off``), and a server: ``run_simple`` (in
the generator's main thread, ended by SIGINT, as Ctrl+C ends it; sometimes
with ``use_debugger``, ``static_files``, ``passthrough_errors``),
``make_server`` or ``prepare_socket`` + ``make_server(fd=...)`` (in a thread,
some calling ``log_startup``, ended by ``shutdown()``; port 0 sometimes), or
``run_simple`` with ``use_reloader=True`` (the stat reloader; below); single
threaded, threaded or forking (``processes=2-4``); on 127.0.0.1, localhost,
``::1`` or ``unix://``; plain or TLS (``(cert, key)`` files from a throw-away
``openssl`` certificate, an ``SSLContext`` loaded from them, files from
``make_ssl_devcert``, or ``"adhoc"``); a request handler of werkzeug's, a
subclass forcing HTTP/1.1 or one that skips the access line of health checks;
the ``werkzeug`` logger at DEBUG or INFO, or WARNING or ERROR for a few
applications that silence the access log.  Then 8-45 client steps, with
weights drawn per case: requests over raw sockets (GET, HEAD, OPTIONS, odd
and lower-case methods, HTTP/1.0 and HTTP/0.9, pipelined keep-alive
requests, chunked and ``Expect: 100-continue`` bodies, bad chunks, short
bodies, forwarded headers, percent-encoded and UTF-8 paths), malformed
request lines, bad versions, over-long request lines and headers, too many
headers, clients that connect and leave, leave mid-request or mid-response,
concurrent bursts, TLS handshakes followed by garbage, websocket upgrades,
the debugger (tracebacks, resources, ``printpin``, ``pinauth`` with right
and wrong pins, commands in frames and the console, untrusted hosts), static
files, proxied requests, and for reloader cases, watched files touched.

With ``passthrough_errors`` a failing request ends a single-threaded server
(the client then stops) and the request's thread of a threaded one (counted
as errors in threads in the summary line).  Not reached: "Cannot fetch SSL
peer certificate info" (``serving.py``), since the server's TLS handshake
completes in ``accept``, before any request is read.

The reloader: the case's ``run_simple(use_reloader=True)`` runs in the main
thread; with ``sys.argv`` pointed at this script's ``--child`` mode, werkzeug
spawns this script again as its server process (``WERKZEUG_RUN_MAIN``), as it
would an application's script: the child rebuilds the case's application
from the plan, serves on the inherited socket, logs the debugger's PIN lines,
and exits with 3 when the stat reloader sees a watched file change; the
parent logs ``Restarting with stat`` and spawns the next one.  SIGTERM or
SIGINT to the child ends the lifetime.

Capture: ``_capture.py``'s handler on the ``werkzeug`` logger, attached
before werkzeug's first record (so ``_log`` adds no stream handler and
nothing is printed).  Every record is written, as it is made, with one
``write`` to the case's rows file (``O_APPEND``); the reloader's server
processes and the forking server's children write to the same file, and the
main process reads it when the case ends.  Records whose emitter is outside
the indexed directory are dropped and counted: the standard library's
``http.server`` reports bad requests and timeouts through
``WSGIRequestHandler.log_error`` (a wrapper), so those lines resolve to
``http/server.py``.  Records of a thread of an ended case (a threaded
server's request outliving it) and records outside any case are dropped
and counted too.  The debugger's tracebacks go to ``wsgi.errors``, not to
the logger; the generator's stderr is a sink during the run.

Determinism: each case draws its plan and its client steps from its own
generator (``<seed>-<i>``), so a seed gives the same lifetimes and requests.
Runs differ where threads and processes race (concurrent bursts and the
order of their access lines, a streamed response's client leaving early,
how soon the reloader sees a change) and in the messages: ports, dates,
temp paths, debugger secrets and frame ids, computed PINs.

Wrappers (``code.wrapped`` = 1; the emitter is the first caller outside
them), each doing nothing but forward, prefix or render a message handed in:
``_internal._log`` (lazily configures the logger and calls it),
``WSGIRequestHandler.log`` (prefixes the address and date),
``WSGIRequestHandler.log_error`` and ``log_message`` and
``BaseWSGIServer.log`` (forward with a level), ``ReloaderLoop.log_reload``
(renders the file name it is given).  ``WSGIRequestHandler.log_request`` is
the emitter of access lines: ``http.server`` calls it with the status code,
and it reads the request line it renders from the handler.
"""
import argparse
import base64
import csv
import gc
import io
import json
import logging
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import warnings
import weakref

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # nor from the reloader's server processes
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import werkzeug  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(werkzeug.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

from werkzeug import serving  # noqa: E402
from werkzeug.debug import DebuggedApplication  # noqa: E402
from werkzeug.exceptions import BadRequest, Forbidden, HTTPException, InternalServerError, NotFound  # noqa: E402
from werkzeug.exceptions import Unauthorized, abort  # noqa: E402
from werkzeug.middleware.dispatcher import DispatcherMiddleware  # noqa: E402
from werkzeug.middleware.http_proxy import ProxyMiddleware  # noqa: E402
from werkzeug.middleware.lint import LintMiddleware  # noqa: E402
from werkzeug.middleware.profiler import ProfilerMiddleware  # noqa: E402
from werkzeug.middleware.proxy_fix import ProxyFix  # noqa: E402
from werkzeug.middleware.shared_data import SharedDataMiddleware  # noqa: E402
from werkzeug.routing import BaseConverter, Map, Rule, Submount, ValidationError  # noqa: E402
from werkzeug.utils import redirect, send_from_directory  # noqa: E402
from werkzeug.wrappers import Request, Response  # noqa: E402

try:
    import cryptography  # noqa: F401 -- "adhoc" and make_ssl_devcert need it
    HAVE_CRYPTOGRAPHY = True
except ImportError:
    HAVE_CRYPTOGRAPHY = False

WRAPPERS = {
    ("werkzeug/_internal.py", "_log"),
    ("werkzeug/serving.py", "log"),          # WSGIRequestHandler.log, BaseWSGIServer.log
    ("werkzeug/serving.py", "log_error"),
    ("werkzeug/serving.py", "log_message"),
    ("werkzeug/_reloader.py", "log_reload"),
}
LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARNING": logging.WARNING, "ERROR": logging.ERROR}
CASE_BUDGET = 12.0  # seconds of client steps at most
SCRIPT = os.path.abspath(__file__)

COLLECTIONS = ["products", "orders", "books", "users", "invoices", "tickets", "articles", "photos",
               "notes", "projects", "recipes", "devices", "events", "courses"]
PREFIXES = ["", "", "", "/api", "/v1", "/api/v2", "/shop", "/app"]
SLUGS = ["blue-mug", "red-chair", "intro-to-wsgi", "q3-report", "holiday-photos", "kitchen-sink",
         "hello-world", "weekly-notes"]
WORDS = ["alpha", "beta", "gamma", "delta", "kiwi", "lime", "mango", "pear", "plum", "fig"]
USERS = {"alice": "wonderland", "bob": "builder", "carol": "s3cret"}
DB_TABLES = ["users", "orders", "sessions", "audit_log"]


# ---------------------------------------------------------------------------
# capture
# ---------------------------------------------------------------------------
class WzLog(_capture.EventLog):
    """The shared capture, writing each row at once to the case's rows file
    (shared with forked request handlers and the reloader's server
    processes, which write to it too); the rows are read back at the end of
    the case.  Drops are written there as marker lines, so that other
    processes' drops are counted as well."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.stale_threads = weakref.WeakSet()
        self.counts = {"outside": 0, "stale": 0, "no_case": 0}
        self._fd = None
        self.rows_path = None

    def begin_case(self, case_id, rows_path):
        self.rows_path = rows_path
        self._fd = os.open(rows_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.case_id = case_id

    def _drop(self, why):
        fd = self._fd
        if fd is None:
            self.counts[why] += 1
            return
        try:
            os.write(fd, ("#%s\n" % why).encode())
        except OSError:
            self.counts[why] += 1

    def emit(self, record):
        # no lock of our own: a forked request handler may emit while
        # another thread of the parent held it at the fork
        try:
            cid = self.case_id
            if cid is None or self._fd is None:
                self.counts["no_case"] += 1
                return
            if threading.current_thread() in self.stale_threads:
                self._drop("stale")
                return
            ap, rel = self._rel(record.pathname)
            if rel is None:
                self._drop("outside")
                return
            func, line, wrapped = record.funcName, record.lineno, 0
            if self._is_wrapper(rel, func):
                u = self._unwrap(record)
                if u is None or u[1] is None:
                    self._drop("outside")
                    return
                ap, rel, func, line = u
                wrapped = 1
            ts = _capture._dt.datetime.fromtimestamp(record.created, _capture._dt.timezone.utc).isoformat(
                timespec="microseconds")
            row = [cid, ts, _capture._escape(record.getMessage()), record.levelname, record.name,
                   rel, func, line, self.qn.qualname(ap, line), wrapped]
            buf = io.StringIO()
            csv.writer(buf).writerow(row)
            os.write(self._fd, buf.getvalue().encode("utf-8"))
        except Exception:  # never break the library under test
            self.handleError(record)

    def case_rows(self):
        """The rows written so far (the client reads the debugger's PIN there)."""
        try:
            with open(self.rows_path, encoding="utf-8", newline="") as fh:
                return [row for row in csv.reader(fh) if row and not row[0].startswith("#")]
        except OSError:
            return []

    def end_case(self):
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
        rows = []
        try:
            with open(self.rows_path, encoding="utf-8", newline="") as fh:
                for row in csv.reader(fh):
                    if not row:
                        continue
                    if row[0].startswith("#"):
                        self.counts[row[0][1:]] = self.counts.get(row[0][1:], 0) + 1
                    elif len(row) == len(self.FIELDS):
                        rows.append(row)
            os.unlink(self.rows_path)
        except OSError:
            pass
        self._rows = rows
        super().end_case()


LOG = [None]  # the capture of this process


def null_stream():
    return open(os.devnull, "w")


# ---------------------------------------------------------------------------
# the applications (their own frames never log)
# ---------------------------------------------------------------------------
class ListConverter(BaseConverter):
    """Comma-separated words: ``/tags/red,blue``."""
    regex = r"[a-z0-9-]+(?:,[a-z0-9-]+)*"

    def to_python(self, value):
        return value.split(",")

    def to_url(self, value):
        return ",".join(BaseConverter.to_url(self, v) for v in value)


class LangConverter(BaseConverter):
    """A language code among the configured ones; others do not match."""
    regex = r"[a-z]{2}(?:-[a-zA-Z]{2})?"

    def __init__(self, url_map, *langs):
        super().__init__(url_map)
        self.langs = langs

    def to_python(self, value):
        if value.split("-")[0] not in self.langs:
            raise ValidationError()
        return value


class PaymentDeclined(HTTPException):
    code = 402
    description = "The card was declined."


class LegalReasons(HTTPException):
    code = 451
    description = "Unavailable for legal reasons in your region."


FAILURES = {
    "value": lambda: ValueError("invalid literal for int() with base 10: 'abc'"),
    "key": lambda: KeyError("customer_id"),
    "zero": lambda: ZeroDivisionError("division by zero"),
    "type": lambda: TypeError("unsupported operand type(s) for +: 'int' and 'str'"),
    "attr": lambda: AttributeError("'NoneType' object has no attribute 'email'"),
    "runtime": lambda: RuntimeError("payment gateway unavailable"),
    "file": lambda: FileNotFoundError(2, "No such file or directory", "templates/missing.html"),
    "unicode": lambda: UnicodeDecodeError("utf-8", b"\xff\xfe", 0, 1, "invalid start byte"),
    "assert": lambda: AssertionError("cart total must not be negative"),
    "json": lambda: json.JSONDecodeError("Expecting value", "{oops", 1),
}


def build_map(plan):
    n = plan["names"]
    k = set(plan["kinds"])
    c = n["coll"]
    rules = [Rule("/", endpoint="index")]
    if "crud" in k:
        rules += [
            Rule("/%s/" % c, endpoint="list", methods=["GET"]),
            Rule("/%s/" % c, endpoint="create", methods=["POST"]),
            Rule("/%s/<int:item_id>" % c, endpoint="item", methods=["GET"]),
            Rule("/%s/<int:item_id>" % c, endpoint="update", methods=["PUT", "PATCH"]),
            Rule("/%s/<int:item_id>" % c, endpoint="delete", methods=["DELETE"]),
            Rule("/%s/<int:item_id>/<slug>" % c, endpoint="item_slug"),
            Rule("/old-%s/<int:item_id>" % c, redirect_to="%s/<item_id>" % c),
        ]
    if "convert" in k:
        rules.append(Rule("/convert/<float:amount>/<any(usd,eur,gbp,jpy):cur>", endpoint="convert"))
    if "orders" in k:
        rules.append(Rule("/receipts/<uuid:oid>", endpoint="receipt"))
    if "files" in k:
        rules.append(Rule("/%s/<path:name>" % n["files"], endpoint="file"))
    if "go" in k:
        rules.append(Rule("/go/<any(home,docs,partner,back,loop):target>", endpoint="go"))
        rules.append(Rule("/moved", redirect_to="/"))
    if "stream" in k:
        rules.append(Rule("/export/<int:rows>.csv", endpoint="stream"))
        rules.append(Rule("/report/<int:rows>", endpoint="report"))
    if "download" in k:
        rules.append(Rule("/download/<int:kb>", endpoint="download"))
    if "boom" in k:
        rules.append(Rule("/%s/<any(%s):kind>" % (n["boom"], ",".join(sorted(FAILURES))), endpoint="boom"))
        rules.append(Rule("/checkout", endpoint="checkout", methods=["GET", "POST"]))
        rules.append(Rule("/widgets/<string(length=3):code>", endpoint="widget"))
    if "status" in k:
        rules.append(Rule("/status/<int:code>", endpoint="status"))
    if "forms" in k:
        rules.append(Rule("/login", endpoint="login", methods=["GET", "POST"]))
        rules.append(Rule("/upload", endpoint="upload", methods=["POST"]))
    if "json" in k:
        rules.append(Rule("/rpc", endpoint="rpc", methods=["POST"]))
    if "auth" in k:
        rules.append(Rule("/private/", endpoint="private"))
    if "feed" in k:
        rules.append(Rule("/feed.xml", endpoint="feed"))
    if "slow" in k:
        rules.append(Rule("/slow/<int:ms>", endpoint="slow"))
    if "whoami" in k:
        rules.append(Rule("/whoami", endpoint="whoami"))
    if "ws" in k:
        rules.append(Rule("/live", endpoint="live", websocket=True))
    if "prefs" in k:
        rules.append(Rule("/prefs", endpoint="prefs", methods=["GET", "POST"]))
    if "search" in k:
        rules.append(Rule("/search", endpoint="search"))
    if "links" in k:
        rules.append(Rule("/link/<name>", endpoint="link"))
    if "pages" in k:
        rules.append(Rule("/page/", defaults={"num": 1}, endpoint="page"))
        rules.append(Rule("/page/<int:num>", endpoint="page"))
    if "tags" in k:
        rules.append(Rule("/tags/<list:tags>", endpoint="tags"))
        rules.append(Rule("/<lang(en,fr,de,es):lang>/about", endpoint="about"))
    if "sql" in k:
        rules.append(Rule("/db/<any(%s):table>" % ",".join(DB_TABLES), endpoint="sql"))
    if plan["prefix"]:
        rules = [rules[0], Submount(plan["prefix"], rules[1:])]
    return Map(rules, strict_slashes=plan["strict_slashes"], merge_slashes=plan["merge_slashes"],
               redirect_defaults=plan["redirect_defaults"],
               converters={"list": ListConverter, "lang": LangConverter})


class App:
    """The case's application: a Map and one handler per endpoint."""

    def __init__(self, plan, case_dir):
        self.plan = plan
        self.dir = case_dir
        self.url_map = build_map(plan)
        self.items = {i: {"id": i, "name": WORDS[i % len(WORDS)], "qty": i * 3} for i in range(1, 13)}
        self.receipts = set(plan["receipts"])
        self.next_id = 13
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        request = Request(environ)
        if self.plan["max_len"]:
            request.max_content_length = self.plan["max_len"]
            request.max_form_memory_size = self.plan["max_len"]
        adapter = self.url_map.bind_to_environ(environ)
        try:
            endpoint, values = adapter.match()
            response = getattr(self, "on_" + endpoint)(request, adapter, **values)
        except HTTPException as e:
            response = e
        except Exception as e:
            if not self.plan["catch_all"]:
                raise
            response = InternalServerError(original_exception=e)
        return response(environ, start_response)

    def url(self, path):
        return self.plan["prefix"] + path

    # -- handlers ------------------------------------------------------------
    def on_index(self, request, adapter):
        links = "".join('<li><a href="%s">%s</a></li>' % (r.rule, r.endpoint) for r in self.url_map.iter_rules())
        return Response("<h1>%s</h1><ul>%s</ul>" % (self.plan["title"], links), mimetype="text/html")

    def on_list(self, request, adapter):
        page = request.args.get("page", 1, type=int)
        size = request.args.get("size", 5, type=int)
        if size > 50:
            raise BadRequest("size must be at most 50")
        items = sorted(self.items.values(), key=lambda v: v["id"])[(page - 1) * size:page * size]
        return Response(json.dumps(items), mimetype="application/json")

    def on_create(self, request, adapter):
        data = request.get_json(silent=True) if request.is_json else request.form.to_dict()
        if not data or not data.get("name"):
            raise BadRequest("name is required")
        with self.lock:
            i = self.next_id
            self.next_id += 1
            self.items[i] = {"id": i, "name": data["name"], "qty": int(data.get("qty", 0))}
        loc = adapter.build("item", {"item_id": i})
        return Response(json.dumps(self.items[i]), status=201, mimetype="application/json",
                        headers={"Location": loc})

    def on_item(self, request, adapter, item_id):
        item = self.items.get(item_id)
        if item is None:
            raise NotFound("no item %d" % item_id)
        resp = Response(json.dumps(item), mimetype="application/json")
        resp.add_etag()
        return resp.make_conditional(request)

    def on_update(self, request, adapter, item_id):
        if item_id not in self.items:
            abort(404)
        if request.if_match and not request.if_match.contains_raw('"v1"'):
            abort(412)
        data = request.get_json(silent=True) or request.form.to_dict()
        if "qty" in data and not str(data["qty"]).isdigit():
            abort(422)
        self.items[item_id].update(data)
        return Response(json.dumps(self.items[item_id]), mimetype="application/json")

    def on_delete(self, request, adapter, item_id):
        if item_id == 1:
            raise Forbidden("item 1 is protected")
        if self.items.pop(item_id, None) is None:
            abort(404)
        return Response(status=204)

    def on_item_slug(self, request, adapter, item_id, slug):
        if item_id not in self.items:
            abort(404)
        canonical = SLUGS[item_id % len(SLUGS)]
        if slug != canonical:
            return redirect(adapter.build("item_slug", {"item_id": item_id, "slug": canonical}), 301)
        return Response("item %d: %s" % (item_id, slug))

    def on_convert(self, request, adapter, amount, cur):
        if amount > 1e6:
            abort(422)
        rate = {"usd": 1.0, "eur": 0.92, "gbp": 0.79, "jpy": 151.3}[cur]
        return Response("%.2f %s" % (amount * rate, cur))

    def on_receipt(self, request, adapter, oid):
        if str(oid) not in self.receipts:
            abort(404)
        if str(oid) == self.plan["receipts"][0]:
            abort(410)
        return Response("receipt %s" % oid)

    def on_file(self, request, adapter, name):
        return send_from_directory(os.path.join(self.dir, "files"), name, request.environ,
                                   max_age=self.plan["max_age"])

    def on_go(self, request, adapter, target):
        if target == "loop":
            return redirect(request.path, self.plan["redirect_code"])
        dest = {"home": "/", "docs": "https://docs.example.org/", "partner": "http://partner.example.com/deal",
                "back": request.referrer or "/"}[target]
        return redirect(dest, self.plan["redirect_code"])

    def on_stream(self, request, adapter, rows):
        delay = self.plan["stream_delay"]

        def generate():
            yield "id,name,qty\n"
            for i in range(min(rows, 5000)):
                if delay and i % 50 == 0:
                    time.sleep(delay)
                yield "%d,%s,%d\n" % (i, WORDS[i % len(WORDS)], i * 7)
        return Response(generate(), mimetype="text/csv")

    def on_report(self, request, adapter, rows):
        def generate():
            yield b"<html><body><table>"
            for i in range(rows):
                yield b"<tr><td>%d</td></tr>" % i
            yield 1 / (rows - rows)  # the report's total row divides by the wrong count
        return Response(generate(), mimetype="text/html")

    def on_download(self, request, adapter, kb):
        if kb > 8192:
            abort(413)
        return Response(b"\0" * (kb * 1024), mimetype="application/octet-stream",
                        headers={"Content-Disposition": "attachment; filename=blob-%d.bin" % kb})

    def on_boom(self, request, adapter, kind):
        raise FAILURES[kind]()

    def on_checkout(self, request, adapter):
        if request.method == "POST":
            total = request.form.get("total", type=int)
            return Response("charged %d" % (total + 0))  # None + 0 when total is missing
        return ["<form method=post>", "checkout", "</form>"]  # not a response object: calling it fails

    def on_widget(self, request, adapter, code):
        if code.isdigit():
            raise PaymentDeclined()
        return Response("widget %s" % code)

    def on_status(self, request, adapter, code):
        if code == 451:
            raise LegalReasons()
        if code in (200, 202, 203, 204, 205, 226, 299):
            return Response(status=code)
        abort(code)  # LookupError for codes werkzeug has no exception for

    def on_login(self, request, adapter):
        if request.method == "GET":
            return Response("<form method=post><input name=user><input name=password></form>",
                            mimetype="text/html")
        user, pw = request.form.get("user"), request.form.get("password")
        if not user or not pw:
            raise BadRequest("user and password required")
        if USERS.get(user) != pw:
            raise Unauthorized("bad credentials")
        resp = redirect(self.url("/"), 303)
        resp.set_cookie("session", base64.b64encode(user.encode()).decode(), httponly=True)
        return resp

    def on_upload(self, request, adapter):
        f = request.files.get("file")
        if f is None or not f.filename:
            raise BadRequest("no file")
        data = f.read()
        return Response(json.dumps({"name": f.filename, "size": len(data)}), status=201,
                        mimetype="application/json")

    def on_rpc(self, request, adapter):
        payload = request.get_json()
        if not isinstance(payload, dict) or "method" not in payload:
            raise BadRequest("not a call")
        if payload["method"] == "fail":
            raise RuntimeError("rpc method failed: %s" % payload.get("params"))
        return Response(json.dumps({"result": payload.get("params"), "id": payload.get("id")}),
                        mimetype="application/json")

    def on_private(self, request, adapter):
        auth = request.authorization
        if auth is None:
            return Response("login required", 401, {"WWW-Authenticate": 'Basic realm="private"'})
        if USERS.get(auth.username) != auth.password:
            raise Forbidden("wrong password for %s" % auth.username)
        return Response("hello %s" % auth.username)

    def on_feed(self, request, adapter):
        body = "<feed>%s</feed>" % "".join("<entry>%s</entry>" % w for w in WORDS)
        resp = Response(body, mimetype="application/atom+xml")
        resp.set_etag("feed-v1")
        resp.last_modified = 1700000000
        return resp.make_conditional(request, accept_ranges=True, complete_length=len(body))

    def on_slow(self, request, adapter, ms):
        time.sleep(min(ms, 400) / 1000.0)
        return Response("waited %d ms" % ms)

    def on_whoami(self, request, adapter):
        return Response(json.dumps({"addr": request.remote_addr, "host": request.host,
                                    "scheme": request.scheme, "root": request.root_url}),
                        mimetype="application/json")

    def on_live(self, request, adapter):
        key = request.headers.get("Sec-WebSocket-Key", "")
        if not key:
            raise BadRequest("missing websocket key")
        return Response(status=101, headers={"Upgrade": "websocket", "Connection": "Upgrade",
                                             "Sec-WebSocket-Accept": base64.b64encode(key.encode()[:16]).decode()})

    def on_prefs(self, request, adapter):
        if request.method == "POST":
            resp = Response("saved")
            resp.set_cookie("theme", request.form.get("theme", "light"), max_age=3600, samesite="Lax")
            return resp
        return Response("theme=%s" % request.cookies.get("theme", "default"))

    def on_search(self, request, adapter):
        q = request.args.get("q", "")
        if len(q) > 200:
            abort(414)
        if not q:
            raise BadRequest("empty query")
        page = int(request.args.get("page", "1"))  # ValueError for page=two
        return Response("results for %r, page %d" % (q, page))

    def on_link(self, request, adapter, name):
        return redirect(adapter.build(name, {"item_id": 3}))  # BuildError for unknown endpoints

    def on_page(self, request, adapter, num):
        return Response("page %d" % num)

    def on_tags(self, request, adapter, tags):
        return Response("tags: %s" % ", ".join(tags))

    def on_about(self, request, adapter, lang):
        return Response("about (%s)" % lang)

    def on_sql(self, request, adapter, table):
        con = sqlite3.connect(":memory:")
        try:
            con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
            rows = con.execute("SELECT count(*) FROM %s" % table).fetchall()  # no such table
        finally:
            con.close()
        return Response("%s: %d rows" % (table, rows[0][0]))


def health_app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


def legacy_app(environ, start_response):
    """An old-style application writing through the ``write`` callable."""
    path = environ.get("PATH_INFO", "")
    if path in ("", "/"):
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"legacy index\n")
        write(b"see /legacy/report\n")
        return []
    if path == "/report":
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        for i in range(3):
            write(b"line %d\n" % i)
        return iter([b"end\n"])
    if path == "/text":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return ["a str where bytes belong\n"]
    if path == "/crash":
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"partial ")
        raise RuntimeError("legacy report generator crashed")
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b"legacy: not found"]


def admin_app():
    url_map = Map([Rule("/", endpoint="dash"), Rule("/users/<int:uid>", endpoint="user"),
                   Rule("/users/<int:uid>/ban", endpoint="ban", methods=["POST"])])

    def app(environ, start_response):
        request = Request(environ)
        adapter = url_map.bind_to_environ(environ)
        try:
            endpoint, values = adapter.match()
            auth = request.authorization
            if auth is None or USERS.get(auth.username) != auth.password:
                response = Response("admins only", 401, {"WWW-Authenticate": 'Basic realm="admin"'})
            elif endpoint == "dash":
                response = Response("dashboard")
            elif values["uid"] > 100:
                raise NotFound()
            elif endpoint == "ban" and auth.username != "alice":
                raise Forbidden()
            else:
                response = Response("%s user %d" % (endpoint, values["uid"]))
        except HTTPException as e:
            response = e
        return response(environ, start_response)
    return app


def backend_app():
    url_map = Map([Rule("/", endpoint="root"), Rule("/inventory/<int:sku>", endpoint="sku"),
                   Rule("/fail", endpoint="fail"), Rule("/slow", endpoint="slow")])

    def app(environ, start_response):
        adapter = url_map.bind_to_environ(environ)
        try:
            endpoint, values = adapter.match()
        except HTTPException as e:
            return e(environ, start_response)
        if endpoint == "fail":
            raise ConnectionRefusedError(111, "warehouse database refused the connection")
        if endpoint == "slow":
            time.sleep(0.15)
        if endpoint == "sku" and values["sku"] > 500:
            return NotFound()(environ, start_response)
        return Response(json.dumps({"endpoint": endpoint, **values}), mimetype="application/json")(
            environ, start_response)
    return app


def build_stack(plan, case_dir, backend_port=None, with_debugger=True):
    """The case's application wrapped in its middleware (outermost last)."""
    app = App(plan, case_dir)
    wsgi = app
    for mw in plan["mw"]:
        if mw == "dispatch":
            mounts = {"/health": health_app, "/legacy": legacy_app}
            if plan["admin"]:
                mounts["/admin"] = admin_app()
            wsgi = DispatcherMiddleware(wsgi, mounts)
        elif mw == "shared":
            wsgi = SharedDataMiddleware(wsgi, {"/static": os.path.join(case_dir, "static"),
                                               "/vendor": ("werkzeug.debug", "shared")},
                                        cache=plan["static_cache"], cache_timeout=plan["max_age"] or 60)
        elif mw == "profiler":
            wsgi = ProfilerMiddleware(wsgi, stream=None, sort_by=("cumulative",), restrictions=(10,))
        elif mw == "lint":
            wsgi = LintMiddleware(wsgi)
        elif mw == "proxy" and backend_port:
            wsgi = ProxyMiddleware(wsgi, {"/backend/": {"target": "http://127.0.0.1:%d/" % backend_port,
                                                        "remove_prefix": True}}, timeout=5)
        elif mw == "proxyfix":
            wsgi = ProxyFix(wsgi, x_for=plan["x_for"], x_proto=1, x_host=1, x_prefix=1)
    dbg = None
    if with_debugger and plan["debugger"] and plan["api"] not in ("run_simple", "reloader"):
        d = plan["debugger"]
        dbg = wsgi = DebuggedApplication(wsgi, evalex=d["evalex"], console_path=d["console"],
                                         show_hidden_frames=d["hidden"], pin_security=d["pin_security"],
                                         pin_logging=d["pin_logging"])
    return app, wsgi, dbg


def make_handler(plan):
    kind = plan["handler"]
    if kind == "default":
        return None
    if kind == "http11":
        return type("Http11Handler", (serving.WSGIRequestHandler,), {"protocol_version": "HTTP/1.1"})

    class QuietHealthHandler(serving.WSGIRequestHandler):
        """Skips the access line of health checks and static files."""

        def log_request(self, code="-", size="-"):
            path = getattr(self, "path", "")
            if path.startswith(("/health", "/static/")):
                return
            super().log_request(code, size)
    return QuietHealthHandler


def ssl_arg(plan, certs):
    tls = plan["tls"]
    if tls is None:
        return None
    if tls == "adhoc":
        return "adhoc"
    if tls == "context":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certs["openssl"]["cert"], certs["openssl"]["key"])
        return ctx
    src = certs[tls]
    return (src["cert"], src["key"])


# ---------------------------------------------------------------------------
# the plan of a case
# ---------------------------------------------------------------------------
ROUTE_KINDS = ["crud", "convert", "orders", "files", "go", "stream", "download", "boom", "status", "forms",
               "json", "auth", "feed", "slow", "whoami", "ws", "prefs", "search", "links", "pages", "tags", "sql"]


def draw_plan(r, env):
    kinds = ["crud"] + sorted(r.sample(ROUTE_KINDS[1:], r.randint(7, 16)))
    if r.random() < 0.7 and "boom" not in kinds:
        kinds.append("boom")
    api = pick(r, [(40, "run_simple"), (32, "make_server"), (15, "prepared"), (9, "reloader")])
    mode = pick(r, [(48, "threaded"), (37, "single"), (15, "forking")])
    host = pick(r, [(70, "127.0.0.1"), (12, "localhost"), (10, "::1" if env["v6"] else "127.0.0.1"),
                    (8, "unix")])
    tls = None
    if host != "unix" and r.random() < 0.25:
        choices = [(w, v) for w, v in [(40, "openssl"), (25, "context"), (20, "devcert"), (15, "adhoc")]
                   if (v in ("openssl", "context") and "openssl" in env["certs"])
                   or (v == "devcert" and "devcert" in env["certs"]) or (v == "adhoc" and HAVE_CRYPTOGRAPHY)]
        tls = pick(r, choices) if choices else None
    mw = []
    for name, p in [("lint", 0.08), ("profiler", 0.1), ("proxy", 0.2), ("shared", 0.35), ("dispatch", 0.35),
                    ("proxyfix", 0.3)]:
        if r.random() < p:
            mw.append(name)
    debugger = None
    if r.random() < 0.28:
        debugger = {"evalex": r.random() < 0.7, "console": r.choice(["/console", "/console", "/_debug/console"]),
                    "hidden": r.random() < 0.3, "pin_security": r.random() < 0.9,
                    "pin_logging": r.random() < 0.9,
                    "pin_env": pick(r, [(45, None), (25, "digits"), (15, "dashed"), (15, "off")])}
        if debugger["pin_env"] == "digits":
            debugger["pin"] = "%09d" % r.randrange(10 ** 9)
        elif debugger["pin_env"] == "dashed":
            debugger["pin"] = "%03d-%03d-%03d" % (r.randrange(1000), r.randrange(1000), r.randrange(1000))
    plan = {
        "title": r.choice(["Corner Shop", "Team Wiki", "Inventory", "Recipe Box", "Help Desk", "Photo Log",
                           "Course Catalog", "Device Fleet"]),
        "names": {"coll": r.choice(COLLECTIONS), "files": r.choice(["files", "media", "docs", "assets"]),
                  "boom": r.choice(["fail", "crash", "broken", "bug"])},
        "kinds": kinds,
        "prefix": r.choice(PREFIXES),
        "strict_slashes": r.random() < 0.85,
        "merge_slashes": r.random() < 0.8,
        "redirect_defaults": r.random() < 0.8,
        "catch_all": r.random() < (0.05 if debugger else 0.3),
        "max_len": r.choice([None, None, None, 4096, 65536]),
        "max_age": r.choice([None, 0, 60, 3600]),
        "redirect_code": r.choice([301, 302, 303, 307, 308]),
        "stream_delay": r.choice([0, 0, 0.002, 0.01]),
        "receipts": [str(uuid.UUID(int=r.getrandbits(128), version=4)) for _ in range(3)],
        "mw": mw,
        "admin": r.random() < 0.6,
        "static_cache": r.random() < 0.7,
        "x_for": r.choice([1, 1, 2]),
        "debugger": debugger,
        "api": api,
        "mode": mode,
        "processes": r.randint(2, 4),
        "host": host,
        "tls": tls,
        "port0": api in ("make_server", "prepared") and r.random() < 0.3,
        "startup_log": r.random() < 0.5,
        "passthrough": r.random() < 0.05,
        "handler": pick(r, [(70, "default"), (15, "quiet"), (15, "http11")]),
        "level": pick(r, [(45, "DEBUG"), (45, "INFO"), (6, "WARNING"), (4, "ERROR")]),
        "static_files": api in ("run_simple", "reloader") and r.random() < 0.3,
        "reload_interval": r.choice([0.05, 0.1, 0.2]),
        "watch": r.choice(["settings.cfg", "config.toml", "templates/base.html", "views.py"]),
        "steps": r.randint(8, 45),
        "end": r.choice(["SIGTERM", "SIGINT"]),
    }
    return plan


# ---------------------------------------------------------------------------
# the client
# ---------------------------------------------------------------------------
CLIENT_CTX = ssl.create_default_context()
CLIENT_CTX.check_hostname = False
CLIENT_CTX.verify_mode = ssl.CERT_NONE


class Reply:
    def __init__(self, raw):
        self.raw = raw
        self.status = None
        self.headers = {}
        self.body = b""
        head, _, body = raw.partition(b"\r\n\r\n")
        # skip interim responses (100 Continue)
        while head.startswith(b"HTTP/1.1 100") or head.startswith(b"HTTP/1.0 100"):
            head, _, body = body.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        m = re.match(rb"HTTP/\d\.\d (\d{3})", lines[0]) if lines else None
        if m:
            self.status = int(m.group(1))
            for ln in lines[1:]:
                k, _, v = ln.decode("latin-1").partition(":")
                self.headers[k.strip().lower()] = v.strip()
            self.body = body
        else:
            self.body = raw


def hang_up(s):
    """Shuts the connection down, then closes it: a forking server's children
    hold copies of the client's sockets (client and server share the
    process), so a close alone would not end the connection."""
    try:
        s.shutdown(socket.SHUT_RDWR)
    except (OSError, ValueError):
        pass
    try:
        s.close()
    except OSError:
        pass


class Client:
    def __init__(self, plan, addr):
        self.plan = plan
        self.addr = addr  # (family, sockaddr)
        self.tls = plan["tls"] is not None
        if plan["host"] == "unix":
            self.host = "localhost"
        elif plan["host"] == "::1":
            self.host = "[::1]:%d" % addr[1][1]
        else:
            self.host = "%s:%d" % (plan["host"], addr[1][1])
        self.cookies = {}
        self.errors = 0

    def connect(self, timeout=5.0, tls=None):
        s = socket.socket(self.addr[0], socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(self.addr[1])
        if self.tls if tls is None else tls:
            s = CLIENT_CTX.wrap_socket(s, server_hostname="localhost")
        return s

    @staticmethod
    def read_all(s, limit=None):
        out = []
        n = 0
        try:
            while limit is None or n < limit:
                b = s.recv(65536)
                if not b:
                    break
                out.append(b)
                n += len(b)
        except (OSError, ValueError):
            pass
        return b"".join(out)

    def exchange(self, parts, read=True, limit=None, pause=0.0, timeout=5.0):
        """Sends the byte strings of parts (pausing between them), then reads
        the answer until the server closes (or limit bytes); returns a Reply."""
        try:
            s = self.connect(timeout)
        except (OSError, ssl.SSLError):
            self.errors += 1
            return Reply(b"")
        try:
            for i, p in enumerate(parts):
                if i and pause:
                    time.sleep(pause)
                s.sendall(p)
            raw = self.read_all(s, limit) if read else b""
        except (OSError, ssl.SSLError):
            raw = b""
            self.errors += 1
        finally:
            hang_up(s)
        rep = Reply(raw)
        for k, v in re.findall(r"(?im)^set-cookie: *([^=;\s]+)=([^;\r\n]*)", raw[:8192].decode("latin-1")):
            if v:
                self.cookies[k] = v
            else:
                self.cookies.pop(k, None)
        return rep

    def build(self, method, target, version="HTTP/1.1", headers=(), body=None, host=True, cookies=True,
              chunked=False):
        lines = ["%s %s %s" % (method, target, version)]
        if host:
            lines.append("Host: %s" % (self.host if host is True else host))
        hs = list(headers)
        if cookies and self.cookies and not any(k.lower() == "cookie" for k, _ in hs):
            hs.append(("Cookie", "; ".join("%s=%s" % kv for kv in sorted(self.cookies.items()))))
        if body is not None and not chunked:
            hs.append(("Content-Length", str(len(body))))
        if chunked:
            hs.append(("Transfer-Encoding", "chunked"))
        lines += ["%s: %s" % kv for kv in hs]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
        if body is None:
            return head
        if chunked:
            body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[i:i + 7] for i in range(0, len(body), 7)))
            body += b"0\r\n\r\n"
        return head + body

    def request(self, method, target, version="HTTP/1.1", headers=(), body=None, limit=None, **kw):
        if isinstance(body, str):
            body = body.encode("utf-8")
        return self.exchange([self.build(method, target, version, headers, body, **kw)], limit=limit)


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, i, r, tmp, env, log):
        self.i = i
        self.r = r
        self.env = env
        self.log = log
        self.case_id = "werkzeug-%04d" % i
        self.dir = os.path.join(tmp, "case-%04d" % i)
        os.makedirs(self.dir)
        self.plan = draw_plan(r, env)
        self.plan["case_id"] = self.case_id
        self.plan["dir"] = self.dir
        self.plan["rows"] = os.path.join(self.dir, "rows.csv")
        self.ports = []
        self.srv = None
        self.backend = None
        self.backend_thread = None
        self.server_thread = None
        self.client = None
        self.secret = None
        self.frames = []
        self.pin = None
        self.pin_failures = 0
        self.mtime = 0.0
        self.state = {"serving": False, "done": False}
        self.app = self.wsgi = self.dbg = None

    # -- set-up -------------------------------------------------------------
    def write_files(self):
        d = self.dir
        for sub in ("files/img", "files/reports", "static/css", "templates"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        files = {"files/readme.txt": b"read me\n" * 40, "files/data.csv": b"a,b,c\n1,2,3\n" * 300,
                 "files/img/logo.png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
                 "files/reports/q3.pdf": b"%PDF-1.4\n" + b"x" * 5000, "static/app.js": b"console.log('hi');\n",
                 "static/css/site.css": b"body { color: #333 }\n" * 20, "static/favicon.ico": b"\0" * 318,
                 "settings.cfg": b"DEBUG = True\n", "config.toml": b"[app]\nname = 'x'\n",
                 "templates/base.html": b"<html>{{ body }}</html>\n", "views.py": b"VIEWS = []\n"}
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as fh:
                fh.write(data)

    def setup_env(self):
        d = self.plan["debugger"]
        os.environ.pop("WERKZEUG_DEBUG_PIN", None)
        if d:
            if d["pin_env"] == "off":
                os.environ["WERKZEUG_DEBUG_PIN"] = "off"
            elif d["pin_env"]:
                os.environ["WERKZEUG_DEBUG_PIN"] = d["pin"]
                self.pin = d["pin"]

    def start_backend(self):
        if "proxy" not in self.plan["mw"]:
            return None
        self.backend = serving.make_server("127.0.0.1", 0, backend_app(), threaded=self.r.random() < 0.5)
        self.backend_thread = threading.Thread(target=self.backend.serve_forever, kwargs={"poll_interval": 0.05},
                                               name="backend-%d" % self.i, daemon=True)
        self.backend_thread.start()
        return self.backend.port

    def stop_backend(self):
        if self.backend is not None:
            # shutdown() waits for serve_forever to return: for ever when
            # that loop has already ended or never began
            if self.backend_thread.is_alive():
                self.backend.shutdown()
            self.backend_thread.join(5)
            self.backend = None

    def address(self, port):
        h = self.plan["host"]
        if h == "unix":
            return (socket.AF_UNIX, os.path.join(self.dir, "app.sock"))
        if h == "::1":
            return (socket.AF_INET6, ("::1", port))
        return (socket.AF_INET, ("127.0.0.1", port))

    def host_arg(self):
        h = self.plan["host"]
        return "unix://" + os.path.join(self.dir, "app.sock") if h == "unix" else h

    # -- the three ways to serve ------------------------------------------
    def run(self):
        p = self.plan
        self.write_files()
        self.setup_env()
        lg = logging.getLogger("werkzeug")
        lg.setLevel(LEVELS[p["level"]])
        backend_port = self.start_backend()
        if p["api"] == "reloader":
            return self.run_reloader(backend_port)
        self.app, self.wsgi, self.dbg = build_stack(p, self.dir, backend_port)
        if self.dbg is not None and self.pin is None and p["debugger"]["pin_security"]:
            self.pin = self.dbg.pin
        handler = make_handler(p)
        threaded = p["mode"] == "threaded"
        processes = p["processes"] if p["mode"] == "forking" else 1
        ssl_context = ssl_arg(p, self.env["certs"])
        if p["api"] == "run_simple":
            port = _capture.free_port()
            self.ports.append(port)
            self.client = Client(p, self.address(port))
            t = threading.Thread(target=self.drive_then_interrupt, name="client-%d" % self.i)
            self.state["serving"] = True
            t.start()
            d = p["debugger"]
            try:
                try:
                    serving.run_simple(self.host_arg(), port, self.wsgi, use_debugger=bool(d),
                                       use_evalex=bool(d and d["evalex"]), threaded=threaded, processes=processes,
                                       request_handler=handler, passthrough_errors=p["passthrough"],
                                       ssl_context=ssl_context,
                                       static_files={"/assets": os.path.join(self.dir, "static")}
                                       if p["static_files"] else None)
                finally:
                    self.state["serving"] = False
            except KeyboardInterrupt:
                pass
            except BaseException as e:  # passthrough errors end the server; exit from prepare_socket
                self.note(e)
            gc.collect()  # a crashed server's connection is held by a reference cycle: close it
            t.join(CASE_BUDGET + 20)
            self.close_server_fd()
            return
        # make_server / prepared, served from a thread
        port = 0 if p["port0"] else _capture.free_port()
        if port:
            self.ports.append(port)
        fd = None
        if p["api"] == "prepared":
            sock = serving.prepare_socket(self.host_arg(), port)
            fd = sock.fileno()
            sock.detach()
        self.srv = serving.make_server(self.host_arg(), port, self.wsgi, threaded=threaded, processes=processes,
                                       request_handler=handler, passthrough_errors=p["passthrough"],
                                       ssl_context=ssl_context, fd=fd)
        if fd is not None:
            os.close(fd)  # make_server serves a duplicate
        if p["startup_log"]:
            self.srv.log_startup()
        self.server_thread = threading.Thread(target=self.serve_forever, name="server-%d" % self.i)
        self.server_thread.start()
        self.client = Client(p, self.address(self.srv.port))
        try:
            self.drive()
        finally:
            self.srv.shutdown()
            self.server_thread.join(10)

    def serve_forever(self):
        try:
            self.srv.serve_forever(poll_interval=0.05)
        except Exception as e:  # passthrough errors end a single-threaded server
            self.note(e)
        gc.collect()  # the crashed request's connection is held by a reference cycle: close it

    def close_server_fd(self):
        fd = os.environ.pop("WERKZEUG_SERVER_FD", None)
        if fd is not None:
            try:
                os.close(int(fd))
            except OSError:
                pass

    def drive_then_interrupt(self):
        try:
            self.drive()
        finally:
            time.sleep(0.02)
            for _ in range(3):
                if not self.state["serving"]:
                    break
                os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C
                end = time.monotonic() + 4
                while self.state["serving"] and time.monotonic() < end:
                    time.sleep(0.02)

    def run_reloader(self, backend_port):
        p = self.plan
        p["backend_port"] = backend_port
        port = _capture.free_port()
        self.ports.append(port)
        plan_path = os.path.join(self.dir, "plan.json")
        with open(plan_path, "w") as fh:
            json.dump(p, fh)
        self.client = Client(p, self.address(port))
        t = threading.Thread(target=self.drive_reloader, name="client-%d" % self.i)
        argv = sys.argv
        old_term = signal.getsignal(signal.SIGTERM)
        # the reloader runs `sys.executable sys.argv...`: this script's --child mode
        sys.argv = [SCRIPT, "--child", plan_path]
        self.state["serving"] = True
        t.start()
        d = p["debugger"]
        try:
            serving.run_simple(self.host_arg(), port, App(p, self.dir), use_reloader=True, reloader_type="stat",
                               reloader_interval=p["reload_interval"],
                               extra_files=[os.path.join(self.dir, p["watch"])],
                               use_debugger=bool(d), use_evalex=bool(d and d["evalex"]),
                               threaded=p["mode"] == "threaded",
                               processes=p["processes"] if p["mode"] == "forking" else 1,
                               ssl_context=ssl_arg(p, self.env["certs"]),
                               static_files={"/assets": os.path.join(self.dir, "static")}
                               if p["static_files"] else None)
        except SystemExit:
            pass
        except BaseException as e:
            self.note(e)
        finally:
            self.state["serving"] = False
            sys.argv = argv
            signal.signal(signal.SIGTERM, old_term)
        t.join(CASE_BUDGET + 20)
        self.close_server_fd()

    def child_pid(self):
        try:
            with open(os.path.join(self.dir, "child.pid")) as fh:
                return int(fh.read().strip() or 0)
        except (OSError, ValueError):
            return 0

    def wait_child(self, not_pid=None, budget=4.0):
        end = time.monotonic() + budget
        while time.monotonic() < end and self.state["serving"]:
            pid = self.child_pid()
            if pid and pid != not_pid:
                return pid
            time.sleep(0.03)
        return 0

    def drive_reloader(self):
        try:
            self.wait_child()
            self.drive()
        finally:
            end = time.monotonic() + 8
            sig = signal.SIGTERM if self.plan["end"] == "SIGTERM" else signal.SIGINT
            while self.state["serving"]:
                if time.monotonic() > end:
                    sig = signal.SIGKILL  # the parent must not wait for ever
                pid = self.child_pid()
                if pid:
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
                t = time.monotonic() + 1.0
                while self.state["serving"] and time.monotonic() < t:
                    time.sleep(0.02)

    def note(self, e):
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exception(e, file=sys.__stderr__)

    # -- the client's steps -------------------------------------------------
    def drive(self):
        r = self.r
        p = self.plan
        k = set(p["kinds"])
        steps = [
            (30, self.s_page, True), (8, self.s_missing, True), (5, self.s_method, True),
            (5, self.s_slash, True), (6, self.s_crud, "crud" in k), (4, self.s_form, "forms" in k),
            (4, self.s_json, "json" in k), (3, self.s_auth, "auth" in k), (4, self.s_conditional, "feed" in k),
            (5, self.s_files, "files" in k), (3, self.s_redirect, "go" in k), (4, self.s_stream, "stream" in k),
            (3, self.s_download, "download" in k), (7, self.s_boom, "boom" in k), (4, self.s_status, "status" in k),
            (3, self.s_converters, True), (3, self.s_burst, p["mode"] != "single"),
            (6, self.s_raw, True), (4, self.s_disconnect, True), (2, self.s_version, True),
            (3, self.s_bodies, True), (3, self.s_tls_garbage, p["tls"] is not None),
            (3, self.s_ws, "ws" in k), (3, self.s_cookies, "prefs" in k), (3, self.s_search, "search" in k),
            (2, self.s_sql, "sql" in k), (4, self.s_forwarded, "proxyfix" in p["mw"]),
            (5, self.s_static, "shared" in p["mw"] or p["static_files"]),
            (5, self.s_mounted, "dispatch" in p["mw"]), (5, self.s_backend, "proxy" in p["mw"]),
            (14, self.s_debugger, bool(p["debugger"])), (5, self.s_reload, p["api"] == "reloader"),
        ]
        # each case's client has its own habits
        table = [(w * r.choice([0.2, 0.5, 1, 1, 2, 4]), f) for w, f, ok in steps if ok]
        end = time.monotonic() + CASE_BUDGET
        for _ in range(p["steps"]):
            if time.monotonic() > end:
                break
            if p["passthrough"] and p["mode"] == "single" and not self.server_alive():
                break
            try:
                step = pick(r, table)
                ts = time.monotonic()
                step()
                if os.environ.get("GEN_DEBUG") and time.monotonic() - ts > 0.5:
                    sys.__stderr__.write("  slow step %s: %.2fs\n" % (step.__name__, time.monotonic() - ts))
            except (OSError, ssl.SSLError, ValueError) as e:
                self.client.errors += 1
                self.note(e)

    def server_alive(self):
        if self.server_thread is not None:
            return self.server_thread.is_alive()
        return self.state["serving"]

    def P(self, path):
        return self.plan["prefix"] + path

    def coll(self, sub=""):
        return self.P("/%s/%s" % (self.plan["names"]["coll"], sub))

    def valid_paths(self):
        p = self.plan
        k = set(p["kinds"])
        n = p["names"]
        r = self.r
        paths = ["/"]
        if "crud" in k:
            paths += [self.coll(), self.coll("?page=%d" % r.randint(1, 4)), self.coll(str(r.randint(1, 12))),
                      self.coll("%d/%s" % (r.randint(1, 12), r.choice(SLUGS)))]
        if "files" in k:
            paths.append(self.P("/%s/%s" % (n["files"], r.choice(["readme.txt", "data.csv", "img/logo.png",
                                                                   "reports/q3.pdf"]))))
        if "feed" in k:
            paths.append(self.P("/feed.xml"))
        if "whoami" in k:
            paths.append(self.P("/whoami"))
        if "pages" in k:
            paths.append(self.P("/page/%d" % r.randint(2, 9)))
        if "tags" in k:
            paths.append(self.P("/tags/%s" % ",".join(r.sample(WORDS, r.randint(1, 3)))))
            paths.append(self.P("/%s/about" % r.choice(["en", "fr", "de-AT", "es"])))
        if "convert" in k:
            paths.append(self.P("/convert/%.2f/%s" % (r.uniform(1, 500), r.choice(["usd", "eur", "gbp", "jpy"]))))
        if "slow" in k:
            paths.append(self.P("/slow/%d" % r.choice([10, 50, 120])))
        if "prefs" in k:
            paths.append(self.P("/prefs"))
        if "forms" in k:
            paths.append(self.P("/login"))
        if "orders" in k:
            paths.append(self.P("/receipts/%s" % r.choice(self.plan["receipts"][1:])))
        return paths

    def s_page(self):
        r = self.r
        path = r.choice(self.valid_paths())
        method = "HEAD" if r.random() < 0.1 else "GET"
        version = "HTTP/1.0" if r.random() < 0.15 else "HTTP/1.1"
        hs = [("User-Agent", r.choice(["Mozilla/5.0 (X11; Linux x86_64) Firefox/115.0", "curl/7.88.1",
                                       "python-requests/2.28.1", "HTTPie/3.2.1"]))]
        if r.random() < 0.3:
            hs.append(("Accept", r.choice(["text/html", "application/json", "*/*"])))
        self.client.request(method, path, version, hs)

    def s_missing(self):
        r = self.r
        path = r.choice(["/favicon.ico", "/robots.txt", "/wp-login.php", "/.env", "/admin.php",
                         self.P("/%s" % r.choice(WORDS)), self.coll("%d" % r.randint(13, 999)),
                         "/caf%C3%A9/men%C3%BC", "/%E2%98%83", "/search%20results", "/a/b/c/d/e",
                         self.P("/static/../../etc/passwd"), "/%zz%", "/%ED%A0%80"])
        self.client.request("GET", path)

    def s_method(self):
        r = self.r
        path = r.choice(self.valid_paths())
        m = r.choice(["OPTIONS", "POST", "PUT", "DELETE", "PATCH", "PROPFIND", "BREW", "get", "TRACE"])
        body = "x=1" if m in ("POST", "PUT", "PATCH") else None
        self.client.request(m, path, body=body, headers=[("Content-Type", "application/x-www-form-urlencoded")]
                            if body else ())

    def s_slash(self):
        r = self.r
        c = self.plan["names"]["coll"]
        path = r.choice([self.P("/%s" % c), self.P("//%s//" % c), self.P("/page/1"), self.P("/page"),
                         self.P("/old-%s/%d" % (c, r.randint(1, 20))), self.P("/private"),
                         "//" + c + "/3", self.P("/moved"), self.coll("/4")])
        self.client.request("GET", path, r.choice(["HTTP/1.1", "HTTP/1.0"]))

    def s_crud(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            body = json.dumps({"name": r.choice(WORDS + [""]), "qty": r.randint(0, 9)})
            self.client.request("POST", self.coll(), headers=[("Content-Type", "application/json")], body=body)
        elif k < 0.45:
            self.client.request("POST", self.coll(), body="name=%s&qty=%d" % (r.choice(WORDS), r.randint(1, 5)),
                                headers=[("Content-Type", "application/x-www-form-urlencoded")])
        elif k < 0.65:
            hs = [("Content-Type", "application/json")]
            if r.random() < 0.3:
                hs.append(("If-Match", r.choice(['"v1"', '"v0"'])))
            self.client.request(r.choice(["PUT", "PATCH"]), self.coll(str(r.randint(1, 16))), headers=hs,
                                body=json.dumps({"qty": r.choice([3, "three"])}))
        elif k < 0.8:
            self.client.request("DELETE", self.coll(str(r.randint(1, 16))))
        elif k < 0.9:
            rep = self.client.request("GET", self.coll(str(r.randint(1, 12))))
            et = rep.headers.get("etag")
            if et:
                self.client.request("GET", self.coll(str(r.randint(1, 12))), headers=[("If-None-Match", et)])
        else:
            self.client.request("GET", self.coll("?page=%s&size=%s" % (r.choice(["1", "2", "x"]),
                                                                       r.choice(["5", "100"]))))

    def s_form(self):
        r = self.r
        k = r.random()
        if k < 0.45:
            user = r.choice(list(USERS) + ["mallory"])
            pw = USERS.get(user, "x") if r.random() < 0.6 else "wrong"
            body = r.choice(["user=%s&password=%s" % (user, pw), "user=%s" % user, ""])
            self.client.request("POST", self.P("/login"), body=body,
                                headers=[("Content-Type", "application/x-www-form-urlencoded")])
        elif k < 0.85:
            boundary = "----wzbench%d" % r.randrange(10 ** 6)
            size = r.choice([100, 3000, 20000, 100000])
            name = r.choice(["photo.jpg", "notes.txt", "", "r\u00e9sum\u00e9.pdf"])
            part = ('--%s\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n'
                    'Content-Type: application/octet-stream\r\n\r\n' % (boundary, name)).encode("utf-8")
            body = part + b"z" * size + ("\r\n--%s--\r\n" % boundary).encode()
            if r.random() < 0.15:
                body = body[:len(body) // 2]  # truncated multipart
            self.client.request("POST", self.P("/upload"), body=body,
                                headers=[("Content-Type", "multipart/form-data; boundary=%s" % boundary)])
        else:
            self.client.request("POST", self.P("/upload"), body="not multipart",
                                headers=[("Content-Type", "multipart/form-data")])

    def s_json(self):
        r = self.r
        body, ct = r.choice([
            ('{"method": "sum", "params": [1, 2], "id": 1}', "application/json"),
            ('{"method": "fail", "params": "x"}', "application/json"),
            ("{oops", "application/json"), ('[1, 2]', "application/json"),
            ('{"method": "ping"}', "text/plain"), ("", "application/json")])
        self.client.request("POST", self.P("/rpc"), headers=[("Content-Type", ct)], body=body)

    def s_auth(self):
        r = self.r
        cred = r.choice(["alice:wonderland", "bob:wrong", "eve:x", None, "garbage"])
        hs = []
        if cred == "garbage":
            hs.append(("Authorization", "Basic !!notbase64"))
        elif cred:
            hs.append(("Authorization", "Basic " + base64.b64encode(cred.encode()).decode()))
        self.client.request("GET", self.P("/private/"), headers=hs)

    def s_conditional(self):
        r = self.r
        hs = r.choice([[("If-None-Match", '"feed-v1"')], [("If-None-Match", '"old"')],
                       [("If-Modified-Since", "Wed, 15 Nov 2023 00:00:00 GMT")],
                       [("Range", "bytes=0-99")], [("Range", "bytes=99999-")], [("If-Match", '"nope"')],
                       [("Range", "bytes=10-20"), ("If-Range", '"feed-v1"')], []])
        self.client.request(r.choice(["GET", "GET", "HEAD"]), self.P("/feed.xml"), headers=hs)

    def s_files(self):
        r = self.r
        f = self.plan["names"]["files"]
        name = r.choice(["readme.txt", "data.csv", "img/logo.png", "reports/q3.pdf", "missing.txt",
                         "../settings.cfg", "img/", "reports/../readme.txt", "%2e%2e/views.py"])
        hs = []
        if r.random() < 0.3:
            hs.append(("Range", r.choice(["bytes=0-10", "bytes=100-", "bytes=-50", "bytes=90000-"])))
        if r.random() < 0.2:
            hs.append(("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"))
        self.client.request("GET", self.P("/%s/%s" % (f, name)), headers=hs)

    def s_redirect(self):
        r = self.r
        t = r.choice(["home", "docs", "partner", "back", "loop", "nowhere"])
        hs = [("Referer", "http://127.0.0.1/previous")] if r.random() < 0.5 else []
        rep = self.client.request("GET", self.P("/go/%s" % t), headers=hs)
        loc = rep.headers.get("location", "")
        if loc.startswith("/") and r.random() < 0.7:
            self.client.request("GET", loc)

    def s_stream(self):
        r = self.r
        if r.random() < 0.35:
            self.client.request("GET", self.P("/report/%d" % r.randint(0, 30)), r.choice(["HTTP/1.1", "HTTP/1.0"]))
            return
        rows = r.choice([10, 200, 2000, 5000])
        limit = r.choice([None, None, 300, 2000]) if rows > 100 else None
        self.client.request("GET", self.P("/export/%d.csv" % rows), r.choice(["HTTP/1.1", "HTTP/1.0"]),
                            limit=limit)

    def s_download(self):
        r = self.r
        kb = r.choice([1, 64, 512, 2048, 4096, 9000])
        self.client.request("GET", self.P("/download/%d" % kb), limit=r.choice([None, None, 8192]))

    def s_boom(self):
        r = self.r
        k = r.random()
        if k < 0.55:
            path = self.P("/%s/%s" % (self.plan["names"]["boom"], r.choice(sorted(FAILURES))))
            rep = self.client.request("GET", path)
            self.learn_debugger(rep)
        elif k < 0.75:
            rep = self.client.request(r.choice(["GET", "POST"]), self.P("/checkout"),
                                      body="total=" if r.random() < 0.5 else None)
            self.learn_debugger(rep)
        elif k < 0.85:
            self.client.request("GET", self.P("/widgets/%s" % r.choice(["abc", "123", "abcd", "x"])))
        elif "links" in self.plan["kinds"]:
            self.client.request("GET", self.P("/link/%s" % r.choice(["item", "list", "nope", "index"])))
        else:
            self.client.request("GET", self.P("/%s/%s" % (self.plan["names"]["boom"], "nosuchkind")))

    def s_status(self):
        r = self.r
        code = r.choice([204, 205, 299, 400, 401, 403, 404, 405, 409, 410, 412, 413, 418, 422, 423, 429, 451,
                         500, 501, 502, 503, 504, 599, 304])
        self.client.request("GET", self.P("/status/%d" % code))

    def s_converters(self):
        r = self.r
        path = r.choice([self.P("/convert/12/usd"), self.P("/convert/1.5/chf"), self.P("/convert/2e9/usd"),
                         self.P("/receipts/not-a-uuid"), self.P("/receipts/%s" % self.plan["receipts"][0]),
                         self.P("/receipts/%s" % uuid.UUID(int=r.getrandbits(128))), self.P("/tags/Bad,Tags"),
                         self.P("/it/about"), self.P("/page/0"), self.coll("-3"),
                         self.P("/convert/999999999.5/eur")])
        self.client.request("GET", path)

    def s_burst(self):
        r = self.r
        n = r.randint(2, 6)
        paths = [r.choice(self.valid_paths() + ([self.P("/slow/200")] if "slow" in self.plan["kinds"] else []))
                 for _ in range(n)]
        ts = [threading.Thread(target=self.client.request, args=("GET", q), name="burst-%d" % j)
              for j, q in enumerate(paths)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(8)

    def s_raw(self):
        r = self.r
        c = self.client
        host = ("Host: %s\r\n" % c.host).encode()
        k = r.randrange(13)
        if k == 0:
            c.exchange([r.choice([b"GARBAGE\r\n\r\n", b"HELLO WORLD\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\r\n\r\n"])])
        elif k == 1:
            c.exchange([b"GET / HTTP/%s\r\n%s\r\n" % (r.choice([b"2.0", b"9.9", b"1.x", b"3"]), host)])
        elif k == 2:
            c.exchange([b"GET /%s HTTP/1.1\r\n%s\r\n" % (b"a" * r.choice([70000, 66000]), host)])
        elif k == 3:
            c.exchange([b"GET / HTTP/1.1\r\n%s%s\r\n" % (host, b"".join(b"X-H%d: v\r\n" % i for i in range(120)))])
        elif k == 4:
            c.exchange([b"GET / HTTP/1.1\r\n%sX-Big: %s\r\n\r\n" % (host, b"y" * 70000)])
        elif k == 5:
            c.exchange([b"GET %s HTTP/1.1 extra\r\n%s\r\n" % (self.coll().encode(), host)])
        elif k == 6:
            reqs = [c.build("GET", q, headers=[("Connection", "keep-alive")]) for q in
                    r.sample(self.valid_paths(), 2)]
            c.exchange([b"".join(reqs)])  # pipelined: the server answers one and closes
        elif k == 7:
            c.exchange([b"GET http://example.com%s HTTP/1.1\r\n%s\r\n" % (self.coll().encode(), host)])
        elif k == 8:
            c.exchange([b"GET /caf\xc3\xa9?q=\xff HTTP/1.1\r\n%s\r\n" % host])
        elif k == 9:
            c.exchange([b"GET / HTTP/1.1\r\n%sX-Broken-Header\r\n: empty\r\n\r\n" % host])
        elif k == 10:
            c.exchange([b"\r\n\r\n"])
        elif k == 11:
            c.exchange([b"POST %s HTTP/1.1\r\n%sContent-Length: abc\r\n\r\nname=x" % (self.coll().encode(), host)])
        else:
            c.exchange([b"GET %s HTTP/1.1\r\n%sConnection: close\r\n\r\n" % (self.P("/").encode(), host)],
                       pause=0.0)

    def s_disconnect(self):
        r = self.r
        c = self.client
        k = r.randrange(4)
        if k == 0:
            c.exchange([], read=False)  # connect and leave
        elif k == 1:
            c.exchange([b"GET %s HT" % self.coll().encode()], read=False)  # a partial request line
        elif k == 2:
            body = b"name=" + b"q" * 500
            head = ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    "Content-Length: %d\r\n\r\n" % (self.coll(), c.host, len(body) + 1000)).encode()
            c.exchange([head, body], read=False, pause=0.02)  # leaves before the end of its body
            time.sleep(0.05)
        else:
            c.request("GET", self.P("/export/5000.csv") if "stream" in self.plan["kinds"] else "/", limit=64)

    def s_version(self):
        r = self.r
        c = self.client
        # http.server reads header lines even after an HTTP/0.9 request line
        if r.random() < 0.5:
            c.exchange([b"GET %s\r\n\r\n" % r.choice(self.valid_paths()).encode()])  # HTTP/0.9
        else:
            c.exchange([b"POST %s\r\n\r\n" % self.coll().encode()])  # bad HTTP/0.9 request type

    def s_bodies(self):
        r = self.r
        c = self.client
        k = r.randrange(4)
        target = self.P("/rpc") if "json" in self.plan["kinds"] else self.coll()
        ct = [("Content-Type", "application/json")]
        body = b'{"method": "sum", "params": [3, 4], "id": 9, "name": "kiwi"}'
        if k == 0:
            c.exchange([c.build("POST", target, headers=ct, body=body, chunked=True)])
        elif k == 1:
            head = c.build("POST", target, headers=ct, chunked=True)
            c.exchange([head + b"zz\r\nnot hex\r\n0\r\n\r\n"])  # bad chunk header
        elif k == 2:
            head = c.build("POST", target, headers=ct + [("Expect", "100-continue")], body=b"")[:-2]
            head = head.replace(b"Content-Length: 0\r\n", b"Content-Length: %d\r\n" % len(body)) + b"\r\n"
            c.exchange([head, body], pause=0.05)
        else:
            c.exchange([c.build("POST", target, headers=ct + [("Content-Length", "999")], body=None) + body],
                       timeout=0.3)  # a body shorter than announced

    def s_tls_garbage(self):
        r = self.r
        try:
            s = self.client.connect(3.0)
        except (OSError, ssl.SSLError):
            return
        raw = socket.socket(fileno=s.detach())
        raw.settimeout(1.0)
        try:
            raw.sendall(r.choice([b"\x17\x03\x03\x00\x20" + bytes(r.getrandbits(8) for _ in range(32)),
                                  b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"\x15\x03\x03\x00\x02\x02\x50"]))
            Client.read_all(raw)
        except OSError:
            pass
        finally:
            hang_up(raw)

    def s_ws(self):
        r = self.r
        hs = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13")]
        if r.random() < 0.8:
            hs.append(("Sec-WebSocket-Key", base64.b64encode(bytes(r.getrandbits(8) for _ in range(16))).decode()))
        if r.random() < 0.3:
            hs = []
        self.client.request("GET", self.P("/live"), headers=hs)

    def s_cookies(self):
        r = self.r
        if r.random() < 0.5:
            self.client.request("POST", self.P("/prefs"), body="theme=%s" % r.choice(["dark", "light", "solar"]),
                                headers=[("Content-Type", "application/x-www-form-urlencoded")])
        else:
            hs = [("Cookie", r.choice(['theme="da\\"rk"', "theme=dark; ;;", "=novalue"]))] if r.random() < 0.3 else []
            self.client.request("GET", self.P("/prefs"), headers=hs)

    def s_search(self):
        r = self.r
        q = r.choice(["q=kiwi", "q=caf%C3%A9&page=2", "q=", "q=x&page=two", "q=" + "a" * 250, "page=3",
                      "q=%E2%98%83&page=1"])
        self.client.request("GET", self.P("/search?" + q))

    def s_sql(self):
        self.client.request("GET", self.P("/db/%s" % self.r.choice(DB_TABLES)))

    def s_forwarded(self):
        r = self.r
        hs = [("X-Forwarded-For", r.choice(["203.0.113.9", "198.51.100.7, 10.0.0.2", "2001:db8::1", "unknown"])),
              ("X-Forwarded-Proto", r.choice(["https", "http"]))]
        if r.random() < 0.5:
            hs.append(("X-Forwarded-Host", r.choice(["shop.example.com", "a.example, b.example"])))
        if r.random() < 0.3:
            hs.append(("X-Forwarded-Prefix", "/mounted"))
        path = self.P("/whoami") if "whoami" in self.plan["kinds"] else r.choice(self.valid_paths())
        self.client.request("GET", path, headers=hs)

    def s_static(self):
        r = self.r
        prefix = "/static" if "shared" in self.plan["mw"] else "/assets"
        if "shared" in self.plan["mw"] and r.random() < 0.3:
            path = "/vendor/" + r.choice(["style.css", "debugger.js", "console.png", "less.png", "nope.js"])
        else:
            path = prefix + "/" + r.choice(["app.js", "css/site.css", "favicon.ico", "missing.css", "css/"])
        hs = []
        if r.random() < 0.25:
            hs.append(("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT"))
        rep = self.client.request(r.choice(["GET", "GET", "HEAD"]), path, headers=hs)
        et = rep.headers.get("etag")
        if et and r.random() < 0.4:
            self.client.request("GET", path, headers=[("If-None-Match", et)])

    def s_mounted(self):
        r = self.r
        k = r.random()
        if k < 0.45:
            self.client.request("GET", "/health")
        elif k < 0.75:
            self.client.request("GET", "/legacy" + r.choice(["", "/", "/report", "/crash", "/text", "/old"]))
        elif self.plan["admin"]:
            cred = r.choice(["alice:wonderland", "bob:builder", "bob:nope", None])
            hs = [("Authorization", "Basic " + base64.b64encode(cred.encode()).decode())] if cred else []
            path = r.choice(["/admin/", "/admin/users/%d" % r.randint(1, 150), "/admin/users/7/ban", "/admin"])
            self.client.request("POST" if path.endswith("ban") else "GET", path, headers=hs)
        else:
            self.client.request("GET", "/admin/")

    def s_backend(self):
        r = self.r
        if self.backend is not None and r.random() < 0.06:
            self.stop_backend()  # the backend goes away: 502 from now on
            return
        path = "/backend/" + r.choice(["", "inventory/%d" % r.randint(1, 600), "fail", "slow", "nope"])
        self.client.request("GET", path)

    # -- the debugger -------------------------------------------------------
    def learn_debugger(self, rep):
        m = re.search(rb'SECRET = "([^"]+)"', rep.body or b"")
        if m:
            self.secret = m.group(1).decode()
            self.frames = [int(x) for x in re.findall(rb'id="frame-(\d+)"', rep.body)]

    def read_pin(self):
        for row in reversed(self.log.case_rows()):
            m = re.search(r"Debugger (?:PIN|pin code): (\S+)", row[2])
            if m:
                return m.group(1)
        return None

    def dbg_get(self, query, path="/", **kw):
        return self.client.request("GET", path + "?__debugger__=yes&" + query, **kw)

    def s_debugger(self):
        r = self.r
        d = self.plan["debugger"]
        if self.secret is None or r.random() < 0.15:
            if "boom" in self.plan["kinds"]:
                path = self.P("/%s/%s" % (self.plan["names"]["boom"], r.choice(sorted(FAILURES))))
            elif "stream" in self.plan["kinds"]:
                path = self.P("/report/3")
            else:
                path = "/legacy/crash" if "dispatch" in self.plan["mw"] else self.P("/boom-missing")
            self.learn_debugger(self.client.request("GET", path))
            return
        k = r.random()
        secret = self.secret if r.random() < 0.9 else "wrongsecret"
        host = True if r.random() < 0.9 else "evil.example.com"
        if k < 0.15:
            f = r.choice(["style.css", "debugger.js", "console.png", "less.png", "more.png", "ubuntu.ttf",
                          "../../etc/passwd"])
            self.dbg_get("cmd=resource&f=%s" % f)
        elif k < 0.45:
            self.dbg_get("cmd=printpin&s=%s" % secret, host=host)
            if self.pin is None:
                self.pin = self.read_pin()
        elif k < 0.65:
            pin = self.pin or self.read_pin()
            if pin is None or (r.random() < 0.2 and self.pin_failures < 1):
                pin = "%03d-%03d-%03d" % (r.randrange(1000), r.randrange(1000), r.randrange(1000))
                self.pin_failures += 1
            self.dbg_get("cmd=pinauth&pin=%s&s=%s" % (pin, secret), host=host)
        elif k < 0.85:
            frm = r.choice(self.frames) if self.frames and r.random() < 0.9 else 12345
            cmd = r.choice(["len(locals())", "request.path", "1%2B1", "dir()", "import%20os", "undefined_name"])
            self.dbg_get("cmd=%s&frm=%d&s=%s" % (cmd, frm, secret), host=host)
        else:
            rep = self.client.request("GET", d["console"], host=host)
            if rep.status == 200 and r.random() < 0.7:
                self.dbg_get("cmd=%s&frm=0&s=%s" % (r.choice(["2*21", "app", "x%3D1"]), secret), path=d["console"])

    # -- the reloader ---------------------------------------------------------
    def s_reload(self):
        # an answer first: the serving process has scanned its files by then
        self.client.request("GET", self.r.choice(self.valid_paths()))
        old = self.child_pid()
        path = os.path.join(self.dir, self.plan["watch"])
        self.mtime = max(self.mtime + 1, time.time() + 1)
        os.utime(path, (self.mtime, self.mtime))
        self.wait_child(not_pid=old)
        self.client.request("GET", "/")

    # -- the end ------------------------------------------------------------
    def cleanup(self):
        self.stop_backend()
        if self.srv is not None:
            try:
                self.srv.server_close()
            except OSError:
                pass
        _capture.release_ports(self.ports)
        os.environ.pop("WERKZEUG_DEBUG_PIN", None)
        os.environ.pop("WERKZEUG_SERVER_FD", None)
        # a threaded server makes werkzeug's handler class speak HTTP/1.1 for good
        if "protocol_version" in vars(serving.WSGIRequestHandler):
            del serving.WSGIRequestHandler.protocol_version
        logging.getLogger("werkzeug").setLevel(logging.DEBUG)


def child_main(plan_path):
    """A server process of the reloader (``WERKZEUG_RUN_MAIN=true``): serve the
    case's application on the inherited socket until a watched file changes
    or a signal ends it."""
    sys.stderr = null_stream()
    warnings.simplefilter("ignore")
    with open(plan_path) as fh:
        p = json.load(fh)
    log = WzLog(werkzeug, os.devnull, logger_names=["werkzeug"], wrappers=WRAPPERS)
    LOG[0] = log
    log.begin_case(p["case_id"], p["rows"])
    logging.getLogger("werkzeug").setLevel(LEVELS[p["level"]])
    pid_path = os.path.join(p["dir"], "child.pid")
    with open(pid_path + ".tmp", "w") as fh:
        fh.write(str(os.getpid()))
    os.replace(pid_path + ".tmp", pid_path)
    certs = json.loads(os.environ.get("GEN_WERKZEUG_CERTS", "{}"))
    _, wsgi, _ = build_stack(p, p["dir"], p.get("backend_port"), with_debugger=False)
    d = p["debugger"]
    host = "unix://" + os.path.join(p["dir"], "app.sock") if p["host"] == "unix" else p["host"]
    serving.run_simple(host, 0, wsgi, use_reloader=True, reloader_type="stat",
                       reloader_interval=p["reload_interval"], extra_files=[os.path.join(p["dir"], p["watch"])],
                       use_debugger=bool(d), use_evalex=bool(d and d["evalex"]),
                       threaded=p["mode"] == "threaded", processes=p["processes"] if p["mode"] == "forking" else 1,
                       request_handler=make_handler(p), passthrough_errors=p["passthrough"],
                       ssl_context=ssl_arg(p, certs),
                       static_files={"/assets": os.path.join(p["dir"], "static")} if p["static_files"] else None)


def make_certs(tmp):
    certs = {}
    if shutil.which("openssl"):
        d = os.path.join(tmp, "openssl")
        os.makedirs(d)
        cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
        rc = subprocess.call(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                              "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                              "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if rc == 0:
            certs["openssl"] = {"cert": cert, "key": key}
    if HAVE_CRYPTOGRAPHY:
        cert, key = serving.make_ssl_devcert(os.path.join(tmp, "devcert"), host="localhost")
        certs["devcert"] = {"cert": cert, "key": key}
    return certs


def has_ipv6():
    try:
        s = socket.socket(socket.AF_INET6)
        s.bind(("::1", 0))
        s.close()
        return True
    except OSError:
        return False


def join_case_threads(before, budget=4.0):
    end = time.monotonic() + budget
    for t in threading.enumerate():
        if t in before or t is threading.main_thread():
            continue
        t.join(max(0.0, end - time.monotonic()))


# The most a case may take (a few seconds is usual), and its cleanup.
CASE_SECONDS = 60
CLEANUP_SECONDS = 20


def main():
    if "--child" in sys.argv[1:]:
        child_main(sys.argv[sys.argv.index("--child") + 1])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    # A run_simple case ends its server as Ctrl+C does (SIGINT from the
    # client thread); a shell starts a job in the background with SIGINT
    # ignored, and Python then leaves it so: the server would serve until
    # the case's alarm.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    thread_errors = [0]

    def quiet_hook(args):
        thread_errors[0] += 1  # passthrough errors end server threads

    threading.excepthook = quiet_hook
    real_stderr = sys.stderr
    sys.stderr = null_stream()  # socketserver's and http.server's prints, the debugger's wsgi.errors
    tmp = tempfile.mkdtemp(prefix="gen_werkzeug_")
    # attached before werkzeug's first record: _log then adds no StreamHandler
    log = WzLog(werkzeug, a.out, logger_names=["werkzeug"], wrappers=WRAPPERS)
    LOG[0] = log
    errors = {}
    t0 = time.time()
    try:
        certs = make_certs(tmp)
        os.environ["GEN_WERKZEUG_CERTS"] = json.dumps(certs)
        env = {"certs": certs, "v6": has_ipv6()}
        for i in range(a.cases):
            r = random.Random("%d-%d" % (a.seed, i))
            before = set(threading.enumerate())
            case = Case(i, r, tmp, env, log)
            log.begin_case(case.case_id, case.plan["rows"])
            tc = time.time()
            # a case whose server or client waits for ever (a socket left
            # unanswered) is ended, counted as CaseTimeout, and the run goes on
            signal.signal(signal.SIGALRM, _capture.on_alarm)
            signal.alarm(CASE_SECONDS)
            try:
                case.run()
            except (Exception, _capture.CaseTimeout) as e:  # a broken case must not stop the generation
                errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                case.note(e)
            finally:
                if os.environ.get("GEN_DEBUG"):
                    p = case.plan
                    sys.__stderr__.write("case %d: %.2fs %s %s %s tls=%s dbg=%s mw=%s steps=%d\n" % (
                        i, time.time() - tc, p["api"], p["mode"], p["host"], p["tls"], bool(p["debugger"]),
                        ",".join(p["mw"]), p["steps"]))
                # the cleanup waits for the case's servers, so it runs under
                # an alarm of its own: a server that never stops ends it too
                signal.alarm(CLEANUP_SECONDS)
                try:
                    case.cleanup()
                except (Exception, _capture.CaseTimeout) as e:
                    key = "cleanup " + type(e).__name__
                    errors[key] = errors.get(key, 0) + 1
                finally:
                    signal.alarm(0)
                join_case_threads(before)
                log.stale_threads.update(t for t in threading.enumerate() if t is not threading.main_thread())
                log.end_case()
                shutil.rmtree(case.dir, ignore_errors=True)
        log.finish()
        c = log.counts
        real_stderr.write("%s; dropped: %d records emitted outside werkzeug (http.server's own lines), "
                          "%d from threads of ended cases, %d outside any case; cases ended by an exception: %s; "
                          "errors in threads: %d; %.0fs\n"
                          % (log.summary(), c.get("outside", 0), c.get("stale", 0), c.get("no_case", 0),
                             errors or "none", thread_errors[0], time.time() - t0))
    finally:
        sys.stderr = real_stderr
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
