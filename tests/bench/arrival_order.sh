#!/usr/bin/env bash
# The cost of arrival order and what event time gives back. The demo
# application's orders (AO_ORDERS, 40; seed AO_SEED, 99) run on the real
# OpenTelemetry Python SDK (deploy/demo/otel_app.py), once with its default
# batch processors and once with its simple ones (AO_MODES, "batch simple").
# The SDK exports every span and log record to five endpoints at once: a
# capture of what it sent (tests/bench/arrival_order.py capture) and four
# daemons configured like the demo's (model mined from 600 simulated orders,
# online learning and rebuilds as deploy/demo/run.sh runs them), with
# serve.reorder_ms=0 (arrival order: what users got before) and with the
# default (event time), instrumented (map.code_attrs=true) and blind
# (false). Then four more daemons, all with serve.reorder_ms=0, are fed the
# captured events again (OTLP JSON, the same attributes and code.*): in
# start order (each case's events regrouped by start time) and, as the
# control of that re-encoding, in the order received.
#
# Printed per mode: online top-1, top-3 and MRR against the events' code.*
# (each daemon's /v1/stats), the window's late, refused and revised counts,
# and the latency the window adds (per event, its first prediction's
# latency_us against the reorder_ms=0 daemon's; tests/bench/arrival_order.py
# latency). The goal, at the default: top-1 (instrumented) within 1 point of
# the start-order feed, and the added p99 latency no more than the grace
# plus 5 ms. On stdout one JSON line per mode, then that line of each mode,
# the batch processors' last:
#   start order top-1 X, arrival order top-1 Y, event time top-1 Z
#   (reorder_ms R), added latency p50 A ms p99 B ms
# Figures, not a gate: exits 1 only when something breaks.
#
#   arrival_order.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: AO_ORDERS, AO_SEED, AO_MODES, AO_SET (more "KEY=VALUE ..."
# for the event-time daemons, e.g. serve.reorder_ms=250).
set -euo pipefail
usage="usage: arrival_order.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=$(cd "${2:?$usage}" && pwd)
work=${3:-}
orders=${AO_ORDERS:-40}
seed=${AO_SEED:-99}
modes=${AO_MODES:-batch simple}
# shellcheck disable=SC2206 # word splitting wanted: "k=v k2=v2"
extra=(${AO_SET:-})
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean 'run-*'
py=$src/deploy/otel-python.sh
tool=$src/tests/bench/arrival_order.py

