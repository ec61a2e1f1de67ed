/*
 * The case encoding and the in-memory batch of changes.
 *
 * An encoded case (version 3), all integers unsigned LEB128 varints unless
 * said otherwise:
 *   u8 version, u8 flags (1 closed, 2 has last_time, 4 has vec_err, 8 has vec_wsum,
 *      16 has a prediction, 32 has scores, 64 has the tokens' order, 128 has
 *      the held count and fingerprints),
 *   touched_ns (8 bytes LE, at a fixed offset for the TTL index),
 *   [last_time_ns (8 bytes LE)], seq, model_version,
 *   ntok, ntok x (act, var),
 *   nvec, [vec_err (8 bytes LE, IEEE double)], [vec_wsum (the same)],
 *   nvec x (node - previous node as a zigzag varint, score (4 bytes LE float)),
 *   [npred, npred x symbol],
 *   [scored, hit1, hit3, hit10, last_rank + 1, rr (8 bytes LE, IEEE double)],
 *   [ntok x (u8 bits: 1 a span, 2 has a span id; key - the previous key (0
 *    before the first) as a zigzag varint, modulo 2^64; shift (zigzag);
 *    dur + 1; [span (8 bytes LE)]; depth; rev): left out when no token's
 *    place is known],
 *   [nheld, nseen, seen_next, nseen x fingerprint (8 bytes LE)],
 *   ntold, ntold x (symbol, seq)  (version 4 only)
 * Version 4 is written only for a case some value told a variant of
 * (ntold > 0), else version 3, which is the same without the last part.
 * Version 2 is the same as 3 without the two parts before (and their flags);
 * version 1 without the last four: what builds before the online accuracy
 * and before the event-time order wrote, still read. A case with none of
 * the optional parts is as long as in version 1.
 * The node deltas keep the vector's own order (score order, usually) and
 * still take two or three bytes for the node ids of a code graph.
 */
#include "sess_int.h"

#include "core_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    F_CLOSED = 1,
    F_TIME = 2,
    F_ERR = 4,
    F_WSUM = 8,
    F_PRED = 16,
    F_SCORE = 32,
    F_ORDER = 64,
    F_SEEN = 128,
    F_ALL_V1 = 15,
    F_ALL_V2 = 63,
    F_ALL = 255
};

enum { T_SPAN = 1, T_HAS_SPAN = 2, T_ALL = 3 };

bool sess__case_fits(const sess_case *c)
{
    return c->ntok <= SESS_MAX_TOKENS && c->nvec <= SESS_MAX_VEC && c->npred <= SESS_MAX_PRED &&
           c->nseen <= SESS_MAX_SEEN && (c->seen_next < c->nseen || c->seen_next == 0) &&
           c->ntold <= SESS_MAX_TOLD;
}

