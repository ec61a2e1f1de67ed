/*
 * Event time (serve_int.h): each case's events applied in the order they
 * happened, not the order they arrived in.
 *
 * Exporters do not send a case's events in that order: a span goes out
 * when it ends (a parent after its children), batch processors hold
 * spans and log records apart for seconds, a retried batch comes twice.
 * So an event is held back for the grace (serve.reorder_ms, wall clock
 * from its receipt), as the OpenTelemetry Collector's groupbytrace
 * processor holds a trace, and when its time comes it is released with
 * every held event of its case that comes before it in the case's order
 * (model_order_keys: event time, spans inside their parents). The grace
 * is counted from each event's arrival rather than from the case's
 * latest event time: a watermark in event time trusts the senders' clocks
 * and event time to advance as the daemon's clock does, which clocks
 * seconds apart and replayed or simulated traffic do not.
 *
 * An event released after events of its case that come later in its
 * order is placed where it belongs among the case's stored tokens: the
 * tokens after it are taken off, the vector computed again from the ones
 * before it, and the event and those tokens applied again in order. Each
 * of their predictions is published again with a higher revision (seq is
 * the position in the case's order: every token after the event moves up
 * by one); a consumer keeps the highest revision per (case_id, seq). An
 * event that belongs before the tokens the case still stores, or that is
 * further behind the case's latest event than serve.late_max_ms, is
 * refused as too late: counted and logged, never applied.
 *
 * Held events are state: each is in the held table, written in the same
 * commit as the case it came to and the input it came from, so an
 * acknowledged event held back survives a crash, and its release (the
 * case applied, the held entry deleted) is one commit too. In memory they
 * are kept by case, and in order of arrival (which is also the order of
 * their deadlines). The engine thread owns all of it, under mu.
 *
 * With the changelog (kafka.changelog=true) a case's state moves with its
 * input partition to the partition's next owner, which restores it from
 * the changelog; held events are not in it. So there an input message is
 * acknowledged (its offset stored, in the state, the group and the
 * changelog records) only once no event of its partition it or an earlier
 * message brought is held any more: the offset acknowledged is that of
 * the partition's oldest held event. An instance that crashes with events
 * held leaves their messages to be consumed again, by whoever owns the
 * partition next (itself too: held events whose input was not
 * acknowledged are dropped at start), and the events after them that
 * were applied are known by the fingerprints their cases keep
 * (serve.dedupe_events). A clean handover consumes nothing again: when a
 * partition is revoked, or the daemon stops, the events held for its
 * cases are released at once, in their order, before the commit that
 * precedes giving it up. A case's release writes its changelog record to
 * the partitions its events came from. A handover cuts their grace short;
 * an event of theirs that comes after it is placed late, as any late
 * event is.
 */
#define _GNU_SOURCE /* qsort_r */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 3: the input message and whether it was acknowledged after the
 * fingerprint; 2: the fingerprint after the attributes (1: none, computed
 * at load) */
#define HELD_VERSION 3
#define NONE UINT32_MAX

/* One event held back; its strings in mem. Events and cases live in
 * pools and refer to each other by index (a pool grows by realloc). */
typedef struct held_ev {
    uint32_t hc;     /* its case; NONE once released (freed when its deadline comes) */
    uint64_t no;     /* arrival number: unique, the tie-break, its key in the state */
    int64_t arrived; /* wall clock: due at arrived + the grace */
    uint64_t t0;     /* monotonic, for latencies */
    uint64_t fp;     /* its fingerprint: a duplicate of it is not held again */
    /* The input partition it came from: its topic (an index + 1 into
     * topics; 0: it came in over OTLP) and partition. */
    uint32_t topic;
    int32_t part;
    bool unacked;       /* its input not acknowledged while it is held (the changelog's) */
    ingest_event ev;    /* case_id: its case's id */
    model_order_ev ord; /* its own part of the order */
    char *mem;          /* NULL: a free slot */
    uint32_t mem_len;   /* its bytes */
} held_ev;

typedef struct held_src {
    uint32_t topic;
    int32_t part;
} held_src;

/* A held event in its input partition's order: its arrival number (the
 * event in slot e is still that one while its number is) and offset. */
typedef struct held_pos {
    uint64_t no;
    int64_t off;
    uint32_t e;
} held_pos;

/* An input partition, with the changelog: the offset after the newest
 * message taken in (or the one being taken in: the messages before it are
 * acknowledged), and its held events in the order of their offsets (the
 * order they come in), released ones dropped from the front when it is
 * looked at. */
typedef struct held_part {
    uint32_t topic;
    int32_t part;
    int64_t next;
    core_vec(held_pos) q;
    size_t head;
} held_part;

/*
 * The free slots of a pool (held events, held cases): a bit per slot.
 * A slot is taken lowest first, so that after a backlog the slots in use
 * gather at the front and the pool's free tail is given back (slots_trim):
 * the window's memory follows what it holds, not the most it ever held.
 */
typedef struct slot_bits {
    core_vec(uint64_t) w; /* bit i of word i / 64: slot i is free */
    size_t low;           /* no free slot below word low */
    size_t nfree;
} slot_bits;

/* The lowest free slot, taken; NONE when none is free. */
static uint32_t slots_take(slot_bits *f)
{
    if (!f->nfree)
        return NONE;
    while (!f->w.v[f->low])
        f->low++;
    unsigned b = (unsigned)__builtin_ctzll(f->w.v[f->low]);
    f->w.v[f->low] &= ~(1ull << b);
    f->nfree--;
    return (uint32_t)(f->low * 64 + b);
}

static void slots_give(slot_bits *f, uint32_t i)
{
    while (f->w.n <= i / 64)
        core_vec_push(&f->w, 0);
    f->w.v[i / 64] |= 1ull << (i % 64);
    f->nfree++;
    if (i / 64 < f->low)
        f->low = i / 64;
}

/* The pool's length once its free slots at the end are dropped. */
static size_t slots_trim(slot_bits *f, size_t n)
{
    while (n && (n - 1) / 64 < f->w.n && (f->w.v[(n - 1) / 64] >> ((n - 1) % 64) & 1)) {
        n--;
        f->w.v[n / 64] &= ~(1ull << (n % 64));
        f->nfree--;
    }
    return n;
}

/* Below this many slots a pool is not made smaller. */
#define POOL_MIN 1024

/* A pool's array (of cap elements of size sz) made smaller when it uses
 * less than a quarter of it. */
