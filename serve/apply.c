/*
 * Applying an event to its case (serve_int.h): the case taken from the
 * batch or the state, the event mapped and scored, learnt from, the case
 * advanced and ranked, the prediction published, the case stored. The
 * engine applies events as they come; the reorder window as it releases
 * them.
 */
#include "serve_int.h"

#include <string.h>

/* A case's vector entries are stored as sess_entry and used as ppr_entry. */
_Static_assert(sizeof(sess_entry) == sizeof(ppr_entry), "sess_entry and ppr_entry differ");
_Static_assert(SESS_MAX_TOLD == MAP_TOLD_MAX,
               "a case keeps the variants it was told as mapping does");
/* The ranking reads a case's own past from its last MODEL_CASE_WINDOW
 * events; a case keeps that many, so the daemon ranks as eval does. */
_Static_assert(SESS_MAX_TOKENS >= MODEL_CASE_WINDOW,
               "a case keeps the window its past is read from");

bool serve__case_take(serve *s, const char *case_id, size_t clen, bool admitted, uint32_t nheld,
                      sess_case *c)
{
    if (clen > SESS_MAX_ID) {
        /* The decoders refuse these; an event that gets here anyway is
         * counted, never stored as if it were applied. */
        sink_counter_add(s->c_lim_case_id, 1);
        if (s->bad_msgs++ < 20)
            core_logf(&s->lg, CORE_LOG_WARN, "event skipped: case id of %zu bytes (at most %d)",
                      clen, SESS_MAX_ID);
        return false;
    }
    int f = sess_batch_case_find(s->batch, case_id, clen, c);
    if (f < 0 && s->inflight)
        f = sess_batch_case_find(s->inflight, case_id, clen, c);
    /* A case that holds events is no new case. */
    if (f != 1 && (f == 0 || sess_case_get(s->env, case_id, clen, c) != 0)) {
        if (!admitted && !nheld && !sess_rules_admit(s->rules, core_now_ns())) {
            sink_counter_add(s->c_lim_new_cases, 1);
            return false;
        }
        memset(c, 0, sizeof *c);
        c->last_time_ns = INT64_MIN;
        c->model_version = s->model_version;
    }
    c->nheld = nheld;
    if (!admitted && !sess_rules_room(s->rules, c->seq, c->nheld)) {
        sink_counter_add(s->c_lim_case_events, 1);
        return false;
    }
    if (c->model_version != s->model_version) {
        /* Its prediction named the symbols of the graph before a new
         * release's: not scored (the ids mean other symbols now), and
         * the variants it was told are forgotten for the same reason. */
        if (c->model_version < s->graph_since) {
            c->has_pred = false;
            c->ntold = 0;
        }
        serve__stage(s, SERVE_STAGE_PPR);
        serve__vec_rebuild(s->md, s->w, s->M, c);
        serve__stage(s, SERVE_STAGE_CASE);
        c->model_version = s->model_version;
        sink_counter_add(s->c_restarts_cold, 1);
    }
    return true;
}

/* Maps ev to its activity *a (variant *v, *pa what the mapper knows of
 * it), scores the case's previous prediction against it and counts it.
 * The event is read once, code.* attributes included: they are the
 * scoring's truth, and the mapper learns from them only with
 * map.code_attrs (me.learn, and its use_code_attrs). */
static void event_map(serve *s, const ingest_event *ev, sess_case *c, uint32_t *a, uint32_t *v,
                      map_activity *pa)
{
    serve__stage(s, SERVE_STAGE_MAPPING);
    map_event me;
    model_log_map_event(ev, &s->eo, true, &me);
    me.learn = s->code_attrs;
    map_mapper_map(s->m, &me, c->act, c->ntok, c->told, c->ntold, a, v);
    map_mapper_activity(s->m, *a, pa);
    /* The prediction made after the case's previous event, scored now
     * that its truth is here. */
    serve__stage(s, SERVE_STAGE_SCORING);
    serve__score(s, c, &me, pa);
    atomic_fetch_add(&s->events_total, 1);
    if (pa->nsyms) {
        atomic_fetch_add(&s->mapped_total, 1);
        sink_counter_add(s->c_mapped, 1);
    } else {
        sink_counter_add(s->c_unmapped, 1);
    }
}

/* Online learning: activity a followed the case's last events. */
static void follows_learn(serve *s, const sess_case *c, uint32_t a)
{
    serve__stage(s, SERVE_STAGE_LEARNING);
    uint32_t o = model_get_params(s->base_md)->order;
    if (o > c->ntok)
        o = c->ntok;
    serve__obs_count(s, o, a, c->act + c->ntok - o, c->var + c->ntok - o, 1, true);
    if (s->kfo)
        serve__follows_share(s, o, a, c->act + c->ntok - o, c->var + c->ntok - o);
}

