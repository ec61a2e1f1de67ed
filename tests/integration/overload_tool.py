#!/usr/bin/env python3
"""Helpers of tests/integration/overload.sh.

  sample PID OUT STOP            VmRSS and RssAnon of PID every 200 ms until
                                 the file STOP exists (or PID is gone); OUT:
                                 {"samples", "vm_rss_max", "rss_anon_max"}
                                 in bytes
  probe OTLP OUT SECONDS         while the load runs: POSTs of 1000 spans (OTLP
                                 JSON) on a keep-alive connection until three
                                 429/503 answers came, or SECONDS passed; OUT:
                                 the statuses, each throttled answer's
                                 Retry-After as sent, its raw header block,
                                 and the events accepted (200s count)
  recover PID OTLP API OUT       once process PID (the load generator) has
                                 ended, however it ended: how long until a
                                 one-span request gets 200, /readyz is 200
                                 and pmrag_ingest_queue_events is 0
  summary WORK                   the figures (WORK/*.json, WORK/*.prom) and
                                 the checks; prints the summary, one FAIL
                                 line per check missed, exits 1 on any

The HTTP here is a raw socket, so that the headers are checked as the
daemon sent them, not as a client library understood them.
"""
import json
import math
import os
import re
import socket
import sys
import time


# ------------------------------------------------------------------
# Memory


def sample(pid, out, stop):
    n, rss_max, anon_max = 0, 0, 0
    status = f"/proc/{pid}/status"
    while not os.path.exists(stop):
        try:
            text = open(status).read()
        except OSError:
            break  # the daemon is gone; the shell notices and fails
        m = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
        a = re.search(r"^RssAnon:\s+(\d+) kB", text, re.M)
        if m:
            n += 1
            rss_max = max(rss_max, int(m.group(1)) * 1024)
        if a:
            anon_max = max(anon_max, int(a.group(1)) * 1024)
        time.sleep(0.2)
    json.dump({"samples": n, "vm_rss_max": rss_max, "rss_anon_max": anon_max}, open(out, "w"))


# ------------------------------------------------------------------
# HTTP over a raw socket


class Conn:
    def __init__(self, hostport, timeout=10.0):
        host, port = hostport.rsplit(":", 1)
        self.host = hostport
        self.sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self):
        self.sock.close()

    def request(self, method, path, body=b"", ctype="application/json"):
        """(status, {lower-case name: value}, raw header block, body)."""
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if method == "POST":
            head += f"Content-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + body)
        while b"\r\n\r\n" not in self.buf:
            self._more()
        raw, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        hdr = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            hdr[k.strip().lower()] = v.strip()
        if "chunked" in hdr.get("transfer-encoding", "").lower():
            raise RuntimeError("chunked response: the daemon sends Content-Length")
        n = int(hdr.get("content-length", "0"))
        while len(self.buf) < n:
            self._more()
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, hdr, raw.decode("latin-1"), body

    def _more(self):
        d = self.sock.recv(65536)
        if not d:
            raise ConnectionError("connection closed by the daemon")
        self.buf += d


def spans_body(prefix, n, seq):
    """OTLP JSON traces: n spans of n cases (PREFIX_SEQ_i), one event each."""
    t = time.time_ns()
    spans = []
    for i in range(n):
        spans.append({
            "traceId": f"{seq:016x}{i:016x}",
            "spanId": f"{i + 1:016x}",
            "name": "POST /orders",
            "kind": 2,
            "startTimeUnixNano": str(t + i),
            "endTimeUnixNano": str(t + i + 1000),
            "attributes": [{"key": "case.id", "value": {"stringValue": f"{prefix}_{seq}_{i}"}}],
        })
    return json.dumps({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name",
                                     "value": {"stringValue": "orderflow"}}]},
        "scopeSpans": [{"scope": {"name": "overload"}, "spans": spans}],
    }]}).encode()


def accepted_of(n, body):
    """Events a 200 accepted: n less partialSuccess.rejectedSpans."""
    try:
        d = json.loads(body or b"{}")
    except ValueError:
        return n
    return n - int(d.get("partialSuccess", {}).get("rejectedSpans", 0) or 0)


