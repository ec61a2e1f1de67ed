#!/usr/bin/env python3
"""Helpers of the scale-out tests (tests/integration/scale_out.sh,
tests/bench/scale_out.sh).

  stamp
        stdin to stdout, each line prefixed with the wall-clock time in
        milliseconds and a tab (a daemon's log, so that its partition
        assignments can be set against the predictions' Kafka timestamps).
  close ACTIVITY IN.kcat OUT.kcat
        IN's events (KEY<TAB>JSON lines) without those of a case after its
        first event whose activity is ACTIVITY (state.end_activities closes
        the case there; a later event would start another case of that id).
  expect ACTIVITY DIR KCAT...
        DIR/expected.json (events per case) and DIR/closed.json (the cases
        whose last event is ACTIVITY) for the events of the KCAT files.
  owners TOPIC RUN=LOG...
        who owns each partition of TOPIC now, from the stamped logs of the
        live runs ("kafka: assigned T[P] ...", "kafka: revoked T[P]"), as
        one JSON object {"P": ["RUN", ...]}; exit 1 if a partition has two owners.
  settled --input INPUT.tsv TOPIC PARTITIONS EXPECTED.json RUN=LOG=DUMP...
        0 when every partition of TOPIC has exactly one owner among the live
        runs and every case's seq in its owner's dump (`pmrag state dump
        --json`) is its number of events (a case's partition from INPUT.tsv:
        kcat -f '%p\t%o\t%k\n' of the input); one progress line either way.
  check --topic T --partitions P --expected EXPECTED.json --input INPUT.tsv
        --dumps DIR --at MS --run NAME=LOG=STATE=LOST_MS=live|dead ...
        --ref REF.tsv --preds PRED.tsv [--changelog CHANGELOG.tsv]
        [--changelog-compacted yes|no] [--closed CLOSED.json] [--eps 1e-6]
        the verdict of scale_out.sh: every partition owned by one live run
        at the time MS (when the dumps were taken); every case's seq (a
        closed case: none) right in its owner's state
        (DIR/STATE.jsonl) and in no state past it; the changelog (kcat -f
        '%p\t%o\t%k\t%S\n') in the input's partitions, starting at offset 0
        unless compacted (yes: a broker's compaction removed the first
        records, where the mock would have dropped them); a prediction for
        every (case, seq), each equal to the reference's, counted by the
        epoch of the partition it was made in (the initial owner, after a
        rebalance, after a loss; and a case's first prediction on a new
        owner).
  rate TIMES.tsv [EVENTS]
        first and last prediction (kcat -f '%p\t%o\t%T\n' of the output),
        EVENTS/s between them (JSON); partitions whose start the mock
        dropped are listed (then the first time is too late, and the rate
        is that of the predictions left).
  restored LOG...
        the daemon's "restored N case changes (...) of T[P] from offset O in
        X ms" lines: changes, ms, ms per 10k changes, and when the first
        restore started (its stamp less its ms), as JSON.
  metric URL NAME
        the value of one Prometheus metric (summed over its labels), or -1.
"""
import json
import os
import re
import sys
import time
import urllib.request

# How much later than the owner's first prediction its "assigned" log
# line may be read (a loaded machine, a sanitizer build).
ASSIGN_SKEW_MS = 1000
ASSIGN_RE = re.compile(r"kafka: (assigned|revoked) (.*)$")
PART_RE = re.compile(r"([A-Za-z0-9._-]+)\[(\d+)\]")
# ingest/kafka.c, when the group dropped this member (its session timed
# out) and gave its partitions to others without a revocation.
LOST_RE = re.compile(r"kafka: the assignment was lost")
# "restored N case changes (D deletions, U unreadable, S stale skipped) of T[P] from offset O
# in X ms"
RESTORED_RE = re.compile(r"restored (\d+) case changes \((\d+) deletions, (\d+) unreadable"
                         r"(?:, (?:\d+) stale skipped)?\) of "
                         r"([A-Za-z0-9._-]+)\[(\d+)\] from offset (\d+) in ([0-9.]+) ms")


def stamp():
    out = sys.stdout
    for line in sys.stdin:
        out.write("%d\t%s" % (int(time.time() * 1000), line))
        out.flush()


