/*
 * The reply of the external mapping command (map__llm_parse_reply,
 * map/llm.c, the parser map_llm_map uses on the command's
 * stdout) to a batch of 8 activities, items 100-107 of the call, against
 * the graph of the shop fixture (fuzz_shop.h). Every mapping it hands on
 * names an item of the batch, a symbol of the graph and a confidence in
 * (0, 1]; a reply it refuses says why. Unlike the other targets, this
 * one formats its warnings (a logger that reads and drops them): the
 * skipped items are the bulk of what a bad reply produces.
 */
#include "fuzz_shop.h"
#include "map_int.h"

#include <string.h>

#define FIRST 100
#define BATCH 8

static const graph *g;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g = fuzz_shop_graph();
    return 0;
}

static void read_log(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    (void)level;
    fuzz_sink += strlen(msg);
}

static void mapped(void *ud, size_t item, uint32_t symbol, float conf)
{
    (*(size_t *)ud)++;
    FUZZ_CHECK(item >= FIRST && item < FIRST + BATCH);
    FUZZ_CHECK(symbol < graph_nsymbols(g));
    FUZZ_CHECK(conf > 0 && conf <= 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    core_logger log = {read_log, NULL, CORE_LOG_DEBUG};
    size_t calls = 0;
    char why[512] = "";
    int rc = map__llm_parse_reply(g, (const char *)data, size, FIRST, BATCH, "llm batch 1 of 1",
                                  &log, mapped, &calls, why, sizeof why);
    if (rc) {
        FUZZ_CHECK(rc == CORE_EFORMAT);
        FUZZ_CHECK(why[0] != 0);
        FUZZ_CHECK(calls == 0); /* a refused reply maps nothing */
        return 0;
    }
    /* A mapping takes a few bytes of the reply at least ("\"a\","). */
    FUZZ_CHECK(calls <= size / 2);
    return 0;
}
