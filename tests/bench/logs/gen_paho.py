#!/usr/bin/python3
"""Event log of paho-mqtt (Debian python3-paho-mqtt 1.6.1): MQTT client
sessions against a mosquitto broker (Debian ``mosquitto`` 2.0.11) that the
generator starts on 127.0.0.1 for the run, and against a misbehaving broker
written here.

    /usr/bin/python3 gen_paho.py --out .deps/logs/paho.csv.gz [--cases 900] [--seed 1] [--jobs 6]
    /usr/bin/python3 gen_paho.py --repo     # prints the directory to index

Indexed: the installed ``paho`` directory
(``/usr/lib/python3/dist-packages/paho``): ``mqtt/client.py``, which holds
every log call, and the helpers beside it (``publish``, ``subscribe``,
``properties``, ``reasoncodes``...), which log nothing.

Broker: ``mosquitto`` runs as a child process of the generator with a
configuration written into a temp dir (on /dev/shm when writable): no
persistence, no ``$SYS`` tree, ``max_packet_size`` 65536 and
``max_keepalive`` 60; a password file made with ``mosquitto_passwd``
(users ``alice`` and ``bob``; anonymous clients allowed) and an ACL file
(anonymous clients may write only under ``bench/``; ``vault/`` is alice's;
``public/`` is read-only but for bob). It listens on three free ports of
127.0.0.1: the main listener, a strict one (``max_qos 1``,
``max_topic_alias 0``) and, when the ``cryptography`` package can make a
throw-away certificate, a TLS one (without it the TLS cases use the main
listener). When run as root the configuration says ``user root``, since
mosquitto would otherwise drop to a user that cannot read the temp dir.
The broker is killed and the dir removed at exit (also on SIGTERM).

A case is one client session (client A), drawn with its own
``random.Random``:

- (about 82%) A against mosquitto. The case draws the protocol (MQTT v3.1,
  v3.1.1, v5), the listener (main, strict or TLS, the TLS client sometimes
  without the CA, so that its connections fail), the client id (short,
  long, empty: the broker assigns one to a v5 client), a clean or
  persistent session (v5: ``clean_start`` and a session expiry), the
  keepalive (1 s in the cases that wait for a ping, 0, up to 120 s, which
  mosquitto answers with a server keepalive of 60 for v5), credentials
  (none, good, a wrong password, an unknown user: refused clients keep
  retrying), a will (with v5 properties), v5 CONNECT properties, an
  ``on_log`` callback, ``max_inflight_messages_set``,
  ``max_queued_messages_set``, per-topic callbacks
  (``message_callback_add``), ``reconnect_on_failure`` off, callbacks that
  raise (``on_connect``, ``on_message``, a per-topic callback,
  ``on_subscribe``, ``on_unsubscribe``, ``on_publish``,
  ``on_disconnect``, the socket callbacks), with ``suppress_exceptions``
  mostly on (off, the first exception stops the application), and how A's network loop runs: ``loop_start`` (after
  ``connect`` or ``connect_async``), ``loop_forever`` in a thread of its
  own (the application subscribing and publishing from ``on_connect``,
  and stopped mostly by a ``bye`` command it receives, else by
  ``disconnect()`` from the case's thread), ``loop()`` called by hand,
  or an external select loop calling ``loop_read``/``loop_write``/
  ``loop_misc`` with the socket callbacks set. Most cases have a second
  client, B (``loop_start``; its own records logged in some cases), which
  publishes to A and receives A's messages, A's will and A's replies to
  its requests. Then 2-12 steps: subscriptions (one topic or a list, with
  wildcards, shared subscriptions, topics the ACL refuses, v5 subscription
  options and identifiers), unsubscriptions, publishes at QoS 0/1/2 (at
  most 1 on the strict listener; retained or not, empty to 60 KB payloads, v5 properties, topic aliases,
  retained messages cleared), bursts past the inflight limit, B publishing
  to A, request/response through A's ``on_message``, idle waits, a wait
  for a keepalive ping, a takeover by a third client with A's client id,
  a dropped socket, a persistent session left and resumed while B
  publishes, an explicit reconnect, and sometimes a last step that makes
  the broker drop A for good (a packet over ``max_packet_size``, QoS 2 on
  the strict listener, an unknown topic alias), after which A keeps
  reconnecting and resending until the case ends. A ends with
  ``disconnect`` (v5: a reason code and properties), or by dropping its
  socket (the broker then sends the will to B).
- (about 13%) A against a broker written here (a thread speaking just
  enough MQTT) that refuses the protocol version (paho downgrades to
  v3.1), refuses an empty client id (paho makes one), refuses the
  connection, sends PINGREQ, QoS 2 and duplicate QoS 1 messages, a topic
  that is not UTF-8, a packet type paho does not know, a DISCONNECT (to a
  v3 client, which does not know it), a half packet, a malformed length,
  resets the connection, or closes its port for a while.
- (about 5%) A against a closed port with ``connect_async`` and
  ``loop_start`` or ``loop_forever(retry_first_connection=True)``
  (``on_connect_fail`` sometimes raising), the port sometimes opened later
  by the misbehaving broker.

Capture: paho logs only through ``Client._easy_log(level, fmt, *args)``,
whose first argument is paho's level constant (``MQTT_LOG_DEBUG``,
``MQTT_LOG_ERR``...) and second the %-format; it renders the text for the
application's ``on_log`` callback and hands the format and arguments to the
``logging.Logger`` given to ``enable_logger``, mapping the level through
``LOGGING_LEVEL``. It does nothing else, so it is declared a pure logging
wrapper: the emitter of a record is the paho line that calls ``_easy_log``
(``code.wrapped`` = 1 for every record). Each client of a case gets a logger
through ``enable_logger``: the default (``paho.mqtt.client``) or an
application's (``app.mqtt``, ``sensor.telemetry``, ``gateway.uplink``; B's
and the takeover client's are children of A's); ``_capture.py``'s handler
sits on the roots ``paho``, ``app``, ``sensor`` and ``gateway`` at DEBUG
(not propagating), so every level is captured. ``on_log`` is only
exercised, not captured.

Cases run ``--jobs`` at a time (6: they mostly wait), each worker a forked
process running one case after another, so every record of a process
belongs to its open case (paho's own network threads included); the rows
come back to the main process and are written in case order. At the end
of a case every client is stopped and its logger disabled
(``disable_logger``), so that a network thread outliving its case logs
nothing into the next one (records emitted while no case is open are
dropped and counted). Cases with fewer than 3 events are dropped. Client
ids and topics carry the case number, so cases running side by side on the
one broker never see each other's messages or sessions.

Determinism: each case draws from ``random.Random("<seed>-<case>")``, and
only the case's main thread draws from it. The events differ between runs
where paho's threads race the broker (when a reconnect lands, how many
retries fit in a wait, acknowledgements overtaking publishes); messages
hold ports, broker-assigned client ids and random client ids made by paho.

Debugging: GEN_DEBUG=1 prints one line per case (events, seconds, what it
drew) and the totals; GEN_ONLY=3,17 runs only those cases; with GEN_DEBUG,
GEN_BROKER_LOG=N also prints the last N lines of mosquitto's own log.
"""
import argparse
import logging
import multiprocessing
import os
import random
import selectors
import shutil
import signal
import socket
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

import paho  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(paho.__file__)))
    sys.exit(0)

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402
from paho.mqtt.reasoncodes import ReasonCodes  # noqa: E402
from paho.mqtt.subscribeoptions import SubscribeOptions  # noqa: E402

# _easy_log only renders for on_log and forwards to the logger: its caller is the emitter
WRAPPERS = {("paho/mqtt/client.py", "_easy_log")}
LOGGER_ROOTS = ["paho", "app", "sensor", "gateway"]
APP_LOGGERS = [(30, None), (25, "app.mqtt"), (25, "sensor.telemetry"), (20, "gateway.uplink")]
HOST = "127.0.0.1"
DEBUG = bool(os.environ.get("GEN_DEBUG"))
USERS = {"alice": "wonderland-7", "bob": "builder-42"}

