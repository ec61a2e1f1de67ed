/*
 * Event files: format detection, the backend of each format, skipping
 * malformed records and counting them.
 *
 * Each format is a backend (file_csv.c, file_jsonl.c, file_xes.c,
 * file_otlp.c) that turns its records into key/value fields; the fields
 * become an event in file_event.c, by the same rules for every format, so
 * that a column means the same thing in CSV, JSONL and XES.
 */
#include "ingest_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const format_names[INGEST_FMT__COUNT] = {
    [INGEST_FMT_AUTO] = "auto",           [INGEST_FMT_CSV] = "csv",
    [INGEST_FMT_JSONL] = "jsonl",         [INGEST_FMT_XES] = "xes",
    [INGEST_FMT_OTLP_JSON] = "otlp-json",
};

const char *ingest_format_name(ingest_format f)
{
    if ((unsigned)f >= INGEST_FMT__COUNT)
        return "?";
    return format_names[f];
}

int ingest_format_parse(const char *s, ingest_format *out)
{
    for (int i = 0; s && i < INGEST_FMT__COUNT; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (ingest_format)i;
            return 0;
        }
    }
    return CORE_EUSAGE;
}

/* ------------------------------------------------------------------ */
/* Opening and detection                                               */
/* ------------------------------------------------------------------ */

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && strncasecmp(s + n - m, suffix, m) == 0;
}

/* The format named by the extension (a ".gz" stripped), or AUTO. */
static ingest_format format_by_name(const char *path)
{
    size_t n = strlen(path);
    if (ends_with_ci(path, n, ".gz"))
        n -= 3;
    if (ends_with_ci(path, n, ".csv"))
        return INGEST_FMT_CSV;
    if (ends_with_ci(path, n, ".jsonl") || ends_with_ci(path, n, ".ndjson") ||
        ends_with_ci(path, n, ".json"))
        return INGEST_FMT_JSONL;
    if (ends_with_ci(path, n, ".xes"))
        return INGEST_FMT_XES;
    return INGEST_FMT_AUTO;
}

static bool mem_has(const char *p, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (p[i] == needle[0] && memcmp(p + i, needle, m) == 0)
            return true;
    return false;
}

/* Whether the first line (as far as the buffer holds it) looks like an
 * OTLP export request. Collectors write the resource list first, so the
 * start of the line is enough. */
static bool looks_like_otlp(const ingest__reader *r)
{
    const char *p = r->buf + r->pos;
    size_t n = r->len - r->pos;
    const char *nl = memchr(p, '\n', n);
    if (nl)
        n = (size_t)(nl - p);
    return mem_has(p, n, "\"resourceSpans\"") || mem_has(p, n, "\"resourceLogs\"");
}

static ingest_format sniff(const ingest__reader *r)
{
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p == end)
        return INGEST_FMT_CSV;
    if (*p == '<')
        return INGEST_FMT_XES;
    if (*p == '{')
        return looks_like_otlp(r) ? INGEST_FMT_OTLP_JSON : INGEST_FMT_JSONL;
    return INGEST_FMT_CSV;
}

static void set_keys(char **keys, int *n, const char *given, const char *d1, const char *d2)
{
    if (given) {
        keys[0] = core_xstrdup(given);
        *n = 1;
    } else {
        keys[0] = core_xstrdup(d1);
        keys[1] = core_xstrdup(d2);
        *n = 2;
    }
}

