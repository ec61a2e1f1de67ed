/*
 * The daemon's start and stop (serve.h): the state, the model, the
 * listeners, the Kafka clients, the committer; the engine's loop.
 */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits text at sep into trimmed, non-empty items. */
static void split_list(const char *text, char sep, list *out)
{
    out->n = core_split(text, sep, &out->v);
}

static void list_free(list *l)
{
    core_split_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

static int kafka_start(serve *s, char *why, size_t whylen)
{
    const char *brokers = core_cfg_str(s->cfg, "kafka.brokers");
    split_list(core_cfg_str(s->cfg, "kafka.input_topics"), ',', &s->in_topics);
    split_list(core_cfg_str(s->cfg, "kafka.logs_topics"), ',', &s->logs_topics);
    s->out_topic = core_cfg_str(s->cfg, "kafka.output_topic");
    /* (The configuration table allows only the names it knows.) */
    if (ingest_kafka_encoding_parse(core_cfg_str(s->cfg, "kafka.input_encoding"),
                                    &s->in_encoding) != 0)
        s->in_encoding = INGEST_KAFKA_AUTO;
    s->out_json = strcmp(core_cfg_str(s->cfg, "kafka.output_encoding"), "json") == 0;
    int rc = 0;
    if (!*brokers) {
        if (!core_cfg_bool(s->cfg, "kafka.embedded")) {
            core_logf(&s->lg, CORE_LOG_INFO,
                      "Kafka off: no kafka.brokers (kafka.embedded=true runs an in-memory cluster "
                      "for trying pmrag)");
            if (*core_cfg_str(s->cfg, "kafka.properties"))
                core_logf(&s->lg, CORE_LOG_WARN, "kafka.properties ignored: Kafka is off");
            return 0;
        }
        rc = ingest_kafka_mock_new(1, &s->mock, why, whylen);
        if (rc)
            return rc;
        int parts = (int)core_cfg_int(s->cfg, "kafka.partitions");
        for (size_t i = 0; i < s->in_topics.n && !rc; i++)
            rc = ingest_kafka_mock_topic(s->mock, s->in_topics.v[i], parts, why, whylen);
        if (!rc && *s->out_topic)
            rc = ingest_kafka_mock_topic(s->mock, s->out_topic, parts, why, whylen);
        if (rc)
            return rc;
        brokers = ingest_kafka_mock_bootstrap(s->mock);
        core_logf(&s->lg, CORE_LOG_WARN,
                  "embedded Kafka (librdkafka's mock cluster) at %s: it keeps messages in this "
                  "process's memory, so everything it acknowledged is lost when pmrag stops; set "
                  "kafka.brokers for input you keep",
                  brokers);
    }
    s->bootstrap = core_xstrdup(brokers);
    list props;
    split_list(core_cfg_str(s->cfg, "kafka.properties"), ';', &props);
    bool changelog = core_cfg_bool(s->cfg, "kafka.changelog") && s->in_topics.n;
    if (changelog) {
        core_buf t = {0};
        core_buf_printf(&t, "%s-cases-changelog", core_cfg_str(s->cfg, "kafka.group"));
        s->cl_topic = core_xstrdup(t.data);
        core_buf_free(&t);
        sink_kafka_opts ko = {.bootstrap = s->bootstrap,
                              .topic = s->cl_topic,
                              .props = (const char *const *)props.v,
                              .nprops = props.n,
                              .log = s->lg};
        rc = sink_kafka_new(&ko, &s->kcl, why, whylen);
        if (rc) {
            list_free(&props);
            return rc;
        }
    }
    if (*s->out_topic) {
        sink_kafka_opts ko = {.bootstrap = s->bootstrap,
                              .topic = s->out_topic,
                              .props = (const char *const *)props.v,
                              .nprops = props.n,
                              .log = s->lg};
        rc = sink_kafka_new(&ko, &s->kout, why, whylen);
    }
    if (!rc && changelog && s->in_topics.n > 1) {
        /* Partition P of every input topic to one instance (the changelog
         * holds P's cases together): the range assignor, unless told. */
        bool given = false;
        for (size_t i = 0; i < props.n; i++)
            given |= strncmp(props.v[i], "partition.assignment.strategy=", 30) == 0;
        if (!given) {
            props.v = core_xrealloc(props.v, (props.n + 1) * sizeof *props.v);
            props.v[props.n++] = core_xstrdup("partition.assignment.strategy=range");
        }
    }
    if (!rc && s->in_topics.n) {
        ingest_kafka_opts ki = {
            .bootstrap = s->bootstrap,
            .group = core_cfg_str(s->cfg, "kafka.group"),
            .topics = (const char *const *)s->in_topics.v,
            .ntopics = s->in_topics.n,
            .props = (const char *const *)props.v,
            .nprops = props.n,
            .start_offset = serve__start_offset,
            .revoked = changelog ? serve__on_revoked : NULL,
            .ud = s,
            .stats_interval_ms = 1000,
            .log = s->lg,
        };
        rc = ingest_kafka_new(&ki, &s->kin, why, whylen);
        s->kio = ki;
        s->kio.start_offset = NULL;
        s->kio.revoked = NULL;
    }
    if (!rc && changelog && s->learn_online) {
        core_buf t = {0};
        core_buf_printf(&t, "%s-follows", core_cfg_str(s->cfg, "kafka.group"));
        s->fo_topic = core_xstrdup(t.data);
        core_buf_free(&t);
        s->instance_id = serve__instance_id(s);
        sink_kafka_opts ko = {.bootstrap = s->bootstrap,
                              .topic = s->fo_topic,
                              .props = (const char *const *)props.v,
                              .nprops = props.n,
                              .log = s->lg};
        rc = sink_kafka_new(&ko, &s->kfo, why, whylen);
        if (!rc)
            rc = ingest_kafka_tail_new(&s->kio, s->fo_topic, serve__follows_start, s, &s->ftail,
                                       why, whylen);
    }
    if (!rc)
        rc = serve__dead_letter_open(s, (const char *const *)props.v, props.n, why, whylen);
    s->kprops = props; /* the restores use them */
    return rc;
}

static int write_ready(serve *s, const char *path)
{
    core_buf b = {0};
    core_buf_puts(&b, "{\"otlp_http\":");
    const char *a = s->otlp ? ingest_otlp_http_address(s->otlp) : "";
    core_buf_json_str(&b, a, strlen(a));
    core_buf_puts(&b, ",\"otlp_grpc\":");
    a = s->grpc ? ingest_otlp_grpc_address(s->grpc) : "";
    core_buf_json_str(&b, a, strlen(a));
    a = s->api ? sink_api_address(s->api) : "";
    core_buf_puts(&b, ",\"api\":");
    core_buf_json_str(&b, a, strlen(a));
    a = s->bootstrap ? s->bootstrap : "";
    core_buf_puts(&b, ",\"kafka_bootstrap\":");
    core_buf_json_str(&b, a, strlen(a));
    core_buf_puts(&b, ",\"input_topics\":[");
    for (size_t i = 0; s->bootstrap && i < s->in_topics.n; i++) {
        if (i)
            core_buf_putc(&b, ',');
        core_buf_json_str(&b, s->in_topics.v[i], strlen(s->in_topics.v[i]));
    }
    core_buf_puts(&b, "],\"output_topic\":");
    a = s->kout ? s->out_topic : "";
    core_buf_json_str(&b, a, strlen(a));
    core_buf_puts(&b, "}\n");
    int rc = core_write_file_atomic(path, b.data, b.len);
    core_buf_free(&b);
    return rc;
}

static void serve_free(serve *s)
{
    serve__mem_watch_stop(s);
    if (s->api)
        sink_api_stop(s->api);
    if (s->otlp)
        ingest_otlp_http_stop(s->otlp);
    ingest_otlp_grpc_stop(s->grpc);
    ingest_kafka_free(s->kin);
    sink_kafka_free(s->kout);
    sink_kafka_free(s->kdl);
    sink_kafka_free(s->kcl);
    free(s->cl_topic);
    ingest_kafka_tail_free(s->ftail);
    sink_kafka_free(s->kfo);
    free(s->fo_topic);
    core_buf_free(&s->fov);
    list_free(&s->kprops);
    core_vec_free(&s->restored);
    for (size_t i = 0; i < s->cl_pos.n; i++)
        free(s->cl_pos.v[i].topic);
    core_vec_free(&s->cl_pos);
    core_buf_free(&s->clv);
    serve__clq_free(&s->clqs[0]);
    serve__clq_free(&s->clqs[1]);
    ingest_kafka_mock_free(s->mock);
    free(s->bootstrap);
    serve__committer_stop(s);
    if (s->batch)
        sess_batch_free(s->batch);
    if (s->inflight)
        sess_batch_free(s->inflight);
    if (s->spare)
        sess_batch_free(s->spare);
    if (s->xbatch)
        sess_batch_free(s->xbatch);
    sess_recent_free(s->recent);
    serve__reorder_free(s);
    for (size_t i = 0; i < s->c.npos; i++)
        free(s->c.pos[i].topic);
    free(s->c.pos);
    serve__reload_cancel(s);
    if (s->env)
        sess_close(s->env);
    if (s->rebuilding)
        pthread_join(s->rebuild_thread, NULL);
    model_free(s->next_md);
    model_work_free(s->w);
    model_work_free(s->api_w);
    if (s->md != s->base_md)
        model_free(s->md);
    model_free(s->base_md);
    map_mapper_free(s->m);
    core_map_free(&s->obs_idx);
    core_vec_free(&s->obs);
    map_overrides_free(s->ov);
    if (s->g)
        graph_close(s->g);
    for (size_t i = 0; i < s->pos.n; i++)
        free(s->pos.v[i].topic);
    core_vec_free(&s->pos);
    list_free(&s->in_topics);
    list_free(&s->logs_topics);
    sess_rules_free(s->rules);
    list_free(&s->case_attrs);
    free(s->pred);
    free(s->ranked);
    core_buf_free(&s->val);
    core_buf_free(&s->doc);
    if (s->mx)
        sink_metrics_free(s->mx);
    core_cfg_free(s->cfg);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->qmu);
    pthread_mutex_destroy(&s->cmu);
    pthread_mutex_destroy(&s->gmu);
    pthread_mutex_destroy(&s->amu);
    pthread_cond_destroy(&s->ccv);
    pthread_cond_destroy(&s->qcv);
    pthread_cond_destroy(&s->dcv);
    free(s);
}

