#!/usr/bin/python3
"""Event log of dulwich (Debian python3-dulwich 0.21.2), a pure-Python Git
implementation: repository workflows through its porcelain, local clones,
pushes and pulls, and clients against dulwich's own git:// and smart HTTP
servers run in the process, misbehaving servers and closed ports.

    /usr/bin/python3 gen_dulwich.py --out .deps/logs/dulwich.csv.gz [--cases 500] [--seed 1] [--jobs 2]
    /usr/bin/python3 gen_dulwich.py --repo     # prints the directory to index

Indexed: the installed ``dulwich`` directory
(``/usr/lib/python3/dist-packages/dulwich``), all of it: the porcelain, the
client and server, the web application, the object store and pack code,
and what ships inside the package and never runs here (``contrib``,
``cloud``, ``cli.py``, the test suite in ``dulwich/tests``; pmrag sets test
code aside itself).

A case is one application's repository workflow, drawn with its own
``random.Random``, in a temp dir of its own (HOME and XDG_CONFIG_HOME point
there, GIT_CONFIG_NOSYSTEM is set, so no configuration of the machine is
read):

- (40%) local work: ``porcelain.init`` (a worktree; bare repositories as
  push targets and clones), then 4-14 steps: files written and
  ``add``/``commit`` (the author and committer given), ``log`` (some with
  ``name_status``, ``max_entries``, paths), ``show`` of commits, tags,
  trees and blobs, ``diff_tree`` between commits, ``rev_list``,
  ``ls_tree``, branches created, listed, deleted and switched to
  (``update_head`` + ``reset``), lightweight and annotated tags, listed and
  deleted, ``status``, ``reset`` (hard, soft, mixed), ``remove`` (cached or
  not), a rename (dulwich 0.21 has no ``mv``: the file moved, the new path
  added and the old one removed from the index), ``.gitignore`` and
  ``check_ignore``, ``clean``, ``stash_push``/``stash_pop``, ``archive``,
  ``describe``, ``repack``, ``pack_refs``, ``fsck``, ``ls_files``,
  ``update_server_info``, ``symbolic_ref``; clones over the local file
  system (bare or not, a branch, no checkout, a depth), pushes to a local
  bare repository (new branches, tags, deletions, non-fast-forward ones,
  forced ones, unknown refs), fetches and pulls from it; and dulwich's
  command line, ``dulwich.cli.main(argv)`` run in the repository (status,
  log, show, diff, ls-tree, describe, ls-files, fsck, rev-list,
  check-ignore, stash, tag, help, dump-pack, dump-index, write-tree,
  remote, pack-refs, repack, reset, check-mailmap, submodule, usage
  errors and unknown subcommands).
- (45%) client and server: a source repository pushed into a bare
  repository that a server made for the case serves on a free port of
  127.0.0.1, either dulwich's ``TCPGitServer`` (git://, threaded off the
  case) or its WSGI application (``make_wsgi_chain``) under wsgiref with
  dulwich's ``WSGIRequestHandlerLogger``/``WSGIServerLogger``, over a
  ``DictBackend`` or a ``FileSystemBackend``; the server repository has, in
  some cases, a post-receive hook (a shell script that prints lines, or
  one that fails); then 3-10 steps of ``porcelain.clone`` (bare, a branch,
  a depth), ``ls_remote``, commits pushed (new branches and tags,
  deletions, non-fast-forward pushes refused by the client, forced ones,
  unknown local refs), ``fetch`` and ``pull`` (fast-forward, diverged,
  unknown refs), a repository the server does not have, an object of the
  server's repository corrupted (a loose blob overwritten) and then
  fetched, and, on the HTTP server, a dumb-protocol walker fetching
  ``info/refs``, ``objects/info/packs``, ``HEAD``, loose objects and
  missing files with ``urllib``, and the command line against the server
  (ls-remote, fetch, clone, push, pull, fetch-pack, ``archive --remote``).
  dulwich 0.21's ``FileSystemBackend`` fails on the bytes path its git://
  server hands it (every such request ends in ``handle_error``), so the
  git:// server gets a ``DictBackend`` nine times in ten.
- (15%) failures: a server written here that closes at once, answers
  garbage, an ``ERR`` line, a truncated ref advertisement, or stays silent
  (the client's socket timeout ends it), for git:// and HTTP (500, 404,
  401 with a challenge, a non-git content type, garbage); a closed port.

Capture. Two idioms, both taken with their call site at run time:

- log records: dulwich's modules log through ``dulwich.log_utils``
  (``logger = log_utils.getLogger(__name__)``, which is
  ``logging.getLogger``; a NullHandler on ``dulwich``) with %-formats;
  ``_capture.py``'s handler on the ``dulwich`` logger (at DEBUG) takes
  each record. Declared wrappers: ``log_message`` and ``log_error`` of
  ``web.py``'s ``ServerHandlerLogger`` and ``WSGIRequestHandlerLogger``,
  which only forward the standard library's format and arguments to the
  logger; their callers are the standard library's ``http.server``, so
  those records (wsgiref's access lines) are dropped, as any record whose
  emitter is outside the indexed directory. ``log_exception`` and
  ``WSGIServerLogger.handle_error`` log a text of their own and are their
  records' emitters.
- stream writes: the porcelain writes its output and progress to the
  streams it is handed (``outstream.write("Author: " + ...)``,
  ``errstream.write(b"Push to ... successful.\\n")``, ``print_commit``,
  ``write_tree_diff`` through ``patch.py``), and hands ``errstream.write``
  itself to the client as its progress function, which the client calls
  with the server's sideband progress (``progress(data)`` in
  ``client.py``) and the object store and pack code call with their own
  (``counting objects: %d, done.``, ``generating index: %d/%d``). Every
  porcelain call gets the case's two streams, objects of this generator
  whose ``write`` (and ``writelines``, one record per item) records each
  call: the activity is the text written (bytes decoded as UTF-8, one
  trailing line end or ``\\r`` removed), the logger ``stream:out`` or
  ``stream:err``, the level INFO, and the emitter the frame that called
  ``write`` (a write whose caller is not in dulwich, such as optparse's
  usage text, makes no record): whoever calls the stream is the emitter,
  as with a logger, so
  the server's progress text written by the client is the client's record
  (at its ``progress(data)`` line) and a progress line the object store
  makes is the object store's. A write of nothing but line ends and
  spaces (``outstream.write("\\n")``, a blank line) makes no record (they
  are counted). ``archive`` writes the tar file itself to its outstream:
  that one is a plain buffer, not captured (its errstream is). The
  process's ``sys.stdout`` and ``sys.stderr`` are such streams too, set
  before dulwich's porcelain is imported: the porcelain binds them as
  default streams (``outstream=sys.stdout``, ``default_bytes_err_stream``)
  and the command line prints to them (``print(...)``,
  ``sys.stdout.write(...)``, ``progress=sys.stdout.write``); writes to them
  from outside dulwich go on to the real streams. The server's
  side of the sideband is captured too: the generator's handler classes
  (``UploadPackHandler`` and ``ReceivePackHandler`` subclasses that add
  nothing else, handed to both servers) tap their protocol's
  ``write_sideband`` and record each progress message (channel 2) the
  server sends, logger ``sideband:progress``, the emitter the frame that
  calls it (``self.progress(...)`` in ``UploadPackHandler.handle``, which
  calls the ``partial`` the handler keeps, and the post-receive hook's
  output in ``ReceivePackHandler._on_post_receive``). No function is a
  declared wrapper for stream writes: ``print_commit``, ``print_tag`` and
  ``show_*`` build their own text; ``code.wrapped`` is 0 for them.

Cases run ``--jobs`` at a time (2), each worker a forked process running
one case after another; servers run in threads of the worker, started and
stopped within the case, so every record and write of a process belongs to
its open case; what a case's clean-up makes dulwich log or write is
dropped and counted. Cases with fewer than 3 events are dropped. A case
is given up after 40 s (SIGALRM); sockets time out after 3 s.

Determinism: each case draws from ``random.Random("<seed>-<case>")``.
Commit and tag times are the clock's (``porcelain.commit`` takes none), so
object ids differ between runs, and with them the ids in messages; ports
and temp paths differ too. Which progress lines arrive, and how many
objects a pack holds, do not depend on timing.

Debugging: GEN_DEBUG=1 prints one line per case; GEN_TRACE=1 prints the
traceback of every operation that raised; GEN_ONLY=3,17 runs only those
cases.
"""
import io
import logging
import os
import random
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import dulwich  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(dulwich.__file__)))
    sys.exit(0)


