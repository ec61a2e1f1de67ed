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
 * ranks nodes exactly as PPR does. Scores reported are x; divide by their
 * sum for probabilities (ppr_normalize). Linearity is what makes the warm
 * start exact: x(c s + b e_u) = c x(s) + b x(e_u).
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
 * Power iteration: the reference. Writes x(s) for every node into x (n
 * doubles, caller-owned) once the L1 change bound falls below tol, or
 * after max_iter iterations (then returns CORE_ELIMIT). *iters, if not
 * NULL, receives the iterations done. Allocates one n-vector per call.
 */
int ppr_power(const ppr_net *net, const ppr_entry *seeds, uint32_t nseeds, double alpha, double tol,
              uint32_t max_iter, double *x, uint32_t *iters);

/* Divides scores by their sum (no-op on an all-zero vector). */
void ppr_normalize(ppr_entry *e, uint32_t n);

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

/* ------------------------------------------------------------------ */
/* Events to activities to symbols                                     */
/* ------------------------------------------------------------------ */

/*
 * The mapper turns events into activities and activities into the symbols
 * that emit them. Strategies, in order, each filling what the ones before
 * left:
 *   code      OpenTelemetry code.* attributes (only when allowed)
 *   override  the manual YAML file
 *   template  emit-site templates (graph_matcher), ties broken by logger,
 *             level and, for a message several functions log, by the
 *             code-graph proximity to the case's previous activity
 *   const     a message that only matches a string constant: personalized
 *             PageRank over the code graph seeded at the constants' owners
 *             and at the emitters around the message in the cases seen,
 *             ranking only functions that log non-literal messages
 *   tokens    TF-IDF cosine between the activity and symbol names,
 *             docstrings and templates
 *   llm       an external command
 * A message that matched a template becomes that template's activity (its
 * text is the template); one that matched nothing is abstracted
 * (graph_mask_message) so that its variants fold into one activity. Each
 * activity also has variants: the abstracted rendered messages, kept for
 * the process model (which may tell them apart).
 */
typedef enum {
    PPR_MAP_NONE = 0,
    PPR_MAP_CODE,
    PPR_MAP_OVERRIDE,
    PPR_MAP_TEMPLATE,
    PPR_MAP_CONST,
    PPR_MAP_TOKENS,
    PPR_MAP_LLM,
    PPR_MAP__COUNT
} ppr_map_strategy;

const char *ppr_map_strategy_name(ppr_map_strategy s);

typedef struct ppr_mapper_opts {
    bool use_code_attrs;              /* learn from code.* attributes */
    const graph_overrides *overrides; /* NULL: none */
    bool no_tokens;                   /* turn the token-similarity strategy off */
    double tokens_min;                /* least cosine to accept (0 = 0.25) */
    bool no_const;                    /* turn the constants strategy off */
    const char *llm_cmd;              /* NULL: no external command */
    uint32_t llm_batch, llm_timeout_ms;
    uint32_t max_activities; /* 0 = 1000000; past it, new messages fold into one */
    core_logger log;
} ppr_mapper_opts;

typedef struct ppr_mapper ppr_mapper;

/* One event as the mapper sees it; every string may be NULL. */
typedef struct ppr_map_event {
    const char *text; /* the rendered message, span or event name */
    size_t len;
    const char *logger, *level;
    /* code.* attributes (used only with use_code_attrs) */
    const char *code_file;     /* code.file.path / code.filepath */
    const char *code_function; /* code.function.name / code.function */
    const char *code_namespace;
    uint32_t code_line; /* 0 when absent */
    /* The event may teach the mapper: its code attributes (with
     * use_code_attrs) and its neighbourhood count. False for events of
     * test cases, which are mapped but never learnt from. */
    bool learn;
} ppr_map_event;

int ppr_mapper_new(const graph *g, const ppr_mapper_opts *o, ppr_mapper **out);
void ppr_mapper_free(ppr_mapper *m);

/*
 * Maps one event of a case whose previous activity was prev (UINT32_MAX
 * for the first event): writes its activity and variant ids. Code
 * attributes, when allowed, are counted for the activity (they decide its
 * symbols at ppr_mapper_finish). Repeated messages are answered from a
 * cache.
 */
void ppr_mapper_map(ppr_mapper *m, const ppr_map_event *ev, uint32_t prev, uint32_t *activity,
                    uint32_t *variant);

