/*
 * Resolution: class hierarchies, every reference as a typed edge (the
 * references of each file in parallel, reading the tables only), and the
 * file-level import and member-of edges.
 */
#include "resolve_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- class hierarchy ---- */

static void add_edge(gb_edge_vec *v, uint32_t src, uint32_t dst, graph_edge_type t, float w)
{
    gb_edge e = {src, dst, w, (uint8_t)t};
    core_vec_push(v, e);
}

void graph__rs_build_hierarchy(rs *r)
{
    uint32_t n = r->nsym;
    core_vec(uint32_t) *bases = core_xcalloc(n ? n : 1, sizeof *bases);
    r->subs = core_xcalloc(n ? n : 1, sizeof *r->subs);
    r->mro = core_xcalloc(n ? n : 1, sizeof *r->mro);
    r->ext_base = core_xcalloc(n ? n : 1, 1);
    /* MROs are needed while resolving base names (Base.Inner); start
     * every class with a trivial one. */
    uint32_t *trivial = core_arena_alloc(&r->arena, 2 * sizeof(uint32_t) * (n ? n : 1));
    for (uint32_t s = 0; s < n; s++) {
        uint8_t k = r->sy[s].kind;
        if (k == GRAPH_SYM_CLASS || k == GRAPH_SYM_INTERFACE || k == GRAPH_SYM_ENUM) {
            trivial[2 * s] = s;
            trivial[2 * s + 1] = UINT32_MAX;
            r->mro[s] = &trivial[2 * s];
        }
    }
    ctx c = {r, 0, &r->arena};
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = xfile(r, (uint32_t)fi);
        if (!x)
            continue;
        for (size_t i = 0; i < x->refs.n; i++) {
            const gx_ref *ref = &x->refs.v[i];
            if (ref->kind != GX_REF_BASE)
                continue;
            uint32_t cls = sym_of(r, (uint32_t)fi, ref->from);
            int fail;
            /* Bases are named in the scope around the class. */
            uint32_t scope = r->sy[cls].parent;
            ent e = graph__rs_resolve_path(&c, scope == GRAPH_NONE ? cls : scope, ref->path,
                                           strlen(ref->path), &fail);
            if (e.k == E_SYM && is_typeish(r, e.id) && e.id != cls) {
                core_vec_push(&bases[cls], e.id);
                core_vec_push(&r->subs[e.id], cls);
            } else if (e.k == E_EXT &&
                       !(is_python(r, (uint32_t)fi) && strcmp(ref->path, "object") == 0)) {
                /* (Python's object, the root of every class, has no
                 * members a call would name: a method no class of ours
                 * defines is not one of its.) */
                r->ext_base[cls] = 1;
            }
        }
    }
    /* MRO: depth-first, left to right, each class once (close to C3 for
     * the hierarchies real code has, and always defined). */
    core_vec(uint32_t) order = {0};
    core_vec(uint32_t) stack = {0};
    uint8_t *seen = core_xcalloc(n ? n : 1, 1);
    for (uint32_t s = 0; s < n; s++) {
        if (!r->mro[s] || bases[s].n == 0)
            continue;
        order.n = 0;
        stack.n = 0;
        core_vec_push(&stack, s);
        while (stack.n && order.n < 256) {
            uint32_t k = stack.v[--stack.n];
            if (seen[k])
                continue;
            seen[k] = 1;
            core_vec_push(&order, k);
            for (size_t b = bases[k].n; b-- > 0;)
                core_vec_push(&stack, bases[k].v[b]);
        }
        for (size_t i = 0; i < order.n; i++)
            seen[order.v[i]] = 0;
        for (size_t i = 0; i < stack.n; i++)
            seen[stack.v[i]] = 0;
        if (order.n == 0) /* s was on the stack, and seen is all clear between classes */
            core_panic("build_hierarchy: class %u missing from its own MRO", s);
        uint32_t *mro = core_arena_alloc(&r->arena, (order.n + 1) * sizeof *mro);
        memcpy(mro, order.v, order.n * sizeof *mro);
        mro[order.n] = UINT32_MAX;
        r->mro[s] = mro;
    }
    /* A class inherits "has an external base" from its bases. */
    for (uint32_t s = 0; s < n; s++) {
        if (!r->mro[s])
            continue;
        for (const uint32_t *m = r->mro[s]; *m != UINT32_MAX; m++)
            if (r->ext_base[*m])
                r->ext_base[s] = 1;
    }
    for (uint32_t s = 0; s < n; s++) {
        for (size_t b = 0; b < bases[s].n; b++)
            add_edge(&r->g->edges, s, bases[s].v[b], GRAPH_EDGE_INHERITS, 1.0f);
        core_vec_free(&bases[s]);
    }
    free(bases);
    free(seen);
    core_vec_free(&order);
    core_vec_free(&stack);
}

