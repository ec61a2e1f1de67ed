#!/usr/bin/env bash
# A full state store. `pmrag serve` consumes `json` events from a
# standalone mock cluster into a state store too small for them, and must
# refuse input rather than stop, lose nothing it acknowledged, and (when
# space comes back) go on by itself:
#  1. LMDB's map at its cap (state.map_size = state.map_max = 1 MiB):
#     once full the daemon stays up and refuses (refusing, below); SIGTERM
#     then stops it with an error (the batch that did not fit is not
#     committed), leaving an environment that `pmrag state stats` opens,
#     whose offsets match its cases; a restart with room finishes the
#     input;
#  2. with root and a mount that works: state.dir on a 1 MiB tmpfs, the
#     map free to grow, so that the disk fills, while an OTLP/HTTP client
#     (crash_tool.py otlp: it retries 503s after their Retry-After) sends
#     spans too; the daemon refuses; then the tmpfs is made larger
#     (remount keeps its files) and the daemon goes on without a restart:
#     the time from the remount to its first commit is the recovery time.
# Refusing means: OTLP/HTTP 503 with Retry-After, OTLP/gRPC UNAVAILABLE
# with a RetryInfo (grpcio, from the OpenTelemetry venv), /readyz 503
# saying why (naming the state directory), pmrag_state_full 1, and the
# Kafka consumer paused (no events taken for 2 s). At the end of each part
# every case's seq equals its number of events (nothing lost, nothing
# applied twice; the OTLP client's cases too) and every (case, seq) has a
# prediction.
#
#   state_full.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: CRASH_EVENTS (40000), CRASH_CASES (5000; about 300 bytes
# each in the state with 8 events, so 1.5 MiB in all), FULL_OTLP_SPANS
# (4000, over 400 cases).
set -euo pipefail
usage="usage: state_full.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${CRASH_EVENTS:-40000}
cases=${CRASH_CASES:-5000}
spans=${FULL_OTLP_SPANS:-4000}
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat curl

work_init
mnt=$work/tmpfs
mounted=
# On exit, after the daemons are killed (they hold files there).
# shellcheck disable=SC2317 # called on exit, through at_exit
unmount() { [[ -z $mounted ]] || umount "$mnt" 2>/dev/null; }
at_exit unmount
if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt"; fi
work_clean state tmpfs otlp '*.json' '*.err' '*.ready' '*.out'
t_start=$(now)
echo "state_full: $events events, $cases cases"

demo_setup 200 11
$tool gen "$work/log.csv" "$work" "$events" "$cases" 5
demo_model "$work/train.csv"

mock_start --partitions 8 --topic events --topic p_map --topic p_disk
kcat -P -b "$boot" -t events -K $'\t' <"$work/events.kcat" || fail "kcat -P"

