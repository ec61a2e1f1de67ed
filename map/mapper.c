/*
 * Events to activities to symbols: the composed mapping strategies
 * (map.h). Two of them walk the code graph with personalized PageRank
 * (ppr.h): the proximity that breaks ties between functions logging the
 * same message, and the constants strategy.
 */
#define _GNU_SOURCE /* memmem */
#include "map_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAND 64
/* Proven sites that make a candidate callee a logging function. */
#define LISTED_SITES 2

typedef struct act_rec {
    uint32_t text; /* strtab offset */
    uint8_t strategy;
    bool tried;               /* finish() has looked at it */
    bool has_const;           /* matched string constants only */
    bool aside;               /* matched only sites set aside: cands, the last resort */
    uint32_t sym_off, nsyms;  /* into syms/conf */
    uint32_t cand_off, ncand; /* template candidates or constant owners */
    uint64_t count;
    uint32_t nvariants;
    /* For a message no template matched: the logger and level its records
     * came with (strtab offsets + 1; 0 none yet, LOGGER_MIXED several). */
    uint32_t logger, level;
    /* For a message no template matched: the first one as it came
     * (strtab offset + 1; 0 none), which the positional strategy renders
     * against its neighbours' sites (the activity's text is abstracted). */
    uint32_t sample;
    uint8_t amb; /* map_ambiguity */
    /* A group of variants some case showed running side by side (its
     * recent events pointed at several): told apart by nearness only. */
    bool side_by_side;
} act_rec;

#define LOGGER_MIXED UINT32_MAX

/* What a distinct message (with its logger and level) resolves to before
 * the case context is known. */
typedef struct msg_rec {
    uint32_t act;   /* the activity, or UINT32_MAX when it depends on prev */
    uint32_t group; /* ambiguous: the group (an activity id of the template) */
    /* No template matched: listed_gen then (a match may come once more
     * callees are proven); UINT32_MAX otherwise. */
    uint32_t gen;
    /* The abstracted message by its hash (masked_hash), MASKED_NONE when
     * peek met a text never seen. */
    uint64_t masked;
} msg_rec;

#define MASKED_NONE 0

/* A message cache entry whose activity and variant are fixed (a template
 * matched it, unambiguously): both in the entry itself, so that a message
 * seen again costs one lookup. Other entries index msgs (+ 1). */
#define MSG_FIXED (UINT64_C(1) << 63)

/* An ambiguous message in one context: the activity chosen (a group
 * member, or the group), and the candidates' scores normalised to sum 1
 * (at score_off in amb_scores; none when nothing near was found). */
typedef struct amb_rec {
    uint32_t act;
    uint32_t score_off;
    bool scored;
} amb_rec;

typedef struct nb_rec {
    uint32_t act, nb;
    uint32_t count;
} nb_rec;

struct map_mapper {
    const graph *g;
    map_mapper_opts o;
    uint32_t aside; /* roles set aside (map_matcher_opts.aside) */
    map_matcher *matcher;
    map_match_work *mw;
    map_text *text; /* built on first use */
    ppr_net *code;  /* built on first use */
    ppr_work *cw;
    core_strtab strs;
    core_map act_by_text; /* strtab offset -> activity */
    core_vec(act_rec) acts;
    core_vec(uint32_t) syms;
    core_vec(float) conf;
    core_vec(uint32_t) cands;
    /* variants */
    core_map var_by_key; /* hash(act, masked hash) -> variant + 1 */
    core_vec(uint32_t) var_act;
    core_vec(uint32_t) var_text;
    /* message cache */
    core_map msg_cache; /* hash -> MSG_FIXED | act << 32 | variant, or index into msgs + 1 */
    core_vec(msg_rec) msgs;
    /* The last message abstracted and its hash: a variant's text is kept
     * (interned) only when the variant is new. */
    core_buf masked_text;
    uint64_t masked_of;
    /* Duplicates: (group, the case's recent activities) -> index into
     * ambs + 1; nearness of a group's candidates to a symbol, (symbol,
     * group) -> offset in near_vals (one float per candidate); what the
     * training cases' contexts said of each group's candidates, group ->
     * offset in amb_acc (one sum per candidate). */
    core_map amb_cache;
    core_vec(amb_rec) ambs;
    core_vec(float) amb_scores;
    core_map near_index;
    core_vec(float) near_vals;
    core_map acc_index;
    core_vec(double) amb_acc;
    core_vec(uint32_t) acc_groups; /* the groups in acc_index, in order */
    /* code attributes: (act, symbol) -> count, and the files */
    core_map code_votes;
    core_map code_cache; /* hash of code.* attributes -> symbol + 1 */
    core_vec(nb_rec) votes;
    core_smap file_by_path;
    /* neighbours of unmapped activities */
    core_map nb_index;
    core_vec(nb_rec) nbs;
    core_buf tmp;
    uint32_t other; /* the fold-over activity, or UINT32_MAX */
    /* Past the caps (a flood of distinct messages): the masked text's hash
     * that stands for every new one, and how many messages were folded. */
    uint64_t masked_other;
    uint64_t folded;
    /* Which callees log, learnt from the messages seen: each emit site's
     * callee (receiver and method), and per callee the number of its
     * distinct sites whose templates matched a message. */
    uint32_t *emit_callee;  /* per emit: callee number */
    uint32_t *callee_sites; /* per callee: sites proven by a message */
    uint8_t *proven;        /* per emit: matched a message */
    /* Per emit: a candidate call whose callee has LISTED_SITES proven
     * sites, which then matches as a known logging shape does (the
     * matcher reads it); listed_gen counts the callees so listed. */
    uint8_t *listed;
    uint32_t listed_gen;
    /* Per emit: the activity of its template's text once one was made
     * (UINT32_MAX before): a matched message needs no hashing of the
     * template to find it. Activities are never removed. */
    uint32_t *tmpl_act;
    /* Where each logger was shown to log from: (logger, file) -> distinct
     * messages its templates matched there, and logger -> all of them. */
    core_map logger_files;
    core_map logger_total;
    /* Calls of functions that log what their callers pass in a way the
     * code does not show (GRAPH_SF_TAKES_TEXT), as (callee, emit) in
     * that order; built on first use. */
    core_vec(nb_rec) takes;
    bool takes_built;
    /* Calls passing a literal (without holes) to a function of ours, as
     * (callee, emit) in that order: what callers hand each function,
     * which a message that function logs may show. */
    core_vec(nb_rec) passed;
    /* map_mapper_peek: resolve without keeping anything; the text of an
     * activity that does not exist. */
    bool dry;
    core_buf peek_text;
};

/* Distinct messages cached and variants kept: twice max_activities. */
static size_t msg_cap(const map_mapper *m)
{
    return 2 * (size_t)m->o.max_activities;
}

static uint32_t activity_get(map_mapper *m, const char *text, size_t len, bool *created);

const char *map_ambiguity_name(map_ambiguity a)
{
    static const char *n[] = {"none", "case", "message", "traces", "tied"};
    return (unsigned)a < MAP_AMB__COUNT ? n[a] : "?";
}

