/*
 * sessions/: per-case state in LMDB. Round trips, the batch, atomic
 * commits, map growth under concurrent readers, TTL expiry through the
 * index, corrupted values, reopening.
 *
 * PMRAG_SESS_FILL=DIR ./test_sessions fill_state_dir writes the small state
 * directory that tests/integration/state_cli.sh inspects with pmrag state.
 */
#define _GNU_SOURCE /* unshare */
#include "sessions.h"
#include "unit.h"

#include <errno.h>
#include <lmdb.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

static char logged[1 << 18];

static void log_capture(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    (void)level;
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s\n", msg);
}

static sess_env *open_env(const char *dir, size_t map_size, size_t map_max, bool no_grow)
{
    sess_opts o = {.path = dir,
                   .map_size = map_size,
                   .map_max = map_max,
                   .no_grow = no_grow,
                   .log = {.fn = log_capture}};
    sess_env *e = NULL;
    char why[256] = "";
    int rc = sess_open(&o, &e, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sess_open(%s): %d %s", dir, rc, why);
    return e;
}

static sess_env *open_ro(const char *dir)
{
    sess_opts o = {.path = dir, .read_only = true, .log = {.fn = log_capture}};
    sess_env *e = NULL;
    char why[256] = "";
    int rc = sess_open(&o, &e, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sess_open(%s, read-only): %d %s", dir, rc, why);
    return e;
}

static void commit_ok(sess_env *e, sess_batch *b)
{
    char why[256] = "";
    int rc = sess_batch_commit(e, b, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sess_batch_commit: %d %s", rc, why);
}

/* A typical case: 16 tokens and 64 vector entries of a code graph with a
 * few hundred thousand nodes, derived from n. */
static void typical_case(sess_case *c, uint64_t n)
{
    memset(c, 0, sizeof *c);
    c->last_rank = -1;
    uint64_t rs = n * 7919 + 1;
    c->seq = n;
    c->last_time_ns = 1767323045500000000 + (int64_t)n * 1000000;
    c->touched_ns = 1767323045600000000 + (int64_t)n;
    c->model_version = 3;
    c->ntok = SESS_MAX_TOKENS;
    for (uint32_t i = 0; i < c->ntok; i++) {
        c->act[i] = (uint32_t)(core_splitmix64(&rs) % 300);
        c->var[i] = (uint32_t)(core_splitmix64(&rs) % 4);
    }
    c->nvec = 64;
    c->vec_err = 0.001;
    c->vec_wsum = 1.75;
    float s = 1.0f;
    for (uint32_t i = 0; i < c->nvec; i++) {
        c->vec[i].node = (uint32_t)(core_splitmix64(&rs) % 400000);
        c->vec[i].score = s;
        s *= 0.93f;
    }
}

static bool case_eq(const sess_case *a, const sess_case *b)
{
    if (a->seq != b->seq || a->last_time_ns != b->last_time_ns || a->touched_ns != b->touched_ns ||
        a->model_version != b->model_version || a->closed != b->closed || a->ntok != b->ntok ||
        a->nvec != b->nvec || memcmp(&a->vec_err, &b->vec_err, sizeof a->vec_err) != 0 ||
        memcmp(&a->vec_wsum, &b->vec_wsum, sizeof a->vec_wsum) != 0 || a->npred != b->npred ||
        a->has_pred != b->has_pred || a->scored != b->scored || a->hit1 != b->hit1 ||
        a->hit3 != b->hit3 || a->hit10 != b->hit10 || a->last_rank != b->last_rank ||
        memcmp(&a->rr, &b->rr, sizeof a->rr) != 0 ||
        memcmp(a->pred, b->pred, a->npred * sizeof a->pred[0]) != 0)
        return false;
    for (uint32_t i = 0; i < a->ntok; i++)
        if (a->act[i] != b->act[i] || a->var[i] != b->var[i] || a->tok[i].key != b->tok[i].key ||
            a->tok[i].shift != b->tok[i].shift || a->tok[i].dur != b->tok[i].dur ||
            a->tok[i].span != b->tok[i].span || a->tok[i].depth != b->tok[i].depth ||
            a->tok[i].rev != b->tok[i].rev || a->tok[i].is_span != b->tok[i].is_span)
            return false;
    if (a->nheld != b->nheld || a->nseen != b->nseen || a->seen_next != b->seen_next ||
        memcmp(a->seen, b->seen, a->nseen * sizeof a->seen[0]) != 0)
        return false;
    if (a->ntold != b->ntold || memcmp(a->told, b->told, a->ntold * sizeof a->told[0]) != 0 ||
        memcmp(a->told_seq, b->told_seq, a->ntold * sizeof a->told_seq[0]) != 0)
        return false;
    for (uint32_t i = 0; i < a->nvec; i++)
        if (a->vec[i].node != b->vec[i].node ||
            memcmp(&a->vec[i].score, &b->vec[i].score, sizeof(float)) != 0)
            return false;
    return true;
}

static void put_case(sess_batch *b, const char *id, const sess_case *c)
{
    CHECK_OK(sess_batch_case_put(b, id, strlen(id), c));
}

static int get_case(sess_env *e, const char *id, sess_case *c)
{
    return sess_case_get(e, id, strlen(id), c);
}

/* Raw LMDB access to the directory (only while no sess_env has it open:
 * one process must not open an environment twice). */
typedef struct raw {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
} raw;

static void raw_open(raw *r, const char *dir, const char *table, bool write)
{
    CHECK_OK(mdb_env_create(&r->env));
    CHECK_OK(mdb_env_set_maxdbs(r->env, 16));
    CHECK_OK(mdb_env_open(r->env, dir, 0, 0644));
    CHECK_OK(mdb_txn_begin(r->env, NULL, write ? 0 : MDB_RDONLY, &r->txn));
    CHECK_OK(mdb_dbi_open(r->txn, table, 0, &r->dbi));
}

static void raw_close(raw *r, bool commit)
{
    if (commit)
        CHECK_OK(mdb_txn_commit(r->txn));
    else
        mdb_txn_abort(r->txn);
    mdb_env_close(r->env);
}

static size_t raw_entries(const char *dir, const char *table)
{
    raw r;
    raw_open(&r, dir, table, false);
    MDB_stat st;
    CHECK_OK(mdb_stat(r.txn, r.dbi, &st));
    raw_close(&r, false);
    return st.ms_entries;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- round trips ------------------------------------------------------ */

TEST(case_round_trip_every_field)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();

    static sess_case full, empty, got;
    memset(&full, 0, sizeof full);
    full.seq = UINT64_MAX - 5;
    full.last_time_ns = -1234567890123;
    full.touched_ns = INT64_MAX - 7;
    full.model_version = UINT32_MAX;
    full.closed = true;
    full.ntok = SESS_MAX_TOKENS;
    for (uint32_t i = 0; i < full.ntok; i++) {
        full.act[i] = i == 3 ? UINT32_MAX : i * 1000003u;
        full.var[i] = i == 5 ? UINT32_MAX : i;
        /* Keys that go back and forth, the extremes (their differences
         * wrap), spans and not. */
        full.tok[i] = (sess_tok){.key = i == 0   ? INT64_MIN
                                        : i == 1 ? INT64_MAX
                                                 : 1767323045500000000 - (int64_t)(i % 3) * 77,
                                 .shift = i == 2 ? INT64_MIN : (int64_t)i * -3000000000ll,
                                 .dur = i == 4 ? INT64_MAX : (int64_t)i - 1,
                                 .span = i % 2 ? 0 : UINT64_MAX - i,
                                 .depth = i == 6 ? UINT32_MAX : i,
                                 .rev = i == 7 ? UINT32_MAX : i / 2,
                                 .is_span = i % 3 == 0};
    }
    full.nheld = UINT32_MAX;
    full.nseen = SESS_MAX_SEEN;
    full.seen_next = SESS_MAX_SEEN - 1;
    for (uint32_t i = 0; i < full.nseen; i++)
        full.seen[i] = i == 9 ? UINT64_MAX : i * 0x9e3779b97f4a7c15ull;
    full.nvec = SESS_MAX_VEC;
    full.vec_err = -0.0; /* its bit pattern must survive too */
    uint64_t rs = 42;
    for (uint32_t i = 0; i < full.nvec; i++) {
        /* Unsorted, with the extremes and a duplicate. */
        full.vec[i].node = (uint32_t)core_splitmix64(&rs);
        full.vec[i].score = (float)core_unit_double(core_splitmix64(&rs)) - 0.5f;
    }
    full.vec[0].node = 0;
    full.vec[1].node = UINT32_MAX;
    full.vec[2].node = 0;
    full.vec[3].score = INFINITY;
    full.vec[4].score = -0.0f;
    full.has_pred = true;
    full.npred = SESS_MAX_PRED;
    for (uint32_t i = 0; i < full.npred; i++)
        full.pred[i] = i == 2 ? UINT32_MAX : i * 77777u;
    full.scored = UINT64_MAX;
    full.hit1 = 1;
    full.hit3 = UINT64_MAX - 1;
    full.hit10 = 12345678901ull;
    full.rr = 1e300;
    full.last_rank = INT32_MAX;
    full.ntold = SESS_MAX_TOLD;
    for (uint32_t i = 0; i < full.ntold; i++) {
        full.told[i] = i == 1 ? UINT32_MAX : i * 99991u;
        full.told_seq[i] = i == 2 ? UINT64_MAX : i;
    }
    /* (A duration past INT64_MAX - 1 is kept one less.) */
    static sess_case want;
    want = full;
    want.tok[4].dur = INT64_MAX - 1;

    memset(&empty, 0xab, sizeof empty); /* garbage beyond ntok/nvec is not stored */
    empty.seq = 0;
    empty.last_time_ns = INT64_MIN;
    empty.touched_ns = INT64_MIN;
    empty.model_version = 0;
    empty.closed = false;
    empty.ntok = 0;
    empty.nvec = 0;
    empty.vec_err = 0;
    empty.npred = 0;
    empty.has_pred = false;
    empty.scored = empty.hit1 = empty.hit3 = empty.hit10 = 0;
    empty.rr = 0;
    empty.last_rank = -1;
    empty.nheld = empty.nseen = empty.seen_next = 0;
    empty.ntold = 0;

    put_case(b, "full", &full);
    put_case(b, "empty", &empty);
    /* Read back from the batch, then from LMDB. */
    CHECK_INT(sess_batch_case_find(b, "full", 4, &got), 1);
    CHECK(case_eq(&got, &want));
    CHECK_INT(sess_batch_case_find(b, "empty", 5, &got), 1);
    CHECK(case_eq(&got, &empty));
    commit_ok(e, b);
    CHECK_OK(get_case(e, "full", &got));
    CHECK(case_eq(&got, &want));
    CHECK(got.closed && got.vec[1].node == UINT32_MAX && isinf(got.vec[3].score));
    CHECK(signbit(got.vec_err) && signbit(got.vec[4].score));
    CHECK_OK(get_case(e, "empty", &got));
    CHECK(case_eq(&got, &empty));
    CHECK_INT(got.last_time_ns == INT64_MIN, 1);

    /* A case id with bytes that are not text. */
    const char odd[] = {'a', 0, (char)0xff, '\n'};
    CHECK_OK(sess_batch_case_put(b, odd, sizeof odd, &full));
    commit_ok(e, b);
    CHECK_OK(sess_case_get(e, odd, sizeof odd, &got));
    CHECK(case_eq(&got, &want));
    CHECK_INT(sess_case_get(e, odd, 1, &got), CORE_ENOTFOUND);
    CHECK_INT(get_case(e, "nope", &got), CORE_ENOTFOUND);
    sess_batch_free(b);
    sess_close(e);

    /* The encoded size of a typical case (16 tokens, 64 vector entries),
     * read raw from the table. */
    e = open_env(dir, 0, 0, false);
    b = sess_batch_new();
    static sess_case typ;
    typical_case(&typ, 12345);
    put_case(b, "case-000012345", &typ);
    commit_ok(e, b);
    sess_batch_free(b);
    sess_close(e);
    raw r;
    raw_open(&r, dir, "cases", false);
    MDB_val k = {14, (void *)"case-000012345"}, v;
    CHECK_OK(mdb_get(r.txn, r.dbi, &k, &v));
    printf("  encoded typical case (16 tokens, 64 vector entries): %zu bytes\n", v.mv_size);
    CHECK(v.mv_size < 700);
    raw_close(&r, false);
    /* With the tokens' places in the order as the daemon keeps them
     * (events 0.1-3 ms apart, half of them spans or in one) and 64
     * fingerprints (serve.dedupe_events). */
    e = open_env(dir, 0, 0, false);
    b = sess_batch_new();
    rs = 5;
    for (uint32_t i = 0; i < typ.ntok; i++)
        typ.tok[i] =
            (sess_tok){.key = 1767323045500000000 +
                              (int64_t)i * (100000 + (int64_t)(core_splitmix64(&rs) % 3000000)),
                       .dur = i % 2 ? -1 : 250000,
                       .span = i % 2 ? 0 : core_splitmix64(&rs),
                       .depth = i % 4,
                       .is_span = i % 2 == 0};
    typ.nseen = 64;
    for (uint32_t i = 0; i < typ.nseen; i++)
        typ.seen[i] = core_splitmix64(&rs);
    put_case(b, "case-000012345", &typ);
    commit_ok(e, b);
    sess_batch_free(b);
    sess_close(e);
    raw_open(&r, dir, "cases", false);
    CHECK_OK(mdb_get(r.txn, r.dbi, &k, &v));
    printf("  ... with their order and 64 fingerprints: %zu bytes\n", v.mv_size);
    CHECK(v.mv_size < 1400);
    raw_close(&r, false);
}

/* The bytes of c as a build before the tokens' order wrote them
 * (version 2): c's tokens have all-zero order fields, six bytes each at
 * the end. */
static void encode_v2(const sess_case *c, core_buf *b)
{
    core_buf_reset(b);
    CHECK_OK(sess_case_encode(c, b));
    CHECK_INT((unsigned char)b->data[0], 3);
    CHECK_INT((unsigned char)b->data[1] & 128, 0);
    b->data[0] = 2;
    b->data[1] = (char)((unsigned char)b->data[1] & ~64);
    b->len -= 6 * c->ntok;
}

/* Version 1 values, written before the online-accuracy fields, and
 * version 2 ones, before the tokens' order, still decode (with no
 * prediction and no scores, with unknown keys); version 3 is written, as
 * long as version 1 for a case with none of the later parts; the new
 * flags mean nothing in the old versions, and a prediction is bounded. */
TEST(case_version_1_still_reads)
{
    static sess_case c, got;
    typical_case(&c, 77);
    c.last_rank = -1;
    core_buf b = {0};
    encode_v2(&c, &b);
    char why[128] = "";
    /* What an older build reads of a token: keys unknown. */
    for (uint32_t i = 0; i < c.ntok; i++)
        c.tok[i] = (sess_tok){.key = INT64_MIN, .dur = -1};
    CHECK_OK(sess_case_decode(b.data, b.len, &got, why, sizeof why));
    CHECK(case_eq(&got, &c));
    /* The same bytes with version byte 1: a value from an older build. */
    b.data[0] = 1;
    CHECK_OK(sess_case_decode(b.data, b.len, &got, why, sizeof why));
    CHECK(case_eq(&got, &c));
    CHECK_INT(got.npred, 0);
    CHECK(!got.has_pred);
    CHECK_INT(got.last_rank, -1);
    CHECK(got.scored == 0 && got.rr == 0);
    size_t v1len = b.len;

    /* With a prediction and scores: version 2 and later only. */
    for (uint32_t i = 0; i < c.ntok; i++)
        c.tok[i] = (sess_tok){0};
    c.has_pred = true;
    c.npred = 3;
    c.pred[0] = 5, c.pred[1] = 400000, c.pred[2] = 0;
    c.scored = 9, c.hit1 = 4, c.hit3 = 7, c.hit10 = 8, c.rr = 5.5, c.last_rank = 0;
    encode_v2(&c, &b);
    CHECK(b.len > v1len);
    for (uint32_t i = 0; i < c.ntok; i++)
        c.tok[i] = (sess_tok){.key = INT64_MIN, .dur = -1};
    CHECK_OK(sess_case_decode(b.data, b.len, &got, why, sizeof why));
    CHECK(case_eq(&got, &c));
    b.data[0] = 1;
    CHECK_INT(sess_case_decode(b.data, b.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "unknown flags at byte 1") != NULL);
    /* The order's and fingerprints' flags mean nothing in version 2. */
    for (uint32_t i = 0; i < c.ntok; i++)
        c.tok[i] = (sess_tok){0};
    c.nseen = 1;
    c.seen[0] = 42;
    core_buf_reset(&b);
    CHECK_OK(sess_case_encode(&c, &b));
    b.data[0] = 2;
    CHECK_INT(sess_case_decode(b.data, b.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "unknown flags at byte 1") != NULL);
    c.nseen = 0;
    /* A version this build does not know. */
    b.data[0] = 5;
    CHECK_INT(sess_case_decode(b.data, b.len, &got, why, sizeof why), CORE_EVERSION);
    CHECK(strstr(why, "reads 1 to 4") != NULL);

    /* npred over SESS_MAX_PRED: refused to encode, refused to decode. */
    c.npred = SESS_MAX_PRED + 1;
    CHECK_INT(sess_case_encode(&c, &b), CORE_ELIMIT);
    c.has_pred = false, c.npred = 0, c.scored = 0, c.hit1 = c.hit3 = c.hit10 = 0, c.rr = 0,
    c.last_rank = -1;
    encode_v2(&c, &b);
    CHECK_INT(b.len, v1len);
    /* Set the prediction flag and append npred 11. */
    b.data[1] = (char)((unsigned char)b.data[1] | 16);
    core_buf_putc(&b, 11);
    CHECK_INT(sess_case_decode(b.data, b.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "npred at byte") != NULL);
    core_buf_free(&b);
}

/* The variants a case's values named are a fourth version's last part,
 * written only when there are some: a case without them keeps the bytes
 * of version 3, and one with them reads back whole. */
TEST(case_version_4_keeps_the_variants_told)
{
    static sess_case c, got;
    typical_case(&c, 91);
    core_buf v3 = {0}, v4 = {0};
    CHECK_OK(sess_case_encode(&c, &v3));
    CHECK_INT((unsigned char)v3.data[0], 3);
    c.ntold = 2;
    c.told[0] = 4321, c.told_seq[0] = 3;
    c.told[1] = 17, c.told_seq[1] = 40;
    CHECK_OK(sess_case_encode(&c, &v4));
    CHECK_INT((unsigned char)v4.data[0], 4);
    /* Version 3's bytes, then 2, (4321, 3), (17, 40). */
    CHECK_INT(v4.len, v3.len + 1 + 3 + 2);
    CHECK(memcmp(v4.data + 1, v3.data + 1, v3.len - 1) == 0);
    char why[128] = "";
    CHECK_OK(sess_case_decode(v4.data, v4.len, &got, why, sizeof why));
    CHECK(case_eq(&got, &c));
    CHECK_INT(got.told[0], 4321);
    CHECK_INT(got.told_seq[1], 40);
    /* Version 3 has no such part: read as none, and trailing bytes after
     * it are refused. */
    CHECK_OK(sess_case_decode(v3.data, v3.len, &got, why, sizeof why));
    CHECK_INT(got.ntold, 0);
    v4.data[0] = 3;
    CHECK_INT(sess_case_decode(v4.data, v4.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "trailing bytes") != NULL);
    /* Version 4 says some were told, and at most SESS_MAX_TOLD. */
    v3.data[0] = 4;
    core_buf_putc(&v3, 0);
    CHECK_INT(sess_case_decode(v3.data, v3.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "version 4 with no variant told") != NULL);
    v3.data[v3.len - 1] = SESS_MAX_TOLD + 1;
    CHECK_INT(sess_case_decode(v3.data, v3.len, &got, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "ntold at byte") != NULL);
    c.ntold = SESS_MAX_TOLD + 1;
    CHECK_INT(sess_case_encode(&c, &v4), CORE_ELIMIT);
    core_buf_free(&v3);
    core_buf_free(&v4);
}

typedef struct recent_ctx {
    int64_t last_touch;
    char last_id[32];
    int n, limit;
    bool ordered;
} recent_ctx;

static int recent_cb(void *ud, const char *id, size_t len, const sess_case *c)
{
    recent_ctx *x = ud;
    char cur[32];
    snprintf(cur, sizeof cur, "%.*s", (int)len, id);
    if (x->n && (c->touched_ns > x->last_touch ||
                 (c->touched_ns == x->last_touch && strcmp(cur, x->last_id) >= 0)))
        x->ordered = false;
    x->last_touch = c->touched_ns;
    snprintf(x->last_id, sizeof x->last_id, "%s", cur);
    return ++x->n == x->limit;
}

/* Newest first through the TTL index, in pages of any size, across read
 * chunks; a case touched again moves to the front. */
TEST(cases_newest_first_in_pages)
{
    sess_env *e = open_env(unit_tmp_path("state"), 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c;
    for (int i = 0; i < 700; i++) {
        typical_case(&c, (uint64_t)i);
        c.touched_ns = 1000 + i / 2; /* pairs share a time: ties by id */
        char id[32];
        snprintf(id, sizeof id, "case-%04d", i);
        put_case(b, id, &c);
    }
    commit_ok(e, b);
    recent_ctx x = {.ordered = true, .limit = 0};
    CHECK_OK(sess_case_recent(e, 0, NULL, 0, recent_cb, &x));
    CHECK_INT(x.n, 700);
    CHECK(x.ordered);
    /* Pages of 100, each starting before the last of the previous. */
    int total = 0;
    recent_ctx p = {.ordered = true, .limit = 100};
    CHECK_INT(sess_case_recent(e, 0, NULL, 0, recent_cb, &p), 1);
    CHECK(strcmp(p.last_id, "case-0600") == 0);
    total += p.n;
    for (int page = 0; page < 10 && p.n == 100; page++) {
        recent_ctx q = {.ordered = true, .limit = 100};
        sess_case_recent(e, p.last_touch, p.last_id, strlen(p.last_id), recent_cb, &q);
        CHECK(q.ordered);
        total += q.n;
        p = q;
    }
    CHECK_INT(total, 700);
    /* Touched again: first. */
    typical_case(&c, 5);
    c.touched_ns = 5000;
    put_case(b, "case-0005", &c);
    commit_ok(e, b);
    recent_ctx one = {.ordered = true, .limit = 1};
    sess_case_recent(e, 0, NULL, 0, recent_cb, &one);
    CHECK(strcmp(one.last_id, "case-0005") == 0);
    recent_ctx all = {.ordered = true};
    CHECK_OK(sess_case_recent(e, 0, NULL, 0, recent_cb, &all));
    CHECK_INT(all.n, 700);
    sess_batch_free(b);
    sess_close(e);
}

TEST(batch_reads_its_own_writes)
{
    sess_env *e = open_env(unit_tmp_path("state"), 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c1, c2, got;
    typical_case(&c1, 1);
    typical_case(&c2, 2);

    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), -1);
    CHECK_INT(sess_batch_size(b), 0);
    put_case(b, "x", &c1);
    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), 1);
    CHECK(case_eq(&got, &c1));
    put_case(b, "x", &c2); /* latest put wins */
    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), 1);
    CHECK(case_eq(&got, &c2));
    CHECK_INT(sess_batch_case_find(b, "y", 1, &got), -1);
    CHECK_INT(sess_batch_size(b), 2);
    /* Nothing is visible before the commit. */
    CHECK_INT(get_case(e, "x", &got), CORE_ENOTFOUND);
    commit_ok(e, b);
    CHECK_INT(sess_batch_size(b), 0);
    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), -1);
    CHECK_OK(get_case(e, "x", &got));
    CHECK(case_eq(&got, &c2));

    /* A delete hides the committed state from the batch's reader, a put
     * after it brings a state back. */
    CHECK_OK(sess_batch_case_del(b, "x", 1));
    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), 0);
    CHECK_OK(get_case(e, "x", &got)); /* still committed */
    put_case(b, "x", &c1);
    CHECK_INT(sess_batch_case_find(b, "x", 1, &got), 1);
    CHECK(case_eq(&got, &c1));
    CHECK_OK(sess_batch_case_del(b, "x", 1));
    CHECK_OK(sess_batch_case_del(b, "never", 5)); /* deleting nothing is fine */
    commit_ok(e, b);
    CHECK_INT(get_case(e, "x", &got), CORE_ENOTFOUND);

    /* Counter deltas of one batch add up, and add to the committed value. */
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 2));
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 3));
    CHECK_INT(sess_batch_size(b), 2);
    commit_ok(e, b);
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 1));
    CHECK_OK(sess_batch_count_add(b, "big", 3, UINT64_MAX - 1));
    CHECK_OK(sess_batch_count_add(b, "big", 3, 5)); /* saturates */
    commit_ok(e, b);

    /* Many cases in one batch, each updated several times (hash chains). */
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 5000; i++) {
            char id[32];
            snprintf(id, sizeof id, "c%d", i);
            typical_case(&c1, (uint64_t)(i * 10 + round));
            put_case(b, id, &c1);
        }
    for (int i = 0; i < 5000; i += 7) {
        char id[32];
        snprintf(id, sizeof id, "c%d", i);
        typical_case(&c1, (uint64_t)(i * 10 + 2));
        CHECK_INT(sess_batch_case_find(b, id, strlen(id), &got), 1);
        CHECK(case_eq(&got, &c1));
    }
    CHECK_INT(sess_batch_size(b), 15000);
    commit_ok(e, b);
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 5000);
    CHECK_INT(st.counters, 2);
    CHECK_OK(get_case(e, "c4999", &got));
    CHECK_INT(got.seq, 49992);
    /* The 5000 cases deleted: their pages go to LMDB's free list, within
     * the pages written, which do not shrink. */
    size_t used = st.used_bytes;
    for (int i = 0; i < 5000; i++) {
        char id[32];
        snprintf(id, sizeof id, "c%d", i);
        CHECK_OK(sess_batch_case_del(b, id, strlen(id)));
    }
    commit_ok(e, b);
    commit_ok(e, b); /* (a write after them: what they freed is free for it) */
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 0);
    CHECK(st.used_bytes >= used);
    size_t on_free_list = sess_free_bytes(e);
    CHECK(on_free_list > used / 2 && on_free_list < st.used_bytes);

    /* sess_batch_clear drops everything queued. */
    put_case(b, "gone", &c1);
    sess_batch_clear(b);
    CHECK_INT(sess_batch_size(b), 0);
    commit_ok(e, b);
    CHECK_INT(get_case(e, "gone", &got), CORE_ENOTFOUND);
    sess_batch_free(b);
    sess_close(e);
}

