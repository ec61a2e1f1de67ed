/*
 * Resolution: from per-file extractions to one graph. Module names, global
 * symbol ids and qualified names; lookup tables; then every reference is
 * resolved to the symbol it names, giving typed edges.
 *
 * Name lookup follows the languages closely enough for a call graph:
 * lexical scopes (function, enclosing functions, module; class bodies are
 * not visible from methods), imports (Python absolute/relative/packages,
 * TS/JS relative paths, index files, node_modules and workspace packages),
 * `self`/`this` through the class and its bases, `super`, instance types
 * from constructors and annotations, module attributes, re-exports. What
 * stays unknown is left unresolved and counted, except a call `x.m()` on an
 * unknown receiver when exactly one method in the repository is named m
 * (weight 0.5).
 *
 * Phases: tables and base classes single-threaded (bases need names, and
 * class hierarchies need bases), then the references of each file in
 * parallel, reading the tables only.
 */
#define _GNU_SOURCE /* memrchr */
#include "graph_int.h"

#include <stdatomic.h>
#include <stdio.h>
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

static uint64_t km_hash(uint32_t id, const char *name, size_t len)
{
    return (core_hash64(name, len, id) ^ core_hash_u64(id)) & ~(uint64_t)0 >> 1;
}

static void km_add(keymap *m, uint32_t id, const char *name, size_t len, uint32_t val)
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
static uint32_t km_scan(const keymap *m, uint32_t id, const char *name, size_t len, uint32_t e,
                        uint32_t *it)
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

static uint32_t km_get(const keymap *m, uint32_t id, const char *name, size_t len, uint32_t *it)
{
    uint64_t *head = core_map_get(&m->heads, km_hash(id, name, len));
    if (!head) {
        *it = UINT32_MAX;
        return UINT32_MAX;
    }
    return km_scan(m, id, name, len, (uint32_t)*head, it);
}

static uint32_t km_next(const keymap *m, uint32_t id, const char *name, size_t len, uint32_t *it)
{
    return km_scan(m, id, name, len, *it, it);
}

static uint32_t km_first(const keymap *m, uint32_t id, const char *name, size_t len)
{
    uint32_t it;
    return km_get(m, id, name, len, &it);
}

static void km_free(keymap *m)
{
    core_map_free(&m->heads);
    free(m->ent);
}

/* ---- names that are not the repository's ---- */

static bool in_list(const char *const *list, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && memcmp(list[i], s, len) == 0)
            return true;
    return false;
}

/* Functions and types every Python module / JS file sees without an
 * import. A bare call to one that no scope defines is not to our code. */
static bool is_builtin(bool python, const char *s, size_t n)
{
    static const char *const py[] = {
        "abs",
        "all",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "compile",
        "complex",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "locals",
        "map",
        "max",
        "memoryview",
        "min",
        "next",
        "object",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        "__import__",
        "aiter",
        "anext",
        "exit",
        "quit",
        "NotImplementedError",
        "ValueError",
        "TypeError",
        "KeyError",
        "IndexError",
        "RuntimeError",
        "AttributeError",
        "OSError",
        "IOError",
        "Exception",
        "StopIteration",
        "AssertionError",
        "ImportError",
        "LookupError",
        "FileNotFoundError",
        "PermissionError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
        "DeprecationWarning",
        "UserWarning",
        "NameError",
        "OverflowError",
        "ZeroDivisionError",
        "EnvironmentError",
        "SystemExit",
        "KeyboardInterrupt",
        "BaseException",
        "Warning",
    };
    static const char *const js[] = {
        "require",
        "parseInt",
        "parseFloat",
        "isNaN",
        "isFinite",
        "setTimeout",
        "setInterval",
        "clearTimeout",
        "clearInterval",
        "setImmediate",
        "queueMicrotask",
        "structuredClone",
        "encodeURIComponent",
        "decodeURIComponent",
        "encodeURI",
        "decodeURI",
        "fetch",
        "String",
        "Number",
        "Boolean",
        "Symbol",
        "BigInt",
        "Object",
        "Array",
        "Promise",
        "Error",
        "TypeError",
        "RangeError",
        "SyntaxError",
        "Map",
        "Set",
        "WeakMap",
        "WeakSet",
        "Date",
        "RegExp",
        "Buffer",
        "URL",
        "URLSearchParams",
        "AbortController",
        "TextEncoder",
        "TextDecoder",
        "Proxy",
        "Reflect",
        "JSON",
        "Math",
        "Intl",
        "eval",
        "atob",
        "btoa",
        "import",
    };
    return python ? in_list(py, sizeof py / sizeof py[0], s, n)
                  : in_list(js, sizeof js / sizeof js[0], s, n);
}

/* Methods of the languages' own containers and strings: `x.append()` on a
 * receiver we know nothing about is most likely one of those, so it does
 * not count as a call to the repository's own `append`. */
static bool is_container_method(const char *s, size_t n)
{
    static const char *const m[] = {
        /* Python str/bytes/list/dict/set/file */
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "copy",
        "count",
        "index",
        "sort",
        "reverse",
        "get",
        "items",
        "keys",
        "values",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "union",
        "intersection",
        "difference",
        "issubset",
        "issuperset",
        "join",
        "split",
        "rsplit",
        "splitlines",
        "strip",
        "lstrip",
        "rstrip",
        "startswith",
        "endswith",
        "replace",
        "lower",
        "upper",
        "format",
        "encode",
        "decode",
        "find",
        "rfind",
        "partition",
        "rpartition",
        "ljust",
        "rjust",
        "zfill",
        "casefold",
        "title",
        "capitalize",
        "isdigit",
        "isalpha",
        "isspace",
        "read",
        "readline",
        "readlines",
        "write",
        "writelines",
        "seek",
        "tell",
        "flush",
        "close",
        "fileno",
        "match",
        "search",
        "sub",
        "findall",
        "finditer",
        "fullmatch",
        "group",
        "groups",
        "groupdict",
        "span",
        "start",
        "end",
        "__enter__",
        "__exit__",
        "set",
        "has",
        "delete",
        /* JS Array/String/Object/Map/Promise */
        "push",
        "shift",
        "unshift",
        "slice",
        "splice",
        "concat",
        "map",
        "filter",
        "reduce",
        "forEach",
        "some",
        "every",
        "includes",
        "indexOf",
        "lastIndexOf",
        "findIndex",
        "flat",
        "flatMap",
        "fill",
        "entries",
        "then",
        "catch",
        "finally",
        "toString",
        "valueOf",
        "trim",
        "trimStart",
        "trimEnd",
        "padStart",
        "padEnd",
        "substring",
        "substr",
        "toLowerCase",
        "toUpperCase",
        "charAt",
        "charCodeAt",
        "hasOwnProperty",
        "call",
        "apply",
        "bind",
        "test",
        "exec",
        "localeCompare",
        "repeat",
        "at",
        "sort",
        "keys",
        "values",
    };
    return in_list(m, sizeof m / sizeof m[0], s, n);
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
    uint32_t id;    /* E_SYM/E_INST/E_CONST; E_CONT: the scope */
    const char *mp; /* E_MODPATH: the prefix; E_CONT: the container name */
    uint32_t mplen;
} ent;

static const ent NONE_ENT = {E_NONE, 0, NULL, 0};

#define MAX_DEPTH 24

static inline ent mk(ekind k, uint32_t id)
{
    ent e = {(uint8_t)k, id, NULL, 0};
    return e;
}

static uint32_t sym_of(const rs *r, uint32_t file, int32_t local)
{
    return r->idx->files.v[file].module_sym + (local < 0 ? 0 : 1 + (uint32_t)local);
}

static const gx_file *xfile(const rs *r, uint32_t file)
{
    return r->idx->files.v[file].x;
}

static bool is_python(const rs *r, uint32_t file)
{
    return r->idx->files.v[file].lang == GRAPH_LANG_PYTHON;
}

static bool is_class(const rs *r, uint32_t s)
{
    uint8_t k = r->sy[s].kind;
    return k == GRAPH_SYM_CLASS || k == GRAPH_SYM_INTERFACE;
}

static bool is_typeish(const rs *r, uint32_t s)
{
    uint8_t k = r->sy[s].kind;
    return k == GRAPH_SYM_CLASS || k == GRAPH_SYM_INTERFACE || k == GRAPH_SYM_ENUM ||
           k == GRAPH_SYM_TYPE;
}

/* The class a scope belongs to: itself, or the nearest class ancestor
 * (a JavaScript constructor function with methods counts: `this` in
 * Foo.prototype.bar is a Foo). */
static uint32_t class_of(const rs *r, uint32_t s)
{
    for (int i = 0; i < 64 && s != GRAPH_NONE; i++) {
        if (r->classlike[s])
            return s;
        s = r->sy[s].parent;
    }
    return GRAPH_NONE;
}

/* ---- module names ---- */

static bool has_init(const gb_index *idx, const char *dir, size_t dirlen, core_smap *paths)
{
    char buf[4096];
    static const char *const inits[] = {"__init__.py", "__init__.pyi"};
    for (int i = 0; i < 2; i++) {
        int n = dirlen ? snprintf(buf, sizeof buf, "%.*s/%s", (int)dirlen, dir, inits[i])
                       : snprintf(buf, sizeof buf, "%s", inits[i]);
        if (n < 0 || (size_t)n >= sizeof buf)
            return false;
        uint32_t it;
        if (core_smap_get(paths, buf, (size_t)n, &it) != UINT32_MAX)
            return true;
    }
    (void)idx;
    return false;
}

/*
 * Python: the dotted name from the topmost enclosing package (a chain of
 * directories with __init__.py) down to the file; `pkg/__init__.py` is
 * `pkg`. When the chain reaches the indexed root and the root itself is a
 * package, the root's directory name starts it (indexing .../pip gives
 * pip.*). TS/JS: the path without its extension.
 */