def probe(otlp, out, seconds):
    res = {"requests": 0, "statuses": {}, "throttled": [], "accepted_events": 0, "error": None}
    end = time.monotonic() + float(seconds)
    conn, seq = None, 0
    try:
        while time.monotonic() < end and len(res["throttled"]) < 3:
            if conn is None:
                conn = Conn(otlp)
            seq += 1
            n = 1000
            status, hdr, raw, body = conn.request("POST", "/v1/traces", spans_body("probe", n, seq))
            res["requests"] += 1
            res["statuses"][str(status)] = res["statuses"].get(str(status), 0) + 1
            if status == 200:
                res["accepted_events"] += accepted_of(n, body)
            elif status in (429, 503):
                res["throttled"].append({"status": status, "retry_after": hdr.get("retry-after"),
                                         "header": raw})
            else:
                res["error"] = f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}"
                break
            if hdr.get("connection", "").lower() == "close":
                conn.close()
                conn = None
    except (OSError, RuntimeError, ValueError) as e:
        res["error"] = f"{type(e).__name__}: {e}"
    json.dump(res, open(out, "w"))


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def gone(pid):
    """Whether pid has exited (a zombie until its parent waits counts)."""
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def recover(loader, otlp, api, out):
    pid = int(loader)
    while not gone(pid):
        time.sleep(0.005)
    t_end = time.monotonic()
    since = lambda: round(time.monotonic() - t_end, 4)
    res = {"ok_s": None, "readyz_s": None, "queue_zero_s": None, "queue_first": None,
           "accepted_events": 0, "attempts": 0, "error": None}
    deadline = t_end + 10
    seq = 0
    try:
        while res["ok_s"] is None and time.monotonic() < deadline:
            seq += 1
            res["attempts"] += 1
            c = Conn(otlp)
            body = spans_body(f"recover{pid}", 1, seq)
            status, _, _, body = c.request("POST", "/v1/traces", body)
            c.close()
            if status == 200:
                res["ok_s"] = since()
                res["accepted_events"] += accepted_of(1, body)
            elif status in (429, 503):
                time.sleep(0.05)
            else:
                res["error"] = f"HTTP {status} to a normal request after the load"
                break
        c = Conn(api)
        while res["readyz_s"] is None and time.monotonic() < deadline:
            if c.request("GET", "/readyz")[0] == 200:
                res["readyz_s"] = since()
            else:
                time.sleep(0.05)
        while res["queue_zero_s"] is None and time.monotonic() < deadline:
            q = metric(c.request("GET", "/metrics")[3].decode(), "pmrag_ingest_queue_events")
            if res["queue_first"] is None:
                res["queue_first"] = q
            if q == 0:
                res["queue_zero_s"] = since()
            else:
                time.sleep(0.05)
        c.close()
    except (OSError, RuntimeError, ValueError) as e:
        res["error"] = f"{type(e).__name__}: {e}"
    json.dump(res, open(out, "w"))


# ------------------------------------------------------------------
# Summary


def prom(path):
    out = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        k, v = line.rsplit(" ", 1)
        out[k] = float(v)
    return out


def hist(a, b, name):
    """Buckets (upper bound, count) of b - a, cumulative."""
    rx = re.compile(re.escape(name) + r'_bucket\{le="([^"]+)"\}$')
    out = []
    for k, v in b.items():
        m = rx.match(k)
        if m:
            le = math.inf if m.group(1) == "+Inf" else float(m.group(1))
            out.append((le, v - a.get(k, 0)))
    return sorted(out)


