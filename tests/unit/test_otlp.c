/* In-memory decoders: OTLP protobuf and JSON bodies (the same events from
 * both), partial success, malformed bodies, limits, export responses, the
 * one-event JSON encoding, gunzip, and the request encoder. */
#include "core_wire.h"
#include "ingest.h"
#include "unit.h"
#include "unit_otlp.h"

#include "pmrag/otlp/collector.pb-c.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <time.h>
#include <zlib.h>

#define CHECK_HAS(s, sub)                                                                          \
    do {                                                                                           \
        const char *unit_s = (s), *unit_sub = (sub);                                               \
        if (!strstr(unit_s, unit_sub))                                                             \
            unit_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"", unit_s, unit_sub);     \
    } while (0)

/* ------------------------------------------------------------------ */
/* Building requests with the generated code                          */
/* ------------------------------------------------------------------ */

/* Everything a test builds lives here and is freed by done(). */
static core_arena A;

static void *mem(size_t n)
{
    if (!A.block_size)
        core_arena_init(&A, 0);
    return core_arena_zalloc(&A, n);
}

static void done(void)
{
    core_arena_free(&A);
    memset(&A, 0, sizeof A);
}

typedef Pmrag__Otlp__AnyValue AV;
typedef Pmrag__Otlp__KeyValue KV;

static AV *av_new(Pmrag__Otlp__AnyValue__ValueCase c)
{
    AV *v = mem(sizeof *v);
    *v = (AV)PMRAG__OTLP__ANY_VALUE__INIT;
    v->value_case = c;
    return v;
}

static AV *av_str(const char *s)
{
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_STRING_VALUE);
    v->string_value = (char *)s;
    return v;
}

static AV *av_int(int64_t x)
{
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_INT_VALUE);
    v->int_value = x;
    return v;
}

static AV *av_dbl(double x)
{
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_DOUBLE_VALUE);
    v->double_value = x;
    return v;
}

static AV *av_bool(bool x)
{
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_BOOL_VALUE);
    v->bool_value = x;
    return v;
}

static AV *av_bytes(const void *p, size_t n)
{
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_BYTES_VALUE);
    v->bytes_value = (ProtobufCBinaryData){n, (uint8_t *)p};
    return v;
}

static AV *av_empty(void)
{
    return av_new(PMRAG__OTLP__ANY_VALUE__VALUE__NOT_SET);
}

/* An array of n AnyValue pointers. */
static AV *av_arr(size_t n, ...)
{
    Pmrag__Otlp__ArrayValue *a = mem(sizeof *a);
    *a = (Pmrag__Otlp__ArrayValue)PMRAG__OTLP__ARRAY_VALUE__INIT;
    a->n_values = n;
    a->values = mem(n * sizeof *a->values + 1);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        a->values[i] = va_arg(ap, AV *);
    va_end(ap);
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_ARRAY_VALUE);
    v->array_value = a;
    return v;
}

static KV *kv(const char *k, AV *v)
{
    KV *p = mem(sizeof *p);
    *p = (KV)PMRAG__OTLP__KEY_VALUE__INIT;
    p->key = (char *)k;
    p->value = v;
    return p;
}

/* n KeyValue pointers as an array. */
static KV **kvs_va(size_t n, va_list ap)
{
    KV **l = mem(n * sizeof *l + 1);
    for (size_t i = 0; i < n; i++)
        l[i] = va_arg(ap, KV *);
    return l;
}

static AV *av_kvl(size_t n, ...)
{
    Pmrag__Otlp__KeyValueList *l = mem(sizeof *l);
    *l = (Pmrag__Otlp__KeyValueList)PMRAG__OTLP__KEY_VALUE_LIST__INIT;
    va_list ap;
    va_start(ap, n);
    l->values = kvs_va(n, ap);
    va_end(ap);
    l->n_values = n;
    AV *v = av_new(PMRAG__OTLP__ANY_VALUE__VALUE_KVLIST_VALUE);
    v->kvlist_value = l;
    return v;
}

static ProtobufCBinaryData id(const char *hex)
{
    size_t n = strlen(hex) / 2;
    uint8_t *p = mem(n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        sscanf(hex + 2 * i, "%2x", &b);
        p[i] = (uint8_t)b;
    }
    return (ProtobufCBinaryData){n, p};
}

static Pmrag__Otlp__Span *span(const char *name, const char *tid, const char *sid, const char *pid,
                               uint64_t start, size_t nattr, ...)
{
    Pmrag__Otlp__Span *s = mem(sizeof *s);
    *s = (Pmrag__Otlp__Span)PMRAG__OTLP__SPAN__INIT;
    s->name = (char *)name;
    if (tid)
        s->trace_id = id(tid);
    if (sid)
        s->span_id = id(sid);
    if (pid)
        s->parent_span_id = id(pid);
    s->kind = PMRAG__OTLP__SPAN_KIND__SPAN_KIND_SERVER;
    s->start_time_unix_nano = start;
    s->end_time_unix_nano = start ? start + 1000 : 0;
    va_list ap;
    va_start(ap, nattr);
    s->attributes = kvs_va(nattr, ap);
    va_end(ap);
    s->n_attributes = nattr;
    return s;
}

static Pmrag__Otlp__Resource *resource(size_t nattr, ...)
{
    Pmrag__Otlp__Resource *r = mem(sizeof *r);
    *r = (Pmrag__Otlp__Resource)PMRAG__OTLP__RESOURCE__INIT;
    va_list ap;
    va_start(ap, nattr);
    r->attributes = kvs_va(nattr, ap);
    va_end(ap);
    r->n_attributes = nattr;
    return r;
}

static Pmrag__Otlp__InstrumentationScope *scope(const char *name)
{
    Pmrag__Otlp__InstrumentationScope *s = mem(sizeof *s);
    *s = (Pmrag__Otlp__InstrumentationScope)PMRAG__OTLP__INSTRUMENTATION_SCOPE__INIT;
    s->name = (char *)name;
    s->version = (char *)"1";
    return s;
}

/* One ResourceSpans with one ScopeSpans of n spans. */
static Pmrag__Otlp__ResourceSpans *rspans(Pmrag__Otlp__Resource *r, const char *scope_name,
                                          size_t n, ...)
{
    Pmrag__Otlp__ScopeSpans *ss = mem(sizeof *ss);
    *ss = (Pmrag__Otlp__ScopeSpans)PMRAG__OTLP__SCOPE_SPANS__INIT;
    ss->scope = scope_name ? scope(scope_name) : NULL;
    ss->spans = mem(n * sizeof *ss->spans + 1);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        ss->spans[i] = va_arg(ap, Pmrag__Otlp__Span *);
    va_end(ap);
    ss->n_spans = n;
    Pmrag__Otlp__ResourceSpans *rs = mem(sizeof *rs);
    *rs = (Pmrag__Otlp__ResourceSpans)PMRAG__OTLP__RESOURCE_SPANS__INIT;
    rs->resource = r;
    rs->scope_spans = mem(sizeof *rs->scope_spans);
    rs->scope_spans[0] = ss;
    rs->n_scope_spans = 1;
    return rs;
}

/* Packs an ExportTraceServiceRequest of n ResourceSpans into out. */
static void pack_traces(core_buf *out, size_t n, ...)
{
    Pmrag__Otlp__ExportTraceServiceRequest req = PMRAG__OTLP__EXPORT_TRACE_SERVICE_REQUEST__INIT;
    req.resource_spans = mem(n * sizeof *req.resource_spans + 1);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        req.resource_spans[i] = va_arg(ap, Pmrag__Otlp__ResourceSpans *);
    va_end(ap);
    req.n_resource_spans = n;
    size_t len = pmrag__otlp__export_trace_service_request__get_packed_size(&req);
    uint8_t *p = mem(len + 1);
    CHECK_INT(pmrag__otlp__export_trace_service_request__pack(&req, p), len);
    core_buf_reset(out);
    core_buf_append(out, p, len);
}

static Pmrag__Otlp__LogRecord *logrec(uint64_t time, uint64_t observed, int sev,
                                      const char *sevtext, AV *body, const char *event,
                                      const char *tid, size_t nattr, ...)
{
    Pmrag__Otlp__LogRecord *l = mem(sizeof *l);
    *l = (Pmrag__Otlp__LogRecord)PMRAG__OTLP__LOG_RECORD__INIT;
    l->time_unix_nano = time;
    l->observed_time_unix_nano = observed;
    l->severity_number = (Pmrag__Otlp__SeverityNumber)sev;
    if (sevtext)
        l->severity_text = (char *)sevtext;
    l->body = body;
    if (event)
        l->event_name = (char *)event;
    if (tid)
        l->trace_id = id(tid);
    va_list ap;
    va_start(ap, nattr);
    l->attributes = kvs_va(nattr, ap);
    va_end(ap);
    l->n_attributes = nattr;
    return l;
}

