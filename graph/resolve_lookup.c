/*
 * Resolution: what a name or a dotted path stands for in a scope.
 *
 * Name lookup follows the languages closely enough for a call graph:
 * lexical scopes (function, enclosing functions, module; class bodies are
 * not visible from methods), imports, `self`/`this` through the class and
 * its bases, `super`, instance types from constructors and annotations,
 * module attributes, re-exports. The functions here call one another
 * (an import leads to a module's export, a member to its class's bases),
 * each bounded by MAX_DEPTH.
 */
#include "resolve_int.h"

#include <stdio.h>
#include <string.h>

static ent member(ctx *c, ent e, const char *name, size_t len);

ent graph__rs_resolve_import(ctx *c, uint32_t num, const char *want, size_t wlen)
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
        const char *abs = graph__rs_py_abs_module(r, fi, im->module, buf, sizeof buf);
        if (!abs)
            goto done;
        if (im->kind == GX_IMP_MODULE) {
            if (im->alias)
                out = graph__rs_modpath_or_module(c, abs, strlen(abs));
            else
                out = graph__rs_modpath_or_module(c, abs, strcspn(abs, "."));
        } else if (im->kind == GX_IMP_NAME) {
            uint32_t m = graph__rs_find_module(r, abs, strlen(abs));
            if (m != GRAPH_NONE) {
                out = member(c, mk(E_SYM, m), im->name, strlen(im->name));
                if (out.k == E_NONE)
                    out = mk(E_EXT, 0);
            } else {
                char full[2048];
                int n = snprintf(full, sizeof full, "%s.%s", abs, im->name);
                if (n > 0 && (size_t)n < sizeof full)
                    out = graph__rs_modpath_or_module(c, full, (size_t)n);
            }
        } else if (im->kind == GX_IMP_STAR && want) {
            uint32_t m = graph__rs_find_module(r, abs, strlen(abs));
            out = m != GRAPH_NONE ? member(c, mk(E_SYM, m), want, wlen) : NONE_ENT;
        }
    } else {
        uint32_t tf = graph__rs_resolve_spec(r, fi, im->module);
        if (tf == UINT32_MAX || !r->idx->files.v[tf].x)
            goto done;
        uint32_t m = r->idx->files.v[tf].module_sym;
        if (im->kind == GX_IMP_MODULE)
            out = mk(E_SYM, m);
        else if (im->kind == GX_IMP_NAME)
            out = graph__rs_export_lookup(c, m, im->name, strlen(im->name));
    }
done:
    c->depth--;
    return out;
}

/* What calling a function gives, from its return annotation; or, for a
 * JavaScript function that returns an object of methods (a factory,
 * `createLogger(ns)` returning `{ info: ..., debug: ... }`), that object,
 * as `new` would make it of a constructor function. */
static ent returned(ctx *c, uint32_t fn)
{
    rs *r = c->r;
    const rsym *s = &r->sy[fn];
    if (s->local < 0 || c->depth > MAX_DEPTH)
        return NONE_ENT;
    const gx_sym *x = &xfile(r, s->file)->syms.v[s->local];
    if (!x->ret && x->ret_call) {
        /* `child: (sub) => createLogger(...)`: what that call gives. */
        int fail;
        c->depth++;
        ent t = graph__rs_resolve_path(c, fn, x->ret_call, strlen(x->ret_call), &fail);
        ent out =
            t.k == E_SYM && t.id != fn &&
                    (r->sy[t.id].kind == GRAPH_SYM_FUNCTION || r->sy[t.id].kind == GRAPH_SYM_METHOD)
                ? returned(c, t.id)
                : NONE_ENT;
        c->depth--;
        return out;
    }
    if (!x->ret)
        return s->kind == GRAPH_SYM_FUNCTION && r->classlike[fn] && !is_python(r, s->file)
                   ? mk(E_INST, fn)
                   : NONE_ENT;
    int fail;
    c->depth++;
    /* The annotation is written in the function's scope. */
    ent t = graph__rs_resolve_path(c, fn, x->ret, strlen(x->ret), &fail);
    c->depth--;
    if (t.k == E_SYM && is_typeish(r, t.id))
        return mk(E_INST, t.id);
    return t.k == E_EXT ? t : NONE_ENT;
}

/* In r->ptype: the parameter holds the class itself, not an instance. */
#define PTYPE_CLASS 0x80000000u

/* An untyped parameter's class, as its callers type it (see
 * graph__rs_build_passes); or the class it holds. */
