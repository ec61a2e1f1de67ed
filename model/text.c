/*
 * The model's values written out for people and tools (model.h): its
 * parameters as JSON or one line of text.
 */
#include "model.h"

void model_params_format(const model_params *p, bool json, core_buf *b)
{
    if (!json) {
        core_buf_printf(b,
                        "order %u, variant_ratio %g, variant_min %u, alpha %g, code_scale %g, "
                        "decay %g, escape %g, code_prior %g, case_prior %g",
                        p->order, p->variant_ratio, p->variant_min, p->alpha, p->code_scale,
                        p->decay, p->escape, p->code_prior, p->case_prior);
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
    core_buf_puts(b, ",\"code_prior\":");
    core_buf_json_double(b, p->code_prior);
    core_buf_puts(b, ",\"case_prior\":");
    core_buf_json_double(b, p->case_prior);
    core_buf_putc(b, '}');
}
