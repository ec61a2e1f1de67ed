/*
 * The OTLP/gRPC receiver (ingest.h): HTTP/2 by nghttp2, TLS by GnuTLS,
 * gRPC's framing and status trailers by us (otlp_grpc_frame.c).
 *
 * One I/O thread polls the listener, a wake-up pipe and every connection.
 * A connection feeds the bytes it reads to its nghttp2 server session
 * (nghttp2_session_mem_recv) and writes what the session has to send
 * (nghttp2_session_mem_send), through GnuTLS when TLS is on. nghttp2
 * calls back, on this thread, with a call's headers (checked as soon as
 * they are complete: token, method, content-type, path, encoding; a
 * refusal is answered then, without reading the message) and its DATA
 * (kept, up to max_body). When a call's request ends it goes to the pool:
 * a pool thread unframes, inflates, decodes and calls the batch function,
 * which may block for as long as the daemon takes to commit; the answer
 * comes back through a queue and a byte on the wake-up pipe, and the I/O
 * thread submits it. So a slow commit holds one pool thread and no socket.
 *
 * Ownership: a call (gstream) belongs to the I/O thread except while it
 * is queued for or held by the pool (in_pool): then the pool thread reads
 * its request and writes its answer, and the I/O thread touches nothing
 * of it but `closed`, which only the I/O thread reads later. A stream
 * nghttp2 closes meanwhile (the client reset it, the connection died) is
 * freed when it comes back; a connection with calls in the pool is
 * closed at once but freed when the last comes back (conn->in_pool).
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "otlp_grpc_int.h"
#include "otlp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define GRPC_DEFAULT_LISTEN "127.0.0.1:4317"
/* Calls in progress on one connection: each may hold up to max_body. */
#define GRPC_MAX_STREAMS 16
/* Flow-control windows: large enough that a big export is not paced by
 * round trips, small next to max_body times the streams. */
#define GRPC_STREAM_WINDOW (1 << 20)
#define GRPC_CONN_WINDOW (8 << 20)
/* Bytes taken from nghttp2 per write round: bounds the output buffer. */
#define GRPC_OUT_CHUNK ((size_t)256 << 10)
/* Longest grpc-message we send, before percent-encoding. */
#define GRPC_MESSAGE_MAX 512
/* After stop: how long answers may take to reach slow readers. */
#define GRPC_STOP_GRACE_NS 5000000000ull
/* The retry delay sent with UNAVAILABLE and a retryable RESOURCE_EXHAUSTED,
 * as the HTTP receiver's Retry-After. */
#define GRPC_RETRY_S 1

static const char TRACE_PATH[] = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
static const char LOGS_PATH[] = "/opentelemetry.proto.collector.logs.v1.LogsService/Export";

typedef struct gconn gconn;
typedef struct gstream gstream;

struct gstream {
    int32_t id;
    gconn *c;
    gstream *qnext;         /* in the pool's queue or the answers' queue */
    gstream *sprev, *snext; /* the connection's open streams */
    bool linked;            /* in that list */
    /* Request, as the headers said. */
    char method[8];
    char path[96]; /* cut for messages; compared only when it fits */
    bool path_long;
    char ctype[48];
    char enc[24]; /* grpc-encoding */
    bool auth_ok;
    ingest_otlp_kind kind;
    uint64_t t_headers;
    bool headers_done;
    bool ended; /* the client has ended its side */
    core_buf body;
    /* Answer. */
    bool answered; /* submitted (or decided: body no longer kept) */
    bool in_pool;
    bool closed; /* nghttp2 closed it while in the pool */
    int code;
    int http_status;
    unsigned retry_s;
    char msg[GRPC_MESSAGE_MAX + 1];
    core_buf resp; /* the framed response message (OK) */
    size_t resp_off;
};

struct gconn {
    ingest_otlp_grpc *s;
    int fd;
    char peer[64]; /* "ip:port" */
    char host[48]; /* "ip", for max_conns_per_addr */
    nghttp2_session *h2;
    gnutls_session_t tls;
    bool tls_done;     /* handshake finished */
    bool tls_want_out; /* the handshake waits to write */
    bool tls_retry;    /* a record send returned E_AGAIN: repeat it */
    core_buf out;      /* from nghttp2, not yet written */
    size_t out_off;
    uint64_t t_open, t_idle; /* opened; last time it had no call open */
    bool preface;            /* the client's SETTINGS came */
    bool got_request;        /* a call's headers were complete once */
    unsigned nopen;          /* streams open in nghttp2 */
    unsigned in_pool;        /* calls in the pool (keep the struct alive) */
    bool dead;               /* closed; freed when in_pool is 0 */
    bool bye;                /* GOAWAY sent: close once written */
    gstream *streams;
    gconn *prev, *next;
};

struct ingest_otlp_grpc {
    char addr[80];
    int lfd;
    int wake[2];
    ingest__otlp_recv rx; /* options, event counters, log limit */
    core_http_limits lim;
    core_creds creds; /* the token; the PEM texts only until setup_tls */
    gnutls_certificate_credentials_t cred;
    gnutls_priority_t prio;
    bool tls;
    nghttp2_session_callbacks *cbs;
    nghttp2_option *h2opt;

    /* I/O thread only. */
    gconn *conns; /* newest first */
    unsigned nconns;
    unsigned in_pool; /* calls in the pool, over every connection */
    pthread_t io;
    _Atomic bool stopping;

    /* The pool: calls to do (qhead) and answers to send (dhead), under qmu. */
    pthread_mutex_t qmu;
    pthread_cond_t qcv;
    gstream *qhead, *qtail, *dhead, *dtail;
    bool quit;
    pthread_t *workers;
    unsigned nworkers;

    _Atomic uint64_t requests, by_code[INGEST_GRPC_CODES], too_large, timed_out, evicted,
        refused_conns;
};

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void wake(ingest_otlp_grpc *s)
{
    char b = 1;
    /* A full pipe already holds a wake-up: nothing is lost. */
    ssize_t n = write(s->wake[1], &b, 1);
    (void)n;
}

