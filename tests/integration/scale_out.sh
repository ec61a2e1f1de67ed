#!/usr/bin/env bash
# Scale-out: several `pmrag serve` instances in one consumer
# group, each with a state directory of its own, hand the input partitions
# and their cases' state to each other through the changelog topic
# (kafka.changelog=true: `<group>-cases-changelog`, the input's partition
# numbers, keyed by case id, a closed case's record a tombstone). Against
# `pmrag kafka-mock`:
#  - a reference instance, alone in its own group with its own state and
#    output topic, reads the same input: the predictions one instance gives;
#  - instances A and B share group g; `json` events keyed by case id are
#    produced at a steady rate; C joins at 15% of the stream; once the
#    group has settled one of the three (picked by the seed) is killed with
#    SIGKILL at 45% and, once its partitions are elsewhere, restarted on
#    its state directory at 75% (its checkpoint now stale). Some cases end
#    with an activity of state.end_activities (closed: a tombstone);
#  - once every event is in, the owner of partition 0 gets three more
#    events, the last one closing a case, and is stopped with SIGTERM: the
#    next owner must resume after that event although the newest record of
#    the changelog partition is a tombstone;
#  - then, for each input partition exactly one live instance owns it;
#    every case's seq in its owner's `pmrag state dump` is its number of
#    events (a closed case: absent), and no state is past it; the changelog
#    stays in the input's partitions;
#  - the output topic holds a prediction for every (case, seq), repeated
#    only after the kill (counted), each equal to the reference's: the
#    event's activity, the ranked symbols in order with their activities,
#    scores within 1e-6. Mismatches are counted by when the prediction was
#    made: by the partition's first owner, after a rebalance (a clean
#    handover), after a kill; and each case's first prediction on a new
#    owner (where a cold or stale restore would show).
#
# The owner of a partition comes from the daemons' own log lines ("kafka:
# assigned events[P] ...", "kafka: revoked events[P]"), stamped with the
# wall clock as they are written: neither the ready file nor the API says
# which partitions an instance has, and "the state with the highest seq"
# would take a bug (the owner behind another instance) for the answer
# (the check prints how often the two disagree). The stamps also place
# each prediction (by its Kafka timestamp) in the ownership epoch of its
# partition. `model.learn_online=false`, so a prediction depends only on
# its case's events.
#
#   scale_out.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: SCALE_EVENTS (30000), SCALE_CASES (1500), SCALE_SECONDS (20,
# how long the producer takes), SCALE_PARTITIONS (8), SCALE_K (serve.k, 3:
# the mock keeps about 5 MB per partition, output and changelog included),
# SCALE_VICTIM (A, B or C; by default picked by the seed), SCALE_SEED
# (random; printed), SCALE_END_ACTIVITY (payment.capture: the activity that
# closes a case; empty: none), SCALE_CHANGELOG (true; false runs the group
# without the changelog, which must fail: handovers then start cases cold),
# SCALE_SESSION_MS (3000: session.timeout.ms; the mock's rebalances wait
# up to a second less than it for members to rejoin, and a killed
# instance's partitions move after it), SCALE_FAULT (kill; pause: the
# victim gets SIGSTOP instead, and SIGCONT once its partitions have moved
# on, a zombie that still holds an uncommitted batch), SCALE_CLUSTER (mock;
# kafka: a three-node Apache Kafka cluster of tests/kafka/broker.sh
# instead, the topics created with SCALE_REPLICAS replicas, 3, the
# changelog compacted: the ctest label `kafka`), SCALE_CHAOS (false; true,
# with SCALE_CLUSTER=kafka: chaos, below).
#
# Chaos (ctest kafka.chaos, label `chaos`): the cluster runs with
# min.insync.replicas=2 and a changelog that compacts within seconds, and
# while events flow, in turn: the victim is killed (SIGKILL) while C's
# join rebalances the group; the three brokers are restarted one at a time
# (SIGTERM, each back with every replica in sync before the next); the
# leader of the output topic's partition 0 is killed (SIGKILL) and
# restarted; the victim is restarted on its state. The checks are the
# same (every event applied exactly once to its case, every (case, seq)
# predicted, each prediction the reference's), and the changelog must
# have been compacted (fewer records left than offsets written).
set -euo pipefail
usage="usage: scale_out.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${SCALE_EVENTS:-30000}
cases=${SCALE_CASES:-1500}
seconds=${SCALE_SECONDS:-20}
partitions=${SCALE_PARTITIONS:-8}
k=${SCALE_K:-3}
seed=${SCALE_SEED:-$((RANDOM * 32768 + RANDOM))}
victims=(A B C)
victim=${SCALE_VICTIM:-${victims[$((seed % 3))]}}
end_act=${SCALE_END_ACTIVITY-payment.capture}
changelog_on=${SCALE_CHANGELOG:-true}
session_ms=${SCALE_SESSION_MS:-3000}
fault=${SCALE_FAULT:-kill}
chaos=${SCALE_CHAOS:-false}
rate=$((events / seconds + 1))
group=g
changelog=$group-cases-changelog
tool="python3 $src/tests/integration/scale_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
ctool="python3 $src/tests/integration/crash_tool.py"
need kcat

