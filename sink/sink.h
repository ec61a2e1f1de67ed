/*
 * sink.h - where predictions go: the Kafka output topic (idempotent
 * producer), the HTTP API (cases, stateless queries, /metrics, /livez,
 * /readyz), and stdout JSONL for pipes. Also the prediction's wire forms
 * (pmrag.v1.Prediction protobuf, and JSON with the same field names).
 *
 * Threading and lifetime: each section says which thread may call what.
 * Nothing here prints: errors come back as codes with a reason in why,
 * and progress goes to the core_logger the caller passes.
 */
#ifndef PMRAG_SINK_H
#define PMRAG_SINK_H

#include "core.h"
#include "core_http.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* stdout JSONL                                                        */
/* ------------------------------------------------------------------ */

/*
 * Writes one JSON document as a line to out (a newline is added) and
 * flushes it, so that a reader at the end of a pipe sees every prediction
 * as it is made. Returns 0, or a negated errno (-EPIPE when the reader has
 * gone: the caller stops writing there). One thread per FILE at a time.
 */
int sink_jsonl_write(FILE *out, const char *doc, size_t len);

/* ------------------------------------------------------------------ */
/* Predictions                                                         */
/* ------------------------------------------------------------------ */

/*
 * One prediction, as published: pmrag.v1.Prediction (proto/pmrag/v1/
 * prediction.proto), or JSON with the same field names. The encoders are
 * hand-written against that schema and need no generated code.
 *
 * Strings are borrowed for the duration of the call. NULL strings are
 * written as empty ones (proto3 does not tell "" from absent, so neither
 * does the JSON). Strings are UTF-8; bytes that are not valid UTF-8 are
 * replaced by U+FFFD, one per byte, in both forms, so that strict protobuf
 * decoders (which refuse invalid UTF-8 in string fields) accept the bytes
 * and the JSON is always valid. Reentrant.
 */
typedef struct sink_ranked {
    const char *symbol, *kind, *file; /* NUL-terminated; NULL is "" */
    uint32_t start_line, end_line;    /* 1-based, inclusive */
    double score;                     /* not finite: null in JSON */
    const char *activity;             /* predicted next activity; may be NULL */
    /* a symbol that fills a list the model left short: the ranked symbol
     * it is near in the code graph; NULL otherwise */
    const char *near;
} sink_ranked;

typedef struct sink_prediction {
    const char *case_id; /* case_len bytes (may hold NULs); NULL when case_len is 0 */
    size_t case_len;
    uint64_t seq; /* position of the event in its case, from 1 */
    /* 0 for the first prediction published for (case, seq); one more for
     * each later one (an event placed before it in event time changed
     * what the case's seq-th event is or what came before it). */
    uint32_t revision;
    const char *activity;      /* the event's activity; may be NULL */
    int64_t time_unix_nano;    /* event time (fixed64 on the wire: two's complement) */
    const char *model_version; /* may be NULL */
    const char *graph_version; /* the graph file's content hash; may be NULL */
    const sink_ranked *ranked; /* nranked items, best first */
    uint32_t nranked;
    uint64_t latency_us; /* from receiving the event to publishing this */
    /* How the case's previous prediction did: scored (every event but a
     * case's first), and then the rank this event had in it (0: not in
     * it). Unscored: last_rank is absent on the wire, null in JSON. */
    bool scored;
    uint32_t last_rank;
} sink_prediction;

/*
 * Appends the pmrag.v1.Prediction protobuf encoding of p to out (proto3
 * canonical: fields in number order, zero and empty scalars left out but
 * for last_rank when scored, one RankedSymbol per ranked item, even an
 * empty one; revision, field 9, and graph_version, field 10, come last).
 */
void sink_prediction_pb(const sink_prediction *p, core_buf *out);

/*
 * Appends p as one JSON object, no newline:
 * {"case_id","seq","revision","activity","time_unix_nano","model_version",
 *  "graph_version","ranked":[{"symbol","kind","file","start_line","end_line","score",
 *  "activity","near"}...],"latency_us","last_rank"}. Every key is always
 * present; integers (time_unix_nano too) are JSON numbers, scores the
 * shortest form that reads back the same, last_rank null when unscored.
 */
