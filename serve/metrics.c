/*
 * The daemon's metrics (serve_int.h): every series registered once, at
 * start, in the order /metrics lists them; and the counts kept elsewhere
 * (the receivers, the API and its event streams, the state, the mapper)
 * brought over as deltas, by a scrape and by the engine every few seconds.
 */
#include "serve_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Events and records in, by source, and OTLP/gRPC calls by status. */
static void inputs_init(serve *s, sink_metrics *m)
{
    s->c_events_kafka = sink_metrics_counter(m, "pmrag_events_in_total",
                                             "events received, by source", "source=\"kafka\"");
    s->c_events_otlp = sink_metrics_counter(m, "pmrag_events_in_total",
                                            "events received, by source", "source=\"otlp_http\"");
    s->c_events_grpc = sink_metrics_counter(m, "pmrag_events_in_total",
                                            "events received, by source", "source=\"otlp_grpc\"");
    s->c_bad_kafka =
        sink_metrics_counter(m, "pmrag_records_rejected_total",
                             "records that could not be used, by source", "source=\"kafka\"");
    for (int r = 0; r < SERVE_DL__COUNT; r++)
        s->c_dead_letters[r] = sink_metrics_counter(
            m, "pmrag_kafka_dead_letters_total",
            "input messages produced to kafka.dead_letter_topic, by reason",
            r == SERVE_DL_UNDECODABLE ? "reason=\"undecodable\"" : "reason=\"refused\"");
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
    s->c_bad_grpc =
        sink_metrics_counter(m, "pmrag_records_rejected_total",
                             "records that could not be used, by source", "source=\"otlp_grpc\"");
    /* Every OTLP/gRPC call, by the grpc-status it was answered with (the
     * label is the code's name); the codes we never send stay at 0. */
    for (int i = 0; i < INGEST_GRPC_CODES; i++) {
        char label[48];
        snprintf(label, sizeof label, "code=\"%s\"", ingest_grpc_code_name(i));
        s->c_grpc_calls[i] = sink_metrics_counter(
            m, "pmrag_otlp_grpc_requests_total",
            "OTLP/gRPC calls answered, by grpc-status: OK, INVALID_ARGUMENT (bad message, not "
            "gRPC), UNIMPLEMENTED (unknown method or encoding), RESOURCE_EXHAUSTED (otlp.max_body, "
            "rate limit), UNAVAILABLE (queue full, memory, stopping), UNAUTHENTICATED (token), "
            "INTERNAL (broken framing or gzip, failures)",
            label);
    }
}

/* Limits hit, OTLP/HTTP refusals and slow connections. */
static void refusals_init(serve *s, sink_metrics *m)
{
    sink_counter **const lim[] = {&s->c_lim_truncated, &s->c_lim_activities, &s->c_lim_case_events,
                                  &s->c_lim_new_cases, &s->c_lim_memory,     &s->c_lim_case_id,
                                  &s->c_lim_max_body,  &s->c_lim_full};
    static const char *const lim_labels[] = {
        "limit=\"record_truncated\"", "limit=\"activities\"", "limit=\"case_events\"",
        "limit=\"new_cases\"",        "limit=\"memory\"",     "limit=\"case_id_bytes\"",
        "limit=\"max_body\"",         "limit=\"state_full\""};
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
        *lim[i] = sink_metrics_counter(m, "pmrag_limit_hits_total",
                                       "events or records that hit a limit (limits.*), by limit",
                                       lim_labels[i]);
    /* In the order of c_refused (http_catch_up reads them in it). */
    static const char *const reasons[] = {"reason=\"bad_request\"",  "reason=\"too_large\"",
                                          "reason=\"unsupported\"",  "reason=\"throttled\"",
                                          "reason=\"unauthorized\"", "reason=\"error\""};
    for (size_t i = 0; i < 6; i++)
        s->c_refused[i] = sink_metrics_counter(
            m, "pmrag_otlp_requests_refused_total",
            "OTLP/HTTP requests refused, by reason: bad_request (400, 404, 405), too_large (413), "
            "unsupported (415), throttled (429, 503), unauthorized (401), error (500)",
            reasons[i]);
    static const char slow_help[] =
        "connections closed for sending their request too slowly (header_timeout, body_timeout: "
        "reason timeout) or, stalled, to make room for another (max_connections: reason "
        "evicted), by listener";
    static const char *const slow_labels[6] = {
        "listener=\"otlp_http\",reason=\"timeout\"", "listener=\"otlp_http\",reason=\"evicted\"",
        "listener=\"api\",reason=\"timeout\"",       "listener=\"api\",reason=\"evicted\"",
        "listener=\"otlp_grpc\",reason=\"timeout\"", "listener=\"otlp_grpc\",reason=\"evicted\""};
    for (int i = 0; i < 6; i++)
        s->c_slow[i] = sink_metrics_counter(m, "pmrag_http_slow_connections_closed_total",
                                            slow_help, slow_labels[i]);
}

