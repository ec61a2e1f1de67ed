#!/usr/bin/python3
"""Event log of autobahn 22.7.1 with txaio 21.2.1, asyncio side only, against
in-process autobahn servers and small hand-written peers, all on 127.0.0.1
in one asyncio loop.

    /usr/bin/python3 gen_autobahn.py --out .deps/logs/autobahn.csv.gz [--cases 1600] [--seed 1]
    /usr/bin/python3 gen_autobahn.py --repo      # prints the directory to index

autobahn and txaio come from PyPI, at the versions Debian 12 ships and with
the same Python files: ``run.sh`` installs them (``pip/autobahn``, hashes
checked, no dependencies) into ``.deps/corpus/autobahn/site-packages``,
which this generator puts first on ``sys.path``. Debian's own packages
depend on the other backend's framework; the rest of python3-autobahn's
dependencies are Debian's (``corpus.tsv``), and none of them brings that
framework in.

The whole installed package is indexed, its tests (``autobahn/*/test/``) and
its second event-loop backend included, though only the asyncio side runs:
autobahn's two backends log identical text at different sites, and the
tests hold log-like text of their own.

A case is one of:

- ``ws``: one autobahn WebSocket client connection to an autobahn WebSocket
  server started for the case, both with random options (protocol versions,
  subprotocols, extra headers, origins, masking, frame and message size
  limits, auto-fragmentation, fail-by-drop, echoed close reasons,
  handshake and closing timeouts, auto ping/pong, octet/frame logging, timing
  tracking, permessage-deflate / -bzip2 / -snappy offers and accepts with
  parameters, connection limits, X-Forwarded-For trust); the server's
  ``onConnect`` accepts (subprotocol, headers, async), denies
  (``ConnectionDeny``) or raises; the client's ``onConnecting`` /
  ``onConnect`` return options, fail or raise; then a script of text and
  binary messages (plain, fragmented, streamed frame by frame, prepared),
  pings, oversized messages, invalid UTF-8, server-initiated closes and
  drops, idle periods for auto-pings, and a close with a code and reason
  (or an abort); sometimes through an explicit HTTP CONNECT proxy (in the
  generator: forwarding, refusing or answering garbage);
- ``raw-client``: a hand-written client sending a crafted HTTP request
  (every opening-handshake check of the server: methods, versions, Host,
  Upgrade, Connection, keys, origins, extensions, Flash policy requests, the
  web status page and redirects) and, after a good handshake, crafted frames
  (reserved bits and opcodes, unmasked frames, fragmented or oversized
  control frames, bad lengths, invalid close codes and reasons, invalid
  UTF-8, continuation errors), or staying silent to trip the timeouts;
- ``raw-server``: an autobahn client against a hand-written server answering
  the handshake with a crafted response (status, headers, accept key,
  extensions, subprotocol) and then crafted frames (masked, reserved, close
  codes, pings, never dropping TCP after a close), or nothing at all;
- ``rawsocket``: WAMP-over-RawSocket with one hand-written end: a raw
  client against an autobahn RawSocket server (serializer negotiation, bad
  magic, reserved bits, unsupported serializers, invalid frame types,
  oversized and undecodable frames, pings), or an autobahn RawSocket client
  against a raw server answering its handshake badly;
- ``wamp``: a WAMP session (``ApplicationSession``, or ``Component`` with its
  connect and retry loop, giving up after one or two sessions) over
  WebSocket or RawSocket to a stub router written here, served by autobahn's
  own server transports (autobahn ships no router; the stub's own code logs
  nothing): join with ticket / WAMP-CRA / cryptosign authentication, aborts
  and denials, subscribe and publish with events (handlers that raise,
  acknowledged delivery, end-to-end encrypted payloads, tampered or fake
  encrypted payloads), register and call (results, errors, progressive
  results, cancels and interrupts, unserializable results), router-side
  unregistrations, stray messages, goodbyes, disconnects, and router
  sessions that raise.  Over RawSocket the asyncio client never joins:
  in this version its transport lacks ``transport_details``, so building
  the session details fails (logged through ``onUserError``).

Messages: autobahn renders many fields with ``hltype``/``hlval``, which
colour them with ANSI escapes when ``click`` is installed (python3-click is
listed in the setup), so the rendered text holds those escapes, as
autobahn's own console output does.  The other backend's framework is not
installed, and autobahn's modules for that backend are indexed, never
imported.

Capture: txaio's asyncio logger formats the message itself
(``format.format(**kwargs)``) and logs the result through the stdlib logger
named after the class or module that made it (``make_logger``); the record's
own call site is then txaio's ``_log``.  The handler here walks the stack
past the frames of ``logging`` and ``txaio`` (machinery) to the autobahn line
that called ``self.log.<level>(...)``: that is the emitter.  The level is
txaio's (``trace`` records are stdlib DEBUG records; their level is written
``TRACE``); the message is the rendered text; txaio's global level is set to
``trace`` so every call emits.  Handlers hang on the root logger: loggers
made inside a session's ``__init__`` are named after the session class.

Wrappers: ``ApplicationSession.onUserError`` in ``autobahn/wamp/protocol.py``
(its default body only logs the message its caller passes, prefixed with
the class name, plus the traceback) and ``ApplicationSession._swallow_error``
(only calls ``onUserError`` and logs if that fails) are declared pure
logging wrappers: their records are attributed to their caller (often a
lambda or closure passed as an errback), ``code.wrapped`` = 1.

Attribution: every case runs as its own task with a context variable set to
its id; the transports, timers and callbacks it creates inherit that
context, so a record emitted by a straggler of an earlier case (a timer
firing late) carries that case's id and is dropped (counted), as are records
emitted while no case is open.  Only records whose emitter lies in the
autobahn package are kept.
"""
import argparse
import asyncio
import base64
import contextvars
import hashlib
import logging
import os
import random
import struct
import sys
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
# autobahn and txaio as run.sh installs them from PyPI (pip/autobahn), ahead
# of anything in dist-packages.
SITE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))),
                    ".deps", "corpus", "autobahn", "site-packages")
if not os.path.isdir(os.path.join(SITE, "autobahn")):
    sys.exit("gen_autobahn.py: no autobahn in %s (tests/bench/logs/run.sh installs it)" % SITE)
sys.path[:0] = [HERE, SITE]
import _capture  # noqa: E402

warnings.simplefilter("ignore")
import txaio  # noqa: E402

txaio.use_asyncio()
import autobahn  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":
    print(os.path.dirname(os.path.realpath(autobahn.__file__)))
    sys.exit(0)

from autobahn.asyncio.websocket import (  # noqa: E402
    WebSocketClientFactory, WebSocketClientProtocol, WebSocketServerFactory, WebSocketServerProtocol,
    WampWebSocketClientFactory, WampWebSocketServerFactory)
from autobahn.asyncio.rawsocket import WampRawSocketClientFactory, WampRawSocketServerFactory  # noqa: E402
from autobahn.asyncio.wamp import ApplicationSession  # noqa: E402
from autobahn.asyncio.component import Component  # noqa: E402
from autobahn.websocket.compress import (  # noqa: E402
    PerMessageDeflateOffer, PerMessageDeflateOfferAccept, PerMessageDeflateResponse,
    PerMessageDeflateResponseAccept, PerMessageBzip2Offer, PerMessageBzip2OfferAccept,
    PerMessageBzip2Response, PerMessageBzip2ResponseAccept, PerMessageSnappyOffer,
    PerMessageSnappyOfferAccept, PerMessageSnappyResponse, PerMessageSnappyResponseAccept)
from autobahn.websocket.types import ConnectingRequest, ConnectionDeny  # noqa: E402
from autobahn.wamp import auth as wamp_auth, message, role, types  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402
from autobahn.wamp.serializer import JsonSerializer, MsgPackSerializer, UBJSONSerializer  # noqa: E402

WRAPPERS = {
    ("autobahn/wamp/protocol.py", "onUserError"),
    ("autobahn/wamp/protocol.py", "_swallow_error"),
}
LEVELS = {"trace": "TRACE", "debug": "DEBUG", "info": "INFO", "warn": "WARNING", "error": "ERROR",
          "critical": "CRITICAL"}
MACHINERY = (os.path.realpath(os.path.dirname(logging.__file__)) + os.sep,
             os.path.realpath(os.path.dirname(txaio.__file__)) + os.sep)
CASE = contextvars.ContextVar("case", default=None)
DEBUG = os.environ.get("GEN_DEBUG") == "1"
HOST = "127.0.0.1"