work_init
work_clean 'state-*' dumps '*.json' '*.err' '*.tsv' '*.kcat' '*.ready'
mkdir -p "$work/dumps"
# Per run (ref, A, B, C, and the victim's restart): pid_of (lib.sh's),
# stamped log, state directory name, and when it was killed or whether it
# was stopped.
declare -A log=() state=() killed=() stopped=() lost=()
# What fail shows of each log: its info lines too (which partitions each
# run was assigned or revoked, and when).
LOG_TAIL=8 LOG_SKIP=CONFWARN
now_ms() { date +%s%3N; }
t_start=$(now)
t_feed=$t_start # times printed are from the producer's start (until then, from here)
elapsed() { printf '%4.1f s:' "$(echo "$(now) - $t_feed" | bc)"; }
echo "scale_out: $events events over $cases cases, $partitions partitions, $rate events/s for" \
  "${seconds} s; fault: $fault $victim; end activity '${end_act}'; seed $seed"

# The demo application's graph; a model mined from half of a simulated
# log, the events made from the other half (crash_tool.py gen), each case
# cut after its first end activity.
demo_setup 200 11
$ctool gen "$work/log.csv" "$work" "$events" "$cases" "$seed"
demo_model "$work/train.csv"
end_set=()
if [[ -n $end_act ]]; then
  $tool close "$end_act" "$work/events.kcat" "$work/events.kcat"
  end_set=(--set "state.end_activities=$end_act")
fi
$tool expect "$end_act" "$work" "$work/events.kcat"
events=$(wc -l <"$work/events.kcat")

if [[ ${SCALE_CLUSTER:-mock} == kafka ]]; then
  # shellcheck source=tests/kafka/broker.sh
  . "$src/tests/kafka/broker.sh"
  cl_cfg=cleanup.policy=compact
  if [[ $chaos == true ]]; then
    # A produce needs two replicas in sync; a changelog the broker
    # compacts as the run goes (segments rolled every 2 s).
    KAFKA_PROPS+=(min.insync.replicas=2 log.cleaner.backoff.ms=200 log.segment.delete.delay.ms=1000)
    cl_cfg+=,segment.ms=2000,min.cleanable.dirty.ratio=0.01,min.compaction.lag.ms=0
  fi
  kafka_start 3
  r=${SCALE_REPLICAS:-3}
  kafka_admin create "events:$partitions:$r" "pmrag_predictions:$partitions:$r" \
    "ref_predictions:$partitions:$r" "$changelog:$partitions:$r:$cl_cfg" ||
    fail "creating the topics"
elif [[ $chaos == true ]]; then
  fail "SCALE_CHAOS=true needs SCALE_CLUSTER=kafka"
else
  mock_start --partitions "$partitions" --topic events --topic pmrag_predictions --topic ref_predictions --topic "$changelog"
fi

