#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/
# (committed; run this again after changing it, and review the diff).
#
#   tests/fuzz/make_corpus.sh [PMRAG]
#
# The seeds are the inputs of the unit tests (tests/unit/test_ingest.c,
# test_otlp.c, test_map_ext.c, test_core.c), written out as files:
# protobuf bodies are encoded by hand below (proto/pmrag/otlp/*.proto), gzip
# by Python's zlib; stored case values are encoded by hand too
# (sessions/batch.c). With PMRAG (a built pmrag binary) the graph seeds are
# re-indexed from tests/fixtures (a one-file repository and the shop
# fixture), model files are mined on the shop fixture's graph from a small
# log written below, and `pmrag config` output is added; without it the
# committed ones are kept. The dictionaries that follow the code (configuration keys,
# shop symbols) are written to tests/fuzz/dict too. Each seed is small: the corpora stay well under
# 300 KB in all.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pmrag="${1:-}"
out="$here/corpus"

# Without PMRAG, the seeds only it can make are kept as they are.
keep=""
if [ -z "$pmrag" ] && [ -d "$out/fuzz_graph" ]; then
    keep="$(mktemp -d)"
    cp -r "$out/fuzz_graph" "$keep/"
    cp -r "$out/fuzz_model" "$keep/" 2>/dev/null || true
    cp "$out/fuzz_config/pmrag-config.yaml" "$keep/" 2>/dev/null || true
fi
# Seeds named regress-* are inputs that once broke a target, added by
# hand: kept whatever else is rewritten.
regress="$(mktemp -d)"
if [ -d "$out" ]; then
    (cd "$out" && find . -type f -name 'regress-*' -exec cp --parents {} "$regress/" \;)
fi
rm -rf "$out"
mkdir -p "$out"

python3 - "$out" "$root" <<'EOF'
import gzip, os, struct, sys, zlib

out, root = sys.argv[1], sys.argv[2]

def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# ---- protobuf, by hand (proto/pmrag/otlp/*.proto) ----
def varint(x):
    b = bytearray()
    x &= (1 << 64) - 1
    while True:
        c = x & 0x7F
        x >>= 7
        if x:
            b.append(c | 0x80)
        else:
            b.append(c)
            return bytes(b)

def tag(num, wt):
    return varint(num << 3 | wt)

def f_varint(num, x):
    return tag(num, 0) + varint(x)

def f_fixed64(num, x):
    return tag(num, 1) + struct.pack("<Q", x)

def f_fixed32(num, x):
    return tag(num, 5) + struct.pack("<I", x)

def f_double(num, x):
    return tag(num, 1) + struct.pack("<d", x)

def f_len(num, data):
    if isinstance(data, str):
        data = data.encode()
    return tag(num, 2) + varint(len(data)) + data

def av_str(s): return f_len(1, s)
def av_bool(b): return f_varint(2, 1 if b else 0)
def av_int(i): return f_varint(3, i)
def av_double(d): return f_double(4, d)
def av_array(*vals): return f_len(5, b"".join(f_len(1, v) for v in vals))
def av_kvlist(*kvs): return f_len(6, b"".join(f_len(1, kv) for kv in kvs))
def av_bytes(b): return f_len(7, b)
def kv(k, v): return f_len(1, k) + f_len(2, v)

def resource(*kvs):
    return b"".join(f_len(1, x) for x in kvs)

def scope(name, version=""):
    return f_len(1, name) + (f_len(2, version) if version else b"")

TID = bytes.fromhex("5b8efff798038103d269b633813fc60c")
SID = bytes.fromhex("eee19b7ec3c1b174")
T0 = 1795246607499635123

def span(name, tid=TID, sid=SID, parent=b"", start=T0, attrs=(), extra=b""):
    b = f_len(1, tid) + f_len(2, sid)
    if parent:
        b += f_len(4, parent)
    b += f_len(5, name) + f_varint(6, 2) + f_fixed64(7, start) + f_fixed64(8, start + 1000)
    b += b"".join(f_len(9, a) for a in attrs)
    return b + extra

def trace_req(*resource_spans):
    return b"".join(f_len(1, rs) for rs in resource_spans)

def res_spans(res, scope_msg, spans):
    return f_len(1, res) + f_len(2, f_len(1, scope_msg) + b"".join(f_len(2, s) for s in spans))

all_values = [
    kv("enduser.id", av_str("span-user")),
    kv("code.function.name", av_str("shop.checkout")),
    kv("n", av_int(42)),
    kv("neg", av_int(-7)),
    kv("d", av_double(1.5)),
    kv("nan", av_double(float("nan"))),
    kv("b", av_bool(True)),
    kv("arr", av_array(av_str("x"), av_int(3))),
    kv("kv", av_kvlist(kv("k", av_bool(False)))),
    kv("raw", av_bytes(b"\x00\xffbin")),
    kv("empty", b""),
]
events_links = (f_len(11, f_fixed64(1, T0) + f_len(2, "exception")) +
                f_len(13, f_len(1, TID) + f_len(2, SID)) + f_len(15, f_len(2, "ok") + f_varint(3, 1)) +
                f_fixed32(16, 1) + f_varint(10, 2) + f_len(99, b"unknown field"))