static const char *module_name(rs *r, uint32_t fi)
{
    const gb_file *f = &r->idx->files.v[fi];
    const char *rel = f->rel;
    if (f->lang != GRAPH_LANG_PYTHON) {
        const char *slash = strrchr(rel, '/');
        const char *dot = strrchr(slash ? slash : rel, '.');
        size_t n = dot ? (size_t)(dot - rel) : strlen(rel);
        if (dot && strcmp(dot, ".ts") == 0 && n >= 2 && strncmp(rel + n - 2, ".d", 2) == 0)
            n -= 2; /* x.d.ts is module x */
        return core_arena_strndup(&r->arena, rel, n);
    }
    const char *slash = strrchr(rel, '/');
    size_t dirlen = slash ? (size_t)(slash - rel) : 0;
    /* Climb while the directory is a package. */
    size_t top = dirlen;
    while (top > 0 && has_init(r->idx, rel, top, &r->paths)) {
        const char *up = memrchr(rel, '/', top);
        if (!up) {
            top = 0;
            break;
        }
        top = (size_t)(up - rel);
    }
    core_buf b = {0};
    bool chain_to_root =
        top == 0 && (dirlen == 0 || has_init(r->idx, rel, strcspn(rel, "/"), &r->paths));
    if (chain_to_root && r->idx->roots.n == 1 && has_init(r->idx, "", 0, &r->paths)) {
        const char *root = r->idx->roots.v[f->root];
        const char *rn = strrchr(root, '/');
        core_buf_puts(&b, rn && rn[1] ? rn + 1 : root);
    }
    /* The package components: rel[start, dirlen). */
    size_t start = top == 0 && chain_to_root ? 0 : top + 1;
    if (top == dirlen)
        start = dirlen; /* the file's own directory is not a package */
    for (size_t i = start; i < dirlen;) {
        size_t j = i;
        while (j < dirlen && rel[j] != '/')
            j++;
        if (b.len)
            core_buf_putc(&b, '.');
        core_buf_append(&b, rel + i, j - i);
        i = j + 1;
    }
    const char *base = slash ? slash + 1 : rel;
    const char *dot = strrchr(base, '.');
    size_t bl = dot ? (size_t)(dot - base) : strlen(base);
    if (!(bl == 8 && memcmp(base, "__init__", 8) == 0) || b.len == 0) {
        if (b.len)
            core_buf_putc(&b, '.');
        core_buf_append(&b, base, bl);
    }
    const char *out = core_arena_strndup(&r->arena, b.data ? b.data : "", b.len);
    core_buf_free(&b);
    return out;
}

/* ---- symbols ---- */

static void build_symbols(rs *r)
{
    gb_index *idx = r->idx;
    gb_graph *g = r->g;
    uint32_t total = 0;
    uint32_t out_id = 0;
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        if (!f->x)
            continue;
        f->out_id = out_id++;
        f->module_sym = total;
        total += 1 + (uint32_t)f->x->syms.n;
    }
    r->nsym = total;
    r->sy = core_xcalloc(total ? total : 1, sizeof *r->sy);
    r->classlike = core_xcalloc(total ? total : 1, 1);
    core_vec_reserve(&g->syms, total);
    core_buf q = {0};
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        if (!f->x)
            continue;
        const gx_file *x = f->x;
        f->modname = module_name(r, (uint32_t)i);
        uint32_t m = f->module_sym;
        const char *slash = strrchr(f->modname, f->lang == GRAPH_LANG_PYTHON ? '.' : '/');
        const char *mshort = slash ? slash + 1 : f->modname;
        r->sy[m] = (rsym){(uint32_t)i, -1, GRAPH_NONE, GRAPH_SYM_MODULE, 0, mshort};
        gb_sym ms = {0};
        ms.name = core_strtab_intern(&g->strs, mshort, strlen(mshort));
        ms.qualname = core_strtab_intern(&g->strs, f->modname, strlen(f->modname));
        ms.file = f->out_id;
        ms.parent = GRAPH_NONE;
        ms.start_line = 1;
        ms.end_line = f->lines ? f->lines : 1;
        ms.doc = x->doc ? core_strtab_intern(&g->strs, x->doc, strlen(x->doc)) : 0;
        ms.kind = GRAPH_SYM_MODULE;
        core_vec_push(&g->syms, ms);
        core_smap_add(&r->modules, f->modname, strlen(f->modname), (uint32_t)i);
        for (size_t k = 0; k < x->syms.n; k++) {
            const gx_sym *s = &x->syms.v[k];
            uint32_t id = m + 1 + (uint32_t)k;
            uint32_t parent = s->parent < 0 ? m : m + 1 + (uint32_t)s->parent;
            r->sy[id] = (rsym){(uint32_t)i, (int32_t)k, parent, s->kind, s->flags, s->name};
            if (s->kind == GRAPH_SYM_CLASS || s->kind == GRAPH_SYM_INTERFACE)
                r->classlike[id] = 1;
            else if (s->kind == GRAPH_SYM_METHOD && r->sy[parent].kind == GRAPH_SYM_FUNCTION)
                r->classlike[parent] = 1;
            /* Parents come before children, so the parent's qualname is
             * already in the table. */
            core_buf_reset(&q);
            core_buf_puts(&q, core_strtab_str(&g->strs, g->syms.v[parent].qualname));
            if (s->container) {
                core_buf_putc(&q, '.');
                core_buf_puts(&q, s->container);
            }
            core_buf_putc(&q, '.');
            core_buf_puts(&q, s->name);
            gb_sym gs = {0};
            gs.name = core_strtab_intern(&g->strs, s->name, strlen(s->name));
            gs.qualname = core_strtab_intern(&g->strs, q.data, q.len);
            gs.file = f->out_id;
            gs.parent = parent;
            gs.start_line = s->start_line;
            gs.end_line = s->end_line < s->start_line ? s->start_line : s->end_line;
            gs.flags = s->flags;
            gs.doc = s->doc ? core_strtab_intern(&g->strs, s->doc, strlen(s->doc)) : 0;
            gs.kind = s->kind;
            core_vec_push(&g->syms, gs);
            /* Children are found by name; a container ("api" in api.get)
             * is looked up as an intermediate name, so both are keyed. */
            if (s->container) {
                /* Found as "api.get" under the scope, the container as
                 * "api". */
                size_t cl = strlen(s->container), nl = strlen(s->name);
                char *key = core_arena_alloc(&r->arena, cl + nl + 2);
                memcpy(key, s->container, cl);
                key[cl] = '.';
                memcpy(key + cl + 1, s->name, nl + 1);
                km_add(&r->children, parent, key, cl + 1 + nl, id);
                if (km_first(&r->containers, parent, s->container, strlen(s->container)) ==
                    UINT32_MAX)
                    km_add(&r->containers, parent, s->container, strlen(s->container), 1);
            } else {
                km_add(&r->children, parent, s->name, strlen(s->name), id);
            }
            core_smap_add(&r->names, s->name, strlen(s->name), id);
            if (s->kind == GRAPH_SYM_METHOD)
                core_smap_add(&r->methods, s->name, strlen(s->name), id);
        }
    }
    core_buf_free(&q);
    /* Python package prefixes of every module name. */
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        if (!f->x || f->lang != GRAPH_LANG_PYTHON)
            continue;
        const char *mn = f->modname;
        for (const char *p = strchr(mn, '.'); p; p = strchr(p + 1, '.')) {
            uint32_t it;
            if (core_smap_get(&r->prefixes, mn, (size_t)(p - mn), &it) == UINT32_MAX)
                core_smap_add(&r->prefixes, mn, (size_t)(p - mn), 1);
        }
    }
}

static void build_tables(rs *r)
{
    gb_index *idx = r->idx;
    size_t nb = 0, ni = 0, ne = 0;
    for (size_t i = 0; i < idx->files.n; i++) {
        const gx_file *x = idx->files.v[i].x;
        if (!x)
            continue;
        nb += x->binds.n;
        ni += x->imports.n;
        ne += x->exports.n;
    }
    r->bind = core_xcalloc(nb + 1, sizeof *r->bind);
    r->imp = core_xcalloc(ni + 1, sizeof *r->imp);
    r->exp = core_xcalloc(ne + 1, sizeof *r->exp);
    r->emit_base = core_xcalloc(idx->files.n + 1, sizeof *r->emit_base);
    core_vec(uint32_t) star_pairs = {0}; /* (module sym, import number) pairs */
    uint32_t emits = 0;
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        const gx_file *x = f->x;
        r->emit_base[i] = emits;
        if (!x)
            continue;
        emits += (uint32_t)x->emits.n;
        for (size_t k = 0; k < x->binds.n; k++) {
            const gx_bind *b = &x->binds.v[k];
            uint32_t scope = sym_of(r, (uint32_t)i, b->scope);
            uint32_t num = (uint32_t)r->nbind++;
            r->bind[num].file = (uint32_t)i;
            r->bind[num].b = b;
            if (strncmp(b->name, "@self.", 6) == 0) {
                uint32_t cls = class_of(r, scope);
                if (cls != GRAPH_NONE)
                    km_add(&r->attrs, cls, b->name + 6, strlen(b->name + 6), num);
            } else {
                km_add(&r->binds, scope, b->name, strlen(b->name), num);
            }
        }
        for (size_t k = 0; k < x->imports.n; k++) {
            const gx_import *m = &x->imports.v[k];
            uint32_t scope = sym_of(r, (uint32_t)i, m->scope);
            uint32_t num = (uint32_t)r->nimp++;
            r->imp[num].file = (uint32_t)i;
            r->imp[num].m = m;
            if (m->kind == GX_IMP_STAR) {
                core_vec_push(&star_pairs, f->module_sym);
                core_vec_push(&star_pairs, num);
                continue;
            }
            const char *alias = m->alias;
            size_t alen;
            if (alias) {
                alen = strlen(alias);
            } else {
                if (m->kind != GX_IMP_MODULE || !is_python(r, (uint32_t)i))
                    continue;
                /* `import a.b.c` binds a */
                alias = m->module;
                alen = strcspn(alias, ".");
            }
            km_add(&r->imports, scope, alias, alen, num);
        }
        for (size_t k = 0; k < x->exports.n; k++) {
            const gx_export *e = &x->exports.v[k];
            uint32_t num = (uint32_t)r->nexp++;
            r->exp[num].file = (uint32_t)i;
            r->exp[num].e = e;
            if (e->kind == GX_EXP_STAR) {
                /* Stars are kept as exports with a marker in the pairs:
                 * the high bit tells them from imports. */
                core_vec_push(&star_pairs, f->module_sym);
                core_vec_push(&star_pairs, num | 0x80000000u);
                continue;
            }
            km_add(&r->exports, f->module_sym, e->name, strlen(e->name), num);
        }
        for (size_t k = 0; k < x->emits.n; k++) {
            const gx_emit *e = &x->emits.v[k];
            if (e->kind != GRAPH_EMIT_CONST || !e->name)
                continue;
            uint32_t owner = sym_of(r, (uint32_t)i, e->sym);
            km_add(&r->consts, owner, e->name, strlen(e->name), r->emit_base[i] + (uint32_t)k);
        }
    }
    r->emit_base[idx->files.n] = emits;
    /* Star imports as CSR by module symbol. */
    r->star_first = core_xcalloc(r->nsym + 1, sizeof *r->star_first);
    size_t npairs = star_pairs.n / 2;
    for (size_t i = 0; i < npairs; i++)
        r->star_first[star_pairs.v[2 * i] + 1]++;
    for (uint32_t s = 0; s < r->nsym; s++)
        r->star_first[s + 1] += r->star_first[s];
    r->star = core_xcalloc(npairs + 1, sizeof *r->star);
    uint32_t *fill = core_xcalloc(r->nsym + 1, sizeof *fill);
    for (size_t i = 0; i < npairs; i++) {
        uint32_t m = star_pairs.v[2 * i];
        r->star[r->star_first[m] + fill[m]++] = star_pairs.v[2 * i + 1];
    }
    free(fill);
    core_vec_free(&star_pairs);
}

