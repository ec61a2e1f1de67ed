#!/usr/bin/env bash
# Broker faults: `pmrag serve` consumes `json` events from a
# three-broker mock cluster (`pmrag kafka-mock --control`) while a producer
# keeps feeding it, and the cluster is broken under it:
#  1. every broker down for CRASH_OUTAGE seconds, once while the daemon
#     keeps pace with the producer and once while it works through a
#     backlog (5000 events produced at once just before): the daemon keeps
#     running (/livez 200), /readyz turns 503 while no broker is reachable,
#     and after `up all` it is ready again and catches up;
#  2. one broker down for a few seconds (its partitions have no leader:
#     the mock moves none);
#  3. retriable request errors: Produce and Fetch answered
#     NOT_LEADER_FOR_PARTITION, OffsetCommit COORDINATOR_NOT_AVAILABLE,
#     Heartbeat REBALANCE_IN_PROGRESS;
#  4. a Produce answered with an error that is not retriable
#     (TOPIC_AUTHORIZATION_FAILED, as a revoked ACL would): the predictions
#     of that batch are not delivered, so the daemon must not commit the
#     batch (it may stop, or retry; it must not go on as if they were out).
# At the end the state must match the input topic exactly (nothing lost,
# nothing applied twice) and every (case, seq) must have its prediction.
#
#   broker_faults.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: CRASH_EVENTS (30000), CRASH_CASES (600), CRASH_OUTAGE (10
# seconds; past 30 the daemon's commit gives up waiting for the broker).
set -euo pipefail
usage="usage: broker_faults.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${CRASH_EVENTS:-30000}
cases=${CRASH_CASES:-600}
outage=${CRASH_OUTAGE:-10}
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat curl

work_init
work_clean state '*.json' '*.err' '*.tsv' '*.ready'
t_start=$(now)
echo "broker_faults: $events events, $cases cases, outage $outage s"

demo_setup 200 11
$tool gen "$work/log.csv" "$work" "$events" "$cases" 7
demo_model "$work/train.csv"

# A member that stopped without leaving keeps its partitions for
# session.timeout.ms (45 s by default): 15 s is longer than the outage
# (so that the outage alone does not cost the assignment) and short
# enough for the restart after phase 4.
props="session.timeout.ms=15000;heartbeat.interval.ms=1000;max.poll.interval.ms=60000"
ctl=$work/faults
mock_start --brokers 3 --partitions 8 --topic events --topic pmrag_predictions --control "$ctl"

serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
  --set state.dir="$work/state" --set otlp.listen= --set api.listen=127.0.0.1:0 \
  --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
  --set kafka.output_encoding=json --set serve.k=1 --set serve.batch=200 \
  --set model.learn_online=false --set "kafka.properties=$props"
