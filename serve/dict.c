/*
 * The activity dictionary in the state store (serve_int.h): activities
 * and variants made online, so that the ids in stored case states keep
 * their meaning across restarts.
 */
#include "serve_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serve__remap_log(serve *s, core_log_level level, const map_remap *r, const map_mapper *m,
                      const char *what)
{
    core_buf b = {0};
    map_remap_format(r, m, false, 0, &b);
    /* The first line: the counts (the items are for pmrag remap). */
    char *nl = memchr(b.data, '\n', b.len);
    core_logf(&s->lg, level, "%s: %.*s", what, (int)(nl ? (size_t)(nl - b.data) : b.len), b.data);
    core_buf_free(&b);
}

/*
 * The keys:
 *   id < DICT_FULL          an activity's text (for `pmrag state dump`, the API)
 *   DICT_FULL | a           activity a as the mapper has it (the record of
 *                           map_dict_put_activity)
 *   DICT_VARIANT | v        variant v (the record of map_dict_put_variant)
 * restored at start in id order (model_dict_restore_*), which gives them
 * the same ids. (States written before kept, under
 * DICT_VARIANT | v, the message that made v, mapped again at start.)
 * Records are written after each cycle's map_mapper_finish, when what the
 * cycle's new activities map to is decided, in the batch of the events
 * that made them.
 */
#define DICT_FULL 0x40000000u
#define DICT_VARIANT 0x80000000u
#define DICT_NEW_VARIANT 0x01

static void dict_texts(serve *s);

void serve__dict_save(serve *s, uint32_t from)
{
    uint32_t na = map_mapper_nactivities(s->m), nv = map_mapper_nvariants(s->m);
    core_buf b = {0};
    for (uint32_t a = from; a < na && a < DICT_FULL; a++) {
        core_buf_reset(&b);
        map_dict_put_activity(s->m, a, &b);
        sess_batch_dict_put(s->batch, DICT_FULL | a, b.data, b.len);
    }
    for (; s->dict_vars < nv && s->dict_vars < DICT_VARIANT; s->dict_vars++) {
        core_buf_reset(&b);
        map_dict_put_variant(s->m, s->dict_vars, &b);
        sess_batch_dict_put(s->batch, DICT_VARIANT | s->dict_vars, b.data, b.len);
    }
    core_buf_free(&b);
    dict_texts(s);
}

/* The texts of activities not yet in the state, and the counts with the
 * graph whose symbols the records name (its graph_file_hash and number of
 * symbols). */
static void dict_texts(serve *s)
{
    uint32_t na = map_mapper_nactivities(s->m), nv = map_mapper_nvariants(s->m);
    for (; s->dict_acts < na; s->dict_acts++) {
        map_activity pa;
        map_mapper_activity(s->m, s->dict_acts, &pa);
        sess_batch_dict_put(s->batch, s->dict_acts, pa.text, strlen(pa.text));
    }
    char meta[96];
    int n = snprintf(meta, sizeof meta, "%u %u %llx %u", na, nv, (unsigned long long)s->graph_hash,
                     graph_nsymbols(s->g));
    sess_batch_meta_put(s->batch, "dict", meta, (size_t)n);
}

typedef struct replay_ctx {
    serve *s;
    uint64_t n;
    /* Activities' records saved for another graph: collected (copies in
     * data, at off), to be re-mapped together before the first variant. */
    bool remap;
    const graph *old;
    uint32_t old_nsym;
    core_buf data;
    core_vec(size_t) off;
    core_vec(uint32_t) ids;
    char *why;
    size_t whylen;
} replay_ctx;

/* The collected records onto s->m's graph, as the ids they had. */
static int replay_remap(replay_ctx *r)
{
    if (r->off.n == 0)
        return 0;
    map_mapper *m = r->s->m;
    uint32_t n = (uint32_t)r->off.n, first = map_mapper_nactivities(m);
    for (uint32_t i = 0; i < n; i++)
        if (r->ids.v[i] != first + i) {
            snprintf(r->why, r->whylen, "activity %u stored where %u was expected", r->ids.v[i],
                     first + i);
            return CORE_ECORRUPT;
        }
    map_remap_rec *recs = core_xmalloc(n * sizeof *recs);
    for (uint32_t i = 0; i < n; i++) {
        size_t end = i + 1 < n ? r->off.v[i + 1] : r->data.len;
        recs[i] = (map_remap_rec){r->data.data + r->off.v[i], end - r->off.v[i], 0};
    }
    map_remap rep;
    map_remap_opts ro = {.old = r->old, .old_nsymbols = r->old_nsym, .first = first};
    char w[256] = "";
    int rc = map_dict_remap(m, recs, n, &ro, &rep, w, sizeof w);
    if (rc) {
        snprintf(r->why, r->whylen, "re-mapping the online activities: %s", w);
    } else {
        serve__remap_log(r->s, CORE_LOG_INFO, &rep, m, "the online activities onto the new graph");
    }
    map_remap_free(&rep);
    free(recs);
    r->n += rc == 0 ? n : 0;
    r->off.n = 0;
    return rc;
}