static void *pool_shrink(void *v, size_t n, size_t *cap, size_t sz)
{
    if (*cap <= POOL_MIN || n >= *cap / 4)
        return v;
    *cap = n * 2 > POOL_MIN ? n * 2 : POOL_MIN;
    return core_xrealloc(v, *cap * sz);
}

typedef struct held_case {
    char *id; /* NULL: a free slot */
    size_t len;
    uint64_t hash;
    uint32_t next;          /* the next case of the same hash, or NONE */
    core_vec(uint32_t) evs; /* its held events, in order of arrival */
    /* Their fingerprints, in the same order: a duplicate is looked for
     * here, not in each event's slot of the pool (a cache miss apiece). */
    core_vec(uint64_t) fps;
    /* The input partitions its held events came from (topic index + 1,
     * partition): where its changelog records go. */
    core_vec(held_src) srcs;
    /* What holding one more event needs of the case (known): its events
     * applied and the fingerprints of its latest, as it was when it began
     * to hold and as each release left it. Holding reads the case from
     * the batch or the state only while this is not known, once. */
    bool known;
    uint64_t seq;
    core_vec(uint64_t) seen;
} held_case;

struct serve_reorder {
    core_vec(held_ev) ev;
    slot_bits ev_free;
    core_vec(held_case) cs;
    slot_bits cs_free;
    core_map index; /* hash of a case id -> its first case + 1 (0: none left) */
    size_t index_dead;
    /* Every held event in order of arrival (due in this order), released
     * ones until their deadline: head is the first still listed. */
    core_vec(uint32_t) fifo;
    size_t head;
    uint64_t held, next_no;
    core_buf val;
    core_vec(model_order_ev) ord;
    core_vec(uint32_t) idx, rel;
    core_vec(char *) topics; /* input topics the held events came from */
    core_vec(held_part) parts;
    sess_case *c, *old; /* the case being released, and its tokens before */
    core_bucket log_bucket;
    uint64_t unlogged;
    size_t mem_bytes; /* of the held events' copies (held_ev.mem) */
    /* The engine's time per event taken in and per event released
     * (moving averages over its busy cycles), and the events the window
     * may take in now: a bucket filled at the rate it does both
     * (serve__reorder_room). */
    double in_ns, release_ns, room;
    uint64_t room_at, room_no; /* (next_no when the room was last taken) */
    uint64_t release_busy;     /* ns the cycle's releases took so far */
};

/* ------------------------------------------------------------------ */
/* Fingerprints                                                        */
/* ------------------------------------------------------------------ */

static const char *attr_of(const ingest_event *ev, const char *key)
{
    for (uint32_t i = 0; i < ev->nattrs; i++)
        if (strcmp(ev->attrs[i].key, key) == 0)
            return ev->attrs[i].val;
    return NULL;
}

static uint64_t hash_str(const char *s, uint64_t h)
{
    return s ? core_hash64(s, strlen(s) + 1, h) : core_hash_u64(h);
}

/* A span is the same span by its trace and span id (an exporter's retry
 * may put it in another batch); anything else by its content: kind, time,
 * text and every attribute, trace context included. */
static uint64_t fingerprint(const ingest_event *ev)
{
    if (ev->kind == INGEST_SPAN) {
        const char *span = attr_of(ev, "span_id");
        if (span && *span)
            return hash_str(attr_of(ev, "trace_id"), hash_str(span, 0x5350414e));
    }
    uint64_t h = core_hash_u64((uint64_t)ev->kind << 56 ^ (uint64_t)ev->time_ns);
    h = hash_str(ev->activity, h);
    for (uint32_t i = 0; i < ev->nattrs; i++)
        h = hash_str(ev->attrs[i].val, hash_str(ev->attrs[i].key, h));
    return h;
}

static bool fp_in(const uint64_t *v, size_t n, uint64_t fp)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == fp)
            return true;
    return false;
}

/* fp into the case's ring of the latest fingerprints. */
static void seen_add(serve *s, sess_case *c, uint64_t fp)
{
    if (!s->dedupe_events)
        return;
    if (c->nseen > s->dedupe_events) {
        /* (The setting went down since the case was stored.) */
        c->nseen = s->dedupe_events;
        c->seen_next = 0;
    }
    if (c->nseen < s->dedupe_events) {
        c->seen[c->nseen++] = fp;
    } else {
        c->seen[c->seen_next] = fp;
        c->seen_next = (c->seen_next + 1) % c->nseen;
    }
}

bool serve__seen(serve *s, sess_case *c, const ingest_event *ev)
{
    if (!s->dedupe_events)
        return false;
    uint64_t fp = fingerprint(ev);
    if (fp_in(c->seen, c->nseen, fp)) {
        sink_counter_add(s->c_dups, 1);
        return true;
    }
    seen_add(s, c, fp);
    return false;
}

/* ------------------------------------------------------------------ */
/* Held events in memory                                               */
/* ------------------------------------------------------------------ */

static uint64_t id_hash(const char *id, size_t len)
{
    uint64_t h = core_hash64(id, len, 0x68656c64);
    return h == UINT64_MAX ? h - 1 : h; /* (core_map's empty key) */
}

static uint32_t case_find(const struct serve_reorder *r, const char *id, size_t len, uint64_t h)
{
    const uint64_t *v = core_map_get(&r->index, h);
    for (uint32_t i = v && *v ? (uint32_t)(*v - 1) : NONE; i != NONE; i = r->cs.v[i].next)
        if (r->cs.v[i].len == len && memcmp(r->cs.v[i].id, id, len) == 0)
            return i;
    return NONE;
}

uint32_t serve__reorder_nheld(const serve *s, const char *id, size_t len)
{
    const struct serve_reorder *r = s->ro;
    if (!r || !r->held)
        return 0;
    uint32_t i = case_find(r, id, len, id_hash(id, len));
    return i == NONE ? 0 : (uint32_t)r->cs.v[i].evs.n;
}

static uint32_t case_get(struct serve_reorder *r, const char *id, size_t len)
{
    uint64_t h = id_hash(id, len);
    uint32_t i = case_find(r, id, len, h);
    if (i != NONE)
        return i;
    i = slots_take(&r->cs_free);
    if (i == NONE) {
        i = (uint32_t)r->cs.n;
        core_vec_push(&r->cs, ((held_case){0}));
    }
    held_case *hc = &r->cs.v[i];
    hc->id = core_xstrndup(id, len);
    hc->len = len;
    hc->hash = h;
    bool fresh;
    uint64_t *v = core_map_put(&r->index, h, &fresh);
    if (!fresh && !*v)
        r->index_dead--;
    hc->next = *v ? (uint32_t)(*v - 1) : NONE;
    *v = (uint64_t)i + 1;
    return i;
}

