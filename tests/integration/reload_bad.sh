#!/usr/bin/env bash
# A bad reload keeps the good model. `pmrag serve` runs on a graph and a
# model, both files written over in place (as `cp` and most deploy tools
# do) with something it cannot use, then sent SIGHUP:
#  1. the model truncated; 2. the model with a format version this build
#     does not read; 3. the graph truncated; 4. the graph with another
#     format version;
# each time the daemon must keep serving the graph and model it has (the
# model version unchanged, the next event applied and predicted, a case's
# ranking and its explanation answered: those read the graph's symbols),
# log why naming the file, and count it in
# pmrag_model_reloads_total{result="refused"}. Then the good files back:
# SIGHUP loads them (a new model version, result="loaded").
#
#   reload_bad.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: reload_bad.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean state '*.err' '*.ready' '*.csv' live.graph live.model good.model

# The steps of lib.sh's steps_graph, in a repository large enough that
# its graph file spans many pages (a truncated mapping of it faults).
mkdir -p "$work/repo"
python3 - "$work/repo" <<'PY'
import sys
with open(sys.argv[1] + "/steps.py", "w") as f:
    f.write("import logging\n\nlog = logging.getLogger(__name__)\n")
    for name, text in (("one", "step one"), ("two", "step two"), ("three", "step three"),
                       ("close", "case closed")):
        f.write("\n\ndef %s():\n    log.info(%r)\n" % (name, text))
with open(sys.argv[1] + "/filler.py", "w") as f:
    for i in range(3000):
        f.write("def helper_%d(x):\n    return helper_%d(x) + %d\n\n\n" % (i, (i + 1) % 3000, i))
PY
"$pmrag" index "$work/repo" -o "$work/g.graph" -q || fail "pmrag index"
# A model of the steps: cases one, two, three (and some that close).
python3 - "$work/log.csv" <<'PY'
import sys
acts = ["step one", "step two", "step three", "case closed"]
with open(sys.argv[1], "w") as f:
    f.write("case_id,timestamp,activity\n")
    for c in range(40):
        for i, a in enumerate(acts[: 3 + c % 2]):
            f.write("c%02d,2024-01-01T00:%02d:%02dZ,%s\n" % (c, c, i, a))
PY
"$pmrag" mine --graph "$work/g.graph" --log "$work/log.csv" -o "$work/good.model" -q ||
  fail "pmrag mine"
cp "$work/g.graph" "$work/live.graph"
cp "$work/good.model" "$work/live.model"

serve_start serve --graph "$work/live.graph" --model "$work/live.model" \
  --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
  --set kafka.embedded=false --set model.learn_online=false
serve_wait serve 30
otlp=$(ready_field serve otlp_http)
api=$(ready_field serve api)

# post CASE ACTIVITY: one span, answered 200 (the event committed).
post() {
  local body
  body=$(printf '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%032x","spanId":"%016x","name":"%s","startTimeUnixNano":"%s","attributes":[{"key":"case.id","value":{"stringValue":"%s"}}]}]}]}]}' \
    $((RANDOM + 1)) $((RANDOM + 1)) "$2" "$(date +%s%N)" "$1")
  [[ $(curl -s -o /dev/null -m 30 -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "http://$otlp/v1/traces") == 200 ]]
}
version() { metric "$api" pmrag_model_version; }
reloads() { metric "$api" "pmrag_model_reloads_total{result=\"$1\"}"; }
alive() { running "$pid" || fail "serve exited: $(grep -v ': info: ' "$work/serve.err" | tail -3)"; }

post c1 "step one" || fail "the first event was not accepted"
held_wait serve
got=$(case_seq_wait "$api" c1 1) || fail "case c1 at seq $got, not 1"
v0=$(version)
n=1

# bad NAME FILE DAMAGE: FILE (live.graph or live.model) damaged in place
# by DAMAGE (truncate, version), then SIGHUP; the daemon must go on as
# before, say why naming the file, and count the refusal.
bad_reload() {
  local name=$1 file=$work/$2 damage=$3 r0 lines r1 why got
  r0=$(reloads refused)
  lines=$(wc -l <"$work/serve.err")
  case $damage in
    truncate) truncate -s $(($(stat -c %s "$file") / 2)) "$file" ;;
    version) printf '\x63\x00\x00\x00' | dd of="$file" bs=1 seek=8 conv=notrunc status=none ;;
  esac
  kill -HUP "$pid"
  for _ in $(seq 100); do
    [[ $(reloads refused) -gt ${r0:-0} ]] 2>/dev/null && break
    running "$pid" || break
    sleep 0.05
  done
  alive
  r1=$(reloads refused)
  [[ ${r1:-0} -gt ${r0:-0} ]] 2>/dev/null || bad "$name: refusal not counted (pmrag_model_reloads_total{result=\"refused\"} ${r0:-none} -> ${r1:-none})"
  why=$(tail -n +$((lines + 1)) "$work/serve.err" | grep -v ': info: ' | grep -F "$file" | head -1 || true)
  if [[ -n $why ]]; then pass "$name: refused, logged: ${why#*: }"; else bad "$name: no log line naming $file"; fi
  [[ $(version) == "$v0" ]] || bad "$name: the model version changed ($v0 -> $(version))"
  # Still serving: a new event applied and predicted, the case and an
  # explanation answered (both read the graph's symbols).
  n=$((n + 1))
  local acts=("step one" "step two" "step three")
  post c1 "${acts[$(((n - 1) % 3))]}" || bad "$name: an event after the bad reload was refused"
  alive
  held_wait serve
  got=$(case_seq_wait "$api" c1 "$n") || bad "$name: case c1 at seq $got, not $n"
  curl -fsS -m 5 "http://$api/v1/cases/c1" | grep -q '"ranked":\[{' ||
    bad "$name: GET /v1/cases/c1 has no ranking"
  curl -fsS -m 5 "http://$api/v1/cases/c1/explain?rank=1" >/dev/null ||
    bad "$name: GET /v1/cases/c1/explain failed"
  alive
}

bad_reload "model truncated" live.model truncate
cp "$work/good.model" "$work/live.model"
bad_reload "model of another format version" live.model version
cp "$work/good.model" "$work/live.model"
bad_reload "graph truncated" live.graph truncate
cp "$work/g.graph" "$work/live.graph"
bad_reload "graph of another format version" live.graph version
cp "$work/g.graph" "$work/live.graph"

# The good files again: loaded.
l0=$(reloads loaded)
kill -HUP "$pid"
for _ in $(seq 100); do
  [[ $(version) -gt $v0 ]] 2>/dev/null && break
  sleep 0.05
done
alive
if [[ $(version) -gt $v0 && $(reloads loaded) -gt ${l0:-0} ]] 2>/dev/null; then
  pass "good files: loaded (model version $v0 -> $(version), result=\"loaded\" counted)"
else
  bad "good files: not loaded (model version $v0 -> $(version), loaded ${l0:-none} -> $(reloads loaded))"
fi
post c1 "step one" || bad "an event after the good reload was refused"
stop "$pid"
finish