# start RUN STATE [--set k=v ...]: one daemon, its log stamped line by line
# (serve_start's, but for the stamps).
start() {
  local run=$1 st=$2
  shift 2
  log[$run]=$work/$run.err
  state[$run]=$st
  rm -f "$work/$run.ready"
  log_watch "${log[$run]}" "$run"
  "$pmrag" serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state-$st" --set otlp.listen= --set otlp.grpc_listen= \
    --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_encoding=json --set serve.k="$k" --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=$session_ms;heartbeat.interval.ms=500;max.poll.interval.ms=20000" \
    "${end_set[@]}" "$@" --ready-file "$work/$run.ready" 2> >($tool stamp >"${log[$run]}") &
  pid_of[$run]=$!
  track "$!"
}
if [[ $changelog_on == true ]]; then
  start_g() { start "$1" "$2" --set kafka.group=$group --set kafka.changelog=true; }
else
  start_g() { start "$1" "$2" --set kafka.group=$group; }
fi
# The live runs of group g.
live() {
  local r
  for r in "${!pid_of[@]}"; do
    [[ $r == ref || -n ${killed[$r]:-} || -n ${stopped[$r]:-} ]] || echo "$r"
  done
}
live_logs() {
  local r
  for r in $(live); do printf '%s=%s\n' "$r" "${log[$r]}"; done
}
# Until every partition has one owner and every live run some (the group
# has settled after a join or a departure): up to 30 s.
wait_balanced() {
  local own n runs
  n=$(live | wc -l)
  for _ in $(seq 300); do
    mapfile -t runs < <(live_logs)
    own=$($tool owners events "${runs[@]}") || true
    if python3 -c 'import json,sys; o=json.loads(sys.argv[1]); p=int(sys.argv[2]); n=int(sys.argv[3])
sys.exit(0 if len(o)==p and all(len(v)==1 for v in o.values()) and len({v[0] for v in o.values()})==n else 1)' \
      "$own" "$partitions" "$n"; then
      echo "$(elapsed) owners $own"
      return 0
    fi
    sleep 0.1
  done
  echo "$(elapsed) owners $own (not balanced over $n runs after 30 s)"
}
read_input() { kafka_read events '%p\t%o\t%k\n' "$work/input.tsv"; }
dump() { "$pmrag" state dump --state "$work/state-$1" --json >"$work/dumps/$1.jsonl" 2>/dev/null || true; }
# Until each case is complete in its owner's state (and the reference's),
# or 10 s without progress; t_dumps: when the last dumps were taken.
wait_settled() {
  local i line prev='' same=0 ref_n r args
  settled=0
  for i in $(seq 240); do
    t_dumps=$(now_ms)
    for st in A B C ref; do dump "$st"; done
    args=()
    for r in $(live); do args+=("$r=${log[$r]}=$work/dumps/${state[$r]}.jsonl"); done
    line=$($tool settled --input "$work/input.tsv" events "$partitions" "$work/expected.json" \
      "${args[@]}") && settled=1
    ref_n=$($ctool sum "$work/dumps/ref.jsonl")
    # The reference's state: closed cases are gone from it.
    if [[ $settled == 1 && $ref_n -ge $((events - closed_events)) ]]; then break; fi
    settled=0
    ((i % 10 == 1)) && echo "$(elapsed) $line; reference $ref_n"
    if [[ "$line $ref_n" == "$prev" ]]; then same=$((same + 1)); else same=0; fi
    ((same < 20)) || break
    prev="$line $ref_n"
    for r in "${!pid_of[@]}"; do
      [[ -n ${killed[$r]:-} || -n ${stopped[$r]:-} ]] || running "${pid_of[$r]}" ||
        fail "$r exited on its own"
    done
    sleep 0.5
  done
  echo "$(elapsed) $line; reference $ref_n"
  [[ $settled == 1 ]] || echo "the state did not settle (checked below)"
}
closed_events=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(sum(e[c] for c in json.load(open(sys.argv[2]))))' \
  "$work/expected.json" "$work/closed.json")

start ref ref --set kafka.group=ref --set kafka.output_topic=ref_predictions
start_g A A
start_g B B
serve_wait ref
serve_wait A
serve_wait B
echo "ref, A and B ready; group $group:"
wait_balanced

# The producer, at a steady rate (in chunks of 100 lines) for SCALE_SECONDS.
$ctool pace "$work/events.kcat" "$rate" |
  kcat -P -b "$boot" -t events -K $'\t' -X enable.idempotence=true 2>"$work/feed.err" &
