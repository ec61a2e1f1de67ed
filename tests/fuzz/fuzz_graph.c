/*
 * The graph file (graph_open, graph/read.c): a file that opens is read
 * whole through every accessor and turned into a PPR network that is
 * pushed from a symbol, so anything graph_open let through that its users
 * trust (indexes, string offsets, edge weights) is exercised.
 *
 * The file's CRC-32 and size fields are set from the input before it is
 * written (unless the input's first reserved header byte is 0xff), so
 * that mutations reach the structure checks behind the checksum.
 */
#include "fuzz.h"
#include "graph.h"
#include "graph_int.h"
#include "ppr.h"

#include <stdlib.h>
#include <string.h>

static void walk(const graph *g)
{
    uint32_t n = graph_nsymbols(g);
    for (uint32_t i = 0; i < graph_nroots(g); i++)
        fuzz_sink += strlen(graph_root(g, i));
    for (uint32_t i = 0; i < graph_nfiles(g); i++) {
        graph_file_info f;
        graph_get_file(g, i, &f);
        fuzz_sink += strlen(f.path);
        FUZZ_CHECK(f.module < n);
    }
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol s;
        graph_get_symbol(g, i, &s);
        fuzz_sink += strlen(s.name) + strlen(s.qualname) + strlen(s.file) + strlen(s.doc);
        FUZZ_CHECK(s.parent == GRAPH_NONE || s.parent < i);
        uint32_t cnt;
        const graph_edge *e = graph_out_edges(g, i, &cnt);
        for (uint32_t k = 0; k < cnt; k++)
            FUZZ_CHECK(e[k].node < n);
        e = graph_in_edges(g, i, &cnt);
        for (uint32_t k = 0; k < cnt; k++)
            FUZZ_CHECK(e[k].node < n);
        uint32_t first, ne = graph_symbol_emits(g, i, &first);
        FUZZ_CHECK(ne == 0 || first + ne <= graph_nemits(g));
        if (i < 8) {
            uint32_t ids[4];
            graph_find(g, s.qualname, ids, 4);
            graph_find(g, s.name, ids, 4);
        }
    }
    for (uint32_t i = 0; i < graph_nemits(g); i++) {
        graph_emit e;
        graph_get_emit(g, i, &e);
        fuzz_sink += strlen(e.tmpl) + strlen(e.receiver) + strlen(e.method) + strlen(e.logger) +
                     strlen(e.ref) + strlen(e.name);
        FUZZ_CHECK(e.symbol < n);
    }
    graph_stats st;
    graph_get_stats(g, &st);
}

/* The walk over the graph: every graph that opens must make a network. */
static void push(const graph *g)
{
    ppr_weights w;
    FUZZ_CHECK(ppr_weights_profile("default", &w) == 0);
    ppr_net *net = NULL;
    FUZZ_CHECK(ppr_net_from_graph(g, &w, &net) == 0);
    if (graph_nsymbols(g)) {
        ppr_work *work = NULL;
        FUZZ_CHECK(ppr_work_new(net, &work) == 0);
        ppr_entry seed = {0, 1.0f}, top[4];
        ppr_opts o = ppr_opts_default();
        o.max_pushes = 10000;
        ppr_stats st;
        FUZZ_CHECK(ppr_push(work, &seed, 1, &o, &st) == 0);
        uint32_t k = ppr_work_topk(work, 4, NULL, top);
        for (uint32_t i = 0; i < k; i++)
            FUZZ_CHECK(top[i].node < graph_nsymbols(g));
        ppr_work_free(work);
    }
    ppr_net_free(net);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    gf_header h;
    if (size >= sizeof h) {
        memcpy(&h, copy, sizeof h);
        if (h.reserved[0] != 0xff) {
            h.file_size = size;
            h.crc = core_crc32(0, copy + sizeof h, size - sizeof h);
            memcpy(copy, &h, sizeof h);
        }
    }
    const char *path = fuzz_file(copy, size);
    free(copy);
    graph *g = NULL;
    char why[256] = "";
    int rc = graph_open(path, &g, why, sizeof why);
    if (rc) {
        FUZZ_CHECK(rc == CORE_EFORMAT || rc == CORE_EVERSION || rc == CORE_EENDIAN ||
                   rc == CORE_ECORRUPT);
        FUZZ_CHECK(why[0] != 0);
        return 0;
    }
    walk(g);
    push(g);
    graph_close(g);
    return 0;
}
