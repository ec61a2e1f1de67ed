"""Order pricing: subtotal, coupons, shipping and sales tax."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import ROUND_HALF_EVEN, Decimal
from opentelemetry import trace

from .clock import Clock, get_clock
from .config import Settings
from .models import Address, CustomerTier, Order, PriceQuote, format_money

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


@dataclass(frozen=True)
class Coupon:
    code: str
    kind: str  # "percent", "fixed" or "free_shipping"
    value: int  # percent, or cents for "fixed"
    min_subtotal_cents: int = 0
    expires_at: datetime | None = None
    first_order_only: bool = False


COUPONS: dict[str, Coupon] = {c.code: c for c in (
    Coupon("WELCOME10", "percent", 10, first_order_only=True),
    Coupon("DESK50", "fixed", 5_000, min_subtotal_cents=40_000),
    Coupon("SHIPFREE", "free_shipping", 0, min_subtotal_cents=2_500),
    Coupon("SPRING15", "percent", 15, min_subtotal_cents=10_000,
           expires_at=datetime(2024, 3, 1, tzinfo=timezone.utc)),
    Coupon("VIP20", "percent", 20, min_subtotal_cents=20_000),
)}

#: Combined sales tax / VAT rates by region code; unknown US states use 0.
TAX_RATES: dict[str, Decimal] = {
    "US-CA": Decimal("0.0725"), "US-WA": Decimal("0.065"), "US-NY": Decimal("0.04"),
    "US-TX": Decimal("0.0625"), "US-IL": Decimal("0.0625"), "US-MA": Decimal("0.0625"),
    "US-CO": Decimal("0.029"), "US-OR": Decimal("0"), "CA-ON": Decimal("0.13"),
    "CA-BC": Decimal("0.12"), "CA-QC": Decimal("0.14975"), "GB": Decimal("0.20"),
}


class CouponRejected(Exception):
    """A coupon that exists but does not apply; the order goes ahead without it."""


class PriceCalculator:
    def __init__(self, settings: Settings, coupons: dict[str, Coupon] | None = None, *,
                 clock: Clock | None = None) -> None:
        self.settings = settings
        self.coupons = COUPONS if coupons is None else coupons
        self.clock = clock or get_clock()

    @classmethod
    def from_settings(cls, settings: Settings) -> PriceCalculator:
        return cls(settings)

    @staticmethod
    def round_cents(amount: Decimal) -> int:
        return int(amount.quantize(Decimal("1"), rounding=ROUND_HALF_EVEN))

    @tracer.start_as_current_span("pricing.quote")
    def quote(self, order: Order) -> PriceQuote:
        subtotal = sum(item.total_cents for item in order.items)
        discount, free_shipping, applied = 0, False, None
        if order.coupon_code:
            try:
                discount, free_shipping = self._apply_coupon(order, subtotal)
                applied = order.coupon_code
            except CouponRejected as exc:
                logger.warning("coupon %s not applied to order %s: %s",
                               order.coupon_code, order.id, exc)
        shipping = 0 if free_shipping else self._shipping(order, subtotal - discount)
        rate = self.tax_rate(order.shipping_address)
        tax = self.round_cents(Decimal(subtotal - discount + shipping) * rate)
        quote = PriceQuote(subtotal, discount, shipping, tax, applied)
        trace.get_current_span().set_attributes({"order.subtotal_cents": subtotal,
                                                 "order.total_cents": quote.total_cents})
        logger.info("priced order %s: subtotal %s, discount %s, shipping %s, tax %s, total %s",
                    order.id, format_money(subtotal), format_money(discount),
                    format_money(shipping), format_money(tax), format_money(quote.total_cents))
        return quote

    def _apply_coupon(self, order: Order, subtotal: int) -> tuple[int, bool]:
        coupon = self.coupons.get(order.coupon_code.upper())
        if coupon is None:
            raise CouponRejected("unknown code")
        if coupon.expires_at and self.clock.now() >= coupon.expires_at:
            raise CouponRejected(f"expired on {coupon.expires_at:%Y-%m-%d}")
        if subtotal < coupon.min_subtotal_cents:
            raise CouponRejected("minimum spend of {} not reached".format(
                format_money(coupon.min_subtotal_cents)))
        if coupon.first_order_only and order.customer.orders_placed > 0:
            raise CouponRejected("only valid on a first order")
        if coupon.kind == "percent":
            discount = self.round_cents(Decimal(subtotal) * coupon.value / 100)
        elif coupon.kind == "fixed":
            discount = min(subtotal, coupon.value)
        else:
            discount = 0
        logger.debug("coupon %s takes %s off order %s", coupon.code, format_money(discount), order.id)
        return discount, coupon.kind == "free_shipping"

    def _shipping(self, order: Order, net_subtotal: int) -> int:
        if order.customer.tier is not CustomerTier.STANDARD:
            return 0
        if net_subtotal >= self.settings.free_shipping_threshold_cents and \
                order.shipping_address.country == "US":
            return 0
        kilos = max(1, -(-order.weight_grams // 1000))
        base = 599 if order.shipping_address.country == "US" else 1_999
        return base + 150 * (kilos - 1)

    def tax_rate(self, address: Address) -> Decimal:
        rate = TAX_RATES.get(address.region_code, TAX_RATES.get(address.country, Decimal("0")))
        logger.debug(f"tax rate for {address.region_code} is {rate:.4%}")
        return rate
