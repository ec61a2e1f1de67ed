/*
 * OTLP JSON (ExportTraceServiceRequest, ExportLogsServiceRequest) to
 * events: the decoder shared by OTLP JSON files and the OTLP/HTTP
 * receiver. Records are made by the builder the protobuf decoder shares
 * (otlp_record.c), so that both encodings give the same events.
 *
 * The JSON mapping is protobuf's with OTLP's exceptions: trace and span
 * ids are hex strings, 64-bit integers are strings or numbers, field names
 * are lowerCamelCase. Unknown fields are ignored, so newer exporters still
 * read; the older instrumentationLibrary* names are accepted.
 */
#include "otlp_int.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* AnyValue                                                            */
/* ------------------------------------------------------------------ */

static bool is_int_text(const char *s)
{
    if (*s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* A string that stands for a number: bare inside JSON if it is one. */
static void number_text(const char *s, core_buf *out, bool top)
{
    if (top || is_int_text(s))
        core_buf_puts(out, s);
    else
        core_buf_json_str(out, s, strlen(s));
}

/* Renders an AnyValue: at the top as the attribute's string, nested as
 * JSON (so arrays and maps become compact JSON). */
static void any_value(const json_t *v, core_buf *out, bool top)
{
    if (!json_is_object(v)) {
        /* Not an AnyValue: keep what was there. */
        if (v)
            ingest__json_text(v, out);
        else if (!top)
            core_buf_puts(out, "null");
        return;
    }
    const json_t *x;
    if ((x = json_object_get(v, "stringValue")) != NULL) {
        if (json_is_string(x) && top)
            core_buf_append(out, json_string_value(x), json_string_length(x));
        else if (json_is_string(x))
            core_buf_json_str(out, json_string_value(x), json_string_length(x));
        else
            ingest__json_text(x, out);
    } else if ((x = json_object_get(v, "intValue")) != NULL ||
               (x = json_object_get(v, "doubleValue")) != NULL) {
        if (json_is_string(x))
            number_text(json_string_value(x), out, top);
        else
            ingest__json_text(x, out);
    } else if ((x = json_object_get(v, "boolValue")) != NULL) {
        ingest__json_text(x, out);
    } else if ((x = json_object_get(v, "bytesValue")) != NULL) {
        if (json_is_string(x) && !top)
            core_buf_json_str(out, json_string_value(x), json_string_length(x));
        else
            ingest__json_text(x, out);
    } else if ((x = json_object_get(v, "arrayValue")) != NULL) {
        const json_t *vals = json_object_get(x, "values");
        core_buf_putc(out, '[');
        for (size_t i = 0; i < json_array_size(vals); i++) {
            if (i)
                core_buf_putc(out, ',');
            any_value(json_array_get(vals, i), out, false);
        }
        core_buf_putc(out, ']');
    } else if ((x = json_object_get(v, "kvlistValue")) != NULL) {
        const json_t *vals = json_object_get(x, "values");
        core_buf_putc(out, '{');
        for (size_t i = 0; i < json_array_size(vals); i++) {
            const json_t *kv = json_array_get(vals, i);
            const char *k = json_string_value(json_object_get(kv, "key"));
            if (i)
                core_buf_putc(out, ',');
            core_buf_json_str(out, k ? k : "", k ? strlen(k) : 0);
            core_buf_putc(out, ':');
            any_value(json_object_get(kv, "value"), out, false);
        }
        core_buf_putc(out, '}');
    } else if (!top) {
        core_buf_puts(out, "null");
    }
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* Adds a string field of obj as a derived attribute, when it is non-empty
 * (and, in partial mode, not an all-zero id). */
static void add_str(ingest__otlp *c, const char *key, const json_t *obj, const char *field, bool id)
{
    const json_t *v = json_object_get(obj, field);
    if (!json_is_string(v) || !json_string_length(v))
        return;
    if (id && c->partial && ingest__otlp_zero_hex(json_string_value(v), json_string_length(v)))
        return;
    ingest__otlp_extra(c, key, json_string_value(v), json_string_length(v));
}

/* Appends an attribute list ([{key, value}]) to the record. */
static int add_attributes(ingest__otlp *c, const json_t *list)
{
    if (!list)
        return 0;
    if (!json_is_array(list))
        return ingest__otlp_bad(c, "attributes", "not an array");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *kv = json_array_get(list, i);
        const json_t *k = json_object_get(kv, "key");
        if (!json_is_string(k))
            return ingest__otlp_bad(c, "attributes", "entry %zu has no key", i);
        if (c->dry || !ingest__otlp_attr_begin(c, json_string_value(k), json_string_length(k)))
            continue;
        any_value(json_object_get(kv, "value"), &c->text, true);
        ingest__otlp_attr_end(c);
    }
    return 0;
}

/* The resource's case attribute, computed once per resource. */
static int resource_case(ingest__otlp *c, const json_t *resource)
{
    ingest__otlp_start(c, true);
    c->has_res_case = false;
    int rc = add_attributes(c, json_object_get(resource, "attributes"));
    if (rc || c->dry)
        return rc;
    ingest__otlp_resource_done(c);
    return 0;
}

/* A *UnixNano field: a decimal string or a number; absent or 0 is no
 * time. 1 when it is not a time (then the record was rejected). */
static int unix_nano(ingest__otlp *c, const json_t *obj, const char *field, int64_t *out)
{
    const json_t *v = json_object_get(obj, field);
    *out = INGEST_NO_TIME;
    if (!v || json_is_null(v))
        return 0;
    int64_t t;
    if (json_is_integer(v)) {
        t = json_integer_value(v);
    } else if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e18) {
        t = (int64_t)json_real_value(v);
    } else if (json_is_string(v) && json_string_length(v) && json_string_length(v) <= 19 &&
               is_int_text(json_string_value(v)) && json_string_value(v)[0] != '-') {
        t = strtoll(json_string_value(v), NULL, 10);
    } else {
        core_buf b = {0};
        ingest__json_text(v, &b);
        int rc = ingest__otlp_reject(c, field, "not a time in Unix nanoseconds: '%.60s'",
                                     b.data ? b.data : "");
        core_buf_free(&b);
        return rc ? rc : 1;
    }
    if (t < 0) {
        int rc = ingest__otlp_reject(c, field, "negative time");
        return rc ? rc : 1;
    }
    if (t > 0)
        *out = t;
    return 0;
}

/* Puts the activity text at the end of text; returns its offset. */
static size_t activity_text(ingest__otlp *c, const json_t *v, bool any)
{
    size_t off = ingest__otlp_value_begin(c);
    if (any)
        any_value(v, &c->text, true);
    else if (json_is_string(v))
        core_buf_append(&c->text, json_string_value(v), json_string_length(v));
    ingest__otlp_value_end(c, off);
    return off;
}

/* The record's trace id for the case fallback: a non-empty string. */
static void trace_id_of(const json_t *rec, const char **s, size_t *n)
{
    const json_t *v = json_object_get(rec, "traceId");
    *s = json_is_string(v) ? json_string_value(v) : NULL;
    *n = *s ? json_string_length(v) : 0;
}

/* An array field of obj, or NULL when absent; CORE_EFORMAT when it is
 * something else. */
static int array_of(ingest__otlp *c, const json_t *obj, const char *field, const json_t **out)
{
    const json_t *v = json_object_get(obj, field);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return ingest__otlp_bad(c, field, "not an array");
    *out = v;
    return 0;
}

/* One event of a span (spans[].events[]: timeUnixNano, name, attributes):
 * a record of its own, its attributes first, then the span's. start: the
 * span's start, for an event without a time. */
static int do_span_event(ingest__otlp *c, const json_t *ev, const json_t *span, const char *scope,
                         int64_t start)
{
    if (!json_is_object(ev))
        return ingest__otlp_bad(c, NULL, "not an object");
    ingest__otlp_start(c, false);
    int rc = add_attributes(c, json_object_get(ev, "attributes"));
    if (rc || c->dry)
        return rc;
    add_attributes(c, json_object_get(span, "attributes")); /* (checked with the span) */
    ingest__otlp_own_done(c);
    add_str(c, "trace_id", span, "traceId", true);
    add_str(c, "span_id", span, "spanId", true);
    if (scope && *scope)
        ingest__otlp_extra(c, "scope.name", scope, strlen(scope));
    int64_t t;
    rc = unix_nano(c, ev, "timeUnixNano", &t);
    if (rc)
        return rc < 0 ? rc : 0;
    if (t == INGEST_NO_TIME)
        t = start;
    size_t act = activity_text(c, json_object_get(ev, "name"), false);
    const char *tid;
    size_t tlen;
    trace_id_of(span, &tid, &tlen);
    return ingest__otlp_finish(c, tid, tlen, act, t, INGEST_SPAN_EVENT, 0);
}

/* The events of a span, after it (at level 4 of the messages' paths). */
static int span_events(ingest__otlp *c, const json_t *span, const char *scope, int64_t start)
{
    const json_t *list;
    int rc = array_of(c, span, "events", &list);
    if (rc || !list)
        return rc;
    c->names[3] = "events";
    for (size_t j = 0; j < json_array_size(list) && !rc; j++) {
        c->level = 4;
        c->idx[3] = j;
        rc = do_span_event(c, json_array_get(list, j), span, scope, start);
    }
    c->level = 3;
    return rc;
}

static int do_span(ingest__otlp *c, const json_t *span, const char *scope)
{
    if (!json_is_object(span))
        return ingest__otlp_bad(c, NULL, "not an object");
    ingest__otlp_start(c, false);
    int rc = add_attributes(c, json_object_get(span, "attributes"));
    if (rc)
        return rc;
    if (c->dry)
        return span_events(c, span, scope, INGEST_NO_TIME);
    ingest__otlp_own_done(c);
    add_str(c, "trace_id", span, "traceId", true);
    add_str(c, "span_id", span, "spanId", true);
    add_str(c, "parent_span_id", span, "parentSpanId", true);
    if (scope && *scope)
        ingest__otlp_extra(c, "scope.name", scope, strlen(scope));
    int64_t t, end;
    rc = unix_nano(c, span, "startTimeUnixNano", &t);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        /* An end that is no time is left out, not a reason to reject
         * the span (dry: unix_nano's rejection then does nothing). */
        c->dry = true;
        if (unix_nano(c, span, "endTimeUnixNano", &end) != 0 || end == INGEST_NO_TIME)
            end = 0;
        c->dry = false;
        size_t act = activity_text(c, json_object_get(span, "name"), false);
        const char *tid;
        size_t tlen;
        trace_id_of(span, &tid, &tlen);
        rc = ingest__otlp_finish(c, tid, tlen, act, t, INGEST_SPAN, end);
        if (rc)
            return rc;
    }
    /* A span rejected for its time still has its events, which may have
     * times of their own. */
    return span_events(c, span, scope, rc == 0 ? t : INGEST_NO_TIME);
}

