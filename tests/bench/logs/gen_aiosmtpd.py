#!/usr/bin/python3
"""Event log of aiosmtpd (Debian python3-aiosmtpd 1.4.3), an asyncio SMTP
and LMTP server, each case against servers of its own in this process on
127.0.0.1 or ::1.

    /usr/bin/python3 gen_aiosmtpd.py --out .deps/logs/aiosmtpd.csv.gz [--cases 400] [--seed 1]
    /usr/bin/python3 gen_aiosmtpd.py --repo     # prints the directory to index

Indexed: the installed ``aiosmtpd`` directory
(``/usr/lib/python3/dist-packages/aiosmtpd``), with the test suite Debian
ships inside it (``aiosmtpd/tests``, ``aiosmtpd/qa``) and the
``aiosmtpd/testing`` helpers, indexed, not run.

A case is one server lifetime with 1-4 client sessions.  The case draws how
the server runs: a threaded ``Controller`` (subclassed to make ``LMTP``
servers in some cases), an ``UnthreadedController`` whose loop runs in the
main thread, a plain ``SMTP`` or ``LMTP`` protocol factory (sometimes a
subclass with a local-part limit and a mechanism of its own) on an asyncio
server of the generator's loop, or aiosmtpd's command line (``main.main``
with ``-n -l HOST:PORT -c CLASS -d/-dd/-ddd`` and random ``-s``, ``-u``,
``--tlscert``, ``--no-requiretls``, ``--smtpscert``), stopped by SIGINT or
by stopping its loop.  The handler: ``Sink``, ``Debugging`` into a
StringIO, a ``Message`` or ``AsyncMessage`` subclass (failing on some
subjects), ``Mailbox`` in a temp dir, ``Proxy`` to a second local
server (which refuses some or all recipients or the data, or is not
there), a legacy ``process_message`` handler, or a custom one; most get
random hooks (``handle_HELO``, old or new ``handle_EHLO``,
``handle_MAIL``/``RCPT``/``DATA`` that accept, refuse or raise,
``handle_VRFY``/``NOOP``/``RSET``/``QUIT``, ``handle_AUTH``,
``handle_STARTTLS`` refusing the session, ``handle_exception`` answering
or raising, a mechanism of their own that may log the client's response).
SMTP options: ``enable_SMTPUTF8``, ``decode_data``, ``data_size_limit``
(default, none, small), STARTTLS or implicit TLS with a throw-away
``openssl`` certificate (some contexts with a client-certificate or
hostname check the server warns about), ``require_starttls``, an
``authenticator`` or legacy ``auth_callback`` accepting or refusing (or
raising), ``auth_required``, ``auth_require_tls``,
``auth_exclude_mechanism``, ``command_call_limit`` (int or per command),
a short ``timeout``, ``ident``, ``hostname``, and the PROXY protocol
(``proxy_protocol_timeout``, v1 and v2 headers, good, malformed or
missing).  Clients, one after another (some beside an idle raw
connection): ``smtplib.SMTP``/``SMTP_SSL``/``LMTP`` with EHLO, HELO or
LHLO, STARTTLS, AUTH PLAIN/LOGIN/custom (right and wrong passwords,
initial response or challenge), 1-5 messages with random senders,
recipients, sizes, 8-bit and UTF-8 bodies, 8BITMIME and SMTPUTF8, dot
lines and too-long lines, NOOP/RSET/VRFY/HELP/EXPN between them, ended by
QUIT, a close, a half-close or idling past the timeout; or raw sockets
sending malformed, unknown, non-ASCII and too-long commands, pipelined
transactions, raw AUTH exchanges (aborted, bad base64), a broken TLS
handshake, a connection dropped (or reset) mid-DATA, too many calls or
bogus commands, bad PROXY headers, or nothing at all.

Capture: ``_capture.py``'s handler on aiosmtpd's two loggers, ``mail.log``
(``smtp.py``, ``main.py``) and ``mail.debug`` (``handlers.py``,
``proxy_protocol.py``), neither propagating (a NullHandler on the root
logger also keeps ``main.main``'s ``basicConfig`` from printing).
``mail.log`` is at DEBUG in most cases and at INFO in some (``main.main``
sets it from ``-d``).  The servers log from their own threads (the
Controllers' loop threads, which the generator's Controller subclasses mark
with the case's id) or from the main thread (unthreaded, plain and
command-line servers, whose clients then run in a thread); a record of
a thread of no open case, or of another case, is dropped and counted.
Every server of a case is stopped, its thread joined or its loop closed,
before the next case starts.  Records logged outside the package are
dropped; so are cases with fewer than 3 events.

Wrapper (``code.wrapped`` = 1): ``smtp.sanitized_log``, which only masks
the AUTH argument of the bytes it is handed and calls the logging function
its caller passes (``sanitized_log(log.info, '%r >> %r', ...)``).
``ProxyData.with_error`` is not one: it also sets the error on the
object it returns, so it is the emitter of the PROXY error warnings.
"""
import argparse
import asyncio
import base64
import contextlib
import io
import logging
import os
import random
import shutil
import signal
import smtplib
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import aiosmtpd  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(aiosmtpd.__file__)))
    sys.exit(0)

from aiosmtpd import handlers as H  # noqa: E402
from aiosmtpd import main as aio_main  # noqa: E402
from aiosmtpd.controller import Controller, UnthreadedController  # noqa: E402
from aiosmtpd.lmtp import LMTP  # noqa: E402
from aiosmtpd.smtp import MISSING, SMTP, AuthResult, LoginPassword, auth_mechanism  # noqa: E402

WRAPPERS = {("aiosmtpd/smtp.py", "sanitized_log")}
LOGGERS = ["mail.log", "mail.debug"]

USERS = {"alice": "wonderland", "bob": "builder", "carol": "s3cret"}
SENDERS = [(6, "alice@example.org"), (4, "bob@example.net"), (2, "news@lists.bench.test"),
           (1, "spammer@blocked.example"), (1, "jos\u00e9@ex\u00e4mple.org"),
           (1, "a" * 70 + "@long.example"), (1, "mailer-daemon@bench.test")]
RCPTS = [(6, "carol@example.org"), (5, "dave@example.com"), (2, "postmaster@bench.test"),
         (2, "nobody@example.org"), (1, "crash@example.org"), (1, "\u7528\u6237@\u4f8b\u5b50.\u6d4b\u8bd5"),
         (2, "eve@example.com"), (1, "list-%d@lists.bench.test")]
SUBJECTS = ["Quarterly report", "Lunch?", "Re: build failed", "SPAM: cheap watches", "boom test",
            "Gr\u00fc\u00dfe aus K\u00f6ln", "Invoice #%d", "meeting notes", "[bench] nightly digest"]
WORDS = ("the quick brown fox jumps over lazy dog mail server queue relay message body line "
         "please find attached report numbers revenue forecast cheers regards").split()
UTF8_LINES = ["Gr\u00fc\u00dfe aus K\u00f6ln und M\u00fcnchen", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
              "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e", "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440"]
