#!/usr/bin/python3
"""Event log of paramiko (Debian python3-paramiko), SSH client side, against
an in-process paramiko SSH server on 127.0.0.1.

    /usr/bin/python3 gen_paramiko.py --out .deps/logs/paramiko.csv.gz [--cases 1500] [--seed 1]

A case is one client SSH session (SSHClient.connect or a bare Transport):
key exchange with varied algorithms (curve25519, ecdh, group14/16, group-exchange,
compression), host-key policies and known_hosts (auto-add, warning, reject,
mismatch), authentication (none, password, publickey, keyboard-interactive,
banners, partial/multi-factor, failures), then a few operations: exec with
exit codes and stderr, shells, SFTP (list, stat, get/put, read/write, rename,
mkdir, errors), port-forward and direct-tcpip requests, re-keying, and
failures (peer disconnects, algorithm mismatch, non-SSH banner).

Only the client's records are captured: the server side logs to a separate
channel ("srvside.*") outside the 'paramiko' logger tree.  paramiko logs
through small ``_log`` helpers (Transport._log, Channel._log, ...); records
from those are attributed to the calling line, code.wrapped=1.
Client and transport threads log concurrently, so interleaving is only
"deterministic-ish".
"""
import argparse
import contextlib
import io
import logging
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import paramiko  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":  # the directory to index (run.sh)
    print(os.path.dirname(os.path.realpath(paramiko.__file__)))
    sys.exit(0)
from paramiko import SFTPAttributes, SFTPHandle, SFTPServer, SFTPServerInterface  # noqa: E402
from paramiko.sftp import SFTP_OK, SFTP_FAILURE, SFTP_NO_SUCH_FILE, SFTP_PERMISSION_DENIED  # noqa: E402

WRAPPERS = {
    ("paramiko/transport.py", "_log"),
    ("paramiko/client.py", "_log"),
    ("paramiko/auth_handler.py", "_log"),
    ("paramiko/packet.py", "_log"),
    ("paramiko/channel.py", "_log"),
    ("paramiko/sftp_client.py", "_log"),
    ("paramiko/sftp.py", "_log"),
    ("paramiko/sftp_server.py", "_log"),
}

USER, PASSWORD = "bench", "s3cret"


# ---------------------------------------------------------------------------
# server side
# ---------------------------------------------------------------------------
def _errno_to_sftp(e):
    import errno
    if e.errno == errno.ENOENT:
        return SFTP_NO_SUCH_FILE
    if e.errno in (errno.EACCES, errno.EPERM):
        return SFTP_PERMISSION_DENIED
    return SFTP_FAILURE


class StubHandle(SFTPHandle):
    def stat(self):
        try:
            return SFTPAttributes.from_stat(os.fstat(self.readfile.fileno()))
        except OSError as e:
            return _errno_to_sftp(e)

    def chattr(self, attr):
        return SFTP_OK


