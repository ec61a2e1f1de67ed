/* pmrag's configuration table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const profiles[] = {"default", "debug", "refactor", NULL};
static const char *const kafka_encodings[] = {"auto", "otlp_proto", "otlp_json", "json", NULL};
static const char *const output_encodings[] = {"proto", "json", NULL};

/* Keys are grouped by section; the order is the order of the reference
 * and of `pmrag config`. Defaults must agree with ppr_opts_default,
 * ppr_weights_profile("default") and ppr_impact_opts_default
 * (tests/unit/test_config.c checks that they do). */
const core_cfg_item pmrag_config_table[] = {
    {"ppr.alpha", CORE_CFG_DOUBLE, "0.15", 0.001, 0.999, NULL,
     "restart probability of the walk: larger keeps scores closer to the seeds"},
    {"ppr.eps", CORE_CFG_DOUBLE, "3e-06", 1e-12, 0.1, NULL,
     "push threshold per unit of out-degree: smaller is more exact and slower (the "
     "random walks, ppr.walks, carry what a larger one leaves)"},
    {"ppr.max_pushes", CORE_CFG_INT, "0", 0, 4e9, NULL,
     "stop a push after this many node pushes (0: no budget); a result that hits it says so and "
     "carries its error bound"},
    {"ppr.profile", CORE_CFG_ENUM, "default", 0, 0, profiles,
     "edge-type weights: `default`; `debug` (calls x1.5); `refactor` (uses and inherits x1.5)"},
    {"ppr.weights.calls", CORE_CFG_DOUBLE, "1", 0, 1000, NULL,
     "weight of calls edges; given, it overrides the profile"},
    {"ppr.weights.inherits", CORE_CFG_DOUBLE, "0.9", 0, 1000, NULL,
     "weight of inherits edges (subclass to base); overrides the profile"},
    {"ppr.weights.imports", CORE_CFG_DOUBLE, "0.7", 0, 1000, NULL,
     "weight of imports edges; overrides the profile"},
    {"ppr.weights.uses", CORE_CFG_DOUBLE, "0.5", 0, 1000, NULL,
     "weight of uses edges (type uses); overrides the profile"},
    {"ppr.weights.accesses", CORE_CFG_DOUBLE, "0.4", 0, 1000, NULL,
     "weight of accesses edges (attribute reads); overrides the profile"},
    {"ppr.weights.member_of", CORE_CFG_DOUBLE, "0.2", 0, 1000, NULL,
     "weight of member_of edges (member to its class or module); overrides the profile"},
    {"ppr.weights.reverse", CORE_CFG_DOUBLE, "0.3", 0, 1000, NULL,
     "every code edge is also walked backwards at this fraction of its forward weight; "
     "overrides the profile"},
    {"ppr.hubs", CORE_CFG_INT, "100", 0, 10000000, NULL,
     "precompute the vectors of this many highest-degree nodes; pushes stop at them"},
    {"ppr.hub_degree", CORE_CFG_INT, "32", 1, 4e9, NULL, "a hub has at least this many edges"},
    {"ppr.hub_M", CORE_CFG_INT, "1024", 1, PPR_MAX_M, NULL, "entries kept per hub vector"},
    {"ppr.hub_eps", CORE_CFG_DOUBLE, "1e-07", 1e-12, 0.1, NULL, "push threshold of hub vectors"},
    {"ppr.walks", CORE_CFG_INT, "2000", 0, 100000000, NULL,
     "random walks that carry the residual a push leaves (0: none)"},
    {"ppr.walk_seed", CORE_CFG_INT, "0", 0, 4e9, NULL,
     "seed of the walks (the same query gives the same answer)"},
    {"model.order", CORE_CFG_INT, "6", 1, MODEL_MAX_ORDER, NULL,
     "longest activity context (events) the directly-follows model conditions on"},
    {"model.variant_ratio", CORE_CFG_DOUBLE, "0.2", 0, 1, NULL,
     "an activity's abstracted messages are told apart when they are at most this share of its "
     "events"},
    {"model.variant_min", CORE_CFG_INT, "8", 0, 1000000, NULL,
     "...or at most this many (0 with variant_ratio 0: never)"},
    {"model.alpha", CORE_CFG_DOUBLE, "0.3", 0.001, 0.999, NULL,
     "restart probability of the walk over the joint graph"},
    {"model.code_scale", CORE_CFG_DOUBLE, "0.1", 0, 100, NULL,
     "weight of code edges in the joint graph against stopping (0: no diffusion over code)"},
    {"model.decay", CORE_CFG_DOUBLE, "0.5", 0, 1, NULL,
     "geometric decay of the prefix's own activities in the fallback seed"},
    {"model.escape", CORE_CFG_DOUBLE, "1", 0.01, 100, NULL,
     "Witten-Bell escape factor: larger trusts long contexts less"},
    {"model.code_prior", CORE_CFG_DOUBLE, "0.75", 0, 1, NULL,
     "share of what the contexts leave that goes to the emit sites the code says can log next "
     "(the rest: recency and the current emitter)"},
    {"model.case_prior", CORE_CFG_DOUBLE, "1", 0, 1, NULL,
     "factor on the share of what the contexts leave that goes to what followed the last "
     "activity earlier in the same case, within its last 16 events (0: none)"},
    {"model.calibrate", CORE_CFG_BOOL, "true", 0, 0, NULL,
     "calibrate order, variant_ratio, alpha, code_scale, decay, escape, code_prior and "
     "case_prior by cross-validation inside the training cases (the values above are the "
     "starting point)"},
    {"model.calibrate_folds", CORE_CFG_INT, "3", 2, MODEL_MAX_FOLDS, NULL,
     "folds of that cross-validation: contiguous runs of cases in time order, each scored by a "
     "model trained on the others (every candidate is trained this many times, on all CPUs)"},
    {"model.calibrate_min_cases", CORE_CFG_INT, "100", 0, 4e9, NULL,
     "below this many training cases the values above are used as they are"},
    {"map.tokens", CORE_CFG_BOOL, "true", 0, 0, NULL,
     "map an activity nothing else maps by token similarity (TF-IDF) to the names, docstrings "
     "and templates of functions that log text made at run time, near where its cases were "
     "(--no-tokens sets it false)"},
    {"map.include_tests", CORE_CFG_BOOL, "false", 0, 0, NULL,
     "map events to test, example, benchmark, generated, vendored and browser-build files like "
     "the product's "
     "(pmrag graph stats shows the roles); by default their sites take a message only when no "
     "product site matches it (--include-tests sets it true)"},
    {"map.tokens_min", CORE_CFG_DOUBLE, "0.25", 0.001, 1, NULL,
     "least TF-IDF cosine for the token-similarity mapping of an activity"},
    {"map.llm_cmd", CORE_CFG_STRING, "", 0, 0, NULL,
     "offline commands: a command that maps the activities nothing else maps (JSON on stdin and "
     "stdout, --llm-cmd); serve refuses it, since its engine cannot wait on a command: mine "
     "with it and serve the model"},
    {"map.code_attrs", CORE_CFG_BOOL, "true", 0, 0, NULL,
     "serve: let OpenTelemetry code.* attributes on events decide their activity's symbols"},
    {"model.bootstrap_log", CORE_CFG_STRING, "", 0, 0, NULL,
     "serve: an event log to train the model from at start (when no --model is given)"},
    {"model.learn_online", CORE_CFG_BOOL, "true", 0, 0, NULL,
     "serve: keep learning directly-follows contexts from the stream and rebuild the model"},
    {"model.rebuild_events", CORE_CFG_INT, "50000", 100, 4e9, NULL,
     "serve: rebuild the model after this many new events (with learn_online)"},
    {"model.rebuild_seconds", CORE_CFG_INT, "300", 1, 4e9, NULL,
     "serve: ...or after this many seconds, when there are new events"},
    {"model.rebuild_min_seconds", CORE_CFG_INT, "30", 0, 4e9, NULL,
     "serve: ...but never sooner than this many seconds after the last rebuild"},
    {"model.online_windows", CORE_CFG_INT, "200000", 0, 1e9, NULL,
     "serve: most distinct event windows counted online (past it, only known ones count)"},
    {"model.state_entries", CORE_CFG_INT, "64", 1, PPR_MAX_M, NULL,
     "serve: entries of a case's sparse PageRank vector kept (the warm-start state)"},
    {"serve.k", CORE_CFG_INT, "10", 1, 1000, NULL, "serve: symbols per prediction"},
    {"serve.batch", CORE_CFG_INT, "20000", 1, 1000000, NULL,
     "serve: most events applied in one state transaction (batches grow up to it under load: "
     "one holds what came in while the previous one was committed); held events that come due "
     "together (serve.reorder_ms) are released this many at a time, between new input"},
    {"serve.queue_events", CORE_CFG_INT, "20000", 1, 1e9, NULL,
     "serve: events waiting from OTLP/HTTP and OTLP/gRPC before requests get 503 + Retry-After "
     "(gRPC: UNAVAILABLE with a retry delay; refused before their body is decoded); past "
     "capacity, an accepted event waits about this many events' time"},
    {"serve.stdout", CORE_CFG_BOOL, "false", 0, 0, NULL,
     "serve: also write every prediction as a JSON line to stdout"},
    /* 1000 from tests/bench/arrival_order.sh (docs/benchmarks.md): the
     * demo's orders through the OpenTelemetry Python SDK scored within a
     * point of the start-order feed at 1000 ms with its batch processors
     * (0.865 against 0.872) and its simple ones (0.913 against 0.911),
     * nothing late. At 250 ms the batch processors' requests, flushed a
     * few hundred ms apart, put events of one case past the grace: 4.8
     * points lost, 47 events before a case's stored tokens refused. 5000 ms
     * (the SDK's export delay) scored as 1000 ms, 4 s later. */
    {"serve.reorder_ms", CORE_CFG_INT, "1000", 0, 3600000, NULL,
     "serve: event time: each event is held back this long after it arrives, so that events of "
     "its case that happened before it can still come first; each case's events are applied in "
     "the order they happened (a span by its start, a log record by its time; spans placed "
     "inside their parents when clocks disagree), and one that comes later still is placed where "
     "it belongs, the predictions after it published again with a higher revision; 0: the order "
     "they arrive in, at once. With kafka.changelog=true the events held for a partition's cases "
     "are released at once when it is revoked or the daemon stops, and a message is acknowledged "
     "only once the events held before it in its partition are released (after a crash they are "
     "consumed again). The default is the shortest grace measured at which the OpenTelemetry "
     "SDK's batched and unbatched traffic scored as in start order (docs/benchmarks.md)"},
    {"serve.late_max_ms", CORE_CFG_INT, "3600000", 0, 1e12, NULL,
     "serve: an event further behind its case's latest event (event time) is refused as too late "
     "(pmrag_events_too_late_total, logged); 0: no bound but the events a case stores"},
    {"serve.reorder_max_events", CORE_CFG_INT, "1000", 1, 1000000, NULL,
     "serve: most events one case holds back; past it, the first in its order is applied at once"},
    {"serve.dedupe_events", CORE_CFG_INT, "64", 0, 256, NULL,
     "serve: fingerprints of its latest events each case keeps: an event received again (the "
     "same span by trace and span id, a log record by its time, body, attributes and trace "
     "context: an exporter's retry, a message delivered twice) is applied once "
     "(pmrag_events_duplicate_total); 0: no check"},
    {"serve.stage_sample", CORE_CFG_INT, "64", 1, 1000000, NULL,
     "serve: 1 in this many events has each stage of its path timed, to divide the engine "
     "thread's CPU time among the stages (pmrag_engine_stage_cpu_microseconds_total); 1: every "
     "event, at the cost of two reads of the thread's CPU clock (system calls) per event"},
    {"serve.case_attrs", CORE_CFG_STRING, "case.id,session.id,enduser.id", 0, 0, NULL,
     "serve: attributes that give an OTLP record's case id, in order (span or log record, then "
     "resource); the trace id when none is set"},
    {"limits.record_attrs", CORE_CFG_INT, "128", 1, 65535, NULL,
     "serve: most attributes kept per span, log record or event (later ones dropped; "
     "pmrag_limit_hits_total{limit=\"record_truncated\"})"},
    {"limits.string_bytes", CORE_CFG_INT, "8192", 64, 16777216, NULL,
     "serve: longest attribute key or value and activity kept, in bytes (longer ones cut at a "
     "character boundary; limit=\"record_truncated\"); case ids are never cut: up to 500 bytes "
     "are kept, a record with a longer one is rejected"},
    {"limits.activities", CORE_CFG_INT, "1000000", 16, 100000000, NULL,
     "most distinct activities; past it new messages fold into `<other>` and nothing new is "
     "kept (serve counts them as limit=\"activities\")"},
    {"limits.case_events", CORE_CFG_INT, "1000000", 1, 4e18, NULL,
     "serve: most events of one case; later ones are dropped, without state or prediction "
     "(limit=\"case_events\")"},
    {"limits.new_cases_per_second", CORE_CFG_INT, "100000", 0, 1e9, NULL,
     "serve: most new cases per second (a burst of one second's worth); events that would start "
     "more are dropped (limit=\"new_cases\"); 0: no limit"},
    {"limits.memory_bytes", CORE_CFG_INT, "0", 0, 1e15, NULL,
     "serve: most anonymous memory (RssAnon; LMDB's mapped pages are not counted) before input "
     "is refused: new OTLP/HTTP requests get 503 + Retry-After, OTLP/gRPC calls UNAVAILABLE "
     "(those already read are applied), "
     "Kafka partitions pause, /readyz says why, until it is back under 90% (limit=\"memory\"); "
     "0: no limit"},
    {"otlp.listen", CORE_CFG_STRING, "127.0.0.1:4318", 0, 0, NULL,
     "OTLP/HTTP receiver address (port 0: any free port; empty: no receiver)"},
    {"otlp.grpc_listen", CORE_CFG_STRING, "127.0.0.1:4317", 0, 0, NULL,
     "OTLP/gRPC receiver address (TraceService/Export, LogsService/Export over HTTP/2; port 0: "
     "any free port; empty: no receiver); the otlp.* limits, token and certificate apply to it "
     "too, with connections counted apart from OTLP/HTTP's (header_timeout: until the TLS "
     "handshake and HTTP/2 preface; connection_timeout: without a call, then GOAWAY)"},
    {"otlp.max_body", CORE_CFG_INT, "67108864", 1024, 4e9, NULL,
     "largest OTLP/HTTP body or OTLP/gRPC message in bytes, before and after gzip decompression "
     "(413, RESOURCE_EXHAUSTED past it)"},
    {"otlp.threads", CORE_CFG_INT, "16", 1, 256, NULL,
     "OTLP/HTTP receiver threads, and as many for OTLP/gRPC: each holds its request until it "
     "is committed, so this is how many requests a batch can gather"},
    {"otlp.dedupe_seconds", CORE_CFG_INT, "600", 0, 86400, NULL,
     "a request whose body (after decompression) equals one committed this many seconds ago or "
     "less is a retry: answered 200 without applying it again (kept in the state, so also "
     "across a restart; pmrag_otlp_duplicate_requests_total); 0: no check"},
    {"otlp.dedupe_max", CORE_CFG_INT, "200000", 1, 1e8, NULL,
     "most request ids kept for otlp.dedupe_seconds (the oldest go first past it; about 80 "
     "bytes of memory each)"},
    {"otlp.token_file", CORE_CFG_STRING, "", 0, 0, NULL,
     "file holding the bearer token OTLP/HTTP and OTLP/gRPC clients must send (`Authorization: "
     "Bearer ...`; 401, UNAUTHENTICATED without it); empty: no authentication"},
    {"otlp.tls_cert", CORE_CFG_STRING, "", 0, 0, NULL,
     "PEM certificate (and chain) file: the receivers speak TLS only (HTTPS; OTLP/gRPC with "
     "ALPN h2), with otlp.tls_key"},
    {"otlp.tls_key", CORE_CFG_STRING, "", 0, 0, NULL,
     "PEM private key file (not encrypted) of otlp.tls_cert"},
    {"otlp.max_connections", CORE_CFG_INT, "256", 1, 65536, NULL,
     "most open OTLP/HTTP connections; past it a new one closes the oldest connection still "
     "waiting for its request (stalled clients give way to working ones), and when none is, a "
     "few more are accepted and answered 503 + Retry-After"},
    {"otlp.max_connections_per_address", CORE_CFG_INT, "128", 0, 65536, NULL,
     "most OTLP/HTTP connections from one client address, kept like otlp.max_connections (that "
     "address's oldest stalled connection is closed first); 0: no limit of its own"},
    {"otlp.connection_timeout", CORE_CFG_INT, "30", 1, 86400, NULL,
     "seconds an OTLP/HTTP connection may stay silent (idle between requests) before it is closed"},
    {"otlp.header_timeout", CORE_CFG_INT, "10", 1, 3600, NULL,
     "seconds a new OTLP/HTTP connection has to send its request line and headers, however slowly "
     "they trickle in; closed past it (kept alive: otlp.connection_timeout plus this)"},
    {"otlp.body_timeout", CORE_CFG_INT, "60", 1, 86400, NULL,
     "seconds an OTLP/HTTP request body may take to arrive after its headers; closed past it"},
    {"api.listen", CORE_CFG_STRING, "127.0.0.1:8318", 0, 0, NULL,
     "HTTP API address: /v1/cases, /v1/query, /v1/stats, /v1/stream, the live view (/), "
     "/metrics, /livez, /readyz (empty: none)"},
    {"api.token_file", CORE_CFG_STRING, "", 0, 0, NULL,
     "file holding the bearer token API clients must send (401 without it); /livez and /readyz "
     "stay open; empty: no authentication"},
    {"api.metrics_open", CORE_CFG_BOOL, "false", 0, 0, NULL,
     "with api.token_file, /metrics may be scraped without the token too"},
    {"api.tls_cert", CORE_CFG_STRING, "", 0, 0, NULL,
     "PEM certificate (and chain) file: the API speaks HTTPS only (with api.tls_key)"},
    {"api.tls_key", CORE_CFG_STRING, "", 0, 0, NULL,
     "PEM private key file (not encrypted) of api.tls_cert"},
    {"api.max_connections", CORE_CFG_INT, "256", 1, 65536, NULL,
     "most open API connections; past it a new one closes the oldest connection still waiting "
     "for its request (stalled clients give way to working ones), and when none is, a few more "
     "are accepted for /livez and /readyz only (others: 503 + Retry-After)"},
    {"api.max_connections_per_address", CORE_CFG_INT, "128", 0, 65536, NULL,
     "most API connections from one client address, kept like api.max_connections (that "
     "address's oldest stalled connection is closed first); 0: no limit of its own"},
    {"api.connection_timeout", CORE_CFG_INT, "30", 1, 86400, NULL,
     "seconds an API connection may stay silent (idle between requests) before it is closed"},
    {"api.header_timeout", CORE_CFG_INT, "10", 1, 3600, NULL,
     "seconds a new API connection has to send its request line and headers, however slowly "
     "they trickle in; closed past it (kept alive: api.connection_timeout plus this)"},
    {"api.body_timeout", CORE_CFG_INT, "60", 1, 86400, NULL,
     "seconds an API request body may take to arrive after its headers; closed past it"},
    {"api.streams", CORE_CFG_INT, "64", 0, 4096, NULL,
     "most Server-Sent Events streams (GET /v1/stream, /v1/cases/{id}/stream) open at once; "
     "past it a new one gets 503 + Retry-After (0: no streams); each holds an API connection"},
    {"api.stream_rate", CORE_CFG_DOUBLE, "20", 0.1, 100000, NULL,
     "predictions per second sent to one stream at most (bursts of as many); the ones over it "
     "are skipped and counted in the next 'skipped' event, so a page watching 10,000 live "
     "cases is not flooded"},
    {"ui.enabled", CORE_CFG_BOOL, "true", 0, 0, NULL,
     "serve the live view (GET / on the API listener: live cases, timelines, health), behind "
     "api.token_file like the rest of the API"},
    {"ui.source_url", CORE_CFG_STRING, "", 0, 0, NULL,
     "the live view's link to source: a URL template with {file}, {line} and {rev} (from "
     "ui.source_rev), e.g. https://git.example.com/repo/blob/{rev}/{file}#L{line}; empty: "
     "plain file:line"},
    {"ui.source_rev", CORE_CFG_STRING, "main", 0, 0, NULL,
     "what {rev} stands for in ui.source_url (a branch, tag or commit)"},
    {"kafka.brokers", CORE_CFG_STRING, "", 0, 0, NULL,
     "bootstrap servers host:port,...; empty: no Kafka (OTLP/HTTP only), or the embedded cluster "
     "with kafka.embedded"},
    {"kafka.embedded", CORE_CFG_BOOL, "false", 0, 0, NULL,
     "with no brokers, run librdkafka's mock cluster inside the process, for trying pmrag: it "
     "keeps "
     "messages in the process's memory only, so what it acknowledged is lost when pmrag stops"},
    {"kafka.partitions", CORE_CFG_INT, "4", 1, 10000, NULL,
     "partitions of the topics the embedded cluster creates"},
    {"kafka.group", CORE_CFG_STRING, "pmrag", 0, 0, NULL, "consumer group id"},
    {"kafka.changelog", CORE_CFG_BOOL, "false", 0, 0, NULL,
     "several instances in one group: every case change made by an input message also goes to "
     "`<group>-cases-changelog` (same partition as the input, key = case id; create it with as "
     "many partitions, compacted), and an instance given a partition restores its cases from "
     "there first (with several input topics the consumer uses the range assignor, so that "
     "partition P of each goes to one instance); with model.learn_online the windows learnt "
     "online are shared through `<group>-follows` too"},
    {"kafka.input_topics", CORE_CFG_STRING, "otlp_spans,otlp_logs", 0, 0, NULL,
     "topics to consume, comma-separated (empty: no Kafka input)"},
    {"kafka.logs_topics", CORE_CFG_STRING, "otlp_logs", 0, 0, NULL,
     "those input topics that carry OTLP logs (the others carry spans)"},
    {"kafka.input_encoding", CORE_CFG_ENUM, "auto", 0, 0, kafka_encodings,
     "`otlp_proto` and `otlp_json` (what the Collector's kafka exporter writes), `json` (one "
     "event per message: {\"case_id\",\"activity\",\"timestamp\",...}), or `auto`: told "
     "apart per message (a JSON object whose first key is resourceSpans or resourceLogs is OTLP "
     "JSON, another JSON object one event, anything else OTLP protobuf)"},
    {"kafka.output_topic", CORE_CFG_STRING, "pmrag_predictions", 0, 0, NULL,
     "topic of the predictions (key: case id; empty: none)"},
    {"kafka.output_encoding", CORE_CFG_ENUM, "proto", 0, 0, output_encodings,
     "`proto` (pmrag.v1.Prediction) or `json` (the same field names)"},
    {"kafka.dead_letter_topic", CORE_CFG_STRING, "", 0, 0, NULL,
     "topic for input messages that cannot be used (none decodes, or every record is refused): "
     "each goes there unchanged, with headers `pmrag.error`, `pmrag.reason`, "
     "`pmrag.source.topic`, `pmrag.source.partition`, `pmrag.source.offset` and `pmrag.time`, "
     "before its offset is stored (empty: such messages are skipped and counted)"},
    {"kafka.properties", CORE_CFG_STRING, "", 0, 0, NULL,
     "librdkafka properties for every client, `key=value` separated by `;` (SASL, TLS, ...); "
     "`pmrag config` shows secret values as `<redacted>`"},
    {"state.dir", CORE_CFG_STRING, "pmrag-state", 0, 0, NULL,
     "directory of the LMDB state (cases, activities, offsets)"},
    {"state.map_size", CORE_CFG_INT, "67108864", 1048576, 1e15, NULL,
     "initial LMDB map size in bytes; it grows when full"},
    {"state.map_max", CORE_CFG_INT, "0", 0, 1e15, NULL,
     "the map does not grow past this many bytes (0: no limit but the disk)"},
    {"state.ttl", CORE_CFG_INT, "86400", 1, 1e10, NULL,
     "seconds after its last event that an idle case is forgotten"},
    {"state.end_activities", CORE_CFG_STRING, "", 0, 0, NULL,
     "activities (exact texts, `;`-separated) that close their case"},
    {"impact.decay", CORE_CFG_DOUBLE, "0.8", 0.001, 1, NULL,
     "score factor per hop of a dependency chain"},
    {"impact.threshold", CORE_CFG_DOUBLE, "0.05", 1e-9, 1, NULL,
     "dependents scoring below this are dropped"},
};
const size_t pmrag_config_count = sizeof pmrag_config_table / sizeof pmrag_config_table[0];

