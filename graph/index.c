/* graph_index(): discovery, parallel extraction (each file by its
 * language's extractor), resolution, writing. */
#include "graph_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_FILE (32u << 20)
/* A line this long is not written by hand (minified bundles, inline
 * data), and a file whose lines average this long over this size is
 * minified. */
#define GENERATED_LINE 20000
#define GENERATED_MEAN 300
#define GENERATED_MEAN_MIN_SIZE (16u << 10)

typedef struct {
    gb_index *idx;
    uint32_t *order; /* file indexes, largest first */
    atomic_uint next;
    atomic_ullong done;
    pthread_mutex_t mu; /* guards seen */
    core_map seen;      /* content hash -> file index + 1 */
} extract_job;

static bool is_min_name(const char *rel)
{
    static const char *const suffixes[] = {".min.js", ".min.mjs", ".min.cjs", "-min.js",
                                           ".bundle.min.js"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (core_str_ends_with(rel, suffixes[i]))
            return true;
    return false;
}

/* Lines, and whether the text looks minified or generated. Lines holding
 * only a source-map comment (often a long inline data: URL) do not count:
 * real code ends with them too. */
static bool scan_text(const char *s, size_t n, bool js, uint32_t *lines, size_t *longest,
                      bool *map_only)
{
    uint32_t count = 0;
    size_t max = 0, code_bytes = 0, code_lines = 0, maps = 0, blank = 0;
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - s) : n;
        size_t len = end - i;
        count++;
        bool map = len > 20 && (memcmp(s + i, "//# sourceMappingURL=", 21) == 0 ||
                                memcmp(s + i, "//@ sourceMappingURL=", 21) == 0);
        if (map) {
            maps++;
        } else {
            if (len > max)
                max = len;
            code_bytes += len;
            code_lines++;
            size_t k = 0;
            while (k < len && (s[i + k] == ' ' || s[i + k] == '\t' || s[i + k] == '\r'))
                k++;
            blank += k == len;
        }
        i = end + 1;
    }
    *lines = count;
    *longest = max;
    /* Nothing but a source-map pointer (and blank lines). */
    *map_only = js && maps > 0 && blank == code_lines;
    if (*map_only || max >= GENERATED_LINE)
        return true;
    /* Only JavaScript gets minified; Python data modules (tables of long
     * strings) are real modules. */
    return js && code_bytes >= GENERATED_MEAN_MIN_SIZE && code_lines &&
           code_bytes / code_lines >= GENERATED_MEAN;
}

void graph__extract(graph_lang lang, const char *src, size_t n, gx_file *f)
{
    if (lang == GRAPH_LANG_PYTHON)
        graph__extract_python(src, n, f);
    else
        graph__extract_ts(lang, src, n, f);
}

