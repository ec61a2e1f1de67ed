#!/usr/bin/env bash
# Self-test of the acceptance checkers on tiny hand-written trees whose truth
# is counted by hand below. Exits non-zero when any checker gives a wrong
# number or exit code.
#
#   tests/acceptance/selftest.sh [CACHE_DIR]   (default <repo>/.deps/corpora)
#
# Needs /usr/bin/python3, node, and the TypeScript compiler from fetch.sh
# (fetch.sh is run first; it is offline when the cache is complete).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${1:-$REPO/.deps/corpora}"
PY=/usr/bin/python3
NODE="$(command -v node || echo /usr/bin/node)"

FETCHLOG="$(mktemp)"
"$HERE/fetch.sh" "$CACHE" >/dev/null 2>"$FETCHLOG" || { cat "$FETCHLOG" >&2; rm -f "$FETCHLOG"; echo "selftest: fetch.sh failed" >&2; exit 1; }
rm -f "$FETCHLOG"
TSJS="$CACHE/typescript-5.9.3/package/lib/typescript.js"

W="$(mktemp -d "${TMPDIR:-/tmp}/pmrag-acc-selftest.XXXXXX")"
trap 'rm -rf "$W"' EXIT

PASS=0; FAIL=0
ok()   { PASS=$((PASS+1)); echo "ok   - $*"; }
bad()  { FAIL=$((FAIL+1)); echo "FAIL - $*"; }

# expect NAME JSONFILE 'python-expr' ...  : each expr is evaluated with d = the
# summary object and must be True.
expect() {
  local name="$1" file="$2"; shift 2
  local out
  if out="$("$PY" - "$file" "$@" <<'EOF'
import json, sys, math
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
def close(a, b):
    return a is not None and abs(a - b) < 1e-9
bad = [e for e in sys.argv[2:] if not eval(e, {"d": d, "close": close, "math": math})]
for e in bad:
    print("    wrong: " + e)
sys.exit(1 if bad else 0)
EOF
  )"; then ok "$name"; else bad "$name"; echo "$out"; echo "    summary: $(tail -1 "$file")"; fi
}
# expect_rc NAME GOT WANT
expect_rc() { if [ "$2" = "$3" ]; then ok "$1 (exit $2)"; else bad "$1: exit $2, wanted $3"; fi; }

# ---------------------------------------------------------------- Python tree
P="$W/py"
mkdir -p "$P/pkg/sub" "$P/pkg/__pycache__" "$P/pkg/.git"
cat > "$P/pkg/a.py" <<'EOF'
import functools


def top(x):
    return x


@functools.lru_cache()
@other
async def deco(y):
    def inner():
        pass
    # trailing comment
    return inner


class Foo(Base):
    """Doc."""

    def __init__(self):
        self.v = 1

    @property
    def x(self):
        return self.v

    @x.setter
    def x(self, value):
        self.v = value

    class Inner:
        def m(self): return 1


def top2(
    a,
    b,
):
    return [
        a,
        b,
    ]
# comment after the last body line
EOF
cat > "$P/pkg/sub/b.pyi" <<'EOF'
from typing import overload

@overload
def f(x: int) -> int: ...
@overload
def f(x: str) -> str: ...

class P:
    def g(self) -> None: ...
EOF
printf 'def oops(:\n    pass\n' > "$P/pkg/broken.py"
printf 'def hidden():\n    pass\n' > "$P/pkg/__pycache__/c.py"
printf 'def hidden2():\n    pass\n' > "$P/pkg/.git/d.py"
printf 'def not_python(): pass\n' > "$P/pkg/notes.txt"