/* The options of serve.* and limits.* read once. */
static void settings(serve *s)
{
    s->code_attrs = core_cfg_bool(s->cfg, "map.code_attrs");
    s->M = (uint32_t)core_cfg_int(s->cfg, "model.state_entries");
    if (s->M > SESS_MAX_VEC)
        s->M = SESS_MAX_VEC;
    s->k = (uint32_t)core_cfg_int(s->cfg, "serve.k");
    s->stage_every = (uint64_t)core_cfg_int(s->cfg, "serve.stage_sample");
    s->batch_max = (uint32_t)core_cfg_int(s->cfg, "serve.batch");
    s->qmax = (size_t)core_cfg_int(s->cfg, "serve.queue_events");
    s->max_attrs = (uint32_t)core_cfg_int(s->cfg, "limits.record_attrs");
    s->max_str = (size_t)core_cfg_int(s->cfg, "limits.string_bytes");
    sess_rules_opts ro = {
        .new_cases_per_second = (uint64_t)core_cfg_int(s->cfg, "limits.new_cases_per_second"),
        .max_events = (uint64_t)core_cfg_int(s->cfg, "limits.case_events"),
        .end_activities = core_cfg_str(s->cfg, "state.end_activities"),
    };
    s->rules = sess_rules_new(&ro);
    s->to_stdout = core_cfg_bool(s->cfg, "serve.stdout");
    s->ttl_ns = core_cfg_int(s->cfg, "state.ttl") * 1000000000ll;
    split_list(core_cfg_str(s->cfg, "serve.case_attrs"), ',', &s->case_attrs);
    s->eo.in.case_attrs = (const char *const *)s->case_attrs.v;
    s->eo.in.ncase_attrs = s->case_attrs.n;
    s->eo.in.log = s->lg;
    s->pred = core_xmalloc(s->k * sizeof *s->pred);
    s->ranked = core_xmalloc(s->k * sizeof *s->ranked);
    s->learn_online = core_cfg_bool(s->cfg, "model.learn_online");
    s->obs_max = (uint64_t)core_cfg_int(s->cfg, "model.online_windows");
    s->rebuild_events = (uint64_t)core_cfg_int(s->cfg, "model.rebuild_events");
    s->rebuild_every_ns = (uint64_t)core_cfg_int(s->cfg, "model.rebuild_seconds") * 1000000000ull;
    s->rebuild_min_ns = (uint64_t)core_cfg_int(s->cfg, "model.rebuild_min_seconds") * 1000000000ull;
}

