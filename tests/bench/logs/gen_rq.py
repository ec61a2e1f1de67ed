#!/usr/bin/python3
"""Event log of rq (Debian python3-rq 1.13.0), a job queue over Redis
(python3-redis 4.3.4), against Debian's redis-server on 127.0.0.1.

    /usr/bin/python3 gen_rq.py --out .deps/logs/rq.csv.gz [--cases 600] [--seed 1] [--jobs 3]
    /usr/bin/python3 gen_rq.py --repo     # prints the directory to index

Indexed: the installed ``rq`` directory (``/usr/lib/python3/dist-packages/rq``):
queues, jobs, registries, workers, the scheduler, commands, the command
line (``rq/cli``, indexed, not run), ``contrib`` (``legacy.cleanup_ghosts``
runs, the Sentry integration does not).

Server: one redis-server for the run (a free port, a temp dir, no
persistence, 1024 databases); each case works in a database of its own,
flushed first, so the keys of one case (queues, registries, the worker set,
``rq:suspended``) are not seen by another.  Worker names hold the case's
number: the command channels (pub/sub, shared by all databases) stay
apart too.  A few cases start a private redis-server of their own, to kill
or freeze it.

A case is one application's queues over their lifetime: 1-3 queues with
random names, default timeouts and, in some cases, rq's JSON serializer;
then 1-4 phases, each enqueueing 1-5 jobs (up to 9 when the worker logs at
INFO, a few lines a job instead of some twenty) and running a worker over
them, with maintenance between phases.  Jobs are functions of a module the
generator builds and registers as ``tasks`` (so that workers import them by
name, as they would an application's module): they send mail, resize images,
add numbers, build long reports and row lists (big results), run as
coroutines, update their ``meta``, call methods of a pickled instance, fail
(``ValueError``, ``KeyError``, a custom exception, connection errors), fail
a few times before they succeed (with ``Retry``, intervals 0 or 1 s), sleep,
overrun ``job_timeout``, enqueue further jobs (fan-out, chains), return what
the serializer cannot store, and are enqueued by names that do not import (a
missing module, a missing function). Job options: ``job_timeout`` (seconds,
``"5m"``, -1), ``result_ttl`` (0, -1, seconds), ``ttl``, ``failure_ttl``,
descriptions, ids (uuid-shaped from the case's seed, or readable),
``at_front``, ``meta``, ``depends_on`` (a job, a list, ``Dependency`` with
``allow_failure``/``enqueue_at_front``), ``on_success`` and ``on_failure``
callbacks (some raising), ``enqueue``/``enqueue_call``/``enqueue_many``,
``enqueue_at`` (past) and ``enqueue_in``. Workers: ``SimpleWorker`` (in the
case's process), a ``SimpleWorker`` with ``TimerDeathPenalty``, and the
forking ``Worker``, ``RoundRobinWorker``, ``RandomWorker`` and
``HerokuWorker`` (a work horse forked per job), with random
``default_result_ttl``, ``job_monitoring_interval``,
``log_job_description``, ``log_result_lifespan``, exception handlers (one
stopping the chain) and ``disable_default_exception_handler``; their level
(``work(logging_level=...)``) and the application's ``rq`` logger level
drawn per case (DEBUG, or rq's default INFO for the worker only, or INFO).
Phases: ``work(burst=True)``; ``work()`` ended by ``max_jobs``, by a
shutdown command, by SIGTERM, by a job that sends its worker a command
(shutdown, kill-horse, stop-job for itself or for a job it ran before) or a
signal (warm and cold shutdown; HerokuWorker's SIGRTMIN to the horse),
sometimes with the scheduler (in burst, moving due jobs; or as its own
process, polling each second) for ``enqueue_in`` jobs and retry intervals;
workers suspended (burst ones exit, others wait for the resume); a work
horse that exits or is killed; a worker killed (SIGKILL, in a process forked
for it) while its horse runs, then the abandoned job moved to the failed
registry, requeued and run by the next worker, and the dead worker's key
made a legacy ghost for ``cleanup_ghosts``; the case's Redis killed while a
worker waits (connection errors, retries with back-off, a restart), frozen
(SIGSTOP) under a connection with a socket timeout, or a ``socket_timeout``
shorter than the worker's blocking pop ("Redis connection timeout"). Between
phases: listing jobs, requeueing failed ones (three APIs), cancelling,
deleting, removing, emptying, cleaning registries (and dropping the cleaning
lock, as 15 minutes passing would), stop-job commands for jobs no worker
runs.  A case takes no further phase once it has logged 70 records.

Capture: ``_capture.py``'s handler on the ``rq`` logger (``rq.worker``,
``rq.queue``, ``rq.scheduler``, ``rq.utils``, ``rq.contrib.legacy``) and
on ``tasks``, the logger of the generator's job functions, whose records lie
outside the indexed directory: dropped and counted.  Each case runs in a
process forked from the generator (``--jobs`` at a time, 3: they mostly
wait, for Redis, timers and signals), and a case forks more: work horses, the
scheduler's process, the worker that is killed.  Every process of a case
writes each row, as it is made, with one ``write`` to the case's rows file
(``O_APPEND``), so the rows of horses that ``os._exit`` and of killed
workers are kept, in the order they were written; the main process reads
the file when the case's process has ended and writes the cases in order.
A case is given up after 90 s.  rq's worker does not add its own stream
handlers when the ``rq`` logger has one (ours), so nothing is printed.

Colours: rq colours parts of messages (``green(queue.name)``,
``blue(job.description)``, ``yellow(result)``, ``blue('Job OK')``) with
ANSI escapes, unless ``sys.stdout`` was not a terminal when ``rq.utils``
was imported (its ``colorizer.notty``).  The generator sets that flag to
"a terminal" before any case, so the escapes are in the messages whatever
the generator's stdout is, as a worker started from a shell logs them.

Determinism: each case draws from its own generator (``<seed>-<i>``), as
does Python's global ``random`` in the case (``RandomWorker`` shuffles
with it), and the job ids are drawn from it too, so two runs with one seed
give mostly the same emitters in the same order.  They differ where
processes and threads race: the worker's pub/sub thread ("Received
message", command lines) against the main thread and the horse, the
scheduler's process (how many heartbeats it sends before it is stopped),
how many blocking pops time out before a scheduled job is due, the
back-off lines while a killed Redis restarts.  Messages also hold process
ids (horses, the scheduler), ports and database numbers (the repr of a
pipeline, which rq logs as "job(s) in queue" when a job is pushed through
one), the addresses in the reprs of exception handlers, temp paths in
tracebacks, and the queue names of the scheduler's lines in set order
(which varies with Python's hash seed).  Timers that signal a worker or
send it a command count from the moment it has installed its signal
handlers.  The jobs that kill or signal processes first check that they
run in a work horse (a failed one may be requeued and run by a
``SimpleWorker`` in the case's own process), the one that kills its
worker also that the worker was forked to be killed, and do something
harmless otherwise.

No wrappers: rq calls its loggers directly (``self.log``, ``logger``,
``worker.log`` in ``command.py``, ``scheduler.log`` in ``run``); the
colour helpers only build arguments.
"""
import argparse
import asyncio
import datetime
import json
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid
import warnings

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402
from _capture import pick  # noqa: E402

