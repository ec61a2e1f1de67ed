/*
 * The dictionary codec (map.h): one record per activity and per
 * variant, little-endian, for the model file and the daemon's state store.
 *
 *   activity  u32 text length, the text, u8 strategy, u8 has_const (bit 0)
 *             and the text read out of an error's rendering (bit 1),
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
    core_buf_putc(out, (char)(has_const | map__error_text(m, act) << 1));
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

void map__dict_rec_free(map__dict_rec *r)
{
    free(r->syms);
    free(r->conf);
    free(r->cands);
    *r = (map__dict_rec){0};
}

int map__dict_decode(const void *rec, size_t len, uint32_t nsym, map__dict_rec *out)
{
    core_rd r = core_rd_of(rec, len);
    map__dict_rec d = {0};
    d.tl = (uint32_t)core_rd_le(&r, 4);
    d.text = core_rd_bytes(&r, d.tl);
    d.strategy = (map_strategy)core_rd_le(&r, 1);
    uint32_t made = (uint32_t)core_rd_le(&r, 1);
    d.has_const = made & 1;
    d.error_text = (made & 2) != 0;
    d.nsyms = (uint32_t)core_rd_le(&r, 4);
    /* Every count is checked against what is left before anything is
     * allocated for it: a record cannot ask for more than its size. */
    if (r.bad || d.strategy >= MAP_BY__COUNT || d.nsyms > nsym ||
        core_rd_left(&r) < (size_t)d.nsyms * 8 + 4)
        return CORE_ECORRUPT;
    d.syms = core_xmalloc((d.nsyms ? d.nsyms : 1) * sizeof *d.syms);
    d.conf = core_xmalloc((d.nsyms ? d.nsyms : 1) * sizeof *d.conf);
    bool ok = true;
    for (uint32_t i = 0; i < d.nsyms; i++) {
        d.syms[i] = (uint32_t)core_rd_le(&r, 4);
        ok = ok && d.syms[i] < nsym;
    }
    for (uint32_t i = 0; i < d.nsyms; i++) {
        d.conf[i] = core_rd_f32(&r);
        ok = ok && d.conf[i] >= 0 && d.conf[i] <= 1;
    }
    d.ncand = (uint32_t)core_rd_le(&r, 4);
    ok = ok && !r.bad && d.ncand <= nsym && core_rd_left(&r) == (size_t)d.ncand * 4;
    if (ok) {
        d.cands = core_xmalloc((d.ncand ? d.ncand : 1) * sizeof *d.cands);
        for (uint32_t i = 0; i < d.ncand; i++) {
            d.cands[i] = (uint32_t)core_rd_le(&r, 4);
            ok = ok && d.cands[i] < nsym;
        }
    }
    if (!ok || r.bad) {
        map__dict_rec_free(&d);
        return CORE_ECORRUPT;
    }
    *out = d;
    return 0;
}

int map_dict_restore_activity(map_mapper *m, const void *rec, size_t len, uint64_t count,
                              bool alias, uint32_t *id)
{
    map__dict_rec d;
    int rc = map__dict_decode(rec, len, graph_nsymbols(map_mapper_graph(m)), &d);
    if (rc)
        return rc;
    char *text = core_xstrndup(d.text, d.tl);
    map_activity pa = {.text = text,
                       .strategy = d.strategy,
                       .nsyms = d.nsyms,
                       .syms = d.syms,
                       .conf = d.conf,
                       .count = count};
    map__restore_how how = {.alias = alias, .error_text = d.error_text};
    *id = map__restore(m, &pa, d.cands, d.ncand, d.has_const, &how);
    free(text);
    map__dict_rec_free(&d);
    return 0;
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
