import logging
import threading
from concurrent.futures import ThreadPoolExecutor, wait

log = logging.getLogger(__name__)

MAX_WIDTH = 4000


class Job:
    def __init__(self, source, width):
        self.source = source
        self.width = width


def render(job, gate):
    gate.wait()
    me = threading.current_thread().name
    if job.width > MAX_WIDTH:
        raise ValueError(f"{job.source}: width {job.width} beyond the {MAX_WIDTH} px limit")
    log.debug("%s scaled %s to %d px", me, job.source, job.width)
    return "%s_%d.webp" % (job.source.rsplit(".", 1)[0], job.width)


def _report(fut):
    # runs in the worker when the render ends, or in the canceller's thread
    job = fut.job
    if fut.cancelled():
        log.warning("render of %s cancelled", job.source)
    elif fut.exception() is not None:
        log.error("render of %s failed: %s", job.source, fut.exception())
    else:
        log.info("wrote %s", fut.result())


def render_all(jobs, drop=()):
    gate = threading.Event()  # the worker starts once every job is queued
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="thumb") as pool:
        futures = []
        for job in jobs:
            fut = pool.submit(render, job, gate)
            fut.job = job
            fut.add_done_callback(_report)
            futures.append(fut)
        for fut in futures[1:]:
            if fut.job.source in drop:
                fut.cancel()
        log.info("queued %d renders, %d cancelled", len(futures), sum(f.cancelled() for f in futures))
        gate.set()
        done, _ = wait(futures)
    ok = sum(1 for f in done if not f.cancelled() and f.exception() is None)
    log.info("%d of %d thumbnails ready", ok, len(jobs))
    return ok
