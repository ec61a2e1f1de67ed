/* The shop fixture's graph (see fuzz_shop.h). */
#include "fuzz_shop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_FIXTURES
#define FUZZ_FIXTURES "tests/fixtures"
#endif

static graph *shop;
static char dir[200], graph_path[256];

static void remove_graph(void)
{
    graph_close(shop);
    unlink(graph_path);
    rmdir(dir);
}

static void index_shop(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pmrag-fuzz-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(graph_path, sizeof graph_path, "%s/shop.graph", dir);
    const char *roots[] = {FUZZ_FIXTURES "/repos/shop"};
    graph_index_opts o = {.threads = 1};
    char why[256];
    if (graph_index(roots, 1, graph_path, &o, NULL) != 0 ||
        graph_open(graph_path, &shop, why, sizeof why) != 0) {
        fprintf(stderr, "cannot index %s\n", roots[0]);
        exit(1);
    }
    atexit(remove_graph);
}

const graph *fuzz_shop_graph(void)
{
    if (!shop)
        index_shop();
    return shop;
}

const char *fuzz_shop_dir(void)
{
    if (!shop)
        index_shop();
    return dir;
}