HOSTNAMES = [(4, None), (2, "mx.example.test"), (1, "smtp-in.bench.local"), (1, "relay.internal")]
IDENTS = [(4, None), (1, "ESMTP bench ready"), (1, "Postfix-like (Debian/GNU)"), (1, "aiosmtpd bench server")]
EHLO_NAMES = ["client.example.org", "localhost", "[127.0.0.1]", "mua.bench.test", "workstation-7"]
V2_SIG = b"\r\n\r\n\x00\r\nQUIT\n"

RAW_JUNK = [b"HELLO there", b"GET / HTTP/1.1", b"XYZZY", b"", b"   ", b"\xc3\x28 bad", b"HELO",
            b"EHLO", b"MAIL", b"MAIL TO:<x@y>", b"MAIL FROM:", b"MAIL FROM:<>", b"MAIL FROM:<a@b",
            b"MAIL FROM:<alice@example.org> BODY=9BIT", b"MAIL FROM:<alice@example.org> SIZE=abc",
            b"MAIL FROM:<alice@example.org> SIZE=999999999", b"MAIL FROM:<alice@example.org> SMTPUTF8=yes",
            b"MAIL FROM:<alice@example.org> FOO=bar", b"MAIL FROM:<alice@example.org> X=",
            b"MAIL FROM:<alice@example.org> SMTPUTF8", b"MAIL FROM:<alice@example.org> BODY=8BITMIME",
            b"MAIL FROM:<alice@example.org>", b"RCPT TO:<carol@example.org>", b"RCPT", b"RCPT FROM:<x@y>",
            b"RCPT TO:<carol@example.org> NOTIFY=NEVER", b"RCPT TO:<@bad>", b"RCPT TO:<>",
            b"RCPT TO:<j\xc3\xb6rg@example.org>", b"DATA now", b"DATA", b"RSET x", b"RSET",
            b"NOOP", b"NOOP ping", b"VRFY", b"VRFY carol@example.org", b"VRFY <bad", b"EXPN staff",
            b"HELP", b"HELP MAIL", b"HELP BOGUS", b"HELP STARTTLS", b"QUIT now", b"STARTTLS x",
            b"AUTH", b"AUTH PLAIN", b"TURN", b"ETRN example.org", b"BDAT 10 LAST", b"\x00\x01\x02",
            b"mail from:<bob@example.net>", b"ehlo lower.case", b"LHLO lmtp.client", b"helo x"]


class SessionOver(Exception):
    pass


# ---------------------------------------------------------------------------
# case attribution: threads marked with the case that runs them
# ---------------------------------------------------------------------------
CURRENT = {"case": None}
FAILED = []


class CaseThreadFilter(logging.Filter):
    def __init__(self):
        super().__init__()
        self.dropped = 0

    def filter(self, record):
        case = getattr(threading.current_thread(), "smtp_case", None)
        if case is not None and case == CURRENT["case"]:
            return True
        self.dropped += 1
        return False


def mark_thread(case):
    threading.current_thread().smtp_case = case


class CaseController(Controller):
    """A threaded Controller whose loop thread is marked with the case and
    that makes LMTP servers when asked."""
    lmtp = False

    def __init__(self, *a, case=None, lmtp=False, **kw):
        super().__init__(*a, **kw)
        self.case = case
        self.lmtp = lmtp

    def factory(self):
        return (LMTP if self.lmtp else SMTP)(self.handler, **self.SMTP_kwargs)

    def _run(self, ready_event):
        mark_thread(self.case)
        super()._run(ready_event)


class CaseUnthreaded(UnthreadedController):
    def __init__(self, *a, lmtp=False, **kw):
        super().__init__(*a, **kw)
        self.lmtp = lmtp

    def factory(self):
        return (LMTP if self.lmtp else SMTP)(self.handler, **self.SMTP_kwargs)


class LimitedSMTP(SMTP):
    """A plain-mode server class: short local parts only, and a mechanism
    of its own next to the built-in ones."""
    local_part_limit = 64

    @auth_mechanism("X-DENY")
    async def auth_X_DENY(self, _, args):
        return AuthResult(success=False, handled=False, message="535 5.7.8 X-DENY never succeeds")


class LimitedLMTP(LMTP):
    local_part_limit = 64


# ---------------------------------------------------------------------------
# handlers and hooks (deterministic: they draw nothing at run time)
# ---------------------------------------------------------------------------
class CaseMessage(H.Message):
    def __init__(self, fail):
        super().__init__()
        self.fail = fail
        self.count = 0

    def handle_message(self, message):
        self.count += 1
        if self.fail and "boom" in str(message.get("Subject", "")):
            raise RuntimeError("message store rejected %s" % message.get("Message-ID"))


class CaseAsyncMessage(H.AsyncMessage):
    def __init__(self, fail, loop):
        super().__init__(loop=loop)
        self.fail = fail
        self.seen = []

    async def handle_message(self, message):
        await asyncio.sleep(0)
        if self.fail and "boom" in str(message.get("Subject", "")):
            raise ValueError("cannot index message")
        self.seen.append(message.get("Message-ID"))


class LegacyHandler:
    """The pre-1.0 API: process_message instead of handle_DATA."""

    def __init__(self, is_async):
        if is_async:
            self.process_message = self._async_process
        else:
            self.process_message = self._sync_process

    def _sync_process(self, peer, mailfrom, rcpttos, data):
        return "250 Legacy OK" if len(rcpttos) < 3 else "452 Too many recipients (legacy)"

    async def _async_process(self, peer, mailfrom, rcpttos, data):
        return None if len(rcpttos) < 3 else "451 Try again later (legacy)"


class Custom:
    """A handler with no hooks of its own: the case adds them."""


