#!/usr/bin/env bash
# Version shift: a model trained on release N of a codebase, predicting
# release N+1. For each pair below, both releases are fetched at pinned
# versions (checksums) into .deps/version_shift, indexed, and run by the
# same corpus generator (tests/bench/logs/gen_*) with the same seed. Then,
# on N+1's test split and N+1's graph (the split `pmrag eval` makes):
#
#   N+1      pmrag trained on N+1's own training split (the bar)
#   N->N+1   pmrag trained on N's training split (as many cases), re-mapped
#            onto N+1's graph (pmrag eval --model, as pmrag remap does)
#   df2 N    a second-order directly-follows table trained on N's training
#            split, keyed by activity (template text): N's log mapped on
#            N+1's graph, so a reworded template is a key it never saw
#   df2 N+1  the same table trained on N+1's training split
#
# and the remap report: templates kept, moved, changed and gone between the
# releases, and the new sites no activity of N knows. The goal: N->N+1 at
# 0.98 of N+1 or more, in top-1 and in change top-1, on every pair.
#
# A second table scores the targets of paths N+1 added (pmrag eval
# --added-since N's graph): those whose true line is a logging site whose
# message N logs nowhere (new code, or a reworded message), with top-1 and
# top-3 of N+1 and of N->N+1 on them: what a model carried across the
# release does on what it never saw.
#
#   tests/bench/version_shift.sh [PMRAG] [NAME...]
#
# PMRAG defaults to build/cmd/pmrag. Everything goes to VS_DIR
# (.deps/version_shift): per release its files, graph and log; per pair the
# model, the remap report and the eval outputs. VS_REGEN=1 generates the
# logs again. Exit status 1 when a pair could not be run.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
pmrag=${1:-$top/build/cmd/pmrag}
[[ $# -gt 0 ]] && shift
out=${VS_DIR:-$top/.deps/version_shift}
mkdir -p "$out"
want=("$@")
[[ -x $pmrag ]] || { echo "version_shift.sh: no pmrag at $pmrag (make build)" >&2; exit 2; }
say() { printf 'version_shift.sh: %s\n' "$*" >&2; }

# name | generator | release N | release N+1. A release is
# pypi:PKG==VERSION:SHA256 (the wheel, unpacked: PYTHONPATH for the
# generator) or npm:DIR (a package.json + package-lock.json below tests/bench,
# installed with `npm ci`: the generator's --deps).
pairs=(
  "paramiko|gen_paramiko.py|pypi:paramiko==2.11.0:655f25dc8baf763277b933dfcea101d636581df8d6b9774d1fb653426b72c270|pypi:paramiko==2.12.0:b2df1a6325f6996ef55a8789d0462f5b502ea83b3c990cbb5bbe57345c6812c4"
  "ldap3|gen_ldap3.py|pypi:ldap3==2.8.1:7c3738570766f5e5e74a56fade15470f339d5c436d821cf476ef27da0a4de8b0|pypi:ldap3==2.9.1:5869596fc4948797020d3f03b7939da938778a0f9e2009f7a072ccf92b8e8d70"
  "express|gen_express.js|npm:version_shift/express-4.18.2|npm:logs/npm/express"
  "asyncssh|gen_asyncssh.py|pypi:asyncssh==2.14.2:6ff9923389a16bda4f681c1fc253386cc4e1f19fb74fd0684dd0d31943ebe5e4|pypi:asyncssh==2.15.0:72d140a4a4f6d246d04eabfe0052a9b94475d6d814ef1cc7bb8b3860d0ce39e5"
  "ioredis|gen_ioredis.js|npm:version_shift/ioredis-5.7.0|npm:logs/npm/ioredis"
)

# fetch SPEC DIR: the release into DIR (once); prints its version.
fetch() {
  local spec=$1 dir=$2
  case $spec in
    pypi:*)
      local rest=${spec#pypi:} pin sha
      pin=${rest%%:*} sha=${rest##*:}
      if [[ ! -f $dir/.ok ]]; then
        rm -rf "$dir" && mkdir -p "$dir/dl"
        python3 -m pip download -q --no-deps --only-binary=:all: -d "$dir/dl" "$pin" >&2 ||
          { say "pip download $pin failed"; return 1; }
        local whl
        whl=$(ls "$dir"/dl/*.whl)
        echo "$sha  $whl" | sha256sum -c --quiet - >&2 || { say "$pin: checksum mismatch"; return 1; }
        python3 -m zipfile -e "$whl" "$dir/site" || return 1
        touch "$dir/.ok"
      fi
      echo "${pin#*==}" ;;
    npm:*)
      local src=$here/${spec#npm:}
      if [[ ! -d $dir/node_modules ]] || ! cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
        mkdir -p "$dir" && cp "$src/package.json" "$src/package-lock.json" "$dir/"
        (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --silent >/dev/null 2>&1) ||
          { say "npm ci in $dir failed"; return 1; }
      fi
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(list(d["dependencies"].values())[0])' "$src/package.json" ;;
  esac
}

# gen SPEC DIR GEN ARGS...: runs the generator on the release in DIR.
gen() {
  local spec=$1 dir=$2 g=$here/logs/$3
  shift 3
  case $spec in
    pypi:*) PYTHONPATH=$dir/site /usr/bin/python3 "$g" "$@" </dev/null ;;
    npm:*) node "$g" --deps "$dir" "$@" </dev/null ;;
  esac
}

rows=()
failed=0
for p in "${pairs[@]}"; do
  IFS='|' read -r name g specN specM <<<"$p"
  if ((${#want[@]})) && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  d=$out/$name
  mkdir -p "$d"
  vN=$(fetch "$specN" "$d/N") && vM=$(fetch "$specM" "$d/M") || { failed=1; continue; }
  ok=1
  for r in N M; do
    spec=$specN; [[ $r == M ]] && spec=$specM
    repo=$(gen "$spec" "$d/$r" "$g" --repo) || { say "$name $r: --repo failed"; ok=0; break; }
    "$pmrag" index "$repo" -o "$d/$r.graph" -q </dev/null || { say "$name $r: index failed"; ok=0; break; }
    if [[ ! -s $d/$r.csv.gz || ${VS_REGEN:-0} == 1 ]]; then
      say "$name: generating the log of $r"
      gen "$spec" "$d/$r" "$g" --out "$d/$r.tmp.csv.gz" --seed 1 2>"$d/$r.gen.err" ||
        { say "$name $r: generator failed: $(tail -2 "$d/$r.gen.err")"; ok=0; break; }
      mv "$d/$r.tmp.csv.gz" "$d/$r.csv.gz"
    fi
  done
  ((ok)) || { failed=1; continue; }
  # N's training split (the first 70% of its cases by first event, as
  # eval splits), and that split followed by N+1's test split in one log,
  # N's clock moved before N+1's and its case ids apart: eval's df2 on it
  # trains on N and tests on N+1's test split.
  frac=$(python3 - "$d" <<'PY'
import csv, datetime, gzip, io, sys
d = sys.argv[1]
def load(p):
    with io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", newline="") as f:
        r = csv.DictReader(f)
        rows = list(r)
        return r.fieldnames, rows
def split(rows):
    cases = {}
    for r in rows:
        cases.setdefault(r["case_id"], []).append(r)
    order = sorted(cases, key=lambda c: (min(x["timestamp"] for x in cases[c]), c))
    k = int(len(order) * 0.7)
    return [cases[c] for c in order[:k]], [cases[c] for c in order[k:]]
ts = lambda s: datetime.datetime.fromisoformat(s)
cols, n_rows = load(d + "/N.csv.gz")
_, m_rows = load(d + "/M.csv.gz")
n_train, _ = split(n_rows)
_, m_test = split(m_rows)
shift = max(ts(r["timestamp"]) for c in n_train for r in c) - \
    min(ts(r["timestamp"]) for c in m_test for r in c) + datetime.timedelta(days=1)
def write(path, cases):
    with io.TextIOWrapper(gzip.open(path, "wb"), encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for c in cases:
            w.writerows(c)
moved = [[dict(r, case_id="N-" + r["case_id"], timestamp=(ts(r["timestamp"]) - shift).isoformat())
          for r in c] for c in n_train]
write(d + "/N.train.csv.gz", n_train)
write(d + "/NM.csv.gz", moved + m_test)
print("%.9f" % ((len(n_train) + 0.5) / (len(n_train) + len(m_test))))
PY
) || { say "$name: splitting the logs failed"; failed=1; continue; }
  "$pmrag" mine --graph "$d/N.graph" --log "$d/N.train.csv.gz" -o "$d/N.model" -q </dev/null &&
    "$pmrag" remap --model "$d/N.model" --graph "$d/M.graph" --old-graph "$d/N.graph" \
      -o "$d/N-on-M.model" --json --max 0 </dev/null >"$d/remap.json" &&
    "$pmrag" remap --model "$d/N.model" --graph "$d/M.graph" --old-graph "$d/N.graph" \
      -o "$d/N-on-M.model" --max 0 </dev/null >"$d/remap.txt" &&
    "$pmrag" eval --graph "$d/M.graph" --log "$d/M.csv.gz" --model "$d/N.model" \
      --old-graph "$d/N.graph" --added-since "$d/N.graph" --no-baselines --json -q \
      </dev/null >"$d/shift.json" &&
    "$pmrag" eval --graph "$d/M.graph" --log "$d/M.csv.gz" --added-since "$d/N.graph" --json \
      -q </dev/null >"$d/own.json" &&
    "$pmrag" eval --graph "$d/M.graph" --log "$d/NM.csv.gz" --train-frac "$frac" --json \
      -q </dev/null >"$d/df2N.json" || { say "$name: pmrag failed"; failed=1; continue; }
  rows+=("$name	$vN	$vM	$d")
done

((${#rows[@]})) || { say "nothing run"; exit 1; }
printf '%s\n' "${rows[@]}" | python3 -c '
import json, sys
print("%-9s %-18s | %-33s | %-11s | %-11s | %-11s | %-11s | %s" % (
    "codebase", "N -> N+1", "activities kept/moved/chg/gone new", "N+1 t1 chg", "N->N+1",
    "df2 N", "df2 N+1", "N->N+1 / N+1"))
worst = 9
added = []
for line in sys.stdin:
    name, vn, vm, d = line.rstrip("\n").split("\t")
    rp = json.load(open(d + "/remap.json"))
    own, sh, dn = (json.load(open(d + "/%s.json" % k)) for k in ("own", "shift", "df2N"))
    assert own["n"] == sh["n"] == dn["n"], (own["n"], sh["n"], dn["n"])
    t1 = lambda r: (r["top_k"]["1"], r["change"]["top_k"]["1"])
    b1 = lambda r: (r["baselines"]["df2"]["all"]["top_k"]["1"], r["baselines"]["df2"]["change"]["top_k"]["1"])
    o, s, bn, bm = t1(own), t1(sh), b1(dn), b1(own)
    ra = (s[0] / o[0] if o[0] else 0, s[1] / o[1] if o[1] else 0)
    worst = min(worst, *ra)
    print("%-9s %-18s | %5d %5d %5d %5d %5d | %.3f %.3f | %.3f %.3f | %.3f %.3f | %.3f %.3f | %.3f %.3f" % (
        name, vn + " -> " + vm, rp["kept"], rp["moved"], rp["changed"], rp["gone"], rp["new_sites"],
        *o, *s, *bn, *bm, *ra))
    ad = lambda r: (r["added"]["top_k"]["1"], r["added"]["top_k"]["3"])
    added.append("%-9s %-18s | %6d %5.1f%% | %.3f %.3f | %.3f %.3f" % (
        name, vn + " -> " + vm, own["added"]["n"], 100.0 * own["added"]["n"] / own["n"],
        *ad(own), *ad(sh)))
print("targets: every prefix of N+1 test split; t1 top-1, chg change top-1. Worst ratio %.3f (goal 0.98)." % worst)
print()
print("%-9s %-18s | %-13s | %-11s | %s" % ("codebase", "N -> N+1", "added targets", "N+1 t1 t3", "N->N+1 t1 t3"))
print("\n".join(added))
print("added: targets whose true site logs a message N logs nowhere (eval --added-since); t1 top-1, t3 top-3.")
'
exit $failed
