/*
 * The model in the daemon (serve_int.h): loading or training it, its
 * version, online learning and rebuilds, SIGHUP reloads.
 */
#include "serve_int.h"

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A model file trained on another graph than g: re-mapped onto it, and
 * said, with what re-mapping did. */
static int model_load_remapped(serve *s, const graph *g, const graph *old,
                               const map_mapper_opts *mo, map_mapper **mp, model_joint **mdp,
                               char *why, size_t whylen)
{
    map_remap rep;
    model_load_opts lo = {.remap = true, .old = old, .old_guess = true, .report = &rep};
    int rc = model_load_onto(s->model_path, g, mo, &lo, mp, mdp, why, whylen);
    if (!rc && rep.remapped) {
        char what[512];
        snprintf(what, sizeof what, "%s was trained on another graph (%s)", s->model_path,
                 rep.old_known ? "the one served before" : "not this one");
        serve__remap_log(s, CORE_LOG_WARN, &rep, *mp, what);
    }
    map_remap_free(&rep);
    return rc;
}

/* Loads --model (re-mapped onto g when it was trained on another graph:
 * old, when given, is the graph served before, which it may have been),
 * or trains from model.bootstrap_log, or builds an empty model over a
 * fresh mapper (the code's successors of each event's sites, then
 * recency and the current emitter, as the mapper maps); over graph g with
 * overrides ov. */
int serve__model_build(serve *s, const graph *g, const graph *old, const map_overrides *ov,
                       map_mapper **mp, model_joint **mdp, char *why, size_t whylen)
{
    map_mapper_opts mo = config_mapper_opts(s->cfg, ov, s->lg);
    if (mo.llm_cmd) {
        snprintf(why, whylen,
                 "map.llm_cmd: the daemon maps on its engine thread, which cannot wait on a "
                 "command: map with it offline (pmrag mine --llm-cmd) and serve that model");
        return CORE_EUSAGE;
    }
    if (s->model_path) {
        int rc = model_load_remapped(s, g, old, &mo, mp, mdp, why, whylen);
        /* The limit is the mapper's max_activities: name the key that set it. */
        size_t n = strlen(why);
        if (rc == CORE_ELIMIT && n < whylen)
            snprintf(why + n, whylen - n, " by limits.activities: raise it");
        return rc;
    }
    model_train_opts to = config_train_opts(s->cfg, s->lg);
    const char *boot = core_cfg_str(s->cfg, "model.bootstrap_log");
    if (boot && *boot) {
        model_log_opts lo = s->eo;
        lo.train_frac = 1.0;
        lo.learn_code_attrs = s->code_attrs;
        core_logf(&s->lg, CORE_LOG_INFO, "training the model from %s", boot);
        model_log l;
        int rc = model_train_from_log(g, &mo, boot, &lo, &to, mp, &l, mdp, why, whylen);
        if (rc)
            return rc;
        core_logf(&s->lg, CORE_LOG_INFO, "model trained on %u cases (%llu events)", l.ncases,
                  (unsigned long long)l.nevents);
        model_log_free(&l);
        return 0;
    }
    /* No history: the code, then recency, through the mapper. */
    int rc = map_mapper_new(g, &mo, mp);
    if (rc) {
        snprintf(why, whylen, "cannot build the template matcher: %s", core_strerror(rc));
        return rc;
    }
    static const uint32_t zero = 0;
    model_seqs none = {.off = &zero};
    rc = model_train(*mp, &none, &to.params, mdp);
    if (rc) {
        snprintf(why, whylen, "training failed: %s", core_strerror(rc));
        map_mapper_free(*mp);
        *mp = NULL;
    }
    return rc;
}

/* The model's version: kept in the state with the fingerprint of the
 * model it numbers and the graph it ranks over (graph_file_hash); a
 * different model, or the same over another graph (a case's vector is a
 * walk over both), gets the next number. With it, the version from which
 * the graph in use has been (graph_since: a case's prediction from before
 * named another graph's symbols). A state from before the graph was kept
 * is taken to be of this graph. */
