#!/usr/bin/env bash
# pmrag kafka-mock as a user meets it: start it in the background, wait for
# its ready file, produce keyed lines with kcat, read them back, stop it.
#
#   tests/integration/kafka_mock_cli.sh PMRAG
set -uo pipefail
pmrag=${1:?pmrag binary}
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need kcat
work=
work_init

# ---- help and usage errors -------------------------------------------------
if "$pmrag" kafka-mock --help >"$work/help" 2>&1 && grep -q -- '--ready-file' "$work/help" &&
  grep -q -- '--partitions' "$work/help"; then
  pass "--help"
else
  bad "--help"
fi
"$pmrag" kafka-mock --brokers 0 >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- '--brokers' "$work/err"; then
  pass "--brokers 0 is a usage error"
else
  bad "--brokers 0: exit $rc"; sed 's/^/    /' "$work/err"
fi
"$pmrag" kafka-mock --topic a --topic a >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "'a'" "$work/err"; then
  pass "a topic given twice is a usage error"
else
  bad "--topic a --topic a: exit $rc"; sed 's/^/    /' "$work/err"
fi
if "$pmrag" --help | grep -q 'kafka-mock'; then pass "listed in pmrag --help"; else
  bad "not listed in pmrag --help"; fi

# ---- a running cluster ------------------------------------------------------
# (Its ready file: $work/mock.ready; stdout: $work/mock.out.)
mock_start --partitions 2
case $boot in
127.0.0.1:[0-9]*) pass "ready file names the bootstrap address ($boot)" ;;
*) bad "ready file: '$(cat "$work/mock.ready")'" ;;
esac
# The same address on stdout.
for _ in $(seq 20); do [ -s "$work/mock.out" ] && break; sleep 0.05; done
if [ "$(cat "$work/mock.out")" = "$boot" ]; then pass "stdout has the address"; else
  bad "stdout: '$(cat "$work/mock.out")'"; fi

# The topics it created, with the partitions asked for.
if kcat -L -b "$boot" -t otlp_spans >"$work/meta" 2>&1 &&
  grep -q 'topic "otlp_spans" with 2 partitions' "$work/meta" &&
  kcat -L -b "$boot" >"$work/meta_all" 2>&1 &&
  grep -q '"otlp_logs"' "$work/meta_all" && grep -q '"pmrag_predictions"' "$work/meta_all"; then
  pass "default topics, 2 partitions"
else
  bad "topics"; sed 's/^/    /' "$work/meta" "$work/meta_all" 2>/dev/null | head -20
fi

# Keyed lines in, the same lines out (order is per partition, so sorted).
printf '%s\n' 'case-1:span a' 'case-2:span b' 'case-1:span c' 'case-3:{"x":1}' 'case-2:span d' \
  >"$work/in"
if kcat -P -b "$boot" -t otlp_spans -K: <"$work/in" 2>"$work/kcat_err"; then
  pass "kcat produces"
else
  bad "kcat -P"; sed 's/^/    /' "$work/kcat_err"
fi
timeout 20 kcat -C -b "$boot" -t otlp_spans -e -o beginning -q -f '%k:%s\n' >"$work/back" \
  2>"$work/kcat_err"
if [ "$(sort "$work/in")" = "$(sort "$work/back")" ]; then
  pass "kcat reads back what was produced"
else
  bad "kcat -C"; diff <(sort "$work/in") <(sort "$work/back") | sed 's/^/    /'
  sed 's/^/    /' "$work/kcat_err"
fi
# One key, one partition: a case's lines stay in order.
if [ "$(grep '^case-1:' "$work/back")" = "$(printf 'case-1:span a\ncase-1:span c')" ]; then
  pass "per-key order"
else
  bad "per-key order"; sed 's/^/    /' "$work/back"
fi

# ---- SIGTERM: exit 0, ready file removed ----------------------------------
rc=0
term "$mock_pid" || rc=$?
if [ "$rc" = 0 ]; then pass "SIGTERM exits 0"; else bad "SIGTERM: exit $rc"; fi
if [ ! -e "$work/mock.ready" ]; then pass "ready file removed"; else bad "ready file left behind"; fi

