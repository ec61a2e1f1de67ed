/*
 * What every event file backend shares (ingest_int.h): a record's fields
 * made an event by the same rules for every format (the roles of its
 * fields, checked, and the rest as attributes), and the event queue of
 * the formats that parse many events at once.
 */
#include "ingest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Roles and events                                                    */
/* ------------------------------------------------------------------ */

static int find_key(char *const *keys, int nkeys, const ingest_attr *kv, uint32_t n)
{
    for (int k = 0; k < nkeys; k++)
        for (uint32_t i = 0; i < n; i++)
            if (strcmp(kv[i].key, keys[k]) == 0)
                return (int)i;
    return -1;
}

void ingest__find_roles(const ingest_file *f, const ingest_attr *kv, uint32_t n, ingest__roles *r)
{
    r->cas = find_key(f->case_keys, f->ncase_keys, kv, n);
    r->act = find_key(f->act_keys, f->nact_keys, kv, n);
    r->tim = find_key(f->time_keys, f->ntime_keys, kv, n);
}

void ingest__role_keys_text(char *const *keys, int n, char *buf, size_t len)
{
    if (n == 1)
        snprintf(buf, len, "'%s'", keys[0]);
    else
        snprintf(buf, len, "'%s' or '%s'", keys[0], keys[1]);
}

/* A value quoted for a message: at most 60 bytes, cut at a character. */
static int quoted_len(const char *s)
{
    size_t n = strlen(s);
    if (n > 60)
        n = 60;
    return (int)core_utf8_valid_prefix(s, n);
}

int ingest__make_event(ingest_file *f, const ingest_attr *kv, uint32_t n, const ingest__roles *r,
                       uint64_t line, ingest_event *ev, char *why, size_t whylen)
{
    char keys[256];
    if (r->cas < 0) {
        ingest__role_keys_text(f->case_keys, f->ncase_keys, keys, sizeof keys);
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: no field %s (the case id)", f->path,
                         (unsigned long long)line, keys);
    }
    if (r->act < 0) {
        ingest__role_keys_text(f->act_keys, f->nact_keys, keys, sizeof keys);
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: no field %s (the activity)", f->path,
                         (unsigned long long)line, keys);
    }
    if (r->tim < 0 && f->time_required)
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: no field '%s' (the time)", f->path,
                         (unsigned long long)line, f->time_keys[0]);
    const ingest_attr *c = &kv[r->cas], *a = &kv[r->act];
    if (!c->val[0])
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: field '%s': empty case id", f->path,
                         (unsigned long long)line, c->key);
    /* An empty activity is an event all the same (logger.debug("")): the
     * field must be there, not filled. */
    int64_t t = INGEST_NO_TIME;
    if (r->tim >= 0 && kv[r->tim].val[0]) {
        const ingest_attr *tk = &kv[r->tim];
        if (ingest_parse_time(tk->val, strlen(tk->val), &t) != 0)
            return core_fail(why, whylen, INGEST__BAD,
                             "%s:%llu: field '%s': not an ISO 8601 time: '%.*s'", f->path,
                             (unsigned long long)line, tk->key, quoted_len(tk->val), tk->val);
    }
    f->attrs.n = 0;
    core_vec_reserve(&f->attrs, n);
    for (uint32_t i = 0; i < n; i++)
        if ((int)i != r->cas && (int)i != r->act && (int)i != r->tim)
            f->attrs.v[f->attrs.n++] = kv[i];
    ev->case_id = c->val;
    ev->activity = a->val;
    ev->time_ns = t;
    ev->line = line;
    ev->attrs = f->attrs.v;
    ev->nattrs = (uint32_t)f->attrs.n;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Event queue                                                         */
/* ------------------------------------------------------------------ */

static const char *arena_str(core_arena *a, const char *s)
{
    return core_arena_strndup(a, s, strlen(s));
}

void ingest__queue_push(ingest__queue *q, const ingest_event *ev)
{
    ingest__qent e = {.ev = *ev};
    e.ev.case_id = arena_str(&q->arena, ev->case_id);
    e.ev.activity = arena_str(&q->arena, ev->activity);
    ingest_attr *at = core_arena_alloc(&q->arena, ev->nattrs * sizeof *at);
    for (uint32_t i = 0; i < ev->nattrs; i++) {
        at[i].key = arena_str(&q->arena, ev->attrs[i].key);
        at[i].val = arena_str(&q->arena, ev->attrs[i].val);
    }
    e.ev.attrs = at;
    core_vec_push(&q->q, e);
}

void ingest__queue_push_bad(ingest__queue *q, uint64_t line, const char *why)
{
    ingest__qent e = {.bad = arena_str(&q->arena, why)};
    e.ev.line = line;
    core_vec_push(&q->q, e);
}

const ingest__qent *ingest__queue_pop(ingest__queue *q)
{
    return q->head < q->q.n ? &q->q.v[q->head++] : NULL;
}

void ingest__queue_clear(ingest__queue *q)
{
    q->q.n = 0;
    q->head = 0;
    core_arena_reset(&q->arena);
}

void ingest__queue_free(ingest__queue *q)
{
    core_vec_free(&q->q);
    core_arena_free(&q->arena);
    q->head = 0;
}
