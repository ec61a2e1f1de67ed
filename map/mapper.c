/*
 * Events to activities to symbols (map.h): each event as it comes, by
 * code attributes, overrides and templates, with the message cache and
 * the duplicates a template matches at several sites, told apart by the
 * case so far with personalized PageRank over the code graph (ppr.h),
 * and variants (overrides of one method) by the class the case's other
 * events say runs. The strategies that wait for every event are in
 * finish.c.
 */
#define _GNU_SOURCE /* memmem */
#include "mapper_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MASKED_NONE 0

/* A message cache entry whose activity and variant are fixed (a template
 * matched it, unambiguously): both in the entry itself, so that a message
 * seen again costs one lookup. Other entries index msgs (+ 1). */
#define MSG_FIXED (UINT64_C(1) << 63)

/* String members of a JSON message tried as its text: a record's fields
 * beyond these are the run's values, not another message. */
#define JSON_MEMBERS_MAX 16

/* Distinct messages cached and variants kept: twice max_activities. */
static size_t msg_cap(const map_mapper *m)
{
    return 2 * (size_t)m->o.max_activities;
}

static uint32_t activity_get(map_mapper *m, const char *text, size_t len, bool *created);

const char *map_ambiguity_name(map_ambiguity a)
{
    static const char *n[] = {"none", "case", "message", "logger", "traces", "tied", "runs"};
    return (unsigned)a < MAP_AMB__COUNT ? n[a] : "?";
}

const char *map_strategy_name(map_strategy s)
{
    static const char *n[] = {"none",   "code", "override", "template", "const",
                              "tokens", "llm",  "logger",   "stack"};
    return (unsigned)s < MAP_BY__COUNT ? n[s] : "?";
}

uint64_t map__key64(uint64_t h)
{
    return h == UINT64_MAX ? 0 : h;
}

/* An abstracted message's identity: the hash of its text up to a NUL (as
 * the string table keeps it), never MASKED_NONE. */
static uint64_t masked_hash(const char *s, size_t n)
{
    uint64_t h = core_hash64(s, strnlen(s, n), 0x6d61736b);
    return h == MASKED_NONE ? 1 : h;
}

/*
 * Logging callees, learnt. A site's callee is its receiver and method as
 * written ("self.logger.debug1", "debug", "this.log"); every callee whose
 * literal renders a message seen is a logging function, and the more of
 * its sites did, the surer. Nothing here depends on what the callee is
 * called.
 */
static int cmp_callee_emit(const void *a, const void *b)
{
    const nb_rec *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    return (x->nb > y->nb) - (x->nb < y->nb);
}

/* The edges out of the function of site e (none without one), for
 * site_calls. */
static const graph_edge *site_callees(const graph *g, const graph_emit *e, uint32_t *n)
{
    *n = 0;
    return e->symbol == GRAPH_NONE ? NULL : graph_out_edges(g, e->symbol, n);
}

/* Whether edge ed out of site e's function is a call its call may make:
 * to a function named as the call's method (each that subclasses
 * override, called through self), with the flags want. */
static bool site_calls(const graph *g, const graph_emit *e, const graph_edge *ed, uint32_t want)
{
    if (ed->type != GRAPH_EDGE_CALLS)
        return false;
    graph_symbol c;
    graph_get_symbol(g, ed->node, &c);
    return (c.flags & want) == want && strcmp(c.name, e->method) == 0;
}

/* A receiver's hash, never 0 (0 stands for none in emit_recv). */
static uint64_t receiver_hash(const char *receiver)
{
    uint64_t h = core_hash64(receiver, strlen(receiver), 0x72656376ull);
    return h ? h : 1;
}

static void callees_init(map_mapper *m)
{
    uint32_t ne = graph_nemits(m->g);
    m->emit_callee = core_xmalloc((ne ? ne : 1) * sizeof *m->emit_callee);
    m->emit_recv = core_xcalloc(ne ? ne : 1, sizeof *m->emit_recv);
    m->proven = core_xcalloc(ne ? ne : 1, 1);
    m->listed = core_xcalloc(ne ? ne : 1, 1);
    m->tmpl_act = core_xmalloc((ne ? ne : 1) * sizeof *m->tmpl_act);
    for (uint32_t i = 0; i < ne; i++)
        m->tmpl_act[i] = UINT32_MAX;
    core_map idx = {0};
    uint32_t n = 0;
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(m->g, i, &e);
        uint64_t h = core_hash64(e.receiver, strlen(e.receiver), 0x63616c6cull);
        h = map__key64(core_hash64(e.method, strlen(e.method), h ^ 0x2e));
        bool ins;
        uint64_t *v = core_map_put(&idx, h, &ins);
        if (ins)
            *v = n++;
        m->emit_callee[i] = (uint32_t)*v;
        if (e.kind == GRAPH_EMIT_CALL && map__through_object(m->g, i, e.receiver))
            m->emit_recv[i] = receiver_hash(e.receiver);
    }
    core_map_free(&idx);
    m->callee_sites = core_xcalloc(n ? n : 1, sizeof *m->callee_sites);
    m->ncallees = n;
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(m->g, i, &e);
        if (e.kind != GRAPH_EMIT_CALL || e.style != GRAPH_STYLE_PLAIN || strlen(e.tmpl) < 3)
            continue;
        /* Every function of that name the call may reach (a method its
         * subclasses override, called through self) is handed the literal:
         * one it may reach and the others not would wrongly tell them
         * apart. */
        uint32_t ned;
        const graph_edge *ed = site_callees(m->g, &e, &ned);
        for (uint32_t k = 0; k < ned; k++)
            if (site_calls(m->g, &e, &ed[k], 0))
                core_vec_push(&m->passed, ((nb_rec){ed[k].node, i, 0, 0}));
    }
    if (m->passed.n)
        qsort(m->passed.v, m->passed.n, sizeof *m->passed.v, cmp_callee_emit);
}

/* A site's template matched a message: its callee has one more proven
 * site. */
static void callee_prove(map_mapper *m, uint32_t emit)
{
    if (m->proven[emit])
        return;
    m->proven[emit] = 1;
    uint32_t c = m->emit_callee[emit];
    if (++m->callee_sites[c] != LISTED_SITES)
        return;
    /* Shown to log on that many sites: its other calls are logging calls
     * too, however short their literal (`debug("opening %s", uri)`). */
    for (uint32_t e = 0; e < graph_nemits(m->g); e++)
        if (m->emit_callee[e] == c)
            m->listed[e] = 1;
    m->listed_gen++;
}

void map__listed_by(const map_mapper *m, const uint32_t *sites, uint32_t n, uint8_t *out)
{
    uint32_t ne = graph_nemits(m->g);
    /* Callee numbers are below the number of emits (one per distinct
     * receiver and method). */
    uint32_t *count = core_xcalloc(ne ? ne : 1, sizeof *count);
    uint8_t *seen = core_xcalloc(ne ? ne : 1, 1);
    for (uint32_t i = 0; i < n; i++)
        if (sites[i] < ne && !seen[sites[i]]) {
            seen[sites[i]] = 1;
            count[m->emit_callee[sites[i]]]++;
        }
    for (uint32_t e = 0; e < ne; e++)
        out[e] = count[m->emit_callee[e]] >= LISTED_SITES;
    free(seen);
    free(count);
}

/* How much the log says a site's callee logs: its proven sites, and one
 * more for a site the code's shapes name (a listed logger, a wrapper). */
static uint32_t callee_evidence(const map_mapper *m, uint32_t emit)
{
    graph_emit e;
    graph_get_emit(m->g, emit, &e);
    return m->callee_sites[m->emit_callee[emit]] + (e.kind != GRAPH_EMIT_CALL);
}

/* Of sites matching one message as well as each other, those whose
 * callee the log shows to log the most; returns how many are kept. */
static uint32_t keep_proven(const map_mapper *m, uint32_t *emits, uint32_t n)
{
    if (n < 2)
        return n;
    uint32_t best = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = callee_evidence(m, emits[i]);
        if (x > best)
            best = x;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (callee_evidence(m, emits[i]) == best)
            emits[k++] = emits[i];
    return k;
}

static bool parallel_group(const map_mapper *m, uint32_t group);

int map_mapper_new(const graph *g, const map_mapper_opts *o, map_mapper **out)
{
    map_mapper *m = core_xcalloc(1, sizeof *m);
    m->g = g;
    if (o)
        m->o = *o;
    if (m->o.tokens_min <= 0)
        m->o.tokens_min = 0.25;
    if (m->o.max_activities == 0)
        m->o.max_activities = 1000000;
    m->aside = m->o.include_tests ? 0 : MAP_ASIDE_DEFAULT;
    map_matcher_opts mo = {.aside = m->aside};
    int rc = map_matcher_build(g, &mo, &m->matcher);
    if (rc) {
        free(m);
        return rc;
    }
    m->mw = map_match_work_new(m->matcher);
    core_strtab_init(&m->strs);
    m->other = UINT32_MAX;
    m->other = activity_get(m, MAP__OTHER_TEXT, strlen(MAP__OTHER_TEXT), NULL);
    m->acts.v[m->other].tried = true;
    m->masked_other = masked_hash(MAP__OTHER_TEXT, strlen(MAP__OTHER_TEXT));
    for (uint32_t f = 0; f < graph_nfiles(g); f++) {
        graph_file_info fi;
        graph_get_file(g, f, &fi);
        core_smap_add(&m->file_by_path, fi.path, strlen(fi.path), f);
    }
    callees_init(m);
    map__told_words_init(m);
    map__told_classes_init(m);
    map_match_work_listed(m->mw, m->listed);
    *out = m;
    return 0;
}

void map_mapper_free(map_mapper *m)
{
    if (!m)
        return;
    map_match_work_free(m->mw);
    map_matcher_free(m->matcher);
    map_text_free(m->text);
    ppr_work_free(m->cw);
    ppr_net_free(m->code);
    core_strtab_free(&m->strs);
    core_map_free(&m->act_by_text);
    core_vec_free(&m->acts);
    core_vec_free(&m->syms);
    core_vec_free(&m->conf);
    core_buf_free(&m->peek_text);
    core_vec_free(&m->cands);
    core_map_free(&m->var_by_key);
    core_vec_free(&m->var_act);
    core_vec_free(&m->var_text);
    core_vec_free(&m->var_told);
    core_map_free(&m->msg_cache);
    core_map_free(&m->told_words);
    core_map_free(&m->told_classes);
    core_map_free(&m->class_names);
    core_map_free(&m->class_links);
    core_map_free(&m->parallel);
    core_vec_free(&m->msgs);
    core_buf_free(&m->masked_text);
    core_map_free(&m->amb_cache);
    core_vec_free(&m->ambs);
    core_vec_free(&m->amb_scores);
    core_map_free(&m->near_index);
    core_vec_free(&m->near_vals);
    core_map_free(&m->acc_index);
    core_map_free(&m->runs);
    core_map_free(&m->runs_seen);
    core_vec_free(&m->amb_acc);
    core_vec_free(&m->acc_groups);
    core_map_free(&m->code_votes);
    core_map_free(&m->code_cache);
    core_vec_free(&m->votes);
    core_vec_free(&m->takes);
    core_vec_free(&m->passed);
    core_smap_free(&m->file_by_path);
    core_map_free(&m->nb_index);
    core_map_free(&m->live);
    core_map_free(&m->logger_files);
    core_map_free(&m->logger_total);
    core_map_free(&m->file_logged);
    free(m->file_tells);
    free(m->sym_tells);
    core_map_free(&m->logger_recv);
    core_map_free(&m->logger_wrap);
    core_vec_free(&m->logger_wraps);
    core_vec_free(&m->nbs);
    core_map_free(&m->chain_index);
    core_vec_free(&m->chain);
    core_buf_free(&m->tmp);
    core_buf_free(&m->errmsg);
    core_buf_free(&m->member);
    free(m->emit_callee);
    free(m->emit_recv);
    free(m->callee_sites);
    free(m->proven);
    free(m->listed);
    free(m->tmpl_act);
    free(m);
}

size_t map_mapper_bytes(const map_mapper *m)
{
    if (!m)
        return 0;
    size_t ne = graph_nemits(m->g), n1 = ne ? ne : 1, ncallee = m->ncallees ? m->ncallees : 1;
    size_t b = sizeof *m + map_matcher_bytes(m->matcher) + map_text_bytes(m->text) +
               (m->code ? ppr_net_bytes(m->code) : 0) + ppr_work_bytes(m->cw) +
               n1 * (sizeof *m->emit_callee + sizeof *m->emit_recv + sizeof *m->proven +
                     sizeof *m->listed + sizeof *m->tmpl_act) +
               ncallee * sizeof *m->callee_sites;
    b += core_strtab_bytes(&m->strs) + core_smap_bytes(&m->file_by_path);
    const core_map *maps[] = {&m->act_by_text, &m->var_by_key,  &m->msg_cache,    &m->amb_cache,
                              &m->near_index,  &m->acc_index,   &m->code_votes,   &m->code_cache,
                              &m->nb_index,    &m->live,        &m->logger_files, &m->logger_total,
                              &m->logger_recv, &m->chain_index, &m->told_words,   &m->told_classes,
                              &m->file_logged, &m->class_names, &m->class_links,  &m->parallel};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        b += core_map_bytes(maps[i]);
    b += core_vec_bytes(m->acts) + core_vec_bytes(m->syms) + core_vec_bytes(m->conf) +
         core_vec_bytes(m->cands) + core_vec_bytes(m->var_act) + core_vec_bytes(m->var_text) +
         core_vec_bytes(m->var_told) + core_vec_bytes(m->msgs) + core_vec_bytes(m->ambs) +
         core_vec_bytes(m->amb_scores) + core_vec_bytes(m->near_vals) + core_vec_bytes(m->amb_acc) +
         core_vec_bytes(m->acc_groups) + core_vec_bytes(m->votes) + core_vec_bytes(m->takes) +
         core_vec_bytes(m->passed) + core_vec_bytes(m->nbs) + core_vec_bytes(m->chain);
    return b + m->masked_text.cap + m->tmp.cap + m->peek_text.cap;
}

const graph *map_mapper_graph(const map_mapper *m)
{
    return m->g;
}

/* The activity with this text, created when new. Dry, only found: a new
 * text gives UINT32_MAX, its text kept in peek_text. */
static uint32_t activity_get(map_mapper *m, const char *text, size_t len, bool *created)
{
    if (m->dry) {
        if (created)
            *created = false;
        uint32_t off = core_strtab_find(&m->strs, text, len);
        const uint64_t *v = off == UINT32_MAX ? NULL : core_map_get(&m->act_by_text, off);
        if (v)
            return (uint32_t)*v;
        if (m->acts.n >= m->o.max_activities && m->other != UINT32_MAX)
            return m->other;
        core_buf_reset(&m->peek_text);
        core_buf_append(&m->peek_text, text, len);
        return UINT32_MAX;
    }
    bool at_cap = m->acts.n >= m->o.max_activities && m->other != UINT32_MAX;
    uint32_t off =
        at_cap ? core_strtab_find(&m->strs, text, len) : core_strtab_intern(&m->strs, text, len);
    if (off == UINT32_MAX) {
        /* A new text past the cap: folded without keeping it. */
        if (created)
            *created = false;
        m->folded++;
        return m->other;
    }
    bool ins;
    uint64_t *v = core_map_put(&m->act_by_text, off, &ins);
    if (created)
        *created = ins;
    if (!ins)
        return (uint32_t)*v;
    if (at_cap) {
        /* Folded: nothing was created, and "<other>" never gets symbols. */
        if (created)
            *created = false;
        m->folded++;
        *v = m->other;
        return m->other;
    }
    act_rec a = {.text = off};
    core_vec_push(&m->acts, a);
    *v = m->acts.n - 1;
    return (uint32_t)(m->acts.n - 1);
}

void map__activity_set_syms(map_mapper *m, uint32_t act, map_strategy st, const uint32_t *s,
                            const float *c, uint32_t n)
{
    act_rec *a = &m->acts.v[act];
    a->strategy = (uint8_t)st;
    a->sym_off = (uint32_t)m->syms.n;
    a->nsyms = n;
    for (uint32_t i = 0; i < n; i++) {
        core_vec_push(&m->syms, s[i]);
        core_vec_push(&m->conf, c[i]);
    }
}

void map__activity_set_even(map_mapper *m, uint32_t act, map_strategy st, const uint32_t *s,
                            uint32_t n)
{
    float c[MAX_CAND] = {0};
    if (n > MAX_CAND)
        n = MAX_CAND;
    for (uint32_t i = 0; i < n; i++)
        c[i] = 1.0f / (float)n;
    map__activity_set_syms(m, act, st, s, c, n);
}

void map__activity_set_cands(map_mapper *m, uint32_t act, const uint32_t *s, uint32_t n)
{
    act_rec *a = &m->acts.v[act];
    a->cand_off = (uint32_t)m->cands.n;
    a->ncand = n;
    for (uint32_t i = 0; i < n; i++)
        core_vec_push(&m->cands, s[i]);
}

/*
 * Whether act is a message placed by position, or by a constant, at the
 * sites of several functions that nearness did not tell apart
 * (map_by_position and map_by_constants, which keep them as its
 * candidates too): each event of it goes to the one where its case is,
 * as a template's sites are told apart (resolve_ambiguous). The mark is
 * what a saved dictionary keeps: the strategy, and candidates that are
 * the symbols.
 */
static bool placed_at_sites(const map_mapper *m, uint32_t act)
{
    if (act >= m->acts.n)
        return false;
    const act_rec *a = &m->acts.v[act];
    if ((a->strategy != MAP_BY_LOGGER && a->strategy != MAP_BY_CONST) || a->ncand < 2 ||
        a->nsyms != a->ncand)
        return false;
    for (uint32_t i = 0; i < a->ncand; i++)
        if (m->cands.v[a->cand_off + i] != m->syms.v[a->sym_off + i])
            return false;
    return true;
}

/* A message of such an activity goes the way of a template's several
 * sites: *act becomes UINT32_MAX, *group the activity. */
static void group_if_placed(const map_mapper *m, uint32_t *act, uint32_t *group)
{
    if (placed_at_sites(m, *act)) {
        *group = *act;
        *act = UINT32_MAX;
    }
}

/* Keeps what an unmatched activity's records say of their source (a
 * logger, a level) while they all say the same. */
