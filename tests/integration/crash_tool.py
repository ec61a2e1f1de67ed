#!/usr/bin/env python3
"""Helpers of the crash-safety tests (crash_kafka.sh, crash_otlp.sh,
broker_faults.sh, state_full.sh).

  gen LOG.csv OUTDIR EVENTS CASES [SEED]
        train.csv: the first half of the log's cases (the model is mined
        from it); events.kcat: EVENTS `json` events over CASES cases made
        from the other half (case i replays template case i mod T, cycling
        through its events), one per line as KEY<TAB>JSON for kcat -K, in
        the order of a few hundred cases running at once; expected.json:
        events per case.
  pace FILE RATE
        FILE's lines to stdout at RATE lines per second (a producer that
        keeps pace with production traffic rather than a backlog).
  sum DUMP.jsonl [--applied]
        the events taken in: the sum of every case's seq and held (the
        events it holds back in the event-time window) in a `pmrag state
        dump --json`; with --applied, of the seqs alone.
  state EXPECTED DUMP.jsonl [--extra-ok] [--prefix P] [--applied]
        every case's events taken in (seq plus held) against its number of
        events: lost (short), double-applied (past it), cases missing or
        unknown (with --prefix, only cases whose id starts with P are
        looked at); and how many are still held (with --applied, none may
        be: every event applied). With --extra-ok, double-applied events
        are reported, not failed (OTLP retries after a lost 200; see
        otlp).
  applied DUMP.jsonl OUT.json
        every case's seq from a dump, as an EXPECTED file for preds (when
        events may have been applied twice, every seq reached must still
        have its prediction).
  preds EXPECTED PRED.tsv
        the output topic (kcat -f '%p\\t%o\\t%k\\t%s\\n', JSON predictions):
        a prediction for every (case, seq), duplicates counted (and
        whether they agree), and every partition read from offset 0 (else
        the mock dropped old messages and the count means nothing).
  otlp URL OUTDIR EVENTS CASES [--threads N] [--spans-per-case K]
       [--cases-per-request R] [--seed S] [--log LOG.csv] [--rate REQ/S]
       [--timeout S] [--prefix NAME]
        an OTLP/HTTP JSON client: EVENTS spans over CASES cases (named
        NAME-000000...), R cases and K spans of each per request, N threads
        each owning a share of the cases (so that a case's spans are sent
        in order), at most REQ/S requests a second in all (0: no limit). A
        request is retried until it gets a 200: on connection errors (the
        daemon killed or not yet up), on a timeout (S seconds, 120 by
        default; the request may still be applied) and on 429/503 after
        their Retry-After. Any other status is a failure. Writes
        OUTDIR/expected.json (spans per case) and OUTDIR/client.json
        (requests, retries by cause).
  consistent STATS.json DUMP.jsonl TOPIC
        the state's own offsets (`pmrag state stats --json`) against its
        cases: one event per message, so the next offsets of TOPIC's
        partitions must add up to the events taken in, applied or held (a
        state committed with offsets that do not match its cases would lose
        or repeat events at the next start).
  ready FILE KEY
        a field of a ready file.
"""
import csv
import datetime
import http.client
import json
import os
import random
import sys
import threading
import time
import urllib.parse


def load_cases(log):
    cases, order = {}, []
    with open(log, newline="") as f:
        for row in csv.DictReader(f):
            c = row["case_id"]
            if c not in cases:
                cases[c] = []
                order.append(c)
            cases[c].append(row)
    return cases, order


def counts(events, ncases):
    base, rest = divmod(events, ncases)
    return [base + (1 if i < rest else 0) for i in range(ncases)]


def interleave(n_per_case, rnd, active=256):
    """Yields (case index, event index): cases start in order, a few
    hundred run at once, each emits its events in order."""
    pending = list(range(len(n_per_case)))
    pending.reverse()
    running, pos = [], {}
    while pending or running:
        while pending and len(running) < active:
            c = pending.pop()
            if n_per_case[c]:
                running.append(c)
                pos[c] = 0
        if not running:
            break
        j = rnd.randrange(len(running))
        c = running[j]
        yield c, pos[c]
        pos[c] += 1
        if pos[c] == n_per_case[c]:
            running[j] = running[-1]
            running.pop()