/*
 * Maps what the per-event strategies left: code-attribute votes, then the
 * constants, token and external strategies for activities without
 * symbols. Call after a batch of events (again later for new activities:
 * only those not tried yet are). Returns 0, or the external command's
 * error (the other strategies' results are kept).
 */
int ppr_mapper_finish(ppr_mapper *m, char *why, size_t whylen);

typedef struct ppr_activity {
    const char *text;
    ppr_map_strategy strategy;
    uint32_t nsyms;
    const uint32_t *syms; /* symbol ids, best first */
    const float *conf;    /* their confidences (summing to at most 1) */
    uint64_t count;       /* events mapped to it */
    uint32_t nvariants;
} ppr_activity;

uint32_t ppr_mapper_nactivities(const ppr_mapper *m);
void ppr_mapper_activity(const ppr_mapper *m, uint32_t id, ppr_activity *out);
uint32_t ppr_mapper_nvariants(const ppr_mapper *m);
/* Distinct messages folded into "<other>" because max_activities was
 * reached. Past the cap the mapper keeps nothing new: at most
 * 2 x max_activities distinct messages are cached and as many variants
 * kept (a new variant then is its activity's "<other>" variant), so a
 * flood of unique messages cannot grow memory without bound. */
uint64_t ppr_mapper_folded(const ppr_mapper *m);
/* A variant's activity and text. */
uint32_t ppr_mapper_variant(const ppr_mapper *m, uint32_t id, const char **text);
/* The activity with this exact text, or UINT32_MAX. */
uint32_t ppr_mapper_find(const ppr_mapper *m, const char *text);
const graph *ppr_mapper_graph(const ppr_mapper *m);

/* Saving and restoring a mapper's dictionary (the model file): an
 * activity's template candidates (or constant owners), and re-creating
 * activities and variants in their saved order, which gives them their
 * saved ids. */
uint32_t ppr_mapper_candidates(const ppr_mapper *m, uint32_t act, const uint32_t **cands,
                               bool *has_const);
uint32_t ppr_mapper_restore(ppr_mapper *m, const ppr_activity *a, const uint32_t *cands,
                            uint32_t ncand, bool has_const);
uint32_t ppr_mapper_restore_variant(ppr_mapper *m, uint32_t act, const char *text);

/* ------------------------------------------------------------------ */
/* The model: process mining and the joint graph                       */
/* ------------------------------------------------------------------ */

/*
 * The joint graph has the code graph's symbols, one node per activity,
 * and one per activity context seen in training: the last o tokens of a
 * case for o = 1..order, over two alphabets, variants (an activity's
 * abstracted messages, kept when they are few for its count: they tell
 * apart what one template does in different places) and activities.
 * Edges: context -> next activity (follows, the directly-follows
 * probabilities of the context), activity -> symbols (emits, the mapping
 * confidences), symbol -> symbol (code edges, type-weighted, scaled by
 * code_scale against a sink, so calibration can turn diffusion down).
 *
 * A prefix is seeded at the contexts it ends with, longest first, each
 * taking lambda_o = n/(n + u) of what the longer ones left (Witten-Bell:
 * n events seen after the context, u distinct next activities); the rest
 * goes to the prefix's own activities with geometric decay (recency, and
 * the current emitter: the cold-start fallback). Every seed of a context
 * takes its first step along follows edges: the "next, not current" rule.
 * Symbols are ranked by their PageRank score.
 */
typedef struct ppr_model_params {
    uint32_t order;       /* longest context, 1..PPR_MODEL_MAX_ORDER (default 6) */
    double variant_ratio; /* keep an activity's variants when they are at most
                             this share of its events (default 0.2)... */
    uint32_t variant_min; /* ...or at most this many (default 8); 0 and 0: never */
    double alpha;         /* restart probability (default 0.3) */
    double code_scale;    /* code-edge weight against the sink (default 0.1) */
    double decay;         /* recency decay over the prefix (default 0.5) */
    double escape;        /* Witten-Bell escape factor (default 1) */
    ppr_weights weights;  /* code edge types */
    /* How ppr_model_calibrate searches (not part of the model: a trained
     * model keeps them, the model file does not). */
    uint32_t calibrate_folds;   /* cross-validation folds, 2..PPR_MODEL_MAX_FOLDS
                                   (default 3) */
    uint32_t calibrate_threads; /* models trained at once (0: one per CPU) */
} ppr_model_params;

#define PPR_MODEL_MAX_ORDER 16
#define PPR_MODEL_MAX_FOLDS 10

ppr_model_params ppr_model_params_default(void);

