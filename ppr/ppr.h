/*
 * ppr.h - personalized PageRank: forward push, power iteration, warm start
 * per case from precomputed bases, top-k, explanations, impact.
 *
 * The walk. From the current node u, with probability alpha the walk
 * restarts at a node drawn from the seed distribution s; otherwise it
 * follows one out-edge (u, v) with probability P(u, v) = w(u, v) / W(u),
 * W(u) the total out-weight of u. A dangling node (W(u) = 0) sends the walk
 * back to the seed distribution. PPR(s) is where the walk is in the long
 * run.
 *
 * What is computed. The engine works with the vector
 *
 *     x(s) = alpha * sum_k ((1 - alpha) P^T)^k s
 *
 * the mass reaching each node when mass reaching a dangling node is
 * dropped. x is linear in s, and PPR(s) = x(s) / |x(s)|_1 exactly (the
 * dropped mass re-enters in proportion to s, so it only rescales), so x
 * ranks nodes exactly as PPR does. Scores reported are x; divided by their
 * sum they are probabilities. Linearity is what makes the warm start
 * exact: x(c s + b e_u) = c x(s) + b x(e_u).
 *
 * Error bounds are L1 distances to the exact x, in the same units as the
 * scores: forward push leaves a residual r with x = p + x(r) and
 * |x(r)|_1 <= |r|_1 (times a factor of 1 + O(1e-7) allowing for the
 * float rounding of stored probabilities), so that is reported;
 * truncating a vector to its largest entries adds the dropped mass and
 * the float rounding of what is kept.
 *
 * Threading and lifetime: a ppr_net and a ppr_basis are immutable once
 * built and may be read by any number of threads. A ppr_work (the scratch
 * memory of queries) and a case's ppr_vec belong to one thread at a time.
 * Nothing on the per-event path (ppr_state_advance, ppr_vec_topk,
 * ppr_push on an existing workspace) allocates memory.
 */
#ifndef PMRAG_PPR_H
#define PMRAG_PPR_H

#include "core.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PPR_DEFAULT_ALPHA 0.15
#define PPR_DEFAULT_EPS 1e-7
#define PPR_DEFAULT_M 256
/* A cold query from a few seeds (pmrag ppr's defaults, pmrag bench
 * ppr's): vectors of the PPR_COLD_HUBS highest-degree nodes with at least
 * PPR_COLD_HUB_DEGREE edges (ppr_net_hubs, built once), a push to
 * PPR_COLD_EPS, then PPR_COLD_WALKS random walks. Chosen by top-10 recall
 * and time against an exact solver on 100k-node code-like graphs
 * (tests/bench/ppr_igraph.sh): recall 0.996, and the plain push
 * (PPR_DEFAULT_EPS, no hubs or walks) is 40 times slower for the same. */
#define PPR_COLD_EPS 3e-6
#define PPR_COLD_WALKS 2000
#define PPR_COLD_HUBS 100
#define PPR_COLD_HUB_DEGREE 32
#define PPR_MAX_M 4096 /* largest state or basis size */
#define PPR_MAX_PATH 16

/* ------------------------------------------------------------------ */
/* Weights                                                             */
/* ------------------------------------------------------------------ */

/*
 * Effective weight of a code-graph edge u -> v of type t and stored weight
 * n (its number of sites, scaled by resolution confidence):
 * n * type[t]; the same edge is also walked backwards, v -> u, at
 * n * type[t] * reverse.
 */
typedef struct ppr_weights {
    float type[GRAPH_EDGE__COUNT];
    float reverse;
} ppr_weights;

/* The named profiles: "default" (calls 1.0, inherits 0.9, imports 0.7,
 * uses 0.5, accesses 0.4, member_of 0.2, reverse 0.3), "debug" (calls x1.5)
 * and "refactor" (uses and inherits x1.5). CORE_ENOTFOUND for another
 * name. */
int ppr_weights_profile(const char *name, ppr_weights *out);
/* Sets one weight by name ("calls", ..., "member_of", "reverse");
 * CORE_EUSAGE for another name or a negative or non-finite value. */
int ppr_weights_set(ppr_weights *w, const char *name, double v);
/* Applies "calls=1.2,uses=0.3,reverse=0.2" on top of *w. CORE_EUSAGE on a
 * bad item (unknown name, not a number, negative). */