static void extract_one(extract_job *job, uint32_t i)
{
    gb_index *idx = job->idx;
    gb_file *f = &idx->files.v[i];
    const core_logger *lg = &idx->opts->log;
    bool gen_ok = idx->opts->include_generated;
    if (!gen_ok && f->lang == GRAPH_LANG_JAVASCRIPT && is_min_name(f->rel)) {
        f->status = GB_GENERATED;
        core_logf(lg, CORE_LOG_NOTE,
                  "%s: skipped: minified bundle (--include-generated to index it)", f->rel);
        return;
    }
    size_t max = idx->opts->max_file_bytes ? idx->opts->max_file_bytes : DEFAULT_MAX_FILE;
    char *src;
    size_t n;
    int err = core_read_file(f->abs, max, &src, &n);
    if (err == CORE_ELIMIT) {
        f->status = GB_TOO_LARGE;
        core_logf(lg, CORE_LOG_NOTE, "%s: skipped: larger than %zu bytes", f->rel, max);
        return;
    }
    if (err) {
        f->status = GB_UNREADABLE;
        core_logf(lg, CORE_LOG_WARN, "%s: cannot read: %s", f->rel, core_strerror(err));
        return;
    }
    f->bytes = n;
    if (memchr(src, 0, n < 8192 ? n : 8192)) {
        f->status = GB_BINARY;
        core_logf(lg, CORE_LOG_NOTE, "%s: skipped: binary content", f->rel);
        free(src);
        return;
    }
    if (f->role == GRAPH_ROLE_PRODUCT && graph__generated_header(src, n))
        f->role = GRAPH_ROLE_GENERATED;
    size_t longest;
    bool map_only;
    if (scan_text(src, n, f->lang == GRAPH_LANG_JAVASCRIPT, &f->lines, &longest, &map_only) &&
        !gen_ok) {
        f->status = GB_GENERATED;
        if (map_only)
            core_logf(lg, CORE_LOG_NOTE, "%s: skipped: only a source map reference", f->rel);
        else
            core_logf(lg, CORE_LOG_NOTE,
                      "%s: skipped: looks generated or minified (longest line %zu bytes; "
                      "--include-generated to index it)",
                      f->rel, longest);
        free(src);
        return;
    }
    /* Identical bytes in the same language give the same extraction: do
     * it once (vendored copies are common). Two independent 64-bit hashes
     * make a false match practically impossible. */
    uint64_t key =
        (core_hash64(src, n, 1) ^ (uint64_t)f->lang * 0x9e3779b97f4a7c15ull) & ~(uint64_t)0 >> 1;
    /* Written before the insertion below, so whoever finds this file in
     * the map (under the same mutex) sees it. */
    f->hash2 = core_hash64(src, n, 2);
    pthread_mutex_lock(&job->mu);
    bool ins;
    uint64_t *slot = core_map_put(&job->seen, key, &ins);
    if (ins)
        *slot = i + 1;
    uint32_t other = (uint32_t)(*slot - 1);
    pthread_mutex_unlock(&job->mu);
    if (!ins) {
        const gb_file *o = &idx->files.v[other];
        if (o->bytes == n && o->lang == f->lang && o->hash2 == f->hash2) {
            f->status = GB_DUPLICATE;
            f->dup_of = (int32_t)other;
            free(src);
            return;
        }
        /* Same first hash, different content: extract it on its own. */
    }
    gx_file *x = core_xmalloc(sizeof *x);
    graph__file_init(x);
    x->lines = f->lines;
    bool arena = graph__tsalloc_begin();
    graph__extract(f->lang, src, n, x);
    if (arena)
        graph__tsalloc_end();
    free(src);
    f->x = x;
    f->status = GB_OK;
    if (x->errors)
        core_logf(lg, CORE_LOG_NOTE, "%s:%u: syntax error%s (%u); kept what parsed", f->rel,
                  x->first_error_line, x->errors > 1 ? "s from here" : "", x->errors);
    if (x->too_deep)
        core_logf(lg, CORE_LOG_NOTE, "%s: nesting deeper than %d levels skipped in %u place%s",
                  f->rel, GX_MAX_DEPTH, x->too_deep, x->too_deep > 1 ? "s" : "");
}

static void extract_worker(void *arg, unsigned t)
{
    (void)t;
    extract_job *job = arg;
    gb_index *idx = job->idx;
    uint64_t total = idx->files.n;
    for (;;) {
        unsigned k = atomic_fetch_add(&job->next, 1);
        if (k >= total)
            break;
        extract_one(job, job->order[k]);
        uint64_t done = atomic_fetch_add(&job->done, 1) + 1;
        if (idx->opts->progress)
            idx->opts->progress(idx->opts->progress_ud, done, total);
    }
}

static const gb_file *sort_files;

static int cmp_size_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t sx = sort_files[x].bytes, sy = sort_files[y].bytes;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void free_index(gb_index *idx)
{
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        if (f->x && f->status == GB_OK) {
            graph__file_free(f->x);
            free(f->x);
        }
        f->x = NULL;
    }
    core_vec_free(&idx->files);
    core_vec_free(&idx->packages);
    core_vec_free(&idx->test_dirs);
    core_vec_free(&idx->browser_paths);
    core_vec_free(&idx->roots);
    core_arena_free(&idx->arena);
}

/* Extracts every file discovered, in parallel. */
static void extract_all(gb_index *idx)
{
    extract_job job;
    memset(&job, 0, sizeof job);
    job.idx = idx;
    /* Largest files first, so no thread is left alone with a big file at
     * the end. Which copy of duplicated content gets extracted then
     * depends on timing, but the extraction is the same either way. */
    job.order = core_xcalloc(idx->files.n + 1, sizeof *job.order);
    for (size_t i = 0; i < idx->files.n; i++)
        job.order[i] = (uint32_t)i;
    sort_files = idx->files.v;
    qsort(job.order, idx->files.n, sizeof *job.order, cmp_size_desc);
    atomic_init(&job.next, 0);
    atomic_init(&job.done, 0);
    pthread_mutex_init(&job.mu, NULL);
    const graph_index_opts *opts = idx->opts;
    unsigned threads = opts->threads ? opts->threads : core_ncpus();
    if (threads > 64)
        threads = 64;
    if (threads > idx->files.n)
        threads = idx->files.n ? (unsigned)idx->files.n : 1;
    int err = core_parallel(threads, extract_worker, &job);
    if (err)
        core_logf(&opts->log, CORE_LOG_WARN, "could start only some worker threads: %s",
                  core_strerror(err));
    pthread_mutex_destroy(&job.mu);
    core_map_free(&job.seen);
    free(job.order);
}