# ---- fault injection through --control -------------------------------------
if grep -q -- '--control' "$work/help" && grep -q 'down BROKER|all' "$work/help"; then
  pass "--help documents --control"
else
  bad "--help says nothing of --control"
fi
"$pmrag" kafka-mock --control "$work/no/such/dir/fifo" >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'no/such/dir/fifo' "$work/err"; then
  pass "an unusable --control path is a usage error"
else
  bad "--control in a missing directory: exit $rc"; sed 's/^/    /' "$work/err"
fi
ctl=$work/faults
mock_start --brokers 2 --partitions 2 --control "$ctl"
if [ -p "$ctl" ]; then pass "--control creates a FIFO"; else bad "--control: $ctl is not a FIFO"; fi
# mock_ask: the answer line on stdout, printed once the fault is in place.
ans=$(mock_ask 'error Produce TOPIC_AUTHORIZATION_FAILED 1')
if [ "$ans" = "ok error Produce TOPIC_AUTHORIZATION_FAILED 1" ]; then pass "error: answered"; else
  bad "error: answer '$ans'"; fi
if ! echo 'k:first' | timeout 20 kcat -P -b "$boot" -t otlp_spans -K: 2>"$work/kcat_err" &&
  grep -qi 'authorization' "$work/kcat_err"; then
  pass "the injected Produce error reaches the producer"
else
  bad "the injected Produce error was not seen"; sed 's/^/    /' "$work/kcat_err"
fi
if echo 'k:second' | timeout 20 kcat -P -b "$boot" -t otlp_spans -K: 2>"$work/kcat_err"; then
  pass "only COUNT requests fail"
else
  bad "the produce after the injected error failed"; sed 's/^/    /' "$work/kcat_err"
fi
ans=$(mock_ask 'down all')
if [ "$ans" = "ok down all" ] &&
  ! timeout 20 kcat -L -b "$boot" -m 2 >/dev/null 2>"$work/kcat_err"; then
  pass "down all: no metadata"
else
  bad "down all: answer '$ans', or kcat -L still works"
fi
ans=$(mock_ask 'up all')
if [ "$ans" = "ok up all" ] && timeout 20 kcat -L -b "$boot" -m 5 >/dev/null 2>"$work/kcat_err"; then
  pass "up all: metadata again"
else
  bad "up all: answer '$ans', or kcat -L fails"; sed 's/^/    /' "$work/kcat_err"
fi
# One broker down: the mock moves no leaders, so the cluster still
# answers metadata through the other one.
ans=$(mock_ask 'down 2')
if [ "$ans" = "ok down 2" ] && timeout 20 kcat -L -b "$boot" -m 5 >/dev/null 2>&1; then
  pass "down 2: broker 1 still answers"
else
  bad "down 2: answer '$ans', or no metadata from broker 1"
fi
mock_ask 'up 2' >/dev/null
for bad in 'down 3' 'bogus' 'error Produce NO_SUCH_ERROR' 'error NoSuchRequest NOT_COORDINATOR' \
  'rtt all x'; do
  ans=$(mock_ask "$bad")
  case $ans in
  error:*) pass "'$bad' is refused ($ans)" ;;
  *) bad "'$bad': answer '$ans'" ;;
  esac
done
if [ "$(mock_ask 'rtt all 0')" = "ok rtt all 0" ] && [ "$(mock_ask 'clear Fetch')" = "ok clear Fetch" ]; then
  pass "rtt and clear"
else
  bad "rtt or clear"
fi
timeout 20 kcat -C -b "$boot" -t otlp_spans -e -o beginning -q -f '%k:%s\n' >"$work/back" 2>/dev/null
if [ "$(cat "$work/back")" = "k:second" ]; then pass "the failed message is not stored"; else
  bad "messages after the faults: '$(cat "$work/back")'"; fi
rc=0
term "$mock_pid" || rc=$?
if [ "$rc" = 0 ] && [ ! -e "$ctl" ]; then pass "SIGTERM with --control: exit 0, FIFO removed"; else
  bad "SIGTERM with --control: exit $rc, FIFO $(ls -l "$ctl" 2>&1)"; fi

finish