const char *pmrag_config_default(const char *key)
{
    for (size_t i = 0; i < pmrag_config_count; i++)
        if (strcmp(pmrag_config_table[i].key, key) == 0)
            return pmrag_config_table[i].def;
    return NULL;
}

void config_ppr_weights(const core_cfg *c, ppr_weights *w)
{
    if (ppr_weights_profile(core_cfg_str(c, "ppr.profile"), w) != 0)
        core_panic("profile %s has no weights", core_cfg_str(c, "ppr.profile"));
    static const char prefix[] = "ppr.weights.";
    for (size_t i = 0; i < pmrag_config_count; i++) {
        const char *key = pmrag_config_table[i].key;
        if (strncmp(key, prefix, sizeof prefix - 1) != 0 || !core_cfg_is_set(c, key))
            continue;
        if (ppr_weights_set(w, key + sizeof prefix - 1, core_cfg_double(c, key)) != 0)
            core_panic("config key %s is not an edge weight", key);
    }
}

ppr_opts config_ppr_opts(const core_cfg *c)
{
    ppr_opts o = ppr_opts_default();
    o.alpha = core_cfg_double(c, "ppr.alpha");
    o.eps = core_cfg_double(c, "ppr.eps");
    o.max_pushes = (uint64_t)core_cfg_int(c, "ppr.max_pushes");
    o.walks = (uint32_t)core_cfg_int(c, "ppr.walks");
    o.walk_seed = (uint64_t)core_cfg_int(c, "ppr.walk_seed");
    return o;
}

