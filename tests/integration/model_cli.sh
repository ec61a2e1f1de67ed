#!/usr/bin/env bash
# From an event log to ranked next emitters, as a user meets it: pmrag map,
# mine, query, eval and predict on a tiny repository and a tiny log whose
# figures are computed by hand below.
#
#   tests/integration/model_cli.sh PMRAG
set -uo pipefail
pmrag=${1:?pmrag binary}
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work=
work_init

# ---- the repository: four functions, each logging one template ----------
mkdir -p "$work/repo"
cat >"$work/repo/shop.py" <<'PY'
import logging

logger = logging.getLogger(__name__)


def login(user):
    logger.info("user %s logged in", user)


def browse(user):
    logger.info("user %s browsing catalog", user)


def checkout(user):
    logger.info("user %s checked out", user)


def logout(user):
    logger.info("user %s logged out", user)
PY
G=$work/shop.graph
expect "index" 0 "" -- "$pmrag" index "$work/repo" -o "$G" -q

# ---- the log ---------------------------------------------------------------
# L, B, C, O: login (line 7), browse (11), checkout (15), logout (19).
# Cases by first event (hour), ties by id: c05 and c06 both start at 05:00,
# c06's rows come first in the file, and c10 is the oldest. With
# --train-frac 0.5 the first 5 of 10 train:
#   train  c10 LBBO (01h)  c01 LBCO (02h)  c02 LBCO (03h)  c03 LBCO (04h)  c05 LCO (05h)
#   test   c06 LBCO (05h)  c04 LBCO (06h)  c07 LCO (07h)   c08 LO (08h)    c09 LBO (09h)
# (By id, c04 would train and c10 test; by file order c06 before c05.)
# Rows are written in a shuffled order: events are ordered by time.
python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
fn = {"L": ("login", 7, "user %d logged in"), "B": ("browse", 11, "user %d browsing catalog"),
      "C": ("checkout", 15, "user %d checked out"), "O": ("logout", 19, "user %d logged out")}
cases = [("c10", 1, "LBBO"), ("c01", 2, "LBCO"), ("c02", 3, "LBCO"), ("c03", 4, "LBCO"),
         ("c06", 5, "LBCO"), ("c05", 5, "LCO"), ("c04", 6, "LBCO"), ("c07", 7, "LCO"),
         ("c08", 8, "LO"), ("c09", 9, "LBO")]
rows = []
for n, (cid, hour, seq) in enumerate(cases):
    for k, a in enumerate(seq):
        f, line, msg = fn[a]
        rows.append({"case_id": cid, "activity": msg % (100 + 7 * n + k),
                     "timestamp": "2024-03-01T%02d:%02d:00Z" % (hour, k),
                     "code.filepath": "shop.py", "code.lineno": line, "code.function": f})
random.Random(7).shuffle(rows)
# c06's rows before c05's, whatever the shuffle did.
rows.sort(key=lambda r: {"c06": 0, "c05": 1}.get(r["case_id"], 0))
cols = list(rows[0])
with open(work + "/log.csv", "w") as out:
    out.write(",".join(cols) + "\n")
    for r in rows:
        out.write(",".join(str(r[c]) for c in cols) + "\n")
with open(work + "/log.jsonl", "w") as out:
    for r in rows:
        out.write(json.dumps(r) + "\n")
with open(work + "/log.xes", "w") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<log xes.version="1.0">\n')
    for cid in dict.fromkeys(r["case_id"] for r in rows):
        out.write('  <trace>\n    <string key="concept:name" value="%s"/>\n' % cid)
        for r in rows:
            if r["case_id"] != cid:
                continue
            out.write('    <event><string key="concept:name" value="%s"/>'
                      '<date key="time:timestamp" value="%s"/>'
                      '<string key="code.filepath" value="shop.py"/>'
                      '<int key="code.lineno" value="%d"/>'
                      '<string key="code.function" value="%s"/></event>\n'
                      % (r["activity"], r["timestamp"], r["code.lineno"], r["code.function"]))
        out.write('  </trace>\n')
    out.write('</log>\n')