static void note_source(map_mapper *m, uint32_t *slot, const char *s)
{
    if (*slot == LOGGER_MIXED)
        return;
    uint32_t off = s && s[0] ? core_strtab_intern(&m->strs, s, strlen(s)) + 1 : LOGGER_MIXED;
    *slot = *slot == 0 || *slot == off ? off : LOGGER_MIXED;
}

/* note_source for the logger, keeping the several it may name
 * (act_rec.loggers). */
static void note_logger(map_mapper *m, act_rec *a, const char *s)
{
    if (a->logger == LOGGER_MIXED && a->loggers_lost)
        return;
    if (!s || !s[0]) {
        a->logger = LOGGER_MIXED;
        a->loggers_lost = true;
        return;
    }
    uint32_t off = core_strtab_intern(&m->strs, s, strlen(s)) + 1;
    if (a->logger == 0 || a->logger == off) {
        a->logger = off;
        if (a->nloggers == 0)
            a->loggers[a->nloggers++] = off;
        return;
    }
    a->logger = LOGGER_MIXED;
    for (uint8_t i = 0; i < a->nloggers; i++)
        if (a->loggers[i] == off)
            return;
    if (a->nloggers == ACT_LOGGERS)
        a->loggers_lost = true;
    else
        a->loggers[a->nloggers++] = off;
}

/* Loggers are known here by the hash of their name: interning every
 * matched message's logger would cost the mapping's hot path. */
static uint64_t logger_hash(const char *logger)
{
    return core_hash64(logger, strlen(logger), 0x6c6f67ull);
}

static uint64_t logger_file_key(uint64_t logger, uint32_t file)
{
    return map__key64(core_hash_u64(logger ^ ((uint64_t)file + 1) * 0x9e3779b97f4a7c15ull));
}

static uint64_t file_key(uint32_t file)
{
    return map__key64(core_hash_u64((uint64_t)file + 1));
}

/* The most of a decoration record_source reads. */
#define DECORATION_MAX 128

/*
 * Where a record came from, as the mapping tells sites apart by it: its
 * logger's name; or, for a record without one, the text its logging
 * function put before the message (the first deco bytes of text), masked
 * as a message is (a time, a connection's number vary), and none at all a
 * decoration too. A wrapper that one side of a program logs through may
 * mark its records so where no logger does. Never 0.
 */
static uint64_t record_source(map_mapper *m, const char *logger, const char *text, size_t deco,
                              bool *by_decoration)
{
    *by_decoration = !logger || !logger[0];
    if (!*by_decoration)
        return logger_hash(logger);
    core_buf_reset(&m->tmp);
    size_t n = map_mask_message(text, deco, DECORATION_MAX, &m->tmp);
    return core_hash64(m->tmp.data ? m->tmp.data : "", n, 0x6465636full) | 1;
}

/* The logger_files key space of the files a source's messages may have
 * come from (see note_logger_file). */
#define SEEN_SPACE 0x5ee17f11e5ull

/* A message from source matched a template of these symbols: one more
 * for the source in their file (when they share one); and, in the seen
 * space, one more in each of their files (map__logger_files). */
static void note_logger_file(map_mapper *m, uint64_t l, const uint32_t *syms, uint32_t ns)
{
    if (!l || ns == 0)
        return;
    bool ins;
    uint64_t seen = l ^ SEEN_SPACE;
    uint32_t files[MAX_CAND], nf = 0;
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol t;
        graph_get_symbol(m->g, syms[i], &t);
        bool dup = false;
        for (uint32_t k = 0; k < nf && !dup; k++)
            dup = files[k] == t.file_id;
        if (dup || nf == MAX_CAND)
            continue;
        files[nf++] = t.file_id;
        ++*core_map_put(&m->logger_files, logger_file_key(seen, t.file_id), &ins);
    }
    ++*core_map_put(&m->logger_total, map__key64(seen), &ins);
    if (nf != 1)
        return;
    ++*core_map_put(&m->logger_files, logger_file_key(l, files[0]), &ins);
    ++*core_map_put(&m->logger_total, map__key64(l), &ins);
    ++*core_map_put(&m->file_logged, file_key(files[0]), &ins);
}

static uint64_t logger_recv_key(uint64_t logger, uint64_t receiver)
{
    return map__key64(core_hash_u64(logger ^ receiver * 0x9e3779b97f4a7c15ull));
}

/* A message of logger matched candidate calls emits[0..n): one more for
 * the logger through each of their receivers (`diag`, `this._diag`: an
 * object the code does not know for a logger). */
static void note_logger_receivers(map_mapper *m, const char *logger, const uint32_t *emits,
                                  uint32_t n)
{
    if (!logger || !logger[0])
        return;
    uint64_t l = logger_hash(logger), done[MAX_CAND];
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!m->emit_recv[emits[i]])
            continue;
        uint64_t k = logger_recv_key(l, m->emit_recv[emits[i]]);
        bool dup = false;
        for (uint32_t j = 0; j < nd && !dup; j++)
            dup = done[j] == k;
        if (dup)
            continue;
        done[nd++] = k;
        bool ins;
        ++*core_map_put(&m->logger_recv, k, &ins);
    }
}

/* Messages through one receiver that make it one its logger logs through:
 * one match could be a coincidence of text. */
#define RECV_MIN 3

static uint64_t logger_wrap_key(uint64_t logger, uint32_t wrapper)
{
    return map__key64(core_hash_u64(logger ^ (wrapper + 1ull) * 0xc2b2ae3d27d4eb4full));
}

/* A message of logger matched sites emits[0..n): one more for the logger
 * through each wrapper of ours whose calls made them (a callee of the
 * site's function flagged a wrapper, named as the call's method). */
static void note_logger_wrappers(map_mapper *m, const char *logger, const uint32_t *emits,
                                 uint32_t n)
{
    if (!logger || !logger[0])
        return;
    uint64_t l = logger_hash(logger);
    uint32_t done[MAX_CAND], nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(m->g, emits[i], &e);
        if (!(e.flags & GRAPH_EF_WRAPPER) || !e.method[0])
            continue;
        uint32_t ne;
        const graph_edge *out = site_callees(m->g, &e, &ne);
        for (uint32_t k = 0; k < ne; k++) {
            if (!site_calls(m->g, &e, &out[k], GRAPH_SF_WRAPPER))
                continue;
            bool dup = false;
            for (uint32_t j = 0; j < nd && !dup; j++)
                dup = done[j] == out[k].node;
            if (dup || nd == MAX_CAND)
                continue;
            done[nd++] = out[k].node;
            bool ins;
            ++*core_map_put(&m->logger_wrap, logger_wrap_key(l, out[k].node), &ins);
            if (ins)
                core_vec_push(&m->logger_wraps, ((logger_wrapper){l, out[k].node}));
        }
    }
}

uint32_t map__logger_wrappers(const map_mapper *m, const char *logger, uint32_t *wrappers,
                              uint32_t max)
{
    uint64_t l = logger_hash(logger);
    uint32_t n = 0;
    for (size_t i = 0; i < m->logger_wraps.n && n < max; i++) {
        const logger_wrapper *p = &m->logger_wraps.v[i];
        const uint64_t *c =
            p->logger == l ? core_map_get(&m->logger_wrap, logger_wrap_key(l, p->wrapper)) : NULL;
        if (c && *c >= RECV_MIN)
            wrappers[n++] = p->wrapper;
    }
    return n;
}

bool map__logger_through(const map_mapper *m, const char *logger, const char *receiver)
{
    const uint64_t *c = core_map_get(&m->logger_recv,
                                     logger_recv_key(logger_hash(logger), receiver_hash(receiver)));
    return c && *c >= RECV_MIN;
}

/*
 * The files a logger was shown to log from: each holding at least a tenth
 * of the messages its templates matched, a message whose template several
 * files log counting in each. Returns how many (up to max: those with the
 * most messages, not the first files of the graph).
 */
#define LOGGER_FILES_MAX 64

uint32_t map__logger_files(const map_mapper *m, const char *logger, uint32_t *files, uint32_t max)
{
    uint64_t l = logger_hash(logger) ^ SEEN_SPACE;
    const uint64_t *total = core_map_get(&m->logger_total, map__key64(l));
    if (!total || max == 0)
        return 0;
    uint32_t k = 0;
    uint64_t cnt[LOGGER_FILES_MAX];
    if (max > LOGGER_FILES_MAX)
        max = LOGGER_FILES_MAX;
    for (uint32_t f = 0; f < graph_nfiles(m->g); f++) {
        const uint64_t *c = core_map_get(&m->logger_files, logger_file_key(l, f));
        if (!c || *c * 10 < *total || (k == max && *c <= cnt[k - 1]))
            continue;
        /* in by count, most first (ties: the earlier file) */
        uint32_t at = k < max ? k++ : max - 1;
        while (at > 0 && cnt[at - 1] < *c) {
            cnt[at] = cnt[at - 1];
            files[at] = files[at - 1];
            at--;
        }
        cnt[at] = *c;
        files[at] = f;
    }
    return k;
}

/* The owner of each template: its first site's, in a map keyed by the
 * template's hash, marked shared when a site of another has it too. */
static uint64_t tmpl_key(const graph_emit *e)
{
    return map__key64(core_hash64(e->tmpl, strlen(e->tmpl), 0));
}

static void note_owner(core_map *owners, uint64_t key, uint32_t owner)
{
    bool ins;
    uint64_t *o = core_map_put(owners, key, &ins);
    if (ins)
        *o = owner;
    else if (*o != owner)
        *o = UINT32_MAX;
}

void map__ensure_tellers(map_mapper *m)
{
    if (m->file_tells)
        return;
    uint32_t nf = graph_nfiles(m->g), ns = graph_nsymbols(m->g), ne = graph_nemits(m->g);
    m->file_tells = calloc(nf ? nf : 1, 1);
    m->sym_tells = calloc(ns ? ns : 1, 1);
    if (!m->file_tells || !m->sym_tells)
        core_panic("out of memory");
    core_map by_file = {0}, by_sym = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < ne; i++) {
            graph_emit e;
            graph_symbol s;
            graph_get_emit(m->g, i, &e);
            if (!e.tmpl[0] || e.symbol == GRAPH_NONE)
                continue;
            graph_get_symbol(m->g, e.symbol, &s);
            uint64_t k = tmpl_key(&e);
            if (pass == 0) {
                note_owner(&by_file, k, s.file_id);
                note_owner(&by_sym, k, e.symbol);
                continue;
            }
            if (*core_map_get(&by_file, k) == s.file_id)
                m->file_tells[s.file_id] = 1;
            if (*core_map_get(&by_sym, k) == e.symbol)
                m->sym_tells[e.symbol] = 1;
        }
    }
    core_map_free(&by_file);
    core_map_free(&by_sym);
}

/* Whether a logging call of function sym names logger as its own. */
static bool names_logger(const graph *g, uint32_t sym, const char *logger)
{
    if (!logger || !logger[0])
        return false;
    uint32_t first, n = graph_symbol_emits(g, sym, &first);
    for (uint32_t e = first; e < first + n; e++) {
        graph_emit x;
        graph_get_emit(g, e, &x);
        if (x.logger[0] && map__logger_agrees(x.logger, logger))
            return true;
    }
    return false;
}

/*
 * Several sites in different files log one template, and the record's
 * logger names none of them (a component name given at run time, a logger
 * handed in). The messages of that logger which one file's templates
 * matched show where it logs: the candidate whose file has most of them,
 * where no other candidate's file has any, is where it logged this one
 * too. A logger that logs from the files of several candidates (a
 * library's two implementations of one protocol, each case running one
 * of them) tells only which runs more often, which the case knows better;
 * nor does one that logs from many files (one logger for a whole
 * package).
 */
static uint32_t by_logger_share(const map_mapper *m, uint64_t l, const char *logger,
                                const uint32_t *syms, uint32_t ns)
{
    const uint64_t *total = core_map_get(&m->logger_total, map__key64(l));
    if (!total)
        return GRAPH_NONE;
    uint32_t best = GRAPH_NONE, best_file = GRAPH_NONE;
    uint64_t most = 0, other = 0;
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol s;
        graph_get_symbol(m->g, syms[i], &s);
        const uint64_t *c = core_map_get(&m->logger_files, logger_file_key(l, s.file_id));
        uint64_t n = c ? *c : 0;
        if (s.file_id == best_file) {
            best = GRAPH_NONE; /* two candidates in that file */
        } else if (n > most) {
            other = other > most ? other : most;
            most = n;
            best = syms[i];
            best_file = s.file_id;
        } else if (n > other) {
            other = n;
        }
    }
    if (!most || other || 2 * most < *total)
        return GRAPH_NONE;
    /* A candidate that logs through this very logger, in a file that no
     * message can show logging, was never seen there for want of a way,
     * not because it did not log. */
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol s;
        graph_get_symbol(m->g, syms[i], &s);
        if (s.file_id != best_file && !m->file_tells[s.file_id] &&
            names_logger(m->g, syms[i], logger))
            return GRAPH_NONE;
    }
    return best;
}

/* The messages one file's templates matched (from records with a logger
 * or a decoration) before its share of a source says anything. */
#define FILE_SHOWN 10

/*
 * The other way round: a logger that logs from many files may still be
 * the only one a candidate's file logs through. When every candidate's
 * file has shown its loggers, and nine in ten of one file's messages came
 * through the record's logger while no other candidate's file sent a
 * tenth of its own through it, the record came from that file (a
 * protocol module logging for both the client and the server through
 * whichever side's logger it was handed, beside a client module and a
 * server module that each log through their own).
 */
static uint32_t by_file_share(const map_mapper *m, uint64_t l, const uint32_t *syms, uint32_t ns)
{
    uint32_t best = GRAPH_NONE, best_file = GRAPH_NONE;
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol s;
        graph_get_symbol(m->g, syms[i], &s);
        const uint64_t *t = core_map_get(&m->file_logged, file_key(s.file_id));
        if (!t || *t < FILE_SHOWN)
            return GRAPH_NONE;
        const uint64_t *c = core_map_get(&m->logger_files, logger_file_key(l, s.file_id));
        uint64_t n = c ? *c : 0;
        if (10 * n >= 9 * *t) {
            if (best_file != GRAPH_NONE)
                return GRAPH_NONE; /* two candidates in that file, or two such files */
            best = syms[i];
            best_file = s.file_id;
        } else if (10 * n > *t) {
            return GRAPH_NONE;
        }
    }
    return best;
}

/*
 * Whether a site of emits[0..ne) logs through a plain name whose logger
 * the graph does not know (a function's local or parameter: `logger =
 * logging.getLogger(name)`), which is whatever logger its caller chose.
 */
static bool logger_handed(const map_mapper *m, const uint32_t *emits, uint32_t ne)
{
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(m->g, emits[i], &e);
        if (e.kind == GRAPH_EMIT_LOG && !e.logger[0] && e.receiver[0] &&
            !strpbrk(e.receiver, "@.?"))
            return true;
    }
    return false;
}

static uint32_t group_member(map_mapper *m, uint32_t group, uint32_t sym);

/* The member of group the record's source names (by_logger_share, then
 * by_file_share; a decoration only the latter: most records have none,
 * and that most come from one file is no sign that this one did), or
 * UINT32_MAX: also when the group's sites log through a logger handed
 * in, and for variants, which share their base class's logger and file
 * (which of them runs, the case tells). */
static bool hierarchy_variants(const map_mapper *m, uint32_t group);

static uint32_t logger_member(map_mapper *m, uint32_t group, const msg_rec *r, const char *logger)
{
    const act_rec *g = &m->acts.v[group];
    if (!r->source || g->logger_handed || g->ncand < 2)
        return UINT32_MAX;
    const uint32_t *syms = m->cands.v + g->cand_off;
    uint32_t ns = map__group_size(m, group);
    map__ensure_tellers(m);
    uint32_t best = r->by_decoration ? GRAPH_NONE : by_logger_share(m, r->source, logger, syms, ns);
    if (best == GRAPH_NONE)
        best = by_file_share(m, r->source, syms, ns);
    if (best == GRAPH_NONE || hierarchy_variants(m, group))
        return UINT32_MAX;
    uint32_t member = group_member(m, group, best);
    if (!m->dry && member != UINT32_MAX)
        m->acts.v[member].amb = MAP_AMB_LOGGER;
    return member;
}

/* How far below a function that logs nothing the one that logs the text
 * it is handed is looked for, through functions that log nothing, and
 * how many functions are looked at in all. */
#define ACTING_HOPS 3
#define ACTING_SEEN 64

/*
 * Looks below f (hops calls deep, through functions that log nothing)
 * for the functions that run work they are handed and log the text that
 * names it (GRAPH_SF_RUNS_HANDED, logging text built at run time, not a
 * wrapper): *acting the one found; false when there are several, or too
 * much to look at.
 */
static bool acting_below(const graph *g, uint32_t f, int hops, uint32_t *seen, uint32_t *nseen,
                         uint32_t *acting)
{
    const uint32_t acts = GRAPH_SF_LOGS_DYNAMIC | GRAPH_SF_RUNS_HANDED | GRAPH_SF_TAKES_TEXT;
    uint32_t ne;
    const graph_edge *out = graph_out_edges(g, f, &ne);
    for (uint32_t k = 0; k < ne; k++) {
        uint32_t u = out[k].node;
        bool dup = false;
        for (uint32_t j = 0; j < *nseen && !dup; j++)
            dup = seen[j] == u;
        if (out[k].type != GRAPH_EDGE_CALLS || dup)
            continue;
        if (*nseen == ACTING_SEEN)
            return false;
        seen[(*nseen)++] = u;
        graph_symbol s;
        graph_get_symbol(g, u, &s);
        if ((s.flags & acts) == acts && !(s.flags & GRAPH_SF_WRAPPER)) {
            if (*acting != GRAPH_NONE)
                return false;
            *acting = u;
        } else if (!(s.flags & GRAPH_SF_LOGS) && hops > 1 &&
                   !acting_below(g, u, hops - 1, seen, nseen, acting)) {
            return false;
        }
    }
    return true;
}

/*
 * The symbol that emits at a site. A call passing a literal to a function
 * of ours that logs it is the caller's doing only when that function is a
 * mere wrapper; one that also does other work (sends the command it logs)
 * is itself what runs, so the event is its own. One that logs nothing
 * itself hands the text on: the event is the one function below it that
 * runs the work it is handed and logs its text (`execute(sql)` preparing
 * the statement for `executeQuery(sql, run)`, which times the run and
 * logs the statement).
 */
