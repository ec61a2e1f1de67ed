#!/usr/bin/env bash
# How long a SIGHUP reload stops the engine on a graph of 100k symbols,
# events streaming in over OTLP/HTTP (10 records a request, 5 ms apart).
# Release N is TREE (default /usr/lib/python3/dist-packages: 104k
# symbols); release N+1 is a copy with a comment block atop 30 of
# botocore's files (its lines moved) and one message reworded. The model
# is mined on N from LOG (botocore's corpus log). Per session: SIGHUP with
# the same files, then with N+1's graph, then with N's again; PMRAG and,
# when given, REF_PMRAG alternate, ROUNDS (3) sessions each. Prints, per
# reload, the engine's pause (from PMRAG's log line; a REF_PMRAG that logs
# none: SIGHUP to "in use" or "refused"), the background load time and its
# CPU time, and the slowest OTLP answer during reloads.
#
#   reload_pause.sh PMRAG [REF_PMRAG] [WORK_DIR]
set -euo pipefail
usage="usage: reload_pause.sh PMRAG [REF_PMRAG] [WORK_DIR]"
pmrag=$(readlink -f "${1:?$usage}")
ref=${2:+$(readlink -f "$2")}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-}
tree=${TREE:-/usr/lib/python3/dist-packages}
log=${LOG:-$src/../shared/bench/botocore.csv.gz}
rounds=${ROUNDS:-3}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
work_init
cd "$work"

if [[ ! -s n.graph ]]; then
  "$pmrag" index "$tree" -o n.graph -q
  rm -rf n1 && cp -r "$tree" n1
  python3 - n1 <<'PY'
import glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/botocore/*.py"))[:30]:
    s = open(f).read()
    open(f, "w").write("# release N+1: lines moved\n#\n#\n" + s)
p = sys.argv[1] + "/botocore/retryhandler.py"
s = open(p).read()
open(p, "w").write(s.replace("No retry needed.", "No retry is needed."))
PY
  "$pmrag" index n1 -o n1.graph -q
  rm -rf n1
  "$pmrag" mine --graph n.graph --log "$log" -o n.model -q
  python3 - "$log" <<'PY'
import csv, gzip, json, sys
rows = []
with gzip.open(sys.argv[1], "rt", newline="") as f:
    for i, row in enumerate(csv.DictReader(f)):
        if i >= 20000:
            break
        rows.append(row)
json.dump(rows[:6000], open("warm.json", "w"))
json.dump(rows[6000:], open("stream.json", "w"))
PY
fi

# stream TEST.json ADDR OUT: one request of 10 records every 5 ms, the
# send time and answer time of each into OUT.
stream() {
  python3 - "$src/tests/integration" "$@" <<'PY'
import json, sys, time
sys.path.insert(0, sys.argv[1])
from replay_tool import record, post
rows, addr, out = json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
lat = []
for i in range(0, len(rows), 10):
    t = time.time()
    post(addr, [record(r) for r in rows[i:i + 10]])
    lat.append((t, time.time() - t))
    time.sleep(0.005)
json.dump(lat, open(out, "w"))
PY
}

session() { # TAG (with pmrag the binary)
  local tag=$1 n=0 g
  rm -rf "state.$tag" "$tag.ready"
  cp n.graph live.graph
  serve_start "$tag" --graph live.graph --model n.model --set state.dir="state.$tag" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    >/dev/null
  local spid=$pid
  serve_wait "$tag" 120
  local otlp
  otlp=$(ready_field "$tag" otlp_http)
  python3 "$src/tests/integration/replay_tool.py" send warm.json "$otlp" >/dev/null
  stream stream.json "$otlp" "$tag.lat" &
  local sender=$!
  sleep 1
  for g in n.graph n1.graph n.graph; do
    cp "$g" live.graph
    n=$((n + 1))
    kill -HUP "$spid"
    for _ in $(seq 600); do
      (($(grep -cE 'in use, graph|model v[0-9]+ in use$|reload refused' "$tag.err") >= n)) && break
      sleep 0.05
    done
    sleep 0.5
  done
  wait "$sender"
  stop "$spid"
}
declare -A pmrag_of=([new]=$pmrag)
[[ -n $ref ]] && pmrag_of[ref]=$ref
for r in $(seq "$rounds"); do
  for which in ref new; do
    [[ -n ${pmrag_of[$which]:-} ]] || continue
    : >"$which$r.err"
    pmrag=${pmrag_of[$which]} session "$which$r"
  done
done
python3 - "$rounds" <<'PY'
import datetime, json, re, sys
def at(line):
    return datetime.datetime.fromisoformat(line[:23]).replace(tzinfo=datetime.timezone.utc).timestamp()
for r in range(1, int(sys.argv[1]) + 1):
    for which in ("ref", "new"):
        tag = "%s%d" % (which, r)
        try:
            lines = open(tag + ".err").read().splitlines()
        except OSError:
            continue
        wins, out, start = [], [], None
        for l in lines:
            if "reading the graph and the model" in l:
                start = at(l)
            elif start and ("reload refused" in l or re.search(r"model v\d+ in use($|,)", l)):
                m = re.search(r"(\(new\))?: loaded in ([0-9.]+) s \(([0-9.]+) s of CPU\), "
                              r"the engine waited ([0-9.]+) s", l)
                if m:
                    out.append("%s: pause %.3f s, loaded in %s s (%s s CPU)" % (
                        "new graph" if m.group(1) else "same files", float(m.group(4)),
                        m.group(2), m.group(3)))
                else:
                    out.append("%s: pause %.3f s" % ("refused" if "refused" in l else "reloaded",
                                                     at(l) - start))
                wins.append((start, at(l)))
                start = None
        lat = json.load(open(tag + ".lat"))
        during = [x for t, x in lat if any(a - 0.2 <= t <= b for a, b in wins)]
        print("%s  %s; slowest answer during reloads %.3f s" % (
            tag, "; ".join(out), max(during) if during else 0))
PY
