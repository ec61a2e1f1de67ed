#!/usr/bin/python3
"""Event log of slixmpp (Debian python3-slixmpp 1.8.3), an asyncio XMPP
library: client sessions against a Prosody server (Debian ``prosody``
0.12.3) that the generator starts on 127.0.0.1 for the run, external
components, a misbehaving server written here, and closed ports.

    /usr/bin/python3 gen_slixmpp.py --out .deps/logs/slixmpp.csv.gz [--cases 300] [--seed 1] [--jobs 6]
    /usr/bin/python3 gen_slixmpp.py --repo     # prints the directory to index

Indexed: the installed ``slixmpp`` directory
(``/usr/lib/python3/dist-packages/slixmpp``), all of it: the stream and
session machinery (``xmlstream/``, ``basexmpp.py``, ``clientxmpp.py``,
``componentxmpp.py``, ``features/``), the ~90 plugins, the bundled
``thirdparty`` modules and slixmpp's own test helpers (``slixmpp/test``,
indexed, not run).

Server: ``prosody`` runs as a child process of the generator (its own
session, killed by process group at exit, also on SIGTERM), with its
config, data (accounts, rosters, archives), certificates and log in a temp
dir (on /dev/shm when writable), as the current user (``run_as_root``, read
only when that user is root, keeps it from switching to the ``prosody``
user). It listens on three free ports of 127.0.0.1 only: client connections
with STARTTLS, direct TLS, and external components (XEP-0114); s2s and
``mod_posix`` are off, so it neither daemonizes nor talks to other servers.
Virtual hosts: ``localhost`` (plain connections and unencrypted PLAIN
allowed, in-band registration open), ``secure.localhost`` (TLS required,
PLAIN disabled, registration closed), ``anon.localhost`` (SASL ANONYMOUS);
components ``conference.localhost`` (MUC) and ``bot0..bot23.localhost``
(external, one per worker process at a time: prosody takes one connection
per component). Its certificate is a throw-away one for ``localhost``, the
name every client connects to and checks, made with
``python3-cryptography`` (``_capture.self_signed_cert``); a second,
unrelated one is what some applications wrongly trust. Accounts are written before the start as
Prosody's internal storage files with plain passwords (three per case on
``localhost``, one on ``secure.localhost``, and ``admin@localhost``, a
server admin), which ``internal_hashed`` turns into SCRAM keys at the first
login; each case has its own, so cases running side by side never share a
roster, room or archive. ``c2s_stanza_size_limit`` is 20000 bytes, so a
bigger stanza ends the stream. The system service the Debian package
installs is neither used nor needed.

A case is one application's work, drawn with its own ``random.Random``:

- (56%) a session on ``localhost`` or ``secure.localhost``: the
  application's client, and often a peer client of the same case (echoing,
  serving an ad-hoc command, ignoring one kind of request, or with a message
  handler that lets an IQ error or timeout escape), each connecting with
  STARTTLS, direct TLS or a plain stream, a SASL mechanism forced or not
  (SCRAM-SHA-1, SCRAM-SHA-256 and -PLUS, which this server does not offer,
  PLAIN, unencrypted PLAIN allowed by the application, DIGEST-MD5), the
  certificate trusted, not trusted (with or without an ``ssl_invalid_chain``
  handler), a client certificate that loads or does not, IPv6 lookups on
  (``localhost`` also answers ::1, where nothing listens, and slixmpp
  retries a second later), the system resolver instead of aiodns, whitespace
  keepalives, and the plugins its steps need plus a few drawn (in 2.5% of
  the clients every plugin slixmpp ships, ``register_plugins()``); then 1-7
  steps: chat messages (receipts, chat states, XHTML-IM, markers), messages
  to unknown users, presence, subscriptions, roster sets, removals and
  gets, pings (server, peer, unknown and remote JIDs, keepalive pings),
  version, service discovery (remote, cached, local, command nodes), vCards,
  last activity (also looked up locally), entity time, bookmarks in private
  storage (with auto-join, seen at the next session), blocking, carbons, MAM
  queries, MUC (joins, nick changes and conflicts, subjects, room
  configuration, affiliations, destruction, invitations direct and mediated,
  a handler that tries to rewrite what the room reports), in-band
  bytestreams, out-of-band data requests, ad-hoc commands (the server's
  list, an admin command refused, the peer's command, a node the peer does
  not have), attention, client state indication, PEP moods, a coroutine
  handler that lets an IQ error or timeout escape, handlers that raise,
  ``reconnect()``, stream management resumption after an abort, bursts of
  messages, old SleekXMPP properties (``fulljid``...), a plugin looked up by
  name that is not loaded, a stanza sent without a stream; and in about one
  session in five a last step that ends the stream: the same full JID
  logging in again (conflict), an admin ending the session or deleting the
  account through ad-hoc commands, a second resource changing the password
  (reset), unregistering, a stanza over the size limit
  (policy-violation), malformed XML (not-well-formed), ``abort()``,
  ``disconnect(0)``. Sessions end with ``disconnect()`` (a wait drawn, some
  without waiting for the send queue) or ``abort()``.
- (10%) a login that fails: wrong password (the application retrying once
  with another in some), unknown user, PLAIN refused by slixmpp over a plain
  stream, TLS-only host over a plain stream, an unknown host
  (host-unknown), a password SASLprep rejects, an empty password, a
  mechanism the server lacks, ANONYMOUS where it is not offered, an
  untrusted certificate.
- (7%) in-band registration: a new account, a taken name, the closed host,
  a form answered with a removal, no handler for the form; then password
  changes and unregistering. slixmpp 1.8 holds back every stanza before the
  session starts, the registration form's request too, so most
  applications set ``_always_send_everything``, as the workaround goes; the
  others wait in vain.
- (6%) an external component (right secret, wrong secret, an unknown
  component name) answering a client's messages, disco, version and pings,
  and sending it headlines and pings.
- (4%) an anonymous login, then a few requests.
- (14%) against the misbehaving server, a protocol handler in the
  generator's event loop: it closes at once, answers with HTTP, closes after
  its stream header, sends stream errors (also ``see-other-host`` to
  Prosody, to nothing, and to itself until slixmpp stops redirecting), an
  XMPP 0.9 header (legacy auth, broken in this slixmpp), unknown mechanisms,
  SASL failures, a SCRAM challenge with a foreign nonce or a success with a
  wrong server signature, a STARTTLS failure or XML where the TLS handshake
  should be, no features, silence, malformed XML; or, after an anonymous
  login, a bind error, silence under keepalive pings (slixmpp reconnects),
  stream management acks that do not add up or a refused ``enable``,
  garbage after a message, a stream error, requests the client does not
  know, a ping, roster pushes (one from a foreign JID), a message bounce,
  unknown stanzas, contacts whose entity capabilities are legacy, use an
  unknown hash, or do not match the disco#info they answer (duplicate
  identities or features, forms without or with a visible or repeated
  FORM_TYPE).
- (3%) a closed port, given up after the first, second or third attempt
  (slixmpp waits 1 s, then 3 s, between them).

The application's client class always connects to ``localhost`` and a port
it names. slixmpp 1.8.3 resolves that name again and pairs the answers with
``default_port`` (5222), and its ``reconnect()`` (also run by keepalive
pings and redirects) calls ``connect()`` without an address, which would
look the JID's domain up in DNS: the class sets ``default_port`` and
reconnects to the last address with its options, so no query leaves the
machine and nothing touches port 5222. (An IP address instead of
``localhost`` would make slixmpp look up an empty domain in DNS.)

Capture: slixmpp logs through module loggers (``log =
logging.getLogger(__name__)``) with %-formats and arguments, some
%-formatted or concatenated (``"..." + \\``) before the call, one an
f-string holding ``%s``; ``_capture.py``'s handler on the ``slixmpp``
logger (at DEBUG, not propagating) takes each record with its call site.
Nothing is declared a wrapper (``code.wrapped`` is always 0): slixmpp has
no logging helper that forwards its caller's message. ``XMLStream.send_raw``
logs ``SEND: %s`` and writes the data, ``XMLStream.event`` logs
``Event triggered: %s`` and runs the handlers, ``BaseXMPP.exception``,
``StanzaBase.exception`` and ``RootStanza.exception`` decide what to log
from the exception they are handed, the deprecated JID properties log and
return a value, and the MUC stanza setters that refuse (``MUCBase.set_nick``)
log their own text: each is its records' emitter. The bundled GnuPG wrapper
(``thirdparty/gnupg.py``, loaded with every plugin) logs through its module
logger too, from its reader threads as well. XEP-0323's plugin and one
error path of the GnuPG wrapper (``GPG.sign_file``) log through the root
logger, which the capture does not listen to; the cases never reach them.

Logging levels: the ``slixmpp`` tree is at DEBUG; each case's application
then turns some loggers down, as applications quieten slixmpp: nothing
(25% of the cases), ``slixmpp.xmlstream.xmlstream`` (the wire data and
events) at INFO (35%), ``slixmpp.plugins.base`` and
``slixmpp.xmlstream.resolver`` (plugin loading, DNS) at INFO (15%), both
(15%), or the whole tree at INFO (10%).

Cases run ``--jobs`` at a time (6), each worker a forked process running
one case after another on an event loop made for the case, so every record
of a process belongs to its open case (the GnuPG wrapper's reader threads
log while their case is open); the rows come back to the main process and
are written in case order. Clients still connected when their case ends are
aborted while no case is open, and records emitted while no case is open
are dropped and counted. Cases with fewer than 3 events are dropped. Plugins
that print (XEP-0009, the MUC join's history check) print to /dev/null in
the workers.

Determinism: each case draws from ``random.Random("<seed>-<case>")``. The
events differ between runs where timing decides (what arrives within a
wait, keepalive pings racing other requests, stream management acks, the
order in which two clients' stanzas interleave); messages hold ports,
stream ids, stanza ids, SCRAM nonces, RTTs and anonymous JIDs.

Debugging: GEN_DEBUG=1 prints one line per case (events, seconds, what it
drew) and the totals; GEN_ONLY=3,17 runs only those cases; with GEN_DEBUG,
GEN_SERVER_LOG=N also prints the last N lines of Prosody's own log (at
debug level then).
"""
import asyncio
import base64
import fcntl
import logging
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import slixmpp  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(slixmpp.__file__)))
    sys.exit(0)

from slixmpp.exceptions import IqError, IqTimeout, XMPPError  # noqa: E402
from slixmpp.plugins import __all__ as ALL_PLUGINS  # noqa: E402

