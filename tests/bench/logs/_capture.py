"""Shared capture machinery for the event-log generators in this directory.

Stdlib only.  A generator creates an ``EventLog(pkg_module, out_path, ...)``,
sets ``log.case_id`` before running each case (a plain attribute, not a
contextvar, because libraries such as paramiko log from their own threads),
calls ``log.end_case()`` after it, and ``log.finish()`` at the end.

Rows: case_id,timestamp,activity,level,logger,code.filepath,code.function,
code.lineno,code.qualname,code.wrapped  (same layout as the botocore bench).

Wrapped emitters: some libraries log through a helper (``Transport._log``,
``VerboseLogger.verbose``).  For records whose (file, function) is listed in
``wrappers`` the emitter is attributed to the first caller frame outside the
wrappers, and ``code.wrapped`` is 1.

Optional, for adapters (all default to the old behaviour):
``skip_files`` -- absolute paths of files whose frames are walked through
  while looking for the caller of a wrapper (e.g. ``logging.__file__``: a
  ``logging.LoggerAdapter`` subclass overriding ``log`` is reached from the
  library through the stdlib's ``LoggerAdapter.info``/``.warning``...).
``wrapper_pred(rel, func)`` -- a predicate marking further (file, function)
  pairs as wrappers, in addition to the ``wrappers`` set.
Record filtering (e.g. dropping the records of an in-process server's thread)
needs nothing here: use the standard ``logging.Handler.addFilter``.
"""
import argparse
import ast
import csv
import datetime as _dt
import gzip
import io
import logging
import os
import shutil
import socket
import sys
import tempfile
import threading


# Ports for servers that cases run side by side: a free port of 127.0.0.1
# is held back from the other cases until the case that got it releases
# it (binding port 0 and closing hands the same port out again soon).
_PORTS = set()
_PORTS_LOCK = threading.Lock()


def parse_args(name, description, cases, jobs):
    """The command line of a generator whose cases run in worker processes:
    --out, --cases (default cases), --seed, --jobs (default jobs), and
    --repo (for run.sh, answered before the rest is parsed)."""
    ap = argparse.ArgumentParser(
        description=description,
        epilog="example: /usr/bin/python3 %%(prog)s --out .deps/logs/%s.csv.gz --cases %d --seed 1"
        % (name, cases),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="store_true", help="print the directory to index and exit")
    ap.add_argument("--out", required=True, help="the gzipped CSV log to write")
    ap.add_argument("--cases", type=int, default=cases)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=jobs, help="cases run side by side, each worker a process")
    return ap.parse_args()


def work_dir(name):
    """The run's scratch directory, in memory when /dev/shm can be written."""
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="gen_%s_" % name, dir=base)


def stop_group(proc):
    """Ends a server started in a process group of its own: SIGTERM, then
    SIGKILL if it is not gone within 5 s."""
    import signal
    import subprocess
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(5)
    except (OSError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()


def free_port():
    """A free port of 127.0.0.1, not handed to another running case."""
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        with _PORTS_LOCK:
            if p not in _PORTS:
                _PORTS.add(p)
                return p


def release_ports(ports):
    """Gives the ports a case got from free_port back to the others."""
    with _PORTS_LOCK:
        _PORTS.difference_update(ports)


def copy_packages(src_top, pkgs, dst_top):
    """Copies the .py files of packages pkgs from src_top into dst_top (each
    package's copy made afresh), for a generator that indexes a directory
    holding only the packages it runs; returns dst_top."""
    for p in pkgs:
        src = os.path.join(src_top, p)
        dst = os.path.join(dst_top, p)
        shutil.rmtree(dst, ignore_errors=True)
        for root, dirs, files in os.walk(src):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            out = os.path.join(dst, os.path.relpath(root, src))
            os.makedirs(out, exist_ok=True)
            for f in sorted(files):
                if f.endswith(".py"):
                    shutil.copyfile(os.path.join(root, f), os.path.join(out, f))
    return dst_top


def self_signed_cert(tmp, key_password=None):
    """A throw-away self-signed certificate for localhost and 127.0.0.1, as
    files in tmp: {"cert", "key"}, and "key_pw" (the key encrypted with
    key_password) when one is given; None without the cryptography package
    (no TLS cases then)."""
    try:
        import ipaddress
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        return None
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = _dt.datetime.utcnow()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - _dt.timedelta(days=1))
            .not_valid_after(now + _dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    out = {"cert": os.path.join(tmp, "cert.pem"), "key": os.path.join(tmp, "key.pem")}
    with open(out["cert"], "wb") as fh:
        fh.write(cert.public_bytes(serialization.Encoding.PEM))
    keys = [("key", serialization.NoEncryption())]
    if key_password is not None:
        out["key_pw"] = os.path.join(tmp, "key-pw.pem")
        keys.append(("key_pw", serialization.BestAvailableEncryption(key_password)))
    for which, enc in keys:
        with open(out[which], "wb") as fh:
            fh.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, enc))
    return out


