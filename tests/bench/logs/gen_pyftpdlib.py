#!/usr/bin/python3
"""Event log of pyftpdlib (Debian python3-pyftpdlib 1.5.7), an asynchronous
FTP server, each case against a server of its own running in a thread of
this process on 127.0.0.1.

    /usr/bin/python3 gen_pyftpdlib.py --out .deps/logs/pyftpdlib.csv.gz [--cases 450] [--seed 1]
    /usr/bin/python3 gen_pyftpdlib.py --repo     # prints the directory to index

Indexed: the installed ``pyftpdlib`` directory
(``/usr/lib/python3/dist-packages/pyftpdlib``; Debian ships no test suite
in it).  ``prefork.py`` and ``MultiprocessFTPServer`` are indexed, not
run: records of forked children would not reach this process.

A case is one server lifetime.  The case draws the logger's level (DEBUG,
which makes every command and reply logged line by line, or INFO, where
pyftpdlib logs a summary of selected commands instead), the server class
(``FTPServer`` or ``ThreadedFTPServer``, a thread per connection), the
poller (select, poll, epoll), the handler (``FTPHandler``, or
``TLS_FTPHandler`` with a throw-away certificate when ``openssl`` is there,
TLS sometimes required on the control or the data channel), the data
channel handler (plain, ``ThrottledDTPHandler`` with random limits, TLS),
and the handler's options: banner (short, long or default), the log
prefix (``log_prefix``, a %-format over the handler's attributes),
``max_login_attempts``, the delay after a failed login, the idle, data
and passive-channel timeouts (short in some cases, so that they fire),
passive ports (sometimes all taken, so that the kernel picks one),
a masquerade address or map, foreign addresses and privileged ports
allowed or not, ``use_sendfile``, ``use_gmt_times``, ``unicode_errors``,
``max_cons`` and ``max_cons_per_ip``.  The authorizer (pyftpdlib's
``DummyAuthorizer``) has users with full, read-only and write-only
permissions, sometimes a directory with permissions of its own and an
anonymous user, and login and quit messages.  The handler subclass made
for the case may fail in its ``on_login``, ``on_file_received`` or
``on_disconnect`` hooks, and its filesystem (a subclass of pyftpdlib's
``AbstractedFS``) may fail a listing or fill up the disk during an upload,
so that pyftpdlib's own error handling runs.  Then 1-4 client sessions,
one after another, some side by side to hit the connection limits:
``ftplib.FTP`` (UTF-8 or Latin-1) or ``ftplib.FTP_TLS`` logging in (good
and bad passwords, unknown users, anonymous), then 4-20 steps among
PWD/CWD/CDUP, LIST/NLST/MLSD/MLST, RETR/STOR/APPE/STOU with REST,
DELE, MKD/RMD, RNFR/RNTO, SITE CHMOD, SIZE/MDTM/MFMT, STAT, HELP, FEAT,
OPTS, TYPE/MODE/STRU, ABOR during a throttled transfer, passive and
active data connections (PASV, EPSV, PORT, EPRT, to closed and foreign
addresses; a passive connection from another loopback address, refused
or accepted as site-to-site; after PROT P, a data connection that does not
speak TLS), REIN, a second USER, idling until a timeout, a data
connection closed early; ended by QUIT or by closing the socket.  Or a
raw socket client sending malformed, unknown, oversized, undecodable or
out-of-order commands, a TLS handshake of garbage, or nothing at all.
The case ends by stopping the server: an exception in its loop (as a
signal would raise it), or closing it without pyftpdlib's exit handling.

Capture: ``_capture.py``'s handler on the ``pyftpdlib`` logger (which does
not propagate), whose level the case sets.  Records are attributed by
thread: the case's server thread and the connection threads its
``ThreadedFTPServer`` starts are marked with the case's id, and a record
logged in a thread of no open case, or of another case, is dropped and
counted.  Cases run one at a time; each server thread is joined before
the next case starts.  A case that logs more than 3000 records is dropped
whole and counted: pyftpdlib sometimes retries a TLS data handshake in a
busy loop until the data channel times out, logging the same debug line
thousands of times, which would outweigh every other case.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): ``log.debug`` (prefixes ``[debug] ``, appends the instance's repr,
forwards), and the handler's ``log``, ``logline`` and ``logerror``
(prefix the text with ``log_prefix % self.__dict__`` and forward to the
function handed in, or to the logger), ``log_cmd`` and ``log_transfer``
(render a standard line from their arguments and hand it to ``log``),
``log_exception`` (logs its fixed text with the instance it is given).
Their bodies do nothing but log.  ``respond`` and ``respond_w_warning``
are not wrappers: they send the reply to the client and then log it,
with the logging function their caller chose, so ``respond`` is the
emitter of every logged reply.
"""
import argparse
import errno
import ftplib
import io
import logging
import os
import random
import select
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import pyftpdlib  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(pyftpdlib.__file__)))
    sys.exit(0)

