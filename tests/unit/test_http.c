/*
 * The HTTP server (core_http), the OTLP/HTTP receiver, the daemon's API
 * and the Prometheus registry, over real sockets on 127.0.0.1: a raw
 * client below for exact bytes (chunked bodies, bodies cut short), and
 * curl where a real client's behaviour matters.
 */
#define _GNU_SOURCE
#include "core.h"
#include "core_http.h"
#include "ingest.h"
#include "sink.h"
#include "unit.h"
#include "unit_creds.h"
#include "unit_otlp.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* A raw client                                                        */
/* ------------------------------------------------------------------ */

typedef struct http_res {
    int status;
    core_buf head; /* status line and headers */
    core_buf body;
} http_res;

static void res_free(http_res *r)
{
    core_buf_free(&r->head);
    core_buf_free(&r->body);
}

/* A header's value in r->head (copied into a static buffer), or NULL. */
static const char *res_header(const http_res *r, const char *name)
{
    static _Thread_local char val[512];
    size_t n = strlen(name);
    for (const char *p = r->head.data; p && (p = strstr(p, "\r\n")); p += 2) {
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':') {
            const char *v = p + 3 + n;
            while (*v == ' ')
                v++;
            size_t len = strcspn(v, "\r");
            snprintf(val, sizeof val, "%.*s", (int)len, v);
            return val;
        }
    }
    return NULL;
}

/* Connects to "host:port" / "[v6]:port" with 5 s send and receive
 * timeouts, so that a server that hangs fails the test instead. */
static int connect_to(const char *addr)
{
    char host[128];
    const char *colon = strrchr(addr, ':');
    CHECK(colon);
    const char *h = addr;
    size_t n = (size_t)(colon - addr);
    if (h[0] == '[') {
        h++;
        n -= 2;
    }
    snprintf(host, sizeof host, "%.*s", (int)n, h);
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    CHECK_INT(getaddrinfo(host, colon + 1, &hints, &res), 0);
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    CHECK_INT(connect(fd, res->ai_addr, res->ai_addrlen), 0);
    freeaddrinfo(res);
    return fd;
}

/* Sends everything; false when the server closed the connection first
 * (as it does after an early answer such as 413: read it then). */
static bool send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
            return false;
        CHECK(w > 0);
        c += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads one response: the head, then Content-Length bytes of body, or
 * everything until the server closes. */
static void read_response(int fd, http_res *r)
{
    memset(r, 0, sizeof *r);
    core_buf raw = {0};
    char buf[65536];
    const char *eoh = NULL;
    long want = -1;
    for (;;) {
        if (raw.data && !eoh && (eoh = strstr(raw.data, "\r\n\r\n"))) {
            core_buf_append(&r->head, raw.data, (size_t)(eoh - raw.data) + 2);
            const char *cl = res_header(r, "Content-Length");
            if (cl)
                want = atol(cl);
        }
        if (eoh && want >= 0 && raw.len - (size_t)(eoh + 4 - raw.data) >= (size_t)want)
            break;
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            unit_fail(__FILE__, __LINE__, "recv: %s (after %zu bytes)", strerror(errno), raw.len);
        if (got == 0)
            break;
        size_t off = eoh ? (size_t)(eoh - raw.data) : 0;
        core_buf_append(&raw, buf, (size_t)got);
        if (eoh)
            eoh = raw.data + off;
    }
    if (!eoh)
        unit_fail(__FILE__, __LINE__, "no complete response head in %zu bytes: %.200s", raw.len,
                  raw.data ? raw.data : "");
    size_t boff = (size_t)(eoh + 4 - raw.data);
    size_t have = raw.len - boff; /* a HEAD answer has a Content-Length but no body */
    core_buf_append(&r->body, raw.data + boff,
                    want >= 0 && (size_t)want < have ? (size_t)want : have);
    CHECK(sscanf(r->head.data, "HTTP/1.%*d %d", &r->status) == 1);
    core_buf_free(&raw);
}

/* One request with Connection: close; extra is more header lines, each
 * ending in \r\n. A body is sent with its Content-Length. */
static void request(const char *addr, const char *method, const char *target, const char *extra,
                    const void *body, size_t len, http_res *r)
{
    int fd = connect_to(addr);
    core_buf req = {0};
    core_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: test\r\nConnection: close\r\n%s", method, target,
                    extra ? extra : "");
    if (body)
        core_buf_printf(&req, "Content-Length: %zu\r\n", len);
    core_buf_puts(&req, "\r\n");
    if (body)
        core_buf_append(&req, body, len);
    send_all(fd, req.data, req.len);
    read_response(fd, r);
    core_buf_free(&req);
    close(fd);
}

/* Runs a shell command and returns its stdout (caller frees). */
static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    CHECK(p);
    core_buf out = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        core_buf_append(&out, buf, n);
    pclose(p);
    core_buf_puts(&out, "");
    return out.data;
}

/* ------------------------------------------------------------------ */
/* core_http                                                           */
/* ------------------------------------------------------------------ */

typedef struct echo_state {
    _Atomic int calls;
} echo_state;

/* Echoes what it saw, one field per line. */
static void echo_handler(void *ud, const core_http_req *req, core_http_resp *resp)
{
    echo_state *st = ud;
    if (st)
        atomic_fetch_add(&st->calls, 1);
    if (strcmp(req->path, "/status0") == 0)
        return; /* no status: the server must answer 500 */
    resp->status = 200;
    resp->content_type = "text/x-echo";
    core_buf_printf(&resp->body,
                    "method=%s\npath=%s\nquery=%s\nctype=%s\nenc=%s\nauth=%s\nlen=%zu\n",
                    req->method, req->path, req->query ? req->query : "(null)",
                    req->content_type ? req->content_type : "(null)",
                    req->content_encoding ? req->content_encoding : "(null)",
                    req->authorization ? req->authorization : "(null)", req->len);
    CHECK(req->body[req->len] == 0);
    core_buf_append(&resp->body, req->body, req->len);
    if (strcmp(req->path, "/busy") == 0) {
        resp->status = 503;
        resp->retry_after = 7;
    }
    if (strcmp(req->path, "/only-post") == 0) {
        resp->status = 405;
        resp->allow = "POST";
    }
}

static core_http *start(core_http_handler h, void *ud, size_t max_body, unsigned threads)
{
    core_http_opts o = {.listen = "127.0.0.1:0", .max_body = max_body, .threads = threads};
    core_http *s = NULL;
    char why[256] = "";
    int rc = core_http_start(&o, h, ud, &s, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "core_http_start: %s", why);
    return s;
}

TEST(http_port_zero_is_reported)
{
    core_http *s = start(echo_handler, NULL, 0, 0);
    const char *a = core_http_address(s);
    CHECK(strncmp(a, "127.0.0.1:", 10) == 0);
    CHECK(atoi(a + 10) > 0);
    http_res r;
    request(a, "GET", "/x", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    core_http_stop(s);
}

TEST(http_content_length_body_and_request_fields)
{
    echo_state st = {0};
    core_http *s = start(echo_handler, &st, 0, 0);
    http_res r;
    const char *body = "hello\0world";
    request(core_http_address(s), "POST", "/v1/a%20b?x=1&y=%2F",
            "Content-Type: application/json; charset=utf-8\r\nContent-Encoding: gzip\r\n"
            "Authorization: Bearer t0k\r\n",
            body, 11, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(res_header(&r, "Content-Type"), "text/x-echo");
    const char *want = "method=POST\npath=/v1/a%20b\nquery=x=1&y=%2F\n"
                       "ctype=application/json; charset=utf-8\nenc=gzip\nauth=Bearer t0k\nlen=11\n";
    CHECK_INT(r.body.len, strlen(want) + 11);
    CHECK(memcmp(r.body.data, want, strlen(want)) == 0);
    CHECK(memcmp(r.body.data + strlen(want), body, 11) == 0);
    res_free(&r);

    /* No body, no query. */
    request(core_http_address(s), "GET", "/plain", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.body.data, "query=(null)\nctype=(null)\nenc=(null)\nauth=(null)\nlen=0\n"));
    res_free(&r);

    /* Status, Retry-After, Allow. */
    request(core_http_address(s), "GET", "/busy", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 503);
    CHECK_STR(res_header(&r, "Retry-After"), "7");
    res_free(&r);
    request(core_http_address(s), "GET", "/only-post", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(res_header(&r, "Allow"), "POST");
    CHECK(!res_header(&r, "Retry-After"));
    res_free(&r);
    request(core_http_address(s), "GET", "/status0", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 500);
    res_free(&r);
    CHECK_INT(atomic_load(&st.calls), 5);
    core_http_stop(s);
}

TEST(http_chunked_body_raw_and_curl)
{
    core_http *s = start(echo_handler, NULL, 0, 0);
    int fd = connect_to(core_http_address(s));
    const char *req = "POST /c HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n"
                      "5\r\nhello\r\n";
    send_all(fd, req, strlen(req));
    usleep(20000); /* the rest in another segment */
    const char *rest = "6\r\n world\r\n0\r\n\r\n";
    send_all(fd, rest, strlen(rest));
    http_res r;
    read_response(fd, &r);
    close(fd);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.body.data, "len=11\nhello world"));
    res_free(&r);

    /* curl, as the OpenTelemetry JS exporters send: chunked, no
     * Content-Length. */
    core_buf big = {0};
    for (int i = 0; i < 20000; i++)
        core_buf_printf(&big, "line %05d\n", i);
    const char *path = unit_write("chunked.txt", big.data, big.len);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "curl -sS -H 'Transfer-Encoding: chunked' -H 'Content-Type: text/plain' "
             "--data-binary @%s http://%s/curl",
             path, core_http_address(s));
    char *out = run(cmd);
    char want[64];
    snprintf(want, sizeof want, "len=%zu\nline 00000\n", big.len);
    CHECK(strstr(out, want));
    CHECK(strstr(out, "line 19999\n"));
    free(out);
    core_buf_free(&big);
    core_http_stop(s);
}

TEST(http_keep_alive_serves_several_requests)
{
    core_http *s = start(echo_handler, NULL, 0, 0);
    int fd = connect_to(core_http_address(s));
    for (int i = 0; i < 3; i++) {
        char req[256];
        snprintf(req, sizeof req, "POST /k%d HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n%s\r\nabc",
                 i, i == 2 ? "Connection: close\r\n" : "");
        send_all(fd, req, strlen(req));
        http_res r;
        read_response(fd, &r);
        CHECK_INT(r.status, 200);
        char want[32];
        snprintf(want, sizeof want, "path=/k%d\n", i);
        CHECK(strstr(r.body.data, want));
        res_free(&r);
    }
    close(fd);
    core_http_stop(s);
}