def make_hooks(hp):
    """The hook functions of a case (plain functions set on the handler
    instance, so SMTP calls them as hook(server, session, envelope, ...))."""
    hooks = {}

    if hp.get("helo"):
        async def handle_HELO(server, session, envelope, hostname):
            if hostname.startswith("["):
                return "550 5.7.1 Address literals not welcome"
            session.host_name = hostname
            return "250 %s greets %s" % (server.hostname, hostname)
        hooks["handle_HELO"] = handle_HELO

    if hp.get("ehlo") == "new":
        async def handle_EHLO(server, session, envelope, hostname, responses):
            session.host_name = hostname
            out = [x for x in responses if not (hp.get("hide_auth") and x.startswith("250-AUTH"))]
            out.insert(-1, "250-X-BENCH")
            return out
        hooks["handle_EHLO"] = handle_EHLO
    elif hp.get("ehlo") == "old":
        async def handle_EHLO(server, session, envelope, hostname):
            session.host_name = hostname
            return "250 HELP"
        hooks["handle_EHLO"] = handle_EHLO

    if hp.get("mail"):
        async def handle_MAIL(server, session, envelope, address, mail_options):
            if address.endswith("blocked.example"):
                return "550 5.7.1 Sender blocked"
            if "SIZE=999999" in mail_options:
                raise OverflowError("size accounting failed")
            envelope.mail_from = address
            envelope.mail_options.extend(mail_options)
            return "250 2.1.0 Sender OK"
        hooks["handle_MAIL"] = handle_MAIL

    if hp.get("rcpt"):
        async def handle_RCPT(server, session, envelope, address, rcpt_options):
            if address.startswith("nobody@"):
                return "550 5.1.1 User unknown"
            if address.startswith("crash@"):
                raise KeyError(address)
            if len(envelope.rcpt_tos) >= hp["max_rcpt"]:
                return "452 4.5.3 Too many recipients"
            if hp.get("local_only") and not address.endswith(("example.org", "bench.test")):
                return "551 5.7.1 Relaying denied"
            envelope.rcpt_tos.append(address)
            return "250 2.1.5 Recipient OK"
        hooks["handle_RCPT"] = handle_RCPT

    if hp.get("data"):
        async def handle_DATA(server, session, envelope):
            content = envelope.original_content or b""
            if b"SPAM" in content:
                return "554 5.7.1 Message rejected as spam"
            if b"boom" in content:
                raise RuntimeError("content filter crashed")
            if hp.get("read_login"):
                _ = session.login_data  # the deprecated attribute
            if len(content) > 6000:
                await asyncio.sleep(0.01)
            return "250 2.0.0 Queued as %08X" % (len(content) * 2654435761 % 2 ** 32)
        hooks["handle_DATA"] = handle_DATA

    if hp.get("vrfy"):
        async def handle_VRFY(server, session, envelope, address):
            if address.split("@")[0] in ("carol", "dave", "postmaster"):
                return "250 <%s>" % address
            return "550 5.1.1 No such user"
        hooks["handle_VRFY"] = handle_VRFY

    if hp.get("noop"):
        async def handle_NOOP(server, session, envelope, arg):
            return "250 2.0.0 Still here" if not arg else "250 2.0.0 Echo %s" % arg
        hooks["handle_NOOP"] = handle_NOOP

    if hp.get("rset"):
        async def handle_RSET(server, session, envelope):
            return "250 2.0.0 Flushed"
        hooks["handle_RSET"] = handle_RSET

    if hp.get("quit"):
        async def handle_QUIT(server, session, envelope):
            return "221 2.0.0 See you"
        hooks["handle_QUIT"] = handle_QUIT

    if hp.get("auth_hook"):
        async def handle_AUTH(server, session, envelope, args):
            if args[0] == "LOGIN" and len(args) > 1:
                return "504 5.5.4 LOGIN with initial response not accepted here"
            return MISSING
        hooks["handle_AUTH"] = handle_AUTH

    if hp.get("starttls_hook"):
        def handle_STARTTLS(server, session, envelope):
            return hp["starttls_hook"] == "accept"
        hooks["handle_STARTTLS"] = handle_STARTTLS

    if hp.get("proxy_hook"):
        async def handle_PROXY(server, session, envelope, proxy_data):
            src = str(proxy_data.src_addr or "")
            return not src.startswith("203.0.113.")
        hooks["handle_PROXY"] = handle_PROXY

    if hp.get("exception"):
        async def handle_exception(error):
            if hp["exception"] == "raise" and isinstance(error, KeyError):
                raise LookupError("no policy for %r" % (error,))
            return "451 4.3.0 Temporary failure (%s)" % error.__class__.__name__
        hooks["handle_exception"] = handle_exception

    if hp.get("mech"):
        log_response = hp["mech"] == "logged"

        async def auth_XTOKEN(server, args):
            token = await server.challenge_auth("Token please", log_client_response=log_response)
            if token is MISSING:
                return AuthResult(success=False, handled=True)
            if token == b"letmein":
                return AuthResult(success=True, auth_data=LoginPassword(b"token-user", b""))
            return AuthResult(success=False, handled=False, message="535 5.7.8 Bad token")
        hooks["auth_XTOKEN"] = auth_XTOKEN
    return hooks


def make_authenticator(kind):
    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login = auth_data.login.decode("utf-8", "replace")
        if login == "raise":
            raise PermissionError("directory service unavailable")
        if USERS.get(login) == auth_data.password.decode("utf-8", "replace"):
            return AuthResult(success=True, auth_data=auth_data)
        if kind == "authenticator-msg":
            return AuthResult(success=False, handled=False, message="535 5.7.8 Who are you, %s?" % login)
        return AuthResult(success=False, handled=False)
    return authenticator


def auth_callback(mechanism, login, password):
    return USERS.get(login.decode("utf-8", "replace")) == password.decode("utf-8", "replace")


