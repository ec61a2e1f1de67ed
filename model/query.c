/*
 * The stateless query (model.h): the same read-only mapping and ranking
 * for `pmrag query` and the daemon's `POST /v1/query`, so that the two
 * rank a trace alike, and neither grows the dictionary it maps with
 * (serve_query_json writes the answer both print).
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

uint32_t model_query(const model_joint *md, model_work *w, map_mapper *m, const map_event *evs,
                     uint32_t n, uint32_t k, model_query_event *ev, core_buf *texts,
                     model_pred *out)
{
    uint32_t *act = core_xmalloc((n ? n : 1) * sizeof *act);
    uint32_t *var = core_xmalloc((n ? n : 1) * sizeof *var);
    uint32_t told[MAP_TOLD_MAX], ntold = 0;
    uint64_t told_at[MAP_TOLD_MAX];
    for (uint32_t i = 0; i < n; i++) {
        const char *text;
        map_mapper_peek(m, &evs[i], act, i, told, ntold, &act[i], &var[i], &text);
        if (act[i] != UINT32_MAX)
            map_told_note(m, act[i], var[i], i + 1, told, told_at, &ntold);
        map_activity pa = {.strategy = MAP_BY_NONE};
        if (act[i] != UINT32_MAX)
            map_mapper_activity(m, act[i], &pa);
        ev[i] = (model_query_event){
            .activity = act[i],
            .variant = var[i],
            .strategy = pa.nsyms ? pa.strategy : MAP_BY_NONE,
            .text = (uint32_t)texts->len,
        };
        core_buf_append(texts, text, strlen(text) + 1);
    }
    uint32_t np = model_rank(md, w, act, var, n, k, out);
    free(act);
    free(var);
    return np;
}