/* ---- references ---- */

typedef struct {
    rs *r;
    atomic_uint next;
    gb_edge_vec *edges;  /* per thread */
    uint32_t *ref_const; /* per global emit */
    atomic_ullong calls, resolved, internal, internal_resolved;
} ref_job;

/* Overrides of a method name in the subclasses of cls (transitively). */
/* What the subclasses of cls (all the way down) bind to name in km: their
 * methods (children), or their constants (consts). */
static void collect_down(const rs *r, const keymap *km, uint32_t cls, const char *name, size_t len,
                         uint32_t *out, uint32_t *nout, uint32_t cap, int depth)
{
    if (depth > 16)
        return;
    for (size_t i = 0; i < r->subs[cls].n; i++) {
        uint32_t sub = r->subs[cls].v[i];
        uint32_t v = km_first(km, sub, name, len);
        if (v != UINT32_MAX && *nout < cap) {
            bool dup = false;
            for (uint32_t k = 0; k < *nout; k++)
                dup |= out[k] == v;
            if (!dup)
                out[(*nout)++] = v;
        }
        collect_down(r, km, sub, name, len, out, nout, cap, depth + 1);
    }
}

void graph__rs_collect_overrides(const rs *r, uint32_t cls, const char *name, size_t len,
                                 uint32_t *out, uint32_t *nout, uint32_t cap, int depth)
{
    collect_down(r, &r->children, cls, name, len, out, nout, cap, depth);
}

/* Constructor of a class: __init__ / constructor along the MRO. */
static uint32_t constructor_of(ctx *c, uint32_t cls)
{
    rs *r = c->r;
    static const char *const names[] = {"__init__", "constructor"};
    for (int i = 0; i < 2; i++) {
        ent e = graph__rs_class_member(c, cls, names[i], strlen(names[i]), false, 0);
        if (e.k == E_SYM && r->sy[e.id].kind == GRAPH_SYM_METHOD)
            return e.id;
    }
    return GRAPH_NONE;
}

const char *graph__rs_last_part(const char *path, size_t *len)
{
    const char *dot = strrchr(path, '.');
    const char *p = dot ? dot + 1 : path;
    *len = strlen(p);
    return p;
}

/* A reference that is no call (a type, a value read or written), to e:
 * a USES or ACCESSES edge when it names one of ours. */
static void value_edge(const rs *r, gb_edge_vec *out, const gx_ref *ref, uint32_t from, ent e)
{
    if (e.k != E_SYM)
        return;
    uint8_t k = r->sy[e.id].kind;
    if (ref->kind == GX_REF_TYPE) {
        if (is_typeish(r, e.id))
            add_edge(out, from, e.id, GRAPH_EDGE_USES, 1.0f);
    } else if (k == GRAPH_SYM_FUNCTION || k == GRAPH_SYM_METHOD || k == GRAPH_SYM_CLASS) {
        /* A function passed as a value, a property read, a class used as
         * a value. */
        if (e.id != from)
            add_edge(out, from, e.id, GRAPH_EDGE_ACCESSES, 1.0f);
    }
}