# The truth of every event, by case and position, for the scorer below.
truth = {}
for r in sorted(rows, key=lambda r: (r["case_id"], r["timestamp"])):
    truth.setdefault(r["case_id"], []).append([r["code.filepath"], r["code.lineno"]])
json.dump(truth, open(work + "/truth.json", "w"))
PY
L=$work/log.csv
NOCAL=(--set model.calibrate=false --set model.code_scale=0)

# ---- eval: the arithmetic --------------------------------------------------
# With code_scale 0 the joint net is contexts -> activities -> symbols, and
# a symbol's score is, up to the factor alpha (1 - alpha) (alpha = 0.3):
#   0.7 * sum over seeded contexts c of w(c) P(c, its activity)
#   + the recency weight of its activity.
# Context weights (Witten-Bell, escape 1): lambda = n / (n + u), longest
# context first; the rest goes to the prefix's activities with decay 0.5.
# Training contexts (next-activity counts):
#   [L]: B 4, C 1          [B]: C 3, B 1, O 1      [C]: O 4
#   [L B]: C 3, B 1        [B C]: O 3  [L C]: O 1  [B B]: O 1
#   [L B C]: O 3           [L B B]: O 1
# Prefix [L]:     [L] 5/7, recency L 2/7.
#                 fb 0.7*5/7*4/5 = 0.4, fl 0.286, fc 0.7*5/7*1/5 = 0.1, fo 0
# Prefix [L B]:   [L B] 2/3, [B] 1/3*5/8 = 5/24, recency 1/8: B 1/12, L 1/24.
#                 fc 0.7*(1/2 + 1/8) = 0.4375, fb 0.7*(1/6 + 1/24) + 1/12 = 0.229,
#                 fl 1/24 = 0.0417, fo 0.7*1/24 = 0.0292
# Prefix [L B C]: O from every context: fo first.
# Prefix [L C]:   [L C] 1/2, [C] 2/5, recency: fo 0.7*0.9 first.
# Targets (11) and the rank of the truth:
#   c06 LBCO: [L]->B 1, [LB]->C 1, [LBC]->O 1
#   c04 LBCO: 1, 1, 1
#   c07 LCO:  [L]->C 3, [LC]->O 1
#   c08 LO:   [L]->O 4: fo has no score, so the walk ranks three symbols
#             and the list is filled from the code graph: logout is two
#             hops from browse (function -> module -> function)
#   c09 LBO:  [L]->B 1, [LB]->O 4
# top-1 8/11, top-3 9/11, top-5 and top-10 11/11,
# MRR (8 + 1/3 + 1/4 + 1/4) / 11.
# Every target changes function: the change subset is all of them.
# df1 (order-1 directly-follows of the train split; ties by symbol id,
# login < browse < checkout < logout):
#   [L] -> fb 4/5, fc 1/5;  [B] -> fc 3/5, fb 1/5, fo 1/5;  [C] -> fo.
#   c06 1,1,1; c04 1,1,1; c07 [L]->C 2, [LC]->O 1; c08 miss; c09 1, [LB]->O 3
#   top-1 8/11, top-3 10/11, MRR (8 + 1/2 + 1/3) / 11.
# same_function (the current emitter) never holds the next event: 0.
expect "eval --json" 0 "" -- "$pmrag" eval --graph "$G" --log "$L" --train-frac 0.5 --json "${NOCAL[@]}"
cp "$work/out" "$work/eval.csv.json"
check "eval figures by hand" -- python3 - "$work/eval.csv.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
near = lambda a, b: abs(a - b) < 1e-9
assert r["task"] == "next-event-localization", r
assert r["cases"] == {"train": 5, "test": 5}, r["cases"]
assert r["n"] == 11, r["n"]
want = {"1": 8 / 11, "3": 9 / 11, "5": 1, "10": 1}
assert all(near(r["top_k"][k], v) for k, v in want.items()), r["top_k"]
assert near(r["mrr"], (8 + 1 / 3 + 1 / 4 + 1 / 4) / 11), r["mrr"]
assert r["change"]["n"] == 11 and near(r["change"]["mrr"], r["mrr"]), r["change"]
assert r["unpredictable"] == 0, r
bl = r["baselines"]
assert set(bl) == {"bm25", "tokens", "df1", "df2", "same_function", "global_pagerank",
                   "ppr_no_follows"}, sorted(bl)