import rq  # noqa: E402

if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(os.path.dirname(os.path.realpath(rq.__file__)))
    sys.exit(0)

import redis  # noqa: E402
import rq.utils  # noqa: E402
from rq import Queue, Retry, SimpleWorker, Worker, get_current_job  # noqa: E402
from rq.command import send_kill_horse_command, send_shutdown_command, send_stop_job_command  # noqa: E402
from rq.contrib.legacy import cleanup_ghosts  # noqa: E402
from rq.job import Dependency, Job, cancel_job, requeue_job  # noqa: E402
from rq.registry import FailedJobRegistry, StartedJobRegistry, clean_registries  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402
from rq.suspension import resume, suspend  # noqa: E402
from rq.timeouts import TimerDeathPenalty  # noqa: E402
from rq.worker import HerokuWorker, RandomWorker, RoundRobinWorker  # noqa: E402

CAPTURED = ["rq", "tasks"]
DATABASES = 1024
BUDGET = 70  # rows after which a case takes no further phase
CASE_TIMEOUT = 90
QUEUE_NAMES = ["default", "high", "low", "emails", "reports", "billing", "thumbnails", "webhooks",
               "exports", "imports", "notifications", "search-index", "critical", "bulk"]
PEOPLE = ["ann@example.com", "bob@example.org", "chen@example.net", "dora@example.com",
          "emeka@example.org", "fatima@example.com", "goran@example.net"]
SUBJECTS = ["Welcome", "Your invoice", "Password reset", "Weekly digest", "Order shipped",
            "Action required: verify your address"]
IMAGES = ["uploads/cat.jpg", "uploads/avatars/42.png", "media/banner-wide.webp", "tmp/scan-0001.tiff"]
URLS = ["https://api.example.com/v1/orders", "https://hooks.example.org/rq", "http://10.0.0.7:8080/health",
        "https://feeds.example.net/rss", "https://status.example.com/ping"]


# ---------------------------------------------------------------------------
# the application's job functions: a module named ``tasks``
# ---------------------------------------------------------------------------
TASKS = types.ModuleType("tasks")
TASKS.__doc__ = "The job functions of the generator's application."
sys.modules["tasks"] = TASKS
tlog = logging.getLogger("tasks")


WORKER_PID = [None]  # the process running the case's current worker
EXPENDABLE = [False]  # whether that process was forked to be killed (not the case's own)


def task(obj):
    """Makes obj an attribute of the ``tasks`` module, importable by name
    (a class's methods too: rq refuses functions of ``__main__``)."""
    obj.__module__ = "tasks"
    for v in vars(obj).values() if isinstance(obj, type) else ():
        if isinstance(v, types.FunctionType):
            v.__module__ = "tasks"
    setattr(TASKS, obj.__name__, obj)
    return obj


def in_horse():
    """Whether this job runs in a work horse (not in a SimpleWorker's own
    process): the jobs that kill or signal processes look first, since a
    failed job may be requeued and run by another kind of worker."""
    return WORKER_PID[0] is not None and os.getpid() != WORKER_PID[0]


@task
class PaymentDeclined(Exception):
    pass


@task
def send_email(to, subject="Welcome", template=None):
    tlog.info("sending %r to %s", subject, to)
    return "queued:%s:%s" % (to, template or "plain")


@task
def resize_image(path, width=800, height=600):
    return {"path": path, "size": [width, height], "thumb": path.rsplit(".", 1)[0] + "-%dx%d.jpg" % (width, height)}


@task
def add(a, b):
    return a + b


@task
def generate_report(name, rows):
    lines = ["id,customer,amount,currency"]
    for i in range(rows):
        lines.append("%d,%s,%d.%02d,EUR" % (i, PEOPLE[i % len(PEOPLE)], (i * 37) % 900, i % 100))
    return "%s\n%s" % (name, "\n".join(lines))


@task
def export_rows(n):
    return [{"id": i, "sku": "SKU-%05d" % (i * 7), "stock": (i * 13) % 50} for i in range(n)]


@task
def charge_card(customer, amount, currency="EUR"):
    if amount <= 0:
        raise ValueError("amount must be positive, got %r" % amount)
    if customer.startswith("declined"):
        raise PaymentDeclined("card of %s declined: insufficient funds" % customer)
    return {"customer": customer, "charged": amount, "currency": currency}


@task
def fetch_url(url):
    if "10.0.0.7" in url:
        raise ConnectionRefusedError(111, "Connection refused")
    if "hooks" in url:
        raise KeyError("X-Signature")
    if "status" in url:
        raise TimeoutError("read timed out after 5.0 s")
    return {"url": url, "status": 200}


@task
def flaky(key, failures):
    job = get_current_job()
    n = job.connection.incr("bench:flaky:" + key)
    if n <= failures:
        raise RuntimeError("transient failure %d of %d for %s" % (n, failures, key))
    return "succeeded after %d attempts" % n


@task
def slow(seconds):
    time.sleep(seconds)
    return seconds


@task
def fan_out(count, queue_name):
    job = get_current_job()
    q = Queue(queue_name, connection=job.connection, serializer=job.serializer)
    ids = []
    for i in range(count):
        child = q.enqueue(send_email, PEOPLE[i % len(PEOPLE)], subject="Fan-out %d" % i,
                          job_id="%s-child-%d" % (job.id, i))
        ids.append(child.id)
    return ids


@task
def chain_step(step, total, queue_name):
    job = get_current_job()
    if step < total:
        q = Queue(queue_name, connection=job.connection, serializer=job.serializer)
        q.enqueue(chain_step, step + 1, total, queue_name, job_id="%s-next" % job.id,
                  at_front=step % 2 == 0)
    return "step %d of %d" % (step, total)


@task
def update_progress(steps):
    job = get_current_job()
    for i in range(steps):
        job.meta["progress"] = int(100 * (i + 1) / steps)
        job.save_meta()
    return job.meta


@task
async def async_fetch(n):
    await asyncio.sleep(0.005)
    return {"fetched": n}


@task
def unstorable(kind):
    if kind == "set":
        return {"tags", "rq"}  # neither JSON nor (inside this lambda case) pickle
    return lambda: kind


@task
def crash_horse(how):
    if not in_horse():
        raise SystemError("native extension crashed (%s)" % how)
    if how == "exit":
        os._exit(3)
    os.kill(os.getpid(), signal.SIGKILL)


