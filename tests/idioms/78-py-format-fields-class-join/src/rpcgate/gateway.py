import logging

from .calllog import CallLine, VerboseCallLine, summary_line

log = logging.getLogger(__name__)

CODES = {0: "OK", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 14: "UNAVAILABLE"}


class Gateway:
    def __init__(self, service, verbose=False):
        self.service = service
        self.line = VerboseCallLine() if verbose else CallLine()
        self.calls = 0
        self.failures = 0
        self.retried = set()

    def finish(self, peer, method, code, elapsed_ms, req_bytes=0, resp_bytes=0, deadline=None):
        self.calls += 1
        text = self.line.render(peer=peer, service=self.service, method=method, code=CODES[code],
                                elapsed_ms=elapsed_ms, req_bytes=req_bytes, resp_bytes=resp_bytes, deadline=deadline)
        if code:
            self.failures += 1
            log.warning(text)
        else:
            log.info(text)
        if code == 14:
            self.retried.add(method)

    def close(self):
        log.info(summary_line(self.service, self.calls, self.failures, self.retried))
