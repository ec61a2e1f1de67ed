/*
 * serve_int.h - private to serve/: the daemon's state and what its files
 * share.
 *
 *   serve.c      open, run, stop, close; the Kafka clients, the listeners,
 *                the ready file
 *   metrics.c    the metrics: registered at start, the counts kept
 *                elsewhere brought over
 *   engine.c     the engine's cycle: sources in, one event applied (map,
 *                advance the case, rank, publish)
 *   reorder.c    event time: events held back per case for the grace,
 *                applied in their order, late ones placed where they
 *                belong (predictions after them published again),
 *                duplicates applied once
 *   publish.c    a prediction encoded once per encoding, to every sink
 *   deadletter.c input messages that cannot be used, to the dead-letter
 *                topic before their offsets are stored
 *   commit.c     the commit pipeline and its thread; the answers it
 *                releases; retried OTLP/HTTP requests; expiry
 *   changelog.c  the changelog (records, restore, fencing) and the counts
 *                shared between instances
 *   online.c     the model: loading or training it, versions (a case's
 *                vector from an older one computed again), online
 *                learning and rebuilds, SIGHUP reloads
 *   dict.c       the activity dictionary in the state store
 *   limits.c     the memory watch and the receiver's refusals
 *   full.c       a state store that cannot take a commit: the batch
 *                tried again, input refused meanwhile
 *   score.c      online accuracy: each prediction scored by the next event
 *   api.c        the HTTP API's handlers
 *
 * Locks, in the order they nest (never the other way): mu (the mapper and
 * the model: the engine maps and ranks under it, so do the API handlers),
 * then qmu (the queue of OTLP/HTTP requests, their answers, the recent
 * request ids), cmu (what the engine hands the committer), gmu (counters
 * brought over from elsewhere), mem_mu (the memory watcher's wake-up).
 * amu (the online accuracy's recent history) is a leaf: nothing is taken
 * while it is held.
 */
#ifndef PMRAG_SERVE_INT_H
#define PMRAG_SERVE_INT_H

#include "serve.h"

#include "graph.h"
#include "ingest.h"
#include "model.h"
#include "ppr.h"
#include "sessions.h"
#include "sink.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

/* The stages of the engine thread's work, by which its CPU time is
 * counted (pmrag_engine_stage_cpu_microseconds_total, metrics.c): an
 * event's path from its case read to its prediction produced, and the
 * cycle's own work around the events. */
typedef enum serve_stage {
    SERVE_STAGE_RECEIVE,  /* a Kafka message decoded (OTLP is decoded by the receivers) */
    SERVE_STAGE_CASE,     /* the case read (batch, state), its tokens moved, stored in the batch */
    SERVE_STAGE_WINDOW,   /* event time: held back, ordered, released; duplicates */
    SERVE_STAGE_MAPPING,  /* the event to its activity and emitting symbols */
    SERVE_STAGE_SCORING,  /* the case's previous prediction scored, this one kept */
    SERVE_STAGE_LEARNING, /* online learning: the window and what followed it counted */
    SERVE_STAGE_PPR,      /* the case's vector advanced (or computed again) */
    SERVE_STAGE_RANKING,  /* its next emitters ranked */
    SERVE_STAGE_ENCODING, /* the prediction encoded (symbols named, JSON, protobuf) */
    SERVE_STAGE_PRODUCE,  /* handed to the sinks (the producer, stdout, the streams) */
    SERVE_STAGE_CYCLE,    /* per cycle: commits handed over and taken back, rebuilt models
                             installed, new activities' strategies, the dictionary, gauges */
    SERVE_STAGE__COUNT
} serve_stage;

/* What holds the daemon's memory (pmrag_memory_bytes{component}). */
typedef enum serve_mem {
    SERVE_MEM_GRAPH,    /* the graph file, mapped */
    SERVE_MEM_MODEL,    /* the model in use (and the base it adds online counts to) */
    SERVE_MEM_MAPPER,   /* templates, activities, the mapping's caches */
    SERVE_MEM_RANKING,  /* the walks' scratch and memo (the engine's, the API's) */
    SERVE_MEM_WINDOW,   /* events held back in event time */
    SERVE_MEM_BATCHES,  /* state changes being applied and being committed */
    SERVE_MEM_LEARNING, /* counts learnt online */
    SERVE_MEM_STATE,    /* the state store's map, resident (file-backed) */
    SERVE_MEM__COUNT
} serve_mem;

