"""HTTP request handlers for the order API.

The handlers are framework-agnostic: the ASGI adapter in the deployment (and
the simulator) call :meth:`OrderApi.handle` with the method, path, decoded
JSON body and headers, and serialise the returned :class:`Response`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable
from opentelemetry import trace

from .clock import Clock, get_clock
from .errors import OrderflowError, ValidationError
from .log import order_context
from .models import Address, OrderStatus, PaymentMethod
from .orders import OrderRequest, OrderService

logger = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

Handler = Callable[..., "Response"]


@dataclass
class Response:
    status: int
    body: dict[str, Any] = field(default_factory=dict)


class Router:
    """Maps ``(method, path)`` to handlers; path templates use ``{name}`` segments."""

    _PARAM = re.compile(r"\{(\w+)\}")

    def __init__(self) -> None:
        self._routes: list[tuple[str, str, re.Pattern[str], Handler]] = []

    def add(self, method: str, template: str, handler: Handler) -> None:
        pattern = re.compile("^" + self._PARAM.sub(r"(?P<\1>[A-Za-z0-9_-]+)", template) + "$")
        self._routes.append((method, template, pattern, handler))

    def match(self, method: str, path: str) -> tuple[str, Handler, dict[str, str]] | None:
        for route_method, template, pattern, handler in self._routes:
            m = pattern.match(path)
            if m and route_method == method:
                return template, handler, m.groupdict()
        return None


class OrderApi:
    _STATUS_CODES = {OrderStatus.CONFIRMED: 201, OrderStatus.ON_HOLD: 202,
                     OrderStatus.PAYMENT_FAILED: 402, OrderStatus.REJECTED: 422}

    def __init__(self, service: OrderService, *, clock: Clock | None = None) -> None:
        self.service = service
        self.clock = clock or get_clock()
        self._idempotency: dict[str, str] = {}
        self.router = Router()
        self.router.add("POST", "/orders", self.create_order)
        self.router.add("GET", "/orders/{order_id}", self.get_order)
        self.router.add("POST", "/orders/{order_id}/cancel", self.cancel_order)
        self.router.add("POST", "/orders/{order_id}/payment", self.update_payment)
        self.router.add("POST", "/orders/{order_id}/review", self.review_order)
        self.router.add("POST", "/orders/{order_id}/return", self.request_return)

    def handle(self, method: str, path: str, body: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None) -> Response:
        headers = headers or {}
        match = self.router.match(method, path)
        if match is None:
            logger.warning("no route for %s %s", method, path)
            return Response(404, {"error": "not_found"})
        template, handler, params = match
        if handler == self.create_order:
            params["order_id"] = self._order_id_for(headers.get("Idempotency-Key"))
        with order_context(params.get("order_id")), tracer.start_as_current_span(
                f"{method} {template}", kind=trace.SpanKind.SERVER) as span:
            span.set_attribute("http.request.method", method)
            started = self.clock.monotonic()
            try:
                response = handler(body or {}, **params)
            except OrderflowError as exc:
                level = logging.WARNING if exc.http_status < 500 else logging.ERROR
                logger.log(level, "%s %s failed with %s: %s", method, path, exc.code, exc.message)
                response = Response(exc.http_status, exc.to_dict())
            except Exception:
                logger.exception("unhandled error in %s %s", method, path)
                response = Response(500, {"error": "internal_error"})
            span.set_attribute("http.response.status_code", response.status)
            elapsed_ms = (self.clock.monotonic() - started) * 1000.0
            logger.info("%s %s -> %d in %.1f ms", method, path, response.status, elapsed_ms)
            return response

    def _order_id_for(self, idempotency_key: str | None) -> str:
        if idempotency_key is None:
            return self.service.allocate_order_id()
        if idempotency_key not in self._idempotency:
            self._idempotency[idempotency_key] = self.service.allocate_order_id()
        return self._idempotency[idempotency_key]

    # -- handlers -------------------------------------------------------------

    def create_order(self, body: dict[str, Any], order_id: str) -> Response:
        try:
            existing = self.service.repo.get(order_id)
        except OrderflowError:
            existing = None
        if existing is not None:
            logger.info("replaying idempotent create for order %s", order_id)
            return Response(200, self.service.summary(existing))
        request = self.parse_order_request(body)
        order = self.service.place_order(order_id, request)
        return Response(self._STATUS_CODES.get(order.status, 200), self.service.summary(order))

    def get_order(self, body: dict[str, Any], order_id: str) -> Response:
        return Response(200, self.service.summary(self.service.repo.get(order_id)))

    def cancel_order(self, body: dict[str, Any], order_id: str) -> Response:
        reason = str(body.get("reason") or "requested by customer")
        order = self.service.cancel(order_id, reason=reason, actor="customer")
        return Response(200, self.service.summary(order))

    def update_payment(self, body: dict[str, Any], order_id: str) -> Response:
        method = self._payment_method(body)
        token = self._required(body, "payment_token")
        order = self.service.update_payment(order_id, method, token)
        return Response(self._STATUS_CODES.get(order.status, 200), self.service.summary(order))

    def review_order(self, body: dict[str, Any], order_id: str) -> Response:
        decision = self._required(body, "decision")
        if decision not in ("approve", "deny"):
            raise ValidationError("decision", "must be 'approve' or 'deny'", order_id=order_id)
        order = self.service.resolve_review(order_id, approved=decision == "approve",
                                            analyst=self._required(body, "analyst"))
        return Response(200, self.service.summary(order))

    def request_return(self, body: dict[str, Any], order_id: str) -> Response:
        order = self.service.request_return(order_id, reason=str(body.get("reason", "unspecified")))
        return Response(200, self.service.summary(order))

    # -- parsing ------------------------------------------------------------

    @staticmethod
    def _required(body: dict[str, Any], key: str) -> str:
        value = body.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(key, "is required")
        return value.strip()

    @classmethod
    def _payment_method(cls, body: dict[str, Any]) -> PaymentMethod:
        raw = cls._required(body, "payment_method")
        try:
            return PaymentMethod(raw)
        except ValueError:
            raise ValidationError("payment_method", f"unsupported method {raw!r}") from None

    @classmethod
    def parse_order_request(cls, body: dict[str, Any]) -> OrderRequest:
        items = body.get("items")
        if not isinstance(items, list):
            raise ValidationError("items", "must be a list")
        try:
            lines = tuple((str(item["sku"]), int(item["quantity"])) for item in items)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValidationError("items", f"malformed item ({exc})") from None
        address = None
        if body.get("shipping_address"):
            raw = body["shipping_address"]
            try:
                address = Address(raw["name"], raw["line1"], raw["city"], raw.get("region", ""),
                                  raw["postal_code"], raw["country"])
            except KeyError as exc:
                raise ValidationError("shipping_address", f"missing {exc.args[0]}") from None
        return OrderRequest(customer_id=cls._required(body, "customer_id"), lines=lines,
                            payment_method=cls._payment_method(body),
                            payment_token=cls._required(body, "payment_token"),
                            shipping_address=address, coupon_code=body.get("coupon_code"))