/* ------------------------------------------------------------------ */
/* Answers                                                             */
/* ------------------------------------------------------------------ */

/* Sets the answer of a refused call (message as printf). */
static void decide(gstream *st, int code, unsigned retry_s, const char *fmt, ...) CORE_PRINTF(4, 5);
static void decide(gstream *st, int code, unsigned retry_s, const char *fmt, ...)
{
    st->code = code;
    st->retry_s = retry_s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
}

#define NV(n, v, vl)                                                                               \
    ((nghttp2_nv){(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, (vl), NGHTTP2_NV_FLAG_NONE})

static ssize_t resp_read(nghttp2_session *h2, int32_t sid, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *src, void *ud)
{
    (void)ud;
    gstream *st = src->ptr;
    size_t left = st->resp.len - st->resp_off;
    size_t n = left < length ? left : length;
    if (n)
        memcpy(buf, st->resp.data + st->resp_off, n);
    st->resp_off += n;
    if (st->resp_off == st->resp.len) {
        /* The status goes in trailers, after the message. */
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        nghttp2_nv tr[] = {NV("grpc-status", "0", 1)};
        if (nghttp2_submit_trailer(h2, sid, tr, 1) != 0)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    return (ssize_t)n;
}

/* Counts and logs the answer of a call, then submits it (I/O thread). */
static void answer(ingest_otlp_grpc *s, gstream *st)
{
    gconn *c = st->c;
    st->answered = true;
    count(&s->requests, 1);
    count(&s->by_code[st->code], 1);
    char more[64];
    if (st->code != INGEST__GRPC_OK && ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
        core_logf(&s->rx.log, st->code == INGEST__GRPC_INTERNAL ? CORE_LOG_WARN : CORE_LOG_NOTE,
                  "otlp-grpc: %s%s from %s (stream %d): %s: %s%s", st->path[0] ? st->path : "?",
                  st->path_long ? "..." : "", c->peer, (int)st->id, ingest_grpc_code_name(st->code),
                  st->msg, more);
    char status[4];
    int sl = snprintf(status, sizeof status, "%d", st->http_status ? st->http_status : 200);
    char code[4];
    int cl = snprintf(code, sizeof code, "%d", st->code);
    if (st->code == INGEST__GRPC_OK) {
        nghttp2_nv h[] = {NV(":status", status, (size_t)sl),
                          NV("content-type", "application/grpc", 16),
                          NV("grpc-accept-encoding", "identity,gzip", 13)};
        nghttp2_data_provider dp = {.source.ptr = st, .read_callback = resp_read};
        if (nghttp2_submit_response(c->h2, st->id, h, sizeof h / sizeof *h, &dp) != 0)
            nghttp2_submit_rst_stream(c->h2, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
        return;
    }
    /* Trailers-only: the status in the one HEADERS frame, which ends the
     * stream. */
    core_buf m = {0}, d = {0}, ri = {0};
    ingest__grpc_pct_encode(&m, st->msg, strlen(st->msg), GRPC_MESSAGE_MAX);
    nghttp2_nv h[7] = {NV(":status", status, (size_t)sl),
                       NV("content-type", "application/grpc", 16),
                       NV("grpc-status", code, (size_t)cl), NV("grpc-message", m.data, m.len)};
    size_t nh = 4;
    if (st->code == INGEST__GRPC_UNIMPLEMENTED && st->enc[0])
        h[nh++] = NV("grpc-accept-encoding", "identity,gzip", 13);
    if (st->retry_s) {
        /* The retry delay twice: in the Status details (what the OTLP
         * specification names, and the Collector reads) and alone in
         * google.rpc.retryinfo-bin (what the Python SDK reads). */
        ingest__grpc_status_details(&d, st->code, st->msg, st->retry_s);
        ingest__grpc_retry_info(&ri, st->retry_s);
        h[nh++] = NV("grpc-status-details-bin", d.data, d.len);
        h[nh++] = NV("google.rpc.retryinfo-bin", ri.data, ri.len);
    }
    if (nghttp2_submit_response(c->h2, st->id, h, nh, NULL) != 0)
        nghttp2_submit_rst_stream(c->h2, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_INTERNAL_ERROR);
    core_buf_free(&m);
    core_buf_free(&d);
    core_buf_free(&ri);
}

/* ------------------------------------------------------------------ */
/* The pool                                                            */
/* ------------------------------------------------------------------ */

/* One call's message, from its body to its answer (pool thread). */
static void run_call(ingest_otlp_grpc *s, gstream *st)
{
    char why[512] = "";
    if (s->rx.busy && s->rx.busy(s->rx.ud)) {
        decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S, "ingest queue full, retry later");
        return;
    }
    ingest__grpc_msg m;
    int code =
        ingest__grpc_unframe(st->body.data, st->body.len, s->rx.max_body, &m, why, sizeof why);
    if (code) {
        if (code == INGEST__GRPC_RESOURCE_EXHAUSTED)
            count(&s->too_large, 1);
        decide(st, code, 0, "%s", why);
        return;
    }
    if (m.compressed && strcmp(st->enc, "gzip") != 0) {
        decide(st, INGEST__GRPC_INTERNAL, 0,
               "compressed message without a grpc-encoding (gzip) to read it with");
        return;
    }
    /* Room for the decoder's reason and a prefix; decide() keeps what a
     * grpc-message may carry. */
    char msg[600];
    ingest_decode_result res;
    core_buf out = {0};
    ingest__otlp_outcome o =
        ingest__otlp_recv_message(&s->rx, st->kind, INGEST_ENC_PROTO, m.data, m.len, m.compressed,
                                  &out, &res, msg, sizeof msg);
    switch (o) {
    case INGEST__OTLP_ACCEPTED:
        break;
    case INGEST__OTLP_TOO_LARGE:
        count(&s->too_large, 1);
        decide(st, INGEST__GRPC_RESOURCE_EXHAUSTED, 0,
               "message larger than %zu bytes once decompressed (otlp.max_body)", s->rx.max_body);
        goto done;
    case INGEST__OTLP_BAD_MESSAGE:
        decide(st, INGEST__GRPC_INVALID_ARGUMENT, 0, "%s", msg);
        goto done;
    case INGEST__OTLP_QUEUE_FULL:
        decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S, "%s", msg);
        goto done;
    case INGEST__OTLP_RATE_LIMITED:
        decide(st, INGEST__GRPC_RESOURCE_EXHAUSTED, GRPC_RETRY_S, "%s", msg);
        goto done;
    case INGEST__OTLP_BAD_GZIP:
    case INGEST__OTLP_FAILED:
    case INGEST__OTLP_NOT_ACCEPTED:
    default:
        decide(st, INGEST__GRPC_INTERNAL, 0, "%s", msg);
        goto done;
    }
    char more[64];
    if (res.rejected && ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
        core_logf(&s->rx.log, CORE_LOG_NOTE, "otlp-grpc: %s from %s: %llu records rejected: %s%s",
                  st->path, st->c->peer, (unsigned long long)res.rejected, res.reject_reason, more);
    ingest__grpc_frame(&st->resp, out.data, out.len);
    st->code = INGEST__GRPC_OK;
done:
    core_buf_free(&out);
}

static void *worker_main(void *arg)
{
    ingest_otlp_grpc *s = arg;
    pthread_mutex_lock(&s->qmu);
    for (;;) {
        while (!s->qhead && !s->quit)
            pthread_cond_wait(&s->qcv, &s->qmu);
        if (!s->qhead)
            break;
        gstream *st = s->qhead;
        s->qhead = st->qnext;
        if (!s->qhead)
            s->qtail = NULL;
        pthread_mutex_unlock(&s->qmu);
        run_call(s, st);
        core_buf_free(&st->body);
        pthread_mutex_lock(&s->qmu);
        st->qnext = NULL;
        if (s->dtail)
            s->dtail->qnext = st;
        else
            s->dhead = st;
        s->dtail = st;
        wake(s);
    }
    pthread_mutex_unlock(&s->qmu);
    return NULL;
}

static void stream_free(gstream *st)
{
    core_buf_free(&st->body);
    core_buf_free(&st->resp);
    free(st);
}

/* Hands a complete call to the pool (I/O thread). */
static void dispatch(ingest_otlp_grpc *s, gstream *st)
{
    st->in_pool = true;
    st->c->in_pool++;
    s->in_pool++;
    pthread_mutex_lock(&s->qmu);
    st->qnext = NULL;
    if (s->qtail)
        s->qtail->qnext = st;
    else
        s->qhead = st;
    s->qtail = st;
    pthread_cond_signal(&s->qcv);
    pthread_mutex_unlock(&s->qmu);
}

/* ------------------------------------------------------------------ */
/* nghttp2 callbacks (I/O thread)                                      */
/* ------------------------------------------------------------------ */

static bool media_grpc(const char *ct)
{
    /* application/grpc, application/grpc+proto, each with parameters. */
    size_t n = strcspn(ct, "; \t");
    return (n == 16 && strncasecmp(ct, "application/grpc", 16) == 0) ||
           (n == 22 && strncasecmp(ct, "application/grpc+proto", 22) == 0);
}

static void copy_val(char *dst, size_t cap, const uint8_t *v, size_t n, bool *cut)
{
    if (n >= cap) {
        n = cap - 1;
        if (cut)
            *cut = true;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = v[i] >= 0x20 && v[i] < 0x7f ? (char)v[i] : '?';
    dst[n] = 0;
}

/* Takes a stream off its connection's list (once: nghttp2 closes it, or
 * the connection goes). */
static void stream_unlink(gstream *st)
{
    if (!st->linked)
        return;
    st->linked = false;
    if (st->sprev)
        st->sprev->snext = st->snext;
    else
        st->c->streams = st->snext;
    if (st->snext)
        st->snext->sprev = st->sprev;
    st->sprev = st->snext = NULL;
}

static int on_begin_headers(nghttp2_session *h2, const nghttp2_frame *f, void *ud)
{
    gconn *c = ud;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    gstream *st = core_xcalloc(1, sizeof *st);
    st->id = f->hd.stream_id;
    st->c = c;
    st->snext = c->streams;
    if (c->streams)
        c->streams->sprev = st;
    c->streams = st;
    st->linked = true;
    c->nopen++;
    nghttp2_session_set_stream_user_data(h2, st->id, st);
    return 0;
}

/* "Bearer <token>" (the scheme in any case) with the configured token. */
static bool token_ok(const ingest_otlp_grpc *s, const uint8_t *v, size_t n)
{
    if (n < 7 || strncasecmp((const char *)v, "bearer ", 7) != 0)
        return false;
    size_t i = 7;
    while (i < n && v[i] == ' ')
        i++;
    return core_ct_equal(v + i, n - i, s->creds.token, s->creds.token_len);
}

static int on_header(nghttp2_session *h2, const nghttp2_frame *f, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    (void)flags;
    gconn *c = ud;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    gstream *st = nghttp2_session_get_stream_user_data(h2, f->hd.stream_id);
    if (!st)
        return 0;
#define IS(lit) (namelen == sizeof(lit) - 1 && memcmp(name, lit, namelen) == 0)
    if (IS(":path"))
        copy_val(st->path, sizeof st->path, value, valuelen, &st->path_long);
    else if (IS(":method"))
        copy_val(st->method, sizeof st->method, value, valuelen, NULL);
    else if (IS("content-type"))
        copy_val(st->ctype, sizeof st->ctype, value, valuelen, NULL);
    else if (IS("grpc-encoding"))
        copy_val(st->enc, sizeof st->enc, value, valuelen, NULL);
    else if (IS("authorization") && c->s->creds.token)
        st->auth_ok = token_ok(c->s, value, valuelen);
#undef IS
    return 0;
}

/* Answers a call refused from its headers or its size, without its
 * message (I/O thread). */
static void refuse_now(ingest_otlp_grpc *s, gstream *st)
{
    core_buf_free(&st->body);
    answer(s, st);
}

/* A call's headers are complete: everything but the message is known. */
static void headers_done(ingest_otlp_grpc *s, gconn *c, gstream *st)
{
    st->headers_done = true;
    st->t_headers = core_now_ns();
    c->got_request = true;
    if (s->creds.token && !st->auth_ok) {
        decide(st, INGEST__GRPC_UNAUTHENTICATED, 0,
               "missing or wrong bearer token (send the header authorization: Bearer <token> of "
               "otlp.token_file)");
    } else if (strcmp(st->method, "POST") != 0) {
        st->http_status = 405;
        decide(st, INGEST__GRPC_UNIMPLEMENTED, 0, "method %s not allowed: gRPC calls are POST",
               st->method);
    } else if (!media_grpc(st->ctype)) {
        st->http_status = 415;
        decide(st, INGEST__GRPC_INVALID_ARGUMENT, 0,
               "unsupported content-type '%s': use application/grpc or application/grpc+proto",
               st->ctype);
    } else if (!st->path_long && strcmp(st->path, TRACE_PATH) == 0) {
        st->kind = INGEST_OTLP_TRACES;
    } else if (!st->path_long && strcmp(st->path, LOGS_PATH) == 0) {
        st->kind = INGEST_OTLP_LOGS;
    } else {
        decide(st, INGEST__GRPC_UNIMPLEMENTED, 0,
               "unknown method %s%s (this receiver serves TraceService/Export and "
               "LogsService/Export of opentelemetry.proto.collector)",
               st->path, st->path_long ? "..." : "");
    }
    if (st->code == 0 && st->enc[0] && strcasecmp(st->enc, "identity") != 0 &&
        strcasecmp(st->enc, "gzip") != 0)
        decide(st, INGEST__GRPC_UNIMPLEMENTED, 0,
               "unsupported grpc-encoding '%s': use gzip or identity", st->enc);
    if (st->code == 0 && s->rx.busy_early && s->rx.busy_early(s->rx.ud))
        decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S,
               "not accepting data now (memory or state store full), retry later");
    if (st->code != 0)
        refuse_now(s, st);
}

/* The client ended its side of a call (I/O thread). */
static void request_end(ingest_otlp_grpc *s, gstream *st)
{
    st->ended = true;
    if (st->answered)
        return;
    if (atomic_load(&s->stopping)) {
        decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S, "shutting down, retry later");
        refuse_now(s, st);
        return;
    }
    /* A full queue refuses here too, so that calls that would be refused
     * anyway do not wait behind the pool's blocked threads (the pool asks
     * again: the queue may have filled meanwhile). */
    if (s->rx.busy && s->rx.busy(s->rx.ud)) {
        decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S, "ingest queue full, retry later");
        refuse_now(s, st);
        return;
    }
    dispatch(s, st);
}

static int on_frame_recv(nghttp2_session *h2, const nghttp2_frame *f, void *ud)
{
    gconn *c = ud;
    ingest_otlp_grpc *s = c->s;
    if (f->hd.type == NGHTTP2_SETTINGS) {
        c->preface = true;
        return 0;
    }
    if (f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA)
        return 0;
    gstream *st = nghttp2_session_get_stream_user_data(h2, f->hd.stream_id);
    if (!st)
        return 0;
    if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST &&
        !st->headers_done)
        headers_done(s, c, st);
    if ((f->hd.flags & NGHTTP2_FLAG_END_STREAM) && !st->ended && !st->in_pool)
        request_end(s, st);
    return 0;
}

