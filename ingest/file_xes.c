/*
 * XES event logs (IEEE 1849), read with expat as a stream.
 *
 * Each <event> becomes a record whose fields are its attributes (string,
 * date, int, float, boolean, id) followed by its trace's attributes with
 * a "case:" prefix; the usual role keys then pick the case
 * (case:concept:name), the activity (concept:name) and the time
 * (time:timestamp). Log-level attributes, globals, extensions,
 * classifiers, lists, containers and nested meta-attributes are ignored.
 * A trace's attributes must come before its events (as the schema has
 * them); one that comes later is not seen by the events before it.
 *
 * Expat calls back while a chunk is parsed, so the events a chunk closes
 * are queued and handed out one by one before the next chunk is read.
 */
#include "ingest_int.h"

#include <errno.h>
#include <expat.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attributes of one element: key and value offsets into one buffer. */
typedef struct xes_attrs {
    core_buf text;
    core_vec(size_t) offs; /* key, value, key, value, ... */
} xes_attrs;

typedef struct xes_state {
    ingest_file *f;
    XML_Parser xp;
    ingest__queue q;
    int depth;       /* of the element being parsed; the root is 1 */
    int trace_depth; /* of the open <trace>, or 0 */
    int event_depth; /* of the open <event>, or 0 */
    uint64_t event_line;
    xes_attrs trace, event;
    core_vec(ingest_attr) kv;
    uint64_t fed; /* bytes given to expat */
    bool finished;
    int err; /* a fatal error, reported once the queue is empty */
    char errmsg[512];
} xes_state;

static const char *local_name(const char *name)
{
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static bool is_attribute(const char *name)
{
    static const char *const types[] = {"string", "date", "int", "float", "boolean", "id"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(name, types[i]) == 0)
            return true;
    return false;
}

static void attrs_reset(xes_attrs *a)
{
    core_buf_reset(&a->text);
    a->offs.n = 0;
}

static void attrs_add(xes_attrs *a, const char *prefix, const char *key, const char *val)
{
    core_vec_push(&a->offs, a->text.len);
    core_buf_puts(&a->text, prefix);
    core_buf_puts(&a->text, key);
    core_buf_putc(&a->text, 0);
    core_vec_push(&a->offs, a->text.len);
    core_buf_puts(&a->text, val);
    core_buf_putc(&a->text, 0);
}

static void stop(xes_state *s, int err, const char *fmt, ...) CORE_PRINTF(3, 4);
static void stop(xes_state *s, int err, const char *fmt, ...)
{
    if (!s->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
        va_end(ap);
        s->err = err;
    }
    XML_StopParser(s->xp, XML_FALSE);
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    xes_state *s = ud;
    if (s->err)
        return;
    s->depth++;
    const char *local = local_name(name);
    if (s->depth == 1) {
        if (strcmp(local, "log") != 0)
            stop(s, CORE_EFORMAT, "%s:%lu: not an XES log: the root element is <%s>", s->f->path,
                 (unsigned long)XML_GetCurrentLineNumber(s->xp), name);
        return;
    }
    if (strcmp(local, "trace") == 0 && !s->trace_depth && !s->event_depth) {
        s->trace_depth = s->depth;
        attrs_reset(&s->trace);
    } else if (strcmp(local, "event") == 0 && !s->event_depth) {
        s->event_depth = s->depth;
        s->event_line = XML_GetCurrentLineNumber(s->xp);
        attrs_reset(&s->event);
    } else if (is_attribute(local)) {
        const char *key = NULL, *val = "";
        for (const XML_Char **a = atts; a[0]; a += 2) {
            if (strcmp(a[0], "key") == 0)
                key = a[1];
            else if (strcmp(a[0], "value") == 0)
                val = a[1];
        }
        if (!key)
            return;
        if (s->event_depth && s->depth == s->event_depth + 1)
            attrs_add(&s->event, "", key, val);
        else if (s->trace_depth && !s->event_depth && s->depth == s->trace_depth + 1)
            attrs_add(&s->trace, "case:", key, val);
        else
            return;
        if (s->event.text.len + s->trace.text.len > s->f->rd.max)
            stop(s, CORE_ELIMIT, "%s:%llu: event larger than %zu bytes", s->f->path,
                 (unsigned long long)(s->event_depth ? s->event_line
                                                     : XML_GetCurrentLineNumber(s->xp)),
                 s->f->rd.max);
    }
}

/* </event>: the event's attributes, then its trace's, become a record. */
static void emit_event(xes_state *s)
{
    s->kv.n = 0;
    const xes_attrs *lists[2] = {&s->event, &s->trace};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i + 1 < lists[k]->offs.n; i += 2)
            core_vec_push(&s->kv, ((ingest_attr){lists[k]->text.data + lists[k]->offs.v[i],
                                                 lists[k]->text.data + lists[k]->offs.v[i + 1]}));
    ingest__roles roles;
    ingest__find_roles(s->f, s->kv.v, (uint32_t)s->kv.n, &roles);
    ingest_event ev;
    char why[1024];
    if (ingest__make_event(s->f, s->kv.v, (uint32_t)s->kv.n, &roles, s->event_line, &ev, why,
                           sizeof why) == 0)
        ingest__queue_push(&s->q, &ev);
    else
        ingest__queue_push_bad(&s->q, s->event_line, why);
}

