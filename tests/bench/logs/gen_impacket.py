#!/usr/bin/python3
"""Event log of impacket (Debian python3-impacket 0.10.0-4): impacket's own
SMB server (``impacket.smbserver.SimpleSMBServer``) and impacket's SMB
client (``impacket.smbconnection.SMBConnection`` over ``smb.py`` for SMB1
and ``smb3.py`` for SMB2), both in the generator, talking over 127.0.0.1.

    /usr/bin/python3 gen_impacket.py --out .deps/logs/impacket.csv.gz [--cases 450] [--seed 1] [--jobs 2]
    /usr/bin/python3 gen_impacket.py --repo     # prints the directory to index

Indexed: the installed ``impacket`` directory
(``/usr/lib/python3/dist-packages/impacket``), all of it, the ``examples``
package Debian ships inside it included (``smbclient.py``,
``secretsdump.py``, ``ntlmrelayx``...: indexed, never run here).

A case is one server lifetime with one client application on it, drawn
with its own ``random.Random``. The server is a ``SimpleSMBServer`` made
for the case on a free port of 127.0.0.1 (``SMBSERVER``, a threading TCP
server, a thread per connection, plus the two DCE/RPC servers it starts
for the ``srvsvc`` and ``wkssvc`` named pipes, each a thread listening on a
port of 127.0.0.1 of its own), with its options drawn: SMB2 support on
(about 75%) or off, anonymous logons allowed or refused, a server
challenge of the case's, a JtR dump path (a file, or a directory that does
not exist, so that writing the hashes fails), users added with a password
(``addCredential`` with the LM/NT hashes of it) or from a credentials
file, and shares: ``DATA`` (a tree of files and directories in the case's
temp dir), ``PUB`` (read only as configured; impacket does not enforce
it), ``EMPTY``, sometimes ``GONE`` whose directory does not exist, a share
added or removed while the client works. The client connects with a
dialect drawn per case: SMB1 (``preferredDialect=SMB_DIALECT``), SMB 2.002,
SMB 2.1 or 3.0 (the server speaks 2.002 only), or the wildcard negotiation
(SMB2 when the server offers it, else SMB1); a few old clients open a
NetBIOS session first (``NETBIOS_SESSION_REQUEST``). Then:

- (about 90%) an application session: a login (the right password, the
  NT hash instead, a wrong password, an unknown user, a null session, a
  basic-security SMB1 login through ``login_standard``, a Kerberos login
  whose KDC on 127.0.0.1 does not answer, with or without a credential
  cache, or no login at all), sometimes a second attempt after a failure,
  then 2-14 steps: share listing (``listShares``: ``NetrShareEnum`` over
  ``\\srvsvc``), DCE/RPC calls over the named pipes (``NetrServerGetInfo``,
  ``NetrShareGetInfo`` of shares that exist or not, ``NetrWkstaGetInfo``
  at supported and unsupported levels, an opnum the server does not serve,
  a bind to an interface it does not serve, a pipe it does not have),
  directory listings (patterns, missing directories, paths escaping the
  share), downloads and uploads (missing files, directories, missing
  parent directories, larger files), directories made and removed (new,
  existing, missing, not empty), renames, deletes, low-level
  open/read/write/query/close, info classes and IOCTLs the server does not
  implement, SMB1 core and transaction commands (core write, read,
  deprecated ``TREE_CONNECT``, unsupported TRANS/TRANS2 subcommands),
  echoes, unknown shares, ``reconnect()``, a log-off followed by more
  requests; ended by ``logoff()`` and ``close()``, ``close()`` alone, or
  the socket cut in the middle of a transfer.
- (about 10%) a hand-written client over a raw socket: bytes that are not
  NetBIOS, a NetBIOS session request, SMB1 and SMB2 headers with unknown
  or truncated commands, requests before any session, a SMB2 packet with
  a session id nobody has.

impacket's DCE/RPC servers serve one pipe connection each in a server's
lifetime (a second open of ``\\srvsvc`` is never answered, and the client's
connection is lost at its timeout): the application keeps the pipe it
opened and makes its calls over it (``NetrServerGetInfo``, whose answer
impacket's client cannot read, last), and opens a used pipe again only
now and then. The case ends by shutting the server down (connection
threads left waiting for a client that is gone, or for a DCE/RPC answer,
are cut) and closing the DCE/RPC servers' sockets.

Capture: impacket logs through one package logger (``from impacket
import LOG``, logger ``impacket``) in most modules, ``logging.getLogger(
__name__)`` in ``smbserver.py``, and the root logger in a few modules
(``logging.debug(...)``); messages mostly %-formatted at the call
(``LOG.debug("... %s" % x)``). ``_capture.py``'s handler sits on the
``impacket`` logger (DEBUG, not propagating) and on the root logger (DEBUG),
so every site in the indexed directory is captured; records of other
packages are dropped. Both sides log into the case: the server's
connection threads, its DCE/RPC threads and the client, the case running
one at a time in its worker process; a record logged while no case is
open (a thread left from an earlier case) is dropped and counted.

Wrappers (``code.wrapped`` = 1, the emitter is the first caller outside
them): ``SMBSERVER.log(msg, level)`` in ``smbserver.py`` and
``DCERPCServer.log(msg, level)`` in ``dcerpc/v5/rpcrt.py``: each body is
one call, ``self.__log.log(level, msg)``, forwarding its caller's
pre-formatted text.
"""
import io
import logging
import os
import random
import shutil
import signal
import socket
import socketserver
import struct
import sys
import tempfile
import threading
import time
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import impacket  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(impacket.__file__)))
    sys.exit(0)

