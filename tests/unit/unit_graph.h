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

#endif
