#!/usr/bin/env bash
# A model carried onto the next release, as a user meets it: pmrag mine on
# release 1's log, then pmrag remap, eval --model and predict --model on
# release 2's graph and log, where a function was renamed and moved, a
# message reworded and another deleted.
#
#   tests/integration/remap_cli.sh PMRAG
set -uo pipefail
pmrag=${1:?pmrag binary}
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work=
work_init

mkdir -p "$work/r1" "$work/r2"
cat >"$work/r1/shop.py" <<'PY'
import logging

logger = logging.getLogger(__name__)


def login(user):
    logger.info("user %s logged in", user)


def browse(user):
    logger.info("user %s browsing catalog", user)


def checkout(user):
    logger.info("user %s checked out", user)


def audit(user):
    logger.info("audit trail written for %s", user)


def logout(user):
    logger.info("user %s logged out", user)
PY
# Release 2: browse is view_catalog, further down; checkout's message is
# reworded; audit is gone.
cat >"$work/r2/shop.py" <<'PY'
import logging

logger = logging.getLogger(__name__)


def login(user):
    logger.info("user %s logged in", user)


def checkout(user):
    logger.info("user %s has checked out", user)


def logout(user):
    logger.info("user %s logged out", user)


def view_catalog(user):
    logger.info("user %s browsing catalog", user)
PY
G1=$work/r1.graph G2=$work/r2.graph
expect "index release 1" 0 "" -- "$pmrag" index "$work/r1" -o "$G1" -q
expect "index release 2" 0 "" -- "$pmrag" index "$work/r2" -o "$G2" -q

