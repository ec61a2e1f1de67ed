#!/usr/bin/env bash
# Slow clients cannot take out ingestion or the health checks (slowloris):
#  - 300 connections to each listener that send their headers a few bytes
#    at a time, all from 127.0.0.1 like the well-behaved client; then a
#    normal OTLP/HTTP export and GET /livez are each answered 200 within
#    1 s (stalled connections are closed to make room for them);
#  - otlp.header_timeout closes a connection that trickles its headers
#    however often it sends, and api.max_connections bounds how many
#    stalled connections stay open, the probes still answered;
#  - the keys refuse values out of range, naming the key.
#
#   slow_clients.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: slow_clients.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
work_init

shop_graph
# start --set ...: a fresh state, waits for the ready file.
start() {
  work_clean state serve.err
  shop_serve "$@"
}
cat >"$work/slow.py" <<'PY'
import http.client, json, socket, sys, threading, time

ready = json.load(open(sys.argv[1]))
phase = sys.argv[2]
otlp, api = ready["otlp_http"], ready["api"]
bad = []

def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        bad.append(what)

def hostport(addr):
    h, p = addr.rsplit(":", 1)
    return h, int(p)

class Slow:
    """Connections that send a request line and then a header byte now
    and then, never finishing their headers."""
    def __init__(self, addr, n, path):
        self.socks = []
        for _ in range(n):
            s = socket.create_connection(hostport(addr), timeout=5)
            s.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\n".encode())
            self.socks.append(s)
        self.stop = False
        self.t = threading.Thread(target=self.trickle, daemon=True)
        self.t.start()

    def trickle(self):
        while not self.stop:
            for s in self.socks:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            time.sleep(0.3)

    def open_count(self):
        """How many the server has not closed (a closed one reads EOF or
        a reset without blocking)."""
        n = 0
        for s in self.socks:
            s.setblocking(False)
            try:
                n += s.recv(1) != b""
            except BlockingIOError:
                n += 1
            except OSError:
                pass
        return n

    def close(self):
        self.stop = True
        self.t.join()
        for s in self.socks:
            s.close()

def timed(addr, method, path, body=None, headers=None):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection(*hostport(addr), timeout=5)
        c.request(method, path, body, headers or {})
        r = c.getresponse()
        r.read()
        status = r.status
        c.close()
    except OSError as e:
        status = f"{type(e).__name__}"
    return status, time.monotonic() - t0

span = {"traceId": "%032x" % 1, "spanId": "%016x" % 1, "name": "placing order 1 now",
        "startTimeUnixNano": "1700000000000000000",
        "attributes": [{"key": "case.id", "value": {"stringValue": "slow-1"}}]}
export = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()

if phase == "defaults":
    so = Slow(otlp, 300, "/v1/traces")
    sa = Slow(api, 300, "/v1/query")
    time.sleep(1)  # the server has seen them all
    st, dt = timed(otlp, "POST", "/v1/traces", export, {"Content-Type": "application/json"})
    check(st == 200 and dt < 1, f"OTLP export beside 300 slow connections: {st} in {dt:.2f} s")
    st, dt = timed(api, "GET", "/livez")
    check(st == 200 and dt < 1, f"/livez beside 300 slow connections: {st} in {dt:.2f} s")
    st, dt = timed(api, "GET", "/readyz")
    check(st == 200 and dt < 1, f"/readyz beside 300 slow connections: {st} in {dt:.2f} s")
    n = so.open_count()
    check(n <= 128, f"slow OTLP connections still open: {n} (max_connections_per_address 128)")
    so.close()
    sa.close()
else:
    # otlp.header_timeout=1: a trickling connection is closed after about
    # 1 s however often it sends.
    so = Slow(otlp, 5, "/v1/traces")
    time.sleep(0.5)
    n0 = so.open_count()
    time.sleep(2)
    n = so.open_count()
    check(n0 == 5 and n == 0, f"otlp.header_timeout=1: open after 0.5 s {n0}, after 2.5 s {n}")
    so.close()
    # api.max_connections=10: 30 stalled connections, at most 10 stay.
    sa = Slow(api, 30, "/v1/query")
    time.sleep(0.5)
    n = sa.open_count()
    check(n <= 10, f"api.max_connections=10: {n} of 30 slow connections open")
    st, dt = timed(api, "GET", "/livez")
    check(st == 200 and dt < 1, f"/livez with api.max_connections=10: {st} in {dt:.2f} s")
    sa.close()
sys.exit(1 if bad else 0)
PY

start
if python3 "$work/slow.py" "$work/serve.ready" defaults; then
  pass "export and probes answered within 1 s beside 600 slow connections"
else
  bad "slow connections held up the export or the probes (above)"
fi
# 300 stalled from one address, 128 at a time: the others were closed,
# and counted.
slow_metric='pmrag_http_slow_connections_closed_total{listener="%s",reason="%s"}'
# shellcheck disable=SC2059 # the format is slow_metric
n=$(metric "$(ready_field serve api)" "$(printf "$slow_metric" otlp_http evicted)")
n=${n:-0}
if ((${n%.*} >= 172)); then
  pass "stalled OTLP connections closed to make room: $n counted"
else
  bad "stalled OTLP connections closed to make room: $n counted, want 172 or more"
fi
stop "$pid"

start --set otlp.header_timeout=1 --set api.max_connections=10
if python3 "$work/slow.py" "$work/serve.ready" keys; then
  pass "otlp.header_timeout and api.max_connections hold"
else
  bad "otlp.header_timeout or api.max_connections not held (above)"
fi
# shellcheck disable=SC2059
n=$(metric "$(ready_field serve api)" "$(printf "$slow_metric" otlp_http timeout)")
n=${n:-0}
if ((${n%.*} == 5)); then
  pass "trickling OTLP connections closed by otlp.header_timeout: $n counted"
else
  bad "trickling OTLP connections closed by otlp.header_timeout: $n counted, want 5"
fi
stop "$pid"

# expect runs a command that fails: not under -e.
set +e
expect "otlp.max_connections=0 refused" 2 "otlp.max_connections" -- \
  "$pmrag" serve --graph "$work/shop.graph" --set state.dir="$work/state2" \
  --set otlp.max_connections=0
expect "api.header_timeout=0 refused" 2 "api.header_timeout" -- \
  "$pmrag" serve --graph "$work/shop.graph" --set state.dir="$work/state2" \
  --set api.header_timeout=0
finish
