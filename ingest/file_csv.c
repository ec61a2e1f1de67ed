/*
 * CSV event logs (RFC 4180): a header row of keys, then one record per
 * row. Quoted fields may hold commas, "" for a quote, and line breaks;
 * rows end in LF or CRLF; blank rows are skipped.
 *
 * The parser walks the reader's buffer directly and copies each record's
 * fields into one buffer, so a record may span any number of reads and
 * nothing but the current record is held.
 */
#include "ingest_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_state {
    core_buf fields;          /* the record's fields, each NUL-terminated */
    core_vec(size_t) offs;    /* start of each field in fields */
    core_vec(ingest_attr) kv; /* header key and value of each field */
    bool single_unquoted;     /* the record is one unquoted field */
    const char *bad;          /* why the record is malformed, or NULL */
    size_t bad_field;         /* and the field at fault (0-based) */
    core_buf header;          /* the header's keys */
    core_vec(size_t) hoffs;
    ingest__roles roles;
    uint64_t line;  /* line of the next byte */
    uint64_t start; /* line where the record starts */
} csv_state;

enum { AT_FIELD, UNQUOTED, QUOTED, QUOTE_SEEN };

static void end_field(csv_state *s, size_t *fstart)
{
    core_vec_push(&s->offs, *fstart);
    core_buf_putc(&s->fields, 0);
    *fstart = s->fields.len;
}

/* Drops a '\r' that ended the field (the CR of a CRLF). */
static void drop_cr(csv_state *s, size_t fstart)
{
    if (s->fields.len > fstart && s->fields.data[s->fields.len - 1] == '\r')
        s->fields.data[--s->fields.len] = 0;
}

/* Reads one record into s: 1, 0 at the end of the file, or an error. */
static int read_record(ingest_file *f, csv_state *s, char *why, size_t whylen)
{
    ingest__reader *r = &f->rd;
    core_buf_reset(&s->fields);
    s->offs.n = 0;
    s->bad = NULL;
    s->start = s->line;
    int st = AT_FIELD;
    bool any = false, done = false, quoted = false;
    size_t fstart = 0;
    while (!done) {
        if (r->pos == r->len) {
            int rc = ingest__reader_fill(r, why, whylen);
            if (rc < 0)
                return rc;
            if (rc == 0)
                break;
        }
        any = true;
        const char *p = r->buf + r->pos, *end = r->buf + r->len;
        while (p < end && !done) {
            const char *q = p;
            switch (st) {
            case AT_FIELD:
                if (*p == '"') {
                    st = QUOTED;
                    quoted = true;
                    p++;
                } else if (*p == ',') {
                    end_field(s, &fstart);
                    p++;
                } else if (*p == '\n') {
                    end_field(s, &fstart);
                    s->line++;
                    p++;
                    done = true;
                } else {
                    st = UNQUOTED;
                }
                break;
            case UNQUOTED:
                while (q < end && *q != ',' && *q != '\n')
                    q++;
                core_buf_append(&s->fields, p, (size_t)(q - p));
                p = q;
                if (p == end)
                    break;
                if (*p == '\n') {
                    drop_cr(s, fstart);
                    s->line++;
                    done = true;
                }
                end_field(s, &fstart);
                st = AT_FIELD;
                p++;
                break;
            case QUOTED:
                while (q < end && *q != '"' && *q != '\n')
                    q++;
                core_buf_append(&s->fields, p, (size_t)(q - p));
                p = q;
                if (p == end)
                    break;
                if (*p == '\n') {
                    core_buf_putc(&s->fields, '\n');
                    s->line++;
                } else {
                    st = QUOTE_SEEN;
                }
                p++;
                break;
            case QUOTE_SEEN:
                if (*p == '"') {
                    core_buf_putc(&s->fields, '"');
                    st = QUOTED;
                } else if (*p == ',') {
                    end_field(s, &fstart);
                    st = AT_FIELD;
                } else if (*p == '\n') {
                    end_field(s, &fstart);
                    s->line++;
                    done = true;
                } else if (*p != '\r') {
                    /* Text after the closing quote: keep it (so that the
                     * rest of the row still splits into fields) but the
                     * record is malformed. */
                    if (!s->bad) {
                        s->bad = "text after the closing quote";
                        s->bad_field = s->offs.n;
                    }
                    st = UNQUOTED;
                    break;
                }
                p++;
                break;
            }
        }
        r->pos = (size_t)(p - r->buf);
        if (s->fields.len > r->max)
            return core_fail(why, whylen, CORE_ELIMIT, "%s:%llu: record longer than %zu bytes",
                             f->path, (unsigned long long)s->start, r->max);
    }
    if (!done) {
        if (!any && s->fields.len == 0 && s->offs.n == 0)
            return 0;
        if (st == QUOTED && !s->bad) {
            s->bad = "quoted field not closed before the end of the file";
            s->bad_field = s->offs.n;
        }
        if (st == UNQUOTED)
            drop_cr(s, fstart);
        end_field(s, &fstart);
    }
    s->single_unquoted = s->offs.n == 1 && !quoted;
    return 1;
}

