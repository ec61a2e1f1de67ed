#!/usr/bin/python3
"""Event log of urllib3 (Debian python3-urllib3), driven directly and through
requests, against a local HTTP/HTTPS server running in threads of this process.

    /usr/bin/python3 gen_urllib3.py --out .deps/logs/urllib3.csv.gz [--cases 3000] [--seed 1]

A case is one client "session": a PoolManager / HTTPConnectionPool /
ProxyManager / requests.Session used for a short random sequence of requests
(ok, chunked, redirects, retried 5xx with Retry-After, flaky endpoints, read
timeouts, dropped keep-alive connections, refused connections, malformed
headers, Content-Length + chunked, HTTPS with a hostname mismatch, pool
overflow), then closed.  Every logging record whose source is inside the
urllib3 package is captured at DEBUG (see _capture.py).
"""
import argparse
import http.server
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _capture  # noqa: E402

import urllib3  # noqa: E402

if len(sys.argv) == 2 and sys.argv[1] == "--repo":  # the directory to index (run.sh)
    print(os.path.dirname(os.path.realpath(urllib3.__file__)))
    sys.exit(0)
from urllib3.util.retry import Retry  # noqa: E402
from urllib3.util.timeout import Timeout  # noqa: E402
import requests  # noqa: E402
import requests.adapters  # noqa: E402

FLAKY = {}
FLAKY_LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        try:  # avoid Nagle / delayed-ACK stalls of ~40 ms per response
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)

    def _send(self, code, body=b"", headers=(), close=False):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        if close:
            self.close_connection = True

    def do_GET(self):
        self._body()
        u = urllib.parse.urlsplit(self.path)  # absolute URI when proxied
        parts = [p for p in u.path.split("/") if p]
        q = dict(urllib.parse.parse_qsl(u.query))
        head = parts[0] if parts else "ok"
        if head == "ok":
            self._send(200, b"x" * int(q.get("size", "16")))
        elif head == "chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            if q.get("cl"):
                self.send_header("Content-Length", "5")
            self.end_headers()
            if self.command == "HEAD":
                return
            for _ in range(int(q.get("n", "3"))):
                self.wfile.write(b"4\r\nabcd\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif head == "status":
            code = int(parts[1])
            hdrs = []
            if "ra" in q:
                hdrs.append(("Retry-After", q["ra"]))
            self._send(code, b"err", hdrs)
        elif head == "flaky":
            key, fails, code = parts[1], int(parts[2]), int(parts[3])
            with FLAKY_LOCK:
                c = FLAKY.get(key, 0)
                FLAKY[key] = c + 1
            if c < fails:
                if code == 0:  # drop the connection without answering
                    self.close_connection = True
                    return
                self._send(code, b"try again", [("Retry-After", "0")] if q.get("ra") else [])
            else:
                self._send(200, b"finally")
        elif head == "redirect":
            n = int(parts[1])
            code = int(q.get("code", "302"))
            if n <= 0:
                self._send(200, b"landed")
            else:
                if q.get("abs"):
                    host = q.get("host", "127.0.0.1")
                    loc = "http://%s:%d/redirect/%d?code=%d&abs=1" % (host, self.server.server_port, n - 1, code)
                    if q.get("other") and n == 1:
                        loc = "http://localhost:%d/ok" % self.server.server_port
                else:
                    loc = "/redirect/%d?code=%d" % (n - 1, code)
                self._send(code, b"", [("Location", loc)])
        elif head == "loop":
            self._send(302, b"", [("Location", "/loop")])
        elif head == "slow":
            time.sleep(float(q.get("d", "0.1")))
            self._send(200, b"slow")
        elif head == "dropafter":
            # answer as keep-alive but close the socket: next reuse sees a dropped conn
            self._send(200, b"bye")
            self.close_connection = True
        elif head == "drop":
            self.close_connection = True
        elif head == "badheader":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Ok: 1\r\n"
                             b"Broken header line\r\n\r\nok")
        else:
            self._send(404, b"nope")

    do_POST = do_GET
    do_PUT = do_GET
    do_DELETE = do_GET
    do_HEAD = do_GET


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # resets and TLS failures are part of the scenarios


def start_server(certfile=None):
    srv = Server(("127.0.0.1", 0), Handler)
    if certfile:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certfile)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    return srv


