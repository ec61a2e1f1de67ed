"""Shipment planning, carrier selection, labels and tracking."""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable, Sequence
from opentelemetry import trace

from .clock import Clock, TimeWindow, get_clock
from .errors import LABEL_FAILED, SHIPMENT_DELAYED, LabelServiceError, ShippingError
from .inventory import InventoryService
from .log import log_event, timed
from .models import Address, Backorder, IdFactory, Order, Shipment, ShipmentStatus

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


@dataclass(frozen=True)
class CarrierService:
    carrier: str
    service: str
    countries: frozenset[str]
    max_weight_grams: int
    base_cents: int
    per_kg_cents: int
    transit_days: int

    @property
    def code(self) -> str:
        return f"{self.carrier}_{self.service}"


CARRIER_SERVICES: tuple[CarrierService, ...] = (
    CarrierService("usps", "priority", frozenset({"US"}), 30_000, 895, 120, 3),
    CarrierService("ups", "ground", frozenset({"US", "CA"}), 68_000, 1_050, 90, 4),
    CarrierService("fedex", "2day", frozenset({"US"}), 68_000, 1_790, 160, 2),
    CarrierService("canadapost", "expedited", frozenset({"CA"}), 30_000, 1_290, 140, 4),
    CarrierService("royalmail", "tracked48", frozenset({"GB"}), 20_000, 450, 80, 2),
    CarrierService("dhl", "express", frozenset({"US", "CA", "GB"}), 70_000, 2_490, 310, 3),
    CarrierService("dhl", "freight", frozenset({"US", "CA", "GB"}), 1_000_000, 14_900, 60, 7),
)


@dataclass(frozen=True)
class TrackingUpdate:
    status: ShipmentStatus
    location: str
    detail: str = ""


@dataclass
class _Route:
    dispatched_at: datetime
    delivered_at: datetime
    delay_at: datetime | None
    delay_reason: str | None


class CarrierBackend:
    """Fake multi-carrier API (label purchase and tracking) for simulations.

    Label purchases fail at ``failure_rate``, and always during ``outages``
    (the aggregator we buy labels through is down for every carrier at once).
    """

    _HUBS = ("origin facility", "regional hub", "sort center", "destination facility")
    _DELAYS = ("weather disruption", "sorting backlog", "address needs verification",
               "vehicle breakdown")

    def __init__(self, ids: IdFactory, *, seed: int | str | None = None, clock: Clock | None = None,
                 failure_rate: float = 0.05, delay_rate: float = 0.12,
                 outages: Sequence[TimeWindow] = ()) -> None:
        self.ids = ids
        self.clock = clock or get_clock()
        self.failure_rate = failure_rate
        self.delay_rate = delay_rate
        self.outages = tuple(outages)
        self._rng = random.Random(None if seed is None else f"carriers:{seed}")
        self._routes: dict[str, _Route] = {}

    def buy_label(self, shipment: Shipment, service: CarrierService) -> str:
        self.clock.sleep(self._rng.uniform(0.2, 1.4))
        now = self.clock.now()
        if any(now in window for window in self.outages) or self._rng.random() < self.failure_rate:
            raise LabelServiceError(f"{service.carrier} label API returned 503",
                                    order_id=shipment.order_id)
        return self.ids.tracking_number(service.carrier)

    def dispatch(self, tracking_number: str, service: CarrierService) -> None:
        now = self.clock.now()
        transit = timedelta(days=service.transit_days, hours=self._rng.uniform(-10, 14))
        delay_at = reason = None
        if self._rng.random() < self.delay_rate:
            delay_at = now + transit * self._rng.uniform(0.3, 0.8)
            reason = self._rng.choice(self._DELAYS)
            transit += timedelta(hours=self._rng.uniform(20, 72))
        self._routes[tracking_number] = _Route(now, now + transit, delay_at, reason)

    def track(self, tracking_number: str) -> TrackingUpdate:
        route = self._routes[tracking_number]
        now = self.clock.now()
        if now >= route.delivered_at:
            return TrackingUpdate(ShipmentStatus.DELIVERED, "front door")
        if route.delay_at is not None and now >= route.delay_at:
            return TrackingUpdate(ShipmentStatus.DELAYED, "regional hub", route.delay_reason or "")
        progress = (now - route.dispatched_at) / (route.delivered_at - route.dispatched_at)
        return TrackingUpdate(ShipmentStatus.IN_TRANSIT, self._HUBS[int(progress * len(self._HUBS))])


class CarrierSelector:
    """Picks the cheapest carrier service that can take a parcel."""

    def __init__(self, services: Sequence[CarrierService] = CARRIER_SERVICES) -> None:
        self.services = tuple(services)

    @staticmethod
    def cost(service: CarrierService, weight_grams: int) -> int:
        return service.base_cents + service.per_kg_cents * max(0, weight_grams - 1) // 1000

    def candidates(self, country: str, weight_grams: int) -> list[CarrierService]:
        eligible = [s for s in self.services
                    if country in s.countries and weight_grams <= s.max_weight_grams]
        return sorted(eligible, key=lambda s: (self.cost(s, weight_grams), s.transit_days))