size_t sess__case_encode(const sess_case *c, uint8_t *out)
{
    uint8_t *p = out;
    uint8_t flags = 0;
    if (c->closed)
        flags |= F_CLOSED;
    if (c->last_time_ns != INT64_MIN)
        flags |= F_TIME;
    uint64_t err_bits;
    memcpy(&err_bits, &c->vec_err, sizeof err_bits);
    if (err_bits)
        flags |= F_ERR;
    uint64_t wsum_bits;
    memcpy(&wsum_bits, &c->vec_wsum, sizeof wsum_bits);
    if (wsum_bits)
        flags |= F_WSUM;
    if (c->has_pred)
        flags |= F_PRED;
    uint64_t rr_bits;
    memcpy(&rr_bits, &c->rr, sizeof rr_bits);
    /* Anything below -1 means "not scored" too (and must not encode as
     * a rank no decoder accepts). */
    int64_t last_rank = c->last_rank < -1 ? -1 : c->last_rank;
    if (c->scored || c->hit1 || c->hit3 || c->hit10 || rr_bits || last_rank != -1)
        flags |= F_SCORE;
    /* Tokens whose places are all unknown (a case stored by an older
     * build) are as short as they were. */
    for (uint32_t i = 0; i < c->ntok && !(flags & F_ORDER); i++) {
        const sess_tok *t = &c->tok[i];
        if (t->key != INT64_MIN || t->shift || t->dur != -1 || t->span || t->depth || t->rev ||
            t->is_span)
            flags |= F_ORDER;
    }
    if (c->nheld || c->nseen)
        flags |= F_SEEN;
    *p++ = c->ntold ? 4 : 3;
    *p++ = flags;
    sess__put_u64le(p, (uint64_t)c->touched_ns);
    p += 8;
    if (flags & F_TIME) {
        sess__put_u64le(p, (uint64_t)c->last_time_ns);
        p += 8;
    }
    p = core_wire_put_varint(p, c->seq);
    p = core_wire_put_varint(p, c->model_version);
    p = core_wire_put_varint(p, c->ntok);
    for (uint32_t i = 0; i < c->ntok; i++) {
        p = core_wire_put_varint(p, c->act[i]);
        p = core_wire_put_varint(p, c->var[i]);
    }
    p = core_wire_put_varint(p, c->nvec);
    if (flags & F_ERR) {
        sess__put_u64le(p, err_bits);
        p += 8;
    }
    if (flags & F_WSUM) {
        sess__put_u64le(p, wsum_bits);
        p += 8;
    }
    int64_t prev = 0;
    for (uint32_t i = 0; i < c->nvec; i++) {
        int64_t d = (int64_t)c->vec[i].node - prev;
        prev = c->vec[i].node;
        p = core_wire_put_varint(p, core_wire_zigzag(d));
        uint32_t bits;
        memcpy(&bits, &c->vec[i].score, sizeof bits);
        p = core_wire_put_fixed32(p, bits);
    }
    if (flags & F_PRED) {
        p = core_wire_put_varint(p, c->npred);
        for (uint32_t i = 0; i < c->npred; i++)
            p = core_wire_put_varint(p, c->pred[i]);
    }
    if (flags & F_SCORE) {
        p = core_wire_put_varint(p, c->scored);
        p = core_wire_put_varint(p, c->hit1);
        p = core_wire_put_varint(p, c->hit3);
        p = core_wire_put_varint(p, c->hit10);
        p = core_wire_put_varint(p, (uint64_t)(last_rank + 1));
        sess__put_u64le(p, rr_bits);
        p += 8;
    }
    if (flags & F_ORDER) {
        uint64_t prev_key = 0;
        for (uint32_t i = 0; i < c->ntok; i++) {
            const sess_tok *t = &c->tok[i];
            *p++ = (uint8_t)((t->is_span ? T_SPAN : 0) | (t->span ? T_HAS_SPAN : 0));
            p = core_wire_put_varint(p, core_wire_zigzag((int64_t)((uint64_t)t->key - prev_key)));
            prev_key = (uint64_t)t->key;
            p = core_wire_put_varint(p, core_wire_zigzag(t->shift));
            /* (A duration of 292 years is one less, so that dur + 1 fits.) */
            p = core_wire_put_varint(
                p, t->dur < 0 ? 0 : (uint64_t)(t->dur < INT64_MAX ? t->dur : INT64_MAX - 1) + 1);
            if (t->span) {
                sess__put_u64le(p, t->span);
                p += 8;
            }
            p = core_wire_put_varint(p, t->depth);
            p = core_wire_put_varint(p, t->rev);
        }
    }
    if (flags & F_SEEN) {
        p = core_wire_put_varint(p, c->nheld);
        p = core_wire_put_varint(p, c->nseen);
        p = core_wire_put_varint(p, c->seen_next);
        for (uint32_t i = 0; i < c->nseen; i++) {
            sess__put_u64le(p, c->seen[i]);
            p += 8;
        }
    }
    if (c->ntold) {
        p = core_wire_put_varint(p, c->ntold);
        for (uint32_t i = 0; i < c->ntold; i++) {
            p = core_wire_put_varint(p, c->told[i]);
            p = core_wire_put_varint(p, c->told_seq[i]);
        }
    }
    return (size_t)(p - out);
}

/* A bounds-checked reader: the first error sticks and names its byte. */
typedef struct rd {
    const uint8_t *p;
    size_t n, at;
    const char *err;
    size_t err_at;
} rd;

static void rd_fail(rd *r, const char *what)
{
    if (!r->err) {
        r->err = what;
        r->err_at = r->at;
    }
    r->at = r->n; /* every later read fails too */
}

/* A varint of at most max. Protobuf drops what a tenth byte carries past
 * the 64th bit; here a value that does not fit is corrupt. */
static inline __attribute__((always_inline)) uint64_t rd_varint(rd *r, uint64_t max,
                                                                const char *what)
{
    const uint8_t *start = r->p + r->at, *q = start;
    uint64_t v;
    if (CORE_UNLIKELY(core_wire_get_varint(&q, r->p + r->n, &v) != 0 || v > max ||
                      (q - start == CORE_WIRE_VARINT_MAX && q[-1] > 1))) {
        rd_fail(r, what);
        return 0;
    }
    r->at = (size_t)(q - r->p);
    return v;
}

