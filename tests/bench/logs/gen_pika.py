#!/usr/bin/python3
"""Event log of pika (Debian python3-pika 1.2.0): AMQP 0-9-1 client sessions
against a RabbitMQ broker (Debian ``rabbitmq-server`` 3.10.8) that the
generator starts on 127.0.0.1 for the run, against a misbehaving broker
written here, and against closed ports.

    /usr/bin/python3 gen_pika.py --out .deps/logs/pika.csv.gz [--cases 700] [--seed 1] [--jobs 6]
    /usr/bin/python3 gen_pika.py --repo     # prints the directory to index

Indexed: the installed ``pika`` directory
(``/usr/lib/python3/dist-packages/pika``), all of it: the connection and
channel state machines (``connection.py``, ``channel.py``,
``callback.py``, ``heartbeat.py``...), the adapters that run here
(``adapters/blocking_connection.py``, ``select_connection.py``,
``asyncio_connection.py``, ``base_connection.py`` and ``adapters/utils``)
and the ones that never run (gevent, tornado and the one for a framework
reserved for held-out evaluation, indexed as shipped but neither run nor
imported here).

Broker: ``rabbitmq-server`` runs as a child process of the generator (the
script in RabbitMQ's own ``bin`` directory, not the ``/usr/sbin`` wrapper
that switches to the ``rabbitmq`` user), with everything it writes in a temp
dir (on /dev/shm when writable): ``RABBITMQ_MNESIA_BASE``,
``RABBITMQ_LOG_BASE``, its ``rabbitmq.conf`` (``RABBITMQ_CONFIG_FILE``), an
empty enabled-plugins file, an empty ``rabbitmq-env.conf`` (so that the
machine's is not read) and ``HOME`` (the Erlang cookie); the node is
``pikabench<pid>@localhost``. It listens for AMQP on a free port of
127.0.0.1 (``listeners.tcp``) and, when ``python3-cryptography`` can make a
throw-away certificate, for AMQPS on a second one; the Erlang distribution
listens on a third (``RABBITMQ_DIST_PORT``, loopback only) and registers
with an ``epmd`` that the generator starts itself on a fourth
(``ERL_EPMD_PORT``; ``-start_epmd false`` keeps Erlang from starting one of
its own, which would outlive the run). Users, vhosts, permissions and a
policy come from a definitions file loaded at boot: ``guest`` and ``app``
(all rights on ``/`` and ``orders``), ``limited`` (on ``/`` it may only
configure and write ``lim.*`` names), a vhost ``locked`` that only ``guest``
may open, and queues of the cases expiring a minute after their last use,
since most are left behind. ``channel_max`` is 64 and ``max_message_size``
1 MiB, so that asking for more is an error. Startup takes a few seconds; the
Erlang VM (its pid from ``RABBITMQ_PID_FILE``), the script that started it
and epmd are killed by pid, and the dir removed, at exit (also on SIGTERM).
The system service the Debian package installs (and its maintainer scripts
may start) is neither used nor needed: nothing here talks to port 5672.

A case is one client session, drawn with its own ``random.Random``, over one
of three adapters: ``BlockingConnection`` (about 40%), ``SelectConnection``
(35%) or ``AsyncioConnection`` (25%, on an event loop of its own), with
connection parameters drawn per case: ``ConnectionParameters`` or an
``amqp://`` URL (``URLParameters``), ``127.0.0.1`` or ``localhost`` (from
/etc/hosts), heartbeat (the server's 60, 0, 1-600 s, or a function of the
server's value), ``blocked_connection_timeout``, ``frame_max`` (4096 up),
``channel_max``, ``socket_timeout``, ``stack_timeout``, TCP options (some
that pika does not know), client properties, locale, credentials (good, a
wrong password, an unknown user, SASL EXTERNAL, which this RabbitMQ does not
offer), the vhost (``/``, ``orders``, a missing one, ``locked``), AMQPS,
``connection_attempts`` and ``retry_delay``; sometimes a list of parameters
whose first entries point at closed ports. The event-loop adapters connect
through the constructor or through ``create_connection`` (pika's external
connection workflow over the list), and in a few cases the application
gives up while pika connects (``close()``, or ``abort()`` of the workflow).
Then:

- (about 80%) against RabbitMQ: 2-10 steps on a channel: exchange declares
  (every type, durable, auto-delete, internal, exchange-to-exchange
  bindings), queue declares (named or server-named, durable, exclusive,
  auto-delete, TTL, length limits with ``drop-head`` or ``reject-publish``,
  priorities, lazy), passive declares of missing queues and exchanges
  (404), redeclares with other arguments (406), bindings and unbindings,
  publishes (properties, empty to 300 KB bodies split in frames of
  ``frame_max``, mandatory publishes that come back as ``Basic.Return``,
  with or without a return callback, publisher confirms with acks and
  nacks, a body over the broker's limit, an unknown exchange, a direct
  reply-to nobody consumes), ``basic_consume`` with acks (single and
  multiple), nacks, rejects, requeues and cancels (some twice), consumers
  the broker cancels (their queue deleted), exclusive consumers refused,
  ``basic_get`` (empty and not), ``basic_qos``, ``basic_recover``, acks of
  unknown tags and double acks (406), dead-lettering through a TTL,
  transactions (``tx_select``/``tx_commit``/``tx_rollback``, and commits
  on a channel not in a transaction), purges and conditional deletes, names
  the ``limited`` user may not use and reserved ``amq.`` names (403), more
  channels, channels closed by the client, and in about one session in six
  a last step that ends the connection: more channels than ``channel_max``
  (pika's ``NoFreeChannels``), a channel number over the broker's limit, an
  unknown exchange type (503), ``Channel.Flow`` off (540), or a stall that
  neither reads nor writes for 4 s with a 1 s heartbeat, so that the broker
  drops the connection. The BlockingConnection also runs its consumer
  generator (``consume`` with ``inactivity_timeout``, ``cancel``),
  ``start_consuming`` stopped by ``call_later``, and
  ``add_callback_threadsafe`` from a thread (the event-loop sessions use
  their loop's thread-safe callback). A channel the broker closed is mostly
  replaced by a new one; a lost connection ends the session. Sessions end
  with ``close()`` (sometimes with a reply code of the application's,
  sometimes called twice).
- (about 13%) against a broker written here (a thread speaking just enough
  AMQP, framed with pika's own ``frame`` and ``spec`` modules, which log
  nothing) that answers the protocol header with another version, closes
  the socket during authentication or tuning, sends ``Connection.Blocked``
  (then ``Unblocked``, a second ``Blocked``, or nothing until the
  ``blocked_connection_timeout`` expires), an ``Unblocked`` alone,
  heartbeats that were not negotiated, a delivery for an unknown consumer,
  ``Basic.GetOk`` nobody asked for, ``Channel.Flow``, a frame for a channel
  that is not open, ``Channel.Close``, ``Connection.Close``, a malformed
  frame, EOF or a reset, or goes silent until pika's heartbeat checker gives
  up (12 s). It offers SASL EXTERNAL, which some of these sessions use.
- (about 7%) against a closed port, with ``connection_attempts`` and
  ``retry_delay``.

Capture: pika logs through module loggers (``LOGGER =
logging.getLogger(__name__)``, ``_LOGGER``, ``_LOG``) with %-formats and
arguments, which ``_capture.py``'s handler on the ``pika`` logger (at
DEBUG, not propagating) takes with their call sites. pika has no logging
helper: every record's emitter is the line that calls the logger, and no
function is declared a wrapper (``code.wrapped`` is always 0). The one
logging call outside pika's state machines, in
``diagnostic_utils.create_log_exception_decorator``, sits in the
decorator's wrapper function, which also calls the decorated function, so
it is its own emitter. The ``pika`` tree is at DEBUG; each case's
application then sets the levels of some of its loggers the way
applications quieten pika: nothing changed, everything at DEBUG (about 5%
of the cases), ``pika.callback`` at INFO (5%), ``pika.callback`` and the I/O
modules (``select_connection``, ``asyncio_connection``,
``adapters.utils.selector_ioloop_adapter``,
``adapters.utils.io_services_utils``) at INFO (45%), or the whole tree at
INFO (45%). At DEBUG pika logs some 250 records for a connection that opens
one channel and about 500 for a session here, most of them from its
callback registry and its selector; the same 700 sessions all at DEBUG would
make about 350,000 records.

Cases run ``--jobs`` at a time (6: they mostly wait), each worker a forked
process running one case after another, so every record of a process
belongs to its open case (pika runs no threads of its own; the thread that
calls ``add_callback_threadsafe`` is joined before the case goes on); the
rows come back to the main process and are written in case order. A
connection still open when its case ends is closed while no case is open,
and records emitted while no case is open are dropped and counted. Cases
with fewer than 3 events are dropped. Queue and exchange names carry the
case number, so cases running side by side on the one broker never see each
other's queues.

Determinism: each case draws from ``random.Random("<seed>-<case>")``, and
only the case's main thread draws from it. The events differ between runs
where timing decides (how many deliveries arrive within a wait, when the
broker notices missed heartbeats, confirms overtaking publishes, where a
close lands in the connection workflow); messages hold ports, socket reprs
with file descriptors, object addresses, server-generated queue names and
consumer tags.

Debugging: GEN_DEBUG=1 prints one line per case (events, seconds, what it
drew) and the totals; GEN_ONLY=3,17 runs only those cases; with GEN_DEBUG,
GEN_BROKER_LOG=N also prints the last N lines of RabbitMQ's own log.
"""
import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import random
import shutil
import signal
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