const char *map_strategy_name(map_strategy s)
{
    static const char *n[] = {"none",  "code",   "override", "template",
                              "const", "tokens", "llm",      "logger"};
    return (unsigned)s < MAP_BY__COUNT ? n[s] : "?";
}

static uint64_t key64(uint64_t h)
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

static void callees_init(map_mapper *m)
{
    uint32_t ne = graph_nemits(m->g);
    m->emit_callee = core_xmalloc((ne ? ne : 1) * sizeof *m->emit_callee);
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
        h = key64(core_hash64(e.method, strlen(e.method), h ^ 0x2e));
        bool ins;
        uint64_t *v = core_map_put(&idx, h, &ins);
        if (ins)
            *v = n++;
        m->emit_callee[i] = (uint32_t)*v;
    }
    core_map_free(&idx);
    m->callee_sites = core_xcalloc(n ? n : 1, sizeof *m->callee_sites);
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(m->g, i, &e);
        if (e.kind != GRAPH_EMIT_CALL || e.style != GRAPH_STYLE_PLAIN || strlen(e.tmpl) < 3)
            continue;
        /* Every function of that name the call may reach (a method its
         * subclasses override, called through self) is handed the literal:
         * one it may reach and the others not would wrongly tell them
         * apart. */
        if (e.symbol == GRAPH_NONE)
            continue;
        uint32_t ned;
        const graph_edge *ed = graph_out_edges(m->g, e.symbol, &ned);
        for (uint32_t k = 0; k < ned; k++) {
            graph_symbol c;
            if (ed[k].type != GRAPH_EDGE_CALLS)
                continue;
            graph_get_symbol(m->g, ed[k].node, &c);
            if (strcmp(c.name, e.method) == 0)
                core_vec_push(&m->passed, ((nb_rec){ed[k].node, i, 0}));
        }
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
    core_map_free(&m->msg_cache);
    core_vec_free(&m->msgs);
    core_buf_free(&m->masked_text);
    core_map_free(&m->amb_cache);
    core_vec_free(&m->ambs);
    core_vec_free(&m->amb_scores);
    core_map_free(&m->near_index);
    core_vec_free(&m->near_vals);
    core_map_free(&m->acc_index);
    core_vec_free(&m->amb_acc);
    core_vec_free(&m->acc_groups);
    core_map_free(&m->code_votes);
    core_map_free(&m->code_cache);
    core_vec_free(&m->votes);
    core_vec_free(&m->takes);
    core_vec_free(&m->passed);
    core_smap_free(&m->file_by_path);
    core_map_free(&m->nb_index);
    core_map_free(&m->logger_files);
    core_map_free(&m->logger_total);
    core_vec_free(&m->nbs);
    core_buf_free(&m->tmp);
    free(m->emit_callee);
    free(m->callee_sites);
    free(m->proven);
    free(m->listed);
    free(m->tmpl_act);
    free(m);
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

static void activity_set_syms(map_mapper *m, uint32_t act, map_strategy st, const uint32_t *s,
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

static void activity_set_cands(map_mapper *m, uint32_t act, const uint32_t *s, uint32_t n)
{
    act_rec *a = &m->acts.v[act];
    a->cand_off = (uint32_t)m->cands.n;
    a->ncand = n;
    for (uint32_t i = 0; i < n; i++)
        core_vec_push(&m->cands, s[i]);
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

/* Loggers are known here by the hash of their name: interning every
 * matched message's logger would cost the mapping's hot path. */
static uint64_t logger_hash(const char *logger)
{
    return core_hash64(logger, strlen(logger), 0x6c6f67ull);
}

static uint64_t logger_file_key(uint64_t logger, uint32_t file)
{
    return key64(core_hash_u64(logger ^ ((uint64_t)file + 1) * 0x9e3779b97f4a7c15ull));
}

/* A message of logger matched a template of these symbols: one more for
 * the logger in their file (when they share one). */
static void note_logger_file(map_mapper *m, const char *logger, const uint32_t *syms, uint32_t ns)
{
    if (!logger || !logger[0] || ns == 0)
        return;
    graph_symbol s;
    graph_get_symbol(m->g, syms[0], &s);
    for (uint32_t i = 1; i < ns; i++) {
        graph_symbol t;
        graph_get_symbol(m->g, syms[i], &t);
        if (t.file_id != s.file_id)
            return;
    }
    uint64_t l = logger_hash(logger);
    bool ins;
    ++*core_map_put(&m->logger_files, logger_file_key(l, s.file_id), &ins);
    ++*core_map_put(&m->logger_total, key64(l), &ins);
}

/*
 * The files a logger was shown to log from: each holding at least a tenth
 * of the messages its templates matched. Returns how many (up to max).
 */
static uint32_t logger_files(const map_mapper *m, const char *logger, uint32_t *files, uint32_t max)
{
    uint64_t l = logger_hash(logger);
    const uint64_t *total = core_map_get(&m->logger_total, key64(l));
    if (!total)
        return 0;
    uint32_t k = 0;
    for (uint32_t f = 0; f < graph_nfiles(m->g) && k < max; f++) {
        const uint64_t *c = core_map_get(&m->logger_files, logger_file_key(l, f));
        if (c && *c * 10 >= *total)
            files[k++] = f;
    }
    return k;
}

/*
 * The symbol that emits at a site. A call passing a literal to a function
 * of ours that logs it is the caller's doing only when that function is a
 * mere wrapper; one that also does other work (sends the command it logs)
 * is itself what runs, so the event is its own.
 */
static uint32_t site_emitter(const graph *g, uint32_t emit, const graph_emit *e)
{
    if (e->kind != GRAPH_EMIT_CALL)
        return e->symbol;
    uint32_t t = graph_emit_callee(g, emit);
    if (t == GRAPH_NONE)
        return e->symbol;
    graph_symbol s;
    graph_get_symbol(g, t, &s);
    const uint32_t want = GRAPH_SF_LOGS_DYNAMIC | GRAPH_SF_EFFECTS;
    return (s.flags & want) == want && !(s.flags & GRAPH_SF_WRAPPER) ? t : e->symbol;
}

uint32_t map__emit_symbols(const graph *g, const uint32_t *emits, uint32_t n, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, emits[i], &e);
        if (e.symbol == GRAPH_NONE)
            continue;
        uint32_t sym = site_emitter(g, emits[i], &e);
        bool dup = false;
        for (uint32_t j = 0; j < k; j++)
            dup |= out[j] == sym;
        if (!dup)
            out[k++] = sym;
    }
    return k;
}

static void ensure_code_net(map_mapper *m)
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
    uint64_t key = key64(core_hash_u64(((uint64_t)src << 32) | group));
    bool ins;
    uint64_t *v = core_map_put(&m->near_index, key, &ins);
    if (!ins)
        return m->near_vals.v + *v;
    *v = m->near_vals.n;
    ensure_code_net(m);
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
/* A group's candidates, as many as the score arrays hold (a group has at
 * most MAX_CAND). */
static uint32_t group_size(const map_mapper *m, uint32_t group)
{
    uint32_t n = m->acts.v[group].ncand;
    return n < MAX_CAND ? n : MAX_CAND;
}

