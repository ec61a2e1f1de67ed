#!/usr/bin/env bash
# pmrag beside the OpenTelemetry Collector that feeds it, on this machine,
# under the same load: the load generator of serve_load.sh (the demo's
# log as OTLP protobuf spans, SERVE_LOAD_CONNECTIONS x SERVE_LOAD_BATCH,
# SERVE_LOAD_CASES live cases, byte-identical bodies for both) sends to
# one system, then to the other, in two modes:
#   otlp   OTLP/HTTP in, nothing out: the Collector with the debug exporter
#          (verbosity basic), pmrag with no sink;
#   kafka  OTLP/HTTP in, out to a real Apache Kafka broker (one node,
#          tests/kafka/broker.sh) with acks=all: the Collector's kafka
#          exporter, pmrag's predictions.
# Both answer a request only when it is done: pmrag once its events are
# committed and their predictions acknowledged, the Collector once its
# exporter returned (tests/bench/vs_collector.yaml over the shared
# deploy/collector/otelcol.yaml: no batch processor, no sending queue).
# It builds nothing: the Collector and the broker are those `make test`
# fetches (tests/collector/lib.sh, tests/kafka/broker.sh). ROUNDS (3)
# rounds, each running every mode on both systems, which one goes first
# alternating from round to round. Figures, not a gate: exits 1 only when
# something breaks (a run fails, events go missing).
#
#   vs_collector.sh PMRAG SOURCE_DIR [ROUNDS] [WORK_DIR]
#
# pmrag's side is one serve_load.sh run (SERVE_LOAD_MODEL: the demo's
# model made once here; its sustained run, then a run at half that rate:
# event -> prediction p50/p99 from the daemon's histogram, which counts the
# event-time window, serve.reorder_ms, too). The Collector's side is the
# same warm-up and sustained run. For each: events/s, CPU time per event
# (user + system from /proc, of the process, and of the broker over the
# same run), VmHWM after it, the client's request p50/p99. The load
# generator is BENCH_SERVE_LOAD (build/tests/bench_serve_load next to
# PMRAG's build/cmd), each run SERVE_LOAD_SECONDS long (10 here unless
# set); VS_COLLECTOR_SET adds "--set K=V ..." to pmrag's. One JSON line
# per run and one with the medians on stdout; the table on stderr, whose
# last line is
#   pmrag/collector throughput X (kafka), CPU per event pmrag A µs collector B µs
# (medians; CPU of the process alone, the broker's apart).
set -euo pipefail
usage="usage: vs_collector.sh PMRAG SOURCE_DIR [ROUNDS] [WORK_DIR]"
pmrag=${1:?$usage}
src=$(cd "${2:?$usage}" && pwd)
rounds=${3:-3}
work=${4:-}
load=${BENCH_SERVE_LOAD:-$(dirname "$pmrag")/../tests/bench_serve_load}
export SERVE_LOAD_SECONDS=${SERVE_LOAD_SECONDS:-10}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
# shellcheck source=tests/collector/lib.sh
. "$src/tests/collector/lib.sh"
# shellcheck source=tests/kafka/broker.sh
. "$src/tests/kafka/broker.sh"
need kcat python3 curl
[[ -x $load ]] || fail "no load generator at $load"
work_init
work_clean 'pmrag' 'otelcol-*' 'runs.jsonl' '*.json' '*.err' 'cpu*.txt' 'rss.txt'
# shellcheck source=tests/bench/load_lib.sh
. "$src/tests/bench/load_lib.sh"
log=$work/demo/log.csv
COLLECTOR_CONFIGS=("$src/deploy/collector/otelcol.yaml" "$src/tests/bench/vs_collector.yaml")
COLLECTOR_NICE=0
say() { echo "vs_collector: $*" >&2; }

collector_bin
say "$("$otelcol" --version); pmrag $("$pmrag" --version 2>&1 | head -1)"
mkdir -p "$work/demo"
say "the demo's graph, log and model"
"$src/tests/bench/demo_model.sh" "$pmrag" "$src" "$work/demo" || fail "the demo's graph, log and model"
kafka_start 1 >&2
broker=${kafka_pid[1]}

