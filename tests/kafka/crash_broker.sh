#!/usr/bin/env bash
# Crash safety against a real broker: the broker killed and restarted under
# a running daemon, then the daemon killed under load, on one Apache Kafka
# node (tests/kafka/broker.sh) that keeps its log on disk. librdkafka's mock
# keeps its topics in memory, so the crash tests before this one never saw
# a broker recover its log, its consumer group offsets and its idempotent
# producers' state after an unclean stop.
#  1. `pmrag serve` consumes `json` events that an idempotent producer
#     (Kafka's Java client: kcat gives up when every broker is down) feeds
#     at a steady rate; at KCRASH_BROKER_AT of the feed the
#     broker gets SIGKILL, stays down KCRASH_DOWN seconds and starts again
#     on its log. The daemon must live through it (it waits for the
#     broker; it must not commit a batch whose predictions were not
#     acknowledged, nor stop). Once it has caught up, the predictions so
#     far must hold no (case, seq) twice: the daemon was never restarted,
#     so a duplicate could only come from a retried produce, which the
#     idempotent producer (enable.idempotence, acks=all, which pmrag always
#     sets) must have deduplicated.
#  2. The daemon is then killed with SIGKILL KCRASH_KILLS times while
#     events flow, each time at a random point once it applies events
#     again, and restarted on its state.
#  3. At the end: the input topic holds every event once; every case's seq
#     in `pmrag state dump` is its number of events (nothing lost, nothing
#     applied twice); every (case, seq) has a prediction (duplicates are
#     allowed after a daemon kill only, counted, and must agree).
# pmrag has no exactly-once output (no Kafka transactions): predictions
# are at least once, to be deduplicated by (case_id, seq); the README says
# so. Also checked: `enable.idempotence=false` in kafka.properties is
# refused at start.
#
#   crash_broker.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: KCRASH_EVENTS (9000), KCRASH_CASES (400), KCRASH_SECONDS
# (60, the feed), KCRASH_PARTITIONS (6), KCRASH_KILLS (3), KCRASH_DOWN (3
# seconds before the restart; a node takes 8 to 20 s more to be back),
# KCRASH_BROKER_AT (0.1), KCRASH_SEED (random; printed). The feed is long
# enough that the broker is back (15 to 35 s on two busy cores) and the
# daemon kills are done before it ends (each kill says whether it was).
# About 75 s in all.
set -euo pipefail
usage="usage: crash_broker.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${KCRASH_EVENTS:-9000}
cases=${KCRASH_CASES:-400}
seconds=${KCRASH_SECONDS:-60}
partitions=${KCRASH_PARTITIONS:-6}
kills=${KCRASH_KILLS:-3}
down=${KCRASH_DOWN:-3}
broker_at=${KCRASH_BROKER_AT:-0.1}
seed=${KCRASH_SEED:-$((RANDOM * 32768 + RANDOM))}
rate=$((events / seconds + 1))
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat curl
work_init
work_clean state '*.json' '*.err' '*.ready' '*.tsv' '*.jsonl'
LOG_TAIL=10
t_start=$(now)
echo "crash_broker: $events events, $cases cases, $partitions partitions, $rate events/s for ${seconds} s;" \
  "broker SIGKILL at $broker_at for ${down} s, then $kills daemon SIGKILLs; seed $seed"

demo_setup 200 11
$tool gen "$work/log.csv" "$work" "$events" "$cases" "$seed"
demo_model "$work/train.csv"

# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
kafka_start 1
kafka_admin create "events:$partitions:1" "pmrag_predictions:$partitions:1" || fail "creating the topics"

start() {
  serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state" --set otlp.listen= --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_encoding=json --set serve.k=1 --set serve.batch=200 --set kafka.group=crash \
    --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500;max.poll.interval.ms=20000" \
    "$@"
}
# applied: the events applied (not those held back in the event-time
# window, serve.reorder_ms, which have no prediction yet).
applied() { state_applied "$work/state" --applied; }

# The producer idempotence pmrag promises cannot be turned off.
rc=0
"$pmrag" serve --graph "$work/app.graph" --set state.dir="$work/state-refused" --set otlp.listen= \
  --set api.listen= --set kafka.brokers="$boot" --set kafka.properties=enable.idempotence=false \
  >"$work/out" 2>"$work/err" || rc=$?
if ((rc != 0)) && grep -q 'enable.idempotence: the producer is always idempotent' "$work/err"; then
  pass "kafka.properties=enable.idempotence=false refused at start (exit $rc: $(grep -o 'kafka property enable.idempotence.*' "$work/err"))"
else
  bad "kafka.properties=enable.idempotence=false: exit $rc, $(tail -1 "$work/err")"
fi

start
serve_wait serve 90
# The producer: Kafka's own Java client (kcat exits when every broker is
# down), idempotent, at a steady rate.
$tool pace "$work/events.kcat" "$rate" | kafka_admin produce events >"$work/feed.out" 2>"$work/feed.err" &
feed_pid=$!
track "$feed_pid"
t_feed=$(now)
at() { # sleep until FRACTION of the feed's time has passed
  local d
  d=$(echo "$t_feed + $1 * $seconds - $(now)" | bc -l)
  if [[ $(echo "$d > 0" | bc) == 1 ]]; then sleep "$d"; fi
}
elapsed() { printf '%5.1f s:' "$(since "$t_feed")"; }