/*
 * Is a call (to e, with method name m) a call "to an in-repo name": its
 * callee name is defined in the repository, and it is not known to go
 * elsewhere: not through a library object, not an unshadowed builtin,
 * not a container method (append, get, ...) called on a receiver we know
 * nothing about?
 */
static bool internal_name(const rs *r, const gx_ref *ref, uint32_t from, ent e, const char *m,
                          size_t mlen)
{
    uint32_t it;
    bool dotted = strchr(ref->path, '.') != NULL;
    return e.k != E_EXT && core_smap_get(&r->names, m, mlen, &it) != UINT32_MAX &&
           !(e.k == E_NONE && !dotted && graph__rs_is_variable(r, from, m, mlen)) &&
           !(e.k == E_NONE && dotted && graph__rs_is_container_method(m, mlen));
}

/* CALLS edges from `from` for a call of m on an instance of cls that may
 * run the overrides of m in its subclasses, each of weight w / their
 * number (the one called, skip, left out). Returns how many overrides
 * there are. */
static uint32_t override_edges(const rs *r, gb_edge_vec *out, uint32_t from, uint32_t cls,
                               const char *m, size_t mlen, uint32_t skip, float w)
{
    uint32_t ov[16], nov = 0;
    if (cls != GRAPH_NONE)
        graph__rs_collect_overrides(r, cls, m, mlen, ov, &nov, 16, 0);
    for (uint32_t k = 0; k < nov; k++)
        if (ov[k] != skip)
            add_edge(out, from, ov[k], GRAPH_EDGE_CALLS, w / (float)nov);
    return nov;
}

/* CALLS edges from `from` for a call of method e on a receiver bound to
 * instances of several classes (a strategy or backend chosen at run
 * time): to each class's method of that name, weighing what the
 * bindings reach evenly (two classes sharing an inherited method give it
 * twice the weight). False when e is no such call. */
static bool poly_edges(ctx *c, gb_edge_vec *out, uint32_t from, ent e)
{
    rs *r = c->r;
    if (e.poly == POLY_NONE || r->sy[e.id].kind != GRAPH_SYM_METHOD)
        return false;
    uint32_t cls[16], t[16], nt = 0;
    uint32_t nc = graph__rs_poly_classes(c, e, cls, 16);
    const char *name = r->sy[e.id].name;
    c->depth = 0;
    for (uint32_t i = 0; i < nc; i++) {
        ent m = graph__rs_class_member(c, cls[i], name, strlen(name), true, 0);
        if (m.k == E_SYM && r->sy[m.id].kind == GRAPH_SYM_METHOD)
            t[nt++] = m.id;
    }
    if (nt < 2)
        return false;
    for (uint32_t i = 0; i < nt; i++)
        add_edge(out, from, t[i], GRAPH_EDGE_CALLS, 1.0f / (float)nt);
    return true;
}

/* The CALLS edges of a call from `from` to e (method name m); true if
 * the call resolved. */
