#!/usr/bin/env bash
# pmrag serve end to end, driven by clients nobody here wrote:
#  - the OpenTelemetry JS SDK (exporter-trace-otlp-proto, exporter-logs-otlp-http)
#    sending to the OTLP/HTTP receiver,
#  - kcat producing `json` events and OTLP protobuf requests to the embedded
#    Kafka (librdkafka's mock cluster inside the daemon), and consuming the
#    predictions.
# Every event must give exactly one prediction with its case id as key and
# the right seq. Then the HTTP API, a clean stop on SIGTERM, and a restart
# that finds the state where it was.
#
#   serve.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: serve.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
tool="python3 $src/tests/integration/serve_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need kcat node npm
work_init
# (Not otel/: npm's packages, kept between runs.)
work_clean state serve.err serve.ready pred.tsv
extra=()

# The OpenTelemetry JS clients, from npm (cached between runs).
otel=$work/otel
mkdir -p "$otel"
cp "$src/tests/integration/otel/package.json" "$src/tests/integration/otel/send.js" "$otel/"
if [[ ! -d $otel/node_modules/@opentelemetry/exporter-trace-otlp-proto ]]; then
  (cd "$otel" && npm install --no-audit --no-fund --silent >/dev/null 2>&1) ||
    fail "npm install of the OpenTelemetry JS packages failed (is the npm registry reachable?)"
fi

# The demo application, and a log of its real code paths.
demo_setup 60 11
$tool split "$work/log.csv" "$work"

start() {
  serve_start serve --graph "$work/app.graph" \
    --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
    --set kafka.embedded=true --set kafka.output_encoding=json --set kafka.input_encoding=auto \
    --set model.bootstrap_log="$work/train.csv" --set model.learn_online=false \
    --set serve.stage_sample=1 "${extra[@]}"
  serve_wait serve 30
  otlp=$(ready_field serve otlp_http)
  api=$(ready_field serve api)
  boot=$(ready_field serve kafka_bootstrap)
}
start
echo "serve ready: OTLP $otlp, API $api, Kafka $boot"
[[ $otlp != *:0 && $api != *:0 ]] || fail "port 0 not resolved in the ready file"
# The log says which address is the receiver and which the API.
if ! grep -q "http: OTLP receiver .* listening on $otlp " "$work/serve.err" ||
  ! grep -q "http: API .* listening on $api " "$work/serve.err"; then
  fail "serve's log does not say which address is the OTLP receiver and which the API"
fi
curl -fsS "http://$api/readyz" >/dev/null || fail "/readyz not 200 once ready"