/* What comes out: predictions (to every sink, and what the event streams
 * skipped or cut), learning, mapping, commits, the online accuracy. */
static void outputs_init(serve *s, sink_metrics *m)
{
    s->c_predictions =
        sink_metrics_counter(m, "pmrag_predictions_out_total", "predictions published", NULL);
    s->c_stream_skipped = sink_metrics_counter(
        m, "pmrag_stream_predictions_skipped_total",
        "predictions not sent to an event stream because it was over api.stream_rate", NULL);
    s->c_stream_cut =
        sink_metrics_counter(m, "pmrag_streams_cut_off_total",
                             "event streams closed for falling more than 1 MiB behind", NULL);
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
    static const char *const reload_labels[2] = {"result=\"loaded\"", "result=\"refused\""};
    for (int i = 0; i < 2; i++)
        s->c_reloads[i] =
            sink_metrics_counter(m, "pmrag_model_reloads_total",
                                 "reloads of the graph and the model (SIGHUP, POST "
                                 "/v1/admin/reload): loaded, or refused (a file that cannot be "
                                 "used: the graph and model in use stay; the log says why)",
                                 reload_labels[i]);
    s->c_restarts_cold =
        sink_metrics_counter(m, "pmrag_case_cold_restarts_total",
                             "case vectors recomputed because they came from an older model", NULL);
    s->c_scored = sink_metrics_counter(
        m, "pmrag_predictions_scored_total",
        "predictions scored by the case's next event (every event but a case's first)", NULL);
    static const char hits_help[] =
        "scored predictions whose top k held the next event's emitter (its code.* location, "
        "else its activity's mapped symbols), by k";
    static const char *const ks[3] = {"k=\"1\"", "k=\"3\"", "k=\"10\""};
    static const char rate_help[] =
        "share of the predictions scored in the last 5 minutes whose top k held the next "
        "event's emitter, by k";
    for (int i = 0; i < 3; i++) {
        s->c_hits[i] = sink_metrics_counter(m, "pmrag_prediction_hits_total", hits_help, ks[i]);
        s->g_hit_rate[i] = sink_metrics_gauge(m, "pmrag_prediction_hit_rate", rate_help, ks[i]);
    }
    s->g_mrr = sink_metrics_gauge(
        m, "pmrag_prediction_mrr",
        "mean reciprocal rank of the next event's emitter over the last 5 minutes", NULL);
}