# Truth (14): a.py top 4-5, deco 10-14 (decorated from 8), inner 11-12,
# Foo 17-32, __init__ 20-21, x 24-25 (from 23), x 28-29 (from 27), Inner 31-32,
# m 32-32, top2 35-42; b.pyi f 4-4 (from 3), f 6-6 (from 5), P 8-9, g 9-9.
# class 3, function 6 (top deco inner top2 f f), method 5 (__init__ x x m g).
cat > "$W/py_good.json" <<'EOF'
[
 {"id":1,"kind":"module","name":"a","qualname":"a","file":"pkg/a.py","start_line":1,"end_line":43},
 {"id":2,"kind":"function","name":"top","qualname":"a.top","file":"pkg/a.py","start_line":4,"end_line":5},
 {"id":3,"kind":"function","name":"deco","qualname":"a.deco","file":"pkg/a.py","start_line":8,"end_line":14},
 {"id":4,"kind":"function","name":"inner","qualname":"a.deco.inner","file":"pkg/a.py","start_line":11,"end_line":12},
 {"id":5,"kind":"class","name":"Foo","qualname":"a.Foo","file":"pkg/a.py","start_line":17,"end_line":32},
 {"id":6,"kind":"method","name":"__init__","qualname":"a.Foo.__init__","file":"pkg/a.py","start_line":20,"end_line":21},
 {"id":7,"kind":"method","name":"x","qualname":"a.Foo.x","file":"pkg/a.py","start_line":23,"end_line":25},
 {"id":8,"kind":"method","name":"x","qualname":"a.Foo.x","file":"pkg/a.py","start_line":27,"end_line":29},
 {"id":9,"kind":"class","name":"Inner","qualname":"a.Foo.Inner","file":"pkg/a.py","start_line":31,"end_line":32},
 {"id":10,"kind":"method","name":"m","qualname":"a.Foo.Inner.m","file":"pkg/a.py","start_line":32,"end_line":32},
 {"id":11,"kind":"function","name":"top2","qualname":"a.top2","file":"pkg/a.py","start_line":35,"end_line":42},
 {"id":12,"kind":"module","name":"b","qualname":"sub.b","file":"pkg/sub/b.pyi","start_line":1,"end_line":9},
 {"id":13,"kind":"function","name":"f","qualname":"sub.b.f","file":"pkg/sub/b.pyi","start_line":3,"end_line":4},
 {"id":14,"kind":"function","name":"f","qualname":"sub.b.f","file":"pkg/sub/b.pyi","start_line":5,"end_line":6},
 {"id":15,"kind":"class","name":"P","qualname":"sub.b.P","file":"pkg/sub/b.pyi","start_line":8,"end_line":9},
 {"id":16,"kind":"method","name":"g","qualname":"sub.b.P.g","file":"pkg/sub/b.pyi","start_line":9,"end_line":9},
 {"id":17,"kind":"function","name":"oops","qualname":"broken.oops","file":"pkg/broken.py","start_line":1,"end_line":2}
]
EOF
# Bad: inner and g dropped; second x replaced by a duplicate of the first
# (one-to-one: the setter is missed, the duplicate unmatched); ghost extra;
# top2 and Foo with wrong end lines; deco starting at the def line (10, not 8);
# m reported as a function (kind disagreement).
# tool 13 (py class/function/method, broken.py excluded), matched 11,
# recall 11/14, precision 11/13, endline 9/11, startline 10/11.
cat > "$W/py_bad.json" <<'EOF'
[
 {"id":1,"kind":"module","name":"a","qualname":"a","file":"pkg/a.py","start_line":1,"end_line":43},
 {"id":2,"kind":"function","name":"top","qualname":"a.top","file":"pkg/a.py","start_line":4,"end_line":5},
 {"id":3,"kind":"function","name":"deco","qualname":"a.deco","file":"pkg/a.py","start_line":10,"end_line":14},
 {"id":5,"kind":"class","name":"Foo","qualname":"a.Foo","file":"pkg/a.py","start_line":17,"end_line":30},
 {"id":6,"kind":"method","name":"__init__","qualname":"a.Foo.__init__","file":"pkg/a.py","start_line":20,"end_line":21},
 {"id":7,"kind":"method","name":"x","qualname":"a.Foo.x","file":"pkg/a.py","start_line":23,"end_line":25},
 {"id":8,"kind":"method","name":"x","qualname":"a.Foo.x","file":"pkg/a.py","start_line":23,"end_line":25},
 {"id":9,"kind":"class","name":"Inner","qualname":"a.Foo.Inner","file":"pkg/a.py","start_line":31,"end_line":32},
 {"id":10,"kind":"function","name":"m","qualname":"a.Foo.Inner.m","file":"pkg/a.py","start_line":32,"end_line":32},
 {"id":11,"kind":"function","name":"top2","qualname":"a.top2","file":"pkg/a.py","start_line":35,"end_line":38},
 {"id":18,"kind":"function","name":"ghost","qualname":"a.ghost","file":"pkg/a.py","start_line":1,"end_line":1},
 {"id":13,"kind":"function","name":"f","qualname":"sub.b.f","file":"pkg/sub/b.pyi","start_line":3,"end_line":4},
 {"id":14,"kind":"function","name":"f","qualname":"sub.b.f","file":"pkg/sub/b.pyi","start_line":5,"end_line":6},
 {"id":15,"kind":"class","name":"P","qualname":"sub.b.P","file":"pkg/sub/b.pyi","start_line":8,"end_line":9},
 {"id":17,"kind":"function","name":"oops","qualname":"broken.oops","file":"pkg/broken.py","start_line":1,"end_line":2}
]
EOF

