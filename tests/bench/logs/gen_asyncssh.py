#!/usr/bin/python3
"""Event log of asyncssh (Debian python3-asyncssh), SSH client side, against
an in-process asyncssh server on 127.0.0.1.

    /usr/bin/python3 gen_asyncssh.py --out .deps/logs/asyncssh.csv.gz [--cases 1200] [--seed 1]
    /usr/bin/python3 gen_asyncssh.py --repo      # prints the directory to index

A case is one client connection (asyncssh.connect, or a get_server_host_key /
get_server_auth_methods probe): key exchange, cipher, MAC and compression
choices (defaults, a restricted server, a client insisting on an algorithm the
server lacks), known-hosts checks (none, trusted, wrong key), authentication
(password right/wrong, public keys authorized / not authorized / of a type the
server refuses, keyboard-interactive with one or two prompts, none, partial
multi-method auth, banners), then 1-5 operations: exec commands with exit
codes, stderr and stdin, shells with a PTY, subsystems (unknown / raw sftp),
SFTP (put/get/listdir/stat/remove/mkdir/rename/symlink/glob/rmtree and their
errors), SCP up/down, direct-tcpip and local port forwarding (to an echo
server, to a closed port, refused by the server), remote port forwarding
(accepted and connected to, refused), keepalives, re-keying, environment
requests; and failures: server-side disconnects (after auth or by a command),
login timeouts, connection refused, a non-SSH peer, a peer closing at once.

Only the client's records are captured.  The server runs in its own thread
with its own asyncio loop, and its records (same 'asyncssh' logger tree) are
dropped by a logging.Filter on the thread; everything else of the process
logged from inside the asyncssh package is kept.

Logging: ``asyncssh.logging.SSHLogger`` is a ``logging.LoggerAdapter``;
connections, channels, SFTP and SCP sessions hold child adapters
(``logger.get_child(context='conn=%d')``, ``...'chan=%d'``) whose ``process``
prefixes the message with the context, e.g. ``[conn=3, chan=0] Received exit
status 0``, so the activity is that rendered text.  Calls go either to
``self.logger.debug1/debug2/packet`` (asyncssh's own level methods, pure
forwarders to ``SSHLogger.log``) or to the stdlib ``info/warning/error/
exception`` of the adapter, which reach ``SSHLogger.log`` too; ``SSHLogger.log``
only renders its arguments (lists joined, (host, port) tuples, bytes) and
forwards.  All of them are wrappers: every record is attributed to the
asyncssh line that called the adapter (code.wrapped=1), walking through the
stdlib's ``LoggerAdapter`` frames.  Debug level 2 (no packet dumps).
"""
import argparse
import asyncio
import logging
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

warnings.simplefilter("ignore")  # cryptography's deprecation warnings (blowfish, cast5, ...)
import asyncssh  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":
    print(os.path.dirname(os.path.realpath(asyncssh.__file__)))
    sys.exit(0)

WRAPPERS = {
    ("asyncssh/logging.py", "log"),
    ("asyncssh/logging.py", "debug1"),
    ("asyncssh/logging.py", "debug2"),
    ("asyncssh/logging.py", "packet"),
}

USER, PASSWORD = "bench", "s3cret"
DEBUG = os.environ.get("GEN_DEBUG") == "1"


# ---------------------------------------------------------------------------
# server side (own thread, own loop)
# ---------------------------------------------------------------------------
class Behaviour:
    """What the server does for the current case (set by the driver before connecting)."""

    def __init__(self):
        self.auths = {"password", "publickey", "keyboard-interactive"}
        self.client_keys = set()
        self.two_prompts = False
        self.partial = False
        self.banner = None
        self.forward_ok = True
        self.drop_after_auth = False
        self.root = "/"
        self.none_ok = False


B = Behaviour()


