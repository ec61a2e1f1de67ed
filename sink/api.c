/*
 * The daemon's HTTP API on core_http: case state, stateless queries,
 * /metrics, /livez and /readyz. Routing and status codes live here; what
 * the answers say comes from the daemon through sink_api_ops.
 */
#include "sink.h"
#include "ui_assets.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_DEFAULT_LISTEN "127.0.0.1:8318"
/* Query documents are small; a larger body is a mistake, not a query. */
#define API_MAX_BODY ((size_t)4 << 20)
#define API_CASES_PREFIX "/v1/cases/"

#define API_STREAM_PREFIX "/v1/stream"
#define API_DEFAULT_STREAM_RATE 20.0

/* One open event stream and what it wants. */
typedef struct sub {
    struct sub *next;
    core_http_stream *st;
    char *case_id; /* NULL: every case */
    size_t case_len;
    double tokens; /* the rate's bucket */
    uint64_t last_ns;
    uint64_t skipped; /* since the last prediction sent */
} sub;

struct sink_api {
    core_http *http;
    sink_api_ops ops;
    core_logger log;
    /* Streams, under sub_mu (taken before a stream's own lock). */
    pthread_mutex_t sub_mu;
    sub *subs;
    unsigned nsubs, max_streams;
    atomic_uint open_streams;
    double rate;
    _Atomic uint64_t skipped, cut_off;
    /* The live view: its settings as /ui/config.json; NULL: off. */
    char *ui_config;
    bool authenticated; /* a token is asked for (the admin routes need one) */
};

/* The live view's pages may load only what this server sends (no inline
 * script or style, nothing from elsewhere), may not be framed, and send no
 * referrer (a case id in the URL is the users' data). */