/* ---- lookup ---- */

typedef struct {
    rs *r;
    int depth;
    core_arena *arena; /* this thread's scratch (package prefixes) */
} ctx;

static ent resolve_path(ctx *c, uint32_t scope, const char *path, size_t len, int *fail_at);
static ent member(ctx *c, ent e, const char *name, size_t len);

/* The file index of a module symbol's file. */
static uint32_t file_of(const rs *r, uint32_t s)
{
    return r->sy[s].file;
}

/* Python: absolute module name of an import written in file fi. */
static const char *py_abs_module(rs *r, uint32_t fi, const char *mod, char *buf, size_t cap)
{
    if (mod[0] != '.')
        return mod;
    const gb_file *f = &r->idx->files.v[fi];
    size_t level = strspn(mod, ".");
    const char *rest = mod + level;
    /* The package of the file: its module name minus the last part, or
     * the module itself for __init__. */
    const char *mn = f->modname;
    size_t plen = strlen(mn);
    const char *base = strrchr(f->rel, '/');
    base = base ? base + 1 : f->rel;
    bool is_init = strncmp(base, "__init__.", 9) == 0;
    if (!is_init) {
        const char *d = memrchr(mn, '.', plen);
        plen = d ? (size_t)(d - mn) : 0;
    }
    for (size_t i = 1; i < level; i++) {
        const char *d = plen ? memrchr(mn, '.', plen) : NULL;
        plen = d ? (size_t)(d - mn) : 0;
    }
    int n;
    if (plen && *rest)
        n = snprintf(buf, cap, "%.*s.%s", (int)plen, mn, rest);
    else if (plen)
        n = snprintf(buf, cap, "%.*s", (int)plen, mn);
    else
        n = snprintf(buf, cap, "%s", rest);
    if (n < 0 || (size_t)n >= cap)
        return NULL;
    return buf;
}

static uint32_t find_module(const rs *r, const char *name, size_t len)
{
    uint32_t it;
    uint32_t fi = core_smap_get(&r->modules, name, len, &it);
    return fi == UINT32_MAX ? GRAPH_NONE : r->idx->files.v[fi].module_sym;
}

static bool is_prefix(const rs *r, const char *name, size_t len)
{
    uint32_t it;
    return core_smap_get(&r->prefixes, name, len, &it) != UINT32_MAX;
}

static ent modpath_or_module(ctx *c, const char *name, size_t len)
{
    uint32_t m = find_module(c->r, name, len);
    if (m != GRAPH_NONE)
        return mk(E_SYM, m);
    if (is_prefix(c->r, name, len)) {
        ent e = {E_MODPATH, 0, core_arena_strndup(c->arena, name, len), (uint32_t)len};
        return e;
    }
    return mk(E_EXT, 0);
}

/* ---- TS/JS module specifiers ---- */

static uint32_t path_file(const rs *r, const char *p, size_t n)
{
    uint32_t it;
    return core_smap_get(&r->paths, p, n, &it);
}

/* Normalises a/b/../c/./d into buf; false if it climbs above the top. */
static bool norm_path(const char *in, char *buf, size_t cap)
{
    size_t k = 0;
    const char *p = in;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.')) {
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (k == 0)
                return false;
            while (k > 0 && buf[k - 1] != '/')
                k--;
            if (k > 0)
                k--;
        } else {
            if (k + n + 2 > cap)
                return false;
            if (k)
                buf[k++] = '/';
            memcpy(buf + k, p, n);
            k += n;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    buf[k] = 0;
    return true;
}

/* A path as written in an import, resolved against the files we have. */
static uint32_t probe_file(const rs *r, const char *base)
{
    static const char *const exts[] = {"",     ".ts",  ".tsx", ".d.ts", ".js",
                                       ".jsx", ".mjs", ".cjs", ".mts",  ".cts"};
    char buf[4096];
    size_t bl = strlen(base);
    if (bl + 16 > sizeof buf)
        return UINT32_MAX;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        int n = snprintf(buf, sizeof buf, "%s%s", base, exts[i]);
        uint32_t fi = path_file(r, buf, (size_t)n);
        if (fi != UINT32_MAX)
            return fi;
    }
    /* ESM TypeScript imports name the emitted file: './x.js' is x.ts. */
    const char *dot = strrchr(base, '.');
    const char *slash = strrchr(base, '/');
    if (dot && (!slash || dot > slash)) {
        static const char *const js[] = {".js", ".jsx", ".mjs", ".cjs"};
        static const char *const ts[] = {".ts", ".tsx", ".mts", ".cts"};
        for (size_t i = 0; i < 4; i++) {
            if (strcmp(dot, js[i]) != 0)
                continue;
            for (size_t j = 0; j < 4; j++) {
                int n = snprintf(buf, sizeof buf, "%.*s%s", (int)(dot - base), base, ts[j]);
                uint32_t fi = path_file(r, buf, (size_t)n);
                if (fi != UINT32_MAX)
                    return fi;
            }
        }
    }
    for (size_t i = 1; i < sizeof exts / sizeof exts[0]; i++) {
        int n = bl ? snprintf(buf, sizeof buf, "%s/index%s", base, exts[i])
                   : snprintf(buf, sizeof buf, "index%s", exts[i]);
        uint32_t fi = path_file(r, buf, (size_t)n);
        if (fi != UINT32_MAX)
            return fi;
    }
    return UINT32_MAX;
}