/* <prefix>.max_connections and its kin, read the same way for both
 * listeners. */
static core_http_limits http_limits(const core_cfg *cfg, const char *prefix)
{
    char k[64];
#define LIMIT(name) (snprintf(k, sizeof k, "%s." name, prefix), (unsigned)core_cfg_int(cfg, k))
    core_http_limits l = {
        .max_conns = LIMIT("max_connections"),
        .max_conns_per_addr = LIMIT("max_connections_per_address"),
        .conn_timeout = LIMIT("connection_timeout"),
        .header_timeout = LIMIT("header_timeout"),
        .body_timeout = LIMIT("body_timeout"),
    };
#undef LIMIT
    return l;
}

/* The listeners: OTLP/HTTP in, the API out. */
/* ui.source_url: empty, or an http(s) URL whose only {placeholders} are
 * {file}, {line} and {rev} (the page fills them in; anything else would
 * end up in links as it is). */
static int check_source_url(const char *u, char *why, size_t whylen)
{
    if (!*u)
        return 0;
    if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0) {
        snprintf(why, whylen, "ui.source_url: '%s': expected an http:// or https:// URL template",
                 u);
        return CORE_EUSAGE;
    }
    for (const char *p = strchr(u, '{'); p; p = strchr(p + 1, '{')) {
        if (strncmp(p, "{file}", 6) != 0 && strncmp(p, "{line}", 6) != 0 &&
            strncmp(p, "{rev}", 5) != 0) {
            const char *e = strchr(p, '}');
            snprintf(why, whylen,
                     "ui.source_url: unknown placeholder '%.*s' (known: {file}, {line}, {rev})",
                     e ? (int)(e - p + 1) : 1, p);
            return CORE_EUSAGE;
        }
    }
    if (!strstr(u, "{file}")) {
        snprintf(why, whylen, "ui.source_url: '%s': no {file} in it", u);
        return CORE_EUSAGE;
    }
    return 0;
}

