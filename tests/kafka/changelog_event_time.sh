#!/usr/bin/env bash
# Event time with the changelog: events held in the window
# (serve.reorder_ms) move with their partition. Held events are in the
# state of the instance that received them, their input offsets already
# acknowledged; the next owner of a partition restores its cases from the
# changelog. So a revoked partition, or a stopping instance, releases the
# events held for its cases first, in their order, before the commit that
# precedes giving it up. On one Apache Kafka node (tests/kafka/broker.sh),
# input `events` of 2 partitions, 4 cases (2 a partition), a grace of 60 s
# (nothing is released by it during the test):
#  - instance A (group g, kafka.changelog=true) takes the first 3 events
#    of each case, each case's in the order step three, step one, step two
#    while they happened one, two, three, and holds them;
#  - B joins the group: one of A's partitions is revoked and goes to B
#    (A keeps the other with the cooperative assignor, or gets it back
#    with an eager one), and A must release the 6 events held for the
#    revoked partition's cases, each case's in event time, before the
#    handover (it may keep holding the other 6);
#  - 3 more events a case (happened four, five, six; sent six, four,
#    five) are held by the partitions' owners; B is stopped (SIGTERM: its
#    partition goes back to A), then A;
#  - D, an instance of group g on an empty state directory, takes both
#    partitions and restores them from the changelog: each case's
#    /v1/cases/{id} must read seq 6, the prefix one, two, three, one, two,
#    three, nothing held;
#  - D holds 3 more events a case (seven, eight, nine) and is killed
#    (SIGKILL): their input messages were not acknowledged (the offset
#    acknowledged is the oldest held event's), so E, a new instance,
#    consumes them again once it has the partitions: seq 9 in event time.
#    D, restarted on its state (D2), drops the events it held;
#  - the output topic must hold exactly one prediction for each (case,
#    seq) 1..9, revision 0, with the activity of that place in event time.
# Without the release a handover loses the held events (the next owner
# resumes after their offsets); without the window the events are applied
# as they arrive.
#
#   changelog_event_time.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: changelog_event_time.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat
need curl
work_init
work_clean 'state-*' '*.err' '*.ready' '*.tsv'
LOG_TAIL=8 LOG_SKIP=CONFWARN
cl=g-cases-changelog
t_start=$(now)

steps_graph

# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
kafka_start 1
kafka_admin create events:2:1 pmrag_predictions:2:1 "$cl:2:1:cleanup.policy=compact" ||
  fail "creating the topics"

