/*
 * pmrag serve: the daemon. Events come in from OTLP/HTTP and Kafka, are
 * mapped to activities, advance their case's state (LMDB, warm-started
 * PageRank vector) and produce one prediction each, to the Kafka output
 * topic, stdout and the HTTP API.
 *
 * Threads. One engine thread (main) owns the mapper, the model, the state
 * batch and the Kafka clients. OTLP/HTTP requests arrive on the
 * receiver's pool threads: each queues its decoded events and waits until
 * the engine has committed the state they changed, so a 200 means the
 * events are durable. The API's threads read the state store directly and
 * take the model lock to rank.
 *
 * One cycle of the engine: poll Kafka (up to serve.batch messages), take
 * the queued HTTP requests, apply every event (map, advance the case,
 * rank, produce), wait for the producer's acknowledgements, then commit
 * the state together with the input offsets it came from, and only then
 * store the Kafka offsets and answer the HTTP requests. A crash anywhere
 * loses nothing: before the commit nothing was acknowledged; after it the
 * offsets resume exactly there. Predictions may repeat after a crash
 * (they were produced before the commit), never go missing.
 */
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "model.h"
#include "graph.h"
#include "ingest.h"
#include "ppr.h"
#include "sessions.h"
#include "sink.h"

#include <errno.h>
#include <jansson.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef PMRAG_VERSION
#define PMRAG_VERSION "dev"
#endif

/* A case's vector entries are stored as sess_entry and used as ppr_entry. */
_Static_assert(sizeof(sess_entry) == sizeof(ppr_entry), "sess_entry and ppr_entry differ");

static volatile sig_atomic_t g_stop, g_reload;

static void on_signal(int sig)
{
    if (sig == SIGHUP)
        g_reload = 1;
    else
        g_stop = 1;
}

/* Encodings of Kafka input (kafka.input_encoding). */
enum { ENC_AUTO, ENC_OTLP_PROTO, ENC_OTLP_JSON, ENC_JSON };

/* One OTLP/HTTP request waiting for the commit of its events. */
typedef struct pending {
    struct pending *next;
    ingest_otlp_kind kind;
    const ingest_event *evs;
    size_t n;
    uint64_t t0;
    int rc;
    bool done;
    bool tracked; /* in s->recent (otlp.dedupe_seconds) */
    uint8_t id[INGEST_REQUEST_ID];
} pending;

/* The newest Kafka offset applied per partition in the current batch. */
typedef struct kpos {
    char *topic;
    int32_t partition;
    int64_t offset;
} kpos;

/* A window of events and the activity that followed it, counted. */
typedef struct obs_rec {
    uint32_t order, next;
    uint64_t count;
    uint32_t act[SESS_MAX_TOKENS], var[SESS_MAX_TOKENS];
} obs_rec;

/* What a rebuild trains from: the windows counted so far and the
 * mapper's activities, copied on the engine thread under s->mu. */
typedef struct train_job {
    model_mapper_snap *snap;
    obs_rec *obs;
    size_t nobs;
} train_job;

typedef struct list {
    char **v;
    size_t n;
} list;

typedef struct srv {
    core_cfg *cfg;
    core_logger lg;
    const char *graph_path, *model_path, *overrides_path;
    graph *g;
    graph_overrides *ov;
    model_log_opts eo;
    bool code_attrs;

    /* The model: the engine maps and ranks under mu; so does the API. */
    pthread_mutex_t mu;
    model_mapper *m;
    model_joint *base_md; /* loaded or trained at start: online counts add to it */
    model_joint *md;      /* in use: base_md, or base_md plus the online counts */
    model_work *w, *api_w;
    uint32_t model_version;
    char model_version_text[32];
    uint32_t M, k;

    /* State. The engine applies events into batch; the committer thread
     * writes inflight (read by the engine meanwhile, for the cases it
     * holds) and hands it back empty as spare. */
    sess_env *env;
    sess_batch *batch, *inflight, *spare;
    pending *reqs, *reqs_tail;     /* OTLP/HTTP requests applied into batch */
    uint32_t dict_acts, dict_vars; /* activity texts and variants in the state */
    uint32_t cycle_acts;           /* activities whose records are final */
    core_vec(kpos) pos;
    list end_acts;
    int64_t ttl_ns;
    uint64_t last_gauges;

    /* The committer thread: waits until the predictions of a batch are
     * acknowledged, writes the batch (state and offsets) to LMDB, answers
     * its requests, and expires idle cases. Fields under cmu. */
    pthread_t cthread;
    bool cthread_on;
    pthread_mutex_t cmu;
    pthread_cond_t ccv;
    struct {
        sess_batch *b; /* handed over; NULL when idle */
        pending *reqs;
        kpos *pos;
        size_t npos;
        uint64_t epoch, cl_epoch;
        bool has_epoch, done, quit;
        int rc;
    } c;
    sess_batch *xbatch;                  /* the committer's, for expiry */
    atomic_uint_fast64_t ack_wait_since; /* the committer waits for the broker since (ns), or 0 */
    uint64_t last_expire;

    /* The changelog (kafka.changelog): every case change made by a Kafka
     * message, to <group>-cases-changelog in the message's partition;
     * restored when a partition is assigned. */
    sink_kafka *kcl;
    char *cl_topic;
    ingest_kafka_opts kio; /* the consumer's settings, for the restores */
    list kprops;
    core_vec(int32_t) restored; /* partitions restored since assigned */
    core_vec(kpos) cl_pos;      /* per input partition: newest offset in the changelog */
    uint32_t base_acts;         /* activities of the base model: the same ids everywhere */
    uint32_t base_vars;         /* ... and variants */
    /* Counts learnt online, shared (with the changelog and learn_online):
     * windows of base-model activities go to <group>-follows, and every
     * instance merges the others'. */
    sink_kafka *kfo;
    ingest_kafka_tail *ftail;
    char *fo_topic;
    uint64_t instance_id;
    core_buf fov;
    int fatal; /* set inside the poll: the engine stops */
    core_buf clv;

    /* Kafka. */
    ingest_kafka_mock *mock;
    char *bootstrap;
    ingest_kafka *kin;
    sink_kafka *kout;
    list in_topics, logs_topics, case_attrs;
    int in_encoding; /* ENC_* */
    bool out_json, to_stdout;
    const char *out_topic;

    /* HTTP. */
    ingest_otlp_http *otlp;
    sink_api *api;
    pthread_mutex_t qmu;
    pthread_cond_t qcv, dcv;
    pending *qhead, *qtail;
    size_t qevents, qmax;
    bool stopping;
    /* Requests applied or being applied (otlp.dedupe_seconds), under
     * qmu: a retried request is answered from here, not applied again.
     * Committed ones are in the state's requests table too. */
    sess_recent *recent;
    int64_t dedupe_ns;
    size_t dedupe_max;

    /* limits.memory_bytes: a watcher thread samples the anonymous memory;
     * over the limit, input is refused (mem_over) until it is back under
     * 90% of it. */
    uint64_t mem_limit;
    pthread_t mem_thread;
    bool mem_thread_on, kafka_paused;
    pthread_mutex_t mem_mu;
    pthread_cond_t mem_cv;
    bool mem_quit;
    atomic_bool mem_over;
    atomic_uint_fast64_t mem_anon;

    /* Online learning: what followed each window of events (kept in
     * memory and in the state's counters), and the model being rebuilt. */
    bool learn_online;
    core_map obs_idx; /* window hash -> index in obs */
    core_vec(obs_rec) obs;
    uint64_t obs_max, obs_new, obs_events_new;
    uint64_t rebuild_events, last_rebuild_ns, rebuild_every_ns, rebuild_min_ns;
    pthread_t rebuild_thread;
    atomic_bool rebuild_done;
    bool rebuilding;
    model_joint *next_md;
    int next_rc;
    train_job job;

    /* Per event scratch (engine thread). */
    model_pred *pred;
    sink_ranked *ranked;
    core_buf val, doc;
    uint32_t batch_max, batch_events;
    uint64_t bad_msgs;

    /* Limits (limits.*): per record, per case, new cases per second. */
    uint32_t max_attrs;
    size_t max_str;
    uint64_t case_events_max, new_cases_rate;
    double new_case_tokens;
    uint64_t new_case_refill_ns;
    /* Counters kept elsewhere, brought over as deltas by gauges() (engine
     * and metrics handler) under gmu; folded is the mapper's count as of
     * the last cycle. */
    pthread_mutex_t gmu;
    uint64_t seen_folded, seen_http_truncated, seen_http_rejected;
    atomic_uint_fast64_t folded;

    /* Metrics. */
    sink_metrics *mx;
    sink_counter *c_events_kafka, *c_events_otlp, *c_bad_kafka, *c_bad_otlp, *c_predictions,
        *c_unmapped, *c_mapped, *c_commits, *c_restarts_cold;
    sink_counter *c_follows_merged, *c_follows_lost, *c_follows_shared, *c_dup_requests;
    sink_counter *c_cl_stale;
    sink_counter *c_lim_truncated, *c_lim_activities, *c_lim_case_events, *c_lim_new_cases,
        *c_lim_memory;
    sink_gauge *g_cases, *g_state_bytes, *g_lag, *g_model_version, *g_coverage, *g_queue, *g_mem;
    sink_histogram *h_ppr, *h_e2e, *h_commit, *h_flush, *h_write;
    atomic_uint_fast64_t events_total, mapped_total;
    atomic_bool ready;
} srv;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* Splits text at sep into trimmed, non-empty items. */
static void split_list(const char *text, char sep, list *out)
{
    memset(out, 0, sizeof *out);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, sep);
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t a = 0, b = n;
        while (a < b && (p[a] == ' ' || p[a] == '\t'))
            a++;
        while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
            b--;
        if (b > a) {
            out->v = core_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
            out->v[out->n++] = core_xstrndup(p + a, b - a);
        }
        p += n;
        if (*p == sep)
            p++;
    }
}

