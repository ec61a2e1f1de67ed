#!/usr/bin/python3
"""Event log of h2 (Debian python3-h2 4.1.0, over python3-hyperframe 6.0.0
and python3-hpack 4.0.0), the sans-I/O HTTP/2 state machine: an h2 client
connection and an h2 server connection wired to each other in this process.

    /usr/bin/python3 gen_h2.py --out .deps/logs/h2.csv.gz [--cases 300] [--seed 1]
    /usr/bin/python3 gen_h2.py --repo     # prints the directory to index

Indexed: the installed ``h2`` directory
(``/usr/lib/python3/dist-packages/h2``). hyperframe and hpack, which h2
uses for frames and header compression, log nothing and are not indexed.

A case is one HTTP/2 connection lifetime between an ``H2Connection`` with
``client_side=True`` and one with ``client_side=False``, driven by a small
application on each side written here. The bytes one side's
``data_to_send()`` returns are fed to the other side's ``receive_data()``:
handed over whole or cut into random pieces in memory, or written to a real
``socket.socketpair()`` or a loopback TCP connection and fed as ``recv``
returns them. The case draws:

- each side's ``H2Configuration``: ``validate_outbound_headers``,
  ``normalize_outbound_headers``, ``validate_inbound_headers``,
  ``normalize_inbound_headers`` (each usually on) and ``header_encoding``
  (bytes, UTF-8, Latin-1 or ``False``);
- the start: ``initiate_connection`` on both sides, or an h2c upgrade
  (``initiate_upgrade_connection``, the client's ``HTTP2-Settings`` value
  handed to the server, stream 1 answered by the server), or a client that
  sends a broken connection preface; then settings changes with
  ``update_settings`` (header table size, push on or off, concurrent stream
  limits, initial window sizes from 2 KiB to 1 MiB, frame sizes, header list
  sizes), sometimes again in mid-connection;
- a workload of 1-10 requests (GET, HEAD, POST, PUT, DELETE, OPTIONS) opened
  with ``get_next_available_stream_id``/``send_headers``, several at once,
  some with priority fields, bodies of random sizes (none to ~200 KB) sent
  with ``send_data`` as the flow-control windows allow (streams blocked
  until WINDOW_UPDATEs, random frame sizes and padding), ended by the
  END_STREAM flag, ``end_stream()`` or trailers; right, missing or wrong
  ``content-length``; now and then headers that break RFC 7540 (with
  outbound validation off, or refused by h2 when it is on);
- the server's answers: at once or later, sometimes after 1xx informational
  responses, with server pushes (``push_stream``) of 1-3 resources, stream
  alternative services, trailers, resets (REFUSED_STREAM, CANCEL...), or
  none; the client cancels some requests and pushed streams;
- each receiver's acknowledgement of data (``acknowledge_received_data`` at
  once, in batches or late, so that windows fill), extra
  ``increment_flow_control_window`` calls, pings, ``prioritize``, and
  application mistakes h2 refuses (data beyond the window or frame size,
  bad padding, data on closed streams, pings of the wrong size, pushes the
  client disabled, too many streams, invalid settings, trailers without
  END_STREAM, priority on the server);
- frames written by hand with hyperframe (and header blocks with hpack) and
  put on the wire between the two: harmless ones (extension frames of
  unknown types, ALTSVC, PRIORITY, DATA and WINDOW_UPDATE on closed
  streams, RST_STREAM on idle streams, unsolicited PING ACKs, HEADERS on a
  reset stream) and, in about a third of the cases, one that h2 must
  refuse, ending the connection with a GOAWAY: HEADERS on a stream of the
  wrong parity, on a closed or too-low stream, beyond the concurrent stream
  limit, with invalid or undecodable header blocks, oversized header lists
  (over CONTINUATION frames), DATA on idle streams or on stream 0, beyond
  the flow-control window, with bad padding or over the frame size, a
  naked CONTINUATION, a header block interrupted by another frame, a
  self-dependent PRIORITY, WINDOW_UPDATEs of 0 or overflowing the window,
  invalid SETTINGS values, PUSH_PROMISE to a server, to a client that
  disabled push, recursive or on a closed stream, response headers on a
  stream the client never opened;
- the end: a GOAWAY from the client or the server (with or without an error
  code and debug data), or the transport closed without one; or earlier, a
  GOAWAY with INTERNAL_ERROR from a side whose headers h2 refused (invalid
  headers, trailers without END_STREAM: its HPACK context may have moved
  already, so the application gives up on the connection).

The hand-made header blocks use never-indexed fields, so both HPACK dynamic
tables stay in step (starting with the table size update the receiver waits
for, when it waits for one). Each case draws from ``random.Random`` seeded
with ``<seed>-<case>``; in-memory and socket transports alike, a seed gives
the same log apart from timestamps and the object addresses h2 prints.

Capture: h2 logs only through the logger its configuration is handed
(``H2Configuration(logger=...)``; its default drops everything), calling
``logger.debug(fmt, *args)`` and ``logger.trace(fmt, *args)``. Each side is
given a ``logging.Logger`` of its own, ``h2.client`` or ``h2.server``, of a
``Logger`` subclass that adds a ``trace`` method as an application would:
it logs at a custom level ``TRACE`` (5, below DEBUG) with ``stacklevel=2``,
so the record's call site is the h2 line that called ``trace``, not the
method; h2's sites call the logger directly and no frame is declared a
wrapper (``code.wrapped`` is always 0). ``_capture.py``'s handler sits on
``h2`` (not propagating), both it and the logger at TRACE, so every
level is captured. Everything runs in the main thread, one case after the
other. Records logged outside the indexed directory are dropped (there are
none: only h2 is handed the loggers); so are cases with fewer than 3
events.
"""
import argparse
import logging
import os
import random
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import h2  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(h2.__file__)))
    sys.exit(0)

import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events as ev  # noqa: E402
import h2.exceptions  # noqa: E402
import hpack  # noqa: E402
from h2.errors import ErrorCodes  # noqa: E402
from h2.settings import SettingCodes  # noqa: E402
from hpack.hpack import encode_integer  # noqa: E402
from hyperframe import frame as hf  # noqa: E402

TRACE = 5
logging.addLevelName(TRACE, "TRACE")


class TraceLogger(logging.Logger):
    """A Logger with the ``trace`` method h2 calls, at level TRACE. The
    record is made for the caller's frame (stacklevel=2): the h2 line."""

    def trace(self, msg, *args, **kwargs):
        if self.isEnabledFor(TRACE):
            kwargs.setdefault("stacklevel", 2)
            self._log(TRACE, msg, args, **kwargs)


def trace_logger(name):
    old = logging.getLoggerClass()
    logging.setLoggerClass(TraceLogger)
    try:
        lg = logging.getLogger(name)
    finally:
        logging.setLoggerClass(old)
    assert isinstance(lg, TraceLogger), name
    return lg