def kcat_events(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                key, value = line.rstrip("\n").split("\t", 1)
                yield line, key, json.loads(value)


def close(activity, src, dst):
    closed, kept, dropped = set(), 0, 0
    with open(dst + ".tmp", "w") as out:
        for line, key, ev in kcat_events(src):
            if key in closed:
                dropped += 1
                continue
            out.write(line)
            kept += 1
            if ev.get("activity") == activity:
                closed.add(key)
    os.replace(dst + ".tmp", dst)
    print("%d cases end with %r: %d events kept, %d after it dropped" % (
        len(closed), activity, kept, dropped))
    return 0


def expect(activity, outdir, paths):
    n, closed = {}, set()
    for path in paths:
        for _, key, ev in kcat_events(path):
            if key in closed:
                raise SystemExit("%s: case %s has events after its end activity" % (path, key))
            n[key] = n.get(key, 0) + 1
            if ev.get("activity") == activity:
                closed.add(key)
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(n, f)
    with open(os.path.join(outdir, "closed.json"), "w") as f:
        json.dump(sorted(closed), f)
    return 0


def log_lines(path):
    """(ms, text) of a stamped log; unstamped lines get the previous time."""
    t = 0
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    with f:
        for line in f:
            line = line.rstrip("\n")
            head, sep, rest = line.partition("\t")
            if sep and head.isdigit():
                t = int(head)
                yield t, rest
            else:
                yield t, line


def events_of(path, topic):
    """Assignment changes of TOPIC in one run's log: (ms, 'assigned' or
    'revoked', partition), and (ms, 'lost', None) when the group dropped
    the run (the revocations that follow it list what it had)."""
    for t, text in log_lines(path):
        if LOST_RE.search(text):
            yield t, "lost", None
            continue
        m = ASSIGN_RE.search(text)
        if not m:
            continue
        if "... (" in m.group(2):
            # kafka.c lists 16 partitions per line: the rest are unknown.
            print("warning: %s: a truncated partition list: %s" % (path, text), file=sys.stderr)
        for pm in PART_RE.finditer(m.group(2)):
            if pm.group(1) == topic:
                yield t, m.group(1), int(pm.group(2))


def owned_now(path, topic, until=None):
    cur = set()
    for t, verb, p in events_of(path, topic):
        if until is not None and t > until:
            break
        if verb == "assigned":
            cur.add(p)
        elif verb == "revoked":
            cur.discard(p)
    return cur


def owners(topic, runs, until=None):
    """{partition: [runs]} for the live runs (at the time UNTIL, in ms)."""
    own = {}
    for name, log in runs:
        for p in owned_now(log, topic, until):
            own.setdefault(p, []).append(name)
    return own


def load_closed(expected_path):
    """closed.json next to expected.json, if there is one."""
    p = os.path.join(os.path.dirname(expected_path) or ".", "closed.json")
    return json.load(open(p)) if os.path.exists(p) else []


def read_dump(path):
    got = {}
    try:
        f = open(path)
    except FileNotFoundError:
        return got
    with f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                got[d["case_id"]] = d["seq"]
    return got


def read_input(path):
    """INPUT.tsv (kcat -f '%p\\t%o\\t%k\\n' of the input topic):
    case -> partition, (case, seq) -> offset, first offsets."""
    part, where, first, seqs = {}, {}, {}, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            p, o, k = line.split("\t", 2)
            p, o = int(p), int(o)
            first.setdefault(p, o)
            if part.setdefault(k, p) != p:
                raise SystemExit("case %s is in partitions %d and %d of the input" % (k, part[k], p))
            seqs[k] = seqs.get(k, 0) + 1
            where[(k, seqs[k])] = o
    return part, where, first


def settled(topic, nparts, expected_path, runs, input_path):
    want = json.load(open(expected_path))
    closed = set(load_closed(expected_path))
    part, _, _ = read_input(input_path)
    own = owners(topic, [(n, l) for n, l, _ in runs])
    dumps = {n: read_dump(d) for n, _, d in runs}
    unowned = [p for p in range(nparts) if not own.get(p)]
    shared = {p: o for p, o in own.items() if len(o) > 1}
    done = short = 0
    for c, n in want.items():
        o = own.get(part.get(c, -1))
        s = dumps[o[0]].get(c, 0) if o and len(o) == 1 else -1
        if s == (0 if c in closed else n):
            done += 1
        else:
            short += 1
    print("  owners %s; %d of %d cases complete in their owner's state%s%s" % (
        " ".join("%d:%s" % (p, "+".join(own.get(p, ["-"]))) for p in range(nparts)),
        done, len(want), "; unowned %s" % unowned if unowned else "",
        "; owned twice %s" % shared if shared else ""))
    return 0 if not unowned and not shared and not short else 1


# ---- predictions ---------------------------------------------------------

def read_preds(path):
    """PRED.tsv (kcat -f '%p\\t%o\\t%T\\t%k\\t%s\\n'): a list of
    (case, seq, ms, prediction) and the first offset of each partition."""
    out, first = [], {}
    bad_key = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            p, o, ts, key, value = line.split("\t", 4)
            first.setdefault(int(p), int(o))
            d = json.loads(value)
            if d["case_id"] != key:
                bad_key += 1
            out.append((d["case_id"], d["seq"], int(ts), d))
    return out, first, bad_key


def differ(a, b, eps):
    """Why two predictions of one (case, seq) differ, or None: the event's
    activity, then the ranked symbols in order, their activities and
    scores (within eps)."""
    if a.get("activity") != b.get("activity"):
        return "activity %r vs %r" % (a.get("activity"), b.get("activity"))
    ra, rb = a.get("ranked") or [], b.get("ranked") or []
    if len(ra) != len(rb):
        return "%d ranked vs %d" % (len(ra), len(rb))
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x.get("symbol") != y.get("symbol"):
            return "rank %d: %s vs %s" % (i + 1, x.get("symbol"), y.get("symbol"))
        if x.get("activity") != y.get("activity"):
            return "rank %d (%s): activity %r vs %r" % (i + 1, x.get("symbol"), x.get("activity"),
                                                       y.get("activity"))
        if abs(float(x.get("score", 0)) - float(y.get("score", 0))) > eps:
            return "rank %d (%s): score %.9g vs %.9g" % (i + 1, x.get("symbol"), x["score"],
                                                        y["score"])
    return None


class Epochs:
    """Who applied a partition's events when: every assignment of the input
    topic's partition P to a run starts an epoch, which ends at the run's
    revocation of P, or at the moment LOST_MS the run lost its partitions
    without giving them up (killed, or paused past its session timeout:
    what it says after that about partitions it held then is ignored). A
    prediction belongs to the epoch whose assignment is the latest before
    its Kafka timestamp."""

    def __init__(self, topic, runs):
        # runs: (name, log, lost_ms or None)
        self.by_part = {}
        for name, log, lost in runs:
            open_ = {}
            pending = lost is not None
            for t, verb, p in events_of(log, topic):
                if verb == "lost":
                    # Dropped by the group (a session timeout on a busy
                    # machine): its partitions went to others without a
                    # commit, as after a kill. The line comes when the run
                    # notices, which may be after the next owner's first
                    # predictions: "dropped" epochs are not compared by time.
                    for q, t0 in open_.items():
                        self.by_part.setdefault(q, []).append([t0, t, name, "dropped"])
                    open_ = {}
                    continue
                if pending and t >= lost:
                    for q, t0 in open_.items():
                        self.by_part.setdefault(q, []).append([t0, lost, name, "lost"])
                    open_ = {}
                    pending = False
                if verb == "assigned":
                    open_[p] = t
                elif p in open_:
                    self.by_part.setdefault(p, []).append([open_.pop(p), t, name, "revoked"])
            for p, t in open_.items():
                if pending:
                    self.by_part.setdefault(p, []).append([t, lost, name, "lost"])
                else:
                    self.by_part.setdefault(p, []).append([t, None, name, "owner at the end"])
        for v in self.by_part.values():
            v.sort(key=lambda e: e[0])

    def find(self, p, ms):
        ep = self.by_part.get(p, [])
        idx = -1
        for i, e in enumerate(ep):
            if e[0] <= ms:
                idx = i
        # An assignment's time is when its log line was read, a little
        # after the owner may have produced its first prediction: one
        # made after the found epoch ended and just before the next one's
        # line is the next owner's (the ended one cannot have made it).
        if idx < len(ep) - 1 and (idx < 0 or (ep[idx][1] is not None and ep[idx][1] < ms)) and \
                ep[idx + 1][0] - ms <= ASSIGN_SKEW_MS:
            idx += 1
        return idx

    def describe(self, p):
        return ", ".join("%s %s..%s (%s)" % (e[2], e[0], e[1], e[3]) for e in self.by_part.get(p, []))


def check(a):
    want = json.load(open(a["expected"]))
    part, where, in_first = read_input(a["input"])
    eps = float(a.get("eps", "1e-6"))
    nparts = int(a["partitions"])
    topic = a["topic"]
    ok = True
    nevents = sum(want.values())

    # The input itself: all there, nothing dropped by the mock.
    n_in = len(where)
    dropped_in = {p: o for p, o in in_first.items() if o != 0}
    per_part = {}
    for (c, _), _o in where.items():
        per_part[part[c]] = per_part.get(part[c], 0) + 1
    print("input: %d events over %d cases; events per partition %s" % (
        n_in, len(part), " ".join("%d:%d" % (p, n) for p, n in sorted(per_part.items()))))
    if n_in != nevents or dropped_in:
        print("  FAIL: the input topic holds %d of %d events; first offsets %s" % (
            n_in, nevents, dropped_in))
        ok = False

    # ---- runs and ownership
    runs = []  # (name, log, killed_ms, state, live)
    for spec in a["run"]:
        name, log, state, killed, live = spec.split("=")
        runs.append((name, log, int(killed) if killed else None, state, live == "live"))
    live = [(n, l) for n, l, _, _, lv in runs if lv]
    at = int(a["at"]) if a.get("at") else None
    own = owners(topic, live, at)
    print("partition owners when the states were dumped (the live runs' logs): %s" % " ".join(
        "%d:%s" % (p, "+".join(own.get(p, ["none"]))) for p in range(nparts)))
    bad_own = [p for p in range(nparts) if len(own.get(p, [])) != 1]
    if bad_own:
        print("  FAIL: partitions %s have no owner or several" % bad_own)
        ok = False
    epochs = Epochs(topic, [(n, l, k) for n, l, k, _, _ in runs])
    moves = sum(max(0, len(v) - 1) for v in epochs.by_part.values())
    dropped = sum(1 for v in epochs.by_part.values() for e in v if e[3] == "dropped")
    print("assignments of %s partitions: %d (%d after the first of each partition; %d ended "
          "by the group dropping their owner)" % (
              topic, sum(len(v) for v in epochs.by_part.values()), moves, dropped))
    for p in range(nparts):
        print("  %s[%d]: %s" % (topic, p, epochs.describe(p)))

    # ---- the state: every case right in its owner's dump
    dumps = {}
    for n, _, _, state, lv in runs:
        if state not in dumps:
            dumps[state] = read_dump(a["dumps"] + "/" + state + ".jsonl")
    run_state = {n: st for n, _, _, st, lv in runs if lv}
    closed = set(json.load(open(a["closed"]))) if a.get("closed") else set()
    closed_present = 0
    lost = double = lost_cases = double_cases = 0
    heuristic_disagrees = ahead_elsewhere = stale_elsewhere = 0
    shown = 0
    for c, n in want.items():
        o = own.get(part.get(c, -1))
        owner_state = run_state[o[0]] if o and len(o) == 1 else None
        s = dumps[owner_state].get(c, 0) if owner_state else 0
        if c in closed:
            # Closed by its last event: gone from its owner's state (a
            # copy elsewhere is one left behind by a move).
            if not owner_state or c in dumps[owner_state]:
                closed_present += 1
                if shown < 5:
                    print("  closed case %s (%s[%d], owner %s) is still there: %s" % (
                        c, topic, part.get(c, -1), owner_state, ", ".join(
                            "%s %d" % (st, d.get(c, 0)) for st, d in sorted(dumps.items()))))
                    shown += 1
            continue
        if s < n:
            lost += n - s
            lost_cases += 1
        elif s > n:
            double += s - n
            double_cases += 1
        if s != n and shown < 5:
            print("  case %s (%s[%d], owner %s): %d events, seq %d in the owner; %s" % (
                c, topic, part.get(c, -1), owner_state, n, s,
                ", ".join("%s %d" % (st, d.get(c, 0)) for st, d in sorted(dumps.items()))))
            shown += 1
        # The other way to name an owner: the state with the highest seq.
        best = max(dumps, key=lambda st: dumps[st].get(c, 0))
        if owner_state and dumps[best].get(c, 0) != s:
            heuristic_disagrees += 1
        for st, d in dumps.items():
            if st == owner_state or c not in d:
                continue
            if d[c] > s:
                ahead_elsewhere += 1
            elif d[c] < s:
                stale_elsewhere += 1
    over_any = sum(1 for d in dumps.values() for c, s in d.items()
                   if s > want.get(c, 0) or (c in closed and s >= want[c]))
    unknown = sum(1 for d in dumps.values() for c in d if c not in want)
    print("state: %d cases (%d closed), %d events: in their owner's state lost %d (%d cases), "
          "double-applied %d (%d cases), closed cases still there %d; copies in other states: "
          "%d older (left behind by a move), %d ahead of the owner; cases past their events in "
          "any state: %d; unknown %d; the highest seq names another state than the owner for "
          "%d" % (len(want), len(closed), nevents, lost, lost_cases, double, double_cases,
                  closed_present, stale_elsewhere, ahead_elsewhere, over_any, unknown,
                  heuristic_disagrees))
    if lost or double or closed_present or ahead_elsewhere or over_any or unknown:
        ok = False

    # ---- the changelog
    if a.get("changelog"):
        ch_first, ch_n, ch_tomb, ch_bytes, wrong_part = {}, 0, 0, {}, 0
        keys = set()
        with open(a["changelog"], encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                p, o, k, size = line.split("\t", 3)
                p, o, size = int(p), int(o), int(size)
                ch_first.setdefault(p, o)
                ch_n += 1
                keys.add(k)
                if size < 0:
                    ch_tomb += 1
                ch_bytes[p] = ch_bytes.get(p, 0) + max(size, 0) + len(k)
                if k in part and part[k] != p:
                    wrong_part += 1
        ch_dropped = {p: o for p, o in ch_first.items() if o != 0}
        print("changelog: %d records (%d tombstones for %d closed cases) for %d cases, %.1f KiB per partition at "
              "most (%.0f bytes per record); %d in another partition than the case's input" % (
                  ch_n, ch_tomb, len(closed), len(keys), max(ch_bytes.values() or [0]) / 1024.0,
                  sum(ch_bytes.values()) / max(1, ch_n), wrong_part))
        if ch_n == 0:
            print("  FAIL: the changelog topic is empty")
            ok = False
        if wrong_part:
            print("  FAIL: changelog records must go to the input message's partition number")
            ok = False
        if ch_dropped and a.get("changelog-compacted") == "yes":
            print("  changelog partitions %s start past offset 0: compacted by the broker" %
                  sorted(ch_dropped))
        elif ch_dropped:
            print("  FAIL: the mock dropped the start of changelog partitions %s (first offsets "
                  "%s; it keeps about 5 MB per partition): a restore from the start misses "
                  "cases; make the events fewer or the partitions more" % (
                      sorted(ch_dropped), ch_dropped))
            ok = False

    # ---- predictions: all there, and equal to the reference's
    ref, ref_first, ref_badkey = read_preds(a["ref"])
    got, got_first, got_badkey = read_preds(a["preds"])
    for what, first in (("reference", ref_first), ("scale-out", got_first)):
        d = {p: o for p, o in first.items() if o != 0}
        if d:
            print("  FAIL: the mock dropped the start of the %s output's partitions %s: make "
                  "the predictions smaller (serve.k) or the partitions more" % (what, d))
            ok = False
    if ref_badkey or got_badkey:
        print("  FAIL: predictions whose key is not their case_id: %d reference, %d scale-out"
              % (ref_badkey, got_badkey))
        ok = False
    refd = {}
    ref_dup = 0
    for c, s, _, d in ref:
        if (c, s) in refd:
            ref_dup += 1
        else:
            refd[(c, s)] = d
    ref_missing = sum(1 for c, n in want.items() for s in range(1, n + 1) if (c, s) not in refd)
    print("reference: %d predictions, missing %d, duplicates %d" % (len(ref), ref_missing, ref_dup))
    if ref_missing:
        ok = False

    # Where each prediction was made: the epoch of its case's partition
    # (its Kafka timestamp against the assignments), and what started it.
    used = {}  # partition -> the lowest epoch with predictions
    placed = []
    for c, s, t, d in got:
        p = part.get(c, -1)
        e = epochs.find(p, t)
        placed.append((c, s, t, d, p, e))
        if e >= 0:
            used[p] = min(used.get(p, e), e)
    seen = {}
    for c, s, t, d, p, e in placed:
        if e < 0:
            cat = "unplaced"
        elif e == used[p]:
            cat = "initial owner"
        else:
            prev = epochs.by_part[p][e - 1]
            cat = "after a loss" if (prev[3] == "lost" and prev[1] <= t) or prev[3] == "dropped" \
                else "after a rebalance"
        seen.setdefault((c, s), []).append((t, d, cat, p, e))

    missing = dup = dup_differ = 0
    dup_by = {}
    for c, n in want.items():
        for s in range(1, n + 1):
            v = seen.get((c, s))
            if not v:
                missing += 1
                if missing <= 5:
                    print("  no prediction for case %s seq %d (%s[%d] offset %d)" % (
                        c, s, topic, part[c], where.get((c, s), -1)))
                continue
            v.sort(key=lambda x: x[0])
            dup += len(v) - 1
            for x in v[1:]:
                dup_by[x[2]] = dup_by.get(x[2], 0) + 1
            if any(differ(v[0][1], x[1], eps) for x in v[1:]):
                dup_differ += 1
    beyond = sum(len(v) for (c, s), v in seen.items() if c not in want or s > want[c])
    print("predictions: %d for %d events: missing %d, duplicates %d (%.2f%%; %s; %d disagree "
          "with the first), %d beyond the events" % (
              len(got), nevents, missing, dup, 100.0 * dup / max(1, nevents),
              ", ".join("%d %s" % (n, k) for k, n in sorted(dup_by.items())) or "none",
              dup_differ, beyond))
    # A killed (or paused) instance's last predictions may come again from
    # the next owner (its changelog records, and so its state, never made
    # it); a clean handover commits first and must not repeat anything.
    clean_dups = sum(n for k, n in dup_by.items() if k != "after a loss")
    if clean_dups:
        shown = 0
        for (c, s), v in sorted(seen.items()):
            for x in v[1:]:
                if x[2] != "after a loss" and shown < 5:
                    print("  (%s, %d) again %s (%s[%d] epoch %d): %s" % (
                        c, s, x[2], topic, x[3], x[4],
                        " / ".join("%s %s" % (y[1].get("activity"), y[0]) for y in v)))
                    shown += 1
        print("  FAIL: %d predictions repeated although no owner was lost before them" % clean_dups)
    if missing or beyond or clean_dups:
        ok = False

    # Each prediction against the reference's for its (case, seq).
    cats = {"initial owner": [0, 0], "after a rebalance": [0, 0], "after a loss": [0, 0],
            "unplaced": [0, 0]}
    first_of = {}  # (case, partition, epoch) -> (lowest seq, it differs)
    shown = 0
    for (c, s), v in seen.items():
        r = refd.get((c, s))
        for t, d, cat, p, e in v:
            why = differ(d, r, eps) if r is not None else "no reference prediction"
            cats[cat][0] += 1
            if why:
                cats[cat][1] += 1
                if shown < 8:
                    print("  mismatch %s seq %d (%s, %s[%d] epoch %d): %s" % (
                        c, s, cat, topic, p, e, why))
                    shown += 1
            if cat in ("after a rebalance", "after a loss"):
                k = (c, p, e)
                if k not in first_of or s < first_of[k][0]:
                    first_of[k] = (s, bool(why))
    firsts = [len(first_of), sum(1 for _, bad in first_of.values() if bad)]
    total_bad = sum(v[1] for v in cats.values())
    print("against the reference (ranked symbols in order, their activities, scores within "
          "%g): %d of %d predictions differ; by when they were made (a rebalance: the owner "
          "gave the partition up; a loss: it was killed, paused or dropped by the group):" % (
              eps, total_bad, len(got)))
    for k in ("initial owner", "after a rebalance", "after a loss", "unplaced"):
        if cats[k][0] or k != "unplaced":
            print("  %-18s %6d predictions, %d differ" % (k, cats[k][0], cats[k][1]))
    print("  %-18s %6d cases, %d differ (a case's first prediction on its new owner: the "
          "restored state)" % ("first after a move", firsts[0], firsts[1]))
    if total_bad or dup_differ:
        ok = False
    return 0 if ok else 1


# ---- bench ---------------------------------------------------------------

def rate(path, events):
    """TIMES.tsv: kcat -f '%p\t%o\t%T\n' of an output topic."""
    ts, first = [], {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[2].isdigit():
                first.setdefault(int(parts[0]), int(parts[1]))
                ts.append(int(parts[2]))
    if not ts:
        print(json.dumps({"predictions": 0}))
        return 1
    n = len(ts)
    span = (max(ts) - min(ts)) / 1000.0
    dropped = sorted(p for p, o in first.items() if o != 0)
    # With the start dropped, the first time is late: the rate of what is
    # left is the one that means something.
    ev = int(events) if events and not dropped else n
    print(json.dumps({"predictions": n, "first_ms": min(ts), "last_ms": max(ts),
                      "seconds": round(span, 3),
                      "events_per_s": round(ev / span, 1) if span > 0 else None,
                      "dropped_partitions": dropped}))
    return 0


def restored(logs):
    rows = []
    for log in logs:
        for t, text in log_lines(log):
            m = RESTORED_RE.search(text)
            if m:
                rows.append({"log": log, "ms_at": t, "changes": int(m.group(1)),
                             "deletions": int(m.group(2)), "unreadable": int(m.group(3)),
                             "topic": m.group(4), "partition": int(m.group(5)),
                             "from": int(m.group(6)), "ms": float(m.group(7))})
    changes = sum(r["changes"] for r in rows)
    ms = sum(r["ms"] for r in rows)
    print(json.dumps({"restores": len(rows), "changes": changes, "ms": round(ms, 1),
                      "ms_per_10k_changes": round(ms * 10000.0 / changes, 1) if changes else None,
                      "first_start_ms": min((r["ms_at"] - r["ms"] for r in rows), default=None),
                      "last_end_ms": max((r["ms_at"] for r in rows), default=None),
                      "partitions": [[r["partition"], r["changes"], r["from"], r["ms"]]
                                     for r in rows]}))
    return 0


def metric(url, name):
    try:
        body = urllib.request.urlopen(url, timeout=5).read().decode()
    except OSError:
        print(-1)
        return 0
    total, found = 0.0, False
    for line in body.splitlines():
        if line.startswith(name) and (line[len(name):len(name) + 1] in (" ", "{")):
            try:
                total += float(line.rsplit(" ", 1)[1])
                found = True
            except ValueError:
                pass
    print(("%.0f" % total) if found else -1)
    return 0


def parse_opts(args, multi=("run",)):
    a = {k: [] for k in multi}
    while args:
        if not args[0].startswith("--") or len(args) < 2:
            raise SystemExit("bad option list at %r\n%s" % (args[0], __doc__))
        k = args[0][2:]
        if k in multi:
            a[k].append(args[1])
        else:
            a[k] = args[1]
        args = args[2:]
    return a


def main(argv):
    if len(argv) == 2 and argv[1] == "stamp":
        stamp()
        return 0
    if len(argv) == 5 and argv[1] == "close":
        return close(argv[2], argv[3], argv[4])
    if len(argv) >= 5 and argv[1] == "expect":
        return expect(argv[2], argv[3], argv[4:])
    if len(argv) >= 3 and argv[1] == "owners":
        own = owners(argv[2], [tuple(r.split("=", 1)) for r in argv[3:]])
        print(json.dumps({str(p): o for p, o in sorted(own.items())}))
        return 1 if any(len(o) > 1 for o in own.values()) else 0
    if len(argv) >= 7 and argv[1] == "settled" and argv[2] == "--input":
        runs = [tuple(r.split("=", 2)) for r in argv[7:]]
        return settled(argv[4], int(argv[5]), argv[6], runs, argv[3])
    if len(argv) >= 2 and argv[1] == "check":
        return check(parse_opts(argv[2:]))
    if len(argv) in (3, 4) and argv[1] == "rate":
        return rate(argv[2], argv[3] if len(argv) == 4 else None)
    if len(argv) >= 3 and argv[1] == "restored":
        return restored(argv[2:])
    if len(argv) == 4 and argv[1] == "metric":
        return metric(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