/* The index built again: core_map keeps a key once put, so the keys of
 * cases gone pile up until then. */
static void index_rebuild(struct serve_reorder *r)
{
    core_map_free(&r->index);
    memset(&r->index, 0, sizeof r->index);
    r->index_dead = 0;
    for (uint32_t i = 0; i < r->cs.n; i++) {
        held_case *hc = &r->cs.v[i];
        if (!hc->id)
            continue;
        bool fresh;
        uint64_t *v = core_map_put(&r->index, hc->hash, &fresh);
        hc->next = fresh ? NONE : (uint32_t)(*v - 1);
        *v = (uint64_t)i + 1;
    }
}

/* A case that holds nothing any more: out of the index, its slot free. */
static void case_drop(struct serve_reorder *r, uint32_t i)
{
    held_case *hc = &r->cs.v[i];
    uint64_t *v = core_map_get(&r->index, hc->hash);
    if (*v == (uint64_t)i + 1) {
        *v = hc->next == NONE ? 0 : (uint64_t)hc->next + 1;
        if (!*v)
            r->index_dead++;
    } else {
        uint32_t q = (uint32_t)(*v - 1);
        while (r->cs.v[q].next != i)
            q = r->cs.v[q].next;
        r->cs.v[q].next = hc->next;
    }
    core_vec_free(&hc->evs);
    core_vec_free(&hc->fps);
    core_vec_free(&hc->srcs);
    core_vec_free(&hc->seen);
    free(hc->id);
    *hc = (held_case){0};
    slots_give(&r->cs_free, i);
    r->cs.n = slots_trim(&r->cs_free, r->cs.n);
    r->cs.v = pool_shrink(r->cs.v, r->cs.n, &r->cs.cap, sizeof *r->cs.v);
    if (r->index_dead > 1024 && r->index_dead > 2 * (r->cs.n - r->cs_free.nfree))
        index_rebuild(r);
}

/* What holding needs of case c, into k (see held_case). */
static void case_know(held_case *k, const sess_case *c)
{
    k->known = true;
    k->seq = c->seq;
    k->seen.n = 0;
    for (uint32_t i = 0; i < c->nseen; i++)
        core_vec_push(&k->seen, c->seen[i]);
}

void serve__reorder_forget(serve *s)
{
    struct serve_reorder *r = s->ro;
    for (uint32_t i = 0; r && i < r->cs.n; i++)
        r->cs.v[i].known = false;
}

/* Topic t (n bytes) as an index + 1 into r->topics (a handful: the input
 * topics). */
static uint32_t topic_id(struct serve_reorder *r, const char *t, size_t n)
{
    for (uint32_t i = 0; i < r->topics.n; i++)
        if (strlen(r->topics.v[i]) == n && memcmp(r->topics.v[i], t, n) == 0)
            return i + 1;
    core_vec_push(&r->topics, core_xstrndup(t, n));
    return (uint32_t)r->topics.n;
}

/* The input message of held event e into its case's sources. */
static void src_note(struct serve_reorder *r, uint32_t e)
{
    const held_ev *h = &r->ev.v[e];
    if (!h->topic)
        return;
    held_case *k = &r->cs.v[h->hc];
    for (size_t i = 0; i < k->srcs.n; i++) {
        held_src *x = &k->srcs.v[i];
        if (x->topic == h->topic && x->part == h->part)
            return;
    }
    core_vec_push(&k->srcs, ((held_src){h->topic, h->part}));
}

static held_part *part_get(struct serve_reorder *r, uint32_t topic, int32_t part)
{
    for (size_t i = 0; i < r->parts.n; i++)
        if (r->parts.v[i].topic == topic && r->parts.v[i].part == part)
            return &r->parts.v[i];
    core_vec_push(&r->parts, ((held_part){.topic = topic, .part = part}));
    return &r->parts.v[r->parts.n - 1];
}

/* The offset of p acknowledged now: its oldest held event's, else the
 * one after the newest message taken in. */
static int64_t part_acked(const struct serve_reorder *r, held_part *p)
{
    for (; p->head < p->q.n; p->head++) {
        const held_pos *x = &p->q.v[p->head];
        /* (Its slot may be freed, taken again, or gone with the pool's
         * free tail.) */
        if (x->e < r->ev.n && r->ev.v[x->e].no == x->no && r->ev.v[x->e].hc != NONE)
            break;
    }
    if (p->head > 1024 && p->head * 2 > p->q.n) {
        memmove(p->q.v, p->q.v + p->head, (p->q.n - p->head) * sizeof *p->q.v);
        p->q.n -= p->head;
        p->head = 0;
    }
    return p->head < p->q.n && p->q.v[p->head].off < p->next ? p->q.v[p->head].off : p->next;
}

/* Source x as the input message a case change is recorded with: the
 * newest acknowledged (also in the batch's offsets, as the engine's own
 * are). */
static const ingest_kafka_msg *src_msg(serve *s, const held_src *x, ingest_kafka_msg *km)
{
    struct serve_reorder *r = s->ro;
    const char *topic = r->topics.v[x->topic - 1];
    int64_t acked = part_acked(r, part_get(r, x->topic, x->part));
    serve__pipe_offset(s, topic, x->part, acked);
    *km = (ingest_kafka_msg){.topic = topic, .partition = x->part, .offset = acked - 1};
    return km;
}

static void held_free(struct serve_reorder *r, uint32_t e)
{
    r->mem_bytes -= r->ev.v[e].mem_len;
    free(r->ev.v[e].mem);
    r->ev.v[e] = (held_ev){0};
    slots_give(&r->ev_free, e);
    r->ev.n = slots_trim(&r->ev_free, r->ev.n);
    r->ev.v = pool_shrink(r->ev.v, r->ev.n, &r->ev.cap, sizeof *r->ev.v);
}

/* A copy of ev (its strings in one allocation), of case hc, in a free
 * slot; not listed anywhere yet. */
