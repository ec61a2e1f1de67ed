#!/usr/bin/env bash
# The changelog compacted by a real broker, and a restore from what is left.
# librdkafka's mock cluster never compacts: every test of the changelog
# before this one restored from a log that still held every change of
# every case. Here, on one Apache Kafka node (tests/kafka/broker.sh):
#  - <group>-cases-changelog is created with cleanup.policy=compact, a
#    segment rolled every second (segment.ms; segment.bytes cannot go below
#    1 MiB), the cleaner eager (min.cleanable.dirty.ratio 0.01,
#    min.compaction.lag.ms 0, log.cleaner.backoff.ms 200 on the broker)
#    and tombstones dropped by the next cleaning (delete.retention.ms 0);
#  - instance A (kafka.changelog=true) applies `json` events fed at a
#    steady rate for COMPACT_SECONDS, many changes per case, some cases
#    closed by an end activity (a deletion record, then a tombstone), and
#    stops cleanly; its case table is dumped (mdb_dump -s cases);
#  - the broker compacts meanwhile: the test waits until the records
#    readable from the start of the changelog are at most half of those
#    written (the end offsets), and prints the segment files per partition
#    on the broker's disk and the cleaner's own lines, before and after;
#  - instance B, same group, an empty state directory, takes every
#    partition and restores it from offset 0 of the compacted changelog:
#    its case table must equal A's byte for byte (same cases, seq, vector,
#    activities, scores), closed cases stay closed, and B applies no input
#    event again (it resumes at the end of the input).
#
#   changelog_compaction.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: COMPACT_EVENTS (8000), COMPACT_CASES (200), COMPACT_SECONDS
# (12), COMPACT_PARTITIONS (2), COMPACT_SEED (random; printed).
set -euo pipefail
usage="usage: changelog_compaction.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
events=${COMPACT_EVENTS:-8000}
cases=${COMPACT_CASES:-200}
seconds=${COMPACT_SECONDS:-12}
partitions=${COMPACT_PARTITIONS:-2}
seed=${COMPACT_SEED:-$((RANDOM * 32768 + RANDOM))}
end_act=payment.capture
group=g
cl=$group-cases-changelog
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
ctool="python3 $src/tests/integration/crash_tool.py"
stool="python3 $src/tests/integration/scale_tool.py"
need kcat mdb_dump
work_init
work_clean 'state-*' '*.err' '*.ready' '*.cases' '*.tsv' '*.jsonl'
LOG_TAIL=8 LOG_SKIP=CONFWARN
t_start=$(now)
echo "changelog_compaction: $events events over $cases cases, $partitions partitions, ${seconds} s; seed $seed"

demo_setup 200 11
$ctool gen "$work/log.csv" "$work" "$events" "$cases" "$seed" >/dev/null
# The model is mined from the whole log, so that it knows every activity
# of the events: an activity learnt online gets an id of each instance's
# own (in the order it meets them), and the case tables would differ in
# those ids alone.
demo_model "$work/log.csv"
$stool close "$end_act" "$work/events.kcat" "$work/events.kcat"
$stool expect "$end_act" "$work" "$work/events.kcat"
events=$(wc -l <"$work/events.kcat")
rate=$((events / seconds + 1))

# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
KAFKA_PROPS=(log.cleaner.backoff.ms=200 log.segment.delete.delay.ms=1000)
kafka_start 1
kafka_admin create "events:$partitions:1" "pmrag_predictions:$partitions:1" \
  "$cl:$partitions:1:cleanup.policy=compact,segment.ms=1000,min.cleanable.dirty.ratio=0.01,min.compaction.lag.ms=0,delete.retention.ms=0" ||
  fail "creating the topics"