PYC="$HERE/py_symbols_check.py"
"$PY" "$PYC" "$P" "$W/py_good.json" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py good: exit" "$rc" 0
expect "py good: numbers" "$W/o" \
  'd["files"] == 3' 'd["unparsable_files"] == 1' 'd["truth"] == 14' 'd["tool"] == 14' 'd["matched"] == 14' \
  'close(d["recall"], 1)' 'close(d["precision"], 1)' 'close(d["endline"], 1)' 'close(d["startline"], 1)' \
  'd["per_kind"]["class"]["truth"] == 3' 'd["per_kind"]["function"]["truth"] == 6' \
  'd["per_kind"]["method"]["truth"] == 5' 'd["kind_disagreements"] == {}' 'd["pass"] is True' \
  'd["tool_unknown_file"] == 0'

"$PY" "$PYC" "$P" "$W/py_bad.json" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py bad: exit" "$rc" 1
expect "py bad: numbers" "$W/o" \
  'd["truth"] == 14' 'd["tool"] == 13' 'd["matched"] == 11' \
  'close(d["recall"], 11/14)' 'close(d["precision"], 11/13)' 'close(d["endline"], 9/11)' \
  'close(d["startline"], 10/11)' 'd["endline_ok"] == 9' \
  'd["per_kind"]["class"]["matched"] == 3' 'd["per_kind"]["function"]["matched"] == 5' \
  'd["per_kind"]["method"]["matched"] == 3' 'd["kind_disagreements"] == {"method->function": 1}' \
  'sorted(d["failed"]) == ["endline", "precision", "recall"]' 'd["pass"] is False'
grep -q 'pkg/a.py:11  function inner (end 12)' "$W/e" && grep -q 'pkg/a.py:28  method x' "$W/e" \
  && grep -q 'pkg/sub/b.pyi:9  method g' "$W/e" && grep -q 'pkg/a.py:1-1  function ghost' "$W/e" \
  && grep -q 'pkg/a.py:35  function top2  end: truth 42, tool 38' "$W/e" \
  && grep -q 'pkg/broken.py' "$W/e" \
  && ok "py bad: misses listed on stderr" || { bad "py bad: misses listed on stderr"; cat "$W/e"; }

"$PY" "$PYC" "$P" "$W/py_bad.json" --min-recall 0.78 --min-precision 0.84 --min-endline 0.81 > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py bad, lowered thresholds: exit" "$rc" 0
"$PY" "$PYC" "$P" "$W/py_bad.json" --min-recall 0.78 --min-precision 0.84 --min-endline 0.82 > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py bad, endline threshold just above: exit" "$rc" 1
expect "py bad: only endline failed" "$W/o" 'd["failed"] == ["endline"]'
"$PY" "$PYC" "$P" "$W/py_good.json" --min-startline 1 > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py good, --min-startline 1: exit" "$rc" 0

