#!/usr/bin/env bash
# A real OpenTelemetry Collector between an application and pmrag (ctest
# label `collector`; `make collector`). The Collector is the one
# deploy/deps.sh --collector builds, run with deploy/collector/otelcol.yaml
# (tests/collector/lib.sh). pmrag runs with deploy/compose/pmrag.yaml and
# --set for what differs on one machine (addresses, state, topics). Kafka
# is one Apache Kafka node (tests/kafka/broker.sh). Four rounds, each with
# its own Collector, pmrag and cases (COLLECTOR_CASES traces, 2-5 spans and
# 1-3 log records each, sent by tests/collector/app.py as OTLP/HTTP JSON):
#   otlphttp  Collector -> otlp_http exporter (protobuf, gzip) -> pmrag's
#             OTLP/HTTP receiver; predictions from serve.stdout;
#   otlpgrpc  Collector -> otlp_grpc exporter (gRPC, gzip) -> pmrag's
#             OTLP/gRPC receiver; predictions from serve.stdout, and every
#             call answered OK (pmrag_otlp_grpc_requests_total);
#   proto     Collector -> kafka exporter, encoding otlp_proto,
#             partition_traces_by_id and partition_logs_by_trace_id ->
#             otlp_spans, otlp_logs (4 partitions each) -> pmrag
#             (kafka.input_encoding=otlp_proto) -> pmrag_predictions;
#   json      the same with otlp_json, on otlp_spans_json and
#             otlp_logs_json, kafka.input_encoding=otlp_json;
#   and in both Kafka rounds a second pmrag (another group) on the same
#   topics with kafka.input_encoding=auto.
# Each round passes when every event has exactly one prediction with its
# case (the trace id) and seq (tests/collector/verdict.py), and pmrag
# rejected no record; the Kafka rounds also check that the exporter keyed
# each message by its trace id, so that a trace's messages share one
# partition. verdict.py itself is shown to fail on a prediction dropped
# and one repeated.
#
#   collector.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: collector.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
# shellcheck source=tests/collector/lib.sh
. "$src/tests/collector/lib.sh"
need kcat python3
work_init
work_clean 'state-*' '*.err' '*.out' '*.ready' '*.tsv' '*.json' '*.msgs' '*.keys*' 'otelcol-*'
LOG_TAIL=10 LOG_SKIP=CONFWARN
cases=${COLLECTOR_CASES:-40}
here=$src/tests/collector
t_start=$(now)

# The Collector, built (or found in the cache).
t=$(now)
collector_bin
echo "collector: $("$otelcol" --version) ($otelcol), ready in $(since "$t") s"
config=$src/deploy/collector/otelcol.yaml
"$otelcol" validate --config="$config" >"$work/validate.out" 2>&1 ||
  fail "otelcol validate: $(tail -5 "$work/validate.out")"
pass "otelcol validate --config=deploy/collector/otelcol.yaml"

"$pmrag" index "$src/deploy/demo/app" -o "$work/app.graph" -q || fail "pmrag index"

# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
kafka_start 1
kafka_admin create otlp_spans:4:1 otlp_logs:4:1 otlp_spans_json:4:1 otlp_logs_json:4:1 \
  pmrag_predictions:4:1 pmrag_predictions_json:4:1 pmrag_predictions_auto:4:1 \
  pmrag_predictions_json_auto:4:1 >/dev/null || fail "creating the topics"