static uint32_t held_new(struct serve_reorder *r, uint32_t hc, const ingest_event *ev)
{
    size_t al = strlen(ev->activity) + 1;
    size_t head = (ev->nattrs ? ev->nattrs : 1) * sizeof(ingest_attr), need = head + al;
    for (uint32_t i = 0; i < ev->nattrs; i++)
        need += strlen(ev->attrs[i].key) + strlen(ev->attrs[i].val) + 2;
    uint32_t e;
    e = slots_take(&r->ev_free);
    if (e == NONE) {
        e = (uint32_t)r->ev.n;
        core_vec_push(&r->ev, ((held_ev){0}));
    }
    held_ev *h = &r->ev.v[e];
    h->mem = core_xmalloc(need);
    h->mem_len = (uint32_t)need;
    r->mem_bytes += need;
    ingest_attr *attrs = (ingest_attr *)(void *)h->mem;
    char *p = h->mem + head;
#define COPY(dst, src, n)                                                                          \
    do {                                                                                           \
        memcpy(p, (src), (n));                                                                     \
        (dst) = p;                                                                                 \
        p += (n);                                                                                  \
    } while (0)
    for (uint32_t i = 0; i < ev->nattrs; i++) {
        COPY(attrs[i].key, ev->attrs[i].key, strlen(ev->attrs[i].key) + 1);
        COPY(attrs[i].val, ev->attrs[i].val, strlen(ev->attrs[i].val) + 1);
    }
    h->ev = *ev;
    COPY(h->ev.activity, ev->activity, al);
#undef COPY
    h->ev.attrs = attrs;
    h->ev.case_id = r->cs.v[hc].id;
    h->hc = hc;
    return e;
}

/* ------------------------------------------------------------------ */
/* Held events in the state                                            */
/* ------------------------------------------------------------------ */

/*
 * A held event as stored (the held table's value; the case id and the
 * arrival number are its key), little-endian: u8 version 2, arrived (i64),
 * time (i64), end (i64), kind (u8), activity (u32 length, bytes), nattrs
 * (u32), per attribute key and value (u32 length, bytes each), then its
 * fingerprint (u64; taken before a time was given to an event without
 * one, so it cannot be computed again from what is stored), then the
 * input partition it came from (version 3): topic (u16 length, bytes; 0:
 * none, an OTLP request) and partition (i32), and whether its message is
 * acknowledged only once it is released (u8 1: the changelog's).
 */
static void held_encode(const struct serve_reorder *r, const held_ev *h, core_buf *b)
{
    core_buf_reset(b);
    core_buf_putc(b, HELD_VERSION);
    core_buf_put_le(b, (uint64_t)h->arrived, 8);
    core_buf_put_le(b, (uint64_t)h->ev.time_ns, 8);
    core_buf_put_le(b, (uint64_t)h->ev.end_ns, 8);
    core_buf_putc(b, (char)h->ev.kind);
    size_t al = strlen(h->ev.activity);
    core_buf_put_le(b, al, 4);
    core_buf_append(b, h->ev.activity, al);
    core_buf_put_le(b, h->ev.nattrs, 4);
    for (uint32_t i = 0; i < h->ev.nattrs; i++) {
        const char *kv[2] = {h->ev.attrs[i].key, h->ev.attrs[i].val};
        for (int j = 0; j < 2; j++) {
            size_t n = strlen(kv[j]);
            core_buf_put_le(b, n, 4);
            core_buf_append(b, kv[j], n);
        }
    }
    core_buf_put_le(b, h->fp, 8);
    const char *t = h->topic ? r->topics.v[h->topic - 1] : "";
    size_t tl = strlen(t);
    core_buf_put_le(b, tl, 2);
    core_buf_append(b, t, tl);
    core_buf_put_le(b, (uint64_t)(uint32_t)h->part, 4);
    core_buf_putc(b, h->unacked);
}

/* A string of a record as a NUL-terminated copy in tmp (NULL: broken). */
static const char *rd_str(core_rd *r, int lenbytes, core_buf *tmp, size_t *off)
{
    size_t n = (size_t)core_rd_le(r, lenbytes);
    const char *p = core_rd_bytes(r, n);
    if (!p || memchr(p, 0, n))
        return NULL;
    *off = tmp->len;
    core_buf_append(tmp, p, n);
    core_buf_putc(tmp, 0);
    return "";
}

typedef struct load_ctx {
    serve *s;
    uint64_t bad, n, dropped;
    int64_t wall;
    uint64_t mono;
    core_buf tmp;
    core_vec(size_t) offs;
} load_ctx;

static int held_load_one(void *ud, const char *id, size_t len, uint64_t no, const void *val,
                         size_t n)
{
    load_ctx *l = ud;
    struct serve_reorder *r = l->s->ro;
    core_rd rd = core_rd_of(val, n);
    core_buf_reset(&l->tmp);
    l->offs.n = 0;
    uint8_t version = (uint8_t)core_rd_le(&rd, 1);
    int64_t arrived = (int64_t)core_rd_le(&rd, 8);
    ingest_event ev = {.time_ns = (int64_t)core_rd_le(&rd, 8),
                       .end_ns = (int64_t)core_rd_le(&rd, 8)};
    uint8_t kind = (uint8_t)core_rd_le(&rd, 1);
    size_t aoff = 0;
    bool ok = version >= 1 && version <= HELD_VERSION && kind <= INGEST_SPAN_EVENT &&
              rd_str(&rd, 4, &l->tmp, &aoff);
    uint32_t nattrs = (uint32_t)core_rd_le(&rd, 4);
    for (uint32_t i = 0; ok && i < 2 * (uint64_t)nattrs; i++) {
        size_t off = 0;
        ok = rd_str(&rd, 4, &l->tmp, &off) != NULL;
        core_vec_push(&l->offs, off);
    }
    uint64_t fp = version >= 2 ? core_rd_le(&rd, 8) : 0;
    size_t tl = version >= 3 ? (size_t)core_rd_le(&rd, 2) : 0;
    const char *topic = tl ? core_rd_bytes(&rd, tl) : NULL;
    int32_t part = version >= 3 ? (int32_t)(uint32_t)core_rd_le(&rd, 4) : 0;
    bool unacked = version >= 3 && core_rd_le(&rd, 1);
    if (!ok || rd.bad || core_rd_left(&rd) || len > SESS_MAX_ID) {
        /* Unreadable: left in the table, where `pmrag state` still counts
         * it, and reported; nothing can apply it. */
        if (l->bad++ < 5)
            core_logf(&l->s->lg, CORE_LOG_WARN, "held event %llu of case '%.*s': unreadable",
                      (unsigned long long)no, len > 120 ? 120 : (int)len, id);
        return 0;
    }
    if (no >= r->next_no)
        r->next_no = no + 1;
    if (unacked) {
        /* Its message was not acknowledged: it is consumed again (here or
         * by the partition's next owner), and held again then. */
        sess_batch_held_del(l->s->batch, id, len, no);
        l->dropped++;
        return 0;
    }
    ingest_attr *attrs = core_xmalloc((nattrs ? nattrs : 1) * sizeof *attrs);
    for (uint32_t i = 0; i < nattrs; i++)
        attrs[i] =
            (ingest_attr){l->tmp.data + l->offs.v[2 * i], l->tmp.data + l->offs.v[2 * i + 1]};
    ev.kind = (ingest_kind)kind;
    ev.activity = l->tmp.data + aoff;
    ev.attrs = attrs;
    ev.nattrs = nattrs;
    uint32_t hc = case_get(r, id, len);
    uint32_t e = held_new(r, hc, &ev);
    free(attrs);
    held_ev *h = &r->ev.v[e];
    h->no = no;
    h->arrived = arrived;
    h->fp = version >= 2 ? fp : fingerprint(&h->ev);
    if (topic) {
        h->topic = topic_id(r, topic, tl);
        h->part = part;
    }
    /* Its arrival on this process's monotonic clock, for latencies (as
     * far back as the clock goes). */
    int64_t ago = l->wall - arrived;
    h->t0 = ago > 0 && (uint64_t)ago < l->mono ? l->mono - (uint64_t)ago : l->mono;
    serve__order_of(&h->ev, no, arrived, &h->ord);
    core_vec_push(&r->cs.v[hc].evs, e);
    core_vec_push(&r->cs.v[hc].fps, h->fp);
    src_note(r, e);
    core_vec_push(&r->fifo, e);
    l->n++;
    return 0;
}

