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
 * ingest_otlp_json_decode() are reentrant.
 */
#ifndef PMRAG_INGEST_H
#define PMRAG_INGEST_H

#include "core.h"

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

typedef struct ingest_event {
    const char *case_id;      /* never NULL or empty */
    const char *activity;     /* never NULL; may be "" (an empty message; from OTLP a span without
                                 a name, a log without a body) */
    int64_t time_ns;          /* Unix time in ns; INGEST_NO_TIME when none */
    uint64_t line;            /* 1-based line where the record starts (XES: the
                                 line of <event>; OTLP: the request's line) */
    const ingest_attr *attrs; /* the other fields, as strings, in file order */
    uint32_t nattrs;
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
 * instrumentationLibrarySpans): activity = name, time = startTimeUnixNano.
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

#ifdef __cplusplus
}
#endif
#endif
