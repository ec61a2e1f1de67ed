/*
 * model_int.h - private to model/: the structures behind the model's
 * handles, and what its files share (mine.c builds a model, rank.c and
 * fill.c rank with it, calibrate.c searches its parameters, file.c
 * saves and loads it).
 */
#ifndef PMRAG_MODEL_INT_H
#define PMRAG_MODEL_INT_H

#include "model.h"

#include <string.h>

#define LEVEL_VAR 0
#define LEVEL_ACT 1
#define RECENCY_WINDOW 32
#define TOK_UNKNOWN UINT32_MAX

/* The code's prior: at most this many symbols per activity (code.c). */
#define CODE_MAX 32
/* Symbols the case's own past gives a ranking, at most. */
#define CASE_MAX 32

typedef core_vec(ppr_entry) model_entries;

/* Scratch for the code's prior of one activity: a weight per symbol (all
 * zero between uses), the activity's sites (node: an emit) and the
 * symbols reached. */
typedef struct code_scratch {
    double *acc;
    model_entries sites, touched;
} code_scratch;

typedef struct ctx_rec {
    uint32_t tok_off; /* into toks */
    uint8_t level, order;
    uint32_t n, u; /* events after it, distinct next activities */
} ctx_rec;

struct model_joint {
    map_mapper *m;
    const graph *g;
    model_params p;
    uint32_t S, A, V, C; /* symbols, activities, variants, contexts */
    uint8_t *keep;       /* A: variants kept */
    core_map ctx_index;  /* hash -> context */
    core_vec(ctx_rec) ctx;
    core_vec(uint32_t) toks;
    /* follows, CSR over contexts */
    uint32_t *f_off;
    uint32_t *f_act;
    uint32_t *f_cnt;
    ppr_net *net;
    uint8_t *rankable; /* S */
    /* symbol -> activities emitting it (CSR), with confidences */
    uint32_t *sa_off, *sa_act;
    float *sa_conf;
    uint64_t train_events, train_cases;
    uint32_t variants_kept;
    /* Streaming: every activity's PageRank vector, truncated to state_M
     * entries (model_stream_prepare). */
    ppr_basis *act_basis;
    uint32_t state_M;
    /* The code's prior per activity (code.c), CSR: symbols with the
     * probability each logs next (summing to at most 1). */
    uint32_t *code_off;
    ppr_entry *code;
    /* Re-mapped onto another release's graph (model_load_onto), or
     * learnt on from one that was: an activity it has no node for is
     * then most likely one the release added (window_tokens). */
    bool remapped;
};

typedef struct memo_slot memo_slot;

struct model_work {
    const model_joint *md;
    ppr_work *w;
    ppr_entry *seeds;
    uint32_t nseeds, cap;
    ppr_entry *top;
    uint32_t topcap;
    /* model_rank_warm's memo of context pushes (allocated on first
     * use): the index and the arena of entries (8-byte words). */
    memo_slot *memo;
    uint64_t *arena;
    uint64_t ring;       /* words written to the arena, a ring, since it began */
    uint64_t warm_calls; /* the memo starts after MEMO_AFTER of them */
    /* fill_ranks' scratch and the neighbourhoods made so far (allocated
     * on first use, for the model fill_md): a weight per symbol (-1: a
     * ranked one), the mass a node got in the current hop, the ranked
     * symbol that gave a candidate the most, where a symbol's
     * neighbourhood starts in fill_nbs (UINT32_MAX: not made yet) and its
     * length; the symbols a spread reached. */
    const model_joint *fill_md;
    float *fill_acc, *fill_hopm;
    uint32_t *fill_from, *fill_nb_off;
    uint8_t *fill_nb_n;
    core_vec(ppr_entry) fill_nbs;
    core_vec(uint32_t) fill_set;
    core_vec(ppr_entry) fill_hop[2]; /* this hop's nodes, the next hop's */
    /* The code's part of the last ranking: the activity it came from, the
     * scale its weights were added at, its code_n entries (0: no part,
     * and code_act UINT32_MAX), and, for an activity newer than the model,
     * its prior and the scratch made for it. */
    uint32_t code_act;
    double code_at;
    const ppr_entry *code_e;
    uint32_t code_n;
    code_scratch code_cs;
    ppr_entry code_new[CODE_MAX];
    /* The case's own part of the last ranking (case_split): the symbols
     * that logged what followed the last event earlier in the case, with
     * their weights (summing to 1), the scale they were added at, and the
     * activity they followed. */
    uint32_t case_n, case_act;
    double case_at;
    ppr_entry case_e[CASE_MAX];
};

/* ---- tokens and contexts ---- */

static inline uint32_t token_of(const model_joint *md, uint32_t act, uint32_t var)
{
    if (act >= md->A)
        return TOK_UNKNOWN;
    if (md->keep[act])
        /* A variant unseen in training matches nothing; none known
         * (UINT32_MAX: a query's new message) is unknown. */
        return var == UINT32_MAX ? TOK_UNKNOWN : md->A + var;
    return act;
}

static inline uint64_t ctx_key(uint8_t level, const uint32_t *t, uint32_t o)
{
    uint64_t h = core_hash64(t, (size_t)o * sizeof *t, 0x637478ull + level * 131u + o);
    return h == UINT64_MAX ? 0 : h;
}

typedef struct pair_rec {
    uint32_t ctx, act, count;
} pair_rec;

typedef struct pair_acc {
    core_map idx;
    core_vec(pair_rec) v;
} pair_acc;