uint32_t map__site_emitter(const graph *g, uint32_t emit, const graph_emit *e)
{
    if (e->kind != GRAPH_EMIT_CALL)
        return e->symbol;
    uint32_t t = graph_emit_callee(g, emit);
    if (t == GRAPH_NONE)
        return e->symbol;
    graph_symbol s;
    graph_get_symbol(g, t, &s);
    const uint32_t want = GRAPH_SF_LOGS_DYNAMIC | GRAPH_SF_EFFECTS;
    if ((s.flags & want) == want && !(s.flags & GRAPH_SF_WRAPPER))
        return t;
    if (s.flags & GRAPH_SF_LOGS)
        return e->symbol;
    uint32_t acting = GRAPH_NONE, seen[ACTING_SEEN] = {t}, nseen = 1;
    return acting_below(g, t, ACTING_HOPS, seen, &nseen, &acting) && acting != GRAPH_NONE
               ? acting
               : e->symbol;
}

uint32_t map__emit_symbols(const graph *g, const uint32_t *emits, uint32_t n, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, emits[i], &e);
        if (e.symbol == GRAPH_NONE)
            continue;
        uint32_t sym = map__site_emitter(g, emits[i], &e);
        bool dup = false;
        for (uint32_t j = 0; j < k; j++)
            dup |= out[j] == sym;
        if (!dup)
            out[k++] = sym;
    }
    return k;
}

void map__ensure_code_net(map_mapper *m)
{
    if (m->code)
        return;
    ppr_weights w;
    ppr_weights_profile("default", &w);
    if (ppr_net_from_graph(m->g, &w, &m->code) != 0 || ppr_work_new(m->code, &m->cw) != 0)
        core_panic("out of memory building the code net");
}

/*
 * How near a group's candidates are to symbol src over the code graph:
 * personalized PageRank from src, read at each candidate. Cached per
 * (src, group), since a case's events meet the same pairs again and
 * again. Returns the group's ncand values, valid until the next call.
 */
static const float *near_from(map_mapper *m, uint32_t src, uint32_t group)
{
    const act_rec *g = &m->acts.v[group];
    uint64_t key = map__key64(core_hash_u64(((uint64_t)src << 32) | group));
    bool ins;
    uint64_t *v = core_map_put(&m->near_index, key, &ins);
    if (!ins)
        return m->near_vals.v + *v;
    *v = m->near_vals.n;
    map__ensure_code_net(m);
    ppr_entry seed = {src, 1.0f};
    ppr_opts o = ppr_opts_default();
    o.alpha = 0.3;
    o.eps = 1e-4; /* a decision on "twice the second best" needs no more */
    bool ok = ppr_push(m->cw, &seed, 1, &o, NULL) == 0;
    for (uint32_t i = 0; i < g->ncand; i++) {
        float x = ok ? (float)ppr_work_score(m->cw, m->cands.v[g->cand_off + i]) : 0.0f;
        core_vec_push(&m->near_vals, x);
    }
    return m->near_vals.v + (m->near_vals.n - g->ncand);
}

bool map__site_has_text(const graph *g, uint32_t e, const char *text, size_t n)
{
    graph_emit em;
    graph_get_emit(g, e, &em);
    return strlen(em.tmpl) == n && memcmp(em.tmpl, text, n) == 0 &&
           (n > 0 || em.kind == GRAPH_EMIT_LOG);
}

static bool is_candidate(const map_mapper *m, uint32_t group, uint32_t sym);

/*
 * A group's candidate that the code says logs the group's text next after
 * sym's own site of it, sym being a candidate that may just have logged
 * that text (the group or its member for sym came just before): when
 * that site cannot log it again right after itself and another
 * candidate's site likely does (`send` logs, then calls `flush`, which
 * logs the same), that other one, the likeliest; else GRAPH_NONE. Nearness would
 * take sym again: a function is nearest to itself.
 */
/* The least weight of the successor model's next site for the code to
 * say the other candidate is likely next: a remote path (an error branch
 * several calls away) says less than the case repeating itself. */
#define NEXT_LIKELY 0.1f

static uint32_t next_candidate(const map_mapper *m, uint32_t group, uint32_t sym)
{
    const char *t = core_strtab_str(&m->strs, m->acts.v[group].text);
    size_t tl = map__text_base_len(t);
    uint32_t first, ne = graph_symbol_emits(m->g, sym, &first), best = GRAPH_NONE;
    float bw = 0;
    for (uint32_t e = first; e < first + ne; e++) {
        if (!map__site_has_text(m->g, e, t, tl))
            continue;
        uint32_t nn;
        const graph_next *nx = graph_next_sites(m->g, e, &nn);
        for (uint32_t j = 0; j < nn; j++) {
            if (!map__site_has_text(m->g, nx[j].emit, t, tl))
                continue;
            graph_emit to;
            graph_get_emit(m->g, nx[j].emit, &to);
            uint32_t who = map__site_emitter(m->g, nx[j].emit, &to);
            if (who == sym)
                return GRAPH_NONE;
            if (is_candidate(m, group, who) && nx[j].weight >= NEXT_LIKELY && nx[j].weight > bw) {
                bw = nx[j].weight;
                best = who;
            }
        }
    }
    return best;
}

/* A next site's weight from which the code says it surely comes next
 * (no branch between), and the literal bytes its message needs for its
 * absence from the log to tell. */
#define SURELY_NEXT 0.999f
#define TELLING_LITERAL 12

/* Whether follow-up site f is a logging call of a literal message no
 * event showed, at a level no lower than level (so that a logger that
 * let the first through lets it through too). */
static bool never_logged(const map_mapper *m, uint32_t f, graph_level level)
{
    graph_emit fe;
    graph_get_emit(m->g, f, &fe);
    if (fe.kind != GRAPH_EMIT_LOG || fe.style != GRAPH_STYLE_PLAIN ||
        strlen(fe.tmpl) < TELLING_LITERAL || fe.level == GRAPH_LEVEL_NONE ||
        fe.level >= GRAPH_LEVEL_CUSTOM || fe.level < level)
        return false;
    return map_mapper_find(m, fe.tmpl) == UINT32_MAX;
}

bool map__refuted(const map_mapper *m, uint32_t group, uint32_t sym)
{
    const char *t = core_strtab_str(&m->strs, m->acts.v[group].text);
    size_t tl = map__text_base_len(t);
    uint32_t first, ne = graph_symbol_emits(m->g, sym, &first);
    bool any = false;
    for (uint32_t e = first; e < first + ne; e++) {
        graph_emit em;
        graph_get_emit(m->g, e, &em);
        if (!map__site_has_text(m->g, e, t, tl))
            continue;
        if (em.level == GRAPH_LEVEL_NONE || em.level >= GRAPH_LEVEL_CUSTOM)
            return false;
        uint32_t nn;
        const graph_next *nx = graph_next_sites(m->g, e, &nn);
        bool sure = false;
        for (uint32_t j = 0; j < nn && !sure; j++)
            sure = nx[j].weight >= SURELY_NEXT && never_logged(m, nx[j].emit, em.level);
        if (!sure)
            return false;
        any = true;
    }
    return any;
}

/* The weight of each recent activity that names sites against the one
 * after it: the nearest in the case decides, the older ones break its
 * ties. */
#define CONTEXT_DECAY 0.25

static bool is_candidate(const map_mapper *m, uint32_t group, uint32_t sym)
{
    const act_rec *g = &m->acts.v[group];
    for (uint32_t i = 0; i < g->ncand; i++)
        if (m->cands.v[g->cand_off + i] == sym)
            return true;
    return false;
}

/* A group's candidates, as many as the score arrays hold (a group has at
 * most MAX_CAND). */
uint32_t map__group_size(const map_mapper *m, uint32_t group)
{
    uint32_t n = m->acts.v[group].ncand;
    return n < MAX_CAND ? n : MAX_CAND;
}

/*
 * Scores a group's candidates by the case so far: each recent activity's
 * symbols (with their confidences) seed a walk over the code graph, the
 * most recent weighing most, and a candidate scores what reaches it.
 * Writes ncand scores to sc and returns their sum. Writes the same
 * without the seeds that are candidates themselves to other: what the
 * case's other functions say, for the weights learnt over all cases (a
 * candidate that just logged is running, and the walk from it finds
 * itself first: the current emitter, not the next one).
 */

static double context_scores(map_mapper *m, uint32_t group, const uint32_t *recent,
                             uint32_t nrecent, double *sc, double *other)
{
    uint32_t nc = map__group_size(m, group);
    for (uint32_t i = 0; i < nc; i++)
        sc[i] = other[i] = 0;
    double w = 1, sum = 0;
    for (uint32_t k = nrecent; k-- > 0;) {
        uint32_t a = recent[k];
        if (a >= m->acts.n || m->acts.v[a].nsyms == 0)
            continue;
        for (uint32_t j = 0; j < m->acts.v[a].nsyms; j++) {
            const act_rec *p = &m->acts.v[a];
            uint32_t src = m->syms.v[p->sym_off + j];
            double c = w * m->conf.v[p->sym_off + j];
            bool cand = is_candidate(m, group, src);
            /* A candidate that logged just before may well log again (a
             * loop); one that logged earlier says only that it runs. */
            if (cand && k + 1 < nrecent)
                continue;
            uint32_t next = cand && (a == group || map__member_group(m, a) == group)
                                ? next_candidate(m, group, src)
                                : GRAPH_NONE;
            if (next != GRAPH_NONE) {
                for (uint32_t i = 0; i < nc; i++)
                    if (m->cands.v[m->acts.v[group].cand_off + i] == next) {
                        sc[i] += c;
                        sum += c;
                    }
                continue;
            }
            /* A method every candidate's class runs (a base class's
             * constructor) is nearest to the base's own methods, and runs
             * whichever of them logs. */
            if (map__runs_in_all(m, group, src))
                continue;
            /* near_from may move the vectors that p points into */
            const float *near = near_from(m, src, group);
            for (uint32_t i = 0; i < nc; i++) {
                sc[i] += c * near[i];
                sum += c * near[i];
                if (!cand)
                    other[i] += c * near[i];
            }
        }
        w *= CONTEXT_DECAY;
    }
    /* A candidate the log refutes (map__refuted) is nearest for nothing,
     * unless all are. */
    bool out[MAX_CAND], all = nc > 0;
    for (uint32_t i = 0; i < nc; i++)
        all &= out[i] = map__refuted(m, group, m->cands.v[m->acts.v[group].cand_off + i]);
    for (uint32_t i = 0; i < nc && !all; i++)
        if (out[i]) {
            sum -= sc[i];
            sc[i] = other[i] = 0;
        }
    return sum;
}

/* The candidate the scores point at: clearly the nearest, twice the next
 * one; GRAPH_NONE when none is. */
static uint32_t clear_candidate(const map_mapper *m, uint32_t group, const double *sc)
{
    const act_rec *g = &m->acts.v[group];
    double best = 0, second = 0;
    uint32_t arg = GRAPH_NONE;
    for (uint32_t i = 0; i < map__group_size(m, group); i++) {
        if (sc[i] > best) {
            second = best;
            best = sc[i];
            arg = m->cands.v[g->cand_off + i];
        } else if (sc[i] > second) {
            second = sc[i];
        }
    }
    return best > 0 && best >= 2.0 * second ? arg : GRAPH_NONE;
}

uint64_t map_mapper_folded(const map_mapper *m)
{
    return m->folded;
}

static uint64_t variant_key(uint32_t act, uint64_t masked)
{
    return map__key64(core_hash_u64(masked ^ (uint64_t)act * 0x9e3779b97f4a7c15ull));
}

static const char *masked_str(const map_mapper *m)
{
    return m->masked_text.data ? m->masked_text.data : "";
}

/* Abstracts a message into masked_text, and its hash into masked_of. */
static void mask_into(map_mapper *m, const char *text, size_t len)
{
    core_buf_reset(&m->masked_text);
    map_mask_message(text, len, 0, &m->masked_text);
    m->masked_of = masked_hash(masked_str(m), m->masked_text.len);
}

/* Activity act's variant for the abstracted message with hash masked; ev
 * (NULL when masked_text holds it) renders the text of a new one. */
static uint32_t variant_get(map_mapper *m, uint32_t act, uint64_t masked, const map_event *ev)
{
    uint64_t key = variant_key(act, masked);
    if (m->var_act.n >= msg_cap(m) && masked != m->masked_other) {
        uint64_t *v = core_map_get(&m->var_by_key, key);
        if (v)
            return (uint32_t)(*v - 1);
        return variant_get(m, act, m->masked_other, NULL); /* one per activity */
    }
    bool ins;
    uint64_t *v = core_map_put(&m->var_by_key, key, &ins);
    if (!ins)
        return (uint32_t)(*v - 1);
    *v = m->var_act.n + 1;
    uint32_t text, told = GRAPH_NONE;
    if (masked == m->masked_other) {
        text = core_strtab_intern(&m->strs, MAP__OTHER_TEXT, strlen(MAP__OTHER_TEXT));
    } else {
        if (masked != m->masked_of && ev)
            mask_into(m, ev->text ? ev->text : "", ev->text ? ev->len : 0);
        text = core_strtab_intern(&m->strs, masked_str(m), m->masked_text.len);
        told = map__class_told(m, act, core_strtab_str(&m->strs, text));
    }
    core_vec_push(&m->var_act, act);
    core_vec_push(&m->var_text, text);
    core_vec_push(&m->var_told, told + 1); /* (GRAPH_NONE + 1: 0) */
    m->acts.v[act].nvariants++;
    return (uint32_t)(m->var_act.n - 1);
}

const char *map__template_text(const graph *g, uint32_t emit)
{
    graph_emit e;
    graph_get_emit(g, emit, &e);
    if (e.style == GRAPH_STYLE_REF && e.ref_const != GRAPH_NONE)
        graph_get_emit(g, e.ref_const, &e);
    return e.tmpl;
}

/* Whether an activity's template candidates are exactly these symbols. */
static bool same_set(const map_mapper *m, uint32_t act, const uint32_t *syms, uint32_t n)
{
    const act_rec *a = &m->acts.v[act];
    if (a->ncand != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (m->cands.v[a->cand_off + i] != syms[i])
            return false;
    return true;
}

/*
 * A message only sites set aside (a test's, an example's) render: taken
 * as unmatched, its activity remembering those sites, which finish() maps
 * it to only when no strategy finds it in the product (a test's literal
 * does not outrank the product's sites that log text built at run time).
 */
static msg_rec aside_message(map_mapper *m, const map_event *ev, msg_rec *r, const char *mt,
                             const uint32_t *emits, uint32_t n)
{
    r->gen = m->listed_gen;
    if (r->masked == MASKED_NONE)
        return *r; /* dry: a new text, in peek_text */
    bool created;
    r->act = activity_get(m, mt, strlen(mt), &created);
    if (r->act == m->other || m->dry)
        return *r;
    act_rec *a = &m->acts.v[r->act];
    note_logger(m, a, ev->logger);
    note_source(m, &a->level, ev->level);
    if (created) {
        uint32_t syms[MAX_CAND];
        uint32_t ns = map__emit_symbols(m->g, emits, n, syms);
        a->aside = ns > 0;
        map__activity_set_cands(m, r->act, syms, ns);
    }
    return *r;
}

static uint32_t class_pick(const map_mapper *m, uint32_t group, const map__case *c,
                           const double *sc);
static uint32_t named_candidate(map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns);

/* Resolves a distinct message: template match or abstraction. */
/*
 * Abstracts ev's text into m->masked_text and sets *masked to its hash;
 * returns the text its variant will have. Every abstracted message seen
 * is a variant's text (variant_get interns it), so the string table tells
 * a new one: dry, a new one has no variant (MASKED_NONE; its text in
 * peek_text); past the cap, it folds into the other activity's.
 */
static const char *message_masked(map_mapper *m, const char *text, size_t len, uint64_t *masked)
{
    mask_into(m, text, len);
    const char *mk = masked_str(m);
    *masked = m->masked_of;
    if (m->dry) {
        if (core_strtab_find(&m->strs, mk, m->masked_text.len) == UINT32_MAX) {
            *masked = MASKED_NONE;
            core_buf_reset(&m->peek_text);
            core_buf_append(&m->peek_text, mk, m->masked_text.len);
        }
    } else if (m->var_act.n >= msg_cap(m)) {
        if (core_strtab_find(&m->strs, mk, m->masked_text.len) == UINT32_MAX) {
            *masked = m->masked_other;
            m->folded++;
        }
    }
    return *masked == m->masked_other ? MAP__OTHER_TEXT : mk;
}

/* What the deferred strategies read of a message no template placed: its
 * logger and level, and its first text as it came. */
static void note_unplaced(map_mapper *m, uint32_t act, const map_event *ev, const char *text,
                          size_t len)
{
    act_rec *a = &m->acts.v[act];
    note_logger(m, a, ev->logger);
    note_source(m, &a->level, ev->level);
    if (!a->sample && len < 4096)
        a->sample = core_strtab_intern(&m->strs, text, len) + 1;
}

/* A message of one site whose value names a variant (map__value_told):
 * an activity of its own, "TEMPLATE (word)", which tells the case's
 * other events which variant runs. False when no value names one. */
static bool told_message(map_mapper *m, msg_rec *r, uint32_t emit, uint32_t sym, const char *text,
                         size_t len)
{
    const char *tmpl = map__template_text(m->g, emit);
    size_t wo, wn;
    uint32_t told = map__value_told(m, tmpl, text, len, &wo, &wn);
    if (told == GRAPH_NONE)
        return false;
    core_buf_reset(&m->tmp);
    core_buf_printf(&m->tmp, "%s (%.*s)", tmpl, (int)wn, text + wo);
    bool created;
    r->act = activity_get(m, m->tmp.data, m->tmp.len, &created);
    if (r->act == m->other || r->act == UINT32_MAX || m->dry)
        return true;
    act_rec *a = &m->acts.v[r->act];
    if (created || (a->nsyms == 0 && a->strategy == MAP_BY_NONE)) {
        float one = 1.0f;
        map__activity_set_syms(m, r->act, MAP_BY_TEMPLATE, &sym, &one, 1);
        map__activity_set_cands(m, r->act, &sym, 1);
    }
    m->acts.v[r->act].told = told + 1;
    return true;
}

/* Literal bytes a template must show of a message's first part to be
 * taken for it ahead of the whole (traceback_at). */
#define TRACEBACK_HEAD_MIN 8
/* The literal bytes a message's text before its key=value fields must
 * match (a bare `%s` explains any text). */
#define KV_HEAD_MIN 4

/* Where a Python traceback starts after a message's first part (a line
 * break, as a byte or written as backslash n, then "Traceback (most recent
 * call last):"); len when none does. */
static size_t traceback_at(const char *s, size_t len)
{
    static const char tb[] = "Traceback (most recent call last):";
    const size_t tl = sizeof tb - 1;
    /* (Most messages have no line break: two byte scans answer them.) */
    if (len <= tl || (!memchr(s, '\n', len) && !memchr(s, '\\', len)))
        return len;
    for (const char *p = s; (p = memmem(p, len - (size_t)(p - s), tb, tl)) != NULL; p += tl) {
        size_t at = (size_t)(p - s);
        if (at >= 2 && s[at - 1] == 'n' && s[at - 2] == '\\' && at > 2)
            return at - 2;
        if (at >= 1 && s[at - 1] == '\n' && at > 1)
            return at - 1;
    }
    return len;
}

/* Whether one of sites emits makes an error of the class name[0, nl)
 * names (its last part: `pkg.errors.Timeout`), or of any class when the
 * name is JavaScript's base `Error`, which a subclass shows unless it
 * names itself. */
static bool made_by(const graph *g, const uint32_t *emits, uint32_t n, const char *name, size_t nl)
{
    for (size_t i = nl; i-- > 0;)
        if (name[i] == '.') {
            name += i + 1, nl -= i + 1;
            break;
        }
    bool base = nl == 5 && memcmp(name, "Error", 5) == 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, emits[i], &e);
        if (e.kind != GRAPH_EMIT_CALL || !(e.flags & GRAPH_EF_CTOR))
            continue;
        const char *k = graph_emit_maker(g, &e);
        if (base || (strlen(k) == nl && memcmp(k, name, nl) == 0))
            return true;
    }
    return false;
}

