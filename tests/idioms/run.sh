#!/usr/bin/env bash
# The logging idiom suite: for each idiom (a directory NN-name here), run
# its code to regenerate its log with the true emitter of every message,
# index its src/, map the log with pmrag, and print one line per idiom:
# its events and the share whose first mapped symbol holds the true
# emitter's line; then the idioms fully right and the share over all
# events. See README.md.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

usage() {
  cat <<'EOF'
usage: tests/idioms/run.sh [--floors FILE] [PMRAG] [NAME...]

Runs each idiom of tests/idioms (every NN-name directory, or the NAMEs
given: a whole name, or its number), maps its log with PMRAG (default
build/cmd/pmrag) and prints per idiom the events and the share whose first
mapped symbol is the true emitter's, then the total.

options:
      --floors FILE   fail when an idiom scores below its floor in FILE
                      (tab-separated: idiom, floor share; tests/idioms/expected.tsv)
  -h, --help          show this help

environment:
  IDIOMS_WORK=DIR     where each idiom's log, graph and maps go
                      (default .deps/idioms/work; DIR/NAME/map_truth.txt
                      lists an idiom's misses)
  IDIOMS_SETUP=0      install nothing (.deps/idioms must hold the packages)

exit status: 0 every step ran (and every floor held); 1 a step failed or
an idiom fell below its floor; 2 usage, or no pmrag.

examples:
  $ tests/idioms/run.sh
  $ tests/idioms/run.sh build/cmd/pmrag 08 33-js-msgmap-utilformat
  $ tests/idioms/run.sh --floors tests/idioms/expected.tsv build/cmd/pmrag
EOF
}

floors=""
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --floors) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; floors=$2; shift 2 ;;
    --floors=*) floors=${1#*=}; shift ;;
    -*) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