# ---------------------------------------------------------------------------
# the case plan
# ---------------------------------------------------------------------------
def make_plan(r, cert):
    p = {}
    p["mode"] = pick(r, [(11, "threaded"), (3, "unthreaded"), (3, "plain"), (2, "main")])
    p["host"] = "127.0.0.1" if r.random() < 0.8 else "::1"
    p["lmtp"] = p["mode"] != "main" and r.random() < 0.15
    p["level"] = logging.DEBUG if r.random() < 0.82 else logging.INFO
    tls = pick(r, [(6, None), (3, "starttls"), (1, "smtps")]) if cert else None
    if p["lmtp"] and tls == "smtps":
        tls = None
    p["tls"] = tls
    p["tls_variant"] = pick(r, [(10, "plain"), (1, "required"), (1, "check_hostname")]) \
        if tls == "starttls" else "plain"
    p["require_starttls"] = tls == "starttls" and r.random() < 0.4
    p["proxy"] = None
    if p["mode"] != "main" and tls != "smtps" and r.random() < 0.13:
        p["proxy"] = pick(r, [(2, 1.0), (1, 2.5), (2, 5.0)])
    p["auth"] = pick(r, [(3, "authenticator"), (1, "authenticator-msg"), (2, "callback"), (2, None)])
    p["auth_required"] = r.random() < 0.2
    p["auth_require_tls"] = r.random() < 0.4 if tls != "starttls" else r.random() < 0.8
    p["exclude"] = pick(r, [(8, None), (1, ["LOGIN"]), (1, ["PLAIN"])])
    p["smtputf8"] = r.random() < 0.6
    p["decode_data"] = r.random() < 0.25
    p["size"] = pick(r, [(5, "default"), (2, None), (2, r.randint(400, 4000)), (1, 65536)])
    p["call_limit"] = pick(r, [(8, None), (1, r.randint(4, 12)),
                               (1, {"NOOP": r.randint(1, 3), "RSET": 2, "*": r.randint(8, 20)})])
    p["timeout"] = pick(r, [(5, 300), (1, round(r.uniform(0.4, 1.2), 2))])
    p["ident"] = pick(r, IDENTS)
    p["hostname"] = pick(r, HOSTNAMES)
    p["handler"] = pick(r, [(3, "sink"), (2, "debugging"), (2, "message"), (2, "asyncmessage"),
                            (2, "mailbox"), (2, "proxy"), (1, "legacy"), (5, "custom")])
    if p["mode"] == "main":
        p["handler"] = pick(r, [(2, "sink"), (2, "debugging"), (1, "mailbox")])
    p["fail"] = r.random() < 0.5
    p["downstream"] = pick(r, [(4, "ok"), (2, "some"), (1, "none"), (1, "data"), (1, "down")])
    hp = {}
    extra = 0.9 if p["handler"] == "custom" else (0.2 if p["mode"] != "main" else 0)
    for name in ("helo", "mail", "rcpt", "vrfy", "noop", "rset", "quit", "auth_hook"):
        if r.random() < extra * 0.5:
            hp[name] = True
    if p["handler"] == "custom":
        hp["data"] = r.random() < 0.8
        hp["read_login"] = r.random() < 0.3
    if r.random() < extra * 0.4:
        hp["ehlo"] = pick(r, [(3, "new"), (1, "old")])
        hp["hide_auth"] = r.random() < 0.3
    hp["max_rcpt"] = r.randint(2, 5)
    hp["local_only"] = r.random() < 0.3
    if tls == "starttls" and r.random() < extra * 0.3:
        hp["starttls_hook"] = pick(r, [(1, "accept"), (1, "refuse")])
    if p["proxy"] is not None:
        hp["proxy_hook"] = r.random() < 0.9
    if r.random() < extra * 0.5:
        hp["exception"] = pick(r, [(2, "answer"), (1, "raise")])
    if r.random() < extra * 0.4:
        hp["mech"] = pick(r, [(2, "plain"), (1, "logged")])
    p["hooks"] = hp
    # the command line's own options
    p["main_debug"] = pick(r, [(3, "-d"), (6, "-dd"), (1, "-ddd")])
    if p["mode"] == "main":
        p["lmtp"] = False
        p["proxy"] = None
        p["auth"] = None
        p["auth_required"] = False
        p["auth_require_tls"] = True
        p["exclude"] = None
        p["call_limit"] = None
        p["timeout"] = 300
        p["decode_data"] = False
        p["hostname"] = None
        p["ident"] = None
        p["tls_variant"] = "plain"
        p["require_starttls"] = tls == "starttls" and r.random() < 0.6
        p["size"] = pick(r, [(3, "default"), (1, r.randint(500, 5000)), (1, 0)])
        p["level"] = logging.INFO if p["main_debug"] == "-d" else logging.DEBUG
    p["sessions"] = pick(r, [(4, 1), (4, 2), (2, 3), (1, 4)])
    return p


def smtp_kwargs(p):
    kw = {"enable_SMTPUTF8": p["smtputf8"], "decode_data": p["decode_data"],
          "timeout": p["timeout"], "auth_required": p["auth_required"],
          "auth_require_tls": p["auth_require_tls"]}
    if p["size"] != "default":
        kw["data_size_limit"] = p["size"]
    if p["ident"]:
        kw["ident"] = p["ident"]
    if p["exclude"]:
        kw["auth_exclude_mechanism"] = p["exclude"]
    if p["call_limit"] is not None:
        kw["command_call_limit"] = p["call_limit"]
    if p["auth"] in ("authenticator", "authenticator-msg"):
        kw["authenticator"] = make_authenticator(p["auth"])
    elif p["auth"] == "callback":
        kw["auth_callback"] = auth_callback
    if p["proxy"] is not None:
        kw["proxy_protocol_timeout"] = p["proxy"]
    return kw


def server_tls_context(cert, variant):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert["cert"], cert["key"])
    if variant == "required":
        ctx.verify_mode = ssl.CERT_REQUIRED
    elif variant == "check_hostname":
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.check_hostname = True
    return ctx


def client_tls_context():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def make_handler(p, tmp, loop, downstream_port):
    kind = p["handler"]
    if kind == "sink":
        h = H.Sink()
    elif kind == "debugging":
        h = H.Debugging(io.StringIO())
    elif kind == "message":
        h = CaseMessage(p["fail"])
    elif kind == "asyncmessage":
        h = CaseAsyncMessage(p["fail"], loop)
    elif kind == "mailbox":
        h = H.Mailbox(os.path.join(tmp, "Maildir"))
    elif kind == "proxy":
        h = H.Proxy(p["host"], downstream_port)
    elif kind == "legacy":
        h = LegacyHandler(p["fail"])
    else:
        h = Custom()
    for name, fn in make_hooks(p["hooks"]).items():
        setattr(h, name, fn)
    return h


def make_downstream(p, case, port):
    """The server a Proxy handler relays to (its records are the case's too)."""
    mode = p["downstream"]
    h = Custom()
    if mode == "some":
        async def handle_RCPT(server, session, envelope, address, opts):
            if address.startswith(("dave@", "eve@")):
                return "550 5.1.1 Mailbox unavailable downstream"
            envelope.rcpt_tos.append(address)
            return "250 OK"
        h.handle_RCPT = handle_RCPT
    elif mode == "none":
        async def handle_RCPT(server, session, envelope, address, opts):
            return "550 5.7.1 Relay access denied"
        h.handle_RCPT = handle_RCPT
    elif mode == "data":
        async def handle_DATA(server, session, envelope):
            return "554 5.6.0 Downstream content rejected"
        h.handle_DATA = handle_DATA
    return CaseController(h, hostname=p["host"], port=port, case=case, server_hostname="downstream.bench.local",
                          ready_timeout=10)


