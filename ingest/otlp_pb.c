/*
 * OTLP protobuf (ExportTraceServiceRequest, ExportLogsServiceRequest) to
 * events, and the export responses.
 *
 * Requests are read straight off the wire (core_wire.h) rather than
 * unpacked with protobuf-c: unpacking allocates every message, attribute
 * and string of the body, and when it fails it cannot say where. Here a
 * first walk checks the whole body against a table of the messages we
 * read (field numbers and wire types, lengths, nesting) and names the byte
 * offset and field path of the first fault; a second walk renders each
 * record into the shared record builder (otlp_int.h), the same as the JSON
 * decoder uses. A record's strings go into one reused buffer, so decoding
 * allocates nothing per record once the buffers have grown.
 *
 * Fields we do not read are skipped (newer senders still decode); a known
 * field with the wrong wire type is an error (this is also how a logs body
 * sent as traces is caught: the records' fields do not line up). Groups
 * (wire types 3 and 4) are refused: proto3 has none.
 */
#include "core_wire.h"
#include "otlp_int.h"
#include "pmrag/otlp/collector.pb-c.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The messages we read, for the checking walk                         */
/* ------------------------------------------------------------------ */

/* Deeper nesting of AnyValue arrays and maps is refused: the walks
 * recurse. The request itself adds five levels. */
#define PB_MAX_DEPTH 64

typedef enum {
    PM_TRACE_REQ,
    PM_LOGS_REQ,
    PM_RES_SPANS,
    PM_RES_LOGS,
    PM_RESOURCE,
    PM_SCOPE_SPANS,
    PM_SCOPE_LOGS,
    PM_SCOPE,
    PM_SPAN,
    PM_EVENT,
    PM_LOG,
    PM_KV,
    PM_ANY,
    PM_ARRAY,
    PM_KVLIST,
    PM_NONE, /* a scalar, a string, or a message we skip */
} pb_msg;

typedef struct pb_fdesc {
    uint32_t num;
    uint8_t wt;
    uint8_t msg; /* pb_msg of a message field */
    bool rep;    /* repeated: messages show its index */
    const char *name;
} pb_fdesc;

#define F(num, wt, msg, rep, name)                                                                 \
    {                                                                                              \
        num, wt, msg, rep, name                                                                    \
    }
static const pb_fdesc f_trace_req[] = {F(1, CORE_WIRE_LEN, PM_RES_SPANS, true, "resource_spans")};
static const pb_fdesc f_logs_req[] = {F(1, CORE_WIRE_LEN, PM_RES_LOGS, true, "resource_logs")};
static const pb_fdesc f_res_spans[] = {F(1, CORE_WIRE_LEN, PM_RESOURCE, false, "resource"),
                                       F(2, CORE_WIRE_LEN, PM_SCOPE_SPANS, true, "scope_spans"),
                                       F(3, CORE_WIRE_LEN, PM_NONE, false, "schema_url")};
static const pb_fdesc f_res_logs[] = {F(1, CORE_WIRE_LEN, PM_RESOURCE, false, "resource"),
                                      F(2, CORE_WIRE_LEN, PM_SCOPE_LOGS, true, "scope_logs"),
                                      F(3, CORE_WIRE_LEN, PM_NONE, false, "schema_url")};
static const pb_fdesc f_resource[] = {
    F(1, CORE_WIRE_LEN, PM_KV, true, "attributes"),
    F(2, CORE_WIRE_VARINT, PM_NONE, false, "dropped_attributes_count")};
static const pb_fdesc f_scope_spans[] = {F(1, CORE_WIRE_LEN, PM_SCOPE, false, "scope"),
                                         F(2, CORE_WIRE_LEN, PM_SPAN, true, "spans"),
                                         F(3, CORE_WIRE_LEN, PM_NONE, false, "schema_url")};
static const pb_fdesc f_scope_logs[] = {F(1, CORE_WIRE_LEN, PM_SCOPE, false, "scope"),
                                        F(2, CORE_WIRE_LEN, PM_LOG, true, "log_records"),
                                        F(3, CORE_WIRE_LEN, PM_NONE, false, "schema_url")};
static const pb_fdesc f_scope[] = {
    F(1, CORE_WIRE_LEN, PM_NONE, false, "name"), F(2, CORE_WIRE_LEN, PM_NONE, false, "version"),
    F(3, CORE_WIRE_LEN, PM_KV, true, "attributes"),
    F(4, CORE_WIRE_VARINT, PM_NONE, false, "dropped_attributes_count")};