traces = trace_req(
    res_spans(resource(kv("service.name", av_str("shop")), kv("case.id", av_str("res-case"))),
              scope("shop.lib", "1"),
              [span("checkout", attrs=all_values, extra=events_links),
               span("pay", sid=bytes.fromhex("aaaaaaaaaaaaaaaa"), parent=SID, start=T0 + 100)]),
    res_spans(resource(), scope("old"),
              [span("legacy", tid=bytes(16), sid=bytes(8), start=0),
               span("caf\u00e9 \u20ac", tid=bytes.fromhex("abcdef"), attrs=[kv("session.id", av_str("s-1"))])]))
put("fuzz_otlp_pb_traces", "shop-traces.pb", traces)
put("fuzz_otlp_pb_traces", "one-span.pb",
    trace_req(res_spans(resource(), scope("s"), [span("a", attrs=[kv("case.id", av_str("c"))])])))
put("fuzz_otlp_pb_traces", "empty.pb", b"")
put("fuzz_otlp_pb_traces", "nested-any.pb",
    trace_req(res_spans(resource(), scope("s"),
                        [span("deep", attrs=[kv("a", av_array(av_array(av_kvlist(kv("x", av_array(av_int(1)))))))])])))

def log_rec(body=None, t=T0, attrs=(), sev=9, sevtext="INFO", tid=b"", sid=b"", observed=0, event=""):
    b = f_fixed64(1, t) + f_varint(2, sev) + f_len(3, sevtext)
    if body is not None:
        b += f_len(5, body)
    b += b"".join(f_len(6, a) for a in attrs) + f_fixed32(8, 1)
    if tid:
        b += f_len(9, tid)
    if sid:
        b += f_len(10, sid)
    if observed:
        b += f_fixed64(11, observed)
    if event:
        b += f_len(12, event)
    return b

def logs_req(*resource_logs):
    return b"".join(f_len(1, rl) for rl in resource_logs)

def res_logs(res, scope_msg, recs):
    return f_len(1, res) + f_len(2, f_len(1, scope_msg) + b"".join(f_len(2, r) for r in recs))

logs = logs_req(
    res_logs(resource(kv("session.id", av_str("sess-9"))), scope("app"),
             [log_rec(av_str("order placed"), t=0, observed=T0,
                      attrs=[kv("code.filepath", av_str("shop/cart.py")), kv("code.lineno", av_int(17))]),
              log_rec(av_kvlist(kv("event", av_str("x"))), tid=TID, sid=SID,
                      attrs=[kv("case.id", av_str("own"))]),
              log_rec(None, t=0, sev=0, sevtext="", event="browser.click"),
              log_rec(av_array(av_str("a"), av_int(1)), sev=17, sevtext="ERROR", tid=TID)]))
put("fuzz_otlp_pb_logs", "shop-logs.pb", logs)
put("fuzz_otlp_pb_logs", "one-log.pb",
    logs_req(res_logs(resource(), scope("s"), [log_rec(av_str("hi"), attrs=[kv("case.id", av_str("c"))])])))
put("fuzz_otlp_pb_logs", "empty.pb", b"")
# A body of the other kind: each decoder must tell it apart.
put("fuzz_otlp_pb_logs", "traces-as-logs.pb", traces)
put("fuzz_otlp_pb_traces", "logs-as-traces.pb", logs)

# ---- OTLP JSON (tests/unit/test_ingest.c) ----
otlp_traces = (
    '{"resourceSpans":[{"resource":{"attributes":['
    '{"key":"service.name","value":{"stringValue":"shop"}},'
    '{"key":"case.id","value":{"stringValue":"res-case"}}]},'
    '"scopeSpans":[{"scope":{"name":"shop.lib","version":"1"},"spans":['
    '{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",'
    '"parentSpanId":"","name":"checkout","kind":2,'
    '"startTimeUnixNano":"1795246607499635123","endTimeUnixNano":"1795246608000000000",'
    '"attributes":[{"key":"enduser.id","value":{"stringValue":"span-user"}},'
    '{"key":"code.function.name","value":{"stringValue":"shop.checkout"}},'
    '{"key":"n","value":{"intValue":"42"}},'
    '{"key":"m","value":{"intValue":7}},'
    '{"key":"d","value":{"doubleValue":1.5}},'
    '{"key":"b","value":{"boolValue":true}},'
    '{"key":"bytes","value":{"bytesValue":"AP9iaW4="}},'
    '{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"x"},'
    '{"intValue":"3"}]}}},'
    '{"key":"kv","value":{"kvlistValue":{"values":[{"key":"k",'
    '"value":{"boolValue":false}}]}}},'
    '{"key":"empty","value":{}}],"status":{}},'
    '{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"aaaa",'
    '"parentSpanId":"eee19b7ec3c1b174","name":"pay","startTimeUnixNano":'
    '1795246607600000000}'
    ']}]},'
    '{"resource":{"attributes":[]},"instrumentationLibrarySpans":[{'
    '"instrumentationLibrary":{"name":"old"},"spans":[{"traceId":"abcdef",'
    '"spanId":"01","name":"legacy"}]}]}]}\n')