serve() { # NAME [STATE [ARG...]]: an instance of group g on state-STATE (NAME)
  local name=$1 st=${2:-$1}
  shift $(($# < 2 ? $# : 2))
  serve_start "$name" --graph "$work/g.graph" --set state.dir="$work/state-$st" \
    --set otlp.listen= --set api.listen=127.0.0.1:0 --set kafka.brokers="$boot" \
    --set kafka.input_topics=events --set kafka.input_encoding=json --set kafka.group=g \
    --set kafka.output_encoding=json --set kafka.changelog=true --set model.learn_online=false \
    --set serve.reorder_ms=60000 \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500" "$@"
  serve_wait "$name" 60
}
# assigned NAME N: until NAME's log has N lines "kafka: assigned" (30 s).
assigned() {
  for _ in $(seq 300); do
    (($(grep -c 'kafka: assigned' "$work/$1.err" || true) >= $2)) && return 0
    sleep 0.1
  done
  fail "$1 not assigned partitions $2 times after 30 s"
}
held() { ready_metric "$1" pmrag_events_held; }
# held_is NAME N: until NAME holds N events back (30 s).
held_is() {
  for _ in $(seq 300); do
    [[ $(held "$1") == "$2" ]] && return 0
    sleep 0.1
  done
  fail "$1 holds $(held "$1") events back after 30 s, want $2"
}
cases=(c0 c1 c2 c3)
# feed ACTIVITY@SECOND...: for each case (to partition i % 2), one event per
# "ACTIVITY@SECOND" argument, in the order given.
feed() {
  local i a
  for i in "${!cases[@]}"; do
    for a in "$@"; do
      printf '%s\t{"case_id":"%s","activity":"%s","timestamp":"2026-01-01T00:00:0%sZ"}\n' \
        "${cases[$i]}" "${cases[$i]}" "${a%@*}" "${a#*@}" |
        kcat -P -b "$boot" -t events -p $((i % 2)) -K $'\t' || fail "kcat -P"
    done
  done
}

serve A
assigned A 1
feed "step three@3" "step one@1" "step two@2"
held_is A 12
echo "A holds the first 12 events ($(since "$t_start") s)"

serve B
assigned B 1
for _ in $(seq 300); do
  grep -q 'kafka: assigned events' "$work/B.err" && break
  sleep 0.1
done
grep -q 'kafka: assigned events' "$work/B.err" || fail "B was given no partition in 30 s"
released=$({ grep -o '[0-9]* held events of partition [0-9]* released at once (revoked)' \
  "$work/A.err" || true; } | awk '{ n += $1 } END { print n + 0 }')
echo "B joined ($(since "$t_start") s): A released $released held events; holds $(held A), B $(held B)"
((released >= 6)) && pass "A released the events held for the partition it gave up" ||
  bad "A released $released held events at the revoke, want 6 or more"

feed "step three@6" "step one@4" "step two@5"
for _ in $(seq 300); do
  (($(held A) + $(held B) == 24 - released)) && break
  sleep 0.1
done
echo "held after the second feed: A $(held A), B $(held B)"
stop "${pid_of[B]}" B
stop "${pid_of[A]}" A
grep -o 'held events of the input partitions released at once (stopping)' "$work/"[AB].err |
  sed 's/^/  /' || true
echo "B, then A stopped ($(since "$t_start") s)"

serve D
assigned D 1
for _ in $(seq 100); do
  (($(grep -c 'restored [0-9]* case changes' "$work/D.err" || true) >= 2)) && break
  sleep 0.1
done
grep -o 'restored [0-9]* case changes ([^)]*) of [^ ]*' "$work/D.err" | sed 's/^/D: /' || true
sleep 2 # (anything D consumed again would be applied by now: it holds nothing back)
# cases_are NAME N WHAT: each case in NAME's /v1/cases/{id} has seq N, the
# prefix one, two, three repeated, nothing held.
cases_are() {
  local api c got want
  api=$(ready_field "$1" api)
  want=$(python3 -c 'import json, sys; n = int(sys.argv[1]); print(json.dumps([n, (["step one", "step two", "step three"] * 3)[:n], 0]))' "$2")
  for c in "${cases[@]}"; do
    got=$(curl -fsS -m 5 "http://$api/v1/cases/$c" 2>/dev/null |
      python3 -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps([d["seq"], d["prefix"], d["held"]]))') ||
      got="(no case)"
    [[ $got == "$want" ]] && pass "$c $3: its $2 events once each, in event time" ||
      bad "$c $3: $got, want $want"
  done
}
cases_are D 6 "after two handovers"

# A crash with events held: D, alone in the group, holds 3 more events a
# case (happened seven, eight, nine; sent nine, seven, eight) and is
# killed. Their messages were not acknowledged: E, a new instance on an
# empty state (a grace of 3 s), takes the partitions once D's session is
# over, restores the cases and consumes the 12 events again. Then D
# restarts on its state (as D2) and must drop the events it held.
feed "step three@9" "step one@7" "step two@8"
held_is D 12
kill_wait "${pid_of[D]}"
echo "D killed (SIGKILL) holding 12 events ($(since "$t_start") s)"
serve E E --set serve.reorder_ms=3000
seq_of() { curl -fsS -m 5 "http://$(ready_field "$1" api)/v1/cases/$2" 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["seq"])' 2>/dev/null || echo 0; }
for _ in $(seq 400); do
  n=0
  for c in "${cases[@]}"; do [[ $(seq_of E "$c") == 9 ]] && n=$((n + 1)); done
  ((n == 4)) && break
  sleep 0.1
done
grep -o 'kafka: assigned events.*' "$work/E.err" | sed 's/^/E: /' || true
cases_are E 9 "on the next owner after a crash with events held"
serve D2 D
for _ in $(seq 100); do
  grep -q 'kafka: assigned events' "$work/D2.err" && break
  sleep 0.1
done
sleep 2
dropped=$(grep -o '[0-9]* held events dropped' "$work/D2.err" | cut -d' ' -f1 || true)
echo "D restarted on its state as D2 ($(since "$t_start") s): ${dropped:-no} held events dropped, holds $(held D2)"
[[ ${dropped:-0} == 12 && $(held D2) == 0 ]] &&
  pass "D2 dropped the 12 events it held at the crash (consumed again by E)" ||
  bad "D2 dropped ${dropped:-no} held events and holds $(held D2), want 12 and 0"
stop "${pid_of[D2]}" D2
stop "${pid_of[E]}" E

kafka_read pmrag_predictions '%s\n' "$work/pred.tsv"
python3 - "$work/pred.tsv" <<'PY' >"$work/verdict" || true
import collections, json, sys
order = ["step one", "step two", "step three"] * 3
seen = collections.Counter()
wrong = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    seen[(d["case_id"], d["seq"])] += 1
    if d.get("revision", 0) != 0 or not 1 <= d["seq"] <= 9 or d["activity"] != order[d["seq"] - 1]:
        wrong.append("%s/%d r%d %s" % (d["case_id"], d["seq"], d.get("revision", 0), d["activity"]))
want = {("c%d" % i, q) for i in range(4) for q in range(1, 10)}
missing = sorted(want - set(seen))
twice = sorted(k for k, n in seen.items() if n > 1)
print(len(missing), len(twice), len(wrong), "; ".join(
    ["missing " + " ".join("%s/%d" % m for m in missing)] * bool(missing) +
    ["twice " + " ".join("%s/%d" % m for m in twice)] * bool(twice) + wrong[:6]))
PY
read -r missing twice wrong which <"$work/verdict" || true
echo "predictions: $(wc -l <"$work/pred.tsv") on the output topic; missing $missing, twice $twice, out of order $wrong"
if [[ $missing == 0 && $twice == 0 && $wrong == 0 ]]; then
  pass "each (case, seq) 1..9 predicted once, revision 0, in event time"
else
  bad "predictions: $which"
fi
printf 'changelog_event_time: %.0f s in all\n' "$(since "$t_start")"
finish
