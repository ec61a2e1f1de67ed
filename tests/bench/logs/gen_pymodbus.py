#!/usr/bin/python3
"""Event log of pymodbus 3.6.9 (from PyPI): Modbus clients against in-process
pymodbus servers on 127.0.0.1, all in one asyncio loop (sync clients in a
worker thread of it).

    /usr/bin/python3 gen_pymodbus.py --out .deps/logs/pymodbus.csv.gz [--cases 420] [--seed 1] [--deps DIR]
    /usr/bin/python3 gen_pymodbus.py --repo [--deps DIR]   # prints the directory to index

pymodbus is not packaged by Debian 12: ``run.sh`` installs the pure-Python
wheel (``pip/pymodbus``, hash checked, no dependencies) into
``.deps/corpus/pymodbus/site-packages`` (``--deps`` names another
``.deps/corpus/pymodbus``-like directory), which this generator puts first
on ``sys.path``. Its core (TCP, UDP and TLS transports, framers, datastores,
sync and asyncio clients and servers) needs only the standard library; the
serial extra is not installed and no serial port is driven. TLS cases use a
throw-away self-signed certificate made with ``openssl`` and become plain
TCP cases when ``openssl`` is missing.

The whole installed package is indexed (``<deps>/site-packages/pymodbus``),
including code that never runs here: the serial client and server, the
HTTP simulator (it needs aiohttp), the remote datastore. The framers
delegate part of their work to the new ``pymodbus/message`` classes
(``MessageSocket.decode``, ``MessageAscii.decode``), which log too.

A case is one client lifetime against a server started for it on a fresh
port. The case draws:

- the server: ``ModbusTcpServer`` (directly, or through
  ``StartAsyncTcpServer`` / ``ServerAsyncStop``), ``ModbusUdpServer``
  (or ``StartAsyncUdpServer``), or ``ModbusTlsServer``, stopped by
  ``shutdown``, ``ServerAsyncStop`` or the blocking ``ServerStop`` from
  another thread (sometimes twice); its framer (socket, RTU-over-TCP, ASCII,
  binary; TLS or socket for TLS), ``ignore_missing_slaves``,
  ``broadcast_enable``, a request tracer, a response manipulator (dropping
  some responses or replacing some by crafted frames: unknown function
  codes, wrong transaction ids, bad CRC/LRC, truncated PDUs), a device
  identity, and a datastore: one or several slaves (``single`` or not),
  sequential or sparse blocks of random sizes and offsets, ``zero_mode``;
- the client: sync (``ModbusTcpClient``, ``ModbusUdpClient``,
  ``ModbusTlsClient``, run in a worker thread) or asyncio
  (``AsyncModbusTcpClient``, ``AsyncModbusUdpClient``,
  ``AsyncModbusTlsClient``), with random timeouts, retries,
  ``retry_on_empty``, reconnect delays, ``no_resend_on_retry``, and
  usually the server's framer (sometimes a different one: frames the
  other side cannot parse, ending in timeouts);
- a script of 2-10 operations: reads of coils, discrete inputs, holding and
  input registers (in range, out of range, too many), single and multiple
  writes (values from ``BinaryPayloadBuilder``, read back through
  ``BinaryPayloadDecoder``), mask writes, read/write multiple, FIFO and file
  records, device identification and report-slave-id, exception status,
  diagnostics sub-functions and the comm event counter and log, requests to
  unknown slave ids and broadcasts, a raw socket client (a second
  connection) sending malformed frames (bad MBAP headers, unknown function
  codes, truncated and garbled RTU/ASCII frames, bad CRC/LRC, garbage),
  the server stopping mid-case (then sometimes restarting on the same port
  while the client reconnects or retries), client closes and reconnects,
  idle waits.

Capture: pymodbus logs through ``pymodbus.logging.Log``, a class whose
classmethods ``debug``/``info``/``warning``/``error``/``critical`` render the
message themselves (``build_msg``: ``txt.format(*args)`` over positional
``{}`` fields, an argument followed by ``":hex"``, ``":str"`` or ``":b2a"``
rendered by ``hexlify_packets``, ``str`` or ``b2a_hex`` and the marker
dropped) and then call the stdlib logger ``pymodbus.logging``. The record's
own call site is therefore ``Log.debug`` & co. in ``pymodbus/logging.py``;
those five methods are declared pure logging wrappers, so the emitter is
the pymodbus line that called ``Log.<level>(...)`` (``code.wrapped`` = 1
for every record). ``build_msg`` has returned before the stdlib call and is
never on the stack. The ``pymodbus`` logger is set to DEBUG.

Attribution: the case id is a plain attribute of the handler (sync clients
log from a worker thread); at the end of a case the client is closed, the
server shut down and the loop run a little further so that disconnect
callbacks land in their case; records emitted later (a stray reconnect
timer) fall outside any case and are dropped. Cases with fewer than 3
events are dropped.
"""
import argparse
import asyncio
import concurrent.futures
import logging
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))