import pika  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(pika.__file__)))
    sys.exit(0)

from pika import credentials as pcred  # noqa: E402
from pika import exceptions as pex  # noqa: E402
from pika import frame as pframe  # noqa: E402
from pika import spec  # noqa: E402
from pika.adapters.asyncio_connection import AsyncioConnection  # noqa: E402
from pika.adapters.select_connection import IOLoop  # noqa: E402

WRAPPERS = set()  # pika calls its module loggers directly: no logging helper to see through
LOGGER_ROOTS = ["pika"]
HOST = "127.0.0.1"
DEBUG = bool(os.environ.get("GEN_DEBUG"))
USERS = {"guest": "guest", "app": "app-secret-7", "limited": "limited-pw-3"}
# the chatty machinery an application typically turns down
QUIET = ["pika.callback", "pika.adapters.select_connection", "pika.adapters.asyncio_connection",
         "pika.adapters.utils.selector_ioloop_adapter", "pika.adapters.utils.io_services_utils"]
ALL_LOGGERS = QUIET + ["pika.connection", "pika.channel", "pika.heartbeat", "pika.credentials",
                       "pika.tcp_socket_opts", "pika.adapters.blocking_connection",
                       "pika.adapters.base_connection", "pika.adapters.utils.connection_workflow"]
BROKER_CHANNEL_MAX = 64
BROKER_MAX_MESSAGE = 1 << 20
TIMEOUT = object()  # what a wait gets when nothing woke it


def debug(msg):
    if DEBUG:
        sys.stderr.write(msg + "\n")


def find_bin(name, extra=()):
    return shutil.which(name, path=os.pathsep.join(list(extra) + ["/usr/sbin", "/usr/bin", "/sbin", "/bin",
                                                                  os.environ.get("PATH", "")]))


