/* ingest_int.h - private to ingest/: the reader, the file handle and what
 * the format backends share. */
#ifndef PMRAG_INGEST_INT_H
#define PMRAG_INGEST_INT_H

#include "ingest.h"

#include <zlib.h>

/* A backend's next() found a malformed record: why is set, and the file
 * goes on (ingest_file_next skips it or turns it into CORE_EFORMAT). */
#define INGEST__BAD 2

/* How many skipped records are reported one by one. */
#define INGEST__MAX_WARN 20

/* ------------------------------------------------------------------ */
/* Reader: a buffer over gzread (which reads plain files as they are)  */
/* ------------------------------------------------------------------ */

typedef struct ingest__reader {
    gzFile gz;
    const char *path; /* borrowed from the file */
    char *buf;        /* data is buf[pos, len) */
    size_t pos, len, cap;
    size_t max;  /* largest line ingest__reader_line returns */
    size_t scan; /* buf[pos, scan) is known to hold no '\n' */
    bool eof;
    uint64_t line; /* lines returned by ingest__reader_line */
} ingest__reader;

int ingest__reader_open(ingest__reader *r, const char *path, size_t max, char *why, size_t whylen);
/*
 * Moves the unread data to the front and reads more after it, growing the
 * buffer (up to max + 1 bytes) when it is full. Returns the number of bytes
 * added, 0 at the end of the file, or an error with why (CORE_ECORRUPT for
 * broken or truncated gzip data).
 */
int ingest__reader_fill(ingest__reader *r, char *why, size_t whylen);
/*
 * The next line without its "\n" or "\r\n": 1 with *p, *n (valid until the
 * next call), 0 at the end, or an error (CORE_ELIMIT for a line longer
 * than max, naming its line). r->line is then the line's number.
 */
int ingest__reader_line(ingest__reader *r, const char **p, size_t *n, char *why, size_t whylen);
/* The same, skipping lines of only spaces and tabs (JSON Lines). */
int ingest__reader_text_line(ingest__reader *r, const char **p, size_t *n, char *why,
                             size_t whylen);
/* Compressed bytes consumed so far. */
uint64_t ingest__reader_offset(const ingest__reader *r);
void ingest__reader_close(ingest__reader *r);

/* ------------------------------------------------------------------ */
/* Event queue, for formats that yield many events per parse step      */
/* ------------------------------------------------------------------ */

typedef struct ingest__qent {
    ingest_event ev;
    const char *bad; /* non-NULL: a malformed record, this is why */
} ingest__qent;

typedef struct ingest__queue {
    core_vec(ingest__qent) q;
    size_t head;
    core_arena arena; /* the copies' strings and attribute arrays */
} ingest__queue;

/* Appends a deep copy of ev. */
void ingest__queue_push(ingest__queue *q, const ingest_event *ev);
/* Appends a malformed record with its message. */
void ingest__queue_push_bad(ingest__queue *q, uint64_t line, const char *why);
/* The oldest entry, or NULL when the queue is empty; it stays valid until
 * ingest__queue_clear. */
const ingest__qent *ingest__queue_pop(ingest__queue *q);
/* Drops every entry and frees their memory. */
void ingest__queue_clear(ingest__queue *q);
void ingest__queue_free(ingest__queue *q);

/* ------------------------------------------------------------------ */
/* The file handle                                                     */
/* ------------------------------------------------------------------ */

/* Which fields of a record play the roles; -1 when absent. */
typedef struct ingest__roles {
    int cas, act, tim;
} ingest__roles;

typedef struct ingest__backend {
    /* After the format is known: reads a header, allocates state. */
    int (*open)(ingest_file *f, char *why, size_t whylen);
    /* 1 with *ev, 0 at the end, INGEST__BAD with why, or an error. Counts
     * f->st.records (the rest of the stats are counted by the caller). */
    int (*next)(ingest_file *f, ingest_event *ev, char *why, size_t whylen);
    void (*close)(ingest_file *f);
} ingest__backend;

extern const ingest__backend ingest__csv_backend;
extern const ingest__backend ingest__jsonl_backend;
extern const ingest__backend ingest__xes_backend;
extern const ingest__backend ingest__otlp_backend;

struct ingest_file {
    char *path;
    ingest_format format;
    const ingest__backend *be;
    void *state; /* the backend's */
    ingest__reader rd;
    /* Role keys: the candidates in order of preference. */
    char *case_keys[2], *act_keys[2], *time_keys[2];
    int ncase_keys, nact_keys, ntime_keys;
    bool time_required;
    char **case_attrs; /* OTLP */
    size_t ncase_attrs;
    bool skip_bad;
    core_logger log;
    ingest_file_stats st;
    bool summary_done;
    int err; /* sticky error, with its message */
    char *errmsg;
    core_vec(ingest_attr) attrs; /* the current event's, from make_event */
};

/* Finds the role fields of a record by key. */
void ingest__find_roles(const ingest_file *f, const ingest_attr *kv, uint32_t n, ingest__roles *r);
/* "'case_id' or 'case:concept:name'": the keys looked for, for messages. */
void ingest__role_keys_text(char *const *keys, int n, char *buf, size_t len);
/*
 * Builds *ev from the record's fields kv[0, n) (borrowed; ev points into
 * them and into f->attrs): the role fields, checked, and every other field
 * as an attribute. Returns 0, or INGEST__BAD with
 * "PATH:LINE: field 'KEY': ..." in why.
 */
int ingest__make_event(ingest_file *f, const ingest_attr *kv, uint32_t n, const ingest__roles *r,
                       uint64_t line, ingest_event *ev, char *why, size_t whylen);

/* Renders a JSON value as an attribute string: a string as it is, numbers
 * (shortest form), true, false, null, arrays and objects as compact JSON. */
struct json_t;
void ingest__json_text(const struct json_t *v, core_buf *out);

#endif