/* Little-endian integers of 1, 4 or 8 bytes (a constant at each call, so
 * that each becomes one load). */
static inline __attribute__((always_inline)) uint64_t rd_fixed(rd *r, int bytes, const char *what)
{
    if (r->n - r->at < (size_t)bytes) {
        rd_fail(r, what);
        return 0;
    }
    uint64_t v = core_get_le(r->p + r->at, bytes);
    r->at += (size_t)bytes;
    return v;
}

int sess__case_decode(const uint8_t *p, size_t n, sess_case *out, char *why, size_t whylen)
{
    if (n < 1) {
        snprintf(why, whylen, "empty value");
        return CORE_ECORRUPT;
    }
    if (p[0] < 1 || p[0] > SESS__CASE_VERSION) {
        snprintf(why, whylen, "encoding version %u (this build reads 1 to %u)", p[0],
                 SESS__CASE_VERSION);
        return CORE_EVERSION;
    }
    rd r = {.p = p, .n = n, .at = 1};
    uint8_t flags = (uint8_t)rd_fixed(&r, 1, "flags");
    if (!r.err && (flags & ~(p[0] == 1 ? F_ALL_V1 : p[0] == 2 ? F_ALL_V2 : F_ALL))) {
        r.at = 1;
        rd_fail(&r, "unknown flags");
    }
    out->closed = (flags & F_CLOSED) != 0;
    out->touched_ns = (int64_t)rd_fixed(&r, 8, "touched_ns");
    out->last_time_ns = (flags & F_TIME) ? (int64_t)rd_fixed(&r, 8, "last_time_ns") : INT64_MIN;
    out->seq = rd_varint(&r, UINT64_MAX, "seq");
    out->model_version = (uint32_t)rd_varint(&r, UINT32_MAX, "model_version");
    out->ntok = (uint32_t)rd_varint(&r, SESS_MAX_TOKENS, "ntok");
    for (uint32_t i = 0; i < out->ntok && !r.err; i++) {
        out->act[i] = (uint32_t)rd_varint(&r, UINT32_MAX, "token activity");
        out->var[i] = (uint32_t)rd_varint(&r, UINT32_MAX, "token variant");
    }
    out->nvec = (uint32_t)rd_varint(&r, SESS_MAX_VEC, "nvec");
    out->vec_err = 0;
    if (flags & F_ERR) {
        uint64_t bits = rd_fixed(&r, 8, "vec_err");
        memcpy(&out->vec_err, &bits, sizeof bits);
    }
    out->vec_wsum = 0;
    if (flags & F_WSUM) {
        uint64_t bits = rd_fixed(&r, 8, "vec_wsum");
        memcpy(&out->vec_wsum, &bits, sizeof bits);
    }
    int64_t prev = 0;
    for (uint32_t i = 0; i < out->nvec && !r.err; i++) {
        size_t at = r.at;
        /* Valid deltas lie within +-2^32, so zigzag values below 2^34 (and
         * the sum below cannot overflow). */
        int64_t node = prev + core_wire_unzigzag(rd_varint(&r, 1ull << 34, "vector node"));
        if (!r.err && (node < 0 || node > (int64_t)UINT32_MAX)) {
            r.at = at;
            rd_fail(&r, "vector node out of range");
        }
        uint32_t bits = (uint32_t)rd_fixed(&r, 4, "vector score");
        out->vec[i].node = (uint32_t)node;
        memcpy(&out->vec[i].score, &bits, sizeof bits);
        prev = node;
    }
    out->npred = 0;
    out->has_pred = (flags & F_PRED) != 0;
    if (flags & F_PRED) {
        out->npred = (uint32_t)rd_varint(&r, SESS_MAX_PRED, "npred");
        for (uint32_t i = 0; i < out->npred && !r.err; i++)
            out->pred[i] = (uint32_t)rd_varint(&r, UINT32_MAX, "prediction symbol");
    }
    out->scored = out->hit1 = out->hit3 = out->hit10 = 0;
    out->rr = 0;
    out->last_rank = -1;
    if (flags & F_SCORE) {
        out->scored = rd_varint(&r, UINT64_MAX, "scored");
        out->hit1 = rd_varint(&r, UINT64_MAX, "hit1");
        out->hit3 = rd_varint(&r, UINT64_MAX, "hit3");
        out->hit10 = rd_varint(&r, UINT64_MAX, "hit10");
        out->last_rank =
            (int32_t)((int64_t)rd_varint(&r, (uint64_t)INT32_MAX + 1, "last_rank") - 1);
        uint64_t bits = rd_fixed(&r, 8, "rr");
        memcpy(&out->rr, &bits, sizeof bits);
    }
    uint64_t prev_key = 0;
    for (uint32_t i = 0; i < out->ntok; i++) {
        sess_tok *t = &out->tok[i];
        if (!(flags & F_ORDER) || r.err) {
            *t = (sess_tok){.key = INT64_MIN, .dur = -1};
            continue;
        }
        size_t at = r.at;
        uint8_t bits = (uint8_t)rd_fixed(&r, 1, "token order bits");
        if (!r.err && (bits & ~T_ALL)) {
            r.at = at;
            rd_fail(&r, "unknown token order bits");
        }
        t->is_span = (bits & T_SPAN) != 0;
        prev_key += (uint64_t)core_wire_unzigzag(rd_varint(&r, UINT64_MAX, "token key"));
        t->key = (int64_t)prev_key;
        t->shift = core_wire_unzigzag(rd_varint(&r, UINT64_MAX, "token shift"));
        t->dur = (int64_t)rd_varint(&r, (uint64_t)INT64_MAX, "token duration") - 1;
        t->span = (bits & T_HAS_SPAN) ? rd_fixed(&r, 8, "token span") : 0;
        t->depth = (uint32_t)rd_varint(&r, UINT32_MAX, "token depth");
        t->rev = (uint32_t)rd_varint(&r, UINT32_MAX, "token revision");
    }
    out->nheld = out->nseen = out->seen_next = 0;
    if (flags & F_SEEN) {
        out->nheld = (uint32_t)rd_varint(&r, UINT32_MAX, "nheld");
        out->nseen = (uint32_t)rd_varint(&r, SESS_MAX_SEEN, "nseen");
        size_t at = r.at;
        out->seen_next = (uint32_t)rd_varint(&r, SESS_MAX_SEEN, "seen_next");
        if (!r.err && out->seen_next && out->seen_next >= out->nseen) {
            r.at = at;
            rd_fail(&r, "seen_next past nseen");
        }
        for (uint32_t i = 0; i < out->nseen && !r.err; i++)
            out->seen[i] = rd_fixed(&r, 8, "fingerprint");
    }
    out->ntold = 0;
    if (p[0] >= 4 && !r.err) {
        size_t at = r.at;
        out->ntold = (uint32_t)rd_varint(&r, SESS_MAX_TOLD, "ntold");
        if (!r.err && out->ntold == 0) {
            r.at = at;
            rd_fail(&r, "version 4 with no variant told");
        }
        for (uint32_t i = 0; i < out->ntold && !r.err; i++) {
            out->told[i] = (uint32_t)rd_varint(&r, UINT32_MAX, "told symbol");
            out->told_seq[i] = rd_varint(&r, UINT64_MAX, "told seq");
        }
    }
    if (!r.err && r.at != n)
        rd_fail(&r, "trailing bytes");
    if (r.err) {
        snprintf(why, whylen, "%s at byte %zu of %zu", r.err, r.err_at, n);
        return CORE_ECORRUPT;
    }
    return 0;
}