static const pb_fdesc f_span[] = {
    F(1, CORE_WIRE_LEN, PM_NONE, false, "trace_id"),
    F(2, CORE_WIRE_LEN, PM_NONE, false, "span_id"),
    F(3, CORE_WIRE_LEN, PM_NONE, false, "trace_state"),
    F(4, CORE_WIRE_LEN, PM_NONE, false, "parent_span_id"),
    F(5, CORE_WIRE_LEN, PM_NONE, false, "name"),
    F(6, CORE_WIRE_VARINT, PM_NONE, false, "kind"),
    F(7, CORE_WIRE_I64, PM_NONE, false, "start_time_unix_nano"),
    F(8, CORE_WIRE_I64, PM_NONE, false, "end_time_unix_nano"),
    F(9, CORE_WIRE_LEN, PM_KV, true, "attributes"),
    F(10, CORE_WIRE_VARINT, PM_NONE, false, "dropped_attributes_count"),
    F(11, CORE_WIRE_LEN, PM_EVENT, true, "events"),
    F(12, CORE_WIRE_VARINT, PM_NONE, false, "dropped_events_count"),
    F(13, CORE_WIRE_LEN, PM_NONE, true, "links"),
    F(14, CORE_WIRE_VARINT, PM_NONE, false, "dropped_links_count"),
    F(15, CORE_WIRE_LEN, PM_NONE, false, "status"),
    F(16, CORE_WIRE_I32, PM_NONE, false, "flags")};
static const pb_fdesc f_event[] = {
    F(1, CORE_WIRE_I64, PM_NONE, false, "time_unix_nano"),
    F(2, CORE_WIRE_LEN, PM_NONE, false, "name"), F(3, CORE_WIRE_LEN, PM_KV, true, "attributes"),
    F(4, CORE_WIRE_VARINT, PM_NONE, false, "dropped_attributes_count")};
static const pb_fdesc f_log[] = {F(1, CORE_WIRE_I64, PM_NONE, false, "time_unix_nano"),
                                 F(2, CORE_WIRE_VARINT, PM_NONE, false, "severity_number"),
                                 F(3, CORE_WIRE_LEN, PM_NONE, false, "severity_text"),
                                 F(5, CORE_WIRE_LEN, PM_ANY, false, "body"),
                                 F(6, CORE_WIRE_LEN, PM_KV, true, "attributes"),
                                 F(7, CORE_WIRE_VARINT, PM_NONE, false, "dropped_attributes_count"),
                                 F(8, CORE_WIRE_I32, PM_NONE, false, "flags"),
                                 F(9, CORE_WIRE_LEN, PM_NONE, false, "trace_id"),
                                 F(10, CORE_WIRE_LEN, PM_NONE, false, "span_id"),
                                 F(11, CORE_WIRE_I64, PM_NONE, false, "observed_time_unix_nano"),
                                 F(12, CORE_WIRE_LEN, PM_NONE, false, "event_name")};
static const pb_fdesc f_kv[] = {F(1, CORE_WIRE_LEN, PM_NONE, false, "key"),
                                F(2, CORE_WIRE_LEN, PM_ANY, false, "value")};
static const pb_fdesc f_any[] = {F(1, CORE_WIRE_LEN, PM_NONE, false, "string_value"),
                                 F(2, CORE_WIRE_VARINT, PM_NONE, false, "bool_value"),
                                 F(3, CORE_WIRE_VARINT, PM_NONE, false, "int_value"),
                                 F(4, CORE_WIRE_I64, PM_NONE, false, "double_value"),
                                 F(5, CORE_WIRE_LEN, PM_ARRAY, false, "array_value"),
                                 F(6, CORE_WIRE_LEN, PM_KVLIST, false, "kvlist_value"),
                                 F(7, CORE_WIRE_LEN, PM_NONE, false, "bytes_value")};
static const pb_fdesc f_array[] = {F(1, CORE_WIRE_LEN, PM_ANY, true, "values")};
static const pb_fdesc f_kvlist[] = {F(1, CORE_WIRE_LEN, PM_KV, true, "values")};
#undef F

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct {
    const pb_fdesc *f;
    size_t n;
} pb_msgs[] = {
    [PM_TRACE_REQ] = {f_trace_req, N(f_trace_req)},
    [PM_LOGS_REQ] = {f_logs_req, N(f_logs_req)},
    [PM_RES_SPANS] = {f_res_spans, N(f_res_spans)},
    [PM_RES_LOGS] = {f_res_logs, N(f_res_logs)},
    [PM_RESOURCE] = {f_resource, N(f_resource)},
    [PM_SCOPE_SPANS] = {f_scope_spans, N(f_scope_spans)},
    [PM_SCOPE_LOGS] = {f_scope_logs, N(f_scope_logs)},
    [PM_SCOPE] = {f_scope, N(f_scope)},
    [PM_SPAN] = {f_span, N(f_span)},
    [PM_EVENT] = {f_event, N(f_event)},
    [PM_LOG] = {f_log, N(f_log)},
    [PM_KV] = {f_kv, N(f_kv)},
    [PM_ANY] = {f_any, N(f_any)},
    [PM_ARRAY] = {f_array, N(f_array)},
    [PM_KVLIST] = {f_kvlist, N(f_kvlist)},
};
#undef N