static int collect_count(void *ud, const void *key, size_t klen, uint64_t count)
{
    core_buf *out = ud;
    core_buf_append(out, key, klen); /* keys may hold NULs */
    core_buf_printf(out, "=%llu;", (unsigned long long)count);
    return 0;
}

TEST(counters_add_across_commits)
{
    sess_env *e = open_env(unit_tmp_path("state"), 0, 0, false);
    sess_batch *b = sess_batch_new();
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 2));
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 3));
    commit_ok(e, b);
    CHECK_OK(sess_batch_count_add(b, "ab", 2, 1));
    CHECK_OK(sess_batch_count_add(b, "big", 3, UINT64_MAX - 1));
    CHECK_OK(sess_batch_count_add(b, "big", 3, 5));
    commit_ok(e, b);
    core_buf out = {0};
    CHECK_OK(sess_count_iter(e, collect_count, &out));
    CHECK_STR(out.data, "ab=6;big=18446744073709551615;");
    core_buf_free(&out);
    sess_batch_free(b);
    sess_close(e);
}

/* ---- atomic commits --------------------------------------------------- */

TEST(failed_commit_leaves_nothing)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 256 * 1024, 0, true);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    for (int i = 0; i < 10; i++) {
        char id[32];
        snprintf(id, sizeof id, "a%d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
    }
    CHECK_OK(sess_batch_offset_put(b, "events", 0, 5));
    commit_ok(e, b);

    /* A batch far larger than the map. */
    for (int i = 0; i < 3000; i++) {
        char id[32];
        snprintf(id, sizeof id, "b%d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
    }
    CHECK_OK(sess_batch_offset_put(b, "events", 0, 99));
    CHECK_OK(sess_batch_case_del(b, "a3", 2));
    char why[256] = "";
    CHECK_INT(sess_batch_commit(e, b, why, sizeof why), CORE_ELIMIT);
    printf("  %s\n", why);
    CHECK(strstr(why, "map full at 256 KiB (map growth disabled)") != NULL);
    CHECK(strstr(why, dir) != NULL);
    CHECK_INT(sess_batch_size(b), 3002); /* kept for the caller */

    /* The committed state is as before, and the environment still works. */
    int64_t off = 0;
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, 5);
    CHECK_OK(get_case(e, "a3", &got));
    CHECK_INT(get_case(e, "b0", &got), CORE_ENOTFOUND);
    CHECK_INT(get_case(e, "b2999", &got), CORE_ENOTFOUND);
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 10);
    CHECK_INT(st.grows, 0);
    sess_batch *small = sess_batch_new();
    CHECK_OK(sess_batch_meta_put(small, "model_version", "7", 1));
    commit_ok(e, small);
    sess_close(e);

    /* Reopened with growth allowed, the kept batch commits whole. */
    e = open_env(dir, 0, 0, false);
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, 5);
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 10);
    commit_ok(e, b);
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, 99);
    CHECK_INT(get_case(e, "a3", &got), CORE_ENOTFOUND);
    CHECK_OK(get_case(e, "b2999", &got));
    typical_case(&c, 2999);
    CHECK(case_eq(&got, &c));
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 3009);
    core_buf val = {0};
    CHECK_OK(sess_meta_get(e, "model_version", &val));
    CHECK_STR(val.data, "7");
    core_buf_free(&val);
    sess_batch_free(small);
    sess_batch_free(b);
    sess_close(e);
    CHECK_INT(raw_entries(dir, "by_touch"), 3009);
}

