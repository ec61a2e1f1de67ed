#!/usr/bin/env bash
# Two pmrag binaries under the same load: tests/bench/serve_load.sh with A,
# then with B, ROUNDS times (3), each run SERVE_LOAD_SECONDS long (10 here
# unless set), on the same demo graph, log and model (made once, with A,
# unless SERVE_LOAD_MODEL names them). Prints each run's JSON line, then
# for each binary the medians and ranges of the sustained events/s and of
# the daemon's CPU time per event (user + system, /proc, over the
# sustained run), the client's request p99 in the sustained run and in
# the run at half its rate, VmHWM, B against A as the ratio of the
# medians of the CPU per event, and where the
# binary counts them (pmrag_engine_stage_cpu_microseconds_total) the
# median CPU time per event of each stage of its engine thread over the
# same run. Figures, not a gate. The load generator is BENCH_SERVE_LOAD,
# else SOURCE_DIR's build/tests/bench_serve_load. AB_SET_A and AB_SET_B
# add settings to one side's daemon ("--set K=V ...", after SERVE_LOAD_SET),
# so that one binary can be run against itself with another setting.
#
#   serve_load_ab.sh PMRAG_A PMRAG_B SOURCE_DIR [ROUNDS] [WORK_DIR]
set -euo pipefail
usage="usage: serve_load_ab.sh PMRAG_A PMRAG_B SOURCE_DIR [ROUNDS] [WORK_DIR]"
a=$(realpath "${1:?$usage}")
b=$(realpath "${2:?$usage}")
src=$(cd "${3:?$usage}" && pwd)
rounds=${4:-3}
work=${5:-$(mktemp -d)}
mkdir -p "$work"
export SERVE_LOAD_SECONDS=${SERVE_LOAD_SECONDS:-10}
if [[ -z ${SERVE_LOAD_MODEL:-} ]]; then
  echo "serve_load_ab: the demo's graph, log and model, with A" >&2
  mkdir -p "$work/demo"
  "$src/tests/bench/demo_model.sh" "$a" "$src" "$work/demo"
  export SERVE_LOAD_MODEL=$work/demo
fi
load=${BENCH_SERVE_LOAD:-$src/build/tests/bench_serve_load}
: >"$work/runs.jsonl"
for r in $(seq "$rounds"); do
  for side in A B; do
    pmrag=$a
    set_side=${AB_SET_A:-}
    [[ $side == B ]] && pmrag=$b && set_side=${AB_SET_B:-}
    echo "serve_load_ab: round $r, $side" >&2
    # serve_load.sh prints its JSON line before its own checks, which may
    # fail on what a short run leaves (its stderr says); the line counts.
    SERVE_LOAD_SET="${SERVE_LOAD_SET:-} $set_side" \
      "$src/tests/bench/serve_load.sh" "$pmrag" "$src" "$load" "$work/run" >"$work/run.json" \
      2>"$work/run.err" || tail -3 "$work/run.err" >&2
    [[ -s $work/run.json ]] || { tail -20 "$work/run.err" >&2; exit 1; }
    python3 - "$work/run.json" "$work/run/m0.prom" "$work/run/m1.prom" "$side" <<'PY' | tee -a "$work/runs.jsonl"
import json, re, sys
run = json.load(open(sys.argv[1]))
def prom(path):
    out = {}
    for line in open(path):
        m = re.match(r'pmrag_engine_stage_cpu_microseconds_total\{stage="(\w+)"\} (\S+)$', line)
        if m:
            out[m.group(1)] = float(m.group(2))
        elif line.startswith("pmrag_engine_cpu_microseconds_total "):
            out["(engine)"] = float(line.split()[1])
    return out
m0, m1 = prom(sys.argv[2]), prom(sys.argv[3])
n = run["max"]["predictions_delta"]
run["side"] = sys.argv[4]
run["engine_us_per_event"] = {k: round((m1[k] - m0.get(k, 0)) / n, 3) for k in m1} if n else {}
print(json.dumps(run))
PY
  done
done
python3 - "$work/runs.jsonl" "$a${AB_SET_A:+ $AB_SET_A}" "$b${AB_SET_B:+ $AB_SET_B}" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = {}
for side, path in (("A", sys.argv[2]), ("B", sys.argv[3])):
    mine = [r for r in runs if r["side"] == side]
    eps = [r["max"]["events_per_s"] for r in mine]
    cpu = [r["max"]["cpu_us_per_event"] for r in mine]
    med[side] = statistics.median(cpu)
    print("%s %s: %d runs: %.0f events/s (%.0f..%.0f), %.2f us CPU per event (%.2f..%.2f)"
          % (side, path, len(mine), statistics.median(eps), min(eps), max(eps), med[side],
             min(cpu), max(cpu)), file=sys.stderr)
    # What a client and the machine see of the same runs.
    for what, vals in (("request p99 as fast as it answers, ms", [r["max"]["request_ms"]["p99"] for r in mine]),
                       ("request p99 at half that rate, ms", [r["half"]["request_ms"]["p99"] for r in mine]),
                       ("VmHWM, MiB", [r["rss"]["vm_hwm"] / 2**20 for r in mine])):
        print("  %-38s %8.1f (%.1f..%.1f)" % (what, statistics.median(vals), min(vals), max(vals)),
              file=sys.stderr)
    stages = {}
    for r in mine:
        for k, v in r["engine_us_per_event"].items():
            stages.setdefault(k, []).append(v)
    for k, v in stages.items():
        print("  %-10s %6.2f us per event (%.2f..%.2f)" % (k, statistics.median(v), min(v), max(v)),
              file=sys.stderr)
print("B against A: CPU per event x%.3f" % (med["B"] / med["A"]), file=sys.stderr)
PY