static const char *wt_name(int wt)
{
    static const char *const names[] = {"varint",      "64-bit",    "length-delimited",
                                        "group start", "group end", "32-bit"};
    return wt >= 0 && wt <= 5 ? names[wt] : "invalid";
}

typedef struct pb_check {
    const uint8_t *base;
    bool too_deep; /* the fault was the nesting limit */
    struct {
        const char *name;
        int64_t idx; /* -1: not repeated */
    } path[PB_MAX_DEPTH + 8];
    int depth;
    char *why;
    size_t whylen;
} pb_check;

/* "offset N: PATH: field F (NAME): " followed by the message. */
static int check_fail(pb_check *k, const core_wire_field *f, const pb_fdesc *d, const char *fmt,
                      ...) CORE_PRINTF(4, 5);
static int check_fail(pb_check *k, const core_wire_field *f, const pb_fdesc *d, const char *fmt,
                      ...)
{
    if (!k->why || !k->whylen)
        return CORE_EFORMAT;
    core_buf b = {0};
    core_buf_printf(&b, "offset %zu: ", (size_t)(f->tag - k->base));
    for (int i = 0; i < k->depth; i++) {
        /* A deep path keeps its ends: the record and the innermost
         * fields. */
        if (k->depth > 12 && i == 6) {
            core_buf_puts(&b, "...");
            i = k->depth - 4;
        }
        core_buf_printf(&b, "%s%s", i ? "." : "", k->path[i].name);
        if (k->path[i].idx >= 0)
            core_buf_printf(&b, "[%" PRId64 "]", k->path[i].idx);
    }
    if (k->depth)
        core_buf_puts(&b, ": ");
    if (f->num && d)
        core_buf_printf(&b, "field %u (%s): ", f->num, d->name);
    else if (f->num)
        core_buf_printf(&b, "field %u: ", f->num);
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    snprintf(k->why, k->whylen, "%s", b.data);
    core_buf_free(&b);
    return CORE_EFORMAT;
}

static const pb_fdesc *find_field(pb_msg m, uint32_t num)
{
    for (size_t i = 0; i < pb_msgs[m].n; i++)
        if (pb_msgs[m].f[i].num == num)
            return &pb_msgs[m].f[i];
    return NULL;
}

/* Checks one message of type m in p[0, n) and everything below it. */
static int check_msg(pb_check *k, pb_msg m, const uint8_t *p, size_t n)
{
    const uint8_t *r = p;
    uint32_t count[17] = {0};
    core_wire_field f;
    int rc;
    while ((rc = core_wire_next(&r, p + n, &f)) > 0) {
        const pb_fdesc *d = find_field(m, f.num);
        if (!d)
            continue;
        if (f.wt != d->wt)
            return check_fail(k, &f, d, "wire type %d (%s), expected %d (%s)", f.wt, wt_name(f.wt),
                              d->wt, wt_name(d->wt));
        if (d->msg == PM_NONE)
            continue;
        if (k->depth >= PB_MAX_DEPTH) {
            k->too_deep = true;
            return check_fail(k, &f, d, "nested deeper than %d messages", PB_MAX_DEPTH);
        }
        size_t i = (size_t)(d - pb_msgs[m].f);
        k->path[k->depth].name = d->name;
        k->path[k->depth].idx = d->rep ? (int64_t)count[i] : -1;
        count[i]++;
        k->depth++;
        rc = check_msg(k, (pb_msg)d->msg, f.p, f.n);
        k->depth--;
        if (rc)
            return rc;
    }
    if (rc == 0)
        return 0;
    const pb_fdesc *d = f.num ? find_field(m, f.num) : NULL;
    if (f.wt < 0)
        return check_fail(k, &f, NULL, "truncated field tag");
    switch (rc) {
    case CORE_WIRE_ENUMBER:
        return check_fail(k, &f, NULL, "invalid field number (0 or past 2^29-1)");
    case CORE_WIRE_ECUT:
    case CORE_WIRE_ELONG:
        if (f.wt == CORE_WIRE_I64 || f.wt == CORE_WIRE_I32)
            return check_fail(k, &f, d, "truncated %s value", wt_name(f.wt));
        return check_fail(k, &f, d, "truncated %s", f.wt == CORE_WIRE_LEN ? "length" : "varint");
    case CORE_WIRE_EPAST_END:
        return check_fail(k, &f, d, "length %" PRIu64 " runs past the end (%zu bytes left)", f.v,
                          f.n);
    case CORE_WIRE_EGROUP:
        return check_fail(k, &f, d, "groups (wire type %d) are not supported", f.wt);
    default:
        return check_fail(k, &f, d, "invalid wire type %d", f.wt);
    }
}

