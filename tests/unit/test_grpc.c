/*
 * The OTLP/gRPC receiver (ingest_otlp_grpc_*) and its framing
 * (otlp_grpc_int.h): the pieces without a socket first, then calls made by
 * an nghttp2 client session in this process over real sockets on
 * 127.0.0.1 (plain text, and TLS through a GnuTLS client): status codes
 * and trailers, partial success, gzip, limits, the token, overload with its
 * RetryInfo, connection limits and timeouts.
 */
#include "unit.h"
#include "unit_creds.h"
#include "unit_otlp.h"

#include "ingest.h"
#include "otlp_grpc_int.h"
#include "pmrag/otlp/collector.pb-c.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#define TRACES "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
#define LOGS "/opentelemetry.proto.collector.logs.v1.LogsService/Export"

/* ------------------------------------------------------------------ */
/* Framing without a socket                                            */
/* ------------------------------------------------------------------ */

static void frame_of(core_buf *b, uint8_t flag, uint32_t n, const char *payload, size_t plen)
{
    uint8_t p[5] = {flag, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    core_buf_append(b, p, 5);
    core_buf_append(b, payload, plen);
}

TEST(unframe_accepts_one_message_and_names_what_is_wrong)
{
    core_buf b = {0};
    ingest__grpc_msg m;
    char why[256];
    frame_of(&b, 0, 3, "abc", 3);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why), 0);
    CHECK(!m.compressed && m.len == 3 && memcmp(m.data, "abc", 3) == 0);
    core_buf_reset(&b);
    frame_of(&b, 1, 0, "", 0);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why), 0);
    CHECK(m.compressed && m.len == 0);

    CHECK_INT(ingest__grpc_unframe("", 0, 100, &m, why, sizeof why), INGEST__GRPC_INTERNAL);
    CHECK_STR(why, "no request message (the stream ended without one)");
    CHECK_INT(ingest__grpc_unframe("\0\0\0", 3, 100, &m, why, sizeof why), INGEST__GRPC_INTERNAL);
    CHECK_STR(why, "message prefix cut short: 3 of 5 bytes");
    core_buf_reset(&b);
    frame_of(&b, 2, 1, "x", 1);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why), INGEST__GRPC_INTERNAL);
    CHECK_STR(why, "message prefix: compressed flag 2 (0 or 1 expected)");
    core_buf_reset(&b);
    frame_of(&b, 0, 101, "x", 1);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why),
              INGEST__GRPC_RESOURCE_EXHAUSTED);
    CHECK_STR(why, "message of 101 bytes is larger than 100 bytes (otlp.max_body)");
    core_buf_reset(&b);
    frame_of(&b, 0, 4, "abc", 3);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why), INGEST__GRPC_INTERNAL);
    CHECK_STR(why, "message cut short: the prefix says 4 bytes, 3 came");
    core_buf_reset(&b);
    frame_of(&b, 0, 2, "abc", 3);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 100, &m, why, sizeof why), INGEST__GRPC_INTERNAL);
    CHECK_STR(why, "1 bytes after the message (a unary call carries exactly one message)");
    /* Our own frames come back out. */
    core_buf_reset(&b);
    ingest__grpc_frame(&b, "hello", 5);
    CHECK_INT(b.len, 10);
    CHECK_INT(ingest__grpc_unframe(b.data, b.len, 5, &m, why, sizeof why), 0);
    CHECK(m.len == 5 && memcmp(m.data, "hello", 5) == 0);
    core_buf_free(&b);
}

TEST(grpc_message_is_percent_encoded_both_ways)
{
    core_buf e = {0}, d = {0};
    const char *text = " a%b\n\xc3\xa9 ok ";
    ingest__grpc_pct_encode(&e, text, strlen(text), 512);
    CHECK_STR(e.data, "%20a%25b%0A%C3%A9 ok%20");
    CHECK_INT(core_pct_decode(&d, e.data, e.len), 0);
    CHECK_INT(d.len, strlen(text));
    CHECK_STR(d.data, text);
    /* Cut at a character boundary, never inside é. */
    core_buf_reset(&e);
    ingest__grpc_pct_encode(&e, "ab\xc3\xa9", 4, 3);
    CHECK_STR(e.data, "ab");
    /* A lone or broken escape is kept as it came. */
    core_buf_reset(&d);
    CHECK_INT(core_pct_decode(&d, "50%%zz%4", 8), 3);
    CHECK_STR(d.data, "50%%zz%4");
    core_buf_reset(&e);
    ingest__grpc_pct_encode(&e, "", 0, 10);
    CHECK_STR(e.data, "");
    core_buf_free(&e);
    core_buf_free(&d);
}

