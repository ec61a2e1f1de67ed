#!/usr/bin/env bash
# The demo application traced by the real OpenTelemetry Python SDK
# (deploy/demo/otel_app.py; the SDK, its OTLP/HTTP exporter and their
# dependencies pinned with hashes in .deps/otel-venv by deploy/deps.sh
# --otel) exports its spans and log records, protobuf over OTLP/HTTP, to a
# `pmrag serve` while it runs. Every record the SDK got a 200 for (and every
# event of its spans) must give a prediction with its case (the case.id
# attribute), the seq of its place in the case's event time (the spans
# are sent when they end: a parent after its children; the daemon holds
# them back for serve.reorder_ms and applies them in order) and its time
# (the span's start, the span event's or log record's timestamp; ties in
# the order sent), the one with the highest revision counting when an
# event came late; the daemon must have scored every event but each
# case's first against the code.* attributes the SDK's logging handler
# writes (code.file.path, code.line.number), and mapped them all.
#
# With OTEL_PROTOCOL=grpc (ctest grpc.otel_sdk) the SDK's OTLP/gRPC exporters
# (grpcio, gzip-compressed messages) send the same records to the daemon's
# OTLP/gRPC receiver instead, over TLS (a certificate made here, trusted by
# the exporter) with a bearer token, and the daemon must count them as
# events of source otlp_grpc and the calls as OK; then grpcio reads the
# receiver's refusals (tests/integration/grpc_probe.py).
#
#   otel_sdk.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: otel_sdk.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need curl
work_init
work_clean state state-refuser pred.jsonl manifest.jsonl sdk.err deps.log

"$src/deploy/deps.sh" --otel >"$work/deps.log" 2>&1 ||
  fail "deploy/deps.sh --otel: $(tail -3 "$work/deps.log")"
py=${PMRAG_DEPS_DIR:-$src/.deps}/otel-venv/bin/python
proto=${OTEL_PROTOCOL:-http}
case $proto in
  http) endpoint_key=otlp_http sdk_args=() ;;
  grpc)
    endpoint_key=otlp_grpc
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$work/tls.key" -out "$work/tls.crt" -days 2 -subj /CN=localhost \
      -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null || fail "openssl req"
    echo "s3cret-$RANDOM$RANDOM" >"$work/token"
    chmod 600 "$work/tls.key" "$work/token"
    sdk_args=(--protocol grpc --compression gzip --ca "$work/tls.crt" --token-file "$work/token")
    ;;
  *) fail "OTEL_PROTOCOL=$proto: http or grpc" ;;
esac
# The gRPC receiver speaks TLS and wants the token (the OTLP/HTTP one,
# sharing the settings, too: unused there).
secure=()
if [[ $proto == grpc ]]; then
  secure=(--set otlp.tls_cert="$work/tls.crt" --set otlp.tls_key="$work/tls.key"
    --set otlp.token_file="$work/token")
fi

t0=$(now)
demo_setup 150 7
demo_model "$work/log.csv"
echo "graph, log and model: $(since "$t0") s"

serve_start serve --graph "$work/app.graph" --model "$work/app.model" \
  --set state.dir="$work/state" --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 \
  --set otlp.grpc_listen=127.0.0.1:0 "${secure[@]}" \
  --set kafka.embedded=false --set serve.stdout=true --set map.code_attrs=true >"$work/pred.jsonl"
serve_wait serve 60
api=$(ready_field serve api)

t0=$(now)
log_watch "$work/sdk.err" otel_app
"$py" "$src/deploy/demo/otel_app.py" --orders "${OTEL_ORDERS:-8}" --seed 99 \
  --endpoint "$(ready_field serve "$endpoint_key")" "${sdk_args[@]}" \
  --manifest "$work/manifest.jsonl" 2>"$work/sdk.err" ||
  fail "otel_app.py exited $?"
want=$(wc -l <"$work/manifest.jsonl")
((want > 100)) || fail "the SDK exported only $want records"
for _ in $(seq 200); do
  (($(wc -l <"$work/pred.jsonl") >= want)) && break
  sleep 0.05
done
held_wait serve
echo "$(tail -1 "$work/sdk.err"); $(wc -l <"$work/pred.jsonl") predictions ($(since "$t0") s)"
curl -fsS -m 5 "http://$api/v1/stats" >"$work/stats.json" || fail "GET /v1/stats"
if [[ $proto == grpc ]]; then
  curl -fsS -m 5 "http://$api/metrics" >"$work/metrics.txt" || fail "GET /metrics"
  # Refusals as grpcio reads them (over TLS): a message that is not
  # protobuf; then, from a daemon that refuses all input
  # (limits.memory_bytes of 1 byte), no token, an unknown method, and
  # overload with its retry delay in both trailers.
  probe=("$py" "$src/tests/integration/grpc_probe.py")
  "${probe[@]}" "$(ready_field serve otlp_grpc)" "$work/tls.crt" "$work/token" bad \
    >"$work/probe.out" 2>&1 || fail "grpc_probe.py: $(tail -3 "$work/probe.out")"
  serve_start refuser --graph "$work/app.graph" --model "$work/app.model" \
    --set state.dir="$work/state-refuser" --set otlp.listen= --set api.listen= \
    --set kafka.embedded=false "${secure[@]}" --set limits.memory_bytes=1
  serve_wait refuser 60
  sleep 0.3 # the memory watcher's first sample
  "${probe[@]}" "$(ready_field refuser otlp_grpc)" "$work/tls.crt" "$work/token" refused \
    >>"$work/probe.out" 2>&1 || fail "grpc_probe.py: $(tail -3 "$work/probe.out")"
  stop "${pid_of[refuser]}"
  sed 's/^/  grpc: /' "$work/probe.out"
  check "grpcio reads the refusals: codes, messages, retry delays" -- \
    python3 - "$work/probe.out" <<'EOF'