# ---------------------------------------------------------------------------
# the RabbitMQ broker of the run
# ---------------------------------------------------------------------------
class Broker:
    """rabbitmq-server and an epmd of its own as child processes, on free
    ports of 127.0.0.1, with every file in the temp dir."""

    def __init__(self, tmp, certs):
        self.dir = tmp
        self.certs = certs
        self.port = _capture.free_port()
        self.tls_port = _capture.free_port() if certs else None
        self.dist_port = _capture.free_port()
        self.epmd_port = _capture.free_port()
        self.node = "pikabench%d@localhost" % os.getpid()
        self.proc = None
        self.epmd = None
        self.pid_file = os.path.join(tmp, "rabbit.pid")

    def _write_config(self):
        for d in ("mnesia", "log", "home"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        with open(os.path.join(self.dir, "enabled_plugins"), "w") as fh:
            fh.write("[].\n")
        open(os.path.join(self.dir, "rabbitmq-env.conf"), "w").close()
        defs = {
            "users": [{"name": u, "password": p, "tags": "administrator" if u == "guest" else ""}
                      for u, p in sorted(USERS.items())],
            "vhosts": [{"name": "/"}, {"name": "orders"}, {"name": "locked"}],
            "permissions": [
                {"user": "guest", "vhost": "/", "configure": ".*", "write": ".*", "read": ".*"},
                {"user": "guest", "vhost": "orders", "configure": ".*", "write": ".*", "read": ".*"},
                {"user": "guest", "vhost": "locked", "configure": ".*", "write": ".*", "read": ".*"},
                {"user": "app", "vhost": "/", "configure": ".*", "write": ".*", "read": ".*"},
                {"user": "app", "vhost": "orders", "configure": ".*", "write": ".*", "read": ".*"},
                {"user": "limited", "vhost": "/", "configure": "^lim\\.", "write": "^(lim\\..*|amq\\.default)$",
                 "read": ".*"},
            ],
            "policies": [{"vhost": v, "name": "bench-expiry", "pattern": "^(pq|lim|dq)\\.", "apply-to": "queues",
                          "priority": 0, "definition": {"expires": 60000}} for v in ("/", "orders")],
        }
        dpath = os.path.join(self.dir, "definitions.json")
        with open(dpath, "w") as fh:
            json.dump(defs, fh)
        lines = ["listeners.tcp.1 = %s:%d" % (HOST, self.port),
                 "loopback_users = none",
                 "load_definitions = " + dpath,
                 "channel_max = %d" % BROKER_CHANNEL_MAX,
                 "max_message_size = %d" % BROKER_MAX_MESSAGE,
                 "disk_free_limit.absolute = 1MB",  # /dev/shm may be small: no disk alarm
                 "log.console = false",
                 "log.file.level = %s" % ("info" if DEBUG else "warning")]
        if self.tls_port:
            lines += ["listeners.ssl.1 = %s:%d" % (HOST, self.tls_port),
                      "ssl_options.certfile = " + self.certs["cert"],
                      "ssl_options.keyfile = " + self.certs["key"],
                      "ssl_options.verify = verify_none",
                      "ssl_options.fail_if_no_peer_cert = false"]
        with open(os.path.join(self.dir, "rabbitmq.conf"), "w") as fh:
            fh.write("\n".join(lines) + "\n")

    def start(self):
        server = find_bin("rabbitmq-server", ["/usr/lib/rabbitmq/bin"])
        epmd = find_bin("epmd")
        if not server or not epmd or not server.startswith("/usr/lib/rabbitmq/"):
            sys.exit("gen_pika: rabbitmq-server not found in /usr/lib/rabbitmq/bin (apt-get install rabbitmq-server)")
        self._write_config()
        d = self.dir
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": os.path.join(d, "home"),
               "RABBITMQ_CONF_ENV_FILE": os.path.join(d, "rabbitmq-env.conf"),
               "RABBITMQ_CONFIG_FILE": os.path.join(d, "rabbitmq"),
               "RABBITMQ_ENABLED_PLUGINS_FILE": os.path.join(d, "enabled_plugins"),
               "RABBITMQ_MNESIA_BASE": os.path.join(d, "mnesia"),
               "RABBITMQ_LOG_BASE": os.path.join(d, "log"),
               "RABBITMQ_PID_FILE": self.pid_file,
               "RABBITMQ_NODENAME": self.node,
               "RABBITMQ_NODE_IP_ADDRESS": HOST,
               "RABBITMQ_NODE_PORT": str(self.port),
               "RABBITMQ_DIST_PORT": str(self.dist_port),
               "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-start_epmd false -kernel inet_dist_use_interface {127,0,0,1}",
               "ERL_EPMD_PORT": str(self.epmd_port),
               "ERL_EPMD_ADDRESS": HOST}
        err = open(os.path.join(d, "stderr"), "w")
        self.epmd = subprocess.Popen([epmd, "-port", str(self.epmd_port), "-address", HOST], env=env,
                                     stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        self.proc = subprocess.Popen([server], env=env, cwd=d, stdin=subprocess.DEVNULL,
                                     stdout=err, stderr=err, start_new_session=True)
        deadline = time.time() + 90
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                s = socket.create_connection((HOST, self.port), 0.5)
                s.sendall(b"AMQP\x00\x00\x09\x01")
                s.settimeout(3)
                ok = s.recv(8)[:1] == b"\x01"  # a Connection.Start method frame: the node is up
                s.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        with open(os.path.join(d, "stderr")) as fh:
            sys.exit("gen_pika: rabbitmq-server did not start:\n" + fh.read()[-3000:])

    def stop(self):
        """Kills the Erlang VM (its pid from the pid file), then the script
        that started it (which reaps it, when still there) and epmd, each by
        pid."""
        def kill(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            with open(self.pid_file) as fh:
                kill(int(fh.read().strip()))
        except (OSError, ValueError):
            pass
        if self.proc is not None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                kill(self.proc.pid)
                self.proc.wait()
        if self.epmd is not None:
            kill(self.epmd.pid)
            self.epmd.wait()
        if self.proc is not None:
            try:  # helpers the VM started in the session made for it (erl_child_setup, inet_gethost)
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc = self.epmd = None


# ---------------------------------------------------------------------------
# a misbehaving broker (just enough AMQP 0-9-1 to talk to pika)
# ---------------------------------------------------------------------------
FAKE_MODES = ["proto", "auth_eof", "tune_eof", "blocked", "blocked_stay", "unblocked_only", "hb_unasked",
              "deliver_unknown",
              "getok", "flow", "bad_channel", "ch_close", "conn_close", "eof", "reset", "silent", "garbage"]


class FakeBroker:
    """A TCP server in a thread that answers one client at a time with the
    misbehaviour drawn for the case (see the header)."""

    def __init__(self, r, mode):
        self.mode = mode
        self.port = _capture.free_port()
        self.stop_ev = threading.Event()
        self.lsock = None
        self.conns = []
        self.plan = {  # drawn now: only the case's main thread draws from r
            "heartbeat": 0 if mode == "hb_unasked" else r.choice([0, 0, 1, 5, 60]),
            "frame_max": r.choice([4096, 131072]),
            "channel_max": r.choice([0, 8, 2047]),
            "delay": r.choice([0.05, 0.1, 0.2]),
            "unblock": r.choice(["unblock", "twice", "none"]),
            "close_code": r.choice([(320, "CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'"),
                                    (541, "INTERNAL_ERROR"), (501, "FRAME_ERROR - bad frame")]),
            "ch_code": r.choice([(406, "PRECONDITION_FAILED - fake"), (404, "NOT_FOUND - no queue 'x'"),
                                 (403, "ACCESS_REFUSED - fake")]),
        }
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((HOST, self.port))
        s.listen(4)
        s.settimeout(0.02)
        self.lsock = s
        self.thread.start()

    def stop(self):
        self.stop_ev.set()
        self.thread.join(3)
        for s in [self.lsock] + self.conns:
            try:
                s.close()
            except OSError:
                pass

    def _run(self):
        while not self.stop_ev.is_set():
            try:
                conn, _ = self.lsock.accept()
            except (socket.timeout, OSError):
                continue
            self.conns.append(conn)
            try:
                _FakeConn(self, conn).serve()
            except (OSError, ValueError, struct.error, pex.AMQPError):
                pass
            finally:
                try:
                    conn.close()
                except OSError:
                    pass


class _FakeConn:
    def __init__(self, broker, sock):
        self.b = broker
        self.sock = sock
        self.buf = b""
        self.channels = set()
        self.tags = 0
        sock.settimeout(0.02)

    def send(self, *frames):
        self.sock.sendall(b"".join(f.marshal() for f in frames))

    def method(self, ch, m):
        self.send(pframe.Method(ch, m))

    def read(self, wait):
        """One frame from the client (heartbeats skipped), or None when none
        came within wait."""
        end = time.time() + wait
        while True:
            if self.buf:
                n, f = pframe.decode_frame(self.buf)
                if f is not None:
                    self.buf = self.buf[n:]
                    if isinstance(f, pframe.Heartbeat):
                        continue
                    return f
            if self.b.stop_ev.is_set():
                raise OSError("fake broker: stop")
            if time.time() > end:
                return None
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise OSError("fake broker: peer closed")
            self.buf += chunk

    def rst(self):
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def serve(self):
        b, mode, p = self.b, self.b.mode, self.b.plan
        end = time.time() + 2
        while len(self.buf) < 8 and time.time() < end and not b.stop_ev.is_set():
            try:
                chunk = self.sock.recv(8 - len(self.buf))
            except socket.timeout:
                continue
            if not chunk:
                return
            self.buf += chunk
        self.buf = self.buf[8:]
        if mode == "proto":
            self.sock.sendall(b"AMQP\x00\x00\x08\x00")
            time.sleep(p["delay"])
            return
        self.method(0, spec.Connection.Start(server_properties={"product": "fake-broker", "version": "0.1",
                                                                 "capabilities": {"publisher_confirms": True,
                                                                                  "basic.nack": True,
                                                                                  "connection.blocked": True,
                                                                                  "consumer_cancel_notify": True}},
                                             mechanisms="PLAIN AMQPLAIN EXTERNAL", locales="en_US"))
        if self.read(2) is None:
            return
        if mode == "auth_eof":
            time.sleep(p["delay"])
            return
        self.method(0, spec.Connection.Tune(channel_max=p["channel_max"], frame_max=p["frame_max"],
                                            heartbeat=p["heartbeat"]))
        if mode == "tune_eof":
            self.read(0.5)
            return
        f = self.read(2)  # Tune-Ok
        f = self.read(2)  # Open
        if f is None:
            return
        self.method(0, spec.Connection.OpenOk())
        if mode == "blocked" or mode == "blocked_stay":
            time.sleep(p["delay"])
            self.method(0, spec.Connection.Blocked(reason="low on memory"))
            if mode == "blocked" and p["unblock"] == "twice":
                self.method(0, spec.Connection.Blocked(reason="low on disk"))
        if mode == "unblocked_only":
            self.method(0, spec.Connection.Unblocked())
        if mode == "hb_unasked":
            self.send(pframe.Heartbeat())
        if mode == "garbage":
            time.sleep(p["delay"])
            self.sock.sendall(b"\x01\x00\x00\x00\x00\x00\x04abcd\x00")  # a method frame with a bad end octet
        self.loop(time.time() + (16 if mode == "silent" else 6))

    def loop(self, until):
        """Answers the client's methods until the case ends, with the
        mode's misbehaviour once a channel is open."""
        b, mode, p = self.b, self.b.mode, self.b.plan
        done = False
        while time.time() < until:
            f = self.read(p["delay"])
            if f is None:
                if mode == "silent":
                    continue
                if self.channels and not done:
                    done = True
                    if self.misbehave():
                        return
                continue
            if mode == "silent" and self.channels:
                continue
            if not isinstance(f, pframe.Method):
                continue  # content of a publish
            m, ch = f.method, f.channel_number
            if isinstance(m, spec.Connection.Close):
                self.method(0, spec.Connection.CloseOk())
                return
            if isinstance(m, spec.Connection.CloseOk):
                return
            if isinstance(m, spec.Channel.Open):
                self.channels.add(ch)
                self.method(ch, spec.Channel.OpenOk())
            elif isinstance(m, spec.Channel.Close):
                self.channels.discard(ch)
                self.method(ch, spec.Channel.CloseOk())
            elif isinstance(m, spec.Queue.Declare):
                self.method(ch, spec.Queue.DeclareOk(queue=m.queue or "amq.gen-fake%d" % ch, message_count=0,
                                                     consumer_count=0))
            elif isinstance(m, spec.Exchange.Declare):
                self.method(ch, spec.Exchange.DeclareOk())
            elif isinstance(m, spec.Queue.Bind):
                self.method(ch, spec.Queue.BindOk())
            elif isinstance(m, spec.Basic.Qos):
                self.method(ch, spec.Basic.QosOk())
            elif isinstance(m, spec.Basic.Consume):
                self.tags += 1
                self.method(ch, spec.Basic.ConsumeOk(consumer_tag=m.consumer_tag or "ctag-fake-%d" % self.tags))
            elif isinstance(m, spec.Basic.Cancel):
                self.method(ch, spec.Basic.CancelOk(consumer_tag=m.consumer_tag))
            elif isinstance(m, spec.Basic.Get):
                self.method(ch, spec.Basic.GetEmpty())
            elif isinstance(m, spec.Confirm.Select):
                self.method(ch, spec.Confirm.SelectOk())
            elif isinstance(m, spec.Channel.CloseOk):
                self.channels.discard(ch)

    def misbehave(self):
        """The mode's act once the client has a channel; True ends the connection."""
        b, mode, p = self.b, self.b.mode, self.b.plan
        ch = min(self.channels)
        if mode == "blocked" and p["unblock"] != "none":
            self.method(0, spec.Connection.Unblocked())
        elif mode == "deliver_unknown":
            props = spec.BasicProperties(content_type="text/plain", delivery_mode=1)
            body = b"surprise"
            self.send(pframe.Method(ch, spec.Basic.Deliver(consumer_tag="ctag-nobody", delivery_tag=1,
                                                            redelivered=False, exchange="", routing_key="q")),
                      pframe.Header(ch, len(body), props), pframe.Body(ch, body))
        elif mode == "getok":
            props = spec.BasicProperties()
            body = b"unasked"
            self.send(pframe.Method(ch, spec.Basic.GetOk(delivery_tag=1, redelivered=False, exchange="",
                                                          routing_key="q", message_count=0)),
                      pframe.Header(ch, len(body), props), pframe.Body(ch, body))
        elif mode == "flow":
            self.method(ch, spec.Channel.Flow(active=False))
            time.sleep(p["delay"])
            self.method(ch, spec.Channel.Flow(active=True))
        elif mode == "bad_channel":
            self.method(ch + 7, spec.Basic.Ack(delivery_tag=1))
        elif mode == "ch_close":
            self.method(ch, spec.Channel.Close(reply_code=p["ch_code"][0], reply_text=p["ch_code"][1],
                                               class_id=0, method_id=0))
        elif mode == "conn_close":
            self.method(0, spec.Connection.Close(reply_code=p["close_code"][0], reply_text=p["close_code"][1],
                                                 class_id=0, method_id=0))
        elif mode == "eof":
            return True
        elif mode == "reset":
            self.rst()
            return True
        elif mode == "hb_unasked":
            self.send(pframe.Heartbeat())
        return False


# ---------------------------------------------------------------------------
# the drivers: one script of operations, run by a blocking or an event-loop session
# ---------------------------------------------------------------------------
class Session:
    """What the operations need of a session; a subclass runs them on its
    adapter. An operation is a generator: ``yield t`` lets the session run
    pika for up to t seconds (the event-loop sessions return what woke them),
    ``yield from self.rpc(...)`` calls a channel method and waits for its
    answer."""

    def __init__(self, case):
        self.case = case
        self.r = case.r
        self.conn = None
        self.ch = None
        self.chans = []
        self.deliveries = []
        self.returned = 0
        self.confirms = []
        self.queues = []     # declared queue names, usable later
        self.exchanges = []  # declared exchange names (with their type)
        self.consumers = []  # (channel, tag)
        self.ch_error = None
        self.conn_error = None
        self.n = 0

    def close_connection(self):
        """Closes the open connection with the case's reply code, now and
        then twice, as an application may: pika logs that and raises."""
        code = self.case.close_code
        try:
            if code:
                self.conn.close(code[0], code[1])
            else:
                self.conn.close()
            if self.r.random() < 0.05:
                self.conn.close()
        except pex.AMQPError as e:
            self.case.count("close failed " + type(e).__name__)

    def adopt_channel(self, ch, keep):
        """A channel just opened: its returned messages handled here or
        left to pika, which logs them; kept as the current one if keep."""
        if self.r.random() < 0.6:  # else pika logs the returned message itself
            ch.add_on_return_callback(self.on_return)
            if self.r.random() < 0.08:  # registered twice by mistake: pika warns
                ch.add_on_return_callback(self.on_return)
        if keep:
            self.chans.append(ch)
            self.ch = ch

    def forget_channel(self, ch):
        """A channel closed: the current one becomes the last still open."""
        if ch in self.chans:
            self.chans.remove(ch)
        if self.ch is ch:
            self.ch = self.chans[-1] if self.chans and self.chans[-1].is_open else None

    def name(self, kind):
        self.n += 1
        pre = "lim" if self.case.user == "limited" else ("dq" if kind == "dq" else "pq")
        if kind == "x":
            pre = "lim" if self.case.user == "limited" else "px"
        return "%s.%s.%s%d" % (pre, self.case.tag, kind, self.n)

    def on_message(self, ch, method, props, body):
        self.deliveries.append((ch, method.delivery_tag, len(body)))

    def on_return(self, ch, method, props, body):
        self.returned += 1

    def safe(self, fn, *a, **kw):
        """An ack, nack or reject: no answer to wait for, errors come later."""
        try:
            fn(*a, **kw)
        except (pex.AMQPError, ValueError) as e:
            self.case.count("ch error " + type(e).__name__)

    def usable(self):
        return self.conn is not None and self.conn.is_open and self.ch is not None and self.ch.is_open

    # -- operations, shared by every adapter ----------------------------------
    def op_declare_queue(self):
        r = self.r
        args = {}
        if r.random() < 0.3:
            args["x-message-ttl"] = r.choice([50, 200, 5000])
        if r.random() < 0.2:
            args["x-max-length"] = r.choice([1, 2, 5])
            args["x-overflow"] = r.choice(["drop-head", "reject-publish"])
        if r.random() < 0.1:
            args["x-queue-mode"] = "lazy"
        if r.random() < 0.1:
            args["x-max-priority"] = r.choice([3, 10])
        named = r.random() < 0.8
        q = self.name("q") if named else ""
        res = yield from self.rpc("queue_declare", q, durable=r.random() < 0.3,
                                  exclusive=r.random() < 0.2, auto_delete=r.random() < 0.2,
                                  arguments=args or None)
        qname = getattr(getattr(res, "method", None), "queue", None)
        if qname:
            self.queues.append(qname)

    def ensure_queue(self):
        if not self.queues:
            yield from self.op_declare_queue()
        return self.queues[-1] if self.queues else None

    def op_declare_exchange(self):
        r = self.r
        kind = r.choice(["direct", "fanout", "topic", "headers"])
        x = self.name("x")
        res = yield from self.rpc("exchange_declare", x, exchange_type=kind, durable=r.random() < 0.3,
                                  auto_delete=r.random() < 0.2, internal=r.random() < 0.1)
        if not isinstance(res, Exception) and res is not TIMEOUT:
            self.exchanges.append((x, kind))
            q = yield from self.ensure_queue()
            if q and self.usable():
                key = r.choice(["", "orders.new", "orders.*", "#", "sensor.%d" % r.randint(1, 9)])
                args = {"x-match": r.choice(["all", "any"]), "region": "eu"} if kind == "headers" else None
                yield from self.rpc("queue_bind", q, x, routing_key=key, arguments=args)
            if self.exchanges[:-1] and r.random() < 0.4 and self.usable():
                src = r.choice(self.exchanges[:-1])[0]
                yield from self.rpc("exchange_bind", x, src, routing_key=r.choice(["", "a.b", "#"]))

    def op_passive_missing(self):
        if self.r.random() < 0.6:
            yield from self.rpc("queue_declare", self.name("q") + ".missing", passive=True)
        else:
            yield from self.rpc("exchange_declare", self.name("x") + ".missing", passive=True)

    def op_redeclare_conflict(self):
        r = self.r
        q = self.name("q")
        res = yield from self.rpc("queue_declare", q, durable=False, arguments={"x-message-ttl": 1000})
        if self.usable() and not isinstance(res, Exception):
            if r.random() < 0.5:
                yield from self.rpc("queue_declare", q, durable=True)
            else:
                yield from self.rpc("queue_declare", q, arguments={"x-message-ttl": 2000})
        elif self.usable():
            yield from self.rpc("exchange_declare", "amq.direct", exchange_type="fanout")

    def op_bind_unbind(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        x = r.choice(self.exchanges)[0] if self.exchanges else r.choice(["amq.direct", "amq.topic", "amq.fanout"])
        key = "k.%d" % r.randint(1, 50)
        yield from self.rpc("queue_bind", q, x, routing_key=key)
        if self.usable() and r.random() < 0.6:
            yield from self.rpc("queue_unbind", q, x, routing_key=key if r.random() < 0.8 else "never.bound")

    def props(self):
        r = self.r
        if r.random() < 0.3:
            return None
        p = pika.BasicProperties(content_type=r.choice(["text/plain", "application/json", None]),
                                 delivery_mode=r.choice([1, 2, None]))
        if r.random() < 0.4:
            p.headers = {"attempt": r.randint(0, 3), "origin": "bench", "tags": ["a", "b"], "ok": True}
        if r.random() < 0.3:
            p.correlation_id = "corr-%d" % r.randint(1, 1000)
            # direct reply-to without a consumer for it: the broker closes the channel
            p.reply_to = "amq.rabbitmq.reply-to" if r.random() < 0.04 else "replies"
        if r.random() < 0.2:
            p.expiration = str(r.choice([10, 100, 60000]))
        if r.random() < 0.2:
            p.priority = r.randint(0, 9)
        if r.random() < 0.2:
            p.message_id = "m-%d" % r.randint(1, 10 ** 6)
            p.timestamp = 1700000000 + r.randint(0, 10 ** 6)
        return p

    def body(self):
        r = self.r
        size = pick(r, [(30, 0), (40, r.randint(1, 200)), (20, r.randint(1000, 20000)),
                        (10, r.randint(50000, 300000))])
        return r.randbytes(size) if size > 200 else ("x" * size).encode()

    def op_publish(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not self.usable():
            return
        for _ in range(r.randint(1, 12)):
            if r.random() < 0.7 or not self.exchanges:
                x, key = "", q or "nowhere"
            else:
                x, key = r.choice(self.exchanges)[0], r.choice(["orders.new", "k.1", "sensor.3", ""])
            yield from self.publish(x, key, self.body(), self.props(), mandatory=r.random() < 0.2)
            if not self.usable():
                return
        yield 0.02

    def op_publish_unroutable(self):
        x = self.exchanges[-1][0] if self.exchanges and self.r.random() < 0.5 else "amq.direct"
        for _ in range(self.r.randint(1, 3)):
            yield from self.publish(x, "nobody.%d" % self.r.randint(1, 99), b"lost", self.props(), mandatory=True)
        yield 0.05

    def op_publish_missing_exchange(self):
        yield from self.publish(self.name("x") + ".gone", "k", b"into the void", None)
        yield 0.1

    def op_publish_oversized(self):
        yield from self.publish("", self.queues[-1] if self.queues else "nowhere",
                                b"\0" * (BROKER_MAX_MESSAGE + self.r.randint(1, 200000)), None)
        yield 0.2

    def op_confirms(self):
        r = self.r
        capped = r.random() < 0.5
        q = self.name("q")
        args = {"x-max-length": r.choice([1, 2]), "x-overflow": "reject-publish"} if capped else None
        res = yield from self.rpc("queue_declare", q, arguments=args)
        if isinstance(res, Exception) or not self.usable():
            return
        self.queues.append(q)
        yield from self.confirm_mode()
        for _ in range(r.randint(2, 8)):
            if not self.usable():
                return
            yield from self.publish("", q if r.random() < 0.85 else "nobody.here", self.body(), self.props(),
                                    mandatory=r.random() < 0.3)
        yield 0.1

    def op_consume(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        if r.random() < 0.7:
            for _ in range(r.randint(1, 6)):
                yield from self.publish("", q, self.body(), self.props())
        if r.random() < 0.4 and self.usable():
            yield from self.rpc("basic_qos", prefetch_count=r.choice([1, 2, 10]), global_qos=r.random() < 0.3)
        auto_ack = r.random() < 0.25
        tag = yield from self.consume(q, auto_ack=auto_ack, exclusive=r.random() < 0.15)
        if tag is None:
            return
        yield r.choice([0.05, 0.15, 0.3])
        yield from self.settle(auto_ack)
        if self.usable() and r.random() < 0.7:
            yield from self.cancel(tag)

    def settle(self, auto_ack):
        r = self.r
        got, self.deliveries = self.deliveries, []
        if auto_ack:
            return
        multiple = r.random() < 0.2
        for k, (ch, tag, _) in enumerate(got):
            if not (ch.is_open and self.conn.is_open):
                return
            how = pick(r, [(60, "ack"), (15, "nack"), (10, "nack_drop"), (10, "reject"), (5, "leave")])
            if multiple and how == "ack" and k < len(got) - 1:
                continue
            if how == "ack":
                self.safe(ch.basic_ack, tag, multiple=multiple)
            elif how == "nack":
                self.safe(ch.basic_nack, tag, requeue=True)
            elif how == "nack_drop":
                self.safe(ch.basic_nack, tag, multiple=r.random() < 0.3, requeue=False)
            elif how == "reject":
                self.safe(ch.basic_reject, tag, requeue=r.random() < 0.5)
        yield 0.02

    def op_get(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        if r.random() < 0.6:
            yield from self.publish("", q, self.body(), self.props())
        for _ in range(r.randint(1, 3)):
            if not self.usable():
                return
            auto = r.random() < 0.3
            tag = yield from self.get(q, auto)
            if tag and not auto and self.usable():
                if r.random() < 0.7:
                    self.safe(self.ch.basic_ack, tag)
                else:
                    self.safe(self.ch.basic_reject, tag, requeue=r.random() < 0.5)

    def op_qos(self):
        yield from self.rpc("basic_qos", prefetch_count=self.r.choice([0, 1, 5, 100]),
                            global_qos=self.r.random() < 0.3)

    def op_recover(self):
        yield from self.rpc("basic_recover", requeue=True)

    def op_ack_unknown(self):
        if self.r.random() < 0.7:
            self.safe(self.ch.basic_ack, self.r.randint(500, 9000))
        else:
            self.safe(self.ch.basic_reject, self.r.randint(500, 9000), requeue=False)
        yield 0.1

    def op_double_ack(self):
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        yield from self.publish("", q, b"twice", None)
        tag = yield from self.get(q, False)
        if tag and self.usable():
            self.safe(self.ch.basic_ack, tag)
            self.safe(self.ch.basic_ack, tag)
            yield 0.1

    def op_tx(self):
        r = self.r
        res = yield from self.rpc("tx_select")
        if isinstance(res, Exception):
            return
        q = yield from self.ensure_queue()
        for _ in range(r.randint(1, 4)):
            if not self.usable():
                return
            yield from self.publish("", q or "nowhere", self.body(), self.props())
        if self.usable():
            yield from self.rpc(r.choice(["tx_commit", "tx_commit", "tx_rollback"]))
        if self.usable() and r.random() < 0.3:
            yield from self.rpc("tx_rollback")

    def op_tx_not_selected(self):
        yield from self.rpc(self.r.choice(["tx_commit", "tx_rollback"]))

    def op_purge_delete(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        if r.random() < 0.5:
            yield from self.publish("", q, b"doomed", None)
        if self.usable() and r.random() < 0.5:
            yield from self.rpc("queue_purge", q)
        if self.usable():
            res = yield from self.rpc("queue_delete", q, if_unused=r.random() < 0.3, if_empty=r.random() < 0.3)
            if not isinstance(res, Exception) and q in self.queues:
                self.queues.remove(q)
        if self.usable() and self.exchanges and r.random() < 0.5:
            x = self.exchanges.pop()[0]
            yield from self.rpc("exchange_delete", x, if_unused=r.random() < 0.4)

    def op_access_refused(self):
        if self.case.user == "limited" and self.r.random() < 0.7:
            yield from self.rpc("queue_declare", "pq.%s.forbidden" % self.case.tag)
        else:
            yield from self.rpc("exchange_declare", "amq.bench.%s" % self.case.tag, exchange_type="direct")

    def op_exclusive_consumer(self):
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        tag = yield from self.consume(q, exclusive=True)
        if tag is None:
            return
        other = yield from self.open_channel(keep=False)
        if other is not None:
            saved, self.ch = self.ch, other
            yield from self.consume(q)
            if other.is_open and self.conn.is_open:
                yield from self.close_channel(other)
            self.ch = saved

    def op_cancel_by_broker(self):
        q = self.name("q")
        res = yield from self.rpc("queue_declare", q)
        if isinstance(res, Exception) or not self.usable():
            return
        tag = yield from self.consume(q)
        if tag is None or not self.usable():
            return
        yield from self.rpc("queue_delete", q)
        yield 0.1

    def op_cancel_unknown(self):
        yield from self.cancel("ctag-%s-unknown" % self.case.tag)

    def op_more_channels(self):
        r = self.r
        for _ in range(r.randint(1, 3)):
            ch = yield from self.open_channel(keep=True)
            if ch is None:
                return
        if r.random() < 0.6 and len(self.chans) > 1 and self.conn.is_open:
            yield from self.close_channel(self.chans[-1])

    def op_switch_channel(self):
        if self.ch is not None and self.ch.is_open:
            yield from self.close_channel(self.ch)
        if self.conn.is_open:
            yield from self.open_channel(keep=True)

    def op_channel_flood(self):
        for _ in range(self.case.channel_max_eff + 2):
            ch = yield from self.open_channel(keep=True)
            if ch is None or not self.conn.is_open:
                return

    def op_channel_number_too_high(self):
        yield from self.open_channel(keep=True, number=BROKER_CHANNEL_MAX + self.r.randint(1, 100))
        yield 0.2

    def op_bad_exchange_type(self):
        yield from self.rpc("exchange_declare", self.name("x"), exchange_type="x-bogus-%d" % self.r.randint(1, 9))
        yield 0.1

    def op_flow_off(self):
        yield from self.rpc("flow", False)
        yield 0.1

    def op_dead_letter(self):
        r = self.r
        dlx = self.name("x")
        res = yield from self.rpc("exchange_declare", dlx, exchange_type="fanout")
        if isinstance(res, Exception) or not self.usable():
            return
        dlq = self.name("dq")
        yield from self.rpc("queue_declare", dlq)
        if not self.usable():
            return
        yield from self.rpc("queue_bind", dlq, dlx)
        src = self.name("q")
        yield from self.rpc("queue_declare", src, arguments={"x-dead-letter-exchange": dlx,
                                                             "x-message-ttl": r.choice([10, 30])})
        for _ in range(r.randint(1, 4)):
            if not self.usable():
                return
            yield from self.publish("", src, self.body(), self.props())
        yield 0.1
        self.queues.append(dlq)
        if self.usable():
            yield from self.get(dlq, True)

    def op_idle(self):
        yield self.r.choice([0.2, 0.5, 1.0, 1.5])

    def op_stall(self):
        """Neither reads nor writes until the broker gives up on heartbeats
        (RabbitMQ 3.10 drops a connection with a 1 s heartbeat after some 3 s
        of silence)."""
        time.sleep(self.r.choice([3.8, 4.2]))
        yield 0.3


# ops for the broker: (weight, name); what a session may draw
OPS = [(12, "declare_queue"), (8, "declare_exchange"), (4, "passive_missing"), (3, "redeclare_conflict"),
       (6, "bind_unbind"), (14, "publish"), (4, "publish_unroutable"), (2, "publish_missing_exchange"),
       (1, "publish_oversized"), (6, "confirms"), (12, "consume"), (6, "get"), (3, "qos"), (1, "recover"),
       (2, "ack_unknown"), (1, "double_ack"), (4, "tx"), (1, "tx_not_selected"), (4, "purge_delete"),
       (2, "access_refused"), (1, "exclusive_consumer"), (2, "cancel_by_broker"), (1, "cancel_unknown"),
       (3, "more_channels"), (2, "switch_channel"), (3, "dead_letter"), (3, "idle")]
# ops that end the connection (the broker's connection-level errors): at most one, last
FATAL_OPS = [(4, "bad_exchange_type"), (3, "flow_off"), (2, "channel_number_too_high"), (2, "channel_flood"),
             (3, "stall")]


class BlockingSession(Session):
    """Runs the script on a BlockingConnection."""

    def run(self):
        case = self.case
        try:
            self.conn = pika.BlockingConnection(case.params_list if len(case.params_list) > 1
                                                else case.params_list[0])
        except (pex.AMQPError, OSError, ValueError) as e:
            case.count("open failed " + type(e).__name__)
            return
        case.count("opened")
        if self.r.random() < 0.3:
            self.conn.add_on_connection_blocked_callback(lambda *a: None)
            self.conn.add_on_connection_unblocked_callback(lambda *a: None)
        self.drive(case.script())

    def drive(self, gen):
        """The blocking trampoline: each ``yield t`` processes I/O for t
        seconds; an exception of a lost connection ends the script."""
        try:
            for t in gen:
                if self.conn.is_open:
                    self.conn.process_data_events(time_limit=t or 0)
        except (pex.StreamLostError, pex.ConnectionClosed, pex.AMQPConnectionError, pex.ConnectionWrongStateError) as e:
            self.case.count("conn lost " + type(e).__name__)
            self.conn_error = e

    def _guard(self, fn, *a, **kw):
        try:
            return fn(*a, **kw)
        except (pex.ChannelClosed, pex.ChannelWrongStateError, pex.UnroutableError, pex.NackError,
                pex.DuplicateConsumerTag, pex.NoFreeChannels, ValueError, TypeError) as e:
            self.ch_error = e
            self.case.count("ch error " + type(e).__name__)
            return e

    def rpc(self, meth, *a, **kw):
        if not self.usable():
            return pex.ChannelWrongStateError("channel closed")
        return self._guard(getattr(self.ch, meth), *a, **kw)
        yield  # noqa: unreachable; makes this a generator like the event-loop sessions'

    def publish(self, x, key, body, props, mandatory=False):
        if self.usable():
            self._guard(self.ch.basic_publish, x, key, body, properties=props, mandatory=mandatory)
        return
        yield

    def confirm_mode(self):
        if self.usable():
            self._guard(self.ch.confirm_delivery)
        return
        yield

    def consume(self, q, auto_ack=False, exclusive=False):
        if not self.usable():
            return None
        tag = self._guard(self.ch.basic_consume, q, self.on_message, auto_ack=auto_ack, exclusive=exclusive)
        if isinstance(tag, Exception):
            return None
        self.consumers.append((self.ch, tag))
        return tag
        yield

    def cancel(self, tag):
        if self.usable():
            self._guard(self.ch.basic_cancel, tag)
        return
        yield

    def get(self, q, auto_ack):
        if not self.usable():
            return None
        res = self._guard(self.ch.basic_get, q, auto_ack=auto_ack)
        if isinstance(res, tuple) and res[0] is not None:
            return res[0].delivery_tag
        return None
        yield

    def open_channel(self, keep=True, number=None):
        if not self.conn.is_open:
            return None
        ch = self._guard(self.conn.channel, channel_number=number)
        if isinstance(ch, Exception):
            return None
        self.adopt_channel(ch, keep)
        return ch
        yield

    def close_channel(self, ch):
        self._guard(ch.close)
        self.forget_channel(ch)
        return
        yield

    # -- blocking-only operations ---------------------------------------------
    def op_consume_generator(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        for _ in range(r.randint(0, 4)):
            yield from self.publish("", q, self.body(), self.props())
        try:
            for k, (method, props, body) in enumerate(self.ch.consume(q, inactivity_timeout=r.choice([0.05, 0.2]),
                                                                      auto_ack=r.random() < 0.3)):
                if method is None or k > 6:
                    break
                if r.random() < 0.5:
                    self.ch.basic_ack(method.delivery_tag)
            if r.random() < 0.8:
                self.ch.cancel()
                if r.random() < 0.2:  # nothing left to cancel: pika warns
                    self.ch.cancel()
        except (pex.ChannelClosed, pex.ChannelWrongStateError, pex.DuplicateConsumerTag, ValueError) as e:
            # ValueError: a generator left running on another queue
            self.case.count("ch error " + type(e).__name__)

    def op_start_consuming(self):
        r = self.r
        q = yield from self.ensure_queue()
        if not q or not self.usable():
            return
        for _ in range(r.randint(1, 4)):
            yield from self.publish("", q, self.body(), None)
        ch = self.ch

        def on_msg(c, method, props, body):
            c.basic_ack(method.delivery_tag)
        tag = self._guard(ch.basic_consume, q, on_msg)
        if isinstance(tag, Exception):
            return
        self.conn.call_later(r.choice([0.05, 0.15]), ch.stop_consuming)
        self._guard(ch.start_consuming)

    def op_threadsafe(self):
        done = []
        t = threading.Thread(target=lambda: self.conn.add_callback_threadsafe(lambda: done.append(1)))
        t.start()
        t.join()
        yield 0.05
        if self.r.random() < 0.5:
            self.conn.call_later(0.01, lambda: done.append(2))
            self.conn.sleep(0.05)

    def end(self):
        if self.conn is not None and self.conn.is_open:
            self.close_connection()

    def abandon(self):
        if self.conn is not None and self.conn.is_open:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001  logging is off: whatever happens is the case's end
                pass


class LoopSession(Session):
    """Runs the script on a SelectConnection or an AsyncioConnection: the
    script is resumed from the event loop by pika's callbacks or a timer."""

    def __init__(self, case, flavour):
        super().__init__(case)
        self.flavour = flavour
        self.loop = asyncio.new_event_loop() if flavour == "asyncio" else IOLoop()
        if flavour == "asyncio":  # what escapes pika's callbacks is counted, not printed
            self.loop.set_exception_handler(
                lambda loop, ctx: self.case.count("loop error " + type(ctx.get("exception")).__name__))
        self.gen = None
        self.tok = 0
        self.finished = False
        self.opened = False

    # -- the loop and the trampoline -----------------------------------------
    def later(self, t, fn):
        return self.loop.call_later(t, fn)

    def stop_loop(self):
        self.loop.stop()

    def run_loop(self):
        if self.flavour == "asyncio":
            self.loop.run_forever()
        else:
            self.loop.start()

    def waker(self):
        """A callback that resumes the script at its next wait (and only then)."""
        tok = self.tok + 1
        return lambda *a: self.later(0, lambda: self._wake(tok, a[0] if len(a) == 1 else a))

    def _wake(self, tok, value):
        if tok != self.tok or self.finished:
            return
        self.tok += 1  # this wait is over: its timer and other callbacks are stale
        self._advance(value)

    def _advance(self, value):
        try:
            t = self.gen.send(value)
        except StopIteration:
            self.finish()
            return
        except Exception as e:  # noqa: BLE001  a pika call that raised: the session ends
            self.case.count("script raised " + type(e).__name__)
            self.finish()
            return
        self.tok += 1
        tok = self.tok
        self.later(t or 0, lambda: self._wake(tok, TIMEOUT))

    def finish(self):
        """Closes the connection (if open) and stops the loop when closed."""
        if self.finished:
            return
        self.finished = True
        if self.conn is not None and (self.conn.is_open or self.conn.is_closing):
            if self.conn.is_open:
                self.close_connection()
            self.later(2.0, self.stop_loop)  # the close callback stops it sooner
        else:
            self.stop_loop()

    # -- connection callbacks ---------------------------------------------------
    def on_open(self, conn):
        self.conn = conn
        self.opened = True
        self.case.count("opened")
        if self.r.random() < 0.3:
            conn.add_on_connection_blocked_callback(lambda *a: None)
            conn.add_on_connection_unblocked_callback(lambda *a: None)
        self.gen = self.case.script()
        self._advance(None)

    def on_open_error(self, conn, err):
        self.case.count("open failed " + type(err).__name__)
        self.finished = True
        self.stop_loop()

    def on_closed(self, conn, err):
        self.conn_error = err
        self.case.count("closed " + type(err).__name__)
        if self.finished:
            self.stop_loop()
        else:
            self.tok += 1
            self.finish()

    def on_channel_closed(self, ch, reason):
        if ch is self.ch:
            self.ch_error = reason
            self.case.count("ch closed " + type(reason).__name__)
        # whatever the script waits for will not come on a closed channel
        tok = self.tok
        self.later(0, lambda: self._wake(tok, (ch, reason)))

    def run(self):
        case = self.case
        self.later(case.max_secs, self.abort)
        if case.external_workflow:
            cls = AsyncioConnection if self.flavour == "asyncio" else pika.SelectConnection

            def on_done(res):
                if isinstance(res, Exception):
                    self.on_open_error(None, res)
                else:
                    res.add_on_close_callback(self.on_closed)
                    self.on_open(res)
            wf = cls.create_connection(case.params_list, on_done, custom_ioloop=self.loop)
            if case.abort_connect:  # the application gives up while pika connects
                self.later(self.r.choice([0, 0.002, 0.01]), lambda: self.stop_connecting(wf.abort))
        else:
            params = case.params_list if len(case.params_list) > 1 else case.params_list[0]
            if isinstance(params, list):  # the constructor takes one set of parameters
                params = params[-1]
            cls = AsyncioConnection if self.flavour == "asyncio" else pika.SelectConnection
            self.conn = cls(params, on_open_callback=self.on_open, on_open_error_callback=self.on_open_error,
                            on_close_callback=self.on_closed, custom_ioloop=self.loop)
            if case.abort_connect:  # the application gives up while pika connects
                self.later(self.r.choice([0, 0.002, 0.01]), lambda: self.stop_connecting(self.conn.close))
        try:
            self.run_loop()
        except Exception as e:  # noqa: BLE001  pika's own assertions (a close racing the connection workflow)
            self.case.count("loop raised " + type(e).__name__)

    def stop_connecting(self, how):
        if not self.opened and not self.finished:
            self.case.count("connect aborted")
            try:
                how()
            except pex.AMQPError as e:  # already done with: nothing to abort
                self.case.count("abort failed " + type(e).__name__)

    def abort(self):
        if not self.finished:
            self.case.count("case deadline")
            self.tok += 1
            self.finish()

    def abandon(self):
        """After the case: close whatever is still open, logging off."""
        try:
            if self.conn is not None and self.conn.is_open:
                self.conn.close()
                self.later(1.0, self.stop_loop)
                self.finished = True
                self.conn.add_on_close_callback(lambda *a: self.stop_loop())
                self.run_loop()
        except Exception:  # noqa: BLE001
            pass
        if self.flavour == "asyncio":
            try:
                self.loop.close()
            except Exception:  # noqa: BLE001
                pass
        else:
            self.loop.close()

    # -- what the operations call ------------------------------------------------
    def rpc(self, meth, *a, **kw):
        if not self.usable():
            return pex.ChannelWrongStateError("channel closed")
        w = self.waker()
        try:
            if meth == "flow":
                self.ch.flow(a[0], callback=w)
            else:
                getattr(self.ch, meth)(*a, callback=w, **kw)
        except (pex.AMQPError, ValueError, TypeError) as e:
            self.case.count("ch error " + type(e).__name__)
            return e
        res = yield 2.0
        if res is TIMEOUT:
            self.case.count("rpc timeout")
        elif isinstance(res, tuple) and len(res) == 2 and isinstance(res[1], Exception):
            return res[1]  # the channel closed while waiting
        return res

    def publish(self, x, key, body, props, mandatory=False):
        if self.usable():
            try:
                self.ch.basic_publish(x, key, body, properties=props, mandatory=mandatory)
            except (pex.AMQPError, ValueError, TypeError) as e:
                self.case.count("ch error " + type(e).__name__)
        if self.r.random() < 0.3:
            yield 0.005  # let the loop flush now and then

    def confirm_mode(self):
        if self.usable():
            try:
                self.ch.confirm_delivery(lambda fr: self.confirms.append(type(fr.method).__name__),
                                         callback=self.waker())
            except (pex.AMQPError, ValueError, TypeError) as e:
                self.case.count("ch error " + type(e).__name__)
                return
            yield 2.0

    def consume(self, q, auto_ack=False, exclusive=False):
        if not self.usable():
            return None
        w = self.waker()
        try:
            tag = self.ch.basic_consume(q, self.on_message, auto_ack=auto_ack, exclusive=exclusive, callback=w)
        except (pex.AMQPError, ValueError, TypeError) as e:
            self.case.count("ch error " + type(e).__name__)
            return None
        res = yield 2.0
        if res is TIMEOUT or not self.usable():
            return None
        self.consumers.append((self.ch, tag))
        return tag

    def cancel(self, tag):
        if self.usable():
            w = self.waker()
            try:
                self.ch.basic_cancel(tag, callback=w)
                if self.r.random() < 0.15:  # again before the broker answered: pika warns
                    self.ch.basic_cancel(tag)
            except (pex.AMQPError, ValueError, TypeError) as e:
                self.case.count("ch error " + type(e).__name__)
                return
            yield 0.5  # an unknown tag gets no answer: the wait just ends

    def get(self, q, auto_ack):
        if not self.usable():
            return None
        w = self.waker()
        empty = self.waker()  # same wait: whichever answer comes first
        try:
            self.ch.add_callback(lambda fr: empty(fr), [spec.Basic.GetEmpty], one_shot=True)
            self.ch.basic_get(q, lambda ch, method, props, body: w(method), auto_ack=auto_ack)
        except (pex.AMQPError, ValueError, TypeError) as e:
            self.case.count("ch error " + type(e).__name__)
            return None
        res = yield 2.0
        if isinstance(res, spec.Basic.GetOk):
            return res.delivery_tag
        return None

    def open_channel(self, keep=True, number=None):
        if self.conn is None or not self.conn.is_open:
            return None
        w = self.waker()
        try:
            ch = self.conn.channel(channel_number=number, on_open_callback=w)
        except (pex.AMQPError, ValueError, TypeError) as e:
            self.case.count("ch error " + type(e).__name__)
            return None
        ch.add_on_close_callback(self.on_channel_closed)
        self.adopt_channel(ch, keep)
        res = yield 2.0
        if res is TIMEOUT or not ch.is_open:
            return None
        return ch

    def close_channel(self, ch):
        try:
            ch.close()
        except (pex.AMQPError, ValueError) as e:
            self.case.count("ch error " + type(e).__name__)
            return
        self.forget_channel(ch)
        yield 1.0

    # -- event-loop-only operations -------------------------------------------
    def op_threadsafe(self):
        w = self.waker()
        cb = self.conn.ioloop.call_soon_threadsafe if self.flavour == "asyncio" else self.conn.ioloop.add_callback_threadsafe
        t = threading.Thread(target=lambda: cb(lambda: w("threadsafe")))
        t.start()
        t.join()
        yield 0.5


# ---------------------------------------------------------------------------
# one case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, i, r, env):
        self.i = i
        self.r = r
        self.env = env
        self.tag = "c%05d" % i
        self.st = {}
        self.notes = []
        self.fake = None
        self.session = None
        self.close_code = None
        self.max_secs = 12

    def count(self, what):
        self.st[what] = self.st.get(what, 0) + 1

    def note(self, what):
        self.notes.append(what)

    # -- what the case draws -----------------------------------------------------
    def draw(self):
        r = self.r
        broker = self.env["broker"]
        self.kind = pick(r, [(80, "broker"), (13, "fake"), (7, "noserver")])
        if self.kind == "fake":
            self.fake = FakeBroker(r, r.choice(FAKE_MODES))
            self.env["ports"].append(self.fake.port)
            self.count("fake " + self.fake.mode)
        self.adapter = pick(r, [(40, "blocking"), (35, "select"), (25, "asyncio")])
        self.profile = pick(r, [(5, "debug"), (5, "no-callbacks"), (45, "quiet-io"), (45, "info")])
        self.count("kind " + self.kind)
        self.count("adapter " + self.adapter)
        self.count("profile " + self.profile)
        self.external_workflow = self.adapter != "blocking" and r.random() < 0.25
        self.abort_connect = self.adapter != "blocking" and self.kind != "fake" and r.random() < 0.05
        self.user = pick(r, [(55, "guest"), (30, "app"), (10, "limited"), (3, "wrong_pw"), (2, "nobody"),
                             (2 if self.kind == "broker" else 12, "external")])
        self.vhost = pick(r, [(70, "/"), (22, "orders"), (4, "missing"), (4, "locked")])
        if self.user == "limited":
            self.vhost = "/"
        self.heartbeat = pick(r, [(25, None), (10, 0), (15, 1), (15, 2), (15, 10), (10, 60), (5, 600),
                                  (5, "fn")])
        if self.fake is not None and self.fake.mode == "silent":
            self.heartbeat = 1
            self.max_secs = 18
        self.tls = bool(broker.tls_port) and self.kind == "broker" and r.random() < 0.1
        self.steps = []
        if self.kind == "broker":
            n = r.randint(2, 10)
            self.steps = [pick(r, OPS) for _ in range(n)]
            if self.adapter == "blocking":
                for k in range(len(self.steps)):
                    if r.random() < 0.12:
                        self.steps[k] = pick(r, [(3, "consume_generator"), (2, "start_consuming"),
                                                 (1, "threadsafe")])
            elif r.random() < 0.08:
                self.steps.insert(r.randint(0, len(self.steps)), "threadsafe")
            if r.random() < 0.16:
                fatal = pick(r, FATAL_OPS)
                if fatal == "channel_flood":
                    self.channel_max = r.choice([1, 3, 16])
                if fatal == "stall":
                    self.heartbeat = 1
                self.steps.append(fatal)
        if not hasattr(self, "channel_max"):
            self.channel_max = pick(r, [(60, None), (10, 1), (10, 3), (10, 16), (10, 2047)])
        self.params_list = [self.params(broker)]
        if self.kind == "broker" and r.random() < 0.12:
            # the first configurations point at ports nobody listens on
            dead = [self.params(broker, port=self.dead_port()) for _ in range(r.randint(1, 2))]
            self.params_list = dead + self.params_list
        self.close_code = r.choice([None, None, None, (200, "bye"), (320, "app shutting down")])
        self.channel_max_eff = min(self.channel_max or BROKER_CHANNEL_MAX, BROKER_CHANNEL_MAX)

    def dead_port(self):
        port = _capture.free_port()
        self.env["ports"].append(port)
        return port

    def params(self, broker, port=None):
        r = self.r
        user = {"wrong_pw": "app", "nobody": "nobody-%d" % r.randint(1, 99)}.get(self.user, self.user)
        pw = USERS.get(self.user, "wrong-password")
        # "localhost" comes from /etc/hosts, never from DNS
        host, tls = ("localhost" if r.random() < 0.2 else HOST), False
        if port is None:
            if self.kind == "fake":
                port = self.fake.port
            elif self.kind == "noserver":
                port = self.dead_port()
            elif self.tls:
                port, tls = broker.tls_port, True
            else:
                port = broker.port
        kw = {}
        hb = self.heartbeat
        fake_mode = self.fake.mode if self.fake is not None else None
        if fake_mode == "hb_unasked":
            hb = None  # take the fake broker's 0: pika then runs no heartbeat checker
        if hb == "fn":
            kw["heartbeat"] = lambda conn, server_value: r2(server_value)
        elif hb is not None:
            kw["heartbeat"] = hb
        if fake_mode == "blocked_stay":  # the broker never unblocks: the timeout ends the connection
            kw["blocked_connection_timeout"] = r.choice([0.2, 0.5])
        elif fake_mode == "blocked" or r.random() < 0.3:
            kw["blocked_connection_timeout"] = r.choice([0.3, 1, 5, 30])
        if r.random() < 0.3:
            kw["frame_max"] = r.choice([4096, 8192, 16384, 131072])
        if self.channel_max:
            kw["channel_max"] = self.channel_max
        if r.random() < 0.2:
            kw["socket_timeout"] = r.choice([0.5, 2, 10])
        if r.random() < 0.15:
            kw["stack_timeout"] = r.choice([1, 5, 15])
        if r.random() < 0.15:
            kw["tcp_options"] = r.choice([{"TCP_KEEPIDLE": 60, "TCP_KEEPINTVL": 10},
                                          {"TCP_USER_TIMEOUT": 5000},
                                          {"TCP_NODELAY_BENCH": 1}, {"TCP_KEEPCNT": 3, "TCP_QUICKACK_X": 1}])
        if r.random() < 0.3:
            kw["client_properties"] = {"connection_name": "bench-%s" % self.tag, "product": "pika-bench"}
        if r.random() < 0.1:
            kw["locale"] = r.choice(["en_US", "de_DE"])
        if self.kind == "noserver" or r.random() < 0.1:
            kw["connection_attempts"] = r.randint(1, 3)
            kw["retry_delay"] = r.choice([0.05, 0.1, 0.2])
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            kw["ssl_options"] = pika.SSLOptions(ctx, "localhost")
        if not tls and r.random() < 0.2 and "tcp_options" not in kw and hb != "fn" and self.user != "external":
            q = []
            for k in ("heartbeat", "blocked_connection_timeout", "frame_max", "channel_max", "socket_timeout",
                      "connection_attempts", "retry_delay"):
                if k in kw:
                    q.append("%s=%s" % (k, kw[k]))
            vh = "%2F" if self.vhost == "/" else self.vhost
            url = "amqp://%s:%s@%s:%d/%s" % (user, pw, host, port, vh)
            self.count("url parameters")
            return pika.URLParameters(url + ("?" + "&".join(q) if q else ""))
        if self.user == "external":  # SASL EXTERNAL: RabbitMQ offers it only with a plugin, the fake broker does
            creds = pcred.ExternalCredentials()
        else:
            creds = pika.PlainCredentials(user, pw, erase_on_connect=r.random() < 0.2)
        return pika.ConnectionParameters(host=host, port=port, virtual_host=self.vhost, credentials=creds, **kw)

    # -- the script every session runs -----------------------------------------
    def script(self):
        s = self.session
        r = self.r
        ch = yield from s.open_channel(keep=True)
        if ch is None:
            return
        for step in self.steps:
            if not (s.conn and s.conn.is_open):
                break
            if s.ch is None or not s.ch.is_open:
                if r.random() < 0.95:
                    self.count("channel reopened")
                    ch = yield from s.open_channel(keep=True)
                    if ch is None:
                        break
                else:
                    break
            self.count("op " + step)
            self.note(step)
            yield from getattr(s, "op_" + step)()
        if s.conn and s.conn.is_open and r.random() < 0.3:
            yield 0.05

    def fake_script(self):
        """Against the misbehaving broker: a channel, a consumer, then waits."""
        s = self.session
        ch = yield from s.open_channel(keep=True)
        if ch is None:
            return
        if s.usable():
            yield from s.rpc("queue_declare", "pq.%s.fake" % self.tag)
        if s.usable() and self.r.random() < 0.6:
            yield from s.consume("pq.%s.fake" % self.tag)
        if s.usable() and self.r.random() < 0.3:
            yield from s.get("pq.%s.fake" % self.tag, False)
        if self.fake.mode == "silent":
            # pika checks every heartbeat + 5 s whether bytes came since the last check: the
            # first check still sees the handshake's, the second (at 12 s) gives up
            yield 13
        for _ in range(self.r.randint(2, 6)):
            if not (s.conn and s.conn.is_open):
                return
            yield self.r.choice([0.2, 0.4])
            if s.usable() and self.r.random() < 0.5:
                yield from s.publish("", "pq.%s.fake" % self.tag, b"hello", None)

    def run(self):
        self.draw()
        if self.kind == "fake":
            self.script = self.fake_script
        self.note("%s/%s/%s hb=%s user=%s vhost=%s" % (self.kind, self.adapter, self.profile, self.heartbeat,
                                                      self.user, self.vhost))
        self.apply_profile()
        self.session = BlockingSession(self) if self.adapter == "blocking" else LoopSession(self, self.adapter)
        if self.fake is not None:
            self.fake.start()
        self.session.run()
        if isinstance(self.session, BlockingSession):
            self.session.end()
        s = self.session
        for what, n in (("messages returned", s.returned), ("consumers started", len(s.consumers)),
                        ("confirms acked", s.confirms.count("Ack")), ("confirms nacked", s.confirms.count("Nack"))):
            if n:
                self.st[what] = self.st.get(what, 0) + n

    def apply_profile(self):
        for name in ALL_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
        if self.profile == "quiet-io":
            for name in QUIET:
                logging.getLogger(name).setLevel(logging.INFO)
        elif self.profile == "no-callbacks":
            logging.getLogger("pika.callback").setLevel(logging.INFO)
        elif self.profile == "info":
            logging.getLogger("pika").setLevel(logging.INFO)

    def cleanup(self):
        logging.getLogger("pika").setLevel(logging.DEBUG)
        for name in ALL_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
        if self.session is not None:
            self.session.abandon()
        if self.fake is not None:
            self.fake.stop()


def r2(server_value):
    """A heartbeat function of the application: half the server's, at least 1."""
    return max(1, (server_value or 0) // 2) if server_value else 0


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
    LOG = _capture.EventLog(pika, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    STRAY = Stray()
    LOG.addFilter(STRAY)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False
    threading.excepthook = lambda args: None


def run_case(i):
    seed, env = ARGS
    cid = "pika-%05d" % i
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
        LOG.case_id = None  # what the cleanup makes pika log is not the case's
        stray1 = STRAY.n
        try:
            case.cleanup()
        except BaseException:  # noqa: BLE001
            case.count("cleanup failed")
        signal.alarm(0)
        rows, LOG._rows = LOG._rows, []
        _capture.release_ports(env["ports"])
    case.st["stray"] = stray1 - stray0
    debug("%s %d events %.2fs %s | %s" % (cid, len(rows), time.time() - t0,
                                         " ".join(k for k in case.st if not k.startswith("op ")),
                                         " ".join(case.notes[:16])))
    return i, cid, rows, case.st


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=700)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=6, help="cases run side by side, each worker a process")
    a = ap.parse_args()
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix="gen_pika_", dir=base)
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
        t_broker = time.time() - t0
        env = {"broker": broker}
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(max(1, a.jobs), initializer=init_worker, initargs=(a.seed, env),
                      maxtasksperchild=100) as pool:
            # the main process only writes: its capture listens to no logger
            log = _capture.EventLog(pika, a.out, logger_names=["pika.bench-unused"])
            try:
                for i, cid, rows, st in pool.imap(run_case, todo, chunksize=1):
                    log.write_case(cid, rows)
                    for k, v in st.items():
                        totals[k] = totals.get(k, 0) + v
            finally:
                log.finish()
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        adapters = {k[8:]: v for k, v in totals.items() if k.startswith("adapter ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; kinds %s; adapters %s; case exceptions %s; records outside any case dropped %d; "
                         "%s; broker up in %.0fs; %.0fs\n"
                         % (log.summary(), kinds, adapters, errs or "none", totals.get("stray", 0),
                            "TLS cases" if certs else "no TLS (python3-cryptography missing)", t_broker,
                            time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_pika: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        if broker is not None:
            if DEBUG and os.environ.get("GEN_BROKER_LOG"):  # debugging: the broker's own log, last lines
                try:
                    with open(os.path.join(tmp, "log", broker.node + ".log")) as fh:
                        sys.stderr.write("".join(fh.readlines()[-int(os.environ["GEN_BROKER_LOG"]):]))
                except OSError:
                    pass
            broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
