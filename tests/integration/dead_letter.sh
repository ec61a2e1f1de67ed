#!/usr/bin/env bash
# The dead-letter topic (kafka.dead_letter_topic). `pmrag serve` consumes
# kafka-mock's `events` topic (input_encoding auto):
#  1. two good events of case c1 around two messages it cannot use: bytes
#     that decode as nothing (undecodable), and OTLP/JSON whose one span is
#     refused (its trace id, the case id, is past 500 bytes). Both must
#     reach the dead-letter topic unchanged, byte for byte and with their
#     keys, carrying the headers that say why and where from; the good
#     events must be applied, and the counters must say undecodable 1,
#     refused 1.
#  2. a restart on the same state: nothing is consumed again (the offsets
#     of the dead letters were stored with the batch).
#  3. the broker refuses every Produce for good (as a revoked ACL would)
#     while an undecodable message and a good event arrive: the daemon must
#     not store their offsets. Once the broker takes messages again, a
#     restart brings the message to the dead-letter topic and applies the
#     event: nothing lost, nothing applied twice.
#
#   dead_letter.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: dead_letter.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat curl
work_init
work_clean state '*.err' '*.ready' '*.bin' '*.txt'
LOG_TAIL=6 LOG_SKIP=CONFWARN

steps_graph
mock_start --partitions 1 --topic events --topic pmrag_predictions --topic dead \
  --control "$work/ctl"

serve() { # NAME: an instance on $work/state
  serve_start "$1" --graph "$work/g.graph" --set state.dir="$work/state" \
    --set otlp.listen= --set api.listen=127.0.0.1:0 --set kafka.brokers="$boot" \
    --set kafka.input_topics=events --set kafka.input_encoding=auto \
    --set kafka.dead_letter_topic=dead --set model.learn_online=false \
    --set serve.batch=1 \
    --set "kafka.properties=message.timeout.ms=5000;session.timeout.ms=6000;heartbeat.interval.ms=500"
}
seq_of() { # CASE: its seq in $work/state, or "absent"
  "$pmrag" state dump --state "$work/state" --json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    c = json.loads(l)
    if c.get("case_id") == sys.argv[1]:
        print(c["seq"]); break
else:
    print("absent")' "$1"
}
dead_count() { kcat -C -b "$boot" -t dead -o beginning -e -q -f 'x\n' 2>/dev/null | wc -l; }
ev() { printf '{"case_id":"%s","activity":"%s","timestamp":"2026-01-01T00:00:0%sZ"}' "$1" "$2" "$3"; }
produce() { # KEY FILE: one message
  kcat -P -b "$boot" -t events -p 0 -k "$1" "$2" 2>>"$work/kcat.err" || fail "kcat -P: $(tail -2 "$work/kcat.err")"
}

# ---- 1. two dead letters among good events -------------------------------------
ev c1 "step one" 1 >"$work/good1.bin"
printf '\x00\x01{not json at all\xff' >"$work/undecodable.bin"
# OTLP/JSON whose one span has a trace id past 500 bytes (its case id).
printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%s","spanId":"0102030405060708","name":"step two","startTimeUnixNano":"1767225602000000000","endTimeUnixNano":"1767225602000000000"}]}]}]}' \
  "$(printf 'ab%.0s' $(seq 300))" >"$work/refused.bin"
ev c1 "step two" 3 >"$work/good2.bin"
produce c1 "$work/good1.bin"
produce k-bad "$work/undecodable.bin"
produce k-nocase "$work/refused.bin"
produce c1 "$work/good2.bin"

serve A
serve_wait A 30
api=$(ready_field A api)
for _ in $(seq 200); do [[ $(dead_count) -ge 2 && $(seq_of c1) == 2 ]] && break; sleep 0.1; done
[[ $(dead_count) -eq 2 ]] || fail "the dead-letter topic has $(dead_count) messages, not 2"
[[ $(seq_of c1) == 2 ]] || fail "c1 at seq $(seq_of c1), not 2"
pass "2 dead letters, the 2 good events applied"