# ---------------------------------------------------------------------------
# clients
# ---------------------------------------------------------------------------
def proxy_header(r, good):
    port = r.randint(1024, 65535)
    if good:
        kind = pick(r, [(3, "v1-4"), (1, "v1-6"), (1, "v1-unknown"), (3, "v2-4"), (1, "v2-6"), (1, "v2-local"),
                        (1, "reject")])
        if kind == "v1-4":
            return b"PROXY TCP4 192.0.2.%d 198.51.100.7 %d 25\r\n" % (r.randint(1, 254), port)
        if kind == "v1-6":
            return b"PROXY TCP6 2001:db8::%x 2001:db8::25 %d 25\r\n" % (r.randint(1, 4000), port)
        if kind == "v1-unknown":
            return b"PROXY UNKNOWN\r\n"
        if kind == "reject":
            return b"PROXY TCP4 203.0.113.%d 198.51.100.7 %d 25\r\n" % (r.randint(1, 254), port)
        if kind == "v2-local":
            return V2_SIG + bytes([0x20, 0x00]) + struct.pack("!H", 0)
        if kind == "v2-6":
            body = socket.inet_pton(socket.AF_INET6, "2001:db8::7") + socket.inet_pton(socket.AF_INET6, "2001:db8::25") \
                + struct.pack("!HH", port, 25)
            return V2_SIG + bytes([0x21, 0x21]) + struct.pack("!H", len(body)) + body
        body = socket.inet_aton("192.0.2.%d" % r.randint(1, 254)) + socket.inet_aton("198.51.100.7") \
            + struct.pack("!HH", port, 25)
        if r.random() < 0.4:
            body += bytes([0x04, 0x00, 0x00]) + bytes([0x05, 0x00, 0x04]) + b"id42"  # NOOP and UNIQUE_ID TLVs
        return V2_SIG + bytes([0x21, 0x11]) + struct.pack("!H", len(body)) + body
    bad = [
        b"PROXY TCP4 192.0.2.1 198.51.100.7 99999 25\r\n",
        b"PROXY TCP4 192.0.2.1 198.51.100.7 1234 25 extra\r\n",
        b"PROXY TCP5 192.0.2.1 198.51.100.7 1234 25\r\n",
        b"PROXY UDP4 192.0.2.1 198.51.100.7 1234 25\r\n",
        b"PROXY TCP4 192.0.2.1 2001:db8::1 1234 25\r\n",
        b"PROXY TCP6 192.0.2.1 198.51.100.7 1234 25\r\n",
        b"PROXY TCP4 192.0.2.x 198.51.100.7 1234 25\r\n",
        b"PROXY TCP4 192.0.2.1 198.51.100.7 http 25\r\n",
        b"PROXYTCP4 192.0.2.1 198.51.100.7 1234 25\r\n",
        b"PROXY TCP4 192.0.2.1 198.51.100.7 1234 25\n",
        b"PROXY TCP4 " + b"1" * 120 + b"\r\n",
        b"PROXY TCP4 192.0.2.1\r\n",
        b"PROXY\r\n",
        b"EHLO client.example.org\r\n",
        V2_SIG[:5] + b"\x00" * 7 + b"\x21\x11\x00\x0c",
        V2_SIG + bytes([0x11, 0x11]) + struct.pack("!H", 12) + b"\x00" * 12,
        V2_SIG + bytes([0x2F, 0x11]) + struct.pack("!H", 12) + b"\x00" * 12,
        V2_SIG + bytes([0x21, 0x41]) + struct.pack("!H", 12) + b"\x00" * 12,
        V2_SIG + bytes([0x21, 0x13]) + struct.pack("!H", 12) + b"\x00" * 12,
        V2_SIG + bytes([0x21, 0x11]) + struct.pack("!H", 4) + b"\x00" * 4,
        V2_SIG + bytes([0x21, 0x11]) + struct.pack("!H", 12) + b"\x00" * 3,  # then the client goes
    ]
    return r.choice(bad)


def client_classes(p, header):
    base = smtplib.LMTP if p["lmtp"] else (smtplib.SMTP_SSL if p["tls"] == "smtps" else smtplib.SMTP)
    if header is None:
        return base

    class WithProxy(base):
        def _get_socket(self, host, port, timeout):
            s = super()._get_socket(host, port, timeout)
            s.sendall(header)
            return s
    return WithProxy


def make_body(r, p, subject, sender, rcpts, eight_bit):
    n = pick(r, [(8, r.randint(1, 5)), (3, r.randint(6, 15)), (0.5, r.randint(30, 80))])
    lines = []
    for _ in range(n):
        k = r.random()
        if eight_bit and k < 0.2:
            lines.append(r.choice(UTF8_LINES))
        elif k < 0.06:
            lines.append("." + " ".join(r.choice(WORDS) for _ in range(r.randint(0, 5))))
        elif k < 0.08:
            lines.append("")
        else:
            lines.append(" ".join(r.choice(WORDS) for _ in range(r.randint(2, 12))))
    if r.random() < 0.04:
        lines.insert(r.randrange(len(lines) + 1), "x" * r.choice([1100, 2500]))
    hdr = ["From: %s" % sender, "To: %s" % ", ".join(rcpts), "Subject: %s" % subject]
    if r.random() < 0.5:
        hdr += ["Message-ID: <%d.%d@bench.test>" % (r.randrange(10 ** 8), r.randrange(1000)),
                "Date: Mon, 02 Jan 2023 10:%02d:00 +0000" % r.randrange(60)]
    if eight_bit or r.random() < 0.3:
        hdr += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=%s" % ("utf-8" if eight_bit else "us-ascii")]
    if eight_bit:
        hdr.append("Content-Transfer-Encoding: 8bit")
    return ("\r\n".join(hdr + [""] + lines) + "\r\n").encode("utf-8")