TEST(http_content_length_over_limit_is_413_before_the_body)
{
    echo_state st = {0};
    core_http *s = start(echo_handler, &st, 1000, 0);
    /* Only the head: the 413 must come without the body ever sent. */
    int fd = connect_to(core_http_address(s));
    const char *req = "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n";
    send_all(fd, req, strlen(req));
    http_res r;
    read_response(fd, &r);
    CHECK_INT(r.status, 413);
    CHECK(strstr(r.body.data, "larger than 1000 bytes"));
    /* And the connection is closed. */
    char c;
    CHECK_INT(recv(fd, &c, 1, 0), 0);
    close(fd);
    res_free(&r);

    /* Exactly the limit is fine. */
    char body[1000];
    memset(body, 'x', sizeof body);
    request(core_http_address(s), "POST", "/ok", NULL, body, sizeof body, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    CHECK_INT(atomic_load(&st.calls), 1);
    core_http_stop(s);
}

TEST(http_chunked_over_limit_is_413_as_soon_as_it_passes)
{
    echo_state st = {0};
    core_http *s = start(echo_handler, &st, 1000, 0);
    int fd = connect_to(core_http_address(s));
    core_buf req = {0};
    core_buf_puts(&req, "POST /big HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 3; i++) {
        core_buf_puts(&req, "200\r\n"); /* 512 bytes a chunk: over 1000 at the second */
        for (int j = 0; j < 512; j++)
            core_buf_putc(&req, 'y');
        core_buf_puts(&req, "\r\n");
    }
    /* The body is not finished: the answer must not wait for its end. */
    send_all(fd, req.data, req.len);
    http_res r;
    read_response(fd, &r);
    CHECK_INT(r.status, 413);
    CHECK_STR(res_header(&r, "Connection"), "close");
    CHECK(strstr(r.body.data, "larger than 1000 bytes"));
    res_free(&r);
    core_buf_free(&req);
    close(fd);

    /* curl with a chunked body far over the limit reads the 413. */
    core_buf big = {0};
    for (int i = 0; i < 200000; i++)
        core_buf_puts(&big, "0123456789");
    const char *path = unit_write("big.txt", big.data, big.len);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code}' -H 'Transfer-Encoding: chunked' "
             "--data-binary @%s http://%s/curl",
             path, core_http_address(s));
    char *out = run(cmd);
    CHECK_STR(out, "413");
    free(out);
    core_buf_free(&big);
    CHECK_INT(atomic_load(&st.calls), 0);
    /* The server still serves. */
    request(core_http_address(s), "GET", "/after", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    core_http_stop(s);
}

/* Every handler waits until `want` of them run at once (or 5 s pass). */
typedef struct barrier_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int inside, want, max_inside;
    bool timed_out;
} barrier_state;

static void barrier_handler(void *ud, const core_http_req *req, core_http_resp *resp)
{
    (void)req;
    barrier_state *b = ud;
    pthread_mutex_lock(&b->mu);
    b->inside++;
    if (b->inside > b->max_inside)
        b->max_inside = b->inside;
    pthread_cond_broadcast(&b->cv);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    while (b->inside < b->want && !b->timed_out)
        if (pthread_cond_timedwait(&b->cv, &b->mu, &until) == ETIMEDOUT)
            b->timed_out = true;
    pthread_mutex_unlock(&b->mu);
    resp->status = 200;
    core_buf_puts(&resp->body, "together");
}

typedef struct client_arg {
    const char *addr;
    const char *path;
    int status;
    char body[64];
} client_arg;

static void *client_main(void *p)
{
    client_arg *c = p;
    http_res r;
    request(c->addr, "POST", c->path ? c->path : "/", NULL, "x", 1, &r);
    c->status = r.status;
    snprintf(c->body, sizeof c->body, "%s", r.body.data ? r.body.data : "");
    res_free(&r);
    return NULL;
}

TEST(http_blocking_handlers_run_concurrently)
{
    barrier_state b = {.want = 3};
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    core_http *s = start(barrier_handler, &b, 0, 3);
    pthread_t th[3];
    client_arg args[3];
    for (int i = 0; i < 3; i++) {
        args[i] = (client_arg){.addr = core_http_address(s)};
        CHECK_INT(pthread_create(&th[i], NULL, client_main, &args[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(args[i].status, 200);
        CHECK_STR(args[i].body, "together");
    }
    CHECK(!b.timed_out);
    CHECK_INT(b.max_inside, 3);
    core_http_stop(s);
}

TEST(http_blocked_handlers_do_not_stall_io)
{
    /* One handler thread, held by a slow request: another connection's
     * over-limit body is still answered (by the I/O thread) at once. */
    barrier_state b = {.want = 2};
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    core_http_opts o = {.listen = "127.0.0.1:0", .max_body = 10, .threads = 1};
    core_http *s;
    CHECK_OK(core_http_start(&o, barrier_handler, &b, &s, NULL, 0));
    pthread_t th;
    client_arg arg = {.addr = core_http_address(s)};
    CHECK_INT(pthread_create(&th, NULL, client_main, &arg), 0);
    pthread_mutex_lock(&b.mu);
    while (b.inside < 1)
        pthread_cond_wait(&b.cv, &b.mu);
    pthread_mutex_unlock(&b.mu);
    http_res r;
    char body[100] = {0};
    request(core_http_address(s), "POST", "/big", NULL, body, sizeof body, &r);
    CHECK_INT(r.status, 413);
    res_free(&r);
    /* Release the first handler. */
    pthread_mutex_lock(&b.mu);
    b.inside++;
    pthread_cond_broadcast(&b.cv);
    pthread_mutex_unlock(&b.mu);
    pthread_join(th, NULL);
    CHECK_INT(arg.status, 200);
    CHECK(!b.timed_out);
    core_http_stop(s);
}

typedef struct slow_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool entered;
} slow_state;

static void slow_handler(void *ud, const core_http_req *req, core_http_resp *resp)
{
    (void)req;
    slow_state *st = ud;
    pthread_mutex_lock(&st->mu);
    st->entered = true;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    usleep(200000);
    resp->status = 200;
    core_buf_puts(&resp->body, "finished");
}

TEST(http_stop_finishes_requests_in_progress)
{
    slow_state st = {.entered = false};
    pthread_mutex_init(&st.mu, NULL);
    pthread_cond_init(&st.cv, NULL);
    core_http *s = start(slow_handler, &st, 0, 0);
    char addr[64];
    snprintf(addr, sizeof addr, "%s", core_http_address(s));
    pthread_t th;
    client_arg arg = {.addr = addr};
    CHECK_INT(pthread_create(&th, NULL, client_main, &arg), 0);
    pthread_mutex_lock(&st.mu);
    while (!st.entered)
        pthread_cond_wait(&st.cv, &st.mu);
    pthread_mutex_unlock(&st.mu);
    core_http_stop(s);
    pthread_join(th, NULL);
    CHECK_INT(arg.status, 200);
    CHECK_STR(arg.body, "finished");
    /* Nobody listens any more. */
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(addr + 10))};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0);
    close(fd);
}

/* ---- streamed responses --------------------------------------------- */

typedef struct stream_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    core_http_stream *st;
    size_t max;
} stream_state;

static void stream_handler(void *ud, const core_http_req *req, core_http_resp *resp)
{
    stream_state *x = ud;
    if (strcmp(req->path, "/s") != 0) {
        resp->status = 200;
        core_buf_puts(&resp->body, "plain");
        return;
    }
    resp->content_type = "text/event-stream";
    core_buf_puts(&resp->body, ": open\n\n");
    core_http_stream *st = core_http_stream_new(resp, x->max, ": ka\n\n");
    pthread_mutex_lock(&x->mu);
    x->st = st;
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
}

/* The stream the handler opened for the latest request. */
static core_http_stream *stream_take(stream_state *x)
{
    pthread_mutex_lock(&x->mu);
    while (!x->st)
        pthread_cond_wait(&x->cv, &x->mu);
    core_http_stream *st = x->st;
    x->st = NULL;
    pthread_mutex_unlock(&x->mu);
    return st;
}

/* Reads from fd until its bytes so far contain want (5 s at most). */
static void recv_until(int fd, core_buf *got, const char *want)
{
    char buf[4096];
    while (!got->data || !strstr(got->data, want)) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            unit_fail(__FILE__, __LINE__, "no '%s' in %zu bytes: %.300s", want, got->len,
                      got->data ? got->data : "");
        core_buf_append(got, buf, (size_t)n);
    }
}

static int stream_open(const char *addr, core_buf *got)
{
    int fd = connect_to(addr);
    const char req[] = "GET /s HTTP/1.1\r\nHost: test\r\n\r\n";
    send_all(fd, req, sizeof req - 1);
    recv_until(fd, got, ": open");
    return fd;
}

/* A streamed body: chunked, fed later from another thread; a client that
 * went away is noticed (-EPIPE), one too slow is cut off (CORE_ELIMIT),
 * and stop ends the open ones properly. */
