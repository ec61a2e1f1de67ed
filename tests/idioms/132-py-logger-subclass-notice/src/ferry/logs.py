"""The package's logger class, installed with logging.setLoggerClass before
any of its modules asks for a logger: a NOTICE level between INFO and
WARNING, and audit records of an event and its fields."""
import logging

NOTICE = 25
logging.addLevelName(NOTICE, "NOTICE")


class HarbourLogger(logging.Logger):
    def notice(self, msg, *args, **kwargs):
        if self.isEnabledFor(NOTICE):
            self._log(NOTICE, msg, args, **kwargs)

    def audit(self, event, **fields):
        pairs = " ".join("%s=%s" % kv for kv in sorted(fields.items()))
        self.info("AUDIT %s %s", event, pairs)


logging.setLoggerClass(HarbourLogger)


def get_logger(name):
    return logging.getLogger(name)
