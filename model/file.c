/*
 * The model file (model.h, model_save and model_load).
 */
#include "model_int.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the model file ---- */

#define MODEL_MAGIC "PMRAGMOD"
/* Version 2: every field little-endian, the dictionary as the codec's
 * records (map/dict.c). Version 3: the parameters end with code_prior; a
 * version 2 file is read with code_prior 0, so it ranks as it did.
 * Version 4: the training counts are followed by flags (MODEL_FLAG_*). A
 * model with no flag set is written as version 3, so that its file is the
 * one it was before flags existed. Version 5: the parameters end with
 * case_prior after code_prior, and the flags follow the counts; a file
 * before it is read with case_prior 0, so it ranks as it did, and a model
 * with case_prior 0 is written as the version before. */
#define MODEL_VERSION 5u
/* Re-mapped onto the graph it names from another release's. */
#define MODEL_FLAG_REMAPPED 1u

static uint64_t graph_identity(const graph *g)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t s = 0; s < graph_nsymbols(g); s++) {
        graph_symbol sy;
        graph_get_symbol(g, s, &sy);
        h = core_hash64(sy.qualname, strlen(sy.qualname), h);
        h = core_hash64(&sy.start_line, sizeof sy.start_line, h);
    }
    h ^= graph_nemits(g);
    return h;
}

static void put_params(core_buf *b, const model_params *p, uint32_t version)
{
    core_buf_put_le(b, p->order, 4);
    core_buf_put_f64(b, p->variant_ratio);
    core_buf_put_le(b, p->variant_min, 4);
    core_buf_put_f64(b, p->alpha);
    core_buf_put_f64(b, p->code_scale);
    core_buf_put_f64(b, p->decay);
    core_buf_put_f64(b, p->escape);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        core_buf_put_f64(b, p->weights.type[t]);
    core_buf_put_f64(b, p->weights.reverse);
    core_buf_put_f64(b, p->code_prior);
    if (version >= 5)
        core_buf_put_f64(b, p->case_prior);
}

/* A dictionary record, framed by its length. */
static void put_record(core_buf *b, core_buf *rec)
{
    core_buf_put_le(b, rec->len, 4);
    core_buf_append(b, rec->data, rec->len);
    core_buf_reset(rec);
}

int model_save(const model_joint *md, const char *path)
{
    core_buf b = {0}, rec = {0};
    uint32_t flags = md->remapped ? MODEL_FLAG_REMAPPED : 0;
    core_buf_append(&b, MODEL_MAGIC, 8);
    uint32_t version = md->p.case_prior != 0 ? MODEL_VERSION : flags ? 4u : 3u;
    core_buf_put_le(&b, version, 4);
    core_buf_put_le(&b, graph_nsymbols(md->g), 4);
    core_buf_put_le(&b, graph_identity(md->g), 8);
    put_params(&b, &md->p, version);
    core_buf_put_le(&b, md->train_events, 8);
    core_buf_put_le(&b, md->train_cases, 8);
    if (version >= 4)
        core_buf_put_le(&b, flags, 4);
    core_buf_put_le(&b, md->A, 4);
    for (uint32_t a = 0; a < md->A; a++) {
        map_activity pa;
        map_mapper_activity(md->m, a, &pa);
        core_buf_putc(&b, (char)md->keep[a]);
        core_buf_put_le(&b, pa.count, 8);
        map_dict_put_activity(md->m, a, &rec);
        put_record(&b, &rec);
    }
    core_buf_put_le(&b, md->V, 4);
    for (uint32_t v = 0; v < md->V; v++) {
        map_dict_put_variant(md->m, v, &rec);
        put_record(&b, &rec);
    }
    core_buf_put_le(&b, md->C, 4);
    for (uint32_t c = 0; c < md->C; c++) {
        const ctx_rec *r = &md->ctx.v[c];
        core_buf_putc(&b, (char)r->level);
        core_buf_putc(&b, (char)r->order);
        for (uint32_t i = 0; i < r->order; i++)
            core_buf_put_le(&b, md->toks.v[r->tok_off + i], 4);
        core_buf_put_le(&b, md->f_off[c + 1] - md->f_off[c], 4);
        for (uint32_t i = md->f_off[c]; i < md->f_off[c + 1]; i++) {
            core_buf_put_le(&b, md->f_act[i], 4);
            core_buf_put_le(&b, md->f_cnt[i], 4);
        }
    }
    core_buf_put_le(&b, core_crc32(0, b.data, b.len), 4);
    int rc = core_write_file_atomic(path, b.data, b.len);
    core_buf_free(&b);
    core_buf_free(&rec);
    return rc;
}