/* Cases as sequences: events off[c] .. off[c+1]-1 of case c. */
typedef struct ppr_seqs {
    const uint32_t *act; /* activity ids */
    const uint32_t *var; /* variant ids */
    const uint32_t *off; /* ncases + 1 */
    uint32_t ncases;
} ppr_seqs;

typedef struct ppr_model ppr_model;

/*
 * Mines the directly-follows contexts of the training cases and builds
 * the joint graph over the mapper's activities (those that exist now;
 * later ones have no node). The mapper is borrowed and must outlive the
 * model.
 */
int ppr_model_train(ppr_mapper *m, const ppr_seqs *train, const ppr_model_params *p,
                    ppr_model **out);
void ppr_model_free(ppr_model *md);
/*
 * Learning from a stream: what was seen after each window of events, as
 * observations (the window's activity and variant ids, oldest first, the
 * next activity, how many times). ppr_model_train_more() builds a new
 * model over the same mapper with the base's contexts and counts plus
 * these (mined as ppr_model_train mines a case: each window gives its
 * contexts of orders 1..order at both levels), the base's parameters and
 * variant choices, and nodes for the activities the mapper has now.
 * The base is only read. events and cases are added to the training
 * counts in the stats.
 */
typedef struct ppr_follow_obs {
    const uint32_t *act, *var; /* order ids each */
    uint32_t order;            /* 1..PPR_MODEL_MAX_ORDER */
    uint32_t next;
    uint64_t count;
} ppr_follow_obs;
/*
 * What a new model needs of the mapper (how many activities and variants
 * it has, each activity's symbols and confidences), copied: taken while
 * the mapper is not changing (under the lock of whoever maps), it lets
 * ppr_model_train_more run on another thread while mapping goes on. The
 * model built from it still borrows the mapper itself, which must outlive
 * it, for what it reads later (activity texts).
 */
typedef struct ppr_mapper_snap ppr_mapper_snap;
ppr_mapper_snap *ppr_mapper_snapshot(const ppr_mapper *m);
void ppr_mapper_snap_free(ppr_mapper_snap *snap);

/* snap: NULL to read the base's mapper as it is now. */
int ppr_model_train_more(const ppr_model *base, const ppr_mapper_snap *snap,
                         const ppr_follow_obs *obs, size_t nobs, uint64_t events, uint64_t cases,
                         ppr_model **out);

const ppr_model_params *ppr_model_get_params(const ppr_model *md);

typedef struct ppr_model_stats {
    uint32_t symbols, activities, contexts, variants_kept;
    size_t edges, follows, bytes;
    uint64_t train_events, train_cases;
} ppr_model_stats;
void ppr_model_get_stats(const ppr_model *md, ppr_model_stats *out);

/*
 * Calibration: a search over order, variant_ratio, alpha, code_scale,
 * decay and escape (coordinate ascent from *p, two rounds) scored by
 * k-fold cross-validation inside the training cases: they are cut into
 * p->calibrate_folds contiguous folds in case order (ppr_model_folds),
 * and each candidate is trained on all folds but one and scored on that
 * one, for every fold; the objective is top-1 + 1/4 MRR pooled over the
 * folds (each fold weighted by its number of scored prefixes). The target
 * of a prefix is its next activity's symbols, as mapped: nothing outside
 * train is seen. The folds of a candidate train on p->calibrate_threads
 * threads; the result does not depend on it. Below min_cases training
 * cases (or 4) *p is left as it is (tuning on a handful of cases is
 * noise). Progress, the chosen values with their per-fold scores and the
 * final spread over the folds go to the logger at INFO. Writes the best
 * parameters to *p.
 */
int ppr_model_calibrate(ppr_mapper *m, const ppr_seqs *train, uint32_t min_cases,
                        ppr_model_params *p, const core_logger *log);
/*
 * The calibration's folds of ncases cases: fold f is cases bounds[f] ..
 * bounds[f+1]-1, contiguous, in case order, sizes differing by at most
 * one. folds is taken to 2..PPR_MODEL_MAX_FOLDS, then at most ncases;
 * returns it. bounds has room for PPR_MODEL_MAX_FOLDS + 1 entries.
 */
uint32_t ppr_model_folds(uint32_t ncases, uint32_t folds, uint32_t *bounds);

/* Query scratch: one per thread. */
typedef struct ppr_model_work ppr_model_work;
int ppr_model_work_new(const ppr_model *md, ppr_model_work **out);
void ppr_model_work_free(ppr_model_work *w);

