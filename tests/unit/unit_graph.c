/* Graph helpers for the unit tests (see unit_graph.h). */
#include "unit_graph.h"

#include <stdio.h>

graph *unit_graph_open(const char *path)
{
    graph *g = NULL;
    char why[256];
    int rc = graph_open(path, &g, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "graph_open: %s", why);
    return g;
}

graph *unit_index_and_open(const char *root, const char *out, const graph_index_opts *o,
                           graph_index_stats *st)
{
    const char *roots[] = {root};
    CHECK_OK(graph_index(roots, 1, out, o, st));
    return unit_graph_open(out);
}

uint32_t unit_sym(const graph *g, const char *qualname)
{
    uint32_t ids[4];
    uint32_t n = graph_find(g, qualname, ids, 4);
    if (n != 1)
        unit_fail(__FILE__, __LINE__, "'%s' matches %u symbols", qualname, n);
    return ids[0];
}

uint32_t unit_literal_owners(const graph *g, const char *s, uint32_t *owners, uint32_t max)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < graph_nliterals(g); i++) {
        uint32_t sym;
        if (strcmp(graph_literal_at(g, i, &sym), s) != 0)
            continue;
        if (k < max)
            owners[k] = sym;
        k++;
    }
    return k;
}

graph_emit unit_emit_at(const graph *g, const char *qualname, uint32_t line)
{
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, qualname), &first), found = 0;
    graph_emit e = {0}, x;
    for (uint32_t i = 0; i < n; i++) {
        graph_get_emit(g, first + i, &x);
        if (x.line == line) {
            e = x;
            found++;
        }
    }
    if (found != 1)
        unit_fail(__FILE__, __LINE__, "%s: %u emit sites at line %u", qualname, found, line);
    return e;
}

uint32_t unit_line_of(const char *src, const char *needle)
{
    const char *p = strstr(src, needle);
    if (!p)
        unit_fail(__FILE__, __LINE__, "'%s' not in the source", needle);
    uint32_t line = 1;
    for (const char *q = src; q < p; q++)
        line += *q == '\n';
    return line;
}

/* Two variants, each returning the modes it can run in: the base's
 * constructor logs the mode, a literal one variant's code returns. Both
 * return the same first packet. */
static const char modes_client_py[] = "import logging\n"
                                      "log = logging.getLogger('pkg.client')\n"
                                      "class Client(object):\n"
                                      "    def __init__(self, mode):\n"
                                      "        log.info('Client initialized for %s.', mode)\n"
                                      "    def modes(self):\n"
                                      "        return ['eventlet', 'threading']\n"
                                      "    def first_packet(self):\n"
                                      "        return 'OPEN'\n"
                                      "    def connect(self, url):\n"
                                      "        log.info('Attempting connection to %s', url)\n"
                                      "        self._send('OPEN')\n"
                                      "    def _send(self, pkt):\n"
                                      "        log.info('Sending packet %s', pkt)\n";
static const char modes_async_py[] = "import logging\n"
                                     "from pkg import client\n"
                                     "log = logging.getLogger('pkg.client')\n"
                                     "class AsyncClient(client.Client):\n"
                                     "    def modes(self):\n"
                                     "        return ['aiohttp', 'asgi']\n"
                                     "    def first_packet(self):\n"
                                     "        return 'OPEN'\n"
                                     "    async def connect(self, url):\n"
                                     "        log.info('Attempting connection to %s', url)\n"
                                     "        await self._send('OPEN')\n"
                                     "    async def _send(self, pkt):\n"
                                     "        log.info('Sending packet %s', pkt)\n";

void unit_write_modes(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/pkg/__init__.py", dir);
    unit_write_str(path, "");
    snprintf(path, sizeof path, "%s/pkg/client.py", dir);
    unit_write_str(path, modes_client_py);
    snprintf(path, sizeof path, "%s/pkg/asyncio_client.py", dir);
    unit_write_str(path, modes_async_py);
}

bool unit_has_edge(const graph *g, const char *from, const char *to, graph_edge_type t)
{
    uint32_t a = unit_sym(g, from), b = unit_sym(g, to), n;
    const graph_edge *e = graph_out_edges(g, a, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].node == b && e[i].type == t)
            return true;
    return false;
}

void unit_check_run_time_sites(const graph *g, const char *qualname, uint32_t line,
                               const char *const *tmpls, uint32_t n)
{
    uint32_t first, ne = graph_symbol_emits(g, unit_sym(g, qualname), &first);
    CHECK_INT(ne, n + 1);
    uint32_t dynamic = 0, texts = 0;
    for (uint32_t i = 0; i < ne; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        CHECK_INT(e.kind, GRAPH_EMIT_LOG);
        CHECK_INT(e.line, line);
        dynamic += e.style == GRAPH_STYLE_DYNAMIC;
        for (uint32_t k = 0; k < n; k++)
            texts += strcmp(e.tmpl, tmpls[k]) == 0;
    }
    CHECK_INT(dynamic, 1);
    CHECK_INT(texts, n);
}
