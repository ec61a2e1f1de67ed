/* ppr_int.h - private to ppr/: the structures behind the handles. */
#ifndef PMRAG_PPR_INT_H
#define PMRAG_PPR_INT_H

#include "ppr.h"

struct ppr_net {
    uint32_t n;
    size_t m;
    uint32_t *off; /* n + 1 */
    uint32_t *dst; /* m */
    float *prob;   /* m: P(u, dst) */
    float *cum;    /* m: P(u, dst) summed over u's edges up to this one */
    uint8_t *type; /* m: edge type | PPR_REVERSE */
    double *wsum;  /* n: W(u) */
    /* Largest sum of a node's stored (float) probabilities: 1 within
     * rounding, and what the error bounds must allow for. */
    double rho;
};

/* What a push reads and writes for a node when an edge reaches it, in
 * one 16-byte record: one cache line per relaxation, not four. */
typedef struct ppr_node {
    double r; /* residual */
    /* max(out-degree, 1): the push threshold is eps * deg. UINT32_MAX
     * marks a hub: never pushed (see ppr_opts.hubs). */
    uint32_t deg;
    uint8_t mark; /* touched in the current query */
    uint8_t inq;  /* in the queue */
    uint8_t pad[2];
} ppr_node;

struct ppr_work {
    const ppr_net *net;
    double *p; /* estimate */
    ppr_node *node;
    uint32_t *queue; /* FIFO ring of n; scratch heap after a push */
    uint32_t *touched;
    uint32_t ntouched;
    const struct ppr_basis *hubs; /* whose nodes are marked in node[].deg */
    double error_bound;           /* of the last push */
    bool has_push;
    /* Merge scratch for state updates: 3 * PPR_MAX_M entries. */
    ppr_entry *scratch;
    /* Explanation search, allocated on first use. */
    double *dist;
    uint32_t *pred, *pred_edge, *heap, *pos;
};

struct ppr_basis {
    uint32_t n; /* nodes of the net */
    uint32_t count;
    uint32_t *nodes; /* count: the node of each vector */
    uint32_t *index; /* node -> number of its vector, or UINT32_MAX */
    ppr_vec *vecs;
    ppr_entry *entries;
    size_t bytes;
};

/* The vector of node u (< b->n) in b, or NULL. Read here, where the push
 * reads its hubs' vectors, so that the push needs nothing of the file that
 * builds bases by pushing. */
static inline const ppr_vec *ppr__basis_vec(const struct ppr_basis *b, uint32_t u)
{
    uint32_t i = b->index[u];
    return i == UINT32_MAX ? NULL : &b->vecs[i];
}

/* Sorting without allocation (glibc's qsort may allocate). */
void ppr__sort_by_node(ppr_entry *e, uint32_t n);
uint32_t ppr__topk(const ppr_entry *in, uint32_t n, uint32_t k, const ppr_adjust *adj,
                   ppr_entry *out);

#endif
