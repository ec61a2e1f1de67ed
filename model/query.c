/*
 * The stateless query (model.h): the same read-only mapping and ranking
 * for `pmrag query` and the daemon's `POST /v1/query`, so that the two
 * rank a trace alike, and neither grows the dictionary it maps with.
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
    for (uint32_t i = 0; i < n; i++) {
        const char *text;
        map_mapper_peek(m, &evs[i], act, i, &act[i], &var[i], &text);
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

void model_query_json(core_buf *b, const map_mapper *m, const map_event *evs,
                      const model_query_event *ev, uint32_t n, const core_buf *texts,
                      const char *model_version, const model_pred *p, uint32_t np)
{
    core_buf_puts(b, "{\"trace\":[");
    for (uint32_t i = 0; i < n; i++) {
        const char *text = texts->data + ev[i].text;
        core_buf_puts(b, i ? ",{\"event\":" : "{\"event\":");
        core_buf_json_str(b, evs[i].text, evs[i].len);
        core_buf_puts(b, ",\"activity\":");
        core_buf_json_str(b, text, strlen(text));
        core_buf_printf(b, ",\"strategy\":\"%s\",\"known\":%s}", map_strategy_name(ev[i].strategy),
                        ev[i].activity != UINT32_MAX ? "true" : "false");
    }
    core_buf_putc(b, ']');
    if (model_version) {
        core_buf_puts(b, ",\"model_version\":");
        core_buf_json_str(b, model_version, strlen(model_version));
    }
    core_buf_puts(b, ",\"ranked\":");
    model_preds_json(b, m, p, np);
    core_buf_putc(b, '}');
}
