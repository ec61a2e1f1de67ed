/*
 * Reading the graph file: map it, check it, answer from the mapping.
 *
 * graph_open() trusts nothing: sizes, offsets, indexes and string offsets
 * are all checked once, so the accessors can index without checks. A
 * corrupted or hostile file is rejected with the reason.
 *
 * The file is little-endian (graph_int.h). The header and the section
 * table are decoded field by field; the sections are then used in place,
 * through the gf_* structs, which reads them right on a little-endian
 * machine only. A big-endian one refuses every graph file (CORE_EENDIAN)
 * rather than reading it wrong: byte-swapping would mean a copy of the
 * whole file, and the promise that opening parses nothing.
 */
#include "graph_int.h"

#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_header) == 64, "graph file header is 64 bytes");
_Static_assert(sizeof(gf_section) == 24, "section entries are 24 bytes");
_Static_assert(sizeof(graph_edge) == 12, "edges are 12 bytes");
_Static_assert(sizeof(gf_symbol) == 36, "symbols are 36 bytes");
_Static_assert(sizeof(gf_emit) == 48, "emits are 48 bytes");
_Static_assert(sizeof(gf_file) == 32, "files are 32 bytes");
_Static_assert(sizeof(graph_next) == 8, "successors are 8 bytes");

struct graph {
    core_mmap map;
    bool copied; /* map.data is a copy of the file (graph_load), not a mapping */
    const char *strs;
    size_t nstrs;
    const uint32_t *roots;
    uint32_t nroots;
    const gf_file *files;
    uint32_t nfiles;
    const gf_symbol *syms;
    uint32_t nsyms;
    const uint32_t *out_offs, *in_offs, *emit_offs, *qidx;
    const graph_edge *out_edges, *in_edges;
    uint32_t nout, nin;
    const gf_emit *emits;
    uint32_t nemits;
    const gf_stats *stats;
    /* The successor model; NULL offsets in a version 2 file. */
    const uint32_t *next_offs;
    const graph_next *next;
    uint32_t nnext;
    /* Value literals by text; none before version 4. */
    const gf_lit *lits;
    uint32_t nlits;
};

static bool str_ok(const graph *g, uint32_t off)
{
    return off < g->nstrs;
}