TEST(growth_stops_at_map_max)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 1u << 20, 2u << 20, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    for (int i = 0; i < 6000; i++) {
        char id[32];
        snprintf(id, sizeof id, "b%d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
    }
    char why[256] = "";
    CHECK_INT(sess_batch_commit(e, b, why, sizeof why), CORE_ELIMIT);
    printf("  %s\n", why);
    CHECK(strstr(why, "map full at 2 MiB (state.map_max)") != NULL);
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.grows, 1);
    CHECK_INT(st.map_size, 2u << 20);
    CHECK_INT(st.cases, 0);
    CHECK_INT(get_case(e, "b0", &got), CORE_ENOTFOUND);
    sess_batch_free(b);
    sess_close(e);
}

/* A write error at commit (here the file size limit, standing in for a
 * full disk, which cannot be made in a test) aborts the transaction: the state stays as it was, the
 * batch is kept, and the environment works once space is back. */
TEST(disk_write_error_keeps_state_and_batch)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    typical_case(&c, 1);
    put_case(b, "first", &c);
    CHECK_OK(sess_batch_offset_put(b, "events", 0, 1));
    commit_ok(e, b);
    sess_stats st;
    sess_get_stats(e, &st);

    for (int i = 0; i < 2000; i++) {
        char id[32];
        snprintf(id, sizeof id, "b%d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
    }
    CHECK_OK(sess_batch_offset_put(b, "events", 0, 2));
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    CHECK_OK(getrlimit(RLIMIT_FSIZE, &old));
    lim = old;
    lim.rlim_cur = st.file_bytes + 64 * 1024;
    CHECK_OK(setrlimit(RLIMIT_FSIZE, &lim));
    char why[256] = "";
    int rc = sess_batch_commit(e, b, why, sizeof why);
    CHECK_OK(setrlimit(RLIMIT_FSIZE, &old));
    printf("  %s\n", why);
    /* LMDB reports the short write as EIO (-EFBIG would do too). */
    CHECK(rc == -EIO || rc == -EFBIG);
    CHECK(strstr(why, dir) != NULL);
    CHECK_INT(sess_batch_size(b), 2001);
    int64_t off = 0;
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, 1);
    CHECK_INT(get_case(e, "b0", &got), CORE_ENOTFOUND);
    CHECK_OK(get_case(e, "first", &got));
    commit_ok(e, b);
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, 2);
    CHECK_OK(get_case(e, "b1999", &got));
    sess_batch_free(b);
    sess_close(e);
}

