#!/usr/bin/python3
"""Event log of APScheduler 3 (Debian python3-apscheduler 3.9.1), in-process,
memory job stores only.

    /usr/bin/python3 gen_apscheduler.py --out .deps/logs/apscheduler.csv.gz [--cases 1500] [--seed 1]
    /usr/bin/python3 gen_apscheduler.py --repo     # prints the directory to index

A case is one scheduler lifetime, a few tenths of a second long: a
BackgroundScheduler (most cases), a BlockingScheduler (started in the case's
thread and stopped by a job or by a helper thread) or an AsyncIOScheduler (on a
fresh event loop, with coroutine and plain jobs), configured with a random time
zone, thread pool executors (sometimes a second "slow" one, rarely a process
pool), one to three memory job stores (one of them possibly "flaky": a memory
store whose ``get_due_jobs`` raises now and then), job defaults (coalesce,
max_instances, misfire_grace_time), sometimes a custom scheduler logger
(``logger=`` option) and event listeners (one of which may raise).  Jobs are
added before start (tentatively) and after, with interval triggers of 10-50 ms
(jitter, start/end dates), date triggers in the near future or in the past
(misfires), and cron triggers; then a random script of operations runs:
modify/reschedule/pause/resume/remove jobs, look up or remove missing jobs,
add duplicate ids, remove all jobs, pause and resume the scheduler (missed and
coalesced runs), jobs that raise, slow jobs that hit max_instances, jobs that
add or remove jobs, a job whose executor was removed, an executor shut down
behind the scheduler's back, a process that dies in a process pool, and a
final shutdown (wait or not; sometimes a second shutdown or a restart attempt).

Concurrency and attribution.  Six cases run at a time, each in its own
thread with its own scheduler, executors and job stores.  A record is
attributed to a case by walking the emitting thread's stack for the first
frame whose ``self`` or ``job`` local is a scheduler, executor, job store or
job, and mapping its scheduler to the case (so records from scheduler
threads, pool threads and event loops are attributed by the object that
logs); records of a case's own thread outside such frames fall back to a
thread -> case map.  A record that cannot be attributed (e.g. a job still
running after ``shutdown(wait=False)`` when its case has been closed) is
dropped and counted.  Cases are written in case order.  Only records whose
source lies inside the ``apscheduler`` package are kept; the scheduler logs
through ``self._logger`` (configurable), executors and job stores through
``self._logger`` named after their alias, and ``run_job`` through a logger
looked up by name.  Job records emitted inside process-pool children are not
captured (only the parent side of a process pool is).
"""
import argparse
import asyncio
import io
import logging
import os
import random
import sys
import threading
import time
from datetime import datetime, timedelta

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import apscheduler  # noqa: E402


def repo_dir():
    return os.path.dirname(os.path.realpath(apscheduler.__file__))


if __name__ == "__main__" and "--repo" in sys.argv[1:]:
    print(repo_dir())
    sys.exit(0)

import pytz  # noqa: E402
from apscheduler.events import EVENT_ALL, EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MISSED  # noqa: E402
from apscheduler.executors.base import BaseExecutor  # noqa: E402
from apscheduler.executors.pool import ProcessPoolExecutor, ThreadPoolExecutor  # noqa: E402
from apscheduler.job import Job  # noqa: E402
from apscheduler.jobstores.base import BaseJobStore  # noqa: E402
from apscheduler.jobstores.memory import MemoryJobStore  # noqa: E402
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # noqa: E402
from apscheduler.schedulers.background import BackgroundScheduler  # noqa: E402
from apscheduler.schedulers.base import BaseScheduler  # noqa: E402
from apscheduler.schedulers.blocking import BlockingScheduler  # noqa: E402
from apscheduler.triggers.cron import CronTrigger  # noqa: E402
from apscheduler.triggers.date import DateTrigger  # noqa: E402
from apscheduler.triggers.interval import IntervalTrigger  # noqa: E402

PARALLEL = 6
HUNG_AFTER = 20.0  # seconds
TIMEZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]
CUSTOM_LOGGER = "app.jobs.scheduler"
IN_CHILD = [False]
os.register_at_fork(after_in_child=lambda: IN_CHILD.__setitem__(0, True))


# ------------------------------------------------------------------ job functions
# module level, so that process pools can pickle references to them

def tick(n=0):
    return n + 1


