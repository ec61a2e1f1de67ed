"""Payment authorization, capture, void and refund through gateway adapters."""

from __future__ import annotations

import functools
import logging
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Sequence, TypeVar
from opentelemetry import trace

from .clock import Clock, TimeWindow, get_clock
from .config import Settings
from .errors import (PAYMENT_DECLINED, PAYMENT_GAVE_UP, PAYMENT_RETRY, REFUND_ISSUED,
                     GatewayTimeout, PaymentDeclined, PaymentError)
from .log import audit, log_event
from .models import IdFactory, Order, Payment, PaymentMethod, PaymentStatus, format_money

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)
log_retry = logger.warning

T = TypeVar("T")


@dataclass(frozen=True)
class GatewayResponse:
    approved: bool
    reference: str
    reason: str | None = None


class FakeGatewayBackend:
    """Stands in for a processor's HTTP API in tests and simulations.

    Behaviour is driven by the payment token the way processor sandboxes do
    it: ``pm_prepaid_*`` cards are often short of funds, ``pm_expired_*``
    always decline, ``wt_stale_*`` wallet tokens have expired. Everything
    else declines at ``decline_rate``. Calls take simulated time and time
    out at ``timeout_rate``, or at ``outage_rate`` during one of ``outages``.
    """

    _REASONS = ("insufficient_funds", "do_not_honor", "do_not_honor", "card_velocity_exceeded")

    def __init__(self, name: str, *, seed: int | str | None = None, clock: Clock | None = None,
                 decline_rate: float = 0.05, timeout_rate: float = 0.04,
                 latency_ms: tuple[float, float] = (90.0, 650.0), timeout_s: float = 10.0,
                 outages: Sequence[TimeWindow] = (), outage_rate: float = 0.7) -> None:
        self.name = name
        self.clock = clock or get_clock()
        self.decline_rate = decline_rate
        self.timeout_rate = timeout_rate
        self.latency_ms = latency_ms
        self.timeout_s = timeout_s
        self.outages = tuple(outages)
        self.outage_rate = outage_rate
        self._rng = random.Random(None if seed is None else f"gateway:{name}:{seed}")
        self._sequence = 0

    def call(self, operation: str, payment: Payment, amount_cents: int) -> GatewayResponse:
        now = self.clock.now()
        degraded = any(now in window for window in self.outages)
        if self._rng.random() < (self.outage_rate if degraded else self.timeout_rate):
            self.clock.sleep(self.timeout_s)
            raise GatewayTimeout(f"{self.name} {operation} timed out after {self.timeout_s:.0f}s",
                                 order_id=payment.order_id)
        self.clock.sleep(self._rng.uniform(*self.latency_ms) / 1000.0)
        self._sequence += 1
        reference = f"{operation[:2]}_{self._sequence:08d}"
        if operation != "authorize":
            return GatewayResponse(True, reference)
        reason = self._decline_reason(payment.token, amount_cents)
        return GatewayResponse(reason is None, reference, reason)

    def _decline_reason(self, token: str, amount_cents: int) -> str | None:
        if token.startswith("pm_expired_"):
            return "expired_card"
        if token.startswith("wt_stale_"):
            return "wallet_token_expired"
        rate = self.decline_rate + (0.4 if token.startswith("pm_prepaid_") else 0.0)
        rate += 0.1 if amount_cents > 150_000 else 0.0
        if self._rng.random() < rate:
            return self._rng.choice(self._REASONS)
        return None


class PaymentGateway(ABC):
    """Adapter for one payment processor."""

    name: ClassVar[str]
    method: ClassVar[PaymentMethod]

    def __init__(self, backend: FakeGatewayBackend, *, clock: Clock | None = None) -> None:
        self.backend = backend
        self.clock = clock or get_clock()

    @property
    def settles_immediately(self) -> bool:
        """Whether authorization also moves the money (no separate capture)."""
        return False

    @abstractmethod
    def _before_authorize(self, payment: Payment, span: trace.Span) -> None:
        """Processor-specific checks run before authorization."""

    def authorize(self, payment: Payment) -> None:
        attrs = {"payment.gateway": self.name, "payment.attempt": payment.attempts}
        with tracer.start_as_current_span("payment.authorize", attributes=attrs, kind=trace.SpanKind.CLIENT) as span:
            self._before_authorize(payment, span)
            response = self.backend.call("authorize", payment, payment.amount_cents)
            if not response.approved:
                payment.status = PaymentStatus.DECLINED
                payment.decline_reason = response.reason
                raise PaymentDeclined(self.name, response.reason or "unknown",
                                      order_id=payment.order_id)
            payment.status = PaymentStatus.AUTHORIZED
            payment.gateway = self.name
            payment.authorization_code = response.reference
            span.add_event("payment.authorized", {"authorization_code": response.reference})

    def capture(self, payment: Payment, amount_cents: int) -> None:
        with tracer.start_as_current_span("payment.capture", kind=trace.SpanKind.CLIENT):
            self.backend.call("capture", payment, amount_cents)
            payment.captured_cents += amount_cents
            payment.status = PaymentStatus.CAPTURED

    def void(self, payment: Payment) -> None:
        self.backend.call("void", payment, 0)
        payment.status = PaymentStatus.VOIDED

    def refund(self, payment: Payment, amount_cents: int) -> str:
        response = self.backend.call("refund", payment, amount_cents)
        payment.refunded_cents += amount_cents
        if payment.refunded_cents >= payment.captured_cents:
            payment.status = PaymentStatus.REFUNDED
        return response.reference