for name, b in bl.items():
    assert b["all"]["n"] == 11 and b["change"]["n"] == 11, name
    assert all(0 <= v <= 1 for v in b["all"]["top_k"].values()), name
df1 = bl["df1"]["all"]
want = {"1": 8 / 11, "3": 10 / 11, "5": 10 / 11, "10": 10 / 11}
assert all(near(df1["top_k"][k], v) for k, v in want.items()), df1
assert near(df1["mrr"], (8 + 1 / 2 + 1 / 3) / 11), df1
assert bl["same_function"]["all"]["top_k"]["10"] == 0, bl["same_function"]
cov = r["coverage"]
assert cov["events"] == 16 and near(cov["mapped"], 1), cov
assert near(cov["by_strategy"]["template"], 1) and near(cov["first_symbol_correct"], 1), cov
assert r["params"]["order"] == 6 and near(r["params"]["code_scale"], 0), r["params"]
PY
# The default split (0.7: 7 train, 3 test) and the text report.
expect "eval default split" 0 '"train":7,"test":3' -- "$pmrag" eval --graph "$G" --log "$L" --json "${NOCAL[@]}"
expect "eval text" 0 "^pmrag +0\.727 +0\.818 +1\.000 +1\.000" -- "$pmrag" eval --graph "$G" --log "$L" --train-frac 0.5 "${NOCAL[@]}"
expect "eval text baselines" 0 "^df1 +0\.727 +0\.909" -- "$pmrag" eval --graph "$G" --log "$L" --train-frac 0.5 "${NOCAL[@]}"

# ---- the same log as JSONL and XES ----------------------------------------
for fmt in jsonl xes; do
  expect "eval $fmt" 0 "" -- "$pmrag" eval --graph "$G" --log "$work/log.$fmt" --train-frac 0.5 --json "${NOCAL[@]}"
  cp "$work/out" "$work/eval.$fmt.json"
  check "eval $fmt = csv" -- python3 - "$work/eval.csv.json" "$work/eval.$fmt.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    del r["seconds"]
assert a == b, (a, b)
PY
done

# ---- predict ---------------------------------------------------------------
expect "predict" 0 "" -- "$pmrag" predict --graph "$G" --log "$L" --train-frac 0.5 -o "$work/pred1.jsonl" "${NOCAL[@]}"
"$pmrag" predict --graph "$G" --log "$L" --train-frac 0.5 "${NOCAL[@]}" >"$work/pred2.jsonl" 2>/dev/null
if cmp -s "$work/pred1.jsonl" "$work/pred2.jsonl"; then pass "predict is deterministic (file = stdout)"; else bad "predict differs between runs"; fi
"$pmrag" predict --graph "$G" --log "$L" --train-frac 0.5 -k 2 "${NOCAL[@]}" >"$work/pred3.jsonl" 2>/dev/null
# A scorer of its own (the bench's, reimplemented): a hit when the file
# matches and the truth line is inside the ranked symbol.
check "predict contract and top-1 = eval's" -- python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
truth = json.load(open(work + "/truth.json"))
eval_r = json.load(open(work + "/eval.csv.json"))
lines = [json.loads(l) for l in open(work + "/pred1.jsonl")]
keys = [(l["case_id"], l["prefix_len"]) for l in lines]
assert keys == [("c06", 1), ("c06", 2), ("c06", 3), ("c04", 1), ("c04", 2), ("c04", 3),
                ("c07", 1), ("c07", 2), ("c08", 1), ("c09", 1), ("c09", 2)], keys