static msg_rec resolve_message(map_mapper *m, const map_event *ev)
{
    msg_rec r = {UINT32_MAX, UINT32_MAX, UINT32_MAX, MASKED_NONE, 0, false};
    const char *text = ev->text ? ev->text : "";
    size_t len = ev->text ? ev->len : 0;
    const char *mt = message_masked(m, text, len, &r.masked);

    /* Overrides first: the rule decides the symbols. */
    if (m->o.overrides) {
        uint32_t s[MAX_CAND];
        float c[MAX_CAND];
        uint32_t rule;
        uint32_t n = map_overrides_match(m->o.overrides, text, len, s, c, MAX_CAND, &rule);
        if (n > 0) {
            bool created;
            if (r.masked == MASKED_NONE)
                return r; /* dry: a new text, in peek_text */
            r.act = activity_get(m, mt, strlen(mt), &created);
            if (created)
                map__activity_set_syms(m, r.act, MAP_BY_OVERRIDE, s, c,
                                       n > MAX_CAND ? MAX_CAND : n);
            return r;
        }
    }

    uint32_t emits[MAX_CAND];
    map_match mr = {0};
    /* A message with the traceback of what it reports after it (a
     * formatter's rendering of `logger.exception("sync of %s failed",
     * url)`): its first part is what the call said. Should nothing
     * render that, the whole is read as before (its frames may place it). */
    size_t head = traceback_at(text, len);
    if (head < len) {
        mr = map_matcher_match(m->matcher, m->mw, text, head, ev->logger, ev->level, emits,
                               MAX_CAND);
        /* (Words of the call's own: `"%s: %s"` fits any first line.) */
        if (mr.nemits && mr.literal >= TRACEBACK_HEAD_MIN)
            len = head;
        else
            mr = (map_match){0};
    }
    if (!mr.nemits)
        mr =
            map_matcher_match(m->matcher, m->mw, text, len, ev->logger, ev->level, emits, MAX_CAND);
    /* An error logged whole: the text its maker gave it may be a
     * template, the class and stack around it are the run's. */
    bool error_text = false;
    bool unmatched = mr.nemits == 0;
    /* Or rendered on one line (`TypeError: invalid URL: /x`), which is
     * the error's only when the code makes an error of that class with
     * such a text. */
    size_t nl = 0;
    const char *name = NULL;
    bool framed = unmatched && map__error_message(text, len, &m->errmsg);
    if (framed || (unmatched && map__error_named(text, len, &name, &nl, &m->errmsg))) {
        /* emits holds nothing yet: the inner match goes straight there. */
        map_match im = map_matcher_match(m->matcher, m->mw, m->errmsg.data, m->errmsg.len,
                                         ev->logger, ev->level, emits, MAX_CAND);
        if (im.nemits &&
            (framed ||
             made_by(m->g, emits, im.nemits > MAX_CAND ? MAX_CAND : im.nemits, name, nl))) {
            mr = im;
            text = m->errmsg.data;
            len = m->errmsg.len;
            error_text = true;
        }
    }
    /* A message rendered as a JSON object (a structured logger's
     * `{"sql": "COMMIT", "ms": 3}`): the text may be any of its string
     * members; the one whose match shows the most literal text, each
     * tried as a whole message is. */
    if (unmatched && !error_text) {
        size_t at = 0;
        for (uint32_t k = 0; k < JSON_MEMBERS_MAX && map__json_next(text, len, &at, &m->member);
             k++) {
            uint32_t inner[MAX_CAND];
            map_match im = map_matcher_match(m->matcher, m->mw, m->member.data, m->member.len,
                                             ev->logger, ev->level, inner, MAX_CAND);
            if (im.nemits && im.literal > (mr.nemits ? mr.literal : 0)) {
                mr = im;
                memcpy(emits, inner, sizeof inner);
                core_buf_reset(&m->errmsg);
                core_buf_append(&m->errmsg, m->member.data, m->member.len);
            }
        }
        if (mr.nemits) {
            text = m->errmsg.data;
            len = m->errmsg.len;
        }
    }
    /* The event's text with its fields after it as key=value pairs (a
     * structured logger's console rendering), or with the time since the
     * last line (the debug module's on a terminal): the text is what the
     * call said, when it shows enough of the call's own words. */
    size_t tried = len;
    for (int k = 0; k < 3 && !mr.nemits && !error_text; k++) {
        size_t h = k < 2 ? map__kv_head(text, len, k == 1) : map__elapsed_head(text, len);
        if (h < len && h != tried) {
            tried = h;
            map_match im = map_matcher_match(m->matcher, m->mw, text, h, ev->logger, ev->level,
                                             emits, MAX_CAND);
            if (im.nemits && im.literal >= KV_HEAD_MIN) {
                mr = im;
                len = h;
            }
        }
    }
    if (mr.flags & MAP_MATCH_ASIDE)
        return aside_message(m, ev, &r, mt, emits, mr.nemits > MAX_CAND ? MAX_CAND : mr.nemits);
    if (mr.nemits == 0) {
        bool created;
        r.gen = m->listed_gen;
        if (r.masked == MASKED_NONE)
            return r; /* dry: a new text, in peek_text */
        r.act = activity_get(m, mt, strlen(mt), &created);
        if (r.act != m->other && !m->dry)
            note_unplaced(m, r.act, ev, text, len);
        return r;
    }
    uint32_t n = mr.nemits > MAX_CAND ? MAX_CAND : mr.nemits;
    for (uint32_t i = 0; i < n && !m->dry; i++)
        callee_prove(m, emits[i]);
    /* (Every call that says nothing is a logging call's: which receiver
     * the log showed logging text is no evidence for an empty message.) */
    if (len > 0)
        n = keep_proven(m, emits, n);
    uint32_t syms[MAX_CAND];
    uint32_t ns = map__emit_symbols(m->g, emits, n, syms);
    r.source = record_source(m, ev->logger, text, mr.decoration, &r.by_decoration);
    /* (A constant's owners are not where its logger logs it.) */
    if (!m->dry && !(mr.flags & MAP_MATCH_CONST)) {
        note_logger_file(m, r.source, syms, ns);
        note_logger_receivers(m, ev->logger, emits, n);
        note_logger_wrappers(m, ev->logger, emits, n);
    }
    bool created;
    if (mr.flags & MAP_MATCH_CONST) {
        /* The template is a constant: its users are found at finish(). */
        core_buf_reset(&m->tmp);
        core_buf_puts(&m->tmp, map__template_text(m->g, emits[0]));
        r.act = activity_get(m, m->tmp.data, m->tmp.len, &created);
        if (created) {
            m->acts.v[r.act].has_const = true;
            map__activity_set_cands(m, r.act, syms, ns);
        }
        if (r.act != m->other && r.act != UINT32_MAX && !m->dry)
            m->acts.v[r.act].error_text |= error_text;
        /* Should no function that logs such constants be near, the
         * strategies of a message no template took place it. */
        if (r.act != m->other && r.act != UINT32_MAX && !m->dry)
            note_unplaced(m, r.act, ev, text, len);
        return r;
    }
    if (ns == 1 && told_message(m, &r, emits[0], syms[0], text, len))
        return r;
    r.act = m->tmpl_act[emits[0]];
    created = false;
    if (r.act == UINT32_MAX) {
        const char *t = map__template_text(m->g, emits[0]);
        r.act = activity_get(m, t, strlen(t), &created);
        if (r.act == m->other || r.act == UINT32_MAX)
            return r;
        if (!m->dry)
            m->tmpl_act[emits[0]] = r.act;
    }
    if (!created && !same_set(m, r.act, syms, ns)) {
        /* The same text logged by other sites (another logger, level or
         * module narrowed it): an activity of its own. */
        core_buf_reset(&m->tmp);
        core_buf_puts(&m->tmp, core_strtab_str(&m->strs, m->acts.v[r.act].text));
        for (uint32_t i = 0; i < ns; i++) {
            graph_symbol s;
            graph_get_symbol(m->g, syms[i], &s);
            core_buf_printf(&m->tmp, "%s%s", i ? "|" : " @", s.qualname);
        }
        r.act = activity_get(m, m->tmp.data, m->tmp.len, &created);
        if (r.act == m->other || r.act == UINT32_MAX)
            return r;
    }
    act_rec *a = &m->acts.v[r.act];
    if (created || (!m->dry && a->nsyms == 0 && a->strategy == MAP_BY_NONE)) {
        map__activity_set_even(m, r.act, MAP_BY_TEMPLATE, syms, ns);
        map__activity_set_cands(m, r.act, syms, ns);
    }
    if (ns > 1) {
        if (created)
            m->acts.v[r.act].amb = MAP_AMB_TIED;
        map_ambiguity how = MAP_AMB_MESSAGE;
        uint32_t named =
            named_candidate(m, text, len, map__template_text(m->g, emits[0]), syms, ns);
        /* The class of the object logging, when the message names it (a
         * repr of self): its sites, as a class an earlier event of the
         * case named picks them (class_pick). */
        if (named == GRAPH_NONE) {
            uint32_t cls = map__class_told(m, r.act, text);
            double none[MAX_CAND] = {0};
            map__case c = {.told = &cls, .ntold = 1};
            if (cls != GRAPH_NONE)
                named = class_pick(m, r.act, &c, none);
        }
        if (!m->dry && !m->acts.v[r.act].logger_handed)
            m->acts.v[r.act].logger_handed = logger_handed(m, emits, n);
        uint32_t member = named == GRAPH_NONE ? UINT32_MAX : group_member(m, r.act, named);
        if (member == UINT32_MAX) {
            member = logger_member(m, r.act, &r, ev->logger);
            how = MAP_AMB_LOGGER;
        }
        if (member != UINT32_MAX) {
            if (!m->dry)
                m->acts.v[member].amb = how;
            r.act = member;
        } else {
            r.group = r.act;
            r.act = UINT32_MAX;
        }
    }
    return r;
}

/* An activity for one of a group's candidates: "TEMPLATE @ qualname". */
static uint32_t group_member(map_mapper *m, uint32_t group, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(m->g, sym, &s);
    core_buf_reset(&m->tmp);
    core_buf_printf(&m->tmp, "%s @%s", core_strtab_str(&m->strs, m->acts.v[group].text),
                    s.qualname);
    bool created;
    uint32_t a = activity_get(m, m->tmp.data, m->tmp.len, &created);
    if (created) {
        float one = 1.0f;
        map_strategy st = m->acts.v[group].strategy;
        if (st != MAP_BY_LOGGER && st != MAP_BY_CONST)
            st = MAP_BY_TEMPLATE;
        map__activity_set_syms(m, a, st, &sym, &one, 1);
        m->acts.v[a].amb = MAP_AMB_CASE;
    }
    return a;
}

/* ---- duplicates named by the message ---- */

static bool ident_byte(unsigned char c)
{
    return c == '_' || c == '$' || (c >= '0' && c <= '9') ||
           ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80;
}

/* Whether name occurs in text as a whole identifier. */
bool map__names_word(const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return false;
    for (const char *p = text; (size_t)(p - text) + n <= len;) {
        const char *q = memmem(p, len - (size_t)(p - text), name, n);
        if (!q)
            return false;
        bool left = q == text || !ident_byte((unsigned char)q[-1]);
        bool right = (size_t)(q - text) + n == len || !ident_byte((unsigned char)q[n]);
        if (left && right)
            return true;
        p = q + 1;
    }
    return false;
}

/* The names a message may show of the code logging it: the function's and
 * its class's (a repr, a rendered qualified name), when long enough to be
 * told from ordinary words. */
static uint32_t own_names(const graph *g, uint32_t sym, const char **names)
{
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    uint32_t k = 0;
    if (strlen(s.name) >= 6)
        names[k++] = s.name;
    if (s.parent != GRAPH_NONE) {
        graph_symbol p;
        graph_get_symbol(g, s.parent, &p);
        if (p.kind != GRAPH_SYM_MODULE && strlen(p.name) >= 4)
            names[k++] = p.name;
    }
    return k;
}

