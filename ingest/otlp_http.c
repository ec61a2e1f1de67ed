/*
 * The OTLP/HTTP receiver: POST /v1/traces and /v1/logs on core_http,
 * protobuf or JSON, optionally gzip-compressed, decoded by
 * ingest_otlp_decode() and handed to the daemon one request at a time.
 *
 * Status codes follow the OTLP/HTTP specification's retry semantics:
 * 400, 401, 404, 405, 413 and 415 are final (the exporter drops the data),
 * 429 and 503 carry Retry-After and are retried, 500 is an error on our
 * side. 401 (no or a wrong bearer token) comes from core_http, before the
 * body is read, and so does a 413 for a Content-Length over the limit.
 *
 * An error answer here is what OTLP/HTTP asks for: a google.rpc.Status
 * (code, message) in the request's encoding, protobuf or JSON (JSON when
 * the request's own is unknown). Each is counted by reason and logged with
 * the client's address, at most a few lines a second (the rest counted in
 * the next line): a client looping on a bad request cannot flood the log.
 */
#include "otlp_int.h"

#include "pmrag/otlp/collector.pb-c.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OTLP_DEFAULT_LISTEN "127.0.0.1:4318"

struct ingest_otlp_http {
    core_http *http;
    ingest__otlp_recv rx; /* options, event counters, log limit */
    _Atomic uint64_t requests, bad_requests, too_large, unsupported, throttled, errors;
};

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void refuse(ingest_otlp_http *s, const core_http_req *req, core_http_resp *resp,
                   ingest_encoding enc, int status, const char *fmt, ...) CORE_PRINTF(6, 7);
/* The gRPC status code OTLP/HTTP pairs with an HTTP status. */
static int grpc_code(int status)
{
    switch (status) {
    case 400:
    case 415:
        return 3; /* INVALID_ARGUMENT */
    case 404:
    case 405:
        return 12; /* UNIMPLEMENTED */
    case 413:
    case 429:
        return 8; /* RESOURCE_EXHAUSTED */
    case 503:
        return 14; /* UNAVAILABLE */
    default:
        return 13; /* INTERNAL */
    }
}

static void refuse(ingest_otlp_http *s, const core_http_req *req, core_http_resp *resp,
                   ingest_encoding enc, int status, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    count(status == 400 || status == 404 || status == 405 ? &s->bad_requests
          : status == 413                                 ? &s->too_large
          : status == 415                                 ? &s->unsupported
          : status == 429 || status == 503                ? &s->throttled
                                                          : &s->errors,
          1);
    char more[64];
    if (ingest__loglimit_take(&s->rx.loglim, more, sizeof more)) {
        core_logf(&s->rx.log, status >= 500 && status != 503 ? CORE_LOG_WARN : CORE_LOG_NOTE,
                  "otlp-http: %s %s from %s: %d: %s%s", req->method, req->path,
                  req->client ? req->client : "?", status, msg, more);
    }
    resp->status = status;
    Pmrag__Otlp__Status st = PMRAG__OTLP__STATUS__INIT;
    st.code = grpc_code(status);
    st.message = msg;
    if (enc == INGEST_ENC_PROTO) {
        resp->content_type = "application/x-protobuf";
        size_t n = pmrag__otlp__status__get_packed_size(&st);
        core_buf_reserve(&resp->body, n);
        pmrag__otlp__status__pack(&st, (uint8_t *)resp->body.data + resp->body.len);
        resp->body.len += n;
        resp->body.data[resp->body.len] = 0;
    } else {
        resp->content_type = "application/json";
        core_buf_printf(&resp->body, "{\"code\":%d,\"message\":", st.code);
        core_buf_json_str(&resp->body, msg, strlen(msg));
        core_buf_puts(&resp->body, "}\n");
    }
}

/* The media type without parameters, compared case-insensitively. */
static bool media_is(const char *ctype, const char *want)
{
    while (*ctype == ' ' || *ctype == '\t')
        ctype++;
    size_t n = strcspn(ctype, "; \t");
    return n == strlen(want) && strncasecmp(ctype, want, n) == 0;
}

