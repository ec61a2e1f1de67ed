/*
 * Scale-out (serve_int.h): the changelog of case changes, its restore and
 * fencing; the counts learnt online, shared between instances.
 */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A changelog record: key = case id, value = version 1, the input topic
 * (u16 length, bytes) and offset (i64, little-endian) of the message that
 * made the change, the texts of the case's activities that are not the
 * base model's (u8 count, then per text: u8 token index, u16 length,
 * bytes: their ids are this instance's own), then the case in the state
 * store's encoding. A deleted case: a record with the same header and the
 * count 0xff (no case: the offset of the message that closed it must
 * survive too), then a tombstone, so that compaction forgets the case.
 */
#define CL_DELETED 0xff

void serve__cl_encode(core_buf *b, const char *topic, int64_t offset, const sess_case *c,
                      const char *const *texts)
{
    core_buf_putc(b, SERVE_CL_VERSION);
    size_t tl = strlen(topic);
    core_buf_put_le(b, tl, 2);
    core_buf_append(b, topic, tl);
    core_buf_put_le(b, (uint64_t)offset, 8);
    if (!c) {
        core_buf_putc(b, (char)CL_DELETED);
        return;
    }
    uint8_t n = 0;
    for (uint32_t i = 0; i < c->ntok; i++)
        n += texts[i] != NULL;
    core_buf_putc(b, (char)n);
    for (uint32_t i = 0; i < c->ntok; i++) {
        if (!texts[i])
            continue;
        size_t n2 = strlen(texts[i]);
        if (n2 > 65535)
            n2 = 65535;
        core_buf_putc(b, (char)i);
        core_buf_put_le(b, n2, 2);
        core_buf_append(b, texts[i], n2);
    }
    sess_case_encode(c, b);
}

int serve__cl_decode(const void *val, size_t len, serve_cl_rec *out)
{
    memset(out, 0, sizeof *out);
    core_rd r = core_rd_of(val, len);
    uint8_t version = (uint8_t)core_rd_le(&r, 1);
    out->topic_len = (size_t)core_rd_le(&r, 2);
    out->topic = core_rd_bytes(&r, out->topic_len);
    out->offset = (int64_t)core_rd_le(&r, 8);
    uint8_t ntext = (uint8_t)core_rd_le(&r, 1);
    if (r.bad || version != SERVE_CL_VERSION)
        return CORE_ECORRUPT;
    out->header = true;
    if (ntext == CL_DELETED) {
        out->deleted = true;
        return 0;
    }
    if (ntext > SESS_MAX_TOKENS)
        return CORE_ECORRUPT;
    out->ntext = ntext;
    for (uint8_t i = 0; i < ntext; i++) {
        serve_cl_text *t = &out->texts[i];
        t->at = (uint8_t)core_rd_le(&r, 1);
        t->n = (size_t)core_rd_le(&r, 2);
        t->t = core_rd_bytes(&r, t->n);
    }
    if (r.bad)
        return CORE_ECORRUPT;
    char why[128];
    return sess_case_decode(r.p, core_rd_left(&r), &out->c, why, sizeof why) == 0 ? 0
                                                                                  : CORE_ECORRUPT;
}

static int cl_produce(serve *s, int32_t partition, const char *case_id, size_t clen,
                      const void *val, size_t vlen)
{
    int rc;
    while ((rc = sink_kafka_send_to(s->kcl, partition, case_id, clen, val, vlen, 100)) == -EAGAIN &&
           !s->stop)
        ;
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR, "cannot produce to %s[%d]: %s", s->cl_topic,
                  (int)partition, core_strerror(rc));
    return rc;
}

/* Queues one record of the batch being filled (val NULL: a tombstone). */
static void cl_queue(serve *s, int32_t partition, const char *case_id, size_t clen, const void *val,
                     size_t vlen)
{
    struct serve_clq *q = s->clq;
    struct serve_clrec r = {.partition = partition,
                            .klen = (uint32_t)clen,
                            .koff = q->data.len,
                            .tombstone = val == NULL};
    core_buf_append(&q->data, case_id, clen);
    r.voff = q->data.len;
    r.vlen = val ? vlen : 0;
    if (val)
        core_buf_append(&q->data, val, vlen);
    core_vec_push(&q->recs, r);
}

