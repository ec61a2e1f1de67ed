import logging

logger = logging.getLogger(__name__)


class Worker:
    def __init__(self, wid):
        self.wid = wid

    def start(self, queue, depth):
        logger.info(f"Worker {self.wid} polling {queue!r} (depth {depth:,})")

    def run(self, job, elapsed):
        logger.debug(f"{job=} {elapsed=:.3f}")
        logger.info(f"Job {job:>6} finished in {elapsed:.2f}s [{elapsed * 1000:08.1f} ms]")

    def stop(self, done):
        logger.info(f"Worker {self.wid} stopping after {done} jobs ({'clean' if done else 'idle'})")
