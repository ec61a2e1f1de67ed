#!/usr/bin/env bash
# pmrag's message templates against what the real libraries render. The
# fixtures in tests/fixtures/renderings log through many shapes: Python's
# logging (%-args, str.format, f-strings, +, locals, constants, bound
# loggers, an adapter, wrappers) and, in JavaScript, the npm debug package
# (pinned there; installed here, cached in WORK_DIR/js/node_modules), code
# shaped as tsc emits it, util.debuglog and console. Their drivers (run.py,
# run.js) run every call and write what the library rendered with the true
# file:line; pmrag indexes the fixture and maps that log, and every event's
# first symbol must hold its truth line, found by a template (a message
# that only token similarity maps is a rendering pmrag got wrong). A
# failure lists the missed activities: the rendered sample, the truth, and
# where pmrag put it.
#
#   renderings.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: renderings.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
fix=$src/tests/fixtures/renderings
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need node
work_init
# (Not js/node_modules: npm's packages, kept between runs.)
work_clean py 'js/[!n]*' '*.jsonl' '*.csv' '*.graph' '*.map.json' '*.err'

# half NAME: $work/NAME.jsonl (the driver's) to $work/NAME.csv, the index
# of $work/NAME (the drivers left out), the map; two checks (the first
# symbols, the templates), each pass or bad with what went wrong.
half() {
  local name=$1 dir=$work/$1
  python3 - "$work/$name.jsonl" "$work/$name.csv" <<'PY' || fail "$name: cannot convert the driver's output"
import csv, json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
with open(sys.argv[2], "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["case_id", "timestamp", "activity", "code.filepath", "code.lineno"])
    for i, r in enumerate(rows):
        w.writerow([r["case"], "2024-01-01T00:%02d:%02dZ" % (i // 60, i % 60), r["message"],
                    r["file"], r["line"]])
PY
  "$pmrag" index "$dir" -o "$work/$name.graph" -q --exclude run.py --exclude run.js \
    2>"$work/$name.err" || fail "$name: pmrag index: $(tail -5 "$work/$name.err")"
  "$pmrag" map --graph "$work/$name.graph" --log "$work/$name.csv" --json -q \
    >"$work/$name.map.json" 2>"$work/$name.err" || fail "$name: pmrag map: $(tail -5 "$work/$name.err")"
  local rc=0
  python3 - "$work/$name.map.json" "$name" <<'PY' || rc=$?
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    cov = d["coverage"]
    right = cov["first_symbol_correct"]
except (OSError, ValueError, KeyError) as e:
    print("%s: %s" % (sys.argv[1], e))
    sys.exit(4)
print("%s: %d events, first symbol right for %s" % (sys.argv[2], cov["events"], right))
rc = 0
if right != 1.0:
    rc |= 1
    for m in d.get("misses", []):
        print("  miss: %s (%s)\n    sample:    %s\n    truth:     %s\n    mapped to: %s"
              % (m["activity"], m.get("strategy", "?"), m.get("sample", ""), m.get("truth", ""),
                 m.get("mapped_to", "(nothing)")))
for a in sorted(d["activities"], key=lambda a: a["activity"]):
    if a["strategy"] not in ("template", "const"):
        rc |= 2
        s = a["symbols"][0]["symbol"] if a["symbols"] else "(nothing)"
        print("  by %s, not by a template: %s -> %s" % (a["strategy"], a["activity"], s))
sys.exit(rc)
PY
  ((rc < 4)) || fail "$name: cannot read pmrag map's JSON"
  if ((rc & 1)); then
    bad "$name: some events map to the wrong symbol (above)"
  else
    pass "$name: every event's first symbol holds its truth line"
  fi
  # The right symbol found by token similarity still means that no
  # template matched what the library rendered.
  if ((rc & 2)); then
    bad "$name: some messages match no template (above)"
  else
    pass "$name: every message matches a template"
  fi
}

# Python: the standard library only.
cp -r "$fix/py" "$work/py"
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$work/py/run.py" "$work/py.jsonl" 2>"$work/py.err" ||
  fail "the Python driver: $(tail -5 "$work/py.err")"
half py

# JavaScript: the pinned npm debug package, installed once per work dir.
mkdir -p "$work/js"
cp -r "$fix/js/." "$work/js/"
js=1
want=$(node -p 'require(process.argv[1]).dependencies.debug' "$work/js/package.json")
have=$(node -p 'require(process.argv[1]).version' "$work/js/node_modules/debug/package.json" 2>/dev/null || true)
if [[ $have != "$want" ]]; then
  command -v npm >/dev/null || fail "npm is not installed (deploy/deps.sh installs it)"
  if ! (cd "$work/js" && npm ci --no-audit --no-fund --silent >"$work/npm.err" 2>&1); then
    if ! timeout 30 npm ping >/dev/null 2>&1; then
      echo "$test_name: SKIP the JavaScript half: npm cannot reach the registry"
      js=0
    else
      fail "npm ci of debug@$want failed: $(tail -5 "$work/npm.err")"
    fi
  fi
fi
if ((js)); then
  (cd "$work/js" && node run.js "$work/js.jsonl") 2>"$work/js.err" ||
    fail "the JavaScript driver: $(tail -5 "$work/js.err")"
  half js
fi
finish
