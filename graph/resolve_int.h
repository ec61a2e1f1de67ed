/*
 * resolve_int.h - private to resolution (resolve*.c): the resolver's
 * state and tables, what a name stands for, and what its files share.
 *
 * The files, from the ground up: resolve_builtins.c (names that are not
 * the repository's), resolve_tables.c (module names, global symbols and
 * the lookup tables), resolve_modules.c (the module an import names),
 * resolve_lookup.c (what a name or a dotted path stands for in a scope),
 * resolve_edges.c (class hierarchies, and every reference as an edge),
 * resolve_wrappers.c (logging wrappers: emit sites at their calls) and
 * resolve.c (the phases, graph__resolve()). Each calls only files before
 * it in that order.
 */
#ifndef PMRAG_RESOLVE_INT_H
#define PMRAG_RESOLVE_INT_H

#include "graph_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- a map keyed by (id, name) ---- */

typedef struct {
    uint32_t id;
    uint32_t val;
    const char *name;
    uint32_t len;
    uint32_t next;
} km_ent;

typedef struct {
    core_map heads;
    km_ent *ent;
    size_t n, cap;
} keymap;

static inline uint64_t km_hash(uint32_t id, const char *name, size_t len)
{
    return (core_hash64(name, len, id) ^ core_hash_u64(id)) & ~(uint64_t)0 >> 1;
}

static inline void km_add(keymap *m, uint32_t id, const char *name, size_t len, uint32_t val)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->ent = core_xrealloc(m->ent, m->cap * sizeof *m->ent);
    }
    bool ins;
    uint64_t *head = core_map_put(&m->heads, km_hash(id, name, len), &ins);
    uint32_t e = (uint32_t)m->n++;
    m->ent[e] = (km_ent){id, val, name, (uint32_t)len, ins ? UINT32_MAX : (uint32_t)*head};
    *head = e;
}

/* First value for (id, name) at or after entry *it; UINT32_MAX if none. */
static inline uint32_t km_scan(const keymap *m, uint32_t id, const char *name, size_t len,
                               uint32_t e, uint32_t *it)
{
    for (; e != UINT32_MAX; e = m->ent[e].next) {
        const km_ent *x = &m->ent[e];
        if (x->id == id && x->len == len && memcmp(x->name, name, len) == 0) {
            *it = x->next;
            return x->val;
        }
    }
    *it = UINT32_MAX;
    return UINT32_MAX;
}

static inline uint32_t km_get(const keymap *m, uint32_t id, const char *name, size_t len,
                              uint32_t *it)
{
    uint64_t *head = core_map_get(&m->heads, km_hash(id, name, len));
    if (!head) {
        *it = UINT32_MAX;
        return UINT32_MAX;
    }
    return km_scan(m, id, name, len, (uint32_t)*head, it);
}

static inline uint32_t km_next(const keymap *m, uint32_t id, const char *name, size_t len,
                               uint32_t *it)
{
    return km_scan(m, id, name, len, *it, it);
}

static inline uint32_t km_first(const keymap *m, uint32_t id, const char *name, size_t len)
{
    uint32_t it;
    return km_get(m, id, name, len, &it);
}

static inline void km_free(keymap *m)
{
    core_map_free(&m->heads);
    free(m->ent);
}

/* ---- resolver state ---- */

typedef struct {
    uint32_t file;
    int32_t local;   /* index in the file's syms; -1 for the module */
    uint32_t parent; /* GRAPH_NONE for modules */
    uint8_t kind;
    uint32_t flags;
    const char *name;
} rsym;

typedef struct {
    gb_index *idx;
    gb_graph *g;
    core_arena arena;
    rsym *sy;
    uint32_t nsym;
    core_smap modules;  /* module qualname -> file */
    core_smap prefixes; /* Python package prefixes "a", "a.b" -> 1 */
    core_smap paths;    /* rel path -> file */
    keymap children;    /* (parent sym, name) -> sym */
    keymap binds;       /* (scope sym, name) -> bind number */
    keymap attrs;       /* (class sym, attr) -> bind number of "@self.attr" */
    keymap imports;     /* (scope sym, alias) -> import number */
    keymap consts;      /* (owner sym, name) -> emit id */
    keymap exports;     /* (module sym, name) -> export number */
    keymap containers;  /* (scope sym, object name) -> 1 */
    core_smap methods;  /* method name -> sym (the unique-name heuristic) */
    core_smap names;    /* every symbol name -> sym (what counts as an in-repo callee) */
    /* Flattened per-file records, numbered globally. */
    struct {
        uint32_t file;
        const gx_bind *b;
    } * bind;
    struct {
        uint32_t file;
        const gx_import *m;
    } * imp;
    struct {
        uint32_t file;
        const gx_export *e;
    } * exp;
    size_t nbind, nimp, nexp;
    uint32_t *star_first; /* per module sym: first star import in star[] (CSR) */
    uint32_t *star;       /* import numbers of `from x import *` / export * */
    /* Class hierarchy. */
    uint32_t **mro;            /* per class sym: its MRO (itself first), UINT32_MAX-terminated */
    uint8_t *ext_base;         /* per class sym: a base class is outside the repository */
    uint8_t *classlike;        /* per sym: a class, or a JS constructor function with methods */
    core_vec(uint32_t) * subs; /* per class sym: direct subclasses */
    uint32_t *emit_base;       /* per file: global id of its first emit */
    /* Calls passing a name chain (gx_pass), numbered globally, and by
     * the function they call: (callee sym, "") -> pass number. */
    struct {
        uint32_t file;
        const gx_pass *p;
    } * pass;
    keymap passes;
    uint32_t *ptype; /* per bind: the class a parameter's callers pass, or GRAPH_NONE */
} rs;