static bool call_edges(ctx *c, gb_edge_vec *out, const gx_ref *ref, uint32_t from, ent e,
                       const char *m, size_t mlen)
{
    rs *r = c->r;
    if (e.k == E_SYM) {
        uint8_t k = r->sy[e.id].kind;
        uint32_t target = e.id;
        if (is_class(r, e.id)) {
            uint32_t ctor = constructor_of(c, e.id);
            target = ctor != GRAPH_NONE ? ctor : e.id;
        } else if (k == GRAPH_SYM_MODULE) {
            /* require('./x')() calls what the module exports. */
            c->depth = 0;
            ent d = graph__rs_export_lookup(c, e.id, "default", 7);
            target = d.k == E_SYM ? d.id : GRAPH_NONE;
        }
        if (target == GRAPH_NONE)
            return false;
        if (poly_edges(c, out, from, e))
            return true;
        add_edge(out, from, target, GRAPH_EDGE_CALLS, 1.0f);
        /* self.m() may run an override in a subclass; so does any call
         * of an abstract method. */
        bool self_call =
            strncmp(ref->path, "@self.", 6) == 0 && r->sy[target].kind == GRAPH_SYM_METHOD;
        if (self_call)
            override_edges(r, out, from, class_of(r, from), m, mlen, target, 0.5f);
        uint32_t owner = r->sy[target].parent;
        if (r->sy[target].kind == GRAPH_SYM_METHOD && (r->sy[target].flags & GRAPH_SF_ABSTRACT) &&
            !(self_call && owner == class_of(r, from)))
            override_edges(r, out, from, owner, m, mlen, target, 1.0f);
        return true;
    }
    if (e.k == E_INST) {
        ent call = graph__rs_class_member(c, e.id, "__call__", 8, true, 0);
        if (call.k != E_SYM)
            return false;
        add_edge(out, from, call.id, GRAPH_EDGE_CALLS, 1.0f);
        return true;
    }
    if (e.k != E_NONE)
        return false;
    /* self.m() defined only in subclasses (template methods). */
    if (strncmp(ref->path, "@self.", 6) == 0 && !strchr(ref->path + 6, '.') &&
        override_edges(r, out, from, class_of(r, from), m, mlen, GRAPH_NONE, 1.0f) > 0)
        return true;
    /* x.m() on an attribute holding an instance of a class or an
     * interface that only its subclasses or implementations give m
     * (`this.formatter.format(e)` with `formatter: Formatter`): any of
     * theirs. Not on a local or a parameter (`exporter.export()` in a
     * loop over every exporter): on otel-sdk's sources that put edges to
     * every implementation of its widest interfaces, and placed 1.2% of
     * the events less right than the attributes alone. */
    const char *rdot = m > ref->path + 1 && m[-1] == '.'
                           ? memchr(ref->path, '.', (size_t)(m - 1 - ref->path))
                           : NULL;
    if (rdot) {
        int rf;
        c->depth = 0;
        ent recv = graph__rs_resolve_path(c, from, ref->path, (size_t)(m - 1 - ref->path), &rf);
        if (recv.k == E_INST &&
            override_edges(r, out, from, recv.id, m, mlen, GRAPH_NONE, 1.0f) > 0)
            return true;
    }
    /* x.m() on an unknown receiver: a method name used once in the
     * repository. */
    if (strchr(ref->path, '.') && !(mlen > 4 && m[0] == '_' && m[1] == '_')) {
        uint32_t it, first = core_smap_get(&r->methods, m, mlen, &it);
        if (first != UINT32_MAX && core_smap_next(&r->methods, m, mlen, &it) == UINT32_MAX &&
            first != from) {
            add_edge(out, from, first, GRAPH_EDGE_CALLS, 0.5f);
            return true;
        }
    }
    return false;
}

/* Emits whose message is a name: the constant it names. */
static void emit_consts(ref_job *job, ctx *c, uint32_t fi)
{
    rs *r = job->r;
    const gx_file *x = r->idx->files.v[fi].x;
    for (size_t i = 0; i < x->emits.n; i++) {
        const gx_emit *em = &x->emits.v[i];
        if (!em->ref)
            continue;
        int fail;
        c->depth = 0;
        ent e = graph__rs_resolve_path(c, sym_of(r, fi, em->sym), em->ref, strlen(em->ref), &fail);
        if (e.k == E_CONST)
            job->ref_const[r->emit_base[fi] + i] = e.id;
    }
}

/* A message a method of a class logs by its name on the instance
 * (`self.log.info(self.MSG_OPEN, name)`), which subclasses give texts of
 * their own (`MSG_OPEN = "Opening CSV file %s"`): the site logs each
 * subclass's text too, one site per text (after the emits in file
 * order, whose ids calls point at). */
