/*
 * The HTTP API's handlers (serve_int.h): a case's state and latest
 * prediction, a stateless query, metrics, readiness.
 */
#include "serve_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case's current ranking into p (s->k entries), as the engine
 * published it while the model is the same: from the stored vector, or
 * from one computed again when it came from an older model. Under mu. */
static uint32_t rank_case(serve *s, sess_case *c, model_pred *p)
{
    if (c->model_version != s->model_version)
        serve__vec_rebuild(s->md, s->api_w, s->M, c);
    ppr_vec rec = {(ppr_entry *)c->vec, c->nvec, c->nvec, c->vec_err};
    return model_rank_warm(s->md, s->api_w, c->act, c->var, c->ntok, &rec, c->vec_wsum, s->k, p);
}

static int api_case(void *ud, const char *case_id, core_buf *json)
{
    serve *s = ud;
    sess_case c;
    size_t clen = strlen(case_id);
    int rc = sess_case_get(s->env, case_id, clen, &c);
    /* Its events held back, as the engine has them now: a case whose
     * events are all held is there, at seq 0. */
    pthread_mutex_lock(&s->mu);
    uint32_t nheld = serve__reorder_nheld(s, case_id, clen);
    pthread_mutex_unlock(&s->mu);
    if (rc == CORE_ENOTFOUND && nheld) {
        memset(&c, 0, sizeof c);
        c.last_time_ns = INT64_MIN;
        c.model_version = s->model_version;
        rc = 0;
    }
    if (rc)
        return rc;
    c.nheld = nheld;
    char tbuf[40];
    ingest_format_time(c.last_time_ns == INT64_MIN ? INGEST_NO_TIME : c.last_time_ns, tbuf,
                       sizeof tbuf);
    core_buf_puts(json, "{\"case_id\":");
    core_buf_json_str(json, case_id, strlen(case_id));
    core_buf_printf(json, ",\"seq\":%llu,\"held\":%u,\"last_time\":\"%s\",\"prefix\":[",
                    (unsigned long long)c.seq, c.nheld, tbuf);
    pthread_mutex_lock(&s->mu);
    for (uint32_t i = 0; i < c.ntok; i++) {
        if (i)
            core_buf_putc(json, ',');
        if (c.act[i] < map_mapper_nactivities(s->m)) {
            map_activity pa;
            map_mapper_activity(s->m, c.act[i], &pa);
            core_buf_json_str(json, pa.text, strlen(pa.text));
        } else {
            core_buf_puts(json, "null");
        }
    }
    /* The latest prediction, ranked again from the stored state (the same
     * as the one published while the model is the same). */
    model_pred *p = core_xmalloc(s->k * sizeof *p);
    uint32_t n = rank_case(s, &c, p);
    core_buf_printf(json,
                    "],\"prefix_truncated\":%s,\"model_version\":\"%s\",\"graph_version\":\"%s\","
                    "\"ranked\":",
                    c.seq > c.ntok ? "true" : "false", s->model_version_text,
                    s->graph_version_text);
    serve_ranked_json(json, s->m, p, n);
    pthread_mutex_unlock(&s->mu);
    free(p);
    core_buf_puts(json, ",\"accuracy\":");
    serve__case_score_json(&c, json);
    core_buf_puts(json, "}");
    return 0;
}

/* ---- the live view's case list -------------------------------------- */

#define LIST_MAX 500
/* A search reads at most this many cases (the list itself pages through
 * the TTL index and reads only its page). */
#define LIST_SCAN_MAX 1000000

typedef struct list_item {
    char *id;
    size_t len;
    uint64_t seq;
    int64_t touched, last_time;
    uint32_t act;    /* UINT32_MAX: none */
    sess_case score; /* only the accuracy fields are kept */
} list_item;

typedef struct list_ctx {
    const char *q; /* NULL: every case */
    uint32_t want, n;
    uint64_t scanned;
    bool truncated;
    list_item *items;
} list_ctx;