/* One OTLP/HTTP or OTLP/gRPC request waiting for the commit of its
 * events. */
typedef struct pending {
    struct pending *next;
    ingest_otlp_kind kind;
    bool grpc; /* came over OTLP/gRPC (counted by source) */
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

/* The online accuracy's history: buckets of SERVE_SCORE_BUCKET_S seconds
 * of wall-clock time in a ring of the last hour; the rolling window of
 * the gauges and of /v1/stats is the last SERVE_SCORE_WINDOW_S. */
#define SERVE_SCORE_BUCKET_S 10
#define SERVE_SCORE_BUCKETS 360
#define SERVE_SCORE_WINDOW_S 300
typedef struct serve_score_bucket {
    uint64_t id; /* bucket number since the epoch; another: empty */
    uint64_t events, mapped, scored;
    uint64_t hit[3]; /* within the top 1, 3, 10 */
    double rr;
} serve_score_bucket;

typedef struct list {
    char **v;
    size_t n;
} list;

/* One changelog record queued for the committer (serve.clq). */
struct serve_clrec {
    int32_t partition;
    uint32_t klen;
    size_t koff, voff, vlen; /* the key and value in the queue's data */
    bool tombstone;
};
struct serve_clq {
    core_buf data; /* keys and values, one after another */
    core_vec(struct serve_clrec) recs;
};

/* Why an input message goes to the dead-letter topic (deadletter.c). */
typedef enum { SERVE_DL_UNDECODABLE, SERVE_DL_REFUSED, SERVE_DL__COUNT } serve_dl_reason;

struct serve {
    core_cfg *cfg;
    core_logger lg;
    const char *graph_path, *model_path, *overrides_path, *ready_file;
    graph *g;
    map_overrides *ov;
    model_log_opts eo;
    bool code_attrs;
    /* Set by serve_stop and serve_reload (signal handlers; reload also by
     * the API's thread, hence an atomic, lock-free so that a handler may
     * set it): the engine looks at them between cycles, and while it
     * waits for the broker. */
    volatile sig_atomic_t stop;
    atomic_int reload;

    /* The model: the engine maps and ranks under mu; so does the API. */
    pthread_mutex_t mu;
    map_mapper *m;
    model_joint *base_md; /* loaded or trained at start: online counts add to it */
    model_joint *md;      /* in use: base_md, or base_md plus the online counts */
    model_work *w, *api_w;
    uint32_t model_version;
    char model_version_text[32];
    /* The graph in use: its graph_file_hash, as text (graph_version), the
     * model version since which it has been (a case's stored prediction
     * from before names another graph's symbols), and since when (wall
     * clock, ns). */
    uint64_t graph_hash;
    char graph_version_text[24];
    uint32_t graph_since;
    atomic_int_fast64_t graph_since_ns;
    uint32_t M, k;

    /* State. The engine applies events into batch; the committer thread
     * writes inflight (read by the engine meanwhile, for the cases it
     * holds) and hands it back empty as spare. */
    sess_env *env;
    sess_rules *rules;
    sess_batch *batch, *inflight, *spare;
    pending *reqs, *reqs_tail;     /* OTLP/HTTP requests applied into batch */
    uint32_t dict_acts, dict_vars; /* activity texts and variants in the state */
    uint32_t cycle_acts;           /* activities whose records are final */
    core_vec(kpos) pos;
    int64_t ttl_ns;
    uint64_t last_gauges;
    uint64_t last_handoff; /* monotonic: the last batch handed to the committer */

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
        uint64_t epoch, dl_epoch; /* of kout, of kdl */
        struct serve_clq *clq;    /* the batch's changelog records */
        bool has_epoch, done, quit;
        int rc;
    } c;
    sess_batch *xbatch;                  /* the committer's, for expiry */
    atomic_uint_fast64_t ack_wait_since; /* the committer waits for the broker since (ns), or 0 */
    uint64_t last_expire;

    /* The changelog (kafka.changelog): every case change made by a Kafka
     * message, to <group>-cases-changelog in the message's partition;
     * restored when a partition is assigned. The engine queues a batch's
     * records in clq; the committer sends them only once the batch's
     * predictions are acknowledged, and is the only thread that uses kcl
     * while it runs: a change the broker holds before its prediction
     * would let the next owner of the partition resume past an event
     * whose prediction was never published. */
    sink_kafka *kcl;
    struct serve_clq clqs[2], *clq;
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
    /* kafka.dead_letter_topic: its producer (NULL: off), sent to by the
     * engine and waited for by the committer, as kout. */
    sink_kafka *kdl;
    const char *dl_topic;
    list in_topics, logs_topics, case_attrs;
    ingest_kafka_encoding in_encoding;
    bool out_json, to_stdout;
    const char *out_topic;

    /* HTTP. */
    ingest_otlp_http *otlp;
    ingest_otlp_grpc *grpc;
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

    /* The state store full (full.c): since when (ns), 0 while it takes
     * commits; set and cleared by the committer; why under gmu. */
    atomic_uint_fast64_t full_since;
    char full_why[512];
    /* Event time (reorder.c; engine thread, under mu): the grace
     * (serve.reorder_ms; 0: arrival order), the lateness past which an
     * event is refused, the most events a case holds, fingerprints kept
     * per case, and what is held. */
    int64_t reorder_ns, late_max_ns;
    uint32_t reorder_max, dedupe_events;
    struct serve_reorder *ro;

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
    bool rebuild_now; /* a rebuild at once (the base model changed) */
    model_joint *next_md;
    int next_rc;
    train_job job;

    /* A reload (SIGHUP, online.c): what its thread loads (on: it runs,
     * done: it finished), put in use by the engine between cycles; again:
     * another SIGHUP came meanwhile. */
    struct serve_reload {
        pthread_t thread;
        bool on, again;
        atomic_bool done;
        uint64_t t0, hash, cpu_ns; /* started (monotonic); the loading thread's CPU time */
        graph *g;
        map_overrides *ov;
        map_mapper *m;
        model_joint *md;
        int rc;
        char why[1024];
    } rl;

    /* Per event scratch (engine thread): the ranking, as published, and
     * its protobuf (val) and JSON (doc). */
    model_pred *pred;
    sink_ranked *ranked;
    core_buf val, doc;
    uint32_t batch_max, batch_events;
    uint64_t bad_msgs;

    /* Limits (limits.*): per record. */
    uint32_t max_attrs;
    size_t max_str;
    /* Counters kept elsewhere, brought over as deltas by serve__gauges
     * (engine and metrics handler) under gmu; folded is the mapper's count
     * as of the last cycle. */
    pthread_mutex_t gmu;
    uint64_t seen_folded, seen_http_truncated, seen_http_rejected;
    /* OTLP/HTTP requests refused, by reason (REFUSED_*), and what of
     * the receiver's counters /metrics has seen. */
    sink_counter *c_refused[6], *c_lim_max_body;
    uint64_t seen_refused[6];
    uint64_t seen_slow[6]; /* as c_slow */
    /* OTLP/gRPC calls by grpc-status, and what /metrics has seen of the
     * receiver's counters (under gmu). */
    sink_counter *c_grpc_calls[INGEST_GRPC_CODES];
    uint64_t seen_grpc_calls[INGEST_GRPC_CODES];
    uint64_t seen_grpc_truncated, seen_grpc_rejected, seen_grpc_too_large;
    /* The API's event streams: predictions skipped, streams cut off. */
    uint64_t seen_stream_skipped, seen_stream_cut;
    atomic_uint_fast64_t folded;

    /* Metrics. */
    sink_metrics *mx;
    sink_counter *c_dead_letters[SERVE_DL__COUNT];
    sink_counter *c_events_kafka, *c_events_otlp, *c_events_grpc, *c_bad_kafka, *c_bad_otlp,
        *c_bad_grpc, *c_predictions, *c_unmapped, *c_mapped, *c_commits, *c_restarts_cold;
    sink_counter *c_follows_merged, *c_follows_lost, *c_follows_shared, *c_dup_requests;
    sink_counter *c_cl_stale, *c_stream_skipped, *c_stream_cut;
    sink_counter *c_reloads[2]; /* SIGHUP reloads: loaded, refused */
    /* Event time: late events placed, events too late, duplicates,
     * predictions published again; how late (event time behind the
     * case's latest) and how long held (wall clock); events held. */
    sink_counter *c_late, *c_too_late, *c_dups, *c_revised;
    sink_histogram *h_lateness, *h_held;
    sink_gauge *g_held;
    /* Slow connections closed: OTLP/HTTP timeout, evicted; API timeout,
     * evicted; OTLP/gRPC timeout, evicted. */
    sink_counter *c_slow[6];
    sink_counter *c_lim_truncated, *c_lim_activities, *c_lim_case_events, *c_lim_new_cases,
        *c_lim_memory, *c_lim_case_id, *c_lim_full;
    sink_gauge *g_cases, *g_state_bytes, *g_state_free, *g_lag, *g_model_version, *g_coverage,
        *g_queue, *g_mem, *g_full;
    sink_histogram *h_ppr, *h_e2e, *h_commit, *h_flush, *h_write;
    atomic_uint_fast64_t events_total, mapped_total;
    /* CPU time (CLOCK_THREAD_CPUTIME_ID) of the engine thread, read once
     * per cycle (engine thread), and of the committer thread, read once
     * per commit (committer thread). In ns (counted on to the counters in
     * whole microseconds); *_seen: the thread's clock when last read. */
    sink_counter *c_cpu_engine, *c_cpu_commit;
    uint64_t cpu_engine_ns, cpu_engine_seen, cpu_commit_ns, cpu_commit_seen;
    /* Memory by component (pmrag_memory_bytes): the engine's own,
     * measured at most once a second (mem_at, monotonic) under mu
     * (engine.c), read by /metrics (serve__memory_gauges), which measures
     * the state store's map itself (mem_part has no entry for it). */
    sink_gauge *g_mem_part[SERVE_MEM__COUNT];
    atomic_uint_fast64_t mem_part[SERVE_MEM__COUNT];
    uint64_t mem_at;
    size_t mem_window_peak; /* the window's most since memory was last handed back */
    /* The engine's CPU time by stage (metrics.c; engine thread): stage_ns
     * the estimate so far (counted on to c_stage with the engine's total,
     * stage_us what was); stage_smp what the paths timed since the last
     * division spent in each, stage_pending the CPU time of applying
     * events not divided yet; stage_every the sampling
     * (serve.stage_sample). A path being timed (stage_on) is in stage_cur
     * since stage_at (monotonic clock), has spent stage_path in each, and
     * began at stage_cpu0 on the thread's clock. */
    sink_counter *c_stage[SERVE_STAGE__COUNT];
    uint64_t stage_ns[SERVE_STAGE__COUNT], stage_us[SERVE_STAGE__COUNT];
    uint64_t stage_smp[SERVE_STAGE__COUNT], stage_pending, stage_path[SERVE_STAGE__COUNT];
    uint64_t stage_every, stage_rng, stage_at, stage_cpu0;
    serve_stage stage_cur;
    bool stage_on;

    /* Online accuracy (score.c): counters since start, and the history
     * under amu. */
    sink_counter *c_scored, *c_hits[3];
    sink_gauge *g_hit_rate[3], *g_mrr;
    pthread_mutex_t amu;
    serve_score_bucket ring[SERVE_SCORE_BUCKETS];
    double rr_total;
    atomic_int_fast64_t model_since_ns; /* wall clock: the model in use was installed */
    atomic_bool ready;
};