static int validate(graph *g, char *why, size_t whylen)
{
#define BAD(...) return core_fail(why, whylen, CORE_ECORRUPT, __VA_ARGS__)
    if (g->nstrs == 0 || g->strs[0] != 0 || g->strs[g->nstrs - 1] != 0)
        BAD("string table is not NUL-terminated");
    for (uint32_t i = 0; i < g->nroots; i++)
        if (!str_ok(g, g->roots[i]))
            BAD("root %u: string offset out of range", i);
    for (uint32_t i = 0; i < g->nfiles; i++) {
        const gf_file *f = &g->files[i];
        if (!str_ok(g, f->path) || f->lang >= GRAPH_LANG__COUNT || f->module >= g->nsyms)
            BAD("file %u: bad path, language or module", i);
    }
    for (uint32_t i = 0; i < g->nsyms; i++) {
        const gf_symbol *s = &g->syms[i];
        if (!str_ok(g, s->name) || !str_ok(g, s->qualname) || !str_ok(g, s->doc))
            BAD("symbol %u: string offset out of range", i);
        if (s->kind >= GRAPH_SYM__COUNT || s->file >= g->nfiles)
            BAD("symbol %u: bad kind or file", i);
        if (s->parent != GRAPH_NONE && s->parent >= i)
            BAD("symbol %u: parent %u does not come before it", i, s->parent);
        if ((s->parent == GRAPH_NONE) != (s->kind == GRAPH_SYM_MODULE))
            BAD("symbol %u: only modules have no parent", i);
        if (s->start_line > s->end_line)
            BAD("symbol %u: line span %u-%u is reversed", i, s->start_line, s->end_line);
    }
    const uint32_t *offs[3] = {g->out_offs, g->in_offs, g->emit_offs};
    uint32_t limits[3] = {g->nout, g->nin, g->nemits};
    static const char *const names[3] = {"out-edge", "in-edge", "emit"};
    for (int k = 0; k < 3; k++) {
        if (offs[k][0] != 0 || offs[k][g->nsyms] != limits[k])
            BAD("%s offsets do not cover the %s list", names[k], names[k]);
        for (uint32_t i = 0; i < g->nsyms; i++)
            if (offs[k][i] > offs[k][i + 1])
                BAD("%s offsets decrease at symbol %u", names[k], i);
    }
    const graph_edge *lists[2] = {g->out_edges, g->in_edges};
    uint32_t counts[2] = {g->nout, g->nin};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < counts[k]; i++)
            if (lists[k][i].node >= g->nsyms || lists[k][i].type >= GRAPH_EDGE__COUNT ||
                !(lists[k][i].weight >= 0.0f && lists[k][i].weight <= FLT_MAX))
                BAD("%s %u: bad node, type or weight", names[k], i);
    for (uint32_t i = 0; i < g->nemits; i++) {
        const gf_emit *e = &g->emits[i];
        if (e->symbol >= g->nsyms || e->kind >= GRAPH_EMIT__COUNT ||
            e->style >= GRAPH_STYLE__COUNT || e->level >= GRAPH_LEVEL__COUNT)
            BAD("emit %u: bad symbol, kind, style or level", i);
        if (!str_ok(g, e->tmpl) || !str_ok(g, e->receiver) || !str_ok(g, e->method) ||
            !str_ok(g, e->logger) || !str_ok(g, e->ref) || !str_ok(g, e->name))
            BAD("emit %u: string offset out of range", i);
        if (e->ref_const != GRAPH_NONE && e->ref_const >= g->nemits)
            BAD("emit %u: constant reference out of range", i);
        if (i < g->emit_offs[e->symbol] || i >= g->emit_offs[e->symbol + 1])
            BAD("emit %u: not in its symbol's range", i);
    }
    if (g->next_offs) {
        if (g->next_offs[0] != 0 || g->next_offs[g->nemits] != g->nnext)
            BAD("successor offsets do not cover the successor list");
        for (uint32_t i = 0; i < g->nemits; i++)
            if (g->next_offs[i] > g->next_offs[i + 1])
                BAD("successor offsets decrease at emit %u", i);
        for (uint32_t i = 0; i < g->nnext; i++)
            if (g->next[i].emit >= g->nemits ||
                !(g->next[i].weight >= 0.0f && g->next[i].weight <= 1.0f))
                BAD("successor %u: bad emit or weight", i);
    }
    for (uint32_t i = 0; i < g->nlits; i++) {
        if (!str_ok(g, g->lits[i].text) || g->lits[i].symbol >= g->nsyms)
            BAD("value literal %u: string offset or symbol out of range", i);
        if (i > 0 && strcmp(g->strs + g->lits[i - 1].text, g->strs + g->lits[i].text) > 0)
            BAD("value literal %u: not in order", i);
    }
    /* The qualified-name index must be a permutation. */
    uint8_t *seen = calloc(g->nsyms ? g->nsyms : 1, 1);
    if (!seen)
        return -ENOMEM;
    for (uint32_t i = 0; i < g->nsyms; i++) {
        uint32_t s = g->qidx[i];
        if (s >= g->nsyms || seen[s]) {
            free(seen);
            BAD("qualified-name index entry %u is invalid", i);
        }
        seen[s] = 1;
    }
    free(seen);
    return 0;
#undef BAD
}

/* The header and a section table entry, from their little-endian fields. */
static void get_header(const unsigned char *p, gf_header *h)
{
    memcpy(h->magic, p, sizeof h->magic);
    h->version = (uint32_t)core_get_le(p + 8, 4);
    h->byte_order = (uint32_t)core_get_le(p + 12, 4);
    h->file_size = core_get_le(p + 16, 8);
    h->nsections = (uint32_t)core_get_le(p + 24, 4);
    h->crc = (uint32_t)core_get_le(p + 28, 4);
    memcpy(h->reserved, p + 32, sizeof h->reserved);
}

static void get_section(const unsigned char *p, gf_section *s)
{
    s->id = (uint32_t)core_get_le(p, 4);
    s->elem_size = (uint32_t)core_get_le(p + 4, 4);
    s->offset = core_get_le(p + 8, 8);
    s->count = core_get_le(p + 16, 8);
}

/* The sections are used in place as gf_* structs over little-endian
 * bytes, which reads them right on a little-endian machine only. */
static bool host_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Checks the header of the size bytes at base: a graph file, little-endian,
 * of this version, whole, with the section table in bounds and the
 * checksum right. */