static ent param_type(ctx *c, uint32_t num)
{
    const uint32_t *t = c->r->ptype;
    if (!t || t[num] == GRAPH_NONE)
        return NONE_ENT;
    return t[num] & PTYPE_CLASS ? mk(E_SYM, t[num] & ~PTYPE_CLASS) : mk(E_INST, t[num]);
}

static ent resolve_bind(ctx *c, uint32_t num)
{
    rs *r = c->r;
    const gx_bind *b = r->bind[num].b;
    if (!b->value && b->param)
        return param_type(c, num);
    if (!b->value || c->depth > MAX_DEPTH)
        return NONE_ENT;
    /* Binds are resolved in the scope that made them. */
    uint32_t s = sym_of(r, r->bind[num].file, b->scope);
    c->depth++;
    int fail;
    ent v = graph__rs_resolve_path(c, s, b->value, strlen(b->value), &fail);
    c->depth--;
    switch (b->kind) {
    case GX_BIND_NEW:
    case GX_BIND_TYPE:
    case GX_BIND_CALL:
        /* `const Commands = require('./commands')`, whose module exports
         * a class (`module.exports = FtpCommands`): `new Commands()` makes
         * one of those, as calling the module calls it (call_edges). */
        if (v.k == E_SYM && r->sy[v.id].kind == GRAPH_SYM_MODULE &&
            !is_python(r, r->sy[v.id].file)) {
            c->depth++;
            ent d = graph__rs_export_lookup(c, v.id, "default", 7);
            c->depth--;
            if (d.k == E_SYM)
                v = d;
        }
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

/* Up to cap classes that the bindings of (scope, name) in km make an
 * instance of (`x = C()`, `new C()`, `x: C`, a call returning one), each
 * once, the latest binding's first; the bindings past the cap-th class
 * are not resolved. */
static uint32_t bound_classes(ctx *c, const keymap *km, uint32_t scope, const char *name,
                              size_t len, uint32_t *cls, uint32_t cap)
{
    uint32_t n = 0, typed = 0, it;
    /* Most names have one binding: resolving is done only for several. */
    for (uint32_t b = km_get(km, scope, name, len, &it); b != UINT32_MAX && typed < 2;
         b = km_next(km, scope, name, len, &it)) {
        uint8_t k = c->r->bind[b].b->kind;
        typed += k == GX_BIND_NEW || k == GX_BIND_TYPE || k == GX_BIND_CALL;
    }
    if (typed < 2 || c->depth > MAX_DEPTH)
        return 0;
    c->depth++;
    for (uint32_t b = km_get(km, scope, name, len, &it); b != UINT32_MAX && n < cap;
         b = km_next(km, scope, name, len, &it)) {
        uint8_t k = c->r->bind[b].b->kind;
        if (k != GX_BIND_NEW && k != GX_BIND_TYPE && k != GX_BIND_CALL)
            continue;
        ent v = resolve_bind(c, b);
        bool dup = v.k != E_INST;
        for (uint32_t i = 0; i < n && !dup; i++)
            dup = cls[i] == v.id;
        if (!dup)
            cls[n++] = v.id;
    }
    c->depth--;
    return n;
}

/* v, the instance a name of scope in km was resolved to, marked as one
 * of several when its bindings make instances of several classes. */
static ent mark_poly(ctx *c, ent v, uint8_t which, uint32_t scope, const char *name, size_t len)
{
    uint32_t cls[2];
    if (v.k != E_INST || bound_classes(c, which == POLY_ATTR ? &c->r->attrs : &c->r->binds, scope,
                                       name, len, cls, 2) < 2)
        return v;
    v.poly = which;
    v.poly_scope = scope;
    v.mp = name;
    v.mplen = (uint32_t)len;
    return v;
}

uint32_t graph__rs_poly_classes(ctx *c, ent e, uint32_t *cls, uint32_t cap)
{
    if (e.poly == POLY_NONE)
        return 0;
    return bound_classes(c, e.poly == POLY_ATTR ? &c->r->attrs : &c->r->binds, e.poly_scope, e.mp,
                         e.mplen, cls, cap);
}

static ent star_export(ctx *c, uint32_t m, const char *name, size_t len);

/* A module's exported name (TS/JS), or its top-level name. */
ent graph__rs_export_lookup(ctx *c, uint32_t m, const char *name, size_t len)
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
            out = graph__rs_resolve_path(c, m, e->local, strlen(e->local), &fail);
        } else if ((e->kind == GX_EXP_FROM || e->kind == GX_EXP_NS) && e->module) {
            uint32_t tf = graph__rs_resolve_spec(r, fi, e->module);
            if (tf != UINT32_MAX && r->idx->files.v[tf].x) {
                uint32_t tm = r->idx->files.v[tf].module_sym;
                if (e->kind == GX_EXP_NS)
                    out = mk(E_SYM, tm);
                else
                    out = graph__rs_export_lookup(c, tm, e->local ? e->local : name,
                                                  e->local ? strlen(e->local) : len);
            } else {
                out = mk(E_EXT, 0);
            }
        }
        if (out.k != E_NONE)
            goto done;
    }
    out = member(c, mk(E_SYM, m), name, len);
    if (out.k == E_NONE)
        out = star_export(c, m, name, len);
