#!/usr/bin/env python3
"""Runs the demo application's simulated orders traced by the real
OpenTelemetry Python SDK, exporting spans and log records over OTLP/HTTP
(protobuf) or OTLP/gRPC to one or more `pmrag serve`s while it runs.

  otel_app.py --orders 40 --seed 99 --endpoint 127.0.0.1:4318 [--endpoint ...]
              [--manifest FILE] [--batch]
              [--protocol grpc [--compression gzip] [--ca CERT] [--token-file F]]

--protocol grpc uses the SDK's gRPC exporters (grpcio) instead of the
HTTP ones: --endpoint is then an OTLP/gRPC receiver (port 4317), spoken to
in plain text, or over TLS trusting the certificate --ca names; --token-file
sends its token as "authorization: Bearer ..."; --compression gzip has the
exporters compress their messages (grpc-encoding: gzip).

Needs the SDK (deploy/deps.sh --otel; run it with .deps/otel-venv/bin/python,
or deploy/otel-python.sh). The workload is the simulator's (orderflow.simulate:
seeded shoppers, fake backends, a simulated clock). The application traces
through the OpenTelemetry API; this script installs the SDK's tracer provider
as the simulator does (orderflow.simulate.SimulatedTracerProvider: the
simulated clock's times, seeded ids), with the SDK's span processors and its
OTLPSpanExporter, which export each span when it ends. Log records go through
the SDK's own LoggingHandler (which sets code.file.path, code.function.name
and code.line.number) to its LoggerProvider and OTLPLogExporter. On spans
the simulator's SpanOrigin processor sets the same code.* attributes, from
where the span was started.

Every record gets case.id, the order it belongs to (records outside any
order are not exported, as the simulator's log leaves them out), and log
records logger.name. By default the SDK's Simple processors export each
record as it is emitted (one request each, in a fixed order: log records
when logged, spans when they end); --batch uses the Batch processors.
--manifest writes one JSON line per record the first endpoint accepted,
in the order they were sent: {"case", "activity", "signal", "time_unix_nano"}
(signal "span", "event" for each event of a span, after it, or "log").
"""
from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

APP = Path(__file__).resolve().parent / "app" / "python"
sys.path.insert(0, str(APP))

try:
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs.export import (BatchLogRecordProcessor, LogRecordExporter,
                                                LogRecordExportResult, SimpleLogRecordProcessor)
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import (BatchSpanProcessor, SimpleSpanProcessor,
                                                SpanExporter, SpanExportResult)
except ImportError as e:  # pragma: no cover
    sys.exit("otel_app.py: the OpenTelemetry SDK is not importable (%s); run deploy/deps.sh "
             "--otel and use .deps/otel-venv/bin/python" % e)

from orderflow import simulate  # noqa: E402
from orderflow.clock import SimulatedClock, set_clock  # noqa: E402
from orderflow.config import Settings  # noqa: E402
from orderflow.log import current_order_id  # noqa: E402
from orderflow.simulate import (CASE, SimulatedTracerProvider, SpanOrigin,  # noqa: E402
                               install_tracer_provider)


class OrderRecords(logging.Filter):
    """Keeps the records logged inside an order, with their case id, the
    logger's name and the simulated time."""

    def __init__(self, clock: SimulatedClock) -> None:
        super().__init__()
        self.clock = clock
        self.unattributed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        case = current_order_id.get()
        if case is None:
            self.unattributed += 1
            return False
        setattr(record, CASE, case)
        setattr(record, "logger.name", record.name)
        record.created = self.clock.now().timestamp()
        return True


class Manifest:
    def __init__(self, path: Path | None) -> None:
        self.f = open(path, "w", encoding="utf-8") if path else None
        self.n = 0

    def add(self, case: str, activity: str, signal: str, time_ns: int) -> None:
        self.n += 1
        if self.f:
            self.f.write(json.dumps({"case": case, "activity": activity, "signal": signal,
                                     "time_unix_nano": time_ns}) + "\n")


class CaseSpans(SpanExporter):
    """Exports the spans that belong to an order; notes them when accepted."""

    def __init__(self, inner: SpanExporter, manifest: Manifest | None) -> None:
        self.inner, self.manifest = inner, manifest

    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        mine = [s for s in spans if s.attributes and s.attributes.get(CASE)]
        if not mine:
            return SpanExportResult.SUCCESS
        r = self.inner.export(mine)
        if r == SpanExportResult.SUCCESS and self.manifest:
            for s in mine:
                self.manifest.add(s.attributes[CASE], s.name, "span", s.start_time)
                # Its events (add_event, exceptions) are events of the case too.
                for e in s.events:
                    self.manifest.add(s.attributes[CASE], e.name, "event",
                                      e.timestamp or s.start_time)
        return r

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class CaseLogs(LogRecordExporter):
    def __init__(self, inner: LogRecordExporter, manifest: Manifest | None) -> None:
        self.inner, self.manifest = inner, manifest

    def export(self, batch: Sequence[Any]) -> LogRecordExportResult:
        r = self.inner.export(batch)
        if r == LogRecordExportResult.SUCCESS and self.manifest:
            for rec in batch:
                lr = rec.log_record
                self.manifest.add(lr.attributes[CASE], str(lr.body), "log", lr.timestamp)
        return r

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def http_exporters(ep: str) -> tuple[SpanExporter, LogRecordExporter]:
    return (OTLPSpanExporter(endpoint=f"http://{ep}/v1/traces", timeout=30),
            OTLPLogExporter(endpoint=f"http://{ep}/v1/logs", timeout=30))