static int by_arrival(const void *a, const void *b, void *ud)
{
    const struct serve_reorder *r = ud;
    uint64_t x = r->ev.v[*(const uint32_t *)a].no, y = r->ev.v[*(const uint32_t *)b].no;
    return (x > y) - (x < y);
}

void serve__reorder_open(serve *s)
{
    s->reorder_ns = core_cfg_int(s->cfg, "serve.reorder_ms") * 1000000ll;
    s->late_max_ns = core_cfg_int(s->cfg, "serve.late_max_ms") * 1000000ll;
    s->reorder_max = (uint32_t)core_cfg_int(s->cfg, "serve.reorder_max_events");
    s->dedupe_events = (uint32_t)core_cfg_int(s->cfg, "serve.dedupe_events");
    if (s->dedupe_events > SESS_MAX_SEEN)
        s->dedupe_events = SESS_MAX_SEEN;
    struct serve_reorder *r = s->ro = core_xcalloc(1, sizeof *r);
    r->next_no = 1;
    r->c = core_xmalloc(sizeof *r->c);
    r->old = core_xmalloc(sizeof *r->old);
    core_bucket_init(&r->log_bucket, 1, 5, core_now_ns());
    /* What the state holds back, whatever the grace now: with none, it
     * is due at once and released in its order. */
    load_ctx l = {.s = s, .wall = core_wall_ns(), .mono = core_now_ns()};
    int rc = sess_held_iter(s->env, held_load_one, &l);
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR, "held events: %s", core_strerror(rc));
    r->held = r->fifo.n;
    if (r->fifo.n)
        qsort_r(r->fifo.v, r->fifo.n, sizeof *r->fifo.v, by_arrival, r);
    if (l.n)
        core_logf(&s->lg, CORE_LOG_INFO, "%llu held events of %zu cases restored",
                  (unsigned long long)l.n, r->cs.n - r->cs_free.nfree);
    if (l.dropped)
        core_logf(&s->lg, CORE_LOG_INFO,
                  "%llu held events dropped: their input messages were not acknowledged "
                  "(kafka.changelog=true), and are consumed again",
                  (unsigned long long)l.dropped);
    core_buf_free(&l.tmp);
    core_vec_free(&l.offs);
    sink_gauge_set(s->g_held, (double)r->held);
}

size_t serve__reorder_bytes(const serve *s)
{
    const struct serve_reorder *r = s->ro;
    if (!r)
        return 0;
    size_t b = sizeof *r + r->mem_bytes + core_vec_bytes(r->ev) + core_vec_bytes(r->ev_free.w) +
               core_vec_bytes(r->cs) + core_vec_bytes(r->cs_free.w) + core_map_bytes(&r->index) +
               core_vec_bytes(r->fifo) + r->val.cap + core_vec_bytes(r->ord) +
               core_vec_bytes(r->idx) + core_vec_bytes(r->rel) + core_vec_bytes(r->topics) +
               core_vec_bytes(r->parts);
    for (size_t i = 0; i < r->cs.n; i++) {
        const held_case *c = &r->cs.v[i];
        if (c->id)
            b += c->len + 1;
        b += core_vec_bytes(c->evs) + core_vec_bytes(c->fps) + core_vec_bytes(c->srcs) +
             core_vec_bytes(c->seen);
    }
    for (size_t i = 0; i < r->parts.n; i++)
        b += core_vec_bytes(r->parts.v[i].q);
    return b;
}

void serve__reorder_free(serve *s)
{
    struct serve_reorder *r = s->ro;
    if (!r)
        return;
    for (size_t i = 0; i < r->ev.n; i++)
        free(r->ev.v[i].mem);
    for (size_t i = 0; i < r->cs.n; i++) {
        core_vec_free(&r->cs.v[i].evs);
        core_vec_free(&r->cs.v[i].fps);
        core_vec_free(&r->cs.v[i].srcs);
        core_vec_free(&r->cs.v[i].seen);
        free(r->cs.v[i].id);
    }
    for (size_t i = 0; i < r->topics.n; i++)
        free(r->topics.v[i]);
    core_vec_free(&r->topics);
    for (size_t i = 0; i < r->parts.n; i++)
        core_vec_free(&r->parts.v[i].q);
    core_vec_free(&r->parts);
    core_vec_free(&r->ev);
    core_vec_free(&r->ev_free.w);
    core_vec_free(&r->cs);
    core_vec_free(&r->cs_free.w);
    core_vec_free(&r->fifo);
    core_map_free(&r->index);
    core_buf_free(&r->val);
    core_vec_free(&r->ord);
    core_vec_free(&r->idx);
    core_vec_free(&r->rel);
    free(r->c);
    free(r->old);
    free(r);
    s->ro = NULL;
}

/* ------------------------------------------------------------------ */
/* Taking events in                                                    */
/* ------------------------------------------------------------------ */

static int release(serve *s, uint32_t hc, int mode, int64_t now);
enum { REL_DUE, REL_FIRST, REL_ALL };