typedef struct ppr_pred {
    uint32_t symbol;
    float score;
    uint32_t activity; /* the predicted next activity it comes from, or UINT32_MAX */
    /* UINT32_MAX for a symbol the walk ranked; for one that fills a list
     * the walk left short, the ranked symbol it is near in the code graph
     * (ranked after every walked one, with no activity) */
    uint32_t near;
} ppr_pred;

/*
 * Ranks the symbols that emit the next event after a prefix of len
 * events (activity and variant ids): at most k, best first; returns how
 * many. Only functions, methods and other symbols that emit an activity
 * are ranked.
 */
uint32_t ppr_model_rank(const ppr_model *md, ppr_model_work *w, const uint32_t *act,
                        const uint32_t *var, uint32_t len, uint32_t k, ppr_pred *out);

/*
 * Streaming (the daemon): a case's state is its last tokens (activity and
 * variant ids, at most order of them matter) and a sparse vector rec, the
 * PageRank of its decayed recency seed sum_j decay^(k-j) e(a_j) (not
 * normalised; wsum is the seed's total weight). Each event advances the
 * vector with the warm-start rule, rec <- decay * rec + x(e_a)
 * (ppr_state_advance over the precomputed activity vectors), so a
 * ranking costs the contexts' part only. ppr_model_rank_warm() then
 * equals ppr_model_rank() on the same prefix up to the truncation of the
 * vectors (rec->err bounds it) and the recency window (RECENCY_WINDOW
 * events in ppr_model_rank, unbounded here).
 *
 * ppr_model_stream_prepare() computes the activity vectors (M entries
 * each, on threads threads); call it once before advancing; it changes
 * the model, so not while another thread ranks with it.
 */
int ppr_model_stream_prepare(ppr_model *md, uint32_t M, unsigned threads);
/* Bytes held by the activity vectors. */
size_t ppr_model_stream_bytes(const ppr_model *md);
/* One event of activity act: rec (rec->cap entries kept, at most
 * PPR_MAX_M) and *wsum advance. An activity without a node in the model
 * only ages the vector. Uses w's scratch; no allocation. */
int ppr_model_advance(const ppr_model *md, ppr_model_work *w, ppr_vec *rec, double *wsum,
                      uint32_t act);
/* Ranks like ppr_model_rank() from the last len tokens and the case's
 * vector (rec may be NULL or empty: the contexts alone). */
uint32_t ppr_model_rank_warm(const ppr_model *md, ppr_model_work *w, const uint32_t *act,
                             const uint32_t *var, uint32_t len, const ppr_vec *rec, double wsum,
                             uint32_t k, ppr_pred *out);

/* The seeds of the last ranking (context and activity nodes with their
 * weights) and the joint net, for explanations. Node ids: symbols first,
 * then activities (ppr_model_node_kind). */
uint32_t ppr_model_seeds(const ppr_model_work *w, const ppr_entry **seeds);
const ppr_net *ppr_model_net(const ppr_model *md);
ppr_work *ppr_model_ppr_work(ppr_model_work *w);
typedef enum { PPR_NODE_SYMBOL, PPR_NODE_ACTIVITY, PPR_NODE_CONTEXT, PPR_NODE_SINK } ppr_node_kind;
/* What a joint-net node is; *id gets the symbol, activity or context number. */
ppr_node_kind ppr_model_node(const ppr_model *md, uint32_t node, uint32_t *id);
/* A context's tokens as text ("a > b > c"), into out. */
void ppr_model_context_text(const ppr_model *md, uint32_t ctx, core_buf *out);

/* Edge types of the joint net beyond the code graph's. */
#define PPR_EDGE_EMITS 16
#define PPR_EDGE_FOLLOWS 17
#define PPR_EDGE_SINK 18

/*
 * The model file: the parameters, the mapper's dictionary (activities with
 * their symbols, variants) and the contexts with their follows counts,
 * tied to the graph it was trained on (a model of another graph is
 * refused). Written atomically.
 */
int ppr_model_save(const ppr_model *md, const char *path);
/* Loads a model for graph g: creates the mapper (with opts) and the
 * model; the caller frees both. Errors name the file and what is wrong. */
int ppr_model_load(const char *path, const graph *g, const ppr_mapper_opts *opts,
                   ppr_mapper **mapper, ppr_model **out, char *why, size_t whylen);

#ifdef __cplusplus
}
#endif
#endif
