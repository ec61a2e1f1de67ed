#!/usr/bin/env python3
"""Feeds the demo's event log into a running `pmrag serve`, the way
production traffic would arrive: the cases of the first half as OTLP/HTTP
log requests (JSON, one request per 50 records, in log order), the rest as
`json` events printed for `kcat -P -K<TAB>` (key = case id).

  feed.py LOG.csv OTLP_HOST:PORT CASES_FROM CASES_TO > kafka.txt

Cases are taken in order of first event; CASES_FROM..CASES_TO (0-based,
end excluded) are sent. Prints what it sent on stderr.
"""
import csv
import datetime
import json
import sys
import urllib.request


def post(otlp, records):
    body = {"resourceLogs": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "orderflow"}}]},
        "scopeLogs": [{"scope": {"name": "orderflow"}, "logRecords": records}]}]}
    req = urllib.request.Request("http://%s/v1/logs" % otlp, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        if r.status != 200:
            raise SystemExit("OTLP/HTTP answered %d" % r.status)


def main():
    log, otlp, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rows = list(csv.DictReader(open(log, newline="")))
    first = {}
    for r in rows:
        first.setdefault(r["case_id"], r["timestamp"])
    order = sorted(first, key=lambda c: (first[c], c))[lo:hi]
    chosen = set(order)
    via_otlp = set(order[: len(order) // 2])
    batch, n_otlp, n_kafka = [], 0, 0
    for r in rows:
        c = r["case_id"]
        if c not in chosen:
            continue
        if c in via_otlp:
            t = datetime.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
            ns = int(t.timestamp()) * 1000000000 + t.microsecond * 1000
            batch.append({"timeUnixNano": str(ns), "body": {"stringValue": r["activity"]},
                          "severityText": r["level"],
                          "attributes": [{"key": "case.id", "value": {"stringValue": c}},
                                         {"key": "logger", "value": {"stringValue": r["logger"]}}]})
            n_otlp += 1
            if len(batch) == 50:
                post(otlp, batch)
                batch = []
        else:
            ev = {"case_id": c, "activity": r["activity"], "timestamp": r["timestamp"],
                  "logger": r["logger"], "level": r["level"]}
            print(c + "\t" + json.dumps(ev))
            n_kafka += 1
    if batch:
        post(otlp, batch)
    print("fed %d cases: %d events over OTLP/HTTP, %d to Kafka" % (len(order), n_otlp, n_kafka),
          file=sys.stderr)


if __name__ == "__main__":
    main()
