/*
 * otlp_int.h - private to ingest/: the OTLP record builder, shared by the
 * JSON decoder (otlp_json.c) and the protobuf decoder (otlp_pb.c) so that a
 * span or log record becomes the same event whichever encoding it came in.
 *
 * A decoder walks its encoding and, per record, feeds the builder: the
 * record's own attributes (key, then the rendered value), the derived
 * attributes (trace_id, span_id, ...), the activity text, and finally the
 * trace id and time; ingest__otlp_finish() picks the case id and emits.
 * Everything of one record is rendered into one reused buffer, so a record
 * costs no allocation once the buffers have grown.
 */
#ifndef PMRAG_INGEST_OTLP_INT_H
#define PMRAG_INGEST_OTLP_INT_H

#include "ingest_int.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct ingest__otlp {
    /* Set before decoding. */
    const char *const *case_attrs;
    size_t ncase;
    uint32_t max_attrs; /* own attributes kept per record (UINT32_MAX: all) */
    size_t max_str;     /* longest key, value or activity (SIZE_MAX: any) */
    size_t max_case_id; /* longest case id (0: any) */
    bool whole;         /* the value being read is a case id: never cut */
    /*
     * Partial-success mode (ingest_otlp_decode): a record without a case
     * id or with a bad time is counted in res and skipped, and all-zero
     * trace and span ids count as absent. Off (ingest_otlp_json_decode):
     * such a record is a CORE_EFORMAT error, ids are taken as they are.
     */
    bool partial;
    /* Walk without rendering or emitting: structure checks only. */
    bool dry;
    int (*emit)(void *ud, const ingest_event *ev);
    void *ud;
    ingest_decode_result *res; /* never NULL */
    char *why;
    size_t whylen;

    /* Where we are, for messages: names[0][idx[0]].names[1][idx[1]]...
     * (a span's event is four levels down). */
    const char *names[4];
    size_t idx[4];
    int level;

    /* The record being built: text holds every key, value and the
     * activity, NUL-terminated; offs the (key, value) offsets of the kept
     * attributes, hidden those of dropped attributes that may still give
     * the case id. */
    core_buf text;
    core_vec(size_t) offs;
    core_vec(size_t) hidden;
    size_t nown;       /* offs[0, nown) are the record's own attributes */
    bool case_only;    /* resource attributes: keep case keys only */
    bool cut;          /* something of this record was truncated or dropped */
    bool long_case;    /* a case key's value is longer than max_str */
    size_t value_off;  /* start of the value being rendered */
    core_buf res_case; /* the current resource's case id */
    bool has_res_case;
    core_vec(ingest_attr) attrs;
} ingest__otlp;

/* Fills in the defaults (case attributes, limits); buffers start empty. */
void ingest__otlp_init(ingest__otlp *c, const ingest_decode_opts *o, bool partial);
void ingest__otlp_free(ingest__otlp *c);

/* CORE_EFORMAT with "PATH: field 'F': ..." in why (field may be NULL). */
int ingest__otlp_bad(ingest__otlp *c, const char *field, const char *fmt, ...) CORE_PRINTF(3, 4);
/*
 * An unusable record: in partial mode counted and its reason kept (the
 * first one), returning 0 so that decoding goes on; otherwise the same as
 * ingest__otlp_bad().
 */
int ingest__otlp_reject(ingest__otlp *c, const char *field, const char *fmt, ...) CORE_PRINTF(3, 4);

/* Starts a record (or a resource's attributes, with case_only). */
void ingest__otlp_start(ingest__otlp *c, bool case_only);
/*
 * Starts an attribute: false when its value is not wanted (over max_attrs,
 * or not a case key in case_only mode): then skip it. Otherwise render
 * the value into c->text and call ingest__otlp_attr_end().
 */
bool ingest__otlp_attr_begin(ingest__otlp *c, const char *key, size_t klen);
void ingest__otlp_attr_end(ingest__otlp *c);
/* Ends the record's own attributes (the next ones are derived). */
void ingest__otlp_own_done(ingest__otlp *c);
/* A derived attribute, added whole (up to max_str). */
void ingest__otlp_extra(ingest__otlp *c, const char *key, const char *val, size_t vlen);
/* Appends at most what max_str keeps of s to c->text (the caller renders
 * the rest itself when it must). */
void ingest__otlp_put(ingest__otlp *c, const char *s, size_t n);
/* Starts the activity text; render it into c->text, then call _end with
 * the offset returned. */
size_t ingest__otlp_value_begin(ingest__otlp *c);
void ingest__otlp_value_end(ingest__otlp *c, size_t off);
/* After a resource's attributes: remembers its case id, if any. */
void ingest__otlp_resource_done(ingest__otlp *c);
/*
 * Ends the record: the case id is the first case attribute with a value
 * (own attributes, then the resource's), else the trace id (hex, tlen 0
 * when none). Emits the event (of that kind, time t, a span's end time
 * end or 0) and returns emit's result, or rejects the record (see
 * ingest__otlp_reject).
 */