otlp_logs = (
    '{"resourceLogs":[{"resource":{"attributes":[{"key":"session.id",'
    '"value":{"stringValue":"sess-9"}}]},"scopeLogs":[{"scope":{"name":"app"},'
    '"logRecords":[{"timeUnixNano":"0","observedTimeUnixNano":"1795246607000000000",'
    '"severityNumber":9,"severityText":"INFO","body":{"stringValue":"order placed"},'
    '"attributes":[{"key":"code.filepath","value":{"stringValue":"shop/cart.py"}},'
    '{"key":"code.lineno","value":{"intValue":"17"}}],'
    '"traceId":"","spanId":""},'
    '{"timeUnixNano":"1795246607500000000","body":{"kvlistValue":{"values":['
    '{"key":"event","value":{"stringValue":"x"}}]}},"traceId":"tt",'
    '"attributes":[{"key":"case.id","value":{"stringValue":"own"}}]},'
    '{"eventName":"browser.click"}]}]}]}\n')
put("fuzz_otlp_json", "traces.json", otlp_traces)
put("fuzz_otlp_json", "logs.json", otlp_logs)
put("fuzz_otlp_json", "empty.json", "{}")
put("fuzz_otlp_json", "bad-time.json",
    '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00000000000000000000000000000000",'
    '"name":"x","startTimeUnixNano":"x"},{"name":"y","attributes":[{"key":"case.id",'
    '"value":{"stringValue":"c"}}],"startTimeUnixNano":"-1"}]}]}]}')

# ---- one-event JSON (tests/unit/test_otlp.c, test_ingest.c) ----
put("fuzz_event_json", "native.json",
    '{"case_id": "c1", "activity": "pay", "timestamp": "2026-11-21T07:36:47.499+01:00", '
    '"ok": true, "n": 1.5, "big": -12345678901, "obj": {"x": [1, "y", null], "z": {}}, '
    '"nul": null, "s": "caf\\u00e9"}')
put("fuzz_event_json", "pm4py.json",
    '{"case:concept:name": "c", "concept:name": "ship", "time:timestamp": 1795246607.25, '
    '"case_id": null, "activity": "also"}')
put("fuzz_event_json", "epoch.json", '{"case_id":"c","activity":"","timestamp":1795246607123}')
put("fuzz_event_json", "missing.json", '{"activity":"a"}')

# ---- event files (tests/unit/test_ingest.c) ----
csv_good = ("\ufeff"
            "case_id,activity,timestamp,note\r\n"
            "c1,start,2026-11-21T07:36:47Z,plain\r\n"
            "c1,\"say \"\"hi\"\", then go\",2026-11-21T07:36:48.5+00:00,\"line one\r\nline two\"\r\n"
            "\r\n"
            "\"c2\",end,,\"\"\r\n"
            "c2,\"\"\"quoted\"\"\",1795246607,last")
csv_pm4py = ("case:concept:name,concept:name,time:timestamp,org:resource\n"
             "c,a,2026-11-21 07:36:47,r1\nc,b,2026-11-21T07:36:48-08:00,r2\nd,a,,\n")
csv_roles = "c,a,t\nx,y,2026-01-01\nx,\"z\n\",1700000000\n,empty,\nq\n"
jsonl_good = ('{"case_id": 42, "activity": "pay", "timestamp": 1795246607123, "ok": true, '
              '"no": false, "n": 1.5, "big": -12345678901, "obj": {"x": [1, "y", null], '
              '"z": {}}, "nul": null, "s": "caf\\u00e9"}\n'
              '\n'
              '   \r\n'
              '{"concept:name": "ship", "case:concept:name": "c", "time:timestamp": '
              '"2026-11-21T07:36:47+00:00"}\n'
              '{"case_id": "c", "activity": "end", "timestamp": null}')
