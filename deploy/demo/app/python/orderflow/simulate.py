"""Workload simulator: runs seeded orders through the service, writes an event log.

    python3 -m orderflow.simulate --orders 500 --seed 7 --out events.csv

Every order is one case. Log records and spans (starts and span events) are
written to a CSV event log with the columns

    case_id,timestamp,activity,level,logger,code.filepath,code.function,code.lineno

where ``timestamp`` comes from a simulated clock, so the output depends only
on ``--orders`` and ``--seed``. Customer behaviour (abandoned payments,
cancellations, returns, analyst decisions) is simulated here; declines,
timeouts, label failures and delivery delays come from the fake backends.

The service traces through the OpenTelemetry API. The simulator installs
the SDK's tracer provider (:class:`SimulatedTracerProvider`: the simulated
clock and seeded ids) with an SDK span processor that writes the rows
(:class:`CsvSpanProcessor`), and a ``logging`` handler for the log records
(:class:`CsvLogHandler`); ``deploy/demo/otel_app.py`` installs the same
provider with the SDK's OTLP exporters instead. Needs ``opentelemetry-sdk``:
run it with ``deploy/otel-python.sh``, the Python of ``.deps/otel-venv``
(``deploy/deps.sh --otel`` installs the pinned SDK there).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import heapq
import inspect
import itertools
import logging
import os
import random
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TextIO

try:
    from opentelemetry import trace
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
    from opentelemetry.sdk.trace.id_generator import IdGenerator
    from opentelemetry.util.types import Attributes
except ImportError as e:  # before the application's own import of it fails less clearly
    sys.exit(f"orderflow.simulate: the OpenTelemetry SDK is not importable ({e}); "
             "run it with deploy/otel-python.sh, which installs the SDK first")

from .api import OrderApi
from .clock import EPOCH, Clock, SimulatedClock, TimeWindow, set_clock
from .config import Settings
from .fraud import FraudScorer
from .inventory import CATALOG, InventoryService, Warehouse
from .log import current_order_id
from .models import Address, Customer, CustomerTier, IdFactory
from .notifications import EmailNotifier, FakeTransport, NotificationService, SmsNotifier
from .orders import CustomerDirectory, OrderRepository, OrderService
from .payments import CardGateway, FakeGatewayBackend, PaymentService, WalletGateway
from .pricing import PriceCalculator
from .shipping import CarrierBackend, CarrierSelector, ShippingService
from .worker import Worker, install_order_jobs

PYTHON_ROOT = Path(__file__).resolve().parent.parent
START = datetime(2024, 3, 4, 7, 30, tzinfo=timezone.utc)
#: The card processor degrades for half an hour: most calls time out.
CARD_OUTAGE = TimeWindow(datetime(2024, 3, 4, 9, 10, tzinfo=timezone.utc),
                         datetime(2024, 3, 4, 9, 40, tzinfo=timezone.utc))
#: The label aggregator is down; fulfilment jobs exhaust their retries.
LABEL_OUTAGE = TimeWindow(datetime(2024, 3, 4, 10, 50, tzinfo=timezone.utc),
                          datetime(2024, 3, 4, 11, 45, tzinfo=timezone.utc))
#: On-call replays the dead-letter queue once the label incident is closed.
DLQ_REPLAY_AT = datetime(2024, 3, 4, 12, 40, tzinfo=timezone.utc)
#: Popular products that are kept in short supply and restocked in small batches.
SCARCE = frozenset({"HS-ANC", "SSD-2T", "CM-4K"})

# --- event log ---------------------------------------------------------------


class EventLogWriter:
    """Writes event-log rows (RFC 4180 CSV) in time order and keeps summary statistics.

    Rows arrive out of time order while a span is open: an SDK span processor
    learns a span's events only when the span ends, after the log records
    written inside it. Between :meth:`hold` and the matching :meth:`release`
    rows are kept back; when the last hold is released they are written
    sorted by their timestamps, which the simulated clock never repeats.
    """

    HEADER = ("case_id", "timestamp", "activity", "level", "logger",
              "code.filepath", "code.function", "code.lineno")

    def __init__(self, stream: TextIO, root: Path = PYTHON_ROOT) -> None:
        self._csv = csv.writer(stream)
        self._csv.writerow(self.HEADER)
        self._root = root
        self._paths: dict[str, str] = {}
        self._held = 0
        self._pending: list[tuple[datetime, tuple[Any, ...]]] = []
        self.rows = 0
        self.by_level: dict[str, int] = {}
        self.cases: set[str] = set()
        self.activities: set[str] = set()
        self.sites: set[tuple[str, int]] = set()

    def relative(self, path: str) -> str:
        rel = self._paths.get(path)
        if rel is None:
            rel = Path(os.path.relpath(os.path.abspath(path), self._root)).as_posix()
            self._paths[path] = rel
        return rel

    def write(self, case_id: str, at: datetime, activity: str, level: str, logger: str,
              path: str, function: str, lineno: int) -> None:
        activity = activity.replace("\r\n", "\n").replace("\n", "\\n")
        filepath = self.relative(path)
        row = (case_id, at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), activity, level, logger,
               filepath, function, lineno)
        if self._held:
            self._pending.append((at, row))
        else:
            self._csv.writerow(row)
        self.rows += 1
        self.by_level[level] = self.by_level.get(level, 0) + 1
        self.cases.add(case_id)
        self.activities.add(activity)
        self.sites.add((filepath, lineno))

    def hold(self) -> None:
        self._held += 1

    def release(self) -> None:
        self._held -= 1
        if self._held == 0:
            self.flush()

    def flush(self) -> None:
        """Writes the rows kept back, in time order (also those of spans never ended)."""
        self._pending.sort(key=lambda pending: pending[0])
        self._csv.writerows(row for _, row in self._pending)
        self._pending.clear()


class CsvLogHandler(logging.Handler):
    """Turns log records emitted while an order is in context into rows."""

    def __init__(self, writer: EventLogWriter, clock: SimulatedClock) -> None:
        super().__init__()
        self.writer = writer
        self.clock = clock
        self.unattributed = 0

    def emit(self, record: logging.LogRecord) -> None:
        case_id = current_order_id.get()
        if case_id is None:
            self.unattributed += 1
            return
        try:
            message = record.getMessage()
        except Exception:
            self.handleError(record)
            return
        self.writer.write(case_id, self.clock.now(), message, record.levelname, record.name,
                          record.pathname, record.funcName, record.lineno)


class CsvSpanProcessor(SpanProcessor):
    """An SDK span processor turning span starts and span events into rows,
    the way an OTLP export would.

    A span's row is written when it starts; its events, which the SDK shows a
    processor only when the span ends, then (the writer puts them back in
    time order). An event is at the code that added it (the ``code.*``
    attributes the traced span gives it), else at its span's start. It reads
    the attributes :class:`SpanOrigin` sets, so it is registered after that
    one.
    """

    def __init__(self, writer: EventLogWriter) -> None:
        self.writer = writer

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        self.writer.hold()
        self._write(span, span.name, "SPAN", span.start_time)

    def on_end(self, span: ReadableSpan) -> None:
        for event in span.events:
            self._write(span, event.name, "EVENT", event.timestamp, event.attributes)
        self.writer.release()

    def _write(self, span: ReadableSpan, activity: str, level: str, time_ns: int | None,
               own: Attributes = None) -> None:
        attrs = span.attributes or {}
        case_id = attrs.get(CASE)
        if case_id is None or time_ns is None:
            return
        site = own if own and CODE_FILE in own else attrs
        scope = span.instrumentation_scope.name if span.instrumentation_scope else ""
        self.writer.write(str(case_id), from_ns(time_ns), activity, level, scope,
                          str(site.get(CODE_FILE, "")), str(site.get(CODE_FUNCTION, "")),
                          int(site.get(CODE_LINE, 0)))


# --- the OpenTelemetry SDK on the simulated clock ------------------------------

CASE = "case.id"
CODE_FILE, CODE_FUNCTION, CODE_LINE = "code.file.path", "code.function.name", "code.line.number"


def to_ns(at: datetime) -> int:
    """``at`` in nanoseconds since the epoch, exactly (``timestamp()`` is a float)."""
    return (at - EPOCH) // timedelta(microseconds=1) * 1000


def from_ns(time_ns: int) -> datetime:
    return EPOCH + timedelta(microseconds=time_ns // 1000)


class SeededIds(IdGenerator):
    """Trace and span ids drawn from a seeded generator: every run the same."""

    def __init__(self, seed: int | str) -> None:
        self._rng = random.Random(seed)

    def generate_trace_id(self) -> int:
        while True:
            trace_id = self._rng.getrandbits(128)
            if trace_id != trace.INVALID_TRACE_ID:
                return trace_id

    def generate_span_id(self) -> int:
        while True:
            span_id = self._rng.getrandbits(64)
            if span_id != trace.INVALID_SPAN_ID:
                return span_id


class _ClockSpan(trace.Span):
    """An SDK span whose end and events are stamped by the simulated clock.

    The SDK takes the wall clock for every time the caller leaves out, and
    the application leaves them all out (it should not know that its clock
    is simulated). This wrapper supplies the clock's reading instead, and
    reads the clock only where a span that records would take a time: the
    simulated clock advances on every reading, so an extra one would move
    every later timestamp.
    """

    def __init__(self, span: trace.Span, clock: Clock, *, record_exception: bool,
                 set_status_on_exception: bool) -> None:
        self._span = span
        self._clock = clock
        self._record_exception = record_exception
        self._set_status_on_exception = set_status_on_exception

    def _now(self, given: int | None) -> int | None:
        if given is None and self._span.is_recording():
            return to_ns(self._clock.now())
        return given

    def end(self, end_time: int | None = None) -> None:
        self._span.end(self._now(end_time))

    def add_event(self, name: str, attributes: Attributes = None,
                  timestamp: int | None = None) -> None:
        # The code that adds the event, as the logging handlers give a log
        # record's: the event is that code's, not its span's start.
        site = span_site()
        if site is not None and self._span.is_recording():
            attributes = dict(attributes or {})
            attributes[CODE_FILE], attributes[CODE_FUNCTION], attributes[CODE_LINE] = site
        self._span.add_event(name, attributes, self._now(timestamp))

    def record_exception(self, exception: BaseException, attributes: Attributes = None,
                         timestamp: int | None = None, escaped: bool = False) -> None:
        self._span.record_exception(exception, attributes, self._now(timestamp), escaped)

    def get_span_context(self) -> trace.SpanContext:
        return self._span.get_span_context()

    def set_attributes(self, attributes: dict[str, Any]) -> None:
        self._span.set_attributes(attributes)

    def set_attribute(self, key: str, value: Any) -> None:
        self._span.set_attribute(key, value)

    def add_link(self, context: trace.SpanContext, attributes: Attributes = None) -> None:
        self._span.add_link(context, attributes)

    def update_name(self, name: str) -> None:
        self._span.update_name(name)

    def is_recording(self) -> bool:
        return self._span.is_recording()

    def set_status(self, status: trace.Status | trace.StatusCode,
                   description: str | None = None) -> None:
        self._span.set_status(status, description)

    def __exit__(self, exc_type: Any, exc_val: BaseException | None, exc_tb: Any) -> None:
        """As the SDK's span: an exception leaving ``with span:`` is recorded and sets
        the status (``use_span``, behind ``start_as_current_span``, does the same)."""
        if exc_val is not None and self.is_recording():
            if self._record_exception:
                self.record_exception(exc_val, escaped=True)
            if self._set_status_on_exception:
                self.set_status(trace.Status(trace.StatusCode.ERROR,
                                             f"{type(exc_val).__name__}: {exc_val}"))
        self.end()


class _ClockTracer(trace.Tracer):
    """The SDK's tracer, with span starts stamped by the simulated clock."""

    def __init__(self, tracer: trace.Tracer, clock: Clock) -> None:
        self._tracer = tracer
        self._clock = clock

    def start_span(self, name: str, context: Context | None = None,
                   kind: trace.SpanKind = trace.SpanKind.INTERNAL, attributes: Attributes = None,
                   links: Sequence[trace.Link] | None = None, start_time: int | None = None,
                   record_exception: bool = True,
                   set_status_on_exception: bool = True) -> trace.Span:
        if start_time is None:
            start_time = to_ns(self._clock.now())
        span = self._tracer.start_span(name, context, kind, attributes, links, start_time,
                                       record_exception, set_status_on_exception)
        return _ClockSpan(span, self._clock, record_exception=record_exception,
                          set_status_on_exception=set_status_on_exception)

    @contextlib.contextmanager
    def start_as_current_span(self, name: str, context: Context | None = None,
                              kind: trace.SpanKind = trace.SpanKind.INTERNAL,
                              attributes: Attributes = None,
                              links: Sequence[trace.Link] | None = None,
                              start_time: int | None = None, record_exception: bool = True,
                              set_status_on_exception: bool = True,
                              end_on_exit: bool = True) -> Iterator[trace.Span]:
        span = self.start_span(name, context, kind, attributes, links, start_time,
                               record_exception, set_status_on_exception)
        with trace.use_span(span, end_on_exit=end_on_exit, record_exception=record_exception,
                            set_status_on_exception=set_status_on_exception) as current:
            yield current