from impacket import nmb, smb, smb3, smb3structs, smbserver  # noqa: E402
from impacket.dcerpc.v5 import samr, srvs, transport, wkst  # noqa: E402
from impacket.dcerpc.v5.dtypes import NULL  # noqa: E402
from impacket.ntlm import compute_lmhash, compute_nthash  # noqa: E402
from impacket.smbconnection import SMBConnection, SessionError  # noqa: E402

WRAPPERS = {("impacket/smbserver.py", "log"), ("impacket/dcerpc/v5/rpcrt.py", "log")}
LOGGER_ROOTS = ["impacket", ""]
DEBUG = bool(os.environ.get("GEN_DEBUG"))
HOST = "127.0.0.1"

USERS = {"alice": "Wonder1and", "bob": "b0b-secret", "svc_backup": "Backup#2023", "carol": "c@rol"}
DIALECTS = {"smb1": smb.SMB_DIALECT, "smb2.002": smb3structs.SMB2_DIALECT_002,
            "smb2.1": smb3structs.SMB2_DIALECT_21, "smb3.0": smb3structs.SMB2_DIALECT_30, "wildcard": None}


def debug(msg):
    if DEBUG:
        sys.__stderr__.write(msg + "\n")


class Stop(Exception):
    """The session is over (cut, refused)."""