static void pack_logs(core_buf *out, Pmrag__Otlp__Resource *r, const char *scope_name, size_t n,
                      ...)
{
    Pmrag__Otlp__ScopeLogs sl = PMRAG__OTLP__SCOPE_LOGS__INIT;
    sl.scope = scope_name ? scope(scope_name) : NULL;
    sl.log_records = mem(n * sizeof *sl.log_records + 1);
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        sl.log_records[i] = va_arg(ap, Pmrag__Otlp__LogRecord *);
    va_end(ap);
    sl.n_log_records = n;
    Pmrag__Otlp__ScopeLogs *slp = &sl;
    Pmrag__Otlp__ResourceLogs rl = PMRAG__OTLP__RESOURCE_LOGS__INIT;
    rl.resource = r;
    rl.scope_logs = &slp;
    rl.n_scope_logs = 1;
    Pmrag__Otlp__ResourceLogs *rlp = &rl;
    Pmrag__Otlp__ExportLogsServiceRequest req = PMRAG__OTLP__EXPORT_LOGS_SERVICE_REQUEST__INIT;
    req.resource_logs = &rlp;
    req.n_resource_logs = 1;
    size_t len = pmrag__otlp__export_logs_service_request__get_packed_size(&req);
    uint8_t *p = mem(len + 1);
    CHECK_INT(pmrag__otlp__export_logs_service_request__pack(&req, p), len);
    core_buf_reset(out);
    core_buf_append(out, p, len);
}

/* ------------------------------------------------------------------ */
/* Collecting events                                                   */
/* ------------------------------------------------------------------ */

/* Every event as "case|activity|TIME|key=val;key=val\n". */
static int dump_emit(void *ud, const ingest_event *ev)
{
    core_buf *b = ud;
    char t[40];
    ingest_format_time(ev->time_ns, t, sizeof t);
    CHECK(ev->case_id && ev->case_id[0]);
    CHECK(ev->activity);
    CHECK_INT(ev->line, 0);
    core_buf_printf(b, "%s|%s|%s|", ev->case_id, ev->activity,
                    ev->time_ns == INGEST_NO_TIME ? "-" : t);
    for (uint32_t i = 0; i < ev->nattrs; i++)
        core_buf_printf(b, "%s%s=%s", i ? ";" : "", ev->attrs[i].key, ev->attrs[i].val);
    core_buf_putc(b, '\n');
    return 0;
}

static int count_emit(void *ud, const ingest_event *ev)
{
    (void)ev;
    (*(int *)ud)++;
    return 0;
}

/* Decodes and dumps; checks the call succeeded. */
static void decode_dump(ingest_otlp_kind kind, ingest_encoding enc, const void *buf, size_t len,
                        const ingest_decode_opts *o, core_buf *out, ingest_decode_result *res)
{
    char why[512] = "";
    core_buf_reset(out);
    int rc = ingest_otlp_decode(kind, enc, buf, len, o, dump_emit, out, res, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "decode (%s) failed: %d %s",
                  enc == INGEST_ENC_JSON ? "json" : "proto", rc, why);
    if (!out->data)
        core_buf_puts(out, "");
}

/* ------------------------------------------------------------------ */
/* Both encodings give the same events                                 */
/* ------------------------------------------------------------------ */

#define TID "5b8efff798038103d269b633813fc60c"
#define TID2 "0102030405060708090a0b0c0d0e0f10"
#define TID3 "abababababababababababababababab"

static void build_traces(core_buf *pb)
{
    static const uint8_t raw[] = {0x00, 0xff, 0x10};
    pack_traces(
        pb, 2,
        rspans(resource(2, kv("service.name", av_str("shop")), kv("session.id", av_str("sess-1"))),
               "shop.http", 2,
               span("checkout", TID, "eee19b7ec3c1b174", NULL, 1795246607499635123ull, 12,
                    kv("enduser.id", av_str("alice")),
                    kv("code.function.name", av_str("shop.checkout")),
                    kv("code.lineno", av_int(42)), kv("neg", av_int(-7)), kv("d", av_dbl(1.5)),
                    kv("whole", av_dbl(2.0)), kv("b", av_bool(true)),
                    kv("arr", av_arr(5, av_str("x"), av_int(3), av_dbl(2.5),
                                     av_arr(1, av_bool(true)), av_empty())),
                    kv("kv",
                       av_kvl(3, kv("k", av_bool(false)), kv("s", av_str("y")), kv("none", NULL))),
                    kv("raw", av_bytes(raw, sizeof raw)), kv("empty", av_empty()),
                    kv("uni", av_str("caf\xc3\xa9 \xe2\x9c\x93"))),
               span("pay", TID, "aaaaaaaaaaaaaaaa", "eee19b7ec3c1b174", 1795246607600000000ull, 0)),
        rspans(resource(0), NULL, 1, span("legacy", TID2, "0101010101010101", NULL, 0, 0)));
}

static const char traces_json[] =
    "{\"resourceSpans\":[{\"resource\":{\"attributes\":["
    "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"shop\"}},"
    "{\"key\":\"session.id\",\"value\":{\"stringValue\":\"sess-1\"}}]},"
    "\"scopeSpans\":[{\"scope\":{\"name\":\"shop.http\",\"version\":\"1\"},\"spans\":["
    "{\"traceId\":\"" TID "\",\"spanId\":\"eee19b7ec3c1b174\",\"parentSpanId\":\"\","
    "\"name\":\"checkout\",\"kind\":2,\"startTimeUnixNano\":\"1795246607499635123\","
    "\"endTimeUnixNano\":\"1795246607499636123\",\"attributes\":["
    "{\"key\":\"enduser.id\",\"value\":{\"stringValue\":\"alice\"}},"
    "{\"key\":\"code.function.name\",\"value\":{\"stringValue\":\"shop.checkout\"}},"
    "{\"key\":\"code.lineno\",\"value\":{\"intValue\":\"42\"}},"
    "{\"key\":\"neg\",\"value\":{\"intValue\":\"-7\"}},"
    "{\"key\":\"d\",\"value\":{\"doubleValue\":1.5}},"
    "{\"key\":\"whole\",\"value\":{\"doubleValue\":2.0}},"
    "{\"key\":\"b\",\"value\":{\"boolValue\":true}},"
    "{\"key\":\"arr\",\"value\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"x\"},"
    "{\"intValue\":\"3\"},{\"doubleValue\":2.5},{\"arrayValue\":{\"values\":[{\"boolValue\":true}]}"
    "},"
    "{}]}}},"
    "{\"key\":\"kv\",\"value\":{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":"
    "{\"boolValue\":false}},{\"key\":\"s\",\"value\":{\"stringValue\":\"y\"}},{\"key\":\"none\"}]}}"
    "},"
    "{\"key\":\"raw\",\"value\":{\"bytesValue\":\"AP8Q\"}},"
    "{\"key\":\"empty\",\"value\":{}},"
    "{\"key\":\"uni\",\"value\":{\"stringValue\":\"caf\\u00e9 \xe2\x9c\x93\"}}]},"
    "{\"traceId\":\"" TID
    "\",\"spanId\":\"aaaaaaaaaaaaaaaa\",\"parentSpanId\":\"eee19b7ec3c1b174\","
    "\"name\":\"pay\",\"kind\":2,\"startTimeUnixNano\":\"1795246607600000000\","
    "\"endTimeUnixNano\":\"1795246607600001000\"}]}]},"
    "{\"resource\":{},\"scopeSpans\":[{\"spans\":[{\"traceId\":\"" TID2 "\","
    "\"spanId\":\"0101010101010101\",\"name\":\"legacy\"}]}]}]}";

static const char traces_dump[] =
    "alice|checkout|2026-11-21T07:36:47.499635123Z|enduser.id=alice;"
    "code.function.name=shop.checkout;code.lineno=42;neg=-7;d=1.5;whole=2;b=true;"
    "arr=[\"x\",3,2.5,[true],null];kv={\"k\":false,\"s\":\"y\",\"none\":null};raw=AP8Q;empty=;"
    "uni=caf\xc3\xa9 \xe2\x9c\x93;trace_id=" TID ";span_id=eee19b7ec3c1b174;scope.name=shop.http\n"
    "sess-1|pay|2026-11-21T07:36:47.600000000Z|trace_id=" TID ";span_id=aaaaaaaaaaaaaaaa;"
    "parent_span_id=eee19b7ec3c1b174;scope.name=shop.http\n" TID2 "|legacy|-|trace_id=" TID2
    ";span_id=0101010101010101\n";

