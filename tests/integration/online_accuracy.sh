#!/usr/bin/env bash
# The daemon keeps score of itself: the test split of the demo
# application's log (with the code.* attributes of every record, as an
# instrumented application sends them) replayed through `pmrag serve`
# over OTLP/HTTP, the model bootstrapped from the train split, no online
# learning, code.* not used by the mapping. Each prediction is scored by
# the case's next event; the online top-1 must equal `pmrag eval`'s
# offline top-1 on the same split within 1 point, every target must be
# scored once, /metrics and GET /v1/stats must agree, and a case's score
# (and its latest prediction, which its next event scores) must survive a
# SIGKILL and a restart. Then a daemon with the graph and nothing else
# (no model, no bootstrap log, no online learning) predicts from the code
# from its first event: its top-1 on the same split is `pmrag eval
# --learning-curve`'s with no training case within 2 points, and above
# the same daemon's with the code's share turned off.
#
#   online_accuracy.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: online_accuracy.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
tool="python3 $src/tests/integration/replay_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean state serve.err serve.ready

demo_setup 200 7
targets=$($tool split "$work/log.csv" "$work")

"$pmrag" eval --graph "$work/app.graph" --log "$work/log.csv" --no-baselines --json -q \
  >"$work/eval.json" 2>"$work/eval.err" || fail "pmrag eval: $(tail -3 "$work/eval.err")"
read -r off_n off_top1 < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(r["n"], r["top_k"]["1"])' "$work/eval.json")
[[ $off_n == "$targets" ]] || fail "pmrag eval scored $off_n targets, the split has $targets"

start() {
  serve_start serve --graph "$work/app.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set model.bootstrap_log="$work/train.csv" --set model.learn_online=false \
    --set map.code_attrs=false
  serve_wait serve 120
  api=$(ready_field serve api)
  otlp=$(ready_field serve otlp_http)
}
start
sent=$($tool send "$work/test.json" "$otlp") || fail "sending the test split"
held_wait serve # (every event applied: out of the event-time window)
curl -fsS "http://$api/v1/stats" >"$work/stats.json" || fail "GET /v1/stats"
curl -fsS "http://$api/metrics" >"$work/metrics.txt" || fail "GET /metrics"
echo "replayed $sent events ($targets targets)"

check "online top-1 equals offline top-1 within 1 point; every target scored once" \
  -- python3 - "$work/stats.json" "$work/eval.json" "$targets" <<'PY'
import json, sys
st = json.load(open(sys.argv[1])); ev = json.load(open(sys.argv[2])); n = int(sys.argv[3])
on = st["hits"]["1"] / st["scored"]
off = ev["top_k"]["1"]
print("online  top-1 %.4f top-3 %.4f top-10 %.4f mrr %.4f (scored %d)" % (
    on, st["hits"]["3"] / st["scored"], st["hits"]["10"] / st["scored"], st["mrr"], st["scored"]))
print("offline top-1 %.4f top-3 %.4f top-10 %.4f mrr %.4f (n %d)" % (
    off, ev["top_k"]["3"], ev["top_k"]["10"], ev["mrr"], ev["n"]))
assert st["scored"] == n, "scored %d, targets %d" % (st["scored"], n)
assert st["hits"]["1"] <= st["hits"]["3"] <= st["hits"]["10"] <= st["scored"]
assert abs(on - off) <= 0.01, "online %.4f offline %.4f" % (on, off)
assert abs(st["hit_rate"]["1"] - on) < 1e-5
# Everything was sent within the rolling window.
assert st["window"]["scored"] == n and st["window"]["hits"]["1"] == st["hits"]["1"]
assert st["model"]["version"] == "v1" and st["events"] >= n
assert any(b["scored"] for b in st["series"]["buckets"])
PY
sed -n 1,2p "$work/check.out"

check "/metrics counts what /v1/stats says" -- python3 - "$work/metrics.txt" "$work/stats.json" <<'PY'
import json, sys
m = {}
for line in open(sys.argv[1]):
    if line and not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
st = json.load(open(sys.argv[2]))
assert m["pmrag_predictions_scored_total"] == st["scored"]
for k in ("1", "3", "10"):
    assert m['pmrag_prediction_hits_total{k="%s"}' % k] == st["hits"][k], k
    assert abs(m['pmrag_prediction_hit_rate{k="%s"}' % k] - st["window"]["hit_rate"][k]) < 1e-5, k
assert abs(m["pmrag_prediction_mrr"] - st["window"]["mrr"]) < 1e-5
PY