TEST(base64_and_status_details_bytes)
{
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const want[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        core_buf b = {0};
        ingest__grpc_base64(&b, in[i], strlen(in[i]));
        CHECK_STR(b.data, want[i]);
        core_buf_free(&b);
    }
    /* google.rpc.Status{code 14, message "x", details [Any{RetryInfo{
     * retry_delay {seconds 1}}}]}, byte for byte. */
    static const char url[] = "type.googleapis.com/google.rpc.RetryInfo";
    core_buf raw = {0}, want64 = {0}, got = {0};
    core_buf_append(&raw, "\x08\x0e\x12\x01x\x1a\x30\x0a\x28", 9);
    core_buf_append(&raw, url, 40);
    core_buf_append(&raw, "\x12\x04\x0a\x02\x08\x01", 6);
    ingest__grpc_base64(&want64, raw.data, raw.len);
    ingest__grpc_status_details(&got, 14, "x", 1);
    CHECK_STR(got.data, want64.data);
    /* Without a retry: the Status alone. */
    core_buf_reset(&got);
    ingest__grpc_status_details(&got, 8, "big", 0);
    CHECK_STR(got.data, "CAgSA2JpZw");
    core_buf_free(&raw);
    core_buf_free(&want64);
    core_buf_free(&got);
    CHECK_STR(ingest_grpc_code_name(0), "OK");
    CHECK_STR(ingest_grpc_code_name(16), "UNAUTHENTICATED");
    CHECK_STR(ingest_grpc_code_name(17), "?");
}

/* ------------------------------------------------------------------ */
/* An nghttp2 client                                                   */
/* ------------------------------------------------------------------ */

typedef struct gres {
    int32_t id;
    int http_status;
    int grpc_status; /* -1: none came */
    char message[600];
    char details[600];
    char retry_alone[64];
    char accept_enc[64];
    char ctype[64];
    core_buf data;
    bool closed;
    uint32_t close_code;
    /* The request's body, sent by the data provider. */
    const char *body;
    size_t blen, boff;
} gres;

#define MAX_CALLS 16

typedef struct gcli {
    int fd;
    nghttp2_session *h2;
    gnutls_session_t tls;
    gnutls_certificate_credentials_t cred;
    gres calls[MAX_CALLS];
    int n;
    bool eof;
} gcli;

static ssize_t cli_send(nghttp2_session *h2, const uint8_t *d, size_t n, int flags, void *ud)
{
    (void)h2;
    (void)flags;
    gcli *c = ud;
    ssize_t w = c->tls ? gnutls_record_send(c->tls, d, n) : send(c->fd, d, n, MSG_NOSIGNAL);
    if (w < 0)
        return (c->tls ? w == GNUTLS_E_AGAIN : errno == EAGAIN) ? NGHTTP2_ERR_WOULDBLOCK
                                                                : NGHTTP2_ERR_CALLBACK_FAILURE;
    return w;
}

static gres *res_of(gcli *c, int32_t id)
{
    for (int i = 0; i < c->n; i++)
        if (c->calls[i].id == id)
            return &c->calls[i];
    return NULL;
}

static int cli_header(nghttp2_session *h2, const nghttp2_frame *f, const uint8_t *name, size_t nl,
                      const uint8_t *value, size_t vl, uint8_t flags, void *ud)
{
    (void)h2;
    (void)flags;
    gres *r = res_of(ud, f->hd.stream_id);
    if (!r)
        return 0;
    char v[600];
    snprintf(v, sizeof v, "%.*s", (int)vl, (const char *)value);
#define IS(lit) (nl == sizeof(lit) - 1 && memcmp(name, lit, nl) == 0)
    if (IS(":status"))
        r->http_status = atoi(v);
    else if (IS("grpc-status"))
        r->grpc_status = atoi(v);
    else if (IS("grpc-message"))
        snprintf(r->message, sizeof r->message, "%s", v);
    else if (IS("grpc-status-details-bin"))
        snprintf(r->details, sizeof r->details, "%s", v);
    else if (IS("google.rpc.retryinfo-bin"))
        snprintf(r->retry_alone, sizeof r->retry_alone, "%.63s", v);
    else if (IS("grpc-accept-encoding"))
        snprintf(r->accept_enc, sizeof r->accept_enc, "%.63s", v);
    else if (IS("content-type"))
        snprintf(r->ctype, sizeof r->ctype, "%.63s", v);
#undef IS
    return 0;
}

static int cli_data(nghttp2_session *h2, uint8_t flags, int32_t sid, const uint8_t *d, size_t n,
                    void *ud)
{
    (void)h2;
    (void)flags;
    gres *r = res_of(ud, sid);
    if (r)
        core_buf_append(&r->data, d, n);
    return 0;
}

static int cli_close(nghttp2_session *h2, int32_t sid, uint32_t code, void *ud)
{
    (void)h2;
    gres *r = res_of(ud, sid);
    if (r) {
        r->closed = true;
        r->close_code = code;
    }
    return 0;
}

