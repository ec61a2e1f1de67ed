#!/usr/bin/python3
"""Reference baselines for an event log, in the spirit of shared/bench/README.md.

    baselines.py LOG.csv.gz [--train-frac 0.7]

Cases are ordered by first timestamp then case_id (as score.py does); the
first floor(0.7 * cases) are train, the rest test.  Targets: every prefix
k = 1..n-1 of each test case; the target is the emitter (code.filepath,
code.lineno) of event k+1.  Baselines use the TRUE emitters of the prefix:

  same        the emitter of the current event (event k)
  df1         most frequent next emitter after the last emitter (train),
              backing off to the globally most frequent emitter
  df2         same over the last two emitters, backing off to df1

Reported: top-1 / top-3 / MRR (ranked lists: the backed-off candidates
appended in order), for `all` targets and the `change` subset (targets whose
emitter file + qualname differs from that of the event before).
"""
import argparse
import collections
import csv
import gzip
import io

csv.field_size_limit(1 << 24)


def load_cases(path):
    cases = {}
    fh = io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="") if path.endswith(".gz") \
        else open(path, encoding="utf-8", newline="")
    with fh:
        for i, row in enumerate(csv.DictReader(fh)):
            row["_i"] = i
            cases.setdefault(row["case_id"], []).append(row)
    out = []
    for cid, rows in cases.items():
        rows.sort(key=lambda r: (r["timestamp"], r["_i"]))
        out.append((cid, rows))
    out.sort(key=lambda c: (c[1][0]["timestamp"], c[0]))
    return out


def em(r):
    return (r["code.filepath"], int(r["code.lineno"]))


def fn(r):
    return (r["code.filepath"], r.get("code.qualname") or r["code.function"])


def ranked(*counters):
    out = []
    for c in counters:
        if not c:
            continue
        for e, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            if e not in out:
                out.append(e)
            if len(out) >= 10:
                return out
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--train-frac", type=float, default=0.7)
    a = ap.parse_args()
    cases = load_cases(a.log)
    n_train = int(len(cases) * a.train_frac)
    train, test = cases[:n_train], cases[n_train:]

    glob = collections.Counter()
    o1 = collections.defaultdict(collections.Counter)
    o2 = collections.defaultdict(collections.Counter)
    for _, rows in train:
        es = [em(r) for r in rows]
        for k in range(1, len(es)):
            glob[es[k]] += 1
            o1[es[k - 1]][es[k]] += 1
            if k >= 2:
                o2[(es[k - 2], es[k - 1])][es[k]] += 1

    names = ["same", "df1", "df2"]
    stats = {(b, s): [0, 0, 0, 0.0] for b in names for s in ("all", "change")}  # n, top1, top3, rr
    for _, rows in test:
        es = [em(r) for r in rows]
        for k in range(1, len(rows)):
            t = es[k]
            subsets = ["all"] + (["change"] if fn(rows[k]) != fn(rows[k - 1]) else [])
            preds = {
                "same": [es[k - 1]],
                "df1": ranked(o1.get(es[k - 1]), glob),
                "df2": ranked(o2.get((es[k - 2], es[k - 1])) if k >= 2 else None, o1.get(es[k - 1]), glob),
            }
            for b, p in preds.items():
                rank = p.index(t) + 1 if t in p[:10] else 0
                for s in subsets:
                    st = stats[(b, s)]
                    st[0] += 1
                    st[1] += rank == 1
                    st[2] += 0 < rank <= 3
                    st[3] += 1.0 / rank if rank else 0.0

    n_ev = sum(len(r) for _, r in cases)
    lines = {em(r) for _, rows in cases for r in rows}
    funcs = {fn(r) for _, rows in cases for r in rows}
    print("%s: %d cases (%d train / %d test), %d events, %d emitting lines, %d functions"
          % (a.log, len(cases), len(train), len(test), n_ev, len(lines), len(funcs)))
    n_all = stats[("same", "all")][0]
    n_ch = stats[("same", "change")][0]
    print("test targets: all=%d change=%d" % (n_all, n_ch))
    print("| baseline (true emitters) | all top1/top3/MRR | change top1/top3/MRR |")
    print("|---|---|---|")
    label = {"same": "same emitter as current", "df1": "directly-follows order 1",
             "df2": "directly-follows order 2"}
    for b in names:
        cells = []
        for s in ("all", "change"):
            n, h1, h3, rr = stats[(b, s)]
            cells.append("%.3f / %.3f / %.3f" % (h1 / n, h3 / n, rr / n) if n else "-")
        print("| %s | %s | %s |" % (label[b], cells[0], cells[1]))


if __name__ == "__main__":
    main()