TEST(http_streams_deliver_notice_gone_and_slow_clients_and_end_at_stop)
{
    stream_state x = {.max = 64 << 10};
    pthread_mutex_init(&x.mu, NULL);
    pthread_cond_init(&x.cv, NULL);
    core_http *s = start(stream_handler, &x, 0, 1);
    char addr[64];
    snprintf(addr, sizeof addr, "%s", core_http_address(s));

    /* Data as it comes, while the single handler thread is free. */
    core_buf got = {0};
    int fd = stream_open(addr, &got);
    core_http_stream *st = stream_take(&x);
    CHECK(strstr(got.data, "Transfer-Encoding: chunked") != NULL);
    CHECK(strstr(got.data, "Content-Type: text/event-stream") != NULL);
    http_res r;
    request(addr, "GET", "/other", NULL, NULL, 0, &r); /* the handler thread is not held */
    CHECK_INT(r.status, 200);
    res_free(&r);
    for (int i = 0; i < 3; i++) {
        char line[32];
        int n = snprintf(line, sizeof line, "data: %d\n\n", i);
        CHECK_OK(core_http_stream_send(st, line, (size_t)n));
        recv_until(fd, &got, line);
    }
    core_http_stats hs;
    core_http_get_stats(s, &hs);
    CHECK_INT(hs.streams, 1);
    /* The client goes: sends fail soon after. */
    close(fd);
    int rc = 0;
    for (int i = 0; i < 300 && rc == 0; i++) {
        rc = core_http_stream_send(st, "data: x\n\n", 9);
        usleep(10000);
    }
    CHECK_INT(rc, -EPIPE);
    CHECK(core_http_stream_closed(st));
    core_http_stream_end(st);

    /* A client that does not read: cut off past max queued. */
    core_buf_reset(&got);
    fd = stream_open(addr, &got);
    st = stream_take(&x);
    static char big[16384];
    memset(big, 'x', sizeof big);
    rc = 0;
    for (int i = 0; i < 10000 && rc == 0; i++)
        rc = core_http_stream_send(st, big, sizeof big);
    CHECK_INT(rc, CORE_ELIMIT);
    CHECK_INT(core_http_stream_send(st, "y", 1), CORE_ELIMIT);
    core_http_stream_end(st);
    close(fd);

    /* Stop ends an open stream: the client reads the last chunk. */
    core_buf_reset(&got);
    fd = stream_open(addr, &got);
    st = stream_take(&x);
    CHECK_OK(core_http_stream_send(st, "data: last\n\n", 12));
    core_http_stop(s);
    recv_until(fd, &got, "0\r\n\r\n");
    CHECK(strstr(got.data, "data: last") != NULL);
    CHECK_INT(core_http_stream_send(st, "z", 1), -EPIPE);
    core_http_stream_end(st);
    close(fd);
    core_buf_free(&got);
    pthread_mutex_destroy(&x.mu);
    pthread_cond_destroy(&x.cv);
}

/* Whether the server closed fd (EOF or a reset), waiting up to ms. */
static bool closed_within(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0)
        return false;
    char c;
    ssize_t got = recv(fd, &c, 1, MSG_DONTWAIT);
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* A connection that has sent a request line and part of its headers. */
static int stalled(const char *addr)
{
    int fd = connect_to(addr);
    const char *part = "POST /stalled HTTP/1.1\r\nHost: test\r\n";
    CHECK(send_all(fd, part, strlen(part)));
    return fd;
}

TEST(http_stalled_connections_give_way_to_complete_requests)
{
    /* max_conns 4 and 10 connections that never finish their headers: a
     * normal request is still answered, at once, each newcomer having
     * closed the oldest stalled one. */
    core_http_opts o = {.listen = "127.0.0.1:0", .limits = {.max_conns = 4}};
    core_http *s;
    CHECK_OK(core_http_start(&o, echo_handler, NULL, &s, NULL, 0));
    int fds[10];
    for (int i = 0; i < 10; i++)
        fds[i] = stalled(core_http_address(s));
    uint64_t t0 = core_now_ns();
    http_res r;
    request(core_http_address(s), "GET", "/x", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK(core_now_ns() - t0 < 1000000000ull);
    res_free(&r);
    /* The oldest went first; the newest are still open. */
    int closed = 0;
    for (int i = 0; i < 10; i++)
        closed += closed_within(fds[i], i < 7 ? 2000 : 0);
    CHECK_INT(closed, 7);
    CHECK(!closed_within(fds[9], 0));
    core_http_stats st;
    core_http_get_stats(s, &st);
    CHECK_INT(st.evicted, 7);
    CHECK_INT(st.timed_out, 0);
    for (int i = 0; i < 10; i++)
        close(fds[i]);
    core_http_stop(s);
}

TEST(http_per_address_limit_closes_that_address_stalled_first)
{
    core_http_opts o = {.listen = "127.0.0.1:0", .limits = {.max_conns_per_addr = 3}};
    core_http *s;
    CHECK_OK(core_http_start(&o, echo_handler, NULL, &s, NULL, 0));
    int fds[5];
    for (int i = 0; i < 5; i++)
        fds[i] = stalled(core_http_address(s));
    http_res r;
    request(core_http_address(s), "GET", "/x", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    /* 5 + 1 from one address, 3 at a time: the 3 oldest closed. */
    for (int i = 0; i < 3; i++)
        CHECK(closed_within(fds[i], 2000));
    CHECK(!closed_within(fds[3], 0));
    CHECK(!closed_within(fds[4], 0));
    for (int i = 0; i < 5; i++)
        close(fds[i]);
    core_http_stop(s);
}

TEST(http_header_and_body_timeouts_are_not_reset_by_trickling)
{
    /* libmicrohttpd's timeout is one of silence: a byte every 200 ms keeps
     * it away. header_timeout and body_timeout count from the start. */
    core_http_opts o = {.listen = "127.0.0.1:0",
                        .limits = {.header_timeout = 1, .body_timeout = 1}};
    core_http *s;
    CHECK_OK(core_http_start(&o, echo_handler, NULL, &s, NULL, 0));
    int hd = stalled(core_http_address(s));
    int bd = connect_to(core_http_address(s));
    const char *head = "POST /b HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n";
    CHECK(send_all(bd, head, strlen(head)));
    uint64_t t0 = core_now_ns();
    bool h_closed = false, b_closed = false;
    while (core_now_ns() - t0 < 4000000000ull && !(h_closed && b_closed)) {
        if (!h_closed && !(h_closed = closed_within(hd, 0)))
            send(hd, "X", 1, MSG_NOSIGNAL);
        if (!b_closed && !(b_closed = closed_within(bd, 0)))
            send(bd, "x", 1, MSG_NOSIGNAL);
        usleep(200000);
    }
    uint64_t took = core_now_ns() - t0;
    CHECK(h_closed);
    CHECK(b_closed);
    CHECK(took >= 900000000ull && took < 3000000000ull);
    core_http_stats st;
    core_http_get_stats(s, &st);
    CHECK_INT(st.timed_out, 2);
    close(hd);
    close(bd);
    core_http_stop(s);
}

typedef struct gate_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int held;
    bool open;
} gate_state;

/* /hold waits until the gate opens; anything else is answered at once. */
static void gate_handler(void *ud, const core_http_req *req, core_http_resp *resp)
{
    gate_state *g = ud;
    if (strcmp(req->path, "/hold") == 0) {
        pthread_mutex_lock(&g->mu);
        g->held++;
        pthread_cond_broadcast(&g->cv);
        while (!g->open)
            pthread_cond_wait(&g->cv, &g->mu);
        pthread_mutex_unlock(&g->mu);
    }
    resp->status = 200;
    core_buf_puts(&resp->body, req->path);
}

TEST(http_probes_are_answered_when_every_connection_is_busy)
{
    /* max_conns 2, both in a handler (nothing stalled to close): a probe
     * still gets in, on the reserve; another request there gets 503. */
    gate_state g = {.open = false};
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    static const char *const probes[] = {"/livez", NULL};
    core_http_opts o = {
        .listen = "127.0.0.1:0", .threads = 3, .probe_paths = probes, .limits = {.max_conns = 2}};
    core_http *s;
    CHECK_OK(core_http_start(&o, gate_handler, &g, &s, NULL, 0));
    pthread_t th[2];
    client_arg args[2];
    for (int i = 0; i < 2; i++) {
        args[i] = (client_arg){.addr = core_http_address(s), .path = "/hold"};
        CHECK_INT(pthread_create(&th[i], NULL, client_main, &args[i]), 0);
    }
    pthread_mutex_lock(&g.mu);
    while (g.held < 2)
        pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);
    http_res r;
    request(core_http_address(s), "GET", "/livez", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "/livez");
    res_free(&r);
    request(core_http_address(s), "GET", "/other", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 503);
    CHECK_STR(res_header(&r, "Retry-After"), "1");
    res_free(&r);
    core_http_stats st;
    core_http_get_stats(s, &st);
    CHECK_INT(st.over_limit, 1);
    pthread_mutex_lock(&g.mu);
    g.open = true;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK_INT(args[i].status, 200);
    }
    /* Room again: any request is served. */
    request(core_http_address(s), "GET", "/other", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    core_http_stop(s);
}

TEST(http_listen_errors_name_the_address)
{
    core_http_opts o = {.listen = "foo"};
    core_http *s = NULL;
    char why[256] = "";
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "listen foo: not host:port");
    o.listen = "127.0.0.1:99999";
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "listen 127.0.0.1:99999: not host:port");
    o.listen = "::1:80";
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK(!s);

    core_http *first = start(echo_handler, NULL, 0, 0);
    char taken[64];
    snprintf(taken, sizeof taken, "%s", core_http_address(first));
    o.listen = taken;
    int rc = core_http_start(&o, echo_handler, NULL, &s, why, sizeof why);
    CHECK_INT(rc, -EADDRINUSE);
    char want[128];
    snprintf(want, sizeof want, "listen %s: %s", taken, strerror(EADDRINUSE));
    CHECK_STR(why, want);
    core_http_stop(first);

    /* Names resolve; a name that does not is an error naming it. */
    o.listen = "localhost:0";
    CHECK_OK(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why));
    core_http_stop(s);
    o.listen = "no-such-host.invalid:0";
    CHECK(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why) != 0);
    CHECK(strncmp(why, "listen no-such-host.invalid:0: ", 31) == 0);
}

TEST(http_ipv6_literal)
{
    core_http_opts o = {.listen = "[::1]:0"};
    core_http *s = NULL;
    char why[256] = "";
    int rc = core_http_start(&o, echo_handler, NULL, &s, why, sizeof why);
    if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
        printf("  (no IPv6 loopback here: %s)\n", why);
        return;
    }
    CHECK_OK(rc);
    const char *a = core_http_address(s);
    CHECK(strncmp(a, "[::1]:", 6) == 0);
    CHECK(atoi(a + 6) > 0);
    http_res r;
    request(a, "GET", "/v6", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.body.data, "path=/v6\n"));
    res_free(&r);
    core_http_stop(s);
}

/* ------------------------------------------------------------------ */
/* Bearer tokens and TLS                                               */
/* ------------------------------------------------------------------ */

/* Log lines, kept for the test to look at (written by server threads). */
typedef struct log_rec {
    pthread_mutex_t mu;
    core_buf text;
} log_rec;

static void log_keep(void *ud, core_log_level level, const char *msg)
{
    (void)level;
    log_rec *l = ud;
    pthread_mutex_lock(&l->mu);
    core_buf_printf(&l->text, "%s\n", msg);
    pthread_mutex_unlock(&l->mu);
}

static char *log_take(log_rec *l)
{
    pthread_mutex_lock(&l->mu);
    char *s = core_xstrdup(l->text.data ? l->text.data : "");
    pthread_mutex_unlock(&l->mu);
    return s;
}

