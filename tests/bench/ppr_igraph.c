/*
 * ppr_igraph.c - igraph's personalized PageRank (PRPACK) on a text edge
 * list, timed per seed: the reference side of tests/bench/ppr_igraph.sh.
 * A benchmark-only program: it links igraph, not pmrag.
 *
 *   ppr_igraph --check
 *       Which dangling-node rule the installed igraph applies in
 *       personalized PageRank: on a 4-node graph with a dangling node,
 *       compares igraph's vector with a power iteration where a dangling
 *       node jumps to the reset (seed) distribution (pmrag's rule) and
 *       with one where it jumps uniformly. Prints one JSON line; exit 0
 *       when igraph follows the seed rule.
 *
 *   ppr_igraph --pick-seeds N RNGSEED EDGES
 *       N distinct nodes with out-edges, drawn uniformly (deterministic),
 *       one per line.
 *
 *   ppr_igraph EDGES ALPHA SEEDS [TOPK]
 *       For each node in the file SEEDS: igraph_personalized_pagerank
 *       (PRPACK, directed, damping 1 - ALPHA, edge weights from the 4th
 *       column, reset vector = the seed), timed with a monotonic clock.
 *       One JSON line per seed: {"seed","us","sum","top":[[node,score]...]}
 *       with the TOPK (default 20) highest scores, the seed left out.
 *       Then one line {"summary":...} with the graph's size, the load
 *       time and, for the first seed, the L1 distance between igraph's
 *       vector and an independent power iteration (seed rule for dangling
 *       nodes) and the share of that vector on dangling nodes.
 *
 * Edge list: `src dst type weight` per line, '#' comments, nodes 0..n-1
 * with n one more than the largest id: the format of `pmrag ppr --edges`.
 * Parallel edges add up (PRPACK sums them when normalising), as in pmrag.
 */
#define _POSIX_C_SOURCE 200809L
#include <igraph.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ppr_igraph: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ------------------------------------------------------------------ */
/* Edge lists                                                          */
/* ------------------------------------------------------------------ */

typedef struct edges {
    int64_t n; /* nodes */
    int64_t m;
    int64_t *src, *dst;
    double *w;
} edges;

static void load_edges(const char *path, edges *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open %s", path);
    int64_t cap = 1 << 20;
    memset(e, 0, sizeof *e);
    e->src = malloc((size_t)cap * sizeof *e->src);
    e->dst = malloc((size_t)cap * sizeof *e->dst);
    e->w = malloc((size_t)cap * sizeof *e->w);
    if (!e->src || !e->dst || !e->w)
        die("%s: out of memory", path);
    char *line = NULL;
    size_t len = 0;
    int64_t lineno = 0, maxid = -1;
    while (getline(&line, &len, f) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
            continue;
        char type[64];
        long long s, d;
        double w;
        if (sscanf(p, "%lld %lld %63s %lf", &s, &d, type, &w) != 4 || s < 0 || d < 0 || !(w >= 0) ||
            !isfinite(w)) {
            fprintf(stderr, "ppr_igraph: %s:%" PRId64 ": bad edge line\n", path, lineno);
            exit(2);
        }
        if (e->m == cap) {
            cap *= 2;
            e->src = realloc(e->src, (size_t)cap * sizeof *e->src);
            e->dst = realloc(e->dst, (size_t)cap * sizeof *e->dst);
            e->w = realloc(e->w, (size_t)cap * sizeof *e->w);
            if (!e->src || !e->dst || !e->w)
                die("%s: out of memory", path);
        }
        e->src[e->m] = s;
        e->dst[e->m] = d;
        e->w[e->m] = w;
        e->m++;
        if (s > maxid)
            maxid = s;
        if (d > maxid)
            maxid = d;
    }
    free(line);
    fclose(f);
    e->n = maxid + 1;
}

static void free_edges(edges *e)
{
    free(e->src);
    free(e->dst);
    free(e->w);
}

/* ------------------------------------------------------------------ */
/* An independent reference: power iteration on a CSR                  */
/* ------------------------------------------------------------------ */

