#!/usr/bin/env bash
# What pmrag serve answers and says when it refuses an OTLP/HTTP request:
#  - the answer is a google.rpc.Status (code, message) in the request's
#    encoding: JSON for JSON, protobuf for protobuf (OTLP/HTTP's rule);
#  - every refusal is counted by reason in
#    pmrag_otlp_requests_refused_total{reason=...} (a 413 after gzip also
#    in pmrag_limit_hits_total{limit="max_body"});
#  - each is logged with its time and the client's address, but 1,000 bad
#    requests in a row give a handful of lines, the next one saying how
#    many were not logged.
#
#   otlp_refusals.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: otlp_refusals.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
work_init
work_clean state '*.err' '*.ready'

shop_graph
shop_serve --set otlp.max_body=65536

python3 - "$work/serve.ready" "$work/serve.err" <<'PY' || fail "refusals not answered, counted or logged as they should be (above)"
import gzip, http.client, json, re, sys, time
ready = json.load(open(sys.argv[1]))
errlog = sys.argv[2]
host, port = ready["otlp_http"].rsplit(":", 1)
api = ready["api"]
conn = http.client.HTTPConnection(host, int(port), timeout=30)
bad = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad.append(what)
def post(path, body, ctype, extra=None):
    h = {"Content-Type": ctype}
    h.update(extra or {})
    conn.request("POST", path, body, h)
    r = conn.getresponse()
    return r.status, r.getheader("Content-Type"), r.read()
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
def status_pb(b):
    """google.rpc.Status: field 1 code (varint), field 2 message (bytes)."""
    out, i = {}, 0
    while i < len(b):
        key, i = varint(b, i)
        if key == 0x08:
            out["code"], i = varint(b, i)
        elif key == 0x12:
            n, i = varint(b, i)
            out["message"] = b[i:i + n].decode(); i += n
        else:
            raise ValueError("unexpected field %d" % key)
    return out
def refused(reason):
    with __import__("urllib.request").request.urlopen(f"http://{api}/metrics", timeout=10) as r:
        text = r.read().decode()
    for name in ('pmrag_otlp_requests_refused_total{reason="%s"} ' % reason, reason + " "):
        for line in text.splitlines():
            if line.startswith(name):
                return int(float(line[len(name):]))
    return 0

# The answers: a Status in the request's encoding.
st, ct, body = post("/v1/traces", b"{not json", "application/json")
doc = json.loads(body) if ct == "application/json" else {}
check(st == 400 and doc.get("code") == 3 and "invalid JSON" in doc.get("message", ""),
      f"bad JSON: 400 with a JSON Status: {st} {ct} {body[:120]!r}")
st, ct, body = post("/v1/traces", b"\x0a\x05\x0a\x03\xff\xff", "application/x-protobuf")
try:
    doc = status_pb(body) if ct == "application/x-protobuf" else {}
except Exception as e:
    doc = {"error": str(e)}
check(st == 400 and doc.get("code") == 3 and doc.get("message"),
      f"bad protobuf: 400 with a protobuf Status: {st} {ct} {doc}")
st, ct, body = post("/v1/traces", b"x", "text/plain")
doc = json.loads(body) if ct == "application/json" else {}
check(st == 415 and doc.get("code") == 3 and "text/plain" in doc.get("message", ""),
      f"unknown type: 415 with a JSON Status: {st} {ct} {body[:120]!r}")
big = gzip.compress(b"{" + b" " * 200000 + b"}")
st, ct, body = post("/v1/traces", big, "application/json", {"Content-Encoding": "gzip"})
check(st == 413 and json.loads(body).get("code") == 8, f"over max_body once inflated: 413: {st} {body[:100]!r}")

# 1,000 bad requests: all counted, few lines.
t0 = time.time()
for _ in range(1000):
    post("/v1/logs", b"[1,", "application/json")
took = time.time() - t0
n = refused("bad_request")
check(n == 1002, f"pmrag_otlp_requests_refused_total{{reason=\"bad_request\"}} {n} (want 1002)")
check(refused("unsupported") == 1, "one 415 counted")
check(refused("too_large") == 1, "one 413 counted")
check(refused('pmrag_limit_hits_total{limit="max_body"}') == 1, "the 413 is a max_body limit hit")
time.sleep(1.2)
post("/v1/logs", b"[2,", "application/json")
lines = [l for l in open(errlog) if "otlp-http:" in l]
check(0 < len(lines) <= 5 + took + 3, f"{len(lines)} log lines for 1,003 bad requests in {took:.1f} s")
stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z pmrag: note: otlp-http: POST /v1/\w+ from 127\.0\.0\.1:\d+: \d{3}: ")
check(all(stamp.match(l) for l in lines), f"each line has its time and client: {lines[0].strip()!r}")
check(any(re.search(r"\(\d+ more refusals not logged\)", l) for l in lines),
      f"a later line says how many were not logged: {lines[-1].strip()!r}")
sys.exit(1 if bad else 0)
PY
stop "$pid"
finish
