/* Weight profiles and the walkable network (ppr.h). */
#include "ppr_int.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- weights ---- */

int ppr_weights_profile(const char *name, ppr_weights *out)
{
    ppr_weights w;
    memset(&w, 0, sizeof w);
    w.type[GRAPH_EDGE_CALLS] = 1.0f;
    w.type[GRAPH_EDGE_INHERITS] = 0.9f;
    w.type[GRAPH_EDGE_IMPORTS] = 0.7f;
    w.type[GRAPH_EDGE_USES] = 0.5f;
    w.type[GRAPH_EDGE_ACCESSES] = 0.4f;
    w.type[GRAPH_EDGE_MEMBER_OF] = 0.2f;
    w.reverse = 0.3f;
    if (strcmp(name, "default") == 0) {
    } else if (strcmp(name, "debug") == 0) {
        w.type[GRAPH_EDGE_CALLS] *= 1.5f;
    } else if (strcmp(name, "refactor") == 0) {
        w.type[GRAPH_EDGE_USES] *= 1.5f;
        w.type[GRAPH_EDGE_INHERITS] *= 1.5f;
    } else {
        return CORE_ENOTFOUND;
    }
    *out = w;
    return 0;
}

/* The slot of type name[0..len) ("calls", ..., "reverse"), or NULL. */
static float *weight_slot(ppr_weights *w, const char *name, size_t len)
{
    /* Edge type names match whatever their case, as in an edge list. */
    if (len == 7 && strncasecmp(name, "reverse", 7) == 0)
        return &w->reverse;
    for (int k = 0; k < GRAPH_EDGE__COUNT; k++) {
        const char *t = graph_edge_type_name((graph_edge_type)k);
        if (strlen(t) == len && strncasecmp(name, t, len) == 0)
            return &w->type[k];
    }
    return NULL;
}

int ppr_weights_set(ppr_weights *w, const char *name, double v)
{
    float *slot = weight_slot(w, name, strlen(name));
    if (!slot || !isfinite(v) || v < 0)
        return CORE_EUSAGE;
    *slot = (float)v;
    return 0;
}

int ppr_weights_parse(const char *spec, ppr_weights *w)
{
    ppr_weights t = *w;
    const char *p = spec;
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *eq = memchr(p, '=', n);
        if (!eq)
            return CORE_EUSAGE;
        size_t klen = (size_t)(eq - p);
        char num[64];
        size_t vlen = n - klen - 1;
        if (vlen == 0 || vlen >= sizeof num)
            return CORE_EUSAGE;
        memcpy(num, eq + 1, vlen);
        num[vlen] = 0;
        char *end;
        double v = strtod(num, &end);
        if (*end || !isfinite(v) || v < 0)
            return CORE_EUSAGE;
        float *slot = weight_slot(&t, p, klen);
        if (!slot)
            return CORE_EUSAGE;
        *slot = (float)v;
        p += n;
        if (*p == ',')
            p++;
    }
    *w = t;
    return 0;
}

void ppr_weights_format(const ppr_weights *w, char *buf, size_t len)
{
    size_t k = 0;
    for (int t = 0; t < GRAPH_EDGE__COUNT && k < len; t++) {
        int n = snprintf(buf + k, len - k, "%s=%g,", graph_edge_type_name((graph_edge_type)t),
                         (double)w->type[t]);
        if (n < 0)
            return;
        k += (size_t)n;
    }
    if (k < len)
        snprintf(buf + k, len - k, "reverse=%g", (double)w->reverse);
}

/* ---- building ---- */

/* Sorts a node's edge list by (dst, type): small lists by insertion,
 * others by heapsort (no allocation, no recursion). */
typedef struct {
    uint32_t dst;
    uint8_t type;
    double w;
} tmp_edge;

static bool tmp_less(const tmp_edge *a, const tmp_edge *b)
{
    return a->dst != b->dst ? a->dst < b->dst : a->type < b->type;
}

static void sift(tmp_edge *a, size_t i, size_t n)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && tmp_less(&a[c], &a[c + 1]))
            c++;
        if (!tmp_less(&a[i], &a[c]))
            return;
        tmp_edge t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

