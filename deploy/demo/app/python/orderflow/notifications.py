"""Customer notifications by e-mail and SMS."""

from __future__ import annotations

import logging
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable
from opentelemetry import trace

from .errors import NOTIFY_FAILED, NotificationError
from .log import log_event
from .models import Customer, Order, format_money

logger = logging.getLogger(__name__)

#: template name -> (subject, body). Bodies use str.format fields.
EMAIL_TEMPLATES: dict[str, tuple[str, str]] = {
    "order_received": ("We received your order {order_id}",
                       "Hi {first_name},\nthanks for your order. We are running a few checks "
                       "and will confirm it shortly."),
    "order_confirmed": ("Order {order_id} confirmed",
                        "Hi {first_name},\nyour order of {total} is confirmed."),
    "payment_failed": ("Action needed: payment for order {order_id}",
                       "Hi {first_name},\nyour payment was declined ({reason}). "
                       "Please update your payment method within 24 hours."),
    "order_shipped": ("Order {order_id} is on its way",
                      "Hi {first_name},\ntracking: {tracking}."),
    "backorder": ("Part of order {order_id} is backordered",
                  "Hi {first_name},\n{sku} is expected to ship on {expected}."),
    "order_delivered": ("Order {order_id} delivered", "Hi {first_name},\nenjoy!"),
    "order_cancelled": ("Order {order_id} cancelled",
                        "Hi {first_name},\nyour order was cancelled: {reason}."),
    "refund_issued": ("Refund for order {order_id}",
                      "Hi {first_name},\nwe refunded {total} to your original payment method."),
}

SMS_TEMPLATES: dict[str, str] = {
    "order_confirmed": "Order {order_id} confirmed, total {total}.",
    "payment_failed": "Payment for order {order_id} failed. Update it in your account.",
    "order_shipped": "Order {order_id} shipped: {tracking}",
    "order_delivered": "Order {order_id} was delivered.",
}


class FakeTransport:
    """Records outgoing messages; fails like the real providers do, sometimes."""

    def __init__(self, name: str, *, seed: int | str | None = None,
                 failure_rate: float = 0.01) -> None:
        self.name = name
        self.failure_rate = failure_rate
        self.sent: list[tuple[str, str]] = []
        self._rng = random.Random(None if seed is None else f"transport:{name}:{seed}")

    def send(self, recipient: str, payload: str) -> str:
        if recipient.endswith(".invalid"):
            raise NotificationError("550 mailbox unavailable")
        if recipient.startswith("+1555"):
            raise NotificationError("30006 landline or unreachable carrier")
        if self._rng.random() < self.failure_rate:
            raise NotificationError(f"{self.name} provider returned 502")
        self.sent.append((recipient, payload))
        return f"{self.name}-{len(self.sent):06d}"


class Notifier(ABC):
    """One delivery channel."""

    channel: ClassVar[str]
    templates: ClassVar[Iterable[str]]

    def __init__(self, transport: FakeTransport) -> None:
        self.transport = transport
        self.logger = logging.getLogger(f"{__name__}.{type(self).__name__}")

    @abstractmethod
    def recipient(self, customer: Customer) -> str | None:
        """Where to send, or None when the customer cannot be reached this way."""

    @abstractmethod
    def render(self, template: str, context: dict[str, Any]) -> str:
        """Render the message body."""

    @staticmethod
    def mask(recipient: str) -> str:
        """``jane.doe@example.com`` -> ``j***@example.com``, ``+14155550123`` -> ``+1*******0123``."""
        if "@" in recipient:
            local, _, domain = recipient.partition("@")
            return f"{local[:1]}***@{domain}"
        return recipient[:2] + "*" * (len(recipient) - 6) + recipient[-4:]

    def send(self, customer: Customer, template: str, context: dict[str, Any]) -> bool:
        if template not in self.templates:
            return False
        recipient = self.recipient(customer)
        if recipient is None:
            self.logger.debug("customer %s has no %s contact, skipping %s",
                              customer.id, self.channel, template)
            return False
        message = self.render(template, context)
        try:
            message_id = self.transport.send(recipient, message)
        except NotificationError as exc:
            log_event(self.logger, NOTIFY_FAILED, template, self.mask(recipient), self.channel,
                      exc, level=logging.WARNING)
            return False
        self.logger.info("sent %s %s to %s (%s)", self.channel, template, self.mask(recipient),
                         message_id)
        return True


class EmailNotifier(Notifier):
    channel = "email"
    templates = EMAIL_TEMPLATES

    def recipient(self, customer: Customer) -> str | None:
        return customer.email or None

    def render(self, template: str, context: dict[str, Any]) -> str:
        subject, body = EMAIL_TEMPLATES[template]
        rendered = f"Subject: {subject.format(**context)}\n\n{body.format(**context)}"
        if template == "payment_failed":
            self.logger.debug("rendered %s e-mail:\n%s", template, rendered)
        return rendered


class SmsNotifier(Notifier):
    channel = "sms"
    templates = SMS_TEMPLATES
    max_length = 160

    def recipient(self, customer: Customer) -> str | None:
        return customer.phone if customer.sms_opt_in and customer.phone else None

    def render(self, template: str, context: dict[str, Any]) -> str:
        text = SMS_TEMPLATES[template].format(**context)
        if len(text) > self.max_length:
            self.logger.warning("sms %s is %d characters, truncating", template, len(text))
            text = text[: self.max_length - 1] + "…"
        return text


@dataclass
class NotificationService:
    notifiers: list[Notifier]

    def notify(self, order: Order, template: str, **extra: Any) -> int:
        """Send ``template`` for ``order`` on every channel; returns how many succeeded."""
        context = {"order_id": order.id, "first_name": order.customer.first_name,
                   "total": format_money(order.total_cents, order.currency), **extra}
        delivered = sum(n.send(order.customer, template, context) for n in self.notifiers)
        trace.get_current_span().add_event("notification.sent",
                                           {"template": template, "channels": delivered})
        if delivered == 0:
            logger.error("customer of order %s was not notified about %s on any channel",
                         order.id, template)
        return delivered
