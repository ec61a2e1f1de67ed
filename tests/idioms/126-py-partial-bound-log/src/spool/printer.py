import logging
from functools import partial

log = logging.getLogger(__name__)

jammed = partial(log.error, "printer %s jammed on page %d of job %s")


class OutOfPaper(Exception):
    pass


class Printer:
    def __init__(self, name, paper, toner_pct, jam_at=None):
        self.name = name
        self.paper = paper
        self.toner = toner_pct
        self.jam_at = jam_at
        self.printed = 0
        # the printer's notes carry its name; supplies warnings share one shape
        self.note = partial(log.info, "[%s] %s", name)
        self.low = partial(log.log, logging.WARNING, "[%s] low %s: %d left", name)

    def feed(self, job):
        for copy in range(job.copies):
            for page in range(1, job.pages + 1):
                if self.paper == 0:
                    raise OutOfPaper(self.name)
                if self.jam_at == self.printed + 1:
                    jammed(self.name, page, job.id)
                    self.jam_at = None
                    return False
                self.paper -= 1
                self.printed += 1
                if job.color:
                    self.toner -= 4
            if copy + 1 < job.copies:
                self.note("collated copy %d of %s" % (copy + 1, job.id))
        if self.paper < 10:
            self.low("paper", self.paper)
        if self.toner < 20:
            self.low("toner", self.toner)
        return True