bool sess__case_touched(const uint8_t *p, size_t n, int64_t *touched)
{
    if (n < SESS__TOUCHED_OFF + 8 || p[0] < 1 || p[0] > SESS__CASE_VERSION)
        return false;
    *touched = (int64_t)sess__get_u64le(p + SESS__TOUCHED_OFF);
    return true;
}

/* u big-endian, then the id: keys in the order of u. */
static size_t u64_id_key(uint64_t u, const char *id, size_t len, uint8_t *out)
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(u >> (56 - 8 * i));
    memcpy(out + 8, id, len);
    return 8 + len;
}

size_t sess__touch_key(int64_t touched, const char *id, size_t len, uint8_t *out)
{
    return u64_id_key((uint64_t)touched ^ (1ull << 63), id, len, out);
}

size_t sess__held_key(const char *id, size_t len, uint64_t no, uint8_t *out)
{
    return u64_id_key(no, id, len, out);
}

int64_t sess__touch_time(const uint8_t *key)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | key[i];
    return (int64_t)(u ^ (1ull << 63));
}

/* ------------------------------------------------------------------ */
/* The batch                                                           */
/* ------------------------------------------------------------------ */

sess_batch *sess_batch_new(void)
{
    return core_xcalloc(1, sizeof(sess_batch));
}