def _deps_dir(argv):
    for i, a in enumerate(argv):
        if a == "--deps" and i + 1 < len(argv):
            return os.path.abspath(argv[i + 1])
        if a.startswith("--deps="):
            return os.path.abspath(a.split("=", 1)[1])
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), ".deps", "corpus", "pymodbus")


# pymodbus as run.sh installs it from PyPI (pip/pymodbus), ahead of anything else.
SITE = os.path.join(_deps_dir(sys.argv), "site-packages")
if not os.path.isdir(os.path.join(SITE, "pymodbus")):
    sys.exit("gen_pymodbus.py: no pymodbus in %s (tests/bench/logs/run.sh installs it)" % SITE)
sys.path[:0] = [HERE, SITE]
import _capture  # noqa: E402

warnings.simplefilter("ignore")
import pymodbus  # noqa: E402

if "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(pymodbus.__file__)))
    sys.exit(0)

from pymodbus.client import (  # noqa: E402
    AsyncModbusTcpClient, AsyncModbusTlsClient, AsyncModbusUdpClient, ModbusTcpClient, ModbusTlsClient,
    ModbusUdpClient)
from pymodbus.constants import Endian  # noqa: E402
from pymodbus.datastore import (  # noqa: E402
    ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext, ModbusSparseDataBlock)
from pymodbus.device import ModbusDeviceIdentification  # noqa: E402
from pymodbus.diag_message import (  # noqa: E402
    ClearCountersRequest, ForceListenOnlyModeRequest, GetClearModbusPlusRequest, ReturnBusMessageCountRequest,
    ReturnQueryDataRequest, ReturnSlaveBusyCountRequest, ReturnSlaveMessageCountRequest)
from pymodbus.exceptions import ModbusException  # noqa: E402
from pymodbus.file_message import FileRecord  # noqa: E402
from pymodbus.framer import Framer  # noqa: E402
from pymodbus.payload import BinaryPayloadBuilder, BinaryPayloadDecoder  # noqa: E402
from pymodbus.server import (  # noqa: E402
    ModbusTcpServer, ModbusTlsServer, ModbusUdpServer, ServerAsyncStop, ServerStop, StartAsyncTcpServer,
    StartAsyncUdpServer)
from pymodbus.server.async_io import _serverList  # noqa: E402

WRAPPERS = {("pymodbus/logging.py", m) for m in ("debug", "info", "warning", "error", "critical")}
HOST = "127.0.0.1"
DEBUG = os.environ.get("GEN_DEBUG") == "1"
ONLY = os.environ.get("GEN_ONLY", "").split(",") if os.environ.get("GEN_ONLY") else None  # debugging: case numbers
OPENSSL = shutil.which("openssl")


# a value of [(weight, value)], drawn by weight
pick = _capture.pick


def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind((HOST, 0))
    p = s.getsockname()[1]
    s.close()
    return p


def make_cert(tmp):
    """A throw-away self-signed certificate, or None without openssl."""
    if not OPENSSL:
        return None
    crt, key = os.path.join(tmp, "server.crt"), os.path.join(tmp, "server.key")
    try:
        subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt,
                        "-days", "2", "-subj", "/CN=127.0.0.1"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return crt, key