void serve__changelog_send(serve *s, const char *case_id, size_t clen, const sess_case *c,
                           const ingest_kafka_msg *km)
{
    const char *texts[SESS_MAX_TOKENS] = {NULL};
    for (uint32_t i = 0; c && i < c->ntok; i++) {
        if (c->act[i] >= s->base_acts) {
            map_activity pa;
            map_mapper_activity(s->m, c->act[i], &pa);
            texts[i] = pa.text;
        }
    }
    core_buf_reset(&s->clv);
    serve__cl_encode(&s->clv, km->topic, km->offset, c, texts);
    cl_queue(s, km->partition, case_id, clen, s->clv.data, s->clv.len);
    if (!c)
        cl_queue(s, km->partition, case_id, clen, NULL, 0);
}

int serve__changelog_flush(serve *s, struct serve_clq *q, uint64_t *epoch)
{
    for (size_t i = 0; i < q->recs.n; i++) {
        const struct serve_clrec *r = &q->recs.v[i];
        int rc = cl_produce(s, r->partition, q->data.data + r->koff, r->klen,
                            r->tombstone ? NULL : q->data.data + r->voff, r->vlen);
        if (rc)
            return rc;
    }
    *epoch = sink_kafka_epoch_close(s->kcl);
    return 0;
}

void serve__clq_clear(struct serve_clq *q)
{
    core_buf_reset(&q->data);
    q->recs.n = 0;
}

void serve__clq_free(struct serve_clq *q)
{
    core_buf_free(&q->data);
    core_vec_free(&q->recs);
}

/* The newest input offset seen for topic[partition] in the changelog. */
static void cl_pos_note(serve *s, const char *topic, size_t tl, int32_t partition, int64_t off)
{
    for (size_t i = 0; i < s->cl_pos.n; i++) {
        kpos *p = &s->cl_pos.v[i];
        if (p->partition == partition && strlen(p->topic) == tl &&
            memcmp(p->topic, topic, tl) == 0) {
            if (off > p->offset)
                p->offset = off;
            return;
        }
    }
    core_vec_push(&s->cl_pos, ((kpos){core_xstrndup(topic, tl), partition, off}));
}

/*
 * Fencing. An instance that was paused past the session timeout (a long
 * GC-like stall, SIGSTOP, a frozen VM) loses its partitions, but it may
 * still write the changes of the messages it had in hand before it learns
 * that: records older than those the new owner has written since, after
 * them in the changelog. A restore keeps, per case and input topic, the
 * newest input offset whose change it applied, and skips a record whose
 * change comes from an older message (stale), and the tombstone that
 * follows a stale deletion. Records of one message share its offset and
 * apply in order.
 */
typedef struct restore_ctx {
    serve *s;
    uint64_t puts, dels, bad, stale;
    core_map newest;    /* hash(case, topic) -> newest input offset applied + 1 */
    core_map skip_tomb; /* hash(case) -> 1: the next tombstone is a stale deletion's */
} restore_ctx;

static uint64_t fence_key(const char *key, size_t klen, const char *topic, size_t tl)
{
    uint64_t h = core_hash64(key, klen, 0x66656e6365ull) ^ (uint64_t)klen;
    h = core_hash64(topic, tl, h);
    return h == UINT64_MAX ? 0 : h;
}

/* True if the change of input (topic, off) to case key is older than one
 * already applied; else notes it as the newest. */
static bool fence_stale(restore_ctx *r, const char *key, size_t klen, const char *topic, size_t tl,
                        int64_t off)
{
    bool fresh;
    uint64_t *v = core_map_put(&r->newest, fence_key(key, klen, topic, tl), &fresh);
    if (!fresh && (int64_t)(*v - 1) > off)
        return true;
    *v = (uint64_t)off + 1;
    return false;
}