/* ---- metrics.c ---- */

/* The metrics registry and every counter, gauge and histogram in s. */
void serve__metrics_init(serve *s);
/* Brings the gauges and the counters kept elsewhere up to date (the
 * engine, and the metrics handler before it renders). */
void serve__gauges(serve *s);
/* The memory gauges, for a scrape: what the engine measured, and the
 * state store's map read now (a walk of the process's mappings, kept off
 * the engine's periodic update of the gauges). */
void serve__memory_gauges(serve *s);
/* The calling thread's CPU time (user + system), in ns. */
uint64_t serve__thread_cpu_ns(void);
/* Adds the thread's CPU time since *seen (its clock when last read) to
 * *total_ns and c (whole microseconds), and moves *seen on. */
void serve__cpu_count(sink_counter *c, uint64_t *total_ns, uint64_t *seen);
/* The engine thread's CPU time since it was last counted, to its total
 * and then its stages' estimates to theirs (so that a scrape, which reads
 * the stages first, never finds them above the total). Returns the
 * thread's clock. Engine thread, once per cycle. */
uint64_t serve__engine_cpu_count(serve *s);
/* Starts timing the path of an event (or of a Kafka message, or of a
 * case's release) in stage first, on one in serve.stage_sample of them;
 * true when it did (serve__stage_end ends it then), false when not
 * sampled, or when a path is being timed already: this one is part of
 * it, and it goes on in first. Engine thread. */