static ssize_t body_read(nghttp2_session *h2, int32_t sid, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *ud)
{
    (void)h2;
    (void)sid;
    (void)ud;
    gres *r = src->ptr;
    size_t n = r->blen - r->boff < len ? r->blen - r->boff : len;
    memcpy(buf, r->body + r->boff, n);
    r->boff += n;
    if (r->boff == r->blen)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int tcp_connect(const char *addr)
{
    char host[64];
    const char *colon = strrchr(addr, ':');
    snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        unit_fail(__FILE__, __LINE__, "connect %s: %s", addr, strerror(errno));
    return fd;
}

/* A client connection; with ca, over TLS offering ALPN alpn (NULL: none). */
static void cli_open(gcli *c, const char *addr, const char *ca, const char *alpn)
{
    memset(c, 0, sizeof *c);
    c->fd = tcp_connect(addr);
    if (ca) {
        CHECK(gnutls_certificate_allocate_credentials(&c->cred) >= 0);
        CHECK(gnutls_certificate_set_x509_trust_file(c->cred, ca, GNUTLS_X509_FMT_PEM) > 0);
        /* A server that closes first (a refused protocol) must not take
         * the test down with SIGPIPE on the client's next record. */
        CHECK(gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NO_SIGNAL) >= 0);
        CHECK(gnutls_set_default_priority(c->tls) >= 0);
        CHECK(gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, c->cred) >= 0);
        gnutls_session_set_verify_cert(c->tls, "localhost", 0);
        if (alpn) {
            gnutls_datum_t p = {(unsigned char *)alpn, (unsigned)strlen(alpn)};
            gnutls_alpn_set_protocols(c->tls, &p, 1, 0);
        }
        gnutls_transport_set_int(c->tls, c->fd);
        int r;
        do
            r = gnutls_handshake(c->tls);
        while (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED);
        if (r < 0) {
            c->eof = true;
            return;
        }
    }
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, cli_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, cli_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, cli_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, cli_close);
    CHECK_OK(nghttp2_session_client_new(&c->h2, cb, c));
    nghttp2_session_callbacks_del(cb);
    CHECK_OK(nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, NULL, 0));
    if (nghttp2_session_send(c->h2) != 0)
        c->eof = true; /* the server closed it already */
}

static void cli_free(gcli *c)
{
    if (c->h2)
        nghttp2_session_del(c->h2);
    if (c->tls) {
        gnutls_deinit(c->tls);
        gnutls_certificate_free_credentials(c->cred);
    }
    close(c->fd);
    for (int i = 0; i < c->n; i++)
        core_buf_free(&c->calls[i].data);
}

/* Starts a call: headers name, value, ..., NULL after the usual ones
 * (extra may replace content-type by giving it; body NULL: no DATA). */
static gres *cli_start(gcli *c, const char *method, const char *path, const char *const *extra,
                       const char *body, size_t blen)
{
    nghttp2_nv h[16];
    size_t n = 0;
#define NVS(a, b)                                                                                  \
    (h[n++] =                                                                                      \
         (nghttp2_nv){(uint8_t *)(a), (uint8_t *)(b), strlen(a), strlen(b), NGHTTP2_NV_FLAG_NONE})
    NVS(":method", method);
    NVS(":scheme", c->tls ? "https" : "http");
    NVS(":authority", "localhost");
    NVS(":path", path);
    bool ct = false;
    for (size_t i = 0; extra && extra[i]; i += 2)
        ct |= strcmp(extra[i], "content-type") == 0;
    if (!ct)
        NVS("content-type", "application/grpc");
    NVS("te", "trailers");
    for (size_t i = 0; extra && extra[i]; i += 2)
        NVS(extra[i], extra[i + 1]);
#undef NVS
    CHECK(c->n < MAX_CALLS);
    gres *r = &c->calls[c->n++];
    memset(r, 0, sizeof *r);
    r->grpc_status = -1;
    r->body = body;
    r->blen = blen;
    nghttp2_data_provider dp = {.source.ptr = r, .read_callback = body_read};
    r->id = nghttp2_submit_request(c->h2, NULL, h, n, body ? &dp : NULL, NULL);
    CHECK(r->id > 0);
    return r;
}

/* Runs the session until every call started is closed, or the server
 * closes the connection; fails after 10 s. */