# collector_quiet NAME: a check that the Collector of round NAME logged no
# warning or error (a deprecated setting, a refused export, a retry).
collector_quiet() {
  local w
  w=$(grep -cP '\t(warn|error)\t' "$work/otelcol-$1.log" || true)
  if [[ $w == 0 ]]; then
    pass "$1: the Collector logged no warning or error"
  else
    bad "$1: the Collector logged $w warnings or errors:"
    grep -P '\t(warn|error)\t' "$work/otelcol-$1.log" | cut -f2- | cut -c1-200 | head -5
  fi
}
# collector_counts EXPORTER: what the Collector's EXPORTER sent and failed.
collector_counts() {
  echo "$(collector_metric otelcol_exporter_sent_spans "$1") spans and" \
    "$(collector_metric otelcol_exporter_sent_log_records "$1") log records sent by its $1 exporter," \
    "$(($(collector_metric otelcol_exporter_send_failed_spans "$1") + $(collector_metric otelcol_exporter_send_failed_log_records "$1"))) failed"
}
# wait_lines FILE N CMD...: runs CMD (which rewrites FILE) until FILE has N
# lines or more, 60 s at most (wall clock: a kcat on an empty topic takes
# a second or two); then once more 2 s later (anything beyond N would be a
# duplicate).
wait_lines() {
  local file=$1 n=$2 end=$((SECONDS + 60))
  shift 2
  while ((SECONDS < end)); do
    "$@"
    (($(wc -l <"$file") >= n)) && break
    sleep 0.5
  done
  sleep 2
  "$@"
}
events_of() { python3 -c 'import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1])).values()))' "$1"; }
pmrag_base=(--graph "$work/app.graph" --config "$src/deploy/compose/pmrag.yaml"
  --set api.listen=127.0.0.1:0 --set model.learn_online=false)

# round_verdict NAME SENT PREDS FORMAT: verdict.py, then pmrag's rejected
# records (none), as checks.
round_verdict() {
  local name=$1
  if python3 "$here/verdict.py" "$2" "$3" "$4" >"$work/$name.verdict"; then
    pass "$name: $(head -1 "$work/$name.verdict"): every event exactly one prediction, right case and seq"
  else
    bad "$name: $(head -1 "$work/$name.verdict")"
    tail -n +2 "$work/$name.verdict"
  fi
  local rej
  rej=$(ready_metric "$name" 'pmrag_records_rejected_total{source="'"$5"'"}')
  if [[ ${rej:-0} == 0 ]]; then
    pass "$name: pmrag rejected no record (source $5)"
  else
    bad "$name: pmrag rejected $rej records (source $5)"
  fi
}

# ---- otlphttp: Collector -> pmrag's OTLP/HTTP receiver ----
t=$(now)
serve_start otlphttp "${pmrag_base[@]}" --set state.dir="$work/state-otlphttp" \
  --set otlp.listen=127.0.0.1:0 --set kafka.brokers= --set kafka.embedded=false \
  --set serve.stdout=true >"$work/otlphttp.out"
serve_wait otlphttp 60
collector_start otlphttp OTELCOL_EXPORTERS='[otlp_http, debug]' \
  PMRAG_OTLP="http://$(ready_field otlphttp otlp_http)"
python3 "$here/app.py" "http://127.0.0.1:$col_http" "$cases" 1 otlphttp "$work/otlphttp.json" ||
  fail "the application could not export to the Collector"
n=$(events_of "$work/otlphttp.json")
wait_lines "$work/otlphttp.out" "$n" true
echo "otlphttp: Collector: $(collector_counts otlp_http)"
round_verdict otlphttp "$work/otlphttp.json" "$work/otlphttp.out" stdout otlp_http
stop "$col_pid" "the Collector"
collector_quiet otlphttp
stop "${pid_of[otlphttp]}" otlphttp
echo "otlphttp: $(since "$t") s"

# ---- otlpgrpc: Collector -> pmrag's OTLP/gRPC receiver ----
t=$(now)
serve_start otlpgrpc "${pmrag_base[@]}" --set state.dir="$work/state-otlpgrpc" \
  --set otlp.listen= --set otlp.grpc_listen=127.0.0.1:0 --set kafka.brokers= \
  --set kafka.embedded=false --set serve.stdout=true >"$work/otlpgrpc.out"
serve_wait otlpgrpc 60
collector_start otlpgrpc OTELCOL_EXPORTERS='[otlp_grpc, debug]' \
  PMRAG_OTLP_GRPC="$(ready_field otlpgrpc otlp_grpc)"