static int list_cb(void *ud, const char *id, size_t len, const sess_case *c)
{
    list_ctx *x = ud;
    if (++x->scanned > LIST_SCAN_MAX) {
        x->truncated = true;
        return 1;
    }
    if (x->q) {
        size_t ql = strlen(x->q);
        bool found = false;
        for (size_t i = 0; !found && i + ql <= len; i++)
            found = memcmp(id + i, x->q, ql) == 0;
        if (!found)
            return 0;
    }
    list_item *it = &x->items[x->n++];
    it->id = core_xstrndup(id, len);
    it->len = len;
    it->seq = c->seq;
    it->touched = c->touched_ns;
    it->last_time = c->last_time_ns;
    it->act = c->ntok ? c->act[c->ntok - 1] : UINT32_MAX;
    it->score.scored = c->scored;
    it->score.hit1 = c->hit1;
    it->score.hit3 = c->hit3;
    it->score.hit10 = c->hit10;
    it->score.rr = c->rr;
    it->score.last_rank = c->last_rank;
    return x->n == x->want;
}

static int api_list_cases(void *ud, const char *query, core_buf *json, char *why, size_t whylen)
{
    serve *s = ud;
    bool bad = false;
    int rc = 0;
    char *lim = sink_query_param(query, "limit", &bad);
    char *q = bad ? NULL : sink_query_param(query, "q", &bad);
    char *bt = bad ? NULL : sink_query_param(query, "before_t", &bad);
    char *bid = bad ? NULL : sink_query_param(query, "before_id", &bad);
    long long limit = 50, before = 0;
    char *end = NULL;
    if (bad) {
        snprintf(why, whylen, "query: a bad percent-encoding");
        rc = CORE_EUSAGE;
    } else if (lim && ((limit = strtoll(lim, &end, 10)) < 1 || limit > LIST_MAX || *end)) {
        snprintf(why, whylen, "query parameter 'limit': expected an integer 1..%d", LIST_MAX);
        rc = CORE_EUSAGE;
    } else if (!bt != !bid) {
        snprintf(why, whylen, "query parameters 'before_t' and 'before_id' go together");
        rc = CORE_EUSAGE;
    } else if (bt && (before = strtoll(bt, &end, 10), *end || !*bt)) {
        snprintf(why, whylen, "query parameter 'before_t': expected an integer (a case's 't')");
        rc = CORE_EUSAGE;
    }
    if (rc)
        goto out;
    list_ctx x = {.q = q && *q ? q : NULL, .want = (uint32_t)limit + 1};
    x.items = core_xcalloc(x.want, sizeof *x.items);
    rc = sess_case_recent(s->env, before, bid, bid ? strlen(bid) : 0, list_cb, &x);
    if (rc == 1)
        rc = 0;
    if (rc == CORE_ELIMIT) {
        snprintf(why, whylen, "query parameter 'before_id': over %d bytes", SESS_MAX_ID);
        rc = CORE_EUSAGE;
    }
    if (!rc) {
        bool more = x.n > (uint32_t)limit;
        uint32_t shown = more ? (uint32_t)limit : x.n;
        sess_stats st;
        sess_get_stats(s->env, &st);
        int64_t now = core_wall_ns();
        core_buf_printf(json, "{\"total\":%llu,\"cases\":[", (unsigned long long)st.cases);
        pthread_mutex_lock(&s->mu);
        uint32_t nact = map_mapper_nactivities(s->m);
        for (uint32_t i = 0; i < shown; i++) {
            const list_item *it = &x.items[i];
            char tbuf[40];
            ingest_format_time(it->last_time == INT64_MIN ? INGEST_NO_TIME : it->last_time, tbuf,
                               sizeof tbuf);
            core_buf_puts(json, i ? ",{\"case_id\":" : "{\"case_id\":");
            core_buf_json_str(json, it->id, it->len);
            core_buf_printf(json, ",\"seq\":%llu,\"last_time\":\"%s\",\"age_seconds\":%.3f",
                            (unsigned long long)it->seq, tbuf, (double)(now - it->touched) * 1e-9);
            core_buf_puts(json, ",\"last_activity\":");
            if (it->act < nact) {
                map_activity pa;
                map_mapper_activity(s->m, it->act, &pa);
                core_buf_json_str(json, pa.text, strlen(pa.text));
            } else {
                core_buf_puts(json, "null");
            }
            core_buf_puts(json, ",\"accuracy\":");
            serve__case_score_json(&it->score, json);
            core_buf_putc(json, '}');
        }
        pthread_mutex_unlock(&s->mu);
        core_buf_puts(json, "],\"next\":");
        if (more) {
            const list_item *it = &x.items[shown - 1];
            core_buf_printf(json, "{\"t\":\"%lld\",\"id\":", (long long)it->touched);
            core_buf_json_str(json, it->id, it->len);
            core_buf_putc(json, '}');
        } else {
            core_buf_puts(json, "null");
        }
        core_buf_printf(json, ",\"scan_truncated\":%s}", x.truncated ? "true" : "false");
    }
    for (uint32_t i = 0; i < x.n; i++)
        free(x.items[i].id);
    free(x.items);
out:
    free(lim);
    free(q);
    free(bt);
    free(bid);
    return rc;
}

