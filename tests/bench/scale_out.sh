#!/usr/bin/env bash
# Scale-out figures on this machine, against `pmrag kafka-mock`:
#  - throughput: BENCH_EVENTS `json` events pre-produced to one topic, then
#    read by 1, 2 and 3 instances of a fresh consumer group started at once
#    (kafka.changelog=true), and by 1 without the changelog: events/s from
#    the first to the last prediction (the output's Kafka timestamps), with
#    the rebalances and restores that happened meanwhile;
#  - restore: one instance applies BENCH_RESTORE_CASES cases of 2 events
#    each; a second one, with an empty state, joins while a trickle of new
#    events flows, and restores the cases of the partitions it is given:
#    the daemon's "restored N case changes ... in X ms" lines (ms per 10k
#    changes and per 10k cases) and the time from the start of its first
#    restore to its first prediction (its pmrag_predictions_out_total,
#    polled every 20 ms).
# Figures, not a gate: exits 1 only when something breaks. One JSON line per
# run on stdout, a summary on stderr. The mock keeps about 5 MB per
# partition: predictions are protobuf with serve.k=1, and the partitions 32.
#
#   scale_out.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: BENCH_EVENTS (400000), BENCH_CASES (10000), BENCH_PARTITIONS
# (32), BENCH_INSTANCES ("1 2 3"), BENCH_RESTORE_CASES (50000),
# BENCH_TRICKLE (new events per second during the join, 200).
set -euo pipefail
usage="usage: scale_out.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${BENCH_EVENTS:-400000}
cases=${BENCH_CASES:-10000}
partitions=${BENCH_PARTITIONS:-32}
instances=${BENCH_INSTANCES:-1 2 3}
rcases=${BENCH_RESTORE_CASES:-50000}
trickle=${BENCH_TRICKLE:-200}
tool="python3 $src/tests/integration/scale_tool.py"
ctool="python3 $src/tests/integration/crash_tool.py"
command -v kcat >/dev/null || { echo "scale_out: kcat not found" >&2; exit 1; }
own_work=
if [[ -z $work ]]; then
  work=$(mktemp -d)
  own_work=$work
fi
mkdir -p "$work"
rm -rf "$work"/run-* "$work"/*.json "$work"/*.err "$work"/*.tsv
declare -A pid=()
mock_pid='' feed_pid=''
cleanup() {
  local p
  for p in $feed_pid "${pid[@]}" $mock_pid; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n $own_work ]]; then rm -rf "$own_work"; fi
}
trap cleanup EXIT
say() { echo "scale_out: $*" >&2; }
fail() {
  say "FAIL: $*"
  local f
  for f in "$work"/run-*/*.err; do
    [[ -f $f ]] || continue
    echo "  --- ${f#"$work"/}:" >&2
    grep -v CONFWARN "$f" | tail -6 | cut -f2- | sed 's/^/  /' >&2
  done
  exit 1
}
now_ms() { date +%s%3N; }

say "indexing the demo app, simulating its log, mining the model, making the events"
"$pmrag" index "$src/deploy/demo/app" -o "$work/app.graph" -q 2>/dev/null
(cd "$src/deploy/demo/app/python" &&
  "$src/deploy/otel-python.sh" -m orderflow.simulate --orders 200 --seed 11 --out "$work/log.csv" >/dev/null)
mkdir -p "$work/ev" "$work/rev" "$work/tev"
$ctool gen "$work/log.csv" "$work/ev" "$events" "$cases" 1 >/dev/null
$ctool gen "$work/log.csv" "$work/rev" $((2 * rcases)) "$rcases" 2 >/dev/null
$ctool gen "$work/log.csv" "$work/tev" 20000 20000 3 >/dev/null
sed 's/crash-/trickle-/g' "$work/tev/events.kcat" >"$work/tev/trickle.kcat"
"$pmrag" mine --graph "$work/app.graph" --log "$work/ev/train.csv" -o "$work/app.model" -q 2>/dev/null

topics=(--topic events --topic rin --topic rout)
for n in 0 $instances; do topics+=(--topic "out-t$n" --topic "t$n-cases-changelog"); done
topics+=(--topic r-cases-changelog)
"$pmrag" kafka-mock --partitions "$partitions" "${topics[@]}" --ready-file "$work/mock.json" \
  >/dev/null 2>"$work/mock.err" &
