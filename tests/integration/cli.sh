#!/usr/bin/env bash
# The command line as a user meets it: help, exit codes, one-line errors,
# the JSON contracts of `symbols` and `graph stats`.
#
#   tests/integration/cli.sh PMRAG FIXTURES_DIR
set -uo pipefail
pmrag=${1:?pmrag binary}
fixtures=${2:?tests/fixtures}
# shellcheck source=tests/integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work=
work_init

# Errors are one line on stderr.
one_line_error() {
  local name=$1
  local n
  n=$(wc -l <"$work/err")
  if [ "$n" -eq 1 ]; then pass "$name: one line"; else bad "$name: $n lines on stderr"; fi
}

expect "no command" 2 "usage: pmrag COMMAND" -- "$pmrag"
expect "--help" 0 "commands:" -- "$pmrag" --help
expect "--version" 0 "^pmrag " -- "$pmrag" --version
expect "unknown command" 2 "unknown command 'frobnicate'" -- "$pmrag" frobnicate
one_line_error "unknown command"
for c in index symbols "graph stats" "graph show"; do
  # shellcheck disable=SC2086
  expect "$c --help" 0 "^usage: pmrag $c" -- "$pmrag" $c --help
done
expect "graph --help" 0 "pmrag graph stats" -- "$pmrag" graph --help
expect "graph without subcommand" 2 "usage" -- "$pmrag" graph
expect "graph bad subcommand" 2 "unknown subcommand 'draw'" -- "$pmrag" graph draw x

expect "index unknown flag" 2 "unknown option '--frobnicate'" -- "$pmrag" index "$fixtures/repos/shop" -o "$work/g" --frobnicate
one_line_error "index unknown flag"
expect "index missing -o" 2 "missing -o FILE" -- "$pmrag" index "$fixtures/repos/shop"
expect "index no dir" 2 "missing argument" -- "$pmrag" index -o "$work/g"
expect "index missing dir" 2 "/no/such/dir: No such file or directory" -- "$pmrag" index /no/such/dir -o "$work/g"
one_line_error "index missing dir"
expect "index bad --lang" 2 "--lang takes a list of py, ts, tsx, js, not 'cobol'" -- "$pmrag" index "$fixtures/repos/shop" -o "$work/g" --lang cobol
expect "index bad -j" 2 "--threads needs a whole number from 1 to 256, not 'x'" -- "$pmrag" index "$fixtures/repos/shop" -o "$work/g" -j x
expect "index -o needs a value" 2 "--output needs a value" -- "$pmrag" index "$fixtures/repos/shop" -o
expect "index unwritable output" 1 "cannot write /no/such/dir/g" -- "$pmrag" index "$fixtures/repos/shop" -o /no/such/dir/g
expect "index ok" 0 "indexed 9 files" -- "$pmrag" index "$fixtures/repos/shop" -o "$work/shop.graph"
# Nothing on stdout, no progress on a pipe.
if [ ! -s "$work/out" ] && ! grep -q $'\r' "$work/err"; then pass "index quiet on a pipe"; else bad "index printed progress on a pipe"; fi
expect "index --progress" 0 "indexing 9/9 files" -- "$pmrag" index "$fixtures/repos/shop" -o "$work/shop.graph" --progress
expect "index --json" 0 '"files_indexed":9' -- "$pmrag" index "$fixtures/repos/shop" -o "$work/shop.graph" --json
check "index --json is JSON" -- python3 -m json.tool "$work/out"