done:
    c->depth--;
    return out;
}

/* A name module m re-exports with `export * from` (TS/JS). */
static ent star_export(ctx *c, uint32_t m, const char *name, size_t len)
{
    rs *r = c->r;
    for (uint32_t k = r->star_first[m]; k < r->star_first[m + 1]; k++) {
        uint32_t num = r->star[k];
        if (!(num & 0x80000000u))
            continue;
        num &= 0x7fffffffu;
        uint32_t tf = graph__rs_resolve_spec(r, r->exp[num].file, r->exp[num].e->module);
        if (tf == UINT32_MAX || !r->idx->files.v[tf].x)
            continue;
        ent out = graph__rs_export_lookup(c, r->idx->files.v[tf].module_sym, name, len);
        if (out.k == E_SYM || out.k == E_INST || out.k == E_CONST)
            return out;
    }
    return NONE_ENT;
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
            return mark_poly(c, resolve_bind(c, best), POLY_BIND, s, name, len);
        }
    }
    if ((v = km_first(&r->children, s, name, len)) != UINT32_MAX)
        return mk(E_SYM, v);
    if ((v = km_first(&r->imports, s, name, len)) != UINT32_MAX)
        return graph__rs_resolve_import(c, v, NULL, 0);
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
            ent e = graph__rs_resolve_import(c, imp, name, len);
            if (e.k != E_NONE && e.k != E_EXT)
                return e;
        }
    }
    if (km_first(&r->containers, s, name, len) != UINT32_MAX) {
        ent e = {E_CONT, POLY_NONE, s, name, (uint32_t)len, 0};
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
    if (graph__rs_is_builtin(is_python(r, graph__rs_file_of(r, scope)), name, len))
        return mk(E_EXT, 0);
    return NONE_ENT;
}

/* Is the name a variable (a binding, not a definition) in some scope
 * around `scope`? Calling such a name is not a call to our code by that
 * name. */
bool graph__rs_is_variable(const rs *r, uint32_t scope, const char *name, size_t len)
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
ent graph__rs_class_member(ctx *c, uint32_t cls, const char *name, size_t len, bool inst, int skip)
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
            return mark_poly(c, resolve_bind(c, v), POLY_ATTR, k, name, len);
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
            if (out.k == E_NONE && !is_python(r, graph__rs_file_of(r, e.id))) {
                uint32_t it;
                if (km_get(&r->exports, e.id, name, len, &it) != UINT32_MAX)
                    out = graph__rs_export_lookup(c, e.id, name, len);
                else
                    out = star_export(c, e.id, name, len);
            }
            if (out.k == E_NONE && is_python(r, graph__rs_file_of(r, e.id))) {
                const char *mn = r->idx->files.v[graph__rs_file_of(r, e.id)].modname;
                char buf[2048];
                int n = snprintf(buf, sizeof buf, "%s.%.*s", mn, (int)len, name);
                if (n > 0 && (size_t)n < sizeof buf) {
                    ent sub = graph__rs_modpath_or_module(c, buf, (size_t)n);
                    if (sub.k != E_EXT)
                        out = sub;
                }
            }
            c->depth--;
            return out;
        }
        if (is_class(r, e.id) || k == GRAPH_SYM_ENUM) {
            c->depth++;
            ent out = graph__rs_class_member(c, e.id, name, len, false, 0);
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
        ent out = graph__rs_class_member(c, e.id, name, len, true, 0);
        c->depth--;
        if (e.poly != POLY_NONE && out.k == E_SYM && out.poly == POLY_NONE) {
            /* A method of one of several classes: the call may reach the
             * others' (call edges). */
            out.poly = e.poly;
            out.poly_scope = e.poly_scope;
            out.mp = e.mp;
            out.mplen = e.mplen;
        }
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
        return graph__rs_modpath_or_module(c, buf, (size_t)n);
    }
    case E_EXT:
        return e;
    default:
        return NONE_ENT;
    }
}