# ---------------------------------------------------------------------------
# datastore and server
# ---------------------------------------------------------------------------
def a_block(r, bits):
    kind = pick(r, [(65, "seq"), (35, "sparse")])
    if kind == "seq":
        start = r.choice([0, 0, 0, 1, 10, 100])
        size = r.choice([8, 16, 50, 100, 200, 1000])
        vals = [r.random() < 0.5 for _ in range(size)] if bits else [r.randrange(65536) for _ in range(size)]
        return ModbusSequentialDataBlock(start, vals), (start, size)
    addrs = sorted(r.sample(range(0, 300), r.randint(5, 40)))
    if r.random() < 0.3:  # a contiguous run so that multi-reads can succeed
        base = r.choice([0, 20, 100])
        addrs = sorted(set(addrs) | set(range(base, base + r.randint(5, 30))))
    vals = {a: (r.random() < 0.5 if bits else r.randrange(65536)) for a in addrs}
    return ModbusSparseDataBlock(vals, mutable=r.random() < 0.8), (addrs[0], addrs[-1] - addrs[0] + 1)


class Store:
    def __init__(self, r):
        self.single = r.random() < 0.5
        n = 1 if self.single else r.randint(1, 4)
        self.slave_ids = [1] if self.single else sorted(r.sample([1, 2, 3, 5, 7, 17, 100, 247], n))
        self.ranges = {}
        slaves = {}
        for sid in self.slave_ids:
            kw, rg = {}, {}
            for t in ("di", "co", "hr", "ir"):
                blk, span = a_block(r, t in ("di", "co"))
                kw[t], rg[t] = blk, span
            zero = r.random() < 0.4
            slaves[sid] = ModbusSlaveContext(zero_mode=zero, **kw)
            self.ranges[sid] = (rg, zero)
        self.context = ModbusServerContext(slaves=slaves[self.slave_ids[0]] if self.single else slaves,
                                           single=self.single)


def identity(r):
    if r.random() < 0.3:
        return None
    ident = ModbusDeviceIdentification(info_name={
        "VendorName": r.choice(["Bench", "ACME Controls", "Pymodbus"]),
        "ProductCode": "PM%d" % r.randint(1, 99),
        "VendorUrl": "https://example.invalid/",
        "ProductName": r.choice(["Bench Server", "PLC emulator"]),
        "ModelName": "M-%d" % r.randint(100, 999),
        "MajorMinorRevision": "3.6.%d" % r.randint(0, 9),
    })
    return ident


def manipulator(r, framer):
    """A response manipulator: passes, drops some responses, or replaces some by crafted frames."""
    mode = r.choice(["pass", "drop-some", "raw", "raw"])
    cnt = [0]
    pdus = [b"\x5a\x01\x02", b"\x03\x04\x00", b"\x03\xff" + b"\x00" * 4, b"\x81", b"\x2b\x0e\x01",
            b"\x01\x01", b"\x90\x07"]

    def manip(response):
        cnt[0] += 1
        if mode == "drop-some" and cnt[0] % 3 == 0:
            response.should_respond = False
        elif mode == "raw" and cnt[0] % 2 == 0:
            unit = getattr(response, "slave_id", 1) & 0xFF
            pdu = r.choice(pdus)
            if framer in (Framer.SOCKET, Framer.TLS):
                tid = response.transaction_id if r.random() < 0.7 else r.randrange(65536)
                raw = mbap(tid & 0xFFFF, pdu, unit) if framer == Framer.SOCKET else pdu
            elif framer == Framer.RTU:
                raw = rtu(unit, pdu, good=r.random() < 0.7)
            elif framer == Framer.ASCII:
                raw = ascii_frame(unit, pdu, good=r.random() < 0.7)
            else:
                raw = b"{" + bytes([unit]) + pdu + crc16(bytes([unit]) + pdu) + b"}"
            return raw, True
        return response, False
    return manip


