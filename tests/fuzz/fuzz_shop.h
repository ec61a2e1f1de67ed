/* fuzz_shop.h - the code graph of the shop fixture, for the targets whose
 * parser reads against a graph (overrides, model files, LLM replies). */
#ifndef PMRAG_FUZZ_SHOP_H
#define PMRAG_FUZZ_SHOP_H

#include "fuzz.h"
#include "graph.h"

/*
 * The graph of tests/fixtures/repos/shop (FUZZ_FIXTURES), indexed on the
 * first call into a temporary directory of its own (TMPDIR, else /tmp),
 * which is removed at exit. Exits the process when the fixture cannot be
 * indexed. Valid until exit.
 */
const graph *fuzz_shop_graph(void);

/* That temporary directory, for files a target writes beside the graph. */
const char *fuzz_shop_dir(void);

#endif