# The same workload on both: after login, browse (two cases in three) or
# checkout; browse, then checkout; checkout, then logout; in release 1, one
# case in four audits last.
python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rel = {
    1: {"L": ("login", 7, "user %d logged in"), "B": ("browse", 11, "user %d browsing catalog"),
        "C": ("checkout", 15, "user %d checked out"),
        "A": ("audit", 19, "audit trail written for %d"),
        "O": ("logout", 23, "user %d logged out")},
    2: {"L": ("login", 7, "user %d logged in"), "B": ("view_catalog", 19, "user %d browsing catalog"),
        "C": ("checkout", 11, "user %d has checked out"), "O": ("logout", 15, "user %d logged out")},
}
for r in (1, 2):
    rnd = random.Random(3)
    with open("%s/log%d.csv" % (work, r), "w") as out:
        out.write("case_id,activity,timestamp,code.filepath,code.lineno,code.function\n")
        for c in range(60):
            seq = ("LBC" if rnd.random() < 2 / 3 else "LC") + "O"
            if rnd.random() < 1 / 4 and r == 1:
                seq += "A"
            for k, a in enumerate(seq):
                f, line, msg = rel[r][a]
                out.write("c%02d,%s,2024-03-01T%02d:%02d:%02d.%03dZ,shop.py,%d,%s\n" % (
                    c, msg % (100 + c), 1 + c // 60, c % 60, k, 0, line, f))
PY
NOCAL=(--set model.calibrate=false --set model.code_scale=0)

expect "mine release 1" 0 "" -- "$pmrag" mine --graph "$G1" --log "$work/log1.csv" -o "$work/r1.model" -q "${NOCAL[@]}"
expect "remap --help" 0 "pmrag remap --model" -- "$pmrag" remap --help
expect "remap needs -o" 2 "missing -o FILE" -- "$pmrag" remap --model "$work/r1.model" --graph "$G2"
expect "a model of another graph is refused by query" 2 "another graph" -- \
  "$pmrag" query --graph "$G2" --model "$work/r1.model" -e "user 1 logged in"

# ---- remap: the report -------------------------------------------------------
expect "remap" 0 "" -- "$pmrag" remap --model "$work/r1.model" --graph "$G2" --old-graph "$G1" -o "$work/r2.model"
cp "$work/out" "$work/remap.txt"
check "remap report" -- python3 - "$work/remap.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
assert re.search(r"remapped \d+ activities: 1 kept, 2 moved, 1 changed, 1 gone, 0 again; 0 new sites", t), t
assert re.search(r'moved +"user %s browsing catalog" +shop.py:11 \(shop.browse\) -> shop.py:19 \(shop.view_catalog\)', t), t
assert re.search(r'changed 0\.[89]\d "user %s checked out" -> "user %s has checked out" +shop.py:11 \(shop.checkout\)', t), t
assert re.search(r'gone +"audit trail written for %s"', t), t
PY
expect "remap --json" 0 "" -- "$pmrag" remap --model "$work/r1.model" --graph "$G2" -o "$work/r2b.model" --json
check "remap --json without the old graph" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["remapped"] and not r["old_graph"], r
assert (r["kept"], r["moved"], r["found"], r["changed"], r["gone"]) == (0, 0, 3, 1, 1), r
ch = [i for i in r["items"] if i["kind"] == "changed"]
assert ch[0]["from"] == "user %s checked out" and ch[0]["activity"] == "user %s has checked out", r
PY
expect "the re-mapped model is release 2's" 0 "view_catalog" -- \
  "$pmrag" query --graph "$G2" --model "$work/r2.model" -e "user 1 logged in" -k 1
expect "remap onto its own graph" 0 "not re-mapped" -- \
  "$pmrag" remap --model "$work/r1.model" --graph "$G1" -o "$work/r1b.model"
check "... writes the same bytes" -- cmp "$work/r1.model" "$work/r1b.model"

# ---- eval and predict with the model of release 1 ---------------------------
# Release 2's test split, on release 2's graph, by release 1's model: after
# login, view_catalog (2/3) or checkout; after browsing, checkout; after
# checkout, logout. Without re-mapping the reworded checkout would be an
# activity the model never saw, and the moved browse would name no symbol.
expect "eval --model (re-mapped)" 0 "re-mapped onto" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --model "$work/r1.model" --old-graph "$G1" --json --train-frac 0.5
cp "$work/out" "$work/eval_remap.json"
expect "eval on release 2 itself" 0 "" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --json --train-frac 0.5 "${NOCAL[@]}"
cp "$work/out" "$work/eval_own.json"
check "the re-mapped model scores as release 2's own" -- python3 - "$work/eval_remap.json" "$work/eval_own.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["n"] == b["n"] and a["n"] > 60, (a["n"], b["n"])
assert a["top_k"]["1"] >= 0.98 * b["top_k"]["1"], (a["top_k"], b["top_k"])
assert a["change"]["top_k"]["1"] >= 0.98 * b["change"]["top_k"]["1"], (a["change"], b["change"])
assert a["top_k"]["3"] > 0.99, a["top_k"]
PY
# The targets of sites whose message release 1 does not log: release 2's
# reworded checkout, not the moved browse; and, the other way round,
# release 1's checkout and audit, which release 2 does not log.
expect "eval --added-since" 0 "" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --model "$work/r1.model" --old-graph "$G1" \
  --added-since "$G1" --json --train-frac 0.5 -q
cp "$work/out" "$work/eval_added.json"
expect "eval --added-since, the other way" 0 "paths added since" -- \
  "$pmrag" eval --graph "$G1" --log "$work/log1.csv" --added-since "$G2" --train-frac 0.5 -q "${NOCAL[@]}"
cp "$work/out" "$work/eval_added_back.txt"
check "the added targets are those of the messages the other release lacks" -- \
  python3 - "$work" "$work/eval_added.json" "$work/eval_added_back.txt" "$work/eval_remap.json" <<'PY'
import csv, json, re, sys
work = sys.argv[1]
def targets(log, funcs):
    cases = {}
    for r in csv.DictReader(open(log)):
        cases.setdefault(r["case_id"], []).append(r)
    order = sorted(cases, key=lambda c: (min(r["timestamp"] for r in cases[c]), c))
    test = order[int(len(order) * 0.5):]
    return sum(r["code.function"] in funcs for c in test for r in cases[c][1:])
a = json.load(open(sys.argv[2]))
n = targets(work + "/log2.csv", {"checkout"})
assert n > 0 and a["added"]["n"] == n, (a["added"], n)
assert a["n"] == json.load(open(sys.argv[4]))["n"] and 0 < a["added"]["top_k"]["3"] <= 1, a
m = re.search(r"paths added since \S+: (\d+) targets", open(sys.argv[3]).read())
assert m and int(m.group(1)) == targets(work + "/log1.csv", {"checkout", "audit"}), m
assert "added" not in json.load(open(sys.argv[4])), "asked for by --added-since only"
PY
expect "--added-since names a missing graph" 2 "nope.graph" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --added-since "$work/nope.graph" -q
expect "predict --model" 0 "re-mapped onto" -- \
  "$pmrag" predict --graph "$G2" --log "$work/log2.csv" --model "$work/r1.model" -k 1 -o "$work/pred.jsonl"
check "predictions name release 2's symbols" -- python3 - "$work/pred.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
syms = {l["ranked"][0]["symbol"] for l in lines if l["ranked"]}
assert "shop.view_catalog" in syms and "shop.checkout" in syms and "shop.logout" in syms, syms
assert not any(s in syms for s in ("shop.browse", "shop.audit")), syms
first = [l for l in lines if l["prefix_len"] == 2 and l["ranked"]]
assert all(l["ranked"][0]["start_line"] in (10, 14) for l in first), first[:2]
PY
expect "--old-graph needs --model" 2 "goes with --model" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --old-graph "$G1"
expect "--learning-curve is not for --model" 2 "not with --model" -- \
  "$pmrag" eval --graph "$G2" --log "$work/log2.csv" --model "$work/r1.model" --learning-curve
finish
