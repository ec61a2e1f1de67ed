#!/usr/bin/python3
"""Event log of Tornado (Debian python3-tornado 6.2.0), web server and HTTP
clients in one process, on 127.0.0.1.

    /usr/bin/python3 gen_tornado.py --out .deps/logs/tornado.csv.gz [--cases 1500] [--seed 1]
    /usr/bin/python3 gen_tornado.py --repo     # prints the directory to index

Indexed: the whole installed ``tornado`` directory, its test suite
(``tornado/test/*.py``, shipped inside the package) included: nothing of it
runs here, but its literals look like the messages of the code under test.

A case is one application lifetime on a fresh asyncio event loop: an
``Application`` built with random settings (xsrf cookies, cookie secret,
login URL, static path and URL prefix, gzip, serve_traceback, a default
handler, websocket ping/size limits, duplicate handler names) and a random
subset of handlers -- plain and JSON pages, path arguments (invalid UTF-8),
handlers that raise (plain exceptions, ``HTTPError`` with and without a log
message, ``MissingArgumentError``), that flush then fail, whose
``write_error`` or ``log_exception`` fails, redirects and redirect loops,
``ErrorHandler``, static files (ranges, ETags, traversal, directories,
``static_url`` of a missing file), secure cookies (v1/v2, forged, expired,
future, tampered), xsrf-protected forms, ``@authenticated`` pages, inline
templates (some that do not compile), failing IOLoop and periodic callbacks,
``gen.multi`` with several failures, ``gen.with_timeout`` over a future that
fails late, a streaming upload handler, a WSGI app behind ``FallbackHandler``
/ ``WSGIContainer``, CSV or gettext translations (bad locale names, bad plural
indicators, broken ``.mo`` files) and a websocket echo handler.  Sometimes the
application sits behind a ``RuleRouter`` (host/path rules, no match) and a
custom message delegate.  The ``HTTPServer`` gets random options (xheaders,
no_keep_alive, idle/body timeouts, body and header size limits, request
decompression, TLS with a throw-away certificate when ``openssl`` is there).
Then 2-7 client steps: tornado's ``SimpleAsyncHTTPClient`` (small max_clients,
so requests queue) and ``CurlAsyncHTTPClient`` (keep-alive connections; some
cases with curl's verbose debug on, some header callbacks that raise), a raw
``IOStream`` from ``TCPClient`` (pipelined keep-alive requests, HTTP/1.0,
malformed start lines, headers and chunked bodies, oversized headers, bodies
too slow or too large, connections closed mid-request, websocket upgrades
with missing headers or bad extensions), ``websocket_connect`` sessions
(echo, pings, compression, cross-origin, a message that makes the handler
raise, close codes), HTTPS mismatches (plain HTTP to the TLS port, an
unverifiable certificate), client timeouts, and a misbehaving backend (a
tornado ``TCPServer`` that answers garbage, hangs up, or whose
``handle_stream`` raises).  The case ends by stopping the server and closing
its connections; the loop is then closed.  Each fetch is given up after 5 s
(a fetch over TLS that times out while following redirects sometimes never
completes; the summary line counts them) and each case after 60 s.

Capture: the ``tornado`` logger tree (``tornado.access``,
``tornado.application``, ``tornado.general``, ``tornado.curl_httpclient``) at
DEBUG, with each record's true call site.  Server and clients share the case's
loop and thread, and cases run one after another, so every record belongs to
the open case.  Records whose source lies outside the ``tornado`` directory
(the generator's handlers, asyncio) are dropped.

Wrappers: none declared.  The access log line is composed by
``RequestHandler._request_summary`` and logged by ``Application.log_request``
(and, for WSGI, by ``WSGIContainer._log``); warnings of ``HTTPError``s get
their format from the raise site and are logged by ``log_exception``; the
"Uncaught exception" of ``_ExceptionLoggingContext.__exit__`` is logged on the
logger it was given.  None of these functions only logs (they pick levels,
compute times, re-raise), so the logging line is the emitter.
"""
import argparse
import asyncio
import datetime
import gzip
import logging
import os
import random
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import tornado  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(tornado.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

from tornado import gen, httputil, locale, template, web, websocket  # noqa: E402
from tornado.httpclient import HTTPRequest  # noqa: E402
from tornado.httpserver import HTTPServer  # noqa: E402
from tornado.ioloop import IOLoop, PeriodicCallback  # noqa: E402
from tornado.iostream import StreamClosedError  # noqa: E402
from tornado.netutil import bind_sockets  # noqa: E402
from tornado.routing import HostMatches, PathMatches, Rule, RuleRouter  # noqa: E402
from tornado.simple_httpclient import SimpleAsyncHTTPClient  # noqa: E402
from tornado.tcpclient import TCPClient  # noqa: E402
from tornado.tcpserver import TCPServer  # noqa: E402
from tornado.wsgi import WSGIContainer  # noqa: E402

try:
    from tornado.curl_httpclient import CurlAsyncHTTPClient  # noqa: E402
except ImportError:  # python3-pycurl missing: simple client only
    CurlAsyncHTTPClient = None

SECRET = "bench-cookie-secret-0123456789"
LOGIN = "/login"


# ---------------------------------------------------------------------------
# handlers (the application's code: their own records are not captured)
# ---------------------------------------------------------------------------
class Base(web.RequestHandler):
    def get_current_user(self):
        return self.get_cookie("user")


class MainHandler(Base):
    def get(self):
        if self.get_argument("loc", None) and self.settings.get("bench_locale"):
            _ = self.locale.translate
            self.write(_("Sign out") + " / " + _("%(n)d file", "%(n)d files", 2) % {"n": 2})
            if self.get_argument("ctx", None):
                self.write(self.locale.pgettext("menu", "Open"))
            return
        self.write("hello %s" % self.get_argument("name", "world"))

    def head(self):
        self.set_header("X-Bench", "1")

    def post(self):
        self.write({"name": self.get_argument("name"), "n": len(self.request.body)})


class JsonHandler(Base):
    def get(self):
        self.write({"items": list(range(int(self.get_argument("n", "3")))), "ok": True})

    def compute_etag(self):
        return '"fixed-etag"' if self.get_argument("etag", None) else super().compute_etag()


class ItemHandler(Base):
    ITEMS = {"a1": "apple", "b2": "banana", "c3": "cherry"}

    def get(self, item):
        if item not in self.ITEMS:
            raise web.HTTPError(404, "item %s not found", item)
        self.write(self.ITEMS[item])

    def delete(self, item):
        raise web.HTTPError(403, "user %s may not delete %s", self.current_user or "anonymous", item)


class BoomHandler(Base):
    def get(self):
        kind = self.get_argument("kind", "value")
        raise {"value": ValueError("bad value %s" % self.get_argument("v", "1")),
               "key": KeyError("missing"), "zero": ZeroDivisionError("division by zero"),
               "type": TypeError("unsupported operand"), "runtime": RuntimeError("state broken"),
               "os": OSError(5, "Input/output error")}[kind]

    async def post(self):
        await asyncio.sleep(0)
        self.finish("done")
        self.finish("again")  # finish() called twice


class FailHandler(Base):
    MSGS = [(None, ()), ("quota exceeded for %s", ("tenant-7",)), ("upstream %s returned %d", ("billing", 502)),
            ("maintenance window", ()), ("rate limited: %d requests in %ds", (120, 60))]

    def get(self, code):
        code = int(code)
        how = self.get_argument("how", "raise")
        if how == "send":
            self.send_error(code)
            return
        if how == "status":
            self.set_status(code)
            self.finish("status %d" % code)
            return
        msg, args = self.MSGS[int(self.get_argument("m", "0")) % len(self.MSGS)]
        if self.get_argument("reason", None):
            raise web.HTTPError(code, msg, *args, reason="Custom Reason")
        raise web.HTTPError(code, msg, *args)


class FlushFailHandler(Base):
    async def get(self):
        self.write("partial " * 20)
        await self.flush()
        if self.get_argument("close", None):
            self.request.connection.stream.close()
            self.write("x")
            await self.flush()
        raise RuntimeError("failed after flush")


class BadWriteErrorHandler(Base):
    def get(self):
        raise ValueError("original failure")

    def write_error(self, status_code, **kwargs):
        raise RuntimeError("error page template missing")


class BadLogExceptionHandler(Base):
    def get(self):
        raise KeyError("cart")

    def log_exception(self, typ, value, tb):
        raise AttributeError("logger misconfigured")


class BadExceptionHandler(Base):
    def get(self):
        raise ValueError("first failure")

    def _handle_request_exception(self, e):
        raise RuntimeError("exception handler failed")


class SlowHandler(Base):
    async def get(self):
        await asyncio.sleep(float(self.get_argument("ms", "50")) / 1000)
        self.write("slow done")

    def on_connection_close(self):
        self.closed = True


class StaticPage(Base):
    def get(self):
        self.write("<link href=%s>" % self.static_url("app.css"))
        self.write("<script src=%s></script>" % self.static_url(self.get_argument("js", "app.js")))


class CookieHandler(Base):
    def get(self):
        if self.get_argument("set", None):
            self.set_secure_cookie("session", "user-%s" % self.get_argument("set"),
                                   version=int(self.get_argument("v", "2")))
            self.write("set")
            return
        v = self.get_secure_cookie("session", min_version=1,
                                   max_age_days=float(self.get_argument("age", "31")))
        self.write("session=%r" % (v,))


class FormHandler(Base):
    def get(self):
        self.write(self.xsrf_form_html())

    def post(self):
        self.write("posted %s" % self.get_argument("item", "-"))


class PrivateHandler(Base):
    @web.authenticated
    def get(self):
        self.write("secret for %s" % self.current_user)

    @web.authenticated
    def post(self):
        self.write("ok")


class LoginHandler(Base):
    def get(self):
        self.set_cookie("user", "bob")
        self.write("logged in, next=%s" % self.get_argument("next", "/"))


TEMPLATES = {
    "ok": "<ul>{% for i in items %}<li>{{ i }}</li>{% end %}</ul>",
    "expr": "{{ 1 + }}",
    "stmt": "{% set x = ) %}{{ x }}",
    "runtime": "{{ items[99] }}",
    "parse": "{% if x %}no end",
}


class TemplateHandler(Base):
    def get(self):
        kind = self.get_argument("t", "ok")
        t = template.Template(TEMPLATES[kind], name="page_%s.html" % kind)
        self.write(t.generate(items=[1, 2, 3]))


async def _late_failure(delay):
    await asyncio.sleep(delay)
    raise ConnectionResetError("backend reset after %.0f ms" % (delay * 1000))


async def _fail_soon(msg):
    await asyncio.sleep(0.001)
    raise ValueError(msg)


class CallbackHandler(Base):
    async def get(self):
        what = self.get_argument("what", "cb")
        io = IOLoop.current()
        if what == "cb":
            def push_metrics():
                raise ConnectionError("metrics sink down")
            io.add_callback(push_metrics)
            self.write("scheduled")
        elif what == "timeout":
            io.call_later(0.005, lambda: 1 / 0)
            self.write("scheduled later")
        elif what == "periodic":
            n = [0]

            def heartbeat():
                n[0] += 1
                if n[0] >= 2:
                    pc.stop()
                raise RuntimeError("heartbeat %d failed" % n[0])
            pc = PeriodicCallback(heartbeat, 5)
            pc.start()
            self.write("periodic")
        elif what == "multi":
            try:
                await gen.multi([_fail_soon("shard 1 down"), _fail_soon("shard 2 down"), asyncio.sleep(0.001)])
            except ValueError as e:
                self.write("multi failed: %s" % e)
        elif what == "with_timeout":
            try:
                await gen.with_timeout(datetime.timedelta(seconds=0.003), _late_failure(0.01))
            except gen.TimeoutError:
                self.write("timed out")
        elif what == "future":
            f = asyncio.get_running_loop().create_future()
            io.add_future(f, lambda fut: fut.result())
            f.set_exception(LookupError("no such shard"))
            self.write("future")


@web.stream_request_body
class UploadHandler(Base):
    def prepare(self):
        self.size = 0

    def data_received(self, chunk):
        self.size += len(chunk)
        if b"POISON" in chunk:
            raise ValueError("poisoned chunk")

    def put(self):
        self.write("received %d bytes" % self.size)


class EchoWS(websocket.WebSocketHandler):
    def check_origin(self, origin):
        return not origin.startswith("http://evil")

    def get_compression_options(self):
        return {} if self.settings.get("bench_ws_compress") else None

    def select_subprotocol(self, subprotocols):
        if "bogus" in subprotocols:
            return "not-offered"
        return subprotocols[0] if subprotocols else None

    def open(self):
        if self.get_argument("fail_open", None):
            raise RuntimeError("open failed")

    def on_message(self, message):
        if message == "boom":
            raise ValueError("cannot handle message %r" % message)
        if message == "close":
            self.close(4000, "asked to close")
            return
        self.write_message(message)

    def on_ping(self, data):
        pass


def wsgi_app(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path.endswith("/crash"):
        raise RuntimeError("wsgi app crashed")
    if path.endswith("/missing"):
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"nope"]
    if path.endswith("/teapot"):
        start_response("418 I'm a teapot", [])
        return [b"short and stout"]
    if path.endswith("/down"):
        start_response("503 Service Unavailable", [])
        return [b"down"]
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"wsgi says hi ", environ.get("QUERY_STRING", "").encode()]