mock_pid=$!
for _ in $(seq 100); do [[ -s $work/mock.json ]] && break; sleep 0.05; done
[[ -s $work/mock.json ]] || fail "kafka-mock did not start: $(cat "$work/mock.err")"
boot=$($ctool ready "$work/mock.json" kafka_bootstrap)

t0=$(date +%s.%N)
kcat -P -b "$boot" -t events -K $'\t' <"$work/ev/events.kcat" 2>"$work/feed.err" ||
  fail "kcat -P: $(tail -3 "$work/feed.err")"
say "$events events over $cases cases pre-produced to $partitions partitions in" \
  "$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"

# start RUN DIR GROUP INPUT OUTPUT [--set ...]
start() {
  local run=$1 dir=$2 group=$3 in=$4 out=$5
  shift 5
  mkdir -p "$dir"
  "$pmrag" serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$dir/state-$run" --set otlp.listen= --set otlp.grpc_listen= --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics="$in" --set kafka.input_encoding=json \
    --set kafka.output_topic="$out" --set serve.k=1 --set model.learn_online=false \
    --set kafka.group="$group" \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500;max.poll.interval.ms=60000" \
    "$@" --ready-file "$dir/ready-$run.json" 2> >($tool stamp >"$dir/$run.err") &
  pid[$run]=$!
}
api_of() { # DIR RUN
  for _ in $(seq 1200); do
    [[ -s $1/ready-$2.json ]] && { $ctool ready "$1/ready-$2.json" api; return 0; }
    kill -0 "${pid[$2]}" 2>/dev/null || fail "$2 exited before it was ready"
    sleep 0.05
  done
  fail "$2 not ready after 60 s"
}
preds_of() { $tool metric "http://$1/metrics" pmrag_predictions_out_total; }
stop_all() {
  local r rc
  for r in "${!pid[@]}"; do kill -TERM "${pid[$r]}" 2>/dev/null || true; done
  for r in "${!pid[@]}"; do
    rc=0
    wait "${pid[$r]}" || rc=$?
    [[ $rc == 0 ]] || fail "$r exited $rc on SIGTERM"
  done
  pid=()
}

# ---- throughput -----------------------------------------------------------
results=()
for n in $instances 0; do
  n_inst=$((n == 0 ? 1 : n))
  dir=$work/run-t$n
  cl=(--set kafka.changelog=true)
  [[ $n == 0 ]] && cl=()
  for i in $(seq "$n_inst"); do
    start "i$i" "$dir" "t$n" events "out-t$n" "${cl[@]}"
  done
  apis=()
  for i in $(seq "$n_inst"); do apis+=("$(api_of "$dir" "i$i")"); done
  # Until every event has a prediction (duplicates after a rebalance count
  # too), at most 10 minutes.
  got=0
  for _ in $(seq 3000); do
    got=0
    for a in "${apis[@]}"; do got=$((got + $(preds_of "$a"))); done
    [[ $got -ge $events ]] && break
    for r in "${!pid[@]}"; do kill -0 "${pid[$r]}" 2>/dev/null || fail "$r exited"; done
    sleep 0.2
  done
  stop_all
  [[ $got -ge $events ]] || fail "$n_inst instance(s): $got of $events predictions after 10 minutes"
  kcat -C -b "$boot" -t "out-t$n" -o beginning -e -q -f '%p\t%o\t%T\n' >"$dir/times.tsv" \
    2>"$dir/kcat.err" || fail "kcat -C out-t$n: $(tail -3 "$dir/kcat.err")"
  r=$($tool rate "$dir/times.tsv" "$events")
  assigns=$(cat "$dir"/i*.err | grep -c 'kafka: assigned [a-z]' || true)
  rest=$($tool restored "$dir"/i*.err)
  label="$n_inst instance(s)$([[ $n == 0 ]] && echo ', no changelog' || true)"
  line=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); s=json.loads(sys.argv[2])
