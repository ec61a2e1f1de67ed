#!/usr/bin/env bash
# A week of churn in an hour: `pmrag serve` under a steady load for
# SOAK_MINUTES, and whether its memory, its state store and its file
# descriptors stay bounded. The load (tests/bench/serve_load.c, OTLP/HTTP
# protobuf spans made from the demo application's log) runs at half the
# rate the daemon sustains (measured first, in a 20 s run as fast as it
# answers), over SOAK_CASES case ids that never end: each gets events at
# random for as long as the run lasts, so only expiry (state.ttl =
# SOAK_TTL seconds) forgets the idle ones. By default the TTL is half the
# mean time between two events of a case id at the rate (SOAK_CASES /
# rate / 2, at least 10 s): most ids then stay idle longer than the TTL
# between their events, so cases are expired and come back as new ones
# all run long, and the state reaches the size that churn gives within
# the warm-up (with a TTL past that time nothing expires, and the state
# grows for as long as cases take to fill their windows). The rate is
# measured on a daemon of its own, whose state is then dropped. Online
# learning rebuilds the model every SOAK_REBUILD seconds. Every
# SOAK_SAMPLE seconds the script
# samples the daemon's resident memory (VmRSS, which counts the pages of
# the memory-mapped state store it touched, and RssAnon, its own), the
# state store's bytes on disk (data.mdb's allocated blocks; they grow to
# the most the store ever held, and pages freed are reused, not returned)
# and in use (`pmrag state stats`: the pages written less LMDB's free list),
# the cases and online-learning counters it holds, and its open file
# descriptors; after SOAK_WARMUP minutes
# it fits a line to each and prints the change the line gives over that
# window, in percent of its mean. The goal: RSS and the state store flat
# within 2%, descriptors constant. Figures, not a gate: exits 1 only when
# something breaks (the daemon dies, the load generator fails).
#
#   soak.sh PMRAG SOURCE_DIR [BENCH_SERVE_LOAD] [WORK_DIR]
#
# Environment: SOAK_MINUTES (30), SOAK_WARMUP (10 minutes; at most half the
# run), SOAK_CASES (1000000), SOAK_TTL (seconds; 0, the default: from the
# rate, as above), SOAK_REBUILD (120),
# SOAK_SAMPLE (10), SOAK_RATE (events/s; 0, the default: half the measured
# maximum), SOAK_SET (more configuration for the daemon, "KEY=VALUE ..."
# separated by spaces). Samples go to WORK_DIR/samples.tsv, one JSON line of results to
# stdout, the summary to stderr.
set -euo pipefail
usage="usage: soak.sh PMRAG SOURCE_DIR [BENCH_SERVE_LOAD] [WORK_DIR]"
pmrag=${1:?$usage}
src=$(cd "${2:?$usage}" && pwd)
load=${3:-$(dirname "$pmrag")/../tests/bench_serve_load}
work=${4:-$(mktemp -d)}
minutes=${SOAK_MINUTES:-30}
warmup=${SOAK_WARMUP:-10}
cases=${SOAK_CASES:-1000000}
ttl=${SOAK_TTL:-0}
rebuild=${SOAK_REBUILD:-120}
every=${SOAK_SAMPLE:-10}
rate=${SOAK_RATE:-0}
extra=()
for kv in ${SOAK_SET:-}; do extra+=(--set "$kv"); done
conns=8
batch=500
[[ -x $load ]] || { echo "soak: no load generator at $load" >&2; exit 1; }
if python3 -c 'import sys; sys.exit(not float(sys.argv[1]) * 2 > float(sys.argv[2]))' "$warmup" "$minutes"; then
  warmup=$(python3 -c 'import sys; print(float(sys.argv[1]) / 2)' "$minutes")