static int replay_one(void *ud, uint32_t id, const char *text, size_t len)
{
    replay_ctx *r = ud;
    if (id < DICT_FULL)
        return 0;
    uint32_t got;
    int rc;
    if (id < DICT_VARIANT && r->remap) {
        core_vec_push(&r->off, r->data.len);
        core_vec_push(&r->ids, id & ~DICT_FULL);
        core_buf_append(&r->data, text, len);
        return 0;
    }
    if (id < DICT_VARIANT) {
        rc = map_dict_restore_activity(r->s->m, text, len, 0, true, &got);
        r->n += rc == 0;
        return rc ? rc : got == (id & ~DICT_FULL) ? 0 : CORE_ECORRUPT;
    }
    if ((rc = replay_remap(r)) != 0)
        return rc;
    if (len >= 5 && (uint8_t)text[0] == DICT_NEW_VARIANT) {
        rc = map_dict_restore_variant(r->s->m, text, len, &got);
        r->n++;
        return rc ? rc : got == (id & ~DICT_VARIANT) ? 0 : CORE_ECORRUPT;
    }
    /* A state from before: the message that made the variant. */
    const char *lg = text, *end = text + len;
    const char *lv = memchr(lg, 0, len);
    const char *msg = lv ? memchr(lv + 1, 0, (size_t)(end - lv - 1)) : NULL;
    if (!lv || !msg)
        return CORE_ECORRUPT;
    lv++;
    msg++;
    map_event me = {.text = msg, .len = (size_t)(end - msg)};
    me.logger = *lg ? lg : NULL;
    me.level = *lv ? lv : NULL;
    uint32_t a, v;
    map_mapper_map(r->s->m, &me, NULL, 0, NULL, 0, &a, &v);
    r->n++;
    return 0;
}

/* Maps the stored creating messages again; checks that they made what
 * they made before. Records saved for another graph than s->m's (hash
 * graph_hash) are re-mapped onto it (*remapped set): old, when given, is
 * the graph served before, which they may name. */
int serve__dict_replay(serve *s, uint64_t graph_hash, const graph *old, bool *remapped, char *why,
                       size_t whylen)
{
    replay_ctx r = {.s = s, .why = why, .whylen = whylen};
    core_buf meta = {0};
    unsigned na = 0, nv = 0, nsym = 0;
    unsigned long long gh = 0;
    int got = 0;
    if (sess_meta_get(s->env, "dict", &meta) == 0) {
        core_buf_putc(&meta, 0);
        got = sscanf(meta.data, "%u %u %llx %u", &na, &nv, &gh, &nsym);
    }
    core_buf_free(&meta);
    /* A state from before the graph was kept: its records are taken to
     * name this graph's symbols, as they were then. */
    if (got == 4 && gh != graph_hash) {
        r.remap = true;
        r.old = old && s->graph_hash == gh ? old : NULL;
        r.old_nsym = nsym;
    }
    *remapped = r.remap;
    why[0] = 0;
    int rc = sess_dict_iter(s->env, replay_one, &r);
    if (!rc)
        rc = replay_remap(&r);
    core_buf_free(&r.data);
    core_vec_free(&r.off);
    core_vec_free(&r.ids);
    if (rc) {
        char w[512];
        snprintf(w, sizeof w, "%s", why);
        snprintf(why, whylen, "state %s: activity dictionary: %s%s%s",
                 core_cfg_str(s->cfg, "state.dir"), core_strerror(rc), w[0] ? ": " : "", w);
        return rc;
    }
    s->dict_vars = map_mapper_nvariants(s->m);
    if (got >= 2) {
        uint32_t cur_a = map_mapper_nactivities(s->m);
        if (na != cur_a || nv != s->dict_vars) {
            snprintf(why, whylen,
                     "state %s: the activity dictionary does not match this graph and model "
                     "(%u activities and %u variants stored, %u and %u rebuilt); start with an "
                     "empty state.dir",
                     core_cfg_str(s->cfg, "state.dir"), na, nv, cur_a, s->dict_vars);
            return CORE_ECORRUPT;
        }
        s->dict_acts = na;
    }
    s->cycle_acts = map_mapper_nactivities(s->m);
    dict_texts(s);
    char w2[512];
    rc = map_mapper_finish(s->m, w2, sizeof w2);
    if (rc)
        core_logf(&s->lg, CORE_LOG_WARN, "%s", w2);
    if (r.n)
        core_logf(&s->lg, CORE_LOG_INFO, "restored %llu online activities and variants",
                  (unsigned long long)r.n);
    return 0;
}