class RawDelegate(httputil.HTTPMessageDelegate):
    """A bare message delegate behind the router: echoes, or fails on purpose."""

    def __init__(self, request_conn):
        self.conn = request_conn

    def headers_received(self, start_line, headers):
        if "fail" in start_line.path:
            raise ValueError("delegate cannot route %s" % start_line.path)
        self.path = start_line.path

    def finish(self):
        body = b"raw " + self.path.encode()
        self.conn.write_headers(httputil.ResponseStartLine("HTTP/1.1", 200, "OK"),
                                httputil.HTTPHeaders({"Content-Length": str(len(body))}))
        self.conn.write(body)
        self.conn.finish()


class RawDelegates(httputil.HTTPServerConnectionDelegate):
    """A RuleRouter target giving a RawDelegate per request."""

    def start_request(self, server_conn, request_conn):
        return RawDelegate(request_conn)


# ---------------------------------------------------------------------------
# misbehaving backend (the clients' side of failures)
# ---------------------------------------------------------------------------
class BadBackend(TCPServer):
    mode = "garbage"

    def handle_stream(self, stream, address):
        mode = self.mode
        if mode == "raise":
            raise RuntimeError("backend refused %s:%d" % address)
        return self._serve(stream, mode)

    async def _serve(self, stream, mode):
        try:
            await stream.read_until(b"\r\n\r\n", max_bytes=65536)
            if mode == "garbage":
                await stream.write(b"HTPT/1.1 200 OK\r\n\r\n")
            elif mode == "badheader":
                await stream.write(b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\nxx")
            elif mode == "badchunk":
                await stream.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")
            elif mode == "short":
                await stream.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a bit")
            elif mode == "hangup":
                pass
            elif mode == "async-raise":
                raise ConnectionAbortedError("backend aborted the exchange")
            elif mode == "gzip":
                await stream.write(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n\r\nnot gzip!")
        except StreamClosedError:
            pass
        finally:
            stream.close()


# ---------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------
def _free_sockets():
    return bind_sockets(0, "127.0.0.1", family=socket.AF_INET)


class Case:
    def __init__(self, rng, tmp, cert):
        self.r = rng
        self.tmp = tmp
        self.cert = cert
        self.port = None
        self.tls = False
        self.routes = []
        self.settings = {}
        self.clients = []
        self.xsrf = None
        self.hung = 0

    # -- building the application ------------------------------------------------
    def build(self):
        r = self.r
        d = tempfile.mkdtemp(dir=self.tmp)
        self.dir = d
        static = os.path.join(d, "static")
        os.makedirs(os.path.join(static, "img"))
        for name, size in (("app.css", 300), ("app.js", 5000), ("big.bin", 70000), ("img/logo.png", 1200)):
            with open(os.path.join(static, name), "wb") as fh:
                fh.write(bytes(r.randrange(256) for _ in range(64)) * (size // 64))
        s = {}
        if r.random() < 0.7:
            s["cookie_secret"] = SECRET
        if r.random() < 0.25:
            s["xsrf_cookies"] = True
        if r.random() < 0.5:
            s["login_url"] = LOGIN
        if r.random() < 0.8:
            s["static_path"] = static
            if r.random() < 0.3:
                s["static_url_prefix"] = "/assets/"
            if r.random() < 0.3:
                s["static_hash_cache"] = False
        if r.random() < 0.3:
            s["compress_response"] = True
        if r.random() < 0.2:
            s["serve_traceback"] = True
        if r.random() < 0.1:
            s["default_handler_class"] = web.ErrorHandler
            s["default_handler_args"] = {"status_code": r.choice([404, 410, 451])}
        if r.random() < 0.3:
            s["websocket_ping_interval"] = r.choice([0.01, 0.05])
            s["websocket_ping_timeout"] = r.choice([0.02, 1])
        if r.random() < 0.2:
            s["websocket_max_message_size"] = r.choice([16, 1024])
        s["bench_ws_compress"] = r.random() < 0.3
        self.locale_setup(s)
        self.settings = s
        routes = [
            web.url(r"/", MainHandler, name="home"),
            web.url(r"/json", JsonHandler, name="json"),
            (r"/items/([^/]+)", ItemHandler),
            (r"/boom", BoomHandler),
            (r"/fail/(\d+)", FailHandler),
            (r"/slow", SlowHandler),
            (r"/ws", EchoWS),
        ]
        optional = [
            (r"/flushfail", FlushFailHandler),
            (r"/badwriteerror", BadWriteErrorHandler),
            (r"/badlog", BadLogExceptionHandler),
            (r"/badexc", BadExceptionHandler),
            (r"/go", web.RedirectHandler, {"url": "/json", "permanent": r.random() < 0.5}),
            (r"/loop", web.RedirectHandler, {"url": "/loop"}),
            (r"/gone", web.ErrorHandler, {"status_code": 410}),
            (r"/page", StaticPage),
            (r"/cookie", CookieHandler),
            (r"/form", FormHandler),
            (r"/private", PrivateHandler),
            (LOGIN, LoginHandler),
            (r"/tmpl", TemplateHandler),
            (r"/cb", CallbackHandler),
            (r"/upload", UploadHandler),
            (r"/wsgi/.*", web.FallbackHandler, {"fallback": WSGIContainer(wsgi_app)}),
        ]
        for rt in optional:
            if r.random() < 0.75:
                routes.append(rt)
        if r.random() < 0.08:
            routes.append(web.url(r"/home2", MainHandler, name="home"))  # duplicate name
        if r.random() < 0.05:
            routes.append(web.url(r"/j2", JsonHandler, name="json"))
        self.routes = [rt.regex.pattern if isinstance(rt, web.URLSpec) else rt[0] for rt in routes]
        self.app = web.Application(routes, **s)

    def locale_setup(self, s):
        r = self.r
        locale._translations = {}
        locale._supported_locales = frozenset([locale._default_locale])
        locale._use_gettext = False
        locale.Locale._cache = {}
        k = r.random()
        if k < 0.15:
            d = os.path.join(self.dir, "csv")
            os.makedirs(d)
            files = {"es_LA.csv": '"Sign out","Cerrar sesión"\n"%(n)d file","%(n)d archivos","plural"\n'
                                  '"%(n)d file","%(n)d archivo","singular"\n',
                     "fr_FR.csv": '"Sign out","Se déconnecter"\n"Open","Ouvrir","maybe"\n'}
            if r.random() < 0.5:
                files["Bad-Name.csv"] = '"Sign out","x"\n'
            if r.random() < 0.4:
                files["de_DE.csv"] = '"Sign out","Abmelden","pluralis"\n"Open","Öffnen"\n'
            for name, text in files.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
                    fh.write(text)
            locale.load_translations(d)
            s["bench_locale"] = True
        elif k < 0.22:
            d = os.path.join(self.dir, "mo")
            for lang in ("pt_BR", "ja_JP"):
                os.makedirs(os.path.join(d, lang, "LC_MESSAGES"))
                with open(os.path.join(d, lang, "LC_MESSAGES", "bench.mo"), "wb") as fh:
                    fh.write(b"\x95\x04\x12\xde" + bytes(20) if lang == "pt_BR" and r.random() < 0.6
                             else b"not a catalogue")
            locale.load_gettext_translations(d, "bench")
            s["bench_locale"] = True

    def make_server(self, target):
        r = self.r
        kw = {}
        if r.random() < 0.2:
            kw["xheaders"] = True
        if r.random() < 0.1:
            kw["no_keep_alive"] = True
        if r.random() < 0.2:
            kw["idle_connection_timeout"] = r.choice([0.05, 0.2])
        if r.random() < 0.2:
            kw["body_timeout"] = r.choice([0.05, 0.1])
        if r.random() < 0.15:
            kw["max_body_size"] = r.choice([64, 1024])
        if r.random() < 0.12:
            kw["max_header_size"] = r.choice([256, 1024])
        if r.random() < 0.2:
            kw["decompress_request"] = True
        if self.cert and r.random() < 0.12:
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(*self.cert)
            kw["ssl_options"] = ctx
            self.tls = True
        self.server_opts = kw
        srv = HTTPServer(target, **kw)
        socks = _free_sockets()
        srv.add_sockets(socks)
        self.port = socks[0].getsockname()[1]
        return srv

    def target(self):
        """The app, or a RuleRouter in front of it (with a raw delegate and no default)."""
        r = self.r
        if r.random() < 0.12:
            self.routed = True
            return RuleRouter([
                Rule(PathMatches(r"/raw/.*"), RawDelegates()),
                Rule(HostMatches(r"admin\..*"), self.app),
                Rule(PathMatches(r"/(?!nothing).*"), self.app),
            ])
        self.routed = False
        return self.app

    # -- client helpers -----------------------------------------------------------
    def url(self, path, scheme=None):
        return "%s://127.0.0.1:%d%s" % (scheme or ("https" if self.tls else "http"), self.port, path)

    def pick_request(self):
        """(method, path, body, headers) among the app's routes, failures included."""
        r = self.r
        s = self.settings
        routes = self.routes
        choices = [("main", 10), ("json", 6), ("item", 5), ("boom", 3), ("fail", 6), ("slow", 2),
                   ("missing", 4), ("ws-plain", 1), ("post", 4), ("head", 2), ("method", 1),
                   ("static", 4 if "static_path" in s else 0)]
        extra = {"/flushfail": 1, "/badwriteerror": 1, "/badlog": 1, "/badexc": 1, "/go": 2, "/loop": 1,
                 "/gone": 1, "/page": 2, "/cookie": 3, "/form": 3, "/private": 2, "/tmpl": 2, "/cb": 3,
                 "/upload": 2, "/wsgi/.*": 3, LOGIN: 1}
        for k, w in extra.items():
            if k in routes:
                choices.append((k, w))
        tot = sum(w for _, w in choices)
        x = r.uniform(0, tot)
        for what, w in choices:
            x -= w
            if x <= 0:
                break
        h = {}
        if self.server_opts.get("xheaders") and r.random() < 0.5:
            h[r.choice(["X-Real-Ip", "X-Forwarded-For"])] = r.choice(["10.1.2.3", "192.0.2.9, 10.0.0.1", "bogus"])
        if self.routed and r.random() < 0.1:
            h["Host"] = "admin.example"
        if what == "main":
            q = r.choice(["", "?name=ana", "?name=%E2%9C%93", "?loc=1", "?loc=1&ctx=1"])
            if "loc=" in q:
                h["Accept-Language"] = r.choice(["es-LA", "fr-FR,fr;q=0.8", "de_DE", "pt-BR", "ja", "xx"])
            return "GET", "/" + q, None, h
        if what == "json":
            q = r.choice(["", "?n=10", "?etag=1", "?n=x"])
            if "etag" in q and r.random() < 0.6:
                h["If-None-Match"] = '"fixed-etag"'
            return "GET", "/json" + q, None, h
        if what == "item":
            item = r.choice(["a1", "b2", "zz9", "%FF%FE", "c3"])
            return r.choice(["GET", "GET", "DELETE"]), "/items/" + item, None, h
        if what == "boom":
            if r.random() < 0.2:
                return "POST", "/boom", b"", h
            return "GET", "/boom?kind=%s&v=%d" % (r.choice(["value", "key", "zero", "type", "runtime", "os"]),
                                                   r.randint(1, 99)), None, h
        if what == "fail":
            code = r.choice([400, 401, 403, 404, 409, 429, 500, 502, 503, 599])
            return "GET", "/fail/%d?how=%s&m=%d%s" % (code, r.choice(["raise", "raise", "send", "status"]),
                                                     r.randint(0, 4), r.choice(["", "", "&reason=1"])), None, h
        if what == "slow":
            return "GET", "/slow?ms=%d" % r.choice([5, 20, 60, 150]), None, h
        if what == "missing":
            return r.choice(["GET", "POST"]), r.choice(["/nothing", "/admin/", "/items/", "/favicon.ico",
                                                        "/static/../etc/passwd"]), b"" if r.random() < 0.3 else None, h
        if what == "ws-plain":
            if r.random() < 0.5:
                h["Upgrade"] = "websocket"
            return "GET", "/ws", None, h
        if what == "post":
            k = r.random()
            body = ""
            if k < 0.4:
                body = "name=%s" % r.choice(["bob", "al%20ice", "%FF"])
                h["Content-Type"] = "application/x-www-form-urlencoded"
            elif k < 0.6:
                h["Content-Type"] = "multipart/form-data; boundary=XyZ"
                body = ("--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ncarol\r\n--XyZ--\r\n"
                        if r.random() < 0.5 else "--XyZ\r\ngarbage without end")
            elif k < 0.75:
                h["Content-Type"] = "multipart/form-data"
                body = "no boundary"
            else:
                body = "x" * r.choice([10, 2000])
            if self.xsrf_ok():
                body = body + ("&" if body else "") + "_xsrf=" + self.xsrf_token()
            return "POST", "/" + r.choice(["", "", "json"]), body.encode(), h
        if what == "head":
            return "HEAD", r.choice(["/", "/json"]), None, h
        if what == "method":
            return r.choice(["PATCH", "OPTIONS", "PUT"]), "/json", b"{}" if r.random() < 0.5 else None, h
        if what == "static":
            pre = self.settings.get("static_url_prefix", "/static/")
            name = r.choice(["app.css", "app.js", "big.bin", "img/logo.png", "nope.txt", "img", "img/",
                             "../secret.txt", "app.css?v=abc"])
            if r.random() < 0.2:
                h["Range"] = r.choice(["bytes=0-99", "bytes=100-", "bytes=-50", "bytes=999999-", "bytes=x"])
            if r.random() < 0.15:
                h["If-Modified-Since"] = "Mon, 01 Jan 2035 00:00:00 GMT"
            if r.random() < 0.1:
                h["If-None-Match"] = "*"
            return "GET", pre + name, None, h
        if what == "/page":
            return "GET", "/page" + r.choice(["", "?js=missing.js", "?js=img/logo.png"]), None, h
        if what == "/cookie":
            k = r.random()
            if k < 0.3:
                return "GET", "/cookie?set=%d&v=%d" % (r.randint(1, 9), r.choice([1, 2])), None, h
            h["Cookie"] = "session=" + self.forged_cookie()
            return "GET", "/cookie?age=%s" % r.choice(["31", "31", "0.0001"]), None, h
        if what == "/form":
            if r.random() < 0.3:
                return "GET", "/form", None, h
            body = "item=%d" % r.randint(1, 9)
            k = r.random()
            tok = self.xsrf_token()
            if k < 0.45:
                body += "&_xsrf=" + tok
                h["Cookie"] = "_xsrf=" + tok
            elif k < 0.6:
                h["Cookie"] = "_xsrf=" + tok
            elif k < 0.75:
                body += "&_xsrf=" + tok
                h["Cookie"] = "_xsrf=" + self.xsrf_token(fresh=True)
            elif k < 0.9:
                body += "&_xsrf=2|zz|notbase64|123"
                h["Cookie"] = "_xsrf=" + tok
            else:
                h["X-Xsrftoken"] = tok
                h["Cookie"] = "_xsrf=" + tok
            h["Content-Type"] = "application/x-www-form-urlencoded"
            return "POST", "/form", body.encode(), h
        if what == "/private":
            if r.random() < 0.4:
                h["Cookie"] = "user=bob"
            return r.choice(["GET", "GET", "POST"]), "/private", b"", h
        if what == "/tmpl":
            return "GET", "/tmpl?t=" + r.choice(["ok", "ok", "expr", "stmt", "runtime", "parse"]), None, h
        if what == "/cb":
            return "GET", "/cb?what=" + r.choice(["cb", "timeout", "periodic", "multi", "with_timeout",
                                                 "future"]), None, h
        if what == "/upload":
            body = b"chunk-" * r.choice([10, 500, 5000])
            if r.random() < 0.2:
                body += b"POISON"
            return "PUT", "/upload", body, h
        if what == "/wsgi/.*":
            return r.choice(["GET", "GET", "POST"]), "/wsgi/" + r.choice(["hello?x=1", "missing", "teapot",
                                                                          "down", "crash"]), b"a=1", h
        if what == "/go":
            return "GET", "/go", None, h
        if what == "/loop":
            return "GET", "/loop", None, h
        if what == "/login":
            return "GET", LOGIN, None, h
        return "GET", what, None, h  # /flushfail, /badwriteerror, /badlog, /badexc, /gone

    def xsrf_ok(self):
        return self.settings.get("xsrf_cookies") and self.r.random() < 0.7

    def xsrf_token(self, fresh=False):
        if self.xsrf is None or fresh:
            tok = "%032x" % self.r.getrandbits(128)
            if fresh:
                return tok
            self.xsrf = tok
        return self.xsrf

    def forged_cookie(self):
        r = self.r
        now = time.time()
        k = r.random()
        if k < 0.3:
            return web.create_signed_value(SECRET, "session", "user-1", version=r.choice([1, 2])).decode()
        if k < 0.5:
            v = web.create_signed_value(SECRET, "session", "user-1", version=1).decode()
            return v[:-4] + "beef"
        if k < 0.65:
            return web.create_signed_value(SECRET, "session", "user-2", version=1,
                                           clock=lambda: now - 40 * 86400).decode()
        if k < 0.8:
            return web.create_signed_value(SECRET, "session", "user-3", version=1,
                                           clock=lambda: now + 60 * 86400).decode()
        if k < 0.9:
            # the v1 signature does not cover the separator: a timestamp with a
            # leading zero keeps the signature valid
            val = web.create_signed_value(SECRET, "session", "user-4", version=1).decode()
            parts = val.split("|")
            b64 = parts[0]
            return "%s|0%s|%s" % (b64, parts[1], web._create_signature_v1(SECRET, "session", b64, "0" + parts[1]).decode())
        return "garbage-cookie"

    def http_request(self, method, path, body, headers, scheme=None, **kw):
        if body is None and method in ("POST", "PUT", "PATCH"):
            body = b""
        if path == "/badexc":  # no response ever comes: do not wait long for it
            kw["request_timeout"] = 0.1
        return HTTPRequest(self.url(path, scheme), method=method, body=body, headers=headers,
                           validate_cert=False, allow_nonstandard_methods=True, **kw)

    async def fetch(self, client, req):
        try:
            # the guard: a fetch over TLS that times out while following
            # redirects sometimes never completes
            await asyncio.wait_for(client.fetch(req, raise_error=False), 5)
        except asyncio.TimeoutError:
            self.hung += 1
        except Exception:
            pass  # timeouts, refused or reset connections, TLS failures

    # -- client steps -------------------------------------------------------------
    async def step_simple(self):
        r = self.r
        c = SimpleAsyncHTTPClient(force_instance=True, max_clients=r.choice([1, 2, 10]))
        self.clients.append(c)
        n = r.randint(1, 5)
        reqs = []
        for _ in range(n):
            m, p, b, h = self.pick_request()
            kw = {"request_timeout": r.choice([2.0, 2.0, 2.0, 0.08]),
                  "follow_redirects": r.random() < 0.7, "max_redirects": r.choice([2, 5]),
                  "decompress_response": r.random() < 0.8}
            if r.random() < 0.1 and self.server_opts.get("decompress_request") and b:
                h["Content-Encoding"] = "gzip"
                b = gzip.compress(b) if r.random() < 0.7 else b"not gzip"
            reqs.append(self.http_request(m, p, b, h, **kw))
        if r.random() < 0.4 and n > 1:
            await asyncio.gather(*(self.fetch(c, q) for q in reqs))
        else:
            for q in reqs:
                await self.fetch(c, q)

    async def step_curl(self):
        r = self.r
        if CurlAsyncHTTPClient is None:
            return await self.step_simple()
        # curl's own debug output (VERBOSE) is on for handles made while the
        # logger is at DEBUG: only in a few cases
        verbose = r.random() < 0.03
        logging.getLogger("tornado.curl_httpclient").setLevel(logging.DEBUG if verbose else logging.INFO)
        c = CurlAsyncHTTPClient(force_instance=True, max_clients=r.choice([1, 2, 4]))
        logging.getLogger("tornado.curl_httpclient").setLevel(logging.DEBUG)
        self.clients.append(c)
        for _ in range(r.randint(1, 6)):
            m, p, b, h = self.pick_request()
            kw = {"request_timeout": r.choice([2.0, 2.0, 2.0, 0.08]), "follow_redirects": r.random() < 0.7,
                  "max_redirects": 3}
            if r.random() < 0.15:
                kw["auth_username"], kw["auth_password"] = "bob", "pw"
                kw["auth_mode"] = r.choice(["basic", "digest"])
            if r.random() < 0.04:
                def on_header(line):
                    if line.lower().startswith("content-type"):
                        raise UnicodeError("cannot parse header %r" % line.strip())
                kw["header_callback"] = on_header
            await self.fetch(c, self.http_request(m, p, b, h, **kw))

    async def read_response(self, stream, method):
        head = await stream.read_until_regex(b"\r?\n\r?\n", max_bytes=65536)
        lines = head.decode("latin1").split("\r\n")
        status = int(lines[0].split(" ")[1]) if len(lines[0].split(" ")) > 1 else 0
        hdr = {}
        for ln in lines[1:]:
            if ":" in ln:
                k, v = ln.split(":", 1)
                hdr[k.strip().lower()] = v.strip()
        if method == "HEAD" or status in (101, 204, 304) or 100 <= status < 200:
            return status, hdr
        if "content-length" in hdr:
            await stream.read_bytes(int(hdr["content-length"]))
        elif hdr.get("transfer-encoding") == "chunked":
            while True:
                ln = await stream.read_until(b"\r\n", max_bytes=1024)
                size = int(ln.strip() or b"0", 16)
                await stream.read_bytes(size + 2)
                if size == 0:
                    break
        else:
            await stream.read_until_close()
        return status, hdr

    def raw_request(self, method, path, body, headers, version="HTTP/1.1", close=False):
        h = {"Host": "127.0.0.1:%d" % self.port}
        h.update(headers)
        if body is not None:
            h["Content-Length"] = str(len(body))
        if close:
            h["Connection"] = "close"
        out = "%s %s %s\r\n" % (method, path, version) + "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
        return out.encode("latin1") + (body or b"")

    async def step_raw(self):
        r = self.r
        if self.tls:
            return await self.step_simple()
        try:
            stream = await TCPClient().connect("127.0.0.1", self.port)
        except Exception:
            return
        self.streams.append(stream)
        try:
            await gen.with_timeout(datetime.timedelta(seconds=1.5), self._raw(stream),
                                   quiet_exceptions=(StreamClosedError,))
        except Exception:
            pass
        finally:
            stream.close()

    async def _raw(self, stream):
        r = self.r
        k = r.random()
        if k < 0.45:
            # keep-alive requests, pipelined or one after another
            reqs = [self.pick_request() for _ in range(r.randint(2, 5))]
            reqs = [q for q in reqs if not q[1].startswith(("/slow", "/badexc"))]
            version = "HTTP/1.0" if r.random() < 0.1 else "HTTP/1.1"
            if version == "HTTP/1.0":
                for q in reqs:
                    q[3]["Connection"] = "keep-alive"
            data = [self.raw_request(m, p, b, h, version) for m, p, b, h in reqs]
            if r.random() < 0.4:
                await stream.write(b"".join(data))
                for (m, _, _, _) in reqs:
                    await self.read_response(stream, m)
            else:
                for d, (m, _, _, _) in zip(data, reqs):
                    await stream.write(d)
                    await self.read_response(stream, m)
            if self.server_opts.get("idle_connection_timeout") and r.random() < 0.5:
                await asyncio.sleep(self.server_opts["idle_connection_timeout"] + 0.05)
        elif k < 0.65:
            bad = r.choice([
                b"GARBAGE\r\n\r\n",
                b"GET /\r\n\r\n",
                b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                b"GET / HTTP/1.1\r\n: empty name\r\n\r\n",
                b"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
                b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
                b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                b"GET / HTTP/2.0\r\n\r\n",
                b"GET / HTTP/1.1\r\nHost: a\r\n continuation\r\n\r\n",
                b" GET / HTTP/1.1\r\n\r\n",
                b"POST /upload HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n",
            ])
            await stream.write(self.raw_request("GET", "/json", None, {}) + bad
                               if r.random() < 0.3 else bad)
            await stream.read_until_close()
        elif k < 0.72:
            # headers larger than max_header_size (or than the default 64 KB)
            big = "x" * r.choice([600, 3000, 70000])
            await stream.write(self.raw_request("GET", "/", None, {"X-Big": big}))
            await self.read_response(stream, "GET")
        elif k < 0.8:
            # a body slower than body_timeout, or larger than max_body_size
            m, p = r.choice([("POST", "/"), ("PUT", "/upload")])
            size = r.choice([100, 5000])
            head = self.raw_request(m, p, None, {"Content-Length": str(size),
                                                 "Content-Type": "application/octet-stream"})
            await stream.write(head + b"y" * 10)
            await asyncio.sleep(r.choice([0.02, 0.15]))
            await stream.write(b"y" * (size - 10))
            await self.read_response(stream, m)
        elif k < 0.9:
            # the client goes away before the response
            m, p, b, h = r.choice([("GET", "/slow?ms=60", None, {}), ("GET", "/flushfail", None, {}),
                                   ("GET", "/cb?what=multi", None, {}), ("POST", "/", b"name=x", {})])
            await stream.write(self.raw_request(m, p, b, h))
            await asyncio.sleep(r.choice([0, 0.01]))
            stream.close()
            await asyncio.sleep(0.08)
        else:
            # websocket upgrades done wrong by hand
            h = {"Upgrade": "websocket", "Connection": "Upgrade"}
            kk = r.random()
            if kk < 0.3:
                h["Sec-WebSocket-Version"] = "13"  # no key
            elif kk < 0.6:
                h.update({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
                          "Sec-WebSocket-Extensions": "permessage-deflate; server_max_window_bits=99"})
                self.settings["bench_ws_compress"] = True
                self.app.settings["bench_ws_compress"] = True
            elif kk < 0.8:
                h.update({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
                          "Sec-WebSocket-Protocol": "bogus"})
            else:
                h.update({"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "8"})
            await stream.write(self.raw_request("GET", "/ws", None, h))
            await self.read_response(stream, "GET")

    async def step_ws(self):
        r = self.r
        h = {}
        k = r.random()
        if k < 0.1:
            h["Origin"] = "http://evil.example"
        elif k < 0.2:
            h["Origin"] = "http://127.0.0.1:%d" % self.port
        path = "/ws" + r.choice(["", "", "", "?fail_open=1"]) if r.random() < 0.92 else "/nothing"
        req = HTTPRequest(self.url(path, "wss" if self.tls else "ws"), headers=h, validate_cert=False,
                          request_timeout=2)
        kw = {}
        if r.random() < 0.3:
            kw["compression_options"] = {}
        if r.random() < 0.2:
            kw["ping_interval"] = 0.01
        if r.random() < 0.2:
            kw["subprotocols"] = r.choice([["chat"], ["chat", "v2"]])
        got = []
        if r.random() < 0.2:
            def on_message(msg):
                if msg is not None and len(msg) > 100:
                    raise ValueError("client cannot handle a %d-byte message" % len(msg))
                got.append(msg)
            kw["on_message_callback"] = on_message
        try:
            conn = await websocket.websocket_connect(req, **kw)
        except Exception:
            return
        if "on_message_callback" in kw:
            try:
                for _ in range(r.randint(1, 4)):
                    await conn.write_message(r.choice(["hi", "x" * 2000, "boom", "close"]))
                    await asyncio.sleep(0.01)
            except Exception:
                pass
            conn.close()
            return
        try:
            for _ in range(r.randint(1, 5)):
                msg = r.choice(["hi", "hello world", "x" * 2000, "boom", "close", "ping"])
                if msg == "ping":
                    conn.ping(b"p")
                    await asyncio.sleep(0.02)
                    continue
                await conn.write_message(msg if r.random() < 0.85 else msg.encode(), binary=r.random() < 0.15)
                got = await gen.with_timeout(datetime.timedelta(seconds=0.5), conn.read_message())
                if got is None:
                    break
            if r.random() < 0.6:
                conn.close(r.choice([1000, 1001, 4001, None]), r.choice(["bye", ""]))
            await asyncio.sleep(0.02)
        except Exception:
            pass
        finally:
            conn.close()

    async def step_tls_mismatch(self):
        r = self.r
        c = SimpleAsyncHTTPClient(force_instance=True)
        self.clients.append(c)
        if r.random() < 0.5:
            req = HTTPRequest(self.url("/", "http"), request_timeout=1)  # plain HTTP to the TLS port
        else:
            req = HTTPRequest(self.url("/", "https"), validate_cert=True, request_timeout=1)
        await self.fetch(c, req)

    async def step_backend(self):
        r = self.r
        self.backend.mode = r.choice(["garbage", "badheader", "badchunk", "short", "hangup", "raise",
                                      "async-raise", "gzip"])
        c = SimpleAsyncHTTPClient(force_instance=True) if r.random() < 0.7 or CurlAsyncHTTPClient is None \
            else CurlAsyncHTTPClient(force_instance=True)
        self.clients.append(c)
        await self.fetch(c, HTTPRequest("http://127.0.0.1:%d/api" % self.backend_port, request_timeout=0.5))
        await asyncio.sleep(0.01)

    async def step_routed(self):
        c = SimpleAsyncHTTPClient(force_instance=True)
        self.clients.append(c)
        await self.fetch(c, self.http_request("GET", self.r.choice(["/raw/x", "/nothing", "/raw/fail"]), None, {}))

    async def main(self):
        r = self.r
        self.streams = []
        self.build()
        target = self.target()
        srv = self.make_server(target)
        self.backend = None
        if r.random() < 0.12:
            self.backend = BadBackend()
            bs = _free_sockets()
            self.backend.add_sockets(bs)
            self.backend_port = bs[0].getsockname()[1]
        steps = [(self.step_simple, 4), (self.step_curl, 4), (self.step_raw, 3), (self.step_ws, 2)]
        if self.tls:
            steps.append((self.step_tls_mismatch, 2))
        if self.backend is not None:
            steps.append((self.step_backend, 4))
        if self.routed:
            steps.append((self.step_routed, 2))
        tot = sum(w for _, w in steps)
        for _ in range(r.randint(2, 7)):
            x = r.uniform(0, tot)
            for fn, w in steps:
                x -= w
                if x <= 0:
                    break
            await fn()
        await asyncio.sleep(0.01)
        srv.stop()
        if self.backend is not None:
            self.backend.stop()
        try:
            await gen.with_timeout(datetime.timedelta(seconds=1), srv.close_all_connections())
        except Exception:
            pass
        for c in self.clients:
            c.close()
        for s in self.streams:
            s.close()
        await asyncio.sleep(0.01)


def _cert(tmp):
    if not shutil.which("openssl"):
        return None
    key, crt = os.path.join(tmp, "key.pem"), os.path.join(tmp, "cert.pem")
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return None
    return crt, key


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    tmp = tempfile.mkdtemp(prefix="gen_tornado_")
    try:
        cert = _cert(tmp)
        log = _capture.EventLog(tornado, a.out, logger_names=["tornado"])
        errors = {}
        hung = 0
        t0 = time.time()
        for i in range(a.cases):
            case = Case(random.Random("%d-%d" % (a.seed, i)), tmp, cert)
            log.case_id = "tornado-%05d" % i
            try:
                asyncio.run(asyncio.wait_for(case.main(), 60))
            except Exception as e:  # a broken case must not stop the generation
                errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
                if os.environ.get("GEN_DEBUG"):
                    import traceback
                    traceback.print_exc()
            finally:
                log.end_case()
                hung += case.hung
                shutil.rmtree(case.__dict__.get("dir", ""), ignore_errors=True)
        log.finish()
        sys.stderr.write("%s; cases ended by an exception: %s; fetches given up after 5 s: %d; %.0fs\n"
                         % (log.summary(), errors or "none", hung, time.time() - t0))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