hits = 0
for l in lines:
    assert set(l) == {"case_id", "prefix_len", "ranked"}, l
    assert 1 <= len(l["ranked"]) <= 10
    filled = False
    for r in l["ranked"]:
        # Walked symbols name their predicted activity; those that fill the
        # list after them name the ranked symbol they are near (the other
        # is "": the shape the daemon publishes).
        assert set(r) == {"file", "symbol", "kind", "start_line", "end_line", "score",
                          "activity", "near"}, r
        assert (r["activity"] == "") != (r["near"] == ""), r
        why = "near" if r["near"] else "activity"
        filled = filled or why == "near"
        assert why == "near" or not filled, l
        assert r["file"] == "shop.py" and r["kind"] == "function" and r["score"] > 0
        assert r["symbol"].startswith("shop.") and 1 <= r["start_line"] <= r["end_line"]
    scores = [r["score"] for r in l["ranked"]]
    assert scores == sorted(scores, reverse=True), scores
    tfile, tline = truth[l["case_id"]][l["prefix_len"]]
    top = l["ranked"][0]
    hits += top["file"] == tfile and top["start_line"] <= tline <= top["end_line"]
assert abs(hits / len(lines) - eval_r["top_k"]["1"]) < 1e-12, (hits, len(lines))
assert hits == 8
first = lines[0]["ranked"]
assert [r["symbol"] for r in first] == ["shop.browse", "shop.login", "shop.checkout",
                                        "shop.logout"], first
assert first[0]["activity"] == "user %s browsing catalog", first[0]
assert first[3]["near"] == "shop.browse" and first[3]["score"] < first[2]["score"], first
k2 = [json.loads(l) for l in open(work + "/pred3.jsonl")]
assert [len(l["ranked"]) for l in k2] == [min(2, len(l["ranked"])) for l in lines]
PY

# ---- map -------------------------------------------------------------------
# One more event no template matches (and no name is like): 36 events, 35
# mapped by templates; with truth, 35 of 36 first symbols are right.
{ cat "$L"; printf 'c01,cache miss 42,2024-03-01T02:09:00Z,shop.py,7,login\n'; } >"$work/map.csv"
expect "map --json" 0 "" -- "$pmrag" map --graph "$G" --log "$work/map.csv" --json "${NOCAL[@]}"
check "map coverage" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
near = lambda a, b: abs(a - b) < 1e-9
cov = r["coverage"]
assert cov["events"] == 36, cov
assert near(cov["mapped"], 35 / 36) and near(cov["by_strategy"]["template"], 35 / 36), cov
assert near(cov["by_strategy"]["none"], 1 / 36), cov
assert near(cov["first_symbol_correct"], 35 / 36), cov
acts = [(a["activity"], a["count"], a["strategy"]) for a in r["activities"]]
assert acts == [("user %s logged in", 10, "template"), ("user %s logged out", 10, "template"),
                ("user %s browsing catalog", 8, "template"), ("user %s checked out", 7, "template"),
                ("cache miss <num>", 1, "none")], acts
sym = r["activities"][0]["symbols"]
assert sym == [{"symbol": "shop.login", "kind": "function", "file": "shop.py", "start_line": 6,
                "end_line": 7, "confidence": 1}], sym
PY
expect "map text" 0 "template +35 +97\.2%" -- "$pmrag" map --graph "$G" --log "$work/map.csv"

# Whether a message comes from the code: reply() logs what it read from
# the wire (no literal, no caller's text), send() logs the text its callers
# pass ("QUIT now" in quit()), hello() a template. With truth, the mapping
# is scored again over the events of send (or quit) and hello alone: 4 of
# the 7. The first QUIT's truth is the logging call in send (a function
# that logs its callers' text), the second's the call in quit that passes
# the text; the mapping says quit: 3 of the 4 right.
mkdir -p "$work/wire"
cat >"$work/wire/wire.py" <<'PY'
import logging