/* A really full disk: a 2 MiB tmpfs in a private mount namespace. Needs
 * CAP_SYS_ADMIN (root in a container); skipped without. */
TEST(full_disk_is_reported_and_nothing_lost)
{
    const char *mnt = unit_tmp_path("small");
    mkdir(mnt, 0755);
    if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", mnt, "tmpfs", 0, "size=2m") != 0) {
        printf("  skipped: cannot mount a small tmpfs (%s)\n", strerror(errno));
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/state", mnt);
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    int committed = 0, rc = 0;
    char why[256] = "";
    for (int round = 0; round < 100 && rc == 0; round++) {
        for (int i = 0; i < 1000; i++) {
            char id[32];
            snprintf(id, sizeof id, "c%d", committed + i);
            typical_case(&c, (uint64_t)(committed + i));
            put_case(b, id, &c);
        }
        CHECK_OK(sess_batch_offset_put(b, "events", 0, committed + 1000));
        rc = sess_batch_commit(e, b, why, sizeof why);
        if (rc == 0)
            committed += 1000;
    }
    printf("  %s (after %d cases)\n", why, committed);
    CHECK_INT(rc, -ENOSPC);
    CHECK(strstr(why, "no space left on device") != NULL && strstr(why, dir) != NULL);
    CHECK(committed > 0);
    CHECK_INT(sess_batch_size(b), 1001);
    int64_t off = 0;
    CHECK_OK(sess_offset_get(e, "events", 0, &off));
    CHECK_INT(off, committed);
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, committed);
    sess_batch_free(b);
    sess_close(e);
    /* Reopens and reads fine. */
    e = open_env(dir, 0, 0, false);
    typical_case(&c, (uint64_t)committed - 1);
    char id[32];
    snprintf(id, sizeof id, "c%d", committed - 1);
    CHECK_OK(get_case(e, id, &got));
    CHECK(case_eq(&got, &c));
    sess_close(e);
    umount2(mnt, MNT_DETACH);
}

/* ---- growth under load ------------------------------------------------ */

typedef struct reader_arg {
    sess_env *e;
    int committed; /* cases c0..c(committed-1) are committed */
    int stop;
    long reads, errors;
} reader_arg;

static void *reader_main(void *p)
{
    reader_arg *a = p;
    static sess_case got, want;
    uint64_t rs = 7;
    while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE)) {
        int n = __atomic_load_n(&a->committed, __ATOMIC_ACQUIRE);
        if (n == 0)
            continue;
        int i = (int)(core_splitmix64(&rs) % (uint64_t)n);
        char id[32];
        snprintf(id, sizeof id, "case-%06d", i);
        typical_case(&want, (uint64_t)i);
        if (sess_case_get(a->e, id, strlen(id), &got) != 0 || !case_eq(&got, &want))
            a->errors++;
        if (a->reads % 256 == 0) {
            sess_stats st;
            sess_get_stats(a->e, &st);
        }
        a->reads++;
    }
    return NULL;
}

TEST(map_grows_under_load_and_bytes_per_case)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 1u << 20, 0, false);
    sess_batch *b = sess_batch_new();
    reader_arg ra = {.e = e};
    pthread_t th;
    CHECK_OK(pthread_create(&th, NULL, reader_main, &ra));
    static sess_case c;
    const int total = 100000, per = 1000;
    uint64_t t0 = core_now_ns();
    for (int i = 0; i < total; i++) {
        char id[32];
        snprintf(id, sizeof id, "case-%06d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
        if ((i + 1) % per == 0) {
            commit_ok(e, b);
            __atomic_store_n(&ra.committed, i + 1, __ATOMIC_RELEASE);
        }
    }
    CHECK_OK(sess_batch_offset_put(b, "events", 0, total));
    commit_ok(e, b);
    uint64_t t1 = core_now_ns();
    __atomic_store_n(&ra.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    CHECK_INT(ra.errors, 0);
    CHECK(ra.reads > 0);

    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, total);
    CHECK(st.grows > 0);
    printf("  %d cases in %.2f s; %llu map growths to %zu MiB; %ld concurrent reads\n", total,
           (double)(t1 - t0) / 1e9, (unsigned long long)st.grows, st.map_size >> 20, ra.reads);
    printf("  bytes per case: %.0f used (%zu bytes in use, %zu in data.mdb)\n",
           (double)st.used_bytes / (double)st.cases, st.used_bytes, st.file_bytes);
    CHECK(st.used_bytes / st.cases <= 4096);

    /* Every case reads back. */
    static sess_case got;
    for (int i = 0; i < total; i++) {
        char id[32];
        snprintf(id, sizeof id, "case-%06d", i);
        typical_case(&c, (uint64_t)i);
        if (get_case(e, id, &got) != 0 || !case_eq(&got, &c))
            unit_fail(__FILE__, __LINE__, "%s does not read back", id);
    }
    sess_batch_free(b);
    sess_close(e);

    /* Reopened with the small initial size, the map starts at the file's
     * size, so the next commit does not begin by failing. */
    e = open_env(dir, 1u << 20, 0, false);
    sess_get_stats(e, &st);
    CHECK(st.map_size >= st.file_bytes);
    CHECK_INT(st.cases, total);
    sess_close(e);
}