class Client:
    """An smtplib session."""

    def __init__(self, r, p, port, header=None):
        self.r, self.p, self.port = r, p, port
        self.header = header
        self.c = None

    def connect(self):
        cls = client_classes(self.p, self.header)
        kw = {"timeout": 5, "local_hostname": self.r.choice(EHLO_NAMES)}
        if self.p["tls"] == "smtps":
            kw["context"] = client_tls_context()
        self.c = cls(self.p["host"], self.port, **kw)

    def cmd(self, line):
        try:
            return self.c.docmd(line)
        except smtplib.SMTPServerDisconnected:
            raise SessionOver

    def greet(self):
        r, c = self.r, self.c
        k = r.random()
        if k < 0.75:
            c.ehlo(r.choice(EHLO_NAMES))
        elif k < 0.9:
            c.helo(r.choice(EHLO_NAMES))
        if r.random() < 0.1:
            c.ehlo_or_helo_if_needed()

    def starttls(self):
        r, c, p = self.r, self.c, self.p
        if p["tls"] == "starttls" and c.has_extn("starttls") and (p["require_starttls"] or r.random() < 0.7):
            try:
                c.starttls(context=client_tls_context())
                c.ehlo(r.choice(EHLO_NAMES))
            except (ssl.SSLError, OSError, smtplib.SMTPException):
                raise SessionOver
        elif r.random() < 0.08:
            self.cmd("STARTTLS")

    def auth(self):
        r, c, p = self.r, self.c, self.p
        if r.random() < 0.3:
            return
        if not c.has_extn("auth"):
            if r.random() < 0.25:
                self.cmd("AUTH PLAIN " + base64.b64encode(b"\0alice\0wonderland").decode())
            return
        offered = c.esmtp_features.get("auth", "").split()
        user = pick(r, [(4, "alice"), (2, "bob"), (2, "mallory"), (1, "raise")])
        pw = USERS.get(user, "guess") if r.random() < 0.75 else "wrong-password"
        c.user, c.password = user, pw
        mech = r.choice(offered + ["PLAIN"]) if offered else "PLAIN"
        try:
            if mech == "XTOKEN":
                tok = "letmein" if r.random() < 0.6 else r.choice(["nope", "*"])
                if tok == "*":
                    self.cmd("AUTH XTOKEN")
                    self.cmd("*")
                else:
                    c.auth("XTOKEN", lambda challenge=None: tok, initial_response_ok=False)
            elif mech == "LOGIN":
                c.auth("LOGIN", c.auth_login, initial_response_ok=r.random() < 0.3)
            elif mech == "PLAIN":
                c.auth("PLAIN", c.auth_plain, initial_response_ok=r.random() < 0.6)
            else:
                c.auth(mech, lambda challenge=None: "x", initial_response_ok=False)
        except smtplib.SMTPAuthenticationError:
            pass
        except smtplib.SMTPServerDisconnected:
            raise SessionOver
        except smtplib.SMTPException:
            pass

    def message(self):
        r, c, p = self.r, self.c, self.p
        sender = pick(r, SENDERS)
        rcpts = []
        for _ in range(pick(r, [(6, 1), (3, 2), (1, 3), (1, 5)])):
            rc = pick(r, RCPTS)
            rcpts.append(rc % r.randint(1, 9) if "%d" in rc else rc)
        subject = r.choice(SUBJECTS)
        if "%d" in subject:
            subject = subject % r.randint(100, 999)
        eight_bit = r.random() < 0.25
        body = make_body(r, p, subject, sender, rcpts, eight_bit)
        opts = []
        if eight_bit and (c.has_extn("8bitmime") or r.random() < 0.3):
            opts.append("BODY=8BITMIME")
        if any(ord(ch) > 127 for ch in sender + "".join(rcpts)) and c.has_extn("smtputf8"):
            opts.append("SMTPUTF8")
        try:
            c.sendmail(sender, rcpts, body, mail_options=opts)
        except smtplib.SMTPServerDisconnected:
            raise SessionOver
        except (smtplib.SMTPException, UnicodeError, ValueError):
            try:
                c.rset()
            except smtplib.SMTPServerDisconnected:
                raise SessionOver
            except smtplib.SMTPException:
                pass

    def extras(self):
        r = self.r
        for line in r.sample(["NOOP", "RSET", "VRFY carol@example.org", "VRFY zed@example.org", "HELP",
                              "HELP MAIL", "HELP DATA", "EXPN staff", "NOOP keepalive", "VRFY"],
                             r.randint(1, 3)):
            self.cmd(line)

    def run(self):
        r, p = self.r, self.p
        try:
            self.connect()
        except (smtplib.SMTPException, OSError):
            return
        try:
            self.greet()
            self.starttls()
            self.auth()
            for _ in range(pick(r, [(4, 1), (3, 2), (2, 3), (1, 5)])):
                if r.random() < 0.3:
                    self.extras()
                self.message()
            if isinstance(p["call_limit"], (int, dict)) and r.random() < 0.5:
                for _ in range(r.randint(3, 25)):
                    self.cmd(r.choice(["NOOP", "RSET", "NOOP", "HELP"]))
            end = pick(r, [(12, "quit"), (2, "close"), (1, "shutdown"),
                           (3 if p["timeout"] < 5 else 0, "idle")])
            if end == "quit":
                self.c.quit()
            elif end == "close":
                self.c.close()
            elif end == "shutdown":
                self.c.sock.shutdown(socket.SHUT_WR)
                time.sleep(0.05)
                self.c.close()
            else:
                time.sleep(p["timeout"] + 0.25)
                self.c.close()
        except (SessionOver, smtplib.SMTPException, OSError, UnicodeError):
            pass
        finally:
            try:
                self.c.close()
            except Exception:
                pass


def read_reply(s, wait=1.0):
    """Reads until a last reply line ('NNN text') arrives, the peer closes,
    or the wait runs out; returns (data, closed)."""
    s.settimeout(wait)
    buf = b""
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return buf, True
            buf += data
            lines = buf.split(b"\r\n")
            if len(lines) >= 2 and lines[-2][:3].isdigit() and lines[-2][3:4] in (b" ", b""):
                return buf, False
    except OSError:
        return buf, False