class StubSFTP(SFTPServerInterface):
    """A small SFTP server over a per-case directory (after paramiko's test stub)."""

    ROOT = "/"

    def _path(self, p):
        return os.path.join(self.ROOT, os.path.normpath("/" + p).lstrip("/"))

    def list_folder(self, path):
        try:
            out = []
            for fn in sorted(os.listdir(self._path(path))):
                a = SFTPAttributes.from_stat(os.lstat(os.path.join(self._path(path), fn)))
                a.filename = fn
                out.append(a)
            return out
        except OSError as e:
            return _errno_to_sftp(e)

    def stat(self, path):
        try:
            return SFTPAttributes.from_stat(os.stat(self._path(path)))
        except OSError as e:
            return _errno_to_sftp(e)

    lstat = stat

    def open(self, path, flags, attr):
        p = self._path(path)
        try:
            fd = os.open(p, flags, 0o644)
        except OSError as e:
            return _errno_to_sftp(e)
        if flags & os.O_WRONLY:
            mode = "ab" if flags & os.O_APPEND else "wb"
        elif flags & os.O_RDWR:
            mode = "a+b" if flags & os.O_APPEND else "r+b"
        else:
            mode = "rb"
        try:
            f = os.fdopen(fd, mode)
        except OSError as e:
            return _errno_to_sftp(e)
        h = StubHandle(flags)
        h.filename = p
        h.readfile = f
        h.writefile = f
        return h

    def remove(self, path):
        try:
            os.remove(self._path(path))
        except OSError as e:
            return _errno_to_sftp(e)
        return SFTP_OK

    def rename(self, old, new):
        if os.path.exists(self._path(new)):
            return SFTP_FAILURE
        try:
            os.rename(self._path(old), self._path(new))
        except OSError as e:
            return _errno_to_sftp(e)
        return SFTP_OK

    def mkdir(self, path, attr):
        try:
            os.mkdir(self._path(path))
        except OSError as e:
            return _errno_to_sftp(e)
        return SFTP_OK

    def rmdir(self, path):
        try:
            os.rmdir(self._path(path))
        except OSError as e:
            return _errno_to_sftp(e)
        return SFTP_OK

    def chattr(self, path, attr):
        if not os.path.exists(self._path(path)):
            return SFTP_NO_SUCH_FILE
        return SFTP_OK

    def readlink(self, path):
        try:
            return os.readlink(self._path(path))
        except OSError as e:
            return _errno_to_sftp(e)

    def symlink(self, target, path):
        try:
            os.symlink(target, self._path(path))
        except OSError as e:
            return _errno_to_sftp(e)
        return SFTP_OK

    def canonicalize(self, path):
        return os.path.normpath("/" + path)


class Behaviour:
    """What the server does for the current case (set by the driver)."""

    def __init__(self):
        self.auths = "password,publickey"
        self.partial = False
        self.banner = None
        self.client_keys = set()
        self.forward_ok = False
        self.drop_after_auth = False
        self.sftp_root = "/"
        self.compress = False