static void get_params(core_rd *r, uint32_t version, model_params *p)
{
    p->order = (uint32_t)core_rd_le(r, 4);
    p->variant_ratio = core_rd_f64(r);
    p->variant_min = (uint32_t)core_rd_le(r, 4);
    p->alpha = core_rd_f64(r);
    p->code_scale = core_rd_f64(r);
    p->decay = core_rd_f64(r);
    p->escape = core_rd_f64(r);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        p->weights.type[t] = (float)core_rd_f64(r);
    p->weights.reverse = (float)core_rd_f64(r);
    p->code_prior = version >= 3 ? core_rd_f64(r) : 0;
    p->case_prior = version >= 5 ? core_rd_f64(r) : 0;
}

/* The next framed record: its bytes and length, or NULL. */
static const void *get_record(core_rd *r, size_t *len)
{
    *len = (size_t)core_rd_le(r, 4);
    return core_rd_bytes(r, *len);
}

/*
 * Whether parameters read from a model file are ones pmrag could have
 * written: the ranges of the model.* and ppr.weights.* configuration keys
 * (config/config.c), which calibration stays within. Ranking trusts them: a
 * decay above 1 or a negative escape gave seed weights that are not finite
 * (found by tests/fuzz/fuzz_model).
 */
static bool params_ok(const model_params *p)
{
    if (p->order < 1 || p->order > MODEL_MAX_ORDER || p->variant_min > 1000000 ||
        !(p->variant_ratio >= 0 && p->variant_ratio <= 1) ||
        !(p->alpha >= 0.001 && p->alpha <= 0.999) ||
        !(p->code_scale >= 0 && p->code_scale <= 100) || !(p->decay >= 0 && p->decay <= 1) ||
        !(p->escape >= 0.01 && p->escape <= 100) || !(p->code_prior >= 0 && p->code_prior <= 1) ||
        !(p->case_prior >= 0 && p->case_prior <= 1))
        return false;
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        if (!(p->weights.type[t] >= 0 && p->weights.type[t] <= 1000))
            return false;
    return p->weights.reverse >= 0 && p->weights.reverse <= 1000;
}

/* A model file being read: the reader, what was read that outlives its
 * section, and what is wrong (NULL: the code's own message). */
typedef struct model_reader {
    core_rd r;
    model_params p;
    uint64_t train_events, train_cases;
    uint32_t flags; /* MODEL_FLAG_* */
    uint32_t A, V;
    core_vec(uint8_t) keep;   /* A: whether each activity's variants are kept */
    core_vec(pair_rec) pairs; /* every context's follows counts */
    uint32_t nsym;            /* symbols of the graph it was trained on */
    bool other;               /* ... which is not the one it is loaded for */
    const graph *old;         /* ... when known: lo->old, unless that was only a guess */
    const char *what;
    char msg[128];
} model_reader;

/* Magic, version, checksum, the graph it was trained on, parameters. A
 * model of another graph is refused unless lo asks for it re-mapped (then
 * rd->other is set; with lo->old, that must be the graph it names, unless
 * lo->old_guess: then rd->old is it only when it is). */
static int read_header(model_reader *rd, const char *data, size_t len, const graph *g,
                       const model_load_opts *lo)
{
    if (len < 8 + 4 || memcmp(data, MODEL_MAGIC, 8) != 0) {
        rd->what = "not a pmrag model file";
        return CORE_EFORMAT;
    }
    uint32_t crc = (uint32_t)core_get_le(data + len - 4, 4);
    rd->r = core_rd_of(data + 8, len - 8 - 4);
    uint32_t version = (uint32_t)core_rd_le(&rd->r, 4);
    if (version < 2 || version > MODEL_VERSION) {
        rd->what = "model file version not supported (train it again with pmrag mine)";
        return CORE_EVERSION;
    }
    if (core_crc32(0, data, len - 4) != crc) {
        rd->what = "checksum mismatch: the file is damaged";
        return CORE_ECORRUPT;
    }
    uint32_t nsym = rd->nsym = (uint32_t)core_rd_le(&rd->r, 4);
    uint64_t ident = core_rd_le(&rd->r, 8);
    rd->other = nsym != graph_nsymbols(g) || ident != graph_identity(g);
    if (rd->other && !(lo && lo->remap)) {
        rd->what = "the model was trained on another graph file (index and mine again, or "
                   "re-map it: pmrag remap)";
        return CORE_EUSAGE;
    }
    rd->old = rd->other ? lo->old : NULL;
    if (rd->old && (nsym != graph_nsymbols(rd->old) || ident != graph_identity(rd->old))) {
        rd->old = NULL;
        if (!lo->old_guess) {
            rd->what = "the model was not trained on the old graph given";
            return CORE_EUSAGE;
        }
    }
    rd->p = model_params_default();
    get_params(&rd->r, version, &rd->p);
    if (!params_ok(&rd->p)) {
        rd->what = "parameters out of range";
        return CORE_ECORRUPT;
    }
    rd->train_events = core_rd_le(&rd->r, 8);
    rd->train_cases = core_rd_le(&rd->r, 8);
    rd->flags = version >= 4 ? (uint32_t)core_rd_le(&rd->r, 4) : 0;
    if (rd->flags & ~MODEL_FLAG_REMAPPED) {
        rd->what = "unknown flags";
        return CORE_ECORRUPT;
    }
    return 0;
}