bool serve__stage_begin(serve *s, serve_stage first);
/* The path being timed goes on in stage next. */
void serve__stage_switch(serve *s, serve_stage next);
static inline void serve__stage(serve *s, serve_stage next)
{
    if (s->stage_on)
        serve__stage_switch(s, next);
}
/* Ends the path serve__stage_begin began. */
void serve__stage_end(serve *s);
/* The thread's CPU time since its clock read since, spent taking events
 * in and applying them, divided among the stages as the paths timed so
 * far shared theirs (kept until one is); returns the clock now. */
uint64_t serve__stage_events(serve *s, uint64_t since);
/* Counts the cycle's own work since the thread's clock read since (every
 * cycle, not sampled); returns the clock now. */
uint64_t serve__stage_cycle(serve *s, uint64_t since);

/* ---- apply.c ---- */

/* The case of an event into c: from the batch being filled, the one
 * being committed or the state, or a new one (admitted by the rules,
 * unless admitted: its events were taken in already, or it holds nheld
 * events back, as the reorder window says), with room for one more event
 * (not checked when admitted), its vector from the model in use. False
 * when a limit keeps the event out (counted there). */
bool serve__case_take(serve *s, const char *case_id, size_t clen, bool admitted, uint32_t nheld,
                      sess_case *c);