xes_good = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<log xes.version="1.0" xmlns="http://www.xes-standard.org/">\n'
            '  <extension name="Concept" prefix="concept" uri="http://x/concept.xesext"/>\n'
            '  <global scope="event"><string key="concept:name" value="__INVALID__"/></global>\n'
            '  <classifier name="Activity" keys="concept:name"/>\n'
            '  <string key="concept:name" value="the log"/>\n'
            '  <trace>\n'
            '    <string key="concept:name" value="t1"/>\n'
            '    <string key="org:dept" value="sales &amp; more"/>\n'
            '    <event>\n'
            '      <string key="concept:name" value="register"/>\n'
            '      <date key="time:timestamp" value="2026-11-21T07:36:47.499+01:00"/>\n'
            '      <int key="cost" value="12"/>\n'
            '      <string key="note" value="a"><string key="meta" value="ignored"/></string>\n'
            '      <float key="w" value="0.5"/><boolean key="ok" value="true"/>\n'
            '      <id key="uid" value="6f1c"/><list key="l"><values><int key="x" '
            'value="1"/></values></list>\n'
            '    </event>\n'
            '    <event><string key="concept:name" value="check"/></event>\n'
            '  </trace>\n'
            '  <trace>\n'
            '    <string key="concept:name" value="t2"/>\n'
            '    <event>\n'
            '      <date key="time:timestamp" value="2026-11-21T08:00:00Z"/>\n'
            '      <string key="concept:name" value="register"/>\n'
            '    </event>\n'
            '  </trace>\n'
            '</log>\n')
xes_roles = ('<log><trace><string key="c" value="t"/><event><string key="a" value="x"/>'
             '<date key="t" value="2026-11-21"/></event><event><string key="a" value="y"/>'
             '</event></trace></log>')
gz = lambda s: gzip.compress(s.encode() if isinstance(s, str) else s, mtime=0)
put("fuzz_csv", "good.csv", csv_good)
put("fuzz_csv", "pm4py.csv", csv_pm4py)
put("fuzz_csv", "roles.csv", csv_roles)
put("fuzz_csv", "pm4py.csv.gz", gz(csv_pm4py))
put("fuzz_xes", "good.xes", xes_good)
put("fuzz_xes", "roles.xes", xes_roles)
put("fuzz_xes", "syntax.xes", "<log><trace></event></log>")
put("fuzz_xes", "roles.xes.gz", gz(xes_roles))
put("fuzz_file_auto", "good.jsonl", jsonl_good)
put("fuzz_file_auto", "otel.json", otlp_traces + otlp_logs)
put("fuzz_file_auto", "bom.json", '\ufeff{"case_id":"a","activity":"b"}')
put("fuzz_file_auto", "roles.csv", csv_roles)
put("fuzz_file_auto", "roles.xes", xes_roles)
put("fuzz_file_auto", "otel.json.gz", gz(otlp_logs))

# ---- gzip and zlib bodies ----
put("fuzz_gunzip", "csv.gz", gz(csv_pm4py))
put("fuzz_gunzip", "traces.pb.gz", gz(traces))
put("fuzz_gunzip", "two-members.gz", gz("first\n") + gz("second\n"))
put("fuzz_gunzip", "zlib.z", zlib.compress(b"zlib-wrapped deflate " * 4))
put("fuzz_gunzip", "zeros.gz", gz(bytes(4096)))
put("fuzz_gunzip", "truncated.gz", gz(otlp_logs)[:40])

# ---- OTLP/gRPC calls (tests/unit/test_grpc.c): byte 0 the size limit
# (x16), byte 1 the call (bit 0 gzip, bit 1 logs, bit 5 RetryInfo), then
# the body: 5-byte prefixes (compressed flag, big-endian length) ----
def grpc_frame(msg, flag=0, length=None):
    n = len(msg) if length is None else length
    return bytes([flag]) + n.to_bytes(4, "big") + msg
put("fuzz_grpc", "traces.bin", b"\xff\x00" + grpc_frame(traces))
put("fuzz_grpc", "logs-gzip.bin", b"\xff\x03" + grpc_frame(gz(otlp_logs), flag=1))
put("fuzz_grpc", "gzip-no-encoding.bin", b"\xff\x00" + grpc_frame(gz(traces), flag=1))
put("fuzz_grpc", "over-limit.bin", b"\x01\x28" + grpc_frame(traces, length=100000))
put("fuzz_grpc", "bomb.bin", b"\x02\x01" + grpc_frame(gz(bytes(4096)), flag=1))
put("fuzz_grpc", "two-messages.bin", b"\xff\x00" + grpc_frame(b"") + grpc_frame(b""))
put("fuzz_grpc", "cut-short.bin", b"\xff\x00" + grpc_frame(traces)[:-7])
put("fuzz_grpc", "short-prefix.bin", b"\xff\x0e\x00\x00\x01")
put("fuzz_grpc", "flag-2.bin", b"\xff\x2e" + grpc_frame(b"x", flag=2))
put("fuzz_grpc", "message.bin", b"\x10\x2e" + " 50% of \u00e9t\u00e9\n\tdone ".encode())

