#!/usr/bin/env python3
"""Helpers of tests/bench/arrival_order.sh: what the OpenTelemetry SDK sent,
captured; the same events fed again in start order; the latency the
event-time window adds.

  capture PORT OUT.jsonl
      An OTLP/HTTP (protobuf) receiver on 127.0.0.1:PORT that answers every
      export at once and writes one JSON line per event pmrag makes of it,
      in the order received: a span, then each of its span events, or a log
      record, with everything it carries (attributes with their types, ids,
      times, scope), the request's number and when it came (seconds after
      the first). Runs on the OpenTelemetry SDK's Python (its protobuf
      classes); stops on SIGTERM.
  feed CAPTURE.jsonl ORDER URL...
      Sends the captured events again, as OTLP JSON over OTLP/HTTP, to
      every URL (host:port), waiting for each 200: in the requests they
      came in and at the times they came (from the first request), so that
      the daemons learn online at the pace of the SDK's traffic (a model
      rebuilt every 200 events gives other predictions when the same events
      come faster or slower). ORDER arrival: as they were received (the
      control); start: each case's events regrouped by time (a span by its
      start, a span event or log record by its time; ties as received), its
      k-th event sent where its k-th arrived (in the same request), so that
      cases interleave as they did. A request's spans and log records go in
      one request per run of either. A span event
      goes as a log record with its name as the body, its attributes then
      its span's, and its span's ids and scope: the event pmrag makes of it
      (only its kind differs, which an arrival-order daemon does not read).
  latency ZERO.jsonl WINDOW.jsonl
      Predictions (stdout JSON lines) of a daemon with serve.reorder_ms=0
      and of one with the window, of the same events: each event's first
      prediction (its own, whatever its revision: a token applied again
      after a late event is published later) matched by (case, time,
      activity); prints one JSON object:
      the events matched and the added latency's p50, p99 and max in ms
      (window's latency_us minus the other's, per event).
"""
import json
import signal
import sys
import threading


def any_json(v):
    """An AnyValue (protobuf) as OTLP JSON."""
    k = v.WhichOneof("value")
    if k == "string_value":
        return {"stringValue": v.string_value}
    if k == "int_value":
        return {"intValue": str(v.int_value)}
    if k == "double_value":
        return {"doubleValue": v.double_value}
    if k == "bool_value":
        return {"boolValue": v.bool_value}
    if k == "array_value":
        return {"arrayValue": {"values": [any_json(x) for x in v.array_value.values]}}
    if k == "kvlist_value":
        return {"kvlistValue": {"values": [kv_json(x) for x in v.kvlist_value.values]}}
    if k == "bytes_value":
        import base64
        return {"bytesValue": base64.b64encode(v.bytes_value).decode()}
    return {}


def kv_json(kv):
    return {"key": kv.key, "value": any_json(kv.value)}


def case_of(attrs):
    for a in attrs:
        if a["key"] == "case.id":
            return a["value"].get("stringValue")
    return None


def capture(port, out_path):
    import http.server
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import \
        ExportTraceServiceRequest
    import time
    out = open(out_path, "w")
    lock = threading.Lock()
    clock = {"n": 0, "t0": None}

    def write(rec, at):
        rec.update(at)
        out.write(json.dumps(rec, separators=(",", ":")) + "\n")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                now = time.monotonic()
                if clock["t0"] is None:
                    clock["t0"] = now
                clock["n"] += 1
                at = {"req": clock["n"], "at": round(now - clock["t0"], 6)}
                if self.path.endswith("/v1/traces"):
                    m = ExportTraceServiceRequest()
                    m.ParseFromString(body)
                    for rs in m.resource_spans:
                        res = [kv_json(a) for a in rs.resource.attributes]
                        for ss in rs.scope_spans:
                            for s in ss.spans:
                                attrs = [kv_json(a) for a in s.attributes]
                                ids = {"traceId": s.trace_id.hex(), "spanId": s.span_id.hex()}
                                write({"sig": "span", "case": case_of(attrs),
                                       "t": s.start_time_unix_nano, "res": res,
                                       "scope": ss.scope.name, "span": dict(
                                           ids, parentSpanId=s.parent_span_id.hex(), name=s.name,
                                           kind=int(s.kind),
                                           startTimeUnixNano=str(s.start_time_unix_nano),
                                           endTimeUnixNano=str(s.end_time_unix_nano),
                                           attributes=attrs)}, at)
                                for e in s.events:
                                    t = e.time_unix_nano or s.start_time_unix_nano
                                    write({"sig": "event", "case": case_of(attrs), "t": t,
                                           "res": res, "scope": ss.scope.name, "log": dict(
                                               ids, timeUnixNano=str(t),
                                               body={"stringValue": e.name},
                                               attributes=[kv_json(a) for a in e.attributes]
                                               + attrs)}, at)
                else:
                    m = ExportLogsServiceRequest()
                    m.ParseFromString(body)
                    for rl in m.resource_logs:
                        res = [kv_json(a) for a in rl.resource.attributes]
                        for sl in rl.scope_logs:
                            for r in sl.log_records:
                                attrs = [kv_json(a) for a in r.attributes]
                                rec = {"attributes": attrs, "body": any_json(r.body),
                                       "timeUnixNano": str(r.time_unix_nano),
                                       "observedTimeUnixNano": str(r.observed_time_unix_nano),
                                       "severityNumber": int(r.severity_number),
                                       "severityText": r.severity_text,
                                       "traceId": r.trace_id.hex(), "spanId": r.span_id.hex()}
                                write({"sig": "log", "case": case_of(attrs),
                                       "t": r.time_unix_nano or r.observed_time_unix_nano,
                                       "res": res, "scope": sl.scope.name, "log": rec}, at)
                out.flush()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=srv.shutdown).start())
    srv.serve_forever()
    out.close()


