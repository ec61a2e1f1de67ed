#!/usr/bin/env python3
"""Checks pmrag's predictions against what tests/collector/app.py sent.

    verdict.py SENT.json PREDICTIONS FORMAT

FORMAT `kafka`: PREDICTIONS has KEY<TAB>JSON lines (kcat -f '%k\\t%s\\n'
of an output topic with kafka.output_encoding=json), and every key must be
its prediction's case_id. FORMAT `stdout`: JSON lines of serve.stdout.

Passes (exit 0) when every event sent has exactly one prediction: for each
case (trace id) of n events, the seqs 1..n, each once; no prediction of a
case that was not sent; and, in seq order, the case's span activities are
the spans as sent, and its log activities the log records as sent (spans
and logs travel in separate pipelines and topics: how the two interleave
is not fixed). Prints one line of figures, then the faults, if any.
"""
import collections
import json
import sys


def main():
    sent = json.load(open(sys.argv[1]))
    fmt = sys.argv[3]
    faults = []
    by_case = collections.defaultdict(list)
    n = 0
    for ln, line in enumerate(open(sys.argv[2], encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line:
            continue
        if fmt == "kafka":
            key, _, line = line.partition("\t")
        try:
            d = json.loads(line)
        except ValueError as e:
            faults.append("line %d: not JSON (%s): %.80s" % (ln, e, line))
            continue
        n += 1
        if fmt == "kafka" and key != d.get("case_id"):
            faults.append("line %d: key %r, case_id %r" % (ln, key, d.get("case_id")))
        by_case[d.get("case_id")].append((d.get("seq"), d.get("activity")))
    events = sum(len(v) for v in sent.values())
    for case in sorted(set(by_case) - set(sent)):
        faults.append("case %s: %d predictions of a case never sent" % (case, len(by_case[case])))
    for case, evs in sorted(sent.items()):
        got = sorted(by_case.get(case, []), key=lambda x: (x[0] is None, x[0] or 0))
        seqs = [s for s, _ in got]
        want = list(range(1, len(evs) + 1))
        if seqs != want:
            dup = sorted(s for s, c in collections.Counter(seqs).items() if c > 1)
            miss = sorted(set(want) - set(seqs))
            extra = sorted(set(seqs) - set(want), key=str)
            faults.append("case %s: %d events, seqs %s (missing %s, twice %s, unexpected %s)"
                          % (case, len(evs), seqs, miss, dup, extra))
            continue
        # A log's activity is its body's template (or the body): both
        # stand for the template here.
        canon = {e[1]: e[2] for e in evs if e[0] == "log"}
        canon.update({e[2]: e[2] for e in evs if e[0] == "log"})
        acts = [canon.get(a, a) for _, a in got]
        for kind in ("span", "log"):
            # Span names and log templates never share a text (app.py):
            # the case's activities of this kind, in seq order.
            w = [e[1] if kind == "span" else e[2] for e in evs if e[0] == kind]
            g = [a for a in acts if a in set(w)]
            if g != w:
                faults.append("case %s: %s activities in seq order %s, sent %s" % (case, kind, g, w))
    ok_cases = len(sent) - len({f.split(":")[0] for f in faults if f.startswith("case ")})
    print("%d events of %d cases sent, %d predictions, %d cases exactly right"
          % (events, len(sent), n, ok_cases))
    for f in faults[:20]:
        print("  " + f)
    if len(faults) > 20:
        print("  ... %d more" % (len(faults) - 20))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
