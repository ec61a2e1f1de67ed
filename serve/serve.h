/*
 * serve.h - the daemon as a library. Events come in from OTLP/HTTP and
 * Kafka, are mapped to activities, advance their case's state (LMDB, a
 * warm-started PageRank vector) and give one prediction each, to the Kafka
 * output topic, stdout and the HTTP API.
 *
 * The promise. An event's prediction is produced before its state change
 * is committed, and the commit holds the input offsets it came from: an
 * OTLP/HTTP 200 or a stored Kafka offset means the change is durable, and
 * a crash anywhere loses nothing acknowledged. Predictions may repeat
 * after a crash (they were produced before the commit), never go missing:
 * (case_id, seq) tells repeats apart.
 *
 * Threading and lifetime. serve_open, serve_run and serve_close are called
 * from one thread, which becomes the engine thread: serve_run runs the
 * engine on it until a stop. The daemon starts threads of its own (the
 * committer, the OTLP/HTTP receiver's and the API's pools, the memory
 * watcher, model rebuilds and reloads) and joins them all before serve_close returns.
 * serve_stop and serve_reload only set a flag: they may be called from any
 * thread and from a signal handler. The configuration given to serve_open
 * is taken over (freed by serve_close, also when serve_open fails); the
 * paths in the options are borrowed until serve_close. Messages go to the
 * logger of the options, from any of the daemon's threads.
 */
#ifndef PMRAG_SERVE_H
#define PMRAG_SERVE_H

#include "core.h"
#include "core_cfg.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct serve serve;

typedef struct serve_opts {
    core_cfg *cfg;              /* the keys of `pmrag config --reference`; taken over */
    const char *graph_path;     /* from pmrag index (required) */
    const char *model_path;     /* from pmrag mine; NULL: model.bootstrap_log, or none */
    const char *overrides_path; /* YAML mapping rules; NULL: none */
    /* Written (JSON, atomically) once everything is up: the listening
     * addresses, the Kafka bootstrap and topics. NULL: none. */
    const char *ready_file;
    core_logger log;
} serve_opts;

/*
 * Opens the state, builds or loads the model, starts the listeners, the
 * Kafka clients and the committer. Errors name what failed in why and
 * return a negative code: CORE_EUSAGE when the fault is in what was given
 * (the graph file, the overrides, a configuration value), another code
 * otherwise. On failure everything opened is closed again and *out is not
 * written.
 */
int serve_open(const serve_opts *o, serve **out, char *why, size_t whylen);

/*
 * Runs the engine until serve_stop: waits for the consumer group's
 * partitions (when Kafka is in), writes the ready file, then applies
 * events; after a stop, drains what is queued and commits it. Returns 0
 * after a clean stop, or the error that stopped it (the state is then as
 * of the last commit).
 */
int serve_run(serve *s);

/* Asks serve_run to stop (async-signal-safe). */
void serve_stop(serve *s);
/* Asks for the graph and the model to be loaded again: on a thread of
 * the daemon's own, put in use between cycles (async-signal-safe). */
void serve_reload(serve *s);

/* Answers whatever still waits (with an error when not committed), stops
 * every thread and frees s. NULL is a no-op. */
void serve_close(serve *s);

/*
 * Appends a ranking (the n entries of p that model_rank or
 * model_rank_warm gave, over a model of m's activities) as JSON, in the
 * one shape a ranking has wherever pmrag writes one: the "ranked" of a
 * published prediction, [{"symbol","kind","file","start_line","end_line",
 * "score","activity","near"},...] (docs/commands.md, the prediction).
 * For the commands that print rankings, so that they print what the
 * daemon publishes. m is borrowed for the call; reentrant while m is not
 * changed.
 */
void serve_ranked_json(core_buf *b, const map_mapper *m, const model_pred *p, uint32_t n);
/* A stateless query's answer (model_query) as JSON, what `POST /v1/query`
 * and `pmrag query --json` print: {"trace":[{"event","activity",
 * "strategy","known"},...], "model_version" and "graph_version" (versions,
 * when not NULL: the two texts), "ranked" (serve_ranked_json)}. */
void serve_query_json(core_buf *b, const map_mapper *m, const map_event *evs,
                      const model_query_event *ev, uint32_t n, const core_buf *texts,
                      const char *const *versions, const model_pred *p, uint32_t np);

#ifdef __cplusplus
}
#endif
#endif