static int do_log(ingest__otlp *c, const json_t *log, const char *scope)
{
    if (!json_is_object(log))
        return ingest__otlp_bad(c, NULL, "not an object");
    ingest__otlp_start(c, false);
    int rc = add_attributes(c, json_object_get(log, "attributes"));
    if (rc || c->dry)
        return rc;
    ingest__otlp_own_done(c);
    add_str(c, "trace_id", log, "traceId", true);
    add_str(c, "span_id", log, "spanId", true);
    add_str(c, "severity_text", log, "severityText", false);
    const json_t *sev = json_object_get(log, "severityNumber");
    if (sev && !json_is_null(sev)) {
        core_buf tmp = {0};
        char num[32];
        const char *s = num;
        size_t n;
        if (json_is_integer(sev)) {
            n = (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(sev));
        } else {
            /* Not the usual number: rendered, which allocates; rare. */
            ingest__json_text(sev, &tmp);
            s = tmp.data ? tmp.data : "";
            n = tmp.len;
        }
        ingest__otlp_extra(c, "severity_number", s, n);
        core_buf_free(&tmp);
    }
    if (scope && *scope)
        ingest__otlp_extra(c, "scope.name", scope, strlen(scope));
    int64_t t;
    rc = unix_nano(c, log, "timeUnixNano", &t);
    if (rc == 0 && t == INGEST_NO_TIME)
        rc = unix_nano(c, log, "observedTimeUnixNano", &t);
    if (rc)
        return rc < 0 ? rc : 0;
    const json_t *body = json_object_get(log, "body");
    size_t act = body && !json_is_null(body)
                     ? activity_text(c, body, true)
                     : activity_text(c, json_object_get(log, "eventName"), false);
    const char *tid;
    size_t tlen;
    trace_id_of(log, &tid, &tlen);
    return ingest__otlp_finish(c, tid, tlen, act, t, INGEST_LOG, 0);
}