print(json.dumps({"run": "throughput", "instances": int(sys.argv[3]), "changelog": sys.argv[4]=="1",
 "events": int(sys.argv[5]), "predictions": r["predictions"], "seconds": r["seconds"],
 "events_per_s": r["events_per_s"], "dropped_partitions": r["dropped_partitions"],
 "assignments": int(sys.argv[6]), "restores": s["restores"], "restored_changes": s["changes"],
 "restore_ms": s["ms"]}))' "$r" "$rest" "$n_inst" "$((n != 0))" "$events" "$assigns")
  echo "$line"
  results+=("$(python3 -c 'import json,sys; d=json.loads(sys.argv[1])
print("%-28s %9.0f events/s  (%d predictions in %.2f s; %d assignments, %d restores of %d changes in %.0f ms%s)" % (
 sys.argv[2], d["events_per_s"] or 0, d["predictions"], d["seconds"], d["assignments"], d["restores"],
 d["restored_changes"], d["restore_ms"], "; the mock dropped the start of partitions %s: the rate is that of what is left" % d["dropped_partitions"] if d["dropped_partitions"] else ""))' "$line" "$label")")
  say "${results[-1]}"
done

# ---- restore --------------------------------------------------------------
dir=$work/run-restore
start X "$dir" r rin rout --set kafka.changelog=true
api_x=$(api_of "$dir" X)
kcat -P -b "$boot" -t rin -K $'\t' <"$work/rev/events.kcat" 2>"$work/feed.err" ||
  fail "kcat -P rin: $(tail -3 "$work/feed.err")"
for _ in $(seq 3000); do
  [[ $(preds_of "$api_x") -ge $((2 * rcases)) ]] && break
  kill -0 "${pid[X]}" 2>/dev/null || fail "X exited"
  sleep 0.2
done
say "X applied $((2 * rcases)) events of $rcases cases; Y joins while $trickle events/s flow"
$ctool pace "$work/tev/trickle.kcat" "$trickle" |
  kcat -P -b "$boot" -t rin -K $'\t' 2>"$work/trickle.err" &
feed_pid=$!
sleep 1
start Y "$dir" r rin rout --set kafka.changelog=true
t_first=
for _ in $(seq 3000); do
  if [[ -s $dir/ready-Y.json ]]; then
    api_y=$($ctool ready "$dir/ready-Y.json" api)
    if [[ $(preds_of "$api_y") -gt 0 ]]; then
      t_first=$(now_ms)
      break
    fi
  fi
  kill -0 "${pid[Y]}" 2>/dev/null || fail "Y exited"
  sleep 0.02
done
kill "$feed_pid" 2>/dev/null || true
{ wait "$feed_pid"; } 2>/dev/null || true
feed_pid=
stop_all
[[ -n $t_first ]] || fail "Y made no prediction in 60 s"
rest=$($tool restored "$dir/Y.err")
kcat -C -b "$boot" -t r-cases-changelog -o beginning -e -q -f '%p\t%o\t%k\n' >"$dir/changelog.tsv" \
  2>"$dir/kcat.err" || fail "kcat -C r-cases-changelog: $(tail -3 "$dir/kcat.err")"
# The cases restored: the keys of the records each restore read.
line=$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); t=int(sys.argv[2]); n=int(sys.argv[3])
read = {}  # partition -> (from, records read)
for p, ch, frm, ms in s["partitions"]:
    read[p] = (frm, ch)
keys = set()
for line in open(sys.argv[4]):
    p, o, k = line.rstrip("\n").split("\t", 2)
    p, o = int(p), int(o)
    if p in read and read[p][0] <= o < read[p][0] + read[p][1]:
        keys.add(k)
cases = len(keys)
print(json.dumps({"run": "restore", "cases_total": n, "partitions_restored": s["restores"],
 "changes": s["changes"], "cases": cases, "restore_ms": s["ms"],
 "ms_per_10k_changes": s["ms_per_10k_changes"],
 "ms_per_10k_cases": round(s["ms"] * 10000.0 / cases, 1) if cases else None,
 "assignment_to_first_prediction_ms": round(t - s["first_start_ms"]) if s["first_start_ms"] else None,
 "per_partition": s["partitions"]}))' "$rest" "$t_first" "$rcases" "$dir/changelog.tsv")
echo "$line"
say "$(python3 -c 'import json,sys; d=json.loads(sys.argv[1])
print("restore: %d changes (%d cases) of %d partitions in %.0f ms: %.1f ms per 10k changes, %.1f ms per 10k cases; assignment to first prediction %s ms" % (
 d["changes"], d["cases"], d["partitions_restored"], d["restore_ms"], d["ms_per_10k_changes"] or 0,
 d["ms_per_10k_cases"] or 0, d["assignment_to_first_prediction_ms"]))' "$line")"
say "summary:"
for r in "${results[@]}"; do say "  $r"; done
