/*
 * Online accuracy (serve_int.h): the daemon learns the truth of a
 * prediction one event later, and keeps score here.
 *
 * When a case's next event arrives, the prediction made after its
 * previous event (its symbols are stored with the case, so the score
 * survives restarts and rebalances as the rest of the case does) is
 * scored against that event's emitter, with the definition `pmrag eval`
 * uses (eval_truth_rank): a ranked symbol is a hit when its file matches
 * the event's code.* file path and the code.* line lies inside it. An
 * event without code.* attributes is scored against the mapping instead:
 * a hit is a ranked symbol among its activity's emitting symbols. Either
 * way an unmapped or unpredicted target is a miss, never dropped, and the
 * ranks looked at are the first 10, as offline.
 *
 * The daemon-wide counts are lock-free counters (since the process
 * started); the recent history is a ring of 10-second buckets under amu,
 * a leaf lock held for a few additions (engine) or a copy (API, gauges).
 */
#include "serve_int.h"

#include "eval.h"

#include <string.h>

/* The number of the bucket (since the epoch) of a wall-clock time. */
static uint64_t bucket_of(uint64_t now_ns)
{
    return now_ns / ((uint64_t)SERVE_SCORE_BUCKET_S * 1000000000ull);
}

/* The bucket for now (under amu), emptied when the ring moved past it. */
static serve_score_bucket *bucket_now(serve *s, uint64_t now_ns)
{
    uint64_t b = bucket_of(now_ns);
    serve_score_bucket *k = &s->ring[b % SERVE_SCORE_BUCKETS];
    if (k->id != b) {
        memset(k, 0, sizeof *k);
        k->id = b;
    }
    return k;
}

/* Whether every symbol of the case's stored prediction is one of g's. */
static bool pred_in_graph(const graph *g, const sess_case *c)
{
    for (uint32_t i = 0; i < c->npred; i++)
        if (c->pred[i] >= graph_nsymbols(g))
            return false;
    return true;
}

int serve__score(serve *s, sess_case *c, const map_event *me, const map_activity *pa)
{
    int rank = -1;
    /* A case stored by a build before the scoring has no prediction to
     * score (has_pred false): its first event here is not scored. Nor is
     * one whose stored symbols this graph does not have (a state kept
     * across a new release): they would be read past its symbols. */
    if (c->seq > 0 && c->has_pred && pred_in_graph(s->g, c)) {
        if (me->code_file && me->code_file[0] && me->code_line) {
            rank = eval_truth_rank(s->g, c->pred, c->npred, me->code_file, me->code_line);
        } else {
            rank = 0;
            for (uint32_t i = 0; i < c->npred && !rank; i++)
                for (uint32_t j = 0; j < pa->nsyms; j++)
                    if (c->pred[i] == pa->syms[j]) {
                        rank = (int)i + 1;
                        break;
                    }
        }
        c->scored++;
        c->hit1 += rank == 1;
        c->hit3 += rank >= 1 && rank <= 3;
        c->hit10 += rank >= 1 && rank <= 10;
        c->rr += rank > 0 ? 1.0 / rank : 0;
        sink_counter_add(s->c_scored, 1);
        if (rank == 1)
            sink_counter_add(s->c_hits[0], 1);
        if (rank >= 1 && rank <= 3)
            sink_counter_add(s->c_hits[1], 1);
        if (rank >= 1 && rank <= 10)
            sink_counter_add(s->c_hits[2], 1);
    }
    c->last_rank = rank;
    pthread_mutex_lock(&s->amu);
    serve_score_bucket *k = bucket_now(s, core_wall_ns());
    k->events++;
    k->mapped += pa->nsyms > 0;
    if (rank >= 0) {
        k->scored++;
        k->hit[0] += rank == 1;
        k->hit[1] += rank >= 1 && rank <= 3;
        k->hit[2] += rank >= 1 && rank <= 10;
        k->rr += rank > 0 ? 1.0 / rank : 0;
        s->rr_total += rank > 0 ? 1.0 / rank : 0;
    }
    pthread_mutex_unlock(&s->amu);
    return rank;
}

void serve__score_keep(serve *s, sess_case *c, uint32_t n)
{
    c->npred = n < SESS_MAX_PRED ? n : SESS_MAX_PRED;
    for (uint32_t i = 0; i < c->npred; i++)
        c->pred[i] = s->pred[i].symbol;
    c->has_pred = true;
}

void serve__score_window(serve *s, uint32_t seconds, serve_score_bucket *out)
{
    memset(out, 0, sizeof *out);
    uint64_t now = bucket_of(core_wall_ns());
    uint64_t n = (seconds + SERVE_SCORE_BUCKET_S - 1) / SERVE_SCORE_BUCKET_S;
    if (n > SERVE_SCORE_BUCKETS)
        n = SERVE_SCORE_BUCKETS;
    pthread_mutex_lock(&s->amu);
    for (uint64_t i = 0; i < n && i <= now; i++) {
        const serve_score_bucket *k = &s->ring[(now - i) % SERVE_SCORE_BUCKETS];
        if (k->id != now - i)
            continue;
        out->events += k->events;
        out->mapped += k->mapped;
        out->scored += k->scored;
        for (int j = 0; j < 3; j++)
            out->hit[j] += k->hit[j];
        out->rr += k->rr;
    }
    pthread_mutex_unlock(&s->amu);
}