class SimulatedTracerProvider(TracerProvider):
    """The SDK's tracer provider on the simulated clock, with seeded ids.

    Its tracers stamp span starts, ends and events with ``clock`` wherever
    the caller gives no time, and its ids come from ``seed``: the same orders
    give the same spans, times and ids on every run. Span processors and
    exporters are the SDK's own (``add_span_processor``).
    """

    def __init__(self, clock: Clock, seed: int, **kwargs: Any) -> None:
        super().__init__(id_generator=SeededIds(f"traces:{seed}"), **kwargs)
        self.clock = clock

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return _ClockTracer(super().get_tracer(*args, **kwargs), self.clock)


def install_tracer_provider(provider: TracerProvider) -> None:
    """Makes ``provider`` the one behind the application's tracers.

    The API accepts one global provider per process and ignores a second one
    with a warning; the application's spans would then go to the first one
    and rows would be missing without an error. Refuse instead.
    """
    trace.set_tracer_provider(provider)
    if trace.get_tracer_provider() is not provider:
        raise RuntimeError("another OpenTelemetry tracer provider is already installed in "
                           "this process: run one simulation per process")


_THIS_FILE = sys._getframe().f_code.co_filename
_CONTEXTLIB = contextlib.__file__
_OPENTELEMETRY = os.path.dirname(os.path.dirname(os.path.abspath(trace.__file__))) + os.sep