/* A code edge's weight in the joint graph before code_scale: its count
 * times its type's weight, times reverse when it is followed backwards. */
static inline double code_weight(const model_joint *md, const graph_edge *e, bool backwards)
{
    return backwards ? e->weight * md->p.weights.type[e->type] * md->p.weights.reverse
                     : e->weight * md->p.weights.type[e->type];
}

/* a before b best first: score descending, then node ascending (the
 * order of ppr_sort_by_score). */
static inline bool score_before(const ppr_entry *a, const ppr_entry *b)
{
    return a->score != b->score ? a->score > b->score : a->node < b->node;
}

/* ---- shared between the model's files (and its white-box tests) ---- */

/*
 * The calibration's folds of ncases cases: fold f is cases bounds[f] ..
 * bounds[f+1]-1, contiguous, in case order, sizes differing by at most
 * one. folds is taken to 2..MODEL_MAX_FOLDS, then at most ncases;
 * returns it. bounds has room for MODEL_MAX_FOLDS + 1 entries.
 */
uint32_t model_folds(uint32_t ncases, uint32_t folds, uint32_t *bounds);
/* The seeds of the last ranking on w (context and activity nodes of the
 * joint net with their weights), borrowed until w's next ranking. Node
 * ids: symbols first, then activities (model_node). */
uint32_t model_seeds(const model_work *w, const ppr_entry **seeds);
typedef enum {
    MODEL_NODE_SYMBOL,
    MODEL_NODE_ACTIVITY,
    MODEL_NODE_CONTEXT,
    MODEL_NODE_SINK
} model_node_kind;
/* What a joint-net node is; *id gets the symbol, activity or context number. */
model_node_kind model_node(const model_joint *md, uint32_t node, uint32_t *id);
/* A context's tokens as text ("a > b > c"), into out. */
void model_context_text(const model_joint *md, uint32_t ctx, core_buf *out);

/* A model over m's activities (or the snapshot's) with parameters p
 * (NULL: the defaults), no contexts yet (mine.c). */
model_joint *model__new(map_mapper *m, const model_mapper_snap *sn, const model_params *p);
/* The context of these tokens at a level, added if new; its number. */
uint32_t model__ctx_add(model_joint *md, uint8_t level, const uint32_t *t, uint32_t o);
/* Whether context c has these tokens (a 64-bit hash collision would join
 * two contexts). */
bool model__ctx_is(const model_joint *md, uint32_t c, uint8_t level, const uint32_t *t, uint32_t o);
/* The follows CSR over the contexts from (context, activity, count)
 * pairs sorted by context, and each context's n and u. */
void model__set_follows(model_joint *md, const pair_rec *pairs, size_t n);
/* The joint net from the contexts, their follows and the activities'
 * symbols (the snapshot's, or the mapper's when sn is NULL). */
int model__build_net(model_joint *md, const model_mapper_snap *sn);
/* The weights of a symbol's code edges both ways, summed. */
double model__code_total(const model_joint *md, const graph_edge *out, uint32_t no,
                         const graph_edge *in, uint32_t ni);

/* An activity's symbols and confidences: from the snapshot a model is
 * built from, or the mapper (sn NULL); and its text (snap.c). */
void model__act_syms(const model_joint *md, const model_mapper_snap *sn, uint32_t a,
                     map_activity *pa);
const char *model__act_text(const model_joint *md, const model_mapper_snap *sn, uint32_t a);
/* How many activities and variants: the snapshot's, or m's (sn NULL). */
void model__act_count(const map_mapper *m, const model_mapper_snap *sn, uint32_t *nact,
                      uint32_t *nvar);

/* The code's prior (code.c). The sites of an activity with this text and
 * these symbols (into cs->sites: emit, weight); its prior (at most
 * CODE_MAX symbols, best first, into out; returns how many). */
void model__code_sites(const model_joint *md, const char *text, const uint32_t *syms,
                       const float *conf, uint32_t nsyms, code_scratch *cs);
uint32_t model__code_dist(const model_joint *md, const char *text, const uint32_t *syms,
                          const float *conf, uint32_t nsyms, code_scratch *cs, ppr_entry *out);
void model__code_scratch_free(code_scratch *cs);
/* Every activity's prior, at build (sn as for model__act_syms). */
void model__code_build(model_joint *md, const model_mapper_snap *sn);
/* The prior of activity act: the model's, or for one newer than the
 * model, the mapper's account of it (in w, valid until its next use);
 * *out points at it. Returns its length. */
uint32_t model__code_of(const model_joint *md, model_work *w, uint32_t act, const ppr_entry **out);

/* The push options of the model's walks (rank.c). */
ppr_opts model__push_opts(const model_joint *md);
/* The seeds of a prefix: contexts (Witten-Bell weights), then, with
 * recency, the prefix's own activities, into w->seeds. Returns the weight
 * left to the recency part (what the contexts did not take). */
double model__make_seeds(const model_joint *md, model_work *w, const uint32_t *act,
                         const uint32_t *var, uint32_t len, bool recency);
/* The k best rankable symbols of the work's last push, each with the
 * predicted activity that contributes most to it, then the fill. */
uint32_t model__collect(const model_joint *md, model_work *w, uint32_t k, model_pred *out);
/* Fills a list the walk left short, out[0..h) ranked, up to k (fill.c). */
uint32_t model__fill_ranks(const model_joint *md, model_work *w, uint32_t h, uint32_t k,
                           model_pred *out);

#endif