@task
def stop_me(seconds):
    job = get_current_job()
    if not in_horse():  # a SimpleWorker would kill its own process group
        return "no horse to stop"
    send_stop_job_command(job.connection, job.id, serializer=job.serializer)
    time.sleep(seconds)
    return "not stopped"


@task
def stop_job(job_id):
    job = get_current_job()
    send_stop_job_command(job.connection, job_id, serializer=job.serializer)
    time.sleep(0.3)  # the worker hears it while this job runs
    return "asked to stop %s" % job_id


@task
def kill_my_horse(seconds):
    job = get_current_job()
    send_kill_horse_command(job.connection, job.worker_name)
    time.sleep(seconds if in_horse() else 0.3)
    return "horse survived"


@task
def shutdown_worker(seconds):
    job = get_current_job()
    send_shutdown_command(job.connection, job.worker_name)
    time.sleep(seconds)
    return "shutdown requested"


@task
def signal_worker(sig, times, seconds):
    """Signals the worker's process (a work horse's parent, or this one)."""
    for i in range(times):
        if i:
            time.sleep(0.15)
        os.kill(WORKER_PID[0], sig)
    time.sleep(seconds if in_horse() else 0.3)
    return "signalled"


@task
def kill_worker(also_self):
    job = get_current_job()
    # only a worker forked to be killed, and once: the job, rescued and
    # requeued, or left queued when that worker stopped early, then runs
    # to the end in the next worker
    if not (in_horse() and EXPENDABLE[0]) or not job.connection.set("bench:killed:" + job.id, 1, nx=True):
        return "worker spared"
    os.kill(WORKER_PID[0], signal.SIGKILL)
    if also_self:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return "worker killed"


@task
def freeze_redis(pid):
    os.kill(pid, signal.SIGSTOP)
    return "redis frozen"


@task
class Thumbnailer:
    def __init__(self, size):
        self.size = size

    def render(self, name):
        if name.endswith(".tiff"):
            raise NotImplementedError("TIFF is not supported")
        return "%s@%dpx" % (name, self.size)


@task
def on_done(job, connection, result, *args, **kwargs):
    connection.incr("bench:done")


@task
def on_done_broken(job, connection, result, *args, **kwargs):
    raise RuntimeError("metrics backend unavailable")


@task
def on_failed(job, connection, type, value, traceback):
    connection.rpush("bench:failures", job.id)


@task
def on_failed_broken(job, connection, type, value, traceback):
    raise LookupError("no alert channel configured for %s" % job.origin)


@task
def report_to_tracker(job, exc_type, exc_value, traceback):
    return None  # falls through to the next handler


@task
def swallow_known(job, exc_type, exc_value, traceback):
    return not issubclass(exc_type, (ValueError, KeyError))


# ---------------------------------------------------------------------------
# workers
# ---------------------------------------------------------------------------
class TimerSimpleWorker(SimpleWorker):
    death_penalty_class = TimerDeathPenalty


WORKER_KINDS = {"simple": SimpleWorker, "timer": TimerSimpleWorker, "fork": Worker,
                "roundrobin": RoundRobinWorker, "random": RandomWorker, "heroku": HerokuWorker}
FORKING = {"fork", "roundrobin", "random", "heroku"}


# ---------------------------------------------------------------------------
# capture: rows of every process of a case go to one O_APPEND file
# ---------------------------------------------------------------------------
class RowFile:
    """Stands for EventLog._rows in a case: each row is written at once, by
    whichever process of the case made it (horses end with os._exit)."""

    def __init__(self, fd):
        self.fd = fd

    def append(self, row):
        os.write(self.fd, (json.dumps(row) + "\n").encode())

    def outside(self):
        os.write(self.fd, b"0\n")


class OutsideCounter(logging.Filter):
    """Counts the records emitted outside rq (the capture drops them)."""

    def __init__(self, log):
        super().__init__()
        self.log = log
        self.pkg_dir = log.pkg_dir + os.sep

    def filter(self, record):
        if self.log.case_id is not None and not os.path.realpath(record.pathname).startswith(self.pkg_dir):
            rows = self.log._rows
            if isinstance(rows, RowFile):
                rows.outside()
        return True


LOG = None


def read_rows(path):
    rows, outside = [], 0
    try:
        with open(path, "rb") as fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                if line == b"0":
                    outside += 1
                    continue
                try:
                    rows.append(json.loads(line))
                except ValueError:  # a process killed in the middle of a write
                    pass
    except OSError:
        pass
    return rows, outside


def count_rows(path):
    try:
        with open(path, "rb") as fh:
            return sum(1 for line in fh if line.strip() not in (b"", b"0"))
    except OSError:
        return 0