#define TOKEN "s3cr3t-T0ken.with_odd~chars"

TEST(http_ct_equal_compares_every_byte)
{
    CHECK(core_ct_equal("abc", 3, "abc", 3));
    CHECK(core_ct_equal("", 0, "", 0));
    CHECK(!core_ct_equal("abd", 3, "abc", 3));
    CHECK(!core_ct_equal("xbc", 3, "abc", 3));
    CHECK(!core_ct_equal("ab", 2, "abc", 3));   /* a prefix */
    CHECK(!core_ct_equal("abcd", 4, "abc", 3)); /* longer */
    CHECK(!core_ct_equal("", 0, "abc", 3));
    CHECK(!core_ct_equal("abc", 3, "", 0));
    CHECK(core_ct_equal("a\0c", 3, "a\0c", 3)); /* lengths, not C strings */
    CHECK(!core_ct_equal("a\0c", 3, "a\0d", 3));
    /* A missing byte is not taken for a NUL. */
    CHECK(!core_ct_equal("ab", 2, "ab\0", 3));

    /* Timing: a 64 KiB secret against a guess wrong at its first byte and
     * one wrong at its last. memcmp, as a control, shows the measurement
     * can see the difference; core_ct_equal must not show it. Best of
     * several rounds, so that a busy machine does not fail the test. */
    size_t n = (size_t)64 << 10;
    unsigned char *secret = malloc(n), *first = malloc(n), *last = malloc(n);
    for (size_t i = 0; i < n; i++)
        secret[i] = (unsigned char)(i * 7 + 1);
    memcpy(first, secret, n);
    memcpy(last, secret, n);
    first[0] ^= 1;
    last[n - 1] ^= 1;
    double best[4] = {1e30, 1e30, 1e30, 1e30}; /* ct first, ct last, memcmp first, last */
    volatile int sink = 0;
    for (int round = 0; round < 15; round++) {
        for (int k = 0; k < 4; k++) {
            const unsigned char *guess = (k & 1) ? last : first;
            uint64_t t0 = core_now_ns();
            for (int it = 0; it < 20; it++)
                sink += k < 2 ? core_ct_equal(guess, n, secret, n) : memcmp(guess, secret, n) == 0;
            double dt = (double)(core_now_ns() - t0);
            if (dt < best[k])
                best[k] = dt;
        }
    }
    CHECK_INT(sink, 0);
    double ct_ratio = best[1] / best[0], memcmp_ratio = best[3] / best[2];
    printf("  ct_equal last/first %.2f (memcmp %.1f)\n", ct_ratio, memcmp_ratio);
    if (memcmp_ratio > 8) {
        CHECK(ct_ratio < 2.0);
        CHECK(ct_ratio > 0.5);
    } else {
        printf("  (timer too coarse here to compare)\n");
    }
    free(secret);
    free(first);
    free(last);
}

static core_http *start_auth(const char *tokfile, size_t max_body, log_rec *lr, echo_state *st)
{
    static const char *const open_paths[] = {"/open", NULL};
    core_http_opts o = {.listen = "127.0.0.1:0",
                        .max_body = max_body,
                        .token_file = tokfile,
                        .public_paths = open_paths};
    if (lr)
        o.log = (core_logger){log_keep, lr, CORE_LOG_DEBUG};
    core_http *s = NULL;
    char why[512] = "";
    if (core_http_start(&o, echo_handler, st, &s, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "core_http_start: %s", why);
    return s;
}

TEST(http_bearer_token_required)
{
    char *tf = unit_token_file(TOKEN "\n");
    log_rec lr = {.mu = PTHREAD_MUTEX_INITIALIZER};
    echo_state st = {0};
    core_http *s = start_auth(tf, 1000, &lr, &st);
    const char *addr = core_http_address(s);
    http_res r;

    /* None: 401, a challenge without an error code, the handler not run. */
    request(addr, "GET", "/x", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 401);
    CHECK_STR(res_header(&r, "WWW-Authenticate"), "Bearer realm=\"pmrag\"");
    CHECK(!res_header(&r, "Retry-After"));
    CHECK(strstr(r.body.data, "Authorization: Bearer"));
    res_free(&r);
    /* Another scheme is no bearer token either. */
    request(addr, "GET", "/x", "Authorization: Basic dXNlcjpwYXNz\r\n", NULL, 0, &r);
    CHECK_INT(r.status, 401);
    CHECK_STR(res_header(&r, "WWW-Authenticate"), "Bearer realm=\"pmrag\"");
    res_free(&r);
    /* Wrong, a prefix of the right one, longer, empty, no space. */
    const char *wrong[] = {
        "Authorization: Bearer nope\r\n",       "Authorization: Bearer s3cr3t-T0ken\r\n",
        "Authorization: Bearer " TOKEN "x\r\n", "Authorization: Bearer \r\n",
        "Authorization: Bearer" TOKEN "\r\n",   "Authorization: Bearer " TOKEN " extra\r\n"};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        request(addr, "POST", "/x", wrong[i], "abc", 3, &r);
        CHECK_INT(r.status, 401);
        const char *chal = res_header(&r, "WWW-Authenticate");
        CHECK(chal && strncmp(chal, "Bearer realm=\"pmrag\"", 20) == 0);
        res_free(&r);
    }
    request(addr, "GET", "/x", "Authorization: Bearer nope\r\n", NULL, 0, &r);
    CHECK_STR(res_header(&r, "WWW-Authenticate"),
              "Bearer realm=\"pmrag\", error=\"invalid_token\"");
    CHECK_STR(r.body.data, "wrong bearer token\n");
    res_free(&r);
    CHECK_INT(atomic_load(&st.calls), 0);

    /* Right: the scheme in any case, white space around the token. */
    const char *right[] = {
        "Authorization: Bearer " TOKEN "\r\n", "Authorization: bearer " TOKEN "\r\n",
        "Authorization: BEARER " TOKEN "\r\n", "Authorization: bEaReR   " TOKEN "  \r\n"};
    for (size_t i = 0; i < sizeof right / sizeof *right; i++) {
        request(addr, "POST", "/x", right[i], "abc", 3, &r);
        CHECK_INT(r.status, 200);
        CHECK(strstr(r.body.data, "len=3\nabc"));
        res_free(&r);
    }
    CHECK_INT(atomic_load(&st.calls), 4);

    /* Public paths need none; only the exact path is public. */
    request(addr, "GET", "/open", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    request(addr, "GET", "/open?x=1", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    request(addr, "GET", "/open/more", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 401);
    res_free(&r);
    request(addr, "GET", "/%6fpen", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 401);
    res_free(&r);

    /* 401 comes before the body is read, and before the size check. */
    int fd = connect_to(addr);
    const char *head = "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n";
    send_all(fd, head, strlen(head));
    read_response(fd, &r);
    CHECK_INT(r.status, 401);
    res_free(&r);
    close(fd);

    /* curl. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code} ' http://%s/c; "
             "curl -s -o /dev/null -w '%%{http_code} ' -H 'Authorization: Bearer wrong' "
             "http://%s/c; "
             "curl -s -o /dev/null -w '%%{http_code}' -H 'Authorization: Bearer %s' http://%s/c",
             addr, addr, TOKEN, addr);
    char *out = run(cmd);
    CHECK_STR(out, "401 401 200");
    free(out);

    core_http_stats hs;
    core_http_get_stats(s, &hs);
    CHECK_INT(hs.unauthorized, 2 + 6 + 1 + 2 + 1 + 2);
    CHECK_INT(hs.too_large, 0);
    core_http_stop(s);
    /* Refusals are logged (once per 10 s), the token never. */
    char *lines = log_take(&lr);
    CHECK(strstr(lines, "bearer token: 401"));
    CHECK(strstr(lines, "from 127.0.0.1:"));
    CHECK(strstr(lines, "(plain HTTP, bearer token)"));
    CHECK(!strstr(lines, "s3cr3t"));
    CHECK(!strstr(lines, "may be read by group"));
    free(lines);
    core_buf_free(&lr.text);
    free(tf);
}

TEST(http_token_file_errors_name_the_file)
{
    core_http *s = NULL;
    char why[512] = "";
    core_http_opts o = {.listen = "127.0.0.1:0"};
    o.token_file = "/nonexistent/token";
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), -ENOENT);
    CHECK_STR(why, "listen 127.0.0.1:0: token_file /nonexistent/token: No such file or directory");

    char *empty = core_xstrdup(unit_write_str("empty", " \n\n"));
    o.token_file = empty;
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    char want[512];
    snprintf(want, sizeof want, "listen 127.0.0.1:0: token_file %s: empty", empty);
    CHECK_STR(why, want);

    /* Two lines, an inner space, a non-ASCII byte: the offset is told,
     * nothing of the text. */
    const char *bad[] = {"first-secret\nsecond-secret\n", "half secret\n",
                         "s\xc3\xa9"
                         "cret"};
    for (size_t i = 0; i < 3; i++) {
        char *p = core_xstrdup(unit_write_str("bad", bad[i]));
        o.token_file = p;
        CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
        CHECK(strstr(why, p));
        CHECK(strstr(why, ": byte "));
        CHECK(!strstr(why, "secret"));
        CHECK(!strstr(why, "cret"));
        free(p);
    }
    CHECK(!s);

    /* A token file others may read: a warning, and it works. */
    log_rec lr = {.mu = PTHREAD_MUTEX_INITIALIZER};
    char *open_tf = core_xstrdup(unit_write_str("open-token", TOKEN "\n"));
    CHECK_OK(chmod(open_tf, 0644));
    o.token_file = open_tf;
    o.log = (core_logger){log_keep, &lr, CORE_LOG_DEBUG};
    CHECK_OK(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why));
    core_http_stop(s);
    char *lines = log_take(&lr);
    CHECK(strstr(lines, "may be read by group or others (mode 0644)"));
    CHECK(!strstr(lines, TOKEN));
    free(lines);
    core_buf_free(&lr.text);
    free(open_tf);
    free(empty);
}