WRAPPERS = set()  # slixmpp calls its module loggers directly (see the header)
LOGGER_ROOTS = ["slixmpp"]
DEBUG = bool(os.environ.get("GEN_DEBUG"))
# Every connection names "localhost": c-ares answers it (127.0.0.1, ::1) without a
# query leaving the machine, while an IP address would make slixmpp look up an
# empty domain through the configured name server.
HOST = "localhost"
DOMAIN = "localhost"          # open: plain connections, unencrypted PLAIN, in-band registration
SECURE = "secure.localhost"   # TLS required, no PLAIN, no registration
ANON = "anon.localhost"       # SASL ANONYMOUS only
MUC = "conference.localhost"
COMP_SLOTS = 24               # external components bot0..bot23.localhost, one per worker at a time
COMP_SECRET = "bot-secret-5"
ADMIN = ("admin", "admin-pw-9")
STANZA_LIMIT = 20000          # c2s_stanza_size_limit: a bigger stanza ends the stream (policy-violation)
QUIET_LOGGERS = ["slixmpp.xmlstream.xmlstream"]  # wire data and events: what applications turn down first
PLUMBING = ["slixmpp.plugins.base", "slixmpp.xmlstream.resolver"]


def debug(msg):
    if DEBUG:
        sys.stderr.write(msg + "\n")


def user(i, k):
    return "c%d%s" % (i, k)


def password(i, k):
    return "pw-%d-%s" % (i, k)


# ---------------------------------------------------------------------------
# the Prosody server of the run
# ---------------------------------------------------------------------------
PROSODY_MODULES = ["roster", "saslauth", "tls", "disco", "ping", "version", "time", "uptime", "vcard_legacy",
                   "register", "carbons", "smacks", "blocklist", "private", "pep", "lastactivity", "csi_simple",
                   "admin_adhoc", "offline", "bookmarks", "mam", "legacyauth"]


