/* The OTLP request-body driver (see fuzz_otlp.h). */
#include "fuzz_otlp.h"

#include "pmrag/otlp/collector.pb-c.h"

#include <jansson.h>
#include <string.h>

typedef struct emit_ctx {
    size_t max_str, max_case_id;
    uint64_t n;
} emit_ctx;

static int emit(void *ud, const ingest_event *ev)
{
    emit_ctx *c = ud;
    fuzz_check_event(ev, c->max_str, c->max_case_id);
    FUZZ_CHECK(ev->line == 0);
    c->n++;
    return 0;
}

static void check_response(ingest_otlp_kind kind, ingest_encoding enc,
                           const ingest_decode_result *res)
{
    core_buf out = {0};
    ingest_otlp_response(kind, enc, res->rejected, res->rejected ? res->reject_reason : NULL, &out);
    if (enc == INGEST_ENC_JSON) {
        json_t *j = json_loadb(out.data, out.len, 0, NULL);
        FUZZ_CHECK(j != NULL);
        json_decref(j);
    } else if (kind == INGEST_OTLP_TRACES) {
        Pmrag__Otlp__ExportTraceServiceResponse *r =
            pmrag__otlp__export_trace_service_response__unpack(NULL, out.len,
                                                               (const uint8_t *)out.data);
        FUZZ_CHECK(r != NULL);
        const char *m = r->partial_success ? r->partial_success->error_message : "";
        FUZZ_CHECK(core_utf8_valid_prefix(m, strlen(m)) == strlen(m));
        pmrag__otlp__export_trace_service_response__free_unpacked(r, NULL);
    } else {
        Pmrag__Otlp__ExportLogsServiceResponse *r =
            pmrag__otlp__export_logs_service_response__unpack(NULL, out.len,
                                                              (const uint8_t *)out.data);
        FUZZ_CHECK(r != NULL);
        const char *m = r->partial_success ? r->partial_success->error_message : "";
        FUZZ_CHECK(core_utf8_valid_prefix(m, strlen(m)) == strlen(m));
        pmrag__otlp__export_logs_service_response__free_unpacked(r, NULL);
    }
    core_buf_free(&out);
}

void fuzz_otlp(ingest_otlp_kind kind, ingest_encoding enc, const uint8_t *data, size_t size)
{
    static const char *const case_attrs[] = {"k", "case.id", "a.b"};
    const ingest_decode_opts opts[2] = {
        {0},
        {.case_attrs = case_attrs, .ncase = 3, .max_attrs = 2, .max_str = 3, .max_case_id = 8},
    };
    for (int i = 0; i < 2; i++) {
        emit_ctx c = {.max_str = opts[i].max_str ? opts[i].max_str : 8192,
                      .max_case_id = opts[i].max_case_id};
        ingest_decode_result res;
        char why[256] = "";
        int rc =
            ingest_otlp_decode(kind, enc, data, size, &opts[i], emit, &c, &res, why, sizeof why);
        FUZZ_CHECK(rc == 0 || rc == CORE_EFORMAT);
        FUZZ_CHECK(res.accepted == c.n);
        FUZZ_CHECK(memchr(res.reject_reason, 0, sizeof res.reject_reason) != NULL);
        FUZZ_CHECK(!res.rejected == !res.reject_reason[0]);
        if (rc) {
            /* The whole body is checked before the first emit. */
            FUZZ_CHECK(c.n == 0);
            FUZZ_CHECK(why[0] != 0);
            continue;
        }
        check_response(kind, enc, &res);
    }
}