class Server:
    """One pymodbus server of a case, started and stopped in the loop."""

    def __init__(self, g, r, kind, framer, port):
        self.g, self.r, self.kind, self.framer, self.port = g, r, kind, framer, port
        self.store = Store(r)
        self.ident = identity(r)
        self.ignore_missing = r.random() < 0.3
        self.broadcast = r.random() < 0.25
        self.manip = manipulator(r, framer) if r.random() < 0.15 else None
        self.tracer = (lambda req, *addr: None) if r.random() < 0.2 else None
        self.via_start = kind in ("tcp", "udp") and r.random() < 0.3
        self.server = None
        self.task = None

    def _kwargs(self):
        return dict(ignore_missing_slaves=self.ignore_missing, broadcast_enable=self.broadcast,
                    response_manipulator=self.manip, request_tracer=self.tracer)

    async def start(self):
        addr = (HOST, self.port)
        if self.via_start:
            fn = StartAsyncTcpServer if self.kind == "tcp" else StartAsyncUdpServer
            self.task = asyncio.ensure_future(fn(context=self.store.context, identity=self.ident, address=addr,
                                                 framer=self.framer, **self._kwargs()))
            for _ in range(100):
                await asyncio.sleep(0.002)
                act = getattr(_serverList, "active_server", None)
                if act is not None and act.server.transport:
                    self.server = act.server
                    return True
                if self.task.done():
                    return False
            return False
        if self.kind == "tcp":
            self.server = ModbusTcpServer(self.store.context, framer=self.framer, identity=self.ident, address=addr,
                                          **self._kwargs())
        elif self.kind == "udp":
            self.server = ModbusUdpServer(self.store.context, framer=self.framer, identity=self.ident, address=addr,
                                          **self._kwargs())
        else:
            crt, key = self.g.cert
            self.server = ModbusTlsServer(self.store.context, framer=self.framer, identity=self.ident, address=addr,
                                          certfile=crt, keyfile=key, **self._kwargs())
        self.task = asyncio.ensure_future(self.server.serve_forever())
        for _ in range(100):
            await asyncio.sleep(0.002)
            if self.server.transport:
                return True
            if self.task.done():
                return False
        return False

    async def stop(self):
        if self.task is None:
            return
        try:
            if self.via_start and self.r.random() < 0.35:  # the sync stop, from another thread
                await self.g.loop.run_in_executor(self.g.pool, ServerStop)
                if self.r.random() < 0.4:
                    await self.g.loop.run_in_executor(self.g.pool, ServerStop)  # a second time: no server
            elif self.via_start and getattr(_serverList, "active_server", None) is not None:
                await ServerAsyncStop()
            elif self.server is not None:
                await self.server.shutdown()
            await asyncio.wait_for(asyncio.shield(self.task), 1)
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("server stop: %r" % e, file=sys.stderr)
            self.task.cancel()
        self.task = None
        self.server = None


# ---------------------------------------------------------------------------
# raw frames
# ---------------------------------------------------------------------------
def crc16(data):
    """Modbus RTU CRC-16 (poly 0xA001), as the two bytes sent on the wire (low byte first)."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc.to_bytes(2, "little")


def lrc8(data):
    return (-sum(data)) & 0xFF


def mbap(tid, pdu, unit=1, proto=0, length=None):
    ln = len(pdu) + 1 if length is None else length
    return tid.to_bytes(2, "big") + proto.to_bytes(2, "big") + ln.to_bytes(2, "big") + bytes([unit]) + pdu


def rtu(unit, pdu, good=True):
    body = bytes([unit]) + pdu
    crc = crc16(body)
    if not good:
        crc = bytes([crc[0] ^ 0x5A, crc[1]])
    return body + crc


def ascii_frame(unit, pdu, good=True):
    body = bytes([unit]) + pdu
    lrc = lrc8(body)
    if not good:
        lrc = (lrc + 1) & 0xFF
    return b":" + body.hex().upper().encode() + ("%02X" % lrc).encode() + b"\r\n"


def raw_frames(r, framer, unit):
    """A few crafted or broken frames for the server's framer."""
    good_pdus = [b"\x03\x00\x00\x00\x02", b"\x01\x00\x00\x00\x08", b"\x04\x00\x01\x00\x01",
                 b"\x06\x00\x01\x12\x34", b"\x2b\x0e\x01\x00", b"\x11", b"\x07", b"\x08\x00\x00\xab\xcd"]
    bad_pdus = [b"\x5a\x00\x01", b"\x03\x00", b"\x10\x00\x00\x00\x02\x04\x00", b"\x80", b"\x2b\x0e\x09\x00",
                b"\x08\x00\x63\x00\x00", b"\x18\x00\x00", b"\x14\x01"]
    out = []
    for _ in range(r.randint(1, 4)):
        pdu = r.choice(bad_pdus) if r.random() < 0.6 else r.choice(good_pdus)
        u = unit if r.random() < 0.8 else r.choice([0, 99, 250])
        k = r.random()
        if framer == Framer.SOCKET or framer == Framer.TLS:
            if k < 0.5:
                out.append(mbap(r.randrange(65536), pdu, u))
            elif k < 0.65:
                out.append(mbap(1, pdu, u, proto=r.choice([1, 0xFFFF])))
            elif k < 0.8:
                out.append(mbap(2, pdu, u, length=r.choice([0, 1, 300])))
            elif k < 0.9:
                out.append(mbap(3, pdu, u)[:r.randint(2, 7)])
            else:
                out.append(bytes(r.randrange(256) for _ in range(r.randint(1, 20))))
        elif framer == Framer.RTU:
            if k < 0.5:
                out.append(rtu(u, pdu))
            elif k < 0.75:
                out.append(rtu(u, pdu, good=False))
            elif k < 0.9:
                out.append(rtu(u, pdu)[:r.randint(1, 4)])
            else:
                out.append(bytes(r.randrange(256) for _ in range(r.randint(1, 12))))
        elif framer == Framer.ASCII:
            if k < 0.45:
                out.append(ascii_frame(u, pdu))
            elif k < 0.65:
                out.append(ascii_frame(u, pdu, good=False))
            elif k < 0.8:
                out.append(b"garbage" + ascii_frame(u, pdu))
            elif k < 0.9:
                out.append(ascii_frame(u, pdu)[:r.randint(2, 8)])
            else:
                out.append(b":ZZ" + b"Q" * r.randint(1, 6) + b"\r\n")
        else:  # binary
            body = bytes([u]) + pdu
            fr = b"{" + body + crc16(body) + b"}"
            if k < 0.3:
                fr = b"{" + body + b"\x00\x00}"
            elif k < 0.45:
                fr = fr[:r.randint(1, 4)]
            out.append(fr)
    return out


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
SERVER_FRAMERS = {
    "tcp": [(55, Framer.SOCKET), (20, Framer.RTU), (17, Framer.ASCII), (8, Framer.BINARY)],
    "udp": [(70, Framer.SOCKET), (18, Framer.RTU), (12, Framer.ASCII)],
    "tls": [(85, Framer.TLS), (15, Framer.SOCKET)],
}