/* ---- TTL -------------------------------------------------------------- */

TEST(ttl_expires_old_cases_through_the_index)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    const int64_t old0 = 1000, new0 = 1000000;
    for (int i = 0; i < 100; i++) {
        char id[32];
        snprintf(id, sizeof id, "old%03d", i);
        typical_case(&c, (uint64_t)i);
        c.touched_ns = old0 + i;
        put_case(b, id, &c);
        snprintf(id, sizeof id, "new%03d", i);
        c.touched_ns = new0 + i;
        put_case(b, id, &c);
    }
    commit_ok(e, b);
    /* Refreshed after its first commit: its index entry must move. */
    typical_case(&c, 5);
    c.touched_ns = 2 * new0;
    put_case(b, "old005", &c);
    commit_ok(e, b);
    /* Refreshed in the pending batch: expiry must leave it alone. */
    c.touched_ns = 2 * new0;
    put_case(b, "old007", &c);
    CHECK_INT(sess_expire(e, b, new0 + 500, 500, 40), 40);
    /* The oldest go first. */
    CHECK_INT(sess_batch_case_find(b, "old000", 6, &got), 0);
    CHECK_INT(sess_batch_case_find(b, "old041", 6, &got), 0); /* 005 and 007 skipped */
    CHECK_INT(sess_batch_case_find(b, "old042", 6, &got), -1);
    CHECK_INT(sess_batch_size(b), 41);
    commit_ok(e, b);
    CHECK_INT(sess_expire(e, b, new0 + 500, 500, 40), 40);
    commit_ok(e, b);
    CHECK_INT(sess_expire(e, b, new0 + 500, 500, 40), 18);
    commit_ok(e, b);
    CHECK_INT(sess_expire(e, b, new0 + 500, 500, 40), 0);
    CHECK_INT(sess_batch_size(b), 0);
    CHECK_INT(sess_expire(e, b, new0 + 500, 500, 0), 0);

    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 102);
    CHECK_OK(get_case(e, "old005", &got));
    CHECK_OK(get_case(e, "old007", &got));
    CHECK_INT(get_case(e, "old006", &got), CORE_ENOTFOUND);
    CHECK_INT(get_case(e, "old099", &got), CORE_ENOTFOUND);
    for (int i = 0; i < 100; i++) {
        char id[32];
        snprintf(id, sizeof id, "new%03d", i);
        CHECK_OK(get_case(e, id, &got));
    }
    /* The cutoff is strict: touched == now - ttl stays. */
    CHECK_INT(sess_expire(e, b, new0 + 20, 10, 1000), 10);
    CHECK_INT(sess_batch_case_find(b, "new009", 6, &got), 0);
    CHECK_INT(sess_batch_case_find(b, "new010", 6, &got), -1);
    /* A second call before the commit does not count them again. */
    CHECK_INT(sess_expire(e, b, new0 + 20, 10, 1000), 0);
    commit_ok(e, b);
    /* A huge ttl expires nothing (no overflow of now - ttl). */
    CHECK_INT(sess_expire(e, b, new0, INT64_MAX, 1000), 0);
    CHECK_INT(sess_expire(e, b, INT64_MIN + 5, 10, 1000), 0);
    sess_batch_free(b);
    sess_close(e);
    /* The index and the table agree. */
    CHECK_INT(raw_entries(dir, "by_touch"), 92);
    CHECK_INT(raw_entries(dir, "cases"), 92);
}

/* ---- the other tables ------------------------------------------------- */

static int collect_dict(void *ud, uint32_t id, const char *text, size_t len)
{
    core_buf *out = ud;
    CHECK_INT(strlen(text), len);
    core_buf_printf(out, "%u:%s;", id, text);
    return 0;
}

static int collect_offset(void *ud, const char *topic, int32_t partition, int64_t next)
{
    core_buf *out = ud;
    core_buf_printf(out, "%s/%d=%lld;", topic, partition, (long long)next);
    return 0;
}

static int collect_case(void *ud, const char *id, size_t len, const sess_case *c)
{
    core_buf *out = ud;
    core_buf_printf(out, "%.*s:%llu;", (int)len, id, (unsigned long long)c->seq);
    return 0;
}

static int stop_after_two(void *ud, uint32_t id, const char *text, size_t len)
{
    (void)id, (void)text, (void)len;
    int *n = ud;
    return ++*n == 2 ? 77 : 0;
}

TEST(offsets_meta_dict_counts_round_trip_in_order)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    CHECK_OK(sess_batch_dict_put(b, 300, "checkout", 8));
    CHECK_OK(sess_batch_dict_put(b, 5, "browse", 6));
    CHECK_OK(sess_batch_dict_put(b, 1, "login", 5));
    CHECK_OK(sess_batch_dict_put(b, 2, "", 0));
    CHECK_OK(sess_batch_dict_put(b, 5, "browse catalog", 14)); /* replaces */
    CHECK_OK(sess_batch_offset_put(b, "b", 10, 1000));
    CHECK_OK(sess_batch_offset_put(b, "a", 10, 7));
    CHECK_OK(sess_batch_offset_put(b, "a", 2, 3));
    CHECK_OK(sess_batch_offset_put(b, "ab", 0, -1));
    CHECK_OK(sess_batch_offset_put(b, "a", 2, 4)); /* replaces */
    const char k1[] = {1, 0, 2}, k2[] = {1}, k3[] = {0, 5};
    CHECK_OK(sess_batch_count_add(b, k1, 3, 10));
    CHECK_OK(sess_batch_count_add(b, k2, 1, 20));
    CHECK_OK(sess_batch_count_add(b, k3, 2, 30));
    CHECK_OK(sess_batch_meta_put(b, "model_version", "12", 2));
    CHECK_OK(sess_batch_meta_put(b, "empty", "", 0));
    static sess_case c;
    typical_case(&c, 1);
    put_case(b, "zeta", &c);
    typical_case(&c, 2);
    put_case(b, "alpha", &c);
    typical_case(&c, 3);
    put_case(b, "Mid", &c);
    commit_ok(e, b);

    core_buf out = {0};
    CHECK_OK(sess_dict_iter(e, collect_dict, &out));
    CHECK_STR(out.data, "1:login;2:;5:browse catalog;300:checkout;");
    core_buf_reset(&out);
    CHECK_OK(sess_offset_iter(e, collect_offset, &out));
    CHECK_STR(out.data, "a/2=4;a/10=7;ab/0=-1;b/10=1000;");
    core_buf_reset(&out);
    CHECK_OK(sess_case_iter(e, collect_case, &out));
    CHECK_STR(out.data, "Mid:3;alpha:2;zeta:1;");
    int n = 0;
    CHECK_INT(sess_dict_iter(e, stop_after_two, &n), 77);
    CHECK_INT(n, 2);

    /* Counters in bytewise key order. */
    core_buf_reset(&out);
    CHECK_OK(sess_count_iter(e, collect_count, &out));
    static const char want[] = "\0\5=30;\1=20;\1\0\2=10;";
    CHECK_INT(out.len, sizeof want - 1);
    CHECK(memcmp(out.data, want, out.len) == 0);

    int64_t off = 0;
    CHECK_OK(sess_offset_get(e, "a", 10, &off));
    CHECK_INT(off, 7);
    CHECK_OK(sess_offset_get(e, "ab", 0, &off));
    CHECK_INT(off, -1);
    CHECK_INT(sess_offset_get(e, "a", 3, &off), CORE_ENOTFOUND);
    CHECK_INT(sess_offset_get(e, "zz", 0, &off), CORE_ENOTFOUND);
    CHECK_OK(sess_meta_get(e, "model_version", &out));
    CHECK_STR(out.data, "12");
    CHECK_OK(sess_meta_get(e, "empty", &out));
    CHECK_INT(out.len, 0);
    CHECK_STR(out.data, "");
    CHECK_INT(sess_meta_get(e, "absent", &out), CORE_ENOTFOUND);

    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 3);
    CHECK_INT(st.dict, 4);
    CHECK_INT(st.counters, 3);
    CHECK_INT(st.offsets, 4);
    CHECK(st.used_bytes > 0 && st.used_bytes <= st.file_bytes && st.file_bytes <= st.map_size);
    core_buf_free(&out);
    sess_batch_free(b);
    sess_close(e);
}

/* Iteration reads in chunks: more entries than one chunk, each seen once,
 * in order, also while a writer changes other keys in between. */
typedef struct chunk_check {
    int n;
    char last[32];
    sess_batch *b;
} chunk_check;

static int check_order(void *ud, const char *id, size_t len, const sess_case *c)
{
    (void)c;
    chunk_check *k = ud;
    char cur[32];
    snprintf(cur, sizeof cur, "%.*s", (int)len, id);
    if (k->n && strcmp(k->last, cur) >= 0)
        unit_fail(__FILE__, __LINE__, "iteration out of order: %s after %s", cur, k->last);
    snprintf(k->last, sizeof k->last, "%s", cur);
    k->n++;
    return 0;
}

