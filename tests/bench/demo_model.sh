#!/usr/bin/env bash
# The demo application's graph, a simulated log of 2,000 orders (seed 5)
# and a model mined from it, for the benchmarks that load a daemon with
# the demo's traffic (serve_load.sh, soak.sh): WORK_DIR/app.graph,
# WORK_DIR/log.csv and WORK_DIR/app.model.
#
#   demo_model.sh PMRAG SOURCE_DIR WORK_DIR
set -euo pipefail
usage="usage: demo_model.sh PMRAG SOURCE_DIR WORK_DIR"
pmrag=${1:?$usage}
src=$(cd "${2:?$usage}" && pwd)
work=${3:?$usage}
"$pmrag" index "$src/deploy/demo/app" -o "$work/app.graph" -q 2>/dev/null
(cd "$src/deploy/demo/app/python" &&
  "$src/deploy/otel-python.sh" -m orderflow.simulate --orders 2000 --seed 5 --out "$work/log.csv" >/dev/null)
"$pmrag" mine --graph "$work/app.graph" --log "$work/log.csv" -o "$work/app.model" -q 2>/dev/null