expect "symbols missing file" 2 "cannot open $work/nope.graph: No such file or directory" -- "$pmrag" symbols "$work/nope.graph"
one_line_error "symbols missing file"
printf 'not a graph' >"$work/text.graph"
expect "symbols not a graph" 2 "not a pmrag graph file" -- "$pmrag" symbols "$work/text.graph"
expect "symbols text" 0 "method    shop.orders.OrderService.place  shop/orders.py:16-24" -- "$pmrag" symbols "$work/shop.graph"
expect "symbols --json" 0 "" -- "$pmrag" symbols "$work/shop.graph" --json
check "symbols --json contract" -- python3 - "$work/out" <<'PY'
import json, sys
syms = json.load(open(sys.argv[1]))
keys = {"id", "kind", "name", "qualname", "file", "start_line", "end_line"}
assert syms and all(set(s) == keys for s in syms), "keys"
assert all(s["kind"] in {"module", "class", "interface", "enum", "type", "function", "method"} for s in syms)
assert [s["id"] for s in syms] == list(range(len(syms))), "ids"
assert all(1 <= s["start_line"] <= s["end_line"] for s in syms), "lines"
assert any(s["qualname"] == "shop.payments.gateway.CardGateway._send" for s in syms)
PY
expect "symbols --jsonl --kind" 0 "" -- "$pmrag" symbols "$work/shop.graph" --jsonl --kind class
check "symbols --jsonl --kind class" -- python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert rows and all(r['kind']=='class' for r in rows)" "$work/out"
expect "symbols bad --kind" 2 "--kind takes kinds from" -- "$pmrag" symbols "$work/shop.graph" --kind widget
expect "symbols --json --jsonl" 2 "exclude each other" -- "$pmrag" symbols "$work/shop.graph" --json --jsonl

expect "graph stats" 0 "call sites" -- "$pmrag" graph stats "$work/shop.graph"
expect "graph stats --json" 0 "" -- "$pmrag" graph stats "$work/shop.graph" --json
check "graph stats --json contract" -- python3 - "$work/out" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
for k in ("files", "symbols", "edges", "emits", "calls"):
    assert k in st, k
assert st["symbols"]["total"] == sum(v for k, v in st["symbols"].items() if k != "total")
assert set(st["edges"]) >= {"calls", "imports", "inherits", "uses", "accesses", "member_of"}
assert 0 <= st["calls"]["internal_resolved_share"] <= 1
PY
expect "graph show" 0 "calls to" -- "$pmrag" graph show "$work/shop.graph" OrderService.place
expect "graph show emits" 0 '"placing order %s"' -- "$pmrag" graph show "$work/shop.graph" OrderService.place
expect "graph show --json" 0 "" -- "$pmrag" graph show "$work/shop.graph" shop.inventory.Inventory.reserve --json
check "graph show --json is JSON" -- python3 -m json.tool "$work/out"
# An exception's message made in its constructor names the class it makes.
mkdir -p "$work/errs"
printf 'class FetchError(Exception):\n    def __init__(self, url):\n        super().__init__(f"fetching {url} failed")\n' >"$work/errs/e.py"
"$pmrag" index "$work/errs" -o "$work/errs.graph" -q >/dev/null
expect "graph show a base constructor's message" 0 "made by FetchError" -- "$pmrag" graph show "$work/errs.graph" e.FetchError.__init__
expect "graph show ambiguous" 2 "'__init__' matches 3 symbols" -- "$pmrag" graph show "$work/shop.graph" __init__
one_line_error "graph show ambiguous"
expect "graph show unknown" 2 "no symbol named 'Nope'" -- "$pmrag" graph show "$work/shop.graph" Nope
# pmrag ppr and pmrag impact
for c in ppr impact; do
  expect "$c --help" 0 "^usage: pmrag $c" -- "$pmrag" $c --help