static int on_data_chunk(nghttp2_session *h2, uint8_t flags, int32_t sid, const uint8_t *data,
                         size_t len, void *ud)
{
    (void)flags;
    gconn *c = ud;
    ingest_otlp_grpc *s = c->s;
    gstream *st = nghttp2_session_get_stream_user_data(h2, sid);
    if (!st || st->answered || st->in_pool)
        return 0; /* refused already: what follows is dropped */
    /* Past the limit on the wire, or announced past it by the prefix:
     * refused before the rest arrives. */
    size_t have = st->body.len + len;
    bool over = false;
    uint32_t announced = 0;
    if (have >= INGEST__GRPC_PREFIX) {
        uint8_t p[INGEST__GRPC_PREFIX];
        for (size_t i = 0; i < INGEST__GRPC_PREFIX; i++)
            p[i] = i < st->body.len ? (uint8_t)st->body.data[i] : data[i - st->body.len];
        announced = ingest__grpc_prefix_len(p);
        over = announced > s->rx.max_body;
    }
    if (!over && have > s->rx.max_body + INGEST__GRPC_PREFIX) {
        over = true;
        announced = 0; /* a second message, say: the size on the wire */
    }
    if (over) {
        count(&s->too_large, 1);
        if (announced)
            decide(st, INGEST__GRPC_RESOURCE_EXHAUSTED, 0,
                   "message of %u bytes is larger than %zu bytes (otlp.max_body)", announced,
                   s->rx.max_body);
        else
            decide(st, INGEST__GRPC_RESOURCE_EXHAUSTED, 0,
                   "request larger than %zu bytes (otlp.max_body)", s->rx.max_body);
        refuse_now(s, st);
        return 0;
    }
    core_buf_append(&st->body, data, len);
    return 0;
}

