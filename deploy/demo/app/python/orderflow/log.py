"""Logging helpers shared by the orderflow modules.

Every module gets its own ``logging.getLogger(__name__)``; this module adds
the pieces that have to be common: the order id carried through the call
stack, a helper to log catalogued templates from :mod:`orderflow.errors`, the
audit trail, and a timing helper.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

from .clock import get_clock

#: Id of the order being worked on; set at the API edge and by the job worker.
current_order_id: ContextVar[str | None] = ContextVar("orderflow_order_id", default=None)

_audit_logger = logging.getLogger("orderflow.audit")


@contextmanager
def order_context(order_id: str | None) -> Iterator[None]:
    """Attribute everything logged inside the block to ``order_id``."""
    token = current_order_id.set(order_id)
    try:
        yield
    finally:
        current_order_id.reset(token)


class OrderContextFilter(logging.Filter):
    """Adds ``record.order_id`` so that formatters can include it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "order_id"):
            record.order_id = current_order_id.get()
        return True


def log_event(logger: logging.Logger, template: str, *args: Any,
              level: int = logging.INFO, exc_info: Any = None) -> None:
    """Log a catalogued message template on behalf of the caller.

    The record is attributed to the calling function (``stacklevel=2``), not
    to this helper, so ``funcName``/``lineno`` point at the business code.
    """
    if logger.isEnabledFor(level):
        logger.log(level, template, *args, exc_info=exc_info, stacklevel=2)


def audit(action: str, order_id: str, *, actor: str = "system", **fields: Any) -> None:
    """Append an entry to the audit trail (the ``orderflow.audit`` logger).

    Audit entries are one line of ``key=value`` pairs in a fixed order so that
    the compliance export can parse them without a schema.
    """
    details = " ".join(f"{key}={fields[key]}" for key in sorted(fields))
    suffix = f" {details}" if details else ""
    _audit_logger.info("audit %s order=%s actor=%s%s", action, order_id, actor, suffix,
                       stacklevel=2)


@contextmanager
def timed(logger: logging.Logger, operation: str, *, slow_ms: float = 500.0) -> Iterator[None]:
    """Log how long the block took: at DEBUG normally, at WARNING when slow."""
    clock = get_clock()
    started = clock.monotonic()
    try:
        yield
    finally:
        elapsed_ms = (clock.monotonic() - started) * 1000.0
        level = logging.WARNING if elapsed_ms >= slow_ms else logging.DEBUG
        logger.log(level, "%s took %.0f ms", operation, elapsed_ms)
