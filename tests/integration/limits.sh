#!/usr/bin/env bash
# Limits a hostile client cannot get around, end to end through pmrag serve
# (OTLP/HTTP JSON in, embedded Kafka off): each limit has its key, counts
# its hits in pmrag_limit_hits_total{limit=...}, and holds.
#   limits.record_attrs / limits.string_bytes  records cut, counted
#   limits.activities                          a flood of unique messages folds
#   limits.case_events                         a case stops at its limit
#   limits.new_cases_per_second                new cases past the rate dropped
#   limits.memory_bytes                        over it, input refused (503),
#                                              /readyz says so; taken again after
# (The body size after decompression is tested in unit.test_http.)
# And the other ends of a case's life: state.end_activities closes a case,
# state.ttl forgets an idle one (the committer's expiry, every 5 s).
#
#   limits.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: limits.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
work_init

shop_graph
# start --set ...: a fresh state, waits for the ready file. A fresh log
# too: the greps below look for what this run said. Events are applied as
# they arrive (serve.reorder_ms=0): the checks read a case right after its
# events were sent. (The limits act when events come in, held or not: the
# event cap counts held events too.)
start() {
  work_clean state serve.err
  shop_serve --set serve.reorder_ms=0 "$@"
}
cat >"$work/check.py" <<'PY'
import json, sys, time, urllib.error, urllib.request

ready = json.load(open(sys.argv[1]))
phase = sys.argv[2]
otlp, api = ready["otlp_http"], ready["api"]