from pyftpdlib import handlers, ioloop, servers  # noqa: E402
from pyftpdlib.authorizers import DummyAuthorizer  # noqa: E402
from pyftpdlib.filesystems import AbstractedFS  # noqa: E402

WRAPPERS = {("pyftpdlib/log.py", "debug")} | {
    ("pyftpdlib/handlers.py", f)
    for f in ("log", "logline", "logerror", "log_cmd", "log_transfer", "log_exception")}

HAVE_TLS = hasattr(handlers, "TLS_FTPHandler")
PASSWORDS = {"user": "12345", "reader": "books", "writer": "quill", "hooky": "hook"}
PREFIXES = [
    (5, None),  # pyftpdlib's default: '%(remote_ip)s:%(remote_port)s-[%(username)s]'
    (1, "[%(username)s]@%(remote_ip)s"),
    (1, "ftpd %(remote_port)s"),
    (1, "%(remote_ip)s %(username)s |"),
    (1, "session=%(remote_port)s user=%(username)r"),
]
BANNERS = [(3, None), (2, "Welcome to the bench FTP service."),
           (1, "This server is for authorized use only; every transfer is logged and audited "
               "by the operations team."),
           (1, "ftp.example.internal ready")]
LOGIN_MSGS = ["Login successful.", "Welcome back.",
              "You are now logged in; please remember that quotas apply to every upload on "
              "this server and are enforced nightly."]
QUIT_MSGS = ["Goodbye.", "Bye!",
             "Thank you for using the bench FTP service; your session statistics were "
             "recorded for the monthly report."]
RAW_JUNK = [b"HELLO", b"GET / HTTP/1.1", b"XYZZY plugh", b"", b"   ", b"LIST\x00", b"\xff\xf4\xff\xf2ABOR",
            b"\xc3\x28 bad", b"RETR \xe9t\xe9.txt", b"user", b"SITE", b"SITE FOO bar", b"SITE CHMOD",
            b"SITE CHMOD 755", b"MFMT x", b"MFMT 20200101000000", b"STAT *.txt", b"PORT 1,2,3",
            b"PORT 127,0,0,1,999,1", b"EPRT |3|::1|21|", b"EPRT |1|127.0.0.1|", b"EPRT |2|::1|2100|",
            b"EPSV 3", b"EPSV 2", b"EPSV ALL", b"PASV now", b"TYPE Q", b"TYPE L 7", b"MODE Z",
            b"MODE X", b"STRU R", b"STRU Q", b"REST abc", b"REST -5", b"OPTS", b"OPTS MLST foo;",
            b"OPTS UTF8 ON", b"OPTS FOO", b"HELP BOGUS", b"HELP RETR", b"SITE HELP", b"SITE HELP NOPE",
            b"NOOP extra", b"PWD now", b"QUIT now", b"ALLO 100", b"CDUP", b"RNTO x", b"RNFR",
            b"ABOR", b"STAT", b"FEAT x", b"MLST", b"PASS nouser", b"ACCT x", b"SMNT /", b"XPWD"]
FAILURES = [RuntimeError("quota service unreachable"), KeyError("session"),
            ValueError("bad accounting record"), ZeroDivisionError("division by zero")]

# a case logging more records than this is dropped whole (see run_case)
RUNAWAY = 3000
RUNAWAYS = []

# the case whose threads may log now; records of other threads are dropped
CURRENT = {"case": None}


class CaseThreadFilter(logging.Filter):
    def __init__(self):
        super().__init__()
        self.dropped = 0

    def filter(self, record):
        case = getattr(threading.current_thread(), "ftp_case", None)
        if case is not None and case == CURRENT["case"]:
            return True
        self.dropped += 1
        return False


# ---------------------------------------------------------------------------
# the server made for a case
# ---------------------------------------------------------------------------
class FullDiskFile:
    """A file opened for an upload that fails with ENOSPC past a size."""

    def __init__(self, fobj, limit):
        self._f = fobj
        self._limit = limit
        self.name = fobj.name

    @property
    def closed(self):
        return self._f.closed

    def write(self, data):
        if self._f.tell() + len(data) > self._limit:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._f.write(data)

    def close(self):
        self._f.close()

    def seek(self, *a):
        return self._f.seek(*a)

    def tell(self):
        return self._f.tell()


