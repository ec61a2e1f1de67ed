"""Exception hierarchy and the catalogue of operational log messages.

The message templates live here rather than next to the code that logs them
so that runbooks and alert rules can reference one catalogue. They are
%-style templates: log them through :func:`orderflow.log.log_event` (or pass
them as the first argument of a logger call) and never pre-format them, so
that log aggregation can group on the template.
"""

from __future__ import annotations

# --- message catalogue -----------------------------------------------------

ORDER_ACCEPTED = "order %s accepted: %d item(s), total %s"
ORDER_REJECTED = "order %s rejected: %s"
ORDER_CANCELLED = "order %s cancelled by %s: %s"
STOCK_INSUFFICIENT = "insufficient stock for %s: requested %d, available %d"
BACKORDER_CREATED = "backorder created for %s x%d, restock expected %s"
PAYMENT_DECLINED = "payment %s declined by %s: %s"
PAYMENT_RETRY = "payment %s attempt %d/%d failed with %s, retrying in %.2fs"
PAYMENT_GAVE_UP = "payment %s failed after %d attempt(s): %s"
FRAUD_REVIEW_REQUIRED = "order %s held for manual fraud review (score=%.2f, rules=%s)"
FRAUD_BLOCKED = "order %s blocked by fraud screening (score=%.2f, rules=%s)"
REFUND_ISSUED = "refund %s issued for order %s: %s"
SHIPMENT_DELAYED = "shipment %s delayed at %s: %s"
LABEL_FAILED = "label request for shipment %s failed at %s: %s"
NOTIFY_FAILED = "failed to deliver %s notification to %s via %s: %s"
JOB_DEAD_LETTERED = "job %s (%s) dead-lettered after %d attempt(s): %s"


# --- exceptions --------------------------------------------------------------


class OrderflowError(Exception):
    """Base class for errors raised by orderflow services.

    ``code`` is the stable, machine-readable error code returned to API
    clients; ``retryable`` tells callers (and the job worker) whether trying
    the same operation again may succeed.
    """

    code = "internal_error"
    http_status = 500
    retryable = False

    def __init__(self, message: str, *, order_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.order_id = order_id

    def to_dict(self) -> dict[str, str]:
        body = {"error": self.code, "message": self.message}
        if self.order_id:
            body["order_id"] = self.order_id
        return body


class ValidationError(OrderflowError):
    code = "invalid_request"
    http_status = 400

    def __init__(self, field: str, problem: str, **kwargs) -> None:
        super().__init__(f"{field}: {problem}", **kwargs)
        self.field = field


class OrderNotFound(OrderflowError):
    code = "order_not_found"
    http_status = 404


class InvalidTransition(OrderflowError):
    code = "invalid_state"
    http_status = 409


class OutOfStockError(OrderflowError):
    code = "out_of_stock"
    http_status = 409

    def __init__(self, sku: str, requested: int, available: int, **kwargs) -> None:
        super().__init__(f"{sku} has {available} available, {requested} requested", **kwargs)
        self.sku = sku
        self.requested = requested
        self.available = available


class PaymentError(OrderflowError):
    code = "payment_error"
    http_status = 402


class PaymentDeclined(PaymentError):
    code = "payment_declined"

    def __init__(self, gateway: str, reason: str, **kwargs) -> None:
        super().__init__(f"declined by {gateway}: {reason}", **kwargs)
        self.gateway = gateway
        self.reason = reason


class GatewayTimeout(PaymentError):
    code = "gateway_timeout"
    http_status = 504
    retryable = True


class FraudRejected(OrderflowError):
    code = "fraud_rejected"
    http_status = 403


class ShippingError(OrderflowError):
    code = "shipping_error"
    http_status = 502


class LabelServiceError(ShippingError):
    code = "label_service_unavailable"
    retryable = True


class NotificationError(OrderflowError):
    code = "notification_failed"
    http_status = 502