static void sort_edges(tmp_edge *a, size_t n)
{
    if (n < 24) {
        for (size_t i = 1; i < n; i++) {
            tmp_edge t = a[i];
            size_t j = i;
            while (j > 0 && tmp_less(&t, &a[j - 1])) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = t;
        }
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift(a, i, n);
    for (size_t end = n; end-- > 1;) {
        tmp_edge t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift(a, 0, end);
    }
}

static void *try_alloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    return malloc(bytes ? bytes : 1);
}

int ppr_net_from_edges(uint32_t n, const ppr_edge_in *edges, size_t m, const ppr_weights *weights,
                       ppr_net **out)
{
    if (n == UINT32_MAX)
        return CORE_EUSAGE;
    for (size_t i = 0; i < m; i++) {
        const ppr_edge_in *e = &edges[i];
        if (e->src >= n || e->dst >= n || !isfinite(e->weight) || e->weight < 0)
            return CORE_EUSAGE;
        if (weights && e->type >= GRAPH_EDGE__COUNT)
            return CORE_EUSAGE;
    }
    /* Each input edge gives one or two net edges (the reverse in typed
     * mode). Count by source, then fill. */
    size_t per = weights && weights->reverse > 0 ? 2 : 1;
    if (m > (SIZE_MAX / per) || m * per > UINT32_MAX - 1)
        return -ENOMEM;
    uint32_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    tmp_edge *tmp = try_alloc(m * per, sizeof *tmp);
    ppr_net *net = calloc(1, sizeof *net);
    if (!cnt || !tmp || !net) {
        free(cnt);
        free(tmp);
        free(net);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m; i++) {
        const ppr_edge_in *e = &edges[i];
        double w = weights ? (double)e->weight * weights->type[e->type] : e->weight;
        if (w > 0) {
            cnt[e->src + 1]++;
            if (per == 2)
                cnt[e->dst + 1]++;
        }
    }
    for (uint32_t u = 0; u < n; u++)
        cnt[u + 1] += cnt[u];
    uint32_t *fill = try_alloc((size_t)n + 1, sizeof *fill);
    if (!fill) {
        free(cnt);
        free(tmp);
        free(net);
        return -ENOMEM;
    }
    memcpy(fill, cnt, ((size_t)n + 1) * sizeof *fill);
    for (size_t i = 0; i < m; i++) {
        const ppr_edge_in *e = &edges[i];
        double w = weights ? (double)e->weight * weights->type[e->type] : e->weight;
        if (!(w > 0))
            continue;
        tmp[fill[e->src]++] = (tmp_edge){e->dst, e->type, w};
        if (per == 2)
            tmp[fill[e->dst]++] =
                (tmp_edge){e->src, (uint8_t)(e->type | PPR_REVERSE), w * weights->reverse};
    }
    free(fill);
    /* Sort each node's edges, merge parallel ones, turn weights into
     * transition probabilities. */
    size_t total = cnt[n];
    net->n = n;
    net->off = try_alloc((size_t)n + 1, sizeof *net->off);
    net->dst = try_alloc(total, sizeof *net->dst);
    net->prob = try_alloc(total, sizeof *net->prob);
    net->cum = try_alloc(total, sizeof *net->cum);
    net->type = try_alloc(total, sizeof *net->type);
    net->wsum = try_alloc(n ? n : 1, sizeof *net->wsum);
    if (!net->off || !net->dst || !net->prob || !net->cum || !net->type || !net->wsum) {
        free(cnt);
        free(tmp);
        ppr_net_free(net);
        return -ENOMEM;
    }
    uint32_t k = 0;
    for (uint32_t u = 0; u < n; u++) {
        net->off[u] = k;
        tmp_edge *a = tmp + cnt[u];
        size_t na = cnt[u + 1] - cnt[u];
        sort_edges(a, na);
        double wsum = 0;
        uint32_t start = k;
        for (size_t i = 0; i < na;) {
            size_t j = i;
            double w = 0;
            while (j < na && a[j].dst == a[i].dst && a[j].type == a[i].type)
                w += a[j++].w;
            net->dst[k] = a[i].dst;
            net->type[k] = a[i].type;
            /* The merged weight, kept in double until it is divided: a
             * weight may be any finite float, and a sum of them need not
             * fit one (converting it would be undefined). */
            a[k - start].w = w;
            wsum += w;
            k++;
            i = j;
        }
        net->wsum[u] = wsum;
        double rowsum = 0;
        for (uint32_t e = start; e < k; e++) {
            net->prob[e] = (float)(a[e - start].w / wsum);
            rowsum += net->prob[e];
            net->cum[e] = (float)rowsum;
        }
        if (rowsum > net->rho)
            net->rho = rowsum;
    }
    net->off[n] = k;
    net->m = k;
    free(cnt);
    free(tmp);
    *out = net;
    return 0;
}