static int listeners_start(serve *s, char *why, size_t whylen)
{
    char w2[512];
    /* OTLP/HTTP and OTLP/gRPC: the same limits, token, certificate and
     * decoding rules; only the address differs. */
    ingest_otlp_recv_opts ro = {.max_body = (size_t)core_cfg_int(s->cfg, "otlp.max_body"),
                                .threads = (unsigned)core_cfg_int(s->cfg, "otlp.threads"),
                                .limits = http_limits(s->cfg, "otlp"),
                                .case_attrs = s->eo.in.case_attrs,
                                .ncase = s->eo.in.ncase_attrs,
                                .max_attrs = s->max_attrs,
                                .max_str = s->max_str,
                                .max_case_id = SESS_MAX_ID,
                                .busy = serve__otlp_busy,
                                .busy_early = serve__otlp_refuse_early,
                                .log = s->lg,
                                .token_file = core_cfg_str(s->cfg, "otlp.token_file"),
                                .tls_cert = core_cfg_str(s->cfg, "otlp.tls_cert"),
                                .tls_key = core_cfg_str(s->cfg, "otlp.tls_key")};
    const char *otlp_listen = core_cfg_str(s->cfg, "otlp.listen");
    if (*otlp_listen) {
        ro.listen = otlp_listen;
        int rc = ingest_otlp_http_start(&ro, serve__on_otlp, s, &s->otlp, w2, sizeof w2);
        if (rc) {
            snprintf(why, whylen, "OTLP/HTTP: %s", w2);
            return rc;
        }
    }
    const char *grpc_listen = core_cfg_str(s->cfg, "otlp.grpc_listen");
    if (*grpc_listen) {
        ro.listen = grpc_listen;
        ingest_otlp_grpc *g;
        int rc = ingest_otlp_grpc_start(&ro, serve__on_otlp_grpc, s, &g, w2, sizeof w2);
        if (rc) {
            snprintf(why, whylen, "OTLP/gRPC (otlp.grpc_listen): %s", w2);
            return rc;
        }
        /* Under gmu: a /metrics request may already be reading s->grpc. */
        pthread_mutex_lock(&s->gmu);
        s->grpc = g;
        pthread_mutex_unlock(&s->gmu);
    }
    const char *api_listen = core_cfg_str(s->cfg, "api.listen");
    if (*api_listen) {
        sink_api_ops ops = serve__api_ops(s);
        sink_api_opts ao = {.listen = api_listen,
                            .token_file = core_cfg_str(s->cfg, "api.token_file"),
                            .metrics_open = core_cfg_bool(s->cfg, "api.metrics_open"),
                            .tls_cert = core_cfg_str(s->cfg, "api.tls_cert"),
                            .tls_key = core_cfg_str(s->cfg, "api.tls_key"),
                            .limits = http_limits(s->cfg, "api"),
                            .log = s->lg,
                            .max_streams = (unsigned)core_cfg_int(s->cfg, "api.streams"),
                            .stream_rate = core_cfg_double(s->cfg, "api.stream_rate"),
                            .ui = core_cfg_bool(s->cfg, "ui.enabled"),
                            .ui_source_url = core_cfg_str(s->cfg, "ui.source_url"),
                            .ui_source_rev = core_cfg_str(s->cfg, "ui.source_rev")};
        sink_api *api;
        int rc = sink_api_start(&ao, &ops, &api, w2, sizeof w2);
        if (rc) {
            snprintf(why, whylen, "API: %s", w2);
            return rc;
        }
        /* Under gmu: a /metrics request may already be reading s->api. */
        pthread_mutex_lock(&s->gmu);
        s->api = api;
        pthread_mutex_unlock(&s->gmu);
    }
    return 0;
}

