/* Precomputed bases and the per-case warm start (ppr.h). */
#include "ppr_int.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- bases ---- */

typedef struct {
    const ppr_net *net;
    ppr_basis *b;
    const uint32_t *nodes;
    const ppr_opts *o;
    uint32_t M;
    atomic_uint next;
    atomic_int err;
} basis_job;

static void basis_worker(void *arg, unsigned t)
{
    (void)t;
    basis_job *job = arg;
    ppr_work *w;
    int rc = ppr_work_new(job->net, &w);
    if (rc) {
        atomic_store(&job->err, rc);
        return;
    }
    for (;;) {
        unsigned i = atomic_fetch_add(&job->next, 1);
        if (i >= job->b->count)
            break;
        ppr_entry seed = {job->nodes[i], 1.0f};
        rc = ppr_push(w, &seed, 1, job->o, NULL);
        if (rc) {
            atomic_store(&job->err, rc);
            break;
        }
        ppr_work_export(w, job->M, &job->b->vecs[i]);
    }
    ppr_work_free(w);
}

int ppr_basis_build(const ppr_net *net, const uint32_t *nodes, uint32_t count, uint32_t M,
                    const ppr_opts *o, unsigned threads, ppr_basis **out)
{
    if (M == 0 || M > PPR_MAX_M)
        return CORE_EUSAGE;
    for (uint32_t i = 0; i < count; i++)
        if (nodes[i] >= net->n)
            return CORE_EUSAGE;
    ppr_basis *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->n = net->n;
    b->index = malloc((net->n ? net->n : 1) * sizeof *b->index);
    b->nodes = malloc((count ? count : 1) * sizeof *b->nodes);
    b->vecs = calloc(count ? count : 1, sizeof *b->vecs);
    size_t total = (size_t)count * M;
    b->entries = malloc((total ? total : 1) * sizeof *b->entries);
    if (!b->index || !b->nodes || !b->vecs || !b->entries) {
        ppr_basis_free(b);
        return -ENOMEM;
    }
    memset(b->index, 0xff, net->n * sizeof *b->index);
    /* A node listed twice keeps its first vector. */
    uint32_t *uniq = b->nodes;
    uint32_t nu = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (b->index[nodes[i]] != UINT32_MAX)
            continue;
        b->index[nodes[i]] = nu;
        ppr_vec_init(&b->vecs[nu], b->entries + (size_t)nu * M, M);
        uniq[nu++] = nodes[i];
    }
    b->count = nu;
    basis_job job = {net, b, uniq, o, M, 0, 0};
    atomic_init(&job.next, 0);
    atomic_init(&job.err, 0);
    if (threads == 0)
        threads = core_ncpus();
    if (threads > nu)
        threads = nu ? nu : 1;
    core_parallel(threads, basis_worker, &job);
    int rc = atomic_load(&job.err);
    if (rc) {
        ppr_basis_free(b);
        return rc;
    }
    b->bytes = sizeof *b + (size_t)net->n * sizeof *b->index +
               (size_t)nu * (sizeof *b->nodes + sizeof *b->vecs) +
               (size_t)nu * M * sizeof *b->entries;
    *out = b;
    return 0;
}

const ppr_vec *ppr_basis_get(const ppr_basis *b, uint32_t u)
{
    return b && u < b->n ? ppr__basis_vec(b, u) : NULL;
}

size_t ppr_basis_bytes(const ppr_basis *b)
{
    return b->bytes;
}

const uint32_t *ppr_basis_nodes(const ppr_basis *b)
{
    return b->nodes;
}

uint32_t ppr_basis_count(const ppr_basis *b)
{
    return b->count;
}

void ppr_basis_free(ppr_basis *b)
{
    if (!b)
        return;
    free(b->index);
    free(b->nodes);
    free(b->vecs);
    free(b->entries);
    free(b);
}

/* ---- per-case state ---- */

/* The k-th largest of v[0..n) (1 <= k <= n), reordering v: quickselect,
 * iterative, median-of-three pivots. */