TEST(iteration_spans_chunks)
{
    sess_env *e = open_env(unit_tmp_path("state"), 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c;
    for (int i = 0; i < 2000; i++) {
        char id[32];
        snprintf(id, sizeof id, "k%05d", i);
        typical_case(&c, (uint64_t)i);
        put_case(b, id, &c);
    }
    commit_ok(e, b);
    chunk_check k = {0};
    CHECK_OK(sess_case_iter(e, check_order, &k));
    CHECK_INT(k.n, 2000);
    CHECK_STR(k.last, "k01999");
    sess_batch_free(b);
    sess_close(e);
}

/* ---- bad input -------------------------------------------------------- */

TEST(invalid_keys_are_refused_and_not_queued)
{
    sess_batch *b = sess_batch_new();
    static sess_case c;
    typical_case(&c, 1);
    char longid[SESS_MAX_ID + 2];
    memset(longid, 'x', sizeof longid);
    CHECK_INT(sess_batch_case_put(b, "", 0, &c), CORE_EUSAGE);
    CHECK_INT(sess_batch_case_put(b, longid, SESS_MAX_ID + 1, &c), CORE_ELIMIT);
    CHECK_INT(sess_batch_case_del(b, longid, SESS_MAX_ID + 1), CORE_ELIMIT);
    c.ntok = SESS_MAX_TOKENS + 1;
    CHECK_INT(sess_batch_case_put(b, "a", 1, &c), CORE_ELIMIT);
    c.ntok = 1;
    c.nvec = SESS_MAX_VEC + 1;
    CHECK_INT(sess_batch_case_put(b, "a", 1, &c), CORE_ELIMIT);
    CHECK_INT(sess_batch_count_add(b, "", 0, 1), CORE_EUSAGE);
    CHECK_INT(sess_batch_count_add(b, longid, SESS_MAX_ID + 1, 1), CORE_ELIMIT);
    longid[SESS_MAX_TOPIC + 1] = 0;
    CHECK_INT(sess_batch_offset_put(b, longid, 0, 1), CORE_ELIMIT);
    CHECK_INT(sess_batch_offset_put(b, "", 0, 1), CORE_EUSAGE);
    CHECK_INT(sess_batch_meta_put(b, "", "v", 1), CORE_EUSAGE);
    CHECK_INT(sess_batch_size(b), 0);
    /* The longest id is fine, also through the TTL index. */
    memset(longid, 'y', sizeof longid);
    c.nvec = 1;
    CHECK_OK(sess_batch_case_put(b, longid, SESS_MAX_ID, &c));
    sess_env *e = open_env(unit_tmp_path("state"), 0, 0, false);
    commit_ok(e, b);
    static sess_case got;
    CHECK_OK(sess_case_get(e, longid, SESS_MAX_ID, &got));
    CHECK(case_eq(&got, &c));
    CHECK_INT(sess_expire(e, b, INT64_MAX, 0, 10), 1);
    commit_ok(e, b);
    CHECK_INT(sess_case_get(e, longid, SESS_MAX_ID, &got), CORE_ENOTFOUND);
    sess_batch_free(b);
    sess_close(e);
}

TEST(corrupted_values_are_rejected_naming_the_case)
{
    const char *dir = unit_tmp_path("state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    typical_case(&c, 9);
    c.closed = true;
    put_case(b, "good", &c);
    /* Two cases committed properly (with TTL index entries), damaged
     * below. */
    typical_case(&c, 1);
    c.touched_ns = 100;
    put_case(b, "victim1", &c);
    c.touched_ns = 200;
    put_case(b, "victim2", &c);
    typical_case(&c, 9);
    c.closed = true;
    commit_ok(e, b);
    sess_close(e);

    /* Damage copies of the good value in every way. */
    raw r;
    raw_open(&r, dir, "cases", true);
    MDB_val k = {4, (void *)"good"}, v;
    CHECK_OK(mdb_get(r.txn, r.dbi, &k, &v));
    size_t n = v.mv_size;
    unsigned char *good = malloc(n + 1);
    memcpy(good, v.mv_data, n);
    for (size_t len = 0; len < n; len++) {
        char id[32];
        snprintf(id, sizeof id, "trunc-%03zu", len);
        MDB_val bk = {strlen(id), id}, bv = {len, good};
        CHECK_OK(mdb_put(r.txn, r.dbi, &bk, &bv, 0));
    }
    good[n] = 0;
    MDB_val tk = {8, (void *)"trailing"}, tv = {n + 1, good};
    CHECK_OK(mdb_put(r.txn, r.dbi, &tk, &tv, 0));
    unsigned char bytes[64];
    memcpy(bytes, good, 10);
    bytes[1] = 0x80; /* unknown flag */
    MDB_val fk = {8, (void *)"badflags"}, fv = {10, bytes};
    CHECK_OK(mdb_put(r.txn, r.dbi, &fk, &fv, 0));
    /* version 1, no flags, touched, seq 0, model 0, ntok 17 */
    unsigned char ntok[13] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 17};
    MDB_val nk = {4, (void *)"ntok"}, nv = {13, ntok};
    CHECK_OK(mdb_put(r.txn, r.dbi, &nk, &nv, 0));
    /* ... ntok 0, nvec 300 (a two-byte varint) */
    unsigned char nvec[15] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xac, 0x02};
    MDB_val vk = {4, (void *)"nvec"}, vv = {15, nvec};
    CHECK_OK(mdb_put(r.txn, r.dbi, &vk, &vv, 0));
    /* ... an endless varint for seq */
    unsigned char endless[22] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memset(endless + 10, 0xff, 12);
    MDB_val ek = {7, (void *)"endless"}, ev = {22, endless};
    CHECK_OK(mdb_put(r.txn, r.dbi, &ek, &ev, 0));
    /* ... ntok 0, nvec 1, a node delta far out of range */
    unsigned char node[24] = {1, 0, 0, 0, 0,    0,    0,    0,    0,   0,
                              0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x7f};
    MDB_val ok = {8, (void *)"nodebig!"}, ov = {23, node};
    CHECK_OK(mdb_put(r.txn, r.dbi, &ok, &ov, 0));
    memcpy(bytes, good, n < sizeof bytes ? n : sizeof bytes);
    bytes[0] = 99;
    MDB_val xk = {6, (void *)"future"}, xv = {n < sizeof bytes ? n : sizeof bytes, bytes};
    CHECK_OK(mdb_put(r.txn, r.dbi, &xk, &xv, 0));
    MDB_val v1 = {7, (void *)"victim1"}, v2 = {7, (void *)"victim2"}, short5 = {5, good};
    CHECK_OK(mdb_put(r.txn, r.dbi, &v1, &short5, 0));
    CHECK_OK(mdb_put(r.txn, r.dbi, &v2, &short5, 0));
    raw_close(&r, true);

    e = open_env(dir, 0, 0, false);
    logged[0] = 0;
    CHECK_OK(get_case(e, "good", &got));
    CHECK(case_eq(&got, &c));
    for (size_t len = 0; len < n; len++) {
        char id[32];
        snprintf(id, sizeof id, "trunc-%03zu", len);
        int rc = get_case(e, id, &got);
        if (rc != CORE_ECORRUPT)
            unit_fail(__FILE__, __LINE__, "%s: %d", id, rc);
    }
    CHECK_INT(get_case(e, "trailing", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "badflags", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "ntok", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "nvec", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "endless", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "nodebig!", &got), CORE_ECORRUPT);
    CHECK_INT(get_case(e, "future", &got), CORE_EVERSION);
    CHECK(strstr(logged, "case 'trunc-005': corrupted value") != NULL);
    CHECK(strstr(logged, "case 'trailing': corrupted value: trailing bytes") != NULL);
    CHECK(strstr(logged, "case 'ntok': corrupted value: ntok at byte 12") != NULL);
    CHECK(strstr(logged, "case 'future': unsupported value: encoding version 99") != NULL);
    CHECK(strstr(logged, dir) != NULL);

    /* Iteration skips them (logged), sees the good one, and says so. */
    logged[0] = 0;
    core_buf out = {0};
    CHECK_INT(sess_case_iter(e, collect_case, &out), CORE_ECORRUPT); /* the first error */
    CHECK_STR(out.data, "good:9;");
    CHECK(strstr(logged, "case 'trunc-000'") != NULL);
    core_buf_free(&out);

    /* The writer replaces and deletes damaged cases; expiry removes them
     * with their index entries. */
    typical_case(&c, 1);
    c.touched_ns = INT64_MAX;
    put_case(b, "trunc-003", &c);
    CHECK_OK(sess_batch_case_del(b, "trunc-004", 9));
    commit_ok(e, b);
    CHECK_OK(get_case(e, "trunc-003", &got));
    CHECK_INT(get_case(e, "trunc-004", &got), CORE_ENOTFOUND);
    /* victim2 replaced: its old index entry (200) can no longer be found
     * from its value, so it stays until expiry drops it. */
    c.touched_ns = INT64_MAX;
    put_case(b, "victim2", &c);
    commit_ok(e, b);
    CHECK_INT(get_case(e, "victim1", &got), CORE_ECORRUPT);
    CHECK_INT(sess_expire(e, b, 1000, 0, 10), 1); /* victim1 */
    commit_ok(e, b);
    CHECK_INT(get_case(e, "victim1", &got), CORE_ENOTFOUND);
    CHECK_OK(get_case(e, "victim2", &got));
    CHECK_INT(sess_expire(e, b, 1000, 0, 10), 0);
    sess_batch_free(b);
    sess_close(e);
    free(good);
    /* Index entries of good, trunc-003 and victim2 only (the values put
     * raw above never had any). */
    CHECK_INT(raw_entries(dir, "by_touch"), 3);
}

/* A reader in another process (pmrag state next to the daemon) follows
 * the writer's map growth. */
