#!/usr/bin/env bash
# A full state store. `pmrag serve` consumes `json` events from a
# standalone mock cluster into an LMDB map too small for them:
#  1. a 1 MiB map that may not grow (state.map_size = state.map_max): the
#     daemon must stop with an error that names the state directory, exit
#     non-zero, and leave an environment that `pmrag state stats` opens,
#     whose offsets match its cases (the batch that did not fit is not
#     partly there);
#  2. with root and a mount that works: the state directory on a 1 MiB
#     tmpfs, the map free to grow, so that the disk fills instead ("no
#     space left on device"), with the same demands; then the tmpfs is
#     made larger (remount keeps its files);
# and each time a restart with room finishes the input: every case's seq
# equals its number of events, and every (case, seq) has a prediction.
#
#   state_full.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: CRASH_EVENTS (40000), CRASH_CASES (5000; about 300 bytes
# each in the state with 8 events, so 1.5 MiB in all).
set -euo pipefail
usage="usage: state_full.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${CRASH_EVENTS:-40000}
cases=${CRASH_CASES:-5000}
tool="python3 $src/tests/integration/crash_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat

work_init
mnt=$work/tmpfs
mounted=
# On exit, after the daemons are killed (they hold files there).
# shellcheck disable=SC2317 # called on exit, through at_exit
unmount() { [[ -z $mounted ]] || umount "$mnt" 2>/dev/null; }
at_exit unmount
if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt"; fi
work_clean state tmpfs '*.json' '*.err' '*.ready'
t_start=$(now)
echo "state_full: $events events, $cases cases"

demo_setup 200 11
$tool gen "$work/log.csv" "$work" "$events" "$cases" 5
demo_model "$work/train.csv"

mock_start --partitions 8 --topic events --topic p_map --topic p_disk
kcat -P -b "$boot" -t events -K $'\t' <"$work/events.kcat" || fail "kcat -P"

# serve DIR OUT_TOPIC GROUP NAME [--set K=V ...]: in the background, its
# log $work/NAME.err.
serve() {
  local dir=$1 topic=$2 group=$3 name=$4
  shift 4
  serve_start "$name" --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$dir" --set otlp.listen= --set api.listen= \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_topic="$topic" --set kafka.output_encoding=json --set serve.k=1 \
    --set kafka.group="$group" --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500" \
    "$@"
}
# full DIR NAME WHAT WORDS: the daemon must stop on its own with an error
# that names DIR and says WORDS.
full() {
  local dir=$1 log=$work/$2.err what=$3 rc=0
  for _ in $(seq 1200); do
    running "$pid" || break
    sleep 0.05
  done
  if running "$pid"; then
    fail "$what: serve still running after 60 s (state: $(state_applied "$dir") events)"
  fi
  wait "$pid" || rc=$?
  untrack "$pid"
  [[ $rc != 0 ]] || fail "$what: serve exited 0"
  local msg
  msg=$(grep -v ': info: \|: warning: \|: note: ' "$log" | grep -F "$dir" | head -1 || true)
  [[ -n $msg ]] || fail "$what: no error naming $dir: $(grep -v ': info: ' "$log" | tail -3)"
  echo "$what: exit $rc after $(state_applied "$dir")/$events events: $msg"
  grep -qi "$4" <<<"$msg" || fail "$what: the error does not say '$4'"
  "$pmrag" state stats --state "$dir" >"$work/stats.txt" 2>&1 ||
    fail "$what: pmrag state stats cannot open the state: $(cat "$work/stats.txt")"
  "$pmrag" state stats --state "$dir" --json >"$work/stats.json"
  "$pmrag" state dump --state "$dir" --json >"$work/dump.jsonl" || fail "$what: pmrag state dump"
  echo "  state stats: $(grep -E '^(cases|map size|used)' "$work/stats.txt" | tr -s ' ' | tr '\n' ';')"
  $tool consistent "$work/stats.json" "$work/dump.jsonl" events | sed 's/^/  /'
  [[ ${PIPESTATUS[0]} == 0 ]] || fail "$what: the state's offsets do not match its cases"
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
  "$pmrag" state dump --state "$dir" --json >"$work/dump.jsonl" || fail "pmrag state dump"
  $tool state "$work/expected.json" "$work/dump.jsonl" --applied || fail "$what: events lost or applied twice"
  kafka_read "$topic" '%p\t%o\t%k\t%s\n' "$work/pred.tsv"
  $tool preds "$work/expected.json" "$work/pred.tsv" || fail "$what: predictions missing"
}

# ---- 1. the map may not grow ------------------------------------------------------
serve "$work/state" p_map g_map map --set state.map_size=1048576 --set state.map_max=1048576
full "$work/state" map "map full" "map full"
to_end "$work/state" map "map full, restarted with room" p_map g_map \
  --set state.map_size=1048576 --set state.map_max=0

# ---- 2. the disk fills -------------------------------------------------------------
if [[ $(id -u) == 0 ]] && mkdir -p "$mnt" && mount -t tmpfs -o size=1m tmpfs "$mnt" 2>/dev/null; then
  mounted=1
  serve "$mnt/state" p_disk g_disk disk
  full "$mnt/state" disk "disk full" "no space"
  mount -o remount,size=64m "$mnt" || fail "remount of the tmpfs"
  to_end "$mnt/state" disk "disk full, restarted with room" p_disk g_disk
  umount "$mnt"
  mounted=
else
  echo "disk full: skipped (needs root and tmpfs mounts)"
fi
printf 'state_full: %.0f s\n' "$(since "$t_start")"
finish
