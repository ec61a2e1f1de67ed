#!/usr/bin/python3
"""Event log of Celery (Debian python3-celery 5.2.6, with python3-kombu), one
in-process worker consuming from kombu's in-memory transport (``memory://``)
with the in-memory cache result backend (``cache+memory://``): no network,
no broker server.

    /usr/bin/python3 gen_celery.py --out .deps/logs/celery.csv.gz [--cases 2000] [--seed 1]
    /usr/bin/python3 gen_celery.py --repo      # prints the directory to index

A case is one job / workflow submitted by the "application" (main thread) and
processed by the worker: a single task with random arguments and options
(countdown/eta, expires, ignore_result, shadow names, priorities, custom ids,
headers, time limits -- which the solo/threads pools do not enforce) that
succeeds (small or large results), raises (plain errors or declared
``throws``), retries then succeeds, exceeds its retries (with or without the
original exception), autoretries, raises ``Reject``/``Ignore``, calls ``get()``
inside a task, is revoked before it runs, expires, or has an ETA that cannot be
converted; a chain (optionally with a failing link and an errback), a group, a
chord (the cache backend joins natively; failing members and callbacks), a
task that fans out subtasks or replaces itself, linked callbacks/errbacks;
remote-control traffic mixed with jobs (rate limits that make the worker hold
tasks in its timer, time-limit changes, revokes incl. terminate, heartbeat,
events on/off, ``hello`` from a peer, add/cancel consumer of an extra queue, a
control message without a method); malformed messages (no task header,
undecodable body, unregistered task, invalid body); a short-lived embedded
``celery beat`` (sub-second schedule, fresh / corrupted / outdated schedule
file, unregistered and unserializable entries); a broker connection loss (an
injected ``ConnectionError`` in the memory channel) that makes the consumer
restart; and, in a few cases, a worker restart (``stop()`` or the ``shutdown``
control command) with a new configuration (solo or threads pool, concurrency,
prefetch multiplier, acks_late, track_started, task events) before the job.

Attribution.  One worker runs for the whole generation (restarted only by
the "restart" cases), and cases run one after another: the generator sets the
current case, submits its work and waits until the case is quiescent (every
message it published was executed, revoked, rejected or reported unknown --
counted with Celery's signals -- and the worker holds no active/reserved
request), then ends the case.  Every task id is bound to the case that
published it (``before_task_publish``: the current case, or the case owning
the parent/root task for messages published from inside the worker), so a
record that names a task id (a UUID) of another case -- a straggler of a
case that timed out -- is dropped and counted, as are records emitted while
no case is open (worker start/stop outside "restart" cases).  Only records
whose source lies inside the ``celery`` package are kept (kombu's own records
are dropped; kombu logs ``reject_log_error`` etc. from its own files).

Logging idioms captured: module-level bound methods (``info = logger.info``,
``debug, info, warn, error = ...``) and formats in module constants
(``LOG_SUCCESS``, ``UNKNOWN_TASK_ERROR``, ...), the one-line wrapper
``celery.app.trace.info(fmt, context)`` and ``Blueprint._debug`` (marked
``code.wrapped=1``: the emitter is their caller).
"""
import argparse
import logging
import os
import random
import re
import shelve
import shutil
import sys
import tempfile
import threading
import time
import uuid as _uuid
from datetime import timedelta

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# celery.worker.request computes ``_does_debug`` at import time: the celery
# logger must be at DEBUG before the worker modules are imported.
logging.getLogger("celery").setLevel(logging.DEBUG)
import _capture  # noqa: E402

