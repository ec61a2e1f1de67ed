/*
 * The engine (serve_int.h): sources in, one event applied at a time (map,
 * advance the case, rank, publish), batches handed to the committer.
 */
#include "serve_int.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long a batch that only releases held events may wait for one that
 * acknowledges input (serve.reorder_ms). */
#define RELEASE_COMMIT_NS 50000000ull

/* Applies ev at once, in the order events arrive (serve.reorder_ms 0).
 * Returns 0, or a negative code when the prediction could not be
 * produced (the producer failed for good): the engine stops then,
 * without committing. */
static int apply_now(serve *s, const ingest_event *ev, uint64_t t0, const ingest_kafka_msg *km)
{
    size_t clen = strlen(ev->case_id);
    sess_case c;
    if (!serve__case_take(s, ev->case_id, clen, false, serve__reorder_nheld(s, ev->case_id, clen),
                          &c))
        return 0;
    serve__stage(s, SERVE_STAGE_WINDOW);
    if (serve__seen(s, &c, ev))
        return 0;
    model_order_ev o;
    serve__order_of(ev, 0, core_wall_ns(), &o);
    int rc = serve__event_apply(s, &c, ev->case_id, clen, ev, &o, 0, t0);
    if (rc)
        return rc;
    serve__case_store(s, ev->case_id, clen, &c, km);
    return 0;
}

/* An event in: held back in the event-time window, or applied at once
 * when there is none. */
static int event_in(serve *s, const ingest_event *ev, uint64_t t0, const ingest_kafka_msg *km)
{
    bool timed = serve__stage_begin(s, SERVE_STAGE_CASE);
    /* (While events held by an earlier run with a grace are still there,
     * a case's new events are ordered with them.) */
    int rc = serve__reorder_on(s) ? serve__reorder_hold(s, ev, t0, km) : apply_now(s, ev, t0, km);
    if (timed)
        serve__stage_end(s);
    else
        serve__stage(s, SERVE_STAGE_RECEIVE); /* back in its Kafka message's path, if timed */
    return rc;
}

/* ------------------------------------------------------------------ */
/* Sources                                                             */
/* ------------------------------------------------------------------ */

typedef struct emit_ctx {
    serve *s;
    const ingest_kafka_msg *km; /* NULL for OTLP/HTTP */
    uint64_t t0;
    uint64_t events;
    int rc;
} emit_ctx;

static int emit_event(void *ud, const ingest_event *ev)
{
    emit_ctx *e = ud;
    e->events++;
    e->rc = event_in(e->s, ev, e->t0, e->km);
    return e->rc;
}