/* Reads records until one that is not a blank line. */
static int read_nonblank(ingest_file *f, csv_state *s, char *why, size_t whylen)
{
    for (;;) {
        int rc = read_record(f, s, why, whylen);
        if (rc <= 0)
            return rc;
        if (!(s->single_unquoted && s->fields.data[0] == 0))
            return 1;
        /* A blank line at the very end leaves nothing behind it. */
    }
}

static int csv_open(ingest_file *f, char *why, size_t whylen)
{
    csv_state *s = core_xcalloc(1, sizeof *s);
    f->state = s;
    s->line = 1;
    s->roles = (ingest__roles){-1, -1, -1};
    int rc = read_nonblank(f, s, why, whylen);
    if (rc <= 0)
        return rc; /* an empty file has no events */
    if (s->bad)
        return core_fail(why, whylen, CORE_EFORMAT, "%s:%llu: header field %zu: %s", f->path,
                         (unsigned long long)s->start, s->bad_field + 1, s->bad);
    core_buf_append(&s->header, s->fields.data, s->fields.len);
    for (size_t i = 0; i < s->offs.n; i++)
        core_vec_push(&s->hoffs, s->offs.v[i]);
    for (size_t i = 0; i < s->hoffs.n; i++)
        core_vec_push(&s->kv, ((ingest_attr){s->header.data + s->hoffs.v[i], ""}));
    uint32_t n = (uint32_t)s->hoffs.n;
    ingest__find_roles(f, s->kv.v, n, &s->roles);
    char *const *keys = NULL;
    int nkeys = 0;
    if (s->roles.cas < 0) {
        keys = f->case_keys;
        nkeys = f->ncase_keys;
    } else if (s->roles.act < 0) {
        keys = f->act_keys;
        nkeys = f->nact_keys;
    } else if (s->roles.tim < 0 && f->time_required) {
        keys = f->time_keys;
        nkeys = f->ntime_keys;
    }
    if (keys) {
        char want[256];
        ingest__role_keys_text(keys, nkeys, want, sizeof want);
        /* The header as read, escaped and cut: a binary file read as CSV
         * has a "header" of raw bytes that must not reach a terminal. */
        core_buf cols = {0};
        for (uint32_t i = 0; i < n && cols.len < 200; i++) {
            core_buf_puts(&cols, i ? ", " : "");
            core_buf_oneline(&cols, s->kv.v[i].key, 60);
        }
        if (cols.len >= 200)
            core_buf_puts(&cols, ", ...");
        rc = core_fail(why, whylen, CORE_EFORMAT, "%s:%llu: no column %s in the header (%s)",
                       f->path, (unsigned long long)s->start, want, cols.data);
        core_buf_free(&cols);
        return rc;
    }
    return 0;
}

static int csv_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen)
{
    csv_state *s = f->state;
    if (!s->hoffs.n)
        return 0;
    int rc = read_nonblank(f, s, why, whylen);
    if (rc <= 0)
        return rc;
    f->st.records++;
    unsigned long long line = s->start;
    if (s->bad) {
        if (s->bad_field < s->hoffs.n)
            return core_fail(why, whylen, INGEST__BAD, "%s:%llu: field '%s': %s", f->path, line,
                             s->header.data + s->hoffs.v[s->bad_field], s->bad);
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: field %zu: %s", f->path, line,
                         s->bad_field + 1, s->bad);
    }
    if (s->offs.n != s->hoffs.n)
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: expected %zu fields, got %zu", f->path,
                         line, s->hoffs.n, s->offs.n);
    for (size_t i = 0; i < s->offs.n; i++)
        s->kv.v[i].val = s->fields.data + s->offs.v[i];
    rc = ingest__make_event(f, s->kv.v, (uint32_t)s->offs.n, &s->roles, s->start, ev, why, whylen);
    return rc == 0 ? 1 : rc;
}

static void csv_close(ingest_file *f)
{
    csv_state *s = f->state;
    if (!s)
        return;
    core_buf_free(&s->fields);
    core_buf_free(&s->header);
    core_vec_free(&s->offs);
    core_vec_free(&s->hoffs);
    core_vec_free(&s->kv);
    free(s);
    f->state = NULL;
}

const ingest__backend ingest__csv_backend = {csv_open, csv_next, csv_close};
