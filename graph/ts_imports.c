/*
 * TypeScript/JavaScript extraction: the module level. Imports (ES
 * modules and require()), exports and the symbols they export, and the
 * loggers and imports known before the walk (a function may use a
 * logger declared below it).
 */
#include "ts_int.h"

#include <string.h>

/* ---- imports ---- */

void graph__ts_add_import(tx *x, gx_import_kind kind, const char *module, const char *name,
                          const char *alias, const ts_scope *sc, TSNode at)
{
    if (!module)
        return;
    gx_import im = {.module = module,
                    .name = name,
                    .alias = alias,
                    .scope = sc->sym,
                    .line = gx_line(at),
                    .kind = (uint8_t)kind};
    core_vec_push(&x->f->imports, im);
    /* Names the emit detector must know. */
    if (!alias)
        return;
    bool whole = kind == GX_IMP_MODULE || (name && strcmp(name, "default") == 0);
    if (strcmp(module, "debug") == 0 && whole)
        graph__ts_push_logger(x, alias, LG_DEBUG, NULL, NULL, GRAPH_LEVEL_NONE, false);
    else if (graph__ts_logger_lib(module) && whole)
        graph__ts_push_logger(x, alias, LG_LIB, NULL, NULL, GRAPH_LEVEL_NONE, false);
}

