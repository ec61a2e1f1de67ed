#!/usr/bin/env bash
# The live view in a real browser (ctest label ui): the demo daemon, with
# a bearer token and a source-link template, fed the test split of the
# demo application's log; then tests/ui/live_view.js drives Debian's
# chromium through playwright-core: list, search, open a case, see one
# more event arrive without a reload, explain, hit rate, 10,000 live
# cases. A screenshot per step is kept in WORK_DIR/screens.
#
#   live_view.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# playwright-core is pinned by tests/ui/package-lock.json and installed by
# `make deps` (deploy/deps.sh) into .deps/ui; chromium is a Debian package
# (/usr/bin/chromium), also installed by `make deps`. No browser is ever
# downloaded.
set -euo pipefail
usage="usage: live_view.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need node npm
[[ -x /usr/bin/chromium ]] || fail "/usr/bin/chromium is not installed (make deps installs it)"
work_init
work_clean state serve.err serve.ready screens

mods=$src/.deps/ui
if [[ ! -d $mods/node_modules/playwright-core ]] ||
  ! cmp -s "$src/tests/ui/package-lock.json" "$mods/package-lock.json"; then
  "$src/deploy/deps.sh" --ui || fail "installing playwright-core (deploy/deps.sh ui)"
fi

demo_setup 120 7
python3 "$src/tests/integration/replay_tool.py" split "$work/log.csv" "$work" >/dev/null
demo_model "$work/train.csv"
printf 'ui-test-token-%s\n' "$RANDOM$RANDOM" >"$work/token"
chmod 600 "$work/token"

# What the daemon gets before the browser opens (the test split but the
# last event of one case), that event (posted by the test), and 10,000 new
# cases of one event each.
python3 - "$src/tests/integration" "$work" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import replay_tool
work = sys.argv[2]
rows = json.load(open(work + "/test.json"))
counts = {}
for r in rows:
    counts[r["case_id"]] = counts.get(r["case_id"], 0) + 1
target = next(c for c, n in counts.items() if n >= 6)
last = max(i for i, r in enumerate(rows) if r["case_id"] == target)
json.dump(rows[:last] + rows[last + 1:], open(work + "/before.json", "w"))
json.dump([{"case_id": target, "record": replay_tool.record(rows[last])}], open(work + "/events.json", "w"))
first = rows[0]
many = []
for i in range(10000):
    r = dict(first, case_id="load_%05d" % i)
    many.append(replay_tool.record(r))
json.dump(many, open(work + "/many.json", "w"))
PY

serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
  --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
  --set kafka.embedded=false --set model.learn_online=false \
  --set limits.new_cases_per_second=0 --set api.token_file="$work/token" \
  --set ui.source_url='https://git.example.com/orderflow/blob/{rev}/{file}#L{line}' \
  --set ui.source_rev=v1.2
serve_wait serve 60
api=$(ready_field serve api)
otlp=$(ready_field serve otlp_http)
python3 "$src/tests/integration/replay_tool.py" send "$work/before.json" "$otlp" >/dev/null ||
  fail "feeding the daemon"

echo "live view: http://$api/ (screenshots in $work/screens)"
if API=$api OTLP=$otlp TOKEN=$(cat "$work/token") EVENTS=$work/events.json MANY=$work/many.json \
  OUT=$work/screens NODE_PATH=$mods/node_modules node "$src/tests/ui/live_view.js"; then
  pass "the live view in chromium"
else
  bad "the live view in chromium"
fi
stop "${pid_of[serve]}"
finish
