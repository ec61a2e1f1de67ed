#!/usr/bin/python3
"""Event log of websockets (Debian python3-websockets 10.4), both of its
implementations: the legacy asyncio one (``websockets.legacy``: ``serve``,
``connect``, ``WebSocketServerProtocol``, ``WebSocketClientProtocol``) and
the sans-I/O one (``websockets.server.ServerConnection`` and
``websockets.client.ClientConnection`` over ``websockets.connection``),
with their peers in this process, on 127.0.0.1 (or ``::1``, or a Unix
socket).

    /usr/bin/python3 gen_websockets.py --out .deps/logs/websockets.csv.gz [--cases 900] [--seed 1] [--jobs 4]
    /usr/bin/python3 gen_websockets.py --repo     # prints the directory to index

Indexed: the installed ``websockets`` directory
(``/usr/lib/python3/dist-packages/websockets``); its C ``speedups``
module runs (masking) and is not indexed.

A case is one of three things, drawn with its own ``random.Random``:

- (about 35%) a sans-I/O connection lifetime: a ``ClientConnection`` and a
  ``ServerConnection`` wired to each other in memory, the bytes of one
  side's ``data_to_send()`` handed to the other's ``receive_data()`` (whole
  or cut into random pieces; ``SEND_EOF`` becomes ``receive_eof()``), each
  driven by a small application written here that reads
  ``events_received()``. The case draws each side's options (origins and
  the client's ``Origin``, permessage-deflate with random parameters or
  none, on one side or both, subprotocol lists, ``max_size``, the logger)
  and the opening handshake: accepted, refused by the library (an origin
  not allowed, no ``Upgrade``/``Connection`` header, a missing, duplicated
  or malformed ``Sec-WebSocket-Key``, a wrong version, a subprotocol
  selector of the application that raises), refused by the application
  (``reject()`` with 401 and ``WWW-Authenticate``, 403, 404, a 302
  redirect, a 200 health check), a request that is not HTTP/1.1 GET from
  a hand-written client (the server application answers 400), a 101
  response the server application edits wrongly (wrong
  ``Sec-WebSocket-Accept``, an extension or subprotocol the client did
  not offer, two subprotocols, no ``Upgrade``), or a response that is not
  HTTP/1.1 (or a 200 or 503) from a hand-written server. Then
  0-12 steps from either side: text (some non-ASCII) and binary messages
  of random sizes (none to ~150 KB), fragmented messages (sometimes with a
  ping between fragments), pings and unsolicited pongs, the server echoing
  what it gets, harmless hand-made frames; and an end: a close from the
  client or the server (codes 1000-1011, 3xxx, 4xxx, with or without a
  reason, or no code), ``fail()`` by an application (1003, 1007 on text
  that is not UTF-8, 1008, 1011), a message over the peer's ``max_size``
  (1009), a hand-made frame that breaks RFC 6455 (reserved bits, unknown
  opcodes, wrong masking, long or fragmented control frames, unexpected or
  missing continuations, close frames too short or with a forbidden code
  or a reason that is not UTF-8, compressed frames without the extension
  or with corrupt deflate data), a transport that drops (``receive_eof``
  on both sides), or nothing. In a few cases both sides also load an
  extension of the application's (``x-frame-stats``, written here) whose
  decoder raises ``KeyError`` on a payload it does not know, and one is
  sent.
- (about 45%) a legacy server lifetime: ``serve`` (one or two hosts, or
  TLS with a throw-away certificate) or ``unix_serve``, with random
  options (compression or explicit ``ServerPerMessageDeflateFactory``
  parameters, ``origins``, ``subprotocols`` and sometimes a
  ``select_subprotocol``, ``extra_headers`` as a mapping or a function,
  ``server_header``, ``process_request`` answering health checks, 401/403,
  404 or raising, ``basic_auth_protocol_factory``, ``ping_interval`` and
  ``ping_timeout`` from 50 ms up or off, ``close_timeout``, ``max_size``,
  ``max_queue``, ``read_limit``/``write_limit``, the logger) and a handler
  that routes on the path (echo, chat with a greeting and a close after N
  messages, a feed of messages some fragmented, a firehose of 16-64 KB
  binary messages, a handler that raises, one that closes at once with a
  code, one that never reads, one that pings, one that sleeps), catching
  ``ConnectionClosed`` or not; a few servers load the ``x-frame-stats``
  extension too, and their clients send it a payload it chokes on. 1-3
  clients connect one after another or at once: legacy ``connect``/
  ``unix_connect`` clients with random options (compression, origin,
  subprotocols, extra headers, user agent, credentials in the URI, pings,
  timeouts, ``max_size``, ``max_queue``) that exchange messages, ping,
  send too much, and close with a code (sometimes an invalid one), abort
  the TCP connection or leave it open for the shutdown; hand-written
  clients on a raw socket that send broken handshakes (missing or wrong
  headers, POST, HTTP/1.0, garbage, an over-long header line, two
  ``Origin`` headers, bad extension or subprotocol headers, nothing) or,
  after a good handshake, frames that break the protocol, corrupt deflate
  data, invalid UTF-8, oversized messages, half frames and resets, or that
  never answer pings or close frames; and sans-I/O ``ClientConnection``
  clients driven by hand over the socket. The server then closes
  (``close()``, ``wait_closed()``), sometimes with a connection still open
  (closed with 1001: a legacy client, a raw client that answers the close
  frame late or never, or a raw client with a 4 KB receive buffer that
  asked for the firehose and stopped reading, so that the server's close
  times out and it aborts the TCP connection) or a client that connected
  just before and sends its request just after (503).
- (about 20%) a legacy client lifetime (``connect``, sometimes the
  reconnecting ``async for`` loop, sometimes a sans-I/O client) against a
  hand-written asyncio server that answers the handshake right or wrong
  (wrong accept key, missing headers, 403/500/200 statuses, redirects,
  redirect loops, redirects without ``Location``, extensions or
  subprotocols not offered or malformed, garbage, HTTP/1.0, no answer
  within ``open_timeout``, 503 before it accepts) and then talks: acks,
  pushed text, binary and fragmented messages (deflated when negotiated),
  pings, a close with a code (valid or not), a frame that breaks the
  protocol, a dropped connection, no answer to pings or to the client's
  close, or a TCP connection it never closes.

The reconnecting loop uses a ``Connect`` subclass with backoff times in
milliseconds (class attributes the library reads), so that a case takes
no seconds. Every timeout of a case is short (tens to hundreds of
milliseconds), and a whole case is bounded by 30 s.

Capture: websockets logs through ``self.logger`` of each connection and
server: ``logging.getLogger("websockets.server")`` or
``"websockets.client"`` by default, or the ``logger=`` the application
passes (a case sometimes hands its own logger, ``chat.ws.*`` or
``gateway.ws.*``, or a ``logging.LoggerAdapter``); the legacy protocol
wraps it in a ``LoggerAdapter`` of its own. The level is websockets' own
(DEBUG, INFO, ERROR), the logger the record's. Most of its lines are at
DEBUG and only logged when ``self.debug`` (the logger enabled for DEBUG
when the connection is made): ``_capture.py``'s handler sits on the
``websockets``, ``chat`` and ``gateway`` loggers (not propagating), all at
DEBUG, set before any connection exists, so every level is captured. The
stdlib adapter frames are skipped by ``logging`` itself: a record's call
site is the websockets line. Some records cannot be rendered: websockets
logs frames with ``"< %s"`` and ``str(frame)`` raises on a text frame that
is not UTF-8 or a close frame with a bad code; ``logging`` would print a
"Logging error" instead of the line, so those records are dropped (and
counted). No function of websockets only forwards a message its caller
hands it: every call site calls the logger itself (the ``state`` setter of
the sans-I/O ``Connection`` renders its own ``= connection is %s``), so no
function is declared a wrapper and ``code.wrapped`` is always 0. Records
logged outside the indexed directory are dropped (none are: the generator
logs nothing itself; asyncio's logger is silenced); so are cases with fewer
than 3 events.

Cases run ``--jobs`` at a time (4: they mostly wait), each worker a
forked process running one case after another with a fresh event loop
per case, so every record of a process belongs to its open case; the
rows come back to the main process and are written in case order.

Determinism: each case draws from ``random.Random("<seed>-<case>")`` and
the global ``random`` module, which websockets uses for ping payloads and
reconnection delays, is seeded the same way at the start of the case. Two
runs with one seed give the same cases with the same messages; the events
differ where timers race the peers (keepalive pings, close timeouts,
concurrent clients). Messages hold ports, Unix socket paths in a temp
dir, ``Sec-WebSocket-Key`` and ``Sec-WebSocket-Accept`` values (from
``secrets``) and ``Date`` headers.
"""
import argparse
import asyncio
import base64
import hashlib
import http
import logging
import multiprocessing
import os
import random
import shutil
import signal
import socket
import ssl
import struct
import sys
import tempfile
import time
import warnings
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import websockets  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(websockets.__file__)))
    sys.exit(0)

import websockets.exceptions as wse  # noqa: E402
import websockets.legacy.client as lclient  # noqa: E402
import websockets.legacy.server as lserver  # noqa: E402
from websockets.client import ClientConnection  # noqa: E402
from websockets.connection import SEND_EOF, State  # noqa: E402
from websockets.extensions.base import (ClientExtensionFactory, Extension,  # noqa: E402
                                        ServerExtensionFactory)
from websockets.extensions.permessage_deflate import (ClientPerMessageDeflateFactory,  # noqa: E402
                                                      ServerPerMessageDeflateFactory)
from websockets.frames import OP_BINARY, Frame  # noqa: E402
from websockets.http11 import Request, Response  # noqa: E402
from websockets.legacy.auth import basic_auth_protocol_factory  # noqa: E402
from websockets.server import ServerConnection  # noqa: E402
from websockets.uri import parse_uri  # noqa: E402

LOGGER_ROOTS = ["websockets", "chat", "gateway"]
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

WORDS = ["alpha", "beta", "gamma", "delta", "ticker", "price", "order", "chat", "hello", "world", "room",
         "user", "join", "leave", "ping", "status", "update", "event", "frame", "stream", "caf\u00e9",
         "na\u00efve", "\u00fcber", "\u65e5\u672c", "\u2603", "\U0001f600"]
ORIGINS = ["https://app.example.test", "https://admin.example.test", "http://localhost:8080",
           "https://chat.bench.test"]
BAD_ORIGINS = ["https://evil.example.net", "null", "http://app.example.test.attacker.io", "file://"]
SUBPROTOCOLS = ["chat.v2", "chat.v1", "graphql-ws", "stomp.v12", "wamp.2.json", "superchat"]
USER_AGENTS = ["bench-client/1.0", "Mozilla/5.0 (X11; Linux x86_64) Firefox/115.0", "okhttp/4.11.0",
               "Python/3.11 websockets/10.4"]
