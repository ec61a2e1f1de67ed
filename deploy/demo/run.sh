#!/usr/bin/env bash
# make demo: index the bundled orderflow application (Python back end,
# TypeScript/TSX storefront, JavaScript scripts), show what pmrag found, and
# run personalized PageRank and impact on the graph.
# Then: the application's event log (its simulator runs its real code paths),
# the mapping of events to code, eval against the baselines, a mined model
# and a query with explanations; the daemon fed live, and the application
# traced by the OpenTelemetry SDK into two more daemons, blind and
# instrumented, side by side.
#
#   deploy/demo/run.sh [PMRAG] [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
pmrag=${1:-$top/build/cmd/pmrag}
out=${2:-$top/build/demo}
mkdir -p "$out"
graph=$out/orderflow.graph

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; }

# The application traces through the OpenTelemetry API, and its simulator
# and otel_app.py install the SDK: they run on the pinned SDK in
# .deps/otel-venv (deploy/otel-python.sh installs it the first time, from
# PyPI). Without it there is no event log and nothing live: stop here.
py=$top/deploy/otel-python.sh
sdk_version=$("$py" -c 'from importlib.metadata import version; print(version("opentelemetry-sdk"))') || {
  echo "demo: stopped: the demo application runs on the OpenTelemetry Python SDK, which could not be installed (see above)" >&2
  exit 1
}

step pmrag index deploy/demo/app -o build/demo/orderflow.graph
"$pmrag" index "$here/app" -o "$graph"

step pmrag graph stats build/demo/orderflow.graph
"$pmrag" graph stats "$graph"

step "pmrag symbols build/demo/orderflow.graph --kind class,method | grep OrderService"
"$pmrag" symbols "$graph" --kind class,method | grep 'OrderService' | head -12

step pmrag graph show build/demo/orderflow.graph OrderService.place_order
"$pmrag" graph show "$graph" OrderService.place_order

step pmrag graph show build/demo/orderflow.graph CardGateway
"$pmrag" graph show "$graph" payments.CardGateway | head -20

step "pmrag symbols build/demo/orderflow.graph | grep web/src/clients"
"$pmrag" symbols "$graph" | grep 'web/src/clients' | head -8

# Diffusion over the code graph alone (the event log joins it later): what
# place_order reaches, and why.
step pmrag ppr --graph build/demo/orderflow.graph --seed OrderService.place_order -k 5 --explain
"$pmrag" ppr --graph "$graph" --seed OrderService.place_order -k 5 --explain

step pmrag impact build/demo/orderflow.graph PriceCalculator.quote
"$pmrag" impact "$graph" PriceCalculator.quote

# The event log: 600 orders through the real code paths (seeded, simulated
# clock), with the emitting file and line of every record as truth.
log=$out/orderflow.csv
step .deps/otel-venv/bin/python -m orderflow.simulate --orders 600 --seed 7 --out build/demo/orderflow.csv
(cd "$here/app/python" && "$py" -m orderflow.simulate --orders 600 --seed 7 --out "$log" | tail -4)

step "pmrag map --graph build/demo/orderflow.graph --log build/demo/orderflow.csv --top 6"
"$pmrag" map --graph "$graph" --log "$log" --top 6 -q

model=$out/orderflow.model
step pmrag mine --graph build/demo/orderflow.graph --log build/demo/orderflow.csv -o build/demo/orderflow.model
"$pmrag" mine --graph "$graph" --log "$log" -o "$model" -q

step "pmrag query --graph build/demo/orderflow.graph --model build/demo/orderflow.model --trace 'POST /orders,order.place' -e 'placing order ord_1 for customer cus_9: 2 line(s), paying by card' -k 3 --explain"
"$pmrag" query --graph "$graph" --model "$model" --trace 'POST /orders,order.place' \
  -e 'placing order ord_1 for customer cus_9: 2 line(s), paying by card' -k 3 --explain