/* Event time: events held back, placed late, refused, applied once. */
static void event_time_init(serve *s, sink_metrics *m)
{
    static const double late[] = {0.001, 0.01, 0.1, 0.5, 1,    2.5,   5,    10,
                                  30,    60,   300, 900, 3600, 21600, 86400};
    static const double held[] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                  0.5,   1,     2.5,  5,     10,   30,  60};
    s->c_late = sink_metrics_counter(
        m, "pmrag_events_late_total",
        "events placed before events of their case already applied (serve.reorder_ms)", NULL);
    s->c_too_late = sink_metrics_counter(
        m, "pmrag_events_too_late_total",
        "events refused as too late: before the events their case still stores, or further "
        "behind its latest event than serve.late_max_ms",
        NULL);
    s->c_dups = sink_metrics_counter(
        m, "pmrag_events_duplicate_total",
        "events received again (the same span, or log record with the same content) and not "
        "applied again (serve.dedupe_events)",
        NULL);
    s->c_revised = sink_metrics_counter(
        m, "pmrag_predictions_revised_total",
        "predictions published again (revision 1 and up) after a late event", NULL);
    s->g_held = sink_metrics_gauge(m, "pmrag_events_held",
                                   "events held back in the event-time window", NULL);
    s->h_lateness =
        sink_metrics_histogram(m, "pmrag_event_lateness_seconds",
                               "how far a late event's time was behind its case's latest event",
                               NULL, late, sizeof late / sizeof *late);
    s->h_held =
        sink_metrics_histogram(m, "pmrag_event_held_seconds",
                               "how long an event was held back before it was applied (wall clock)",
                               NULL, held, sizeof held / sizeof *held);
}

/* The state of things, and how long the engine's steps take. */
static void gauges_init(serve *s, sink_metrics *m)
{
    static const double lat[] = {0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
                                 0.0025,  0.005,   0.0075, 0.01,    0.015,  0.025,
                                 0.05,    0.1,     0.25,   0.5,     1,      2.5};
    const size_t nlat = sizeof lat / sizeof *lat;
    s->g_coverage = sink_metrics_gauge(m, "pmrag_mapping_coverage",
                                       "share of events mapped to at least one symbol", NULL);
    s->g_cases = sink_metrics_gauge(m, "pmrag_state_cases", "cases in the state store", NULL);
    s->g_state_bytes =
        sink_metrics_gauge(m, "pmrag_state_bytes", "bytes used in the LMDB state store", NULL);
    s->g_state_free =
        sink_metrics_gauge(m, "pmrag_state_free_bytes",
                           "of pmrag_state_bytes, those on LMDB's free list (reused before the "
                           "store grows)",
                           NULL);
    s->g_lag = sink_metrics_gauge(m, "pmrag_kafka_consumer_lag",
                                  "messages behind the end of the assigned input partitions", NULL);
    s->g_model_version =
        sink_metrics_gauge(m, "pmrag_model_version", "number of the model in use", NULL);
    s->g_queue = sink_metrics_gauge(m, "pmrag_ingest_queue_events",
                                    "OTLP/HTTP events waiting for the engine", NULL);
    s->g_mem =
        sink_metrics_gauge(m, "pmrag_memory_anon_bytes",
                           "anonymous resident memory (limits.memory_bytes counts this)", NULL);
    s->g_full = sink_metrics_gauge(
        m, "pmrag_state_full",
        "1 while the state store cannot take a commit (the disk full, or LMDB's map at "
        "state.map_max): input is refused until the waiting batch fits",
        NULL);
    static const char *const parts[SERVE_MEM__COUNT] = {
        [SERVE_MEM_GRAPH] = "component=\"graph\"",
        [SERVE_MEM_MODEL] = "component=\"model\"",
        [SERVE_MEM_MAPPER] = "component=\"mapper\"",
        [SERVE_MEM_RANKING] = "component=\"ranking\"",
        [SERVE_MEM_WINDOW] = "component=\"window\"",
        [SERVE_MEM_BATCHES] = "component=\"batches\"",
        [SERVE_MEM_LEARNING] = "component=\"learning\"",
        [SERVE_MEM_STATE] = "component=\"state\""};
    for (int i = 0; i < SERVE_MEM__COUNT; i++)
        s->g_mem_part[i] = sink_metrics_gauge(
            m, "pmrag_memory_bytes",
            "memory by what holds it (the engine's measured at most once a second): graph "
            "(its file, mapped), model, mapper, ranking (walk scratch and memo), window (events "
            "held back), batches (state changes not committed yet), learning (online counts), "
            "state (the state store's map, resident; file-backed, not in "
            "pmrag_memory_anon_bytes)",
            parts[i]);
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
}

