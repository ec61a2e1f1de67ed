"""Domain model: orders, line items, payments, shipments.

The model holds no I/O. Services mutate these objects and take care of
persistence, logging and tracing; the one exception is the order state
machine, which logs its transitions because every service relies on it.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from .errors import InvalidTransition

logger = logging.getLogger(__name__)


class OrderStatus(str, Enum):
    PENDING = "pending"
    ON_HOLD = "on_hold"
    PAYMENT_FAILED = "payment_failed"
    CONFIRMED = "confirmed"
    FULFILLING = "fulfilling"
    PARTIALLY_SHIPPED = "partially_shipped"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    RETURNED = "returned"
    CANCELLED = "cancelled"
    REJECTED = "rejected"

    @property
    def is_terminal(self) -> bool:
        return self in (OrderStatus.RETURNED, OrderStatus.CANCELLED, OrderStatus.REJECTED)

    @property
    def is_cancellable(self) -> bool:
        return self in (OrderStatus.PENDING, OrderStatus.ON_HOLD,
                        OrderStatus.PAYMENT_FAILED, OrderStatus.CONFIRMED)


_TRANSITIONS: dict[OrderStatus, frozenset[OrderStatus]] = {
    OrderStatus.PENDING: frozenset({OrderStatus.ON_HOLD, OrderStatus.PAYMENT_FAILED,
                                    OrderStatus.CONFIRMED, OrderStatus.REJECTED,
                                    OrderStatus.CANCELLED}),
    OrderStatus.PAYMENT_FAILED: frozenset({OrderStatus.ON_HOLD, OrderStatus.CONFIRMED,
                                           OrderStatus.CANCELLED}),
    OrderStatus.ON_HOLD: frozenset({OrderStatus.CONFIRMED, OrderStatus.REJECTED,
                                    OrderStatus.CANCELLED}),
    OrderStatus.CONFIRMED: frozenset({OrderStatus.FULFILLING, OrderStatus.CANCELLED}),
    OrderStatus.FULFILLING: frozenset({OrderStatus.CONFIRMED, OrderStatus.PARTIALLY_SHIPPED,
                                       OrderStatus.SHIPPED}),
    OrderStatus.PARTIALLY_SHIPPED: frozenset({OrderStatus.SHIPPED}),
    OrderStatus.SHIPPED: frozenset({OrderStatus.DELIVERED}),
    OrderStatus.DELIVERED: frozenset({OrderStatus.RETURNED}),
}


class PaymentMethod(str, Enum):
    CARD = "card"
    WALLET = "wallet"


class PaymentStatus(str, Enum):
    PENDING = "pending"
    AUTHORIZED = "authorized"
    CAPTURED = "captured"
    DECLINED = "declined"
    VOIDED = "voided"
    REFUNDED = "refunded"
    FAILED = "failed"


class ShipmentStatus(str, Enum):
    PLANNED = "planned"
    LABELLED = "labelled"
    IN_TRANSIT = "in_transit"
    DELAYED = "delayed"
    DELIVERED = "delivered"
    VOIDED = "voided"


class CustomerTier(str, Enum):
    STANDARD = "standard"
    PLUS = "plus"
    BUSINESS = "business"


@dataclass(frozen=True)
class Address:
    name: str
    line1: str
    city: str
    region: str
    postal_code: str
    country: str

    @property
    def region_code(self) -> str:
        return f"{self.country}-{self.region}" if self.region else self.country


@dataclass
class Customer:
    id: str
    email: str
    phone: str | None
    address: Address
    tier: CustomerTier = CustomerTier.STANDARD
    orders_placed: int = 0
    chargebacks: int = 0
    sms_opt_in: bool = False

    @property
    def first_name(self) -> str:
        return self.address.name.split()[0]


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price_cents: int
    weight_grams: int
    category: str
    backorderable: bool = False


@dataclass
class LineItem:
    sku: str
    name: str
    quantity: int
    unit_price_cents: int
    weight_grams: int

    @property
    def total_cents(self) -> int:
        return self.unit_price_cents * self.quantity


@dataclass(frozen=True)
class Reservation:
    sku: str
    warehouse: str
    quantity: int


@dataclass
class Backorder:
    sku: str
    quantity: int
    warehouse: str
    expected_at: datetime


@dataclass(frozen=True)
class PriceQuote:
    subtotal_cents: int
    discount_cents: int
    shipping_cents: int
    tax_cents: int
    coupon_code: str | None = None

    @property
    def total_cents(self) -> int:
        return self.subtotal_cents - self.discount_cents + self.shipping_cents + self.tax_cents


@dataclass
class Payment:
    id: str
    order_id: str
    method: PaymentMethod
    amount_cents: int
    currency: str
    token: str
    status: PaymentStatus = PaymentStatus.PENDING
    gateway: str | None = None
    attempts: int = 0
    authorization_code: str | None = None
    captured_cents: int = 0
    refunded_cents: int = 0
    decline_reason: str | None = None


@dataclass
class Shipment:
    id: str
    order_id: str
    warehouse: str
    lines: list[tuple[str, int]]
    weight_grams: int
    carrier: str | None = None
    service: str | None = None
    tracking_number: str | None = None
    status: ShipmentStatus = ShipmentStatus.PLANNED
    shipped_at: datetime | None = None
    delivered_at: datetime | None = None


@dataclass
class Order:
    id: str
    customer: Customer
    items: list[LineItem]
    payment_method: PaymentMethod
    shipping_address: Address
    created_at: datetime
    currency: str = "USD"
    coupon_code: str | None = None
    status: OrderStatus = OrderStatus.PENDING
    quote: PriceQuote | None = None
    payments: list[Payment] = field(default_factory=list)
    reservations: list[Reservation] = field(default_factory=list)
    backorders: list[Backorder] = field(default_factory=list)
    shipments: list[Shipment] = field(default_factory=list)
    fraud_score: float | None = None
    needs_review: bool = False
    history: list[tuple[datetime, OrderStatus]] = field(default_factory=list)

    @property
    def payment(self) -> Payment | None:
        """The current payment attempt (the most recent one)."""
        return self.payments[-1] if self.payments else None

    @property
    def total_cents(self) -> int:
        return self.quote.total_cents if self.quote else 0

    @property
    def unit_count(self) -> int:
        return sum(item.quantity for item in self.items)

    @property
    def weight_grams(self) -> int:
        return sum(item.weight_grams * item.quantity for item in self.items)

    def transition(self, new_status: OrderStatus, at: datetime) -> None:
        """Move to ``new_status``, enforcing the order state machine."""
        if new_status not in _TRANSITIONS.get(self.status, frozenset()):
            raise InvalidTransition(
                f"cannot move order from {self.status.value} to {new_status.value}",
                order_id=self.id)
        logger.debug("order %s: %s -> %s", self.id, self.status.value, new_status.value)
        self.status = new_status
        self.history.append((at, new_status))


def format_money(cents: int, currency: str = "USD") -> str:
    """``12345`` -> ``"$123.45"``; other currencies use their ISO code."""
    symbol = {"USD": "$", "CAD": "CA$", "GBP": "£"}.get(currency)
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    amount = f"{whole:,}.{frac:02d}"
    return f"{sign}{symbol}{amount}" if symbol else f"{sign}{amount} {currency}"


class IdFactory:
    """Generates prefixed identifiers (``ord_8m2k...``) from a seedable source."""

    _ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case

    def __init__(self, seed: int | str | None = None) -> None:
        self._rng = random.Random(None if seed is None else f"ids:{seed}")

    def new(self, prefix: str, length: int = 12) -> str:
        body = "".join(self._rng.choice(self._ALPHABET) for _ in range(length))
        return f"{prefix}_{body}"

    def tracking_number(self, carrier: str) -> str:
        digits = "".join(str(self._rng.randrange(10)) for _ in range(16))
        return f"{carrier[:3].upper()}{digits}"
