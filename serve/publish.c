/*
 * Publishing (serve_int.h): one event's prediction encoded once per
 * encoding it goes out in, and each encoding handed to every sink that
 * takes it: the Kafka output topic (protobuf, or the JSON), stdout (JSON
 * lines) and the API's event streams (the JSON). The rankings the API
 * answers with, and those the commands print, go through the same JSON
 * encoder (serve_ranked_json), so a ranking has one shape everywhere.
 */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* What p[0..n) names, as published: each symbol with its place in the
 * code, and the activity it is expected to emit or the ranked symbol it
 * is near. The strings borrow from m and its graph. */
static void ranked_fill(const map_mapper *m, const model_pred *p, uint32_t n, sink_ranked *out)
{
    const graph *g = map_mapper_graph(m);
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol sym;
        graph_get_symbol(g, p[i].symbol, &sym);
        const char *act = NULL;
        if (p[i].activity != UINT32_MAX) {
            map_activity pa;
            map_mapper_activity(m, p[i].activity, &pa);
            act = pa.text;
        }
        const char *near = NULL;
        if (p[i].near != UINT32_MAX) {
            graph_symbol ns;
            graph_get_symbol(g, p[i].near, &ns);
            near = ns.qualname;
        }
        out[i] = (sink_ranked){sym.qualname, graph_sym_kind_name(sym.kind),
                               sym.file,     sym.start_line,
                               sym.end_line, p[i].score,
                               act,          near};
    }
}

void serve_ranked_json(core_buf *b, const map_mapper *m, const model_pred *p, uint32_t n)
{
    sink_ranked few[16], *r = n <= 16 ? few : core_xmalloc(n * sizeof *r);
    ranked_fill(m, p, n, r);
    sink_ranked_json(r, n, b);
    if (r != few)
        free(r);
}

/* Sends one encoded prediction to the output topic, waiting while the
 * producer's queue is full (unless the daemon stops). */
static int kafka_send(serve *s, const char *case_id, size_t clen, const core_buf *val)
{
    int rc;
    while ((rc = sink_kafka_send(s->kout, case_id, clen, val->data, val->len, 100)) == -EAGAIN &&
           !s->stop)
        ;
    if (rc) {
        sink_kafka_stats ks;
        sink_kafka_get_stats(s->kout, &ks);
        core_logf(&s->lg, CORE_LOG_ERROR, "cannot produce to %s: %s%s%s", s->out_topic,
                  core_strerror(rc), ks.last_error[0] ? ": " : "", ks.last_error);
    }
    return rc;
}

int serve__publish(serve *s, const char *case_id, size_t clen, const sess_case *c,
                   const char *activity, uint32_t n, uint32_t rev, uint64_t t0)
{
    serve__stage(s, SERVE_STAGE_ENCODING);
    ranked_fill(s->m, s->pred, n, s->ranked);
    sink_prediction p = {
        .case_id = case_id,
        .case_len = clen,
        .seq = c->seq,
        .revision = rev,
        .activity = activity,
        .time_unix_nano = c->last_time_ns,
        .model_version = s->model_version_text,
        .graph_version = s->graph_version_text,
        .ranked = s->ranked,
        .nranked = n,
        .latency_us = (core_now_ns() - t0) / 1000,
        .scored = c->last_rank >= 0,
        .last_rank = c->last_rank >= 0 ? (uint32_t)c->last_rank : 0,
    };
    /* Asked once: a stream opened from now on gets the next prediction. */
    bool streaming = sink_api_streaming(s->api);
    if (s->to_stdout || streaming || (s->kout && s->out_json)) {
        core_buf_reset(&s->doc);
        sink_prediction_json(&p, &s->doc);
    }
    if (s->kout) {
        if (!s->out_json) {
            core_buf_reset(&s->val);
            sink_prediction_pb(&p, &s->val);
        }
        serve__stage(s, SERVE_STAGE_PRODUCE);
        int rc = kafka_send(s, case_id, clen, s->out_json ? &s->doc : &s->val);
        if (rc)
            return rc;
    }
    serve__stage(s, SERVE_STAGE_PRODUCE);
    if (s->to_stdout && sink_jsonl_write(stdout, s->doc.data, s->doc.len) == -EPIPE) {
        core_logf(&s->lg, CORE_LOG_WARN, "stdout closed: predictions go on to Kafka only");
        s->to_stdout = false;
    }
    if (streaming)
        sink_api_publish(s->api, case_id, clen, s->doc.data, s->doc.len);
    sink_counter_add(s->c_predictions, 1);
    if (rev)
        sink_counter_add(s->c_revised, 1);
    sink_histogram_observe(s->h_e2e, (double)(core_now_ns() - t0) * 1e-9);
    return 0;
}

void serve_query_json(core_buf *b, const map_mapper *m, const map_event *evs,
                      const model_query_event *ev, uint32_t n, const core_buf *texts,
                      const char *const *versions, const model_pred *p, uint32_t np)
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
    if (versions) {
        core_buf_puts(b, ",\"model_version\":");
        core_buf_json_str(b, versions[0], strlen(versions[0]));
        core_buf_puts(b, ",\"graph_version\":");
        core_buf_json_str(b, versions[1], strlen(versions[1]));
    }
    core_buf_puts(b, ",\"ranked\":");
    serve_ranked_json(b, m, p, np);
    core_buf_putc(b, '}');
}