serve() { # NAME: an instance of group g on state-NAME
  serve_start "$1" --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state-$1" --set otlp.listen= --set api.listen=127.0.0.1:0 \
    --set kafka.brokers="$boot" --set kafka.input_topics=events --set kafka.input_encoding=json \
    --set kafka.output_encoding=json --set serve.k=3 --set model.learn_online=false \
    --set kafka.group=$group --set kafka.changelog=true --set "state.end_activities=$end_act" \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500"
  serve_wait "$1" 60
}
# counts TOPIC: "WRITTEN READABLE": the records ever written to TOPIC (its
# end offsets: the newest record of a partition is never cleaned, as its
# segment is the active one) and those still readable from its start.
counts() {
  kcat -C -b "$boot" -t "$1" -o beginning -e -q -f '%p %o\n' 2>"$work/kcat.err" |
    awk '{ n++; if ($2 + 1 > end[$1]) end[$1] = $2 + 1 } END { for (p in end) w += end[p]; print w + 0, n + 0 }'
}
# disk TOPIC: the bytes of TOPIC's segment files on the broker's disk.
disk() { find "$work/kafka/node1/data" -path "*/$1-*" -name '*.log' -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }'; }
starts() { kafka_admin offsets "$1" | awk '{ printf "%s%d:%d", (NR > 1 ? " " : ""), $1, $2 } END { print "" }'; }
cleaned() { cat "$work"/kafka/node1/server.log | grep -c 'Cleaner 0: Beginning cleaning of log' || true; }

serve A
$ctool pace "$work/events.kcat" "$rate" | kcat -P -b "$boot" -t events -K $'\t' 2>"$work/feed.err" &
feed_pid=$!
track "$feed_pid"
t_feed=$(now)
for _ in $(seq $((seconds * 3))); do
  sleep 1
  running "${pid_of[A]}" || fail "A exited"
  printf '%5.1f s: changelog %d bytes on disk, segments %s; %d cleanings\n' \
    "$(since "$t_feed")" "$(disk "$cl")" "$(kafka_segments "$cl")" "$(cleaned)"
  running "$feed_pid" || break
