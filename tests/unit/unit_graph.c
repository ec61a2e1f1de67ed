/* Graph helpers for the unit tests (see unit_graph.h). */
#include "unit_graph.h"

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