# pure forwarders of the standard library's http.server format and arguments (see the header)
WRAPPERS = {("dulwich/web.py", "log_message"), ("dulwich/web.py", "log_error")}
LOGGER_ROOTS = ["dulwich"]
DEBUG = bool(os.environ.get("GEN_DEBUG"))
TRACE = bool(os.environ.get("GEN_TRACE"))
HOST = "127.0.0.1"
AUTHOR = [b"Ada Lovelace <ada@example.org>", b"Alan Turing <alan@example.org>",
          b"Grace Hopper <grace@example.org>"]
WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         "sigma tau upsilon phi chi psi omega parser index pack tree blob commit branch").split()


def debug(msg):
    if DEBUG:
        sys.stderr.write(msg + "\n")


# ---------------------------------------------------------------------------
# capture of stream writes
# ---------------------------------------------------------------------------
LOG = None
STRAY = None
WRITES = {"blank": 0, "stray": 0, "outside": 0}
_STDLIB = os.path.dirname(os.path.realpath(os.__file__)) + os.sep


def record_write(logger, data, skip):
    """One row for a write to a stream of the case: the emitter is the first
    frame above this generator's stream methods (code objects in skip),
    walking through the standard library's frames."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        text = bytes(data).decode("utf-8", "replace")
    else:
        text = str(data)
    for end in ("\r\n", "\n", "\r"):
        if text.endswith(end):
            text = text[:-len(end)]
            break
    if LOG is None:
        return False
    f = sys._getframe(1)
    while f is not None and f.f_code in skip:
        f = f.f_back
    if f is None:
        return False
    ap, rel = LOG._rel(f.f_code.co_filename)
    if rel is None:  # the generator's own output, the standard library's (optparse's usage)
        WRITES["outside"] += 1
        return False
    if not text.strip():
        WRITES["blank"] += 1
        return True
    cid = LOG.case_id
    if cid is None:
        WRITES["stray"] += 1
        return True
    line = f.f_lineno
    ts = _capture._dt.datetime.now(_capture._dt.timezone.utc).isoformat(timespec="microseconds")
    row = [cid, ts, _capture._escape(text), "INFO", logger, rel, f.f_code.co_name, line,
           LOG.qn.qualname(ap, line), 0]
    with LOG._lock2:
        LOG._rows.append(row)
    return True


class CapStream:
    """A stream handed to dulwich: each write call is one record (see the
    header). With a fallback it stands for the process's stdout or stderr:
    what is not dulwich's goes to the real stream."""

    def __init__(self, logger, fallback=None):
        self.logger = logger
        self.fallback = fallback
        self.encoding = "utf-8"
        self.buffer = self  # bytes and text alike

    def write(self, data):
        if not record_write(self.logger, data, SKIP_CODES) and self.fallback is not None:
            self._forward(data)
        return len(data)

    def writelines(self, lines):
        for data in lines:
            if not record_write(self.logger, data, SKIP_CODES) and self.fallback is not None:
                self._forward(data)

    def _forward(self, data):
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = bytes(data).decode("utf-8", "replace")
        self.fallback.write(data)

    def flush(self):
        if self.fallback is not None:
            self.fallback.flush()

    def isatty(self):
        return False

    def fileno(self):
        if self.fallback is None:
            raise io.UnsupportedOperation("fileno")
        return self.fallback.fileno()


def tap_sideband(proto):
    """Records every progress message the server writes on sideband channel 2."""
    orig = proto.write_sideband

    def write_sideband(channel, blob):
        if channel == 2:
            record_write("sideband:progress", blob, SKIP_CODES)
        return orig(channel, blob)
    SKIP_CODES.add(write_sideband.__code__)
    proto.write_sideband = write_sideband


