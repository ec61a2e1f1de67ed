#!/usr/bin/env bash
# Two instances in one group (kafka.changelog, model.learn_online) share the
# counts they learn online through <group>-follows: each merges exactly the
# windows the other shared, and a restart does not merge them again.
# Windows with activities learnt online (not in the base model: ids of the
# instance's own) go with their texts: one case whose new message is always
# followed by order.place, read by one instance only, teaches the other
# that order.place comes next (its answer to a query equals the owner's).
#
#   follows_share.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: follows_share.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat
work_init
work_clean A B '*.err' '*.ready'

demo_setup 300 5
demo_model "$work/log.csv"
# The live traffic: the first 4000 events of the log, keyed by case.
python3 - "$work" <<'PY'
import csv, json, sys
w = sys.argv[1]
with open(f"{w}/ev.kcat", "w") as f:
    for r in list(csv.DictReader(open(f"{w}/log.csv")))[:4000]:
        ev = {k: r[k] for k in ("case_id", "activity", "timestamp", "level", "logger")}
        f.write(r["case_id"] + "\t" + json.dumps(ev) + "\n")
PY

mock_start --partitions 4 --topic events --topic pmrag_predictions --topic g-cases-changelog \
  --topic g-follows

serve() { # NAME [--set K=V ...]: starts an instance on state NAME, in the background
  local name=$1
  shift
  serve_start "$name" --graph "$work/app.graph" --model "$work/app.model" --set state.dir="$work/$name" \
    --set otlp.listen= --set api.listen=127.0.0.1:0 --set kafka.brokers="$boot" \
    --set kafka.input_topics=events --set kafka.input_encoding=json --set kafka.group=g \
    --set kafka.changelog=true --set model.learn_online=true \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500" "$@"
}
# settle N: until A and B have taken N events in between them, hold none
# back in the event-time window (their windows are learnt as they are
# applied) and each has merged every window the other shared (30 s); sets
# ina inb sa sb ma mb.
settle() {
  local ha hb
  for _ in $(seq 150); do
    ina=$(ready_metric A pmrag_events_in_total'{source="kafka"}')
    inb=$(ready_metric B pmrag_events_in_total'{source="kafka"}')
    ha=$(ready_metric A pmrag_events_held) hb=$(ready_metric B pmrag_events_held)
    sa=$(ready_metric A pmrag_follows_shared_total) sb=$(ready_metric B pmrag_follows_shared_total)
    ma=$(ready_metric A pmrag_follows_merged_total) mb=$(ready_metric B pmrag_follows_merged_total)
    [[ $((ina + inb)) -eq $1 && ${ha:-1} == 0 && ${hb:-1} == 0 && $ma -eq $sb && $mb -eq $sa ]] && return
    sleep 0.2
  done
}

serve A
serve B
serve_wait A 30
serve_wait B 30
kcat -P -b "$boot" -t events -K $'\t' <"$work/ev.kcat"
settle 4000
echo "events: A $ina, B $inb; windows shared: A $sa, B $sb; merged: A $ma (of B's), B $mb (of A's)"
[[ $((ina + inb)) -eq 4000 ]] || fail "$((ina + inb)) events applied, not 4000"
[[ $ina -gt 0 && $inb -gt 0 ]] || fail "one instance got no partition"
[[ $sa -gt 0 && $sb -gt 0 ]] || fail "nothing shared"
[[ $ma -eq $sb && $mb -eq $sa ]] || fail "merged counts differ from the shared ones"
# A restart of A resumes <group>-follows where its state is: nothing again.
stop "${pid_of[A]}" A
serve A
serve_wait A 30
sleep 2
ma2=$(ready_metric A pmrag_follows_merged_total)
echo "after a restart, A merged $ma2 windows again"
[[ $ma2 -eq 0 ]] || fail "A merged $ma2 windows again after its restart"

# ---- windows of activities learnt online ----
kill -TERM "${pid_of[A]}" "${pid_of[B]}"
stop "${pid_of[A]}" A
stop "${pid_of[B]}" B
fast=(--set model.rebuild_events=100 --set model.rebuild_seconds=1 --set model.rebuild_min_seconds=0)
serve A "${fast[@]}"
serve B "${fast[@]}"
serve_wait A 30
serve_wait B 30
robot="robot 17 docked at bay 4"
python3 - "$robot" >"$work/robot.kcat" <<'PY'
import json, sys
for i in range(300):
    act = sys.argv[1] if i % 2 == 0 else "order.place"
    ev = {"case_id": "zz-robot", "activity": act, "timestamp": "2024-03-05T00:%02d:%02dZ" % (i // 60, i % 60)}
    print("zz-robot\t" + json.dumps(ev))
PY
kcat -P -b "$boot" -t events -K $'\t' <"$work/robot.kcat"
settle 300
echo "online activities: events A $ina, B $inb; windows shared: A $sa, B $sb; merged: A $ma, B $mb"
[[ $((ina + inb)) -eq 300 && ($ina -eq 0 || $inb -eq 0) ]] || fail "the case's events went to both or got lost"
[[ $ma -eq $sb && $mb -eq $sa && $((sa + sb)) -gt 0 ]] || fail "windows with online activities were not merged"
owner=A other=B
[[ $inb -eq 300 ]] && owner=B other=A
# Both rebuild their models within a second or two of the last window.
query() { # NAME: the top-1 symbol for a trace of the new message alone
  curl -fsS -X POST "http://$(ready_field "$1" api)/v1/query" -d "{\"trace\":[\"$robot\"],\"k\":3}" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["ranked"]; print(r[0]["symbol"] if r else "none")'
}
for _ in $(seq 50); do
  top_o=$(query $owner) top_x=$(query $other)
  [[ $top_o == "$top_x" && $top_o != none ]] && break
  sleep 0.2
done
echo "after '$robot': $owner (read the case) ranks $top_o first, $other (merged its windows) $top_x"
[[ $top_o == *place_order* ]] || fail "the owner does not predict order.place's emitter after the new message"
[[ $top_x == "$top_o" ]] || fail "$other did not learn the window of the new activity from $owner"
kill -TERM "${pid_of[A]}" "${pid_of[B]}"
stop "${pid_of[A]}" A
stop "${pid_of[B]}" B
finish
