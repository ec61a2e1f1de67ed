# shellcheck shell=bash disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# Shared by the integration scripts that run a daemon against a standalone
# `pmrag kafka-mock` (sourced, not run). They set pmrag, src and work (or
# call work_init) and define fail before calling these.

# work_init: $work as given, else a temporary directory, named in own_work
# too (the caller's cleanup removes it).
work_init() {
  own_work=
  if [[ -z $work ]]; then
    work=$(mktemp -d)
    own_work=$work
  fi
  mkdir -p "$work"
}

# running PID: alive (kill -0 also succeeds on a zombie: look at its state).
running() { [[ -r /proc/$1/status ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }

# mock_start ARG...: `pmrag kafka-mock ARG...` in the background (its
# answers to --control in $work/mock.out); sets mock_pid and boot, the
# bootstrap address.
mock_start() {
  rm -f "$work/mock.json"
  "$pmrag" kafka-mock "$@" --ready-file "$work/mock.json" >"$work/mock.out" 2>"$work/mock.err" &
  mock_pid=$!
  for _ in $(seq 100); do [[ -s $work/mock.json ]] && break; sleep 0.05; done
  [[ -s $work/mock.json ]] || fail "kafka-mock did not start: $(cat "$work/mock.err")"
  boot=$(python3 "$src/tests/integration/crash_tool.py" ready "$work/mock.json" kafka_bootstrap)
}

# mock_control CMD: one fault-injection command through the --control file
# $ctl given to mock_start; fails unless the cluster answers "ok CMD".
mock_control() {
  local n
  n=$(wc -l <"$work/mock.out")
  echo "$1" >"$ctl"
  for _ in $(seq 200); do
    [[ $(wc -l <"$work/mock.out") -gt $n ]] && break
    sleep 0.05
  done
  [[ $(tail -n +$((n + 1)) "$work/mock.out" | head -1) == "ok $1" ]] || fail "kafka-mock: '$1' not done"
}

# For daemons started with --ready-file "$work/NAME.ready":
# ready_wait NAME: until it is written (30 s);
ready_wait() {
  for _ in $(seq 300); do [[ -s $work/$1.ready ]] && return; sleep 0.1; done
  fail "$1 not ready after 30 s"
}
# ready_api NAME: its API address;
ready_api() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['api'])" "$work/$1.ready"; }
# ready_metric NAME METRIC: METRIC's value on its /metrics.
ready_metric() { curl -fsS "http://$(ready_api "$1")/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