static void list_free(list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static bool list_has(const list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* The activity dictionary in the state store                          */
/* ------------------------------------------------------------------ */

/*
 * The state's dictionary: activities and variants made online, so that
 * the ids in stored case states keep their meaning across restarts.
 *   id < DICT_FULL          an activity's text (for `pmrag state dump`, the API)
 *   DICT_FULL | a           activity a as the mapper has it: text, strategy,
 *                           symbols and confidences, template candidates
 *   DICT_VARIANT | v        variant v: 0x01, its activity (u32), its text
 * restored at start in id order (model_mapper_restore, _restore_variant),
 * which gives them the same ids. (States written before kept, under
 * DICT_VARIANT | v, the message that made v, mapped again at start.)
 * Records are written after each cycle's model_mapper_finish, when what the
 * cycle's new activities map to is decided, in the batch of the events
 * that made them.
 */
#define DICT_FULL 0x40000000u
#define DICT_VARIANT 0x80000000u
#define DICT_NEW_VARIANT 0x01

static void dict_texts(srv *s);

/* Little-endian integers in stored and sent records. */
static void put_le(core_buf *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        core_buf_putc(b, (char)(v >> (8 * i)));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Records of activities from `from` on and of variants not yet saved. */
static void dict_save(srv *s, uint32_t from)
{
    uint32_t na = model_mapper_nactivities(s->m), nv = model_mapper_nvariants(s->m);
    core_buf b = {0};
    for (uint32_t a = from; a < na && a < DICT_FULL; a++) {
        core_buf_reset(&b);
        model_dict_put_activity(s->m, a, &b);
        sess_batch_dict_put(s->batch, DICT_FULL | a, b.data, b.len);
    }
    for (; s->dict_vars < nv && s->dict_vars < DICT_VARIANT; s->dict_vars++) {
        core_buf_reset(&b);
        model_dict_put_variant(s->m, s->dict_vars, &b);
        sess_batch_dict_put(s->batch, DICT_VARIANT | s->dict_vars, b.data, b.len);
    }
    core_buf_free(&b);
    dict_texts(s);
}

/* The texts of activities not yet in the state, and the counts. */
static void dict_texts(srv *s)
{
    uint32_t na = model_mapper_nactivities(s->m), nv = model_mapper_nvariants(s->m);
    for (; s->dict_acts < na; s->dict_acts++) {
        model_activity pa;
        model_mapper_activity(s->m, s->dict_acts, &pa);
        sess_batch_dict_put(s->batch, s->dict_acts, pa.text, strlen(pa.text));
    }
    char meta[64];
    int n = snprintf(meta, sizeof meta, "%u %u", na, nv);
    sess_batch_meta_put(s->batch, "dict", meta, (size_t)n);
}

typedef struct replay_ctx {
    srv *s;
    uint64_t n;
} replay_ctx;

static int replay_one(void *ud, uint32_t id, const char *text, size_t len)
{
    replay_ctx *r = ud;
    if (id < DICT_FULL)
        return 0;
    uint32_t got;
    int rc;
    if (id < DICT_VARIANT) {
        rc = model_dict_restore_activity(r->s->m, text, len, 0, &got);
        r->n += rc == 0;
        return rc ? rc : got == (id & ~DICT_FULL) ? 0 : CORE_ECORRUPT;
    }
    if (len >= 5 && (uint8_t)text[0] == DICT_NEW_VARIANT) {
        rc = model_dict_restore_variant(r->s->m, text, len, &got);
        r->n++;
        return rc ? rc : got == (id & ~DICT_VARIANT) ? 0 : CORE_ECORRUPT;
    }
    /* A state from before: the message that made the variant. */
    const char *lg = text, *end = text + len;
    const char *lv = memchr(lg, 0, len);
    const char *msg = lv ? memchr(lv + 1, 0, (size_t)(end - lv - 1)) : NULL;
    if (!lv || !msg)
        return CORE_ECORRUPT;
    lv++;
    msg++;
    model_map_event me = {.text = msg, .len = (size_t)(end - msg)};
    me.logger = *lg ? lg : NULL;
    me.level = *lv ? lv : NULL;
    uint32_t a, v;
    model_mapper_map(r->s->m, &me, UINT32_MAX, &a, &v);
    r->n++;
    return 0;
}

/* Maps the stored creating messages again; checks that they made what
 * they made before. */
static int dict_replay(srv *s, char *why, size_t whylen)
{
    replay_ctx r = {s, 0};
    int rc = sess_dict_iter(s->env, replay_one, &r);
    if (rc) {
        snprintf(why, whylen, "state %s: activity dictionary: %s",
                 core_cfg_str(s->cfg, "state.dir"), core_strerror(rc));
        return rc;
    }
    s->dict_vars = model_mapper_nvariants(s->m);
    core_buf meta = {0};
    if (sess_meta_get(s->env, "dict", &meta) == 0) {
        unsigned na = 0, nv = 0;
        core_buf_putc(&meta, 0);
        uint32_t cur_a = model_mapper_nactivities(s->m);
        if (sscanf(meta.data, "%u %u", &na, &nv) == 2 && (na != cur_a || nv != s->dict_vars)) {
            snprintf(why, whylen,
                     "state %s: the activity dictionary does not match this graph and model "
                     "(%u activities and %u variants stored, %u and %u rebuilt); start with an "
                     "empty state.dir",
                     core_cfg_str(s->cfg, "state.dir"), na, nv, cur_a, s->dict_vars);
            core_buf_free(&meta);
            return CORE_ECORRUPT;
        }
        s->dict_acts = na;
    }
    core_buf_free(&meta);
    s->cycle_acts = model_mapper_nactivities(s->m);
    dict_texts(s);
    char w2[512];
    rc = model_mapper_finish(s->m, w2, sizeof w2);
    if (rc)
        core_logf(&s->lg, CORE_LOG_WARN, "%s", w2);
    if (r.n)
        core_logf(&s->lg, CORE_LOG_INFO, "restored %llu online activities and variants",
                  (unsigned long long)r.n);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

/* A fingerprint of what a model predicts from: its parameters and
 * sizes. A restart with another model restarts case vectors cold. */
static uint64_t model_fingerprint(const model_joint *md)
{
    model_stats st;
    model_get_stats(md, &st);
    const model_params *p = model_get_params(md);
    uint64_t h = 1469598103934665603ull;
    uint64_t v[] = {st.symbols,
                    st.activities,
                    st.contexts,
                    st.edges,
                    st.follows,
                    st.train_events,
                    st.train_cases,
                    p->order,
                    p->variant_min,
                    (uint64_t)(p->variant_ratio * 1e6),
                    (uint64_t)(p->alpha * 1e6),
                    (uint64_t)(p->code_scale * 1e6),
                    (uint64_t)(p->decay * 1e6),
                    (uint64_t)(p->escape * 1e6)};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        h ^= v[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Loads --model, or trains from model.bootstrap_log, or builds an empty
 * model (recency and the current emitter only) over a fresh mapper. */
static int model_build(srv *s, model_mapper **mp, model_joint **mdp, char *why, size_t whylen)
{
    model_mapper_opts mo = {
        .use_code_attrs = s->code_attrs,
        .overrides = s->ov,
        .tokens_min = core_cfg_double(s->cfg, "map.tokens_min"),
        .max_activities = (uint32_t)core_cfg_int(s->cfg, "limits.activities"),
        .log = s->lg,
    };
    if (s->model_path)
        return model_load(s->model_path, s->g, &mo, mp, mdp, why, whylen);
    int rc = model_mapper_new(s->g, &mo, mp);
    if (rc) {
        snprintf(why, whylen, "cannot build the template matcher: %s", core_strerror(rc));
        return rc;
    }
    model_params p = config_model_params(s->cfg);
    const char *boot = core_cfg_str(s->cfg, "model.bootstrap_log");
    model_log l = {0};
    model_seqs train = {0};
    static const uint32_t zero = 0;
    train.off = &zero;
    if (boot && *boot) {
        model_log_opts eo = s->eo;
        eo.train_frac = 1.0;
        eo.learn_code_attrs = s->code_attrs;
        core_logf(&s->lg, CORE_LOG_INFO, "training the model from %s", boot);
        rc = model_log_load(boot, &eo, *mp, &l, why, whylen);
        if (rc)
            goto fail;
        char w2[512];
        if (model_mapper_finish(*mp, w2, sizeof w2) != 0)
            core_logf(&s->lg, CORE_LOG_WARN, "%s", w2);
        train = model_log_all(&l);
        if (core_cfg_bool(s->cfg, "model.calibrate")) {
            rc = model_calibrate(*mp, &train,
                                     (uint32_t)core_cfg_int(s->cfg, "model.calibrate_min_cases"),
                                     &p, &s->lg);
            if (rc) {
                snprintf(why, whylen, "calibration failed: %s", core_strerror(rc));
                goto fail;
            }
        }
    }
    rc = model_train(*mp, &train, &p, mdp);
    if (rc)
        snprintf(why, whylen, "training failed: %s", core_strerror(rc));
    else if (boot && *boot)
        core_logf(&s->lg, CORE_LOG_INFO, "model trained on %u cases (%llu events)", l.ncases,
                  (unsigned long long)l.nevents);
fail:
    model_log_free(&l);
    if (rc) {
        model_mapper_free(*mp);
        *mp = NULL;
    }
    return rc;
}

/* The model's version: kept in the state with the fingerprint of the
 * model it numbers; a different model gets the next number. */
static void model_version_set(srv *s, bool bump)
{
    uint64_t fp = model_fingerprint(s->md);
    core_buf meta = {0};
    unsigned long long ofp = 0;
    unsigned ov = 0;
    if (sess_meta_get(s->env, "model", &meta) == 0) {
        core_buf_putc(&meta, 0);
        if (sscanf(meta.data, "%u %llx", &ov, &ofp) != 2)
            ov = 0, ofp = 0;
    }
    core_buf_free(&meta);
    s->model_version = (!bump && ov && ofp == fp) ? ov : ov + 1;
    snprintf(s->model_version_text, sizeof s->model_version_text, "v%u", s->model_version);
    char text[64];
    int n = snprintf(text, sizeof text, "%u %llx", s->model_version, (unsigned long long)fp);
    sess_batch_meta_put(s->batch, "model", text, (size_t)n);
    if (s->g_model_version)
        sink_gauge_set(s->g_model_version, s->model_version);
}

/*
 * Puts md in use (computing its activity vectors first, outside the
 * lock, unless done). With base, md is a new base model over mapper m
 * (start, SIGHUP): the old base and mapper go. Without, md is the base
 * plus the online counts, over the same mapper.
 */
static int model_install(srv *s, model_mapper *m, model_joint *md, bool base, char *why, size_t whylen)
{
    int rc = model_stream_prepare(md, s->M, core_ncpus());
    model_work *w = NULL, *aw = NULL;
    if (!rc)
        rc = model_work_new(md, &w);
    if (!rc)
        rc = model_work_new(md, &aw);
    if (rc) {
        snprintf(why, whylen, "cannot prepare the model: %s", core_strerror(rc));
        model_work_free(w);
        model_work_free(aw);
        return rc;
    }
    pthread_mutex_lock(&s->mu);
    model_work_free(s->w);
    model_work_free(s->api_w);
    if (s->md != s->base_md)
        model_free(s->md);
    if (base) {
        model_free(s->base_md);
        s->base_md = md;
        if (s->m != m)
            model_mapper_free(s->m);
        s->m = m;
    }
    s->md = md;
    s->w = w;
    s->api_w = aw;
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* ---- online learning ---- */

#define OBS_KEY_MAX (1 + 4 + 8 * SESS_MAX_TOKENS)

static size_t obs_key(uint32_t order, uint32_t next, const uint32_t *act, const uint32_t *var,
                      uint8_t *out)
{
    size_t n = 0;
    out[n++] = (uint8_t)order;
    memcpy(out + n, &next, 4);
    n += 4;
    memcpy(out + n, act, order * 4);
    n += order * 4;
    memcpy(out + n, var, order * 4);
    return n + order * 4;
}

/* Counts that next followed the window act/var (order events); with
 * persist, the count goes to the state too. Past model.online_windows
 * distinct windows only known ones count. */
static void obs_count(srv *s, uint32_t order, uint32_t next, const uint32_t *act,
                      const uint32_t *var, uint64_t n, bool persist)
{
    uint8_t key[OBS_KEY_MAX];
    size_t kl = obs_key(order, next, act, var, key);
    uint64_t h = core_hash64(key, kl, 0x6f6273ull);
    if (h == UINT64_MAX)
        h = 0;
    uint64_t *v = core_map_get(&s->obs_idx, h);
    obs_rec *r;
    if (v) {
        r = &s->obs.v[*v];
        if (r->order != order || r->next != next || memcmp(r->act, act, order * 4) ||
            memcmp(r->var, var, order * 4))
            return; /* a hash collision: not worth a second table */
    } else {
        if (s->obs.n >= s->obs_max)
            return;
        bool ins;
        v = core_map_put(&s->obs_idx, h, &ins);
        obs_rec nr = {.order = order, .next = next};
        memcpy(nr.act, act, order * 4);
        memcpy(nr.var, var, order * 4);
        core_vec_push(&s->obs, nr);
        *v = s->obs.n - 1;
        r = &s->obs.v[*v];
    }
    r->count += n;
    s->obs_new += n;
    if (persist)
        sess_batch_count_add(s->batch, key, kl, n);
}

static int obs_load_one(void *ud, const void *key, size_t klen, uint64_t count)
{
    srv *s = ud;
    const uint8_t *k = key;
    if (klen < 5)
        return 0;
    uint32_t order = k[0], next;
    if (order == 0 || order > SESS_MAX_TOKENS || klen != 5 + (size_t)order * 8)
        return 0; /* not ours */
    uint32_t act[SESS_MAX_TOKENS], var[SESS_MAX_TOKENS];
    memcpy(&next, k + 1, 4);
    memcpy(act, k + 5, order * 4);
    memcpy(var, k + 5 + order * 4, order * 4);
    obs_count(s, order, next, act, var, count, false);
    return 0;
}

static train_job train_job_take(srv *s)
{
    train_job j = {model_mapper_snapshot(s->m), NULL, s->obs.n};
    j.obs = core_xmalloc((j.nobs ? j.nobs : 1) * sizeof *j.obs);
    if (j.nobs)
        memcpy(j.obs, s->obs.v, j.nobs * sizeof *j.obs);
    return j;
}

/* The base model plus the job's windows; frees the job. Any thread (the
 * base model is only read, and changes only on the engine thread after
 * the rebuild thread has been joined). */
static int train_job_run(srv *s, train_job *j, model_joint **out)
{
    model_follow_obs *fo = core_xmalloc((j->nobs ? j->nobs : 1) * sizeof *fo);
    uint64_t events = 0;
    for (size_t i = 0; i < j->nobs; i++) {
        const obs_rec *r = &j->obs[i];
        fo[i] = (model_follow_obs){r->act, r->var, r->order, r->next, r->count};
        events += r->count;
    }
    int rc = model_train_more(s->base_md, j->snap, fo, j->nobs, events, 0, out);
    free(fo);
    free(j->obs);
    model_mapper_snap_free(j->snap);
    memset(j, 0, sizeof *j);
    return rc;
}

static int obs_train(srv *s, model_joint **out)
{
    pthread_mutex_lock(&s->mu);
    train_job j = train_job_take(s);
    pthread_mutex_unlock(&s->mu);
    return train_job_run(s, &j, out);
}

static void *rebuild_main(void *arg)
{
    srv *s = arg;
    s->next_rc = train_job_run(s, &s->job, &s->next_md);
    if (!s->next_rc)
        s->next_rc = model_stream_prepare(s->next_md, s->M, 1); /* a core left to the engine */
    atomic_store(&s->rebuild_done, true);
    return NULL;
}

/* Engine thread, between cycles: installs a rebuilt model when it is
 * ready, and starts a rebuild when enough is new. What the training reads
 * is copied under the lock; training and the activity vectors run on a
 * thread of their own while the engine goes on. */
static void rebuild_step(srv *s)
{
    char why[512];
    if (s->rebuilding && atomic_load(&s->rebuild_done)) {
        pthread_join(s->rebuild_thread, NULL);
        s->rebuilding = false;
        atomic_store(&s->rebuild_done, false);
        if (s->next_rc || model_install(s, s->m, s->next_md, false, why, sizeof why) != 0) {
            core_logf(&s->lg, CORE_LOG_ERROR, "model rebuild failed: %s",
                      s->next_rc ? core_strerror(s->next_rc) : why);
            model_free(s->next_md);
        } else {
            model_version_set(s, true);
            model_stats st;
            model_get_stats(s->md, &st);
            core_logf(&s->lg, CORE_LOG_INFO, "model %s in use: %u contexts, %llu events learnt",
                      s->model_version_text, st.contexts, (unsigned long long)st.train_events);
        }
        s->next_md = NULL;
    }
    if (!s->learn_online || s->rebuilding || s->obs_new == 0)
        return;
    uint64_t now = core_now_ns();
    if (now - s->last_rebuild_ns < s->rebuild_min_ns ||
        (s->obs_new < s->rebuild_events && now - s->last_rebuild_ns < s->rebuild_every_ns))
        return;
    s->last_rebuild_ns = now;
    s->obs_new = 0;
    pthread_mutex_lock(&s->mu);
    s->job = train_job_take(s);
    pthread_mutex_unlock(&s->mu);
    s->next_md = NULL;
    if (pthread_create(&s->rebuild_thread, NULL, rebuild_main, s) != 0) {
        train_job_run(s, &s->job, &s->next_md); /* frees the job */
        model_free(s->next_md);
        s->next_md = NULL;
        return;
    }
    s->rebuilding = true;
}

/* The base model plus the windows counted so far, in use at once (at
 * start and after a reload). */
static void online_apply(srv *s)
{
    if (!s->learn_online || s->obs.n == 0)
        return;
    char why[512];
    model_joint *md;
    int rc = obs_train(s, &md);
    if (!rc && (rc = model_install(s, s->m, md, false, why, sizeof why)) != 0)
        model_free(md);
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR, "the online counts could not be added: %s",
                  core_strerror(rc));
    s->obs_new = 0;
}

/* SIGHUP: the model again (the file, or the bootstrap log); the online
 * activities are mapped into the new mapper in their order. */
static void model_reload(srv *s)
{
    char why[1024];
    model_mapper *m;
    model_joint *md;
    core_logf(&s->lg, CORE_LOG_INFO, "SIGHUP: reloading the model");
    if (s->rebuilding) {
        pthread_join(s->rebuild_thread, NULL);
        s->rebuilding = false;
        atomic_store(&s->rebuild_done, false);
        model_free(s->next_md);
        s->next_md = NULL;
    }
    if (model_build(s, &m, &md, why, sizeof why) != 0) {
        core_logf(&s->lg, CORE_LOG_ERROR, "reload failed, the old model stays: %s", why);
        return;
    }
    model_mapper *old_m = s->m;
    pthread_mutex_lock(&s->mu);
    s->m = m;
    int rc = dict_replay(s, why, sizeof why);
    s->m = old_m;
    pthread_mutex_unlock(&s->mu);
    if (rc || model_install(s, m, md, true, why, sizeof why) != 0) {
        core_logf(&s->lg, CORE_LOG_ERROR, "reload failed, the old model stays: %s", why);
        model_free(md);
        model_mapper_free(m);
        return;
    }
    online_apply(s);
    model_version_set(s, true);
    model_stats st;
    model_get_stats(s->base_md, &st);
    s->base_acts = st.activities;
    core_logf(&s->lg, CORE_LOG_INFO, "model %s in use", s->model_version_text);
}

/* ------------------------------------------------------------------ */
/* Applying one event                                                  */
/* ------------------------------------------------------------------ */

static void ranked_fill(srv *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol sym;
        graph_get_symbol(s->g, s->pred[i].symbol, &sym);
        const char *act = NULL;
        if (s->pred[i].activity != UINT32_MAX) {
            model_activity pa;
            model_mapper_activity(s->m, s->pred[i].activity, &pa);
            act = pa.text;
        }
        const char *near = NULL;
        if (s->pred[i].near != UINT32_MAX) {
            graph_symbol ns;
            graph_get_symbol(s->g, s->pred[i].near, &ns);
            near = ns.qualname;
        }
        s->ranked[i] = (sink_ranked){sym.qualname, graph_sym_kind_name(sym.kind),
                                     sym.file,     sym.start_line,
                                     sym.end_line, s->pred[i].score,
                                     act,          near};
    }
}

/* A case's vector computed again from its stored activities (its own came
 * from an older model, and means nothing to this one). */
static void vec_rebuild(const model_joint *md, model_work *w, uint32_t M, sess_case *c)
{
    ppr_vec rec;
    ppr_vec_init(&rec, (ppr_entry *)c->vec, M);
    c->vec_wsum = 0;
    for (uint32_t i = 0; i < c->ntok; i++)
        model_advance(md, w, &rec, &c->vec_wsum, c->act[i]);
    c->nvec = rec.n;
    c->vec_err = rec.err;
}

/* limits.new_cases_per_second: a token bucket holding one second's
 * worth. */
static bool new_case_allowed(srv *s)
{
    if (!s->new_cases_rate)
        return true;
    uint64_t now = core_now_ns();
    if (now > s->new_case_refill_ns) {
        s->new_case_tokens +=
            (double)(now - s->new_case_refill_ns) * 1e-9 * (double)s->new_cases_rate;
        if (s->new_case_tokens > (double)s->new_cases_rate)
            s->new_case_tokens = (double)s->new_cases_rate;
        s->new_case_refill_ns = now;
    }
    if (s->new_case_tokens < 1)
        return false;
    s->new_case_tokens -= 1;
    return true;
}

/* Maps ev, advances its case, ranks and publishes. Returns 0, or a
 * negative code when the prediction could not be produced (the producer
 * failed for good): the engine stops then, without committing. */
static int changelog_send(srv *s, const char *case_id, size_t clen, const sess_case *c,
                          const ingest_kafka_msg *km);
static void follows_share(srv *s, uint32_t order, uint32_t next, const uint32_t *act,
                          const uint32_t *var);
static int follows_merge(void *ud, const ingest_kafka_msg *m);

static int apply_event(srv *s, const ingest_event *ev, uint64_t t0, const ingest_kafka_msg *km)
{
    size_t clen = strlen(ev->case_id);
    sess_case c;
    int f = sess_batch_case_find(s->batch, ev->case_id, clen, &c);
    if (f < 0 && s->inflight)
        f = sess_batch_case_find(s->inflight, ev->case_id, clen, &c);
    if (f != 1 && (f == 0 || sess_case_get(s->env, ev->case_id, clen, &c) != 0)) {
        if (!new_case_allowed(s)) {
            sink_counter_add(s->c_lim_new_cases, 1);
            return 0;
        }
        memset(&c, 0, sizeof c);
        c.last_time_ns = INT64_MIN;
        c.model_version = s->model_version;
    }
    if (c.seq >= s->case_events_max) {
        sink_counter_add(s->c_lim_case_events, 1);
        return 0;
    }
    if (c.model_version != s->model_version) {
        vec_rebuild(s->md, s->w, s->M, &c);
        c.model_version = s->model_version;
        sink_counter_add(s->c_restarts_cold, 1);
    }
    model_map_event me;
    model_log_map_event(ev, &s->eo, s->code_attrs, &me);
    me.learn = s->code_attrs;
    uint32_t prev = c.ntok ? c.act[c.ntok - 1] : UINT32_MAX, a, v;
    model_mapper_map(s->m, &me, prev, &a, &v);
    model_activity pa;
    model_mapper_activity(s->m, a, &pa);
    atomic_fetch_add(&s->events_total, 1);
    if (pa.nsyms) {
        atomic_fetch_add(&s->mapped_total, 1);
        sink_counter_add(s->c_mapped, 1);
    } else {
        sink_counter_add(s->c_unmapped, 1);
    }
    if (s->learn_online && c.ntok) {
        uint32_t o = model_get_params(s->base_md)->order;
        if (o > c.ntok)
            o = c.ntok;
        obs_count(s, o, a, c.act + c.ntok - o, c.var + c.ntok - o, 1, true);
        if (s->kfo)
            follows_share(s, o, a, c.act + c.ntok - o, c.var + c.ntok - o);
    }
    if (c.ntok == SESS_MAX_TOKENS) {
        memmove(c.act, c.act + 1, (SESS_MAX_TOKENS - 1) * sizeof *c.act);
        memmove(c.var, c.var + 1, (SESS_MAX_TOKENS - 1) * sizeof *c.var);
        c.ntok--;
    }
    c.act[c.ntok] = a;
    c.var[c.ntok] = v;
    c.ntok++;
    ppr_vec rec = {(ppr_entry *)c.vec, c.nvec, s->M, c.vec_err};
    uint64_t r0 = core_now_ns();
    model_advance(s->md, s->w, &rec, &c.vec_wsum, a);
    uint32_t n =
        model_rank_warm(s->md, s->w, c.act, c.var, c.ntok, &rec, c.vec_wsum, s->k, s->pred);
    sink_histogram_observe(s->h_ppr, (double)(core_now_ns() - r0) * 1e-9);
    c.nvec = rec.n;
    c.vec_err = rec.err;
    c.seq++;
    c.last_time_ns = ev->time_ns == INGEST_NO_TIME ? INT64_MIN : ev->time_ns;
    c.touched_ns = wall_ns();
    bool ends = s->end_acts.n && list_has(&s->end_acts, pa.text);
    c.closed = ends;

    ranked_fill(s, n);
    sink_prediction p = {
        .case_id = ev->case_id,
        .case_len = clen,
        .seq = c.seq,
        .activity = pa.text,
        .time_unix_nano = ev->time_ns == INGEST_NO_TIME ? 0 : ev->time_ns,
        .model_version = s->model_version_text,
        .ranked = s->ranked,
        .nranked = n,
        .latency_us = (core_now_ns() - t0) / 1000,
    };
    int rc = 0;
    if (s->kout) {
        core_buf_reset(&s->val);
        if (s->out_json)
            sink_prediction_json(&p, &s->val);
        else
            sink_prediction_pb(&p, &s->val);
        while ((rc = sink_kafka_send(s->kout, ev->case_id, clen, s->val.data, s->val.len, 100)) ==
                   -EAGAIN &&
               !g_stop)
            ;
        if (rc) {
            sink_kafka_stats ks;
            sink_kafka_get_stats(s->kout, &ks);
            core_logf(&s->lg, CORE_LOG_ERROR, "cannot produce to %s: %s%s%s", s->out_topic,
                      core_strerror(rc), ks.last_error[0] ? ": " : "", ks.last_error);
            return rc;
        }
    }
    if (s->to_stdout) {
        core_buf_reset(&s->doc);
        sink_prediction_json(&p, &s->doc);
        if (sink_jsonl_write(stdout, s->doc.data, s->doc.len) == -EPIPE) {
            core_logf(&s->lg, CORE_LOG_WARN, "stdout closed: predictions go on to Kafka only");
            s->to_stdout = false;
        }
    }
    sink_counter_add(s->c_predictions, 1);
    sink_histogram_observe(s->h_e2e, (double)(core_now_ns() - t0) * 1e-9);
    if (ends)
        sess_batch_case_del(s->batch, ev->case_id, clen);
    else
        sess_batch_case_put(s->batch, ev->case_id, clen, &c);
    s->batch_events++;
    if (s->kcl && km)
        return changelog_send(s, ev->case_id, clen, ends ? NULL : &c, km);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Sources                                                             */
/* ------------------------------------------------------------------ */

typedef struct emit_ctx {
    srv *s;
    const ingest_kafka_msg *km; /* NULL for OTLP/HTTP */
    uint64_t t0;
    uint64_t events;
    int rc;
} emit_ctx;

static int emit_event(void *ud, const ingest_event *ev)
{
    emit_ctx *e = ud;
    e->events++;
    e->rc = apply_event(e->s, ev, e->t0, e->km);
    return e->rc;
}

static void pos_note(srv *s, const char *topic, int32_t partition, int64_t offset)
{
    for (size_t i = 0; i < s->pos.n; i++)
        if (s->pos.v[i].partition == partition && strcmp(s->pos.v[i].topic, topic) == 0) {
            if (offset > s->pos.v[i].offset)
                s->pos.v[i].offset = offset;
            return;
        }
    core_vec_push(&s->pos, ((kpos){core_xstrdup(topic), partition, offset}));
}

/* kafka.input_encoding=auto: a JSON object whose first key is
 * resourceSpans or resourceLogs is OTLP JSON; another JSON object is one
 * event; anything else is taken for OTLP protobuf (whose first byte, the
 * tag of field 1, is 0x0a, never '{'). */
static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

static int sniff_encoding(const void *buf, size_t len)
{
    const char *end = (const char *)buf + len, *p = skip_space(buf, end);
    if (p == end || *p != '{')
        return ENC_OTLP_PROTO;
    p = skip_space(p + 1, end);
    static const char *const keys[] = {"\"resourceSpans\"", "\"resourceLogs\"",
                                       "\"resource_spans\"", "\"resource_logs\""};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        size_t n = strlen(keys[i]);
        if ((size_t)(end - p) >= n && memcmp(p, keys[i], n) == 0)
            return ENC_OTLP_JSON;
    }
    return ENC_JSON;
}

static int on_kafka_msg(void *ud, const ingest_kafka_msg *km)
{
    srv *s = ud;
    emit_ctx e = {s, km, core_now_ns(), 0, 0};
    ingest_decode_opts dopts = {.case_attrs = (const char *const *)s->eo.in.case_attrs,
                                .ncase = s->eo.in.ncase_attrs,
                                .max_attrs = s->max_attrs,
                                .max_str = s->max_str};
    char why[512];
    int rc;
    int enc = s->in_encoding == ENC_AUTO ? sniff_encoding(km->val, km->vlen) : s->in_encoding;
    if (enc == ENC_JSON) {
        rc = ingest_event_json_decode(km->val, km->vlen, &dopts, emit_event, &e, why, sizeof why);
    } else {
        ingest_otlp_kind kind =
            list_has(&s->logs_topics, km->topic) ? INGEST_OTLP_LOGS : INGEST_OTLP_TRACES;
        ingest_decode_result res;
        rc = ingest_otlp_decode(kind, enc == ENC_OTLP_JSON ? INGEST_ENC_JSON : INGEST_ENC_PROTO,
                                km->val, km->vlen, &dopts, emit_event, &e, &res, why, sizeof why);
        if (!rc && res.truncated)
            sink_counter_add(s->c_lim_truncated, res.truncated);
        if (!rc && res.rejected) {
            sink_counter_add(s->c_bad_kafka, res.rejected);
            if (s->bad_msgs++ < 20)
                core_logf(&s->lg, CORE_LOG_WARN, "%s[%d]@%lld: %llu records rejected: %s",
                          km->topic, km->partition, (long long)km->offset,
                          (unsigned long long)res.rejected, res.reject_reason);
        }
    }
    if (e.rc)
        return e.rc; /* the producer failed: stop before the commit */
    if (rc) {
        /* A bad message is skipped (its offset still counts as done: it
         * would be as bad the next time). */
        sink_counter_add(s->c_bad_kafka, 1);
        if (s->bad_msgs++ < 20)
            core_logf(&s->lg, CORE_LOG_WARN, "%s[%d]@%lld: skipped: %s", km->topic, km->partition,
                      (long long)km->offset, why);
    }
    sink_counter_add(s->c_events_kafka, e.events);
    pos_note(s, km->topic, km->partition, km->offset);
    sess_batch_offset_put(s->batch, km->topic, km->partition, km->offset + 1);
    return 0;
}

static bool restored_has(const srv *s, int32_t partition);
static int changelog_restore(srv *s, int32_t partition);

/* Where a partition given to this instance resumes: after the newest
 * message applied, in the batch being filled, in the one being committed,
 * in the state, or (with the changelog) by the instance that had it
 * before, whose changes are restored first. (Engine thread, inside the
 * poll.) */
static int64_t start_offset(void *ud, const char *topic, int32_t partition)
{
    srv *s = ud;
    if (s->kcl && !restored_has(s, partition) && changelog_restore(s, partition) != 0)
        s->fatal = -EIO; /* resuming without the state would apply events twice */
    int64_t best = -1;
    for (size_t i = 0; i < s->pos.n; i++)
        if (s->pos.v[i].partition == partition && strcmp(s->pos.v[i].topic, topic) == 0 &&
            s->pos.v[i].offset + 1 > best)
            best = s->pos.v[i].offset + 1;
    if (s->inflight) {
        pthread_mutex_lock(&s->cmu);
        for (size_t i = 0; i < s->c.npos; i++)
            if (s->c.pos[i].partition == partition && strcmp(s->c.pos[i].topic, topic) == 0 &&
                s->c.pos[i].offset + 1 > best)
                best = s->c.pos[i].offset + 1;
        pthread_mutex_unlock(&s->cmu);
    }
    for (size_t i = 0; i < s->cl_pos.n; i++)
        if (s->cl_pos.v[i].partition == partition && strcmp(s->cl_pos.v[i].topic, topic) == 0 &&
            s->cl_pos.v[i].offset + 1 > best)
            best = s->cl_pos.v[i].offset + 1;
    int64_t next;
    if (sess_offset_get(s->env, topic, partition, &next) == 0 && next > best)
        best = next;
    return best;
}

/* Receiver thread, when a request's headers are in: over
 * limits.memory_bytes, refused before its body is read. */
static bool otlp_over_memory(void *ud)
{
    srv *s = ud;
    if (!atomic_load(&s->mem_over))
        return false;
    sink_counter_add(s->c_lim_memory, 1);
    return true;
}

/* Receiver thread, before decoding a body: the queue is full (or the
 * daemon stopping), so the request would be refused anyway. (Not the
 * memory limit: a body read is memory spent, and refusing it would not
 * give it back.) */
static bool otlp_busy(void *ud)
{
    srv *s = ud;
    pthread_mutex_lock(&s->qmu);
    bool busy = s->stopping || s->qevents >= s->qmax;
    pthread_mutex_unlock(&s->qmu);
    return busy;
}

/* ---- limits.memory_bytes ---- */

/* Anonymous resident memory in bytes (resident minus file-backed and
 * shared pages: LMDB's map is page cache, not ours), or 0. */
static uint64_t anon_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, resident, shared;
    int n = f ? fscanf(f, "%llu %llu %llu", &size, &resident, &shared) : 0;
    if (f)
        fclose(f);
    if (n != 3 || shared > resident)
        return 0;
    return (uint64_t)(resident - shared) * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void *mem_main(void *arg)
{
    srv *s = arg;
    uint64_t last_trim = 0;
    pthread_mutex_lock(&s->mem_mu);
    while (!s->mem_quit) {
        pthread_mutex_unlock(&s->mem_mu);
        uint64_t anon = anon_bytes(), now = core_now_ns();
        bool over = atomic_load(&s->mem_over);
        /* Freed memory the allocator still holds counts as in use: give
         * it back before refusing input, and while refusing it. */
        if (anon > (over ? s->mem_limit / 10 * 9 : s->mem_limit) &&
            now - last_trim > 500000000ull) {
            malloc_trim(0);
            last_trim = now;
            anon = anon_bytes();
        }
        atomic_store(&s->mem_anon, anon);
        if (!over && anon > s->mem_limit) {
            atomic_store(&s->mem_over, true);
            core_logf(&s->lg, CORE_LOG_WARN,
                      "memory: %.0f MiB in use, over limits.memory_bytes (%.0f MiB): input "
                      "refused (OTLP/HTTP 503, Kafka paused) until under %.0f MiB",
                      (double)anon / 1048576.0, (double)s->mem_limit / 1048576.0,
                      0.9 * (double)s->mem_limit / 1048576.0);
        } else if (over && anon < s->mem_limit / 10 * 9) {
            atomic_store(&s->mem_over, false);
            core_logf(&s->lg, CORE_LOG_INFO, "memory: %.0f MiB in use: input taken again",
                      (double)anon / 1048576.0);
        }
        pthread_mutex_lock(&s->mem_mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (!s->mem_quit)
            pthread_cond_timedwait(&s->mem_cv, &s->mem_mu, &ts);
    }
    pthread_mutex_unlock(&s->mem_mu);
    return NULL;
}

static void mem_watch_start(srv *s)
{
    s->mem_limit = (uint64_t)core_cfg_int(s->cfg, "limits.memory_bytes");
    if (!s->mem_limit)
        return;
    pthread_mutex_init(&s->mem_mu, NULL);
    pthread_cond_init(&s->mem_cv, NULL);
    s->mem_thread_on = pthread_create(&s->mem_thread, NULL, mem_main, s) == 0;
    if (!s->mem_thread_on)
        core_logf(&s->lg, CORE_LOG_WARN, "memory: cannot start the watcher: no memory limit");
}

static void mem_watch_stop(srv *s)
{
    if (!s->mem_thread_on)
        return;
    pthread_mutex_lock(&s->mem_mu);
    s->mem_quit = true;
    pthread_cond_signal(&s->mem_cv);
    pthread_mutex_unlock(&s->mem_mu);
    pthread_join(s->mem_thread, NULL);
    s->mem_thread_on = false;
}

/* An OTLP/HTTP request (receiver thread): queue it, wait for its commit. */
static int on_otlp(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                   const uint8_t *id)
{
    srv *s = ud;
    pending p = {.kind = kind, .evs = evs, .n = n, .t0 = core_now_ns()};
    memcpy(p.id, id, INGEST_REQUEST_ID);
    pthread_mutex_lock(&s->qmu);
    if (s->recent) {
        /* A retry (the client gave up waiting, or lost our answer): it
         * waits for the outcome of the request it repeats, and is not
         * applied again when that one was committed. */
        sess_recent_state st;
        while ((st = sess_recent_get(s->recent, id)) == SESS_RECENT_PENDING && !s->stopping)
            pthread_cond_wait(&s->dcv, &s->qmu);
        if (st == SESS_RECENT_DONE) {
            pthread_mutex_unlock(&s->qmu);
            sink_counter_add(s->c_dup_requests, 1);
            return 0;
        }
    }
    /* (Not refused for memory here: its memory is spent already; the
     * check is before a body is decoded, in otlp_busy.) */
    if (s->stopping || (s->qevents && s->qevents + n > s->qmax)) {
        pthread_mutex_unlock(&s->qmu);
        return -EAGAIN;
    }
    if (s->recent) {
        sess_recent_set(s->recent, id, SESS_RECENT_PENDING, 0);
        p.tracked = true;
    }
    if (s->qtail)
        s->qtail->next = &p;
    else
        s->qhead = &p;
    s->qtail = &p;
    s->qevents += n;
    sink_gauge_set(s->g_queue, (double)s->qevents);
    pthread_cond_signal(&s->qcv);
    if (s->kin)
        ingest_kafka_wake(s->kin); /* the engine may be waiting for Kafka */
    while (!p.done)
        pthread_cond_wait(&s->dcv, &s->qmu);
    pthread_mutex_unlock(&s->qmu);
    return p.rc;
}

/* ------------------------------------------------------------------ */
/* The engine                                                          */
/* ------------------------------------------------------------------ */

static void answer(srv *s, pending *list_head, int rc)
{
    int64_t now = wall_ns();
    pthread_mutex_lock(&s->qmu);
    for (pending *p = list_head; p;) {
        pending *next = p->next;
        if (p->tracked)
            sess_recent_set(s->recent, p->id, rc ? SESS_RECENT_NONE : SESS_RECENT_DONE, now);
        p->rc = rc;
        p->done = true;
        p = next;
    }
    pthread_cond_broadcast(&s->dcv);
    pthread_mutex_unlock(&s->qmu);
}

/*
 * The pipeline. The engine applies events into s->batch and hands it to
 * the committer (pipe_handoff) as soon as the committer is idle; while
 * the committer waits for the broker's acknowledgements and writes LMDB,
 * the engine applies the next events into another batch. A batch is
 * committed only after every prediction it produced is acknowledged, and
 * batches are committed in order, so the promise holds: what is in the
 * state has its predictions on the topic, and what is acknowledged to a
 * client (OTLP 200, a stored Kafka offset) is in the state.
 */

/* Waits for one producer's epoch: through broker outages (librdkafka
 * retries until message.timeout.ms, then the delivery fails for good),
 * but not past a stop. */
static int ack_wait(srv *s, sink_kafka *k, uint64_t epoch, const char *what)
{
    uint64_t t0 = core_now_ns();
    for (;;) {
        int rc = sink_kafka_epoch_wait(k, epoch, 10000);
        if (rc != -ETIMEDOUT || g_stop) {
            if (rc) {
                sink_kafka_stats ks;
                sink_kafka_get_stats(k, &ks);
                core_logf(&s->lg, CORE_LOG_ERROR, "%s not acknowledged by the broker: %s%s%s", what,
                          core_strerror(rc), ks.last_error[0] ? ": " : "", ks.last_error);
            }
            return rc;
        }
        core_logf(&s->lg, CORE_LOG_WARN, "%s: still waiting for the broker after %.0f s", what,
                  (double)(core_now_ns() - t0) * 1e-9);
    }
}

/* Committer thread: one batch, once its changelog records and
 * predictions are acknowledged. */
static int commit_batch(srv *s, const sess_batch *b, uint64_t epoch, bool has_epoch,
                        uint64_t cl_epoch)
{
    uint64_t t0 = core_now_ns();
    atomic_store(&s->ack_wait_since, t0);
    int rc = s->kcl ? ack_wait(s, s->kcl, cl_epoch, "changelog") : 0;
    if (!rc && has_epoch)
        rc = ack_wait(s, s->kout, epoch, "predictions");
    atomic_store(&s->ack_wait_since, 0);
    if (rc)
        return rc;
    uint64_t t1 = core_now_ns();
    char why[512];
    rc = sess_batch_write(s->env, b, why, sizeof why);
    if (rc) {
        core_logf(&s->lg, CORE_LOG_ERROR, "%s", why);
        return rc;
    }
    uint64_t t2 = core_now_ns();
    sink_counter_add(s->c_commits, 1);
    sink_histogram_observe(s->h_flush, (double)(t1 - t0) * 1e-9);
    sink_histogram_observe(s->h_write, (double)(t2 - t1) * 1e-9);
    sink_histogram_observe(s->h_commit, (double)(t2 - t0) * 1e-9);
    return 0;
}

static void request_gone(void *ud, const uint8_t *id)
{
    sess_batch_request_del(ud, id);
}

/* Committer thread: idle cases, at most every few seconds and a bounded
 * number at a time, in a transaction of their own. A case the engine
 * holds in a batch not yet written is put again by that batch: expiry
 * never loses an event, it only forgets cases that had none for a TTL. */
static int expire_step(srv *s)
{
    uint64_t now = core_now_ns();
    if (now - s->last_expire < 5000000000ull)
        return 0;
    s->last_expire = now;
    uint64_t n = sess_expire(s->env, s->xbatch, wall_ns(), s->ttl_ns, 10000);
    if (s->recent) {
        pthread_mutex_lock(&s->qmu);
        sess_recent_expire(s->recent, wall_ns() - s->dedupe_ns, s->dedupe_max, request_gone,
                           s->xbatch);
        pthread_mutex_unlock(&s->qmu);
    }
    if (!n && sess_batch_size(s->xbatch) == 0)
        return 0;
    char why[512];
    int rc = sess_batch_commit(s->env, s->xbatch, why, sizeof why);
    if (rc) {
        core_logf(&s->lg, CORE_LOG_ERROR, "%s", why);
        return rc;
    }
    if (n)
        core_logf(&s->lg, CORE_LOG_INFO, "%llu idle cases expired", (unsigned long long)n);
    return 0;
}

static void *committer_main(void *arg)
{
    srv *s = arg;
    pthread_mutex_lock(&s->cmu);
    for (;;) {
        while (!s->c.quit && (!s->c.b || s->c.done)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            if (pthread_cond_timedwait(&s->ccv, &s->cmu, &ts) == ETIMEDOUT && !s->c.rc) {
                pthread_mutex_unlock(&s->cmu);
                int rc = expire_step(s);
                pthread_mutex_lock(&s->cmu);
                if (rc)
                    s->c.rc = rc; /* the engine stops at its next look */
            }
        }
        if (!s->c.b || s->c.done)
            break; /* quit, with nothing handed over */
        const sess_batch *b = s->c.b;
        pending *reqs = s->c.reqs;
        uint64_t epoch = s->c.epoch, cl_epoch = s->c.cl_epoch;
        bool has_epoch = s->c.has_epoch;
        int rc = s->c.rc;
        pthread_mutex_unlock(&s->cmu);
        if (!rc)
            rc = commit_batch(s, b, epoch, has_epoch, cl_epoch);
        /* The requests are answered after the commit: 200 means durable. */
        if (reqs)
            answer(s, reqs, rc ? -EIO : 0);
        if (!rc)
            rc = expire_step(s);
        pthread_mutex_lock(&s->cmu);
        s->c.rc = rc;
        s->c.done = true;
        pthread_cond_broadcast(&s->ccv);
        /* An engine waiting for input only wakes for the batch it may
         * now hand over. */
        pthread_mutex_lock(&s->qmu);
        pthread_cond_signal(&s->qcv);
        pthread_mutex_unlock(&s->qmu);
    }
    pthread_mutex_unlock(&s->cmu);
    return NULL;
}

/*
 * Engine: takes back the batch the committer has finished (waiting for it
 * with wait): stores its Kafka offsets and keeps it, emptied, as the
 * spare. Returns the committer's error (the engine stops then: nothing
 * after a failed batch may be committed).
 */
static int pipe_reap(srv *s, bool wait)
{
    if (!s->inflight) {
        pthread_mutex_lock(&s->cmu);
        int rc = s->c.rc;
        pthread_mutex_unlock(&s->cmu);
        return rc;
    }
    pthread_mutex_lock(&s->cmu);
    while (wait && !s->c.done)
        pthread_cond_wait(&s->ccv, &s->cmu);
    if (!s->c.done) {
        pthread_mutex_unlock(&s->cmu);
        return 0;
    }
    int rc = s->c.rc;
    kpos *pos = s->c.pos;
    size_t npos = s->c.npos;
    s->c.b = NULL;
    s->c.reqs = NULL;
    s->c.pos = NULL;
    s->c.npos = 0;
    pthread_mutex_unlock(&s->cmu);
    if (!rc && s->kin && npos) {
        ingest_kafka_pos *kp = core_xmalloc(npos * sizeof *kp);
        for (size_t i = 0; i < npos; i++)
            kp[i] = (ingest_kafka_pos){pos[i].topic, pos[i].partition, pos[i].offset};
        ingest_kafka_done(s->kin, kp, npos);
        free(kp);
    }
    for (size_t i = 0; i < npos; i++)
        free(pos[i].topic);
    free(pos);
    sess_batch_clear(s->inflight);
    s->spare = s->inflight;
    s->inflight = NULL;
    return rc;
}

/* Engine: hands the current batch over (the committer is idle). */
static void pipe_handoff(srv *s)
{
    pthread_mutex_lock(&s->cmu);
    s->c.b = s->batch;
    s->c.reqs = s->reqs;
    s->c.pos = s->pos.v;
    s->c.npos = s->pos.n;
    s->c.has_epoch = s->kout != NULL;
    s->c.epoch = s->kout ? sink_kafka_epoch_close(s->kout) : 0;
    s->c.cl_epoch = s->kcl ? sink_kafka_epoch_close(s->kcl) : 0;
    s->c.done = false;
    pthread_cond_broadcast(&s->ccv);
    pthread_mutex_unlock(&s->cmu);
    memset(&s->pos, 0, sizeof s->pos);
    s->inflight = s->batch;
    s->batch = s->spare ? s->spare : sess_batch_new();
    s->spare = NULL;
    s->reqs = s->reqs_tail = NULL;
    s->batch_events = 0;
}

/* Engine: everything applied so far committed, before returning. */
static int pipe_sync(srv *s)
{
    int rc = pipe_reap(s, true);
    if (!rc && sess_batch_size(s->batch)) {
        pipe_handoff(s);
        rc = pipe_reap(s, true);
    }
    return rc;
}

static int committer_start(srv *s)
{
    s->xbatch = sess_batch_new();
    s->last_expire = core_now_ns();
    if (pthread_create(&s->cthread, NULL, committer_main, s) != 0)
        return -errno;
    s->cthread_on = true;
    return 0;
}

static void committer_stop(srv *s)
{
    if (!s->cthread_on)
        return;
    pthread_mutex_lock(&s->cmu);
    s->c.quit = true;
    pthread_cond_broadcast(&s->ccv);
    pthread_mutex_unlock(&s->cmu);
    pthread_join(s->cthread, NULL);
    s->cthread_on = false;
}

static void gauges(srv *s)
{
    sess_stats st;
    sess_get_stats(s->env, &st);
    sink_gauge_set(s->g_cases, (double)st.cases);
    sink_gauge_set(s->g_state_bytes, (double)st.used_bytes);
    sink_gauge_set(s->g_mem, (double)anon_bytes());
    /* Not under mu, which the engine holds while it applies a batch:
     * /metrics must answer at once under load too. */
    pthread_mutex_lock(&s->gmu);
    uint64_t folded = atomic_load(&s->folded);
    if (folded > s->seen_folded)
        sink_counter_add(s->c_lim_activities, folded - s->seen_folded);
    s->seen_folded = folded;
    if (s->otlp) {
        ingest_otlp_http_stats hs;
        ingest_otlp_http_get_stats(s->otlp, &hs);
        if (hs.truncated_events > s->seen_http_truncated)
            sink_counter_add(s->c_lim_truncated, hs.truncated_events - s->seen_http_truncated);
        if (hs.rejected_events > s->seen_http_rejected)
            sink_counter_add(s->c_bad_otlp, hs.rejected_events - s->seen_http_rejected);
        s->seen_http_truncated = hs.truncated_events;
        s->seen_http_rejected = hs.rejected_events;
    }
    pthread_mutex_unlock(&s->gmu);
    uint64_t all = atomic_load(&s->events_total), mapped = atomic_load(&s->mapped_total);
    sink_gauge_set(s->g_coverage, all ? (double)mapped / (double)all : 0);
    if (s->kin) {
        ingest_kafka_stats ks;
        ingest_kafka_get_stats(s->kin, &ks);
        sink_gauge_set(s->g_lag, (double)ks.lag);
    }
}

/* Takes queued OTLP/HTTP requests (whole ones, up to budget events, at
 * least one when any waits). */
static pending *take_requests(srv *s, uint64_t budget)
{
    pending *head = s->qhead, *last = NULL;
    uint64_t n = 0;
    for (pending *p = head; p; p = p->next) {
        if (last && n + p->n > budget)
            break;
        n += p->n;
        last = p;
    }
    if (!last)
        return NULL;
    s->qhead = last->next;
    if (!s->qhead)
        s->qtail = NULL;
    last->next = NULL;
    s->qevents -= n;
    sink_gauge_set(s->g_queue, (double)s->qevents);
    return head;
}

/* One cycle; returns 0 or the error that stops the daemon. */
static int cycle(srv *s, bool draining)
{
    /* A finished commit first; a full batch waits for the committer. */
    int rc = pipe_reap(s, s->batch_events >= s->batch_max);
    if (rc)
        return rc;
    if (!draining)
        rebuild_step(s);
    uint64_t budget = s->batch_events < s->batch_max ? s->batch_max - s->batch_events : 0;
    bool busy = s->batch_events > 0; /* something to hand over soon: no long sleeps */
    if (s->kin && atomic_load(&s->mem_over) != s->kafka_paused) {
        s->kafka_paused = !s->kafka_paused;
        ingest_kafka_pause(s->kin, s->kafka_paused);
        if (s->kafka_paused)
            sink_counter_add(s->c_lim_memory, 1);
    }
    pthread_mutex_lock(&s->mu);
    if (s->kin && !draining && budget) {
        bool waiting;
        pthread_mutex_lock(&s->qmu);
        waiting = s->qhead != NULL;
        pthread_mutex_unlock(&s->qmu);
        int n = ingest_kafka_poll(s->kin, (int)(budget < INT32_MAX ? budget : INT32_MAX),
                                  waiting ? 0
                                  : busy  ? 1
                                          : 10,
                                  on_kafka_msg, s);
        if (n < 0) {
            core_logf(&s->lg, CORE_LOG_ERROR, "Kafka consumer: %s", core_strerror(n));
            rc = n;
        }
        if (s->fatal)
            rc = s->fatal;
        if (s->ftail)
            ingest_kafka_tail_poll(s->ftail, 10000, follows_merge, s);
    }
    pthread_mutex_lock(&s->qmu);
    if (!s->kin && !s->qhead && !draining) {
        /* Only HTTP input: sleep until a request comes, the committer
         * finishes, or 200 ms pass (signals, the model rebuild). */
        pthread_mutex_unlock(&s->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (busy ? 2 : 200) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->qcv, &s->qmu, &ts);
        pthread_mutex_unlock(&s->qmu);
        pthread_mutex_lock(&s->mu);
        pthread_mutex_lock(&s->qmu);
    }
    budget = s->batch_events < s->batch_max ? s->batch_max - s->batch_events : 0;
    pending *taken = rc || !budget ? NULL : take_requests(s, budget);
    pthread_mutex_unlock(&s->qmu);
    uint64_t nhttp = 0;
    for (pending *p = taken; p && !rc; p = p->next) {
        for (size_t i = 0; i < p->n && !rc; i++)
            rc = apply_event(s, &p->evs[i], p->t0, NULL);
        nhttp += p->n;
        /* Committed with the changes it made: a retry after a crash
         * finds it. */
        if (p->tracked)
            sess_batch_request_put(s->batch, p->id, wall_ns());
    }
    if (taken) {
        /* Answered by the committer with the batch they are in. */
        if (s->reqs_tail)
            s->reqs_tail->next = taken;
        else
            s->reqs = taken;
        pending *t = taken;
        while (t->next)
            t = t->next;
        s->reqs_tail = t;
    }
    if (nhttp)
        sink_counter_add(s->c_events_otlp, nhttp);
    /* Activities first seen in this cycle: the strategies that work per
     * activity (constants, tokens, the external command). */
    if (!rc && s->batch_events) {
        char why[512];
        if (model_mapper_finish(s->m, why, sizeof why) != 0)
            core_logf(&s->lg, CORE_LOG_WARN, "%s", why);
    }
    if (model_mapper_nactivities(s->m) > s->cycle_acts || model_mapper_nvariants(s->m) > s->dict_vars) {
        dict_save(s, s->cycle_acts);
        s->cycle_acts = model_mapper_nactivities(s->m);
    }
    atomic_store(&s->folded, model_mapper_folded(s->m));
    pthread_mutex_unlock(&s->mu);
    if (rc)
        return rc;
    /* Hand the batch over when the committer is free (so batches grow
     * with the load: as large as what came in during one commit). */
    if (sess_batch_size(s->batch)) {
        rc = pipe_reap(s, draining);
        if (!rc && !s->inflight)
            pipe_handoff(s);
    }
    uint64_t now = core_now_ns();
    if (now - s->last_gauges > 5000000000ull) {
        s->last_gauges = now;
        gauges(s);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* The changelog                                                       */
/* ------------------------------------------------------------------ */

/*
 * A changelog record: key = case id, value = version 1, the input topic
 * (u16 length, bytes) and offset (i64, little-endian) of the message that
 * made the change, the texts of the case's activities that are not the
 * base model's (u8 count, then per text: u8 token index, u16 length,
 * bytes: their ids are this instance's own), then the case in the state
 * store's encoding. A deleted case: a record with the same header and the
 * count 0xff (no case: the offset of the message that closed it must
 * survive too), then a tombstone, so that compaction forgets the case.
 */
#define CL_DELETED 0xff
#define CL_VERSION 1

static int cl_produce(srv *s, int32_t partition, const char *case_id, size_t clen, const void *val,
                      size_t vlen)
{
    int rc;
    while ((rc = sink_kafka_send_to(s->kcl, partition, case_id, clen, val, vlen, 100)) == -EAGAIN &&
           !g_stop)
        ;
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR, "cannot produce to %s[%d]: %s", s->cl_topic,
                  (int)partition, core_strerror(rc));
    return rc;
}

static int changelog_send(srv *s, const char *case_id, size_t clen, const sess_case *c,
                          const ingest_kafka_msg *km)
{
    core_buf *b = &s->clv;
    core_buf_reset(b);
    core_buf_putc(b, CL_VERSION);
    size_t tl = strlen(km->topic);
    put_le(b, tl, 2);
    core_buf_append(b, km->topic, tl);
    put_le(b, (uint64_t)km->offset, 8);
    if (!c) {
        core_buf_putc(b, (char)CL_DELETED);
        int rc = cl_produce(s, km->partition, case_id, clen, b->data, b->len);
        return rc ? rc : cl_produce(s, km->partition, case_id, clen, NULL, 0);
    }
    {
        uint8_t n = 0;
        for (uint32_t i = 0; i < c->ntok; i++)
            n += c->act[i] >= s->base_acts;
        core_buf_putc(b, (char)n);
        for (uint32_t i = 0; i < c->ntok; i++) {
            if (c->act[i] < s->base_acts)
                continue;
            model_activity pa;
            model_mapper_activity(s->m, c->act[i], &pa);
            size_t n2 = strlen(pa.text);
            if (n2 > 65535)
                n2 = 65535;
            core_buf_putc(b, (char)i);
            put_le(b, n2, 2);
            core_buf_append(b, pa.text, n2);
        }
        sess_case_encode(c, b);
    }
    return cl_produce(s, km->partition, case_id, clen, b->data, b->len);
}

/* The newest input offset seen for topic[partition] in the changelog. */
static void cl_pos_note(srv *s, const char *topic, size_t tl, int32_t partition, int64_t off)
{
    for (size_t i = 0; i < s->cl_pos.n; i++) {
        kpos *p = &s->cl_pos.v[i];
        if (p->partition == partition && strlen(p->topic) == tl &&
            memcmp(p->topic, topic, tl) == 0) {
            if (off > p->offset)
                p->offset = off;
            return;
        }
    }
    core_vec_push(&s->cl_pos, ((kpos){core_xstrndup(topic, tl), partition, off}));
}

/*
 * Fencing. An instance that was paused past the session timeout (a long
 * GC-like stall, SIGSTOP, a frozen VM) loses its partitions, but it may
 * still write the changes of the messages it had in hand before it learns
 * that: records older than those the new owner has written since, after
 * them in the changelog. A restore keeps, per case and input topic, the
 * newest input offset whose change it applied, and skips a record whose
 * change comes from an older message (stale), and the tombstone that
 * follows a stale deletion. Records of one message share its offset and
 * apply in order.
 */
typedef struct restore_ctx {
    srv *s;
    uint64_t puts, dels, bad, stale;
    core_map newest;    /* hash(case, topic) -> newest input offset applied + 1 */
    core_map skip_tomb; /* hash(case) -> 1: the next tombstone is a stale deletion's */
} restore_ctx;

static uint64_t fence_key(const char *key, size_t klen, const char *topic, size_t tl)
{
    uint64_t h = core_hash64(key, klen, 0x66656e6365ull) ^ (uint64_t)klen;
    h = core_hash64(topic, tl, h);
    return h == UINT64_MAX ? 0 : h;
}

/* True if the change of input (topic, off) to case key is older than one
 * already applied; else notes it as the newest. */
static bool fence_stale(restore_ctx *r, const char *key, size_t klen, const char *topic, size_t tl,
                        int64_t off)
{
    bool fresh;
    uint64_t *v = core_map_put(&r->newest, fence_key(key, klen, topic, tl), &fresh);
    if (!fresh && (int64_t)(*v - 1) > off)
        return true;
    *v = (uint64_t)off + 1;
    return false;
}

static int restore_one(void *ud, const ingest_kafka_msg *m)
{
    restore_ctx *r = ud;
    srv *s = r->s;
    if (!m->key || !m->klen || m->klen > SESS_MAX_ID) {
        r->bad++;
        return 0;
    }
    if (!m->val) { /* after its deletion record (counted there) */
        uint64_t *skip = core_map_get(&r->skip_tomb, fence_key(m->key, m->klen, "", 0));
        if (skip && *skip) {
            *skip = 0;
            r->stale++;
            return 0;
        }
        sess_batch_case_del(s->batch, m->key, m->klen);
        return 0;
    }
    const uint8_t *p = m->val, *end = p + m->vlen;
    if (m->vlen < 12 || p[0] != CL_VERSION) {
        r->bad++;
        return 0;
    }
    size_t tl = get_le(p + 1, 2);
    if ((size_t)(end - p) < 3 + tl + 9) {
        r->bad++;
        return 0;
    }
    const char *topic = (const char *)p + 3;
    int64_t off = (int64_t)get_le(p + 3 + tl, 8);
    p += 3 + tl + 8;
    uint8_t ntext = *p++;
    if (fence_stale(r, m->key, m->klen, topic, tl, off)) {
        r->stale++;
        if (ntext == CL_DELETED)
            *core_map_put(&r->skip_tomb, fence_key(m->key, m->klen, "", 0), NULL) = 1;
        return 0;
    }
    if (ntext == CL_DELETED) {
        sess_batch_case_del(s->batch, m->key, m->klen);
        cl_pos_note(s, topic, tl, m->partition, off);
        r->dels++;
        return 0;
    }
    struct {
        uint8_t at;
        const char *t;
        size_t n;
    } texts[SESS_MAX_TOKENS];
    for (uint8_t i = 0; i < ntext; i++) {
        if (end - p < 3 || i >= SESS_MAX_TOKENS) {
            r->bad++;
            return 0;
        }
        texts[i].at = p[0];
        texts[i].n = get_le(p + 1, 2);
        texts[i].t = (const char *)p + 3;
        p += 3 + texts[i].n;
        if (p > end) {
            r->bad++;
            return 0;
        }
    }
    sess_case c;
    char why[128];
    if (sess_case_decode(p, (size_t)(end - p), &c, why, sizeof why) != 0) {
        r->bad++;
        return 0;
    }
    /* Activities of no base model: ids of ours for their texts. */
    for (uint8_t i = 0; i < ntext; i++) {
        if (texts[i].at >= c.ntok)
            continue;
        char *t = core_xstrndup(texts[i].t, texts[i].n);
        uint32_t a = model_mapper_find(s->m, t), v;
        if (a == UINT32_MAX) {
            model_map_event me = {.text = t, .len = texts[i].n};
            model_mapper_map(s->m, &me, UINT32_MAX, &a, &v);
            c.var[texts[i].at] = v;
        }
        c.act[texts[i].at] = a;
        free(t);
    }
    sess_batch_case_put(s->batch, m->key, m->klen, &c);
    cl_pos_note(s, topic, tl, m->partition, off);
    r->puts++;
    return 0;
}

static bool restored_has(const srv *s, int32_t partition)
{
    for (size_t i = 0; i < s->restored.n; i++)
        if (s->restored.v[i] == partition)
            return true;
    return false;
}

/* The cases of changelog partition P, from where this state has read it
 * to its end, into the current batch. Engine thread, inside the poll. */
static int changelog_restore(srv *s, int32_t partition)
{
    int64_t from = 0, next = 0;
    if (sess_offset_get(s->env, s->cl_topic, partition, &from) != 0)
        from = 0;
    restore_ctx r = {.s = s};
    uint64_t t0 = core_now_ns();
    char why[512];
    int rc = ingest_kafka_read_partition(&s->kio, s->cl_topic, partition, from, 60000, restore_one,
                                         &r, &next, why, sizeof why);
    core_map_free(&r.newest);
    core_map_free(&r.skip_tomb);
    if (rc) {
        core_logf(&s->lg, CORE_LOG_ERROR, "restoring %s[%d]: %s", s->cl_topic, (int)partition, why);
        return rc;
    }
    sess_batch_offset_put(s->batch, s->cl_topic, partition, next);
    core_vec_push(&s->restored, partition);
    sink_counter_add(s->c_cl_stale, r.stale);
    core_logf(&s->lg, CORE_LOG_INFO,
              "restored %llu case changes (%llu deletions, %llu unreadable, %llu stale skipped) of "
              "%s[%d] from offset %lld in %.1f ms",
              (unsigned long long)r.puts, (unsigned long long)r.dels, (unsigned long long)r.bad,
              (unsigned long long)r.stale, s->cl_topic, (int)partition, (long long)from,
              (double)(core_now_ns() - t0) / 1e6);
    return 0;
}

/* ---- shared counts ---- */

/*
 * A window and what followed, for the others. Value: version, instance id
 * (u64), order (u8), next, act[order], var[order] (u32 each,
 * little-endian). Ids of the base model mean the same everywhere; those
 * learnt online are this instance's own, so version 2 adds their texts:
 * a count (u8), then per text its slot (u8: 0 next, 1 + i act[i], 0x80 | i
 * var[i]), length (u16) and bytes; the receiver maps them to ids of its
 * own. A window of base ids only goes as version 1 (what instances before
 * version 2 merge).
 */
#define FO_SLOT_VAR 0x80

static void fo_text(core_buf *b, uint8_t slot, const char *t, uint8_t *ntext)
{
    size_t n = strlen(t);
    if (n > 65535)
        n = 65535;
    core_buf_putc(b, (char)slot);
    put_le(b, n, 2);
    core_buf_append(b, t, n);
    (*ntext)++;
}

static void follows_share(srv *s, uint32_t order, uint32_t next, const uint32_t *act,
                          const uint32_t *var)
{
    bool base = next < s->base_acts;
    for (uint32_t i = 0; i < order; i++)
        base = base && act[i] < s->base_acts && var[i] < s->base_vars;
    core_buf *b = &s->fov;
    core_buf_reset(b);
    core_buf_putc(b, base ? 1 : 2);
    put_le(b, s->instance_id, 8);
    core_buf_putc(b, (char)order);
    put_le(b, next, 4);
    for (uint32_t i = 0; i < order; i++)
        put_le(b, act[i], 4);
    for (uint32_t i = 0; i < order; i++)
        put_le(b, var[i], 4);
    if (!base) {
        size_t at = b->len;
        uint8_t ntext = 0;
        core_buf_putc(b, 0);
        model_activity pa;
        if (next >= s->base_acts) {
            model_mapper_activity(s->m, next, &pa);
            fo_text(b, 0, pa.text, &ntext);
        }
        for (uint32_t i = 0; i < order; i++) {
            if (act[i] >= s->base_acts) {
                model_mapper_activity(s->m, act[i], &pa);
                fo_text(b, (uint8_t)(1 + i), pa.text, &ntext);
            }
            if (var[i] >= s->base_vars) {
                const char *t;
                model_mapper_variant(s->m, var[i], &t);
                fo_text(b, (uint8_t)(FO_SLOT_VAR | i), t, &ntext);
            }
        }
        b->data[at] = (char)ntext;
    }
    /* Best effort: the window is counted here and in this state whatever
     * happens to the copy. */
    if (sink_kafka_send(s->kfo, NULL, 0, b->data, b->len, 0) != 0)
        sink_counter_add(s->c_follows_lost, 1);
    else
        sink_counter_add(s->c_follows_shared, 1);
}

/* An activity of another instance, by its text: ours, or a new one made
 * by mapping the text (as a restored case's). */
static uint32_t fo_activity(srv *s, const uint8_t *t, size_t n)
{
    char *txt = core_xstrndup((const char *)t, n);
    uint32_t a = model_mapper_find(s->m, txt), v;
    if (a == UINT32_MAX) {
        model_map_event me = {.text = txt, .len = n};
        model_mapper_map(s->m, &me, UINT32_MAX, &a, &v);
    }
    free(txt);
    return a;
}

static int follows_merge(void *ud, const ingest_kafka_msg *m)
{
    srv *s = ud;
    const uint8_t *p = m->val;
    sess_batch_offset_put(s->batch, s->fo_topic, m->partition, m->offset + 1);
    if (!p || m->vlen < 14 || (p[0] != 1 && p[0] != 2) || get_le(p + 1, 8) == s->instance_id)
        return 0;
    uint32_t order = p[9];
    size_t fixed = 14 + (size_t)order * 8;
    if (order == 0 || order > SESS_MAX_TOKENS ||
        (p[0] == 1 ? m->vlen != fixed : m->vlen < fixed + 1))
        return 0;
    uint32_t next = (uint32_t)get_le(p + 10, 4), act[SESS_MAX_TOKENS], var[SESS_MAX_TOKENS];
    for (uint32_t i = 0; i < order; i++) {
        act[i] = (uint32_t)get_le(p + 14 + i * 4, 4);
        var[i] = (uint32_t)get_le(p + 14 + (order + i) * 4, 4);
    }
    /* Texts (version 2): activities first, then the variants of the
     * activities they belong to, which are ours by then. */
    const uint8_t *t = p + fixed, *end = p + m->vlen;
    uint32_t ntext = p[0] == 2 ? *t++ : 0;
    struct {
        uint8_t slot;
        const uint8_t *t;
        size_t n;
    } tx[1 + 2 * SESS_MAX_TOKENS];
    if (ntext > 1 + 2 * order)
        return 0;
    for (uint32_t i = 0; i < ntext; i++) {
        if (end - t < 3)
            return 0;
        tx[i].slot = t[0];
        tx[i].n = get_le(t + 1, 2);
        tx[i].t = t + 3;
        t += 3 + tx[i].n;
        if (t > end)
            return 0;
    }
    bool got_next = false, got_act[SESS_MAX_TOKENS] = {false}, got_var[SESS_MAX_TOKENS] = {false};
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < ntext; i++) {
            uint8_t sl = tx[i].slot;
            bool is_var = sl & FO_SLOT_VAR;
            if (is_var != (pass == 1))
                continue;
            if (!is_var && sl == 0) {
                next = fo_activity(s, tx[i].t, tx[i].n);
                got_next = true;
            } else if (!is_var && sl <= order) {
                act[sl - 1] = fo_activity(s, tx[i].t, tx[i].n);
                got_act[sl - 1] = true;
            } else if (is_var && (sl & ~FO_SLOT_VAR) < order) {
                uint32_t j = sl & ~FO_SLOT_VAR;
                char *txt = core_xstrndup((const char *)tx[i].t, tx[i].n);
                var[j] = act[j] == UINT32_MAX ? UINT32_MAX
                                              : model_mapper_restore_variant(s->m, act[j], txt);
                free(txt);
                got_var[j] = true;
            } else {
                return 0;
            }
        }
    /* Every id is now a base id or one of ours. */
    if ((next >= s->base_acts && !got_next) || next == UINT32_MAX)
        return 0;
    for (uint32_t i = 0; i < order; i++)
        if ((act[i] >= s->base_acts && !got_act[i]) || (var[i] >= s->base_vars && !got_var[i]) ||
            act[i] == UINT32_MAX || var[i] == UINT32_MAX)
            return 0;
    obs_count(s, order, next, act, var, 1, true);
    sink_counter_add(s->c_follows_merged, 1);
    return 0;
}

static int64_t follows_start(void *ud, int32_t partition)
{
    srv *s = ud;
    int64_t next;
    return sess_offset_get(s->env, s->fo_topic, partition, &next) == 0 ? next : -1;
}

/* ---- retried OTLP/HTTP requests ---- */

typedef struct req_ent {
    uint8_t id[SESS_REQUEST_ID];
    int64_t t;
} req_ent;
typedef struct req_load {
    srv *s;
    int64_t since;
    core_vec(req_ent) keep;
    uint64_t old;
} req_load;

static int req_load_one(void *ud, const uint8_t *id, int64_t t)
{
    req_load *l = ud;
    if (t >= l->since) {
        req_ent e = {.t = t};
        memcpy(e.id, id, SESS_REQUEST_ID);
        core_vec_push(&l->keep, e);
    } else {
        sess_batch_request_del(l->s->batch, id);
        l->old++;
    }
    return 0;
}

static int req_by_time(const void *a, const void *b)
{
    const req_ent *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* The requests committed within otlp.dedupe_seconds, from the state, so
 * that a client retrying across a restart is not applied twice; older
 * ones (all of them with the check off) are deleted. */
static void requests_load(srv *s)
{
    s->dedupe_ns = core_cfg_int(s->cfg, "otlp.dedupe_seconds") * 1000000000ll;
    s->dedupe_max = (size_t)core_cfg_int(s->cfg, "otlp.dedupe_max");
    bool on = s->dedupe_ns > 0 && *core_cfg_str(s->cfg, "otlp.listen");
    req_load l = {.s = s, .since = on ? wall_ns() - s->dedupe_ns : INT64_MAX};
    sess_request_iter(s->env, req_load_one, &l);
    if (on) {
        s->recent = sess_recent_new();
        if (l.keep.n)
            qsort(l.keep.v, l.keep.n, sizeof *l.keep.v, req_by_time);
        for (size_t i = 0; i < l.keep.n; i++)
            sess_recent_set(s->recent, l.keep.v[i].id, SESS_RECENT_DONE, l.keep.v[i].t);
        if (l.keep.n)
            core_logf(&s->lg, CORE_LOG_INFO,
                      "%zu OTLP/HTTP requests of the last %lld s restored (retries of them are "
                      "not applied again)",
                      l.keep.n, (long long)(s->dedupe_ns / 1000000000ll));
    }
    core_vec_free(&l.keep);
}

/* This state's instance id (made at its first start). */
static uint64_t instance_id(srv *s)
{
    core_buf meta = {0};
    uint64_t id = 0;
    if (sess_meta_get(s->env, "instance", &meta) == 0 && meta.len == 8)
        id = get_le((const uint8_t *)meta.data, 8);
    core_buf_free(&meta);
    if (id)
        return id;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&id, sizeof id, 1, f) != 1)
        id = (uint64_t)core_now_ns() ^ ((uint64_t)getpid() << 32);
    if (f)
        fclose(f);
    core_buf b = {0};
    put_le(&b, id, 8);
    sess_batch_meta_put(s->batch, "instance", b.data, b.len);
    core_buf_free(&b);
    return id;
}

/* Revoked (engine thread, inside the poll): everything applied so far is
 * committed before the partition goes, and it is restored again if it
 * comes back. */
static void on_revoked(void *ud, const char *topic, int32_t partition)
{
    srv *s = ud;
    (void)topic;
    if (!s->kcl || !s->cthread_on)
        return; /* (stopping: everything was committed before the consumer closes) */
    if (model_mapper_nactivities(s->m) > s->cycle_acts || model_mapper_nvariants(s->m) > s->dict_vars)
        dict_save(s, s->cycle_acts); /* (again after this cycle's finish) */
    if (pipe_sync(s) != 0)
        core_logf(&s->lg, CORE_LOG_ERROR, "commit before giving up %s[%d] failed", topic,
                  (int)partition);
    for (size_t i = 0; i < s->restored.n; i++)
        if (s->restored.v[i] == partition)
            s->restored.v[i--] = s->restored.v[--s->restored.n];
}

/* ------------------------------------------------------------------ */
/* The HTTP API                                                        */
/* ------------------------------------------------------------------ */

static int api_case(void *ud, const char *case_id, core_buf *json)
{
    srv *s = ud;
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
        vec_rebuild(s->md, s->api_w, s->M, &c);
    ppr_vec rec = {(ppr_entry *)c.vec, c.nvec, c.nvec, c.vec_err};
    model_pred *p = core_xmalloc(s->k * sizeof *p);
    uint32_t n =
        model_rank_warm(s->md, s->api_w, c.act, c.var, c.ntok, &rec, c.vec_wsum, s->k, p);
    core_buf_printf(json, "],\"prefix_truncated\":%s,\"model_version\":\"%s\",\"ranked\":",
                    c.seq > c.ntok ? "true" : "false", s->model_version_text);
    model_preds_json(json, s->m, p, n);
    pthread_mutex_unlock(&s->mu);
    free(p);
    core_buf_puts(json, "}");
    return 0;
}

static int api_query(void *ud, const char *body, size_t len, core_buf *json, char *why,
                     size_t whylen)
{
    srv *s = ud;
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
        model_mapper_map(s->m, &me, i ? act[i - 1] : UINT32_MAX, &act[i], &var[i]);
        model_activity pa;
        model_mapper_activity(s->m, act[i], &pa);
        core_buf_puts(json, i ? ",{\"event\":" : "{\"event\":");
        core_buf_json_str(json, me.text, me.len);
        core_buf_puts(json, ",\"activity\":");
        core_buf_json_str(json, pa.text, strlen(pa.text));
        core_buf_printf(json, ",\"strategy\":\"%s\"}", model_map_strategy_name(pa.strategy));
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
    srv *s = ud;
    gauges(s);
    sink_metrics_render(s->mx, text);
}

static bool api_ready(void *ud, core_buf *why)
{
    srv *s = ud;
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

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static void metrics_init(srv *s)
{
    sink_metrics *m = s->mx = sink_metrics_new();
    static const double lat[] = {0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                 0.0025,  0.005,   0.0075, 0.01,    0.015,  0.025,
                                 0.05,    0.1,     0.25,   0.5,     1,      2.5};
    const size_t nlat = sizeof lat / sizeof *lat;
    s->c_events_kafka = sink_metrics_counter(m, "pmrag_events_in_total",
                                             "events received, by source", "source=\"kafka\"");
    s->c_events_otlp = sink_metrics_counter(m, "pmrag_events_in_total",
                                            "events received, by source", "source=\"otlp_http\"");
    s->c_bad_kafka =
        sink_metrics_counter(m, "pmrag_records_rejected_total",
                             "records that could not be used, by source", "source=\"kafka\"");
    s->c_dup_requests = sink_metrics_counter(
        m, "pmrag_otlp_duplicate_requests_total",
        "OTLP/HTTP requests answered as retries of committed ones, not applied again", NULL);
    s->c_cl_stale = sink_metrics_counter(
        m, "pmrag_changelog_stale_records_total",
        "changelog records skipped by a restore: older than a change already applied to their "
        "case (written late by an instance that had lost the partition)",
        NULL);
    s->c_bad_otlp =
        sink_metrics_counter(m, "pmrag_records_rejected_total",
                             "records that could not be used, by source", "source=\"otlp_http\"");
    static const char lim_help[] = "events or records that hit a limit (limits.*), by limit";
    s->c_lim_truncated =
        sink_metrics_counter(m, "pmrag_limit_hits_total", lim_help, "limit=\"record_truncated\"");
    s->c_lim_activities =
        sink_metrics_counter(m, "pmrag_limit_hits_total", lim_help, "limit=\"activities\"");
    s->c_lim_case_events =
        sink_metrics_counter(m, "pmrag_limit_hits_total", lim_help, "limit=\"case_events\"");
    s->c_lim_new_cases =
        sink_metrics_counter(m, "pmrag_limit_hits_total", lim_help, "limit=\"new_cases\"");
    s->c_lim_memory =
        sink_metrics_counter(m, "pmrag_limit_hits_total", lim_help, "limit=\"memory\"");
    s->c_predictions =
        sink_metrics_counter(m, "pmrag_predictions_out_total", "predictions published", NULL);
    s->c_follows_merged =
        sink_metrics_counter(m, "pmrag_follows_merged_total",
                             "windows learnt online by other instances, merged here", NULL);
    s->c_follows_shared = sink_metrics_counter(
        m, "pmrag_follows_shared_total", "windows learnt here, sent to the other instances", NULL);
    s->c_follows_lost = sink_metrics_counter(m, "pmrag_follows_unshared_total",
                                             "windows learnt here that could not be shared", NULL);
    s->c_mapped = sink_metrics_counter(m, "pmrag_events_mapped_total",
                                       "events whose activity has emitting symbols", NULL);
    s->c_unmapped = sink_metrics_counter(m, "pmrag_events_unmapped_total",
                                         "events whose activity has no emitting symbol", NULL);
    s->c_commits =
        sink_metrics_counter(m, "pmrag_state_commits_total", "state transactions committed", NULL);
    s->c_restarts_cold =
        sink_metrics_counter(m, "pmrag_case_cold_restarts_total",
                             "case vectors recomputed because they came from an older model", NULL);
    s->g_coverage = sink_metrics_gauge(m, "pmrag_mapping_coverage",
                                       "share of events mapped to at least one symbol", NULL);
    s->g_cases = sink_metrics_gauge(m, "pmrag_state_cases", "cases in the state store", NULL);
    s->g_state_bytes =
        sink_metrics_gauge(m, "pmrag_state_bytes", "bytes used in the LMDB state store", NULL);
    s->g_lag = sink_metrics_gauge(m, "pmrag_kafka_consumer_lag",
                                  "messages behind the end of the assigned input partitions", NULL);
    s->g_model_version =
        sink_metrics_gauge(m, "pmrag_model_version", "number of the model in use", NULL);
    s->g_queue = sink_metrics_gauge(m, "pmrag_ingest_queue_events",
                                    "OTLP/HTTP events waiting for the engine", NULL);
    s->g_mem =
        sink_metrics_gauge(m, "pmrag_memory_anon_bytes",
                           "anonymous resident memory (limits.memory_bytes counts this)", NULL);
    s->h_ppr = sink_metrics_histogram(m, "pmrag_ppr_seconds",
                                      "time to advance a case and rank its next emitters", NULL,
                                      lat, nlat);
    s->h_e2e = sink_metrics_histogram(m, "pmrag_event_to_prediction_seconds",
                                      "from an event's arrival to its prediction", NULL, lat, nlat);
    s->h_commit = sink_metrics_histogram(m, "pmrag_commit_seconds",
                                         "producer acknowledgements and state write per batch",
                                         NULL, lat, nlat);
    s->h_flush = sink_metrics_histogram(
        m, "pmrag_producer_ack_wait_seconds",
        "waiting for the broker to acknowledge a batch's predictions", NULL, lat, nlat);
    s->h_write =
        sink_metrics_histogram(m, "pmrag_state_write_seconds",
                               "one batch's LMDB write transaction, synced", NULL, lat, nlat);
    sink_gauge_set(sink_metrics_gauge(m, "pmrag_build_info", "version of this pmrag",
                                      "version=\"" PMRAG_VERSION "\""),
                   1);
}

static int kafka_start(srv *s, char *why, size_t whylen)
{
    const char *brokers = core_cfg_str(s->cfg, "kafka.brokers");
    split_list(core_cfg_str(s->cfg, "kafka.input_topics"), ',', &s->in_topics);
    split_list(core_cfg_str(s->cfg, "kafka.logs_topics"), ',', &s->logs_topics);
    s->out_topic = core_cfg_str(s->cfg, "kafka.output_topic");
    const char *enc = core_cfg_str(s->cfg, "kafka.input_encoding");
    s->in_encoding = strcmp(enc, "otlp_proto") == 0  ? ENC_OTLP_PROTO
                     : strcmp(enc, "otlp_json") == 0 ? ENC_OTLP_JSON
                     : strcmp(enc, "json") == 0      ? ENC_JSON
                                                     : ENC_AUTO;
    s->out_json = strcmp(core_cfg_str(s->cfg, "kafka.output_encoding"), "json") == 0;
    int rc = 0;
    if (!*brokers) {
        if (!core_cfg_bool(s->cfg, "kafka.embedded"))
            return 0; /* no Kafka at all */
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
        core_logf(&s->lg, CORE_LOG_INFO, "embedded Kafka (librdkafka mock cluster) at %s", brokers);
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
            .start_offset = start_offset,
            .revoked = changelog ? on_revoked : NULL,
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
        s->instance_id = instance_id(s);
        sink_kafka_opts ko = {.bootstrap = s->bootstrap,
                              .topic = s->fo_topic,
                              .props = (const char *const *)props.v,
                              .nprops = props.n,
                              .log = s->lg};
        rc = sink_kafka_new(&ko, &s->kfo, why, whylen);
        if (!rc)
            rc = ingest_kafka_tail_new(&s->kio, s->fo_topic, follows_start, s, &s->ftail, why,
                                       whylen);
    }
    s->kprops = props; /* the restores use them */
    return rc;
}

static int write_ready(srv *s, const char *path)
{
    core_buf b = {0};
    core_buf_puts(&b, "{\"otlp_http\":");
    const char *a = s->otlp ? ingest_otlp_http_address(s->otlp) : "";
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

static void srv_free(srv *s)
{
    mem_watch_stop(s);
    if (s->api)
        sink_api_stop(s->api);
    if (s->otlp)
        ingest_otlp_http_stop(s->otlp);
    ingest_kafka_free(s->kin);
    sink_kafka_free(s->kout);
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
    ingest_kafka_mock_free(s->mock);
    free(s->bootstrap);
    committer_stop(s);
    if (s->batch)
        sess_batch_free(s->batch);
    if (s->inflight)
        sess_batch_free(s->inflight);
    if (s->spare)
        sess_batch_free(s->spare);
    if (s->xbatch)
        sess_batch_free(s->xbatch);
    sess_recent_free(s->recent);
    for (size_t i = 0; i < s->c.npos; i++)
        free(s->c.pos[i].topic);
    free(s->c.pos);
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
    model_mapper_free(s->m);
    core_map_free(&s->obs_idx);
    core_vec_free(&s->obs);
    graph_overrides_free(s->ov);
    if (s->g)
        graph_close(s->g);
    for (size_t i = 0; i < s->pos.n; i++)
        free(s->pos.v[i].topic);
    core_vec_free(&s->pos);
    list_free(&s->in_topics);
    list_free(&s->logs_topics);
    list_free(&s->end_acts);
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
    pthread_cond_destroy(&s->ccv);
    pthread_cond_destroy(&s->qcv);
    pthread_cond_destroy(&s->dcv);
}

int cmd_serve(int argc, char **argv)
{
    srv s;
    memset(&s, 0, sizeof s);
    const char *cfg_path = NULL, *ready_file = NULL;
    cli_list sets = {0};
    bool quiet = false;
    const cli_opt opts[] = {
        {"graph", 0, CLI_STR, &s.graph_path, "FILE", "graph file from pmrag index (required)", 0,
         0},
        {"model", 0, CLI_STR, &s.model_path, "FILE",
         "model file from pmrag mine (default: model.bootstrap_log, or no history)", 0, 0},
        {"overrides", 0, CLI_STR, &s.overrides_path, "FILE",
         "YAML rules mapping activity patterns to symbols", 0, 0},
        {"ready-file", 0, CLI_STR, &ready_file, "FILE",
         "write the listening addresses and topics here (JSON, atomically) once everything is up",
         0, 0},
        {"quiet", 'q', CLI_FLAG, &quiet, NULL, "no notes on stderr", 0, 0},
        CLI_CONFIG_OPTS(&cfg_path, &sets),
    };
    const cli_cmd cmd = {
        "serve",
        "--graph FILE [--model FILE] [--config FILE] [--set KEY=VALUE ...] [--ready-file FILE]",
        "The daemon: events from OTLP/HTTP (POST /v1/traces, /v1/logs) and Kafka go through\n"
        "the mapping to their case's state, and every event gives one prediction of the\n"
        "functions that emit the case's next event: to the Kafka output topic (key: case\n"
        "id), to stdout with serve.stdout, and through the HTTP API (GET /v1/cases/ID,\n"
        "POST /v1/query, /metrics, /livez, /readyz).",
        "With no kafka.brokers, an embedded Kafka (librdkafka's mock cluster) carries the\n"
        "input and output topics; the ready file tells its address, for kcat -b.\n"
        "State (cases, online activities, input offsets) lives in state.dir and survives\n"
        "restarts. SIGTERM or SIGINT: drain, flush, commit, exit 0. SIGHUP: reload the model.\n"
        "Keys: 'pmrag config --reference'.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    rc = cli_config(&cmd, cfg_path, &sets, &s.cfg);
    free(sets.v);
    if (rc)
        return rc;
    if (!s.graph_path) {
        core_cfg_free(s.cfg);
        return cli_usage_error(&cmd, "missing --graph FILE");
    }
    pthread_mutex_init(&s.mu, NULL);
    pthread_mutex_init(&s.qmu, NULL);
    pthread_mutex_init(&s.cmu, NULL);
    pthread_mutex_init(&s.gmu, NULL);
    pthread_cond_init(&s.ccv, NULL);
    pthread_cond_init(&s.qcv, NULL);
    pthread_cond_init(&s.dcv, NULL);
    s.lg = cli_logger(quiet);
    /* A daemon says what it does: start-up, model changes, expiry. */
    if (!quiet)
        s.lg.min = CORE_LOG_INFO;
    s.code_attrs = core_cfg_bool(s.cfg, "map.code_attrs");
    s.M = (uint32_t)core_cfg_int(s.cfg, "model.state_entries");
    if (s.M > SESS_MAX_VEC)
        s.M = SESS_MAX_VEC;
    s.k = (uint32_t)core_cfg_int(s.cfg, "serve.k");
    s.batch_max = (uint32_t)core_cfg_int(s.cfg, "serve.batch");
    s.qmax = (size_t)core_cfg_int(s.cfg, "serve.queue_events");
    s.max_attrs = (uint32_t)core_cfg_int(s.cfg, "limits.record_attrs");
    s.max_str = (size_t)core_cfg_int(s.cfg, "limits.string_bytes");
    s.case_events_max = (uint64_t)core_cfg_int(s.cfg, "limits.case_events");
    s.new_cases_rate = (uint64_t)core_cfg_int(s.cfg, "limits.new_cases_per_second");
    s.new_case_tokens = (double)s.new_cases_rate;
    s.new_case_refill_ns = core_now_ns();
    s.to_stdout = core_cfg_bool(s.cfg, "serve.stdout");
    s.ttl_ns = core_cfg_int(s.cfg, "state.ttl") * 1000000000ll;
    split_list(core_cfg_str(s.cfg, "state.end_activities"), ';', &s.end_acts);
    split_list(core_cfg_str(s.cfg, "serve.case_attrs"), ',', &s.case_attrs);
    s.eo.in.case_attrs = (const char *const *)s.case_attrs.v;
    s.eo.in.ncase_attrs = s.case_attrs.n;
    s.eo.in.log = s.lg;
    s.pred = core_xmalloc(s.k * sizeof *s.pred);
    s.ranked = core_xmalloc(s.k * sizeof *s.ranked);
    char why[1024];
    rc = 1;

    if (cli_open_graph(cmd.name, s.graph_path, &s.g) != 0) {
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    if (s.overrides_path &&
        graph_overrides_load(s.overrides_path, s.g, &s.ov, why, sizeof why) != 0) {
        cli_error(cmd.name, "%s", why);
        rc = CLI_EXIT_USAGE;
        goto out;
    }
    const char *dir = core_cfg_str(s.cfg, "state.dir");
    sess_opts so = {.path = dir,
                    .map_size = (size_t)core_cfg_int(s.cfg, "state.map_size"),
                    .map_max = (size_t)core_cfg_int(s.cfg, "state.map_max"),
                    .log = s.lg};
    if (sess_open(&so, &s.env, why, sizeof why) != 0) {
        cli_error(cmd.name, "%s", why);
        goto out;
    }
    s.batch = sess_batch_new();
    metrics_init(&s);
    model_mapper *m;
    model_joint *md;
    if (model_build(&s, &m, &md, why, sizeof why) != 0) {
        cli_error(cmd.name, "%s", why);
        goto out;
    }
    s.m = m;
    s.base_vars = model_mapper_nvariants(m); /* before the online ones come back */
    if (dict_replay(&s, why, sizeof why) != 0 ||
        model_install(&s, m, md, true, why, sizeof why) != 0) {
        if (!s.md)
            model_free(md);
        cli_error(cmd.name, "%s", why);
        goto out;
    }
    s.learn_online = core_cfg_bool(s.cfg, "model.learn_online");
    s.obs_max = (uint64_t)core_cfg_int(s.cfg, "model.online_windows");
    s.rebuild_events = (uint64_t)core_cfg_int(s.cfg, "model.rebuild_events");
    s.rebuild_every_ns = (uint64_t)core_cfg_int(s.cfg, "model.rebuild_seconds") * 1000000000ull;
    s.rebuild_min_ns = (uint64_t)core_cfg_int(s.cfg, "model.rebuild_min_seconds") * 1000000000ull;
    s.last_rebuild_ns = core_now_ns();
    if (s.learn_online) {
        sess_count_iter(s.env, obs_load_one, &s);
        if (s.obs.n)
            core_logf(&s.lg, CORE_LOG_INFO, "%zu windows learnt online restored", s.obs.n);
        online_apply(&s);
    }
    requests_load(&s);
    model_version_set(&s, false);
    {
        model_stats st;
        model_get_stats(s.base_md, &st);
        s.base_acts = st.activities;
        model_get_stats(s.md, &st);
        core_logf(&s.lg, CORE_LOG_INFO,
                  "model %s: %u activities, %u contexts from %llu cases; %zu KiB of activity "
                  "vectors (%u entries each)",
                  s.model_version_text, st.activities, st.contexts,
                  (unsigned long long)st.train_cases, model_stream_bytes(s.md) >> 10, s.M);
    }
    if (kafka_start(&s, why, sizeof why) != 0) {
        cli_error(cmd.name, "Kafka: %s", why);
        goto out;
    }
    const char *otlp_listen = core_cfg_str(s.cfg, "otlp.listen");
    if (*otlp_listen) {
        ingest_otlp_http_opts ho = {.listen = otlp_listen,
                                    .max_body = (size_t)core_cfg_int(s.cfg, "otlp.max_body"),
                                    .threads = (unsigned)core_cfg_int(s.cfg, "otlp.threads"),
                                    .case_attrs = s.eo.in.case_attrs,
                                    .ncase = s.eo.in.ncase_attrs,
                                    .max_attrs = s.max_attrs,
                                    .max_str = s.max_str,
                                    .busy = otlp_busy,
                                    .busy_early = otlp_over_memory,
                                    .log = s.lg,
                                    .token_file = core_cfg_str(s.cfg, "otlp.token_file"),
                                    .tls_cert = core_cfg_str(s.cfg, "otlp.tls_cert"),
                                    .tls_key = core_cfg_str(s.cfg, "otlp.tls_key")};
        if (ingest_otlp_http_start(&ho, on_otlp, &s, &s.otlp, why, sizeof why) != 0) {
            cli_error(cmd.name, "OTLP/HTTP: %s", why);
            goto out;
        }
    }
    const char *api_listen = core_cfg_str(s.cfg, "api.listen");
    if (*api_listen) {
        sink_api_ops ops = {api_case, api_query, api_metrics, api_ready, &s};
        sink_api_opts ao = {.listen = api_listen,
                            .token_file = core_cfg_str(s.cfg, "api.token_file"),
                            .metrics_open = core_cfg_bool(s.cfg, "api.metrics_open"),
                            .tls_cert = core_cfg_str(s.cfg, "api.tls_cert"),
                            .tls_key = core_cfg_str(s.cfg, "api.tls_key"),
                            .log = s.lg};
        if (sink_api_start(&ao, &ops, &s.api, why, sizeof why) != 0) {
            cli_error(cmd.name, "API: %s", why);
            goto out;
        }
    }
    /* Signals: a flag each; the engine looks at them between cycles. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (committer_start(&s) != 0) {
        cli_error(cmd.name, "cannot start the committer thread");
        goto out;
    }
    /* The state's model record and dictionary (from the replay) first. */
    if (pipe_sync(&s) != 0)
        goto out;
    /* Ready means consuming: cycles run (OTLP/HTTP is served meanwhile)
     * until the group has given this instance its partitions. */
    if (s.kin) {
        uint64_t t0 = core_now_ns(), said = t0;
        for (;;) {
            ingest_kafka_stats ks;
            ingest_kafka_get_stats(s.kin, &ks);
            if (ks.assigned > 0 || g_stop)
                break;
            if (cycle(&s, false) != 0)
                goto out;
            if (core_now_ns() - said > 10000000000ull) {
                said = core_now_ns();
                core_logf(&s.lg, CORE_LOG_WARN,
                          "still waiting for the consumer group %s to assign partitions (%llu s)",
                          core_cfg_str(s.cfg, "kafka.group"),
                          (unsigned long long)((said - t0) / 1000000000ull));
            }
        }
    }
    if (ready_file && write_ready(&s, ready_file) != 0) {
        cli_error(cmd.name, "cannot write %s", ready_file);
        goto out;
    }
    mem_watch_start(&s);
    atomic_store(&s.ready, true);
    core_logf(
        &s.lg, CORE_LOG_INFO, "serving: OTLP/HTTP %s, API %s, Kafka %s (in: %zu topics, out: %s)",
        s.otlp ? ingest_otlp_http_address(s.otlp) : "off", s.api ? sink_api_address(s.api) : "off",
        s.bootstrap ? s.bootstrap : "off", s.kin ? s.in_topics.n : 0, s.kout ? s.out_topic : "off");
    rc = 0;
    while (!g_stop && !rc) {
        if (g_reload) {
            g_reload = 0;
            model_reload(&s);
        }
        rc = cycle(&s, false);
    }
    /* Stop: refuse new requests, apply what is queued, stop the receiver
     * (whose threads wait for us), then flush and commit the rest. */
    atomic_store(&s.ready, false);
    pthread_mutex_lock(&s.qmu);
    s.stopping = true;
    pthread_mutex_unlock(&s.qmu);
    if (!rc)
        rc = cycle(&s, true);
    if (s.otlp) {
        pthread_mutex_lock(&s.gmu); /* the metrics handler reads it */
        ingest_otlp_http *o = s.otlp;
        s.otlp = NULL;
        pthread_mutex_unlock(&s.gmu);
        ingest_otlp_http_stop(o);
    }
    while (!rc) {
        rc = cycle(&s, true);
        pthread_mutex_lock(&s.qmu);
        bool more = s.qhead != NULL;
        pthread_mutex_unlock(&s.qmu);
        if (!more)
            break;
    }
    if (!rc)
        rc = pipe_sync(&s);
    if (rc) {
        cli_error(cmd.name, "stopped on an error; the state is as of the last commit");
        rc = 1;
    } else {
        core_logf(&s.lg, CORE_LOG_INFO, "stopped cleanly");
    }
out:
    /* Requests still waiting get an error (503) rather than hang: those
     * the committer holds, those applied into a batch that will not be
     * committed, those queued. */
    if (s.inflight)
        pipe_reap(&s, true);
    committer_stop(&s);
    if (s.reqs)
        answer(&s, s.reqs, -EIO);
    s.reqs = NULL;
    pthread_mutex_lock(&s.qmu);
    s.stopping = true;
    pending *left = s.qhead;
    s.qhead = s.qtail = NULL;
    pthread_mutex_unlock(&s.qmu);
    if (left)
        answer(&s, left, -EAGAIN);
    srv_free(&s);
    return rc;
}