int serve__reorder_hold(serve *s, const ingest_event *ev, uint64_t t0, const ingest_kafka_msg *km)
{
    struct serve_reorder *r = s->ro;
    size_t clen = strlen(ev->case_id);
    sess_case *c = r->c;
    uint32_t hc = case_find(r, ev->case_id, clen, id_hash(ev->case_id, clen));
    const held_case *kn = hc != NONE && r->cs.v[hc].known ? &r->cs.v[hc] : NULL;
    if (kn) {
        /* (It holds events: no new case.) */
        if (!sess_rules_room(s->rules, kn->seq, (uint32_t)kn->evs.n)) {
            sink_counter_add(s->c_lim_case_events, 1);
            return 0;
        }
    } else if (!serve__case_take(s, ev->case_id, clen, false,
                                 hc == NONE ? 0 : (uint32_t)r->cs.v[hc].evs.n, c)) {
        return 0;
    }
    serve__stage(s, SERVE_STAGE_WINDOW);
    uint64_t fp = 0;
    if (s->dedupe_events) {
        /* A duplicate of an event applied (the case's ring) or held. */
        fp = fingerprint(ev);
        bool dup = kn ? fp_in(kn->seen.v, kn->seen.n, fp) : fp_in(c->seen, c->nseen, fp);
        if (!dup && hc != NONE)
            dup = fp_in(r->cs.v[hc].fps.v, r->cs.v[hc].fps.n, fp);
        if (dup) {
            sink_counter_add(s->c_dups, 1);
            return 0;
        }
    }
    if (hc == NONE)
        hc = case_get(r, ev->case_id, clen);
    if (!kn)
        case_know(&r->cs.v[hc], c);
    uint32_t e = held_new(r, hc, ev);
    held_case *k = &r->cs.v[hc];
    held_ev *h = &r->ev.v[e];
    h->no = r->next_no++;
    h->fp = fp;
    /* Due a grace after it was received, not after the engine came to
     * it: an event of a burst waits for the ones before it once, not
     * again when they are released before it. */
    uint64_t mono = core_now_ns();
    h->arrived = core_wall_ns() - (int64_t)(mono > t0 ? mono - t0 : 0);
    h->t0 = t0;
    serve__order_of(&h->ev, h->no, h->arrived, &h->ord);
    h->ev.time_ns = h->ord.time; /* (now, for one without a time) */
    if (km) {
        h->topic = topic_id(r, km->topic, strlen(km->topic));
        h->part = km->partition;
        h->unacked = s->kcl != NULL;
        if (h->unacked) {
            held_part *p = part_get(r, h->topic, h->part);
            if (km->offset > p->next)
                p->next = km->offset;
            core_vec_push(&p->q, ((held_pos){h->no, km->offset, e}));
        }
    }
    core_vec_push(&k->evs, e);
    core_vec_push(&k->fps, fp);
    src_note(r, e);
    core_vec_push(&r->fifo, e);
    r->held++;
    /* Only the held entry is written: the case itself changes when its
     * events are released (what it holds is counted from the table, and
     * its fingerprints are the held entries'), so it is written once per
     * release, not once per event too. */
    held_encode(r, h, &r->val);
    sess_batch_held_put(s->batch, k->id, k->len, h->no, r->val.data, r->val.len);
    s->batch_events++;
    sink_gauge_set(s->g_held, (double)r->held);
    if (k->evs.n > s->reorder_max)
        return release(s, hc, REL_FIRST, h->arrived);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Releasing them                                                      */
/* ------------------------------------------------------------------ */

/* Counts and (a few a second) logs an event refused as too late. */
static void too_late(serve *s, const held_ev *h, const char *why)
{
    struct serve_reorder *r = s->ro;
    sink_counter_add(s->c_too_late, 1);
    if (!core_bucket_take(&r->log_bucket, core_now_ns())) {
        r->unlogged++;
        return;
    }
    char t[40], more[64] = "";
    ingest_format_time(h->ev.time_ns, t, sizeof t);
    if (r->unlogged)
        snprintf(more, sizeof more, " (%llu more not logged)", (unsigned long long)r->unlogged);
    r->unlogged = 0;
    size_t len = strlen(h->ev.case_id);
    core_logf(&s->lg, CORE_LOG_WARN, "case '%.*s': event '%.80s' at %s refused as too late: %s%s",
              len > 120 ? 120 : (int)len, h->ev.case_id, h->ev.activity, t, why, more);
}

/* A stored token as a place in the case's order. */
static model_order_ev tok_order(const sess_tok *t)
{
    return (model_order_ev){.time = t->key - t->shift,
                            .dur = t->dur,
                            .span = t->span,
                            .is_span = t->is_span,
                            .fixed = true,
                            .key = t->key,
                            .shift = t->shift,
                            .depth = t->depth};
}

static int64_t behind(int64_t latest, int64_t key)
{
    int64_t d;
    return __builtin_sub_overflow(latest, key, &d) ? INT64_MAX : d;
}

/*
 * Applies the released events rel[0..nr) of case id (in their order,
 * their places o[0..nr), both compacted here) to c: after its tokens when
 * they all come after them, else placed among them (see the top of the
 * file). Events that cannot be placed are refused (too late).
 */
static int place(serve *s, sess_case *c, const char *id, size_t clen, uint32_t *rel,
                 model_order_ev *o, size_t nr)
{
    struct serve_reorder *r = s->ro;
    int64_t latest = c->ntok ? c->tok[c->ntok - 1].key : INT64_MIN;
    /* Events before the stored tokens cannot be placed once older ones
     * are gone from the case's window. (Tokens of an older build have
     * unknown places, INT64_MIN: nothing comes before them.) */
    bool cut = c->seq > c->ntok && c->ntok;
    size_t nk = 0;
    for (size_t i = 0; i < nr; i++) {
        const held_ev *h = &r->ev.v[rel[i]];
        if (cut && o[i].key < c->tok[0].key) {
            too_late(s, h, "before the events the case still stores");
        } else if (s->late_max_ns && latest != INT64_MIN && o[i].key < latest &&
                   behind(latest, o[i].key) > s->late_max_ns) {
            too_late(s, h, "further behind the case's latest event than serve.late_max_ms");
        } else {
            rel[nk] = rel[i];
            o[nk] = o[i];
            nk++;
        }
    }
    if (!nk)
        return 0;
    uint32_t p = c->ntok;
    while (p > 0 && c->tok[p - 1].key > o[0].key)
        p--;
    size_t j = 0;
    int rc = 0;
    if (p == c->ntok) {
        for (; j < nk && !rc; j++) {
            const held_ev *h = &r->ev.v[rel[j]];
            rc = serve__event_apply(s, c, id, clen, &h->ev, &o[j], 0, h->t0);
        }
        return rc;
    }
    /* Late: the tokens from p on come off and go back on after it. */
    for (size_t i = 0; i < nk; i++)
        if (o[i].key < latest) {
            sink_counter_add(s->c_late, 1);
            sink_histogram_observe(s->h_lateness, (double)behind(latest, o[i].key) * 1e-9);
        }
    sess_case *old = r->old;
    memcpy(old, c, sizeof *c);
    uint64_t base = old->seq - old->ntok; /* seq of token i: base + i + 1 */
    c->ntok = p;
    c->seq = base + p;
    map_told_cut(c->seq, c->told_seq, &c->ntold);
    serve__stage(s, SERVE_STAGE_PPR);
    serve__vec_rebuild(s->md, s->w, s->M, c);
    c->last_time_ns = p ? c->tok[p - 1].key - c->tok[p - 1].shift : INT64_MIN;
    c->has_pred = false;
    c->npred = 0;
    if (c->seq) {
        /* The prediction the first event placed is scored against. */
        serve__stage(s, SERVE_STAGE_RANKING);
        ppr_vec rec = {(ppr_entry *)c->vec, c->nvec, c->nvec, c->vec_err};
        uint32_t n =
            model_rank_warm(s->md, s->w, c->act, c->var, c->ntok, &rec, c->vec_wsum, s->k, s->pred);
        serve__stage(s, SERVE_STAGE_SCORING);
        serve__score_keep(s, c, n);
    }
    /* The tokens applied again are this release's work: their
     * predictions' latency counts from when its first event came (each
     * released event's from its own arrival). */
    uint64_t t0 = r->ev.v[rel[0]].t0;
    uint32_t i = p;
    while ((i < old->ntok || j < nk) && !rc) {
        uint64_t q = c->seq + 1;
        uint32_t rev = q <= old->seq ? old->tok[q - base - 1].rev + 1 : 0;
        if (i < old->ntok && (j == nk || old->tok[i].key <= o[j].key)) {
            sess_tok t = old->tok[i];
            t.rev = rev;
            rc = serve__token_apply(s, c, id, clen, old->act[i], old->var[i], &t, t0);
            i++;
        } else {
            const held_ev *h = &r->ev.v[rel[j]];
            rc = serve__event_apply(s, c, id, clen, &h->ev, &o[j], rev, h->t0);
            j++;
        }
    }
    return rc;
}

static int cmp_idx(const void *a, const void *b, void *ud)
{
    const model_order_ev *o = ud;
    return model_order_cmp(&o[*(const uint32_t *)a], &o[*(const uint32_t *)b]);
}

/*
 * Releases events of case hc: REL_DUE, every one whose grace is over by
 * now and every one before those in the case's order; REL_FIRST, the
 * first in its order; REL_ALL, every one. Applies them (place), removes
 * them from the held table and stores the case.
 */
static int release(serve *s, uint32_t hc, int mode, int64_t now)
{
    struct serve_reorder *r = s->ro;
    sess_case *c = r->c;
    held_case *k = &r->cs.v[hc];
    serve__case_take(s, k->id, k->len, true, serve__reorder_nheld(s, k->id, k->len), c);
    serve__stage(s, SERVE_STAGE_WINDOW);
    /* The case's order: its tokens where they are, its held events. */
    size_t nh = k->evs.n, nt = c->ntok;
    r->ord.n = 0;
    core_vec_reserve(&r->ord, nt + nh);
    for (size_t i = 0; i < nt; i++)
        r->ord.v[r->ord.n++] = tok_order(&c->tok[i]);
    for (size_t i = 0; i < nh; i++)
        r->ord.v[r->ord.n++] = r->ev.v[k->evs.v[i]].ord;
    model_order_keys(r->ord.v, r->ord.n);
    r->idx.n = 0;
    core_vec_reserve(&r->idx, nh);
    for (uint32_t i = 0; i < nh; i++)
        r->idx.v[r->idx.n++] = (uint32_t)(nt + i);
    qsort_r(r->idx.v, nh, sizeof *r->idx.v, cmp_idx, r->ord.v);
    size_t n = mode == REL_FIRST ? 1 : mode == REL_ALL ? nh : 0;
    if (mode == REL_DUE)
        for (size_t i = 0; i < nh; i++)
            if (r->ev.v[k->evs.v[r->idx.v[i] - nt]].arrived + s->reorder_ns <= now)
                n = i + 1;
    /* The released ones in their order (rel), their places at the front
     * of r->ord; off the case's list below and out of the held table,
     * whatever becomes of them (applied, or refused as too late). */
    r->rel.n = 0;
    core_vec_reserve(&r->rel, n);
    model_order_ev *o = core_xmalloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) {
        uint32_t e = k->evs.v[r->idx.v[i] - nt];
        r->rel.v[r->rel.n++] = e;
        o[i] = r->ord.v[r->idx.v[i]];
        r->ev.v[e].hc = NONE;
        sink_histogram_observe(s->h_held, (double)(now - r->ev.v[e].arrived) * 1e-9);
    }
    memcpy(r->ord.v, o, n * sizeof *o);
    free(o);
    size_t w = 0;
    for (size_t i = 0; i < k->evs.n; i++) {
        const held_ev *h = &r->ev.v[k->evs.v[i]];
        if (h->hc != NONE) {
            k->fps.v[w] = k->fps.v[i];
            k->evs.v[w++] = k->evs.v[i];
            continue;
        }
        sess_batch_held_del(s->batch, k->id, k->len, h->no);
        seen_add(s, c, h->fp);
        r->held--;
    }
    k->evs.n = k->fps.n = w;
    /* (The events keep their strings until their slot is freed.) */
    int rc = place(s, c, k->id, k->len, r->rel.v, r->ord.v, n);
    c->nheld = (uint32_t)w;
    if (w)
        case_know(k, c);
    if (c->closed && w)
        c->closed = false; /* events after its end wait for it: it stays open */
    /* Stored, and with the changelog recorded in each input partition its
     * events came from (see the top of the file). */
    ingest_kafka_msg km;
    bool cl = s->kcl && k->srcs.n;
    serve__case_store(s, k->id, k->len, c, cl ? src_msg(s, &k->srcs.v[0], &km) : NULL);
    for (size_t i = 1; cl && i < k->srcs.n; i++)
        serve__changelog_send(s, k->id, k->len, c->closed ? NULL : c,
                              src_msg(s, &k->srcs.v[i], &km));
    serve__stage(s, SERVE_STAGE_WINDOW);
    if (!w)
        case_drop(r, hc);
    sink_gauge_set(s->g_held, (double)r->held);
    return rc;
}