static const gb_package *package_at(const rs *r, const char *dir)
{
    size_t lo = 0, hi = r->idx->packages.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(r->idx->packages.v[mid].dir, dir);
        if (c == 0)
            return &r->idx->packages.v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A package directory plus the rest of a bare specifier. */
static uint32_t probe_package(const rs *r, const char *pkgdir, const char *rest)
{
    char buf[4096];
    if (rest && *rest) {
        int n = snprintf(buf, sizeof buf, "%s%s%s", pkgdir, *pkgdir ? "/" : "", rest);
        if (n < 0 || (size_t)n >= sizeof buf)
            return UINT32_MAX;
        return probe_file(r, buf);
    }
    const gb_package *p = package_at(r, pkgdir);
    if (p && p->main) {
        char joined[4096], norm[4096];
        snprintf(joined, sizeof joined, "%s%s%s", pkgdir, *pkgdir ? "/" : "", p->main);
        if (norm_path(joined, norm, sizeof norm)) {
            uint32_t fi = probe_file(r, norm);
            if (fi != UINT32_MAX)
                return fi;
        }
    }
    return probe_file(r, pkgdir);
}

static uint32_t resolve_spec(const rs *r, uint32_t fi, const char *spec)
{
    const char *rel = r->idx->files.v[fi].rel;
    const char *slash = strrchr(rel, '/');
    size_t dirlen = slash ? (size_t)(slash - rel) : 0;
    char joined[4096], norm[4096];
    if (spec[0] == '.' || spec[0] == '/') {
        int n = snprintf(joined, sizeof joined, "%.*s/%s", (int)dirlen, rel, spec);
        if (n < 0 || (size_t)n >= sizeof joined || !norm_path(joined, norm, sizeof norm))
            return UINT32_MAX;
        return probe_file(r, norm);
    }
    /* Bare: "pkg", "pkg/sub", "@scope/pkg/sub". */
    size_t plen = strcspn(spec, "/");
    if (spec[0] == '@' && spec[plen] == '/')
        plen += 1 + strcspn(spec + plen + 1, "/");
    const char *rest = spec[plen] == '/' ? spec + plen + 1 : NULL;
    /* node_modules from the file's directory up to the root. */
    size_t d = dirlen;
    for (;;) {
        int n = snprintf(joined, sizeof joined, "%.*s%snode_modules/%.*s", (int)d, rel,
                         d ? "/" : "", (int)plen, spec);
        if (n > 0 && (size_t)n < sizeof joined) {
            uint32_t f = probe_package(r, joined, rest);
            if (f != UINT32_MAX)
                return f;
        }
        if (d == 0)
            break;
        const char *up = memrchr(rel, '/', d);
        d = up ? (size_t)(up - rel) : 0;
    }
    /* Workspace packages: a package.json with that name. */
    for (size_t i = 0; i < r->idx->packages.n; i++) {
        const gb_package *p = &r->idx->packages.v[i];
        if (p->name && strlen(p->name) == plen && strncmp(p->name, spec, plen) == 0) {
            uint32_t f = probe_package(r, p->dir, rest);
            if (f != UINT32_MAX)
                return f;
        }
    }
    return UINT32_MAX;
}

/* ---- entities ---- */

static ent export_lookup(ctx *c, uint32_t m, const char *name, size_t len);

static ent resolve_import(ctx *c, uint32_t num, const char *want, size_t wlen)
{
    rs *r = c->r;
    uint32_t fi = r->imp[num].file;
    const gx_import *im = r->imp[num].m;
    if (c->depth > MAX_DEPTH)
        return NONE_ENT;
    c->depth++;
    ent out = mk(E_EXT, 0);
    if (is_python(r, fi)) {
        char buf[1024];
        const char *abs = py_abs_module(r, fi, im->module, buf, sizeof buf);
        if (!abs)
            goto done;
        if (im->kind == GX_IMP_MODULE) {
            if (im->alias)
                out = modpath_or_module(c, abs, strlen(abs));
            else
                out = modpath_or_module(c, abs, strcspn(abs, "."));
        } else if (im->kind == GX_IMP_NAME) {
            uint32_t m = find_module(r, abs, strlen(abs));
            if (m != GRAPH_NONE) {
                out = member(c, mk(E_SYM, m), im->name, strlen(im->name));
                if (out.k == E_NONE)
                    out = mk(E_EXT, 0);
            } else {
                char full[2048];
                int n = snprintf(full, sizeof full, "%s.%s", abs, im->name);
                if (n > 0 && (size_t)n < sizeof full)
                    out = modpath_or_module(c, full, (size_t)n);
            }
        } else if (im->kind == GX_IMP_STAR && want) {
            uint32_t m = find_module(r, abs, strlen(abs));
            out = m != GRAPH_NONE ? member(c, mk(E_SYM, m), want, wlen) : NONE_ENT;
        }
    } else {
        uint32_t tf = resolve_spec(r, fi, im->module);
        if (tf == UINT32_MAX || !r->idx->files.v[tf].x)
            goto done;
        uint32_t m = r->idx->files.v[tf].module_sym;
        if (im->kind == GX_IMP_MODULE)
            out = mk(E_SYM, m);
        else if (im->kind == GX_IMP_NAME)
            out = export_lookup(c, m, im->name, strlen(im->name));
    }
done:
    c->depth--;
    return out;
}

/* What calling a function gives, from its return annotation. */
static ent returned(ctx *c, uint32_t fn)
{
    rs *r = c->r;
    const rsym *s = &r->sy[fn];
    if (s->local < 0 || c->depth > MAX_DEPTH)
        return NONE_ENT;
    const gx_sym *x = &xfile(r, s->file)->syms.v[s->local];
    if (!x->ret)
        return NONE_ENT;
    int fail;
    c->depth++;
    /* The annotation is written in the function's scope. */
    ent t = resolve_path(c, fn, x->ret, strlen(x->ret), &fail);
    c->depth--;
    if (t.k == E_SYM && is_typeish(r, t.id))
        return mk(E_INST, t.id);
    return t.k == E_EXT ? t : NONE_ENT;
}

static ent resolve_bind(ctx *c, uint32_t num)
{
    rs *r = c->r;
    const gx_bind *b = r->bind[num].b;
    if (!b->value || c->depth > MAX_DEPTH)
        return NONE_ENT;
    /* Binds are resolved in the scope that made them. */
    uint32_t s = sym_of(r, r->bind[num].file, b->scope);
    c->depth++;
    int fail;
    ent v = resolve_path(c, s, b->value, strlen(b->value), &fail);
    c->depth--;
    switch (b->kind) {
    case GX_BIND_NEW:
    case GX_BIND_TYPE:
    case GX_BIND_CALL:
        if (v.k == E_SYM && is_class(r, v.id))
            return mk(E_INST, v.id);
        if (b->kind == GX_BIND_CALL && v.k == E_SYM)
            return returned(c, v.id);
        if (v.k == E_EXT)
            return v;
        if (b->kind == GX_BIND_TYPE && v.k == E_SYM && is_typeish(r, v.id))
            return mk(E_INST, v.id);
        /* new Foo() of a constructor function (JS). */
        if (b->kind == GX_BIND_NEW && v.k == E_SYM && r->sy[v.id].kind == GRAPH_SYM_FUNCTION)
            return mk(E_INST, v.id);
        return NONE_ENT;
    case GX_BIND_ALIAS:
        return v;
    default:
        return NONE_ENT;
    }
}

/* A module's exported name (TS/JS), or its top-level name. */
static ent export_lookup(ctx *c, uint32_t m, const char *name, size_t len)
{
    rs *r = c->r;
    if (c->depth > MAX_DEPTH)
        return NONE_ENT;
    c->depth++;
    ent out = NONE_ENT;
    uint32_t it;
    for (uint32_t num = km_get(&r->exports, m, name, len, &it); num != UINT32_MAX;
         num = km_next(&r->exports, m, name, len, &it)) {
        const gx_export *e = r->exp[num].e;
        uint32_t fi = r->exp[num].file;
        if (e->kind == GX_EXP_NAME && e->local) {
            int fail;
            out = resolve_path(c, m, e->local, strlen(e->local), &fail);
        } else if ((e->kind == GX_EXP_FROM || e->kind == GX_EXP_NS) && e->module) {
            uint32_t tf = resolve_spec(r, fi, e->module);
            if (tf != UINT32_MAX && r->idx->files.v[tf].x) {
                uint32_t tm = r->idx->files.v[tf].module_sym;
                if (e->kind == GX_EXP_NS)
                    out = mk(E_SYM, tm);
                else
                    out = export_lookup(c, tm, e->local ? e->local : name,
                                        e->local ? strlen(e->local) : len);
            } else {
                out = mk(E_EXT, 0);
            }
        }
        if (out.k != E_NONE)
            goto done;
    }
    out = member(c, mk(E_SYM, m), name, len);
    if (out.k != E_NONE)
        goto done;
    for (uint32_t k = r->star_first[m]; k < r->star_first[m + 1]; k++) {
        uint32_t num = r->star[k];
        if (!(num & 0x80000000u))
            continue;
        num &= 0x7fffffffu;
        uint32_t tf = resolve_spec(r, r->exp[num].file, r->exp[num].e->module);
        if (tf == UINT32_MAX || !r->idx->files.v[tf].x)
            continue;
        out = export_lookup(c, r->idx->files.v[tf].module_sym, name, len);
        if (out.k == E_SYM || out.k == E_INST || out.k == E_CONST)
            goto done;
        out = NONE_ENT;
    }
done:
    c->depth--;
    return out;
}

/* Names a scope binds itself (no parents): symbols, imports, constants,
 * variables. */
static ent lookup_in(ctx *c, uint32_t s, const char *name, size_t len, bool module_scope)
{
    rs *r = c->r;
    uint32_t v;
    if (!module_scope) {
        /* Locals first: parameters and variables shadow outer names. */
        uint32_t num = km_first(&r->binds, s, name, len);
        if (num != UINT32_MAX) {
            /* Prefer a typed binding of the name when there are several. */
            uint32_t it, best = num;
            for (uint32_t b = km_get(&r->binds, s, name, len, &it); b != UINT32_MAX;
                 b = km_next(&r->binds, s, name, len, &it)) {
                uint8_t k = r->bind[b].b->kind;
                if (k == GX_BIND_TYPE || k == GX_BIND_NEW) {
                    best = b;
                    break;
                }
            }
            return resolve_bind(c, best);
        }
    }
    if ((v = km_first(&r->children, s, name, len)) != UINT32_MAX)
        return mk(E_SYM, v);
    if ((v = km_first(&r->imports, s, name, len)) != UINT32_MAX)
        return resolve_import(c, v, NULL, 0);
    if ((v = km_first(&r->consts, s, name, len)) != UINT32_MAX)
        return mk(E_CONST, v);
    if (module_scope) {
        uint32_t num = km_first(&r->binds, s, name, len);
        if (num != UINT32_MAX)
            return resolve_bind(c, num);
        /* from x import * */
        for (uint32_t k = r->star_first[s]; k < r->star_first[s + 1]; k++) {
            uint32_t imp = r->star[k];
            if (imp & 0x80000000u)
                continue;
            ent e = resolve_import(c, imp, name, len);
            if (e.k != E_NONE && e.k != E_EXT)
                return e;
        }
    }
    if (km_first(&r->containers, s, name, len) != UINT32_MAX) {
        ent e = {E_CONT, s, name, (uint32_t)len};
        return e;
    }
    return NONE_ENT;
}

static ent resolve_name(ctx *c, uint32_t scope, const char *name, size_t len)
{
    rs *r = c->r;
    uint32_t s = scope;
    bool first = true;
    for (int hops = 0; hops < 64 && s != GRAPH_NONE; hops++) {
        uint8_t k = r->sy[s].kind;
        /* Class bodies are not visible from inside their methods. */
        if (first || k != GRAPH_SYM_CLASS) {
            ent e = lookup_in(c, s, name, len, k == GRAPH_SYM_MODULE);
            if (e.k != E_NONE)
                return e;
            /* A variable bound to something unknown still shadows. */
            if (km_first(&r->binds, s, name, len) != UINT32_MAX)
                return NONE_ENT;
        }
        first = false;
        s = r->sy[s].parent;
    }
    /* Nothing in scope: a builtin (print, object, Promise) is external. */
    if (is_builtin(is_python(r, file_of(r, scope)), name, len))
        return mk(E_EXT, 0);
    return NONE_ENT;
}

/* Is the name a variable (a binding, not a definition) in some scope
 * around `scope`? Calling such a name is not a call to our code by that
 * name. */
static bool is_variable(const rs *r, uint32_t scope, const char *name, size_t len)
{
    for (int hops = 0; hops < 64 && scope != GRAPH_NONE; hops++) {
        if (km_first(&r->binds, scope, name, len) != UINT32_MAX &&
            km_first(&r->children, scope, name, len) == UINT32_MAX)
            return true;
        scope = r->sy[scope].parent;
    }
    return false;
}

/* Members of a class along its MRO (skip = 1 starts after the class:
 * super). */
static ent class_member(ctx *c, uint32_t cls, const char *name, size_t len, bool inst, int skip)
{
    rs *r = c->r;
    /* A constructor function (JS) has no MRO: only its own members. */
    uint32_t self[2] = {cls, UINT32_MAX};
    const uint32_t *mro = r->mro[cls] ? r->mro[cls] : self;
    for (int i = skip; mro[i] != UINT32_MAX; i++) {
        uint32_t k = mro[i];
        uint32_t v;
        if ((v = km_first(&r->children, k, name, len)) != UINT32_MAX)
            return mk(E_SYM, v);
        if ((v = km_first(&r->consts, k, name, len)) != UINT32_MAX)
            return mk(E_CONST, v);
        if ((v = km_first(&r->attrs, k, name, len)) != UINT32_MAX)
            return resolve_bind(c, v);
        if ((v = km_first(&r->binds, k, name, len)) != UINT32_MAX)
            return resolve_bind(c, v);
    }
    (void)inst;
    /* Not defined here: it comes from the library class underneath. */
    if (r->ext_base && r->ext_base[cls])
        return mk(E_EXT, 0);
    return NONE_ENT;
}

static ent member(ctx *c, ent e, const char *name, size_t len)
{
    rs *r = c->r;
    if (c->depth > MAX_DEPTH)
        return NONE_ENT;
    switch (e.k) {
    case E_SYM: {
        uint8_t k = r->sy[e.id].kind;
        if (k == GRAPH_SYM_MODULE) {
            c->depth++;
            ent out = lookup_in(c, e.id, name, len, true);
            if (out.k == E_NONE && !is_python(r, file_of(r, e.id))) {
                uint32_t it;
                if (km_get(&r->exports, e.id, name, len, &it) != UINT32_MAX)
                    out = export_lookup(c, e.id, name, len);
            }
            if (out.k == E_NONE && is_python(r, file_of(r, e.id))) {
                const char *mn = r->idx->files.v[file_of(r, e.id)].modname;
                char buf[2048];
                int n = snprintf(buf, sizeof buf, "%s.%.*s", mn, (int)len, name);
                if (n > 0 && (size_t)n < sizeof buf) {
                    ent sub = modpath_or_module(c, buf, (size_t)n);
                    if (sub.k != E_EXT)
                        out = sub;
                }
            }
            c->depth--;
            return out;
        }
        if (is_class(r, e.id) || k == GRAPH_SYM_ENUM) {
            c->depth++;
            ent out = class_member(c, e.id, name, len, false, 0);
            if (out.k == E_NONE && k == GRAPH_SYM_ENUM) {
                /* Enum members are constants named "Enum.Member". */
                char key[512];
                int kn = snprintf(key, sizeof key, "%s.%.*s", r->sy[e.id].name, (int)len, name);
                uint32_t v = km_first(&r->consts, e.id, name, len);
                if (v == UINT32_MAX && kn > 0 && (size_t)kn < sizeof key)
                    v = km_first(&r->consts, e.id, key, (size_t)kn);
                if (v == UINT32_MAX && kn > 0 && (size_t)kn < sizeof key &&
                    r->sy[e.id].parent != GRAPH_NONE)
                    v = km_first(&r->consts, r->sy[e.id].parent, key, (size_t)kn);
                if (v != UINT32_MAX)
                    out = mk(E_CONST, v);
            }
            c->depth--;
            return out;
        }
        /* Functions: static members (Foo.helper = function ...). */
        uint32_t v = km_first(&r->children, e.id, name, len);
        return v != UINT32_MAX ? mk(E_SYM, v) : NONE_ENT;
    }
    case E_INST: {
        c->depth++;
        ent out = class_member(c, e.id, name, len, true, 0);
        c->depth--;
        return out;
    }
    case E_CONT: {
        char key[1024];
        int n = snprintf(key, sizeof key, "%.*s.%.*s", (int)e.mplen, e.mp, (int)len, name);
        if (n < 0 || (size_t)n >= sizeof key)
            return NONE_ENT;
        uint32_t v = km_first(&r->children, e.id, key, (size_t)n);
        return v != UINT32_MAX ? mk(E_SYM, v) : NONE_ENT;
    }
    case E_MODPATH: {
        char buf[2048];
        int n = snprintf(buf, sizeof buf, "%.*s.%.*s", (int)e.mplen, e.mp, (int)len, name);
        if (n < 0 || (size_t)n >= sizeof buf)
            return NONE_ENT;
        return modpath_or_module(c, buf, (size_t)n);
    }
    case E_EXT:
        return e;
    default:
        return NONE_ENT;
    }
}

/*
 * Resolves a reference path from a scope. *fail_at is the number of
 * components resolved before the result became unknown (so a caller can
 * tell "unknown receiver" from "unknown name").
 */
static ent resolve_path(ctx *c, uint32_t scope, const char *path, size_t len, int *fail_at)
{
    rs *r = c->r;
    *fail_at = 0;
    if (c->depth > MAX_DEPTH)
        return NONE_ENT;
    const char *p = path, *end = path + len;
    const char *dot = memchr(p, '.', (size_t)(end - p));
    size_t n = dot ? (size_t)(dot - p) : (size_t)(end - p);
    ent e;
    int super = 0;
    if (n == 5 && memcmp(p, "@self", 5) == 0) {
        uint32_t cls = class_of(r, scope);
        e = cls == GRAPH_NONE ? NONE_ENT : mk(E_INST, cls);
    } else if (n == 4 && memcmp(p, "@cls", 4) == 0) {
        uint32_t cls = class_of(r, scope);
        e = cls == GRAPH_NONE ? NONE_ENT : mk(E_SYM, cls);
    } else if (n == 6 && memcmp(p, "@super", 6) == 0) {
        uint32_t cls = class_of(r, scope);
        e = cls == GRAPH_NONE ? NONE_ENT : mk(E_INST, cls);
        super = 1;
    } else if (n == 1 && p[0] == '?') {
        return NONE_ENT;
    } else {
        /* Constants of an object or an enum are named "MESSAGES.notFound"
         * under their scope: try the first two components as one name. */
        if (dot) {
            const char *dot2 = memchr(dot + 1, '.', (size_t)(end - dot - 1));
            size_t n2 = dot2 ? (size_t)(dot2 - p) : (size_t)(end - p);
            for (uint32_t s = scope; s != GRAPH_NONE; s = r->sy[s].parent) {
                uint32_t v = km_first(&r->consts, s, p, n2);
                if (v != UINT32_MAX) {
                    *fail_at = 2;
                    return dot2 ? NONE_ENT : mk(E_CONST, v);
                }
            }
        }
        c->depth++;
        e = resolve_name(c, scope, p, n);
        c->depth--;
    }
    int step = 1;
    while (dot && e.k != E_NONE && e.k != E_EXT) {
        p = dot + 1;
        dot = memchr(p, '.', (size_t)(end - p));
        n = dot ? (size_t)(dot - p) : (size_t)(end - p);
        if (super) {
            c->depth++;
            e = class_member(c, e.id, p, n, true, 1);
            c->depth--;
            super = 0;
            /* super().__init__() above our classes is object's. */
            if (e.k == E_NONE && n > 4 && p[0] == '_' && p[1] == '_')
                e = mk(E_EXT, 0);
        } else {
            e = member(c, e, p, n);
        }
        if (e.k != E_NONE)
            step++;
    }
    if (dot && e.k == E_NONE)
        *fail_at = step;
    else if (e.k == E_NONE)
        *fail_at = step - 1;
    else
        *fail_at = step;
    return e;
}

/* ---- class hierarchy ---- */

static void add_edge(gb_edge_vec *v, uint32_t src, uint32_t dst, graph_edge_type t, float w)
{
    gb_edge e = {src, dst, w, (uint8_t)t};
    core_vec_push(v, e);
}

static void build_hierarchy(rs *r)
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
            ent e = resolve_path(&c, scope == GRAPH_NONE ? cls : scope, ref->path,
                                 strlen(ref->path), &fail);
            if (e.k == E_SYM && is_typeish(r, e.id) && e.id != cls) {
                core_vec_push(&bases[cls], e.id);
                core_vec_push(&r->subs[e.id], cls);
            } else if (e.k == E_EXT) {
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
static void collect_overrides(const rs *r, uint32_t cls, const char *name, size_t len,
                              uint32_t *out, uint32_t *nout, uint32_t cap, int depth)
{
    if (depth > 16)
        return;
    for (size_t i = 0; i < r->subs[cls].n; i++) {
        uint32_t sub = r->subs[cls].v[i];
        uint32_t v = km_first(&r->children, sub, name, len);
        if (v != UINT32_MAX && *nout < cap) {
            bool dup = false;
            for (uint32_t k = 0; k < *nout; k++)
                dup |= out[k] == v;
            if (!dup)
                out[(*nout)++] = v;
        }
        collect_overrides(r, sub, name, len, out, nout, cap, depth + 1);
    }
}

/* Constructor of a class: __init__ / constructor along the MRO. */
static uint32_t constructor_of(ctx *c, uint32_t cls)
{
    rs *r = c->r;
    static const char *const names[] = {"__init__", "constructor"};
    for (int i = 0; i < 2; i++) {
        ent e = class_member(c, cls, names[i], strlen(names[i]), false, 0);
        if (e.k == E_SYM && r->sy[e.id].kind == GRAPH_SYM_METHOD)
            return e.id;
    }
    return GRAPH_NONE;
}

static const char *last_part(const char *path, size_t *len)
{
    const char *dot = strrchr(path, '.');
    const char *p = dot ? dot + 1 : path;
    *len = strlen(p);
    return p;
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
        size_t plen = strlen(ref->path);
        int fail;
        c.depth = 0;
        ent e = resolve_path(&c, from, ref->path, plen, &fail);
        bool is_call =
            ref->kind == GX_REF_CALL || ref->kind == GX_REF_NEW || ref->kind == GX_REF_JSX;
        if (!is_call) {
            if (e.k != E_SYM)
                continue;
            uint8_t k = r->sy[e.id].kind;
            if (ref->kind == GX_REF_TYPE) {
                if (is_typeish(r, e.id))
                    add_edge(out, from, e.id, GRAPH_EDGE_USES, 1.0f);
            } else if (k == GRAPH_SYM_FUNCTION || k == GRAPH_SYM_METHOD || k == GRAPH_SYM_CLASS) {
                /* A function passed as a value, a property read, a class
                 * used as a value. */
                if (e.id != from)
                    add_edge(out, from, e.id, GRAPH_EDGE_ACCESSES, 1.0f);
            }
            continue;
        }
        calls++;
        size_t mlen;
        const char *m = last_part(ref->path, &mlen);
        uint32_t it;
        /*
         * A call "to an in-repo name": its callee name is defined in the
         * repository, and it is not known to go elsewhere: not through a
         * library object, not an unshadowed builtin, not a container
         * method (append, get, ...) called on a receiver we know nothing
         * about.
         */
        bool dotted = strchr(ref->path, '.') != NULL;
        bool internal_name = e.k != E_EXT && core_smap_get(&r->names, m, mlen, &it) != UINT32_MAX &&
                             !(e.k == E_NONE && !dotted && is_variable(r, from, m, mlen)) &&
                             !(e.k == E_NONE && dotted && is_container_method(m, mlen));
        internal += internal_name;
        bool ok = false;
        if (e.k == E_SYM) {
            uint8_t k = r->sy[e.id].kind;
            uint32_t target = e.id;
            if (is_class(r, e.id)) {
                uint32_t ctor = constructor_of(&c, e.id);
                target = ctor != GRAPH_NONE ? ctor : e.id;
            } else if (k == GRAPH_SYM_MODULE) {
                /* require('./x')() calls what the module exports. */
                c.depth = 0;
                ent d = export_lookup(&c, e.id, "default", 7);
                target = d.k == E_SYM ? d.id : GRAPH_NONE;
            }
            if (target != GRAPH_NONE) {
                add_edge(out, from, target, GRAPH_EDGE_CALLS, 1.0f);
                ok = true;
                /* self.m() may run an override in a subclass. */
                if (strncmp(ref->path, "@self.", 6) == 0 &&
                    r->sy[target].kind == GRAPH_SYM_METHOD) {
                    uint32_t cls = class_of(r, from);
                    uint32_t ov[16], nov = 0;
                    if (cls != GRAPH_NONE)
                        collect_overrides(r, cls, m, mlen, ov, &nov, 16, 0);
                    for (uint32_t k2 = 0; k2 < nov; k2++)
                        if (ov[k2] != target)
                            add_edge(out, from, ov[k2], GRAPH_EDGE_CALLS, 0.5f / (float)nov);
                }
            }
        } else if (e.k == E_INST) {
            ent call = class_member(&c, e.id, "__call__", 8, true, 0);
            if (call.k == E_SYM) {
                add_edge(out, from, call.id, GRAPH_EDGE_CALLS, 1.0f);
                ok = true;
            }
        } else if (e.k == E_NONE) {
            /* self.m() defined only in subclasses (template methods). */
            if (strncmp(ref->path, "@self.", 6) == 0 && !strchr(ref->path + 6, '.')) {
                uint32_t cls = class_of(r, from);
                uint32_t ov[16], nov = 0;
                if (cls != GRAPH_NONE)
                    collect_overrides(r, cls, m, mlen, ov, &nov, 16, 0);
                for (uint32_t k2 = 0; k2 < nov; k2++)
                    add_edge(out, from, ov[k2], GRAPH_EDGE_CALLS, 1.0f / (float)nov);
                ok = nov > 0;
            }
            /* x.m() on an unknown receiver: a method name used once in the
             * repository. */
            if (!ok && strchr(ref->path, '.') && !(mlen > 4 && m[0] == '_' && m[1] == '_')) {
                uint32_t it2, first = core_smap_get(&r->methods, m, mlen, &it2);
                if (first != UINT32_MAX &&
                    core_smap_next(&r->methods, m, mlen, &it2) == UINT32_MAX && first != from) {
                    add_edge(out, from, first, GRAPH_EDGE_CALLS, 0.5f);
                    ok = true;
                }
            }
        }
        resolved += ok;
        internal_resolved += ok && internal_name;
    }
    /* Emits whose message is a name: the constant it names. */
    for (size_t i = 0; i < x->emits.n; i++) {
        const gx_emit *em = &x->emits.v[i];
        if (!em->ref)
            continue;
        int fail;
        c.depth = 0;
        ent e = resolve_path(&c, sym_of(r, fi, em->sym), em->ref, strlen(em->ref), &fail);
        if (e.k == E_CONST)
            job->ref_const[r->emit_base[fi] + i] = e.id;
    }
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

/* Duplicated files share an extraction but are their own modules: they
 * are resolved like any other file. */
static void resolve_refs(rs *r, unsigned threads)
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
            o.logger = lg ? core_strtab_intern(&g->strs, lg, strlen(lg)) : 0;
            o.ref = e->ref ? core_strtab_intern(&g->strs, e->ref, strlen(e->ref)) : 0;
            o.ref_const = job.ref_const[r->emit_base[fi] + i];
            o.name = e->name ? core_strtab_intern(&g->strs, e->name, strlen(e->name)) : 0;
            o.nargs = e->nargs;
            o.flags = e->flags;
            o.kind = e->kind;
            o.style = e->style;
            o.level = e->level;
            core_vec_push(&g->emits, o);
        }
    }
    free(job.ref_const);
}