def span_site() -> tuple[str, str, int] | None:
    """(file, function, line) of the application code starting the current span.

    Walks out of the SDK, contextlib and this module. A span a decorator
    starts (``@tracer.start_as_current_span(...)``) begins before the
    decorated function runs, in the wrapper contextlib gives it: its site is
    that function, at its first decorator's line. A span of a ``with``
    statement is at the statement's first line, where Python is when it
    enters the span.
    """
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_filename == _CONTEXTLIB:
            if code.co_name == "inner" and callable(frame.f_locals.get("func")):
                func = inspect.unwrap(frame.f_locals["func"]).__code__
                return func.co_filename, func.co_name, func.co_firstlineno
        elif code.co_filename != _THIS_FILE and not code.co_filename.startswith(_OPENTELEMETRY):
            return code.co_filename, code.co_name, frame.f_lineno
        frame = frame.f_back
    return None


class SpanOrigin(SpanProcessor):
    """Sets on every span, as it starts, the order it belongs to (``case.id``)
    and the code that started it (``code.file.path``, ``code.function.name``,
    ``code.line.number``), as the logging handlers give log records.

    Registered first, so that the processors after it (the CSV rows, the
    OTLP exporters) find them.
    """

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        attrs: dict[str, Any] = {}
        case_id = current_order_id.get()
        if case_id is not None:
            attrs[CASE] = case_id
        site = span_site()
        if site is not None:
            attrs[CODE_FILE], attrs[CODE_FUNCTION], attrs[CODE_LINE] = site
        span.set_attributes(attrs)