int serve_open(const serve_opts *o, serve **out, char *why, size_t whylen)
{
    serve *s = core_xcalloc(1, sizeof *s);
    s->cfg = o->cfg;
    s->lg = o->log;
    s->graph_path = o->graph_path;
    s->model_path = o->model_path;
    s->overrides_path = o->overrides_path;
    s->ready_file = o->ready_file;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->qmu, NULL);
    pthread_mutex_init(&s->cmu, NULL);
    pthread_mutex_init(&s->gmu, NULL);
    pthread_mutex_init(&s->amu, NULL);
    pthread_cond_init(&s->ccv, NULL);
    pthread_cond_init(&s->qcv, NULL);
    pthread_cond_init(&s->dcv, NULL);
    settings(s);
    char w2[512];
    /* Before anything slow (a model trained at start), so that a typo is
     * told at once. */
    int rc = check_source_url(core_cfg_str(s->cfg, "ui.source_url"), why, whylen);
    if (rc)
        goto fail;
    /* A copy, not a mapping: the file may be written over while we run
     * (a new release, before its SIGHUP). */
    rc = graph_load(s->graph_path, &s->g, w2, sizeof w2);
    if (rc) {
        if (rc == -ENOENT || rc == -EACCES || rc == -EISDIR)
            snprintf(why, whylen, "cannot open %s: %s", s->graph_path, w2);
        else
            snprintf(why, whylen, "%s: %s", s->graph_path, w2);
        rc = CORE_EUSAGE;
        goto fail;
    }
    serve__graph_set(s, graph_file_hash(s->g));
    if (s->overrides_path &&
        map_overrides_load(s->overrides_path, s->g, &s->ov, why, whylen) != 0) {
        rc = CORE_EUSAGE;
        goto fail;
    }
    const char *dir = core_cfg_str(s->cfg, "state.dir");
    sess_opts so = {.path = dir,
                    .map_size = (size_t)core_cfg_int(s->cfg, "state.map_size"),
                    .map_max = (size_t)core_cfg_int(s->cfg, "state.map_max"),
                    .log = s->lg};
    if ((rc = sess_open(&so, &s->env, why, whylen)) != 0)
        goto fail;
    s->batch = sess_batch_new();
    serve__metrics_init(s);
    map_mapper *m;
    model_joint *md;
    if ((rc = serve__model_build(s, s->g, NULL, s->ov, &m, &md, why, whylen)) != 0)
        goto fail;
    s->m = m;
    s->base_vars = map_mapper_nvariants(m); /* before the online ones come back */
    uint32_t first = map_mapper_nactivities(m);
    bool remapped;
    if ((rc = serve__dict_replay(s, s->graph_hash, NULL, &remapped, why, whylen)) != 0 ||
        (rc = serve__model_install(s, s->g, s->ov, m, md, true, why, whylen)) != 0) {
        if (!s->md)
            model_free(md);
        goto fail;
    }
    /* Online activities of a graph served before this start: their
     * records again, naming this graph's symbols. */
    if (remapped)
        serve__dict_save(s, first);
    s->last_rebuild_ns = core_now_ns();
    serve__online_load(s);
    serve__requests_load(s);
    serve__reorder_open(s);
    serve__model_version_set(s, false);
    {
        model_stats st;
        model_get_stats(s->base_md, &st);
        s->base_acts = st.activities;
        model_get_stats(s->md, &st);
        core_logf(&s->lg, CORE_LOG_INFO,
                  "model %s: %u activities, %u contexts from %llu cases; %zu KiB of activity "
                  "vectors (%u entries each)",
                  s->model_version_text, st.activities, st.contexts,
                  (unsigned long long)st.train_cases, model_stream_bytes(s->md) >> 10, s->M);
    }
    if ((rc = kafka_start(s, w2, sizeof w2)) != 0) {
        snprintf(why, whylen, "Kafka: %s", w2);
        goto fail;
    }
    if ((rc = listeners_start(s, why, whylen)) != 0)
        goto fail;
    if ((rc = serve__committer_start(s)) != 0) {
        snprintf(why, whylen, "cannot start the committer thread");
        goto fail;
    }
    /* The state's model record and dictionary (from the replay) first. */
    if ((rc = serve__pipe_sync(s)) != 0) {
        snprintf(why, whylen, "state %s: the first commit failed", dir);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    serve_close(s);
    return rc;
}