TEST(http_tls_with_token_and_curl)
{
    char *cert, *key, *tf = unit_token_file(TOKEN "\n");
    unit_make_cert("srv", &cert, &key);
    echo_state st = {0};
    log_rec lr = {.mu = PTHREAD_MUTEX_INITIALIZER};
    core_http_opts o = {.listen = "127.0.0.1:0",
                        .max_body = 1000,
                        .token_file = tf,
                        .tls_cert = cert,
                        .tls_key = key,
                        .log = {log_keep, &lr, CORE_LOG_INFO}};
    core_http *s = NULL;
    char why[512] = "";
    if (core_http_start(&o, echo_handler, &st, &s, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "core_http_start: %s", why);
    const char *addr = core_http_address(s);
    const char *port = strrchr(addr, ':') + 1;

    char cmd[4096];
    /* Verified against the certificate, by IP and by name; 401 without the
     * token; plain HTTP and TLS 1.1 get no answer at all. */
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code} ' --cacert '%s' https://%s/t; "
             "curl -s -w ' %%{http_code} ' --cacert '%s' -H 'Authorization: Bearer %s' "
             "-d hello https://%s/t; "
             "curl -s -o /dev/null -w '%%{http_code} ' --cacert '%s' -H 'Authorization: Bearer "
             "%s' https://localhost:%s/t; "
             "curl -s -o /dev/null -w '%%{http_code} ' http://%s/t; "
             "curl -s -o /dev/null -w '%%{http_code} ' https://%s/t; "
             "curl -s -o /dev/null -w '%%{http_code}' --cacert '%s' --tlsv1.1 --tls-max 1.1 "
             "-H 'Authorization: Bearer %s' https://%s/t",
             cert, addr, cert, TOKEN, addr, cert, TOKEN, port, addr, addr, cert, TOKEN, addr);
    char *out = run(cmd);
    printf("  curl: %s\n", out);
    CHECK(strncmp(out, "401 method=POST\npath=/t\n", 24) == 0);
    CHECK(strstr(out, "len=5\nhello 200 200 000 000 000"));
    free(out);

    /* The body limit over TLS: by Content-Length, and chunked (the 413
     * comes when the body ends: the socket is GnuTLS's). */
    const char *big = unit_write("big.txt", "0123456789012345678901234567890123456789", 40);
    core_buf body = {0};
    for (int i = 0; i < 300; i++)
        core_buf_puts(&body, "0123456789");
    big = unit_write("big.txt", body.data, body.len);
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code} ' --cacert '%s' -H 'Authorization: Bearer "
             "%s' --data-binary @%s https://%s/b; "
             "curl -s -o /dev/null -w '%%{http_code}' --cacert '%s' -H 'Authorization: Bearer "
             "%s' -H 'Transfer-Encoding: chunked' --data-binary @%s https://%s/b",
             cert, TOKEN, big, addr, cert, TOKEN, big, addr);
    out = run(cmd);
    CHECK_STR(out, "413 413");
    free(out);
    core_buf_free(&body);
    CHECK_INT(atomic_load(&st.calls), 2);
    /* Still serving. */
    snprintf(cmd, sizeof cmd,
             "curl -s -o /dev/null -w '%%{http_code}' --cacert '%s' -H 'Authorization: Bearer %s' "
             "https://%s/after",
             cert, TOKEN, addr);
    out = run(cmd);
    CHECK_STR(out, "200");
    free(out);
    core_http_stop(s);
    char *lines = log_take(&lr);
    CHECK(strstr(lines, "(HTTPS, bearer token)"));
    CHECK(!strstr(lines, TOKEN));
    free(lines);
    core_buf_free(&lr.text);
    free(cert);
    free(key);
    free(tf);
}

TEST(http_tls_errors_name_the_file)
{
    char *cert, *key, *cert2, *key2;
    unit_make_cert("a", &cert, &key);
    unit_make_cert("b", &cert2, &key2);
    core_http *s = NULL;
    char why[1024] = "", want[1024];
    core_http_opts o = {.listen = "127.0.0.1:0", .tls_cert = cert};
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    snprintf(want, sizeof want, "listen 127.0.0.1:0: tls_cert %s given without tls_key", cert);
    CHECK_STR(why, want);
    o = (core_http_opts){.listen = "127.0.0.1:0", .tls_key = key};
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    snprintf(want, sizeof want, "listen 127.0.0.1:0: tls_key %s given without tls_cert", key);
    CHECK_STR(why, want);

    o = (core_http_opts){.listen = "127.0.0.1:0", .tls_cert = "/nonexistent.crt", .tls_key = key};
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), -ENOENT);
    CHECK_STR(why, "listen 127.0.0.1:0: tls_cert /nonexistent.crt: No such file or directory");
    o.tls_cert = cert;
    o.tls_key = "/nonexistent.key";
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), -ENOENT);
    CHECK_STR(why, "listen 127.0.0.1:0: tls_key /nonexistent.key: No such file or directory");

    /* The key where the certificate should be, and the other way round. */
    o.tls_cert = key;
    o.tls_key = key;
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, key));
    CHECK(strstr(why, "no PEM certificate"));
    o.tls_cert = cert;
    o.tls_key = cert;
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "no PEM private key"));

    /* A key that is not the certificate's: GnuTLS says so. */
    o.tls_key = key2;
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    printf("  mismatch: %s\n", why);
    snprintf(want, sizeof want, "listen 127.0.0.1:0: tls_cert %s, tls_key %s: ", cert, key2);
    CHECK(strncmp(why, want, strlen(want)) == 0);
    CHECK(strstr(why, "do not match"));

    /* An encrypted key. */
    char enc[1024], cmd[4096];
    snprintf(enc, sizeof enc, "%s/enc.key", unit_tmpdir());
    snprintf(cmd, sizeof cmd, "openssl pkey -in '%s' -out '%s' -aes256 -passout pass:pw", key, enc);
    CHECK_INT(system(cmd), 0);
    o.tls_key = enc;
    CHECK_INT(core_http_start(&o, echo_handler, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, enc));
    CHECK(strstr(why, "the key is encrypted"));
    CHECK(!s);
    free(cert);
    free(key);
    free(cert2);
    free(key2);
}

/* ------------------------------------------------------------------ */
/* Metrics                                                             */
/* ------------------------------------------------------------------ */

TEST(metrics_render_exact)
{
    sink_metrics *m = sink_metrics_new();
    sink_counter *c1 =
        sink_metrics_counter(m, "pmrag_events_total", "Events received.", "source=\"otlp_http\"");
    sink_gauge *g =
        sink_metrics_gauge(m, "pmrag_queue_depth", "Events waiting.\nA back\\slash.", NULL);
    sink_counter *c2 =
        sink_metrics_counter(m, "pmrag_events_total", "not shown", "source=\"kafka\"");
    const double bounds[] = {0.25, 0.5, 1, 2.5};
    sink_histogram *h =
        sink_metrics_histogram(m, "pmrag_latency_seconds", "Latency.", "stage=\"ppr\"", bounds, 4);
    const double b2[] = {1e-3};
    sink_histogram *h2 = sink_metrics_histogram(m, "pmrag_commit_seconds", "Commits.", "", b2, 1);
    sink_gauge *g2 = sink_metrics_gauge(m, "pmrag_odd", "Odd values.", "k=\"a\"");
    sink_gauge *g3 = sink_metrics_gauge(m, "pmrag_odd", "", "k=\"b\"");
    /* The same name and labels give the same handle. */
    CHECK(sink_metrics_counter(m, "pmrag_events_total", "again", "source=\"kafka\"") == c2);

    sink_counter_add(c1, 5);
    sink_counter_add(c2, 3);
    sink_counter_add(c2, 0);
    sink_gauge_set(g, 2.5);
    sink_gauge_set(g2, NAN);
    sink_gauge_set(g3, -INFINITY);
    /* le is inclusive: 0.25 goes into the 0.25 bucket. */
    const double obs[] = {0.125, 0.25, 0.5, 2, 10};
    for (size_t i = 0; i < 5; i++)
        sink_histogram_observe(h, obs[i]);
    sink_histogram_observe(h2, 0.0625);
    CHECK_INT(sink_counter_get(c2), 3);

    core_buf out = {0};
    sink_metrics_render(m, &out);
    const char *want = "# HELP pmrag_events_total Events received.\n"
                       "# TYPE pmrag_events_total counter\n"
                       "pmrag_events_total{source=\"otlp_http\"} 5\n"
                       "pmrag_events_total{source=\"kafka\"} 3\n"
                       "# HELP pmrag_queue_depth Events waiting.\\nA back\\\\slash.\n"
                       "# TYPE pmrag_queue_depth gauge\n"
                       "pmrag_queue_depth 2.5\n"
                       "# HELP pmrag_latency_seconds Latency.\n"
                       "# TYPE pmrag_latency_seconds histogram\n"
                       "pmrag_latency_seconds_bucket{stage=\"ppr\",le=\"0.25\"} 2\n"
                       "pmrag_latency_seconds_bucket{stage=\"ppr\",le=\"0.5\"} 3\n"
                       "pmrag_latency_seconds_bucket{stage=\"ppr\",le=\"1\"} 3\n"
                       "pmrag_latency_seconds_bucket{stage=\"ppr\",le=\"2.5\"} 4\n"
                       "pmrag_latency_seconds_bucket{stage=\"ppr\",le=\"+Inf\"} 5\n"
                       "pmrag_latency_seconds_sum{stage=\"ppr\"} 12.875\n"
                       "pmrag_latency_seconds_count{stage=\"ppr\"} 5\n"
                       "# HELP pmrag_commit_seconds Commits.\n"
                       "# TYPE pmrag_commit_seconds histogram\n"
                       "pmrag_commit_seconds_bucket{le=\"0.001\"} 0\n"
                       "pmrag_commit_seconds_bucket{le=\"+Inf\"} 1\n"
                       "pmrag_commit_seconds_sum 0.0625\n"
                       "pmrag_commit_seconds_count 1\n"
                       "# HELP pmrag_odd Odd values.\n"
                       "# TYPE pmrag_odd gauge\n"
                       "pmrag_odd{k=\"a\"} NaN\n"
                       "pmrag_odd{k=\"b\"} -Inf\n";
    CHECK_STR(out.data, want);
    core_buf_free(&out);
    sink_metrics_free(m);
}

typedef struct hammer_arg {
    sink_counter *c;
    sink_gauge *g;
    sink_histogram *h;
} hammer_arg;

static void *hammer(void *p)
{
    hammer_arg *a = p;
    for (int i = 0; i < 100000; i++) {
        sink_counter_add(a->c, 1);
        sink_gauge_add(a->g, 1.0);
        sink_histogram_observe(a->h, (i & 1) ? 0.5 : 2.0);
    }
    return NULL;
}