void sink_prediction_json(const sink_prediction *p, core_buf *out);

/*
 * Appends n ranked items as a JSON array, the "ranked" of
 * sink_prediction_json(): the one form of a ranking wherever pmrag writes
 * one as JSON.
 */
void sink_ranked_json(const sink_ranked *r, uint32_t n, core_buf *out);

/* ------------------------------------------------------------------ */
/* Kafka producer                                                      */
/* ------------------------------------------------------------------ */

/*
 * An idempotent librdkafka producer for the output topic: no duplicates
 * and no reordering per partition across retries. Messages are keyed by
 * case id, and the partitioner is murmur2_random (the Java client's), so
 * one case always lands in one partition, the same one a Java producer
 * would pick.
 *
 * Threading: one thread at a time calls new/send/poll/flush/free and
 * epoch_close; delivery reports are served inside send (every 64 sends),
 * poll and flush on that thread, and inside epoch_wait, which one other
 * thread may call meanwhile.
 * sink_kafka_get_stats() may be called from any thread at any time
 * between new and free. librdkafka's log lines reach the logger from
 * librdkafka's own threads.
 */
typedef struct sink_kafka sink_kafka;

typedef struct sink_kafka_opts {
    const char *bootstrap; /* bootstrap.servers */
    const char *topic;     /* output topic */
    /* Extra librdkafka properties, "key=value" each, applied after the
     * defaults (SASL, TLS, tuning). enable.idempotence cannot be turned
     * off. This code never logs a value; librdkafka's own configuration
     * dump (debug=conf) redacts its sensitive ones (sasl.password, ...).
     * A refused value of a key that looks secret is redacted in why. */
    const char *const *props;
    size_t nprops;
    core_logger log; /* librdkafka's log lines and our own notes */
} sink_kafka_opts;

/*
 * Creates the producer: enable.idempotence=true, acks=all, linger.ms=5,
 * partitioner=murmur2_random, then the extra properties. Strings in o are
 * copied; the logger's ud must outlive the producer. Returns 0 and
 * *out (free it with sink_kafka_free()), or CORE_EUSAGE with the reason in
 * why: a missing bootstrap or topic, a property that is not key=value, one
 * librdkafka refuses (why names the key and gives librdkafka's reason), or
 * a combination it refuses when creating the client (acks=1 with
 * idempotence, say). Connecting happens in the background: an unreachable
 * broker is not an error here (see stats.last_error).
 */
int sink_kafka_new(const sink_kafka_opts *o, sink_kafka **out, char *why, size_t whylen);

/*
 * Queues one message (key = case id; both copied), serving delivery
 * reports every 64 sends. When librdkafka's queue is full it serves reports and retries
 * for up to block_ms (0: not at all); still full gives -EAGAIN
 * (backpressure: the caller stops reading input). Other errors:
 * -ENOTRECOVERABLE after a fatal producer error (see stats), -EMSGSIZE
 * for a message over message.max.bytes, CORE_ENOTFOUND for an unknown
 * topic, -EIO otherwise (stats.last_error says why).
 */
int sink_kafka_send(sink_kafka *k, const void *key, size_t klen, const void *val, size_t vlen,
                    int block_ms);
/* The same into one partition (-1: the partitioner's choice); val NULL
 * sends a tombstone (a null value: the key's deletion in a compacted
 * topic). CORE_ENOTFOUND also for a partition the topic does not have. */
int sink_kafka_send_to(sink_kafka *k, int32_t partition, const void *key, size_t klen,
                       const void *val, size_t vlen, int block_ms);

/* A message header: its name (a C string) and value (len bytes). */
typedef struct sink_kafka_header {
    const char *name;
    const void *value;
    size_t len;
} sink_kafka_header;

/* sink_kafka_send with nh headers (names and values copied). */
int sink_kafka_send_headers(sink_kafka *k, const void *key, size_t klen, const void *val,
                            size_t vlen, const sink_kafka_header *h, size_t nh, int block_ms);

/* Serves delivery reports and errors, waiting up to timeout_ms for the
 * first one (0: only what is ready). */
