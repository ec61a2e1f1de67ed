#!/usr/bin/env bash
# Mapping throughput, the project's goal: >= 500k log lines/s on one core
# with 5k templates. Runs bench_map_speed (tests/bench/map_speed.c) at full
# size: a synthetic repository of 5,000 logging call sites and 1,000,000
# rendered lines; the same with 50,000 sites; 5,000 sites of which 5% log
# the text of another site (ties for the logger, level and code-graph
# proximity to break); and, when given a graph file, that graph's own
# sites. Each run prints one JSON line on stdout and its summary on stderr.
# Fails only when lines do not match the sites that rendered them, never
# on speed: the figures are for the record (ctest label "bench").
#
#   tests/bench/map_speed.sh BENCH_MAP_SPEED [LINES] [GRAPH]
#
# BENCH_MAP_SPEED is the binary, e.g. build/tests/bench_map_speed.
set -euo pipefail
bin=${1:?usage: map_speed.sh BENCH_MAP_SPEED [LINES] [GRAPH]}
lines=${2:-1000000}
graph=${3:-}

"$bin" --templates 5000 --lines "$lines" --json
"$bin" --templates 50000 --lines "$lines" --json
"$bin" --templates 5000 --lines "$lines" --dup 0.05 --json
if [ -n "$graph" ]; then
  "$bin" --graph "$graph" --lines "$lines" --json
fi