def sleeper(d):
    time.sleep(d)
    return d


def boom(kind="value"):
    raise {"value": ValueError, "key": KeyError, "io": IOError, "zero": ZeroDivisionError,
           "runtime": RuntimeError}[kind]("job failed: %s" % kind)


def crash_process():
    os._exit(3)  # kills the pool process: BrokenProcessPool


async def atick(n=0):
    await asyncio.sleep(0.002)
    return n


async def aboom(kind="value"):
    await asyncio.sleep(0.001)
    raise ValueError("coroutine job failed: %s" % kind)


async def asleeper(d):
    await asyncio.sleep(d)
    return d


class FlakyJobStore(MemoryJobStore):
    """A memory job store whose backend 'fails' on some reads (injected)."""

    def __init__(self, fail_every=3, **kw):
        super().__init__(**kw)
        self.calls = 0
        self.fail_every = fail_every

    def get_due_jobs(self, now):
        self.calls += 1
        if self.calls % self.fail_every == 0:
            raise ConnectionError("job store backend unavailable (call %d)" % self.calls)
        return super().get_due_jobs(now)


# ------------------------------------------------------------------ capture

class CaseRegistry:
    def __init__(self):
        self.lock = threading.Lock()
        self.sched = {}    # id(scheduler) -> (scheduler, case id)
        self.thread = {}   # thread ident -> case id

    def bind(self, sched, cid):
        with self.lock:
            self.sched[id(sched)] = (sched, cid)

    def unbind_case(self, cid):
        with self.lock:
            for k in [k for k, v in self.sched.items() if v[1] == cid]:
                del self.sched[k]
            for k in [k for k, v in self.thread.items() if v == cid]:
                del self.thread[k]

    def case_of_sched(self, s):
        v = self.sched.get(id(s))
        return v[1] if v is not None and v[0] is s else None


REG = CaseRegistry()


def _sched_of(obj):
    if isinstance(obj, BaseScheduler):
        return obj
    if isinstance(obj, (Job, BaseExecutor, BaseJobStore)):
        return getattr(obj, "_scheduler", None)
    return None