static void cli_run(gcli *c)
{
    for (int spin = 0; spin < 1000; spin++) {
        bool open = false;
        for (int i = 0; i < c->n; i++)
            open |= !c->calls[i].closed;
        if (!open || c->eof)
            return;
        if (nghttp2_session_send(c->h2) != 0) {
            c->eof = true; /* the server closed it (EPIPE, ECONNRESET) */
            return;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (!(c->tls && gnutls_record_check_pending(c->tls)) && poll(&p, 1, 10) <= 0)
            continue;
        uint8_t buf[16384];
        ssize_t n =
            c->tls ? gnutls_record_recv(c->tls, buf, sizeof buf) : recv(c->fd, buf, sizeof buf, 0);
        if (n <= 0) {
            c->eof = true;
            return;
        }
        if (nghttp2_session_mem_recv(c->h2, buf, (size_t)n) < 0) {
            c->eof = true;
            return;
        }
    }
    unit_fail(__FILE__, __LINE__, "calls not answered within 10 s");
}

/* One call on a connection of its own. */
static void call(const char *addr, const char *path, const char *const *extra, const char *body,
                 size_t blen, gres *out)
{
    gcli c;
    cli_open(&c, addr, NULL, NULL);
    gres *r = cli_start(&c, "POST", path, extra, body, blen);
    cli_run(&c);
    *out = *r;
    out->data = (core_buf){0};
    core_buf_append(&out->data, r->data.data, r->data.len);
    cli_free(&c);
}

static void gres_free(gres *r)
{
    core_buf_free(&r->data);
}

/* ------------------------------------------------------------------ */
/* A receiver and its batch function                                   */
/* ------------------------------------------------------------------ */

typedef struct rec {
    pthread_mutex_t mu;
    int calls;
    core_buf seen; /* "T|L case activity\n" per event */
    uint8_t last_id[INGEST_REQUEST_ID];
    int rc;           /* what the batch returns */
    _Atomic int hold; /* >0: block until released */
    _Atomic bool busy_early;
    _Atomic bool busy;
} rec;

static int batch(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                 const uint8_t *id)
{
    rec *r = ud;
    while (atomic_load(&r->hold) > 0)
        usleep(1000);
    pthread_mutex_lock(&r->mu);
    r->calls++;
    memcpy(r->last_id, id, INGEST_REQUEST_ID);
    for (size_t i = 0; i < n; i++)
        core_buf_printf(&r->seen, "%c %s %s\n", kind == INGEST_OTLP_TRACES ? 'T' : 'L',
                        evs[i].case_id, evs[i].activity);
    int rc = r->rc;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static bool busy_early(void *ud)
{
    return atomic_load(&((rec *)ud)->busy_early);
}

static bool busy(void *ud)
{
    return atomic_load(&((rec *)ud)->busy);
}

static void spans_msg(core_buf *framed, core_buf *raw)
{
    const ingest_event evs[] = {
        {.case_id = "c1", .activity = "add to cart", .time_ns = 1700000000000000000ll},
        {.case_id = "c1", .activity = "checkout", .time_ns = 1700000001000000000ll},
    };
    core_buf pb = {0};
    CHECK_OK(unit_otlp_spans(evs, 2, "shop", &pb));
    ingest__grpc_frame(framed, pb.data, pb.len);
    if (raw)
        core_buf_append(raw, pb.data, pb.len);
    core_buf_free(&pb);
}

static void gzip_of(const void *p, size_t n, core_buf *out)
{
    z_stream zs = {0};
    CHECK_INT(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    uLong bound = deflateBound(&zs, (uLong)n);
    core_buf_reserve(out, bound);
    zs.next_in = (Bytef *)p;
    zs.avail_in = (uInt)n;
    zs.next_out = (Bytef *)out->data + out->len;
    zs.avail_out = (uInt)bound;
    CHECK_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
    out->len += zs.total_out;
    deflateEnd(&zs);
}

/* A framed, gzip-compressed message of p. */
static void gz_frame(const void *p, size_t n, core_buf *out)
{
    core_buf z = {0};
    gzip_of(p, n, &z);
    uint8_t pre[5] = {1, (uint8_t)(z.len >> 24), (uint8_t)(z.len >> 16), (uint8_t)(z.len >> 8),
                      (uint8_t)z.len};
    core_buf_append(out, pre, 5);
    core_buf_append(out, z.data, z.len);
    core_buf_free(&z);
}

static const char *decoded(const char *msg)
{
    static char out[600];
    core_buf b = {0};
    core_pct_decode(&b, msg, strlen(msg));
    snprintf(out, sizeof out, "%s", b.data ? b.data : "");
    core_buf_free(&b);
    return out;
}

/*
 * What every test of calls starts from: a receiver on a free port of
 * 127.0.0.1 whose batch function records into r (and whose busy checks
 * r's flags say), its address, and m, a framed ExportTraceServiceRequest
 * of two spans of case c1.
 */
typedef struct fixture {
    rec r;
    ingest_otlp_grpc *s; /* NULL once a test has stopped it itself */
    const char *addr;
    core_buf m;
} fixture;

/* o NULL: the defaults; its listen NULL: 127.0.0.1:0. */
static void setup(fixture *f, ingest_otlp_recv_opts *o)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->r.mu, NULL);
    ingest_otlp_recv_opts d = {0};
    if (!o)
        o = &d;
    if (!o->listen)
        o->listen = "127.0.0.1:0";
    o->busy_early = busy_early;
    o->busy = busy;
    char why[512] = "";
    if (ingest_otlp_grpc_start(o, batch, &f->r, &f->s, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "ingest_otlp_grpc_start: %s", why);
    f->addr = ingest_otlp_grpc_address(f->s);
    spans_msg(&f->m, NULL);
}

static void teardown(fixture *f)
{
    ingest_otlp_grpc_stop(f->s);
    core_buf_free(&f->m);
    core_buf_free(&f->r.seen);
    pthread_mutex_destroy(&f->r.mu);
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

TEST(traces_export_is_answered_with_a_response_and_status_trailer)
{
    fixture f;
    setup(&f, NULL);
    gres g;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.http_status, 200);
    CHECK_STR(g.ctype, "application/grpc");
    CHECK_INT(g.grpc_status, 0);
    CHECK_INT(g.close_code, 0);
    /* An empty ExportTraceServiceResponse, framed. */
    CHECK_INT(g.data.len, 5);
    CHECK(memcmp(g.data.data, "\0\0\0\0\0", 5) == 0);
    CHECK_STR(f.r.seen.data, "T c1 add to cart\nT c1 checkout\n");
    gres_free(&g);

    /* application/grpc+proto is the same thing. */
    static const char *const plus[] = {"content-type", "application/grpc+proto", NULL};
    call(f.addr, TRACES, plus, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 0);
    gres_free(&g);
    ingest_otlp_grpc_stats st;
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.requests, 2);
    CHECK_INT(st.by_code[0], 2);
    CHECK_INT(st.accepted_events, 4);
    teardown(&f);
}

TEST(logs_partial_success_carries_the_rejected_count_and_reason)
{
    fixture f;
    setup(&f, NULL);
    /* Two log records: one with a case, one with neither a case nor a
     * trace id (rejected). */
    Pmrag__Otlp__KeyValue kv = PMRAG__OTLP__KEY_VALUE__INIT;
    Pmrag__Otlp__AnyValue av = PMRAG__OTLP__ANY_VALUE__INIT;
    kv.key = "case.id";
    av.value_case = PMRAG__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
    av.string_value = "k1";
    kv.value = &av;
    Pmrag__Otlp__KeyValue *kvs[] = {&kv};
    Pmrag__Otlp__AnyValue b1 = PMRAG__OTLP__ANY_VALUE__INIT, b2 = PMRAG__OTLP__ANY_VALUE__INIT;
    b1.value_case = b2.value_case = PMRAG__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
    b1.string_value = "paid";
    b2.string_value = "lost";
    Pmrag__Otlp__LogRecord l1 = PMRAG__OTLP__LOG_RECORD__INIT, l2 = PMRAG__OTLP__LOG_RECORD__INIT;
    l1.body = &b1;
    l1.n_attributes = 1;
    l1.attributes = kvs;
    l1.time_unix_nano = 1700000000000000000ull;
    l2.body = &b2;
    Pmrag__Otlp__LogRecord *lrs[] = {&l1, &l2};
    Pmrag__Otlp__ScopeLogs sl = PMRAG__OTLP__SCOPE_LOGS__INIT;
    sl.n_log_records = 2;
    sl.log_records = lrs;
    Pmrag__Otlp__ScopeLogs *sls[] = {&sl};
    Pmrag__Otlp__ResourceLogs rl = PMRAG__OTLP__RESOURCE_LOGS__INIT;
    rl.n_scope_logs = 1;
    rl.scope_logs = sls;
    Pmrag__Otlp__ResourceLogs *rls[] = {&rl};
    Pmrag__Otlp__ExportLogsServiceRequest req = PMRAG__OTLP__EXPORT_LOGS_SERVICE_REQUEST__INIT;
    req.n_resource_logs = 1;
    req.resource_logs = rls;
    size_t n = pmrag__otlp__export_logs_service_request__get_packed_size(&req);
    uint8_t *pb = malloc(n);
    pmrag__otlp__export_logs_service_request__pack(&req, pb);
    core_buf m = {0};
    ingest__grpc_frame(&m, pb, n);
    gres g;
    call(f.addr, LOGS, NULL, m.data, m.len, &g);
    CHECK_INT(g.grpc_status, 0);
    CHECK_STR(f.r.seen.data, "L k1 paid\n");
    ingest__grpc_msg msg;
    char why[256];
    CHECK_INT(ingest__grpc_unframe(g.data.data, g.data.len, 1 << 20, &msg, why, sizeof why), 0);
    Pmrag__Otlp__ExportLogsServiceResponse *resp =
        pmrag__otlp__export_logs_service_response__unpack(NULL, msg.len, msg.data);
    CHECK(resp && resp->partial_success);
    CHECK_INT(resp->partial_success->rejected_log_records, 1);
    CHECK(strstr(resp->partial_success->error_message, "case"));
    pmrag__otlp__export_logs_service_response__free_unpacked(resp, NULL);
    ingest_otlp_grpc_stats st;
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.rejected_events, 1);
    gres_free(&g);
    free(pb);
    core_buf_free(&m);
    teardown(&f);
}