size_t map__first_of(const nb_rec *v, size_t n, uint32_t act)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].act < act)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a caller of sym passes it a literal the message shows (as a
 * whole word, and not one of the template's own) that no caller of any
 * other candidate passes. */
static bool passed_literal(const map_mapper *m, uint32_t sym, const char *text, size_t len,
                           const char *tmpl, const uint32_t *syms, uint32_t ns)
{
    for (size_t k = map__first_of(m->passed.v, m->passed.n, sym);
         k < m->passed.n && m->passed.v[k].act == sym; k++) {
        graph_emit e;
        graph_get_emit(m->g, m->passed.v[k].nb, &e);
        if (!map__names_word(text, len, e.tmpl) || map__names_word(tmpl, strlen(tmpl), e.tmpl))
            continue;
        bool shared = false;
        for (uint32_t j = 0; j < ns && !shared; j++) {
            if (syms[j] == sym)
                continue;
            for (size_t q = 0; q < m->passed.n && !shared; q++) {
                if (m->passed.v[q].act != syms[j])
                    continue;
                graph_emit o;
                graph_get_emit(m->g, m->passed.v[q].nb, &o);
                shared = strcmp(o.tmpl, e.tmpl) == 0;
            }
        }
        if (!shared)
            return true;
    }
    return false;
}

/*
 * Several sites log one template, and what fills its holes often names
 * the code that logs it: a repr names the class of the object that logs,
 * a caller's qualified name is rendered, a record names its kind, a
 * caller hands the function a literal it logs (`_log_agreement("Cipher",
 * ...)` for "Cipher: aes128-ctr"). The candidate whose function or class
 * name, or a literal a caller passes it, the message shows as a whole
 * word, where nothing of another candidate's shows and the template
 * itself does not hold it, is named by the message. Else a class the
 * message shows that the code links to one candidate only
 * (linked_by_class). GRAPH_NONE otherwise.
 */
static uint32_t linked_by_class(map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns);

static uint32_t named_candidate(map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns)
{
    uint32_t arg = GRAPH_NONE, naming = 0;
    for (uint32_t i = 0; i < ns && naming < 2; i++) {
        const char *names[2];
        uint32_t nn = own_names(m->g, syms[i], names);
        bool named = false;
        for (uint32_t k = 0; k < nn && !named; k++) {
            if (map__names_word(tmpl, strlen(tmpl), names[k]))
                continue; /* in every rendering */
            /* a name the candidates share tells none of them */
            bool shared = false;
            for (uint32_t j = 0; j < ns && !shared; j++) {
                const char *other[2];
                uint32_t no = j == i ? 0 : own_names(m->g, syms[j], other);
                for (uint32_t q = 0; q < no; q++)
                    shared |= strcmp(other[q], names[k]) == 0;
            }
            named = !shared && map__names_word(text, len, names[k]);
        }
        if (!named)
            named = passed_literal(m, syms[i], text, len, tmpl, syms, ns);
        if (named) {
            naming++;
            arg = syms[i];
        }
    }
    if (naming == 1)
        return arg;
    return naming == 0 ? linked_by_class(m, text, len, tmpl, syms, ns) : GRAPH_NONE;
}

uint32_t map__symbol_at(const map_mapper *m, const char *path, uint32_t line, const char *func)
{
    if (!path || !path[0])
        return GRAPH_NONE;
    /* The longest suffix of path on '/' boundaries that is a graph file. */
    const char *p = path;
    uint32_t file = UINT32_MAX;
    while (p) {
        uint32_t it = 0;
        uint32_t f = core_smap_get(&m->file_by_path, p, strlen(p), &it);
        if (f != UINT32_MAX) {
            file = f;
            break;
        }
        p = strchr(p, '/');
        if (p)
            p++;
    }
    if (file == UINT32_MAX)
        return GRAPH_NONE;
    graph_file_info fi;
    graph_get_file(m->g, file, &fi);
    uint32_t best = GRAPH_NONE, best_span = UINT32_MAX;
    /* Symbols of a file are contiguous after its module. */
    for (uint32_t id = fi.module + 1; id < graph_nsymbols(m->g); id++) {
        graph_symbol s;
        graph_get_symbol(m->g, id, &s);
        if (s.file_id != file)
            break;
        if (s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD)
            continue;
        bool in = line ? (s.start_line <= line && line <= s.end_line)
                       : (func && strcmp(s.name, func) == 0);
        if (in && s.end_line - s.start_line < best_span) {
            best = id;
            best_span = s.end_line - s.start_line;
        }
    }
    return best == GRAPH_NONE && line ? fi.module : best;
}

/* The symbol code.* attributes name, through a cache: a log repeats a
 * few locations many times. */
static uint32_t code_symbol(map_mapper *m, const map_event *ev)
{
    uint64_t h = core_hash64(&ev->code_line, sizeof ev->code_line, 0x636f6465);
    const char *parts[] = {ev->code_file, ev->code_function, ev->code_namespace};
    for (int i = 0; i < 3; i++)
        h = parts[i] ? core_hash64(parts[i], strlen(parts[i]), h + (uint64_t)i) : h * 31 + 7;
    bool ins;
    uint64_t *v = core_map_put(&m->code_cache, map__key64(h), &ins);
    if (!ins)
        return (uint32_t)(*v - 1);
    uint32_t s = map__symbol_at(m, ev->code_file, ev->code_line, ev->code_function);
    if (s == GRAPH_NONE && ev->code_function) {
        /* code.function.name may be fully qualified; code.namespace gives
         * the rest. */
        core_buf_reset(&m->tmp);
        if (ev->code_namespace && ev->code_namespace[0])
            core_buf_printf(&m->tmp, "%s.%s", ev->code_namespace, ev->code_function);
        else
            core_buf_puts(&m->tmp, ev->code_function);
        uint32_t ids[2];
        if (graph_find(m->g, m->tmp.data, ids, 2) == 1)
            s = ids[0];
    }
    *v = (uint64_t)s + 1;
    return s;
}

static void note_pair(core_map *index, nb_vec *vec, uint32_t act, uint32_t nb, bool after)
{
    uint64_t key = map__key64(((uint64_t)act << 32) | nb);
    bool ins;
    uint64_t *v = core_map_put(index, key, &ins);
    if (ins) {
        core_vec_push(vec, ((nb_rec){act, nb, 0, 0}));
        *v = vec->n - 1;
    }
    vec->v[*v].count++;
    vec->v[*v].after += after;
}

static void note_neighbour(map_mapper *m, uint32_t act, uint32_t nb, bool after)
{
    note_pair(&m->nb_index, &m->nbs, act, nb, after);
}

/* A distinct message's key in the cache: its text, logger and level. */
static uint64_t message_key(const map_event *ev)
{
    const char *text = ev->text ? ev->text : "";
    size_t len = ev->text ? ev->len : 0;
    uint64_t h = core_hash64(text, len, 0x6d7367);
    if (ev->logger)
        h = core_hash64(ev->logger, strlen(ev->logger), h);
    if (ev->level)
        h = core_hash64(ev->level, strlen(ev->level), h ^ 0x1e7e1);
    return map__key64(h);
}

/* A group in a case's context: the group, the recent activities and the
 * variants told. */
static uint64_t amb_key(uint32_t group, const map__case *c)
{
    uint64_t h = core_hash_u64(((uint64_t)group << 32) | c->nrecent);
    for (uint32_t i = 0; i < c->nrecent; i++)
        h = core_hash_u64(h ^ ((uint64_t)c->recent[i] + 1) * 0x9e3779b97f4a7c15ull);
    /* The variants told count apart from the recent activities (ids of
     * another space). */
    for (uint32_t i = 0; i < c->ntold; i++)
        h = core_hash_u64(h ^ ((uint64_t)c->told[i] + 1) * 0xc2b2ae3d27d4eb4full);
    return map__key64(h);
}

/*
 * A message several sites log, in a case whose recent activities are
 * these: the member of the candidate the case clearly points at, else the
 * group itself (all of them, weighted by what the training cases said,
 * at finish). Cached per context; dry, nothing is created or kept.
 */
static amb_rec resolve_ambiguous(map_mapper *m, uint32_t group, const map__case *c)
{
    uint64_t k = amb_key(group, c);
    const uint64_t *a = core_map_get(&m->amb_cache, k);
    if (a)
        return m->ambs.v[*a - 1];
    double sc[MAX_CAND] = {0}, other[MAX_CAND] = {0};
    context_scores(m, group, c->recent, c->nrecent, sc, other);
    bool several = false;
    uint32_t s = class_pick(m, group, c, sc);
    bool variants = s == GRAPH_NONE && map__variants(m, group) && !m->acts.v[group].side_by_side;
    if (variants)
        s = map__pick_recent(m, group, c, &several);
    /* (Parallel classes, each a version of the part that a connection
     * runs, may take turns in one case: the contexts that show one of
     * them still tell it.) */
    if (several && !m->dry && !parallel_group(m, group))
        m->acts.v[group].side_by_side = true;
    /* What the training cases say of the group weighs its sites where
     * nothing tells them apart: only the contexts that told nothing
     * either say it (a case that tells its variant is apt to be of the
     * one with texts of its own, and says nothing of those that do not). */
    uint32_t nc = map__group_size(m, group);
    if (s != GRAPH_NONE)
        for (uint32_t i = 0; i < nc; i++)
            other[i] = 0;
    /* Variants of one part are all about as near to what the case ran:
     * nearness alone does not tell them apart (what the rest of the log
     * runs weighs them, at finish), unless the case shows them side by
     * side. */
    if (s == GRAPH_NONE && (!variants || several))
        s = clear_candidate(m, group, sc);
    amb_rec r = {.act = s == GRAPH_NONE ? group : group_member(m, group, s)};
    if (r.act == UINT32_MAX)
        r.act = group; /* dry: that member was never seen */
    if (m->dry)
        return r;
    double sum = 0;
    for (uint32_t i = 0; i < nc; i++)
        sum += other[i];
    if (sum > 0) {
        r.scored = true;
        r.score_off = (uint32_t)m->amb_scores.n;
        for (uint32_t i = 0; i < nc; i++)
            core_vec_push(&m->amb_scores, (float)(other[i] / sum));
    }
    if (m->ambs.n < msg_cap(m)) {
        core_vec_push(&m->ambs, r);
        bool ins;
        *core_map_put(&m->amb_cache, k, &ins) = m->ambs.n;
    }
    return r;
}

/* A training case's context scored a group's candidates: their sums grow. */
static void amb_learn(map_mapper *m, uint32_t group, const amb_rec *r)
{
    if (!r->scored)
        return;
    uint32_t nc = map__group_size(m, group);
    bool ins;
    uint64_t *v = core_map_put(&m->acc_index, map__key64(group), &ins);
    if (ins) {
        *v = m->amb_acc.n;
        for (uint32_t i = 0; i < nc; i++)
            core_vec_push(&m->amb_acc, 0.0);
        core_vec_push(&m->acc_groups, group);
    }
    for (uint32_t i = 0; i < nc; i++)
        m->amb_acc.v[*v + i] += m->amb_scores.v[r->score_off + i];
}

/* Whether a cached resolution still holds: a match, or no match with no
 * callee shown to log since (a match may come from one). */
static bool msg_current(const map_mapper *m, const msg_rec *r)
{
    return r->gen == UINT32_MAX || r->gen == m->listed_gen;
}

/* A cached message, resolved again when it no longer holds. */
static msg_rec cached_message(map_mapper *m, size_t slot, const map_event *ev)
{
    msg_rec r = m->msgs.v[slot];
    if (msg_current(m, &r))
        return r;
    r = resolve_message(m, ev);
    m->msgs.v[slot] = r;
    return r;
}

static uint64_t msg_fixed(uint32_t act, uint32_t variant)
{
    return MSG_FIXED | (uint64_t)act << 32 | variant;
}

static uint32_t msg_fixed_act(uint64_t v)
{
    return (uint32_t)((v & ~MSG_FIXED) >> 32);
}

/* The case as mapping reads it: its last MAP_RECENT activities. */
static map__case case_view(const uint32_t *recent, uint32_t nrecent, const uint32_t *told,
                           uint32_t ntold)
{
    if (nrecent > MAP_RECENT) {
        recent += nrecent - MAP_RECENT;
        nrecent = MAP_RECENT;
    }
    return (map__case){recent, nrecent, told, told ? ntold : 0};
}

void map_mapper_peek(map_mapper *m, const map_event *ev, const uint32_t *recent, uint32_t nrecent,
                     const uint32_t *told, uint32_t ntold, uint32_t *activity, uint32_t *variant,
                     const char **text)
{
    map__case c = case_view(recent, nrecent, told, ntold);
    const uint64_t *v = core_map_get(&m->msg_cache, message_key(ev));
    if (v && (*v & MSG_FIXED)) {
        *activity = msg_fixed_act(*v);
        *variant = (uint32_t)*v;
        *text = core_strtab_str(&m->strs, m->acts.v[*activity].text);
        return;
    }
    msg_rec r;
    m->dry = true;
    bool cached = v && msg_current(m, &m->msgs.v[*v - 1]);
    r = cached ? m->msgs.v[*v - 1] : resolve_message(m, ev);
    uint32_t act = r.act;
    /* (resolve_message asked the record's source already) */
    if (cached && act == UINT32_MAX && r.group != UINT32_MAX)
        act = logger_member(m, r.group, &r, ev->logger);
    group_if_placed(m, &act, &r.group);
    if (act == UINT32_MAX && r.group != UINT32_MAX)
        act = resolve_ambiguous(m, r.group, &c).act;
    m->dry = false;
    *activity = act;
    *variant = UINT32_MAX;
    if (act == UINT32_MAX) {
        *text = m->peek_text.data ? m->peek_text.data : "";
        return;
    }
    *text = core_strtab_str(&m->strs, m->acts.v[act].text);
    const uint64_t *w =
        r.masked == MASKED_NONE ? NULL : core_map_get(&m->var_by_key, variant_key(act, r.masked));
    if (w)
        *variant = (uint32_t)(*w - 1);
}

void map_mapper_map(map_mapper *m, const map_event *ev, const uint32_t *recent, uint32_t nrecent,
                    const uint32_t *told, uint32_t ntold, uint32_t *activity, uint32_t *variant)
{
    map__case kase = case_view(recent, nrecent, told, ntold);
    uint32_t prev = kase.nrecent ? kase.recent[kase.nrecent - 1] : UINT32_MAX;
    uint64_t h = message_key(ev);
    bool ins = false;
    msg_rec r = {UINT32_MAX, UINT32_MAX, UINT32_MAX, MASKED_NONE, 0, false};
    uint64_t *v;
    uint32_t act, var = UINT32_MAX;
    /* Cache full: known messages from it, others resolved each time. */
    if (m->msg_cache.n >= msg_cap(m))
        v = core_map_get(&m->msg_cache, h);
    else
        v = core_map_put(&m->msg_cache, h, &ins);
    /* A message fixed before finish() made its activity one each case
     * decides (a constant's several functions) is resolved again. */
    bool fixed = v && !ins && (*v & MSG_FIXED);
    if (fixed && !placed_at_sites(m, msg_fixed_act(*v))) {
        act = msg_fixed_act(*v);
        var = (uint32_t)*v;
        goto mapped;
    }
    if (!v || ins || fixed)
        r = resolve_message(m, ev);
    else
        r = cached_message(m, (size_t)*v - 1, ev);
    act = r.act;
    /* A group's logger may name its site once more of the log was seen
     * than when the message was first resolved and cached (a message
     * resolved just now was asked in resolve_message). */
    if (v && !ins && act == UINT32_MAX && r.group != UINT32_MAX)
        act = logger_member(m, r.group, &r, ev->logger);
    /* v still points at the entry: nothing above inserts into msg_cache. */
    if (act != UINT32_MAX && r.gen == UINT32_MAX) {
        /* Nothing about this message can change: keep the outcome. */
        var = variant_get(m, act, r.masked, ev);
        if (v)
            *v = msg_fixed(act, var);
    } else if (ins && v) { /* ins: v came from core_map_put */
        core_vec_push(&m->msgs, r);
        *v = m->msgs.n;
    }
    group_if_placed(m, &act, &r.group);
    if (act == UINT32_MAX) {
        amb_rec ar = resolve_ambiguous(m, r.group, &kase);
        act = ar.act;
        var = UINT32_MAX; /* the variant is the member's, not the group's */
        if (ev->learn)
            amb_learn(m, r.group, &ar);
    }
mapped:
    m->acts.v[act].count++;
    if (ev->learn && m->o.use_code_attrs && act != m->other &&
        (ev->code_file || ev->code_function)) {
        uint32_t s = code_symbol(m, ev);
        if (s != GRAPH_NONE) {
            uint64_t key = map__key64(((uint64_t)act << 32) | s);
            uint64_t *c = core_map_put(&m->code_votes, key, &ins);
            if (ins) {
                core_vec_push(&m->votes, ((nb_rec){act, s, 0, 0}));
                *c = m->votes.n - 1;
            }
            m->votes.v[*c].count++;
            m->acts.v[act].tried = false;
        }
    }
    /* The neighbourhood of activities no template maps. */
    if (ev->learn && prev != UINT32_MAX && prev < m->acts.n) {
        if (m->acts.v[act].nsyms == 0 && m->acts.v[prev].nsyms > 0)
            note_neighbour(m, act, prev, false);
        if (m->acts.v[prev].nsyms == 0) {
            m->acts.v[prev].followed++;
            if (m->acts.v[act].nsyms > 0)
                note_neighbour(m, prev, act, true);
        }
        /* Two unmapped messages in a row ("global-requests-ok: " then
         * "server-sig-algs: ...", each "  %s: %s" after a header): the
         * place of one is where the other is, once that is known. */
        if (m->acts.v[act].nsyms == 0 && m->acts.v[prev].nsyms == 0 && act != prev &&
            act != m->other && prev != m->other) {
            note_pair(&m->chain_index, &m->chain, act, prev, false);
            note_pair(&m->chain_index, &m->chain, prev, act, true);
        }
    }
    *activity = act;
    *variant = var != UINT32_MAX ? var : variant_get(m, act, r.masked, ev);
}

uint32_t map_mapper_nactivities(const map_mapper *m)
{
    return (uint32_t)m->acts.n;
}

void map_mapper_activity(const map_mapper *m, uint32_t id, map_activity *out)
{
    const act_rec *a = &m->acts.v[id];
    out->text = core_strtab_str(&m->strs, a->text);
    out->strategy = (map_strategy)a->strategy;
    out->nsyms = a->nsyms;
    out->syms = a->nsyms ? m->syms.v + a->sym_off : NULL;
    out->conf = a->nsyms ? m->conf.v + a->sym_off : NULL;
    out->count = a->count;
    out->nvariants = a->nvariants;
    out->amb = (map_ambiguity)a->amb;
}

uint32_t map_mapper_nvariants(const map_mapper *m)
{
    return (uint32_t)m->var_act.n;
}

uint32_t map_mapper_variant(const map_mapper *m, uint32_t id, const char **text)
{
    if (text)
        *text = core_strtab_str(&m->strs, m->var_text.v[id]);
    return m->var_act.v[id];
}

uint32_t map_mapper_find(const map_mapper *m, const char *text)
{
    uint32_t off = core_strtab_find(&m->strs, text, strlen(text));
    if (off == UINT32_MAX)
        return UINT32_MAX;
    uint64_t *v = core_map_get(&m->act_by_text, off);
    return v ? (uint32_t)*v : UINT32_MAX;
}

uint32_t map__restore(map_mapper *m, const map_activity *a, const uint32_t *cands, uint32_t ncand,
                      bool has_const, const map__restore_how *how)
{
    bool created;
    uint32_t id = activity_get(m, a->text, strlen(a->text), &created);
    if (!created && how && how->alias && id != m->other) {
        /* Its text's first activity stays the one the text finds. */
        act_rec r = {.text = m->acts.v[id].text};
        core_vec_push(&m->acts, r);
        id = (uint32_t)(m->acts.n - 1);
        created = true;
    }
    if (!created)
        return id;
    map__activity_set_syms(m, id, a->strategy, a->syms, a->conf, a->nsyms);
    map__activity_set_cands(m, id, cands, ncand);
    m->acts.v[id].has_const = has_const;
    m->acts.v[id].error_text = how && how->error_text;
    m->acts.v[id].tried = !how || !how->untried;
    m->acts.v[id].count = a->count;
    for (uint32_t i = 0; how && i < how->nemits; i++)
        if (m->tmpl_act[how->emits[i]] == UINT32_MAX)
            m->tmpl_act[how->emits[i]] = id;
    return id;
}

uint32_t map_mapper_restore_variant(map_mapper *m, uint32_t act, const char *text)
{
    core_buf_reset(&m->masked_text);
    core_buf_puts(&m->masked_text, text);
    m->masked_of = masked_hash(text, strlen(text));
    return variant_get(m, act, m->masked_of, NULL);
}

bool map__error_text(const map_mapper *m, uint32_t act)
{
    return m->acts.v[act].error_text;
}

uint32_t map__candidates(const map_mapper *m, uint32_t act, const uint32_t **cands, bool *has_const)
{
    const act_rec *a = &m->acts.v[act];
    *cands = a->ncand ? m->cands.v + a->cand_off : NULL;
    *has_const = a->has_const;
    return a->ncand;
}

/* ---- what the case's revision (below) reads and changes ---- */

const float *map__near(map_mapper *m, uint32_t src, uint32_t group)
{
    return near_from(m, src, group);
}

uint32_t map__member(map_mapper *m, uint32_t group, uint32_t sym)
{
    uint32_t a = group_member(m, group, sym);
    return a == m->other ? UINT32_MAX : a;
}

size_t map__text_base_len(const char *text)
{
    const char *at = NULL;
    for (const char *p = strstr(text, " @"); p; p = strstr(p + 1, " @"))
        at = p;
    return at ? (size_t)(at - text) : strlen(text);
}

uint32_t map__member_group(const map_mapper *m, uint32_t act)
{
    const act_rec *a = &m->acts.v[act];
    const char *text = core_strtab_str(&m->strs, a->text);
    size_t base = map__text_base_len(text);
    if (!text[base] || a->nsyms != 1)
        return UINT32_MAX;
    uint32_t off = core_strtab_find(&m->strs, text, base);
    const uint64_t *v = off == UINT32_MAX ? NULL : core_map_get(&m->act_by_text, off);
    if (!v || *v == act || !is_candidate(m, (uint32_t)*v, m->syms.v[a->sym_off]))
        return UINT32_MAX;
    return (uint32_t)*v;
}

bool map__side_by_side(const map_mapper *m, uint32_t group)
{
    return m->acts.v[group].side_by_side;
}

void map__recount(map_mapper *m, uint32_t from, uint32_t to)
{
    m->acts.v[from].count--;
    m->acts.v[to].count++;
}

/* Whether symbol u is in a file set aside. */
bool map__symbol_aside(const map_mapper *m, uint32_t u)
{
    if (!m->aside)
        return false;
    graph_symbol s;
    graph_get_symbol(m->g, u, &s);
    graph_file_info fi;
    graph_get_file(m->g, s.file_id, &fi);
    return (m->aside >> fi.role) & 1u;
}

/* ---- variants told apart by the case ----
 *
 * A template whose sites are variants, told apart by the case (map.h:
 * map_mapper_revise, and map_mapper_map's choice for such sites).
 *
 * Variants of one piece of code (a subclass overriding its base's
 * methods: the asynchronous class of a synchronous one, a platform's of a
 * portable one) log the same text, and the object a case runs is of one
 * of them: the sites the case's other events come from say which. Each
 * such site is consistent with some candidates: those an object of its
 * class may run, when its class overrides the others' methods (a
 * subclass's own event says the object is one); else those whose class
 * or module the code links to its own (or to a subclass that runs its
 * method); else the one it is clearly nearest to over the code graph. A
 * method every candidate's class runs (a base class's constructor) is
 * consistent with all, however near the walk finds it to the base's own
 * methods. The candidate consistent with every site is the one; sites
 * consistent with different variants mean the case runs objects of
 * several, and from then on the recent events' nearness decides for that
 * template, as for sites of one class.
 */

/* The most classes the object running a method is looked for among, and
 * known not to be. */
#define RUNNERS_MAX 32
#define NOT_RUNNERS_MAX 16
/* How far up a class hierarchy a method is looked for. */
#define CLASS_DEPTH 8
/* Nearness below this is the walk's noise (twice the push's threshold,
 * map__near's eps): a candidate no nearer is not reached at all. */
#define NEAR_MIN 2e-4
/* A site is clearly nearest to a candidate at least this much nearer to
 * it than to any other (the bar of the mapper's choice by the recent
 * events). */
#define CLEAR_RATIO 2.0

/* The class whose method sym is, or GRAPH_NONE. */
static uint32_t class_of(const graph *g, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    if (s.kind != GRAPH_SYM_METHOD || s.parent == GRAPH_NONE)
        return GRAPH_NONE;
    graph_symbol p;
    graph_get_symbol(g, s.parent, &p);
    return p.kind == GRAPH_SYM_CLASS ? s.parent : GRAPH_NONE;
}

/* The method named name that an object of class cls runs: cls's own, or
 * the nearest class it inherits from that has one (depth first, as a
 * single-inheritance chain resolves); GRAPH_NONE when none has. */
static uint32_t dispatch(const graph *g, uint32_t cls, const char *name, uint32_t depth)
{
    uint32_t n;
    const graph_edge *e = graph_in_edges(g, cls, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].type != GRAPH_EDGE_MEMBER_OF)
            continue;
        graph_symbol s;
        graph_get_symbol(g, e[i].node, &s);
        if (s.kind == GRAPH_SYM_METHOD && strcmp(s.name, name) == 0)
            return e[i].node;
    }
    if (depth == 0)
        return GRAPH_NONE;
    e = graph_out_edges(g, cls, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].type != GRAPH_EDGE_INHERITS)
            continue;
        uint32_t r = dispatch(g, e[i].node, name, depth - 1);
        if (r != GRAPH_NONE)
            return r;
    }
    return GRAPH_NONE;
}