class Server(paramiko.ServerInterface):
    def __init__(self, b):
        self.b = b
        self.done = set()

    def get_allowed_auths(self, username):
        if self.b.partial and self.done:
            return ",".join(m for m in self.b.auths.split(",") if m not in self.done) or "password"
        return self.b.auths

    def _ok(self, method):
        if self.b.partial and not self.done:
            self.done.add(method)
            return paramiko.AUTH_PARTIALLY_SUCCESSFUL
        return paramiko.AUTH_SUCCESSFUL

    def check_auth_none(self, username):
        return paramiko.AUTH_FAILED

    def check_auth_password(self, username, password):
        if "password" in self.b.auths and username == USER and password == PASSWORD:
            return self._ok("password")
        return paramiko.AUTH_FAILED

    def check_auth_publickey(self, username, key):
        if "publickey" in self.b.auths and username == USER and key.get_base64() in self.b.client_keys:
            return self._ok("publickey")
        return paramiko.AUTH_FAILED

    def check_auth_interactive(self, username, submethods):
        if "keyboard-interactive" not in self.b.auths:
            return paramiko.AUTH_FAILED
        q = paramiko.InteractiveQuery("bench", "answer the questions", ("Password: ", False))
        if random.random() < 0.5:
            q.add_prompt("OTP: ", True)
        return q

    def check_auth_interactive_response(self, responses):
        if responses and responses[0] == PASSWORD:
            return self._ok("keyboard-interactive")
        return paramiko.AUTH_FAILED

    def get_banner(self):
        return (self.b.banner, "en-US") if self.b.banner else (None, None)

    def check_channel_request(self, kind, chanid):
        if kind == "session":
            return paramiko.OPEN_SUCCEEDED
        if kind == "direct-tcpip" and self.b.forward_ok:
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_direct_tcpip_request(self, chanid, origin, destination):
        return paramiko.OPEN_SUCCEEDED if self.b.forward_ok else paramiko.OPEN_FAILED_CONNECT_FAILED

    def check_channel_pty_request(self, *a):
        return True

    def check_channel_env_request(self, channel, name, value):
        return name.startswith("LC_")

    def check_channel_shell_request(self, channel):
        threading.Thread(target=self._shell, args=(channel,), daemon=True).start()
        return True

    def check_channel_exec_request(self, channel, command):
        threading.Thread(target=self._exec, args=(channel, command.decode()), daemon=True).start()
        return True

    def check_port_forward_request(self, address, port):
        return port if self.b.forward_ok else False

    def check_global_request(self, kind, msg):
        return kind == "keepalive@bench"

    def _exec(self, ch, cmd):
        try:
            parts = cmd.split()
            if parts[0] == "echo":
                ch.sendall(" ".join(parts[1:]).encode() + b"\n")
                code = 0
            elif parts[0] == "big":
                for _ in range(int(parts[1])):
                    ch.sendall(b"x" * 1024)
                code = 0
            elif parts[0] == "fail":
                ch.sendall_stderr(b"error: something went wrong\n")
                code = int(parts[1])
            elif parts[0] == "hang":
                time.sleep(0.05)
                code = 0
            elif parts[0] == "close":
                ch.close()
                return
            else:
                ch.sendall_stderr(("sh: %s: not found\n" % parts[0]).encode())
                code = 127
            ch.send_exit_status(code)
            ch.shutdown_write()
            time.sleep(0.001)
            ch.close()
        except Exception:
            pass

    def _shell(self, ch):
        try:
            ch.sendall(b"$ ")
            buf = b""
            while True:
                d = ch.recv(1024)
                if not d:
                    break
                buf += d
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if line.strip() == b"exit":
                        ch.send_exit_status(0)
                        ch.close()
                        return
                    ch.sendall(b"ran " + line + b"\n$ ")
        except Exception:
            pass


class SSHServer:
    def __init__(self, host_keys):
        self.host_keys = host_keys
        self.b = Behaviour()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.mode = "ssh"
        self.transports = []
        self.stop = False
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.stop:
                c.close()
                return
            if self.mode == "garbage":
                try:
                    c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    time.sleep(0.01)
                    c.close()
                except OSError:
                    pass
                continue
            if self.mode == "silent-close":
                c.close()
                continue
            try:
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                t = paramiko.Transport(c)
                t.set_log_channel("srvside.transport")
                for k in self.host_keys:
                    t.add_server_key(k)
                StubSFTP.ROOT = self.b.sftp_root
                t.set_subsystem_handler("sftp", SFTPServer, StubSFTP)
                if self.b.compress:
                    t.use_compression(True)
                t.start_server(server=Server(self.b))
                self.transports.append(t)
                if self.b.drop_after_auth:
                    threading.Thread(target=self._drop, args=(t,), daemon=True).start()
            except Exception:
                pass

    def _drop(self, t):
        for _ in range(200):
            if t.is_authenticated():
                time.sleep(0.01)
                t.close()
                return
            time.sleep(0.005)

    def reap(self):
        for t in self.transports:
            try:
                t.sock.shutdown(socket.SHUT_RDWR)  # wake both ends' readers now
            except Exception:
                pass
            try:
                t.close()
            except Exception:
                pass
        self.transports = []

    def close(self):
        self.stop = True
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            pass
        self.sock.close()
        self.reap()


# ---------------------------------------------------------------------------
# client side (captured)
# ---------------------------------------------------------------------------
KEX = ["curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
       "diffie-hellman-group14-sha256", "diffie-hellman-group16-sha512",
       "diffie-hellman-group-exchange-sha256", "diffie-hellman-group14-sha1"]
CIPHERS = ["aes128-ctr", "aes256-ctr", "aes128-cbc", "aes256-cbc", "3des-cbc"]
MACS = ["hmac-sha2-256", "hmac-sha2-512", "hmac-sha1", "hmac-sha2-256-etm@openssh.com"]


