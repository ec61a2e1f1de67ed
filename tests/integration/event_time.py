#!/usr/bin/env python3
"""Helpers of tests/integration/event_time.sh: OTLP JSON requests of one
order's trace as two services would export them, and a retried batch.

  skew OUTDIR CASE SKEW_MS
      The eight events of one order (the activities of stages.py, in this
      true order: a root span of service A, its log record, a span of
      service B with two child spans and a log record in the second, then
      a span of A with its log record), service B's clock SKEW_MS ahead of
      A's. Written as the SDKs export them: each service's log records as
      they are logged, its spans as they end (the root last), one request
      per service and signal: B's logs, B's spans, A's logs, A's spans, as
      OUTDIR/NN_{traces,logs}.json.
  truth OUTDIR CASE
      The same eight events in their true order and on one clock, one
      request each, as OUTDIR/NN_{traces,logs}.json.
  retry OUTDIR CASE
      A batch an exporter sends again, and the same events regrouped with
      new ones (another request: a redelivery, or a retry after the batch
      processor took more in): 01 three spans, 02 the same bytes again,
      03 two of them and a new one; 04 two log records, 05 the same two and
      a new one. Seven distinct events; the request received twice, and
      four events received again in other requests.

Every request is OTLP JSON for POST /v1/traces or /v1/logs.
"""
import json
import os
import sys
import zlib

T0 = 1700000000000000000
MS = 1000000
ACTS = ["request received", "payload validated", "stock reserved", "stock row locked",
        "reservation written", "shipment queued", "label printed", "response sent"]


def attrs(d):
    return [{"key": k, "value": {"stringValue": v}} for k, v in d.items()]


def ids(case):
    trace = "%032x" % (zlib.crc32(case.encode()) + 1)
    return trace, lambda n: "%016x" % (zlib.crc32(case.encode()) * 100 + n)


def span(case, n, parent, name, start, end):
    trace, sid = ids(case)
    return {"traceId": trace, "spanId": sid(n), "parentSpanId": sid(parent) if parent else "",
            "name": name, "kind": 1, "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end), "attributes": attrs({"case.id": case})}


def log(case, n, body, t):
    trace, sid = ids(case)
    return {"timeUnixNano": str(t), "severityNumber": 9, "severityText": "INFO",
            "body": {"stringValue": body}, "traceId": trace, "spanId": sid(n),
            "attributes": attrs({"case.id": case})}


def request(service, recs, spans):
    res = {"attributes": attrs({"service.name": service})}
    if spans:
        return "traces", {"resourceSpans": [{"resource": res, "scopeSpans": [
            {"scope": {"name": service}, "spans": recs}]}]}
    return "logs", {"resourceLogs": [{"resource": res, "scopeLogs": [
        {"scope": {"name": service}, "logRecords": recs}]}]}


def events(case, skew):
    """(service, is_span, end, record) in true order; t_i = T0 + 10 ms i;
    B's records stamped SKEW ahead."""
    t = [T0 + 10 * MS * i for i in range(8)]
    b = skew * MS
    return [
        ("A", True, t[0] + 90 * MS, span(case, 1, 0, ACTS[0], t[0], t[0] + 90 * MS)),
        ("A", False, t[1], log(case, 1, ACTS[1], t[1])),
        ("B", True, t[5] + 5 * MS + b, span(case, 2, 1, ACTS[2], t[2] + b, t[5] + 5 * MS + b)),
        ("B", True, t[3] + 5 * MS + b, span(case, 3, 2, ACTS[3], t[3] + b, t[3] + 5 * MS + b)),
        ("B", True, t[4] + 12 * MS + b, span(case, 4, 2, ACTS[4], t[4] + b, t[4] + 12 * MS + b)),
        ("B", False, t[5] + b, log(case, 4, ACTS[5], t[5] + b)),
        ("A", True, t[6] + 15 * MS, span(case, 5, 1, ACTS[6], t[6], t[6] + 15 * MS)),
        ("A", False, t[7], log(case, 5, ACTS[7], t[7])),
    ]


def write(outdir, reqs):
    os.makedirs(outdir, exist_ok=True)
    for i, (path, body) in enumerate(reqs, 1):
        with open(os.path.join(outdir, "%02d_%s.json" % (i, path)), "w") as f:
            json.dump(body, f)


def skewed(outdir, case, skew):
    evs = events(case, skew)
    reqs = []
    for service in ("B", "A"):
        for spans in (False, True):
            mine = sorted((e for e in evs if e[0] == service and e[1] == spans),
                          key=lambda e: e[2])
            reqs.append(request(service, [e[3] for e in mine], spans))
    write(outdir, reqs)


def truth(outdir, case):
    write(outdir, [request(e[0], [e[3]], e[1]) for e in events(case, 0)])


def retry(outdir, case):
    t = [T0 + 10 * MS * i for i in range(8)]
    s = [span(case, i + 1, 0, ACTS[i], t[i], t[i] + 5 * MS) for i in range(4)]
    lg = [log(case, 1, ACTS[4 + i], t[4] + i * MS) for i in range(3)]
    first = request("A", s[:3], True)
    write(outdir, [first, first, request("A", [s[1], s[3], s[2]], True),
                   request("A", lg[:2], False), request("A", lg, False)])


def main(a):
    if len(a) == 4 and a[0] == "skew":
        skewed(a[1], a[2], int(a[3]))
    elif len(a) == 3 and a[0] == "truth":
        truth(a[1], a[2])
    elif len(a) == 3 and a[0] == "retry":
        retry(a[1], a[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