int ingest__otlp_finish(ingest__otlp *c, const char *trace_hex, size_t tlen, size_t act_off,
                        int64_t t, ingest_kind kind, int64_t end);

/* How much of s fits in max bytes without splitting a UTF-8 character;
 * s must have more than max bytes. */
size_t ingest__utf8_cut(const char *s, size_t max);

/* True when s[0, n) is non-empty and all '0' (a hex id that means none). */
bool ingest__otlp_zero_hex(const char *s, size_t n);

/*
 * The OTLP JSON body in buf as one kind of request (spans or logs), through
 * c (set up by ingest__otlp_init with partial mode): checks the whole
 * document first (a dry walk), then emits. CORE_EFORMAT for invalid JSON,
 * a body of the other kind, or a structure error.
 */
int ingest__otlp_json_body(ingest__otlp *c, bool spans, const char *buf, size_t len);
/* json_loadb of buf, invalid UTF-8 read as U+FFFD (as protobuf strings
 * are): a bad byte in one string must not cost a whole batch. */
struct json_t;
struct json_error_t;
struct json_t *ingest__json_load(const char *buf, size_t len, struct json_error_t *jerr);

/* ------------------------------------------------------------------ */
/* What the two OTLP receivers (otlp_http.c, otlp_grpc.c) share       */
/* ------------------------------------------------------------------ */

/*
 * A limit on refusal log lines: a burst of a few, then one a second; the
 * lines held back are counted and told in the next one. Thread-safe.
 */
typedef struct ingest__loglimit {
    pthread_mutex_t mu;
    core_bucket bucket;
    uint64_t held;
} ingest__loglimit;

void ingest__loglimit_init(ingest__loglimit *l);
void ingest__loglimit_free(ingest__loglimit *l);
/* Whether a line may be written now; more gets what to append to it
 * (" (N more refusals not logged)", or ""). */
bool ingest__loglimit_take(ingest__loglimit *l, char *more, size_t morelen);

/*
 * What both receivers keep of their options, and the event counters they
 * keep alike: set by ingest__otlp_recv_init (the strings copied), read by
 * any thread afterwards (the counters are atomic), freed by
 * ingest__otlp_recv_free once no request is in progress.
 */
typedef struct ingest__otlp_recv {
    ingest_otlp_batch_fn fn;
    bool (*busy)(void *ud);
    bool (*busy_early)(void *ud);
    void *ud;
    size_t max_body;   /* the option, or 64 MiB */
    char **case_attrs; /* owned copies */
    size_t ncase;
    uint32_t max_attrs;
    size_t max_str, max_case_id;
    core_logger log;
    ingest__loglimit loglim; /* refusals logged */
    _Atomic uint64_t accepted_events, rejected_events, truncated_events;
} ingest__otlp_recv;

void ingest__otlp_recv_init(ingest__otlp_recv *r, const ingest_otlp_recv_opts *o,
                            ingest_otlp_batch_fn fn, void *ud);
void ingest__otlp_recv_free(ingest__otlp_recv *r);

/* What became of a request's message in ingest__otlp_recv_message: each
 * transport answers every outcome with a status of its own. */
typedef enum ingest__otlp_outcome {
    INGEST__OTLP_ACCEPTED,     /* the Export response is in out */
    INGEST__OTLP_TOO_LARGE,    /* over max_body once decompressed (why: "") */
    INGEST__OTLP_BAD_GZIP,     /* gzip that does not inflate */
    INGEST__OTLP_BAD_MESSAGE,  /* a message that does not decode */
    INGEST__OTLP_FAILED,       /* decoding failed on our side */
    INGEST__OTLP_QUEUE_FULL,   /* the batch function gave -EAGAIN: retry */
    INGEST__OTLP_RATE_LIMITED, /* the batch function gave CORE_ELIMIT: retry */
    INGEST__OTLP_NOT_ACCEPTED, /* the batch function gave another error */
} ingest__otlp_outcome;

/*
 * One request's message, once its transport has checked the rest (path,
 * content type, encoding, busy): body (gzip-compressed when gzip, inflated
 * up to max_body) is decoded in enc, its events go to the batch function in
 * one call with the request id (a hash of kind and the body after
 * decompression: the same for a retry over either transport), and the
 * event counters are kept. ACCEPTED (also when there were no events to
 * hand over) appends the Export response, in enc, to out; the other
 * outcomes write why as the refusal should read (600 bytes keep a
 * decoder's reason whole), except TOO_LARGE, whose wording is the
 * transport's. res: the decoder's result (rejected records, the first
 * reason), valid on ACCEPTED. From any thread; blocks as long as the batch
 * function.
 */
ingest__otlp_outcome ingest__otlp_recv_message(ingest__otlp_recv *r, ingest_otlp_kind kind,
                                               ingest_encoding enc, const void *body, size_t len,
                                               bool gzip, core_buf *out, ingest_decode_result *res,
                                               char *why, size_t whylen);

#endif