def post(spans):
    body = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    req = urllib.request.Request(f"http://{otlp}/v1/traces", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200, r.status
        body = r.read()
        return json.loads(body) if body else {}

def span(case, name, i, nattrs=1):
    attrs = [{"key": "case.id", "value": {"stringValue": case}}]
    attrs += [{"key": f"a{k}", "value": {"stringValue": "v"}} for k in range(nattrs)]
    return {"traceId": "%032x" % (i + 1), "spanId": "%016x" % (i + 1), "name": name,
            "startTimeUnixNano": str(1700000000000000000 + i * 1000), "attributes": attrs}

def hits(limit):
    return hits_of('pmrag_limit_hits_total{limit="%s"} ' % limit)

def hits_of(key):
    with urllib.request.urlopen(f"http://{api}/metrics", timeout=10) as r:
        text = r.read().decode()
    for line in text.splitlines():
        if line.startswith(key):
            return float(line[len(key):])
    return 0

def case(cid):
    try:
        with urllib.request.urlopen(f"http://{api}/v1/cases/{cid}", timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise

bad = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad.append(what)

if phase == "per_case":
    # case_events=5: 8 events of one case, 5 applied.
    post([span("long-case", "placing order 1 now", i) for i in range(8)])
    c = case("long-case")
    check(c is not None and c["seq"] == 5, f"limits.case_events=5: seq {c and c['seq']} after 8 events")
    check(hits("case_events") == 3, f"case_events hits {hits('case_events'):.0f} (want 3)")
    # record_attrs=3 and string_bytes=64: 10 attributes, a 1000-byte name.
    post([span("attrs-case", "x" * 1000, 100, nattrs=10)])
    check(hits("record_truncated") >= 1, f"record_truncated hits {hits('record_truncated'):.0f}")
    c = case("attrs-case")
    lens = [len(a) for a in (c or {}).get("prefix", []) if a]
    check(c is not None and lens and max(lens) <= 64, f"the activity was cut to 64 bytes: {lens}")
    # Case ids up to 500 bytes are kept; a longer one is refused with its
    # record (OTLP partial success, counted), never accepted and dropped.
    rej0 = hits_of('pmrag_records_rejected_total{source="otlp_http"} ')
    r = post([span("k" * 500, "placing order 5 now", 300), span("k" * 503, "placing order 5 now", 301)])
    ps = r.get("partialSuccess", {})
    check(ps.get("rejectedSpans") == "1" and "503 bytes" in ps.get("errorMessage", ""),
          f"a 503-byte case id refused with its span: {ps}")
    c = case("k" * 500)
    check(c is not None and c["seq"] == 1, f"a 500-byte case id kept: {c and c['seq']}")
    rej = hits_of('pmrag_records_rejected_total{source="otlp_http"} ') - rej0
    check(rej == 1, f"the refused span counted: {rej:.0f}")
    # A log record with neither time nor observed time: the time it was
    # taken in (it used to be stored with no time at all).
    body = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"stringValue": "no time here"},
            "attributes": [{"key": "case.id", "value": {"stringValue": "timeless"}}]}]}]}]}
    req = urllib.request.Request(f"http://{otlp}/v1/logs", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    t0 = time.time()
    urllib.request.urlopen(req, timeout=30).read()
    c = case("timeless")
    lt = (c or {}).get("last_time", "")
    check(lt.startswith(time.strftime("%Y-%m-%dT", time.gmtime(t0))),
          f"a record without a time has the time it was received: {lt!r}")
    # new_cases_per_second=20 (a burst of 20): 200 new cases at once.
    time.sleep(1.1)
    post([span(f"burst-{i}", "placing order 2 now", 1000 + i) for i in range(200)])
    nc = hits("new_cases")
    check(150 <= nc <= 181, f"new_cases hits {nc:.0f} of 200 (a bucket of 20, refilling at 20/s)")
    kept = sum(1 for i in range(200) if case(f"burst-{i}") is not None)
    check(kept + nc == 200, f"{kept} new cases kept + {nc:.0f} dropped = 200")
elif phase == "lifecycle":
    post([span("ends", "placing order 3 now", 1), span("ends", "charged 5 cents for o3", 2)])
    c = case("ends")
    check(c is None, f"state.end_activities: a case closed by its end activity is gone: {c}")
    post([span("ends", "placing order 3 now", 3)])
    c = case("ends")
    check(c is not None and c["seq"] == 1, f"the same id starts a new case: seq {c and c['seq']}")
    post([span("idle", "placing order 4 now", 4)])
    check(case("idle") is not None, "an idle case is there at first")
    deadline = time.time() + 20
    while case("idle") is not None and time.time() < deadline:
        time.sleep(0.5)
    check(case("idle") is None, "state.ttl=2: the idle case expired within 20 s")
elif phase == "idle_memory":
    pid = int(sys.argv[3])
    post([span("warm", "placing order 1 now", 1)])
    time.sleep(0.5)
    statm = open(f"/proc/{pid}/statm").read().split()
    print((int(statm[1]) - int(statm[2])) * 4096)
    sys.exit(0)
elif phase == "memory":
    import http.client, threading
    # limits.memory_bytes is the idle use + 32 MiB: one 60 MB request
    # pushes the daemon over it while it is applied.
    spans = [span(f"mem-{i % 5000}", "placing order %d now" % i, 20000 + i, nattrs=12)
             for i in range(60000)]
    big = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    del spans
    print(f"big request: {len(big) / 1e6:.0f} MB, 60000 spans")
    res = {}
    def send_big():
        h, p = otlp.rsplit(":", 1)
        c = http.client.HTTPConnection(h, int(p), timeout=120)
        c.request("POST", "/v1/traces", big, {"Content-Type": "application/json"})
        res["status"] = c.getresponse().status
    t = threading.Thread(target=send_big)
    t.start()
    def readyz():
        try:
            with urllib.request.urlopen(f"http://{api}/readyz", timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
    deadline = time.time() + 60
    st, why = readyz()
    while "memory" not in why and time.time() < deadline and t.is_alive():
        time.sleep(0.01)
        st, why = readyz()
    check(st == 503 and "limits.memory_bytes" in why, f"/readyz over the limit: {st} {why.strip()}")
    small = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span("mem-small", "placing order 9 now", 1)]}]}]}).encode()
    req = urllib.request.Request(f"http://{otlp}/v1/traces", small, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            code, ra = r.status, None
    except urllib.error.HTTPError as e:
        code, ra = e.code, e.headers.get("Retry-After")
    check(code == 503 and ra is not None, f"a request over the limit: {code}, Retry-After {ra}")
    check(hits("memory") >= 1, f"memory hits {hits('memory'):.0f}")
    t.join()
    check(res.get("status") == 200, f"the big request itself: {res.get('status')}")
    deadline = time.time() + 30
    st, why = readyz()
    while st != 200 and time.time() < deadline:
        time.sleep(0.1)
        st, why = readyz()
    check(st == 200, f"/readyz after the big request: {st} {why.strip()}")
    post([span("mem-small", "placing order 9 now", 1)])
    c = case("mem-small")
    check(c is not None and c["seq"] == 1, f"taken again under the limit: seq {c and c['seq']}")
    c = case("mem-4999")
    check(c is not None and c["seq"] == 12, f"the big request applied: mem-4999 seq {c and c['seq']}")
else:
    # activities=50: 3000 distinct messages (of 3000 cases) fold into <other>.
    words = ["%s%s%s" % (chr(97 + i % 26), chr(97 + i // 26 % 26), chr(97 + i // 676 % 26))
             for i in range(3000)]
    for r in range(30):
        post([span(f"flood-{r * 100 + j}", f"unexpected {w} condition in {w[::-1]}q", 5000 + r * 100 + j)
              for j, w in enumerate(words[r * 100:(r + 1) * 100])])
    n = hits("activities")
    check(n > 2500, f"activities hits {n:.0f} of 3000 unique messages (limits.activities=50)")
    c = case("flood-2999")
    check(c is not None and c["prefix"] == ["<other>"], f"the last one is <other>: {c and c['prefix']}")
sys.exit(1 if bad else 0)
PY

start --set limits.record_attrs=3 --set limits.string_bytes=64 --set limits.case_events=5 \
  --set limits.new_cases_per_second=20
python3 "$work/check.py" "$work/serve.ready" per_case || fail "per-case limits not held (above)"
stop "$pid"
start --set state.ttl=2 --set "state.end_activities=charged %s cents for %s"
python3 "$work/check.py" "$work/serve.ready" lifecycle || fail "case lifecycle (above)"
grep -q "idle cases expired" "$work/serve.err" || fail "the expiry is not logged"
stop "$pid"
# (LIMITS_MEMORY=0 skips the big request: under AddressSanitizer freed
# memory stays in its quarantine, so the daemon never comes back under.)
if [[ ${LIMITS_MEMORY:-1} != 0 ]]; then
  start
  idle=$(python3 "$work/check.py" "$work/serve.ready" idle_memory "$pid") || fail "idle memory"
  stop "$pid"
  start --set limits.memory_bytes=$((idle + 32 * 1024 * 1024)) --set otlp.dedupe_seconds=0
  echo "limits: idle anonymous memory $((idle / 1048576)) MiB, limit $((idle / 1048576 + 32)) MiB"
  python3 "$work/check.py" "$work/serve.ready" memory || fail "limits.memory_bytes not held (above)"
  grep -q "over limits.memory_bytes" "$work/serve.err" || fail "going over the memory limit is not logged"
  stop "$pid"
fi
# Kafka input over the memory limit (1 byte: over from the start): the
# partitions are paused, nothing is consumed; then without the limit
# everything is.
need kcat
mock_start --partitions 2 --topic otlp_spans --topic pmrag_predictions
kafka_events() { ready_metric serve 'pmrag_events_in_total{source="kafka"}'; }
kstart() {
  start --set kafka.brokers="$boot" --set kafka.input_topics=otlp_spans \
    --set kafka.input_encoding=json --set kafka.output_encoding=json "$@"
  for _ in $(seq 100); do grep -q "assigned" "$work/serve.err" && break; sleep 0.1; done
}
kstart --set limits.memory_bytes=1
for i in $(seq 100); do
  printf 'k%d\t{"case_id":"k%d","activity":"placing order %d now","timestamp":"2026-01-01T00:00:%02dZ"}\n' \
    $((i % 10)) $((i % 10)) "$i" $((i % 60))
done | kcat -P -b "$boot" -t otlp_spans -K $'\t' || fail "kcat -P"
sleep 3
n=$(kafka_events)
echo "limits: Kafka events consumed over the memory limit in 3 s: ${n:-?}"
[[ ${n:-x} == 0 ]] || fail "Kafka input was consumed over the memory limit (${n:-no metric})"
stop "$pid"
# (Another group: the mock cluster keeps the first member until its
# session times out. Nothing was committed, so it reads from the start.)
kstart --set kafka.group=pmrag-after
for _ in $(seq 100); do [[ $(kafka_events) == 100 ]] && break; sleep 0.2; done
n=$(kafka_events)
echo "limits: Kafka events consumed without the limit: ${n:-?}"
[[ $n == 100 ]] || fail "after the memory limit, $n of 100 Kafka events consumed"
stop "$pid"
kill_wait "$mock_pid"
start --set limits.activities=50
python3 "$work/check.py" "$work/serve.ready" activities || fail "limits.activities not held (above)"
stop "$pid"
finish