class Case:
    def __init__(self, g, r):
        self.g, self.r = g, r
        self.loop = g.loop
        kind = pick(r, [(62, "tcp"), (25, "udp"), (13, "tls")])
        if kind == "tls" and g.cert is None:
            kind = "tcp"
        self.kind = kind
        framer = pick(r, SERVER_FRAMERS[kind])
        self.port = free_port(socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
        self.server = Server(g, r, kind, framer, self.port)
        self.cframer = framer
        if r.random() < 0.06:  # a client speaking another framing
            self.cframer = r.choice([f for f in (Framer.SOCKET, Framer.RTU, Framer.ASCII) if f != framer])
        self.sync = r.random() < 0.45
        self.client = None
        self.timeout = r.choice([0.1, 0.15, 0.15, 0.2, 0.3])
        self.retries = pick(r, [(50, 0), (38, 1), (12, 2)])
        g.last = "%s/%s %s client %s, %s" % (kind, framer.value, "sync" if self.sync else "async",
                                             self.cframer.value, self.timeout)

    # -- client ---------------------------------------------------------------
    def make_client(self):
        r = self.r
        kw = dict(port=self.port, framer=self.cframer, timeout=self.timeout, retries=self.retries)
        if r.random() < 0.3:
            kw["retry_on_empty"] = True
        if r.random() < 0.2:
            kw["broadcast_enable"] = True
        if not self.sync:
            kw["reconnect_delay"] = r.choice([0, 0.05, 0.1, 0.1])
            kw["reconnect_delay_max"] = r.choice([0.2, 0.4])
            if r.random() < 0.2:
                kw["no_resend_on_retry"] = True
            if r.random() < 0.2:
                kw["on_reconnect_callback"] = lambda: None
        if self.kind == "tls":
            cls = ModbusTlsClient if self.sync else AsyncModbusTlsClient
            return cls(HOST, server_hostname="127.0.0.1", **kw)
        if self.kind == "udp":
            cls = ModbusUdpClient if self.sync else AsyncModbusUdpClient
            return cls(HOST, **kw)
        cls = ModbusTcpClient if self.sync else AsyncModbusTcpClient
        return cls(HOST, **kw)

    async def call(self, fn):
        """Run fn(client): in a worker thread for a sync client, awaited for an async one."""
        c = self.client
        if not self.sync and not c.connected and self.r.random() < 0.6:
            await self.connect()  # as an application would, after a timeout closed the connection
        try:
            if self.sync:
                res = await self.loop.run_in_executor(self.g.pool, fn, c)
            else:
                res = await asyncio.wait_for(fn(c), 5)
        except Exception as e:  # noqa: BLE001 (ModbusException, timeouts, struct and value errors alike)
            if DEBUG:
                print("  op: %r" % e, file=sys.stderr)
            return None
        return res if hasattr(res, "isError") else None

    async def connect(self):
        if self.sync:
            return await self.loop.run_in_executor(self.g.pool, self.client.connect)
        try:
            return await asyncio.wait_for(self.client.connect(), 2)
        except asyncio.TimeoutError:
            return False

    async def close(self):
        if self.sync:
            await self.loop.run_in_executor(self.g.pool, self.client.close)
        else:
            self.client.close()

    # -- operations -------------------------------------------------------------
    def slave(self):
        r = self.r
        s = self.server.store
        k = r.random()
        if k < 0.8:
            return r.choice(s.slave_ids) if not s.single else r.choice([1, 1, 1, 0, 9])
        if k < 0.9:
            return r.choice([4, 42, 200, 250])  # unknown (unless single)
        return 0  # broadcast

    def addr(self, sid, t, wide=False):
        r = self.r
        rg = self.server.store.ranges.get(sid)
        if rg is None or r.random() < 0.15:
            return r.choice([0, 1, 500, 999, 5000, 65000]), r.randint(1, 20)
        (start, size), zero = rg[0][t], rg[1]
        base = start if zero else max(start - 1, 0)
        off = r.randrange(max(size, 1))
        a = base + off
        n = r.randint(1, max(1, min(size, 125 if not wide else 1968) // r.choice([1, 2, 4, 8])))
        if r.random() < 0.85:  # mostly inside the block
            n = max(1, min(n, size - off))
        if r.random() < 0.08:
            n = r.choice([0, 126, 2001, 3000])
        return a, n

    async def op_read(self):
        r = self.r
        sid = self.slave()
        t = r.choice(["co", "di", "hr", "ir"])
        a, n = self.addr(sid, t, wide=t in ("co", "di"))
        fn = {"co": "read_coils", "di": "read_discrete_inputs", "hr": "read_holding_registers",
              "ir": "read_input_registers"}[t]
        res = await self.call(lambda c: getattr(c, fn)(a, n, slave=sid))
        if DEBUG:
            print("  read %s %d %d %d -> %s" % (t, sid, a, n, res), file=sys.stderr)
        if res is not None and not res.isError() and t in ("hr", "ir") and r.random() < 0.3 and res.registers:
            try:
                d = BinaryPayloadDecoder.fromRegisters(res.registers, byteorder=r.choice([Endian.BIG, Endian.LITTLE]),
                                                       wordorder=r.choice([Endian.BIG, Endian.LITTLE]))
                d.decode_16bit_uint()
                if len(res.registers) >= 3:
                    d.decode_32bit_float()
            except Exception:  # noqa: BLE001
                pass
        if res is not None and not res.isError() and t in ("co", "di") and r.random() < 0.15:
            try:
                BinaryPayloadDecoder.fromCoils(res.bits[:16])
            except Exception:  # noqa: BLE001
                pass

    async def op_write(self):
        r = self.r
        sid = self.slave()
        k = r.random()
        if k < 0.2:
            a, _ = self.addr(sid, "co")
            await self.call(lambda c: c.write_coil(a, r.random() < 0.5, slave=sid))
        elif k < 0.4:
            a, n = self.addr(sid, "co")
            vals = [r.random() < 0.5 for _ in range(max(n, 1))]
            await self.call(lambda c: c.write_coils(a, vals, slave=sid))
        elif k < 0.6:
            a, _ = self.addr(sid, "hr")
            await self.call(lambda c: c.write_register(a, r.randrange(65536), slave=sid))
        else:
            a, _ = self.addr(sid, "hr")
            if r.random() < 0.6:
                b = BinaryPayloadBuilder(byteorder=r.choice([Endian.BIG, Endian.LITTLE]),
                                         wordorder=r.choice([Endian.BIG, Endian.LITTLE]))
                for _ in range(r.randint(1, 3)):
                    kk = r.random()
                    if kk < 0.3:
                        b.add_16bit_int(r.randint(-30000, 30000))
                    elif kk < 0.6:
                        b.add_32bit_float(r.random() * 1000)
                    elif kk < 0.8:
                        b.add_string("pm%02d" % r.randint(0, 99))
                    else:
                        b.add_64bit_uint(r.randrange(1 << 40))
                vals = b.to_registers()
            else:
                vals = [r.randrange(65536) for _ in range(r.randint(1, 12))]
            await self.call(lambda c: c.write_registers(a, vals, slave=sid))

    async def op_mask_rw(self):
        r = self.r
        sid = self.slave()
        a, n = self.addr(sid, "hr")
        if r.random() < 0.45:
            await self.call(lambda c: c.mask_write_register(a, r.randrange(65536), r.randrange(65536), slave=sid))
        else:
            a2, _ = self.addr(sid, "hr")
            vals = [r.randrange(65536) for _ in range(r.randint(1, 6))]
            await self.call(lambda c: c.readwrite_registers(read_address=a, read_count=max(min(n, 20), 1),
                                                            write_address=a2, values=vals, slave=sid))

    async def op_device(self):
        r = self.r
        sid = self.slave()
        k = r.random()
        if k < 0.5:
            code = r.choice([1, 2, 3, 4, 4])
            obj = 0 if code != 4 else r.choice([0, 1, 4, 5, 0x80])
            await self.call(lambda c: c.read_device_information(read_code=code, object_id=obj, slave=sid))
        elif k < 0.75:
            await self.call(lambda c: c.report_slave_id(slave=sid))
        else:
            await self.call(lambda c: c.read_exception_status(slave=sid))

    async def op_diag(self):
        r = self.r
        sid = self.slave()
        name = r.choice(["diag_query_data", "diag_read_diagnostic_register", "diag_clear_counters",
                         "diag_read_bus_message_count", "diag_read_bus_comm_error_count",
                         "diag_read_bus_exception_error_count", "diag_read_slave_message_count",
                         "diag_read_slave_no_response_count", "diag_read_slave_nak_count",
                         "diag_read_slave_busy_count", "diag_read_bus_char_overrun_count",
                         "diag_read_iop_overrun_count", "diag_clear_overrun_counter",
                         "diag_getclear_modbus_response", "diag_change_ascii_input_delimeter",
                         "diag_restart_communication", "diag_get_comm_event_counter",
                         "diag_get_comm_event_log", "diag_force_listen_only"])
        if name == "diag_query_data":
            await self.call(lambda c: c.diag_query_data(msg=bytes(r.randrange(256) for _ in range(4)), slave=sid))
        elif name == "diag_restart_communication":
            await self.call(lambda c: c.diag_restart_communication(r.random() < 0.5, slave=sid))
        elif name in ("diag_get_comm_event_counter", "diag_get_comm_event_log"):
            await self.call(lambda c: getattr(c, name)(slave=sid))
        elif name == "diag_force_listen_only" and r.random() < 0.5:
            req = r.choice([ForceListenOnlyModeRequest, ClearCountersRequest, GetClearModbusPlusRequest,
                            ReturnBusMessageCountRequest, ReturnSlaveBusyCountRequest,
                            ReturnSlaveMessageCountRequest, ReturnQueryDataRequest])(slave=sid)
            await self.call(lambda c: c.execute(req))
        else:
            await self.call(lambda c: getattr(c, name)(slave=sid))

    async def op_files(self):
        r = self.r
        sid = self.slave()
        k = r.random()
        if k < 0.4:
            await self.call(lambda c: c.read_fifo_queue(address=r.randrange(10), slave=sid))
        elif k < 0.7:
            recs = [FileRecord(file_number=r.randint(1, 4), record_number=r.randrange(10), record_length=2)]
            await self.call(lambda c: c.read_file_record(recs, slave=sid))
        else:
            recs = [FileRecord(file_number=1, record_number=r.randrange(10), record_data=b"\x00\x01\x00\x02")]
            await self.call(lambda c: c.write_file_record(recs, slave=sid))

    async def op_raw(self):
        """A second connection sending crafted frames to the server."""
        r = self.r
        if self.server.task is None:
            return
        frames = raw_frames(r, self.server.framer, r.choice(self.server.store.slave_ids))
        if self.kind == "udp":
            tr, _ = await self.loop.create_datagram_endpoint(asyncio.DatagramProtocol, remote_addr=(HOST, self.port))
            try:
                for fr in frames:
                    tr.sendto(fr)
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.03)
            finally:
                tr.close()
            return
        ssl_ctx = None
        if self.kind == "tls":
            import ssl
            ssl_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ssl_ctx.check_hostname = False
            ssl_ctx.verify_mode = ssl.CERT_NONE
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, self.port, ssl=ssl_ctx), 1)
        except (OSError, asyncio.TimeoutError):
            return
        try:
            for fr in frames:
                writer.write(fr)
                await writer.drain()
                if r.random() < 0.5:
                    try:
                        await asyncio.wait_for(reader.read(512), 0.05)
                    except asyncio.TimeoutError:
                        pass
            await asyncio.sleep(0.02)
            if r.random() < 0.3:  # the peer closes its write side first
                writer.write_eof() if writer.can_write_eof() else None
                await asyncio.sleep(0.01)
        except (OSError, ConnectionError):
            pass
        finally:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 0.5)
            except Exception:  # noqa: BLE001
                pass
        await asyncio.sleep(0.005)

    async def op_server_stop(self):
        r = self.r
        if self.server.task is None:
            await self.server.start()
            return
        await self.server.stop()
        await asyncio.sleep(0.01)
        # a request while it is down (timeouts, failed reconnects)
        if r.random() < 0.7:
            await self.op_read()
        if r.random() < 0.6:
            await asyncio.sleep(r.choice([0.05, 0.15, 0.3]))
            self.server = Server(self.g, r, self.server.kind, self.server.framer, self.port)
            await self.server.start()
            await asyncio.sleep(r.choice([0.02, 0.1, 0.3]))

    async def op_reconnect(self):
        r = self.r
        await self.close()
        await asyncio.sleep(r.choice([0.0, 0.01, 0.05]))
        if r.random() < 0.85:
            await self.connect()

    async def op_idle(self):
        await asyncio.sleep(self.r.choice([0.01, 0.05, 0.1]))

    async def run(self):
        r = self.r
        ok = await self.server.start()
        if not ok:
            await self.server.stop()
            return
        try:
            self.client = self.make_client()
            if r.random() < 0.04:  # a client for a port nobody listens on
                self.client.comm_params.port = free_port()
                if hasattr(self.client, "params"):
                    self.client.params.port = self.client.comm_params.port
            if not await self.connect() and r.random() < 0.7:
                return
            ops = [(self.op_read, 30), (self.op_write, 18), (self.op_mask_rw, 6), (self.op_device, 7),
                   (self.op_diag, 8), (self.op_files, 4), (self.op_raw, 10), (self.op_server_stop, 3),
                   (self.op_reconnect, 3), (self.op_idle, 2)]
            fns, weights = zip(*ops)
            for _ in range(r.randint(2, 10)):
                await r.choices(fns, weights)[0]()
        finally:
            if self.client is not None:  # always: a live reconnect loop would log into later cases
                await self.close()
            await asyncio.sleep(0.01)
            await self.server.stop()
            await asyncio.sleep(0.01)