def quantile(buckets, q):
    """Prometheus' histogram_quantile: linear within the bucket."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank, lo, prev = q * buckets[-1][1], 0.0, 0.0
    for le, c in buckets:
        if c >= rank:
            if math.isinf(le):
                return math.inf  # beyond the last finite bound
            return lo + (le - lo) * ((rank - prev) / (c - prev) if c > prev else 1)
        lo, prev = le, c
    return None


def summary(work):
    J = lambda n: json.load(open(f"{work}/{n}.json"))
    P = lambda n: prom(f"{work}/{n}.prom")
    cfg = J("config")
    warm, short, long_ = J("warm"), J("short"), J("long")
    probe_r, rec, rec_k = J("probe"), J("recover_recover"), J("recover_kill")
    s_mem, l_mem = J("short_mem"), J("long_mem")
    hwm = {k: int(v) for k, v in J("hwm").items()}
    m_s0, m_s1, m_l0, m_l1, m_end = P("short0"), P("short1"), P("long0"), P("long1"), P("end")
    m_k1 = P("abandoned1")
    fails = []
    MiB = 1 / (1 << 20)

    # 1. Throttling, and Retry-After on every throttled answer.
    runs = (short, long_)
    throttled = sum(r["throttled"] for r in runs)
    ra_absent = sum(r["retry_after"]["absent"] for r in runs + (warm,))
    ra_bad = sum(r["retry_after"]["bad"] for r in runs + (warm,))
    ra_values = {}
    for r in runs + (warm,):
        for k, v in r["retry_after"]["seconds"].items():
            ra_values[int(k)] = ra_values.get(int(k), 0) + v
    if not throttled:
        fails.append("no 429 or 503 at all under overload: the load did not pass the capacity "
                     "(more connections, or a smaller serve.queue_events)")
    if ra_absent or ra_bad:
        fails.append(f"throttled answers without a usable Retry-After: {ra_absent} without the "
                     f"header, {ra_bad} not a number of seconds")
    insane = {k: v for k, v in ra_values.items() if not 1 <= k <= 60}
    if insane:
        fails.append(f"Retry-After outside 1..60 s: {insane}")
    pt = probe_r["throttled"]
    if probe_r["error"]:
        fails.append(f"the Retry-After probe: {probe_r['error']}")
    if not pt:
        fails.append(f"the Retry-After probe got no 429/503 in {probe_r['requests']} requests "
                     f"({probe_r['statuses']})")
    for t in pt:
        ra = t["retry_after"]
        if ra is None or not re.fullmatch(r"[0-9]+", ra) or not 1 <= int(ra) <= 60:
            fails.append(f"the probe's {t['status']} has Retry-After {ra!r}, not 1..60 s:\n"
                         + t["header"])

    # 2. Memory: the long overload (twice as long) must not need much more.
    ratio = hwm["long"] / hwm["short"] if hwm["short"] else math.inf
    if ratio >= 1.5:
        fails.append(f"VmHWM grew with the length of the overload: {hwm['short'] * MiB:.0f} MiB in "
                     f"the short run, {hwm['long'] * MiB:.0f} MiB in the long one (x{ratio:.2f}, "
                     "limit x1.5)")
    body_bytes = short["bytes_per_event"] * short["batch"]
    # What the daemon may hold for requests: every connection's body (the
    # handler threads and the server's queue), the decoded events of the
    # ingest queue, and two batches in the pipeline (being applied, being
    # committed) of at most what the receiver threads hold.
    inflight = cfg["connections"] * body_bytes

    # 3. Latency of the accepted events, from the daemon's histogram.
    # A quantile past the histogram's last finite bound (2.5 s) is known
    # only to be past it: JSON null with "beyond" set, "> 2500" printed.
    lat, beyond = {}, 0.0
    for name, a, b in (("short", m_s0, m_s1), ("long", m_l0, m_l1), ("both", m_s0, m_l1)):
        h = hist(a, b, "pmrag_event_to_prediction_seconds")
        finite = [le for le, _ in h if not math.isinf(le)]
        beyond = finite[-1] * 1e3 if finite else 0.0
        q = {k: quantile(h, v) for k, v in (("p50", .5), ("p99", .99))}
        lat[name] = {f"{k}_ms": None if x is None or math.isinf(x) else round(x * 1e3, 2)
                     for k, x in q.items()}
        lat[name]["beyond_ms"] = [k for k, x in q.items() if x is not None and math.isinf(x)]
        lat[name]["count"] = int(h[-1][1]) if h else 0
    fmt_ms = lambda r, k: f"> {beyond:.0f}" if k in r["beyond_ms"] else f"{r[k + '_ms']}"
    p99 = lat["both"]["p99_ms"]
    if "p99" in lat["both"]["beyond_ms"]:
        p99 = math.inf
    if lat["both"]["count"] == 0:
        fails.append("pmrag_event_to_prediction_seconds counted nothing during the overload")
    elif cfg["p99_limit_ms"] and p99 > cfg["p99_limit_ms"]:
        fails.append(f"p99 event to prediction {fmt_ms(lat['both'], 'p99')} ms during the overload "
                     f"(limit {cfg['p99_limit_ms']} ms on a shared machine; the goal is 10 ms)")

    # 4. Recovery, and one prediction per accepted event.
    for r, when in ((rec, "the end of the load"), (rec_k, "the clients were killed")):
        if r["error"]:
            fails.append(f"after {when}: {r['error']}")
        for k, what in (("ok_s", "a normal request got no 200"), ("readyz_s", "/readyz not 200"),
                        ("queue_zero_s", "pmrag_ingest_queue_events not back to 0")):
            if r[k] is None and not r["error"]:
                fails.append(f"{what} within 10 s of {when}")
    accepted = (warm["events_accepted"] + short["events_accepted"] + long_["events_accepted"]
                + probe_r["accepted_events"] + rec["accepted_events"])
    preds = int(m_end.get("pmrag_predictions_out_total", -1))
    ins = int(m_end.get('pmrag_events_in_total{source="otlp_http"}', -1))
    if preds != accepted or ins != accepted:
        fails.append(f"{accepted} events accepted by the clients (200), but the daemon counts "
                     f"{ins} in and {preds} predictions out")
    # The killed clients' requests: whatever the daemon took in, it
    # predicted (the clients' count of 200s is gone with them).
    k_in = int(m_k1.get('pmrag_events_in_total{source="otlp_http"}', -1))
    k_preds = int(m_k1.get("pmrag_predictions_out_total", -1))
    if k_preds != k_in or k_in < accepted + rec_k["accepted_events"]:
        fails.append(f"after the clients were killed: {k_in} events in, {k_preds} predictions "
                     f"out ({accepted + rec_k['accepted_events']} accepted before and after)")
    for name, r in (("warm-up", warm), ("short", short), ("long", long_)):
        if r["errors"] or r["partial"]:
            fails.append(f"{name} run: {r['errors']} errors, {r['partial']} partial successes")

    res = {
        "test": "overload", **cfg,
        "throttled": {"short": short["throttled"], "long": long_["throttled"],
                      "status_429": sum(r["throttled_429"] for r in runs),
                      "status_503": sum(r["throttled_503"] for r in runs),
                      "retry_after_seconds": {str(k): v for k, v in sorted(ra_values.items())},
                      "retry_after_absent": ra_absent, "retry_after_bad": ra_bad,
                      "probe": [(t["status"], t["retry_after"]) for t in pt]},
        "accepted_per_s": {"short": short["events_per_s"], "long": long_["events_per_s"]},
        "offered_per_s": {n: round(r["events_sent"] / r["seconds"]) if r["seconds"] else 0
                          for n, r in (("short", short), ("long", long_))},
        "request_ms": {"short": short["latency_ms"], "long": long_["latency_ms"]},
        "memory": {"vm_rss_ready": hwm["ready"], "vm_hwm_short": hwm["short"],
                   "vm_hwm_long": hwm["long"], "ratio": round(ratio, 3),
                   "vm_rss_max_short": s_mem["vm_rss_max"], "vm_rss_max_long": l_mem["vm_rss_max"],
                   "rss_anon_max_short": s_mem["rss_anon_max"],
                   "rss_anon_max_long": l_mem["rss_anon_max"],
                   "samples": [s_mem["samples"], l_mem["samples"]],
                   "request_bodies_bytes": round(inflight), "hwm_reset": bool(cfg["hwm_reset"])},
        "event_to_prediction": lat,
        "recovery": rec, "recovery_after_kill": rec_k,
        "after_kill": {"events_in": k_in, "predictions_out": k_preds,
                       "events_taken_from_killed_clients":
                           k_in - accepted - rec_k["accepted_events"]},
        "events_accepted": accepted, "events_in": ins, "predictions_out": preds,
    }
    json.dump(res, open(f"{work}/summary.json", "w"))
    print(json.dumps(res))

    ra_text = ", ".join(f"{v} x {k} s" for k, v in sorted(ra_values.items())) or "none"
    probe_text = "; ".join(f"{t['status']} Retry-After: {t['retry_after']}" for t in pt) or "none"
    print("\n".join([
        f"throttled       {short['throttled']} answers in the {short['seconds']:.0f} s run, "
        f"{long_['throttled']} in the {long_['seconds']:.0f} s run "
        f"({res['throttled']['status_503']} x 503, {res['throttled']['status_429']} x 429), "
        f"dropped by the clients (no retry)",
        f"Retry-After     {ra_text}; {ra_absent} without it, {ra_bad} unusable; "
        f"probe (raw socket): {probe_text}",
        *(["                the first as sent: "
           + pt[0]["header"].replace("\r\n", "\n                  ")] if pt else []),
        f"offered         {res['offered_per_s']['short']} / {res['offered_per_s']['long']} "
        f"events/s, accepted {short['events_per_s']:.0f} / {long_['events_per_s']:.0f} events/s "
        f"({cfg['connections']} connections x {short['batch']} spans, otlp.threads "
        f"{cfg['threads']}, serve.queue_events {cfg['queue_events']})",
        f"memory          VmHWM {hwm['short'] * MiB:.0f} MiB short, {hwm['long'] * MiB:.0f} MiB "
        f"long (x{ratio:.2f}, limit x1.5{'' if cfg['hwm_reset'] else '; HWM not reset per run'}); "
        f"VmRSS max {s_mem['vm_rss_max'] * MiB:.0f} / {l_mem['vm_rss_max'] * MiB:.0f} MiB, "
        f"RssAnon max {s_mem['rss_anon_max'] * MiB:.0f} / {l_mem['rss_anon_max'] * MiB:.0f} MiB "
        f"(200 ms samples); {hwm['ready'] * MiB:.0f} MiB when ready; request bodies in flight "
        f"<= {inflight * MiB:.1f} MiB",
        f"event->pred     p50 {fmt_ms(lat['both'], 'p50')} ms, p99 {fmt_ms(lat['both'], 'p99')} ms "
        f"over {lat['both']['count']} accepted events (short {fmt_ms(lat['short'], 'p50')}/"
        f"{fmt_ms(lat['short'], 'p99')}, long {fmt_ms(lat['long'], 'p50')}/"
        f"{fmt_ms(lat['long'], 'p99')}; limit "
        f"{str(cfg['p99_limit_ms']) + ' ms' if cfg['p99_limit_ms'] else 'none'}); "
        f"request to 200 p50 {long_['latency_ms']['p50']:.0f} ms, p99 "
        f"{long_['latency_ms']['p99']:.0f} ms (long run)",
        f"recovery        200 after {fmt_s(rec['ok_s'])}, /readyz after {fmt_s(rec['readyz_s'])}, "
        f"queue 0 after {fmt_s(rec['queue_zero_s'])} (from the end of the load); clients killed "
        f"mid-overload: 200 after {fmt_s(rec_k['ok_s'])}, /readyz after "
        f"{fmt_s(rec_k['readyz_s'])}, queue 0 after {fmt_s(rec_k['queue_zero_s'])}",
        f"predictions     {preds} out, {ins} in, {accepted} accepted by the clients; after the "
        f"killed clients {k_preds} out, {k_in} in "
        f"({res['after_kill']['events_taken_from_killed_clients']} taken from them)",
    ]), file=sys.stderr)
    for f in fails:
        print(f"overload: FAIL: {f}", file=sys.stderr)
    sys.exit(1 if fails else 0)


def fmt_s(x):
    return "never" if x is None else f"{x * 1e3:.0f} ms"


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"sample": sample, "probe": probe, "recover": recover,
     "summary": summary}[cmd](*args)