/* The activities and variants, restored into m in the file's order (the
 * activities re-mapped onto m's graph when the model was trained on
 * another, what was done into *report). */
static int read_dict(model_reader *rd, map_mapper *m, const map_mapper_opts *opts,
                     const model_load_opts *lo, map_remap *report)
{
    core_rd *r = &rd->r;
    uint32_t A = rd->A = (uint32_t)core_rd_le(r, 4);
    /* A dictionary larger than the mapper takes is a setting too low, not
     * a damaged file: say so, with both numbers, before restoring it. */
    uint32_t max_a = opts && opts->max_activities ? opts->max_activities : 1000000;
    if (!r->bad && A > max_a) {
        snprintf(rd->msg, sizeof rd->msg, "the model has %u activities, more than the %u allowed",
                 A, max_a);
        rd->what = rd->msg;
        return CORE_ELIMIT;
    }
    core_vec(map_remap_rec) recs = {0};
    for (uint32_t a = 0; a < A && !r->bad; a++) {
        core_vec_push(&rd->keep, (uint8_t)core_rd_le(r, 1));
        uint64_t count = core_rd_le(r, 8);
        size_t rl;
        const void *rec = get_record(r, &rl);
        if (!rec)
            r->bad = true;
        else
            core_vec_push(&recs, ((map_remap_rec){rec, rl, count}));
    }
    /* The same symbols at the same lines, but messages that changed: that
     * is another graph too, whose symbols are the ones the model names. */
    const graph *old = rd->old;
    if (!rd->other && !r->bad && lo && lo->remap &&
        map_dict_stale(map_mapper_graph(m), recs.v, (uint32_t)recs.n) > 0) {
        rd->other = true;
        old = map_mapper_graph(m);
    }
    for (uint32_t a = 0; a < recs.n && !rd->other && !r->bad; a++) {
        uint32_t id;
        if (map_dict_restore_activity(m, recs.v[a].rec, recs.v[a].len, recs.v[a].count, false,
                                      &id) != 0 ||
            id != a)
            r->bad = true;
    }
    /* A model of another graph (only when lo asked for it re-mapped): its
     * activities find their sites there. */
    if (rd->other && lo && !r->bad) {
        map_remap_opts ro = {
            .old = old, .old_nsymbols = rd->nsym, .min_similarity = lo->min_similarity};
        /* (sized to fit rd->msg after its prefix) */
        char why[sizeof rd->msg - sizeof "re-mapping: " + 1] = "";
        int rc = map_dict_remap(m, recs.v, (uint32_t)recs.n, &ro, report, why, sizeof why);
        if (rc) {
            snprintf(rd->msg, sizeof rd->msg, "re-mapping: %s", why);
            rd->what = rd->msg;
            core_vec_free(&recs);
            return rc;
        }
        if (why[0])
            core_logf(&opts->log, CORE_LOG_WARN, "re-mapping: %s", why);
    }
    core_vec_free(&recs);
    uint32_t V = rd->V = (uint32_t)core_rd_le(r, 4);
    for (uint32_t v = 0; v < V && !r->bad; v++) {
        size_t rl;
        const void *rec = get_record(r, &rl);
        uint32_t id;
        /* (The codec refuses an activity m does not have: here, >= A.) */
        if (!rec || map_dict_restore_variant(m, rec, rl, &id) != 0 || id != v)
            r->bad = true;
    }
    if (r->bad) {
        rd->what = "truncated or inconsistent dictionary";
        return CORE_ECORRUPT;
    }
    return 0;
}