/* `{a, b as c}` of an import statement `at`; true if it names any. */
static NOINLINE bool named_imports(tx *x, TSNode ni, const char *module, const ts_scope *sc,
                                   TSNode at, int depth)
{
    bool any = false;
    TSTreeCursor *c = kids(x, depth, ni);
    if (!c)
        return false;
    do {
        TSNode sp = ts_tree_cursor_current_node(c);
        if (ty(x, sp) != N_IMPORT_SPECIFIER)
            continue;
        TSNode nm = fld(x, sp, F_NAME), al = fld(x, sp, F_ALIAS);
        const char *name = ty(x, nm) == N_STRING ? graph__ts_string_value(x, nm) : name_text(x, nm);
        const char *alias = is_null(al) ? name : name_text(x, al);
        if (name && alias)
            graph__ts_add_import(x, GX_IMP_NAME, module, name, alias, sc, at);
        any = true;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return any;
}

/* The import_clause of import statement `at`; true if it names any. */
static NOINLINE bool import_clause(tx *x, TSNode clause, const char *module, const ts_scope *sc,
                                   TSNode at, int depth)
{
    bool any = false;
    TSTreeCursor *c = kids(x, depth, clause);
    if (!c)
        return false;
    do {
        TSNode part = ts_tree_cursor_current_node(c);
        unsigned pt = ty(x, part);
        if (pt == N_IDENTIFIER) {
            graph__ts_add_import(x, GX_IMP_NAME, module, "default", name_text(x, part), sc, at);
            any = true;
        } else if (pt == N_NAMESPACE_IMPORT) {
            TSNode id = ts_node_named_child(part, 0);
            graph__ts_add_import(x, GX_IMP_MODULE, module, NULL, name_text(x, id), sc, at);
            any = true;
        } else if (pt == N_NAMED_IMPORTS) {
            any |= named_imports(x, part, module, sc, at, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    return any;
}

/* An import statement: its imports, and the logging libraries it binds
 * names to (as loggers). */
NOINLINE void graph__ts_do_import(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    const char *module = graph__ts_string_value(x, fld(x, n, F_SOURCE));
    bool any = false;
    TSTreeCursor *c = kids(x, depth, n);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            unsigned t = ty(x, ch);
            if (t == N_IMPORT_REQUIRE_CLAUSE) {
                /* import x = require('m') */
                const char *m = graph__ts_string_value(x, fld(x, ch, F_SOURCE));
                TSNode id = ts_node_named_child(ch, 0);
                if (m && ty(x, id) == N_IDENTIFIER)
                    graph__ts_add_import(x, GX_IMP_MODULE, m, NULL, name_text(x, id), sc, n);
                any = true;
            } else if (t == N_IMPORT_CLAUSE && module) {
                any |= import_clause(x, ch, module, sc, n, depth + 1);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (!any && module)
        graph__ts_add_import(x, GX_IMP_MODULE, module, NULL, NULL, sc, n);
}

/*
 * `const x = require('m')`, `const {a, b: c} = require('m')`,
 * `const x = require('m').y`, `const x = await import('m')`: the imports;
 * false when the value is none of these.
 */
NOINLINE bool graph__ts_require_decl(tx *x, TSNode name, TSNode value, const ts_scope *sc,
                                     int depth)
{
    TSNode v = unwrap(x, value);
    if (ty(x, v) == N_AWAIT_EXPRESSION)
        v = unwrap(x, ts_node_named_child(v, 0));
    const char *m = graph__ts_require_of(x, v);
    unsigned nt = ty(x, name);
    if (m) {
        if (nt == N_IDENTIFIER) {
            graph__ts_add_import(x, GX_IMP_MODULE, m, NULL, name_text(x, name), sc, v);
        } else if (nt == N_OBJECT_PATTERN) {
            TSTreeCursor *c = kids(x, depth, name);
            if (c) {
                do {
                    TSNode p = ts_tree_cursor_current_node(c);
                    unsigned pt = ty(x, p);
                    if (pt == N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN) {
                        const char *nm = name_text(x, p);
                        graph__ts_add_import(x, GX_IMP_NAME, m, nm, nm, sc, v);
                    } else if (pt == N_PAIR_PATTERN) {
                        const char *k = graph__ts_member_name(x, fld(x, p, F_KEY));
                        TSNode val = fld(x, p, F_VALUE);
                        if (ty(x, val) == N_ASSIGNMENT_PATTERN)
                            val = fld(x, val, F_LEFT);
                        if (k && ty(x, val) == N_IDENTIFIER)
                            graph__ts_add_import(x, GX_IMP_NAME, m, k, name_text(x, val), sc, v);
                        else
                            graph__ts_bind_pattern(x, val, sc->sym, depth + 1);
                    } else if (pt == N_OBJECT_ASSIGNMENT_PATTERN) {
                        TSNode l = fld(x, p, F_LEFT);
                        const char *nm = name_text(x, l);
                        graph__ts_add_import(x, GX_IMP_NAME, m, nm, nm, sc, v);
                    } else if (ts_node_is_named(p)) {
                        graph__ts_bind_pattern(x, p, sc->sym, depth + 1);
                    }
                } while (ts_tree_cursor_goto_next_sibling(c));
            }
        } else {
            graph__ts_add_import(x, GX_IMP_MODULE, m, NULL, NULL, sc, v);
            graph__ts_bind_pattern(x, name, sc->sym, depth + 1);
        }
        return true;
    }
    if (ty(x, v) == N_MEMBER_EXPRESSION && nt == N_IDENTIFIER) {
        TSNode obj = unwrap(x, fld(x, v, F_OBJECT)), prop = fld(x, v, F_PROPERTY);
        m = graph__ts_require_of(x, obj);
        if (m && !empty_node(prop)) {
            graph__ts_add_import(x, GX_IMP_NAME, m, text(x, prop), name_text(x, name), sc, v);
            return true;
        }
    }
    return false;
}

/* ---- exports ---- */

void graph__ts_add_export(tx *x, gx_export_kind kind, const char *name, const char *local,
                          const char *module, TSNode at)
{
    if (!name)
        return;
    if (x->f->exports.n) {
        /* Overloads: `export function f(a: A); export function f(b: B) {...}` */
        const gx_export *p = &x->f->exports.v[x->f->exports.n - 1];
        if (p->kind == kind && !strcmp(p->name, name) && p->local == local && p->module == module)
            return;
        if (p->kind == kind && !strcmp(p->name, name) && p->local && local &&
            !strcmp(p->local, local) && !p->module && !module)
            return;
    }
    gx_export e = {
        .name = name, .local = local, .module = module, .line = gx_line(at), .kind = (uint8_t)kind};
    core_vec_push(&x->f->exports, e);
}

/* The export records of `export <declaration>`. */
NOINLINE void graph__ts_export_names(tx *x, TSNode d, bool dflt, TSNode at, int depth)
{
    switch (ty(x, d)) {
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION: {
        TSTreeCursor *c = kids(x, depth, d);
        if (!c)
            return;
        do {
            TSNode v = ts_tree_cursor_current_node(c);
            if (ty(x, v) != N_VARIABLE_DECLARATOR)
                continue;
            TSNode nm = fld(x, v, F_NAME);
            if (ty(x, nm) == N_IDENTIFIER) {
                const char *s = name_text(x, nm);
                graph__ts_add_export(x, GX_EXP_NAME, s, s, NULL, v);
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    case N_AMBIENT_DECLARATION: {
        TSNode inner = ts_node_named_child(d, 0);
        if (!is_null(inner) && !ts_node_eq(inner, d))
            graph__ts_export_names(x, inner, dflt, at, depth + 1);
        return;
    }
    default: {
        TSNode nm = fld(x, d, F_NAME);
        if (is_null(nm) || ty(x, nm) == N_STRING)
            return;
        const char *s = graph__ts_type_path(x, nm, 0);
        if (s && strchr(s, '.')) /* namespace A.B exports A */
            s = core_arena_strndup(&x->f->arena, s, strcspn(s, "."));
        if (s)
            graph__ts_add_export(x, GX_EXP_NAME, dflt ? "default" : s, s, NULL, at);
        return;
    }
    }
}

/* What an export statement n holds besides a declaration or a value. */
void graph__ts_export_stmt(tx *x, TSNode n, ts_export_stmt *st, int depth)
{
    memset(st, 0, sizeof *st);
    st->module = graph__ts_string_value(x, fld(x, n, F_SOURCE));
    bool eq = false;
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == A_DEFAULT)
            st->dflt = true;
        else if (t == A_STAR)
            st->star = true;
        else if (t == A_EQ)
            eq = true;
        else if (t == N_EXPORT_CLAUSE)
            st->clause = ch;
        else if (t == N_NAMESPACE_EXPORT)
            st->ns = ch;
        else if (eq && ts_node_is_named(ch) && t != N_COMMENT && is_null(st->eqexpr))
            st->eqexpr = ch;
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* The export records of `export {a, b as c}`, `export {a} from 'm'`,
 * `export * as ns from 'm'` and `export * from 'm'` (n: the statement). */
void graph__ts_export_list(tx *x, TSNode n, const ts_export_stmt *st, int depth)
{
    TSNode clause = st->clause, ns = st->ns;
    const char *module = st->module;
    if (!is_null(clause)) {
        TSTreeCursor *c2 = kids(x, depth, clause);
        if (!c2)
            return;
        do {
            TSNode sp = ts_tree_cursor_current_node(c2);
            if (ty(x, sp) != N_EXPORT_SPECIFIER)
                continue;
            TSNode nm = fld(x, sp, F_NAME), al = fld(x, sp, F_ALIAS);
            const char *local =
                ty(x, nm) == N_STRING ? graph__ts_string_value(x, nm) : name_text(x, nm);
            const char *name = is_null(al)             ? local
                               : ty(x, al) == N_STRING ? graph__ts_string_value(x, al)
                                                       : name_text(x, al);
            if (!local || !name)
                continue;
            if (module)
                graph__ts_add_export(x, GX_EXP_FROM, name, local, module, sp);
            else
                graph__ts_add_export(x, GX_EXP_NAME, name, local, NULL, sp);
        } while (ts_tree_cursor_goto_next_sibling(c2));
        return;
    }
    if (!is_null(ns) && module) {
        TSNode id = ts_node_named_child(ns, 0);
        const char *name = ty(x, id) == N_STRING ? graph__ts_string_value(x, id) : name_text(x, id);
        graph__ts_add_export(x, GX_EXP_NS, name, NULL, module, n);
        return;
    }
    if (st->star && module)
        graph__ts_add_export(x, GX_EXP_STAR, "*", NULL, module, n);
}

/* The name an assignment to p exports: "x" for `exports.x` and
 * `module.exports.x`; NULL for any other path. */
const char *graph__ts_exports_name(const char *p)
{
    size_t plen = strlen(p);
    if (plen > 8 && memcmp(p, "exports.", 8) == 0 && !memchr(p + 8, '.', plen - 8))
        return p + 8;
    if (plen > 15 && memcmp(p, "module.exports.", 15) == 0 && !memchr(p + 15, '.', plen - 15))
        return p + 15;
    return NULL;
}

/* The module an identifier names by `var m_1 = require('m')`, or NULL. */
static const char *module_alias(tx *x, TSNode id)
{
    if (ty(x, id) != N_IDENTIFIER)
        return NULL;
    const char *nm = name_text(x, id);
    for (size_t i = x->f->imports.n; nm && i-- > 0;) {
        const gx_import *im = &x->f->imports.v[i];
        if (im->kind == GX_IMP_MODULE && im->alias && strcmp(im->alias, nm) == 0)
            return im->module;
    }
    return NULL;
}

/* `exports` or `module.exports`. */
static bool is_exports(tx *x, TSNode n)
{
    const char *p = graph__ts_path_of(x, unwrap(x, n), 0);
    return p && (strcmp(p, "exports") == 0 || strcmp(p, "module.exports") == 0);
}

/*
 * The re-exports a TypeScript compiler writes for CommonJS, at a module's
 * top level: `__exportStar(require('./m'), exports)` (or through tslib,
 * or `__export(require('./m'))` of older compilers) for `export * from`,
 * and `Object.defineProperty(exports, 'N', { get: function () { return
 * m_1.L; } })` for `export { L as N } from`. A package's index is made of
 * them, so without them nothing imported from the package reaches its
 * classes. call's callee is path.
 */
NOINLINE void graph__ts_cjs_reexport(tx *x, TSNode call, const char *path, int depth)
{
    if (!path)
        return;
    TSNode av[3];
    uint32_t na = graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), av, 3, depth);
    const char *last = gx_last_component(path);
    if ((strcmp(last, "__exportStar") == 0 && na == 2 && is_exports(x, av[1])) ||
        (strcmp(path, "__export") == 0 && na == 1)) {
        TSNode m = unwrap(x, av[0]);
        const char *mod = graph__ts_require_of(x, m);
        if (!mod)
            mod = module_alias(x, m);
        if (mod)
            graph__ts_add_export(x, GX_EXP_STAR, "*", NULL, mod, call);
        return;
    }
    if (strcmp(path, "Object.defineProperty") != 0 || na != 3 || !is_exports(x, av[0]))
        return;
    const char *name =
        ty(x, unwrap(x, av[1])) == N_STRING ? graph__ts_string_value(x, unwrap(x, av[1])) : NULL;
    TSNode get = unwrap(x, graph__ts_object_key(x, unwrap(x, av[2]), "get", depth + 1));
    if (!name || is_null(get) || !is_fn(ty(x, get)))
        return;
    /* The getter's body: `{ return m_1.L; }`, or an arrow's `m_1.L`. */
    TSNode v = fld(x, get, F_BODY);
    if (ty(x, v) == N_STATEMENT_BLOCK) {
        TSNode r = ts_node_named_child_count(v) == 1 ? ts_node_named_child(v, 0) : gx_null();
        v = ty(x, r) == N_RETURN_STATEMENT ? unwrap(x, ts_node_named_child(r, 0)) : gx_null();
    }
    if (ty(x, v) != N_MEMBER_EXPRESSION)
        return;
    const char *mod = module_alias(x, unwrap(x, fld(x, v, F_OBJECT)));
    const char *local = name_text(x, fld(x, v, F_PROPERTY));
    if (!mod || !local)
        return;
    graph__ts_add_export(x, GX_EXP_FROM, name, local, mod, call);
}

/* The name of an exported function or class expression, else "default". */
const char *graph__ts_own_name(tx *x, TSNode fn_or_class)
{
    const char *nm = name_text(x, fld(x, fn_or_class, F_NAME));
    return nm ? nm : "default";
}

/* Symbols named by `export { a as b }`, `export default a`,
 * `module.exports = a`, `exports.b = a`: exported. */
void graph__ts_mark_exported(tx *x)
{
    if (!x->f->exports.n)
        return;
    core_smap top = {0};
    for (size_t i = 0; i < x->f->syms.n; i++) {
        const gx_sym *s = &x->f->syms.v[i];
        if (s->parent < 0 && !s->container)
            core_smap_add(&top, s->name, strlen(s->name), (uint32_t)i);
    }
    for (size_t i = 0; i < x->f->exports.n; i++) {
        const gx_export *e = &x->f->exports.v[i];
        if (e->kind != GX_EXP_NAME || !e->local || strchr(e->local, '.'))
            continue;
        size_t len = strlen(e->local);
        uint32_t it = 0;
        for (uint32_t v = core_smap_get(&top, e->local, len, &it); v != UINT32_MAX;
             v = core_smap_next(&top, e->local, len, &it))
            x->f->syms.v[v].flags |= GRAPH_SF_EXPORTED;
    }
    core_smap_free(&top);
}

/* ---- before the walk ---- */

/* Class fields that hold loggers: `private log = new Logger(X.name)`. */
static void prescan_class(tx *x, TSNode cls, int depth)
{
    TSTreeCursor *c = kids(x, depth, fld(x, cls, F_BODY));
    if (!c)
        return;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        if (ty(x, m) != N_PUBLIC_FIELD_DEFINITION)
            continue;
        const char *nm = graph__ts_member_name(x, fld(x, m, F_NAME));
        TSNode v = fld(x, m, F_VALUE);
        if (nm && !is_null(v))
            graph__ts_note_logger(x, graph__path_join(x->f, "@self", nm, strlen(nm)), v, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static void prescan_decl(tx *x, TSNode d, int depth)
{
    unsigned t = ty(x, d);
    if (t == N_CLASS_DECLARATION || t == N_ABSTRACT_CLASS_DECLARATION) {
        prescan_class(x, d, depth);
        return;
    }
    if (t != N_LEXICAL_DECLARATION && t != N_VARIABLE_DECLARATION)
        return;
    TSTreeCursor *c = kids(x, depth, d);
    if (!c)
        return;
    do {
        TSNode v = ts_tree_cursor_current_node(c);
        if (ty(x, v) != N_VARIABLE_DECLARATOR)
            continue;
        TSNode name = fld(x, v, F_NAME), value = fld(x, v, F_VALUE);
        if (ty(x, name) == N_IDENTIFIER && !is_null(value))
            graph__ts_note_logger(x, name_text(x, name), value, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/*
 * Before the walk: module-level imports and declarations of loggers and
 * logger factories, so a function above `const log = debug('x')` sees it
 * (module code runs before any function is called).
 */
void graph__ts_prescan(tx *x, TSNode root, const ts_scope *sc)
{
    TSTreeCursor *c = kids(x, 0, root);
    if (!c)
        return;
    do {
        TSNode st = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, st);
        if (t == N_IMPORT_STATEMENT) {
            size_t before = x->f->imports.n;
            graph__ts_do_import(x, st, sc, 1);
            x->f->imports.n = before;
        } else if (t == N_EXPORT_STATEMENT) {
            TSNode d = fld(x, st, F_DECLARATION);
            if (!is_null(d))
                prescan_decl(x, d, 1);
        } else {
            prescan_decl(x, st, 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}