/* Checks a whole request body; CORE_EFORMAT with why on the first fault.
 * *too_deep tells a fault of nesting from one of the wire format. */
static int check_body(ingest_otlp_kind kind, const uint8_t *buf, size_t len, char *why,
                      size_t whylen, bool *too_deep)
{
    pb_check k = {.base = buf, .why = why, .whylen = whylen};
    int rc = check_msg(&k, kind == INGEST_OTLP_TRACES ? PM_TRACE_REQ : PM_LOGS_REQ, buf, len);
    if (too_deep)
        *too_deep = k.too_deep;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Rendering values                                                    */
/* ------------------------------------------------------------------ */

/* Loops over the fields of p[0, n). The body was checked first, so the
 * walk meets no fault; if it did (a bug), the loop would just stop there,
 * never reading out of bounds. */
typedef struct pb_rd {
    const uint8_t *p, *end;
} pb_rd;
#define FOR_FIELDS(rd, f, data, len)                                                               \
    for (pb_rd rd = {(data), (data) + (len)}; core_wire_next(&(rd).p, (rd).end, &(f)) > 0;)

static void hex(core_buf *out, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    core_buf_reserve(out, 2 * n);
    char *q = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        *q++ = digits[p[i] >> 4];
        *q++ = digits[p[i] & 15];
    }
    out->len += 2 * n;
    out->data[out->len] = 0;
}

static void base64(core_buf *out, const uint8_t *p, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        char q[4] = {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], a[v & 63]};
        core_buf_append(out, q, 4);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        char q[4] = {a[v >> 18], a[(v >> 12) & 63], '=', '='};
        core_buf_append(out, q, 4);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        char q[4] = {a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63], '='};
        core_buf_append(out, q, 4);
    }
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

typedef struct pb_dec {
    ingest__otlp *c;
    core_buf thex; /* the record's trace id in hex */
    core_buf tmp;
} pb_dec;

static void any_value(pb_dec *d, const uint8_t *p, size_t n, core_buf *out, bool top);

/* A KeyValue's key ("" when absent) and value (NULL when absent). */
typedef struct pb_kv {
    const char *key;
    size_t klen;
    const uint8_t *val;
    size_t vlen;
} pb_kv;

static pb_kv kv_read(const uint8_t *p, size_t n)
{
    pb_kv kv = {"", 0, NULL, 0};
    core_wire_field f;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num == 1 && f.wt == CORE_WIRE_LEN) {
            kv.key = (const char *)f.p;
            kv.klen = f.n;
        } else if (f.num == 2 && f.wt == CORE_WIRE_LEN) {
            kv.val = f.p;
            kv.vlen = f.n;
        }
    }
    return kv;
}

/* A KeyValue inside a kvlist: "key":value. */
static void kv_json(pb_dec *d, const uint8_t *p, size_t n, core_buf *out)
{
    pb_kv kv = kv_read(p, n);
    core_buf_json_str(out, kv.key, kv.klen);
    core_buf_putc(out, ':');
    if (kv.val)
        any_value(d, kv.val, kv.vlen, out, false);
    else
        core_buf_puts(out, "null");
}

static void any_value_nested(pb_dec *d, const uint8_t *p, size_t n, core_buf *out)
{
    any_value(d, p, n, out, false);
}

/* The repeated field 1 of an ArrayValue or KeyValueList as a JSON array or
 * object, each member rendered by item. */
static void json_list(pb_dec *d, const uint8_t *p, size_t n, core_buf *out, char open, char close,
                      void (*item)(pb_dec *d, const uint8_t *p, size_t n, core_buf *out))
{
    bool first = true;
    core_wire_field f;
    core_buf_putc(out, open);
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num != 1 || f.wt != CORE_WIRE_LEN)
            continue;
        if (!first)
            core_buf_putc(out, ',');
        first = false;
        item(d, f.p, f.n, out);
    }
    core_buf_putc(out, close);
}

/*
 * An AnyValue as the JSON decoder renders the same value in OTLP JSON: at
 * the top a string as it is, numbers and booleans as their text, bytes as
 * base64, arrays and maps as compact JSON; nested, as JSON values. Of
 * several members of the oneof on the wire the last one counts.
 */