/* Where the CPU time goes: the engine thread, which applies every event,
 * and the committer thread. With the process's CPU time (from /proc, or
 * an exporter's process_cpu_seconds_total) the rest is the receivers'
 * decoding, the producer's threads and the API. */
static void cpu_init(serve *s, sink_metrics *m)
{
    static const char *const stages[SERVE_STAGE__COUNT] = {
        [SERVE_STAGE_RECEIVE] = "stage=\"receive\"",
        [SERVE_STAGE_CASE] = "stage=\"case\"",
        [SERVE_STAGE_WINDOW] = "stage=\"window\"",
        [SERVE_STAGE_MAPPING] = "stage=\"mapping\"",
        [SERVE_STAGE_SCORING] = "stage=\"scoring\"",
        [SERVE_STAGE_LEARNING] = "stage=\"learning\"",
        [SERVE_STAGE_PPR] = "stage=\"ppr\"",
        [SERVE_STAGE_RANKING] = "stage=\"ranking\"",
        [SERVE_STAGE_ENCODING] = "stage=\"encoding\"",
        [SERVE_STAGE_PRODUCE] = "stage=\"produce\"",
        [SERVE_STAGE_CYCLE] = "stage=\"cycle\""};
    /* Before the engine's total: a scrape reads the series in this order,
     * and the engine adds to its total before its stages, so what a
     * scrape finds of the stages never adds up to more than the total. */
    for (int i = 0; i < SERVE_STAGE__COUNT; i++)
        s->c_stage[i] = sink_metrics_counter(
            m, "pmrag_engine_stage_cpu_microseconds_total",
            "CPU time of the engine thread by stage (receive: Kafka messages decoded; case: "
            "read, moved on and stored; window: event time and duplicates; mapping; scoring: "
            "online accuracy; learning: online; ppr: the case's vector; ranking; encoding; "
            "produce: to the sinks; cycle: commits handed over, models installed, per-cycle "
            "work): the thread's CPU time while it takes events in and applies them, divided "
            "among the stages as they shared the time of 1 in serve.stage_sample events (those "
            "it ran through without a pause)",
            stages[i]);
    s->stage_rng = core_hash_u64((uint64_t)core_now_ns()) | 1; /* (never 0) */
    s->c_cpu_engine = sink_metrics_counter(
        m, "pmrag_engine_cpu_microseconds_total",
        "CPU time (user + system) of the engine thread, which applies every event", NULL);
    s->c_cpu_commit = sink_metrics_counter(
        m, "pmrag_commit_cpu_microseconds_total",
        "CPU time of the committer thread (acknowledgements awaited, LMDB write and sync)", NULL);
}

uint64_t serve__thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void serve__cpu_count(sink_counter *c, uint64_t *total_ns, uint64_t *seen)
{
    uint64_t now = serve__thread_cpu_ns(), us = *total_ns / 1000;
    *total_ns += now - *seen;
    *seen = now;
    sink_counter_add(c, *total_ns / 1000 - us);
}

uint64_t serve__engine_cpu_count(serve *s)
{
    if (!s->cpu_engine_seen)
        s->cpu_engine_seen = serve__thread_cpu_ns(); /* none before the first cycle */
    serve__cpu_count(s->c_cpu_engine, &s->cpu_engine_ns, &s->cpu_engine_seen);
    for (int i = 0; i < SERVE_STAGE__COUNT; i++) {
        uint64_t us = s->stage_ns[i] / 1000;
        sink_counter_add(s->c_stage[i], us - s->stage_us[i]);
        s->stage_us[i] = us;
    }
    return s->cpu_engine_seen;
}