/* ---- logging wrappers ----
 *
 * A wrapper logs a message its caller passes (see gx_call in graph_int.h):
 * the log record's text is the caller's argument, so each call to a
 * wrapper becomes an emit site of the caller, with the caller's template.
 * A wrapper's "shapes" say where a call passes the message and the level,
 * and what text the wrapper puts around the message. The direct ones come
 * from logging calls whose message is a parameter; a function that passes
 * a parameter on to a wrapper is a wrapper too (found to a fixpoint).
 * Callees are resolved as any call is, with one more fallback: `x.m(...)`
 * on a receiver that cannot be resolved goes to the wrapper methods named
 * m (those of a class named like the receiver attribute, if any: `
 * self._transport._log` prefers Transport._log; else all of them).
 */

#define WRAP_MAX_SHAPES 8   /* per function: more are rare and add little */
#define WRAP_MAX_TARGETS 16 /* callees of one call */
#define WRAP_MAX_AFFIX 1024 /* bytes of text a chain of wrappers may add */
#define WRAP_MAX_ROUNDS 16  /* the chains seen in practice are 2-3 deep */

typedef struct {
    int32_t msg_pos;    /* where a call passes the message; -1 = by keyword only */
    const char *msg_kw; /* or under this keyword; NULL = positional only */
    int32_t lvl_pos;    /* lvl_param: where a call passes the level */
    const char *lvl_kw;
    bool lvl_param; /* the level is an argument of the call; else `level` */
    uint8_t level;
    const char *pre, *post; /* templates around the caller's message ("" = none) */
    uint32_t logger;        /* string offset of the logger name; 0 = unknown */
} wshape;