static int check_header(const unsigned char *base, size_t size, gf_header *h, char *why,
                        size_t whylen)
{
    if (size < sizeof *h)
        return core_fail(why, whylen, CORE_EFORMAT, "not a pmrag graph file (too short)");
    get_header(base, h);
    if (memcmp(h->magic, GF_MAGIC, sizeof GF_MAGIC) != 0)
        return core_fail(why, whylen, CORE_EFORMAT, "not a pmrag graph file (bad magic)");
    if (h->byte_order != GF_BYTE_ORDER)
        return core_fail(why, whylen, CORE_EENDIAN,
                         "graph file is not little-endian (written on a big-endian machine by an "
                         "older pmrag); re-index");
    if (!host_little_endian())
        return core_fail(why, whylen, CORE_EENDIAN,
                         "graph files are little-endian and read in place: this machine is "
                         "big-endian");
    if (h->version < GF_VERSION_MIN || h->version > GF_VERSION)
        return core_fail(why, whylen, CORE_EVERSION,
                         "graph file format version %u, this pmrag reads versions %u to %u; "
                         "re-index",
                         h->version, GF_VERSION_MIN, GF_VERSION);
    if (h->file_size != size)
        return core_fail(why, whylen, CORE_ECORRUPT,
                         "graph file is %zu bytes, its header says %llu (truncated?)", size,
                         (unsigned long long)h->file_size);
    if (h->nsections == 0 || h->nsections > GF_MAX_SECTIONS ||
        sizeof *h + (size_t)h->nsections * sizeof(gf_section) > size)
        return core_fail(why, whylen, CORE_ECORRUPT, "graph file section table is invalid");
    if (core_crc32(0, base + sizeof *h, size - sizeof *h) != h->crc)
        return core_fail(why, whylen, CORE_ECORRUPT, "graph file checksum mismatch (corrupted)");
    return 0;
}

/* Finds every section: each id once, in bounds, aligned, of the expected
 * size; ptr[id] and cnt[id] say where it is and how many records it has.
 * A version 2 file has no successor sections. */
static int find_sections(const unsigned char *base, size_t size, const gf_header *h,
                         const void **ptr, uint64_t *cnt, char *why, size_t whylen)
{
    static const uint32_t elem[GF__SECTION_COUNT] = {
        [GF_STRTAB] = 1,
        [GF_ROOTS] = 4,
        [GF_FILES] = sizeof(gf_file),
        [GF_SYMBOLS] = sizeof(gf_symbol),
        [GF_OUT_OFFS] = 4,
        [GF_OUT_EDGES] = sizeof(graph_edge),
        [GF_IN_OFFS] = 4,
        [GF_IN_EDGES] = sizeof(graph_edge),
        [GF_EMITS] = sizeof(gf_emit),
        [GF_EMIT_OFFS] = 4,
        [GF_QNAME_INDEX] = 4,
        [GF_STATS] = sizeof(gf_stats),
        [GF_NEXT_OFFS] = 4,
        [GF_NEXT_SITES] = sizeof(graph_next),
        [GF_LITERALS] = sizeof(gf_lit),
    };
    for (uint32_t i = 0; i < h->nsections; i++) {
        gf_section s;
        get_section(base + sizeof *h + i * sizeof s, &s);
        if (s.id == 0 || s.id >= GF__SECTION_COUNT) {
            /* Sections of a later minor revision are skipped. */
            continue;
        }
        if (ptr[s.id] || s.elem_size != elem[s.id] || s.offset % 8 != 0 || s.offset > size ||
            s.count > (size - s.offset) / s.elem_size)
            return core_fail(why, whylen, CORE_ECORRUPT, "graph file section %u is invalid", s.id);
        ptr[s.id] = base + s.offset;
        cnt[s.id] = s.count;
    }
    for (uint32_t id = 1; id < GF__SECTION_COUNT; id++) {
        uint32_t since = id == GF_NEXT_OFFS || id == GF_NEXT_SITES ? 3 : id == GF_LITERALS ? 4 : 0;
        if (!ptr[id] && h->version >= since)
            return core_fail(why, whylen, CORE_ECORRUPT, "graph file lacks section %u", id);
        if (ptr[id] && h->version < since)
            return core_fail(why, whylen, CORE_ECORRUPT, "graph file of version %u has section %u",
                             h->version, id);
    }
    if (cnt[GF_SYMBOLS] >= UINT32_MAX || cnt[GF_OUT_EDGES] >= UINT32_MAX ||
        cnt[GF_IN_EDGES] >= UINT32_MAX || cnt[GF_EMITS] >= UINT32_MAX ||
        cnt[GF_STRTAB] >= UINT32_MAX || cnt[GF_STATS] != 1 || cnt[GF_NEXT_SITES] >= UINT32_MAX ||
        cnt[GF_LITERALS] >= UINT32_MAX)
        return core_fail(why, whylen, CORE_ECORRUPT, "graph file section sizes are invalid");
    return 0;
}