REASONS = ["", "", "bye", "going away", "session expired", "server restart", "idle timeout",
           "policy violation", "unsupported data", "too many messages", "done", "au revoir \u00e0 bient\u00f4t"]
CLOSE_CODES = [(30, 1000), (6, 1001), (2, 1003), (3, 1008), (2, 1009), (3, 1011), (1, 1012), (1, 1013),
               (2, 3000), (2, 3003), (3, 4000), (2, 4001), (2, 4404), (1, 4999)]
BAD_CLOSE_CODES = [999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000]


# ---------------------------------------------------------------------------
# messages
# ---------------------------------------------------------------------------
def msg_size(r, big=1.0):
    return pick(r, [(5, r.randint(0, 40)), (5, r.randint(40, 800)), (2, r.randint(800, 12000)),
                    (0.5 * big, r.randint(12000, 70000)), (0.12 * big, r.randint(70000, 150000))])


def text_of(r, n):
    out, size = [], 0
    while size < n:
        w = r.choice(WORDS) if r.random() < 0.9 else str(r.randrange(100000))
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def json_of(r):
    return '{"type": "%s", "id": %d, "room": "%s", "text": "%s"}' % (
        r.choice(["msg", "join", "leave", "typing", "ack"]), r.randrange(10000), r.choice(WORDS[:8]),
        text_of(r, r.randint(0, 60)))


def message(r, big=1.0):
    """A str or bytes message."""
    k = r.random()
    if k < 0.25:
        return json_of(r)
    n = msg_size(r, big)
    if k < 0.65:
        return text_of(r, n)
    return r.randbytes(n)


def fragments(r, msg):
    """msg cut into 2-5 fragments (a str on character boundaries)."""
    n = len(msg)
    k = r.randint(2, 5)
    cuts = sorted(set(r.randint(0, n) for _ in range(k - 1)))
    parts, last = [], 0
    for c in cuts + [n]:
        parts.append(msg[last:c])
        last = c
    return parts


def close_code(r):
    return pick(r, CLOSE_CODES)


def mask_bytes(data, key):
    n = len(data)
    if not n:
        return b""
    m = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big")


def frame_bytes(r, opcode, data, fin=True, rsv=0, masked=False, length=None):
    """One WebSocket frame written by hand (length: the length to announce)."""
    b1 = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(data) if length is None else length
    m = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", b1, m | n)
    elif n < 65536:
        head = struct.pack("!BBH", b1, m | 126, n)
    else:
        head = struct.pack("!BBQ", b1, m | 127, n)
    if masked:
        key = r.randbytes(4)
        return head + key + mask_bytes(data, key)
    return head + data


def close_payload(code, reason=""):
    return struct.pack("!H", code) + reason.encode()


def deflate(data):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4] if out.endswith(b"\x00\x00\xff\xff") else out


def accept_for(key):
    return base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()).decode()


def bad_frames(r, masked, deflated, max_size):
    """(name, bytes) of frames a peer must refuse (masked: client to server)."""
    t = lambda s: s.encode()  # noqa: E731
    out = [
        ("rsv2", frame_bytes(r, 0x1, t("reserved"), rsv=2, masked=masked)),
        ("rsv3", frame_bytes(r, 0x2, b"\x01\x02", rsv=1, masked=masked)),
        ("opcode3", frame_bytes(r, 0x3, b"x", masked=masked)),
        ("opcode11", frame_bytes(r, 0xB, b"", masked=masked)),
        ("wrong_mask", frame_bytes(r, 0x1, t("mask?"), masked=not masked)),
        ("long_ping", frame_bytes(r, 0x9, b"p" * r.randint(126, 300), masked=masked)),
        ("fragmented_ping", frame_bytes(r, 0x9, b"frag", fin=False, masked=masked)),
        ("lone_continuation", frame_bytes(r, 0x0, t("orphan"), masked=masked)),
        ("interrupted", frame_bytes(r, 0x1, t("first half"), fin=False, masked=masked)
         + frame_bytes(r, 0x2, b"\x00other", masked=masked)),
        ("short_close", frame_bytes(r, 0x8, b"\x03", masked=masked)),
        ("bad_close_code", frame_bytes(r, 0x8, close_payload(r.choice(BAD_CLOSE_CODES), "nope"), masked=masked)),
        ("close_not_utf8", frame_bytes(r, 0x8, struct.pack("!H", 1000) + b"\xff\xfe bad", masked=masked)),
        ("unfinished_close", frame_bytes(r, 0x1, t("part"), fin=False, masked=masked)
         + frame_bytes(r, 0x8, close_payload(1000), masked=masked)),
    ]
    if max_size:
        out.append(("oversize", frame_bytes(r, 0x2, r.randbytes(max_size + r.randint(1, 500)), masked=masked)))
    if deflated:
        out.append(("corrupt_deflate", frame_bytes(r, 0x1, b"\xff\xff\xff\x00garbage", rsv=4, masked=masked)))
        out.append(("deflate_control", frame_bytes(r, 0x9, deflate(b"ping"), rsv=4, masked=masked)))
    else:
        out.append(("rsv1_no_ext", frame_bytes(r, 0x1, deflate(b"compressed?"), rsv=4, masked=masked)))
    return out


def not_utf8_text(r, masked):
    return frame_bytes(r, 0x1, b"caf\xe9 \xc3\x28 " + text_of(r, 10).encode(), masked=masked)


# ---------------------------------------------------------------------------
# an extension of the application's, with a bug (the ``parser failed`` and
# ``data transfer failed`` paths)
# ---------------------------------------------------------------------------
class FrameStats(Extension):
    name = "x-frame-stats"

    def __init__(self):
        self.seen = {}

    def decode(self, frame, *, max_size=None):
        if frame.opcode is OP_BINARY and frame.data[:1] == b"\xff":
            kind = {0: "plain", 1: "packed"}[frame.data[1] if len(frame.data) > 1 else 0xff]  # raises KeyError
            self.seen[kind] = self.seen.get(kind, 0) + 1
        return frame

    def encode(self, frame):
        return frame


class ClientFrameStats(ClientExtensionFactory):
    name = "x-frame-stats"

    def get_request_params(self):
        return []

    def process_response_params(self, params, accepted_extensions):
        return FrameStats()


class ServerFrameStats(ServerExtensionFactory):
    name = "x-frame-stats"

    def process_request_params(self, params, accepted_extensions):
        return [], FrameStats()


def deflate_params(r, side):
    """Random permessage-deflate parameters for a factory of side."""
    kw = {}
    if r.random() < 0.3:
        kw["server_no_context_takeover"] = True
    if r.random() < 0.3:
        kw["client_no_context_takeover"] = True
    if r.random() < 0.3:
        kw["server_max_window_bits"] = r.randint(9, 15)
    if r.random() < 0.3:
        kw["client_max_window_bits"] = r.randint(9, 15)
    if side == "client" and "client_max_window_bits" not in kw and r.random() < 0.2:
        kw["client_max_window_bits"] = None
    if r.random() < 0.2:
        kw["compress_settings"] = {"memLevel": r.choice([4, 5, 8])}
    return kw


def logger_for(r, name):
    """The logger= an application passes: none (websockets' default), its
    own, or an adapter."""
    k = pick(r, [(7, "default"), (1, "explicit"), (1.2, "app"), (1, "adapter")])
    if k == "default":
        return None
    if k == "explicit":
        return logging.getLogger(name)
    if k == "app":
        return logging.getLogger("%s.%s" % (r.choice(["chat.ws", "gateway.ws"]), name.split(".")[-1]))
    return logging.LoggerAdapter(logging.getLogger(name), {"tenant": r.choice(["acme", "globex", "initech"])})


# ---------------------------------------------------------------------------
# sans-I/O: a client and a server connection wired in memory
# ---------------------------------------------------------------------------
class MemSide:
    def __init__(self, name, conn):
        self.name = name
        self.conn = conn        # None: a hand-written peer
        self.got_eof = False    # receive_eof() called
        self.dead = False       # its parser raised out of receive_data()
        self.parts = []
        self.kind = None
        self.echo = False
        self.messages = 0


class PickySelect(ServerConnection):
    """A server whose application picks subprotocols with a bug."""

    def select_subprotocol(self, client_subprotocols, server_subprotocols):
        ranked = {p: i for i, p in enumerate(server_subprotocols)}
        return min(client_subprotocols, key=lambda p: ranked[p])  # KeyError on an unknown one