int64_t serve__reorder_acked(serve *s, const ingest_kafka_msg *km)
{
    struct serve_reorder *r = s->ro;
    if (!s->kcl)
        return km->offset + 1;
    held_part *p = part_get(r, topic_id(r, km->topic, strlen(km->topic)), km->partition);
    if (km->offset + 1 > p->next)
        p->next = km->offset + 1;
    return part_acked(r, p);
}

int serve__reorder_release_partition(serve *s, int32_t partition, const char *why)
{
    struct serve_reorder *r = s->ro;
    if (!r || !r->held)
        return 0;
    /* Every held case is looked at: the held set is bounded by what
     * arrives within one grace (and serve.reorder_max_events a case), and
     * a revoke is rare, so an index by partition would cost every event
     * for nothing. */
    int64_t now = core_wall_ns();
    uint64_t n0 = r->held;
    int rc = 0;
    for (uint32_t i = 0; i < r->cs.n && !rc; i++) {
        const held_case *k = &r->cs.v[i];
        bool ours = false;
        for (size_t j = 0; k->id && j < k->srcs.n && !ours; j++)
            ours = partition < 0 || k->srcs.v[j].part == partition;
        if (ours) /* (a released slot stays where it is: the loop goes on) */
            rc = release(s, i, REL_ALL, now);
    }
    if (n0 > r->held) {
        char what[40] = "the input partitions";
        if (partition >= 0)
            snprintf(what, sizeof what, "partition %d", (int)partition);
        core_logf(&s->lg, CORE_LOG_INFO, "%llu held events of %s released at once (%s)",
                  (unsigned long long)(n0 - r->held), what, why);
    }
    return rc;
}