static double context_scores(map_mapper *m, uint32_t group, const uint32_t *recent,
                             uint32_t nrecent, double *sc, double *other)
{
    uint32_t nc = group_size(m, group);
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
    return sum;
}

/* The candidate the scores point at: clearly the nearest, twice the next
 * one; GRAPH_NONE when none is. */
static uint32_t clear_candidate(const map_mapper *m, uint32_t group, const double *sc)
{
    const act_rec *g = &m->acts.v[group];
    double best = 0, second = 0;
    uint32_t arg = GRAPH_NONE;
    for (uint32_t i = 0; i < group_size(m, group); i++) {
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
    return key64(core_hash_u64(masked ^ (uint64_t)act * 0x9e3779b97f4a7c15ull));
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
    uint32_t text;
    if (masked == m->masked_other) {
        text = core_strtab_intern(&m->strs, MAP__OTHER_TEXT, strlen(MAP__OTHER_TEXT));
    } else {
        if (masked != m->masked_of && ev)
            mask_into(m, ev->text ? ev->text : "", ev->text ? ev->len : 0);
        text = core_strtab_intern(&m->strs, masked_str(m), m->masked_text.len);
    }
    core_vec_push(&m->var_act, act);
    core_vec_push(&m->var_text, text);
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
    note_source(m, &a->logger, ev->logger);
    note_source(m, &a->level, ev->level);
    if (created) {
        uint32_t syms[MAX_CAND];
        uint32_t ns = map__emit_symbols(m->g, emits, n, syms);
        a->aside = ns > 0;
        activity_set_cands(m, r->act, syms, ns);
    }
    return *r;
}

static uint32_t group_member(map_mapper *m, uint32_t group, uint32_t sym);
static uint32_t named_candidate(const map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns);

/* Resolves a distinct message: template match or abstraction. */
static msg_rec resolve_message(map_mapper *m, const map_event *ev)
{
    msg_rec r = {UINT32_MAX, UINT32_MAX, UINT32_MAX, MASKED_NONE};
    const char *text = ev->text ? ev->text : "";
    size_t len = ev->text ? ev->len : 0;
    mask_into(m, text, len);
    const char *mk = masked_str(m);
    r.masked = m->masked_of;
    /* Every abstracted message seen is a variant's text (variant_get
     * interns it), so the string table tells a new one. */
    if (m->dry) {
        /* A text never seen has no variant. */
        if (core_strtab_find(&m->strs, mk, m->masked_text.len) == UINT32_MAX) {
            r.masked = MASKED_NONE;
            core_buf_reset(&m->peek_text);
            core_buf_append(&m->peek_text, mk, m->masked_text.len);
        }
    } else if (m->var_act.n >= msg_cap(m)) {
        if (core_strtab_find(&m->strs, mk, m->masked_text.len) == UINT32_MAX) {
            r.masked = m->masked_other;
            m->folded++;
        }
    }
    /* The abstracted text, as its variant will have it. */
    const char *mt = r.masked == m->masked_other ? MAP__OTHER_TEXT : mk;

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
                activity_set_syms(m, r.act, MAP_BY_OVERRIDE, s, c, n > MAX_CAND ? MAX_CAND : n);
            return r;
        }
    }

    uint32_t emits[MAX_CAND];
    map_match mr =
        map_matcher_match(m->matcher, m->mw, text, len, ev->logger, ev->level, emits, MAX_CAND);
    if (mr.flags & MAP_MATCH_ASIDE)
        return aside_message(m, ev, &r, mt, emits, mr.nemits > MAX_CAND ? MAX_CAND : mr.nemits);
    if (mr.nemits == 0) {
        bool created;
        r.gen = m->listed_gen;
        if (r.masked == MASKED_NONE)
            return r; /* dry: a new text, in peek_text */
        r.act = activity_get(m, mt, strlen(mt), &created);
        if (r.act != m->other && !m->dry) {
            act_rec *a = &m->acts.v[r.act];
            note_source(m, &a->logger, ev->logger);
            note_source(m, &a->level, ev->level);
            if (!a->sample && len < 4096)
                a->sample = core_strtab_intern(&m->strs, text, len) + 1;
        }
        return r;
    }
    uint32_t n = mr.nemits > MAX_CAND ? MAX_CAND : mr.nemits;
    for (uint32_t i = 0; i < n && !m->dry; i++)
        callee_prove(m, emits[i]);
    n = keep_proven(m, emits, n);
    uint32_t syms[MAX_CAND];
    uint32_t ns = map__emit_symbols(m->g, emits, n, syms);
    if (!m->dry)
        note_logger_file(m, ev->logger, syms, ns);
    bool created;
    if (mr.flags & MAP_MATCH_CONST) {
        /* The template is a constant: its users are found at finish(). */
        core_buf_reset(&m->tmp);
        core_buf_puts(&m->tmp, map__template_text(m->g, emits[0]));
        r.act = activity_get(m, m->tmp.data, m->tmp.len, &created);
        if (created) {
            m->acts.v[r.act].has_const = true;
            activity_set_cands(m, r.act, syms, ns);
        }
        if (r.act != m->other && r.act != UINT32_MAX && !m->dry) {
            /* Should no function that logs such constants be near, the
             * strategies of a message no template took place it. */
            act_rec *a = &m->acts.v[r.act];
            note_source(m, &a->logger, ev->logger);
            note_source(m, &a->level, ev->level);
            if (!a->sample && len < 4096)
                a->sample = core_strtab_intern(&m->strs, text, len) + 1;
        }
        return r;
    }
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
        float c[MAX_CAND] = {0};
        for (uint32_t i = 0; i < ns; i++)
            c[i] = 1.0f / (float)ns;
        activity_set_syms(m, r.act, MAP_BY_TEMPLATE, syms, c, ns);
        activity_set_cands(m, r.act, syms, ns);
    }
    if (ns > 1) {
        if (created)
            m->acts.v[r.act].amb = MAP_AMB_TIED;
        uint32_t named =
            named_candidate(m, text, len, map__template_text(m->g, emits[0]), syms, ns);
        uint32_t member = named == GRAPH_NONE ? UINT32_MAX : group_member(m, r.act, named);
        if (member != UINT32_MAX) {
            if (!m->dry)
                m->acts.v[member].amb = MAP_AMB_MESSAGE;
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
        activity_set_syms(m, a, MAP_BY_TEMPLATE, &sym, &one, 1);
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
static bool names_word(const char *text, size_t len, const char *name)
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

/* Whether a caller of sym passes it a literal the message shows (as a
 * whole word, and not one of the template's own) that no caller of any
 * other candidate passes. */
static bool passed_literal(const map_mapper *m, uint32_t sym, const char *text, size_t len,
                           const char *tmpl, const uint32_t *syms, uint32_t ns)
{
    size_t lo = 0, hi = m->passed.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->passed.v[mid].act < sym)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < m->passed.n && m->passed.v[k].act == sym; k++) {
        graph_emit e;
        graph_get_emit(m->g, m->passed.v[k].nb, &e);
        if (!names_word(text, len, e.tmpl) || names_word(tmpl, strlen(tmpl), e.tmpl))
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
 * itself does not hold it, is named by the message; GRAPH_NONE otherwise.
 */
static uint32_t named_candidate(const map_mapper *m, const char *text, size_t len, const char *tmpl,
                                const uint32_t *syms, uint32_t ns)
{
    uint32_t arg = GRAPH_NONE, naming = 0;
    for (uint32_t i = 0; i < ns && naming < 2; i++) {
        const char *names[2];
        uint32_t nn = own_names(m->g, syms[i], names);
        bool named = false;
        for (uint32_t k = 0; k < nn && !named; k++) {
            if (names_word(tmpl, strlen(tmpl), names[k]))
                continue; /* in every rendering */
            /* a name the candidates share tells none of them */
            bool shared = false;
            for (uint32_t j = 0; j < ns && !shared; j++) {
                const char *other[2];
                uint32_t no = j == i ? 0 : own_names(m->g, syms[j], other);
                for (uint32_t q = 0; q < no; q++)
                    shared |= strcmp(other[q], names[k]) == 0;
            }
            named = !shared && names_word(text, len, names[k]);
        }
        if (!named)
            named = passed_literal(m, syms[i], text, len, tmpl, syms, ns);
        if (named) {
            naming++;
            arg = syms[i];
        }
    }
    return naming == 1 ? arg : GRAPH_NONE;
}

/* The innermost function or method of a file containing line. */
static uint32_t symbol_at(const map_mapper *m, const char *path, uint32_t line, const char *func)
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
    uint64_t *v = core_map_put(&m->code_cache, key64(h), &ins);
    if (!ins)
        return (uint32_t)(*v - 1);
    uint32_t s = symbol_at(m, ev->code_file, ev->code_line, ev->code_function);
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

static void note_neighbour(map_mapper *m, uint32_t act, uint32_t nb)
{
    uint64_t key = key64(((uint64_t)act << 32) | nb);
    bool ins;
    uint64_t *v = core_map_put(&m->nb_index, key, &ins);
    if (ins) {
        core_vec_push(&m->nbs, ((nb_rec){act, nb, 0}));
        *v = m->nbs.n - 1;
    }
    m->nbs.v[*v].count++;
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
    return key64(h);
}

/* A group in a case's context: the group and the recent activities. */
static uint64_t amb_key(uint32_t group, const uint32_t *recent, uint32_t n)
{
    uint64_t h = core_hash_u64(((uint64_t)group << 32) | n);
    for (uint32_t i = 0; i < n; i++)
        h = core_hash_u64(h ^ ((uint64_t)recent[i] + 1) * 0x9e3779b97f4a7c15ull);
    return key64(h);
}

/*
 * A message several sites log, in a case whose recent activities are
 * these: the member of the candidate the case clearly points at, else the
 * group itself (all of them, weighted by what the training cases said,
 * at finish). Cached per context; dry, nothing is created or kept.
 */
static amb_rec resolve_ambiguous(map_mapper *m, uint32_t group, const uint32_t *recent, uint32_t n)
{
    uint64_t k = amb_key(group, recent, n);
    const uint64_t *a = core_map_get(&m->amb_cache, k);
    if (a)
        return m->ambs.v[*a - 1];
    double sc[MAX_CAND] = {0}, other[MAX_CAND] = {0};
    context_scores(m, group, recent, n, sc, other);
    bool several = false;
    uint32_t s = map__variants(m, group) && !m->acts.v[group].side_by_side
                     ? map__pick_recent(m, group, recent, n, &several)
                     : GRAPH_NONE;
    if (several && !m->dry)
        m->acts.v[group].side_by_side = true;
    if (s == GRAPH_NONE)
        s = clear_candidate(m, group, sc);
    amb_rec r = {.act = s == GRAPH_NONE ? group : group_member(m, group, s)};
    if (r.act == UINT32_MAX)
        r.act = group; /* dry: that member was never seen */
    if (m->dry)
        return r;
    double sum = 0;
    uint32_t nc = group_size(m, group);
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
    uint32_t nc = group_size(m, group);
    bool ins;
    uint64_t *v = core_map_put(&m->acc_index, key64(group), &ins);
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

void map_mapper_peek(map_mapper *m, const map_event *ev, const uint32_t *recent, uint32_t nrecent,
                     uint32_t *activity, uint32_t *variant, const char **text)
{
    if (nrecent > MAP_RECENT) {
        recent += nrecent - MAP_RECENT;
        nrecent = MAP_RECENT;
    }
    const uint64_t *v = core_map_get(&m->msg_cache, message_key(ev));
    if (v && (*v & MSG_FIXED)) {
        *activity = msg_fixed_act(*v);
        *variant = (uint32_t)*v;
        *text = core_strtab_str(&m->strs, m->acts.v[*activity].text);
        return;
    }
    msg_rec r;
    m->dry = true;
    r = v && msg_current(m, &m->msgs.v[*v - 1]) ? m->msgs.v[*v - 1] : resolve_message(m, ev);
    uint32_t act = r.act;
    if (act == UINT32_MAX && r.group != UINT32_MAX)
        act = resolve_ambiguous(m, r.group, recent, nrecent).act;
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
                    uint32_t *activity, uint32_t *variant)
{
    if (nrecent > MAP_RECENT) {
        recent += nrecent - MAP_RECENT;
        nrecent = MAP_RECENT;
    }
    uint32_t prev = nrecent ? recent[nrecent - 1] : UINT32_MAX;
    uint64_t h = message_key(ev);
    bool ins = false;
    msg_rec r = {UINT32_MAX, UINT32_MAX, UINT32_MAX, MASKED_NONE};
    uint64_t *v;
    uint32_t act, var = UINT32_MAX;
    /* Cache full: known messages from it, others resolved each time. */
    if (m->msg_cache.n >= msg_cap(m))
        v = core_map_get(&m->msg_cache, h);
    else
        v = core_map_put(&m->msg_cache, h, &ins);
    if (v && !ins && (*v & MSG_FIXED)) {
        act = msg_fixed_act(*v);
        var = (uint32_t)*v;
        goto mapped;
    }
    if (!v || ins)
        r = resolve_message(m, ev);
    else
        r = cached_message(m, (size_t)*v - 1, ev);
    act = r.act;
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
    if (act == UINT32_MAX) {
        amb_rec ar = resolve_ambiguous(m, r.group, recent, nrecent);
        act = ar.act;
        if (ev->learn)
            amb_learn(m, r.group, &ar);
    }
mapped:
    m->acts.v[act].count++;
    if (ev->learn && m->o.use_code_attrs && act != m->other &&
        (ev->code_file || ev->code_function)) {
        uint32_t s = code_symbol(m, ev);
        if (s != GRAPH_NONE) {
            uint64_t key = key64(((uint64_t)act << 32) | s);
            uint64_t *c = core_map_put(&m->code_votes, key, &ins);
            if (ins) {
                core_vec_push(&m->votes, ((nb_rec){act, s, 0}));
                *c = m->votes.n - 1;
            }
            m->votes.v[*c].count++;
            m->acts.v[act].tried = false;
        }
    }
    /* The neighbourhood of activities no template maps. */
    if (ev->learn && prev != UINT32_MAX && prev < m->acts.n) {
        if (m->acts.v[act].nsyms == 0 && m->acts.v[prev].nsyms > 0)
            note_neighbour(m, act, prev);
        if (m->acts.v[prev].nsyms == 0 && m->acts.v[act].nsyms > 0)
            note_neighbour(m, prev, act);
    }
    *activity = act;
    *variant = var != UINT32_MAX ? var : variant_get(m, act, r.masked, ev);
}

/* ---- finish: the deferred strategies ---- */

static int cmp_nb(const void *a, const void *b)
{
    const nb_rec *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->nb > y->nb) - (x->nb < y->nb);
}

static void apply_code_votes(map_mapper *m)
{
    if (m->votes.n == 0)
        return;
    nb_rec *v = core_xmalloc(m->votes.n * sizeof *v);
    memcpy(v, m->votes.v, m->votes.n * sizeof *v);
    qsort(v, m->votes.n, sizeof *v, cmp_nb);
    for (size_t i = 0; i < m->votes.n;) {
        size_t j = i;
        uint64_t total = 0;
        while (j < m->votes.n && v[j].act == v[i].act)
            total += v[j++].count;
        uint32_t s[MAX_CAND];
        float c[MAX_CAND];
        uint32_t n = 0;
        for (size_t k = i; k < j && n < MAX_CAND; k++) {
            s[n] = v[k].nb;
            c[n++] = (float)((double)v[k].count / (double)total);
        }
        activity_set_syms(m, v[i].act, MAP_BY_CODE, s, c, n);
        m->acts.v[v[i].act].tried = true;
        i = j;
    }
    free(v);
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

/*
 * How likely u is to be what logs a message held in a constant, as a
 * function of what it logs: 2 when it logs a message whose text the code
 * does not hold, of its own making (`logger.log(policy.level,
 * policy.format, ctx)`, a name no constant resolves) and takes no text
 * from its callers; 1 when it calls a function that logs what its callers
 * pass (a wrapper logging on its behalf: the log record names the
 * caller's call site); 0 otherwise. A function called with message text
 * that logs something built from it logs its callers' messages, not its
 * own, even when how it builds them is not known.
 */
static int const_logger_rank(const map_mapper *m, uint32_t u)
{
    const uint32_t passes = GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT;
    graph_symbol s;
    graph_get_symbol(m->g, u, &s);
    if ((s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD) || map__symbol_aside(m, u))
        return 0;
    if ((s.flags & GRAPH_SF_LOGS_DYNAMIC) && !(s.flags & passes)) {
        uint32_t first, ne = graph_symbol_emits(m->g, u, &first);
        for (uint32_t i = 0; i < ne; i++) {
            graph_emit e;
            graph_get_emit(m->g, first + i, &e);
            bool logs =
                e.kind == GRAPH_EMIT_LOG || e.kind == GRAPH_EMIT_PRINT || e.kind == GRAPH_EMIT_WARN;
            if (logs && (e.style == GRAPH_STYLE_DYNAMIC ||
                         (e.style == GRAPH_STYLE_REF && e.ref_const == GRAPH_NONE)))
                return 2;
        }
    }
    uint32_t n;
    const graph_edge *out = graph_out_edges(m->g, u, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (out[i].type != GRAPH_EDGE_CALLS || out[i].node == u)
            continue;
        graph_symbol c;
        graph_get_symbol(m->g, out[i].node, &c);
        if ((c.flags & GRAPH_SF_LOGS_DYNAMIC) && (c.flags & passes))
            return 1;
    }
    return 0;
}

/* Personalized PageRank over the code from an activity's own candidates
 * (own, nown) and, at half the weight, its neighbours' emitters: what is
 * near both. The scores are in m->cw. False if it could not run. */
static bool proximity(map_mapper *m, const uint32_t *own, uint32_t nown, const nb_rec *nb,
                      size_t nnb)
{
    ensure_code_net(m);
    core_vec(ppr_entry) seeds = {0};
    for (uint32_t i = 0; i < nown; i++)
        core_vec_push(&seeds, ((ppr_entry){own[i], 1.0f / (float)nown}));
    uint64_t total = 0;
    for (size_t i = 0; i < nnb; i++)
        total += nb[i].count;
    for (size_t i = 0; i < nnb; i++) {
        const act_rec *p = &m->acts.v[nb[i].nb];
        for (uint32_t k = 0; k < p->nsyms; k++)
            core_vec_push(&seeds, ((ppr_entry){m->syms.v[p->sym_off + k],
                                               (float)(0.5 * (double)nb[i].count / (double)total *
                                                       m->conf.v[p->sym_off + k])}));
    }
    ppr_opts o = ppr_opts_default();
    o.eps = 1e-7;
    int rc = seeds.n ? ppr_push(m->cw, seeds.v, (uint32_t)seeds.n, &o, NULL) : -1;
    core_vec_free(&seeds);
    return rc == 0;
}

/* Keeps the cap best of what it is given in top and sc, best first (*n of
 * them): u with score p goes to its place, or nowhere when cap better ones
 * are kept. Ties go after those kept already, or by_id, by lower id. */
static void keep_best(uint32_t *top, double *sc, uint32_t *n, uint32_t cap, uint32_t u, double p,
                      bool by_id)
{
    uint32_t j = *n < cap ? (*n)++ : cap;
    while (j > 0 && (p > sc[j - 1] || (by_id && p == sc[j - 1] && u < top[j - 1]))) {
        if (j < cap) {
            top[j] = top[j - 1];
            sc[j] = sc[j - 1];
        }
        j--;
    }
    if (j < cap) {
        top[j] = u;
        sc[j] = p;
    }
}

/*
 * A format a function returns (an access-log line built from a request's
 * fields) that no function near logs: the functions that call the
 * formatter are what makes the message, whatever they hand it to (a file,
 * a stream, a logger behind a name the code does not show), as a logging
 * wrapper's caller stands for it. Up to 4 callers outside the files set
 * aside, nearest first (the proximity run's scores), weighted alike: the
 * code says they call it, not which of them ran. False when a candidate is
 * no function or nothing calls it. Tried after where the case was and the
 * logger's sites: a message a site there renders with less text (`"%s
 * %s"` for "GET http://127.0.0.1:8888/") is that site's, not the
 * formatter's whose few literal bytes it happens to hold.
 */
static bool map_by_formatters(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    enum { KEEP = 4 };
    const act_rec *a = &m->acts.v[act];
    if (!a->has_const || !proximity(m, m->cands.v + a->cand_off, a->ncand, nb, nnb))
        return false;
    uint32_t top[KEEP], nk = 0;
    double sc[KEEP];
    for (uint32_t i = 0; i < a->ncand; i++) {
        uint32_t f = m->cands.v[a->cand_off + i];
        graph_symbol s;
        graph_get_symbol(m->g, f, &s);
        if (s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD)
            return false;
        uint32_t n;
        const graph_edge *in = graph_in_edges(m->g, f, &n);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t u = in[k].node;
            if (in[k].type != GRAPH_EDGE_CALLS || u == f || map__symbol_aside(m, u))
                continue;
            bool dup = false;
            for (uint32_t j = 0; j < nk && !dup; j++)
                dup = top[j] == u;
            if (dup)
                continue;
            keep_best(top, sc, &nk, KEEP, u, ppr_work_score(m->cw, u), true);
        }
    }
    if (nk == 0)
        return false;
    float c[KEEP];
    for (uint32_t i = 0; i < nk; i++)
        c[i] = 1.0f / (float)nk;
    activity_set_syms(m, act, MAP_BY_CONST, top, c, nk);
    return true;
}

/* Constants and neighbourhood: the best function that logs a non-literal
 * message, by PPR from the constants' owners and the neighbours' emitters. */
static bool map_by_constants(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    act_rec *a = &m->acts.v[act];
    if (!a->has_const || !proximity(m, m->cands.v + a->cand_off, a->ncand, nb, nnb))
        return false;
    /* The nearest few of the likeliest kind, best first (ties by id):
     * one that logs its own unknown message before one that calls a
     * wrapper (which logs the texts it is given, mostly known ones). */
    enum { KEEP = 4 };
    uint32_t top[KEEP];
    double sc[KEEP];
    uint32_t nk = 0;
    int best_rank = 1;
    const uint32_t *touched;
    const double *p;
    uint32_t nt = ppr_work_touched(m->cw, &touched, &p);
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t u = touched[i];
        if (u >= graph_nsymbols(m->g) || p[u] <= 0)
            continue;
        int rank = const_logger_rank(m, u);
        if (rank < best_rank)
            continue;
        if (rank > best_rank) {
            best_rank = rank;
            nk = 0;
        }
        keep_best(top, sc, &nk, KEEP, u, p[u], true);
    }
    if (nk == 0)
        return false;
    /* One clearly nearest (twice the next, as clear_candidate asks) is
     * the answer; otherwise those that cannot be told apart from it are
     * all kept, weighted by nearness: a guess between them would be
     * wrong as often as not. */
    uint32_t n = 1;
    while (n < nk && sc[n] * 2.0 > sc[0])
        n++;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += sc[i];
    float c[KEEP];
    for (uint32_t i = 0; i < n; i++)
        c[i] = (float)(sc[i] / sum);
    activity_set_syms(m, act, MAP_BY_CONST, top, c, n);
    return true;
}

static int cmp_take(const void *a, const void *b)
{
    const nb_rec *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    return (x->nb > y->nb) - (x->nb < y->nb);
}

static void build_takes(map_mapper *m)
{
    m->takes_built = true;
    for (uint32_t e = 0; e < graph_nemits(m->g); e++) {
        graph_emit em;
        graph_get_emit(m->g, e, &em);
        if (em.kind != GRAPH_EMIT_CALL || !em.tmpl[0])
            continue;
        uint32_t t = graph_emit_callee(m->g, e);
        if (t == GRAPH_NONE)
            continue;
        graph_symbol s;
        graph_get_symbol(m->g, t, &s);
        if (s.flags & GRAPH_SF_TAKES_TEXT)
            core_vec_push(&m->takes, ((nb_rec){t, e, 0}));
    }
    if (m->takes.n)
        qsort(m->takes.v, m->takes.n, sizeof *m->takes.v, cmp_take);
}

/*
 * Among syms, the functions that log what their callers pass in a way the
 * code does not show (`logger.debug(_pre(self, msg), *args)`): the callers
 * whose literal at a call of one renders text (decorated or not) stand
 * for it, unless it does more than log (site_emitter). The most specific
 * renderings (most literal bytes) win, as in template matching; more
 * than MAX_CAND callers tie is too many to tell apart. Writes them to out
 * (distinct); returns how many. A literal whose rendering is seen says
 * more than where the logger is.
 */
static uint32_t rendering_callers(map_mapper *m, const uint32_t *syms, uint32_t ns,
                                  const char *text, uint32_t *out)
{
    if (!m->takes_built)
        build_takes(m);
    uint32_t n = 0, best = 0;
    bool over = false;
    size_t len = strlen(text);
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol s;
        graph_get_symbol(m->g, syms[i], &s);
        if (!(s.flags & GRAPH_SF_TAKES_TEXT))
            continue;
        size_t lo = 0, hi = m->takes.n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (m->takes.v[mid].act < syms[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < m->takes.n && m->takes.v[k].act == syms[i]; k++) {
            uint32_t e = m->takes.v[k].nb;
            uint32_t lit = map_matcher_renders(m->matcher, m->mw, e, text, len);
            if (lit == 0 || lit < best)
                continue;
            graph_emit em;
            graph_get_emit(m->g, e, &em);
            uint32_t who = site_emitter(m->g, e, &em);
            if (map__symbol_aside(m, who))
                continue;
            if (lit > best) {
                best = lit;
                n = 0;
                over = false;
            }
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = out[j] == who;
            if (dup)
                continue;
            if (n < MAX_CAND)
                out[n++] = who;
            else
                over = true;
        }
    }
    return over ? 0 : n;
}

/*
 * A message no template matched, whose records all name one logger: the
 * sites of that logger that have no text a template could show (a message
 * built at run time, holes only) are where it can come from. One is the
 * answer; several are all kept, ordered and weighted by how near they are
 * to the activity's neighbours in the code.
 */
/*
 * A message no template took, placed by where the case was: a site in the
 * function of one of its neighbouring events (the events just before and
 * after it in the cases seen) whose template renders it, after any
 * decoration, however little literal text it shows (`'  %s: %s'`, logged
 * in a loop after `'Sending extension info'`): where the case was says
 * more than a template that shows too little to be matched anywhere. The
 * sites rendering the most literal bytes win, weighed by how often each
 * neighbour was next to it.
 */
static bool map_by_position(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    uint32_t sample = m->acts.v[act].sample;
    if (!sample)
        return false;
    const char *text = core_strtab_str(&m->strs, sample - 1);
    size_t len = strlen(text);
    uint32_t best_lit = 0, n = 0;
    uint32_t syms[MAX_CAND];
    double w[MAX_CAND];
    for (size_t i = 0; i < nnb; i++) {
        const act_rec *p = &m->acts.v[nb[i].nb];
        for (uint32_t k = 0; k < p->nsyms; k++) {
            uint32_t sym = m->syms.v[p->sym_off + k], first;
            if (map__symbol_aside(m, sym))
                continue;
            uint32_t ne = graph_symbol_emits(m->g, sym, &first);
            for (uint32_t e = first; e < first + ne; e++) {
                uint32_t lit = map_matcher_renders(m->matcher, m->mw, e, text, len);
                if (lit == 0 || lit < best_lit)
                    continue;
                if (lit > best_lit) {
                    best_lit = lit;
                    n = 0;
                }
                graph_emit em;
                graph_get_emit(m->g, e, &em);
                uint32_t who = site_emitter(m->g, e, &em);
                uint32_t j = 0;
                while (j < n && syms[j] != who)
                    j++;
                if (j == n) {
                    if (n == MAX_CAND)
                        continue;
                    syms[n] = who;
                    w[n++] = 0;
                }
                w[j] += nb[i].count * (double)m->conf.v[p->sym_off + k];
            }
        }
    }
    if (n == 0)
        return false;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    /* best first (insertion sort: n is small) */
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && w[j] > w[j - 1]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            uint32_t u = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = u;
        }
    float c[MAX_CAND];
    for (uint32_t i = 0; i < n; i++)
        c[i] = (float)(sum > 0 ? w[i] / sum : 1.0 / n);
    activity_set_syms(m, act, MAP_BY_LOGGER, syms, c, n);
    return true;
}