/* Ready means consuming: cycles run (OTLP/HTTP is served meanwhile) until
 * the group has given this instance its partitions. */
static int wait_assigned(serve *s)
{
    uint64_t t0 = core_now_ns(), said = t0;
    for (;;) {
        ingest_kafka_stats ks;
        ingest_kafka_get_stats(s->kin, &ks);
        if (ks.assigned > 0 || s->stop)
            return 0;
        int rc = serve__cycle(s, false);
        if (rc)
            return rc;
        if (core_now_ns() - said > 10000000000ull) {
            said = core_now_ns();
            core_logf(&s->lg, CORE_LOG_WARN,
                      "still waiting for the consumer group %s to assign partitions (%llu s)",
                      core_cfg_str(s->cfg, "kafka.group"),
                      (unsigned long long)((said - t0) / 1000000000ull));
        }
    }
}

int serve_run(serve *s)
{
    int rc = s->kin ? wait_assigned(s) : 0;
    if (rc)
        return rc;
    if (s->ready_file && write_ready(s, s->ready_file) != 0) {
        core_logf(&s->lg, CORE_LOG_ERROR, "cannot write %s", s->ready_file);
        return CORE_EUSAGE;
    }
    serve__mem_watch_start(s);
    atomic_store(&s->ready, true);
    core_logf(&s->lg, CORE_LOG_INFO,
              "serving: OTLP/HTTP %s, OTLP/gRPC %s, API %s, Kafka %s (in: %zu topics, out: %s)",
              s->otlp ? ingest_otlp_http_address(s->otlp) : "off",
              s->grpc ? ingest_otlp_grpc_address(s->grpc) : "off",
              s->api ? sink_api_address(s->api) : "off", s->bootstrap ? s->bootstrap : "off",
              s->kin ? s->in_topics.n : 0, s->kout ? s->out_topic : "off");
    while (!s->stop && !rc) {
        if (s->reload) {
            s->reload = 0;
            serve__reload_start(s);
        }
        serve__reload_step(s);
        rc = serve__cycle(s, false);
    }
    /* Stop: refuse new requests, apply what is queued, stop the receiver
     * (whose threads wait for us), then flush and commit the rest. */
    atomic_store(&s->ready, false);
    pthread_mutex_lock(&s->qmu);
    s->stopping = true;
    pthread_mutex_unlock(&s->qmu);
    if (!rc)
        rc = serve__cycle(s, true);
    /* The receivers stop: calls in progress are answered by the committer
     * (their batches are in it), new ones are refused (stopping). */
    pthread_mutex_lock(&s->gmu); /* the metrics handler reads them */
    ingest_otlp_http *o = s->otlp;
    ingest_otlp_grpc *g = s->grpc;
    s->otlp = NULL;
    s->grpc = NULL;
    pthread_mutex_unlock(&s->gmu);
    ingest_otlp_http_stop(o);
    ingest_otlp_grpc_stop(g);
    while (!rc) {
        rc = serve__cycle(s, true);
        pthread_mutex_lock(&s->qmu);
        bool more = s->qhead != NULL;
        pthread_mutex_unlock(&s->qmu);
        if (!more)
            break;
    }
    if (!rc)
        rc = serve__pipe_sync(s);
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR,
                  "stopped on an error; the state is as of the last commit");
    else
        core_logf(&s->lg, CORE_LOG_INFO, "stopped cleanly");
    return rc;
}

void serve_stop(serve *s)
{
    s->stop = 1;
}

void serve_reload(serve *s)
{
    s->reload = 1;
}

void serve_close(serve *s)
{
    if (!s)
        return;
    /* Requests still waiting get an error (503) rather than hang: those
     * the committer holds, those applied into a batch that will not be
     * committed, those queued. */
    if (s->inflight)
        serve__pipe_reap(s, true);
    serve__committer_stop(s);
    if (s->reqs)
        serve__answer(s, s->reqs, -EIO);
    s->reqs = NULL;
    pthread_mutex_lock(&s->qmu);
    s->stopping = true;
    pending *left = s->qhead;
    s->qhead = s->qtail = NULL;
    pthread_mutex_unlock(&s->qmu);
    if (left)
        serve__answer(s, left, -EAGAIN);
    serve_free(s);
}
