# shellcheck shell=bash disable=SC2034,SC2154 # sets and reads the sourcing script's variables
# Helpers of the integration scripts (sourced, not run):
#
#   # shellcheck source=tests/integration/lib.sh
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# The sourcing script sets pmrag (the binary), src (the source tree, for
# the demo app) and work (a directory given on its command line, or empty)
# and calls work_init before anything that writes to $work. It may run
# with or without `set -e`: these functions report through their exit
# status and never rely on -e. Sourcing installs an EXIT trap: do not
# install another one (use at_exit).
#
# Failures come in two kinds. fail stops the script: it prints its
# message, then the tail of every daemon log registered with log_watch
# (serve_start and mock_start register theirs), and exits 1 (inside
# $(...) it ends only that subshell, whose caller sees the status). bad counts a
# failed check and goes on, for the scripts that run a list of checks
# (with pass and expect); finish ends those, and every other script too.
#
# Processes started in the background are tracked (serve_start and
# mock_start do it; track for the others) and killed with SIGKILL on exit
# unless stopped before (term, stop, kill_wait untrack them). A directory
# work_init made is removed on exit; one given by the caller is kept,
# which is what lets demo_setup reuse what an earlier run of the same
# test left there.

lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
test_name=${0##*/}
test_name=${test_name%.sh}
fails=0 passes=0
lib_own_work='' lib_hooks=() lib_logs=()
declare -gA lib_tracked=() lib_log_label=() pid_of=()

# ---- failures and checks ----------------------------------------------------

# fail MSG...: "NAME: FAIL: MSG" on stderr, the last lines (LOG_TAIL, 15)
# of each watched log but those that match LOG_SKIP (an extended regex;
# by default info lines and librdkafka's CONFWARN notes), then exit 1.
fail() {
  local f skip=${LOG_SKIP-: info: |CONFWARN}
  echo "$test_name: FAIL: $*" >&2
  for f in "${lib_logs[@]}"; do
    [[ -s $f ]] || continue
    if [[ -n $skip ]]; then grep -vE -- "$skip" "$f"; else cat "$f"; fi |
      tail -n "${LOG_TAIL:-15}" | sed "s|^|  ${lib_log_label[$f]}: |" >&2
  done
  exit 1
}
# log_watch FILE [LABEL]: fail prints FILE's tail (if it has any), each
# line after LABEL (FILE's name without its directory and extension).
log_watch() {
  local label=${2:-${1##*/}}
  if [[ -z ${lib_log_label[$1]:-} ]]; then lib_logs+=("$1"); fi
  lib_log_label[$1]=${label%.*}
}
# pass MSG: "ok   MSG" on stdout, one more check passed.
pass() {
  printf 'ok   %s\n' "$*"
  passes=$((passes + 1))
}
# bad MSG: "FAIL MSG" on stdout, one more check failed; the script goes on.
bad() {
  printf 'FAIL %s\n' "$*"
  fails=$((fails + 1))
}
# expect NAME WANT_EXIT PATTERN -- CMD...: runs CMD (stdout in $work/out,
# stderr in $work/err) and passes if it exits WANT_EXIT and, unless
# PATTERN is empty, either output matches the extended regex PATTERN;
# else bad, with the start of CMD's output.
expect() {
  local name=$1 want=$2 pattern=$3 got
  shift 4
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  if [[ $got != "$want" ]]; then
    bad "$name: exit $got, want $want"
    sed 's/^/    /' "$work/err" | head -5
  elif [[ -n $pattern ]] && ! grep -qE -- "$pattern" "$work/err" "$work/out"; then
    bad "$name: output lacks /$pattern/"
    sed 's/^/    /' "$work/err" "$work/out" | head -8
  else
    pass "$name"
  fi
  return 0
}
# check NAME -- CMD...: passes if CMD succeeds, else bad with the end of
# its output (a python3 check reads its script from a heredoc).
check() {
  local name=$1
  shift 2
  if "$@" >"$work/check.out" 2>&1; then
    pass "$name"
  else
    bad "$name"
    sed 's/^/    /' "$work/check.out" | tail -8
  fi
}
# finish: the last line of a script: "NAME: ok" and exit 0, or the number
# of failed checks and exit 1.
finish() {
  if ((fails > 0)); then
    echo "$test_name: $fails check(s) failed$( ((passes == 0)) || echo ", $passes passed")"
    exit 1
  fi
  if ((passes > 0)); then echo "$test_name: ok ($passes checks)"; else echo "$test_name: ok"; fi
  exit 0
}
# need CMD...: fails unless every CMD is installed.
need() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null || fail "$c is not installed (deploy/deps.sh installs it)"
  done
}

# ---- the work directory and clean-up ------------------------------------------

# work_init: $work as given (created if missing), else a new temporary
# directory removed on exit.
work_init() {
  if [[ -z ${work:-} ]]; then
    work=$(mktemp -d)
    lib_own_work=$work
  fi
  mkdir -p "$work"
}
# work_clean NAME...: removes NAME... (globs relative to $work), what an
# earlier run left there that this one must not find.
work_clean() {
  local n
  for n in "$@"; do
    # shellcheck disable=SC2086 # NAME is a glob
    rm -rf "${work:?}"/$n
  done
}
# at_exit CMD: eval CMD on exit, after the tracked processes are killed
# and before a temporary $work is removed.
at_exit() { lib_hooks+=("$1"); }
# track PID...: SIGKILL PID on exit if it is still a running child of
# this shell.
track() {
  local p
  for p in "$@"; do lib_tracked[$p]=1; done
}
# untrack PID...: not PID any more (it was waited for).
untrack() {
  local p
  for p in "$@"; do unset "lib_tracked[$p]"; done
}
# The EXIT trap: tracked processes, the at_exit commands, the temporary
# $work. A process's parent is checked so that a PID used again by then
# is not killed.
lib_cleanup() {
  local p stat h
  for p in "${!lib_tracked[@]}"; do
    stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    stat=${stat##*) }                     # past "PID (comm) "
    [[ ${stat#* } == "$$ "* ]] || continue # the field after the state: the parent
    kill -9 "$p" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  for h in "${lib_hooks[@]}"; do eval "$h" || true; done
  if [[ -n $lib_own_work ]]; then rm -rf "$lib_own_work"; fi
}
trap lib_cleanup EXIT

# ---- processes ----------------------------------------------------------------

# running PID: alive (kill -0 also succeeds on a zombie: look at its state).
running() { [[ -r /proc/$1/status ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status"; }
# term PID: SIGTERM, wait for it, untrack it; returns its exit status.
term() {
  local rc=0
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" || rc=$?
  untrack "$1"
  return "$rc"
}
# stop PID [WHAT]: term; fails unless it exits 0 ("WHAT exited N on
# SIGTERM"; WHAT is serve by default).
stop() {
  local rc=0
  term "$1" || rc=$?
  ((rc == 0)) || fail "${2:-serve} exited $rc on SIGTERM"
}
# kill_wait PID [SIGNAL]: SIGNAL (KILL), wait for it without bash's
# "Killed" line, untrack it; never fails.
kill_wait() {
  kill -"${2:-KILL}" "$1" 2>/dev/null || true
  { wait "$1"; } 2>/dev/null || true
  untrack "$1"
  return 0
}
# now: the wall clock, in seconds with nanoseconds.
now() { date +%s.%N; }

# free_ports N: N free TCP ports of 127.0.0.1, one per line (held open
# together while chosen, so they differ).
free_ports() {
  python3 -c 'import socket,sys
ss = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print("\n".join(str(s.getsockname()[1]) for s in ss))' "$1"
}
# since T: seconds since T (a now), to a tenth.
since() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
# rnd SEED LOW HIGH: a number from LOW to HIGH (3 decimals), the same for
# the same SEED.
rnd() {
  python3 -c "import random,sys; r=random.Random(int(sys.argv[1])); print('%.3f' % r.uniform(float(sys.argv[2]), float(sys.argv[3])))" "$@"
}

# ---- pmrag serve ----------------------------------------------------------------

# serve_start NAME ARG...: `pmrag serve ARG... --ready-file $work/NAME.ready`
# in the background, the ready file removed first, stderr appended to
# $work/NAME.err (watched). NAME may have a directory part, relative to
# $work. Sets pid and pid_of[NAME]; tracked. The OTLP/gRPC receiver gets a
# free port unless ARG... says otherwise (its default, 4317, would make
# tests running side by side collide).
serve_start() {
  local name=$1
  shift
  rm -f "$work/$name.ready"
  log_watch "$work/$name.err" "$name"
  "$pmrag" serve --set otlp.grpc_listen=127.0.0.1:0 "$@" --ready-file "$work/$name.ready" \
    2>>"$work/$name.err" &
  pid=$!
  pid_of[$name]=$pid
  track "$pid"
}
# serve_wait NAME [SECONDS]: until $work/NAME.ready is written (60 s);
# fails when pid_of[NAME] exits first or time runs out.
serve_wait() {
  local name=$1 i
  for ((i = 0; i < ${2:-60} * 20; i++)); do
    [[ -s $work/$name.ready ]] && return 0
    running "${pid_of[$name]}" || fail "$name exited before it was ready"
    sleep 0.05
  done
  fail "$name not ready after ${2:-60} s"
}
# ready_field NAME FIELD: FIELD of $work/NAME.ready (serve's: otlp_http,
# otlp_grpc, api, kafka_bootstrap, input_topics, output_topic; kafka-mock's:
# kafka_bootstrap), as JSON would print it but for strings, bare.
ready_field() {
  python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))[sys.argv[2]]
print(v if isinstance(v, str) else json.dumps(v))' "$work/$1.ready" "$2"
}
# metric ADDR METRIC [CURL_ARG...]: METRIC's value (the whole name, labels
# included) on http://ADDR/metrics (curl given CURL_ARG..., a token say);
# empty when absent or the daemon does not answer in 5 s.
metric() {
  curl -s -m 5 "${@:3}" "http://$1/metrics" 2>/dev/null | awk -v m="$2" '$1 == m { print $2 }'
  return 0
}
# ready_metric NAME METRIC: metric on the API of the daemon of $work/NAME.ready.
ready_metric() { metric "$(ready_field "$1" api)" "$2"; }
# held_wait NAME [SECONDS [CURL_ARG...]]: until the daemon of
# $work/NAME.ready holds no event back in its event-time window
# (serve.reorder_ms): everything it took in is applied. Fails after SECONDS
# (30).
held_wait() {
  local i held api
  api=$(ready_field "$1" api)
  for ((i = 0; i < ${2:-30} * 20; i++)); do
    held=$(metric "$api" pmrag_events_held "${@:3}")
    [[ ${held:-1} == 0 ]] && return 0
    sleep 0.05
  done
  fail "$1 still holds ${held:-?} events back after ${2:-30} s"
}
# case_seq_wait API CASE N [SECONDS]: until GET /v1/cases/CASE on API
# answers seq N (10 s), then prints nothing and returns 0; else prints the
# seq it last read (-1: none) and returns 1. A case is read from the
# committed state, and events released from the event-time window are
# committed with the next batch: held_wait alone can return before.
case_seq_wait() {
  local i got=-1
  for ((i = 0; i < ${4:-10} * 20; i++)); do
    got=$(curl -s -m 5 "http://$1/v1/cases/$2" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["seq"])' 2>/dev/null || echo -1)
    [[ $got == "$3" ]] && return 0
    sleep 0.05
  done
  echo "$got"
  return 1
}
# state_applied DIR [--applied]: the events the state directory DIR has
# taken in (the sum of its cases' seq and held: applied, or held back in
# the event-time window), or with --applied those applied; 0 while it has
# none.
state_applied() {
  if "$pmrag" state dump --state "$1" --json >"$work/sum.jsonl" 2>/dev/null; then
    python3 "$lib_dir/crash_tool.py" sum "$work/sum.jsonl" ${2:+"$2"}
  else
    echo 0
  fi
}

# steps_graph: $work/g.graph, the graph of a one-file repository whose
# functions log "step one", "step two", "step three" and "case closed"
# (the changelog tests' cases).
steps_graph() {
  mkdir -p "$work/repo"
  cat >"$work/repo/steps.py" <<'PY'
import logging

log = logging.getLogger(__name__)


def one():
    log.info("step one")


def two():
    log.info("step two")


def three():
    log.info("step three")


def close():
    log.info("case closed")
PY
  "$pmrag" index "$work/repo" -o "$work/g.graph" -q
}

# ---- the shop fixture ------------------------------------------------------------

# shop_graph: $work/shop.graph, the index of tests/fixtures/repos/shop.
shop_graph() {
  "$pmrag" index "$src/tests/fixtures/repos/shop" -o "$work/shop.graph" -q || fail "pmrag index"
}
# shop_serve ARG...: `pmrag serve` (named serve) on $work/shop.graph with
# the state in $work/state, both listeners on free loopback ports, no
# Kafka, no online learning, then ARG...; waits for its ready file (30 s).
shop_serve() {
  serve_start serve --graph "$work/shop.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set model.learn_online=false "$@"
  serve_wait serve 30
}

# ---- the demo application -------------------------------------------------------

# demo_setup ORDERS SEED: $work/app.graph, the index of deploy/demo/app,
# and $work/log.csv, the log of ORDERS simulated orders (seed SEED); each
# kept from an earlier run in $work when made by the same pmrag binary
# (the graph) from the same demo sources (both) and arguments (the log).
# Their notes go to $work/demo.err, shown when they fail. The simulator runs
# on the OpenTelemetry SDK (deploy/otel-python.sh: installed the first time).
demo_setup() {
  local app=$src/deploy/demo/app tree key
  tree=$(cd "$app" && find . -name __pycache__ -prune -o -type f -printf '%p %s %T@\n' | sort | cksum)
  key="$(stat -c '%s %Y' "$pmrag") $tree"
  if [[ ! -s $work/app.graph || $(cat "$work/app.graph.key" 2>/dev/null) != "$key" ]]; then
    rm -f "$work/app.graph.key"
    "$pmrag" index "$app" -o "$work/app.graph" -q 2>"$work/demo.err" ||
      fail "pmrag index of the demo app: $(tail -5 "$work/demo.err")"
    echo "$key" >"$work/app.graph.key"
  fi
  key="$1 $2 $tree"
  if [[ ! -s $work/log.csv || $(cat "$work/log.csv.key" 2>/dev/null) != "$key" ]]; then
    rm -f "$work/log.csv.key"
    (cd "$app/python" && "$src/deploy/otel-python.sh" -m orderflow.simulate --orders "$1" --seed "$2" \
      --out "$work/log.csv" >/dev/null 2>"$work/demo.err") ||
      fail "the demo's simulator: $(tail -5 "$work/demo.err")"
    echo "$key" >"$work/log.csv.key"
  fi
}
# demo_model LOG [ARG...]: $work/app.model, mined from LOG on the demo
# graph (`pmrag mine ... ARG...`).
demo_model() {
  local log=$1
  shift
  "$pmrag" mine --graph "$work/app.graph" --log "$log" -o "$work/app.model" -q "$@" \
    2>"$work/demo.err" || fail "pmrag mine: $(tail -5 "$work/demo.err")"
}

# ---- Kafka: a standalone `pmrag kafka-mock`, and kcat -----------------------------

# mock_start ARG...: `pmrag kafka-mock ARG...` in the background (stdout,
# where it answers --control, in $work/mock.out; stderr in $work/mock.err,
# watched); waits for its ready file $work/mock.ready (5 s), failing if it
# exits first. Sets mock_pid (tracked), boot (the bootstrap address) and,
# with --control PATH, mock_ctl.
mock_start() {
  local a prev=''
  mock_ctl=''
  for a in "$@"; do
    if [[ $prev == --control ]]; then mock_ctl=$a; fi
    prev=$a
  done
  rm -f "$work/mock.ready"
  log_watch "$work/mock.err" kafka-mock
  "$pmrag" kafka-mock "$@" --ready-file "$work/mock.ready" >"$work/mock.out" 2>"$work/mock.err" &
  mock_pid=$!
  track "$mock_pid"
  for _ in $(seq 100); do
    [[ -s $work/mock.ready ]] && break
    running "$mock_pid" || break
    sleep 0.05
  done
  [[ -s $work/mock.ready ]] || fail "kafka-mock did not start"
  boot=$(ready_field mock kafka_bootstrap)
}
# mock_ask CMD: one command through mock_ctl; prints the cluster's answer
# (its next line on stdout, within 10 s; empty if none).
mock_ask() {
  local n
  n=$(wc -l <"$work/mock.out")
  # Opening the FIFO blocks until the cluster reads it: bounded, in case
  # it dies in between.
  # shellcheck disable=SC2016 # expanded by the inner shell
  timeout 10 bash -c 'echo "$1" >"$2"' _ "$1" "$mock_ctl" || fail "kafka-mock: '$1' not read within 10 s"
  for _ in $(seq 200); do
    [[ $(wc -l <"$work/mock.out") -gt $n ]] && break
    sleep 0.05
  done
  tail -n +$((n + 1)) "$work/mock.out" | head -1
}
# mock_alive: nothing if the cluster runs. If it exited (a client of a
# dead cluster retries for minutes instead): killed by a signal, which is
# librdkafka's mock aborting on one of its own assertions under faults
# (it prints it on stderr), exit 75 for rerun.sh to run the test again;
# else fail, with the end of its stderr.
mock_alive() {
  running "$mock_pid" && return 0
  local rc=0
  wait "$mock_pid" 2>/dev/null || rc=$?
  untrack "$mock_pid"
  if ((rc > 128 && rc != 255)); then
    echo "$test_name: kafka-mock killed by signal $((rc - 128)): $(tail -n 2 "$work/mock.err" | tr '\n' ' ')" >&2
    exit 75
  fi
  fail "kafka-mock exited $rc"
}
# mock_control CMD: mock_ask, failing unless the answer is "ok CMD".
mock_control() {
  mock_alive
  [[ $(mock_ask "$1") == "ok $1" ]] && return 0
  mock_alive
  fail "kafka-mock: '$1' not done"
}
# kafka_read TOPIC FORMAT FILE: TOPIC on $boot from the beginning to its
# end into FILE, one kcat -f FORMAT per message; fails with kcat's error.
kafka_read() {
  kcat -C -b "$boot" -t "$1" -o beginning -e -q -f "$2" >"$3" 2>"$work/kcat.err" ||
    fail "kcat -C $1: $(tail -3 "$work/kcat.err")"
}
