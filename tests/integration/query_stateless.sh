#!/usr/bin/env bash
# shellcheck disable=SC2119 # shop_serve is called with no settings of its own
# POST /v1/query is stateless: 10,000 queries of random texts (each a
# message the daemon never saw) leave the state directory byte for byte
# as they found it: the activity dictionary (which a query used to grow
# until limits.activities folded real new messages into "<other>", for
# good) and the case store. The answers still map known texts to their
# activities and say which texts are new ("known": false).
#
#   query_stateless.sh PMRAG SOURCE_DIR [WORK_DIR]
#
# Environment: QUERIES (10000).
set -euo pipefail
usage="usage: query_stateless.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
queries=${QUERIES:-10000}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl mdb_dump
work_init
work_clean state '*.err' '*.ready' 'before.*' 'after.*'

shop_graph
# snapshot NAME: the dictionary and the case store, every key and value
# (mdb_dump), and what pmrag state says of them.
tables=(dict cases by_touch)
snapshot() {
  local t
  for t in "${tables[@]}"; do
    mdb_dump -s "$t" "$work/state" >"$work/$1.$t" || fail "mdb_dump -s $t"
  done
  "$pmrag" state stats --state "$work/state" --json >"$work/$1.stats" || fail "pmrag state stats"
}

# Some real traffic first: three cases, a few events each.
shop_serve
python3 - "$work/serve.ready" <<'PY' || fail "posting the first events"
import json, sys, time, urllib.request
ready = json.load(open(sys.argv[1]))
texts = ["Placing order 7 for alice", "Charging card for order 7", "Order 7 shipped"]
spans = []
for c in range(3):
    for i, t in enumerate(texts):
        n = len(spans)
        spans.append({"traceId": "%032x" % (n + 1), "spanId": "%016x" % (n + 1), "name": t,
                      "startTimeUnixNano": str(1700000000000000000 + n * 1000),
                      "attributes": [{"key": "case.id", "value": {"stringValue": "case-%d" % c}}]})
body = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
req = urllib.request.Request("http://%s/v1/traces" % ready["otlp_http"], json.dumps(body).encode(),
                             {"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=30).read()
for _ in range(200):
    try:
        with urllib.request.urlopen("http://%s/v1/cases/case-2" % ready["api"], timeout=5) as r:
            if json.load(r)["seq"] == 3:
                break
    except Exception:
        pass
    time.sleep(0.05)
else:
    sys.exit("case-2 not at seq 3 within 10 s")
PY
stop "$pid"
# A start and stop alone: what the comparison below is against (a start
# may write what it always writes).
shop_serve
stop "$pid"
snapshot before

shop_serve
python3 - "$work/serve.ready" "$queries" >"$work/queries.out" <<'PY' || fail "the queries: $(tail -3 "$work/queries.out")"
import http.client, json, random, sys
ready = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
rnd = random.Random(7)
host, port = ready["api"].rsplit(":", 1)
conn = http.client.HTTPConnection(host, int(port), timeout=30)
words = "alpha beta gamma delta order card user cache retry sync flush open close".split()
def text():
    return " ".join(rnd.choice(words) + str(rnd.randrange(10**6)) for _ in range(rnd.randint(2, 6)))
new = known = 0
for q in range(n):
    trace = [text() for _ in range(rnd.randint(1, 4))]
    if q % 100 == 0:
        trace.insert(0, "Charging card for order 99")
    conn.request("POST", "/v1/query", json.dumps({"trace": trace, "k": 3}),
                 {"Content-Type": "application/json"})
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("query %d: HTTP %d: %s" % (q, r.status, body[:200]))
    for ev in json.loads(body)["trace"]:
        if ev["known"]:
            known += 1
        else:
            new += 1
print("%d queries: %d known texts, %d new" % (n, known, new))
if known < n // 100:
    sys.exit("a text the daemon saw was not known")
PY
cat "$work/queries.out"
# The texts are still new after all those queries: nothing was learnt.
again=$(curl -s -m 5 -X POST -H 'Content-Type: application/json' \
  -d '{"trace":["gamma12 delta34 never seen"]}' "http://$(ready_field serve api)/v1/query")
[[ $again == *'"known":false'* ]] || bad "a new text not answered as new: ${again:0:200}"
stop "$pid"
snapshot after

for f in "${tables[@]}" stats; do
  if cmp -s "$work/before.$f" "$work/after.$f"; then
    pass "$f byte for byte as before $queries queries ($(grep -c '^ ' "$work/before.$f") lines)"
  else
    bad "$f changed by $queries queries: $(diff "$work/before.$f" "$work/after.$f" | head -4 | tr '\n' ' ')"
  fi
done
finish