# The daemon: the application live. 40 new orders (another seed) go in as
# production traffic would: half over OTLP/HTTP, half through Kafka (the
# embedded cluster, so the real Kafka code path runs with nothing
# installed). Every event gives a prediction on the output topic and, here,
# on stdout.
live=$out/live.csv
state=$out/state
rm -rf "$state" "$out/ready.json" "$out/live.jsonl"
(cd "$here/app/python" && "$py" -m orderflow.simulate --orders 40 --seed 99 --out "$live" >/dev/null)
step "pmrag serve --graph build/demo/orderflow.graph --model build/demo/orderflow.model --set serve.stdout=true --ready-file build/demo/ready.json ... &"
"$pmrag" serve --graph "$graph" --model "$model" --set state.dir="$state" \
  --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set serve.stdout=true \
  --set otlp.grpc_listen=127.0.0.1:0 --set kafka.embedded=true --set kafka.output_encoding=json --ready-file "$out/ready.json" \
  >"$out/live.jsonl" 2>"$out/serve.log" &
serve_pid=$!
trap 'kill -9 $serve_pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do [[ -s $out/ready.json ]] && break; sleep 0.1; done
[[ -s $out/ready.json ]] || { cat "$out/serve.log" >&2; echo "demo: pmrag serve did not start" >&2; exit 1; }
cat "$out/ready.json"
ready() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$out/ready.json" "$1"; }
otlp=$(ready otlp_http) api=$(ready api) boot=$(ready kafka_bootstrap)
echo "${bold}live view: http://$api/${plain}  (open it in a browser and watch the cases come in)"


step "deploy/demo/feed.py build/demo/live.csv \$OTLP 0 40 | kcat -P -b \$KAFKA -t otlp_spans -K\$'\\t'"
python3 "$here/feed.py" "$live" "$otlp" 0 40 | kcat -P -b "$boot" -t otlp_spans -K $'\t'
want=$(($(wc -l <"$live") - 1))
for _ in $(seq 600); do [[ $(wc -l <"$out/live.jsonl") -ge $want ]] && break; sleep 0.1; done
echo "$(wc -l <"$out/live.jsonl") predictions for $want events"

step "kcat -C -b \$KAFKA -t pmrag_predictions -c 1 -f 'key %k: %s'  (one prediction, as other tools read it)"
kcat -C -b "$boot" -t pmrag_predictions -o beginning -c 1 -q -f 'key %k: %s\n' | cut -c1-400

step "how two cases advanced (top 3 after each event, and what they expect to emit)"
python3 "$here/show.py" "$out/live.jsonl" "$live" 2 6

case_id=$(head -1 "$out/live.jsonl" | python3 -c "import json,sys; print(json.load(sys.stdin)['case_id'])")
step "curl http://\$API/v1/cases/$case_id"
curl -fsS "http://$api/v1/cases/$case_id" | python3 -c "
import json,sys; c=json.load(sys.stdin)
print('seq', c['seq'], ' last', c['last_time'], ' model', c['model_version'])
print('last activities:', ' > '.join(c['prefix'][-4:]))
for r in c['ranked'][:3]: print('  %.4f  %s  %s:%d-%d' % (r['score'], r['symbol'], r['file'], r['start_line'], r['end_line']))"
step "curl http://\$API/metrics | grep -E '^pmrag_(events_in|predictions_out|mapping_coverage|predictions_scored|prediction_hits)'"
curl -fsS "http://$api/metrics" | grep -E '^pmrag_(events_in|predictions_out|mapping_coverage|predictions_scored|prediction_hits)'

# The daemon keeps score: each prediction is scored when its case's next
# event arrives (here against the mapping: the feed sends no code.*).
step "curl http://\$API/v1/stats  (online accuracy)"
curl -fsS "http://$api/v1/stats" | python3 -c "
import json,sys; s=json.load(sys.stdin); n=s['scored'] or 1
print('scored %d predictions: top-1 %.3f  top-3 %.3f  top-10 %.3f  MRR %.3f' % (s['scored'],
      s['hits']['1']/n, s['hits']['3']/n, s['hits']['10']/n, s['mrr']))"