def make_fs(plan):
    class CaseFS(AbstractedFS):
        def open(self, filename, mode):
            f = super().open(filename, mode)
            if plan["full_disk"] and ("w" in mode or "a" in mode):
                return FullDiskFile(f, plan["full_disk"])
            return f

        def listdir(self, path):
            if plan["fs_fail"] and os.path.basename(path.rstrip("/")) == "broken":
                raise plan["fs_fail"]
            return super().listdir(path)
    return site_names(CaseFS)


def make_handler(plan, authorizer):
    base = handlers.TLS_FTPHandler if plan["tls"] else handlers.FTPHandler
    fail = plan["hook_fail"]

    class CaseHandler(base):
        def on_login(self, username):
            if fail == "login" and username == "hooky":
                raise FAILURES[0]

        def on_file_received(self, file):
            if fail == "received" and "hook" in os.path.basename(file):
                raise FAILURES[1]

        def on_disconnect(self):
            if fail == "disconnect":
                raise FAILURES[2]

        def on_logout(self, username):
            if fail == "logout":
                raise FAILURES[3]

    h = CaseHandler
    h.authorizer = authorizer
    h.abstracted_fs = make_fs(plan)
    for k in ("banner", "log_prefix"):
        if plan[k] is not None:
            setattr(h, k, plan[k])
    for k in ("max_login_attempts", "auth_failed_timeout", "timeout", "permit_foreign_addresses",
              "permit_privileged_ports", "masquerade_address", "masquerade_address_map",
              "passive_ports", "use_gmt_times", "use_sendfile", "unicode_errors", "tcp_no_delay"):
        setattr(h, k, plan[k])
    if plan["tls"]:
        h.certfile = plan["cert"]
        h.ssl_context = None  # made again from this case's class attributes
        h.tls_control_required = plan["tls_control_required"]
        h.tls_data_required = plan["tls_data_required"]
        dtp_base = handlers.TLS_DTPHandler
    elif plan["throttle"]:
        dtp_base = handlers.ThrottledDTPHandler
    else:
        dtp_base = handlers.DTPHandler

    class CaseDTP(dtp_base):
        timeout = plan["dtp_timeout"]
    if plan["throttle"] and not plan["tls"]:
        CaseDTP.read_limit, CaseDTP.write_limit = plan["throttle"]
        CaseDTP.auto_sized_buffers = plan["auto_sized"]
    h.dtp_handler = CaseDTP

    class CasePassive(handlers.PassiveDTP):
        timeout = plan["pasv_timeout"]

    class CaseActive(handlers.ActiveDTP):
        timeout = plan["port_timeout"]
    h.passive_dtp = CasePassive
    h.active_dtp = CaseActive
    return site_names(h, CaseDTP, CasePassive, CaseActive)


def site_names(*classes):
    """Plain names for the case's classes: their reprs appear in messages."""
    for c in classes:
        c.__module__ = "ftpsite"
        c.__qualname__ = c.__name__
    return classes[0]


def make_server(plan, handler, cid):
    poller = getattr(ioloop, plan["poller"])
    if plan["threaded"]:
        class CaseServer(servers.ThreadedFTPServer):
            poll_timeout = 0.1
            refresh_interval = plan["refresh"]
            join_timeout = 1.0
            _lock = threading.Lock()
            _exit = threading.Event()

            def _start_task(self, *args, **kwargs):
                t = threading.Thread(*args, **kwargs)
                t.daemon = True
                t.ftp_case = cid  # its records belong to this case
                return t
    else:
        class CaseServer(servers.FTPServer):
            pass
    site_names(CaseServer)
    CaseServer.max_cons = plan["max_cons"]
    CaseServer.max_cons_per_ip = plan["max_cons_per_ip"]
    return CaseServer(("127.0.0.1", 0), handler, ioloop=poller(), backlog=plan["backlog"])


def run_server(server, plan, stop):
    def check():
        if stop.is_set():
            raise plan["stop_exc"]()
    server.ioloop.call_every(0.03, check)
    if plan["handle_exit"]:
        server.serve_forever(timeout=0.05)
    else:
        try:
            server.serve_forever(timeout=0.05, handle_exit=False)
        except (KeyboardInterrupt, SystemExit):
            pass
        server.close_all()


