"""A small in-process tracer with the OpenTelemetry API shape.

orderflow is instrumented against this module rather than
``opentelemetry-api`` so that the service runs on the standard library
alone. The surface mirrors the parts of the OTel API we use:

    tracer = get_tracer(__name__)

    with tracer.start_as_current_span("inventory.reserve") as span:
        span.set_attribute("order.id", order.id)
        span.add_event("stock.reserved", {"units": 3})

    @tracer.start_as_current_span("pricing.quote")
    def quote(...): ...

so moving to the real SDK is a change of import. Finished spans are handed
to the registered :class:`SpanProcessor` objects.
"""

from __future__ import annotations

import functools
import random
import sys
from contextvars import ContextVar, Token
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from typing import Any, Callable, Mapping, Protocol, TypeVar

from .clock import Clock, get_clock

Attributes = Mapping[str, Any]
F = TypeVar("F", bound=Callable[..., Any])


class SpanKind(Enum):
    INTERNAL = "internal"
    SERVER = "server"
    CLIENT = "client"
    PRODUCER = "producer"
    CONSUMER = "consumer"


class StatusCode(Enum):
    UNSET = "unset"
    OK = "ok"
    ERROR = "error"


@dataclass(frozen=True)
class CodeLocation:
    """Where in the source a span was started or an event was added."""

    filepath: str
    function: str
    lineno: int

    @classmethod
    def of_caller(cls, depth: int = 1) -> CodeLocation:
        """Location of the frame ``depth`` levels above the caller of this method."""
        frame = sys._getframe(depth + 1)
        return cls(frame.f_code.co_filename, frame.f_code.co_name, frame.f_lineno)


@dataclass(frozen=True)
class SpanContext:
    trace_id: str
    span_id: str


@dataclass
class SpanEvent:
    name: str
    attributes: dict[str, Any]
    timestamp: datetime
    location: CodeLocation


class SpanProcessor(Protocol):
    """Receives span lifecycle notifications (exporters implement this)."""

    def on_start(self, span: Span) -> None: ...

    def on_event(self, span: Span, event: SpanEvent) -> None: ...

    def on_end(self, span: Span) -> None: ...


class TracerProvider:
    """Owns the clock, id generation and the span processors."""

    def __init__(self, *, clock: Clock | None = None, seed: int | str | None = None) -> None:
        self.clock = clock or get_clock()
        self._ids = random.Random(seed)
        self._processors: list[SpanProcessor] = []

    def add_span_processor(self, processor: SpanProcessor) -> None:
        self._processors.append(processor)

    def get_tracer(self, name: str, version: str | None = None) -> Tracer:
        return Tracer(name, version, provider=self)

    def new_trace_id(self) -> str:
        return f"{self._ids.getrandbits(128):032x}"

    def new_span_id(self) -> str:
        return f"{self._ids.getrandbits(64):016x}"

    def notify(self, hook: str, *args: Any) -> None:
        for processor in self._processors:
            getattr(processor, hook)(*args)


_provider = TracerProvider()
_current_span: ContextVar[Span | None] = ContextVar("orderflow_current_span", default=None)


def set_tracer_provider(provider: TracerProvider) -> None:
    global _provider
    _provider = provider


def get_tracer_provider() -> TracerProvider:
    return _provider


class Span:
    """A timed operation with attributes and events."""

    def __init__(self, name: str, *, tracer: Tracer, provider: TracerProvider,
                 context: SpanContext, parent: Span | None, kind: SpanKind,
                 attributes: Attributes | None, location: CodeLocation) -> None:
        self.name = name
        self.tracer = tracer
        self.context = context
        self.parent = parent
        self.kind = kind
        self.attributes: dict[str, Any] = dict(attributes or {})
        self.location = location
        self.events: list[SpanEvent] = []
        self.status = StatusCode.UNSET
        self.status_description: str | None = None
        self._provider = provider
        self.start_time = provider.clock.now()
        self.end_time: datetime | None = None

    @property
    def is_recording(self) -> bool:
        return self.end_time is None

    def set_attribute(self, key: str, value: Any) -> None:
        if self.is_recording:
            self.attributes[key] = value

    def set_attributes(self, attributes: Attributes) -> None:
        for key, value in attributes.items():
            self.set_attribute(key, value)

    def add_event(self, name: str, attributes: Attributes | None = None) -> None:
        self._add_event(name, attributes, CodeLocation.of_caller(1))

    def record_exception(self, exc: BaseException, attributes: Attributes | None = None,
                         *, _location: CodeLocation | None = None) -> None:
        attrs: dict[str, Any] = {
            "exception.type": type(exc).__qualname__,
            "exception.message": str(exc),
        }
        attrs.update(attributes or {})
        self._add_event("exception", attrs, _location or CodeLocation.of_caller(1))

    def set_status(self, code: StatusCode, description: str | None = None) -> None:
        self.status = code
        self.status_description = description

    def end(self) -> None:
        if self.end_time is None:
            self.end_time = self._provider.clock.now()
            self._provider.notify("on_end", self)

    def _add_event(self, name: str, attributes: Attributes | None,
                   location: CodeLocation) -> None:
        if not self.is_recording:
            return
        event = SpanEvent(name, dict(attributes or {}), self._provider.clock.now(), location)
        self.events.append(event)
        self._provider.notify("on_event", self, event)

    def __enter__(self) -> Span:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is not None:
            self.record_exception(exc, _location=self.location)
            self.set_status(StatusCode.ERROR, f"{exc_type.__name__}: {exc}")
        self.end()
        return False

    def __repr__(self) -> str:
        return f"<Span {self.name!r} span_id={self.context.span_id}>"


