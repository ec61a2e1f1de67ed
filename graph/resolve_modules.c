/*
 * Resolution: the module an import names. Python absolute and relative
 * imports and package prefixes; TS/JS relative paths, index files,
 * node_modules and workspace packages.
 */
#define _GNU_SOURCE /* memrchr */
#include "resolve_int.h"

#include <stdio.h>
#include <string.h>

/* The file index of a module symbol's file. */
uint32_t graph__rs_file_of(const rs *r, uint32_t s)
{
    return r->sy[s].file;
}

/* Python: absolute module name of an import written in file fi. */
const char *graph__rs_py_abs_module(rs *r, uint32_t fi, const char *mod, char *buf, size_t cap)
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

uint32_t graph__rs_find_module(const rs *r, const char *name, size_t len)
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

ent graph__rs_modpath_or_module(ctx *c, const char *name, size_t len)
{
    uint32_t m = graph__rs_find_module(c->r, name, len);
    if (m != GRAPH_NONE)
        return mk(E_SYM, m);
    if (is_prefix(c->r, name, len)) {
        ent e = {E_MODPATH,     POLY_NONE, 0, core_arena_strndup(c->arena, name, len),
                 (uint32_t)len, 0};
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
    /* Code before declarations: what runs is what a call reaches. */
    static const char *const exts[] = {"",     ".ts",  ".tsx", ".js",  ".jsx",
                                       ".mjs", ".cjs", ".mts", ".cts", ".d.ts"};
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

/* A path inside a package, as its manifest or an importer names it. A built
 * package names its output ("build/src/index.js", "lib/util.js") while the
 * tree indexed holds the sources the output is compiled from: the same path
 * under the output folder ("src/index.ts"), or under src/ in its place
 * ("src/util.ts"). So when the path as written is absent, its leading
 * folders are dropped one at a time, each rest probed as is and under src/. */
static uint32_t probe_in_package(const rs *r, const char *pkgdir, const char *path)
{
    char joined[4096], norm[4096];
    const char *sep = *pkgdir ? "/" : "";
    for (const char *p = path; p; p = strchr(p, '/'), p = p ? p + 1 : NULL) {
        for (int under_src = 0; under_src < 2; under_src++) {
            if (p == path && under_src)
                continue;
            int n = snprintf(joined, sizeof joined, "%s%s%s%s", pkgdir, sep,
                             under_src ? "src/" : "", p);
            if (n < 0 || (size_t)n >= sizeof joined || !norm_path(joined, norm, sizeof norm))
                continue;
            uint32_t fi = probe_file(r, norm);
            if (fi != UINT32_MAX)
                return fi;
        }
    }
    return UINT32_MAX;
}

/* A package directory plus the rest of a bare specifier. */
static uint32_t probe_package(const rs *r, const char *pkgdir, const char *rest)
{
    if (rest && *rest)
        return probe_in_package(r, pkgdir, rest);
    const gb_package *p = package_at(r, pkgdir);
    if (p && p->main) {
        uint32_t fi = probe_in_package(r, pkgdir, p->main);
        if (fi != UINT32_MAX)
            return fi;
    }
    return probe_file(r, pkgdir);
}

uint32_t graph__rs_resolve_spec(const rs *r, uint32_t fi, const char *spec)
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