pmrag=${1:-$top/build/cmd/pmrag}
[[ $# -gt 0 ]] && shift
[[ -x $pmrag ]] || { echo "run.sh: no pmrag at $pmrag (make build)" >&2; exit 2; }
[[ -z $floors || -r $floors ]] || { echo "run.sh: cannot read the floors $floors" >&2; exit 2; }
deps=$top/.deps/idioms
work=${IDIOMS_WORK:-$deps/work}

say() { printf 'run.sh: %s\n' "$*" >&2; }
# npm_setup and pip_setup (they print through say).
# shellcheck source=tests/pinned_deps.sh
. "$top/tests/pinned_deps.sh"

# The idioms by number (NN-name, then NNN-name).
all=()
while IFS= read -r d; do all+=("$d"); done < <(
  for d in "$here"/[0-9][0-9]*-*/; do basename "$d"; done | sort -n)
names=()
for w in "$@"; do
  n=${#names[@]}
  for d in "${all[@]}"; do
    [[ $d == "$w" || ${d%%-*} == "$w" ]] && names+=("$d")
  done
  ((${#names[@]} > n)) || { say "no idiom named $w"; exit 2; }
done
(($#)) || names=("${all[@]}")

# One install at a time: a ctest run and one by hand may overlap.
if [[ ${IDIOMS_SETUP:-1} != 0 ]]; then
  mkdir -p "$deps" &&
    (flock 9 && npm_setup "$here" "$deps" idioms && pip_setup "$here" "$deps" idioms) 9>"$deps/.lock" ||
    exit 1
fi
mkdir -p "$work" || exit 1

# step NAME WHAT OUT CMD...: runs CMD, its output in OUT and its errors
# in OUT.err; when it fails, says which idiom and step, with the end of
# what it said.
step() {
  local name=$1 what=$2 out=$3 rc=0
  shift 3
  "$@" </dev/null >"$out" 2>"$out.err" || rc=$?
  ((rc)) || return 0
  say "$name: $what failed (exit $rc): $(tail -5 "$out.err")"
  return 1
}

# idiom NAME: NAME's log regenerated and mapped, in $work/NAME.
idiom() {
  local name=$1 dir=$here/$1 w=$work/$1
  rm -rf "$w" && mkdir -p "$w" || return 1
  export IDIOM_OUT=$w
  if [[ -f $dir/drive.py ]]; then
    step "$name" "the driver drive.py" "$w/drive.out" env -C "$dir" \
      PYTHONPATH="$here/lib:$deps/site-packages" PYTHONDONTWRITEBYTECODE=1 PYTHONNOUSERSITE=1 \
      timeout 120 /usr/bin/python3 drive.py || return 1
  else
    if [[ -f $dir/tsconfig.json ]]; then
      step "$name" "tsc" "$w/tsc.out" "$deps/node_modules/.bin/tsc" -p "$dir" --outDir "$w/out" ||
        return 1
    fi
    step "$name" "the driver drive.js" "$w/drive.out" env -C "$dir" \
      NODE_PATH="$here/lib:$deps/node_modules" \
      timeout 120 node --enable-source-maps drive.js || return 1
  fi
  step "$name" "pmrag index" "$w/index.out" "$pmrag" index "$dir/src" -o "$w/graph" -q || return 1
  # The log mapped without and with the truth columns (the two mappings
  # must be the same), and the text report of the latter, which lists the
  # misses.
  local map=("$pmrag" map --graph "$w/graph" --case-col case --activity-col message -q)
  step "$name" "pmrag map of log.csv" "$w/map.json" "${map[@]}" --log "$w/log.csv" --json &&
    step "$name" "pmrag map of log_truth.csv" "$w/map_truth.json" \
      "${map[@]}" --log "$w/log_truth.csv" --json &&
    step "$name" "pmrag map of log_truth.csv" "$w/map_truth.txt" "${map[@]}" --log "$w/log_truth.csv"
}

# The summary reads the idioms whose steps all ran; one marked with a
# leading ! failed a step (said above).
failed=0
ran=()
for name in "${names[@]}"; do
  if idiom "$name"; then ran+=("$name"); else ran+=("!$name"); failed=1; fi
done

python3 - "$here" "$work" "$floors" "${ran[@]}" <<'PY' || failed=1
import json, math, os, sys

def cut(text, n=90):
    text = repr(text)
    return text if len(text) <= n else text[:n - 3] + "..."

here, work, floors_path, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
floors = {}
if floors_path:
    for n, line in enumerate(open(floors_path, encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        try:
            floors[f[0]] = float(f[1])
        except (IndexError, ValueError):
            sys.exit("run.sh: %s:%d: not 'idiom<TAB>floor share': %r" % (floors_path, n, line))
status = 0
total = right = full = 0
print(("%-34s %6s %6s %6s" % ("idiom", "events", "right", "floor" if floors_path else "")).rstrip())
for name in names:
    if name.startswith("!"):
        print("%-34s %6s  a step failed" % (name[1:], ""))
        status = 1
        continue
    d = os.path.join(work, name)
    try:
        plain = json.load(open(os.path.join(d, "map.json")))
        cov = json.load(open(os.path.join(d, "map_truth.json")))
    except (OSError, ValueError) as e:
        print("run.sh: %s: cannot read pmrag map's JSON: %s" % (name, e), file=sys.stderr)
        status = 1
        continue
    truth = cov["coverage"]
    events = truth["events"]
    share = truth.get("first_symbol_correct", 0.0)
    n_right = round(share * events)
    total += events
    right += n_right
    full += n_right == events
    note = ""
    if plain["activities"] != cov["activities"]:
        note = "  the truth columns change the mapping"
        status = 1
    floor = floors.get(name)
    if floors_path and floor is None:
        note += "  no floor in %s" % floors_path
        status = 1
    elif floor is not None and share + 1e-9 < floor:
        note += "  BELOW its floor"
        status = 1
        misses = cov.get("misses", [])
        for m in misses[:5]:
            note += "\n    miss %d/%d, %s: %s (truth %s)" % (
                m["missed"], m["events"], m["strategy"], cut(m["sample"]), m["truth"])
        if len(misses) > 5:
            note += "\n    (%d more in %s)" % (len(misses) - 5, os.path.join(d, "map_truth.txt"))
    elif floor is not None and math.floor(share * 1000 + 1e-6) / 1000 > floor + 1e-9:
        note += "  above its floor"
    line = "%-34s %6d %6.3f %6s" % (name, events, share, "" if floor is None else "%.3f" % floor)
    print(line.rstrip() + note)
for name in sorted(floors):
    if not os.path.isdir(os.path.join(here, name)):
        print("run.sh: %s has a floor in %s but is no idiom" % (name, floors_path), file=sys.stderr)
        status = 1
print("fully right: %d of %d idioms; first symbol right for %d of %d events (%.3f)"
      % (full, len(names), right, total, right / max(total, 1)))
sys.exit(status)
PY
exit $failed
