/*
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
#include "map_int.h"

#include <stdlib.h>
#include <string.h>

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

/* Whether symbol u is container c or one of its own members. */
static bool within(const graph *g, uint32_t u, uint32_t c)
{
    if (u == c)
        return true;
    graph_symbol s;
    graph_get_symbol(g, u, &s);
    return s.parent == c;
}

/* Whether an edge of u (either way) reaches container d or its members. */
static bool touches(const graph *g, uint32_t u, uint32_t d)
{
    for (int dir = 0; dir < 2; dir++) {
        uint32_t n;
        const graph_edge *e = dir ? graph_in_edges(g, u, &n) : graph_out_edges(g, u, &n);
        for (uint32_t i = 0; i < n; i++)
            if (e[i].type != GRAPH_EDGE_MEMBER_OF && within(g, e[i].node, d))
                return true;
    }
    return false;
}

/* Whether container c (a class or a module) or one of its own members
 * has an edge to container d or one of its own members: the code of one
 * names the other, not merely something both inherit from. */
static bool linked(const graph *g, uint32_t c, uint32_t d)
{
    if (c == d || touches(g, c, d))
        return true;
    uint32_t n;
    const graph_edge *e = graph_in_edges(g, c, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].type == GRAPH_EDGE_MEMBER_OF && touches(g, e[i].node, d))
            return true;
    return false;
}

/* The most classes the object running a method is looked for among. */
#define RUNNERS_MAX 32

/* The containers whose code may be running when sym logs: a method's
 * class and its subclasses that do not override it (an object of any of
 * them runs it), else sym's module. Returns how many (at most max). */
static uint32_t runners(const graph *g, uint32_t sym, uint32_t *out, uint32_t max)
{
    out[0] = container_of(g, sym);
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
            if (!dup && dispatch(g, e[i].node, s.name, CLASS_DEPTH) == sym)
                out[n++] = e[i].node;
        }
    }
    return n;
}

/* Which candidates' containers are linked to one that may be running
 * evidence site sym (run[i]); returns how many are. */
static uint32_t links(const graph *g, uint32_t sym, const uint32_t *cands, uint32_t nc, bool *run)
{
    uint32_t r[RUNNERS_MAX];
    uint32_t nr = runners(g, sym, r, RUNNERS_MAX), n = 0;
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t c = container_of(g, cands[i]);
        run[i] = false;
        for (uint32_t k = 0; k < nr && !run[i]; k++)
            run[i] = linked(g, c, r[k]);
        n += run[i];
    }
    return n;
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
 * Whether a group's candidates are variants: methods of several classes,
 * each pair of classes one and a subclass, and each method overriding or
 * overridden by one of another class of the group (the same name). Such
 * a subclass is another implementation of the same part (the
 * asynchronous client of a synchronous one, a platform's reactor of the
 * portable one), and the object a case runs is of one class or the
 * other. Different methods of a class and its subclass run in one object,
 * classes that only share a base often play different parts side by side
 * (a client's and a server's, mixins of one object), and sites of one
 * class run in the same object: for those the recent events' nearness
 * decides.
 */
bool map__variants(const map_mapper *m, uint32_t group)
{
    const graph *g = map_mapper_graph(m);
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, group, &cands, &has_const);
    if (has_const || nc < 2)
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
            if (b == GRAPH_NONE ||
                (!is_or_inherits(g, a, b, CLASS_DEPTH) && !is_or_inherits(g, b, a, CLASS_DEPTH)))
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
    if ((a.amb == MAP_AMB_TIED || a.amb == MAP_AMB_TRACES) && a.nsyms > 1)
        group = act;
    else if (a.amb == MAP_AMB_CASE)
        group = map__member_group(m, act);
    return group != UINT32_MAX && map__variants(m, group) && !map__side_by_side(m, group)
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
    for (uint32_t i = 0; i < n; i++)
        nev = add_site(ev, nev, evidence_of(m, act[i]));
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

uint32_t map__pick_recent(map_mapper *m, uint32_t group, const uint32_t *recent, uint32_t n,
                          bool *several)
{
    uint32_t ev[MAP_RECENT], nev = 0;
    for (uint32_t k = n > MAP_RECENT ? n - MAP_RECENT : 0; k < n; k++) {
        uint32_t site = evidence_of(m, recent[k]);
        /* An event this decided tells the next ones as a case's revision
         * tells them (map_mapper_revise's picks): a variant's sites
         * follow one another, and its first telling event soon leaves the
         * recent ones. */
        if (site == GRAPH_NONE && group_of(m, recent[k]) != UINT32_MAX) {
            map_activity a;
            map_mapper_activity(m, recent[k], &a);
            site = a.nsyms == 1 ? a.syms[0] : GRAPH_NONE;
        }
        nev = add_site(ev, nev, site);
    }
    return decide(m, group, ev, nev, several);
}