static void build_logs(core_buf *pb)
{
    pack_logs(pb, resource(1, kv("session.id", av_str("sess-9"))), "app", 4,
              logrec(0, 1795246607000000000ull, 9, "INFO", av_str("order placed"), NULL, NULL, 2,
                     kv("code.filepath", av_str("shop/cart.py")), kv("code.lineno", av_int(17))),
              logrec(1795246607500000000ull, 0, 0, NULL, av_kvl(1, kv("event", av_str("x"))), NULL,
                     TID3, 1, kv("case.id", av_str("own"))),
              logrec(0, 0, 0, NULL, NULL, "browser.click", NULL, 0),
              logrec(0, 0, 17, "ERROR", av_arr(2, av_str("a"), av_int(1)), "ignored", NULL, 0));
}

static const char logs_json[] =
    "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"session.id\","
    "\"value\":{\"stringValue\":\"sess-9\"}}]},\"scopeLogs\":[{\"scope\":{\"name\":\"app\"},"
    "\"logRecords\":[{\"timeUnixNano\":\"0\",\"observedTimeUnixNano\":\"1795246607000000000\","
    "\"severityNumber\":9,\"severityText\":\"INFO\",\"body\":{\"stringValue\":\"order placed\"},"
    "\"attributes\":[{\"key\":\"code.filepath\",\"value\":{\"stringValue\":\"shop/cart.py\"}},"
    "{\"key\":\"code.lineno\",\"value\":{\"intValue\":\"17\"}}],"
    "\"traceId\":\"\",\"spanId\":\"\"},"
    "{\"timeUnixNano\":\"1795246607500000000\",\"body\":{\"kvlistValue\":{\"values\":["
    "{\"key\":\"event\",\"value\":{\"stringValue\":\"x\"}}]}},\"traceId\":\"" TID3 "\","
    "\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":\"own\"}}]},"
    "{\"eventName\":\"browser.click\"},"
    "{\"severityNumber\":17,\"severityText\":\"ERROR\",\"eventName\":\"ignored\","
    "\"body\":{\"arrayValue\":{\"values\":[{\"stringValue\":\"a\"},{\"intValue\":\"1\"}]}}}"
    "]}]}]}";

static const char logs_dump[] =
    "sess-9|order placed|2026-11-21T07:36:47.000000000Z|code.filepath=shop/cart.py;"
    "code.lineno=17;severity_text=INFO;severity_number=9;scope.name=app\n"
    "own|{\"event\":\"x\"}|2026-11-21T07:36:47.500000000Z|case.id=own;trace_id=" TID3
    ";scope.name=app\n"
    "sess-9|browser.click|-|scope.name=app\n"
    "sess-9|[\"a\",1]|-|severity_text=ERROR;severity_number=17;scope.name=app\n";

/* The events of both encodings, compared event by event and field by
 * field (the dump holds every field), and against the expected text. */
/* Deep copies of the events of one decode (in the test arena). */
typedef struct evlist {
    ingest_event v[16];
    size_t n;
} evlist;

static char *copy_str(const char *s)
{
    size_t n = strlen(s);
    char *d = mem(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

static int keep_emit(void *ud, const ingest_event *ev)
{
    evlist *l = ud;
    CHECK(l->n < 16);
    ingest_event *e = &l->v[l->n++];
    *e = *ev;
    e->case_id = copy_str(ev->case_id);
    e->activity = copy_str(ev->activity);
    ingest_attr *at = mem((ev->nattrs + 1) * sizeof *at);
    for (uint32_t i = 0; i < ev->nattrs; i++)
        at[i] = (ingest_attr){copy_str(ev->attrs[i].key), copy_str(ev->attrs[i].val)};
    e->attrs = at;
    return 0;
}

static void check_same(ingest_otlp_kind kind, const core_buf *pb, const char *json,
                       const char *want)
{
    core_buf a = {0};
    ingest_decode_result ra, rb;
    decode_dump(kind, INGEST_ENC_PROTO, pb->data, pb->len, NULL, &a, &ra);
    /* Field by field. */
    evlist ep = {0}, ej = {0};
    char why[256];
    CHECK_OK(ingest_otlp_decode(kind, INGEST_ENC_PROTO, pb->data, pb->len, NULL, keep_emit, &ep,
                                NULL, why, sizeof why));
    CHECK_OK(ingest_otlp_decode(kind, INGEST_ENC_JSON, json, strlen(json), NULL, keep_emit, &ej,
                                &rb, why, sizeof why));
    CHECK_INT(ep.n, ej.n);
    for (size_t i = 0; i < ep.n; i++) {
        const ingest_event *p = &ep.v[i], *j = &ej.v[i];
        CHECK_STR(p->case_id, j->case_id);
        CHECK_STR(p->activity, j->activity);
        CHECK_INT(p->time_ns, j->time_ns);
        CHECK_INT(p->line, j->line);
        CHECK_INT(p->kind, j->kind);
        CHECK_INT(p->end_ns, j->end_ns);
        CHECK_INT(p->nattrs, j->nattrs);
        for (uint32_t k = 0; k < p->nattrs; k++) {
            CHECK_STR(p->attrs[k].key, j->attrs[k].key);
            CHECK_STR(p->attrs[k].val, j->attrs[k].val);
        }
    }
    /* And both are what they should be. */
    CHECK_STR(a.data, want);
    CHECK_INT(ra.accepted, rb.accepted);
    CHECK_INT(ra.rejected, 0);
    CHECK_INT(rb.rejected, 0);
    CHECK_INT(ra.truncated, 0);
    CHECK_STR(ra.reject_reason, "");
    core_buf_free(&a);
}

TEST(proto_and_json_give_the_same_events)
{
    core_buf pb = {0};
    build_traces(&pb);
    check_same(INGEST_OTLP_TRACES, &pb, traces_json, traces_dump);
    build_logs(&pb);
    check_same(INGEST_OTLP_LOGS, &pb, logs_json, logs_dump);
    core_buf_free(&pb);
    done();
}

/* A span with two events: one with a time and attributes of its own, one
 * without either. */
static void build_span_events(core_buf *pb)
{
    Pmrag__Otlp__Span *s =
        span("pay", TID, "aaaaaaaaaaaaaaaa", "eee19b7ec3c1b174", 1795246607600000000ull, 2,
             kv("case.id", av_str("ord-1")), kv("code.lineno", av_int(7)));
    s->end_time_unix_nano = 1795246607900000000ull;
    s->events = mem(2 * sizeof *s->events);
    s->n_events = 2;
    for (int i = 0; i < 2; i++) {
        s->events[i] = mem(sizeof *s->events[i]);
        *s->events[i] = (Pmrag__Otlp__SpanEvent)PMRAG__OTLP__SPAN_EVENT__INIT;
    }
    s->events[0]->name = (char *)"exception";
    s->events[0]->time_unix_nano = 1795246607700000000ull;
    s->events[0]->attributes = mem(sizeof *s->events[0]->attributes);
    s->events[0]->attributes[0] = kv("exception.type", av_str("Declined"));
    s->events[0]->n_attributes = 1;
    s->events[1]->name = (char *)"retrying";
    pack_traces(pb, 1, rspans(resource(0), "shop.pay", 1, s));
}

static const char span_events_json[] =
    "{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"scope\":{\"name\":\"shop.pay\"},"
    "\"spans\":[{\"traceId\":\"" TID "\",\"spanId\":\"aaaaaaaaaaaaaaaa\","
    "\"parentSpanId\":\"eee19b7ec3c1b174\",\"name\":\"pay\","
    "\"startTimeUnixNano\":\"1795246607600000000\",\"endTimeUnixNano\":\"1795246607900000000\","
    "\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":\"ord-1\"}},"
    "{\"key\":\"code.lineno\",\"value\":{\"intValue\":\"7\"}}],"
    "\"events\":[{\"timeUnixNano\":\"1795246607700000000\",\"name\":\"exception\","
    "\"attributes\":[{\"key\":\"exception.type\",\"value\":{\"stringValue\":\"Declined\"}}]},"
    "{\"name\":\"retrying\"}]}]}]}]}";

static const char span_events_dump[] =
    "ord-1|pay|2026-11-21T07:36:47.600000000Z|case.id=ord-1;code.lineno=7;trace_id=" TID
    ";span_id=aaaaaaaaaaaaaaaa;parent_span_id=eee19b7ec3c1b174;scope.name=shop.pay\n"
    "ord-1|exception|2026-11-21T07:36:47.700000000Z|exception.type=Declined;case.id=ord-1;"
    "code.lineno=7;trace_id=" TID ";span_id=aaaaaaaaaaaaaaaa;scope.name=shop.pay\n"
    "ord-1|retrying|2026-11-21T07:36:47.600000000Z|case.id=ord-1;code.lineno=7;trace_id=" TID
    ";span_id=aaaaaaaaaaaaaaaa;scope.name=shop.pay\n";

TEST(span_events_follow_their_span)
{
    core_buf pb = {0};
    build_span_events(&pb);
    check_same(INGEST_OTLP_TRACES, &pb, span_events_json, span_events_dump);
    /* The span with its end; its events with the span's code.* and ids,
     * the one without a time at the span's start. */
    evlist ev = {0};
    char why[256];
    CHECK_OK(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL,
                                keep_emit, &ev, NULL, why, sizeof why));
    CHECK_INT(ev.n, 3);
    CHECK_INT(ev.v[0].kind, INGEST_SPAN);
    CHECK_INT(ev.v[0].end_ns, 1795246607900000000ll);
    CHECK_INT(ev.v[1].kind, INGEST_SPAN_EVENT);
    CHECK_INT(ev.v[1].end_ns, 0);
    CHECK_INT(ev.v[2].kind, INGEST_SPAN_EVENT);
    CHECK_INT(ev.v[2].time_ns, ev.v[0].time_ns);
    /* A log record is of its kind too. */
    build_logs(&pb);
    evlist lg = {0};
    CHECK_OK(ingest_otlp_decode(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, pb.data, pb.len, NULL,
                                keep_emit, &lg, NULL, why, sizeof why));
    CHECK_INT(lg.v[0].kind, INGEST_LOG);
    /* An event whose time is not one is rejected alone, with its path. */
    static const char bad[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"" TID "\","
        "\"name\":\"pay\",\"events\":[{\"name\":\"x\",\"timeUnixNano\":\"soon\"}]}]}]}]}";
    ingest_decode_result res;
    evlist b = {0};
    CHECK_OK(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, bad, strlen(bad), NULL,
                                keep_emit, &b, &res, why, sizeof why));
    CHECK_INT(b.n, 1);
    CHECK_INT(res.rejected, 1);
    CHECK(strstr(res.reject_reason, "spans[0].events[0]: field 'timeUnixNano'") != NULL);
    core_buf_free(&pb);
    done();
}

TEST(case_attributes_are_configurable)
{
    core_buf pb = {0}, out = {0};
    build_traces(&pb);
    const char *const keys[] = {"service.name", "enduser.id"};
    ingest_decode_opts o = {.case_attrs = keys, .ncase = 2};
    for (int enc = 0; enc < 2; enc++) {
        if (enc == INGEST_ENC_PROTO)
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, &o, &out, NULL);
        else
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_JSON, traces_json, strlen(traces_json), &o,
                        &out, NULL);
        /* The record's own attributes come before the resource's, whatever
         * the order of preference: the span's enduser.id beats the
         * resource's service.name. Without an own one, the resource's. */
        CHECK(strncmp(out.data, "alice|checkout|", 15) == 0);
        CHECK_HAS(out.data, "\nshop|pay|");
        CHECK_HAS(out.data, "\n" TID2 "|legacy|");
    }
    core_buf_free(&pb);
    core_buf_free(&out);
    done();
}