/* Moves the case on by a token (activity a, variant v, its place t): its
 * window, its vector and its ranking (into s->pred; returns how many,
 * kept in the case to be scored by its next event), seq and times. */
static uint32_t case_push(serve *s, sess_case *c, uint32_t a, uint32_t v, const sess_tok *t)
{
    serve__stage(s, SERVE_STAGE_CASE);
    if (c->ntok == SESS_MAX_TOKENS) {
        memmove(c->act, c->act + 1, (SESS_MAX_TOKENS - 1) * sizeof *c->act);
        memmove(c->var, c->var + 1, (SESS_MAX_TOKENS - 1) * sizeof *c->var);
        memmove(c->tok, c->tok + 1, (SESS_MAX_TOKENS - 1) * sizeof *c->tok);
        c->ntok--;
    }
    c->act[c->ntok] = a;
    c->var[c->ntok] = v;
    c->tok[c->ntok] = *t;
    c->ntok++;
    map_told_note(s->m, a, v, c->seq + 1, c->told, c->told_seq, &c->ntold);
    ppr_vec rec = {(ppr_entry *)c->vec, c->nvec, s->M, c->vec_err};
    uint64_t r0 = core_now_ns();
    serve__stage(s, SERVE_STAGE_PPR);
    model_advance(s->md, s->w, &rec, &c->vec_wsum, a);
    serve__stage(s, SERVE_STAGE_RANKING);
    uint32_t n =
        model_rank_warm(s->md, s->w, c->act, c->var, c->ntok, &rec, c->vec_wsum, s->k, s->pred);
    sink_histogram_observe(s->h_ppr, (double)(core_now_ns() - r0) * 1e-9);
    c->nvec = rec.n;
    c->vec_err = rec.err;
    serve__stage(s, SERVE_STAGE_SCORING);
    serve__score_keep(s, c, n);
    serve__stage(s, SERVE_STAGE_CASE);
    c->seq++;
    c->last_time_ns = t->key - t->shift; /* the event's own time */
    c->touched_ns = core_wall_ns();
    return n;
}

int serve__event_apply(serve *s, sess_case *c, const char *case_id, size_t clen,
                       const ingest_event *ev, const model_order_ev *o, uint32_t rev, uint64_t t0)
{
    uint32_t a, v;
    map_activity pa;
    event_map(s, ev, c, &a, &v, &pa);
    if (s->learn_online && c->ntok)
        follows_learn(s, c, a);
    sess_tok t = {.key = o->key,
                  .shift = o->shift,
                  .dur = o->dur,
                  .span = o->span,
                  .depth = o->depth,
                  .rev = rev,
                  .is_span = o->is_span};
    uint32_t n = case_push(s, c, a, v, &t);
    c->closed = sess_rules_ends(s->rules, pa.text);
    return serve__publish(s, case_id, clen, c, pa.text, n, rev, t0);
}

int serve__token_apply(serve *s, sess_case *c, const char *case_id, size_t clen, uint32_t a,
                       uint32_t v, const sess_tok *t, uint64_t t0)
{
    const char *text = "";
    if (a < map_mapper_nactivities(s->m)) {
        map_activity pa;
        map_mapper_activity(s->m, a, &pa);
        text = pa.text;
    }
    uint32_t n = case_push(s, c, a, v, t);
    c->closed = sess_rules_ends(s->rules, text);
    c->last_rank = -1; /* scored when it was first applied */
    return serve__publish(s, case_id, clen, c, text, n, t->rev, t0);
}

void serve__case_store(serve *s, const char *case_id, size_t clen, const sess_case *c,
                       const ingest_kafka_msg *km)
{
    serve__stage(s, SERVE_STAGE_CASE);
    if (c->closed)
        sess_batch_case_del(s->batch, case_id, clen);
    else
        sess_batch_case_put(s->batch, case_id, clen, c);
    s->batch_events++;
    if (s->kcl && km)
        serve__changelog_send(s, case_id, clen, c->closed ? NULL : c, km);
}

void serve__order_of(const ingest_event *ev, uint64_t tie, int64_t now, model_order_ev *o)
{
    model_order_event(ev, tie, o);
    /* A record with no time of its own (OTLP: neither time nor observed
     * time) has the time it was taken in, as OTLP receivers do. */
    if (o->time == INGEST_NO_TIME)
        o->time = now;
    o->key = o->time;
}