done
printf '# a ring with a tail\n0 1 calls 1\n1 2 calls 1\n2 0 calls 1\n2 3 uses 2.5\n3 4 7 1\n' >"$work/ring.edges"
expect "ppr needs a source" 2 "exactly one of --edges FILE and --graph FILE" -- "$pmrag" ppr --seed 0
expect "ppr both sources" 2 "exactly one of" -- "$pmrag" ppr --edges "$work/ring.edges" --graph "$work/shop.graph" --seed 0
expect "ppr needs seeds" 2 "missing --seed" -- "$pmrag" ppr --edges "$work/ring.edges"
expect "ppr bad alpha" 2 "--alpha: '1.5' is not a number from 0.001 to 0.999" -- "$pmrag" ppr --edges "$work/ring.edges" --seed 0 --alpha 1.5
expect "ppr bad seed id" 2 "'7' is not a node id" -- "$pmrag" ppr --edges "$work/ring.edges" --seed 7
one_line_error "ppr bad seed id"
expect "ppr --explain needs --graph" 2 "--explain needs --graph" -- "$pmrag" ppr --edges "$work/ring.edges" --seed 0 --explain
printf '0 1 calls 1\n1 x calls 1\n' >"$work/bad.edges"
expect "ppr bad edge list" 2 "bad.edges:2: field dst: 'x' is not a node id" -- "$pmrag" ppr --edges "$work/bad.edges" --seed 0
expect "ppr --edges --json" 0 "" -- "$pmrag" ppr --edges "$work/ring.edges" --seed 0 --eps 1e-9 -k 3 --repeat 3 --json
check "ppr --edges JSON contract" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert set(r) >= {"top", "median_us", "pushes", "error_bound"}, r
assert [t["node"] for t in r["top"]] == [1, 2, 3], r["top"]  # the seed 0 is left out
assert all(set(t) == {"node", "score"} for t in r["top"])
assert r["top"][0]["score"] >= r["top"][1]["score"] >= r["top"][2]["score"] > 0
assert 0 <= r["error_bound"] < 1e-6 and r["pushes"] > 0 and r["median_us"] >= 0
PY
expect "ppr --graph" 0 "shop.inventory.Inventory.reserve" -- "$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place -k 5
expect "ppr --graph --explain" 0 "path: place calls-> reserve" -- "$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place -k 5 --explain
expect "ppr --graph unknown seed" 2 "no symbol named 'Nope'" -- "$pmrag" ppr --graph "$work/shop.graph" --seed Nope
expect "ppr bad profile" 2 "--profile: 'fast' is not one of default, debug, refactor" -- "$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place --profile fast
expect "ppr bad weights" 2 "--weights takes TYPE=NUMBER" -- "$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place --weights calls=x
expect "impact" 0 "affects 2 symbols" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve
expect "impact --json" 0 "" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --json
check "impact --json contract" -- python3 - "$work/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
deps = r["dependents"]
assert [d["symbol"] for d in deps] == ["shop.orders.OrderService.place", "run.main"], deps
assert deps[0]["score"] > deps[1]["score"] > 0 and deps[0]["depth"] == 1 and deps[1]["depth"] == 2
assert deps[1]["via"] == "shop.orders.OrderService.place" and deps[1]["type"] == "calls"
PY
expect "impact --threshold" 0 "affects 1 symbol:" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --threshold 0.7
expect "impact unknown symbol" 2 "no symbol named 'Nope'" -- "$pmrag" impact "$work/shop.graph" Nope
expect "impact bad decay" 2 "--decay: '2' is not a number from 0.001 to 1" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --decay 2

# Configuration: one table for files, --set, flags and the reference.
expect "config --help" 0 "^usage: pmrag config" -- "$pmrag" config --help
expect "config defaults" 0 "# alpha: 0.15  \\(default\\)" -- "$pmrag" config
expect "config --get" 0 "^0.8$" -- "$pmrag" config --get impact.decay
expect "config --get unknown" 2 "--get: unknown key 'ppr.nope'" -- "$pmrag" config --get ppr.nope
printf 'ppr:\n  alpha: 0.5\n  profile: debug\n  weights:\n    reverse: 0.1\nimpact:\n  threshold: 0.7\n' >"$work/pmrag.yaml"
expect "config --config" 0 "alpha: 0.5  # .*pmrag.yaml:2" -- "$pmrag" config --config "$work/pmrag.yaml"
expect "config effective weights" 0 "effective edge weights: calls=1.5,.*reverse=0.1" -- "$pmrag" config --config "$work/pmrag.yaml"
expect "config --set over file" 0 "alpha: 0.3  # --set" -- "$pmrag" config --config "$work/pmrag.yaml" --set ppr.alpha=0.3
"$pmrag" config --config "$work/pmrag.yaml" --set ppr.walks=5 >"$work/dump.yaml"
expect "config dump reloads" 0 "walks: 5  # .*dump.yaml:" -- "$pmrag" config --config "$work/dump.yaml"
expect "config dump keeps defaults unset" 0 "# eps: 3e-06  \\(default\\)" -- "$pmrag" config --config "$work/dump.yaml"
printf 'ppr:\n  alpah: 0.5\n' >"$work/typo.yaml"
expect "config unknown key" 2 "typo.yaml:2: unknown key 'ppr.alpah' \\(see pmrag config --reference\\)" -- "$pmrag" config --config "$work/typo.yaml"
one_line_error "config unknown key"
printf 'ppr:\n  hubs: many\n' >"$work/bad.yaml"
expect "config bad value" 2 "bad.yaml:2: key 'ppr.hubs': 'many' is not a whole number from 0 to 10000000" -- "$pmrag" ppr --edges "$work/ring.edges" --seed 0 --config "$work/bad.yaml"
printf 'ppr:\n  alpha: [0.5\n' >"$work/syntax.yaml"
expect "config YAML syntax" 2 "syntax.yaml:[0-9]+: " -- "$pmrag" config --config "$work/syntax.yaml"
one_line_error "config YAML syntax"
expect "config missing file" 2 "/no/such.yaml: No such file or directory" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --config /no/such.yaml
expect "config bad --set" 2 "--set: 'ppr.alpha' is not KEY=VALUE" -- "$pmrag" config --set ppr.alpha
expect "config --reference alone" 2 "--reference takes no other option" -- "$pmrag" config --reference --set ppr.alpha=0.2
expect "config --reference" 0 "^\\| \`ppr.weights.reverse\` \\|" -- "$pmrag" config --reference
# The documented reference is the one the binary prints.
refdoc=$(dirname "$0")/../../docs/configuration.md
if python3 -c 'import sys; sys.exit(open(sys.argv[1]).read() not in open(sys.argv[2]).read())' "$work/out" "$refdoc"; then
  pass "docs/configuration.md has the configuration reference"
