import logging
from functools import partial

from .jobs import JobQueue
from .printer import OutOfPaper

log = logging.getLogger(__name__)


class Spooler:
    def __init__(self, printer, limit_sheets=200):
        self.printer = printer
        self.queue = JobQueue(limit_sheets)
        self.done = partial(log.info, "%s printed %d page(s) for %s")

    def submit_all(self, jobs):
        return sum(self.queue.submit(j) for j in jobs)

    def run(self):
        while True:
            job = self.queue.take()
            if job is None:
                break
            try:
                ok = self.printer.feed(job)
            except OutOfPaper:
                self.printer.note("out of paper, %d job(s) wait" % (len(self.queue.jobs) + 1))
                self.queue.jobs.insert(0, job)
                break
            if ok:
                self.done(self.printer.name, job.sheets, job.owner)
            else:
                self.queue.drop_owner(job.owner)
        return self.printer.printed