class Raw:
    """A hand-written client."""

    def __init__(self, r, p, port):
        self.r, self.p, self.port = r, p, port
        self.s = None

    def send(self, data, replies=1, wait=1.0):
        self.s.sendall(data)
        for _ in range(replies):
            _, closed = read_reply(self.s, wait)
            if closed:
                raise SessionOver

    def line(self, data, wait=1.0):
        self.send(data + b"\r\n", 1, wait)

    def hello(self):
        r = self.r
        verb = b"LHLO" if self.p["lmtp"] else pick(r, [(4, b"EHLO"), (1, b"HELO")])
        self.line(verb + b" " + r.choice(EHLO_NAMES).encode())

    def kind_junk(self):
        r = self.r
        if r.random() < 0.6:
            self.hello()
        for line in r.sample(RAW_JUNK, r.randint(3, 12)):
            self.line(line)

    def kind_bogus(self):
        r = self.r
        if r.random() < 0.5:
            self.hello()
        for _ in range(r.randint(4, 7)):
            self.line(r.choice([b"XYZZY", b"FOO bar", b"GET /", b"PLUGH", b"KLAATU barada nikto"]))

    def kind_long(self):
        r = self.r
        self.hello()
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.4:
                self.line(b"MAIL FROM:<" + b"a" * r.choice([520, 560, 900]) + b"@example.org>")
            elif k < 0.7:
                self.line(b"NOOP " + b"z" * r.choice([1200, 3000, 70000]), wait=2.0)
            else:
                self.line(b"RCPT TO:<" + b"b" * 600 + b"@example.org>")
        if r.random() < 0.6:
            self.line(b"MAIL FROM:<alice@example.org>")
            self.line(b"RCPT TO:<carol@example.org>")
            self.line(b"DATA")
            body = b"Subject: long\r\n\r\n" + b"y" * r.choice([1500, 5000]) + b"\r\nshort line\r\n"
            if r.random() < 0.5:
                body += (b"filler line of text to exceed the size limit\r\n" * r.randint(20, 200))
            self.send(body + b".\r\n", wait=2.0)

    def kind_pipeline(self):
        r = self.r
        greet = (b"LHLO" if self.p["lmtp"] else b"EHLO") + b" pipe.example.org\r\n"
        rcpts = [pick(r, RCPTS) for _ in range(r.randint(1, 3))]
        rcpts = [x.replace("%d", "1") for x in rcpts]
        cmds = [b"MAIL FROM:<%s>" % pick(r, SENDERS).encode("utf-8")]
        cmds += [b"RCPT TO:<%s>" % x.encode("utf-8") for x in rcpts]
        cmds += [b"DATA"]
        data = b"Subject: pipelined\r\n\r\nline one\r\n..dotted\r\nline three\r\n.\r\n"
        tail = [b"QUIT"] if r.random() < 0.6 else [b"NOOP", b"RSET"]
        blob = greet + b"".join(c + b"\r\n" for c in cmds) + data + b"".join(c + b"\r\n" for c in tail)
        self.s.sendall(blob)
        for _ in range(len(cmds) + len(tail) + 3):
            _, closed = read_reply(self.s, 0.6)
            if closed:
                raise SessionOver

    def kind_drop_data(self):
        r = self.r
        self.hello()
        self.line(b"MAIL FROM:<alice@example.org>")
        self.line(b"RCPT TO:<carol@example.org>")
        self.line(b"DATA")
        self.s.sendall(b"Subject: cut short\r\n\r\n" + b"partial line\r\n" * r.randint(1, 5) + b"no end")
        time.sleep(0.05)
        if r.random() < 0.5:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif r.random() < 0.5:
            self.s.shutdown(socket.SHUT_WR)
            time.sleep(0.05)
        raise SessionOver

    def kind_drop(self):
        r = self.r
        k = r.random()
        if k < 0.3:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif k < 0.6:
            self.hello()
            self.s.shutdown(socket.SHUT_WR)
            time.sleep(0.05)
        elif k < 0.8:
            self.s.sendall(b"NOOP\r\nNOOP\r\nMAIL FROM:<bob@example.net>\r\n")
        raise SessionOver

    def kind_idle(self):
        if self.r.random() < 0.6:
            self.hello()
        time.sleep(self.p["timeout"] + 0.25)
        read_reply(self.s, 0.2)
        raise SessionOver

    def kind_limit(self):
        r = self.r
        self.hello()
        for _ in range(r.randint(5, 25)):
            self.line(r.choice([b"NOOP", b"NOOP", b"RSET", b"VRFY alice@example.org", b"HELP"]))

    def kind_auth(self):
        r = self.r
        if r.random() < 0.85:
            self.hello()
        plain_ok = base64.b64encode(b"\0alice\0wonderland")
        for _ in range(r.randint(1, 4)):
            k = r.randrange(12)
            if k == 0:
                self.line(b"AUTH")
            elif k == 1:
                self.line(b"AUTH CRAM-MD5")
            elif k == 2:
                self.line(b"AUTH PLAIN a b c")
            elif k == 3:
                self.line(b"AUTH PLAIN !!!notbase64")
            elif k == 4:
                self.line(b"AUTH PLAIN")
                self.line(b"*")
            elif k == 5:
                self.line(b"AUTH LOGIN")
                self.line(b"%%%")
            elif k == 6:
                self.line(b"AUTH LOGIN " + base64.b64encode(b"bob"))
                self.line(base64.b64encode(r.choice([b"builder", b"nope"])))
            elif k == 7:
                self.line(b"AUTH PLAIN " + base64.b64encode(b"no-nul-separators"))
            elif k == 8:
                self.line(b"AUTH PLAIN " + plain_ok)
            elif k == 9:
                self.line(b"AUTH LOGIN")
                self.line(base64.b64encode(b"alice"))
                self.line(b"*")
            elif k == 10:
                self.line(b"AUTH XTOKEN")
                self.line(base64.b64encode(r.choice([b"letmein", b"guess"])))
            else:
                self.line(b"AUTH PLAIN")
                self.line(base64.b64encode(b"\0carol\0s3cret"))
        self.line(b"MAIL FROM:<alice@example.org>")

    def kind_tls_junk(self):
        self.hello()
        self.line(b"STARTTLS")
        self.s.sendall(b"\x16\x03\x01\x00\x20" + bytes(range(32)) + b"EHLO after junk\r\n")
        read_reply(self.s, 1.0)
        raise SessionOver

    def kind_utf8(self):
        r = self.r
        self.hello()
        lines = [b"MAIL FROM:<j\xc3\xb6rg@example.org> SMTPUTF8", b"MAIL FROM:<j\xc3\xb6rg@example.org>",
                 b"RCPT TO:<\xe7\x94\xa8\xe6\x88\xb7@example.org>", b"VRFY m\xc3\xbcller", b"NOOP \xff\xfe",
                 b"MAIL FROM:<alice@example.org> BODY=8BITMIME SMTPUTF8", b"RCPT TO:<carol@example.org>",
                 b"DATA"]
        for line in lines[:r.randint(3, len(lines))]:
            self.line(line)
        if lines[-1] == b"DATA" and r.random() < 0.7:
            self.send(b"Subject: caf\xc3\xa9\r\n\r\nGr\xc3\xbc\xc3\x9fe\r\n.\r\n")

    def run(self):
        r, p = self.r, self.p
        kinds = [(4, self.kind_junk), (2, self.kind_bogus), (2, self.kind_long), (2, self.kind_pipeline),
                 (2, self.kind_drop_data), (2, self.kind_drop), (2, self.kind_auth), (1, self.kind_utf8)]
        if p["timeout"] < 5:
            kinds.append((3, self.kind_idle))
        if p["call_limit"] is not None:
            kinds.append((4, self.kind_limit))
        if p["tls"] == "starttls":
            kinds.append((1, self.kind_tls_junk))
        kind = pick(r, kinds)
        header = None
        if p["proxy"] is not None:
            k = r.random()
            header = proxy_header(r, True) if k < 0.5 else (proxy_header(r, False) if k < 0.9 else b"")
        try:
            s = socket.create_connection((p["host"], self.port), timeout=5)
        except OSError:
            return
        try:
            if p["tls"] == "smtps":
                s = client_tls_context().wrap_socket(s)
            self.s = s
            if header is not None:
                if header:
                    s.sendall(header)
                else:  # no header at all: the PROXY wait times out
                    time.sleep(p["proxy"] + 0.2)
                    read_reply(s, 0.2)
                    raise SessionOver
            _, closed = read_reply(s, 1.5)
            if closed:
                return
            kind()
            if r.random() < 0.6:
                self.line(r.choice([b"QUIT", b"QUIT", b"QUIT now"]))
        except (SessionOver, OSError):
            pass
        finally:
            try:
                self.s.close() if self.s is not None else s.close()
            except OSError:
                pass


def run_clients(r, p, port):
    for _ in range(p["sessions"]):
        k = r.random()
        try:
            if k < 0.32:
                Raw(r, p, port).run()
            elif k < 0.4:
                # beside an idle connection that speaks before and after
                side = socket.create_connection((p["host"], port), timeout=5)
                try:
                    if p["tls"] == "smtps":
                        side = client_tls_context().wrap_socket(side)
                    if p["proxy"] is not None:
                        side.sendall(proxy_header(r, True))
                    read_reply(side, 1.0)
                    side.sendall(b"NOOP\r\n")
                    read_reply(side, 1.0)
                    Client(r, p, port, proxy_header(r, True) if p["proxy"] is not None else None).run()
                    side.sendall(b"QUIT\r\n" if r.random() < 0.7 else b"RSET\r\n")
                    read_reply(side, 0.5)
                finally:
                    side.close()
            else:
                header = None
                if p["proxy"] is not None:
                    header = proxy_header(r, r.random() < 0.85)
                Client(r, p, port, header).run()
        except (SessionOver, OSError, smtplib.SMTPException):
            pass
        time.sleep(0.01)


