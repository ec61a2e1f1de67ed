#!/usr/bin/python3
"""Event log of kazoo (Debian python3-kazoo 2.8.0), the ZooKeeper client:
client sessions against ZooKeeper servers (Debian ``zookeeper`` 3.8.0) that
the generator starts on 127.0.0.1 for the run, against hosts that refuse,
reset, stay silent or answer garbage, and through a TCP proxy that cuts or
stalls the connection.

    /usr/bin/python3 gen_kazoo.py --out .deps/logs/kazoo.csv.gz [--cases 600] [--seed 1] [--jobs 6]
    /usr/bin/python3 gen_kazoo.py --repo     # prints the directory to index

Indexed: the installed ``kazoo`` directory
(``/usr/lib/python3/dist-packages/kazoo``), all of it: the client
(``client.py``), the connection state machine (``protocol/connection.py``),
the recipes, the three handlers (``handlers/threading.py``, which runs here;
``handlers/gevent.py`` and ``handlers/eventlet.py``, backend variants of the
same interface, indexed, never run), ``kazoo/testing`` and the test suite
kazoo ships inside the package (``kazoo/tests``, indexed, not run).

Servers: two ZooKeeper JVMs run as child processes of the generator (their
own sessions, killed by process group at exit, also on SIGTERM), each with
its config and data dir in a temp dir (on /dev/shm when writable), the
classpath of Debian's ``zookeeper.jar`` and SLF4J without a binding (so the
servers log nothing), the admin server off, and a free client port of
127.0.0.1 each:

- a standalone server (``ZooKeeperServerMain``), ``tickTime`` 500 ms, so
  sessions of 1-10 s are negotiated as asked, no limit on connections per
  address, and SASL (``SASLAuthenticationProvider``) with one DIGEST-MD5
  user in a JAAS file of its own: what nearly every case talks to;
- a read-only server: one peer (``QuorumPeerMain``, ``myid`` 1) of a
  three-peer ensemble whose other two never start, with
  ``readonlymode.enabled`` and local sessions, so it serves reads to
  clients that allow read-only mode (``read_only=True``) and never has a
  quorum. kazoo pings the first host of its list with ``isro`` while it is
  connected read-only and moves to a read-write server when it finds one.

The system service the Debian package installs is neither used nor needed:
nothing here talks to port 2181.

A case is one application's ``KazooClient`` session, drawn with its own
``random.Random``. Options: the session timeout (1.5-8 s, short ones for
the cases that stall), the connection and command retry policies (dicts or
``KazooRetry`` objects: tries, delays, backoff, deadlines), a chroot of the
case's own or a base path in the full tree, ``randomize_hosts``, digest
authentication (``auth_data`` right or wrong for the ACLs its nodes carry,
an unknown scheme, which ZooKeeper refuses), SASL DIGEST-MD5
(``sasl_options``, through ``python3-pure-sasl``, a dependency of
``python3-kazoo``) with the right or a wrong password, a ``default_acl``, its own
logger passed as ``logger=`` (``app.zk``), state listeners (one that raises),
``read_only`` with the read-only server first or alone in the host list,
and a host list whose first entries are dead: a closed port, a listener
that resets, one that stays silent, one that answers garbage (these four are
threads of the worker process). The read-write server is reached through a
proxy of the case's (a thread of the worker) that can cut every connection
or stall them (not forwarding, accepting nothing) for a while. A few cases
have only dead hosts and give up (``start()`` times out, or the connection
retry policy runs out).

Then 2-10 steps: create (ephemeral, sequence, makepath, ACLs), get, set and
exists with watches (one raises: kazoo's callback thread logs it), version
conflicts, NodeExists/NoNode/NotEmpty errors, ``ensure_path``, children
(with data, with watches), transactions that commit and that fail (a check
on a wrong version, a create that exists), async operations, ``sync``,
ACLs read and set, ``add_auth`` at run time (a right digest, an unknown
scheme that fails the session), ``server_version`` and ``command``, recipes
(Lock with contention and timeouts, Semaphore, Election, Barrier,
DoubleBarrier, Counter, Queue, LockingQueue, Party, ShallowParty,
DataWatch/ChildrenWatch with functions that raise, TreeCache,
SetPartitioner, NonBlockingLease), ``client.retry``, and the session
troubles: the connection dropped and the session expired by kazoo's own
test hooks (``client._call(_CONNECTION_DROP / _SESSION_EXPIRED, None)``, as
``kazoo.testing.harness`` does), a real expiry by a second client that
takes over the session (``client_id=``) and closes it, the proxy cutting the
connection, and the proxy stalling for less than the session timeout
(a reconnection to the same session) or longer (ZooKeeper expires it; kazoo
finds out when it reconnects); ``restart()``; a stop and a start again.
Sessions end with ``stop()`` and ``close()``, some by an unknown
authentication scheme added at run time.

Capture: kazoo logs through module loggers (``log =
logging.getLogger(__name__)``, ``logger``, ``LOG``) with %-formats and
arguments, its connection machinery through ``self.logger`` (the
``logger=`` option, ``kazoo.client`` by default), much of it at the level
``BLATHER`` (5) of ``kazoo.loggingsupport`` (``log.log(BLATHER, ...)``),
the level of a request's line chosen at run time (``BLATHER`` for pings,
``DEBUG`` otherwise), exceptions logged as their own message
(``log.exception(exc)`` in the watchers). ``_capture.py``'s handler, at
level 5, on the ``kazoo`` and ``app`` loggers (not propagating), takes
each record with its call site; the application registers the level name
``BLATHER`` (``logging.addLevelName``). kazoo has no logging helper: no
function is declared a wrapper (``code.wrapped`` is always 0). Levels:
the case's loggers at BLATHER (70% of the cases), DEBUG (20%) or INFO (10%).

Cases run ``--jobs`` at a time (6: they mostly wait), each worker a forked
process running one case after another, so every record of a process belongs
to its open case (kazoo's connection and callback threads are the case's
client's, stopped before the case ends); the rows come back to the main
process and are written in case order. Clients still running when a case
ends are stopped while no case is open, and records emitted while no case is
open are dropped and counted. Cases with fewer than 3 events are dropped.
Each case works below its own chroot or base path, so cases running side by
side never share a node.

Determinism: each case draws from ``random.Random("<seed>-<case>")``, and
the module ``random`` (kazoo's host shuffling and jitter) is seeded with the
same string. The events differ between runs where timing decides (pings
within a wait, when a stalled client notices, reconnection attempts, watch
events racing responses); messages hold ports, session ids and passwords,
zxids and sequence numbers.

Debugging: GEN_DEBUG=1 prints one line per case (events, seconds, what it
drew) and the totals; GEN_ONLY=3,17 runs only those cases.
"""
import logging
import os
import random
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import kazoo  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(kazoo.__file__)))
    sys.exit(0)

