/*
 * ingest.h - event sources: files (CSV, JSONL, XES, OTLP JSON; each may be
 * gzip-compressed) turned into one event struct.
 *
 * An event is a case id, an activity text, a time and the record's other
 * fields as string attributes. Events come out in file order; nothing is
 * sorted (ordering per case is the caller's job).
 *
 * Files are streamed: a file is read through a buffered (gzip) reader, so
 * memory does not grow with the file, only with the largest record
 * (capped, see ingest_file_opts.max_record).
 *
 * Threading and lifetime: an ingest_file belongs to one thread at a time.
 * An event's pointers point into the file's buffers and are valid until the
 * next ingest_file_next() or ingest_file_close() on that file; copy what
 * must live longer. ingest_parse_time(), ingest_format_time() and
 * ingest_otlp_json_decode() are reentrant. The Kafka consumer and the
 * OTLP/HTTP and OTLP/gRPC receivers run threads of their own: their rules
 * open their sections below.
 */
#ifndef PMRAG_INGEST_H
#define PMRAG_INGEST_H

#include "core.h"
#include "core_http.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ingest_event.time_ns of a record without a time. */
#define INGEST_NO_TIME INT64_MIN
/* Default cap on the size of one record (a CSV record, a JSON line, an XES
 * event's attributes). */
#define INGEST_MAX_RECORD ((size_t)64 << 20)

typedef enum {
    INGEST_FMT_AUTO = 0,
    INGEST_FMT_CSV,
    INGEST_FMT_JSONL,
    INGEST_FMT_XES,
    INGEST_FMT_OTLP_JSON,
    INGEST_FMT__COUNT
} ingest_format;

/* "auto", "csv", "jsonl", "xes", "otlp-json"; "?" for a value out of
 * range. */
const char *ingest_format_name(ingest_format f);
/* The inverse of ingest_format_name(); CORE_EUSAGE for another name (then
 * *out is not written). */
int ingest_format_parse(const char *s, ingest_format *out);

typedef struct ingest_attr {
    const char *key;
    const char *val;
} ingest_attr;

/* What kind of record an event came from. A file's rows are records of
 * no kind of their own; OTLP tells spans, log records and the events
 * inside a span (Span.events) apart, which the ordering of a case's
 * events needs (a span is never placed before its parent). */
typedef enum ingest_kind {
    INGEST_RECORD = 0,
    INGEST_SPAN,
    INGEST_LOG,
    INGEST_SPAN_EVENT,
} ingest_kind;

typedef struct ingest_event {
    const char *case_id;      /* never NULL or empty */
    const char *activity;     /* never NULL; may be "" (an empty message; from OTLP a span without
                                 a name, a log without a body) */
    int64_t time_ns;          /* Unix time in ns; INGEST_NO_TIME when none */
    uint64_t line;            /* 1-based line where the record starts (XES: the
                                 line of <event>; OTLP: the request's line) */
    const ingest_attr *attrs; /* the other fields, as strings, in file order */
    uint32_t nattrs;
    ingest_kind kind;
    int64_t end_ns; /* a span's end time in Unix ns; 0 when unknown (as OTLP's 0) */
} ingest_event;

/* Options of ingest_file_open(); zero-initialised is the default. Strings
 * are copied by ingest_file_open(). */
typedef struct ingest_file_opts {
    /*
     * AUTO: by the extension once a ".gz" is stripped (.csv; .jsonl,
     * .ndjson and .json; .xes), else by content: the first non-space byte
     * '<' is XES, '{' is JSONL, anything else CSV. A JSON file whose first
     * line mentions "resourceSpans" or "resourceLogs" is OTLP JSON. gzip is
     * always recognised by content (magic bytes 1f 8b), never by name.
     */
    ingest_format format;
    /*
     * Keys (CSV header columns, JSONL keys, XES attribute keys) of the case
     * id, activity and time. NULL: the first present of "case_id" or
     * "case:concept:name"; "activity" or "concept:name"; "timestamp" or
     * "time:timestamp". Case and activity are required: a CSV header
     * without them is an error, a JSONL or XES record without them is
     * malformed. The time may be missing or empty (INGEST_NO_TIME) unless
     * time_key is given. In XES, trace attributes are seen with a "case:"
     * prefix, so the trace's concept:name is "case:concept:name".
     * Not used for OTLP JSON (see case_attrs).
     */
    const char *case_key;
    const char *activity_key;
    const char *time_key;
    /* Count and skip malformed records instead of failing on the first. */
    bool skip_bad;
    /* A WARN per skipped record (the first 20), then one NOTE with the
     * total when the file ends. */
    core_logger log;
    /* OTLP: attribute keys that give the case id, in order of preference;
     * NULL picks {"case.id", "session.id", "enduser.id"}. The span's or
     * log's own attributes are searched first, then the resource's; the
     * trace id (hex) is the fallback. */
    const char *const *case_attrs;
    size_t ncase_attrs;
    /* Largest record in bytes; 0 picks INGEST_MAX_RECORD. A larger one is
     * a CORE_ELIMIT error naming its line (never skipped). */
    size_t max_record;
} ingest_file_opts;

typedef struct ingest_file ingest_file;