static void overridden_formats(rs *r)
{
    gb_graph *g = r->g;
    size_t n = g->emits.n;
    for (size_t i = 0; i < n; i++) {
        const gb_emit e = g->emits.v[i]; /* (pushes below move the vector) */
        if (e.kind == GRAPH_EMIT_CONST || e.kind == GRAPH_EMIT_CALL || !e.ref ||
            e.symbol == GRAPH_NONE)
            continue;
        const char *ref = core_strtab_str(&g->strs, e.ref);
        const char *name = strncmp(ref, "@self.", 6) == 0  ? ref + 6
                           : strncmp(ref, "@cls.", 5) == 0 ? ref + 5
                                                           : NULL;
        uint32_t cls = name && !strchr(name, '.') ? class_of(r, e.symbol) : GRAPH_NONE;
        if (cls == GRAPH_NONE)
            continue;
        uint32_t ov[16], nov = 0;
        collect_down(r, &r->consts, cls, name, strlen(name), ov, &nov, 16, 0);
        for (uint32_t k = 0; k < nov; k++) {
            if (ov[k] == e.ref_const)
                continue;
            gb_emit v = e;
            v.ref_const = ov[k];
            core_vec_push(&g->emits, v);
        }
    }
}

/* Whether global emit id (a constant a name resolved to) holds a format:
 * a template with holes. */
static bool names_format(const rs *r, uint32_t id)
{
    size_t lo = 0, hi = r->idx->files.n;
    if (id == GRAPH_NONE || id >= r->emit_base[hi])
        return false;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r->emit_base[mid] <= id)
            lo = mid;
        else
            hi = mid;
    }
    const gx_file *x = r->idx->files.v[lo].x;
    const gx_emit *c = x ? &x->emits.v[id - r->emit_base[lo]] : NULL;
    return c && c->tmpl && graph__tmpl_has_hole(c->tmpl);
}

/* A name a function returns, alone (`return FORMAT.format(**f)`) or in a
 * structure (GRAPH_EF_MEMBER), is a format when it names a constant with
 * holes: the site (an unnamed constant) takes its text. Others are
 * dropped with the candidates (compact_emits). */
static void returned_members(gb_graph *g)
{
    for (size_t i = 0; i < g->emits.n; i++) {
        gb_emit *e = &g->emits.v[i];
        if (e->kind != GRAPH_EMIT_CONST || e->style != GRAPH_STYLE_REF ||
            core_strtab_str(&g->strs, e->name)[0])
            continue;
        const gb_emit *c = e->ref_const < g->emits.n ? &g->emits.v[e->ref_const] : NULL;
        if (c && c->tmpl && c->style != GRAPH_STYLE_REF &&
            graph__tmpl_has_hole(core_strtab_str(&g->strs, c->tmpl))) {
            e->tmpl = c->tmpl;
            e->style = c->style;
        } else {
            e->kind = GRAPH_EMIT_CALL;
            e->style = GRAPH_STYLE_NONE;
            e->tmpl = 0;
        }
    }
}

static void resolve_file(ref_job *job, gb_edge_vec *out, core_arena *arena, uint32_t fi)
{
    rs *r = job->r;
    gb_file *f = &r->idx->files.v[fi];
    const gx_file *x = f->x;
    ctx c = {r, 0, arena};
    uint64_t calls = 0, resolved = 0, internal = 0, internal_resolved = 0;
    for (size_t i = 0; i < x->refs.n; i++) {
        const gx_ref *ref = &x->refs.v[i];
        if (ref->kind == GX_REF_BASE)
            continue;
        uint32_t from = sym_of(r, fi, ref->from);
        int fail;
        c.depth = 0;
        ent e = graph__rs_resolve_path(&c, from, ref->path, strlen(ref->path), &fail);
        if (ref->kind != GX_REF_CALL && ref->kind != GX_REF_NEW && ref->kind != GX_REF_JSX) {
            value_edge(r, out, ref, from, e);
            continue;
        }
        calls++;
        size_t mlen;
        const char *m = graph__rs_last_part(ref->path, &mlen);
        bool in_repo = internal_name(r, ref, from, e, m, mlen);
        internal += in_repo;
        bool ok = call_edges(&c, out, ref, from, e, m, mlen);
        resolved += ok;
        internal_resolved += ok && in_repo;
    }
    emit_consts(job, &c, fi);
    f->calls = (uint32_t)calls;
    f->calls_resolved = (uint32_t)resolved;
    atomic_fetch_add(&job->calls, calls);
    atomic_fetch_add(&job->resolved, resolved);
    atomic_fetch_add(&job->internal, internal);
    atomic_fetch_add(&job->internal_resolved, internal_resolved);
}

