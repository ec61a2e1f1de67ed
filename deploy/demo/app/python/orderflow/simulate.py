"""Workload simulator: runs seeded orders through the service, writes an event log.

    python3 -m orderflow.simulate --orders 500 --seed 7 --out events.csv

Every order is one case. Log records and spans (starts and span events) are
written to a CSV event log with the columns

    case_id,timestamp,activity,level,logger,code.filepath,code.function,code.lineno

where ``timestamp`` comes from a simulated clock, so the output depends only
on ``--orders`` and ``--seed``. Customer behaviour (abandoned payments,
cancellations, returns, analyst decisions) is simulated here; declines,
timeouts, label failures and delivery delays come from the fake backends.
"""

from __future__ import annotations

import argparse
import csv
import heapq
import itertools
import logging
import os
import random
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, TextIO

from .api import OrderApi
from .clock import SimulatedClock, TimeWindow, set_clock
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
from .tracing import Span, SpanEvent, TracerProvider, set_tracer_provider
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
    """Writes event-log rows (RFC 4180 CSV) and keeps summary statistics."""

    HEADER = ("case_id", "timestamp", "activity", "level", "logger",
              "code.filepath", "code.function", "code.lineno")

    def __init__(self, stream: TextIO, root: Path = PYTHON_ROOT) -> None:
        self._csv = csv.writer(stream)
        self._csv.writerow(self.HEADER)
        self._root = root
        self._paths: dict[str, str] = {}
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
        self._csv.writerow((case_id, at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), activity, level, logger,
                            filepath, function, lineno))
        self.rows += 1
        self.by_level[level] = self.by_level.get(level, 0) + 1
        self.cases.add(case_id)
        self.activities.add(activity)
        self.sites.add((filepath, lineno))


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


class CsvSpanProcessor:
    """Turns span starts and span events into rows, the way an OTLP export would.

    Span events carry the code location of their span (``event_site="span"``,
    as OTLP does) or of the ``add_event`` call (``event_site="call"``).
    """

    def __init__(self, writer: EventLogWriter, *, event_site: str = "span") -> None:
        self.writer = writer
        self.event_site = event_site

    def on_start(self, span: Span) -> None:
        case_id = current_order_id.get()
        if case_id is not None:
            loc = span.location
            self.writer.write(case_id, span.start_time, span.name, "SPAN", span.tracer.name,
                              loc.filepath, loc.function, loc.lineno)

    def on_event(self, span: Span, event: SpanEvent) -> None:
        case_id = current_order_id.get()
        if case_id is not None:
            loc = span.location if self.event_site == "span" else event.location
            self.writer.write(case_id, event.timestamp, event.name, "EVENT", span.tracer.name,
                              loc.filepath, loc.function, loc.lineno)

    def on_end(self, span: Span) -> None:
        pass


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
    parser.add_argument("--event-site", default="span", choices=("span", "call"),
                        help="code location of span events: their span's start (as OTLP) "
                             "or the add_event call")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.orders < 1:
        print("--orders must be positive", file=sys.stderr)
        return 2
    wall_start = time.perf_counter()
    clock = SimulatedClock(START, seed=args.seed)
    set_clock(clock)
    provider = TracerProvider(clock=clock, seed=f"traces:{args.seed}")
    set_tracer_provider(provider)
    settings = Settings.from_env()

    with open(args.out, "w", newline="", encoding="utf-8") as stream:
        writer = EventLogWriter(stream)
        handler = CsvLogHandler(writer, clock)
        provider.add_span_processor(CsvSpanProcessor(writer, event_site=args.event_site))
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