# 1. OTLP/HTTP from the OpenTelemetry JS SDK.
(cd "$otel" && node send.js "http://$otlp" "$work/otel.jsonl") || fail "the OTel JS exporters failed"
# 2. kcat: json events keyed by case, and OTLP protobuf requests, one per file.
kcat -P -b "$boot" -t otlp_spans -K $'\t' <"$work/kcat_json.txt" || fail "kcat -P (json) failed"
for f in "$work"/proto/*.pb; do
  case_id=$(basename "$f" .pb)
  case_id=${case_id#*_}
  kcat -P -b "$boot" -t otlp_spans -k "$case_id" "$f" || fail "kcat -P (protobuf) failed"
done

# 3. The predictions, consumed with kcat until every event has one.
want=$(python3 -c "import json,sys; print(sum(json.load(open(sys.argv[1])).values()))" "$work/expected.json")
for _ in $(seq 100); do
  kcat -C -b "$boot" -t pmrag_predictions -o beginning -e -q -f '%k\t%s\n' >"$work/pred.tsv" 2>/dev/null || true
  [[ $(wc -l <"$work/pred.tsv") -ge $want ]] && break
  sleep 0.2
done
$tool check "$work/expected.json" "$work/pred.tsv" || fail "predictions do not match the events"

# 4. The HTTP API.
one=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=sorted(d)[0]; print(c, d[c])" "$work/expected.json")
read -r case_id n <<<"$one"
curl -fsS "http://$api/v1/cases/$case_id" >"$work/case.json" || fail "GET /v1/cases/$case_id"
python3 - "$work/case.json" "$n" <<'PY' || fail "GET /v1/cases: wrong content"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["seq"] == int(sys.argv[2]), c
assert c["prefix"] and c["ranked"], c
PY
code=$(curl -s -o /dev/null -w '%{http_code}' "http://$api/v1/cases/no-such-case")
[[ $code == 404 ]] || fail "unknown case gave $code, not 404"
curl -fsS -X POST "http://$api/v1/query" -H 'Content-Type: application/json' \
  -d '{"trace":["POST /orders","order.place"],"k":3}' >"$work/query.json" || fail "POST /v1/query"
python3 -c "import json,sys; q=json.load(open(sys.argv[1])); assert len(q['ranked'])==3, q" "$work/query.json" ||
  fail "/v1/query: not 3 results"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$api/v1/query" -d '{"trace":5}')
[[ $code == 400 ]] || fail "bad query gave $code, not 400"
curl -fsS "http://$api/metrics" >"$work/metrics.txt" || fail "GET /metrics"
for m in 'pmrag_events_in_total{source="otlp_http"}' 'pmrag_events_in_total{source="kafka"}' \
  pmrag_predictions_out_total pmrag_mapping_coverage pmrag_ppr_seconds_bucket \
  pmrag_event_to_prediction_seconds_bucket pmrag_state_bytes pmrag_state_free_bytes pmrag_kafka_consumer_lag pmrag_build_info; do
  grep -qF "$m" "$work/metrics.txt" || fail "/metrics has no $m"
done
preds=$(awk '/^pmrag_predictions_out_total/ {print $2}' "$work/metrics.txt")
[[ $preds == "$want" ]] || fail "/metrics counts $preds predictions, not $want"
# Where the engine's CPU time went (every event timed): each stage listed,
# the ones every event goes through above zero, and all of them together
# no more than the engine thread's total.
python3 - "$work/metrics.txt" <<'PY' || fail "/metrics: the engine's stages do not add up"
import re, sys
total, stages = None, {}
for line in open(sys.argv[1]):
    m = re.match(r'pmrag_engine_stage_cpu_microseconds_total\{stage="(\w+)"\} (\d+)$', line)
    if m:
        stages[m.group(1)] = int(m.group(2))
    elif line.startswith("pmrag_engine_cpu_microseconds_total "):
        total = int(line.split()[1])
print("engine CPU %s us; stages %s" % (total, stages))
assert set(stages) == {"receive", "case", "window", "mapping", "scoring", "learning", "ppr",
                       "ranking", "encoding", "produce", "cycle"}, stages
assert all(stages[k] > 0 for k in ("case", "window", "mapping", "ppr", "ranking", "encoding",
                                   "produce", "cycle")), stages
assert sum(stages.values()) <= total, (sum(stages.values()), total)
PY
# Memory by component: every one listed; the graph is its file, the
# state store's map is resident for no more than its used size, and what
# loaded the model and maps and ranks with it holds memory.
python3 - "$work/metrics.txt" "$(stat -c %s "$work/app.graph")" <<'PY' || fail "/metrics: memory by component"
import re, sys
parts, used = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'pmrag_memory_bytes\{component="(\w+)"\} (\S+)$', line)
    if m:
        parts[m.group(1)] = float(m.group(2))
    elif line.startswith("pmrag_state_bytes "):
        used = float(line.split()[1])
print("memory by component %s; state used %s" % (parts, used))
assert set(parts) == {"graph", "model", "mapper", "ranking", "window", "batches", "learning",
                      "state"}, parts
size = int(sys.argv[2])
assert size <= parts["graph"] < size + 4096, (parts["graph"], size)
assert 0 < parts["state"] <= used, (parts["state"], used)
assert all(parts[k] > 0 for k in ("model", "mapper", "ranking")), parts
PY
curl -fsS "http://$api/livez" >/dev/null || fail "/livez"

# 5. SIGTERM: drain, commit, exit 0; a restart finds the same state.
stop "$pid"
"$pmrag" state dump --state "$work/state" --json >"$work/dump.jsonl" || fail "state dump"
python3 - "$work/expected.json" "$work/dump.jsonl" <<'PY' || fail "state dump does not match the events"
import json, sys
want = json.load(open(sys.argv[1]))
got = {}
for line in open(sys.argv[2]):
    d = json.loads(line)
    got[d["case_id"]] = d["seq"]
bad = [c for c, n in want.items() if got.get(c) != n]
print("state: %d cases, %d with the wrong seq" % (len(got), len(bad)))
sys.exit(1 if bad else 0)
PY
# The restart learns online and rebuilds the model every 200 events.
extra=(--set model.learn_online=true --set model.rebuild_events=200 --set model.rebuild_seconds=1
  --set model.rebuild_min_seconds=0)
start
curl -fsS "http://$api/v1/cases/$case_id" >"$work/case2.json" || fail "GET /v1/cases after restart"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['seq']==int(sys.argv[2])" "$work/case2.json" "$n" ||
  fail "the restarted daemon lost the case's state"
version() { metric "$api" pmrag_model_version; }
v0=$(version)
# Online learning: the kcat cases once more, as new cases (renamed).
sed 's/^ord_/again_/; s/"case_id": "ord_/"case_id": "again_/' "$work/kcat_json.txt" |
  kcat -P -b "$boot" -t otlp_spans -K $'\t' || fail "kcat -P (second round) failed"
for _ in $(seq 100); do [[ $(version) -gt $v0 ]] && break; sleep 0.1; done
v1=$(version)
[[ $v1 -gt $v0 ]] || fail "no model rebuilt from the stream (version $v0 -> $v1)"
grep -q "windows\|model v$v1 in use" "$work/serve.err" || fail "the rebuild is not logged"
# SIGHUP reloads the model: a new version.
kill -HUP "$pid"
for _ in $(seq 100); do [[ $(version) -gt $v1 ]] && break; sleep 0.1; done
[[ $(version) -gt $v1 ]] || fail "SIGHUP did not reload the model"
echo "model versions: $v0 at start, $v1 after learning online, $(version) after SIGHUP"
stop "$pid"
finish