python3 "$here/app.py" "http://127.0.0.1:$col_http" "$cases" 3 otlpgrpc "$work/otlpgrpc.json" ||
  fail "the application could not export to the Collector"
n=$(events_of "$work/otlpgrpc.json")
wait_lines "$work/otlpgrpc.out" "$n" true
echo "otlpgrpc: Collector: $(collector_counts otlp_grpc)"
round_verdict otlpgrpc "$work/otlpgrpc.json" "$work/otlpgrpc.out" stdout otlp_grpc
ok=$(ready_metric otlpgrpc 'pmrag_otlp_grpc_requests_total{code="OK"}')
refused=$(curl -s -m 5 "http://$(ready_field otlpgrpc api)/metrics" |
  awk '$1 ~ /^pmrag_otlp_grpc_requests_total\{/ && $1 !~ /"OK"/ { s += $2 } END { print s + 0 }')
if [[ ${ok:-0} -gt 0 && $refused == 0 ]]; then
  pass "otlpgrpc: pmrag answered $ok gRPC calls OK, refused none"
else
  bad "otlpgrpc: gRPC calls OK ${ok:-0}, refused $refused"
fi
stop "$col_pid" "the Collector"
collector_quiet otlpgrpc
stop "${pid_of[otlpgrpc]}" otlpgrpc
echo "otlpgrpc: $(since "$t") s"