static void ref_worker(void *arg, unsigned t)
{
    ref_job *job = arg;
    core_arena arena;
    core_arena_init(&arena, 0);
    for (;;) {
        unsigned fi = atomic_fetch_add(&job->next, 1);
        if (fi >= job->r->idx->files.n)
            break;
        if (!job->r->idx->files.v[fi].x)
            continue;
        resolve_file(job, &job->edges[t], &arena, fi);
        core_arena_reset(&arena);
    }
    core_arena_free(&arena);
}

/* Whether an emit site logs through an attribute of the instance
 * ("@self.logger", "@this.log"): the object its class or a base class
 * bound to that attribute. */
static bool instance_receiver(const gb_graph *g, const gb_emit *e)
{
    return e->kind == GRAPH_EMIT_LOG && e->receiver &&
           core_strtab_str(&g->strs, e->receiver)[0] == '@';
}

/*
 * A logger bound to an instance attribute in a base class (Client's
 * __init__ sets self.logger) is the logger of that attribute in every
 * subclass, whatever file the subclass is in; the extractor sees one file
 * and names it only where the binding is in sight. So a site of a class
 * that logs through an attribute without a known logger takes the logger
 * that sites of its nearest base class (in MRO order) log the same
 * attribute through. The log's logger names then tell such a site from
 * its base class's twin no more than they should: not at all.
 */
static void inherited_loggers(rs *r)
{
    gb_graph *g = r->g;
    core_map named = {0}; /* class << 32 | receiver -> logger */
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        if (!e->logger || !instance_receiver(g, e))
            continue;
        uint32_t cls = e->symbol < r->nsym ? class_of(r, e->symbol) : GRAPH_NONE;
        if (cls == GRAPH_NONE)
            continue;
        bool fresh;
        uint64_t *v = core_map_put(&named, (uint64_t)cls << 32 | e->receiver, &fresh);
        if (fresh)
            *v = e->logger;
    }
    for (size_t i = 0; named.n && i < g->emits.n; i++) {
        gb_emit *e = &g->emits.v[i];
        if (e->logger || !instance_receiver(g, e))
            continue;
        uint32_t cls = e->symbol < r->nsym ? class_of(r, e->symbol) : GRAPH_NONE;
        const uint32_t *mro = cls == GRAPH_NONE ? NULL : r->mro[cls];
        for (size_t k = 1; mro && mro[k] != UINT32_MAX; k++) {
            const uint64_t *v = core_map_get(&named, (uint64_t)mro[k] << 32 | e->receiver);
            if (v) {
                e->logger = (uint32_t)*v;
                break;
            }
        }
    }
    core_map_free(&named);
}

/*
 * The logger a Python module binds at its top level to a name and file fi
 * imports under `name` in scope (or a scope around it): `from .log import
 * gen_log` names "tornado.general" when log.py says `gen_log =
 * logging.getLogger("tornado.general")`. Followed through re-exports
 * (`from .log import gen_log` in a package's __init__). NULL when the
 * name is not imported, or not bound to one logger there.
 */