/* ---- a case's timeline and explanations -------------------------------- */

/* The rank of the first of p[0..n) among act's symbols (0: none). */
static int rank_in_activity(const map_mapper *m, const model_pred *p, uint32_t n, uint32_t act)
{
    if (act >= map_mapper_nactivities(m))
        return 0;
    map_activity pa;
    map_mapper_activity(m, act, &pa);
    for (uint32_t i = 0; i < n && i < 10; i++)
        for (uint32_t j = 0; j < pa.nsyms; j++)
            if (p[i].symbol == pa.syms[j])
                return (int)i + 1;
    return 0;
}

/*
 * The case's stored events (its last SESS_MAX_TOKENS), each with the
 * prediction after it and the rank the next event had in it. The latest
 * prediction is the case's own (warm, as published while the model is the
 * same), and so is the score of the one before it (the case's last_rank,
 * from the event's code.* when it had them); earlier predictions are not
 * stored, so they are ranked again from the stored events (cold, as
 * `pmrag eval` ranks) and scored against the next event's activity.
 */
static int api_timeline(void *ud, const char *case_id, core_buf *json)
{
    serve *s = ud;
    sess_case c;
    int rc = sess_case_get(s->env, case_id, strlen(case_id), &c);
    if (rc)
        return rc;
    core_buf_puts(json, "{\"case_id\":");
    core_buf_json_str(json, case_id, strlen(case_id));
    model_pred *p = core_xmalloc(s->k * sizeof *p);
    pthread_mutex_lock(&s->mu); /* (the versions change under it too) */
    core_buf_printf(json,
                    ",\"seq\":%llu,\"model_version\":\"%s\",\"graph_version\":\"%s\",\"events\":[",
                    (unsigned long long)c.seq, s->model_version_text, s->graph_version_text);
    uint32_t nact = map_mapper_nactivities(s->m);
    for (uint32_t i = 0; i < c.ntok; i++) {
        bool latest = i + 1 == c.ntok;
        uint32_t n;
        if (latest)
            n = rank_case(s, &c, p);
        else
            n = model_rank(s->md, s->api_w, c.act, c.var, i + 1, s->k, p);
        core_buf_printf(json, "%s{\"seq\":%llu,\"activity\":", i ? "," : "",
                        (unsigned long long)c.seq - c.ntok + i + 1);
        if (c.act[i] < nact) {
            map_activity pa;
            map_mapper_activity(s->m, c.act[i], &pa);
            core_buf_json_str(json, pa.text, strlen(pa.text));
        } else {
            core_buf_puts(json, "null");
        }
        core_buf_puts(json, ",\"ranked\":");
        serve_ranked_json(json, s->m, p, n);
        if (latest)
            core_buf_puts(json, ",\"next_rank\":null,\"recomputed\":false");
        else if (i + 2 == c.ntok && c.last_rank >= 0)
            core_buf_printf(json, ",\"next_rank\":%d,\"recomputed\":true", c.last_rank);
        else
            core_buf_printf(json, ",\"next_rank\":%d,\"recomputed\":true",
                            rank_in_activity(s->m, p, n, c.act[i + 1]));
        core_buf_putc(json, '}');
    }
    pthread_mutex_unlock(&s->mu);
    free(p);
    core_buf_puts(json, "],\"accuracy\":");
    serve__case_score_json(&c, json);
    core_buf_puts(json, "}");
    return 0;
}

static void node_json(const model_joint *md, uint32_t node, core_buf *json)
{
    core_buf t = {0}, one = {0};
    model_node_text(md, node, &t);
    core_buf_oneline(&one, t.data ? t.data : "", 200);
    core_buf_json_str(json, one.data ? one.data : "", one.len);
    core_buf_free(&t);
    core_buf_free(&one);
}

/* The walk path that gives the case's current rank-R symbol most of its
 * score (what `pmrag query --explain` prints). */