void sink_kafka_poll(sink_kafka *k, int timeout_ms);

/*
 * Waits up to timeout_ms for every queued message to be delivered or to
 * fail. Returns 0 when none is left; -ETIMEDOUT when some are
 * (stats.in_flight says how many, and a warning is logged);
 * -ENOTRECOVERABLE when none is left but a fatal error was raised (the
 * messages after it failed).
 */
int sink_kafka_flush(sink_kafka *k, int timeout_ms);

/*
 * Epochs: every message belongs to the epoch open when it was sent. A
 * pipeline that commits its input in batches closes the epoch of a batch
 * (sink_kafka_epoch_close, on the sending thread) and then, on another
 * thread if it likes, waits for exactly that batch's messages
 * (sink_kafka_epoch_wait) while later batches are being sent. Epochs are
 * waited for in the order they were closed, with at most
 * SINK_KAFKA_EPOCHS - 1 closed and not yet waited for.
 */
#define SINK_KAFKA_EPOCHS 8
/* Closes the open epoch (returns its number) and opens the next. */
uint64_t sink_kafka_epoch_close(sink_kafka *k);
/*
 * Serves delivery reports until every message of epoch ep is delivered or
 * has failed, up to timeout_ms. Returns 0 when all were delivered; -EIO
 * when some failed for good (stats.last_error says why); -ENOTRECOVERABLE
 * after a fatal error; -ETIMEDOUT when some are still in flight. Any one
 * thread (librdkafka allows polling beside the sender).
 */
int sink_kafka_epoch_wait(sink_kafka *k, uint64_t ep, int timeout_ms);

typedef struct sink_kafka_stats {
    uint64_t queued;      /* accepted by send */
    uint64_t delivered;   /* acknowledged by the brokers (acks=all) */
    uint64_t failed;      /* delivery failed for good */
    uint32_t in_flight;   /* queued - delivered - failed */
    bool fatal;           /* the producer hit a fatal error: restart it */
    char last_error[256]; /* the latest error (fatal, delivery, broker); "" if none */
} sink_kafka_stats;

/* A consistent-enough snapshot of the counters (each is atomic). Any
 * thread. */
void sink_kafka_get_stats(sink_kafka *k, sink_kafka_stats *out);

/* Flushes for up to 10 s, then drops what is left (counted as failed and
 * logged as a warning) and destroys the producer. NULL is fine. */
void sink_kafka_free(sink_kafka *k);

/* ------------------------------------------------------------------ */
/* HTTP API                                                            */
/* ------------------------------------------------------------------ */

/*
 * The daemon's HTTP API on its own listener (core_http, default
 * 127.0.0.1:8318):
 *   GET  /v1/cases/{id}  get_case (id percent-decoded): 200 JSON; 404 when
 *                        it gives CORE_ENOTFOUND; 400 for a broken escape
 *   GET  /v1/cases       list_cases(query): 200 JSON, 400 for CORE_EUSAGE
 *   GET  /v1/cases/{id}/timeline, /v1/cases/{id}/explain?rank=R
 *                        timeline(), explain(): as get_case (explain: 400
 *                        for CORE_EUSAGE)
 *   GET  /v1/stats       stats(): 200 JSON
 *   GET  /, /ui/...      the live view (with opts->ui): HTML, script and
 *                        style built into the binary, under a strict
 *                        Content-Security-Policy (nothing from elsewhere,
 *                        no inline script or style); /ui/config.json
 *                        its settings
 *   GET  /v1/stream, /v1/cases/{id}/stream  Server-Sent Events (below);
 *                        503 + Retry-After past max_streams
 *   POST /v1/query       query(body): 200 JSON; 400 {"error": why} for
 *                        CORE_EFORMAT/CORE_EUSAGE; 413 for CORE_ELIMIT
 *   GET  /metrics        metrics(): 200 text/plain; version=0.0.4
 *   GET  /readyz         ready(): 200 "ok", or 503 with its reason
 *   GET  /livez          200 "ok" while the process serves
 * HEAD works wherever GET does. An unknown path is 404, a known path with
 * another method 405 (with Allow); errors are JSON {"error":"..."}; other
 * codes from get_case/query are 500. A NULL op makes its route 404
 * (ready NULL: always ready). Bodies over 4 MiB get 413. With a token
 * (sink_api_opts), a request to another route without the right bearer
 * token gets 401 (text/plain, WWW-Authenticate: Bearer) from core_http.
 *
 * Threading: the ops are called from the server's pool threads, several at
 * once: they must be thread-safe. The JSON/text they append to is owned by
 * the API (freed after sending).
 */