static int restore_one(void *ud, const ingest_kafka_msg *m)
{
    restore_ctx *r = ud;
    serve *s = r->s;
    if (!m->key || !m->klen || m->klen > SESS_MAX_ID) {
        r->bad++;
        return 0;
    }
    if (!m->val) { /* after its deletion record (counted there) */
        uint64_t *skip = core_map_get(&r->skip_tomb, fence_key(m->key, m->klen, "", 0));
        if (skip && *skip) {
            *skip = 0;
            r->stale++;
            return 0;
        }
        sess_batch_case_del(s->batch, m->key, m->klen);
        return 0;
    }
    serve_cl_rec rec;
    int rc = serve__cl_decode(m->val, m->vlen, &rec);
    if (!rec.header) {
        r->bad++;
        return 0;
    }
    /* Staleness first: a record an older message made is skipped whatever
     * its body holds. */
    if (fence_stale(r, m->key, m->klen, rec.topic, rec.topic_len, rec.offset)) {
        r->stale++;
        if (rec.deleted)
            *core_map_put(&r->skip_tomb, fence_key(m->key, m->klen, "", 0), NULL) = 1;
        return 0;
    }
    if (rc) {
        r->bad++;
        return 0;
    }
    if (rec.deleted) {
        sess_batch_case_del(s->batch, m->key, m->klen);
        cl_pos_note(s, rec.topic, rec.topic_len, m->partition, rec.offset);
        r->dels++;
        return 0;
    }
    sess_case c = rec.c;
    /* Activities of no base model: ids of ours for their texts. */
    for (uint8_t i = 0; i < rec.ntext; i++) {
        const serve_cl_text *x = &rec.texts[i];
        if (x->at >= c.ntok)
            continue;
        char *t = core_xstrndup(x->t, x->n);
        uint32_t a = map_mapper_find(s->m, t), v;
        if (a == UINT32_MAX) {
            map_event me = {.text = t, .len = x->n};
            map_mapper_map(s->m, &me, NULL, 0, NULL, 0, &a, &v);
            c.var[x->at] = v;
        }
        c.act[x->at] = a;
        free(t);
    }
    sess_batch_case_put(s->batch, m->key, m->klen, &c);
    cl_pos_note(s, rec.topic, rec.topic_len, m->partition, rec.offset);
    r->puts++;
    return 0;
}

bool serve__restored_has(const serve *s, int32_t partition)
{
    for (size_t i = 0; i < s->restored.n; i++)
        if (s->restored.v[i] == partition)
            return true;
    return false;
}

/* The cases of changelog partition P, from where this state has read it
 * to its end, into the current batch. Engine thread, inside the poll. */
int serve__changelog_restore(serve *s, int32_t partition)
{
    int64_t from = 0, next = 0;
    if (sess_offset_get(s->env, s->cl_topic, partition, &from) != 0)
        from = 0;
    restore_ctx r = {.s = s};
    uint64_t t0 = core_now_ns();
    char why[512];
    int rc = ingest_kafka_read_partition(&s->kio, s->cl_topic, partition, from, 60000, restore_one,
                                         &r, &next, why, sizeof why);
    core_map_free(&r.newest);
    core_map_free(&r.skip_tomb);
    if (rc) {
        core_logf(&s->lg, CORE_LOG_ERROR, "restoring %s[%d]: %s", s->cl_topic, (int)partition, why);
        return rc;
    }
    sess_batch_offset_put(s->batch, s->cl_topic, partition, next);
    core_vec_push(&s->restored, partition);
    sink_counter_add(s->c_cl_stale, r.stale);
    core_logf(&s->lg, CORE_LOG_INFO,
              "restored %llu case changes (%llu deletions, %llu unreadable, %llu stale skipped) of "
              "%s[%d] from offset %lld in %.1f ms",
              (unsigned long long)r.puts, (unsigned long long)r.dels, (unsigned long long)r.bad,
              (unsigned long long)r.stale, s->cl_topic, (int)partition, (long long)from,
              (double)(core_now_ns() - t0) / 1e6);
    return 0;
}