log = logging.getLogger(__name__)


def reply(sock):
    line = sock.recv()
    log.debug(line)


def send(cmd):
    log.debug(cmd)


def quit(conn):
    send("QUIT now")


def hello(user):
    log.info("hello %s", user)
PY
expect "index wire" 0 "" -- "$pmrag" index "$work/wire" -o "$work/wire.graph" -q
{
  echo 'case_id,activity,timestamp,code.filepath,code.lineno,code.function'
  printf 'w1,hello ann,2024-03-01T01:00:00Z,wire.py,20,hello\n'
  printf 'w1,250 ok,2024-03-01T01:00:01Z,wire.py,8,reply\n'
  printf 'w1,QUIT now,2024-03-01T01:00:02Z,wire.py,12,send\n'
  printf 'w1,221 bye,2024-03-01T01:00:03Z,wire.py,8,reply\n'
  printf 'w2,hello bob,2024-03-01T02:00:00Z,wire.py,20,hello\n'
  printf 'w2,QUIT now,2024-03-01T02:00:01Z,wire.py,16,quit\n'
  printf 'w2,221 bye,2024-03-01T02:00:02Z,wire.py,8,reply\n'
} >"$work/wire.csv"
expect "map wire --json" 0 "" -- "$pmrag" map --graph "$work/wire.graph" --log "$work/wire.csv" --json "${NOCAL[@]}"
check "map: messages from the code" -- python3 - "$work/out" <<'PY'
import json, sys
cov = json.load(open(sys.argv[1]))["coverage"]
assert cov["events"] == 7 and cov["from_code_events"] == 4, cov
assert abs(cov["from_code_correct"] - 3 / 4) < 1e-9, cov
assert abs(cov["first_symbol_correct"] - 3 / 7) < 1e-9, cov
PY
expect "map wire text" 0 "message from the code: 4 events \(57\.1%\), first symbol correct 75\.0%" -- \
  "$pmrag" map --graph "$work/wire.graph" --log "$work/wire.csv" "${NOCAL[@]}"
# --llm-cmd: a fake model that maps whatever it is asked to shop.login
# (and logs the request, to check what was sent); then one that fails.
cat >"$work/llm.py" <<'PY'
import json, sys
req = json.load(sys.stdin)
json.dump(req, open(sys.argv[1], "w"))
json.dump({"mappings": [{"id": a["id"], "symbols": [{"symbol": "shop.login", "confidence": 0.5}]}
                        for a in req["activities"]]}, sys.stdout)
PY
expect "map --llm-cmd" 0 "" -- "$pmrag" map --graph "$G" --log "$work/map.csv" --json --no-tokens \
  --llm-cmd "python3 $work/llm.py $work/llm-req.json" "${NOCAL[@]}"
check "map --llm-cmd maps what was left" -- python3 - "$work/out" "$work/llm-req.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
req = json.load(open(sys.argv[2]))
assert req["version"] == 1 and req["task"] == "map-activities-to-code", req
assert [a["text"] for a in req["activities"]] == ["cache miss <num>"], req
assert req["activities"][0]["count"] == 1, req
a = [x for x in r["activities"] if x["activity"] == "cache miss <num>"][0]
assert a["strategy"] == "llm" and a["symbols"][0]["symbol"] == "shop.login", a
assert abs(a["symbols"][0]["confidence"] - 0.5) < 1e-6, a
assert abs(r["coverage"]["by_strategy"]["llm"] - 1 / 36) < 1e-9, r["coverage"]
PY
expect "map --llm-cmd failing" 0 "llm batch 1 of 1.*exit" -- "$pmrag" map --graph "$G" --log "$work/map.csv" \
  --no-tokens --llm-cmd "echo nope >&2; exit 3" "${NOCAL[@]}"