TEST(reader_follows_growth_by_another_process)
{
    const char *dir = unit_tmp_path("state");
    sess_close(open_env(dir, 1u << 20, 0, false));
    int go[2];
    CHECK_OK(pipe(go));
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char x;
        if (read(go[0], &x, 1) != 1)
            _exit(2);
        sess_env *w = open_env(dir, 1u << 20, 0, false);
        sess_batch *b = sess_batch_new();
        static sess_case c;
        for (int i = 0; i < 20000; i++) {
            char id[32];
            snprintf(id, sizeof id, "k%05d", i);
            typical_case(&c, (uint64_t)i);
            put_case(b, id, &c);
            if (i % 1000 == 999)
                commit_ok(w, b);
        }
        sess_stats st;
        sess_get_stats(w, &st);
        sess_batch_free(b);
        sess_close(w);
        _exit(st.grows > 0 ? 0 : 3);
    }
    sess_env *e = open_ro(dir);
    sess_stats st;
    sess_get_stats(e, &st);
    size_t before = st.map_size;
    CHECK_INT(write(go[1], "g", 1), 1);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    static sess_case got, want;
    typical_case(&want, 19999);
    CHECK_OK(get_case(e, "k19999", &got));
    CHECK(case_eq(&got, &want));
    sess_get_stats(e, &st);
    CHECK_INT(st.cases, 20000);
    CHECK(st.map_size > before);
    sess_close(e);
}

/* ---- opening and reopening ------------------------------------------- */

TEST(reopen_keeps_everything)
{
    const char *dir = unit_tmp_path("a/b/state"); /* parents are created */
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    static sess_case c, got;
    typical_case(&c, 77);
    put_case(b, "c77", &c);
    CHECK_OK(sess_batch_dict_put(b, 4, "pay", 3));
    CHECK_OK(sess_batch_count_add(b, "x", 1, 9));
    CHECK_OK(sess_batch_offset_put(b, "t", 3, 123));
    CHECK_OK(sess_batch_meta_put(b, "model_version", "4", 1));
    commit_ok(e, b);

    /* A second writer is refused while the first has it open. */
    sess_opts o = {.path = dir};
    sess_env *e2 = NULL;
    char why[256] = "";
    CHECK_INT(sess_open(&o, &e2, why, sizeof why), -EBUSY);
    CHECK(strstr(why, "in use by another writer") != NULL);
    CHECK(e2 == NULL);
    sess_close(e);

    for (int pass = 0; pass < 2; pass++) {
        e = pass == 0 ? open_env(dir, 0, 0, false) : open_ro(dir);
        CHECK_OK(get_case(e, "c77", &got));
        CHECK(case_eq(&got, &c));
        int64_t off;
        CHECK_OK(sess_offset_get(e, "t", 3, &off));
        CHECK_INT(off, 123);
        core_buf out = {0};
        CHECK_OK(sess_meta_get(e, "model_version", &out));
        CHECK_STR(out.data, "4");
        core_buf_reset(&out);
        CHECK_OK(sess_dict_iter(e, collect_dict, &out));
        CHECK_STR(out.data, "4:pay;");
        core_buf_reset(&out);
        CHECK_OK(sess_count_iter(e, collect_count, &out));
        CHECK_STR(out.data, "x=9;");
        core_buf_free(&out);
        if (pass == 1) {
            /* Read-only: commits and expiry are refused. */
            put_case(b, "c78", &c);
            CHECK_INT(sess_batch_commit(e, b, why, sizeof why), -EROFS);
            CHECK(strstr(why, "read-only") != NULL);
            CHECK_INT(sess_expire(e, b, INT64_MAX, 0, 10), 0);
            sess_batch_clear(b);
        }
        sess_close(e);
    }
    sess_batch_free(b);
}

static int collect_request(void *ud, const uint8_t *id, int64_t t)
{
    core_buf_printf(ud, "%c%c:%lld;", id[0], id[15], (long long)t);
    return 0;
}

static void req_id(uint8_t *id, char a, char z)
{
    memset(id, '.', SESS_REQUEST_ID);
    id[0] = (uint8_t)a;
    id[15] = (uint8_t)z;
}

TEST(requests_are_committed_deleted_and_reopened)
{
    const char *dir = unit_tmp_path("req/state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    uint8_t a[SESS_REQUEST_ID], z[SESS_REQUEST_ID], m[SESS_REQUEST_ID];
    req_id(a, 'a', '1');
    req_id(z, 'z', '2');
    req_id(m, 'm', '3');
    CHECK_OK(sess_batch_request_put(b, z, 20));
    CHECK_OK(sess_batch_request_put(b, a, 10));
    CHECK_OK(sess_batch_request_put(b, m, 30));
    CHECK_OK(sess_batch_request_del(b, m)); /* the later change wins */
    commit_ok(e, b);
    core_buf out = {0};
    CHECK_OK(sess_request_iter(e, collect_request, &out));
    CHECK_STR(out.data, "a1:10;z2:20;");
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.requests, 2);
    CHECK_OK(sess_batch_request_del(b, a));
    CHECK_OK(sess_batch_request_del(b, m)); /* absent: no error */
    commit_ok(e, b);
    sess_close(e);
    e = open_ro(dir);
    core_buf_reset(&out);
    CHECK_OK(sess_request_iter(e, collect_request, &out));
    CHECK_STR(out.data, "z2:20;");
    core_buf_free(&out);
    sess_close(e);
    sess_batch_free(b);
}

static int collect_held(void *ud, const char *id, size_t len, uint64_t no, const void *val,
                        size_t n)
{
    core_buf_printf(ud, "%.*s/%llu=%.*s;", (int)len, id, (unsigned long long)no, (int)n,
                    (const char *)val);
    return 0;
}

/* Held events: put and deleted in one transaction with the rest, listed
 * by number (numbers compare as numbers, a case id that is a prefix of
 * another stays apart); a state from before the table reads as one
 * holding nothing, and one whose table kept them by case id first reads
 * the same, read-only as it is and moved over by a writable open. */
TEST(held_events_are_committed_deleted_and_listed)
{
    const char *dir = unit_tmp_path("held/state");
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    CHECK_OK(sess_batch_held_put(b, "ab", 2, 300, "x", 1));
    CHECK_OK(sess_batch_held_put(b, "a", 1, 256, "y", 1));
    CHECK_OK(sess_batch_held_put(b, "a", 1, 2, "z", 1));
    CHECK_OK(sess_batch_held_put(b, "a", 1, 7, "gone", 4));
    CHECK_OK(sess_batch_held_del(b, "a", 1, 7)); /* the later change wins */
    CHECK_INT(sess_batch_held_put(b, "", 0, 1, "v", 1), CORE_EUSAGE);
    static char long_id[SESS_MAX_ID + 2];
    memset(long_id, 'i', SESS_MAX_ID + 1);
    CHECK_INT(sess_batch_held_put(b, long_id, SESS_MAX_ID + 1, 1, "v", 1), CORE_ELIMIT);
    memset(long_id, 'i', SESS_MAX_ID); /* the longest case id fits in a key */
    CHECK_OK(sess_batch_held_put(b, long_id, SESS_MAX_ID, UINT64_MAX, "w", 1));
    commit_ok(e, b);
    core_buf out = {0};
    CHECK_OK(sess_held_iter(e, collect_held, &out));
    CHECK(strncmp(out.data, "a/2=z;a/256=y;ab/300=x;iii", 26) == 0);
    CHECK(strstr(out.data, "i/18446744073709551615=w;") != NULL);
    sess_stats st;
    sess_get_stats(e, &st);
    CHECK_INT(st.held, 4);
    CHECK_OK(sess_batch_held_del(b, "a", 1, 2));
    CHECK_OK(sess_batch_held_del(b, "a", 1, 3)); /* absent: no error */
    CHECK_OK(sess_batch_held_del(b, long_id, SESS_MAX_ID, UINT64_MAX));
    commit_ok(e, b);
    sess_close(e);
    e = open_ro(dir);
    core_buf_reset(&out);
    CHECK_OK(sess_held_iter(e, collect_held, &out));
    CHECK_STR(out.data, "a/256=y;ab/300=x;");
    sess_close(e);

    /* A state made before the table: no held events, read-only too. */
    const char *old = unit_tmp_path("held/old");
    e = open_env(old, 0, 0, false);
    sess_close(e);
    raw r;
    raw_open(&r, old, "held_at", true);
    CHECK_OK(mdb_drop(r.txn, r.dbi, 1));
    raw_close(&r, true);
    e = open_ro(old);
    core_buf_reset(&out);
    CHECK_OK(sess_held_iter(e, collect_held, &out));
    CHECK_INT(out.len, 0);
    sess_get_stats(e, &st);
    CHECK_INT(st.held, 0);
    sess_close(e);

    /* The previous layout: "held", keys case id NUL number. */
    const char *prev = unit_tmp_path("held/prev");
    e = open_env(prev, 0, 0, false);
    sess_close(e);
    CHECK_OK(mdb_env_create(&r.env));
    CHECK_OK(mdb_env_set_maxdbs(r.env, 16));
    CHECK_OK(mdb_env_open(r.env, prev, 0, 0644));
    CHECK_OK(mdb_txn_begin(r.env, NULL, 0, &r.txn));
    CHECK_OK(mdb_dbi_open(r.txn, "held", MDB_CREATE, &r.dbi));
    static const struct {
        const char *key;
        size_t klen;
        const char *val;
    } prev_kv[] = {
        {"a\0\0\0\0\0\0\0\0\x09", 10, "p"}, {"b\0\0\0\0\0\0\0\0\x05", 10, "q"}, {"bad", 3, "r"}};
    for (size_t i = 0; i < 3; i++) {
        MDB_val k = {prev_kv[i].klen, (void *)prev_kv[i].key}, v = {1, (void *)prev_kv[i].val};
        CHECK_OK(mdb_put(r.txn, r.dbi, &k, &v, 0));
    }
    raw_close(&r, true);
    e = open_ro(prev);
    core_buf_reset(&out);
    CHECK_OK(sess_held_iter(e, collect_held, &out));
    CHECK_STR(out.data, "a/9=p;b/5=q;");
    sess_get_stats(e, &st);
    CHECK_INT(st.held, 3);
    sess_close(e);
    e = open_env(prev, 0, 0, false);
    core_buf_reset(&out);
    CHECK_OK(sess_held_iter(e, collect_held, &out));
    CHECK_STR(out.data, "b/5=q;a/9=p;");
    sess_close(e);
    CHECK_OK(mdb_env_create(&r.env));
    CHECK_OK(mdb_env_set_maxdbs(r.env, 16));
    CHECK_OK(mdb_env_open(r.env, prev, MDB_RDONLY, 0644));
    CHECK_OK(mdb_txn_begin(r.env, NULL, MDB_RDONLY, &r.txn));
    CHECK_INT(mdb_dbi_open(r.txn, "held", 0, &r.dbi), MDB_NOTFOUND);
    raw_close(&r, false);
    core_buf_free(&out);
    sess_batch_free(b);
}