def make_cert(tmp):
    if not shutil.which("openssl"):
        return None
    cert = os.path.join(tmp, "cert.pem")
    r = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", cert, "-out", cert + ".crt"], capture_output=True)
    if r.returncode:
        return None
    with open(cert, "a") as fh, open(cert + ".crt") as c:
        fh.write(c.read())
    return cert


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Gen:
    def __init__(self, rng, port, sport, cert, dead):
        self.rng = rng
        self.port, self.sport, self.cert, self.dead = port, sport, cert, dead
        self.n = 0

    # --- building blocks -----------------------------------------------------
    def path(self, case):
        r = self.rng
        k = r.random()
        if k < 0.30:
            return "/ok?size=%d" % r.choice([0, 16, 512, 4096])
        if k < 0.40:
            return "/chunked?n=%d" % r.randint(1, 5)
        if k < 0.50:
            return "/redirect/%d?code=%d%s" % (r.randint(1, 4), r.choice([301, 302, 303, 307, 308]),
                                              r.choice(["", "&abs=1", "&abs=1&other=1"]))
        if k < 0.60:
            self.n += 1
            return "/flaky/%s-%d/%d/%d%s" % (case, self.n, r.randint(1, 3), r.choice([500, 502, 503, 429, 0]),
                                            r.choice(["", "?ra=1"]))
        if k < 0.68:
            return "/status/%d%s" % (r.choice([400, 403, 404, 413, 429, 500, 502, 503, 504]),
                                     r.choice(["", "?ra=0"]))
        if k < 0.73:
            return "/slow?d=%.2f" % r.choice([0.01, 0.12])
        if k < 0.80:
            return "/dropafter"
        if k < 0.83:
            return "/drop"
        if k < 0.86:
            return "/badheader"
        if k < 0.89:
            return "/chunked?n=2&cl=1"
        if k < 0.91:
            return "/loop"
        return "/ok?size=1"

    def retry(self):
        r = self.rng
        k = r.random()
        if k < 0.25:
            return r.choice([0, 1, 2, 3, None, False])  # int/None: converted by Retry.from_int
        return Retry(total=r.choice([2, 3, 5, 8]), connect=r.choice([None, 0, 1, 2]),
                     read=r.choice([None, 0, 1, 2]), redirect=r.choice([None, 1, 3, 5]),
                     status=r.choice([None, 1, 2]),
                     status_forcelist=r.choice([None, (500, 502, 503), (429, 500, 502, 503, 504)]),
                     backoff_factor=0, raise_on_status=r.random() < 0.5,
                     raise_on_redirect=r.random() < 0.7,
                     allowed_methods=r.choice([Retry.DEFAULT_ALLOWED_METHODS, frozenset(["GET", "POST", "PUT"])]),
                     respect_retry_after_header=r.random() < 0.8)

    def method(self):
        return self.rng.choice(["GET"] * 6 + ["POST", "PUT", "HEAD", "DELETE"])

    def timeout(self):
        return Timeout(connect=1.0, read=self.rng.choice([0.05, 0.5, 2.0]))

    def read(self, resp):
        try:
            if self.rng.random() < 0.3 and not resp.closed:
                for _ in resp.stream(self.rng.choice([3, 64, 1024])):
                    pass
            else:
                resp.data
        except Exception:
            pass
        finally:
            try:
                resp.release_conn()
            except Exception:
                pass

    # --- case kinds ------------------------------------------------------------
    def case_poolmanager(self, case):
        r = self.rng
        pm = urllib3.PoolManager(num_pools=r.choice([1, 2, 10]), maxsize=r.choice([1, 2, 4]),
                                 retries=self.retry(), timeout=self.timeout())
        host = r.choice(["127.0.0.1", "localhost"])
        for _ in range(r.randint(1, 6)):
            url = "http://%s:%d%s" % (host, self.port, self.path(case))
            if r.random() < 0.05:
                url = "http://127.0.0.1:%d/ok" % self.dead
            kw = {}
            if r.random() < 0.5:
                kw["retries"] = self.retry()
            if r.random() < 0.15:
                kw["redirect"] = False
            try:
                resp = pm.request(self.method(), url, body=b"payload" if r.random() < 0.2 else None,
                                  preload_content=r.random() < 0.6, **kw)
                self.read(resp)
            except Exception:
                pass
        pm.clear()

    def case_pool(self, case):
        r = self.rng
        pool = urllib3.HTTPConnectionPool("127.0.0.1", self.port, maxsize=r.choice([1, 2]),
                                          block=False, retries=self.retry(), timeout=self.timeout())
        held = []
        for _ in range(r.randint(2, 6)):
            p = self.path(case)
            try:
                if r.random() < 0.4:
                    # keep the response open: the pool has to open more connections and
                    # later cannot take them all back ("Connection pool is full")
                    resp = pool.urlopen("GET", "/ok?size=64", preload_content=False,
                                        retries=r.choice([0, 1]))
                    held.append(resp)
                else:
                    resp = pool.urlopen(self.method(), p, preload_content=False,
                                        retries=self.retry() if r.random() < 0.5 else None,
                                        redirect=r.random() < 0.7, assert_same_host=False)
                    self.read(resp)
            except Exception:
                pass
        r.shuffle(held)
        for resp in held:
            self.read(resp)
        pool.close()

    def case_proxy(self, case):
        r = self.rng
        pm = urllib3.ProxyManager("http://127.0.0.1:%d" % self.port, retries=self.retry(),
                                  timeout=self.timeout())
        for _ in range(r.randint(1, 4)):
            p = r.choice(["/ok?size=8", "/chunked?n=2", "/status/503?ra=0", "/redirect/2", "/dropafter"])
            try:
                resp = pm.request(self.method(), "http://service.internal%s" % p)
                self.read(resp)
            except Exception:
                pass
        pm.clear()

    def case_https(self, case):
        r = self.rng
        mismatch = r.random() < 0.3
        kw = dict(cert_reqs="CERT_REQUIRED", ca_certs=self.cert, retries=self.retry(),
                  timeout=self.timeout())
        if mismatch:
            kw["assert_hostname"] = r.choice(["wrong.example", "api.internal"])
        pm = urllib3.PoolManager(**kw)
        for _ in range(r.randint(1, 4)):
            p = r.choice(["/ok?size=32", "/chunked?n=3", "/flaky/s%s-%d/1/503?ra=1" % (case, r.randint(0, 1 << 30)),
                          "/redirect/1", "/dropafter", "/status/404"])
            try:
                resp = pm.request("GET", "https://localhost:%d%s" % (self.sport, p))
                self.read(resp)
            except Exception:
                pass
        pm.clear()

    def case_requests(self, case):
        r = self.rng
        s = requests.Session()
        ad = requests.adapters.HTTPAdapter(pool_connections=r.choice([1, 4]), pool_maxsize=r.choice([1, 2, 10]),
                                           max_retries=r.choice([0, 2, self.retry()]))
        s.mount("http://", ad)
        base = "http://%s:%d" % (r.choice(["127.0.0.1", "localhost"]), self.port)
        for _ in range(r.randint(1, 6)):
            p = self.path(case)
            url = base + p
            if r.random() < 0.05:
                url = "http://127.0.0.1:%d/api" % self.dead
            try:
                resp = s.request(self.method(), url, timeout=r.choice([0.05, 1.0]),
                                 allow_redirects=r.random() < 0.8, stream=r.random() < 0.3,
                                 data=b"a=1" if r.random() < 0.2 else None)
                if r.random() < 0.3:
                    resp.raise_for_status()
                resp.content
            except Exception:
                pass
        s.close()

    def run_case(self, case):
        r = self.rng
        k = r.random()
        if k < 0.35:
            self.case_requests(case)
        elif k < 0.65:
            self.case_poolmanager(case)
        elif k < 0.80:
            self.case_pool(case)
        elif k < 0.90:
            self.case_proxy(case)
        elif self.cert:
            self.case_https(case)
        else:
            self.case_poolmanager(case)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    import warnings
    warnings.simplefilter("ignore")
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="gen_urllib3_")
    try:
        cert = make_cert(tmp)
        srv = start_server()
        ssrv = start_server(cert) if cert else None
        log = _capture.EventLog(urllib3, a.out)
        g = Gen(rng, srv.server_port, ssrv.server_port if ssrv else 0, cert, closed_port())
        t0 = time.time()
        for i in range(a.cases):
            cid = "u3-%05d" % i
            log.case_id = cid
            try:
                g.rng = random.Random("%d-%d" % (a.seed, i))  # per-case stream: timing-dependent
                # outcomes of one case do not shift the choices of later cases
                g.run_case(cid)
            finally:
                log.end_case()
        log.finish()
        srv.shutdown()
        srv.server_close()
        if ssrv:
            ssrv.shutdown()
            ssrv.server_close()
        print(log.summary(), "in %.1fs" % (time.time() - t0), file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