# serve DIR OUT_TOPIC GROUP NAME [--set K=V ...]: in the background, its
# log $work/NAME.err; OTLP/HTTP, OTLP/gRPC and the API on free ports.
serve() {
  local dir=$1 topic=$2 group=$3 name=$4
  shift 4
  serve_start "$name" --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$dir" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_topic="$topic" --set kafka.output_encoding=json --set serve.k=1 \
    --set kafka.group="$group" --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500" \
    "$@"
}
alive() { running "$pid" || fail "$1: serve exited: $(grep -v ': info: ' "$work/$2.err" | tail -3)"; }
# refusing NAME DIR WORDS: the daemon NAME (pid) comes to refuse input
# within 120 s and goes on refusing: every way of saying so is checked;
# /readyz must name DIR and say WORDS.
refusing() {
  local name=$1 dir=$2 words=$3 api otlp grpc i e0 e1 ready code hdr
  api=$(ready_field "$name" api)
  otlp=$(ready_field "$name" otlp_http)
  grpc=$(ready_field "$name" otlp_grpc)
  for i in $(seq 1200); do
    [[ $(metric "$api" pmrag_state_full) == 1 ]] && break
    alive "$name" "$name"
    sleep 0.1
  done
  [[ $(metric "$api" pmrag_state_full) == 1 ]] ||
    fail "$name: pmrag_state_full not 1 after 120 s (state: $(state_applied "$dir") events)"
  t_full=$(now)
  echo "$name: full after $(state_applied "$dir")/$events events ($(since "$t_start") s into the test)"
  ready=$(curl -s -m 5 "http://$api/readyz" || true)
  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$api/readyz" || true)
  if [[ $code == 503 && $ready == *"$dir"* && $ready == *"$words"* ]]; then
    pass "$name: /readyz 503: $ready"
  else
    bad "$name: /readyz $code '$ready' (wanted 503 naming $dir and saying '$words')"
  fi
  hdr=$(curl -s -i -m 10 -o - -H 'Content-Type: application/json' \
    --data-binary '{"resourceSpans":[]}' "http://$otlp/v1/traces" | tr -d '\r' || true)
  if grep -q '^HTTP/1.1 503' <<<"$hdr" && grep -qi '^Retry-After: [0-9]' <<<"$hdr"; then
    pass "$name: OTLP/HTTP 503 with $(grep -i '^Retry-After' <<<"$hdr")"
  else
    bad "$name: OTLP/HTTP answered: $(head -1 <<<"$hdr") $(grep -i '^Retry-After' <<<"$hdr" || echo 'no Retry-After')"
  fi
  "$src/deploy/otel-python.sh" "$src/tests/integration/grpc_probe.py" "$grpc" - - export \
    >"$work/$name.grpc.out" 2>&1 || true
  if grep -qE '^UNAVAILABLE.*status=[1-9].*alone=[1-9]' "$work/$name.grpc.out"; then
    pass "$name: OTLP/gRPC $(tr '\t' ' ' <"$work/$name.grpc.out")"
  else
    bad "$name: OTLP/gRPC answered: $(tail -2 "$work/$name.grpc.out")"
  fi
  e0=$(metric "$api" 'pmrag_events_in_total{source="kafka"}')
  sleep 2
  e1=$(metric "$api" 'pmrag_events_in_total{source="kafka"}')
  alive "$name" "$name"
  if [[ -n $e0 && $e0 == "$e1" && $(metric "$api" pmrag_state_full) == 1 ]]; then
    pass "$name: Kafka paused ($e0 events taken, none in 2 s), pmrag_state_full 1"
  else
    bad "$name: Kafka events taken went from ${e0:-?} to ${e1:-?} in 2 s; pmrag_state_full $(metric "$api" pmrag_state_full)"
  fi
}
# consistent DIR WHAT: the state opens, and its offsets match its cases.
consistent() {
  "$pmrag" state stats --state "$1" >"$work/stats.txt" 2>&1 ||
    fail "$2: pmrag state stats cannot open the state: $(cat "$work/stats.txt")"
  "$pmrag" state stats --state "$1" --json >"$work/stats.json"
  "$pmrag" state dump --state "$1" --json >"$work/dump.jsonl" || fail "$2: pmrag state dump"
  echo "  state stats: $(grep -E '^(cases|map size|used)' "$work/stats.txt" | tr -s ' ' | tr '\n' ';')"
  $tool consistent "$work/stats.json" "$work/dump.jsonl" events | sed 's/^/  /'
  [[ ${PIPESTATUS[0]} == 0 ]] || fail "$2: the state's offsets do not match its cases"
}
# complete DIR WHAT TOPIC [EXPECTED_OTLP]: every Kafka event in the state once,
# every (case, seq) predicted on TOPIC; with EXPECTED_OTLP, the OTLP
# client's cases too.
complete() {
  local dir=$1 what=$2 topic=$3 otlp_exp=${4:-}
  "$pmrag" state dump --state "$dir" --json >"$work/dump.jsonl" || fail "pmrag state dump"
  $tool state "$work/expected.json" "$work/dump.jsonl" --prefix crash- --applied ||
    fail "$what: Kafka events lost or applied twice"
  kafka_read "$topic" '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
  if [[ -n $otlp_exp ]]; then
    $tool state "$otlp_exp" "$work/dump.jsonl" --prefix otlp- --applied ||
      fail "$what: OTLP spans lost or applied twice"
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); a.update(json.load(open(sys.argv[2]))); json.dump(a, open(sys.argv[3], "w"))' \
      "$work/expected.json" "$otlp_exp" "$work/expected_all.json"
    $tool preds "$work/expected_all.json" "$work/pred.tsv" || fail "$what: predictions missing"
  else
    $tool preds "$work/expected.json" "$work/pred.tsv" || fail "$what: predictions missing"
  fi
}
# to_end DIR NAME WHAT TOPIC GROUP [--set ...]: a restart with room, to the end.
to_end() {
  local dir=$1 name=$2 what=$3 topic=$4 group=$5
  shift 5
  serve "$dir" "$topic" "$group" "$name" "$@"
  for _ in $(seq 1200); do
    [[ $(state_applied "$dir" --applied) -ge $events ]] && break
    running "$pid" || fail "$what: the restart exited: $(grep -v ': info: ' "$work/$name.err" | tail -3)"
    sleep 0.2
  done
  stop "$pid" "$what: the restart"
  complete "$dir" "$what" "$topic"
}