# ---------------------------------------------------------------------------
# the case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, i, r, tmp):
        self.i = i
        self.r = r
        self.tmp = tmp
        self.st = {}
        self.notes = []
        self.server = None
        self.thread = None
        self.conn = None
        self.socks = []
        self.ports = []
        self.pipes = {}

    def count(self, k, n=1):
        self.st[k] = self.st.get(k, 0) + n

    def note(self, s):
        self.notes.append(str(s))

    # -- the server ---------------------------------------------------------
    def make_tree(self):
        r = self.r
        data = os.path.join(self.tmp, "data")
        for d in ("docs", "docs/old", "reports", "tmp"):
            os.makedirs(os.path.join(data, d))
        for name, size in (("readme.txt", r.randint(10, 3000)), ("docs/a.txt", 400), ("docs/b.txt", 90),
                           ("docs/old/c.log", r.randint(100, 200000)), ("reports/q1.csv", 5000),
                           ("big.bin", r.choice([70000, 150000, 300000]))):
            with open(os.path.join(data, name), "wb") as fh:
                fh.write(os.urandom(size) if name.endswith(".bin") else (b"line of text\r\n" * (size // 14 + 1)))
        pub = os.path.join(self.tmp, "pub")
        os.makedirs(pub)
        with open(os.path.join(pub, "notice.txt"), "w") as fh:
            fh.write("public notice\n")
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        return data, pub, empty

    def start_server(self):
        r = self.r
        plan = {}
        data, pub, empty = self.make_tree()
        self.data_dir = data
        srv = smbserver.SimpleSMBServer(listenAddress=HOST, listenPort=0)
        self.server = srv
        inner = srv._SimpleSMBServer__server
        self.port = inner.server_address[1]
        plan["smb2"] = r.random() < 0.75
        plan["setters"] = r.random() < 0.35
        shares = [("DATA", data, "case data", "no"), ("PUB", pub, "public", "yes")]
        if r.random() < 0.5:
            shares.append(("EMPTY", empty, "nothing here", "no"))
        if r.random() < 0.15:
            shares.append(("GONE", os.path.join(self.tmp, "gone"), "its directory does not exist", "no"))
        cfg = srv._SimpleSMBServer__smbConfig
        users = [(u, 1000 + k, pw) for k, (u, pw) in enumerate(USERS.items()) if r.random() < 0.85]
        creds_file = None
        if r.random() < 0.07:
            # impacket keeps the file's hashes as hex strings: every login of a known user breaks
            creds_file = os.path.join(self.tmp, "creds")
            with open(creds_file, "w") as fh:
                for u, uid, pw in users:
                    fh.write("%s:%d:%s:%s\n" % (u, uid, compute_lmhash(pw).hex(), compute_nthash(pw).hex()))
            self.note("credsfile")
        challenge = r.choice(["1122334455667788", "0102030405060708", "deadbeefcafef00d"]) \
            if r.random() < 0.3 else None
        if plan["setters"]:
            # the application configures through SimpleSMBServer's setters, each parsing the config again
            for name, path, comment, ro in shares:
                srv.addShare(name, path, comment, readOnly=ro)
            srv.setSMB2Support(plan["smb2"])
            if challenge:
                srv.setSMBChallenge(challenge)
            if creds_file:
                srv.setCredentialsFile(creds_file)
        else:
            # or writes the configuration and has it parsed once
            for name, path, comment, ro in shares:
                cfg.add_section(name)
                cfg.set(name, "comment", comment)
                cfg.set(name, "read only", ro)
                cfg.set(name, "share type", "0")
                cfg.set(name, "path", path)
            cfg.set("global", "SMB2Support", str(plan["smb2"]))
            if challenge:
                cfg.set("global", "challenge", challenge)
            if creds_file:
                cfg.set("global", "credentials_file", creds_file)
        if not creds_file:
            for u, uid, pw in users:
                srv.addCredential(u, uid, compute_lmhash(pw), compute_nthash(pw))
        inner_srv = srv._SimpleSMBServer__server
        if r.random() < 0.25:
            cfg.set("global", "anonymous_logon", "False")
            plan["anon"] = False
        if r.random() < 0.2:
            cfg.set("global", "jtr_dump_path", r.choice([os.path.join(self.tmp, "hashes"),
                                                         os.path.join(self.tmp, "nodir", "hashes")]))
        inner_srv.setServerConfig(cfg)
        inner_srv.processConfigFile()
        rpc = srv._SimpleSMBServer__srvsServer
        rpc.setServerConfig(cfg)
        rpc.processConfigFile()
        self.plan = plan
        self.note("smb2" if plan["smb2"] else "smb1-only")
        self.accepted = []
        get_request = inner.get_request

        def remember():
            sock, addr = get_request()
            self.accepted.append(sock)
            return sock, addr
        inner.get_request = remember
        self.thread = threading.Thread(target=srv.start, daemon=True)
        self.thread.start()

    def stop_server(self):
        srv = self.server
        if srv is None:
            return
        inner = srv._SimpleSMBServer__server
        if self.thread is not None and self.thread.is_alive():
            inner.shutdown()
        socketserver.TCPServer.server_close(inner)
        # connection threads still running: first the ones waiting for a
        # DCE/RPC answer, then the ones waiting for their client
        rpcs = (srv._SimpleSMBServer__srvsServer, srv._SimpleSMBServer__wkstServer)
        threads = [t for t in list(getattr(inner, "_threads", [])) if t.is_alive()]
        for t in threads:
            t.join(0.3)
        if any(t.is_alive() for t in threads):
            # a connection whose client is gone without closing (a failed
            # negotiation leaves the client's socket open), or one waiting
            # for a DCE/RPC server that never answers: cut
            self.count("server threads cut")
            for sock in [rpc._clientSock for rpc in rpcs] + self.accepted:
                shut(sock)
            for t in threads:
                t.join(5)
                if t.is_alive():
                    self.count("server threads stuck")
        for rpc in rpcs:
            shut(rpc._clientSock)
            shut(rpc._sock)

    # -- the client ---------------------------------------------------------
    def connect(self, dialect=None):
        r = self.r
        if dialect is None:
            if self.plan["smb2"]:
                dialect = pick(r, [(30, "smb1"), (35, "smb2.002"), (25, "wildcard"), (5, "smb2.1"), (5, "smb3.0")])
            else:
                dialect = pick(r, [(55, "smb1"), (30, "wildcard"), (15, "smb2.002")])
        self.dialect = dialect
        self.note(dialect)
        self.count("dialect " + dialect)
        if dialect in ("smb1", "wildcard") and r.random() < 0.06:
            # an old client: a NetBIOS session request before the negotiation
            sess = nmb.NetBIOSTCPSession("BENCHCL", "BENCHSRV", HOST, nmb.TYPE_SERVER, self.port, 5)
            sess._request_session(nmb.TYPE_SERVER, nmb.TYPE_WORKSTATION, 5)
            low = smb.SMB("BENCHSRV", HOST, sess_port=self.port, timeout=5, session=sess)
            self.conn = SMBConnection(existingConnection=low)
            self.count("netbios session")
        else:
            self.conn = SMBConnection(HOST, HOST, sess_port=self.port, timeout=5,
                                      preferredDialect=DIALECTS[dialect])
        self.smb1 = self.conn.getDialect() == smb.SMB_DIALECT
        self.count("spoke " + ("smb1" if self.smb1 else "smb2"))

    def login(self):
        r = self.r
        user = r.choice(list(USERS))
        kind = pick(r, [(40, "password"), (10, "hash"), (12, "wrong"), (5, "unknown"), (15, "null"),
                        (5, "basic"), (4, "kerberos"), (3, "none"), (6, "domain")])
        if kind == "basic" and not self.smb1:
            kind = "password"
        self.note("login " + kind)
        self.count("login " + kind)
        c = self.conn
        try:
            if kind == "password":
                c.login(user, USERS[user])
            elif kind == "domain":
                c.login(user, USERS[user], domain=r.choice(["WORKGROUP", "CORP", "bench.local"]))
            elif kind == "hash":
                c.login(user, "", lmhash=r.choice(["", compute_lmhash(USERS[user]).hex()]),
                        nthash=compute_nthash(USERS[user]).hex())
            elif kind == "wrong":
                c.login(user, r.choice(["guess", "Password1", ""]))
            elif kind == "unknown":
                c.login(r.choice(["mallory", "admin", "guest"]), "letmein")
            elif kind == "null":
                c.login("", "")
            elif kind == "basic":
                c.getSMBServer().login_standard(user, USERS[user])
            elif kind == "kerberos":
                if r.random() < 0.5:
                    os.environ["KRB5CCNAME"] = os.path.join(self.tmp, "krb5cc_missing")
                else:
                    os.environ.pop("KRB5CCNAME", None)
                try:
                    c.kerberosLogin(user, USERS[user], domain="BENCH.LOCAL", kdcHost=HOST)
                finally:
                    os.environ.pop("KRB5CCNAME", None)
            self.count("login ok")
            return kind != "none"
        except (smb.SessionError, smb3.SessionError, Exception) as e:  # noqa: BLE001
            self.count("login failed")
            self.note("failed: %s" % type(e).__name__)
            if kind in ("wrong", "unknown", "kerberos") and r.random() < 0.6:
                try:
                    self.reopen_if_needed()
                    c = self.conn
                    c.login(user, USERS[user])
                    self.count("login retry ok")
                    return True
                except Exception:  # noqa: BLE001
                    self.count("login retry failed")
            return False

    def reopen_if_needed(self):
        """impacket's SMB2 client cannot log in twice on one connection: a new one."""
        if not self.smb1:
            self.hang_up()
            self.connect(self.dialect)

    # -- steps --------------------------------------------------------------
    def share(self):
        return pick(self.r, [(8, "DATA"), (2, "PUB"), (1, "EMPTY"), (1, "GONE"), (1, "NOPE")])

    def name(self):
        return self.r.choice(["readme.txt", "docs\\a.txt", "docs\\b.txt", "docs\\old\\c.log", "reports\\q1.csv",
                              "big.bin", "missing.txt", "docs", "nodir\\x.txt", "..\\outside.txt",
                              "new.txt", "docs\\new.txt", "notice.txt"])

    # impacket's DCE/RPC servers serve one pipe connection each in a server's
    # lifetime: a second open of the same pipe is never answered (the request
    # waits until the client's timeout, and the connection is lost). The
    # application keeps its pipe open and makes its calls over it; it opens a
    # used pipe again only now and then.
    def step_shares(self):
        r = self.r
        state = self.pipes.get("srvsvc")
        if state is None:
            self.pipes["srvsvc"] = "listShares"
            for s in self.conn.listShares():
                s["shi1_netname"]
        elif state not in ("listShares", "broken", "bad"):
            srvs.hNetrShareEnum(state, r.choice([1, 2]))
        elif r.random() < 0.1:
            self.count("pipe reopened")
            self.conn.listShares()

    def pipe(self, name, iface):
        state = self.pipes.get(name)
        if state is None:
            rpct = transport.SMBTransport(HOST, self.port, filename="\\" + name, smb_connection=self.conn)
            d = rpct.get_dce_rpc()
            d.connect()
            self.pipes[name] = "bad"
            d.bind(iface)
            self.pipes[name] = d
            return d
        if isinstance(state, str):
            return None
        return state

    def step_rpc(self):
        r = self.r
        what = pick(r, [(3, "share_info"), (4, "wksta"), (2, "share_enum"), (1, "server_info"),
                        (1, "bad_opnum"), (1, "bad_iface"), (1, "no_pipe")])
        self.count("rpc " + what)
        if what == "no_pipe":
            name = r.choice(["samr", "lsarpc", "netlogon"])
            if self.pipes.get(name) is None:
                self.pipe(name, samr.MSRPC_UUID_SAMR)
            return
        if what == "bad_iface":
            name = r.choice(["srvsvc", "wkssvc"])
            if self.pipes.get(name) is None:
                self.pipe(name, r.choice([samr.MSRPC_UUID_SAMR, wkst.MSRPC_UUID_WKST if name == "srvsvc"
                                          else srvs.MSRPC_UUID_SRVS]))
            return
        if what == "wksta":
            d = self.pipe("wkssvc", wkst.MSRPC_UUID_WKST)
            if d is not None:
                wkst.hNetrWkstaGetInfo(d, r.choice([100, 101, 102, 502]))
            return
        d = self.pipe("srvsvc", srvs.MSRPC_UUID_SRVS)
        if d is None:
            return
        if what == "server_info":
            # impacket's client cannot read the server's answer, and the pipe is lost
            self.pipes["srvsvc"] = "broken"
            srvs.hNetrServerGetInfo(d, r.choice([101, 102, 100]))
        elif what == "share_info":
            srvs.hNetrShareGetInfo(d, r.choice(["DATA", "PUB", "IPC$", "NOPE", "data"]) + "\x00", 1)
        elif what == "share_enum":
            srvs.hNetrShareEnum(d, r.choice([1, 1, 2]))
        elif what == "bad_opnum":
            r.choice([lambda: srvs.hNetrSessionEnum(d, NULL, NULL, 10),
                      lambda: srvs.hNetrRemoteTOD(d),
                      lambda: srvs.hNetrConnectionEnum(d, "DATA\x00", 1)])()

    def step_list(self):
        r = self.r
        pat = r.choice(["*", "*", "*.txt", "docs\\*", "docs\\old\\*", "missing\\*", "..\\*", "..\\..\\*",
                        "readme.txt", "nothing*", "reports\\*.csv"])
        self.conn.listPath(self.share(), pat)

    def step_get(self):
        buf = io.BytesIO()
        self.conn.getFile(self.share(), self.name(), buf.write)

    def step_put(self):
        r = self.r
        size = pick(r, [(5, 100), (3, 5000), (2, 90000), (1, 0)])
        target = r.choice(["upload.txt", "docs\\new.txt", "nodir\\up.bin", "tmp\\up.bin", "docs", "..\\escape.txt",
                           "reports\\q1.csv"])
        self.conn.putFile(self.share(), target, io.BytesIO(os.urandom(size)).read)

    def step_dirs(self):
        r = self.r
        d = r.choice(["newdir", "docs", "tmp\\sub", "nodir\\sub", "..\\up", "newdir2"])
        share = self.share()
        if r.random() < 0.7:
            self.conn.createDirectory(share, d)
        self.conn.deleteDirectory(share, r.choice([d, d, "docs", "missing", "tmp"]))

    def step_rename(self):
        r = self.r
        self.conn.rename(self.share(), r.choice(["readme.txt", "docs\\b.txt", "missing.txt", "tmp", "..\\x"]),
                         r.choice(["renamed.txt", "docs\\moved.txt", "nodir\\x.txt", "readme.txt", "..\\y.txt"]))

    def step_delete(self):
        self.conn.deleteFile(self.share(), self.r.choice(["upload.txt", "missing.txt", "docs", "docs\\a.txt",
                                                          "..\\z.txt", "tmp\\up.bin"]))

    def step_lowlevel(self):
        r = self.r
        c = self.conn
        tid = c.connectTree(self.share() if r.random() < 0.3 else "DATA")
        try:
            name = self.name() if r.random() < 0.3 else r.choice(["readme.txt", "docs\\a.txt", "big.bin", "new.txt"])
            fid = c.openFile(tid, name, desiredAccess=r.choice([
                smb3structs.FILE_READ_DATA, smb3structs.FILE_READ_DATA | smb3structs.FILE_WRITE_DATA,
                smb3structs.GENERIC_ALL]), creationOption=r.choice([0, smb3structs.FILE_NON_DIRECTORY_FILE]),
                creationDisposition=r.choice([smb3structs.FILE_OPEN, smb3structs.FILE_OPEN_IF,
                                              smb3structs.FILE_OVERWRITE_IF]))
            try:
                for _ in range(r.randint(1, 4)):
                    k = r.random()
                    try:
                        if k < 0.3:
                            c.readFile(tid, fid, r.choice([0, 10, 10 ** 6]), r.choice([None, 50, 70000]))
                        elif k < 0.5:
                            c.writeFile(tid, fid, os.urandom(r.choice([10, 3000])), r.choice([0, 5]))
                        elif k < 0.65:
                            c.queryInfo(tid, fid)
                        else:
                            self.odd_info(tid, fid)
                    except (SessionError, smb.SessionError, smb3.SessionError):
                        self.count("refused in lowlevel")
            finally:
                c.closeFile(tid, fid)
                if r.random() < 0.1:
                    c.closeFile(tid, fid)  # twice
        finally:
            c.disconnectTree(tid)

    def odd_info(self, tid, fid):
        """Info classes and requests impacket's server does not implement."""
        r = self.r
        low = self.conn.getSMBServer()
        if self.smb1:
            what = r.choice(["trans2_level", "query_info", "find_level", "query_path"])
            if what == "query_info":
                low.query_file_info(tid, fid, r.choice([smb.SMB_QUERY_FILE_ALL_INFO, 0x3F0, 0x105]))
            elif what == "query_path":
                self.trans2(tid, smb.SMB.TRANS2_QUERY_PATH_INFORMATION,
                            r.choice([smb.SMB_QUERY_FILE_BASIC_INFO, smb.SMB_QUERY_FILE_STANDARD_INFO]),
                            r.choice(["readme.txt", "missing.txt", "..\\x", "docs"]))
            elif what == "find_level":
                params = struct.pack("<HHHHL", 0x16, 10, 2, r.choice([0x3F0, 0x200, 0x103]), 0) + \
                    "*\x00".encode("utf-16le")
                low.send_trans2(tid, smb.SMB.TRANS2_FIND_FIRST2, b"\x00", params, b"")
                low.recvSMB()
            else:
                self.trans2(tid, smb.SMB.TRANS2_QUERY_PATH_INFORMATION, r.choice([0x3F0, 0x1FF]), "readme.txt")
        else:
            what = r.choice(["query_security", "set_unknown", "flush", "lock", "dir_level"])
            if what == "dir_level":
                dfid = self.conn.openFile(tid, r.choice(["", "docs"]), desiredAccess=smb3structs.FILE_READ_DATA,
                                          creationOption=smb3structs.FILE_DIRECTORY_FILE)
                try:
                    low.queryDirectory(tid, dfid, "*", informationClass=r.choice([0x3F, 0x05, 0x0C, 0x25]))
                finally:
                    self.conn.closeFile(tid, dfid)
                self.count("odd " + what)
                return
            if what == "query_security":
                low.queryInfo(tid, fid, infoType=r.choice([smb3structs.SMB2_0_INFO_SECURITY,
                                                           smb3structs.SMB2_0_INFO_QUOTA]),
                              fileInfoClass=0, additionalInformation=7)
            elif what == "set_unknown":
                low.setInfo(tid, fid, inputBlob=b"\x00" * 40, fileInfoClass=r.choice([0x2A, 0x17, 0x14]))
            elif what == "flush":
                low.flush(tid, fid)
            else:
                lock = smb3structs.SMB2_LOCK_ELEMENT()
                lock["Offset"] = 0
                lock["Length"] = 10
                lock["Flags"] = smb3structs.SMB2_LOCKFLAG_EXCLUSIVE_LOCK
                low.lock(tid, fid, [lock])
        self.count("odd " + what)

    def trans2(self, tid, sub, level, name):
        low = self.conn.getSMBServer()
        params = struct.pack("<HL", level, 0) + (name + "\x00").encode("utf-16le")
        low.send_trans2(tid, sub, b"\x00", params, b"")
        low.recvSMB()

    def step_smb1_core(self):
        """SMB1 commands of the old dialects, and transactions the server lacks."""
        r = self.r
        low = self.conn.getSMBServer()
        what = r.choice(["core_write", "core_read", "tree_connect", "trans", "trans2", "mkdir_core",
                         "rename_core", "remove_core", "rmdir_core", "open_core", "echo", "write_raw"])
        self.count("smb1 " + what)
        if what == "tree_connect":
            low.tree_connect("\\\\%s\\%s" % (HOST, self.share()))
            return
        if what == "echo":
            low.echo("ping" * r.randint(1, 5), r.randint(1, 3))
            return
        tid = self.conn.connectTree(self.share())
        try:
            if what in ("core_write", "core_read", "write_raw"):
                fid = self.conn.openFile(tid, r.choice(["readme.txt", "new.txt", "docs\\a.txt"]),
                                         creationDisposition=smb3structs.FILE_OPEN_IF)
                try:
                    if what == "core_write":
                        low.write(tid, fid, b"core data " * r.randint(1, 50), r.choice([0, 100]))
                    elif what == "write_raw":
                        low.write_raw(tid, fid, b"raw data", 0)
                    else:
                        low.read(tid, fid, 0, r.choice([10, 4000]))
                finally:
                    self.conn.closeFile(tid, fid)
            elif what == "trans":
                low.send_trans(tid, b"", r.choice(["\\PIPE\\NOTHERE\x00", "\\MAILSLOT\\BROWSE\x00"]),
                               b"\x00\x00", b"")
                low.recvSMB()
            elif what == "trans2":
                low.send_trans2(tid, r.choice([0x00, 0x0B, 0x0D]), b"\x00", b"\x00" * 12, b"")
                low.recvSMB()
            elif what == "mkdir_core":
                low.mkdir(self.share(), r.choice(["coredir", "docs", "nodir\\x", "..\\up"]))
            elif what == "rename_core":
                low.rename(self.share(), r.choice(["readme.txt", "missing", "..\\x"]),
                           r.choice(["core-renamed.txt", "nodir\\y", "..\\y"]))
            elif what == "remove_core":
                low.remove(self.share(), r.choice(["upload.txt", "missing.txt", "..\\x", "docs"]))
            elif what == "rmdir_core":
                low.rmdir(self.share(), r.choice(["tmp", "docs", "missing", "..\\x"]))
            elif what == "open_core":
                low.open(tid, r.choice(["readme.txt", "missing.txt"]), smb.SMB_O_OPEN, smb.SMB_ACCESS_READ)
        finally:
            self.conn.disconnectTree(tid)

    def step_smb2_misc(self):
        r = self.r
        low = self.conn.getSMBServer()
        what = r.choice(["snapshots", "ioctl", "echo", "oplock_break", "change_notify"])
        self.count("smb2 " + what)
        if what == "echo":
            low.echo()
            return
        tid = self.conn.connectTree(self.share())
        try:
            if what == "snapshots":
                fid = self.conn.openFile(tid, "", desiredAccess=smb3structs.FILE_READ_DATA,
                                         creationOption=smb3structs.FILE_DIRECTORY_FILE)
                try:
                    self.conn.listSnapshots(tid, "")
                finally:
                    self.conn.closeFile(tid, fid)
            elif what == "ioctl":
                low.ioctl(tid, None, r.choice([smb3structs.FSCTL_DFS_GET_REFERRALS, 0x00090078, 0x001401FC]),
                          flags=smb3structs.SMB2_0_IOCTL_IS_FSCTL, inputBlob=b"\x00" * 8)
            else:
                pkt = smb3structs.SMB2Packet()
                pkt["Command"] = (smb3structs.SMB2_OPLOCK_BREAK if what == "oplock_break"
                                  else smb3structs.SMB2_CHANGE_NOTIFY)
                pkt["TreeID"] = tid
                pkt["Data"] = b"\x18\x00" + b"\x00" * 30
                mid = low.sendSMB(pkt)
                low.recvSMB(mid)
        finally:
            self.conn.disconnectTree(tid)

    def step_create_contexts(self):
        """createFile with create contexts: refused by the client itself on SMB1."""
        tid = self.conn.connectTree("DATA")
        try:
            fid = self.conn.createFile(tid, "ctx.txt", createContexts=[b"\x00" * 16])
            self.conn.closeFile(tid, fid)
        finally:
            self.conn.disconnectTree(tid)

    def step_tree(self):
        self.conn.connectTree(self.r.choice(["NOPE", "ADMIN$", "C$", "data", "IPC$"]))

    def step_share_admin(self):
        """The server's owner adds or removes a share while the client works."""
        r = self.r
        if r.random() < 0.5:
            d = os.path.join(self.tmp, "extra%d" % r.randint(0, 99))
            os.makedirs(d, exist_ok=True)
            try:
                self.server.addShare("EXTRA", d, "added later")
            except Exception:  # noqa: BLE001  (already there)
                pass
            self.conn.listPath("EXTRA", "*")
        else:
            try:
                self.server.removeShare("PUB")
            except Exception:  # noqa: BLE001
                pass
            self.conn.listPath("PUB", "*")

    def step_logoff_more(self):
        """Log off, then go on as if nothing happened."""
        self.conn.logoff()
        self.count("logged off")
        self.conn.listPath("DATA", "*")

    def step_reconnect(self):
        self.conn.reconnect()

    def step_cut(self):
        """The socket cut in the middle of a transfer."""
        r = self.r
        sock = self.conn.getSMBServer().get_socket()
        n = [0]

        def cb(data):
            n[0] += len(data)
            if n[0] > 1000:
                sock.shutdown(socket.SHUT_RDWR)
        if r.random() < 0.5:
            self.conn.getFile("DATA", "big.bin", cb)
        else:
            def src(size):
                n[0] += size
                if n[0] > 30000:
                    sock.shutdown(socket.SHUT_RDWR)
                return os.urandom(min(size, 8000))
            self.conn.putFile("DATA", "cut.bin", src)

    def session(self):
        r = self.r
        try:
            self.connect()
        except (SessionError, smb.SessionError, smb3.SessionError):
            # SMB2 asked of a server that speaks SMB1 only: the negotiation is refused
            self.count("negotiation refused")
            return
        logged = self.login()
        steps = [(4, self.step_shares), (3, self.step_rpc), (6, self.step_list), (5, self.step_get),
                 (4, self.step_put), (3, self.step_dirs), (2, self.step_rename), (2, self.step_delete),
                 (3, self.step_lowlevel), (1.5, self.step_tree), (0.6, self.step_share_admin),
                 (0.25, self.step_logoff_more), (0.4, self.step_reconnect)]
        if self.smb1:
            steps += [(5, self.step_smb1_core), (0.6, self.step_create_contexts)]
        else:
            steps += [(3, self.step_smb2_misc), (0.2, self.step_create_contexts)]
        n = r.randint(2, 14) if logged or r.random() < 0.4 else r.randint(0, 2)
        for _ in range(n):
            step = pick(r, steps)
            name = step.__name__[5:]
            self.count("step " + name)
            try:
                step()
            except (SessionError, smb.SessionError, smb3.SessionError) as e:
                self.count("refused " + name)
                self.note("%s:%s" % (name, str(e)[17:50]))
            except (OSError, nmb.NetBIOSError, nmb.NetBIOSTimeout) as e:
                self.note("%s:%s" % (name, type(e).__name__))
                raise Stop() from e
            except Exception as e:  # noqa: BLE001  impacket raises many kinds
                self.count("failed " + name)
                self.note("%s!%s" % (name, type(e).__name__))
        end = pick(r, [(70, "logoff"), (15, "close"), (15, "cut")])
        self.note("end " + end)
        self.count("end " + end)
        if end == "cut":
            try:
                self.step_cut()
            except Exception:  # noqa: BLE001
                pass
        elif end == "logoff":
            try:
                self.conn.logoff()
            except Exception:  # noqa: BLE001
                pass
        self.hang_up()

    def hang_up(self):
        """close(), and the socket closed whatever close() did (a log-off
        that fails leaves it open), as when the application exits."""
        if self.conn is None:
            return
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001
            pass
        try:
            shut(self.conn.getSMBServer().get_socket())
        except Exception:  # noqa: BLE001
            pass

    # -- a raw client -------------------------------------------------------
    def raw(self):
        r = self.r
        kind = r.choice(["junk", "netbios", "smb1_unknown", "smb1_truncated", "smb2_unauth", "smb2_bad_session",
                         "smb2_truncated", "smb1_unauth", "half"])
        self.note("raw " + kind)
        self.count("raw " + kind)
        s = socket.create_connection((HOST, self.port), timeout=3)
        self.socks.append(s)

        def frame(payload, kind=0):
            return struct.pack(">BBH", kind, len(payload) >> 16, len(payload) & 0xFFFF) + payload

        def smb1(cmd, flags2=0xC843, body=b"\x00\x00\x00"):
            return b"\xffSMB" + bytes([cmd]) + b"\x00" * 4 + b"\x18" + struct.pack("<H", flags2) + b"\x00" * 12 + \
                struct.pack("<HHHH", 0, os.getpid() & 0xFFFF, 0, 1) + body

        def smb2(cmd, session=0, body=b"\x00" * 8):
            return (b"\xfeSMB" + struct.pack("<HHIHHIIQIIQ", 64, 0, 0, cmd, 1, 0, 0, 1, 0, 0, session)
                    + b"\x00" * 16 + body)

        def negotiate():
            s.sendall(frame(smb1(smb.SMB.SMB_COM_NEGOTIATE, body=b"\x00\x0c\x00\x02NT LM 0.12\x00")))
            read(s)
        if kind == "junk":
            s.sendall(os.urandom(r.randint(1, 40)))
        elif kind == "netbios":
            p = nmb.NetBIOSSessionPacket()
            p.set_type(nmb.NETBIOS_SESSION_REQUEST)
            p.set_trailer(nmb.encode_name(r.choice(["BENCHSRV", "*SMBSERVER"]), nmb.TYPE_SERVER, None) +
                          nmb.encode_name(r.choice(["OLDCLIENT", "WFW311"]), nmb.TYPE_WORKSTATION, None))
            s.sendall(p.rawData())
            read(s)
            negotiate()
        elif kind == "smb1_unknown":
            negotiate()
            s.sendall(frame(smb1(r.choice([0x81, 0x05, 0xC0, 0x2B]))))
        elif kind == "smb1_unauth":
            negotiate()
            s.sendall(frame(smb1(smb.SMB.SMB_COM_TREE_CONNECT_ANDX)))
        elif kind == "smb1_truncated":
            s.sendall(frame(b"\xffSMBr" + os.urandom(r.randint(0, 20))))
        elif kind == "smb2_unauth":
            s.sendall(frame(smb2(r.choice([smb3structs.SMB2_TREE_CONNECT, smb3structs.SMB2_CREATE]))))
        elif kind == "smb2_bad_session":
            s.sendall(frame(smb2(smb3structs.SMB2_NEGOTIATE, body=b"\x24\x00\x01\x00" + b"\x00" * 32 + b"\x02\x02")))
            read(s)
            s.sendall(frame(smb2(r.choice([0x13, 0x20, smb3structs.SMB2_ECHO]), session=0xDEAD)))
        elif kind == "smb2_truncated":
            s.sendall(frame(b"\xfeSMB" + os.urandom(r.randint(0, 30))))
        else:  # a frame announced longer than what comes
            s.sendall(struct.pack(">BBH", 0, 0, 200) + b"\xffSMB")
            time.sleep(0.2)
        read(s)
        s.close()

    def run(self):
        r = self.r
        self.start_server()
        if r.random() < 0.1:
            self.raw()
        else:
            try:
                self.session()
            except Stop:
                pass
            finally:
                self.hang_up()
        time.sleep(0.05)

    def cleanup(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass
        self.stop_server()


def shut(sock):
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def read(s, wait=0.3):
    s.settimeout(wait)
    try:
        return s.recv(65536)
    except OSError:
        return b""


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
LOG = None
ARGS = None
STRAY = None


def init_worker(seed, top):
    global LOG, ARGS, STRAY
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    warnings.simplefilter("ignore")
    # the server prints tracebacks of its own (a failed SMB2 negotiation) and
    # the DCE/RPC servers' threads die on their closed sockets
    if not DEBUG:
        sys.stderr = open(os.devnull, "w")
    sys.stdout = open(os.devnull, "w")
    threading.excepthook = lambda args: None
    ARGS = (seed, top)
    LOG = _capture.EventLog(impacket, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    STRAY = _capture.StrayRecords(LOG)
    LOG.addFilter(STRAY)
    logging.getLogger("impacket").propagate = False


def run_case(i):
    seed, top = ARGS
    cid = "impacket-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    tmp = tempfile.mkdtemp(dir=top)
    case = Case(i, r, tmp)
    LOG._rows = []
    stray0 = STRAY.n
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, _capture.on_alarm)
    signal.alarm(60)
    try:
        try:
            case.run()
        finally:
            case.cleanup()  # the server's last records (connections closing) are the case's
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        case.count("case exceptions " + type(e).__name__)
        if DEBUG:
            import traceback
            traceback.print_exc(file=sys.__stderr__)
    finally:
        signal.alarm(0)
        LOG.case_id = None
        rows, LOG._rows = LOG._rows, []
        _capture.release_ports(case.ports)
        shutil.rmtree(tmp, ignore_errors=True)
    time.sleep(0.05)
    case.st["stray"] = STRAY.n - stray0
    debug("%s %d events %.2fs | %s" % (cid, len(rows), time.time() - t0, " ".join(case.notes[:14])))
    return i, cid, rows, case.st


def main():
    a = _capture.parse_args("impacket", "Event log of impacket's SMB server and SMB client, driven in one process.", 450, 2)
    top = _capture.work_dir("impacket")
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]

    def on_term(signum, frame):
        raise SystemExit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        # workers are replaced now and then: the DCE/RPC servers' threads of a
        # case whose pipe was left open do not end
        log, totals = _capture.run_cases(impacket, a.out, run_case, todo, init_worker, (a.seed, top),
                                         a.jobs, per_worker=50)
        dial = {k[8:]: v for k, v in totals.items() if k.startswith("dialect ")}
        spoke = {k[6:]: v for k, v in totals.items() if k.startswith("spoke ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; dialects asked %s, spoken %s (negotiations refused %d); case exceptions %s; "
                         "records outside any case dropped %d; %.0fs\n"
                         % (log.summary(), dial, spoke, totals.get("negotiation refused", 0), errs or "none",
                            totals.get("stray", 0), time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_impacket: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
