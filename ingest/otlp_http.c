/*
 * The OTLP/HTTP receiver: POST /v1/traces and /v1/logs on core_http,
 * protobuf or JSON, optionally gzip-compressed, decoded by
 * ingest_otlp_decode() and handed to the daemon one request at a time.
 *
 * Status codes follow the OTLP/HTTP specification's retry semantics:
 * 400, 401, 404, 405, 413 and 415 are final (the exporter drops the data),
 * 429 and 503 carry Retry-After and are retried, 500 is an error on our
 * side. 401 (no or a wrong bearer token) comes from core_http, before the
 * body is read.
 */
#include "ingest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OTLP_DEFAULT_LISTEN "127.0.0.1:4318"
#define OTLP_DEFAULT_MAX_BODY ((size_t)64 << 20)

struct ingest_otlp_http {
    core_http *http;
    ingest_otlp_batch_fn fn;
    bool (*busy)(void *ud);
    bool (*busy_early)(void *ud);
    void *ud;
    size_t max_body;
    char **case_attrs; /* owned copies */
    size_t ncase;
    uint32_t max_attrs;
    size_t max_str, max_case_id;
    core_logger log;
    _Atomic uint64_t requests, accepted_events, rejected_events, truncated_events, bad_requests,
        too_large, unsupported, throttled;
};

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void plain(core_http_resp *resp, int status, const char *fmt, ...) CORE_PRINTF(3, 4);
static void plain(core_http_resp *resp, int status, const char *fmt, ...)
{
    resp->status = status;
    resp->content_type = "text/plain; charset=utf-8";
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(&resp->body, fmt, ap);
    va_end(ap);
    core_buf_putc(&resp->body, '\n');
}

/* The media type without parameters, compared case-insensitively. */
static bool media_is(const char *ctype, const char *want)
{
    while (*ctype == ' ' || *ctype == '\t')
        ctype++;
    size_t n = strcspn(ctype, "; \t");
    return n == strlen(want) && strncasecmp(ctype, want, n) == 0;
}

/*
 * Events of one request, copied out of the decoder's memory (valid only
 * during emit) into an arena that lives until the batch function returns.
 */
typedef struct collect {
    core_arena arena;
    core_vec(ingest_event) evs;
} collect;

static const char *dup(core_arena *a, const char *s)
{
    return s ? core_arena_strndup(a, s, strlen(s)) : NULL;
}

static int collect_emit(void *ud, const ingest_event *ev)
{
    collect *c = ud;
    ingest_event e = *ev;
    e.case_id = dup(&c->arena, ev->case_id);
    e.activity = dup(&c->arena, ev->activity);
    ingest_attr *attrs = NULL;
    if (ev->nattrs) {
        attrs = core_arena_alloc(&c->arena, ev->nattrs * sizeof *attrs);
        for (uint32_t i = 0; i < ev->nattrs; i++) {
            attrs[i].key = dup(&c->arena, ev->attrs[i].key);
            attrs[i].val = dup(&c->arena, ev->attrs[i].val);
        }
    }
    e.attrs = attrs;
    core_vec_push(&c->evs, e);
    return 0;
}

