#!/usr/bin/env bash
# A new release taken without a restart. Release N is the demo
# application; release N+1 is the same code with its lines moved (a
# comment block atop four files), two methods renamed (their log sites
# with them) and a message reworded. The simulator runs on both with the
# same seed, so both logs have the same cases and events in the same order;
# the replay is N's log up to a deploy point, then N+1's (cases in flight
# cross the deploy).
#
# Daemon A serves N's graph and a model mined on N (a log of its own);
# at the deploy point N+1's graph is written over the file and A gets
# SIGHUP. Daemon B starts on N+1's graph with the model re-mapped
# offline (`pmrag remap`, told the old graph as the daemon knows it) and
# gets the same replay. Then:
#  - the reload is taken: a new model version, a new graph_version in
#    the predictions, result="loaded" counted, said in the log;
#  - nothing is lost: every event accepted and predicted once;
#  - no case is reset: every case's predictions run 1..n without a gap;
#  - A's top-1 over the 2,000 events after the deploy is within 2 points
#    of B's (each prediction scored by the case's next event, last_rank);
#  - A restarted on the same files (N+1's graph, N's model) has its cases
#    where they were.
#
#   reload_release.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: reload_release.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
tool="python3 $src/tests/integration/replay_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean stateA stateB rel1 rel2 '*.err' '*.ready' '*.out' '*.json' '*.csv' '*.graph' '*.model'

# The two releases.
cp -r "$src/deploy/demo/app" "$work/rel1"
find "$work/rel1" -name __pycache__ -prune -exec rm -rf {} +
cp -r "$work/rel1" "$work/rel2"
python3 - "$work/rel2/python/orderflow" <<'PY'
import sys
d = sys.argv[1]
def edit(name, *pairs, shift=True):
    p = "%s/%s.py" % (d, name)
    s = open(p).read()
    for a, b in pairs:
        assert a in s, (name, a)
        s = s.replace(a, b)
    if shift:
        s = "# Release N+1.\n#\n# Lines below moved down by this note.\n#\n#\n" + s
    open(p, "w").write(s)
edit("shipping", ("def poll(", "def poll_carrier("), ("def void_labels(", "def cancel_labels("),
     ('"shipment %s delivered by %s"', '"shipment %s was delivered by carrier %s"'))
edit("orders", (".poll(shipment)", ".poll_carrier(shipment)"),
     (".void_labels(shipments)", ".cancel_labels(shipments)"))
edit("payments")
edit("fraud")
PY
"$pmrag" index "$work/rel1" -o "$work/rel1.graph" -q 2>"$work/index.err" ||
  fail "pmrag index (release N): $(tail -3 "$work/index.err")"
"$pmrag" index "$work/rel2" -o "$work/rel2.graph" -q 2>"$work/index.err" ||
  fail "pmrag index (release N+1): $(tail -3 "$work/index.err")"
simulate() { # RELEASE ORDERS SEED OUT
  (cd "$work/$1/python" && "$src/deploy/otel-python.sh" -m orderflow.simulate --orders "$2" \
    --seed "$3" --out "$4" >/dev/null 2>"$work/sim.err") || fail "the simulator: $(tail -3 "$work/sim.err")"
}
simulate rel1 150 3 "$work/train.csv"
simulate rel1 90 11 "$work/replay1.csv"
simulate rel2 90 11 "$work/replay2.csv"
"$pmrag" mine --graph "$work/rel1.graph" --log "$work/train.csv" -o "$work/rel1.model" -q \
  2>"$work/mine.err" || fail "pmrag mine: $(tail -3 "$work/mine.err")"
"$pmrag" remap --model "$work/rel1.model" --graph "$work/rel2.graph" --old-graph "$work/rel1.graph" \
  -o "$work/remapped.model" >"$work/remap.out" 2>&1 || fail "pmrag remap: $(tail -3 "$work/remap.out")"
echo "remap: $(head -1 "$work/remap.out")"

# The replay: N's events before the deploy point, N+1's from it; the
# 2,000 events after it are the ones compared.
read -r deploy total < <(python3 - "$work" <<'PY'
import csv, json, sys
w = sys.argv[1]
a = list(csv.DictReader(open(w + "/replay1.csv", newline="")))
b = list(csv.DictReader(open(w + "/replay2.csv", newline="")))
if [r["case_id"] for r in a] != [r["case_id"] for r in b]:
    raise SystemExit("the two releases' logs differ in their cases or order")
k = len(a) // 3
if len(a) - k < 2000:
    raise SystemExit("a replay of %d events is too short" % len(a))
json.dump(a[:k], open(w + "/before.json", "w"))
json.dump(b[k:], open(w + "/after.json", "w"))
# (case, seq) of every event, in replay order, for the comparison.
seqs, n = [], {}
for r in a:
    n[r["case_id"]] = n.get(r["case_id"], 0) + 1
    seqs.append([r["case_id"], n[r["case_id"]]])
json.dump({"deploy": k, "events": seqs}, open(w + "/events.json", "w"))
print(k, len(a))
PY
) || fail "building the replay"

