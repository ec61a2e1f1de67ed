/*
 * The YAML mapping overrides (map_overrides_load, map/overrides.c)
 * against the graph of the shop fixture (fuzz_shop.h, indexed at start),
 * then matched against a few activity texts and the input itself: globs
 * and PCRE2 regexes from the file, activity text from events.
 */
#include "fuzz_shop.h"
#include "map.h"

#include <string.h>

static const graph *g;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g = fuzz_shop_graph();
    return 0;
}

static void match(const map_overrides *o, const char *text, size_t len)
{
    uint32_t syms[4], rule = UINT32_MAX;
    float conf[4];
    uint32_t n = map_overrides_match(o, text, len, syms, conf, 4, &rule);
    if (!n)
        return;
    FUZZ_CHECK(rule < map_overrides_count(o));
    for (uint32_t k = 0; k < n && k < 4; k++) {
        FUZZ_CHECK(syms[k] < graph_nsymbols(g));
        FUZZ_CHECK(conf[k] > 0 && conf[k] <= 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    map_overrides *o = NULL;
    char why[1024] = "";
    int rc = map_overrides_load(path, g, &o, why, sizeof why);
    if (rc) {
        FUZZ_CHECK(rc == CORE_EFORMAT || rc == CORE_ENOTFOUND || rc == CORE_EAMBIGUOUS);
        FUZZ_CHECK(strncmp(why, path, strlen(path)) == 0);
        return 0;
    }
    static const char *const texts[] = {
        "",
        "a",
        "Sending http request: GET /x",
        "Retry needed, retrying",
        "caf\xc3\xa9 \xe2\x82\xac",
        "\xff\xfe bad utf-8 \xc3",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        match(o, texts[i], strlen(texts[i]));
    match(o, (const char *)data, size < 256 ? size : 256);
    map_overrides_free(o);
    return 0;
}