# ---- configuration (tests/unit/test_core.c, `pmrag config --help`) ----
put("fuzz_config", "sections.yaml",
    "# pmrag configuration\n"
    "ppr:\n  alpha: 0.2\n  profile: debug\n  max_pushes: 1000\n"
    "  weights:\n    reverse: 0.2\n    calls: 1.5\n"
    "model:\n  order: 3\n  decay: 0.5\n"
    "serve:\n  k: 5\n  stdout: yes\n"
    "kafka:\n  brokers: \"localhost:9092\"\n  encoding: otlp_json\n"
    "otlp:\n  listen: '127.0.0.1:4318'\n")
put("fuzz_config", "flat.yaml", "ppr: {alpha: 0.3, eps: 1e-6, weights: {uses: 0.25}}\nserve: {batch: 100}\n")
put("fuzz_config", "errors.yaml", "ppr:\n  alpha: 2\n  nope: 1\nppr.alpha: 0.1\n")
put("fuzz_config", "anchors.yaml", "ppr: &p\n  alpha: 0.2\nmodel: *p\n")
put("fuzz_config", "empty.yaml", "")

# ---- mapping overrides (tests/unit/test_map_ext.c, on the shop fixture) ----
put("fuzz_overrides", "good.yaml",
    "# pmrag overrides\n"
    "- activity: \"Calling helper: *\"       # glob, whole string\n"
    "  symbols: [OrderService.place]\n"
    "- activity: \"/^retry needed.*$/i\"     # regex, case-insensitive\n"
    "  symbols: [Gateway.charge, shop.payments.gateway.CardGateway._send]\n"
    "  confidence: 0.5\n"
    "- activity: \"Step [0-9]? d?ne\"\n"
    "  symbols:\n"
    "    - Inventory.reserve\n"
    "  confidence: 0.75\n"
    "- activity: \"\\\\/api/*\"               # a glob that starts with '/'\n"
    "  symbols: [log_event]\n"
    "- activity: /api/v1\n"
    "  symbols: [OrderService._notify]\n")
put("fuzz_overrides", "errors.yaml",
    "- activity: \"a\"\n  symbols: [_send]\n- activity: \"/a(b/\"\n  symbols: [nothing]\n"
    "- activity: \"Step [0-9\"\n  symbols: [Gateway.validate]\n  confidence: 2\n")
put("fuzz_overrides", "classes.yaml",
    "- activity: \"[!a-c]*\\\\*x?\"\n  symbols: [ShopError, PaymentError.__init__]\n"
    "- activity: \"/caf\u00e9|\\\\d+/\"\n  symbols: [main]\n")

# ---- dictionaries that follow the code: the configuration keys ----
yaml_syntax = r"""": "
"- "
"\x0a  "
"{"
"}"
"["
"]"
"&a "
"*a"
"!!str "
"? "
"|\x0a"
">\x0a"
"\"\""
"''"
"~"
"null"
"yes"
"no"
"\"\\x01\""
"\"\\u2028\""
"\"\\0\""
"---\x0a"
"...\x0a"
"%YAML 1.1\x0a"
"""
import re
src = open(os.path.join(root, "config", "config.c")).read()
names = sorted({p for k in re.findall(r'^\s*\{"([A-Za-z0-9_.]+)", CORE_CFG_', src, re.M)
                for p in k.split(".")})
with open(os.path.join(out, "..", "dict", "config.dict"), "w") as f:
    f.write("# pmrag configuration keys (config/config.c, by make_corpus.sh), YAML syntax, values.\n")
    f.write(yaml_syntax)
    for n in names:
        f.write('"%s: "\n' % n)
    for v in ["default", "debug", "refactor", "auto", "otlp_proto", "otlp_json", "json", "proto",
              "true", "false", "0.5", "1e-07", "4000000000"]:
        f.write('"%s"\n' % v)
with open(os.path.join(out, "..", "dict", "overrides.dict"), "w") as f:
    f.write("# Mapping overrides (by make_corpus.sh): keys, patterns, shop fixture symbols.\n")
    f.write(yaml_syntax)
    for w in ["activity: ", "symbols: ", "confidence: ", "/i", "(?i)", "\\\\/", "[!a-z]",
              "[^0-9]", "**", "(a|b)*c", "\\\\d+", "OrderService.place", "Gateway.charge",
              "CardGateway._send", "Inventory.reserve", "log_event", "ShopError", "main",
              "shop.orders"]:
        f.write('"%s"\n' % w)

# ---- HTTP requests (tests/unit/test_http.c) ----
def req(method, path, headers=(), body=b""):
    if isinstance(body, str):
        body = body.encode()
    h = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % (method, path)
    for k, v in headers:
        h += "%s: %s\r\n" % (k, v)
    if body and not any(k.lower() == "transfer-encoding" for k, _ in headers):
        h += "Content-Length: %d\r\n" % len(body)
    return h.encode() + b"\r\n" + body

def chunked(body, size=16):
    b = b""
    for i in range(0, len(body), size):
        part = body[i:i + size]
        b += b"%x\r\n" % len(part) + part + b"\r\n"
    return b + b"0\r\n\r\n"