/* Points g at the sections found; the per-symbol tables must have one
 * entry per symbol (plus one, for offsets). */
static int use_sections(graph *g, const void *const *ptr, const uint64_t *cnt, char *why,
                        size_t whylen)
{
    g->strs = ptr[GF_STRTAB];
    g->nstrs = cnt[GF_STRTAB];
    g->roots = ptr[GF_ROOTS];
    g->nroots = (uint32_t)cnt[GF_ROOTS];
    g->files = ptr[GF_FILES];
    g->nfiles = (uint32_t)cnt[GF_FILES];
    g->syms = ptr[GF_SYMBOLS];
    g->nsyms = (uint32_t)cnt[GF_SYMBOLS];
    g->out_offs = ptr[GF_OUT_OFFS];
    g->out_edges = ptr[GF_OUT_EDGES];
    g->nout = (uint32_t)cnt[GF_OUT_EDGES];
    g->in_offs = ptr[GF_IN_OFFS];
    g->in_edges = ptr[GF_IN_EDGES];
    g->nin = (uint32_t)cnt[GF_IN_EDGES];
    g->emits = ptr[GF_EMITS];
    g->nemits = (uint32_t)cnt[GF_EMITS];
    g->emit_offs = ptr[GF_EMIT_OFFS];
    g->qidx = ptr[GF_QNAME_INDEX];
    g->stats = ptr[GF_STATS];
    g->next_offs = ptr[GF_NEXT_OFFS];
    g->next = ptr[GF_NEXT_SITES];
    g->nnext = (uint32_t)cnt[GF_NEXT_SITES];
    g->lits = ptr[GF_LITERALS];
    g->nlits = (uint32_t)cnt[GF_LITERALS];
    if (cnt[GF_OUT_OFFS] != (uint64_t)g->nsyms + 1 || cnt[GF_IN_OFFS] != (uint64_t)g->nsyms + 1 ||
        cnt[GF_EMIT_OFFS] != (uint64_t)g->nsyms + 1 || cnt[GF_QNAME_INDEX] != g->nsyms ||
        (g->next_offs && cnt[GF_NEXT_OFFS] != (uint64_t)g->nemits + 1))
        return core_fail(why, whylen, CORE_ECORRUPT,
                         "graph file index sizes do not match the symbols");
    return 0;
}

/* The checks and the section pointers over g->map, whose memory g owns
 * from here: on failure it is released with g. */
static int graph_check(graph *g, graph **out, char *why, size_t whylen)
{
    const unsigned char *base = g->map.data;
    gf_header h;
    memset(&h, 0, sizeof h);
    const void *ptr[GF__SECTION_COUNT] = {0};
    uint64_t cnt[GF__SECTION_COUNT] = {0};
    int err = check_header(base, g->map.size, &h, why, whylen);
    if (!err)
        err = find_sections(base, g->map.size, &h, ptr, cnt, why, whylen);
    if (!err)
        err = use_sections(g, ptr, cnt, why, whylen);
    if (!err)
        err = validate(g, why, whylen);
    if (err) {
        graph_close(g);
        return err;
    }
    *out = g;
    return 0;
}

int graph_open(const char *path, graph **out, char *why, size_t whylen)
{
    graph *g = core_xcalloc(1, sizeof *g);
    int err = core_mmap_open(path, &g->map);
    if (err) {
        free(g);
        return core_fail(why, whylen, err, "%s", core_strerror(err));
    }
    return graph_check(g, out, why, whylen);
}

int graph_load(const char *path, graph **out, char *why, size_t whylen)
{
    char *data;
    size_t len;
    int err = core_read_file(path, SIZE_MAX - 1, &data, &len);
    if (err)
        return core_fail(why, whylen, err, "%s", core_strerror(err));
    graph *g = core_xcalloc(1, sizeof *g);
    g->map.data = data;
    g->map.size = len;
    g->copied = true;
    return graph_check(g, out, why, whylen);
}

