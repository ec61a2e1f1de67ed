/*
 * OTLP JSON (ExportTraceServiceRequest, ExportLogsServiceRequest) to
 * events: the decoder shared by OTLP JSON files and, later, the OTLP/HTTP
 * receiver.
 *
 * The JSON mapping is protobuf's with OTLP's exceptions: trace and span
 * ids are hex strings, 64-bit integers are strings or numbers, field names
 * are lowerCamelCase. Unknown fields are ignored, so newer exporters still
 * read; the older instrumentationLibrary* names are accepted.
 */
#include "ingest_int.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct otlp_ctx {
    const char *const *case_attrs;
    size_t ncase;
    int (*emit)(void *ud, const ingest_event *ev);
    void *ud;
    core_buf text;         /* the record's strings */
    core_vec(size_t) offs; /* key, value, key, value, ... in text */
    core_vec(ingest_attr) attrs;
    core_buf res_case; /* the resource's case id, when it has one */
    core_buf tmp;
    bool has_res_case;
    /* Where we are, for messages: resourceSpans[i].scopeSpans[j].spans[k]. */
    const char *names[3];
    size_t idx[3];
    int level;
    char *why;
    size_t whylen;
} otlp_ctx;

static int bad(otlp_ctx *c, const char *field, const char *fmt, ...) CORE_PRINTF(3, 4);
static int bad(otlp_ctx *c, const char *field, const char *fmt, ...)
{
    if (!c->why || !c->whylen)
        return CORE_EFORMAT;
    core_buf b = {0};
    for (int l = 0; l < c->level; l++)
        core_buf_printf(&b, "%s%s[%zu]", l ? "." : "", c->names[l], c->idx[l]);
    if (field)
        core_buf_printf(&b, "%sfield '%s'", b.len ? ": " : "", field);
    core_buf_puts(&b, b.len ? ": " : "");
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    snprintf(c->why, c->whylen, "%s", b.data);
    core_buf_free(&b);
    return CORE_EFORMAT;
}

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

static void add(otlp_ctx *c, const char *key, const char *val, size_t vlen)
{
    core_vec_push(&c->offs, c->text.len);
    core_buf_puts(&c->text, key);
    core_buf_putc(&c->text, 0);
    core_vec_push(&c->offs, c->text.len);
    core_buf_append(&c->text, val, vlen);
    core_buf_putc(&c->text, 0);
}

/* Adds a string field of obj as an attribute, when it is non-empty. */
static void add_str(otlp_ctx *c, const char *key, const json_t *obj, const char *field)
{
    const json_t *v = json_object_get(obj, field);
    if (json_is_string(v) && json_string_length(v))
        add(c, key, json_string_value(v), json_string_length(v));
}

/* Appends an attribute list ([{key, value}]) to the record. */
static int add_attributes(otlp_ctx *c, const json_t *list)
{
    if (!list)
        return 0;
    if (!json_is_array(list))
        return bad(c, "attributes", "not an array");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *kv = json_array_get(list, i);
        const char *k = json_string_value(json_object_get(kv, "key"));
        if (!k)
            return bad(c, "attributes", "entry %zu has no key", i);
        core_vec_push(&c->offs, c->text.len);
        core_buf_puts(&c->text, k);
        core_buf_putc(&c->text, 0);
        core_vec_push(&c->offs, c->text.len);
        any_value(json_object_get(kv, "value"), &c->text, true);
        core_buf_putc(&c->text, 0);
    }
    return 0;
}

/* The first case attribute with a non-empty value among the attributes
 * in offs[0, to), as an offset into text; SIZE_MAX if none. */
static size_t find_case(const otlp_ctx *c, size_t to)
{
    for (size_t a = 0; a < c->ncase; a++)
        for (size_t i = 0; i + 1 < to; i += 2)
            if (strcmp(c->text.data + c->offs.v[i], c->case_attrs[a]) == 0 &&
                c->text.data[c->offs.v[i + 1]])
                return c->offs.v[i + 1];
    return SIZE_MAX;
}