# ---- mine and query --------------------------------------------------------
M=$work/shop.model
expect "mine" 0 "" -- "$pmrag" mine --graph "$G" --log "$L" -o "$M" --json --set model.calibrate=false
check "mine --json" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cases"] == 10 and r["events"] == 35 and r["variants_kept"] == 0, r
# Every case starts with L and ends with O (the rows are shuffled in the file).
assert r["start_activities"] == [{"activity": "user %s logged in", "cases": 10}], r
assert r["end_activities"] == [{"activity": "user %s logged out", "cases": 10}], r
PY
# All 10 cases: after [L B], C 5 times, B once, O once.
expect "query --json" 0 "" -- "$pmrag" query --graph "$G" --model "$M" --trace "user 1 logged in, user 1 browsing catalog" --json
check "query top-1" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert [t["activity"] for t in r["trace"]] == ["user %s logged in", "user %s browsing catalog"], r
assert all(t["strategy"] == "template" for t in r["trace"]), r["trace"]
top = r["ranked"][0]
assert top["symbol"] == "shop.checkout" and top["activity"] == "user %s checked out", top
assert (top["file"], top["start_line"], top["end_line"]) == ("shop.py", 14, 15), top
PY
# Trained on half the cases, the model ranks fewer than 10 symbols after a
# login; those that fill the list are labelled on their line of the
# ranking, and every other line names its next activity or says it has none.
awk -F, 'NR == 1 || $1 ~ /^c(01|02|03|05|10)$/' "$L" >"$work/half.csv"
"$pmrag" mine --graph "$G" --log "$work/half.csv" -o "$work/half.model" -q "${NOCAL[@]}" 2>/dev/null
expect "query labels list fillers" 0 "^ *4\. shop\.logout .*\(near shop\.browse, fills the list\)$" -- "$pmrag" query --graph "$G" --model "$work/half.model" --trace "user 1 logged in" -k 10
expect "query logout" 0 "" -- "$pmrag" query --graph "$G" --model "$M" --trace "user 1 logged out" -k 10
check "query labels every result" -- python3 - "$work/out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
ranked = [i for i, l in enumerate(lines) if re.match(r" *[0-9]+\. ", l)]
assert len(ranked) == 4, lines
for i in ranked:
    nxt = i + 1 < len(lines) and lines[i + 1].lstrip().startswith("next: ")
    assert nxt or lines[i].endswith(")"), lines[i]
assert any("(no predicted activity leads to it)" in lines[i] for i in ranked), lines
PY
expect "query --event" 0 "shop.checkout" -- "$pmrag" query --graph "$G" --model "$M" -e "user 1 logged in" -e "user 1 browsing catalog" -k 1
expect "query --explain follows" 0 "follows" -- "$pmrag" query --graph "$G" --model "$M" --trace "user 1 logged in,user 1 browsing catalog" --explain
check "query --explain emits" -- grep -q -- "--emits" "$work/out"
# A model of another graph is refused.
cp -r "$work/repo" "$work/repo2"
printf '\n\ndef extra():\n    return 1\n' >>"$work/repo2/shop.py"
"$pmrag" index "$work/repo2" -o "$work/other.graph" -q 2>/dev/null
expect "query another graph" 2 "another graph" -- "$pmrag" query --graph "$work/other.graph" --model "$M" --trace "user 1 logged in"
printf 'garbage' >"$work/bad.model"
expect "query not a model" 2 "bad.model: not a pmrag model file" -- "$pmrag" query --graph "$G" --model "$work/bad.model" --trace "x"
expect "query without trace" 2 "--trace or --event" -- "$pmrag" query --graph "$G" --model "$M"

