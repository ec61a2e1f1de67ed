"""Stock levels, reservations and backorders across warehouses."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Iterable
from opentelemetry import trace

from .clock import Clock, get_clock
from .errors import BACKORDER_CREATED, STOCK_INSUFFICIENT, OutOfStockError, ValidationError
from .log import log_event
from .models import Address, Backorder, LineItem, Order, Product, Reservation, Shipment

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

CATALOG: tuple[Product, ...] = (
    Product("KB-104", "Mechanical keyboard, full size", 12_900, 1_150, "peripherals"),
    Product("KB-TKL", "Mechanical keyboard, tenkeyless", 10_900, 900, "peripherals"),
    Product("MS-ERG", "Ergonomic wireless mouse", 5_900, 140, "peripherals"),
    Product("MN-27Q", "27-inch QHD monitor", 32_900, 6_400, "displays", backorderable=True),
    Product("MN-34W", "34-inch ultrawide monitor", 64_900, 8_900, "displays", backorderable=True),
    Product("HS-ANC", "Noise-cancelling headset", 17_900, 320, "audio"),
    Product("MIC-USB", "USB condenser microphone", 9_900, 540, "audio"),
    Product("CM-4K", "4K webcam", 11_900, 210, "video"),
    Product("DK-USB4", "USB4 docking station", 24_900, 480, "peripherals", backorderable=True),
    Product("CB-C2C", "USB-C cable, 2 m", 1_500, 60, "accessories"),
    Product("HUB-7", "7-port powered USB hub", 3_900, 220, "accessories"),
    Product("LP-STD", "Aluminium laptop stand", 4_900, 1_300, "accessories"),
    Product("LMP-LED", "LED desk lamp", 4_500, 900, "lighting"),
    Product("SSD-2T", "2 TB NVMe SSD", 14_900, 40, "storage"),
    Product("DS-ELEC", "Electric standing desk frame", 49_900, 28_000, "furniture", backorderable=True),
    Product("CH-ERG", "Ergonomic office chair", 38_900, 19_500, "furniture", backorderable=True),
    Product("GC-050", "Gift card, $50", 5_000, 20, "gift_cards"),
    Product("GC-100", "Gift card, $100", 10_000, 20, "gift_cards"),
)

#: Which warehouses serve a destination, best first.
_ROUTING: dict[str, tuple[str, ...]] = {
    "west": ("SEA1", "CMH1"),
    "east": ("CMH1", "SEA1"),
    "CA": ("CMH1", "SEA1"),
    "GB": ("LHR1", "CMH1"),
}
_WEST_STATES = frozenset({"WA", "OR", "CA", "NV", "ID", "UT", "AZ", "CO", "MT", "NM"})


@dataclass
class Warehouse:
    code: str
    country: str
    on_hand: dict[str, int] = field(default_factory=dict)
    reserved: dict[str, int] = field(default_factory=dict)

    def available(self, sku: str) -> int:
        return self.on_hand.get(sku, 0) - self.reserved.get(sku, 0)


class InventoryService:
    """Reserves stock for orders and releases or commits it later."""

    def __init__(self, warehouses: Iterable[Warehouse], catalog: Iterable[Product] = CATALOG, *,
                 allow_backorders: bool = True, restock_lead_days: int = 6,
                 clock: Clock | None = None) -> None:
        self.warehouses = {w.code: w for w in warehouses}
        self.catalog = {p.sku: p for p in catalog}
        self.allow_backorders = allow_backorders
        self.restock_lead = timedelta(days=restock_lead_days)
        self.clock = clock or get_clock()

    def product(self, sku: str) -> Product:
        try:
            return self.catalog[sku]
        except KeyError:
            raise ValidationError("items", f"unknown sku {sku!r}") from None

    @staticmethod
    def zone_for(address: Address) -> str:
        if address.country == "US":
            return "west" if address.region in _WEST_STATES else "east"
        return address.country

    @tracer.start_as_current_span("inventory.reserve")
    def reserve(self, order: Order) -> None:
        """Reserve every line of ``order``, splitting across warehouses.

        Shortfalls of backorderable products become backorders; any other
        shortfall releases what was reserved and raises OutOfStockError.
        """
        span = trace.get_current_span()
        span.set_attribute("order.id", order.id)
        route = _ROUTING.get(self.zone_for(order.shipping_address), ("CMH1",))
        for item in order.items:
            remaining = item.quantity
            for code in route:
                warehouse = self.warehouses[code]
                take = min(remaining, warehouse.available(item.sku))
                if take <= 0:
                    continue
                warehouse.reserved[item.sku] = warehouse.reserved.get(item.sku, 0) + take
                order.reservations.append(Reservation(item.sku, code, take))
                remaining -= take
                if remaining == 0:
                    break
            if remaining:
                self._handle_shortfall(order, item, remaining, route[0])
        warehouses = sorted({r.warehouse for r in order.reservations})
        span.add_event("stock.reserved", {"warehouses": ",".join(warehouses),
                                          "backorders": len(order.backorders)})
        logger.info("reserved %d unit(s) for order %s from %s", order.unit_count - sum(
            b.quantity for b in order.backorders), order.id, "+".join(warehouses) or "no warehouse")

    def _handle_shortfall(self, order: Order, item: LineItem, missing: int, home: str) -> None:
        product = self.product(item.sku)
        if self.allow_backorders and product.backorderable:
            expected = self.clock.now() + self.restock_lead
            order.backorders.append(Backorder(item.sku, missing, home, expected))
            log_event(logger, BACKORDER_CREATED, item.sku, missing, expected.date().isoformat())
            return
        available = item.quantity - missing
        log_event(logger, STOCK_INSUFFICIENT, item.sku, item.quantity, available,
                  level=logging.WARNING)
        self.release(order, reason="out of stock")
        raise OutOfStockError(item.sku, item.quantity, available, order_id=order.id)

    def release(self, order: Order, *, reason: str) -> None:
        """Give back every reservation still held by ``order``."""
        if not order.reservations and not order.backorders:
            return
        for res in order.reservations:
            warehouse = self.warehouses[res.warehouse]
            warehouse.reserved[res.sku] = max(0, warehouse.reserved.get(res.sku, 0) - res.quantity)
        logger.info("released %d reservation(s) of order %s (%s)",
                    len(order.reservations), order.id, reason)
        order.reservations.clear()
        order.backorders.clear()

    def commit(self, shipment: Shipment) -> None:
        """Stock leaves the building: turn reservations into shipped units."""
        warehouse = self.warehouses[shipment.warehouse]
        for sku, quantity in shipment.lines:
            warehouse.on_hand[sku] = warehouse.on_hand.get(sku, 0) - quantity
            warehouse.reserved[sku] = max(0, warehouse.reserved.get(sku, 0) - quantity)
            if warehouse.on_hand[sku] < 0:
                logger.error("negative stock for %s at %s after shipment %s",
                             sku, warehouse.code, shipment.id)

    def receive(self, warehouse_code: str, sku: str, quantity: int) -> None:
        """Book an inbound delivery from a supplier."""
        warehouse = self.warehouses[warehouse_code]
        warehouse.on_hand[sku] = warehouse.on_hand.get(sku, 0) + quantity
        logger.info("received %d x %s at %s (on hand %d)", quantity, sku, warehouse_code,
                    warehouse.on_hand[sku])