/* ------------------------------------------------------------------ */
/* Partial success                                                     */
/* ------------------------------------------------------------------ */

static const char partial_json[] =
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
    "{\"traceId\":\"" TID "\",\"name\":\"ok\",\"startTimeUnixNano\":\"1700000000000000000\"},"
    "{\"traceId\":\"00000000000000000000000000000000\",\"name\":\"zero\"},"
    "{\"name\":\"own-case\",\"attributes\":[{\"key\":\"case.id\",\"value\":{\"stringValue\":\"c2\"}"
    "}]},"
    "{\"traceId\":\"" TID "\",\"name\":\"late\",\"startTimeUnixNano\":\"soon\"},"
    "{\"name\":\"nothing\"}]}]}]}";

TEST(unusable_records_are_rejected_not_fatal)
{
    core_buf pb = {0}, out = {0};
    pack_traces(&pb, 1,
                rspans(resource(0), NULL, 5, span("ok", TID, NULL, NULL, 1700000000000000000ull, 0),
                       span("zero", "00000000000000000000000000000000", NULL, NULL, 0, 0),
                       span("own-case", NULL, NULL, NULL, 0, 1, kv("case.id", av_str("c2"))),
                       span("late", TID, NULL, NULL, UINT64_MAX, 0),
                       span("nothing", NULL, NULL, NULL, 0, 0)));
    const char *want = TID "|ok|2023-11-14T22:13:20.000000000Z|trace_id=" TID "\n"
                           "c2|own-case|-|case.id=c2\n";
    for (int enc = 0; enc < 2; enc++) {
        ingest_decode_result res;
        if (enc == INGEST_ENC_PROTO)
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out, &res);
        else
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_JSON, partial_json, strlen(partial_json),
                        NULL, &out, &res);
        CHECK_STR(out.data, want);
        CHECK_INT(res.accepted, 2);
        CHECK_INT(res.rejected, 3);
        CHECK_INT(res.truncated, 0);
        /* The first rejected record: its path and why. */
        CHECK_HAS(res.reject_reason, enc == INGEST_ENC_PROTO
                                         ? "resource_spans[0].scope_spans[0].spans[1]"
                                         : "resourceSpans[0].scopeSpans[0].spans[1]");
        CHECK_HAS(res.reject_reason, "no case id");
        CHECK_HAS(res.reject_reason, "'case.id'");
    }
    /* The bad time's reason, alone. */
    pack_traces(&pb, 1, rspans(resource(0), NULL, 1, span("late", TID, NULL, NULL, UINT64_MAX, 0)));
    ingest_decode_result res;
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out, &res);
    CHECK_INT(res.rejected, 1);
    CHECK_HAS(res.reject_reason, "spans[0]: field 'start_time_unix_nano': not a time");

    /* The response that goes back. */
    core_buf resp = {0};
    ingest_otlp_response(INGEST_OTLP_TRACES, INGEST_ENC_JSON, 3, "2 spans had no \"case\"", &resp);
    CHECK_STR(resp.data, "{\"partialSuccess\":{\"rejectedSpans\":\"3\","
                         "\"errorMessage\":\"2 spans had no \\\"case\\\"\"}}");
    core_buf_free(&resp);
    core_buf_free(&pb);
    core_buf_free(&out);
    done();
}

TEST(counts_and_usage_errors)
{
    core_buf pb = {0};
    build_traces(&pb);
    for (int enc = 0; enc < 2; enc++) {
        int calls = 0;
        ingest_decode_result res;
        int rc;
        if (enc == INGEST_ENC_PROTO)
            rc = ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL,
                                    count_emit, &calls, &res, NULL, 0);
        else
            rc = ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, traces_json,
                                    strlen(traces_json), NULL, count_emit, &calls, &res, NULL, 0);
        CHECK_OK(rc);
        CHECK_INT(calls, 3);
        CHECK_INT(res.accepted, 3);
    }
    /* No emit: a usage error. */
    ingest_decode_result res;
    int rc = ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, NULL,
                                NULL, &res, NULL, 0);
    CHECK_INT(rc, CORE_EUSAGE);
    core_buf_free(&pb);
    done();
}

static int stop_second(void *ud, const ingest_event *ev)
{
    (void)ev;
    return ++*(int *)ud == 2 ? -ECANCELED : 0;
}

TEST(emit_error_is_returned)
{
    core_buf pb = {0};
    build_traces(&pb);
    int n = 0;
    ingest_decode_result res;
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL,
                                 stop_second, &n, &res, NULL, 0),
              -ECANCELED);
    CHECK_INT(n, 2);
    CHECK_INT(res.accepted, 1);
    n = 0;
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, traces_json,
                                 strlen(traces_json), NULL, stop_second, &n, &res, NULL, 0),
              -ECANCELED);
    CHECK_INT(n, 2);
    core_buf_free(&pb);
    done();
}

/* ------------------------------------------------------------------ */
/* Malformed bodies                                                    */
/* ------------------------------------------------------------------ */

TEST(wrong_kind_is_an_error)
{
    core_buf traces = {0}, logs = {0};
    build_traces(&traces);
    build_logs(&logs);
    char why[512];
    int n = 0;
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, logs.data, logs.len, NULL,
                                 count_emit, &n, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "ExportLogsServiceRequest");
    CHECK_HAS(why, "offset ");
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, traces.data, traces.len, NULL,
                                 count_emit, &n, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "not an ExportLogsServiceRequest but an ExportTraceServiceRequest");
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, logs_json, strlen(logs_json),
                                 NULL, count_emit, &n, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "resourceLogs");
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_LOGS, INGEST_ENC_JSON, traces_json,
                                 strlen(traces_json), NULL, count_emit, &n, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "ExportTraceServiceRequest");
    CHECK_INT(n, 0);
    /* Empty bodies are empty requests. */
    ingest_decode_result res;
    CHECK_OK(ingest_otlp_decode(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, NULL, 0, NULL, count_emit, &n,
                                &res, why, sizeof why));
    CHECK_OK(ingest_otlp_decode(INGEST_OTLP_LOGS, INGEST_ENC_JSON, "{}", 2, NULL, count_emit, &n,
                                &res, why, sizeof why));
    CHECK_INT(n, 0);
    CHECK_INT(res.accepted, 0);
    core_buf_free(&traces);
    core_buf_free(&logs);
    done();
}

