#!/usr/bin/python3
"""Event log of paho-mqtt (Debian python3-paho-mqtt 1.6.1), MQTT client side,
against private mosquitto brokers (Debian mosquitto 2.0.11) and a scripted
fake broker, all on 127.0.0.1.

    /usr/bin/python3 gen_paho.py --out .deps/logs/paho.csv.gz [--cases 620] [--seed 1]
    /usr/bin/python3 gen_paho.py --repo      # prints the directory to index

Indexed: Debian's ``/usr/lib/python3/dist-packages/paho`` (``paho.mqtt``:
client, properties, reason codes, the ``publish``/``subscribe`` helpers);
every record comes from ``paho/mqtt/client.py``.

A case is one client lifetime: one ``mqtt.Client`` with random settings --
protocol MQTT v3.1.1, v3.1 or v5 (with properties on CONNECT, PUBLISH,
SUBSCRIBE, UNSUBSCRIBE and DISCONNECT), clean session/clean start or not, a
client id or none (the broker assigns one), keepalive, a will, the network
loop style (``loop_start()``'s thread, ``loop_forever()`` in a thread of the
generator, or manual ``loop()`` calls, reconnecting with a growing delay
unless refused), transport (TCP, websockets, TLS, or TLS with a CA the client
does not trust), the listener (anonymous, password-protected with the right
or a wrong password, a strict broker with packet-size, QoS, retain,
inflight, queue, keepalive and ACL limits) -- then a script of 3-12
operations: subscribe/unsubscribe (one or several topics, wildcards,
QoS 0-2, v5 subscription options), publish QoS 0-2 (retained, retained
clears with an empty payload, large payloads, to the client's own
subscriptions so messages come back, to topics the ACL denies), waits long
enough for keepalive pings, reconnect(), disconnect and connect again, a
connection to a closed port, a session takeover by a second client with the
same client id, a broker restart, max inflight/queued limits with bursts,
callbacks that raise (on_message, topic callbacks, on_subscribe, on_publish,
on_unsubscribe, on_connect, on_disconnect, on_connect_fail, on_socket_open;
``suppress_exceptions`` is on, since an exception leaving a manual
``loop()`` mid-packet makes paho handle that packet again on every call),
then a final disconnect (v5: sometimes with a reason code and properties).
A client the broker keeps dropping (more than 8 CONNACKs) stops its script
early.  About one case in eight talks to the scripted fake broker instead, which answers CONNECT with
refusals (v3.1.1 "unacceptable protocol version" -> paho downgrades to v3.1;
"identifier rejected" for an empty client id -> paho retries with a
generated one; other codes), drops or resets the connection, sends PINGREQ,
unsolicited PUBLISH/PUBREL/PUBACK, v5 DISCONNECT with a reason, or packet
types paho does not know.  Default: 620 cases, about 600 kept and 16,000
events in about 4 minutes on a loaded 2-core machine, most of it waiting
for the network.  Each case draws from its own RNG seeded with
``<seed>-<case index>``.

Capture: paho logs everything through ``Client._easy_log(level, fmt, *args)``
(``MQTT_LOG_DEBUG``/``_INFO``/``_NOTICE``/``_WARNING``/``_ERR`` first, then
a %-format and its arguments), which renders ``fmt % args`` for an
``on_log`` callback when one is set (none here) and calls
``self._logger.log(LOGGING_LEVEL[level], fmt, *args)`` on the logger given
to ``enable_logger()``.  Each client gets its own (unregistered)
``logging.Logger`` named ``paho.mqtt.client`` (the name ``enable_logger()``
defaults to) at DEBUG, with _capture's handler and a filter passing only
while the client's case is open, so records of a client thread that
outlives its case are dropped (counted in the summary).  ``_easy_log`` is
the only wrapper declared: its body only renders for ``on_log`` and
forwards to the logger, with nothing in between, so each record is
attributed to its caller in client.py (``_send_connect``,
``_handle_publish``...), ``code.wrapped``=1.  The second client of a
takeover has no logger.

Brokers: two mosquitto processes started by the generator with configs in a
temp dir (A: anonymous TCP, password file made with ``mosquitto_passwd``,
websockets, TLS with a throw-away cert when ``openssl`` is present; B: the
strict one), killed at exit (also on errors and SIGTERM; PR_SET_PDEATHSIG
as a last resort).  Without ``openssl`` the TLS cases use the anonymous TCP
listener.  The client's sockets get TCP_NODELAY from an ``on_socket_open``
callback and mosquitto ``set_tcp_nodelay``: with Nagle's delay a QoS 2 flow
takes 40 ms.  Timing (threads, the broker) makes a regenerated log
close to, not identical with, an earlier one.
"""
import argparse
import ctypes
import logging
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import paho  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":  # the directory to index (run.sh)
    print(os.path.dirname(os.path.realpath(paho.__file__)))
    sys.exit(0)

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402
from paho.mqtt.reasoncodes import ReasonCodes  # noqa: E402
from paho.mqtt.subscribeoptions import SubscribeOptions  # noqa: E402