static void on_end(void *ud, const XML_Char *name)
{
    (void)name;
    xes_state *s = ud;
    if (s->err)
        return;
    if (s->depth == s->event_depth) {
        emit_event(s);
        s->event_depth = 0;
    } else if (s->depth == s->trace_depth) {
        s->trace_depth = 0;
        attrs_reset(&s->trace);
    }
    s->depth--;
}

static int xes_open(ingest_file *f, char *why, size_t whylen)
{
    xes_state *s = core_xcalloc(1, sizeof *s);
    f->state = s;
    s->f = f;
    s->xp = XML_ParserCreate(NULL);
    if (!s->xp)
        return core_fail(why, whylen, -ENOMEM, "%s: %s", f->path, core_strerror(-ENOMEM));
    XML_SetUserData(s->xp, s);
    XML_SetElementHandler(s->xp, on_start, on_end);
    return 0;
}

/* Parses the next chunk of the file (or finishes the document). */
static int feed(ingest_file *f, xes_state *s, char *why, size_t whylen)
{
    ingest__reader *r = &f->rd;
    enum XML_Status st;
    if (r->pos == r->len) {
        int rc = ingest__reader_fill(r, why, whylen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            s->finished = true;
            st = XML_Parse(s->xp, NULL, 0, XML_TRUE);
            goto parsed;
        }
    }
    size_t n = r->len - r->pos;
    if (n > INT_MAX)
        n = INT_MAX;
    st = XML_Parse(s->xp, r->buf + r->pos, (int)n, XML_FALSE);
    r->pos += n;
    s->fed += n;
    /* Expat keeps an unfinished token (a start tag with a huge attribute,
     * say) in a buffer of its own that grows without limit: what lies
     * past the last parse event is that token. */
    XML_Index at = XML_GetCurrentByteIndex(s->xp);
    if (st == XML_STATUS_OK && s->fed - (uint64_t)(at > 0 ? at : 0) > r->max)
        stop(s, CORE_ELIMIT, "%s:%lu: XML markup longer than %zu bytes", f->path,
             (unsigned long)XML_GetCurrentLineNumber(s->xp), r->max);
parsed:
    if (st == XML_STATUS_ERROR && !s->err) {
        s->err = CORE_EFORMAT;
        snprintf(s->errmsg, sizeof s->errmsg, "%s:%lu:%lu: XML error: %s", f->path,
                 (unsigned long)XML_GetCurrentLineNumber(s->xp),
                 (unsigned long)XML_GetCurrentColumnNumber(s->xp) + 1,
                 XML_ErrorString(XML_GetErrorCode(s->xp)));
    }
    return 0;
}

static int xes_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen)
{
    xes_state *s = f->state;
    for (;;) {
        const ingest__qent *e = ingest__queue_pop(&s->q);
        if (e)
            f->st.records++;
        if (e && e->bad)
            return core_fail(why, whylen, INGEST__BAD, "%s", e->bad);
        if (e) {
            *ev = e->ev;
            return 1;
        }
        if (s->err)
            return core_fail(why, whylen, s->err, "%s", s->errmsg);
        if (s->finished)
            return 0;
        ingest__queue_clear(&s->q);
        int rc = feed(f, s, why, whylen);
        if (rc < 0)
            return rc;
    }
}

static void xes_close(ingest_file *f)
{
    xes_state *s = f->state;
    if (!s)
        return;
    if (s->xp)
        XML_ParserFree(s->xp);
    ingest__queue_free(&s->q);
    core_buf_free(&s->trace.text);
    core_vec_free(&s->trace.offs);
    core_buf_free(&s->event.text);
    core_vec_free(&s->event.offs);
    core_vec_free(&s->kv);
    free(s);
    f->state = NULL;
}

const ingest__backend ingest__xes_backend = {xes_open, xes_next, xes_close};
