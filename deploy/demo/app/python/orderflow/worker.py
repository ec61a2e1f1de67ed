"""Background job worker.

Jobs are kept in a time-ordered queue and executed once they are due. Each
job runs inside the order context of the order it belongs to and inside a
consumer span, is retried with backoff when it fails with a retryable
error, and is dead-lettered when it keeps failing.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable
from opentelemetry import trace

from .clock import Clock, SimulatedClock, get_clock
from .config import RetryPolicy
from .errors import JOB_DEAD_LETTERED, OrderflowError
from .log import log_event, order_context
from .orders import OrderService

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

JobHandler = Callable[..., None]


@dataclass(order=True)
class Job:
    due: datetime
    seq: int
    kind: str = field(compare=False)
    order_id: str | None = field(compare=False, default=None)
    payload: dict[str, Any] = field(compare=False, default_factory=dict)
    attempts: int = field(compare=False, default=0)

    @property
    def id(self) -> str:
        return f"job-{self.seq:06d}"


class JobQueue:
    """A priority queue of jobs ordered by due time, then submission order."""

    def __init__(self) -> None:
        self._heap: list[Job] = []
        self._seq = itertools.count(1)

    def push(self, kind: str, due: datetime, order_id: str | None, payload: dict[str, Any],
             attempts: int = 0) -> Job:
        job = Job(due, next(self._seq), kind, order_id, payload, attempts)
        heapq.heappush(self._heap, job)
        return job

    def pop(self) -> Job:
        return heapq.heappop(self._heap)

    def next_due(self) -> datetime | None:
        return self._heap[0].due if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)


@dataclass
class WorkerStats:
    executed: int = 0
    retried: int = 0
    dead_lettered: int = 0


class Worker:
    def __init__(self, *, retry: RetryPolicy, clock: Clock | None = None, name: str = "worker-1",
                 seed: int | str | None = None) -> None:
        self.queue = JobQueue()
        self.retry = retry
        self.clock = clock or get_clock()
        self.name = name
        self.stats = WorkerStats()
        self.dead_letters: list[tuple[Job, str]] = []
        self._handlers: dict[str, JobHandler] = {}
        self._rng = random.Random(None if seed is None else f"worker:{seed}")

    def handles(self, kind: str) -> Callable[[JobHandler], JobHandler]:
        """Decorator registering the handler for a job kind."""
        def register(handler: JobHandler) -> JobHandler:
            self._handlers[kind] = handler
            return handler
        return register

    def schedule(self, kind: str, *, order_id: str | None = None,
                 delay: timedelta = timedelta(0), **payload: Any) -> Job:
        if kind not in self._handlers:
            raise KeyError(f"no handler registered for job kind {kind!r}")
        job = self.queue.push(kind, self.clock.now() + max(delay, timedelta(0)), order_id, payload)
        logger.debug("scheduled %s %s for %s", job.kind, job.id, f"{job.due:%Y-%m-%d %H:%M:%S}")
        return job

    def run_until(self, deadline: datetime | None = None) -> int:
        """Execute every job due up to ``deadline`` (all jobs when None)."""
        executed = 0
        while self.queue:
            due = self.queue.next_due()
            if deadline is not None and due is not None and due > deadline:
                break
            job = self.queue.pop()
            if isinstance(self.clock, SimulatedClock):
                self.clock.advance_to(job.due)
            self._execute(job)
            executed += 1
        return executed

    def requeue_dead_letters(self, kinds: tuple[str, ...] | None = None) -> int:
        """Put dead-lettered jobs back on the queue (after an incident is resolved)."""
        keep, requeued = [], 0
        for job, error in self.dead_letters:
            if kinds is not None and job.kind not in kinds:
                keep.append((job, error))
                continue
            with order_context(job.order_id):
                logger.info("requeueing dead-lettered job %s (%s), last error: %s",
                            job.id, job.kind, error)
                self.queue.push(job.kind, self.clock.now(), job.order_id, job.payload)
            requeued += 1
        self.dead_letters = keep
        logger.log(logging.WARNING if requeued else logging.INFO,
                   "requeued %d dead-lettered job(s), %d left", requeued, len(keep))
        return requeued

    def _execute(self, job: Job) -> None:
        handler = self._handlers[job.kind]
        job.attempts += 1
        self.stats.executed += 1
        attrs = {"messaging.operation": "process", "job.id": job.id, "job.attempt": job.attempts}
        with order_context(job.order_id), tracer.start_as_current_span(
                f"job {job.kind}", attributes=attrs, kind=trace.SpanKind.CONSUMER):
            try:
                handler(job.order_id, **job.payload)
            except OrderflowError as exc:
                if exc.retryable and job.attempts < self.retry.max_attempts:
                    self._retry(job, exc)
                else:
                    self._dead_letter(job, exc)
            except Exception as exc:  # a bug: never retry, keep the evidence
                logger.exception("job %s (%s) crashed for order %s", job.id, job.kind, job.order_id)
                self._dead_letter(job, exc)

    def _retry(self, job: Job, exc: OrderflowError) -> None:
        delay = timedelta(seconds=self.retry.delay(job.attempts, self._rng))
        self.stats.retried += 1
        logger.warning(f"job {job.id} ({job.kind}) failed on attempt {job.attempts}: "
                       f"{exc.code}; retrying in {delay.total_seconds():.0f}s")
        self.queue.push(job.kind, self.clock.now() + delay, job.order_id, job.payload, job.attempts)

    def _dead_letter(self, job: Job, exc: Exception) -> None:
        self.stats.dead_lettered += 1
        self.dead_letters.append((job, repr(exc)))
        log_event(logger, JOB_DEAD_LETTERED, job.id, job.kind, job.attempts, exc,
                  level=logging.ERROR)


def install_order_jobs(worker: Worker, service: OrderService) -> None:
    """Register the handlers for the jobs :class:`OrderService` schedules."""

    @worker.handles("order.fulfil")
    def fulfil(order_id: str) -> None:
        service.fulfil(order_id)

    @worker.handles("order.expire_unpaid")
    def expire_unpaid(order_id: str) -> None:
        service.expire_unpaid(order_id)

    @worker.handles("order.ship_backorder")
    def ship_backorder(order_id: str, sku: str) -> None:
        service.ship_backorder(order_id, sku)

    @worker.handles("shipment.track")
    def track(order_id: str, shipment_id: str) -> None:
        service.track(order_id, shipment_id)

    @worker.handles("payment.capture")
    def capture(order_id: str) -> None:
        service.retry_capture(order_id)