typedef struct {
    uint32_t file;
    const gx_call *c;
    uint32_t from;           /* calling symbol */
    uint32_t tfirst, tcount; /* resolved callees in wrap.targets */
    bool fallback;           /* unresolved `x.m(...)`: wrapper methods named m */
} wcall;

typedef struct {
    rs *r;
    ctx c;
    core_arena scratch;
    core_vec(wshape) * shapes; /* per symbol */
    uint8_t *used;             /* per symbol: some call passes it a message */
    core_vec(wcall) calls;
    core_vec(uint32_t) targets;
} wrap;

static bool is_function(const rs *r, uint32_t s)
{
    return r->sy[s].kind == GRAPH_SYM_FUNCTION || r->sy[s].kind == GRAPH_SYM_METHOD;
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool shape_eq(const wshape *a, const wshape *b)
{
    return a->msg_pos == b->msg_pos && str_eq(a->msg_kw, b->msg_kw) &&
           a->lvl_param == b->lvl_param && a->lvl_pos == b->lvl_pos &&
           str_eq(a->lvl_kw, b->lvl_kw) && a->level == b->level && strcmp(a->pre, b->pre) == 0 &&
           strcmp(a->post, b->post) == 0 && a->logger == b->logger;
}

/* Adds a shape to s; true if it is new. */
static bool add_shape(wrap *w, uint32_t s, const wshape *sh)
{
    if (sh->msg_pos < 0 && !sh->msg_kw)
        return false;
    for (size_t i = 0; i < w->shapes[s].n; i++)
        if (shape_eq(&w->shapes[s].v[i], sh))
            return false;
    if (w->shapes[s].n >= WRAP_MAX_SHAPES)
        return false;
    core_vec_push(&w->shapes[s], *sh);
    return true;
}

/* a + b + c into the arena ("" for NULL parts); NULL if longer than max. */
static const char *join3(core_arena *a, const char *x, const char *y, const char *z, size_t max)
{
    size_t nx = x ? strlen(x) : 0, ny = y ? strlen(y) : 0, nz = z ? strlen(z) : 0;
    if (nx + ny + nz > max)
        return NULL;
    char *p = core_arena_alloc(a, nx + ny + nz + 1);
    memcpy(p, x ? x : "", nx);
    memcpy(p + nx, y ? y : "", ny);
    memcpy(p + nx + ny, z ? z : "", nz);
    p[nx + ny + nz] = 0;
    return p;
}

/*
 * The argument of call c that the callee receives at position pos (after
 * self) or under keyword kw. A `*args` splat covers the positions from its
 * own on: *shift says how far into it pos is.
 */
static const gx_arg *arg_at(const gx_file *x, const gx_call *c, int32_t pos, const char *kw,
                            int32_t *shift)
{
    const gx_arg *splat = NULL;
    *shift = 0;
    for (uint32_t i = 0; i < c->nargs; i++) {
        const gx_arg *a = &x->args.v[c->arg0 + i];
        if (a->kw) {
            if (kw && strcmp(a->kw, kw) == 0)
                return a;
            continue;
        }
        if (pos < 0 || a->pos == UINT32_MAX)
            continue;
        if (a->splat) {
            if (a->pos <= (uint32_t)pos && !splat)
                splat = a;
        } else if (a->pos == (uint32_t)pos) {
            return a;
        }
    }
    if (splat)
        *shift = pos - (int32_t)splat->pos;
    return splat;
}

/* The direct shape of a logging call whose message passes on a parameter. */
static void seed_shape(wrap *w, uint32_t fi, const gx_call *c, uint32_t from)
{
    rs *r = w->r;
    const gx_file *x = xfile(r, fi);
    if (c->msg_arg < 0 || !is_function(r, from))
        return;
    const gx_arg *m = &x->args.v[c->arg0 + (uint32_t)c->msg_arg];
    const gb_emit *em = &r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit];
    wshape sh = {.msg_pos = m->fwd_pos,
                 .msg_kw = m->fwd_kw,
                 .lvl_pos = -1,
                 .level = em->level,
                 .pre = m->pre ? m->pre : "",
                 .post = m->post ? m->post : "",
                 .logger = em->logger};
    if (c->level_arg >= 0) {
        const gx_arg *l = &x->args.v[c->arg0 + (uint32_t)c->level_arg];
        if (l->fwd && !l->splat) {
            sh.lvl_param = true;
            sh.lvl_pos = l->fwd_pos;
            sh.lvl_kw = l->fwd_kw;
            sh.level = GRAPH_LEVEL_CUSTOM;
        }
    }
    add_shape(w, from, &sh);
}

/* Normalised for comparing a receiver name with a class name:
 * "_transport" and "Transport" both give "transport". */
static size_t norm_name(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        char ch = s[i];
        if (ch == '_')
            continue;
        out[k++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    return k;
}

/* Is class cls in the MRO of class of? */
static bool in_mro(const rs *r, uint32_t of, uint32_t cls)
{
    if (of == GRAPH_NONE || !r->mro[of])
        return of == cls;
    for (const uint32_t *m = r->mro[of]; *m != UINT32_MAX; m++)
        if (*m == cls)
            return true;
    return false;
}

/* Length of the top-level package part of a symbol's qualname. */
static size_t top_package(const rs *r, uint32_t s, const char **q)
{
    *q = core_strtab_str(&r->g->strs, r->g->syms.v[s].qualname);
    return strcspn(*q, ".");
}

/*
 * The callees of an unresolved `recv.m(...)` made in from: the wrapper
 * methods named m. When there are several, the nearest kind wins: those
 * of a class named like recv (`self._transport._log` -> Transport._log),
 * else of a class whose name starts or ends with it (`client._log` ->
 * SSHClient._log), else those of the caller's own class and its bases
 * (`self` seen from a nested function), else those of the caller's
 * top-level package; else all of them. Only methods of the caller's
 * language (Python, or TS/JS) count. For TS/JS, whose method names (get,
 * on, emit) are shared by unrelated classes far more often, only the
 * first three kinds do.
 */
static uint32_t fallback_targets(wrap *w, uint32_t from, const char *callee, uint32_t *out,
                                 uint32_t cap)
{
    rs *r = w->r;
    size_t mlen;
    const char *m = last_part(callee, &mlen);
    const char *end = m - 1; /* the dot before m */
    const char *rb = end;
    while (rb > callee && rb[-1] != '.')
        rb--;
    char want[64], got[64];
    size_t wn = norm_name(rb, (size_t)(end - rb), want, sizeof want);
    uint32_t own_cls = class_of(r, from);
    const char *fq;
    size_t fpl = top_package(r, from, &fq);
    bool py = is_python(r, file_of(r, from));
    uint32_t best = py ? 0 : 2, n = 0;
    uint32_t it;
    for (uint32_t s = core_smap_get(&r->methods, m, mlen, &it); s != UINT32_MAX;
         s = core_smap_next(&r->methods, m, mlen, &it)) {
        if (!w->shapes[s].n || is_python(r, file_of(r, s)) != py)
            continue;
        uint32_t cls = r->sy[s].parent;
        const char *cn = cls != GRAPH_NONE ? r->sy[cls].name : "";
        size_t gn = norm_name(cn, strlen(cn), got, sizeof got);
        const char *sq;
        size_t spl = top_package(r, s, &sq);
        bool affix = wn >= 3 && gn >= wn &&
                     (memcmp(want, got, wn) == 0 || memcmp(want, got + gn - wn, wn) == 0);
        uint32_t tier = affix && gn == wn                                  ? 4
                        : affix                                            ? 3
                        : own_cls != GRAPH_NONE && in_mro(r, own_cls, cls) ? 2
                        : spl == fpl && memcmp(sq, fq, fpl) == 0           ? 1
                                                                           : 0;
        if (tier < best)
            continue;
        if (tier > best) {
            best = tier;
            n = 0;
        }
        if (n < cap)
            out[n++] = s;
    }
    return n;
}

/* Resolves the callee of every recorded call that is not a logging call
 * itself (those seed the shapes; a candidate site seeds them and may be a
 * call of a wrapper too). */
static void wrap_targets(wrap *w)
{
    rs *r = w->r;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        if (!x)
            continue;
        for (size_t k = 0; k < x->calls.n; k++) {
            const gx_call *c = &x->calls.v[k];
            wcall wc = {(uint32_t)fi,           c, sym_of(r, (uint32_t)fi, c->from),
                        (uint32_t)w->targets.n, 0, false};
            if (c->emit >= 0) {
                seed_shape(w, (uint32_t)fi, c, wc.from);
                if (r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit].kind != GRAPH_EMIT_CALL)
                    continue;
            }
            int fail;
            w->c.depth = 0;
            ent e = resolve_path(&w->c, wc.from, c->callee, strlen(c->callee), &fail);
            core_arena_reset(&w->scratch);
            size_t mlen;
            const char *m = last_part(c->callee, &mlen);
            bool self_call = strncmp(c->callee, "@self.", 6) == 0;
            uint32_t ov[WRAP_MAX_TARGETS], nov = 0;
            if (e.k == E_SYM && is_function(r, e.id)) {
                core_vec_push(&w->targets, e.id);
                if (self_call && r->sy[e.id].kind == GRAPH_SYM_METHOD) {
                    uint32_t cls = class_of(r, wc.from);
                    if (cls != GRAPH_NONE)
                        collect_overrides(r, cls, m, mlen, ov, &nov, WRAP_MAX_TARGETS, 0);
                }
            } else if (e.k == E_NONE && self_call && !strchr(c->callee + 6, '.')) {
                uint32_t cls = class_of(r, wc.from);
                if (cls != GRAPH_NONE)
                    collect_overrides(r, cls, m, mlen, ov, &nov, WRAP_MAX_TARGETS, 0);
            }
            for (uint32_t i = 0; i < nov; i++)
                if (!(w->targets.n > wc.tfirst && w->targets.v[wc.tfirst] == ov[i]))
                    core_vec_push(&w->targets, ov[i]);
            wc.tcount = (uint32_t)(w->targets.n - wc.tfirst);
            /*
             * The fallback is for receivers of unknown type. self's own
             * methods are known (self.m() that resolves to nothing comes
             * from a base outside the repository). An attribute of self
             * holding something from outside the repository may still be
             * one of ours (self.transport = weakref.proxy(transport)); a
             * module's attribute may not.
             */
            const char *dot = strchr(c->callee, '.');
            bool own = c->callee[0] == '@' && dot && dot == m - 1;
            bool from_self = strncmp(c->callee, "@self.", 6) == 0 ||
                             strncmp(c->callee, "@cls.", 5) == 0 || c->callee[0] == '?';
            wc.fallback = wc.tcount == 0 && dot && !own &&
                          (e.k == E_NONE || (e.k == E_EXT && from_self)) &&
                          !(mlen > 4 && m[0] == '_' && m[1] == '_');
            core_vec_push(&w->calls, wc);
        }
    }
}