# --- the simulated world ------------------------------------------------------

_FIRST = ("Ava", "Liam", "Noah", "Emma", "Mia", "Lucas", "Zoe", "Omar", "Priya", "Chen", "Sofia",
          "Mateo", "Hana", "Ethan", "Fatima", "Jonas", "Grace", "Ravi", "Nora", "Diego")
_LAST = ("Nguyen", "Smith", "Garcia", "Okafor", "Kowalski", "Patel", "Johnson", "Silva", "Kim",
         "Müller", "Brown", "Haddad", "Rossi", "Tanaka", "Walker", "Dubois")
_CITIES = (
    ("Seattle", "WA", "98101", "US"), ("Portland", "OR", "97205", "US"),
    ("San Francisco", "CA", "94107", "US"), ("Denver", "CO", "80202", "US"),
    ("Austin", "TX", "78701", "US"), ("Chicago", "IL", "60607", "US"),
    ("New York", "NY", "10013", "US"), ("Boston", "MA", "02116", "US"),
    ("Columbus", "OH", "43215", "US"), ("Toronto", "ON", "M5V 2T6", "CA"),
    ("Vancouver", "BC", "V6B 1A1", "CA"), ("London", "", "EC1V 9HX", "GB"),
    ("Manchester", "", "M1 1AE", "GB"),
)
_STREETS = ("Pine St", "Market St", "Oak Ave", "King St W", "Elm Rd", "High St", "Main St")