bool serve__stage_begin(serve *s, serve_stage first)
{
    if (s->stage_on) {
        serve__stage_switch(s, first);
        return false;
    }
    if (s->stage_every > 1) {
        /* xorshift64: a sample that keeps no step with the input's
         * patterns (requests of 1,000 spans, the same bodies again). */
        s->stage_rng ^= s->stage_rng << 13;
        s->stage_rng ^= s->stage_rng >> 7;
        s->stage_rng ^= s->stage_rng << 17;
        if (s->stage_rng % s->stage_every)
            return false;
    }
    s->stage_on = true;
    s->stage_cur = first;
    memset(s->stage_path, 0, sizeof s->stage_path);
    s->stage_cpu0 = serve__thread_cpu_ns();
    s->stage_at = core_now_ns();
    return true;
}

void serve__stage_switch(serve *s, serve_stage next)
{
    uint64_t now = core_now_ns();
    s->stage_path[s->stage_cur] += now - s->stage_at;
    s->stage_cur = next;
    s->stage_at = now;
}

void serve__stage_end(serve *s)
{
    serve__stage_switch(s, s->stage_cur);
    s->stage_on = false;
    uint64_t cpu = serve__thread_cpu_ns() - s->stage_cpu0, wall = 0;
    for (int i = 0; i < SERVE_STAGE__COUNT; i++)
        wall += s->stage_path[i];
    /* A path the thread was not running all along (another thread had
     * the core, the producer's queue was full) says nothing of its CPU
     * time: left out. (1 us: the thread clock's reads themselves.) */
    if (wall > cpu + cpu / 8 + 1000)
        return;
    for (int i = 0; i < SERVE_STAGE__COUNT; i++)
        s->stage_smp[i] += s->stage_path[i];
}

uint64_t serve__stage_events(serve *s, uint64_t since)
{
    uint64_t now = serve__thread_cpu_ns();
    s->stage_pending += now - since;
    uint64_t sum = 0;
    for (int i = 0; i < SERVE_STAGE__COUNT; i++)
        sum += s->stage_smp[i];
    if (!sum)
        return now; /* no path timed yet: divided when one is */
    uint64_t given = 0;
    for (int i = 0; i < SERVE_STAGE__COUNT; i++) {
        uint64_t d = (uint64_t)((double)s->stage_pending * (double)s->stage_smp[i] / (double)sum);
        s->stage_ns[i] += d;
        given += d;
        s->stage_smp[i] = 0;
    }
    /* (What rounding kept back goes with the next division.) */
    s->stage_pending = given < s->stage_pending ? s->stage_pending - given : 0;
    return now;
}

uint64_t serve__stage_cycle(serve *s, uint64_t since)
{
    uint64_t now = serve__thread_cpu_ns();
    s->stage_ns[SERVE_STAGE_CYCLE] += now - since;
    return now;
}

void serve__metrics_init(serve *s)
{
    sink_metrics *m = s->mx = sink_metrics_new();
    inputs_init(s, m);
    refusals_init(s, m);
    outputs_init(s, m);
    event_time_init(s, m);
    gauges_init(s, m);
    cpu_init(s, m);
    sink_gauge_set(sink_metrics_gauge(m, "pmrag_build_info", "version of this pmrag",
                                      "version=\"" PMRAG_VERSION "\""),
                   1);
}

/* Brings a counter up to a count kept elsewhere (seen: what it had
 * already brought over); under gmu. */
static void catch_up(sink_counter *c, uint64_t now, uint64_t *seen)
{
    if (now > *seen)
        sink_counter_add(c, now - *seen);
    *seen = now;
}