# ---- bad input and usage -------------------------------------------------
# Bad input exits 2, as a usage error does (cli.h: the exit status table).
awk -F, 'NR == 5 { $3 = "yesterday" } 1' OFS=, "$L" >"$work/bad.csv"
expect "bad timestamp" 2 "bad.csv:5:.*field 'timestamp'" -- "$pmrag" eval --graph "$G" --log "$work/bad.csv" "${NOCAL[@]}"
expect "bad timestamp --skip-bad" 0 "1 malformed records skipped" -- "$pmrag" eval --graph "$G" --log "$work/bad.csv" --skip-bad --json "${NOCAL[@]}"
expect "map bad timestamp" 2 "bad.csv:5:" -- "$pmrag" map --graph "$G" --log "$work/bad.csv"
cut -d, -f1-3 "$L" >"$work/notruth.csv"
expect "no truth columns" 2 "without truth columns" -- "$pmrag" eval --graph "$G" --log "$work/notruth.csv" "${NOCAL[@]}"
for c in map mine eval predict; do
  out=()
  [ "$c" = mine ] && out=(-o "$work/x.model")
  expect "$c missing --graph" 2 "missing --graph" -- "$pmrag" $c --log "$L" "${out[@]}"
  expect "$c missing --log" 2 "missing --log" -- "$pmrag" $c --graph "$G" "${out[@]}"
done
expect "mine missing -o" 2 "missing -o MODEL" -- "$pmrag" mine --graph "$G" --log "$L"
expect "query missing --model" 2 "missing --graph FILE or --model FILE" -- "$pmrag" query --graph "$G" --trace x
for tf in 1 1.5 x -0.2 ""; do
  expect "eval --train-frac '$tf'" 2 "--train-frac takes a number from 0 up to but not including 1, not '$tf'" -- "$pmrag" eval --graph "$G" --log "$L" --train-frac "$tf"
done
expect "predict bad --train-frac" 2 "--train-frac takes a number from 0 up to but not including 1" -- "$pmrag" predict --graph "$G" --log "$L" --train-frac 2
# --train-frac 0 trains on nothing: every case is predicted, from the code
# alone (35 events in 10 cases: 25 prefixes).
expect "eval --train-frac 0" 0 '"train":0,"test":10' -- "$pmrag" eval --graph "$G" --log "$L" --train-frac 0 --json "${NOCAL[@]}"
"$pmrag" predict --graph "$G" --log "$L" --train-frac 0 "${NOCAL[@]}" >"$work/pred0.jsonl" 2>/dev/null
check "predict --train-frac 0 predicts every case" -- \
  test "$(wc -l <"$work/pred0.jsonl") $(grep -c '"prefix_len":1,' "$work/pred0.jsonl")" = "25 10"
# A split with fewer training cases than the curve's points ask for (3
# train: K = 0, 3, 3, 3, 3) shows each point once.
"$pmrag" eval --graph "$G" --log "$L" --train-frac 0.3 --learning-curve "${NOCAL[@]}" >"$work/curve3.txt" 2>/dev/null
check "learning curve over 3 training cases: K 0 and 3" -- \
  test "$(grep -oE '^ +[0-9]+ +[0-9.]+ ' "$work/curve3.txt" | awk '{print $1}' | tr '\n' ' ')" = "0 3 "
"$pmrag" eval --graph "$G" --log "$L" --train-frac 0.3 --learning-curve --json "${NOCAL[@]}" >"$work/curve3.json" 2>/dev/null
check "learning curve JSON keeps its five points" -- python3 -c '
import json, sys
pts = json.load(open(sys.argv[1]))["learning_curve"]
assert [p["train_cases"] for p in pts] == [0, 3, 3, 3, 3], pts
' "$work/curve3.json"
expect "eval bad --format" 2 "--format takes" -- "$pmrag" eval --graph "$G" --log "$L" --format parquet
expect "eval missing log" 2 "nope.csv" -- "$pmrag" eval --graph "$G" --log "$work/nope.csv"
for c in map mine query eval predict; do
  expect "$c --help" 0 "^usage: pmrag $c" -- "$pmrag" $c --help
done

finish