TEST(gzip_messages_and_encodings)
{
    fixture f;
    setup(&f, NULL);
    core_buf raw = {0}, plain = {0}, gz = {0};
    spans_msg(&plain, &raw);
    gz_frame(raw.data, raw.len, &gz);
    static const char *const enc_gzip[] = {"grpc-encoding", "gzip", NULL};
    gres g;
    call(f.addr, TRACES, enc_gzip, gz.data, gz.len, &g);
    CHECK_INT(g.grpc_status, 0);
    gres_free(&g);
    uint8_t id_gz[INGEST_REQUEST_ID];
    memcpy(id_gz, f.r.last_id, sizeof id_gz);
    /* The same request uncompressed has the same id (a retry is a retry
     * however it is encoded). */
    call(f.addr, TRACES, NULL, plain.data, plain.len, &g);
    CHECK_INT(g.grpc_status, 0);
    CHECK(memcmp(id_gz, f.r.last_id, sizeof id_gz) == 0);
    gres_free(&g);
    CHECK_INT(f.r.calls, 2);

    /* Compressed flag without an encoding to read it with. */
    call(f.addr, TRACES, NULL, gz.data, gz.len, &g);
    CHECK_INT(g.grpc_status, 13);
    CHECK_STR(decoded(g.message),
              "compressed message without a grpc-encoding (gzip) to read it with");
    gres_free(&g);
    /* An encoding we do not have: UNIMPLEMENTED, and what we accept. */
    static const char *const snappy[] = {"grpc-encoding", "snappy", NULL};
    call(f.addr, TRACES, snappy, plain.data, plain.len, &g);
    CHECK_INT(g.grpc_status, 12);
    CHECK_STR(g.accept_enc, "identity,gzip");
    CHECK_STR(decoded(g.message), "unsupported grpc-encoding 'snappy': use gzip or identity");
    gres_free(&g);
    /* Broken gzip. */
    gz.data[gz.len - 3] ^= 0x55;
    call(f.addr, TRACES, enc_gzip, gz.data, gz.len, &g);
    CHECK_INT(g.grpc_status, 13);
    CHECK(strncmp(decoded(g.message), "gzip: ", 6) == 0);
    gres_free(&g);
    CHECK_INT(f.r.calls, 2);
    core_buf_free(&raw);
    core_buf_free(&plain);
    core_buf_free(&gz);
    teardown(&f);
}