/* The callees of a call: resolved ones, or the fallback. */
static uint32_t wcall_targets(wrap *w, const wcall *wc, uint32_t *out)
{
    if (wc->fallback)
        return fallback_targets(w, wc->from, wc->c->callee, out, WRAP_MAX_TARGETS);
    uint32_t n = wc->tcount < WRAP_MAX_TARGETS ? wc->tcount : WRAP_MAX_TARGETS;
    if (n)
        memcpy(out, w->targets.v + wc->tfirst, n * sizeof *out);
    return n;
}

/* The level a call gives a wrapper of shape sh: fixed, or its argument. */
static uint8_t call_level(const gx_file *x, const gx_call *c, const wshape *sh)
{
    if (!sh->lvl_param)
        return sh->level;
    int32_t shift;
    const gx_arg *l = arg_at(x, c, sh->lvl_pos, sh->lvl_kw, &shift);
    return l && l->level != GRAPH_LEVEL_NONE ? l->level : (uint8_t)GRAPH_LEVEL_CUSTOM;
}

/* One round: callers that pass a parameter on to a wrapper become
 * wrappers. True if any shape was added. */
static bool wrap_round(wrap *w)
{
    rs *r = w->r;
    bool changed = false;
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        if (!is_function(r, wc->from))
            continue;
        const gx_file *x = xfile(r, wc->file);
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++) {
            for (size_t j = 0; j < w->shapes[t[k]].n; j++) {
                wshape s = w->shapes[t[k]].v[j];
                int32_t shift;
                const gx_arg *m = arg_at(x, wc->c, s.msg_pos, s.msg_kw, &shift);
                if (!m || !m->fwd)
                    continue;
                wshape d = {.msg_pos = m->fwd_pos < 0 ? -1 : m->fwd_pos + shift,
                            .msg_kw = m->splat ? NULL : m->fwd_kw,
                            .lvl_pos = -1,
                            .level = s.level,
                            .logger = s.logger};
                d.pre = join3(&r->arena, s.pre, m->pre, NULL, WRAP_MAX_AFFIX);
                d.post = join3(&r->arena, m->post, s.post, NULL, WRAP_MAX_AFFIX);
                if (!d.pre || !d.post)
                    continue;
                if (s.lvl_param) {
                    int32_t ls;
                    const gx_arg *l = arg_at(x, wc->c, s.lvl_pos, s.lvl_kw, &ls);
                    if (l && l->fwd) {
                        d.lvl_param = true;
                        d.lvl_pos = l->fwd_pos < 0 ? -1 : l->fwd_pos + ls;
                        d.lvl_kw = l->splat ? NULL : l->fwd_kw;
                        d.level = GRAPH_LEVEL_CUSTOM;
                    } else {
                        d.level = call_level(x, wc->c, &s);
                    }
                }
                changed |= add_shape(w, wc->from, &d);
            }
        }
    }
    return changed;
}

/* A template cut to GRAPH_TEMPLATE_MAX (at a character boundary, without
 * half of a "%%"); true if it was cut. */
static bool cut_template(char *s)
{
    size_t n = strlen(s);
    if (n <= GRAPH_TEMPLATE_MAX)
        return false;
    n = core_utf8_valid_prefix(s, GRAPH_TEMPLATE_MAX);
    size_t pct = 0;
    while (pct < n && s[n - 1 - pct] == '%')
        pct++;
    if (pct % 2)
        n--;
    s[n] = 0;
    return true;
}

/* Whether an argument names a string constant of ours (resolved from the
 * calling symbol). */
static bool names_constant(wrap *w, const wcall *wc, const gx_arg *m)
{
    if (!m->ref)
        return false;
    int fail;
    w->c.depth = 0;
    ent e = resolve_path(&w->c, wc->from, m->ref, strlen(m->ref), &fail);
    core_arena_reset(&w->scratch);
    return e.k == E_CONST;
}

/* Does a call pass message text where a wrapper logs its parameter: a
 * literal, a constant, or a parameter of a caller that is itself a
 * wrapper used so? A path or a count passed to a function that logs it
 * ("Enter the directory: ${dir}", or its own recursive call) is data, and
 * the function no wrapper. */
static bool passes_message(wrap *w, const wcall *wc, uint32_t target, const gx_arg *m)
{
    if (!m || wc->from == target)
        return false;
    if (m->tmpl)
        return true;
    if (m->fwd)
        return w->used[wc->from] != 0;
    return names_constant(w, wc, m);
}

/* Marks the wrappers some call passes a message to; again while that
 * finds more (a wrapper calling a wrapper). */
static void wrap_used(wrap *w)
{
    bool changed = true;
    for (int round = 0; changed && round < WRAP_MAX_ROUNDS; round++) {
        changed = false;
        for (size_t i = 0; i < w->calls.n; i++) {
            const wcall *wc = &w->calls.v[i];
            const gx_file *x = xfile(w->r, wc->file);
            uint32_t t[WRAP_MAX_TARGETS];
            uint32_t nt = wcall_targets(w, wc, t);
            for (uint32_t k = 0; k < nt; k++) {
                for (size_t j = 0; j < w->shapes[t[k]].n && !w->used[t[k]]; j++) {
                    const wshape *s = &w->shapes[t[k]].v[j];
                    int32_t shift;
                    const gx_arg *m = arg_at(x, wc->c, s->msg_pos, s->msg_kw, &shift);
                    if (passes_message(w, wc, t[k], m)) {
                        w->used[t[k]] = 1;
                        changed = true;
                    }
                }
            }
        }
    }
}

/* The emit sites of the calls that pass a message to a wrapper. */
static void wrap_emit(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        const gx_file *x = xfile(r, wc->file);
        const gx_call *c = wc->c;
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        size_t first = g->emits.n;
        for (uint32_t k = 0; k < nt; k++) {
            /* A callee no message reaches is no wrapper: its calls are
             * not sites (a number passed to it is data). */
            if (!w->used[t[k]])
                continue;
            for (size_t j = 0; j < w->shapes[t[k]].n; j++) {
                const wshape *s = &w->shapes[t[k]].v[j];
                int32_t shift;
                const gx_arg *m = arg_at(x, c, s->msg_pos, s->msg_kw, &shift);
                if (!m || !(m->tmpl || m->ref))
                    continue;
                /*
                 * A parameter passed on has its sites at the callers. With
                 * text of its own (TS: `user ${id} signed in`) it is a
                 * site here too, unless it only decorates what callers
                 * pass (`[say] ${text}`, text on one side) and callers
                 * were found: then, as for a wrapper's own logging call
                 * (wrap_drop_generic), those sites stand for it.
                 */
                if (m->fwd && w->used[wc->from] && (!m->pre || !m->post))
                    continue;
                bool affix = s->pre[0] || s->post[0];
                gb_emit o = {0};
                o.symbol = wc->from;
                o.line = c->line;
                o.kind = GRAPH_EMIT_LOG;
                o.level = call_level(x, c, s);
                o.logger = s->logger;
                o.nargs = m->nafter;
                o.flags = m->flags | GRAPH_EF_WRAPPER;
                o.style = m->style;
                o.ref_const = GRAPH_NONE;
                const char *tmpl = m->tmpl;
                if (m->ref) {
                    int fail;
                    w->c.depth = 0;
                    ent e = resolve_path(&w->c, wc->from, m->ref, strlen(m->ref), &fail);
                    core_arena_reset(&w->scratch);
                    uint32_t cid = e.k == E_CONST ? e.id : GRAPH_NONE;
                    if (affix) {
                        /* The text around the constant is known only with
                         * the constant's own text. */
                        if (cid == GRAPH_NONE || !g->emits.v[cid].tmpl)
                            continue;
                        tmpl = core_strtab_str(&g->strs, g->emits.v[cid].tmpl);
                    } else {
                        o.ref = core_strtab_intern(&g->strs, m->ref, strlen(m->ref));
                        o.ref_const = cid;
                    }
                }
                if (tmpl) {
                    char *full = (char *)join3(&w->scratch, s->pre, tmpl, s->post, SIZE_MAX);
                    if (cut_template(full))
                        o.flags |= GRAPH_EF_TRUNCATED;
                    o.tmpl = core_strtab_intern(&g->strs, full, strlen(full));
                    core_arena_reset(&w->scratch);
                    if (affix)
                        o.style = GRAPH_STYLE_CONCAT;
                }
                size_t mlen;
                const char *meth = last_part(c->callee, &mlen);
                size_t rlen = meth > c->callee ? (size_t)(meth - c->callee) - 1 : 0;
                o.receiver = core_strtab_intern(&g->strs, c->callee, rlen);
                o.method = core_strtab_intern(&g->strs, meth, mlen);
                /* Several callees may give the same site. */
                bool dup = false;
                for (size_t e = first; e < g->emits.n && !dup; e++) {
                    const gb_emit *p = &g->emits.v[e];
                    dup = p->tmpl == o.tmpl && p->ref == o.ref && p->level == o.level &&
                          p->logger == o.logger;
                }
                if (dup)
                    continue;
                core_vec_push(&g->emits, o);
                g->syms.v[wc->from].flags |= GRAPH_SF_LOGS;
                if (o.style == GRAPH_STYLE_REF || o.style == GRAPH_STYLE_DYNAMIC)
                    g->syms.v[wc->from].flags |= GRAPH_SF_LOGS_DYNAMIC;
            }
        }
    }
}