/* An event's place as the daemon orders it without others: its own time
 * (now when it has none), tie-break tie. */
void serve__order_of(const ingest_event *ev, uint64_t tie, int64_t now, model_order_ev *o);
/* Applies ev to c after its last event (o: its place in the case's
 * order): maps it, scores the prediction before it, learns, advances and
 * ranks, and publishes the prediction with revision rev (t0: when the
 * event came in, monotonic). Returns 0 or the producer's error. */
int serve__event_apply(serve *s, sess_case *c, const char *case_id, size_t clen,
                       const ingest_event *ev, const model_order_ev *o, uint32_t rev, uint64_t t0);
/* Applies a token of the case again (activity a, variant v, place t, its
 * revision in t->rev), after an event placed before it: not mapped,
 * scored or learnt again; its prediction is published again. */
int serve__token_apply(serve *s, sess_case *c, const char *case_id, size_t clen, uint32_t a,
                       uint32_t v, const sess_tok *t, uint64_t t0);
/* The changed case into the batch (out of it, and of the state, when it
 * closed), and its changelog record when the change came from Kafka. */
void serve__case_store(serve *s, const char *case_id, size_t clen, const sess_case *c,
                       const ingest_kafka_msg *km);

/* ---- engine.c ---- */

/* One cycle (sources in, events applied, the batch handed over); 0 or the
 * error that stops the daemon. draining: take no new Kafka input. */
int serve__cycle(serve *s, bool draining);
/* The Kafka consumer's callbacks (engine thread, inside the poll). */
int serve__on_kafka_msg(void *ud, const ingest_kafka_msg *km);

/* deadletter.c. Creates kdl when kafka.dead_letter_topic is set and Kafka input is on
 * (after bootstrap and in_topics); CORE_EUSAGE with why as
 * sink_kafka_new. */
int serve__dead_letter_open(serve *s, const char *const *props, size_t nprops, char *why,
                            size_t whylen);
/* Produces km unchanged to the dead-letter topic with headers (why: the
 * error) and counts it; 0, or the producer's error (logged): then km's
 * offset must not be stored. Engine thread. */
int serve__dead_letter(serve *s, const ingest_kafka_msg *km, serve_dl_reason reason,
                       const char *why);
int64_t serve__start_offset(void *ud, const char *topic, int32_t partition);
void serve__on_revoked(void *ud, const char *topic, int32_t partition);
/* An OTLP/HTTP request (receiver thread): queued, answered once its
 * events are committed. */
int serve__on_otlp(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                   const uint8_t *id);
/* The same for an OTLP/gRPC call (its events counted as source otlp_grpc). */
int serve__on_otlp_grpc(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                        const uint8_t *id);

/* ---- publish.c ---- */

