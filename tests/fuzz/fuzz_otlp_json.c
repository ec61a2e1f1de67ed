/*
 * OTLP JSON: request bodies of both kinds (ingest_otlp_decode, partial
 * success and limits) and the lines of OTLP JSON files
 * (ingest_otlp_json_decode, where an unusable record is an error).
 */
#include "fuzz_otlp.h"

typedef struct line_ctx {
    uint64_t n;
} line_ctx;

static int emit_line(void *ud, const ingest_event *ev)
{
    line_ctx *c = ud;
    fuzz_check_event(ev, 0, 0);
    c->n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_otlp(INGEST_OTLP_TRACES, INGEST_ENC_JSON, data, size);
    fuzz_otlp(INGEST_OTLP_LOGS, INGEST_ENC_JSON, data, size);
    line_ctx c = {0};
    char why[256] = "";
    int rc =
        ingest_otlp_json_decode((const char *)data, size, NULL, 0, emit_line, &c, why, sizeof why);
    FUZZ_CHECK(rc == 0 || rc == CORE_EFORMAT);
    FUZZ_CHECK(rc == 0 || why[0] != 0);
    return 0;
}