WRAPPERS = {("paho/mqtt/client.py", "_easy_log")}
USER, PASSWORD = "bench", "s3cret"


# ---------------------------------------------------------------------------
# brokers
# ---------------------------------------------------------------------------
def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def _pdeathsig():
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Mosquitto:
    """One mosquitto process with a config file in the temp dir."""

    def __init__(self, tmp, name, body, ports):
        self.conf = os.path.join(tmp, name + ".conf")
        self.ports = ports
        head = "persistence false\nlog_dest none\nset_tcp_nodelay true\n"
        if os.geteuid() == 0:
            head += "user root\n"  # the temp dir is not readable by the mosquitto user
        with open(self.conf, "w") as fh:
            fh.write(head + body)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["mosquitto", "-c", self.conf], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=_pdeathsig)
        deadline = time.time() + 10
        for p in self.ports:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError("mosquitto exited (rc %s) with %s" % (self.proc.returncode, self.conf))
                try:
                    socket.create_connection(("127.0.0.1", p), timeout=0.5).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("mosquitto did not listen on %d" % p)
                    time.sleep(0.02)

    def stop(self):
        if self.proc is None:
            return
        try:
            self.proc.terminate()
            self.proc.wait(3)
        except Exception:
            try:
                self.proc.kill()
                self.proc.wait(3)
            except Exception:
                pass
        self.proc = None

    def restart(self):
        self.stop()
        self.start()


def make_cert(tmp):
    if shutil.which("openssl") is None:
        return None
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (cert, key) if r.returncode == 0 else None


# ---------------------------------------------------------------------------
# a scripted fake broker (it logs nothing)
# ---------------------------------------------------------------------------
def _recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        d = s.recv(n - len(buf))
        if not d:
            raise EOFError
        buf += d
    return buf


def _read_packet(s):
    h = _recv_exact(s, 1)[0]
    mult, length = 1, 0
    while True:
        b = _recv_exact(s, 1)[0]
        length += (b & 127) * mult
        mult *= 128
        if not b & 128:
            break
    return h, _recv_exact(s, length) if length else b""


def _varlen(n):
    out = b""
    while True:
        b = n % 128
        n //= 128
        out += bytes([b | (128 if n else 0)])
        if not n:
            return out


def _pkt(h, body=b""):
    return bytes([h]) + _varlen(len(body)) + body


def _mqtt_str(s):
    b = s.encode()
    return struct.pack("!H", len(b)) + b