/* Publishes the prediction after an event of a case (c, after the event:
 * its seq, time and last_rank; activity, the event's; rev, its revision):
 * the first n of s->pred, encoded once per encoding and handed to every
 * sink (the output topic, stdout, the API's event streams). Engine
 * thread. Returns 0, or the producer's error when the output topic
 * refused it for good. */
int serve__publish(serve *s, const char *case_id, size_t clen, const sess_case *c,
                   const char *activity, uint32_t n, uint32_t rev, uint64_t t0);

/* ---- reorder.c ---- */

/* Reads serve.reorder_ms and its kin, and loads the events the state
 * holds back (at start). */
void serve__reorder_open(serve *s);
void serve__reorder_free(serve *s);
/* Holds an event back (its case and the event into the batch), or counts
 * it as a duplicate; km (borrowed; NULL: an OTLP request) is the input
 * message it came in, where its case's changelog records go. Releases the
 * case's earliest held event when it holds more than
 * serve.reorder_max_events. Returns 0 or the producer's error. */
int serve__reorder_hold(serve *s, const ingest_event *ev, uint64_t t0, const ingest_kafka_msg *km);
/* The offset of km's partition to acknowledge once km is applied (with
 * its events held or not): km's next, or with the changelog that of the
 * partition's oldest held event. */
int64_t serve__reorder_acked(serve *s, const ingest_kafka_msg *km);
/* Releases at once, each case's in its order, every event held for the
 * cases whose held events came from input partition `partition` (< 0:
 * from any), as if their grace were over: before the partition is given
 * up (revoked, or the daemon stops with the changelog), so that they go to
 * the changelog with their cases. Events that came over OTLP stay. why
 * (borrowed) is logged. Returns 0 or the producer's error. */
int serve__reorder_release_partition(serve *s, int32_t partition, const char *why);
/* Whether events are held back: a grace is set (serve.reorder_ms), or
 * events an earlier run held are still held (with no grace now, they are
 * due at once, and released in their order). */
bool serve__reorder_on(const serve *s);
/* Bytes the window holds: the held events' copies, their cases, its
 * indexes. Engine thread. */
size_t serve__reorder_bytes(const serve *s);
/* Releases the events whose grace is over, each case's in its order,
 * until `most` have left the window (a case's due events go together,
 * so a few more) or the batch is full (serve.batch); the rest are
 * released by the next cycles. *released (may be NULL): how many left.
 * Returns 0 or the producer's error. */
int serve__reorder_due(serve *s, uint64_t most, uint64_t *released);
/* How many more events the window takes in now: no faster than a
 * quarter above the rate the engine takes them in and applies them (its
 * busy time per event), with a burst of up to two graces' worth
 * (serve.reorder_ms; at least serve.batch) at once. Past that, input
 * waits in the queue, where it is refused when that is full, rather than
 * in the window, whose release would keep the engine from new input for
 * longer than the grace and hold memory for as long. */
uint64_t serve__reorder_room(serve *s);
/* Events the window holds. */
uint64_t serve__reorder_held(const serve *s);
/* A cycle of the engine was busy for busy_ns (its waits left out) and
 * released `released` events; the events it held since the room was
 * last asked for are taken out of it. */
void serve__reorder_note_cycle(serve *s, uint64_t busy_ns, uint64_t released);
/* Nanoseconds until the next held event is due (0: some are;
 * INT64_MAX: none are held). */
int64_t serve__reorder_wait_ns(serve *s);
/* How many events case id holds back now (0 without a window). Engine
 * thread, or under mu. */
uint32_t serve__reorder_nheld(const serve *s, const char *id, size_t len);
/* Forgets what the cases holding events were (their state was written
 * by other means than their releases: a changelog restore); each is read
 * again when it next holds an event. */
void serve__reorder_forget(serve *s);
/* Whether ev was applied to c already (its fingerprint seen: counted),
 * else notes its fingerprint in c (serve.dedupe_events; never with 0). */
bool serve__seen(serve *s, sess_case *c, const ingest_event *ev);

/* ---- commit.c ---- */

/* Answers the requests of a list (rc 0: committed). */
void serve__answer(serve *s, pending *head, int rc);
int serve__committer_start(serve *s);
void serve__committer_stop(serve *s);
/* Takes back the batch the committer finished (waiting for it with wait);
 * returns the committer's error. */
int serve__pipe_reap(serve *s, bool wait);
/* Whether the current batch has changes to write or requests to answer:
 * then it is to be handed over. */