class Gen:
    def __init__(self, rng, server, client_keys, host_keys, tmp):
        self.rng, self.srv, self.tmp = rng, server, tmp
        self.ckeys = client_keys
        self.hkeys = host_keys
        self.n = 0
        # key files for key_filename=: the client keys, one encrypted, one missing
        self.key_files = []
        for i, k in enumerate(client_keys):
            p = os.path.join(tmp, "id_%d" % i)
            k.write_private_key_file(p, password="pass" if i == 1 else None)
            self.key_files.append(p)
        self.key_files.append(os.path.join(tmp, "id_missing"))

    def disabled(self):
        r = self.rng
        d = {}
        k = r.random()
        if k < 0.55:
            keep = r.choice(KEX[:5] + KEX[:3])  # the expensive ones less often
            if r.random() < 0.04:
                keep = KEX[5]
            d["kex"] = [x for x in KEX if x != keep]
        elif k < 0.6:
            d["kex"] = list(KEX)  # nothing left: incompatible peer
        if r.random() < 0.5:
            keep = r.choice(CIPHERS)
            d["ciphers"] = [c for c in CIPHERS if c != keep] + ["aes128-gcm@openssh.com", "aes256-gcm@openssh.com"]
        if r.random() < 0.3:
            keep = r.choice(MACS)
            d["macs"] = [m for m in MACS if m != keep]
        if r.random() < 0.2:
            d["pubkeys"] = r.choice([["rsa-sha2-512", "rsa-sha2-256"], ["ssh-rsa"], ["ecdsa-sha2-nistp256"]])
        return d

    def setup_server(self):
        r = self.rng
        b = paramiko_server_b = self.srv.b
        b.auths = r.choice(["password,publickey", "password", "publickey", "keyboard-interactive,password",
                            "publickey,keyboard-interactive", "password,publickey,keyboard-interactive"])
        b.partial = r.random() < 0.08
        b.banner = r.choice([None, None, None, "Authorized users only.\n", "Welcome to bench host\n"])
        b.client_keys = {k.get_base64() for k in self.ckeys if r.random() < 0.7}
        b.forward_ok = r.random() < 0.4
        b.compress = r.random() < 0.5
        b.drop_after_auth = r.random() < 0.015
        self.n += 1
        root = os.path.join(self.tmp, "sftp%d" % self.n)
        os.makedirs(os.path.join(root, "data"))
        for i in range(r.randint(0, 4)):
            with open(os.path.join(root, "data", "f%d.txt" % i), "wb") as fh:
                fh.write(os.urandom(r.choice([10, 3000, 70000])))
        b.sftp_root = root
        self.srv.mode = "garbage" if r.random() < 0.02 else ("silent-close" if r.random() < 0.015 else "ssh")
        return paramiko_server_b

    def auth_kwargs(self):
        r = self.rng
        k = r.random()
        kw = {"username": USER}
        if k < 0.45:
            kw["password"] = PASSWORD if r.random() < 0.85 else "wrong"
        elif k < 0.72:
            kw["pkey"] = r.choice(self.ckeys)
            if r.random() < 0.3:
                kw["password"] = PASSWORD
        elif k < 0.85:
            kw["key_filename"] = r.sample(self.key_files, r.randint(1, len(self.key_files)))
            if r.random() < 0.3:
                kw["passphrase"] = r.choice(["pass", "wrong"])
        else:
            kw["password"] = "wrong" if r.random() < 0.5 else PASSWORD
            kw["username"] = r.choice([USER, "root"])
        return kw

    def known_hosts(self, client):
        r = self.rng
        k = r.random()
        if k < 0.5:
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        elif k < 0.7:
            client.set_missing_host_key_policy(paramiko.WarningPolicy())
        elif k < 0.8:
            client.set_missing_host_key_policy(paramiko.RejectPolicy())
        else:
            # pre-filled known_hosts: right or wrong key for this host
            hk = client.get_host_keys()
            key = r.choice(self.hkeys) if r.random() < 0.7 else self.ckeys[0]
            hk.add("[127.0.0.1]:%d" % self.srv.port, key.get_name(), key)
            client.set_missing_host_key_policy(paramiko.RejectPolicy())

    def ops(self, t, client=None):
        r = self.rng
        for _ in range(r.randint(1, 4)):
            k = r.random()
            try:
                if k < 0.35:
                    cmd = r.choice(["echo hello", "echo a b c", "big %d" % r.randint(1, 80), "fail %d" % r.randint(1, 3),
                                    "hang", "nosuchcmd", "close"])
                    ch = t.open_session(timeout=2)
                    if r.random() < 0.2:
                        ch.get_pty()
                    if r.random() < 0.2:
                        ch.update_environment({"LC_ALL": "C", "FOO": "bar"})
                    ch.settimeout(2)
                    ch.exec_command(cmd)
                    while ch.recv(32768):
                        pass
                    ch.recv_exit_status()
                    ch.close()
                elif k < 0.45:
                    ch = t.open_session(timeout=2)
                    ch.get_pty()
                    ch.invoke_shell()
                    ch.settimeout(2)
                    for c in ["ls", "pwd"][:r.randint(0, 2)]:
                        ch.sendall(c.encode() + b"\n")
                    ch.sendall(b"exit\n")
                    while ch.recv(4096):
                        pass
                    ch.close()
                elif k < 0.75:
                    self.sftp(t)
                elif k < 0.82:
                    try:
                        p = t.request_port_forward("127.0.0.1", 0)
                        t.cancel_port_forward("127.0.0.1", p)
                    except paramiko.SSHException:
                        pass
                elif k < 0.88:
                    ch = t.open_channel("direct-tcpip", ("127.0.0.1", 9), ("127.0.0.1", 5555), timeout=2)
                    ch.close()
                elif k < 0.93:
                    t.renegotiate_keys()
                elif k < 0.96:
                    t.send_ignore()
                    t.global_request(r.choice(["keepalive@bench", "nosuch@bench"]), wait=True)
                else:
                    t.set_keepalive(1)
            except Exception:
                if not t.is_active():
                    return

    def sftp(self, t):
        r = self.rng
        s = paramiko.SFTPClient.from_transport(t)
        try:
            for _ in range(r.randint(1, 6)):
                k = r.random()
                try:
                    if k < 0.2:
                        s.listdir(r.choice(["data", ".", "nope"]))
                    elif k < 0.3:
                        s.listdir_attr("data")
                    elif k < 0.45:
                        s.stat(r.choice(["data/f0.txt", "data/f1.txt", "missing.txt"]))
                    elif k < 0.6:
                        with s.open("data/f%d.txt" % r.randint(0, 2), "rb") as f:
                            if r.random() < 0.5:
                                f.prefetch()
                            f.read()
                    elif k < 0.72:
                        with s.open("data/new%d.txt" % r.randint(0, 3), r.choice(["wb", "ab", "xb"])) as f:
                            f.set_pipelined(r.random() < 0.5)
                            f.write(os.urandom(r.choice([100, 40000])))
                    elif k < 0.78:
                        s.rename("data/f0.txt", r.choice(["data/g0.txt", "data/f1.txt"]))
                    elif k < 0.84:
                        s.mkdir(r.choice(["data/sub", "data"]))
                    elif k < 0.88:
                        s.remove(r.choice(["data/f1.txt", "nope.txt"]))
                    elif k < 0.92:
                        s.chmod("data/f0.txt", 0o600)
                    elif k < 0.95:
                        s.normalize(".")
                        s.chdir(r.choice(["data", "nope"]))
                    else:
                        s.symlink("data/f0.txt", "link%d" % r.randint(0, 9))
                        s.readlink("link0")
                except (IOError, OSError):
                    pass
        finally:
            s.close()

    def case_client(self):
        r = self.rng
        c = paramiko.SSHClient()
        self.known_hosts(c)
        kw = self.auth_kwargs()
        try:
            sock = socket.create_connection(("127.0.0.1", self.srv.port), timeout=3)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            c.connect("127.0.0.1", port=self.srv.port, sock=sock, look_for_keys=False, allow_agent=False,
                      timeout=3, banner_timeout=3, auth_timeout=3, compress=r.random() < 0.15,
                      disabled_algorithms=self.disabled(), **kw)
            t = c.get_transport()
            t.clear_to_send_timeout = 2.0
            self.ops(t, c)
        except Exception:
            pass
        finally:
            self.last_t = c.get_transport()
            c.close()

    def case_transport(self):
        r = self.rng
        sock = socket.create_connection(("127.0.0.1", self.srv.port), timeout=3)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        t = paramiko.Transport(sock, disabled_algorithms=self.disabled())
        self.last_t = t
        t.clear_to_send_timeout = 2.0
        if r.random() < 0.15:
            t.use_compression(True)
        try:
            t.start_client(timeout=3)
            t.get_remote_server_key()
            if r.random() < 0.3:
                t.auth_none(USER)
        except paramiko.BadAuthenticationType:
            pass
        except Exception:
            t.close()
            return
        try:
            k = r.random()
            if k < 0.35:
                t.auth_password(USER, PASSWORD if r.random() < 0.85 else "nope")
            elif k < 0.7:
                t.auth_publickey(USER, r.choice(self.ckeys))
            else:
                t.auth_interactive(USER, lambda title, instr, prompts: [PASSWORD if r.random() < 0.8 else "x"
                                                                        for _ in prompts])
            if not t.is_authenticated() and t.is_active():
                t.auth_password(USER, PASSWORD)
            if t.is_authenticated():
                self.ops(t)
        except Exception:
            pass
        finally:
            t.close()

    def run_case(self):
        self.last_t = None
        self.setup_server()
        # keyboard-interactive fallbacks of SSHClient print prompts
        with contextlib.redirect_stdout(io.StringIO()):
            if self.rng.random() < 0.65:
                self.case_client()
            else:
                self.case_transport()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    random.seed(a.seed)
    import warnings
    warnings.simplefilter("ignore")  # WarningPolicy's unknown-host-key warnings
    tmp = tempfile.mkdtemp(prefix="gen_paramiko_")
    logging.getLogger("srvside").setLevel(logging.CRITICAL + 1)
    try:
        host_keys = [paramiko.RSAKey.generate(2048), paramiko.ECDSAKey.generate()]
        client_keys = [paramiko.RSAKey.generate(2048), paramiko.ECDSAKey.generate()]
        srv = SSHServer(host_keys)
        log = _capture.EventLog(paramiko, a.out, logger_names=["paramiko"], wrappers=WRAPPERS)
        g = Gen(rng, srv, client_keys, host_keys, tmp)
        t0 = time.time()
        for i in range(a.cases):
            log.case_id = "ssh-%05d" % i
            try:
                g.rng = random.Random("%d-%d" % (a.seed, i))  # per-case stream: timing-dependent
                # outcomes of one case do not shift the choices of later cases
                g.run_case()
            finally:
                # close the server side too, then wait for the client's transport
                # thread: its last records (EOF, shutdown) belong to this case
                srv.reap()
                if g.last_t is not None and g.last_t.is_alive():
                    g.last_t.join(2)
                log.end_case()
            if i % 50 == 49:
                for d in os.listdir(tmp):
                    if d.startswith("sftp"):
                        shutil.rmtree(os.path.join(tmp, d), ignore_errors=True)
        log.finish()
        srv.close()
        print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