class FakeBroker:
    """Accepts connections; the n-th connection of a case follows plan[n]:
    ('connack', rc) refuses, ('ok', action) accepts then does action."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.plan, self.conns, self.stop = [], [], False
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self, plan):
        self.reap()
        with self.lock:
            self.plan = list(plan)

    def reap(self):
        with self.lock:
            conns, self.conns = self.conns, []
        for c in conns:
            try:
                c.close()
            except OSError:
                pass

    def _accept(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                step = self.plan.pop(0) if self.plan else ("ok", None)
                self.conns.append(c)
            threading.Thread(target=self._serve, args=(c, step), daemon=True).start()

    def _serve(self, c, step):
        try:
            c.settimeout(5)
            h, body = _read_packet(c)
            if h >> 4 != 1:
                return
            proto = body[2 + struct.unpack("!H", body[:2])[0]]
            v5 = proto == 5
            kind, arg = step
            if kind == "connack":
                if v5:  # the v5 reason codes of the same refusals
                    arg = {1: 1, 2: 0x85, 3: 0x88, 4: 0x86, 5: 0x87}[arg]
                c.sendall(_pkt(0x20, bytes([0, arg]) + (b"\x00" if v5 else b"")))
                time.sleep(0.05)
                c.close()
                return
            c.sendall(_pkt(0x20, b"\x00\x00" + (b"\x00" if v5 else b"")))
            if arg is not None:
                self._act(c, arg, v5)
            if arg in ("close", "reset", "junk", "auth", "disc"):
                return
            while True:
                h, body = _read_packet(c)
                t = h >> 4
                if t == 12:  # PINGREQ
                    c.sendall(_pkt(0xD0))
                elif t == 8:  # SUBSCRIBE
                    mid = body[:2]
                    rest = body[2:]
                    if v5:
                        plen = rest[0]  # short property blocks only
                        rest = rest[1 + plen:]
                    codes = b""
                    while rest:
                        n = struct.unpack("!H", rest[:2])[0]
                        codes += bytes([min(rest[2 + n] & 3, 2)])
                        rest = rest[3 + n:]
                    c.sendall(_pkt(0x90, mid + (b"\x00" if v5 else b"") + codes))
                elif t == 10:  # UNSUBSCRIBE
                    c.sendall(_pkt(0xB0, body[:2] + (b"\x00" + b"\x00" if v5 else b"")))
                elif t == 3:  # PUBLISH
                    q = (h >> 1) & 3
                    n = struct.unpack("!H", body[:2])[0]
                    mid = body[2 + n:4 + n]
                    if q == 1:
                        c.sendall(_pkt(0x40, mid))
                    elif q == 2:
                        c.sendall(_pkt(0x50, mid))
                elif t == 6:  # PUBREL
                    c.sendall(_pkt(0x70, body[:2]))
                elif t == 5:  # PUBREC from the client: our QoS 2 PUBLISH
                    c.sendall(_pkt(0x62, body[:2]))
                elif t == 14:
                    return
        except (OSError, EOFError, IndexError, struct.error):
            pass
        finally:
            try:
                c.close()
            except OSError:
                pass

    def _act(self, c, action, v5):
        props = b"\x00" if v5 else b""
        if action == "close":
            time.sleep(0.02)
            c.close()
        elif action == "reset":
            time.sleep(0.02)
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
        elif action == "ping":
            c.sendall(_pkt(0xC0))
        elif action == "junk":
            c.sendall(_pkt(0x00, b"\x00\x00"))
        elif action == "auth":
            c.sendall(_pkt(0xF0, b"\x00\x00" if v5 else b""))
        elif action == "disc":
            if v5:
                reason = "bench shutting down".encode()
                pr = b"\x1f" + struct.pack("!H", len(reason)) + reason
                c.sendall(_pkt(0xE0, b"\x8b" + _varlen(len(pr)) + pr))
            else:
                c.sendall(_pkt(0xE0))
            time.sleep(0.05)
        elif action == "pub":
            for q, mid in ((0, 0), (1, 401), (2, 402)):
                body = _mqtt_str("fake/out/%d" % q) + (struct.pack("!H", mid) if q else b"") + props + b"hi"
                c.sendall(_pkt(0x30 | (q << 1), body))
            body = _mqtt_str("fake/dup") + struct.pack("!H", 403) + props + b"again"
            c.sendall(_pkt(0x3A, body))  # dup, QoS 1
        elif action == "stray":
            c.sendall(_pkt(0x62, struct.pack("!H", 77)))  # PUBREL of nothing
            c.sendall(_pkt(0x40, struct.pack("!H", 78)))  # PUBACK of nothing
            c.sendall(_pkt(0x50, struct.pack("!H", 79)))  # PUBREC of nothing
            c.sendall(_pkt(0x70, struct.pack("!H", 80)))  # PUBCOMP of nothing
            c.sendall(_pkt(0xB0, struct.pack("!H", 81) + (b"\x00" if v5 else b"")))  # UNSUBACK


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, g, rng, cid):
        self.g, self.r, self.cid = g, rng, cid
        self.got = []
        self.subs = {}
        self.echo = set()  # subscriptions whose messages come back to the client
        self.pub_done = set()
        self.suback = 0
        self.unsuback = 0
        self.connacks = []
        self.disconnects = 0
        self.forever = None
        self.raise_cb = set()
        self.next_retry, self.retry_delay = 0, 0.05

    # -- callbacks -----------------------------------------------------------
    def _maybe_raise(self, what):
        if what in self.raise_cb:
            raise RuntimeError("bench: %s handler failed" % what)

    def on_connect(self, c, u, flags, rc, props=None):
        self.connacks.append(int(rc) if not isinstance(rc, ReasonCodes) else rc.value)
        if not self.connacks[-1]:
            self.retry_delay = 0.05
        self._maybe_raise("connect")

    def on_disconnect(self, c, u, rc, props=None):
        self.disconnects += 1
        self._maybe_raise("disconnect")

    def on_message(self, c, u, msg):
        self.got.append(msg.topic)
        self._maybe_raise("message")

    def on_subscribe(self, c, u, mid, granted, props=None):
        self.suback += 1
        self._maybe_raise("subscribe")

    def on_unsubscribe(self, c, u, mid, *rest):
        self.unsuback += 1
        self._maybe_raise("unsubscribe")

    def on_publish(self, c, u, mid):
        self.pub_done.add(mid)
        self._maybe_raise("publish")

    def on_socket_open(self, c, u, sock):
        # no Nagle delays (paho leaves TCP_NODELAY off): QoS 2 flows would take 40 ms each
        try:
            getattr(sock, "_socket", sock).setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AttributeError):
            pass
        self._maybe_raise("socket_open")

    def on_connect_fail(self, c, u):
        self._maybe_raise("connect_fail")

    def topic_cb(self, c, u, msg):
        self.got.append(msg.topic)
        raise ValueError("bench: topic callback for %s" % msg.topic)

    # -- network loop ------------------------------------------------------------
    def pump(self, cond, timeout):
        """Run until cond() or timeout, driving the loop ourselves in manual style."""
        deadline = time.time() + timeout
        while not cond() and time.time() < deadline:
            if self.style == "manual":
                try:
                    rc = self.c.loop(0.02)
                except Exception:
                    rc = 0
                if (rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_AGAIN) and not self.closing
                        and time.time() >= self.next_retry and not (self.connacks and self.connacks[-1])):
                    # what an application driving loop() itself does on a lost connection:
                    # reconnect, with a growing delay, unless the broker refused it
                    self.retry_delay = min(self.retry_delay * 2, 0.8)
                    self.next_retry = time.time() + self.retry_delay
                    try:
                        self.c.reconnect()
                    except Exception:
                        pass
            else:
                time.sleep(0.002)
        return cond()

    def start_loop(self):
        c = self.c
        if self.style == "start":
            c.loop_start()
        elif self.style == "forever":
            def run():
                try:
                    c.loop_forever(timeout=0.5, retry_first_connection=self.retry_first)
                except Exception:
                    pass
            self.forever = threading.Thread(target=run, daemon=True)
            self.forever.start()

    def stop_loop(self):
        c = self.c
        if self.style == "start":
            t = threading.Thread(target=c.loop_stop, daemon=True)
            t.start()
            t.join(4)
        elif self.style == "forever" and self.forever is not None:
            self.forever.join(3)
            if self.forever.is_alive():
                c._thread_terminate = True  # the loop's own stop flag, as loop_stop() sets it
                self.forever.join(2)
            self.forever = None
        else:
            self.pump(lambda: c._sock is None, 0.3)

    def connected(self):
        return self.c.is_connected()

    # -- setup --------------------------------------------------------------
    def make_client(self):
        r, g = self.r, self.g
        self.proto = r.choices([mqtt.MQTTv311, mqtt.MQTTv31, mqtt.MQTTv5], [45, 15, 40])[0]
        self.v5 = self.proto == mqtt.MQTTv5
        self.client_id = "" if r.random() < 0.2 else r.choice(["bench-%s" % self.cid, "c%d" % r.randint(0, 99999),
                                                                "dev/%s" % self.cid])
        clean = None
        if not self.v5:
            clean = True if self.client_id == "" else r.random() < 0.7
        self.clean = clean
        self.style = r.choices(["start", "forever", "manual"], [45, 25, 30])[0]
        self.retry_first = r.random() < 0.5
        # the endpoint
        k = r.random()
        self.fake = False
        tls = g.cert is not None
        if k < 0.12:
            self.fake = True
            self.host_port, self.transport = g.fake.port, "tcp"
        elif k < 0.25:
            self.host_port, self.transport = g.p_auth, "tcp"
        elif k < 0.38:
            self.host_port, self.transport = g.p_strict, "tcp"
        elif k < 0.52:
            self.host_port, self.transport = g.p_ws, "websockets"
        elif k < 0.60 and tls:
            self.host_port, self.transport = g.p_tls, "tcp"
        else:
            self.host_port, self.transport = g.p_anon, "tcp"
        self.broker = g.strict if self.host_port == g.p_strict else (None if self.fake else g.main)
        c = mqtt.Client(client_id=self.client_id, clean_session=clean, protocol=self.proto,
                        transport=self.transport, reconnect_on_failure=r.random() < 0.9)
        self.c = c
        self.closing = False
        lg = logging.Logger("paho.mqtt.client", logging.DEBUG)
        lg.addHandler(g.log)
        cid = self.cid

        def mine(rec, cid=cid):
            if g.log.case_id == cid:
                return True
            g.stray += 1
            return False
        lg.addFilter(mine)
        c.enable_logger(lg)
        # callbacks that raise are logged and swallowed: unsuppressed, the exception leaves
        # loop() in the middle of a packet, and a manual loop() handles that packet again forever
        c.suppress_exceptions = True
        c.on_connect = self.on_connect
        c.on_disconnect = self.on_disconnect
        c.on_message = self.on_message
        c.on_subscribe = self.on_subscribe
        c.on_unsubscribe = self.on_unsubscribe
        c.on_publish = self.on_publish
        if r.random() < 0.3:
            c.on_connect_fail = self.on_connect_fail
        c.on_socket_open = self.on_socket_open
        if r.random() < 0.04:
            self.raise_cb.add("socket_open")
        c.reconnect_delay_set(min_delay=r.choice([0.05, 0.1, 0.2]), max_delay=0.5)
        if self.transport == "websockets" and r.random() < 0.3:
            c.ws_set_options(path=r.choice(["/mqtt", "/", "/ws"]), headers={"X-Bench": self.cid})
        if self.host_port == g.p_tls:
            if r.random() < 0.85:
                c.tls_set(ca_certs=g.cert[0])
                if r.random() < 0.3:
                    c.tls_insecure_set(True)
            else:
                c.tls_set()  # the system CAs: the throw-away cert does not verify
        if self.host_port == g.p_auth or (r.random() < 0.1):
            c.username_pw_set(USER, PASSWORD if r.random() < 0.7 else r.choice(["wrong", ""]))
        if r.random() < 0.3:
            q = r.randint(0, 2)
            props = None
            if self.v5:
                props = Properties(PacketTypes.WILLMESSAGE)
                props.WillDelayInterval = r.choice([0, 1])
                if r.random() < 0.5:
                    props.ContentType = "text/plain"
            c.will_set("bench/%s/will" % self.cid, r.choice([None, "gone", "x" * 300]), qos=q,
                       retain=r.random() < 0.3, properties=props)
        if r.random() < 0.2:
            c.max_inflight_messages_set(r.choice([1, 2, 5]))
        if r.random() < 0.15:
            c.max_queued_messages_set(r.choice([1, 3, 10]))
        if r.random() < 0.12:
            self.raise_cb.add(r.choice(["connect", "subscribe", "publish", "unsubscribe", "message", "disconnect",
                                        "connect_fail"]))
        self.keepalive = r.choices([60, 30, 10, 3, 1], [35, 20, 25, 12, 8])[0]
        self.prefix = "bench/%s" % self.cid
        self.topics = [self.prefix + "/" + t for t in ("a", "b/c", "b/d", "q/0", "q/1", "q/2")]

    def connect_props(self):
        if not self.v5 or self.r.random() < 0.4:
            return None
        p = Properties(PacketTypes.CONNECT)
        r = self.r
        if r.random() < 0.6:
            p.SessionExpiryInterval = r.choice([0, 10, 3600])
        if r.random() < 0.4:
            p.ReceiveMaximum = r.choice([1, 5, 100])
        if r.random() < 0.3:
            p.UserProperty = ("bench", self.cid)
        if r.random() < 0.3:
            p.TopicAliasMaximum = 10
        if r.random() < 0.2:
            p.MaximumPacketSize = r.choice([512, 100000])
        return p

    def do_connect(self, host_port=None):
        r, c = self.r, self.c
        port = host_port or self.host_port
        self.echo.clear()  # a new session may have lost the subscriptions
        kw = {"keepalive": self.keepalive}
        if self.v5:
            kw["clean_start"] = r.choice([True, False, mqtt.MQTT_CLEAN_START_FIRST_ONLY])
            kw["properties"] = self.connect_props()
        n0 = len(self.connacks)
        try:
            if self.style != "manual" and r.random() < 0.35:
                c.connect_async("127.0.0.1", port, **kw)
                if self.style == "start":
                    c.loop_start()
                else:
                    self.start_loop()
            else:
                c.connect("127.0.0.1", port, **kw)
                self.start_loop()
        except Exception:
            return False
        return self.pump(lambda: len(self.connacks) > n0, 0.7)

    # -- operations ---------------------------------------------------------------
    def sub_props(self):
        if not self.v5 or self.r.random() < 0.6:
            return None
        p = Properties(PacketTypes.SUBSCRIBE)
        p.SubscriptionIdentifier = self.r.randint(1, 50)
        if self.r.random() < 0.5:
            p.UserProperty = ("op", "sub")
        return p

    def op_subscribe(self):
        r, c = self.r, self.c
        k = r.random()
        pick = r.sample(self.topics, r.randint(1, 3))
        if r.random() < 0.3:
            pick.append(self.prefix + r.choice(["/#", "/b/+", "/+/+"]))
        if r.random() < 0.08:
            pick = [r.choice(["secret/x", "$SYS/broker/uptime", "shared/retained/#"])]
        n0 = self.suback
        try:
            if k < 0.4 or len(pick) == 1:
                t = pick[0]
                q = r.randint(0, 2)
                local = True
                if self.v5 and r.random() < 0.4:
                    local = r.random() < 0.7
                    opts = SubscribeOptions(qos=q, noLocal=not local, retainAsPublished=r.random() < 0.5,
                                            retainHandling=r.randint(0, 2))
                    c.subscribe(t, options=opts, properties=self.sub_props())
                else:
                    c.subscribe(t, q, properties=self.sub_props())
                self.subs[t] = q
                if local:
                    self.echo.add(t)
            else:
                lst = [(t, r.randint(0, 2)) for t in pick]
                c.subscribe(lst, properties=self.sub_props())
                self.subs.update(dict(lst))
                self.echo.update(pick)
        except ValueError:
            return
        self.pump(lambda: self.suback > n0, self.patience(0.5))

    def op_unsubscribe(self):
        r, c = self.r, self.c
        if not self.subs or r.random() < 0.15:
            ts = [self.prefix + "/never"]
        else:
            ts = r.sample(sorted(self.subs), r.randint(1, len(self.subs)))
        for t in ts:
            self.subs.pop(t, None)
            self.echo.discard(t)
        props = None
        if self.v5 and r.random() < 0.3:
            props = Properties(PacketTypes.UNSUBSCRIBE)
            props.UserProperty = ("op", "unsub")
        n0 = self.unsuback
        c.unsubscribe(ts if len(ts) > 1 else ts[0], properties=props)
        self.pump(lambda: self.unsuback > n0, self.patience(0.5))

    def pub_props(self):
        if not self.v5 or self.r.random() < 0.5:
            return None
        r = self.r
        p = Properties(PacketTypes.PUBLISH)
        if r.random() < 0.5:
            p.MessageExpiryInterval = r.choice([5, 60])
        if r.random() < 0.4:
            p.ResponseTopic = self.prefix + "/reply"
            p.CorrelationData = b"corr-%d" % r.randint(0, 99)
        if r.random() < 0.4:
            p.UserProperty = [("k", "v"), ("case", self.cid)]
        if r.random() < 0.3:
            p.PayloadFormatIndicator = 1
            p.ContentType = "application/json"
        if r.random() < 0.15:
            p.TopicAlias = r.randint(1, 3)
        return p

    def payload(self):
        r = self.r
        k = r.random()
        if k < 0.5:
            return "m%d" % r.randint(0, 999)
        if k < 0.65:
            return b"\x00\x01binary\xff"
        if k < 0.78:
            if self.transport == "websockets":  # mosquitto's websockets are slow with big frames
                return "x" * r.choice([1000, 5000])
            return "x" * r.choice([1000, 5000, 70000, 300000])
        if k < 0.85:
            return None
        if k < 0.92:
            return r.randint(-5, 500)
        return '{"v": %d}' % r.randint(0, 9)

    def op_publish(self, burst=1):
        r, c = self.r, self.c
        infos = []
        n0 = len(self.got)
        expect = 0
        for _ in range(burst):
            k = r.random()
            back = False
            if k < 0.55 and self.subs:
                t = r.choice(sorted(self.subs))
                back = t in self.echo and t.startswith(self.prefix)
                if "+" in t or "#" in t:
                    t = t.replace("/#", "/w/x").replace("+", "p")
            elif k < 0.8:
                t = r.choice(self.topics)
            elif k < 0.9:
                t = "shared/retained/%d" % r.randint(0, 4)
            else:
                t = r.choice(["secret/x", "ro/area", self.prefix + "/deep/" + "/".join("l%d" % i for i in range(6))])
            q = r.choices([0, 1, 2], [35, 35, 30])[0]
            retain = r.random() < 0.2
            pl = self.payload()
            if self.broker is self.g.strict and r.random() < 0.9:
                # mostly within the strict broker's limits: beyond them, it drops the client,
                # which then sends the same message again on every reconnect
                q, retain = min(q, 1), False
                if isinstance(pl, str) and len(pl) > 10000:
                    pl = pl[:10000]
            if retain and r.random() < 0.3:
                pl = None  # clears the retained message
            try:
                i = c.publish(t, pl, q, retain, properties=self.pub_props())
            except (ValueError, TypeError):
                continue
            infos.append(i)
            if back and not self.fake and self.broker is not self.g.strict and pl is not None and i.rc == 0:
                expect += 1

        def done(i):
            try:
                return i.rc != mqtt.MQTT_ERR_SUCCESS or i.is_published()
            except (ValueError, RuntimeError):
                return True
        self.pump(lambda: all(done(i) for i in infos) and len(self.got) >= n0 + expect,
                  self.patience(0.6 if expect else 0.4))

    def patience(self, t):
        """How long to wait for an answer: not long when the client is not connected
        or talks to the fake broker, which answers at once or never."""
        if not self.connected():
            return min(t, 0.06)
        if self.fake:
            return min(t, 0.15)
        return t

    def op_wait(self):
        d = self.r.choice([0.05, 0.2]) if self.keepalive > 1 else self.r.uniform(1.05, 1.3)
        self.pump(lambda: False, d)

    def op_reconnect(self):
        c = self.c
        if self.style == "manual":
            try:
                c.reconnect()
            except Exception:
                return
            n0 = len(self.connacks)
            self.pump(lambda: len(self.connacks) > n0, 1.0)
        else:
            self.op_disconnect_reconnect()

    def final_disconnect(self):
        r, c = self.r, self.c
        self.closing = True
        if self.v5 and r.random() < 0.4:
            rc = ReasonCodes(PacketTypes.DISCONNECT, r.choice(["Normal disconnection", "Disconnect with will message"]))
            props = None
            if r.random() < 0.5:
                props = Properties(PacketTypes.DISCONNECT)
                props.SessionExpiryInterval = 0
                props.ReasonString = "bench done"
            c.disconnect(rc, props)
        else:
            c.disconnect()
        self.stop_loop()

    def op_disconnect_reconnect(self):
        self.final_disconnect()
        self.closing = False
        time.sleep(0.01)
        self.do_connect()

    def op_closed_port(self):
        """Connect to a port nobody listens on, then back to the broker."""
        self.final_disconnect()
        self.closing = False
        c = self.c
        port = self.g.closed_port
        if self.style != "manual":
            try:
                c.connect_async("127.0.0.1", port, keepalive=self.keepalive)
            except Exception:
                return
            if self.style == "start":
                c.loop_start()  # loop_forever(retry_first_connection=True): retries
                time.sleep(self.r.uniform(0.1, 0.4))
            else:
                self.start_loop()
                self.forever.join(0.3)
            self.closing = True
            c.disconnect()
            self.stop_loop()
            self.closing = False
        else:
            try:
                c.connect("127.0.0.1", port, keepalive=self.keepalive)
            except OSError:
                pass
        self.do_connect()

    def op_takeover(self):
        """A second client with the same id takes the session over."""
        if not self.client_id or self.fake:
            return self.op_publish()
        other = mqtt.Client(client_id=self.client_id, clean_session=None if self.v5 else self.clean,
                            protocol=self.proto, transport="tcp")
        if self.host_port == self.g.p_auth:
            other.username_pw_set(USER, PASSWORD)
        try:
            port = self.host_port if self.host_port not in (self.g.p_ws, self.g.p_tls) else self.g.p_anon
            other.connect("127.0.0.1", port, 10)
            t0 = time.time()
            while time.time() - t0 < 0.5 and not other.is_connected():
                other.loop(0.02)
            self.pump(lambda: False, 0.05)
            other.disconnect()
            other.loop(0.02)
        except Exception:
            pass
        self.echo.clear()
        n0 = len(self.connacks)
        self.pump(lambda: len(self.connacks) > n0 and self.connected(), 1.2)

    def op_restart(self):
        if self.broker is None:
            return self.op_publish()
        if self.r.random() < 0.5:
            self.broker.stop()
            # the client notices, publishes are queued while the broker is down
            self.pump(lambda: False, 0.1)
            for _ in range(self.r.randint(0, 3)):
                try:
                    self.c.publish(self.r.choice(self.topics), "queued", self.r.randint(0, 2))
                except Exception:
                    pass
            self.pump(lambda: False, 0.15)
            self.broker.start()
        else:
            self.broker.restart()
        self.echo.clear()
        n0 = len(self.connacks)
        self.pump(lambda: len(self.connacks) > n0 and self.connected(), 1.5)

    def op_raise(self):
        r, c = self.r, self.c
        what = r.choice(["message", "topic", "subscribe", "publish", "unsubscribe", "disconnect", "connect_fail"])
        if what == "topic":
            sub = self.prefix + "/cb/#"
            c.message_callback_add(sub, self.topic_cb)
            self.subs[sub] = 1
            n0 = self.suback
            c.subscribe(sub, 1)
            self.pump(lambda: self.suback > n0, 0.5)
            n1 = len(self.got)
            c.publish(self.prefix + "/cb/x", "boom", r.randint(0, 2))
            self.pump(lambda: len(self.got) > n1, self.patience(0.5))
        else:
            self.raise_cb.add(what)

    # -- the case -----------------------------------------------------------------
    def run(self):
        r = self.r
        self.make_client()
        if self.fake:
            self.g.fake.reset(self.fake_plan())
        ok = self.do_connect()
        if not ok and r.random() < 0.5 and not self.fake:
            # no CONNACK: half the time the application gives up at once
            self.final_disconnect()
            return
        ops = [self.op_subscribe, self.op_unsubscribe, self.op_publish, self.op_wait, self.op_reconnect,
               self.op_disconnect_reconnect, self.op_closed_port, self.op_takeover, self.op_restart,
               self.op_raise, self.op_burst]
        weights = [26, 8, 30, 4, 4, 4, 2, 1.5, 0.5, 5, 5]
        if self.fake:
            weights = [20, 8, 20, 10, 4, 2, 0, 0, 0, 2, 2]
        if self.subs == {} and r.random() < 0.7:
            self.op_subscribe()
        for _ in range(r.randint(3, 12)):
            if len(self.connacks) > 8:
                break  # a client the broker keeps dropping: the application gives up
            op = r.choices(ops, weights)[0]
            op()
        self.final_disconnect()

    def op_burst(self):
        c = self.c
        if self.r.random() < 0.5:
            c.max_inflight_messages_set(self.r.choice([1, 2]))
        if self.r.random() < 0.3:
            c.max_queued_messages_set(self.r.choice([2, 4]))
        self.op_publish(burst=self.r.randint(3, 8))

    def fake_plan(self):
        r = self.r
        plan = []
        k = r.random()
        if k < 0.15 and self.proto == mqtt.MQTTv311:
            plan.append(("connack", 1))  # downgrade to v3.1
        elif k < 0.3 and self.proto == mqtt.MQTTv311 and self.client_id == "":
            plan.append(("connack", 2))  # retry with a generated client id
        elif k < 0.42:
            plan.append(("connack", r.choice([2, 3, 4, 5])))
        for _ in range(r.randint(1, 3)):
            plan.append(("ok", r.choice([None, "close", "reset", "ping", "junk", "auth", "disc", "pub",
                                         "stray", "pub", "ping"])))
        return plan


class Gen:
    def __init__(self, tmp, log):
        self.tmp, self.log = tmp, log
        self.stray = 0
        self.cert = make_cert(tmp)
        self.p_anon, self.p_auth, self.p_ws, self.p_tls, self.p_strict = (free_port() for _ in range(5))
        self.closed_port = free_port()
        pw = os.path.join(tmp, "passwd")
        subprocess.run(["mosquitto_passwd", "-b", "-c", pw, USER, PASSWORD], check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        acl = os.path.join(tmp, "acl")
        with open(acl, "w") as fh:
            fh.write("topic readwrite bench/#\ntopic read ro/#\ntopic readwrite shared/#\n"
                     "topic read $SYS/#\n")
        main = ("per_listener_settings true\n"
                "listener %d 127.0.0.1\nallow_anonymous true\n"
                "listener %d 127.0.0.1\nallow_anonymous false\npassword_file %s\n"
                "listener %d 127.0.0.1\nprotocol websockets\nallow_anonymous true\n"
                % (self.p_anon, self.p_auth, pw, self.p_ws))
        ports = [self.p_anon, self.p_auth, self.p_ws]
        if self.cert:
            main += ("listener %d 127.0.0.1\nallow_anonymous true\ncertfile %s\nkeyfile %s\n"
                     % (self.p_tls, self.cert[0], self.cert[1]))
            ports.append(self.p_tls)
        strict = ("max_packet_size 20000\nmax_inflight_messages 2\nmax_queued_messages 4\n"
                  "retain_available false\nmax_keepalive 30\n"
                  "listener %d 127.0.0.1\nallow_anonymous true\nacl_file %s\nmax_qos 1\n"
                  % (self.p_strict, acl))
        self.main = Mosquitto(tmp, "main", main, ports)
        self.strict = Mosquitto(tmp, "strict", strict, [self.p_strict])
        self.fake = FakeBroker()

    def start(self):
        self.main.start()
        self.strict.start()

    def close(self):
        self.main.stop()
        self.strict.stop()
        self.fake.stop = True
        try:
            self.fake.sock.close()
        except OSError:
            pass
        self.fake.reap()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=620)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    random.seed(a.seed)
    # SIGTERM/SIGHUP: unwind through the finally blocks, which stop the brokers
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    threading.excepthook = lambda args: None  # callbacks raising in loop threads
    tmp = tempfile.mkdtemp(prefix="gen_paho_")
    g = None
    try:
        # _capture's handler; each client's own logger feeds it (see make_client)
        log = _capture.EventLog(paho, a.out, logger_names=["paho"], wrappers=WRAPPERS)
        g = Gen(tmp, log)
        g.start()
        t0 = time.time()
        for i in range(a.cases):
            cid = "mqtt-%05d" % i
            case = Case(g, random.Random("%d-%d" % (a.seed, i)), cid)
            log.case_id = cid
            try:
                case.run()
            except Exception as e:  # a case that breaks is logged as far as it went
                print("case %s: %r" % (cid, e), file=sys.stderr)
                try:
                    case.closing = True
                    case.c.disconnect()
                    case.stop_loop()
                except Exception:
                    pass
            finally:
                log.end_case()
                g.fake.reap()
                for b in (g.main, g.strict):  # a broker a case stopped
                    if b.proc is None or b.proc.poll() is not None:
                        b.stop()
                        b.start()
        log.finish()
        print(log.summary(), "(%d records of closed cases dropped)" % g.stray,
              "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        if g is not None:
            g.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