# ---------------------------------------------------------------------------
# redis servers
# ---------------------------------------------------------------------------
def free_port():
    # not _capture.free_port: its set of handed-out ports lives in one
    # process, and private servers are started in the cases' processes
    # (a port taken meanwhile makes redis-server exit, and start tries another)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class RedisServer:
    """Debian's redis-server on 127.0.0.1, without persistence: started
    again on its port after a kill, it has lost every key, as a crashed
    Redis without a dump would."""

    def __init__(self, top, databases=16):
        self.dir = tempfile.mkdtemp(prefix="redis-", dir=top)
        self.databases = databases
        self.port = None
        self.proc = None

    def start(self, port=None):
        for _ in range(20):
            p = port or free_port()
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", self.dir, "--databases", str(self.databases), "--protected-mode", "no",
                 "--logfile", "", "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(200):
                if self.proc.poll() is not None:
                    break
                try:
                    if redis.Redis(host="127.0.0.1", port=p, socket_timeout=1).ping():
                        self.port = p
                        return p
                except redis.exceptions.RedisError:
                    time.sleep(0.01)
            self.kill()
            if port:
                time.sleep(0.1)  # the old process's port may be in TIME_WAIT: try again
        raise RuntimeError("redis-server did not start")

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGCONT)
                self.proc.kill()
            except OSError:
                pass
            self.proc.wait()
        self.proc = None

    def stop(self):
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# a case
# ---------------------------------------------------------------------------
class Case:
    def __init__(self, idx, cid, r, port, top, rows_path, stats):
        self.idx = idx
        self.cid = cid
        self.r = r
        self.port = port
        self.top = top
        self.rows_path = rows_path
        self.stats = stats
        self.notes = []
        self.jobs = []  # every job the case made, for dependencies and operations
        self.nworkers = 0
        self.timers = []
        self.stop_timers = threading.Event()
        self.private = None

    def note_error(self, where, e):
        k = "%s:%s" % (where, type(e).__name__)
        self.stats["errors"][k] = self.stats["errors"].get(k, 0) + 1
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s: %r\n" % (self.cid, k, e))

    def logged(self):
        return count_rows(self.rows_path)

    def n(self, lo, hi):
        """How many jobs to enqueue: a worker at INFO logs a few lines a job,
        at DEBUG some twenty, so INFO cases get more."""
        k = self.r.randint(lo, hi)
        return k if self.levels[1] == "DEBUG" else k + self.r.randint(2, 4)

    # -- plan -----------------------------------------------------------------
    def plan(self):
        r = self.r
        self.levels = pick(r, [(11, ("DEBUG", "DEBUG")), (5, ("DEBUG", "INFO")), (4, ("INFO", "INFO"))])
        self.json = r.random() < 0.15
        self.serializer = JSONSerializer if self.json else None
        names = r.sample(QUEUE_NAMES, pick(r, [(5, 1), (3, 2), (2, 3)]))
        self.queue_opts = [(n, pick(r, [(6, None), (2, 30), (1, "10m"), (1, 600)])) for n in names]
        self.family = pick(r, [(5, "simple"), (1, "timer"), (3, "fork"), (1, "roundrobin"),
                               (1, "random"), (1, "heroku")])
        self.kind = pick(r, [(44, "plain"), (10, "loop"), (9, "sched"), (6, "suspend"), (5, "dying"),
                             (5, "commands"), (4, "signals"), (2, "outage"), (2, "stall"), (2, "socktimeout")])
        if self.kind in ("dying",) and self.family not in FORKING:
            self.family = "fork"
        if self.kind == "stall":
            self.family = pick(r, [(1, "simple"), (1, "timer")])
        self.notes += [self.kind, self.family, "json" if self.json else "pickle", "/".join(self.levels)]
        self.stats["kinds"][self.kind] = 1

    # -- connections and queues --------------------------------------------------
    def connect(self, port, db, **kw):
        self.conn = redis.Redis(host="127.0.0.1", port=port, db=db, **kw)
        self.queues = [Queue(n, connection=self.conn, default_timeout=t, serializer=self.serializer)
                       for n, t in self.queue_opts]

    def apply_levels(self):
        logging.getLogger("rq").setLevel(self.levels[0])

    # -- jobs -------------------------------------------------------------------
    def job_id(self):
        r = self.r
        if r.random() < 0.75:
            return str(uuid.UUID(int=r.getrandbits(128), version=4))
        return "%s-%d-%04d" % (r.choice(["invoice", "mail", "thumb", "sync", "report", "order"]),
                               self.idx, r.randint(0, 9999))

    def draw_call(self, forked):
        """A job function with its arguments: (func, args, kwargs, label)."""
        r = self.r
        table = [(14, "email"), (6, "resize"), (6, "add"), (3, "report"), (2, "rows"), (5, "charge"),
                 (4, "fetch"), (4, "flaky"), (3, "slow"), (1.5, "timeout"), (2, "fanout"), (1.5, "chain"),
                 (2, "progress"), (2, "async"), (1.5, "noimport"), (1, "unstorable"), (2, "method"),
                 (1, "kill_horse_cmd"), (1, "shutdown_cmd")]
        if forked:
            table += [(1.5, "crash"), (1.5, "stop_me")]
        c = pick(r, table)
        q = r.choice(self.queues).name
        if c == "email":
            f = send_email if r.random() < 0.8 else "tasks.send_email"
            kw = {"subject": r.choice(SUBJECTS)}
            if r.random() < 0.3:
                kw["template"] = r.choice(["welcome.html", "invoice.txt", "digest.mjml"])
            return f, (r.choice(PEOPLE),), kw, c
        if c == "resize":
            return resize_image, (r.choice(IMAGES),), {"width": r.choice([64, 320, 1024]),
                                                      "height": r.choice([64, 240, 768])}, c
        if c == "add":
            return (add if r.random() < 0.7 else "tasks.add"), (r.randint(-50, 500), r.randint(0, 99)), {}, c
        if c == "report":
            return generate_report, (r.choice(["daily-sales", "churn", "inventory"]), r.randint(3, 60)), {}, c
        if c == "rows":
            return export_rows, (r.randint(5, 80),), {}, c
        if c == "charge":
            cust = r.choice(["cus_%04d" % r.randint(0, 9999), "declined_%03d" % r.randint(0, 999)])
            return charge_card, (cust, r.choice([0, -5, 19, 250, 1999])), {"currency": r.choice(["EUR", "USD"])}, c
        if c == "fetch":
            return fetch_url, (r.choice(URLS),), {}, c
        if c == "flaky":
            return flaky, ("%s-%d" % (self.cid, len(self.jobs)), r.randint(1, 3)), {}, c
        if c == "slow":
            return slow, (round(r.uniform(0.02, 0.25), 2),), {}, c
        if c == "timeout":
            return slow, (1.6,), {}, c
        if c == "fanout":
            return fan_out, (r.randint(1, 2), q), {}, c
        if c == "chain":
            return chain_step, (1, r.randint(2, 3), q), {}, c
        if c == "progress":
            return update_progress, (r.randint(1, 4),), {}, c
        if c == "async":
            return async_fetch, (r.randint(1, 99),), {}, c
        if c == "noimport":
            return r.choice(["billing.invoices.render_pdf", "tasks.missing_function", "reports.weekly"]), \
                (r.randint(1, 9),), {}, c
        if c == "unstorable":
            return unstorable, ("set" if self.json else r.choice(["set", "lambda"]),), {}, c
        if c == "method":
            if self.json:  # an instance cannot be stored as JSON
                return send_email, (r.choice(PEOPLE),), {}, "email"
            return Thumbnailer(r.choice([64, 128, 512])).render, (r.choice(IMAGES),), {}, c
        if c == "crash":
            return crash_horse, (r.choice(["exit", "kill"]),), {}, c
        if c == "stop_me":
            return stop_me, (2.0,), {}, c
        if c == "kill_horse_cmd":
            return kill_my_horse, (2.0 if forked else 0.3,), {}, c
        if c == "shutdown_cmd":
            return shutdown_worker, (0.5,), {}, c
        raise AssertionError(c)

    def job_options(self, label):
        r = self.r
        o = {"job_id": self.job_id()}
        if label == "timeout":
            o["job_timeout"] = 1
        elif r.random() < 0.3:
            o["job_timeout"] = pick(r, [(4, r.choice([5, 30, 180, 600])), (2, r.choice(["5m", "1h", "90s"])),
                                        (1, -1)])
        if r.random() < 0.4:
            o["result_ttl"] = pick(r, [(2, 0), (2, -1), (3, r.choice([60, 3600, 86400]))])
        if r.random() < 0.15:
            o["ttl"] = r.choice([120, 600, 3600])
        if r.random() < 0.15:
            o["failure_ttl"] = r.choice([300, 86400])
        if r.random() < 0.1:
            o["description"] = r.choice(["nightly export", "welcome mail for new sign-up",
                                         "retry webhook delivery", "rebuild search index"])
        if r.random() < 0.15:
            o["at_front"] = True
        if r.random() < 0.2:
            o["meta"] = {"requested_by": r.choice(PEOPLE), "attempt": 1, "source": r.choice(["api", "cron"])}
        if label in ("flaky", "fetch", "charge") and r.random() < 0.6:
            o["retry"] = Retry(max=r.randint(1, 2), interval=pick(r, [(3, 0), (1, [0, 1])]))
        if r.random() < 0.15:
            o["on_success"] = on_done if r.random() < 0.7 else on_done_broken
        if r.random() < 0.15:
            o["on_failure"] = on_failed if r.random() < 0.6 else on_failed_broken
        if self.jobs and r.random() < 0.15:
            parents = r.sample(self.jobs, min(len(self.jobs), r.randint(1, 2)))
            how = r.random()
            if how < 0.4:
                o["depends_on"] = parents[0]
            elif how < 0.7:
                o["depends_on"] = [p.id for p in parents]
            else:
                o["depends_on"] = Dependency(jobs=parents, allow_failure=r.random() < 0.5,
                                             enqueue_at_front=r.random() < 0.5)
        return o

    def enqueue_batch(self, n, forked, scheduled=False):
        """Enqueues n jobs on the case's queues; returns how many went to
        queues now (not deferred, not scheduled)."""
        r = self.r
        now = 0
        batch = []
        for _ in range(n):
            f, args, kwargs, label = self.draw_call(forked)
            o = self.job_options(label)
            q = r.choice(self.queues)
            try:
                if scheduled and r.random() < 0.6:
                    if r.random() < 0.5:
                        when = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(
                            seconds=r.randint(1, 3600))
                        job = q.enqueue_at(when, f, *args, **kwargs, **o)
                    else:
                        job = q.enqueue_in(datetime.timedelta(seconds=pick(r, [(2, 0), (3, 1), (1, 2)])),
                                           f, *args, **kwargs, **o)
                elif r.random() < 0.15 and "depends_on" not in o:
                    batch.append((q, f, args, kwargs, o))
                    continue
                elif r.random() < 0.2:
                    o["timeout"] = o.pop("job_timeout", None)
                    job = q.enqueue_call(f, args=args, kwargs=kwargs, **o)
                else:
                    job = q.enqueue(f, *args, **kwargs, **o)
            except (TypeError, ValueError, redis.exceptions.RedisError) as e:
                self.note_error("enqueue", e)
                continue
            self.jobs.append(job)
            if job.get_status(refresh=False) == "queued":
                now += 1
        if batch:
            q = batch[0][0]
            datas = [Queue.prepare_data(f, args=args, kwargs=kwargs, timeout=o.get("job_timeout"),
                                        result_ttl=o.get("result_ttl"), ttl=o.get("ttl"),
                                        failure_ttl=o.get("failure_ttl"), description=o.get("description"),
                                        job_id=o.get("job_id"), at_front=o.get("at_front", False),
                                        meta=o.get("meta"), retry=o.get("retry"))
                     for _, f, args, kwargs, o in batch]
            try:
                if r.random() < 0.5:
                    with self.conn.pipeline() as pipe:
                        jobs = q.enqueue_many(datas, pipeline=pipe)
                        pipe.execute()
                else:
                    jobs = q.enqueue_many(datas)
                self.jobs += jobs
                now += len(jobs)
            except (TypeError, ValueError, redis.exceptions.RedisError) as e:
                self.note_error("enqueue_many", e)
        return now

    # -- workers ----------------------------------------------------------------
    def make_worker(self, kind=None, **kw):
        r = self.r
        kind = kind or (self.family if r.random() < 0.8 else r.choice(sorted(WORKER_KINDS)))
        if kind == "heroku" and self.kind not in ("signals",) and r.random() < 0.5:
            kind = "fork"
        self.nworkers += 1
        opts = {"name": pick(r, [(3, "w%d-%d" % (self.idx, self.nworkers)),
                                 (1, "%s.%d" % (r.choice(["web-1", "worker-a", "ip-10-0-3-17"]),
                                                1000 * self.idx + self.nworkers))]),
                "connection": self.conn, "serializer": self.serializer}
        if r.random() < 0.3:
            opts["default_result_ttl"] = r.choice([0, 60, 3600, -1])
        if kind in FORKING and r.random() < 0.4:
            opts["job_monitoring_interval"] = 1
        if r.random() < 0.15:
            opts["log_job_description"] = False
        if r.random() < 0.25:
            hs = [report_to_tracker, swallow_known]
            r.shuffle(hs)
            opts["exception_handlers"] = hs[:r.randint(1, 2)]
            if r.random() < 0.3:
                opts["disable_default_exception_handler"] = True
        opts.update(kw)
        w = WORKER_KINDS[kind](self.queues, **opts)
        if r.random() < 0.1:
            w.log_result_lifespan = False
        if kind == "heroku":
            w.imminent_shutdown_delay = r.choice([0, 1])
        w.bench_kind = kind
        return w

    def quiet_signals(self):
        # a worker's handlers stay installed after work() returns: a late
        # signal must not raise its StopRequested in the generator
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, lambda *a: None)

    def timer(self, w, delay, fn, *args):
        """Runs fn(*args) in a thread delay seconds after the worker w has
        installed its signal handlers, unless cancel_timers comes first.
        Counting from then: work() subscribes to its command channel and may
        start the scheduler before it installs them, and a SIGTERM, or the
        SIGINT a shutdown command makes, would meanwhile reach the case's
        own handlers instead of the worker's."""
        stop = self.stop_timers

        def run():
            deadline = time.time() + 10
            while getattr(signal.getsignal(signal.SIGTERM), "__self__", None) is not w:
                if stop.wait(0.01) or time.time() > deadline:
                    return
            if not stop.wait(delay):
                self.guarded(fn, *args)

        t = threading.Thread(target=run, daemon=True)
        t.start()
        self.timers.append(t)

    def guarded(self, fn, *args):
        try:
            fn(*args)
        except Exception as e:  # the worker may be gone already
            self.note_error("timer", e)

    def cancel_timers(self):
        self.stop_timers.set()
        for t in self.timers:
            t.join(10)
        self.timers = []
        self.stop_timers = threading.Event()

    def work(self, w, burst=True, **kw):
        level = self.levels[1]
        self.stats["workers"][w.bench_kind] = self.stats["workers"].get(w.bench_kind, 0) + 1
        WORKER_PID[0] = os.getpid()
        try:
            w.work(burst=burst, logging_level=level, **kw)
        except (SystemExit, Exception) as e:  # cold shutdowns, Redis gone during teardown
            self.note_error("work", e)
        finally:
            self.quiet_signals()

    # -- phases ---------------------------------------------------------------
    def phase_plain(self):
        r = self.r
        w = self.make_worker()
        forked = w.bench_kind in FORKING
        self.enqueue_batch(self.n(1, 3), forked)
        if r.random() < 0.15:
            self.enqueue_batch(1, forked, scheduled=True)
            self.work(w, burst=True, with_scheduler=True)
        else:
            self.work(w, burst=True, max_jobs=r.choice([None, None, None, 2]))

    def phase_loop(self):
        """A worker that waits for jobs (work() without burst), ended by
        max_jobs, a shutdown command or SIGTERM."""
        r = self.r
        w = self.make_worker(default_worker_ttl=16)  # 1 s blocking pops
        forked = w.bench_kind in FORKING
        n = self.enqueue_batch(self.n(1, 5), forked)
        end = pick(r, [(3, "max_jobs"), (3, "command"), (2, "sigterm"), (1, "late-jobs")])
        kw = {}
        if end == "max_jobs":
            kw["max_jobs"] = max(1, n)
            self.timer(w, 6, send_shutdown_command, self.conn, w.name)
        elif end == "late-jobs":
            # a producer enqueues while the worker waits; the worker stops after them
            self.timer(w, r.uniform(0.3, 1.4), self.enqueue_batch, self.n(1, 3), forked)
            self.timer(w, r.uniform(2.2, 3.0), send_shutdown_command, self.conn, w.name)
        elif end == "command":
            self.timer(w, r.uniform(0.3, 1.6), send_shutdown_command, self.conn, w.name)
        else:
            self.timer(w, r.uniform(0.3, 1.6), os.kill, os.getpid(), signal.SIGTERM)
        self.timer(w, 8, os.kill, os.getpid(), signal.SIGTERM)  # should nothing else stop it
        self.notes.append("end:" + end)
        self.work(w, burst=False, **kw)
        self.cancel_timers()

    def phase_sched(self):
        r = self.r
        w = self.make_worker(default_worker_ttl=16)
        forked = w.bench_kind in FORKING
        self.enqueue_batch(self.n(0, 2), forked)
        self.enqueue_batch(self.n(1, 4), forked, scheduled=True)
        if r.random() < 0.45:
            self.notes.append("sched:burst")
            self.work(w, burst=True, with_scheduler=True)
            if r.random() < 0.5:
                time.sleep(1.05)  # the jobs due in a second, and retry intervals
                w2 = self.make_worker(kind=w.bench_kind)
                self.work(w2, burst=True, with_scheduler=True)
        else:
            self.notes.append("sched:process")
            self.timer(w, r.uniform(2.2, 3.2), send_shutdown_command, self.conn, w.name)
            self.timer(w, 9, os.kill, os.getpid(), signal.SIGTERM)
            self.work(w, burst=False, with_scheduler=True)
            self.cancel_timers()

    def phase_suspend(self):
        r = self.r
        w = self.make_worker(default_worker_ttl=16)
        forked = w.bench_kind in FORKING
        self.enqueue_batch(self.n(1, 4), forked)
        how = pick(r, [(2, "burst"), (2, "resume"), (1, "ttl")])
        self.notes.append("suspend:" + how)
        if how == "burst":
            suspend(self.conn)
            self.work(w, burst=True)
            resume(self.conn)
            self.work(self.make_worker(kind=w.bench_kind), burst=True)
        else:
            if how == "ttl":
                suspend(self.conn, ttl=1)
            else:
                suspend(self.conn)
                self.timer(w, r.uniform(0.4, 1.2), resume, self.conn)
            self.timer(w, r.uniform(2.1, 2.8), send_shutdown_command, self.conn, w.name)
            self.timer(w, 8, os.kill, os.getpid(), signal.SIGTERM)
            self.work(w, burst=False)
            self.cancel_timers()
            resume(self.conn)

    def phase_commands(self):
        """Jobs that send their own worker commands, and commands for jobs
        no worker runs."""
        r = self.r
        w = self.make_worker()
        forked = w.bench_kind in FORKING
        self.enqueue_batch(self.n(0, 2), forked)
        q = r.choice(self.queues)
        cmds = [(2, (kill_my_horse, 2.0 if forked else 0.3)), (2, (shutdown_worker, 0.5)), (2, (stop_job, None))]
        if forked:
            cmds.append((3, (stop_me, 2.0)))
        f, arg = pick(r, cmds)
        try:
            if f is stop_job:  # a stop-job command for a job the worker ran before
                earlier = q.enqueue(add, r.randint(0, 9), r.randint(0, 9), job_id=self.job_id())
                self.jobs.append(earlier)
                arg = earlier.id
            self.jobs.append(q.enqueue(f, arg, job_id=self.job_id()))
        except redis.exceptions.RedisError as e:
            self.note_error("enqueue", e)
        self.enqueue_batch(self.n(0, 2), forked)
        self.work(w, burst=True)

    def phase_signals(self):
        r = self.r
        kind = pick(r, [(2, self.family), (1, "heroku"), (1, "fork"), (1, "simple")])
        w = self.make_worker(kind=kind)
        forked = w.bench_kind in FORKING
        self.enqueue_batch(self.n(0, 2), forked)
        sig = r.choice([signal.SIGINT, signal.SIGTERM])
        times = pick(r, [(3, 1), (1, 2)])  # twice: a cold shutdown
        try:
            self.jobs.append(r.choice(self.queues).enqueue(signal_worker, int(sig), times, 2.0,
                                                           job_id=self.job_id()))
        except redis.exceptions.RedisError as e:
            self.note_error("enqueue", e)
        self.enqueue_batch(self.n(0, 2), forked)
        self.notes.append("signal:%s x%d" % (signal.Signals(sig).name, times))
        self.work(w, burst=True)

    def phase_dying(self):
        """A forking worker, in a process of its own, killed by its horse."""
        r = self.r
        self.enqueue_batch(self.n(0, 2), True)
        also_self = r.random() < 0.6
        q = r.choice(self.queues)
        try:
            victim = q.enqueue(kill_worker, also_self, job_id=self.job_id(),
                               retry=Retry(max=1) if r.random() < 0.3 else None)
            self.jobs.append(victim)
        except redis.exceptions.RedisError as e:
            self.note_error("enqueue", e)
            return
        self.enqueue_batch(self.n(0, 2), True)
        w = self.make_worker(kind=pick(r, [(3, "fork"), (1, "roundrobin")]))
        dead_name = w.name
        pid = os.fork()
        if pid == 0:
            try:
                EXPENDABLE[0] = True
                self.conn.connection_pool.reset()
                self.work(w, burst=True)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        self.conn.connection_pool.reset()
        self.notes.append("dying:%s" % ("job-lost" if also_self else "job-done"))
        # later: the abandoned job's registry entry expires; a second worker
        # cleans the registries (its cleaning lock long gone) and runs the rest
        if r.random() < 0.6:
            for qq in self.queues:
                StartedJobRegistry(queue=qq).cleanup(time.time() + 3600)
        for qq in self.queues:
            self.conn.delete(qq.registry_cleaning_key)
        if r.random() < 0.4:
            self.conn.persist(Worker.redis_worker_namespace_prefix + dead_name)
            self.conn.srem(Worker.redis_workers_keys, Worker.redis_worker_namespace_prefix + dead_name)
            self.conn.sadd(Worker.redis_workers_keys, Worker.redis_worker_namespace_prefix + dead_name)
            try:
                cleanup_ghosts(self.conn)
            except redis.exceptions.RedisError as e:
                self.note_error("ghosts", e)
        if r.random() < 0.7:
            self.op_requeue_failed()
        self.work(self.make_worker(kind=w.bench_kind), burst=True)

    def phase_outage(self):
        """The case's private Redis is killed while a worker waits on it,
        and restarted."""
        r = self.r
        w = self.make_worker(kind=pick(r, [(2, "simple"), (1, "fork")]), default_worker_ttl=16)
        forked = w.bench_kind in FORKING
        w.exponential_backoff_factor = r.choice([1.5, 2.0])
        self.enqueue_batch(self.n(1, 3), forked)
        busy = r.random() < 0.4  # killed while a job runs, else while the worker waits
        if busy:
            self.jobs.append(r.choice(self.queues).enqueue(slow, 1.0, job_id=self.job_id()))
        down = r.uniform(0.6, 2.4)
        sched = r.random() < 0.4
        if sched:
            self.enqueue_batch(1, forked, scheduled=True)
        self.notes.append("outage:%s%s" % ("busy" if busy else "idle", "+scheduler" if sched else ""))

        def outage():
            deadline = time.time() + 5
            while time.time() < deadline:
                try:
                    if busy:
                        if self.conn.hget(w.key, "current_job"):
                            time.sleep(0.3)
                            break
                    elif self.conn.hget(w.key, "state") == b"idle" and not any(q.count for q in self.queues):
                        time.sleep(0.1)
                        break
                except redis.exceptions.RedisError:
                    break
                time.sleep(0.05)
            self.private.kill()
            time.sleep(down)
            self.private.start(self.private.port)
            if r.random() < 0.6:  # a producer that was waiting too
                self.enqueue_batch(self.n(1, 2), forked)

        self.timer(w, 0.05, outage)
        self.timer(w, down + r.uniform(4.0, 5.0), os.kill, os.getpid(), signal.SIGTERM)
        self.timer(w, down + 8, os.kill, os.getpid(), signal.SIGTERM)  # a cold shutdown, should it still run
        self.notes.append("down:%.1fs" % down)
        self.work(w, burst=False, with_scheduler=sched)
        self.cancel_timers()

    def phase_stall(self):
        """The private Redis stops answering (SIGSTOP) in the middle of a
        job; the connection has a socket timeout."""
        r = self.r
        w = self.make_worker()
        self.enqueue_batch(self.n(0, 2), False)
        try:
            self.jobs.append(r.choice(self.queues).enqueue(freeze_redis, self.private.proc.pid,
                                                           job_id=self.job_id()))
        except redis.exceptions.RedisError as e:
            self.note_error("enqueue", e)
        self.enqueue_batch(self.n(0, 2), False)
        proc = self.private.proc
        self.timer(w, r.uniform(1.8, 2.6), proc.send_signal, signal.SIGCONT)
        self.work(w, burst=True)
        self.cancel_timers()
        try:
            proc.send_signal(signal.SIGCONT)
        except OSError:
            pass

    def phase_socktimeout(self):
        """A socket timeout shorter than the worker's blocking pop."""
        r = self.r
        w = self.make_worker(default_worker_ttl=r.choice([16, 17]))
        self.enqueue_batch(self.n(1, 4), w.bench_kind in FORKING)
        self.timer(w, 6, os.kill, os.getpid(), signal.SIGTERM)
        self.work(w, burst=False)
        self.cancel_timers()

    # -- between phases ---------------------------------------------------------
    def op_requeue_failed(self):
        r = self.r
        for q in self.queues:
            reg = FailedJobRegistry(queue=q)
            ids = reg.get_job_ids()
            for jid in ids[:r.randint(1, 4)]:
                how = r.random()
                try:
                    if how < 0.5:
                        reg.requeue(jid, at_front=r.random() < 0.3)
                    elif how < 0.8:
                        requeue_job(jid, connection=self.conn, serializer=self.serializer)
                    else:
                        Job.fetch(jid, connection=self.conn, serializer=self.serializer).requeue()
                except Exception as e:  # a job whose data expired, an invalid operation
                    self.note_error("requeue", e)

    def maintenance(self):
        r = self.r
        ops = r.sample(["inspect", "requeue", "cancel", "delete", "remove", "clean", "stopcmd", "empty",
                        "workers"], r.randint(1, 3))
        for op in ops:
            q = r.choice(self.queues)
            try:
                if op == "inspect":
                    how = r.random()
                    if how < 0.4:
                        q.job_ids
                    elif how < 0.7:
                        q.get_jobs(offset=r.randint(0, 2), length=r.choice([-1, 2, 5]))
                    else:
                        [j.get_status() for j in q.jobs]
                elif op == "requeue":
                    self.op_requeue_failed()
                elif op == "cancel" and self.jobs:
                    j = r.choice(self.jobs)
                    if r.random() < 0.5:
                        j.cancel(enqueue_dependents=r.random() < 0.5)
                    else:
                        cancel_job(j.id, connection=self.conn, serializer=self.serializer)
                elif op == "delete" and self.jobs:
                    r.choice(self.jobs).delete(delete_dependents=r.random() < 0.3)
                elif op == "remove":
                    ids = q.get_job_ids(length=3)
                    if ids:
                        q.remove(r.choice(ids))
                elif op == "clean":
                    clean_registries(q)
                    self.conn.delete(q.registry_cleaning_key)
                elif op == "stopcmd" and self.jobs:
                    send_stop_job_command(self.conn, r.choice(self.jobs).id, serializer=self.serializer)
                elif op == "empty" and r.random() < 0.4:
                    q.empty()
                elif op == "workers":
                    Worker.all(connection=self.conn)
                    Worker.count(queue=q)
            except Exception as e:  # jobs deleted or expired meanwhile, invalid operations
                self.note_error(op, e)
        self.notes.append("ops:" + ",".join(ops))

    # -- a lifetime -------------------------------------------------------------
    def run(self):
        r = self.r
        self.plan()
        if self.kind in ("outage", "stall"):
            self.private = RedisServer(self.top)
            self.private.start()
            kw = {"socket_timeout": 1.0} if self.kind == "stall" else {}
            self.connect(self.private.port, 0, **kw)
        elif self.kind == "socktimeout":
            self.connect(self.port, self.db(), socket_timeout=0.5)
        else:
            self.connect(self.port, self.db())
        self.conn.flushdb()
        self.apply_levels()
        try:
            phases = [self.kind]
            if self.kind not in ("outage", "stall", "socktimeout"):
                more = pick(r, [(5, 0), (4, 1), (2, 2), (1, 3)])
                for _ in range(more):
                    phases.append(pick(r, [(8, "plain"), (2, "loop"), (1, "sched"), (1, "suspend"),
                                           (1, "commands"), (1, "signals")]))
                if self.kind != "plain" and r.random() < 0.3:
                    phases.insert(0, "plain")
            for k, ph in enumerate(phases):
                if k and self.logged() >= BUDGET:
                    self.notes.append("budget")
                    break
                if k and r.random() < 0.6:
                    self.maintenance()
                self.notes.append(ph)
                self.stats["phases"][ph] = self.stats["phases"].get(ph, 0) + 1
                getattr(self, "phase_" + ph)()
                self.cancel_timers()
        finally:
            self.cancel_timers()
            if self.private is not None:
                self.private.stop()

    def db(self):
        return 1 + self.idx % (DATABASES - 1)