from kazoo import exceptions as kx  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402
from kazoo.loggingsupport import BLATHER  # noqa: E402
from kazoo.protocol.states import KazooState  # noqa: E402
from kazoo.retry import KazooRetry  # noqa: E402
from kazoo.security import make_acl, make_digest_acl, OPEN_ACL_UNSAFE, READ_ACL_UNSAFE  # noqa: E402

WRAPPERS = set()  # kazoo calls its loggers directly: no logging helper to see through
LOGGER_ROOTS = ["kazoo", "app"]
HOST = "127.0.0.1"
DEBUG = bool(os.environ.get("GEN_DEBUG"))
TICK_MS = 500  # sessions of 2-20 ticks: 1-10 s
DIGEST = ("app", "s3cret-42")


def debug(msg):
    if DEBUG:
        sys.stderr.write(msg + "\n")


# ---------------------------------------------------------------------------
# the ZooKeeper servers of the run
# ---------------------------------------------------------------------------
def isro(port, timeout=0.5):
    try:
        s = socket.create_connection((HOST, port), timeout)
        s.settimeout(timeout * 4)
        s.sendall(b"isro")
        r = s.recv(16)
        s.close()
        return r
    except OSError:
        return None


class ZooKeeper:
    """One ZooKeeper JVM as a child process, every file in the temp dir."""

    def __init__(self, tmp, name, read_only):
        self.dir = os.path.join(tmp, name)
        self.name = name
        self.read_only = read_only
        self.port = _capture.free_port()
        self.proc = None

    def start(self):
        java = shutil.which("java", path="/usr/bin:/bin:" + os.environ.get("PATH", ""))
        jar = "/usr/share/java/zookeeper.jar"
        if not java or not os.path.exists(jar):
            sys.exit("gen_kazoo: java or %s not found (apt-get install zookeeper)" % jar)
        d = self.dir
        os.makedirs(os.path.join(d, "data"), exist_ok=True)
        lines = ["tickTime=%d" % TICK_MS,
                 "dataDir=" + os.path.join(d, "data"),
                 "clientPort=%d" % self.port,
                 "clientPortAddress=" + HOST,
                 "maxClientCnxns=0",
                 "admin.enableServer=false",
                 "4lw.commands.whitelist=isro,ruok,srvr,stat,conf,envi",
                 "forceSync=no"]
        main = "org.apache.zookeeper.server.ZooKeeperServerMain"
        props = []
        if not self.read_only:
            # SASL DIGEST-MD5 for one user, besides the usual schemes
            jaas = os.path.join(d, "jaas.conf")
            with open(jaas, "w") as fh:
                fh.write("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
                         "  user_%s=\"%s\";\n};\n" % DIGEST)
            lines.append("authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider")
            props = ["-Djava.security.auth.login.config=" + jaas]
        if self.read_only:
            # one peer of three: it never has a quorum and serves reads only
            lines += ["initLimit=10", "syncLimit=5", "localSessionsEnabled=true"]
            for k in (1, 2, 3):
                lines.append("server.%d=%s:%d:%d" % (k, HOST, _capture.free_port(), _capture.free_port()))
            with open(os.path.join(d, "data", "myid"), "w") as fh:
                fh.write("1\n")
            main = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
            props = ["-Dreadonlymode.enabled=true"]
        cfg = os.path.join(d, "zoo.cfg")
        with open(cfg, "w") as fh:
            fh.write("# written by gen_kazoo.py for one run, removed at its end\n" + "\n".join(lines) + "\n")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "LANG": "C.UTF-8"}
        err = open(os.path.join(d, "stderr"), "w")
        self.proc = subprocess.Popen(
            [java, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + d,
             "-Dzookeeper.jmx.log4j.disable=true"] + props + ["-cp", jar, main, cfg],
            env=env, cwd=d, stdin=subprocess.DEVNULL, stdout=err, stderr=err, start_new_session=True)

    def wait(self):
        want = b"ro" if self.read_only else b"rw"
        deadline = time.time() + 90
        while time.time() < deadline and self.proc.poll() is None:
            if isro(self.port) == want:
                return
            time.sleep(0.2)
        self.stop()
        with open(os.path.join(self.dir, "stderr")) as fh:
            sys.exit("gen_kazoo: the %s ZooKeeper server did not start:\n%s" % (self.name, fh.read()[-3000:]))

    def stop(self):
        if self.proc is None:
            return
        _capture.stop_group(self.proc)
        self.proc = None