/* Sites a logger's message may come from, at most: past it the logger
 * says too little to look further. */
#define UNSEEN_MAX 4096

/*
 * The functions of n sites without text a message may come from: all of
 * them when they are few (MAX_CAND); when more (a logger every class of
 * the package shares), the ones nearest over the code graph to the
 * activity's neighbours' emitters, which is where in the code the case
 * was (a message a function logs between two others of its own goes to
 * it), as many as MAX_CAND with some nearness. Writes them to syms;
 * returns how many (0: too many and nothing near).
 */
static uint32_t nearest_unseen(map_mapper *m, const uint32_t *emits, uint32_t n, const nb_rec *nb,
                               size_t nnb, uint32_t *syms)
{
    if (n <= MAX_CAND)
        return map__emit_symbols(m->g, emits, n, syms);
    if (nnb == 0 || !proximity(m, NULL, 0, nb, nnb))
        return 0;
    uint32_t k = 0;
    double sc[MAX_CAND];
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(m->g, emits[i], &e);
        if (e.symbol == GRAPH_NONE)
            continue;
        uint32_t sym = site_emitter(m->g, emits[i], &e);
        double x = ppr_work_score(m->cw, sym);
        if (x <= 0)
            continue;
        bool dup = false;
        for (uint32_t j = 0; j < k && !dup; j++)
            dup = syms[j] == sym;
        if (dup)
            continue;
        /* keep the MAX_CAND nearest, best first (ties: the earlier site) */
        keep_best(syms, sc, &k, MAX_CAND, sym, x, false);
    }
    return k;
}

