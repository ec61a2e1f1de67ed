#!/usr/bin/env bash
# The daemon under load, end to end on this machine: OTLP protobuf spans
# over keep-alive HTTP (tests/bench/serve_load.c) into `pmrag serve`, whose
# predictions go to the pmrag_predictions topic of its embedded Kafka.
# The project's goals: >= 100k events/s sustained, p99 event-to-prediction
# <= 10 ms at half that rate, <= 4 KiB of LMDB per active case. Figures,
# not a gate: exits 1 only when something breaks (the daemon dies, a
# request fails for good, predictions go missing), never on a missed goal.
#
#   serve_load.sh PMRAG SOURCE_DIR [BENCH_SERVE_LOAD] [WORK_DIR]
#
# BENCH_SERVE_LOAD defaults to build/tests/bench_serve_load next to PMRAG's
# build/cmd. Environment: SERVE_LOAD_SECONDS (20, each measured run),
# SERVE_LOAD_CONNECTIONS (16; also the daemon's otlp.threads, since each
# receiver thread holds its request until the commit), SERVE_LOAD_BATCH
# (1000 spans per request), SERVE_LOAD_CASES (10000 live cases),
# SERVE_LOAD_SET (extra "--set K=V ..." for the daemon), SERVE_LOAD_MODEL
# (a directory where demo_model.sh made the demo's graph, log and model
# already: used instead of making them again), SERVE_LOAD_CPU_PIDS (other
# processes, a broker say, whose CPU time over the sustained run is
# reported too: cpu_others_s).
#
# Steps: index deploy/demo/app; simulate the demo's log (2000 orders) and
# mine a model from it; start the daemon (state in WORK_DIR/state); a 3 s
# warm-up; a run as fast as the daemon answers (sustained events/s, checked
# against the daemon's pmrag_predictions_out_total; the daemon's CPU time
# per event, /proc, until it holds none back in its event-time window:
# serve.reorder_ms); a run paced at half
# that rate (the client's request latency, and the daemon's
# pmrag_event_to_prediction_seconds, pmrag_ppr_seconds and
# pmrag_commit_seconds over that run); VmHWM and VmRSS; the output topic
# read with kcat (predictions produced, from the partitions' offsets,
# against the events accepted); SIGTERM; LMDB bytes per case from
# `pmrag state stats`. One JSON line on stdout, the
# summary with the goals on stderr.
set -euo pipefail
pmrag=${1:?usage: serve_load.sh PMRAG SOURCE_DIR [BENCH_SERVE_LOAD] [WORK_DIR]}
src=${2:?usage: serve_load.sh PMRAG SOURCE_DIR [BENCH_SERVE_LOAD] [WORK_DIR]}
load=${3:-$(dirname "$pmrag")/../tests/bench_serve_load}
work=${4:-$(mktemp -d)}
# shellcheck source=tests/bench/load_lib.sh
. "$src/tests/bench/load_lib.sh"
demo=${SERVE_LOAD_MODEL:-$work}
log=$demo/log.csv
# shellcheck disable=SC2206 # one PID per word
others=(${SERVE_LOAD_CPU_PIDS:-})
# shellcheck disable=SC2206 # word splitting wanted: "--set k=v --set k2=v2"
extra=(${SERVE_LOAD_SET:-})
[[ -x $load ]] || { echo "serve_load: no load generator at $load" >&2; exit 1; }
command -v kcat >/dev/null || { echo "serve_load: kcat not found" >&2; exit 1; }
mkdir -p "$work"
rm -rf "$work/state"
rm -f "$work"/{ready,warm,max,half,state}.json "$work"/{m0,m1,m2}.prom "$work/serve.err"
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
fail() {
  echo "serve_load: FAIL: $*" >&2
  [[ -f $work/serve.err ]] && tail -20 "$work/serve.err" >&2
  exit 1
}
say() { echo "serve_load: $*" >&2; }

if [[ -z ${SERVE_LOAD_MODEL:-} ]]; then
  say "indexing the demo app, simulating its log, mining the model"
  "$src/tests/bench/demo_model.sh" "$pmrag" "$src" "$work" || fail "the demo's graph, log and model"
fi

# The bodies are sent again and again: otlp.dedupe_seconds=0, or the
# repeats would be answered as retries without being applied.
say "starting pmrag serve"
"$pmrag" serve --graph "$demo/app.graph" --model "$demo/app.model" \
  --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set otlp.grpc_listen= --set api.listen=127.0.0.1:0 \
  --set otlp.threads="$conns" --set otlp.dedupe_seconds=0 --set kafka.embedded=true "${extra[@]}" \
  --ready-file "$work/ready.json" -q \
  2>"$work/serve.err" &
