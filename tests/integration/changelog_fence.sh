#!/usr/bin/env bash
# Fencing of late changelog records. An instance paused past the
# session timeout loses its partitions but may still write the changes of
# the messages it had in hand: records older than those written since,
# after them in <group>-cases-changelog. Such records are made here
# deterministically, by producing again records an instance wrote earlier:
#  - A consumes case c2 (two events, the second closes it: a deletion
#    record and a tombstone) then case c1 (three events), writes their
#    changes to the changelog, and stops;
#  - the changelog then gets, as a zombie would write them: c1's record of
#    its second event (seq 2, an older input offset), and a deletion of c1
#    (the value of c2's deletion, input offset 1) followed by a tombstone;
#  - B, on a state directory of its own, takes the partition and restores
#    it: c1 must be at seq 3 (not 2, not deleted), c2 absent, and B must
#    count the 3 stale records it skipped. With the fence gone, c1 is lost.
#
#   changelog_fence.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: changelog_fence.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat
work_init
work_clean 'state-*' '*.err' '*.ready' '*.bin'
# What fail shows of A's and B's logs: their info lines too.
LOG_TAIL=6 LOG_SKIP=CONFWARN
cl=g-cases-changelog

steps_graph

mock_start --partitions 1 --topic events --topic pmrag_predictions --topic "$cl"

# Events applied as they arrive (serve.reorder_ms=0): one changelog record
# per event, at the offsets the zombie's copies below are read from (held
# back, a case's events all come out in one record).
serve() { # NAME: an instance on state-NAME, in the background
  serve_start "$1" --graph "$work/g.graph" --set state.dir="$work/state-$1" \
    --set otlp.listen= --set api.listen=127.0.0.1:0 --set kafka.brokers="$boot" \
    --set kafka.input_topics=events --set kafka.input_encoding=json --set kafka.group=g \
    --set kafka.changelog=true --set model.learn_online=false --set serve.reorder_ms=0 \
    --set state.end_activities="case closed" \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500"
}
cl_count() { kcat -C -b "$boot" -t "$cl" -o beginning -e -q -f 'x\n' 2>/dev/null | wc -l; }
seq_of() { # STATE CASE: the case's seq in the state, or "absent"
  "$pmrag" state dump --state "$work/state-$1" --json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    r = json.loads(l)
    if r.get("case_id") == sys.argv[1]:
        print(r["seq"]); sys.exit()
print("absent")' "$2"
}

# Input offsets: c2 0, 1 (closed); c1 2, 3, 4.
ev() { printf '%s\t{"case_id":"%s","activity":"%s","timestamp":"2026-01-01T00:00:0%sZ"}\n' "$1" "$1" "$2" "$3"; }
{
  ev c2 "step one" 0
  ev c2 "case closed" 1
  ev c1 "step one" 2
  ev c1 "step two" 3
  ev c1 "step three" 4
} | kcat -P -b "$boot" -t events -p 0 -K $'\t'

serve A
serve_wait A 30
# c2: its change, its deletion record, a tombstone; c1: three changes.
for _ in $(seq 200); do [[ $(cl_count) -ge 6 ]] && break; sleep 0.1; done
[[ $(cl_count) -eq 6 ]] || fail "changelog has $(cl_count) records, not 6"
stop "${pid_of[A]}" A
[[ $(seq_of A c1) == 3 && $(seq_of A c2) == absent ]] ||
  fail "A's state: c1 $(seq_of A c1), c2 $(seq_of A c2)"

# The zombie's writes. Changelog offsets: 0 c2 change, 1 c2 deletion,
# 2 c2 tombstone, 3..5 c1's changes (seq 1..3).
kcat -C -b "$boot" -t "$cl" -p 0 -o 4 -c 1 -e -q -f '%s' >"$work/c1-seq2.bin"
kcat -C -b "$boot" -t "$cl" -p 0 -o 1 -c 1 -e -q -f '%s' >"$work/c2-del.bin"
[[ -s $work/c1-seq2.bin && -s $work/c2-del.bin ]] || fail "cannot read the changelog records back"
kcat -P -b "$boot" -t "$cl" -p 0 -k c1 "$work/c1-seq2.bin"
kcat -P -b "$boot" -t "$cl" -p 0 -k c1 "$work/c2-del.bin"
printf 'c1\t\n' | kcat -P -b "$boot" -t "$cl" -p 0 -K $'\t' -Z # (-Z: empty is NULL, a tombstone)
[[ $(cl_count) -eq 9 ]] || fail "changelog has $(cl_count) records after the zombie's, not 9"
keys=$(kcat -C -b "$boot" -t "$cl" -o beginning -e -q -f '%k %S\n' | tr '\n' ',')
echo "changelog (key, value bytes): $keys"

serve B
serve_wait B 30
# The restore happens once B has the partition: until its stale count
# settles (10 s at most).
stale=0
for _ in $(seq 100); do
  stale=$(ready_metric B pmrag_changelog_stale_records_total)
  [[ $stale -ge 3 ]] && break
  sleep 0.1
done
sleep 0.5
stale=$(ready_metric B pmrag_changelog_stale_records_total)
stop "${pid_of[B]}" B
c1=$(seq_of B c1) c2=$(seq_of B c2)
echo "B after the restore: c1 seq $c1, c2 $c2, stale records skipped $stale"
[[ $c1 == 3 ]] || fail "c1 is at $c1 in B, not 3: a late record of an older message was applied"
[[ $c2 == absent ]] || fail "c2 is in B's state ($c2) although it was closed"
[[ $stale == 3 ]] || fail "pmrag_changelog_stale_records_total is $stale, not 3"
finish
