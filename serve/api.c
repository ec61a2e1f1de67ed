/*
 * The HTTP API's handlers (serve_int.h): a case's state and latest
 * prediction, a stateless query, metrics, readiness.
 */
#include "serve_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int api_case(void *ud, const char *case_id, core_buf *json)
{
    serve *s = ud;
    sess_case c;
    int rc = sess_case_get(s->env, case_id, strlen(case_id), &c);
    if (rc)
        return rc;
    char tbuf[40];
    ingest_format_time(c.last_time_ns == INT64_MIN ? INGEST_NO_TIME : c.last_time_ns, tbuf,
                       sizeof tbuf);
    core_buf_puts(json, "{\"case_id\":");
    core_buf_json_str(json, case_id, strlen(case_id));
    core_buf_printf(json, ",\"seq\":%llu,\"last_time\":\"%s\",\"prefix\":[",
                    (unsigned long long)c.seq, tbuf);
    pthread_mutex_lock(&s->mu);
    for (uint32_t i = 0; i < c.ntok; i++) {
        if (i)
            core_buf_putc(json, ',');
        if (c.act[i] < model_mapper_nactivities(s->m)) {
            model_activity pa;
            model_mapper_activity(s->m, c.act[i], &pa);
            core_buf_json_str(json, pa.text, strlen(pa.text));
        } else {
            core_buf_puts(json, "null");
        }
    }
    /* The latest prediction, ranked again from the stored state (the same
     * as the one published while the model is the same). */
    if (c.model_version != s->model_version)
        serve__vec_rebuild(s->md, s->api_w, s->M, &c);
    ppr_vec rec = {(ppr_entry *)c.vec, c.nvec, c.nvec, c.vec_err};
    model_pred *p = core_xmalloc(s->k * sizeof *p);
    uint32_t n = model_rank_warm(s->md, s->api_w, c.act, c.var, c.ntok, &rec, c.vec_wsum, s->k, p);
    core_buf_printf(json, "],\"prefix_truncated\":%s,\"model_version\":\"%s\",\"ranked\":",
                    c.seq > c.ntok ? "true" : "false", s->model_version_text);
    model_preds_json(json, s->m, p, n);
    pthread_mutex_unlock(&s->mu);
    free(p);
    core_buf_puts(json, ",\"accuracy\":");
    serve__case_score_json(&c, json);
    core_buf_puts(json, "}");
    return 0;
}

static int api_stats(void *ud, core_buf *json)
{
    serve__stats_json(ud, json);
    return 0;
}

static int api_query(void *ud, const char *body, size_t len, core_buf *json, char *why,
                     size_t whylen)
{
    serve *s = ud;
    json_error_t err;
    json_t *doc = json_loadb(body, len, 0, &err);
    if (!doc) {
        snprintf(why, whylen, "body: line %d column %d: %s", err.line, err.column, err.text);
        return CORE_EFORMAT;
    }
    int rc = 0;
    json_t *trace = json_object_get(doc, "trace"), *kj = json_object_get(doc, "k");
    if (!json_is_array(trace) || json_array_size(trace) == 0) {
        snprintf(why, whylen, "field 'trace': expected a non-empty array of event texts");
        rc = CORE_EFORMAT;
        goto out;
    }
    json_int_t k = kj ? json_integer_value(kj) : 5;
    if (kj && (!json_is_integer(kj) || k < 1 || k > 1000)) {
        snprintf(why, whylen, "field 'k': expected an integer 1..1000");
        rc = CORE_EFORMAT;
        goto out;
    }
    size_t n = json_array_size(trace);
    if (n > 10000) {
        snprintf(why, whylen, "field 'trace': at most 10000 events");
        rc = CORE_EFORMAT;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (!json_is_string(json_array_get(trace, i))) {
            snprintf(why, whylen, "field 'trace[%zu]': expected a string", i);
            rc = CORE_EFORMAT;
            goto out;
        }
    uint32_t *act = core_xmalloc(n * sizeof *act), *var = core_xmalloc(n * sizeof *var);
    model_pred *p = core_xmalloc((size_t)k * sizeof *p);
    pthread_mutex_lock(&s->mu);
    core_buf_puts(json, "{\"trace\":[");
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(trace, i);
        model_map_event me = {.text = json_string_value(t), .len = json_string_length(t)};
        /* Peek, not map: a query must not grow the dictionary every
         * client's events are mapped with. */
        const char *text;
        model_mapper_peek(s->m, &me, i ? act[i - 1] : UINT32_MAX, &act[i], &var[i], &text);
        model_activity pa = {.strategy = MODEL_MAP_NONE};
        if (act[i] != UINT32_MAX)
            model_mapper_activity(s->m, act[i], &pa);
        core_buf_puts(json, i ? ",{\"event\":" : "{\"event\":");
        core_buf_json_str(json, me.text, me.len);
        core_buf_puts(json, ",\"activity\":");
        core_buf_json_str(json, text, strlen(text));
        core_buf_printf(json, ",\"strategy\":\"%s\",\"known\":%s}",
                        model_map_strategy_name(pa.strategy),
                        act[i] != UINT32_MAX ? "true" : "false");
    }
    uint32_t np = model_rank(s->md, s->api_w, act, var, (uint32_t)n, (uint32_t)k, p);
    core_buf_printf(json, "],\"model_version\":\"%s\",\"ranked\":", s->model_version_text);
    model_preds_json(json, s->m, p, np);
    core_buf_puts(json, "}");
    pthread_mutex_unlock(&s->mu);
    free(act);
    free(var);
    free(p);
out:
    json_decref(doc);
    return rc;
}

static void api_metrics(void *ud, core_buf *text)
{
    serve *s = ud;
    serve__gauges(s);
    sink_metrics_render(s->mx, text);
}

static bool api_ready(void *ud, core_buf *why)
{
    serve *s = ud;
    if (!atomic_load(&s->ready)) {
        core_buf_puts(why, "starting or stopping");
        return false;
    }
    if (atomic_load(&s->mem_over)) {
        core_buf_printf(why,
                        "memory: %.0f MiB in use, over limits.memory_bytes (%.0f MiB): input "
                        "refused until under %.0f MiB",
                        (double)atomic_load(&s->mem_anon) / 1048576.0,
                        (double)s->mem_limit / 1048576.0, 0.9 * (double)s->mem_limit / 1048576.0);
        return false;
    }
    if (s->kin) {
        ingest_kafka_stats ks;
        ingest_kafka_get_stats(s->kin, &ks);
        /* Assigned, and no statistics yet (lag unknown) or a broker up. */
        if (ks.assigned == 0) {
            core_buf_puts(why, "Kafka: no input partition assigned");
            return false;
        }
        if (!ks.up && ks.lag != -1) {
            core_buf_puts(why, "Kafka: no broker reachable");
            return false;
        }
    }
    /* The broker has not acknowledged a batch for a while: the engine
     * stands still behind it, and its statistics with it. */
    uint64_t since = atomic_load(&s->ack_wait_since);
    if (since && core_now_ns() - since > 2000000000ull) {
        core_buf_printf(why, "Kafka: predictions not acknowledged for %.0f s",
                        (double)(core_now_ns() - since) * 1e-9);
        return false;
    }
    return true;
}

sink_api_ops serve__api_ops(serve *s)
{
    return (sink_api_ops){.get_case = api_case,
                          .query = api_query,
                          .metrics = api_metrics,
                          .ready = api_ready,
                          .stats = api_stats,
                          .ud = s};
}