class CardGateway(PaymentGateway):
    """Card acquirer; amounts above the SCA limit need a 3-D Secure challenge."""

    name = "cardnet"
    method = PaymentMethod.CARD
    sca_threshold_cents = 50_000

    def _before_authorize(self, payment: Payment, span: trace.Span) -> None:
        if payment.amount_cents < self.sca_threshold_cents:
            return
        span.add_event("3ds.challenge", {"amount_cents": payment.amount_cents})
        response = self.backend.call("3ds", payment, payment.amount_cents)
        logger.info("3-D Secure challenge for payment %s completed (%s)", payment.id,
                    response.reference)


class WalletGateway(PaymentGateway):
    """Digital wallet; payments settle on authorization."""

    name = "paywallet"
    method = PaymentMethod.WALLET

    @property
    def settles_immediately(self) -> bool:
        return True

    def _before_authorize(self, payment: Payment, span: trace.Span) -> None:
        if not payment.token.startswith(("wt_", "wt_stale_")):
            logger.error("payment %s carries a non-wallet token", payment.id)

    def authorize(self, payment: Payment) -> None:
        super().authorize(payment)
        self.capture(payment, payment.amount_cents)


def with_retries(func: Callable[..., T]) -> Callable[..., T]:
    """Retry a PaymentService operation on retryable gateway errors.

    Declines are final and are logged once here; timeouts are retried with
    the service's backoff policy and logged on every attempt.
    """
    @functools.wraps(func)
    def wrapper(self: PaymentService, payment: Payment, *args: Any, **kwargs: Any) -> T:
        policy = self.settings.payment_retry
        attempt = 1
        while True:
            try:
                return func(self, payment, *args, **kwargs)
            except PaymentDeclined as exc:
                log_event(logger, PAYMENT_DECLINED, payment.id, exc.gateway, exc.reason,
                          level=logging.WARNING)
                raise
            except PaymentError as exc:
                if not exc.retryable or attempt >= policy.max_attempts:
                    log_event(logger, PAYMENT_GAVE_UP, payment.id, attempt, exc.code,
                              level=logging.ERROR)
                    payment.status = PaymentStatus.FAILED
                    raise
                delay = policy.delay(attempt, self._rng)
                log_retry(PAYMENT_RETRY, payment.id, attempt, policy.max_attempts, exc.code, delay)
                self.clock.sleep(delay)
                attempt += 1
    return wrapper


class PaymentService:
    def __init__(self, gateways: Iterable[PaymentGateway], settings: Settings, ids: IdFactory, *,
                 clock: Clock | None = None, seed: int | str | None = None) -> None:
        self._gateways = {g.method: g for g in gateways}
        self.settings = settings
        self.ids = ids
        self.clock = clock or get_clock()
        self._rng = random.Random(None if seed is None else f"payments:{seed}")

    def gateway_for(self, payment: Payment) -> PaymentGateway:
        try:
            return self._gateways[payment.method]
        except KeyError:
            raise PaymentError(f"no gateway configured for {payment.method.value}",
                               order_id=payment.order_id) from None

    def new_payment(self, order: Order, method: PaymentMethod, token: str) -> Payment:
        payment = Payment(self.ids.new("pay"), order.id, method, order.total_cents,
                          order.currency, token)
        order.payments.append(payment)
        logger.debug("created payment %s (%s) for order %s", payment.id, method.value, order.id)
        return payment

    @with_retries
    def authorize(self, payment: Payment) -> None:
        payment.attempts += 1
        gateway = self.gateway_for(payment)
        gateway.authorize(payment)
        logger.info("payment %s authorized by %s for %s", payment.id, gateway.name,
                    format_money(payment.amount_cents, payment.currency))

    @with_retries
    def capture(self, payment: Payment) -> None:
        if payment.status is PaymentStatus.CAPTURED:
            logger.debug("payment %s already captured", payment.id)
            return
        self.gateway_for(payment).capture(payment, payment.amount_cents)
        logger.log(logging.INFO, "captured %s on payment %s",
                   format_money(payment.captured_cents, payment.currency), payment.id)

    @with_retries
    def void(self, payment: Payment) -> None:
        if payment.status is not PaymentStatus.AUTHORIZED:
            return
        self.gateway_for(payment).void(payment)
        logger.info("voided authorization %s of payment %s", payment.authorization_code, payment.id)

    @with_retries
    def refund(self, payment: Payment, *, reason: str) -> str | None:
        """Refund whatever has been captured and not yet refunded."""
        amount = payment.captured_cents - payment.refunded_cents
        if amount <= 0:
            return None
        refund_id = self.gateway_for(payment).refund(payment, amount)
        log_event(logger, REFUND_ISSUED, refund_id, payment.order_id,
                  f"{format_money(amount, payment.currency)} ({reason})")
        audit("payment.refunded", payment.order_id, amount_cents=amount, refund=refund_id)
        return refund_id

    def release(self, payment: Payment | None, *, reason: str) -> None:
        """Undo a payment: void an open authorization or refund a capture."""
        if payment is None:
            return
        if payment.status is PaymentStatus.AUTHORIZED:
            self.void(payment)
        elif payment.status is PaymentStatus.CAPTURED:
            self.refund(payment, reason=reason)
