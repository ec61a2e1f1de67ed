#!/usr/bin/env bash
# Event time against what exporters really send (tests/integration/
# event_time.py writes the requests):
#  1. Two services of one order whose clocks are 3 s apart (service B
#     ahead, then behind), each exporting as an SDK does: log records as
#     they are logged, spans as they end, the root span last. A daemon with
#     event time (serve.reorder_ms) must give each case, in /v1/cases/{id},
#     the prefix of the same eight events sent in their true order, on one
#     clock (to a daemon applying events as they come); the daemon with
#     serve.reorder_ms=0 must not (it applies them as they arrived: the
#     check above would pass for nothing otherwise).
#  2. A retried batch: the same request sent again (answered as a
#     duplicate request, not applied), then the same spans and log records
#     again in other requests, with new ones: each event applied once
#     (seq 7 of 7 distinct events), pmrag_events_duplicate_total 4.
#  3. A grace cut to 0 across a restart: events a daemon held when it
#     stopped are applied, in their order, by the next run on the same
#     state with serve.reorder_ms=0 (not left held for ever).
#
#   event_time.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: event_time.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
tool="python3 $src/tests/integration/event_time.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean 'state-*' '*.err' '*.ready' 'req-*'

# The order's code: one log call per activity event_time.py sends.
mkdir -p "$work/repo"
cat >"$work/repo/stages.py" <<'PY'
import logging

log = logging.getLogger(__name__)


def handle():
    log.info("request received")
    validate()
    reserve()
    ship()


def validate():
    log.info("payload validated")


def reserve():
    log.info("stock reserved")
    log.info("stock row locked")
    log.info("reservation written")


def ship():
    log.info("shipment queued")
    log.info("label printed")
    log.info("response sent")
PY
"$pmrag" index "$work/repo" -o "$work/g.graph" -q || fail "pmrag index"

# daemon NAME ARG...: an instance on state-NAME, no Kafka, no learning.
daemon() {
  local name=$1
  shift
  serve_start "$name" --graph "$work/g.graph" --set state.dir="$work/state-$name" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set model.learn_online=false "$@"
}
# A grace of 5 s for event time: each request waits for its commit, and on
# a loaded machine a case's four requests can take longer than the default
# 1 s, which would test a parent that comes after its children were
# applied (they keep the place they were given then) rather than clocks.
daemon evt --set serve.reorder_ms=5000
daemon arr --set serve.reorder_ms=0
serve_wait evt 30
serve_wait arr 30
# send NAME DIR: DIR's requests, in order, to daemon NAME; each must get a 200.
send() {
  local f code url
  url=http://$(ready_field "$1" otlp_http)
  for f in "$2"/*.json; do
    code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
      --data-binary "@$f" "$url/v1/$(basename "$f" .json | cut -d_ -f2)") || code=000
    [[ $code == 200 ]] || fail "POST $f to $1: $code"
  done
}
# prefix NAME CASE: the case's activities in daemon NAME, one line of JSON.
prefix() {
  curl -fsS -m 5 "http://$(ready_field "$1" api)/v1/cases/$2" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps([d["seq"], d["prefix"]]))'
}

# 1. Two services, clocks 3 s apart.
$tool truth "$work/req-truth" truth || fail "event_time.py truth"
send arr "$work/req-truth"
want=$(prefix arr truth)
echo "true order: $want"
for skew in 3000 -3000; do
  c=skew$skew
  $tool skew "$work/req-$c" "$c" "$skew" || fail "event_time.py skew"
  send evt "$work/req-$c"
  send arr "$work/req-$c"
done
held_wait evt
for skew in 3000 -3000; do
  got=$(prefix evt "skew$skew")
  [[ $got == "$want" ]] && pass "service B ${skew} ms off: the true order in event time" ||
    bad "service B ${skew} ms off: $got in event time"
  got=$(prefix arr "skew$skew")
  [[ $got != "$want" ]] && pass "service B ${skew} ms off: another order as the events arrived" ||
    bad "service B ${skew} ms off: the true order even as the events arrived (the check proves nothing)"
done

# 2. A retried batch.
$tool retry "$work/req-retry" retry-1 || fail "event_time.py retry"
api=$(ready_field evt api)
send evt "$work/req-retry"
held_wait evt
# Released is not yet committed: the case is read until it has all 7 (or
# 10 s pass), then once more, so that an eighth would show.
seq_retry() { curl -fsS -m 5 "http://$api/v1/cases/retry-1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["seq"])'; }
for _ in $(seq 100); do
  [[ $(seq_retry) -ge 7 ]] 2>/dev/null && break
  sleep 0.1
done
sleep 0.5
seq=$(seq_retry)
reqs=$(metric "$api" pmrag_otlp_duplicate_requests_total)
dups=$(metric "$api" pmrag_events_duplicate_total)
echo "retried batch: seq $seq, duplicate requests ${reqs:-none}, duplicate events ${dups:-none}"
[[ $seq == 7 ]] && pass "a retried batch: each of its 7 events applied once" ||
  bad "a retried batch: seq $seq, want 7"
[[ ${reqs:-0} == 1 && ${dups:-0} == 4 ]] &&
  pass "the same request answered as a duplicate, 4 events received again counted" ||
  bad "duplicates: requests ${reqs:-none} (want 1), events ${dups:-none} (want 4)"

stop "${pid_of[evt]}"
stop "${pid_of[arr]}"

# 3. Held at a stop, applied by a run without a grace.
daemon long --set serve.reorder_ms=600000
serve_wait long 30
$tool skew "$work/req-long" long 3000 || fail "event_time.py skew"
send long "$work/req-long"
held=$(ready_metric long pmrag_events_held)
[[ ${held:-0} -gt 0 ]] || fail "the daemon with a 10-minute grace holds nothing back (${held:-none})"
stop "${pid_of[long]}"
daemon long --set serve.reorder_ms=0
serve_wait long 30
held_wait long
got=$(prefix long long)
[[ $got == "$want" ]] && pass "$held events held at a stop: applied in the true order with serve.reorder_ms=0" ||
  bad "held at a stop, then serve.reorder_ms=0: $got"
stop "${pid_of[long]}"
finish