int ingest_file_open(const char *path, const ingest_file_opts *o, ingest_file **out, char *why,
                     size_t whylen)
{
    static const ingest_file_opts defaults = {0};
    static const char *const default_case_attrs[] = {"case.id", "session.id", "enduser.id"};
    if (!o)
        o = &defaults;
    if ((unsigned)o->format >= INGEST_FMT__COUNT)
        return core_fail(why, whylen, CORE_EUSAGE, "%s: unknown format %d", path, o->format);
    ingest_file *f = core_xcalloc(1, sizeof *f);
    f->path = core_xstrdup(path);
    f->skip_bad = o->skip_bad;
    f->log = o->log;
    set_keys(f->case_keys, &f->ncase_keys, o->case_key, "case_id", "case:concept:name");
    set_keys(f->act_keys, &f->nact_keys, o->activity_key, "activity", "concept:name");
    set_keys(f->time_keys, &f->ntime_keys, o->time_key, "timestamp", "time:timestamp");
    f->time_required = o->time_key != NULL;
    const char *const *ca = o->case_attrs ? o->case_attrs : default_case_attrs;
    size_t nca = o->case_attrs ? o->ncase_attrs : 3;
    f->case_attrs = core_xcalloc(nca ? nca : 1, sizeof *f->case_attrs);
    for (size_t i = 0; i < nca; i++)
        f->case_attrs[i] = core_xstrdup(ca[i]);
    f->ncase_attrs = nca;

    size_t max = o->max_record ? o->max_record : INGEST_MAX_RECORD;
    int rc = ingest__reader_open(&f->rd, f->path, max, why, whylen);
    if (rc)
        goto fail;
    rc = ingest__reader_fill(&f->rd, why, whylen);
    if (rc < 0)
        goto fail;
    /* A UTF-8 byte order mark is not part of any format's first token. */
    if (f->rd.len >= 3 && memcmp(f->rd.buf, "\xef\xbb\xbf", 3) == 0)
        f->rd.pos = f->rd.scan = 3;

    ingest_format fmt = o->format;
    if (fmt == INGEST_FMT_AUTO)
        fmt = format_by_name(path);
    if (fmt == INGEST_FMT_AUTO)
        fmt = sniff(&f->rd);
    else if (fmt == INGEST_FMT_JSONL && o->format == INGEST_FMT_AUTO && looks_like_otlp(&f->rd))
        fmt = INGEST_FMT_OTLP_JSON;
    f->format = fmt;
    f->be = fmt == INGEST_FMT_CSV     ? &ingest__csv_backend
            : fmt == INGEST_FMT_JSONL ? &ingest__jsonl_backend
            : fmt == INGEST_FMT_XES   ? &ingest__xes_backend
                                      : &ingest__otlp_backend;
    rc = f->be->open(f, why, whylen);
    if (rc)
        goto fail;
    *out = f;
    return 0;
fail:
    ingest_file_close(f);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

static void summary(ingest_file *f)
{
    if (f->summary_done)
        return;
    f->summary_done = true;
    if (f->st.bad > INGEST__MAX_WARN)
        core_logf(&f->log, CORE_LOG_NOTE,
                  "%s: %llu malformed records skipped (the first %d are reported above)", f->path,
                  (unsigned long long)f->st.bad, INGEST__MAX_WARN);
}

int ingest_file_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen)
{
    if (f->err)
        return core_fail(why, whylen, f->err, "%s", f->errmsg ? f->errmsg : "");
    char msg[1024];
    for (;;) {
        int rc = f->be->next(f, ev, msg, sizeof msg);
        if (rc == 1) {
            f->st.events++;
            return 1;
        }
        if (rc == INGEST__BAD) {
            if (!f->skip_bad)
                return core_fail(why, whylen, CORE_EFORMAT, "%s", msg);
            f->st.bad++;
            if (f->st.bad <= INGEST__MAX_WARN)
                core_logf(&f->log, CORE_LOG_WARN, "%s (skipped)", msg);
            continue;
        }
        if (rc == 0) {
            summary(f);
            return 0;
        }
        f->err = rc;
        f->errmsg = core_xstrdup(msg);
        return core_fail(why, whylen, rc, "%s", msg);
    }
}

void ingest_file_get_stats(const ingest_file *f, ingest_file_stats *out)
{
    *out = f->st;
    out->bytes = ingest__reader_offset(&f->rd);
}

ingest_format ingest_file_format(const ingest_file *f)
{
    return f->format;
}

void ingest_file_close(ingest_file *f)
{
    if (!f)
        return;
    if (f->be) {
        summary(f);
        f->be->close(f);
    }
    ingest__reader_close(&f->rd);
    for (int i = 0; i < 2; i++) {
        free(f->case_keys[i]);
        free(f->act_keys[i]);
        free(f->time_keys[i]);
    }
    for (size_t i = 0; i < f->ncase_attrs; i++)
        free(f->case_attrs[i]);
    free(f->case_attrs);
    core_vec_free(&f->attrs);
    free(f->errmsg);
    free(f->path);
    free(f);
}