/* One context: its level and tokens, added to md as context number c,
 * and its follows counts into rd->pairs. */
static void read_context(model_reader *rd, model_joint *md, uint32_t c)
{
    core_rd *r = &rd->r;
    uint32_t A = rd->A, t[MODEL_MAX_ORDER];
    uint8_t level = (uint8_t)core_rd_le(r, 1), order = (uint8_t)core_rd_le(r, 1);
    if (level > LEVEL_ACT || order < 1 || order > MODEL_MAX_ORDER) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < order; i++) {
        t[i] = (uint32_t)core_rd_le(r, 4);
        if (t[i] >= A + rd->V)
            r->bad = true;
    }
    if (r->bad || model__ctx_add(md, level, t, order) != c) {
        r->bad = true;
        return;
    }
    uint32_t nf = (uint32_t)core_rd_le(r, 4);
    if (nf > A) {
        r->bad = true;
        return;
    }
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t a = (uint32_t)core_rd_le(r, 4), cnt = (uint32_t)core_rd_le(r, 4);
        if (a >= A)
            r->bad = true;
        core_vec_push(&rd->pairs, ((pair_rec){c, a, cnt}));
    }
}

/* The contexts, which must end the file. */
static int read_contexts(model_reader *rd, model_joint *md)
{
    uint32_t C = (uint32_t)core_rd_le(&rd->r, 4);
    for (uint32_t c = 0; c < C && !rd->r.bad; c++)
        read_context(rd, md, c);
    if (rd->r.bad || core_rd_left(&rd->r) != 0) {
        rd->what = "truncated or inconsistent contexts";
        return CORE_ECORRUPT;
    }
    return 0;
}

int model_load(const char *path, const graph *g, const map_mapper_opts *opts, map_mapper **mapper,
               model_joint **out, char *why, size_t whylen)
{
    return model_load_onto(path, g, opts, NULL, mapper, out, why, whylen);
}

int model_load_onto(const char *path, const graph *g, const map_mapper_opts *opts,
                    const model_load_opts *lo, map_mapper **mapper, model_joint **out, char *why,
                    size_t whylen)
{
    map_remap own = {0};
    map_remap *report = lo && lo->report ? lo->report : &own;
    memset(report, 0, sizeof *report);
    char *data;
    size_t len;
    int rc = core_read_file(path, (size_t)1 << 34, &data, &len);
    if (rc) {
        snprintf(why, whylen, "%s: %s", path, core_strerror(rc));
        return rc;
    }
    model_reader rd = {0};
    map_mapper *m = NULL;
    model_joint *md = NULL;
    rc = read_header(&rd, data, len, g, lo);
    if (rc)
        goto fail;
    rc = map_mapper_new(g, opts, &m);
    if (rc) {
        rd.what = "cannot build the template matcher";
        goto fail;
    }
    map_mapper_opts none = {0};
    rc = read_dict(&rd, m, opts ? opts : &none, lo, report);
    if (rc)
        goto fail;
    md = model__new(m, NULL, &rd.p);
    /* A file of no activities leaves keep.v NULL: memcpy must not see it
     * even for 0 bytes (found by tests/fuzz/fuzz_model). */
    if (rd.A)
        memcpy(md->keep, rd.keep.v, rd.A);
    for (uint32_t a = 0; a < rd.A; a++)
        md->variants_kept += md->keep[a];
    md->train_events = rd.train_events;
    md->train_cases = rd.train_cases;
    rc = read_contexts(&rd, md);
    if (rc)
        goto fail;
    model__set_follows(md, rd.pairs.v, rd.pairs.n);
    md->remapped = report->remapped || (rd.flags & MODEL_FLAG_REMAPPED);
    rc = model__build_net(md, NULL);
    if (rc) {
        rd.what = "cannot build the joint graph";
        goto fail;
    }
    core_vec_free(&rd.keep);
    core_vec_free(&rd.pairs);
    free(data);
    map_remap_free(&own);
    *mapper = m;
    *out = md;
    return 0;
fail:
    map_remap_free(&own);
    snprintf(why, whylen, "%s: %s", path, rd.what ? rd.what : core_strerror(rc));
    core_vec_free(&rd.keep);
    core_vec_free(&rd.pairs);
    model_free(md);
    map_mapper_free(m);
    free(data);
    return rc;
}
