/*
 * The model's values written out for people and tools (model.h): ranked
 * predictions as JSON, parameters as JSON or one line of text.
 */
#include "model.h"

void model_preds_json(core_buf *b, const map_mapper *m, const model_pred *p, uint32_t n)
{
    const graph *g = map_mapper_graph(m);
    core_buf_putc(b, '[');
    for (uint32_t i = 0; i < n; i++) {
        core_buf_puts(b, i ? ",{\"score\":" : "{\"score\":");
        core_buf_json_float(b, p[i].score);
        graph_symbol_json(b, g, p[i].symbol);
        if (p[i].activity != UINT32_MAX) {
            map_activity pa;
            map_mapper_activity(m, p[i].activity, &pa);
            core_buf_puts(b, ",\"activity\":");
            core_buf_json_str(b, pa.text, strlen(pa.text));
        }
        if (p[i].near != UINT32_MAX) {
            graph_symbol s;
            graph_get_symbol(g, p[i].near, &s);
            core_buf_puts(b, ",\"near\":");
            core_buf_json_str(b, s.qualname, strlen(s.qualname));
        }
        core_buf_putc(b, '}');
    }
    core_buf_putc(b, ']');
}

void model_params_format(const model_params *p, bool json, core_buf *b)
{
    if (!json) {
        core_buf_printf(b,
                        "order %u, variant_ratio %g, variant_min %u, alpha %g, code_scale %g, "
                        "decay %g, escape %g",
                        p->order, p->variant_ratio, p->variant_min, p->alpha, p->code_scale,
                        p->decay, p->escape);
        return;
    }
    core_buf_printf(b, "{\"order\":%u,\"variant_ratio\":", p->order);
    core_buf_json_double(b, p->variant_ratio);
    core_buf_printf(b, ",\"variant_min\":%u,\"alpha\":", p->variant_min);
    core_buf_json_double(b, p->alpha);
    core_buf_puts(b, ",\"code_scale\":");
    core_buf_json_double(b, p->code_scale);
    core_buf_puts(b, ",\"decay\":");
    core_buf_json_double(b, p->decay);
    core_buf_puts(b, ",\"escape\":");
    core_buf_json_double(b, p->escape);
    core_buf_putc(b, '}');
}
