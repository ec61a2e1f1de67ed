/*
 * Resolution: module names, global symbol ids and qualified names, and
 * the lookup tables every later phase reads.
 */
#define _GNU_SOURCE /* memrchr */
#include "resolve_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void graph__rs_build_symbols(rs *r)
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

void graph__rs_build_tables(rs *r)
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
