/*
 * The YAML configuration loader (core/config.c) with pmrag's table
 * (config/config.c): a file either loads, or is refused with FILE:LINE and
 * changes nothing; what loaded dumps to YAML that loads back to the same
 * values (what `pmrag config` promises). The first line of the input is
 * first tried as a --set KEY=VALUE ("# KEY=VALUE" keeps the file valid).
 */
#include "config.h"
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dump(const core_cfg *c, core_buf *out)
{
    core_buf_reset(out);
    core_cfg_dump(c, out);
}

/* The same value for every key (by type: "0.50" and "0.5" are equal). */
static void check_same(const core_cfg *a, const core_cfg *b)
{
    for (size_t i = 0; i < pmrag_config_count; i++) {
        const core_cfg_item *it = &pmrag_config_table[i];
        switch (it->type) {
        case CORE_CFG_BOOL:
            FUZZ_CHECK(core_cfg_bool(a, it->key) == core_cfg_bool(b, it->key));
            break;
        case CORE_CFG_INT:
            FUZZ_CHECK(core_cfg_int(a, it->key) == core_cfg_int(b, it->key));
            break;
        case CORE_CFG_DOUBLE:
            FUZZ_CHECK(core_cfg_double(a, it->key) == core_cfg_double(b, it->key));
            break;
        case CORE_CFG_STRING:
        case CORE_CFG_ENUM:
            FUZZ_CHECK(strcmp(core_cfg_str(a, it->key), core_cfg_str(b, it->key)) == 0);
            break;
        }
        FUZZ_CHECK(core_cfg_is_set(a, it->key) == core_cfg_is_set(b, it->key));
    }
}

/* The first line as a --set: "# KEY=VALUE" (a YAML comment, so the rest
 * of the input still loads), or the line as it is. */
static void set_first_line(core_cfg *c, const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t n = nl ? (size_t)(nl - data) : size;
    if (n >= 2 && data[0] == '#' && data[1] == ' ') {
        data += 2;
        n -= 2;
    }
    char *line = fuzz_strndup(data, n);
    char why[512] = "";
    int rc = core_cfg_set(c, line, why, sizeof why);
    FUZZ_CHECK(rc == 0 || (rc == CORE_EUSAGE && why[0]));
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    core_cfg *c = core_cfg_new(pmrag_config_table, pmrag_config_count);
    set_first_line(c, data, size);
    core_buf before = {0}, after = {0};
    dump(c, &before);
    const char *path = fuzz_file(data, size);
    char why[512] = "";
    int rc = core_cfg_load(c, path, why, sizeof why);
    FUZZ_CHECK(rc == 0 || rc == CORE_EFORMAT);
    dump(c, &after);
    if (rc) {
        FUZZ_CHECK(strncmp(why, path, strlen(path)) == 0);
        FUZZ_CHECK(after.len == before.len && memcmp(after.data, before.data, before.len) == 0);
    }
    /* What the configuration gives the engine. */
    ppr_opts po = config_ppr_opts(c);
    ppr_impact_opts io = config_impact_opts(c);
    model_params mp = config_model_params(c);
    FUZZ_CHECK(po.alpha > 0 && po.alpha < 1 && isfinite(io.decay));
    (void)mp;
    /* The dump (`pmrag config`) reads back as the same configuration. */
    core_cfg *back = core_cfg_new(pmrag_config_table, pmrag_config_count);
    char why2[512] = "";
    path = fuzz_file((const uint8_t *)after.data, after.len);
    if (core_cfg_load(back, path, why2, sizeof why2) != 0) {
        fprintf(stderr, "the dump does not load back: %s\n%s", why2, after.data);
        FUZZ_CHECK(!"the dump loads back");
    }
    check_same(c, back);
    core_cfg_free(back);
    core_buf_free(&before);
    core_buf_free(&after);
    core_cfg_free(c);
    return 0;
}