static int on_stream_close(nghttp2_session *h2, int32_t sid, uint32_t err, void *ud)
{
    (void)err;
    gconn *c = ud;
    gstream *st = nghttp2_session_get_stream_user_data(h2, sid);
    if (!st)
        return 0;
    stream_unlink(st);
    if (c->nopen && --c->nopen == 0)
        c->t_idle = core_now_ns();
    if (st->in_pool)
        st->closed = true; /* freed when the pool gives it back */
    else
        stream_free(st);
    return 0;
}

/* An answer sent before the client finished its request: the rest of the
 * request is not wanted (RFC 9113 8.1: RST_STREAM with NO_ERROR). */
static int on_frame_send(nghttp2_session *h2, const nghttp2_frame *f, void *ud)
{
    (void)ud;
    if (f->hd.type != NGHTTP2_HEADERS || !(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    gstream *st = nghttp2_session_get_stream_user_data(h2, f->hd.stream_id);
    if (st && !st->ended)
        nghttp2_submit_rst_stream(h2, NGHTTP2_FLAG_NONE, f->hd.stream_id, NGHTTP2_NO_ERROR);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Connections (I/O thread)                                            */
/* ------------------------------------------------------------------ */

static void conn_free(gconn *c)
{
    core_buf_free(&c->out);
    free(c);
}

/* Closes c now; counter (may be NULL) counts why, and why is logged. */
static void conn_close(ingest_otlp_grpc *s, gconn *c, _Atomic uint64_t *counter, const char *why)
{
    if (counter)
        count(counter, 1);
    char more[64];
    if (why && ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
        core_logf(&s->rx.log, CORE_LOG_NOTE, "otlp-grpc: closed the connection from %s: %s%s",
                  c->peer, why, more);
    /* The session goes first: it calls nothing back while it is freed,
     * and after it nothing can reach the streams. */
    nghttp2_session_del(c->h2);
    c->h2 = NULL;
    for (gstream *st = c->streams, *next; st; st = next) {
        next = st->snext;
        st->linked = false;
        if (st->in_pool)
            st->closed = true;
        else
            stream_free(st);
    }
    c->streams = NULL;
    if (c->tls)
        gnutls_deinit(c->tls);
    c->tls = NULL;
    close(c->fd);
    c->fd = -1;
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    s->nconns--;
    c->dead = true;
    if (c->in_pool == 0)
        conn_free(c);
}

/* Reads what the socket has and feeds it to the session; false: close. */
static bool conn_read(ingest_otlp_grpc *s, gconn *c, const char **why)
{
    (void)s;
    if (c->tls && !c->tls_done) {
        int r = gnutls_handshake(c->tls);
        if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
            c->tls_want_out = gnutls_record_get_direction(c->tls) == 1;
            return true;
        }
        if (r < 0) {
            *why = gnutls_strerror(r);
            return false;
        }
        gnutls_datum_t p;
        if (gnutls_alpn_get_selected_protocol(c->tls, &p) != 0 || p.size != 2 ||
            memcmp(p.data, "h2", 2) != 0) {
            *why = "TLS without ALPN h2 (gRPC needs HTTP/2)";
            return false;
        }
        c->tls_done = true;
        c->tls_want_out = false;
    }
    uint8_t buf[16384];
    for (;;) {
        ssize_t n;
        if (c->tls) {
            n = gnutls_record_recv(c->tls, buf, sizeof buf);
            if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                return true;
            /* A client that closes without close_notify (gRPC clients
             * do) has simply gone: nothing to log. */
            if (n == GNUTLS_E_PREMATURE_TERMINATION)
                return false;
            if (n < 0) {
                *why = gnutls_strerror((int)n);
                return false;
            }
        } else {
            n = recv(c->fd, buf, sizeof buf, 0);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                return true;
            if (n < 0) {
                *why = strerror(errno);
                return false;
            }
        }
        if (n == 0)
            return false; /* the client closed it */
        ssize_t r = nghttp2_session_mem_recv(c->h2, buf, (size_t)n);
        if (r < 0) {
            *why = nghttp2_strerror((int)r);
            return false;
        }
    }
}

/* Writes what the session has to send, as far as the socket takes it;
 * false: close. */
static bool conn_write(gconn *c, const char **why)
{
    if (c->tls && !c->tls_done) {
        if (c->tls_want_out) {
            int r = gnutls_handshake(c->tls);
            if (r < 0 && r != GNUTLS_E_AGAIN && r != GNUTLS_E_INTERRUPTED) {
                *why = gnutls_strerror(r);
                return false;
            }
            c->tls_want_out = r < 0 && gnutls_record_get_direction(c->tls) == 1;
            if (r == 0) {
                /* Done on a write: the ALPN check comes with the next read,
                 * which the client's preface makes happen. */
                gnutls_datum_t p;
                if (gnutls_alpn_get_selected_protocol(c->tls, &p) != 0 || p.size != 2 ||
                    memcmp(p.data, "h2", 2) != 0) {
                    *why = "TLS without ALPN h2 (gRPC needs HTTP/2)";
                    return false;
                }
                c->tls_done = true;
            }
        }
        if (!c->tls_done)
            return true;
    }
    for (;;) {
        if (c->out_off == c->out.len && !c->tls_retry) {
            core_buf_reset(&c->out);
            c->out_off = 0;
            while (c->out.len < GRPC_OUT_CHUNK) {
                const uint8_t *d;
                ssize_t n = nghttp2_session_mem_send(c->h2, &d);
                if (n < 0) {
                    *why = nghttp2_strerror((int)n);
                    return false;
                }
                if (n == 0)
                    break;
                core_buf_append(&c->out, d, (size_t)n);
            }
            if (c->out.len == 0)
                return true;
        }
        size_t left = c->out.len - c->out_off;
        ssize_t w;
        if (c->tls) {
            /* After E_AGAIN GnuTLS wants the same record again: NULL, 0
             * says so. */
            w = c->tls_retry ? gnutls_record_send(c->tls, NULL, 0)
                             : gnutls_record_send(c->tls, c->out.data + c->out_off, left);
            if (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED) {
                c->tls_retry = true;
                return true;
            }
            c->tls_retry = false;
            if (w < 0) {
                *why = gnutls_strerror((int)w);
                return false;
            }
        } else {
            w = send(c->fd, c->out.data + c->out_off, left, MSG_NOSIGNAL);
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
                return true;
            if (w < 0) {
                *why = strerror(errno);
                return false;
            }
        }
        c->out_off += (size_t)w;
    }
}

static bool conn_has_output(const gconn *c)
{
    return c->out_off < c->out.len || c->tls_retry;
}

/* Done with: nothing to read or write any more. */
static bool conn_finished(const gconn *c)
{
    if (conn_has_output(c) || c->in_pool)
        return false;
    if (c->bye && c->nopen == 0)
        return true;
    return !nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2);
}

static void goaway(gconn *c)
{
    if (c->bye)
        return;
    c->bye = true;
    nghttp2_submit_goaway(c->h2, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(c->h2),
                          NGHTTP2_NO_ERROR, NULL, 0);
}

static void peer_text(const struct sockaddr_storage *ss, char *peer, size_t plen, char *host,
                      size_t hlen)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET6) {
        struct sockaddr_in6 a;
        memcpy(&a, ss, sizeof a);
        inet_ntop(AF_INET6, &a.sin6_addr, ip, sizeof ip);
        port = ntohs(a.sin6_port);
        snprintf(peer, plen, "[%s]:%u", ip, port);
    } else {
        struct sockaddr_in a;
        memcpy(&a, ss, sizeof a);
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        port = ntohs(a.sin_port);
        snprintf(peer, plen, "%s:%u", ip, port);
    }
    snprintf(host, hlen, "%s", ip);
}