# One-to-one: a single tool symbol spanning getter and setter (23-29) can
# match only one of the two truth items named x.
cat > "$W/py_span2.json" <<'EOF'
[{"id":1,"kind":"method","name":"x","qualname":"a.Foo.x","file":"pkg/a.py","start_line":23,"end_line":29}]
EOF
"$PY" "$PYC" "$P" "$W/py_span2.json" > "$W/o" 2> "$W/e"
expect "py one symbol over two truth items: one-to-one" "$W/o" \
  'd["matched"] == 1' 'd["tool"] == 1' 'close(d["precision"], 1)' 'd["endline_ok"] == 0' 'd["startline_ok"] == 1'

echo '[]' > "$W/empty.json"
"$PY" "$PYC" "$P" "$W/empty.json" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py empty symbols: exit" "$rc" 1
expect "py empty symbols: numbers" "$W/o" 'd["truth"] == 14' 'd["recall"] == 0' 'd["precision"] is None'
echo '{"not": "an array"}' > "$W/notarray.json"
"$PY" "$PYC" "$P" "$W/notarray.json" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "py malformed SYMBOLS.json: exit" "$rc" 2

# ------------------------------------------------------------- TS / JS tree
T="$W/ts"
mkdir -p "$T/src" "$T/lib" "$T/node_modules/x" "$T/.git"
cat > "$T/src/a.ts" <<'EOF'
export interface Shape {
  area(): number;
}
export enum Color { Red, Green }
export type Id = string | number;