/*
 * Opens path, detects its format (see ingest_file_opts.format) and, for
 * CSV, reads the header. On success *out is owned by the caller (free with
 * ingest_file_close). Errors: a negated errno when the file cannot be read,
 * CORE_EFORMAT for a CSV header without a required column, CORE_ECORRUPT
 * for broken gzip data; why gets "PATH: ..." or "PATH:LINE: ...". o may be
 * NULL (the defaults).
 */
int ingest_file_open(const char *path, const ingest_file_opts *o, ingest_file **out, char *why,
                     size_t whylen);

/*
 * Reads the next event: returns 1 with *ev filled, 0 at the end of the
 * file, or a negative code with why, e.g.
 *     "PATH:LINE: field 'timestamp': not an ISO 8601 time: '2026-13-01'"
 * (always the path, the line or byte offset, and the field at fault when
 * there is one). A malformed record is CORE_EFORMAT, and the next call
 * goes on after it; with skip_bad it is counted and skipped instead.
 * Other errors (I/O, corrupt gzip, XML syntax, CORE_ELIMIT) end the file:
 * later calls return the same error again.
 */
int ingest_file_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen);

typedef struct ingest_file_stats {
    uint64_t records; /* records read, good and bad (OTLP: lines) */
    uint64_t events;  /* events returned */
    uint64_t bad;     /* malformed records skipped */
    uint64_t bytes;   /* bytes of the file (compressed) read so far */
} ingest_file_stats;

void ingest_file_get_stats(const ingest_file *f, ingest_file_stats *out);
/* The format in use (never INGEST_FMT_AUTO). */
ingest_format ingest_file_format(const ingest_file *f);
/* Closes the file; f may be NULL. */
void ingest_file_close(ingest_file *f);

/*
 * Parses a time into Unix nanoseconds. Accepts ISO 8601 / RFC 3339:
 * "2026-11-21T07:36:47.499635+00:00", "...Z", no zone (taken as UTC), ' '
 * instead of 'T', offsets as +05:30, -0800 or +05 (an optional space before
 * the zone, and "UTC" or "GMT" for Z), fractional seconds of any length
 * after '.' or ',' (truncated to ns), minutes without seconds, a date
 * alone. Also a plain integer: Unix seconds, ms, us or ns by magnitude
 * (below 1e11 seconds, 1e14 ms, 1e17 us, else ns), and seconds with a
 * decimal fraction ("1700000000.25"). Surrounding spaces are ignored.
 * CORE_EFORMAT when s is not such a time or lies outside what int64 ns
 * hold (1677-09-21 to 2262-04-11); *ns is written only on success.
 */
int ingest_parse_time(const char *s, size_t n, int64_t *ns);

/* Formats ns as "2026-11-21T07:36:47.499635000Z" into buf (len >= 32;
 * shorter buffers get a truncated text). INGEST_NO_TIME gives "". */
void ingest_format_time(int64_t ns, char *buf, size_t len);

/*
 * Decodes one OTLP JSON ExportTraceServiceRequest or
 * ExportLogsServiceRequest (what the OpenTelemetry Collector's file exporter
 * writes, one per line) and calls emit for every span and log record, in
 * document order. The event passed to emit is valid only during the call
 * (its line is 0). A non-zero return from emit stops decoding and is
 * returned.
 *
 * Spans (resourceSpans[].scopeSpans[].spans[], also the older
 * instrumentationLibrarySpans): activity = name, time = startTimeUnixNano,
 * end_ns = endTimeUnixNano. Each event of a span (spans[].events[]:
 * add_event, recorded exceptions) follows its span as an event of its
 * own: activity = its name, time = its timeUnixNano (the span's start when
 * it has none), attributes = its own, then the span's (so that it has the
 * span's case and code.* attributes), then the span's "trace_id",
 * "span_id" and "scope.name".
 * Log records (resourceLogs[].scopeLogs[].logRecords[]): activity =
 * body (a string as it is, other values as compact JSON; eventName when
 * there is no body), time = timeUnixNano, else observedTimeUnixNano.
 * The case id is the first of case_attrs (NULL: "case.id", "session.id",
 * "enduser.id") found with a non-empty value in the record's attributes,
 * then in the resource's attributes, else the trace id as hex.
 * Attributes: the record's own attributes (all of them, values rendered as
 * strings, arrays and maps as compact JSON), then "trace_id", "span_id",
 * "parent_span_id" (spans), "severity_text", "severity_number" (logs),
 * "scope.name", each when present. Resource attributes are not copied.
 * Unknown fields are ignored.
 *
 * Returns 0, CORE_EFORMAT with why (the JSON column, or the record's path
 * in the document and the field, e.g. "resourceSpans[0].scopeSpans[0]
 * .spans[3]: field 'startTimeUnixNano': not a time: 'x'"), including for a
 * record with no case id at all. buf need not be NUL-terminated.
 */