void serve__model_version_set(serve *s, bool bump)
{
    uint64_t fp = model_fingerprint(s->md);
    core_buf meta = {0};
    unsigned long long ofp = 0, ogh = 0;
    unsigned ov = 0, osince = 0;
    int got = 0;
    if (sess_meta_get(s->env, "model", &meta) == 0) {
        core_buf_putc(&meta, 0);
        got = sscanf(meta.data, "%u %llx %llx %u", &ov, &ofp, &ogh, &osince);
        if (got < 2)
            ov = 0, ofp = 0, got = 0;
    }
    core_buf_free(&meta);
    bool same_graph = got < 3 || ogh == s->graph_hash;
    s->model_version = (!bump && ov && ofp == fp && same_graph) ? ov : ov + 1;
    s->graph_since = !same_graph ? s->model_version : got == 4 ? osince : 0;
    snprintf(s->model_version_text, sizeof s->model_version_text, "v%u", s->model_version);
    char text[96];
    int n = snprintf(text, sizeof text, "%u %llx %llx %u", s->model_version, (unsigned long long)fp,
                     (unsigned long long)s->graph_hash, s->graph_since);
    sess_batch_meta_put(s->batch, "model", text, (size_t)n);
    if (s->g_model_version)
        sink_gauge_set(s->g_model_version, s->model_version);
}

/*
 * Puts md in use (computing its activity vectors first, outside the
 * lock, unless done). With base, md is a new base model over mapper m,
 * graph g and overrides ov (start, SIGHUP): the old base and mapper go,
 * and the old graph and overrides when they are not g and ov. Without,
 * md is the base plus the online counts, over the same mapper and graph
 * (g and ov unused).
 */
int serve__model_install(serve *s, graph *g, map_overrides *ov, map_mapper *m, model_joint *md,
                         bool base, char *why, size_t whylen)
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
            map_mapper_free(s->m);
        s->m = m;
        /* After the mapper and the model, which point into them. */
        if (s->ov != ov)
            map_overrides_free(s->ov);
        s->ov = ov;
        if (s->g != g)
            graph_close(s->g);
        s->g = g;
    }
    s->md = md;
    s->w = w;
    s->api_w = aw;
    atomic_store(&s->model_since_ns, core_wall_ns());
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
void serve__obs_count(serve *s, uint32_t order, uint32_t next, const uint32_t *act,
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
        if (r->order != order || r->next != next || memcmp(r->act, act, order * 4) != 0 ||
            memcmp(r->var, var, order * 4) != 0)
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
    serve *s = ud;
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
    serve__obs_count(s, order, next, act, var, count, false);
    return 0;
}

static train_job train_job_take(serve *s)
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
static int train_job_run(serve *s, train_job *j, model_joint **out)
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

static int obs_train(serve *s, model_joint **out)
{
    pthread_mutex_lock(&s->mu);
    train_job j = train_job_take(s);
    pthread_mutex_unlock(&s->mu);
    return train_job_run(s, &j, out);
}