class BenchServer(asyncssh.SSHServer):
    def connection_made(self, conn):
        self.conn = conn
        self.done = set()

    def begin_auth(self, username):
        if B.banner:
            self.conn.send_auth_banner(B.banner)
        return not (B.none_ok and username == USER)

    def _ok(self, method):
        if B.partial and not self.done:
            self.done.add(method)
            return False
        return True

    def auth_completed(self):
        if B.drop_after_auth:
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "maintenance, try later")

    def password_auth_supported(self):
        return "password" in B.auths

    def validate_password(self, username, password):
        if password == "expired":
            raise asyncssh.PasswordChangeRequired("password expired")
        return username == USER and password == PASSWORD and self._ok("password")

    def public_key_auth_supported(self):
        return "publickey" in B.auths

    def validate_public_key(self, username, key):
        return username == USER and key.export_public_key() in B.client_keys and self._ok("publickey")

    def kbdint_auth_supported(self):
        return "keyboard-interactive" in B.auths

    def get_kbdint_challenge(self, username, lang, submethods):
        prompts = [("Password: ", False)]
        if B.two_prompts:
            prompts.append(("Verification code: ", True))
        return "bench login", "answer the questions", "", prompts

    def validate_kbdint_response(self, username, responses):
        return bool(responses) and responses[0] == PASSWORD and self._ok("keyboard-interactive")

    def connection_requested(self, dest_host, dest_port, orig_host, orig_port):
        return B.forward_ok

    def server_requested(self, listen_host, listen_port):
        return B.forward_ok


async def handle_process(process):
    cmd = process.command
    if process.subsystem:
        process.stderr.write("unknown subsystem %s\n" % process.subsystem)
        process.exit(1)
        return
    if cmd is None:  # interactive shell
        process.stdout.write("bench$ ")
        try:
            while True:
                line = await process.stdin.readline()
                if not line or line.strip() == "exit":
                    break
                process.stdout.write("%s\nbench$ " % line.strip()[::-1])
        except asyncssh.BreakReceived:
            pass
        except asyncssh.TerminalSizeChanged:
            pass
        process.exit(0)
        return
    words = cmd.split()
    head = words[0] if words else ""
    arg = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
    if head == "echo":
        process.stdout.write(" ".join(words[1:]) + "\n")
        process.exit(0)
    elif head == "fail":
        process.stderr.write("error: command failed with %d\n" % arg)
        process.exit(arg)
    elif head == "big":
        process.stdout.write("x" * (1024 * arg))
        process.exit(0)
    elif head == "cat":
        data = await process.stdin.read()
        process.stdout.write(data)
        process.exit(0)
    elif head == "env":
        process.stdout.write("".join("%s=%s\n" % kv for kv in sorted(process.env.items())))
        process.exit(0)
    elif head == "sleep":
        await asyncio.sleep(0.05 * arg)
        process.exit(0)
    elif head == "signal":
        process.exit_with_signal("TERM", False, "terminated")
    elif head == "disconnect":
        process.channel.get_connection().disconnect(asyncssh.DISC_BY_APPLICATION, "server going down")
    else:
        process.stderr.write("%s: command not found\n" % head)
        process.exit(127)


def sftp_factory(chan):
    return asyncssh.SFTPServer(chan, chroot=B.root)


async def echo_handler(reader, writer):
    try:
        while True:
            data = await reader.read(4096)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def garbage_handler(reader, writer):
    writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    await writer.drain()
    writer.close()


async def silent_handler(reader, writer):
    writer.close()