TEST(refusals_from_the_headers_and_the_message)
{
    fixture f;
    setup(&f, NULL);
    gres g;
    call(f.addr, "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", NULL, f.m.data,
         f.m.len, &g);
    CHECK_INT(g.http_status, 200);
    CHECK_INT(g.grpc_status, 12);
    CHECK(strstr(decoded(g.message), "unknown method "
                                     "/opentelemetry.proto.collector.metrics.v1.MetricsService/"));
    gres_free(&g);

    static const char *const json[] = {"content-type", "application/json", NULL};
    call(f.addr, TRACES, json, f.m.data, f.m.len, &g);
    CHECK_INT(g.http_status, 415);
    CHECK_INT(g.grpc_status, 3);
    CHECK_STR(decoded(g.message), "unsupported content-type 'application/json': use "
                                  "application/grpc or application/grpc+proto");
    gres_free(&g);

    /* Not protobuf: INVALID_ARGUMENT naming the offset. */
    core_buf bad = {0};
    ingest__grpc_frame(&bad, "\x0a\x05\x01", 3);
    call(f.addr, TRACES, NULL, bad.data, bad.len, &g);
    CHECK_INT(g.grpc_status, 3);
    CHECK(strncmp(decoded(g.message), "offset ", 7) == 0);
    gres_free(&g);
    /* Framing: a second message on a unary call. */
    core_buf two = {0};
    ingest__grpc_frame(&two, "", 0);
    ingest__grpc_frame(&two, "", 0);
    call(f.addr, TRACES, NULL, two.data, two.len, &g);
    CHECK_INT(g.grpc_status, 13);
    CHECK_STR(decoded(g.message),
              "5 bytes after the message (a unary call carries exactly one message)");
    gres_free(&g);
    /* No message at all. */
    call(f.addr, LOGS, NULL, NULL, 0, &g);
    CHECK_INT(g.grpc_status, 13);
    gres_free(&g);
    /* GET. */
    gcli c;
    cli_open(&c, f.addr, NULL, NULL);
    gres *gg = cli_start(&c, "GET", TRACES, NULL, NULL, 0);
    cli_run(&c);
    CHECK_INT(gg->http_status, 405);
    CHECK_INT(gg->grpc_status, 12);
    cli_free(&c);
    CHECK_INT(f.r.calls, 0);
    ingest_otlp_grpc_stats st;
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.requests, 6);
    CHECK_INT(st.by_code[12], 2);
    CHECK_INT(st.by_code[3], 2);
    CHECK_INT(st.by_code[13], 2);
    core_buf_free(&bad);
    core_buf_free(&two);
    teardown(&f);
}

TEST(max_body_on_the_wire_by_prefix_and_once_decompressed)
{
    ingest_otlp_recv_opts o = {.max_body = 1024};
    fixture f;
    setup(&f, &o);
    /* The prefix announces 1 MiB; only its first 64 KiB are ever sent by
     * our client before the answer: the rest is reset, not read. */
    size_t big = (size_t)1 << 20;
    char *payload = calloc(1, big);
    core_buf m = {0};
    ingest__grpc_frame(&m, payload, big);
    gres g;
    call(f.addr, TRACES, NULL, m.data, m.len, &g);
    CHECK_INT(g.grpc_status, 8);
    CHECK_STR(decoded(g.message), "message of 1048576 bytes is larger than 1024 bytes "
                                  "(otlp.max_body)");
    CHECK(!g.details[0] && !g.retry_alone[0]); /* final: no RetryInfo */
    gres_free(&g);
    /* A small gzip body that inflates past the limit. */
    core_buf gz = {0};
    gz_frame(payload, 4096, &gz);
    CHECK(gz.len < 1024);
    static const char *const enc_gzip[] = {"grpc-encoding", "gzip", NULL};
    call(f.addr, TRACES, enc_gzip, gz.data, gz.len, &g);
    CHECK_INT(g.grpc_status, 8);
    CHECK_STR(decoded(g.message),
              "message larger than 1024 bytes once decompressed (otlp.max_body)");
    gres_free(&g);
    ingest_otlp_grpc_stats st;
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.too_large, 2);
    CHECK_INT(f.r.calls, 0);
    free(payload);
    core_buf_free(&m);
    core_buf_free(&gz);
    teardown(&f);
}

/* The Status in a grpc-status-details-bin value, as the bytes
 * ingest__grpc_status_details would write for code, message and a 1 s
 * retry. */
