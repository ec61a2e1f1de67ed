/*
 * What the OTLP/HTTP and OTLP/gRPC receivers share (otlp_int.h): their
 * options, a request's message from its body to the batch function and
 * the counters, the copy of its events, its id, and the limit on refusal
 * log lines. One recipe for both, so that a span arriving over either
 * transport becomes the same event with the same duplicate check, and is
 * counted the same way; only the status a refusal gets is the
 * transport's.
 */
#include "otlp_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Events of one request, copied out of the decoder's memory (valid only
 * during emit) into an arena that lives until the batch function returns.
 * Zero-initialised, then collect_init.
 */
typedef struct collect {
    core_arena arena;
    core_vec(ingest_event) evs;
} collect;

static void collect_init(collect *c)
{
    memset(c, 0, sizeof *c);
    core_arena_init(&c->arena, 0);
}

static const char *adup(core_arena *a, const char *s)
{
    return s ? core_arena_strndup(a, s, strlen(s)) : NULL;
}

/* The emit callback of ingest_otlp_decode (ud: a collect). */
static int collect_emit(void *ud, const ingest_event *ev)
{
    collect *c = ud;
    ingest_event e = *ev;
    e.case_id = adup(&c->arena, ev->case_id);
    e.activity = adup(&c->arena, ev->activity);
    ingest_attr *attrs = NULL;
    if (ev->nattrs) {
        attrs = core_arena_alloc(&c->arena, ev->nattrs * sizeof *attrs);
        for (uint32_t i = 0; i < ev->nattrs; i++) {
            attrs[i].key = adup(&c->arena, ev->attrs[i].key);
            attrs[i].val = adup(&c->arena, ev->attrs[i].val);
        }
    }
    e.attrs = attrs;
    core_vec_push(&c->evs, e);
    return 0;
}

static void collect_free(collect *c)
{
    core_vec_free(&c->evs);
    core_arena_free(&c->arena);
}

/*
 * The request id handed to the batch function: two independent 64-bit
 * hashes of the signal kind and the body after decompression, so that a
 * retried request, and only that, has the same id whichever transport
 * (HTTP or gRPC) it came over.
 */
static void request_id(ingest_otlp_kind kind, const void *body, size_t len,
                       uint8_t id[INGEST_REQUEST_ID])
{
    /* Two independent 64-bit hashes: the chance of two different bodies
     * sharing an id is about 2^-128 per pair. */
    uint64_t h0 = core_hash64(body, len, 0x6f746c70u + (uint64_t)kind);
    uint64_t h1 = core_hash64(body, len, ~h0 ^ 0x9e3779b97f4a7c15ull);
    memcpy(id, &h0, 8);
    memcpy(id + 8, &h1, 8);
}

#define LOG_BURST 5.0

void ingest__loglimit_init(ingest__loglimit *l)
{
    pthread_mutex_init(&l->mu, NULL);
    core_bucket_init(&l->bucket, 1.0, LOG_BURST, core_now_ns());
    l->held = 0;
}

void ingest__loglimit_free(ingest__loglimit *l)
{
    pthread_mutex_destroy(&l->mu);
}

bool ingest__loglimit_take(ingest__loglimit *l, char *more, size_t morelen)
{
    uint64_t held = 0;
    pthread_mutex_lock(&l->mu);
    bool ok = core_bucket_take(&l->bucket, core_now_ns());
    if (ok) {
        held = l->held;
        l->held = 0;
    } else {
        l->held++;
    }
    pthread_mutex_unlock(&l->mu);
    more[0] = 0;
    if (ok && held)
        snprintf(more, morelen, " (%llu more refusals not logged)", (unsigned long long)held);
    return ok;
}

#define OTLP_DEFAULT_MAX_BODY ((size_t)64 << 20)