/* The oldest connection that may be closed for a newcomer (of host, when
 * not NULL): an idle one or one still waiting for its first request
 * first, then one receiving a message; never one with a call in the pool. */
static gconn *evictable(ingest_otlp_grpc *s, const char *host)
{
    gconn *best = NULL;
    int best_rank = 0;
    for (gconn *c = s->conns; c; c = c->next) {
        if (c->in_pool || (host && strcmp(c->host, host) != 0))
            continue;
        int rank = c->nopen == 0 ? 2 : 1;
        if (rank >= best_rank) { /* the list is newest first: later is older */
            best = c;
            best_rank = rank;
        }
    }
    return best;
}

/* Whether a new connection from host may be served, closing a stalled
 * one to make room when it has to. */
static bool admit(ingest_otlp_grpc *s, const char *host)
{
    if (s->lim.max_conns_per_addr) {
        unsigned same = 0;
        for (gconn *c = s->conns; c; c = c->next)
            same += strcmp(c->host, host) == 0;
        if (same >= s->lim.max_conns_per_addr) {
            gconn *v = evictable(s, host);
            if (!v)
                return false;
            conn_close(s, v, &s->evicted, "closed to make room (otlp.max_connections_per_address)");
        }
    }
    if (s->nconns >= s->lim.max_conns) {
        gconn *v = evictable(s, NULL);
        if (!v)
            return false;
        conn_close(s, v, &s->evicted, "closed to make room (otlp.max_connections)");
    }
    return true;
}