/*
 * What a name stands for: a symbol; an instance of a class; something
 * outside the repository; a Python package prefix with no module of its
 * own (namespace packages, `import a.b` binding a); a string constant; or
 * an object literal's name whose methods are symbols with a container
 * (`const api = { get() {} }`: "api" under its scope).
 */
typedef enum { E_NONE = 0, E_SYM, E_INST, E_EXT, E_MODPATH, E_CONST, E_CONT } ekind;

typedef struct {
    uint8_t k;
    /* E_INST, and E_SYM of a member looked up on one: a name bound to
     * instances of several classes (`self.strategy = Sync(self)` on one
     * branch, `MockSync(self)` on another), which this ent names by its
     * latest binding; POLY_ATTR when the name is an attribute of class
     * poly_scope, POLY_BIND a variable of scope poly_scope, and mp, mplen
     * the name (graph__rs_poly_classes gives them all). */
    uint8_t poly;
    uint32_t id;    /* E_SYM/E_INST/E_CONST; E_CONT: the scope */
    const char *mp; /* E_MODPATH: the prefix; E_CONT: the container name; poly: the name */
    uint32_t mplen;
    uint32_t poly_scope;
} ent;

enum { POLY_NONE = 0, POLY_ATTR, POLY_BIND };

static const ent NONE_ENT = {E_NONE, POLY_NONE, 0, NULL, 0, 0};

#define MAX_DEPTH 24

static inline ent mk(ekind k, uint32_t id)
{
    ent e = {(uint8_t)k, POLY_NONE, id, NULL, 0, 0};
    return e;
}

static inline uint32_t sym_of(const rs *r, uint32_t file, int32_t local)
{
    return r->idx->files.v[file].module_sym + (local < 0 ? 0 : 1 + (uint32_t)local);
}

static inline const gx_file *xfile(const rs *r, uint32_t file)
{
    return r->idx->files.v[file].x;
}

static inline bool is_python(const rs *r, uint32_t file)
{
    return r->idx->files.v[file].lang == GRAPH_LANG_PYTHON;
}

static inline bool is_class(const rs *r, uint32_t s)
{
    uint8_t k = r->sy[s].kind;
    return k == GRAPH_SYM_CLASS || k == GRAPH_SYM_INTERFACE;
}

static inline bool is_typeish(const rs *r, uint32_t s)
{
    uint8_t k = r->sy[s].kind;
    return k == GRAPH_SYM_CLASS || k == GRAPH_SYM_INTERFACE || k == GRAPH_SYM_ENUM ||
           k == GRAPH_SYM_TYPE;
}

/* The class a scope belongs to: itself, or the nearest class ancestor
 * (a JavaScript constructor function with methods counts: `this` in
 * Foo.prototype.bar is a Foo). */
static inline uint32_t class_of(const rs *r, uint32_t s)
{
    for (int i = 0; i < 64 && s != GRAPH_NONE; i++) {
        if (r->classlike[s])
            return s;
        s = r->sy[s].parent;
    }
    return GRAPH_NONE;
}

/* A lookup in progress (resolve_lookup.c). */
typedef struct {
    rs *r;
    int depth;
    core_arena *arena; /* this thread's scratch (package prefixes) */
} ctx;

/* ---- what the files share (each described where it is defined) ---- */

/* resolve_builtins.c */
bool graph__rs_is_builtin(bool python, const char *s, size_t n);
bool graph__rs_is_container_method(const char *s, size_t n);

/* resolve_tables.c */
void graph__rs_build_symbols(rs *r);
void graph__rs_build_tables(rs *r);

/* resolve_modules.c */
uint32_t graph__rs_file_of(const rs *r, uint32_t s);
const char *graph__rs_py_abs_module(rs *r, uint32_t fi, const char *mod, char *buf, size_t cap);
uint32_t graph__rs_find_module(const rs *r, const char *name, size_t len);
ent graph__rs_modpath_or_module(ctx *c, const char *name, size_t len);
uint32_t graph__rs_resolve_spec(const rs *r, uint32_t fi, const char *spec);

/* resolve_lookup.c */
void graph__rs_build_passes(rs *r);
ent graph__rs_resolve_import(ctx *c, uint32_t num, const char *want, size_t wlen);
ent graph__rs_export_lookup(ctx *c, uint32_t m, const char *name, size_t len);
bool graph__rs_is_variable(const rs *r, uint32_t scope, const char *name, size_t len);
ent graph__rs_class_member(ctx *c, uint32_t cls, const char *name, size_t len, bool inst, int skip);
ent graph__rs_resolve_path(ctx *c, uint32_t scope, const char *path, size_t len, int *fail_at);
/* The classes whose instances a poly ent's name is bound to, each once,
 * the latest binding's first (at most cap); 0 for any other ent. */
uint32_t graph__rs_poly_classes(ctx *c, ent e, uint32_t *cls, uint32_t cap);

/* resolve_edges.c */
void graph__rs_build_hierarchy(rs *r);
void graph__rs_collect_overrides(const rs *r, uint32_t cls, const char *name, size_t len,
                                 uint32_t *out, uint32_t *nout, uint32_t cap, int depth);
const char *graph__rs_last_part(const char *path, size_t *len);
void graph__rs_resolve_refs(rs *r, unsigned threads);
void graph__rs_structural_edges(rs *r);

/* resolve_wrappers.c */
void graph__rs_resolve_wrappers(rs *r);

#endif
