/*
 * A snapshot of the mapper's activities (model.h, model_mapper_snapshot):
 * their symbols, confidences and texts, copied while the mapper is not
 * changing, so that a model can be built on another thread while mapping
 * goes on; and the accessors that read an activity from a snapshot or,
 * without one, from the mapper itself.
 */
#include "model_int.h"

#include <stdlib.h>
#include <string.h>

struct model_mapper_snap {
    uint32_t A, V;
    uint32_t *off; /* A + 1: each activity's symbols in syms/conf */
    uint32_t *syms;
    float *conf;
    core_buf texts;    /* each activity's text, NUL-terminated... */
    uint32_t *text_at; /* ...starting here (A) */
};

model_mapper_snap *model_mapper_snapshot(const map_mapper *m)
{
    model_mapper_snap *sn = core_xcalloc(1, sizeof *sn);
    sn->A = map_mapper_nactivities(m);
    sn->V = map_mapper_nvariants(m);
    sn->off = core_xcalloc((size_t)sn->A + 1, sizeof *sn->off);
    for (uint32_t a = 0; a < sn->A; a++) {
        map_activity pa;
        map_mapper_activity(m, a, &pa);
        sn->off[a + 1] = sn->off[a] + pa.nsyms;
    }
    size_t n = sn->off[sn->A];
    sn->syms = core_xmalloc((n ? n : 1) * sizeof *sn->syms);
    sn->conf = core_xmalloc((n ? n : 1) * sizeof *sn->conf);
    sn->text_at = core_xmalloc(((size_t)sn->A + 1) * sizeof *sn->text_at);
    for (uint32_t a = 0; a < sn->A; a++) {
        map_activity pa;
        map_mapper_activity(m, a, &pa);
        sn->text_at[a] = (uint32_t)sn->texts.len;
        core_buf_append(&sn->texts, pa.text, strlen(pa.text) + 1);
        if (!pa.nsyms)
            continue; /* (syms and conf are NULL then) */
        memcpy(sn->syms + sn->off[a], pa.syms, pa.nsyms * sizeof *pa.syms);
        memcpy(sn->conf + sn->off[a], pa.conf, pa.nsyms * sizeof *pa.conf);
    }
    return sn;
}

void model_mapper_snap_free(model_mapper_snap *sn)
{
    if (!sn)
        return;
    free(sn->off);
    free(sn->syms);
    free(sn->conf);
    free(sn->text_at);
    core_buf_free(&sn->texts);
    free(sn);
}

void model__act_syms(const model_joint *md, const model_mapper_snap *sn, uint32_t a,
                     map_activity *pa)
{
    if (!sn) {
        map_mapper_activity(md->m, a, pa);
        return;
    }
    memset(pa, 0, sizeof *pa);
    pa->nsyms = sn->off[a + 1] - sn->off[a];
    pa->syms = sn->syms + sn->off[a];
    pa->conf = sn->conf + sn->off[a];
}

const char *model__act_text(const model_joint *md, const model_mapper_snap *sn, uint32_t a)
{
    if (sn)
        return sn->texts.data + sn->text_at[a];
    map_activity pa;
    map_mapper_activity(md->m, a, &pa);
    return pa.text;
}

void model__act_count(const map_mapper *m, const model_mapper_snap *sn, uint32_t *nact,
                      uint32_t *nvar)
{
    *nact = sn ? sn->A : map_mapper_nactivities(m);
    *nvar = sn ? sn->V : map_mapper_nvariants(m);
}
