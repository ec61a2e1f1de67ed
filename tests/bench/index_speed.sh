#!/usr/bin/env bash
# Indexing speed: `pmrag index` on Debian's whole dist-packages tree against
# the time Python needs merely to ast.parse the same .py files, measured in
# one run on this machine: RUNS rounds (3), each running pmrag and then every
# Python found once, alternated so that a change in the machine's load
# touches all of them. For each: CPU time (user + system of the process and
# its threads, as the kernel accounts the waited child) and wall time,
# medians and ranges; the ratios are of the medians, and the goal
# (pmrag <= 0.5 x Python) is on CPU time. Prints one JSON line and a
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
import ast, sys
for f in open(sys.argv[1]):
    try:
        with open(f.rstrip("\n"), "rb") as fh:
            ast.parse(fh.read())
    except (SyntaxError, ValueError, OSError):
        pass
PY

# Each Python by its interpreter's own path: a pyenv shim would add its
# shell scripts' CPU time to the parse.
pys=()
for py in /usr/bin/python3 "$(command -v python3)"; do
  [[ -x $py ]] || continue
  py=$("$py" -c 'import sys; print(sys.executable)')
  [[ " ${pys[*]} " == *" $py "* ]] || pys+=("$py")
done
"$pmrag" index "$tree" -o "$work/g.graph" -q --json >"$work/stats.json"
python3 - "$work" "$pmrag" "$tree" "$runs" "$nfiles" "$lines" "$bytes" "$(nproc)" "${pys[@]}" <<'PY'
import json, resource, statistics, subprocess, sys, time
work, pmrag, tree = sys.argv[1:4]
runs, nfiles, lines, nbytes, cpus = map(int, sys.argv[4:9])
pys = sys.argv[9:]


def timed(cmd):
    """Wall and CPU seconds (user + system) of one run of cmd."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def spread(xs):
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3), "max": round(max(xs), 3)}


def show(f):
    c, w = f["cpu_seconds"], f["wall_seconds"]
    return "CPU %.2f s (%.2f-%.2f), wall %.2f s (%.2f-%.2f)" % (
        c["median"], c["min"], c["max"], w["median"], w["min"], w["max"])


cmds = {"pmrag": [pmrag, "index", tree, "-o", work + "/g.graph", "-q", "--json"]}
for py in pys:
    cmds[py] = [py, work + "/astparse.py", work + "/files"]
runs_by = {name: [] for name in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        runs_by[name].append(timed(cmd))
fig = {name: {"cpu_seconds": spread([c for _, c in rs]), "wall_seconds": spread([w for w, _ in rs])}
       for name, rs in runs_by.items()}

st = json.load(open(work + "/stats.json"))
pm = fig["pmrag"]
res = {"bench": "index_speed", "tree": tree, "py_files": nfiles, "py_lines": lines,
       "py_bytes": nbytes, "cpus": cpus, "rounds": runs, "pmrag": pm,
       "pmrag_phases": {k: st[k] for k in st if k.startswith("seconds_")},
       "pmrag_files_indexed": st["files_indexed"], "pmrag_symbols": st["symbols"],
       "ast_parse": {}}
for py in pys:
    ver = subprocess.run([py, "-c", "import sys; print(sys.version.split()[0])"],
                         capture_output=True, text=True).stdout.strip()
    f = fig[py]
    res["ast_parse"][py] = dict(
        f, version=ver,
        cpu_ratio_pmrag_to_python=round(pm["cpu_seconds"]["median"] / f["cpu_seconds"]["median"], 3),
        wall_ratio_pmrag_to_python=round(pm["wall_seconds"]["median"] / f["wall_seconds"]["median"], 3))
print(json.dumps(res))
print(f"{nfiles} files, {lines} lines, {nbytes} bytes; medians and ranges of {runs} alternated rounds,"
      f" {cpus} CPUs", file=sys.stderr)
print(f"pmrag index: {show(pm)}", file=sys.stderr)
for py in pys:
    a = res["ast_parse"][py]
    print(f"{py} {a['version']} ast.parse: {show(a)}; pmrag/python CPU {a['cpu_ratio_pmrag_to_python']:.2f}"
          f" (goal <= 0.50), wall {a['wall_ratio_pmrag_to_python']:.2f}", file=sys.stderr)
PY
