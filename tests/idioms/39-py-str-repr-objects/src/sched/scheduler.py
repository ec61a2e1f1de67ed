import logging

from .model import Event, Job

log = logging.getLogger(__name__)


class Scheduler:
    def submit(self, jid):
        job = Job(jid, "queued")
        log.info("Scheduled %r", job)
        return job

    def fire(self, job, kind):
        ev = Event(kind, job)
        log.info("%s", ev)
        log.debug(str(ev))

    def reap(self, jobs):
        log.info("Reaping %s", jobs)