static bool map_by_logger(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    const act_rec *a = &m->acts.v[act];
    if (a->logger == 0 || a->logger == LOGGER_MIXED)
        return false;
    const char *level =
        a->level && a->level != LOGGER_MIXED ? core_strtab_str(&m->strs, a->level - 1) : NULL;
    uint32_t *all = core_xmalloc(UNSEEN_MAX * sizeof *all);
    uint32_t n = map_matcher_unseen(m->matcher, core_strtab_str(&m->strs, a->logger - 1), NULL, 0,
                                    level, all, UNSEEN_MAX);
    if (n == 0) {
        /* No site names the logger: the files its other messages came
         * from. */
        uint32_t files[10];
        uint32_t nf = logger_files(m, core_strtab_str(&m->strs, a->logger - 1), files, 10);
        n = map_matcher_unseen(m->matcher, NULL, files, nf, level, all, UNSEEN_MAX);
    }
    uint32_t syms[MAX_CAND];
    uint32_t ns = n > UNSEEN_MAX ? 0 : nearest_unseen(m, all, n, nb, nnb, syms);
    free(all);
    if (ns == 0)
        return false;
    float c[MAX_CAND];
    uint32_t callers[MAX_CAND];
    uint32_t nc = rendering_callers(m, syms, ns, core_strtab_str(&m->strs, a->text), callers);
    if (nc > 0) {
        memcpy(syms, callers, nc * sizeof *syms);
        ns = nc;
    }
    double score[MAX_CAND], sum = 0;
    bool near = ns > 1 && proximity(m, NULL, 0, nb, nnb);
    for (uint32_t i = 0; i < ns; i++) {
        score[i] = near ? ppr_work_score(m->cw, syms[i]) : 0;
        sum += score[i];
    }
    /* Nearest first (insertion sort: ns is small); ties keep id order. */
    for (uint32_t i = 1; i < ns; i++)
        for (uint32_t j = i; j > 0 && score[j] > score[j - 1]; j--) {
            double t = score[j];
            score[j] = score[j - 1];
            score[j - 1] = t;
            uint32_t u = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = u;
        }
    /* Half spread evenly: nearness orders them, it does not rule the
     * others out. */
    for (uint32_t i = 0; i < ns; i++)
        c[i] = (float)(0.5 / ns + (sum > 0 ? 0.5 * score[i] / sum : 0.5 / ns));
    activity_set_syms(m, act, MAP_BY_LOGGER, syms, c, ns);
    return true;
}