static void *rebuild_main(void *arg)
{
    serve *s = arg;
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
void serve__rebuild_step(serve *s)
{
    char why[512];
    if (s->rebuilding && atomic_load(&s->rebuild_done)) {
        pthread_join(s->rebuild_thread, NULL);
        s->rebuilding = false;
        atomic_store(&s->rebuild_done, false);
        if (s->next_rc ||
            serve__model_install(s, NULL, NULL, s->m, s->next_md, false, why, sizeof why) != 0) {
            core_logf(&s->lg, CORE_LOG_ERROR, "model rebuild failed: %s",
                      s->next_rc ? core_strerror(s->next_rc) : why);
            model_free(s->next_md);
        } else {
            serve__model_version_set(s, true);
            model_stats st;
            model_get_stats(s->md, &st);
            core_logf(&s->lg, CORE_LOG_INFO, "model %s in use: %u contexts, %llu events learnt",
                      s->model_version_text, st.contexts, (unsigned long long)st.train_events);
        }
        s->next_md = NULL;
    }
    if (!s->learn_online || s->rebuilding || s->rl.on || (s->obs_new == 0 && !s->rebuild_now))
        return;
    uint64_t now = core_now_ns();
    if (!s->rebuild_now &&
        (now - s->last_rebuild_ns < s->rebuild_min_ns ||
         (s->obs_new < s->rebuild_events && now - s->last_rebuild_ns < s->rebuild_every_ns)))
        return;
    s->rebuild_now = false;
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
 * start). */
static void online_apply(serve *s)
{
    if (!s->learn_online || s->obs.n == 0)
        return;
    char why[512];
    model_joint *md;
    int rc = obs_train(s, &md);
    if (!rc && (rc = serve__model_install(s, NULL, NULL, s->m, md, false, why, sizeof why)) != 0)
        model_free(md);
    if (rc)
        core_logf(&s->lg, CORE_LOG_ERROR, "the online counts could not be added: %s",
                  core_strerror(rc));
    s->obs_new = 0;
}

void serve__online_load(serve *s)
{
    if (!s->learn_online)
        return;
    sess_count_iter(s->env, obs_load_one, s);
    if (s->obs.n)
        core_logf(&s->lg, CORE_LOG_INFO, "%zu windows learnt online restored", s->obs.n);
    online_apply(s);
}

void serve__rebuild_cancel(serve *s)
{
    if (!s->rebuilding)
        return;
    pthread_join(s->rebuild_thread, NULL);
    s->rebuilding = false;
    atomic_store(&s->rebuild_done, false);
    model_free(s->next_md);
    s->next_md = NULL;
}

/* The graph in use from now on (engine thread): its hash and version
 * text, under mu for the API's readers. */
void serve__graph_set(serve *s, uint64_t hash)
{
    pthread_mutex_lock(&s->mu);
    s->graph_hash = hash;
    snprintf(s->graph_version_text, sizeof s->graph_version_text, "%016llx",
             (unsigned long long)hash);
    pthread_mutex_unlock(&s->mu);
    atomic_store(&s->graph_since_ns, core_wall_ns());
}

/*
 * SIGHUP: the graph, the overrides and the model read again (the model
 * file, or the bootstrap log), all or nothing. A graph file whose content
 * changed (a new release) is taken, and a model file trained on the graph
 * served before is re-mapped onto it, as are the activities made online:
 * their ids stay, so the cases' stored activities keep their meaning and
 * no case starts over; each case's vector is computed again on its next
 * event (a new model version). A file that cannot be used (truncated,
 * another format version, a dictionary the state does not match) leaves
 * everything in use as it is: said, naming the file, and counted. The
 * daemon's graph is a copy (graph_load), so a graph file written over in
 * place before the signal does not reach the one in use either.
 *
 * Loading (the graph, the template matcher, the model and its activity
 * vectors: seconds for a graph of 100k symbols) runs on a thread of its
 * own while the engine goes on with the model in use; the engine then
 * only maps the state's dictionary into the new mapper and swaps (the
 * pause is logged). It reads s->g and s->graph_hash, which nothing else
 * changes meanwhile: rebuilds wait for it.
 */
static void *reload_main(void *arg)
{
    serve *s = arg;
    struct serve_reload *r = &s->rl;
    char w2[512];
    int rc = graph_load(s->graph_path, &r->g, w2, sizeof w2);
    if (rc) {
        snprintf(r->why, sizeof r->why, "%s: %s", s->graph_path, w2);
    } else if ((r->hash = graph_file_hash(r->g)) == s->graph_hash) {
        graph_close(r->g); /* the same release: the one in use stays */
        r->g = s->g;
    }
    if (!rc && s->overrides_path)
        rc = map_overrides_load(s->overrides_path, r->g, &r->ov, r->why, sizeof r->why);
    if (!rc)
        rc = serve__model_build(s, r->g, r->g != s->g ? s->g : NULL, r->ov, &r->m, &r->md, r->why,
                                sizeof r->why);
    /* A core left to the engine, which goes on meanwhile. */
    unsigned threads = core_ncpus() > 1 ? core_ncpus() - 1 : 1;
    if (!rc && (rc = model_stream_prepare(r->md, s->M, threads)) != 0)
        snprintf(r->why, sizeof r->why, "cannot prepare the model: %s", core_strerror(rc));
    r->rc = rc;
    r->cpu_ns = serve__thread_cpu_ns();
    atomic_store(&r->done, true);
    return NULL;
}

static void reload_finish(serve *s);

/* What a reload loaded and did not put in use. */
static void reload_drop(serve *s)
{
    struct serve_reload *r = &s->rl;
    model_free(r->md);
    map_mapper_free(r->m);
    map_overrides_free(r->ov);
    if (r->g != s->g)
        graph_close(r->g);
    r->md = NULL;
    r->m = NULL;
    r->ov = NULL;
    r->g = NULL;
}

void serve__reload_start(serve *s)
{
    struct serve_reload *r = &s->rl;
    if (r->on) {
        r->again = true; /* files written since it began: read them after */
        return;
    }
    core_logf(&s->lg, CORE_LOG_INFO,
              "reload (SIGHUP or POST /v1/admin/reload): reading the graph and the model");
    serve__rebuild_cancel(s);
    r->t0 = core_now_ns();
    r->rc = 0;
    r->why[0] = 0;
    atomic_store(&r->done, false);
    r->on = true;
    if (pthread_create(&r->thread, NULL, reload_main, s) != 0) {
        r->on = false;
        reload_main(s); /* no thread to be had: the engine waits */
        reload_finish(s);
    }
}

void serve__reload_cancel(serve *s)
{
    if (!s->rl.on)
        return;
    pthread_join(s->rl.thread, NULL);
    s->rl.on = false;
    reload_drop(s);
}

void serve__reload_step(serve *s)
{
    if (!s->rl.on || !atomic_load(&s->rl.done))
        return;
    pthread_join(s->rl.thread, NULL);
    s->rl.on = false;
    reload_finish(s);
}

/* What the reload loaded put in use (engine thread), or refused. */
static void reload_finish(serve *s)
{
    struct serve_reload *r = &s->rl;
    uint64_t t1 = core_now_ns();
    int rc = r->rc;
    uint32_t first = 0;
    bool remapped = false;
    if (!rc) {
        /* The state's dictionary mapped into the new mapper (the engine
         * is this thread; the API reads s->m under mu). */
        map_mapper *old_m = s->m;
        uint32_t dict_vars = s->dict_vars;
        first = map_mapper_nactivities(r->m);
        pthread_mutex_lock(&s->mu);
        s->m = r->m;
        rc = serve__dict_replay(s, r->hash, s->g, &remapped, r->why, sizeof r->why);
        s->m = old_m;
        if (rc)
            s->dict_vars = dict_vars;
        pthread_mutex_unlock(&s->mu);
    }
    bool new_graph = r->g != s->g;
    if (!rc)
        rc = serve__model_install(s, r->g, r->ov, r->m, r->md, true, r->why, sizeof r->why);
    if (rc) {
        core_logf(&s->lg, CORE_LOG_ERROR, "reload refused, the graph and model in use stay: %s",
                  r->why);
        sink_counter_add(s->c_reloads[1], 1);
        reload_drop(s);
    } else {
        r->md = NULL;
        r->m = NULL;
        r->ov = NULL;
        r->g = NULL;
        sink_counter_add(s->c_reloads[0], 1);
        if (new_graph || remapped) {
            serve__graph_set(s, r->hash);
            /* The online activities' records again, naming the new
             * graph's symbols, and the dictionary's graph with them. */
            serve__dict_save(s, first);
        }
        serve__model_version_set(s, true);
        model_stats st;
        model_get_stats(s->base_md, &st);
        s->base_acts = st.activities;
        /* The counts learnt online come back by a rebuild, in the
         * background as any other. */
        s->rebuild_now = s->learn_online && s->obs.n > 0;
        uint64_t t2 = core_now_ns();
        core_logf(&s->lg, CORE_LOG_INFO,
                  "model %s in use, graph %s%s: loaded in %.3f s (%.3f s of CPU), the engine "
                  "waited %.3f s",
                  s->model_version_text, s->graph_version_text, new_graph ? " (new)" : "",
                  (double)(t1 - r->t0) * 1e-9, (double)r->cpu_ns * 1e-9, (double)(t2 - t1) * 1e-9);
    }
    if (r->again) {
        r->again = false;
        serve__reload_start(s);
    }
}

/* A case's vector computed again from its stored activities (its own came
 * from an older model, and means nothing to this one). */
void serve__vec_rebuild(const model_joint *md, model_work *w, uint32_t M, sess_case *c)
{
    ppr_vec rec;
    ppr_vec_init(&rec, (ppr_entry *)c->vec, M);
    c->vec_wsum = 0;
    for (uint32_t i = 0; i < c->ntok; i++)
        model_advance(md, w, &rec, &c->vec_wsum, c->act[i]);
    c->nvec = rec.n;
    c->vec_err = rec.err;
}
