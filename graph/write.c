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

typedef struct {
    core_buf buf;
    gf_section sec[GF__SECTION_COUNT];
    uint32_t nsec;
} writer;

static void add_section(writer *w, uint32_t id, const void *data, size_t elem, size_t count)
{
    /* 8-byte alignment for every section. */
    static const char zeros[8] = {0};
    size_t pad = (8 - w->buf.len % 8) % 8;
    core_buf_append(&w->buf, zeros, pad);
    gf_section *s = &w->sec[w->nsec++];
    s->id = id;
    s->elem_size = (uint32_t)elem;
    s->offset = w->buf.len;
    s->count = count;
    if (count)
        core_buf_append(&w->buf, data, elem * count);
}

/* Builds a CSR (offsets per symbol + merged edges) from sorted edges. */
static void build_csr(const gb_edge *e, size_t n, uint32_t nsym, bool incoming, uint32_t **offs_out,
                      graph_edge **edges_out, size_t *nout)
{
    uint32_t *offs = core_xcalloc((size_t)nsym + 1, sizeof *offs);
    graph_edge *out = core_xcalloc(n ? n : 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t key = incoming ? e[i].dst : e[i].src;
        uint32_t other = incoming ? e[i].src : e[i].dst;
        float w = 0;
        size_t j = i;
        while (j < n && (incoming ? e[j].dst : e[j].src) == key && e[j].type == e[i].type &&
               (incoming ? e[j].src : e[j].dst) == other) {
            w += e[j].weight;
            j++;
        }
        graph_edge ge;
        memset(&ge, 0, sizeof ge);
        ge.node = other;
        ge.type = e[i].type;
        ge.weight = w;
        out[k++] = ge;
        offs[key + 1]++;
        i = j;
    }
    for (uint32_t s = 0; s < nsym; s++)
        offs[s + 1] += offs[s];
    *offs_out = offs;
    *edges_out = out;
    *nout = k;
}