TEST(metrics_concurrent_updates_are_exact)
{
    sink_metrics *m = sink_metrics_new();
    const double bounds[] = {1};
    hammer_arg a = {
        sink_metrics_counter(m, "t_total", "T.", NULL),
        sink_metrics_gauge(m, "t_gauge", "G.", NULL),
        sink_metrics_histogram(m, "t_seconds", "H.", NULL, bounds, 1),
    };
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        CHECK_INT(pthread_create(&th[i], NULL, hammer, &a), 0);
    /* Scrapes while the updates go on: each is self-consistent. */
    for (int i = 0; i < 50; i++) {
        core_buf out = {0};
        sink_metrics_render(m, &out);
        const char *inf = strstr(out.data, "t_seconds_bucket{le=\"+Inf\"} ");
        const char *cnt = strstr(out.data, "t_seconds_count ");
        CHECK(inf && cnt);
        CHECK_INT(atoll(inf + strlen("t_seconds_bucket{le=\"+Inf\"} ")),
                  atoll(cnt + strlen("t_seconds_count ")));
        core_buf_free(&out);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK_INT(sink_counter_get(a.c), 400000);
    core_buf out = {0};
    sink_metrics_render(m, &out);
    CHECK(strstr(out.data, "\nt_total 400000\n"));
    CHECK(strstr(out.data, "\nt_gauge 400000\n"));
    CHECK(strstr(out.data, "\nt_seconds_bucket{le=\"1\"} 200000\n"));
    CHECK(strstr(out.data, "\nt_seconds_bucket{le=\"+Inf\"} 400000\n"));
    CHECK(strstr(out.data, "\nt_seconds_sum 500000\n"));
    CHECK(strstr(out.data, "\nt_seconds_count 400000\n"));
    core_buf_free(&out);
    sink_metrics_free(m);
}

/* ------------------------------------------------------------------ */
/* The API                                                             */
/* ------------------------------------------------------------------ */

typedef struct api_state {
    sink_metrics *m;
    _Atomic bool ready;
} api_state;

static int api_get_case(void *ud, const char *id, core_buf *json)
{
    (void)ud;
    if (strcmp(id, "boom") == 0)
        return -EIO;
    if (strcmp(id, "known") != 0 && strcmp(id, "a/b c") != 0)
        return CORE_ENOTFOUND;
    core_buf_puts(json, "{\"case_id\":");
    core_buf_json_str(json, id, strlen(id));
    core_buf_puts(json, "}");
    return 0;
}

static int api_query(void *ud, const char *body, size_t len, core_buf *json, char *why,
                     size_t whylen)
{
    (void)ud;
    if (len == 4 && memcmp(body, "good", 4) == 0) {
        core_buf_puts(json, "{\"ranked\":[]}");
        return 0;
    }
    if (len == 5 && memcmp(body, "usage", 5) == 0) {
        snprintf(why, whylen, "field 'k': must be 1..100");
        return CORE_EUSAGE;
    }
    if (len == 4 && memcmp(body, "fail", 4) == 0)
        return -ENOMEM;
    snprintf(why, whylen, "byte 0: expected '{'");
    return CORE_EFORMAT;
}

static void api_metrics(void *ud, core_buf *text)
{
    api_state *st = ud;
    sink_metrics_render(st->m, text);
}

static bool api_ready(void *ud, core_buf *why)
{
    api_state *st = ud;
    if (atomic_load(&st->ready))
        return true;
    core_buf_puts(why, "graph not loaded");
    return false;
}

TEST(api_routes_and_error_codes)
{
    api_state st = {.m = sink_metrics_new()};
    sink_counter_add(sink_metrics_counter(st.m, "pmrag_up_total", "Up.", NULL), 1);
    sink_api_ops ops = {.get_case = api_get_case,
                        .query = api_query,
                        .metrics = api_metrics,
                        .ready = api_ready,
                        .ud = &st};
    sink_api *a = NULL;
    char why[256] = "";
    sink_api_opts ao = {.listen = "127.0.0.1:0"};
    CHECK_OK(sink_api_start(&ao, &ops, &a, why, sizeof why));
    const char *addr = sink_api_address(a);
    http_res r;

    request(addr, "GET", "/livez", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "ok");
    res_free(&r);
    request(addr, "HEAD", "/livez", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    request(addr, "POST", "/livez", NULL, "", 0, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(res_header(&r, "Allow"), "GET, HEAD");
    CHECK_STR(res_header(&r, "Content-Type"), "application/json");
    CHECK_STR(r.body.data, "{\"error\":\"method not allowed\"}\n");
    res_free(&r);

    request(addr, "GET", "/readyz", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 503);
    CHECK_STR(r.body.data, "graph not loaded");
    res_free(&r);
    atomic_store(&st.ready, true);
    request(addr, "GET", "/readyz", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "ok");
    res_free(&r);

    request(addr, "GET", "/metrics", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(res_header(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    CHECK_STR(r.body.data, "# HELP pmrag_up_total Up.\n# TYPE pmrag_up_total counter\n"
                           "pmrag_up_total 1\n");
    res_free(&r);
    request(addr, "DELETE", "/metrics", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 405);
    res_free(&r);

    request(addr, "GET", "/v1/cases/known", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(res_header(&r, "Content-Type"), "application/json");
    CHECK_STR(r.body.data, "{\"case_id\":\"known\"}");
    res_free(&r);
    request(addr, "GET", "/v1/cases/a%2Fb%20c", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "{\"case_id\":\"a/b c\"}");
    res_free(&r);
    request(addr, "GET", "/v1/cases/nobody", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 404);
    CHECK_STR(r.body.data, "{\"error\":\"case 'nobody' not found\"}\n");
    res_free(&r);
    request(addr, "GET", "/v1/cases/boom", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 500);
    CHECK(strstr(r.body.data, "\"error\":\"case 'boom': "));
    res_free(&r);
    request(addr, "GET", "/v1/cases/bad%zz", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 400);
    res_free(&r);
    request(addr, "GET", "/v1/cases/nul%00", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 400);
    res_free(&r);
    request(addr, "GET", "/v1/cases/", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 404);
    res_free(&r);
    request(addr, "PUT", "/v1/cases/known", NULL, "x", 1, &r);
    CHECK_INT(r.status, 405);
    res_free(&r);

    request(addr, "POST", "/v1/query", NULL, "good", 4, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "{\"ranked\":[]}");
    res_free(&r);
    request(addr, "POST", "/v1/query", NULL, "{bad", 4, &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.body.data, "{\"error\":\"byte 0: expected '{'\"}\n");
    res_free(&r);
    request(addr, "POST", "/v1/query", NULL, "usage", 5, &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(r.body.data, "{\"error\":\"field 'k': must be 1..100\"}\n");
    res_free(&r);
    request(addr, "POST", "/v1/query", NULL, "fail", 4, &r);
    CHECK_INT(r.status, 500);
    res_free(&r);
    request(addr, "GET", "/v1/query", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(res_header(&r, "Allow"), "POST");
    res_free(&r);

    request(addr, "GET", "/nope", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 404);
    CHECK_STR(r.body.data, "{\"error\":\"not found\"}\n");
    res_free(&r);

    sink_api_stop(a);
    sink_metrics_free(st.m);
}

TEST(api_listen_error_and_null_ops)
{
    sink_api *a = NULL;
    char why[256] = "";
    sink_api_opts ao = {.listen = "nonsense"};
    CHECK_INT(sink_api_start(&ao, NULL, &a, why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "listen nonsense: not host:port");
    ao.listen = "127.0.0.1:0";
    CHECK_OK(sink_api_start(&ao, NULL, &a, why, sizeof why));
    http_res r;
    request(sink_api_address(a), "GET", "/readyz", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    request(sink_api_address(a), "GET", "/v1/cases/x", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 404);
    res_free(&r);
    sink_api_stop(a);
}

TEST(api_token_spares_health_and_optionally_metrics)
{
    char *tf = unit_token_file(TOKEN "\n");
    api_state st = {.m = sink_metrics_new(), .ready = true};
    sink_api_ops ops = {.get_case = api_get_case,
                        .query = api_query,
                        .metrics = api_metrics,
                        .ready = api_ready,
                        .ud = &st};
    for (int metrics_open = 0; metrics_open < 2; metrics_open++) {
        sink_api *a = NULL;
        char why[256] = "";
        sink_api_opts ao = {
            .listen = "127.0.0.1:0", .token_file = tf, .metrics_open = metrics_open};
        CHECK_OK(sink_api_start(&ao, &ops, &a, why, sizeof why));
        const char *addr = sink_api_address(a);
        const char *auth = "Authorization: Bearer " TOKEN "\r\n";
        http_res r;
        request(addr, "GET", "/livez", NULL, NULL, 0, &r);
        CHECK_INT(r.status, 200);
        res_free(&r);
        request(addr, "GET", "/readyz", NULL, NULL, 0, &r);
        CHECK_INT(r.status, 200);
        res_free(&r);
        request(addr, "GET", "/metrics", NULL, NULL, 0, &r);
        CHECK_INT(r.status, metrics_open ? 200 : 401);
        res_free(&r);
        request(addr, "GET", "/metrics", auth, NULL, 0, &r);
        CHECK_INT(r.status, 200);
        res_free(&r);
        request(addr, "GET", "/v1/cases/known", NULL, NULL, 0, &r);
        CHECK_INT(r.status, 401);
        CHECK(res_header(&r, "WWW-Authenticate"));
        res_free(&r);
        request(addr, "GET", "/v1/cases/known", auth, NULL, 0, &r);
        CHECK_INT(r.status, 200);
        CHECK_STR(r.body.data, "{\"case_id\":\"known\"}");
        res_free(&r);
        request(addr, "POST", "/v1/query", "Authorization: Bearer nope\r\n", "good", 4, &r);
        CHECK_INT(r.status, 401);
        res_free(&r);
        request(addr, "POST", "/v1/query", auth, "good", 4, &r);
        CHECK_INT(r.status, 200);
        res_free(&r);
        /* Unknown paths too: nothing tells a client without the token
         * which routes exist. */
        request(addr, "GET", "/nope", NULL, NULL, 0, &r);
        CHECK_INT(r.status, 401);
        res_free(&r);
        sink_api_stop(a);
    }
    sink_metrics_free(st.m);
    free(tf);
}

/* ------------------------------------------------------------------ */
/* The OTLP/HTTP receiver                                              */
/* ------------------------------------------------------------------ */

typedef struct otlp_rec {
    pthread_mutex_t mu;
    int ret; /* what the batch function returns */
    int calls;
    core_buf seen;                 /* "kind case activity time k=v,...\n" per event */
    uint8_t id[INGEST_REQUEST_ID]; /* of the last request */
} otlp_rec;

static int otlp_batch(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                      const uint8_t *id)
{
    otlp_rec *r = ud;
    pthread_mutex_lock(&r->mu);
    r->calls++;
    memcpy(r->id, id, INGEST_REQUEST_ID);
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(&r->seen, "%s %s %s %lld", kind == INGEST_OTLP_TRACES ? "T" : "L",
                        evs[i].case_id, evs[i].activity, (long long)evs[i].time_ns);
        for (uint32_t a = 0; a < evs[i].nattrs; a++)
            core_buf_printf(&r->seen, "%s%s=%s", a ? "," : " ", evs[i].attrs[a].key,
                            evs[i].attrs[a].val);
        core_buf_putc(&r->seen, '\n');
    }
    int ret = r->ret;
    pthread_mutex_unlock(&r->mu);
    return ret;
}

/* The recorder is written by pool threads: the test reads it under its
 * lock (the HTTP round trip orders it too, but sanitizers do not see
 * that). rec_take returns the events seen so far (caller frees) and
 * forgets them. */
static char *rec_take(otlp_rec *r)
{
    pthread_mutex_lock(&r->mu);
    char *s = core_xstrdup(r->seen.data ? r->seen.data : "");
    core_buf_reset(&r->seen);
    pthread_mutex_unlock(&r->mu);
    return s;
}

static int rec_calls(otlp_rec *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->calls;
    pthread_mutex_unlock(&r->mu);
    return n;
}

/* The id of the last request, as 32 hex digits in out[33]. */
static void rec_id(otlp_rec *r, char *out)
{
    pthread_mutex_lock(&r->mu);
    for (int i = 0; i < INGEST_REQUEST_ID; i++)
        snprintf(out + 2 * i, 3, "%02x", r->id[i]);
    pthread_mutex_unlock(&r->mu);
}

static void rec_set_ret(otlp_rec *r, int ret)
{
    pthread_mutex_lock(&r->mu);
    r->ret = ret;
    pthread_mutex_unlock(&r->mu);
}

static ingest_otlp_http *otlp_start(otlp_rec *rec, size_t max_body)
{
    pthread_mutex_init(&rec->mu, NULL);
    ingest_otlp_recv_opts o = {.listen = "127.0.0.1:0", .max_body = max_body};
    ingest_otlp_http *s = NULL;
    char why[256] = "";
    int rc = ingest_otlp_http_start(&o, otlp_batch, rec, &s, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "ingest_otlp_http_start: %s", why);
    return s;
}

static void gzip_buf(const void *p, size_t n, core_buf *out)
{
    z_stream zs = {0};
    CHECK_INT(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    uLong bound = deflateBound(&zs, (uLong)n);
    char *dst = malloc(bound);
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    zs.next_out = (Bytef *)dst;
    zs.avail_out = (uInt)bound;
    CHECK_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
    core_buf_append(out, dst, zs.total_out);
    deflateEnd(&zs);
    free(dst);
}

static const char *json_traces =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{"
    "\"stringValue\":\"shop\"}}]},\"scopeSpans\":[{\"spans\":["
    "{\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"spanId\":\"1112131415161718\","
    "\"name\":\"checkout\",\"startTimeUnixNano\":\"1700000000000000000\",\"attributes\":["
    "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"c1\"}}]},"
    "{\"traceId\":\"0102030405060708090a0b0c0d0e0f10\",\"spanId\":\"2122232425262728\","
    "\"name\":\"pay\",\"startTimeUnixNano\":\"1700000001000000000\",\"attributes\":["
    "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"c1\"}}]}"
    "@@]}]}]}";

static const char *json_logs =
    "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"timeUnixNano\":"
    "\"1700000000000000000\",\"body\":{\"stringValue\":\"order placed\"},\"attributes\":[{"
    "\"key\":\"session.id\",\"value\":{\"stringValue\":\"sess-9\"}}]}@@]}]}]}";

/* A span with neither a case id nor a trace id: rejected on its own. */
static const char *orphan_span = ",{\"name\":\"orphan\"}";
static const char *orphan_log = ",{\"body\":{\"stringValue\":\"orphan\"}}";

/* The template with its "@@" replaced by extra. */
static void make_json(const char *tmpl, const char *extra, core_buf *out)
{
    const char *at = strstr(tmpl, "@@");
    CHECK(at);
    core_buf_append(out, tmpl, (size_t)(at - tmpl));
    core_buf_puts(out, extra);
    core_buf_puts(out, at + 2);
}

static void make_pb(core_buf *out)
{
    const ingest_attr attrs[] = {{"http.route", "/cart"}};
    const ingest_event evs[] = {
        {.case_id = "p1",
         .activity = "add to cart",
         .time_ns = 1700000000000000000ll,
         .attrs = attrs,
         .nattrs = 1},
        {.case_id = "p1", .activity = "checkout", .time_ns = 1700000002000000000ll},
        {.case_id = "p2", .activity = "browse", .time_ns = INGEST_NO_TIME},
    };
    CHECK_OK(unit_otlp_spans(evs, 3, "shop", out));
}

static const char *ct_pb = "Content-Type: application/x-protobuf\r\n";
static const char *ct_json = "Content-Type: application/json\r\n";

TEST(otlp_protobuf_json_and_gzip_bodies_reach_the_batch)
{
    otlp_rec rec = {0};
    ingest_otlp_http *s = otlp_start(&rec, 0);
    const char *addr = ingest_otlp_http_address(s);
    http_res r;

    /* Protobuf: full success is an empty ExportTraceServiceResponse. */
    core_buf pb = {0};
    make_pb(&pb);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(res_header(&r, "Content-Type"), "application/x-protobuf");
    CHECK_INT(r.body.len, 0);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 1);
    /* Request ids: one per body and kind, whatever the encoding on the
     * wire (the duplicate check of retried requests). */
    char id_pb[33], id_js[33], id_lg[33], id_gz[33];
    rec_id(&rec, id_pb);
    char *seen = rec_take(&rec);
    CHECK(strstr(seen, "T p1 add to cart 1700000000000000000 http.route=/cart,"));
    CHECK(strstr(seen, "\nT p1 checkout 1700000002000000000 "));
    CHECK(strstr(seen, "\nT p2 browse "));
    free(seen);

    /* JSON, with a charset parameter. */
    core_buf js = {0};
    make_json(json_traces, "", &js);
    request(addr, "POST", "/v1/traces", "Content-Type: application/json; charset=utf-8\r\n",
            js.data, js.len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(res_header(&r, "Content-Type"), "application/json");
    CHECK_STR(r.body.data, "{}");
    res_free(&r);
    rec_id(&rec, id_js);
    CHECK(strcmp(id_js, id_pb) != 0);
    seen = rec_take(&rec);
    CHECK(strncmp(seen, "T c1 checkout 1700000000000000000 case.id=c1", 44) == 0);
    CHECK(strstr(seen, "\nT c1 pay 1700000001000000000 "));
    free(seen);

    /* Logs. */
    core_buf lg = {0};
    make_json(json_logs, "", &lg);
    request(addr, "POST", "/v1/logs", ct_json, lg.data, lg.len, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "{}");
    res_free(&r);
    rec_id(&rec, id_lg);
    seen = rec_take(&rec);
    CHECK(strncmp(seen, "L sess-9 order placed 1700000000000000000", 41) == 0);
    free(seen);
    CHECK(strcmp(id_lg, id_pb) != 0 && strcmp(id_lg, id_js) != 0);

    /* gzip. */
    core_buf gz = {0};
    gzip_buf(pb.data, pb.len, &gz);
    request(addr, "POST", "/v1/traces",
            "Content-Type: application/x-protobuf\r\n"
            "Content-Encoding: gzip\r\n",
            gz.data, gz.len, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    rec_id(&rec, id_gz);
    CHECK_STR(id_gz, id_pb);
    seen = rec_take(&rec);
    CHECK(strstr(seen, "T p2 browse "));
    free(seen);

    /* As the OpenTelemetry JS exporters send: chunked, gzip, no
     * Content-Length (curl). */
    const char *path = unit_write("traces.pb.gz", gz.data, gz.len);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "curl -sS -o /dev/null -w '%%{http_code}' -H 'Transfer-Encoding: chunked' "
             "-H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' "
             "--data-binary @%s http://%s/v1/traces",
             path, addr);
    char *out = run(cmd);
    CHECK_STR(out, "200");
    free(out);
    seen = rec_take(&rec);
    CHECK(strstr(seen, "T p1 checkout "));
    free(seen);

    /* A request without records: 200, and no call. */
    int calls = rec_calls(&rec);
    request(addr, "POST", "/v1/traces", ct_json, "{}", 2, &r);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body.data, "{}");
    res_free(&r);
    CHECK_INT(rec_calls(&rec), calls);

    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.requests, 6);
    CHECK_INT(st.accepted_events, 3 + 2 + 1 + 3 + 3);
    CHECK_INT(st.rejected_events + st.bad_requests + st.too_large + st.unsupported + st.throttled,
              0);
    ingest_otlp_http_stop(s);
    core_buf_free(&pb);
    core_buf_free(&js);
    core_buf_free(&lg);
    core_buf_free(&gz);
    core_buf_free(&rec.seen);
}

TEST(otlp_client_errors)
{
    otlp_rec rec = {0};
    ingest_otlp_http *s = otlp_start(&rec, 0);
    const char *addr = ingest_otlp_http_address(s);
    http_res r;
    core_buf pb = {0};
    make_pb(&pb);

    request(addr, "POST", "/v1/traces", "Content-Type: text/plain\r\n", pb.data, pb.len, &r);
    CHECK_INT(r.status, 415);
    CHECK(strstr(r.body.data, "unsupported Content-Type 'text/plain'"));
    res_free(&r);
    request(addr, "POST", "/v1/traces", NULL, pb.data, pb.len, &r);
    CHECK_INT(r.status, 415);
    res_free(&r);
    request(addr, "POST", "/v1/traces",
            "Content-Type: application/x-protobuf\r\n"
            "Content-Encoding: br\r\n",
            pb.data, pb.len, &r);
    CHECK_INT(r.status, 415);
    CHECK(strstr(r.body.data, "Content-Encoding 'br'"));
    res_free(&r);

    /* Errors carry a google.rpc.Status in the request's encoding. */
    request(addr, "POST", "/v1/traces", ct_json, "{\"resourceSpans\":[", 18, &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(res_header(&r, "Content-Type"), "application/json");
    CHECK(strncmp(r.body.data, "{\"code\":3,\"message\":\"offset ", 28) == 0);
    res_free(&r);
    const char garbage[] = "\x0a\xff\xff\xff\x0f";
    request(addr, "POST", "/v1/traces", ct_pb, garbage, sizeof garbage - 1, &r);
    CHECK_INT(r.status, 400);
    CHECK_STR(res_header(&r, "Content-Type"), "application/x-protobuf");
    /* Status: code (field 1) 3, message (field 2). */
    CHECK(r.body.len > 4 && memcmp(r.body.data, "\x08\x03\x12", 3) == 0);
    CHECK(strstr(r.body.data, "offset"));
    res_free(&r);
    /* Logs sent as traces. */
    core_buf lg = {0};
    make_json(json_logs, "", &lg);
    request(addr, "POST", "/v1/traces", ct_json, lg.data, lg.len, &r);
    CHECK_INT(r.status, 400);
    res_free(&r);
    /* Broken gzip. */
    core_buf gz = {0};
    gzip_buf(pb.data, pb.len, &gz);
    gz.len -= 6;
    request(addr, "POST", "/v1/traces",
            "Content-Type: application/x-protobuf\r\n"
            "Content-Encoding: gzip\r\n",
            gz.data, gz.len, &r);
    CHECK_INT(r.status, 400);
    CHECK(strstr(r.body.data, "gzip: "));
    res_free(&r);

    request(addr, "POST", "/v1/metrics", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 404);
    res_free(&r);
    request(addr, "GET", "/v1/traces", NULL, NULL, 0, &r);
    CHECK_INT(r.status, 405);
    CHECK_STR(res_header(&r, "Allow"), "POST");
    res_free(&r);
    request(addr, "PUT", "/v1/logs", ct_json, "{}", 2, &r);
    CHECK_INT(r.status, 405);
    res_free(&r);

    CHECK_INT(rec_calls(&rec), 0);
    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.requests, 10);
    CHECK_INT(st.unsupported, 3);
    CHECK_INT(st.bad_requests, 7);
    CHECK_INT(st.accepted_events, 0);
    ingest_otlp_http_stop(s);
    core_buf_free(&pb);
    core_buf_free(&lg);
    core_buf_free(&gz);
}

TEST(otlp_too_large_on_the_wire_and_after_gzip)
{
    otlp_rec rec = {0};
    ingest_otlp_http *s = otlp_start(&rec, 1 << 20);
    const char *addr = ingest_otlp_http_address(s);
    http_res r;
    /* A gzip bomb: 8 MiB of JSON-ish spaces in a few KiB. */
    size_t n = (size_t)8 << 20;
    char *spaces = malloc(n);
    memset(spaces, ' ', n);
    spaces[0] = '{';
    spaces[n - 1] = '}';
    core_buf gz = {0};
    gzip_buf(spaces, n, &gz);
    CHECK(gz.len < 64 * 1024);
    request(addr, "POST", "/v1/traces",
            "Content-Type: application/json\r\n"
            "Content-Encoding: gzip\r\n",
            gz.data, gz.len, &r);
    CHECK_INT(r.status, 413);
    CHECK(strstr(r.body.data, "once decompressed"));
    res_free(&r);
    /* The same body uncompressed is over the limit on the wire. */
    request(addr, "POST", "/v1/traces", ct_json, spaces, n, &r);
    CHECK_INT(r.status, 413);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 0);
    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.too_large, 2);
    CHECK_INT(st.requests, 2);
    ingest_otlp_http_stop(s);
    free(spaces);
    core_buf_free(&gz);
}

TEST(otlp_backpressure_and_batch_errors)
{
    otlp_rec rec = {.ret = -EAGAIN};
    ingest_otlp_http *s = otlp_start(&rec, 0);
    const char *addr = ingest_otlp_http_address(s);
    http_res r;
    core_buf pb = {0};
    make_pb(&pb);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 503);
    CHECK_STR(res_header(&r, "Retry-After"), "1");
    res_free(&r);
    rec_set_ret(&rec, CORE_ELIMIT);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 429);
    CHECK_STR(res_header(&r, "Retry-After"), "1");
    res_free(&r);
    rec_set_ret(&rec, -EIO);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 500);
    CHECK(!res_header(&r, "Retry-After"));
    res_free(&r);
    rec_set_ret(&rec, 0);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 4);
    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.throttled, 2);
    CHECK_INT(st.accepted_events, 3);
    ingest_otlp_http_stop(s);
    core_buf_free(&pb);
    core_buf_free(&rec.seen);
}

TEST(otlp_partial_success)
{
    otlp_rec rec = {0};
    ingest_otlp_http *s = otlp_start(&rec, 0);
    const char *addr = ingest_otlp_http_address(s);
    http_res r;

    core_buf js = {0};
    make_json(json_traces, orphan_span, &js);
    request(addr, "POST", "/v1/traces", ct_json, js.data, js.len, &r);
    CHECK_INT(r.status, 200);
    CHECK(strncmp(r.body.data, "{\"partialSuccess\":{\"rejectedSpans\":\"1\",\"errorMessage\":\"",
                  55) == 0);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 1);
    char *seen = rec_take(&rec);
    CHECK(strstr(seen, "T c1 pay "));
    CHECK(!strstr(seen, "orphan"));
    free(seen);

    core_buf lg = {0};
    make_json(json_logs, orphan_log, &lg);
    request(addr, "POST", "/v1/logs", ct_json, lg.data, lg.len, &r);
    CHECK_INT(r.status, 200);
    CHECK(strncmp(r.body.data, "{\"partialSuccess\":{\"rejectedLogRecords\":\"1\"", 43) == 0);
    res_free(&r);

    /* Protobuf: good spans, then a resource with one span that has no ids
     * (repeated fields of concatenated messages add up). */
    core_buf pb = {0};
    make_pb(&pb);
    static const unsigned char orphan_pb[] = {0x0a, 0x0c, 0x12, 0x0a, 0x12, 0x08, 0x2a,
                                              0x06, 'o',  'r',  'p',  'h',  'a',  'n'};
    core_buf_append(&pb, orphan_pb, sizeof orphan_pb);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 200);
    /* ExportTraceServiceResponse{partial_success(1){rejected_spans(1): 1,
     * error_message(2): ...}} */
    CHECK(r.body.len > 6);
    CHECK_INT((unsigned char)r.body.data[0], 0x0a);
    CHECK_INT((unsigned char)r.body.data[2], 0x08);
    CHECK_INT((unsigned char)r.body.data[3], 0x01);
    CHECK_INT((unsigned char)r.body.data[4], 0x12);
    res_free(&r);

    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.rejected_events, 3);
    CHECK_INT(st.accepted_events, 2 + 1 + 3);
    ingest_otlp_http_stop(s);
    core_buf_free(&js);
    core_buf_free(&lg);
    core_buf_free(&pb);
    core_buf_free(&rec.seen);
}