typedef struct sink_api sink_api;

typedef struct sink_api_ops {
    int (*get_case)(void *ud, const char *case_id, core_buf *json);
    int (*query)(void *ud, const char *body, size_t len, core_buf *json, char *why, size_t whylen);
    void (*metrics)(void *ud, core_buf *text);
    bool (*ready)(void *ud, core_buf *why);
    /* GET /v1/stats: the daemon's online accuracy and health; a non-zero
     * return is a 500. */
    int (*stats)(void *ud, core_buf *json);
    /* GET /v1/cases?QUERY: a page of live cases (query as sent, NULL when
     * none): 0; CORE_EUSAGE is a 400 with why; others a 500. */
    int (*list_cases)(void *ud, const char *query, core_buf *json, char *why, size_t whylen);
    /* GET /v1/cases/{id}/timeline: as get_case. */
    int (*timeline)(void *ud, const char *case_id, core_buf *json);
    /* GET /v1/cases/{id}/explain?QUERY: as get_case, and CORE_EUSAGE a
     * 400 with why. */
    int (*explain)(void *ud, const char *case_id, const char *query, core_buf *json, char *why,
                   size_t whylen);
    /* POST /v1/admin/reload: asks for what SIGHUP does (202; the outcome
     * is in the log and the reload metrics). Offered only with a token
     * (token_file): without one it is a 403. NULL: 404. */
    void (*reload)(void *ud);
    void *ud;
} sink_api_ops;

/* Zero-initialised is the default; read by sink_api_start() only. */
typedef struct sink_api_opts {
    const char *listen; /* "host:port" (core_http_opts.listen); NULL: "127.0.0.1:8318" */
    /* core_http_opts.token_file: every route needs "Authorization: Bearer
     * <token>" (else 401) but /livez and /readyz, which stay open for
     * probes, and /metrics when metrics_open. NULL or "": none. */
    const char *token_file;
    bool metrics_open;
    /* core_http_opts.tls_cert and tls_key: HTTPS only. NULL or "": none. */
    const char *tls_cert;
    const char *tls_key;
    core_logger log; /* its ud must outlive the API */
    /* Connection limits and slow-client timeouts (core_http_limits); zero
     * fields: its defaults. /livez and /readyz are its probe paths: they
     * are answered on the few connections kept past max_conns. */
    core_http_limits limits;
    /* Server-Sent Events (sink_api_publish): streams open at once (0:
     * none; each holds a connection) and predictions per second sent to
     * each at most (<= 0: 20). */
    unsigned max_streams;
    double stream_rate;
    /* The live view (GET / and /ui/...): off unless set. Its link to
     * source: a URL template with {file}, {line}, {rev} (NULL or "":
     * plain file:line), and what {rev} stands for. Copied. */
    bool ui;
    const char *ui_source_url;
    const char *ui_source_rev;
} sink_api_opts;

/*
 * Starts the API (o NULL: the defaults). ops is copied; ops->ud must
 * outlive the API. Returns 0 and *out (stop with sink_api_stop), or
 * core_http_start()'s error with the address (or the file) in why.
 */
int sink_api_start(const sink_api_opts *o, const sink_api_ops *ops, sink_api **out, char *why,
                   size_t whylen);

/* The bound "host:port" (the real port when 0 was asked); valid until
 * sink_api_stop. */
const char *sink_api_address(const sink_api *a);

/* The API server's counters (core_http_get_stats). Any thread, until
 * sink_api_stop. */
void sink_api_get_http_stats(const sink_api *a, core_http_stats *out);

/* The value of key in a query string (as core_http_req has it, NULL for
 * none), percent-decoded, malloc'd; NULL when absent, and then *bad tells
 * a broken escape (or an encoded NUL) from no such key. Reentrant. */