class TxaioLog(_capture.EventLog):
    """EventLog for txaio records: the emitter is the first frame past logging/txaio."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.outside = 0   # records emitted while no case was open
        self.foreign = 0   # records of an earlier case (late timers)
        self._mach = {}

    def _machinery(self, path):
        m = self._mach.get(path)
        if m is None:
            m = os.path.realpath(path).startswith(MACHINERY)
            self._mach[path] = m
        return m

    def emit(self, record):
        try:
            cid = self.case_id
            if cid is None:
                self.outside += 1
                return
            own = CASE.get()
            if own is not None and own != cid:
                self.foreign += 1
                return
            f = sys._getframe(1)
            level = None
            while f is not None and self._machinery(f.f_code.co_filename):
                if level is None and f.f_code.co_name == "_log":
                    kw = f.f_locals.get("kwargs")
                    if isinstance(kw, dict):
                        level = kw.get("log_level")
                f = f.f_back
            if f is None:
                return
            ap, rel = self._rel(f.f_code.co_filename)
            wrapped = 0
            while rel is not None and self._is_wrapper(rel, f.f_code.co_name):
                f = f.f_back
                wrapped = 1
                if f is None:
                    return
                ap, rel = self._rel(f.f_code.co_filename)
            if rel is None:
                return
            line = f.f_lineno
            ts = _capture._dt.datetime.fromtimestamp(record.created, _capture._dt.timezone.utc).isoformat(
                timespec="microseconds")
            row = [cid, ts, _capture._escape(record.getMessage()), LEVELS.get(level, record.levelname),
                   record.name, rel, f.f_code.co_name, line, self.qn.qualname(ap, line), wrapped]
            with self._lock2:
                self._rows.append(row)
        except Exception:  # never break the library under test
            self.handleError(record)


def free_port():
    import socket
    s = socket.socket()
    s.bind((HOST, 0))
    p = s.getsockname()[1]
    s.close()
    return p


# a value of [(weight, value)], drawn by weight
pick = _capture.pick


# ---------------------------------------------------------------------------
# permessage-compress
# ---------------------------------------------------------------------------
OFFERS = {"deflate": PerMessageDeflateOffer, "bzip2": PerMessageBzip2Offer, "snappy": PerMessageSnappyOffer}
OFFER_ACCEPTS = {PerMessageDeflateOffer: PerMessageDeflateOfferAccept, PerMessageBzip2Offer: PerMessageBzip2OfferAccept,
                 PerMessageSnappyOffer: PerMessageSnappyOfferAccept}
RESPONSE_ACCEPTS = {PerMessageDeflateResponse: PerMessageDeflateResponseAccept,
                    PerMessageBzip2Response: PerMessageBzip2ResponseAccept,
                    PerMessageSnappyResponse: PerMessageSnappyResponseAccept}


def client_offers(r):
    offers = []
    for name in r.sample(sorted(OFFERS), r.randint(1, 3)):
        if name == "deflate":
            offers.append(PerMessageDeflateOffer(
                accept_no_context_takeover=r.random() < 0.8, accept_max_window_bits=r.random() < 0.8,
                request_no_context_takeover=r.random() < 0.3,
                request_max_window_bits=r.choice([0, 0, 9, 12, 15])))
        elif name == "bzip2":
            offers.append(PerMessageBzip2Offer(accept_max_compress_level=r.random() < 0.7,
                                               request_max_compress_level=r.choice([0, 1, 9])))
        else:
            offers.append(PerMessageSnappyOffer(accept_no_context_takeover=r.random() < 0.8,
                                                request_no_context_takeover=r.random() < 0.3))
    return offers


def server_accept(r):
    mode = r.choice(["first", "first", "deflate", "none", "params"])
    ws = r.choice([None, 9, 12])

    def accept(offers):
        for offer in offers:
            cls = OFFER_ACCEPTS.get(type(offer))
            if cls is None or mode == "none":
                continue
            if mode == "deflate" and not isinstance(offer, PerMessageDeflateOffer):
                continue
            if mode == "params" and isinstance(offer, PerMessageDeflateOffer):
                try:
                    return PerMessageDeflateOfferAccept(offer, request_no_context_takeover=offer.accept_no_context_takeover,
                                                        window_bits=ws, mem_level=r.choice([None, 4, 9]))
                except Exception:
                    return None
            return cls(offer)
        return None
    return accept


def client_accept(r):
    deny = r.random() < 0.1

    def accept(response):
        if deny:
            return None
        cls = RESPONSE_ACCEPTS.get(type(response))
        return cls(response) if cls else None
    return accept


# ---------------------------------------------------------------------------
# ws: autobahn client <-> autobahn server
# ---------------------------------------------------------------------------
class ServerBehaviour:
    def __init__(self, r):
        self.r = r
        self.connect = pick(r, [(60, "none"), (15, "proto"), (8, "headers"), (6, "async"), (5, "deny"),
                                (3, "raise"), (3, "super")])
        self.super_calls = r.random() < 0.5
        self.open_action = pick(r, [(85, None), (5, "greet"), (4, "close"), (3, "ping"), (3, "drop")])
        self.echo_fragment = r.choice([None, None, None, 7, 64, 1024])


class BenchServerProtocol(WebSocketServerProtocol):
    def onConnect(self, request):
        b = self.factory.bench
        if b.connect == "proto" and request.protocols:
            return request.protocols[-1]
        if b.connect == "headers":
            return (request.protocols[0] if request.protocols else None), {"X-Bench": "1", "Set-Cookie": ["a=1", "b=2"]}
        if b.connect == "async":
            async def later():
                await asyncio.sleep(0.01)
                return request.protocols[0] if request.protocols else None
            return later()
        if b.connect == "deny":
            raise ConnectionDeny(b.r.choice([ConnectionDeny.FORBIDDEN, ConnectionDeny.NOT_FOUND,
                                             ConnectionDeny.SERVICE_UNAVAILABLE, ConnectionDeny.NOT_ACCEPTABLE]),
                                 b.r.choice(["go away", "no such resource", "try again later", None]))
        if b.connect == "raise":
            raise RuntimeError("database unavailable")
        if b.connect == "super":
            return super().onConnect(request)
        return None

    def onOpen(self):
        b = self.factory.bench
        if b.super_calls:
            super().onOpen()
        if b.open_action == "greet":
            self.sendMessage(b"hello from server")
        elif b.open_action == "close":
            self.sendClose(b.r.choice([1000, 3001, 4000]), b.r.choice([None, "server shutting down"]))
        elif b.open_action == "ping":
            self.sendPing(b"srv-ping")
        elif b.open_action == "drop":
            self.dropConnection(abort=b.r.random() < 0.5)

    def onMessage(self, payload, isBinary):
        b = self.factory.bench
        if b.super_calls:
            super().onMessage(payload, isBinary)
        if not isBinary and payload.startswith(b"cmd:"):
            words = payload[4:].decode("utf8", "replace").split()
            cmd, arg = words[0], (words[1:] or ["0"])
            try:
                if cmd == "close":
                    self.sendClose(int(arg[0]), " ".join(arg[1:]) or None)
                elif cmd == "big":
                    self.sendMessage(b"x" * int(arg[0]), isBinary=True)
                elif cmd == "ping":
                    self.sendPing(arg[0].encode())
                elif cmd == "pong":
                    self.sendPong(arg[0].encode())
                elif cmd == "drop":
                    self.dropConnection(abort=arg[0] == "1")
                elif cmd == "frag":
                    self.sendMessage(("fragmented " * 20).encode(), fragmentSize=int(arg[0]))
                elif cmd == "stream":
                    self.beginMessage(isBinary=True)
                    for i in range(int(arg[0])):
                        self.sendMessageFrame(b"chunk-%d" % i)
                    self.endMessage()
                elif cmd == "prepared":
                    pm = self.factory.prepareMessage(b"prepared " + arg[0].encode())
                    self.sendPreparedMessage(pm)
            except Exception as e:  # noqa: BLE001 (invalid states are part of the exercise)
                if DEBUG:
                    print("server cmd %s: %r" % (cmd, e), file=sys.stderr)
            return
        try:
            frag = b.echo_fragment
            if frag and len(payload) > 30 * frag:  # at most ~30 frames
                frag = len(payload) // 30 + 1
            self.sendMessage(payload, isBinary, fragmentSize=frag)
        except Exception as e:  # noqa: BLE001 (payload limits)
            if DEBUG:
                print("server echo: %r" % e, file=sys.stderr)

    def onPing(self, payload):
        if self.factory.bench.super_calls or self.factory.bench.r.random() < 0.7:
            super().onPing(payload)

    def onPong(self, payload):
        if self.factory.bench.super_calls:
            super().onPong(payload)

    def onClose(self, wasClean, code, reason):
        if self.factory.bench.super_calls:
            super().onClose(wasClean, code, reason)


class BenchClientProtocol(WebSocketClientProtocol):
    def onConnecting(self, transport_details):
        c = self.factory.bench
        if c.connecting == "request":
            f = self.factory
            return ConnectingRequest(host=f.host, port=f.port, resource=f.resource + "?via=onConnecting",
                                     headers={"X-Request": "yes"}, useragent="bench-agent/2",
                                     origin=c.origin, protocols=f.protocols)
        if c.connecting == "raise":
            raise ValueError("no route to resource")
        return None

    def onConnect(self, response):
        c = self.factory.bench
        if c.on_connect == "raise":
            raise RuntimeError("unexpected subprotocol %r" % response.protocol)
        if c.on_connect == "async":
            return asyncio.sleep(0.005)
        return None

    def onOpen(self):
        c = self.factory.bench
        if c.super_calls:
            super().onOpen()
        if c.bad_listener:
            def listener(payload, is_binary=False):
                raise ValueError("listener cannot parse %d bytes" % len(payload))
            self.on("message", listener)
        c.task = asyncio.ensure_future(c.script(self))

    def onMessage(self, payload, isBinary):
        if self.factory.bench.super_calls:
            super().onMessage(payload, isBinary)

    def onPing(self, payload):
        if self.factory.bench.super_calls or self.factory.bench.r.random() < 0.8:
            super().onPing(payload)

    def onPong(self, payload):
        if self.factory.bench.super_calls:
            super().onPong(payload)

    def onClose(self, wasClean, code, reason):
        c = self.factory.bench
        if c.super_calls:
            super().onClose(wasClean, code, reason)
        if not c.closed.done():
            c.closed.set_result((wasClean, code, reason))


class ClientScript:
    """What the client does over one connection."""

    def __init__(self, r):
        self.r = r
        self.connecting = pick(r, [(85, None), (10, "request"), (5, "raise")])
        self.on_connect = pick(r, [(90, None), (7, "async"), (3, "raise")])
        self.super_calls = r.random() < 0.5
        self.bad_listener = r.random() < 0.04
        self.origin = None
        self.closed = asyncio.get_event_loop().create_future()
        self.task = None

    async def script(self, p):
        r = self.r
        for _ in range(r.randint(1, 7)):
            if p.state != p.STATE_OPEN:
                return
            try:
                await self.action(p)
            except Exception as e:  # noqa: BLE001 (payload limits, invalid states)
                if DEBUG:
                    print("client action: %r" % e, file=sys.stderr)
            await asyncio.sleep(r.choice([0, 0.002, 0.01]))
        if p.state != p.STATE_OPEN:
            return
        try:
            k = r.random()
            if k < 0.06:
                p.sendClose(1000)
                p.sendClose(1000, "really")  # already closing
                await asyncio.sleep(0.05)
                p.sendClose(1000)  # already closed
                p.dropConnection()
            elif k < 0.09:
                p.sendMessage(b"queued " * 50, sync=True)
                p.sendMessage(b"queued too", sync=True)
                p.dropConnection(abort=True)
            elif k < 0.7:
                p.sendClose(r.choice([1000, 1000, 1000, 3000, 4001]), r.choice([None, "bye", "done for today"]))
            elif k < 0.8:
                p.sendClose()
            elif k < 0.87:
                p.sendMessage(b"cmd:close " + r.choice([b"1000", b"4002 server says bye", b"3003 x"]))
            elif k < 0.92:
                p.dropConnection(abort=r.random() < 0.5)
            elif k < 0.96:
                p.sendCloseFrame(code=r.choice([999, 1005, 1016, 2999, 5000]), reasonUtf8=b"bad code", isReply=False)
            else:
                p.sendMessage(b"cmd:drop " + r.choice([b"0", b"1"]))
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("client script: %r" % e, file=sys.stderr)

    async def action(self, p):
        r = self.r
        k = pick(r, [(20, "text"), (10, "binary"), (6, "frag"), (5, "stream"), (5, "prepared"), (8, "ping"),
                     (6, "srvcmd"), (4, "big"), (3, "badutf8"), (6, "idle"), (2, "pong"), (3, "sync"),
                     (2, "close-weird")])
        if k == "text":
            p.sendMessage(("hello %d " % r.randint(0, 999) * r.choice([1, 3, 40])).encode())
        elif k == "binary":
            p.sendMessage(bytes(r.getrandbits(8) for _ in range(r.choice([1, 10, 130, 700]))), isBinary=True)
        elif k == "frag":
            p.sendMessage(("fragment me " * r.choice([5, 30])).encode(), isBinary=r.random() < 0.3,
                          fragmentSize=r.choice([4, 16, 100]))
        elif k == "stream":
            p.beginMessage(isBinary=r.random() < 0.5)
            for i in range(r.randint(1, 4)):
                if r.random() < 0.5:
                    p.sendMessageFrame(b"frame-%d" % i)
                else:
                    data = b"partial-%d" % i
                    p.beginMessageFrame(len(data))
                    p.sendMessageFrameData(data[:3])
                    p.sendMessageFrameData(data[3:])
            p.endMessage()
        elif k == "prepared":
            pm = p.factory.prepareMessage(b"prepared payload " * r.choice([1, 20]), isBinary=r.random() < 0.3,
                                          doNotCompress=r.random() < 0.3)
            p.sendPreparedMessage(pm)
        elif k == "ping":
            p.sendPing(r.choice([None, b"are you there", b"p" * 125]))
        elif k == "pong":
            p.sendPong(b"unsolicited")
        elif k == "srvcmd":
            p.sendMessage(r.choice([b"cmd:ping hello", b"cmd:pong x", b"cmd:frag 8", b"cmd:stream 3",
                                    b"cmd:prepared z", b"cmd:big 5000", b"cmd:big 40000"]))
        elif k == "big":
            p.sendMessage(b"B" * r.choice([2000, 20000, 40000]), isBinary=True)
        elif k == "badutf8":
            p.sendMessage(b"caf\xc3\x28 \xff\xfe", isBinary=False)
        elif k == "idle":
            await asyncio.sleep(r.choice([0.05, 0.15, 0.3]))
        elif k == "sync":
            p.sendMessage(b"synced " * 10, sync=True)
        elif k == "close-weird":
            p.sendMessage(b"cmd:close 1001 going away")
        await asyncio.sleep(0)


def ws_options(r, server_factory, client_factory):
    """Random protocol options for both ends."""
    s_opts, c_opts = {}, {}
    if r.random() < 0.25:
        s_opts["perMessageCompressionAccept"] = server_accept(r)
    if r.random() < 0.3:
        c_opts["perMessageCompressionOffers"] = client_offers(r)
        c_opts["perMessageCompressionAccept"] = client_accept(r)
        if "perMessageCompressionAccept" not in s_opts and r.random() < 0.7:
            s_opts["perMessageCompressionAccept"] = server_accept(r)
    if r.random() < 0.12:
        s_opts["maxMessagePayloadSize"] = r.choice([100, 1000, 60000])
    if r.random() < 0.1:
        s_opts["maxFramePayloadSize"] = r.choice([64, 1000])
    if r.random() < 0.08:
        c_opts["maxMessagePayloadSize"] = r.choice([100, 4000])
    if r.random() < 0.1:
        c_opts["autoFragmentSize"] = r.choice([1024, 8192])
    if r.random() < 0.1:
        s_opts["autoFragmentSize"] = r.choice([1024, 8192])
    if r.random() < 0.25:
        s_opts["failByDrop"] = False
    if r.random() < 0.2:
        c_opts["failByDrop"] = False
    if r.random() < 0.2:
        s_opts["echoCloseCodeReason"] = True
    if r.random() < 0.1:
        c_opts["echoCloseCodeReason"] = True
    if r.random() < 0.15:
        s_opts["autoPingInterval"] = r.choice([0.04, 0.1])
        s_opts["autoPingTimeout"] = r.choice([0, 0.01, 0.5])
        s_opts["autoPingSize"] = r.choice([12, 32, 125])
        s_opts["autoPingRestartOnAnyTraffic"] = r.random() < 0.5
    if r.random() < 0.12:
        c_opts["autoPingInterval"] = r.choice([0.04, 0.1])
        c_opts["autoPingTimeout"] = r.choice([0, 0.5])
    if r.random() < 0.08:
        s_opts["maskServerFrames"] = True
        c_opts["acceptMaskedServerFrames"] = r.random() < 0.6
    if r.random() < 0.05:
        c_opts["maskClientFrames"] = False
        s_opts["requireMaskedClientFrames"] = r.random() < 0.6
    if r.random() < 0.06:
        s_opts["utf8validateIncoming"] = False
    if r.random() < 0.1:
        c_opts["serverConnectionDropTimeout"] = r.choice([0.05, 0.3])
    if r.random() < 0.1:
        s_opts["closeHandshakeTimeout"] = r.choice([0.05, 0.2])
        c_opts["closeHandshakeTimeout"] = r.choice([0.05, 0.2])
    if r.random() < 0.08:
        s_opts["openHandshakeTimeout"] = r.choice([0.02, 1])
        c_opts["openHandshakeTimeout"] = r.choice([0.05, 1])
    if r.random() < 0.06:
        s_opts["versions"] = r.choice([[8], [13], [8, 13]])
        c_opts["version"] = r.choice([10, 18])
    if r.random() < 0.08:
        s_opts["allowedOrigins"] = r.choice([["http://example.com"], ["http://*.bench.test"], ["*"]])
        s_opts["allowNullOrigin"] = r.random() < 0.5
    if r.random() < 0.04:
        s_opts["maxConnections"] = 1
    if r.random() < 0.06:
        s_opts["trustXForwardedFor"] = r.choice([1, 2])
    if r.random() < 0.05:
        s_opts["webStatus"] = False
    if r.random() < 0.04:
        s_opts["serveFlashSocketPolicy"] = True
    if r.random() < 0.04:
        s_opts["tcpNoDelay"] = False
    server_factory.setProtocolOptions(**s_opts)
    client_factory.setProtocolOptions(**c_opts)
    for f in (server_factory, client_factory):
        f.logOctets = r.random() < 0.15
        f.logFrames = r.random() < 0.2
        f.trackTimings = r.random() < 0.1


async def close_server(server):
    server.close()
    try:
        await asyncio.wait_for(server.wait_closed(), 1)
    except Exception:  # noqa: BLE001
        pass


def new_server_factory(r, port, protocols):
    sf = WebSocketServerFactory("ws://%s:%d" % (HOST, port), protocols=protocols,
                                server=r.choice([None, "BenchServer/1.0"]),
                                headers=r.choice([None, {"X-Server": "bench"}]),
                                externalPort=r.choice([None, None, None, port, port + 1]))
    sf.protocol = BenchServerProtocol
    return sf


async def case_ws(g, r):
    port = free_port()
    protocols = r.choice([[], [], ["chat"], ["chat", "superchat"], ["v2.bench", "v1.bench"]])
    sf = new_server_factory(r, port, protocols if r.random() < 0.85 else ["other"])
    sf.bench = ServerBehaviour(r)
    server = await g.loop.create_server(g.track(sf), HOST, port)
    proxy = None
    try:
        path = r.choice(["/", "/ws", "/chat?room=1", "/a/b/c"])
        url = "ws://%s:%d%s" % (HOST, port, path)
        ckw = {}
        if protocols and r.random() < 0.9:
            ckw["protocols"] = r.sample(protocols, r.randint(1, len(protocols)))
        if r.random() < 0.3:
            ckw["headers"] = r.choice([{"X-Forwarded-For": "10.0.0.1, 10.0.0.2"}, {"Authorization": "Bearer abc"},
                                       {"Cookie": "session=42"}])
        if r.random() < 0.2:
            ckw["useragent"] = r.choice(["bench/1.0", ""])
        if r.random() < 0.15:
            ckw["origin"] = r.choice(["http://example.com", "http://app.bench.test", "null", "http://evil.test:81"])
        if r.random() < 0.08:
            proxy = await start_proxy(r, port)
            ckw["proxy"] = {"host": HOST, "port": proxy.port}
        cf = WebSocketClientFactory(url, **ckw)
        cf.protocol = BenchClientProtocol
        ws_options(r, sf, cf)
        cs = ClientScript(r)
        cs.origin = ckw.get("origin")
        cf.bench = cs
        if proxy is not None:
            await g.loop.create_connection(g.track(cf), HOST, proxy.port)
        else:
            await g.loop.create_connection(g.track(cf), HOST, port)
        if sf.maxConnections == 1 and r.random() < 0.5:
            cf2 = WebSocketClientFactory(url, **{k: v for k, v in ckw.items() if k != "proxy"})
            cf2.protocol = BenchClientProtocol
            cf2.bench = ClientScript(r)
            await g.loop.create_connection(g.track(cf2), HOST, port)
        await g.settle(cs.closed, 3)
        if cs.task is not None and not cs.task.done():
            await asyncio.wait([cs.task], timeout=0.1)
            cs.task.cancel()
        await asyncio.sleep(0.01)
    finally:
        if proxy is not None:
            await proxy.stop()
        await close_server(server)


# ---------------------------------------------------------------------------
# explicit HTTP CONNECT proxy (generator code, not captured)
# ---------------------------------------------------------------------------
class Proxy:
    def __init__(self, mode, target):
        self.mode = mode
        self.target = target
        self.port = None
        self.server = None

    async def handle(self, reader, writer):
        try:
            await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2)
            if self.mode == "ok":
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                ur, uw = await asyncio.open_connection(HOST, self.target)

                async def pipe(a, b):
                    try:
                        while True:
                            d = await a.read(65536)
                            if not d:
                                break
                            b.write(d)
                            await b.drain()
                    except Exception:  # noqa: BLE001
                        pass
                    finally:
                        b.close()
                await asyncio.gather(pipe(reader, uw), pipe(ur, writer))
                return
            writer.write({"407": b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n",
                          "502": b"HTTP/1.1 502 Bad Gateway\r\n\r\n",
                          "http2": b"HTTP/2.0 200 OK\r\n\r\n",
                          "status": b"HTTP/1.1 two-hundred OK\r\n\r\n",
                          "short": b"HTTP/1.1\r\n\r\n",
                          "noreason": b"HTTP/1.1 403\r\n\r\n"}[self.mode])
            await writer.drain()
            await asyncio.sleep(0.05)
        except Exception:  # noqa: BLE001
            pass
        finally:
            writer.close()

    async def stop(self):
        await close_server(self.server)


async def start_proxy(r, target):
    p = Proxy(pick(r, [(60, "ok"), (10, "407"), (8, "502"), (8, "http2"), (7, "status"), (4, "short"),
                       (3, "noreason")]), target)
    p.server = await asyncio.start_server(p.handle, HOST, 0)
    p.port = p.server.sockets[0].getsockname()[1]
    return p


# ---------------------------------------------------------------------------
# frames for the hand-written peers
# ---------------------------------------------------------------------------
def frame(opcode, payload=b"", fin=True, rsv=0, mask=None, length=None):
    b0 = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(payload) if length is None else length
    if mask is not None:
        payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
    mbit = 0x80 if mask is not None else 0
    if n <= 125 and length is None:
        hdr = bytes([b0, mbit | n])
    elif n <= 0xFFFF and length is None:
        hdr = bytes([b0, mbit | 126]) + struct.pack("!H", n)
    elif length is not None and length <= 125:
        hdr = bytes([b0, mbit | 126]) + struct.pack("!H", n)  # non-minimal encoding
    else:
        hdr = bytes([b0, mbit | 127]) + struct.pack("!Q", n)
    return hdr + (mask or b"") + payload


def close_payload(code, reason=b""):
    return (struct.pack("!H", code) if code is not None else b"") + reason


BAD_FRAMES = {
    # name: (frames as (opcode, payload, fin, rsv, extra)), shared by both directions
    "rsv": [(1, b"reserved bits", True, 3)],
    "rsv4": [(1, b"compressed?", True, 4)],
    "opcode3": [(3, b"", True, 0)],
    "opcode11": [(11, b"", True, 0)],
    "frag-control": [(9, b"ping", False, 0)],
    "big-control": [(9, b"p" * 126, True, 0)],
    "close-len1": [(8, b"\x03", True, 0)],
    "close-999": [(8, close_payload(999, b"low"), True, 0)],
    "close-1005": [(8, close_payload(1005), True, 0)],
    "close-2500": [(8, close_payload(2500), True, 0)],
    "close-5000": [(8, close_payload(5000, b"high"), True, 0)],
    "close-badutf8": [(8, close_payload(1000, b"\xff\xfe"), True, 0)],
    "close-ok": [(8, close_payload(1000, b"normal"), True, 0)],
    "close-4000": [(8, close_payload(4000, b"app specific"), True, 0)],
    "close-empty": [(8, b"", True, 0)],
    "cont-outside": [(0, b"stray continuation", True, 0)],
    "nocont-inside": [(1, b"first part", False, 0), (1, b"second start", True, 0)],
    "text-badutf8": [(1, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited", True, 0)],
    "text-split-utf8": [(1, b"caf\xc3", False, 0), (0, b"\xa9 ok", True, 0)],
    "text-ok": [(1, b"hello from a raw peer", True, 0)],
    "binary-ok": [(2, bytes(range(200)), True, 0)],
    "fragmented-ok": [(1, b"one ", False, 0), (9, b"mid-ping", True, 0), (0, b"two ", False, 0), (0, b"three", True, 0)],
    "ping": [(9, b"raw ping", True, 0)],
    "pong": [(10, b"unsolicited pong", True, 0)],
    "nonminimal-len": [(1, b"x" * 10, True, 0, "nonminimal")],
    "huge-len": [(2, b"", True, 0, "huge")],
    "garbage": [(None, b"\x00\x00\x00\x00 not a frame at all", True, 0)],
}


def encode_frames(spec, mask):
    out = b""
    for item in spec:
        opcode, payload, fin, rsv = item[:4]
        extra = item[4] if len(item) > 4 else None
        m = os.urandom(4) if mask else None
        if opcode is None:
            out += payload
        elif extra == "nonminimal":
            out += frame(opcode, payload, fin, rsv, m, length=len(payload))
        elif extra == "huge":
            out += bytes([0x82, (0x80 if mask else 0) | 127]) + struct.pack("!Q", 1 << 63) + (m or b"")
        else:
            out += frame(opcode, payload, fin, rsv, m)
    return out


# ---------------------------------------------------------------------------
# raw-client: crafted requests and frames against an autobahn server
# ---------------------------------------------------------------------------
GOOD_KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def request_variants(port):
    base = [("Host", "%s:%d" % (HOST, port)), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", GOOD_KEY), ("Sec-WebSocket-Version", "13")]

    def req(line="GET /ws HTTP/1.1", drop=(), add=(), replace=None):
        hs = [(k, v) for k, v in base if k not in drop]
        if replace:
            hs = [(k, replace.get(k, v)) for k, v in hs]
        hs += list(add)
        return (line + "\r\n" + "".join("%s: %s\r\n" % kv for kv in hs) + "\r\n").encode("latin-1")
    return {
        "good": req(),
        "good-proto": req(add=[("Sec-WebSocket-Protocol", "chat, superchat")]),
        "good-ext": req(add=[("Sec-WebSocket-Extensions",
                              "permessage-deflate; client_max_window_bits, x-webkit-deflate-frame")]),
        "good-ext-bad-param": req(add=[("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits=99")]),
        "good-xff": req(add=[("X-Forwarded-For", "192.0.2.7, 198.51.100.9")]),
        "good-origin": req(add=[("Origin", "http://example.com")]),
        "good-null-origin": req(add=[("Origin", "null")]),
        "bad-origin": req(add=[("Origin", "ht!tp://[bad")]),
        "two-origins": req(add=[("Origin", "http://a.test"), ("Origin", "http://b.test")]),
        "v8": req(replace={"Sec-WebSocket-Version": "8"}, add=[("Sec-WebSocket-Origin", "http://example.com")]),
        "bad-line": req(line="GET /ws"),
        "post": req(line="POST /ws HTTP/1.1"),
        "http10": req(line="GET /ws HTTP/1.0"),
        "fragment": req(line="GET /ws#frag HTTP/1.1"),
        "no-host": req(drop=("Host",)),
        "two-hosts": req(add=[("Host", "other.test")]),
        "bad-port": req(replace={"Host": "%s:http" % HOST}),
        "other-port": req(replace={"Host": "%s:%d" % (HOST, port + 7)}),
        "no-upgrade": req(drop=("Upgrade",)),
        "status-page": req(line="GET /?x=1 HTTP/1.1", drop=("Upgrade",)),
        "redirect": req(line="GET /?redirect=http%3A%2F%2Fexample.com%2Fdocs HTTP/1.1", drop=("Upgrade",)),
        "redirect-after": req(line="GET /?redirect=http%3A%2F%2Fexample.com%2F&after=2 HTTP/1.1", drop=("Upgrade",)),
        "upgrade-h2c": req(replace={"Upgrade": "h2c"}),
        "no-connection": req(drop=("Connection",)),
        "connection-close": req(replace={"Connection": "keep-alive, close"}),
        "hixie": req(drop=("Sec-WebSocket-Version",)),
        "two-versions": req(add=[("Sec-WebSocket-Version", "8")]),
        "version-x": req(replace={"Sec-WebSocket-Version": "thirteen"}),
        "version-99": req(replace={"Sec-WebSocket-Version": "99"}),
        "dup-proto": req(add=[("Sec-WebSocket-Protocol", "chat, chat")]),
        "no-key": req(drop=("Sec-WebSocket-Key",)),
        "two-keys": req(add=[("Sec-WebSocket-Key", GOOD_KEY)]),
        "short-key": req(replace={"Sec-WebSocket-Key": "c2hvcnQ="}),
        "key-nopad": req(replace={"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQxx"}),
        "key-badchar": req(replace={"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25j*Q=="}),
        "two-ext": req(add=[("Sec-WebSocket-Extensions", "permessage-deflate"),
                            ("Sec-WebSocket-Extensions", "permessage-bzip2")]),
        "garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 TLS hello?\r\n\r\n",
        "bad-header": b"GET /ws HTTP/1.1\r\nHost %s\r\n\r\n" % HOST.encode(),
        "flash": b"<policy-file-request/>\x00",
        "partial": req()[:40],
    }


async def case_raw_client(g, r):
    port = free_port()
    sf = new_server_factory(r, port, r.choice([[], ["chat"], ["chat", "superchat"]]))
    sf.bench = ServerBehaviour(r)
    opts = {}
    if r.random() < 0.3:
        opts["openHandshakeTimeout"] = r.choice([0.05, 0.1])
    if r.random() < 0.3:
        opts["closeHandshakeTimeout"] = r.choice([0.05, 0.1])
    if r.random() < 0.4:
        opts["failByDrop"] = False
    if r.random() < 0.3:
        opts["allowedOrigins"] = r.choice([["http://example.com"], ["http://*.test"]])
    if r.random() < 0.3:
        opts["trustXForwardedFor"] = 1
    if r.random() < 0.2:
        opts["webStatus"] = False
    name = pick(r, [(40, "good"), (3, "flash")] + [(1.5, n) for n in sorted(request_variants(port))
                                                   if n not in ("good", "flash")])
    if r.random() < (0.8 if name == "flash" else 0.2):
        opts["serveFlashSocketPolicy"] = True
    if r.random() < 0.3:
        opts["perMessageCompressionAccept"] = server_accept(r)
    if r.random() < 0.2:
        opts["versions"] = [13]
    if r.random() < 0.15:
        opts["maxFramePayloadSize"] = 16
    if r.random() < 0.15:
        opts["autoPingInterval"] = 0.02
        opts["autoPingTimeout"] = r.choice([0.02, 0.2])
    sf.setProtocolOptions(**opts)
    sf.logFrames = r.random() < 0.2
    sf.logOctets = r.random() < 0.15
    server = await g.loop.create_server(g.track(sf), HOST, port)
    writer = None
    try:
        reader, writer = await asyncio.open_connection(HOST, port)
        variants = request_variants(port)
        if r.random() < 0.08:
            await asyncio.sleep(0.15)  # say nothing: the opening handshake times out (if set)
        data = variants[name]
        if r.random() < 0.15 and len(data) > 20:  # trickle the request
            for i in range(0, len(data), 17):
                writer.write(data[i:i + 17])
                await writer.drain()
                await asyncio.sleep(0.001)
        else:
            writer.write(data)
            await writer.drain()
        try:
            await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 0.5)
        except Exception:  # noqa: BLE001
            return
        for _ in range(r.randint(1, 4)):
            spec = BAD_FRAMES[r.choice(sorted(BAD_FRAMES))]
            writer.write(encode_frames(spec, mask=r.random() < 0.85))
            await writer.drain()
            await asyncio.sleep(0.005)
        k = r.random()
        if k < 0.5:
            writer.write(encode_frames([(8, close_payload(1000, b"bye"), True, 0)], mask=True))
            await writer.drain()
        try:
            await asyncio.wait_for(reader.read(65536), r.choice([0.05, 0.2]))
        except Exception:  # noqa: BLE001
            pass
    except Exception as e:  # noqa: BLE001
        if DEBUG:
            print("raw client: %r" % e, file=sys.stderr)
    finally:
        if writer is not None:
            writer.close()
        await asyncio.sleep(0.01)
        await close_server(server)


# ---------------------------------------------------------------------------
# raw-server: an autobahn client against a crafted server
# ---------------------------------------------------------------------------
def accept_key(key):
    return base64.b64encode(hashlib.sha1(key.encode() + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest()).decode()


RESPONSES = ["good", "good", "good", "good", "good-proto", "good-deflate", "good-deflate-params", "http10",
             "status-404", "status-x", "short-line", "no-upgrade", "upgrade-h2", "no-connection",
             "connection-close", "no-accept", "bad-accept", "two-accepts", "two-ext", "unknown-ext",
             "deflate-bad-param", "proto-unrequested", "two-protos", "silent", "garbage", "deflate-twice"]


class RawServer:
    def __init__(self, r, response, frames, after):
        self.r = r
        self.response = response
        self.frames = frames
        self.after = after
        self.server = None

    async def handle(self, reader, writer):
        r = self.r
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 2)
            key = ""
            for line in head.decode("latin-1").split("\r\n"):
                if line.lower().startswith("sec-websocket-key:"):
                    key = line.split(":", 1)[1].strip()
            acc = accept_key(key)
            v = self.response
            if v == "silent":
                await asyncio.sleep(0.3)
                return
            if v == "garbage":
                writer.write(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
                await writer.drain()
                await asyncio.sleep(0.05)
                return
            line = {"http10": "HTTP/1.0 101 Switching Protocols", "status-404": "HTTP/1.1 404 Not Found",
                    "status-x": "HTTP/1.1 1o1 Switching", "short-line": "HTTP/1.1"}.get(
                v, "HTTP/1.1 101 Switching Protocols")
            hs = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acc)]
            if v == "no-upgrade":
                hs = hs[1:]
            elif v == "upgrade-h2":
                hs[0] = ("Upgrade", "h2c")
            elif v == "no-connection":
                hs = [hs[0], hs[2]]
            elif v == "connection-close":
                hs[1] = ("Connection", "close")
            elif v == "no-accept":
                hs = hs[:2]
            elif v == "bad-accept":
                hs[2] = ("Sec-WebSocket-Accept", accept_key("x" + key))
            elif v == "two-accepts":
                hs.append(("Sec-WebSocket-Accept", acc))
            elif v == "two-ext":
                hs += [("Sec-WebSocket-Extensions", "permessage-deflate"), ("Sec-WebSocket-Extensions", "x-foo")]
            elif v == "unknown-ext":
                hs.append(("Sec-WebSocket-Extensions", "x-webkit-deflate-frame"))
            elif v == "good-deflate":
                hs.append(("Sec-WebSocket-Extensions", "permessage-deflate"))
            elif v == "good-deflate-params":
                hs.append(("Sec-WebSocket-Extensions",
                           "permessage-deflate; server_no_context_takeover; client_max_window_bits=10"))
            elif v == "deflate-bad-param":
                hs.append(("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits=3"))
            elif v == "deflate-twice":
                hs.append(("Sec-WebSocket-Extensions", "permessage-deflate, permessage-deflate"))
            elif v == "proto-unrequested":
                hs.append(("Sec-WebSocket-Protocol", "v9.unrequested"))
            elif v == "two-protos":
                hs += [("Sec-WebSocket-Protocol", "chat"), ("Sec-WebSocket-Protocol", "chat")]
            elif v == "good-proto":
                hs.append(("Sec-WebSocket-Protocol", "chat"))
            resp = line + "\r\n" + "".join("%s: %s\r\n" % kv for kv in hs) + "\r\n"
            writer.write(resp.encode())
            await writer.drain()
            for spec in self.frames:
                await asyncio.sleep(0.003)
                writer.write(encode_frames(spec, mask=r.random() < 0.1))
                await writer.drain()
            # read what the client says, then stay open or drop
            end = time.monotonic() + 0.3
            while time.monotonic() < end:
                try:
                    d = await asyncio.wait_for(reader.read(65536), 0.1)
                except asyncio.TimeoutError:
                    continue
                if not d:
                    break
                if self.after == "echo-close" and d and (d[0] & 0x0F) == 8:
                    writer.write(encode_frames([(8, close_payload(1000), True, 0)], mask=False))
                    await writer.drain()
                    if r.random() < 0.5:
                        break
                    await asyncio.sleep(0.2)  # never drop TCP: the client's drop timeout fires
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("raw server: %r" % e, file=sys.stderr)
        finally:
            writer.close()


async def case_raw_server(g, r):
    response = r.choice(RESPONSES)
    frames = [BAD_FRAMES[r.choice(sorted(BAD_FRAMES))] for _ in range(r.randint(0, 3))]
    rs = RawServer(r, response, frames, r.choice(["echo-close", "echo-close", "ignore"]))
    rs.server = await asyncio.start_server(rs.handle, HOST, 0)
    port = rs.server.sockets[0].getsockname()[1]
    try:
        ckw = {}
        if r.random() < 0.4 or response in ("good-proto", "proto-unrequested"):
            ckw["protocols"] = r.choice([["chat"], ["chat", "v2"], ["other"]])
        cf = WebSocketClientFactory("ws://%s:%d/raw" % (HOST, port), **ckw)
        cf.protocol = BenchClientProtocol
        opts = {}
        if r.random() < 0.5 or response.startswith(("good-deflate", "deflate")):
            opts["perMessageCompressionOffers"] = client_offers(r)
            opts["perMessageCompressionAccept"] = client_accept(r)
        if r.random() < 0.3:
            opts["openHandshakeTimeout"] = r.choice([0.05, 0.2])
        if r.random() < 0.4:
            opts["serverConnectionDropTimeout"] = r.choice([0.05, 0.1])
        if r.random() < 0.3:
            opts["closeHandshakeTimeout"] = r.choice([0.05, 0.1])
        if r.random() < 0.3:
            opts["acceptMaskedServerFrames"] = True
        if r.random() < 0.3:
            opts["failByDrop"] = False
        if r.random() < 0.2:
            opts["autoPingInterval"] = 0.02
            opts["autoPingTimeout"] = r.choice([0.02, 0.1])
        cf.setProtocolOptions(**opts)
        cf.logFrames = r.random() < 0.2
        cf.logOctets = r.random() < 0.15
        cs = ClientScript(r)
        cf.bench = cs
        await g.loop.create_connection(g.track(cf), HOST, port)
        await g.settle(cs.closed, 1.5)
        if cs.task is not None and not cs.task.done():
            cs.task.cancel()
        await asyncio.sleep(0.01)
    finally:
        await close_server(rs.server)


# ---------------------------------------------------------------------------
# wamp: a stub router (generator code, not captured) and client sessions
# ---------------------------------------------------------------------------
TICKET = "s3cret-ticket"
FAKE_ENC = {"payload": b"\x00\x01 not a cryptobox", "enc_algo": "cryptobox", "enc_key": None, "enc_serializer": "json"}
CRA_SECRET = "cra-secret"
REALM = "realm1"


class RouterPlan:
    """How the stub router behaves for one session."""

    def __init__(self, r, encrypt=False):
        self.r = r
        self.hello = pick(r, [(80, "welcome"), (6, "abort"), (4, "deny-auth"), (3, "early-event"),
                              (2, "silent"), (5, "bad-scram")])
        self.ack_events = r.random() < 0.4
        self.sub_error = r.random() < 0.08
        self.reg_error = r.random() < 0.08
        self.pub_error = r.random() < 0.06
        if encrypt:  # the session encrypts payloads: the router may tamper with them
            self.tamper = pick(r, [(30, None), (12, "topic"), (12, "payload"), (12, "plain"), (12, "fake-enc"),
                                   (11, "result-payload"), (11, "result-topic")])
        else:
            self.tamper = pick(r, [(88, None), (12, "fake-enc")])
        self.crash = pick(r, [(94, None), (2, "open"), (2, "message"), (2, "close")])
        self.revoke = r.random() < 0.1
        self.spontaneous = [pick(r, [(30, "interrupt"), (20, "unregister"), (15, "goodbye"), (10, "result"),
                                     (10, "event"), (10, "error"), (5, "abort")])
                            for _ in range(1 if r.random() < 0.25 else 0)]
        self.progress_steps = r.randint(1, 3)


class StubRouter:
    """Just enough of a WAMP router for one client session (broker and dealer on one peer)."""

    def __init__(self, plan):
        self.plan = plan
        self.r = plan.r
        self._session_id = None  # read by autobahn's server transports (trace records)
        self._authid = None
        self.transport = None
        self.next_id = self.r.randint(1, 10 ** 6)
        self.subs = {}      # topic -> subscription id
        self.procs = {}     # procedure -> registration id
        self.invocations = {}  # invocation id -> call request id
        self.challenge = None
        self.hello_msg = None

    def _id(self):
        self.next_id += 1
        return self.next_id

    def onOpen(self, transport):
        if self.plan.crash == "open":
            raise RuntimeError("router realm not started")
        self.transport = transport

    def onClose(self, wasClean):
        self.transport = None
        if self.plan.crash == "close":
            raise RuntimeError("router failed to detach session")

    def send(self, msg):
        t = self.transport
        if t is not None and t.isOpen():
            try:
                t.send(msg)
            except Exception as e:  # noqa: BLE001
                if DEBUG:
                    print("router send: %r" % e, file=sys.stderr)

    def close_soon(self):
        t = self.transport
        if t is not None:
            asyncio.get_event_loop().call_later(0.01, lambda: t.isOpen() and t.close())

    def welcome(self, authmethod="anonymous", authextra=None):
        self._session_id = self._id()
        self._authid = (self.hello_msg.authid if self.hello_msg else None) or "anon-%d" % self.r.randint(1, 99)
        roles = {"broker": role.RoleBrokerFeatures(publisher_identification=True, pattern_based_subscription=True,
                                                   x_acknowledged_event_delivery=self.plan.ack_events),
                 "dealer": role.RoleDealerFeatures(progressive_call_results=True, call_canceling=True,
                                                   caller_identification=True, call_timeout=True)}
        self.send(message.Welcome(self._session_id, roles, realm=REALM, authid=self._authid, authrole="user",
                                  authmethod=authmethod, authprovider="static", authextra=authextra))
        loop = asyncio.get_event_loop()
        for what in self.plan.spontaneous:
            loop.call_later(self.r.choice([0.005, 0.03, 0.08]), self.spontaneous, what)

    def spontaneous(self, what):
        if self.transport is None or self._session_id is None:
            return
        if what == "interrupt":
            self.send(message.Interrupt(self._id(), mode=message.Cancel.KILL))
        elif what == "unregister" and self.procs:
            proc = sorted(self.procs)[0]
            self.send(message.Unregistered(0, self.procs.pop(proc), reason="wamp.error.revoked"))
        elif what == "unregister":
            self.send(message.Unregistered(0, self._id(), reason="wamp.error.revoked"))
        elif what == "goodbye":
            self.send(message.Goodbye(reason="wamp.close.system_shutdown", message="router going down"))
        elif what == "result":
            self.send(message.Result(self._id(), args=["stray"]))
        elif what == "event":
            self.send(message.Event(self._id(), self._id(), args=["for nobody"]))
        elif what == "error":
            self.send(message.Error(message.Call.MESSAGE_TYPE, self._id(), "wamp.error.runtime_error"))
        elif what == "abort":
            self.send(message.Abort("wamp.error.protocol_violation", "router changed its mind"))

    def onMessage(self, msg):
        p, r = self.plan, self.r
        if isinstance(msg, message.Hello):
            self.hello_msg = msg
            methods = msg.authmethods or []
            if p.hello == "abort":
                self.send(message.Abort(r.choice(["wamp.error.no_such_realm", "wamp.error.not_authorized"]),
                                        "realm '%s' does not exist" % msg.realm))
                self.close_soon()
            elif p.hello == "early-event":
                self.send(message.Event(1, 2, args=["too early"]))
            elif p.hello == "silent":
                pass
            elif methods and methods[0] in ("ticket", "wampcra", "cryptosign"):
                m = methods[0]
                if m == "ticket":
                    extra = {}
                elif m == "wampcra":
                    extra = {"challenge": '{"nonce": "%d", "authid": "%s"}' % (r.randint(0, 10 ** 9), msg.authid)}
                    if r.random() < 0.4:
                        extra.update(salt="salt123", iterations=100, keylen=32)
                else:
                    extra = {"challenge": "%064x" % r.getrandbits(256)}
                self.challenge = (m, extra)
                self.send(message.Challenge(m, extra))
            elif p.hello == "bad-scram":
                self.welcome("scram", {"scram_server_signature": base64.b64encode(b"not the signature").decode()})
            else:
                self.welcome()
        elif isinstance(msg, message.Authenticate):
            m, extra = self.challenge or ("ticket", {})
            ok = p.hello != "deny-auth"
            if m == "ticket":
                ok = ok and msg.signature == TICKET
            elif m == "wampcra":
                key = CRA_SECRET.encode()
                if "salt" in extra:
                    key = wamp_auth.derive_key(key, extra["salt"], extra["iterations"], extra["keylen"])
                ok = ok and msg.signature == wamp_auth.compute_wcs(key, extra["challenge"].encode()).decode()
            if ok:
                self.welcome(m)
            else:
                self.send(message.Abort("wamp.error.not_authorized", "authentication failed"))
                self.close_soon()
        elif isinstance(msg, message.Goodbye):
            self.send(message.Goodbye(reason="wamp.close.goodbye_and_out"))
            self._session_id = None
        elif isinstance(msg, message.Abort):
            self._session_id = None
            self.close_soon()
        elif isinstance(msg, message.Subscribe):
            if p.sub_error and r.random() < 0.5:
                self.send(message.Error(message.Subscribe.MESSAGE_TYPE, msg.request, "wamp.error.not_authorized",
                                        args=["not allowed to subscribe to '%s'" % msg.topic]))
            else:
                sid = self.subs.setdefault(msg.topic, self._id())
                self.send(message.Subscribed(msg.request, sid))
        elif isinstance(msg, message.Unsubscribe):
            topic = [t for t, s in self.subs.items() if s == msg.subscription]
            if topic:
                del self.subs[topic[0]]
                self.send(message.Unsubscribed(msg.request))
            else:
                self.send(message.Error(message.Unsubscribe.MESSAGE_TYPE, msg.request, "wamp.error.no_such_subscription"))
        elif isinstance(msg, message.Publish):
            pub = self._id()
            if p.pub_error and r.random() < 0.5:
                if msg.acknowledge:
                    self.send(message.Error(message.Publish.MESSAGE_TYPE, msg.request, "wamp.error.invalid_uri",
                                            args=["invalid topic URI '%s'" % msg.topic]))
                return
            if msg.acknowledge:
                self.send(message.Published(msg.request, pub))
            sid = self.subs.get(msg.topic)
            if sid is not None and msg.exclude_me is False:
                topic = msg.topic
                kw = dict(args=msg.args, kwargs=msg.kwargs, publisher=self._session_id,
                          x_acknowledged_delivery=p.ack_events and r.random() < 0.7)
                if msg.payload is not None:
                    payload = msg.payload
                    if p.tamper == "payload":
                        payload = payload[:-4] + b"XXXX"
                    if p.tamper == "topic":
                        topic = topic + ".other"
                    kw.update(payload=payload, enc_algo=msg.enc_algo, enc_key=msg.enc_key,
                              enc_serializer=msg.enc_serializer)
                    kw.pop("args")
                    kw.pop("kwargs")
                elif p.tamper == "fake-enc":
                    kw.update(FAKE_ENC)
                    kw.pop("args")
                    kw.pop("kwargs")
                self.send(message.Event(sid, pub, topic=topic, **kw))
        elif isinstance(msg, message.Register):
            if msg.procedure in self.procs or (p.reg_error and r.random() < 0.5):
                self.send(message.Error(message.Register.MESSAGE_TYPE, msg.request,
                                        "wamp.error.procedure_already_exists",
                                        args=["register for already registered procedure '%s'" % msg.procedure]))
            else:
                self.procs[msg.procedure] = self._id()
                self.send(message.Registered(msg.request, self.procs[msg.procedure]))
                if p.revoke:
                    asyncio.get_event_loop().call_later(0.003, self.send, message.Unregistered(
                        0, self.procs[msg.procedure], reason="wamp.error.revoked"))
        elif isinstance(msg, message.Unregister):
            proc = [k for k, v in self.procs.items() if v == msg.registration]
            if proc:
                del self.procs[proc[0]]
                self.send(message.Unregistered(msg.request))
            else:
                self.send(message.Error(message.Unregister.MESSAGE_TYPE, msg.request, "wamp.error.no_such_registration"))
        elif isinstance(msg, message.Call):
            if p.crash == "message":
                raise RuntimeError("dealer crashed routing '%s'" % msg.procedure)
            self.call(msg)
        elif isinstance(msg, message.Yield):
            req = self.invocations.get(msg.request)
            if req is None:
                return
            if not msg.progress:
                del self.invocations[msg.request]
            kw = dict(args=msg.args, kwargs=msg.kwargs, progress=msg.progress)
            if msg.payload is not None:
                kw = dict(payload=msg.payload, enc_algo=msg.enc_algo, enc_key=msg.enc_key,
                          enc_serializer=msg.enc_serializer, progress=msg.progress)
                if p.tamper in ("payload", "result-payload"):
                    kw["payload"] = msg.payload[:-4] + b"XXXX"
            elif p.tamper == "fake-enc":
                kw = dict(FAKE_ENC, progress=msg.progress)
            self.send(message.Result(req, **kw))
        elif isinstance(msg, message.Error) and msg.request_type == message.Invocation.MESSAGE_TYPE:
            req = self.invocations.pop(msg.request, None)
            if req is not None:
                kw = dict(args=msg.args, kwargs=msg.kwargs)
                if msg.payload is not None:
                    kw = dict(payload=msg.payload if p.tamper != "result-payload" else msg.payload[:-4] + b"XXXX",
                              enc_algo=msg.enc_algo, enc_key=msg.enc_key, enc_serializer=msg.enc_serializer)
                elif p.tamper == "fake-enc":
                    kw = dict(FAKE_ENC)
                error = msg.error + (".other" if p.tamper == "result-topic" else "")
                self.send(message.Error(message.Call.MESSAGE_TYPE, req, error, **kw))
        elif isinstance(msg, message.Cancel):
            inv = [i for i, c in self.invocations.items() if c == msg.request]
            if inv:
                self.send(message.Interrupt(inv[0], mode=msg.mode or message.Cancel.KILLNOWAIT))
            self.send(message.Error(message.Call.MESSAGE_TYPE, msg.request, "wamp.error.canceled"))
        elif isinstance(msg, message.EventReceived):
            pass

    def call(self, msg):
        p = self.plan
        proc = msg.procedure
        if proc in self.procs:
            inv = self._id()
            self.invocations[inv] = msg.request
            kw = dict(args=msg.args, kwargs=msg.kwargs)
            if msg.payload is not None:
                payload = msg.payload
                if p.tamper == "payload":
                    payload = payload[:-4] + b"XXXX"
                kw = dict(payload=payload, enc_algo=msg.enc_algo, enc_key=msg.enc_key, enc_serializer=msg.enc_serializer)
                if p.tamper == "plain":
                    kw = dict(args=["plain"], kwargs=None)
            elif p.tamper == "fake-enc":
                kw = dict(FAKE_ENC)
            self.send(message.Invocation(inv, self.procs[proc], receive_progress=msg.receive_progress,
                                         caller=self._session_id, procedure=proc if p.tamper != "topic" else proc + ".x",
                                         **kw))
        elif proc == "com.router.echo":
            if msg.payload is not None:
                pl = msg.payload if p.tamper != "payload" else msg.payload[:-4] + b"XXXX"
                if p.tamper == "plain":
                    self.send(message.Result(msg.request, args=["plain"], enc_algo=None))
                else:
                    self.send(message.Result(msg.request, payload=pl, enc_algo=msg.enc_algo, enc_key=msg.enc_key,
                                             enc_serializer=msg.enc_serializer))
            elif p.tamper == "fake-enc":
                self.send(message.Result(msg.request, **FAKE_ENC))
            else:
                self.send(message.Result(msg.request, args=msg.args, kwargs=msg.kwargs))
        elif proc == "com.router.progress":
            steps = p.progress_steps
            loop = asyncio.get_event_loop()
            for i in range(steps):
                loop.call_later(0.002 * (i + 1), self.send,
                                message.Result(msg.request, args=[i], progress=bool(msg.receive_progress)))
            loop.call_later(0.002 * (steps + 1), self.send, message.Result(msg.request, args=["done"]))
        elif proc == "com.router.kw":
            self.send(message.Result(msg.request, args=[1, 2], kwargs={"total": 3}))
        elif proc == "com.router.fail":
            if p.tamper == "fake-enc":
                self.send(message.Error(message.Call.MESSAGE_TYPE, msg.request, "com.router.error.quota", **FAKE_ENC))
            else:
                self.send(message.Error(message.Call.MESSAGE_TYPE, msg.request, "com.router.error.quota",
                                        args=["quota exceeded"], kwargs={"limit": 10}))
        elif proc == "com.router.slow":
            pass  # never answers: the caller cancels or times out
        else:
            self.send(message.Error(message.Call.MESSAGE_TYPE, msg.request, "wamp.error.no_such_procedure",
                                    args=["no callee registered for procedure <%s>" % proc]))


class SessionScript:
    """What the client session does once joined."""

    def __init__(self, r):
        self.r = r
        self.factory_raise = r.random() < 0.015
        self.close_raise = r.random() < 0.02
        self.auth = pick(r, [(70, None), (10, "ticket"), (8, "wampcra"), (7, "cryptosign"), (5, "bad-ticket")])
        self.onconnect = pick(r, [(60, "super"), (40, "join")])
        self.welcome_deny = r.random() < 0.03
        self.challenge_raise = r.random() < 0.03
        self.join_raise = r.random() < 0.04
        self.leave_raise = r.random() < 0.03
        self.disconnect_raise = r.random() < 0.03
        self.observer_raise = r.random() < 0.03
        self.encrypt = r.random() < 0.2
        self.ending = pick(r, [(55, "leave"), (10, "leave-twice"), (10, "disconnect"), (8, "leave-reason"),
                               (7, "leave-outstanding"), (10, "none")])
        self.done = asyncio.get_event_loop().create_future()


def make_keyring(r):
    from autobahn.wamp.cryptobox import Key, KeyRing
    ring = KeyRing()
    priv, _ = ring.generate_key()
    priv2, _ = ring.generate_key()
    ring.set_key("com.bench", Key(originator_priv=priv, responder_priv=priv))
    if r.random() < 0.3:
        ring.set_key("com.bench.secret", Key(originator_priv=priv, responder_priv=priv2))
    return ring


class BenchSession(ApplicationSession):
    def onConnect(self):
        s = self.config.extra["script"]
        if s.observer_raise:
            def bad_observer(*a):
                raise RuntimeError("observer failed")
            self.on(self.config.extra["r"].choice(["join", "ready", "connect", "leave"]), bad_observer)
        if s.auth is None:
            if s.onconnect == "super":
                return super().onConnect()
            self.join(REALM, authid=s.r.choice([None, "alice"]))
            return
        self.join(REALM, authmethods=["cryptosign" if s.auth == "cryptosign" else
                                      "ticket" if s.auth in ("ticket", "bad-ticket") else s.auth],
                  authid="alice", authextra={"pubkey": "00" * 32} if s.auth == "cryptosign" else None)

    def onChallenge(self, challenge):
        s = self.config.extra["script"]
        if s.challenge_raise:
            raise ValueError("no credentials for %s" % challenge.method)
        if challenge.method == "ticket":
            return TICKET if s.auth == "ticket" else "wrong-ticket"
        if challenge.method == "wampcra":
            key = CRA_SECRET.encode()
            if "salt" in challenge.extra:
                key = wamp_auth.derive_key(key, challenge.extra["salt"], challenge.extra["iterations"],
                                           challenge.extra["keylen"])
            return wamp_auth.compute_wcs(key, challenge.extra["challenge"].encode())
        return "00" * 64

    def onWelcome(self, msg):
        s = self.config.extra["script"]
        if msg.authmethod == "scram":
            return "unexpected SCRAM welcome"
        if s.welcome_deny:
            return "router identity not trusted"
        return None

    async def onJoin(self, details):
        s = self.config.extra["script"]
        r = s.r
        if s.join_raise and r.random() < 0.5:
            raise RuntimeError("onJoin blew up")
        if s.encrypt:
            self.set_payload_codec(make_keyring(r))
        events = []
        try:
            for _ in range(r.randint(1, 6)):
                await self.operation(r, events)
        except Exception as e:  # noqa: BLE001 (ApplicationError, TransportLost, cancellations)
            if DEBUG:
                print("session op: %r" % e, file=sys.stderr)
        await asyncio.sleep(0.01)
        if s.join_raise:
            raise ApplicationError("com.bench.error.late", "failure after the operations")
        try:
            if s.ending == "leave":
                self.leave()
            elif s.ending == "leave-twice":
                self.leave()
                self.leave()
            elif s.ending == "leave-reason":
                self.leave("com.bench.close.maintenance", "going for maintenance")
            elif s.ending == "leave-outstanding":
                self.call("com.router.slow")
                self.subscribe(lambda *a: None, "com.bench.pending")
                self.leave()
            elif s.ending == "disconnect":
                self.disconnect()
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("session end: %r" % e, file=sys.stderr)

    async def operation(self, r, events):
        k = pick(r, [(18, "pubsub"), (18, "rpc-own"), (14, "rpc-router"), (6, "progress"), (5, "cancel"),
                     (5, "unsub"), (4, "unreg"), (4, "bad-payload"), (3, "sleep"), (1.5, "ack-lost"),
                     (1.5, "rpc-lost")])
        topic = "com.bench.%s" % r.choice(["news", "ticks", "secret", "alerts"])
        if k == "pubsub":
            mode = pick(r, [(70, "ok"), (15, "raise"), (10, "apperror"), (5, "details")])

            def handler(*args, **kwargs):
                events.append(args)
                if mode == "raise":
                    raise KeyError("missing field 'price'")
                if mode == "apperror":
                    raise ApplicationError("com.bench.error.rejected", "event rejected", code=3)
            opts = types.SubscribeOptions(details=True) if mode == "details" else None
            if mode == "details":
                def handler(*args, details=None, **kwargs):  # noqa: F811
                    events.append(details)
            await self.subscribe(handler, topic, options=opts)
            for _ in range(r.randint(1, 3)):
                ack = r.random() < 0.6
                f = self.publish(topic, r.randint(0, 99), "payload", unit=r.choice(["EUR", "USD"]),
                                 options=types.PublishOptions(acknowledge=ack, exclude_me=False))
                if ack:
                    await f
            await asyncio.sleep(0.005)
        elif k == "rpc-own":
            proc = "com.bench.%s" % r.choice(["add", "div", "secret.add", "echo"])
            mode = pick(r, [(60, "ok"), (12, "apperror"), (12, "raise"), (8, "unserializable"), (8, "calldetails")])

            def endpoint(*args, **kwargs):
                if mode == "apperror":
                    raise ApplicationError("com.bench.error.invalid_argument", "division by zero", args=list(args))
                if mode == "raise":
                    return 1 / 0
                if mode == "unserializable":
                    return object()
                return sum(a for a in args if isinstance(a, int))
            ropts = types.RegisterOptions(details_arg="details") if mode == "calldetails" else None
            if mode == "calldetails":
                def endpoint(a, b, details=None):  # noqa: F811
                    if details and details.progress:
                        details.progress(a)
                    return a + b
            try:
                await self.register(endpoint, proc, options=ropts)
            except ApplicationError:
                pass
            for _ in range(r.randint(1, 3)):
                copts = types.CallOptions(on_progress=lambda *a: None) if mode == "calldetails" and r.random() < 0.5 else None
                try:
                    await self.call(proc, r.randint(0, 9), r.randint(0, 9), options=copts)
                except ApplicationError:
                    pass
        elif k == "rpc-router":
            proc = r.choice(["com.router.echo", "com.router.kw", "com.router.fail", "com.router.nosuch",
                             "com.bench.echo"])
            try:
                await self.call(proc, "ping", r.randint(0, 9), flag=True)
            except ApplicationError:
                pass
        elif k == "progress":
            raising = r.random() < 0.3

            def on_progress(i):
                if raising:
                    raise RuntimeError("progress handler failed at %s" % i)
            await self.call("com.router.progress", options=types.CallOptions(on_progress=on_progress))
        elif k == "cancel":
            own = r.random() < 0.5
            if own:
                async def slow(*a):
                    await asyncio.sleep(1)
                    return "late"
                try:
                    await self.register(slow, "com.bench.slow")
                except ApplicationError:
                    pass
            f = self.call("com.bench.slow" if own else "com.router.slow", options=types.CallOptions(timeout=1))
            await asyncio.sleep(0.01)
            f.cancel()
            try:
                await f
            except (asyncio.CancelledError, ApplicationError):
                pass
        elif k == "unsub":
            sub = await self.subscribe(lambda *a: None, topic + ".temp")
            await sub.unsubscribe()
        elif k == "unreg":
            reg = await self.register(lambda *a: None, "com.bench.temp%d" % r.randint(0, 9))
            await reg.unregister()
        elif k == "bad-payload":
            try:
                self.publish(topic, object())
            except Exception:  # noqa: BLE001
                pass
        elif k == "sleep":
            await asyncio.sleep(0.03)
        elif k == "ack-lost":  # the transport goes while an event handler still runs
            async def slow_handler(*args):
                await asyncio.sleep(0.02)
            await self.subscribe(slow_handler, topic)
            self.publish(topic, 1, options=types.PublishOptions(exclude_me=False))
            await asyncio.sleep(0.005)
            self.disconnect()
            await asyncio.sleep(0.03)
        elif k == "rpc-lost":  # the transport goes while an invoked endpoint still runs
            async def slow_endpoint(*args):
                await asyncio.sleep(0.02)
                return "late result"
            await self.register(slow_endpoint, "com.bench.slow_report")
            self.call("com.bench.slow_report", 1)
            await asyncio.sleep(0.005)
            self.disconnect()
            await asyncio.sleep(0.03)

    def onLeave(self, details):
        s = self.config.extra["script"]
        if s.leave_raise:
            raise RuntimeError("onLeave cleanup failed")
        return super().onLeave(details)

    def onClose(self, wasClean):
        super().onClose(wasClean)
        if self.config.extra["script"].close_raise:
            raise RuntimeError("session cleanup failed")

    def onDisconnect(self):
        s = self.config.extra["script"]
        if not s.done.done():
            s.done.set_result(True)
        if s.disconnect_raise:
            raise RuntimeError("onDisconnect handler failed")
        return super().onDisconnect()


SERIALIZERS = [JsonSerializer, MsgPackSerializer, UBJSONSerializer]


def pick_serializers(r):
    return [cls(batched=r.random() < 0.2) for cls in r.sample(SERIALIZERS, r.randint(1, 3))]


async def case_wamp(g, r):
    script = SessionScript(r)
    plan = RouterPlan(r, script.encrypt)
    transport = pick(r, [(82, "websocket"), (18, "rawsocket")])
    port = free_port()
    router_factory = lambda: StubRouter(plan)  # noqa: E731
    if transport == "websocket":
        sf = WampWebSocketServerFactory(router_factory, "ws://%s:%d/ws" % (HOST, port),
                                        serializers=pick_serializers(r) if r.random() < 0.3 else None)
        sf.setProtocolOptions(failByDrop=r.random() < 0.5)
    else:
        sf = WampRawSocketServerFactory(router_factory, serializers=pick_serializers(r) if r.random() < 0.3 else None)
    server = await g.loop.create_server(g.track(sf), HOST, port)
    try:
        if r.random() < 0.15:
            await component_session(g, r, script, transport, port)
            return
        cfg = types.ComponentConfig(REALM, extra={"script": script, "r": r})

        def session_factory():
            if script.factory_raise:
                raise RuntimeError("cannot create session: configuration incomplete")
            return BenchSession(cfg)
        if transport == "websocket":
            cf = WampWebSocketClientFactory(session_factory, "ws://%s:%d/ws" % (HOST, port),
                                            serializers=pick_serializers(r) if r.random() < 0.4 else None)
            if r.random() < 0.15:
                cf.setProtocolOptions(perMessageCompressionOffers=client_offers(r),
                                      perMessageCompressionAccept=client_accept(r))
            cf.logFrames = r.random() < 0.05
        else:
            cf = WampRawSocketClientFactory(session_factory,
                                            serializer=r.choice(SERIALIZERS)() if r.random() < 0.6 else None)
        await g.loop.create_connection(g.track(cf), HOST, port)
        await g.settle(script.done, 0.3 if plan.hello == "silent" else 1.5)
        await asyncio.sleep(0.01)
    finally:
        await close_server(server)


async def component_session(g, r, script, transport, port):
    """The same session driven through autobahn's Component (connect, retries, main/on_join)."""
    dead = r.random() < 0.25
    t = {"type": transport, "url": "%s://%s:%d/ws" % ("ws" if transport == "websocket" else "rs", HOST,
                                                       free_port() if dead else port),
         "endpoint": {"type": "tcp", "host": HOST, "port": free_port() if dead else port},
         "max_retries": r.choice([0, 1, 2]), "initial_retry_delay": 0.01, "max_retry_delay": 0.02,
         "retry_delay_jitter": 0}
    if transport == "rawsocket":
        t["serializer"] = r.choice(["json", "msgpack"])
    else:
        t["serializers"] = r.sample(["json", "msgpack", "ubjson"], r.randint(1, 2))
    auth = {}
    if script.auth == "ticket":
        auth = {"ticket": {"authid": "alice", "ticket": TICKET}}
    elif script.auth == "bad-ticket":
        auth = {"ticket": {"authid": "alice", "ticket": "nope"}}
    elif script.auth == "wampcra":
        auth = {"wampcra": {"authid": "alice", "secret": CRA_SECRET}}
    elif script.auth == "cryptosign":
        auth = {"cryptosign": {"authid": "alice", "privkey": "%064x" % r.getrandbits(256)}}
    mode = pick(r, [(50, "main"), (30, "on_join"), (20, "main-fail")])

    async def main(loop, session):
        await session.subscribe(lambda *a: None, "com.bench.component")
        await session.publish("com.bench.component", 1, options=types.PublishOptions(acknowledge=True))
        try:
            await session.call("com.router.echo", "component")
        except ApplicationError:
            pass
        if mode == "main-fail":
            raise RuntimeError("main failed")

    comp = Component(transports=[t], realm=REALM, authentication=auth,
                     main=main if mode != "on_join" else None,
                     is_fatal=(lambda e: isinstance(e, ApplicationError)) if r.random() < 0.3 else None)
    g.components.append(comp)
    budget = [r.choice([1, 1, 2])]

    def on_disconnect(session, was_clean):  # give up after one or two sessions
        budget[0] -= 1
        if budget[0] <= 0:
            for tr in comp._transports:
                tr.failed()
    comp.on("disconnect", on_disconnect)
    if r.random() < 0.1:
        def on_start(loop, component):
            raise RuntimeError("start hook failed")
        comp.on("start", on_start)
    if mode == "on_join":
        @comp.on_join
        async def joined(session, details):
            await asyncio.sleep(0.005)
            session.leave()
    try:
        await asyncio.wait_for(comp.start(g.loop if r.random() < 0.9 else None), 2)
    except Exception as e:  # noqa: BLE001
        if DEBUG:
            print("component: %r" % e, file=sys.stderr)
        try:
            await asyncio.wait_for(comp.stop(), 0.5)
        except Exception:  # noqa: BLE001
            pass