void graph_close(graph *g)
{
    if (!g)
        return;
    if (g->copied)
        free((void *)g->map.data);
    else
        core_mmap_close(&g->map);
    free(g);
}

size_t graph_bytes(const graph *g)
{
    return sizeof *g + g->map.size;
}

uint32_t graph_nsymbols(const graph *g)
{
    return g->nsyms;
}

uint64_t graph_file_hash(const graph *g)
{
    return core_hash64(g->map.data, g->map.size, 0x67726170682d76ull);
}

uint32_t graph_nfiles(const graph *g)
{
    return g->nfiles;
}

uint32_t graph_nemits(const graph *g)
{
    return g->nemits;
}

uint32_t graph_nroots(const graph *g)
{
    return g->nroots;
}

const char *graph_root(const graph *g, uint32_t i)
{
    return g->strs + g->roots[i];
}

void graph_get_symbol(const graph *g, uint32_t id, graph_symbol *out)
{
    const gf_symbol *s = &g->syms[id];
    out->kind = (graph_sym_kind)s->kind;
    out->flags = s->flags;
    out->name = g->strs + s->name;
    out->qualname = g->strs + s->qualname;
    out->file_id = s->file;
    out->file = g->strs + g->files[s->file].path;
    out->start_line = s->start_line;
    out->end_line = s->end_line;
    out->parent = s->parent;
    out->doc = g->strs + s->doc;
}

void graph_get_file(const graph *g, uint32_t id, graph_file_info *out)
{
    const gf_file *f = &g->files[id];
    out->path = g->strs + f->path;
    out->lang = (graph_lang)f->lang;
    out->module = f->module;
    out->lines = f->lines;
    out->calls = f->calls;
    out->calls_resolved = f->calls_resolved;
    out->flags = f->flags;
    out->role = f->role < GRAPH_ROLE__COUNT ? (graph_role)f->role : GRAPH_ROLE_PRODUCT;
}

void graph_get_emit(const graph *g, uint32_t id, graph_emit *out)
{
    const gf_emit *e = &g->emits[id];
    out->kind = (graph_emit_kind)e->kind;
    out->style = (graph_style)e->style;
    out->level = (graph_level)e->level;
    out->flags = e->flags;
    out->symbol = e->symbol;
    out->line = e->line;
    out->tmpl = g->strs + e->tmpl;
    out->receiver = g->strs + e->receiver;
    out->method = g->strs + e->method;
    out->logger = g->strs + e->logger;
    out->ref = g->strs + e->ref;
    out->ref_const = e->ref_const;
    out->name = g->strs + e->name;
    out->nargs = e->nargs;
}

const graph_edge *graph_out_edges(const graph *g, uint32_t id, uint32_t *count)
{
    *count = g->out_offs[id + 1] - g->out_offs[id];
    return g->out_edges + g->out_offs[id];
}

const graph_edge *graph_in_edges(const graph *g, uint32_t id, uint32_t *count)
{
    *count = g->in_offs[id + 1] - g->in_offs[id];
    return g->in_edges + g->in_offs[id];
}

void graph_csr(const graph *g, bool incoming, const uint32_t **offs, const graph_edge **edges)
{
    *offs = incoming ? g->in_offs : g->out_offs;
    *edges = incoming ? g->in_edges : g->out_edges;
}

uint32_t graph_symbol_emits(const graph *g, uint32_t id, uint32_t *first)
{
    *first = g->emit_offs[id];
    return g->emit_offs[id + 1] - g->emit_offs[id];
}

const graph_next *graph_next_sites(const graph *g, uint32_t emit, uint32_t *count)
{
    if (!g->next_offs) {
        *count = 0;
        return NULL;
    }
    *count = g->next_offs[emit + 1] - g->next_offs[emit];
    return g->next + g->next_offs[emit];
}

uint32_t graph_nliterals(const graph *g)
{
    return g->nlits;
}

const char *graph_literal_at(const graph *g, uint32_t i, uint32_t *sym)
{
    if (sym)
        *sym = g->lits[i].symbol;
    return g->strs + g->lits[i].text;
}

