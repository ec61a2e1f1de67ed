/*
 * The dictionary codec (map.h): one record per activity and per
 * variant, little-endian, for the model file and the daemon's state store.
 *
 *   activity  u32 text length, the text, u8 strategy, u8 has_const,
 *             u32 nsyms, u32 symbol[nsyms], f32 confidence[nsyms],
 *             u32 ncands, u32 candidate[ncands]
 *   variant   u8 1, u32 activity, the text (the rest of the record)
 *
 * The variant's leading 1 tells it from what state stores of earlier
 * versions kept under the same keys (the message that made the variant,
 * mapped again when restored; the daemon reads those itself).
 */
#include "map_int.h"

#include <stdlib.h>

#define VARIANT_TAG 0x01

void map_dict_put_activity(const map_mapper *m, uint32_t act, core_buf *out)
{
    map_activity pa;
    map_mapper_activity(m, act, &pa);
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, act, &cands, &has_const);
    size_t tl = strlen(pa.text);
    core_buf_put_le(out, tl, 4);
    core_buf_append(out, pa.text, tl);
    core_buf_putc(out, (char)pa.strategy);
    core_buf_putc(out, (char)has_const);
    core_buf_put_le(out, pa.nsyms, 4);
    for (uint32_t i = 0; i < pa.nsyms; i++)
        core_buf_put_le(out, pa.syms[i], 4);
    for (uint32_t i = 0; i < pa.nsyms; i++)
        core_buf_put_f32(out, pa.conf[i]);
    core_buf_put_le(out, nc, 4);
    for (uint32_t i = 0; i < nc; i++)
        core_buf_put_le(out, cands[i], 4);
}

void map_dict_put_variant(const map_mapper *m, uint32_t var, core_buf *out)
{
    const char *text;
    uint32_t act = map_mapper_variant(m, var, &text);
    core_buf_putc(out, VARIANT_TAG);
    core_buf_put_le(out, act, 4);
    core_buf_puts(out, text);
}

int map_dict_restore_activity(map_mapper *m, const void *rec, size_t len, uint64_t count,
                              uint32_t *id)
{
    uint32_t nsym = graph_nsymbols(map_mapper_graph(m));
    core_rd r = core_rd_of(rec, len);
    uint32_t tl = (uint32_t)core_rd_le(&r, 4);
    const char *t = core_rd_bytes(&r, tl);
    map_activity pa = {.count = count};
    pa.strategy = (map_strategy)core_rd_le(&r, 1);
    bool has_const = core_rd_le(&r, 1) != 0;
    pa.nsyms = (uint32_t)core_rd_le(&r, 4);
    /* Every count is checked against what is left before anything is
     * allocated for it: a record cannot ask for more than its size. */
    if (r.bad || pa.strategy >= MAP_BY__COUNT || pa.nsyms > nsym ||
        core_rd_left(&r) < (size_t)pa.nsyms * 8 + 4)
        return CORE_ECORRUPT;
    uint32_t *syms = core_xmalloc((pa.nsyms ? pa.nsyms : 1) * sizeof *syms);
    float *conf = core_xmalloc((pa.nsyms ? pa.nsyms : 1) * sizeof *conf);
    uint32_t *cands = NULL;
    bool ok = true;
    for (uint32_t i = 0; i < pa.nsyms; i++) {
        syms[i] = (uint32_t)core_rd_le(&r, 4);
        ok = ok && syms[i] < nsym;
    }
    for (uint32_t i = 0; i < pa.nsyms; i++) {
        conf[i] = core_rd_f32(&r);
        ok = ok && conf[i] >= 0 && conf[i] <= 1;
    }
    uint32_t nc = (uint32_t)core_rd_le(&r, 4);
    ok = ok && !r.bad && nc <= nsym && core_rd_left(&r) == (size_t)nc * 4;
    if (ok) {
        cands = core_xmalloc((nc ? nc : 1) * sizeof *cands);
        for (uint32_t i = 0; i < nc; i++) {
            cands[i] = (uint32_t)core_rd_le(&r, 4);
            ok = ok && cands[i] < nsym;
        }
    }
    int rc = CORE_ECORRUPT;
    if (ok && !r.bad) {
        char *text = core_xstrndup(t, tl);
        pa.text = text;
        pa.syms = syms;
        pa.conf = conf;
        *id = map__restore(m, &pa, cands, nc, has_const);
        free(text);
        rc = 0;
    }
    free(syms);
    free(conf);
    free(cands);
    return rc;
}

int map_dict_restore_variant(map_mapper *m, const void *rec, size_t len, uint32_t *id)
{
    core_rd r = core_rd_of(rec, len);
    uint32_t tag = (uint32_t)core_rd_le(&r, 1);
    uint32_t act = (uint32_t)core_rd_le(&r, 4);
    if (r.bad || tag != VARIANT_TAG || act >= map_mapper_nactivities(m))
        return CORE_ECORRUPT;
    size_t tl = core_rd_left(&r);
    char *text = core_xstrndup(core_rd_bytes(&r, tl), tl);
    *id = map_mapper_restore_variant(m, act, text);
    free(text);
    return 0;
}
