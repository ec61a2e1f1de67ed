import logging
import warnings

log = logging.getLogger(__name__)


class FrameDeprecationWarning(DeprecationWarning):
    pass


def _deprecated(old, new):
    warnings.warn(f"{old}() is deprecated and will be removed in 3.0; use {new}() instead",
                  FrameDeprecationWarning, stacklevel=3)


class Frame:
    def __init__(self, rows):
        self.rows = rows
        log.debug("Frame with %d rows", len(rows))

    def append(self, row):
        _deprecated("append", "concat")
        self.rows.append(row)

    def mean(self, col):
        vals = [r.get(col) for r in self.rows]
        if any(v is None for v in vals):
            warnings.warn("Column %r has missing values; they are skipped" % col, RuntimeWarning)
            vals = [v for v in vals if v is not None]
        return sum(vals) / len(vals)

    def to_csv(self, path, sep=","):
        if sep != ",":
            warnings.warn("non-default separator {!r} may break readers".format(sep), UserWarning, stacklevel=2)
        log.info("Wrote %d rows to %s", len(self.rows), path)
