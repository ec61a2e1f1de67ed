#!/usr/bin/env bash
# The learning curve over the corpus of real codebases
# (tests/bench/logs/corpus.tsv): for each codebase with a log in
# CORPUS_DIR (tests/bench/logs/run.sh makes them), its code indexed again
# with PMRAG, then `pmrag eval --learning-curve`: the same test split (the
# last 30% of cases by first event) scored with only the first K training
# cases for K = 0, 5, 20, 100 and all: pmrag's top-1 and change top-1, df2's
# over pmrag's mapping and over the true emitters (df2*), and pmrag's top-3
# on the transitions no training case shows. Prints one table, the goals
# checked at its end (they are figures to report, not a pass/fail gate).
#
#   tests/bench/learning_curve.sh [PMRAG] [NAME...]
#
# PMRAG defaults to build/cmd/pmrag. CORPUS_DIR (default .deps/logs) holds
# the logs; graphs and eval outputs go to LC_DIR (default a directory of
# its own in the build tree). A codebase without a log, or whose
# directory to index is missing, is reported and skipped (exit status 1).
# The codebases run one after the other, each eval on every CPU.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
pmrag=${1:-$top/build/cmd/pmrag}
[[ $# -gt 0 ]] && shift
logs=${CORPUS_DIR:-$top/.deps/logs}
out=${LC_DIR:-$top/build/learning_curve}
mkdir -p "$out"
want=("$@")
failed=0
[[ -x $pmrag ]] || { echo "learning_curve.sh: no pmrag at $pmrag (make build)" >&2; exit 2; }
say() { printf 'learning_curve.sh: %s\n' "$*" >&2; }
runner() { case $1 in *.py) echo /usr/bin/python3 ;; *) echo node ;; esac; }

results=()
while IFS=$'\t' read -r name lang spec gen; do
  [[ -z $name || $name == \#* ]] && continue
  if ((${#want[@]})) && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  log=$logs/$name.csv.gz
  [[ -s $log ]] || { say "$name: no log at $log (tests/bench/logs/run.sh makes it)"; failed=1; continue; }
  repo=$($(runner "$gen") "$here/logs/$gen" --repo </dev/null 2>/dev/null)
  [[ -n $repo && -d $repo ]] || { say "$name: nothing to index (${repo:-no --repo})"; failed=1; continue; }
  "$pmrag" index "$repo" -o "$out/$name.graph" -q </dev/null || { say "$name: index failed"; failed=1; continue; }
  t0=$SECONDS
  if ! "$pmrag" eval --graph "$out/$name.graph" --log "$log" -q --json --learning-curve \
    </dev/null >"$out/$name.curve.json"; then
    say "$name: eval failed"; failed=1; continue
  fi
  say "$name: $((SECONDS - t0)) s"
  results+=("$name	$lang	$out/$name.curve.json")
done < <(cat "$here/logs/corpus.tsv")

((${#results[@]})) || { say "nothing evaluated"; exit 1; }
printf '%s\n' "${results[@]}" | python3 -c '
import json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in sys.stdin if l.strip()]
def t1(r): return r["top_k"]["1"]
print("| codebase | K=0 top-1 / chg | K=5 | K=20 | K=100 | all | df2 all | df2* all | unseen top-3 (share) |")
print("|---|---|---|---|---|---|---|---|---|")
k0, k20, goal20, unseen = [], [], [], []
for name, lang, path in rows:
    d = json.load(open(path))
    c = d["learning_curve"]
    cell = lambda p: "%.3f / %.3f" % (t1(p["pmrag"]["all"]), t1(p["pmrag"]["change"]))
    last = c[-1]
    df2 = last["df2"]; dft = last["df2_true"]
    u = d["unseen"]
    print("| %s | %s | %s | %s | %s | %s | %.3f / %.3f | %s | %.3f (%.0f%%) |" % (
        name, cell(c[0]), cell(c[1]), cell(c[2]), cell(c[3]), cell(last),
        t1(df2["all"]), t1(df2["change"]),
        "%.3f / %.3f" % (t1(dft["all"]), t1(dft["change"])) if dft else "-",
        u["top_k"]["3"], 100.0 * u["n"] / max(d["n"], 1)))
    k0.append((name, t1(c[0]["pmrag"]["all"]), t1(c[0]["pmrag"]["change"])))
    if dft:
        goal20.append((name, t1(c[2]["pmrag"]["all"]), t1(dft["all"]), t1(df2["all"])))
    unseen.append((name, u["top_k"]["3"]))
print()
bad0 = [n for n, a, ch in k0 if a < 0.45 or ch < 0.30]
print("K=0 (no training case), top-1 >= 0.45 and change top-1 >= 0.30: met on %d of %d%s" % (
    len(k0) - len(bad0), len(k0), "; not on " + ", ".join(bad0) if bad0 else ""))
if goal20:
    gaps = [a - t for n, a, t, d in goal20]
    print("K=20 top-1 minus df2* with all data: median %+.3f (met on %d of %d); below df2 with all data on: %s" % (
        statistics.median(gaps), sum(g >= 0 for g in gaps), len(gaps),
        ", ".join(n for n, a, t, d in goal20 if a < d) or "none"))
badu = [n for n, x in unseen if x < 0.5]
print("unseen transitions, top-3 >= 0.50: met on %d of %d%s" % (
    len(unseen) - len(badu), len(unseen), "; not on " + ", ".join(badu) if badu else ""))
'
exit $failed