# The application traced by the real OpenTelemetry Python SDK: 40 orders
# (seed 99 again), their spans and log records exported over OTLP/HTTP
# while it runs to two more daemons. Both learn online; "blind" maps events
# to code from the graph alone (map.code_attrs=false), "instrumented" also
# learns from the code.* attributes the SDK's logging handler writes (and,
# on spans, the simulator's span processor). Both are scored against those
# attributes.
serve_sdk() { # NAME CODE_ATTRS
  rm -rf "$out/$1" "$out/$1.json"
  "$pmrag" serve --graph "$graph" --model "$model" --set state.dir="$out/$1" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set otlp.grpc_listen=127.0.0.1:0 \
    --set map.code_attrs="$2" --set model.rebuild_events=200 --set model.rebuild_seconds=2 \
    --set model.rebuild_min_seconds=1 --ready-file "$out/$1.json" 2>"$out/$1.log" &
}
serve_sdk blind false
blind_pid=$!
serve_sdk instrumented true
instr_pid=$!
trap 'kill -9 $serve_pid $blind_pid $instr_pid 2>/dev/null || true' EXIT
for _ in $(seq 300); do [[ -s $out/blind.json && -s $out/instrumented.json ]] && break; sleep 0.1; done
[[ -s $out/blind.json && -s $out/instrumented.json ]] || { cat "$out/blind.log" "$out/instrumented.log" >&2; echo "demo: pmrag serve did not start" >&2; exit 1; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$out/$1.json" "$2"; }
step "deploy/demo/otel_app.py --orders 40 --seed 99 --endpoint \$BLIND --endpoint \$INSTRUMENTED  (the OpenTelemetry SDK $sdk_version)"
"$py" "$here/otel_app.py" --orders 40 --seed 99 --endpoint "$(field blind otlp_http)" \
  --endpoint "$(field instrumented otlp_http)" --manifest "$out/sdk.jsonl"
python3 - "$out/sdk.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
spans = sum(r["signal"] == "span" for r in rows)
print("%d cases: %d spans and %d log records; the first case as pmrag received it:" %
      (len({r["case"] for r in rows}), spans, len(rows) - spans))
first = [r for r in rows if r["case"] == rows[0]["case"]]
for i, r in enumerate(first[:8], 1):
    print("  %2d  %-4s %s" % (i, r["signal"], r["activity"].split("\n")[0][:70]))
PY
# Event time holds each case's newest events for serve.reorder_ms (1 s)
# before applying them: the scores are read once none is held.
for d in blind instrumented; do
  for _ in $(seq 100); do
    held=$(curl -fsS "http://$(field $d api)/metrics" | awk '$1 == "pmrag_events_held" { print $2 }')
    [[ ${held:-1} == 0 ]] && break
    sleep 0.1
  done
done
step "curl \$BLIND/v1/stats; curl \$INSTRUMENTED/v1/stats  (online accuracy, against the events' code.*)"
for d in blind instrumented; do
  curl -fsS "http://$(field $d api)/v1/stats" | python3 -c "
import json,sys; s=json.load(sys.stdin); n=s['scored'] or 1
print('%-13s scored %d predictions: top-1 %.3f  top-3 %.3f  top-10 %.3f  MRR %.3f' % (sys.argv[1],
      s['scored'], s['hits']['1']/n, s['hits']['3']/n, s['hits']['10']/n, s['mrr']))" "$d"
done
kill -TERM "$blind_pid" "$instr_pid"
wait "$blind_pid" "$instr_pid"
trap 'kill -9 $serve_pid 2>/dev/null || true' EXIT

step pmrag eval --graph build/demo/orderflow.graph --log build/demo/orderflow.csv
"$pmrag" eval --graph "$graph" --log "$log" -q

# The same with the log's code.* columns learned from, as instrumented
# events give them (--learn-code-attrs; the pmrag line only).
step "pmrag eval --graph build/demo/orderflow.graph --log build/demo/orderflow.csv --learn-code-attrs | grep -E 'top-1|^pmrag'"
"$pmrag" eval --graph "$graph" --log "$log" -q --learn-code-attrs | grep -E 'top-1|^pmrag'

# Interactive: the daemon stays up for the live view until Enter.
if [[ -t 0 && -t 1 ]]; then
  printf '\n%slive view: http://%s/%s  (the daemon runs until you press Enter)\n' "$bold" "$api" "$plain"
  read -r _ || true
else
  echo "live view was at http://$api/ (run make demo in a terminal to keep the daemon up)"
fi
kill -TERM "$serve_pid"
wait "$serve_pid"
trap - EXIT