# ---------------------------------------------------------------------------
# a case's proxy to the read-write server, and the worker's dead hosts
# ---------------------------------------------------------------------------
class Proxy:
    """Forwards connections from a free port to the server; cut() closes
    them all, stall(s) neither reads, writes nor accepts for s seconds."""

    def __init__(self, target):
        self.target = target
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind((HOST, 0))
        self.ls.listen(16)
        self.port = self.ls.getsockname()[1]
        self.peer = {}
        self.stall_until = 0.0
        self.down_until = 0.0
        self.cut_flag = False
        self.done = False
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def stall(self, secs):
        with self.lock:
            self.stall_until = time.time() + secs

    def down(self, secs):
        """Accepts and closes at once for secs seconds (a server that is not up yet)."""
        with self.lock:
            self.down_until = time.time() + secs

    def cut(self):
        with self.lock:
            self.cut_flag = True

    def _close_all(self, sel):
        for s in list(self.peer):
            try:
                sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()
        self.peer.clear()

    def loop(self):
        sel = selectors.DefaultSelector()
        sel.register(self.ls, selectors.EVENT_READ)
        try:
            while not self.done:
                with self.lock:
                    cut, self.cut_flag = self.cut_flag, False
                    stalled = time.time() < self.stall_until
                if cut:
                    self._close_all(sel)
                if stalled:
                    time.sleep(0.05)
                    continue
                for key, _ in sel.select(0.1):
                    s = key.fileobj
                    if s is self.ls:
                        try:
                            c, _a = self.ls.accept()
                            if time.time() < self.down_until:
                                c.close()
                                continue
                            u = socket.create_connection((HOST, self.target), 2)
                        except OSError:
                            continue
                        self.peer[c], self.peer[u] = u, c
                        sel.register(c, selectors.EVENT_READ)
                        sel.register(u, selectors.EVENT_READ)
                        continue
                    if s not in self.peer:
                        continue
                    o = self.peer[s]
                    try:
                        data = s.recv(65536)
                        if data:
                            o.sendall(data)
                    except OSError:
                        data = b""
                    if not data:
                        for x in (s, o):
                            try:
                                sel.unregister(x)
                            except (KeyError, ValueError):
                                pass
                            x.close()
                            self.peer.pop(x, None)
        finally:
            self._close_all(sel)
            sel.close()

    def close(self):
        self.done = True
        self.t.join(2)
        self.ls.close()


class DeadHosts:
    """Listeners of the worker process that misbehave: a closed port, one
    that resets, one that stays silent, one that answers garbage."""

    def __init__(self):
        self.ports = {}
        self.held = []
        self.socks = {}
        s = socket.socket()
        s.bind((HOST, 0))
        self.ports["closed"] = s.getsockname()[1]
        self.closed_holder = s  # bound, never listening: connections are refused
        for mode in ("reset", "silent", "garbage"):
            ls = socket.socket()
            ls.bind((HOST, 0))
            ls.listen(16)
            self.ports[mode] = ls.getsockname()[1]
            self.socks[ls] = mode
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        sel = selectors.DefaultSelector()
        for ls in self.socks:
            sel.register(ls, selectors.EVENT_READ)
        while True:
            for key, _ in sel.select(1):
                mode = self.socks[key.fileobj]
                try:
                    c, _a = key.fileobj.accept()
                except OSError:
                    continue
                if mode == "reset":
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    c.close()
                elif mode == "silent":
                    self.held.append(c)
                    del self.held[:-20]
                else:
                    try:
                        c.settimeout(1)
                        c.recv(4096)
                        c.sendall(b"\x00\x00\x00\x06garb\x00!")
                    except OSError:
                        pass
                    self.held.append(c)
                    del self.held[:-20]


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Bail(Exception):
    """The session is gone: the remaining steps are skipped."""