char *sink_query_param(const char *query, const char *key, bool *bad);

/* Stops accepting, answers the requests in progress, ends the streams,
 * frees a (NULL is fine). Not from inside an op. */
void sink_api_stop(sink_api *a);

/*
 * Server-Sent Events: GET /v1/stream (every case's predictions, or one
 * case's with ?case=ID) and GET /v1/cases/{id}/stream. Each prediction
 * given to sink_api_publish is sent to the streams that want its case as
 * "event: prediction\ndata: JSON\n\n". A stream gets at most
 * stream_rate a second (a token bucket holding one second's worth); the
 * predictions over it are dropped and counted, and the next one sent is
 * preceded by "event: skipped\ndata: {\"skipped\":N}\n\n", so a client
 * knows to fetch what it missed. A client more than 1 MiB behind is cut
 * off. Idle streams get a comment line every 15 s.
 *
 * Whether any stream is open (a hint, so that the caller builds the JSON
 * only when someone listens). Any thread.
 */
bool sink_api_streaming(const sink_api *a);
/* Sends one prediction (json: jlen bytes, one line) of a case to the
 * streams that want it; never blocks on a client. Any thread; a may be
 * NULL. */
void sink_api_publish(sink_api *a, const char *case_id, size_t case_len, const char *json,
                      size_t jlen);
/* Predictions skipped by the streams' rate, and streams cut off for being
 * too slow, since start. */
void sink_api_stream_stats(const sink_api *a, uint64_t *skipped, uint64_t *cut_off);

/* ------------------------------------------------------------------ */
/* Metrics                                                             */
/* ------------------------------------------------------------------ */

/*
 * A small Prometheus registry: counters, gauges and histograms, rendered
 * in the text exposition format 0.0.4.
 *
 * Series are registered once with a fixed label set, written as it goes
 * between the braces (`source="otlp_http"`, `k="v",k2="v2"`, values
 * already escaped; NULL or "" for none). Registering the same name and
 * labels again returns the same handle; one name with two types, an
 * invalid name or unordered histogram bounds is a programming error and
 * aborts. name and help are borrowed (string literals): they must outlive
 * the registry. Handles are valid until sink_metrics_free().
 *
 * Threading: everything may be called from any thread at once. Updates
 * are lock-free atomics; registration and rendering take a short lock.
 */
typedef struct sink_metrics sink_metrics;
typedef struct sink_counter sink_counter;
typedef struct sink_gauge sink_gauge;
typedef struct sink_histogram sink_histogram;

sink_metrics *sink_metrics_new(void);
/* Frees the registry and every handle; NULL is fine. */
void sink_metrics_free(sink_metrics *m);

sink_counter *sink_metrics_counter(sink_metrics *m, const char *name, const char *help,
                                   const char *labels);
sink_gauge *sink_metrics_gauge(sink_metrics *m, const char *name, const char *help,
                               const char *labels);
/* bounds: the buckets' upper bounds (le, inclusive), strictly increasing
 * and finite, copied; +Inf is implied. Observations in seconds by
 * convention. */
sink_histogram *sink_metrics_histogram(sink_metrics *m, const char *name, const char *help,
                                       const char *labels, const double *bounds, size_t nbounds);

void sink_counter_add(sink_counter *c, uint64_t n);
uint64_t sink_counter_get(const sink_counter *c);
void sink_gauge_set(sink_gauge *g, double v);
void sink_gauge_add(sink_gauge *g, double delta);
void sink_histogram_observe(sink_histogram *h, double v);

/*
 * Appends the text exposition of every series: families in order of first
 * registration, one "# HELP" and "# TYPE" line per family, then its series
 * in registration order. Histograms give cumulative name_bucket{le="..."}
 * lines ending with le="+Inf", then name_sum and name_count (equal to the
 * +Inf bucket). Numbers: counters as integers, others in the shortest form
 * that reads back the same, NaN, +Inf, -Inf.
 */
void sink_metrics_render(sink_metrics *m, core_buf *out);

#ifdef __cplusplus
}
#endif
#endif