else
  bad "docs/configuration.md's configuration reference differs from 'pmrag config --reference'"
fi
# Precedence: flag > --set > file > default, seen in results.
"$pmrag" ppr --edges "$work/ring.edges" --seed 0 -k 3 --json >"$work/plain.json"
"$pmrag" ppr --edges "$work/ring.edges" --seed 0 -k 3 --json --config "$work/pmrag.yaml" >"$work/file.json"
"$pmrag" ppr --edges "$work/ring.edges" --seed 0 -k 3 --json --config "$work/pmrag.yaml" --alpha 0.15 >"$work/flag.json"
"$pmrag" ppr --edges "$work/ring.edges" --seed 0 -k 3 --json --config "$work/pmrag.yaml" --set ppr.alpha=0.15 >"$work/set.json"
check "ppr config precedence" -- python3 - "$work" <<'PY'
import json, sys
top = lambda f: [round(t["score"], 9) for t in json.load(open(sys.argv[1] + "/" + f))["top"]]
assert top("plain.json") != top("file.json"), "alpha 0.5 from the file changed nothing"
assert top("plain.json") == top("flag.json") == top("set.json")
PY
expect "impact threshold from config" 0 "affects 1 symbol:" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --config "$work/pmrag.yaml"
expect "impact flag over config" 0 "affects 2 symbols" -- "$pmrag" impact "$work/shop.graph" Inventory.reserve --config "$work/pmrag.yaml" --threshold 0.05
"$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place -k 5 --json >"$work/g1.json"
"$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place -k 5 --json --set ppr.profile=refactor >"$work/g2.json"
"$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place -k 5 --json --profile refactor >"$work/g3.json"
check "profile from config" -- python3 - "$work" <<'PY'
import json, sys
top = lambda f: [(t["node"], round(t["score"], 9)) for t in json.load(open(sys.argv[1] + "/" + f))["top"]]
assert top("g1.json") != top("g2.json") and top("g2.json") == top("g3.json")
PY