pid=$!
for _ in $(seq 600); do
  [[ -s $work/ready.json ]] && break
  kill -0 "$pid" 2>/dev/null || fail "serve exited before it was ready"
  sleep 0.1
done
[[ -s $work/ready.json ]] || fail "no ready file after 60 s"
ready() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/ready.json" "$1"; }
otlp=$(ready otlp_http)
api=$(ready api)
boot=$(ready kafka_bootstrap)
topic=$(ready output_topic) # empty with SERVE_LOAD_SET="--set kafka.output_topic="
proc_mem "$pid" "$work/rss0.txt"
scrape() { curl -sf "http://$api/metrics" >"$work/$1.prom" || fail "GET /metrics failed"; }
# settle: until the daemon holds no event back in its event-time window
# (serve.reorder_ms): everything accepted so far is applied (60 s).
settle() {
  local held
  for _ in $(seq 600); do
    held=$(curl -sf "http://$api/metrics" | awk '$1 == "pmrag_events_held" { print $2 }')
    [[ ${held:-0} == 0 ]] && return 0
    sleep 0.1
  done
  fail "the daemon still holds $held events back after 60 s"
}
# cpu: the daemon's user + system time so far, then the others', in clock
# ticks (/proc).
cpu() { echo "$(proc_cpu "$pid") $(proc_cpu "${others[@]}")"; }
alive() { kill -0 "$pid" 2>/dev/null || fail "serve died during the $1 run"; }

say "warm-up, 3 s"
load_warm "$otlp" || fail "the load generator failed (warm)"
alive warm
settle
cpu >"$work/cpu0.txt"
scrape m0
say "as fast as it answers, $secs s ($conns connections x $batch spans)"
load_max "$otlp" || fail "the load generator failed (max)"
alive max
# (The CPU the run cost includes applying the events it left held.)
settle
cpu >"$work/cpu1.txt"
scrape m1
rate=$(python3 -c "import sys; print(int(float(sys.argv[1]) / 2))" "$(load_field max events_per_s)")
say "paced at half that, $rate events/s, $secs s"
load_run half "$otlp" --duration "$secs" --rate "$rate" --seed 3 \
  --pool-events $((rate * ${secs%.*} + batch)) || fail "the load generator failed (half)"
alive half
settle
scrape m2
proc_mem "$pid" "$work/rss.txt"

if [[ -n $topic ]]; then
say "counting the predictions on $topic"
# The embedded cluster (librdkafka's mock) keeps only the newest few MiB
# of each partition, so what a consumer reads from the beginning is less
# than what was produced. Each message's partition, offset and size: the
# messages and bytes still held, and per partition the first and last
# offset, whose sum of (last + 1) is how many were produced, provided the
# held range has no gap.
kcat -C -b "$boot" -t "$topic" -o beginning -e -q -f '%p %o %S\n' 2>"$work/kcat.err" |
  awk '{ n++; s += $3; c[$1]++
         if (!($1 in lo) || $2 < lo[$1]) lo[$1] = $2
         if (!($1 in hi) || $2 > hi[$1]) hi[$1] = $2 }
       END { for (p in c) { prod += hi[p] + 1; if (hi[p] - lo[p] + 1 != c[p]) gap++ }
             printf "%d %d %d %d\n", n, s, prod, gap }' >"$work/topic.txt" ||
  fail "kcat could not read $topic"
else
  echo "0 0 -1 0" >"$work/topic.txt" # no output topic: nothing to count
fi

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[[ $rc -eq 0 ]] || fail "serve exited with $rc after SIGTERM"
"$pmrag" state stats --state "$work/state" --json >"$work/state.json" ||
  fail "pmrag state stats failed"

rc=0
python3 - "$work" "$secs" "$conns" "$batch" "$cases" "$(getconf CLK_TCK)" <<'PY' || rc=$?
import json, math, re, sys

work, secs, conns, batch, cases, tck = sys.argv[1], float(sys.argv[2]), *map(int, sys.argv[3:])
J = lambda n: json.load(open(f"{work}/{n}.json"))
warm, mx, half, st = J("warm"), J("max"), J("half"), J("state")

def prom(name):
    out = {}
    for line in open(f"{work}/{name}.prom"):
        if line.startswith("#") or not line.strip():
            continue
        k, v = line.rsplit(" ", 1)
        out[k] = float(v)
    return out