static void note_gone(void *ud, const uint8_t *id)
{
    core_buf_printf(ud, "%c%c;", id[0], id[15]);
}

TEST(recent_requests_expire_oldest_first)
{
    sess_recent *r = sess_recent_new();
    uint8_t id[SESS_REQUEST_ID];
    /* 300 ids (the ring and the index grow), committed at t = i. */
    for (int i = 0; i < 300; i++) {
        req_id(id, (char)('A' + i / 60), (char)('0' + i % 60));
        id[7] = (uint8_t)i;
        CHECK_INT(sess_recent_get(r, id), SESS_RECENT_NONE);
        sess_recent_set(r, id, SESS_RECENT_PENDING, 0);
        CHECK_INT(sess_recent_get(r, id), SESS_RECENT_PENDING);
        sess_recent_set(r, id, SESS_RECENT_DONE, i);
    }
    CHECK_INT(sess_recent_count(r), 300);
    /* A failed one is forgotten (and may be sent again). */
    req_id(id, 'A', '5');
    id[7] = 5;
    sess_recent_set(r, id, SESS_RECENT_NONE, 0);
    CHECK_INT(sess_recent_get(r, id), SESS_RECENT_NONE);
    CHECK_INT(sess_recent_count(r), 299);
    /* Older than 10: ids 0..9 but 5 go, told one by one. */
    core_buf gone = {0};
    CHECK_INT(sess_recent_expire(r, 10, 1000, note_gone, &gone), 9);
    CHECK_STR(gone.data, "A0;A1;A2;A3;A4;A6;A7;A8;A9;");
    CHECK_INT(sess_recent_count(r), 290);
    req_id(id, 'A', '9');
    id[7] = 9;
    CHECK_INT(sess_recent_get(r, id), SESS_RECENT_NONE);
    req_id(id, 'A', ':');
    id[7] = 10;
    CHECK_INT(sess_recent_get(r, id), SESS_RECENT_DONE);
    /* Over the cap: the oldest go until 100 are left. */
    CHECK_INT(sess_recent_expire(r, 0, 100, NULL, NULL), 190);
    CHECK_INT(sess_recent_count(r), 100);
    CHECK_INT(sess_recent_get(r, id), SESS_RECENT_NONE);
    /* A pending id at the front stops the expiry. */
    req_id(id, 'p', 'p');
    sess_recent_set(r, id, SESS_RECENT_PENDING, 0);
    CHECK_INT(sess_recent_expire(r, INT64_MAX, 0, NULL, NULL), 100);
    CHECK_INT(sess_recent_count(r), 1);
    CHECK_INT(sess_recent_get(r, id), SESS_RECENT_PENDING);
    sess_recent_set(r, id, SESS_RECENT_DONE, 5);
    CHECK_INT(sess_recent_expire(r, 6, 10, NULL, NULL), 1);
    CHECK_INT(sess_recent_count(r), 0);
    core_buf_free(&gone);
    sess_recent_free(r);
}

TEST(read_only_open_creates_nothing)
{
    sess_opts o = {.path = unit_tmp_path("missing/state"), .read_only = true};
    sess_env *e = NULL;
    char why[512] = "";
    CHECK_INT(sess_open(&o, &e, why, sizeof why), -ENOENT);
    CHECK(strstr(why, "missing/state: no such state directory") != NULL);
    CHECK(!exists(unit_tmp_path("missing")));

    /* An existing directory that is not a state directory. */
    mkdir(unit_tmp_path("empty"), 0755);
    o.path = unit_tmp_path("empty");
    CHECK_INT(sess_open(&o, &e, why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "not a pmrag state directory") != NULL);
    CHECK(!exists(unit_tmp_path("empty/lock.mdb")));
    CHECK(!exists(unit_tmp_path("empty/data.mdb")));

    /* A file. */
    o.path = unit_write_str("file", "x");
    CHECK_INT(sess_open(&o, &e, why, sizeof why), -ENOTDIR);

    /* An LMDB environment of someone else's (no pmrag tables). */
    const char *other = unit_tmp_path("other");
    mkdir(other, 0755);
    MDB_env *env;
    CHECK_OK(mdb_env_create(&env));
    CHECK_OK(mdb_env_open(env, other, 0, 0644));
    MDB_txn *txn;
    MDB_dbi dbi;
    CHECK_OK(mdb_txn_begin(env, NULL, 0, &txn));
    CHECK_OK(mdb_dbi_open(txn, NULL, 0, &dbi));
    MDB_val k = {1, (void *)"k"}, v = {1, (void *)"v"};
    CHECK_OK(mdb_put(txn, dbi, &k, &v, 0));
    CHECK_OK(mdb_txn_commit(txn));
    mdb_env_close(env);
    o.path = other;
    CHECK_INT(sess_open(&o, &e, why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "not a pmrag state directory (no 'cases' table)") != NULL);

    /* A data.mdb that is not LMDB. */
    unit_write_str("junk/data.mdb", "this is not an LMDB file, not at all, no");
    o.path = unit_tmp_path("junk");
    int rc = sess_open(&o, &e, why, sizeof why);
    CHECK(rc != 0);
    printf("  junk: %s\n", why);
    CHECK(e == NULL);
}

TEST(layout_version_is_checked)
{
    const char *dir = unit_tmp_path("state");
    sess_close(open_env(dir, 0, 0, false));
    raw r;
    raw_open(&r, dir, "meta", true);
    MDB_val k = {11, (void *)"sess.layout"}, v = {1, (void *)"9"};
    CHECK_OK(mdb_put(r.txn, r.dbi, &k, &v, 0));
    raw_close(&r, true);
    sess_opts o = {.path = dir};
    sess_env *e = NULL;
    char why[512] = "";
    CHECK_INT(sess_open(&o, &e, why, sizeof why), CORE_EVERSION);
    CHECK(strstr(why, "state layout version '9'") != NULL);
    o.read_only = true;
    CHECK_INT(sess_open(&o, &e, why, sizeof why), CORE_EVERSION);
}

/* ---- the fixture of tests/integration/state_cli.sh -------------------- */

static void fill(const char *dir)
{
    sess_env *e = open_env(dir, 0, 0, false);
    sess_batch *b = sess_batch_new();
    CHECK_OK(sess_batch_dict_put(b, 0, "login", 5));
    CHECK_OK(sess_batch_dict_put(b, 1, "browse catalog", 14));
    CHECK_OK(sess_batch_dict_put(b, 2, "checkout \"fast\"", 15));
    static sess_case c;
    memset(&c, 0, sizeof c);
    c.seq = 3;
    c.ntok = 3;
    c.act[0] = 0, c.act[1] = 1, c.act[2] = 2;
    c.last_time_ns = 1767323045500000000; /* 2026-01-02T03:04:05.5Z */
    c.touched_ns = 1;
    c.nvec = 2;
    c.vec[0] = (sess_entry){10, 0.5f};
    c.vec[1] = (sess_entry){3, 0.25f};
    put_case(b, "case-a", &c);
    c.seq = 1;
    c.ntok = 1;
    c.act[0] = 7; /* not in the dictionary */
    c.last_time_ns = INT64_MIN;
    put_case(b, "case-b", &c);
    c.seq = 0;
    c.ntok = 0;
    c.nvec = 0;
    put_case(b, "case-c", &c);
    CHECK_OK(sess_batch_count_add(b, "\0\1", 2, 4));
    CHECK_OK(sess_batch_count_add(b, "\1\2", 2, 1));
    CHECK_OK(sess_batch_offset_put(b, "events", 0, 42));
    CHECK_OK(sess_batch_offset_put(b, "events", 1, 7));
    CHECK_OK(sess_batch_meta_put(b, "model_version", "3", 1));
    commit_ok(e, b);
    sess_batch_free(b);
    sess_close(e);
}

TEST(fill_state_dir)
{
    const char *dir = getenv("PMRAG_SESS_FILL");
    if (dir) {
        fill(dir);
        return;
    }
    dir = unit_tmp_path("fill");
    fill(dir);
    sess_env *e = open_ro(dir);
    core_buf out = {0};
    CHECK_OK(sess_case_iter(e, collect_case, &out));
    CHECK_STR(out.data, "case-a:3;case-b:1;case-c:0;");
    core_buf_free(&out);
    sess_close(e);
}