class MemCase:
    def __init__(self, r, st):
        self.r = r
        self.st = st
        self.chunky = r.random() < 0.4
        self.plan()

    def plan(self):
        r = self.r
        self.hs = pick(r, [(60, "ok"), (4, "bad_origin"), (3, "no_upgrade"), (2, "bad_key"), (1.5, "missing_key"),
                           (1, "two_keys"), (2, "bad_version"), (3, "garbage_request"), (4, "reject_auth"),
                           (2, "reject_health"), (2, "reject_404"), (2.5, "buggy_select"), (2.5, "wrong_accept"),
                           (1.5, "unknown_ext"), (1.5, "unknown_subproto"), (1, "two_subprotos"),
                           (1, "no_upgrade_resp"), (2, "garbage_response"), (1.5, "redirect")])
        dfl = pick(r, [(4, "none"), (4, "both"), (2, "params"), (1, "client"), (1, "server")])
        cext = sext = None
        if dfl in ("both", "client"):
            cext = [ClientPerMessageDeflateFactory()]
        if dfl in ("both", "server"):
            sext = [ServerPerMessageDeflateFactory()]
        if dfl == "params":
            cext = [ClientPerMessageDeflateFactory(**deflate_params(r, "client"))]
            sext = [ServerPerMessageDeflateFactory(**deflate_params(r, "server"))]
        self.stats_ext = r.random() < 0.08
        if self.stats_ext:
            cext = [ClientFrameStats()] + (cext or [])
            sext = [ServerFrameStats()] + (sext or [])
        csub = r.sample(SUBPROTOCOLS, r.randint(1, 3)) if r.random() < 0.4 else None
        ssub = r.sample(SUBPROTOCOLS, r.randint(1, 4)) if (csub and r.random() < 0.8) or r.random() < 0.2 else None
        if self.hs == "buggy_select":
            csub = ["unknown.v9"] + (csub or [])
            ssub = ssub or ["chat.v2"]
        origins = None
        if r.random() < 0.35 or self.hs == "bad_origin":
            origins = r.sample(ORIGINS, r.randint(1, 3)) + ([None] if r.random() < 0.3 else [])
        origin = None
        if self.hs == "bad_origin":
            origin = r.choice(BAD_ORIGINS)
        elif origins:
            origin = r.choice([o for o in origins])
        elif r.random() < 0.4:
            origin = r.choice(ORIGINS)
        self.cmax = pick(r, [(6, 2 ** 20), (2, None), (1, 4096), (1, 65536)])
        self.smax = pick(r, [(6, 2 ** 20), (2, None), (1, 2048), (1, 65536)])
        host = r.choice(["example.test", "127.0.0.1:8765", "chat.bench.test:443", "[::1]:9000"])
        scheme = "wss" if host.endswith(":443") else "ws"
        path = r.choice(["/", "/chat", "/ws", "/feed?room=%d" % r.randrange(100), "/api/v1/stream"])
        user = "alice:s3cret@" if self.hs == "reject_auth" and r.random() < 0.4 else ""
        self.wsuri = parse_uri("%s://%s%s%s" % (scheme, user, host, path))
        cls = PickySelect if self.hs == "buggy_select" else ServerConnection
        raw_client = self.hs == "garbage_request"
        raw_server = self.hs == "garbage_response"
        self.c = MemSide("client", None if raw_client else ClientConnection(
            self.wsuri, origin=origin, extensions=cext, subprotocols=csub, max_size=self.cmax,
            logger=logger_for(r, "websockets.client")))
        self.s = MemSide("server", None if raw_server else cls(
            origins=origins, extensions=sext, subprotocols=ssub, max_size=self.smax,
            logger=logger_for(r, "websockets.server")))
        self.s.echo = r.random() < 0.5
        self.steps = r.randint(0, 12)
        self.end = pick(r, [(30, "client_close"), (25, "server_close"), (8, "app_fail"), (8, "drop"),
                            (18, "protocol_error"), (4, "too_big"), (3, "not_utf8"), (2, "none"),
                            (40 if self.stats_ext else 0, "buggy_ext")])
        self.deflated = bool(cext and sext and any(isinstance(x, ClientPerMessageDeflateFactory) for x in cext))

    # -- wiring -------------------------------------------------------------
    def cut(self, data):
        if not self.chunky or len(data) < 2:
            return [data]
        out = []
        while data:
            n = min(len(data), max(1, int(self.r.choice([1, 3, 7, 60, 500, 4096, 30000]) * (0.5 + self.r.random()))))
            out.append(data[:n])
            data = data[n:]
        return out

    def feed(self, dst, data):
        """Bytes arriving at dst (from its peer's connection or a hand-written peer)."""
        if dst.conn is None or dst.got_eof or dst.dead:
            return
        for piece in self.cut(data):
            try:
                dst.conn.receive_data(piece)
            except (EOFError, StopIteration):
                dst.dead = True
                return
            except Exception as e:  # noqa: BLE001  a handshake the parser could not read
                dst.dead = True
                self.st["parse errors"] = self.st.get("parse errors", 0) + 1
                self.parse_failed(dst, e)
                return
            self.on_events(dst)

    def feed_eof(self, dst):
        if dst.conn is None or dst.got_eof:
            return
        dst.got_eof = True
        try:
            dst.conn.receive_eof()
        except (EOFError, StopIteration):
            return
        except Exception as e:  # noqa: BLE001
            self.parse_failed(dst, e)
            return
        self.on_events(dst)

    def deliver(self, src, dst):
        if src.conn is None:
            return False
        out = src.conn.data_to_send()
        for data in out:
            if data == SEND_EOF:
                self.feed_eof(dst)
            else:
                self.feed(dst, data)
        return bool(out)

    def pump(self):
        for _ in range(400):
            a = self.deliver(self.c, self.s)
            b = self.deliver(self.s, self.c)
            if not (a or b):
                return

    def is_open(self, side):
        return side.conn is not None and side.conn.state is State.OPEN and not side.got_eof

    def peer(self, side):
        return self.s if side is self.c else self.c

    # -- the applications ------------------------------------------------------
    def parse_failed(self, side, exc):
        if side is self.s and side.conn.state is State.CONNECTING:
            # the server application answers what its connection could not parse
            resp = side.conn.reject(http.HTTPStatus.BAD_REQUEST,
                                    "Failed to open a WebSocket connection: %s.\n" % exc)
            side.conn.send_response(resp)

    def on_events(self, side):
        for ev in side.conn.events_received():
            if isinstance(ev, Request):
                self.on_request(ev)
            elif isinstance(ev, Response):
                pass  # the client application reads handshake_exc
            else:
                self.on_frame(side, ev)

    def on_request(self, req):
        r, s, hs = self.r, self.s.conn, self.hs
        if hs == "reject_auth" and "Authorization" not in req.headers:
            resp = s.reject(http.HTTPStatus.UNAUTHORIZED, "Missing credentials.\n")
            resp.headers["WWW-Authenticate"] = 'Basic realm="bench", charset="UTF-8"'
        elif hs == "reject_auth" and r.random() < 0.5:
            resp = s.reject(http.HTTPStatus.FORBIDDEN, "Invalid credentials.\n")
        elif hs == "reject_health":
            resp = s.reject(http.HTTPStatus.OK, "OK\n")
        elif hs == "reject_404":
            resp = s.reject(http.HTTPStatus.NOT_FOUND, "No WebSocket endpoint at %s.\n" % req.path)
        elif hs == "redirect":
            resp = s.reject(http.HTTPStatus.FOUND, "")
            resp.headers["Location"] = "wss://other.example.test/chat"
        else:
            resp = s.accept(req)
            if resp.status_code == 101:
                if r.random() < 0.4:
                    resp.headers["Server"] = r.choice(["bench-gateway/2.1", "Python/3.11 websockets/10.4"])
                if r.random() < 0.3:
                    resp.headers["Set-Cookie"] = "sid=%08x; HttpOnly" % r.getrandbits(32)
                self.tamper(resp)
        s.send_response(resp)

    def tamper(self, resp):
        hs, h = self.hs, resp.headers

        def put(name, value):
            if name in h:
                del h[name]
            if value is not None:
                h[name] = value
        if hs == "wrong_accept":
            put("Sec-WebSocket-Accept", base64.b64encode(self.r.randbytes(20)).decode())
        elif hs == "unknown_ext":
            put("Sec-WebSocket-Extensions", self.r.choice(["x-webkit-deflate-frame", "permessage-bzip2",
                                                           "permessage-deflate; server_max_window_bits=20"]))
        elif hs == "unknown_subproto":
            put("Sec-WebSocket-Protocol", "stomp.v12")
        elif hs == "two_subprotos":
            put("Sec-WebSocket-Protocol", "chat.v1, chat.v2")
        elif hs == "no_upgrade_resp":
            put("Upgrade", None)

    def on_frame(self, side, frame):
        op = frame.opcode.name
        if op in ("TEXT", "BINARY"):
            side.kind, side.parts = op, [frame.data]
        elif op == "CONT":
            side.parts.append(frame.data)
        else:
            return
        if not frame.fin:
            return
        data = b"".join(side.parts)
        side.parts = []
        side.messages += 1
        if side.kind == "TEXT":
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                if self.is_open(side):
                    side.conn.fail(1007, "invalid UTF-8")
                return
        if side.echo and self.is_open(side):
            try:
                if side.kind == "TEXT":
                    side.conn.send_text(data)
                else:
                    side.conn.send_binary(data)
            except wse.ProtocolError:
                pass  # a fragmented message of its own is under way

    # -- the script ---------------------------------------------------------------
    def handshake(self):
        c, s, hs, r = self.c, self.s, self.hs, self.r
        if c.conn is None:  # a hand-written client
            self.feed(s, r.choice([
                b"GET /chat HTTP/1.0\r\nHost: example.test\r\nUpgrade: websocket\r\n\r\n",
                b"POST /ws HTTP/1.1\r\nHost: example.test\r\nContent-Length: 0\r\n\r\n",
                b"HELLO\r\n\r\n",
                b"GET /ws HTTP/1.1\r\nHost example.test\r\n\r\n",
                b"GET /ws HTTP/1.1\r\nHost: example.test\r\nContent-Length: 12\r\n\r\nhello=world!",
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(20) + b"\r\n",
            ]))
            self.pump()
            self.feed_eof(s)
            self.pump()
            return False
        req = c.conn.connect()
        h = req.headers
        if hs == "no_upgrade":
            k = r.choice(["Upgrade", "Connection", "both"])
            if k in ("Upgrade", "both"):
                del h["Upgrade"]
                if r.random() < 0.5:
                    h["Upgrade"] = r.choice(["h2c", "websocket, h2c", "TLS/1.2"])
            if k in ("Connection", "both"):
                del h["Connection"]
                h["Connection"] = "keep-alive"
        elif hs == "bad_key":
            del h["Sec-WebSocket-Key"]
            h["Sec-WebSocket-Key"] = r.choice(["not base64!", base64.b64encode(r.randbytes(8)).decode(), "===="])
        elif hs == "missing_key":
            del h["Sec-WebSocket-Key"]
        elif hs == "two_keys":
            h["Sec-WebSocket-Key"] = base64.b64encode(r.randbytes(16)).decode()
        elif hs == "bad_version":
            del h["Sec-WebSocket-Version"]
            if r.random() < 0.8:
                h["Sec-WebSocket-Version"] = r.choice(["8", "7", "14", "13, 8"])
        if r.random() < 0.3:
            h["User-Agent"] = r.choice(USER_AGENTS)
        if r.random() < 0.2:
            h["Cookie"] = "sid=%08x" % r.getrandbits(32)
        c.conn.send_request(req)
        if s.conn is None:  # a hand-written server answers
            c.conn.data_to_send()
            self.feed(c, r.choice([
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>",
                b"HTTP/1.0 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
                b"HTTP/1.1 abc Nope\r\n\r\n",
                b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n",
                b"HTTP/1.1 101 Switching Protocols\r\nUpgrade websocket\r\n\r\n",
                b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\n\r\nbusy",
            ]))
            if not c.dead:
                self.feed_eof(c)
            return False
        self.pump()
        if c.conn.handshake_exc is not None or s.conn.handshake_exc is not None:
            self.pump()
            # a client that failed the handshake waits for the server to close;
            # when it does not (an accepted handshake the client refused), it
            # drops the connection after a while
            if not c.got_eof:
                self.feed_eof(s)
                self.feed_eof(c)
                self.pump()
            return False
        return True

    def send_message(self, side, msg, frag=False):
        conn = side.conn
        data = msg.encode() if isinstance(msg, str) else msg
        if not frag:
            (conn.send_text if isinstance(msg, str) else conn.send_binary)(data)
            return
        parts = [p.encode() if isinstance(p, str) else p for p in fragments(self.r, msg)]
        (conn.send_text if isinstance(msg, str) else conn.send_binary)(parts[0], fin=False)
        for i, p in enumerate(parts[1:]):
            if self.r.random() < 0.15:
                conn.send_ping(b"mid-%d" % i)
            if self.r.random() < 0.3:
                self.pump()
                if conn.state is not State.OPEN:  # the peer closed meanwhile
                    return
            conn.send_continuation(p, fin=i == len(parts) - 2)

    def step(self):
        r = self.r
        side = self.c if r.random() < 0.6 else self.s
        k = pick(r, [(6, "message"), (2, "fragmented"), (1.5, "ping"), (0.6, "pong"), (0.8, "burst"),
                     (0.8, "benign"), (0.5, "echo")])
        if not (self.is_open(side) and self.is_open(self.peer(side))):
            return
        if k == "message":
            self.send_message(side, message(r))
        elif k == "fragmented":
            self.send_message(side, message(r), frag=True)
        elif k == "ping":
            side.conn.send_ping(r.choice([b"", b"keepalive", struct.pack("!I", r.getrandbits(32)),
                                          "\u00e9t\u00e9".encode()]))
        elif k == "pong":
            side.conn.send_pong(r.choice([b"", b"unsolicited", r.randbytes(8)]))
        elif k == "burst":
            for _ in range(r.randint(2, 6)):
                self.send_message(side, message(r, 0.2))
        elif k == "echo":
            self.s.echo = not self.s.echo
        elif k == "benign":
            dst = self.peer(side)
            masked = dst is self.s
            self.feed(dst, r.choice([
                frame_bytes(r, 0xA, b"hb", masked=masked),
                frame_bytes(r, 0x9, b"", masked=masked),
                frame_bytes(r, 0x1, b"", masked=masked),
                frame_bytes(r, 0x2, b"", fin=False, masked=masked) + frame_bytes(r, 0x0, b"tail", masked=masked),
            ]))
        self.pump()

    def finish(self):
        r, c, s = self.r, self.c, self.s
        e = self.end
        side = c if r.random() < 0.5 else s
        if e == "client_close" and self.is_open(c):
            self.close(c)
        elif e == "server_close" and self.is_open(s):
            self.close(s)
        elif e == "app_fail" and self.is_open(side):
            side.conn.fail(pick(r, [(2, 1003), (3, 1008), (3, 1011), (1, 1001), (1, 4003)]),
                           r.choice(["", "unsupported payload", "policy violation", "internal error", "quota"]))
        elif e == "drop":
            if r.random() < 0.5 and self.is_open(side):  # a half-written frame first
                self.send_message(side, message(r))
                out = side.conn.data_to_send()
                if out and out[0]:
                    self.feed(self.peer(side), out[0][:max(1, len(out[0]) // 2)])
            self.feed_eof(s)
            self.feed_eof(c)
        elif e == "protocol_error":
            dst = self.peer(side)
            maxs = (self.smax if dst is s else self.cmax) or 0
            name, data = r.choice(bad_frames(r, dst is s, self.deflated, maxs if maxs and maxs <= 65536 else 0))
            self.feed(dst, data)
        elif e == "too_big" and self.is_open(side):
            maxs = self.smax if side is c else self.cmax
            if maxs:
                self.send_message(side, r.randbytes(maxs + r.randint(1, 3000)), frag=r.random() < 0.4)
        elif e == "not_utf8":
            dst = self.peer(side)
            self.feed(dst, not_utf8_text(r, dst is s))
        elif e == "buggy_ext" and self.is_open(side):
            side.conn.send_binary(b"\xff" + bytes([r.choice([1, 2, 7])]) + r.randbytes(r.randint(0, 40)))
        self.pump()
        if e == "none":
            return
        # a side still waiting for its peer's TCP close gives up: the
        # connection drops under both
        if c.conn is not None and c.conn.state is not State.CLOSED:
            self.feed_eof(c)
        if s.conn is not None and s.conn.state is not State.CLOSED:
            self.feed_eof(s)
        self.pump()

    def close(self, side):
        r = self.r
        k = r.random()
        if k < 0.12:
            side.conn.send_close()
        else:
            code = close_code(r)
            side.conn.send_close(code, r.choice(REASONS))
        if r.random() < 0.2 and self.is_open(self.peer(side)):
            # the peer sends one more message before it sees the close frame
            try:
                self.send_message(self.peer(side), message(r, 0.1))
            except wse.ProtocolError:
                pass

    def run(self):
        if not self.handshake():
            return
        for _ in range(self.steps):
            try:
                self.step()
            except (wse.InvalidState, wse.ProtocolError):
                self.st["sansio refused locally"] = self.st.get("sansio refused locally", 0) + 1
            if not (self.is_open(self.c) and self.is_open(self.s)):
                break
        self.finish()


# ---------------------------------------------------------------------------
# socket helpers shared by the asyncio cases
# ---------------------------------------------------------------------------
async def read_frame(reader):
    """(fin, rsv1, opcode, payload) of one frame a hand-written peer reads."""
    h = await reader.readexactly(2)
    fin, rsv1, op = bool(h[0] & 0x80), bool(h[0] & 0x40), h[0] & 0x0F
    n = h[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", await reader.readexactly(8))[0]
    key = await reader.readexactly(4) if h[1] & 0x80 else None
    data = await reader.readexactly(n)
    if key:
        data = mask_bytes(data, key)
    return fin, rsv1, op, data


def rst(transport):
    """Drops the TCP connection with a reset."""
    try:
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family != socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    transport.abort()


async def quietly(aw, timeout):
    try:
        return await asyncio.wait_for(aw, timeout)
    except (asyncio.TimeoutError, OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
            ValueError, wse.WebSocketException):
        return None


async def drain_close(writer):
    try:
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 1)
    except (OSError, asyncio.TimeoutError, ssl.SSLError):
        pass


class Target:
    """Where the clients of a case connect: TCP (maybe TLS) or a Unix socket."""

    def __init__(self, host=None, port=None, path=None, ssl_client=None):
        self.host, self.port, self.path, self.ssl = host, port, path, ssl_client

    def uri(self, path, userinfo=""):
        if self.path:
            return "ws://%slocalhost%s" % (userinfo, path)
        h = "[%s]" % self.host if ":" in self.host else self.host
        return "%s://%s%s:%d%s" % ("wss" if self.ssl else "ws", userinfo, h, self.port, path)

    def host_header(self):
        if self.path:
            return "localhost"
        return ("[%s]" % self.host if ":" in self.host else self.host) + ":%d" % self.port

    async def open(self):
        if self.path:
            return await asyncio.open_unix_connection(self.path)
        return await asyncio.open_connection(self.host, self.port, ssl=self.ssl,
                                             server_hostname=self.host if self.ssl else None)

    def connect(self, path, cls=None, userinfo="", **kw):
        if self.path:
            if cls is not None:
                return cls(self.uri(path, userinfo), path=self.path, unix=True, **kw)
            return lclient.unix_connect(self.path, self.uri(path, userinfo), **kw)
        if self.ssl:
            kw["ssl"] = self.ssl
        return (cls or lclient.connect)(self.uri(path, userinfo), **kw)


class SockClient:
    """A sans-I/O ClientConnection driven by hand over an asyncio stream."""

    def __init__(self, r, target, path, extensions=None, subprotocols=None, origin=None, max_size=2 ** 20):
        self.r = r
        self.target = target
        self.conn = ClientConnection(parse_uri(target.uri(path)), origin=origin, extensions=extensions,
                                     subprotocols=subprotocols, max_size=max_size,
                                     logger=logger_for(r, "websockets.client"))
        self.reader = self.writer = None
        self.eof = False
        self.dead = False
        self.messages = []

    async def flush(self):
        if self.writer is None:
            return
        for data in self.conn.data_to_send():
            try:
                if data == SEND_EOF:
                    if self.writer.can_write_eof():
                        self.writer.write_eof()
                else:
                    self.writer.write(data)
            except (OSError, RuntimeError):
                pass
        try:
            await asyncio.wait_for(self.writer.drain(), 1)
        except (OSError, asyncio.TimeoutError, ssl.SSLError):
            pass

    async def read_once(self, timeout):
        if self.eof or self.dead:
            await asyncio.sleep(0)
            return False
        try:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
        except asyncio.TimeoutError:
            return False
        except (OSError, ssl.SSLError):
            data = b""
        try:
            if data:
                self.conn.receive_data(data)
            else:
                self.eof = True
                self.conn.receive_eof()
        except (EOFError, StopIteration):
            self.dead = True
        except Exception:  # noqa: BLE001  a response its parser could not read: the application gives up
            self.dead = True
        for ev in self.conn.events_received():
            if isinstance(ev, Frame) and ev.opcode.name in ("TEXT", "BINARY"):
                self.messages.append(ev)
        await self.flush()
        return True

    async def until(self, pred, timeout):
        deadline = time.monotonic() + timeout
        while not pred() and not (self.eof or self.dead):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            await self.read_once(left)
        return pred()

    async def run(self, script):
        r = self.r
        try:
            self.reader, self.writer = await self.target.open()
        except OSError:
            return
        try:
            self.conn.send_request(self.conn.connect())
            await self.flush()
            await self.until(lambda: self.conn.state is not State.CONNECTING or self.conn.handshake_exc, 1.5)
            if self.conn.state is not State.OPEN:
                await self.until(lambda: False, 0.3)
                return
            await script(self)
            if self.conn.state is State.OPEN and r.random() < 0.8:
                self.conn.send_close(close_code(r), r.choice(REASONS))
                await self.flush()
            await self.until(lambda: self.conn.state is State.CLOSED, 1.0)
        except wse.InvalidState:
            pass
        finally:
            if r.random() < 0.15:
                rst(self.writer.transport)
            else:
                await drain_close(self.writer)


async def sock_chat(sc):
    """A sans-I/O client's conversation: messages, pings, a bad frame now and then."""
    r, conn = sc.r, sc.conn
    for _ in range(r.randint(1, 6)):
        if conn.state is not State.OPEN:
            return
        k = pick(r, [(6, "message"), (2, "fragmented"), (1.5, "ping"), (1, "read"), (0.6, "bad")])
        if k == "message":
            m = message(r, 0.3)
            (conn.send_text if isinstance(m, str) else conn.send_binary)(m.encode() if isinstance(m, str) else m)
        elif k == "fragmented":
            m = message(r, 0.3)
            parts = [p.encode() if isinstance(p, str) else p for p in fragments(r, m)]
            (conn.send_text if isinstance(m, str) else conn.send_binary)(parts[0], fin=False)
            for i, p in enumerate(parts[1:]):
                conn.send_continuation(p, fin=i == len(parts) - 2)
        elif k == "ping":
            conn.send_ping(r.randbytes(4))
        elif k == "bad":
            await sc.flush()
            name, data = r.choice(bad_frames(r, True, False, 0))
            try:
                sc.writer.write(data)
            except (OSError, RuntimeError):
                pass
        await sc.flush()
        n = len(sc.messages)
        await sc.until(lambda: len(sc.messages) > n, r.choice([0.05, 0.2, 0.4]))


# ---------------------------------------------------------------------------
# legacy server cases
# ---------------------------------------------------------------------------
ROUTES = ["/echo", "/chat", "/feed", "/fail", "/bye", "/sink", "/pinger", "/slow", "/firehose"]
HTTP_ROUTES = ["/health", "/private", "/missing", "/crash"]


class ServerPlan:
    def __init__(self, r, env):
        self.r = r
        kw = {}
        self.unix = r.random() < 0.12
        self.tls = not self.unix and env["certs"] is not None and r.random() < 0.1
        self.hosts = "127.0.0.1"
        if not self.unix and not self.tls:
            self.hosts = pick(r, [(8, "127.0.0.1"), (1, "::1"), (1, ["127.0.0.1", "::1"])])
        comp = pick(r, [(5, "default"), (3, "none"), (2, "params")])
        if comp == "none":
            kw["compression"] = None
        elif comp == "params":
            kw["extensions"] = [ServerPerMessageDeflateFactory(**deflate_params(r, "server"))]
        self.stats_ext = r.random() < 0.06
        if self.stats_ext:
            kw["extensions"] = [ServerFrameStats()] + (kw.get("extensions") or
                                                       ([] if comp == "none" else [ServerPerMessageDeflateFactory()]))
        if r.random() < 0.3:
            kw["origins"] = r.sample(ORIGINS, r.randint(1, 3)) + ([None] if r.random() < 0.5 else [])
        if r.random() < 0.4:
            kw["subprotocols"] = r.sample(SUBPROTOCOLS, r.randint(1, 3))
            if r.random() < 0.25:
                bug = r.random() < 0.3

                def select(client, server, bug=bug):
                    if bug:
                        return [p for p in server if p in client][0]  # IndexError when none is shared
                    common = [p for p in client if p in server]
                    return common[-1] if common else None
                kw["select_subprotocol"] = select
        eh = pick(r, [(5, None), (2, "dict"), (1, "func"), (0.3, "func_bug")])
        if eh == "dict":
            kw["extra_headers"] = {"X-Server-Region": r.choice(["eu-west", "us-east"]), "Cache-Control": "no-store"}
        elif eh:
            def extra(path, headers, bug=eh == "func_bug"):
                if bug and path.startswith("/chat"):
                    return {"X-Room": headers["X-Room-Id"]}  # KeyError: the client sent none
                return [("X-Path", path.split("?")[0]), ("X-Conn", "%d" % len(headers))]
            kw["extra_headers"] = extra
        if r.random() < 0.25:
            kw["server_header"] = r.choice([None, "bench-gateway/2.1"])
        self.auth = pick(r, [(8, None), (1, "basic"), (1.5, "process_request")])
        if self.auth == "basic":
            kw["create_protocol"] = basic_auth_protocol_factory(
                realm=r.choice(["bench", "chat server"]), credentials=[("alice", "s3cret"), ("bob", "hunter2")])
        elif self.auth == "process_request" or r.random() < 0.2:
            token = "Bearer t0k3n-%d" % r.randrange(1000)
            self.token = token

            async def process_request(path, headers):
                p = path.split("?")[0]
                if p == "/health":
                    return http.HTTPStatus.OK, [("Content-Type", "text/plain")], b"OK\n"
                if p == "/private" and headers.get("Authorization") != token:
                    return (http.HTTPStatus.UNAUTHORIZED if "Authorization" not in headers
                            else http.HTTPStatus.FORBIDDEN), {"WWW-Authenticate": "Bearer"}, b"denied\n"
                if p == "/missing":
                    return http.HTTPStatus.NOT_FOUND, {}, b"no such endpoint\n"
                if p == "/crash":
                    raise RuntimeError("session store unavailable")
                return None
            kw["process_request"] = process_request
        self.has_pr = "process_request" in kw
        self.ping_interval = pick(r, [(4, 20), (3, None), (3, r.choice([0.05, 0.1, 0.2, 0.3]))])
        kw["ping_interval"] = self.ping_interval
        small = self.ping_interval is not None and self.ping_interval < 1
        kw["ping_timeout"] = pick(r, [(1 if small else 4, 20), (1, None),
                                      (7 if small else 3, r.choice([0.05, 0.1, 0.2, 0.4]))])
        kw["close_timeout"] = r.choice([0.05, 0.1, 0.2, 0.3, 0.5, 1.0])
        self.max_size = pick(r, [(6, 2 ** 20), (1, None), (2, r.choice([1024, 4096, 65536]))])
        kw["max_size"] = self.max_size
        kw["max_queue"] = pick(r, [(6, 32), (2, r.choice([1, 2, 4])), (1, None)])
        if r.random() < 0.2:
            kw["read_limit"] = r.choice([2 ** 12, 2 ** 14, 2 ** 16])
            kw["write_limit"] = r.choice([2 ** 12, 2 ** 14, 2 ** 16])
        lg = logger_for(r, "websockets.server")
        if lg is not None:
            kw["logger"] = lg
        self.kw = kw
        self.catch_closed = r.random() < 0.5
        self.chat_limit = r.randint(1, 5)
        self.feed_n = r.randint(1, 8)


def make_handler(sp):
    r0 = random.Random(sp.r.random())  # the handler's own draws, in the order connections reach it

    async def handler(ws):
        path = ws.path.split("?")[0]
        try:
            if path == "/chat":
                await ws.send("welcome to %s" % r0.choice(WORDS[:10]))
                for i in range(sp.chat_limit):
                    m = await ws.recv()
                    await ws.send("ack %d (%d %s)" % (i, len(m), "chars" if isinstance(m, str) else "bytes"))
                await ws.close(close_code(r0), r0.choice(REASONS))
            elif path == "/feed":
                for i in range(sp.feed_n):
                    m = message(r0, 0.5)
                    if r0.random() < 0.3:
                        await ws.send(fragments(r0, m))
                    else:
                        await ws.send(m)
                    if r0.random() < 0.3:
                        await asyncio.sleep(0.01)
            elif path == "/fail":
                await ws.recv()
                raise ValueError("cannot decode message %d" % r0.randrange(100))
            elif path == "/bye":
                await ws.close(close_code(r0), r0.choice(REASONS))
            elif path == "/sink":
                await ws.wait_closed()
            elif path == "/pinger":
                for _ in range(r0.randint(1, 3)):
                    pong = await ws.ping(r0.choice([None, "hb", b"\x00\x01"]))
                    await asyncio.wait_for(pong, 0.3)
                await ws.recv()
            elif path == "/slow":
                await asyncio.sleep(r0.choice([0.05, 0.2]))
                await ws.send("done")
            elif path == "/firehose":
                chunk = r0.randbytes(r0.choice([16384, 65536]))
                for _ in range(40):
                    await ws.send(chunk)
            else:  # /echo and anything else
                async for m in ws:
                    if isinstance(m, str) and len(m) > 2000 and r0.random() < 0.3:
                        await ws.send(fragments(r0, m))
                    else:
                        await ws.send(m)
        except wse.ConnectionClosed:
            if not sp.catch_closed:
                raise
        except asyncio.TimeoutError:
            if not sp.catch_closed:
                raise
    return handler


def client_kw(r, sp, path):
    kw = {"open_timeout": 2}
    comp = pick(r, [(6, "default"), (3, "none"), (2, "params")])
    if comp == "none":
        kw["compression"] = None
    elif comp == "params":
        kw["extensions"] = [ClientPerMessageDeflateFactory(**deflate_params(r, "client"))]
    if sp is not None and sp.stats_ext and r.random() < 0.7:
        kw["extensions"] = [ClientFrameStats()] + (kw.get("extensions") or
                                                   ([] if comp == "none" else [ClientPerMessageDeflateFactory()]))
    origins = sp.kw.get("origins") if sp is not None else None
    if origins:
        kw["origin"] = r.choice(origins) if r.random() < 0.8 else r.choice(BAD_ORIGINS)
    elif r.random() < 0.3:
        kw["origin"] = r.choice(ORIGINS)
    if r.random() < 0.4:
        kw["subprotocols"] = r.sample(SUBPROTOCOLS, r.randint(1, 3))
    eh = {}
    if sp is not None and getattr(sp, "token", None) and path == "/private" and r.random() < 0.6:
        eh["Authorization"] = sp.token if r.random() < 0.7 else "Bearer expired"
    if r.random() < 0.25:
        eh["X-Room-Id"] = str(r.randrange(100))
    if r.random() < 0.2:
        eh["Cookie"] = "sid=%08x" % r.getrandbits(32)
    if eh:
        kw["extra_headers"] = eh if r.random() < 0.7 else list(eh.items())
    if r.random() < 0.2:
        kw["user_agent_header"] = r.choice(USER_AGENTS + [None])
    kw["ping_interval"] = pick(r, [(4, 20), (3, None), (3, r.choice([0.05, 0.1, 0.2]))])
    small = kw["ping_interval"] is not None and kw["ping_interval"] < 1
    kw["ping_timeout"] = pick(r, [(1 if small else 4, 20), (1, None), (7 if small else 3, r.choice([0.05, 0.1, 0.3]))])
    kw["close_timeout"] = r.choice([0.05, 0.1, 0.2, 0.5, 1.0])
    kw["max_size"] = pick(r, [(6, 2 ** 20), (1, None), (2, r.choice([512, 4096, 65536]))])
    kw["max_queue"] = pick(r, [(6, 32), (2, r.choice([1, 2])), (1, None)])
    lg = logger_for(r, "websockets.client")
    if lg is not None:
        kw["logger"] = lg
    return kw


async def recv_some(ws, timeout):
    try:
        return await asyncio.wait_for(ws.recv(), timeout)
    except asyncio.TimeoutError:
        return None


async def legacy_client(env, target, sp, r, path, hold=None):
    """A legacy client: connect with random options, talk according to path, end."""
    kw = client_kw(r, sp, path)
    userinfo = ""
    if sp is not None and sp.auth == "basic" and r.random() < 0.8:
        userinfo = r.choice(["alice:s3cret@", "bob:hunter2@", "alice:wrong@"])
    try:
        ws = await asyncio.wait_for(target.connect(path, userinfo=userinfo, **kw), 3)
    except (wse.InvalidHandshake, OSError, asyncio.TimeoutError, wse.ConnectionClosed) as e:
        env["st"]["client refused"] = env["st"].get("client refused", 0) + 1
        env["notes"].append(type(e).__name__)
        if hold is not None and not hold.done():
            hold.set_result(None)
        return
    end = pick(r, [(10, "close"), (2, "abort"), (2, "context"), (1, "bad_code"), (1, "leave")])
    if hold is not None:
        end = "hold"
    try:
        if any(isinstance(x, FrameStats) for x in ws.extensions) and r.random() < 0.5:
            # a payload the extension's stats code does not know
            await ws.send(b"\xff" + bytes([r.choice([0, 1, 5])]) + r.randbytes(r.randint(0, 30)))
        if path == "/echo":
            for _ in range(r.randint(1, 6)):
                poison = any(isinstance(x, FrameStats) for x in ws.extensions)
                k = pick(r, [(6, "send"), (2, "fragmented"), (1.5, "ping"), (1, "burst"), (0.4, "oversize"),
                             (3 if poison else 0, "poison")])
                if k == "poison":  # a payload the extension's stats code does not know
                    await ws.send(b"\xff" + bytes([r.choice([0, 1, 5])]) + r.randbytes(r.randint(0, 30)))
                elif k == "send":
                    await ws.send(message(r))
                elif k == "fragmented":
                    m = message(r)
                    if r.random() < 0.5:
                        await ws.send(fragments(r, m))
                    else:
                        async def gen(parts=fragments(r, m)):
                            for p in parts:
                                yield p
                        await ws.send(gen())
                elif k == "ping":
                    pong = await ws.ping(r.choice([None, "are you there", b"\x01\x02\x03"]))
                    await quietly(pong, 0.3)
                    continue
                elif k == "burst":
                    for _ in range(r.randint(2, 5)):
                        await ws.send(message(r, 0.2))
                else:
                    limit = sp.max_size if sp is not None and sp.max_size else 70000
                    await ws.send(r.randbytes(min(limit, 200000) + r.randint(1, 2000)))
                await recv_some(ws, 0.5)
        elif path == "/chat":
            await recv_some(ws, 0.5)
            for _ in range(r.randint(1, 6)):
                await ws.send(json_of(r))
                await recv_some(ws, 0.5)
        elif path in ("/feed", "/bye", "/pinger", "/slow", "/firehose"):
            for _ in range(12):
                if await recv_some(ws, 0.6) is None:
                    break
        elif path == "/fail":
            await ws.send(json_of(r))
            await recv_some(ws, 0.5)
        elif path == "/sink":
            for _ in range(r.randint(2, 8)):
                await asyncio.wait_for(ws.send(message(r, 0.3)), 0.5)
            await asyncio.sleep(r.choice([0.05, 0.3, 0.6]))
        else:
            await recv_some(ws, 0.3)
    except (wse.ConnectionClosed, asyncio.TimeoutError, wse.InvalidState):
        pass
    except wse.ProtocolError:
        pass
    try:
        if end == "close":
            await ws.close(close_code(r), r.choice(REASONS))
        elif end == "context":
            await ws.close()
        elif end == "bad_code":  # refused by the library once the state is CLOSING: the server closes it later
            await ws.close(r.choice(BAD_CLOSE_CODES), "oops")
            return
        elif end == "abort":
            if r.random() < 0.5:
                rst(ws.transport)
            else:
                ws.transport.abort()
            await quietly(ws.wait_closed(), 1)
        elif end == "hold":
            hold.set_result(None)
            for _ in range(20):
                if await recv_some(ws, 1.0) is None and ws.closed:
                    break
        elif end == "leave":
            await asyncio.sleep(0.05)
            ws.transport.close()
            await quietly(ws.wait_closed(), 1)
    except (wse.ConnectionClosed, asyncio.TimeoutError, wse.InvalidState):
        pass
    except wse.ProtocolError:
        return
    await quietly(ws.wait_closed(), 2)


def raw_request(r, host, path, key, kind, offer_deflate=False, origin=None):
    lines = ["GET %s HTTP/1.1" % path, "Host: %s" % host, "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Key: %s" % key, "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append("Origin: %s" % origin)
    if offer_deflate:
        lines.append("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits")
    if kind == "no_upgrade":
        lines[2] = r.choice(["Upgrade: h2c", "X-Upgrade: websocket"])
    elif kind == "no_connection":
        lines[3] = "Connection: keep-alive"
    elif kind == "no_key":
        del lines[4]
    elif kind == "bad_key":
        lines[4] = "Sec-WebSocket-Key: %s" % r.choice(["abc", "not base64 at all", base64.b64encode(b"short").decode()])
    elif kind == "two_keys":
        lines.insert(5, "Sec-WebSocket-Key: %s" % base64.b64encode(r.randbytes(16)).decode())
    elif kind == "bad_version":
        lines[5] = "Sec-WebSocket-Version: %s" % r.choice(["8", "12", "thirteen"])
    elif kind == "no_version":
        del lines[5]
    elif kind == "post":
        lines[0] = "POST %s HTTP/1.1" % path
    elif kind == "http10":
        lines[0] = "GET %s HTTP/1.0" % path
    elif kind == "long_header":
        lines.append("X-Padding: " + "x" * r.randint(4200, 9000))
    elif kind == "many_headers":
        lines += ["X-H%d: %d" % (i, i) for i in range(300)]
    elif kind == "two_origins":
        lines += ["Origin: %s" % ORIGINS[0], "Origin: %s" % ORIGINS[1]]
    elif kind == "bad_ext_header":
        lines.append("Sec-WebSocket-Extensions: permessage-deflate; =broken,,")
    elif kind == "bad_proto_header":
        lines.append("Sec-WebSocket-Protocol: chat.v1,, @@")
    elif kind == "bad_deflate_params":
        lines.append("Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=7; foo=bar")
    elif kind == "bad_origin":
        lines.append("Origin: %s" % r.choice(BAD_ORIGINS))
    elif kind == "header_no_colon":
        lines.insert(2, "This is not a header")
    if kind == "garbage":
        return r.choice([b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03" + bytes(40),
                         b"hello there\r\n\r\n", b"GET\r\n\r\n"])
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def raw_client(env, target, sp, r, path, late=None):
    """A hand-written client on a raw socket: a broken handshake, or a good
    one then frames (good, broken, missing answers) and an end."""
    st = env["st"]
    try:
        reader, writer = await target.open()
    except OSError:
        return
    try:
        key = base64.b64encode(r.randbytes(16)).decode()
        origins = sp.kw.get("origins")
        origin = r.choice(origins) if origins else None
        if late is not None:  # connected before the shutdown, asks after it started
            await late
            await asyncio.sleep(0.02)
            writer.write(raw_request(r, target.host_header(), path, key, "ok", origin=origin))
            await quietly(reader.read(), 1)
            return
        kind = pick(r, [(14, "ok"), (1, "no_upgrade"), (1, "no_connection"), (1, "no_key"), (1, "bad_key"),
                        (0.5, "two_keys"), (1, "bad_version"), (0.5, "no_version"), (1, "post"), (1, "http10"),
                        (0.7, "long_header"), (0.3, "many_headers"), (0.6, "two_origins"),
                        (0.6, "bad_ext_header"), (0.6, "bad_proto_header"), (0.6, "bad_deflate_params"),
                        (1 if origins else 0, "bad_origin"), (0.5, "header_no_colon"), (1, "garbage"),
                        (0.7, "nothing"), (0.5, "half")])
        st["raw " + kind] = st.get("raw " + kind, 0) + 1
        if kind == "nothing":
            await asyncio.sleep(r.choice([0.01, 0.1]))
            return
        offer = kind == "ok" and r.random() < 0.3 and "compression" not in sp.kw
        req = raw_request(r, target.host_header(), path, key, kind, offer, origin)
        if kind == "half":
            writer.write(req[:r.randint(5, len(req) - 5)])
            await asyncio.sleep(0.02)
            return
        writer.write(req)
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 1.5)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            return
        if not head.startswith(b"HTTP/1.1 101"):
            await quietly(reader.read(), 0.5)
            return
        deflated = offer and b"permessage-deflate" in head
        await raw_frames(env, r, reader, writer, sp, deflated)
    finally:
        if not writer.is_closing():
            await drain_close(writer)


async def raw_frames(env, r, reader, writer, sp, deflated):
    """The raw client's frames after a good handshake."""
    pinged = sp.ping_interval is not None and sp.ping_interval < 1
    plan = pick(r, [(4, "talk"), (5, "bad"), (1.5, "not_utf8"), (3 if pinged else 1, "deaf"), (1.5, "drop"),
                    (1, "reset"), (1.5, "no_close_reply"), (1, "keep_tcp"), (0.8 if deflated else 0, "corrupt")])
    env["st"]["raw frames " + plan] = env["st"].get("raw frames " + plan, 0) + 1

    async def send(op, data, fin=True, rsv=0):
        writer.write(frame_bytes(r, op, data, fin=fin, rsv=rsv, masked=True))

    for _ in range(r.randint(0, 3)):
        m = message(r, 0.2)
        await send(0x1 if isinstance(m, str) else 0x2, m.encode() if isinstance(m, str) else m)
    if plan == "bad":
        name, data = r.choice(bad_frames(r, True, deflated, sp.max_size if sp.max_size and sp.max_size <= 65536 else 0))
        writer.write(data)
    elif plan == "corrupt":
        writer.write(frame_bytes(r, 0x1, b"\x00\x01garbage\xff", rsv=4, masked=True))
    elif plan == "not_utf8":
        writer.write(not_utf8_text(r, True))
    elif plan == "drop":
        data = frame_bytes(r, 0x2, r.randbytes(r.randint(50, 3000)), masked=True)
        writer.write(data[:len(data) // 2])
        await asyncio.sleep(0.02)
        writer.transport.abort()
        return
    elif plan == "reset":
        await asyncio.sleep(r.choice([0.0, 0.03]))
        rst(writer.transport)
        return
    elif plan in ("talk", "no_close_reply", "keep_tcp"):
        await send(0x9, b"raw-ping")
        if r.random() < 0.5:
            await send(0x8, close_payload(close_code(r), r.choice(REASONS)))
    # read what the server sends: answer pings and close frames unless deaf
    deaf = plan in ("deaf", "no_close_reply")
    answered = False
    deadline = time.monotonic() + (1.0 if plan in ("deaf", "no_close_reply", "keep_tcp") else 0.6)
    while time.monotonic() < deadline:
        fr = await quietly(read_frame(reader), max(0.01, deadline - time.monotonic()))
        if fr is None:
            break
        fin, rsv1, op, data = fr
        if op == 0x9 and not deaf:
            await send(0xA, data)
        elif op == 0x8:
            if not deaf and not answered:
                answered = True
                await send(0x8, data)
            if plan == "keep_tcp":
                continue
            if plan != "no_close_reply":
                break
    if plan == "keep_tcp":
        await asyncio.sleep(0.2)


async def sansio_client(env, target, sp, r, path):
    cext = None
    if r.random() < 0.5:
        cext = [ClientPerMessageDeflateFactory(**(deflate_params(r, "client") if r.random() < 0.4 else {}))]
    origins = sp.kw.get("origins") if sp is not None else None
    origin = (r.choice(origins) if r.random() < 0.8 else r.choice(BAD_ORIGINS)) if origins else None
    sc = SockClient(r, target, path, extensions=cext,
                    subprotocols=r.sample(SUBPROTOCOLS, 2) if r.random() < 0.3 else None,
                    origin=origin, max_size=pick(r, [(4, 2 ** 20), (1, 4096)]))
    await sc.run(sock_chat)


async def legacy_server_case(env):
    r = env["r"]
    sp = ServerPlan(r, env)
    handler = make_handler(sp)
    kw = dict(sp.kw)
    if sp.unix:
        path = os.path.join(env["tmp"], "%s.sock" % env["cid"])
        if os.path.exists(path):
            os.unlink(path)
        server = await lserver.unix_serve(handler, path, **kw)
        target = Target(path=path)
    else:
        if sp.tls:
            kw["ssl"] = env["server_ssl"]
        server = await lserver.serve(handler, sp.hosts, 0, **kw)
        sock = server.sockets[0]
        target = Target(sock.getsockname()[0], sock.getsockname()[1], ssl_client=env["client_ssl"] if sp.tls else None)
    env["st"]["servers " + ("unix" if sp.unix else "tls" if sp.tls else "tcp")] = 1
    n = r.randint(1, 3)
    routes = ROUTES + (HTTP_ROUTES if sp.has_pr else []) + (["/private"] if sp.auth == "basic" else [])
    clients = []
    for _ in range(n):
        kind = pick(r, [(6, "legacy"), (3, "raw"), (1.5, "sansio")])
        path = r.choice(routes)
        if r.random() < 0.15:
            path += "?room=%d&token=%x" % (r.randrange(50), r.getrandbits(16))
        clients.append((kind, path, random.Random(r.random())))
    together = r.random() < 0.3
    hold_kind = pick(r, [(6, None), (2, "legacy"), (1, "raw_idle"), (1, "late"), (0 if sp.tls else 1, "stall")])
    loop = asyncio.get_running_loop()
    held = None
    late = None
    stalled = None

    def start(kind, path, cr, **extra):
        if kind == "legacy":
            return legacy_client(env, target, sp, cr, path, **extra)
        if kind == "raw":
            return raw_client(env, target, sp, cr, path, **extra)
        return sansio_client(env, target, sp, cr, path)

    try:
        if together:
            await asyncio.wait_for(asyncio.gather(*(start(k, p, cr) for k, p, cr in clients),
                                                  return_exceptions=True), 12)
        else:
            for k, p, cr in clients:
                await quietly(start(k, p, cr), 6)
        if hold_kind == "legacy":
            ready = loop.create_future()
            held = loop.create_task(legacy_client(env, target, sp, random.Random(r.random()),
                                                  r.choice(["/echo", "/sink", "/chat", "/feed"]), hold=ready))
            await quietly(asyncio.shield(ready), 2)
        elif hold_kind == "raw_idle":
            held = loop.create_task(raw_idle(env, target, r))
            await asyncio.sleep(0.1)
        elif hold_kind == "stall":
            stalled = loop.create_future()
            held = loop.create_task(raw_stall(env, target, r, stalled))
            await asyncio.sleep(0.2)
            late = loop.create_future()
            held = loop.create_task(raw_client(env, target, sp, random.Random(r.random()), "/echo", late=late))
            await asyncio.sleep(0.05)
    finally:
        server.close()
        if late is not None:
            await asyncio.sleep(0.005)
            late.set_result(None)
        await quietly(server.wait_closed(), 6)
        if stalled is not None:
            stalled.set_result(None)
        if held is not None:
            await quietly(held, 3)


async def raw_idle(env, target, r):
    """A raw client with an open connection that reads the close frame and
    answers it late or never."""
    try:
        reader, writer = await target.open()
    except OSError:
        return
    key = base64.b64encode(r.randbytes(16)).decode()
    writer.write(raw_request(r, target.host_header(), "/echo", key, "ok"))
    head = await quietly(reader.readuntil(b"\r\n\r\n"), 1)
    if head and head.startswith(b"HTTP/1.1 101"):
        fr = await quietly(read_frame(reader), 3)
        if fr is not None and fr[2] == 0x8 and r.random() < 0.5:
            await asyncio.sleep(r.choice([0.0, 0.1]))
            writer.write(frame_bytes(r, 0x8, fr[3], masked=True))
        await quietly(reader.read(), 2)
    await drain_close(writer)


async def raw_stall(env, target, r, stalled):
    """A raw client with a small receive buffer that asks for the firehose
    and stops reading: the server's writes back up until its shutdown has
    to abort the connection."""
    loop = asyncio.get_running_loop()
    if target.path:
        sock = socket.socket(socket.AF_UNIX)
        addr = target.path
    else:
        sock = socket.socket(socket.AF_INET6 if ":" in target.host else socket.AF_INET)
        addr = (target.host, target.port)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    try:
        await loop.sock_connect(sock, addr)
        reader, writer = await asyncio.open_connection(sock=sock, limit=4096)
    except OSError:
        sock.close()
        return
    key = base64.b64encode(r.randbytes(16)).decode()
    writer.write(raw_request(r, target.host_header(), "/firehose", key, "ok"))
    reader._transport.pause_reading()
    await quietly(asyncio.shield(stalled), 8)
    writer.transport.abort()


# ---------------------------------------------------------------------------
# legacy client cases against a hand-written server
# ---------------------------------------------------------------------------
class FastConnect(lclient.Connect):
    """connect() with the reconnecting loop's backoff in milliseconds."""
    BACKOFF_MIN = 0.02
    BACKOFF_MAX = 0.2
    BACKOFF_FACTOR = 1.618
    BACKOFF_INITIAL = 0.05


class RawServer:
    def __init__(self, r, env):
        self.r = r
        self.env = env
        self.conns = 0
        self.answers = [pick(r, [(30, "ok"), (2, "wrong_accept"), (1, "no_upgrade"), (1, "no_connection"),
                                 (1.5, "403"), (1, "500"), (1, "200"), (2, "redirect"), (0.4, "redirect_loop"),
                                 (0.6, "redirect_no_location"), (1, "unknown_ext"), (0.7, "ext_not_offered"),
                                 (0.7, "bad_ext_params"), (1, "subproto_unsupported"), (0.5, "subproto_multi"),
                                 (0.7, "subproto_unrequested"), (1, "garbage"), (0.6, "http10"), (1, "eof"),
                                 (0.6, "stall"), (5, "flaky")])]
        if self.answers[0] == "flaky":
            self.answers = [r.choice(["503", "eof", "garbage"]) for _ in range(r.randint(1, 3))] + ["ok"]
        self.talk = pick(r, [(5, "chat"), (4, "push"), (4, "bad"), (1.5, "drop"), (1.5, "deaf"),
                             (1.2, "no_close_reply"), (1, "keep_tcp"), (1, "close_first")])
        self.deflate_reply = r.random() < 0.7
        self.tasks = []

    async def start(self, tls):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, ssl=tls)
        return self.server.sockets[0].getsockname()[1]

    def answer(self):
        a = self.answers[min(self.conns - 1, len(self.answers) - 1)]
        return a

    async def handle(self, reader, writer):
        self.tasks.append(asyncio.current_task())
        self.conns += 1
        r = self.r
        a = self.answer()
        try:
            head = await quietly(reader.readuntil(b"\r\n\r\n"), 2)
            if head is None:
                return
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 2 else "/"
            hdrs = {}
            for ln in lines[1:]:
                if ":" in ln:
                    k, v = ln.split(":", 1)
                    hdrs[k.strip().lower()] = v.strip()
            key = hdrs.get("sec-websocket-key", "")
            offered_ext = hdrs.get("sec-websocket-extensions", "")
            offered_sub = [p.strip() for p in hdrs.get("sec-websocket-protocol", "").split(",") if p.strip()]
            if a == "redirect" and path.startswith("/moved"):
                a = "ok"
            if a == "stall":
                await asyncio.sleep(3)
                return
            if a == "eof":
                return
            if a == "garbage":
                writer.write(r.choice([b"SSH-2.0-OpenSSH_9.2\r\n", b"HTTP/1.1 OK\r\n\r\n", b"\x00\x01\x02\r\n\r\n"]))
                return
            out = []
            deflated = False
            if a in ("ok", "wrong_accept", "no_upgrade", "no_connection", "unknown_ext", "ext_not_offered",
                     "bad_ext_params", "subproto_unsupported", "subproto_multi", "subproto_unrequested", "http10"):
                out.append("HTTP/1.%d 101 Switching Protocols" % (0 if a == "http10" else 1))
                if a != "no_upgrade":
                    out.append("Upgrade: websocket")
                if a != "no_connection":
                    out.append("Connection: Upgrade")
                acc = accept_for(key) if a != "wrong_accept" else base64.b64encode(r.randbytes(20)).decode()
                out.append("Sec-WebSocket-Accept: %s" % acc)
                if "permessage-deflate" in offered_ext and self.deflate_reply and a == "ok":
                    out.append("Sec-WebSocket-Extensions: permessage-deflate")
                    deflated = True
                elif a == "unknown_ext":
                    out.append("Sec-WebSocket-Extensions: x-webkit-deflate-frame")
                elif a == "ext_not_offered" and "permessage-deflate" not in offered_ext:
                    out.append("Sec-WebSocket-Extensions: permessage-deflate")
                elif a == "bad_ext_params":
                    out.append("Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=20")
                if offered_sub and a == "ok":
                    out.append("Sec-WebSocket-Protocol: %s" % r.choice(offered_sub))
                elif a == "subproto_unsupported":
                    out.append("Sec-WebSocket-Protocol: stomp.v12")
                elif a == "subproto_multi":
                    out.append("Sec-WebSocket-Protocol: chat.v1, chat.v2")
                elif a == "subproto_unrequested" and not offered_sub:
                    out.append("Sec-WebSocket-Protocol: chat.v2")
                out.append("Server: raw-bench/0.1")
            elif a in ("redirect", "redirect_loop"):
                out += ["HTTP/1.1 %d Moved" % r.choice([301, 302, 307, 308]),
                        "Location: %s" % (r.choice(["/moved", "/moved?from=%s" % path.strip("/")])
                                          if a == "redirect" else "/loop/%d" % self.conns),
                        "Content-Length: 0"]
            elif a == "redirect_no_location":
                out += ["HTTP/1.1 302 Found", "Content-Length: 0"]
            else:
                code = {"403": "403 Forbidden", "500": "500 Internal Server Error", "200": "200 OK",
                        "503": "503 Service Unavailable"}[a]
                body = {"403": "forbidden\n", "500": "oops\n", "200": "<html>hello</html>", "503": "busy\n"}[a]
                out += ["HTTP/1.1 " + code, "Content-Type: text/plain", "Content-Length: %d" % len(body), "", body]
                writer.write("\r\n".join(out).encode())
                await quietly(writer.drain(), 1)
                return
            writer.write(("\r\n".join(out) + "\r\n\r\n").encode())
            await quietly(writer.drain(), 1)
            if not out[0].startswith("HTTP/1.1 101"):
                await quietly(reader.read(), 0.3)
                return
            await self.frames(reader, writer, deflated)
        finally:
            if not writer.is_closing():
                writer.close()

    async def frames(self, reader, writer, deflated):
        r = self.r
        talk = self.talk

        def send(op, data, fin=True, rsv=0):
            writer.write(frame_bytes(r, op, data, fin=fin, rsv=rsv))

        def send_msg(m):
            data = m.encode() if isinstance(m, str) else m
            op = 0x1 if isinstance(m, str) else 0x2
            if deflated and r.random() < 0.7:
                send(op, deflate(data), rsv=4)
            elif r.random() < 0.2 and len(data) > 3:
                parts = fragments(r, m)
                for i, p in enumerate(parts):
                    p = p.encode() if isinstance(p, str) else p
                    send(op if i == 0 else 0x0, p, fin=i == len(parts) - 1)
            else:
                send(op, data)

        if talk == "close_first":
            send(0x8, close_payload(close_code(r), r.choice(REASONS)))
        if talk in ("push", "bad"):
            for _ in range(r.randint(1, 5)):
                k = r.random()
                if k < 0.15:
                    send(0x9, r.choice([b"", b"srv-ping", r.randbytes(4)]))
                else:
                    send_msg(message(r, 0.3))
            if talk == "bad":
                name, data = r.choice(bad_frames(r, False, deflated, 0)
                                      + [("masked", frame_bytes(r, 0x1, b"m", masked=True))])
                writer.write(data)
            elif r.random() < 0.7:
                code = close_code(r) if r.random() < 0.85 else r.choice(BAD_CLOSE_CODES)
                send(0x8, close_payload(code, r.choice(REASONS)) if r.random() < 0.9 else b"")
        elif talk == "chat":
            send_msg("hello from raw-bench")
        deaf = talk in ("deaf", "no_close_reply")
        budget = time.monotonic() + r.choice([0.4, 0.8, 1.5])
        closed = False
        n = 0
        while time.monotonic() < budget:
            fr = await quietly(read_frame(reader), max(0.01, budget - time.monotonic()))
            if fr is None:
                break
            fin, rsv1, op, data = fr
            if op == 0x9 and not deaf:
                send(0xA, data)
            elif op == 0x8:
                if not closed and talk != "no_close_reply":
                    send(0x8, data)
                closed = True
                break
            elif op in (0x1, 0x2) and talk in ("chat", "deaf", "keep_tcp"):
                n += 1
                send_msg("ack %d" % n)
                if talk == "chat" and n >= 4 and r.random() < 0.5:
                    send(0x8, close_payload(close_code(r), "enough"))
            if talk == "drop" and n == 0 and r.random() < 0.4:
                break
        if talk == "drop":
            if r.random() < 0.5:
                writer.write(frame_bytes(r, 0x2, r.randbytes(200))[:50])
            writer.transport.abort()
            return
        if talk in ("keep_tcp", "no_close_reply"):
            await quietly(reader.read(), 1.5)
        await quietly(writer.drain(), 0.5)

    async def close(self):
        self.server.close()
        for t in self.tasks:
            if not t.done():
                t.cancel()
        await quietly(self.server.wait_closed(), 2)


async def client_case(env):
    r = env["r"]
    srv = RawServer(r, env)
    tls = env["server_ssl"] if env["certs"] is not None and r.random() < 0.08 else None
    port = await srv.start(tls)
    target = Target("127.0.0.1", port, ssl_client=env["client_ssl"] if tls else None)
    env["st"]["client answers " + srv.answers[0]] = 1
    path = r.choice(["/", "/ws", "/chat", "/stream?since=%d" % r.randrange(1000)])
    try:
        if len(srv.answers) > 1:
            kind = pick(r, [(7, "loop"), (3, "legacy")])
        else:
            kind = pick(r, [(7, "legacy"), (0.5 if srv.answers[0] == "ok" else 0, "loop"), (1.5, "sansio")])
        env["st"]["client " + kind] = 1
        if kind == "sansio":
            await sansio_client(env, target, None, r, path)
        elif kind == "loop":
            await quietly(reconnect_loop(env, target, r, path), 4)
        else:
            await legacy_talk(env, target, r, path)
    finally:
        await srv.close()


async def legacy_talk(env, target, r, path):
    kw = client_kw(r, None, path)
    if r.random() < 0.5:
        kw["open_timeout"] = r.choice([0.3, 1.0])
    userinfo = "alice:s3cret@" if r.random() < 0.1 else ""
    try:
        ws = await asyncio.wait_for(target.connect(path, userinfo=userinfo, **kw), 3)
    except (wse.InvalidHandshake, OSError, asyncio.TimeoutError, wse.ConnectionClosed, wse.InvalidURI) as e:
        env["notes"].append(type(e).__name__)
        return
    await talk(r, ws)


async def talk(r, ws):
    end = pick(r, [(6, "close"), (3, "wait"), (1, "abort")])
    try:
        for _ in range(r.randint(0, 5)):
            k = pick(r, [(4, "send"), (3, "recv"), (1, "ping"), (1, "fragmented")])
            if k == "send":
                await ws.send(message(r, 0.3))
            elif k == "fragmented":
                await ws.send(fragments(r, message(r, 0.3)))
            elif k == "ping":
                await quietly(await ws.ping(), 0.3)
            else:
                await recv_some(ws, 0.3)
        if end == "close":
            await ws.close(close_code(r), r.choice(REASONS))
        elif end == "wait":
            for _ in range(10):
                if await recv_some(ws, 0.5) is None:
                    break
        else:
            rst(ws.transport) if r.random() < 0.5 else ws.transport.abort()
    except (wse.ConnectionClosed, asyncio.TimeoutError, wse.InvalidState, wse.ProtocolError):
        pass
    await quietly(ws.wait_closed(), 3)


async def reconnect_loop(env, target, r, path):
    """``async for websocket in connect(...)``: reconnects until it gets in."""
    kw = client_kw(r, None, path)
    kw.pop("open_timeout", None)
    tries = 0
    try:
        async for ws in target.connect(path, cls=FastConnect, open_timeout=1, **kw):
            tries += 1
            await talk(r, ws)
            if tries >= 1:
                break
    except (OSError, wse.WebSocketException, asyncio.TimeoutError):
        pass


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
LOG = None
FILTER = None
ARGS = None


class Renderable(logging.Filter):
    """Drops the records logging could not render (counted), and counts
    those outside the package (the capture drops them)."""

    def __init__(self, pkg_dir):
        super().__init__()
        self.pkg_dir = pkg_dir
        self.unrenderable = 0
        self.outside = 0

    def filter(self, record):
        try:
            record.getMessage()
        except Exception:  # noqa: BLE001  what logging would report as a "Logging error"
            self.unrenderable += 1
            return False
        if not os.path.realpath(record.pathname).startswith(self.pkg_dir + os.sep):
            self.outside += 1
        return True


def init_worker(seed, tmp, certs):
    global LOG, FILTER, ARGS
    ARGS = (seed, tmp, certs)
    warnings.simplefilter("ignore")
    LOG = _capture.EventLog(websockets, os.devnull, logger_names=LOGGER_ROOTS)
    FILTER = Renderable(LOG.pkg_dir)
    LOG.addFilter(FILTER)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False
    aio = logging.getLogger("asyncio")
    aio.addHandler(logging.NullHandler())
    aio.propagate = False


class CaseTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise CaseTimeout()


def run_case(i):
    seed, tmp, certs = ARGS
    cid = "ws-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    random.seed("%d-%d-global" % (seed, i))  # websockets' own draws: ping payloads, reconnection delays
    st = {}
    env = {"cid": cid, "r": r, "st": st, "notes": [], "tmp": tmp, "certs": certs,
           "server_ssl": None, "client_ssl": None}
    if certs is not None:
        sctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        sctx.load_cert_chain(certs["cert"], certs["key"])
        cctx = ssl.create_default_context(cafile=certs["cert"])
        env["server_ssl"], env["client_ssl"] = sctx, cctx
    kind = pick(r, [(35, "sansio"), (45, "server"), (20, "client")])
    st["kind " + kind] = 1
    FILTER.unrenderable = FILTER.outside = 0
    LOG._rows = []
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(60)
    try:
        if kind == "sansio":
            MemCase(r, st).run()
        else:
            coro = legacy_server_case(env) if kind == "server" else client_case(env)
            asyncio.run(asyncio.wait_for(coro, 30))
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        key = "case exceptions " + type(e).__name__
        st[key] = st.get(key, 0) + 1
        if os.environ.get("GEN_DEBUG"):
            import traceback
            traceback.print_exc()
    finally:
        signal.alarm(0)
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
    st["unrenderable"] = FILTER.unrenderable
    st["outside"] = FILTER.outside
    if os.environ.get("GEN_DEBUG"):
        sys.stderr.write("%s %s %d events %.2fs %s\n" % (cid, kind, len(rows), time.time() - t0,
                                                        " ".join(env["notes"])))
    return i, cid, rows, st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=4, help="cases run side by side, each worker a process")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gen_websockets_")
    t0 = time.time()
    totals = {}
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    try:
        certs = _capture.self_signed_cert(tmp)
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(max(1, a.jobs), initializer=init_worker, initargs=(a.seed, tmp, certs),
                      maxtasksperchild=80) as pool:
            # the main process only writes: its capture listens to no logger
            log = _capture.EventLog(websockets, a.out, logger_names=["websockets.bench-unused"])
            try:
                for i, cid, rows, st in pool.imap(run_case, todo, chunksize=1):
                    log.write_case(cid, rows)
                    for k, v in st.items():
                        totals[k] = totals.get(k, 0) + v
            finally:
                log.finish()
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; kinds %s; case exceptions %s; unrenderable records dropped %d; records outside the "
                         "package %d; %.0fs\n" % (log.summary(), kinds, errs or "none", totals.get("unrenderable", 0),
                                                  totals.get("outside", 0), time.time() - t0))
        if os.environ.get("GEN_DEBUG"):
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_websockets: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