def pick(r, table):
    """A value of table, a list of (weight, value) pairs, drawn with the
    random.Random r in proportion to the weights (generators' case plans)."""
    x = r.random() * sum(w for w, _ in table)
    for w, v in table:
        x -= w
        if x < 0:
            return v
    return table[-1][1]


def _escape(msg):
    msg = msg.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
    return msg[:500]


class QualnameIndex:
    """Map (abs path, line) -> qualified name of the innermost enclosing def/class."""

    def __init__(self):
        self._spans = {}

    def _load(self, path):
        spans = []
        try:
            with open(path, "rb") as fh:
                tree = ast.parse(fh.read(), filename=path)
        except (OSError, SyntaxError, ValueError):
            self._spans[path] = spans
            return spans

        def walk(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = prefix + child.name
                    start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    spans.append((start, child.end_lineno, q))
                    walk(child, q + ".")
                else:
                    walk(child, prefix)

        walk(tree, "")
        self._spans[path] = spans
        return spans

    def qualname(self, path, line):
        spans = self._spans.get(path)
        if spans is None:
            spans = self._load(path)
        best = None
        for s, e, q in spans:
            if s <= line <= e and (best is None or s >= best[0]):
                best = (s, e, q)
        return best[2] if best else ""


class EventLog(logging.Handler):
    """logging.Handler that writes one CSV row per record emitted inside the package."""

    FIELDS = ["case_id", "timestamp", "activity", "level", "logger", "code.filepath",
              "code.function", "code.lineno", "code.qualname", "code.wrapped"]

    def __init__(self, pkg_module, out_path, logger_names=None, wrappers=(), min_events=3,
                 skip_files=(), wrapper_pred=None):
        super().__init__(level=logging.DEBUG)
        self.skip_files = {os.path.realpath(p) for p in skip_files}
        self.wrapper_pred = wrapper_pred
        self.pkg_name = pkg_module.__name__.split(".")[0]
        self.pkg_dir = os.path.realpath(os.path.dirname(pkg_module.__file__))
        self.out_path = out_path
        self.wrappers = set(wrappers)  # {(relpath like 'paramiko/transport.py', funcName)}
        self.min_events = min_events
        self.qn = QualnameIndex()
        self.case_id = None
        self._rows = []
        self._lock2 = threading.Lock()
        self._realpath_cache = {}
        self.cases_written = 0
        self.cases_dropped = 0
        self.events_written = 0
        self.lines = set()
        self.functions = set()
        raw = gzip.open(out_path, "wb")
        self._raw = raw
        self._fh = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        self._w = csv.writer(self._fh)
        self._w.writerow(self.FIELDS)
        for name in (logger_names or [self.pkg_name]):
            lg = logging.getLogger(name)
            lg.setLevel(logging.DEBUG)
            lg.addHandler(self)

    # -- path helpers -------------------------------------------------------
    def _is_wrapper(self, rel, func):
        if (rel, func) in self.wrappers:
            return True
        return self.wrapper_pred is not None and bool(self.wrapper_pred(rel, func))

    def _rel(self, path):
        rp = self._realpath_cache.get(path)
        if rp is None:
            rp = os.path.realpath(path)
            self._realpath_cache[path] = rp
        if rp == self.pkg_dir or rp.startswith(self.pkg_dir + os.sep):
            return rp, self.pkg_name + "/" + os.path.relpath(rp, self.pkg_dir).replace(os.sep, "/")
        return rp, None

    def _unwrap(self, record):
        """Find the caller of a wrapper function; returns (abs, rel, func, line) or None."""
        f = sys._getframe()
        target = os.path.realpath(record.pathname)
        while f is not None:
            if f.f_lineno == record.lineno and self._rel(f.f_code.co_filename)[0] == target:
                break
            f = f.f_back
        if f is None:
            return None
        while f is not None:
            ap, rel = self._rel(f.f_code.co_filename)
            if rel is None and ap in self.skip_files:
                f = f.f_back
                continue
            if rel is None or not self._is_wrapper(rel, f.f_code.co_name):
                return ap, rel, f.f_code.co_name, f.f_lineno
            f = f.f_back
        return None

    # -- logging.Handler ----------------------------------------------------
    def emit(self, record):
        try:
            cid = self.case_id
            if cid is None:
                return
            ap, rel = self._rel(record.pathname)
            if rel is None:
                return
            func, line, wrapped = record.funcName, record.lineno, 0
            if self._is_wrapper(rel, func):
                u = self._unwrap(record)
                if u is None or u[1] is None:
                    return
                ap, rel, func, line = u
                wrapped = 1
            ts = _dt.datetime.fromtimestamp(record.created, _dt.timezone.utc).isoformat(timespec="microseconds")
            row = [cid, ts, _escape(record.getMessage()), record.levelname, record.name,
                   rel, func, line, self.qn.qualname(ap, line), wrapped]
            with self._lock2:
                self._rows.append(row)
        except Exception:  # never break the library under test
            self.handleError(record)

    def end_case(self):
        with self._lock2:
            rows, self._rows = self._rows, []
        if len(rows) >= self.min_events:
            self._w.writerows(rows)
            self.cases_written += 1
            self.events_written += len(rows)
            for r in rows:
                self.lines.add((r[5], r[7]))
                self.functions.add((r[5], r[8]))
        else:
            self.cases_dropped += 1
        self.case_id = None

    def write_case(self, case_id, rows):
        """Writes a case captured elsewhere (a worker process), its rows as emit() makes them."""
        with self._lock2:
            self._rows = rows
        self.case_id = case_id
        self.end_case()

    def close(self):
        # logging.config.dictConfig() (pip calls it on every run) closes every
        # registered handler: keep writing, the file is closed by finish().
        pass

    def finish(self):
        for name in list(logging.Logger.manager.loggerDict) + [""]:
            lg = logging.getLogger(name)
            if self in lg.handlers:
                lg.removeHandler(self)
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def summary(self):
        return ("%s: %d cases (%d dropped), %d events, %d distinct lines, %d functions"
                % (self.out_path, self.cases_written, self.cases_dropped, self.events_written,
                   len(self.lines), len(self.functions)))


# ---------------------------------------------------------------------------
# Generators that run their cases in worker processes (multiprocessing).


class StrayRecords(logging.Filter):
    """Counts the records that reach an EventLog while it has no case open
    (it drops them): what a case's cleanup, or an earlier case's leftovers,
    make the package log."""

    def __init__(self, log):
        super().__init__()
        self.log = log
        self.n = 0

    def filter(self, record):
        if self.log.case_id is None:
            self.n += 1
        return True


class CaseTimeout(BaseException):
    """Raised by SIGALRM in a case that runs too long (see on_alarm). Not an
    Exception, so that a broad ``except Exception`` in the code the case runs
    cannot swallow it and leave the case waiting for ever."""


def on_alarm(signum, frame):
    raise CaseTimeout()


def run_cases(package, out, run_case, todo, init_worker, initargs, jobs, per_worker=100):
    """Runs the cases todo in a pool of forked worker processes (each made by
    init_worker(*initargs), replaced after per_worker cases) and writes their
    rows to out in case order; returns (the EventLog written, the counts
    added up). The main process only writes: its capture listens to no
    logger."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(max(1, jobs), initializer=init_worker, initargs=initargs,
                  maxtasksperchild=per_worker) as pool:
        log = EventLog(package, out, logger_names=[package.__name__ + ".bench-unused"])
        return log, collect_cases(pool, run_case, todo, log)


def collect_cases(pool, run_case, todo, log):
    """Writes to log, in order, the rows of the cases the pool's workers ran
    (run_case(i) -> (i, case_id, rows, counts)); returns the counts added up."""
    totals = {}
    try:
        for _i, cid, rows, st in pool.imap(run_case, todo, chunksize=1):
            log.write_case(cid, rows)
            for k, v in st.items():
                totals[k] = totals.get(k, 0) + v
    finally:
        log.finish()
    return totals
