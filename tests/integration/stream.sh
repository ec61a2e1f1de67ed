#!/usr/bin/env bash
# Server-Sent Events from `pmrag serve`: GET /v1/stream (every case, or
# ?case=ID) and GET /v1/cases/{id}/stream, read by curl as any client
# would. Every prediction reaches the streams that want its case, once and
# in order; a stream's rate (api.stream_rate) skips the excess and says
# how many (and /metrics counts them); api.streams bounds the streams
# open; the API's bearer token guards them; SIGTERM ends them cleanly.
#
#   stream.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: stream.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
tool="python3 $src/tests/integration/replay_tool.py"
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean state serve.err serve.ready '*.sse'

demo_setup 60 11
$tool split "$work/log.csv" "$work" >/dev/null
printf 'sse-test-token-0123456789\n' >"$work/token"
chmod 600 "$work/token"
auth=(-H "Authorization: Bearer sse-test-token-0123456789")

start() {
  serve_start serve --graph "$work/app.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=false \
    --set model.bootstrap_log="$work/train.csv" --set model.learn_online=false \
    --set api.token_file="$work/token" --set api.streams=3 "$@"
  serve_wait serve 120
  api=$(ready_field serve api)
  otlp=$(ready_field serve otlp_http)
}
# listen NAME URL: curl -N in the background into $work/NAME.sse (tracked);
# waits until the stream's opening comment has arrived.
listen() {
  curl -sN "${auth[@]}" "http://$api$2" >"$work/$1.sse" &
  track $!
  pid_of[$1]=$!
  for _ in $(seq 100); do
    grep -q '^: pmrag predictions' "$work/$1.sse" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "stream $1 ($2) did not open"
}

# A link template the page could not fill is refused at start, naming the
# key (`|| true`: expect reads the exit status itself, not through -e).
expect "ui.source_url with an unknown placeholder" 2 "ui.source_url: unknown placeholder '\\{path\\}'" \
  -- "$pmrag" serve --graph "$work/app.graph" --set state.dir="$work/state" \
  --set ui.source_url='https://git.example.com/{path}' || true
expect "ui.source_url not http(s)" 2 "ui.source_url: .*expected an http:// or https:// URL template" \
  -- "$pmrag" serve --graph "$work/app.graph" --set state.dir="$work/state" \
  --set ui.source_url='file:///etc/{file}' || true
start --set api.stream_rate=100000
code=$(curl -s -o /dev/null -w '%{http_code}' "http://$api/v1/stream")
[[ $code == 401 ]] && pass "no token: 401" || bad "no token: $code, want 401"
case_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["case_id"])' "$work/test.json")
listen all /v1/stream
listen path "/v1/cases/$case_id/stream"
listen query "/v1/stream?case=$case_id"
code=$(curl -s -o "$work/over.json" -w '%{http_code}' "${auth[@]}" "http://$api/v1/stream")
[[ $code == 503 ]] && grep -q 'api.streams' "$work/over.json" && pass "a 4th stream past api.streams=3: 503" ||
  bad "a 4th stream: $code $(cat "$work/over.json")"
events=$($tool send "$work/test.json" "$otlp") || fail "sending events"
held_wait serve 30 "${auth[@]}" # (every event applied: out of the event-time window)
sleep 0.5
stop "${pid_of[serve]}" # SIGTERM ends the streams: curl sees the end
for n in all path query; do
  wait "${pid_of[$n]}" 2>/dev/null || bad "curl of stream $n exited $? after SIGTERM"
  untrack "${pid_of[$n]}"
done
check "every prediction on /v1/stream, one case's on the two per-case streams, in order" \
  -- python3 - "$work" "$case_id" "$events" <<'PY'
import json, sys
work, case_id, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def read(name):
    out, ev = [], None
    for line in open("%s/%s.sse" % (work, name)):
        line = line.rstrip("\n")
        if line.startswith("event: "):
            ev = line[7:]
        elif line.startswith("data: "):
            out.append((ev, json.loads(line[6:])))
    return out
a = read("all")
assert len(a) == n and all(e == "prediction" for e, _ in a), (len(a), n)
seqs = {}
for _, p in a:
    assert p["seq"] == seqs.get(p["case_id"], 0) + 1, p
    seqs[p["case_id"]] = p["seq"]
    assert ("last_rank" in p) and (p["last_rank"] is None) == (p["seq"] == 1), p
mine = [p for _, p in a if p["case_id"] == case_id]
for name in ("path", "query"):
    got = [p for _, p in read(name)]
    assert got == mine, name
assert len(mine) > 1
PY

# A slow rate: a burst is cut to about a second's worth, and the next
# prediction sent says how many were skipped.
work_clean state
start --set api.stream_rate=5
listen slow /v1/stream
python3 - "$work/test.json" "$work/burst.json" "$work/late.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
json.dump(rows[:200], open(sys.argv[2], "w"))
# One more event of a case of the burst, sent later.
c = rows[0]["case_id"]
json.dump([r for r in rows[200:] if r["case_id"] == c][:1] or [rows[0]], open(sys.argv[3], "w"))
PY
$tool send "$work/burst.json" "$otlp" >/dev/null || fail "sending the burst"
sleep 1.5
$tool send "$work/late.json" "$otlp" >/dev/null || fail "sending one more"
held_wait serve 30 "${auth[@]}"
sleep 0.5
curl -s -m 5 "${auth[@]}" "http://$api/metrics" >"$work/metrics.txt" || fail "GET /metrics"
stop "${pid_of[serve]}"
wait "${pid_of[slow]}" 2>/dev/null || true
untrack "${pid_of[slow]}"
check "api.stream_rate=5: a burst of 200 skipped but for a second's worth, the skip counted, in /metrics too" \
  -- python3 - "$work/slow.sse" "$work/metrics.txt" <<'PY'
import json, sys
sent, skipped = 0, 0
ev = None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("event: "):
        ev = line[7:]
    elif line.startswith("data: "):
        d = json.loads(line[6:])
        if ev == "skipped":
            skipped += d["skipped"]
        else:
            sent += 1
print("sent %d, skipped %d" % (sent, skipped))
assert sent + skipped == 201, (sent, skipped)
assert 5 <= sent <= 12, sent
metrics = dict(l.split() for l in open(sys.argv[2]) if l.startswith("pmrag_stream"))
assert metrics.get("pmrag_stream_predictions_skipped_total") == str(skipped), metrics
assert metrics.get("pmrag_streams_cut_off_total") == "0", metrics
PY
finish