def _address(rng: random.Random, name: str) -> Address:
    city, region, postal, country = rng.choice(_CITIES)
    return Address(name, f"{rng.randint(1, 999)} {rng.choice(_STREETS)}", city, region, postal, country)


def build_customers(rng: random.Random, count: int = 240) -> list[Customer]:
    customers = []
    for n in range(count):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        domain = "oldmail.invalid" if rng.random() < 0.03 else rng.choice(
            ("example.com", "mail.example.net", "example.org"))
        phone = None
        if rng.random() < 0.45:
            prefix = "+1555" if rng.random() < 0.08 else "+1415"
            phone = f"{prefix}{rng.randrange(10**6, 10**7)}"
        customers.append(Customer(
            id=f"cus_{n + 1:05d}",
            email=f"{first.lower()}.{last.lower()}{rng.randint(1, 99)}@{domain}",
            phone=phone,
            address=_address(rng, f"{first} {last}"),
            tier=rng.choices(list(CustomerTier), weights=(75, 18, 7))[0],
            orders_placed=0 if rng.random() < 0.35 else rng.randint(1, 25),
            chargebacks=rng.choice((1, 2)) if rng.random() < 0.04 else 0,
            sms_opt_in=phone is not None and rng.random() < 0.8,
        ))
    return customers


def build_warehouses(rng: random.Random) -> list[Warehouse]:
    warehouses = []
    for code, country in (("SEA1", "US"), ("CMH1", "US"), ("LHR1", "GB")):
        stock = {}
        for product in CATALOG:
            if product.backorderable:
                units = rng.randint(0, 7)
            elif product.sku in SCARCE:
                units = rng.randint(12, 24)
            else:
                units = rng.randint(25, 110)
            stock[product.sku] = units // 3 if country == "GB" else units
        warehouses.append(Warehouse(code, country, on_hand=stock))
    return warehouses


@dataclass
class Application:
    api: OrderApi
    service: OrderService
    worker: Worker
    inventory: InventoryService


def build_application(settings: Settings, clock: SimulatedClock, seed: int,
                      customers: list[Customer]) -> Application:
    """Wire the service against fake backends, all seeded from ``seed``."""
    ids = IdFactory(seed)
    inventory = InventoryService(build_warehouses(random.Random(f"stock:{seed}")),
                                 allow_backorders=settings.allow_backorders, clock=clock)
    worker = Worker(retry=settings.job_retry, clock=clock, seed=seed)
    card_backend = FakeGatewayBackend("cardnet", seed=seed, clock=clock, outages=[CARD_OUTAGE])
    gateways = [CardGateway(card_backend, clock=clock),
                WalletGateway(FakeGatewayBackend("paywallet", seed=seed, clock=clock,
                                                 decline_rate=0.02, timeout_rate=0.02), clock=clock)]
    notifiers = [EmailNotifier(FakeTransport("mailer", seed=seed, failure_rate=0.01))]
    if settings.sms_enabled:
        notifiers.append(SmsNotifier(FakeTransport("sms", seed=seed, failure_rate=0.03)))
    service = OrderService(
        settings=settings, repo=OrderRepository(), customers=CustomerDirectory(customers),
        inventory=inventory, pricing=PriceCalculator.from_settings(settings),
        fraud=FraudScorer(settings, clock=clock),
        payments=PaymentService(gateways, settings, ids, clock=clock, seed=seed),
        shipping=ShippingService(CarrierSelector(), CarrierBackend(ids, seed=seed, clock=clock,
                                                                   outages=[LABEL_OUTAGE]),
                                 inventory, ids, clock=clock),
        notifications=NotificationService(notifiers), scheduler=worker, ids=ids, clock=clock)
    install_order_jobs(worker, service)
    return Application(OrderApi(service, clock=clock), service, worker, inventory)