# ---- every command: one exit status table, help that helps ----------------
# Per command: arguments that would run it but for one input file, which
# is missing (@: that file; G: a graph file; L: a log; M: a model). A
# missing input the user named is bad input, exit 2, whichever command;
# so is an unknown option; --help exits 0 with the command's one sentence
# (the same as 'pmrag --help' says), an example and the exit status table;
# --quiet and --config are taken by every command.
printf 'case_id,activity,timestamp\nc1,order placed,2024-01-01T00:00:00Z\nc1,stock reserved,2024-01-01T00:00:01Z\n' >"$work/tiny.csv"
"$pmrag" mine --graph "$work/shop.graph" --log "$work/tiny.csv" -o "$work/tiny.model" -q 2>/dev/null
"$pmrag" --help >"$work/top-help"
while IFS='|' read -r cmd argline; do
  read -ra words <<<"$cmd"
  read -ra raw <<<"$argline"
  args=()
  for a in "${raw[@]}"; do
    case $a in
      @) args+=("$work/nope.input") ;;
      G) args+=("$work/shop.graph") ;;
      L) args+=("$work/tiny.csv") ;;
      M) args+=("$work/tiny.model") ;;
      *) args+=("$a") ;;
    esac
  done
  expect "$cmd: missing input" 2 "$work/nope.input" -- "$pmrag" "${words[@]}" "${args[@]}"
  one_line_error "$cmd: missing input"
  expect "$cmd: unknown option" 2 "unknown (option|subcommand|benchmark) '--frobnicate'" -- "$pmrag" "${words[@]}" --frobnicate
  # --quiet and --config for every command: the file is read (and missing).
  expect "$cmd: --quiet --config" 2 "$work/nope.yaml: No such file" -- "$pmrag" "${words[@]}" "${args[@]}" --quiet --config "$work/nope.yaml"
  expect "$cmd --help" 0 "^usage: pmrag $cmd" -- "$pmrag" "${words[@]}" --help
  if grep -q "^  \$ pmrag ${words[0]}" "$work/out" && grep -q "^exit status: 0 success; 1 runtime failure" "$work/out"; then
    pass "$cmd --help: an example, the exit statuses"
  else
    bad "$cmd --help: no example or no exit status table"
  fi
  # The one sentence: line 3 of the help, or the line after a group's usage lines.
  summary=$(grep -v -e '^usage: ' -e '^       pmrag ' -e '^$' "$work/out" | head -1)
  if [[ $summary =~ ^[A-Z].*\.$ && $summary != *$'\n'* ]]; then pass "$cmd --help: one sentence"; else bad "$cmd --help: no one-sentence summary ('$summary')"; fi
  if [ "${#words[@]}" = 1 ]; then
    top=$(grep -E "^  ${words[0]} " "$work/top-help")
    if [[ $top =~ ^\ \ [a-z-]+\ +(.*)$ && ${BASH_REMATCH[1]} == "$summary" ]]; then
      pass "$cmd: pmrag --help says the same"
    else
      bad "$cmd: pmrag --help's summary differs from '$summary'"
    fi
  fi
done <<'TABLE'
index|@ -o x.graph
symbols|@
graph|stats @
graph stats|@
graph show|@ Cart
map|--graph G --log @
mine|--graph G --log @ -o x.model
query|--graph G --model @ --trace a
eval|--graph @ --log L
predict|--graph G --log @
ppr|--edges @ --seed 0
impact|@ Inventory.reserve
bench|ppr --config @
bench ppr|--config @
config|--config @
serve|--graph @
state|dump --state @
state dump|--state @
state stats|--state @
kafka-mock|--config @
TABLE
expect "pmrag --help: exit statuses" 0 "^exit status: 0 success" -- "$pmrag" --help
expect "query usage names -e" 0 "^usage: pmrag query .*-e TEXT" -- "$pmrag" query --help
expect "ppr --help needs no C header" 0 "" -- "$pmrag" ppr --help
if grep -q '\.h\b' "$work/out"; then bad "ppr --help sends the reader to a C header"; else pass "ppr --help sends the reader to no C header"; fi

# ---- bad input the commands refuse clearly ---------------------------------
# An empty log makes no model (it made a 0-case one, exit 0).
printf 'case_id,activity,timestamp\n' >"$work/empty.csv"
: >"$work/empty0.csv"
for f in empty.csv empty0.csv; do
  expect "mine $f" 2 "^pmrag mine: .*$f: no events \(an empty log makes no model\)$" -- "$pmrag" mine --graph "$work/shop.graph" --log "$work/$f" -o "$work/empty.model"
  one_line_error "mine $f"