small_pb = trace_req(res_spans(resource(), scope("s"), [span("a", attrs=[kv("case.id", av_str("c"))])]))
PB = ("Content-Type", "application/x-protobuf")
JS = ("Content-Type", "application/json; charset=utf-8")
AUTH = ("Authorization", "Bearer fuzz-token")
put("fuzz_http", "traces-pb.http", req("POST", "/v1/traces", [PB], small_pb))
put("fuzz_http", "logs-json.http", req("POST", "/v1/logs", [JS], otlp_logs))
put("fuzz_http", "traces-gzip.http", req("POST", "/v1/traces", [PB, ("Content-Encoding", "gzip")], gz(small_pb)))
put("fuzz_http", "traces-chunked.http",
    req("POST", "/v1/traces", [JS, ("Transfer-Encoding", "chunked")], chunked(otlp_traces.encode(), 200)))
put("fuzz_http", "batch-fails.http",
    req("POST", "/v1/logs", [JS],
        '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"EAGAIN"},'
        '"attributes":[{"key":"case.id","value":{"stringValue":"c"}}]}]}]}]}'))
put("fuzz_http", "wrong-type.http", req("PUT", "/v1/traces", [("Content-Type", "text/plain")], "x"))
put("fuzz_http", "too-large.http", req("POST", "/v1/traces", [PB, ("Content-Length", "999999")]))
put("fuzz_http", "livez.http", req("GET", "/livez"))
put("fuzz_http", "readyz-head.http", req("HEAD", "/readyz"))
put("fuzz_http", "metrics.http", req("GET", "/metrics?x=1"))
put("fuzz_http", "case.http", req("GET", "/v1/cases/c%20one%2Fx", [AUTH]))
put("fuzz_http", "case-noauth.http", req("GET", "/v1/cases/EIO", [("Authorization", "Bearer wrong")]))
put("fuzz_http", "query.http", req("POST", "/v1/query", [AUTH, JS], '{"events":[{"activity":"a"}],"k":3}'))
put("fuzz_http", "query-bad.http", req("POST", "/v1/query", [AUTH, ("Expect", "100-continue")], '{"limit":'))
put("fuzz_http", "keepalive.http", req("GET", "/livez") + req("GET", "/nope", [AUTH]))

# ---- edge lists of `pmrag ppr --edges` (tests/unit/test_ppr.c) ----
put("fuzz_edges", "good.edges",
    "# src dst type weight\n0 1 calls 2\n\n1 2 3 0.5\n"
    "2 0 imports 1.5   # a comment after an edge\n2 1 inherits 0.5\n5 2 member_of 1\n0 1 calls 1\n")
put("fuzz_edges", "types.edges",
    "0 1 calls 1\r\n1 2 inherits 0.9\r\n2 3 imports 0.7\r\n3 4 uses 0.5\r\n"
    "4 5 accesses 0.4\r\n5 0 member_of 0.2\r\n\t3\t0\t63\t1e-3\r\n0 0 calls 0\r\n")
put("fuzz_edges", "bad-line.edges", "# header\n0 1 calls 1\n1 2 calls 1\n0 1 teleports 1\n")
put("fuzz_edges", "comments.edges", "# nothing but comments\n\n   # and blanks\n")
# Regression: one edge made the net allocate a slot for each of 4G ids.
put("fuzz_edges", "huge-id.edges", "0 1 calls 1\n4294967293 0 calls 1\n")
# Regression: a weight too large for a float was refused without its line.
put("fuzz_edges", "big-weight.edges", "0 1 calls 1\n1 0 calls 1e39\n")

# ---- a model file by hand (ppr/model.c, version 1; fuzz_model: a flag
# byte, 0, then the file; the target sets the graph fields and the CRC) ----
def model_file(activities=(), variants=(), contexts=(), decay=0.5, escape=1.0):
    b = b"PMRAGMOD" + struct.pack("<III", 1, 0x01020304, 0) + struct.pack("<Q", 0)
    b += struct.pack("<IdIdddd", 6, 0.2, 8, 0.3, 0.1, decay, escape)
    b += struct.pack("<7d", 1.0, 0.7, 0.9, 0.5, 0.4, 0.2, 0.3)  # edge types, reverse
    b += struct.pack("<QQ", 0, 0) + struct.pack("<I", len(activities)) + b"".join(activities)
    b += struct.pack("<I", len(variants)) + b"".join(variants)
    b += struct.pack("<I", len(contexts)) + b"".join(contexts)
    return b"\0" + b + struct.pack("<I", zlib.crc32(b))
# Regression: a model of no activities (memcpy from a NULL array).
put("fuzz_model", "no-activities", model_file())
# Regression: parameters out of range were trusted (a decay of 3e184).
put("fuzz_model", "bad-params", model_file(decay=3e184, escape=-1.3e64))