/* Bodies the generated code would not write, field by field
 * (core_wire.h's writers); a message field from its encoded bytes. */
static void w_msg(core_buf *b, uint32_t num, const core_buf *m)
{
    core_wire_buf_bytes(b, num, m->data ? m->data : "", m->len);
}

TEST(field_order_and_unknown_fields)
{
    /* Resource after the scopes, scope after the spans, unknown fields of
     * every wire type: the events are as if the body were in order. */
    core_buf val = {0}, kvb = {0}, sp = {0}, sc = {0}, ss = {0}, res = {0}, rkv = {0}, rval = {0},
             rs = {0}, body = {0}, out = {0};
    core_wire_buf_bytes(&val, 1, "v", 1);
    core_wire_buf_bytes(&kvb, 1, "k", 1);
    w_msg(&kvb, 2, &val);
    core_wire_buf_tag(&sp, 99, 0);
    core_wire_buf_varint(&sp, 5);
    core_wire_buf_bytes(&sp, 5, "early", 5);
    core_wire_buf_tag(&sp, 100, 5);
    core_buf_append(&sp, "\1\2\3\4", 4);
    w_msg(&sp, 9, &kvb);
    core_wire_buf_tag(&sp, 101, 1);
    core_buf_append(&sp, "\1\2\3\4\5\6\7\10", 8);
    core_wire_buf_bytes(&sp, 5, "late", 4); /* the last one wins */
    ProtobufCBinaryData t = id(TID);
    core_wire_buf_bytes(&sp, 1, t.data, t.len);
    core_wire_buf_bytes(&sp, 102, "zz", 2);
    w_msg(&ss, 2, &sp);
    core_wire_buf_bytes(&sc, 1, "s", 1);
    w_msg(&ss, 1, &sc);
    core_wire_buf_bytes(&rval, 1, "rc", 2);
    core_wire_buf_bytes(&rkv, 1, "case.id", 7);
    w_msg(&rkv, 2, &rval);
    w_msg(&res, 1, &rkv);
    w_msg(&rs, 2, &ss);
    w_msg(&rs, 1, &res);
    w_msg(&body, 1, &rs);
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, body.data, body.len, NULL, &out, NULL);
    CHECK_STR(out.data, "rc|late|-|k=v;trace_id=" TID ";scope.name=s\n");

    /* A group inside a span, a known field with the wrong wire type, a
     * length past the end, a bad field number. */
    char why[512];
    int n = 0;
    struct {
        core_buf b;
        const char *a, *c;
    } bad[4] = {{{0}, NULL, NULL}};
    core_buf s = {0}, tmp = {0};
    /* 0: group */
    core_buf_reset(&s);
    core_wire_buf_bytes(&s, 5, "x", 1);
    core_wire_buf_tag(&s, 50, 3);
    core_buf_reset(&tmp);
    w_msg(&tmp, 2, &s);
    core_buf_reset(&ss);
    w_msg(&ss, 2, &tmp);
    w_msg(&bad[0].b, 1, &ss);
    bad[0].a = "resource_spans[0].scope_spans[0].spans[0]: field 50: groups";
    /* 1: start time as a varint */
    core_buf_reset(&s);
    core_wire_buf_tag(&s, 7, 0);
    core_wire_buf_varint(&s, 12345);
    core_buf_reset(&tmp);
    w_msg(&tmp, 2, &s);
    core_buf_reset(&ss);
    w_msg(&ss, 2, &tmp);
    w_msg(&bad[1].b, 1, &ss);
    bad[1].a = "field 7 (start_time_unix_nano): wire type 0 (varint), expected 1 (64-bit)";
    /* 2: a length past the end of its message */
    core_wire_buf_tag(&bad[2].b, 1, 2);
    core_wire_buf_varint(&bad[2].b, 100);
    core_buf_append(&bad[2].b, "abc", 3);
    bad[2].a = "offset 0: field 1 (resource_spans): length 100 runs past the end (3 bytes left)";
    /* 3: field number 0 */
    core_wire_buf_tag(&bad[3].b, 0, 0);
    core_wire_buf_varint(&bad[3].b, 1);
    bad[3].a = "offset 0: invalid field number";
    for (int i = 0; i < 4; i++) {
        CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, bad[i].b.data,
                                     bad[i].b.len, NULL, count_emit, &n, NULL, why, sizeof why),
                  CORE_EFORMAT);
        CHECK_HAS(why, bad[i].a);
        core_buf_free(&bad[i].b);
    }
    CHECK_INT(n, 0);
    core_buf *all[] = {&val, &kvb, &sp, &sc, &ss, &res, &rkv, &rval, &rs, &body, &out, &s, &tmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        core_buf_free(all[i]);
    done();
}

TEST(deep_nesting_is_refused)
{
    /* An attribute value of arrays nested 200 deep. */
    core_buf v = {0}, next = {0};
    core_wire_buf_tag(&v, 2, 0);
    core_wire_buf_varint(&v, 1);
    for (int i = 0; i < 200; i++) {
        core_buf arr = {0};
        w_msg(&arr, 1, &v);
        core_buf_reset(&next);
        w_msg(&next, 5, &arr);
        core_buf_reset(&v);
        core_buf_append(&v, next.data, next.len);
        core_buf_free(&arr);
    }
    core_buf kvb = {0}, sp = {0}, ss = {0}, rs = {0}, body = {0};
    core_wire_buf_bytes(&kvb, 1, "deep", 4);
    w_msg(&kvb, 2, &v);
    w_msg(&sp, 9, &kvb);
    w_msg(&ss, 2, &sp);
    w_msg(&rs, 2, &ss);
    w_msg(&body, 1, &rs);
    char why[512];
    int n = 0;
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, body.data, body.len, NULL,
                                 count_emit, &n, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "nested deeper than");
    core_buf *all[] = {&v, &next, &kvb, &sp, &ss, &rs, &body};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        core_buf_free(all[i]);
}

/* Every prefix of a body, and bodies with bytes changed: our decoder
 * never crashes, emits nothing for a body it refuses, and accepts every
 * body that protobuf-c's own unpack accepts. */
static void check_body(const uint8_t *p, size_t n, const char *what, size_t at)
{
    int calls = 0;
    char why[512] = "";
    int rc = ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, p, n, NULL, count_emit,
                                &calls, NULL, why, sizeof why);
    if (rc != 0 && rc != CORE_EFORMAT)
        unit_fail(__FILE__, __LINE__, "%s %zu: rc %d", what, at, rc);
    if (rc) {
        if (calls)
            unit_fail(__FILE__, __LINE__, "%s %zu: %d events before the error", what, at, calls);
        if (strncmp(why, "offset ", 7) != 0 && !strstr(why, "(as traces: offset "))
            unit_fail(__FILE__, __LINE__, "%s %zu: message without offset: %s", what, at, why);
    }
    Pmrag__Otlp__ExportTraceServiceRequest *req =
        pmrag__otlp__export_trace_service_request__unpack(NULL, n, p);
    /* protobuf-c alone takes a length-delimited bool (as if packed). */
    if (req && rc && !strstr(why, "(bool_value): wire type 2"))
        unit_fail(__FILE__, __LINE__, "%s %zu: protobuf-c accepts, we refuse: %s", what, at, why);
    if (req)
        pmrag__otlp__export_trace_service_request__free_unpacked(req, NULL);
}

TEST(truncated_and_mutated_bodies)
{
    core_buf pb = {0};
    build_traces(&pb);
    const uint8_t *p = (const uint8_t *)pb.data;
    char why[512];
    int calls = 0;
    /* A cut in the middle of the first span: the offset of the field. */
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, p, pb.len - 5, NULL,
                                 count_emit, &calls, NULL, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, ": field 1 (resource_spans): length");
    CHECK_INT(calls, 0);
    int refused = 0;
    for (size_t cut = 0; cut < pb.len; cut++) {
        check_body(p, cut, "prefix", cut);
        int c2 = 0;
        refused += ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, p, cut, NULL,
                                      count_emit, &c2, NULL, NULL, 0) != 0;
    }
    CHECK(refused > (int)pb.len / 2);
    uint8_t *m = malloc(pb.len);
    uint64_t seed = 42;
    for (int round = 0; round < 3000; round++) {
        memcpy(m, p, pb.len);
        int flips = 1 + (int)(core_splitmix64(&seed) % 3);
        for (int f = 0; f < flips; f++) {
            size_t at = core_splitmix64(&seed) % pb.len;
            m[at] = (uint8_t)core_splitmix64(&seed);
        }
        check_body(m, pb.len, "mutation", (size_t)round);
    }
    free(m);
    core_buf_free(&pb);
    done();
}

