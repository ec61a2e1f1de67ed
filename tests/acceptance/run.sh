#!/usr/bin/env bash
# One acceptance check of `pmrag index` on a real corpus (ctest label
# "acceptance"):
#
#   tests/acceptance/run.sh pip|rxjs|webpack PMRAG [WORKDIR]
#
# Indexes the corpus, checks its symbols against the language's own parser
# (py_symbols_check.py / ts_symbols_check.js), and checks that at least
# MIN_RESOLVED (default 0.70) of the call sites to in-repo names resolved.
# Prints the checker's JSON line and the graph statistics.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
corpus=${1:?corpus: pip, rxjs or webpack}
pmrag=${2:?path to the pmrag binary}
work=${3:-$(mktemp -d)}
min_resolved=${MIN_RESOLVED:-0.70}
cache=${PMRAG_CORPUS_DIR:-$top/.deps/corpora}
mkdir -p "$work"

case "$corpus" in
  pip)
    root=/usr/lib/python3/dist-packages/pip
    [ -d "$root" ] || { echo "run.sh: $root missing (apt-get install python3-pip)" >&2; exit 1; }
    index_flags=()
    check=(/usr/bin/python3 "$here/py_symbols_check.py" "$root")
    ;;
  rxjs | webpack)
    "$here/fetch.sh" "$cache" >/dev/null
    ts_js=$cache/typescript-5.9.3/package/lib/typescript.js
    if [ "$corpus" = rxjs ]; then
      root=$cache/rxjs-7.8.1/package/src
      index_flags=()
      check=(node "$here/ts_symbols_check.js" "$root" --ts "$ts_js")
    else
      # webpack's published package: lib/, bin/, hot/, schemas/ and its
      # .d.ts declarations. It holds no node_modules and no build/ or dist/,
      # so the default excludes skip nothing; the two schema validators
      # pmrag skips as generated are the two files the checker skips for
      # a line over 20,000 characters. With --include-dts the checker reads
      # the same 641 files pmrag indexes.
      root=$cache/webpack-5.97.1/package
      index_flags=()
      check=(node "$here/ts_symbols_check.js" "$root" --ts "$ts_js" --include-dts)
    fi
    ;;
  *) echo "run.sh: unknown corpus '$corpus' (pip, rxjs or webpack)" >&2; exit 2 ;;
esac

graph=$work/$corpus.graph
"$pmrag" index "$root" -o "$graph" -q "${index_flags[@]}"
"$pmrag" symbols "$graph" --json >"$work/$corpus.symbols.json"
status=0
"${check[@]}" "$work/$corpus.symbols.json" --show 10 || status=1
"$pmrag" graph stats "$graph" --json >"$work/$corpus.stats.json"
python3 - "$work/$corpus.stats.json" "$min_resolved" <<'PY' || status=1
import json, sys
st = json.load(open(sys.argv[1]))
c = st["calls"]
share = c["internal_resolved_share"]
print(json.dumps({"corpus_calls": c, "symbols": st["symbols"]}))
if share < float(sys.argv[2]):
    print(f"call sites to in-repo names resolved: {share:.3f} < {sys.argv[2]}", file=sys.stderr)
    sys.exit(1)
PY
exit $status