def gen(log, outdir, events, ncases, seed):
    cases, order = load_cases(log)
    ntrain = len(order) // 2
    with open(os.path.join(outdir, "train.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case_id", "timestamp", "activity", "level", "logger"])
        for c in order[:ntrain]:
            for r in cases[c]:
                w.writerow([c, r["timestamp"], r["activity"], r["level"], r["logger"]])
    templates = [cases[c] for c in order[ntrain:]]
    n = counts(events, ncases)
    rnd = random.Random(seed)
    t0 = datetime.datetime(2024, 3, 4, 8, 0, 0, tzinfo=datetime.timezone.utc)
    names = ["crash-%06d" % i for i in range(ncases)]
    with open(os.path.join(outdir, "events.kcat"), "w") as f:
        for k, (c, i) in enumerate(interleave(n, rnd)):
            t = templates[c % len(templates)]
            r = t[i % len(t)]
            ts = (t0 + datetime.timedelta(milliseconds=k)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            ev = {"case_id": names[c], "activity": r["activity"], "timestamp": ts,
                  "logger": r["logger"], "level": r["level"]}
            f.write(names[c] + "\t" + json.dumps(ev, separators=(",", ":")) + "\n")
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(dict(zip(names, n)), f)
    print("generated %d events over %d cases (%d templates; model from %d cases)"
          % (events, ncases, len(templates), ntrain))


def pace(path, rate):
    t0 = time.monotonic()
    out = sys.stdout
    with open(path) as f:
        for i, line in enumerate(f):
            out.write(line)
            if i % 100 == 99:
                out.flush()
                ahead = t0 + (i + 1) / rate - time.monotonic()
                if ahead > 0:
                    time.sleep(ahead)
    out.flush()


def read_dump(path, applied=False):
    """Per case: its events taken in, applied (seq) and held back (held);
    with applied, only the applied ones."""
    got = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                got[d["case_id"]] = d["seq"] + (0 if applied else d.get("held", 0))
    return got


def state(expected_path, dump_path, extra_ok, prefix, all_applied=False):
    want = json.load(open(expected_path))
    got = {c: n for c, n in read_dump(dump_path).items() if c.startswith(prefix)}
    applied = {c: n for c, n in read_dump(dump_path, True).items() if c.startswith(prefix)}
    held = sum(got.values()) - sum(applied.values())
    lost = double = lost_cases = double_cases = 0
    shown = 0
    for c, n in want.items():
        s = got.get(c, 0)
        if s < n:
            lost += n - s
            lost_cases += 1
        elif s > n:
            double += s - n
            double_cases += 1
        if s != n and shown < 5:
            print("  case %s: %d events, seq %d" % (c, n, s))
            shown += 1
    unknown = [c for c in got if c not in want]
    print("state%s: %d cases, %d events: lost %d (%d cases), double-applied %d (%d cases), "
          "%d unknown cases, %d still held" % (" " + prefix if prefix else "", len(want),
                                               sum(want.values()), lost, lost_cases, double,
                                               double_cases, len(unknown), held))
    bad = lost or unknown or (double and not extra_ok) or (held and all_applied)
    return 1 if bad else 0


def preds(expected_path, pred_path):
    want = json.load(open(expected_path))
    seen = {}
    first = {}
    total = 0
    with open(pred_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            part, off, key, value = line.split("\t", 3)
            first.setdefault(part, int(off))
            p = json.loads(value)
            if p["case_id"] != key:
                print("  key %r but case_id %r" % (key, p["case_id"]))
                return 1
            seen.setdefault((key, p["seq"]), []).append(p)
            total += 1
    missing = dup = dup_differ = 0
    for c, n in want.items():
        for s in range(1, n + 1):
            ps = seen.get((c, s))
            if not ps:
                missing += 1
                if missing <= 5:
                    print("  no prediction for case %s seq %d" % (c, s))
                continue
            dup += len(ps) - 1
            if any(p["activity"] != ps[0]["activity"] for p in ps[1:]):
                dup_differ += 1
    beyond = sum(len(v) for (c, s), v in seen.items() if c not in want or s > want[c])
    dropped = {p: o for p, o in first.items() if o != 0}
    nevents = sum(want.values())
    print("predictions: %d for %d events: missing %d, duplicates %d (%.2f%%; %d disagree on "
          "the activity), %d beyond the events" % (total, nevents, missing, dup,
                                                   100.0 * dup / max(1, nevents), dup_differ,
                                                   beyond))
    if dropped:
        print("  the mock dropped the start of partitions %s (first offsets %s): make the "
              "predictions smaller or the partitions more" % (sorted(dropped), dropped))
    return 1 if missing or dup_differ or dropped else 0


# ---- the OTLP/HTTP client ---------------------------------------------------

def span_json(case_id, name, trace_hex, span_no, t_ns):
    return {
        "traceId": trace_hex,
        "spanId": "%016x" % span_no,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(t_ns),
        "endTimeUnixNano": str(t_ns + 500),
        "attributes": [{"key": "case.id", "value": {"stringValue": case_id}}],
    }


class Client:
    def __init__(self, url, timeout):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.timeout = timeout
        self.lock = threading.Lock()
        self.stats = {"requests": 0, "attempts": 0, "conn_errors": 0, "timeouts": 0,
                      "throttled": 0, "other_status": 0}

    def count(self, key):
        with self.lock:
            self.stats[key] += 1

    def post(self, body):
        """Sends until a 200. Returns the number of attempts."""
        attempts = 0
        delay = 0.05
        conn = None
        while True:
            attempts += 1
            self.count("attempts")
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
                conn.request("POST", "/v1/traces", body, {"Content-Type": "application/json"})
                r = conn.getresponse()
                data = r.read()
            except (OSError, http.client.HTTPException) as e:
                # Refused (down), reset or closed (killed mid-request), or
                # no answer in time: the request may or may not have been
                # applied; only a 200 says it was, so it is sent again.
                self.count("timeouts" if isinstance(e, TimeoutError) else "conn_errors")
                if conn is not None:
                    conn.close()
                    conn = None
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
                continue
            if r.status == 200:
                conn.close()
                return attempts
            if r.status in (429, 503):
                self.count("throttled")
                ra = r.getheader("Retry-After")
                try:
                    wait = float(ra) if ra is not None else 1.0
                except ValueError:
                    wait = 1.0
                time.sleep(min(max(wait, 0.0), 30.0))
                continue
            self.count("other_status")
            raise RuntimeError("status %d: %s" % (r.status, data[:300]))


def otlp(url, outdir, events, ncases, threads, k, per_req, seed, log, rate, timeout, prefix):
    rnd = random.Random(seed)
    names = ["%s-%06d" % (prefix, i) for i in range(ncases)]
    n = counts(events, ncases)
    acts = ["POST /orders", "order.place", "inventory.reserve", "payment.authorize",
            "order %s built", "shipping.quote", "notify.email"]
    if log:
        cases, order = load_cases(log)
        acts = sorted({r["activity"] for c in order for r in cases[c]})
    # Per case: its spans in order, as chunks of k.
    chunks = []
    for i, c in enumerate(names):
        trace_hex = "%032x" % (rnd.getrandbits(128) or 1)
        spans = [span_json(c, rnd.choice(acts), trace_hex, j + 1,
                           1700000000000000000 + i * 1000000 + j * 1000) for j in range(n[i])]
        chunks.append([spans[j:j + k] for j in range(0, len(spans), k)])
    client = Client(url, timeout=timeout)
    errors = []
    slot = [0]
    slot_lock = threading.Lock()

    def paced():
        if rate <= 0:
            return
        with slot_lock:
            at = t0 + slot[0] / rate
            slot[0] += 1
        wait = at - time.monotonic()
        if wait > 0:
            time.sleep(wait)

    def worker(t):
        mine = [ci for ci in range(ncases) if ci % threads == t]
        # Requests of per_req cases each, a case's chunks in order.
        while mine:
            group, mine = mine[:per_req], mine[per_req:]
            rounds = max(len(chunks[ci]) for ci in group)
            for r in range(rounds):
                spans = []
                for ci in group:
                    if r < len(chunks[ci]):
                        spans.extend(chunks[ci][r])
                body = json.dumps({"resourceSpans": [{
                    "resource": {"attributes": [{"key": "service.name",
                                                 "value": {"stringValue": "crash-client"}}]},
                    "scopeSpans": [{"scope": {"name": "crash"}, "spans": spans}]}]})
                paced()
                try:
                    client.post(body.encode())
                except Exception as e:  # noqa: BLE001 - reported, then the thread stops
                    errors.append(str(e))
                    return
                client.count("requests")

    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    s = client.stats
    s["seconds"] = round(time.monotonic() - t0, 2)
    s["errors"] = errors[:5]
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(dict(zip(names, n)), f)
    with open(os.path.join(outdir, "client.json"), "w") as f:
        json.dump(s, f)
    print("client: %d spans over %d cases in %d requests (%d attempts: %d connection errors, "
          "%d timeouts, %d throttled) in %.1f s"
          % (events, ncases, s["requests"], s["attempts"], s["conn_errors"], s["timeouts"],
             s["throttled"], s["seconds"]))
    if errors:
        print("client errors: %s" % errors[:5])
        return 1
    return 0


def main(argv):
    if len(argv) >= 6 and argv[1] == "gen":
        gen(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]) if len(argv) > 6 else 1)
        return 0
    if len(argv) == 4 and argv[1] == "pace":
        try:
            pace(argv[2], float(argv[3]))
        except BrokenPipeError:
            # The producer is gone (a test stopping early): quietly.
            sys.stderr.close()
            return 1
        return 0
    if len(argv) in (3, 4) and argv[1] == "sum" and argv[3:] in ([], ["--applied"]):
        print(sum(read_dump(argv[2], len(argv) == 4).values()))
        return 0
    if len(argv) >= 4 and argv[1] == "state":
        rest, extra_ok, prefix, all_applied = argv[4:], False, "", False
        while rest:
            if rest[0] == "--extra-ok":
                extra_ok, rest = True, rest[1:]
            elif rest[0] == "--applied":
                all_applied, rest = True, rest[1:]
            elif rest[0] == "--prefix" and len(rest) > 1:
                prefix, rest = rest[1], rest[2:]
            else:
                print(__doc__, file=sys.stderr)
                return 2
        return state(argv[2], argv[3], extra_ok, prefix, all_applied)
    if len(argv) == 4 and argv[1] == "applied":
        with open(argv[3], "w") as f:
            json.dump(read_dump(argv[2], True), f)
        return 0
    if len(argv) == 4 and argv[1] == "preds":
        return preds(argv[2], argv[3])
    if len(argv) >= 6 and argv[1] == "otlp":
        opts = {"--threads": "4", "--spans-per-case": "5", "--cases-per-request": "10",
                "--seed": "1", "--log": "", "--rate": "0", "--timeout": "120",
                "--prefix": "otlp"}
        rest = argv[6:]
        while rest:
            if rest[0] not in opts or len(rest) < 2:
                print(__doc__, file=sys.stderr)
                return 2
            opts[rest[0]] = rest[1]
            rest = rest[2:]
        return otlp(argv[2], argv[3], int(argv[4]), int(argv[5]), int(opts["--threads"]),
                    int(opts["--spans-per-case"]), int(opts["--cases-per-request"]),
                    int(opts["--seed"]), opts["--log"], float(opts["--rate"]),
                    float(opts["--timeout"]), opts["--prefix"])
    if len(argv) == 5 and argv[1] == "consistent":
        st = json.load(open(argv[2]))
        offs = sum(o["next_offset"] for o in st.get("offsets", []) if o["topic"] == argv[4])
        seqs = sum(read_dump(argv[3]).values())
        print("offsets %d, seqs %d%s" % (offs, seqs, "" if offs == seqs else ": MISMATCH"))
        return 0 if offs == seqs else 1
    if len(argv) == 4 and argv[1] == "ready":
        print(json.load(open(argv[2]))[argv[3]])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