feed_pid=$!
track "$feed_pid"
t_feed=$(now)
at() { # sleep until FRACTION of the producer's time has passed
  local d
  d=$(echo "$t_feed + $1 * $seconds - $(now)" | bc -l)
  if [[ $(echo "$d > 0" | bc) == 1 ]]; then sleep "$d"; fi
}

# in_sync: until every partition of every topic has all 3 replicas in
# sync (120 s), as a rolling restart waits before the next broker.
in_sync() {
  local t all
  for _ in $(seq 120); do
    all=1
    for t in events pmrag_predictions ref_predictions "$changelog"; do
      kafka_admin leaders "$t" 2>/dev/null |
        awk '{ n = split($3, a, ","); if ($2 < 0 || n < 3) bad = 1 } END { exit bad }' || all=0
    done
    ((all)) && return 0
    sleep 1
  done
  fail "replicas not back in sync after 120 s"
}
# chaos_brokers: the rolling restart, then the output leader's SIGKILL.
chaos_brokers() {
  local n leader
  for n in 1 2 3; do
    kafka_node_kill "$n" TERM
    echo "$(elapsed) kafka node $n stopped (rolling restart)"
    kafka_node_start "$n"
    kafka_wait 120
    in_sync
    echo "$(elapsed) kafka node $n back, every replica in sync"
  done
  leader=$(kafka_admin leaders pmrag_predictions | awk '$1 == 0 { print $2 }')
  [[ $leader =~ ^[1-3]$ ]] || fail "no leader for pmrag_predictions[0]: '$leader'"
  kafka_node_kill "$leader"
  echo "$(elapsed) kafka node $leader, leader of pmrag_predictions[0], killed (SIGKILL)"
  sleep 2
  kafka_node_start "$leader"
  kafka_wait 120
  in_sync
  echo "$(elapsed) kafka node $leader back, every replica in sync"
}

at 0.15
start_g C C
serve_wait C
echo "$(elapsed) C ready"
if [[ $chaos == true ]]; then
  # C's join is rebalancing the group: one instance dies in the middle.
  kill_wait "${pid_of[$victim]}"
  killed[$victim]=$(now_ms)
  echo "$(elapsed) $victim killed (SIGKILL) while the group rebalances for C"
fi
wait_balanced

if [[ $chaos == true ]]; then
  chaos_brokers
  restart=${victim}2
  start_g "$restart" "$victim"
  serve_wait "$restart" 120
  echo "$(elapsed) $victim restarted on its state as $restart, ready"
  wait_balanced
else
  at 0.45
  if [[ $fault == kill ]]; then
    kill_wait "${pid_of[$victim]}"
    killed[$victim]=$(now_ms)
    echo "$(elapsed) $victim killed (SIGKILL)"
    wait_balanced

    at 0.75
    restart=${victim}2
    start_g "$restart" "$victim"
    serve_wait "$restart"
    echo "$(elapsed) $victim restarted on its state as $restart, ready"
    wait_balanced
  else
    # Paused past its session: the others take its partitions while it
    # still holds a batch it has not committed, then it wakes up.
    kill -STOP "${pid_of[$victim]}"
    killed[$victim]=$(now_ms)
    echo "$(elapsed) $victim paused (SIGSTOP)"
    wait_balanced
    sleep 1
    kill -CONT "${pid_of[$victim]}"
    lost[$victim]=${killed[$victim]}
    unset "killed[$victim]"
    echo "$(elapsed) $victim continued (SIGCONT)"
    wait_balanced
  fi
fi

wait "$feed_pid" || fail "the producer failed: $(tail -3 "$work/feed.err")"
untrack "$feed_pid"
echo "$(elapsed) all $events events produced"
read_input
wait_settled