demo_setup 600 7
demo_model "$work/log.csv"
reorder_ms=$("$pmrag" config --reference | awk -F'`' '$2 == "serve.reorder_ms" { print $4 }')
for kv in "${extra[@]}"; do
  [[ $kv == serve.reorder_ms=* ]] && reorder_ms=${kv#*=}
done
sets=()
for kv in "${extra[@]}"; do sets+=(--set "$kv"); done

# daemon NAME REORDER_MS CODE_ATTRS: pmrag serve as the demo runs its
# instrumented and blind daemons, predictions on $work/NAME.jsonl.
daemon() {
  local name=$1 reorder=$2 code=$3 more=()
  [[ $reorder == default ]] && more=("${sets[@]}") || more=(--set serve.reorder_ms="$reorder")
  serve_start "$name" --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/$name.state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
    --set kafka.embedded=false --set serve.stdout=true --set map.code_attrs="$code" \
    --set model.rebuild_events=200 --set model.rebuild_seconds=2 --set model.rebuild_min_seconds=1 \
    "${more[@]}" >"$work/$name.jsonl"
}
# settled NAME N: until daemon NAME has received N events and holds none.
settled() {
  local api n held i
  api=$(ready_field "$1" api)
  for ((i = 0; i < 600; i++)); do
    n=$(metric "$api" 'pmrag_events_in_total{source="otlp_http"}')
    held=$(metric "$api" pmrag_events_held)
    ((${n:-0} >= $2)) && [[ ${held:-1} == 0 ]] && return 0
    sleep 0.1
  done
  fail "$1 received ${n:-?} of $2 events (${held:-?} held) in 60 s"
}
# figures NAME: one JSON object of daemon NAME's online accuracy and its
# event-time counts.
figures() {
  local api
  api=$(ready_field "$1" api)
  curl -fsS -m 5 "http://$api/v1/stats" >"$work/$1.stats" || fail "GET /v1/stats of $1"
  curl -fsS -m 5 "http://$api/metrics" >"$work/$1.prom" || fail "GET /metrics of $1"
  python3 - "$work/$1.stats" "$work/$1.prom" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
m = {}
for line in open(sys.argv[2]):
    if line.startswith("#") or not line.strip():
        continue
    k, v = line.rsplit(" ", 1)
    m[k] = float(v)
n = s["scored"] or 1
print(json.dumps({"events": s["events"], "scored": s["scored"],
                  "top1": round(s["hits"]["1"] / n, 4), "top3": round(s["hits"]["3"] / n, 4),
                  "mrr": round(s["mrr"], 4),
                  "late": int(m.get("pmrag_events_late_total", 0)),
                  "too_late": int(m.get("pmrag_events_too_late_total", 0)),
                  "revised": int(m.get("pmrag_predictions_revised_total", 0)),
                  "duplicates": int(m.get("pmrag_events_duplicate_total", 0))}))
PY
}

for mode in $modes; do
  run=$work/run-$mode
  mkdir -p "$run"
  echo "arrival_order: $mode processors: $orders orders (seed $seed), reorder_ms $reorder_ms" >&2
  port=$(free_ports 1)
  # (The capture writes what the first endpoint received, in that order.)
  "$py" "$tool" capture "$port" "$run/capture.jsonl" 2>"$run/capture.err" &
  cap_pid=$!
  track "$cap_pid"
  log_watch "$run/capture.err"
  daemon "run-$mode/arr-i" 0 true
  daemon "run-$mode/evt-i" default true
  daemon "run-$mode/arr-b" 0 false
  daemon "run-$mode/evt-b" default false
  for d in arr-i evt-i arr-b evt-b; do serve_wait "run-$mode/$d" 60; done
  eps=(--endpoint "127.0.0.1:$port")
  for d in arr-i evt-i arr-b evt-b; do eps+=(--endpoint "$(ready_field "run-$mode/$d" otlp_http)"); done
  flag=()
  [[ $mode == batch ]] && flag=(--batch)
  log_watch "$run/sdk.err" otel_app
  "$py" "$src/deploy/demo/otel_app.py" --orders "$orders" --seed "$seed" "${flag[@]}" "${eps[@]}" \
    2>"$run/sdk.err" || fail "otel_app.py exited $?"
  tail -1 "$run/sdk.err" >&2
  term "$cap_pid" || true
  events=$(wc -l <"$run/capture.jsonl")
  ((events > 0)) || fail "the capture received nothing"
  for d in arr-i evt-i arr-b evt-b; do
    settled "run-$mode/$d" "$events"
    figures "run-$mode/$d" >"$run/$d.fig"
  done
  python3 "$tool" latency "$run/arr-i.jsonl" "$run/evt-i.jsonl" >"$run/latency.json"
  for d in arr-i evt-i arr-b evt-b; do stop "${pid_of[run-$mode/$d]}"; done

  # The same events again, in start order and (the control) as received.
  daemon "run-$mode/start-i" 0 true
  daemon "run-$mode/start-b" 0 false
  daemon "run-$mode/ctl-i" 0 true
  daemon "run-$mode/ctl-b" 0 false
  for d in start-i start-b ctl-i ctl-b; do serve_wait "run-$mode/$d" 60; done
  python3 "$tool" feed "$run/capture.jsonl" start "$(ready_field "run-$mode/start-i" otlp_http)" \
    "$(ready_field "run-$mode/start-b" otlp_http)" 2>>"$run/feed.err" || fail "feed: $(tail -2 "$run/feed.err")"
  python3 "$tool" feed "$run/capture.jsonl" arrival "$(ready_field "run-$mode/ctl-i" otlp_http)" \
    "$(ready_field "run-$mode/ctl-b" otlp_http)" 2>>"$run/feed.err" || fail "feed: $(tail -2 "$run/feed.err")"
  for d in start-i start-b ctl-i ctl-b; do
    settled "run-$mode/$d" "$events"
    figures "run-$mode/$d" >"$run/$d.fig"
    stop "${pid_of[run-$mode/$d]}"
  done

  python3 - "$run" "$mode" "$orders" "$seed" "$reorder_ms" "$events" <<'PY'
import json, sys
run, mode, orders, seed, reorder, events = sys.argv[1:]
F = lambda n: json.load(open("%s/%s.fig" % (run, n)))
lat = json.load(open(run + "/latency.json"))
rows = {n: F(n) for n in ("start-i", "arr-i", "evt-i", "ctl-i", "start-b", "arr-b", "evt-b", "ctl-b")}
res = {"bench": "arrival_order", "processors": mode, "orders": int(orders), "seed": int(seed),
       "events": int(events), "reorder_ms": int(reorder), "added_latency_ms": lat,
       "instrumented": {"start": rows["start-i"], "arrival": rows["arr-i"],
                        "event_time": rows["evt-i"], "control": rows["ctl-i"]},
       "blind": {"start": rows["start-b"], "arrival": rows["arr-b"],
                 "event_time": rows["evt-b"], "control": rows["ctl-b"]}}
print(json.dumps(res))
err = sys.stderr
print("%s processors, %s orders, %s events; online against code.*: top-1 / top-3 / MRR"
      % (mode, orders, events), file=err)
print("  %-13s %-24s %-24s %-24s %s" % ("", "start order", "arrival order",
                                       "event time (%s ms)" % reorder, "control"), file=err)
for kind in ("instrumented", "blind"):
    r = res[kind]
    cell = lambda x: "%.3f / %.3f / %.3f" % (x["top1"], x["top3"], x["mrr"])
    print("  %-13s %-24s %-24s %-24s %.3f" % (kind, cell(r["start"]), cell(r["arrival"]),
                                             cell(r["event_time"]), r["control"]["top1"]), file=err)
e = res["instrumented"]["event_time"]
print("  event time: %d late events placed, %d refused as too late, %d predictions revised,"
      " %d duplicates" % (e["late"], e["too_late"], e["revised"], e["duplicates"]), file=err)
d = res["instrumented"]["start"]["top1"] - e["top1"]
met = d <= 0.01 and lat["p99_ms"] is not None and lat["p99_ms"] <= int(reorder) + 5
print("  added latency (%d events): p50 %.1f ms, p99 %.1f ms, max %.1f ms; goal: top-1 within"
      " 1 point of start order (%.1f points) and p99 <= %d ms: %s"
      % (lat["events"], lat["p50_ms"], lat["p99_ms"], lat["max_ms"], d * 100, int(reorder) + 5,
         "met" if met else "MISSED"), file=err)
open(run + "/line.txt", "w").write(
    "start order top-1 %.3f, arrival order top-1 %.3f, event time top-1 %.3f (reorder_ms %s),"
    " added latency p50 %.1f ms p99 %.1f ms\n"
    % (res["instrumented"]["start"]["top1"], res["instrumented"]["arrival"]["top1"], e["top1"],
       reorder, lat["p50_ms"], lat["p99_ms"]))
PY
done
# The simple processors' line, then the batch processors' last.
for mode in $modes; do
  [[ $mode == batch ]] || { printf '%s processors: ' "$mode"; cat "$work/run-$mode/line.txt"; }
done
for mode in $modes; do
  [[ $mode != batch ]] || cat "$work/run-$mode/line.txt"
done
