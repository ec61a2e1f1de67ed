/* Finding the source files under the roots. */
#include "graph_int.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Directories skipped unless --no-default-excludes: version control,
 * dependencies, virtualenvs, caches and build output. */
static const char *const default_excludes[] = {
    ".git",          ".hg",           ".svn",        "node_modules", "bower_components",
    "__pycache__",   ".venv",         "venv",        ".tox",         ".nox",
    ".mypy_cache",   ".pytest_cache", ".ruff_cache", ".eggs",        "*.egg-info",
    ".next",         ".nuxt",         ".cache",      ".idea",        ".vscode",
    ".parcel-cache", ".turbo",        ".yarn",
};

static bool default_excluded(const char *name)
{
    for (size_t i = 0; i < sizeof default_excludes / sizeof default_excludes[0]; i++)
        if (core_glob_match(default_excludes[i], name))
            return true;
    return false;
}

/*
 * build/ and dist/ are output when they sit at a root or next to a project
 * manifest and are not Python packages themselves; pip's
 * _internal/operations/build/ is source.
 */
static bool output_dir(const char *abs, const char *name, const char *parent_abs, bool at_root)
{
    if (strcmp(name, "build") != 0 && strcmp(name, "dist") != 0)
        return false;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/__init__.py", abs);
    if (access(path, F_OK) == 0)
        return false;
    if (at_root)
        return true;
    static const char *const manifests[] = {"package.json", "setup.py", "setup.cfg",
                                            "pyproject.toml", "tsconfig.json"};
    for (size_t i = 0; i < sizeof manifests / sizeof manifests[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", parent_abs, manifests[i]);
        if (access(path, F_OK) == 0)
            return true;
    }
    return false;
}

static bool user_excluded(const gb_index *idx, const char *rel)
{
    for (size_t i = 0; i < idx->opts->nexcludes; i++)
        if (core_glob_match(idx->opts->excludes[i], rel))
            return true;
    return false;
}

static char *join(core_arena *a, const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *p = core_arena_alloc(a, dl + nl + 2);
    snprintf(p, dl + nl + 2, "%s%s%s", dir, dl && dir[dl - 1] != '/' ? "/" : "", name);
    return p;
}

/* A test folder a project file in dir declares (path relative to dir;
 * "./" and a trailing '/' dropped). */
static void add_test_dir(gb_index *idx, const char *dir, const char *s, size_t n)
{
    while (n >= 2 && s[0] == '.' && s[1] == '/')
        s += 2, n -= 2;
    while (n && s[n - 1] == '/')
        n--;
    if (n == 0 || (n == 1 && s[0] == '.') || memchr(s, '*', n))
        return; /* the whole project, or a glob: no folder of its own */
    size_t dl = strlen(dir);
    char *p = core_arena_alloc(&idx->arena, dl + n + 2);
    snprintf(p, dl + n + 2, "%s%s%.*s", dir, dl ? "/" : "", (int)n, s);
    core_vec_push(&idx->test_dirs, p);
}

/*
 * What a package builds for browsers (and React Native) rather than for
 * Node: the files its "browser" field puts in place of Node's (the
 * field's values; a string is the browser's main), and the targets of the
 * "browser" and "react-native" conditions of its "exports". A second
 * build of the same code (`browser/` beside the Node tree) logs the same
 * text at the same lines of its copies, and Node never loads it. A
 * browser entry's top folder is that build when the entry is the Node
 * entry's path below it ("browser/index.js" for "index.js": a copy of the
 * tree) and no Node entry ("main", the other conditions of "exports"'
 * ".") is in it; else the entry alone is, unless it is a Node entry too
 * (a browser's require may load the Node file).
 */
typedef struct build_targets {
    core_arena *a;
    /* A browser's entries, the files the "browser" field swaps in, and
     * Node's entries. */
    core_vec(char *) browser, swapped, node;
} build_targets;

/* A target's path inside its package, "./" dropped; NULL for what is no
 * file of the package (false, a bare module name, a pattern). */
static char *target_path(core_arena *a, const char *s, size_t n)
{
    if (n < 3 || s[0] != '.' || s[1] != '/' || memchr(s, '*', n))
        return NULL;
    return core_arena_strndup(a, s + 2, n - 2);
}

static bool browser_condition(const char *k)
{
    return strcmp(k, "browser") == 0 || strcmp(k, "react-native") == 0;
}

/* The "browser" field: a string is the browser's entry; an object's
 * values are files swapped in for the files its keys name, where Node's
 * may sit beside them. */
static void on_browser_field(void *ud, const char *const *keys, size_t nkeys, const char *s,
                             size_t n)
{
    (void)keys;
    build_targets *t = ud;
    char *p = target_path(t->a, s, n);
    if (p)
        core_vec_push(nkeys ? &t->swapped : &t->browser, p);
}

/* An export's target: a browser's under any subpath; Node's only as the
 * package's own entry ("."), since a subpath may be one a browser build
 * is offered under (`"./browser": "./browser/index.js"`). */
static void on_exports(void *ud, const char *const *keys, size_t nkeys, const char *s, size_t n)
{
    build_targets *t = ud;
    size_t c = nkeys && keys[0][0] == '.' ? 1 : 0; /* the conditions after a subpath */
    bool entry = c == 0 || strcmp(keys[0], ".") == 0, browser = false;
    for (size_t i = c; i < nkeys; i++) {
        if (strcmp(keys[i], "types") == 0)
            return; /* declarations, no code */
        browser |= browser_condition(keys[i]);
    }
    char *p = browser || entry ? target_path(t->a, s, n) : NULL;
    if (p)
        core_vec_push(browser ? &t->browser : &t->node, p);
}

/* Whether a Node target is folder dir (dl bytes, no '/'; "main": "lib")
 * or lies under it. */
static bool node_under(const build_targets *t, const char *dir, size_t dl)
{
    for (size_t i = 0; i < t->node.n; i++)
        if (strncmp(t->node.v[i], dir, dl) == 0 &&
            (t->node.v[i][dl] == '/' || t->node.v[i][dl] == '\0'))
            return true;
    return false;
}

static bool node_target(const build_targets *t, const char *p)
{
    for (size_t i = 0; i < t->node.n; i++)
        if (strcmp(t->node.v[i], p) == 0)
            return true;
    return false;
}

/* A browser entry's top folder, when the entry is a Node entry's path
 * below it and no Node entry is in it, is the browser's build; otherwise
 * only the entry is, and a swapped-in file only itself. */
static void add_browser_paths(gb_index *idx, const char *rel_dir, const build_targets *t)
{
    size_t rl = strlen(rel_dir);
    for (size_t i = 0; i < t->browser.n + t->swapped.n; i++) {
        bool entry = i < t->browser.n;
        const char *p = entry ? t->browser.v[i] : t->swapped.v[i - t->browser.n];
        const char *slash = strchr(p, '/');
        size_t dl = slash ? (size_t)(slash - p) : 0;
        bool dir = entry && slash && node_target(t, slash + 1) && !node_under(t, p, dl);
        if (!dir && node_target(t, p))
            continue;
        size_t pl = dir ? dl + 1 : strlen(p), cap = rl + pl + 2;
        char *out = core_arena_alloc(&idx->arena, cap);
        snprintf(out, cap, "%s%s%.*s", rel_dir, rl ? "/" : "", (int)pl, p);
        bool seen = false;
        for (size_t k = 0; k < idx->browser_paths.n && !seen; k++)
            seen = strcmp(idx->browser_paths.v[k], out) == 0;
        if (!seen)
            core_vec_push(&idx->browser_paths, out);
    }
}

static void read_package(gb_index *idx, const char *abs, const char *rel_dir)
{
    char *data;
    size_t n;
    if (core_read_file(abs, 4u << 20, &data, &n) != 0)
        return;
    /* npm's "directories": {"test": "..."}: a test folder the package
     * declares; "module" stands in for a missing "main". */
    static const char *const fields[] = {"name", "main", "module", "directories.test"};
    char *v[4];
    size_t len[4];
    int rc = core_json_strings(data, n, fields, 4, &idx->arena, v, len);
    if (rc != 0) {
        free(data);
        return;
    }
    build_targets t = {.a = &idx->arena};
    core_json_strings_under(data, n, "browser", on_browser_field, &t);
    core_json_strings_under(data, n, "exports", on_exports, &t);
    free(data);
    char *main_path = v[1] ? target_path(&idx->arena, v[1], len[1]) : NULL;
    if (v[1] && !main_path && v[1][0] != '.') /* "main": "lib/index.js" */
        main_path = v[1];
    if (main_path)
        core_vec_push(&t.node, main_path);
    add_browser_paths(idx, rel_dir, &t);
    core_vec_free(&t.browser);
    core_vec_free(&t.swapped);
    core_vec_free(&t.node);
    gb_package p = {core_arena_strndup(&idx->arena, rel_dir, strlen(rel_dir)), v[0],
                    v[1] ? v[1] : v[2]};
    if (v[3])
        add_test_dir(idx, rel_dir, v[3], len[3]);
    core_vec_push(&idx->packages, p);
}

/* pytest's testpaths in a project file: the folders it holds tests in. */
typedef struct testpaths_ctx {
    gb_index *idx;
    const char *dir;
} testpaths_ctx;

static void on_testpath(void *ud, const char *s, size_t n)
{
    testpaths_ctx *c = ud;
    add_test_dir(c->idx, c->dir, s, n);
}

static void read_testpaths(gb_index *idx, const char *abs, const char *rel_dir)
{
    char *data;
    size_t n;
    if (core_read_file(abs, 1u << 20, &data, &n) != 0)
        return;
    testpaths_ctx c = {idx, rel_dir};
    graph__testpaths(data, n, on_testpath, &c);
    free(data);
}

typedef struct {
    char *abs, *rel;
} walk_item;

/* Adds one file if it is a source file of a wanted language. */
static void consider_file(gb_index *idx, uint32_t root, const char *abs, const char *rel,
                          const char *name, const char *prefix)
{
    graph_lang lang;
    if (strcmp(name, "package.json") == 0) {
        size_t rl = strlen(rel) - strlen("package.json");
        char *dir = core_arena_strndup(&idx->arena, rel, rl ? rl - 1 : 0);
        read_package(idx, abs, prefix ? join(&idx->arena, prefix, dir) : dir);
        return;
    }
    if (strcmp(name, "pyproject.toml") == 0 || strcmp(name, "pytest.ini") == 0 ||
        strcmp(name, "setup.cfg") == 0 || strcmp(name, "tox.ini") == 0) {
        size_t rl = strlen(rel) - strlen(name);
        char *dir = core_arena_strndup(&idx->arena, rel, rl ? rl - 1 : 0);
        read_testpaths(idx, abs, prefix ? join(&idx->arena, prefix, dir) : dir);
        return;
    }
    if (!graph__lang_of_path(name, &lang))
        return;
    unsigned mask = idx->opts->langs ? idx->opts->langs : ~0u;
    if (!(mask & (1u << lang)))
        return;
    if (user_excluded(idx, rel))
        return;
    gb_file f = {0};
    struct stat st;
    /* The size orders the work (largest first balances the threads). */
    if (stat(abs, &st) == 0)
        f.bytes = (uint64_t)st.st_size;
    f.abs = core_arena_strndup(&idx->arena, abs, strlen(abs));
    f.rel =
        prefix ? join(&idx->arena, prefix, rel) : core_arena_strndup(&idx->arena, rel, strlen(rel));
    f.root = root;
    f.lang = lang;
    f.role = (uint8_t)graph__role_of_path(rel);
    f.dup_of = -1;
    core_vec_push(&idx->files, f);
}

static int walk_root(gb_index *idx, uint32_t root, const char *abs_root, const char *prefix)
{
    core_vec(walk_item) stack = {0};
    walk_item top = {core_arena_strndup(&idx->arena, abs_root, strlen(abs_root)), ""};
    core_vec_push(&stack, top);
    while (stack.n) {
        walk_item it = stack.v[--stack.n];
        DIR *d = opendir(it.abs);
        if (!d) {
            core_logf(&idx->opts->log, CORE_LOG_WARN, "cannot read directory %s: %s", it.abs,
                      strerror(errno));
            idx->st.files_unreadable++;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *name = e->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            char *abs = join(&idx->arena, it.abs, name);
            char *rel = join(&idx->arena, it.rel, name);
            unsigned char type = e->d_type;
            if (type == DT_UNKNOWN || type == DT_LNK) {
                struct stat st;
                /* A symlink counts as what it points to, except that
                 * linked directories are not followed (no loops). */
                if (type == DT_LNK) {
                    if (stat(abs, &st) != 0) {
                        graph_lang lang;
                        if (graph__lang_of_path(name, &lang)) {
                            core_logf(&idx->opts->log, CORE_LOG_NOTE,
                                      "%s%s%s: broken symbolic link, skipped", prefix ? prefix : "",
                                      prefix ? "/" : "", rel);
                        }
                        continue;
                    }
                    if (S_ISDIR(st.st_mode))
                        continue;
                } else if (lstat(abs, &st) != 0) {
                    continue;
                }
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
            }
            if (type == DT_DIR) {
                if (!idx->opts->no_default_excludes) {
                    if (default_excluded(name) || output_dir(abs, name, it.abs, it.rel[0] == 0))
                        continue;
                    /* A virtualenv under any name. */
                    char *cfg = join(&idx->arena, abs, "pyvenv.cfg");
                    if (access(cfg, F_OK) == 0)
                        continue;
                }
                if (user_excluded(idx, rel))
                    continue;
                walk_item sub = {abs, rel};
                core_vec_push(&stack, sub);
            } else if (type == DT_REG) {
                consider_file(idx, root, abs, rel, name, prefix);
            }
        }
        closedir(d);
    }
    core_vec_free(&stack);
    return 0;
}

/* The files under the test folders the projects declare are tests, unless
 * a folder of theirs already says otherwise (vendored code's tests). */
static void mark_test_dirs(gb_index *idx)
{
    for (size_t d = 0; d < idx->test_dirs.n; d++) {
        const char *dir = idx->test_dirs.v[d];
        size_t dl = strlen(dir);
        for (size_t i = 0; i < idx->files.n; i++) {
            gb_file *f = &idx->files.v[i];
            if (f->role == GRAPH_ROLE_PRODUCT && strncmp(f->rel, dir, dl) == 0 && f->rel[dl] == '/')
                f->role = GRAPH_ROLE_TEST;
        }
    }
}

/* The files packages build for browsers (read_package), unless a folder
 * of theirs already says what they are. */
static void mark_browser_paths(gb_index *idx)
{
    for (size_t d = 0; d < idx->browser_paths.n; d++) {
        const char *p = idx->browser_paths.v[d];
        size_t pl = strlen(p);
        bool dir = pl && p[pl - 1] == '/';
        for (size_t i = 0; i < idx->files.n; i++) {
            gb_file *f = &idx->files.v[i];
            if (f->role == GRAPH_ROLE_PRODUCT &&
                (dir ? strncmp(f->rel, p, pl) == 0 : strcmp(f->rel, p) == 0))
                f->role = GRAPH_ROLE_BROWSER;
        }
    }
}

static int cmp_files(const void *a, const void *b)
{
    return strcmp(((const gb_file *)a)->rel, ((const gb_file *)b)->rel);
}

/* Whether a file of idx (sorted by rel) has path p. */
static bool has_file(const gb_index *idx, const char *p)
{
    size_t lo = 0, hi = idx->files.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(idx->files.v[mid].rel, p);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/*
 * Declarations beside their code (`x.d.ts` next to the `x.js` a package
 * was compiled to) are left out: they describe the code that runs and run
 * nothing, and as module `x` too they would split its names between two
 * files, the calls resolving to the one without bodies. A `.d.ts` alone
 * (a package of types, ambient declarations) is kept. Counted in
 * st.files_declarations.
 */
static void drop_declarations(gb_index *idx)
{
    static const struct {
        const char *dts, *const code[4];
    } forms[] = {{".d.ts", {".js", ".ts", ".tsx", ".jsx"}},
                 {".d.mts", {".mjs", ".mts", NULL, NULL}},
                 {".d.cts", {".cjs", ".cts", NULL, NULL}}};
    char path[PATH_MAX];
    /* Told first, then dropped: the lookups want the whole sorted list. */
    bool *drop = core_xcalloc(idx->files.n + 1, sizeof *drop);
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        size_t n = strlen(f->rel);
        bool beside = false;
        for (size_t k = 0; k < sizeof forms / sizeof forms[0] && !beside; k++) {
            size_t dl = strlen(forms[k].dts);
            if (n <= dl || strcmp(f->rel + n - dl, forms[k].dts) != 0)
                continue;
            for (size_t c = 0; c < 4 && forms[k].code[c] && !beside; c++) {
                int w =
                    snprintf(path, sizeof path, "%.*s%s", (int)(n - dl), f->rel, forms[k].code[c]);
                beside = w > 0 && (size_t)w < sizeof path && has_file(idx, path);
            }
        }
        drop[i] = beside;
    }
    size_t keep = 0;
    for (size_t i = 0; i < idx->files.n; i++) {
        if (drop[i])
            idx->st.files_declarations++;
        else
            idx->files.v[keep++] = idx->files.v[i];
    }
    idx->files.n = keep;
    free(drop);
}

static int cmp_packages(const void *a, const void *b)
{
    return strcmp(((const gb_package *)a)->dir, ((const gb_package *)b)->dir);
}

int graph__discover(gb_index *idx, const char *const *roots, size_t nroots)
{
    for (size_t i = 0; i < nroots; i++) {
        char *abs = realpath(roots[i], NULL);
        if (!abs) {
            int err = -errno;
            core_logf(&idx->opts->log, CORE_LOG_ERROR, "%s: %s", roots[i], core_strerror(err));
            return err;
        }
        char *copy = core_arena_strndup(&idx->arena, abs, strlen(abs));
        free(abs);
        core_vec_push(&idx->roots, copy);
    }
    /* With several roots, paths start with the root's name, which must
     * then tell the roots apart. */
    const char **prefixes = core_xcalloc(nroots ? nroots : 1, sizeof *prefixes);
    if (nroots > 1) {
        for (size_t i = 0; i < nroots; i++) {
            const char *slash = strrchr(idx->roots.v[i], '/');
            prefixes[i] = slash && slash[1] ? slash + 1 : idx->roots.v[i];
            for (size_t j = 0; j < i; j++) {
                if (strcmp(prefixes[i], prefixes[j]) == 0) {
                    core_logf(&idx->opts->log, CORE_LOG_ERROR,
                              "roots %s and %s have the same name '%s'; file paths would clash",
                              roots[j], roots[i], prefixes[i]);
                    free(prefixes);
                    return CORE_EUSAGE;
                }
            }
        }
    }
    int err = 0;
    for (size_t i = 0; i < nroots && !err; i++) {
        const char *abs = idx->roots.v[i];
        struct stat st;
        if (stat(abs, &st) != 0) {
            err = -errno;
            core_logf(&idx->opts->log, CORE_LOG_ERROR, "%s: %s", roots[i], core_strerror(err));
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            err = walk_root(idx, (uint32_t)i, abs, prefixes[i]);
        } else if (S_ISREG(st.st_mode)) {
            /* A single file: its name is its path. */
            const char *slash = strrchr(abs, '/');
            const char *name = slash ? slash + 1 : abs;
            consider_file(idx, (uint32_t)i, abs, name, name, NULL);
        } else {
            err = -EINVAL;
            core_logf(&idx->opts->log, CORE_LOG_ERROR, "%s: not a directory or a regular file",
                      roots[i]);
        }
    }
    free(prefixes);
    if (err)
        return err;
    if (idx->files.n)
        qsort(idx->files.v, idx->files.n, sizeof idx->files.v[0], cmp_files);
    idx->st.files_seen = idx->files.n;
    drop_declarations(idx);
    mark_test_dirs(idx);
    mark_browser_paths(idx);
    if (idx->packages.n)
        qsort(idx->packages.v, idx->packages.n, sizeof idx->packages.v[0], cmp_packages);
    return 0;
}