TEST(otlp_listen_error)
{
    ingest_otlp_recv_opts o = {.listen = "nowhere"};
    ingest_otlp_http *s = NULL;
    char why[256] = "";
    CHECK_INT(ingest_otlp_http_start(&o, otlp_batch, NULL, &s, why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "listen nowhere: not host:port");
    CHECK(!s);
}

TEST(otlp_token_401_is_final)
{
    char *tf = unit_token_file(TOKEN "\n");
    otlp_rec rec = {0};
    pthread_mutex_init(&rec.mu, NULL);
    ingest_otlp_recv_opts o = {.listen = "127.0.0.1:0", .token_file = tf};
    ingest_otlp_http *s = NULL;
    char why[256] = "";
    CHECK_OK(ingest_otlp_http_start(&o, otlp_batch, &rec, &s, why, sizeof why));
    const char *addr = ingest_otlp_http_address(s);
    core_buf pb = {0};
    make_pb(&pb);
    http_res r;
    /* OTLP/HTTP: 401 is not retryable, so no Retry-After. */
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 401);
    CHECK(!res_header(&r, "Retry-After"));
    CHECK_STR(res_header(&r, "WWW-Authenticate"), "Bearer realm=\"pmrag\"");
    res_free(&r);
    request(addr, "POST", "/v1/logs",
            "Content-Type: application/json\r\n"
            "Authorization: Bearer wrong\r\n",
            "{}", 2, &r);
    CHECK_INT(r.status, 401);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 0);
    request(addr, "POST", "/v1/traces",
            "Content-Type: application/x-protobuf\r\nAuthorization: Bearer " TOKEN "\r\n", pb.data,
            pb.len, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 1);
    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.unauthorized, 2);
    CHECK_INT(st.requests, 3);
    CHECK_INT(st.accepted_events, 3);
    ingest_otlp_http_stop(s);
    core_buf_free(&pb);
    core_buf_free(&rec.seen);
    free(tf);
}

