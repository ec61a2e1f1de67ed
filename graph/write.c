/* Writing the graph file (layout in graph_int.h). */
#include "graph_int.h"

#include <stdlib.h>
#include <string.h>

static int cmp_out(const void *a, const void *b)
{
    const gb_edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    /* By weight too, so summing duplicates adds in one order whatever
     * order the threads produced them in. */
    return x->weight < y->weight ? -1 : x->weight > y->weight;
}

static int cmp_in(const void *a, const void *b)
{
    const gb_edge *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

typedef struct {
    const gb_emit *e;
    uint32_t orig;
} emit_ord;

static int cmp_emit(const void *a, const void *b)
{
    const emit_ord *x = a, *y = b;
    if (x->e->symbol != y->e->symbol)
        return x->e->symbol < y->e->symbol ? -1 : 1;
    if (x->e->line != y->e->line)
        return x->e->line < y->e->line ? -1 : 1;
    return x->orig < y->orig ? -1 : x->orig > y->orig;
}

static const core_strtab *qsort_strs; /* qsort has no context argument */
static const gb_sym *qsort_syms;

static int cmp_qname(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(qsort_strs->data + qsort_syms[x].qualname,
                   qsort_strs->data + qsort_syms[y].qualname);
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

/*
 * The file is little-endian whatever the machine: every field is stored
 * byte by byte (le32() and its kin, a plain store each on a little-endian
 * machine), in the order and at the size of the gf_* struct (or
 * graph_edge) that read.c lays over it, pads as zeros. The sections are
 * appended one after the other, each at an 8-byte boundary; the header
 * and the section table, at the front, are filled in last.
 */
typedef struct {
    core_buf buf;
    gf_section sec[GF__SECTION_COUNT];
    uint32_t nsec;
} writer;

static unsigned char *le8(unsigned char *p, uint8_t v)
{
    p[0] = v;
    return p + 1;
}

static unsigned char *le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    return p + 4;
}

static unsigned char *le64(unsigned char *p, uint64_t v)
{
    le32(p, (uint32_t)v);
    return le32(p + 4, (uint32_t)(v >> 32));
}

static unsigned char *lef32(unsigned char *p, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return le32(p, bits);
}

static unsigned char *zeros(unsigned char *p, size_t n)
{
    memset(p, 0, n);
    return p + n;
}

/* Starts section id, of count records of elem bytes each, at the next
 * 8-byte boundary; returns where its bytes go. */
static unsigned char *section_begin(writer *w, uint32_t id, size_t elem, size_t count)
{
    static const char pad[8] = {0};
    core_buf_append(&w->buf, pad, (8 - w->buf.len % 8) % 8);
    gf_section *s = &w->sec[w->nsec];
    s->id = id;
    s->elem_size = (uint32_t)elem;
    s->offset = w->buf.len;
    s->count = count;
    core_buf_reserve(&w->buf, elem * count);
    return (unsigned char *)w->buf.data + w->buf.len;
}

/* Ends the section begun last at end, which must be right after its last
 * record. */
static void section_end(writer *w, const unsigned char *end)
{
    gf_section *s = &w->sec[w->nsec++];
    size_t n = (size_t)(end - (const unsigned char *)w->buf.data) - (size_t)s->offset;
    if (n != s->count * s->elem_size)
        core_panic("graph file section %u: %zu bytes written for %llu records of %u", s->id, n,
                   (unsigned long long)s->count, s->elem_size);
    w->buf.len += n;
    w->buf.data[w->buf.len] = 0;
}

static void put_u32_section(writer *w, uint32_t id, const uint32_t *v, size_t n)
{
    unsigned char *p = section_begin(w, id, sizeof *v, n);
    for (size_t i = 0; i < n; i++)
        p = le32(p, v[i]);
    section_end(w, p);
}

/* The files that were extracted, in order, with their paths interned,
 * and the statistics over them. */
static gf_file *collect_files(gb_index *idx, gb_graph *g, size_t *nfiles, gf_stats *stats)
{
    gf_file *files = core_xcalloc(idx->files.n + 1, sizeof *files);
    size_t n = 0;
    memset(stats, 0, sizeof *stats);
    for (size_t i = 0; i < idx->files.n; i++) {
        const gb_file *f = &idx->files.v[i];
        if (!f->x)
            continue;
        gf_file o = {0};
        o.path = core_strtab_intern(&g->strs, f->rel, strlen(f->rel));
        o.lang = f->lang;
        o.module = f->module_sym;
        o.lines = f->lines;
        o.calls = f->calls;
        o.calls_resolved = f->calls_resolved;
        o.role = f->role;
        o.flags = (f->x->errors ? GRAPH_FF_PARTIAL : 0) |
                  (f->status == GB_DUPLICATE ? GRAPH_FF_DUPLICATE : 0);
        files[n++] = o;
        stats->files++;
        stats->files_partial += f->x->errors > 0;
        stats->files_duplicate += f->status == GB_DUPLICATE;
        stats->lines += f->lines;
    }
    stats->calls = idx->st.calls;
    stats->calls_resolved = idx->st.calls_resolved;
    stats->calls_internal = idx->st.calls_internal;
    stats->calls_internal_resolved = idx->st.calls_internal_resolved;
    *nfiles = n;
    return files;
}

static void put_files(writer *w, const gf_file *files, size_t n)
{
    unsigned char *p = section_begin(w, GF_FILES, sizeof(gf_file), n);
    for (size_t i = 0; i < n; i++) {
        const gf_file *f = &files[i];
        p = le32(p, f->path);
        p = le32(p, f->lang);
        p = le32(p, f->module);
        p = le32(p, f->lines);
        p = le32(p, f->calls);
        p = le32(p, f->calls_resolved);
        p = le32(p, f->flags);
        p = le32(p, f->role);
    }
    section_end(w, p);
}

static void put_symbols(writer *w, const gb_graph *g)
{
    unsigned char *p = section_begin(w, GF_SYMBOLS, sizeof(gf_symbol), g->syms.n);
    for (size_t s = 0; s < g->syms.n; s++) {
        const gb_sym *x = &g->syms.v[s];
        p = le32(p, x->name);
        p = le32(p, x->qualname);
        p = le32(p, x->file);
        p = le32(p, x->parent);
        p = le32(p, x->start_line);
        p = le32(p, x->end_line);
        p = le32(p, x->flags);
        p = le32(p, x->doc);
        p = le8(p, x->kind);
        p = zeros(p, 3);
    }
    section_end(w, p);
}

/* One direction of the edges as a CSR: the offsets per symbol, then the
 * edges, duplicates merged. e is sorted by key (cmp_out or cmp_in). */
static size_t put_csr(writer *w, const gb_edge *e, size_t n, uint32_t nsym, bool incoming)
{
    uint32_t *offs = core_xcalloc((size_t)nsym + 1, sizeof *offs);
    graph_edge *out = core_xcalloc(n ? n : 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t key = incoming ? e[i].dst : e[i].src;
        uint32_t other = incoming ? e[i].src : e[i].dst;
        float wt = 0;
        size_t j = i;
        while (j < n && (incoming ? e[j].dst : e[j].src) == key && e[j].type == e[i].type &&
               (incoming ? e[j].src : e[j].dst) == other) {
            wt += e[j].weight;
            j++;
        }
        out[k].node = other;
        out[k].type = e[i].type;
        out[k].weight = wt;
        k++;
        offs[key + 1]++;
        i = j;
    }
    for (uint32_t s = 0; s < nsym; s++)
        offs[s + 1] += offs[s];
    put_u32_section(w, incoming ? GF_IN_OFFS : GF_OUT_OFFS, offs, (size_t)nsym + 1);
    unsigned char *p = section_begin(w, incoming ? GF_IN_EDGES : GF_OUT_EDGES, sizeof *out, k);
    for (size_t i = 0; i < k; i++) {
        p = le32(p, out[i].node);
        p = le8(p, out[i].type);
        p = zeros(p, 3);
        p = lef32(p, out[i].weight);
    }
    section_end(w, p);
    free(out);
    free(offs);
    return k;
}

/* Out-edges, then in-edges; returns the number of out-edges (merged). */
static size_t put_edges(writer *w, gb_graph *g)
{
    uint32_t nsym = (uint32_t)g->syms.n;
    qsort(g->edges.v, g->edges.n, sizeof *g->edges.v, cmp_out);
    size_t nout = put_csr(w, g->edges.v, g->edges.n, nsym, false);
    qsort(g->edges.v, g->edges.n, sizeof *g->edges.v, cmp_in);
    put_csr(w, g->edges.v, g->edges.n, nsym, true);
    return nout;
}

/* Emits by symbol, their constant references renumbered to match, and
 * the offsets of each symbol's emits. Returns each emit's new number
 * (the caller frees it). */
static uint32_t *put_emits(writer *w, const gb_graph *g)
{
    uint32_t nsym = (uint32_t)g->syms.n;
    size_t ne = g->emits.n;
    emit_ord *ord = core_xcalloc(ne + 1, sizeof *ord);
    for (size_t i = 0; i < ne; i++) {
        ord[i].e = &g->emits.v[i];
        ord[i].orig = (uint32_t)i;
    }
    qsort(ord, ne, sizeof *ord, cmp_emit);
    uint32_t *newpos = core_xcalloc(ne + 1, sizeof *newpos);
    for (size_t i = 0; i < ne; i++)
        newpos[ord[i].orig] = (uint32_t)i;
    uint32_t *offs = core_xcalloc((size_t)nsym + 1, sizeof *offs);
    unsigned char *p = section_begin(w, GF_EMITS, sizeof(gf_emit), ne);
    for (size_t i = 0; i < ne; i++) {
        const gb_emit *e = ord[i].e;
        p = le32(p, e->symbol);
        p = le32(p, e->line);
        p = le32(p, e->tmpl);
        p = le32(p, e->receiver);
        p = le32(p, e->method);
        p = le32(p, e->logger);
        p = le32(p, e->ref);
        p = le32(p, e->ref_const == GRAPH_NONE ? GRAPH_NONE : newpos[e->ref_const]);
        p = le32(p, e->name);
        p = le32(p, e->nargs);
        p = le32(p, e->flags);
        p = le8(p, e->kind);
        p = le8(p, e->style);
        p = le8(p, e->level);
        p = zeros(p, 1);
        offs[e->symbol + 1]++;
    }
    section_end(w, p);
    for (uint32_t s = 0; s < nsym; s++)
        offs[s + 1] += offs[s];
    put_u32_section(w, GF_EMIT_OFFS, offs, (size_t)nsym + 1);
    free(offs);
    free(ord);
    return newpos;
}

static int cmp_next(const void *a, const void *b)
{
    const gb_next *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* The successor model: per emit (numbered as in the file), the emits that
 * can come next, by emit. */
static void put_next(writer *w, const gb_graph *g, const uint32_t *newpos)
{
    size_t ne = g->emits.n, n = g->next.n;
    gb_next *v = core_xmalloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (gb_next){newpos[g->next.v[i].src], newpos[g->next.v[i].dst], g->next.v[i].weight};
    qsort(v, n, sizeof *v, cmp_next);
    uint32_t *offs = core_xcalloc(ne + 1, sizeof *offs);
    for (size_t i = 0; i < n; i++)
        offs[v[i].src + 1]++;
    for (size_t e = 0; e < ne; e++)
        offs[e + 1] += offs[e];
    put_u32_section(w, GF_NEXT_OFFS, offs, ne + 1);
    unsigned char *p = section_begin(w, GF_NEXT_SITES, sizeof(graph_next), n);
    for (size_t i = 0; i < n; i++) {
        p = le32(p, v[i].dst);
        p = lef32(p, v[i].weight);
    }
    section_end(w, p);
    free(offs);
    free(v);
}

/* Symbol ids sorted by qualified name (graph_find's binary search). */
static void put_qname_index(writer *w, const gb_graph *g)
{
    uint32_t nsym = (uint32_t)g->syms.n;
    uint32_t *qidx = core_xcalloc((size_t)nsym + 1, sizeof *qidx);
    for (uint32_t s = 0; s < nsym; s++)
        qidx[s] = s;
    qsort_strs = &g->strs;
    qsort_syms = g->syms.v;
    qsort(qidx, nsym, sizeof *qidx, cmp_qname);
    put_u32_section(w, GF_QNAME_INDEX, qidx, nsym);
    free(qidx);
}

static int cmp_lit(const void *a, const void *b)
{
    const gb_lit *x = a, *y = b;
    int c = x->text == y->text ? 0 : strcmp(qsort_strs->data + x->text, qsort_strs->data + y->text);
    if (c)
        return c;
    return x->symbol < y->symbol ? -1 : x->symbol > y->symbol;
}

/* The value literals by text, then symbol, each pair once (graph_literal's
 * binary search). */
static void put_lits(writer *w, const gb_graph *g)
{
    size_t n = g->lits.n, k = 0;
    gb_lit *v = core_xmalloc((n ? n : 1) * sizeof *v);
    if (n)
        memcpy(v, g->lits.v, n * sizeof *v);
    qsort_strs = &g->strs;
    qsort(v, n, sizeof *v, cmp_lit);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || cmp_lit(&v[k - 1], &v[i]) != 0)
            v[k++] = v[i];
    unsigned char *p = section_begin(w, GF_LITERALS, sizeof(gf_lit), k);
    for (size_t i = 0; i < k; i++) {
        p = le32(p, v[i].text);
        p = le32(p, v[i].symbol);
    }
    section_end(w, p);
    free(v);
}

static void put_stats(writer *w, const gf_stats *st)
{
    unsigned char *p = section_begin(w, GF_STATS, sizeof *st, 1);
    p = le64(p, st->files);
    p = le64(p, st->files_partial);
    p = le64(p, st->files_duplicate);
    p = le64(p, st->lines);
    p = le64(p, st->calls);
    p = le64(p, st->calls_resolved);
    p = le64(p, st->calls_internal);
    p = le64(p, st->calls_internal_resolved);
    section_end(w, p);
}

/* Fills in the section table, then the header, whose checksum covers the
 * table. */
static void put_front(writer *w)
{
    unsigned char *p = (unsigned char *)w->buf.data + sizeof(gf_header);
    for (uint32_t i = 0; i < w->nsec; i++) {
        p = le32(p, w->sec[i].id);
        p = le32(p, w->sec[i].elem_size);
        p = le64(p, w->sec[i].offset);
        p = le64(p, w->sec[i].count);
    }
    const unsigned char *body = (const unsigned char *)w->buf.data + sizeof(gf_header);
    uint32_t crc = core_crc32(0, body, w->buf.len - sizeof(gf_header));
    p = (unsigned char *)w->buf.data;
    memcpy(p, GF_MAGIC, sizeof GF_MAGIC);
    p = le32(p + sizeof GF_MAGIC, GF_VERSION);
    p = le32(p, GF_BYTE_ORDER);
    p = le64(p, w->buf.len);
    p = le32(p, w->nsec);
    p = le32(p, crc);
    zeros(p, 32); /* reserved */
}

int graph__write(gb_index *idx, gb_graph *g, const char *path)
{
    size_t nfiles;
    gf_stats stats;
    gf_file *files = collect_files(idx, g, &nfiles, &stats);
    uint32_t *roots = core_xcalloc(idx->roots.n + 1, sizeof *roots);
    for (size_t i = 0; i < idx->roots.n; i++)
        roots[i] = core_strtab_intern(&g->strs, idx->roots.v[i], strlen(idx->roots.v[i]));

    writer w;
    memset(&w, 0, sizeof w);
    /* Room for the header and a table of every section. */
    size_t front = sizeof(gf_header) + (GF__SECTION_COUNT - 1) * sizeof(gf_section);
    core_buf_reserve(&w.buf, front);
    zeros((unsigned char *)w.buf.data, front);
    w.buf.len = front;
    w.buf.data[front] = 0;
    /* Every string is interned by now. The table ends with a NUL already
     * (every string does). */
    unsigned char *p = section_begin(&w, GF_STRTAB, 1, g->strs.len);
    if (g->strs.len)
        memcpy(p, g->strs.data, g->strs.len);
    section_end(&w, p + g->strs.len);
    put_u32_section(&w, GF_ROOTS, roots, idx->roots.n);
    put_files(&w, files, nfiles);
    put_symbols(&w, g);
    idx->st.edges = put_edges(&w, g);
    uint32_t *newpos = put_emits(&w, g);
    put_next(&w, g, newpos);
    free(newpos);
    put_qname_index(&w, g);
    put_lits(&w, g);
    put_stats(&w, &stats);
    /* Pad the end so the file size is a multiple of 8. */
    static const char pad[8] = {0};
    core_buf_append(&w.buf, pad, (8 - w.buf.len % 8) % 8);
    put_front(&w);

    int err = core_write_file_atomic(path, w.buf.data, w.buf.len);
    core_buf_free(&w.buf);
    free(roots);
    free(files);
    return err;
}