bool serve__pipe_due(const serve *s);
/* Engine: topic[partition] acknowledged by the batch being filled up to
 * next (the offset after the last message it acknowledges): in the
 * state's offsets, and in the group's once the batch is committed. */
void serve__pipe_offset(serve *s, const char *topic, int32_t partition, int64_t next);
/* Hands the current batch to the (idle) committer. */
void serve__pipe_handoff(serve *s);
/* Everything applied so far committed, before returning. */
int serve__pipe_sync(serve *s);
/* The requests committed within otlp.dedupe_seconds, from the state. */
void serve__requests_load(serve *s);

/* ---- changelog.c ---- */

/* A changelog record's parts (see changelog.c for the layout). */
#define SERVE_CL_VERSION 1
typedef struct serve_cl_text {
    uint8_t at; /* the token it names */
    const char *t;
    size_t n;
} serve_cl_text;
typedef struct serve_cl_rec {
    bool header;       /* the header could be read (topic, offset, deleted) */
    const char *topic; /* of the input message that made the change */
    size_t topic_len;
    int64_t offset;
    bool deleted;  /* the case was closed (no case follows) */
    uint8_t ntext; /* texts of the case's activities not in the base model */
    serve_cl_text texts[SESS_MAX_TOKENS];
    sess_case c;
} serve_cl_rec;
/* Appends a record: the case (NULL: deleted) changed by input (topic,
 * offset); texts[i] is the text of token i when it is not a base-model
 * activity, NULL when it is. */
void serve__cl_encode(core_buf *b, const char *topic, int64_t offset, const sess_case *c,
                      const char *const *texts);
/* Reads a record; texts and topic borrow from val. CORE_ECORRUPT when it
 * is not one (header says whether its header could still be read). */
int serve__cl_decode(const void *val, size_t len, serve_cl_rec *out);

/* Queues the changelog records of a change (c NULL: the case ended) in
 * the batch being filled (engine thread). */
void serve__changelog_send(serve *s, const char *case_id, size_t clen, const sess_case *c,
                           const ingest_kafka_msg *km);
/* Committer thread: sends a batch's queued records, and closes kcl's
 * epoch over them (*epoch, to wait for). */
int serve__changelog_flush(serve *s, struct serve_clq *q, uint64_t *epoch);
void serve__clq_clear(struct serve_clq *q);
void serve__clq_free(struct serve_clq *q);
/* Whether a partition was restored since it was assigned; it is restored
 * (again) when it is not. */
bool serve__restored_has(const serve *s, int32_t partition);
int serve__changelog_restore(serve *s, int32_t partition);
/* Forgets that a partition was restored (it went to another instance). */
void serve__restored_drop(serve *s, int32_t partition);
void serve__follows_share(serve *s, uint32_t order, uint32_t next, const uint32_t *act,
                          const uint32_t *var);
int serve__follows_merge(void *ud, const ingest_kafka_msg *m);
int64_t serve__follows_start(void *ud, int32_t partition);
/* This state's instance id (made at its first start). */
uint64_t serve__instance_id(serve *s);

/* ---- online.c ---- */

/* Loads --model (re-mapped onto g when trained on another graph; old:
 * the graph served before, or NULL), or trains from model.bootstrap_log,
 * or builds an empty model over a fresh mapper; over graph g with
 * overrides ov. */
int serve__model_build(serve *s, const graph *g, const graph *old, const map_overrides *ov,
                       map_mapper **mp, model_joint **mdp, char *why, size_t whylen);
/* The graph in use from now on has file hash hash (graph_version). */
void serve__graph_set(serve *s, uint64_t hash);
/* Puts md in use (base: a new base model over m, g and ov, which replace
 * the ones in use). */
int serve__model_install(serve *s, graph *g, map_overrides *ov, map_mapper *m, model_joint *md,
                         bool base, char *why, size_t whylen);
/* The model's version in the state (bump: a new one; also when the graph
 * is not the one it had), and the version since which the graph in use
 * has been (graph_since). */
void serve__model_version_set(serve *s, bool bump);
/* Counts that next followed a window (persist: in the state too). */
void serve__obs_count(serve *s, uint32_t order, uint32_t next, const uint32_t *act,
                      const uint32_t *var, uint64_t n, bool persist);
