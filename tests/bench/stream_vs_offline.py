#!/usr/bin/env python3
"""Splits an event log the way `pmrag eval`/`predict` do, for replaying the
test split through `pmrag serve`, and turns the daemon's predictions back
into `pmrag predict`'s JSONL so that the benchmark's scorer reads both.

  split LOG.csv[.gz] OUTDIR [--train-frac 0.7]
      OUTDIR/train.csv    the training cases (the daemon's bootstrap log)
      OUTDIR/test.kcat    the test events as key<TAB>json lines, in log order
  predictions PRED.tsv OUT.jsonl
      PRED.tsv: kcat -f '%k\\t%s\\n' of the prediction topic (JSON values);
      the prediction after seq events is the ranking of prefix_len = seq
"""
import csv
import gzip
import json
import sys


def opener(path):
    return gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")


def split(path, outdir, frac):
    first = {}
    rows = []
    with opener(path) as f:
        r = csv.DictReader(f)
        fields = r.fieldnames
        for row in r:
            rows.append(row)
            c = row["case_id"]
            t = row["timestamp"]
            if c not in first or t < first[c]:
                first[c] = t
    # ISO 8601 strings in one zone order as times; ties by case id.
    order = sorted(first, key=lambda c: (first[c], c))
    ntrain = int(len(order) * frac)
    train = set(order[:ntrain])
    with open(outdir + "/train.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            if row["case_id"] in train:
                w.writerow(row)
    n = 0
    with open(outdir + "/test.kcat", "w") as f:
        for row in rows:
            if row["case_id"] in train:
                continue
            ev = {"case_id": row["case_id"], "activity": row["activity"],
                  "timestamp": row["timestamp"], "logger": row.get("logger", ""),
                  "level": row.get("level", "")}
            f.write(row["case_id"] + "\t" + json.dumps(ev) + "\n")
            n += 1
    print("%d cases: %d train, %d test (%d events)" % (len(order), ntrain, len(order) - ntrain, n))


def predictions(tsv, out):
    n = 0
    with open(tsv, encoding="utf-8") as f, open(out, "w") as o:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            if not value:
                continue
            p = json.loads(value)
            o.write(json.dumps({"case_id": key, "prefix_len": p["seq"], "ranked": p["ranked"]}) + "\n")
            n += 1
    print("%d predictions" % n)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == "split":
        frac = float(a[a.index("--train-frac") + 1]) if "--train-frac" in a else 0.7
        split(a[1], a[2], frac)
    elif len(a) == 3 and a[0] == "predictions":
        predictions(a[1], a[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