static atomic_bool g_busy;
static bool busy_flag(void *ud)
{
    (void)ud;
    return atomic_load(&g_busy);
}

/* A busy daemon refuses before decoding: 503 + Retry-After, the batch
 * function not called, even for a body that would not decode. */
TEST(otlp_busy_refuses_before_decoding)
{
    otlp_rec rec = {0};
    pthread_mutex_init(&rec.mu, NULL);
    ingest_otlp_recv_opts o = {.listen = "127.0.0.1:0", .busy = busy_flag};
    ingest_otlp_http *s = NULL;
    char why[256] = "";
    CHECK_OK(ingest_otlp_http_start(&o, otlp_batch, &rec, &s, why, sizeof why));
    const char *addr = ingest_otlp_http_address(s);
    core_buf pb = {0};
    make_pb(&pb);
    http_res r;
    atomic_store(&g_busy, true);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 503);
    CHECK_STR(res_header(&r, "Retry-After"), "1");
    res_free(&r);
    request(addr, "POST", "/v1/traces", ct_pb, "\xff\xff", 2, &r);
    CHECK_INT(r.status, 503);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 0);
    atomic_store(&g_busy, false);
    request(addr, "POST", "/v1/traces", ct_pb, pb.data, pb.len, &r);
    CHECK_INT(r.status, 200);
    res_free(&r);
    CHECK_INT(rec_calls(&rec), 1);
    ingest_otlp_http_stats st;
    ingest_otlp_http_get_stats(s, &st);
    CHECK_INT(st.throttled, 2);
    ingest_otlp_http_stop(s);
    core_buf_free(&pb);
    core_buf_free(&rec.seen);
}