static void conn_open(ingest_otlp_grpc *s, int fd, const struct sockaddr_storage *ss)
{
    gconn *c = core_xcalloc(1, sizeof *c);
    c->s = s;
    c->fd = fd;
    peer_text(ss, c->peer, sizeof c->peer, c->host, sizeof c->host);
    if (!admit(s, c->host)) {
        count(&s->refused_conns, 1);
        char more[64];
        if (ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
            core_logf(&s->rx.log, CORE_LOG_NOTE,
                      "otlp-grpc: refused a connection from %s: every connection is busy "
                      "(otlp.max_connections %u, per address %u)%s",
                      c->peer, s->lim.max_conns, s->lim.max_conns_per_addr, more);
        close(fd);
        free(c);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->t_open = c->t_idle = core_now_ns();
    if (nghttp2_session_server_new2(&c->h2, s->cbs, c, s->h2opt) != 0) {
        close(fd);
        free(c);
        return;
    }
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, GRPC_MAX_STREAMS},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, GRPC_STREAM_WINDOW},
    };
    nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof *iv);
    nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, GRPC_CONN_WINDOW);
    if (s->tls) {
        static const gnutls_datum_t h2 = {(unsigned char *)"h2", 2};
        if (gnutls_init(&c->tls, GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL) < 0 ||
            gnutls_priority_set(c->tls, s->prio) < 0 ||
            gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, s->cred) < 0 ||
            gnutls_alpn_set_protocols(c->tls, &h2, 1, GNUTLS_ALPN_MANDATORY) < 0) {
            if (c->tls)
                gnutls_deinit(c->tls);
            nghttp2_session_del(c->h2);
            close(fd);
            free(c);
            return;
        }
        gnutls_certificate_server_set_request(c->tls, GNUTLS_CERT_IGNORE);
        gnutls_transport_set_int(c->tls, fd);
    }
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    s->nconns++;
}

static void accept_all(ingest_otlp_grpc *s)
{
    for (;;) {
        struct sockaddr_storage ss = {0};
        socklen_t sl = sizeof ss;
        int fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                errno != ECONNABORTED) {
                char more[64];
                if (ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
                    core_logf(&s->rx.log, CORE_LOG_WARN, "otlp-grpc: accept on %s: %s%s", s->addr,
                              strerror(errno), more);
            }
            return;
        }
        conn_open(s, fd, &ss);
    }
}

/* Answers the pool gave back (I/O thread). */
static void take_answers(ingest_otlp_grpc *s)
{
    pthread_mutex_lock(&s->qmu);
    gstream *st = s->dhead;
    s->dhead = s->dtail = NULL;
    pthread_mutex_unlock(&s->qmu);
    while (st) {
        gstream *next = st->qnext;
        gconn *c = st->c;
        st->in_pool = false;
        c->in_pool--;
        s->in_pool--;
        if (st->closed)
            stream_free(st);
        else
            answer(s, st);
        if (c->dead && c->in_pool == 0)
            conn_free(c);
        st = next;
    }
}

/* Deadlines: header_timeout (handshake and preface), body_timeout (a
 * call's message), conn_timeout (no call at all). */
