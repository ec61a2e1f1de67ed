/*
 * gzip and zlib bodies (ingest_gunzip): Content-Encoding: gzip and
 * compressed Kafka values. The same input under a large and a tiny output
 * cap must agree: the tiny cap gives the same bytes when they fit and
 * CORE_ELIMIT when they do not; an error leaves the output as it was.
 */
#include "fuzz.h"

#include <string.h>

#define PREFIX "kept"
#define BIG_CAP ((size_t)1 << 20)
#define SMALL_CAP ((size_t)64)

/* Inflates into a buffer that already holds PREFIX. */
static int inflate_into(const uint8_t *data, size_t size, size_t max, core_buf *out)
{
    core_buf_puts(out, PREFIX);
    char why[256] = "";
    int rc = ingest_gunzip(data, size, max, out, why, sizeof why);
    FUZZ_CHECK(rc == 0 || rc == CORE_ECORRUPT || rc == CORE_ELIMIT);
    FUZZ_CHECK(rc == 0 || why[0] != 0);
    if (rc)
        FUZZ_CHECK(out->len == strlen(PREFIX) && strcmp(out->data, PREFIX) == 0);
    else
        FUZZ_CHECK(out->len - strlen(PREFIX) <= max && out->data[out->len] == 0);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    core_buf big = {0}, small = {0};
    int rb = inflate_into(data, size, BIG_CAP, &big);
    int rs = inflate_into(data, size, SMALL_CAP, &small);
    size_t nbig = big.len - strlen(PREFIX);
    if (rb == 0 && nbig <= SMALL_CAP) {
        FUZZ_CHECK(rs == 0);
        FUZZ_CHECK(small.len == big.len && memcmp(small.data, big.data, big.len) == 0);
    } else if (rb == 0 || rb == CORE_ELIMIT) {
        FUZZ_CHECK(rs == CORE_ELIMIT);
    } else {
        FUZZ_CHECK(rs == CORE_ECORRUPT || rs == CORE_ELIMIT);
    }
    core_buf_free(&big);
    core_buf_free(&small);
    return 0;
}