typedef struct csr {
    int64_t n;
    int64_t *off; /* n + 1 */
    int64_t *to;
    double *p; /* transition probabilities */
} csr;

static void build_csr(const edges *e, csr *c)
{
    c->n = e->n;
    c->off = calloc((size_t)e->n + 1, sizeof *c->off);
    c->to = malloc((size_t)(e->m ? e->m : 1) * sizeof *c->to);
    c->p = malloc((size_t)(e->m ? e->m : 1) * sizeof *c->p);
    double *wsum = calloc((size_t)e->n + 1, sizeof *wsum);
    int64_t *fill = calloc((size_t)e->n + 1, sizeof *fill);
    if (!c->off || !c->to || !c->p || !wsum || !fill)
        die("out of memory");
    for (int64_t i = 0; i < e->m; i++) {
        c->off[e->src[i] + 1]++;
        wsum[e->src[i]] += e->w[i];
    }
    for (int64_t u = 0; u < e->n; u++)
        c->off[u + 1] += c->off[u];
    for (int64_t i = 0; i < e->m; i++) {
        int64_t u = e->src[i], k = c->off[u] + fill[u]++;
        c->to[k] = e->dst[i];
        c->p[k] = wsum[u] > 0 ? e->w[i] / wsum[u] : 0;
    }
    free(wsum);
    free(fill);
}

static void free_csr(csr *c)
{
    free(c->off);
    free(c->to);
    free(c->p);
}

static bool is_dangling(const csr *c, int64_t u)
{
    for (int64_t k = c->off[u]; k < c->off[u + 1]; k++)
        if (c->p[k] > 0)
            return false;
    return true;
}

/* PPR with restart probability alpha at seed; a dangling node jumps to
 * the seed (uniform_dangling false) or to a uniform node. Iterates until
 * the L1 change is below 1e-13. */
static void reference_ppr(const csr *c, int64_t seed, double alpha, bool uniform_dangling,
                          double *x)
{
    int64_t n = c->n;
    double *y = malloc((size_t)n * sizeof *y);
    if (!y)
        die("out of memory");
    for (int64_t u = 0; u < n; u++)
        x[u] = u == seed ? 1.0 : 0.0;
    for (int iter = 0; iter < 100000; iter++) {
        double dangling = 0;
        memset(y, 0, (size_t)n * sizeof *y);
        for (int64_t u = 0; u < n; u++) {
            if (x[u] == 0)
                continue;
            if (is_dangling(c, u)) {
                dangling += x[u];
                continue;
            }
            for (int64_t k = c->off[u]; k < c->off[u + 1]; k++)
                y[c->to[k]] += (1 - alpha) * x[u] * c->p[k];
        }
        y[seed] += alpha;
        if (uniform_dangling) {
            for (int64_t u = 0; u < n; u++)
                y[u] += (1 - alpha) * dangling / (double)n;
        } else {
            y[seed] += (1 - alpha) * dangling;
        }
        double change = 0;
        for (int64_t u = 0; u < n; u++) {
            change += fabs(y[u] - x[u]);
            x[u] = y[u];
        }
        if (change < 1e-13)
            break;
    }
    free(y);
}

/* ------------------------------------------------------------------ */
/* igraph                                                              */
/* ------------------------------------------------------------------ */

static void to_igraph(const edges *e, igraph_t *g, igraph_vector_t *w)
{
    igraph_vector_int_t ev;
    if (igraph_vector_int_init(&ev, 2 * (igraph_integer_t)e->m) != IGRAPH_SUCCESS ||
        igraph_vector_init(w, (igraph_integer_t)e->m) != IGRAPH_SUCCESS)
        die("out of memory");
    for (int64_t i = 0; i < e->m; i++) {
        VECTOR(ev)[2 * i] = e->src[i];
        VECTOR(ev)[2 * i + 1] = e->dst[i];
        VECTOR(*w)[i] = e->w[i];
    }
    if (igraph_create(g, &ev, (igraph_integer_t)e->n, IGRAPH_DIRECTED) != IGRAPH_SUCCESS)
        die("igraph_create failed");
    igraph_vector_int_destroy(&ev);
}