# ---- 1. the map may not grow ------------------------------------------------------
serve "$work/state" p_map g_map map --set state.map_size=1048576 --set state.map_max=1048576
serve_wait map
refusing map "$work/state" "map full"
rc=0
term "$pid" || rc=$?
if [[ $rc != 0 ]] && grep -q 'stopping with the state store full' "$work/map.err"; then
  pass "map full: SIGTERM stops it with an error (exit $rc), the last batch not committed"
else
  bad "map full: SIGTERM: exit $rc; $(grep -v ': info: ' "$work/map.err" | tail -2)"
fi
consistent "$work/state" "map full"
to_end "$work/state" map "map full, restarted with room" p_map g_map \
  --set state.map_size=1048576 --set state.map_max=0

# ---- 2. the disk fills -------------------------------------------------------------
if [[ $(id -u) == 0 ]] && mkdir -p "$mnt" && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  mounted=1
  serve "$mnt/state" p_disk g_disk disk
  serve_wait disk
  mkdir -p "$work/otlp"
  $tool otlp "http://$(ready_field disk otlp_http)" "$work/otlp" "$spans" $((spans / 10)) \
    --threads 2 --spans-per-case 2 --cases-per-request 10 --prefix otlp --rate 40 \
    >"$work/otlp.out" 2>&1 &
  client=$!
  track "$client"
  refusing disk "$mnt/state" "no space left on device"
  api=$(ready_field disk api)
  sleep 3 # the client meets the refusals for a while
  t_free=$(now)
  mount -o remount,size=64m "$mnt" || fail "remount of the tmpfs"
  for _ in $(seq 600); do
    [[ $(metric "$api" pmrag_state_full) == 0 ]] && break
    alive disk disk
    sleep 0.05
  done
  recovery=$(since "$t_free")
  [[ $(metric "$api" pmrag_state_full) == 0 ]] || fail "disk full: still refusing 30 s after the remount"
  for _ in $(seq 100); do
    [[ $(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$api/readyz") == 200 ]] && break
    sleep 0.1
  done
  pass "disk full: refused for $(echo "$t_free - $t_full" | bc | xargs printf '%.1f') s; taking input again $recovery s after the remount (no restart); /readyz $(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$api/readyz")"
  wait "$client" || fail "the OTLP client failed: $(tail -3 "$work/otlp.out")"
  untrack "$client"
  echo "  $(cat "$work/otlp.out")"
  for _ in $(seq 1200); do
    [[ $(state_applied "$mnt/state" --applied) -ge $((events + spans)) ]] && break
    alive disk disk
    sleep 0.2
  done
  refused=$(metric "$api" 'pmrag_limit_hits_total{limit="state_full"}')
  stop "$pid" "disk full: the daemon"
  complete "$mnt/state" "disk full" p_disk "$work/otlp/expected.json"
  echo "disk full: refusals counted (OTLP requests and Kafka pauses): ${refused:-?};" \
    "the client's: $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%d of %d attempts throttled" % (s["throttled"], s["attempts"]))' "$work/otlp/client.json")"
  umount "$mnt"
  mounted=
else
  echo "disk full: skipped (needs root and tmpfs mounts)"
fi
printf 'state_full: %.0f s\n' "$(since "$t_start")"
finish
