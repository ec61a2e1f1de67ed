"""A logger taking str.format templates: log.info("{name} ready", name=n)."""
import logging
import string


class BraceLogger:
    def __init__(self, name):
        self._logger = logging.getLogger(name)
        self._formatter = string.Formatter()

    def _emit(self, level, fmt, args, kwargs):
        if self._logger.isEnabledFor(level):
            self._logger.log(level, self._formatter.vformat(fmt, args, kwargs), stacklevel=3)

    def debug(self, fmt, *args, **kwargs):
        self._emit(logging.DEBUG, fmt, args, kwargs)

    def info(self, fmt, *args, **kwargs):
        self._emit(logging.INFO, fmt, args, kwargs)

    def warning(self, fmt, *args, **kwargs):
        self._emit(logging.WARNING, fmt, args, kwargs)


def get_logger(name):
    return BraceLogger(name)