void serve__score_gauges(serve *s)
{
    serve_score_bucket w;
    serve__score_window(s, SERVE_SCORE_WINDOW_S, &w);
    for (int j = 0; j < 3; j++)
        sink_gauge_set(s->g_hit_rate[j], w.scored ? (double)w.hit[j] / (double)w.scored : 0);
    sink_gauge_set(s->g_mrr, w.scored ? w.rr / (double)w.scored : 0);
}

static void rates_json(core_buf *b, uint64_t scored, const uint64_t hit[3], double rr)
{
    core_buf_printf(b, "\"scored\":%llu,\"hits\":{\"1\":%llu,\"3\":%llu,\"10\":%llu}",
                    (unsigned long long)scored, (unsigned long long)hit[0],
                    (unsigned long long)hit[1], (unsigned long long)hit[2]);
    double d = scored ? (double)scored : 1;
    core_buf_printf(b, ",\"hit_rate\":{\"1\":%.6g,\"3\":%.6g,\"10\":%.6g},\"mrr\":%.6g",
                    (double)hit[0] / d, (double)hit[1] / d, (double)hit[2] / d, rr / d);
}

void serve__case_score_json(const sess_case *c, core_buf *b)
{
    const uint64_t hit[3] = {c->hit1, c->hit3, c->hit10};
    core_buf_puts(b, "{");
    rates_json(b, c->scored, hit, c->rr);
    if (c->last_rank >= 0)
        core_buf_printf(b, ",\"last_rank\":%d", c->last_rank);
    else
        core_buf_puts(b, ",\"last_rank\":null");
    core_buf_puts(b, "}");
}

void serve__stats_json(serve *s, core_buf *b)
{
    uint64_t hit[3];
    for (int j = 0; j < 3; j++)
        hit[j] = sink_counter_get(s->c_hits[j]);
    uint64_t scored = sink_counter_get(s->c_scored);
    pthread_mutex_lock(&s->amu);
    double rr = s->rr_total;
    pthread_mutex_unlock(&s->amu);
    core_buf_puts(b, "{");
    rates_json(b, scored, hit, rr);
    serve_score_bucket w;
    serve__score_window(s, SERVE_SCORE_WINDOW_S, &w);
    core_buf_printf(b, ",\"window\":{\"seconds\":%d,", SERVE_SCORE_WINDOW_S);
    rates_json(b, w.scored, w.hit, w.rr);
    core_buf_printf(b, ",\"events\":%llu,\"events_per_second\":%.6g}", (unsigned long long)w.events,
                    (double)w.events / SERVE_SCORE_WINDOW_S);
    uint64_t all = atomic_load(&s->events_total), mapped = atomic_load(&s->mapped_total);
    core_buf_printf(b, ",\"events\":%llu,\"mapping_coverage\":%.6g", (unsigned long long)all,
                    all ? (double)mapped / (double)all : 0);
    int64_t since = atomic_load(&s->model_since_ns), gsince = atomic_load(&s->graph_since_ns);
    int64_t wall = core_wall_ns();
    core_buf_printf(b, ",\"model\":{\"version\":\"%s\",\"age_seconds\":%.3f}",
                    s->model_version_text, since ? (double)(wall - since) * 1e-9 : 0.0);
    pthread_mutex_lock(&s->mu);
    core_buf_printf(b, ",\"graph\":{\"version\":\"%s\",\"age_seconds\":%.3f}",
                    s->graph_version_text, gsince ? (double)(wall - gsince) * 1e-9 : 0.0);
    pthread_mutex_unlock(&s->mu);
    if (s->kin) {
        ingest_kafka_stats ks;
        ingest_kafka_get_stats(s->kin, &ks);
        core_buf_printf(b, ",\"consumer_lag\":%lld", (long long)ks.lag);
    } else {
        core_buf_puts(b, ",\"consumer_lag\":null");
    }
    /* The history, oldest first: one entry per bucket of the last hour
     * (buckets with nothing in them included, as zeros), for a chart. */
    uint64_t now = bucket_of(core_wall_ns());
    core_buf_printf(b, ",\"series\":{\"bucket_seconds\":%d,\"buckets\":[", SERVE_SCORE_BUCKET_S);
    pthread_mutex_lock(&s->amu);
    bool first = true;
    for (uint64_t i = SERVE_SCORE_BUCKETS; i-- > 0;) {
        if (i > now)
            continue;
        const serve_score_bucket *k = &s->ring[(now - i) % SERVE_SCORE_BUCKETS];
        bool live = k->id == now - i;
        if (first && !live)
            continue; /* nothing before the first bucket with data */
        core_buf_printf(
            b, "%s{\"t\":%llu,\"events\":%llu,\"scored\":%llu,\"hits\":[%llu,%llu,%llu]}",
            first ? "" : ",", (unsigned long long)(now - i) * SERVE_SCORE_BUCKET_S,
            (unsigned long long)(live ? k->events : 0), (unsigned long long)(live ? k->scored : 0),
            (unsigned long long)(live ? k->hit[0] : 0), (unsigned long long)(live ? k->hit[1] : 0),
            (unsigned long long)(live ? k->hit[2] : 0));
        first = false;
    }
    pthread_mutex_unlock(&s->amu);
    core_buf_puts(b, "]}}");
}
