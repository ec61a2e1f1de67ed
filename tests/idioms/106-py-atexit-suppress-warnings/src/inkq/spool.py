import atexit
import contextlib
import logging
import sys
import warnings

from .settings import check_settings

log = logging.getLogger(__name__)


class Spooler:
    def __init__(self, printer):
        self.printer = printer
        self.pending = {}
        atexit.register(self._report_at_exit)

    def _report_at_exit(self):
        # logging may be shut down already: write straight to stderr
        if self.pending:
            sys.stderr.write(f"{self.printer}: {len(self.pending)} jobs lost at exit: {', '.join(sorted(self.pending))}\n")
        else:
            print(f"{self.printer}: spool empty at exit", file=sys.stderr)

    def submit(self, job, pages, paper="A4", duplex=False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            settings = check_settings(pages, paper, duplex)
        for w in caught:
            log.warning("job %s: %s", job, w.message)
        self.pending[job] = settings
        log.info("job %s spooled: %d sheets of %s", job, settings["sheets"], settings["paper"])

    def cancel(self, job):
        with contextlib.suppress(KeyError):
            del self.pending[job]
            log.info("job %s cancelled", job)
            return True
        log.warning("job %s is not in the spool of %s", job, self.printer)
        return False

    def print_next(self):
        if not self.pending:
            return None
        job = min(self.pending)
        settings = self.pending.pop(job)
        log.info("printing %s on %s", job, self.printer)
        return settings