static void handle(void *ud, const core_http_req *req, core_http_resp *resp)
{
    ingest_otlp_http *s = ud;
    count(&s->requests, 1);
    ingest_otlp_kind kind;
    if (strcmp(req->path, "/v1/traces") == 0) {
        kind = INGEST_OTLP_TRACES;
    } else if (strcmp(req->path, "/v1/logs") == 0) {
        kind = INGEST_OTLP_LOGS;
    } else {
        count(&s->bad_requests, 1);
        plain(resp, 404, "not found: %s (this receiver serves /v1/traces and /v1/logs)", req->path);
        return;
    }
    if (strcmp(req->method, "POST") != 0) {
        count(&s->bad_requests, 1);
        plain(resp, 405, "method %s not allowed on %s: use POST", req->method, req->path);
        resp->allow = "POST";
        return;
    }

    ingest_encoding enc;
    const char *ctype = req->content_type ? req->content_type : "";
    if (media_is(ctype, "application/x-protobuf")) {
        enc = INGEST_ENC_PROTO;
    } else if (media_is(ctype, "application/json")) {
        enc = INGEST_ENC_JSON;
    } else {
        count(&s->unsupported, 1);
        plain(resp, 415,
              "unsupported Content-Type '%s': use application/x-protobuf or application/json",
              ctype);
        return;
    }

    if (s->busy && s->busy(s->ud)) {
        count(&s->throttled, 1);
        plain(resp, 503, "ingest queue full, retry later");
        resp->retry_after = 1;
        return;
    }
    const char *body = req->body;
    size_t len = req->len;
    core_buf inflated = {0};
    collect c = {0};
    char why[512] = "";
    const char *cenc = req->content_encoding;
    if (cenc && *cenc && strcasecmp(cenc, "identity") != 0) {
        if (strcasecmp(cenc, "gzip") != 0) {
            count(&s->unsupported, 1);
            plain(resp, 415, "unsupported Content-Encoding '%s': use gzip or none", cenc);
            return;
        }
        int rc = ingest_gunzip(req->body, req->len, s->max_body, &inflated, why, sizeof why);
        if (rc == CORE_ELIMIT) {
            count(&s->too_large, 1);
            core_logf(&s->log, CORE_LOG_NOTE, "otlp-http: POST %s: gzip body over %zu bytes: 413",
                      req->path, s->max_body);
            plain(resp, 413, "request body larger than %zu bytes once decompressed", s->max_body);
            goto done;
        }
        if (rc) {
            count(&s->bad_requests, 1);
            core_logf(&s->log, CORE_LOG_NOTE, "otlp-http: POST %s: gzip: %s: 400", req->path,
                      why[0] ? why : core_strerror(rc));
            plain(resp, 400, "gzip: %s", why[0] ? why : core_strerror(rc));
            goto done;
        }
        body = inflated.data ? inflated.data : "";
        len = inflated.len;
    }

    core_arena_init(&c.arena, 0);
    ingest_decode_opts dopts = {
        .case_attrs = (const char *const *)s->case_attrs,
        .ncase = s->ncase,
        .max_attrs = s->max_attrs,
        .max_str = s->max_str,
        .max_case_id = s->max_case_id,
    };
    ingest_decode_result res = {0};
    int rc =
        ingest_otlp_decode(kind, enc, body, len, &dopts, collect_emit, &c, &res, why, sizeof why);
    if (rc == CORE_EFORMAT) {
        count(&s->bad_requests, 1);
        core_logf(&s->log, CORE_LOG_NOTE, "otlp-http: POST %s: %s: 400", req->path, why);
        plain(resp, 400, "%s", why[0] ? why : core_strerror(rc));
        goto done;
    }
    if (rc) {
        core_logf(&s->log, CORE_LOG_WARN, "otlp-http: POST %s: decoding: %s%s%s: 500", req->path,
                  core_strerror(rc), why[0] ? ": " : "", why);
        plain(resp, 500, "decoding failed: %s", core_strerror(rc));
        goto done;
    }
    count(&s->rejected_events, res.rejected);
    count(&s->truncated_events, res.truncated);

    if (c.evs.n) {
        /* Two independent 64-bit hashes: a retried request, and only
         * that, has the same id (the chance of two different bodies
         * sharing one is about 2^-128 per pair). */
        uint8_t id[INGEST_REQUEST_ID];
        uint64_t h0 = core_hash64(body, len, 0x6f746c70u + (uint64_t)kind);
        uint64_t h1 = core_hash64(body, len, ~h0 ^ 0x9e3779b97f4a7c15ull);
        memcpy(id, &h0, 8);
        memcpy(id + 8, &h1, 8);
        rc = s->fn(s->ud, kind, c.evs.v, c.evs.n, id);
        if (rc == -EAGAIN || rc == CORE_ELIMIT) {
            /* The exporter keeps the data and retries after a second. */
            count(&s->throttled, 1);
            plain(resp, rc == -EAGAIN ? 503 : 429, "%s, retry later",
                  rc == -EAGAIN ? "ingest queue full" : "rate limit exceeded");
            resp->retry_after = 1;
            goto done;
        }
        if (rc) {
            core_logf(&s->log, CORE_LOG_WARN, "otlp-http: POST %s: %zu events not accepted: %s",
                      req->path, c.evs.n, core_strerror(rc));
            plain(resp, 500, "events not accepted: %s", core_strerror(rc));
            goto done;
        }
        count(&s->accepted_events, c.evs.n);
    }

    resp->status = 200;
    resp->content_type = enc == INGEST_ENC_PROTO ? "application/x-protobuf" : "application/json";
    if (res.rejected)
        core_logf(&s->log, CORE_LOG_NOTE, "otlp-http: POST %s: %llu records rejected: %s",
                  req->path, (unsigned long long)res.rejected, res.reject_reason);
    ingest_otlp_response(kind, enc, res.rejected, res.rejected ? res.reject_reason : NULL,
                         &resp->body);

done:
    core_vec_free(&c.evs);
    core_arena_free(&c.arena);
    core_buf_free(&inflated);
}