int ppr_net_from_graph(const graph *g, const ppr_weights *weights, ppr_net **out)
{
    uint32_t n = graph_nsymbols(g);
    const uint32_t *offs;
    const graph_edge *e;
    graph_csr(g, false, &offs, &e);
    size_t m = offs[n];
    ppr_edge_in *in = try_alloc(m ? m : 1, sizeof *in);
    if (!in)
        return -ENOMEM;
    /* Edge by edge, so that each of the m is visibly written; u, the
     * source, stays below n because a graph's offsets rise from 0 to m
     * (graph_open checks that of a file). */
    uint32_t u = 0;
    for (size_t i = 0; i < m; i++) {
        while (offs[u + 1] <= i)
            u++;
        in[i] = (ppr_edge_in){u, e[i].node, e[i].type, e[i].weight};
    }
    int rc = ppr_net_from_edges(n, in, m, weights, out);
    free(in);
    return rc;
}

static int load_fail(char *why, size_t whylen, const char *path, size_t line, const char *what)
{
    return core_fail(why, whylen, CORE_EFORMAT, "%s:%zu: %s", path, line, what);
}

/*
 * The net has a slot for every id up to the largest, so ids far beyond
 * what the edges use would cost memory the file does not pay for: the
 * one line "4294967293 0 calls 1" asked for tens of gigabytes (found by
 * tests/fuzz/fuzz_edges). m edges use at most 2m ids; at most this many
 * more may be left unused.
 */
#define EDGES_SPARE_IDS (1u << 20)

