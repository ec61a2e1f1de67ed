import asyncio
import logging

from .util import Session, timed

log = logging.getLogger(__name__)


@timed
async def fetch(path, delay):
    await asyncio.sleep(0)
    if delay > 100:
        raise TimeoutError(f"{path} took longer than {delay} ms")
    return len(path) * 100


def _on_done(task):
    if task.exception():
        log.error("Task %s failed: %s", task.get_name(), task.exception())
    else:
        log.info("Task %s fetched %d bytes", task.get_name(), task.result())


async def crawl(host, pages):
    async with Session(host):
        tasks = []
        for path, delay in pages:
            t = asyncio.create_task(fetch(path, delay), name="get " + path)
            t.add_done_callback(_on_done)
            tasks.append(t)
        results = await asyncio.gather(*tasks, return_exceptions=True)
    ok = sum(1 for r in results if not isinstance(r, BaseException))
    log.info("Crawled %s: %d of %d pages", host, ok, len(pages))