fi
mkdir -p "$work"
rm -rf "$work/state"
rm -f "$work"/{ready,max,soak}.json "$work"/{samples.tsv,serve.err}
pid=
gen=
cleanup() {
  local p
  for p in $gen $pid; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
say() { echo "soak: $*" >&2; }
fail() {
  echo "soak: FAIL: $*" >&2
  [[ -f $work/serve.err ]] && tail -20 "$work/serve.err" >&2
  exit 1
}

say "indexing the demo app, simulating its log, mining the model"
"$src/tests/bench/demo_model.sh" "$pmrag" "$src" "$work" || fail "the demo's graph, log and model"

# otlp.dedupe_seconds=0: the load generator sends its pool of bodies round
# and round, and repeats would be answered as retries without being applied.
start() { # TTL: pmrag serve on WORK_DIR/state; sets pid, otlp and api
  rm -rf "$work/state" "$work/ready.json"
  "$pmrag" serve --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set otlp.grpc_listen= \
    --set api.listen=127.0.0.1:0 --set otlp.threads="$conns" --set otlp.dedupe_seconds=0 \
    --set state.ttl="$1" --set model.learn_online=true --set model.rebuild_seconds="$rebuild" \
    --set model.rebuild_events=4000000000 "${extra[@]}" \
    --ready-file "$work/ready.json" -q 2>"$work/serve.err" &
  pid=$!
  for _ in $(seq 600); do
    [[ -s $work/ready.json ]] && break
    kill -0 "$pid" 2>/dev/null || fail "serve exited before it was ready"
    sleep 0.1
  done
  [[ -s $work/ready.json ]] || fail "no ready file after 60 s"
  otlp=$(ready otlp_http)
  api=$(ready api)
}
stop() {
  kill -TERM "$pid"
  local rc=0
  wait "$pid" || rc=$?
  pid=
  [[ $rc -eq 0 ]] || fail "serve exited with $rc after SIGTERM"
}
ready() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/ready.json" "$1"; }

if [[ $rate == 0 ]]; then
  say "the sustained rate: 20 s as fast as it answers"
  start 120
  "$load" --log "$work/log.csv" --url "$otlp" --connections "$conns" --batch "$batch" \
    --cases 10000 --duration 20 --seed 1 --pool-events 1000000 >"$work/max.json" 2>"$work/max.err" ||
    { cat "$work/max.err" >&2; fail "the load generator failed (max)"; }
  stop
  rate=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['events_per_s'] / 2))" "$work/max.json")
fi
if [[ $ttl == 0 ]]; then
  ttl=$(python3 -c 'import sys; print(max(10, round(int(sys.argv[1]) / int(sys.argv[2]) / 2)))' "$cases" "$rate")
fi
say "starting pmrag serve (state.ttl $ttl s, a rebuild every $rebuild s)"
start "$ttl"

# The pool: two events per case id on average, so that about 86% of the
# ids occur in it (ids drawn at random among the live slots); sent round
# and round, every id comes back, so cases never end.
pool=$((2 * cases))
say "$minutes min at $rate events/s over $cases case ids (a pool of $pool events)"
"$load" --log "$work/log.csv" --url "$otlp" --connections "$conns" --batch "$batch" \
  --cases "$cases" --duration $((minutes * 60)) --rate "$rate" --seed 2 --pool-events "$pool" \
  >"$work/soak.json" 2>"$work/soak.err" &
gen=$!