H2_ERRORS = (h2.exceptions.H2Error, ValueError, TypeError, KeyError)

AUTHORITIES = ["example.test", "api.bench.test:8443", "localhost", "cdn.example.org", "127.0.0.1:8080"]
PATHS = ["/", "/index.html", "/api/v1/items", "/api/v1/items/%d", "/static/app.js", "/static/style.css",
         "/search?q=%s", "/upload", "/feed.xml", "/img/logo-%d.png", "/health", "/login"]
WORDS = ["alpha", "beta", "gamma", "delta", "http2", "stream", "window", "frame", "push", "caf\u00e9"]
UAS = ["bench-client/1.0", "curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", "h2-app/0.3"]
CTYPES = ["text/html; charset=utf-8", "application/json", "text/plain", "application/octet-stream",
          "image/png", "text/css", "application/javascript"]
PUSHED = ["/static/app.js", "/static/style.css", "/img/logo-1.png", "/fonts/main.woff2", "/manifest.json"]
STATUSES = [(10, "200"), (2, "201"), (2, "204"), (1, "206"), (1, "301"), (1, "304"), (3, "404"), (1, "403"),
            (1, "500"), (1, "503"), (1, "429")]

# header lists that break RFC 7540's rules (sent with outbound validation off,
# or refused by h2 when it is on)
BAD_REQUEST = [
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("Connection", "keep-alive")],
    lambda a: [(":method", "GET"), (":scheme", "https"), (":authority", a)],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("te", "gzip")],
    lambda a: [(":method", "GET"), ("accept", "*/*"), (":path", "/"), (":scheme", "https"), (":authority", a)],
    lambda a: [(":method", "GET"), (":method", "POST"), (":path", "/"), (":scheme", "https"), (":authority", a)],
    lambda a: [(":method", "GET"), (":path", ""), (":scheme", "https"), (":authority", a)],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("x-pad", " spaced ")],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("host", "other.test")],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), (":status", "200")],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("", "empty")],
    lambda a: [(":method", "GET"), (":path", "/"), (":scheme", "https"), (":authority", a), ("X-Upper", "1"),
               ("transfer-encoding", "chunked")],
]
BAD_RESPONSE = [
    lambda: [("content-type", "text/plain")],
    lambda: [(":status", "200"), (":path", "/")],
    lambda: [(":status", "200"), ("Content-Type", "text/html")],
    lambda: [(":status", "200"), ("connection", "close")],
    lambda: [("server", "bench"), (":status", "200")],
    lambda: [(":status", "200"), (":status", "204")],
    lambda: [(":status", "200"), ("keep-alive", "timeout=5")],
    lambda: [(":status", "200"), ("x-trailing", "value ")],
]