/* Whether l holds s. */
static bool list_has(const list *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

/* A Kafka message's events applied, its offset noted in the batch. */
static int kafka_msg(serve *s, const ingest_kafka_msg *km)
{
    emit_ctx e = {s, km, core_now_ns(), 0, 0};
    ingest_decode_opts dopts = {.case_attrs = (const char *const *)s->eo.in.case_attrs,
                                .ncase = s->eo.in.ncase_attrs,
                                .max_attrs = s->max_attrs,
                                .max_str = s->max_str,
                                .max_case_id = SESS_MAX_ID};
    char why[512];
    ingest_otlp_kind kind =
        list_has(&s->logs_topics, km->topic) ? INGEST_OTLP_LOGS : INGEST_OTLP_TRACES;
    ingest_decode_result res;
    int rc = ingest_kafka_decode(km->val, km->vlen, s->in_encoding, kind, &dopts, emit_event, &e,
                                 &res, why, sizeof why);
    if (!rc && res.truncated)
        sink_counter_add(s->c_lim_truncated, res.truncated);
    if (!rc && res.rejected) {
        sink_counter_add(s->c_bad_kafka, res.rejected);
        if (s->bad_msgs++ < 20)
            core_logf(&s->lg, CORE_LOG_WARN, "%s[%d]@%lld: %llu records rejected: %s", km->topic,
                      km->partition, (long long)km->offset, (unsigned long long)res.rejected,
                      res.reject_reason);
    }
    if (e.rc)
        return e.rc; /* the producer failed: stop before the commit */
    if (rc) {
        /* A bad message is skipped (its offset still counts as done: it
         * would be as bad the next time), or kept on the dead-letter
         * topic first. */
        sink_counter_add(s->c_bad_kafka, 1);
        if (s->bad_msgs++ < 20)
            core_logf(&s->lg, CORE_LOG_WARN, "%s[%d]@%lld: %s: %s", km->topic, km->partition,
                      (long long)km->offset, s->kdl ? "to the dead-letter topic" : "skipped", why);
    }
    if (s->kdl && (rc || (res.rejected && !e.events))) {
        int dl = serve__dead_letter(s, km, rc ? SERVE_DL_UNDECODABLE : SERVE_DL_REFUSED,
                                    rc ? why : res.reject_reason);
        if (dl)
            return dl; /* the offset stays where it was: nothing is lost */
    }
    sink_counter_add(s->c_events_kafka, e.events);
    /* (With the changelog, not past the events of the partition still
     * held: see reorder.c.) */
    serve__pipe_offset(s, km->topic, km->partition, serve__reorder_acked(s, km));
    return 0;
}

int serve__on_kafka_msg(void *ud, const ingest_kafka_msg *km)
{
    serve *s = ud;
    /* One poll takes up to a batch of messages, which can last seconds on
     * a slow machine: a limit reached meanwhile (the committer found the
     * state store full) ends it here, the message left for after the
     * pause that the next cycle makes. */
    if (serve__input_held(s))
        return 1;
    bool timed = serve__stage_begin(s, SERVE_STAGE_RECEIVE);
    int rc = kafka_msg(s, km);
    if (timed)
        serve__stage_end(s);
    return rc;
}

/* Where a partition given to this instance resumes: after the newest
 * message applied, in the batch being filled, in the one being committed,
 * in the state, or (with the changelog) by the instance that had it
 * before, whose changes are restored first. (Engine thread, inside the
 * poll.) */
int64_t serve__start_offset(void *ud, const char *topic, int32_t partition)
{
    serve *s = ud;
    if (s->kcl && !serve__restored_has(s, partition)) {
        if (serve__changelog_restore(s, partition) != 0)
            s->fatal = -EIO; /* resuming without the state would apply events twice */
        else
            serve__reorder_forget(s); /* (their cases were written by the restore) */
    }
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

/* Revoked (engine thread, inside the poll): the events held for the
 * partition's cases are released, and everything applied so far is
 * committed before the partition goes (their changes in the changelog,
 * where its next owner restores them); it is restored again if it comes
 * back. */
void serve__on_revoked(void *ud, const char *topic, int32_t partition)
{
    serve *s = ud;
    if (!s->kcl || !s->cthread_on)
        return; /* (stopping: everything was committed before the consumer closes) */
    int rc = serve__reorder_release_partition(s, partition, "revoked");
    if (rc) {
        /* The producer failed for good: the engine stops without the
         * commit, as it does when an event's prediction fails. */
        core_logf(&s->lg, CORE_LOG_ERROR, "releasing the events held for %s[%d]: %s", topic,
                  (int)partition, core_strerror(rc));
        s->fatal = rc;
        return;
    }
    if (map_mapper_nactivities(s->m) > s->cycle_acts || map_mapper_nvariants(s->m) > s->dict_vars)
        serve__dict_save(s, s->cycle_acts); /* (again after this cycle's finish) */
    if (serve__pipe_sync(s) != 0)
        core_logf(&s->lg, CORE_LOG_ERROR, "commit before giving up %s[%d] failed", topic,
                  (int)partition);
    serve__restored_drop(s, partition);
}

/* An OTLP request (receiver thread): queue it, wait for its commit. */
static int on_request(serve *s, bool grpc, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                      const uint8_t *id)
{
    pending p = {.kind = kind, .grpc = grpc, .evs = evs, .n = n, .t0 = core_now_ns()};
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

int serve__on_otlp(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                   const uint8_t *id)
{
    return on_request(ud, false, kind, evs, n, id);
}

int serve__on_otlp_grpc(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                        const uint8_t *id)
{
    return on_request(ud, true, kind, evs, n, id);
}

/* Takes queued OTLP/HTTP requests (whole ones, up to budget events; at
 * least one when any waits, unless `fit`). */
static pending *take_requests(serve *s, uint64_t budget, bool fit)
{
    pending *head = s->qhead, *last = NULL;
    uint64_t n = 0;
    for (pending *p = head; p; p = p->next) {
        if ((last || fit) && n + p->n > budget)
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

/* What the window gives back before the allocator is asked to hand
 * freed memory to the system. */
#define WINDOW_TRIM_BYTES ((size_t)32 << 20)

/* Measures the engine's memory by component (pmrag_memory_bytes; at
 * most once a second), under mu. */
static void memory_sample(serve *s)
{
    uint64_t now = core_now_ns();
    if (s->mem_at && now - s->mem_at < 1000000000ull)
        return;
    s->mem_at = now;
    size_t part[SERVE_MEM__COUNT] = {0};
    part[SERVE_MEM_GRAPH] = s->g ? graph_bytes(s->g) : 0;
    part[SERVE_MEM_MODEL] =
        model_bytes(s->base_md) + (s->md != s->base_md ? model_bytes(s->md) : 0);
    part[SERVE_MEM_MAPPER] = map_mapper_bytes(s->m);
    part[SERVE_MEM_RANKING] = model_work_bytes(s->w) + model_work_bytes(s->api_w);
    part[SERVE_MEM_WINDOW] = serve__reorder_bytes(s);
    /* The committer only reads the batch it was handed. */
    part[SERVE_MEM_BATCHES] =
        sess_batch_bytes(s->batch) + sess_batch_bytes(s->inflight) + sess_batch_bytes(s->spare);
    part[SERVE_MEM_LEARNING] = core_vec_bytes(s->obs) + core_map_bytes(&s->obs_idx);
    for (int i = 0; i < SERVE_MEM__COUNT; i++)
        if (i != SERVE_MEM_STATE)
            atomic_store(&s->mem_part[i], part[i]);
    /* A backlog gone, the window's pools are made smaller, but the
     * allocator keeps what they gave back: it goes back to the system.
     * Only once the window is down to a quarter of its most, so that a
     * window that only breathes with the load costs no trim. */
    size_t win = part[SERVE_MEM_WINDOW];
    if (win > s->mem_window_peak)
        s->mem_window_peak = win;
    if (s->mem_window_peak - win > WINDOW_TRIM_BYTES && win < s->mem_window_peak / 4) {
        malloc_trim(0);
        s->mem_window_peak = win;
    }
}

/* Events the current batch still takes (serve.batch), at most cap. */
static uint64_t batch_room(const serve *s, uint64_t cap)
{
    uint64_t room = s->batch_events < s->batch_max ? s->batch_max - s->batch_events : 0;
    return room < cap ? room : cap;
}

/* Nanoseconds until the next held event is due; INT64_MAX: none held. */
static int64_t held_due_ns(serve *s)
{
    return serve__reorder_on(s) ? serve__reorder_wait_ns(s) : INT64_MAX;
}

/* One cycle; returns 0 or the error that stops the daemon. */
int serve__cycle(serve *s, bool draining)
{
    /* The engine thread's CPU time up to here (the previous cycle, and
     * what the thread did between the two). */
    uint64_t cpu = serve__engine_cpu_count(s);
    /* Wall time of the cycle and of its waits for input: the window's
     * room comes from the rest (serve__reorder_room). */
    uint64_t c_start = core_now_ns(), c_wait = 0, released = 0;
    /* A finished commit first; a full batch waits for the committer. */
    int rc = serve__pipe_reap(s, s->batch_events >= s->batch_max);
    if (rc)
        return rc;
    if (!draining)
        serve__rebuild_step(s);
    uint64_t budget = batch_room(s, UINT64_MAX);
    bool busy = s->batch_events > 0; /* something to hand over soon: no long sleeps */
    serve__kafka_hold(s);
    /* Held events due soon: no sleeping past them. */
    int64_t due_ns = held_due_ns(s);
    int64_t due_ms = due_ns == INT64_MAX ? INT64_MAX : (due_ns + 999999) / 1000000;
    cpu = serve__stage_cycle(s, cpu);
    pthread_mutex_lock(&s->mu);
    /* Held events that came due are released a batch's worth at a time
     * (serve.batch), before and after new input: a burst released whole
     * keeps every request waiting for as long as it takes to apply
     * (seconds at full load). Input takes no more than the window's room
     * (serve__reorder_room), and while some are overdue (the engine is
     * behind) no more than was just released: holding an event costs a
     * fraction of applying one, and input taken faster would grow the
     * window without bound. */
    uint64_t in_max = UINT64_MAX;
    bool windowed = !draining && serve__reorder_on(s);
    if (windowed) {
        rc = serve__reorder_due(s, s->batch_max, &released);
        in_max = serve__reorder_room(s);
        if (serve__reorder_wait_ns(s) == 0 && in_max > released)
            in_max = released;
        budget = batch_room(s, in_max);
    }
    if (s->kin && !draining && budget && !rc) {
        bool waiting;
        pthread_mutex_lock(&s->qmu);
        waiting = s->qhead != NULL;
        pthread_mutex_unlock(&s->qmu);
        int wait_ms = waiting ? 0 : busy ? 1 : 10;
        if (due_ms < wait_ms)
            wait_ms = (int)due_ms;
        uint64_t k0 = core_now_ns();
        int n = ingest_kafka_poll(s->kin, (int)(budget < INT32_MAX ? budget : INT32_MAX), wait_ms,
                                  serve__on_kafka_msg, s);
        if (n == 0)
            c_wait += core_now_ns() - k0;
        if (n < 0) {
            core_logf(&s->lg, CORE_LOG_ERROR, "Kafka consumer: %s", core_strerror(n));
            rc = n;
        }
        if (s->fatal)
            rc = s->fatal;
        if (s->ftail)
            ingest_kafka_tail_poll(s->ftail, 10000, serve__follows_merge, s);
    }
    pthread_mutex_lock(&s->qmu);
    if (!s->kin && !s->qhead && !draining) {
        /* Only HTTP input: sleep until a request comes, the committer
         * finishes, or 200 ms pass (signals, the model rebuild). */
        int64_t due = held_due_ns(s);
        pthread_mutex_unlock(&s->mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t wait_ns = (busy ? 2 : 200) * (int64_t)1000000;
        if (due < wait_ns)
            wait_ns = due; /* to the nanosecond: a held event goes when it is due */
        ts.tv_sec += wait_ns / 1000000000;
        ts.tv_nsec += wait_ns % 1000000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        uint64_t w0 = core_now_ns();
        pthread_cond_timedwait(&s->qcv, &s->qmu, &ts);
        c_wait += core_now_ns() - w0;
        pthread_mutex_unlock(&s->qmu);
        pthread_mutex_lock(&s->mu);
        pthread_mutex_lock(&s->qmu);
    }
    budget = batch_room(s, in_max);
    /* Past the window's room a request waits for it, unless the window
     * holds nothing (a request larger than the room goes alone). */
    bool fit = budget == in_max && serve__reorder_held(s) > 0;
    pending *taken = rc || !budget ? NULL : take_requests(s, budget, fit);
    pthread_mutex_unlock(&s->qmu);
    uint64_t nhttp = 0, ngrpc = 0;
    for (pending *p = taken; p && !rc; p = p->next) {
        for (size_t i = 0; i < p->n && !rc; i++)
            rc = event_in(s, &p->evs[i], p->t0, NULL);
        if (p->grpc)
            ngrpc += p->n;
        else
            nhttp += p->n;
        /* Committed with the changes it made: a retry after a crash
         * finds it. */
        if (p->tracked)
            sess_batch_request_put(s->batch, p->id, core_wall_ns());
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
    if (ngrpc)
        sink_counter_add(s->c_events_grpc, ngrpc);
    /* Stopping with the changelog: the consumer leaves the group, and the
     * next owner of its partitions may be another instance, which would
     * not have the events held for their cases. They are released before
     * the last commit (without the changelog they stay in the state, and
     * are released when this instance starts again). */
    if (!rc && draining && s->kcl)
        rc = serve__reorder_release_partition(s, -1, "stopping");
    if (!rc && serve__reorder_on(s)) {
        uint64_t more = 0;
        rc = serve__reorder_due(s, s->batch_max, &more);
        released += more;
    }
    cpu = serve__stage_events(s, cpu);
    /* Activities first seen in this cycle: the strategies that work per
     * activity (constants, tokens, the external command). */
    if (!rc && s->batch_events) {
        char why[512];
        if (map_mapper_finish(s->m, why, sizeof why) != 0)
            core_logf(&s->lg, CORE_LOG_WARN, "%s", why);
    }
    if (map_mapper_nactivities(s->m) > s->cycle_acts || map_mapper_nvariants(s->m) > s->dict_vars) {
        serve__dict_save(s, s->cycle_acts);
        s->cycle_acts = map_mapper_nactivities(s->m);
    }
    atomic_store(&s->folded, map_mapper_folded(s->m));
    memory_sample(s);
    pthread_mutex_unlock(&s->mu);
    if (rc)
        return rc;
    /* Hand the batch over when the committer is free (so batches grow
     * with the load: as large as what came in during one commit). A
     * batch that only releases held events acknowledges nothing: it waits
     * a little, to go with the next batch that does, rather than make
     * that one wait for a commit of its own (a crash before it is
     * committed only releases those events again). */
    if (serve__pipe_due(s)) {
        rc = serve__pipe_reap(s, draining);
        bool waits = s->reorder_ns && !draining && !s->reqs && !s->pos.n &&
                     s->batch_events < s->batch_max &&
                     core_now_ns() - s->last_handoff < RELEASE_COMMIT_NS;
        if (!rc && !s->inflight && !waits) {
            serve__pipe_handoff(s);
            s->last_handoff = core_now_ns();
        }
    }
    uint64_t now = core_now_ns();
    if (now - s->last_gauges > 5000000000ull) {
        s->last_gauges = now;
        serve__gauges(s);
    }
    if (windowed)
        serve__reorder_note_cycle(s, now - c_start - c_wait, released);
    serve__stage_cycle(s, cpu);
    return rc;
}