# A clean handover just after a closing event: three events into
# partition 0 (tail-closed's second one closes it), then its owner is
# stopped. The changelog's newest record there is tail-closed's tombstone,
# which must not make the next owner apply that event again.
if [[ -n $end_act ]]; then
  ev_like() { # ACTIVITY CASE: an event of the input with that activity, for CASE
    grep -m1 -F "\"activity\":\"$1\"" "$work/events.kcat" | cut -f2 |
      sed "s/\"case_id\":\"[^\"]*\"/\"case_id\":\"$2\"/; s/^/$2\t/"
  }
  { ev_like "POST /orders" tail-closed; ev_like "POST /orders" tail-open; ev_like "$end_act" tail-closed; } \
    >"$work/tail.kcat"
  [[ $(wc -l <"$work/tail.kcat") == 3 ]] || fail "no '$end_act' event to copy"
  mapfile -t runs < <(live_logs)
  owner0=$($tool owners events "${runs[@]}" |
    python3 -c 'import json,sys; o=json.load(sys.stdin).get("0", []); print(o[0] if len(o) == 1 else "")')
  [[ -n $owner0 ]] || fail "events[0] has no single owner"
  kcat -P -b "$boot" -t events -p 0 -K $'\t' <"$work/tail.kcat" 2>"$work/feed.err" ||
    fail "kcat -P tail: $(cat "$work/feed.err")"
  events=$((events + 3))
  $tool expect "$end_act" "$work" "$work/events.kcat" "$work/tail.kcat"
  closed_events=$((closed_events + 2))
  read_input
  end0=$(awk -F'\t' '$1 == 0' "$work/input.tsv" | wc -l)
  for _ in $(seq 100); do
    next=$("$pmrag" state stats --state "$work/state-${state[$owner0]}" --json 2>/dev/null |
      python3 -c 'import json,sys; print(max([o["next_offset"] for o in json.load(sys.stdin)["offsets"] if o["topic"]=="events" and o["partition"]==0] or [-1]))')
    [[ $next -ge $end0 ]] && break
    sleep 0.1
  done
  [[ $next -ge $end0 ]] || echo "$owner0 has applied events[0] to $next of $end0 only"
  stop "${pid_of[$owner0]}" "$owner0"
  stopped[$owner0]=1
  echo "$(elapsed) 3 events into events[0], the last one closing tail-closed (events[0] applied" \
    "to $next of $end0); $owner0, its owner, stopped (SIGTERM)"
  wait_balanced
  wait_settled
fi

# Clean stops, all at once (the group's last rebalances change no state).
for r in "${!pid_of[@]}"; do
  [[ -n ${killed[$r]:-} || -n ${stopped[$r]:-} ]] || kill -TERM "${pid_of[$r]}"
done
for r in "${!pid_of[@]}"; do
  [[ -n ${killed[$r]:-} || -n ${stopped[$r]:-} ]] && continue
  stop "${pid_of[$r]}" "$r"
done

for t in pmrag_predictions ref_predictions; do
  kafka_read "$t" '%p\t%o\t%T\t%k\t%s\n' "$work/$t.tsv"
done
kafka_read "$changelog" '%p\t%o\t%k\t%S\n' "$work/changelog.tsv"
if [[ $chaos == true ]]; then
  # Compaction leaves gaps: fewer records than the offsets they span.
  read -r left spanned < <(awk -F'\t' '{ n++; if ($2 + 1 > top[$1]) top[$1] = $2 + 1 }
    END { for (p in top) s += top[p]; print n + 0, s + 0 }' "$work/changelog.tsv")
  echo "changelog: $left records left of $spanned written"
  ((left < spanned)) || bad "the changelog was not compacted ($left records of $spanned)"
fi

runs=()
for r in "${!log[@]}"; do
  [[ $r == ref ]] && continue
  lv=live
  [[ -n ${killed[$r]:-} || -n ${stopped[$r]:-} ]] && lv=dead
  runs+=(--run "$r=${log[$r]}=${state[$r]}=${killed[$r]:-${lost[$r]:-}}=$lv")
done
ok=1
$tool check --topic events --partitions "$partitions" --expected "$work/expected.json" \
  --closed "$work/closed.json" --input "$work/input.tsv" --dumps "$work/dumps" --at "$t_dumps" \
  "${runs[@]}" --ref "$work/ref_predictions.tsv" --preds "$work/pmrag_predictions.tsv" \
  --changelog "$work/changelog.tsv" --changelog-compacted "$([[ $chaos == true ]] && echo yes || echo no)" ||
  ok=0
restored=$(cat "${log[@]}" | grep -c 'restored [0-9]* case changes' || true)
printf 'scale_out: %d restores logged; %.0f s\n' "$restored" "$(since "$t_start")"
[[ $ok == 1 ]] || fail "see above (seed $seed, victim $victim)"
finish
