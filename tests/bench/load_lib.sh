# shellcheck shell=bash disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# The load of the daemon benchmarks (sourced by serve_load.sh and
# vs_collector.sh), so that every system they load gets the same requests:
# bench_serve_load (tests/bench/serve_load.c) sending the demo's log as
# OTLP protobuf spans, and the CPU time and memory of a process from /proc.
#
# The sourcing script sets load (the load generator), work (where the
# runs' JSON and stderr go) and log (the demo's CSV log, demo_model.sh's
# log.csv). The shape of the load comes from the environment:
# SERVE_LOAD_SECONDS (20, each measured run), SERVE_LOAD_CONNECTIONS (16),
# SERVE_LOAD_BATCH (1000 spans per request), SERVE_LOAD_CASES (10000 live
# cases).
secs=${SERVE_LOAD_SECONDS:-20}
conns=${SERVE_LOAD_CONNECTIONS:-16}
batch=${SERVE_LOAD_BATCH:-1000}
cases=${SERVE_LOAD_CASES:-10000}

# load_run NAME URL [OPTION...]: the load generator against the OTLP/HTTP
# receiver at URL (host:port), its JSON in $work/NAME.json and its stderr
# in $work/NAME.err; on failure prints that stderr and returns 1.
load_run() {
  local name=$1 url=$2
  shift 2
  "$load" --log "$log" --url "$url" --connections "$conns" --batch "$batch" \
    --cases "$cases" "$@" >"$work/$name.json" 2>"$work/$name.err" ||
    { cat "$work/$name.err" >&2; return 1; }
}
# load_warm URL: the 3 s warm-up (its own case ids), in $work/warm.json.
load_warm() { load_run warm "$1" --duration 3 --seed 1 --pool-events 200000; }
# load_max URL: as fast as URL answers for $secs seconds, in $work/max.json.
# A pool large enough for 100k events/s, so that no case id comes round
# again within the run.
load_max() { load_run max "$1" --duration "$secs" --seed 2 --pool-events $((100000 * ${secs%.*})); }
# load_field NAME FIELD: FIELD of $work/NAME.json.
load_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$work/$1.json" "$2"; }

# proc_cpu PID...: the user + system time of the processes so far, in
# clock ticks (getconf CLK_TCK per second), summed.
proc_cpu() {
  local p t=0
  for p in "$@"; do
    t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
  done
  echo "$t"
}
# proc_mem PID FILE: the process's VmHWM and VmRSS lines into FILE.
proc_mem() { grep -E '^Vm(HWM|RSS)' "/proc/$1/status" >"$2"; }