class _NonRecordingSpan(Span):
    """Returned by :func:`get_current_span` outside any span; ignores everything."""

    def __init__(self) -> None:  # deliberately skips Span.__init__
        self.name = ""
        self.attributes = {}
        self.events = []
        self.end_time = None

    @property
    def is_recording(self) -> bool:
        return False

    def _add_event(self, name, attributes, location) -> None:
        return None

    def end(self) -> None:
        return None


INVALID_SPAN: Span = _NonRecordingSpan()


class _ActiveSpan:
    """Result of :meth:`Tracer.start_as_current_span`.

    Works as a context manager (the span starts on ``__enter__``) and as a
    decorator (a new span starts on every call of the decorated function).
    """

    def __init__(self, tracer: Tracer, name: str, attributes: Attributes | None,
                 kind: SpanKind, location: CodeLocation) -> None:
        self._tracer = tracer
        self._name = name
        self._attributes = attributes
        self._kind = kind
        self._location = location
        self._active: list[tuple[Span, Token]] = []

    def __enter__(self) -> Span:
        span = self._tracer._start(self._name, self._attributes, self._kind, self._location)
        self._active.append((span, _current_span.set(span)))
        return span

    def __exit__(self, exc_type, exc, tb) -> bool:
        span, token = self._active.pop()
        _current_span.reset(token)
        return span.__exit__(exc_type, exc, tb)

    def __call__(self, func: F) -> F:
        location = replace(self._location, function=func.__name__)
        tracer, name, attributes, kind = self._tracer, self._name, self._attributes, self._kind

        @functools.wraps(func)
        def traced(*args: Any, **kwargs: Any) -> Any:
            with _ActiveSpan(tracer, name, attributes, kind, location):
                return func(*args, **kwargs)

        return traced  # type: ignore[return-value]


class Tracer:
    """Creates spans on behalf of one instrumentation scope (a module)."""

    def __init__(self, name: str, version: str | None = None, *,
                 provider: TracerProvider | None = None) -> None:
        self.name = name
        self.version = version
        self._provider = provider

    @property
    def provider(self) -> TracerProvider:
        # Resolved lazily so module-level tracers follow set_tracer_provider().
        return self._provider or get_tracer_provider()

    def start_span(self, name: str, attributes: Attributes | None = None, *,
                   kind: SpanKind = SpanKind.INTERNAL, parent: Span | None = None) -> Span:
        """Start a span without making it current; the caller must end it."""
        return self._start(name, attributes, kind, CodeLocation.of_caller(1), parent)

    def start_as_current_span(self, name: str, attributes: Attributes | None = None, *,
                              kind: SpanKind = SpanKind.INTERNAL) -> _ActiveSpan:
        return _ActiveSpan(self, name, attributes, kind, CodeLocation.of_caller(1))

    def _start(self, name: str, attributes: Attributes | None, kind: SpanKind,
               location: CodeLocation, parent: Span | None = None) -> Span:
        provider = self.provider
        if parent is None:
            parent = _current_span.get()
        trace_id = parent.context.trace_id if parent is not None else provider.new_trace_id()
        span = Span(name, tracer=self, provider=provider,
                    context=SpanContext(trace_id, provider.new_span_id()),
                    parent=parent, kind=kind, attributes=attributes, location=location)
        provider.notify("on_start", span)
        return span


def get_tracer(name: str, version: str | None = None) -> Tracer:
    """The tracer for an instrumentation scope, conventionally ``__name__``."""
    return Tracer(name, version)


def get_current_span() -> Span:
    """The active span, or a non-recording placeholder outside any span."""
    return _current_span.get() or INVALID_SPAN
