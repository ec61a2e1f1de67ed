# shellcheck shell=bash disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# The OpenTelemetry Collector of the tests and benchmarks (sourced after
# tests/integration/lib.sh, whose work_init must have run):
#
#   # shellcheck source=tests/collector/lib.sh
#   . "$src/tests/collector/lib.sh"
#   collector_bin            # builds it, or finds it in the cache; sets otelcol
#   collector_start otlphttp OTELCOL_EXPORTERS='[otlp_http]' PMRAG_OTLP=...
#
# The Collector is the one deploy/deps.sh --collector builds from
# deploy/collector/manifest.yaml (cached in .deps/collector/VERSION; the
# first run builds it, which takes minutes), run with
# deploy/collector/otelcol.yaml, the configuration of
# deploy/compose/compose.yaml, given only the environment variables that
# file names. Settings a script may change before collector_start:
# COLLECTOR_CONFIGS (the configuration files, merged in order: more files
# after deploy/collector/otelcol.yaml override it) and COLLECTOR_NICE (10:
# the tests' Collector yields to the daemons; a benchmark gives 0).

collector_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
declare -ga COLLECTOR_CONFIGS=("${COLLECTOR_CONFIGS[@]:-$collector_top/deploy/collector/otelcol.yaml}")
COLLECTOR_NICE=${COLLECTOR_NICE:-10}

# collector_bin: $otelcol, the Collector binary, built first if need be.
collector_bin() {
  local ver
  "$collector_top/deploy/deps.sh" --collector >&2 || fail "deploy/deps.sh --collector failed"
  ver=$(sed -n 's/^  version: *\([0-9][0-9.]*\) *$/\1/p' "$collector_top/deploy/collector/manifest.yaml" | head -1)
  otelcol=${PMRAG_DEPS_DIR:-$collector_top/.deps}/collector/$ver/otelcol-pmrag
  [[ -x $otelcol ]] || fail "no Collector at $otelcol"
}

# collector_start NAME VAR=VALUE...: the Collector with COLLECTOR_CONFIGS
# and these variables, receivers and metrics on free ports, its log in
# $work/otelcol-NAME.log (watched); sets col_pid (tracked), col_http and
# col_metrics; waits until it is ready (30 s).
collector_start() {
  local name=$1 grpc c args=()
  shift
  read -r grpc col_http col_metrics <<<"$(free_ports 3 | paste -sd" ")"
  for c in "${COLLECTOR_CONFIGS[@]}"; do args+=("--config=$c"); done
  log_watch "$work/otelcol-$name.log" "otelcol-$name"
  env OTELCOL_GRPC="127.0.0.1:$grpc" OTELCOL_HTTP="127.0.0.1:$col_http" \
    OTELCOL_METRICS="$col_metrics" "$@" \
    nice -n "$COLLECTOR_NICE" "$otelcol" "${args[@]}" >"$work/otelcol-$name.log" 2>&1 &
  col_pid=$!
  track "$col_pid"
  for _ in $(seq 300); do
    grep -q 'Everything is ready' "$work/otelcol-$name.log" && return 0
    running "$col_pid" || fail "the Collector ($name) exited"
    sleep 0.1
  done
  fail "the Collector ($name) not ready after 30 s"
}

# collector_metric NAME EXPORTER: the Collector's own metric NAME, summed
# over the label sets of exporter EXPORTER.
collector_metric() {
  curl -s -m 5 "http://127.0.0.1:$col_metrics/metrics" |
    awk -v m="$1" -v e="exporter=\"$2\"" 'index($1, m "{") == 1 && index($1, e) { s += $2 } END { print s + 0 }'
}