/* A batch is reused after its commit, and keeps its buffers for the next
 * one; but a burst (one large request over thousands of cases) can grow
 * them to tens of MiB, which kept would hold that memory for good (and
 * keep a daemon over limits.memory_bytes after the burst). Past this size
 * they go back to the allocator. */
#define BATCH_KEEP_BYTES ((size_t)4 << 20)

void sess_batch_clear(sess_batch *b)
{
    if (b->ops.cap * sizeof *b->ops.v > BATCH_KEEP_BYTES)
        core_vec_free(&b->ops);
    b->ops.n = 0;
    if (b->data.cap > BATCH_KEEP_BYTES)
        core_buf_free(&b->data);
    else
        core_buf_reset(&b->data);
    /* core_map has no clear; a batch is cleared once per commit, so
     * rebuilding the index from scratch costs nothing that matters. */
    core_map_free(&b->index);
    memset(&b->index, 0, sizeof b->index);
    b->calls = 0;
}

void sess_batch_free(sess_batch *b)
{
    if (!b)
        return;
    core_vec_free(&b->ops);
    core_buf_free(&b->data);
    core_map_free(&b->index);
    free(b);
}

size_t sess_batch_size(const sess_batch *b)
{
    return b->calls;
}

size_t sess_batch_bytes(const sess_batch *b)
{
    return b ? sizeof *b + core_vec_bytes(b->ops) + b->data.cap + core_map_bytes(&b->index) : 0;
}

static uint64_t key_hash(uint8_t kind, const void *key, size_t klen)
{
    uint64_t h = core_hash64(key, klen, kind);
    return h == UINT64_MAX ? h - 1 : h; /* UINT64_MAX is core_map's empty slot */
}

const sess__op *sess__batch_find(const sess_batch *b, uint8_t kind, const void *key, size_t klen)
{
    const uint64_t *slot = core_map_get(&b->index, key_hash(kind, key, klen));
    if (!slot)
        return NULL;
    for (uint32_t i = (uint32_t)*slot; i != UINT32_MAX; i = b->ops.v[i].prev) {
        const sess__op *op = &b->ops.v[i];
        if (op->kind == kind && op->klen == klen && memcmp(b->data.data + op->koff, key, klen) == 0)
            return op;
    }
    return NULL;
}

sess__op *sess__batch_push(sess_batch *b, uint8_t kind, const void *key, size_t klen,
                           const void *val, size_t vlen)
{
    sess__op *old = (sess__op *)sess__batch_find(b, kind, key, klen);
    if (old)
        old->dead = true;
    bool ins;
    uint64_t *slot = core_map_put(&b->index, key_hash(kind, key, klen), &ins);
    if (b->ops.n >= UINT32_MAX - 1)
        core_panic("sess_batch: more than 4G changes in one batch");
    sess__op op = {
        .kind = kind,
        .prev = ins ? UINT32_MAX : (uint32_t)*slot,
        .klen = (uint32_t)klen,
        .vlen = (uint32_t)vlen,
        .koff = b->data.len,
    };
    core_buf_append(&b->data, key, klen);
    op.voff = b->data.len;
    if (vlen)
        core_buf_append(&b->data, val, vlen);
    *slot = b->ops.n;
    core_vec_push(&b->ops, op);
    b->calls++;
    return &b->ops.v[b->ops.n - 1];
}

static int check_id(size_t len)
{
    if (len == 0)
        return CORE_EUSAGE;
    return len > SESS_MAX_ID ? CORE_ELIMIT : 0;
}

int sess_case_encode(const sess_case *c, core_buf *out)
{
    if (!sess__case_fits(c))
        return CORE_ELIMIT;
    uint8_t buf[SESS__CASE_MAX];
    core_buf_append(out, buf, sess__case_encode(c, buf));
    return 0;
}

int sess_case_decode(const void *p, size_t n, sess_case *out, char *why, size_t whylen)
{
    return sess__case_decode(p, n, out, why, whylen);
}

int sess_batch_case_put(sess_batch *b, const char *case_id, size_t len, const sess_case *c)
{
    int rc = check_id(len);
    if (rc)
        return rc;
    if (!sess__case_fits(c))
        return CORE_ELIMIT;
    /* Encoded straight after the key, where the value goes. */
    sess__op *op = sess__batch_push(b, SESS__OP_CASE, case_id, len, NULL, 0);
    core_buf_reserve(&b->data, SESS__CASE_MAX);
    size_t n = sess__case_encode(c, (uint8_t *)b->data.data + op->voff);
    b->data.len += n;
    b->data.data[b->data.len] = 0;
    op->vlen = (uint32_t)n;
    return 0;
}