done
wait "$feed_pid" || fail "the producer failed: $(tail -3 "$work/feed.err")"
untrack "$feed_pid"
n=0
for _ in $(seq 120); do
  n=$(state_applied "$work/state-A")
  [[ $n -ge $((events - $(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(sum(e[c] for c in json.load(open(sys.argv[2]))))' "$work/expected.json" "$work/closed.json"))) ]] && break
  sleep 0.5
done
stop "${pid_of[A]}" A
for t in cases dict; do mdb_dump -s "$t" "$work/state-A" >"$work/A.$t" || fail "mdb_dump -s $t state-A"; done
"$pmrag" state dump --state "$work/state-A" --json >"$work/A.jsonl"
ok=1
$ctool state <(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); [e.pop(c) for c in json.load(open(sys.argv[2]))]; print(json.dumps(e))' \
  "$work/expected.json" "$work/closed.json") "$work/A.jsonl" >"$work/A.check" 2>&1 ||
  { cat "$work/A.check"; fail "A's state is not its input"; }
closed=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/closed.json")
echo "A: $events events applied, $(wc -l <"$work/A.jsonl") open cases, $closed closed; stopped"

# Compaction: until at most half of what was written can still be read.
t_wait=$(now)
for i in $(seq 120); do
  read -r w r < <(counts "$cl")
  ((i % 4 == 1)) && printf '%5.1f s: changelog %d records written, %d readable, %d bytes on disk; segments %s; %d cleanings\n' \
    "$(since "$t_feed")" "$w" "$r" "$(disk "$cl")" "$(kafka_segments "$cl")" "$(cleaned)"
  ((r * 2 <= w)) && break
  sleep 0.5
done
w_admin=$(kafka_admin offsets "$cl" | awk '{ n += $3 } END { print n + 0 }')
[[ $w_admin == "$w" ]] || bad "the changelog's end offsets add up to $w_admin (Admin), $w from its newest records"
printf '%5.1f s: changelog %d records written, %d readable after %.1f s, %d bytes on disk; segments %s; log starts %s; %d cleanings\n' \
  "$(since "$t_feed")" "$w" "$r" "$(since "$t_wait")" "$(disk "$cl")" "$(kafka_segments "$cl")" "$(starts "$cl")" "$(cleaned)"
# The cleaner's own account: bytes of the segments it read and of those it
# swapped in.
python3 - "$work/kafka/node1/server.log" <<'PY'
import re, sys
before = after = n = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"Swapping in cleaned segment LogSegment\(baseOffset=\d+, size=(\d+).* for segment\(s\) \[(.*)\] in log", line)
    if m:
        n += 1
        after += int(m.group(1))
        before += sum(int(x) for x in re.findall(r"size=(\d+)", m.group(2)))
print("broker: %d cleaned segments swapped in, %d bytes read, %d bytes kept" % (n, before, after))
PY
if ((r * 2 <= w)); then
  pass "the broker compacted the changelog: $r of $w records left"
else
  bad "the changelog was not compacted: $r of $w records readable after 60 s"
fi
kcat -C -b "$boot" -t "$cl" -o beginning -e -q -f '%p\t%k\t%S\n' >"$work/changelog.tsv" 2>/dev/null
python3 - "$work/changelog.tsv" "$work/closed.json" <<'PY' || ok=0
import json, sys
keys, per_key, tomb = set(), {}, 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    p, k, size = line.rstrip("\n").split("\t")
    keys.add(k)
    per_key[k] = per_key.get(k, 0) + 1
    tomb += int(size) < 0
closed = set(json.load(open(sys.argv[2])))
multi = sum(1 for n in per_key.values() if n > 1)
print("changelog after compaction: %d records for %d cases (%d with more than one record "
      "left, in segments not cleaned yet), %d tombstones (%d closed cases)" % (
          sum(per_key.values()), len(keys), multi, tomb, len(closed)))
PY

# B restores the compacted changelog into an empty state.
t_b=$(now)
serve B
for _ in $(seq 100); do
  grep -q 'kafka: assigned' "$work/B.err" && break
  sleep 0.1
done
sleep 2
api=$(ready_field B api)
in_b=$(metric "$api" 'pmrag_events_in_total{source="kafka"}')
stop "${pid_of[B]}" B
grep -o 'restored [0-9]* case changes ([^)]*) of [^ ]* from offset [0-9]* in [0-9.]* ms' "$work/B.err" | sed 's/^/B: /'
restored=$(grep -o 'restored [0-9]* case changes' "$work/B.err" | awk '{ n += $2 } END { print n + 0 }')
grep -o 'kafka: assigned .*' "$work/B.err" | sed 's/^/B: /'
for t in cases dict; do mdb_dump -s "$t" "$work/state-B" >"$work/B.$t" || fail "mdb_dump -s $t state-B"; done
"$pmrag" state dump --state "$work/state-B" --json >"$work/B.jsonl"
if cmp -s "$work/A.cases" "$work/B.cases"; then
  pass "B's case table, restored from $restored changes of the compacted changelog, equals A's byte for byte ($(grep -c '^ ' "$work/A.cases") lines of mdb_dump)"
else
  bad "B's case table differs from A's: $(diff "$work/A.cases" "$work/B.cases" | grep -c '^[<>]') lines of mdb_dump"
  ok=0
fi
if cmp -s "$work/A.jsonl" "$work/B.jsonl"; then
  pass "pmrag state dump: the same $(wc -l <"$work/B.jsonl") cases, seq and last activities; none of the $closed closed cases back"
else
  bad "pmrag state dump of B differs from A's"
fi
if [[ $in_b == 0 ]]; then
  pass "B applied no input event again (pmrag_events_in_total{source=\"kafka\"} 0)"
else
  bad "B applied ${in_b:-?} input events again after the restore"
fi
printf 'changelog_compaction: %.0f s in all (B up and restored in %.1f s)\n' "$(since "$t_start")" "$(since "$t_b")"
[[ $ok == 1 ]] || fail "see above (seed $seed)"
finish