# One case's score, then SIGKILL (what was answered is committed) and a
# restart: the case's score is where it was, and its next event is scored
# against the prediction stored before the kill.
case_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[-1]["case_id"])' "$work/test.json")
curl -fsS "http://$api/v1/cases/$case_id" >"$work/case1.json" || fail "GET /v1/cases/$case_id"
kill_wait "${pid_of[serve]}"
start
curl -fsS "http://$api/v1/cases/$case_id" >"$work/case2.json" || fail "GET /v1/cases/$case_id after the restart"
check "a case's score survives SIGKILL and a restart" -- python3 - "$work/case1.json" "$work/case2.json" "$work/test.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
rows = [r for r in json.load(open(sys.argv[3])) if r["case_id"] == a["case_id"]]
acc = a["accuracy"]
assert acc["scored"] == len(rows) - 1, (acc, len(rows))
assert acc["hits"]["1"] <= acc["hits"]["3"] <= acc["hits"]["10"] <= acc["scored"]
assert acc["last_rank"] is not None
assert b["accuracy"] == acc, (b["accuracy"], acc)
PY
# The case's next event: the last event of the case again, with its truth,
# a millisecond later (the same record again would be a duplicate).
python3 - "$work/test.json" "$case_id" "$work/one.json" <<'PY'
import datetime, json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["case_id"] == sys.argv[2]]
r = dict(rows[-1])
t = datetime.datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
r["timestamp"] = (t + datetime.timedelta(milliseconds=1)).isoformat()
json.dump([r], open(sys.argv[3], "w"))
PY
$tool send "$work/one.json" "$otlp" >/dev/null || fail "sending one more event"
held_wait serve
seq3=$(($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seq"])' "$work/case2.json") + 1))
got=$(case_seq_wait "$api" "$case_id" "$seq3") || fail "case $case_id at seq $got, not $seq3"
curl -fsS "http://$api/v1/cases/$case_id" >"$work/case3.json" || fail "GET /v1/cases/$case_id"
curl -fsS "http://$api/v1/stats" >"$work/stats2.json" || fail "GET /v1/stats"
check "the first event after the restart is scored against the stored prediction" \
  -- python3 - "$work/case2.json" "$work/case3.json" "$work/stats2.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["accuracy"]; c = json.load(open(sys.argv[2]))["accuracy"]
st = json.load(open(sys.argv[3]))
assert c["scored"] == b["scored"] + 1, (b, c)
assert st["scored"] == 1, st["scored"]  # daemon-wide counts start with the process
r = c["last_rank"]
assert r is not None and r >= 0
assert c["hits"]["10"] - b["hits"]["10"] == (1 if 1 <= r <= 10 else 0)
assert st["hits"]["10"] == (1 if 1 <= r <= 10 else 0)
PY
stop "${pid_of[serve]}"

# From the code alone, from the first event.
"$pmrag" eval --graph "$work/app.graph" --log "$work/log.csv" --no-baselines --json -q \
  --learning-curve >"$work/curve.json" 2>"$work/curve.err" || fail "pmrag eval --learning-curve: $(tail -3 "$work/curve.err")"
# cold SHARE OUT: the code-only daemon with model.code_prior SHARE ("default": the
# configured default, which the offline curve above uses too; 0: recency alone,
# without the case's own past either).
cold() {
  local share=()
  [ "$1" = default ] || share=(--set model.code_prior="$1" --set model.case_prior=0)
  work_clean state
  serve_start serve --graph "$work/app.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set model.learn_online=false --set map.code_attrs=false "${share[@]}"
  serve_wait serve 120
  api=$(ready_field serve api)
  otlp=$(ready_field serve otlp_http)
  $tool send "$work/test.json" "$otlp" >/dev/null || fail "sending the test split (code_prior $1)"
  held_wait serve
  curl -fsS "http://$api/v1/stats" >"$work/$2" || fail "GET /v1/stats (code_prior $1)"
  stop "${pid_of[serve]}"
}
cold default cold.json
cold 0 recency.json
check "with no model, the daemon predicts from the code from its first event" \
  -- python3 - "$work/cold.json" "$work/recency.json" "$work/curve.json" "$targets" <<'PY'
import json, sys
st, rec, cv = (json.load(open(f)) for f in sys.argv[1:4])
n = int(sys.argv[4])
k0 = cv["learning_curve"][0]
assert k0["train_cases"] == 0
off = k0["pmrag"]["all"]["top_k"]["1"]
on = st["hits"]["1"] / st["scored"]
bare = rec["hits"]["1"] / rec["scored"]
print("no model: online top-1 %.4f (recency alone %.4f), offline with 0 training cases %.4f" % (
    on, bare, off))
assert st["scored"] == n and rec["scored"] == n, (st["scored"], rec["scored"], n)
assert abs(on - off) <= 0.02, "online %.4f offline %.4f" % (on, off)
assert on > bare + 0.05, "the code's share adds %.4f" % (on - bare)
PY
sed -n 1p "$work/check.out"
finish