# ---------------------------------------------------------------------------
# case processes
# ---------------------------------------------------------------------------
def run_case_child(i, seed, port, top, rows_path, stats_path):
    """The body of a case's process: runs the case and ends by os._exit."""
    code = 0
    try:
        os.setpgid(0, 0)  # the main process ends a stuck case with its whole group
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # jobs and rq's fallbacks print nothing to our stdout
        if not os.environ.get("GEN_DEBUG"):
            os.dup2(devnull, 2)
        cid = "rq-%05d" % i
        r = random.Random("%d-%d" % (seed, i))
        random.seed("%d-%d-global" % (seed, i))
        stats = {"errors": {}, "kinds": {}, "phases": {}, "workers": {}}
        fd = os.open(rows_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        LOG._lock2 = threading.RLock()  # a signal handler may log while a row is written
        LOG._rows = RowFile(fd)
        LOG.case_id = cid
        case = Case(i, cid, r, port, top, rows_path, stats)
        case.quiet_signals()  # a stray signal ends nothing but a worker's loop
        t = time.time()
        try:
            case.run()
        except BaseException as e:  # a broken case must not stop the generation
            stats["errors"]["case:" + type(e).__name__] = 1
            if os.environ.get("GEN_DEBUG"):
                import traceback
                traceback.print_exc()
        LOG.case_id = None
        if os.environ.get("GEN_DEBUG"):
            sys.stderr.write("%s %s %d events %.2fs %s\n" % (cid, " ".join(case.notes), case.logged(),
                                                              time.time() - t, stats["errors"] or ""))
        with open(stats_path + ".tmp", "w") as fh:
            json.dump(stats, fh)
        os.rename(stats_path + ".tmp", stats_path)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=3,
                    help="cases run side by side, each in a process (they mostly wait)")
    a = ap.parse_args()
    global LOG
    if not shutil.which("redis-server"):
        sys.exit("gen_rq: redis-server not found (apt-get install redis-server)")
    warnings.simplefilter("ignore")
    threading.excepthook = lambda args: None  # pub/sub threads dying with a killed Redis
    rq.utils.colorizer.notty = False  # colours on, as for a worker in a terminal (see the docstring)
    top = tempfile.mkdtemp(prefix="gen_rq_")
    server = RedisServer(top, databases=DATABASES)
    # the capture the case processes inherit; it records nothing outside a case
    LOG = _capture.EventLog(rq, os.devnull, logger_names=CAPTURED)
    LOG.addFilter(OutsideCounter(LOG))
    # rq's worker prints through handlers of its own only when its logger
    # has none up the tree; nothing goes on to a root handler either
    logging.getLogger("rq").propagate = False
    logging.getLogger("tasks").propagate = False
    # the main process only writes: its capture listens to no logger
    out = _capture.EventLog(rq, a.out, logger_names=["gen_rq.unused"])
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    todo = [i for i in range(a.cases) if not only or str(i) in only.split(",")]
    totals = {"errors": {}, "kinds": {}, "phases": {}, "workers": {}, "outside": 0, "lost": 0}
    running = {}  # pid -> (i, start, rows file, stats file)
    died = []  # cases whose process ended before it wrote its stats (their rows are kept)
    try:
        port = server.start()
        done = {}
        nxt = 0
        write_at = 0
        while write_at < len(todo):
            while nxt < len(todo) and len(running) < max(1, a.jobs):
                i = todo[nxt]
                nxt += 1
                rows_path = os.path.join(top, "rows-%d.jsonl" % i)
                stats_path = os.path.join(top, "stats-%d.json" % i)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    run_case_child(i, a.seed, port, top, rows_path, stats_path)
                running[pid] = (i, time.time(), rows_path, stats_path)
            finished = []
            for pid, (i, start, rows_path, stats_path) in running.items():
                try:
                    wpid, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    wpid, status = pid, 0
                if wpid == 0 and time.time() - start > CASE_TIMEOUT:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                    _, status = os.waitpid(pid, 0)
                    totals["lost"] += 1
                    wpid = pid
                if wpid:
                    finished.append(pid)
                    rows, outside = read_rows(rows_path)
                    stats = None
                    try:
                        with open(stats_path) as fh:
                            stats = json.load(fh)
                    except (OSError, ValueError):
                        stats = {"errors": {"case process died": 1}}
                        died.append("rq-%05d (%s)" % (i, "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status)
                                                      else "exit %d" % os.WEXITSTATUS(status)))
                    for p in (rows_path, stats_path):
                        try:
                            os.remove(p)
                        except OSError:
                            pass
                    done[i] = ("rq-%05d" % i, rows, outside, stats)
            for pid in finished:
                del running[pid]
            while write_at < len(todo) and todo[write_at] in done:
                cid, rows, outside, stats = done.pop(todo[write_at])
                write_at += 1
                out.write_case(cid, rows)
                totals["outside"] += outside
                for k in ("errors", "kinds", "phases", "workers"):
                    for kk, v in stats.get(k, {}).items():
                        totals[k][kk] = totals[k].get(kk, 0) + v
            if not finished:
                time.sleep(0.02)
        out.finish()
        sys.stderr.write("case kinds %s\nphases %s\nworkers %s\nexceptions %s\n"
                         % (dict(sorted(totals["kinds"].items())), dict(sorted(totals["phases"].items())),
                            dict(sorted(totals["workers"].items())), dict(sorted(totals["errors"].items()))))
        if died:
            sys.stderr.write("case processes that died: %s\n" % " ".join(died))
        sys.stderr.write("%s; dropped: %d records emitted outside rq; %d cases lost; %.0fs\n"
                         % (out.summary(), totals["outside"], totals["lost"], time.time() - t0))
        if out.cases_written == 0:
            sys.exit("gen_rq: no case logged anything (run with GEN_DEBUG=1 to see the cases)")
    finally:
        for pid in running:  # interrupted: the cases still running go too
            try:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        server.stop()
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