import re, sys
got = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if "\t" in l]
want = [("INVALID_ARGUMENT", r"^offset \d+: ", "-"),
        ("UNAUTHENTICATED", r"authorization: Bearer <token>", "-"),
        ("UNIMPLEMENTED", r"^unknown method /opentelemetry\.proto\.collector\.metrics", "-"),
        ("UNAVAILABLE", r"\(memory or state store full\), retry later$", "status=1,alone=1")]
bad = len(got) != len(want)
for g, (code, msg, retry) in zip(got, want):
    if g[0] != code or not re.search(msg, g[1]) or g[2] != retry:
        print("got %s, want %s %r %s" % (g, code, msg, retry))
        bad = True
sys.exit(1 if bad else 0)
EOF
fi
stop "${pid_of[serve]}"
if [[ $proto == grpc ]]; then
  check "every record over OTLP/gRPC, every call OK" -- \
    python3 - "$work/metrics.txt" "$(wc -l <"$work/manifest.jsonl")" <<'EOF'
import sys
m = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2 and not line.startswith("#"):
        m[f[0]] = float(f[1])
want = int(sys.argv[2])
grpc = m.get('pmrag_events_in_total{source="otlp_grpc"}', 0)
http = m.get('pmrag_events_in_total{source="otlp_http"}', 0)
ok = m.get('pmrag_otlp_grpc_requests_total{code="OK"}', 0)
bad = {k: v for k, v in m.items()
       if k.startswith("pmrag_otlp_grpc_requests_total") and 'code="OK"' not in k and v}
print("events over gRPC %d (sent %d), over HTTP %d; calls OK %d, refused: %s"
      % (grpc, want, http, ok, bad or "none"))
sys.exit(1 if grpc != want or http or not ok or bad else 0)
EOF
  tail -1 "$work/check.out"
fi

check "a prediction per exported record, with its case, seq in event time and time" -- \
  python3 - "$work/manifest.jsonl" "$work/pred.jsonl" "$work/stats.json" <<'EOF'
import json, sys
sent, preds = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    sent.setdefault(r["case"], []).append((r["signal"], r["activity"], r["time_unix_nano"]))
errors = []
revised = 0
for line in open(sys.argv[2]):
    p = json.loads(line)
    key = (p["case_id"], p["seq"])
    if key in preds and preds[key]["revision"] >= p["revision"]:
        errors.append("%s seq %d: revision %d after %d" % (key + (p["revision"],
                                                                  preds[key]["revision"])))
    revised += key in preds
    preds[key] = p
n = sum(len(v) for v in sent.values())
signals = {r[0] for v in sent.values() for r in v}
if signals != {"span", "event", "log"}:
    errors.append("signals sent: %s" % sorted(signals))
for case, recs in sent.items():
    # Event time: by time, ties in the order sent.
    recs = [r for _, r in sorted(enumerate(recs), key=lambda x: (x[1][2], x[0]))]
    for seq, (signal, activity, t) in enumerate(recs, 1):
        p = preds.pop((case, seq), None)
        if p is None:
            errors.append("no prediction for %s seq %d (%s %r)" % (case, seq, signal, activity))
        elif p["time_unix_nano"] != t:
            errors.append("%s seq %d: prediction for %r at %d, the %s sent was %r at %d"
                          % (case, seq, p["activity"], p["time_unix_nano"], signal, activity, t))
        elif not p["ranked"]:
            errors.append("%s seq %d: nothing ranked" % (case, seq))
for (case, seq) in sorted(preds):
    errors.append("a prediction for %s seq %d, which was not sent" % (case, seq))
s = json.load(open(sys.argv[3]))
if s["events"] != n or s["scored"] != n - len(sent):
    errors.append("stats: %d events, %d scored; sent %d records in %d cases"
                  % (s["events"], s["scored"], n, len(sent)))
if s["mapping_coverage"] < 0.99:
    errors.append("mapping coverage %.3f" % s["mapping_coverage"])
for e in errors[:20]:
    print(e)
print("%d records in %d cases, %d errors, %d predictions revised; top-1 %.3f (scored against"
      " code.*)" % (n, len(sent), len(errors), revised, s["hits"]["1"] / max(1, s["scored"])))
sys.exit(1 if errors else 0)
EOF
tail -1 "$work/check.out"
finish
