#!/usr/bin/env bash
# pmrag state dump and stats on a small state directory written by the
# sessions unit test (its fill_state_dir test with PMRAG_SESS_FILL set),
# and the errors a user meets.
#
#   tests/integration/state_cli.sh PMRAG TEST_SESSIONS
set -uo pipefail
pmrag=${1:?pmrag binary}
test_sessions=${2:?test_sessions binary}
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work=
work_init

# same NAME FILE -- expected text on stdin
same() {
  if diff -u - "$2" >"$work/diff"; then pass "$1"; else
    bad "$1"; sed 's/^/    /' "$work/diff" | head -20
  fi
}

state=$work/state
log_watch "$work/fill" test_sessions
PMRAG_SESS_FILL=$state "$test_sessions" fill_state_dir >"$work/fill" 2>&1 || fail "fill the state directory"

# ---- dump ------------------------------------------------------------------
expect "dump --json" 0 "" -- "$pmrag" state dump --state "$state" --json
same "dump --json lines" "$work/out" <<'JSON'
{"case_id":"case-a","seq":3,"last_activity":"checkout \"fast\"","last_time":"2026-01-02T03:04:05.500000000Z","held":0}
{"case_id":"case-b","seq":1,"last_activity":7,"last_time":"","held":0}
{"case_id":"case-c","seq":0,"last_activity":null,"last_time":"","held":0}
JSON
cp "$work/out" "$work/dump.json"
expect "dump --json is JSON" 0 "" -- python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["case_id"] for r in rows] == ["case-a", "case-b", "case-c"], rows
assert all(set(r) == {"case_id", "seq", "last_activity", "last_time", "held"} for r in rows)
' "$work/dump.json"
expect "dump table" 0 "case-a +3 +checkout \"fast\" +2026-01-02T03:04:05.500000000Z" -- \
  "$pmrag" state dump --state "$state"
expect "dump table header" 0 "^CASE +SEQ +LAST ACTIVITY +LAST TIME" -- \
  "$pmrag" state dump --state "$state"
expect "dump table: activity not in the dictionary" 0 "case-b +1 +#7 +-$" -- \
  "$pmrag" state dump --state "$state"
expect "dump table: no events" 0 "case-c +0 +- +-$" -- "$pmrag" state dump --state "$state"

# ---- stats -----------------------------------------------------------------
expect "stats --json" 0 "" -- "$pmrag" state stats --state "$state" --json
cp "$work/out" "$work/stats.json"
expect "stats --json fields" 0 "" -- python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["cases"] == 3 and s["dict"] == 3 and s["counters"] == 2, s
assert s["offsets"] == [{"topic": "events", "partition": 0, "next_offset": 42},
                        {"topic": "events", "partition": 1, "next_offset": 7}], s
assert 0 < s["used_bytes"] <= s["file_bytes"] <= s["map_size"], s
assert s["bytes_per_case"] == round(s["used_bytes"] / 3), s
assert s["page_size"] >= 512, s
' "$work/stats.json"
expect "stats table" 0 "^cases +3$" -- "$pmrag" state stats --state "$state"
expect "stats table offsets" 0 "^  events/1 +7$" -- "$pmrag" state stats --state "$state"
expect "stats table per case" 0 "^per case +[0-9]+ bytes$" -- "$pmrag" state stats --state "$state"

# ---- help and errors -------------------------------------------------------
expect "state --help" 0 "pmrag state dump --state DIR" -- "$pmrag" state --help
expect "state without subcommand" 2 "usage: pmrag state dump" -- "$pmrag" state
expect "dump --help" 0 "last_activity" -- "$pmrag" state dump --help
expect "stats --help" 0 "bytes_per_case" -- "$pmrag" state stats --help
expect "unknown subcommand" 2 "unknown subcommand 'frob'" -- "$pmrag" state frob
expect "dump without --state" 2 "missing --state DIR" -- "$pmrag" state dump
expect "unknown option" 2 "unknown option '--nope'" -- "$pmrag" state stats --state "$state" --nope
# A directory that is missing or not a state directory is bad input: 2.
expect "missing directory" 2 "^pmrag state: /nonexistent/pmrag-state: no such state directory$" -- \
  "$pmrag" state dump --state /nonexistent/pmrag-state
if [ -e /nonexistent/pmrag-state ]; then bad "missing directory was created"; else pass "missing directory not created"; fi
mkdir "$work/empty"
expect "not a state directory" 2 "pmrag state: .*/empty: not a pmrag state directory" -- \
  "$pmrag" state stats --state "$work/empty"
if [ -z "$(ls -A "$work/empty")" ]; then pass "empty directory left empty"; else
  bad "files created in a non-state directory: $(ls -A "$work/empty")"; fi
expect "a file" 2 "not a directory" -- "$pmrag" state dump --state "$work/fill"

# Read-only: inspecting creates nothing in the state directory either.
before=$(cd "$state" && printf '%s ' *)
"$pmrag" state stats --state "$state" >/dev/null 2>&1
after=$(cd "$state" && printf '%s ' *)
if [ "$before" = "$after" ]; then pass "state directory unchanged ($after)"; else bad "files changed: $before -> $after"; fi

# Output to a closed pipe ends quietly.
expect "dump | head" 0 "" -- bash -c "'$pmrag' state dump --state '$state' --json | head -1"

finish