# ---------------------------------------------------------------------------
# the case's plan
# ---------------------------------------------------------------------------
def make_tree(home, r):
    os.makedirs(os.path.join(home, "docs", "old"))
    os.makedirs(os.path.join(home, "pub"))
    os.makedirs(os.path.join(home, "empty"))
    os.makedirs(os.path.join(home, "broken"))
    os.makedirs(os.path.join(home, "upload"))
    with open(os.path.join(home, "readme.txt"), "w") as fh:
        fh.write("line one\nline two\r\nline three\n" * r.randint(1, 40))
    with open(os.path.join(home, "data.bin"), "wb") as fh:
        fh.write(os.urandom(r.choice([2048, 20000, 65536, 150000])))
    for n in ("a.txt", "b.txt", "old/c.txt"):
        with open(os.path.join(home, "docs", n), "w") as fh:
            fh.write("document %s\n" % n * r.randint(1, 20))
    with open(os.path.join(home, "pub", "notice.txt"), "w") as fh:
        fh.write("public notice\n")
    with open(os.path.join(home, "caf\u00e9 menu.txt"), "w") as fh:
        fh.write("espresso\n")
    # a link out of the user's root: pyftpdlib refuses to follow it
    os.symlink(os.path.dirname(home), os.path.join(home, "escape"))


def make_plan(r, tmp, cert):
    home = os.path.join(tmp, "home")
    make_tree(home, r)
    p = {"home": home, "cert": cert}
    p["level"] = pick(r, [(6, logging.DEBUG), (4, logging.INFO)])
    p["threaded"] = r.random() < 0.25
    p["refresh"] = r.choice([0.2, 0.5, 5])
    p["poller"] = r.choice(["Select", "Poll", "Epoll", "IOLoop"])
    p["tls"] = bool(cert) and HAVE_TLS and r.random() < 0.25
    p["tls_control_required"] = p["tls"] and r.random() < 0.3
    p["tls_data_required"] = p["tls"] and r.random() < 0.3
    p["throttle"] = (None if r.random() < 0.7 else
                     (r.choice([0, 32768, 131072, 1 << 20]), r.choice([0, 32768, 131072, 1 << 20])))
    p["auto_sized"] = r.random() < 0.7
    p["banner"] = pick(r, BANNERS)
    p["log_prefix"] = pick(r, PREFIXES)
    p["max_login_attempts"] = r.choice([1, 2, 3, 3])
    p["auth_failed_timeout"] = r.choice([0, 0.01, 0.05, 0.15])
    p["timeout"] = pick(r, [(5, 300), (2, 0), (3, r.choice([0.4, 0.7, 1.0]))])
    p["dtp_timeout"] = pick(r, [(6, 300), (1, 0), (2, 0.5)])
    p["pasv_timeout"] = pick(r, [(6, 30), (1, 0), (3, r.choice([0.3, 0.6]))])
    p["port_timeout"] = pick(r, [(7, 30), (3, 0.3)])
    p["permit_foreign_addresses"] = r.random() < 0.3
    p["permit_privileged_ports"] = r.random() < 0.2
    p["masquerade_address"] = pick(r, [(6, None), (2, "10.0.0.7"), (1, "192.0.2.33")])
    p["masquerade_address_map"] = {"127.0.0.1": "203.0.113.9"} if r.random() < 0.15 else {}
    p["passive_ports"] = None
    p["hold_ports"] = 0
    if r.random() < 0.3:
        ports = [_capture.free_port() for _ in range(r.randint(1, 3))]
        p["passive_ports"] = ports
        if r.random() < 0.4:
            p["hold_ports"] = len(ports)  # all taken: the kernel picks one
    p["use_gmt_times"] = r.random() < 0.7
    p["use_sendfile"] = r.random() < 0.6
    p["tcp_no_delay"] = r.random() < 0.9
    p["unicode_errors"] = pick(r, [(6, "replace"), (2, "strict"), (1, "ignore")])
    p["max_cons"] = pick(r, [(6, 512), (2, 0), (2, r.choice([3, 4, 5]))])
    p["max_cons_per_ip"] = pick(r, [(6, 0), (2, 1), (2, 2)])
    p["backlog"] = r.choice([5, 100])
    p["hook_fail"] = pick(r, [(12, None), (1, "login"), (1, "received"), (1, "disconnect"), (1, "logout")])
    p["fs_fail"] = r.choice(FAILURES[:3] + [OSError(errno.EIO, "Input/output error")]) \
        if r.random() < 0.15 else None
    p["full_disk"] = r.choice([1024, 30000]) if r.random() < 0.12 else 0
    p["anonymous"] = r.random() < 0.5
    p["anon_write"] = p["anonymous"] and r.random() < 0.2
    p["override"] = r.random() < 0.3
    p["handle_exit"] = r.random() < 0.8
    p["stop_exc"] = r.choice([KeyboardInterrupt, SystemExit])
    return p