SKIP_CODES = {CapStream.write.__code__, CapStream.writelines.__code__}

# The process's stdout and stderr, from dulwich's import on: the porcelain binds
# them as default streams (``outstream=sys.stdout``, ``default_bytes_err_stream``)
# and the command line prints to them.
sys.stdout = CapStream("stream:out", fallback=sys.stdout)
sys.stderr = CapStream("stream:err", fallback=sys.stderr)

from dulwich import cli, porcelain  # noqa: E402
from dulwich.objects import Blob, Commit, Tree  # noqa: E402
from dulwich.repo import Repo  # noqa: E402
from dulwich.server import (DictBackend, FileSystemBackend, ReceivePackHandler,  # noqa: E402
                            TCPGitServer, UploadPackHandler)
from dulwich.web import WSGIRequestHandlerLogger, WSGIServerLogger, make_wsgi_chain  # noqa: E402
from wsgiref.simple_server import make_server  # noqa: E402


class UploadPack(UploadPackHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        tap_sideband(self.proto)


class ReceivePack(ReceivePackHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        tap_sideband(self.proto)


HANDLERS = {b"git-upload-pack": UploadPack, b"git-receive-pack": ReceivePack}


# ---------------------------------------------------------------------------
# servers
# ---------------------------------------------------------------------------
class Served:
    """A socketserver-style server run by a thread of the worker."""

    def __init__(self, server, kind):
        self.server = server
        self.kind = kind
        self.thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(2)


class Fake:
    """A misbehaving git:// or HTTP server written here."""

    def __init__(self, mode, port):
        self.mode = mode
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, port))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.done = False
        self.conns = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done:
            try:
                c, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.conns.append(c)
            try:
                self.answer(c)
            except OSError:
                pass

    def answer(self, c):
        m = self.mode
        c.settimeout(1)
        try:
            c.recv(4096)
        except OSError:
            pass
        if m == "close":
            c.close()
        elif m == "garbage":
            c.sendall(b"hello, this is not git\n")
            c.close()
        elif m == "err":
            msg = b"ERR access denied or repository not exported\n"
            c.sendall(b"%04x" % (len(msg) + 4) + msg)
            c.close()
        elif m == "truncated":
            line = b"0" * 40 + b" refs/heads/master\x00multi_ack side-band-64k ofs-delta\n"
            c.sendall((b"%04x" % (len(line) + 4) + line)[:30])
            c.close()
        elif m == "silent":
            pass  # the client's socket timeout ends it
        elif m.startswith("http_"):
            code = m[5:]
            if code == "garbage":
                c.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")
            elif code == "401":
                c.sendall(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\n"
                          b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            elif code == "html":
                body = b"<html><body>login first</body></html>"
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                          b"Connection: close\r\n\r\n" % len(body) + body)
            else:
                reason = {"500": b"Internal Server Error", "404": b"Not Found"}[code]
                c.sendall(b"HTTP/1.1 " + code.encode() + b" " + reason +
                          b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            c.close()

    def stop(self):
        self.done = True
        self.thread.join(2)
        for c in self.conns:
            try:
                c.close()
            except OSError:
                pass
        self.sock.close()


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, i, r, tmp):
        self.i = i
        self.r = r
        self.tmp = tmp
        self.st = {}
        self.notes = []
        self.out = CapStream("stream:out")
        self.err = CapStream("stream:err")
        self.servers = []
        self.ports = []
        self.n = 0

    def count(self, k, v=1):
        self.st[k] = self.st.get(k, 0) + v

    def note(self, s):
        self.notes.append(s)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def run(self):
        kind = pick(self.r, [(40, "local"), (45, "server"), (15, "failure")])
        self.count("kind " + kind)
        getattr(self, "case_" + kind)()

    def cleanup(self):
        for s in self.servers:
            try:
                s.stop()
            except Exception:  # noqa: BLE001
                self.count("server stop failed")
        _capture.release_ports(self.ports)

    def attempt(self, what, fn, *args, **kwargs):
        """Runs one operation of the application; its exception is an outcome, noted."""
        self.note(what)
        try:
            res = fn(*args, **kwargs)
            self.count("op " + what)
            return res
        except Exception as e:  # noqa: BLE001
            self.count("op %s raised %s" % (what, type(e).__name__))
            self.note("!" + type(e).__name__)
            if TRACE:
                import traceback
                traceback.print_exc()
            return None

    # -- helpers ---------------------------------------------------------------
    def words(self, n):
        return " ".join(self.r.choice(WORDS) for _ in range(n))

    def write_files(self, repo, k=None):
        """Writes 1-3 files of the worktree (new or changed); returns their paths."""
        r = self.r
        paths = []
        existing = [p for p in self.tracked(repo)]
        for _ in range(k or r.randint(1, 3)):
            if existing and r.random() < 0.45:
                rel = r.choice(existing)
            else:
                d = r.choice(["", "", "src", "docs", "src/lib"])
                rel = os.path.join(d, "%s_%d.%s" % (r.choice(WORDS), r.randint(0, 99), r.choice(["txt", "py", "md"])))
            p = os.path.join(repo, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            mode = "a" if os.path.exists(p) and r.random() < 0.6 else "w"
            if r.random() < 0.06:
                rel, p = "logo.png", os.path.join(repo, "logo.png")  # binary: "Binary files ... differ"
                with open(p, "wb") as fh:
                    fh.write(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(r.randrange(256) for _ in range(40)))
                paths.append(p)
                continue
            with open(p, mode) as fh:
                for _ in range(r.randint(1, 6)):
                    fh.write(self.words(r.randint(2, 9)) + "\n")
            paths.append(p)
        return paths

    def tracked(self, repo):
        try:
            with Repo(repo) as rp:
                return sorted(p.decode() for p in rp.open_index())
        except Exception:  # noqa: BLE001
            return []

    def commit(self, repo, n=1):
        r = self.r
        for _ in range(n):
            paths = self.write_files(repo)
            self.attempt("add", porcelain.add, repo, paths if r.random() < 0.8 else [p for p in paths[:1]])
            who = r.choice(AUTHOR)
            self.n += 1
            msg = ("%s %s\n" % (r.choice(["Add", "Fix", "Update", "Refactor", "Document"]), self.words(3)))
            if r.random() < 0.3:
                msg += "\n" + self.words(8) + "\n"
            self.attempt("commit", porcelain.commit, repo, msg.encode(), author=who,
                         committer=r.choice([who, AUTHOR[0]]))

    def heads(self, repo):
        try:
            with Repo(repo) as rp:
                return [c.commit.id for c in rp.get_walker(max_entries=20)]
        except Exception:  # noqa: BLE001
            return []

    def make_repo(self, name, commits):
        p = self.path(name)
        self.attempt("init", porcelain.init, p)
        if self.r.random() < 0.3:
            with open(os.path.join(p, ".gitignore"), "w") as fh:
                fh.write("*.log\nbuild/\n")
        self.commit(p, commits)
        return p

    def cli(self, repo, argv):
        """dulwich's command line (``dulwich.cli.main``) run in repo, printing to the process's streams."""
        def run():
            try:
                return cli.main(argv)
            except SystemExit as e:  # its usage messages end with sys.exit(1)
                return e.code
        cwd = os.getcwd()
        os.chdir(repo)
        try:
            return self.attempt("cli " + (argv[0] if argv else "-"), run)
        finally:
            os.chdir(cwd)

    def cli_local(self, repo):
        r = self.r
        hs = self.heads(repo)
        packs = []
        pdir = os.path.join(repo, ".git", "objects", "pack")
        if os.path.isdir(pdir):
            packs = sorted(f for f in os.listdir(pdir) if f.endswith(".pack"))
        argv = pick(r, [
            (4, ["status"]), (4, ["log"] + r.sample(["--name-status", "--reverse"], r.randint(0, 2))),
            (3, ["show"] + r.choice([[], ["HEAD"], ["v1.0"], ["nosuch"]])), (2, ["diff"]),
            (2, ["ls-tree"] + r.sample(["-r", "--name-only"], r.randint(0, 2)) + ["HEAD"]),
            (2, ["describe"]), (2, ["ls-files"]), (1, ["fsck"]), (2, ["rev-list", "HEAD"]),
            (1, ["check-ignore", "a.log", "build/x", "src"]), (1, ["stash", "list"]),
            (1, ["stash", r.choice(["push", "pop", "drop", ""])]),
            (2, ["tag"] + r.sample(["-a"], r.randint(0, 1)) + ["cli-%d" % r.randint(0, 9)]),
            (1, ["help"] + r.sample(["-a"], r.randint(0, 1))),
            (1, ["dump-pack", os.path.join(".git", "objects", "pack", packs[0])] if packs else ["dump-pack"]),
            (1, ["dump-index", os.path.join(".git", "index")]), (1, ["write-tree"]),
            (1, [r.choice(["symbolic-ref", "diff-tree", "rev-list", "commit-tree", "clone", "ls-remote"])]),
            (1, []), (1, [r.choice(["checkout", "merge", "blame"])]),
            (1, ["remote"] + r.choice([[], ["add", "upstream", "../bare.git"], ["rename"]])),
            (1, ["pack-refs", "--all"]), (1, ["repack"]), (1, ["check-mailmap", "Ada <ada@example.org>"]),
            (1, ["reset", "--hard"]), (1, ["submodule", "list"]),
            (1, ["commit-tree", "--message", "tree"]) if not hs else (1, ["diff", hs[-1].decode()]),
        ])
        if argv[:2] == ["stash", ""]:
            argv = ["stash"]
        self.cli(repo, argv)

    def cli_remote(self, repo, url):
        r = self.r
        argv = pick(r, [(3, ["ls-remote", url]), (3, ["fetch", url]), (2, ["clone", url, "cli-clone-%d" % self.n]),
                        (2, ["push", url] + r.sample(["-f"], r.randint(0, 1))), (2, ["pull", url]),
                        (1, ["fetch-pack", "--all", url]), (1, ["archive", "--remote", url, "HEAD"])])
        self.n += 1
        self.cli(repo, argv)

    # -- local work --------------------------------------------------------------
    def local_step(self, repo, bare_target):
        r = self.r
        op = pick(r, [(14, "commit"), (9, "log"), (7, "show"), (5, "diff"), (3, "rev_list"), (3, "ls_tree"),
                      (5, "branch"), (5, "tag"), (3, "status"), (3, "reset"), (3, "rm"), (2, "mv"),
                      (2, "ignore"), (1, "clean"), (2, "stash"), (2, "archive"), (2, "describe"),
                      (2, "maint"), (6, "clone"), (6, "push"), (4, "pull"), (2, "fetch"), (16, "cli")])
        out, err = self.out, self.err
        hs = self.heads(repo)
        if op == "cli":
            self.cli_local(repo)
        elif op == "commit":
            self.commit(repo, r.randint(1, 2))
        elif op == "log":
            kw = {}
            if r.random() < 0.4:
                kw["max_entries"] = r.randint(1, 4)
            if r.random() < 0.3:
                kw["name_status"] = True
            if r.random() < 0.15 and self.tracked(repo):
                kw["paths"] = [r.choice(self.tracked(repo)).encode()]
            self.attempt("log", porcelain.log, repo, outstream=out, **kw)
        elif op == "show":
            objs = None
            with Repo(repo) as rp:
                tags = list(rp.refs.as_dict(b"refs/tags"))
                if hs:
                    c = rp[hs[0]]
                    choice = r.choice(["head", "commit", "tag", "tree", "blob", "unknown"])
                    if choice == "commit":
                        objs = [r.choice(hs)]
                    elif choice == "tag" and tags:
                        objs = [rp.refs[b"refs/tags/" + r.choice(tags)]]
                    elif choice == "tree":
                        objs = [c.tree]
                    elif choice == "blob":
                        t = rp[c.tree]
                        blobs = [sha for _n, m, sha in t.iteritems() if stat.S_ISREG(m)]
                        objs = [r.choice(blobs)] if blobs else None
                    elif choice == "unknown":
                        objs = ["f" * 40]
            if objs is None:
                self.attempt("show", porcelain.show, repo, outstream=out)
            else:
                self.attempt("show", porcelain.show, repo, objects=objs, outstream=out)
        elif op == "diff" and len(hs) >= 2:
            with Repo(repo) as rp:
                a, b = rp[r.choice(hs[1:])].tree, rp[hs[0]].tree
            if r.random() < 0.3:
                a, b = b, a
            self.attempt("diff_tree", porcelain.diff_tree, repo, a, b, outstream=out)
        elif op == "rev_list" and hs:
            self.attempt("rev_list", porcelain.rev_list, repo, [hs[0]], outstream=out)
        elif op == "ls_tree":
            self.attempt("ls_tree", porcelain.ls_tree, repo, "HEAD", outstream=out,
                         recursive=r.random() < 0.5, name_only=r.random() < 0.4)
        elif op == "branch":
            name = "topic-%s" % r.choice(WORDS)
            what = r.choice(["create", "create", "list", "delete", "switch", "create_at"])
            if what == "create":
                self.attempt("branch_create", porcelain.branch_create, repo, name, force=r.random() < 0.3)
            elif what == "create_at" and hs:
                self.attempt("branch_create", porcelain.branch_create, repo, name, objectish=r.choice(hs).decode())
            elif what == "list":
                self.attempt("branch_list", porcelain.branch_list, repo)
            elif what == "delete":
                self.attempt("branch_delete", porcelain.branch_delete, repo, name)
            else:
                with Repo(repo) as rp:
                    branches = [b.decode() for b in rp.refs.keys(base=b"refs/heads/")]
                if branches:
                    target = r.choice(branches)
                    self.attempt("update_head", porcelain.update_head, repo, target)
                    self.attempt("reset", porcelain.reset, repo, "hard")
        elif op == "tag":
            name = b"v%d.%d" % (r.randint(0, 3), r.randint(0, 20))
            what = r.choice(["annotated", "lightweight", "list", "delete"])
            if what in ("annotated", "lightweight"):
                kw = {}
                if what == "annotated":
                    kw = {"annotated": True, "message": ("release " + self.words(2)).encode(),
                          "author": r.choice(AUTHOR)}
                obj = r.choice(hs) if hs and r.random() < 0.3 else "HEAD"
                self.attempt("tag_create", porcelain.tag_create, repo, name, objectish=obj, **kw)
            elif what == "list":
                self.attempt("tag_list", porcelain.tag_list, repo, outstream=out)
            else:
                self.attempt("tag_delete", porcelain.tag_delete, repo, name)
        elif op == "status":
            if r.random() < 0.5:
                self.write_files(repo, 1)
            self.attempt("status", porcelain.status, repo, untracked_files=r.choice(["all", "no"]))
        elif op == "reset" and hs:
            mode = r.choice(["hard", "hard", "hard", "soft"])  # dulwich 0.21 resets only hard
            self.attempt("reset", porcelain.reset, repo, mode, r.choice(hs[:3]) if r.random() < 0.5 else "HEAD")
        elif op == "rm":
            t = self.tracked(repo)
            if t:
                p = os.path.join(repo, r.choice(t))
                if r.random() < 0.3 and os.path.exists(p):
                    with open(p, "a") as fh:
                        fh.write("local change\n")  # remove() refuses a changed file
                self.attempt("remove", porcelain.remove, repo, [p], cached=r.random() < 0.3)
                self.attempt("commit", porcelain.commit, repo, b"Remove a file\n", author=AUTHOR[1],
                             committer=AUTHOR[1])
        elif op == "mv":
            t = [p for p in self.tracked(repo) if os.path.exists(os.path.join(repo, p))]
            if t:
                old = r.choice(t)
                new = "moved_" + os.path.basename(old)
                os.rename(os.path.join(repo, old), os.path.join(repo, new))
                self.attempt("add", porcelain.add, repo, [os.path.join(repo, new)])
                self.attempt("remove", porcelain.remove, repo, [os.path.join(repo, old)], cached=True)
                self.attempt("commit", porcelain.commit, repo, ("Rename %s\n" % old).encode(),
                             author=AUTHOR[2], committer=AUTHOR[2])
        elif op == "ignore":
            with open(os.path.join(repo, ".gitignore"), "a") as fh:
                fh.write("*.tmp\n")
            with open(os.path.join(repo, "scratch.tmp"), "w") as fh:
                fh.write("x\n")
            self.attempt("check_ignore", lambda: list(porcelain.check_ignore(
                repo, [os.path.join(repo, "scratch.tmp"), os.path.join(repo, ".gitignore")])))
        elif op == "clean":
            with open(os.path.join(repo, "untracked_%d.txt" % r.randint(0, 9)), "w") as fh:
                fh.write("junk\n")
            self.attempt("clean", porcelain.clean, repo, repo)
        elif op == "stash":
            self.write_files(repo, 1)
            self.attempt("stash_push", porcelain.stash_push, repo)
            if r.random() < 0.6:
                self.attempt("stash_pop", porcelain.stash_pop, repo, 0)
            else:
                self.attempt("stash_list", lambda: list(porcelain.stash_list(repo)))
        elif op == "archive":
            self.attempt("archive", porcelain.archive, repo, r.choice(["HEAD", "HEAD", "nosuchref"]),
                         outstream=io.BytesIO(), errstream=err)
        elif op == "describe":
            self.attempt("describe", porcelain.describe, repo)
        elif op == "maint":
            what = r.choice(["repack", "pack_refs", "fsck", "ls_files", "update_server_info", "symbolic_ref"])
            if what == "repack":
                self.attempt("repack", porcelain.repack, repo)
            elif what == "pack_refs":
                self.attempt("pack_refs", porcelain.pack_refs, repo, all=r.random() < 0.5)
            elif what == "fsck":
                self.attempt("fsck", lambda: list(porcelain.fsck(repo)))
            elif what == "ls_files":
                self.attempt("ls_files", porcelain.ls_files, repo)
            elif what == "update_server_info":
                self.attempt("update_server_info", porcelain.update_server_info, repo)
            else:
                self.attempt("symbolic_ref", porcelain.symbolic_ref, repo, r.choice(["master", "nosuch"]))
        elif op == "clone":
            target = self.path("clone%d" % self.n)
            self.n += 1
            kw = {"bare": r.random() < 0.3}
            if r.random() < 0.2:
                kw["checkout"] = False
            if r.random() < 0.2:
                kw["branch"] = r.choice(["master", "nosuch"])
            if r.random() < 0.06:
                kw["depth"] = 1
            self.attempt("clone", porcelain.clone, r.choice([repo, bare_target]), target, errstream=err, **kw)
        elif op == "push":
            refspecs = pick(r, [(5, None), (2, [b"refs/heads/master"]), (1, [b"refs/tags/v1.0"]),
                                (1, [b"refs/heads/nosuch"]), (1, [b":refs/heads/gone"]),
                                (1, [b"refs/heads/master:refs/heads/copy"])])
            kw = {} if refspecs is None else {"refspecs": refspecs}
            if r.random() < 0.2:
                kw["force"] = True
            self.attempt("push", porcelain.push, repo, bare_target, outstream=out, errstream=err, **kw)
        elif op in ("pull", "fetch"):
            other = self.path("other%d" % self.n)
            self.n += 1
            if r.random() < 0.6:
                # a second clone of the bare target gets a commit pushed back first
                if self.attempt("clone", porcelain.clone, bare_target, other, errstream=err) is not None:
                    self.commit(other, 1)
                    self.attempt("push", porcelain.push, other, bare_target, outstream=out, errstream=err)
            if op == "pull":
                kw = {}
                if r.random() < 0.2:
                    kw["refspecs"] = [r.choice([b"HEAD", b"refs/heads/nosuch"])]
                self.attempt("pull", porcelain.pull, repo, bare_target, outstream=out, errstream=err, **kw)
            else:
                self.attempt("fetch", porcelain.fetch, repo, bare_target, outstream=out, errstream=err)

    def case_local(self):
        r = self.r
        repo = self.make_repo("work", r.randint(1, 3))
        bare = self.path("bare.git")
        self.attempt("init", porcelain.init, bare, bare=True)
        if r.random() < 0.4:
            self.attempt("tag_create", porcelain.tag_create, repo, b"v1.0", annotated=r.random() < 0.7,
                         message=b"first release\n", author=r.choice(AUTHOR))
        if r.random() < 0.6:
            self.attempt("push", porcelain.push, repo, bare, outstream=self.out, errstream=self.err)
        for _ in range(r.randint(4, 14)):
            self.local_step(repo, bare)

    # -- client and server ---------------------------------------------------------
    def start_server(self, root, repos):
        r = self.r
        port = _capture.free_port()
        self.ports.append(port)
        git = r.random() < 0.5
        # dulwich 0.21's FileSystemBackend fails on the bytes path the git:// server hands it
        if r.random() < (0.9 if git else 0.5):
            # the git:// server hands the backend the path as bytes, the web application as str
            repos = {"/" + name: Repo(os.path.join(root, name)) for name in repos}
            repos.update({k.encode(): v for k, v in list(repos.items())})
            backend = DictBackend(repos)
            prefix = "/"
        else:
            # FileSystemBackend joins the URL's absolute path to its root: the URL names the whole path
            backend = FileSystemBackend(root)
            prefix = root + "/"
        if git:
            srv = TCPGitServer(backend, HOST, port, handlers=HANDLERS)
            self.servers.append(Served(srv, "git"))
            return "git://%s:%d%s" % (HOST, port, prefix), "git"
        app = make_wsgi_chain(backend, handlers=HANDLERS, dumb=r.random() < 0.1)
        srv = make_server(HOST, port, app, server_class=WSGIServerLogger, handler_class=WSGIRequestHandlerLogger)
        self.servers.append(Served(srv, "http"))
        return "http://%s:%d%s" % (HOST, port, prefix), "http"

    def corrupt(self, srv_repo):
        """Adds a commit with a new loose blob to the server's repository, then overwrites the blob."""
        with Repo(srv_repo) as rp:
            head = rp.refs[b"refs/heads/master"]
            blob = Blob.from_string(("corrupt me %s\n" % self.words(4)).encode())
            tree = Tree()
            for item in rp[rp[head].tree].iteritems():
                tree.add(item.path, item.mode, item.sha)
            tree.add(b"victim.txt", 0o100644, blob.id)
            c = Commit()
            c.tree, c.parents = tree.id, [head]
            c.author = c.committer = AUTHOR[0]
            c.author_time = c.commit_time = int(time.time())
            c.author_timezone = c.commit_timezone = 0
            c.encoding = b"UTF-8"
            c.message = b"Server-side commit\n"
            for o in (blob, tree, c):
                rp.object_store.add_object(o)
            rp.refs[b"refs/heads/master"] = c.id
            p = rp.object_store._get_shafile_path(blob.id)
        os.chmod(p, 0o644)
        with open(p, "wb") as fh:
            fh.write(self.r.choice([b"not zlib at all", b"x\x9c\x01\x02garbage", b""]))

    def dumb_walk(self, base, name):
        r = self.r
        paths = ["info/refs", "objects/info/packs", "HEAD", "objects/info/alternates", "nosuch/file"]
        with Repo(os.path.join(self.srv_root, name)) as rp:
            try:
                head = rp.refs[b"refs/heads/master"]
                paths.append("objects/%s/%s" % (head[:2].decode(), head[2:].decode()))
            except KeyError:
                pass
            for pack in rp.object_store.packs[:1]:
                paths.append("objects/pack/" + os.path.basename(pack._basename) + ".idx")
        paths.append("objects/ab/" + "c" * 38)
        for p in r.sample(paths, r.randint(2, len(paths))):
            self.note("GET " + p)
            try:
                with urllib.request.urlopen(base + name + "/" + p, timeout=3) as resp:
                    resp.read()
                self.count("dumb ok")
            except (urllib.error.URLError, OSError) as e:
                self.count("dumb " + type(e).__name__)

    def case_server(self):
        r = self.r
        src = self.make_repo("src", r.randint(1, 4))
        root = self.path("srv")
        os.makedirs(root)
        self.srv_root = root
        name = r.choice(["project.git", "lib.git", "tools.git"])
        srv_repo = os.path.join(root, name)
        self.attempt("init", porcelain.init, srv_repo, bare=True)
        self.attempt("push", porcelain.push, src, srv_repo, outstream=self.out, errstream=self.err)
        if r.random() < 0.3:
            self.attempt("tag_create", porcelain.tag_create, src, b"v1.0", annotated=r.random() < 0.5,
                         message=b"first release", author=AUTHOR[0])
            self.attempt("push", porcelain.push, src, srv_repo, refspecs=[b"refs/tags/v1.0"],
                         outstream=self.out, errstream=self.err)
        hook = pick(r, [(7, None), (2, "ok"), (1, "fail")])
        if hook:
            hp = os.path.join(srv_repo, "hooks", "post-receive")
            os.makedirs(os.path.dirname(hp), exist_ok=True)
            with open(hp, "w") as fh:
                if hook == "ok":
                    fh.write("#!/bin/sh\nwhile read old new ref; do echo \"deployed $ref\"; done\n"
                             "echo \"post-receive: done\"\n")
                else:
                    fh.write("#!/bin/sh\necho 'checking...'\necho 'quota exceeded' >&2\nexit 1\n")
            os.chmod(hp, 0o755)
            self.note("hook " + hook)
        base, kind = self.start_server(root, [name])
        self.note(kind)
        url = base + name
        work = self.path("work")
        cloned = self.attempt("clone", porcelain.clone, url, work, errstream=self.err,
                              bare=False, depth=1 if r.random() < 0.05 else None) is not None
        for _ in range(r.randint(3, 10)):
            op = pick(r, [(3, "clone"), (3, "ls_remote"), (8, "push"), (3, "push_branch"), (2, "push_tag"),
                          (1, "push_delete"), (3, "diverge"), (1, "unknown_ref"), (4, "fetch"), (4, "pull"),
                          (2, "missing_repo"), (1, "corrupt"), (2 if kind == "http" else 0, "dumb"),
                          (3, "log"), (6, "cli")])
            if not cloned and op in ("push", "push_branch", "push_tag", "push_delete", "diverge", "unknown_ref",
                                     "fetch", "pull", "log"):
                op = r.choice(["clone", "ls_remote"])
            if op == "clone":
                target = self.path("c%d" % self.n)
                self.n += 1
                kw = {"bare": r.random() < 0.3}
                if r.random() < 0.2:
                    kw["branch"] = r.choice(["master", "nosuch"])
                if r.random() < 0.06:
                    kw["depth"] = 1
                ok = self.attempt("clone", porcelain.clone, url, target, errstream=self.err, **kw) is not None
                if ok and not cloned and not kw["bare"]:
                    work, cloned = target, True
            elif op == "ls_remote":
                self.attempt("ls_remote", porcelain.ls_remote, url)
            elif op == "push":
                self.commit(work, r.randint(1, 2))
                self.attempt("push", porcelain.push, work, url, outstream=self.out, errstream=self.err)
            elif op == "push_branch":
                b = "feature-%s" % r.choice(WORDS)
                self.attempt("branch_create", porcelain.branch_create, work, b)
                self.attempt("push", porcelain.push, work, url, refspecs=[("refs/heads/%s" % b).encode()],
                             outstream=self.out, errstream=self.err)
            elif op == "push_tag":
                t = "v2.%d" % r.randint(0, 9)
                self.attempt("tag_create", porcelain.tag_create, work, t.encode(), annotated=r.random() < 0.5,
                             message=b"tagged", author=AUTHOR[1])
                self.attempt("push", porcelain.push, work, url, refspecs=[("refs/tags/%s" % t).encode()],
                             outstream=self.out, errstream=self.err)
            elif op == "push_delete":
                self.attempt("push", porcelain.push, work, url,
                             refspecs=[r.choice([b":refs/heads/feature-alpha", b":refs/tags/v1.0"])],
                             outstream=self.out, errstream=self.err)
            elif op == "diverge":
                # another clone pushes first; this one's push is then not a fast-forward
                other = self.path("o%d" % self.n)
                self.n += 1
                if self.attempt("clone", porcelain.clone, url, other, errstream=self.err) is not None:
                    self.commit(other, 1)
                    self.attempt("push", porcelain.push, other, url, outstream=self.out, errstream=self.err)
                self.commit(work, 1)
                self.attempt("push", porcelain.push, work, url, outstream=self.out, errstream=self.err,
                             force=r.random() < 0.3)
                if r.random() < 0.5:
                    self.attempt("pull", porcelain.pull, work, url, outstream=self.out, errstream=self.err)
            elif op == "unknown_ref":
                self.attempt("push", porcelain.push, work, url, refspecs=[b"refs/heads/nosuch"],
                             outstream=self.out, errstream=self.err)
            elif op == "fetch":
                self.attempt("fetch", porcelain.fetch, work, url, outstream=self.out, errstream=self.err,
                             depth=1 if r.random() < 0.1 else None)
            elif op == "pull":
                kw = {}
                if r.random() < 0.2:
                    kw["refspecs"] = [r.choice([b"refs/heads/master", b"refs/heads/nosuch"])]
                self.attempt("pull", porcelain.pull, work, url, outstream=self.out, errstream=self.err, **kw)
            elif op == "missing_repo":
                what = r.choice(["clone", "ls_remote", "fetch"])
                murl = base + r.choice(["nosuch.git", "other/project.git"])
                if what == "clone":
                    self.attempt("clone", porcelain.clone, murl, self.path("m%d" % self.n), errstream=self.err)
                    self.n += 1
                elif what == "ls_remote":
                    self.attempt("ls_remote", porcelain.ls_remote, murl)
                elif cloned:
                    self.attempt("fetch", porcelain.fetch, work, murl, outstream=self.out, errstream=self.err)
            elif op == "corrupt":
                self.attempt("corrupt", self.corrupt, srv_repo)
                target = self.path("k%d" % self.n)
                self.n += 1
                if cloned and r.random() < 0.5:
                    self.attempt("fetch", porcelain.fetch, work, url, outstream=self.out, errstream=self.err)
                else:
                    self.attempt("clone", porcelain.clone, url, target, errstream=self.err)
            elif op == "dumb":
                self.dumb_walk(base, name)
            elif op == "log":
                self.attempt("log", porcelain.log, work, outstream=self.out, max_entries=r.randint(1, 5))
            elif op == "cli":
                if cloned and r.random() < 0.3:
                    self.cli_local(work)
                else:
                    self.cli_remote(work if cloned else src, url)

    # -- failures -------------------------------------------------------------------
    def case_failure(self):
        r = self.r
        src = self.make_repo("src", r.randint(1, 2))
        port = _capture.free_port()
        self.ports.append(port)
        what = pick(r, [(3, "git"), (3, "http"), (1, "closed")])
        if what == "git":
            mode = r.choice(["close", "garbage", "err", "truncated", "silent"])
            self.servers.append(Fake(mode, port))
            url = "git://%s:%d/project.git" % (HOST, port)
        elif what == "http":
            mode = "http_" + r.choice(["500", "404", "401", "html", "garbage"])
            self.servers.append(Fake(mode, port))
            url = "http://%s:%d/project.git" % (HOST, port)
        else:
            mode = "closed"
            url = r.choice(["git", "http"]) + "://%s:%d/project.git" % (HOST, port)
        self.note(mode)
        self.count("fake " + mode)
        for _ in range(r.randint(1, 3)):
            op = r.choice(["clone", "ls_remote", "push", "fetch", "pull"])
            if op == "clone":
                self.attempt("clone", porcelain.clone, url, self.path("c%d" % self.n), errstream=self.err)
                self.n += 1
            elif op == "ls_remote":
                self.attempt("ls_remote", porcelain.ls_remote, url)
            elif op == "push":
                self.attempt("push", porcelain.push, src, url, outstream=self.out, errstream=self.err)
            elif op == "fetch":
                self.attempt("fetch", porcelain.fetch, src, url, outstream=self.out, errstream=self.err)
            else:
                self.attempt("pull", porcelain.pull, src, url, outstream=self.out, errstream=self.err)
        # the application then carries on locally
        for _ in range(r.randint(1, 3)):
            self.local_step(src, src)


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
ARGS = None


def init_worker(seed, tmp):
    global LOG, ARGS, STRAY
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    warnings.simplefilter("ignore")
    threading.excepthook = lambda args: None
    socket.setdefaulttimeout(3)
    ARGS = (seed, tmp)
    LOG = _capture.EventLog(dulwich, os.devnull, logger_names=LOGGER_ROOTS, wrappers=WRAPPERS)
    STRAY = _capture.StrayRecords(LOG)
    LOG.addFilter(STRAY)
    for name in LOGGER_ROOTS:
        logging.getLogger(name).propagate = False


def run_case(i):
    seed, tmp = ARGS
    cid = "dulwich-%05d" % i
    r = random.Random("%d-%d" % (seed, i))
    ctmp = tempfile.mkdtemp(prefix="case%d_" % i, dir=tmp)
    home = os.path.join(ctmp, "home")
    os.makedirs(home)
    os.environ["HOME"] = home
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    cwd = os.getcwd()
    os.chdir(ctmp)
    case = Case(i, r, ctmp)
    LOG._rows = []
    stray0 = STRAY.n
    w0 = dict(WRITES)
    LOG.case_id = cid
    t0 = time.time()
    signal.signal(signal.SIGALRM, _capture.on_alarm)
    signal.alarm(40)
    try:
        case.run()
    except BaseException as e:  # noqa: BLE001  a broken case must not stop the generation
        case.count("case exceptions " + type(e).__name__)
        if DEBUG:
            import traceback
            traceback.print_exc()
    finally:
        LOG.case_id = None  # what the clean-up makes dulwich log is not the case's
        try:
            case.cleanup()
        except BaseException:  # noqa: BLE001
            case.count("cleanup failed")
        signal.alarm(0)
        rows, LOG._rows = LOG._rows, []
        os.chdir(cwd)
        shutil.rmtree(ctmp, ignore_errors=True)
    case.st["stray"] = STRAY.n - stray0 + WRITES["stray"] - w0["stray"]
    case.st["blank writes"] = WRITES["blank"] - w0["blank"]
    case.st["writes outside"] = WRITES["outside"] - w0["outside"]
    debug("%s %d events %.2fs %s | %s" % (cid, len(rows), time.time() - t0,
                                         " ".join(sorted(k for k in case.st if k.startswith("kind"))),
                                         " ".join(case.notes[:40])))
    return i, cid, rows, case.st


def main():
    a = _capture.parse_args("dulwich", "Event log of dulwich repository workflows, local and against in-process servers.", 500, 2)
    tmp = _capture.work_dir("dulwich")
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
              "GIT_SSH", "GIT_SSH_COMMAND", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_DIR"):
        os.environ.pop(k, None)
    os.environ["no_proxy"] = HOST
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]

    def on_term(signum, frame):
        raise SystemExit(130)
    signal.signal(signal.SIGTERM, on_term)
    try:
        log, totals = _capture.run_cases(dulwich, a.out, run_case, todo, init_worker, (a.seed, tmp),
                                         a.jobs)
        kinds = {k[5:]: v for k, v in totals.items() if k.startswith("kind ")}
        errs = {k[16:]: v for k, v in totals.items() if k.startswith("case exceptions ")}
        raised = sum(v for k, v in totals.items() if k.startswith("op ") and " raised " in k)
        sys.stderr.write("%s; kinds %s; operations that raised %d; case exceptions %s; records and writes "
                         "outside any case dropped %d; blank writes %d; writes from outside dulwich %d; %.0fs\n"
                         % (log.summary(), kinds, raised, errs or "none", totals.get("stray", 0),
                            totals.get("blank writes", 0), totals.get("writes outside", 0), time.time() - t0))
        if DEBUG:
            for k in sorted(totals):
                sys.stderr.write("  %s: %s\n" % (k, totals[k]))
        if log.cases_written == 0:
            sys.exit("gen_dulwich: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