ppr_impact_opts config_impact_opts(const core_cfg *c)
{
    ppr_impact_opts o = ppr_impact_opts_default();
    o.decay = core_cfg_double(c, "impact.decay");
    o.threshold = core_cfg_double(c, "impact.threshold");
    config_ppr_weights(c, &o.weights);
    return o;
}

model_params config_model_params(const core_cfg *c)
{
    model_params p = model_params_default();
    p.order = (uint32_t)core_cfg_int(c, "model.order");
    p.variant_ratio = core_cfg_double(c, "model.variant_ratio");
    p.variant_min = (uint32_t)core_cfg_int(c, "model.variant_min");
    p.alpha = core_cfg_double(c, "model.alpha");
    p.code_scale = core_cfg_double(c, "model.code_scale");
    p.decay = core_cfg_double(c, "model.decay");
    p.escape = core_cfg_double(c, "model.escape");
    p.code_prior = core_cfg_double(c, "model.code_prior");
    p.case_prior = core_cfg_double(c, "model.case_prior");
    p.calibrate_folds = (uint32_t)core_cfg_int(c, "model.calibrate_folds");
    config_ppr_weights(c, &p.weights);
    return p;
}

map_mapper_opts config_mapper_opts(const core_cfg *c, const map_overrides *ov, core_logger log)
{
    const char *llm = core_cfg_str(c, "map.llm_cmd");
    return (map_mapper_opts){
        .use_code_attrs = core_cfg_bool(c, "map.code_attrs"),
        .overrides = ov,
        .no_tokens = !core_cfg_bool(c, "map.tokens"),
        .tokens_min = core_cfg_double(c, "map.tokens_min"),
        .llm_cmd = llm && *llm ? llm : NULL,
        .max_activities = (uint32_t)core_cfg_int(c, "limits.activities"),
        .include_tests = core_cfg_bool(c, "map.include_tests"),
        .log = log,
    };
}

