/*
 * The commit pipeline (serve_int.h): the committer thread, what it writes
 * and the answers it releases; retried OTLP/HTTP requests; expiry.
 */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void serve__answer(serve *s, pending *list_head, int rc)
{
    int64_t now = core_wall_ns();
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
static int ack_wait(serve *s, sink_kafka *k, uint64_t epoch, const char *what)
{
    uint64_t t0 = core_now_ns();
    for (;;) {
        int rc = sink_kafka_epoch_wait(k, epoch, 10000);
        if (rc != -ETIMEDOUT || s->stop) {
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

static int expire_step(serve *s);

/* Committer thread: one batch, once its predictions and then its
 * changelog records are acknowledged (in that order: a restored change
 * has its prediction on the topic); while it does not fit in the state
 * store, tried again (full.c). */
static int commit_batch(serve *s, const sess_batch *b, uint64_t epoch, bool has_epoch,
                        uint64_t dl_epoch, struct serve_clq *clq)
{
    uint64_t t0 = core_now_ns();
    atomic_store(&s->ack_wait_since, t0);
    int rc = has_epoch ? ack_wait(s, s->kout, epoch, "predictions") : 0;
    if (!rc && s->kdl)
        rc = ack_wait(s, s->kdl, dl_epoch, "dead letters");
    if (!rc && s->kcl && clq->recs.n) {
        uint64_t cl_epoch;
        rc = serve__changelog_flush(s, clq, &cl_epoch);
        if (!rc)
            rc = ack_wait(s, s->kcl, cl_epoch, "changelog");
    }
    atomic_store(&s->ack_wait_since, 0);
    if (rc)
        return rc;
    uint64_t t1 = core_now_ns();
    rc = serve__state_write(s, b, expire_step);
    if (rc)
        return rc;
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

/* Cases expired per step (a transaction of their own), and the pause
 * between steps that found fewer: a step that finds its fill runs again
 * at once, so expiry keeps up with any rate at which cases go idle (a
 * fixed pause would cap it at EXPIRE_BATCH per pause, below what a busy
 * daemon with many short-lived case ids makes, and the state would grow
 * without bound). */
#define EXPIRE_BATCH 10000
#define EXPIRE_PAUSE_NS 5000000000ull

/* Committer thread: idle cases, a bounded number at a time, in a
 * transaction of their own. A case the engine
 * holds in a batch not yet written is put again by that batch: expiry
 * never loses an event, it only forgets cases that had none for a TTL.
 * (So deletions that could not be written are dropped, not kept for
 * later: written after that batch, they would delete what it put.) A
 * full state store is not an error here: the next batch finds it. */
static int expire_step(serve *s)
{
    uint64_t now = core_now_ns();
    if (now - s->last_expire < EXPIRE_PAUSE_NS)
        return 0;
    uint64_t n = sess_expire(s->env, s->xbatch, core_wall_ns(), s->ttl_ns, EXPIRE_BATCH);
    /* A full step: more are waiting, and the next step may run at once. */
    s->last_expire = n >= EXPIRE_BATCH ? 0 : now;
    if (s->recent) {
        pthread_mutex_lock(&s->qmu);
        sess_recent_expire(s->recent, core_wall_ns() - s->dedupe_ns, s->dedupe_max, request_gone,
                           s->xbatch);
        pthread_mutex_unlock(&s->qmu);
    }
    if (!n && sess_batch_size(s->xbatch) == 0)
        return 0;
    char why[512];
    int rc = sess_batch_commit(s->env, s->xbatch, why, sizeof why);
    if (rc) {
        sess_batch_clear(s->xbatch);
        if (serve__full_error(rc))
            return 0;
        core_logf(&s->lg, CORE_LOG_ERROR, "%s", why);
        return rc;
    }
    if (n)
        core_logf(&s->lg, CORE_LOG_INFO, "%llu idle cases expired", (unsigned long long)n);
    return 0;
}

static void *committer_main(void *arg)
{
    serve *s = arg;
    s->cpu_commit_seen = serve__thread_cpu_ns();
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
        uint64_t epoch = s->c.epoch, dl_epoch = s->c.dl_epoch;
        struct serve_clq *clq = s->c.clq;
        bool has_epoch = s->c.has_epoch;
        int rc = s->c.rc;
        pthread_mutex_unlock(&s->cmu);
        if (!rc)
            rc = commit_batch(s, b, epoch, has_epoch, dl_epoch, clq);
        /* The requests are answered after the commit: 200 means durable. */
        if (reqs)
            serve__answer(s, reqs, rc ? -EIO : 0);
        if (!rc)
            rc = expire_step(s);
        serve__cpu_count(s->c_cpu_commit, &s->cpu_commit_ns, &s->cpu_commit_seen);
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
int serve__pipe_reap(serve *s, bool wait)
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
    serve__clq_clear(s->c.clq);
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

void serve__pipe_offset(serve *s, const char *topic, int32_t partition, int64_t next)
{
    if (next <= 0)
        return; /* (nothing acknowledged: the partition's first event is held) */
    sess_batch_offset_put(s->batch, topic, partition, next);
    for (size_t i = 0; i < s->pos.n; i++)
        if (s->pos.v[i].partition == partition && strcmp(s->pos.v[i].topic, topic) == 0) {
            if (next - 1 > s->pos.v[i].offset)
                s->pos.v[i].offset = next - 1;
            return;
        }
    core_vec_push(&s->pos, ((kpos){core_xstrdup(topic), partition, next - 1}));
}

/* Engine: hands the current batch over (the committer is idle). */
void serve__pipe_handoff(serve *s)
{
    pthread_mutex_lock(&s->cmu);
    s->c.b = s->batch;
    s->c.reqs = s->reqs;
    s->c.pos = s->pos.v;
    s->c.npos = s->pos.n;
    s->c.has_epoch = s->kout != NULL;
    s->c.epoch = s->kout ? sink_kafka_epoch_close(s->kout) : 0;
    s->c.dl_epoch = s->kdl ? sink_kafka_epoch_close(s->kdl) : 0;
    /* The committer takes this batch's changelog records; the other
     * queue, emptied when the committer's last batch was reaped, fills. */
    s->c.clq = s->clq;
    s->clq = s->clq == &s->clqs[0] ? &s->clqs[1] : &s->clqs[0];
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

bool serve__pipe_due(const serve *s)
{
    /* A request all of whose events were refused (duplicates without
     * otlp.dedupe_seconds, events too late) queues no change; it is
     * answered by the commit of an empty batch, after the batches before
     * it, which may hold the very events it repeats. */
    return sess_batch_size(s->batch) || s->reqs;
}

/* Engine: everything applied so far committed, before returning. */
int serve__pipe_sync(serve *s)
{
    int rc = serve__pipe_reap(s, true);
    if (!rc && serve__pipe_due(s)) {
        serve__pipe_handoff(s);
        rc = serve__pipe_reap(s, true);
    }
    return rc;
}

int serve__committer_start(serve *s)
{
    s->xbatch = sess_batch_new();
    s->clq = &s->clqs[0];
    s->c.clq = &s->clqs[1];
    s->last_expire = core_now_ns();
    if (pthread_create(&s->cthread, NULL, committer_main, s) != 0)
        return -errno;
    s->cthread_on = true;
    return 0;
}

void serve__committer_stop(serve *s)
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

/* ---- retried OTLP/HTTP requests ---- */

typedef struct req_ent {
    uint8_t id[SESS_REQUEST_ID];
    int64_t t;
} req_ent;
typedef struct req_load {
    serve *s;
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
void serve__requests_load(serve *s)
{
    s->dedupe_ns = core_cfg_int(s->cfg, "otlp.dedupe_seconds") * 1000000000ll;
    s->dedupe_max = (size_t)core_cfg_int(s->cfg, "otlp.dedupe_max");
    bool on = s->dedupe_ns > 0 &&
              (*core_cfg_str(s->cfg, "otlp.listen") || *core_cfg_str(s->cfg, "otlp.grpc_listen"));
    req_load l = {.s = s, .since = on ? core_wall_ns() - s->dedupe_ns : INT64_MAX};
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