PROTOS = {"v31": mqtt.MQTTv31, "v311": mqtt.MQTTv311, "v5": mqtt.MQTTv5}
SENSORS = ["temp", "humidity", "pressure", "co2", "door", "motion", "power", "voltage", "lux", "battery"]
ROOMS = ["kitchen", "hall", "lab", "garage", "attic", "office", "roof"]
EVENTS = ["alarm", "boot", "ota", "fault", "heartbeat", "config"]


def debug(msg):
    if DEBUG:
        sys.stderr.write(msg + "\n")


# ---------------------------------------------------------------------------
# the mosquitto broker of the run
# ---------------------------------------------------------------------------
def find_bin(name):
    return shutil.which(name, path=os.pathsep.join(["/usr/sbin", "/usr/bin", "/sbin", "/bin",
                                                    os.environ.get("PATH", "")]))


class Broker:
    """mosquitto as a child process, on free ports of 127.0.0.1."""

    def __init__(self, tmp, certs):
        self.dir = tmp
        self.proc = None
        self.certs = certs
        self.port = _capture.free_port()
        self.strict_port = _capture.free_port()
        self.tls_port = _capture.free_port() if certs else None

    def start(self):
        exe, passwd = find_bin("mosquitto"), find_bin("mosquitto_passwd")
        if not exe or not passwd:
            sys.exit("gen_paho: mosquitto or mosquitto_passwd not found (apt-get install mosquitto)")
        pw = os.path.join(self.dir, "passwd")
        for k, (user, secret) in enumerate(sorted(USERS.items())):
            subprocess.run([passwd, "-b"] + (["-c"] if k == 0 else []) + [pw, user, secret], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        acl = os.path.join(self.dir, "acl")
        with open(acl, "w") as fh:
            # the lines before the first "user" are the anonymous clients'
            fh.write("topic readwrite bench/#\ntopic read public/#\n\n"
                     "user alice\ntopic readwrite bench/#\ntopic readwrite vault/#\ntopic read public/#\n\n"
                     "user bob\ntopic readwrite bench/#\ntopic readwrite public/#\n")
        conf = os.path.join(self.dir, "mosquitto.conf")
        lines = []
        if os.geteuid() == 0:
            lines.append("user root")  # else mosquitto switches to a user that cannot read this dir
        lines += ["per_listener_settings false", "allow_anonymous true", "password_file " + pw,
                  "acl_file " + acl, "persistence false", "sys_interval 0", "max_packet_size 65536",
                  "max_keepalive 60", "max_inflight_messages 20", "max_queued_messages 40",
                  "log_dest " + ("file " + os.path.join(self.dir, "mosquitto.log") if DEBUG else "none"),
                  "log_type all" if DEBUG else "log_type error",
                  "listener %d %s" % (self.port, HOST),
                  "listener %d %s" % (self.strict_port, HOST), "max_qos 1", "max_topic_alias 0"]
        if self.tls_port:
            lines += ["listener %d %s" % (self.tls_port, HOST), "certfile " + self.certs["cert"],
                      "keyfile " + self.certs["key"]]
        with open(conf, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        err = open(os.path.join(self.dir, "stderr"), "w")
        self.proc = subprocess.Popen([exe, "-c", conf], stdout=subprocess.DEVNULL, stderr=err)
        for _ in range(200):
            if self.proc.poll() is not None:
                break
            try:
                socket.create_connection((HOST, self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        with open(os.path.join(self.dir, "stderr")) as fh:
            sys.exit("gen_paho: mosquitto did not start:\n" + fh.read()[-2000:])

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------------
# a misbehaving broker (just enough MQTT to talk to paho)
# ---------------------------------------------------------------------------
def varint(n):
    out = bytearray()
    while True:
        b, n = n % 128, n // 128
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def packet(head, body=b""):
    return bytes([head]) + varint(len(body)) + body


def utf(s):
    b = s if isinstance(s, bytes) else s.encode()
    return len(b).to_bytes(2, "big") + b


def read_varint(buf, pos):
    n, mult = 0, 1
    while True:
        b = buf[pos]
        pos += 1
        n += (b & 0x7F) * mult
        mult *= 128
        if not b & 0x80:
            return n, pos


class FakeBroker:
    """A TCP server in a thread that answers one client at a time, following
    the modes drawn for the case (see the header)."""

    def __init__(self, r, modes, port=None):
        self.modes = set(modes)
        self.stop_ev = threading.Event()
        self.port = port or _capture.free_port()
        self.conns = 0
        self.lsock = None
        self.sock = None
        self.plan = {  # drawn now: only the case's main thread draws from r
            "refuse_rc": r.choice([2, 3, 4, 5]),
            "refuse_v5": r.choice([0x80, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8C, 0x9F]),
            "suback_fail": r.random() < 0.3,
            "echo": r.random() < 0.6,
            "pushes": [(r.choice([0, 1, 2]), r.choice(SENSORS), r.randint(0, 300)) for _ in range(r.randint(2, 8))],
            "restart_gap": r.choice([0.15, 0.3, 0.5]),
            # where the reset cuts: between packets, inside a fixed header, inside a body
            "reset_at": r.choice(["between", "header", "body"]),
            "delay": r.choice([0.02, 0.05, 0.1]),
        }
        self.unknown_head = r.choice([0xF0, 0x00])
        self.v5 = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._listen()
        self.thread.start()

    def _listen(self):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((HOST, self.port))
        s.listen(4)
        s.settimeout(0.02)
        self.lsock = s

    def stop(self):
        self.stop_ev.set()
        self.thread.join(3)
        for s in (self.sock, self.lsock):
            try:
                s and s.close()
            except OSError:
                pass

    def _run(self):
        while not self.stop_ev.is_set():
            if self.lsock is None:
                time.sleep(0.01)
                continue
            try:
                conn, _ = self.lsock.accept()
            except (socket.timeout, OSError):
                continue
            self.conns += 1
            self.sock = conn
            try:
                self._serve(conn, self.conns)
            except (OSError, IndexError, ValueError):
                pass
            finally:
                try:
                    conn.close()
                except OSError:
                    pass
                self.sock = None

    # -- wire helpers -------------------------------------------------------
    def _recv_exact(self, conn, n, until):
        buf = b""
        while len(buf) < n:
            if self.stop_ev.is_set() or time.time() > until:
                raise OSError("fake broker: stop")
            try:
                chunk = conn.recv(n - len(buf))
            except socket.timeout:
                continue
            if not chunk:
                raise OSError("fake broker: peer closed")
            buf += chunk
        return buf

    def _read(self, conn, wait):
        """One packet (head, body), or None when nothing came within wait."""
        conn.settimeout(0.02)
        t_end = time.time() + wait
        while True:
            if self.stop_ev.is_set():
                raise OSError("fake broker: stop")
            try:
                h = conn.recv(1)
            except socket.timeout:
                if time.time() > t_end:
                    return None
                continue
            if not h:
                raise OSError("fake broker: peer closed")
            break
        until = time.time() + 2
        n, mult = 0, 1
        while True:
            b = self._recv_exact(conn, 1, until)[0]
            n += (b & 0x7F) * mult
            mult *= 128
            if not b & 0x80:
                break
        return h[0], self._recv_exact(conn, n, until) if n else b""

    def _publish(self, conn, topic, payload, qos, mid, dup=False, retain=False):
        body = utf(topic) + (mid.to_bytes(2, "big") if qos else b"") + (b"\x00" if self.v5 else b"") + payload
        conn.sendall(packet(0x30 | (0x08 if dup else 0) | (qos << 1) | (1 if retain else 0), body))

    def _rst(self, conn):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()

    # -- one connection -------------------------------------------------------
    def _serve(self, conn, n):
        p, modes = self.plan, self.modes
        first = n == 1
        pk = self._read(conn, 2)
        if pk is None or pk[0] & 0xF0 != 0x10:
            return
        body = pk[1]
        name_len = int.from_bytes(body[:2], "big")
        level = body[2 + name_len]
        self.v5 = level == 5
        pos = 2 + name_len + 4
        if self.v5:
            plen, pos = read_varint(body, pos)
            pos += plen
        cid_len = int.from_bytes(body[pos:pos + 2], "big")
        ack_props = b"\x00" if self.v5 else b""
        if "downgrade" in modes and level == 4:
            conn.sendall(packet(0x20, b"\x00\x01"))
            self._read(conn, 0.5)
            return
        if "cid" in modes and cid_len == 0 and level == 4:
            conn.sendall(packet(0x20, b"\x00\x02"))
            self._read(conn, 0.5)
            return
        if "refuse" in modes:
            rc = p["refuse_v5"] if self.v5 else p["refuse_rc"]
            conn.sendall(packet(0x20, bytes([0, rc]) + ack_props))
            self._read(conn, 0.3)
            return
        if "slow" in modes and first:
            for b in packet(0x20, b"\x00\x00" + ack_props):
                conn.sendall(bytes([b]))
                time.sleep(0.01)
        else:
            conn.sendall(packet(0x20, b"\x00\x00" + ack_props))
        mid = 100 + n * 10
        if first:
            if "pingreq" in modes:
                time.sleep(p["delay"])
                conn.sendall(packet(0xC0))
            if "qos2in" in modes:
                self._publish(conn, "bench/fake/orders", b'{"order": 17}', 2, mid)
                mid += 1
            if "dupin" in modes:
                self._publish(conn, "bench/fake/meter", b"42.1", 1, mid)
                self._publish(conn, "bench/fake/meter", b"42.1", 1, mid, dup=True)
                mid += 1
            if "badutf8" in modes:
                self._publish(conn, b"bench/fake/\xc3\x28/raw", b"\x01\x02", 0, 0)
            if "pushes" in modes:
                for qos, s, size in p["pushes"]:
                    self._publish(conn, "bench/fake/" + s, bytes(size), qos, mid, retain=size % 5 == 0)
                    mid += 1
        t_mode = time.time() + p["delay"] * 3
        done_mode = not first
        while not self.stop_ev.is_set():
            if not done_mode and time.time() > t_mode:
                done_mode = True
                if "unknown" in modes:
                    conn.sendall(packet(0xF0 if self.v5 else self.unknown_head))
                if "disconnect" in modes:
                    if self.v5:
                        props = b"\x1f" + utf("server shutting down for maintenance")
                        conn.sendall(packet(0xE0, b"\x8b" + varint(len(props)) + props))
                    else:
                        conn.sendall(packet(0xE0))
                if "half" in modes:
                    conn.sendall(packet(0x30, utf("bench/fake/partial") + bytes(200))[:30])
                    return
                if "badlen" in modes:
                    conn.sendall(b"\x30\xff\xff\xff\xff\x7f")
                if "reset" in modes:
                    if p["reset_at"] == "header":
                        conn.sendall(b"\x30")
                    elif p["reset_at"] == "body":
                        conn.sendall(b"\x30" + varint(60) + utf("bench/fake/cut"))
                    time.sleep(0.05)  # let paho take what was sent before the reset comes
                    self._rst(conn)
                    return
                if "restart" in modes:
                    conn.close()
                    self.lsock.close()
                    self.lsock = None
                    time.sleep(p["restart_gap"])
                    self._listen()
                    return
            pk = self._read(conn, 0.05)
            if pk is None:
                continue
            head, body = pk
            kind = head & 0xF0
            if kind == 0x80:  # SUBSCRIBE
                pos = 2
                if self.v5:
                    plen, pos = read_varint(body, pos)
                    pos += plen
                codes = []
                while pos < len(body):
                    tl = int.from_bytes(body[pos:pos + 2], "big")
                    q = body[pos + 2 + tl] & 3
                    pos += 3 + tl
                    codes.append(0x80 if p["suback_fail"] and len(codes) == 0 else q)
                conn.sendall(packet(0x90, body[:2] + ack_props + bytes(codes)))
            elif kind == 0xA0:  # UNSUBSCRIBE
                pos = 2
                if self.v5:
                    plen, pos = read_varint(body, pos)
                    pos += plen
                k = 0
                while pos < len(body):
                    pos += 2 + int.from_bytes(body[pos:pos + 2], "big")
                    k += 1
                conn.sendall(packet(0xB0, body[:2] + (ack_props + bytes(k) if self.v5 else b"")))
            elif kind == 0x30:  # PUBLISH
                qos = (head >> 1) & 3
                tl = int.from_bytes(body[:2], "big")
                topic = body[2:2 + tl]
                if qos == 1:
                    conn.sendall(packet(0x40, body[2 + tl:4 + tl]))
                elif qos == 2:
                    conn.sendall(packet(0x50, body[2 + tl:4 + tl]))
                if p["echo"] and not topic.startswith(b"bench/fake"):
                    pos = 2 + tl + (2 if qos else 0)
                    if self.v5:
                        plen, pos = read_varint(body, pos)
                        pos += plen
                    self._publish(conn, topic, body[pos:], min(qos, 1), mid)
                    mid += 1
            elif kind == 0x60:  # PUBREL
                conn.sendall(packet(0x70, body[:2]))
            elif kind == 0x50:  # PUBREC of our QoS 2 message
                conn.sendall(packet(0x62, body[:2]))
            elif kind == 0xC0:  # PINGREQ
                conn.sendall(packet(0xD0))
            elif kind == 0xE0:  # DISCONNECT
                return


# ---------------------------------------------------------------------------
# clients
# ---------------------------------------------------------------------------
def reason_value(rc):
    return getattr(rc, "value", rc)


class Mq:
    """A paho client of the case with the state its callbacks record, and one
    way of running its network loop (driver): thread (loop_start), forever
    (loop_forever in a thread of ours), manual (loop()) or external (a
    select loop calling loop_read/loop_write/loop_misc)."""

    def __init__(self, case, client_id, proto, logger_name, driver, clean=None, log=True,
                 reconnect_on_failure=True, raising=(), suppress=True, userdata=None):
        self.case = case
        self.proto = proto
        self.v5 = proto == mqtt.MQTTv5
        self.driver = driver
        self.client_id = client_id
        self.logger_name = logger_name
        self.c = mqtt.Client(client_id, clean_session=None if self.v5 else clean, userdata=userdata,
                             protocol=proto, reconnect_on_failure=reconnect_on_failure)
        if log:
            if logger_name is None:
                self.c.enable_logger()  # paho's module logger, paho.mqtt.client
            else:
                self.c.enable_logger(logging.getLogger(logger_name))
        self.c.suppress_exceptions = suppress
        self.raising = set(raising)
        self.connacks = []
        self.connected = False
        self.subacks = set()
        self.unsubacks = set()
        self.acked = set()
        self.msgs = []
        self.disconnects = 0
        self.want_down = False
        self.max_qos = None
        self.crashed = False  # a callback raised with suppress_exceptions off: the application stops
        self.lost_at = None
        self.thread = None
        self.on_connect_ops = []  # the forever driver's application work, done in on_connect
        self.resub = []  # subscriptions redone in on_connect by applications that resubscribe
        # manual and external loops reconnect as loop_forever would, unless the application says not to
        self.auto_reconnect = reconnect_on_failure
        self.base = None
        self.reconnect_delay = 0.1
        c = self.c
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_unsubscribe = self._on_unsubscribe
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        c.on_connect_fail = self._on_connect_fail
        if driver == "external":
            c.on_socket_open = self._sock_open
            c.on_socket_close = self._sock_close
            c.on_socket_register_write = self._reg_write
            c.on_socket_unregister_write = self._unreg_write

    # -- callbacks (called from paho's thread, or the case's for manual/external)
    def _maybe_raise(self, what):
        if what in self.raising:
            raise RuntimeError("application failure in %s" % what)

    def _on_connect(self, client, userdata, flags, rc, *props):
        rc = reason_value(rc)
        self.connacks.append(rc)
        self.connected = rc == 0
        if self.connected:
            self.lost_at = None
            first = len([x for x in self.connacks if x == 0]) == 1
            if first:
                for op in self.on_connect_ops:
                    op()
            elif self.resub:
                for args, kw in self.resub:
                    client.subscribe(*args, **kw)
        self._maybe_raise("on_connect")

    def _on_disconnect(self, client, userdata, rc, *props):
        self.connected = False
        self.disconnects += 1
        self.lost_at = time.time()
        self._maybe_raise("on_disconnect")

    def _on_subscribe(self, client, userdata, mid, *rest):
        self.subacks.add(mid)
        self._maybe_raise("on_subscribe")

    def _on_unsubscribe(self, client, userdata, mid, *rest):
        self.unsubacks.add(mid)
        self._maybe_raise("on_unsubscribe")

    def _on_publish(self, client, userdata, mid):
        self.acked.add(mid)
        self._maybe_raise("on_publish")

    def _on_message(self, client, userdata, msg):
        try:
            topic = msg.topic
        except UnicodeDecodeError:
            topic = None
        self.msgs.append((topic, msg.qos, len(msg.payload)))
        if topic is not None and self.base and topic.startswith(self.base + "/cmd/"):
            if topic.endswith("/bye") and self.driver == "forever":
                client.disconnect()
            elif topic.endswith("/echo"):
                props = getattr(msg, "properties", None)
                rt = getattr(props, "ResponseTopic", None) if props is not None else None
                out = None
                if self.v5:
                    out = Properties(PacketTypes.PUBLISH)
                    if props is not None and hasattr(props, "CorrelationData"):
                        out.CorrelationData = props.CorrelationData
                    out.ContentType = "application/json"
                client.publish(rt or self.base + "/reply", b'{"echo": %d}' % len(msg.payload), msg.qos,
                               properties=out)
        self._maybe_raise("on_message")

    def _on_connect_fail(self, client, userdata):
        self._maybe_raise("on_connect_fail")

    def _sock_open(self, client, userdata, sock):
        self._maybe_raise("on_socket_open")

    def _sock_close(self, client, userdata, sock):
        self._maybe_raise("on_socket_close")

    def _reg_write(self, client, userdata, sock):
        self._maybe_raise("on_socket_register_write")

    def _unreg_write(self, client, userdata, sock):
        self._maybe_raise("on_socket_unregister_write")

    # -- connecting and running the loop ----------------------------------------
    def start(self, host, port, keepalive, asynchronous=False, retry_first=False, loop_timeout=1.0, **kw):
        """Connect and start the driver; False when the first connection
        failed at once (connect() raised)."""
        c = self.c
        if self.driver in ("thread", "forever") and asynchronous:
            c.connect_async(host, port, keepalive, **kw)
        else:
            try:
                c.connect(host, port, keepalive, **kw)
            except RuntimeError as e:  # a socket callback raised, suppress_exceptions off: the application stops
                self.case.note("connect " + type(e).__name__)
                self.crashed = True
                return False
            except (OSError, ValueError) as e:
                self.case.note("connect " + type(e).__name__)
                if self.driver not in ("thread", "forever"):
                    return False
                # loop_start keeps trying from its thread; loop_forever only when told to
                if self.driver == "forever" and not retry_first:
                    return False
        if self.driver == "thread":
            c.loop_start()
        elif self.driver == "forever":
            def run():
                try:
                    c.loop_forever(timeout=loop_timeout, retry_first_connection=retry_first)
                except Exception as e:  # noqa: BLE001  a raising callback with suppress off ends the loop
                    self.case.note("loop_forever " + type(e).__name__)
                    self.crashed = True
            self.thread = threading.Thread(target=run, daemon=True)
            self.thread.start()
        return True

    def wait(self, pred, timeout):
        """Runs (or lets run) the network loop until pred() or timeout."""
        end = time.time() + timeout
        while True:
            if pred():
                return True
            if time.time() >= end:
                return False
            if self.driver in ("thread", "forever"):
                time.sleep(0.005)
            else:
                self._step(min(0.01, max(0.0, end - time.time())))

    def pause(self, secs):
        self.wait(lambda: False, secs)

    def _step(self, timeout):
        c = self.c
        if self.crashed:
            time.sleep(timeout)
            return
        sock = c.socket()
        if sock is None:
            # the application's own reconnection, as paho's loop_forever would do it
            if self.want_down or not self.auto_reconnect:
                time.sleep(timeout)
                return
            if self.lost_at is None:
                self.lost_at = time.time()
            if time.time() - self.lost_at < self.reconnect_delay:
                time.sleep(timeout)
                return
            self.lost_at = time.time()
            try:
                c.reconnect()
            except (OSError, ValueError) as e:
                self.case.note("reconnect " + type(e).__name__)
            return
        try:
            if self.driver == "manual":
                c.loop(timeout)
                return
            with selectors.DefaultSelector() as sel:
                sel.register(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.want_write() else 0))
                events = sel.select(timeout)
            for _, mask in events:
                if mask & selectors.EVENT_READ:
                    c.loop_read()
                if mask & selectors.EVENT_WRITE and c.socket() is not None:
                    c.loop_write()
            if c.socket() is not None:
                c.loop_misc()
        except (RuntimeError, KeyError) as e:  # a callback that raised with suppress_exceptions off
            self.case.note("raised " + type(e).__name__)
            self.crashed = True
        except (OSError, ValueError) as e:
            self.case.note("loop " + type(e).__name__)

    def drop_socket(self):
        sock = self.c.socket()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def finish(self, how="disconnect", reason=None, props=None):
        """Ends the session: a DISCONNECT, or the socket dropped (the will fires)."""
        c = self.c
        self.want_down = True
        try:
            if how == "disconnect":
                c.disconnect(reasoncode=reason, properties=props) if self.v5 else c.disconnect()
            else:
                self.drop_socket()
        except (OSError, ValueError, RuntimeError) as e:  # RuntimeError: a callback, suppress_exceptions off
            self.case.note("finish " + type(e).__name__)
        if self.driver == "thread":
            c.loop_stop()
        elif self.driver == "forever":
            if self.thread is not None:
                self.thread.join(1.5)
                if self.thread.is_alive():
                    c.disconnect()
                    self.drop_socket()
                    self.thread.join(1.5)
        else:
            self.wait(lambda: c.socket() is None, 0.5)

    def silence(self):
        """After the case: nothing more from this client reaches the log."""
        self.c.disable_logger()
        self.c.on_log = None
        self.raising = set()  # paho calls the socket callbacks again when the client is collected
        self.want_down = True
        try:
            if self.driver == "thread":
                self.c.disconnect()
                self.c.loop_stop()
            elif self.driver == "forever" and self.thread is not None and self.thread.is_alive():
                self.c.disconnect()
                self.thread.join(1)
            sock = self.c.socket()
            if sock is not None:
                sock.close()
        except Exception:  # noqa: BLE001  best effort: the logger is off anyway
            pass


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
def payload(r):
    k = pick(r, [(8, "empty"), (40, "json"), (25, "text"), (15, "bin"), (8, "kb"), (4, "big")])
    if k == "empty":
        return None if r.random() < 0.5 else b""
    if k == "json":
        return ('{"v": %.2f, "unit": "%s", "seq": %d}' % (r.uniform(-20, 900), r.choice(["C", "%", "hPa", "ppm"]),
                                                         r.randrange(10000))).encode()
    if k == "text":
        return " ".join(r.choice(SENSORS + ROOMS) for _ in range(r.randint(1, 40)))
    if k == "bin":
        return r.randbytes(r.randint(1, 900))
    if k == "kb":
        return r.randbytes(r.randint(1000, 16000))
    return r.randbytes(r.randint(16000, 60000))


class Case:
    def __init__(self, i, r, env):
        self.i = i
        self.r = r
        self.env = env
        self.tag = "c%05d" % i
        self.base = "bench/" + self.tag
        self.notes = []
        self.st = {}
        self.clients = []
        self.fakes = []
        self.filters = []  # A's subscriptions (but its commands), for B to aim at

    def note(self, what):
        self.notes.append(what)
        self.st["note " + what] = self.st.get("note " + what, 0) + 1

    def count(self, what):
        self.st[what] = self.st.get(what, 0) + 1

    def client(self, *a, **kw):
        m = Mq(self, *a, **kw)
        self.clients.append(m)
        return m

    def cleanup(self):
        for m in self.clients:
            m.silence()
        for f in self.fakes:
            f.stop()

    def run(self):
        r = self.r
        kind = pick(r, [(82, "broker"), (13, "fake"), (5, "noserver")])
        self.count("kind " + kind)
        {"broker": self.broker_case, "fake": self.fake_case, "noserver": self.noserver_case}[kind]()

    # -- helpers ---------------------------------------------------------------
    def logger_for(self):
        return pick(self.r, APP_LOGGERS)

    def child_logger(self, name, child):
        return (name or "paho.mqtt.client") + "." + child

    def topic(self, what=None):
        r = self.r
        what = what or pick(r, [(50, "sensor"), (20, "event"), (15, "status"), (15, "jobs")])
        if what == "sensor":
            return "%s/sensors/%s/%s" % (self.base, r.choice(ROOMS), r.choice(SENSORS))
        if what == "event":
            return "%s/events/%s" % (self.base, r.choice(EVENTS))
        if what == "status":
            return "%s/status" % self.base
        return "%s/jobs/%d" % (self.base, r.randint(1, 4))

    def pub_props(self, m, alias_ok=True):
        r = self.r
        if not m.v5 or r.random() < 0.4:
            return None
        p = Properties(PacketTypes.PUBLISH)
        if r.random() < 0.4:
            p.MessageExpiryInterval = r.choice([5, 60, 3600])
        if r.random() < 0.4:
            p.ContentType = r.choice(["application/json", "text/plain", "application/octet-stream"])
        if r.random() < 0.3:
            p.PayloadFormatIndicator = r.choice([0, 1])
        if r.random() < 0.3:
            p.UserProperty = ("origin", r.choice(ROOMS))
            if r.random() < 0.4:
                p.UserProperty = ("fw", "1.%d.%d" % (r.randint(0, 9), r.randint(0, 20)))
        if r.random() < 0.15 and alias_ok:
            p.TopicAlias = r.randint(1, 10)
        if r.random() < 0.15:
            p.ResponseTopic = self.base + "/reply/" + r.choice(SENSORS)
            p.CorrelationData = r.randbytes(r.choice([4, 8, 16]))
        return p

    def sub_args(self, m, filters):
        """subscribe() arguments for a list of (filter, qos)."""
        r = self.r
        props = None
        if m.v5:
            if r.random() < 0.3:
                props = Properties(PacketTypes.SUBSCRIBE)
                if r.random() < 0.7:
                    props.SubscriptionIdentifier = r.randint(1, 5000)
                if r.random() < 0.4:
                    props.UserProperty = ("app", "bench")
            subs = [(f, SubscribeOptions(qos=q, noLocal=r.random() < 0.15, retainAsPublished=r.random() < 0.2,
                                         retainHandling=pick(r, [(8, 0), (1, 1), (1, 2)])) if r.random() < 0.6
                     else SubscribeOptions(qos=q)) for f, q in filters]
            if len(subs) == 1 and r.random() < 0.5:
                return (subs[0][0],), {"options": subs[0][1], "properties": props}
            return (subs,), {"properties": props}
        if len(filters) == 1:
            return (filters[0][0], filters[0][1]), {}
        return (filters,), {}

    # -- against mosquitto ------------------------------------------------------
    def broker_case(self):
        r, env = self.r, self.env
        broker = env["broker"]
        proto_name = pick(r, [(22, "v31"), (40, "v311"), (38, "v5")])
        proto = PROTOS[proto_name]
        v5 = proto == mqtt.MQTTv5
        self.count("proto " + proto_name)
        listener = pick(r, [(80, "main"), (10, "strict"), (10 if broker.tls_port else 0, "tls")])
        self.listener = listener
        port = {"main": broker.port, "strict": broker.strict_port, "tls": broker.tls_port}[listener]
        driver = pick(r, [(42, "thread"), (20, "forever"), (20, "manual"), (18, "external")])
        self.count("driver " + driver)
        idk = pick(r, [(75, "short"), (10, "long"), (8 if proto_name != "v31" else 0, "empty"), (7, "device")])
        client_id = {"short": "pa-" + self.tag, "long": "paho-bench-client-%s-%s" % (self.tag, "x" * r.randint(4, 20)),
                     "empty": "", "device": "dev-%s-%s" % (r.choice(ROOMS), self.tag)}[idk]
        persistent = client_id != "" and r.random() < 0.3
        clean = not persistent
        keepalive = pick(r, [(10, 1), (6, 0), (10, 5), (25, 30), (35, 60), (12, 120)])
        if keepalive == 0 and driver == "forever":
            keepalive = 30
        auth = pick(r, [(60, None), (14, "alice"), (10, "bob"), (10, "badpw"), (6, "nouser")])
        self.count("auth %s" % auth)
        raising = []
        suppress = True
        if r.random() < 0.12:
            cands = ["on_connect", "on_message", "on_subscribe", "on_unsubscribe", "on_publish", "on_disconnect"]
            if driver == "external":
                cands += ["on_socket_open", "on_socket_close", "on_socket_register_write",
                          "on_socket_unregister_write"]
            raising = r.sample(cands, r.randint(1, 2))
            suppress = r.random() < 0.75 or driver == "thread"
            self.count("raising")
        recon = r.random() < 0.93 or driver in ("manual", "external")
        lname = self.logger_for()
        a = self.client(client_id, proto, lname, driver, clean=clean, reconnect_on_failure=recon,
                        raising=raising, suppress=suppress)
        a.base = self.base
        if listener == "strict":
            a.max_qos = 1
        a.reconnect_delay = r.choice([0.05, 0.1, 0.2])
        a.c.reconnect_delay_set(a.reconnect_delay, r.choice([0.4, 0.8]))
        if r.random() < 0.25:
            log_seen = []

            def on_log(client, userdata, level, buf):  # what it raises, paho swallows
                log_seen.append(level)
                if len(log_seen) % 7 == 3 and raising:
                    raise ValueError("on_log handler failed")
            a.c.on_log = on_log
        if r.random() < 0.15:
            a.c.max_inflight_messages_set(r.randint(1, 3))
        if r.random() < 0.05:
            a.c.max_queued_messages_set(r.randint(2, 6))
        if listener == "tls":
            if r.random() < 0.85:
                a.c.tls_set(ca_certs=env["certs"]["cert"])
                if r.random() < 0.3:
                    a.c.tls_insecure_set(True)
            else:
                a.c.tls_set()  # the system CAs: the broker's certificate is refused
                self.note("tls without ca")
        user = None
        if auth == "alice" or auth == "bob":
            user = (auth, USERS[auth])
        elif auth == "badpw":
            user = (r.choice(sorted(USERS)), "not-the-password")
        elif auth == "nouser":
            user = ("mallory", r.choice(["x", "letmein", None]))
        if user:
            a.c.username_pw_set(*user)
        will_topic = self.base + "/will"
        if r.random() < 0.35:
            wp = None
            if v5 and r.random() < 0.6:
                wp = Properties(PacketTypes.WILLMESSAGE)
                if r.random() < 0.5:
                    wp.WillDelayInterval = r.choice([0, 0, 1])
                if r.random() < 0.5:
                    wp.ContentType = "text/plain"
                if r.random() < 0.3:
                    wp.MessageExpiryInterval = 30
            a.c.will_set(will_topic, r.choice([b"offline", b'{"state": "lost"}', None]), r.choice([0, 1, 2]),
                         r.random() < 0.4, properties=wp)
            self.count("will")
        ckw = {}
        if v5:
            ckw["clean_start"] = pick(r, [(50, mqtt.MQTT_CLEAN_START_FIRST_ONLY), (25, True), (25, False)])
            if r.random() < 0.5 or persistent:
                cp = Properties(PacketTypes.CONNECT)
                if persistent or r.random() < 0.3:
                    cp.SessionExpiryInterval = r.choice([30, 300, 0xFFFFFFFF]) if persistent else r.choice([0, 10])
                if r.random() < 0.3:
                    cp.ReceiveMaximum = r.choice([1, 2, 10])
                if r.random() < 0.2:
                    cp.MaximumPacketSize = r.choice([2048, 20000])
                if r.random() < 0.2:
                    cp.TopicAliasMaximum = r.choice([0, 5])
                if r.random() < 0.2:
                    cp.RequestProblemInformation = r.choice([0, 1])
                if r.random() < 0.2:
                    cp.UserProperty = ("site", r.choice(ROOMS))
                ckw["properties"] = cp
        resubscribe = r.random() < 0.6
        # the second client: B publishes to A and listens to what A sends
        b = None
        if r.random() < 0.75:
            bproto = mqtt.MQTTv5 if (v5 and r.random() < 0.7) else r.choice([mqtt.MQTTv311, mqtt.MQTTv311,
                                                                           mqtt.MQTTv31])
            b = self.client("pb-" + self.tag, bproto, self.child_logger(lname, "peer"), "thread", clean=True,
                            log=r.random() < 0.6)
            b.c.reconnect_delay_set(0.05, 0.2)
            b.start(HOST, broker.port, 30)
            subs = [(self.base + "/out/#", 1), (self.base + "/reply/#", 1), (self.base + "/reply", 1),
                    (will_topic, 1)]
            b.wait(lambda: b.connected, 1.0)
            mid = b.c.subscribe(subs)[1]
            b.wait(lambda: mid in b.subacks, 0.5)
        # A's first subscription: its command topics and a few filters
        first = [(self.base + "/cmd/#", r.choice([0, 1, 2]))]
        for _ in range(r.randint(0, 2)):
            first.append((pick(r, [(30, self.base + "/sensors/+/" + r.choice(SENSORS)),
                                   (20, self.base + "/sensors/#"), (15, self.base + "/events/+"),
                                   (10, self.base + "/#"), (10, self.base + "/status"),
                                   (15, ("$share/workers/" if proto_name != "v31" else "") + self.base + "/jobs/+")]),
                          r.choice([0, 1, 2])))
        self.filters += [f for f, _ in first[1:]]
        if r.random() < 0.3:
            cbname = r.choice(["on_alarm", "on_reading", "on_job"])
            cb_raise = r.random() < 0.4

            def topic_cb(client, userdata, msg, _raise=cb_raise):
                a.msgs.append(("cb", msg.qos, len(msg.payload)))
                if _raise:
                    raise KeyError("no handler for " + msg.topic.rsplit("/", 1)[-1])
            topic_cb.__name__ = cbname
            a.c.message_callback_add(self.base + {"on_alarm": "/events/#", "on_reading": "/sensors/#",
                                                  "on_job": "/jobs/#"}[cbname], topic_cb)
        plan = self.plan(a, b, v5, listener, persistent, keepalive)
        host = "localhost" if listener == "tls" and r.random() < 0.5 else HOST
        if driver == "forever":
            # the application subscribes and publishes from on_connect
            sargs = self.sub_args(a, first)
            a.on_connect_ops.append(lambda: a.c.subscribe(*sargs[0], **sargs[1]))
            if resubscribe:
                a.resub.append(sargs)
            for _ in range(r.randint(0, 4)):
                t, pl, q, ret = self.topic(), payload(r), min(r.choice([0, 1, 2]), a.max_qos or 2), r.random() < 0.15
                pp = self.pub_props(a, alias_ok=listener != "strict")
                a.on_connect_ops.append(lambda t=t, pl=pl, q=q, ret=ret, pp=pp: a.c.publish(t, pl, q, ret,
                                                                                               properties=pp))
        ok = a.start(host, port, keepalive, asynchronous=driver in ("thread", "forever") and r.random() < 0.3,
                     retry_first=r.random() < 0.5, loop_timeout=r.choice([0.05, 0.1, 0.25]), **ckw)
        if not ok:
            self.note("no first connection")
            return
        a.wait(lambda: a.connacks, 1.0)
        if driver != "forever":
            sargs = self.sub_args(a, first)
            if resubscribe:
                a.resub.append(sargs)
            self.do_subscribe(a, sargs)
        else:
            a.wait(lambda: a.subacks, 0.5)
        for step in plan:
            if a.crashed or (not a.connected and not a.wait(lambda: a.connected, 0.3)):
                # refused, unreachable, or not reconnecting: the application gives up
                self.count("gave up")
                break
            self.count("step " + step[0])
            try:
                getattr(self, "step_" + step[0])(a, b, *step[1:])
            except (RuntimeError, KeyError) as e:  # a callback of A's raised, suppress_exceptions off
                self.note("step raised " + type(e).__name__)
                a.crashed = True
            except OSError as e:  # paho's own write on a TLS socket the broker has just closed
                self.note("step " + type(e).__name__)
        # the end of the session
        end = pick(r, [(80, "disconnect"), (20 if driver != "forever" else 0, "drop")])
        if driver == "forever" and end == "disconnect" and b is not None and r.random() < 0.7:
            b.c.publish(self.base + "/cmd/bye", b"", 1)
            a.wait(lambda: not a.thread.is_alive(), 0.6)
        reason = props = None
        if v5 and r.random() < 0.4:
            reason = ReasonCodes(PacketTypes.DISCONNECT, r.choice(["Normal disconnection",
                                                                   "Disconnect with will message"]))
            if r.random() < 0.5:
                props = Properties(PacketTypes.DISCONNECT)
                if r.random() < 0.6:
                    props.ReasonString = r.choice(["shutdown", "maintenance", "bye"])
                if r.random() < 0.4:
                    props.SessionExpiryInterval = 0
        a.finish(end, reason, props)
        if b is not None:
            b.wait(lambda: False, 0.05 if end == "disconnect" else 0.2)
            b.finish()

    def plan(self, a, b, v5, listener, persistent, keepalive):
        r = self.r
        steps = []
        weights = [(18, "subscribe"), (6, "unsubscribe"), (30, "publish"), (6, "burst"), (6, "retained"),
                   (18 if b else 0, "peer_publish"), (6 if b else 0, "request"), (6, "idle"),
                   (4, "takeover"), (3, "drop"), (6 if persistent and b else 0, "offline"),
                   (4 if a.driver != "forever" else 0, "reconnect"), (3, "denied")]
        if a.driver == "forever":  # the application's own work happens in on_connect and on_message
            weights = [(w, s) for w, s in weights if s in ("peer_publish", "request", "idle", "takeover", "drop")]
            if not b:
                weights.append((5, "idle"))
        for _ in range(r.randint(2, 12)):
            steps.append((pick(r, weights),))
        if keepalive == 1 and r.random() < 0.8:  # one wait long enough for a keepalive ping
            steps.insert(r.randint(0, len(steps)), ("ping",))
        if r.random() < 0.05 and a.driver != "forever":
            steps.append(("poison", pick(r, [(5, "too_big"), (3 if listener == "strict" else 0, "qos2"),
                                             (3 if v5 else 0, "alias")])))
        return steps

    def do_subscribe(self, a, sargs):
        try:
            res, mid = a.c.subscribe(*sargs[0], **sargs[1])
        except ValueError as e:
            self.note("subscribe " + str(e)[:30])
            return
        a.wait(lambda: mid in a.subacks, 0.4)

    def do_publish(self, a, topic, pl, qos, retain=False, props=None, wait=True, poison=False):
        if a.max_qos is not None and not poison:
            qos = min(qos, a.max_qos)  # the application keeps to the listener's maximum QoS
        try:
            info = a.c.publish(topic, pl, qos, retain, properties=props)
        except (ValueError, RuntimeError) as e:
            self.note("publish " + str(e)[:30])
            return None
        if wait:
            if qos:
                a.wait(lambda: info.mid in a.acked, 0.4)
            else:
                a.pause(0.005)
        return info

    # -- steps ---------------------------------------------------------------
    def step_subscribe(self, a, b):
        r = self.r
        filters = []
        for _ in range(pick(r, [(70, 1), (20, 2), (10, 3)])):
            filters.append((pick(r, [(30, self.topic("sensor")), (15, self.base + "/sensors/%s/+" % r.choice(ROOMS)),
                                     (10, self.base + "/events/#"), (10, self.base + "/status"),
                                     (10, self.base + "/+/+"), (10, self.base + "/jobs/#"),
                                     (5, "public/" + self.tag + "/#"), (5, "vault/" + self.tag),
                                     (5, "$share/grp%d/%s/jobs/+" % (r.randint(1, 3), self.base))]),
                            r.choice([0, 1, 2])))
        self.filters += [f for f, _ in filters if f.startswith(("bench/", "$share/"))]
        sargs = self.sub_args(a, filters)
        if r.random() < 0.5 and len(a.resub) < 3:
            a.resub.append(sargs)
        self.do_subscribe(a, sargs)

    def step_unsubscribe(self, a, b):
        r = self.r
        topics = [r.choice([self.topic("sensor"), self.base + "/sensors/#", self.base + "/status",
                            self.base + "/events/#", self.base + "/nothing"]) for _ in range(r.randint(1, 3))]
        arg = topics if len(topics) > 1 or r.random() < 0.3 else topics[0]
        props = None
        if a.v5 and r.random() < 0.3:
            props = Properties(PacketTypes.UNSUBSCRIBE)
            props.UserProperty = ("reason", r.choice(["idle", "rebalance"]))
        self.filters = [f for f in self.filters if f not in topics]
        res, mid = a.c.unsubscribe(arg, properties=props) if a.v5 else a.c.unsubscribe(arg)
        a.wait(lambda: mid in a.unsubacks, 0.4)

    def step_publish(self, a, b):
        r = self.r
        where = pick(r, [(50, "loop"), (40, "out"), (10, "other")])
        topic = {"loop": self.topic(), "out": self.base + "/out/" + r.choice(SENSORS),
                 "other": self.base + "/misc/" + r.choice(EVENTS)}[where]
        self.do_publish(a, topic, payload(r), pick(r, [(35, 0), (35, 1), (30, 2)]), r.random() < 0.1,
                        self.pub_props(a, alias_ok=self.listener != "strict"))
        if where == "loop":
            a.pause(0.02)
        elif where == "out" and b is not None:
            b.pause(0.01)

    def step_burst(self, a, b):
        r = self.r
        infos = []
        qos = r.choice([0, 1, 1, 2])
        for k in range(r.randint(3, 10)):
            info = self.do_publish(a, self.base + "/out/burst/%d" % k, payload(r), qos, wait=False)
            if info is not None:
                infos.append(info)
        a.wait(lambda: all(i.mid in a.acked or i.rc != 0 for i in infos) if qos else False, 0.6 if qos else 0.05)

    def step_retained(self, a, b):
        r = self.r
        t = self.base + "/status"
        self.do_publish(a, t, r.choice([b"online", b'{"state": "ready"}']), r.choice([0, 1, 2]), True)
        if r.random() < 0.6:
            self.do_subscribe(a, self.sub_args(a, [(t, r.choice([0, 1]))]))
            a.pause(0.02)
        if r.random() < 0.5:
            self.do_publish(a, t, None, 1, True)  # clears the retained message

    def step_peer_publish(self, a, b):
        r = self.r
        n0 = len(a.msgs)
        k = 0
        for _ in range(pick(r, [(60, 1), (30, 3), (10, 8)])):
            if self.filters and r.random() < 0.75:
                t = self.concrete(r.choice(self.filters))
            else:
                t = pick(r, [(50, self.topic("sensor")), (20, self.topic("event")), (15, self.topic("jobs")),
                             (15, self.base + "/status")])
            info = self.do_publish(b, t, payload(r), r.choice([0, 1, 2]), r.random() < 0.1, self.pub_props(b),
                                   wait=False)
            k += info is not None
        a.wait(lambda: len(a.msgs) >= n0 + k, 0.25)

    def concrete(self, f):
        """A topic that the filter f matches."""
        r = self.r
        if f.startswith("$share/"):
            f = f.split("/", 2)[2]
        parts = []
        for p in f.split("/"):
            if p == "+":
                parts.append(r.choice(SENSORS + ROOMS))
            elif p == "#":
                parts += [r.choice(ROOMS), r.choice(SENSORS)][:r.randint(0, 2)]
            else:
                parts.append(p)
        return "/".join(parts)

    def step_request(self, a, b):
        r = self.r
        n0 = len(b.msgs)
        props = None
        if b.v5:
            props = Properties(PacketTypes.PUBLISH)
            props.ResponseTopic = self.base + "/reply/" + r.choice(["ui", "svc", "cli"])
            props.CorrelationData = r.randbytes(8)
        self.do_publish(b, self.base + "/cmd/echo", payload(r), r.choice([0, 1, 2]), props=props, wait=False)
        a.wait(lambda: len(b.msgs) > n0, 0.4)

    def step_idle(self, a, b):
        a.pause(self.r.choice([0.01, 0.03, 0.08]))

    def step_ping(self, a, b):
        a.pause(self.r.choice([1.1, 1.3]))

    def step_takeover(self, a, b):
        """A third client with A's id: the broker drops A, which comes back."""
        r = self.r
        if not a.client_id:
            return
        k = self.client(a.client_id, a.proto, self.child_logger(a.logger_name, "takeover"), "manual",
                        clean=True, log=r.random() < 0.5)
        if not k.start(HOST, self.env["broker"].port, 30):
            return
        k.wait(lambda: k.connacks, 0.4)
        d0 = a.disconnects
        a.wait(lambda: a.disconnects > d0, 0.2)
        k.finish()
        a.wait(lambda: a.connected, 0.6)

    def step_drop(self, a, b):
        d0 = a.disconnects
        a.drop_socket()
        a.wait(lambda: a.disconnects > d0, 0.2)
        if b is not None:
            b.pause(0.01)
        a.wait(lambda: a.connected, 0.6)

    def step_offline(self, a, b):
        """A leaves its persistent session; B publishes; A comes back for the queued messages."""
        r = self.r
        a.want_down = True
        a.c.disconnect()
        if a.driver == "thread":
            a.c.loop_stop()
        else:
            a.wait(lambda: a.c.socket() is None, 0.3)
        for _ in range(r.randint(1, 5)):
            self.do_publish(b, self.topic(r.choice(["sensor", "event", "jobs"])), payload(r), r.choice([0, 1, 2]),
                            wait=False)
        b.pause(0.05)
        a.want_down = False
        n0 = len(a.msgs)
        try:
            a.c.reconnect()
        except OSError as e:
            self.note("offline reconnect " + type(e).__name__)
        if a.driver == "thread":
            a.c.loop_start()
        a.wait(lambda: len(a.msgs) > n0, 0.4)

    def step_reconnect(self, a, b):
        if a.driver == "thread":
            a.c.loop_stop()  # reconnect() is not for a client that another thread is running
        try:
            a.c.reconnect()
        except OSError as e:
            self.note("reconnect " + type(e).__name__)
        if a.driver == "thread":
            a.c.loop_start()
        a.wait(lambda: a.connected, 0.4)

    def step_denied(self, a, b):
        r = self.r
        if r.random() < 0.5:
            self.do_subscribe(a, self.sub_args(a, [(r.choice(["vault/" + self.tag + "/#", "public/" + self.tag]),
                                                    r.choice([0, 1, 2]))]))
        else:
            self.do_publish(a, r.choice(["public/%s/notice" % self.tag, "vault/%s/key" % self.tag]), payload(r),
                            r.choice([0, 1, 2]))

    def step_poison(self, a, b, what):
        r = self.r
        if what == "too_big":
            self.do_publish(a, self.topic(), r.randbytes(r.randint(66000, 90000)), r.choice([0, 1, 2]), wait=False,
                            poison=True)
        elif what == "qos2":
            self.do_publish(a, self.topic(), payload(r), 2, wait=False, poison=True)
        else:
            p = Properties(PacketTypes.PUBLISH)
            p.TopicAlias = r.randint(11, 200)
            self.do_publish(a, self.topic(), payload(r), 1, props=p, wait=False, poison=True)
        a.pause(r.choice([0.15, 0.3]))

    # -- against the misbehaving broker -------------------------------------------
    def fake_case(self):
        r = self.r
        modes = r.sample(["downgrade", "cid", "refuse", "pingreq", "qos2in", "dupin", "badutf8", "pushes",
                          "unknown", "disconnect", "half", "badlen", "reset", "restart", "slow"], r.randint(1, 2))
        proto_name = pick(r, [(20, "v31"), (55, "v311"), (25, "v5")])
        if "downgrade" in modes or "cid" in modes:
            proto_name = "v311"
        self.count("proto " + proto_name)
        for m in modes:
            self.count("fake " + m)
        fake = FakeBroker(r, modes)
        fake.start()
        self.fakes.append(fake)
        driver = pick(r, [(50, "thread"), (25, "manual"), (25, "external")])
        self.count("driver " + driver)
        recon = r.random() < 0.85 or driver != "thread"
        client_id = "" if "cid" in modes else "pf-" + self.tag
        a = self.client(client_id, PROTOS[proto_name], self.logger_for(), driver, clean=True,
                        reconnect_on_failure=recon, suppress=True,
                        raising=["on_message"] if r.random() < 0.2 else [])
        a.base = self.base
        a.reconnect_delay = r.choice([0.05, 0.1])
        a.c.reconnect_delay_set(a.reconnect_delay, 0.3)
        if not a.start(HOST, fake.port, r.choice([1, 10, 60]), asynchronous=driver == "thread" and r.random() < 0.3):
            return
        a.wait(lambda: a.connected, 0.5)
        if not a.connected:  # refused or cut off: the client retries while the application waits
            a.pause(r.choice([0.2, 0.4]))
            a.finish()
            return
        filters = [("bench/fake/#", r.choice([0, 1, 2]))] + [(self.topic(), r.choice([0, 1, 2]))
                                                             for _ in range(r.randint(0, 2))]
        self.do_subscribe(a, self.sub_args(a, filters))
        for _ in range(r.randint(1, 5)):
            self.do_publish(a, self.topic(), payload(r), r.choice([0, 1, 2]))
        if r.random() < 0.4:
            res, mid = a.c.unsubscribe(filters[0][0])
            a.wait(lambda: mid in a.unsubacks, 0.2)
        a.pause(r.choice([0.2, 0.4, 0.7]))
        if a.connected and r.random() < 0.5:
            self.do_publish(a, self.topic(), payload(r), r.choice([1, 2]))
        a.finish("disconnect" if r.random() < 0.85 else "drop")

    # -- nobody listening ---------------------------------------------------------
    def noserver_case(self):
        r = self.r
        port = _capture.free_port()
        self.env["ports"].append(port)
        driver = pick(r, [(60, "thread"), (40, "forever")])
        self.count("driver " + driver)
        a = self.client("pn-" + self.tag, PROTOS[pick(r, [(30, "v31"), (40, "v311"), (30, "v5")])],
                        self.logger_for(), driver, clean=True,
                        raising=["on_connect_fail"] if r.random() < 0.4 else [])
        a.base = self.base
        a.c.reconnect_delay_set(r.choice([0.03, 0.05, 0.08]), r.choice([0.1, 0.2]))
        a.start(HOST, port, 30, asynchronous=True, retry_first=True, loop_timeout=0.1)
        a.pause(r.choice([0.2, 0.35, 0.5]))
        if r.random() < 0.5:  # the broker comes up late
            fake = FakeBroker(r, r.sample(["pushes", "pingreq", "slow", "qos2in"], 1), port=port)
            fake.start()
            self.fakes.append(fake)
            a.wait(lambda: a.connected, 0.8)
            if a.connected:
                self.do_subscribe(a, self.sub_args(a, [("bench/fake/#", 1)]))
                self.do_publish(a, self.topic(), payload(r), r.choice([0, 1, 2]))
                a.pause(0.1)
        a.finish()


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
LOG = None
ARGS = None
STRAY = None


class Stray(logging.Filter):
    """Counts the records that come while no case is open (the capture drops them)."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def filter(self, record):
        if LOG is not None and LOG.case_id is None:
            self.n += 1
        return True


class CaseTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise CaseTimeout()


def init_worker(seed, env):
    global LOG, ARGS, STRAY
    ARGS = (seed, env)
    # the main process's SIGTERM handler is not for workers: Pool.terminate() must end them at once
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    warnings.simplefilter("ignore")
    LOG = _capture.EventLog(paho, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    STRAY = Stray()
    LOG.addFilter(STRAY)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False
    # a raising callback with suppress_exceptions off kills paho's thread: keep stderr quiet
    threading.excepthook = lambda args: None


def run_case(i):
    seed, env = ARGS
    cid = "paho-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    env = dict(env, ports=[])
    case = Case(i, r, env)
    LOG._rows = []
    stray0 = STRAY.n
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(40)
    try:
        case.run()
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        case.count("case exceptions " + type(e).__name__)
        if DEBUG:
            import traceback
            traceback.print_exc()
    finally:
        try:
            case.cleanup()
        except BaseException:  # noqa: BLE001
            case.count("cleanup failed")
        signal.alarm(0)
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
        _capture.release_ports(env["ports"])
    case.st["stray"] = STRAY.n - stray0
    debug("%s %d events %.2fs %s | %s" % (cid, len(rows), time.time() - t0,
                                         " ".join(k for k in case.st if not k.startswith("note")),
                                         " ".join(case.notes[:6])))
    return i, cid, rows, case.st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=6, help="cases run side by side, each worker a process")
    a = ap.parse_args()
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix="gen_paho_", dir=base)
    t0 = time.time()
    totals = {}
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    broker = None

    def on_term(signum, frame):
        raise SystemExit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        certs = _capture.self_signed_cert(tmp)
        broker = Broker(tmp, certs)
        broker.start()
        env = {"broker": broker, "certs": certs}
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(max(1, a.jobs), initializer=init_worker, initargs=(a.seed, env),
                      maxtasksperchild=100) as pool:
            # the main process only writes: its capture listens to no logger
            log = _capture.EventLog(paho, a.out, logger_names=["paho.bench-unused"])
            try:
                for i, cid, rows, st in pool.imap(run_case, todo, chunksize=1):
                    log._rows = rows
                    log.case_id = cid
                    log.end_case()
                    for k, v in st.items():
                        totals[k] = totals.get(k, 0) + v
            finally:
                log.finish()
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; kinds %s; case exceptions %s; records outside any case dropped %d; %s; %.0fs\n"
                         % (log.summary(), kinds, errs or "none", totals.get("stray", 0),
                            "TLS cases" if certs else "no TLS (python3-cryptography missing)", time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_paho: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        if broker is not None:
            broker.stop()
            if DEBUG and os.environ.get("GEN_BROKER_LOG"):  # debugging: the broker's own log, last lines
                try:
                    with open(os.path.join(tmp, "mosquitto.log")) as fh:
                        sys.stderr.write("".join(fh.readlines()[-int(os.environ["GEN_BROKER_LOG"]):]))
                except OSError:
                    pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