TEST(json_body_errors_name_offset_or_path)
{
    static const struct {
        const char *json, *a;
    } bad[] = {
        {"{\"resourceSpans\": [", "offset 19: invalid JSON"},
        {"[1]", "not a JSON object"},
        {"{\"resourceSpans\":{}}", "field 'resourceSpans': not an array"},
        {"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"t\"},"
         "{\"attributes\":{}}]}]}]}",
         "resourceSpans[0].scopeSpans[0].spans[1]: field 'attributes': not an array"},
        {"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"t\"}, 7]}]}]}",
         "spans[1]: not an object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[512] = "";
        int n = 0;
        CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, bad[i].json,
                                     strlen(bad[i].json), NULL, count_emit, &n, NULL, why,
                                     sizeof why),
                  CORE_EFORMAT);
        CHECK_HAS(why, bad[i].a);
        /* The whole body is checked first: the good span before the bad
         * one did not come out. */
        CHECK_INT(n, 0);
    }
}

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

static const char limits_json[] =
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":\"sc\"},\"spans\":["
    "{\"traceId\":\"" TID "\",\"name\":\"abcdef\",\"attributes\":["
    "{\"key\":\"a\",\"value\":{\"stringValue\":\"a\\u00e9\\u00e9\"}},"
    "{\"key\":\"b\",\"value\":{\"intValue\":\"123456\"}},"
    "{\"key\":\"longkey\",\"value\":{\"stringValue\":\"x\"}},"
    "{\"key\":\"d\",\"value\":{\"stringValue\":\"dropped\"}},"
    "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"case-7\"}}]},"
    "{\"traceId\":\"" TID "\",\"name\":\"ok\",\"attributes\":["
    "{\"key\":\"k\",\"value\":{\"stringValue\":\"v\"}}]}]}]}]}";

TEST(max_attrs_and_max_str_are_counted)
{
    core_buf pb = {0}, out = {0};
    pack_traces(&pb, 1,
                rspans(resource(0), "sc", 2,
                       span("abcdef", TID, NULL, NULL, 0, 5, kv("a", av_str("a\xc3\xa9\xc3\xa9")),
                            kv("b", av_int(123456)), kv("longkey", av_str("x")),
                            kv("d", av_str("dropped")), kv("case.id", av_str("case-7"))),
                       span("ok", TID, NULL, NULL, 0, 1, kv("k", av_str("v")))));
    ingest_decode_opts o = {.max_attrs = 3, .max_str = 4};
    /* a: "a" + two 2-byte characters is 5 bytes: cut to "a\xc3\xa9", not
     * inside the second one. The case id comes from a dropped attribute;
     * derived attributes are not capped in number. The trace_id attribute
     * (32 hex digits) is cut too, but no case id ever is, from an
     * attribute or the trace id: cut, two cases would become one. */
    const char *want = "case-7|abcd|-|a=a\xc3\xa9;b=1234;long=x;trace_id=5b8e;scope.name=sc\n" TID
                       "|ok|-|k=v;trace_id=5b8e;scope.name=sc\n";
    for (int enc = 0; enc < 2; enc++) {
        ingest_decode_result res;
        if (enc == INGEST_ENC_PROTO)
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, &o, &out, &res);
        else
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_JSON, limits_json, strlen(limits_json), &o,
                        &out, &res);
        CHECK_STR(out.data, want);
        CHECK_INT(res.accepted, 2);
        CHECK_INT(res.truncated, 2);
    }
    /* Defaults: nothing cut. */
    ingest_decode_result res;
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out, &res);
    CHECK_INT(res.truncated, 0);
    CHECK_HAS(out.data, "case-7|abcdef|-|a=a\xc3\xa9\xc3\xa9;b=123456;longkey=x;d=dropped;"
                        "case.id=case-7;trace_id=" TID);
    /* A long string with the default cap: 8192 bytes kept. */
    char *big = malloc(20000);
    memset(big, 'x', 19999);
    big[19999] = 0;
    pack_traces(
        &pb, 1,
        rspans(resource(0), NULL, 1, span(big, TID, NULL, NULL, 0, 1, kv("big", av_str(big)))));
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out, &res);
    CHECK_INT(res.truncated, 1);
    CHECK_INT(strcspn(out.data + strlen(TID) + 1, "|"), 8192);
    free(big);
    core_buf_free(&pb);
    core_buf_free(&out);
    done();
}

/* One invalid UTF-8 byte: the same event from JSON as from protobuf (it
 * used to reject the whole JSON batch). */
TEST(invalid_utf8_json_as_protobuf)
{
    core_buf pb = {0}, out = {0}, out_pb = {0};
    pack_traces(&pb, 1,
                rspans(resource(0), "sc", 2,
                       span("bad \xff name", TID, NULL, NULL, 0, 1, kv("case.id", av_str("c\xc3"))),
                       span("good", TID, NULL, NULL, 0, 1, kv("case.id", av_str("c2")))));
    static const char json[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":\"sc\"},\"spans\":["
        "{\"traceId\":\"" TID "\",\"name\":\"bad \xff name\",\"attributes\":["
        "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"c\xc3\"}}]},"
        "{\"traceId\":\"" TID "\",\"name\":\"good\",\"attributes\":["
        "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"c2\"}}]}]}]}]}";
    ingest_decode_result res;
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out_pb, &res);
    CHECK_INT(res.accepted, 2);
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_JSON, json, strlen(json), NULL, &out, &res);
    CHECK_INT(res.accepted, 2);
    CHECK_STR(out.data, out_pb.data);
    CHECK_HAS(out.data, "c\xef\xbf\xbd|bad \xef\xbf\xbd name|");
    /* max_str bounds the bytes kept, U+FFFD's three included. */
    core_buf pb3 = {0};
    pack_traces(&pb3, 1,
                rspans(resource(0), "sc", 1,
                       span("\xff\xff\xff", TID, NULL, NULL, 0, 1, kv("case.id", av_str("c")))));
    ingest_decode_opts o4 = {.max_str = 4};
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb3.data, pb3.len, &o4, &out_pb, &res);
    CHECK_HAS(out_pb.data, "c|\xef\xbf\xbd|");
    CHECK_INT(res.truncated, 1);
    core_buf_free(&pb3);
    /* Outside a string it is still no JSON. */
    char why[256] = "";
    CHECK_INT(ingest_otlp_decode(INGEST_OTLP_TRACES, INGEST_ENC_JSON, "{\xff}", 3, NULL, dump_emit,
                                 &out, &res, why, sizeof why),
              CORE_EFORMAT);
    core_buf_free(&pb);
    core_buf_free(&out);
    core_buf_free(&out_pb);
    done();
}

/* A case id over max_case_id refuses its record (never cut: two cases
 * would become one), in both encodings and in a JSON event. */
TEST(max_case_id_refuses_the_record)
{
    core_buf pb = {0}, out = {0};
    pack_traces(&pb, 1,
                rspans(resource(0), "sc", 2,
                       span("fits", TID, NULL, NULL, 0, 1, kv("case.id", av_str("case-7"))),
                       span("over", TID, NULL, NULL, 0, 1, kv("case.id", av_str("case-77")))));
    static const char json[] =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
        "{\"traceId\":\"" TID "\",\"name\":\"fits\",\"attributes\":["
        "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"case-7\"}}]},"
        "{\"traceId\":\"" TID "\",\"name\":\"over\",\"attributes\":["
        "{\"key\":\"case.id\",\"value\":{\"stringValue\":\"case-77\"}}]}]}]}]}";
    ingest_decode_opts o = {.max_case_id = 6, .max_str = 2};
    for (int enc = 0; enc < 2; enc++) {
        ingest_decode_result res;
        if (enc == INGEST_ENC_PROTO)
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, &o, &out, &res);
        else
            decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_JSON, json, strlen(json), &o, &out, &res);
        CHECK_HAS(out.data, "case-7|fi|");
        CHECK(!strstr(out.data, "case-77"));
        CHECK_INT(res.accepted, 1);
        CHECK_INT(res.rejected, 1);
        CHECK_HAS(res.reject_reason, "case id of 7 bytes: longer than the 6-byte limit");
    }
    char why[256] = "";
    const char *ev77 = "{\"case_id\":\"case-77\",\"activity\":\"a\"}";
    CHECK_INT(ingest_event_json_decode(ev77, strlen(ev77), &o, dump_emit, &out, why, sizeof why),
              CORE_EFORMAT);
    CHECK_HAS(why, "case id of 7 bytes: longer than the 6-byte limit");
    core_buf_reset(&out);
    const char *ev7 = "{\"case_id\":\"case-7\",\"activity\":\"a\"}";
    CHECK_OK(ingest_event_json_decode(ev7, strlen(ev7), &o, dump_emit, &out, why, sizeof why));
    CHECK_HAS(out.data, "case-7|");
    core_buf_free(&pb);
    core_buf_free(&out);
    done();
}

/* Only the case key that gave the case id stays whole; a longer value of
 * another case key is an attribute, cut to max_str like any other. */