# pmrag_run MODE ROUND: serve_load.sh against pmrag, its JSON line
# appended to runs.jsonl.
pmrag_run() {
  local mode=$1 r=$2 set=() cpu_pids=
  if [[ $mode == kafka ]]; then
    kafka_admin create "pmrag_predictions_$r:4:1" >/dev/null || fail "creating pmrag_predictions_$r"
    set=(--set "kafka.brokers=$boot" --set kafka.input_topics= --set "kafka.output_topic=pmrag_predictions_$r")
    cpu_pids=$broker
  else
    set=(--set kafka.brokers= --set kafka.embedded=false)
  fi
  SERVE_LOAD_MODEL=$work/demo SERVE_LOAD_CPU_PIDS=$cpu_pids \
    SERVE_LOAD_SET="${set[*]} ${VS_COLLECTOR_SET:-}" \
    "$src/tests/bench/serve_load.sh" "$pmrag" "$src" "$load" "$work/pmrag" \
    >"$work/pmrag.json" 2>"$work/pmrag.err" ||
    { tail -20 "$work/pmrag.err" >&2; fail "serve_load.sh ($mode, round $r)"; }
  python3 - "$work/pmrag.json" "$mode" "$r" "$(getconf CLK_TCK)" >>"$work/runs.jsonl" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
mx, half = d["max"], d["half"]
print(json.dumps({
    "system": "pmrag", "mode": sys.argv[2], "round": int(sys.argv[3]),
    "events_per_s": mx["events_per_s"], "events": mx["events_accepted"],
    "cpu_us_per_event": mx["cpu_us_per_event"],
    "broker_cpu_us_per_event": mx["cpu_others_us_per_event"] if sys.argv[2] == "kafka" else None,
    "vm_hwm": d["rss"]["vm_hwm"], "request_ms": mx["request_ms"],
    "half_event_to_prediction_ms": half["event_to_prediction_ms"],
    "half_events_per_s": half["events_per_s"]}))
PY
}

# collector_run MODE ROUND: the same warm-up and sustained run against the
# Collector, its JSON line appended to runs.jsonl.
collector_run() {
  local mode=$1 r=$2 exp=debug name=$1-$2 sent failed
  if [[ $mode == kafka ]]; then
    exp=kafka
    kafka_admin create "otlp_spans_$r:4:1" >/dev/null || fail "creating otlp_spans_$r"
  fi
  collector_start "$name" OTELCOL_EXPORTERS="[$exp]" KAFKA_BROKER="$boot" \
    KAFKA_SPANS_TOPIC="otlp_spans_$r" KAFKA_LOGS_TOPIC="otlp_logs_$r"
  load_warm "127.0.0.1:$col_http" || fail "the load generator failed (Collector, warm)"
  echo "$(proc_cpu "$col_pid") $(proc_cpu "$broker")" >"$work/cpu0.txt"
  load_max "127.0.0.1:$col_http" || fail "the load generator failed (Collector, max)"
  echo "$(proc_cpu "$col_pid") $(proc_cpu "$broker")" >"$work/cpu1.txt"
  proc_mem "$col_pid" "$work/rss.txt"
  # Every span accepted was exported (no queue: when its request had its
  # 200, its export had returned).
  sent=$(collector_metric otelcol_exporter_sent_spans "$exp")
  failed=$(collector_metric otelcol_exporter_send_failed_spans "$exp")
  stop "$col_pid" "the Collector"
  python3 - "$work" "$mode" "$r" "$(getconf CLK_TCK)" "$sent" "$failed" >>"$work/runs.jsonl" <<'PY'
import json, sys
work, mode, r, tck, sent, failed = sys.argv[1:]
warm, mx = (json.load(open(f"{work}/{n}.json")) for n in ("warm", "max"))
(c0, b0), (c1, b1) = (map(int, open(f"{work}/cpu{i}.txt").read().split()) for i in (0, 1))
rss = {l.split(":")[0]: int(l.split()[1]) * 1024 for l in open(f"{work}/rss.txt")}
n = mx["events_accepted"]
accepted = warm["events_accepted"] + n
if float(sent) < accepted or float(failed):
    sys.exit(f"the Collector exported {sent} spans ({failed} failed) of {accepted} accepted")
print(json.dumps({
    "system": "collector", "mode": mode, "round": int(r),
    "events_per_s": mx["events_per_s"], "events": n,
    "cpu_us_per_event": round((c1 - c0) / int(tck) * 1e6 / n, 2),
    "broker_cpu_us_per_event": round((b1 - b0) / int(tck) * 1e6 / n, 2) if mode == "kafka" else None,
    "vm_hwm": rss["VmHWM"], "request_ms": mx["latency_ms"], "exported": int(float(sent))}))
PY
}