def make_authorizer(plan, r):
    a = DummyAuthorizer()
    home = plan["home"]
    a.add_user("user", PASSWORDS["user"], home, perm="elradfmwMT",
               msg_login=r.choice(LOGIN_MSGS), msg_quit=r.choice(QUIT_MSGS))
    a.add_user("reader", PASSWORDS["reader"], home, perm="elr")
    a.add_user("writer", PASSWORDS["writer"], os.path.join(home, "upload"), perm="elw")
    a.add_user("hooky", PASSWORDS["hooky"], home, perm="elradfmw")
    if plan["override"]:
        a.override_perm("user", os.path.join(home, "pub"), "elr", recursive=r.random() < 0.5)
    if plan["anonymous"]:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a.add_anonymous(home, perm="elrw" if plan["anon_write"] else "elr")
    return a


# ---------------------------------------------------------------------------
# clients
# ---------------------------------------------------------------------------
class SessionOver(Exception):
    pass


def unverified():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class Client:
    """One ftplib session and its random script."""

    def __init__(self, r, port, plan):
        self.r, self.port, self.plan = r, port, plan
        self.ftp = None
        self.secure = False

    def connect(self):
        r = self.r
        enc = r.choice(["utf-8"] * 4 + ["latin-1"])
        if self.plan["tls"] and r.random() < 0.75:
            self.ftp = ftplib.FTP_TLS(context=unverified(), encoding=enc, timeout=4)
            self.secure = True
        else:
            self.ftp = ftplib.FTP(encoding=enc, timeout=4)
        self.ftp.connect("127.0.0.1", self.port)
        if self.secure and r.random() < 0.85:
            self.ftp.auth()
            if r.random() < 0.7:
                self.ftp.prot_p()

    def login(self):
        r = self.r
        who = pick(r, [(6, "user"), (2, "reader"), (1, "writer"), (1, "hooky"), (2, "anonymous"),
                       (1, "nobody"), (2, "badpass")])
        if who == "badpass":
            for _ in range(r.randint(1, 3)):
                self.try_login(r.choice(["user", "reader"]), "wrong%d" % r.randint(0, 99))
            who = r.choice(["user", "reader", None])
            if who is None:
                return
        if who == "nobody":
            self.try_login("nobody", "x")
            return
        self.try_login(who, PASSWORDS.get(who, "guest@example.org"))

    def try_login(self, user, pw):
        try:
            self.ftp.login(user, pw)
        except ftplib.error_perm:
            pass

    def cmd(self, line):
        try:
            return self.ftp.sendcmd(line)
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply):
            return None

    def name(self):
        return self.r.choice(["readme.txt", "data.bin", "docs/a.txt", "missing.txt", "pub/notice.txt",
                              "caf\u00e9 menu.txt", "escape/x", "docs", "empty", "upload/new.txt"])

    def mode(self):
        r = self.r
        k = r.random()
        if k < 0.55:
            self.ftp.set_pasv(True)
        elif k < 0.85:
            self.ftp.set_pasv(False)  # PORT: the server connects to us
        else:
            self.ftp.set_pasv(True)
            self.cmd(r.choice(["EPSV", "EPSV 1", "EPSV 2"]))

    def late_reply(self, wait):
        """Reads a reply the server may or may not send (a timeout, the
        end of an aborted transfer), without timing out the client's file:
        a timed-out socket file cannot be read again."""
        if select.select([self.ftp.sock], [], [], wait)[0]:
            try:
                self.ftp.getmultiline()
            except (ftplib.Error, EOFError, OSError):
                pass

    def upload_data(self):
        r = self.r
        return io.BytesIO(os.urandom(r.choice([10, 900, 4096, 40000, 120000])))

    # --- steps -----------------------------------------------------------------
    def step_nav(self):
        r = self.r
        for line in r.sample(["PWD", "CWD docs", "CWD /", "CWD missing", "CDUP", "XPWD", "CWD ..",
                              "CWD escape", "XCWD docs/old", "XCUP", "CWD pub", "CWD readme.txt"],
                             r.randint(1, 4)):
            self.cmd(line)

    def step_list(self):
        r = self.r
        self.mode()
        what = r.choice(["LIST", "LIST -la", "NLST", "MLSD", "LIST docs", "NLST missing", "MLSD readme.txt",
                         "LIST broken", "MLSD broken", "LIST escape", "LIST *.txt"])
        out = []
        try:
            self.ftp.retrlines(what, out.append)
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply):
            pass
        if r.random() < 0.3:
            self.cmd("MLST %s" % r.choice(["readme.txt", "docs", "missing", ""]).strip())

    def step_retr(self):
        r = self.r
        self.mode()
        self.cmd(r.choice(["TYPE I", "TYPE I", "TYPE A"]))
        rest = None
        if r.random() < 0.3:
            rest = r.choice([10, 1000, 10 ** 7])
        try:
            if r.random() < 0.3:
                self.ftp.retrlines("RETR " + self.name(), lambda s: None)
            else:
                self.ftp.retrbinary("RETR " + self.name(), lambda b: None, rest=rest)
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply):
            pass

    def step_stor(self):
        r = self.r
        self.mode()
        verb = pick(r, [(5, "STOR"), (2, "APPE"), (2, "STOU")])
        target = r.choice(["upload/new.txt", "up.bin", "hook-report.txt", "docs/a.txt", "missing/x.bin",
                           "pub/u.bin", "escape/y", "caf\u00e9 copy.txt"])
        rest = 5 if r.random() < 0.15 else None
        self.cmd(r.choice(["TYPE I", "TYPE I", "TYPE A"]))
        try:
            if verb == "STOU":
                self.ftp.storbinary("STOU" + (" " + target if r.random() < 0.5 else ""), self.upload_data())
            elif r.random() < 0.2:
                self.ftp.storlines("%s %s" % (verb, target), io.BytesIO(b"alpha\nbeta\r\ngamma\n" * 50))
            else:
                self.ftp.storbinary("%s %s" % (verb, target), self.upload_data(), rest=rest)
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply):
            pass

    def step_files(self):
        r = self.r
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.2:
                self.cmd("DELE " + r.choice(["up.bin", "missing.txt", "docs/b.txt", "docs", "readme.txt"]))
            elif k < 0.4:
                d = r.choice(["newdir", "docs", "a/b/c", "pub/sub"])
                self.cmd(r.choice(["MKD ", "XMKD "]) + d)
                if r.random() < 0.5:
                    self.cmd(r.choice(["RMD ", "XRMD "]) + r.choice([d, "docs", "missing", "/"]))
            elif k < 0.6:
                self.cmd("RNFR " + r.choice(["readme.txt", "missing.txt", "docs/a.txt", "/"]))
                self.cmd("RNTO " + r.choice(["renamed.txt", "docs/moved.txt", "missing/x", "escape/z"]))
            elif k < 0.75:
                self.cmd("SITE CHMOD %s %s" % (r.choice(["755", "644", "999", "abc", "0700"]), self.name()))
            elif k < 0.9:
                self.cmd(r.choice(["SIZE ", "MDTM "]) + self.name())
            else:
                self.cmd("MFMT %s %s" % (r.choice(["20200101120000", "2020", "99999999999999"]), self.name()))

    def step_misc(self):
        r = self.r
        for line in r.sample(["NOOP", "SYST", "FEAT", "HELP", "HELP RETR", "HELP FOO", "STAT", "STAT docs",
                              "STAT *.txt", "STAT missing", "SITE HELP", "SITE HELP CHMOD", "OPTS UTF8 ON",
                              "OPTS MLST type;size;", "OPTS MLST bogus;", "ALLO 1000", "TYPE X", "MODE S",
                              "MODE Z", "STRU F", "STRU P", "REST 100", "REST x", "ABOR", "BOGUS cmd",
                              "EPSV 9", "PORT 1,2,3"], r.randint(1, 5)):
            self.cmd(line)

    def step_port(self):
        """PORT/EPRT to addresses the server refuses or cannot reach."""
        r = self.r
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        port = dead.getsockname()[1]
        dead.close()
        line = r.choice(["PORT 127,0,0,1,%d,%d" % (port // 256, port % 256),
                         "EPRT |1|127.0.0.1|%d|" % port,
                         "PORT 10,1,2,3,%d,%d" % (port // 256, port % 256),
                         "PORT 127,0,0,1,0,21", "EPRT |2|::1|%d|" % port])
        self.cmd(line)
        if r.random() < 0.7:
            try:
                self.ftp.sendcmd("RETR readme.txt")
            except ftplib.all_errors:
                pass
        self.late_reply(0.35)

    def step_pasv_idle(self):
        """PASV without connecting: the passive channel times out (or not)."""
        r = self.r
        self.cmd(r.choice(["PASV", "EPSV"]))
        t = self.plan["pasv_timeout"]
        if t and t < 1 and r.random() < 0.7:
            time.sleep(t + 0.05)  # past the passive channel's timeout
        self.late_reply(0.1)

    def step_foreign(self):
        """A passive data connection from another loopback address: refused,
        or accepted as site-to-site when foreign addresses are permitted."""
        r = self.r
        try:
            resp = self.ftp.sendcmd("PASV")
            port = ftplib.parse227(resp)[1]
        except ftplib.all_errors:
            return
        d = socket.socket()
        try:
            d.settimeout(2)
            d.bind((r.choice(["127.0.0.2", "127.0.0.3"]), 0))
            d.connect(("127.0.0.1", port))
            self.late_reply(0.15)
            if r.random() < 0.6:
                self.ftp.putcmd("NLST")
                self.late_reply(0.3)
                d.close()
                self.late_reply(0.3)
        except OSError:
            pass
        finally:
            d.close()

    def step_tls_data(self):
        """PROT P, then a data connection that does not speak TLS."""
        self.cmd("PBSZ 0")
        self.cmd("PROT P")
        try:
            port = ftplib.parse227(self.ftp.sendcmd("PASV"))[1]
        except ftplib.all_errors:
            return
        d = socket.socket()
        try:
            d.settimeout(2)
            d.connect(("127.0.0.1", port))
            self.ftp.putcmd(self.r.choice(["LIST", "RETR readme.txt"]))
            self.late_reply(0.2)
            d.sendall(b"GET / HTTP/1.0\r\n\r\n" + os.urandom(64))
            self.late_reply(0.3)
        except OSError:
            pass
        finally:
            d.close()
        self.late_reply(0.1)

    def step_abort(self):
        r = self.r
        self.mode()
        self.cmd("TYPE I")
        try:
            conn = self.ftp.transfercmd(r.choice(["RETR data.bin", "STOR aborted.bin", "LIST"]))
        except ftplib.all_errors:
            return
        try:
            if r.random() < 0.5:
                conn.recv(1024)
            else:
                conn.sendall(b"x" * 2048)
        except OSError:
            pass
        if r.random() < 0.6:
            try:
                self.ftp.abort()
            except ftplib.all_errors:
                pass
            conn.close()
        else:
            conn.close()  # closed early: the server sees a short transfer
        self.late_reply(0.5)

    def step_relogin(self):
        r = self.r
        if r.random() < 0.5:
            self.cmd("REIN")
        self.cmd("USER " + r.choice(["reader", "user", "anonymous"]))
        self.cmd("PASS " + r.choice(["books", "12345", "x", "guest@"]))

    def step_tls(self):
        r = self.r
        for line in r.sample(["PBSZ 0", "PROT P", "PROT C", "PROT S", "PROT Z", "AUTH TLS", "AUTH KERBEROS"],
                             r.randint(1, 3)):
            self.cmd(line)

    def step_idle(self):
        time.sleep(self.plan["timeout"] + 0.3)
        self.late_reply(0.3)
        raise SessionOver

    def run(self):
        r = self.r
        self.connect()
        self.login()
        steps = [(3, self.step_nav), (4, self.step_list), (4, self.step_retr), (3, self.step_stor),
                 (3, self.step_files), (2, self.step_misc), (1, self.step_port), (0.5, self.step_pasv_idle),
                 (1, self.step_abort), (1, self.step_relogin)]
        steps.append((0.5, self.step_foreign))
        if self.plan["tls"]:
            steps.append((1, self.step_tls))
            if self.secure:
                steps.append((0.5, self.step_tls_data))
        if self.plan["timeout"] and self.plan["timeout"] < 5:
            steps.append((1, self.step_idle))
        for _ in range(r.randint(4, 20)):
            step = pick(r, steps)
            try:
                step()
            except (ftplib.Error, UnicodeError, ValueError):
                pass  # a reply or a listing the client did not expect: go on
        if r.random() < 0.8:
            self.ftp.quit()
        else:
            self.ftp.close()


def raw_session(r, port, plan):
    """A hand-written client: malformed and out-of-order commands."""
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    try:
        kind = pick(r, [(1, "drop"), (6, "junk"), (1, "long"), (1, "logins"), (1, "tlsjunk")])
        if kind == "drop":  # connect and go
            if r.random() < 0.5:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            return
        read_reply(s)
        if kind == "long":
            s.sendall(b"STOR " + b"x" * r.choice([2100, 5000]) + b"\r\n")
            read_reply(s)
        elif kind == "logins":
            for _ in range(r.randint(2, 5)):
                s.sendall(b"USER user\r\nPASS nope\r\n")
                read_reply(s, wait=plan["auth_failed_timeout"] + 0.3)
        elif kind == "tlsjunk" and plan["tls"]:
            s.sendall(b"AUTH TLS\r\n")
            read_reply(s)
            s.sendall(b"\x16\x03\x01\x00\x05hello" + os.urandom(40))
            read_reply(s)
        else:
            if r.random() < 0.5:
                s.sendall(b"USER user\r\nPASS 12345\r\n")
                read_reply(s, wait=0.3)
            for line in r.sample(RAW_JUNK, r.randint(3, 12)):
                s.sendall(line + b"\r\n")
                read_reply(s)
        if r.random() < 0.5:
            s.sendall(b"QUIT\r\n")
            read_reply(s)
    except OSError:
        pass
    finally:
        s.close()


def read_reply(s, wait=0.25):
    """Reads until a final reply line arrives or the wait runs out."""
    s.settimeout(wait)
    buf = b""
    try:
        while True:
            data = s.recv(4096)
            if not data:
                return buf
            buf += data
            lines = buf.split(b"\r\n")
            if len(lines) >= 2 and len(lines[-2]) >= 4 and lines[-2][:3].isdigit() and lines[-2][3:4] == b" ":
                return buf
    except OSError:
        return buf


def run_clients(r, port, plan):
    n = pick(r, [(5, 1), (3, 2), (1, 3), (1, 4)])
    for _ in range(n):
        k = r.random()
        try:
            if k < 0.15:
                raw_session(r, port, plan)
            elif k < 0.25:
                # side by side: the connection limits refuse some
                extra = [socket.create_connection(("127.0.0.1", port), timeout=2)
                         for _ in range(r.randint(1, 4))]
                try:
                    Client(r, port, plan).run()
                finally:
                    for s in extra:
                        read_reply(s, wait=0.05)
                        s.close()
            else:
                Client(r, port, plan).run()
        except (SessionOver, EOFError, OSError, ftplib.Error, UnicodeError, ValueError):
            pass  # the session is over: closed by the server, timed out, refused  # the session is over (closed by the server, timed out, refused)
        time.sleep(0.02)


def make_cert(tmp):
    if not shutil.which("openssl"):
        return None
    cert = os.path.join(tmp, "cert.pem")
    r = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-keyout", cert, "-out", cert + ".crt"], capture_output=True)
    if r.returncode:
        return None
    with open(cert, "a") as fh, open(cert + ".crt") as c:
        fh.write(c.read())
    return cert


def run_case(log, cid, r, top, cert):
    tmp = tempfile.mkdtemp(dir=top)
    held = []
    plan = {}
    try:
        plan = make_plan(r, tmp, cert)
        for p in (plan["passive_ports"] or [])[:plan["hold_ports"]]:
            s = socket.socket()
            s.bind(("127.0.0.1", p))
            s.listen(1)
            held.append(s)
        logging.getLogger("pyftpdlib").setLevel(plan["level"])
        authorizer = make_authorizer(plan, r)
        handler = make_handler(plan, authorizer)
        CURRENT["case"] = cid
        log.case_id = cid
        server = make_server(plan, handler, cid)
        stop = threading.Event()
        t = threading.Thread(target=run_server, args=(server, plan, stop), daemon=True)
        t.ftp_case = cid
        t.start()
        try:
            run_clients(r, server.address[1], plan)
            time.sleep(0.05)
        finally:
            stop.set()
            t.join(10)
    finally:
        for s in held:
            s.close()
        _capture.release_ports(plan.get("passive_ports") or [])
        CURRENT["case"] = None
        with log._lock2:
            if len(log._rows) > RUNAWAY:
                # pyftpdlib retrying a TLS handshake in a busy loop: thousands
                # of identical lines from one case would outweigh the others
                log._rows = []
                RUNAWAYS.append(cid)
        log.end_case()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=450)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    import warnings
    warnings.simplefilter("ignore")
    top = tempfile.mkdtemp(prefix="ftpd_")
    try:
        cert = make_cert(top)
        log = _capture.EventLog(pyftpdlib, a.out, wrappers=WRAPPERS)
        flt = CaseThreadFilter()
        log.addFilter(flt)
        logging.getLogger("pyftpdlib").propagate = False
        t0 = time.time()
        for i in range(a.cases):
            cid = "ftp-%05d" % i
            # per-case stream: timing-dependent outcomes of one case do not
            # shift the choices of later cases
            run_case(log, cid, random.Random("%d-%d" % (a.seed, i)), top, cert)
        log.finish()
        print(log.summary(), "; %d records of no open case dropped, %d runaway cases dropped"
              % (flt.dropped, len(RUNAWAYS)),
              "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
