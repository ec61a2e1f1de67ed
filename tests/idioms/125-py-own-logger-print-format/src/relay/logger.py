import sys


class Logger:
    """A logger of the framework's own: a descriptor, so each class's
    instances log under their module and class; the format is filled with
    the keyword arguments, and the line printed with the level."""

    def __init__(self, namespace=None, source=None):
        self.namespace = namespace
        self.source = source

    def __get__(self, instance, owner=None):
        return Logger(owner.__module__ + "." + owner.__name__, instance)

    def emit(self, level, format=None, **kwargs):
        kwargs.setdefault("log_source", self.source)
        text = format.format(**kwargs) if format else ""
        print(f"{self.namespace}#{level} {text}", file=sys.stdout)

    def info(self, format=None, **kwargs):
        self.emit("info", format, **kwargs)

    def warn(self, format=None, **kwargs):
        self.emit("warn", format, **kwargs)

    def failure(self, format, failure=None, **kwargs):
        self.emit("critical", format, why=failure, **kwargs)