class SchedLog(_capture.EventLog):
    """EventLog for concurrent cases: each record goes to the case of the scheduler
    found on the emitting stack (or of the emitting case thread)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.buf = {}              # case id -> rows
        self.unattributed = 0
        self._flush_lock = threading.Lock()

    def attribute(self):
        f = sys._getframe(1)
        depth = 0
        while f is not None and depth < 60:
            loc = f.f_locals
            for name in ("self", "job"):
                obj = loc.get(name)
                if obj is not None:
                    s = _sched_of(obj)
                    if s is not None:
                        cid = REG.case_of_sched(s)
                        if cid is not None:
                            return cid
            f = f.f_back
            depth += 1
        return REG.thread.get(threading.get_ident())

    def emit(self, record):
        if IN_CHILD[0]:
            return
        try:
            ap, rel = self._rel(record.pathname)
            if rel is None:
                return
            cid = self.attribute()
            if cid is None or cid not in self.buf:
                self.unattributed += 1
                return
            ts = _capture._dt.datetime.fromtimestamp(record.created, _capture._dt.timezone.utc) \
                .isoformat(timespec="microseconds")
            row = [cid, ts, _capture._escape(record.getMessage()), record.levelname, record.name,
                   rel, record.funcName, record.lineno, self.qn.qualname(ap, record.lineno), 0]
            with self._lock2:
                rows = self.buf.get(cid)
                if rows is None:
                    self.unattributed += 1
                else:
                    rows.append(row)
        except Exception:
            self.handleError(record)

    def open_case(self, cid):
        with self._lock2:
            self.buf[cid] = []

    def close_case(self, cid):
        with self._lock2:
            return self.buf.pop(cid, [])

    def write_case(self, rows):
        """Write one finished case through EventLog.end_case (same filtering/counting)."""
        with self._flush_lock:
            with self._lock2:
                self._rows = rows
            self.end_case()


# ------------------------------------------------------------------ one case

class Case:
    def __init__(self, cid, rng):
        self.cid = cid
        self.rng = rng
        self.sched = None
        self.out = io.StringIO()  # print_jobs() output
        self.n = 0
        self.job_ids = []
        self.kind = None
        self.aio = False
        self.procpool = False
        self.has_meta = False

    # -- configuration --------------------------------------------------------
    def build(self, cls, **extra):
        r = self.rng
        executors = {}
        if cls is not AsyncIOScheduler or r.random() < 0.3:
            executors["default"] = ThreadPoolExecutor(r.choice([1, 2, 4, 10]))
        if r.random() < 0.25:
            executors["slow"] = ThreadPoolExecutor(1)
        if self.procpool:
            executors["cpu"] = ProcessPoolExecutor(1)
        jobstores = {}
        if r.random() < 0.7:
            jobstores["default"] = MemoryJobStore()
        if r.random() < 0.25:
            jobstores["aux"] = MemoryJobStore()
        if r.random() < 0.12:
            jobstores["flaky"] = FlakyJobStore(fail_every=r.choice([2, 3, 5]))
        job_defaults = {}
        if r.random() < 0.5:
            job_defaults["coalesce"] = r.random() < 0.5
        if r.random() < 0.4:
            job_defaults["max_instances"] = r.choice([1, 2, 3])
        if r.random() < 0.5:
            job_defaults["misfire_grace_time"] = r.choice([None, 1, 3])
        opts = dict(executors=executors, jobstores=jobstores, job_defaults=job_defaults,
                    timezone=pytz.timezone(r.choice(TIMEZONES)))
        if r.random() < 0.1:
            opts["logger"] = logging.getLogger(CUSTOM_LOGGER)
        if r.random() < 0.15:
            opts["jobstore_retry_interval"] = r.choice([0.01, 0.03])
        opts.update(extra)
        s = cls(**opts)
        REG.bind(s, self.cid)
        self.sched = s
        if r.random() < 0.25:
            s.add_listener(self.listener, r.choice([EVENT_ALL, EVENT_JOB_ERROR | EVENT_JOB_MISSED,
                                                    EVENT_JOB_EXECUTED]))
        if r.random() < 0.06:
            s.add_listener(self.bad_listener, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        return s

    def listener(self, event):
        self.n += 0  # just consume the event

    def bad_listener(self, event):
        raise RuntimeError("listener failed on event %s" % event.code)

    def now(self):
        return datetime.now(self.sched.timezone)

    def stores(self):
        return list(self.sched._jobstores) or ["default"]

    # -- jobs -----------------------------------------------------------------
    def func_and_args(self):
        r = self.rng
        k = r.random()
        if self.aio and r.random() < 0.6:
            if k < 0.6:
                return atick, (r.randint(0, 9),)
            if k < 0.8:
                return aboom, (r.choice(["a", "b"]),)
            return asleeper, (r.choice([0.01, 0.03]),)
        if k < 0.55:
            return tick, (r.randint(0, 99),)
        if k < 0.75:
            return boom, (r.choice(["value", "key", "io", "zero", "runtime"]),)
        return sleeper, (r.choice([0.005, 0.02, 0.06]),)

    def trigger(self, kind=None):
        r = self.rng
        kind = kind or r.choice(["interval"] * 5 + ["date"] * 3 + ["cron"])
        tz = self.sched.timezone
        if kind == "interval":
            kw = dict(seconds=r.choice([0.01, 0.02, 0.03, 0.05]), timezone=tz)
            if r.random() < 0.15:
                kw["jitter"] = 0.01
            if r.random() < 0.2:
                kw["end_date"] = self.now() + timedelta(seconds=r.choice([0.02, 0.06, 0.12]))
            if r.random() < 0.15:
                kw["start_date"] = self.now() + timedelta(seconds=r.choice([0.03, 0.08]))
            if r.random() < 0.05:
                kw["start_date"] = self.now() - timedelta(seconds=r.choice([0.5, 5, 60]))
            return IntervalTrigger(**kw)
        if kind == "date":
            k = r.random()
            if k < 0.6:
                when = self.now() + timedelta(seconds=r.choice([0.0, 0.01, 0.03, 0.06]))
            elif k < 0.9:
                when = self.now() - timedelta(seconds=r.choice([0.05, 0.5, 3, 120]))  # in the past
            else:
                when = self.now() + timedelta(hours=r.randint(1, 48))  # not in this case's lifetime
            return DateTrigger(run_date=when, timezone=tz)
        k = r.random()
        if k < 0.5:
            return CronTrigger(second="*", timezone=tz)
        if k < 0.8:
            return CronTrigger(hour=r.randint(0, 23), minute=r.choice([0, 15, 30]), timezone=tz)
        return CronTrigger(day_of_week=r.choice(["mon-fri", "sat,sun", "tue"]), hour="*/6", timezone=tz,
                           end_date=self.now() + timedelta(days=r.randint(1, 30)))

    def add(self, trig=None, **extra):
        r = self.rng
        func, args = self.func_and_args()
        kw = dict(args=args)
        if r.random() < 0.5:
            self.n += 1
            kw["id"] = "job-%d" % self.n
        if r.random() < 0.3:
            kw["name"] = r.choice(["report", "cleanup", "sync users", "poll feed", "heartbeat"])
        if r.random() < 0.25:
            kw["max_instances"] = r.choice([1, 2])
        if r.random() < 0.25:
            kw["misfire_grace_time"] = r.choice([None, 1, 2])
        if r.random() < 0.2:
            kw["coalesce"] = r.random() < 0.5
        stores = self.stores()
        if len(stores) > 1 and r.random() < 0.4:
            kw["jobstore"] = r.choice(stores)
        if "slow" in self.sched._executors and r.random() < 0.3:
            kw["executor"] = "slow"
        if r.random() < 0.05:
            kw["next_run_time"] = None  # added paused
        kw.update(extra)
        try:
            job = self.sched.add_job(func, trig or self.trigger(), **kw)
            self.job_ids.append(job.id)
            return job
        except Exception:
            return None

    def some_job_id(self):
        if self.job_ids and self.rng.random() < 0.85:
            return self.rng.choice(self.job_ids)
        return self.rng.choice(["missing", "job-99", "old-report"])

    # -- operations -----------------------------------------------------------
    def op(self):
        r = self.rng
        s = self.sched
        k = r.random()
        try:
            if k < 0.22:
                self.add()
            elif k < 0.30:
                s.modify_job(self.some_job_id(), name=r.choice(["renamed", "nightly"]),
                             max_instances=r.choice([1, 3]), args=(r.randint(0, 9),))
            elif k < 0.38:
                s.reschedule_job(self.some_job_id(), trigger=r.choice(["interval", "date"]),
                                 **({"seconds": r.choice([0.01, 0.04])} if r.random() < 0.6 else {}))
            elif k < 0.45:
                s.pause_job(self.some_job_id())
            elif k < 0.52:
                s.resume_job(self.some_job_id())
            elif k < 0.60:
                jid = self.some_job_id()
                s.remove_job(jid)
                if jid in self.job_ids:
                    self.job_ids.remove(jid)
            elif k < 0.63:
                s.remove_all_jobs(r.choice(self.stores() + [None]))
                self.job_ids = []
            elif k < 0.67:
                s.get_job(self.some_job_id())
                s.get_jobs()
                s.print_jobs(out=self.out)
            elif k < 0.72:
                # duplicate id, with or without replace_existing
                if self.job_ids:
                    self.add(id=r.choice(self.job_ids), replace_existing=r.random() < 0.5)
                else:
                    self.add()
            elif k < 0.80:
                s.pause()
                self.sleep(r.choice([0.02, 0.05, 0.08]))
                s.resume()
            elif k < 0.84:
                s.wakeup()
            elif k < 0.88:
                # slow job with a short interval: runs pile up against max_instances
                self.job_ids.append(s.add_job(sleeper, "interval", args=(r.choice([0.03, 0.05]),),
                                              seconds=0.01, max_instances=r.choice([1, 2]),
                                              id="slow-%d" % r.randint(0, 999), replace_existing=True).id)
            elif k < 0.91:
                # a job whose executor is missing (or removed afterwards)
                alias = r.choice(["gpu", "slow"])
                self.job_ids.append(s.add_job(tick, "date", run_date=self.now() + timedelta(seconds=0.01),
                                              executor=alias).id)
                if alias == "slow" and "slow" in s._executors and r.random() < 0.7:
                    s.remove_executor("slow", shutdown=r.random() < 0.5)
            elif k < 0.93 and not self.aio:
                # the application shuts an executor down behind the scheduler's back
                ex = ThreadPoolExecutor(1)
                s.add_executor(ex, "batch")
                ex.shutdown()
                self.job_ids.append(s.add_job(tick, "interval", seconds=0.01, executor="batch").id)
            elif k < 0.96:
                # a job that manages other jobs (shutdown(wait=True) would deadlock with it:
                # the scheduler holds its job store lock while waiting for running jobs)
                self.has_meta = True
                self.job_ids.append(s.add_job(self.meta_job, "date",
                                              run_date=self.now() + timedelta(seconds=0.005)).id)
            else:
                s.add_job(tick, self.trigger("date"), id="fixed", replace_existing=r.random() < 0.5)
                s.add_job(tick, self.trigger("date"), id="fixed", replace_existing=r.random() < 0.5)
        except Exception:
            pass  # JobLookupError, ConflictingIdError, KeyError of unknown aliases, ...

    def meta_job(self):
        s = self.sched
        r = random.Random(self.cid + "-meta")
        try:
            if r.random() < 0.5:
                s.add_job(tick, "interval", seconds=0.02, id="spawned", replace_existing=True)
            else:
                for j in s.get_jobs()[:2]:
                    s.remove_job(j.id)
        except Exception:
            pass

    def sleep(self, d):
        time.sleep(d)

    # -- scheduler kinds --------------------------------------------------------
    def pre_adds(self):
        for _ in range(self.rng.choice([0, 0, 1, 2])):
            self.add()

    def shutdown(self):
        r = self.rng
        s = self.sched
        wait = r.random() < 0.7 and not self.has_meta
        try:
            s.shutdown(wait=wait)
        except Exception:
            pass
        if r.random() < 0.1:
            try:
                s.shutdown()  # SchedulerNotRunningError
            except Exception:
                pass
        if not wait:
            time.sleep(0.07)  # let running jobs finish before the case is closed

    def run_background(self):
        r = self.rng
        s = self.build(BackgroundScheduler, daemon=True)
        self.pre_adds()
        paused = r.random() < 0.1
        s.start(paused=paused)
        if r.random() < 0.05:
            try:
                s.start()  # SchedulerAlreadyRunningError
            except Exception:
                pass
        for _ in range(r.randint(1, 3)):
            self.add()
        if paused:
            self.sleep(0.03)
            s.resume()
        if self.procpool:
            k = r.random()
            s.add_job(tick, "interval", seconds=0.03, executor="cpu", args=(1,))
            if k < 0.6:
                s.add_job(crash_process, "date", run_date=self.now() + timedelta(seconds=0.01),
                          executor="cpu")
            self.sleep(0.15)
        for _ in range(r.randint(1, 5)):
            self.op()
            self.sleep(r.choice([0.005, 0.02, 0.04, 0.07]))
        if r.random() < 0.04:
            self.add(trig=CronTrigger(second="*", timezone=s.timezone))
            self.sleep(1.05)
        self.shutdown()

    def run_blocking(self):
        r = self.rng
        s = self.build(BlockingScheduler)
        self.pre_adds()
        self.add(trig=self.trigger("interval"))
        life = r.choice([0.06, 0.1, 0.15])
        if r.random() < 0.6:
            # stopped by one of its own jobs
            s.add_job(self.stop_job, "date", run_date=self.now() + timedelta(seconds=life))
        else:
            threading.Timer(life, self.stop_from_outside).start()
        if r.random() < 0.5:
            t = threading.Timer(life / 3, self.helper_ops)
            t.start()
        guard = threading.Timer(life + 0.3, self.stop_if_running)  # the stop job may have been removed
        guard.start()
        s.start()  # blocks until shutdown
        guard.cancel()
        time.sleep(0.05)

    def stop_if_running(self):
        if self.sched.running:
            self.stop_from_outside()

    def stop_job(self):
        self.sched.shutdown(wait=False)

    def stop_from_outside(self):
        try:
            self.sched.shutdown(wait=self.rng.random() < 0.5 and not self.has_meta)
        except Exception:
            pass

    def helper_ops(self):
        REG.thread[threading.get_ident()] = self.cid
        for _ in range(2):
            self.op()

    def run_asyncio(self):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._aio_main(loop))
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()

    async def _aio_main(self, loop):
        r = self.rng
        s = self.build(AsyncIOScheduler, event_loop=loop)
        self.pre_adds()
        s.start(paused=r.random() < 0.1)
        for _ in range(r.randint(1, 3)):
            self.add()
        if s.state == 2:  # paused
            await asyncio.sleep(0.03)
            s.resume()
        for _ in range(r.randint(1, 4)):
            self.op_async()
            await asyncio.sleep(r.choice([0.005, 0.02, 0.04, 0.07]))
        try:
            s.shutdown(wait=r.random() < 0.5 and not self.has_meta)
        except Exception:
            pass
        await asyncio.sleep(0.02)

    def op_async(self):
        # pause()+sleep inside op() would block the loop: do a non-blocking subset
        r = self.rng
        if r.random() < 0.15:
            try:
                self.sched.pause()
                self.sched.resume()
            except Exception:
                pass
        else:
            self.op()

    def run(self):
        r = self.rng
        k = r.random()
        self.procpool = r.random() < 0.03
        if k < 0.65 or self.procpool:
            self.kind = "background"
            self.run_background()
        elif k < 0.8:
            self.kind = "blocking"
            self.run_blocking()
        else:
            self.kind = "asyncio"
            self.aio = True
            self.run_asyncio()


# ------------------------------------------------------------------ driver

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--cases", type=int, default=1500)
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
    logging.getLogger("app").setLevel(logging.DEBUG)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # "Task was destroyed but it is pending!"
    log = SchedLog(apscheduler, a.out, logger_names=["apscheduler", "app"])
    thread_crashes = {}

    def excepthook(args):  # e.g. BackgroundScheduler's thread killed by a JobLookupError race
        key = "%s in thread %s" % (args.exc_type.__name__, args.thread.name if args.thread else "?")
        thread_crashes[key] = thread_crashes.get(key, 0) + 1
    threading.excepthook = excepthook
    t0 = time.time()
    lock = threading.Lock()
    state = {"next": 0, "flush": 0}
    done = {}
    errors = {}  # exceptions that escaped a case (e.g. a JobLookupError raised by the blocking
    # scheduler's loop when a job shut the scheduler down while the loop was removing a job)

    def flush_ready():
        # write finished cases in case order
        while state["flush"] in done:
            log.write_case(done.pop(state["flush"]))
            state["flush"] += 1

    started = {}     # case index -> start time
    abandoned = set()

    def worker():
        while True:
            with lock:
                i = state["next"]
                if i >= a.cases:
                    return
                state["next"] += 1
                started[i] = time.time()
            cid = "aps-%05d" % i
            log.open_case(cid)
            REG.thread[threading.get_ident()] = cid
            case = Case(cid, random.Random("%d-%d" % (a.seed, i)))
            try:
                case.run()
            except Exception as exc:  # a broken case must not stop the generation
                with lock:
                    errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                try:
                    case.sched and case.sched.running and case.sched.shutdown(wait=False)
                except Exception:
                    pass
            finally:
                try:  # make sure nothing of this case keeps running (e.g. after an escaped exception)
                    if case.sched is not None and case.sched.running and not case.aio:
                        case.sched.shutdown(wait=False)
                except Exception:
                    pass
                REG.unbind_case(cid)
                rows = log.close_case(cid)
                with lock:
                    started.pop(i, None)
                    if i not in abandoned:
                        done[i] = rows
                        flush_ready()

    def spawn():
        t = threading.Thread(target=worker, name="case-runner", daemon=True)
        t.start()
        return t

    threads = [spawn() for _ in range(PARALLEL)]
    while True:
        time.sleep(0.2)
        with lock:
            if state["flush"] >= a.cases:
                break
            now = time.time()
            for i, t in list(started.items()):
                if i not in abandoned and now - t > HUNG_AFTER:
                    # a hung case (a deadlock inside the scheduler): give up on it, keep the
                    # parallelism with a fresh runner; its thread stays blocked (daemon)
                    abandoned.add(i)
                    REG.unbind_case("aps-%05d" % i)
                    log.close_case("aps-%05d" % i)
                    done[i] = []
                    errors["hung"] = errors.get("hung", 0) + 1
                    if os.environ.get("GEN_DEBUG"):
                        import faulthandler
                        faulthandler.dump_traceback(all_threads=True)
                    threads.append(spawn())
            flush_ready()
    if os.environ.get("GEN_DEBUG"):
        import collections
        sys.stderr.write("alive threads: %r\n" % collections.Counter(t.name for t in threading.enumerate()))
    log.finish()
    sys.stderr.write("%s; %d unattributed records dropped; cases ended by an exception: %s; "
                     "scheduler threads killed by an exception: %s; %.0fs\n"
                     % (log.summary(), log.unattributed, errors or "none", thread_crashes or "none",
                        time.time() - t0))


if __name__ == "__main__":
    main()