int ppr_weights_parse(const char *spec, ppr_weights *w);
/* Writes "calls=1,inherits=0.9,..." into buf. */
void ppr_weights_format(const ppr_weights *w, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Networks                                                            */
/* ------------------------------------------------------------------ */

/*
 * The walkable network: a CSR of out-edges with their transition
 * probabilities, built once from a graph file or an edge list (a derived
 * copy, made once; queries never copy it).
 */
typedef struct ppr_net ppr_net;

typedef struct ppr_edge_in {
    uint32_t src, dst;
    uint8_t type; /* graph_edge_type, or any number below 64 for raw lists */
    float weight;
} ppr_edge_in;

/* Edge-type bit marking an edge walked backwards (in ppr_net_out types). */
#define PPR_REVERSE 0x80u

/*
 * From edges over nodes 0..n-1. With weights == NULL every edge is taken
 * as given (weight used as is, no reverse edge): the raw mode of
 * `pmrag ppr --edges`. With weights, edges are typed code-graph edges (see
 * ppr_weights). Parallel edges add up; edges of weight 0 are dropped.
 * CORE_EUSAGE for an edge outside 0..n-1 or a negative or non-finite
 * weight; -ENOMEM when n or the edge count is too large to allocate.
 */
int ppr_net_from_edges(uint32_t n, const ppr_edge_in *edges, size_t m, const ppr_weights *weights,
                       ppr_net **out);
/* From a graph file's symbols and edges (ids are symbol ids). */
int ppr_net_from_graph(const graph *g, const ppr_weights *weights, ppr_net **out);
/*
 * From a text edge list: `src dst type weight` per line (ids 0..n-1 with n
 * one more than the largest id, type a graph edge type name or a number,
 * '#' starts a comment), raw mode. Errors name the line and field in why.
 * The net has a slot for each id, so n may be at most 2 x (number of
 * edges) + 2^20: a file cannot ask for memory out of proportion to its
 * size (CORE_EFORMAT, naming the line of the largest id).
 */
int ppr_net_load_edges(const char *path, ppr_net **out, char *why, size_t whylen);
void ppr_net_free(ppr_net *net);

uint32_t ppr_net_nodes(const ppr_net *net);
size_t ppr_net_edges(const ppr_net *net);
/* Out-edges of u: targets, transition probabilities P(u, v) and types
 * (PPR_REVERSE set for a reverse edge); returns the count. Valid while the
 * net lives. */
uint32_t ppr_net_out(const ppr_net *net, uint32_t u, const uint32_t **dst, const float **prob,
                     const uint8_t **type);
/*
 * The hubs of a net: nodes with at least min_degree out-edges (in a code
 * graph's net, reverse edges make in-degree count too), highest degree
 * first, at most max of them, written to out; returns how many.
 */
uint32_t ppr_net_hubs(const ppr_net *net, uint32_t max, uint32_t min_degree, uint32_t *out);

/* Total out-weight W(u) (0 for a dangling node). */
double ppr_net_weight(const ppr_net *net, uint32_t u);
size_t ppr_net_bytes(const ppr_net *net);

/* ------------------------------------------------------------------ */
/* Vectors, options, adjustments                                       */
/* ------------------------------------------------------------------ */

typedef struct ppr_entry {
    uint32_t node;
    float score;
} ppr_entry;

typedef struct ppr_opts {
    double alpha; /* restart probability, 0 < alpha < 1 */
    /* Push u while |r(u)| > eps * max(outdeg(u), 1). */
    double eps;
    /* 0: no budget. When set and reached, the push stops there and says
     * so (ppr_stats.budget_hit); the error bound still holds. */
    uint64_t max_pushes;
    /*
     * Hub vectors (NULL: none): a basis over the hubs (ppr_net_hubs). A
     * push does not push a hub: whatever mass reaches it is kept, and at
     * the end hub h's mass a_h adds a_h * x(e_h) from its vector, with
     * |a_h| * (its err) added to the error bound. By linearity that is the
     * same x. It spares the pushes that cost most (a hub has thousands of
     * edges) and keeps hub scores from waiting below their threshold.
     * Bases of hubs must themselves be built without hubs.
     */
    const struct ppr_basis *hubs;
    /*
     * Random walks after the push (0: none): the residual the push left
     * below its thresholds is carried by this many walks, started in
     * proportion to it; a walk stops with probability alpha at each node
     * (its mass goes there), at a dangling node (dropped, as x drops it)
     * or at a hub (handed to the hub's vector). That estimates x(r)
     * without bias where the push would leave it out (mass that diffuses
     * towards far hubs). The walks are drawn from a generator seeded with
     * walk_seed and the seeds, so a query gives the same answer every
     * time. The error bound then covers the walks' worst case: twice the
     * residual.
     */
    uint32_t walks;
    uint64_t walk_seed;
} ppr_opts;

/* alpha 0.15, eps PPR_DEFAULT_EPS, no budget, no hubs, no walks. */
ppr_opts ppr_opts_default(void);

typedef struct ppr_stats {
    uint64_t pushes;    /* nodes pushed */
    uint64_t edges;     /* edges relaxed */
    uint32_t touched;   /* nodes with a nonzero estimate or residual */
    double error_bound; /* L1 bound on |x - estimate| */
    bool budget_hit;
} ppr_stats;

/*
 * Score adjustments for top-k: each listed node's score is multiplied by
 * its factor (0 excludes it: the "next, not current" rule, or leaving the
 * seeds out). Borrowed for the call.
 */
typedef struct ppr_adjust {
    const uint32_t *nodes;
    const float *factor;
    uint32_t n;
} ppr_adjust;

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

/*
 * Scratch memory for queries on one net: dense estimate and residual
 * arrays, the push queue, a list of touched nodes (reset after each query
 * in time proportional to what was touched), merge scratch for states.
 * ppr_work_new allocates all of it once (about 26 bytes per node);
 * pushes, exports and state updates allocate nothing.
 */
typedef struct ppr_work ppr_work;
int ppr_work_new(const ppr_net *net, ppr_work **out);
void ppr_work_free(ppr_work *w);
/* Bytes w holds (its explanation scratch too, once made). */
size_t ppr_work_bytes(const ppr_work *w);

/*
 * Forward push (Andersen, Chung, Lang) from the seeds (weights need not sum
 * to 1; negative weights are allowed: residuals are signed). The estimate
 * stays in the workspace until the next query. CORE_EUSAGE for a seed
 * outside the net or an alpha/eps out of range.
 */
int ppr_push(ppr_work *w, const ppr_entry *seeds, uint32_t nseeds, const ppr_opts *o,
             ppr_stats *st);

/* The k highest adjusted scores of the last push, best first; returns how
 * many were written (<= k). */
uint32_t ppr_work_topk(const ppr_work *w, uint32_t k, const ppr_adjust *adj, ppr_entry *out);
/* The estimate of node u from the last push. */
double ppr_work_score(const ppr_work *w, uint32_t u);
/*
 * The nodes the last query touched (a push, or the calls below), in the
 * order it touched them, and the dense estimate they index (nonzero only
 * at touched nodes); returns how many. Both are borrowed from w until its
 * next query: for callers that rank a subset of the nodes their own way.
 */
uint32_t ppr_work_touched(const ppr_work *w, const uint32_t **nodes, const double **estimate);
/* Adds scale * e to the last push's estimate, marking the nodes touched:
 * by linearity, the push of a seed that adds scale times the seed whose
 * vector e is (a stored case vector, a basis vector). */
void ppr_work_add(ppr_work *w, const ppr_entry *e, uint32_t n, double scale);
/* Leaves w as a push without hubs that touched nodes[0..n) in that order
 * with estimates p[0..n) and error bound err would (residuals zero): for
 * replaying a push a caller kept from before. */
void ppr_work_load(ppr_work *w, const uint32_t *nodes, const double *p, uint32_t n, double err);

/* Best first: score descending, then node ascending. Sorts in place
 * without allocating. */
void ppr_sort_by_score(ppr_entry *e, uint32_t n);
/*
 * Offers c to a heap of the best k entries in h[0..*n) (score descending,
 * then node ascending; the worst at the root). Returns the entry that
 * fell out, or {UINT32_MAX, 0} when none did. ppr_sort_by_score then
 * orders the heap best first.
 */
ppr_entry ppr_heap_offer(ppr_entry *h, uint32_t *n, uint32_t k, ppr_entry c);

/*
 * Power iteration: the reference. Writes x(s) for every node into x (n
 * doubles, caller-owned) once the L1 change bound falls below tol, or
 * after max_iter iterations (then returns CORE_ELIMIT). *iters, if not
 * NULL, receives the iterations done. Allocates one n-vector per call.
 */
int ppr_power(const ppr_net *net, const ppr_entry *seeds, uint32_t nseeds, double alpha, double tol,
              uint32_t max_iter, double *x, uint32_t *iters);

/* ------------------------------------------------------------------ */
/* Sparse vectors, bases and per-case state                            */
/* ------------------------------------------------------------------ */

/*
 * A truncated vector: at most cap entries sorted by node, and err, an L1
 * bound on its distance to the vector it stands for. Storage is the
 * caller's (a case state's entries live wherever its case lives).
 */
typedef struct ppr_vec {
    ppr_entry *e;
    uint32_t n, cap;
    double err;
} ppr_vec;

/* Empty vector over caller-owned storage of cap entries. */
void ppr_vec_init(ppr_vec *v, ppr_entry *storage, uint32_t cap);

/* The last push's estimate, its M largest entries, into v (v->cap >= M);
 * err = push error bound + dropped mass. */
void ppr_work_export(const ppr_work *w, uint32_t M, ppr_vec *v);

/*
 * Bases: x(e_u) truncated to M entries, precomputed for a set of nodes
 * (the activities, whose events drive the cases) with a forward push each,
 * on `threads` threads.
 */
typedef struct ppr_basis ppr_basis;
int ppr_basis_build(const ppr_net *net, const uint32_t *nodes, uint32_t count, uint32_t M,
                    const ppr_opts *o, unsigned threads, ppr_basis **out);
/* The basis of node u, or NULL if it was not precomputed. Valid while
 * the basis lives. */
const ppr_vec *ppr_basis_get(const ppr_basis *b, uint32_t u);
/* The nodes that have a vector, in the order they were given (duplicates
 * dropped); count of them in ppr_basis_count(). */
const uint32_t *ppr_basis_nodes(const ppr_basis *b);
size_t ppr_basis_bytes(const ppr_basis *b);
uint32_t ppr_basis_count(const ppr_basis *b);
void ppr_basis_free(ppr_basis *b);

/*
 * One event of a case: its seed goes from s to c*s + beta*e(u), so its
 * vector from v to c*v + beta*x(e_u) (exact by linearity), then the M
 * largest entries are kept (M = v->cap). x(e_u) comes from the basis when
 * it has u (the hot path: a sparse scaled merge), else from a forward push
 * from u in w. v->err grows by c * (old err) + beta * (err of x(e_u)) +
 * the dropped mass: it stays an L1 bound on the distance to the exact
 * vector of the decayed seed. No allocation. CORE_EUSAGE for u outside
 * the net or v->cap above PPR_MAX_M.
 */
int ppr_state_advance(ppr_vec *v, uint32_t u, double c, double beta, const ppr_basis *b,
                      ppr_work *w, const ppr_opts *o);

/* The k highest adjusted entries of a sparse vector, best first. Uses no
 * memory but out. */
uint32_t ppr_vec_topk(const ppr_vec *v, uint32_t k, const ppr_adjust *adj, ppr_entry *out);

/* ------------------------------------------------------------------ */
/* Explanations and impact                                             */
/* ------------------------------------------------------------------ */

typedef struct ppr_step {
    uint32_t from, to;
    uint8_t type; /* edge type, with PPR_REVERSE if walked backwards */
    float prob;   /* P(from, to) */
} ppr_step;

/*
 * The walk path that contributes most to target's score:
 * s(seed) * alpha * prod((1 - alpha) P(step)) over its steps, found with a
 * best-first search from the seeds (the first explanation on a workspace
 * allocates its search arrays; gives up after visiting max_visits nodes, 0
 * = no limit). CORE_ELIMIT when the best path is longer than PPR_MAX_PATH
 * steps. share is the path's
 * contribution over target's score in the last push from the same seeds
 * (0 if no push was done). CORE_ENOTFOUND if no path reaches target.
 */
typedef struct ppr_path {
    uint32_t seed;
    uint32_t len;
    ppr_step steps[PPR_MAX_PATH];
    double contribution;
    double share;
} ppr_path;

int ppr_explain(ppr_work *w, const ppr_entry *seeds, uint32_t nseeds, uint32_t target, double alpha,
                uint32_t max_visits, ppr_path *out);

/*
 * Impact (blast radius) of changing a symbol: the symbols that depend on
 * it, transitively, through reverse calls, inherits (subclasses), uses and
 * imports. A dependent's score is the best product along a chain of edge
 * confidences, conf(e) = min(1, type weight of ppr_weights) * min(1,
 * stored weight) * decay; chains below threshold are pruned. Results sorted by
 * score, best first, in a malloc'd array the caller frees. For each, via
 * is the next symbol on its best chain towards the changed symbol.
 */
typedef struct ppr_impact {
    uint32_t node;
    float score;
    uint32_t via;
    uint8_t type; /* edge type from node to via */
    uint16_t depth;
} ppr_impact;

typedef struct ppr_impact_opts {
    ppr_weights weights;  /* type confidences, above 1 taken as 1 (reverse unused) */
    double decay;         /* per hop, 0 < decay <= 1 (default 0.8) */
    double threshold;     /* prune below (default 0.05) */
    uint32_t max_results; /* 0 = all */
} ppr_impact_opts;

ppr_impact_opts ppr_impact_opts_default(void);
int ppr_impact_of(const graph *g, uint32_t symbol, const ppr_impact_opts *o, ppr_impact **out,
                  uint32_t *count);
#ifdef __cplusplus
}
#endif
#endif
