#!/usr/bin/env python3
"""Helpers of tests/integration/online_accuracy.sh: a log's test split
replayed through `pmrag serve` over OTLP/HTTP, with the code.* attributes
an instrumented application would attach to its records.

  split LOG.csv OUTDIR [--train-frac F]
      the split `pmrag eval` makes (cases by first event, ties by case id,
      the first F, 0.7, train): OUTDIR/train.csv, the training cases (the
      daemon's bootstrap log); OUTDIR/test.json, the test events in log
      order; prints the number of test targets (events but each case's
      first), which is what the daemon must score
  send TEST.json HOST:PORT [PER_REQUEST]
      posts the test events as OTLP/HTTP JSON log requests (PER_REQUEST
      records each, 50 by default), in log order, and checks each answer
"""
import csv
import datetime
import json
import sys
import urllib.request


def split(path, outdir, frac):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        fields = r.fieldnames
        rows = list(r)
    first = {}
    for row in rows:
        c, t = row["case_id"], row["timestamp"]
        if c not in first or t < first[c]:
            first[c] = t
    order = sorted(first, key=lambda c: (first[c], c))
    train = set(order[: int(len(order) * frac)])
    with open(outdir + "/train.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            if row["case_id"] in train:
                w.writerow(row)
    test = [row for row in rows if row["case_id"] not in train]
    with open(outdir + "/test.json", "w") as f:
        json.dump(test, f)
    per_case = {}
    for row in test:
        per_case[row["case_id"]] = per_case.get(row["case_id"], 0) + 1
    print(sum(n - 1 for n in per_case.values()))


def attr(key, value):
    return {"key": key, "value": value}


def record(row):
    t = datetime.datetime.fromisoformat(row["timestamp"].replace("Z", "+00:00"))
    ns = int(t.timestamp()) * 1000000000 + t.microsecond * 1000
    attrs = [attr("case.id", {"stringValue": row["case_id"]}),
             attr("logger", {"stringValue": row.get("logger", "")})]
    if row.get("code.filepath"):
        attrs.append(attr("code.filepath", {"stringValue": row["code.filepath"]}))
        attrs.append(attr("code.function", {"stringValue": row.get("code.function", "")}))
        # As OpenTelemetry SDKs send it: an int (a string in OTLP JSON).
        attrs.append(attr("code.lineno", {"intValue": str(int(row["code.lineno"]))}))
    return {"timeUnixNano": str(ns), "body": {"stringValue": row["activity"]},
            "severityText": row.get("level", ""), "attributes": attrs}


def post(addr, records):
    body = {"resourceLogs": [{
        "resource": {"attributes": [attr("service.name", {"stringValue": "orderflow"})]},
        "scopeLogs": [{"scope": {"name": "orderflow"}, "logRecords": records}]}]}
    req = urllib.request.Request("http://%s/v1/logs" % addr, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        if r.status != 200:
            raise SystemExit("OTLP/HTTP answered %d" % r.status)


def send(path, addr, per):
    rows = json.load(open(path))
    for i in range(0, len(rows), per):
        post(addr, [record(r) for r in rows[i:i + per]])
    print(len(rows))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "split":
        split(a[1], a[2], float(a[a.index("--train-frac") + 1]) if "--train-frac" in a else 0.7)
    elif len(a) in (3, 4) and a[0] == "send":
        send(a[1], a[2], int(a[3]) if len(a) == 4 else 50)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
