#!/usr/bin/env python3
"""An application that exports to an OpenTelemetry Collector: OTLP/HTTP
with JSON bodies (urllib only, the way any SDK's HTTP exporter posts them),
spans to /v1/traces and log records to /v1/logs, then writes what it sent.

    app.py URL CASES SEED PREFIX OUT.json

CASES traces, each of 2 to 5 spans and 1 to 3 log records of the demo
application (deploy/demo/app), with trace ids derived from SEED and PREFIX
(so that runs against several Collectors never share a case). No record
carries a case attribute: each trace is its case, and pmrag's case id is
its trace id (32 lowercase hex digits). Each request holds whole traces
(4 at a time), the spans of a trace in order of their start time, its log
records likewise, after them in time. A request the Collector does not
answer 200 is an error (exit 1). OUT.json: {"CASE": [["span"|"log",
ACTIVITY], ...]} in the order sent, spans first.
"""
import hashlib
import json
import random
import re
import sys
import time
import urllib.request

SPANS = ["POST /orders", "order.place", "order.fulfil", "order.cancel"]
LOGS = [
    "order %s passed fraud screening with score %.2f",
    "reserved %d unit(s) for order %s from %s",
    "replaying idempotent create for order %s",
]


def post(url, path, body):
    data = json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        if r.status != 200:
            raise SystemExit("app: %s answered %d" % (path, r.status))
        r.read()


def resource():
    return {"attributes": [{"key": "service.name", "value": {"stringValue": "orderflow"}}]}


def main():
    url, ncases, seed, prefix, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    rnd = random.Random(seed)
    t0 = int(time.time() * 1e9)
    sent = {}
    traces = []
    for c in range(ncases):
        tid = hashlib.sha256(("%s/%d/%d" % (prefix, seed, c)).encode()).hexdigest()[:32]
        order = "ord_%s_%d" % (prefix, c)
        spans, logs, evs = [], [], []
        t = t0 + c * 1_000_000_000
        for i in range(rnd.randint(2, 5)):
            name = SPANS[0] if i == 0 else rnd.choice(SPANS[1:])
            sid = hashlib.sha256(("%s/%d" % (tid, i)).encode()).hexdigest()[:16]
            spans.append({"traceId": tid, "spanId": sid, "name": name, "kind": 2 if i == 0 else 1,
                          "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 500_000),
                          "attributes": [{"key": "order.id", "value": {"stringValue": order}}]})
            evs.append(["span", name])
            t += 1_000_000
        for i in range(rnd.randint(1, 3)):
            tmpl = rnd.choice(LOGS)
            args = {"%s": lambda: order, "%d": lambda: rnd.randint(1, 9),
                    "%.2f": lambda: rnd.random()}
            body = tmpl % tuple(args[m]() for m in re.findall(r"%(?:\.2f|s|d)", tmpl))
            logs.append({"timeUnixNano": str(t), "observedTimeUnixNano": str(t),
                         "severityNumber": 9, "severityText": "INFO",
                         "body": {"stringValue": body}, "traceId": tid,
                         "spanId": spans[-1]["spanId"],
                         "attributes": [{"key": "logger.name", "value": {"stringValue": "orderflow.orders"}}]})
            evs.append(["log", body, tmpl])
            t += 1_000_000
        traces.append((spans, logs))
        sent[tid] = evs
    for i in range(0, len(traces), 4):
        chunk = traces[i:i + 4]
        post(url, "/v1/traces", {"resourceSpans": [{"resource": resource(), "scopeSpans": [
            {"scope": {"name": "orderflow"}, "spans": [s for sp, _ in chunk for s in sp]}]}]})
        post(url, "/v1/logs", {"resourceLogs": [{"resource": resource(), "scopeLogs": [
            {"scope": {"name": "orderflow"}, "logRecords": [r for _, lg in chunk for r in lg]}]}]})
    json.dump(sent, open(out, "w"), indent=0)
    print("app: %d traces, %d spans, %d log records sent to %s" % (
        len(sent), sum(e[0] == "span" for v in sent.values() for e in v),
        sum(e[0] == "log" for v in sent.values() for e in v), url))


if __name__ == "__main__":
    main()