static const char *imported_logger(rs *r, uint32_t fi, uint32_t scope, const char *name, int depth)
{
    size_t len = strlen(name);
    uint32_t num = UINT32_MAX;
    for (uint32_t s = scope; s != GRAPH_NONE && num == UINT32_MAX; s = r->sy[s].parent)
        num = km_first(&r->imports, s, name, len);
    if (num == UINT32_MAX || depth > 4)
        return NULL;
    const gx_import *m = r->imp[num].m;
    if (m->kind != GX_IMP_NAME || !m->name)
        return NULL;
    char buf[512];
    const char *mod = graph__rs_py_abs_module(r, fi, m->module, buf, sizeof buf);
    uint32_t msym = mod ? graph__rs_find_module(r, mod, strlen(mod)) : GRAPH_NONE;
    if (msym == GRAPH_NONE)
        return NULL;
    uint32_t mfile = r->sy[msym].file, it;
    const char *found = NULL;
    size_t nlen = strlen(m->name);
    for (uint32_t b = km_get(&r->binds, msym, m->name, nlen, &it); b != UINT32_MAX;
         b = km_next(&r->binds, msym, m->name, nlen, &it)) {
        const char *lg = r->bind[b].b->logger;
        if (lg && strcmp(lg, "__name__") == 0)
            lg = r->idx->files.v[mfile].modname;
        if (!lg || (found && strcmp(found, lg) != 0))
            return NULL; /* bound to something else too */
        found = lg;
    }
    return found ? found : imported_logger(r, mfile, msym, m->name, depth + 1);
}

/* The class a registry's entry names (gx_lit.target): a name or an
 * attribute chain as scope sees it, else an absolute dotted path, module
 * then name (the class may be in a module nothing here imports: a
 * registry names it to import it on demand). GRAPH_NONE for anything but
 * one of our classes. */
static uint32_t registry_class(rs *r, uint32_t scope, const char *target)
{
    ctx c = {r, 0, &r->arena};
    int fail;
    ent e = graph__rs_resolve_path(&c, scope, target, strlen(target), &fail);
    if (e.k != E_SYM) {
        const char *dot = strrchr(target, '.');
        uint32_t m = dot ? graph__rs_find_module(r, target, (size_t)(dot - target)) : GRAPH_NONE;
        c.depth = 0;
        e = m == GRAPH_NONE ? NONE_ENT : graph__rs_export_lookup(&c, m, dot + 1, strlen(dot + 1));
    }
    return e.k == E_SYM && r->sy[e.id].kind == GRAPH_SYM_CLASS ? e.id : GRAPH_NONE;
}

/* Duplicated files share an extraction but are their own modules: they
 * are resolved like any other file. */
void graph__rs_resolve_refs(rs *r, unsigned threads)
{
    ref_job job = {0};
    job.r = r;
    atomic_init(&job.next, 0);
    job.edges = core_xcalloc(threads, sizeof *job.edges);
    job.ref_const = core_xmalloc((r->emit_base[r->idx->files.n] + 1) * sizeof *job.ref_const);
    memset(job.ref_const, 0xff, (r->emit_base[r->idx->files.n] + 1) * sizeof *job.ref_const);
    core_parallel(threads, ref_worker, &job);
    for (unsigned t = 0; t < threads; t++) {
        for (size_t i = 0; i < job.edges[t].n; i++)
            core_vec_push(&r->g->edges, job.edges[t].v[i]);
        core_vec_free(&job.edges[t]);
    }
    free(job.edges);
    r->idx->st.calls = atomic_load(&job.calls);
    r->idx->st.calls_resolved = atomic_load(&job.resolved);
    r->idx->st.calls_internal = atomic_load(&job.internal);
    r->idx->st.calls_internal_resolved = atomic_load(&job.internal_resolved);

    /* Emits, in file order, with their resolved constants. */
    gb_graph *g = r->g;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gb_file *f = &r->idx->files.v[fi];
        if (!f->x)
            continue;
        for (size_t i = 0; i < f->x->emits.n; i++) {
            const gx_emit *e = &f->x->emits.v[i];
            gb_emit o = {0};
            o.symbol = sym_of(r, (uint32_t)fi, e->sym);
            o.line = e->line;
            o.tmpl = e->tmpl ? core_strtab_intern(&g->strs, e->tmpl, strlen(e->tmpl)) : 0;
            o.receiver =
                e->receiver ? core_strtab_intern(&g->strs, e->receiver, strlen(e->receiver)) : 0;
            o.method = e->method ? core_strtab_intern(&g->strs, e->method, strlen(e->method)) : 0;
            const char *lg = e->logger;
            if (lg && strcmp(lg, "__name__") == 0)
                lg = f->modname;
            if (!lg && e->kind == GRAPH_EMIT_LOG && e->receiver && is_python(r, (uint32_t)fi) &&
                e->receiver[strcspn(e->receiver, ".@?")] == '\0')
                lg = imported_logger(r, (uint32_t)fi, sym_of(r, (uint32_t)fi, e->sym), e->receiver,
                                     0);
            o.logger = lg ? core_strtab_intern(&g->strs, lg, strlen(lg)) : 0;
            o.ref_const = job.ref_const[r->emit_base[fi] + i];
            /* (A name returned, alone or in a structure, that names no constant is
             * dropped by returned_members: nothing of it is kept.) */
            bool returned = e->kind == GRAPH_EMIT_CONST && e->style == GRAPH_STYLE_REF && e->name &&
                            !e->name[0];
            bool gone = returned && !names_format(r, o.ref_const);
            o.ref = e->ref && !gone ? core_strtab_intern(&g->strs, e->ref, strlen(e->ref)) : 0;
            o.name = e->name ? core_strtab_intern(&g->strs, e->name, strlen(e->name)) : 0;
            o.nargs = e->nargs;
            o.flags = e->flags;
            o.kind = e->kind;
            o.style = e->style;
            o.level = e->level;
            core_vec_push(&g->emits, o);
        }
        for (size_t i = 0; i < f->x->lits.n; i++) {
            const gx_lit *l = &f->x->lits.v[i];
            uint32_t sym = l->target ? registry_class(r, sym_of(r, (uint32_t)fi, l->sym), l->target)
                                     : sym_of(r, (uint32_t)fi, l->sym);
            if (sym != GRAPH_NONE)
                core_vec_push(
                    &g->lits,
                    ((gb_lit){core_strtab_intern(&g->strs, l->text, strlen(l->text)), sym}));
        }
    }
    free(job.ref_const);
    overridden_formats(r);
    returned_members(g);
    inherited_loggers(r);
}