m0, m1, m2 = prom("m0"), prom("m1"), prom("m2")

def hist(a, b, name):
    """Buckets (upper bound, count) of b - a, cumulative."""
    rx = re.compile(re.escape(name) + r'_bucket\{le="([^"]+)"\}$')
    out = []
    for k, v in b.items():
        m = rx.match(k)
        if m:
            le = math.inf if m.group(1) == "+Inf" else float(m.group(1))
            out.append((le, v - a.get(k, 0)))
    return sorted(out)

def quantile(buckets, q):
    """Prometheus' histogram_quantile: linear within the bucket."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank, lo, prev = q * buckets[-1][1], 0.0, 0.0
    for le, c in buckets:
        if c >= rank:
            if math.isinf(le):
                return lo  # beyond the last finite bound: at least that
            return lo + (le - lo) * ((rank - prev) / (c - prev) if c > prev else 1)
        lo, prev = le, c
    return None

def within(buckets, bound):
    """The share of observations <= bound (a bucket bound): exact, unlike
    a quantile interpolated inside a wide bucket (0.01 to 0.025 s)."""
    for le, c in buckets:
        if le == bound and buckets[-1][1] > 0:
            return round(c / buckets[-1][1], 4)
    return None

def ms(x):
    return None if x is None else round(x * 1e3, 3)

def delta(a, b, k):
    return b.get(k, 0) - a.get(k, 0)

pred_max = delta(m0, m1, "pmrag_predictions_out_total")
(c0, o0), (c1, o1) = (map(int, open(f"{work}/cpu{i}.txt").read().split()) for i in (0, 1))
cpu_max, cpu_others = (c1 - c0) / tck, (o1 - o0) / tck
e2e = hist(m1, m2, "pmrag_event_to_prediction_seconds")
ppr = hist(m1, m2, "pmrag_ppr_seconds")
com = hist(m1, m2, "pmrag_commit_seconds")
def rss_of(name):
    out = {}
    for line in open(f"{work}/{name}.txt"):
        k, v = line.split(":")
        out[k] = int(v.split()[0]) * 1024
    return out
rss0, rss = rss_of("rss0"), rss_of("rss")
n_topic, topic_bytes, produced, gaps = map(int, open(f"{work}/topic.txt").read().split())
accepted = warm["events_accepted"] + mx["events_accepted"] + half["events_accepted"]
pred_total = m2.get("pmrag_predictions_out_total", 0)
used_per_case = st["used_bytes"] / st["cases"] if st["cases"] else None
# What holds the memory after the paced run (pmrag_memory_bytes): the
# anonymous parts, the rest of the anonymous memory, the state's map.
parts = {m.group(1): v for k, v in m2.items()
         for m in [re.match(r'pmrag_memory_bytes\{component="(\w+)"\}$', k)] if m}
anon = m2.get("pmrag_memory_anon_bytes", 0)
mem = dict(parts, anon=anon, anon_rest=anon - sum(v for k, v in parts.items() if k != "state"))

res = {
    "bench": "serve_load",
    "connections": conns, "batch": batch, "cases_live": cases,
    "max": {
        "events_per_s": mx["events_per_s"], "events_accepted": mx["events_accepted"],
        "seconds": mx["seconds"], "predictions_delta": pred_max,
        "predictions_per_s": round(pred_max / mx["seconds"]) if mx["seconds"] else 0,
        "request_ms": mx["latency_ms"], "throttled": mx["throttled"],
        "cpu_s": cpu_max,
        "cpu_us_per_event": round(cpu_max * 1e6 / mx["events_accepted"], 2)
        if mx["events_accepted"] else None,
        "cpu_others_s": cpu_others,
        "cpu_others_us_per_event": round(cpu_others * 1e6 / mx["events_accepted"], 2)
        if mx["events_accepted"] else None,
    },
    "half": {
        "rate_target": half["rate_target"], "events_per_s": half["events_per_s"],
        "request_ms": half["latency_ms"], "late": half["late"], "throttled": half["throttled"],
        "event_to_prediction_ms": {"p50": ms(quantile(e2e, .5)), "p99": ms(quantile(e2e, .99)),
                                   "share_within_10ms": within(e2e, 0.01)},
        "ppr_ms": {"p50": ms(quantile(ppr, .5)), "p99": ms(quantile(ppr, .99))},
        "commit_ms": {"p50": ms(quantile(com, .5)), "p99": ms(quantile(com, .99)),
                      "count": com[-1][1] if com else 0},
    },
    "state": {"cases": st["cases"], "used_bytes": st["used_bytes"],
              "used_bytes_per_case": round(used_per_case) if used_per_case else None,
              "bytes_per_case": st.get("bytes_per_case"), "counters": st.get("counters")},
    "rss": {"vm_hwm": rss.get("VmHWM"), "vm_rss": rss.get("VmRSS"),
            "vm_rss_at_start": rss0.get("VmRSS"), "topic_held_bytes": topic_bytes},
    "memory": mem,
    "topic": {"produced": produced, "held": n_topic, "gaps": gaps,
              "events_accepted": accepted, "predictions_out_total": int(pred_total)},
}
print(json.dumps(res))

def goal(ok):
    return "met" if ok else "MISSED"
e50, e99 = res["half"]["event_to_prediction_ms"]["p50"], res["half"]["event_to_prediction_ms"]["p99"]
w10 = res["half"]["event_to_prediction_ms"]["share_within_10ms"] or 0
h = res["half"]["request_ms"]
MiB = 1 / (1 << 20)
lines = [
    f"sustained       {mx['events_per_s']:>10.0f} events/s   goal >= 100000   {goal(mx['events_per_s'] >= 1e5)}"
    f"   (daemon: {res['max']['predictions_per_s']} predictions/s; {conns} conn x {batch} spans;"
    f" request p50 {mx['latency_ms']['p50']:.1f} ms, p99 {mx['latency_ms']['p99']:.1f} ms)",
    f"  daemon CPU    {res['max']['cpu_us_per_event']} us per event (user + system, /proc;"
    f" {cpu_max:.1f} s for {mx['events_accepted']} events, until none was held back)",
    f"at half rate    {half['rate_target']:.0f} events/s target, {half['events_per_s']:.0f} reached,"
    f" {half['late']} requests late",
    f"  event->pred   p50 {e50} ms, p99 {e99} ms, {w10 * 100:.1f}% within 10 ms   goal p99 <= 10 ms"
    f"   {goal(w10 >= 0.99)}   (daemon histogram, request queued to prediction produced;"
    " quantiles interpolated in its buckets)",
    f"  request       p50 {h['p50']:.2f} ms, p99 {h['p99']:.2f} ms, max {h['max']:.2f} ms"
    "   (client: send to 200, i.e. committed)",
    f"  ppr           p50 {res['half']['ppr_ms']['p50']} ms, p99 {res['half']['ppr_ms']['p99']} ms;"
    f" commit (Kafka flush + LMDB) p50 {res['half']['commit_ms']['p50']} ms,"
    f" p99 {res['half']['commit_ms']['p99']} ms, {res['half']['commit_ms']['count']:.0f} commits",
    f"LMDB per case   {res['state']['used_bytes_per_case']} bytes   goal <= 4096   "
    f"{goal(used_per_case is not None and used_per_case <= 4096)}"
    f"   ({st['cases']} cases, {st['used_bytes'] * MiB:.1f} MiB used, {st.get('counters')} counters)",
    f"RSS             VmHWM {rss.get('VmHWM', 0) * MiB:.0f} MiB, VmRSS {rss.get('VmRSS', 0) * MiB:.0f} MiB"
    f" at the end, {rss0.get('VmRSS', 0) * MiB:.0f} MiB when ready"
    f"   (the embedded Kafka holds {topic_bytes * MiB:.0f} MiB of predictions)",
    "  memory        anonymous %.0f MiB: %s, the rest %.0f; the state's map %.0f MiB resident"
    " (pmrag_memory_bytes after the paced run)"
    % (anon * MiB, ", ".join("%s %.0f" % (k, v * MiB) for k, v in parts.items() if k != "state"),
       mem["anon_rest"] * MiB, parts.get("state", 0) * MiB),
    f"output topic    {produced} predictions produced for {accepted} events accepted"
    f" ({int(pred_total)} counted by the daemon; the embedded cluster still holds the newest"
    f" {n_topic}{', WITH GAPS' if gaps else ''})" if produced >= 0 else
    f"output topic    none (kafka.output_topic empty); {int(pred_total)} predictions counted"
    f" by the daemon for {accepted} events accepted",
]
print("\n".join(lines), file=sys.stderr)
sys.exit(0 if (produced >= accepted or produced < 0) and not gaps else 3)
PY
[[ $rc -eq 3 ]] && fail "fewer predictions on the topic than events accepted, or a gap"
exit $rc