/* resourceSpans or resourceLogs: resources, their scopes, their records. */
static int do_resources(ingest__otlp *c, const json_t *root, bool spans)
{
    const char *const top = spans ? "resourceSpans" : "resourceLogs";
    const char *const scopes[2] = {spans ? "scopeSpans" : "scopeLogs",
                                   spans ? "instrumentationLibrarySpans"
                                         : "instrumentationLibraryLogs"};
    const char *const records = spans ? "spans" : "logRecords";
    const json_t *rlist;
    c->level = 0;
    int rc = array_of(c, root, top, &rlist);
    if (rc || !rlist)
        return rc;
    c->names[0] = top;
    for (size_t i = 0; i < json_array_size(rlist); i++) {
        const json_t *res = json_array_get(rlist, i);
        c->level = 1;
        c->idx[0] = i;
        if (!json_is_object(res))
            return ingest__otlp_bad(c, NULL, "not an object");
        rc = resource_case(c, json_object_get(res, "resource"));
        if (rc)
            return rc;
        for (int s = 0; s < 2; s++) {
            const json_t *slist;
            rc = array_of(c, res, scopes[s], &slist);
            if (rc)
                return rc;
            c->names[1] = scopes[s];
            for (size_t j = 0; j < json_array_size(slist); j++) {
                const json_t *sc = json_array_get(slist, j);
                c->level = 2;
                c->idx[1] = j;
                if (!json_is_object(sc))
                    return ingest__otlp_bad(c, NULL, "not an object");
                const json_t *scope =
                    json_object_get(sc, s == 0 ? "scope" : "instrumentationLibrary");
                const char *scope_name = json_string_value(json_object_get(scope, "name"));
                const json_t *list;
                rc = array_of(c, sc, records, &list);
                if (rc)
                    return rc;
                c->names[2] = records;
                for (size_t k = 0; k < json_array_size(list); k++) {
                    c->level = 3;
                    c->idx[2] = k;
                    const json_t *r = json_array_get(list, k);
                    rc = spans ? do_span(c, r, scope_name) : do_log(c, r, scope_name);
                    if (rc)
                        return rc;
                }
            }
        }
    }
    c->level = 0;
    return 0;
}

