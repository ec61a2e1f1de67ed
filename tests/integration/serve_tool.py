#!/usr/bin/env python3
"""Helpers of tests/integration/serve.sh.

  split LOG.csv OUTDIR      cases into four sets, one per client: otel.jsonl
                            (the OpenTelemetry JS SDK), kcat_json.txt (one
                            `json` event per line, key:value for kcat -K),
                            proto/ (one OTLP protobuf request per file, for
                            kcat -P), train.csv (what the model learns from);
                            expected.json: events per case
  check EXPECTED PRED       every event has exactly one prediction with the
                            right key and seq (predictions: kcat -f '%k\\t%s\\n')

The protobuf encoder here is written from the OTLP field numbers, apart
from pmrag's decoder, so that the two check each other.
"""
import csv
import json
import os
import sys
import zlib


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_len(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def field_fixed64(num, value):
    return varint(num << 3 | 1) + value.to_bytes(8, "little")


def key_value(key, value):
    any_value = field_len(1, value.encode())  # AnyValue.string_value = 1
    return field_len(1, key.encode()) + field_len(2, any_value)


def trace_request(case_id, names, t0, first=0):
    """ExportTraceServiceRequest: one resource, one scope, a span per name
    (span ids first + 1, first + 2, ...: unique in the case's trace)."""
    spans = b""
    for i, name in enumerate(names):
        trace_id = (zlib.crc32(case_id.encode()) + 1).to_bytes(16, "big")
        span = (
            field_len(1, trace_id)  # trace_id
            + field_len(2, (first + i + 1).to_bytes(8, "big"))  # span_id
            + field_len(5, name.encode())  # name
            + field_fixed64(7, t0 + i * 1000)  # start_time_unix_nano
            + field_fixed64(8, t0 + i * 1000 + 500)  # end_time_unix_nano
            + field_len(9, key_value("case.id", case_id))  # attributes
        )
        spans += field_len(2, span)  # ScopeSpans.spans = 2
    scope_spans = field_len(1, field_len(1, b"kcat-test")) + spans  # scope.name
    resource = field_len(1, key_value("service.name", "kcat-test"))
    resource_spans = field_len(1, resource) + field_len(2, scope_spans)
    return field_len(1, resource_spans)  # resource_spans = 1


def split(log, outdir):
    cases = {}
    order = []
    with open(log, newline="") as f:
        for row in csv.DictReader(f):
            c = row["case_id"]
            if c not in cases:
                cases[c] = []
                order.append(c)
            cases[c].append(row)
    # The first half trains the model; the rest go to the four clients.
    ntrain = len(order) // 2
    with open(os.path.join(outdir, "train.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case_id", "timestamp", "activity", "level", "logger"])
        for c in order[:ntrain]:
            for r in cases[c]:
                w.writerow([c, r["timestamp"], r["activity"], r["level"], r["logger"]])
    live = order[ntrain:]
    groups = [live[i::3] for i in range(3)]
    expected = {}
    with open(os.path.join(outdir, "otel.jsonl"), "w") as f:
        for c in groups[0]:
            for r in cases[c]:
                f.write(json.dumps({"case_id": c, "activity": r["activity"]}) + "\n")
            expected[c] = len(cases[c])
    with open(os.path.join(outdir, "kcat_json.txt"), "w") as f:
        for c in groups[1]:
            for r in cases[c]:
                ev = {"case_id": c, "activity": r["activity"], "timestamp": r["timestamp"],
                      "logger": r["logger"], "level": r["level"]}
                f.write(c + "\t" + json.dumps(ev) + "\n")
            expected[c] = len(cases[c])
    pdir = os.path.join(outdir, "proto")
    os.makedirs(pdir, exist_ok=True)
    n = 0
    for c in groups[2]:
        names = [r["activity"] for r in cases[c]]
        # two requests per case: the split must not change the order
        half = max(1, len(names) // 2)
        for part, t0, first in ((names[:half], 1700000000000000000, 0),
                                (names[half:], 1700000001000000000, half)):
            if not part:
                continue
            with open(os.path.join(pdir, "%04d_%s.pb" % (n, c)), "wb") as f:
                f.write(trace_request(c, part, t0, first))
            n += 1
        expected[c] = len(cases[c])
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(expected, f)
    print("%d cases train, %d live (%d events): %d otel, %d kcat json, %d kcat proto"
          % (ntrain, len(live), sum(expected.values()), len(groups[0]), len(groups[1]),
             len(groups[2])))


def check(expected_path, pred_path):
    expected = json.load(open(expected_path))
    seen = {}
    bad = 0
    for line in open(pred_path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        key, _, value = line.partition("\t")
        p = json.loads(value)
        if p["case_id"] != key:
            print("key %r but case_id %r" % (key, p["case_id"]))
            bad += 1
        for f in ("seq", "revision", "activity", "time_unix_nano", "model_version", "ranked",
                  "latency_us", "last_rank"):
            if f not in p:
                print("prediction without %s: %s" % (f, line[:200]))
                bad += 1
        # Every prediction but a case's first scores the one before it
        # (in order: these clients send each case's events in order, so
        # nothing is placed late and published again unscored).
        if "last_rank" in p and (p["last_rank"] is None) != (p.get("seq") == 1):
            print("seq %s with last_rank %s: %s" % (p.get("seq"), p["last_rank"], line[:200]))
            bad += 1
        for r in p.get("ranked", []):
            for f in ("symbol", "kind", "file", "start_line", "end_line", "score", "activity",
                      "near"):
                if f not in r:
                    print("ranked item without %s: %s" % (f, r))
                    bad += 1
        seen.setdefault(key, []).append(p["seq"])
    missing = dup = ranked_cases = 0
    for c, n in expected.items():
        got = sorted(seen.get(c, []))
        if got != list(range(1, n + 1)):
            missing += len(set(range(1, n + 1)) - set(got))
            dup += len(got) - len(set(got))
            if missing or dup:
                print("case %s: %d events, seqs %s" % (c, n, got[:20]))
    extra = [c for c in seen if c not in expected]
    total = sum(expected.values())
    print("%d events in %d cases: %d predictions, %d missing, %d duplicated, %d unexpected cases"
          % (total, len(expected), sum(len(v) for v in seen.values()), missing, dup, len(extra)))
    return 0 if not (bad or missing or dup or extra) else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
