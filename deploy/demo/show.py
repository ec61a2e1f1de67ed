#!/usr/bin/env python3
"""Prints how a few cases advanced in `pmrag serve`'s predictions (its
stdout JSONL): after each event, the top 3 functions expected to emit the
next one, each with the activity it is expected to emit (the "why"), and
whether the case's real next event came from one of them.

  show.py PREDICTIONS.jsonl LOG.csv [CASES] [STEPS]
"""
import csv
import json
import sys


def main():
    preds, log = sys.argv[1], sys.argv[2]
    ncases = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    truth = {}
    for r in csv.DictReader(open(log, newline="")):
        truth.setdefault(r["case_id"], []).append(r)
    by_case = {}
    for line in open(preds):
        p = json.loads(line)
        by_case.setdefault(p["case_id"], []).append(p)
    shown = 0
    for case, ps in by_case.items():
        if shown == ncases or case not in truth or len(ps) < steps + 1:
            continue
        shown += 1
        rows = truth[case]
        print("\ncase %s (model %s)" % (case, ps[0]["model_version"]))
        for p in ps[:steps]:
            k = p["seq"]
            print("  after event %d  %r" % (k, p["activity"][:70]))
            nxt = rows[k] if k < len(rows) else None
            for i, r in enumerate(p["ranked"][:3]):
                hit = nxt and r["file"].endswith(nxt["code.filepath"]) and \
                    r["start_line"] <= int(nxt["code.lineno"]) <= r["end_line"]
                # A symbol that fills the list names the ranked one it is
                # near in the code graph instead of an activity.
                why = ("expects %r" % r["activity"][:40] if r.get("activity")
                       else "near %s" % r["near"].rsplit(".", 1)[-1] if r.get("near") else "")
                print("    %d. %-46s %s:%d-%d  %s%s" % (
                    i + 1, r["symbol"] if len(r["symbol"]) <= 46 else "..." + r["symbol"][-43:], r["file"], r["start_line"], r["end_line"],
                    why, "   <- next event" if hit else ""))
            if nxt:
                print("     next: %r from %s:%s" % (nxt["activity"][:60], nxt["code.filepath"],
                                                 nxt["code.lineno"]))


if __name__ == "__main__":
    main()