json_t *ingest__json_load(const char *buf, size_t len, json_error_t *jerr)
{
    if (core_utf8_valid_prefix(buf, len) == len)
        return json_loadb(buf, len, 0, jerr);
    core_buf fixed = {0};
    core_buf_utf8_repair(&fixed, buf, len);
    json_t *root = json_loadb(fixed.data, fixed.len, 0, jerr);
    core_buf_free(&fixed);
    return root;
}

int ingest__otlp_json_body(ingest__otlp *c, bool spans, const char *buf, size_t len)
{
    json_error_t jerr;
    json_t *root = ingest__json_load(buf, len, &jerr);
    if (!root)
        return core_fail(c->why, c->whylen, CORE_EFORMAT, "offset %d: invalid JSON: %s",
                         jerr.position, jerr.text);
    int rc;
    if (!json_is_object(root)) {
        rc = core_fail(c->why, c->whylen, CORE_EFORMAT, "not a JSON object");
        goto out;
    }
    const char *mine = spans ? "resourceSpans" : "resourceLogs";
    const char *other = spans ? "resourceLogs" : "resourceSpans";
    const json_t *o = json_object_get(root, other);
    if (!json_object_get(root, mine) && o && !json_is_null(o)) {
        rc = core_fail(c->why, c->whylen, CORE_EFORMAT,
                       "field '%s': this is an Export%sServiceRequest, not the "
                       "Export%sServiceRequest expected here",
                       other, spans ? "Logs" : "Trace", spans ? "Trace" : "Logs");
        goto out;
    }
    /* Check everything first: a broken body emits nothing. */
    c->dry = true;
    rc = do_resources(c, root, spans);
    c->dry = false;
    if (rc == 0)
        rc = do_resources(c, root, spans);
out:
    json_decref(root);
    return rc;
}

int ingest_otlp_json_decode(const char *buf, size_t len, const char *const *case_attrs,
                            size_t ncase, int (*emit)(void *ud, const ingest_event *ev), void *ud,
                            char *why, size_t whylen)
{
    json_error_t jerr;
    json_t *root = ingest__json_load(buf, len, &jerr);
    if (!root)
        return core_fail(why, whylen, CORE_EFORMAT, "column %d: invalid JSON: %s", jerr.column,
                         jerr.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return core_fail(why, whylen, CORE_EFORMAT, "not a JSON object");
    }
    ingest_decode_opts o = {.case_attrs = case_attrs, .ncase = ncase};
    ingest_decode_result res = {0};
    ingest__otlp c;
    ingest__otlp_init(&c, &o, false);
    c.emit = emit;
    c.ud = ud;
    c.res = &res;
    c.why = why;
    c.whylen = whylen;
    int rc = do_resources(&c, root, true);
    if (rc == 0)
        rc = do_resources(&c, root, false);
    json_decref(root);
    ingest__otlp_free(&c);
    return rc;
}