static int api_explain(void *ud, const char *case_id, const char *query, core_buf *json, char *why,
                       size_t whylen)
{
    serve *s = ud;
    bool bad = false;
    char *rs = sink_query_param(query, "rank", &bad), *end = NULL;
    long r = rs ? strtol(rs, &end, 10) : 0;
    bool ok = rs && *rs && !*end && r >= 1 && r <= (long)s->k;
    free(rs);
    if (!ok) {
        snprintf(why, whylen, "query parameter 'rank': expected an integer 1..%u", s->k);
        return CORE_EUSAGE;
    }
    sess_case c;
    int rc = sess_case_get(s->env, case_id, strlen(case_id), &c);
    if (rc)
        return rc;
    model_pred *p = core_xmalloc(s->k * sizeof *p);
    pthread_mutex_lock(&s->mu);
    uint32_t n = rank_case(s, &c, p);
    if ((uint32_t)r > n) {
        pthread_mutex_unlock(&s->mu);
        free(p);
        snprintf(why, whylen, "query parameter 'rank': the prediction has %u symbols", n);
        return CORE_EUSAGE;
    }
    graph_symbol sym;
    graph_get_symbol(s->g, p[r - 1].symbol, &sym);
    core_buf_printf(json, "{\"case_id\":");
    core_buf_json_str(json, case_id, strlen(case_id));
    core_buf_printf(json, ",\"rank\":%ld,\"symbol\":", r);
    core_buf_json_str(json, sym.qualname, strlen(sym.qualname));
    ppr_path path;
    int erc = model_explain(s->md, s->api_w, p[r - 1].symbol, 200000, &path);
    if (erc) {
        core_buf_puts(json, ",\"path\":[],\"reason\":");
        const char *e = core_strerror(erc);
        core_buf_json_str(json, e, strlen(e));
    } else {
        core_buf_puts(json, ",\"seed\":");
        node_json(s->md, path.seed, json);
        core_buf_puts(json, ",\"path\":[");
        for (uint32_t j = 0; j < path.len; j++) {
            core_buf_printf(json, "%s{\"edge\":\"%s\",\"prob\":%.6g,\"to\":", j ? "," : "",
                            model_edge_name(path.steps[j].type), (double)path.steps[j].prob);
            node_json(s->md, path.steps[j].to, json);
            core_buf_putc(json, '}');
        }
        core_buf_printf(json, "],\"share\":%.6g", path.share);
        core_buf code = {0};
        if (model_explain_code(s->md, s->api_w, p[r - 1].symbol, &code)) {
            core_buf_puts(json, ",\"code\":");
            core_buf_json_str(json, code.data, code.len);
        }
        core_buf_free(&code);
    }
    pthread_mutex_unlock(&s->mu);
    free(p);
    core_buf_putc(json, '}');
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
    map_event *evs = core_xcalloc(n, sizeof *evs);
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(trace, i);
        evs[i] = (map_event){.text = json_string_value(t), .len = json_string_length(t)};
    }
    model_query_event *ev = core_xmalloc(n * sizeof *ev);
    model_pred *p = core_xmalloc((size_t)k * sizeof *p);
    core_buf texts = {0};
    pthread_mutex_lock(&s->mu);
    uint32_t np = model_query(s->md, s->api_w, s->m, evs, (uint32_t)n, (uint32_t)k, ev, &texts, p);
    const char *versions[2] = {s->model_version_text, s->graph_version_text};
    serve_query_json(json, s->m, evs, ev, (uint32_t)n, &texts, versions, p, np);
    pthread_mutex_unlock(&s->mu);
    core_buf_free(&texts);
    free(evs);
    free(ev);
    free(p);
out:
    json_decref(doc);
    return rc;
}

static void api_metrics(void *ud, core_buf *text)
{
    serve *s = ud;
    serve__gauges(s);
    serve__memory_gauges(s);
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
    if (serve__full_why(s, why))
        return false;
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

/* Only the flag, as serve_reload sets it: the engine reloads between
 * cycles. */
static void api_reload(void *ud)
{
    serve *s = ud;
    s->reload = 1;
}

sink_api_ops serve__api_ops(serve *s)
{
    return (sink_api_ops){.get_case = api_case,
                          .query = api_query,
                          .metrics = api_metrics,
                          .ready = api_ready,
                          .stats = api_stats,
                          .list_cases = api_list_cases,
                          .timeline = api_timeline,
                          .explain = api_explain,
                          .reload = api_reload,
                          .ud = s};
}