/*
 * A wrapper's own logging call has the caller's message as (part of) its
 * message: its template, if any ("[chan %s] %s"), matches every message
 * the wrapper logs and names the wrapper, never the caller. When calls
 * to the wrapper were found, the sites at the calls stand for it.
 */
static void wrap_drop_generic(wrap *w)
{
    rs *r = w->r;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = r->idx->files.v[fi].x;
        if (!x)
            continue;
        for (size_t k = 0; k < x->calls.n; k++) {
            const gx_call *c = &x->calls.v[k];
            if (c->emit < 0 || !w->used[sym_of(r, (uint32_t)fi, c->from)])
                continue;
            gb_emit *em = &r->g->emits.v[r->emit_base[fi] + (uint32_t)c->emit];
            if (em->tmpl) {
                em->tmpl = 0;
                em->style = GRAPH_STYLE_DYNAMIC;
                /* What it logs is its callers' text. */
                r->g->syms.v[em->symbol].flags |= GRAPH_SF_LOGS_DYNAMIC;
            }
        }
    }
}

/*
 * Functions that log a non-literal message that may be their callers'
 * text: one whose logging call passes on a parameter (a wrapper's shape,
 * whether or not a call was seen to pass it text), or one to which some
 * call passes message-like text (a literal with a space or a hole in it,
 * or a constant) though how it makes its message of it is not known
 * (`_pre(self, msg)`, `msg % args` first). One no call passes text to,
 * and whose message is no parameter, logs a message of its own making.
 */
static void wrap_takes_text(wrap *w)
{
    rs *r = w->r;
    gb_graph *g = r->g;
    for (uint32_t s = 0; s < r->nsym; s++)
        if (w->shapes[s].n > 0 && (g->syms.v[s].flags & GRAPH_SF_LOGS_DYNAMIC))
            g->syms.v[s].flags |= GRAPH_SF_TAKES_TEXT;
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        const gx_file *x = xfile(r, wc->file);
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        for (uint32_t k = 0; k < nt; k++) {
            uint32_t *fl = &g->syms.v[t[k]].flags;
            if (t[k] == wc->from || !(*fl & GRAPH_SF_LOGS_DYNAMIC) || (*fl & GRAPH_SF_TAKES_TEXT))
                continue;
            for (uint32_t a = 0; a < wc->c->nargs; a++) {
                const gx_arg *m = &x->args.v[wc->c->arg0 + a];
                bool text = m->tmpl ? strchr(m->tmpl, ' ') || m->style != GRAPH_STYLE_PLAIN
                                    : names_constant(w, wc, m);
                if (text) {
                    *fl |= GRAPH_SF_TAKES_TEXT;
                    break;
                }
            }
        }
    }
}

/* Where (symbol, line) a call reaches a logging wrapper. */
static uint64_t call_key(uint32_t symbol, uint32_t line)
{
    return core_hash_u64(((uint64_t)symbol << 32) | line) >> 1;
}

/* A call that reaches a wrapper is no candidate of its own: the wrapper
 * says what it logs (a site of the caller, or none when the call only
 * passes its own caller's message on). */
static void wrap_drop_candidates(wrap *w)
{
    gb_graph *g = w->r->g;
    core_map at = {0};
    for (size_t i = 0; i < w->calls.n; i++) {
        const wcall *wc = &w->calls.v[i];
        uint32_t t[WRAP_MAX_TARGETS];
        uint32_t nt = wcall_targets(w, wc, t);
        bool wrapper = false;
        for (uint32_t k = 0; k < nt && !wrapper; k++)
            wrapper = w->shapes[t[k]].n > 0;
        if (wrapper)
            *core_map_put(&at, call_key(wc->from, wc->c->line), NULL) = 1;
    }
    for (size_t i = 0; i < g->emits.n; i++) {
        gb_emit *e = &g->emits.v[i];
        if (e->kind == GRAPH_EMIT_CALL && core_map_get(&at, call_key(e->symbol, e->line))) {
            e->style = GRAPH_STYLE_NONE;
            e->tmpl = 0;
        }
    }
    core_map_free(&at);
}

/* Drops the candidates wrap_drop_candidates emptied, renumbering the
 * constant references (after everything that indexes emits by file). */
static void compact_emits(rs *r)
{
    gb_graph *g = r->g;
    uint32_t *to = core_xmalloc((g->emits.n ? g->emits.n : 1) * sizeof *to);
    size_t n = 0;
    for (size_t i = 0; i < g->emits.n; i++) {
        const gb_emit *e = &g->emits.v[i];
        bool gone = e->kind == GRAPH_EMIT_CALL && e->style == GRAPH_STYLE_NONE;
        to[i] = gone ? GRAPH_NONE : (uint32_t)n;
        if (!gone)
            g->emits.v[n++] = *e;
    }
    g->emits.n = n;
    for (size_t i = 0; i < n; i++) {
        gb_emit *e = &g->emits.v[i];
        if (e->ref_const != GRAPH_NONE)
            e->ref_const = to[e->ref_const];
    }
    free(to);
}

/* Emit sites at the calls of logging wrappers; after resolve_refs(),
 * whose emits they join. */
static void resolve_wrappers(rs *r)
{
    wrap w;
    memset(&w, 0, sizeof w);
    w.r = r;
    core_arena_init(&w.scratch, 0);
    w.c = (ctx){r, 0, &w.scratch};
    w.shapes = core_xcalloc(r->nsym + 1, sizeof *w.shapes);
    w.used = core_xcalloc(r->nsym + 1, 1);
    wrap_targets(&w);
    for (int round = 0; round < WRAP_MAX_ROUNDS && wrap_round(&w); round++)
        ;
    wrap_used(&w);
    for (uint32_t s = 0; s < r->nsym; s++)
        if (w.used[s])
            r->g->syms.v[s].flags |= GRAPH_SF_WRAPPER;
    wrap_emit(&w);
    wrap_drop_candidates(&w);
    wrap_drop_generic(&w);
    wrap_takes_text(&w);
    compact_emits(r);
    for (uint32_t s = 0; s < r->nsym; s++)
        core_vec_free(&w.shapes[s]);
    free(w.shapes);
    free(w.used);
    core_vec_free(&w.calls);
    core_vec_free(&w.targets);
    core_arena_free(&w.scratch);
}

/* File-level import edges and member_of. */
static void structural_edges(rs *r)
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
                const char *abs = py_abs_module(r, fi, im->module, buf, sizeof buf);
                uint32_t t = abs ? find_module(r, abs, strlen(abs)) : GRAPH_NONE;
                e = t == GRAPH_NONE ? NONE_ENT : mk(E_SYM, t);
            } else {
                uint32_t tf = resolve_spec(r, fi, im->module);
                e = tf == UINT32_MAX || !r->idx->files.v[tf].x
                        ? NONE_ENT
                        : mk(E_SYM, r->idx->files.v[tf].module_sym);
            }
        } else if (is_python(r, fi) && im->kind == GX_IMP_MODULE && !im->alias) {
            /* import a.b.c: the edge goes to a.b.c itself. */
            char buf[1024];
            const char *abs = py_abs_module(r, fi, im->module, buf, sizeof buf);
            uint32_t t = abs ? find_module(r, abs, strlen(abs)) : GRAPH_NONE;
            e = t == GRAPH_NONE ? NONE_ENT : mk(E_SYM, t);
        } else {
            e = resolve_import(&c, (uint32_t)i, NULL, 0);
        }
        if (e.k == E_SYM && e.id != m)
            add_edge(&r->g->edges, m, e.id, GRAPH_EDGE_IMPORTS, 1.0f);
    }
    for (uint32_t s = 0; s < r->nsym; s++)
        if (r->sy[s].parent != GRAPH_NONE)
            add_edge(&r->g->edges, s, r->sy[s].parent, GRAPH_EDGE_MEMBER_OF, 1.0f);
}

void graph__resolve(gb_index *idx, gb_graph *g)
{
    rs r;
    memset(&r, 0, sizeof r);
    r.idx = idx;
    r.g = g;
    core_arena_init(&r.arena, 0);
    for (size_t i = 0; i < idx->files.n; i++)
        if (idx->files.v[i].x)
            core_smap_add(&r.paths, idx->files.v[i].rel, strlen(idx->files.v[i].rel), (uint32_t)i);
    build_symbols(&r);
    build_tables(&r);
    build_hierarchy(&r);
    unsigned threads = idx->opts->threads ? idx->opts->threads : core_ncpus();
    if (threads > 64)
        threads = 64;
    resolve_refs(&r, threads);
    resolve_wrappers(&r);
    structural_edges(&r);

    for (uint32_t s = 0; s < r.nsym; s++)
        core_vec_free(&r.subs[s]);
    free(r.subs);
    free(r.mro);
    free(r.ext_base);
    free(r.sy);
    free(r.classlike);
    free(r.bind);
    free(r.imp);
    free(r.exp);
    free(r.star_first);
    free(r.star);
    free(r.emit_base);
    core_smap_free(&r.modules);
    core_smap_free(&r.prefixes);
    core_smap_free(&r.paths);
    core_smap_free(&r.methods);
    core_smap_free(&r.names);
    km_free(&r.children);
    km_free(&r.binds);
    km_free(&r.attrs);
    km_free(&r.imports);
    km_free(&r.consts);
    km_free(&r.exports);
    km_free(&r.containers);
    core_arena_free(&r.arena);
}