# ---------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------
def finish_loop(loop):
    """Cancels what is left on a stopped loop, lets it unwind, closes it."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for t in tasks:
        t.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    loop.run_until_complete(asyncio.sleep(0.01))
    loop.close()


def client_thread(r, p, port, loop, case, stop, before=None):
    def body():
        mark_thread(case)
        try:
            if before is not None:
                before()
            run_clients(r, p, port)
            time.sleep(0.05)
        except Exception as e:  # keep the server's loop from running forever
            print("client thread: %r" % (e,), file=sys.stderr)
        finally:
            stop()
    t = threading.Thread(target=body, daemon=True)
    return t


def run_threaded(p, r, case, port, new_handler, kw, ssl_ctx):
    ctl = CaseController(None, hostname=p["host"], port=port, ssl_context=ssl_ctx, case=case,
                         lmtp=p["lmtp"], ready_timeout=10, server_hostname=p["hostname"], **kw)
    ctl.handler = new_handler(ctl.loop)
    ctl.start()
    try:
        run_clients(r, p, port)
        time.sleep(0.05)
    finally:
        ctl.stop()


def run_unthreaded(p, r, case, port, handler, kw, ssl_ctx, loop):
    ctl = CaseUnthreaded(handler, hostname=p["host"], port=port, loop=loop, ssl_context=ssl_ctx,
                         lmtp=p["lmtp"], server_hostname=p["hostname"], **kw)
    ctl.begin()
    t = client_thread(r, p, port, loop, case, lambda: loop.call_soon_threadsafe(loop.stop))
    t.start()
    loop.run_forever()
    t.join(30)
    ctl.end()
    finish_loop(loop)


def run_plain(p, r, case, port, handler, kw, ssl_ctx, loop):
    if p["lmtp"]:
        cls = LimitedLMTP if r.random() < 0.5 else LMTP
    else:
        cls = LimitedSMTP if r.random() < 0.4 else SMTP
    if p["hostname"]:
        kw = dict(kw, hostname=p["hostname"])
    server = loop.run_until_complete(loop.create_server(lambda: cls(handler, loop=loop, **kw),
                                                        host=p["host"], port=port, ssl=ssl_ctx))
    t = client_thread(r, p, port, loop, case, lambda: loop.call_soon_threadsafe(loop.stop))
    t.start()
    loop.run_forever()
    t.join(30)
    server.close()
    loop.run_until_complete(server.wait_closed())
    finish_loop(loop)


def run_main(p, r, case, port, tmp, cert, loop):
    args = ["-n", "-l", "%s:%d" % (p["host"], port), p["main_debug"]]
    if p["size"] != "default":
        args += ["-s", str(p["size"])]
    if p["smtputf8"]:
        args.append("-u")
    if p["tls"] == "starttls":
        args += ["--tlscert", cert["cert"], "--tlskey", cert["key"]]
        if not p["require_starttls"]:
            args.append("--no-requiretls")
    elif p["tls"] == "smtps":
        args += ["--smtpscert", cert["cert"], "--smtpskey", cert["key"]]
    classargs = []
    if p["handler"] == "sink":
        args += ["-c", "aiosmtpd.handlers.Sink"]
    elif p["handler"] == "mailbox":
        args += ["-c", "aiosmtpd.handlers.Mailbox"]
        classargs = [os.path.join(tmp, "Maildir")]
    # else: the default class, Debugging to stdout (redirected below)
    use_signal = r.random() < 0.5

    def wait_running():
        for _ in range(500):
            if loop.is_running():
                return
            time.sleep(0.01)

    def stop():
        if use_signal and signal.SIGINT in getattr(loop, "_signal_handlers", {}):
            os.kill(os.getpid(), signal.SIGINT)
        else:
            loop.call_soon_threadsafe(loop.stop)

    t = client_thread(r, p, port, loop, case, stop, before=wait_running)
    t.start()
    with contextlib.redirect_stdout(io.StringIO()):
        aio_main.main(args + classargs)
    t.join(30)
    logging.getLogger("mail.log").setLevel(logging.DEBUG)


def run_case(log, case, r, top, cert):
    tmp = tempfile.mkdtemp(dir=top)
    ports = []
    downstream = None
    loop = None
    try:
        p = make_plan(r, cert)
        port = _capture.free_port()
        ports.append(port)
        logging.getLogger("mail.log").setLevel(p["level"])
        ssl_ctx = None
        kw = smtp_kwargs(p)
        if p["tls"] == "starttls":
            kw["tls_context"] = server_tls_context(cert, p["tls_variant"])
            kw["require_starttls"] = p["require_starttls"]
        elif p["tls"] == "smtps":
            ssl_ctx = server_tls_context(cert, "plain")
        CURRENT["case"] = case
        log.case_id = case
        mark_thread(case)
        if p["mode"] != "threaded":
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
        dport = None
        if p["handler"] == "proxy" and p["mode"] != "main":
            dport = _capture.free_port()
            ports.append(dport)
            if p["downstream"] != "down":
                downstream = make_downstream(p, case, dport)
                downstream.start()
        if p["mode"] == "main":
            run_main(p, r, case, port, tmp, cert, loop)
        elif p["mode"] == "threaded":
            run_threaded(p, r, case, port, lambda lp: make_handler(p, tmp, lp, dport), kw, ssl_ctx)
        elif p["mode"] == "unthreaded":
            run_unthreaded(p, r, case, port, make_handler(p, tmp, loop, dport), kw, ssl_ctx, loop)
        else:
            run_plain(p, r, case, port, make_handler(p, tmp, loop, dport), kw, ssl_ctx, loop)
    except Exception as e:  # a case that could not run: reported, the others go on
        FAILED.append((case, repr(e)))
        print("%s: %r" % (case, e), file=sys.stderr)
    finally:
        if downstream is not None:
            downstream.stop()
        if loop is not None and not loop.is_closed():
            finish_loop(loop)
        asyncio.set_event_loop(None)
        CURRENT["case"] = None
        log.end_case()
        _capture.release_ports(ports)
        shutil.rmtree(tmp, ignore_errors=True)


def make_cert(top):
    if not shutil.which("openssl"):
        return None
    out = {"cert": os.path.join(top, "server.crt"), "key": os.path.join(top, "server.key")}
    res = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                          "-nodes", "-days", "3", "-subj", "/CN=localhost", "-keyout", out["key"],
                          "-out", out["cert"]], capture_output=True)
    return out if res.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    warnings.simplefilter("ignore")  # aiosmtpd's own deprecation and security warnings
    logging.getLogger().addHandler(logging.NullHandler())  # main.main's basicConfig: no output
    top = tempfile.mkdtemp(prefix="aiosmtpd_")
    try:
        cert = make_cert(top)
        log = _capture.EventLog(aiosmtpd, a.out, logger_names=LOGGERS, wrappers=WRAPPERS)
        flt = CaseThreadFilter()
        log.addFilter(flt)
        for name in LOGGERS:
            logging.getLogger(name).propagate = False
        t0 = time.time()
        for i in range(a.cases):
            # per-case stream: timing-dependent outcomes of one case do not
            # shift the choices of later cases
            run_case(log, "smtp-%05d" % i, random.Random("%d-%d" % (a.seed, i)), top, cert)
        log.finish()
        print(log.summary(), "; %d records of no open case dropped, %d cases failed" % (flt.dropped, len(FAILED)),
              "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