# ---- proto and json: Collector -> Kafka -> pmrag ----
# kafka_serve NAME ENCODING SPANS LOGS OUT: pmrag (group pmrag-NAME) reading
# SPANS and LOGS in ENCODING, predictions in JSON to OUT.
kafka_serve() {
  serve_start "$1" "${pmrag_base[@]}" --set state.dir="$work/state-$1" \
    --set otlp.listen= --set kafka.brokers="$boot" --set kafka.group="pmrag-$1" \
    --set kafka.input_topics="$3,$4" --set kafka.logs_topics="$4" \
    --set kafka.input_encoding="$2" --set kafka.output_topic="$5" \
    --set kafka.output_encoding=json \
    --set "kafka.properties=session.timeout.ms=6000;heartbeat.interval.ms=500"
  serve_wait "$1" 60
}
# kafka_round NAME ENCODING SPANS LOGS OUT: the Collector's kafka exporter
# in ENCODING to SPANS and LOGS, read by two pmrag instances: one told the
# encoding, one with kafka.input_encoding=auto (telling it per message),
# to OUT and OUT_auto.
kafka_round() {
  local name=$1 enc=$2 spans=$3 logs=$4 out=$5 t n
  t=$(now)
  kafka_serve "$name" "$enc" "$spans" "$logs" "$out"
  kafka_serve "$name-auto" auto "$spans" "$logs" "${out}_auto"
  collector_start "$name" OTELCOL_EXPORTERS='[kafka, debug]' KAFKA_BROKER="$boot" \
    KAFKA_ENCODING="$enc" KAFKA_SPANS_TOPIC="$spans" KAFKA_LOGS_TOPIC="$logs"
  python3 "$here/app.py" "http://127.0.0.1:$col_http" "$cases" 2 "$name" "$work/$name.json" ||
    fail "the application could not export to the Collector"
  n=$(events_of "$work/$name.json")
  wait_lines "$work/$name.tsv" "$n" kafka_read "$out" '%k\t%s\n' "$work/$name.tsv"
  echo "$name: Collector: $(collector_counts kafka)"
  round_verdict "$name" "$work/$name.json" "$work/$name.tsv" kafka kafka
  wait_lines "$work/$name-auto.tsv" "$n" kafka_read "${out}_auto" '%k\t%s\n' "$work/$name-auto.tsv"
  round_verdict "$name-auto" "$work/$name.json" "$work/$name-auto.tsv" kafka kafka
  # The exporter's keys: each message keyed by its trace id (32 hex
  # digits, the same text as pmrag's case id for the trace), so every
  # message of a trace is on one partition of its topic; and a trace's
  # spans and logs carry the same key bytes, so that with equal partition
  # counts they land on the same partition number (what the range assignor
  # needs to co-locate them, deploy/README.md). And the values are in the
  # encoding asked for: OTLP JSON objects, or protobuf (not JSON).
  # (Each message: a line KEY, PARTITION, HEADERS, SIZE, then SIZE bytes.)
  kafka_read "$spans" '%k\t%p\t%h\t%S\n%s' "$work/$name-spans.msgs"
  kafka_read "$logs" '%k\t%p\t%h\t%S\n%s' "$work/$name-logs.msgs"
  if python3 - "$work/$name.json" "$work/$name-spans.msgs" "$work/$name-logs.msgs" "$enc" <<'PY' >"$work/$name.keys.out"; then
import json, re, sys
sent = set(json.load(open(sys.argv[1])))
enc = sys.argv[4]
bad, parts, msgs, headers, sizes = [], {}, 0, set(), []
for f, sig in ((sys.argv[2], "spans"), (sys.argv[3], "logs")):
    data, at = open(f, "rb").read(), 0
    while at < len(data):
        nl = data.index(b"\n", at)
        k, p, h, n = data[at:nl].decode("latin-1").split("\t")
        p, v = int(p), data[nl + 1:nl + 1 + int(n)]
        at = nl + 1 + int(n)
        msgs += 1
        headers.add(h or "(none)")
        sizes.append(int(n))
        if not re.fullmatch(r"[0-9a-f]{32}", k) or k not in sent:
            bad.append("%s: key %r is not a trace id sent" % (sig, k))
        parts.setdefault((sig, k), set()).add(p)
        want = b'{"resource' + (b"Spans" if sig == "spans" else b"Logs") + b'"'
        if (enc == "otlp_json") != v.startswith(want):
            bad.append("%s: a %s message value starts %r" % (sig, enc, v[:24]))
split = [k for k, ps in parts.items() if len(ps) > 1]
apart = [k for (sig, k), ps in parts.items()
         if sig == "spans" and ("logs", k) in parts and parts[("logs", k)] != ps]
both = sum(1 for (sig, k) in parts if sig == "spans" and ("logs", k) in parts)
print("%d messages (%d-%d bytes), keys %d trace ids; %d traces over more than one partition; "
      "%d of %d traces' spans and logs on different partition numbers; headers %s"
      % (msgs, min(sizes), max(sizes), len({k for _, k in parts}), len(split), len(apart), both,
         sorted(headers)[:3]))
for b in bad[:5]:
    print("  " + b)
sys.exit(1 if bad or split or apart else 0)
PY
    pass "$name: $(head -1 "$work/$name.keys.out"); key e.g. $(head -c 32 "$work/$name-spans.msgs")"
  else
    bad "$name: exporter keys or values: $(cat "$work/$name.keys.out")"
  fi
  stop "$col_pid" "the Collector"
  collector_quiet "$name"
  stop "${pid_of[$name]}" "$name"
  stop "${pid_of[$name-auto]}" "$name-auto"
  echo "$name: $(since "$t") s"
}
kafka_round proto otlp_proto otlp_spans otlp_logs pmrag_predictions
kafka_round json otlp_json otlp_spans_json otlp_logs_json pmrag_predictions_json

# The verdict can fail: one prediction dropped, another repeated.
sed '3d' "$work/proto.tsv" >"$work/broken.tsv"
head -1 "$work/proto.tsv" >>"$work/broken.tsv"
if python3 "$here/verdict.py" "$work/proto.json" "$work/broken.tsv" kafka >"$work/broken.verdict"; then
  bad "verdict.py passed predictions with one dropped and one repeated"
else
  pass "verdict.py fails on a dropped and a repeated prediction ($(sed -n 2p "$work/broken.verdict" | sed 's/^ *//' | cut -c1-100))"
fi

kafka_stop
printf 'collector: %.0f s in all\n' "$(since "$t_start")"
finish
