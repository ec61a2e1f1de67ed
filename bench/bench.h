/*
 * bench.h - the benchmarks built into pmrag (`pmrag bench`): deterministic
 * synthetic code-like graphs, the PRNG they are drawn with, and the run of
 * the personalized-PageRank engine on one of them.
 *
 * Threading: nothing here is shared; a run builds and frees everything it
 * uses (the bases on threads of its own). Output is appended to a buffer
 * the caller owns; progress goes to the caller's callback.
 *
 * The shape. Nodes come in modules (files) of 10 to 60 nodes, laid out
 * contiguously: the module node, its classes, its variables (module
 * constants and class attributes), its methods, its functions. Every node
 * but a module has a member_of edge to its parent (a method to one of its
 * module's classes, a variable to its module or a class). A few modules
 * are empty (one node, no edge at all): they are the dangling nodes of the
 * walkable net.
 *
 * References (every edge but member_of): each node draws how many it makes
 * from a power law (functions and methods: none for 12% of them, else
 * exponent 2.5 with mean ~7 and at most 600; modules: imports, mean ~18;
 * classes: one or two bases and a few uses; variables: rarely any), and a
 * type per reference by what it is (functions: calls 80%, uses 10%,
 * accesses 10%; modules: imports 85%, calls; classes: inherits, uses,
 * calls). A target is of the kind the type needs (calls reach methods and
 * functions, inherits classes, accesses variables, uses classes or
 * variables, imports modules or their top-level names) and lies in the
 * same module (~55%), in one of the four modules on either side (~20%),
 * or anywhere, by preferential attachment (Simon's model: with
 * probability 0.8 a target already chosen from afar, else a uniform one),
 * which makes hubs: utility functions and base classes with thousands of
 * in-edges (max ~10k on 100k nodes, ~40k on 1M). Over the whole graph
 * (measured): mean out-degree 6.0, out-degree tail exponent ~2.5,
 * in-degree ~3.0; calls ~58%, member_of ~16%, uses ~9%, imports ~8%,
 * accesses ~7%, inherits ~2%; targets 51% in the same module, 24% nearby.
 *
 * Everything follows from (n, seed): the same pair gives the same graph
 * (xoshiro256** seeded by splitmix64, no libc randomness, one thread; the
 * one libm function involved is pow, correctly rounded in glibc, so the
 * graph is the same on any machine with it).
 */
#ifndef PMRAG_BENCH_H
#define PMRAG_BENCH_H

#include "ppr.h"

#include <stddef.h>
#include <stdint.h>

/* xoshiro256**. */
typedef struct bench_rng {
    uint64_t s[4];
} bench_rng;

void bench_rng_seed(bench_rng *r, uint64_t seed);
uint64_t bench_rng_next(bench_rng *r);
/* Uniform in [0, 1). */
double bench_rng_unit(bench_rng *r);
/* Uniform in [0, n); n > 0. */
uint32_t bench_rng_below(bench_rng *r, uint32_t n);

typedef enum {
    BENCH_MODULE,
    BENCH_CLASS,
    BENCH_VARIABLE,
    BENCH_METHOD,
    BENCH_FUNCTION,
    BENCH_EMPTY_MODULE, /* no edges: dangling */
    BENCH_KIND__COUNT
} bench_kind;

typedef struct bench_graph {
    uint32_t n;
    ppr_edge_in *edges; /* typed code-graph edges, no self-loops */
    size_t m;
    uint8_t *kind;    /* bench_kind per node */
    uint32_t *module; /* module index per node (modules are numbered in
                       * node order, so neighbouring modules have
                       * neighbouring numbers) */
    uint32_t nmodules;
} bench_graph;

/* Smallest n accepted. */
#define BENCH_SYNTH_MIN_NODES 100u

/* Generates the graph of n nodes (n >= BENCH_SYNTH_MIN_NODES) for seed.
 * CORE_EUSAGE for a smaller n, -ENOMEM when it cannot be allocated. */
int bench_synth(uint32_t n, uint64_t seed, bench_graph *g);
void bench_graph_free(bench_graph *g);

/* What a generated graph looks like, to check the generator. */
typedef struct bench_synth_stats {
    double mean_out; /* generated edges per node */
    uint32_t max_out, max_in;
    uint32_t p50_out, p99_out, p50_in, p99_in;
    /* Maximum-likelihood (Hill) exponent of the degree tails, degrees
     * >= 5 (out) and >= 10 (in), discrete approximation. */
    double out_exponent, in_exponent;
    uint32_t hubs_1000; /* nodes with >= 1000 in-edges */
    uint64_t by_type[GRAPH_EDGE__COUNT];
    /* Of the references (edges but member_of): target in the source's
     * module, in one of the 4 modules on either side, further away. */
    double same_module, near_module, far_module;
    uint32_t isolated; /* nodes without any edge */
} bench_synth_stats;

/* Fills st; allocates two n-arrays for the duration of the call. */
void bench_synth_stats_of(const bench_graph *g, bench_synth_stats *st);
/* A run of the engine's benchmark (`pmrag bench ppr --help` says what
 * each setting does). */
typedef struct bench_cfg {
    bool json; /* one JSON object per size, else text */
    uint32_t *sizes;
    size_t nsizes;
    unsigned seed, cases, events_min, events_max, activities, M, queries, exact, threads;
    unsigned hubs, hub_degree, hub_M, walks;
    double alpha, eps, hub_eps;
    /* Progress lines ("100000 nodes: 200 cold queries"), and NULL when a
     * size is done; may be NULL. */
    void (*progress)(void *ud, const char *line);
    void *progress_ud;
} bench_cfg;

/* Figures of one size, for the summary table. */
typedef struct bench_row {
    uint32_t nodes;
    size_t net_edges, net_bytes, basis_bytes, state_bytes;
    double build_ms, cold_med_us, cold_p99_us, pushes, cold_recall, cold_l1;
    double basis_s, warm_med_us, warm_p99_us, push_med_us, push_p99_us, warm_recall;
    double state_used_bytes;
    uint32_t nhubs;
    double hubs_s;
    size_t hub_bytes;
} bench_row;

/*
 * One size: generates the graph of n nodes, builds its net, runs cold
 * queries, builds the bases, runs the simulated cases with and without
 * them, checks against power iteration; appends what it measured to out
 * (JSON or text, per cfg->json) and to row. Errors name the step in why.
 */
int bench_ppr_size(const bench_cfg *cfg, const ppr_opts *o, uint32_t n, core_buf *out,
                   bench_row *row, char *why, size_t whylen);

#endif