# ---------------------------------------------------------------------------
# rawsocket: a WAMP-over-RawSocket transport with a hand-written peer
# ---------------------------------------------------------------------------
async def case_rawsocket(g, r):
    side = pick(r, [(55, "client-vs-raw"), (45, "raw-vs-server")])
    if side == "raw-vs-server":
        port = free_port()
        plan = RouterPlan(r)
        sf = WampRawSocketServerFactory(lambda: StubRouter(plan),
                                        serializers=pick_serializers(r) if r.random() < 0.5 else None)
        server = await g.loop.create_server(g.track(sf), HOST, port)
        writer = None
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
            hs = pick(r, [(30, "json"), (15, "msgpack"), (10, "cbor"), (8, "bad-magic"), (8, "reserved"),
                          (6, "ser9"), (5, "short"), (5, "ubjson")])
            ser = {"json": 1, "msgpack": 2, "cbor": 3, "ubjson": 4, "ser9": 9}.get(hs, 1)
            data = {"bad-magic": bytes([0x7E, 0xF1, 0, 0]), "reserved": bytes([0x7F, 0xF1, 1, 0]),
                    "short": bytes([0x7F])}.get(hs, bytes([0x7F, 0xF0 | ser, 0, 0]))
            writer.write(data)
            await writer.drain()
            try:
                reply = await asyncio.wait_for(reader.readexactly(4), 0.2)
            except Exception:  # noqa: BLE001
                return
            if reply[1] & 0x0F == 0:
                return
            frames = []
            hello = b'[1,"realm1",{"roles":{"subscriber":{},"publisher":{}}}]'
            if hs == "msgpack":
                import msgpack
                hello = msgpack.packb([1, "realm1", {"roles": {"subscriber": {}}}])
            for _ in range(r.randint(1, 3)):
                k = pick(r, [(40, "hello"), (10, "type5"), (10, "huge"), (10, "ping"), (10, "garbage"),
                             (10, "not-hello"), (10, "pong")])
                if k == "hello":
                    frames.append(bytes([0]) + len(hello).to_bytes(3, "big") + hello)
                elif k == "type5":
                    frames.append(bytes([5, 0, 0, 1, 0]))
                elif k == "huge":
                    frames.append(bytes([0, 0xFF, 0xFF, 0xFF]))
                elif k == "ping":
                    frames.append(bytes([1, 0, 0, 4]) + b"ping")
                elif k == "pong":
                    frames.append(bytes([2, 0, 0, 4]) + b"pong")
                elif k == "garbage":
                    frames.append(bytes([0, 0, 0, 9]) + b"{not json")
                else:
                    m = b'[32,1,{},"com.topic"]'
                    frames.append(bytes([0]) + len(m).to_bytes(3, "big") + m)
            for fr in frames:
                writer.write(fr)
                await writer.drain()
                await asyncio.sleep(0.003)
            try:
                await asyncio.wait_for(reader.read(65536), 0.05)
            except Exception:  # noqa: BLE001
                pass
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("rawsocket raw client: %r" % e, file=sys.stderr)
        finally:
            if writer is not None:
                writer.close()
            await asyncio.sleep(0.005)
            await close_server(server)
        return

    # an autobahn client transport against a hand-written RawSocket server
    mode = pick(r, [(20, "ser-unsupported"), (15, "other-ser"), (10, "bad-magic"), (10, "reserved"),
                    (15, "welcome-garbage"), (10, "close"), (10, "type5"), (10, "too-big")])

    async def handle(reader, writer):
        try:
            hs = await asyncio.wait_for(reader.readexactly(4), 1)
            ser = hs[1] & 0x0F
            reply = {"ser-unsupported": bytes([0x7F, 0x10, 0, 0]), "other-ser": bytes([0x7F, 0xF0 | (ser % 3 + 1), 0, 0]),
                     "bad-magic": bytes([0x42, 0xF0 | ser, 0, 0]), "reserved": bytes([0x7F, 0xF0 | ser, 0, 7])}.get(
                mode, bytes([0x7F, 0xF0 | ser, 0, 0]))
            writer.write(reply)
            await writer.drain()
            await asyncio.wait_for(reader.read(65536), 0.2)
            if mode == "welcome-garbage":
                writer.write(bytes([0, 0, 0, 6]) + b"\x00junk!")
            elif mode == "type5":
                writer.write(bytes([6, 0, 0, 0]))
            elif mode == "too-big":
                writer.write(bytes([0, 0xFF, 0xFF, 0xFF]))
            await writer.drain()
            await asyncio.sleep(0.05)
        except Exception:  # noqa: BLE001
            pass
        finally:
            writer.close()

    srv = await asyncio.start_server(handle, HOST, 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        script = SessionScript(r)
        cfg = types.ComponentConfig(REALM, extra={"script": script, "r": r})
        cf = WampRawSocketClientFactory(lambda: BenchSession(cfg), serializer=r.choice(SERIALIZERS)())
        await g.loop.create_connection(g.track(cf), HOST, port)
        await g.settle(script.done, 0.5)
        await asyncio.sleep(0.01)
    finally:
        await close_server(srv)


# ---------------------------------------------------------------------------
# the driver
# ---------------------------------------------------------------------------
class Gen:
    """Runs the cases; every protocol a case creates is tracked and aborted at its end."""

    KINDS = [(34, "ws"), (13, "raw_client"), (11, "raw_server"), (8, "rawsocket"), (34, "wamp")]

    def __init__(self, loop):
        self.loop = loop
        self.failures = 0
        self.protocols = []
        self.components = []

    def track(self, factory):
        """Wrap a protocol factory so the case can abort the connections it leaves open."""
        def make():
            proto = factory()
            self.protocols.append(proto)
            return proto
        return make

    def open_transports(self):
        ts = [getattr(p, "transport", None) for p in self.protocols]
        return [t for t in ts if t is not None and not t.is_closing()]

    async def settle(self, fut, timeout):
        """Wait until fut is done, or every connection of the case is closed, or timeout."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and not fut.done():
            if self.protocols and not self.open_transports():
                break
            await asyncio.sleep(0.01)

    async def cleanup(self):
        comps, self.components = self.components, []
        for comp in comps:  # no more reconnects: the case is over
            for t in comp._transports:
                t.failed()
            try:
                comp.stop()
            except Exception:  # noqa: BLE001
                pass
        ts = self.open_transports()
        self.protocols = []
        for t in ts:
            t.abort()
        if ts or comps:
            await asyncio.sleep(0.01)

    async def run_case(self, cid, r):
        CASE.set(cid)
        kind = pick(r, self.KINDS)
        fn = globals()["case_" + kind]
        t0 = time.time()
        try:
            await asyncio.wait_for(fn(self, r), 10)
        except Exception as e:  # noqa: BLE001
            self.failures += 1
            if DEBUG:
                import traceback
                traceback.print_exc()
                print("case %s (%s): %r" % (cid, kind, e), file=sys.stderr)
        try:
            await asyncio.wait_for(self.cleanup(), 2)
        except Exception:  # noqa: BLE001
            pass
        await asyncio.sleep(0.005)
        if os.environ.get("GEN_PROFILE"):
            sys.stderr.write("%s %s %.3f\n" % (cid, kind, time.time() - t0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    txaio.config.loop = loop
    txaio.set_global_log_level("trace")
    log = TxaioLog(autobahn, a.out, logger_names=[""], wrappers=WRAPPERS)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    if not DEBUG:  # unretrieved future exceptions of failing user handlers are expected
        loop.set_exception_handler(lambda loop, context: None)
    g = Gen(loop)
    t0 = time.time()
    try:
        for i in range(a.cases):
            cid = "ab-%05d" % i
            r = random.Random("%d-%d" % (a.seed, i))
            random.seed("%d-%d-lib" % (a.seed, i))  # autobahn draws masks and ids from the global RNG
            log.case_id = cid
            try:
                loop.run_until_complete(g.run_case(cid, r))
            finally:
                log.end_case()
            loop.run_until_complete(asyncio.sleep(0.002))  # stragglers of this case land outside any case
    finally:
        log.finish()
        for t in asyncio.all_tasks(loop):
            t.cancel()
        loop.run_until_complete(asyncio.sleep(0.05))
        loop.close()
    print("%s; %d records outside any case, %d of an earlier case dropped; %d case errors; %.0fs"
          % (log.summary(), log.outside, log.foreign, g.failures, time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