import celery  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(celery.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

import kombu  # noqa: E402
from kombu.exceptions import ConnectionError as KombuConnectionError  # noqa: E402
from kombu.transport import memory as kmemory  # noqa: E402
from celery import Celery, beat, chain, chord, group, signals  # noqa: E402
from celery.exceptions import Ignore, Reject  # noqa: E402
from celery.worker import state as wstate  # noqa: E402

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
WRAPPERS = {("celery/app/trace.py", "info"), ("celery/bootsteps.py", "_debug")}

# --------------------------------------------------------------------------- app

app = Celery("bench", broker="memory://", backend="cache+memory://", set_as_current=True)
app.conf.update(
    broker_transport_options={"polling_interval": 0.004},
    worker_hijack_root_logger=False,
    worker_redirect_stdouts=False,
    task_default_retry_delay=0.02,
    result_chord_join_timeout=2.0,
    broker_connection_retry=True,
    worker_cancel_long_running_tasks_on_connection_loss=True,
    enable_utc=True,
)
app.set_default()


class PermanentError(Exception):
    pass


class QuotaExceeded(Exception):
    pass


@app.task(name="jobs.add")
def add(x, y):
    return x + y


@app.task(name="jobs.mul")
def mul(x, y):
    return x * y


@app.task(name="jobs.xsum")
def xsum(values):
    return sum(values)


@app.task(name="jobs.echo")
def echo(payload, size=0):
    if size:
        return {"payload": payload, "blob": "z" * size, "items": list(range(size // 50))}
    return payload


@app.task(name="jobs.fail")
def fail(kind="value", msg="boom"):
    exc = {"value": ValueError, "key": KeyError, "type": TypeError, "zero": ZeroDivisionError,
           "perm": PermanentError, "runtime": RuntimeError, "os": OSError}[kind]
    raise exc(msg)


@app.task(name="jobs.validate", throws=(QuotaExceeded, KeyError))
def validate(kind, n):
    if kind == "quota":
        raise QuotaExceeded("quota exceeded for tenant %d" % n)
    if kind == "key":
        raise KeyError("field_%d" % n)
    if kind == "other":
        raise ValueError("bad value %d" % n)
    return {"ok": n}


@app.task(name="jobs.flaky", bind=True, max_retries=3)
def flaky(self, fails, countdown=0.01, use_exc=True, eta=False, max_retries=None):
    if self.request.retries < fails:
        if max_retries is not None:
            raise self.retry(exc=ConnectionResetError("upstream reset") if use_exc else None,
                             countdown=countdown, max_retries=max_retries)
        exc = ConnectionResetError("upstream reset (attempt %d)" % self.request.retries) if use_exc else None
        if eta:
            import datetime as _d
            raise self.retry(exc=exc, eta=_d.datetime.now(_d.timezone.utc) + _d.timedelta(seconds=countdown))
        raise self.retry(exc=exc, countdown=countdown)
    return "ok after %d retries" % self.request.retries


@app.task(name="jobs.autoretry", bind=True, autoretry_for=(IOError,),
          retry_kwargs={"max_retries": 2, "countdown": 0.01})
def autoretry(self, fails):
    if self.request.retries < fails:
        raise IOError("disk busy")
    return self.request.retries


@app.task(name="jobs.reject", bind=True)
def reject(self, requeue=False, reason="bad input"):
    raise Reject(reason, requeue=requeue)


@app.task(name="jobs.ignore", bind=True)
def ignore(self, n):
    if n % 2:
        self.update_state(state="PROGRESS", meta={"done": n})
    raise Ignore()


@app.task(name="jobs.progress", bind=True, track_started=True)
def progress(self, steps):
    for i in range(steps):
        self.update_state(state="PROGRESS", meta={"step": i, "of": steps})
    return steps


@app.task(name="jobs.fanout", bind=True)
def fanout(self, n, kind="add"):
    ids = []
    for i in range(n):
        if kind == "add":
            ids.append(add.delay(i, i).id)
        elif kind == "fail":
            ids.append(fail.delay("value", "child %d" % i).id)
        else:
            ids.append(echo.apply_async(("child-%d" % i,), ignore_result=True).id)
    return ids


@app.task(name="jobs.waiter", bind=True)
def waiter(self, x):
    # calling get() inside a task is refused by Celery (RuntimeError)
    return add.delay(x, 1).get(timeout=1)


@app.task(name="jobs.replacer", bind=True)
def replacer(self, n):
    if n <= 0:
        return "done"
    raise self.replace(add.s(n, n) if n % 2 else chain(add.s(n, 1), mul.s(2)))


@app.task(name="jobs.noresult", ignore_result=True)
def noresult(x):
    return x * 3


@app.task(name="jobs.late", acks_late=True, reject_on_worker_lost=True)
def late(x, fail_it=False):
    if fail_it:
        raise RuntimeError("late failure %s" % x)
    return x


@app.task(name="jobs.slow")
def slow(delay):
    time.sleep(delay)
    return delay


@app.task(name="jobs.on_error")
def on_error(request, exc, traceback):
    return "handled %s" % type(exc).__name__


@app.task(name="jobs.bad_errback")
def bad_errback(*args):
    raise LookupError("errback failed too")


# ------------------------------------------------------------------ capture

RETIRED = set()  # worker threads of stopped workers


class CaseTracker:
    """Binds task ids to cases and counts outstanding deliveries per case."""

    def __init__(self):
        self.lock = threading.Lock()
        self.owner = {}
        self.pending = {}
        self.current = None

    def bind(self, headers):
        """before_task_publish: bind the task id to a case (before the worker can log it)."""
        tid = headers.get("id")
        if not tid:
            return
        with self.lock:
            cid = (self.owner.get(tid) or self.owner.get(headers.get("parent_id"))
                   or self.owner.get(headers.get("root_id")) or self.current)
            if cid is not None:
                self.owner[tid] = cid

    def published(self, headers):
        """after_task_publish: one more delivery to wait for (a failed publish never gets here)."""
        with self.lock:
            cid = self.owner.get(headers.get("id"))
            if cid is not None:
                self.pending[cid] = self.pending.get(cid, 0) + 1

    def done(self, tid):
        with self.lock:
            cid = self.owner.get(tid)
            if cid is not None:
                self.pending[cid] = self.pending.get(cid, 0) - 1

    def outstanding(self, cid):
        with self.lock:
            return self.pending.get(cid, 0)


TRACK = CaseTracker()


@signals.before_task_publish.connect
def _on_before_publish(sender=None, headers=None, **kw):
    TRACK.bind(headers or {})


@signals.after_task_publish.connect
def _on_after_publish(sender=None, headers=None, **kw):
    TRACK.published(headers or {})


@signals.task_postrun.connect
def _on_postrun(sender=None, task_id=None, **kw):
    TRACK.done(task_id)


@signals.task_revoked.connect
def _on_revoked(sender=None, request=None, **kw):
    if request is not None:
        TRACK.done(request.id)


@signals.task_unknown.connect
def _on_unknown(sender=None, id=None, **kw):
    TRACK.done(id)


@signals.task_rejected.connect
def _on_rejected(sender=None, message=None, **kw):
    try:
        TRACK.done(message.headers.get("id"))
    except Exception:
        pass


class CeleryLog(_capture.EventLog):
    """EventLog that refuses records of other cases (by task id) or of no case."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.outside = 0     # records emitted while no case was open
        self.foreign = 0     # records naming a task id of another case

    def emit(self, record):
        try:
            if self._rel(record.pathname)[1] is None:
                return
            cid = self.case_id
            if cid is None or threading.current_thread() in RETIRED:
                self.outside += 1
                return
            msg = record.getMessage()
            if "-" in msg:
                for tid in UUID_RE.findall(msg[:2000]):
                    own = TRACK.owner.get(tid)
                    if own is not None and own != cid:
                        self.foreign += 1
                        return
        except Exception:
            self.handleError(record)
            return
        super().emit(record)


# ------------------------------------------------------------------ worker

WORKER_CFGS = [
    dict(pool="solo", concurrency=1),
    dict(pool="threads", concurrency=2),
    dict(pool="threads", concurrency=4),
]


class WorkerHost:
    def __init__(self):
        self.w = None
        self.t = None
        self.n = 0
        self.ready = threading.Event()

    def _on_ready(self, consumer):
        self.ready.set()

    def start(self, rng):
        cfg = dict(rng.choice(WORKER_CFGS))
        app.conf.update(
            worker_prefetch_multiplier=rng.choice([4, 8]),
            task_acks_late=rng.random() < 0.25,
            task_track_started=rng.random() < 0.3,
            worker_send_task_events=rng.random() < 0.3,
        )
        self.n += 1
        self.ready.clear()
        self.w = app.WorkController(
            hostname="w%d@bench" % self.n, pool_cls=cfg["pool"], concurrency=cfg["concurrency"],
            # no heartbeats: the Heart step publishes from the timer thread on the consumer's
            # in-memory connection, and the solo pool then stalls for seconds on every ETA
            without_mingle=True, without_gossip=True, without_heartbeat=True,
            task_events=app.conf.worker_send_task_events, ready_callback=self._on_ready)
        self.t = threading.Thread(target=self.w.start, name="worker-%d" % self.n, daemon=True)
        self.t.start()
        if not self.ready.wait(10):
            raise RuntimeError("worker did not start")
        if os.environ.get("GEN_PROFILE"):
            sys.stderr.write("worker %s %s prefetch=%s acks_late=%s track=%s events=%s\n" % (
                self.w.hostname, cfg, app.conf.worker_prefetch_multiplier, app.conf.task_acks_late, app.conf.task_track_started,
                app.conf.worker_send_task_events))
        return cfg

    def stop(self):
        """Warm shutdown from the application side.  The worker thread then still
        sits up to 2 s in the synchronous loop's drain_events(timeout=2.0): it is
        not waited for; its last records are dropped (RETIRED)."""
        if self.w is None:
            return
        RETIRED.add(self.t)
        self.w.stop(in_sighandler=False)
        self.t.join(0.05)
        self.w = self.t = None

    def remote_shutdown(self):
        """The ``shutdown`` remote-control command: the worker stops itself."""
        app.control.broadcast("shutdown", destination=[self.w.hostname])
        self.t.join(5)
        if self.t.is_alive():
            self.stop()
        self.w = self.t = None


# ---------------------------------------------------------- fault injection

FAULT = {"conn": 0}
_orig_get = kmemory.Channel._get


def _faulty_get(self, queue, timeout=None):
    if FAULT["conn"] > 0:
        FAULT["conn"] -= 1
        raise KombuConnectionError("injected: connection to broker lost")
    return _orig_get(self, queue, timeout)


kmemory.Channel._get = _faulty_get


# ------------------------------------------------------------------ cases

class Gen:
    def __init__(self, host, log):
        self.host = host
        self.log = log
        self.rng = None
        self.timeouts = 0
        self.tmp = tempfile.mkdtemp(prefix="gen_celery_")

    # -- helpers --------------------------------------------------------------
    def opts(self):
        r = self.rng
        o = {}
        k = r.random()
        if k < 0.12:
            o["countdown"] = r.choice([0.01, 0.03, 0.08])
        elif k < 0.18:
            import datetime as _d
            o["eta"] = _d.datetime.now(_d.timezone.utc) + _d.timedelta(seconds=r.choice([0.01, 0.05]))
        if r.random() < 0.1:
            o["expires"] = r.choice([5, 30.0, 120])
        if r.random() < 0.08:
            o["ignore_result"] = True
        if r.random() < 0.06:
            o["shadow"] = r.choice(["report.build", "billing.charge", "mail.send"])
        if r.random() < 0.05:
            o["task_id"] = "job-%d-%s" % (r.randint(1, 10 ** 6), _uuid.UUID(int=r.getrandbits(128)))
        if r.random() < 0.08:
            o["priority"] = r.randint(0, 9)
        if r.random() < 0.06:
            o["headers"] = {"tenant": r.choice(["acme", "initech"])}
        if r.random() < 0.05:
            o["time_limit"] = r.choice([5, 30])
            o["soft_time_limit"] = 3
        return o

    def control(self, command, **kw):
        return app.control.broadcast(command, arguments=kw, reply=True, limit=1, timeout=1.0)

    def raw(self, body, headers=None, content_type=None, encoding=None):
        """Publish a hand-made message to the worker's queue (not through Celery)."""
        kw = dict(content_type=content_type, content_encoding=encoding) if content_type else \
            dict(serializer="json")
        with app.producer_or_acquire() as prod:
            prod.publish(body, exchange="", routing_key="celery", headers=headers or {}, **kw)

    def wait(self, cid, timeout=4.0, settle=0.004):
        t0 = time.time()
        quiet = 0
        while time.time() - t0 < timeout:
            if (TRACK.outstanding(cid) <= 0 and not wstate.active_requests
                    and not wstate.reserved_requests):
                quiet += 1
                if quiet >= 3:
                    return True
            else:
                quiet = 0
            time.sleep(settle)
        self.timeouts += 1
        return False

    def sleep(self, s):
        time.sleep(s)

    # -- job kinds ------------------------------------------------------------
    def job_simple(self):
        r = self.rng
        k = r.random()
        if k < 0.4:
            add.apply_async((r.randint(-50, 500), r.randint(0, 99)), **self.opts())
        elif k < 0.6:
            mul.apply_async((r.randint(1, 30), r.randint(1, 30)), **self.opts())
        elif k < 0.8:
            size = r.choice([0, 0, 200, 1500, 20000])
            echo.apply_async((r.choice(["hello", {"a": 1, "b": [1, 2]}, list(range(r.randint(1, 40)))]),),
                             {"size": size}, **self.opts())
        else:
            xsum.apply_async(([r.randint(0, 9) for _ in range(r.randint(1, 60))],), **self.opts())

    def job_fail(self):
        r = self.rng
        if r.random() < 0.5:
            fail.apply_async((r.choice(["value", "key", "type", "zero", "perm", "runtime", "os"]),
                              r.choice(["boom", "invalid record 17", "no such user", "x" * 300])),
                             **self.opts())
        else:
            validate.apply_async((r.choice(["quota", "key", "other", "ok"]), r.randint(1, 99)), **self.opts())

    def job_retry(self):
        r = self.rng
        k = r.random()
        if k < 0.6:
            fails = r.choice([1, 2, 3, 4, 5])
            flaky.apply_async((fails,), {"countdown": r.choice([0.005, 0.02]), "use_exc": r.random() < 0.7,
                                         "eta": r.random() < 0.3,
                                         "max_retries": r.choice([0, 1, 2, 4]) if r.random() < 0.3 else None},
                              **self.opts())
        else:
            autoretry.apply_async((r.choice([0, 1, 2, 3]),), **self.opts())

    def job_reject_ignore(self):
        r = self.rng
        if r.random() < 0.5:
            reject.apply_async((False, r.choice(["bad input", "schema mismatch", "duplicate"])))
        else:
            ignore.apply_async((r.randint(0, 9),))

    def job_progress(self):
        progress.apply_async((self.rng.randint(0, 4),), **self.opts())

    def job_chain(self):
        r = self.rng
        n = r.randint(2, 5)
        sigs = [add.s(r.randint(0, 9), r.randint(0, 9))]
        for i in range(n - 1):
            sigs.append(r.choice([add.s(r.randint(1, 5)), mul.s(r.randint(2, 4))]))
        if r.random() < 0.35:
            sigs.insert(r.randint(1, len(sigs)), fail.si(r.choice(["value", "key"]), "chain link broke"))
        if r.random() < 0.15:
            sigs.insert(r.randint(1, len(sigs)), flaky.si(1, 0.01))
        c = chain(*sigs)
        if r.random() < 0.3:
            c = c.on_error(r.choice([on_error.s(), bad_errback.s()]))
        c.apply_async()

    def job_group(self):
        r = self.rng
        n = r.randint(2, 6)
        members = [add.s(i, r.randint(0, 9)) for i in range(n)]
        if r.random() < 0.3:
            members[r.randrange(n)] = fail.s("value", "group member failed")
        if r.random() < 0.2:
            members.append(flaky.s(1, 0.01))
        group(members).apply_async()

    def job_chord(self):
        r = self.rng
        n = r.randint(2, 5)
        members = [add.s(i, i) for i in range(n)]
        k = r.random()
        if k < 0.25:
            members[r.randrange(n)] = fail.s("key", "chord header failed")
        body = xsum.s()
        if r.random() < 0.2:
            body = fail.s("runtime", "chord body failed")
        if r.random() < 0.25:
            body = body.on_error(on_error.s())
        chord(members, body).apply_async()

    def job_fanout(self):
        r = self.rng
        k = r.random()
        if k < 0.5:
            fanout.delay(r.randint(1, 5), r.choice(["add", "add", "fail", "quiet"]))
        elif k < 0.75:
            replacer.delay(r.randint(0, 4))
        else:
            waiter.delay(r.randint(0, 9))

    def job_noresult_late(self):
        r = self.rng
        if r.random() < 0.5:
            noresult.apply_async((r.randint(0, 99),), **self.opts())
        else:
            late.apply_async((r.randint(0, 99), r.random() < 0.3), **self.opts())

    def job_link(self):
        r = self.rng
        sig = r.choice([add.s(2, 3), fail.s("value", "linked failure"), mul.s(4, 5)])
        sig.apply_async(link=r.choice([add.s(10), echo.s(), None]) if r.random() < 0.6 else None,
                        link_error=on_error.s() if r.random() < 0.5 else None)

    def job_revoke(self):
        r = self.rng
        k = r.random()
        if k < 0.4:
            # scheduled in the worker's timer, revoked before its ETA
            res = add.apply_async((1, 2), countdown=r.choice([0.06, 0.1]))
            self.sleep(0.02)
            app.control.revoke(res.id, reply=True, limit=1, timeout=1.0)
        elif k < 0.6:
            # revoked before it is even sent
            tid = str(_uuid.UUID(int=r.getrandbits(128)))
            app.control.revoke(tid, reply=True, limit=1, timeout=1.0)
            mul.apply_async((3, 3), task_id=tid)
        elif k < 0.8:
            # expires while waiting for its countdown
            echo.apply_async(("stale",), countdown=0.06, expires=0.02)
        elif k < 0.9:
            # expiry already in the past when sent
            add.apply_async((5, 5), expires=-r.choice([1, 30]))
        else:
            res = add.apply_async((7, 8))
            self.wait(self.log.case_id, timeout=2)
            app.control.revoke([res.id, str(_uuid.UUID(int=r.getrandbits(128)))], reply=True, limit=1,
                               timeout=1.0)

    def job_control(self):
        r = self.rng
        k = r.random()
        if k < 0.3:
            name = r.choice(["jobs.add", "jobs.echo", "jobs.mul"])
            self.control("rate_limit", task_name=name, rate_limit=r.choice(["100/s", "60/s", "3000/m"]))
            for i in range(r.randint(2, 4)):
                if name == "jobs.echo":
                    echo.delay("burst-%d" % i)
                else:
                    {"jobs.add": add, "jobs.mul": mul}[name].delay(i, i)
            self.wait(self.log.case_id, timeout=3)
            self.control("rate_limit", task_name=name, rate_limit=r.choice([None, 0]))
        elif k < 0.4:
            self.control("rate_limit", task_name=r.choice(["jobs.nope", "tasks.missing"]), rate_limit="1/s")
            self.job_simple()
        elif k < 0.52:
            if r.random() < 0.7:
                self.control("time_limit", task_name=r.choice(["jobs.slow", "jobs.echo"]),
                             soft=r.choice([1, 2.5]), hard=r.choice([3, 5]))
            else:
                self.control("time_limit", task_name="jobs.unknown", soft=1, hard=2)
            slow.delay(0.001)
        elif k < 0.64:
            self.control(r.choice(["enable_events", "disable_events"]))
            self.job_simple()
            self.control(r.choice(["enable_events", "disable_events"]))
        elif k < 0.72:
            self.control("heartbeat")
            self.job_simple()
        elif k < 0.82:
            self.control("hello", from_node="w%d@peer" % r.randint(1, 9),
                         revoked={str(_uuid.UUID(int=r.getrandbits(128))): 1} if r.random() < 0.5 else None)
            self.job_simple()
        elif k < 0.88:
            q = r.choice(["priority", "reports", "bulk"])
            self.control("add_consumer", queue=q)
            for i in range(r.randint(1, 3)):
                add.apply_async((i, 1), queue=q)
            if r.random() < 0.3:
                self.control("add_consumer", queue=q)
            self.wait(self.log.case_id, timeout=2)
            self.control("cancel_consumer", queue=q)
        elif k < 0.94:
            # a control message without a method: the pidbox consumer fails and resets
            with app.producer_or_acquire() as prod:
                prod.publish({"destination": None, "arguments": {}}, serializer="json", routing_key="",
                             exchange=kombu.Exchange("celery.pidbox", "fanout"))
            self.sleep(0.02)
            self.job_simple()
        else:
            # revoke(terminate=True) of a running task: only a threads pool sees it while it runs
            res = slow.delay(r.choice([0.05, 0.08]))
            self.sleep(0.02)
            app.control.revoke(res.id, terminate=True, signal=r.choice(["TERM", "KILL"]), reply=True,
                               limit=1, timeout=1.0)

    def job_bad_message(self):
        r = self.rng
        k = r.random()
        tid = str(_uuid.UUID(int=r.getrandbits(128)))
        if k < 0.35:
            app.send_task(r.choice(["jobs.nope", "reports.generate", "jobs.Add"]), args=(1, 2))
        elif k < 0.55:
            self.raw({"hello": "world", "n": r.randint(0, 9)})
        elif k < 0.7:
            self.raw(b"\x00\x01garbage", headers={"task": "jobs.add", "id": tid},
                     content_type=r.choice(["application/x-bogus", "application/json"]), encoding="binary")
        elif k < 0.85:
            self.raw([[1, 2], "not-a-dict", {}], headers={"task": "jobs.add", "id": tid, "lang": "py",
                                                         "root_id": tid, "parent_id": None, "group": None,
                                                         "retries": 0, "eta": None, "expires": None})
        elif k < 0.92:
            self.raw([[1], {"y": 2}, {}], headers={"task": "jobs.add", "id": tid, "lang": "py",
                                                  "retries": 0, "eta": "not-a-date", "expires": None})
        else:
            # an ETA that cannot be converted to a timestamp (the worker logs it and runs the task now)
            import datetime as _d
            eta = r.choice([_d.datetime(1, 1, 1, 0, 30, tzinfo=_d.timezone(_d.timedelta(hours=5))),
                            _d.datetime(9999, 12, 31, 23, 0, tzinfo=_d.timezone(_d.timedelta(hours=-5)))])
            add.apply_async((r.randint(0, 9), 1), eta=eta)
        self.sleep(0.02)
        if r.random() < 0.5:
            self.job_simple()

    def job_beat(self):
        """A short-lived embedded beat service with a sub-second schedule."""
        r = self.rng
        path = os.path.join(self.tmp, "beat-%d" % r.randint(0, 10 ** 9))
        k = r.random()
        if k < 0.15:
            with open(path, "wb") as fh:  # not a dbm file
                fh.write(b"\x00garbage schedule " * r.randint(1, 20))
        elif k < 0.4:
            with shelve.open(path) as db:  # left by an older / differently configured beat
                db["entries"] = {}
                stored = {"__version__": "5.2.6", "tz": r.choice(["Europe/Berlin", "US/Eastern", None]),
                          "utc_enabled": r.choice([True, False])}
                for key in r.sample(sorted(stored), r.randint(0, 3)):
                    db[key] = stored[key]
        sched = {}
        for i in range(r.randint(1, 3)):
            t = r.choice(["jobs.add", "jobs.add", "jobs.mul", "jobs.echo", "jobs.fail", "jobs.flaky", "jobs.gone"])
            args = {"jobs.add": (i, 2), "jobs.mul": (i, 3), "jobs.echo": ("tick-%d" % i,),
                    "jobs.fail": ("value", "periodic failure"), "jobs.flaky": (1, 0.005),
                    "jobs.gone": ()}[t]
            if r.random() < 0.08:
                args = (object(),)  # cannot be serialized: "Message Error"
            sched["every-%d-%s" % (i, t.split(".")[1])] = {
                "task": t, "schedule": timedelta(seconds=r.choice([0.03, 0.05, 0.08])), "args": args}
        app.conf.beat_schedule = sched
        app.conf.beat_sync_every = r.choice([0, 2, 3])
        svc = beat.Service(app, max_interval=r.choice([0.02, 0.04]), schedule_filename=path)
        th = threading.Thread(target=svc.start, name="beat", daemon=True)
        th.start()
        self.sleep(r.choice([0.1, 0.15, 0.2]))
        svc.stop()
        th.join(2)
        for suffix in ("", ".db", ".dat", ".bak", ".dir"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)

    def job_connection_loss(self):
        FAULT["conn"] = self.rng.choice([1, 1, 2])
        self.sleep(0.05)
        self.job_simple()

    def job_restart(self):
        t0 = time.time()
        if self.rng.random() < 0.5:
            self.host.remote_shutdown()
        else:
            self.host.stop()
        t1 = time.time()
        self.host.start(self.rng)
        t2 = time.time()
        self.job_simple()
        if os.environ.get("GEN_PROFILE"):
            sys.stderr.write("restart stop %.3f start %.3f\n" % (t1 - t0, t2 - t1))

    KINDS = [
        (0.20, "job_simple"), (0.08, "job_fail"), (0.10, "job_retry"), (0.04, "job_reject_ignore"),
        (0.03, "job_progress"), (0.08, "job_chain"), (0.06, "job_group"), (0.03, "job_chord"),
        (0.05, "job_fanout"), (0.04, "job_noresult_late"), (0.04, "job_link"), (0.07, "job_revoke"),
        (0.07, "job_control"), (0.05, "job_bad_message"), (0.015, "job_connection_loss"),
        (0.01, "job_restart"), (0.04, "job_beat"),
    ]

    def run_case(self, cid):
        r = self.rng
        x = r.random() * sum(w for w, _ in self.KINDS)
        for w, name in self.KINDS:
            x -= w
            if x < 0:
                break
        t0 = time.time()
        getattr(self, name)()
        self.kind = name
        # a few workflows are followed by a second, independent job of the same client
        if r.random() < 0.15:
            self.job_simple()
        self.wait(cid)
        if os.environ.get("GEN_PROFILE"):
            sys.stderr.write("%s %s %.3f\n" % (cid, name, time.time() - t0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repo", action="store_true")
    a = ap.parse_args()
    if a.repo:
        print(repo_dir())
        return
    if not a.out:
        ap.error("--out is required")
    import warnings
    warnings.simplefilter("ignore")
    log = CeleryLog(celery, a.out, logger_names=["celery"], wrappers=WRAPPERS)
    host = WorkerHost()
    t0 = time.time()
    host.start(random.Random("%d-worker" % a.seed))
    g = Gen(host, log)
    try:
        for i in range(a.cases):
            cid = "cel-%05d" % i
            g.rng = random.Random("%d-%d" % (a.seed, i))
            TRACK.current = cid
            log.case_id = cid
            try:
                g.run_case(cid)
            finally:
                log.end_case()
                TRACK.current = None
    finally:
        host.stop()
        log.finish()
        shutil.rmtree(g.tmp, ignore_errors=True)
    sys.stderr.write("%s; %d records outside any case, %d of another case dropped; %d case timeouts; %.0fs\n"
                     % (log.summary(), log.outside, log.foreign, g.timeouts, time.time() - t0))


if __name__ == "__main__":
    main()