/* The resource's case attribute, computed once per resource. */
static int resource_case(otlp_ctx *c, const json_t *resource)
{
    core_buf_reset(&c->text);
    c->offs.n = 0;
    c->has_res_case = false;
    int rc = add_attributes(c, json_object_get(resource, "attributes"));
    if (rc)
        return rc;
    size_t off = find_case(c, c->offs.n);
    if (off != SIZE_MAX) {
        core_buf_reset(&c->res_case);
        core_buf_puts(&c->res_case, c->text.data + off);
        c->has_res_case = true;
    }
    return 0;
}

/* A *UnixNano field: a decimal string or a number; absent or 0 is no
 * time. */
static int unix_nano(otlp_ctx *c, const json_t *obj, const char *field, int64_t *out)
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
        int rc = bad(c, field, "not a time in Unix nanoseconds: '%.60s'", b.data ? b.data : "");
        core_buf_free(&b);
        return rc;
    }
    if (t < 0)
        return bad(c, field, "negative time");
    if (t > 0)
        *out = t;
    return 0;
}

/*
 * The record is in text/offs (its attributes, then the extra fields,
 * starting at offs[nown]: the record's own attributes are offs[0, nown)).
 * Picks the case id, builds the event and emits it.
 */
static int emit_record(otlp_ctx *c, size_t nown, const json_t *trace_id, size_t act_off, int64_t t)
{
    size_t case_off = find_case(c, nown);
    if (case_off == SIZE_MAX) {
        const char *src = NULL;
        size_t n = 0;
        if (c->has_res_case) {
            src = c->res_case.data;
            n = c->res_case.len;
        } else if (json_is_string(trace_id) && json_string_length(trace_id)) {
            src = json_string_value(trace_id);
            n = json_string_length(trace_id);
        }
        if (!src) {
            core_buf keys = {0};
            for (size_t a = 0; a < c->ncase; a++)
                core_buf_printf(&keys, "'%s', ", c->case_attrs[a]);
            int rc = bad(c, NULL, "no case id: no attribute %sand no traceId",
                         keys.data ? keys.data : "");
            core_buf_free(&keys);
            return rc;
        }
        case_off = c->text.len;
        core_buf_append(&c->text, src, n);
        core_buf_putc(&c->text, 0);
    }
    c->attrs.n = 0;
    for (size_t i = 0; i + 1 < c->offs.n; i += 2)
        core_vec_push(&c->attrs, ((ingest_attr){c->text.data + c->offs.v[i],
                                                c->text.data + c->offs.v[i + 1]}));
    ingest_event ev = {
        .case_id = c->text.data + case_off,
        .activity = c->text.data + act_off,
        .time_ns = t,
        .line = 0,
        .attrs = c->attrs.v,
        .nattrs = (uint32_t)c->attrs.n,
    };
    return c->emit(c->ud, &ev);
}

static void start_record(otlp_ctx *c)
{
    core_buf_reset(&c->text);
    c->offs.n = 0;
}

/* Puts the activity text at the end of text; returns its offset. */
static size_t activity_text(otlp_ctx *c, const json_t *v, bool any)
{
    size_t off = c->text.len;
    if (any)
        any_value(v, &c->text, true);
    else if (json_is_string(v))
        core_buf_append(&c->text, json_string_value(v), json_string_length(v));
    core_buf_putc(&c->text, 0);
    return off;
}

static int do_span(otlp_ctx *c, const json_t *span, const char *scope)
{
    if (!json_is_object(span))
        return bad(c, NULL, "not an object");
    start_record(c);
    int rc = add_attributes(c, json_object_get(span, "attributes"));
    if (rc)
        return rc;
    size_t nown = c->offs.n;
    add_str(c, "trace_id", span, "traceId");
    add_str(c, "span_id", span, "spanId");
    add_str(c, "parent_span_id", span, "parentSpanId");
    if (scope && *scope)
        add(c, "scope.name", scope, strlen(scope));
    int64_t t;
    rc = unix_nano(c, span, "startTimeUnixNano", &t);
    if (rc)
        return rc;
    size_t act = activity_text(c, json_object_get(span, "name"), false);
    return emit_record(c, nown, json_object_get(span, "traceId"), act, t);
}