static core_wire_field any_member(const uint8_t *p, size_t n)
{
    core_wire_field f, last = {0};
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num >= 1 && f.num <= 7)
            last = f;
    }
    return last;
}

static void render_member(pb_dec *d, const core_wire_field *m, core_buf *out, bool top);

static void any_value(pb_dec *d, const uint8_t *p, size_t n, core_buf *out, bool top)
{
    core_wire_field last = any_member(p, n);
    render_member(d, &last, out, top);
}

/* An attribute's value or a log body, into the record: a string through
 * ingest__otlp_put, which copies only what max_str keeps. */
static void any_top(pb_dec *d, const uint8_t *p, size_t n)
{
    core_wire_field last = any_member(p, n);
    if (last.num == 1)
        ingest__otlp_put(d->c, (const char *)last.p, last.n);
    else
        render_member(d, &last, &d->c->text, true);
}

static void render_member(pb_dec *d, const core_wire_field *m, core_buf *out, bool top)
{
    core_wire_field last = *m;
    switch (last.num) {
    case 1:
        if (top)
            core_buf_utf8_repair(out, (const char *)last.p, last.n);
        else
            core_buf_json_str(out, (const char *)last.p, last.n);
        break;
    case 2:
        core_buf_puts(out, last.v ? "true" : "false");
        break;
    case 3:
        core_buf_printf(out, "%" PRId64, (int64_t)last.v);
        break;
    case 4: {
        double x;
        memcpy(&x, &last.v, sizeof x);
        /* OTLP JSON spells these as strings. */
        const char *special = isnan(x)   ? "NaN"
                              : isinf(x) ? (x > 0 ? "Infinity" : "-Infinity")
                                         : NULL;
        if (special && top)
            core_buf_puts(out, special);
        else if (special)
            core_buf_json_str(out, special, strlen(special));
        else
            core_buf_json_double(out, x);
        break;
    }
    case 5: /* ArrayValue: values = 1 */
        json_list(d, last.p, last.n, out, '[', ']', any_value_nested);
        break;
    case 6: /* KeyValueList: values = 1 */
        json_list(d, last.p, last.n, out, '{', '}', kv_json);
        break;
    case 7:
        if (!top)
            core_buf_putc(out, '"');
        base64(out, last.p, last.n);
        if (!top)
            core_buf_putc(out, '"');
        break;
    default:
        if (!top)
            core_buf_puts(out, "null");
        break;
    }
}

/* One KeyValue of a record's (or resource's) attributes. */
static void attribute(pb_dec *d, const uint8_t *p, size_t n)
{
    pb_kv kv = kv_read(p, n);
    if (!ingest__otlp_attr_begin(d->c, kv.key, kv.klen))
        return;
    if (kv.val)
        any_top(d, kv.val, kv.vlen);
    ingest__otlp_attr_end(d->c);
}

/* A derived id attribute, as hex; all-zero ids are absent. */
static void id_attr(pb_dec *d, const char *key, const uint8_t *p, size_t n)
{
    if (!n || all_zero(p, n))
        return;
    core_buf_reset(&d->tmp);
    hex(&d->tmp, p, n);
    ingest__otlp_extra(d->c, key, d->tmp.data, d->tmp.len);
}

/* The trace id for the case fallback, in d->thex ("" when none). */
static void trace_hex(pb_dec *d, const uint8_t *p, size_t n)
{
    core_buf_reset(&d->thex);
    if (n && !all_zero(p, n))
        hex(&d->thex, p, n);
}

/* A fixed64 time: 0 is none, past INT64_MAX is not a time. 1 when the
 * record was rejected. */