def start_order(recs):
    """Each case's k-th arrival slot gets its k-th event by time."""
    by_case = {}
    for i, r in enumerate(recs):
        by_case.setdefault(r["case"], []).append(i)
    out = list(recs)
    for idx in by_case.values():
        ordered = sorted(idx, key=lambda i: (recs[i]["t"], i))
        for slot, i in zip(idx, ordered):
            out[slot] = dict(recs[i], req=recs[slot]["req"], at=recs[slot]["at"])
    return out


def body_of(chunk):
    """One export request per signal of a run of same-signal events."""
    spans = chunk[0]["sig"] == "span"
    groups = []
    for r in chunk:
        key = (json.dumps(r["res"], sort_keys=True), r["scope"])
        if not groups or groups[-1][0] != key:
            groups.append((key, r["res"], r["scope"], []))
        groups[-1][3].append(r["span"] if spans else r["log"])
    if spans:
        return "/v1/traces", {"resourceSpans": [
            {"resource": {"attributes": res}, "scopeSpans": [{"scope": {"name": sc}, "spans": v}]}
            for _, res, sc, v in groups]}
    return "/v1/logs", {"resourceLogs": [
        {"resource": {"attributes": res}, "scopeLogs": [{"scope": {"name": sc}, "logRecords": v}]}
        for _, res, sc, v in groups]}


def feed(capture_path, order, urls):
    import http.client
    import time
    recs = [json.loads(line) for line in open(capture_path)]
    if order == "start":
        recs = start_order(recs)
    conns = {}
    sent = 0
    i = 0
    t0 = time.monotonic()
    while i < len(recs):
        # The events of one request received, one signal (spans; logs and
        # span events) at a time, when it came.
        j = i
        kind = recs[i]["sig"] == "span"
        while j < len(recs) and recs[j]["req"] == recs[i]["req"] and \
                (recs[j]["sig"] == "span") == kind:
            j += 1
        wait = t0 + recs[i]["at"] - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        path, body = body_of(recs[i:j])
        data = json.dumps(body).encode()
        for u in urls:
            c = conns.get(u)
            if c is None:
                host, port = u.rsplit(":", 1)
                c = conns[u] = http.client.HTTPConnection(host, int(port), timeout=60)
            c.request("POST", path, data, {"Content-Type": "application/json"})
            resp = c.getresponse()
            resp.read()
            if resp.status != 200:
                sys.exit("feed: %s%s: status %d" % (u, path, resp.status))
        sent += j - i
        i = j
    print("fed %d events in %s order to %s" % (sent, order, ", ".join(urls)), file=sys.stderr)


def first_latencies(path):
    out = {}
    for line in open(path):
        p = json.loads(line)
        # The first one of an event is its own (it may revise the seq it
        # takes); a token applied again after a late event comes later.
        k = (p["case_id"], p["time_unix_nano"], p["activity"])
        if k not in out:
            out[k] = p["latency_us"]
    return out


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


def latency(zero_path, window_path):
    a, b = first_latencies(zero_path), first_latencies(window_path)
    added = [(b[k] - a[k]) / 1000.0 for k in a if k in b]
    res = {"events": len(added), "window_only": len(b) - len(added),
           "p50_ms": pct(added, 0.5), "p99_ms": pct(added, 0.99),
           "max_ms": max(added) if added else None,
           "window_p50_ms": pct([v / 1000.0 for v in b.values()], 0.5),
           "window_p99_ms": pct([v / 1000.0 for v in b.values()], 0.99),
           "zero_p50_ms": pct([v / 1000.0 for v in a.values()], 0.5),
           "zero_p99_ms": pct([v / 1000.0 for v in a.values()], 0.99)}
    print(json.dumps(res))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "capture":
        capture(int(a[1]), a[2])
    elif len(a) >= 4 and a[0] == "feed" and a[2] in ("start", "arrival"):
        feed(a[1], a[2], a[3:])
    elif len(a) == 3 and a[0] == "latency":
        latency(a[1], a[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
