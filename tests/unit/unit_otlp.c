/* The encoder of unit_otlp.h. */
#include "unit_otlp.h"

#include "pmrag/otlp/collector.pb-c.h"

#include <string.h>

/* n bytes of id derived from s: never all zero. */
static void derive_id(uint8_t *id, size_t n, const char *s, uint64_t seed)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t h = core_hash64(s, strlen(s), seed + i);
        for (size_t j = 0; j < 8 && i + j < n; j++)
            id[i + j] = (uint8_t)(h >> (8 * j));
    }
    static const uint8_t zero[16];
    if (memcmp(id, zero, n) == 0)
        id[n - 1] = 1;
}

int unit_otlp_spans(const ingest_event *evs, size_t n, const char *service, core_buf *out)
{
    for (size_t i = 0; i < n; i++)
        if (!evs[i].case_id || !evs[i].case_id[0])
            return CORE_EUSAGE;
    /* Every message of the request lives in one arena, freed at once. */
    core_arena a;
    core_arena_init(&a, 0);
    Pmrag__Otlp__ExportTraceServiceRequest req = PMRAG__OTLP__EXPORT_TRACE_SERVICE_REQUEST__INIT;
    Pmrag__Otlp__ResourceSpans rs = PMRAG__OTLP__RESOURCE_SPANS__INIT;
    Pmrag__Otlp__Resource res = PMRAG__OTLP__RESOURCE__INIT;
    Pmrag__Otlp__ScopeSpans ss = PMRAG__OTLP__SCOPE_SPANS__INIT;
    Pmrag__Otlp__KeyValue svc = PMRAG__OTLP__KEY_VALUE__INIT;
    Pmrag__Otlp__AnyValue svc_val = PMRAG__OTLP__ANY_VALUE__INIT;
    Pmrag__Otlp__ResourceSpans *rsp = &rs;
    Pmrag__Otlp__KeyValue *svcp = &svc;
    Pmrag__Otlp__ScopeSpans *ssp = &ss;
    Pmrag__Otlp__ResourceSpans **rs_list = &rsp;
    req.n_resource_spans = 1;
    req.resource_spans = rs_list;
    rs.resource = &res;
    if (service) {
        svc.key = (char *)"service.name";
        svc_val.value_case = PMRAG__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
        svc_val.string_value = (char *)service;
        svc.value = &svc_val;
        res.n_attributes = 1;
        res.attributes = &svcp;
    }
    rs.n_scope_spans = 1;
    rs.scope_spans = &ssp;
    ss.n_spans = n;
    ss.spans = core_arena_alloc(&a, n * sizeof(Pmrag__Otlp__Span *));
    for (size_t i = 0; i < n; i++) {
        const ingest_event *ev = &evs[i];
        Pmrag__Otlp__Span *sp = core_arena_alloc(&a, sizeof *sp);
        *sp = (Pmrag__Otlp__Span)PMRAG__OTLP__SPAN__INIT;
        uint64_t t = ev->time_ns == INGEST_NO_TIME || ev->time_ns < 0 ? 0 : (uint64_t)ev->time_ns;
        uint8_t *ids = core_arena_alloc(&a, 24);
        derive_id(ids, 16, ev->case_id, 0x7472616365ull);
        /* The time too: one case's events at the same index of two
         * requests are two spans, not a span sent again (which the daemon
         * would drop as a duplicate). */
        derive_id(ids + 16, 8, ev->case_id,
                  0x7370616eull ^ core_hash_u64(i + 1) ^ core_hash_u64(t + 1));
        sp->trace_id = (ProtobufCBinaryData){16, ids};
        sp->span_id = (ProtobufCBinaryData){8, ids + 16};
        sp->name = (char *)(ev->activity ? ev->activity : "");
        sp->kind = PMRAG__OTLP__SPAN_KIND__SPAN_KIND_INTERNAL;
        sp->start_time_unix_nano = sp->end_time_unix_nano = t;
        size_t na = (size_t)ev->nattrs + 1;
        Pmrag__Otlp__KeyValue *kvs = core_arena_alloc(&a, na * sizeof *kvs);
        Pmrag__Otlp__AnyValue *vals = core_arena_alloc(&a, na * sizeof *vals);
        sp->attributes = core_arena_alloc(&a, na * sizeof(Pmrag__Otlp__KeyValue *));
        sp->n_attributes = na;
        for (size_t j = 0; j < na; j++) {
            kvs[j] = (Pmrag__Otlp__KeyValue)PMRAG__OTLP__KEY_VALUE__INIT;
            vals[j] = (Pmrag__Otlp__AnyValue)PMRAG__OTLP__ANY_VALUE__INIT;
            vals[j].value_case = PMRAG__OTLP__ANY_VALUE__VALUE_STRING_VALUE;
            bool is_case = j == ev->nattrs;
            kvs[j].key = (char *)(is_case ? "case.id" : ev->attrs[j].key);
            vals[j].string_value = (char *)(is_case ? ev->case_id : ev->attrs[j].val);
            kvs[j].value = &vals[j];
            sp->attributes[j] = &kvs[j];
        }
        ss.spans[i] = sp;
    }
    size_t len = pmrag__otlp__export_trace_service_request__get_packed_size(&req);
    core_buf_reserve(out, len);
    out->len +=
        pmrag__otlp__export_trace_service_request__pack(&req, (uint8_t *)out->data + out->len);
    out->data[out->len] = 0;
    core_arena_free(&a);
    return 0;
}
