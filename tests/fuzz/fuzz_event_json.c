/* The one-event JSON encoding of Kafka records (ingest/event_json.c), with
 * the default limits and with tiny ones. */
#include "fuzz.h"

#include <string.h>

typedef struct emit_ctx {
    size_t max_str, max_case_id;
    int calls;
} emit_ctx;

static int emit(void *ud, const ingest_event *ev)
{
    emit_ctx *c = ud;
    fuzz_check_event(ev, c->max_str, c->max_case_id);
    c->calls++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const ingest_decode_opts opts[2] = {{0}, {.max_attrs = 1, .max_str = 3, .max_case_id = 8}};
    for (int i = 0; i < 2; i++) {
        emit_ctx c = {.max_str = opts[i].max_str ? opts[i].max_str : 8192,
                      .max_case_id = opts[i].max_case_id};
        char why[256] = "";
        int rc = ingest_event_json_decode(data, size, &opts[i], emit, &c, why, sizeof why);
        FUZZ_CHECK(rc == 0 || rc == CORE_EFORMAT);
        FUZZ_CHECK(c.calls == (rc == 0));
        FUZZ_CHECK(rc == 0 || why[0] != 0);
    }
    return 0;
}