/* ---- shared counts ---- */

/*
 * A window and what followed, for the others. Value: version, instance id
 * (u64), order (u8), next, act[order], var[order] (u32 each,
 * little-endian). Ids of the base model mean the same everywhere; those
 * learnt online are this instance's own, so version 2 adds their texts:
 * a count (u8), then per text its slot (u8: 0 next, 1 + i act[i], 0x80 | i
 * var[i]), length (u16) and bytes; the receiver maps them to ids of its
 * own. A window of base ids only goes as version 1 (what instances before
 * version 2 merge).
 */
#define FO_SLOT_VAR 0x80

static void fo_text(core_buf *b, uint8_t slot, const char *t, uint8_t *ntext)
{
    size_t n = strlen(t);
    if (n > 65535)
        n = 65535;
    core_buf_putc(b, (char)slot);
    core_buf_put_le(b, n, 2);
    core_buf_append(b, t, n);
    (*ntext)++;
}

void serve__follows_share(serve *s, uint32_t order, uint32_t next, const uint32_t *act,
                          const uint32_t *var)
{
    bool base = next < s->base_acts;
    for (uint32_t i = 0; i < order; i++)
        base = base && act[i] < s->base_acts && var[i] < s->base_vars;
    core_buf *b = &s->fov;
    core_buf_reset(b);
    core_buf_putc(b, base ? 1 : 2);
    core_buf_put_le(b, s->instance_id, 8);
    core_buf_putc(b, (char)order);
    core_buf_put_le(b, next, 4);
    for (uint32_t i = 0; i < order; i++)
        core_buf_put_le(b, act[i], 4);
    for (uint32_t i = 0; i < order; i++)
        core_buf_put_le(b, var[i], 4);
    if (!base) {
        size_t at = b->len;
        uint8_t ntext = 0;
        core_buf_putc(b, 0);
        map_activity pa;
        if (next >= s->base_acts) {
            map_mapper_activity(s->m, next, &pa);
            fo_text(b, 0, pa.text, &ntext);
        }
        for (uint32_t i = 0; i < order; i++) {
            if (act[i] >= s->base_acts) {
                map_mapper_activity(s->m, act[i], &pa);
                fo_text(b, (uint8_t)(1 + i), pa.text, &ntext);
            }
            if (var[i] >= s->base_vars) {
                const char *t;
                map_mapper_variant(s->m, var[i], &t);
                fo_text(b, (uint8_t)(FO_SLOT_VAR | i), t, &ntext);
            }
        }
        b->data[at] = (char)ntext;
    }
    /* Best effort: the window is counted here and in this state whatever
     * happens to the copy. */
    if (sink_kafka_send(s->kfo, NULL, 0, b->data, b->len, 0) != 0)
        sink_counter_add(s->c_follows_lost, 1);
    else
        sink_counter_add(s->c_follows_shared, 1);
}

/* An activity of another instance, by its text: ours, or a new one made
 * by mapping the text (as a restored case's). */
static uint32_t fo_activity(serve *s, const uint8_t *t, size_t n)
{
    char *txt = core_xstrndup((const char *)t, n);
    uint32_t a = map_mapper_find(s->m, txt), v;
    if (a == UINT32_MAX) {
        map_event me = {.text = txt, .len = n};
        map_mapper_map(s->m, &me, NULL, 0, NULL, 0, &a, &v);
    }
    free(txt);
    return a;
}