# ---- 1. the broker killed and restarted under the daemon
at "$broker_at"
n0=$(applied)
kafka_node_kill 1
t_down=$(now)
echo "$(elapsed) broker killed (SIGKILL) with $n0 events applied"
sleep "$down"
api=$(ready_field serve api)
ready_down=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://$api/readyz" || true)
kafka_node_start 1
kafka_wait 120
echo "$(elapsed) broker up again on its log after $(since "$t_down") s (/readyz was $ready_down while it was down)"
running "${pid_of[serve]}" || fail "serve exited while the broker was down"
# Caught up: the state past what the producer had sent 3 s after the restart.
sent=$(echo "($(now) - $t_feed) * $rate" | bc | cut -d. -f1)
for _ in $(seq 240); do
  n1=$(applied)
  [[ $n1 -ge $sent || $n1 -ge $events ]] && break
  running "${pid_of[serve]}" || fail "serve exited after the broker restart"
  sleep 0.5
done
kafka_read pmrag_predictions '%p\t%o\t%k\t%s\n' "$work/pred1.tsv"
python3 - "$work/pred1.tsv" "$n1" <<'PY' >"$work/phase1.out" || true
import json, sys
seen, dup, n = {}, 0, 0
for line in open(sys.argv[1]):
    p, o, k, v = line.rstrip("\n").split("\t", 3)
    d = json.loads(v)
    n += 1
    if (d["case_id"], d["seq"]) in seen:
        dup += 1
    seen[(d["case_id"], d["seq"])] = 1
print("%d %d %d" % (n, dup, len(seen)))
PY
read -r p1 d1 u1 <"$work/phase1.out"
warned=$(grep -cE 'still waiting for the broker|Connection refused|Disconnected|transport' "$work/serve.err" || true)
echo "$(elapsed) caught up: $n1 events applied, $p1 predictions on the output topic ($u1 distinct (case, seq)); $warned daemon log lines about the broker being away"
if [[ $d1 == 0 && $p1 -ge $n1 ]]; then
  pass "across the broker restart: $p1 predictions for $n1 events applied, 0 duplicates (the idempotent producer)"
else
  bad "across the broker restart: $p1 predictions for $n1 events applied, $d1 duplicates, with no daemon restart"
fi

# ---- 2. the daemon killed under load
# Each kill once the daemon (restarted) applies events again, at a random
# point of its work: catching up after the restart, or keeping pace.
# The wait for progress ends too once every event is applied: a daemon
# that has caught up with the whole feed never applies 50 more, and
# polling for them took 600 rounds of `state dump` (4 minutes) before.
flowing=0
for k in $(seq "$kills"); do
  before=$(applied)
  for _ in $(seq 600); do
    a=$(applied)
    [[ $a -gt $((before + 50)) || $a -ge $events ]] && break
    running "${pid_of[serve]}" || fail "serve exited on its own before kill $k"
    sleep 0.1
  done
  sleep "$(rnd $((seed + k)) 0.05 1.0)"
  running "${pid_of[serve]}" || fail "serve exited on its own before kill $k"
  sent=$(echo "($(now) - $t_feed) * $rate" | bc | cut -d. -f1)
  ((sent < events)) || sent=$events
  kill_wait "${pid_of[serve]}"
  a=$(applied)
  echo "$(elapsed) daemon kill $k (SIGKILL): $a events applied, about $sent sent$( ((sent < events)) &&
    echo ' (the feed still running)')"
  ((sent >= events)) || flowing=$((flowing + 1))
  start
done
serve_wait serve 90
echo "$(elapsed) $flowing of $kills daemon kills while the feed ran"
wait "$feed_pid" || fail "the producer failed: $(tail -3 "$work/feed.err")"
untrack "$feed_pid"
echo "$(elapsed) all $events events produced"
n=0
for _ in $(seq 600); do
  n=$(applied)
  [[ $n -ge $events ]] && break
  running "${pid_of[serve]}" || fail "serve exited during the last run"
  sleep 0.5
done
stop "${pid_of[serve]}"
echo "$(elapsed) $n events applied; serve stopped"

# ---- 3. the verdict
kafka_read events '%p\t%o\t%k\n' "$work/input.tsv"
in_n=$(wc -l <"$work/input.tsv")
if [[ $in_n == "$events" ]]; then
  pass "the input topic holds the $events events once each ($(cat "$work/feed.out"), idempotent, across the broker restart)"
else
  bad "the input topic holds $in_n messages for $events events"
fi
"$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "pmrag state dump"
check "state: every case's seq is its number of events" -- $tool state "$work/expected.json" "$work/dump.jsonl" --applied
sed 's/^/    /' "$work/check.out"
kafka_read pmrag_predictions '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
check "predictions: one for every (case, seq)" -- $tool preds "$work/expected.json" "$work/pred.tsv"
sed 's/^/    /' "$work/check.out"
printf 'crash_broker: %.0f s in all\n' "$(since "$t_start")"
finish
