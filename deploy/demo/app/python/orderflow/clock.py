"""Clock abstraction.

Every service takes its notion of time from a :class:`Clock` so that backoff,
latency and timestamps can be simulated deterministically in tests and in the
workload simulator, while production uses the wall clock.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Clock:
    """Wall-clock time in UTC."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, for measuring durations."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class SimulatedClock(Clock):
    """A clock that only moves when told to.

    Reading the clock costs a few simulated microseconds, so that two
    observations never return the same instant; the cost is drawn from a
    seeded generator and therefore reproducible.
    """

    def __init__(self, start: datetime, *, seed: int | str = 0,
                 tick_us: tuple[int, int] = (20, 450)) -> None:
        if start.tzinfo is None:
            raise ValueError("SimulatedClock needs a timezone-aware start time")
        self._now = start
        self._rng = random.Random(f"clock:{seed}")
        self._tick_us = tick_us

    def now(self) -> datetime:
        self._now += timedelta(microseconds=self._rng.randint(*self._tick_us))
        return self._now

    def monotonic(self) -> float:
        return (self._now - EPOCH).total_seconds()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._now += timedelta(seconds=seconds)

    def advance_to(self, when: datetime) -> None:
        """Jump forward to ``when``; never moves backwards."""
        if when > self._now:
            self._now = when


@dataclass(frozen=True)
class TimeWindow:
    """A half-open interval of time, e.g. a maintenance window or an outage."""

    start: datetime
    end: datetime

    def __contains__(self, when: datetime) -> bool:
        return self.start <= when < self.end


_clock: Clock = Clock()


def get_clock() -> Clock:
    """The process-wide default clock."""
    return _clock


def set_clock(clock: Clock) -> None:
    """Replace the process-wide default clock (simulation and tests)."""
    global _clock
    _clock = clock
