"""The recorder of a Python idiom's driver: every message the code under
src/ logs, prints or warns, with its truth, the file and line of the call
that emitted it.

    import recorder
    recorder.setup("src", skip=["eprint"])   # before importing the code
    for c, ... in enumerate(...):
        recorder.case(c)
        ... run the code ...
    recorder.write()

Messages: each record of the root logger's handler, rendered with fmt
(default "%(message)s", tracebacks included), with its logger's name, as
an OpenTelemetry log record carries it; each line written to
sys.stdout or sys.stderr (print, click.echo, stream writes), one message a
line; each warning's text. A driver records what else it sees (the text of
a SystemExit, a traceback printed in one call) with record(text, frame).

Truth: the innermost frame in a file under src/ whose function is not a
pure logging wrapper named in skip (a function name, a file relative to
src/, or FILE:FUNCTION); the wrapper's caller is then the emitter. A
message without such a frame fails write(), which names it: the idiom
would score what no code under src/ emitted. (It does not raise where the
message is emitted, where the code under test could catch it.)

write() puts log.csv (case,message,logger: the logger's name, empty for
what is printed or warned) and log_truth.csv (the same and code.filepath,
code.lineno, the file relative to src/) in the directory
named by IDIOM_OUT, and lists the events on stdout.
"""
import builtins
import csv
import io
import logging
import os
import sys
import warnings

_src = None
_skip = set()
_events = []
_lost = []
_case = ["0"]
_print = builtins.print


def _truth(frame):
    f = frame
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if path.startswith(_src + os.sep):
            rel = os.path.relpath(path, _src)
            name = f.f_code.co_name
            if not {name, rel, rel + ":" + name} & _skip:
                return rel, f.f_lineno
        f = f.f_back
    return None


def record(text, frame, logger=""):
    """Records text as a message emitted at frame (or at its first caller
    under src/ that is not a wrapper), by the logger so named if any."""
    where = _truth(frame)
    if where is None:
        _lost.append(text)
    else:
        _events.append((_case[0], text, logger, where[0], where[1]))


class _Handler(logging.Handler):
    def emit(self, rec):
        record(self.format(rec), sys._getframe(1), rec.name)


class _Lines:
    """sys.stdout or sys.stderr: each complete line is a message, emitted
    where its first character was written."""

    def __init__(self, real):
        self.real = real
        self.buf = ""
        self.frame = None

    def write(self, s):
        if not self.buf:
            self.frame = sys._getframe(1)
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            if line.strip():
                record(line, self.frame)
            self.frame = sys._getframe(1)
        return len(s)

    def flush(self):
        pass

    def __getattr__(self, k):
        return getattr(self.real, k)


def _print_line(*a, sep=" ", end="\n", file=None, flush=False):
    # One print is one message, even when it holds line breaks.
    if file is not None and not isinstance(file, _Lines):
        return _print(*a, sep=sep, end=end, file=file, flush=flush)
    buf = io.StringIO()
    _print(*a, sep=sep, end="", file=buf)
    record(buf.getvalue(), sys._getframe(1))


def _showwarning(message, category, filename, lineno, file=None, line=None):
    record(str(message), sys._getframe(1))


def _restore():
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    builtins.print = _print


def _excepthook(*exc):
    # A driver that fails says why on the real stderr, not as a message.
    _restore()
    sys.__excepthook__(*exc)


def setup(src, skip=(), fmt="%(message)s", level=logging.DEBUG):
    """Starts recording what the code under src (importable from now on)
    emits; skip names its pure logging wrappers."""
    global _src
    _src = os.path.abspath(src)
    _skip.update(skip)
    sys.path.insert(0, _src)
    h = _Handler()
    h.setFormatter(logging.Formatter(fmt))
    logging.root.addHandler(h)
    logging.root.setLevel(level)
    builtins.print = _print_line
    sys.stdout = _Lines(sys.stdout)
    sys.stderr = _Lines(sys.stderr)
    warnings.simplefilter("always")
    warnings.showwarning = _showwarning
    sys.excepthook = _excepthook


def case(c):
    """The case of the messages that follow."""
    _case[0] = str(c)


def write():
    _restore()
    if _lost:
        sys.exit("recorder: no frame under %s (past the wrappers %s) emitted %s"
                 % (_src, sorted(_skip), ", ".join(map(repr, _lost[:5]))))
    out = os.environ.get("IDIOM_OUT")
    if not out:
        sys.exit("recorder: IDIOM_OUT names no directory for the log (tests/idioms/run.sh sets it)")
    for name, cols in (("log.csv", 3), ("log_truth.csv", 5)):
        with open(os.path.join(out, name), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["case", "message", "logger", "code.filepath", "code.lineno"][:cols])
            w.writerows(e[:cols] for e in _events)
    for c, m, _, rel, line in _events:
        _print("  [%s] %s:%d  %r" % (c, rel, line, m))