model_train_opts config_train_opts(const core_cfg *c, core_logger log)
{
    return (model_train_opts){
        .params = config_model_params(c),
        .calibrate = core_cfg_bool(c, "model.calibrate"),
        .calibrate_min_cases = (uint32_t)core_cfg_int(c, "model.calibrate_min_cases"),
        .log = log,
    };
}

void config_kafka_properties_redacted(const char *props, core_buf *out)
{
    const char *p = props;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        size_t blank = strspn(p, " \t");
        if (!eq) {
            /* serve skips blank items and refuses others. */
            if (blank >= n)
                core_buf_append(out, p, n);
            else
                core_buf_puts(out, "<redacted>");
        } else {
            char key[256];
            size_t kn = (size_t)(eq - p);
            snprintf(key, sizeof key, "%.*s", (int)(kn < sizeof key ? kn : sizeof key - 1), p);
            if (core_key_is_secret(key)) {
                core_buf_append(out, p, kn + 1);
                core_buf_puts(out, "<redacted>");
            } else {
                core_buf_append(out, p, n);
            }
        }
        if (!end)
            break;
        core_buf_putc(out, ';');
        p = end + 1;
    }
}

void config_redact_secrets(core_cfg *c)
{
    const char *props = core_cfg_str(c, "kafka.properties");
    if (!*props)
        return;
    core_buf b = {0};
    config_kafka_properties_redacted(props, &b);
    core_buf_puts(&b, "");
    if (strcmp(b.data, props) != 0) {
        char *origin = core_xstrdup(core_cfg_origin(c, "kafka.properties"));
        char why[256];
        if (core_cfg_put(c, "kafka.properties", b.data, origin, why, sizeof why) != 0)
            core_panic("kafka.properties: %s", why);
        free(origin);
    }
    core_buf_free(&b);
}