TEST(other_case_keys_are_cut)
{
    static const char *const keys[] = {"k", "alt"};
    core_buf pb = {0}, out = {0};
    pack_traces(&pb, 1,
                rspans(resource(0), "sc", 1,
                       span("op", TID, NULL, NULL, 0, 2, kv("alt", av_str("long-alt-id")),
                            kv("k", av_str("case-1")))));
    ingest_decode_opts o = {.case_attrs = keys, .ncase = 2, .max_str = 3};
    ingest_decode_result res;
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, &o, &out, &res);
    CHECK_HAS(out.data, "case-1|op|");
    CHECK_HAS(out.data, "alt=lon;k=case-1");
    CHECK_INT(res.accepted, 1);
    CHECK_INT(res.truncated, 1);
    core_buf_free(&pb);
    core_buf_free(&out);
    done();
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

TEST(export_responses)
{
    core_buf b = {0};
    ingest_otlp_response(INGEST_OTLP_TRACES, INGEST_ENC_JSON, 0, "ignored", &b);
    CHECK_STR(b.data, "{}");
    core_buf_reset(&b);
    ingest_otlp_response(INGEST_OTLP_LOGS, INGEST_ENC_JSON, 12, NULL, &b);
    CHECK_STR(b.data, "{\"partialSuccess\":{\"rejectedLogRecords\":\"12\"}}");
    core_buf_free(&b);

    /* Protobuf: empty on full success. */
    ingest_otlp_response(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, 0, "x", &b);
    CHECK_INT(b.len, 0);
    ingest_otlp_response(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, 0, NULL, &b);
    CHECK_INT(b.len, 0);
    /* Appends: after a prefix. */
    core_buf_puts(&b, "P");
    ingest_otlp_response(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, 3, "three spans: no case id", &b);
    Pmrag__Otlp__ExportTraceServiceResponse *tr =
        pmrag__otlp__export_trace_service_response__unpack(NULL, b.len - 1,
                                                           (const uint8_t *)b.data + 1);
    CHECK(tr != NULL);
    CHECK(tr->partial_success != NULL);
    CHECK_INT(tr->partial_success->rejected_spans, 3);
    CHECK_STR(tr->partial_success->error_message, "three spans: no case id");
    pmrag__otlp__export_trace_service_response__free_unpacked(tr, NULL);
    core_buf_reset(&b);
    ingest_otlp_response(INGEST_OTLP_LOGS, INGEST_ENC_PROTO, 7, NULL, &b);
    Pmrag__Otlp__ExportLogsServiceResponse *lr =
        pmrag__otlp__export_logs_service_response__unpack(NULL, b.len, (const uint8_t *)b.data);
    CHECK(lr != NULL);
    CHECK(lr->partial_success != NULL);
    CHECK_INT(lr->partial_success->rejected_log_records, 7);
    CHECK_STR(lr->partial_success->error_message, "");
    pmrag__otlp__export_logs_service_response__free_unpacked(lr, NULL);
    /* The wire bytes themselves: field 1 { field 1 varint 7 }. */
    CHECK_INT(b.len, 4);
    CHECK(memcmp(b.data, "\x0a\x02\x08\x07", 4) == 0);
    core_buf_free(&b);
}

/* ------------------------------------------------------------------ */
/* The request encoder the tests and the load generator send with      */
/* ------------------------------------------------------------------ */

TEST(encode_spans_round_trip)
{
    const ingest_attr a0[] = {{"code.function.name", "shop.checkout"}, {"k", "v"}};
    const ingest_event evs[] = {
        {.case_id = "c1",
         .activity = "checkout",
         .time_ns = 1700000000000000001,
         .attrs = a0,
         .nattrs = 2},
        {.case_id = "c2", .activity = "", .time_ns = INGEST_NO_TIME},
        {.case_id = "c1", .activity = "pay", .time_ns = 1700000000000000002},
    };
    core_buf pb = {0}, out = {0};
    core_buf_puts(&pb, "");
    size_t before = pb.len;
    CHECK_OK(unit_otlp_spans(evs, 3, "svc", &pb));
    CHECK(pb.len > before);
    decode_dump(INGEST_OTLP_TRACES, INGEST_ENC_PROTO, pb.data, pb.len, NULL, &out, NULL);
    /* case.id is an own attribute; ids are derived from the case. */
    char *lines[3];
    char *save = NULL;
    char *text = core_xstrdup(out.data);
    lines[0] = strtok_r(text, "\n", &save);
    lines[1] = strtok_r(NULL, "\n", &save);
    lines[2] = strtok_r(NULL, "\n", &save);
    CHECK(lines[2] != NULL);
    CHECK(strncmp(lines[0],
                  "c1|checkout|2023-11-14T22:13:20.000000001Z|code.function.name=shop.checkout;"
                  "k=v;case.id=c1;trace_id=",
                  strlen("c1|checkout|2023-11-14T22:13:20.000000001Z|code.function.name=shop."
                         "checkout;k=v;case.id=c1;trace_id=")) == 0);
    CHECK(strncmp(lines[1], "c2||-|case.id=c2;trace_id=", 26) == 0);
    CHECK(strncmp(lines[2], "c1|pay|2023-11-14T22:13:20.000000002Z|case.id=c1;trace_id=", 58) == 0);
    /* Same case, same trace id; other case, other id; span ids differ. */
    const char *t0 = strstr(lines[0], "trace_id="), *t1 = strstr(lines[1], "trace_id="),
               *t2 = strstr(lines[2], "trace_id=");
    CHECK(strncmp(t0, t2, 9 + 32) == 0);
    CHECK(strncmp(t0, t1, 9 + 32) != 0);
    CHECK(strncmp(t0 + 9, "00000000000000000000000000000000", 32) != 0);
    CHECK(strcmp(strstr(lines[0], "span_id="), strstr(lines[2], "span_id=")) != 0);
    CHECK_INT(strlen(strstr(lines[0], "span_id=")), 8 + 16);
    free(text);
    /* The resource's service.name is there for the generated code too. */
    Pmrag__Otlp__ExportTraceServiceRequest *req =
        pmrag__otlp__export_trace_service_request__unpack(NULL, pb.len, (const uint8_t *)pb.data);
    CHECK(req != NULL);
    CHECK_INT(req->n_resource_spans, 1);
    CHECK_STR(req->resource_spans[0]->resource->attributes[0]->key, "service.name");
    CHECK_STR(req->resource_spans[0]->resource->attributes[0]->value->string_value, "svc");
    CHECK_INT(req->resource_spans[0]->scope_spans[0]->n_spans, 3);
    pmrag__otlp__export_trace_service_request__free_unpacked(req, NULL);
    /* No case id: refused. */
    const ingest_event bad = {.case_id = "", .activity = "x"};
    CHECK_INT(unit_otlp_spans(&bad, 1, NULL, &pb), CORE_EUSAGE);
    core_buf_free(&pb);
    core_buf_free(&out);
}

/* ------------------------------------------------------------------ */
/* One event as JSON                                                   */
/* ------------------------------------------------------------------ */

static int event_dump(const char *json, const ingest_decode_opts *o, core_buf *out, char *why,
                      size_t whylen)
{
    core_buf_reset(out);
    return ingest_event_json_decode(json, strlen(json), o, dump_emit, out, why, whylen);
}

TEST(event_json_good_records)
{
    static const struct {
        const char *json, *want;
    } good[] = {
        {"{\"case_id\":\"c1\",\"activity\":\"login\",\"timestamp\":\"2026-11-21T07:36:47.5Z\","
         "\"code.lineno\":17,\"user\":\"ann\",\"nested\":{\"a\":[1,true,null]},\"gone\":null,"
         "\"ratio\":0.25}",
         "c1|login|2026-11-21T07:36:47.500000000Z|code.lineno=17;user=ann;"
         "nested={\"a\":[1,true,null]};ratio=0.25\n"},
        {"{\"case:concept:name\":\"c2\",\"concept:name\":\"\",\"time:timestamp\":1700000000}",
         "c2||2023-11-14T22:13:20.000000000Z|\n"},
        {"{\"activity\":\"a\",\"case_id\":\"c3\",\"timestamp\":1700000000.25,"
         "\"case:concept:name\":\"other\"}",
         "c3|a|2023-11-14T22:13:20.250000000Z|case:concept:name=other\n"},
        {"{\"case_id\":\"c4\",\"activity\":\"a\",\"timestamp\":1700000000123}",
         "c4|a|2023-11-14T22:13:20.123000000Z|\n"},
        {"{\"case_id\":\"c5\",\"activity\":\"a\",\"timestamp\":\"\"}", "c5|a|-|\n"},
        {"{\"case_id\":null,\"case:concept:name\":\"c6\",\"activity\":\"a\"}", "c6|a|-|\n"},
    };
    core_buf out = {0};
    char why[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int rc = event_dump(good[i].json, NULL, &out, why, sizeof why);
        if (rc)
            unit_fail(__FILE__, __LINE__, "record %zu: %d %s", i, rc, why);
        CHECK_STR(out.data, good[i].want);
    }
    /* Limits: two attributes, four bytes. */
    ingest_decode_opts o = {.max_attrs = 2, .max_str = 4};
    CHECK_OK(event_dump("{\"case_id\":\"case-1\",\"activity\":\"abcdef\",\"a\":\"12345\",\"b\":"
                        "[1,2,3],\"c\":\"x\"}",
                        &o, &out, why, sizeof why));
    CHECK_STR(out.data, "case-1|abcd|-|a=1234;b=[1,2\n"); /* the case id is never cut */
    /* emit's result comes back. */
    CHECK_INT(ingest_event_json_decode("{\"case_id\":\"c\",\"activity\":\"a\"}", 30, NULL,
                                       stop_second, &(int){1}, why, sizeof why),
              -ECANCELED);
    core_buf_free(&out);
}