/* The windows learnt online, from the state, and the model with them. */
void serve__online_load(serve *s);
/* Between cycles: installs a rebuilt model, starts a rebuild. */
void serve__rebuild_step(serve *s);
/* SIGHUP: the graph and the model loaded again on a thread of their own,
 * or, while one loads, again after it. Engine thread. */
void serve__reload_start(serve *s);
/* Between cycles: a finished load put in use, the graph and the model,
 * or neither (counted). */
void serve__reload_step(serve *s);
/* Joins a reload in progress and drops what it loaded. */
void serve__reload_cancel(serve *s);
/* Joins a rebuild in progress and drops its model. */
void serve__rebuild_cancel(serve *s);
/* A case's vector computed again from its stored activities (its own
 * came from an older model). */
void serve__vec_rebuild(const model_joint *md, model_work *w, uint32_t M, sess_case *c);

/* ---- dict.c ---- */

/* What re-mapping did (r, into m), one line logged after what. */
void serve__remap_log(serve *s, core_log_level level, const map_remap *r, const map_mapper *m,
                      const char *what);

/* Records of activities from `from` on and of variants not yet saved,
 * into the current batch. */
void serve__dict_save(serve *s, uint32_t from);
/* Maps the state's dictionary into s->m again, checking that it gives
 * what it gave before; records saved for another graph than s->m's (hash
 * graph_hash) are re-mapped onto it (*remapped set; old: the graph served
 * before, when there was one: they may name its symbols). */
int serve__dict_replay(serve *s, uint64_t graph_hash, const graph *old, bool *remapped, char *why,
                       size_t whylen);

/* ---- limits.c ---- */

/* Anonymous resident memory in bytes, or 0. */
uint64_t serve__anon_bytes(void);
void serve__mem_watch_start(serve *s);
void serve__mem_watch_stop(serve *s);
/* The OTLP/HTTP receiver's refusals (receiver threads): early, when the
 * headers are in (over the memory limit, a full state store); busy,
 * before a body is decoded (the queue full, stopping). */
bool serve__otlp_refuse_early(void *ud);
bool serve__otlp_busy(void *ud);

/* Whether input is to be refused now (memory, a full state store); any
 * thread. serve__kafka_hold pauses or resumes the Kafka consumer when that
 * changed; engine thread. */
bool serve__input_held(serve *s);
void serve__kafka_hold(serve *s);

/* ---- full.c ---- */

/* Whether a write error means the state store is full (the disk, a
 * quota, LMDB's map at its cap). */
bool serve__full_error(int rc);
/* Committer thread: writes b (sess_batch_write); while it does not fit,
 * refuses input and tries again every second, calling between (may be
 * NULL) before each try, until it fits or the daemon stops. Returns 0 or
 * the last error (logged). */
int serve__state_write(serve *s, const sess_batch *b, int (*between)(serve *s));
/* Whether the state store is full now (any thread). */
bool serve__full(serve *s);
/* When it is: why, for /readyz (appended to why); false otherwise. */
bool serve__full_why(serve *s, core_buf *why);

/* ---- score.c ---- */

/* Scores the case's stored prediction against the event that follows it
 * (me, read with its code.* attributes; mapped to activity pa), counting
 * it in the case and daemon-wide, and counts the event in the history.
 * Returns the rank (0: a miss), or -1 when there was no prediction to
 * score; also stored in c->last_rank. Engine thread. */
int serve__score(serve *s, sess_case *c, const map_event *me, const map_activity *pa);
/* Keeps the first symbols of s->pred (n ranked) in the case, to be
 * scored by its next event. */
void serve__score_keep(serve *s, sess_case *c, uint32_t n);
/* The sums of the buckets of the last `seconds` (any thread). */
void serve__score_window(serve *s, uint32_t seconds, serve_score_bucket *out);
/* The rolling-window gauges up to date. */
void serve__score_gauges(serve *s);
/* {"scored","hits":{"1","3","10"},"hit_rate":{...},"mrr","last_rank"}
 * of one case. */
void serve__case_score_json(const sess_case *c, core_buf *b);
/* GET /v1/stats: the daemon's totals since start, the rolling window,
 * events, mapping coverage, model, consumer lag and the history. */
void serve__stats_json(serve *s, core_buf *b);

/* ---- api.c ---- */

/* The API's handlers, with s as their ud. */
sink_api_ops serve__api_ops(serve *s);

#endif