typedef struct llm_ctx {
    map_mapper *m;
    const uint32_t *acts;
    core_vec(nb_rec) props; /* act, symbol, conf (bits) */
} llm_ctx;

static void llm_take(void *ud, size_t item, uint32_t symbol, float conf)
{
    llm_ctx *c = ud;
    uint32_t bits;
    memcpy(&bits, &conf, sizeof bits);
    core_vec_push(&c->props, ((nb_rec){c->acts[item], symbol, bits}));
}

/*
 * Whether a group's candidates are in more than one file: variants (a
 * platform's, a backend's, the synchronous and the asynchronous side)
 * that the rest of a case's code tells apart. Sites all in one file share
 * their neighbourhood, and the walk would only say which of them is the
 * more central there.
 */
static bool apart_in_files(const map_mapper *m, const act_rec *g)
{
    graph_symbol a;
    graph_get_symbol(m->g, m->cands.v[g->cand_off], &a);
    for (uint32_t i = 1; i < g->ncand; i++) {
        graph_symbol b;
        graph_get_symbol(m->g, m->cands.v[g->cand_off + i], &b);
        if (a.file_id != b.file_id)
            return true;
    }
    return false;
}

/* The share of a group's weight a candidate no training case pointed at
 * keeps: it may still be what logs, so it is not ruled out. */