/* `NAME[key]` or `NAME.key` where NAME is imported by name from a module
 * of ours (`from .codes import ERRORS`, `const { MESSAGES } =
 * require('./messages')`): the constant recorded there as `NAME[key]` or
 * `NAME.key`, under the name it has there. name[0, base) is NAME, the
 * rest the one entry. */
static ent imported_entry(ctx *c, uint32_t scope, const char *name, size_t base, size_t len)
{
    rs *r = c->r;
    for (uint32_t s = scope; base && s != GRAPH_NONE; s = r->sy[s].parent) {
        uint32_t v = km_first(&r->imports, s, name, base);
        if (v == UINT32_MAX)
            continue;
        uint32_t fi = r->imp[v].file, m = GRAPH_NONE;
        const gx_import *im = r->imp[v].m;
        if (im->kind != GX_IMP_NAME || !im->name)
            return NONE_ENT;
        char buf[1024], key[512];
        if (is_python(r, fi)) {
            const char *abs = graph__rs_py_abs_module(r, fi, im->module, buf, sizeof buf);
            m = abs ? graph__rs_find_module(r, abs, strlen(abs)) : GRAPH_NONE;
        } else {
            uint32_t tf = graph__rs_resolve_spec(r, fi, im->module);
            if (tf != UINT32_MAX && r->idx->files.v[tf].x)
                m = r->idx->files.v[tf].module_sym;
        }
        int kn = snprintf(key, sizeof key, "%s%.*s", im->name, (int)(len - base), name + base);
        if (m == GRAPH_NONE || kn <= 0 || (size_t)kn >= sizeof key)
            return NONE_ENT;
        uint32_t k = km_first(&r->consts, m, key, (size_t)kn);
        return k == UINT32_MAX ? NONE_ENT : mk(E_CONST, k);
    }
    return NONE_ENT;
}

/*
 * Resolves a reference path from a scope. *fail_at is the number of
 * components resolved before the result became unknown (so a caller can
 * tell "unknown receiver" from "unknown name").
 */