def lua_str(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def prosody_dir_name(s):
    """Prosody's datamanager file-name encoding: every non-alphanumeric byte as %xx."""
    return re.sub(r"[^A-Za-z0-9]", lambda m: "%%%02x" % ord(m.group(0)), s)


class Prosody:
    """prosody as a child process of the generator, every file of it in the
    temp dir, listening on free ports of 127.0.0.1 only."""

    def __init__(self, tmp, ncases):
        self.dir = os.path.join(tmp, "prosody")
        self.ncases = ncases
        self.port = _capture.free_port()
        self.tls_port = _capture.free_port()
        self.comp_port = _capture.free_port()
        self.proc = None
        self.certs = None

    def write(self):
        d = self.dir
        for sub in ("data", "certs", "tls", "other"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        # the server's certificate, for localhost (the name every client connects to
        # and checks), and an unrelated one that some applications wrongly trust
        self.certs = _capture.self_signed_cert(os.path.join(d, "tls"))
        other = _capture.self_signed_cert(os.path.join(d, "other"))
        if self.certs is None or other is None:
            sys.exit("gen_slixmpp: python3-cryptography is needed for the server's certificate")
        self.certs["other"] = other["cert"]
        lines = [
            "-- written by gen_slixmpp.py for one run, removed at its end",
            "run_as_root = true  -- read only when the generator runs as root: no switch to the prosody user",
            "data_path = " + lua_str(os.path.join(d, "data")),
            "certificates = " + lua_str(os.path.join(d, "certs")),
            "log = { { levels = { min = %s }, to = \"file\", filename = %s } }"
            % ('"debug"' if DEBUG else '"warn"', lua_str(os.path.join(d, "prosody.log"))),
            'interfaces = { "127.0.0.1" }',
            'local_interfaces = { "127.0.0.1" }',
            "c2s_ports = { %d }" % self.port,
            "c2s_direct_tls_ports = { %d }" % self.tls_port,
            "legacy_ssl_ports = { }",
            "s2s_ports = { }",
            "component_ports = { %d }" % self.comp_port,
            'component_interfaces = { "127.0.0.1" }',
            "modules_enabled = { %s }" % ", ".join(lua_str(m) for m in PROSODY_MODULES),
            'modules_disabled = { "s2s", "posix" }',
            'authentication = "internal_hashed"',
            'storage = "internal"',
            "admins = { %s }" % lua_str("%s@%s" % (ADMIN[0], DOMAIN)),
            "ssl = { certificate = %s, key = %s }" % (lua_str(self.certs["cert"]), lua_str(self.certs["key"])),
            "c2s_stanza_size_limit = %d" % STANZA_LIMIT,
            "c2s_close_timeout = 2",
            "smacks_hibernation_time = 30",
            "",
            "VirtualHost %s" % lua_str(DOMAIN),
            "  c2s_require_encryption = false",
            "  allow_unencrypted_plain_auth = true",
            "  allow_registration = true",
            "VirtualHost %s" % lua_str(SECURE),
            "  c2s_require_encryption = true",
            "  allow_registration = false",
            '  disable_sasl_mechanisms = { "PLAIN", "DIGEST-MD5" }',
            "VirtualHost %s" % lua_str(ANON),
            "  c2s_require_encryption = false",
            '  authentication = "anonymous"',
            "Component %s \"muc\"" % lua_str(MUC),
        ]
        for k in range(COMP_SLOTS):
            lines += ["Component %s" % lua_str("bot%d.%s" % (k, DOMAIN)),
                      "  component_secret = %s" % lua_str(COMP_SECRET)]
        with open(os.path.join(d, "prosody.cfg.lua"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        # accounts as prosody's internal storage keeps them, with plain passwords
        # (internal_hashed turns them into SCRAM keys at the first login)
        accounts = {DOMAIN: [ADMIN], SECURE: []}
        for i in range(self.ncases):
            for k in "abc":
                accounts[DOMAIN].append((user(i, k), password(i, k)))
            accounts[SECURE].append((user(i, "a"), password(i, "a")))
        for host, users in accounts.items():
            ad = os.path.join(d, "data", prosody_dir_name(host), "accounts")
            os.makedirs(ad, exist_ok=True)
            for u, p in users:
                with open(os.path.join(ad, u + ".dat"), "w") as fh:
                    fh.write("return {\n\t[\"password\"] = %s;\n};\n" % lua_str(p))

    def start(self):
        exe = shutil.which("prosody", path="/usr/bin:/usr/sbin:/bin")
        if not exe:
            sys.exit("gen_slixmpp: prosody not found (apt-get install prosody)")
        self.write()
        d = self.dir
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "LANG": "C.UTF-8"}
        err = open(os.path.join(d, "stderr"), "w")
        self.proc = subprocess.Popen([exe, "--config", os.path.join(d, "prosody.cfg.lua")], env=env, cwd=d,
                                     stdin=subprocess.DEVNULL, stdout=err, stderr=err, start_new_session=True)
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            try:
                s = socket.create_connection(("127.0.0.1", self.port), 0.5)
                s.sendall(("<stream:stream to='%s' xmlns='jabber:client' "
                           "xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>" % DOMAIN).encode())
                s.settimeout(3)
                ok = b"stream:features" in s.recv(4096) or b"stream:features" in s.recv(4096)
                s.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        out = ""
        for f in ("stderr", "prosody.log"):
            try:
                with open(os.path.join(d, f)) as fh:
                    out += fh.read()[-2000:]
            except OSError:
                pass
        sys.exit("gen_slixmpp: prosody did not start:\n" + out)

    def stop(self):
        if self.proc is None:
            return
        _capture.stop_group(self.proc)
        self.proc = None

    def log_tail(self, n):
        try:
            with open(os.path.join(self.dir, "prosody.log")) as fh:
                return "".join(fh.readlines()[-n:])
        except OSError:
            return ""


# ---------------------------------------------------------------------------
# a misbehaving XMPP server (just enough of the protocol to lead slixmpp on)
# ---------------------------------------------------------------------------
NS_STREAM = "http://etherx.jabber.org/streams"
NS_SASL = "urn:ietf:params:xml:ns:xmpp-sasl"
NS_TLS = "urn:ietf:params:xml:ns:xmpp-tls"
NS_BIND = "urn:ietf:params:xml:ns:xmpp-bind"
NS_STANZAS = "urn:ietf:params:xml:ns:xmpp-stanzas"
NS_STREAMS = "urn:ietf:params:xml:ns:xmpp-streams"
FAKE_DOMAIN = "fake.localhost"
# modes that end before authentication, and modes after an anonymous login
FAKE_EARLY = ["close", "garbage", "eof", "stream_error", "see_other", "see_other_empty", "see_other_loop", "legacy",
              "no_mechs", "sasl_fail", "scram_badsig", "scram_badnonce", "tls_fail", "tls_garbage", "no_features",
              "silent", "bad_xml_header"]
FAKE_LATE = ["bind_error", "mute", "bad_ack", "sm_failed", "push_garbage", "kick", "iq_unknown", "ping_in",
             "roster_push", "message_error", "unknown_stanza", "close_after_bind", "caps", "caps"]
# what the fake server's contacts advertise (XEP-0115) and answer to the client's disco#info
CAPS_VARIANTS = ["legacy", "unknown_hash", "dup_identity", "dup_feature", "nonform", "no_formtype",
                 "formtype_text", "formtype_twice", "mismatch", "error"]

_TOKENS = re.compile(r"""\s+|<\?xml[^>]*\?>|<stream:stream[^>]*>|</stream:stream>|<starttls[^>]*/>
    |<(auth|response|iq|message|presence)\b[^>]*/>|<(auth|response|iq|message|presence)\b[^>]*>.*?</\2>
    |<(abort|enable|resume|r|a)\b[^>]*/>|<[^>]*>""", re.X | re.S)


class FakeServer(asyncio.Protocol):
    """One connection of the misbehaving server: reacts to what slixmpp
    writes, token by token, as its mode says."""

    def __init__(self, env):
        self.env = env  # mode, port, redirect target, counters
        self.t = None
        self.buf = ""
        self.streams = 0
        self.authed = False
        self.bound = None

    def write(self, s):
        if self.t is not None and not self.t.is_closing():
            self.t.write(s.encode())

    def header(self, version=True):
        self.streams += 1
        return ("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='%s' id='fk%d-%d' "
                "from='%s'%s xml:lang='en'>" % (NS_STREAM, self.env["conn"], self.streams, FAKE_DOMAIN,
                                                " version='1.0'" if version else ""))

    def stream_error(self, cond, text=None, extra=""):
        t = "<text xmlns='%s'>%s</text>" % (NS_STREAMS, text) if text else ""
        body = "%s</%s>" % (extra, cond) if extra else ""
        el = "<%s xmlns='%s'%s" % (cond, NS_STREAMS, (">" + body) if body else "/>")
        self.write("<stream:error>%s%s</stream:error></stream:stream>" % (el, t))
        self.t.close()

    def connection_made(self, t):
        self.t = t
        self.env["conn"] += 1
        mode = self.env["mode"]
        if mode == "close":
            t.close()
        elif mode == "garbage":
            self.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    def data_received(self, data):
        self.buf += data.decode("utf-8", "replace")
        while self.t is not None and not self.t.is_closing():
            m = _TOKENS.match(self.buf)
            if not m:
                return
            tok = m.group(0)
            self.buf = self.buf[m.end():]
            if tok.strip() and not tok.startswith("<?xml"):
                self.token(tok)

    def connection_lost(self, exc):
        self.t = None

    def features(self):
        mode = self.env["mode"]
        if self.authed:
            f = "<bind xmlns='%s'/>" % NS_BIND
            if self.env.get("session"):
                f += "<session xmlns='urn:ietf:params:xml:ns:xmpp-session'><optional/></session>"
            if mode in ("bad_ack", "sm_failed"):
                f += "<sm xmlns='urn:xmpp:sm:3'/>"
            return "<stream:features>%s</stream:features>" % f
        if mode == "no_features":
            return "<stream:features/>"
        if mode in ("tls_fail", "tls_garbage"):
            return "<stream:features><starttls xmlns='%s'><required/></starttls></stream:features>" % NS_TLS
        mechs = {"no_mechs": ["X-BENCH-TOKEN"], "sasl_fail": ["SCRAM-SHA-1", "PLAIN", "ANONYMOUS"],
                 "scram_badsig": ["SCRAM-SHA-1"], "scram_badnonce": ["SCRAM-SHA-1", "SCRAM-SHA-256"]
                 }.get(mode, ["ANONYMOUS"])
        return ("<stream:features><mechanisms xmlns='%s'>%s</mechanisms></stream:features>"
                % (NS_SASL, "".join("<mechanism>%s</mechanism>" % x for x in mechs)))

    def token(self, tok):
        mode = self.env["mode"]
        if tok.startswith("<stream:stream"):
            if mode == "silent":
                return
            if mode == "bad_xml_header":
                self.write("<?xml version='1.0'?><stream:stream xmlns='jabber:client' from='%s' version='1.0'>"
                           "<stream:features><mechanisms xmlns='%s'><mechanism>ANONYMOUS</mechanism>"
                           "</stream:stream>" % (FAKE_DOMAIN, NS_SASL))
                return
            self.write(self.header(version=mode != "legacy"))
            if mode == "eof":
                self.t.close()
            elif mode == "stream_error":
                self.stream_error(self.env["cond"], self.env.get("text"))
            elif mode.startswith("see_other"):
                target = {"see_other": "%s:%d" % (HOST, self.env.get("target", 0)), "see_other_empty": "",
                          "see_other_loop": "%s:%d" % (HOST, self.env["port"])}[mode]
                self.stream_error("see-other-host", None, target)
            elif mode != "legacy":
                self.write(self.features())
            return
        if tok == "</stream:stream>":
            if mode != "silent":
                self.write("</stream:stream>")
            self.t.close()
            return
        if tok.startswith("<starttls"):
            if mode == "tls_fail":
                self.write("<failure xmlns='%s'/></stream:stream>" % NS_TLS)
                self.t.close()
            else:  # proceeds, then answers the TLS ClientHello with XML
                self.write("<proceed xmlns='%s'/>" % NS_TLS)
                self.env["tls_junk"] = True
                asyncio.get_event_loop().call_later(0.05, self.write, "<stream:error><internal-server-error "
                                                    "xmlns='%s'/></stream:error>" % NS_STREAMS)
            return
        if self.env.get("tls_junk"):
            return
        if tok.startswith("<auth"):
            self.auth(tok)
            return
        if tok.startswith("<response"):
            if mode == "scram_badsig":
                sig = base64.b64encode(b"v=" + base64.b64encode(os.urandom(20))).decode()
                self.write("<success xmlns='%s'>%s</success>" % (NS_SASL, sig))
            else:
                self.write("<failure xmlns='%s'><not-authorized/></failure>" % NS_SASL)
            return
        if tok.startswith("<abort"):
            self.write("<failure xmlns='%s'><aborted/></failure>" % NS_SASL)
            return
        if tok.startswith("<enable"):
            if mode == "sm_failed":
                self.write("<failed xmlns='urn:xmpp:sm:3'><unexpected-request xmlns='%s'/></failed>" % NS_STANZAS)
            else:
                self.write("<enabled xmlns='urn:xmpp:sm:3' id='sm-%d' resume='true'/>" % self.env["conn"])
                self.write("<a xmlns='urn:xmpp:sm:3' h='%d'/>" % self.env.get("bad_h", 7))
            return
        if tok.startswith("<r ") or tok.startswith("<a "):
            return
        if tok.startswith("<iq"):
            self.iq(tok)
            return
        if tok.startswith("<message") or tok.startswith("<presence"):
            if mode == "message_error" and tok.startswith("<message"):
                to = re.search(r"""\bto=["']([^"']*)""", tok)
                mid = re.search(r"""\bid=["']([^"']*)""", tok)
                self.write("<message type='error' from='%s' id='%s'><error type='cancel'>"
                           "<service-unavailable xmlns='%s'/></error></message>"
                           % (to.group(1) if to else FAKE_DOMAIN, mid.group(1) if mid else "x", NS_STANZAS))
            return

    def auth(self, tok):
        mode = self.env["mode"]
        mech = re.search(r"""mechanism=["']([^"']+)""", tok)
        mech = mech.group(1) if mech else ""
        if mode == "sasl_fail":
            self.write("<failure xmlns='%s'><not-authorized/><text>bad credentials for %s</text></failure>"
                       % (NS_SASL, mech))
        elif mode in ("scram_badsig", "scram_badnonce"):
            body = re.search(r">([^<]*)</auth>", tok)
            try:
                first = base64.b64decode(body.group(1)).decode() if body else ""
            except ValueError:
                first = ""
            cn = re.search(r"r=([^,]*)", first)
            nonce = (cn.group(1) if cn and mode == "scram_badsig" else "bench") + "srv%d" % self.env["conn"]
            chal = "r=%s,s=%s,i=4096" % (nonce, base64.b64encode(b"fake-salt").decode())
            self.write("<challenge xmlns='%s'>%s</challenge>" % (NS_SASL, base64.b64encode(chal.encode()).decode()))
        elif mech == "ANONYMOUS":
            self.authed = True
            self.write("<success xmlns='%s'/>" % NS_SASL)
        else:
            self.write("<failure xmlns='%s'><invalid-mechanism/></failure>" % NS_SASL)

    def iq(self, tok):
        mode = self.env["mode"]
        iid = re.search(r"""\bid=["']([^"']*)""", tok)
        iid = iid.group(1) if iid else ""
        if "jabber:iq:auth" in tok:  # XEP-0078, the 0.9 server's login
            if "type='get'" in tok or 'type="get"' in tok:
                self.write("<iq type='result' id='%s'><query xmlns='jabber:iq:auth'><username/><password/>"
                           "<digest/><resource/></query></iq>" % iid)
            elif self.env.get("legacy_ok"):
                self.write("<iq type='result' id='%s'/>" % iid)
            else:
                self.write("<iq type='error' id='%s'><error code='401' type='auth'><not-authorized xmlns='%s'/>"
                           "</error></iq>" % (iid, NS_STANZAS))
            return
        if NS_BIND in tok:
            if mode == "bind_error":
                self.write("<iq type='error' id='%s'><error type='cancel'><not-allowed xmlns='%s'/></error></iq>"
                           % (iid, NS_STANZAS))
                return
            self.bound = "anon%d@%s/fk" % (self.env["conn"], FAKE_DOMAIN)
            self.write("<iq type='result' id='%s'><bind xmlns='%s'><jid>%s</jid></bind></iq>"
                       % (iid, NS_BIND, self.bound))
            asyncio.get_event_loop().call_later(0.05, self.after_bind)
            return
        caps = re.search(r"node=[\"'][^\"'#]*#v-([a-z_]+)", tok)
        if caps and "disco#info" in tok:
            self.write(self.caps_reply(iid, caps.group(1)))
            return
        if "urn:ietf:params:xml:ns:xmpp-session" in tok:
            self.write("<iq type='result' id='%s'/>" % iid)
            return
        if mode == "mute" or not iid or "type='result'" in tok or 'type="result"' in tok \
                or "type='error'" in tok or 'type="error"' in tok:
            return
        self.write("<iq type='error' id='%s' from='%s'><error type='cancel'><service-unavailable xmlns='%s'/>"
                   "</error></iq>" % (iid, FAKE_DOMAIN, NS_STANZAS))

    def caps_reply(self, iid, variant):
        """The disco#info a contact answers for its advertised capabilities, faulty as the variant says."""
        frm = "friend@%s/%s" % (FAKE_DOMAIN, variant)
        if variant == "error":
            return ("<iq type='error' id='%s' from='%s'><error type='cancel'><item-not-found xmlns='%s'/></error>"
                    "</iq>" % (iid, frm, NS_STANZAS))
        ident = "<identity category='client' type='pc' name='Fake'/>"
        feats = "<feature var='http://jabber.org/protocol/disco#info'/><feature var='urn:xmpp:ping'/>"
        extra = ""
        if variant == "dup_identity":
            ident *= 2
        elif variant == "dup_feature":
            feats += "<feature var='urn:xmpp:ping'/>"
        elif variant == "nonform":
            extra = "<x xmlns='jabber:x:oob'><url>http://example.test/</url></x>"
        elif variant == "no_formtype":
            extra = "<x xmlns='jabber:x:data' type='result'><field var='os'><value>Linux</value></field></x>"
        elif variant in ("formtype_text", "formtype_twice"):
            form = ("<x xmlns='jabber:x:data' type='result'><field var='FORM_TYPE' type='%s'>"
                    "<value>urn:xmpp:dataforms:softwareinfo</value></field></x>"
                    % ("text-single" if variant == "formtype_text" else "hidden"))
            extra = form * (2 if variant == "formtype_twice" else 1)
        return ("<iq type='result' id='%s' from='%s'><query xmlns='http://jabber.org/protocol/disco#info' "
                "node='http://fake.test/caps#v-%s'>%s%s%s</query></iq>" % (iid, frm, variant, ident, feats, extra))

    def after_bind(self):
        """What the server does once the client has its JID."""
        mode = self.env["mode"]
        if self.t is None or self.t.is_closing():
            return
        to = self.bound
        if mode == "push_garbage":
            self.write("<message from='%s' to='%s'><body>hi</body></message><<<not xml>>>" % (FAKE_DOMAIN, to))
        elif mode == "kick":
            self.stream_error(self.env["cond"], self.env.get("text"))
        elif mode == "close_after_bind":
            self.t.close()
        elif mode == "iq_unknown":
            self.write("<iq type='get' id='srv1' from='%s' to='%s'><query xmlns='urn:bench:unknown'/></iq>"
                       "<iq type='set' id='srv2' from='%s' to='%s'/>" % (FAKE_DOMAIN, to, FAKE_DOMAIN, to))
        elif mode == "ping_in":
            self.write("<iq type='get' id='srvping' from='%s' to='%s'><ping xmlns='urn:xmpp:ping'/></iq>"
                       % (FAKE_DOMAIN, to))
        elif mode == "roster_push":
            self.write("<iq type='set' id='push1' from='intruder@elsewhere.test' to='%s'>"
                       "<query xmlns='jabber:iq:roster'><item jid='x@elsewhere.test'/></query></iq>"
                       "<iq type='set' id='push2' to='%s'><query xmlns='jabber:iq:roster' ver='v2'>"
                       "<item jid='friend@%s' subscription='both' name='Friend'><group>Bench</group></item>"
                       "</query></iq>" % (to, to, FAKE_DOMAIN))
        elif mode == "caps":
            for v in self.env.get("caps", ["mismatch"]):
                hashattr = {"legacy": "", "unknown_hash": " hash='md2'"}.get(v, " hash='sha-1'")
                self.write("<presence from='friend@%s/%s' to='%s'><c xmlns='http://jabber.org/protocol/caps' "
                           "node='http://fake.test/caps' ver='v-%s'%s ext='voice'/></presence>"
                           % (FAKE_DOMAIN, v, to, v, hashattr))
        elif mode == "unknown_stanza":
            self.write("<bench xmlns='urn:bench:stanza'>what</bench>"
                       "<message from='%s' to='%s' type='headline'><subject>notice</subject></message>"
                       % (FAKE_DOMAIN, to))


async def start_fake(env):
    loop = asyncio.get_event_loop()
    env["conn"] = 0
    server = await loop.create_server(lambda: FakeServer(env), "127.0.0.1", env["port"])
    return server


# ---------------------------------------------------------------------------
# the applications
# ---------------------------------------------------------------------------
class AppError(Exception):
    """What an application's own handler raises (a bug of the application)."""


class Client(slixmpp.ClientXMPP):
    """An application's client: slixmpp's ClientXMPP with the handlers its case draws."""

    def __init__(self, role, jid, pw, **kw):
        super().__init__(jid, pw, **kw)
        self.role = role
        self.echo = False  # the peer's application answers chat messages
        self.add_event_handler("message", self.on_message)

    def connect(self, address=None, **kw):
        # The application always names its server. slixmpp's reconnect() (also run by
        # the keepalive ping and a see-other-host redirect) calls connect() without an
        # address, which would look the JID's domain up in DNS, try port 5222 and drop
        # direct TLS: the last address (a redirect's when there was one) and options
        # are used again instead.
        if address is None and getattr(self, "bench_kw", None) is not None:
            address, kw = tuple(self.address), self.bench_kw
        else:
            self.bench_kw = kw
        # slixmpp resolves the host name again and pairs the answers with
        # default_port, not with the port it was given
        self.default_port = address[1]
        return super().connect(address, **kw)

    def on_message(self, msg):
        if self.echo and msg["type"] in ("chat", "normal") and msg["body"] and not msg["body"].startswith("re: "):
            msg.reply("re: " + msg["body"]).send()

    def watch(self, *names):
        """A future that gets the name of the first of these events to fire."""
        fut = self.loop.create_future()
        hs = []
        for n in names:
            def h(data=None, n=n):
                if not fut.done():
                    fut.set_result(n)
            self.add_event_handler(n, h)
            hs.append((n, h))

        def undo(_):
            for n, h in hs:
                self.del_event_handler(n, h)
        fut.add_done_callback(undo)
        return fut


class Component(slixmpp.ComponentXMPP):
    """An external component of the application (XEP-0114)."""

    def __init__(self, jid, secret, port):
        super().__init__(jid, secret, HOST, port)
        self.add_event_handler("message", self.on_message)
        self.add_event_handler("presence_probe", self.on_probe)

    def on_message(self, msg):
        if msg["type"] in ("chat", "normal") and msg["body"]:
            msg.reply("bot heard: %s" % msg["body"]).send()

    def on_probe(self, pres):
        self.send_presence(pto=pres["from"], pfrom=pres["to"], pstatus="serving")

    watch = Client.watch


async def outcome(fut, t):
    try:
        return await asyncio.wait_for(fut, t)
    except asyncio.TimeoutError:
        return "timeout"


IQ_ERRORS = (IqError, IqTimeout)

# plugins an application may load besides those its steps need
EXTRA_PLUGINS = ["xep_0030", "xep_0004", "xep_0012", "xep_0045", "xep_0054", "xep_0060", "xep_0066", "xep_0071",
                 "xep_0077", "xep_0084", "xep_0085", "xep_0092", "xep_0107", "xep_0108", "xep_0115", "xep_0118",
                 "xep_0128", "xep_0131", "xep_0153", "xep_0163", "xep_0172", "xep_0184", "xep_0191", "xep_0196",
                 "xep_0198", "xep_0199", "xep_0202", "xep_0203", "xep_0221", "xep_0224", "xep_0231", "xep_0249",
                 "xep_0280", "xep_0297", "xep_0308", "xep_0313", "xep_0319", "xep_0333", "xep_0352", "xep_0359",
                 "xep_0380", "xep_0394", "xep_0424", "xep_0428", "xep_0444", "xep_0047", "xep_0050", "xep_0048",
                 "xep_0049", "xep_0223", "xep_0100", "xep_0356", "xep_0009", "xep_0020", "xep_0095", "xep_0096",
                 "xep_0078", "xep_0138", "xep_0079"]
EXTRA_PLUGINS = [p for p in dict.fromkeys(EXTRA_PLUGINS) if p in ALL_PLUGINS]

# session steps: name -> (weight, plugins the step needs, needs the peer)
OPS = {
    "chat": (14, [], True), "chat_rich": (5, ["xep_0184", "xep_0085", "xep_0071", "xep_0333"], True),
    "message_unknown": (3, [], False), "presence": (6, [], False), "subscribe": (5, [], True),
    "roster_set": (5, [], True), "roster_get": (3, [], False), "ping": (8, ["xep_0199"], False),
    "version": (4, ["xep_0092"], False), "disco": (7, ["xep_0030"], False), "vcard": (4, ["xep_0054"], False),
    "last": (2, ["xep_0012"], False), "time": (2, ["xep_0202"], False),
    "private": (2, ["xep_0049", "xep_0048"], False),
    "blocklist": (3, ["xep_0191"], False), "carbons": (2, ["xep_0280"], False), "mam": (2, ["xep_0313"], False),
    "muc": (8, ["xep_0045"], False), "muc_invite": (2, ["xep_0045", "xep_0249"], True),
    "ibb": (2, ["xep_0047"], True), "adhoc": (3, ["xep_0050"], False), "attention": (1, ["xep_0224"], True),
    "csi": (1, ["xep_0352"], False), "mood": (2, ["xep_0107"], False), "uncaught": (3, ["xep_0199"], False),
    "handler_error": (2, [], False), "peer_uncaught": (2, ["xep_0199"], True), "reconnect": (3, [], False),
    "sm_resume": (3, ["xep_0198"], False), "wait": (3, [], False), "burst": (1, [], True),
    "oob": (1, ["xep_0066"], True),
    "legacy_props": (2, [], False), "probe_plugin": (2, [], False), "orphan_stanza": (1, [], False),
}
# last steps that end the session from the server's side (or the client's)
FATAL = {"conflict": 5, "admin_kick": 3, "admin_delete": 2, "password_change": 3, "unregister": 2, "too_big": 3,
         "garbage": 3, "abort": 3, "shutdown_wait0": 2}


class Case:
    """One seeded case: an application's clients, servers and steps."""

    def __init__(self, i, r, env):
        self.i = i
        self.r = r
        self.env = env
        self.px = env["prosody"]
        self.st = {}
        self.notes = []
        self.clients = []
        self.servers = []
        self.ports = []
        self.kind = None
        self.a = self.b = None
        self.pconf = {}  # plugin configurations a case imposes

    def count(self, k, n=1):
        self.st[k] = self.st.get(k, 0) + n

    def note(self, s):
        self.notes.append(s)

    # -- clients ---------------------------------------------------------------
    def configure(self, c, plugins):
        r = self.r
        # IPv6 lookups answer ::1 where nothing listens: slixmpp then retries after a second
        c.use_ipv6 = r.random() < 0.12
        if r.random() < 0.05:
            c.use_aiodns = False
            c.use_ipv6 = False  # the system resolver could ask the name server for localhost's AAAA
        c.ca_certs = pick(r, [(88, "cert"), (7, None), (5, "other")])
        if c.ca_certs:
            c.ca_certs = Path(self.px.certs[c.ca_certs])
        if r.random() < 0.06:  # a client certificate: the server's own pair, or files that are not there
            good = r.random() < 0.6
            c.certfile = self.px.certs["cert"] if good else os.path.join(self.env["tmp"], "missing-cert.pem")
            c.keyfile = self.px.certs["key"] if good else os.path.join(self.env["tmp"], "missing-key.pem")
        if r.random() < 0.1:
            c.whitespace_keepalive_interval = r.choice([0.3, 0.6])
        elif r.random() < 0.2:
            c.whitespace_keepalive = False
        if plugins == "all":
            c.register_plugins()  # every plugin slixmpp ships, as some applications do
            self.count("all plugins")
            return
        for p in plugins:
            cfg = None
            if p == "xep_0199" and r.random() < 0.25:
                cfg = {"keepalive": True, "interval": r.choice([0.4, 1]), "timeout": r.choice([0.5, 1, 2])}
            elif p == "xep_0198" and r.random() < 0.3:
                cfg = {"window": r.choice([1, 2, 5]), "allow_resume": r.random() < 0.8}
            elif p == "xep_0184" and r.random() < 0.5:
                cfg = {"auto_request": True, "auto_ack": r.random() < 0.8}
            elif p == "xep_0030" and r.random() < 0.2:
                cfg = {"use_cache": r.random() < 0.5, "wrap_results": r.random() < 0.5}
            cfg = self.pconf.get(p, cfg)
            try:
                c.register_plugin(p, pconfig=cfg)
            except Exception:  # noqa: BLE001  a plugin that cannot load here (missing module)
                self.count("plugin failed " + p)

    def plugins_for(self, ops, extra=True):
        r = self.r
        if r.random() < 0.025:
            return "all"
        ps = []
        for op in ops:
            ps += OPS.get(op, (0, [], False))[1]
        if extra:
            ps += r.sample(EXTRA_PLUGINS, pick(r, [(40, 0), (35, 1), (20, 3), (5, 6)]))
        if r.random() < 0.6:
            ps.insert(0, "xep_0030")
        return list(dict.fromkeys(ps))

    def client(self, role, jid, pw, plugins=(), **kw):
        c = Client(role, jid, pw, **kw)
        self.configure(c, plugins)
        self.clients.append(c)
        return c

    def transport(self, host=DOMAIN):
        """How the application reaches the server: (port, connect() keywords)."""
        r = self.r
        how = pick(r, [(55, "starttls"), (15, "direct_tls"), (25 if host != SECURE else 8, "plain"),
                       (5, "starttls_default")])
        self.note(how)
        if how == "direct_tls":
            return self.px.tls_port, {"use_ssl": True}
        if how == "plain":
            return self.px.port, {"disable_starttls": True}
        if how == "starttls_default":
            return self.px.port, {}
        return self.px.port, {"force_starttls": r.choice([True, None])}

    async def login(self, c, port=None, kw=None, timeout=6, host=None, redirects=False):
        """Connects c and waits for its session (or how it failed; through
        stream errors and disconnections when a redirect is expected)."""
        if port is None:
            port, kw = self.transport(host or c.boundjid.host)
        r = self.r
        if r.random() < 0.08:
            c.add_event_handler("ssl_invalid_chain", self.invalid_chain(c))
        fut = c.watch(*(["session_start", "failed_all_auth", "no_auth", "session_resumed", "ssl_invalid_chain"]
                        + ([] if redirects else ["disconnected", "stream_error"])))
        c.connect((HOST, port), **kw)
        res = await outcome(fut, timeout)
        self.count("login " + res)
        if res == "timeout" and c.is_connecting():
            c.cancel_connection_attempt()
        return res

    def invalid_chain(self, c):
        def h(err):
            # the application's policy for a certificate it cannot verify: give up
            c.disconnect(0.2, "certificate not trusted")
        return h

    async def bye(self, c, wait=None):
        """The application ends a client's session and waits for slixmpp to be done."""
        if c.transport is None and not c.is_connecting():
            return
        r = self.r
        fut = c.watch("disconnected")
        if c.is_connecting():
            c.cancel_connection_attempt()
        how = pick(r, [(80, "disconnect"), (10, "disconnect_now"), (5, "abort"), (5, "ignore_queue")])
        if how == "abort":
            c.abort()
        elif how == "disconnect_now":
            c.disconnect(0, "bye")
        else:
            c.disconnect(wait if wait is not None else r.choice([0.5, 1, 2]),
                         reason=r.choice([None, "done", "application exiting"]),
                         ignore_send_queue=how == "ignore_queue")
        await outcome(fut, 3)

    def profile(self):
        r = self.r
        prof = pick(r, [(25, "debug"), (35, "no-wire"), (15, "no-plumbing"), (15, "quiet"), (10, "info")])
        self.note("profile=" + prof)
        if prof in ("no-wire", "quiet"):
            for n in QUIET_LOGGERS:
                logging.getLogger(n).setLevel(logging.INFO)
        if prof in ("no-plumbing", "quiet"):
            for n in PLUMBING:
                logging.getLogger(n).setLevel(logging.INFO)
        elif prof == "info":
            logging.getLogger("slixmpp").setLevel(logging.INFO)

    # -- the case ----------------------------------------------------------------
    async def run(self):
        r = self.r
        self.kind = pick(r, [(56, "session"), (10, "auth"), (7, "register"), (6, "component"), (14, "fake"),
                             (3, "noserver"), (4, "anon")])
        self.count("kind " + self.kind)
        self.note(self.kind)
        self.profile()
        await getattr(self, "case_" + self.kind)()

    async def cleanup(self):
        for c in self.clients:
            try:
                if c.is_connecting():
                    c.cancel_connection_attempt()
                if c.transport is not None:
                    c.abort()
            except Exception:  # noqa: BLE001
                pass
        for s in self.servers:
            s.close()
        await asyncio.sleep(0)

    # -- sessions against prosody ------------------------------------------------
    def has(self, c, p):
        return c is not None and p in c.plugin

    async def case_session(self):
        r = self.r
        i = self.i
        ops = [pick(r, [(w, k) for k, (w, _, _) in OPS.items()]) for _ in range(r.randint(1, 7))]
        fatal = pick(r, [(w, k) for k, w in FATAL.items()]) if r.random() < 0.22 else None
        peer = any(OPS[o][2] for o in ops) or fatal == "password_change" or r.random() < 0.25
        host = SECURE if r.random() < 0.12 else DOMAIN
        res = r.choice(["bench", "laptop", "phone%d" % i, None])
        mech = pick(r, [(70, None), (10, "SCRAM-SHA-1"), (8, "SCRAM-SHA-256"), (6, "PLAIN"),
                        (3, "SCRAM-SHA-1-PLUS"), (3, "DIGEST-MD5")])
        self.note("ops=%s fatal=%s host=%s mech=%s" % (",".join(ops), fatal, host, mech))
        if "private" in ops and r.random() < 0.5:  # bookmarks with autojoin, joined at the next session
            self.pconf["xep_0048"] = {"auto_join": True, "storage_method": "xep_0049"}
        a = self.client("a", "%s@%s%s" % (user(i, "a"), host, "/" + res if res else ""), password(i, "a"),
                        self.plugins_for(ops + ([fatal] if fatal else [])), sasl_mech=mech)
        if fatal in ("password_change", "unregister") and not self.has(a, "xep_0077"):
            a.register_plugin("xep_0077")
        if mech == "PLAIN" and r.random() < 0.6:
            a["feature_mechanisms"].config["unencrypted_plain"] = True  # the application allows it on localhost
        self.a = a
        if r.random() < 0.05:
            a.add_event_handler("session_start", self.broken_start(a))
        b = None
        if peer:
            b = self.client("b", "%s@%s/peer" % (user(i, "b"), DOMAIN), password(i, "b"),
                            self.plugins_for(ops))
            b.echo = r.random() < 0.6
            b.auto_authorize = r.choice([True, True, False, None])
            b.auto_subscribe = r.random() < 0.5
            self.b = b
            self.peer_setup(b)
            if await self.login(b) != "session_start":
                b = self.b = None
            else:
                b.send_presence()
        got = await self.login(a)
        if got != "session_start":
            self.note("a: " + got)
        else:
            if r.random() < 0.85:
                a.send_presence(pstatus=r.choice([None, "working"]))
                try:
                    await a.get_roster(timeout=3)
                except IQ_ERRORS:
                    pass
            for op in ops:
                if a.transport is None:
                    self.count("session lost")
                    break
                if not all(self.has(a, p) for p in OPS[op][1]):
                    continue  # register_plugins() leaves some out (XEP-0048 needs a storage choice)
                self.count("op " + op)
                await getattr(self, "op_" + op)()
                if r.random() < 0.4:
                    await asyncio.sleep(r.choice([0.02, 0.05, 0.1]))
            if fatal and a.transport is not None:
                self.count("fatal " + fatal)
                await getattr(self, "fatal_" + fatal)()
        for c in list(self.clients):
            await self.bye(c)

    def broken_start(self, c):
        """A session_start handler of the application that fails."""
        if self.r.random() < 0.5:
            def h(event):
                raise AppError("profile store unavailable for %s" % c.boundjid.bare)
        else:
            async def h(event):
                await asyncio.sleep(0)
                raise KeyError("settings")
        return h

    def peer_setup(self, b):
        """What the peer's application serves."""
        r = self.r
        if self.has(b, "xep_0050"):
            if r.random() < 0.5:
                def handler(iq, session):
                    session["notes"] = [("info", "peer is fine")]
                    session["has_next"] = False
                    return session
            else:
                async def handler(iq, session):
                    await asyncio.sleep(0)
                    session["notes"] = [("info", "peer is busy")]
                    session["has_next"] = False
                    return session
            b["xep_0050"].add_command(node="status", name="Status", handler=handler)
        if self.has(b, "xep_0047"):
            b["xep_0047"].auto_accept = r.random() < 0.8
        # a request the peer's application never answers
        b.register_handler(slixmpp.Callback("bench slow",
                                            slixmpp.MatchXPath("{jabber:client}iq/{urn:bench:slow}query"),
                                            lambda iq: None))
        if r.random() < 0.3:
            slow = r.random() < 0.4

            async def grumpy(msg):
                # the peer's message handler makes a request and lets its failure escape
                if msg["body"] != "check":
                    return
                if slow:  # to itself, where nothing answers: IqTimeout
                    await b.make_iq_get(queryxmlns="urn:bench:slow", ito=b.boundjid.full).send(timeout=0.5)
                elif self.has(b, "xep_0199"):
                    await b["xep_0199"].ping("nobody%d@%s" % (self.i, DOMAIN), timeout=2)
                else:
                    await b.make_iq_get(queryxmlns="urn:bench:none", ito=DOMAIN).send(timeout=2)
            b.add_event_handler("message", grumpy)

    def peer_jid(self, full=True):
        b = self.b
        if b is None or b.transport is None:
            return "%s@%s" % (user(self.i, "c"), DOMAIN)  # an account that is not online
        return b.boundjid.full if full else b.boundjid.bare

    def target(self):
        """Whom a request goes to: the server, the peer, the MUC service, nobody, a remote domain, oneself."""
        return pick(self.r, [(30, DOMAIN), (20, self.peer_jid()), (8, self.peer_jid(False)), (8, MUC),
                             (8, "nobody%d@%s" % (self.i, DOMAIN)), (6, "elsewhere.test"),
                             (5, self.a.boundjid.bare)])

    async def iq(self, aw):
        try:
            return await aw
        except IqError as e:
            self.count("iq error " + e.iq["error"]["condition"])
        except XMPPError as e:  # raised locally (a lookup with no local data)
            self.count("local error " + e.condition)
        except IqTimeout:
            self.count("iq timeout")
        except asyncio.TimeoutError:
            self.count("timeout")
        return None

    async def op_chat(self):
        r = self.r
        for _ in range(r.randint(1, 3)):
            self.a.send_message(mto=self.peer_jid(r.random() < 0.5), mbody=r.choice(["hi", "lunch?", "ping me",
                                                                                   "check", "ok"]),
                                mtype=r.choice(["chat", "chat", "normal", None]))
        await asyncio.sleep(r.choice([0.1, 0.2]))

    async def op_chat_rich(self):
        r = self.r
        a = self.a
        m = a.make_message(mto=self.peer_jid(), mbody="see this", mtype="chat")
        if self.has(a, "xep_0085"):
            m["chat_state"] = "active"
            c = a.make_message(mto=self.peer_jid(), mtype="chat")
            c["chat_state"] = "composing"
            c.send()
        if self.has(a, "xep_0184"):
            m["request_receipt"] = True
        if self.has(a, "xep_0333") and r.random() < 0.5:
            m["markable"] = True
        if self.has(a, "xep_0071") and r.random() < 0.5:
            m["html"]["body"] = "<p>see <b>this</b></p>"
        m.send()
        await asyncio.sleep(0.2)

    async def op_message_unknown(self):
        self.a.send_message(mto=self.r.choice(["nobody%d@%s" % (self.i, DOMAIN), "someone@elsewhere.test"]),
                            mbody="anyone there?", mtype="chat")
        await asyncio.sleep(0.15)

    async def op_presence(self):
        r = self.r
        self.a.send_presence(pshow=r.choice([None, "away", "dnd", "xa", "chat"]),
                             pstatus=r.choice([None, "in a meeting", "back soon"]),
                             ppriority=r.choice([None, 0, 5, -1]))
        await asyncio.sleep(0.05)

    async def op_subscribe(self):
        r = self.r
        a = self.a
        a.send_presence(pto=self.peer_jid(False), ptype="subscribe")
        await asyncio.sleep(0.25)
        if r.random() < 0.3:
            a.send_presence(pto=self.peer_jid(False), ptype=r.choice(["unsubscribe", "unsubscribed"]))
            await asyncio.sleep(0.1)

    async def op_roster_set(self):
        r = self.r
        a = self.a
        jid = self.peer_jid(False)
        await self.iq(a.update_roster(jid, name=r.choice(["Peer", "Bob", None]), groups=r.choice([[], ["Friends"],
                                                                                               ["Work", "Bench"]]),
                                      timeout=3))
        if r.random() < 0.3:
            await self.iq(a.del_roster_item(jid))

    async def op_roster_get(self):
        await self.iq(self.a.get_roster(timeout=3))

    async def op_ping(self):
        r = self.r
        await self.iq(self.a["xep_0199"].ping(self.target(), timeout=r.choice([1, 3])))

    async def op_version(self):
        await self.iq(self.a["xep_0092"].get_version(self.target(), timeout=3))

    async def op_disco(self):
        r = self.r
        a = self.a
        d = a["xep_0030"]
        t = self.target()
        how = pick(r, [(40, "info"), (30, "items"), (10, "local"), (10, "cached"), (10, "node")])
        if how == "info":
            await self.iq(d.get_info(jid=t, timeout=3))
        elif how == "items":
            await self.iq(d.get_items(jid=t, timeout=3))
        elif how == "local":
            await self.iq(d.get_info(jid=a.boundjid.full, local=True))
        elif how == "cached":
            await self.iq(d.get_info(jid=t, cached=True, timeout=3))
            await self.iq(d.get_info(jid=t, cached=True, timeout=3))
        else:
            await self.iq(d.get_items(jid=DOMAIN, node="http://jabber.org/protocol/commands", timeout=3))

    async def op_vcard(self):
        r = self.r
        a = self.a
        if r.random() < 0.6:
            vc = a["xep_0054"].make_vcard()
            vc["FN"] = "Bench User %d" % self.i
            vc["NICKNAME"] = r.choice(["al", "bench"])
            await self.iq(a["xep_0054"].publish_vcard(vc, timeout=3))
        await self.iq(a["xep_0054"].get_vcard(r.choice([a.boundjid.bare, self.peer_jid(False),
                                                         "nobody%d@%s" % (self.i, DOMAIN)]),
                                              cached=r.random() < 0.3, timeout=3))

    async def op_last(self):
        a = self.a
        if self.r.random() < 0.3:
            try:  # answered from the application's own records, which may hold nothing
                aw = a["xep_0012"].get_last_activity(a.boundjid, local=True)
            except XMPPError as e:
                self.count("local error " + e.condition)
                return
            await self.iq(aw)
        else:
            await self.iq(a["xep_0012"].get_last_activity(self.target(), timeout=3))

    async def op_time(self):
        await self.iq(self.a["xep_0202"].get_entity_time(self.target(), timeout=3))

    async def op_private(self):
        """Bookmarks in private XML storage (XEP-0048 over XEP-0049)."""
        a = self.a
        x = a["xep_0048"]
        if self.r.random() < 0.6:
            marks = x.stanza.Bookmarks()
            marks.add_conference(self.room(), "bench", autojoin=self.r.random() < 0.5)
            marks.add_url("http://example.test/", name="example")
            await self.iq(x.set_bookmarks(marks, method="xep_0049", timeout=3))
            if x.config.get("auto_join") and self.r.random() < 0.6:
                await self.op_reconnect()  # the next session joins the bookmarked room
                return
        await self.iq(x.get_bookmarks(method="xep_0049", timeout=3))

    async def op_blocklist(self):
        r = self.r
        a = self.a
        jids = r.choice([["spam%d@%s" % (self.i, DOMAIN)], [self.peer_jid(False)], ["elsewhere.test", "x@y.test"]])
        await self.iq(a["xep_0191"].block(jids, timeout=3))
        await self.iq(a["xep_0191"].get_blocked(timeout=3))
        if r.random() < 0.7:
            await self.iq(a["xep_0191"].unblock(jids, timeout=3))

    async def op_carbons(self):
        a = self.a
        await self.iq(a["xep_0280"].enable(timeout=3))
        if self.r.random() < 0.5:
            await self.iq(a["xep_0280"].disable(timeout=3))

    async def op_mam(self):
        a = self.a
        await self.iq(a["xep_0313"].retrieve(with_jid=self.peer_jid(False) if self.r.random() < 0.5 else None,
                                             timeout=3))

    def room(self):
        return "room%d-%d@%s" % (self.i, self.r.randint(1, 2), MUC)

    async def join(self, c, room, nick):
        try:
            pres = (await c["xep_0045"].join_muc_wait(room, nick, maxstanzas=self.r.choice([0, 5]), timeout=1.5))[0]
        except Exception as e:  # noqa: BLE001  PresenceError (nick taken), timeouts (a locked room's refusal)
            self.count("muc join failed " + type(e).__name__)
            self.note("join %s %s/%s: %s" % (c.role, room, nick, type(e).__name__))
            return False
        if 201 in pres["muc"]["status_codes"] and self.r.random() < 0.6:
            # Prosody keeps a new room locked until its owner configures it: most
            # applications accept the defaults (an "instant room"), the others forget
            form = c["xep_0004"].make_form(ftype="submit")
            await self.iq(c["xep_0045"].set_room_config(room, form, timeout=3))
        return True

    async def op_muc(self):
        r = self.r
        a = self.a
        m = a["xep_0045"]
        room = self.room()
        nick = r.choice(["alice", "al", "bench"])
        if r.random() < 0.15:
            def relabel(pres):
                # the application tries to rewrite what the room reports: the plugin refuses
                if r.random() < 0.5:
                    pres["muc"]["nick"] = pres["muc"]["nick"].upper()
                else:
                    del pres["muc"]["room"]
            a.add_event_handler("groupchat_presence", relabel, disposable=True)
        if not await self.join(a, room, nick):
            return
        a.send_message(mto=room, mbody="hello room", mtype="groupchat")
        for _ in range(r.randint(0, 3)):
            what = pick(r, [(3, "subject"), (3, "config"), (2, "nick"), (2, "peer"), (2, "affiliation"),
                            (1, "destroy")])
            if what == "subject":
                m.set_subject(room, r.choice(["bench talk", ""]))
            elif what == "config":
                form = await self.iq(m.get_room_config(room, timeout=3))
                if form is not None and r.random() < 0.5:
                    await self.iq(m.set_room_config(room, form, timeout=3))
            elif what == "nick":
                a.send_presence(pto="%s/%s2" % (room, nick))
            elif what == "peer" and self.b is not None and self.has(self.b, "xep_0045"):
                await self.join(self.b, room, r.choice([nick, "bob"]))
            elif what == "affiliation":
                await self.iq(m.set_affiliation(room, r.choice(["member", "outcast", "admin"]),
                                                jid=self.peer_jid(False), timeout=3))
            elif what == "destroy":
                await self.iq(m.destroy(room, reason="done", timeout=3))
            await asyncio.sleep(0.05)
        if r.random() < 0.7:
            m.leave_muc(room, nick, msg=r.choice(["", "bye"]))
        await asyncio.sleep(0.1)

    async def op_muc_invite(self):
        r = self.r
        a = self.a
        room = self.room()
        if not await self.join(a, room, "host"):
            return
        b = self.b
        if r.random() < 0.5:
            a["xep_0249"].send_invitation(self.peer_jid(False), room, reason="join us")
        else:
            a["xep_0045"].invite(room, self.peer_jid(False), reason="come")
        await asyncio.sleep(0.15)
        if b is not None and self.has(b, "xep_0045") and r.random() < 0.6:
            await self.join(b, room, "guest")

    async def op_ibb(self):
        r = self.r
        try:
            stream = await asyncio.wait_for(self.a["xep_0047"].open_stream(self.peer_jid(), timeout=3), 4)
        except (IqError, IqTimeout, asyncio.TimeoutError) as e:
            self.count("ibb refused " + type(e).__name__)
            return
        try:
            await asyncio.wait_for(stream.sendall(b"x" * r.choice([10, 3000, 9000])), 4)
            await asyncio.wait_for(stream.close(), 3)
        except (IqError, IqTimeout, asyncio.TimeoutError):
            self.count("ibb failed")

    async def op_adhoc(self):
        r = self.r
        a = self.a
        x = a["xep_0050"]
        how = pick(r, [(3, "list"), (3, "admin"), (3, "peer"), (2, "peer_unknown")])
        if how == "list":
            await self.iq(x.get_commands(DOMAIN, timeout=3))
        elif how == "admin":  # not an admin: forbidden
            await self.iq(x.send_command(DOMAIN, "http://jabber.org/protocol/admin#get-online-users-list",
                                         timeout=3))
        else:
            node = "status" if how == "peer" else "reboot"
            await self.iq(x.send_command(self.peer_jid(), node, timeout=3))

    async def op_attention(self):
        self.a["xep_0224"].request_attention(self.peer_jid(), mbody="look!")
        await asyncio.sleep(0.1)

    async def op_csi(self):
        a = self.a
        x = a["xep_0352"]
        x.send_inactive()
        await asyncio.sleep(0.05)
        x.send_active()

    async def op_mood(self):
        await self.iq(self.a["xep_0107"].publish_mood(self.r.choice(["happy", "tired", "curious"]), text="bench",
                                                      timeout=3))

    async def op_uncaught(self):
        """A coroutine handler of the application that lets an IQ error or timeout escape."""
        r = self.r
        a = self.a
        slow = self.b is not None and r.random() < 0.4

        async def job(data):
            if slow:
                await a.make_iq_get(queryxmlns="urn:bench:slow", ito=self.peer_jid()).send(timeout=0.4)
            else:
                await a["xep_0199"].ping(r.choice(["nobody%d@%s" % (self.i, DOMAIN), "elsewhere.test",
                                                   self.peer_jid()]), timeout=2)
        a.add_event_handler("bench_job", job, disposable=True)
        a.event("bench_job", {})
        await asyncio.sleep(0.6 if slow else 0.2)

    async def op_handler_error(self):
        r = self.r
        a = self.a
        if r.random() < 0.5:
            def h(data):
                raise AppError("presence hook failed")
        else:
            async def h(data):
                raise ValueError("bad status %r" % (data,))
        a.add_event_handler("sent_presence", h, disposable=True)
        a.send_presence(pstatus="busy")
        await asyncio.sleep(0.05)

    async def op_peer_uncaught(self):
        self.a.send_message(mto=self.peer_jid(), mbody="check", mtype="chat")
        await asyncio.sleep(0.7)

    async def op_reconnect(self):
        r = self.r
        a = self.a
        fut = a.watch("session_start", "session_resumed")
        a.reconnect(r.choice([0.2, 1]), r.choice(["Reconnecting", "network changed"]))
        self.count("reconnect " + await outcome(fut, 6))

    async def op_sm_resume(self):
        a = self.a
        fut = a.watch("disconnected")
        a.abort()
        await outcome(fut, 2)
        await asyncio.sleep(self.r.choice([0, 0.2]))
        fut = a.watch("session_start", "session_resumed", "disconnected")
        a.connect()
        self.count("resume " + await outcome(fut, 6))

    async def op_oob(self):
        await self.iq(self.a["xep_0066"].send_oob(self.peer_jid(), "http://example.test/file.txt",
                                                  desc="a file", timeout=2))

    async def op_legacy_props(self):
        """Application code written for SleekXMPP reads the old JID properties."""
        a = self.a
        for name in self.r.sample(["jid", "fulljid", "resource", "username", "server"], self.r.randint(1, 3)):
            self.note("%s=%s" % (name, getattr(a, name)))

    async def op_probe_plugin(self):
        """The application asks for an optional plugin by name and copes without it."""
        a = self.a
        name = self.r.choice(["xep_0184", "xep_0085", "xep_0333", "xep_0199", "xep_0092"])
        if a[name]:
            self.count("probed plugin present")
        else:
            a.send_message(mto=self.peer_jid(), mbody="plain message", mtype="chat")

    async def op_orphan_stanza(self):
        """A stanza built without its stream and sent: slixmpp logs it and drops it."""
        from slixmpp.stanza import Message
        m = Message()
        m["to"] = self.peer_jid()
        m["body"] = "lost"
        m.send()

    async def op_wait(self):
        await asyncio.sleep(self.r.choice([0.3, 0.8, 1.5]))

    async def op_burst(self):
        for k in range(self.r.randint(5, 20)):
            self.a.send_message(mto=self.peer_jid(), mbody="line %d" % k, mtype="chat")
        await asyncio.sleep(0.2)

    # -- ends of sessions ------------------------------------------------------------
    async def fatal_conflict(self):
        """The same full JID logs in again: prosody ends the older stream (conflict)."""
        a = self.a
        fut = a.watch("disconnected")
        jid = a.boundjid.full
        twin = self.client("twin", jid, password(self.i, "a"), [])
        await self.login(twin, host=a.boundjid.host)
        self.count("conflict " + await outcome(fut, 3))

    async def admin(self):
        adm = self.client("admin", "%s@%s/adm%d" % (ADMIN[0], DOMAIN, self.i), ADMIN[1], ["xep_0030", "xep_0050",
                                                                                         "xep_0004"])
        if await self.login(adm, self.px.port, {"disable_starttls": True}) != "session_start":
            return None
        return adm

    async def run_admin_command(self, node, values):
        adm = await self.admin()
        if adm is None:
            return
        x = adm["xep_0050"]
        try:
            first = await x.send_command(DOMAIN, node, timeout=3)
            form = first["command"]["form"]
            sid = first["command"]["sessionid"]
            reply = form.__class__()
            reply["type"] = "submit"
            for k, v in values.items():
                reply.add_field(var=k, value=v)
            reply.add_field(var="FORM_TYPE", ftype="hidden", value="http://jabber.org/protocol/admin")
            await x.send_command(DOMAIN, node, sessionid=sid, payload=reply, action="complete", timeout=3)
        except IQ_ERRORS as e:
            self.count("admin command failed " + type(e).__name__)

    async def fatal_admin_kick(self):
        a = self.a
        fut = a.watch("disconnected")
        await self.run_admin_command("http://jabber.org/protocol/admin#end-user-session",
                                     {"accountjids": [a.boundjid.full if self.r.random() < 0.5 else a.boundjid.bare]})
        self.count("kicked " + await outcome(fut, 3))

    async def fatal_admin_delete(self):
        a = self.a
        if a.boundjid.host != DOMAIN:
            return await self.fatal_admin_kick()
        fut = a.watch("disconnected")
        await self.run_admin_command("http://jabber.org/protocol/admin#delete-user", {"accountjids": [a.boundjid.bare]})
        self.count("deleted " + await outcome(fut, 3))

    async def fatal_password_change(self):
        """A second resource changes the password: prosody resets the other streams."""
        a = self.a
        fut = a.watch("disconnected")
        other = self.client("a2", a.boundjid.bare + "/second", password(self.i, "a"), ["xep_0077"])
        if await self.login(other, host=a.boundjid.host) == "session_start":
            await self.iq(other["xep_0077"].change_password("new-" + password(self.i, "a"), timeout=3))
        self.count("password reset " + await outcome(fut, 3))

    async def fatal_unregister(self):
        a = self.a
        fut = a.watch("disconnected")
        await self.iq(a["xep_0077"].cancel_registration(timeout=3))
        self.count("unregistered " + await outcome(fut, 3))

    async def fatal_too_big(self):
        a = self.a
        fut = a.watch("disconnected")
        a.send_message(mto=self.peer_jid(), mbody="z" * (STANZA_LIMIT + 5000), mtype="chat")
        self.count("too big " + await outcome(fut, 3))

    async def fatal_garbage(self):
        a = self.a
        fut = a.watch("disconnected")
        a.send_raw(self.r.choice(["<message><body>half", "<<<", "<iq type='get'><query xmlns='x'></iq>"]))
        self.count("garbage " + await outcome(fut, 4))

    async def fatal_abort(self):
        self.a.abort()
        await asyncio.sleep(0.05)

    async def fatal_shutdown_wait0(self):
        fut = self.a.watch("disconnected")
        self.a.disconnect(0)
        await outcome(fut, 2)

    # -- logins that fail --------------------------------------------------------------
    async def case_auth(self):
        r = self.r
        i = self.i
        what = pick(r, [(25, "wrong_password"), (15, "unknown_user"), (10, "plain_refused"), (8, "secure_plain"),
                        (8, "host_unknown"), (6, "saslprep"), (8, "mech_missing"), (8, "anon_refused"),
                        (6, "bad_ca"), (6, "empty_password")])
        self.note(what)
        self.count("auth " + what)
        host, port, kw, mech, pw = DOMAIN, None, None, None, password(i, "a")
        name = user(i, "a")
        if what == "wrong_password":
            pw = "not-" + pw
            host = r.choice([DOMAIN, DOMAIN, SECURE])
        elif what == "unknown_user":
            name = "ghost%d" % i
        elif what == "plain_refused":  # PLAIN over an unencrypted stream: slixmpp will not
            mech, port, kw = "PLAIN", self.px.port, {"disable_starttls": True}
        elif what == "secure_plain":  # the host wants TLS first, the application disabled it
            host, port, kw = SECURE, self.px.port, {"disable_starttls": True}
        elif what == "host_unknown":
            host = "nowhere.localhost"
        elif what == "saslprep":
            pw = "bad\u0007password"
        elif what == "mech_missing":
            mech = r.choice(["X-OAUTH2", "CRAM-MD5", "EXTERNAL", "DIGEST-MD5"])
        elif what == "anon_refused":
            mech = "ANONYMOUS"
        elif what == "bad_ca":
            port, kw = self.px.port, {}
        elif what == "empty_password":
            pw = ""
        plugins = self.plugins_for([], extra=r.random() < 0.5)
        c = self.client("a", "%s@%s/%s" % (name, host, r.choice(["bench", "x"])), pw, plugins, sasl_mech=mech)
        if what == "bad_ca":
            c.ca_certs = Path(self.px.certs["other"]) if r.random() < 0.5 else None
        if r.random() < 0.3:  # the application retries with another password once
            def again(stanza):
                c.password = password(i, "a") if r.random() < 0.5 else "still-wrong"
            c.add_event_handler("failed_auth", again, disposable=True)
        got = await self.login(c, port, kw, host=host)
        self.note(got)
        await self.bye(c)

    async def case_anon(self):
        r = self.r
        c = self.client("a", ANON, "", self.plugins_for(["ping", "disco"], extra=r.random() < 0.5))
        got = await self.login(c, host=ANON)
        if got == "session_start":
            c.send_presence()
            for op in r.sample(["ping", "disco", "version", "message"], r.randint(1, 3)):
                if op == "ping" and self.has(c, "xep_0199"):
                    await self.iq(c["xep_0199"].ping(ANON, timeout=2))
                elif op == "disco" and self.has(c, "xep_0030"):
                    await self.iq(c["xep_0030"].get_info(ANON, timeout=2))
                elif op == "version" and self.has(c, "xep_0092"):
                    await self.iq(c["xep_0092"].get_version(DOMAIN, timeout=2))
                else:
                    c.send_message(mto="%s@%s" % (user(self.i, "b"), DOMAIN), mbody="from nobody")
                    await asyncio.sleep(0.1)
        await self.bye(c)

    # -- in-band registration ------------------------------------------------------------
    async def case_register(self):
        r = self.r
        i = self.i
        what = pick(r, [(45, "new"), (15, "taken"), (10, "closed_host"), (10, "form_cancel"), (10, "weak"),
                        (10, "no_handler")])
        self.note(what)
        self.count("register " + what)
        host = SECURE if what == "closed_host" else DOMAIN
        name = user(i, "a") if what == "taken" else "new%d" % i
        pw = "x" if what == "weak" else "fresh-pw-%d" % i
        ps = self.plugins_for([])
        c = self.client("a", "%s@%s/reg" % (name, host), pw, ps if ps == "all" else ["xep_0077"] + ps)
        if r.random() < 0.3:
            c["xep_0077"].config["force_registration"] = True
        if r.random() < 0.75:
            # slixmpp 1.8 holds back every stanza before the session starts, the
            # registration form's request too: applications that register set this
            c._always_send_everything = True

        async def register(form):
            resp = c.Iq()
            resp["type"] = "set"
            if what == "form_cancel":
                resp["register"]["remove"] = True
            else:
                resp["register"]["username"] = c.boundjid.user
                resp["register"]["password"] = c.password
            try:
                await resp.send(timeout=3)
                self.count("registered")
            except IqError as e:
                self.count("registration refused " + e.iq["error"]["condition"])
                c.disconnect(0.5)
            except IqTimeout:
                c.disconnect(0.5)
        if what != "no_handler":
            c.add_event_handler("register", register)
        got = await self.login(c, host=host, timeout=3)
        self.note(got)
        if got == "session_start":
            c.send_presence()
            if r.random() < 0.5:
                await self.iq(c["xep_0077"].change_password("changed-%d" % i, timeout=3))
            if r.random() < 0.5:
                fut = c.watch("disconnected")
                await self.iq(c["xep_0077"].cancel_registration(timeout=3))
                await outcome(fut, 2)
        await self.bye(c)

    # -- an external component ---------------------------------------------------------------
    async def case_component(self):
        r = self.r
        i = self.i
        slot = self.env["slot"]
        what = pick(r, [(70, "ok"), (15, "bad_secret"), (15, "unknown_domain")])
        self.note(what)
        self.count("component " + what)
        jid = "bot%d.%s" % (slot, DOMAIN) if what != "unknown_domain" else "ghost%d.%s" % (slot, DOMAIN)
        comp = Component(jid, COMP_SECRET if what != "bad_secret" else "guess", self.px.comp_port)
        comp.use_ipv6 = r.random() < 0.12
        plugins = self.plugins_for(["disco", "version"], extra=r.random() < 0.5)
        if plugins == "all":
            comp.register_plugins()
        else:
            for p in plugins + ["xep_0030", "xep_0092", "xep_0199"]:
                try:
                    comp.register_plugin(p)
                except Exception:  # noqa: BLE001
                    self.count("plugin failed " + p)
        self.clients.append(comp)
        fut = comp.watch("session_start", "disconnected", "stream_error")
        comp.connect()
        got = await outcome(fut, 5)
        self.note(got)
        self.count("component " + got)
        if got == "session_start":
            c = self.client("a", "%s@%s/bench" % (user(i, "a"), DOMAIN), password(i, "a"),
                            ["xep_0030", "xep_0092", "xep_0199"])
            if await self.login(c) == "session_start":
                c.send_presence(pto=jid, ptype=r.choice(["probe", "subscribe", None]))
                for _ in range(r.randint(1, 4)):
                    what = pick(r, [(4, "message"), (2, "disco"), (2, "version"), (1, "ping"), (2, "push")])
                    if what == "message":
                        c.send_message(mto="%s@%s" % (r.choice(["echo", "help"]), jid), mbody="hello bot")
                    elif what == "disco":
                        await self.iq(c["xep_0030"].get_info(jid, timeout=3))
                    elif what == "version":
                        await self.iq(c["xep_0092"].get_version(jid, timeout=3))
                    elif what == "ping":
                        await self.iq(c["xep_0199"].ping(jid, timeout=3))
                    else:
                        comp.send_message(mto=c.boundjid.full, mfrom="news@" + jid, mbody="news flash",
                                          mtype=r.choice(["headline", "chat"]))
                        await self.iq(comp["xep_0199"].ping(c.boundjid.full, ifrom=jid, timeout=2))
                    await asyncio.sleep(0.1)
        for c in list(self.clients):
            await self.bye(c)

    # -- a misbehaving server and a closed port --------------------------------------------------
    async def case_fake(self):
        r = self.r
        mode = r.choice(FAKE_EARLY + FAKE_LATE)
        self.note("mode=" + mode)
        self.count("fake " + mode)
        port = _capture.free_port()
        self.ports.append(port)
        env = {"mode": mode, "port": port, "target": self.px.port, "session": r.random() < 0.3,
               "legacy_ok": r.random() < 0.5, "bad_h": r.choice([3, 7, 99]),
               "cond": r.choice(["host-unknown", "system-shutdown", "policy-violation", "internal-server-error",
                                 "not-authorized", "conflict", "connection-timeout", "reset"]),
               "text": r.choice([None, "maintenance", "go away"]),
               "caps": r.sample(CAPS_VARIANTS, r.randint(2, 5))}
        self.servers.append(await start_fake(env))
        late = mode in FAKE_LATE
        if mode == "see_other":  # redirected to prosody with a real account
            jid, pw = "%s@%s/bench" % (user(self.i, "a"), DOMAIN), password(self.i, "a")
        elif late or (r.random() < 0.5 and mode not in ("sasl_fail", "scram_badsig", "scram_badnonce")):
            jid, pw = FAKE_DOMAIN, ""  # anonymous
        else:
            jid, pw = "someone@%s/bench" % FAKE_DOMAIN, "secret"
        ops = ["ping"] if mode in ("mute", "ping_in") else []
        plugins = self.plugins_for(ops)
        if plugins != "all" and mode == "legacy" and r.random() < 0.7:
            plugins.append("xep_0078")
        if plugins != "all" and mode in ("bad_ack", "sm_failed"):
            plugins.append("xep_0198")
        if plugins != "all" and mode == "caps":
            plugins.append("xep_0115")
        if mode == "mute":  # keepalive pings the server never answers
            self.pconf["xep_0199"] = {"keepalive": True, "interval": 0.5, "timeout": 0.5}
        c = self.client("a", jid, pw, plugins)
        if mode == "legacy" and r.random() < 0.6:
            c._always_send_everything = True  # else the 0.9 login's first request waits for a session
        if mode == "scram_badsig":
            c["feature_mechanisms"].config["unencrypted_scram"] = True
        if r.random() < 0.3:
            c.add_event_handler("stream_error", lambda e: self.count("app saw stream error"))
        got = await self.login(c, port, pick(r, [(8, {}), (2, {"disable_starttls": True})]),
                               timeout=2.5 if mode in ("see_other", "see_other_loop", "legacy", "no_features",
                                                       "silent") else 4,
                               redirects=mode in ("see_other", "see_other_loop"))
        self.note(got)
        if got == "session_start" and c.transport is not None:
            if self.has(c, "xep_0199") and r.random() < 0.5:
                await self.iq(c["xep_0199"].ping(FAKE_DOMAIN, timeout=1))
            c.send_message(mto="x@" + FAKE_DOMAIN, mbody="hello", mtype="chat")
            await asyncio.sleep(r.choice([0.3, 1.2]) if mode != "mute" else 1.6)
        await self.bye(c, wait=r.choice([0.3, 1]))

    async def case_noserver(self):
        r = self.r
        port = _capture.free_port()
        self.ports.append(port)
        c = self.client("a", "%s@%s/bench" % (user(self.i, "a"), DOMAIN), password(self.i, "a"),
                        self.plugins_for([], extra=r.random() < 0.3))
        give_up = r.choice([0.3, 1.5, 4.5])  # after the first, second or third attempt
        self.note("give up after %.1fs" % give_up)
        fut = c.watch("session_start")
        c.connect((HOST, port), use_ssl=r.random() < 0.2)
        await outcome(fut, give_up)
        c.cancel_connection_attempt()
        await self.bye(c)


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
LOG = None
ARGS = None
STRAY = None
SLOT_LOCK = None


def take_slot(tmp):
    """A component slot of its own for this worker process, held by a lock
    file for the process's life: prosody allows one connection per component."""
    global SLOT_LOCK
    for k in range(COMP_SLOTS):
        fh = open(os.path.join(tmp, "slot%d.lock" % k), "w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            continue
        SLOT_LOCK = fh
        return k
    return 0


def init_worker(seed, env):
    global LOG, ARGS, STRAY
    # the main process's SIGTERM handler is not for workers: Pool.terminate() must end them at once
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    warnings.simplefilter("ignore")
    # plugins print to stdout (XEP-0009's error banner, the MUC join's history check)
    # and the GnuPG wrapper's reader threads die on status lines they do not know
    sys.stdout = open(os.devnull, "w")
    threading.excepthook = lambda args: None
    env = dict(env, slot=take_slot(env["tmp"]))
    ARGS = (seed, env)
    LOG = _capture.EventLog(slixmpp, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    STRAY = _capture.StrayRecords(LOG)
    LOG.addFilter(STRAY)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)


def reset_levels():
    for name in list(logging.Logger.manager.loggerDict):
        if name.startswith("slixmpp."):
            logging.getLogger(name).setLevel(logging.NOTSET)
    logging.getLogger("slixmpp").setLevel(logging.DEBUG)


def run_case(i):
    seed, env = ARGS
    cid = "slixmpp-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.set_exception_handler(lambda loop, ctx: None)  # leftovers of aborted streams
    case = Case(i, r, env)
    reset_levels()
    LOG._rows = []
    stray0 = STRAY.n
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, _capture.on_alarm)
    signal.alarm(40)
    try:
        loop.run_until_complete(case.run())
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        case.count("case exceptions " + type(e).__name__)
        if DEBUG:
            import traceback
            traceback.print_exc()
    finally:
        LOG.case_id = None  # what the cleanup makes slixmpp log is not the case's
        stray1 = STRAY.n
        try:
            loop.run_until_complete(asyncio.wait_for(case.cleanup(), 5))
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=2))
        except BaseException:  # noqa: BLE001
            case.count("cleanup failed")
        signal.alarm(0)
        loop.close()
        asyncio.set_event_loop(None)
        reset_levels()
        rows, LOG._rows = LOG._rows, []
        _capture.release_ports(case.ports)
    case.st["stray"] = stray1 - stray0
    debug("%s %d events %.2fs %s | %s" % (cid, len(rows), time.time() - t0,
                                         " ".join(sorted(k for k in case.st if not k.startswith("op "))),
                                         " ".join(case.notes[:12])))
    return i, cid, rows, case.st


def main():
    a = _capture.parse_args("slixmpp", "Event log of slixmpp clients against a Prosody server started for the run.", 300, 6)
    tmp = _capture.work_dir("slixmpp")
    os.environ["HOME"] = tmp  # plugins that look for ~/.gnupg and the like see an empty home
    # XEP-0027 (loaded with every plugin) runs gpg, which would start a gpg-agent
    # daemon that outlives the run: gpg is told never to start one
    os.makedirs(os.path.join(tmp, ".gnupg"), mode=0o700)
    with open(os.path.join(tmp, ".gnupg", "gpg.conf"), "w") as fh:
        fh.write("no-autostart\n")
    t0 = time.time()
    totals = {}
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    px = None

    def on_term(signum, frame):
        raise SystemExit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        px = Prosody(tmp, a.cases)
        px.start()
        t_server = time.time() - t0
        env = {"prosody": px, "tmp": tmp}
        log, totals = _capture.run_cases(slixmpp, a.out, run_case, todo, init_worker, (a.seed, env),
                                         a.jobs)
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        sys.stderr.write("%s; kinds %s; case exceptions %s; records outside any case dropped %d; "
                         "prosody up in %.1fs; %.0fs\n"
                         % (log.summary(), kinds, errs or "none", totals.get("stray", 0), t_server,
                            time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
            if os.environ.get("GEN_SERVER_LOG"):
                sys.stderr.write(px.log_tail(int(os.environ["GEN_SERVER_LOG"])))
        if log.cases_written == 0:
            sys.exit("gen_slixmpp: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        if px is not None:
            px.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