/* The OTLP/gRPC receiver's counters; under gmu. */
static void grpc_catch_up(serve *s)
{
    ingest_otlp_grpc_stats gs;
    ingest_otlp_grpc_get_stats(s->grpc, &gs);
    for (int i = 0; i < INGEST_GRPC_CODES; i++)
        catch_up(s->c_grpc_calls[i], gs.by_code[i], &s->seen_grpc_calls[i]);
    catch_up(s->c_lim_truncated, gs.truncated_events, &s->seen_grpc_truncated);
    catch_up(s->c_lim_max_body, gs.too_large, &s->seen_grpc_too_large);
    catch_up(s->c_bad_grpc, gs.rejected_events, &s->seen_grpc_rejected);
    catch_up(s->c_slow[4], gs.timed_out, &s->seen_slow[4]);
    catch_up(s->c_slow[5], gs.evicted, &s->seen_slow[5]);
}

/* The OTLP/HTTP receiver's counters; under gmu. */
static void http_catch_up(serve *s)
{
    ingest_otlp_http_stats hs;
    ingest_otlp_http_get_stats(s->otlp, &hs);
    catch_up(s->c_lim_truncated, hs.truncated_events, &s->seen_http_truncated);
    catch_up(s->c_bad_otlp, hs.rejected_events, &s->seen_http_rejected);
    const uint64_t now[6] = {hs.bad_requests, hs.too_large,    hs.unsupported,
                             hs.throttled,    hs.unauthorized, hs.errors};
    for (size_t i = 0; i < 6; i++) {
        /* A body over otlp.max_body is a refusal and a limit hit. */
        if (i == 1 && now[i] > s->seen_refused[i])
            sink_counter_add(s->c_lim_max_body, now[i] - s->seen_refused[i]);
        catch_up(s->c_refused[i], now[i], &s->seen_refused[i]);
    }
    catch_up(s->c_slow[0], hs.timed_out, &s->seen_slow[0]);
    catch_up(s->c_slow[1], hs.evicted, &s->seen_slow[1]);
}

/* The API's counters: its slow connections and its event streams; under
 * gmu. */
static void api_catch_up(serve *s)
{
    core_http_stats as;
    sink_api_get_http_stats(s->api, &as);
    catch_up(s->c_slow[2], as.timed_out, &s->seen_slow[2]);
    catch_up(s->c_slow[3], as.evicted, &s->seen_slow[3]);
    uint64_t skipped, cut;
    sink_api_stream_stats(s->api, &skipped, &cut);
    catch_up(s->c_stream_skipped, skipped, &s->seen_stream_skipped);
    catch_up(s->c_stream_cut, cut, &s->seen_stream_cut);
}

void serve__memory_gauges(serve *s)
{
    for (int i = 0; i < SERVE_MEM__COUNT; i++)
        if (i != SERVE_MEM_STATE)
            sink_gauge_set(s->g_mem_part[i], (double)atomic_load(&s->mem_part[i]));
    sink_gauge_set(s->g_mem_part[SERVE_MEM_STATE], (double)sess_resident_bytes(s->env));
}

void serve__gauges(serve *s)
{
    sess_stats st;
    sess_get_stats(s->env, &st);
    sink_gauge_set(s->g_cases, (double)st.cases);
    sink_gauge_set(s->g_state_bytes, (double)st.used_bytes);
    sink_gauge_set(s->g_state_free, (double)sess_free_bytes(s->env));
    sink_gauge_set(s->g_mem, (double)serve__anon_bytes());
    /* Not under mu, which the engine holds while it applies a batch:
     * /metrics must answer at once under load too. */
    pthread_mutex_lock(&s->gmu);
    catch_up(s->c_lim_activities, atomic_load(&s->folded), &s->seen_folded);
    if (s->otlp)
        http_catch_up(s);
    if (s->api)
        api_catch_up(s);
    if (s->grpc)
        grpc_catch_up(s);
    pthread_mutex_unlock(&s->gmu);
    serve__score_gauges(s);
    uint64_t all = atomic_load(&s->events_total), mapped = atomic_load(&s->mapped_total);
    sink_gauge_set(s->g_coverage, all ? (double)mapped / (double)all : 0);
    if (s->kin) {
        ingest_kafka_stats ks;
        ingest_kafka_get_stats(s->kin, &ks);
        sink_gauge_set(s->g_lag, (double)ks.lag);
    }
}