int ppr_net_load_edges(const char *path, ppr_net **out, char *why, size_t whylen)
{
    char *data;
    size_t len;
    int rc = core_read_file(path, (size_t)1 << 34, &data, &len);
    if (rc)
        return core_fail(why, whylen, rc, "%s: %s", path, core_strerror(rc));
    core_vec(ppr_edge_in) edges = {0};
    uint32_t maxid = 0;
    bool any = false;
    size_t line = 0, maxid_line = 0;
    char *p = data, *end = data + len;
    rc = 0;
    while (p < end && rc == 0) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        line++;
        *le = 0;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = 0;
        char *fields[5];
        int nf = 0;
        for (char *s = p; nf < 5;) {
            while (*s == ' ' || *s == '\t' || *s == '\r')
                s++;
            if (!*s)
                break;
            fields[nf++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r')
                s++;
            if (*s)
                *s++ = 0;
        }
        p = le + 1;
        if (nf == 0)
            continue;
        if (nf != 4) {
            rc =
                load_fail(why, whylen, path, line,
                          nf < 4 ? "expected 4 fields: src dst type weight" : "more than 4 fields");
            break;
        }
        ppr_edge_in e;
        char *ep;
        const char *names[2] = {"src", "dst"};
        uint32_t ids[2];
        for (int f = 0; f < 2; f++) {
            errno = 0;
            unsigned long long v = strtoull(fields[f], &ep, 10);
            if (*ep || errno || fields[f][0] == '-' || v >= UINT32_MAX - 1) {
                char msg[96];
                snprintf(msg, sizeof msg, "field %s: '%.40s' is not a node id", names[f],
                         fields[f]);
                rc = load_fail(why, whylen, path, line, msg);
                break;
            }
            ids[f] = (uint32_t)v;
        }
        if (rc)
            break;
        e.src = ids[0];
        e.dst = ids[1];
        unsigned long t = strtoul(fields[2], &ep, 10);
        if (*ep || fields[2][0] == '-') {
            /* Names match whatever their case: CALLS as calls, as the
             * weights of a profile and the --weights flag spell them. */
            t = 64;
            for (int k = 0; k < GRAPH_EDGE__COUNT; k++)
                if (strcasecmp(fields[2], graph_edge_type_name((graph_edge_type)k)) == 0)
                    t = (unsigned long)k;
        }
        if (t >= 64) {
            char msg[96];
            snprintf(msg, sizeof msg, "field type: '%.40s' is not an edge type", fields[2]);
            rc = load_fail(why, whylen, path, line, msg);
            break;
        }
        e.type = (uint8_t)t;
        double w = strtod(fields[3], &ep);
        /* Weights are kept as floats: one beyond FLT_MAX would become
         * infinite there and be refused later without its line (found by
         * tests/fuzz/fuzz_edges). */
        if (*ep || !isfinite(w) || w < 0 || w > FLT_MAX) {
            char msg[112];
            snprintf(msg, sizeof msg, "field weight: '%.40s' is not a finite float >= 0",
                     fields[3]);
            rc = load_fail(why, whylen, path, line, msg);
            break;
        }
        e.weight = (float)w;
        if (e.src > maxid || e.dst > maxid || !any) {
            maxid = e.src > e.dst ? e.src : e.dst;
            maxid_line = line;
        }
        any = true;
        core_vec_push(&edges, e);
    }
    free(data);
    if (rc == 0) {
        if (!any) {
            rc = load_fail(why, whylen, path, line, "no edges");
        } else if ((uint64_t)maxid + 1 > 2 * (uint64_t)edges.n + EDGES_SPARE_IDS) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "node id %u is too large for %zu edges (ids may leave at most %u unused)",
                     maxid, edges.n, EDGES_SPARE_IDS);
            rc = load_fail(why, whylen, path, maxid_line, msg);
        } else {
            rc = ppr_net_from_edges(maxid + 1, edges.v, edges.n, NULL, out);
            if (rc && why && whylen)
                snprintf(why, whylen, "%s: %s", path, core_strerror(rc));
        }
    }
    core_vec_free(&edges);
    return rc;
}

void ppr_net_free(ppr_net *net)
{
    if (!net)
        return;
    free(net->off);
    free(net->dst);
    free(net->prob);
    free(net->cum);
    free(net->type);
    free(net->wsum);
    free(net);
}

uint32_t ppr_net_nodes(const ppr_net *net)
{
    return net->n;
}

size_t ppr_net_edges(const ppr_net *net)
{
    return net->m;
}

uint32_t ppr_net_out(const ppr_net *net, uint32_t u, const uint32_t **dst, const float **prob,
                     const uint8_t **type)
{
    uint32_t a = net->off[u];
    if (dst)
        *dst = net->dst + a;
    if (prob)
        *prob = net->prob + a;
    if (type)
        *type = net->type + a;
    return net->off[u + 1] - a;
}

uint32_t ppr_net_hubs(const ppr_net *net, uint32_t max, uint32_t min_degree, uint32_t *out)
{
    /* Degrees as scores in a bounded heap of the best `max`. */
    ppr_entry *heap = malloc((max ? max : 1) * sizeof *heap);
    if (!heap)
        return 0;
    uint32_t h = 0;
    for (uint32_t u = 0; u < net->n; u++) {
        uint32_t deg = net->off[u + 1] - net->off[u];
        if (deg >= min_degree && deg > 0)
            ppr_heap_offer(heap, &h, max, (ppr_entry){u, (float)deg});
    }
    ppr_sort_by_score(heap, h);
    for (uint32_t i = 0; i < h; i++)
        out[i] = heap[i].node;
    free(heap);
    return h;
}

double ppr_net_weight(const ppr_net *net, uint32_t u)
{
    return net->wsum[u];
}

size_t ppr_net_bytes(const ppr_net *net)
{
    return sizeof *net + ((size_t)net->n + 1) * sizeof *net->off +
           net->m * (sizeof *net->dst + sizeof *net->prob + sizeof *net->cum + sizeof *net->type) +
           (size_t)net->n * sizeof *net->wsum;
}