def body_bytes(r, n):
    if n <= 0:
        return b""
    unit = ("%s-%d " % (r.choice(WORDS[:-1]), r.randrange(1000))).encode()
    return (unit * (n // len(unit) + 1))[:n]


def body_size(r, big=1.0):
    return pick(r, [(5, 0), (6, r.randint(1, 1500)), (3, r.randint(1500, 16000)),
                    (0.5 * big, r.randint(16000, 70000)), (0.08 * big, r.randint(70000, 200000))])


def frame_cap(r, size):
    """The largest DATA frame the application writes at once."""
    if size < 8000 and r.random() < 0.3:
        return r.choice([500, 1000, 2000])
    return r.choice([16384, 16384, 16384, 8192, 65536])


def as_bytes_maybe(r, headers):
    """Headers as str tuples, bytes tuples, or hpack HeaderTuples."""
    k = r.random()
    if k < 0.5:
        return headers
    if k < 0.85:
        return [(n.encode("utf-8"), v.encode("utf-8")) for n, v in headers]
    out = []
    for n, v in headers:
        cls = hpack.NeverIndexedHeaderTuple if n in ("authorization", "cookie") else hpack.HeaderTuple
        out.append(cls(n, v))
    return out


# ---------------------------------------------------------------------------
# transports
# ---------------------------------------------------------------------------
class MemLink:
    """Bytes handed over in memory, whole or cut into random pieces."""

    def __init__(self, r, cut):
        self.r = r
        self.cut = cut

    def carry(self, from_client, data):
        if not self.cut or len(data) < 2:
            return [data]
        out = []
        while data:
            n = self.r.choice([1, 7, 9, 10, 64, 500, 4096, 20000])
            n = min(len(data), max(1, int(n * (0.5 + self.r.random()))))
            out.append(data[:n])
            data = data[n:]
        return out

    def close(self):
        pass


class SockLink:
    """Bytes written to one end of a real socket pair (Unix socketpair or
    loopback TCP) and read back from the other as recv returns them."""

    PIECE = 32768

    def __init__(self, kind):
        if kind == "socketpair":
            self.c, self.s = socket.socketpair()
        else:
            lst = socket.socket()
            lst.bind(("127.0.0.1", 0))
            lst.listen(1)
            self.c = socket.create_connection(lst.getsockname(), timeout=5)
            self.s, _ = lst.accept()
            lst.close()
            for so in (self.c, self.s):
                so.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for so in (self.c, self.s):
            so.settimeout(5)

    def carry(self, from_client, data):
        out, inp = (self.c, self.s) if from_client else (self.s, self.c)
        chunks = []
        for off in range(0, len(data), self.PIECE):
            piece = data[off:off + self.PIECE]
            out.sendall(piece)
            got = 0
            while got < len(piece):
                buf = inp.recv(65536)
                if not buf:
                    raise OSError("peer closed")
                chunks.append(buf)
                got += len(buf)
        return chunks

    def close(self):
        for so in (self.c, self.s):
            try:
                so.close()
            except OSError:
                pass


# ---------------------------------------------------------------------------
# one side of the connection
# ---------------------------------------------------------------------------
class Body:
    def __init__(self, data, end, trailers, pad, chunk):
        self.data = data
        self.end = end            # "flag", "separate" or "empty": how END_STREAM is sent
        self.trailers = trailers  # header list or None
        self.pad = pad            # probability of padding a DATA frame
        self.chunk = chunk        # largest DATA frame the application writes


class Side:
    def __init__(self, case, client, cfg, logger):
        self.case = case
        self.r = case.r
        self.client = client
        self.name = "client" if client else "server"
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(
            client_side=client, logger=logger, **cfg))
        self.out = {}
        self.unacked = {}
        self.dead = False      # raised on receiving: its GOAWAY is queued
        self.got_goaway = False
        p = case.p
        self.ack = p["ack_" + self.name]
        self.react = p["react_" + self.name]
        self.closed = []       # stream ids seen ending normally
        self.reset = []        # stream ids reset (either way)
        self.open = []         # stream ids with headers exchanged, not known ended

    # -- sending ----------------------------------------------------------------
    def flush(self):
        """Writes as much of the queued bodies as the windows allow."""
        if self.dead or self.got_goaway:
            return
        r = self.r
        for _ in range(64):
            progressed = False
            for sid in list(self.out):
                b = self.out.get(sid)
                if b is None:
                    continue
                try:
                    if b.data:
                        win = min(self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size)
                        if win <= 0:
                            continue
                        n = min(len(b.data), win, b.chunk)
                        pad = None
                        if b.pad and r.random() < b.pad and win > 2:
                            pad = r.randint(0, min(255, win - 2))
                            n = max(1, min(n, win - pad - 1))
                        last = n == len(b.data)
                        self.conn.send_data(sid, b.data[:n], end_stream=last and b.end == "flag" and not b.trailers,
                                            pad_length=pad)
                        b.data = b.data[n:]
                        progressed = True
                        if not last:
                            continue
                    elif b.end == "empty" and not b.trailers:
                        self.conn.send_data(sid, b"", end_stream=True)
                        del self.out[sid]
                        continue
                    if b.trailers:
                        self.conn.send_headers(sid, b.trailers, end_stream=True)
                    elif b.end == "separate":
                        self.conn.end_stream(sid)
                    del self.out[sid]
                    progressed = True
                except H2_ERRORS:
                    self.out.pop(sid, None)
            if not progressed:
                break

    def ack_all(self, part=1.0):
        for sid in list(self.unacked):
            n = self.unacked.pop(sid)
            if part < 1.0:
                keep = int(n * (1 - part))
                if keep:
                    self.unacked[sid] = keep
                n -= keep
            if n <= 0:
                continue
            try:
                self.conn.acknowledge_received_data(n, sid)
            except H2_ERRORS:
                pass

    # -- receiving --------------------------------------------------------------
    def feed(self, chunk):
        if self.dead:
            return
        try:
            events = self.conn.receive_data(chunk)
        except h2.exceptions.ProtocolError as e:
            self.dead = True
            self.case.note("%s refused: %s %s" % (self.name, type(e).__name__, e))
            return
        except Exception as e:  # noqa: BLE001  (h2 bugs: keep the generator going)
            self.dead = True
            self.case.note("%s raised %s" % (self.name, type(e).__name__))
            return
        for e in events:
            self.handle(e)

    def handle(self, e):
        r = self.r
        case = self.case
        if isinstance(e, ev.DataReceived):
            n = e.flow_controlled_length
            if self.ack == "eager":
                try:
                    self.conn.acknowledge_received_data(n, e.stream_id)
                except H2_ERRORS:
                    pass
            else:
                self.unacked[e.stream_id] = self.unacked.get(e.stream_id, 0) + n
                if self.ack == "batch" and self.unacked[e.stream_id] >= case.p["batch"]:
                    n = self.unacked.pop(e.stream_id)
                    try:
                        self.conn.acknowledge_received_data(n, e.stream_id)
                    except H2_ERRORS:
                        pass
        elif isinstance(e, ev.WindowUpdated):
            if self.react and self.out:
                self.flush()
        elif isinstance(e, ev.RequestReceived):
            if e.stream_id not in self.open:
                self.open.append(e.stream_id)
            case.requests_in[e.stream_id] = e.headers
            if e.stream_ended is not None:
                case.server_request_done(e.stream_id)
        elif isinstance(e, ev.StreamEnded):
            if e.stream_id in self.open:
                self.open.remove(e.stream_id)
            self.closed.append(e.stream_id)
            if self.client:
                case.pending.discard(e.stream_id)
            elif e.stream_id in case.requests_in:
                case.server_request_done(e.stream_id)
        elif isinstance(e, ev.StreamReset):
            self.out.pop(e.stream_id, None)
            self.reset.append(e.stream_id)
            if e.stream_id in self.open:
                self.open.remove(e.stream_id)
            if self.client:
                case.pending.discard(e.stream_id)
            else:
                case.deferred = [x for x in case.deferred if x != e.stream_id]
        elif isinstance(e, ev.PushedStreamReceived):
            case.pending.add(e.pushed_stream_id)
            self.open.append(e.pushed_stream_id)
            if r.random() < case.p["refuse_push"]:
                try:
                    self.conn.reset_stream(e.pushed_stream_id, r.choice([ErrorCodes.CANCEL,
                                                                          ErrorCodes.REFUSED_STREAM]))
                    case.pending.discard(e.pushed_stream_id)
                    self.reset.append(e.pushed_stream_id)
                except H2_ERRORS:
                    pass
        elif isinstance(e, ev.ConnectionTerminated):
            self.got_goaway = True
        elif isinstance(e, ev.PingReceived):
            pass
        # ResponseReceived, InformationalResponseReceived, TrailersReceived,
        # SettingsAcknowledged, RemoteSettingsChanged, PriorityUpdated,
        # AlternativeServiceAvailable, UnknownFrameReceived, PingAckReceived:
        # nothing to do


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
FATAL_TO_SERVER = ["even_headers", "low_headers", "too_many", "bad_headers", "garbage_hpack", "huge_headers",
                   "data_idle", "data_stream0", "data_over_window", "bad_padding", "oversize", "naked_continuation",
                   "interrupted_block", "self_priority", "window_zero", "window_overflow", "bad_settings",
                   "push_to_server"]
FATAL_TO_CLIENT = ["odd_headers", "push_disabled", "push_recursive", "push_closed", "bad_response",
                   "garbage_hpack", "data_over_window", "bad_padding", "oversize", "naked_continuation",
                   "interrupted_block", "self_priority", "window_zero", "window_overflow", "bad_settings"]
BENIGN = ["unknown", "altsvc", "priority", "data_closed", "window_closed", "rst_idle", "ping_ack",
          "headers_reset"]


def next_odd(highest):
    """The next client stream id after highest (0: none yet)."""
    return highest + 2 if highest else 1


def side_config(r):
    return {
        "validate_outbound_headers": r.random() < 0.85,
        "normalize_outbound_headers": r.random() < 0.85,
        "validate_inbound_headers": r.random() < 0.85,
        "normalize_inbound_headers": r.random() < 0.8,
        "header_encoding": pick(r, [(5, None), (3, "utf-8"), (1, "iso-8859-1"), (1, False)]),
    }


def random_settings(r, client):
    s = {}
    for _ in range(r.randint(1, 3)):
        k = r.randrange(7)
        if k == 0:
            s[SettingCodes.HEADER_TABLE_SIZE] = r.choice([0, 512, 4096, 16384, 65536])
        elif k == 1 and client:
            s[SettingCodes.ENABLE_PUSH] = r.choice([0, 1])
        elif k == 2:
            s[SettingCodes.MAX_CONCURRENT_STREAMS] = r.choice([1, 2, 3, 5, 10, 100, 1000])
        elif k == 3:
            s[SettingCodes.INITIAL_WINDOW_SIZE] = r.choice([2048, 4096, 16384, 65535, 262144, 1048576])
        elif k == 4:
            s[SettingCodes.MAX_FRAME_SIZE] = r.choice([16384, 32768, 65536, 1048576])
        elif k == 5:
            s[SettingCodes.MAX_HEADER_LIST_SIZE] = r.choice([256, 1024, 2048, 8192, 8192, 65536, 65536])
        else:
            s[SettingCodes.INITIAL_WINDOW_SIZE] = r.choice([8192, 32768, 65535, 131072])
    return s


def make_plan(r):
    p = {
        "transport": pick(r, [(6, "memory"), (2, "cut"), (2, "socketpair"), (2, "tcp")]),
        "start": pick(r, [(14, "normal"), (3, "upgrade"), (1, "bad_preface")]),
        "client_cfg": side_config(r),
        "server_cfg": side_config(r),
        "requests": r.randint(1, 10),
        "burst": r.choice([0.0, 0.2, 0.5]),
        "ack_client": pick(r, [(4, "eager"), (3, "batch"), (2, "late")]),
        "ack_server": pick(r, [(4, "eager"), (3, "batch"), (2, "late")]),
        "batch": r.choice([1024, 8192, 32768]),
        "react_client": r.random() < 0.6,
        "react_server": r.random() < 0.7,
        "defer": r.choice([0.0, 0.3, 0.7]),
        "push": pick(r, [(4, 0.0), (2, 0.3), (1, 0.8)]),
        "refuse_push": r.choice([0.0, 0.0, 0.3]),
        "big": r.choice([0.3, 1.0, 1.0, 2.0]),
        "limits": r.random() < 0.8,          # the client keeps to the stream limit
        "bad_headers": r.choice([0.0, 0.0, 0.0, 0.1, 0.3]),
        "misuse": r.choice([0.0, 0.03, 0.1]),
        "benign": r.choice([0.0, 0.05, 0.15]),
        "fatal": None,
        "end": pick(r, [(4, "client_goaway"), (4, "server_goaway"), (1, "server_error"), (3, "drop")]),
        "init_settings_client": random_settings(r, True) if r.random() < 0.6 else None,
        "init_settings_server": random_settings(r, False) if r.random() < 0.6 else None,
        "mid_settings": r.random() < 0.3,
        "max_ticks": r.randint(12, 40),
    }
    if r.random() < 0.35:
        to_server = r.random() < 0.55
        p["fatal"] = (to_server, r.choice(FATAL_TO_SERVER if to_server else FATAL_TO_CLIENT),
                      r.randint(1, max(1, p["max_ticks"] - 2)))
    return p


class Case:
    def __init__(self, r, loggers):
        self.r = r
        self.p = p = make_plan(r)
        self.notes = []
        self.requests_in = {}     # server: stream id -> request headers
        self.answered = set()     # server: streams answered (or refused)
        self.deferred = []        # server: streams whose answer waits for a later step
        self.pending = set()      # client: streams waiting for their response
        self.sent_requests = 0
        self.authority = r.choice(AUTHORITIES)
        self.c = Side(self, True, p["client_cfg"], loggers[0])
        self.s = Side(self, False, p["server_cfg"], loggers[1])
        if p["transport"] in ("socketpair", "tcp"):
            self.link = SockLink(p["transport"])
        else:
            self.link = MemLink(r, p["transport"] == "cut")
        self.over = False
        self.misuse_side = self.s
        self.block_dst = self.s

    def note(self, what):
        self.notes.append(what)

    # -- wire -------------------------------------------------------------------
    def deliver(self, src, data):
        dst = self.s if src is self.c else self.c
        if dst.dead:
            return
        for chunk in self.link.carry(src is self.c, data):
            dst.feed(chunk)
            if dst.dead:
                break

    def pump(self):
        for _ in range(400):
            moved = False
            for src in (self.c, self.s):
                data = src.conn.data_to_send()
                if data:
                    moved = True
                    self.deliver(src, data)
            if not moved:
                break
        if self.c.dead or self.s.dead or self.c.got_goaway or self.s.got_goaway:
            self.over = True

    def inject(self, src, frames):
        """Puts hand-made frames on the wire after what src has queued."""
        self.pump()
        if self.over:
            return
        raw = b"".join(f if isinstance(f, bytes) else f.serialize() for f in frames)
        self.deliver(src, raw)
        self.pump()

    def local_error(self, sd, e):
        """h2 refused headers the application handed it (plain ProtocolError:
        invalid headers, trailers without END_STREAM...). The header
        compression context may have moved already, so the application gives
        up on the connection."""
        if type(e) is not h2.exceptions.ProtocolError or sd.dead or sd.got_goaway:
            return
        if str(e).startswith(("Invalid input StreamInputs", "Attempted to push", "Cannot recursively push",
                              "Remote peer has disabled")):
            return  # refused before any header was encoded: the stream alone is lost
        self.note("%s gives up" % sd.name)
        try:
            sd.conn.close_connection(error_code=ErrorCodes.INTERNAL_ERROR)
        except H2_ERRORS:
            pass
        self.pump()
        self.over = True

    # -- requests and responses ------------------------------------------------------
    def request_headers(self, method, path, size, r):
        h = [(":method", method), (":path", path), (":scheme", r.choice(["https", "https", "http"])),
             (":authority", self.authority)]
        if r.random() < 0.6:
            h.append(("user-agent", r.choice(UAS)))
        if r.random() < 0.5:
            h.append(("accept", r.choice(["*/*", "application/json", "text/html,application/xhtml+xml"])))
        if r.random() < 0.3:
            h.append(("accept-encoding", "gzip, deflate, br"))
        for _ in range(r.choice([0, 0, 1, 2, 3])):
            h.append(("cookie", "%s=%d" % (r.choice(WORDS[:-1]), r.randrange(10 ** 6))))
        if r.random() < 0.15:
            h.append(("authorization", "Bearer %032x" % r.getrandbits(128)))
        if r.random() < 0.1:
            h.append(("x-note", r.choice(WORDS)))
        if size:
            h.append(("content-type", r.choice(CTYPES)))
        if r.random() < 0.04 and not self.p["client_cfg"]["normalize_outbound_headers"]:
            h.append(("X-Mixed-Case", "1"))
        return h

    def open_request(self):
        r, c = self.r, self.c
        if c.got_goaway or c.dead:
            return
        if self.p["limits"] and c.conn.open_outbound_streams >= c.conn.remote_settings.max_concurrent_streams:
            return
        method = pick(r, [(10, "GET"), (4, "POST"), (1, "PUT"), (1, "DELETE"), (1, "HEAD"), (1, "OPTIONS")])
        path = r.choice(PATHS)
        if "%d" in path:
            path = path % r.randrange(1000)
        elif "%s" in path:
            path = path % r.choice(WORDS[:-1])
        size = body_size(r, self.p["big"]) if method in ("POST", "PUT") else 0
        headers = self.request_headers(method, path, size, r)
        trailers = None
        if size and r.random() < 0.15:
            headers.append(("te", "trailers"))
            trailers = [("x-checksum", "%08x" % r.getrandbits(32)), ("x-items", str(r.randrange(50)))]
        cl = r.random()
        if cl < 0.015:
            headers.append(("content-length", str(size + r.choice([-1, 5, 100]) if size > 1 else 7)))
        elif cl < 0.5 and size:
            headers.append(("content-length", str(size)))
        if r.random() < self.p["bad_headers"] * (1.0 if not c.conn.config.validate_outbound_headers else 0.15):
            headers = r.choice(BAD_REQUEST)(self.authority)
            size = 0
        kw = {}
        if r.random() < 0.15:
            kw["priority_weight"] = r.choice([1, 16, 32, 100, 256])
            if c.open and r.random() < 0.6:
                kw["priority_depends_on"] = r.choice(c.open)
                kw["priority_exclusive"] = r.random() < 0.3
        end = pick(r, [(6, "flag"), (2, "separate"), (1, "empty")])
        try:
            sid = c.conn.get_next_available_stream_id()
            self.sent_requests += 1
            c.conn.send_headers(sid, as_bytes_maybe(r, headers), end_stream=not size and end == "flag"
                                and not trailers, **kw)
        except H2_ERRORS as e:
            self.note("request refused locally: %s %s" % (type(e).__name__, e))
            self.local_error(c, e)
            return
        c.open.append(sid)
        self.pending.add(sid)
        if size or end != "flag" or trailers:
            c.out[sid] = Body(body_bytes(r, size), end, trailers, r.choice([0, 0, 0.2, 0.5]), frame_cap(r, size))

    def server_request_done(self, sid):
        if sid in self.answered or sid in self.deferred:
            return
        if self.r.random() < self.p["defer"]:
            self.deferred.append(sid)
        else:
            self.answer(sid)

    def answer(self, sid):
        r, s = self.r, self.s
        self.answered.add(sid)
        if s.dead or s.got_goaway:
            return
        req = self.requests_in.get(sid, [])
        method = b"GET"
        for n, v in req:
            if n in (b":method", ":method"):
                method = v if isinstance(v, bytes) else v.encode()
        k = r.random()
        try:
            if k < 0.07:
                s.conn.reset_stream(sid, r.choice([ErrorCodes.REFUSED_STREAM, ErrorCodes.INTERNAL_ERROR,
                                                   ErrorCodes.CANCEL, ErrorCodes.ENHANCE_YOUR_CALM]))
                s.reset.append(sid)
                return
            if k < 0.09:
                return  # never answered
            if r.random() < 0.08:
                s.conn.advertise_alternative_service(b'h2=":8443"; ma=%d' % r.choice([60, 3600]), stream_id=sid)
            if r.random() < 0.12:
                s.conn.send_headers(sid, [(":status", r.choice(["100", "103"])),
                                          ("link", "</static/style.css>; rel=preload")])
            if r.random() < self.p["push"] and sid % 2 == 1 and s.conn.remote_settings.enable_push:
                for _ in range(r.randint(1, 3)):
                    pid = s.conn.get_next_available_stream_id()
                    s.conn.push_stream(sid, pid, [(":method", "GET"), (":path", r.choice(PUSHED)),
                                                  (":scheme", "https"), (":authority", self.authority)])
                    self.requests_in[pid] = []
                    s.open.append(pid)
                    if r.random() < 0.5:
                        self.deferred.append(pid)
                    else:
                        self.respond(pid, b"GET")
            if r.random() < 0.04 and s.conn.config.validate_outbound_headers is False:
                s.conn.send_headers(sid, r.choice(BAD_RESPONSE)(), end_stream=True)
                return
            self.respond(sid, method)
        except H2_ERRORS as e:
            self.note("answer refused locally: %s %s" % (type(e).__name__, e))
            self.local_error(s, e)

    def respond(self, sid, method):
        r, s = self.r, self.s
        self.answered.add(sid)
        status = pick(r, STATUSES)
        size = 0 if status in ("204", "304") or method == b"HEAD" else body_size(r, self.p["big"])
        h = [(":status", status), ("content-type", r.choice(CTYPES)), ("server", "h2-bench")]
        if r.random() < 0.4:
            h.append(("date", "Mon, 0%d Jan 2024 10:00:00 GMT" % r.randint(1, 9)))
        if r.random() < 0.3:
            h.append(("cache-control", r.choice(["no-store", "max-age=3600", "private"])))
        if r.random() < 0.2:
            h.append(("set-cookie", "sid=%x; HttpOnly" % r.getrandbits(40)))
        if r.random() < 0.2:
            h.append(("etag", '"%x"' % r.getrandbits(32)))
        cl = r.random()
        if cl < 0.01 and method != b"HEAD":
            h.append(("content-length", str(size + r.choice([1, 10, 1000]))))
        elif cl < 0.5 and size:
            h.append(("content-length", str(size)))
        trailers = None
        if size and r.random() < 0.2:
            trailers = [("grpc-status", str(r.choice([0, 0, 2, 14]))), ("x-elapsed-ms", str(r.randrange(900)))]
        end = pick(r, [(6, "flag"), (2, "separate"), (1, "empty")])
        s.conn.send_headers(sid, as_bytes_maybe(r, h), end_stream=not size and end == "flag" and not trailers)
        if size or end != "flag" or trailers:
            s.out[sid] = Body(body_bytes(r, size), end, trailers, r.choice([0, 0, 0.1, 0.4]), frame_cap(r, size))

    # -- other steps ------------------------------------------------------------------
    def side(self):
        return self.c if self.r.random() < 0.5 else self.s

    def step_ping(self):
        sd = self.side()
        data = b"%08d" % self.r.randrange(10 ** 8)
        sd.conn.ping(data if self.r.random() > 0.02 else data[:7])

    def step_settings(self):
        sd = self.side()
        sd.conn.update_settings(random_settings(self.r, sd.client))

    def step_window(self):
        r = self.r
        sd = self.side()
        if sd.open and r.random() < 0.6:
            sd.conn.increment_flow_control_window(r.choice([1024, 4096, 65535]), stream_id=r.choice(sd.open))
        else:
            sd.conn.increment_flow_control_window(r.choice([1024, 65535, 1 << 20]))

    def step_prioritize(self):
        r, c = self.r, self.c
        if not c.open:
            return
        sid = r.choice(c.open)
        dep = r.choice(c.open + [0, 0])
        c.conn.prioritize(sid, weight=r.randint(1, 256), depends_on=dep if dep != sid or r.random() < 0.1 else 0,
                          exclusive=r.random() < 0.2)

    def step_reset(self):
        r = self.r
        sd = self.side()
        if not sd.open:
            return
        sid = r.choice(sd.open)
        sd.conn.reset_stream(sid, r.choice([ErrorCodes.CANCEL, ErrorCodes.NO_ERROR, ErrorCodes.INTERNAL_ERROR,
                                            ErrorCodes.STREAM_CLOSED]))
        sd.open.remove(sid)
        sd.reset.append(sid)
        sd.out.pop(sid, None)
        self.pending.discard(sid)
        self.deferred = [x for x in self.deferred if x != sid]

    def step_altsvc(self):
        r, s = self.r, self.s
        if s.open and r.random() < 0.5:
            s.conn.advertise_alternative_service(b'h3=":443"; ma=86400', stream_id=r.choice(s.open))
        else:
            s.conn.advertise_alternative_service(b'h2="alt.example.test:443"', origin=self.authority.encode())

    def step_misuse(self):
        """Application mistakes h2 refuses; the generator catches the error."""
        r = self.r
        sd = self.misuse_side = self.side()
        k = r.randrange(12)
        sid = r.choice(sd.open) if sd.open else 1
        if k == 0:
            sd.conn.send_data(sid, b"x" * (sd.conn.local_flow_control_window(sid) + 1))
        elif k == 1:
            sd.conn.send_data(sid, b"y" * (sd.conn.max_outbound_frame_size + 10))
        elif k == 2:
            sd.conn.send_data(sid, b"z" * 10, pad_length=r.choice([256, 300, -1]))
        elif k == 3:
            closed = sd.closed + sd.reset
            sd.conn.send_data(r.choice(closed) if closed else 99, b"late data", end_stream=True)
        elif k == 4:
            sd.conn.ping(b"short")
        elif k == 5:  # a push, even when the client disabled them
            self.misuse_side = self.s
            pid = self.s.conn.get_next_available_stream_id()
            self.s.conn.push_stream(sid, pid, [(":method", "GET"), (":path", "/pushed"), (":scheme", "https"),
                                               (":authority", self.authority)])
            self.requests_in[pid] = []
            self.s.open.append(pid)
            self.deferred.append(pid)
        elif k == 6:
            closed = sd.closed + sd.reset
            sd.conn.reset_stream(r.choice(closed) if closed else 1)
        elif k == 7:
            sd.conn.update_settings({r.choice([SettingCodes.ENABLE_PUSH, SettingCodes.INITIAL_WINDOW_SIZE,
                                               SettingCodes.MAX_FRAME_SIZE]): r.choice([2, 2 ** 31, 100])})
        elif k == 8:
            self.misuse_side = self.s
            self.s.conn.prioritize(sid, weight=10)
        elif k == 9:
            sd.conn.acknowledge_received_data(r.choice([-5, 10]), r.choice([0, sid]))
        elif k == 10:
            if sd.open:
                sd.conn.send_headers(sid, [("x-trailer", "no-end")], end_stream=False)
        else:
            c = self.c
            for _ in range(r.randint(2, 6)):  # ignoring the peer's stream limit
                nsid = c.conn.get_next_available_stream_id()
                c.conn.send_headers(nsid, self.request_headers("GET", "/burst", 0, r), end_stream=True)
                c.open.append(nsid)
                self.pending.add(nsid)

    # -- hand-made frames ---------------------------------------------------------------
    def block(self, headers):
        """An HPACK header block that leaves both dynamic tables alone: fields
        never indexed, names from the static table. When the receiver's
        decoder waits for a table size update (its new SETTINGS acknowledged,
        the peer's encoder not yet heard from), the block starts with it, as
        the peer's next block would."""
        pre = b""
        dec = self.block_dst.conn.decoder
        if dec.header_table_size > dec.max_allowed_table_size:
            upd = encode_integer(dec.max_allowed_table_size, 5)
            upd[0] |= 0x20
            pre = bytes(upd)
        enc = hpack.Encoder()
        return pre + enc.encode([hpack.NeverIndexedHeaderTuple(n, v) for n, v in headers])

    def req_block(self, path="/x"):
        return self.block([(":method", "GET"), (":path", path), (":scheme", "https"), (":authority", self.authority)])

    def resp_block(self):
        return self.block([(":status", "200"), ("content-type", "text/plain")])

    def benign(self):
        r = self.r
        to_server = r.random() < 0.5
        src = self.c if to_server else self.s
        dst = self.block_dst = self.s if to_server else self.c
        if dst.conn.state_machine.state == h2.connection.ConnectionState.IDLE:
            return  # not before the first request: h2 would close the connection
        k = r.choice(BENIGN)
        some = (dst.open or dst.closed or [1])
        if k == "unknown":
            sid = r.choice([0, 0] + dst.open)
            f = hf.ExtensionFrame(r.choice([0x0b, 0x10, 0x2a, 0xf0]), sid, r.randrange(256),
                                  body_bytes(r, r.randrange(40)))
            f.body_len = len(f.body)  # serialize() writes body_len, which only parse_body sets
        elif k == "altsvc":
            if to_server:
                return
            if dst.open and r.random() < 0.6:
                f = hf.AltSvcFrame(r.choice(dst.open), field=b'h2=":9443"')
            else:
                f = hf.AltSvcFrame(0, origin=r.choice([self.authority.encode(), b""]), field=b'h2=":9443"')
        elif k == "priority":
            sid = r.choice(some)
            f = hf.PriorityFrame(sid, depends_on=r.choice([0, sid + 2]), stream_weight=r.randrange(256))
        elif k == "data_closed":
            done = dst.closed + dst.reset
            if not done:
                return
            sid = r.choice(done)
            room = min(dst.conn.inbound_flow_control_window, dst.conn.max_inbound_frame_size, 16000)
            frames = []
            for _ in range(r.choice([1, 1, 2, 3])):
                n = min(room, r.choice([r.randint(1, 3000), 16000]))
                if n <= 0:
                    break
                room = min(room, dst.conn.inbound_flow_control_window - n * (len(frames) + 1))
                frames.append(hf.DataFrame(sid, body_bytes(r, n)))
            if not frames:
                return
            if r.random() < 0.5:
                frames[-1].flags.add("END_STREAM")
            self.inject(src, frames)
            return
        elif k == "window_closed":
            done = dst.closed + dst.reset
            f = hf.WindowUpdateFrame(r.choice(done) if done else 0, window_increment=r.randint(1, 5000))
        elif k == "rst_idle":
            f = hf.RstStreamFrame(max(dst.conn.highest_inbound_stream_id, dst.conn.highest_outbound_stream_id) + 40,
                                  error_code=ErrorCodes.CANCEL)
        elif k == "ping_ack":
            f = hf.PingFrame(0, opaque_data=b"%08d" % r.randrange(10 ** 8), flags=["ACK"])
        else:  # headers_reset: HEADERS on a stream the receiver reset
            if not dst.reset or not to_server:
                return
            f = hf.HeadersFrame(r.choice(dst.reset), self.req_block(), flags=["END_HEADERS"])
        self.inject(src, [f])

    def fatal(self, to_server, k):
        r = self.r
        src = self.c if to_server else self.s
        dst = self.block_dst = self.s if to_server else self.c
        conn = dst.conn
        hi_in = conn.highest_inbound_stream_id
        hi_out = conn.highest_outbound_stream_id
        own = dst.open or [hi_out or hi_in or 1]
        frames = []
        maxf = conn.max_inbound_frame_size
        if k == "even_headers":
            frames = [hf.HeadersFrame(max(hi_in, 1) + 1, self.req_block(), flags=["END_HEADERS", "END_STREAM"])]
        elif k == "low_headers":
            sid = r.choice(dst.closed + dst.reset) if (dst.closed or dst.reset) else 1
            if hi_in < 3:
                frames = [hf.HeadersFrame(hi_in + 4, self.req_block(), flags=["END_HEADERS", "END_STREAM"])]
                sid = hi_in + 2
            frames.append(hf.HeadersFrame(sid, self.req_block(), flags=["END_HEADERS", "END_STREAM"]))
        elif k == "too_many":
            if conn.local_settings.max_concurrent_streams - conn.open_inbound_streams > 8:
                try:  # the server lowers its limit first; the client will not keep to it
                    conn.update_settings({SettingCodes.MAX_CONCURRENT_STREAMS: r.randint(1, 4)})
                except H2_ERRORS:
                    pass
                self.pump()
                if self.over:
                    return
            room = conn.local_settings.max_concurrent_streams - conn.open_inbound_streams
            n = max(1, min(room + 1, 12))
            base = max(hi_in, src.conn.highest_outbound_stream_id)
            sid = base + 2 if base else 1
            for i in range(n):
                frames.append(hf.HeadersFrame(sid + 2 * i, self.req_block("/many/%d" % i), flags=["END_HEADERS"]))
        elif k == "bad_headers":
            sid = next_odd(max(hi_in, src.conn.highest_outbound_stream_id))
            frames = [hf.HeadersFrame(sid, self.block(r.choice(BAD_REQUEST)(self.authority)),
                                      flags=["END_HEADERS", "END_STREAM"])]
        elif k == "garbage_hpack":
            sid = next_odd(max(hi_in, src.conn.highest_outbound_stream_id)) if to_server else r.choice(own)
            frames = [hf.HeadersFrame(sid, bytes([0xff, 0xff, 0xff, 0x7f]) + body_bytes(r, 12),
                                      flags=["END_HEADERS"])]
        elif k == "huge_headers":
            sid = next_odd(max(hi_in, src.conn.highest_outbound_stream_id))
            blk = self.block([(":method", "GET"), (":path", "/big"), (":scheme", "https"),
                              (":authority", self.authority), ("x-big", "v" * r.randint(70000, 90000))])
            parts = [blk[i:i + 16000] for i in range(0, len(blk), 16000)]
            frames.append(hf.HeadersFrame(sid, parts[0]))
            for j, part in enumerate(parts[1:]):
                frames.append(hf.ContinuationFrame(sid, part, flags=["END_HEADERS"] if j == len(parts) - 2 else []))
        elif k == "data_idle":
            frames = [hf.DataFrame(max(hi_in, hi_out) + 10 | 1, b"idle stream data")]
        elif k == "data_stream0":
            frames = [b"\x00\x00\x05\x00\x00\x00\x00\x00\x00hello"]
        elif k == "data_over_window":
            if to_server:
                sid = next_odd(max(hi_in, src.conn.highest_outbound_stream_id))
                frames.append(hf.HeadersFrame(sid, self.block([(":method", "POST"), (":path", "/flood"),
                                                               (":scheme", "https"),
                                                               (":authority", self.authority)]),
                                              flags=["END_HEADERS"]))
            else:
                sid = r.choice(own)
                frames.append(hf.HeadersFrame(sid, self.resp_block(), flags=["END_HEADERS"]))
            left = conn.inbound_flow_control_window
            size = min(maxf, 16384)
            for _ in range(left // size + 2):
                frames.append(hf.DataFrame(sid, b"f" * size))
        elif k == "bad_padding":
            sid = r.choice(own)
            frames = [b"\x00\x00\x0b\x00\x09" + sid.to_bytes(4, "big") + bytes([200]) + b"0123456789"]
        elif k == "oversize":
            n = maxf + r.choice([1, 100, 5000])
            frames = [hf.DataFrame(r.choice(own), b"o" * n)]
        elif k == "naked_continuation":
            frames = [hf.ContinuationFrame(r.choice(own), self.resp_block(), flags=["END_HEADERS"])]
        elif k == "interrupted_block":
            sid = r.choice(own)
            frames = [hf.HeadersFrame(sid, self.resp_block()[:3]), hf.DataFrame(sid, b"in between")]
        elif k == "self_priority":
            sid = r.choice(own)
            frames = [hf.PriorityFrame(sid, depends_on=sid, stream_weight=15)]
        elif k == "window_zero":
            sid = r.choice([0] + own)
            frames = [b"\x00\x00\x04\x08\x00" + sid.to_bytes(4, "big") + b"\x00\x00\x00\x00"]
        elif k == "window_overflow":
            sid = r.choice([0, 0] + own)
            frames = [hf.WindowUpdateFrame(sid, window_increment=2 ** 31 - 1)]
        elif k == "bad_settings":
            bad = r.choice([(SettingCodes.ENABLE_PUSH, 2), (SettingCodes.INITIAL_WINDOW_SIZE, 2 ** 31),
                            (SettingCodes.MAX_FRAME_SIZE, 1000), (SettingCodes.MAX_FRAME_SIZE, 2 ** 24)])
            frames = [hf.SettingsFrame(0, settings=dict([bad]))]
        elif k == "push_to_server":
            frames = [hf.PushPromiseFrame(r.choice(own), promised_stream_id=(hi_in + 2) // 2 * 2,
                                          data=self.req_block("/pushed"), flags=["END_HEADERS"])]
        elif k == "odd_headers":
            frames = [hf.HeadersFrame(hi_out + 4, self.resp_block(), flags=["END_HEADERS"])]
        elif k == "push_disabled":
            if conn.local_settings.enable_push:
                try:  # the client now disables push, then gets one anyway
                    conn.update_settings({SettingCodes.ENABLE_PUSH: 0})
                except H2_ERRORS:
                    pass
                self.pump()
            pid = max(hi_in, src.conn.highest_outbound_stream_id) + 2
            frames = [hf.PushPromiseFrame(r.choice(own), promised_stream_id=pid + pid % 2,
                                          data=self.req_block("/unwanted"), flags=["END_HEADERS"])]
        elif k == "push_recursive":
            pushed = [x for x in dst.open if x % 2 == 0]
            pid = max(hi_in, src.conn.highest_outbound_stream_id) + 2
            parent = r.choice(pushed) if pushed else 2
            frames = [hf.PushPromiseFrame(parent, promised_stream_id=pid + pid % 2,
                                          data=self.req_block("/nested"), flags=["END_HEADERS"])]
        elif k == "push_closed":
            done = [x for x in dst.closed + dst.reset if x % 2 == 1] or [1]
            pid = max(hi_in, src.conn.highest_outbound_stream_id) + 2
            frames = [hf.PushPromiseFrame(r.choice(done), promised_stream_id=pid + pid % 2,
                                          data=self.req_block("/late"), flags=["END_HEADERS"])]
        elif k == "bad_response":
            frames = [hf.HeadersFrame(r.choice(own), self.block(r.choice(BAD_RESPONSE)()),
                                      flags=["END_HEADERS"])]
        self.note("inject %s to %s" % (k, dst.name))
        self.inject(src, frames)

    # -- the case ---------------------------------------------------------------------
    def start(self):
        r, p, c, s = self.r, self.p, self.c, self.s
        if p["start"] == "upgrade":
            hdr = c.conn.initiate_upgrade_connection()
            s.conn.initiate_upgrade_connection(hdr if r.random() < 0.9 else None)
            c.open.append(1)
            s.open.append(1)
            self.pending.add(1)
            self.sent_requests = 1
            self.requests_in[1] = [(b":method", b"GET"), (b":path", b"/")]
        else:
            first, second = (c, s) if r.random() < 0.7 else (s, c)
            first.conn.initiate_connection()
            second.conn.initiate_connection()
        if p["start"] == "bad_preface":
            junk = r.choice([b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", b"PRI * HTTP/1.1\r\n\r\n",
                             b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(24)])
            c.conn.data_to_send()
            self.deliver(c, junk)
        for sd, key in ((c, "init_settings_client"), (s, "init_settings_server")):
            if p[key] is not None and not sd.dead:
                try:
                    sd.conn.update_settings(p[key])
                except H2_ERRORS:
                    pass
        self.pump()
        if p["start"] == "upgrade" and not self.over:
            self.answer(1)
            self.pump()

    def tick(self, n):
        r, p = self.r, self.p
        steps = 1 if r.random() >= p["burst"] else r.randint(2, 4)
        for _ in range(steps):
            acts = [(1.0, None)]
            if self.sent_requests < p["requests"]:
                acts.append((5.0, "request"))
            if self.deferred:
                acts.append((4.0, "answer"))
            if self.c.unacked or self.s.unacked:
                acts.append((2.0, "ack"))
            acts += [(0.4, "ping"), (0.2 + 0.6 * p["mid_settings"], "settings"), (0.3, "window"),
                     (0.3, "prioritize"), (0.35, "reset"), (0.15, "altsvc"),
                     (p["benign"] * 10, "benign"), (p["misuse"] * 10, "misuse")]
            a = pick(r, acts)
            try:
                if a == "request":
                    self.open_request()
                elif a == "answer":
                    sid = self.deferred.pop(0 if r.random() < 0.7 else -1)
                    if sid in self.requests_in and sid % 2 == 0 and sid not in self.answered:
                        self.respond(sid, b"GET")  # a pushed stream's response
                    else:
                        self.answer(sid)
                elif a == "ack":
                    (self.c if self.c.unacked and (not self.s.unacked or r.random() < 0.5) else self.s).ack_all(
                        r.choice([1.0, 1.0, 0.5]))
                elif a == "ping":
                    self.step_ping()
                elif a == "settings":
                    self.step_settings()
                elif a == "window":
                    self.step_window()
                elif a == "prioritize":
                    self.step_prioritize()
                elif a == "reset":
                    self.step_reset()
                elif a == "altsvc":
                    self.step_altsvc()
                elif a == "benign":
                    self.benign()
                elif a == "misuse":
                    self.step_misuse()
            except H2_ERRORS as e:
                self.note("%s refused locally: %s %s" % (a, type(e).__name__, e))
                if a == "misuse":
                    self.local_error(self.misuse_side, e)
            if self.over:
                return
        for sd in ((self.c, self.s) if r.random() < 0.5 else (self.s, self.c)):
            sd.flush()
        self.pump()
        if p["fatal"] is not None and p["fatal"][2] == n and not self.over:
            self.fatal(p["fatal"][0], p["fatal"][1])

    def done(self):
        return (self.sent_requests >= self.p["requests"] and not self.pending and not self.deferred
                and not self.c.out and not self.s.out)

    def finish(self):
        """Drains what is left (acks, blocked bodies), then ends the connection."""
        r, p, c, s = self.r, self.p, self.c, self.s
        for _ in range(30):
            if self.over or not (c.out or s.out or c.unacked or s.unacked or self.deferred):
                break
            while self.deferred and not self.over:
                sid = self.deferred.pop(0)
                try:
                    if sid % 2 == 0 and sid not in self.answered:
                        self.respond(sid, b"GET")
                    else:
                        self.answer(sid)
                except H2_ERRORS:
                    pass
            c.ack_all()
            s.ack_all()
            c.flush()
            s.flush()
            self.pump()
        if self.over:
            return
        try:
            if p["end"] == "client_goaway":
                c.conn.close_connection(additional_data=b"bye" if r.random() < 0.3 else None)
            elif p["end"] == "server_goaway":
                s.conn.close_connection(last_stream_id=s.conn.highest_inbound_stream_id if r.random() < 0.5
                                        else None)
            elif p["end"] == "server_error":
                s.conn.close_connection(error_code=r.choice([ErrorCodes.ENHANCE_YOUR_CALM,
                                                             ErrorCodes.INTERNAL_ERROR,
                                                             ErrorCodes.PROTOCOL_ERROR]),
                                        additional_data=b"server going away")
        except H2_ERRORS:
            pass
        self.pump()

    def run(self):
        try:
            self.start()
            for n in range(1, self.p["max_ticks"] + 1):
                if self.over or (self.done() and self.p["fatal"] is None):
                    break
                self.tick(n)
            self.finish()
        finally:
            self.link.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    log = _capture.EventLog(h2, a.out, logger_names=["h2"])
    log.setLevel(TRACE)
    top = logging.getLogger("h2")
    top.setLevel(TRACE)
    top.propagate = False
    loggers = (trace_logger("h2.client"), trace_logger("h2.server"))
    failed = []
    notes = 0
    t0 = time.time()
    try:
        for i in range(a.cases):
            # per-case stream: a timing-dependent outcome of one case (socket
            # reads) does not shift the choices of later cases
            r = random.Random("%d-%d" % (a.seed, i))
            log.case_id = "h2-%05d" % i
            try:
                case = Case(r, loggers)
                case.run()
                notes += len(case.notes)
            except Exception as e:  # noqa: BLE001  (a case that could not run: counted, the others go on)
                failed.append((i, repr(e)))
            finally:
                log.end_case()
    finally:
        log.finish()
    for i, e in failed[:5]:
        print("case %d failed: %s" % (i, e), file=sys.stderr)
    print(log.summary(), "; %d cases failed, %d refusals and injections" % (len(failed), notes),
          "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