class Gen:
    def __init__(self, loop, cert):
        self.loop = loop
        self.cert = cert
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
        self.last = ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=420)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deps", default=None, help="the directory holding site-packages/pymodbus")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gen_pymodbus.")
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    if not DEBUG:  # unretrieved exceptions of failing tasks are expected
        loop.set_exception_handler(lambda loop, context: None)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    log = _capture.EventLog(pymodbus, a.out, logger_names=["pymodbus"], wrappers=WRAPPERS)
    g = Gen(loop, make_cert(tmp))
    t0 = time.time()
    try:
        for i in range(a.cases):
            if ONLY and str(i) not in ONLY:
                continue
            r = random.Random("%d-%d" % (a.seed, i))
            t1 = time.time()
            log.case_id = "pm-%05d" % i
            try:
                loop.run_until_complete(asyncio.wait_for(Case(g, r).run(), 20))
            except Exception as e:  # noqa: BLE001
                if DEBUG:
                    print("case %d: %r" % (i, e), file=sys.stderr)
            finally:
                log.end_case()
            loop.run_until_complete(asyncio.sleep(0.002))  # stragglers land outside any case
            if DEBUG:
                print("case %d: %.2fs %s" % (i, time.time() - t1, g.last), file=sys.stderr)
            if DEBUG and i % 50 == 0:
                print("%d cases, %d events, %.1fs" % (i, log.events_written, time.time() - t0), file=sys.stderr)
    finally:
        log.finish()
        g.pool.shutdown(wait=False, cancel_futures=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
