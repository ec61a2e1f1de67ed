/* Event logs loaded as datasets (model.h). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct case_rec {
    uint32_t id;   /* strtab offset */
    int64_t first; /* earliest time, INT64_MAX when none */
    uint32_t rank; /* chronological position */
    uint32_t count;
    /* the activities of its last events, oldest first, as the mapper
     * reads a case */
    uint32_t recent[MAP_RECENT];
    uint32_t nrecent;
} case_rec;

typedef struct raw_ev {
    uint32_t kase;
    uint32_t seq;
    int64_t time;
    model_log_event e;
} raw_ev;

static const char *attr(const ingest_event *ev, const char *key, const char *alt)
{
    for (uint32_t i = 0; i < ev->nattrs; i++)
        if (strcmp(ev->attrs[i].key, key) == 0 || (alt && strcmp(ev->attrs[i].key, alt) == 0))
            return ev->attrs[i].val;
    return NULL;
}

/* A case's sort key: first event, then id. */
typedef struct case_key {
    int64_t first;
    const char *id;
    uint32_t index;
} case_key;

static int cmp_case(const void *a, const void *b)
{
    const case_key *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return strcmp(x->id, y->id);
}

static int cmp_raw(const void *a, const void *b)
{
    const raw_ev *x = a, *y = b;
    if (x->kase != y->kase)
        return x->kase < y->kase ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* One pass over the file; fn is called for each event. */
static int pass(const char *path, const model_log_opts *o, const char *label,
                int (*fn)(void *ud, const ingest_event *ev), void *ud, model_log *l, char *why,
                size_t whylen)
{
    ingest_file *f;
    int rc = ingest_file_open(path, &o->in, &f, why, whylen);
    if (rc)
        return rc;
    l->format = ingest_file_format(f);
    ingest_event ev;
    uint64_t n = 0;
    while ((rc = ingest_file_next(f, &ev, why, whylen)) == 1) {
        rc = fn(ud, &ev);
        if (rc) {
            snprintf(why, whylen, "%s:%llu: %s", path, (unsigned long long)ev.line,
                     core_strerror(rc));
            break;
        }
        if ((++n & 0xfff) == 0 && o->progress)
            o->progress(o->progress_ud, label, n, 0);
    }
    if (o->progress)
        o->progress(o->progress_ud, label, n, n);
    ingest_file_stats st;
    ingest_file_get_stats(f, &st);
    l->bad = st.bad;
    ingest_file_close(f);
    return rc < 0 ? rc : 0;
}

typedef struct load_ctx {
    model_log *l;
    const model_log_opts *o;
    map_mapper *m;
    core_map case_index; /* strtab offset -> case */
    core_vec(case_rec) cases;
    core_vec(raw_ev) evs;
    bool truth;
} load_ctx;

static uint32_t case_of(load_ctx *c, const char *id, bool add)
{
    uint32_t off = add ? core_strtab_intern(&c->l->strs, id, strlen(id))
                       : core_strtab_find(&c->l->strs, id, strlen(id));
    if (off == UINT32_MAX)
        return UINT32_MAX;
    bool ins;
    uint64_t *v = add ? core_map_put(&c->case_index, off, &ins) : core_map_get(&c->case_index, off);
    if (!v)
        return UINT32_MAX;
    if (add && ins) {
        core_vec_push(&c->cases, ((case_rec){.id = off, .first = INT64_MAX}));
        *v = c->cases.n - 1;
    }
    return (uint32_t)*v;
}

static int first_pass(void *ud, const ingest_event *ev)
{
    load_ctx *c = ud;
    uint32_t k = case_of(c, ev->case_id, true);
    if (k >= c->cases.n) /* case_of adds the case it does not find */
        core_panic("model_log: case %u of %zu", k, c->cases.n);
    case_rec *r = &c->cases.v[k];
    if (ev->time_ns != INGEST_NO_TIME && ev->time_ns < r->first)
        r->first = ev->time_ns;
    r->count++;
    return 0;
}

void model_log_map_event(const ingest_event *ev, const model_log_opts *o, bool code_attrs,
                         map_event *me)
{
    *me = (map_event){
        .text = ev->activity,
        .len = strlen(ev->activity),
        .logger = attr(ev, o->logger_key ? o->logger_key : "logger",
                       o->logger_key ? NULL : "logger.name"),
        .level =
            attr(ev, o->level_key ? o->level_key : "level", o->level_key ? NULL : "severity_text"),
    };
    if (!code_attrs)
        return;
    me->code_file = attr(ev, o->file_key ? o->file_key : "code.file.path",
                         o->file_key ? NULL : "code.filepath");
    me->code_function = attr(ev, o->function_key ? o->function_key : "code.function.name",
                             o->function_key ? NULL : "code.function");
    me->code_namespace = attr(ev, "code.namespace", NULL);
    const char *line = attr(ev, o->line_key ? o->line_key : "code.line.number",
                            o->line_key ? NULL : "code.lineno");
    me->code_line = line ? (uint32_t)strtoul(line, NULL, 10) : 0;
}

static int second_pass(void *ud, const ingest_event *ev)
{
    load_ctx *c = ud;
    const model_log_opts *o = c->o;
    uint32_t k = case_of(c, ev->case_id, false);
    if (k == UINT32_MAX)
        return CORE_ECORRUPT; /* the file changed between the passes */
    case_rec *r = &c->cases.v[k];
    bool train = r->rank < c->l->ntrain;
    map_event me;
    model_log_map_event(ev, o, train && o->learn_code_attrs, &me);
    me.learn = train;
    const char *file = attr(ev, o->file_key ? o->file_key : "code.file.path",
                            o->file_key ? NULL : "code.filepath");
    const char *func = attr(ev, o->function_key ? o->function_key : "code.function.name",
                            o->function_key ? NULL : "code.function");
    const char *qual = attr(ev, "code.qualname", NULL);
    const char *line = attr(ev, o->line_key ? o->line_key : "code.line.number",
                            o->line_key ? NULL : "code.lineno");
    uint32_t lineno = line ? (uint32_t)strtoul(line, NULL, 10) : 0;
    raw_ev re = {.kase = r->rank, .seq = (uint32_t)c->evs.n, .time = ev->time_ns};
    map_mapper_map(c->m, &me, r->recent, r->nrecent, &re.e.act, &re.e.var);
    if (r->nrecent == MAP_RECENT)
        memmove(r->recent, r->recent + 1, (MAP_RECENT - 1) * sizeof *r->recent);
    else
        r->nrecent++;
    r->recent[r->nrecent - 1] = re.e.act;
    model_log *l = c->l;
    if (re.e.act >= l->nsample) {
        uint32_t n = re.e.act + 1 > 2 * l->nsample ? re.e.act + 1 : 2 * l->nsample;
        l->sample = core_xrealloc(l->sample, n * sizeof *l->sample);
        memset(l->sample + l->nsample, 0, (n - l->nsample) * sizeof *l->sample);
        l->nsample = n;
    }
    if (!l->sample[re.e.act]) {
        size_t n = core_utf8_valid_prefix(me.text, me.len < 200 ? me.len : 200);
        l->sample[re.e.act] = core_strtab_intern(&l->strs, me.text, n);
    }
    re.e.tfile = file ? core_strtab_intern(&c->l->strs, file, strlen(file)) : 0;
    const char *tf = qual && qual[0] ? qual : func;
    re.e.tfunc = tf ? core_strtab_intern(&c->l->strs, tf, strlen(tf)) : 0;
    re.e.tline = lineno;
    if (!file || !lineno)
        c->truth = false;
    core_vec_push(&c->evs, re);
    return 0;
}

int model_log_load(const char *path, const model_log_opts *o, map_mapper *m, model_log *l,
                   char *why, size_t whylen)
{
    memset(l, 0, sizeof *l);
    core_strtab_init(&l->strs);
    load_ctx c = {.l = l, .o = o, .m = m, .truth = true};
    int rc = pass(path, o, "reading", first_pass, &c, l, why, whylen);
    if (rc)
        goto fail;
    /* Cases by first event (ties by id); the first share trains. */
    uint32_t n = (uint32_t)c.cases.n;
    case_key *order = core_xmalloc((n ? n : 1) * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = (case_key){c.cases.v[i].first, core_strtab_str(&l->strs, c.cases.v[i].id), i};
    qsort(order, n, sizeof *order, cmp_case);
    l->ncases = n;
    l->ntrain = (uint32_t)((double)n * o->train_frac);
    if (l->ntrain > n)
        l->ntrain = n;
    l->case_id = core_xmalloc((n ? n : 1) * sizeof *l->case_id);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        case_rec *r = &c.cases.v[order[i].index];
        r->rank = i;
        l->case_id[i] = r->id;
        total += r->count;
    }
    free(order);
    core_vec_reserve(&c.evs, total);
    /* Malformed records were reported by the first pass. */
    model_log_opts quiet = *o;
    quiet.in.log.fn = NULL;
    rc = pass(path, &quiet, "mapping", second_pass, &c, l, why, whylen);
    if (rc)
        goto fail;
    /* Events by case, each case's stably by time. An empty log has no
     * vector at all, which qsort must not be given even for 0 items. */
    if (c.evs.n)
        qsort(c.evs.v, c.evs.n, sizeof *c.evs.v, cmp_raw);
    l->nevents = c.evs.n;
    l->off = core_xcalloc((size_t)n + 1, sizeof *l->off);
    l->ev = core_xmalloc((c.evs.n ? c.evs.n : 1) * sizeof *l->ev);
    l->act = core_xmalloc((c.evs.n ? c.evs.n : 1) * sizeof *l->act);
    l->var = core_xmalloc((c.evs.n ? c.evs.n : 1) * sizeof *l->var);
    for (size_t i = 0; i < c.evs.n; i++) {
        l->off[c.evs.v[i].kase + 1]++;
        l->ev[i] = c.evs.v[i].e;
        l->act[i] = c.evs.v[i].e.act;
        l->var[i] = c.evs.v[i].e.var;
    }
    for (uint32_t i = 0; i < n; i++)
        l->off[i + 1] += l->off[i];
    l->has_truth = c.truth && c.evs.n > 0;
    core_vec_free(&c.evs);
    core_vec_free(&c.cases);
    core_map_free(&c.case_index);
    return 0;
fail:
    core_vec_free(&c.evs);
    core_vec_free(&c.cases);
    core_map_free(&c.case_index);
    model_log_free(l);
    return rc;
}

void model_log_free(model_log *l)
{
    core_strtab_free(&l->strs);
    free(l->sample);
    free(l->case_id);
    free(l->off);
    free(l->ev);
    free(l->act);
    free(l->var);
    memset(l, 0, sizeof *l);
}

model_seqs model_log_train(const model_log *l)
{
    return (model_seqs){l->act, l->var, l->off, l->ntrain};
}

model_seqs model_log_all(const model_log *l)
{
    return (model_seqs){l->act, l->var, l->off, l->ncases};
}

uint32_t model_seqs_boundary(const model_seqs *seqs, uint32_t nact, bool end, uint32_t k,
                             uint32_t *acts, uint32_t *counts)
{
    uint32_t *count = core_xcalloc(nact ? nact : 1, sizeof *count);
    for (uint32_t c = 0; c < seqs->ncases; c++) {
        if (seqs->off[c + 1] == seqs->off[c])
            continue;
        uint32_t a = seqs->act[end ? seqs->off[c + 1] - 1 : seqs->off[c]];
        if (a < nact)
            count[a]++;
    }
    uint32_t n = 0;
    for (; n < k; n++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t a = 0; a < nact; a++)
            if (count[a] && (best == UINT32_MAX || count[a] > count[best]))
                best = a;
        if (best == UINT32_MAX)
            break;
        acts[n] = best;
        counts[n] = count[best];
        count[best] = 0;
    }
    free(count);
    return n;
}
