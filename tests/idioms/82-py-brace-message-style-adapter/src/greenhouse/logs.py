"""Brace-style logging on top of the standard library: messages are
str.format templates, formatted only when a handler wants the text, and the
handlers' own format is a "{"-style one."""
import logging
import sys

_LOGGING_KEYS = ("exc_info", "stack_info", "stacklevel", "extra")


class Deferred:
    """A message formatted only when it is turned into text."""

    __slots__ = ("template", "args", "kwargs")

    def __init__(self, template, args, kwargs):
        self.template = template
        self.args = args
        self.kwargs = kwargs

    def __str__(self):
        return self.template.format(*self.args, **self.kwargs)


class BraceAdapter(logging.LoggerAdapter):
    def log(self, level, msg, *args, **kwargs):
        if not self.isEnabledFor(level):
            return
        options = {k: kwargs.pop(k) for k in _LOGGING_KEYS if k in kwargs}
        self.logger.log(level, Deferred(msg, args, kwargs), **options)


def get_logger(name):
    return BraceAdapter(logging.getLogger(name), {})


def configure(stream=None, level=logging.DEBUG):
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("{levelname:<7} {name}: {message}", style="{"))
    top = logging.getLogger("greenhouse")
    top.addHandler(handler)
    top.setLevel(level)
    top.propagate = False