/* Headers in: a POST to a signal path is refused before its body is
 * read when busy_early says so (503 + Retry-After: 1, as below). */
static bool busy_early(void *ud, const char *method, const char *path)
{
    ingest_otlp_http *s = ud;
    if (strcmp(method, "POST") != 0 ||
        (strcmp(path, "/v1/traces") != 0 && strcmp(path, "/v1/logs") != 0) || !s->busy_early(s->ud))
        return false;
    count(&s->requests, 1);
    count(&s->throttled, 1);
    return true;
}

static void free_attrs(char **a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

int ingest_otlp_http_start(const ingest_otlp_http_opts *o, ingest_otlp_batch_fn fn, void *ud,
                           ingest_otlp_http **out, char *why, size_t whylen)
{
    static const ingest_otlp_http_opts defaults = {0};
    if (!o)
        o = &defaults;
    if (!fn || !out) {
        if (why && whylen)
            snprintf(why, whylen, "ingest_otlp_http_start: missing argument");
        return CORE_EUSAGE;
    }
    ingest_otlp_http *s = core_xcalloc(1, sizeof *s);
    s->fn = fn;
    s->busy = o->busy;
    s->busy_early = o->busy_early;
    s->ud = ud;
    s->max_body = o->max_body ? o->max_body : OTLP_DEFAULT_MAX_BODY;
    s->max_attrs = o->max_attrs;
    s->max_str = o->max_str;
    s->max_case_id = o->max_case_id;
    s->log = o->log;
    if (o->case_attrs && o->ncase) {
        s->case_attrs = core_xcalloc(o->ncase, sizeof *s->case_attrs);
        for (size_t i = 0; i < o->ncase; i++)
            s->case_attrs[i] = core_xstrdup(o->case_attrs[i]);
        s->ncase = o->ncase;
    }
    core_http_opts ho = {
        .listen = o->listen ? o->listen : OTLP_DEFAULT_LISTEN,
        .name = "OTLP receiver (POST /v1/traces, /v1/logs)",
        .max_body = s->max_body,
        .threads = o->threads,
        .log = o->log,
        .token_file = o->token_file,
        .tls_cert = o->tls_cert,
        .tls_key = o->tls_key,
        .busy = o->busy_early ? busy_early : NULL,
    };
    int rc = core_http_start(&ho, handle, s, &s->http, why, whylen);
    if (rc) {
        free_attrs(s->case_attrs, s->ncase);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const char *ingest_otlp_http_address(const ingest_otlp_http *s)
{
    return core_http_address(s->http);
}

void ingest_otlp_http_get_stats(ingest_otlp_http *s, ingest_otlp_http_stats *out)
{
    /* Bodies over the limit on the wire never reach our handler: the
     * server answers them, and counts them. */
    core_http_stats hs;
    core_http_get_stats(s->http, &hs);
    *out = (ingest_otlp_http_stats){
        .requests = atomic_load(&s->requests) + hs.too_large + hs.unauthorized,
        .accepted_events = atomic_load(&s->accepted_events),
        .rejected_events = atomic_load(&s->rejected_events),
        .truncated_events = atomic_load(&s->truncated_events),
        .bad_requests = atomic_load(&s->bad_requests),
        .too_large = atomic_load(&s->too_large) + hs.too_large,
        .unsupported = atomic_load(&s->unsupported),
        .throttled = atomic_load(&s->throttled),
        .unauthorized = hs.unauthorized,
    };
}

void ingest_otlp_http_stop(ingest_otlp_http *s)
{
    if (!s)
        return;
    core_http_stop(s->http);
    free_attrs(s->case_attrs, s->ncase);
    free(s);
}
