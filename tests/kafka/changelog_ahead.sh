#!/usr/bin/env bash
# A change on the changelog must not outrun its prediction. The commit
# pipeline promises that what is in the state has its predictions on the
# output topic, and with kafka.changelog=true the changelog is the state
# the next owner of a partition restores. This test holds the output topic
# back on a real broker while the changelog goes on (a topic-level limit
# the mock cluster does not enforce), on one Apache Kafka node
# (tests/kafka/broker.sh):
#  - pmrag_predictions is created with max.message.bytes=64: every
#    prediction is refused (MESSAGE_TOO_LARGE, as a revoked ACL or a
#    lowered limit would refuse it in production); the changelog topic is
#    an ordinary one;
#  - instance A (group g, kafka.changelog=true) takes 6 events of 2 cases
#    and stops on the refusal; the test checks that none of their 6
#    changelog records reached the broker (a batch's changes are sent only
#    once its predictions are acknowledged), that no prediction is on the
#    output topic and that no case was committed to A's state with an
#    event applied (held back, they are), then kills A with SIGKILL if it
#    has not stopped by itself;
#  - the output topic takes predictions again (max.message.bytes back to
#    1 MiB), and B, an
#    instance of the same group on an empty state directory, takes the
#    partition, restores the changelog and goes on;
#  - every (case, seq) must then have its prediction on the output topic.
#    If B resumes after events whose predictions were never acknowledged,
#    those predictions are lost for good: the output is then not even at
#    least once.
#
#   changelog_ahead.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: changelog_ahead.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat
work_init
work_clean 'state-*' '*.err' '*.ready' '*.tsv'
LOG_TAIL=8 LOG_SKIP=CONFWARN
cl=g-cases-changelog
t_start=$(now)

steps_graph

# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
kafka_start 1
kafka_admin create events:1:1 "pmrag_predictions:1:1:max.message.bytes=64" \
  "$cl:1:1:cleanup.policy=compact" || fail "creating the topics"

serve() { # NAME: an instance of group g on state-NAME
  serve_start "$1" --graph "$work/g.graph" --set state.dir="$work/state-$1" \
    --set otlp.listen= --set api.listen=127.0.0.1:0 --set kafka.brokers="$boot" \
    --set kafka.input_topics=events --set kafka.input_encoding=json --set kafka.group=g \
    --set kafka.output_encoding=json --set kafka.changelog=true --set model.learn_online=false \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500"
  serve_wait "$1" 60
}
count() { kcat -C -b "$boot" -t "$1" -o beginning -e -q -f 'x\n' 2>/dev/null | wc -l; }
# Cases with an event applied (events held back in the event-time window,
# committed before their release, have no prediction to wait for).
cases_in() {
  "$pmrag" state dump --state "$work/state-$1" --json 2>/dev/null |
    python3 -c 'import json, sys; print(sum(json.loads(l)["seq"] > 0 for l in sys.stdin))'
}

ev() { printf '%s\t{"case_id":"%s","activity":"%s","timestamp":"2026-01-01T00:00:0%sZ"}\n' "$1" "$1" "$2" "$3"; }
{
  ev c1 "step one" 0
  ev c2 "step one" 1
  ev c1 "step two" 2
  ev c2 "step two" 3
  ev c1 "step three" 4
  ev c2 "step three" 5
} | kcat -P -b "$boot" -t events -p 0 -K $'\t'

serve A
for _ in $(seq 300); do
  grep -q 'predictions not acknowledged' "$work/A.err" && break
  running "${pid_of[A]}" || break
  sleep 0.1
done
sleep 1
n=$(count "$cl") p=$(count pmrag_predictions) a=$(cases_in A)
echo "A: $n changelog records on the broker, $p predictions, $a cases with events applied committed to its state"
grep -m1 ' error: ' "$work/A.err" | cut -c1-200 | sed 's/^/  A: /' || true
[[ $p == 0 && $a == 0 ]] ||
  fail "the setup did not hold the predictions back: $p predictions, $a cases committed"
if [[ $n == 0 ]]; then
  pass "no changelog record reached the broker before its prediction was acknowledged"
else
  bad "$n changelog records reached the broker though their predictions were refused"
fi
if running "${pid_of[A]}"; then
  kill_wait "${pid_of[A]}"
  echo "A killed (SIGKILL) with its predictions refused"
else
  rc=0
  wait "${pid_of[A]}" || rc=$?
  untrack "${pid_of[A]}"
  echo "A stopped by itself (exit $rc) with its predictions refused"
fi

kafka_admin alter pmrag_predictions max.message.bytes=1048588 || fail "kafka_admin alter"
serve B
for _ in $(seq 200); do
  grep -q 'kafka: assigned events' "$work/B.err" && break
  sleep 0.1
done
sleep 3
stop "${pid_of[B]}" B
grep -o 'restored [0-9]* case changes ([^)]*) of [^ ]* from offset [0-9]* in [0-9.]* ms' "$work/B.err" | sed 's/^/B: /'
grep -o 'kafka: assigned .*' "$work/B.err" | sed 's/^/B: /'
kafka_read pmrag_predictions '%k\t%s\n' "$work/pred.tsv"
python3 - "$work/pred.tsv" <<'PY' >"$work/verdict" || true
import json, sys
got = set()
for line in open(sys.argv[1]):
    k, v = line.rstrip("\n").split("\t", 1)
    d = json.loads(v)
    got.add((d["case_id"], d["seq"]))
want = {(c, s) for c in ("c1", "c2") for s in (1, 2, 3)}
missing = sorted(want - got)
print(len(got & want), len(missing), " ".join("%s/%d" % m for m in missing))
PY
read -r have missing which <"$work/verdict" || true
if [[ $missing == 0 ]]; then
  pass "every one of the 6 (case, seq) has its prediction after A's kill and B's restore"
else
  bad "$missing of 6 predictions never published ($which): B restored changes from the changelog whose predictions A never had acknowledged, and resumed after them"
fi
printf 'changelog_ahead: %.0f s in all\n' "$(since "$t_start")"
finish