/* Whether evidence site sym runs whichever of the candidates runs: a
 * method that an object of every candidate's class runs (one they all
 * inherit, and none overrides). */
static bool shared_by_all(const graph *g, uint32_t sym, const uint32_t *cands, uint32_t nc)
{
    if (class_of(g, sym) == GRAPH_NONE)
        return false;
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t c = class_of(g, cands[i]);
        if (c == GRAPH_NONE || dispatch(g, c, s.name, CLASS_DEPTH) != sym)
            return false;
    }
    return true;
}

bool map__runs_in_all(const map_mapper *m, uint32_t group, uint32_t sym)
{
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, group, &cands, &has_const);
    return map__variants(m, group) && shared_by_all(map_mapper_graph(m), sym, cands, nc);
}

/* Which candidates an object running evidence site sym may run: a
 * method's class resolves each candidate's name (its own method, else
 * the nearest inherited one), and a candidate that name resolves to
 * another one of is hidden by that override. Sets run[i]; returns
 * whether any candidate is hidden (else the class tells nothing). */
static bool dispatched(const graph *g, uint32_t sym, const uint32_t *cands, uint32_t nc, bool *run)
{
    uint32_t cls = class_of(g, sym);
    bool hidden = false;
    for (uint32_t i = 0; i < nc; i++) {
        run[i] = true;
        graph_symbol c;
        graph_get_symbol(g, cands[i], &c);
        uint32_t r = cls == GRAPH_NONE || class_of(g, cands[i]) == GRAPH_NONE
                         ? GRAPH_NONE
                         : dispatch(g, cls, c.name, CLASS_DEPTH);
        for (uint32_t j = 0; j < nc && r != cands[i]; j++)
            if (r == cands[j])
                run[i] = false;
        hidden |= !run[i];
    }
    return hidden;
}

/*
 * What a message's holes hold can name the variant too: a mode's or a
 * backend's name that one variant's code holds as a literal (`return
 * ['eventlet', 'threading']` in the synchronous server's async_modes,
 * `['aiohttp', ...]` in the asynchronous one's) and that a method every
 * variant inherits logs ("Server initialized for threading."). A word
 * the overriding method holds as well (a key both build their replies
 * with) tells nothing, and neither does one that many functions hold.
 */
#define VALUE_OWNERS_MAX 4
/* Only the start of a long message is read for such words. */
#define VALUE_TEXT_MAX 512

/* The next word of text (a run of bytes in_word takes) from *at on, in
 * the first VALUE_TEXT_MAX bytes: its offset *wo and length *wn; *at moves
 * past it. False when there is none. */
static bool next_word(const char *text, size_t len, bool (*in_word)(unsigned char), size_t *at,
                      size_t *wo, size_t *wn)
{
    if (len > VALUE_TEXT_MAX)
        len = VALUE_TEXT_MAX;
    size_t i = *at;
    while (i < len && !in_word((unsigned char)text[i]))
        i++;
    size_t j = i;
    while (j < len && in_word((unsigned char)text[j]))
        j++;
    *at = j;
    *wo = i;
    *wn = j - i;
    return j > i;
}

static bool holds(const uint32_t *owners, uint32_t n, uint32_t sym)
{
    for (uint32_t i = 0; i < n; i++)
        if (owners[i] == sym)
            return true;
    return false;
}

/* Whether classes a and b log as variants: a method of one and the
 * same-named method of the other log the same text. */
static bool log_alike(const graph *g, uint32_t a, uint32_t b)
{
    uint32_t na;
    const graph_edge *ea = graph_in_edges(g, a, &na);
    for (uint32_t i = 0; i < na; i++) {
        if (ea[i].type != GRAPH_EDGE_MEMBER_OF)
            continue;
        uint32_t first, k = graph_symbol_emits(g, ea[i].node, &first);
        if (k == 0)
            continue;
        graph_symbol s;
        graph_get_symbol(g, ea[i].node, &s);
        uint32_t o = dispatch(g, b, s.name, 0);
        uint32_t of, ok = o == GRAPH_NONE ? 0 : graph_symbol_emits(g, o, &of);
        for (uint32_t x = 0; x < k; x++)
            for (uint32_t y = 0; y < ok; y++) {
                graph_emit ex, ey;
                graph_get_emit(g, first + x, &ex);
                graph_get_emit(g, of + y, &ey);
                if (ex.kind != GRAPH_EMIT_CALL && ex.tmpl[0] && strcmp(ex.tmpl, ey.tmpl) == 0)
                    return true;
            }
    }
    return false;
}

/* The most sibling classes looked at from one class. */
#define SIBLINGS_MAX 64

/* The classes beside cls under a base it inherits from directly (up to
 * max, each once). */
static uint32_t siblings(const graph *g, uint32_t cls, uint32_t *out, uint32_t max)
{
    uint32_t n = 0, nb;
    const graph_edge *up = graph_out_edges(g, cls, &nb);
    for (uint32_t b = 0; b < nb; b++) {
        if (up[b].type != GRAPH_EDGE_INHERITS)
            continue;
        uint32_t ns;
        const graph_edge *side = graph_in_edges(g, up[b].node, &ns);
        for (uint32_t k = 0; k < ns && n < max; k++)
            if (side[k].type == GRAPH_EDGE_INHERITS && side[k].node != cls &&
                !holds(out, n, side[k].node))
                out[n++] = side[k].node;
    }
    return n;
}

/* Whether a registry's word for class cls (graph_literal_at) names it
 * among variants: no other class owns the word, and a class it inherits
 * from, one inheriting from it or one beside it under a common base logs
 * alike (a worker's kind among the workers that log the same texts). */
static bool class_telling(const graph *g, uint32_t cls, const uint32_t *owners, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol o;
        graph_get_symbol(g, owners[i], &o);
        if (owners[i] != cls && o.kind == GRAPH_SYM_CLASS)
            return false;
    }
    for (int dir = 0; dir < 2; dir++) {
        uint32_t ne;
        const graph_edge *e = dir ? graph_in_edges(g, cls, &ne) : graph_out_edges(g, cls, &ne);
        for (uint32_t i = 0; i < ne; i++)
            if (e[i].type == GRAPH_EDGE_INHERITS && log_alike(g, cls, e[i].node))
                return true;
    }
    uint32_t sib[SIBLINGS_MAX], ns = siblings(g, cls, sib, SIBLINGS_MAX);
    for (uint32_t k = 0; k < ns; k++)
        if (log_alike(g, cls, sib[k]))
            return true;
    return false;
}

uint32_t map__add_sibling_variants(const graph *g, uint32_t *syms, double *w, uint32_t n,
                                   uint32_t cap)
{
    uint32_t out = n;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cls = class_of(g, syms[i]);
        if (cls == GRAPH_NONE)
            continue;
        graph_symbol s;
        graph_get_symbol(g, syms[i], &s);
        uint32_t sib[SIBLINGS_MAX], ns = siblings(g, cls, sib, SIBLINGS_MAX);
        for (uint32_t k = 0; k < ns && out < cap; k++) {
            uint32_t o = dispatch(g, sib[k], s.name, 0);
            if (o != GRAPH_NONE && !holds(syms, out, o) && log_alike(g, cls, sib[k])) {
                syms[out] = o;
                w[out++] = w[i];
            }
        }
    }
    return out;
}

static bool share_base(const graph *g, uint32_t a, uint32_t b, uint32_t depth);

bool map__has_sibling_variants(const graph *g, const uint32_t *syms, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ci = class_of(g, syms[i]);
        if (ci == GRAPH_NONE)
            continue;
        graph_symbol si;
        graph_get_symbol(g, syms[i], &si);
        for (uint32_t j = i + 1; j < n; j++) {
            uint32_t cj = class_of(g, syms[j]);
            if (cj == GRAPH_NONE || cj == ci)
                continue;
            graph_symbol sj;
            graph_get_symbol(g, syms[j], &sj);
            if (strcmp(si.name, sj.name) == 0 && share_base(g, ci, cj, CLASS_DEPTH) &&
                log_alike(g, ci, cj))
                return true;
        }
    }
    return false;
}

/* Whether method sym names its class among variants: a class it inherits
 * from or one inheriting from it (directly) has a method of the same
 * name, none of those is among owners (they do not return the word too),
 * and the two classes log alike. */
static bool telling(const graph *g, uint32_t sym, const uint32_t *owners, uint32_t n)
{
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    if (s.kind == GRAPH_SYM_CLASS)
        return class_telling(g, sym, owners, n);
    uint32_t cls = class_of(g, sym);
    if (cls == GRAPH_NONE)
        return false;
    bool other = false;
    for (int dir = 0; dir < 2; dir++) {
        uint32_t ne;
        const graph_edge *e = dir ? graph_in_edges(g, cls, &ne) : graph_out_edges(g, cls, &ne);
        for (uint32_t i = 0; i < ne; i++) {
            if (e[i].type != GRAPH_EDGE_INHERITS)
                continue;
            uint32_t c = dispatch(g, e[i].node, s.name, dir ? 0 : CLASS_DEPTH);
            if (c == GRAPH_NONE || c == sym)
                continue;
            if (holds(owners, n, c))
                return false;
            other |= log_alike(g, cls, class_of(g, c));
        }
    }
    return other;
}

static uint64_t word_hash(const char *s, size_t n)
{
    return map__key64(core_hash64(s, n, 0x776f7264));
}

void map__told_words_init(map_mapper *m)
{
    const graph *g = map_mapper_graph(m);
    uint32_t n = graph_nliterals(g);
    for (uint32_t i = 0; i < n;) {
        uint32_t own[VALUE_OWNERS_MAX], sym;
        const char *t = graph_literal_at(g, i, &sym);
        uint32_t j = i;
        for (; j < n && strcmp(graph_literal_at(g, j, &sym), t) == 0; j++)
            if (j - i < VALUE_OWNERS_MAX)
                own[j - i] = sym;
        uint32_t k = j - i;
        for (uint32_t q = 0; q < k && k <= VALUE_OWNERS_MAX; q++)
            if (!map__symbol_aside(m, own[q]) && telling(g, own[q], own, k)) {
                bool ins;
                *core_map_put(&m->told_words, word_hash(t, strlen(t)), &ins) = i + q + 1;
                break;
            }
        i = j;
    }
}

uint32_t map__value_told(const map_mapper *m, const char *tmpl, const char *text, size_t len,
                         size_t *wo, size_t *wn)
{
    if (m->told_words.n == 0)
        return GRAPH_NONE;
    const graph *g = map_mapper_graph(m);
    size_t at = 0, i, n;
    while (next_word(text, len, graph_value_byte, &at, &i, &n)) {
        const uint64_t *v = core_map_get(&m->told_words, word_hash(text + i, n));
        uint32_t sym;
        const char *lit = v ? graph_literal_at(g, (uint32_t)*v - 1, &sym) : NULL;
        if (lit && strlen(lit) == n && memcmp(lit, text + i, n) == 0 &&
            !map__names_word(tmpl, strlen(tmpl), lit)) {
            *wo = i;
            *wn = n;
            return sym;
        }
    }
    return GRAPH_NONE;
}

/* Whether class anc is cls or one of the classes cls inherits from. */
static bool is_or_inherits(const graph *g, uint32_t cls, uint32_t anc, uint32_t depth)
{
    if (cls == anc)
        return true;
    uint32_t n;
    const graph_edge *e = graph_out_edges(g, cls, &n);
    for (uint32_t i = 0; i < n && depth > 0; i++)
        if (e[i].type == GRAPH_EDGE_INHERITS && is_or_inherits(g, e[i].node, anc, depth - 1))
            return true;
    return false;
}

/*
 * A message often names the class of the object that logs it: a repr
 * (`<EPollReactor object at 0x...>`, `instantiated <MockSyncStrategy>`),
 * `type(self).__name__`, `this.constructor.name`. That object's class
 * runs its own methods and those it inherits, and no other class's, so
 * where one text is logged in several classes of a hierarchy the class
 * named tells which sites the case's object may run: those of its class
 * and of the classes it inherits from, not a sibling's (a platform's
 * variant) nor a subclass's. And where it runs both a method of its own
 * and an inherited one logging that text, its own is the one it put in
 * place of the inherited path. A class is named so only when its name is
 * unique among the graph's classes, at least CLASS_NAME_MIN long, not
 * set aside, and such a text is logged in its hierarchy both where its
 * object runs and where it does not, or both by its own method and an
 * inherited one; and only by a message a method of its hierarchy logs
 * (a class another part's message shows is no object of the case's).
 */
#define CLASS_NAME_MIN 4
/* The most classes of a hierarchy looked at from one class. */
#define FAMILY_MAX 64

/* cls and the classes it inherits from (up) or that inherit from it
 * (down), breadth first, up to max of them. */
static uint32_t hierarchy(const graph *g, uint32_t cls, bool up, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;
    out[n++] = cls;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t ne;
        const graph_edge *e = up ? graph_out_edges(g, out[k], &ne) : graph_in_edges(g, out[k], &ne);
        for (uint32_t i = 0; i < ne && n < max; i++) {
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = out[j] == e[i].node;
            if (e[i].type == GRAPH_EDGE_INHERITS && !dup)
                out[n++] = e[i].node;
        }
    }
    return n;
}

/* Whether classes a and b are of one hierarchy (share a class they are
 * or inherit from). */
static bool related(const graph *g, uint32_t a, uint32_t b)
{
    uint32_t anc[FAMILY_MAX];
    uint32_t n = hierarchy(g, a, true, anc, FAMILY_MAX);
    for (uint32_t i = 0; i < n; i++)
        if (is_or_inherits(g, b, anc[i], CLASS_DEPTH))
            return true;
    return false;
}

/* Marks cls and the classes inheriting from it (up to FAMILY_MAX) that
 * do not inherit from b. */
static void mark_not_under(const graph *g, uint32_t cls, uint32_t b, uint8_t *mark)
{
    uint32_t q[FAMILY_MAX];
    uint32_t n = hierarchy(g, cls, false, q, FAMILY_MAX);
    for (uint32_t k = 0; k < n; k++)
        if (!is_or_inherits(g, q[k], b, CLASS_DEPTH))
            mark[q[k]] = 1;
}

typedef struct tmpl_site {
    uint64_t h; /* the template's hash */
    uint32_t emit, cls;
} tmpl_site;

static void parallel_count(map_mapper *m, const tmpl_site *run, size_t n);

static int cmp_tmpl_site(const void *a, const void *b)
{
    const tmpl_site *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->emit < y->emit ? -1 : x->emit > y->emit;
}

static uint64_t class_name_hash(const char *s, size_t n)
{
    return map__key64(core_hash64(s, n, 0x636c6173));
}

