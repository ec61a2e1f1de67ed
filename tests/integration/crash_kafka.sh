#!/usr/bin/env bash
# Crash safety with Kafka input: `pmrag serve` consumes `json`
# events from a standalone mock cluster (`pmrag kafka-mock`) and is killed
# with SIGKILL at random points, then restarted on the same state
# directory and consumer group, again and again. A producer keeps feeding
# the input topic at a steady rate meanwhile, so every kill lands while
# events flow (some before the restarted daemon is even ready). At the end:
#  - `pmrag state dump` shows every case's seq equal to its number of input
#    events: nothing lost, nothing applied twice. The daemon holds events
#    back for serve.reorder_ms (event time): each kill lands with events
#    held (they count with the ones applied: seq plus held), and the last
#    run waits until every one is applied;
#  - the output topic holds a prediction for every (case, seq); duplicates
#    (predictions produced, then the state not committed before the kill)
#    are allowed, counted and printed, and must agree on the activity.
#
#   crash_kafka.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: CRASH_EVENTS (40000), CRASH_CASES (1000), CRASH_KILLS (5),
# CRASH_RATE (input events per second; by default what spreads the events
# over the kills, about 7 s each), CRASH_PARTITIONS (32),
# CRASH_KILL_MAX_MS (longest run after ready before the kill, 1000: a
# restarted daemon finds the events of its down time waiting and is busy
# with them for about that long), CRASH_BATCH (serve.batch, 200: small
# batches make many commits, so that kills land between a batch's
# predictions reaching the broker and its state commit),
# CRASH_SEED (random; printed, so that a run can be repeated),
# CRASH_SIGNAL (KILL; TERM tells a crash from a restart), CRASH_SET
# (more "KEY=VALUE ..." for the daemon, e.g. model.learn_online=true). The full
# size run (ctest -L bench -R crash_kafka) sets 200000 events, 5000 cases
# and 8 kills.
#
# A killed consumer keeps its partitions until its session times out (45 s
# by default): the daemon runs with session.timeout.ms=6000 here so that a
# restart gets them back in about 7 s.
set -euo pipefail
usage="usage: crash_kafka.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${CRASH_EVENTS:-40000}
cases=${CRASH_CASES:-1000}
kills=${CRASH_KILLS:-5}
rate=${CRASH_RATE:-$((events / (kills * 7) + 1))}
partitions=${CRASH_PARTITIONS:-32}
kill_max_ms=${CRASH_KILL_MAX_MS:-1000}
batch=${CRASH_BATCH:-200}
seed=${CRASH_SEED:-$((RANDOM * 32768 + RANDOM))}
sig=${CRASH_SIGNAL:-KILL}
extra=()
for kv in ${CRASH_SET:-}; do extra+=(--set "$kv"); done
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat

work_init
work_clean state '*.json' '*.err' '*.ready' pred.tsv
t_start=$(now)
echo "crash_kafka: $events events, $cases cases, $kills kills (SIG$sig), $rate events/s, seed $seed"

# The demo application's graph; a model mined from half of a simulated
# log, the events made from the other half.
demo_setup 200 11
$tool gen "$work/log.csv" "$work" "$events" "$cases" "$seed"
demo_model "$work/train.csv"

# The cluster, on its own: it outlives every daemon.
mock_start --partitions "$partitions" --topic events --topic pmrag_predictions

# The producer, at a steady rate for the whole test.
$tool pace "$work/events.kcat" "$rate" |
  kcat -P -b "$boot" -t events -K $'\t' -X enable.idempotence=true 2>"$work/feed.err" &
feed_pid=$!
track "$feed_pid"

start() {
  serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state" --set otlp.listen= --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_encoding=json --set serve.k=1 --set serve.batch="$batch" --set kafka.group=crash \
    --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500;max.poll.interval.ms=20000" \
    ${extra[@]+"${extra[@]}"}
  t_spawn=$(now)
}
# After a kill: the state's offsets must match its cases (one event per
# message), or the next start would skip or repeat events.
consistent() {
  [[ -d $work/state ]] || { echo "no state yet"; return 0; }
  "$pmrag" state stats --state "$work/state" --json >"$work/stats.json" || return 1
  "$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || return 1
  $tool consistent "$work/stats.json" "$work/dump.jsonl" events
}

before_ready=0
for k in $(seq "$kills"); do
  start
  # Every third kill (and the second) lands at a random point of the
  # start-up (model load, consumer group join); the others at a random
  # point after ready, while the daemon catches up or keeps pace.
  if ((k % 3 == 2)); then
    sleep "$(rnd $((seed + k)) 0.05 3)"
    where="$(printf '%.2f' "$(echo "$(now) - $t_spawn" | bc)") s after start"
    [[ -s $work/serve.ready ]] && where="$where (ready)" || before_ready=$((before_ready + 1))
  else
    serve_wait serve
    d=$(rnd $((seed + k)) 0.05 "$(echo "$kill_max_ms / 1000" | bc -l)")
    sleep "$d"
    where="$d s after ready"
  fi
  running "$pid" || fail "serve exited on its own before kill $k"
  kill_wait "$pid" "$sig"
  cons=$(consistent) || fail "after kill $k: $cons"
  in=$(state_applied "$work/state")
  applied=$(state_applied "$work/state" --applied)
  echo "kill $k: $where; $in/$events events taken in ($((in - applied)) of them held); $cons"
done

# The last run: until every event is in, then a clean stop.
start
serve_wait serve
wait "$feed_pid" || fail "the producer failed: $(tail -3 "$work/feed.err")"
untrack "$feed_pid"
n=0
for _ in $(seq 600); do
  n=$(state_applied "$work/state" --applied)
  [[ $n -ge $events ]] && break
  running "$pid" || fail "serve exited during the last run"
  sleep 0.5
done
stop "$pid"
[[ $n -ge $events ]] || echo "the state stopped at $n of $events events"

"$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "pmrag state dump"
ok=1
$tool state "$work/expected.json" "$work/dump.jsonl" --applied || ok=0
kafka_read pmrag_predictions '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
$tool preds "$work/expected.json" "$work/pred.tsv" || ok=0
restarts=$(grep -c 'kafka: assigned' "$work/serve.err" || true)
printf 'crash_kafka: %d kills (%d before ready), %d partition assignments, %.0f s\n' "$kills" \
  "$before_ready" "$restarts" "$(since "$t_start")"
[[ $ok == 1 ]] || fail "events lost or applied twice, or predictions missing (seed $seed)"
finish
