/*
 * What the OTLP/HTTP and OTLP/gRPC receivers share (otlp_int.h): the copy
 * of a request's events, its id, and the limit on refusal log lines. One
 * recipe for both, so that a span arriving over either transport becomes
 * the same event with the same duplicate check.
 */
#include "otlp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ingest__otlp_collect_init(ingest__otlp_collect *c)
{
    memset(c, 0, sizeof *c);
    core_arena_init(&c->arena, 0);
}

static const char *adup(core_arena *a, const char *s)
{
    return s ? core_arena_strndup(a, s, strlen(s)) : NULL;
}

int ingest__otlp_collect_emit(void *ud, const ingest_event *ev)
{
    ingest__otlp_collect *c = ud;
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

void ingest__otlp_collect_free(ingest__otlp_collect *c)
{
    core_vec_free(&c->evs);
    core_arena_free(&c->arena);
}

void ingest__otlp_request_id(ingest_otlp_kind kind, const void *body, size_t len,
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