static int pb_time(pb_dec *d, const char *field, uint64_t v, int64_t *t)
{
    *t = INGEST_NO_TIME;
    if (v > (uint64_t)INT64_MAX) {
        int rc = ingest__otlp_reject(d->c, field, "not a time in Unix nanoseconds: %" PRIu64, v);
        return rc ? rc : 1;
    }
    if (v)
        *t = (int64_t)v;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

typedef struct pb_slice {
    const uint8_t *p;
    size_t n;
    bool set;
} pb_slice;

static void set_slice(pb_slice *s, const core_wire_field *f)
{
    s->p = f->p;
    s->n = f->n;
    s->set = true;
}

/* The span a span event belongs to: what the event takes from it. */
typedef struct pb_span_ctx {
    const uint8_t *p; /* the span's bytes (its attributes are read again) */
    size_t n;
    pb_slice tid, sid;
    const pb_slice *scope;
    int64_t start; /* INGEST_NO_TIME when it has none */
} pb_span_ctx;

/* One event of a span (Span.Event: 1 time_unix_nano, 2 name, 3
 * attributes): a record of its own, its attributes first, then the
 * span's. */
static int do_span_event(pb_dec *d, const uint8_t *p, size_t n, const pb_span_ctx *sp)
{
    ingest__otlp *c = d->c;
    pb_slice name = {0};
    uint64_t time = 0;
    ingest__otlp_start(c, false);
    core_wire_field f;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num == 1)
            time = f.v;
        else if (f.num == 2)
            set_slice(&name, &f);
        else if (f.num == 3)
            attribute(d, f.p, f.n);
    }
    FOR_FIELDS(rf, f, sp->p, sp->n)
    {
        if (f.num == 9)
            attribute(d, f.p, f.n);
    }
    ingest__otlp_own_done(c);
    id_attr(d, "trace_id", sp->tid.p, sp->tid.n);
    id_attr(d, "span_id", sp->sid.p, sp->sid.n);
    if (sp->scope->n)
        ingest__otlp_extra(c, "scope.name", (const char *)sp->scope->p, sp->scope->n);
    int64_t t;
    int rc = pb_time(d, "time_unix_nano", time, &t);
    if (rc)
        return rc < 0 ? rc : 0;
    if (t == INGEST_NO_TIME)
        t = sp->start;
    size_t act = ingest__otlp_value_begin(c);
    ingest__otlp_put(c, (const char *)name.p, name.n);
    ingest__otlp_value_end(c, act);
    trace_hex(d, sp->tid.p, sp->tid.n);
    return ingest__otlp_finish(c, d->thex.data, d->thex.len, act, t, INGEST_SPAN_EVENT, 0);
}

/* The events of a span, after it (at level 4 of the messages' paths). */
static int span_events(pb_dec *d, const pb_span_ctx *sp)
{
    ingest__otlp *c = d->c;
    c->names[3] = "events";
    size_t j = 0;
    int rc = 0;
    core_wire_field f;
    FOR_FIELDS(rf, f, sp->p, sp->n)
    {
        if (f.num != 11)
            continue;
        c->level = 4;
        c->idx[3] = j++;
        rc = do_span_event(d, f.p, f.n, sp);
        if (rc)
            break;
    }
    c->level = 3;
    return rc;
}

static int do_span(pb_dec *d, const uint8_t *p, size_t n, const pb_slice *scope)
{
    ingest__otlp *c = d->c;
    pb_slice tid = {0}, sid = {0}, pid = {0}, name = {0};
    uint64_t start = 0, end = 0;
    bool events = false;
    ingest__otlp_start(c, false);
    core_wire_field f;
    FOR_FIELDS(rf, f, p, n)
    {
        switch (f.num) {
        case 1:
            set_slice(&tid, &f);
            break;
        case 2:
            set_slice(&sid, &f);
            break;
        case 4:
            set_slice(&pid, &f);
            break;
        case 5:
            set_slice(&name, &f);
            break;
        case 7:
            start = f.v;
            break;
        case 8:
            end = f.v;
            break;
        case 9:
            attribute(d, f.p, f.n);
            break;
        case 11:
            events = true;
            break;
        }
    }
    ingest__otlp_own_done(c);
    id_attr(d, "trace_id", tid.p, tid.n);
    id_attr(d, "span_id", sid.p, sid.n);
    id_attr(d, "parent_span_id", pid.p, pid.n);
    if (scope->n)
        ingest__otlp_extra(c, "scope.name", (const char *)scope->p, scope->n);
    int64_t t;
    int rc = pb_time(d, "start_time_unix_nano", start, &t);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        size_t act = ingest__otlp_value_begin(c);
        ingest__otlp_put(c, (const char *)name.p, name.n);
        ingest__otlp_value_end(c, act);
        trace_hex(d, tid.p, tid.n);
        /* An end past INT64_MAX is no time, as an end is not needed. */
        rc = ingest__otlp_finish(c, d->thex.data, d->thex.len, act, t, INGEST_SPAN,
                                 end <= (uint64_t)INT64_MAX ? (int64_t)end : 0);
        if (rc)
            return rc;
    }
    /* A span rejected for its time still has its events, which may have
     * times of their own. */
    if (!events)
        return 0;
    pb_span_ctx sp = {p, n, tid, sid, scope, rc == 0 ? t : INGEST_NO_TIME};
    return span_events(d, &sp);
}