class Case:
    def __init__(self, i, r, env):
        self.i = i
        self.r = r
        self.env = env
        self.st = {}
        self.notes = []
        self.clients = []
        self.proxy = None
        self.client = None
        self.base = "/"
        self.lock_paths = []

    def count(self, k, n=1):
        self.st[k] = self.st.get(k, 0) + n

    def note(self, s):
        self.notes.append(s)

    def path(self, *parts):
        return "/".join([self.base.rstrip("/")] + list(parts)) or "/"

    # -- options --------------------------------------------------------------------------------
    def retry_policy(self, for_connection):
        r = self.r
        if r.random() < 0.35:
            return None
        kw = {"max_tries": r.choice([-1, 1, 2, 3, 5]) if for_connection else r.choice([1, 3, 5, -1]),
              "delay": r.choice([0.05, 0.1, 0.2]), "backoff": r.choice([1, 2]),
              "max_delay": r.choice([0.5, 1, 2])}
        if r.random() < 0.3:
            kw["deadline"] = r.choice([2, 5, 10])
        if r.random() < 0.2:
            kw["max_jitter"] = r.choice([0.1, 0.4])
        return kw if r.random() < 0.5 else KazooRetry(**kw)

    def hosts(self, kind):
        r = self.r
        dead = self.env["dead"].ports
        rw = "%s:%d" % (HOST, self.proxy.port)
        ro = "%s:%d" % (HOST, self.env["ro_port"])
        if kind == "nohost":
            return ",".join("%s:%d" % (HOST, dead[m]) for m in r.sample(sorted(dead), r.randint(1, 3)))
        if kind == "ro_only":
            hs = [ro]
        elif kind == "ro_first":
            hs = [rw, ro] if r.random() < 0.5 else [ro, rw]
        else:
            hs = [rw]
        if kind == "dead_first":
            hs = ["%s:%d" % (HOST, dead[m]) for m in r.sample(sorted(dead), r.randint(1, 2))] + hs
        return ",".join(hs)

    def make_client(self, hosts, **kw):
        c = KazooClient(hosts, **kw)
        self.clients.append(c)
        return c

    # -- running ------------------------------------------------------------------------------------
    def run(self):
        r = self.r
        self.proxy = Proxy(self.env["rw_port"])
        kind = pick(r, [(60, "rw"), (15, "dead_first"), (9, "ro_first"), (5, "ro_only"), (5, "nohost"),
                        (4, "auth_fail"), (2, "sasl")])
        self.note(kind)
        self.count("kind " + kind)
        chroot = kind in ("rw", "dead_first", "auth_fail", "sasl") and r.random() < 0.5
        tag = "c%05d" % self.i
        opts = {}
        short = r.random() < 0.3
        opts["timeout"] = r.choice([1.5, 2.0, 2.5]) if short else r.choice([3.0, 4.0, 6.0, 8.0])
        cr = self.retry_policy(True)
        if cr is not None:
            opts["connection_retry"] = cr
        cmr = self.retry_policy(False)
        if cmr is not None:
            opts["command_retry"] = cmr
        opts["randomize_hosts"] = r.random() < 0.5
        if kind in ("ro_first", "ro_only") or r.random() < 0.1:
            opts["read_only"] = True
        auth = pick(r, [(70, None), (15, "right"), (15, "wrong")])
        if kind == "auth_fail":
            opts["auth_data"] = [("nosuchscheme", "who:ever")]
        elif auth:
            opts["auth_data"] = [("digest", "%s:%s" % (DIGEST[0], DIGEST[1] if auth == "right" else "guess"))]
        self.auth = auth
        if r.random() < 0.1:
            opts["default_acl"] = [make_acl("world", "anyone", all=True)]
        if r.random() < 0.2:
            opts["logger"] = logging.getLogger("app.zk")
        self.note("timeout=%s" % opts["timeout"])
        hosts = self.hosts(kind)
        self.ensured = False
        if kind in ("ro_only", "ro_first"):
            self.base = "/bench/" + tag
            if kind == "ro_first" and r.random() < 0.7:
                # the read-write server is not up yet: kazoo settles for the read-only one,
                # then finds the other with its pings
                hosts = "%s:%d,%s:%d" % (HOST, self.proxy.port, HOST, self.env["ro_port"])
                opts["randomize_hosts"] = False
                self.proxy.down(r.choice([1.0, 2.0]))
        elif chroot:
            hosts += "/bench/" + tag
            self.base = "/"
        else:
            self.base = "/bench/" + tag
        self.chroot = chroot
        if kind == "sasl":
            # the read-write server knows one SASL DIGEST-MD5 user (its JAAS file)
            opts["sasl_options"] = {"mechanism": "DIGEST-MD5", "username": DIGEST[0],
                                    "password": DIGEST[1] if r.random() < 0.6 else "guess"}
        c = self.make_client(hosts, **opts)
        self.client = c
        self.states = []
        c.add_listener(lambda s: self.states.append(s))
        if r.random() < 0.15:
            def bad_listener(state):
                raise RuntimeError("listener of case %d saw %s" % (self.i, state))
            c.add_listener(bad_listener)
        start_to = 2.5 if kind in ("nohost", "auth_fail") else r.choice([5, 8])
        try:
            c.start(timeout=start_to)
        except Exception as e:  # noqa: BLE001
            self.count("start failed " + type(e).__name__)
            self.note("start " + type(e).__name__)
            return
        self.count("started")
        if kind in ("ro_only",) or c.client_state == "CONNECTED_RO":
            self.count("connected ro")
        try:
            try:
                self.ensure_base()
            except kx.KazooException as e:
                self.count("kazoo error " + type(e).__name__)
                raise Bail()
            n = r.randint(2, 10)
            for _k in range(n):
                op = self.draw_op(kind)
                self.count("op " + op)
                self.note(op)
                try:
                    getattr(self, "op_" + op)()
                except Bail:
                    raise
                except kx.KazooException as e:
                    self.count("kazoo error " + type(e).__name__)
                except Exception as e:  # noqa: BLE001
                    self.count("error " + type(e).__name__)
                if c.state == KazooState.LOST and not self.wait_connected(3):
                    self.count("session lost")
                    break
        except Bail:
            self.count("bailed")
        finally:
            self.end()

    def end(self):
        r = self.r
        c = self.client
        if r.random() < 0.1:
            try:
                c.delete(self.base if self.base != "/" else "/", recursive=True)
            except Exception:  # noqa: BLE001
                pass
        if r.random() < 0.05:
            try:
                c.add_auth("nosuchscheme", "x:y")
            except Exception as e:  # noqa: BLE001
                self.count("late auth " + type(e).__name__)
        try:
            c.stop()
            c.close()
        except Exception as e:  # noqa: BLE001
            self.count("stop " + type(e).__name__)

    def cleanup(self):
        for c in self.clients:
            try:
                c.stop()
                c.close()
            except Exception:  # noqa: BLE001
                pass
        if self.proxy is not None:
            self.proxy.close()

    def wait_connected(self, secs):
        deadline = time.time() + secs
        while time.time() < deadline:
            if self.client.connected:
                return True
            time.sleep(0.05)
        return self.client.connected

    def ensure_base(self):
        if not self.ensured and self.client.client_state == "CONNECTED":
            self.client.ensure_path(self.base)
            self.ensured = True

    def draw_op(self, kind):
        if self.client.client_state == "CONNECTED_RO":
            return pick(self.r, [(4, "ro_reads"), (2, "ro_write"), (4, "idle"), (1, "get_missing"),
                                 (1, "sync")])
        self.ensure_base()
        return pick(self.r, [
            (10, "create"), (8, "get_set"), (4, "version_conflict"), (4, "exists_watch"), (5, "children"),
            (3, "ensure_path"), (4, "node_exists"), (4, "get_missing"), (3, "delete"), (2, "not_empty"),
            (5, "transaction"), (3, "async_ops"), (2, "sync"), (2, "acls"), (2, "auth_acl"),
            (1, "server_info"), (3, "watch_raises"),
            (4, "lock"), (2, "semaphore"), (2, "election"), (2, "barrier"), (1, "double_barrier"),
            (3, "counter"), (3, "queue"), (2, "locking_queue"), (2, "party"), (4, "datawatch"),
            (3, "childrenwatch"), (3, "treecache"), (1, "partitioner"), (1, "lease"), (2, "retry"),
            (3, "drop"), (2, "expire_hook"), (2, "expire_takeover"), (3, "cut"), (2, "stall_short"),
            (2, "stall_long"), (1, "restart"), (1, "stop_start"), (5, "idle")])

    # -- operations ---------------------------------------------------------------------------
    def name(self, kind):
        return "%s%d" % (kind, self.r.randint(0, 9999))

    def node(self, data=None):
        p = self.path(self.name("n"))
        self.client.create(p, data if data is not None else b"v0")
        return p

    def acl(self):
        if self.auth is None:
            return None
        return [make_digest_acl(DIGEST[0], DIGEST[1], all=True)]

    def op_create(self):
        r, c = self.r, self.client
        how = pick(r, [(3, "plain"), (2, "ephemeral"), (2, "sequence"), (1, "eph_seq"), (2, "makepath"),
                       (1, "include_data")])
        p = self.path(self.name("n"))
        data = r.choice([b"", b"x", b"v" * r.randint(1, 300), "t\u00e9xt".encode()])
        if how == "makepath":
            p = self.path(self.name("deep"), self.name("a"), self.name("b"))
        c.create(p, data, acl=self.acl(), ephemeral=how in ("ephemeral", "eph_seq"),
                 sequence=how in ("sequence", "eph_seq"), makepath=how == "makepath",
                 include_data=how == "include_data")

    def op_get_set(self):
        r, c = self.r, self.client
        p = self.node()
        data, stat = c.get(p, watch=(lambda ev: self.count("watch fired")) if r.random() < 0.5 else None)
        for _ in range(r.randint(1, 3)):
            stat = c.set(p, b"v%d" % r.randint(0, 99), version=stat.version if r.random() < 0.5 else -1)
        c.get(p)

    def op_version_conflict(self):
        c = self.client
        p = self.node()
        c.set(p, b"v1")
        try:
            c.set(p, b"v2", version=0)
        except kx.BadVersionError:
            self.count("bad version")
        try:
            c.delete(p, version=7)
        except kx.BadVersionError:
            self.count("bad version")

    def op_exists_watch(self):
        r, c = self.r, self.client
        p = self.path(self.name("e"))
        c.exists(p, watch=lambda ev: self.count("exists watch " + ev.type))
        c.create(p, b"")
        if r.random() < 0.5:
            c.exists(p, watch=lambda ev: None)
            c.delete(p)
        time.sleep(0.05)

    def op_children(self):
        r, c = self.r, self.client
        p = self.path(self.name("dir"))
        c.ensure_path(p)
        for k in range(r.randint(0, 4)):
            c.create("%s/k%d" % (p, k), b"c")
        c.get_children(p, watch=(lambda ev: None) if r.random() < 0.5 else None,
                       include_data=r.random() < 0.5)
        if r.random() < 0.5:
            c.create(p + "/late", b"")
            time.sleep(0.05)

    def op_ensure_path(self):
        self.client.ensure_path(self.path(self.name("ep"), self.name("x")), acl=self.acl())

    def op_node_exists(self):
        p = self.node()
        try:
            self.client.create(p, b"again")
        except kx.NodeExistsError:
            self.count("node exists")

    def op_get_missing(self):
        c = self.client
        p = self.path(self.name("missing"))
        for fn in self.r.sample([c.get, c.delete, c.get_children, lambda q: c.set(q, b"")], 2):
            try:
                fn(p)
            except kx.NoNodeError:
                self.count("no node")
        c.exists(p)

    def op_delete(self):
        r, c = self.r, self.client
        p = self.node()
        if r.random() < 0.5:
            c.create(p + "/child", b"")
            c.delete(p, recursive=True)
        else:
            c.delete(p)

    def op_not_empty(self):
        c = self.client
        p = self.node()
        c.create(p + "/child", b"")
        try:
            c.delete(p)
        except kx.NotEmptyError:
            self.count("not empty")

    def op_transaction(self):
        r, c = self.r, self.client
        p = self.node()
        how = pick(r, [(3, "ok"), (2, "bad_check"), (2, "exists"), (1, "with")])
        if how == "with":
            with c.transaction() as t:
                t.create(p + "/w", b"w")
                t.set_data(p, b"w")
            return
        t = c.transaction()
        t.create(p + "/t1", b"a")
        if how == "exists":
            t.create(p, b"dup")
        t.check(p, 5 if how == "bad_check" else 0)
        t.set_data(p, b"tx")
        if r.random() < 0.5:
            t.delete(p + "/t1")
        res = t.commit()
        self.count("tx failed" if any(isinstance(x, Exception) for x in res) else "tx ok")

    def op_async_ops(self):
        r, c = self.r, self.client
        p = self.path(self.name("as"))
        a = c.create_async(p, b"a")
        a.rawlink(lambda ar: self.count("async done"))
        a.get(timeout=5)
        g = c.get_async(p)
        g.get(timeout=5)
        m = c.get_async(self.path(self.name("nope")))
        try:
            m.get(timeout=5)
        except kx.NoNodeError:
            pass
        c.delete_async(p).get(timeout=5)
        if r.random() < 0.5:
            c.exists_async(p).get(timeout=5)

    def op_sync(self):
        self.client.sync(self.base if self.base != "/" else "/")

    def op_acls(self):
        r, c = self.r, self.client
        p = self.node()
        acls, stat = c.get_acls(p)
        c.set_acls(p, r.choice([READ_ACL_UNSAFE, OPEN_ACL_UNSAFE]))
        try:
            c.set(p, b"after acl")
        except kx.NoAuthError:
            self.count("no auth")
        try:
            c.set_acls(p, OPEN_ACL_UNSAFE, version=99)
        except (kx.BadVersionError, kx.NoAuthError):
            pass

    def op_auth_acl(self):
        r, c = self.r, self.client
        p = self.path(self.name("sec"))
        c.create(p, b"secret", acl=[make_digest_acl(DIGEST[0], DIGEST[1], all=True)])
        if self.auth is None and r.random() < 0.5:
            c.add_auth("digest", "%s:%s" % DIGEST)
            self.auth = "right"
        try:
            c.get(p)
            self.count("auth read ok")
        except kx.NoAuthError:
            self.count("no auth")

    def op_server_info(self):
        c = self.client
        if self.r.random() < 0.5:
            c.server_version()
        else:
            try:
                c.command(self.r.choice([b"ruok", b"srvr", b"dump"]))
            except Exception as e:  # noqa: BLE001
                self.count("command " + type(e).__name__)

    def op_watch_raises(self):
        c = self.client
        p = self.node()

        def boom(ev):
            raise ValueError("watch for %s cannot cope with %s" % (ev.path, ev.type))
        c.get(p, watch=boom)
        c.set(p, b"changed")
        time.sleep(0.1)

    # recipes
    def op_lock(self):
        r, c = self.r, self.client
        p = self.path(self.name("lock"))
        lk = c.Lock(p, "case-%d" % self.i)
        if lk.acquire(timeout=3):
            if r.random() < 0.6:
                other = c.Lock(p, "other")
                got = other.acquire(timeout=r.choice([0.2, 0.5]), blocking=r.random() < 0.8)
                self.count("contended " + str(got))
                if r.random() < 0.3:
                    lk.contenders()
            lk.release()
        if r.random() < 0.3:
            rl, wl = c.ReadLock(p + "rw"), c.WriteLock(p + "rw")
            with rl:
                pass
            with wl:
                pass

    def op_semaphore(self):
        c = self.client
        sem = c.Semaphore(self.path(self.name("sem")), max_leases=self.r.randint(1, 3))
        if sem.acquire(timeout=2):
            sem.lease_holders()
            sem.release()

    def op_election(self):
        c = self.client
        el = c.Election(self.path(self.name("elect")), "case-%d" % self.i)
        el.run(lambda: self.count("elected"))
        el.contenders()

    def op_barrier(self):
        r, c = self.r, self.client
        b = c.Barrier(self.path(self.name("bar")))
        b.create()
        if r.random() < 0.5:
            threading.Timer(0.2, lambda: _quiet(b.remove)).start()
            b.wait(1)
        else:
            b.wait(r.choice([0.1, 0.3]))
            b.remove()

    def op_double_barrier(self):
        c = self.client
        db = c.DoubleBarrier(self.path(self.name("dbar")), 1, identifier="case-%d" % self.i)
        db.enter()
        db.leave()

    def op_counter(self):
        r, c = self.r, self.client
        f = r.random() < 0.3
        ctr = c.Counter(self.path(self.name("ctr")), default=0.0 if f else 0)
        for _ in range(r.randint(1, 3)):
            ctr += r.randint(1, 5) * (0.5 if f else 1)
        ctr -= 1.0 if f else 1
        _ = ctr.value

    def op_queue(self):
        r, c = self.r, self.client
        q = c.Queue(self.path(self.name("q")))
        for k in range(r.randint(1, 4)):
            q.put(b"item%d" % k, priority=r.randint(0, 200))
        for _ in range(r.randint(1, 5)):
            q.get()
        len(q)

    def op_locking_queue(self):
        r, c = self.r, self.client
        q = c.LockingQueue(self.path(self.name("lq")))
        q.put_all([b"a", b"b"])
        if q.get(timeout=1) is not None:
            q.consume() if r.random() < 0.6 else q.release()
        q.holds_lock()

    def op_party(self):
        r, c = self.r, self.client
        party = (c.Party if r.random() < 0.6 else c.ShallowParty)(self.path(self.name("party")),
                                                                   "member-%d" % self.i)
        party.join()
        list(party)
        len(party)
        party.leave()

    def op_datawatch(self):
        r, c = self.r, self.client
        p = self.node()
        raises = r.random() < 0.3

        def fn(data, stat, *ev):
            self.count("datawatch")
            if raises and data is not None:
                raise KeyError("datawatch of case %d has no use for %r" % (self.i, data))
        c.DataWatch(p, fn)
        c.set(p, b"dw1")
        if r.random() < 0.5:
            c.delete(p)
        time.sleep(0.1)

    def op_childrenwatch(self):
        r, c = self.r, self.client
        p = self.node()
        raises = r.random() < 0.3

        def fn(children, *ev):
            if raises and children:
                raise LookupError("children of %s not wanted: %s" % (p, children))
        c.ChildrenWatch(p, fn, send_event=r.random() < 0.5)
        c.create(p + "/cw", b"")
        time.sleep(0.1)

    def op_treecache(self):
        r, c = self.r, self.client
        p = self.path(self.name("tree"))
        c.ensure_path(p + "/a")
        tc = c.TreeCache(p) if hasattr(c, "TreeCache") else None
        if tc is None:
            from kazoo.recipe.cache import TreeCache
            tc = TreeCache(c, p)
        raises = r.random() < 0.3

        def on_event(ev):
            if raises and ev.event_type == 1:  # NODE_UPDATED
                raise RuntimeError("tree listener of case %d chokes on %s" % (self.i, ev.event_data.path))
        tc.listen(on_event)
        fault = pick(r, [(6, None), (3, "count"), (1, "raise")])
        if fault == "count":
            tc.listen_fault(lambda e: self.count("tree fault"))
        elif fault == "raise":
            def on_fault(e):
                raise OSError("fault listener of case %d gives up" % self.i)
            tc.listen_fault(on_fault)
        tc.start()
        time.sleep(0.1)
        c.create(p + "/b", b"b")
        c.set(p + "/a", b"a2")
        time.sleep(0.1)
        tc.get_children(p)
        tc.close()

    def op_partitioner(self):
        c = self.client
        sp = c.SetPartitioner(self.path(self.name("part")), set=("a", "b", "c"), time_boundary=0.2)
        deadline = time.time() + 2
        while time.time() < deadline and not (sp.acquired or sp.failed):
            if sp.release:
                sp.release_set()
            sp.wait_for_acquire(0.5)
        if sp.acquired:
            list(sp)
        sp.finish()

    def op_lease(self):
        import datetime
        from kazoo.recipe.lease import NonBlockingLease
        c = self.client
        lease = NonBlockingLease(c, self.path(self.name("lease")), datetime.timedelta(seconds=5),
                                 identifier="case-%d" % self.i)
        bool(lease)

    def op_retry(self):
        c = self.client
        c.retry(c.ensure_path, self.path(self.name("retried")))
        kr = KazooRetry(max_tries=2, delay=0.05, ignore_expire=self.r.random() < 0.5)
        kr(c.exists, self.path("x"))

    # session troubles
    def _break(self, what):
        from kazoo.protocol.connection import _CONNECTION_DROP, _SESSION_EXPIRED
        c = self.client
        c._call(_CONNECTION_DROP if what == "drop" else _SESSION_EXPIRED, None)
        time.sleep(0.2)
        self.wait_connected(5)

    def op_drop(self):
        self._break("drop")

    def op_expire_hook(self):
        self._break("expire")

    def op_expire_takeover(self):
        c = self.client
        sid, pw = c.client_id
        other = self.make_client("%s:%d" % (HOST, self.env["rw_port"]), client_id=(sid, pw), timeout=4)
        other.start(timeout=5)
        other.stop()
        other.close()
        time.sleep(0.3)
        self.wait_connected(6)
        try:
            c.retry(c.exists, self.path())
        except kx.KazooException as e:
            self.count("after takeover " + type(e).__name__)

    def op_cut(self):
        self.proxy.cut()
        time.sleep(0.2)
        self.wait_connected(5)

    def op_stall_short(self):
        self.proxy.stall(self.client._session_timeout / 1000.0 * self.r.choice([0.3, 0.6]))
        time.sleep(0.1)
        self.client.exists(self.path())
        self.wait_connected(8)

    def op_stall_long(self):
        t = self.client._session_timeout / 1000.0
        if t > 4:
            return self.op_stall_short()
        self.proxy.stall(t * 1.6)
        time.sleep(t * 1.7)
        self.wait_connected(6)
        try:
            self.client.retry(self.client.exists, self.path())
        except kx.KazooException as e:
            self.count("after stall " + type(e).__name__)

    def op_restart(self):
        self.client.restart()
        self.wait_connected(5)

    def op_stop_start(self):
        self.client.stop()
        time.sleep(0.1)
        self.client.start(timeout=5)
        self.client.exists(self.path())

    def op_idle(self):
        time.sleep(min(4.0, self.client._session_timeout / 1000.0 * self.r.choice([0.5, 1.0])))

    # the read-only server
    def op_ro_reads(self):
        c = self.client
        if self.r.random() < 0.5:
            c.get_children("/", watch=lambda ev: None)
        c.get_children("/")
        c.exists("/zookeeper")
        c.get("/zookeeper/config") if c.exists("/zookeeper/config") else None

    def op_ro_write(self):
        try:
            self.client.create("/ro%d" % self.i, b"")
        except kx.NotReadOnlyCallError:
            self.count("not read-only call")