static void handle(void *ud, const core_http_req *req, core_http_resp *resp)
{
    ingest_otlp_http *s = ud;
    count(&s->requests, 1);
    /* What an error answer is written in, until the body's own encoding
     * is known: the request's Content-Type when it is one of OTLP's. */
    const char *ctype = req->content_type ? req->content_type : "";
    ingest_encoding enc =
        media_is(ctype, "application/x-protobuf") ? INGEST_ENC_PROTO : INGEST_ENC_JSON;
    ingest_otlp_kind kind;
    if (strcmp(req->path, "/v1/traces") == 0) {
        kind = INGEST_OTLP_TRACES;
    } else if (strcmp(req->path, "/v1/logs") == 0) {
        kind = INGEST_OTLP_LOGS;
    } else {
        refuse(s, req, resp, enc, 404,
               "not found: %s (this receiver serves /v1/traces and /v1/logs)", req->path);
        return;
    }
    if (strcmp(req->method, "POST") != 0) {
        refuse(s, req, resp, enc, 405, "method %s not allowed on %s: use POST", req->method,
               req->path);
        resp->allow = "POST";
        return;
    }

    if (!media_is(ctype, "application/x-protobuf") && !media_is(ctype, "application/json")) {
        refuse(s, req, resp, enc, 415,
               "unsupported Content-Type '%s': use application/x-protobuf or application/json",
               ctype);
        return;
    }

    if (s->rx.busy && s->rx.busy(s->rx.ud)) {
        refuse(s, req, resp, enc, 503, "ingest queue full, retry later");
        resp->retry_after = 1;
        return;
    }
    const char *cenc = req->content_encoding;
    bool gzip = cenc && *cenc && strcasecmp(cenc, "identity") != 0;
    if (gzip && strcasecmp(cenc, "gzip") != 0) {
        refuse(s, req, resp, enc, 415, "unsupported Content-Encoding '%s': use gzip or none", cenc);
        return;
    }

    /* As long as refuse()'s message: the decoder's reason and a prefix. */
    char why[600];
    ingest_decode_result res;
    ingest__otlp_outcome o = ingest__otlp_recv_message(&s->rx, kind, enc, req->body, req->len, gzip,
                                                       &resp->body, &res, why, sizeof why);
    switch (o) {
    case INGEST__OTLP_ACCEPTED:
        break;
    case INGEST__OTLP_TOO_LARGE:
        refuse(s, req, resp, enc, 413, "request body larger than %zu bytes once decompressed",
               s->rx.max_body);
        return;
    case INGEST__OTLP_BAD_GZIP:
    case INGEST__OTLP_BAD_MESSAGE:
        refuse(s, req, resp, enc, 400, "%s", why);
        return;
    case INGEST__OTLP_QUEUE_FULL:
    case INGEST__OTLP_RATE_LIMITED:
        /* The exporter keeps the data and retries after a second. */
        refuse(s, req, resp, enc, o == INGEST__OTLP_QUEUE_FULL ? 503 : 429, "%s", why);
        resp->retry_after = 1;
        return;
    case INGEST__OTLP_FAILED:
    case INGEST__OTLP_NOT_ACCEPTED:
    default:
        refuse(s, req, resp, enc, 500, "%s", why);
        return;
    }

    resp->status = 200;
    resp->content_type = enc == INGEST_ENC_PROTO ? "application/x-protobuf" : "application/json";
    char more[64];
    if (res.rejected && ingest__loglimit_take(&s->rx.loglim, more, sizeof more))
        core_logf(&s->rx.log, CORE_LOG_NOTE,
                  "otlp-http: POST %s from %s: %llu records rejected: %s%s", req->path,
                  req->client ? req->client : "?", (unsigned long long)res.rejected,
                  res.reject_reason, more);
}

/* Headers in: a POST to a signal path is refused before its body is
 * read when busy_early says so (503 + Retry-After: 1, as below). */
static bool busy_early(void *ud, const char *method, const char *path)
{
    ingest_otlp_http *s = ud;
    if (strcmp(method, "POST") != 0 ||
        (strcmp(path, "/v1/traces") != 0 && strcmp(path, "/v1/logs") != 0) ||
        !s->rx.busy_early(s->rx.ud))
        return false;
    count(&s->requests, 1);
    count(&s->throttled, 1);
    return true;
}

int ingest_otlp_http_start(const ingest_otlp_recv_opts *o, ingest_otlp_batch_fn fn, void *ud,
                           ingest_otlp_http **out, char *why, size_t whylen)
{
    static const ingest_otlp_recv_opts defaults = {0};
    if (!o)
        o = &defaults;
    if (!fn || !out)
        return core_fail(why, whylen, CORE_EUSAGE, "ingest_otlp_http_start: missing argument");
    ingest_otlp_http *s = core_xcalloc(1, sizeof *s);
    ingest__otlp_recv_init(&s->rx, o, fn, ud);
    core_http_opts ho = {
        .listen = o->listen ? o->listen : OTLP_DEFAULT_LISTEN,
        .name = "OTLP receiver (POST /v1/traces, /v1/logs)",
        .max_body = s->rx.max_body,
        .threads = o->threads,
        .limits = o->limits,
        .log = o->log,
        .token_file = o->token_file,
        .tls_cert = o->tls_cert,
        .tls_key = o->tls_key,
        .busy = o->busy_early ? busy_early : NULL,
    };
    int rc = core_http_start(&ho, handle, s, &s->http, why, whylen);
    if (rc) {
        ingest__otlp_recv_free(&s->rx);
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
    /* Bodies over the limit on the wire, and requests past the connection
     * limits, never reach our handler: the server answers them, and counts
     * them. */
    core_http_stats hs;
    core_http_get_stats(s->http, &hs);
    *out = (ingest_otlp_http_stats){
        .requests = atomic_load(&s->requests) + hs.too_large + hs.unauthorized + hs.over_limit,
        .accepted_events = atomic_load(&s->rx.accepted_events),
        .rejected_events = atomic_load(&s->rx.rejected_events),
        .truncated_events = atomic_load(&s->rx.truncated_events),
        .bad_requests = atomic_load(&s->bad_requests),
        .too_large = atomic_load(&s->too_large) + hs.too_large,
        .unsupported = atomic_load(&s->unsupported),
        .throttled = atomic_load(&s->throttled) + hs.over_limit,
        .errors = atomic_load(&s->errors),
        .unauthorized = hs.unauthorized,
        .timed_out = hs.timed_out,
        .evicted = hs.evicted,
    };
}

void ingest_otlp_http_stop(ingest_otlp_http *s)
{
    if (!s)
        return;
    core_http_stop(s->http);
    ingest__otlp_recv_free(&s->rx);
    free(s);
}