void map__told_classes_init(map_mapper *m)
{
    const graph *g = m->g;
    uint32_t ne = graph_nemits(g), nsym = graph_nsymbols(g);
    core_vec(tmpl_site) sites = {0};
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(g, i, &e);
        uint32_t sym = map__site_emitter(g, i, &e), cls = class_of(g, sym);
        if (!e.tmpl[0] || cls == GRAPH_NONE || map__symbol_aside(m, sym))
            continue;
        core_vec_push(&sites, ((tmpl_site){core_hash64(e.tmpl, strlen(e.tmpl), 0), i, cls}));
    }
    if (sites.n)
        qsort(sites.v, sites.n, sizeof *sites.v, cmp_tmpl_site);
    uint8_t *mark = NULL;
    for (size_t i = 0; i < sites.n;) {
        size_t j = i;
        while (j < sites.n && sites.v[j].h == sites.v[i].h)
            j++;
        parallel_count(m, sites.v + i, j - i);
        for (size_t a = i; a < j && j - i <= MAX_CAND; a++) {
            graph_emit ea;
            graph_get_emit(g, sites.v[a].emit, &ea);
            for (size_t b = i; b < j; b++) {
                uint32_t ca = sites.v[a].cls, cb = sites.v[b].cls;
                graph_emit eb;
                graph_get_emit(g, sites.v[b].emit, &eb);
                if (ca == cb || strcmp(ea.tmpl, eb.tmpl) != 0 || !related(g, ca, cb))
                    continue;
                if (!mark)
                    mark = core_xcalloc(nsym ? nsym : 1, 1);
                /* An object of a's class or below it, not of b's, runs a's
                 * site and not b's; one of a's class runs its own and the
                 * one of a class it inherits from. */
                mark_not_under(g, ca, cb, mark);
                if (is_or_inherits(g, ca, cb, CLASS_DEPTH))
                    mark[ca] = 1;
            }
        }
        i = j;
    }
    core_vec_free(&sites);
    for (uint32_t i = 0; i < nsym; i++) {
        graph_symbol s;
        graph_get_symbol(g, i, &s);
        if (s.kind != GRAPH_SYM_CLASS)
            continue;
        bool ins;
        uint64_t *v = core_map_put(&m->class_names, class_name_hash(s.name, strlen(s.name)), &ins);
        *v = ins ? (uint64_t)i + 1 : (uint64_t)UINT32_MAX + 1;
    }
    if (!mark)
        return;
    for (uint32_t i = 0; i < nsym; i++) {
        graph_symbol s;
        if (!mark[i])
            continue;
        graph_get_symbol(g, i, &s);
        size_t len = strlen(s.name);
        uint64_t h = class_name_hash(s.name, len);
        const uint64_t *v = core_map_get(&m->class_names, h);
        if (len < CLASS_NAME_MIN || !v || *v != (uint64_t)i + 1 || map__symbol_aside(m, i))
            continue;
        bool ins;
        *core_map_put(&m->told_classes, h, &ins) = (uint64_t)i + 1;
    }
    free(mark);
}

uint32_t map__class_told(const map_mapper *m, uint32_t act, const char *text)
{
    if (m->told_classes.n == 0 || act >= m->acts.n)
        return GRAPH_NONE;
    const char *at = core_strtab_str(&m->strs, m->acts.v[act].text);
    size_t atl = map__text_base_len(at), from = 0, i, n;
    while (next_word(text, strlen(text), ident_byte, &from, &i, &n)) {
        const uint64_t *v = n < CLASS_NAME_MIN
                                ? NULL
                                : core_map_get(&m->told_classes, class_name_hash(text + i, n));
        graph_symbol s;
        if (v)
            graph_get_symbol(m->g, (uint32_t)*v - 1, &s);
        if (v && strlen(s.name) == n && memcmp(s.name, text + i, n) == 0 &&
            !map__names_word(at, atl, s.name))
            return (uint32_t)*v - 1;
    }
    return GRAPH_NONE;
}

/*
 * The candidate of group that the classes the case named (told[], the
 * class symbols among them) point at, or GRAPH_NONE: with every candidate
 * a method of a class of the named one's hierarchy, the one candidate an
 * object of that class runs, else the one its class has of its own (of
 * several such, the one sc, the recent events' scores, clearly favours).
 * Of classes named that point at different sites, the one named last
 * decides: a case moves on from one object to the next (the memory keeps
 * them in the order they were first named).
 */
static uint32_t class_pick(const map_mapper *m, uint32_t group, const map__case *c,
                           const double *sc)
{
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, group, &cands, &has_const);
    /* A constant's candidates are its owners until it is placed at the
     * functions that log it. */
    if ((has_const && !placed_at_sites(m, group)) || nc < 2 || nc > MAX_CAND)
        return GRAPH_NONE;
    for (uint32_t t = c->ntold; t-- > 0;) {
        graph_symbol ts;
        graph_get_symbol(m->g, c->told[t], &ts);
        if (ts.kind != GRAPH_SYM_CLASS)
            continue;
        uint32_t nin = 0, nown = 0, in = 0, own = 0, nrel = 0;
        double osc[MAX_CAND] = {0};
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t cls = class_of(m->g, cands[i]);
            if (cls == GRAPH_NONE || !related(m->g, cls, c->told[t]))
                continue;
            nrel++;
            if (is_or_inherits(m->g, c->told[t], cls, CLASS_DEPTH)) {
                nin++, in = i;
                if (cls == c->told[t]) {
                    nown++, own = i;
                    osc[i] = sc[i];
                }
            }
        }
        /* A few candidates outside the named class's hierarchy tell
         * neither way; the choice is among those inside it, when they are
         * most of them (variants the name tells apart, beside a site of
         * some other part). */
        if (nrel < 2 || 2 * nrel <= nc || nin == 0)
            continue;
        uint32_t sym = nin == 1    ? cands[in]
                       : nown == 1 ? cands[own]
                       : nown > 1  ? clear_candidate(m, group, osc)
                                   : GRAPH_NONE;
        if (sym != GRAPH_NONE)
            return sym;
    }
    return GRAPH_NONE;
}

/* Activity act of m into *a; false for an id m does not have (an
 * unknown activity tells nothing). */
static bool activity_of(const map_mapper *m, uint32_t act, map_activity *a)
{
    if (act >= map_mapper_nactivities(m))
        return false;
    map_mapper_activity(m, act, a);
    return true;
}

/* The symbol an event's activity names without doubt (one symbol, not
 * one the case itself chose), or GRAPH_NONE. */
static uint32_t evidence_of(const map_mapper *m, uint32_t act)
{
    map_activity a;
    if (!activity_of(m, act, &a) || a.nsyms != 1 || a.amb == MAP_AMB_CASE)
        return GRAPH_NONE;
    if (a.strategy != MAP_BY_TEMPLATE && a.strategy != MAP_BY_CODE && a.strategy != MAP_BY_OVERRIDE)
        return GRAPH_NONE;
    return map__symbol_aside(m, a.syms[0]) ? GRAPH_NONE : a.syms[0];
}

static uint32_t class_of(const graph *g, uint32_t sym);

/* Whether class c is a leaf of a hierarchy of ours: it has a base class
 * and no subclass. */
static bool leaf_class(const graph *g, uint32_t c)
{
    uint32_t n;
    const graph_edge *e = graph_in_edges(g, c, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].type == GRAPH_EDGE_INHERITS)
            return false;
    e = graph_out_edges(g, c, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].type == GRAPH_EDGE_INHERITS)
            return true;
    return false;
}

/* The variant an event's activity's values name (map__value_told), or
 * the site it maps to without doubt when that is a method of a leaf of a
 * hierarchy (one database's driver among several): such an object's own
 * event says which variant the case runs, as long after it as the case
 * lasts (the variant's sites of the same part may come much later: an
 * insert's follow-up query tells the statements of the next steps).
 * GRAPH_NONE if neither. */
static uint32_t told_of(const map_mapper *m, uint32_t act)
{
    if (act >= m->acts.n)
        return GRAPH_NONE;
    if (m->acts.v[act].told)
        return m->acts.v[act].told - 1;
    uint32_t s = evidence_of(m, act);
    if (s == GRAPH_NONE)
        return GRAPH_NONE;
    uint32_t c = class_of(m->g, s);
    return c != GRAPH_NONE && leaf_class(m->g, c) ? s : GRAPH_NONE;
}

/* What holds sym: the class of a method, else the module of the file. */
static uint32_t container_of(const graph *g, uint32_t sym)
{
    uint32_t c = class_of(g, sym);
    if (c != GRAPH_NONE)
        return c;
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    graph_file_info f;
    graph_get_file(g, s.file_id, &f);
    return f.module;
}

/* The classes an evidence site's object is known not to be: subclasses
 * of its method's class that override the method (up to max). */
typedef struct {
    uint32_t v[NOT_RUNNERS_MAX];
    uint32_t n;
} not_runners;

/* Whether member u of a class of the runners says that object's class:
 * every class known not to be running it overrides u (a method those
 * objects run as well tells nothing of which runs). */
static bool says_runner(const graph *g, uint32_t u, const not_runners *nr)
{
    if (nr->n == 0)
        return true;
    graph_symbol s;
    graph_get_symbol(g, u, &s);
    if (s.kind != GRAPH_SYM_METHOD)
        return true;
    for (uint32_t k = 0; k < nr->n; k++)
        if (dispatch(g, nr->v[k], s.name, CLASS_DEPTH) == u)
            return false;
    return true;
}

/* Whether symbol u is container c or one of its own members (one that
 * says the runner's class, given nr). */
static bool within(const graph *g, uint32_t u, uint32_t c, const not_runners *nr)
{
    if (u == c)
        return true;
    graph_symbol s;
    graph_get_symbol(g, u, &s);
    return s.parent == c && says_runner(g, u, nr);
}

/* Whether an edge of u (either way) reaches container d or its members. */
static bool touches(const graph *g, uint32_t u, uint32_t d, const not_runners *nr)
{
    for (int dir = 0; dir < 2; dir++) {
        uint32_t n;
        const graph_edge *e = dir ? graph_in_edges(g, u, &n) : graph_out_edges(g, u, &n);
        for (uint32_t i = 0; i < n; i++)
            if (e[i].type != GRAPH_EDGE_MEMBER_OF && within(g, e[i].node, d, nr))
                return true;
    }
    return false;
}

/* Whether container c (a class or a module) or one of its own members
 * has an edge to container d or one of its own members: the code of one
 * names the other, not merely something both inherit from. A method of
 * d that objects of a class in nr run as well does not count. */
static bool linked(const graph *g, uint32_t c, uint32_t d, const not_runners *nr)
{
    if (c == d || touches(g, c, d, nr))
        return true;
    uint32_t n;
    const graph_edge *e = graph_in_edges(g, c, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].type == GRAPH_EDGE_MEMBER_OF && touches(g, e[i].node, d, nr))
            return true;
    return false;
}

/* The containers whose code may be running when sym logs: a method's
 * class and its subclasses that do not override it (an object of any of
 * them runs it), else sym's module. Returns how many (at most max); the
 * subclasses that override it go to *nr. */
static uint32_t runners(const graph *g, uint32_t sym, uint32_t *out, uint32_t max, not_runners *nr)
{
    out[0] = container_of(g, sym);
    nr->n = 0;
    if (class_of(g, sym) == GRAPH_NONE)
        return 1;
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    uint32_t n = 1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t ne;
        const graph_edge *e = graph_in_edges(g, out[k], &ne);
        for (uint32_t i = 0; i < ne && n < max; i++) {
            if (e[i].type != GRAPH_EDGE_INHERITS)
                continue;
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = out[j] == e[i].node;
            if (dup)
                continue;
            if (dispatch(g, e[i].node, s.name, CLASS_DEPTH) == sym)
                out[n++] = e[i].node;
            else if (nr->n < NOT_RUNNERS_MAX)
                nr->v[nr->n++] = e[i].node;
        }
    }
    return n;
}

/* Which candidates' containers are linked to one that may be running
 * evidence site sym (run[i]); returns how many are. */
static uint32_t links(const graph *g, uint32_t sym, const uint32_t *cands, uint32_t nc, bool *run)
{
    uint32_t r[RUNNERS_MAX];
    not_runners nr;
    uint32_t nrun = runners(g, sym, r, RUNNERS_MAX, &nr), n = 0;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t c = container_of(g, cands[i]);
        run[i] = false;
        for (uint32_t k = 0; k < nrun && !run[i]; k++)
            run[i] = linked(g, c, r[k], &nr);
        n += run[i];
    }
    return n;
}

/* The most containers one link_hops walk looks through. */
#define LINK_VIA_MAX 512

/* How near the code links container c (a class or a module) to d: 1 when
 * c or one of its members names d or one of d's (linked), 2 when through
 * a container that c's code calls, makes or uses, 0 when neither.
 * Cached. */
static uint32_t link_hops(map_mapper *m, uint32_t c, uint32_t d)
{
    const graph *g = m->g;
    bool ins;
    uint64_t *v = core_map_put(&m->class_links, (uint64_t)c << 32 | d, &ins);
    if (!ins)
        return (uint32_t)*v - 1;
    not_runners none = {.n = 0};
    uint32_t hops = 0;
    if (linked(g, c, d, &none)) {
        hops = 1;
    } else {
        /* c itself, then its members: every node an edge of theirs
         * reaches, as the container that holds it. */
        uint32_t from[LINK_VIA_MAX], nfrom = 0, seen = 0;
        from[nfrom++] = c;
        uint32_t n;
        const graph_edge *e = graph_in_edges(g, c, &n);
        for (uint32_t i = 0; i < n && nfrom < LINK_VIA_MAX; i++)
            if (e[i].type == GRAPH_EDGE_MEMBER_OF)
                from[nfrom++] = e[i].node;
        for (uint32_t k = 0; k < nfrom && !hops && seen < LINK_VIA_MAX; k++) {
            const graph_edge *x = graph_out_edges(g, from[k], &n);
            for (uint32_t i = 0; i < n && !hops && seen < LINK_VIA_MAX; i++) {
                /* What the code calls, makes or uses; an import alone
                 * (a package re-exporting everything) is no use of it. */
                if (x[i].type == GRAPH_EDGE_MEMBER_OF || x[i].type == GRAPH_EDGE_IMPORTS)
                    continue;
                graph_symbol vs;
                graph_get_symbol(g, x[i].node, &vs);
                uint32_t via = vs.kind == GRAPH_SYM_CLASS ? x[i].node : container_of(g, x[i].node);
                if (via == c)
                    continue;
                seen++;
                hops = linked(g, via, d, &none) ? 2 : 0;
            }
        }
    }
    *v = (uint64_t)hops + 1; /* nothing was put in the map since */
    return hops;
}

/* Whether the word text[i..i+n) reads as code, not prose: qualified
 * (`pkg.mod.Name`), opening a repr (`<Name ...>`), or a compound with a
 * capital inside (`SyncStream`). "Mail command failed" names no class
 * `Mail`. */
static bool code_word(const char *text, size_t i, size_t n)
{
    if (i > 0 && (text[i - 1] == '.' || text[i - 1] == '<'))
        return true;
    for (size_t k = 1; k < n; k++)
        if (text[i + k] >= 'A' && text[i + k] <= 'Z')
            return true;
    return false;
}

/*
 * A class the message shows (a repr's "<pkg.mod.SyncStream object at
 * 0x...>", a type's name) says which of several sites logging one text
 * runs when the code links that class to one site's class or module and
 * not to the others': parallel implementations of one part (a
 * synchronous client and an asynchronous one, a platform's variant) log
 * the same words, and the objects their code makes and hands on show
 * which one is at work. Only a class whose name no other class has, not
 * of a candidate's own module or class hierarchy, not in the template;
 * the nearest link decides (one candidate linked directly, else one
 * through a container its code names). GRAPH_NONE when no class in the
 * message tells.
 */
static uint32_t linked_by_class(map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns)
{
    const graph *g = m->g;
    size_t from = 0, i, n, tl = strlen(tmpl);
    while (next_word(text, len, ident_byte, &from, &i, &n)) {
        if (n < CLASS_NAME_MIN || !code_word(text, i, n))
            continue;
        const uint64_t *v = core_map_get(&m->class_names, class_name_hash(text + i, n));
        if (!v || *v > UINT32_MAX)
            continue;
        uint32_t cls = (uint32_t)*v - 1;
        graph_symbol cs;
        graph_get_symbol(g, cls, &cs);
        if (strlen(cs.name) != n || memcmp(cs.name, text + i, n) != 0 ||
            map__names_word(tmpl, tl, cs.name) || map__symbol_aside(m, cls))
            continue;
        uint32_t d = container_of(g, cls), hop[MAX_CAND] = {0};
        bool own = false;
        for (uint32_t k = 0; k < ns && k < MAX_CAND && !own; k++) {
            uint32_t c = container_of(g, syms[k]), k_cls = class_of(g, syms[k]);
            own = c == cls || c == d || (k_cls != GRAPH_NONE && related(g, k_cls, cls));
            hop[k] = own ? 0 : link_hops(m, c, d);
        }
        if (own)
            continue; /* a candidate's own class, module or hierarchy (the
                       * object logging: map__class_told) */
        for (uint32_t h = 1; h <= 2; h++) {
            uint32_t nlinked = 0, arg = GRAPH_NONE;
            for (uint32_t k = 0; k < ns && k < MAX_CAND; k++)
                if (hop[k] == h)
                    nlinked++, arg = syms[k];
            if (nlinked == 1)
                return arg;
            if (nlinked > 1)
                break;
        }
    }
    return GRAPH_NONE;
}

/* Whether classes a and b have a base class in common (within depth). */
static bool share_base(const graph *g, uint32_t a, uint32_t b, uint32_t depth)
{
    if (is_or_inherits(g, b, a, depth))
        return true;
    uint32_t n;
    const graph_edge *e = graph_out_edges(g, a, &n);
    for (uint32_t i = 0; i < n && depth > 0; i++)
        if (e[i].type == GRAPH_EDGE_INHERITS && share_base(g, e[i].node, b, depth - 1))
            return true;
    return false;
}

/*
 * Whether a group's candidates are variants: methods of several classes
 * of one hierarchy (each pair one and a subclass, or two with a base in
 * common), and each method overriding, overridden by or implementing
 * beside it one of another class of the group (the same name). Such a
 * class is another implementation of the same part (the asynchronous
 * client of a synchronous one, a platform's reactor of the portable one,
 * each database's driver of a base the rest of the code calls), and the
 * object a case runs is of one class or another. Different methods of a
 * class and its subclass run in one object, and sites of one class run in
 * the same object: for those the recent events' nearness decides. So it
 * does where one case shows two of the classes at work side by side (a
 * client's and a server's of one base: map__side_by_side).
 */
static bool class_variants(const map_mapper *m, const uint32_t *cands, uint32_t nc);
static bool parallel_classes(const map_mapper *m, const uint32_t *cands, uint32_t nc);

/* Whether a group's candidates, none of them a constant, pass test. */
static bool group_is(const map_mapper *m, uint32_t group,
                     bool (*test)(const map_mapper *, const uint32_t *, uint32_t))
{
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, group, &cands, &has_const);
    return !has_const && test(m, cands, nc);
}

bool map__variants(const map_mapper *m, uint32_t group)
{
    return group_is(m, group, map__variant_syms);
}

/* Whether a group's candidates are variants of one class hierarchy, which
 * share their base's logger and file, so neither tells them apart. */
