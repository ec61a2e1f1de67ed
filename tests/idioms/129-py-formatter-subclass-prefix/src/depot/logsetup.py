import logging


class BayFormatter(logging.Formatter):
    """One line per record: the level's initial and the module's short name
    before the message, an error's type and text after it."""

    def format(self, record):
        area = record.name.rsplit(".", 1)[-1]
        line = "%s %-7s| %s" % (record.levelname[0], area, record.getMessage())
        if record.exc_info:
            line += " -- " + self.formatException(record.exc_info)
        return line

    def formatException(self, exc_info):
        etype, exc, _ = exc_info
        return "%s: %s" % (etype.__name__, exc)


def install(stream, level=logging.DEBUG):
    pkg = logging.getLogger("depot")
    for h in list(pkg.handlers):
        pkg.removeHandler(h)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(BayFormatter())
    pkg.addHandler(handler)
    pkg.setLevel(level)
    pkg.propagate = False
    return pkg