#define AMB_FLOOR 0.01

/*
 * The groups of candidates the training cases' contexts scored: each
 * candidate weighs what the contexts gave it (and a floor), best first.
 * Written in place (a group keeps its candidates), so that finish() run
 * after every batch does not grow the mapper. A group whose best weighs
 * twice the next is decided by the traces.
 */
static void apply_group_weights(map_mapper *m)
{
    for (size_t gi = 0; gi < m->acc_groups.n; gi++) {
        uint32_t group = m->acc_groups.v[gi];
        act_rec *g = &m->acts.v[group];
        if (g->strategy != MAP_BY_TEMPLATE || g->nsyms != g->ncand || g->nsyms < 2)
            continue; /* the code's votes decided it, or it was restored otherwise */
        if (!apart_in_files(m, g))
            continue;
        const double *acc = m->amb_acc.v + *core_map_get(&m->acc_index, key64(group));
        uint32_t nc = group_size(m, group);
        double total = 0;
        for (uint32_t i = 0; i < nc; i++)
            total += acc[i];
        if (total <= 0 || nc < 2)
            continue;
        uint32_t idx[MAX_CAND];
        double w[MAX_CAND];
        for (uint32_t i = 0; i < nc; i++) {
            idx[i] = i;
            w[i] = acc[i] + AMB_FLOOR * total;
        }
        /* best first; ties keep the candidates' order */
        for (uint32_t i = 1; i < nc; i++)
            for (uint32_t j = i; j > 0 && w[idx[j]] > w[idx[j - 1]]; j--) {
                uint32_t t = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = t;
            }
        double sum = total * (1 + AMB_FLOOR * nc);
        for (uint32_t i = 0; i < nc; i++) {
            m->syms.v[g->sym_off + i] = m->cands.v[g->cand_off + idx[i]];
            m->conf.v[g->sym_off + i] = (float)(w[idx[i]] / sum);
        }
        g->amb = w[idx[0]] >= 2 * w[idx[1]] ? MAP_AMB_TRACES : MAP_AMB_TIED;
    }
}

