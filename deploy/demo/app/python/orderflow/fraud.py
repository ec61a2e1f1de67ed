"""Rule-based fraud screening.

Each rule returns a risk contribution in [0, 1] that is multiplied by the
rule's weight; the sum (capped at 1) decides whether the order is accepted,
held for a human analyst, or blocked.
"""

from __future__ import annotations

import logging
from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Callable
from opentelemetry import trace

from .clock import Clock, get_clock
from .config import Settings
from .errors import FRAUD_BLOCKED, FRAUD_REVIEW_REQUIRED
from .log import audit, log_event
from .models import Order

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

RuleFn = Callable[[Order, "FraudContext"], float]
_RULES: dict[str, tuple[float, RuleFn]] = {}


def rule(name: str, weight: float) -> Callable[[RuleFn], RuleFn]:
    """Register a scoring rule under ``name`` with the given weight."""
    def register(fn: RuleFn) -> RuleFn:
        if name in _RULES:
            raise ValueError(f"duplicate fraud rule {name!r}")
        _RULES[name] = (weight, fn)
        return fn
    return register


class FraudDecision(str, Enum):
    ACCEPT = "accept"
    REVIEW = "review"
    BLOCK = "block"


@dataclass(frozen=True)
class FraudAssessment:
    score: float
    decision: FraudDecision
    rules: tuple[str, ...]


@dataclass
class FraudContext:
    settings: Settings
    now: datetime
    recent_orders: int


@rule("high_value", 0.35)
def _high_value(order: Order, ctx: FraudContext) -> float:
    return min(1.0, order.total_cents / (2 * ctx.settings.high_value_cents)) \
        if order.total_cents >= ctx.settings.high_value_cents else 0.0


@rule("new_customer", 0.15)
def _new_customer(order: Order, ctx: FraudContext) -> float:
    return 1.0 if order.customer.orders_placed == 0 else 0.0


@rule("velocity", 0.3)
def _velocity(order: Order, ctx: FraudContext) -> float:
    return min(1.0, max(0, ctx.recent_orders - 1) / 3)


@rule("ship_to_mismatch", 0.3)
def _ship_to_mismatch(order: Order, ctx: FraudContext) -> float:
    home, dest = order.customer.address, order.shipping_address
    if home.country != dest.country:
        return 1.0
    return 0.4 if home.postal_code != dest.postal_code else 0.0


@rule("chargeback_history", 0.5)
def _chargeback_history(order: Order, ctx: FraudContext) -> float:
    return min(1.0, order.customer.chargebacks / 2)


@rule("gift_cards", 0.25)
def _gift_cards(order: Order, ctx: FraudContext) -> float:
    units = sum(i.quantity for i in order.items if i.sku.startswith("GC-"))
    return min(1.0, units / 4)


class FraudScorer:
    def __init__(self, settings: Settings, *, clock: Clock | None = None,
                 velocity_window: timedelta = timedelta(hours=1)) -> None:
        self.settings = settings
        self.clock = clock or get_clock()
        self.velocity_window = velocity_window
        self._recent: dict[str, deque[datetime]] = defaultdict(deque)

    def _recent_orders(self, customer_id: str, now: datetime) -> int:
        window = self._recent[customer_id]
        while window and now - window[0] > self.velocity_window:
            window.popleft()
        window.append(now)
        return len(window)

    def assess(self, order: Order) -> FraudAssessment:
        with tracer.start_as_current_span("fraud.assess", attributes={"order.id": order.id}) as span:
            now = self.clock.now()
            ctx = FraudContext(self.settings, now, self._recent_orders(order.customer.id, now))
            score, hits = 0.0, []
            for name, (weight, fn) in _RULES.items():
                contribution = weight * fn(order, ctx)
                if contribution > 0:
                    hits.append(name)
                    logger.debug("rule %s contributed %.3f for order %s", name, contribution, order.id)
                score += contribution
            score = min(1.0, score)
            decision = self._decide(score)
            span.set_attribute("fraud.score", round(score, 3))
            span.add_event("fraud.scored", {"decision": decision.value, "rules": ",".join(hits)})
            rules = ",".join(hits) or "none"
            if decision is FraudDecision.BLOCK:
                log_event(logger, FRAUD_BLOCKED, order.id, score, rules, level=logging.WARNING)
            elif decision is FraudDecision.REVIEW:
                log_event(logger, FRAUD_REVIEW_REQUIRED, order.id, score, rules)
            else:
                logger.info("order %s passed fraud screening with score %.2f", order.id, score)
            return FraudAssessment(score, decision, tuple(hits))

    def _decide(self, score: float) -> FraudDecision:
        if score >= self.settings.fraud_block_threshold:
            return FraudDecision.BLOCK
        if score >= self.settings.fraud_review_threshold:
            return FraudDecision.REVIEW
        return FraudDecision.ACCEPT

    def record_review(self, order: Order, *, approved: bool, analyst: str) -> None:
        """Record a manual review outcome for the audit trail and model training."""
        outcome = "approved" if approved else "denied"
        logger.info("fraud review of order %s %s by %s", order.id, outcome, analyst)
        audit("fraud.review", order.id, actor=analyst, outcome=outcome,
              score=f"{order.fraud_score or 0:.2f}")