done
if [ -e "$work/empty.model" ]; then bad "mine wrote a model of an empty log"; else pass "no model of an empty log"; fi
expect "eval empty log" 2 "no events" -- "$pmrag" eval --graph "$work/shop.graph" --log "$work/empty.csv"
expect "predict empty log" 2 "no events" -- "$pmrag" predict --graph "$work/shop.graph" --log "$work/empty.csv"
# Binary garbage read as CSV: the error quotes the bytes escaped.
printf 'case\033[31m\001,\377\376\233x\n' >"$work/garbage.csv"
expect "garbage CSV" 2 "garbage.csv:1: no column" -- "$pmrag" map --graph "$work/shop.graph" --log "$work/garbage.csv"
if LC_ALL=C grep -q '[^[:print:]]' "$work/err"; then bad "garbage CSV: raw bytes on stderr: $(od -c "$work/err" | head -3)"; else pass "garbage CSV: bytes escaped"; fi
expect "garbage CSV shows escapes" 2 'case\\x1b\[31m\\x01, \\xff\\xfe\\x9bx' -- "$pmrag" map --graph "$work/shop.graph" --log "$work/garbage.csv"
# An activity's text comes from the log: mine's report shows it escaped.
printf 'case_id,activity,timestamp\nc1,evil \033[2J start,2024-01-01T00:00:00Z\nc1,stop,2024-01-01T00:00:01Z\n' >"$work/evil.csv"
expect "mine escapes activities" 0 'start +1  evil \\x1b\[2J start' -- "$pmrag" mine --graph "$work/shop.graph" --log "$work/evil.csv" -o "$work/evil.model"
if LC_ALL=C grep -q '[^[:print:]]' "$work/err"; then bad "mine printed raw bytes of an activity"; else pass "mine: activity bytes escaped"; fi
# Edge type names are case-insensitive.
printf '0 1 CALLS 1\n1 2 Calls 1\n2 0 calls 1\n' >"$work/upper.edges"
expect "ppr --edges CALLS" 0 "node 1" -- "$pmrag" ppr --edges "$work/upper.edges" --seed 0
expect "ppr --weights CALLS" 0 "" -- "$pmrag" ppr --graph "$work/shop.graph" --seed OrderService.place --weights CALLS=1.2,Reverse=0.1
# limits.activities below a model's dictionary names the key, not the file.
{
  echo case_id,activity,timestamp
  for i in $(seq 10 29); do echo "c$((i % 3)),step number$i done,2024-01-01T00:00:${i}Z"; done
} >"$work/acts.csv"
"$pmrag" mine --graph "$work/shop.graph" --log "$work/acts.csv" -o "$work/acts.model" -q 2>/dev/null
expect "limits.activities below the model" 2 "acts.model: the model has 21 activities, more than the 16 allowed by limits.activities: raise it" -- \
  timeout 30 "$pmrag" serve --graph "$work/shop.graph" --model "$work/acts.model" --set limits.activities=16 \
  --set state.dir="$work/acts.state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0
# pmrag config writes every section once: YAML keeps one of two equal keys.
expect "config dump" 0 "" -- "$pmrag" config
dups=$(grep -E '^[a-z_]+:' "$work/out" | sort | uniq -d)
if [ -z "$dups" ]; then pass "config dump: each section once"; else bad "config dump repeats: $dups"; fi
check "config dump is YAML that loses nothing" -- python3 - "$work/out" <<'PY'
import sys
try:
    import yaml
except ImportError:
    sys.exit(0)
text = open(sys.argv[1]).read()
# Uncomment the defaults: every key must come back from one reader's load.
lines = [l.replace("# ", "", 1).replace("  (default)", "")
         if l.lstrip().startswith("# ") and ":" in l else l
         for l in text.splitlines() if not l.startswith("# effective")]
doc = yaml.safe_load("\n".join(lines))
def keys(d, p=""):
    for k, v in d.items():
        yield from keys(v, p + k + ".") if isinstance(v, dict) else [p + k]
n = sum(1 for l in lines if ": " in l and not l.rstrip().endswith(":"))
assert len(list(keys(doc))) == n, (len(list(keys(doc))), n)
PY

# A closed pipe is not an error.
"$pmrag" symbols "$work/shop.graph" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" = 0 ]; then pass "symbols into a closed pipe"; else bad "symbols into a closed pipe: exit $rc"; fi

finish