bool serve__reorder_on(const serve *s)
{
    return s->reorder_ns || (s->ro && s->ro->held);
}

int64_t serve__reorder_wait_ns(serve *s)
{
    struct serve_reorder *r = s->ro;
    for (size_t i = r->head; i < r->fifo.n; i++) {
        const held_ev *h = &r->ev.v[r->fifo.v[i]];
        if (h->hc == NONE)
            continue; /* (released early) */
        int64_t d = h->arrived + s->reorder_ns - core_wall_ns();
        return d > 0 ? d : 0;
    }
    return INT64_MAX;
}

/* Engine time per event released, before any is measured: a guess of
 * the right order (applying an event took about 8 us here at the
 * defaults, taking one in under 2). */
#define COST_GUESS_NS 8000.0

/* The room fills a quarter faster than the engine was measured to take
 * events in and apply them, so that the engine never waits for input it
 * could have taken (filled at the measured rate, a sustained full load
 * went a tenth and more slower): the events that then become overdue
 * stop input (serve__cycle), not the room. */
#define ROOM_PACE 1.25

/* Events over which the times per event are averaged: a cycle that
 * handled a few moves the averages little. */
#define COST_EVENTS 10000.0

static void cost_note(double *avg, uint64_t ns, uint64_t n)
{
    if (n == 0)
        return;
    double x = (double)ns / (double)n, w = (double)n / ((double)n + COST_EVENTS);
    *avg = *avg > 0 ? *avg + (x - *avg) * w : x;
}

void serve__reorder_note_cycle(serve *s, uint64_t busy_ns, uint64_t released)
{
    struct serve_reorder *r = s->ro;
    uint64_t in = r->next_no - r->room_no;
    /* The releases' own time was measured as they ran (serve__reorder_due);
     * the rest of the cycle's goes to what it took in. */
    cost_note(&r->in_ns, busy_ns > r->release_busy ? busy_ns - r->release_busy : 0, in);
    cost_note(&r->release_ns, r->release_busy, released);
    r->release_busy = 0;
    r->room = r->room > (double)in ? r->room - (double)in : 0;
    r->room_no = r->next_no;
}

uint64_t serve__reorder_held(const serve *s)
{
    return s->ro ? s->ro->held : 0;
}

uint64_t serve__reorder_room(serve *s)
{
    struct serve_reorder *r = s->ro;
    double cost = r->in_ns + (r->release_ns > 0 ? r->release_ns : COST_GUESS_NS);
    /* Each event stays a grace at least, longer while the engine is
     * behind: two graces' worth keeps the room from being what limits
     * the rate (the events held are the rate times their stay). */
    double most = 2.0 * (double)s->reorder_ns / cost;
    if (most < s->batch_max)
        most = s->batch_max;
    uint64_t now = core_now_ns();
    r->room = r->room_at ? r->room + ROOM_PACE * (double)(now - r->room_at) / cost : most;
    if (r->room > most)
        r->room = most;
    r->room_at = now;
    r->room_no = r->next_no;
    return (uint64_t)r->room;
}

int serve__reorder_due(serve *s, uint64_t most, uint64_t *released)
{
    struct serve_reorder *r = s->ro;
    int64_t now = core_wall_ns();
    int rc = 0;
    uint64_t held0 = r->held, n = 0, t0 = core_now_ns();
    /* A burst of held events comes due at once (a grace after it came):
     * released in one go, it would keep the engine from its input for as
     * long as the burst takes to apply. */
    while (r->head < r->fifo.n && !rc && n < most && s->batch_events < s->batch_max) {
        uint32_t e = r->fifo.v[r->head];
        held_ev *h = &r->ev.v[e];
        if (h->hc != NONE && h->arrived + s->reorder_ns > now)
            break;
        r->head++;
        if (h->hc == NONE) {
            held_free(r, e);
            continue;
        }
        /* Releases e too; its slot is free once it is off the fifo. */
        bool timed = serve__stage_begin(s, SERVE_STAGE_CASE);
        rc = release(s, h->hc, REL_DUE, now);
        if (timed)
            serve__stage_end(s);
        held_free(r, e);
        n = held0 > r->held ? held0 - r->held : 0;
    }
    r->release_busy += core_now_ns() - t0;
    if (released)
        *released = n;
    if (r->head > 4096 && r->head * 2 > r->fifo.n) {
        memmove(r->fifo.v, r->fifo.v + r->head, (r->fifo.n - r->head) * sizeof *r->fifo.v);
        r->fifo.n -= r->head;
        r->head = 0;
    }
    return rc;
}