kcat -C -b "$boot" -t dead -o 0 -c 1 -e -q -f '%s' >"$work/dead0.bin"
kcat -C -b "$boot" -t dead -o 1 -c 1 -e -q -f '%s' >"$work/dead1.bin"
if cmp -s "$work/dead0.bin" "$work/undecodable.bin" && cmp -s "$work/dead1.bin" "$work/refused.bin"; then
  pass "dead letters byte-identical to the input messages, in order"
else
  fail "dead letters differ: $(od -c "$work/dead0.bin" | head -2) / $(od -c "$work/dead1.bin" | head -2)"
fi
kcat -C -b "$boot" -t dead -o beginning -e -q -f '%k|%h\n' >"$work/headers.txt"
check "keys kept" -- grep -q '^k-bad|' "$work/headers.txt"
check "keys kept (refused)" -- grep -q '^k-nocase|' "$work/headers.txt"
for h in 'pmrag.reason=undecodable' 'pmrag.source.topic=events' 'pmrag.source.partition=0' \
  'pmrag.source.offset=1' 'pmrag.error=' 'pmrag.time='; do
  check "header $h" -- grep -q "^k-bad|.*$h" "$work/headers.txt"
done
check "refused: reason and offset" -- grep -q '^k-nocase|.*pmrag.reason=refused.*pmrag.source.offset=2' \
  "$work/headers.txt"
expect_metric() { # NAME VALUE
  local v
  v=$(metric "$api" "$1")
  [[ $v == "$2" ]] && pass "$1 = $2" || bad "$1 = '$v', not $2"
}
expect_metric 'pmrag_kafka_dead_letters_total{reason="undecodable"}' 1
expect_metric 'pmrag_kafka_dead_letters_total{reason="refused"}' 1
stop "${pid_of[A]}" A

# ---- 2. a restart consumes nothing again ------------------------------------------
serve B
serve_wait B 30
sleep 3
[[ $(dead_count) -eq 2 && $(seq_of c1) == 2 ]] ||
  fail "after a restart: $(dead_count) dead letters, c1 at seq $(seq_of c1)"
pass "a restart consumes nothing again"
stop "${pid_of[B]}" B

# ---- 3. the broker refuses the dead letter: its offset is not stored -------------
printf 'still not json' >"$work/undecodable2.bin"
ev c1 "step three" 4 >"$work/good3.bin"
produce k-bad2 "$work/undecodable2.bin"
produce c1 "$work/good3.bin"
mock_control "error Produce TOPIC_AUTHORIZATION_FAILED 100000"
serve C
serve_wait C 30
# It waits for the broker (message.timeout.ms=5000 here), then gives up the
# batch; it may stop or keep trying, but must not store the offsets.
for _ in $(seq 150); do running "${pid_of[C]}" || break; sleep 0.1; done
if running "${pid_of[C]}"; then stop "${pid_of[C]}" C; else untrack "${pid_of[C]}"; fi
[[ $(seq_of c1) == 2 ]] || fail "c1 at seq $(seq_of c1) with the dead letter refused, not 2"
grep -q 'dead letters not acknowledged' "$work/C.err" || bad "no error about the dead letters: $(tail -3 "$work/C.err")"
pass "a refused dead letter stores no offset"

mock_control "clear Produce"
serve D
serve_wait D 30
for _ in $(seq 300); do [[ $(dead_count) -ge 3 && $(seq_of c1) == 3 ]] && break; sleep 0.1; done
[[ $(seq_of c1) == 3 ]] || fail "c1 at seq $(seq_of c1) once the broker takes messages, not 3"
[[ $(dead_count) -ge 3 ]] || fail "the refused message never reached the dead-letter topic"
kcat -C -b "$boot" -t dead -o beginning -e -q -f '%k\n' >"$work/keys.txt"
[[ $(grep -c '^k-bad2$' "$work/keys.txt") -ge 1 ]] || fail "k-bad2 not on the dead-letter topic"
kcat -C -b "$boot" -t dead -o 2 -c 1 -e -q -f '%s' >"$work/dead2.bin"
cmp -s "$work/dead2.bin" "$work/undecodable2.bin" || fail "the third dead letter differs from its input"
pass "after the broker recovers: the dead letter delivered, the event applied once"
stop "${pid_of[D]}" D
finish