static int do_log(pb_dec *d, const uint8_t *p, size_t n, const pb_slice *scope)
{
    ingest__otlp *c = d->c;
    pb_slice tid = {0}, sid = {0}, sev_text = {0}, body = {0}, event = {0};
    uint64_t time = 0, observed = 0, sev = 0;
    bool has_sev = false;
    ingest__otlp_start(c, false);
    core_wire_field f;
    FOR_FIELDS(rf, f, p, n)
    {
        switch (f.num) {
        case 1:
            time = f.v;
            break;
        case 2:
            sev = f.v;
            has_sev = true;
            break;
        case 3:
            set_slice(&sev_text, &f);
            break;
        case 5:
            set_slice(&body, &f);
            break;
        case 6:
            attribute(d, f.p, f.n);
            break;
        case 9:
            set_slice(&tid, &f);
            break;
        case 10:
            set_slice(&sid, &f);
            break;
        case 11:
            observed = f.v;
            break;
        case 12:
            set_slice(&event, &f);
            break;
        }
    }
    ingest__otlp_own_done(c);
    id_attr(d, "trace_id", tid.p, tid.n);
    id_attr(d, "span_id", sid.p, sid.n);
    if (sev_text.n)
        ingest__otlp_extra(c, "severity_text", (const char *)sev_text.p, sev_text.n);
    if (has_sev) {
        /* An enum: a sign-extended int32 on the wire. */
        char num[16];
        int k = snprintf(num, sizeof num, "%" PRId32, (int32_t)(uint32_t)sev);
        ingest__otlp_extra(c, "severity_number", num, (size_t)k);
    }
    if (scope->n)
        ingest__otlp_extra(c, "scope.name", (const char *)scope->p, scope->n);
    int64_t t;
    int rc = pb_time(d, "time_unix_nano", time, &t);
    if (rc == 0 && t == INGEST_NO_TIME)
        rc = pb_time(d, "observed_time_unix_nano", observed, &t);
    if (rc)
        return rc < 0 ? rc : 0;
    size_t act = ingest__otlp_value_begin(c);
    if (body.set)
        any_top(d, body.p, body.n);
    else
        ingest__otlp_put(c, (const char *)event.p, event.n);
    ingest__otlp_value_end(c, act);
    trace_hex(d, tid.p, tid.n);
    return ingest__otlp_finish(c, d->thex.data, d->thex.len, act, t, INGEST_LOG, 0);
}

/* ScopeSpans / ScopeLogs: the scope's name first (wherever it is on the
 * wire), then the records. */
static int do_scope(pb_dec *d, bool spans, const uint8_t *p, size_t n)
{
    ingest__otlp *c = d->c;
    pb_slice name = {0};
    core_wire_field f, g;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num != 1)
            continue;
        FOR_FIELDS(rg, g, f.p, f.n)
        {
            if (g.num == 1)
                set_slice(&name, &g);
        }
    }
    c->names[2] = spans ? "spans" : "log_records";
    size_t k = 0;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num != 2)
            continue;
        c->level = 3;
        c->idx[2] = k++;
        int rc = spans ? do_span(d, f.p, f.n, &name) : do_log(d, f.p, f.n, &name);
        if (rc)
            return rc;
    }
    return 0;
}

/* ResourceSpans / ResourceLogs: the resource's case id first (wherever
 * it is on the wire), then the scopes. */
static int do_resource(pb_dec *d, bool spans, const uint8_t *p, size_t n)
{
    ingest__otlp *c = d->c;
    ingest__otlp_start(c, true);
    core_wire_field f, g;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num != 1)
            continue;
        FOR_FIELDS(rg, g, f.p, f.n)
        {
            if (g.num == 1)
                attribute(d, g.p, g.n);
        }
    }
    ingest__otlp_resource_done(c);
    c->names[1] = spans ? "scope_spans" : "scope_logs";
    size_t j = 0;
    FOR_FIELDS(rf, f, p, n)
    {
        if (f.num != 2)
            continue;
        c->level = 2;
        c->idx[1] = j++;
        int rc = do_scope(d, spans, f.p, f.n);
        if (rc)
            return rc;
    }
    return 0;
}