static void check_deadlines(ingest_otlp_grpc *s, uint64_t now)
{
    const uint64_t sec = 1000000000ull;
    for (gconn *c = s->conns, *next; c; c = next) {
        next = c->next;
        if (!c->preface && now - c->t_open > s->lim.header_timeout * sec) {
            conn_close(s, c, &s->timed_out,
                       "no TLS handshake and HTTP/2 preface within otlp.header_timeout");
            continue;
        }
        bool slow = false;
        for (gstream *st = c->streams; st && !slow; st = st->snext)
            slow = st->headers_done && !st->ended && !st->answered &&
                   now - st->t_headers > s->lim.body_timeout * sec;
        if (slow) {
            conn_close(s, c, &s->timed_out,
                       "a call's message did not arrive within otlp.body_timeout");
            continue;
        }
        if (c->nopen == 0 && c->in_pool == 0 && now - c->t_idle > s->lim.conn_timeout * sec)
            goaway(c);
    }
}

/* Stop: no new connections or calls; calls still arriving are refused. */
static void begin_stop(ingest_otlp_grpc *s)
{
    close(s->lfd);
    s->lfd = -1;
    for (gconn *c = s->conns; c; c = c->next) {
        goaway(c);
        for (gstream *st = c->streams; st; st = st->snext)
            if (!st->answered && !st->in_pool) {
                decide(st, INGEST__GRPC_UNAVAILABLE, GRPC_RETRY_S, "shutting down, retry later");
                refuse_now(s, st);
            }
    }
}

/* The connection a pollfd watches (NULL: the pipe or the listener). */
typedef struct poll_conn {
    gconn *c;
} poll_conn;

static void *io_main(void *arg)
{
    ingest_otlp_grpc *s = arg;
    /* What poll watches: the wake-up pipe, the listener, the connections
     * (pc: the connection of each pollfd, NULL for the first two). */
    size_t cap = 64;
    struct pollfd *pf = core_xcalloc(cap, sizeof *pf);
    poll_conn *pc = core_xcalloc(cap, sizeof *pc);
    bool stopping = false;
    uint64_t drained_at = 0, last_check = 0;
    for (;;) {
        uint64_t now = core_now_ns();
        if (!stopping && atomic_load(&s->stopping)) {
            stopping = true;
            begin_stop(s);
        }
        if (stopping) {
            if (s->in_pool == 0 && !drained_at)
                drained_at = now;
            if (!s->conns || (drained_at && now - drained_at > GRPC_STOP_GRACE_NS))
                break;
        }
        if (now - last_check > 200000000ull) {
            last_check = now;
            check_deadlines(s, now);
        }
        if (cap < s->nconns + 2) {
            cap = (s->nconns + 2) * 2;
            pf = core_xrealloc(pf, cap * sizeof *pf);
            pc = core_xrealloc(pc, cap * sizeof *pc);
        }
        size_t np = 0;
        pf[np] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        pc[np++].c = NULL;
        if (s->lfd >= 0) {
            pf[np] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
            pc[np++].c = NULL;
        }
        for (gconn *c = s->conns; c; c = c->next) {
            short ev = 0;
            if (c->tls && !c->tls_done)
                ev = c->tls_want_out ? POLLOUT : POLLIN;
            else
                ev = (short)((nghttp2_session_want_read(c->h2) ? POLLIN : 0) |
                             (conn_has_output(c) ? POLLOUT : 0));
            pf[np] = (struct pollfd){.fd = c->fd, .events = ev};
            pc[np++].c = c;
        }
        int n = poll(pf, np, stopping ? 50 : 250);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        if (pf[0].revents) {
            char b[64];
            while (read(s->wake[0], b, sizeof b) > 0) {
            }
        }
        take_answers(s);
        bool incoming = false;
        for (size_t i = 1; i < np; i++) {
            if (!pf[i].revents)
                continue;
            gconn *c = pc[i].c;
            if (!c) {
                incoming = true;
                continue;
            }
            const char *why = NULL;
            if ((pf[i].revents & (POLLIN | POLLHUP | POLLERR)) && !conn_read(s, c, &why))
                conn_close(s, c, NULL, why);
        }
        /* After the reads: admitting may close (and free) a connection. */
        if (incoming && s->lfd >= 0)
            accept_all(s);
        /* Whatever the reads and the answers produced. */
        for (gconn *c = s->conns, *next; c; c = next) {
            next = c->next;
            const char *why = NULL;
            if (!conn_write(c, &why))
                conn_close(s, c, NULL, why);
            else if (conn_finished(c))
                conn_close(s, c, NULL, NULL);
        }
    }
    for (gconn *c = s->conns, *next; c; c = next) {
        next = c->next;
        conn_close(s, c, NULL, NULL);
    }
    free(pf);
    free(pc);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Start, stats, stop                                                  */
/* ------------------------------------------------------------------ */

static void receiver_free(ingest_otlp_grpc *s)
{
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->wake[0] >= 0)
        close(s->wake[0]);
    if (s->wake[1] >= 0)
        close(s->wake[1]);
    core_creds_free(&s->creds);
    if (s->cred)
        gnutls_certificate_free_credentials(s->cred);
    if (s->prio)
        gnutls_priority_deinit(s->prio);
    if (s->cbs)
        nghttp2_session_callbacks_del(s->cbs);
    if (s->h2opt)
        nghttp2_option_del(s->h2opt);
    free(s->workers);
    pthread_mutex_destroy(&s->qmu);
    pthread_cond_destroy(&s->qcv);
    ingest__otlp_recv_free(&s->rx);
    free(s);
}

/* GnuTLS credentials from the certificate and key core_creds_load read;
 * their text is not kept once GnuTLS has its own copy. */
static int setup_tls(ingest_otlp_grpc *s, const ingest_otlp_recv_opts *o, const char *listen,
                     char *why, size_t whylen)
{
    core_creds *cr = &s->creds;
    int rc = 0;
    int g = gnutls_certificate_allocate_credentials(&s->cred);
    if (g >= 0) {
        gnutls_datum_t cd = {(unsigned char *)cr->cert_pem, (unsigned)cr->cert_len};
        gnutls_datum_t kd = {(unsigned char *)cr->key_pem, (unsigned)cr->key_len};
        g = gnutls_certificate_set_x509_key_mem(s->cred, &cd, &kd, GNUTLS_X509_FMT_PEM);
    }
    if (g < 0)
        rc = core_fail(why, whylen, CORE_EUSAGE, "listen %s: tls_cert %s, tls_key %s: %s", listen,
                       o->tls_cert, o->tls_key, gnutls_strerror(g));
    else if ((g = gnutls_priority_init(&s->prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
                                       NULL)) < 0)
        rc = core_fail(why, whylen, CORE_EUSAGE, "listen %s: TLS priorities: %s", listen,
                       gnutls_strerror(g));
    else
        s->tls = true;
    free(cr->cert_pem);
    core_secret_free(cr->key_pem, cr->key_len);
    cr->cert_pem = cr->key_pem = NULL;
    cr->cert_len = cr->key_len = 0;
    return rc;
}