class Shoppers:
    """Drives the API the way the storefront, customers and analysts do."""

    _COUPONS = ("WELCOME10", "DESK50", "SHIPFREE", "SPRING15", "VIP20", "FREESHIP")
    _ANALYSTS = ("analyst.kim", "analyst.okafor", "analyst.rossi")
    _REASONS = ("ordered by mistake", "found a better price", "delivery too slow", "changed my mind")

    def __init__(self, app: Application, customers: list[Customer], clock: SimulatedClock,
                 rng: random.Random) -> None:
        self.app = app
        self.customers = customers
        self.regulars = customers[:12]
        self.clock = clock
        self.rng = rng
        self._agenda: list[tuple[datetime, int, Callable[..., None], tuple[Any, ...]]] = []
        self._seq = itertools.count()

    def later(self, delay: timedelta, action: Callable[..., None], *args: Any) -> None:
        heapq.heappush(self._agenda, (self.clock.now() + delay, next(self._seq), action, args))

    def run(self, orders: int, mean_gap_s: float = 40.0) -> None:
        at = START
        for n in range(orders):
            at += timedelta(seconds=self.rng.expovariate(1.0 / mean_gap_s))
            heapq.heappush(self._agenda, (at, next(self._seq), self.checkout, (n,)))
        for hours in range(2, int((at - START) / timedelta(hours=1)) + 24, 2):
            heapq.heappush(self._agenda, (START + timedelta(hours=hours), next(self._seq),
                                          self.replenish, ()))
        heapq.heappush(self._agenda, (DLQ_REPLAY_AT, next(self._seq),
                                      self.app.worker.requeue_dead_letters, ()))
        while self._agenda:
            self.app.worker.run_until(self._agenda[0][0])
            due, _, action, args = heapq.heappop(self._agenda)
            self.clock.advance_to(due)
            action(*args)
        self.app.worker.run_until(None)

    def _minutes(self, low: float, high: float) -> timedelta:
        return timedelta(minutes=self.rng.uniform(low, high))

    def _token(self, method: str) -> str:
        suffix = "".join(self.rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(10))
        roll = self.rng.random()
        if method == "wallet":
            return f"wt_stale_{suffix}" if roll < 0.05 else f"wt_{suffix}"
        return f"pm_expired_{suffix}" if roll < 0.02 else \
            f"pm_prepaid_{suffix}" if roll < 0.09 else f"pm_card_{suffix}"

    def checkout(self, n: int) -> None:
        rng = self.rng
        customer = rng.choice(self.regulars if rng.random() < 0.12 else self.customers)
        skus = rng.sample([p.sku for p in CATALOG], k=rng.choices((1, 2, 3, 4), (45, 30, 17, 8))[0])
        items = [{"sku": sku, "quantity": rng.choices((1, 2, 3), (85, 12, 3))[0]} for sku in skus]
        method = "wallet" if rng.random() < 0.3 else "card"
        body: dict[str, Any] = {"customer_id": customer.id, "items": items,
                                "payment_method": method, "payment_token": self._token(method)}
        roll = rng.random()
        if roll < 0.01:
            items[0]["sku"] = "KB-105"
        elif roll < 0.015:
            items[0]["quantity"] = 0
        elif roll < 0.02:
            del body["payment_token"]
        elif roll < 0.03:
            body["shipping_address"] = {"name": "Jo Bloggs", "line1": "1 George St",
                                        "city": "Sydney", "postal_code": "2000", "country": "AU"}
        elif roll < 0.13:
            body["shipping_address"] = vars(_address(rng, customer.address.name))
        if rng.random() < 0.18:
            body["coupon_code"] = rng.choice(self._COUPONS)
        headers = {"Idempotency-Key": f"checkout-{n:06d}"}
        response = self.app.api.handle("POST", "/orders", body, headers)
        if rng.random() < 0.02:
            self.later(timedelta(seconds=rng.uniform(2, 9)), self.replay, body, headers)
        self.follow_up(response.status, response.body)

    def follow_up(self, status: int, body: dict[str, Any]) -> None:
        order_id = body.get("order_id")
        if order_id is None:
            return
        rng = self.rng
        if status == 402 and rng.random() < 0.7:
            self.later(self._minutes(3, 90), self.update_payment, order_id)
        elif status == 202:
            self.later(self._minutes(20, 360), self.review, order_id, rng.random() < 0.7)
        elif status == 201:
            if rng.random() < 0.06:
                self.later(self._minutes(2, 45), self.cancel, order_id)
            elif rng.random() < 0.04:
                self.later(timedelta(days=rng.uniform(6, 14)), self.request_return, order_id)
            if rng.random() < 0.15:
                self.later(timedelta(days=rng.uniform(1, 4)), self.check_status, order_id)

    def replenish(self) -> None:
        """Supplier deliveries: scarce products come in small batches, the rest in cases."""
        for warehouse in self.app.inventory.warehouses.values():
            for product in CATALOG:
                available = warehouse.available(product.sku)
                if product.sku in SCARCE and available < 4:
                    self.app.inventory.receive(warehouse.code, product.sku, self.rng.randint(6, 12))
                elif not product.backorderable and product.sku not in SCARCE and available < 12:
                    self.app.inventory.receive(warehouse.code, product.sku, self.rng.randint(30, 60))

    def replay(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        self.app.api.handle("POST", "/orders", body, headers)

    def update_payment(self, order_id: str) -> None:
        method = "wallet" if self.rng.random() < 0.4 else "card"
        response = self.app.api.handle("POST", f"/orders/{order_id}/payment",
                                       {"payment_method": method, "payment_token": self._token(method)})
        if response.status == 402 and self.rng.random() < 0.4:
            self.later(self._minutes(5, 60), self.update_payment, order_id)
        else:
            self.follow_up(response.status, response.body)

    def review(self, order_id: str, approve: bool) -> None:
        decision = "approve" if approve else "deny"
        response = self.app.api.handle("POST", f"/orders/{order_id}/review",
                                       {"decision": decision, "analyst": self.rng.choice(self._ANALYSTS)})
        if response.status >= 500:
            self.later(self._minutes(5, 15), self.review, order_id, approve)

    def cancel(self, order_id: str) -> None:
        self.app.api.handle("POST", f"/orders/{order_id}/cancel",
                            {"reason": self.rng.choice(self._REASONS)})

    def request_return(self, order_id: str) -> None:
        self.app.api.handle("POST", f"/orders/{order_id}/return", {"reason": "damaged in transit"})

    def check_status(self, order_id: str) -> None:
        self.app.api.handle("GET", f"/orders/{order_id}")


# --- entry point ----------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python3 -m orderflow.simulate", description=__doc__.split("\n")[0])
    parser.add_argument("--orders", type=int, default=500, help="number of checkouts (default 500)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--out", type=Path, required=True, help="CSV event log to write")
    parser.add_argument("--level", default="DEBUG", choices=("DEBUG", "INFO", "WARNING"),
                        help="lowest log level recorded (default DEBUG)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.orders < 1:
        print("--orders must be positive", file=sys.stderr)
        return 2
    wall_start = time.perf_counter()
    clock = SimulatedClock(START, seed=args.seed)
    set_clock(clock)
    provider = SimulatedTracerProvider(clock, args.seed)
    install_tracer_provider(provider)
    settings = Settings.from_env()

    with open(args.out, "w", newline="", encoding="utf-8") as stream:
        writer = EventLogWriter(stream)
        handler = CsvLogHandler(writer, clock)
        provider.add_span_processor(SpanOrigin())
        provider.add_span_processor(CsvSpanProcessor(writer))
        root = logging.getLogger("orderflow")
        root.setLevel(args.level)
        root.addHandler(handler)
        root.propagate = False
        try:
            rng = random.Random(f"shoppers:{args.seed}")
            customers = build_customers(random.Random(f"customers:{args.seed}"))
            app = build_application(settings, clock, args.seed, customers)
            Shoppers(app, customers, clock, rng).run(args.orders)
        finally:
            root.removeHandler(handler)
            provider.shutdown()
            writer.flush()

    statuses: dict[str, int] = {}
    for order in app.service.repo:
        statuses[order.status.value] = statuses.get(order.status.value, 0) + 1
    levels = ", ".join(f"{k} {v}" for k, v in sorted(writer.by_level.items()))
    print(f"orderflow simulation: {args.orders} orders, seed {args.seed} -> {args.out}")
    print(f"  cases:                   {len(writer.cases)}")
    print(f"  events:                  {writer.rows} ({levels})")
    print(f"  distinct activities:     {len(writer.activities)}")
    print(f"  distinct emitting lines: {len(writer.sites)}")
    print(f"  records outside a case:  {handler.unattributed}")
    print(f"  final order status:      " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    print(f"  jobs: {app.worker.stats.executed} run, {app.worker.stats.retried} retried, "
          f"{app.worker.stats.dead_lettered} dead-lettered")
    print(f"  simulated time:          {START:%Y-%m-%d %H:%M} .. {clock.now():%Y-%m-%d %H:%M} UTC")
    print(f"  wall time:               {time.perf_counter() - wall_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