static const char ui_csp[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
static const char *const ui_headers[] = {"Content-Security-Policy",
                                         ui_csp,
                                         "X-Content-Type-Options",
                                         "nosniff",
                                         "Referrer-Policy",
                                         "no-referrer",
                                         "Cache-Control",
                                         "no-cache",
                                         NULL};

static void json_error(core_http_resp *resp, int status, const char *msg)
{
    resp->status = status;
    resp->content_type = "application/json";
    core_buf_reset(&resp->body);
    core_buf_puts(&resp->body, "{\"error\":");
    core_buf_json_str(&resp->body, msg, strlen(msg));
    core_buf_puts(&resp->body, "}\n");
}

static void text(core_http_resp *resp, int status, const char *ctype, const char *msg, size_t n)
{
    resp->status = status;
    resp->content_type = ctype;
    core_buf_append(&resp->body, msg, n);
}

/* Percent-decodes s into a malloc'd string; NULL for a broken escape or
 * an encoded NUL (a case id is a C string). */
static char *pct_decode(const char *s)
{
    core_buf b = {0};
    if (core_pct_decode(&b, s, strlen(s)) != 0 || memchr(b.data, 0, b.len)) {
        core_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static bool is(const char *method, const char *want)
{
    return strcmp(method, want) == 0;
}

/* GET and HEAD routes (libmicrohttpd drops the body of a HEAD answer). */
static bool is_get(const char *method)
{
    return is(method, "GET") || is(method, "HEAD");
}

static void method_not_allowed(core_http_resp *resp, const char *allow)
{
    json_error(resp, 405, "method not allowed");
    resp->allow = allow;
}

/* Answers a case lookup (get_case, timeline, explain) from its result:
 * 200 with json (taken), 404, 400 with why (a bad query), or 500, logged
 * with the request's path (pre and path, joined). Frees json otherwise. */
static void case_answer(sink_api *a, const char *id, int rc, core_buf *json, const char *why,
                        const char *pre, const char *path, core_http_resp *resp)
{
    if (rc == 0) {
        resp->status = 200;
        resp->content_type = "application/json";
        resp->body = *json;
        return;
    }
    core_buf_free(json);
    core_buf msg = {0};
    if (rc == CORE_ENOTFOUND) {
        core_buf_printf(&msg, "case '%s' not found", id);
        json_error(resp, 404, msg.data);
    } else if (rc == CORE_EUSAGE) {
        json_error(resp, 400, why && why[0] ? why : core_strerror(rc));
    } else {
        core_buf_printf(&msg, "case '%s': %s", id, core_strerror(rc));
        core_logf(&a->log, CORE_LOG_ERROR, "api: GET %s%s: %s", pre, path, core_strerror(rc));
        json_error(resp, 500, msg.data);
    }
    core_buf_free(&msg);
}

static void get_case(sink_api *a, const char *enc_id, core_http_resp *resp)
{
    char *id = pct_decode(enc_id);
    if (!id) {
        json_error(resp, 400, "case id: bad percent-encoding");
        return;
    }
    if (!*id || !a->ops.get_case) {
        free(id);
        json_error(resp, 404, "no such case");
        return;
    }
    core_buf json = {0};
    int rc = a->ops.get_case(a->ops.ud, id, &json);
    case_answer(a, id, rc, &json, NULL, API_CASES_PREFIX, enc_id, resp);
    free(id);
}

/* ---- Server-Sent Events ---------------------------------------------- */

static void sub_free(sub *u)
{
    core_http_stream_end(u->st);
    free(u->case_id);
    free(u);
}

/* Drops the streams whose client went away (under sub_mu). */
static void subs_sweep(sink_api *a)
{
    for (sub **pp = &a->subs; *pp;) {
        sub *u = *pp;
        if (core_http_stream_closed(u->st)) {
            *pp = u->next;
            a->nsubs--;
            sub_free(u);
        } else {
            pp = &u->next;
        }
    }
    atomic_store(&a->open_streams, a->nsubs);
}

/* case_id: owned (taken over), NULL for every case. */
static void open_stream(sink_api *a, char *case_id, core_http_resp *resp)
{
    pthread_mutex_lock(&a->sub_mu);
    subs_sweep(a);
    if (a->nsubs >= a->max_streams) {
        pthread_mutex_unlock(&a->sub_mu);
        free(case_id);
        json_error(resp, 503,
                   a->max_streams ? "too many event streams open (api.streams)"
                                  : "event streams are off (api.streams is 0)");
        resp->retry_after = a->max_streams ? 5 : 0;
        return;
    }
    sub *u = core_xcalloc(1, sizeof *u);
    u->case_id = case_id;
    u->case_len = case_id ? strlen(case_id) : 0;
    u->tokens = a->rate;
    u->last_ns = core_now_ns();
    resp->content_type = "text/event-stream; charset=utf-8";
    /* Sent at once, so that the client sees the headers before the first
     * prediction. */
    core_buf_puts(&resp->body, "retry: 2000\n: pmrag predictions\n\n");
    u->st = core_http_stream_new(resp, 0, ": keepalive\n\n");
    u->next = a->subs;
    a->subs = u;
    a->nsubs++;
    atomic_store(&a->open_streams, a->nsubs);
    pthread_mutex_unlock(&a->sub_mu);
}

char *sink_query_param(const char *query, const char *key, bool *bad)
{
    *bad = false;
    size_t kl = strlen(key);
    for (const char *q = query; q && *q;) {
        const char *end = strchr(q, '&');
        size_t n = end ? (size_t)(end - q) : strlen(q);
        if (n > kl && strncmp(q, key, kl) == 0 && q[kl] == '=') {
            char *raw = core_xmalloc(n - kl);
            memcpy(raw, q + kl + 1, n - kl - 1);
            raw[n - kl - 1] = 0;
            char *v = pct_decode(raw);
            free(raw);
            *bad = v == NULL;
            return v;
        }
        q = end ? end + 1 : NULL;
    }
    return NULL;
}

bool sink_api_streaming(const sink_api *a)
{
    return a && atomic_load(&((sink_api *)a)->open_streams) > 0;
}

void sink_api_publish(sink_api *a, const char *case_id, size_t case_len, const char *json,
                      size_t jlen)
{
    if (!sink_api_streaming(a))
        return;
    core_buf frame = {0};
    uint64_t now = core_now_ns();
    pthread_mutex_lock(&a->sub_mu);
    for (sub **pp = &a->subs; *pp;) {
        sub *u = *pp;
        if (u->case_id && (u->case_len != case_len || memcmp(u->case_id, case_id, case_len) != 0)) {
            pp = &u->next;
            continue;
        }
        u->tokens += (double)(now - u->last_ns) * 1e-9 * a->rate;
        if (u->tokens > a->rate)
            u->tokens = a->rate;
        u->last_ns = now;
        int rc = 0;
        if (u->tokens < 1) {
            u->skipped++;
            atomic_fetch_add(&a->skipped, 1);
            rc = core_http_stream_closed(u->st) ? -EPIPE : 0;
        } else {
            u->tokens -= 1;
            if (!frame.len) {
                core_buf_puts(&frame, "event: prediction\ndata: ");
                core_buf_append(&frame, json, jlen);
                core_buf_puts(&frame, "\n\n");
            }
            if (u->skipped) {
                char sk[96];
                int n = snprintf(sk, sizeof sk, "event: skipped\ndata: {\"skipped\":%llu}\n\n",
                                 (unsigned long long)u->skipped);
                rc = core_http_stream_send(u->st, sk, (size_t)n);
                u->skipped = 0;
            }
            if (!rc)
                rc = core_http_stream_send(u->st, frame.data, frame.len);
        }
        if (rc == 0) {
            pp = &u->next;
            continue;
        }
        if (rc == CORE_ELIMIT) {
            atomic_fetch_add(&a->cut_off, 1);
            core_logf(&a->log, CORE_LOG_NOTE,
                      "api: an event stream fell more than 1 MiB behind: closed");
        }
        *pp = u->next;
        a->nsubs--;
        sub_free(u);
    }
    atomic_store(&a->open_streams, a->nsubs);
    pthread_mutex_unlock(&a->sub_mu);
    core_buf_free(&frame);
}

void sink_api_stream_stats(const sink_api *a, uint64_t *skipped, uint64_t *cut_off)
{
    sink_api *m = (sink_api *)a; /* atomics are only read */
    *skipped = a ? atomic_load(&m->skipped) : 0;
    *cut_off = a ? atomic_load(&m->cut_off) : 0;
}

/* ---- the live view and the case views ------------------------------- */

/* Whether a GET or HEAD of path is the live view's (answered, true). */
static bool ui_asset(sink_api *a, const char *path, const char *method, core_http_resp *resp)
{
    if (!a->ui_config)
        return false;
    const unsigned char *data = NULL;
    size_t len = 0;
    const char *ctype = NULL;
    if (strcmp(path, "/ui/config.json") == 0) {
        data = (const unsigned char *)a->ui_config;
        len = strlen(a->ui_config);
        ctype = "application/json";
    } else {
        for (size_t i = 0; i < sink__nassets; i++)
            if (strcmp(path, sink__assets[i].path) == 0) {
                data = sink__assets[i].data;
                len = sink__assets[i].len;
                ctype = sink__assets[i].ctype;
            }
    }
    if (!data)
        return false;
    if (!is_get(method)) {
        method_not_allowed(resp, "GET, HEAD");
        return true;
    }
    resp->status = 200;
    resp->content_type = ctype;
    resp->headers = ui_headers;
    core_buf_append(&resp->body, data, len);
    return true;
}

/* A case's view (timeline, explain): the id is percent-decoded. */
static void case_view(sink_api *a, const char *enc_id, size_t enc_len, const char *view,
                      const core_http_req *req, core_http_resp *resp)
{
    char *enc = core_xstrndup(enc_id, enc_len);
    char *id = pct_decode(enc);
    free(enc);
    if (!id || !*id) {
        free(id);
        json_error(resp, 400, "case id: bad percent-encoding or empty");
        return;
    }
    core_buf json = {0};
    char why[512] = "";
    int rc;
    if (strcmp(view, "timeline") == 0)
        rc = a->ops.timeline ? a->ops.timeline(a->ops.ud, id, &json) : CORE_ENOTFOUND;
    else
        rc = a->ops.explain ? a->ops.explain(a->ops.ud, id, req->query, &json, why, sizeof why)
                            : CORE_ENOTFOUND;
    case_answer(a, id, rc, &json, why, "", req->path, resp);
    free(id);
}

static void list_cases(sink_api *a, const core_http_req *req, core_http_resp *resp)
{
    core_buf json = {0};
    char why[512] = "";
    int rc = a->ops.list_cases(a->ops.ud, req->query, &json, why, sizeof why);
    if (rc == 0) {
        resp->status = 200;
        resp->content_type = "application/json";
        resp->body = json;
        return;
    }
    core_buf_free(&json);
    if (rc == CORE_EUSAGE) {
        json_error(resp, 400, why[0] ? why : core_strerror(rc));
        return;
    }
    core_logf(&a->log, CORE_LOG_ERROR, "api: GET /v1/cases: %s", core_strerror(rc));
    json_error(resp, 500, core_strerror(rc));
}

static void query(sink_api *a, const core_http_req *req, core_http_resp *resp)
{
    if (!a->ops.query) {
        json_error(resp, 404, "no query endpoint");
        return;
    }
    core_buf json = {0};
    char why[512] = "";
    int rc = a->ops.query(a->ops.ud, req->body, req->len, &json, why, sizeof why);
    if (rc == 0) {
        resp->status = 200;
        resp->content_type = "application/json";
        resp->body = json;
        return;
    }
    core_buf_free(&json);
    if (rc == CORE_EFORMAT || rc == CORE_EUSAGE) {
        json_error(resp, 400, why[0] ? why : core_strerror(rc));
    } else {
        core_logf(&a->log, CORE_LOG_ERROR, "api: POST /v1/query: %s%s%s", core_strerror(rc),
                  why[0] ? ": " : "", why);
        json_error(resp, rc == CORE_ELIMIT ? 413 : 500, why[0] ? why : core_strerror(rc));
    }
}

static void handle(void *ud, const core_http_req *req, core_http_resp *resp)
{
    sink_api *a = ud;
    const char *p = req->path, *m = req->method;
    if (strcmp(p, "/livez") == 0) {
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        text(resp, 200, "text/plain; charset=utf-8", "ok", 2);
    } else if (strcmp(p, "/readyz") == 0) {
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        core_buf why = {0};
        bool ok = !a->ops.ready || a->ops.ready(a->ops.ud, &why);
        if (ok)
            text(resp, 200, "text/plain; charset=utf-8", "ok", 2);
        else
            text(resp, 503, "text/plain; charset=utf-8", why.len ? why.data : "not ready",
                 why.len ? why.len : 9);
        core_buf_free(&why);
    } else if (strcmp(p, "/metrics") == 0) {
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        resp->status = 200;
        resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
        if (a->ops.metrics)
            a->ops.metrics(a->ops.ud, &resp->body);
    } else if (strcmp(p, "/v1/stats") == 0 && a->ops.stats) {
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        core_buf json = {0};
        int rc = a->ops.stats(a->ops.ud, &json);
        if (rc) {
            core_buf_free(&json);
            json_error(resp, 500, core_strerror(rc));
            return;
        }
        resp->status = 200;
        resp->content_type = "application/json";
        resp->body = json;
    } else if (strcmp(p, "/v1/admin/reload") == 0 && a->ops.reload) {
        if (!is(m, "POST")) {
            method_not_allowed(resp, "POST");
            return;
        }
        /* Anyone who can reach an open API could make the daemon read its
         * files again and again: admin routes need the token. */
        if (!a->authenticated) {
            json_error(resp, 403, "admin routes need api.token_file (a bearer token)");
            return;
        }
        a->ops.reload(a->ops.ud);
        static const char started[] = "{\"reload\":\"started\"}";
        text(resp, 202, "application/json", started, sizeof started - 1);
    } else if (strcmp(p, "/v1/query") == 0) {
        if (!is(m, "POST")) {
            method_not_allowed(resp, "POST");
            return;
        }
        query(a, req, resp);
    } else if (strcmp(p, API_STREAM_PREFIX) == 0) {
        if (!is(m, "GET")) {
            method_not_allowed(resp, "GET");
            return;
        }
        bool bad;
        char *id = sink_query_param(req->query, "case", &bad);
        if (bad || (id && !*id)) {
            free(id);
            json_error(resp, 400, "query parameter 'case': bad percent-encoding or empty");
            return;
        }
        open_stream(a, id, resp);
    } else if (strcmp(p, "/v1/cases") == 0 && a->ops.list_cases) {
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        list_cases(a, req, resp);
    } else if (strncmp(p, API_CASES_PREFIX, strlen(API_CASES_PREFIX)) == 0) {
        const char *rest = p + strlen(API_CASES_PREFIX);
        size_t rl = strlen(rest), sl = strlen("/stream");
        static const char *const views[] = {"timeline", "explain"};
        for (size_t i = 0; i < 2; i++) {
            size_t vl = strlen(views[i]);
            if (rl > vl + 1 && rest[rl - vl - 1] == '/' && strcmp(rest + rl - vl, views[i]) == 0) {
                if (!is_get(m)) {
                    method_not_allowed(resp, "GET, HEAD");
                    return;
                }
                case_view(a, rest, rl - vl - 1, views[i], req, resp);
                return;
            }
        }
        if (rl > sl && strcmp(rest + rl - sl, "/stream") == 0) {
            if (!is(m, "GET")) {
                method_not_allowed(resp, "GET");
                return;
            }
            char *enc = core_xstrndup(rest, rl - sl);
            char *id = pct_decode(enc);
            free(enc);
            if (!id || !*id) {
                free(id);
                json_error(resp, 400, "case id: bad percent-encoding or empty");
                return;
            }
            open_stream(a, id, resp);
            return;
        }
        if (!is_get(m)) {
            method_not_allowed(resp, "GET, HEAD");
            return;
        }
        get_case(a, rest, resp);
    } else if (!ui_asset(a, p, m, resp)) {
        json_error(resp, 404, "not found");
    }
}

/* Probes must work without the token: a kubelet or load balancer health
 * check has none, and the answers say nothing worth protecting. */
static const char *const public_health[] = {"/livez", "/readyz", NULL};
static const char *const public_health_metrics[] = {"/livez", "/readyz", "/metrics", NULL};

int sink_api_start(const sink_api_opts *o, const sink_api_ops *ops, sink_api **out, char *why,
                   size_t whylen)
{
    static const sink_api_opts defaults = {0};
    if (!o)
        o = &defaults;
    sink_api *a = core_xcalloc(1, sizeof *a);
    if (ops)
        a->ops = *ops;
    a->log = o->log;
    pthread_mutex_init(&a->sub_mu, NULL);
    a->max_streams = o->max_streams;
    a->rate = o->stream_rate > 0 ? o->stream_rate : API_DEFAULT_STREAM_RATE;
    if (o->ui) {
        core_buf c = {0};
        const char *u = o->ui_source_url ? o->ui_source_url : "";
        const char *r = o->ui_source_rev ? o->ui_source_rev : "";
        core_buf_puts(&c, "{\"source_url\":");
        core_buf_json_str(&c, u, strlen(u));
        core_buf_puts(&c, ",\"source_rev\":");
        core_buf_json_str(&c, r, strlen(r));
        core_buf_puts(&c, "}");
        a->ui_config = core_xstrdup(c.data);
        core_buf_free(&c);
    }
    a->authenticated = o->token_file && *o->token_file;
    core_http_opts ho = {
        .listen = o->listen ? o->listen : API_DEFAULT_LISTEN,
        .name = "API (/v1/cases, /v1/query, /v1/stream, /metrics, the live view /)",
        .max_body = API_MAX_BODY,
        .threads = 2,
        .log = o->log,
        .token_file = o->token_file,
        .public_paths = o->metrics_open ? public_health_metrics : public_health,
        .probe_paths = public_health,
        .limits = o->limits,
        .tls_cert = o->tls_cert,
        .tls_key = o->tls_key,
    };
    int rc = core_http_start(&ho, handle, a, &a->http, why, whylen);
    if (rc) {
        pthread_mutex_destroy(&a->sub_mu);
        free(a->ui_config);
        free(a);
        return rc;
    }
    *out = a;
    return 0;
}

const char *sink_api_address(const sink_api *a)
{
    return core_http_address(a->http);
}

void sink_api_get_http_stats(const sink_api *a, core_http_stats *out)
{
    core_http_get_stats(a->http, out);
}

void sink_api_stop(sink_api *a)
{
    if (!a)
        return;
    /* Ends the streams (their clients see the body end) first. */
    core_http_stop(a->http);
    for (sub *u = a->subs, *next; u; u = next) {
        next = u->next;
        sub_free(u);
    }
    pthread_mutex_destroy(&a->sub_mu);
    free(a->ui_config);
    free(a);
}
