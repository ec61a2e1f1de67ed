#!/usr/bin/env bash
# Indexing speed: `pmrag index` on Debian's whole dist-packages tree against
# the time Python needs merely to ast.parse the same .py files, measured in
# one run on this machine. Prints one JSON line per measurement and a
# summary. Not a timed test: it prints figures (ctest label "bench").
#
#   tests/bench/index_speed.sh PMRAG [TREE] [RUNS]
set -euo pipefail
pmrag=${1:?pmrag binary}
tree=${2:-/usr/lib/python3/dist-packages}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The files pmrag indexes (same default excludes as pmrag: none apply in
# dist-packages but __pycache__, which holds no .py).
find "$tree" -name '*.py' -not -path '*/__pycache__/*' | sort >"$work/files"
nfiles=$(wc -l <"$work/files")
lines=$(xargs cat <"$work/files" | wc -l)
bytes=$(xargs cat <"$work/files" | wc -c)

cat >"$work/astparse.py" <<'PY'
import ast, sys, time
files = [l.rstrip("\n") for l in open(sys.argv[1])]
t = time.perf_counter()
ok = 0
for f in files:
    try:
        with open(f, "rb") as fh:
            ast.parse(fh.read())
        ok += 1
    except (SyntaxError, ValueError, OSError):
        pass
print(f"{time.perf_counter() - t:.3f} {ok}")
PY

best() { sort -n | head -1; }
pm=()
for _ in $(seq "$runs"); do
  pm+=($(python3 - "$pmrag" "$tree" "$work/g.graph" <<'PY'
import json, subprocess, sys, time
t = time.perf_counter()
out = subprocess.run([sys.argv[1], "index", sys.argv[2], "-o", sys.argv[3], "-q", "--json"],
                     check=True, capture_output=True, text=True).stdout
print(f"{time.perf_counter() - t:.3f}")
PY
))
done
pmrag_s=$(printf '%s\n' "${pm[@]}" | best)

declare -A py_s
for py in /usr/bin/python3 "$(command -v python3)"; do
  [ -x "$py" ] || continue
  ts=()
  for _ in $(seq "$runs"); do
    ts+=($("$py" "$work/astparse.py" "$work/files" | cut -d' ' -f1))
  done
  py_s[$py]=$(printf '%s\n' "${ts[@]}" | best)
done

"$pmrag" index "$tree" -o "$work/g.graph" -q --json >"$work/stats.json"
python3 - "$work/stats.json" "$pmrag_s" "$nfiles" "$lines" "$bytes" "$(nproc)" "${!py_s[@]}" -- "${py_s[@]}" <<'PY'
import json, subprocess, sys
st = json.load(open(sys.argv[1]))
pmrag_s, nfiles, lines, nbytes, cpus = float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rest = sys.argv[7:]
sep = rest.index("--")
pys, times = rest[:sep], [float(x) for x in rest[sep + 1:]]
res = {"bench": "index_speed", "tree": "dist-packages", "py_files": nfiles, "py_lines": lines,
       "py_bytes": nbytes, "cpus": cpus, "pmrag_seconds": pmrag_s,
       "pmrag_phases": {k: st[k] for k in st if k.startswith("seconds_")},
       "pmrag_files_indexed": st["files_indexed"], "pmrag_symbols": st["symbols"],
       "ast_parse": {}}
for py, t in zip(pys, times):
    ver = subprocess.run([py, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True).stdout.strip()
    res["ast_parse"][py] = {"version": ver, "seconds": t, "ratio_pmrag_to_python": round(pmrag_s / t, 3)}
print(json.dumps(res))
for py, t in zip(pys, times):
    print(f"pmrag index: {pmrag_s:.2f} s; {py} ast.parse: {t:.2f} s; ratio {pmrag_s / t:.2f} (goal <= 0.50)", file=sys.stderr)
PY