def grpc_exporters(args: argparse.Namespace):
    """The SDK's OTLP/gRPC exporters (imported only when asked for)."""
    import grpc
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (
        OTLPLogExporter as GrpcLogExporter)
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
        OTLPSpanExporter as GrpcSpanExporter)
    kw: dict[str, Any] = {"timeout": 30}
    if args.compression == "gzip":
        kw["compression"] = grpc.Compression.Gzip
    if args.token_file:
        kw["headers"] = {"authorization": "Bearer " + args.token_file.read_text().strip()}
    scheme = "http"
    if args.ca:
        kw["credentials"] = grpc.ssl_channel_credentials(root_certificates=args.ca.read_bytes())
        kw["insecure"] = False
        scheme = "https"
    else:
        kw["insecure"] = True

    def make(ep: str) -> tuple[SpanExporter, LogRecordExporter]:
        return (GrpcSpanExporter(endpoint=f"{scheme}://{ep}", **kw),
                GrpcLogExporter(endpoint=f"{scheme}://{ep}", **kw))
    return make


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--orders", type=int, default=40)
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--endpoint", action="append", required=True,
                    help="host:port of an OTLP/HTTP receiver (repeat for more)")
    ap.add_argument("--manifest", type=Path, help="JSON lines of what the first endpoint accepted")
    ap.add_argument("--batch", action="store_true", help="Batch processors instead of Simple")
    ap.add_argument("--level", default="DEBUG", choices=("DEBUG", "INFO", "WARNING"))
    ap.add_argument("--protocol", default="http", choices=("http", "grpc"))
    ap.add_argument("--compression", default="none", choices=("none", "gzip"))
    ap.add_argument("--ca", type=Path, help="gRPC over TLS: the server certificate to trust")
    ap.add_argument("--token-file", type=Path, help="gRPC: send this bearer token")
    args = ap.parse_args(argv)
    exporters = http_exporters if args.protocol == "http" else grpc_exporters(args)

    wall = time.perf_counter()
    clock = SimulatedClock(simulate.START, seed=args.seed)
    set_clock(clock)
    resource = Resource.create({"service.name": "orderflow"})
    tracing = SimulatedTracerProvider(clock, args.seed, resource=resource)
    tracing.add_span_processor(SpanOrigin())
    logs = LoggerProvider(resource=resource)
    manifest = Manifest(args.manifest)
    span_proc = BatchSpanProcessor if args.batch else SimpleSpanProcessor
    log_proc = BatchLogRecordProcessor if args.batch else SimpleLogRecordProcessor
    for i, ep in enumerate(args.endpoint):
        m = manifest if i == 0 else None
        spans, records = exporters(ep)
        tracing.add_span_processor(span_proc(CaseSpans(spans, m)))
        logs.add_log_record_processor(log_proc(CaseLogs(records, m)))
    install_tracer_provider(tracing)

    with warnings.catch_warnings():
        # The SDK's LoggingHandler is deprecated in favour of the one of
        # opentelemetry-instrumentation-logging; it is what this SDK ships.
        warnings.simplefilter("ignore", DeprecationWarning)
        handler = LoggingHandler(logger_provider=logs)
    records = OrderRecords(clock)
    handler.addFilter(records)
    root = logging.getLogger("orderflow")
    root.setLevel(args.level)
    root.addHandler(handler)
    root.propagate = False
    try:
        customers = simulate.build_customers(random.Random(f"customers:{args.seed}"))
        app = simulate.build_application(Settings.from_env(), clock, args.seed, customers)
        simulate.Shoppers(app, customers, clock, random.Random(f"shoppers:{args.seed}")).run(
            args.orders)
    finally:
        root.removeHandler(handler)
        tracing.shutdown()
        logs.shutdown()
    if manifest.f:
        manifest.f.close()
    print("otel_app: %d orders (seed %d) traced by the OpenTelemetry SDK: %d records exported to "
          "%s in %.1f s" % (args.orders, args.seed, manifest.n, ", ".join(args.endpoint),
                            time.perf_counter() - wall), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