static bool has_retry_info(const gres *g)
{
    core_buf want = {0};
    ingest__grpc_status_details(&want, g->grpc_status, decoded(g->message), 1);
    /* RetryInfo{retry_delay {seconds 1}} alone: 0a 02 08 01. */
    bool ok =
        want.data && strcmp(want.data, g->details) == 0 && strcmp(g->retry_alone, "CgIIAQ") == 0;
    core_buf_free(&want);
    return ok;
}

TEST(overload_is_unavailable_or_resource_exhausted_with_retry_info)
{
    fixture f;
    setup(&f, NULL);
    gres g;
    f.r.rc = -EAGAIN;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 14);
    CHECK_STR(decoded(g.message), "ingest queue full, retry later");
    CHECK(has_retry_info(&g));
    gres_free(&g);
    f.r.rc = CORE_ELIMIT;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 8);
    CHECK_STR(decoded(g.message), "rate limit exceeded, retry later");
    CHECK(has_retry_info(&g));
    gres_free(&g);
    f.r.rc = -EIO;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 13);
    CHECK(!g.details[0]);
    gres_free(&g);
    /* The queue full before the message is decoded: the batch is not
     * called. */
    atomic_store(&f.r.busy, true);
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 14);
    CHECK_STR(decoded(g.message), "ingest queue full, retry later");
    CHECK(has_retry_info(&g));
    gres_free(&g);
    atomic_store(&f.r.busy, false);
    /* Refused from the headers (the memory limit): the batch is not
     * called. */
    f.r.rc = 0;
    atomic_store(&f.r.busy_early, true);
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 14);
    CHECK(has_retry_info(&g));
    gres_free(&g);
    CHECK_INT(f.r.calls, 3);
    teardown(&f);
}

TEST(bearer_token_or_unauthenticated)
{
    char *tf = unit_token_file("s3cret-token\n");
    ingest_otlp_recv_opts o = {.token_file = tf};
    fixture f;
    setup(&f, &o);
    gres g;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 16);
    CHECK(strstr(decoded(g.message), "authorization: Bearer"));
    gres_free(&g);
    static const char *const wrong[] = {"authorization", "Bearer s3cret-tokeN", NULL};
    call(f.addr, TRACES, wrong, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 16);
    gres_free(&g);
    CHECK_INT(f.r.calls, 0);
    static const char *const right[] = {"authorization", "bearer s3cret-token", NULL};
    call(f.addr, TRACES, right, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 0);
    gres_free(&g);
    CHECK_INT(f.r.calls, 1);
    free(tf);
    teardown(&f);
}

TEST(a_held_call_blocks_neither_its_connection_nor_others)
{
    ingest_otlp_recv_opts o = {.threads = 2};
    fixture f;
    setup(&f, &o);
    gcli c;
    cli_open(&c, f.addr, NULL, NULL);
    atomic_store(&f.r.hold, 1);
    gres *held = cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
    /* On the same connection, a refusal from the headers is answered while
     * the first call waits in the batch function; so is a call on another
     * connection. */
    gres *other = cli_start(&c, "POST", "/x/Y", NULL, f.m.data, f.m.len);
    for (int i = 0; i < 200 && !other->closed; i++) {
        nghttp2_session_send(c.h2);
        struct pollfd p = {.fd = c.fd, .events = POLLIN};
        if (poll(&p, 1, 10) > 0) {
            uint8_t buf[4096];
            ssize_t n = recv(c.fd, buf, sizeof buf, 0);
            CHECK(n > 0);
            nghttp2_session_mem_recv(c.h2, buf, (size_t)n);
        }
    }
    CHECK(other->closed && other->grpc_status == 12);
    CHECK(!held->closed);
    gres g;
    call(f.addr, LOGS, NULL, "", 0, &g);
    CHECK_INT(g.grpc_status, 13);
    gres_free(&g);
    atomic_store(&f.r.hold, 0);
    cli_run(&c);
    CHECK_INT(held->grpc_status, 0);
    cli_free(&c);
    /* Several calls at once on one connection. */
    cli_open(&c, f.addr, NULL, NULL);
    for (int i = 0; i < 8; i++)
        cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
    cli_run(&c);
    for (int i = 0; i < 8; i++)
        CHECK_INT(c.calls[i].grpc_status, 0);
    cli_free(&c);
    CHECK_INT(f.r.calls, 9);
    teardown(&f);
}

/* Whether the server closed fd within ms milliseconds. */
static bool closed_within(int fd, int ms)
{
    for (int t = 0; t < ms; t += 10) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10) > 0) {
            uint8_t b[4096];
            ssize_t n = recv(fd, b, sizeof b, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno == ECONNRESET))
                return true;
        }
    }
    return false;
}

TEST(connection_limits_and_timeouts)
{
    ingest_otlp_recv_opts o = {.limits = {.max_conns = 2, .header_timeout = 1}};
    fixture f;
    setup(&f, &o);
    /* Silent: closed after header_timeout. */
    int silent = tcp_connect(f.addr);
    CHECK(closed_within(silent, 3000));
    close(silent);
    ingest_otlp_grpc_stats st;
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.timed_out, 1);
    /* Two idle connections, then a third: the oldest makes room. */
    gcli a, b;
    cli_open(&a, f.addr, NULL, NULL);
    usleep(20000);
    cli_open(&b, f.addr, NULL, NULL);
    usleep(20000);
    gres g;
    call(f.addr, TRACES, NULL, f.m.data, f.m.len, &g);
    CHECK_INT(g.grpc_status, 0);
    gres_free(&g);
    CHECK(closed_within(a.fd, 1000));
    ingest_otlp_grpc_get_stats(f.s, &st);
    CHECK_INT(st.evicted, 1);
    cli_free(&a);
    cli_free(&b);
    teardown(&f);
}