static int do_log(otlp_ctx *c, const json_t *log, const char *scope)
{
    if (!json_is_object(log))
        return bad(c, NULL, "not an object");
    start_record(c);
    int rc = add_attributes(c, json_object_get(log, "attributes"));
    if (rc)
        return rc;
    size_t nown = c->offs.n;
    add_str(c, "trace_id", log, "traceId");
    add_str(c, "span_id", log, "spanId");
    add_str(c, "severity_text", log, "severityText");
    const json_t *sev = json_object_get(log, "severityNumber");
    if (sev && !json_is_null(sev)) {
        core_buf_reset(&c->tmp);
        ingest__json_text(sev, &c->tmp);
        add(c, "severity_number", c->tmp.data, c->tmp.len);
    }
    if (scope && *scope)
        add(c, "scope.name", scope, strlen(scope));
    int64_t t;
    rc = unix_nano(c, log, "timeUnixNano", &t);
    if (rc == 0 && t == INGEST_NO_TIME)
        rc = unix_nano(c, log, "observedTimeUnixNano", &t);
    if (rc)
        return rc;
    const json_t *body = json_object_get(log, "body");
    size_t act = body && !json_is_null(body)
                     ? activity_text(c, body, true)
                     : activity_text(c, json_object_get(log, "eventName"), false);
    return emit_record(c, nown, json_object_get(log, "traceId"), act, t);
}

/* An array field of obj, or NULL when absent; CORE_EFORMAT when it is
 * something else. */
static int array_of(otlp_ctx *c, const json_t *obj, const char *field, const json_t **out)
{
    const json_t *v = json_object_get(obj, field);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return bad(c, field, "not an array");
    *out = v;
    return 0;
}

/* resourceSpans or resourceLogs: resources, their scopes, their records. */
static int do_resources(otlp_ctx *c, const json_t *root, bool spans)
{
    const char *const top = spans ? "resourceSpans" : "resourceLogs";
    const char *const scopes[2] = {spans ? "scopeSpans" : "scopeLogs",
                                   spans ? "instrumentationLibrarySpans"
                                         : "instrumentationLibraryLogs"};
    const char *const records = spans ? "spans" : "logRecords";
    const json_t *rlist;
    int rc = array_of(c, root, top, &rlist);
    if (rc || !rlist)
        return rc;
    c->names[0] = top;
    for (size_t i = 0; i < json_array_size(rlist); i++) {
        const json_t *res = json_array_get(rlist, i);
        c->level = 1;
        c->idx[0] = i;
        if (!json_is_object(res))
            return bad(c, NULL, "not an object");
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
                    return bad(c, NULL, "not an object");
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

int ingest_otlp_json_decode(const char *buf, size_t len, const char *const *case_attrs,
                            size_t ncase, int (*emit)(void *ud, const ingest_event *ev), void *ud,
                            char *why, size_t whylen)
{
    static const char *const default_case_attrs[] = {"case.id", "session.id", "enduser.id"};
    json_error_t jerr;
    json_t *root = json_loadb(buf, len, 0, &jerr);
    if (!root)
        return ingest__fail(why, whylen, CORE_EFORMAT, "column %d: invalid JSON: %s", jerr.column,
                            jerr.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return ingest__fail(why, whylen, CORE_EFORMAT, "not a JSON object");
    }
    otlp_ctx c = {
        .case_attrs = case_attrs ? case_attrs : default_case_attrs,
        .ncase = case_attrs ? ncase : 3,
        .emit = emit,
        .ud = ud,
        .why = why,
        .whylen = whylen,
    };
    int rc = do_resources(&c, root, true);
    if (rc == 0)
        rc = do_resources(&c, root, false);
    json_decref(root);
    core_buf_free(&c.text);
    core_buf_free(&c.res_case);
    core_buf_free(&c.tmp);
    core_vec_free(&c.offs);
    core_vec_free(&c.attrs);
    return rc;
}
