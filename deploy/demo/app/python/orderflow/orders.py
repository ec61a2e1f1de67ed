"""The order workflow.

:class:`OrderService` orchestrates checkout (validate, reserve stock, price,
screen for fraud, authorize payment), fulfilment (labels, dispatch, capture),
tracking, and the unhappy paths: declined payments, manual review,
cancellation, backorders and returns. Long-running steps are handed to the
job worker through the :class:`Scheduler` interface.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Iterable, Iterator, Protocol
from opentelemetry import trace

from .clock import Clock, get_clock
from .config import Settings
from .errors import (ORDER_ACCEPTED, ORDER_CANCELLED, ORDER_REJECTED, InvalidTransition,
                     OrderNotFound, OutOfStockError, PaymentError,
                     ShippingError, ValidationError)
from .fraud import FraudDecision, FraudScorer
from .inventory import InventoryService
from .log import audit, log_event, order_context
from .models import (Address, Customer, IdFactory, LineItem, Order, OrderStatus,
                     PaymentMethod, PaymentStatus, Shipment, ShipmentStatus, format_money)
from .notifications import NotificationService
from .payments import PaymentService
from .pricing import PriceCalculator
from .shipping import ShippingService

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


class Scheduler(Protocol):
    def schedule(self, kind: str, *, order_id: str | None = None,
                 delay: timedelta = timedelta(0), **payload: Any) -> object: ...


@dataclass(frozen=True)
class OrderRequest:
    customer_id: str
    lines: tuple[tuple[str, int], ...]
    payment_method: PaymentMethod
    payment_token: str
    shipping_address: Address | None = None
    coupon_code: str | None = None


class OrderRepository:
    """In-memory order store; the production deployment backs this with Postgres."""

    def __init__(self) -> None:
        self._orders: dict[str, Order] = {}

    def get(self, order_id: str) -> Order:
        try:
            return self._orders[order_id]
        except KeyError:
            raise OrderNotFound(f"no order {order_id}", order_id=order_id) from None

    def save(self, order: Order) -> None:
        self._orders[order.id] = order

    def __iter__(self) -> Iterator[Order]:
        return iter(self._orders.values())

    def __len__(self) -> int:
        return len(self._orders)


class CustomerDirectory:
    def __init__(self, customers: Iterable[Customer]) -> None:
        self._customers = {c.id: c for c in customers}

    def get(self, customer_id: str) -> Customer:
        customer = self._customers.get(customer_id)
        if customer is None:
            raise ValidationError("customer_id", f"unknown customer {customer_id}")
        return customer


class OrderService:
    def __init__(self, *, settings: Settings, repo: OrderRepository, customers: CustomerDirectory,
                 inventory: InventoryService, pricing: PriceCalculator, fraud: FraudScorer,
                 payments: PaymentService, shipping: ShippingService,
                 notifications: NotificationService, scheduler: Scheduler, ids: IdFactory,
                 clock: Clock | None = None) -> None:
        self.settings = settings
        self.repo = repo
        self.customers = customers
        self.inventory = inventory
        self.pricing = pricing
        self.fraud = fraud
        self.payments = payments
        self.shipping = shipping
        self.notifications = notifications
        self.scheduler = scheduler
        self.ids = ids
        self.clock = clock or get_clock()

    def allocate_order_id(self) -> str:
        return self.ids.new("ord")

    # -- checkout ---------------------------------------------------------

    def place_order(self, order_id: str, request: OrderRequest) -> Order:
        """Run checkout for a new order and return it in its resulting state."""
        with order_context(order_id), tracer.start_as_current_span(
                "order.place", attributes={"order.id": order_id}) as span:
            customer = self.customers.get(request.customer_id)
            logger.info("placing order %s for customer %s: %d line(s), paying by %s",
                        order_id, customer.id, len(request.lines), request.payment_method.value)
            try:
                order = self._build_order(order_id, customer, request)
            except ValidationError as exc:
                log_event(logger, ORDER_REJECTED, order_id, exc.message, level=logging.WARNING)
                raise
            self.repo.save(order)
            logger.debug("order %s built:\n  items: %s\n  ship to: %s, %s %s", order.id,
                         ", ".join(f"{i.quantity} x {i.sku}" for i in order.items),
                         order.shipping_address.city, order.shipping_address.postal_code,
                         order.shipping_address.country)
            try:
                self.inventory.reserve(order)
            except OutOfStockError as exc:
                self._reject(order, f"out of stock: {exc.sku}")
                return order
            order.quote = self.pricing.quote(order)
            assessment = self.fraud.assess(order)
            order.fraud_score = assessment.score
            if assessment.decision is FraudDecision.BLOCK:
                self.inventory.release(order, reason="blocked by fraud screening")
                self._reject(order, "blocked by fraud screening")
                return order
            order.needs_review = assessment.decision is FraudDecision.REVIEW
            customer.orders_placed += 1
            payment = self.payments.new_payment(order, request.payment_method, request.payment_token)
            span.set_attribute("payment.id", payment.id)
            self._authorize(order)
            return order

    def _build_order(self, order_id: str, customer: Customer, request: OrderRequest) -> Order:
        if not request.lines:
            raise ValidationError("items", "order has no items", order_id=order_id)
        if len(request.lines) > self.settings.max_lines_per_order:
            raise ValidationError("items", f"more than {self.settings.max_lines_per_order} lines")
        address = request.shipping_address or customer.address
        if address.country not in self.settings.supported_countries:
            raise ValidationError("shipping_address", f"we do not ship to {address.country}")
        items = []
        for sku, quantity in request.lines:
            if not 0 < quantity <= self.settings.max_quantity_per_line:
                raise ValidationError("items", f"quantity {quantity} of {sku} is out of range")
            product = self.inventory.product(sku)
            items.append(LineItem(sku, product.name, quantity, product.price_cents,
                                  product.weight_grams))
        return Order(order_id, customer, items, request.payment_method, address,
                     created_at=self.clock.now(), currency=self.settings.currency,
                     coupon_code=request.coupon_code)

    def _authorize(self, order: Order) -> None:
        payment = order.payment
        assert payment is not None
        try:
            self.payments.authorize(payment)
        except PaymentError as exc:
            self._payment_failed(order, getattr(exc, "reason", exc.code))
            return
        if order.needs_review:
            order.transition(OrderStatus.ON_HOLD, self.clock.now())
            audit("order.held", order.id, reason="fraud_review", score=f"{order.fraud_score:.2f}")
            self.notifications.notify(order, "order_received")
        else:
            self._confirm(order)

    def _payment_failed(self, order: Order, reason: str) -> None:
        first_failure = order.status is not OrderStatus.PAYMENT_FAILED
        if first_failure:
            order.transition(OrderStatus.PAYMENT_FAILED, self.clock.now())
            self.scheduler.schedule("order.expire_unpaid", order_id=order.id,
                                    delay=self.settings.unpaid_order_ttl)
        logger.warning("order %s awaiting a new payment method after %s", order.id, reason)
        self.notifications.notify(order, "payment_failed", reason=reason.replace("_", " "))

    def _confirm(self, order: Order) -> None:
        order.transition(OrderStatus.CONFIRMED, self.clock.now())
        log_event(logger, ORDER_ACCEPTED, order.id, order.unit_count,
                  format_money(order.total_cents, order.currency))
        audit("order.confirmed", order.id, total_cents=order.total_cents)
        self.notifications.notify(order, "order_confirmed")
        for backorder in order.backorders:
            self.notifications.notify(order, "backorder", sku=backorder.sku,
                                      expected=f"{backorder.expected_at:%B %d}")
        self.scheduler.schedule("order.fulfil", order_id=order.id, delay=self._until_next_wave())

    def _until_next_wave(self) -> timedelta:
        """Time until the next warehouse pick wave starts."""
        interval = self.settings.pick_wave_interval.total_seconds()
        now = self.clock.now()
        seconds_into_day = now.hour * 3600 + now.minute * 60 + now.second
        return timedelta(seconds=interval - seconds_into_day % interval + 300)

    def _reject(self, order: Order, reason: str) -> None:
        order.transition(OrderStatus.REJECTED, self.clock.now())
        log_event(logger, ORDER_REJECTED, order.id, reason, level=logging.WARNING)
        audit("order.rejected", order.id, reason=reason.replace(" ", "_"))

    def update_payment(self, order_id: str, method: PaymentMethod, token: str) -> Order:
        """Retry checkout payment with a new method after a decline."""
        order = self.repo.get(order_id)
        if order.status is not OrderStatus.PAYMENT_FAILED:
            raise InvalidTransition(f"order is {order.status.value}, not awaiting payment",
                                    order_id=order_id)
        logger.info("customer supplied a new %s payment method for order %s", method.value, order_id)
        self.payments.new_payment(order, method, token)
        self._authorize(order)
        return order

    def resolve_review(self, order_id: str, *, approved: bool, analyst: str) -> Order:
        order = self.repo.get(order_id)
        if order.status is not OrderStatus.ON_HOLD:
            raise InvalidTransition(f"order is {order.status.value}, not on hold", order_id=order_id)
        self.fraud.record_review(order, approved=approved, analyst=analyst)
        if approved:
            self._confirm(order)
        else:
            self.payments.release(order.payment, reason="fraud review denied")
            self.inventory.release(order, reason="fraud review denied")
            self._reject(order, "denied by fraud review")
            self.notifications.notify(order, "order_cancelled", reason="we could not verify it")
        return order

    # -- fulfilment -------------------------------------------------------

    def fulfil(self, order_id: str) -> None:
        """Pick wave: buy labels, dispatch, capture payment. Run by the worker."""
        order = self.repo.get(order_id)
        if order.status is not OrderStatus.CONFIRMED:
            logger.info("skipping fulfilment of order %s in status %s", order_id, order.status.value)
            return
        with tracer.start_as_current_span("order.fulfil", attributes={"order.id": order_id}) as span:
            order.transition(OrderStatus.FULFILLING, self.clock.now())
            shipments = self.shipping.plan(order)
            try:
                for shipment in shipments:
                    self.shipping.buy_label(shipment, order.shipping_address)
            except ShippingError:
                self.shipping.void_labels(shipments)
                order.transition(OrderStatus.CONFIRMED, self.clock.now())
                raise
            span.set_attribute("order.shipments", len(shipments))
            for shipment in shipments:
                self._dispatch(order, shipment)
            self._capture(order)
            if order.backorders:
                order.transition(OrderStatus.PARTIALLY_SHIPPED, self.clock.now())
                for backorder in order.backorders:
                    self.scheduler.schedule("order.ship_backorder", order_id=order.id,
                                            delay=backorder.expected_at - self.clock.now(),
                                            sku=backorder.sku)
            else:
                order.transition(OrderStatus.SHIPPED, self.clock.now())

    def _dispatch(self, order: Order, shipment: Shipment) -> None:
        self.shipping.dispatch(shipment)
        order.shipments.append(shipment)
        self.notifications.notify(order, "order_shipped",
                                  tracking=f"{shipment.carrier} {shipment.tracking_number}")
        self.scheduler.schedule("shipment.track", order_id=order.id, delay=timedelta(hours=20),
                                shipment_id=shipment.id)

    def _capture(self, order: Order) -> None:
        payment = order.payment
        if payment is None or payment.status is not PaymentStatus.AUTHORIZED:
            return
        try:
            self.payments.capture(payment)
        except PaymentError as exc:
            logger.error("capture of payment %s for shipped order %s failed (%s); "
                         "will retry", payment.id, order.id, exc.code)
            self.scheduler.schedule("payment.capture", order_id=order.id, delay=timedelta(hours=1))

    def retry_capture(self, order_id: str) -> None:
        order = self.repo.get(order_id)
        payment = order.payment
        if payment is None or payment.status not in (PaymentStatus.AUTHORIZED, PaymentStatus.FAILED):
            logger.info("nothing to capture for order %s", order_id)
            return
        payment.status = PaymentStatus.AUTHORIZED
        self.payments.capture(payment)

    def ship_backorder(self, order_id: str, sku: str) -> None:
        order = self.repo.get(order_id)
        backorder = next((b for b in order.backorders if b.sku == sku), None)
        if backorder is None or order.status is not OrderStatus.PARTIALLY_SHIPPED:
            logger.info("backorder of %s for order %s no longer pending", sku, order_id)
            return
        self.inventory.receive(backorder.warehouse, sku, backorder.quantity)
        shipment = self.shipping.plan_backorder(order, backorder)
        self.shipping.buy_label(shipment, order.shipping_address)
        order.backorders.remove(backorder)
        self._dispatch(order, shipment)
        if not order.backorders:
            order.transition(OrderStatus.SHIPPED, self.clock.now())

    def track(self, order_id: str, shipment_id: str) -> None:
        order = self.repo.get(order_id)
        shipment = next(s for s in order.shipments if s.id == shipment_id)
        if not self.shipping.poll(shipment):
            self.scheduler.schedule("shipment.track", order_id=order_id,
                                    delay=timedelta(hours=24), shipment_id=shipment_id)
            return
        if order.status is OrderStatus.SHIPPED and \
                all(s.status is ShipmentStatus.DELIVERED for s in order.shipments):
            order.transition(OrderStatus.DELIVERED, self.clock.now())
            self.notifications.notify(order, "order_delivered")
            logger.info("order %s delivered in %.1f days", order_id,
                        (self.clock.now() - order.created_at) / timedelta(days=1))

    # -- cancellation and returns ----------------------------------------

    def cancel(self, order_id: str, *, reason: str, actor: str = "customer") -> Order:
        order = self.repo.get(order_id)
        if not order.status.is_cancellable:
            logger.warning("refusing to cancel order %s in status %s", order_id, order.status.value)
            raise InvalidTransition(f"order is already {order.status.value}", order_id=order_id)
        with tracer.start_as_current_span("order.cancel", attributes={"order.id": order_id}):
            self.payments.release(order.payment, reason="order cancelled")
            self.inventory.release(order, reason="order cancelled")
            order.transition(OrderStatus.CANCELLED, self.clock.now())
            log_event(logger, ORDER_CANCELLED, order_id, actor, reason)
            audit("order.cancelled", order_id, actor=actor, reason=reason.replace(" ", "_"))
            self.notifications.notify(order, "order_cancelled", reason=reason)
        return order

    def expire_unpaid(self, order_id: str) -> None:
        order = self.repo.get(order_id)
        if order.status is OrderStatus.PAYMENT_FAILED:
            hours = self.settings.unpaid_order_ttl / timedelta(hours=1)
            self.cancel(order_id, reason=f"no valid payment within {hours:.0f} hours", actor="system")

    def request_return(self, order_id: str, *, reason: str) -> Order:
        order = self.repo.get(order_id)
        if order.status is not OrderStatus.DELIVERED:
            raise InvalidTransition(f"order is {order.status.value}, not delivered", order_id=order_id)
        logger.info("return requested for order %s: %s", order_id, reason)
        refund = self.payments.refund(order.payment, reason=f"return: {reason}")
        order.transition(OrderStatus.RETURNED, self.clock.now())
        self.notifications.notify(order, "refund_issued")
        audit("order.returned", order_id, actor="customer", refund=refund)
        return order

    @staticmethod
    def summary(order: Order) -> dict[str, Any]:
        """Public representation returned by the API."""
        return {
            "order_id": order.id,
            "status": order.status.value,
            "total": format_money(order.total_cents, order.currency),
            "items": [{"sku": i.sku, "quantity": i.quantity} for i in order.items],
            "shipments": [{"id": s.id, "carrier": s.carrier, "tracking": s.tracking_number,
                           "status": s.status.value} for s in order.shipments],
            "backorders": [{"sku": b.sku, "expected": b.expected_at.date().isoformat()}
                           for b in order.backorders],
        }
