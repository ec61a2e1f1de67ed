#!/usr/bin/env bash
# What the event-time window costs under load: tests/bench/serve_load.sh
# with serve.reorder_ms=0 and with its default, alternated, ROUNDS times
# (3), each run SERVE_LOAD_SECONDS long (10 here unless set). Prints each
# run's JSON line, then the medians and ranges of the sustained events/s
# and the daemon's CPU time per event (user + system, /proc) of both, and
# the window's cost as the ratio of the medians. The goal: throughput with
# the window within 10% of without. Figures, not a gate.
#
#   serve_load_window.sh PMRAG SOURCE_DIR [ROUNDS] [WORK_DIR]
set -euo pipefail
usage="usage: serve_load_window.sh PMRAG SOURCE_DIR [ROUNDS] [WORK_DIR]"
pmrag=${1:?$usage}
src=$(cd "${2:?$usage}" && pwd)
rounds=${3:-3}
work=${4:-$(mktemp -d)}
mkdir -p "$work"
export SERVE_LOAD_SECONDS=${SERVE_LOAD_SECONDS:-10}
extra=${SERVE_LOAD_SET:-}
default=$("$pmrag" config --reference | awk -F'`' '$2 == "serve.reorder_ms" { print $4 }')
: >"$work/runs.jsonl"
for r in $(seq "$rounds"); do
  for ms in 0 "$default"; do
    echo "serve_load_window: round $r, serve.reorder_ms=$ms" >&2
    SERVE_LOAD_SET="$extra --set serve.reorder_ms=$ms" \
      "$src/tests/bench/serve_load.sh" "$pmrag" "$src" "" "$work/run" 2>"$work/run.err" |
      python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); d["reorder_ms"] = int(sys.argv[1]); print(json.dumps(d))' "$ms" |
      tee -a "$work/runs.jsonl" || { tail -5 "$work/run.err" >&2; exit 1; }
  done
done
python3 - "$work/runs.jsonl" "$default" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
default = int(sys.argv[2])
out = {}
for ms in (0, default):
    mine = [r for r in runs if r["reorder_ms"] == ms]
    eps = [r["max"]["events_per_s"] for r in mine]
    cpu = [r["max"]["cpu_us_per_event"] for r in mine]
    out[ms] = (statistics.median(eps), min(eps), max(eps), statistics.median(cpu), min(cpu), max(cpu))
    print("serve.reorder_ms=%-5d %d runs: %.0f events/s (%.0f..%.0f), %.2f us CPU per event (%.2f..%.2f)"
          % ((ms, len(mine)) + out[ms]), file=sys.stderr)
off, on = out[0], out[default]
ratio = on[0] / off[0]
print("window on (%d ms) against off: throughput x%.3f, CPU per event x%.3f; goal throughput"
      " within 10%%: %s" % (default, ratio, on[3] / off[3], "met" if ratio >= 0.9 else "MISSED"),
      file=sys.stderr)
print(json.dumps({"bench": "serve_load_window", "rounds": len(runs) // 2, "reorder_ms": default,
                  "off": dict(zip(("events_per_s", "min", "max", "cpu_us_per_event", "cpu_min",
                                   "cpu_max"), off)),
                  "on": dict(zip(("events_per_s", "min", "max", "cpu_us_per_event", "cpu_min",
                                  "cpu_max"), on)),
                  "throughput_ratio": round(ratio, 4), "cpu_ratio": round(on[3] / off[3], 4)}))
PY