class ShippingService:
    def __init__(self, selector: CarrierSelector, carriers: CarrierBackend,
                 inventory: InventoryService, ids: IdFactory, *, clock: Clock | None = None) -> None:
        self.selector = selector
        self.carriers = carriers
        self.inventory = inventory
        self.ids = ids
        self.clock = clock or get_clock()
        self._services: dict[str, CarrierService] = {}

    def plan(self, order: Order) -> list[Shipment]:
        """One shipment per warehouse holding a reservation for the order."""
        by_warehouse: dict[str, dict[str, int]] = defaultdict(dict)
        for res in order.reservations:
            lines = by_warehouse[res.warehouse]
            lines[res.sku] = lines.get(res.sku, 0) + res.quantity
        shipments = [self._new_shipment(order, code, lines) for code, lines in by_warehouse.items()]
        if len(shipments) > 1:
            logger.info("order %s split into %d shipments (%s)", order.id, len(shipments),
                        ", ".join(s.warehouse for s in shipments))
        return shipments

    def plan_backorder(self, order: Order, backorder: Backorder) -> Shipment:
        return self._new_shipment(order, backorder.warehouse, {backorder.sku: backorder.quantity})

    def _new_shipment(self, order: Order, warehouse: str, lines: dict[str, int]) -> Shipment:
        weights = {item.sku: item.weight_grams for item in order.items}
        weight = sum(weights[sku] * qty for sku, qty in lines.items())
        return Shipment(self.ids.new("shp"), order.id, warehouse, sorted(lines.items()), weight)

    def buy_label(self, shipment: Shipment, address: Address) -> None:
        """Buy a label from the cheapest carrier, falling back to the next one."""
        with tracer.start_as_current_span("shipping.buy_label", kind=trace.SpanKind.CLIENT) as span:
            candidates = self.selector.candidates(address.country, shipment.weight_grams)
            if not candidates:
                raise ShippingError(f"no carrier ships {shipment.weight_grams} g to {address.country}",
                                    order_id=shipment.order_id)
            for service in candidates[:2]:
                try:
                    with timed(logger, f"label purchase from {service.carrier}", slow_ms=1200):
                        tracking = self.carriers.buy_label(shipment, service)
                except LabelServiceError as exc:
                    log_event(logger, LABEL_FAILED, shipment.id, service.carrier, exc,
                              level=logging.WARNING)
                    span.add_event("label.fallback", {"failed_carrier": service.carrier})
                    continue
                shipment.carrier, shipment.service = service.carrier, service.service
                shipment.tracking_number = tracking
                shipment.status = ShipmentStatus.LABELLED
                self._services[tracking] = service
                span.set_attribute("shipping.carrier", service.code)
                logger.info("label %s bought from {} for shipment %s".format(service.code),
                            tracking, shipment.id)
                return
            raise LabelServiceError("all carriers failed to issue a label",
                                    order_id=shipment.order_id)

    def void_labels(self, shipments: Iterable[Shipment]) -> None:
        for shipment in shipments:
            if shipment.status is ShipmentStatus.LABELLED:
                shipment.status = ShipmentStatus.VOIDED
                logger.info("voided label %s of shipment %s", shipment.tracking_number, shipment.id)

    def dispatch(self, shipment: Shipment) -> None:
        """Hand the parcel to the carrier; stock is committed at this point."""
        if shipment.tracking_number is None:
            raise ShippingError(f"shipment {shipment.id} has no label", order_id=shipment.order_id)
        self.inventory.commit(shipment)
        self.carriers.dispatch(shipment.tracking_number, self._services[shipment.tracking_number])
        shipment.status = ShipmentStatus.IN_TRANSIT
        shipment.shipped_at = self.clock.now()
        trace.get_current_span().add_event("shipment.dispatched", {"shipment.id": shipment.id})
        logger.info("shipment %s left %s with %s, tracking %s", shipment.id, shipment.warehouse,
                    shipment.carrier, shipment.tracking_number)

    def poll(self, shipment: Shipment) -> bool:
        """Refresh a shipment from the carrier; True once it is delivered."""
        update = self.carriers.track(shipment.tracking_number or "")
        previous, shipment.status = shipment.status, update.status
        if update.status is ShipmentStatus.DELIVERED:
            shipment.delivered_at = self.clock.now()
            logger.info("shipment %s delivered by %s", shipment.id, shipment.carrier)
            return True
        if update.status is ShipmentStatus.DELAYED and previous is not ShipmentStatus.DELAYED:
            log_event(logger, SHIPMENT_DELAYED, shipment.id, update.location, update.detail,
                      level=logging.WARNING)
        else:
            logger.debug("shipment %s %s at %s", shipment.id, update.status.value, update.location)
        return False