def _quiet(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        pass


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
LOG = None
ARGS = None
STRAY = None


def init_worker(seed, env):
    global LOG, ARGS, STRAY
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    warnings.simplefilter("ignore")
    threading.excepthook = lambda args: None
    logging.addLevelName(BLATHER, "BLATHER")
    env = dict(env, dead=DeadHosts())
    ARGS = (seed, env)
    LOG = _capture.EventLog(kazoo, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    LOG.setLevel(BLATHER)
    STRAY = _capture.StrayRecords(LOG)
    LOG.addFilter(STRAY)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False


def set_levels(level):
    for name in list(logging.Logger.manager.loggerDict):
        if name.startswith("kazoo.") or name.startswith("app."):
            logging.getLogger(name).setLevel(logging.NOTSET)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).setLevel(level)


def run_case(i):
    seed, env = ARGS
    cid = "kazoo-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    random.seed("%d-%d" % (seed, i))
    level = pick(r, [(70, BLATHER), (20, logging.DEBUG), (10, logging.INFO)])
    case = Case(i, r, env)
    case.note("level=%s" % logging.getLevelName(level))
    set_levels(level)
    LOG._rows = []
    stray0 = STRAY.n
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, _capture.on_alarm)
    signal.alarm(60)
    try:
        case.run()
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        case.count("case exceptions " + type(e).__name__)
        if DEBUG:
            import traceback
            traceback.print_exc()
    finally:
        signal.alarm(0)
        LOG.case_id = None  # what the cleanup makes kazoo log is not the case's
        stray1 = STRAY.n
        try:
            case.cleanup()
        except BaseException:  # noqa: BLE001
            case.count("cleanup failed")
        set_levels(BLATHER)
        rows, LOG._rows = LOG._rows, []
    case.st["stray"] = stray1 - stray0
    debug("%s %d events %.2fs %s | %s" % (cid, len(rows), time.time() - t0,
                                         " ".join(sorted(k for k in case.st if not k.startswith("op "))),
                                         " ".join(case.notes[:14])))
    return i, cid, rows, case.st


def main():
    a = _capture.parse_args("kazoo", "Event log of kazoo clients against ZooKeeper servers started for the run.", 600, 6)
    tmp = _capture.work_dir("kazoo")
    t0 = time.time()
    totals = {}
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    servers = []

    def on_term(signum, frame):
        raise SystemExit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        rw = ZooKeeper(tmp, "rw", read_only=False)
        ro = ZooKeeper(tmp, "ro", read_only=True)
        servers = [rw, ro]
        for s in servers:
            s.start()
        for s in servers:
            s.wait()
        t_server = time.time() - t0
        admin = KazooClient("%s:%d" % (HOST, rw.port))
        admin.start(timeout=20)
        admin.ensure_path("/bench")
        admin.stop()
        admin.close()
        env = {"rw_port": rw.port, "ro_port": ro.port, "tmp": tmp}
        log, totals = _capture.run_cases(kazoo, a.out, run_case, todo, init_worker, (a.seed, env),
                                         a.jobs)
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; kinds %s; case exceptions %s; records outside any case dropped %d; "
                         "servers up in %.1fs; %.0fs\n"
                         % (log.summary(), kinds, errs or "none", totals.get("stray", 0), t_server,
                            time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_kazoo: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
