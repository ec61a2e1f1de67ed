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
    uint32_t start; /* its first event in load_ctx.at (time order) */
    uint32_t next;  /* position of its next event to map */
    bool linked;    /* some event names a span (its order needs model_order_keys) */
    /* the activities of its last events, oldest first, as the mapper
     * reads a case */
    uint32_t recent[MAP_RECENT];
    uint32_t nrecent;
    /* the variants its events' values named (map_told_note) */
    uint32_t told[MAP_TOLD_MAX], ntold;
    uint64_t told_at[MAP_TOLD_MAX];
} case_rec;

/* An event as the first pass sees it (time order): its case, its time
 * and, when it names a span, what model_order_keys needs of it. */
typedef struct first_ev {
    int64_t time;
    uint32_t kase;
    uint32_t link; /* index in load_ctx.links, UINT32_MAX: none */
} first_ev;

typedef struct raw_ev {
    uint32_t kase;
    uint32_t pos; /* position in its case */
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
    return (x->pos > y->pos) - (x->pos < y->pos);
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

/* An event of the second pass that comes before its turn in its case
 * (an earlier one follows in the file): copied until then. */
typedef struct stashed {
    ingest_event ev;
    ingest_attr *attrs;
} stashed;

typedef struct load_ctx {
    model_log *l;
    const model_log_opts *o;
    map_mapper *m;
    core_map case_index; /* strtab offset -> case */
    core_vec(case_rec) cases;
    core_vec(raw_ev) evs;
    bool truth;
    /* Time order (not o->arrival_order). First pass: every event; then
     * each event's position in its case, by its index in the file. */
    core_vec(first_ev) firsts;
    core_vec(model_order_ev) links;
    uint32_t *pos;
    uint64_t npos; /* events of the first pass */
    uint64_t at;   /* events of the second pass so far */
    /* Events waiting for their turn: (case << 32 | position) -> index
     * in stash, their strings in arena. */
    core_map waiting;
    core_vec(stashed) stash;
    core_arena arena;
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
    if (c->o->arrival_order)
        return 0;
    first_ev f = {ev->time_ns, k, UINT32_MAX};
    model_order_ev oe;
    model_order_event(ev, c->firsts.n, &oe);
    if (oe.span || oe.parent) {
        f.link = (uint32_t)c->links.n;
        core_vec_push(&c->links, oe);
        r->linked = true;
    }
    core_vec_push(&c->firsts, f);
    return 0;
}

static int cmp_order_ev(const void *a, const void *b)
{
    return model_order_cmp(a, b);
}

/* Each event's position in its case (c->pos, by index in the file): by
 * time and file order, and for a case whose events name spans, by
 * model_order_keys. */
static void order_cases(load_ctx *c)
{
    size_t n = c->firsts.n;
    c->npos = n;
    c->pos = core_xmalloc((n ? n : 1) * sizeof *c->pos);
    /* The events of each case together, in file order. */
    uint32_t *by_case = core_xmalloc((n ? n : 1) * sizeof *by_case);
    uint32_t start = 0;
    for (size_t k = 0; k < c->cases.n; k++) {
        c->cases.v[k].start = start;
        start += c->cases.v[k].count;
        c->cases.v[k].next = 0;
    }
    for (size_t i = 0; i < n; i++) {
        case_rec *r = &c->cases.v[c->firsts.v[i].kase];
        by_case[r->start + r->next++] = (uint32_t)i;
    }
    core_vec(model_order_ev) tmp = {0};
    for (size_t k = 0; k < c->cases.n; k++) {
        case_rec *r = &c->cases.v[k];
        const uint32_t *ix = by_case + r->start;
        tmp.n = 0;
        core_vec_reserve(&tmp, r->count);
        for (uint32_t j = 0; j < r->count; j++) {
            const first_ev *f = &c->firsts.v[ix[j]];
            model_order_ev e = {.time = f->time, .dur = -1};
            if (f->link != UINT32_MAX)
                e = c->links.v[f->link];
            e.tie = ix[j];
            tmp.v[tmp.n++] = e;
        }
        if (r->linked)
            model_order_keys(tmp.v, tmp.n);
        else
            for (size_t j = 0; j < tmp.n; j++)
                tmp.v[j].key = tmp.v[j].time;
        if (tmp.n)
            qsort(tmp.v, tmp.n, sizeof *tmp.v, cmp_order_ev);
        for (uint32_t j = 0; j < r->count; j++)
            c->pos[tmp.v[j].tie] = j;
        r->next = 0;
    }
    core_vec_free(&tmp);
    free(by_case);
    core_vec_free(&c->firsts);
    core_vec_free(&c->links);
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

/* Activity act's sample (l->sample grown to hold it). */
static uint32_t *sample_of(model_log *l, uint32_t act)
{
    if (act >= l->nsample) {
        uint32_t n = act + 1 > 2 * l->nsample ? act + 1 : 2 * l->nsample;
        l->sample = core_xrealloc(l->sample, n * sizeof *l->sample);
        memset(l->sample + l->nsample, 0, (n - l->nsample) * sizeof *l->sample);
        l->nsample = n;
    }
    return &l->sample[act];
}

/* Maps one event of case k, the next in its order. */
static void map_one(load_ctx *c, const ingest_event *ev, uint32_t k)
{
    const model_log_opts *o = c->o;
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
    raw_ev re = {.kase = r->rank, .pos = r->next++};
    map_mapper_map(c->m, &me, r->recent, r->nrecent, r->told, r->ntold, &re.e.act, &re.e.var);
    map_told_note(c->m, re.e.act, re.e.var, r->next, r->told, r->told_at, &r->ntold);
    if (r->nrecent == MAP_RECENT)
        memmove(r->recent, r->recent + 1, (MAP_RECENT - 1) * sizeof *r->recent);
    else
        r->nrecent++;
    r->recent[r->nrecent - 1] = re.e.act;
    model_log *l = c->l;
    if (!*sample_of(l, re.e.act)) {
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
}

static uint64_t wait_key(uint32_t k, uint32_t pos)
{
    return (uint64_t)k << 32 | pos;
}

/* A copy of ev (strings in the arena) until its turn. */
static void stash(load_ctx *c, const ingest_event *ev, uint32_t k, uint32_t pos)
{
    core_arena *a = &c->arena;
    stashed s = {.ev = *ev};
    s.ev.case_id = "";
    s.ev.activity = core_arena_strndup(a, ev->activity, strlen(ev->activity));
    s.attrs = core_arena_alloc(a, (ev->nattrs ? ev->nattrs : 1) * sizeof *s.attrs);
    for (uint32_t i = 0; i < ev->nattrs; i++)
        s.attrs[i] =
            (ingest_attr){core_arena_strndup(a, ev->attrs[i].key, strlen(ev->attrs[i].key)),
                          core_arena_strndup(a, ev->attrs[i].val, strlen(ev->attrs[i].val))};
    s.ev.attrs = s.attrs;
    bool fresh;
    *core_map_put(&c->waiting, wait_key(k, pos), &fresh) = c->stash.n;
    core_vec_push(&c->stash, s);
}

static int second_pass(void *ud, const ingest_event *ev)
{
    load_ctx *c = ud;
    uint32_t k = case_of(c, ev->case_id, false);
    if (k == UINT32_MAX)
        return CORE_ECORRUPT; /* the file changed between the passes */
    case_rec *r = &c->cases.v[k];
    if (c->o->arrival_order) {
        map_one(c, ev, k);
        return 0;
    }
    uint64_t i = c->at++;
    if (i >= c->npos)
        return CORE_ECORRUPT;
    uint32_t pos = c->pos[i];
    if (pos != r->next) {
        stash(c, ev, k, pos);
        return 0;
    }
    map_one(c, ev, k);
    /* Those that waited for it. */
    for (;;) {
        uint64_t *w = core_map_get(&c->waiting, wait_key(k, r->next));
        if (!w || *w == UINT64_MAX)
            break;
        stashed *s = &c->stash.v[*w];
        *w = UINT64_MAX;
        map_one(c, &s->ev, k);
    }
    return 0;
}

static void load_done(load_ctx *c)
{
    core_vec_free(&c->evs);
    core_vec_free(&c->cases);
    core_map_free(&c->case_index);
    core_vec_free(&c->firsts);
    core_vec_free(&c->links);
    free(c->pos);
    core_map_free(&c->waiting);
    core_vec_free(&c->stash);
    core_arena_free(&c->arena);
}

/* The events of case events [lo, lo + n) whose activity the mapper
 * changed in l->act take it (and its variant), a new activity the sample
 * of the one it came from. */
static void take_changes(model_log *l, uint32_t lo, uint32_t n)
{
    for (uint32_t i = lo; i < lo + n; i++) {
        model_log_event *e = &l->ev[i];
        if (e->act == l->act[i])
            continue;
        uint32_t from = e->act;
        e->act = l->act[i];
        e->var = l->var[i];
        uint32_t *sample = sample_of(l, e->act);
        if (!*sample)
            *sample = l->sample[from];
    }
}

/* With whole_cases, each case's events of a template whose sites are
 * variants decided by all of the case (map_mapper_revise). */
static void revise_cases(model_log *l, const model_log_opts *o, map_mapper *m)
{
    /* With learn_code_attrs the code attributes decide the sites (at
     * map_mapper_finish). */
    if (!o->whole_cases || o->learn_code_attrs)
        return;
    for (uint32_t k = 0; k < l->ncases; k++) {
        uint32_t lo = l->off[k], n = l->off[k + 1] - lo;
        if (map_mapper_revise(m, l->act + lo, l->var + lo, n) != 0)
            take_changes(l, lo, n);
    }
}

void model_log_place(model_log *l, map_mapper *m)
{
    for (uint32_t k = 0; k < l->ncases; k++) {
        uint32_t lo = l->off[k], n = l->off[k + 1] - lo;
        if (map_mapper_place(m, l->act + lo, l->var + lo, n) != 0)
            take_changes(l, lo, n);
    }
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
    if (!o->arrival_order)
        order_cases(&c);
    core_vec_reserve(&c.evs, total);
    core_arena_init(&c.arena, 1 << 16);
    /* Malformed records were reported by the first pass. */
    model_log_opts quiet = *o;
    quiet.in.log.fn = NULL;
    rc = pass(path, &quiet, "mapping", second_pass, &c, l, why, whylen);
    if (rc)
        goto fail;
    for (uint32_t i = 0; i < n; i++)
        if (c.cases.v[i].next != c.cases.v[i].count) {
            rc = core_fail(why, whylen, CORE_ECORRUPT, "%s: the file changed while it was read",
                           path);
            goto fail;
        }
    /* Events by case, each case's in its order. An empty log has no
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
    revise_cases(l, o, m);
    l->has_truth = c.truth && c.evs.n > 0;
    load_done(&c);
    return 0;
fail:
    load_done(&c);
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