cp "$work/rel1.graph" "$work/live.graph"
common=(--set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false
  --set model.learn_online=false --set map.code_attrs=false --set serve.stdout=true)
serve_start A --graph "$work/live.graph" --model "$work/rel1.model" --set state.dir="$work/stateA" \
  "${common[@]}" >"$work/A.out"
pidA=$pid
serve_start B --graph "$work/rel2.graph" --model "$work/remapped.model" \
  --set state.dir="$work/stateB" "${common[@]}" >"$work/B.out"
pidB=$pid
serve_wait A 60
serve_wait B 60
apiA=$(ready_field A api)

$tool send "$work/before.json" "$(ready_field A otlp_http)" >/dev/null || fail "replaying into A"
$tool send "$work/before.json" "$(ready_field B otlp_http)" >/dev/null || fail "replaying into B"
held_wait A
v0=$(metric "$apiA" pmrag_model_version)
# The deploy: the new graph written over the file in use, then SIGHUP.
cp "$work/rel2.graph" "$work/live.graph"
kill -HUP "$pidA"
for _ in $(seq 200); do
  [[ $(metric "$apiA" pmrag_model_version) -gt $v0 ]] 2>/dev/null && break
  running "$pidA" || fail "A exited on SIGHUP"
  sleep 0.05
done
[[ $(metric "$apiA" 'pmrag_model_reloads_total{result="loaded"}') == 1 ]] ||
  bad "the reload was not counted as loaded"
took=$(grep -o 'graph [0-9a-f]* (new): loaded in .*, the engine waited [0-9.]* s' \
  "$work/A.err" || true)
if [[ -n $took ]]; then pass "SIGHUP took the new graph: $took"; else bad "no log line of the new graph in use"; fi
$tool send "$work/after.json" "$(ready_field A otlp_http)" >/dev/null || fail "replaying into A"
$tool send "$work/after.json" "$(ready_field B otlp_http)" >/dev/null || fail "replaying into B"
held_wait A
held_wait B
stop "$pidB"
# A restart after the deploy: the same files (N+1's graph, N's model),
# the state kept; the cases carry on where they were.
last=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["events"][-1]; print(e[0], e[1])' \
  "$work/events.json")
stop "$pidA"
serve_start A --graph "$work/live.graph" --model "$work/rel1.model" --set state.dir="$work/stateA" \
  "${common[@]}" >>"$work/A.restart.out"
serve_wait A 60
seq=$(curl -fsS -m 5 "http://$(ready_field A api)/v1/cases/${last% *}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])' || echo none)
if [[ $seq == "${last#* }" ]]; then
  pass "restarted on N+1's graph with N's model: case ${last% *} still at seq $seq"
else
  bad "restarted on N+1's graph: case ${last% *} at seq $seq, not ${last#* }"
fi
stop "$pid"

check "nothing lost, no case reset, top-1 after the deploy within 2 points of a daemon started on N+1" \
  -- python3 - "$work" "$total" <<'PY'
import json, sys
w, total = sys.argv[1], int(sys.argv[2])
ev = json.load(open(w + "/events.json"))
k = ev["deploy"]
window = {tuple(e) for e in ev["events"][k:k + 2000]}
want = {}
for c, s in ev["events"]:
    want[c] = s
def load(name):
    best = {}
    for line in open("%s/%s.out" % (w, name)):
        p = json.loads(line)
        key = (p["case_id"], p["seq"])
        if key not in best or p["revision"] > best[key]["revision"]:
            best[key] = p
    return best
out = {}
for name in ("A", "B"):
    best = load(name)
    if len(best) != total:
        raise SystemExit("%s: %d events predicted, %d sent" % (name, len(best), total))
    for c, n in want.items():
        got = sorted(s for (cc, s) in best if cc == c)
        if got != list(range(1, n + 1)):
            raise SystemExit("%s: case %s predicted at seqs %s, not 1..%d" % (name, c, got[:8], n))
    out[name] = best
a, b = out["A"], out["B"]
gv = {p["graph_version"] for key, p in a.items() if key in window}
gb = {p["graph_version"] for p in b.values()}
if len(gv) != 1 or gv != gb:
    raise SystemExit("graph_version after the deploy: A %s, B %s" % (sorted(gv), sorted(gb)))
early = {tuple(e) for e in ev["events"][:k]}
before = {p["graph_version"] for key, p in a.items() if key in early}
if len(before) != 1 or before == gv:
    raise SystemExit("A's predictions before the deploy have graph_version %s too" % sorted(gv))
keys = [x for x in window if a[x]["last_rank"] is not None and b[x]["last_rank"] is not None]
ta = sum(a[x]["last_rank"] == 1 for x in keys) / len(keys)
tb = sum(b[x]["last_rank"] == 1 for x in keys) / len(keys)
print("top-1 over %d events after the deploy: reloaded %.4f, started on N+1 %.4f" % (len(keys), ta, tb))
if abs(ta - tb) > 0.02:
    raise SystemExit("more than 2 points apart")
PY
sed -n 's/^/    /p' "$work/check.out"
finish