int sess_batch_case_del(sess_batch *b, const char *case_id, size_t len)
{
    int rc = check_id(len);
    if (rc)
        return rc;
    sess__batch_push(b, SESS__OP_CASE, case_id, len, NULL, 0)->del = true;
    return 0;
}

int sess_batch_case_find(const sess_batch *b, const char *case_id, size_t len, sess_case *out)
{
    const sess__op *op = sess__batch_find(b, SESS__OP_CASE, case_id, len);
    if (!op)
        return -1;
    if (op->del)
        return 0;
    char why[128];
    if (sess__case_decode((const uint8_t *)b->data.data + op->voff, op->vlen, out, why,
                          sizeof why) != 0)
        core_panic("sess_batch: own encoding does not decode: %s", why);
    return 1;
}

int sess_batch_dict_put(sess_batch *b, uint32_t id, const char *text, size_t len)
{
    if (len > SESS__MAX_VALUE)
        return CORE_ELIMIT;
    uint8_t key[4];
    sess__put_u32be(key, id);
    sess__batch_push(b, SESS__OP_DICT, key, 4, text, len);
    return 0;
}

int sess_batch_count_add(sess_batch *b, const void *key, size_t klen, uint64_t delta)
{
    int rc = check_id(klen);
    if (rc)
        return rc;
    sess__op *op = (sess__op *)sess__batch_find(b, SESS__OP_COUNT, key, klen);
    if (!op)
        op = sess__batch_push(b, SESS__OP_COUNT, key, klen, NULL, 0);
    else
        b->calls++;
    op->delta = op->delta > UINT64_MAX - delta ? UINT64_MAX : op->delta + delta;
    return 0;
}

int sess_batch_offset_put(sess_batch *b, const char *topic, int32_t partition, int64_t next_offset)
{
    size_t tlen = strlen(topic);
    if (tlen == 0)
        return CORE_EUSAGE;
    if (tlen > SESS_MAX_TOPIC)
        return CORE_ELIMIT;
    uint8_t key[SESS_MAX_TOPIC + 5], val[8];
    memcpy(key, topic, tlen);
    key[tlen] = 0;
    sess__put_u32be(key + tlen + 1, (uint32_t)partition);
    sess__put_u64le(val, (uint64_t)next_offset);
    sess__batch_push(b, SESS__OP_OFFSET, key, tlen + 5, val, 8);
    return 0;
}

int sess_batch_request_put(sess_batch *b, const uint8_t id[SESS_REQUEST_ID], int64_t time_ns)
{
    uint8_t val[8];
    sess__put_u64le(val, (uint64_t)time_ns);
    sess__batch_push(b, SESS__OP_REQUEST, id, SESS_REQUEST_ID, val, 8);
    return 0;
}

int sess_batch_request_del(sess_batch *b, const uint8_t id[SESS_REQUEST_ID])
{
    sess__batch_push(b, SESS__OP_REQUEST, id, SESS_REQUEST_ID, NULL, 0)->del = true;
    return 0;
}

int sess_batch_meta_put(sess_batch *b, const char *key, const void *val, size_t len)
{
    size_t klen = strlen(key);
    int rc = check_id(klen);
    if (rc)
        return rc;
    if (len > SESS__MAX_VALUE)
        return CORE_ELIMIT;
    sess__batch_push(b, SESS__OP_META, key, klen, val, len);
    return 0;
}

int sess_batch_held_put(sess_batch *b, const char *case_id, size_t len, uint64_t no,
                        const void *val, size_t n)
{
    int rc = check_id(len);
    if (rc)
        return rc;
    if (n > SESS__MAX_VALUE)
        return CORE_ELIMIT;
    uint8_t key[SESS_MAX_ID + 8];
    sess__batch_push(b, SESS__OP_HELD, key, sess__held_key(case_id, len, no, key), val, n);
    return 0;
}

int sess_batch_held_del(sess_batch *b, const char *case_id, size_t len, uint64_t no)
{
    int rc = check_id(len);
    if (rc)
        return rc;
    uint8_t key[SESS_MAX_ID + 8];
    sess__batch_push(b, SESS__OP_HELD, key, sess__held_key(case_id, len, no, key), NULL, 0)->del =
        true;
    return 0;
}