static bool hierarchy_variants(const map_mapper *m, uint32_t group)
{
    return group_is(m, group, class_variants);
}

/* Whether paths a and b name files alike in sibling directories: as many
 * components, the same file name, one directory apart. */
static bool sibling_paths(const char *a, const char *b)
{
    uint32_t apart = 0;
    for (;;) {
        const char *ea = strchr(a, '/'), *eb = strchr(b, '/');
        if (!ea || !eb)
            return !ea && !eb && apart == 1 && strcmp(a, b) == 0;
        if ((size_t)(ea - a) != (size_t)(eb - b) || memcmp(a, b, (size_t)(ea - a)) != 0)
            apart++;
        a = ea + 1;
        b = eb + 1;
    }
}

/* Whether the candidates sit in parallel files: each in a file of its
 * own, named alike in sibling directories (pkg/_sync/conn.py beside
 * pkg/_async/conn.py, platform/node/x.js beside platform/browser/x.js):
 * one part written once per platform or concurrency model, of which a
 * process runs one, whether or not their classes share a base. */
static bool parallel_files(const graph *g, const uint32_t *cands, uint32_t nc)
{
    graph_symbol s0;
    graph_get_symbol(g, cands[0], &s0);
    graph_file_info f0;
    graph_get_file(g, s0.file_id, &f0);
    for (uint32_t i = 1; i < nc; i++) {
        graph_symbol si;
        graph_get_symbol(g, cands[i], &si);
        graph_file_info fi;
        graph_get_file(g, si.file_id, &fi);
        if (!sibling_paths(f0.path, fi.path))
            return false;
        for (uint32_t j = 1; j < i; j++) {
            graph_symbol sj;
            graph_get_symbol(g, cands[j], &sj);
            if (sj.file_id == si.file_id)
                return false;
        }
    }
    return true;
}

/*
 * Two classes of no common base may still be two implementations of one
 * part, under other method names: a protocol's first and second version
 * served side by side, each by a class of its own whose handlers log the
 * same texts ("Disconnecting Share(%d:%s)" in both). A connection runs one
 * of them, and the case's other events say which. Classes are taken for
 * such when their methods log at least PARALLEL_TEXTS texts alike. A text
 * of few letters ("%s: %s", "Error: %s") proves nothing, nor does one that
 * many classes log.
 */
#define PARALLEL_TEXTS 2
#define PARALLEL_LETTERS 8
#define PARALLEL_CLASSES_MAX 8

/* The letters of a template outside its holes. */
static uint32_t template_letters(const char *t)
{
    size_t n = strlen(t);
    uint32_t letters = 0;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        i += graph_tmpl_step(t, n, i, &pc);
        letters += !pc.hole && isalpha((unsigned char)pc.lit);
    }
    return letters;
}

static uint64_t class_pair(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* Whether the code of either of classes a and b names the other: parts
 * that work together (a server and the configuration it is made with),
 * not two versions of one part, which need not know of each other. */
static bool collaborate(const graph *g, uint32_t a, uint32_t b)
{
    not_runners none = {.n = 0};
    return linked(g, a, b, &none) || linked(g, b, a, &none);
}

/* Counts, for one run of sites of a template (map__told_classes_init's),
 * the pairs of classes of no common base that do not work together whose
 * methods both log it (m->parallel). */
static void parallel_count(map_mapper *m, const tmpl_site *run, size_t n)
{
    const graph *g = m->g;
    uint32_t cls[PARALLEL_CLASSES_MAX], k = 0;
    for (size_t i = 0; i < n; i++) {
        graph_emit x;
        graph_get_emit(g, run[i].emit, &x);
        if (x.kind == GRAPH_EMIT_CALL || x.kind == GRAPH_EMIT_CONST ||
            template_letters(x.tmpl) < PARALLEL_LETTERS)
            continue;
        bool seen = false;
        for (uint32_t c = 0; c < k && !seen; c++)
            seen = cls[c] == run[i].cls;
        if (seen)
            continue;
        if (k == PARALLEL_CLASSES_MAX)
            return; /* many classes log it: it proves nothing */
        cls[k++] = run[i].cls;
    }
    for (uint32_t a = 0; a < k; a++)
        for (uint32_t b = a + 1; b < k; b++)
            if (!share_base(g, cls[a], cls[b], CLASS_DEPTH) && !collaborate(g, cls[a], cls[b])) {
                bool ins;
                (*core_map_put(&m->parallel, class_pair(cls[a], cls[b]), &ins))++;
            }
}

/* Whether the candidates are methods of two classes of no common base
 * that log alike (parallel_count). Two: where more classes log a text, it
 * is apt to be a step that parts of another kind share (an application's
 * error, logged alike by the HTTP and the WebSocket protocols, each in
 * two implementations), which a case runs side by side. */
static bool parallel_classes(const map_mapper *m, const uint32_t *cands, uint32_t nc)
{
    uint32_t a = GRAPH_NONE, b = GRAPH_NONE;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t c = class_of(m->g, cands[i]);
        if (c == GRAPH_NONE)
            return false;
        if (a == GRAPH_NONE || c == a)
            a = c;
        else if (b == GRAPH_NONE || c == b)
            b = c;
        else
            return false;
    }
    const uint64_t *v = b == GRAPH_NONE ? NULL : core_map_get(&m->parallel, class_pair(a, b));
    return v && *v >= PARALLEL_TEXTS;
}

/* Whether a group's candidates are parallel classes' methods. */
static bool parallel_group(const map_mapper *m, uint32_t group)
{
    return group_is(m, group, parallel_classes);
}

bool map__variant_syms(const map_mapper *m, const uint32_t *cands, uint32_t nc)
{
    return nc >= 2 && (parallel_files(m->g, cands, nc) || class_variants(m, cands, nc) ||
                       parallel_classes(m, cands, nc));
}

static bool class_variants(const map_mapper *m, const uint32_t *cands, uint32_t nc)
{
    const graph *g = m->g;
    if (nc < 2)
        return false;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t a = class_of(g, cands[i]);
        if (a == GRAPH_NONE)
            return false;
        graph_symbol si;
        graph_get_symbol(g, cands[i], &si);
        bool overrides = false;
        for (uint32_t j = 0; j < nc; j++) {
            uint32_t b = class_of(g, cands[j]);
            if (b == a)
                continue;
            if (b == GRAPH_NONE || !share_base(g, a, b, CLASS_DEPTH))
                return false;
            graph_symbol sj;
            graph_get_symbol(g, cands[j], &sj);
            overrides |= strcmp(si.name, sj.name) == 0;
        }
        if (!overrides)
            return false;
    }
    return true;
}

uint32_t map__class_of(const graph *g, uint32_t sym)
{
    return class_of(g, sym);
}

uint32_t map__enclosing_class(const graph *g, uint32_t sym)
{
    for (int depth = 0; sym != GRAPH_NONE && depth < 8; depth++) {
        uint32_t c = class_of(g, sym);
        if (c != GRAPH_NONE)
            return c;
        graph_symbol s;
        graph_get_symbol(g, sym, &s);
        if (!(s.flags & GRAPH_SF_NESTED))
            return GRAPH_NONE;
        sym = s.parent;
    }
    return GRAPH_NONE;
}

bool map__one_hierarchy(const graph *g, uint32_t a, uint32_t b)
{
    return share_base(g, a, b, CLASS_DEPTH);
}

uint32_t map__container_of(const graph *g, uint32_t sym)
{
    return container_of(g, sym);
}

/* The group (the activity of all the sites of a template) that an
 * event's activity stands for, when its sites are variants: the activity
 * itself when it is one, the group of a member the mapper chose for it by
 * the recent events; else UINT32_MAX. */
static uint32_t group_of(const map_mapper *m, uint32_t act)
{
    map_activity a;
    uint32_t group = UINT32_MAX;
    if (!activity_of(m, act, &a) || a.strategy != MAP_BY_TEMPLATE)
        return UINT32_MAX;
    if ((a.amb == MAP_AMB_TIED || a.amb == MAP_AMB_TRACES || a.amb == MAP_AMB_RUNS) && a.nsyms > 1)
        group = act;
    else if (a.amb == MAP_AMB_CASE)
        group = map__member_group(m, act);
    /* (Parallel classes shown side by side in some cases may still run
     * one at a time in others: a complete case decides for itself.) */
    return group != UINT32_MAX && map__variants(m, group) &&
                   (!map__side_by_side(m, group) || parallel_group(m, group))
               ? group
               : UINT32_MAX;
}

/* The candidate (index) near[0..n) is clearly nearest to, nearness below
 * NEAR_MIN counting as none; UINT32_MAX when none is. */
static uint32_t clearly_nearest(const float *near, uint32_t n)
{
    uint32_t best = 0;
    double second = 0;
    for (uint32_t i = 1; i < n; i++)
        if (near[i] > near[best]) {
            second = near[best];
            best = i;
        } else if (near[i] > second) {
            second = near[i];
        }
    if (second < NEAR_MIN)
        second = 0;
    return near[best] >= NEAR_MIN && near[best] >= CLEAR_RATIO * second ? best : UINT32_MAX;
}

/* What an evidence site says of a group's candidates. */
typedef enum {
    SAYS_NOTHING = 0,
    SAYS_CLASS, /* the candidates its class may run, or its code links to */
    SAYS_NEAR,  /* the candidate it is clearly nearest to */
} site_says;

/*
 * The candidates evidence site sym is consistent with (ok[i]), and how it
 * tells them: see the top of the file.
 */
static site_says site_set(map_mapper *m, uint32_t group, uint32_t sym, const uint32_t *cands,
                          uint32_t nc, bool *ok)
{
    const graph *g = map_mapper_graph(m);
    if (shared_by_all(g, sym, cands, nc))
        return SAYS_NOTHING;
    if (dispatched(g, sym, cands, nc, ok))
        return SAYS_CLASS;
    uint32_t n = links(g, sym, cands, nc, ok);
    if (n > 0 && n < nc)
        return SAYS_CLASS;
    if (n < nc)
        return SAYS_NOTHING; /* code apart from all of them */
    /* Linked to all of them: the nearest, when clearly so. */
    uint32_t best = clearly_nearest(map__near(m, sym, group), nc);
    for (uint32_t i = 0; i < nc; i++)
        ok[i] = i == best;
    return best == UINT32_MAX ? SAYS_NOTHING : SAYS_NEAR;
}

/*
 * The candidate of group that the evidence sites ev[0..nev) point at, or
 * GRAPH_NONE: the one candidate consistent with every site that tells by
 * class, else (none tells so) with every site clearly nearest to it.
 * *several: sites told, but no candidate is consistent with all of them
 * (the case runs several variants).
 */
static uint32_t decide(map_mapper *m, uint32_t group, const uint32_t *ev, uint32_t nev,
                       bool *several)
{
    *several = false;
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, group, &cands, &has_const);
    if (nc < 2 || has_const)
        return GRAPH_NONE;
    /* Per candidate the sites consistent with it: by class, then near. */
    uint32_t *hits = core_xcalloc(2 * (size_t)nc, sizeof *hits), nsites[2] = {0, 0};
    bool *ok = core_xmalloc(nc * sizeof *ok);
    for (uint32_t k = 0; k < nev; k++) {
        site_says says = site_set(m, group, ev[k], cands, nc, ok);
        if (says == SAYS_NOTHING)
            continue;
        uint32_t *h = hits + (says == SAYS_CLASS ? 0 : nc);
        nsites[says == SAYS_CLASS ? 0 : 1]++;
        for (uint32_t i = 0; i < nc; i++)
            h[i] += ok[i];
    }
    uint32_t kind = nsites[0] ? 0 : 1, arg = GRAPH_NONE, nconsistent = 0;
    for (uint32_t i = 0; i < nc && nsites[kind]; i++)
        if (hits[kind * nc + i] == nsites[kind]) {
            arg = cands[i];
            nconsistent++;
        }
    *several = nsites[kind] > 0 && nconsistent == 0;
    free(ok);
    free(hits);
    return nconsistent == 1 ? arg : GRAPH_NONE;
}

/* Event i's new activity (and its variant, the same text's). */
static void move_event(map_mapper *m, uint32_t *act, uint32_t *var, uint32_t to)
{
    const char *text;
    map_mapper_variant(m, *var, &text);
    map__recount(m, *act, to);
    *var = map_mapper_restore_variant(m, to, text);
    *act = to;
}

/* ev[0..nev) with site s added, unless it is GRAPH_NONE or there already. */
static uint32_t add_site(uint32_t *ev, uint32_t nev, uint32_t s)
{
    if (s == GRAPH_NONE)
        return nev;
    for (uint32_t k = 0; k < nev; k++)
        if (ev[k] == s)
            return nev;
    ev[nev++] = s;
    return nev;
}

/* The rounds of a complete case: the sites decided in one are evidence in
 * the next (a variant's class tells its other sites, and those its
 * neighbours'), until a round decides nothing new. */
#define REVISE_ROUNDS 4

uint32_t map_mapper_revise(map_mapper *m, uint32_t *act, uint32_t *var, uint32_t n)
{
    /* Per event its entry in groups (UINT32_MAX: not one of variants);
     * per group the candidate picked (GRAPH_NONE: none yet). */
    uint32_t *gi = core_xmalloc((n ? n : 1) * sizeof *gi);
    core_vec(uint32_t) groups = {0};
    core_vec(uint32_t) pick = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = group_of(m, act[i]);
        gi[i] = UINT32_MAX;
        for (uint32_t k = 0; k < groups.n && g != UINT32_MAX && gi[i] == UINT32_MAX; k++)
            if (groups.v[k] == g)
                gi[i] = k;
        if (g != UINT32_MAX && gi[i] == UINT32_MAX) {
            core_vec_push(&groups, g);
            core_vec_push(&pick, GRAPH_NONE);
            gi[i] = (uint32_t)groups.n - 1;
        }
    }
    /* The sites told: the events' own, then those picked. */
    uint32_t *ev = core_xmalloc((n + groups.n + 1) * sizeof *ev), nev = 0;
    bool several;
    for (uint32_t i = 0; i < n; i++) {
        nev = add_site(ev, nev, evidence_of(m, act[i]));
        nev = add_site(ev, nev, told_of(m, act[i]));
    }
    for (uint32_t r = 0; r < REVISE_ROUNDS && groups.n; r++) {
        uint32_t before = nev;
        for (size_t k = 0; k < groups.n; k++)
            if (pick.v[k] == GRAPH_NONE)
                pick.v[k] = decide(m, groups.v[k], ev, before, &several);
        for (size_t k = 0; k < groups.n; k++)
            nev = add_site(ev, nev, pick.v[k]);
        if (nev == before)
            break;
    }
    uint32_t changed = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (gi[i] == UINT32_MAX)
            continue;
        uint32_t g = groups.v[gi[i]], s = pick.v[gi[i]];
        if (s == GRAPH_NONE)
            continue; /* the choice by the recent events stands */
        uint32_t to = map__member(m, g, s);
        if (to == UINT32_MAX || to == act[i])
            continue;
        move_event(m, &act[i], &var[i], to);
        changed++;
    }
    free(ev);
    core_vec_free(&pick);
    core_vec_free(&groups);
    free(gi);
    return changed;
}

uint32_t map_mapper_place(map_mapper *m, uint32_t *act, uint32_t *var, uint32_t n)
{
    uint32_t changed = 0, told[MAP_TOLD_MAX], ntold = 0;
    uint64_t seq[MAP_TOLD_MAX];
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            map_told_note(m, act[i - 1], var[i - 1], i, told, seq, &ntold);
        if (!placed_at_sites(m, act[i]))
            continue;
        map__case c = case_view(act, i, told, ntold);
        uint32_t to = resolve_ambiguous(m, act[i], &c).act;
        if (to == UINT32_MAX || to == act[i])
            continue;
        move_event(m, &act[i], &var[i], to);
        changed++;
    }
    return changed;
}

uint32_t map__pick_recent(map_mapper *m, uint32_t group, const map__case *c, bool *several)
{
    const uint32_t *recent = c->recent;
    uint32_t ev[2 * MAP_RECENT + MAP_TOLD_MAX], nev = 0;
    uint32_t picked[MAP_RECENT], npicked = 0;
    /* A variant named early (a server's mode, logged once as it starts)
     * tells the events long after it. */
    for (uint32_t k = 0; k < c->ntold; k++)
        nev = add_site(ev, nev, c->told[k]);
    for (uint32_t k = 0; k < c->nrecent; k++) {
        uint32_t site = evidence_of(m, recent[k]);
        nev = add_site(ev, nev, site);
        nev = add_site(ev, nev, told_of(m, recent[k]));
        /* An event this decided tells the next ones as a case's revision
         * tells them (map_mapper_revise's picks): a variant's sites
         * follow one another, and its first telling event soon leaves the
         * recent ones. */
        if (site == GRAPH_NONE && group_of(m, recent[k]) != UINT32_MAX) {
            map_activity a;
            map_mapper_activity(m, recent[k], &a);
            if (a.nsyms == 1)
                picked[npicked++] = a.syms[0];
        }
    }
    uint32_t nown = nev;
    for (uint32_t k = 0; k < npicked; k++)
        nev = add_site(ev, nev, picked[k]);
    uint32_t s = decide(m, group, ev, nev, several);
    /* A pick of an earlier context may have been the nearest guess, not
     * told: where the picks disagree with what the case's own events
     * tell, those alone decide, and only they show variants side by
     * side. */
    if (*several && nev > nown)
        s = decide(m, group, ev, nown, several);
    return s;
}

/* Adds s to a case's memory (see map_told_note). */
static void told_add(uint32_t s, uint64_t at, uint32_t *sym, uint64_t *seq, uint32_t *n)
{
    if (s == GRAPH_NONE || *n >= MAP_TOLD_MAX)
        return;
    for (uint32_t i = 0; i < *n; i++)
        if (sym[i] == s)
            return;
    sym[*n] = s;
    seq[*n] = at;
    (*n)++;
}

void map_told_note(const map_mapper *m, uint32_t act, uint32_t var, uint64_t at, uint32_t *sym,
                   uint64_t *seq, uint32_t *n)
{
    told_add(told_of(m, act), at, sym, seq, n);
    if (var < m->var_told.n)
        told_add(m->var_told.v[var] - 1, at, sym, seq, n);
}

void map_told_cut(uint64_t at, const uint64_t *seq, uint32_t *n)
{
    while (*n > 0 && seq[*n - 1] > at)
        (*n)--;
}