/* File-level import edges and member_of. */
void graph__rs_structural_edges(rs *r)
{
    ctx c = {r, 0, &r->arena};
    for (size_t i = 0; i < r->nimp; i++) {
        uint32_t fi = r->imp[i].file;
        const gx_import *im = r->imp[i].m;
        uint32_t m = r->idx->files.v[fi].module_sym;
        c.depth = 0;
        ent e;
        if (im->kind == GX_IMP_STAR) {
            if (is_python(r, fi)) {
                char buf[1024];
                const char *abs = graph__rs_py_abs_module(r, fi, im->module, buf, sizeof buf);
                uint32_t t = abs ? graph__rs_find_module(r, abs, strlen(abs)) : GRAPH_NONE;
                e = t == GRAPH_NONE ? NONE_ENT : mk(E_SYM, t);
            } else {
                uint32_t tf = graph__rs_resolve_spec(r, fi, im->module);
                e = tf == UINT32_MAX || !r->idx->files.v[tf].x
                        ? NONE_ENT
                        : mk(E_SYM, r->idx->files.v[tf].module_sym);
            }
        } else if (is_python(r, fi) && im->kind == GX_IMP_MODULE && !im->alias) {
            /* import a.b.c: the edge goes to a.b.c itself. */
            char buf[1024];
            const char *abs = graph__rs_py_abs_module(r, fi, im->module, buf, sizeof buf);
            uint32_t t = abs ? graph__rs_find_module(r, abs, strlen(abs)) : GRAPH_NONE;
            e = t == GRAPH_NONE ? NONE_ENT : mk(E_SYM, t);
        } else {
            e = graph__rs_resolve_import(&c, (uint32_t)i, NULL, 0);
        }
        if (e.k == E_SYM && e.id != m)
            add_edge(&r->g->edges, m, e.id, GRAPH_EDGE_IMPORTS, 1.0f);
    }
    for (uint32_t s = 0; s < r->nsym; s++)
        if (r->sy[s].parent != GRAPH_NONE)
            add_edge(&r->g->edges, s, r->sy[s].parent, GRAPH_EDGE_MEMBER_OF, 1.0f);
}
