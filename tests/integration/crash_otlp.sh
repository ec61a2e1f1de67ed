#!/usr/bin/env bash
# Crash safety with OTLP/HTTP input. A client (crash_tool.py
# otlp: OTLP JSON export requests from 4 threads) retries every request
# until it gets a 200: on connection errors and timeouts, and on 429/503
# after their Retry-After (serve.queue_events=60: a second request of 50
# spans waiting is refused). Meanwhile:
#  1. `pmrag serve` is killed with SIGKILL at random points and restarted
#     on the same state directory and the same otlp.listen port. Promise:
#     nothing is lost and nothing applied twice (every case's seq equals
#     its number of events). The daemon holds events back for
#     serve.reorder_ms (event time): each kill lands with events held,
#     which count with the applied ones until the end, when every one must
#     have been applied. A request committed whose 200 the kill
#     swallowed is sent again: the daemon finds its id in the state
#     (otlp.dedupe_seconds) and answers 200 without applying it again.
#  2. Without a crash, a 200 can be lost to the client's own timeout: the
#     mock cluster delays its answers (`rtt all 2500` through kafka-mock
#     --control), so each commit waits for the predictions' acknowledgement
#     longer than the client waits (1 s); the client gives up and sends
#     again while the first copy is still being committed. The requests
#     are spread over 4 s, longer than the event-time grace: a request that
#     only holds its events back is committed without waiting for the
#     broker, and the events it holds are released (and their predictions
#     produced) in the batch of a later request. The retry waits
#     for the first copy's outcome and is not applied: the test requires
#     pmrag_otlp_duplicate_requests_total > 0 and no event applied twice.
# Every seq reached must have its prediction on the output topic.
#
#   crash_otlp.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: CRASH_EVENTS (20000), CRASH_CASES (1000), CRASH_KILLS (5),
# CRASH_SEED (random; printed).
set -euo pipefail
usage="usage: crash_otlp.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${CRASH_EVENTS:-20000}
cases=${CRASH_CASES:-1000}
kills=${CRASH_KILLS:-5}
seed=${CRASH_SEED:-$((RANDOM * 32768 + RANDOM))}
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat

work_init
work_clean state '*.json' '*.err' '*.ready' kills slow
mkdir -p "$work/kills" "$work/slow"
t_start=$(now)
echo "crash_otlp: $events events, $cases cases, $kills kills, seed $seed"

demo_setup 100 11
demo_model "$work/log.csv"

# The output topic on a cluster of its own, which survives the daemon and
# takes fault-injection commands.
ctl=$work/faults
mock_start --partitions 16 --topic pmrag_predictions --control "$ctl"
# A fixed port, free now: the restarted daemon listens where the client
# keeps sending. Below the ephemeral range (32768 and up on Linux), so
# that no other test's outgoing connection takes it while the daemon is
# down.
port=$(python3 -c '
import random, socket
for _ in range(200):
    p = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
')
[[ -n $port ]] || fail "no free port between 20000 and 32000"

start() {
  serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state" --set otlp.listen="127.0.0.1:$port" --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics= --set kafka.output_encoding=json \
    --set serve.k=1 --set model.learn_online=false --set serve.queue_events=60
  serve_wait serve 30
}

# ---- 1. SIGKILL under a client that retries ---------------------------------
start
# About three seconds of requests per kill.
requests=$(((events + 49) / 50))
rate=$((requests / (kills * 3) + 1))
$tool otlp "http://127.0.0.1:$port" "$work/kills" "$events" "$cases" --threads 4 \
  --spans-per-case 5 --cases-per-request 10 --seed "$seed" --log "$work/log.csv" \
  --rate "$rate" --prefix otlp >"$work/kills/client.out" 2>&1 &
client_pid=$!
track "$client_pid"
for k in $(seq "$kills"); do
  sleep "$(rnd $((seed + k)) 0.2 2.5)"
  running "$pid" || fail "serve exited on its own before kill $k"
  kill_wait "$pid"
  in=$(state_applied "$work/state")
  echo "kill $k: $in/$events events taken in ($((in - $(state_applied "$work/state" --applied))) of them held)"
  # Down for a moment: the client meets a refused connection too.
  sleep "$(rnd $((seed + 100 + k)) 0 1)"
  start
done
wait "$client_pid" || { cat "$work/kills/client.out"; fail "the client failed"; }
untrack "$client_pid"
cat "$work/kills/client.out"

# ---- 2. a client timeout shorter than the commit ----------------------------
mock_control "rtt all 2500"
$tool otlp "http://127.0.0.1:$port" "$work/slow" 1000 100 --threads 4 --spans-per-case 5 \
  --cases-per-request 5 --seed "$seed" --log "$work/log.csv" --timeout 1 --rate 10 --prefix slow \
  >"$work/slow/client.out" 2>&1 &
client_pid=$!
track "$client_pid"
sleep 4
mock_control "rtt all 0"
wait "$client_pid" || { cat "$work/slow/client.out"; fail "the slow-broker client failed"; }
untrack "$client_pid"
cat "$work/slow/client.out"
dups=$(ready_metric serve pmrag_otlp_duplicate_requests_total)
echo "retried requests answered without applying them again: ${dups:-none}"
[[ ${dups:-0} -gt 0 ]] || fail "the slow-broker client's retries were not recognised (pmrag_otlp_duplicate_requests_total ${dups:-absent})"

# ---- 3. a retry across a restart ---------------------------------------------
# A request committed, then SIGKILL, then the same request again (as from
# a client whose 200 the kill swallowed): answered 200, not applied.
body='{"resourceSpans":[{"scopeSpans":[{"spans":['
for j in 1 2 3; do
  body+="{\"traceId\":\"5eed0000000000000000000000000001\",\"spanId\":\"000000000000000$j\","
  body+="\"name\":\"order.place\",\"startTimeUnixNano\":\"170000000000000000$j\","
  body+="\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":\"retry-1\"}}]}"
  [[ $j == 3 ]] || body+=','
done
body+=']}]}]}'
post() {
  curl -sS -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "http://127.0.0.1:$port/v1/traces"
}
[[ $(post) == 200 ]] || fail "POST of the retry-1 request"
kill_wait "$pid"
start
[[ $(post) == 200 ]] || fail "POST of the retry-1 request after the restart"
api=$(ready_field serve api)
dups=$(metric "$api" pmrag_otlp_duplicate_requests_total)
held_wait serve
if got=$(case_seq_wait "$api" retry-1 3); then seq=3; else seq=$got; fi
echo "retry across a restart: seq $seq (3 spans sent twice), duplicates answered ${dups:-none}"
[[ $seq == 3 && ${dups:-0} == 1 ]] || fail "the retry after the restart was applied again (seq $seq)"

# Everything held back is applied by now.
held_wait serve
stop "$pid"
"$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "pmrag state dump"
ok=1
$tool state "$work/kills/expected.json" "$work/dump.jsonl" --prefix otlp- --applied || ok=0
$tool state "$work/slow/expected.json" "$work/dump.jsonl" --prefix slow- --applied || ok=0
# Every seq the state reached has its prediction.
$tool applied "$work/dump.jsonl" "$work/applied.json"
kafka_read pmrag_predictions '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
$tool preds "$work/applied.json" "$work/pred.tsv" || ok=0
printf 'crash_otlp: %d kills, %.0f s\n' "$kills" "$(since "$t_start")"
[[ $ok == 1 ]] || fail "events lost or applied twice, or predictions missing (seed $seed)"
finish