int map_mapper_finish(map_mapper *m, char *why, size_t whylen)
{
    apply_code_votes(m);
    apply_group_weights(m);
    /* Neighbours grouped by activity. */
    nb_rec *nb = NULL;
    if (m->nbs.n) {
        nb = core_xmalloc(m->nbs.n * sizeof *nb);
        memcpy(nb, m->nbs.v, m->nbs.n * sizeof *nb);
        qsort(nb, m->nbs.n, sizeof *nb, cmp_nb);
    }
    size_t ni = 0, nnb = m->nbs.n; /* nb's length */
    core_vec(uint32_t) left = {0};
    for (uint32_t a = 0; a < m->acts.n; a++) {
        while (ni < nnb && nb[ni].act < a)
            ni++;
        size_t nj = ni;
        while (nj < nnb && nb[nj].act == a)
            nj++;
        act_rec *r = &m->acts.v[a];
        if (r->tried || r->nsyms > 0 || a == m->other) {
            r->tried = true;
            continue;
        }
        r->tried = true;
        if (!m->o.no_const && map_by_constants(m, a, nb + ni, nj - ni))
            continue;
        if (!m->o.no_logger &&
            (map_by_position(m, a, nb + ni, nj - ni) || map_by_logger(m, a, nb + ni, nj - ni)))
            continue;
        if (!m->o.no_const && map_by_formatters(m, a, nb + ni, nj - ni))
            continue;
        if (r->aside && r->ncand) {
            /* The sites set aside that rendered it: nothing else found it. */
            float c[MAX_CAND];
            for (uint32_t i = 0; i < r->ncand; i++)
                c[i] = 1.0f / (float)r->ncand;
            activity_set_syms(m, a, MAP_BY_TEMPLATE, m->cands.v + r->cand_off, c, r->ncand);
            continue;
        }
        const char *text = core_strtab_str(&m->strs, r->text);
        if (!m->o.no_tokens) {
            if (!m->text &&
                map_text_build(m->g, &(map_text_opts){.aside = m->aside}, &m->text) != 0)
                m->text = NULL;
            map_text_hit hit;
            if (m->text && map_text_tfidf(m->text, text, strlen(text), 1, &hit) == 1 &&
                hit.score >= m->o.tokens_min) {
                float c = hit.score;
                activity_set_syms(m, a, MAP_BY_TOKENS, &hit.symbol, &c, 1);
                continue;
            }
        }
        core_vec_push(&left, a);
    }
    free(nb);
    int rc = 0;
    if (m->o.llm_cmd && left.n > 0) {
        if (!m->text && map_text_build(m->g, &(map_text_opts){.aside = m->aside}, &m->text) != 0)
            m->text = NULL;
        map_llm_item *items = core_xcalloc(left.n, sizeof *items);
        uint32_t *cand = core_xcalloc(left.n * 5, sizeof *cand);
        for (size_t i = 0; i < left.n; i++) {
            const act_rec *r = &m->acts.v[left.v[i]];
            items[i].text = core_strtab_str(&m->strs, r->text);
            items[i].count = r->count;
            map_text_hit hits[5];
            uint32_t nh =
                m->text ? map_text_tfidf(m->text, items[i].text, strlen(items[i].text), 5, hits)
                        : 0;
            for (uint32_t k = 0; k < nh; k++)
                cand[i * 5 + k] = hits[k].symbol;
            items[i].candidates = cand + i * 5;
            items[i].ncandidates = nh;
        }
        map_llm_opts lo = {.cmd = m->o.llm_cmd,
                           .batch = m->o.llm_batch,
                           .timeout_ms = m->o.llm_timeout_ms,
                           .log = m->o.log};
        llm_ctx c = {.m = m, .acts = left.v};
        rc = map_llm_map(m->g, items, left.n, &lo, llm_take, &c, NULL, why, whylen);
        /* Group the proposals per activity (they come in item order). */
        for (size_t i = 0; i < c.props.n;) {
            size_t j = i;
            uint32_t s[MAX_CAND];
            float cf[MAX_CAND];
            uint32_t n = 0;
            double sum = 0;
            while (j < c.props.n && c.props.v[j].act == c.props.v[i].act) {
                float f;
                memcpy(&f, &c.props.v[j].count, sizeof f);
                if (n < MAX_CAND) {
                    s[n] = c.props.v[j].nb;
                    cf[n++] = f;
                    sum += f;
                }
                j++;
            }
            if (sum > 1)
                for (uint32_t k = 0; k < n; k++)
                    cf[k] = (float)(cf[k] / sum);
            activity_set_syms(m, c.props.v[i].act, MAP_BY_LLM, s, cf, n);
            i = j;
        }
        core_vec_free(&c.props);
        free(items);
        free(cand);
    }
    core_vec_free(&left);
    return rc;
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
    activity_set_syms(m, id, a->strategy, a->syms, a->conf, a->nsyms);
    activity_set_cands(m, id, cands, ncand);
    m->acts.v[id].has_const = has_const;
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

uint32_t map__candidates(const map_mapper *m, uint32_t act, const uint32_t **cands, bool *has_const)
{
    const act_rec *a = &m->acts.v[act];
    *cands = a->ncand ? m->cands.v + a->cand_off : NULL;
    *has_const = a->has_const;
    return a->ncand;
}

/* ---- what the case's revision (cases.c) reads and changes ---- */

const float *map__near(map_mapper *m, uint32_t src, uint32_t group)
{
    return near_from(m, src, group);
}

uint32_t map__member(map_mapper *m, uint32_t group, uint32_t sym)
{
    uint32_t a = group_member(m, group, sym);
    return a == m->other ? UINT32_MAX : a;
}

uint32_t map__member_group(const map_mapper *m, uint32_t act)
{
    const act_rec *a = &m->acts.v[act];
    const char *text = core_strtab_str(&m->strs, a->text);
    const char *at = NULL;
    for (const char *p = strstr(text, " @"); p; p = strstr(p + 1, " @"))
        at = p;
    if (!at || a->nsyms != 1)
        return UINT32_MAX;
    uint32_t off = core_strtab_find(&m->strs, text, (size_t)(at - text));
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