int ingest_otlp_json_decode(const char *buf, size_t len, const char *const *case_attrs,
                            size_t ncase, int (*emit)(void *ud, const ingest_event *ev), void *ud,
                            char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* Kafka                                                               */
/* ------------------------------------------------------------------ */

/*
 * A consumer group member over librdkafka, and librdkafka's mock cluster
 * for tests and for trying pmrag without a Kafka.
 *
 * Delivery: at least once, and exactly where the caller's state is. The
 * consumer stores an offset only when the caller says the state that
 * applied the message is committed (ingest_kafka_done); librdkafka's
 * auto-commit then sends stored offsets to the group. On an assignment the
 * caller's start_offset hook can name where a partition resumes (the
 * offset the state store has applied), which wins over the group's
 * committed offset, so state and input stay in step across restarts.
 *
 * Threading: an ingest_kafka belongs to one thread (the "poll thread"):
 * ingest_kafka_poll, ingest_kafka_done and ingest_kafka_free are called
 * from it, and every callback (on_msg, start_offset, assigned, revoked,
 * the logger) runs on it, inside ingest_kafka_poll or ingest_kafka_free
 * (librdkafka's log lines are queued to it; only lines it writes while
 * ingest_kafka_new runs may come from its own threads). get_stats may be
 * called from any thread. The mock cluster runs on threads of its own;
 * its functions are for one thread at a time.
 */

/* The mock cluster (embedded in the daemon when no brokers are configured,
 * and `pmrag kafka-mock`). */
typedef struct ingest_kafka_mock ingest_kafka_mock;

/*
 * Starts a cluster of `brokers` brokers (1 to 64) listening on ephemeral
 * ports of 127.0.0.1. On success *out is owned by the caller (free with
 * ingest_kafka_mock_free). Errors: CORE_EUSAGE for a broker count out of
 * range, a negated errno when the brokers cannot start; why says which.
 */
int ingest_kafka_mock_new(int brokers, ingest_kafka_mock **out, char *why, size_t whylen);
/* "127.0.0.1:port,..." for every broker: the bootstrap.servers of every
 * client of this cluster. Valid while m lives. */
const char *ingest_kafka_mock_bootstrap(const ingest_kafka_mock *m);
/*
 * Creates a topic with `partitions` partitions (1 to 10000). Topics the
 * mock creates by itself (when a client produces to an unknown one) get a
 * default partition count, so create them explicitly. Errors: CORE_EUSAGE
 * for an empty name or a count out of range, -EEXIST when the topic
 * exists; why names the topic.
 */
int ingest_kafka_mock_topic(ingest_kafka_mock *m, const char *topic, int partitions, char *why,
                            size_t whylen);
/* The rd_kafka_mock_cluster_t *, for fault injection in tests (brokers
 * down and up, request errors). Valid while m lives. */
void *ingest_kafka_mock_cluster(ingest_kafka_mock *m);
/* Stops the brokers (clients see them disconnect); m may be NULL. */
void ingest_kafka_mock_free(ingest_kafka_mock *m);

/* The consumer. */
typedef struct ingest_kafka ingest_kafka;

/* One message; every pointer is valid only during the on_msg call. */
typedef struct ingest_kafka_msg {
    const char *topic;
    int32_t partition;
    int64_t offset;
    const void *key; /* NULL when the message has no key */
    size_t klen;
    const void *val; /* NULL for a tombstone */
    size_t vlen;
    int64_t timestamp_ms; /* create or log-append time; -1 when the message has none */
} ingest_kafka_msg;

/* Options of ingest_kafka_new(); everything is copied or used during the
 * call only, except the callbacks and ud. */
typedef struct ingest_kafka_opts {
    const char *bootstrap;     /* bootstrap.servers: "host:port,..." (required) */
    const char *group;         /* group.id (required) */
    const char *const *topics; /* at least one; "^regex" subscribes by pattern */
    size_t ntopics;
    /*
     * librdkafka properties as "key=value", applied last (security.protocol,
     * sasl.*, session.timeout.ms, auto.offset.reset, ...). An unknown key,
     * an invalid value or a key pmrag sets itself (bootstrap.servers,
     * group.id, enable.auto.commit, enable.auto.offset.store, log.queue) is
     * CORE_EUSAGE with why naming the key; values are never shown, as they
     * may be secrets.
     */
    const char *const *props;
    size_t nprops;
    /*
     * Where a newly assigned partition starts: the offset the state store
     * has applied (the next one to read), or -1 for the group's committed
     * offset (and auto.offset.reset=earliest when the group has none).
     * NULL: always -1.
     */
    int64_t (*start_offset)(void *ud, const char *topic, int32_t partition);
    /*
     * Told about assignment changes (for state handover); may be NULL.
     * assigned is called after the partition is assigned; revoked BEFORE it
     * is unassigned, so the caller can flush and commit its state and call
     * ingest_kafka_done for it first (the offsets stored there are
     * committed as the partition leaves). On a lost assignment (the member
     * was dropped from the group) revoked is called too, but offsets can
     * no longer be committed.
     */
    void (*assigned)(void *ud, const char *topic, int32_t partition);
    void (*revoked)(void *ud, const char *topic, int32_t partition);
    void *ud;
    int stats_interval_ms; /* librdkafka statistics (lag, up); 0 = 5000 */
    core_logger log;       /* librdkafka's own log lines, errors, assignments */
} ingest_kafka_opts;

/*
 * Creates the consumer and subscribes (the group is joined in the first
 * polls): a cooperative-sticky group member with enable.auto.commit=true
 * and enable.auto.offset.store=false. On success *out is owned by the
 * caller (free with ingest_kafka_free). Errors: CORE_EUSAGE with why
 * naming the option or property at fault.
 */
int ingest_kafka_new(const ingest_kafka_opts *o, ingest_kafka **out, char *why, size_t whylen);

/*
 * Polls up to max messages, waiting at most timeout_ms (negative: 0) for
 * the first and not waiting for the rest beyond what is already fetched.
 * Calls on_msg per message in order (per partition, in offset order); the
 * message's memory is valid only during the call. Rebalances, statistics
 * and logs are served here too.
 *
 * on_msg returns 0 to take the message. Anything else stops the batch
 * without taking it: its partition is rewound to it, so that the next poll
 * delivers it again (meant for backpressure and I/O errors; a message that
 * can never be applied must be counted and taken, or it comes back
 * forever). A negative value is then returned, a positive one ends the
 * batch early.
 *
 * Returns the number of messages taken, or a negative code: the on_msg
 * return as above, -EIO for a fatal consumer error, -EACCES for an
 * authentication or authorization failure (both logged, and returned by
 * every later poll). Partition EOF and transient broker errors are not
 * errors (logged, counted in the stats).
 */
int ingest_kafka_poll(ingest_kafka *k, uint32_t max, int timeout_ms,
                      int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud);
/*
 * Reads topic[partition] from offset from (or its first one, when from
 * is older) to its end as of the call, with a consumer of its own (the
 * connection and security settings of o; no group membership, nothing
 * committed), calling on_msg for each message in order; on_msg returning
 * non-zero stops the read with that code. *next is the offset after the
 * last message read. Returns 0, CORE_ENOTFOUND for an unknown topic or
 * partition, -ETIMEDOUT when the end is not reached in timeout_ms, -EIO
 * for other errors (why says which). For restoring state from a
 * changelog topic. Any thread.
 */
int ingest_kafka_read_partition(const ingest_kafka_opts *o, const char *topic, int32_t partition,
                                int64_t from, int timeout_ms,
                                int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud,
                                int64_t *next, char *why, size_t whylen);
/*
 * A reader of every partition of one topic (those it has when created),
 * outside any group: for knowledge every instance merges (the counts
 * learnt online). start gives each partition's first offset (-1: its
 * beginning). Polling never waits; it returns the messages taken (at most
 * max). Connection and security settings come from o. One thread.
 */
typedef struct ingest_kafka_tail ingest_kafka_tail;
int ingest_kafka_tail_new(const ingest_kafka_opts *o, const char *topic,
                          int64_t (*start)(void *ud, int32_t partition), void *ud,
                          ingest_kafka_tail **out, char *why, size_t whylen);
int ingest_kafka_tail_poll(ingest_kafka_tail *t, uint32_t max,
                           int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud);
void ingest_kafka_tail_free(ingest_kafka_tail *t);
/* Ends the wait of an ingest_kafka_poll in progress (or the next one's)
 * at once, for a poll thread that has other input too. Any thread. */
void ingest_kafka_wake(ingest_kafka *k);
/* Stops fetching from every assigned partition (pause true; also those
 * assigned later) or starts again. Polls go on meanwhile (the group
 * membership, rebalances) and return no messages of paused partitions.
 * Poll thread. */
void ingest_kafka_pause(ingest_kafka *k, bool pause);

/* The last applied message of one partition. */
typedef struct ingest_kafka_pos {
    const char *topic;
    int32_t partition;
    int64_t offset;
} ingest_kafka_pos;

/*
 * Called after the state that applied these messages is committed: stores
 * offset+1 for each (topic, partition, last applied offset); auto-commit
 * sends them to the group (within auto.commit.interval.ms, and when the
 * partition is revoked or the consumer closes). A partition given twice
 * keeps the larger offset. A partition no longer assigned is skipped (its
 * new owner resumes from its own state). Returns 0, or CORE_EUSAGE for a
 * negative offset (nothing is stored then).
 */
int ingest_kafka_done(ingest_kafka *k, const ingest_kafka_pos *pos, size_t n);

typedef struct ingest_kafka_stats {
    uint64_t messages; /* messages taken by on_msg */
    uint64_t errors;   /* transient broker, fetch and commit errors */
    /* Messages in the assigned partitions past what was done (or, before
     * anything was done there, past the start offset or the committed
     * offset), summed from the latest statistics; -1 while unknown. */
    int64_t lag;
    /* A broker is reachable and the group coordinator known, and the
     * member has an assignment or is joining (from the latest statistics;
     * false before the first). */
    bool up;
    uint32_t assigned; /* partitions currently assigned */
} ingest_kafka_stats;

/* A snapshot of the counters; any thread. */
void ingest_kafka_get_stats(ingest_kafka *k, ingest_kafka_stats *out);

/*
 * Leaves the group: revoked is called for every assigned partition, the
 * stored offsets are committed, the consumer closes (this waits for the
 * group coordinator, up to session.timeout.ms when it is unreachable).
 * k may be NULL.
 */
void ingest_kafka_free(ingest_kafka *k);

/* ------------------------------------------------------------------ */
/* In-memory decoders (OTLP/HTTP and Kafka bodies)                     */
/* ------------------------------------------------------------------ */

/*
 * Decoders of one message held in memory: an OTLP/HTTP request body, a
 * Kafka record's value. They keep no state between calls and are
 * reentrant; buf is borrowed for the call. Events passed to emit are valid
 * only during that call (their line is 0).
 */

typedef enum { INGEST_OTLP_TRACES, INGEST_OTLP_LOGS } ingest_otlp_kind;
typedef enum { INGEST_ENC_PROTO, INGEST_ENC_JSON } ingest_encoding;

/* Options of the in-memory decoders; zero-initialised (or NULL) is the
 * default. Borrowed for the call. */
typedef struct ingest_decode_opts {
    /* OTLP: attribute keys that give the case id, in order of preference;
     * NULL: "case.id", "session.id", "enduser.id". */
    const char *const *case_attrs;
    size_t ncase;
    /* The record's own attributes kept per record; 0 picks 128. Later ones
     * are dropped (the record counts as truncated), but a dropped case
     * attribute still gives the case id. The derived attributes (trace_id,
     * span_id, ...) always come. */
    uint32_t max_attrs;
    /* Longest attribute key or value and activity, in bytes; 0 picks
     * 8192. Longer ones are cut (at a UTF-8 character boundary) and the
     * record counts as truncated. A case id, and the key it comes from,
     * is never cut (see max_case_id). */
    size_t max_str;
    /* Longest case id in bytes; a record with a longer one is rejected
     * (never cut: two cases would become one). 0: no limit. */
    size_t max_case_id;
} ingest_decode_opts;

typedef struct ingest_decode_result {
    uint64_t accepted;       /* records emitted (emit returned 0), span events included */
    uint64_t rejected;       /* records skipped as unusable */
    uint64_t truncated;      /* emitted records with a value cut or attributes dropped */
    char reject_reason[256]; /* the first rejected record's reason, "" if none */
} ingest_decode_result;

/*
 * Decodes an ExportTraceServiceRequest (kind TRACES) or
 * ExportLogsServiceRequest (LOGS), as protobuf or OTLP JSON, and calls emit
 * once per span (then once per event of the span) or log record in body
 * order. The event rules are those of
 * ingest_otlp_json_decode() (activity, time, case id, attributes including
 * trace_id, span_id, parent_span_id, severity_text, severity_number,
 * scope.name; code.* attributes stay plain attributes), for both
 * encodings alike, with these differences: all-zero trace and span ids
 * count as absent, and the limits of o apply. Protobuf ids become lowercase
 * hex, bytes values base64 (as in OTLP JSON), doubles their shortest text
 * ("NaN", "Infinity" and "-Infinity" as in OTLP JSON).
 *
 * The whole body is checked before the first emit: an undecodable body is
 * CORE_EFORMAT with why naming the byte offset and the path of the field at
 * fault (protobuf: "offset 57: resource_spans[0].scope_spans[0].spans[2]:
 * field 7 (start_time_unix_nano): wire type 0 (varint), expected 1
 * (64-bit)"; JSON: "offset 19: invalid JSON: ...", or a path such as
 * "resourceSpans[0]: field 'scopeSpans': not an array"), and nothing is
 * emitted. Unknown protobuf fields are skipped; a known field with another
 * wire type, a group, or AnyValue nesting deeper than 64 is an error. A
 * body of the other kind (logs sent as traces) is CORE_EFORMAT too: in
 * JSON by its top-level key, in protobuf because the records' fields do
 * not line up (why then starts "not an ExportTraceServiceRequest but an
 * ExportLogsServiceRequest"); a protobuf record that carries none of the
 * telling fields cannot be told apart. An empty body is a valid request
 * without records (protobuf; "{}" in JSON).
 *
 * A record that is unusable on its own (no case id and no trace id, a time
 * that is not a Unix time in ns) is rejected: counted in res, its reason
 * kept, and decoding goes on (OTLP partial success). A non-zero return
 * from emit stops decoding and is returned. o may be NULL. res may be
 * NULL; when given, it is written (counts so far) whatever the return.
 */
int ingest_otlp_decode(ingest_otlp_kind kind, ingest_encoding enc, const void *buf, size_t len,
                       const ingest_decode_opts *o, int (*emit)(void *ud, const ingest_event *ev),
                       void *ud, ingest_decode_result *res, char *why, size_t whylen);

/*
 * Appends the response body of an export to out: protobuf
 * Export{Trace,Logs}ServiceResponse (empty when rejected is 0, else
 * partial_success with rejected_spans / rejected_log_records and
 * error_message), or OTLP JSON ("{}", or
 * {"partialSuccess":{"rejectedSpans":"3","errorMessage":"..."}}; for logs
 * "rejectedLogRecords"). message may be NULL. The protobuf body may be
 * empty, so out->data may stay NULL when nothing was appended before.
 */
void ingest_otlp_response(ingest_otlp_kind kind, ingest_encoding enc, uint64_t rejected,
                          const char *message, core_buf *out);

/*
 * Decodes one event written as a JSON object (the "json" encoding of
 * Kafka records): {"case_id", "activity", "timestamp", ...} or PM4Py's
 * "case:concept:name", "concept:name", "time:timestamp" (the first name
 * wins when both are there; the other stays an attribute). The case id must
 * be a non-empty string, the activity a string (may be empty); the
 * timestamp is optional, an ISO 8601 string or a number (ingest_parse_time
 * rules). A null is as if the key were absent. Every other key becomes an
 * attribute in document order, strings as they are, other values as
 * compact JSON, subject to o's max_attrs and max_str (cut silently:
 * there is no result to count in). o->case_attrs is not used. Calls emit
 * once and returns its result, or CORE_EFORMAT with why naming the field
 * ("field 'case_id': missing", "field 'activity': not a string") or the
 * offset ("offset 17: invalid JSON: ...").
 */
int ingest_event_json_decode(const void *buf, size_t len, const ingest_decode_opts *o,
                             int (*emit)(void *ud, const ingest_event *ev), void *ud, char *why,
                             size_t whylen);

/*
 * Kafka records (kafka.input_encoding): OTLP protobuf or OTLP JSON export
 * requests, or one event as a JSON object. AUTO tells them apart by the
 * value: a JSON object whose first key is resourceSpans or resourceLogs
 * (or resource_spans, resource_logs) is OTLP JSON, another JSON object is
 * one event, anything else is taken for OTLP protobuf (whose first byte,
 * the tag of field 1, is 0x0a, never '{').
 */
typedef enum {
    INGEST_KAFKA_AUTO,
    INGEST_KAFKA_OTLP_PROTO,
    INGEST_KAFKA_OTLP_JSON,
    INGEST_KAFKA_JSON
} ingest_kafka_encoding;

/* "auto", "otlp_proto", "otlp_json" or "json"; CORE_EUSAGE otherwise. */
int ingest_kafka_encoding_parse(const char *name, ingest_kafka_encoding *out);
/*
 * Decodes one record's value in enc (AUTO: detected as above): OTLP of
 * the given kind through ingest_otlp_decode (res as there), or one event
 * through ingest_event_json_decode (res counts it accepted when emit
 * returned 0). Errors and emit's result as those functions'.
 */
int ingest_kafka_decode(const void *val, size_t len, ingest_kafka_encoding enc,
                        ingest_otlp_kind kind, const ingest_decode_opts *o,
                        int (*emit)(void *ud, const ingest_event *ev), void *ud,
                        ingest_decode_result *res, char *why, size_t whylen);

/*
 * Decompresses gzip data (one member or several concatenated, as gzip -c
 * a b writes) or zlib-wrapped deflate, appending to out. At most max bytes
 * come out: more is CORE_ELIMIT, found without inflating the rest (so a
 * small body that would inflate to gigabytes costs max bytes). Bad or
 * truncated data is CORE_ECORRUPT with why naming the input offset. On
 * error out is left as it was.
 */
int ingest_gunzip(const void *buf, size_t len, size_t max, core_buf *out, char *why, size_t whylen);

/* ------------------------------------------------------------------ */
/* OTLP/HTTP receiver                                                  */
/* ------------------------------------------------------------------ */

/*
 * An OTLP/HTTP receiver on core_http: POST /v1/traces and /v1/logs with
 * Content-Type application/x-protobuf or application/json (parameters
 * such as "; charset=utf-8" ignored) and Content-Encoding gzip or none,
 * bodies with a Content-Length or chunked. Each request is decoded with
 * ingest_otlp_decode() and its events handed to the batch function in one
 * call.
 *
 * Answers: 200 with the Export*ServiceResponse in the request's encoding
 * (partial success when records were rejected, with the first reason);
 * 400 (text/plain reason) for a body that does not decode, gzip that is
 * broken; 404 for other paths; 405 for other methods; 413 for a body over
 * max_body on the wire or once decompressed; 415 for another Content-Type
 * or Content-Encoding; 503 + Retry-After: 1 when the batch function gives
 * -EAGAIN, 429 + Retry-After: 1 for CORE_ELIMIT; 500 for its other errors;
 * with a token_file, 401 (no Retry-After: final) for a request without the
 * right bearer token, before its body is read.
 *
 * Threading: the batch function is called from the server's pool threads
 * (`threads` of them, concurrently): it must be thread-safe. It may block
 * (the daemon returns after its state commit); that request's client waits.
 * ingest_otlp_http_get_stats() may be called from any thread.
 */
typedef struct ingest_otlp_http ingest_otlp_http;

/*
 * The options of both OTLP receivers, HTTP and gRPC (below): the daemon
 * gives them the same limits, token, certificate and decoding rules, so
 * one struct says them once. Zero-initialised is the default; copied by
 * ingest_otlp_http_start() and ingest_otlp_grpc_start().
 */
typedef struct ingest_otlp_recv_opts {
    /* "host:port" (core_http_opts.listen's forms); NULL: "127.0.0.1:4318"
     * for HTTP, "127.0.0.1:4317" for gRPC. */
    const char *listen;
    /* Largest body (a gRPC call's message) in bytes, as received and
     * again after gzip decompression; 0: 64 MiB. */
    size_t max_body;
    unsigned threads; /* threads that decode and call the batch function; 0: 2 */
    /* Connection limits and slow-client timeouts (core_http_limits);
     * zero fields: its defaults. */
    core_http_limits limits;
    /* Case-id attribute keys in order of preference (ingest_decode_opts);
     * NULL: "case.id", "session.id", "enduser.id". */
    const char *const *case_attrs;
    size_t ncase;
    core_logger log;    /* from the receiver's threads */
    uint32_t max_attrs; /* ingest_decode_opts.max_attrs; 0: its default */
    size_t max_str;     /* ingest_decode_opts.max_str; 0: its default */
    size_t max_case_id; /* ingest_decode_opts.max_case_id; 0: none */
    /* core_http_opts.token_file: every request needs "Authorization:
     * Bearer <token>", else 401 or UNAUTHENTICATED (final for an OTLP
     * exporter: the data is dropped, not retried). NULL or "": none. */
    const char *token_file;
    /* PEM certificate and key (core_http_opts.tls_cert and tls_key): HTTPS
     * only; for gRPC, TLS 1.2 and 1.3 with ALPN "h2" required. NULL or "":
     * plain text (HTTP/2 with prior knowledge for gRPC). */
    const char *tls_cert;
    const char *tls_key;
    /* Asked before a body is decoded (with the batch function's ud):
     * true refuses it at once (503 + Retry-After: 1; UNAVAILABLE with a
     * RetryInfo), so that refusing a request costs next to nothing when
     * the queue is full. NULL: never. */
    bool (*busy)(void *ud);
    /* Asked earlier, when a request's headers have arrived: true refuses
     * it the same way without reading the body (HTTP also closes the
     * connection), so that refusing costs no memory (the daemon's memory
     * limit, its full state store). NULL: never. */
    bool (*busy_early)(void *ud);
} ingest_otlp_recv_opts;

/*
 * Called once per request that has events, with all of them in body order
 * (a request with none gives 200 without a call), and the request's id:
 * INGEST_REQUEST_ID bytes, a 128-bit hash of its signal kind and its body
 * after decompression, the same for every retry of one request (a
 * duplicate check). evs and everything they
 * point to are valid only during the call. Returns 0 when they are accepted
 * (the daemon returns after its state commit), -EAGAIN when the ingest
 * queue is full (503 + Retry-After: 1), CORE_ELIMIT when the client is over
 * a rate limit (429 + Retry-After: 1), another negative code for a failure
 * (500). From a pool thread.
 */
#define INGEST_REQUEST_ID 16
typedef int (*ingest_otlp_batch_fn)(void *ud, ingest_otlp_kind kind, const ingest_event *evs,
                                    size_t n, const uint8_t *request_id);

/*
 * Starts the receiver. o may be NULL (the defaults); its strings are
 * copied. fn(ud, ...) may be called as soon as this returns, until
 * ingest_otlp_http_stop() returns. Returns 0 and *out, or core_http_start()'s
 * errors with the address in why ("listen 127.0.0.1:4318: Address already
 * in use"), and the file for a token, certificate or key.
 */
int ingest_otlp_http_start(const ingest_otlp_recv_opts *o, ingest_otlp_batch_fn fn, void *ud,
                           ingest_otlp_http **out, char *why, size_t whylen);

/* The bound "host:port" (the real port when 0 was asked); valid until
 * ingest_otlp_http_stop(). */
const char *ingest_otlp_http_address(const ingest_otlp_http *s);

typedef struct ingest_otlp_http_stats {
    uint64_t requests;        /* every request answered, whatever the status */
    uint64_t accepted_events; /* events the batch function accepted */
    uint64_t rejected_events; /* records rejected by the decoder (partial success) */
    uint64_t
        truncated_events;  /* accepted with attributes dropped or values cut (max_attrs, max_str) */
    uint64_t bad_requests; /* 400, 404, 405 */
    uint64_t too_large;    /* 413, on the wire or after decompression */
    uint64_t unsupported;  /* 415 */
    uint64_t throttled;    /* 503 and 429 */
    uint64_t unauthorized; /* 401: no or a wrong bearer token */
    uint64_t errors;       /* 500: failed on our side */
    /* Connections closed for sending too slowly (header_timeout,
     * body_timeout), and stalled ones closed to make room (core_http_stats). */
    uint64_t timed_out;
    uint64_t evicted;
} ingest_otlp_http_stats;

/* A snapshot of the counters (each atomic). Any thread. */
void ingest_otlp_http_get_stats(ingest_otlp_http *s, ingest_otlp_http_stats *out);

/* Stops accepting, answers the requests in progress (their batch calls
 * return first), frees s. NULL is fine. Not from the batch function. */
void ingest_otlp_http_stop(ingest_otlp_http *s);

/* ------------------------------------------------------------------ */
/* OTLP/gRPC receiver                                                  */
/* ------------------------------------------------------------------ */

/*
 * An OTLP/gRPC receiver: the unary Export of
 * /opentelemetry.proto.collector.trace.v1.TraceService/Export and
 * /opentelemetry.proto.collector.logs.v1.LogsService/Export, over HTTP/2
 * (nghttp2; "h2" by ALPN over TLS, prior knowledge in plain text) with
 * gRPC's framing written here: content-type application/grpc or
 * application/grpc+proto, one length-prefixed protobuf message per call,
 * grpc-encoding gzip or identity. Each call is decoded with
 * ingest_otlp_decode() and its events handed to the batch function, the
 * same one, with the same request id, as the HTTP receiver's.
 *
 * Answers (the grpc-status trailer; grpc-message percent-encoded): OK with
 * the Export*ServiceResponse (partial success when records were rejected,
 * with the first reason); INVALID_ARGUMENT for a message that does not
 * decode (and HTTP status 415 for a content-type that is not gRPC's);
 * UNIMPLEMENTED for another path or method, or another grpc-encoding;
 * INTERNAL for broken framing or gzip, and for the batch function's other
 * errors; RESOURCE_EXHAUSTED for a message over max_body (on the wire or
 * decompressed: final, no retry information); UNAVAILABLE with a
 * google.rpc.RetryInfo of 1 s (in the Status of grpc-status-details-bin,
 * and alone in google.rpc.retryinfo-bin) when the batch
 * function gives -EAGAIN or busy / busy_early say so, RESOURCE_EXHAUSTED
 * with the same RetryInfo for CORE_ELIMIT (OTLP exporters retry these two,
 * after the delay); with a token_file, UNAUTHENTICATED (final) for a call
 * without "authorization: Bearer <token>", before its message is read.
 * Refusals known from the headers are answered at once and the rest of
 * the request is reset (RST_STREAM NO_ERROR), so no body is read for them.
 *
 * Limits, as the HTTP receiver's: max_body; at most 16 concurrent calls
 * per connection; limits.max_conns (and max_conns_per_addr): a new
 * connection past them closes the oldest connection that has not yet sent
 * a complete request, else it is itself closed at once; a connection that
 * has not completed its TLS handshake and HTTP/2 preface header_timeout
 * seconds after it opened, or has a call whose message has not all
 * arrived body_timeout seconds after its headers, is closed; one without a
 * call for conn_timeout seconds is sent GOAWAY and closed.
 *
 * Threading and ownership: one I/O thread of the receiver's own does all
 * socket work and owns every connection and its nghttp2 session (poll(2);
 * nothing else touches them); a pool of `threads` threads decodes complete
 * calls and calls the batch function, which may block (the daemon returns
 * after its state commit) while the I/O thread goes on serving the other
 * calls and connections. The batch function must therefore be thread-safe.
 * A call's body is owned by the I/O thread until it is handed to a pool
 * thread, and handed back with the answer; a connection closed meanwhile
 * is freed only once its last call is back. The options' strings are
 * copied by ingest_otlp_grpc_start(). ingest_otlp_grpc_get_stats() may be
 * called from any thread.
 */
typedef struct ingest_otlp_grpc ingest_otlp_grpc;

/*
 * Starts the receiver: binds, then starts its threads. o may be NULL (the
 * defaults). fn(ud, ...) may be called as soon as this returns, until
 * ingest_otlp_grpc_stop() returns. Returns 0 and *out (owned by the
 * caller: ingest_otlp_grpc_stop), or an error with why naming the address
 * ("listen 127.0.0.1:4317: Address already in use") or the token,
 * certificate or key file.
 */
int ingest_otlp_grpc_start(const ingest_otlp_recv_opts *o, ingest_otlp_batch_fn fn, void *ud,
                           ingest_otlp_grpc **out, char *why, size_t whylen);

/* The bound "host:port" (the real port when 0 was asked); valid until
 * ingest_otlp_grpc_stop(). */
const char *ingest_otlp_grpc_address(const ingest_otlp_grpc *s);

/* gRPC status codes 0 (OK) to 16 (UNAUTHENTICATED). */
#define INGEST_GRPC_CODES 17
/* "OK", "CANCELLED", ..., "UNAUTHENTICATED" for 0 to 16; "?" otherwise. */
const char *ingest_grpc_code_name(int code);

typedef struct ingest_otlp_grpc_stats {
    uint64_t requests;                   /* every call answered, whatever its status */
    uint64_t by_code[INGEST_GRPC_CODES]; /* calls answered, by grpc-status */
    uint64_t accepted_events;            /* events the batch function accepted */
    uint64_t rejected_events;            /* records rejected by the decoder (partial success) */
    uint64_t truncated_events;           /* accepted with attributes dropped or values cut */
    uint64_t too_large;                  /* RESOURCE_EXHAUSTED for max_body (in by_code too) */
    /* Connections closed for header_timeout or body_timeout; stalled ones
     * closed to make room; new ones closed at once past the limits. */
    uint64_t timed_out;
    uint64_t evicted;
    uint64_t refused_conns;
} ingest_otlp_grpc_stats;

/* A snapshot of the counters (each atomic). Any thread. */
void ingest_otlp_grpc_get_stats(ingest_otlp_grpc *s, ingest_otlp_grpc_stats *out);

/*
 * Stops accepting, tells every connection GOAWAY, answers calls whose
 * message is still arriving with UNAVAILABLE, waits for the calls the
 * batch function holds and sends their answers (at most 5 s more for slow
 * readers), closes everything, joins the threads, frees s. NULL is fine.
 * Not from the batch function.
 */
void ingest_otlp_grpc_stop(ingest_otlp_grpc *s);

#ifdef __cplusplus
}
#endif
#endif