void ingest__otlp_recv_init(ingest__otlp_recv *r, const ingest_otlp_recv_opts *o,
                            ingest_otlp_batch_fn fn, void *ud)
{
    memset(r, 0, sizeof *r);
    ingest__loglimit_init(&r->loglim);
    r->fn = fn;
    r->busy = o->busy;
    r->busy_early = o->busy_early;
    r->ud = ud;
    r->max_body = o->max_body ? o->max_body : OTLP_DEFAULT_MAX_BODY;
    r->max_attrs = o->max_attrs;
    r->max_str = o->max_str;
    r->max_case_id = o->max_case_id;
    r->log = o->log;
    if (o->case_attrs && o->ncase) {
        r->case_attrs = core_xcalloc(o->ncase, sizeof *r->case_attrs);
        for (size_t i = 0; i < o->ncase; i++)
            r->case_attrs[i] = core_xstrdup(o->case_attrs[i]);
        r->ncase = o->ncase;
    }
}

void ingest__otlp_recv_free(ingest__otlp_recv *r)
{
    for (size_t i = 0; i < r->ncase; i++)
        free(r->case_attrs[i]);
    free(r->case_attrs);
    ingest__loglimit_free(&r->loglim);
}

static void count(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

ingest__otlp_outcome ingest__otlp_recv_message(ingest__otlp_recv *r, ingest_otlp_kind kind,
                                               ingest_encoding enc, const void *body, size_t len,
                                               bool gzip, core_buf *out, ingest_decode_result *res,
                                               char *why, size_t whylen)
{
    ingest__otlp_outcome o = INGEST__OTLP_ACCEPTED;
    core_buf inflated = {0};
    collect c = {0};
    char w[512] = "";
    why[0] = 0;
    memset(res, 0, sizeof *res);
    if (gzip) {
        int rc = ingest_gunzip(body, len, r->max_body, &inflated, w, sizeof w);
        if (rc == CORE_ELIMIT) {
            o = INGEST__OTLP_TOO_LARGE;
            goto done;
        }
        if (rc) {
            snprintf(why, whylen, "gzip: %s", w[0] ? w : core_strerror(rc));
            o = INGEST__OTLP_BAD_GZIP;
            goto done;
        }
        body = inflated.data ? inflated.data : "";
        len = inflated.len;
    }

    collect_init(&c);
    ingest_decode_opts dopts = {
        .case_attrs = (const char *const *)r->case_attrs,
        .ncase = r->ncase,
        .max_attrs = r->max_attrs,
        .max_str = r->max_str,
        .max_case_id = r->max_case_id,
    };
    int rc = ingest_otlp_decode(kind, enc, body, len, &dopts, collect_emit, &c, res, w, sizeof w);
    if (rc == CORE_EFORMAT) {
        snprintf(why, whylen, "%s", w[0] ? w : core_strerror(rc));
        o = INGEST__OTLP_BAD_MESSAGE;
        goto done;
    }
    if (rc) {
        snprintf(why, whylen, "decoding failed: %s%s%s", core_strerror(rc), w[0] ? ": " : "", w);
        o = INGEST__OTLP_FAILED;
        goto done;
    }
    count(&r->rejected_events, res->rejected);
    count(&r->truncated_events, res->truncated);

    if (c.evs.n) {
        /* A retried request, and only that, has the same id. */
        uint8_t id[INGEST_REQUEST_ID];
        request_id(kind, body, len, id);
        rc = r->fn(r->ud, kind, c.evs.v, c.evs.n, id);
        if (rc == -EAGAIN || rc == CORE_ELIMIT) {
            /* The exporter keeps the data and retries after the delay its
             * transport tells it. */
            snprintf(why, whylen, "%s, retry later",
                     rc == -EAGAIN ? "ingest queue full" : "rate limit exceeded");
            o = rc == -EAGAIN ? INGEST__OTLP_QUEUE_FULL : INGEST__OTLP_RATE_LIMITED;
            goto done;
        }
        if (rc) {
            snprintf(why, whylen, "%zu events not accepted: %s", c.evs.n, core_strerror(rc));
            o = INGEST__OTLP_NOT_ACCEPTED;
            goto done;
        }
        count(&r->accepted_events, c.evs.n);
    }
    ingest_otlp_response(kind, enc, res->rejected, res->rejected ? res->reject_reason : NULL, out);

done:
    collect_free(&c);
    core_buf_free(&inflated);
    return o;
}