uint32_t graph_emit_callee(const graph *g, uint32_t emit)
{
    graph_emit e;
    graph_get_emit(g, emit, &e);
    if (e.kind != GRAPH_EMIT_CALL || e.symbol == GRAPH_NONE)
        return GRAPH_NONE;
    uint32_t n, found = GRAPH_NONE;
    const graph_edge *ed = graph_out_edges(g, e.symbol, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (ed[i].type != GRAPH_EDGE_CALLS || ed[i].node == found)
            continue;
        graph_symbol s;
        graph_get_symbol(g, ed[i].node, &s);
        if (strcmp(s.name, e.method) != 0)
            continue;
        if (found != GRAPH_NONE)
            return GRAPH_NONE; /* two functions of that name: no telling which */
        found = ed[i].node;
    }
    return found;
}

const char *graph_emit_maker(const graph *g, const graph_emit *e)
{
    if (strcmp(e->method, "__init__") != 0 && strcmp(e->method, "constructor") != 0)
        return e->method;
    graph_symbol s, c;
    graph_get_symbol(g, e->symbol, &s);
    if (s.parent == GRAPH_NONE)
        return e->method;
    graph_get_symbol(g, s.parent, &c);
    return c.name;
}

/* Does qualname end with name on a '.' or '/' boundary? */
static bool suffix_match(const char *q, const char *name)
{
    size_t ql = strlen(q), nl = strlen(name);
    if (nl >= ql || nl == 0)
        return false;
    char c = q[ql - nl - 1];
    return (c == '.' || c == '/') && memcmp(q + ql - nl, name, nl) == 0;
}

uint32_t graph_find(const graph *g, const char *name, uint32_t *ids, uint32_t max)
{
    /* Exact: binary search for the first qualname >= name. */
    uint32_t lo = 0, hi = g->nsyms;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(g->strs + g->syms[g->qidx[mid]].qualname, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t n = 0;
    for (uint32_t i = lo; i < g->nsyms && strcmp(g->strs + g->syms[g->qidx[i]].qualname, name) == 0;
         i++) {
        if (n < max)
            ids[n] = g->qidx[i];
        n++;
    }
    if (n)
        return n;
    for (uint32_t s = 0; s < g->nsyms; s++) {
        if (suffix_match(g->strs + g->syms[s].qualname, name)) {
            if (n < max)
                ids[n] = s;
            n++;
        }
    }
    return n;
}

void graph_get_stats(const graph *g, graph_stats *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < g->nsyms; i++)
        out->symbols_by_kind[g->syms[i].kind]++;
    for (uint32_t i = 0; i < g->nout; i++)
        out->edges_by_type[g->out_edges[i].type]++;
    for (uint32_t i = 0; i < g->nemits; i++) {
        out->emits_by_kind[g->emits[i].kind]++;
        out->emits_by_style[g->emits[i].style]++;
    }
    for (uint32_t i = 0; i < g->nfiles; i++) {
        const gf_file *f = &g->files[i];
        out->files_by_lang[f->lang]++;
        graph_role r = f->role < GRAPH_ROLE__COUNT ? (graph_role)f->role : GRAPH_ROLE_PRODUCT;
        out->files_by_role[r]++;
        out->lines_by_role[r] += f->lines;
    }
    out->next_sites = g->nnext;
    out->value_literals = g->nlits;
    for (uint32_t i = 0; g->next_offs && i < g->nemits; i++)
        out->emits_with_next += g->next_offs[i + 1] > g->next_offs[i];
    out->files = g->stats->files;
    out->files_partial = g->stats->files_partial;
    out->files_duplicate = g->stats->files_duplicate;
    out->lines = g->stats->lines;
    out->calls = g->stats->calls;
    out->calls_resolved = g->stats->calls_resolved;
    out->calls_internal = g->stats->calls_internal;
    out->calls_internal_resolved = g->stats->calls_internal_resolved;
}

void graph_symbol_json(core_buf *b, const graph *g, uint32_t id)
{
    graph_symbol s;
    graph_get_symbol(g, id, &s);
    core_buf_puts(b, ",\"symbol\":");
    core_buf_json_str(b, s.qualname, strlen(s.qualname));
    core_buf_printf(b, ",\"kind\":\"%s\",\"file\":", graph_sym_kind_name(s.kind));
    core_buf_json_str(b, s.file, strlen(s.file));
    core_buf_printf(b, ",\"start_line\":%u,\"end_line\":%u", s.start_line, s.end_line);
}