static int pb_body(ingest__otlp *c, ingest_otlp_kind kind, const uint8_t *buf, size_t len)
{
    bool too_deep = false;
    int rc = check_body(kind, buf, len, c->why, c->whylen, &too_deep);
    if (rc) {
        /* Say so when the body is the other kind of request: then the
         * records' fields did not line up. (Not for a nesting fault: the
         * other kind may just not look as deep.) */
        ingest_otlp_kind other = kind == INGEST_OTLP_TRACES ? INGEST_OTLP_LOGS : INGEST_OTLP_TRACES;
        if (!too_deep && c->why && c->whylen && check_body(other, buf, len, NULL, 0, NULL) == 0) {
            bool spans = kind == INGEST_OTLP_TRACES;
            core_buf b = {0};
            core_buf_printf(
                &b, "not an Export%sServiceRequest but an Export%sServiceRequest (as %s: %s)",
                spans ? "Trace" : "Logs", spans ? "Logs" : "Trace", spans ? "traces" : "logs",
                c->why);
            snprintf(c->why, c->whylen, "%s", b.data);
            core_buf_free(&b);
        }
        return rc;
    }
    bool spans = kind == INGEST_OTLP_TRACES;
    pb_dec d = {.c = c};
    c->names[0] = spans ? "resource_spans" : "resource_logs";
    size_t i = 0;
    core_wire_field f;
    FOR_FIELDS(rf, f, buf, len)
    {
        if (f.num != 1)
            continue;
        c->level = 1;
        c->idx[0] = i++;
        rc = do_resource(&d, spans, f.p, f.n);
        if (rc)
            break;
    }
    c->level = 0;
    core_buf_free(&d.thex);
    core_buf_free(&d.tmp);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Public entry points                                                 */
/* ------------------------------------------------------------------ */

int ingest_otlp_decode(ingest_otlp_kind kind, ingest_encoding enc, const void *buf, size_t len,
                       const ingest_decode_opts *o, int (*emit)(void *ud, const ingest_event *ev),
                       void *ud, ingest_decode_result *res, char *why, size_t whylen)
{
    ingest_decode_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (why && whylen)
        why[0] = 0;
    if ((kind != INGEST_OTLP_TRACES && kind != INGEST_OTLP_LOGS) ||
        (enc != INGEST_ENC_PROTO && enc != INGEST_ENC_JSON) || !emit || (!buf && len))
        return core_fail(why, whylen, CORE_EUSAGE, "ingest_otlp_decode: invalid arguments");
    static const uint8_t empty[1];
    if (!buf)
        buf = empty;
    ingest__otlp c;
    ingest__otlp_init(&c, o, true);
    c.emit = emit;
    c.ud = ud;
    c.res = res;
    c.why = why;
    c.whylen = whylen;
    int rc = enc == INGEST_ENC_JSON
                 ? ingest__otlp_json_body(&c, kind == INGEST_OTLP_TRACES, buf, len)
                 : pb_body(&c, kind, buf, len);
    ingest__otlp_free(&c);
    return rc;
}

typedef struct buf_sink {
    ProtobufCBuffer base;
    core_buf *out;
} buf_sink;

static void buf_sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    core_buf_append(((buf_sink *)b)->out, data, len);
}

void ingest_otlp_response(ingest_otlp_kind kind, ingest_encoding enc, uint64_t rejected,
                          const char *message, core_buf *out)
{
    bool spans = kind == INGEST_OTLP_TRACES;
    if (enc == INGEST_ENC_JSON) {
        if (!rejected) {
            core_buf_puts(out, "{}");
            return;
        }
        /* int64 is a string in protobuf's JSON mapping. */
        core_buf_printf(out, "{\"partialSuccess\":{\"%s\":\"%" PRIu64 "\"",
                        spans ? "rejectedSpans" : "rejectedLogRecords", rejected);
        if (message && *message) {
            core_buf_puts(out, ",\"errorMessage\":");
            core_buf_json_str(out, message, strlen(message));
        }
        core_buf_puts(out, "}}");
        return;
    }
    if (!rejected)
        return; /* full success is the empty message */
    int64_t n = rejected > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rejected;
    char *msg = (char *)(message ? message : "");
    buf_sink sink = {{buf_sink_append}, out};
    if (spans) {
        Pmrag__Otlp__ExportTracePartialSuccess ps = PMRAG__OTLP__EXPORT_TRACE_PARTIAL_SUCCESS__INIT;
        Pmrag__Otlp__ExportTraceServiceResponse r =
            PMRAG__OTLP__EXPORT_TRACE_SERVICE_RESPONSE__INIT;
        ps.rejected_spans = n;
        ps.error_message = msg;
        r.partial_success = &ps;
        pmrag__otlp__export_trace_service_response__pack_to_buffer(&r, &sink.base);
    } else {
        Pmrag__Otlp__ExportLogsPartialSuccess ps = PMRAG__OTLP__EXPORT_LOGS_PARTIAL_SUCCESS__INIT;
        Pmrag__Otlp__ExportLogsServiceResponse r = PMRAG__OTLP__EXPORT_LOGS_SERVICE_RESPONSE__INIT;
        ps.rejected_log_records = n;
        ps.error_message = msg;
        r.partial_success = &ps;
        pmrag__otlp__export_logs_service_response__pack_to_buffer(&r, &sink.base);
    }
}