@decorator
export class Circle implements Shape {
  #r: number;
  constructor(r: number) { this.#r = r; }
  area(): number { return Math.PI * this.#r ** 2; }
  get radius() { return this.#r; }
  set radius(v: number) { this.#r = v; }
  #secret() { return 1; }
  'quoted name'() { return 2; }
  [Symbol.iterator]() { return null as any; }
  onClick = () => { this.area(); };
  abstractish(): void;
  abstractish(x?: number): void {}
}

export function overloaded(a: string): string;
export function overloaded(a: any): any { return a; }

export const arrow = (x: number) => x + 1;
const wrapped = ((y: number) => y) as (y: number) => number;
let fexpr = function named() { return 0; };
const Klass = class { run() {} };
const obj = {
  meth() { return 1; },
  prop: () => 2,
  other: 3,
  [computed]: () => 4,
};
declare function ambient(): void;
EOF
cat > "$T/lib/b.js" <<'EOF'
'use strict';
function Legacy() {}
Legacy.prototype.go = function () { return 1; };
Legacy.make = () => new Legacy();
exports.helper = function helper() {};
module.exports.other = async () => {};
module.exports = Legacy;
module.exports = function () {};
this.x = function () {};
var v = 1, w = function () {};
EOF
cat > "$T/src/c.tsx" <<'EOF'
export function App() {
  const handler = () => 1;
  return <div onClick={handler}>{[1].map(function (i) { return i; })}</div>;
}
EOF
printf 'function nm() {}\n' > "$T/node_modules/x/index.js"
printf 'declare function dts(): void;\ninterface I { a: number }\n' > "$T/src/types.d.ts"
printf 'function minified(){}\n' > "$T/lib/app.min.js"
{ printf 'function longf() {}\nvar s = "'; head -c 20001 /dev/zero | tr '\0' 'a'; printf '";\n'; } > "$T/lib/long.js"
printf 'function inGit() {}\n' > "$T/.git/y.js"
printf '# function notCode() {}\n' > "$T/notes.md"

# Truth (29), line = the name's line:
#  a.ts: interface Shape 1, enum Color 4, type Id 5, class Circle 8 (decorator on 7),
#        method constructor 10, area 11, radius 12 (get), radius 13 (set), #secret 14,
#        "quoted name" 15, onClick 17 (class-prop-fn), abstractish 19 (overload 18 has no body),
#        function overloaded 23 (22 has no body), const-fn arrow 25, wrapped 26, fexpr 27,
#        class Klass 28 (class-expr), method run 28, meth 30, prop 31.  [20]
#  b.js: function Legacy 2, cjs go 3 (prototype), make 4, helper 5 (exports), other 6 (exports),
#        x 9 (this), const-fn w 10; `module.exports = ...` (7, 8) are not items.  [7]
#  c.tsx: function App 1, const-fn handler 2.  [2]
# function 3, class 2, interface 1, enum 1, type 1, method 11, const-fn 5, cjs-assign 5.
# 29 non-module tool symbols in checked files (nm is in node_modules, skipped).
# class methods: area #secret "quoted name" abstractish run = 5.
cat > "$W/ts_good.json" <<'EOF'
[
 {"id":1,"kind":"module","name":"a","qualname":"src/a","file":"src/a.ts","start_line":1,"end_line":35},
 {"id":2,"kind":"interface","name":"Shape","qualname":"Shape","file":"src/a.ts","start_line":1,"end_line":3},
 {"id":3,"kind":"enum","name":"Color","qualname":"Color","file":"src/a.ts","start_line":4,"end_line":4},
 {"id":4,"kind":"type","name":"Id","qualname":"Id","file":"src/a.ts","start_line":5,"end_line":5},
 {"id":5,"kind":"class","name":"Circle","qualname":"Circle","file":"src/a.ts","start_line":7,"end_line":20},
 {"id":6,"kind":"method","name":"constructor","qualname":"Circle.constructor","file":"src/a.ts","start_line":10,"end_line":10},
 {"id":7,"kind":"method","name":"area","qualname":"Circle.area","file":"src/a.ts","start_line":11,"end_line":11},
 {"id":8,"kind":"method","name":"radius","qualname":"Circle.radius","file":"src/a.ts","start_line":12,"end_line":12},
 {"id":9,"kind":"method","name":"radius","qualname":"Circle.radius","file":"src/a.ts","start_line":13,"end_line":13},
 {"id":10,"kind":"method","name":"#secret","qualname":"Circle.#secret","file":"src/a.ts","start_line":14,"end_line":14},
 {"id":11,"kind":"method","name":"quoted name","qualname":"Circle.quoted name","file":"src/a.ts","start_line":15,"end_line":15},
 {"id":12,"kind":"method","name":"onClick","qualname":"Circle.onClick","file":"src/a.ts","start_line":17,"end_line":17},
 {"id":13,"kind":"method","name":"abstractish","qualname":"Circle.abstractish","file":"src/a.ts","start_line":19,"end_line":19},
 {"id":14,"kind":"function","name":"overloaded","qualname":"overloaded","file":"src/a.ts","start_line":23,"end_line":23},
 {"id":15,"kind":"function","name":"arrow","qualname":"arrow","file":"src/a.ts","start_line":25,"end_line":25},
 {"id":16,"kind":"function","name":"wrapped","qualname":"wrapped","file":"src/a.ts","start_line":26,"end_line":26},
 {"id":17,"kind":"function","name":"fexpr","qualname":"fexpr","file":"src/a.ts","start_line":27,"end_line":27},
 {"id":18,"kind":"class","name":"Klass","qualname":"Klass","file":"src/a.ts","start_line":28,"end_line":28},
 {"id":19,"kind":"method","name":"run","qualname":"Klass.run","file":"src/a.ts","start_line":28,"end_line":28},
 {"id":20,"kind":"method","name":"meth","qualname":"obj.meth","file":"src/a.ts","start_line":30,"end_line":30},
 {"id":21,"kind":"method","name":"prop","qualname":"obj.prop","file":"src/a.ts","start_line":31,"end_line":31},
 {"id":22,"kind":"function","name":"Legacy","qualname":"Legacy","file":"lib/b.js","start_line":2,"end_line":2},
 {"id":23,"kind":"function","name":"go","qualname":"Legacy.go","file":"lib/b.js","start_line":3,"end_line":3},
 {"id":24,"kind":"function","name":"make","qualname":"Legacy.make","file":"lib/b.js","start_line":4,"end_line":4},
 {"id":25,"kind":"function","name":"helper","qualname":"helper","file":"lib/b.js","start_line":5,"end_line":5},
 {"id":26,"kind":"function","name":"other","qualname":"other","file":"lib/b.js","start_line":6,"end_line":6},
 {"id":27,"kind":"function","name":"x","qualname":"x","file":"lib/b.js","start_line":9,"end_line":9},
 {"id":28,"kind":"function","name":"w","qualname":"w","file":"lib/b.js","start_line":10,"end_line":10},
 {"id":29,"kind":"function","name":"App","qualname":"App","file":"src/c.tsx","start_line":1,"end_line":4},
 {"id":30,"kind":"function","name":"handler","qualname":"App.handler","file":"src/c.tsx","start_line":2,"end_line":2},
 {"id":31,"kind":"function","name":"nm","qualname":"nm","file":"node_modules/x/index.js","start_line":1,"end_line":1}
]
EOF
# Bad: #secret, make, w dropped; "quoted name" reported with its quotes
# (miss + unmatched); the setter replaced by a duplicate of the getter
# (miss + unmatched); bogus extra (unmatched); prop reported as a function.
# matched 24 of 29; 27 checked non-module tool symbols, 3 unmatched; nm is
# outside the checked files.
"$PY" - "$W/ts_good.json" "$W/ts_bad.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
out = []
for x in s:
    if x["name"] in ("#secret", "make", "w"):
        continue
    if x["name"] == "quoted name":
        x["name"] = "'quoted name'"
    if x["name"] == "radius" and x["start_line"] == 13:
        x["start_line"] = x["end_line"] = 12
    if x["name"] == "prop":
        x["kind"] = "function"
    out.append(x)
out.append({"id": 99, "kind": "function", "name": "bogus", "qualname": "bogus", "file": "src/a.ts", "start_line": 1, "end_line": 35})
json.dump(out, open(sys.argv[2], "w"))
EOF

TSC="$HERE/ts_symbols_check.js"
"$NODE" "$TSC" "$T" "$W/ts_good.json" --ts "$TSJS" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts good: exit" "$rc" 0
expect "ts good: numbers" "$W/o" \
  'd["files_checked"] == 3' 'd["truth"] == 29' 'd["matched"] == 29' 'close(d["recall"], 1)' \
  'd["skipped"]["skipped_dts"] == 1' 'd["skipped"]["skipped_min"] == 1' 'd["skipped"]["skipped_long_lines"] == 1' \
  'd["skipped"]["skipped_node_modules_dirs"] == 1' 'd["files_with_parse_errors"] == 0' \
  '{k: v["truth"] for k, v in d["per_category"].items()} == {"function": 3, "class": 2, "interface": 1, "enum": 1, "type": 1, "method": 11, "const-fn": 5, "cjs-assign": 5}' \
  'all(v["matched"] == v["truth"] for v in d["per_category"].values())' \
  'd["truth_by_subcategory"] == {"cjs-assign/exports": 2, "cjs-assign/other": 1, "cjs-assign/prototype": 1, "cjs-assign/this": 1, "class/class-decl": 1, "class/class-expr": 1, "const-fn/arrow": 3, "const-fn/function-expr": 2, "enum/enum": 1, "function/function-decl": 3, "interface/interface": 1, "method/class-method": 5, "method/class-prop-fn": 1, "method/constructor": 1, "method/getter": 1, "method/object-method": 1, "method/object-prop-fn": 1, "method/setter": 1, "type/type": 1}' \
  'd["tool_checked"] == 29' 'd["tool_outside_checked_files"] == 1' 'd["tool_unmatched"] == 0' \
  'd["kind_disagreements"] == {}' 'd["pass"] is True' 'd["line_basis"] == "name"'

"$NODE" "$TSC" "$T" "$W/ts_bad.json" --ts "$TSJS" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts bad: exit" "$rc" 1
expect "ts bad: numbers" "$W/o" \
  'd["truth"] == 29' 'd["matched"] == 24' 'close(d["recall"], 24/29)' \
  'd["per_category"]["method"]["matched"] == 8' 'd["per_category"]["const-fn"]["matched"] == 4' \
  'd["per_category"]["cjs-assign"]["matched"] == 4' 'd["per_category"]["function"]["matched"] == 3' \
  'd["per_category"]["class"]["matched"] == 2' \
  'd["tool_checked"] == 27' 'd["tool_unmatched"] == 3' 'd["kind_disagreements"] == {"method:function": 1}' \
  'd["pass"] is False'
grep -q "src/a.ts:14  #secret  (class-method)" "$W/e" && grep -q "src/a.ts:13  radius  (setter)" "$W/e" \
  && grep -q "lib/b.js:4  make  (other)" "$W/e" && grep -q "src/a.ts:1-35  function bogus" "$W/e" \
  && ok "ts bad: misses listed on stderr" || { bad "ts bad: misses listed on stderr"; cat "$W/e"; }
"$NODE" "$TSC" "$T" "$W/ts_bad.json" --ts "$TSJS" --min-recall 0.82 > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts bad, --min-recall 0.82: exit" "$rc" 0
"$NODE" "$TSC" "$T" "$W/ts_bad.json" --ts "$TSJS" --min-recall 0.83 > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts bad, --min-recall 0.83: exit" "$rc" 1

"$NODE" "$TSC" "$T" "$W/ts_good.json" --ts "$TSJS" --include-node-modules --include-dts > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts good +node_modules +dts: exit" "$rc" 1
expect "ts good +node_modules +dts: numbers" "$W/o" \
  'd["files_checked"] == 5' 'd["truth"] == 31' 'd["matched"] == 30' \
  'd["per_category"]["interface"]["truth"] == 2' 'd["per_category"]["function"]["truth"] == 4' \
  'd["tool_outside_checked_files"] == 0'
"$NODE" "$TSC" "$T" "$W/ts_good.json" --ts "$TSJS" --exts .js,.cjs --max-line 30000 > "$W/o" 2> "$W/e"; rc=$?
expect "ts --exts .js --max-line 30000: numbers" "$W/o" \
  'd["files_checked"] == 2' 'd["truth"] == 8' 'd["matched"] == 7' 'd["skipped"]["skipped_long_lines"] == 0'
cat > "$W/ts_span2.json" <<'EOF'
[{"id":1,"kind":"method","name":"radius","qualname":"Circle.radius","file":"src/a.ts","start_line":12,"end_line":13}]
EOF
"$NODE" "$TSC" "$T" "$W/ts_span2.json" --ts "$TSJS" > "$W/o" 2> "$W/e"
expect "ts one symbol over two truth items: one-to-one" "$W/o" \
  'd["matched"] == 1' 'd["tool_checked"] == 1' 'd["tool_unmatched"] == 0'
"$NODE" "$TSC" "$T" "$W/empty.json" --ts "$TSJS" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts empty symbols: exit" "$rc" 1
expect "ts empty symbols: numbers" "$W/o" 'd["truth"] == 29' 'd["recall"] == 0'
"$NODE" "$TSC" "$T" "$W/notarray.json" --ts "$TSJS" > "$W/o" 2> "$W/e"; rc=$?
expect_rc "ts malformed SYMBOLS.json: exit" "$rc" 2

# ------------------------------------------------------------ fetch.sh
FC="$W/fetchcache"; mkdir -p "$FC"
cp "$CACHE/rxjs-7.8.1.tgz" "$FC/" && printf 'x' >> "$FC/rxjs-7.8.1.tgz"
"$HERE/fetch.sh" "$FC" > /dev/null 2> "$W/e"; rc=$?
expect_rc "fetch.sh on a corrupted tarball: exit" "$rc" 1
grep -q "checksum mismatch" "$W/e" && ok "fetch.sh names the checksum mismatch" || { bad "fetch.sh mismatch message"; cat "$W/e"; }
mkdir -p "$W/nonpm"; printf '#!/bin/sh\necho "npm must not be called" >&2; exit 99\n' > "$W/nonpm/npm"; chmod +x "$W/nonpm/npm"
PATH="$W/nonpm:$PATH" "$HERE/fetch.sh" "$CACHE" > /dev/null 2> "$W/e"; rc=$?
expect_rc "fetch.sh on a complete cache without npm (offline)" "$rc" 0

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