/* Found by fuzz_event_json: a case id whose first character is longer
 * than max_str was cut to nothing and the event emitted with an empty
 * case id. Case ids are no longer cut at all (two would become one). */
TEST(event_json_case_id_is_never_cut)
{
    core_buf out = {0};
    char why[256] = "";
    ingest_decode_opts o = {.max_str = 3};
    CHECK_OK(event_dump("{\"case:concept:name\":\"\\ud83d\\ude00\",\"activity\":\"\"}", &o, &out,
                        why, sizeof why));
    CHECK_STR(out.data, "\xf0\x9f\x98\x80||-|\n");
    CHECK_OK(event_dump("{\"case_id\":\"\xc3\xa9\xc3\xa9\",\"activity\":\"a\"}", &o, &out, why,
                        sizeof why));
    CHECK_STR(out.data, "\xc3\xa9\xc3\xa9|a|-|\n");
    core_buf_free(&out);
}

TEST(event_json_bad_records)
{
    static const struct {
        const char *json, *a;
    } bad[] = {
        {"{\"activity\":\"a\"}", "field 'case_id': missing"},
        {"{\"case_id\":7,\"activity\":\"a\"}", "field 'case_id': not a string"},
        {"{\"case:concept:name\":[],\"activity\":\"a\"}",
         "field 'case:concept:name': not a string"},
        {"{\"case_id\":\"\",\"activity\":\"a\"}", "field 'case_id': empty"},
        {"{\"case_id\":\"c\"}", "field 'activity': missing"},
        {"{\"case_id\":\"c\",\"activity\":1}", "field 'activity': not a string"},
        {"{\"case_id\":\"c\",\"activity\":\"a\",\"timestamp\":\"2026-13-01\"}",
         "field 'timestamp': not a time: '2026-13-01'"},
        {"{\"case_id\":\"c\",\"activity\":\"a\",\"time:timestamp\":true}",
         "field 'time:timestamp': not a time"},
        {"{\"case_id\":\"c\",\"activity\":\"a\"} x", "offset 32: invalid JSON"},
        {"{\"case_id\":\"c\",", "offset 15: invalid JSON"},
        {"[\"case_id\"]", "not a JSON object"},
    };
    core_buf out = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[256] = "";
        CHECK_INT(event_dump(bad[i].json, NULL, &out, why, sizeof why), CORE_EFORMAT);
        CHECK_HAS(why, bad[i].a);
        CHECK(out.len == 0);
    }
    core_buf_free(&out);
}

/* ------------------------------------------------------------------ */
/* gunzip                                                              */
/* ------------------------------------------------------------------ */

/* data compressed: gzip (wbits 31) or zlib (15), appended to out. */
static void compress_to(core_buf *out, const void *data, size_t n, int wbits)
{
    z_stream zs = {0};
    CHECK_INT(deflateInit2(&zs, 6, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY), Z_OK);
    unsigned char chunk[65536];
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (unsigned)n;
    int z;
    do {
        zs.next_out = chunk;
        zs.avail_out = sizeof chunk;
        z = deflate(&zs, Z_FINISH);
        core_buf_append(out, chunk, sizeof chunk - zs.avail_out);
    } while (z == Z_OK);
    CHECK_INT(z, Z_STREAM_END);
    deflateEnd(&zs);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(gunzip_normal_concatenated_zlib)
{
    const char *a = "hello, ", *b = "world\n";
    core_buf gz = {0}, out = {0};
    char why[256];
    compress_to(&gz, a, strlen(a), 31);
    CHECK_OK(ingest_gunzip(gz.data, gz.len, 100, &out, why, sizeof why));
    CHECK_STR(out.data, "hello, ");
    /* Two members: one text, as gunzip prints it. */
    compress_to(&gz, b, strlen(b), 31);
    core_buf_reset(&out);
    CHECK_OK(ingest_gunzip(gz.data, gz.len, 100, &out, why, sizeof why));
    CHECK_STR(out.data, "hello, world\n");
    /* zlib-wrapped deflate, appended after what out held. */
    core_buf z = {0};
    compress_to(&z, b, strlen(b), 15);
    CHECK_OK(ingest_gunzip(z.data, z.len, 100, &out, why, sizeof why));
    CHECK_STR(out.data, "hello, world\nworld\n");
    /* Exactly the cap is fine; one byte less is not. */
    core_buf_reset(&out);
    CHECK_OK(ingest_gunzip(gz.data, gz.len, 13, &out, why, sizeof why));
    CHECK_INT(out.len, 13);
    core_buf_reset(&out);
    core_buf_puts(&out, "keep");
    CHECK_INT(ingest_gunzip(gz.data, gz.len, 12, &out, why, sizeof why), CORE_ELIMIT);
    CHECK_STR(out.data, "keep");
    /* An empty member (gzip of nothing). */
    core_buf e = {0};
    compress_to(&e, "", 0, 31);
    core_buf_reset(&out);
    CHECK_OK(ingest_gunzip(e.data, e.len, 10, &out, why, sizeof why));
    CHECK_INT(out.len, 0);
    core_buf_free(&gz);
    core_buf_free(&z);
    core_buf_free(&e);
    core_buf_free(&out);
}

TEST(gunzip_bomb_stops_at_the_cap)
{
    size_t big = (size_t)100 << 20;
    char *zeros = calloc(1, big);
    core_buf gz = {0}, out = {0};
    compress_to(&gz, zeros, big, 31);
    free(zeros);
    CHECK(gz.len < (size_t)1 << 20);
    char why[256];
    double t0 = now_s();
    CHECK_INT(ingest_gunzip(gz.data, gz.len, (size_t)1 << 20, &out, why, sizeof why), CORE_ELIMIT);
    double dt = now_s() - t0;
    CHECK_HAS(why, "larger than 1048576 bytes");
    CHECK_INT(out.len, 0);
    /* Inflating all 100 MiB takes far longer than inflating 1 MiB. */
    if (dt > 0.5)
        unit_fail(__FILE__, __LINE__, "took %.3f s", dt);
    core_buf_free(&gz);
    core_buf_free(&out);
}

TEST(gunzip_corrupt_and_truncated)
{
    char text[4096];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + (i * 7919) % 26);
    core_buf gz = {0}, out = {0};
    char why[256];
    compress_to(&gz, text, sizeof text, 31);
    /* Truncated: every cut is an error, never a short success. */
    for (size_t cut = 0; cut < gz.len; cut += 7) {
        core_buf_reset(&out);
        CHECK_INT(ingest_gunzip(gz.data, cut, 1 << 20, &out, why, sizeof why), CORE_ECORRUPT);
        CHECK_HAS(why, "offset ");
        CHECK_INT(out.len, 0);
    }
    /* A changed byte in the data or the CRC. */
    core_buf bad = {0};
    core_buf_append(&bad, gz.data, gz.len);
    bad.data[gz.len - 6] ^= 0x55; /* in the CRC-32 */
    core_buf_reset(&out);
    CHECK_INT(ingest_gunzip(bad.data, bad.len, 1 << 20, &out, why, sizeof why), CORE_ECORRUPT);
    CHECK_HAS(why, "corrupt");
    /* Not compressed at all, and garbage after a good member. */
    CHECK_INT(ingest_gunzip("plain text", 10, 100, &out, why, sizeof why), CORE_ECORRUPT);
    CHECK_INT(ingest_gunzip("", 0, 100, &out, why, sizeof why), CORE_ECORRUPT);
    core_buf_reset(&bad);
    core_buf_append(&bad, gz.data, gz.len);
    core_buf_puts(&bad, "trailing junk");
    CHECK_INT(ingest_gunzip(bad.data, bad.len, 1 << 20, &out, why, sizeof why), CORE_ECORRUPT);
    CHECK_INT(out.len, 0);
    core_buf_free(&gz);
    core_buf_free(&bad);
    core_buf_free(&out);
}