# ---- stored case values (sessions/batch.c, encoding version 1) ----
def case_value(touched, seq, model_version, toks=(), vec=(), closed=False, last_time=None,
               err=0.0, wsum=0.0):
    flags = ((1 if closed else 0) | (2 if last_time is not None else 0) |
             (4 if err else 0) | (8 if wsum else 0))
    b = bytes([1, flags]) + struct.pack("<q", touched)
    if last_time is not None:
        b += struct.pack("<q", last_time)
    b += varint(seq) + varint(model_version) + varint(len(toks))
    for a, v in toks:
        b += varint(a) + varint(v)
    b += varint(len(vec))
    if err:
        b += struct.pack("<d", err)
    if wsum:
        b += struct.pack("<d", wsum)
    prev = 0
    for node, score in vec:
        d = node - prev
        prev = node
        b += varint((d << 1) ^ (d >> 63)) + struct.pack("<f", score)
    return b

put("fuzz_case_value", "new.case", case_value(T0, 1, 1, [(3, 7)]))
put("fuzz_case_value", "empty.case", case_value(0, 0, 0))
put("fuzz_case_value", "full.case",
    case_value(T0, 1 << 40, 4000000000, [(i * 37, i) for i in range(16)],
               [(4000000000 - 15000000 * i if i % 2 else 300 * i, 1.0 / (i + 1))
                for i in range(256)],
               closed=True, last_time=-T0, err=1e-7, wsum=1.9921875))
put("fuzz_case_value", "closed.case",
    case_value(-1, 5, 2, [(1, 1), (0, 0)], [(9, 0.5), (2, 0.25), (4294967295, 0.125)],
               closed=True, last_time=0, wsum=float("inf")))
put("fuzz_case_value", "version2.case", b"\x02" + case_value(1, 1, 1)[1:])
# Version 4: the variants told (symbol, seq) after the rest.
put("fuzz_case_value", "told.case",
    b"\x04" + case_value(T0, 9, 1, [(3, 7), (4, 1)])[1:] + varint(2) + varint(1234) + varint(1)
    + varint(4000000000) + varint(9))
put("fuzz_case_value", "truncated.case", case_value(T0, 3, 1, [(1, 2)], [(5, 0.5)])[:-2])

# ---- the external mapping command's replies (tests/unit/test_map_ext.c),
# for a batch of the shop fixture's activities ----
put("fuzz_llm_reply", "good.json",
    '{"mappings":[{"id":0,"symbols":[{"symbol":"OrderService.place","confidence":0.8}]},'
    '{"id":1,"symbols":["Gateway.charge",{"symbol":"CardGateway._send","confidence":1}]},'
    '{"id":7,"symbols":[{"symbol":"shop.inventory.Inventory.reserve","confidence":0.25},'
    '"log_event"]}]}\n')
put("fuzz_llm_reply", "bad-items.json",
    '{"mappings":[{"id":99,"symbols":[{"symbol":"log_event"}]},'
    '{"id":0,"symbols":[{"symbol":"nosuch","confidence":0.5},{"symbol":"_send","confidence":0.5},'
    '{"symbol":"log_event","confidence":1.5},{"symbol":"log_event","confidence":0},'
    '{"symbol":"main","confidence":"high"},{"confidence":0.5},"",1e-50,null,'
    '{"symbol":"Gateway.charge","confidence":1e-50}]},'
    '{"id":"x","symbols":[]},{"id":1},{"id":-1,"symbols":["main"]},'
    '{"id":3.0,"symbols":["main"]},{"id":9223372036854775807,"symbols":["main"]},[],7]}')
put("fuzz_llm_reply", "not-json.txt", "this is not json\n")
put("fuzz_error_text", "stack.txt",
    "TypeError: bad input\n    at f (/srv/a.js:3:9)\n    at g (/srv/a.js:9:1)")
put("fuzz_error_text", "stack-escaped.txt", "Error: timed out\\n    at Timeout._onTimeout (node:t:1:1)")
put("fuzz_error_text", "props.json",
    '{"stack":"Error: x\\n    at f (a.js:1:1)","message":"export \\"failed\\" \\u00e9"}')
put("fuzz_error_text", "props-cut.json", '{"stack":"Error: root sampler missing\\n    at new S (a.js:4:2)\\n  ')
put("fuzz_error_text", "prose.txt", "Note: the cache is cold")
put("fuzz_llm_reply", "wrong-shape.json", "[1, 2]")
put("fuzz_llm_reply", "no-list.json", '{"mappings":{"id":0},"extra":true}')
with open(os.path.join(out, "..", "dict", "llm_reply.dict"), "w") as f:
    f.write("# Replies of the external mapping command (by make_corpus.sh): keys, JSON, "
            "shop symbols.\n")
    for w in ['"mappings"', '"id"', '"symbols"', '"symbol"', '"confidence"', "{}", "[]", "null",
              "true", "false", "0.5", "1e-50", "1.0000001", "-0", "9223372036854775808",
              "\\u0000", "\\ud800", "OrderService.place", "Gateway.charge", "CardGateway._send",
              "shop.payments.gateway.CardGateway._send", "_send", "Inventory.reserve",
              "log_event", "ShopError", "PaymentError.__init__", "main", "shop.orders"]:
        f.write('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"'))