sample() { # elapsed seconds: one line of samples.tsv
  local rss anon fds disk stats
  rss=$(awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$pid/status")
  anon=$(awk '/^RssAnon:/ { print $2 * 1024 }' "/proc/$pid/status")
  fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
  disk=$(stat -c '%b %B' "$work/state/data.mdb" | awk '{ print $1 * $2 }')
  # In use (the pages LMDB has written less its free list: what holds
  # data), the cases stored and the online-learning counters (bounded by
  # model.online_windows): what of the state grows, if it does.
  stats=$("$pmrag" state stats --state "$work/state" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["used_bytes"] - d["free_bytes"], d["cases"], d["counters"], sep="\t")' ||
    printf '0\t0\t0')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$rss" "$disk" "$stats" "$fds" "$anon" >>"$work/samples.tsv"
}
printf 'seconds\trss_bytes\tstate_disk_bytes\tstate_used_bytes\tstate_cases\tstate_counters\tfds\tanon_bytes\n' >"$work/samples.tsv"
t0=$(date +%s)
while kill -0 "$gen" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || fail "serve died during the soak"
  now=$(date +%s)
  sample $((now - t0))
  # A sample taken as the load ended (its connections closing) is not one
  # of the steady state.
  kill -0 "$gen" 2>/dev/null || { sed -i '$d' "$work/samples.tsv"; break; }
  if (((now - t0) % 60 < every)); then
    say "$(tail -1 "$work/samples.tsv" | awk '{ printf "%d s: RSS %.0f MiB (anonymous %.0f), state %.0f MiB on disk (%d cases, %d counters), %d fds", $1, $2 / 1048576, $8 / 1048576, $3 / 1048576, $5, $6, $7 }')"
  fi
  sleep "$every"
done
wait "$gen" || { cat "$work/soak.err" >&2; fail "the load generator failed"; }
gen=
kill -0 "$pid" 2>/dev/null || fail "serve died during the soak"
curl -sf "http://$api/metrics" >"$work/end.prom" || fail "GET /metrics failed"
stop

python3 - "$work" "$warmup" "$minutes" "$cases" "$rate" "$ttl" <<'PY'
import json, sys
work, warmup, minutes, cases, rate, ttl = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rows = [l.rstrip("\n").split("\t") for l in open(work + "/samples.tsv")][1:]
rows = [[float(x) for x in r] for r in rows if len(r) == 8]
late = [r for r in rows if r[0] >= warmup * 60]
def drift(col):
    """The change over the window of a least-squares line, in % of the mean."""
    xs = [r[0] for r in late]; ys = [r[col] for r in late]
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return 100.0 * slope * (xs[-1] - xs[0]) / my if my else 0.0
soak = json.load(open(work + "/soak.json"))
out = {
    "minutes": minutes, "warmup_minutes": warmup, "case_ids": cases, "rate_target": rate, "ttl_s": ttl,
    "events_sent": soak.get("events_sent"), "events_per_s": soak.get("events_per_s"),
    "samples": len(rows), "samples_after_warmup": len(late),
    "rss_drift_pct": drift(1), "anon_drift_pct": drift(7),
    "state_disk_drift_pct": drift(2), "state_used_drift_pct": drift(3),
    "fds_min": min(r[6] for r in late) if late else None, "fds_max": max(r[6] for r in late) if late else None,
    "cases_drift_pct": drift(4), "counters_drift_pct": drift(5),
    "counters_start": late[0][5] if late else None, "counters_end": late[-1][5] if late else None,
    "rss_end_bytes": rows[-1][1] if rows else None, "state_disk_end_bytes": rows[-1][2] if rows else None,
}
print(json.dumps(out))
def fmt(v):
    return "n/a" if v is None else "%+.2f%%" % v
print("soak: %.0f min at %s events/s over %d case ids (%s events sent, state.ttl %d s); after %.0f min of warm-up:" % (
    minutes, out["events_per_s"], cases, out["events_sent"], ttl, warmup), file=sys.stderr)
for name, key in (("RSS", "rss_drift_pct"), ("RSS anonymous", "anon_drift_pct"),
                  ("state on disk", "state_disk_drift_pct"), ("state in use", "state_used_drift_pct")):
    v = out[key]
    print("  %-14s %s over the window (goal: within 2%%: %s)" % (name, fmt(v), "met" if v is not None and abs(v) <= 2 else "NOT met"), file=sys.stderr)
print("  state's cases  %s over the window; online-learning counters %s to %s (bounded by model.online_windows)" % (
    fmt(out["cases_drift_pct"]), out["counters_start"], out["counters_end"]), file=sys.stderr)
print("  fds            %s to %s (goal: constant: %s)" % (out["fds_min"], out["fds_max"], "met" if out["fds_min"] == out["fds_max"] else "NOT met"), file=sys.stderr)
PY
