import logging
from dataclasses import dataclass
from functools import partial

log = logging.getLogger(__name__)

# bound once: every queue event names its job
job_event = partial(log.debug, "job %s: %s")
refuse = partial(log.warning, "refusing job %s from %s: %s")


@dataclass
class Job:
    id: str
    owner: str
    pages: int
    copies: int = 1
    color: bool = False

    @property
    def sheets(self):
        return self.pages * self.copies


class JobQueue:
    def __init__(self, limit_sheets):
        self.limit = limit_sheets
        self.jobs = []

    def submit(self, job):
        if job.pages <= 0:
            refuse(job.id, job.owner, "empty document")
            return False
        if job.sheets > self.limit:
            refuse(job.id, job.owner, "%d sheets over the limit of %d" % (job.sheets, self.limit))
            return False
        self.jobs.append(job)
        job_event(job.id, "queued at position %d" % len(self.jobs))
        return True

    def take(self):
        if not self.jobs:
            return None
        job = self.jobs.pop(0)
        job_event(job.id, "handed to the printer")
        return job

    def drop_owner(self, owner):
        kept = [j for j in self.jobs if j.owner != owner]
        dropped = len(self.jobs) - len(kept)
        self.jobs = kept
        if dropped:
            log.info("dropped %d queued job(s) of %s", dropped, owner)
        return dropped