int graph__write(gb_index *idx, gb_graph *g, const char *path)
{
    uint32_t nsym = (uint32_t)g->syms.n;
    /* Files actually in the graph, in order. */
    core_vec(gf_file) files = {0};
    gf_stats stats = {0};
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
        o.flags = (f->x->errors ? GRAPH_FF_PARTIAL : 0) |
                  (f->status == GB_DUPLICATE ? GRAPH_FF_DUPLICATE : 0);
        core_vec_push(&files, o);
        stats.files++;
        stats.files_partial += f->x->errors > 0;
        stats.files_duplicate += f->status == GB_DUPLICATE;
        stats.lines += f->lines;
    }
    stats.calls = idx->st.calls;
    stats.calls_resolved = idx->st.calls_resolved;
    stats.calls_internal = idx->st.calls_internal;
    stats.calls_internal_resolved = idx->st.calls_internal_resolved;
    uint32_t *roots = core_xcalloc(idx->roots.n + 1, sizeof *roots);
    for (size_t i = 0; i < idx->roots.n; i++)
        roots[i] = core_strtab_intern(&g->strs, idx->roots.v[i], strlen(idx->roots.v[i]));

    gf_symbol *syms = core_xcalloc((size_t)nsym + 1, sizeof *syms);
    for (uint32_t s = 0; s < nsym; s++) {
        const gb_sym *x = &g->syms.v[s];
        gf_symbol o;
        memset(&o, 0, sizeof o);
        o.name = x->name;
        o.qualname = x->qualname;
        o.file = x->file;
        o.parent = x->parent;
        o.start_line = x->start_line;
        o.end_line = x->end_line;
        o.flags = x->flags;
        o.doc = x->doc;
        o.kind = x->kind;
        syms[s] = o;
    }

    /* Edges: out and in CSR. */
    qsort(g->edges.v, g->edges.n, sizeof *g->edges.v, cmp_out);
    uint32_t *out_offs, *in_offs;
    graph_edge *out_edges, *in_edges;
    size_t nout, nin;
    build_csr(g->edges.v, g->edges.n, nsym, false, &out_offs, &out_edges, &nout);
    qsort(g->edges.v, g->edges.n, sizeof *g->edges.v, cmp_in);
    build_csr(g->edges.v, g->edges.n, nsym, true, &in_offs, &in_edges, &nin);
    idx->st.edges = nout;

    /* Emits by symbol; constant references renumbered to match. */
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
    gf_emit *emits = core_xcalloc(ne + 1, sizeof *emits);
    uint32_t *emit_offs = core_xcalloc((size_t)nsym + 1, sizeof *emit_offs);
    for (size_t i = 0; i < ne; i++) {
        const gb_emit *e = ord[i].e;
        gf_emit o;
        memset(&o, 0, sizeof o);
        o.symbol = e->symbol;
        o.line = e->line;
        o.tmpl = e->tmpl;
        o.receiver = e->receiver;
        o.method = e->method;
        o.logger = e->logger;
        o.ref = e->ref;
        o.ref_const = e->ref_const == GRAPH_NONE ? GRAPH_NONE : newpos[e->ref_const];
        o.name = e->name;
        o.nargs = e->nargs;
        o.flags = e->flags;
        o.kind = e->kind;
        o.style = e->style;
        o.level = e->level;
        emits[i] = o;
        emit_offs[e->symbol + 1]++;
    }
    for (uint32_t s = 0; s < nsym; s++)
        emit_offs[s + 1] += emit_offs[s];

    uint32_t *qidx = core_xcalloc((size_t)nsym + 1, sizeof *qidx);
    for (uint32_t s = 0; s < nsym; s++)
        qidx[s] = s;
    qsort_strs = &g->strs;
    qsort_syms = g->syms.v;
    qsort(qidx, nsym, sizeof *qidx, cmp_qname);

    writer w;
    memset(&w, 0, sizeof w);
    gf_header hdr;
    memset(&hdr, 0, sizeof hdr);
    core_buf_append(&w.buf, &hdr, sizeof hdr);
    gf_section table[GF__SECTION_COUNT];
    memset(table, 0, sizeof table);
    size_t nsections = GF__SECTION_COUNT - 1;
    core_buf_append(&w.buf, table, nsections * sizeof(gf_section));
    /* The string table ends with a NUL already (every string does). */
    add_section(&w, GF_STRTAB, g->strs.data, 1, g->strs.len);
    add_section(&w, GF_ROOTS, roots, sizeof *roots, idx->roots.n);
    add_section(&w, GF_FILES, files.v, sizeof *files.v, files.n);
    add_section(&w, GF_SYMBOLS, syms, sizeof *syms, nsym);
    add_section(&w, GF_OUT_OFFS, out_offs, sizeof *out_offs, (size_t)nsym + 1);
    add_section(&w, GF_OUT_EDGES, out_edges, sizeof *out_edges, nout);
    add_section(&w, GF_IN_OFFS, in_offs, sizeof *in_offs, (size_t)nsym + 1);
    add_section(&w, GF_IN_EDGES, in_edges, sizeof *in_edges, nin);
    add_section(&w, GF_EMITS, emits, sizeof *emits, ne);
    add_section(&w, GF_EMIT_OFFS, emit_offs, sizeof *emit_offs, (size_t)nsym + 1);
    add_section(&w, GF_QNAME_INDEX, qidx, sizeof *qidx, nsym);
    add_section(&w, GF_STATS, &stats, sizeof stats, 1);
    /* Pad the end so the file size is a multiple of 8. */
    static const char zeros[8] = {0};
    core_buf_append(&w.buf, zeros, (8 - w.buf.len % 8) % 8);

    memcpy(w.buf.data + sizeof hdr, w.sec, nsections * sizeof(gf_section));
    memcpy(hdr.magic, GF_MAGIC, sizeof GF_MAGIC);
    hdr.version = GF_VERSION;
    hdr.byte_order = GF_BYTE_ORDER;
    hdr.file_size = w.buf.len;
    hdr.nsections = (uint32_t)nsections;
    hdr.crc = core_crc32(0, w.buf.data + sizeof hdr, w.buf.len - sizeof hdr);
    memcpy(w.buf.data, &hdr, sizeof hdr);

    int err = core_write_file_atomic(path, w.buf.data, w.buf.len);

    core_buf_free(&w.buf);
    free(qidx);
    free(emit_offs);
    free(emits);
    free(newpos);
    free(ord);
    free(out_offs);
    free(in_offs);
    free(out_edges);
    free(in_edges);
    free(syms);
    free(roots);
    core_vec_free(&files);
    return err;
}