int ingest_otlp_grpc_start(const ingest_otlp_recv_opts *o, ingest_otlp_batch_fn fn, void *ud,
                           ingest_otlp_grpc **out, char *why, size_t whylen)
{
    static const ingest_otlp_recv_opts defaults = {0};
    if (!o)
        o = &defaults;
    if (!fn || !out)
        return core_fail(why, whylen, CORE_EUSAGE, "ingest_otlp_grpc_start: missing argument");
    const char *listen = o->listen ? o->listen : GRPC_DEFAULT_LISTEN;
    ingest_otlp_grpc *s = core_xcalloc(1, sizeof *s);
    s->lfd = s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->qmu, NULL);
    pthread_cond_init(&s->qcv, NULL);
    ingest__otlp_recv_init(&s->rx, o, fn, ud);
    s->lim = o->limits;
    if (!s->lim.max_conns)
        s->lim.max_conns = 256;
    if (!s->lim.conn_timeout)
        s->lim.conn_timeout = 30;
    if (!s->lim.header_timeout)
        s->lim.header_timeout = 10;
    if (!s->lim.body_timeout)
        s->lim.body_timeout = 60;
    /* The files first (core_creds_load), and GnuTLS's view of them: a
     * mistake is found before anything listens. */
    core_creds_opts co = {.listen = listen,
                          .token_file = o->token_file,
                          .tls_cert = o->tls_cert,
                          .tls_key = o->tls_key};
    int rc = core_creds_load(&co, &s->rx.log, &s->creds, why, whylen);
    if (rc)
        goto fail;
    if (s->creds.cert_pem && (rc = setup_tls(s, o, listen, why, whylen)) != 0)
        goto fail;
    if ((rc = core_listen_tcp(listen, &s->lfd, s->addr, sizeof s->addr, why, whylen)) != 0)
        goto fail;
    if (pipe2(s->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        rc = core_fail(why, whylen, -errno, "listen %s: pipe: %s", listen, strerror(errno));
        goto fail;
    }
    if (nghttp2_session_callbacks_new(&s->cbs) != 0 || nghttp2_option_new(&s->h2opt) != 0) {
        rc = core_fail(why, whylen, -ENOMEM, "listen %s: nghttp2: out of memory", listen);
        goto fail;
    }
    nghttp2_session_callbacks_set_on_begin_headers_callback(s->cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(s->cbs, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(s->cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(s->cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(s->cbs, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(s->cbs, on_frame_send);
    /* The client must respect our stream limit from its first request on. */
    nghttp2_option_set_peer_max_concurrent_streams(s->h2opt, GRPC_MAX_STREAMS);
    s->nworkers = o->threads ? o->threads : 2;
    s->workers = core_xcalloc(s->nworkers, sizeof *s->workers);
    for (unsigned i = 0; i < s->nworkers; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
            s->nworkers = i;
            rc = core_fail(why, whylen, -EAGAIN, "listen %s: cannot start a receiver thread",
                           listen);
            goto fail_threads;
        }
    }
    if (pthread_create(&s->io, NULL, io_main, s) != 0) {
        rc = core_fail(why, whylen, -EAGAIN, "listen %s: cannot start the receiver's I/O thread",
                       listen);
        goto fail_threads;
    }
    core_logf(&s->rx.log, CORE_LOG_INFO, "otlp-grpc: OTLP/gRPC receiver listening on %s (%s%s)",
              s->addr, s->tls ? "TLS, ALPN h2" : "plain text HTTP/2",
              s->creds.token ? ", bearer token" : "");
    *out = s;
    return 0;
fail_threads:
    pthread_mutex_lock(&s->qmu);
    s->quit = true;
    pthread_cond_broadcast(&s->qcv);
    pthread_mutex_unlock(&s->qmu);
    for (unsigned i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
fail:
    receiver_free(s);
    return rc;
}

const char *ingest_otlp_grpc_address(const ingest_otlp_grpc *s)
{
    return s->addr;
}

void ingest_otlp_grpc_get_stats(ingest_otlp_grpc *s, ingest_otlp_grpc_stats *out)
{
    memset(out, 0, sizeof *out);
    out->requests = atomic_load(&s->requests);
    for (int i = 0; i < INGEST_GRPC_CODES; i++)
        out->by_code[i] = atomic_load(&s->by_code[i]);
    out->accepted_events = atomic_load(&s->rx.accepted_events);
    out->rejected_events = atomic_load(&s->rx.rejected_events);
    out->truncated_events = atomic_load(&s->rx.truncated_events);
    out->too_large = atomic_load(&s->too_large);
    out->timed_out = atomic_load(&s->timed_out);
    out->evicted = atomic_load(&s->evicted);
    out->refused_conns = atomic_load(&s->refused_conns);
}

void ingest_otlp_grpc_stop(ingest_otlp_grpc *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, true);
    wake(s);
    pthread_join(s->io, NULL);
    pthread_mutex_lock(&s->qmu);
    s->quit = true;
    pthread_cond_broadcast(&s->qcv);
    pthread_mutex_unlock(&s->qmu);
    for (unsigned i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
    core_logf(&s->rx.log, CORE_LOG_INFO, "otlp-grpc: OTLP/gRPC receiver stopped listening on %s",
              s->addr);
    /* Calls the pool answered after the I/O thread left (none, as it
     * waits for them; kept for safety) are freed with their connection. */
    take_answers(s);
    receiver_free(s);
}