TEST(tls_with_alpn_h2_only)
{
    char *cert, *key;
    unit_make_cert("srv", &cert, &key);
    ingest_otlp_recv_opts o = {.tls_cert = cert, .tls_key = key};
    fixture f;
    setup(&f, &o);
    gcli c;
    cli_open(&c, f.addr, cert, "h2");
    CHECK(!c.eof);
    gres *g = cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
    cli_run(&c);
    CHECK_INT(g->grpc_status, 0);
    cli_free(&c);
    CHECK_INT(f.r.calls, 1);
    /* Another protocol: no handshake. No ALPN at all: the handshake may
     * finish, but the connection is closed without serving a call. */
    cli_open(&c, f.addr, cert, "http/1.1");
    CHECK(c.eof);
    cli_free(&c);
    cli_open(&c, f.addr, cert, NULL);
    if (!c.eof) {
        g = cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
        cli_run(&c);
        CHECK(c.eof && g->grpc_status == -1);
    }
    cli_free(&c);
    /* Plain text to a TLS listener: closed, never served. */
    cli_open(&c, f.addr, NULL, NULL);
    g = cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
    cli_run(&c);
    CHECK(c.eof && g->grpc_status == -1);
    cli_free(&c);
    CHECK_INT(f.r.calls, 1);

    /* A key without its certificate is refused at start, naming both. */
    ingest_otlp_recv_opts half = {.listen = "127.0.0.1:0", .tls_key = key};
    char why[512] = "";
    ingest_otlp_grpc *none = NULL;
    CHECK_INT(ingest_otlp_grpc_start(&half, batch, &f.r, &none, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "tls_key") && strstr(why, "without tls_cert"));
    CHECK(!none);
    teardown(&f);
    free(cert);
    free(key);
}

TEST(start_errors_name_the_address)
{
    fixture f;
    setup(&f, NULL);
    ingest_otlp_recv_opts o = {.listen = f.addr};
    ingest_otlp_grpc *t = NULL;
    char why[512] = "";
    CHECK(ingest_otlp_grpc_start(&o, batch, &f.r, &t, why, sizeof why) != 0);
    char want[256];
    snprintf(want, sizeof want, "listen %s: Address already in use", o.listen);
    CHECK_STR(why, want);
    o.listen = "nowhere";
    CHECK_INT(ingest_otlp_grpc_start(&o, batch, &f.r, &t, why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "listen nowhere: not host:port");
    teardown(&f);
}

typedef struct stopper {
    ingest_otlp_grpc *s;
    _Atomic bool done;
} stopper;

static void *stop_main(void *arg)
{
    stopper *st = arg;
    ingest_otlp_grpc_stop(st->s);
    atomic_store(&st->done, true);
    return NULL;
}

TEST(stop_answers_the_held_call_and_refuses_a_half_sent_one)
{
    fixture f;
    setup(&f, NULL);
    gcli c;
    cli_open(&c, f.addr, NULL, NULL);
    atomic_store(&f.r.hold, 1);
    gres *held = cli_start(&c, "POST", TRACES, NULL, f.m.data, f.m.len);
    /* A second call whose message never ends (no END_STREAM). */
    nghttp2_nv h[] = {
        {(uint8_t *)":method", (uint8_t *)"POST", 7, 4, 0},
        {(uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0},
        {(uint8_t *)":authority", (uint8_t *)"x", 10, 1, 0},
        {(uint8_t *)":path", (uint8_t *)TRACES, 5, sizeof TRACES - 1, 0},
        {(uint8_t *)"content-type", (uint8_t *)"application/grpc", 12, 16, 0},
    };
    gres *half = &c.calls[c.n++];
    memset(half, 0, sizeof *half);
    half->grpc_status = -1;
    half->id = nghttp2_submit_headers(c.h2, NGHTTP2_FLAG_NONE, -1, NULL, h, 5, NULL);
    CHECK(half->id > 0);
    CHECK_OK(nghttp2_session_send(c.h2));
    usleep(100000); /* both reach the receiver; the first waits in the batch */
    stopper sp = {.s = f.s};
    pthread_t t;
    pthread_create(&t, NULL, stop_main, &sp);
    usleep(200000);
    CHECK(!atomic_load(&sp.done)); /* stop waits for the held call */
    atomic_store(&f.r.hold, 0);
    cli_run(&c);
    CHECK_INT(held->grpc_status, 0);
    CHECK_INT(half->grpc_status, 14);
    CHECK_STR(decoded(half->message), "shutting down, retry later");
    pthread_join(t, NULL);
    CHECK(atomic_load(&sp.done));
    f.s = NULL; /* stopped by stop_main */
    cli_free(&c);
    teardown(&f);
}