/* Personalized PageRank from one seed into vec; returns microseconds. */
static double igraph_ppr(const igraph_t *g, const igraph_vector_t *w, igraph_vector_t *reset,
                         int64_t seed, double alpha, igraph_vector_t *vec)
{
    igraph_vector_null(reset);
    VECTOR(*reset)[seed] = 1.0;
    double t0 = now_us();
    igraph_error_t rc =
        igraph_personalized_pagerank(g, IGRAPH_PAGERANK_ALGO_PRPACK, vec, NULL, igraph_vss_all(),
                                     IGRAPH_DIRECTED, 1.0 - alpha, reset, w, NULL);
    double t1 = now_us();
    if (rc != IGRAPH_SUCCESS)
        die("igraph_personalized_pagerank failed");
    return t1 - t0;
}

static int check_dangling(void)
{
    /* 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 0, 2 -> 3 (weight 3); 3 dangling. */
    edges e = {0};
    int64_t src[] = {0, 0, 1, 2, 2}, dst[] = {1, 2, 3, 0, 3};
    double w[] = {1, 1, 1, 1, 3};
    e.n = 4;
    e.m = 5;
    e.src = src;
    e.dst = dst;
    e.w = w;
    csr c;
    build_csr(&e, &c);
    igraph_t g;
    igraph_vector_t gw, reset, vec;
    to_igraph(&e, &g, &gw);
    igraph_vector_init(&reset, 4);
    igraph_vector_init(&vec, 0);
    double alpha = 0.15, seed_rule[4], uniform_rule[4];
    igraph_ppr(&g, &gw, &reset, 0, alpha, &vec);
    reference_ppr(&c, 0, alpha, false, seed_rule);
    reference_ppr(&c, 0, alpha, true, uniform_rule);
    double d_seed = 0, d_uniform = 0;
    for (int u = 0; u < 4; u++) {
        d_seed += fabs(VECTOR(vec)[u] - seed_rule[u]);
        d_uniform += fabs(VECTOR(vec)[u] - uniform_rule[u]);
    }
    const char *rule = d_seed < 1e-9 ? "seed" : d_uniform < 1e-9 ? "uniform" : "other";
    printf("{\"igraph\":\"%s\",\"dangling_rule\":\"%s\",\"l1_to_seed_rule\":%.3g,"
           "\"l1_to_uniform_rule\":%.3g}\n",
           IGRAPH_VERSION, rule, d_seed, d_uniform);
    igraph_vector_destroy(&vec);
    igraph_vector_destroy(&reset);
    igraph_vector_destroy(&gw);
    igraph_destroy(&g);
    free_csr(&c);
    return strcmp(rule, "seed") == 0 ? 0 : 1;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick_seeds(long count, uint64_t rng, const char *path)
{
    edges e;
    load_edges(path, &e);
    char *has_out = calloc((size_t)e.n + 1, 1);
    if (!has_out)
        die("out of memory");
    int64_t candidates = 0;
    for (int64_t i = 0; i < e.m; i++) {
        if (e.w[i] > 0 && !has_out[e.src[i]]) {
            has_out[e.src[i]] = 1;
            candidates++;
        }
    }
    if (count > candidates)
        count = (long)candidates;
    for (long k = 0; k < count;) {
        int64_t u = (int64_t)(splitmix64(&rng) % (uint64_t)e.n);
        if (has_out[u] != 1)
            continue;
        has_out[u] = 2;
        printf("%" PRId64 "\n", u);
        k++;
    }
    free(has_out);
    free_edges(&e);
    return 0;
}

typedef struct scored {
    int64_t node;
    double score;
} scored;

static int run(const char *path, double alpha, const char *seeds_path, int topk)
{
    double t0 = now_us();
    edges e;
    load_edges(path, &e);
    igraph_t g;
    igraph_vector_t w, reset, vec;
    to_igraph(&e, &g, &w);
    double load_ms = (now_us() - t0) / 1e3;
    igraph_vector_init(&reset, (igraph_integer_t)e.n);
    igraph_vector_init(&vec, 0);
    FILE *sf = fopen(seeds_path, "r");
    if (!sf)
        die("cannot open %s", seeds_path);
    scored *top = malloc((size_t)(topk + 1) * sizeof *top);
    long long seed;
    int64_t first_seed = -1, nseeds = 0;
    double ref_l1 = -1, dangling_share = -1;
    while (fscanf(sf, "%lld", &seed) == 1) {
        if (seed < 0 || seed >= e.n)
            die("seed out of range in %s", seeds_path);
        double us = igraph_ppr(&g, &w, &reset, seed, alpha, &vec);
        /* Top-k but the seed, by insertion (k is small). */
        int nt = 0;
        double sum = 0;
        for (int64_t u = 0; u < e.n; u++) {
            double s = VECTOR(vec)[u];
            sum += s;
            if (u == seed || (nt == topk && s <= top[nt - 1].score))
                continue;
            int i = nt < topk ? nt++ : topk - 1;
            while (i > 0 && top[i - 1].score < s) {
                top[i] = top[i - 1];
                i--;
            }
            top[i] = (scored){u, s};
        }
        printf("{\"seed\":%lld,\"us\":%.1f,\"sum\":%.12g,\"top\":[", seed, us, sum);
        for (int i = 0; i < nt; i++)
            printf("%s[%" PRId64 ",%.12g]", i ? "," : "", top[i].node, top[i].score);
        printf("]}\n");
        fflush(stdout);
        if (first_seed < 0) {
            first_seed = seed;
            csr c;
            build_csr(&e, &c);
            double *x = malloc((size_t)e.n * sizeof *x);
            if (!x)
                die("out of memory");
            reference_ppr(&c, seed, alpha, false, x);
            ref_l1 = 0;
            dangling_share = 0;
            for (int64_t u = 0; u < e.n; u++) {
                ref_l1 += fabs(x[u] - VECTOR(vec)[u]);
                if (is_dangling(&c, u))
                    dangling_share += x[u];
            }
            free(x);
            free_csr(&c);
        }
        nseeds++;
    }
    fclose(sf);
    int64_t dangling = 0;
    {
        char *out = calloc((size_t)e.n + 1, 1);
        if (!out)
            die("out of memory");
        for (int64_t i = 0; i < e.m; i++)
            if (e.w[i] > 0)
                out[e.src[i]] = 1;
        for (int64_t u = 0; u < e.n; u++)
            dangling += !out[u];
        free(out);
    }
    printf("{\"summary\":{\"igraph\":\"%s\",\"nodes\":%" PRId64 ",\"edges\":%" PRId64
           ",\"dangling_nodes\":%" PRId64 ",\"load_ms\":%.1f,\"seeds\":%" PRId64
           ",\"reference_l1_first_seed\":%.3g,\"dangling_share_first_seed\":%.3g}}\n",
           IGRAPH_VERSION, e.n, e.m, dangling, load_ms, nseeds, ref_l1, dangling_share);
    free(top);
    igraph_vector_destroy(&vec);
    igraph_vector_destroy(&reset);
    igraph_vector_destroy(&w);
    igraph_destroy(&g);
    free_edges(&e);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--check") == 0)
        return check_dangling();
    if (argc == 5 && strcmp(argv[1], "--pick-seeds") == 0)
        return pick_seeds(strtol(argv[2], NULL, 10), strtoull(argv[3], NULL, 10), argv[4]);
    if (argc == 4 || argc == 5) {
        char *end;
        double alpha = strtod(argv[2], &end);
        if (*end || !(alpha > 0 && alpha < 1))
            die("ALPHA must be in (0, 1), not '%s'", argv[2]);
        int topk = argc == 5 ? atoi(argv[4]) : 20;
        if (topk < 1 || topk > 1000)
            die("TOPK must be 1..1000, not '%s'", argv[4]);
        return run(argv[1], alpha, argv[3], topk);
    }
    fprintf(stderr, "usage: ppr_igraph --check\n"
                    "       ppr_igraph --pick-seeds N RNGSEED EDGES\n"
                    "       ppr_igraph EDGES ALPHA SEEDS [TOPK]\n");
    return 2;
}