ent graph__rs_resolve_path(ctx *c, uint32_t scope, const char *path, size_t len, int *fail_at)
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
        const char *br = memchr(p, '[', n);
        if (e.k == E_NONE && br)
            e = imported_entry(c, scope, p, (size_t)(br - p), n);
        c->depth--;
        /* An entry of a table imported by name, which the module that
         * exports it keeps as constants (`MESSAGES.notFound`). */
        if ((e.k == E_NONE || e.k == E_EXT) && dot && !br &&
            !memchr(dot + 1, '.', (size_t)(end - dot - 1))) {
            ent t = imported_entry(c, scope, p, n, (size_t)(end - p));
            if (t.k == E_CONST) {
                *fail_at = 2;
                return t;
            }
        }
    }
    int step = 1;
    while (dot && e.k != E_NONE && e.k != E_EXT) {
        p = dot + 1;
        dot = memchr(p, '.', (size_t)(end - p));
        n = dot ? (size_t)(dot - p) : (size_t)(end - p);
        /* An enum member's `.value` is the constant it was given
         * (`Msg.CHARGED.value`). */
        if (e.k == E_CONST && !dot && n == 5 && memcmp(p, "value", 5) == 0)
            break;
        if (super) {
            c->depth++;
            e = graph__rs_class_member(c, e.id, p, n, true, 1);
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

/* Callers consulted per parameter; rounds of typing, each reaching one
 * parameter further along a chain (`f(x) { g(x) }`). */
enum { PARAM_CALLERS_MAX = 64, PARAM_ROUNDS = 3 };

/* The class whose instance every call passing parameter `num` something
 * known passes, or GRAPH_NONE (none known, or callers that disagree). */
static uint32_t typed_by_callers(ctx *c, uint32_t num)
{
    rs *r = c->r;
    const gx_bind *b = r->bind[num].b;
    uint32_t f = sym_of(r, r->bind[num].file, b->scope), it, seen = 0, out = GRAPH_NONE;
    for (uint32_t k = km_get(&r->passes, f, "", 0, &it);
         k != UINT32_MAX && seen < PARAM_CALLERS_MAX; k = km_next(&r->passes, f, "", 0, &it)) {
        const gx_pass *p = r->pass[k].p;
        if (p->pos + 1 != b->param)
            continue;
        seen++;
        int fail;
        c->depth = 0;
        ent v = graph__rs_resolve_path(c, sym_of(r, r->pass[k].file, p->from), p->value,
                                       strlen(p->value), &fail);
        /* A class handed over to be made later (`super(config,
         * MySqlConnection)` to `new connection(config)`) types it too. */
        uint32_t t = v.k == E_INST                                         ? v.id
                     : v.k == E_SYM && v.id < r->nsym && is_class(r, v.id) ? v.id | PTYPE_CLASS
                                                                           : GRAPH_NONE;
        if (t == GRAPH_NONE)
            continue;
        if (out == GRAPH_NONE)
            out = t;
        else if (out != t)
            return GRAPH_NONE;
    }
    return out;
}

/*
 * Untyped parameters, typed by their callers: the class whose instance
 * every call that passes one something known passes
 * (`connectHandler(this)` in a Redis method makes connectHandler's `self`
 * a Redis, and so `self.setStatus(...)` in the closure it returns a call
 * of Redis.setStatus; `Channel(self)` in a Transport types Channel's
 * `transport`, and `self.transport = transport` its attribute). First the
 * calls that pass name chains, by the function each calls (a class: its
 * constructor), resolved with no parameter typed, so that no callee
 * depends on the order of the files; then rounds of typing, each reading
 * the last round's types only. All of it before the references are
 * resolved in parallel, which then only read r->ptype.
 */
void graph__rs_build_passes(rs *r)
{
    size_t n = 0;
    for (size_t fi = 0; fi < r->idx->files.n; fi++)
        if (xfile(r, (uint32_t)fi))
            n += xfile(r, (uint32_t)fi)->passes.n;
    r->pass = core_xcalloc(n + 1, sizeof *r->pass);
    core_arena scratch;
    core_arena_init(&scratch, 0);
    ctx c = {r, 0, &scratch};
    uint32_t num = 0;
    for (size_t fi = 0; fi < r->idx->files.n; fi++) {
        const gx_file *x = xfile(r, (uint32_t)fi);
        if (!x)
            continue;
        bool py = is_python(r, (uint32_t)fi);
        for (size_t i = 0; i < x->passes.n; i++) {
            const gx_pass *p = &x->passes.v[i];
            int fail;
            c.depth = 0;
            ent e = graph__rs_resolve_path(&c, sym_of(r, (uint32_t)fi, p->from), p->callee,
                                           strlen(p->callee), &fail);
            if (e.k != E_SYM)
                continue;
            uint32_t f = e.id;
            if (is_class(r, f)) {
                const char *ctor = py ? "__init__" : "constructor";
                ent k = graph__rs_class_member(&c, f, ctor, strlen(ctor), true, 0);
                if (k.k != E_SYM)
                    continue;
                f = k.id;
            }
            uint8_t kind = r->sy[f].kind;
            if (kind != GRAPH_SYM_FUNCTION && kind != GRAPH_SYM_METHOD)
                continue;
            r->pass[num].file = (uint32_t)fi;
            r->pass[num].p = p;
            km_add(&r->passes, f, "", 0, num++);
        }
    }
    /* The parameters some call passes something to. */
    core_vec(uint32_t) params = {0};
    for (uint32_t b = 0; b < r->nbind; b++) {
        const gx_bind *d = r->bind[b].b;
        if (d->param && !d->value &&
            km_first(&r->passes, sym_of(r, r->bind[b].file, d->scope), "", 0) != UINT32_MAX)
            core_vec_push(&params, b);
    }
    uint32_t *cur = core_xmalloc((r->nbind + 1) * sizeof *cur);
    uint32_t *next = core_xmalloc((r->nbind + 1) * sizeof *next);
    for (size_t b = 0; b <= r->nbind; b++)
        cur[b] = next[b] = GRAPH_NONE;
    for (int round = 0; round < PARAM_ROUNDS && params.n; round++) {
        r->ptype = cur;
        bool changed = false;
        for (size_t i = 0; i < params.n; i++) {
            uint32_t b = params.v[i];
            next[b] = typed_by_callers(&c, b);
            changed |= next[b] != cur[b];
        }
        memcpy(cur, next, (r->nbind + 1) * sizeof *cur);
        if (!changed)
            break;
    }
    r->ptype = cur;
    free(next);
    core_vec_free(&params);
    core_arena_free(&scratch);
}
