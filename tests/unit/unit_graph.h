/*
 * Graph helpers for the unit tests that index and open graphs (kept out of
 * unit.c, which every unit test links and which does not depend on graph/).
 * Each fails the running test, with graph/'s reason, instead of returning
 * an error.
 */
#ifndef PMRAG_UNIT_GRAPH_H
#define PMRAG_UNIT_GRAPH_H

#include "graph.h"
#include "unit.h"

/* Opens the graph file at path; the caller closes it. */
graph *unit_graph_open(const char *path);
/* Indexes the one directory root into the graph file out and opens it. */
graph *unit_index_and_open(const char *root, const char *out, const graph_index_opts *o,
                           graph_index_stats *st);
/* The id of the one symbol that qualname names. */
uint32_t unit_sym(const graph *g, const char *qualname);
/* The functions returning the literal word s (graph_literal_at): up to
 * max of them into owners; how many there are in all. */
uint32_t unit_literal_owners(const graph *g, const char *s, uint32_t *owners, uint32_t max);
/* Writes under dir (relative to the test's directory) a package of two
 * variants, pkg.client.Client and its subclass
 * pkg.asyncio_client.AsyncClient, that log alike; the base's constructor
 * logs "Client initialized for %s." with a mode that only one variant's
 * modes() returns ('threading' the base's, 'aiohttp' the subclass's). */
void unit_write_modes(const char *dir);
/* The 1-based line of src's first line that contains needle (fails the
 * test when none does). */
uint32_t unit_line_of(const char *src, const char *needle);
/* The emit site of symbol qualname at line, which must be the only one
 * there. */
graph_emit unit_emit_at(const graph *g, const char *qualname, uint32_t line);

/* Checks that symbol qualname logs at line alone, and only its sites
 * there: one logging call of text built at run time, and one each of
 * the texts tmpls[0..n). */
void unit_check_run_time_sites(const graph *g, const char *qualname, uint32_t line,
                               const char *const *tmpls, uint32_t n);

/* Whether symbol from has an edge of type t to symbol to. */
bool unit_has_edge(const graph *g, const char *from, const char *to, graph_edge_type t);

#define CHECK_EDGE(g, a, b, t)                                                                     \
    do {                                                                                           \
        if (!unit_has_edge(g, a, b, t))                                                            \
            unit_fail(__FILE__, __LINE__, "no %s edge %s -> %s", graph_edge_type_name(t), a, b);   \
    } while (0)

/* Checks a site made at a call to a logging wrapper. */
#define CHECK_WRAPPED(e, tmpl_, style_, level_, logger_)                                           \
    do {                                                                                           \
        CHECK_INT((e).kind, GRAPH_EMIT_LOG);                                                       \
        CHECK((e).flags &GRAPH_EF_WRAPPER);                                                        \
        CHECK_STR((e).tmpl, tmpl_);                                                                \
        CHECK_INT((e).style, style_);                                                              \
        CHECK_INT((e).level, level_);                                                              \
        CHECK_STR((e).logger, logger_);                                                            \
    } while (0)

#endif