int serve__follows_merge(void *ud, const ingest_kafka_msg *m)
{
    serve *s = ud;
    const uint8_t *p = m->val;
    sess_batch_offset_put(s->batch, s->fo_topic, m->partition, m->offset + 1);
    if (!p || m->vlen < 14 || (p[0] != 1 && p[0] != 2) || core_get_le(p + 1, 8) == s->instance_id)
        return 0;
    uint32_t order = p[9];
    size_t fixed = 14 + (size_t)order * 8;
    if (order == 0 || order > SESS_MAX_TOKENS ||
        (p[0] == 1 ? m->vlen != fixed : m->vlen < fixed + 1))
        return 0;
    uint32_t next = (uint32_t)core_get_le(p + 10, 4), act[SESS_MAX_TOKENS], var[SESS_MAX_TOKENS];
    for (uint32_t i = 0; i < order; i++) {
        act[i] = (uint32_t)core_get_le(p + 14 + i * 4, 4);
        var[i] = (uint32_t)core_get_le(p + 14 + (order + i) * 4, 4);
    }
    /* Texts (version 2): activities first, then the variants of the
     * activities they belong to, which are ours by then. */
    const uint8_t *t = p + fixed, *end = p + m->vlen;
    uint32_t ntext = p[0] == 2 ? *t++ : 0;
    struct {
        uint8_t slot;
        const uint8_t *t;
        size_t n;
    } tx[1 + 2 * SESS_MAX_TOKENS];
    if (ntext > 1 + 2 * order)
        return 0;
    for (uint32_t i = 0; i < ntext; i++) {
        if (end - t < 3)
            return 0;
        tx[i].slot = t[0];
        tx[i].n = core_get_le(t + 1, 2);
        tx[i].t = t + 3;
        t += 3 + tx[i].n;
        if (t > end)
            return 0;
    }
    bool got_next = false, got_act[SESS_MAX_TOKENS] = {false}, got_var[SESS_MAX_TOKENS] = {false};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < ntext; i++) {
            uint8_t sl = tx[i].slot;
            bool is_var = sl & FO_SLOT_VAR;
            if (is_var != (pass == 1))
                continue;
            if (!is_var && sl == 0) {
                next = fo_activity(s, tx[i].t, tx[i].n);
                got_next = true;
            } else if (!is_var && sl <= order) {
                act[sl - 1] = fo_activity(s, tx[i].t, tx[i].n);
                got_act[sl - 1] = true;
            } else if (is_var && (sl & ~FO_SLOT_VAR) < order) {
                uint32_t j = sl & ~FO_SLOT_VAR;
                char *txt = core_xstrndup((const char *)tx[i].t, tx[i].n);
                var[j] = act[j] == UINT32_MAX ? UINT32_MAX
                                              : map_mapper_restore_variant(s->m, act[j], txt);
                free(txt);
                got_var[j] = true;
            } else {
                return 0;
            }
        }
    /* Every id is now a base id or one of ours. */
    if ((next >= s->base_acts && !got_next) || next == UINT32_MAX)
        return 0;
    for (uint32_t i = 0; i < order; i++)
        if ((act[i] >= s->base_acts && !got_act[i]) || (var[i] >= s->base_vars && !got_var[i]) ||
            act[i] == UINT32_MAX || var[i] == UINT32_MAX)
            return 0;
    serve__obs_count(s, order, next, act, var, 1, true);
    sink_counter_add(s->c_follows_merged, 1);
    return 0;
}

int64_t serve__follows_start(void *ud, int32_t partition)
{
    serve *s = ud;
    int64_t next;
    return sess_offset_get(s->env, s->fo_topic, partition, &next) == 0 ? next : -1;
}

void serve__restored_drop(serve *s, int32_t partition)
{
    for (size_t i = 0; i < s->restored.n; i++)
        if (s->restored.v[i] == partition)
            s->restored.v[i--] = s->restored.v[--s->restored.n];
}

/* This state's instance id (made at its first start). */
uint64_t serve__instance_id(serve *s)
{
    core_buf meta = {0};
    uint64_t id = 0;
    if (sess_meta_get(s->env, "instance", &meta) == 0 && meta.len == 8)
        id = core_get_le((const uint8_t *)meta.data, 8);
    core_buf_free(&meta);
    if (id)
        return id;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&id, sizeof id, 1, f) != 1)
        id = (uint64_t)core_now_ns() ^ ((uint64_t)getpid() << 32);
    if (f)
        fclose(f);
    core_buf b = {0};
    core_buf_put_le(&b, id, 8);
    sess_batch_meta_put(s->batch, "instance", b.data, b.len);
    core_buf_free(&b);
    return id;
}