EOF

# A graph file keeps the absolute path of the root it was indexed from,
# which would put this machine's directories into the seeds: in a graph
# seed the root becomes /src/NAME, NUL-padded to the same length in the
# string table, with the checksum made again (gf_header in
# graph/graph_int.h: CRC-32 at byte 28 of the bytes from 64 on, checked
# against the file before it is rewritten). pmrag must open the result.
# The roots are indexed from a directory of one length on every machine
# (/tmp/pmrag-seeds.XXXXXX, whatever TMPDIR says), so the padding, and the
# seed, come out the same everywhere.
#   graph_seed GRAPH ROOT NAME
graph_seed() {
    python3 - "$@" <<'PY'
import os, struct, sys, zlib
path, root, name = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
data = bytearray(open(path, "rb").read())
(crc,) = struct.unpack_from("<I", data, 28)
if zlib.crc32(data[64:]) != crc:
    sys.exit("make_corpus.sh: %s: no checksum where gf_header had it" % path)
old, new = root.encode(), ("/src/" + name).encode()
at = data.find(b"\0" + old + b"\0")
if at < 0 or len(new) > len(old) or data.count(old) != 1:
    sys.exit("make_corpus.sh: %s: root %s is not once in the string table" % (path, root))
data[at + 1 : at + 1 + len(old)] = new.ljust(len(old), b"\0")
struct.pack_into("<I", data, 28, zlib.crc32(data[64:]))
open(path, "wb").write(data)
PY
    "$pmrag" graph stats "$1" >/dev/null
}

if [ -n "$pmrag" ]; then
    tmp="$(mktemp -d /tmp/pmrag-seeds.XXXXXX)"
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/tiny/pkg" "$out/fuzz_graph"
    cat > "$tmp/tiny/pkg/app.py" <<'PY'
import logging

log = logging.getLogger(__name__)


class Shop:
    def buy(self, item):
        log.info("buying %s", item)
        return helper(item)


def helper(x):
    return x
PY
    # Graph files are named without .graph: .gitignore ignores those.
    cp -r "$root/tests/fixtures/repos/shop" "$tmp/shop"
    for g in tiny shop; do
        "$pmrag" index "$tmp/$g" -o "$out/fuzz_graph/$g" -q
        graph_seed "$out/fuzz_graph/$g" "$tmp/$g" "$g"
    done
    "$pmrag" config > "$out/fuzz_config/pmrag-config.yaml"
    # Model files (fuzz_model: a flag byte, 0, then the file), mined on the
    # shop graph from twelve orders in four flows of the shop's messages:
    # with the defaults, and with order 2, every variant kept, escape 0.5.
    python3 - "$tmp/orders.csv" <<'PY'
import csv, random, sys
r = random.Random(3)
flows = [["placing order %d", "charged %d cents for o%d"],
         ["placing order %d", "no stock for item%d", "item %d is out of stock"],
         ["placing order %d", "payment %d declined: limit"],
         ["placing order %d", "Retry needed, retrying", "charged %d cents for o%d"]]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["case_id", "activity", "timestamp"])
    for c in range(12):
        for k, a in enumerate(flows[c % len(flows)]):
            msg = a % tuple(r.randint(1, 999) for _ in range(a.count("%d")))
            w.writerow(["c%02d" % c, msg, "2024-03-01T%02d:%02d:00Z" % (c, k)])
PY
    mkdir -p "$out/fuzz_model"
    "$pmrag" mine --graph "$out/fuzz_graph/shop" --log "$tmp/orders.csv" -o "$tmp/default.model" -q
    "$pmrag" mine --graph "$out/fuzz_graph/shop" --log "$tmp/orders.csv" -o "$tmp/variants.model" \
        -q --set model.order=2 --set model.variant_ratio=1 --set model.escape=0.5
    for m in default variants; do
        { printf '\0'; cat "$tmp/$m.model"; } > "$out/fuzz_model/$m"
    done
elif [ -n "$keep" ]; then
    cp -r "$keep/fuzz_graph" "$out/"
    cp -r "$keep/fuzz_model" "$out/" 2>/dev/null || true
    cp "$keep/pmrag-config.yaml" "$out/fuzz_config/" 2>/dev/null || true
    rm -rf "$keep"
fi
cp -r "$regress/." "$out/"
rm -rf "$regress"
find "$out" -type f -printf '%s\n' | awk '{ s += $1 } END { print s " bytes of seeds in " NR " files" }'
