import logging

log = logging.getLogger(__name__)

SEVERITY = {"ok": "debug", "degraded": "warning", "down": "error"}


class Monitor:
    def __init__(self, service):
        self.service = service
        self._report = {"up": log.info, "flapping": log.warning}

    def check(self, status, latency):
        level = SEVERITY[status]
        getattr(log, level)("Service %s is %s (%d ms)", self.service, status, latency)

    def transition(self, kind, count):
        self._report[kind]("Service %s went %s %d times", self.service, kind, count)

    def threshold(self, latency, limit):
        over = latency > limit
        log.log(logging.WARNING if over else logging.INFO,
                "Latency of %s above the limit: %d > %d ms" if over else "Latency of %s fine: %d <= %d ms",
                self.service, latency, limit)

    def page(self, who, urgent):
        notify = log.critical if urgent else log.info
        notify("Paging %s about %s", who, self.service)
        getattr(log, "warning" if urgent else "debug")(f"Escalation policy for {self.service}: {who}")