/*
 * Which copy of identical content a thread extracted first depends on
 * timing; the graph must not. The first file of each group in path order
 * becomes the original (owning the extraction), the others its
 * duplicates, which share the extraction.
 */
static void canonical_duplicates(gb_index *idx)
{
    uint32_t *canon = core_xcalloc(idx->files.n + 1, sizeof *canon);
    for (size_t i = 0; i < idx->files.n; i++)
        canon[i] = (uint32_t)i;
    /* canon[e], for each extracted file e: the first of its group. */
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        if (f->status == GB_DUPLICATE && i < canon[f->dup_of])
            canon[f->dup_of] = (uint32_t)i;
    }
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        uint32_t c = canon[i];
        if (f->status != GB_OK || c == i)
            continue;
        gb_file *o = &idx->files.v[c];
        o->status = GB_OK;
        o->x = f->x;
        o->dup_of = -1;
        f->status = GB_DUPLICATE;
        f->x = NULL;
        f->dup_of = (int32_t)c; /* canon[c] == c */
    }
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        if (f->status == GB_DUPLICATE)
            f->dup_of = (int32_t)canon[f->dup_of];
    }
    free(canon);
    for (size_t i = 0; i < idx->files.n; i++) {
        gb_file *f = &idx->files.v[i];
        if (f->status == GB_DUPLICATE)
            f->x = idx->files.v[f->dup_of].x;
    }
}

/* The files' part of the statistics: indexed, duplicate, skipped and why. */
static void count_files(gb_index *idx)
{
    graph_index_stats *st = &idx->st;
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        switch (f->status) {
        case GB_OK:
        case GB_DUPLICATE:
            st->files_indexed++;
            st->files_duplicate += f->status == GB_DUPLICATE;
            st->files_partial += f->x && f->x->errors > 0;
            st->bytes += f->bytes;
            st->lines += f->lines;
            break;
        case GB_GENERATED:
            st->files_generated++;
            break;
        case GB_BINARY:
            st->files_binary++;
            break;
        case GB_TOO_LARGE:
            st->files_too_large++;
            break;
        case GB_UNREADABLE:
            st->files_unreadable++;
            break;
        default:
            break;
        }
    }
}

int graph_index(const char *const *roots, size_t nroots, const char *out_path,
                const graph_index_opts *opts, graph_index_stats *stats)
{
    uint64_t t0 = core_now_ns();
    graph_index_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    if (nroots == 0)
        return CORE_EUSAGE;
    gb_index idx;
    memset(&idx, 0, sizeof idx);
    idx.opts = opts;
    core_arena_init(&idx.arena, 256 * 1024);
    graph__tsalloc_install();

    int err = graph__discover(&idx, roots, nroots);
    if (err) {
        free_index(&idx);
        return err;
    }
    uint64_t t1 = core_now_ns();
    extract_all(&idx);
    canonical_duplicates(&idx);
    count_files(&idx);

    graph_index_stats *st = &idx.st;
    uint64_t t2 = core_now_ns();
    gb_graph g;
    memset(&g, 0, sizeof g);
    core_strtab_init(&g.strs);
    graph__resolve(&idx, &g);
    graph__successors(&idx, &g);
    uint64_t t3 = core_now_ns();
    err = graph__write(&idx, &g, out_path);
    uint64_t t4 = core_now_ns();
    st->seconds_discover = (double)(t1 - t0) / 1e9;
    st->seconds_extract = (double)(t2 - t1) / 1e9;
    st->seconds_resolve = (double)(t3 - t2) / 1e9;
    st->seconds_write = (double)(t4 - t3) / 1e9;
    if (err)
        core_logf(&opts->log, CORE_LOG_ERROR, "cannot write %s: %s", out_path, core_strerror(err));
    st->symbols = g.syms.n;
    st->emits = g.emits.n;
    st->seconds = (double)(core_now_ns() - t0) / 1e9;
    if (stats)
        *stats = *st;
    core_strtab_free(&g.strs);
    core_vec_free(&g.syms);
    core_vec_free(&g.edges);
    core_vec_free(&g.emits);
    core_vec_free(&g.next);
    core_vec_free(&g.lits);
    free_index(&idx);
    return err;
}