class ServerThread(threading.Thread):
    def __init__(self, host_keys):
        super().__init__(name="ssh-server", daemon=True)
        self.host_keys = host_keys
        self.ready = threading.Event()
        self.ports = {}

    def run(self):
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.listen())
        self.ready.set()
        self.loop.run_forever()

    async def listen(self):
        common = dict(server_factory=BenchServer, server_host_keys=self.host_keys,
                      process_factory=handle_process, sftp_factory=sftp_factory, allow_scp=True,
                      config=None, agent_forwarding=False)
        self.servers = []
        s = await asyncssh.listen("127.0.0.1", 0, **common)
        self.servers.append(s)
        self.ports["default"] = s.sockets[0].getsockname()[1]
        s = await asyncssh.listen("127.0.0.1", 0, kex_algs=["ecdh-sha2-nistp256", "diffie-hellman-group14-sha256"],
                                  encryption_algs=["aes128-ctr", "aes256-cbc", "aes128-gcm@openssh.com"],
                                  mac_algs=["hmac-sha2-256", "hmac-sha1"],
                                  compression_algs=["zlib@openssh.com", "zlib", "none"],
                                  keepalive_interval=0.2, login_timeout=1.5, **common)
        self.servers.append(s)
        self.ports["restricted"] = s.sockets[0].getsockname()[1]
        for name, h in (("echo", echo_handler), ("garbage", garbage_handler), ("silent", silent_handler)):
            s = await asyncio.start_server(h, "127.0.0.1", 0)
            self.servers.append(s)
            self.ports[name] = s.sockets[0].getsockname()[1]
        sk = socket.socket()
        sk.bind(("127.0.0.1", 0))
        self.ports["closed"] = sk.getsockname()[1]
        sk.close()

    def stop(self):
        async def _stop():
            for s in self.servers:
                s.close()
        asyncio.run_coroutine_threadsafe(_stop(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.join(5)


# ---------------------------------------------------------------------------
# client side: the cases
# ---------------------------------------------------------------------------
class Gen:
    def __init__(self, srv, host_keys, ckeys, tmp):
        self.srv = srv
        self.host_keys = host_keys
        self.ckeys = ckeys  # {"ed25519": k, "ecdsa": k, "rsa": k}
        self.tmp = tmp
        self.n = 0
        self.rng = random.Random(0)

    def setup_server(self):
        r = self.rng
        B.auths = set(r.choice([("password", "publickey", "keyboard-interactive")] * 10 +
                               [("password",), ("publickey",), ("keyboard-interactive", "password"),
                                ("publickey", "password")]))
        B.client_keys = {self.ckeys[n].export_public_key() for n, p in (("ed25519", 0.9), ("ecdsa", 0.6))
                         if r.random() < p}
        B.two_prompts = r.random() < 0.3
        B.partial = r.random() < 0.06
        B.banner = r.choice([None, None, None, None, "Authorized users only.\n"])
        B.forward_ok = r.random() < 0.7
        B.drop_after_auth = r.random() < 0.02
        B.none_ok = r.random() < 0.03
        self.n += 1
        root = os.path.join(self.tmp, "sftp%d" % self.n)
        os.makedirs(os.path.join(root, "data"))
        for i in range(r.randint(0, 4)):
            with open(os.path.join(root, "data", "f%d.txt" % i), "wb") as fh:
                fh.write(os.urandom(r.choice([10, 3000, 70000])))
        B.root = root
        self.local = os.path.join(self.tmp, "local%d" % self.n)
        os.makedirs(self.local)
        with open(os.path.join(self.local, "up.bin"), "wb") as fh:
            fh.write(os.urandom(r.choice([100, 20000])))

    def conn_options(self):
        r = self.rng
        kw = dict(username=USER, known_hosts=None, config=None, agent_path=None, client_keys=None,
                  connect_timeout=3, login_timeout=3)
        port = "default"
        k = r.random()
        if k < 0.2:
            port = "restricted"
        elif k < 0.23:
            port = r.choice(["closed", "garbage", "silent"])
        # algorithm choices (all offered by both servers, except the deliberate mismatch)
        if r.random() < 0.35:
            kw["kex_algs"] = r.sample(["ecdh-sha2-nistp256", "diffie-hellman-group14-sha256"], r.randint(1, 2))
            if port == "default" and r.random() < 0.5:
                kw["kex_algs"].insert(0, r.choice(["curve25519-sha256", "ecdh-sha2-nistp384",
                                                   "curve25519-sha256@libssh.org", "diffie-hellman-group-exchange-sha256"]))
        if r.random() < 0.3:
            kw["encryption_algs"] = r.sample(["aes128-ctr", "aes128-gcm@openssh.com"], r.randint(1, 2))
            if port == "default" and r.random() < 0.5:
                kw["encryption_algs"].insert(0, r.choice(["chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com",
                                                          "aes192-ctr"]))
        if r.random() < 0.2:
            kw["mac_algs"] = r.sample(["hmac-sha2-256", "hmac-sha1"], r.randint(1, 2))
            if port == "default" and r.random() < 0.5:
                kw["mac_algs"].insert(0, r.choice(["umac-64-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
                                                   "umac-128@openssh.com"]))
        if r.random() < 0.2:
            kw["compression_algs"] = r.choice([["zlib@openssh.com"], ["none"], ["zlib", "none"], ["zlib@openssh.com", "none"]])
        if r.random() < 0.05:  # something the server does not offer
            key = r.choice(["kex_algs", "encryption_algs", "mac_algs", "compression_algs"])
            kw[key] = {"kex_algs": ["diffie-hellman-group1-sha1"], "encryption_algs": ["arcfour256"],
                       "mac_algs": ["hmac-md5-96"], "compression_algs": ["zlib"]}[key]
        if port == "restricted" and r.random() < 0.1:
            kw["compression_algs"] = ["zlib"]  # only the restricted server offers plain zlib
        # host key checks
        k = r.random()
        if k < 0.15:
            kw["known_hosts"] = ([k.convert_to_public() for k in self.host_keys], [], [])
        elif k < 0.2:
            kw["known_hosts"] = ([self.ckeys["rsa"].convert_to_public()], [], [])  # wrong key: not trusted
        if r.random() < 0.15:
            kw["server_host_key_algs"] = r.choice([["ssh-ed25519"], ["ecdsa-sha2-nistp256"], ["rsa-sha2-256"]])
        # authentication
        k = r.random()
        if k < 0.35:
            kw["password"] = PASSWORD if r.random() < 0.88 else r.choice(["wrong", "expired"])
        elif k < 0.7:
            kw["client_keys"] = r.sample(list(self.ckeys.values()), r.randint(1, 3))
            if r.random() < 0.3:
                kw["password"] = PASSWORD
        elif k < 0.85:
            answers = [PASSWORD if r.random() < 0.8 else "nope", "123456"]
            kw["kbdint_auth"] = True
            kw["password_auth"] = False
            kw["client_factory"] = make_kbdint_client(answers)
        elif k < 0.97:
            kw["username"] = r.choice([USER, USER, "root"])
            kw["password"] = r.choice([PASSWORD, "x"])
        else:
            pass  # no credentials at all: none auth only
        if r.random() < 0.3:
            kw["preferred_auth"] = r.sample(["keyboard-interactive", "password", "publickey"], r.randint(1, 3))
        # session options
        if r.random() < 0.12:
            kw["keepalive_interval"] = 0.05
            kw["keepalive_count_max"] = r.choice([1, 3])
        if r.random() < 0.1:
            kw["rekey_bytes"] = r.choice([20000, 200000])
        if r.random() < 0.05:
            kw["rekey_seconds"] = 0.1
        if r.random() < 0.05:
            kw["agent_forwarding"] = True
        if r.random() < 0.05:
            kw["env"] = {"LANG": "C", "BENCH": "1"}
        return port, kw

    # -- operations ----------------------------------------------------------
    async def op_exec(self, conn):
        r = self.rng
        cmd = r.choice(["echo hello", "echo a b c", "fail %d" % r.randint(1, 3), "big %d" % r.randint(1, 64),
                        "cat", "env", "sleep 2", "nosuchcmd", "signal"])
        kw = {}
        if cmd == "cat":
            kw["input"] = "line one\nline two\n" * r.randint(1, 50)
        if r.random() < 0.15:
            kw["term_type"] = "xterm"
        if r.random() < 0.15:
            kw["env"] = {"FOO": "bar"}
        if r.random() < 0.1:
            kw["stderr"] = asyncssh.STDOUT
        try:
            await conn.run(cmd, check=r.random() < 0.2, timeout=3, **kw)
        except asyncssh.ProcessError:
            pass

    async def op_shell(self, conn):
        r = self.rng
        proc = await conn.create_process(term_type="xterm", term_size=(80, 24))
        for c in ["ls", "pwd", "whoami"][:r.randint(0, 3)]:
            proc.stdin.write(c + "\n")
        if r.random() < 0.2:
            proc.change_terminal_size(120, 40)
        if r.random() < 0.1:
            proc.send_break(100)
        if r.random() < 0.1:
            proc.send_signal("INT")
        proc.stdin.write("exit\n")
        await asyncio.wait_for(proc.wait(check=False), 3)

    async def op_subsystem(self, conn):
        r = self.rng
        if r.random() < 0.6:
            proc = await conn.create_process(subsystem=r.choice(["netconf", "nosuch"]))
            await asyncio.wait_for(proc.wait(check=False), 3)
        else:
            chan, session = await conn.create_session(asyncssh.SSHClientSession, subsystem="sftp", encoding=None)
            chan.write_eof()
            chan.close()
            await chan.wait_closed()

    async def op_sftp(self, conn):
        r = self.rng
        async with conn.start_sftp_client() as sftp:
            for _ in range(r.randint(1, 6)):
                k = r.random()
                try:
                    if k < 0.15:
                        await sftp.listdir(r.choice(["data", ".", "nope"]))
                    elif k < 0.22:
                        await sftp.readdir("data")
                    elif k < 0.34:
                        await sftp.stat(r.choice(["data/f0.txt", "data/f1.txt", "missing.txt", "data"]))
                    elif k < 0.46:
                        await sftp.get(r.choice(["data/f0.txt", "data/f2.txt", "nope.txt"]), self.local,
                                       preserve=r.random() < 0.3)
                    elif k < 0.58:
                        await sftp.put(os.path.join(self.local, "up.bin"), r.choice(["data/up.bin", "nodir/up.bin"]))
                    elif k < 0.64:
                        async with sftp.open("data/w%d.txt" % r.randint(0, 3), r.choice(["w", "a", "x"])) as f:
                            await f.write("hello\n" * r.randint(1, 500))
                    elif k < 0.7:
                        async with sftp.open(r.choice(["data/f0.txt", "data/f3.txt"]), "rb") as f:
                            await f.read(r.choice([-1, 100]))
                    elif k < 0.76:
                        await sftp.mkdir(r.choice(["data/sub", "data", "a/b/c"]))
                    elif k < 0.8:
                        await sftp.makedirs("deep/%d/x" % r.randint(0, 3), exist_ok=r.random() < 0.5)
                    elif k < 0.85:
                        await sftp.remove(r.choice(["data/f1.txt", "nope.txt", "data"]))
                    elif k < 0.89:
                        await sftp.rename("data/f0.txt", r.choice(["data/g0.txt", "data/f1.txt"]))
                    elif k < 0.92:
                        await sftp.symlink("data/f0.txt", "link%d" % r.randint(0, 3))
                        await sftp.readlink("link0")
                    elif k < 0.95:
                        await sftp.glob(r.choice(["data/*.txt", "*/*", "nothing*"]))
                    elif k < 0.97:
                        await sftp.chmod("data/f0.txt", 0o600)
                    else:
                        await sftp.rmtree(r.choice(["data", "nope"]))
                except (asyncssh.SFTPError, OSError):
                    pass

    async def op_scp(self, conn):
        r = self.rng
        if r.random() < 0.5:
            await asyncssh.scp((conn, r.choice(["data/f0.txt", "data/*.txt", "missing"])), self.local,
                               preserve=r.random() < 0.3)
        else:
            await asyncssh.scp(os.path.join(self.local, "up.bin"), (conn, r.choice(["data/", "nodir/x"])))

    async def _talk(self, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"ping " * self.rng.randint(1, 200))
        await writer.drain()
        try:
            await asyncio.wait_for(reader.read(100), 1)
        finally:
            writer.close()

    async def op_forward(self, conn):
        r = self.rng
        echo, closed = self.srv.ports["echo"], self.srv.ports["closed"]
        k = r.random()
        if k < 0.35:
            dest = echo if r.random() < 0.8 else closed
            listener = await conn.forward_local_port("127.0.0.1", 0, "127.0.0.1", dest)
            try:
                await self._talk(listener.get_port())
                await asyncio.sleep(0.02)
            finally:
                listener.close()
                await listener.wait_closed()
        elif k < 0.65:
            reader, writer = await conn.open_connection("127.0.0.1", echo if r.random() < 0.8 else closed)
            writer.write(b"hello through the tunnel")
            await asyncio.wait_for(reader.read(100), 1)
            writer.close()
        else:
            listener = await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1",
                                                      echo if r.random() < 0.8 else closed)
            try:
                if r.random() < 0.8:
                    await self._talk(listener.get_port())
                    await asyncio.sleep(0.02)
            finally:
                listener.close()
                await listener.wait_closed()

    async def op_misc(self, conn):
        r = self.rng
        k = r.random()
        if k < 0.4:
            conn.set_keepalive(0.03, r.choice([1, 3]))
            await asyncio.sleep(0.1)
            await conn.run("echo after-keepalives", timeout=3)
        elif k < 0.7:
            await asyncio.sleep(0.15)  # keepalives, timers
        else:
            await conn.run("disconnect", timeout=3)

    async def session(self, port, kw):
        r = self.rng
        conn = await asyncssh.connect("127.0.0.1", self.srv.ports[port], **kw)
        try:
            ops = [(self.op_exec, 30), (self.op_shell, 8), (self.op_subsystem, 4), (self.op_sftp, 25),
                   (self.op_scp, 6), (self.op_forward, 14), (self.op_misc, 6)]
            fns, weights = zip(*ops)
            for _ in range(r.randint(1, 5)):
                try:
                    await asyncio.wait_for(r.choices(fns, weights)[0](conn), 5)
                except Exception as e:  # noqa: BLE001 (asyncssh errors, listen errors, timeouts)
                    if DEBUG:
                        print("op: %r" % e, file=sys.stderr)
                    if conn._transport is None:  # lost the connection
                        return
        finally:
            conn.close()
            await conn.wait_closed()

    async def probe(self, port, kw):
        r = self.rng
        if r.random() < 0.5:
            await asyncssh.get_server_host_key("127.0.0.1", self.srv.ports[port], config=None,
                                               server_host_key_algs=kw.get("server_host_key_algs", ()))
        else:
            await asyncssh.get_server_auth_methods("127.0.0.1", self.srv.ports[port], username=kw["username"],
                                                   config=None)

    async def run_case(self):
        r = self.rng
        self.setup_server()
        port, kw = self.conn_options()
        try:
            if r.random() < 0.05:
                await asyncio.wait_for(self.probe(port, kw), 8)
            else:
                await asyncio.wait_for(self.session(port, kw), 15)
        except Exception as e:  # noqa: BLE001
            if DEBUG:
                print("case: %r" % e, file=sys.stderr)
        await asyncio.sleep(0.005)  # let the connection's last callbacks run


def make_kbdint_client(answers):
    class KbdintClient(asyncssh.SSHClient):
        tries = 0

        def kbdint_auth_requested(self):
            # a client that keeps retrying would loop until the login timeout
            self.tries += 1
            return "" if self.tries <= 2 else None

        def kbdint_challenge_received(self, name, instructions, lang, prompts):
            return answers[:len(prompts)]

        def auth_banner_received(self, msg, lang):
            pass
    return KbdintClient


class NotThread(logging.Filter):
    def __init__(self, ident):
        super().__init__()
        self.ident = ident

    def filter(self, record):
        return record.thread != self.ident


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    random.seed(a.seed)
    tmp = tempfile.mkdtemp(prefix="gen_asyncssh_")
    os.environ["HOME"] = tmp  # no ~/.ssh of the machine
    srv = None
    try:
        host_keys = [asyncssh.generate_private_key("ssh-ed25519"), asyncssh.generate_private_key("ecdsa-sha2-nistp256"),
                     asyncssh.generate_private_key("ssh-rsa", 2048)]
        ckeys = {"ed25519": asyncssh.generate_private_key("ssh-ed25519"),
                 "ecdsa": asyncssh.generate_private_key("ecdsa-sha2-nistp256"),
                 "rsa": asyncssh.generate_private_key("ssh-rsa", 2048)}
        asyncssh.set_debug_level(2)
        log = _capture.EventLog(asyncssh, a.out, logger_names=["asyncssh"], wrappers=WRAPPERS,
                                skip_files=[logging.__file__])
        srv = ServerThread(host_keys)
        srv.start()
        srv.ready.wait(10)
        log.addFilter(NotThread(srv.ident))  # drop the server's records
        g = Gen(srv, host_keys, ckeys, tmp)
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        t0 = time.time()
        for i in range(a.cases):
            log.case_id = "ssh-%05d" % i
            try:
                g.rng = random.Random("%d-%d" % (a.seed, i))  # per-case stream
                loop.run_until_complete(g.run_case())
            finally:
                log.end_case()
            if i % 50 == 49:
                for d in os.listdir(tmp):
                    if d.startswith(("sftp", "local")):
                        shutil.rmtree(os.path.join(tmp, d), ignore_errors=True)
        log.finish()
        loop.close()
        print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        if srv is not None and srv.is_alive():
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