static float kth_largest(float *v, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1, want = k - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        float a = v[lo], b = v[mid], c = v[hi];
        float pivot = (a > b) == (b > c) ? b : (a > b) == (a > c) ? c : a;
        uint32_t i = lo, j = hi;
        for (;;) {
            while (v[i] > pivot)
                i++;
            while (v[j] < pivot)
                j--;
            if (i >= j)
                break;
            float t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* v[lo..j] >= pivot >= v[j+1..hi] */
        if (want <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return v[want];
}

/*
 * Keeps the M largest |scores| of e[0..n) in place (e stays sorted by
 * node; among equal magnitudes the lower nodes stay) and returns the
 * dropped mass. scratch holds n floats.
 */
static double truncate_top(ppr_entry *e, uint32_t *n, uint32_t M, float *scratch)
{
    if (*n <= M)
        return 0;
    for (uint32_t i = 0; i < *n; i++)
        scratch[i] = fabsf(e[i].score);
    float cut = kth_largest(scratch, *n, M);
    uint32_t above = 0;
    for (uint32_t i = 0; i < *n; i++)
        above += fabsf(e[i].score) > cut;
    uint32_t ties = M - above; /* entries equal to cut that still fit */
    double dropped = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++) {
        float s = fabsf(e[i].score);
        if (s > cut || (s == cut && ties > 0)) {
            ties -= s == cut;
            e[k++] = e[i];
        } else {
            dropped += s;
        }
    }
    *n = k;
    return dropped;
}

int ppr_state_advance(ppr_vec *v, uint32_t u, double c, double beta, const ppr_basis *b,
                      ppr_work *w, const ppr_opts *o)
{
    uint32_t M = v->cap;
    if (u >= w->net->n || M == 0 || M > PPR_MAX_M || !isfinite(c) || !isfinite(beta))
        return CORE_EUSAGE;
    ppr_entry *merged = w->scratch;                      /* up to 2M */
    ppr_entry *aux = w->scratch + 2 * (size_t)PPR_MAX_M; /* M */
    const ppr_vec *x = ppr_basis_get(b, u);
    ppr_vec pushed;
    if (!x) {
        /* No basis for u: push from u and keep its M largest entries, in
         * the scratch after `merged` (which the merge does not reach). */
        ppr_entry seed = {u, 1.0f};
        int rc = ppr_push(w, &seed, 1, o, NULL);
        if (rc)
            return rc;
        ppr_vec_init(&pushed, aux, M);
        ppr_work_export(w, M, &pushed);
        x = &pushed;
    }
    /* Sorted merge of c*v and beta*x. x may live in aux, so merge into
     * `merged` first, then truncate using aux as the heap. */
    uint32_t i = 0, j = 0, n = 0;
    while (i < v->n || j < x->n) {
        if (j >= x->n || (i < v->n && v->e[i].node < x->e[j].node)) {
            merged[n++] = (ppr_entry){v->e[i].node, (float)(c * v->e[i].score)};
            i++;
        } else if (i >= v->n || x->e[j].node < v->e[i].node) {
            merged[n++] = (ppr_entry){x->e[j].node, (float)(beta * x->e[j].score)};
            j++;
        } else {
            merged[n++] =
                (ppr_entry){v->e[i].node, (float)(c * v->e[i].score + beta * x->e[j].score)};
            i++;
            j++;
        }
    }
    /* Both inputs are at most PPR_MAX_M long, so `merged` (2 * PPR_MAX_M)
     * holds them. Each sum is rounded to float: FLT_EPSILON of the mass
     * covers that. */
    double err = fabs(c) * v->err + fabs(beta) * x->err;
    double mass = 0;
    for (uint32_t k = 0; k < n; k++)
        mass += fabsf(merged[k].score);
    err += mass * FLT_EPSILON;
    /* aux is free again (x, if it lived there, is merged): n floats fit
     * in its PPR_MAX_M entries, as n <= 2 * PPR_MAX_M. */
    err += truncate_top(merged, &n, M, (float *)aux);
    memcpy(v->e, merged, n * sizeof *merged);
    v->n = n;
    v->err = err;
    return 0;
}