serve_wait serve
api=$(ready_field serve api)
code() { curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$api$1" || true; }
alive() {
  running "$pid" || fail "serve exited: $(grep -v ': info: ' "$work/serve.err" | tail -3)"
  mock_alive
}
[[ $(code /readyz) == 200 ]] || fail "/readyz not 200 once ready"

# The producer: idempotent, so that its own retries through the outage
# cannot store an event twice (the input topic is read back at the end
# anyway, and the state compared with what it holds).
$tool pace "$work/events.kcat" 1500 |
  kcat -P -E -b "$boot" -t events -K $'\t' -X enable.idempotence=true 2>"$work/feed.err" &
feed_pid=$!
track "$feed_pid"
events_in() { metric "$api" 'pmrag_events_in_total{source="kafka"}'; }
for _ in $(seq 300); do
  [[ $(events_in) -ge 3000 ]] 2>/dev/null && break
  alive
  sleep 0.1
done

# ---- 1. every broker down ------------------------------------------------------
# outage NAME: every broker down for $outage seconds, /readyz watched (its
# code and the consumer lag whenever either changes), then up again.
outage() {
  local name=$1 n0 n1 t_down t_up c lag ready_again='' first_503='' last_code='' last_lag=''
  local codes='' why_503='' livez_bad=0
  n0=$(events_in)
  mock_control "down all"
  t_down=$(now)
  while (($(echo "$(now) - $t_down < $outage" | bc))); do
    alive
    c=$(code /readyz)
    [[ $(code /livez) == 200 ]] || livez_bad=$((livez_bad + 1))
    lag=$(metric "$api" pmrag_kafka_consumer_lag)
    if [[ $c != "$last_code" || $lag != "$last_lag" ]]; then
      codes="$codes $c@$(since "$t_down")s(lag ${lag:-?})"
      last_code=$c last_lag=$lag
    fi
    if [[ $c == 503 && -z $first_503 ]]; then
      first_503=$(since "$t_down")
      why_503=$(curl -s -m 5 "http://$api/readyz" | tr -d '\n' | head -c 200 || true)
    fi
    sleep 0.2
  done
  n1=$(events_in)
  mock_control "up all"
  t_up=$(now)
  for _ in $(seq 600); do
    alive
    [[ $(code /readyz) == 200 ]] && { ready_again=$(since "$t_up"); break; }
    sleep 0.1
  done
  echo "$name: /readyz$codes (${why_503:-}); ${n0:-?} events before, $((${n1:-0} - ${n0:-0})) during; ready again ${ready_again:-never} s after up"
  ((livez_bad == 0)) || bad "$name: /livez not 200 $livez_bad times while the brokers were down"
  [[ -n $first_503 ]] || bad "$name: /readyz stayed 200 for all of a $outage s outage of every broker"
  [[ -n $ready_again ]] || bad "$name: /readyz not 200 again within 60 s of up"
  for _ in $(seq 300); do
    [[ $(events_in) -gt $n1 ]] 2>/dev/null && break
    alive
    sleep 0.1
  done
  [[ $(events_in) -gt $n1 ]] || bad "$name: no events consumed within 30 s of up"
  # Commits again (the producer reconnected too): a batch's 30 s wait for
  # its acknowledgements must not span two outages.
  local c0
  c0=$(metric "$api" pmrag_state_commits_total)
  for _ in $(seq 300); do
    [[ $(metric "$api" pmrag_state_commits_total) -ge $((${c0:-0} + 2)) ]] 2>/dev/null && break
    alive
    sleep 0.1
  done
}
# While the daemon keeps pace with the producer.
outage "outage, keeping pace"
# While it works through a backlog: its batch fills up with events fetched
# before the outage, and the engine waits for the commit of the one before,
# which waits for the broker's acknowledgements.
tail -n 5000 "$work/events.kcat" | sed 's/crash-0/burst-0/g' |
  kcat -P -b "$boot" -t events -K $'\t' -X enable.idempotence=true 2>>"$work/feed.err" ||
  fail "kcat -P (burst)"
outage "outage, in a backlog"

# ---- 2. one broker down ----------------------------------------------------------
mock_control "down 2"
sleep 4
alive
mock_control "up 2"
# ---- 3. retriable request errors ---------------------------------------------------
mock_control "error Produce NOT_LEADER_FOR_PARTITION 5"
mock_control "error Fetch NOT_LEADER_FOR_PARTITION 5"
mock_control "error OffsetCommit COORDINATOR_NOT_AVAILABLE 3"
mock_control "error Heartbeat REBALANCE_IN_PROGRESS 2"
sleep 3
alive
while running "$feed_pid"; do
  alive
  sleep 0.2
done
wait "$feed_pid" || fail "the producer failed: $(tail -3 "$work/feed.err")"
untrack "$feed_pid"

# The input as stored: what the state must match.
kcat -C -b "$boot" -t events -o beginning -e -q -f '%k\n' >"$work/input_keys.txt" 2>/dev/null ||
  fail "kcat -C events"
python3 - "$work/input_keys.txt" "$work/expected.json" "$work/stored.json" <<'PY'
import collections, json, sys
c = collections.Counter(l.rstrip("\n") for l in open(sys.argv[1]) if l.strip())
want = json.load(open(sys.argv[2]))
json.dump(c, open(sys.argv[3], "w"))
fed = {k: n for k, n in c.items() if k in want}  # the burst's cases aside
if fed != want:
    print("note: the input topic holds %d of the paced events, %d were generated (the "
          "producer's retries through the outage)" % (sum(fed.values()), sum(want.values())))
PY
stored=$(python3 -c "import json,sys; print(sum(json.load(open(sys.argv[1])).values()))" "$work/stored.json")
for _ in $(seq 600); do
  [[ $(state_applied "$work/state") -ge $stored ]] && break
  alive
  sleep 0.2
done

# ---- 4. a Produce error that is not retriable --------------------------------------
# The error goes to the next Produce request, whoever sends it: the daemon
# is stopped (SIGSTOP) while the late events are produced, so that its
# predictions of them meet it.
preds_before=$(metric "$api" pmrag_predictions_out_total)
head -200 "$work/events.kcat" | sed 's/crash-0/late-0/g' >"$work/late.kcat"
kill -STOP "$pid"
kcat -P -b "$boot" -t events -K $'\t' -X enable.idempotence=true <"$work/late.kcat" 2>>"$work/feed.err" ||
  { kill -CONT "$pid"; fail "kcat -P (late events)"; }
mock_control "error Produce TOPIC_AUTHORIZATION_FAILED 1"
kill -CONT "$pid"
for _ in $(seq 100); do
  running "$pid" || break
  [[ $(metric "$api" pmrag_predictions_out_total) -ge $((preds_before + 200)) ]] 2>/dev/null && break
  sleep 0.1
done
sleep 2
preds_after=$(metric "$api" pmrag_predictions_out_total)
if running "$pid" && [[ -n $preds_after ]]; then
  echo "after a Produce refused for good: serve running, $((preds_after - preds_before)) predictions counted for 200 late events"
  rc=0
  term "$pid" || rc=$?
  echo "  then exit $rc on SIGTERM"
else
  rc=0
  wait "$pid" || rc=$?
  untrack "$pid"
  echo "after a Produce refused for good: serve stopped (exit $rc): $(grep -v ': info: ' "$work/serve.err" | tail -2 | tr '\n' ' ')"
fi

# ---- the end -----------------------------------------------------------------------
kcat -C -b "$boot" -t events -o beginning -e -q -f '%k\n' >"$work/input_keys.txt" 2>/dev/null ||
  fail "kcat -C events"
python3 -c "
import collections, json, sys
json.dump(collections.Counter(l.rstrip('\n') for l in open(sys.argv[1]) if l.strip()), open(sys.argv[2], 'w'))
" "$work/input_keys.txt" "$work/stored.json"
"$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "pmrag state dump"
# A daemon that stopped on the refused Produce has the late events still
# to do (taken in, held back in the event-time window or not): a restart
# (the brokers healthy) must apply them.
if [[ $($tool sum "$work/dump.jsonl" --applied) -lt $(wc -l <"$work/input_keys.txt") ]]; then
  serve_start restart --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state" --set otlp.listen= --set api.listen= \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_encoding=json --set serve.k=1 --set model.learn_online=false \
    --set "kafka.properties=$props"
  for _ in $(seq 600); do
    [[ $(state_applied "$work/state" --applied) -ge $(wc -l <"$work/input_keys.txt") ]] && break
    running "$pid" || fail "the restart exited: $(grep -v ': info: ' "$work/restart.err" | tail -1)"
    sleep 0.2
  done
  term "$pid" || true
  "$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "pmrag state dump"
fi
$tool state "$work/stored.json" "$work/dump.jsonl" --applied || bad "the state does not match the input topic"
"$pmrag" state stats --state "$work/state" --json >"$work/stats.json" || fail "pmrag state stats"
$tool consistent "$work/stats.json" "$work/dump.jsonl" events || bad "the state's offsets do not match its cases"
kafka_read pmrag_predictions '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
$tool preds "$work/stored.json" "$work/pred.tsv" || bad "predictions missing"
printf 'broker_faults: %.0f s\n' "$(since "$t_start")"
finish