for r in $(seq "$rounds"); do
  for mode in otlp kafka; do
    if ((r % 2)); then order=(pmrag collector); else order=(collector pmrag); fi
    for sys in "${order[@]}"; do
      say "round $r, $mode, $sys"
      "${sys}_run" "$mode" "$r"
      tail -1 "$work/runs.jsonl"
    done
  done
done
kafka_stop

python3 - "$work/runs.jsonl" "$(awk -F'`' '$2 == "serve.reorder_ms" { print $4 }' < <("$pmrag" config --reference))" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
reorder = sys.argv[2]

def stat(xs):
    xs = [x for x in xs if x is not None]
    return (statistics.median(xs), min(xs), max(xs)) if xs else None

def fmt(s, f="%.0f"):
    return "-" if s is None else (f + " (" + f + ".." + f + ")") % s

med, rows = {}, []
for mode in ("otlp", "kafka"):
    for system in ("pmrag", "collector"):
        mine = [r for r in runs if r["mode"] == mode and r["system"] == system]
        m = {
            "runs": len(mine),
            "events_per_s": stat([r["events_per_s"] for r in mine]),
            "cpu_us_per_event": stat([r["cpu_us_per_event"] for r in mine]),
            "broker_cpu_us_per_event": stat([r["broker_cpu_us_per_event"] for r in mine]),
            "vm_hwm_mib": stat([r["vm_hwm"] / 2**20 for r in mine]),
            "request_p50_ms": stat([r["request_ms"]["p50"] for r in mine]),
            "request_p99_ms": stat([r["request_ms"]["p99"] for r in mine]),
            "half_e2p_p50_ms": stat([r.get("half_event_to_prediction_ms", {}).get("p50") for r in mine]),
            "half_e2p_p99_ms": stat([r.get("half_event_to_prediction_ms", {}).get("p99") for r in mine]),
        }
        med[(mode, system)] = m
        rows.append("%-6s %-10s %-22s %-20s %-18s %-16s %-22s %-22s %s" % (
            mode, system, fmt(m["events_per_s"]), fmt(m["cpu_us_per_event"], "%.2f"),
            fmt(m["broker_cpu_us_per_event"], "%.2f"), fmt(m["vm_hwm_mib"]),
            fmt(m["request_p50_ms"], "%.1f"), fmt(m["request_p99_ms"], "%.1f"),
            "-" if m["half_e2p_p50_ms"] is None else
            "%s / %s" % (fmt(m["half_e2p_p50_ms"], "%.1f"), fmt(m["half_e2p_p99_ms"], "%.1f"))))

def ratio(mode, key):
    return med[(mode, "pmrag")][key][0] / med[(mode, "collector")][key][0]

print(json.dumps({"bench": "vs_collector", "rounds": max(r["round"] for r in runs),
                  "reorder_ms": int(reorder) if reorder.isdigit() else reorder,
                  "medians": {"%s/%s" % k: {f: (v[0] if isinstance(v, tuple) else v)
                                            for f, v in m.items()} for k, m in med.items()},
                  "throughput_ratio": {mode: round(ratio(mode, "events_per_s"), 4)
                                       for mode in ("otlp", "kafka")}}), flush=True)
out = sys.stderr
print("medians (min..max) of %d rounds; CPU is user + system from /proc over the sustained run"
      % max(r["round"] for r in runs), file=out)
print("%-6s %-10s %-22s %-20s %-18s %-16s %-22s %-22s %s" % (
    "mode", "system", "events/s", "CPU us/event", "broker us/event", "VmHWM MiB",
    "request p50 ms", "request p99 ms", "event->prediction at half rate p50 / p99 ms"
    " (serve.reorder_ms %s)" % reorder), file=out)
for row in rows:
    print(row, file=out)
print("pmrag/collector throughput %.3f (otlp)" % ratio("otlp", "events_per_s"), file=out)
print("pmrag/collector throughput %.3f (kafka), CPU per event pmrag %.2f µs collector %.2f µs"
      % (ratio("kafka", "events_per_s"), med[("kafka", "pmrag")]["cpu_us_per_event"][0],
         med[("kafka", "collector")]["cpu_us_per_event"][0]), file=out)
PY
