/*
 * In-memory gzip and zlib decompression for request bodies
 * (Content-Encoding: gzip or deflate) and compressed Kafka values.
 *
 * The output is capped while inflating, not after: inflate writes into a
 * fixed window and stops as soon as the total would pass the cap, so a
 * small body made to expand into gigabytes costs the cap and no more.
 */
#include "ingest_int.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* Output window per inflate call: large enough for few calls, small
 * enough for the stack. */
#define GUNZIP_CHUNK (64 * 1024)

int ingest_gunzip(const void *buf, size_t len, size_t max, core_buf *out, char *why, size_t whylen)
{
    if (!buf || !len)
        return core_fail(why, whylen, CORE_ECORRUPT, "offset 0: empty compressed data");
    const size_t start_len = out->len;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    /* 15 + 32: a 32 KiB window, gzip or zlib header detected. */
    if (inflateInit2(&zs, 15 + 32) != Z_OK)
        return core_fail(why, whylen, -ENOMEM, "inflateInit2: out of memory");
    const unsigned char *in = buf;
    size_t consumed = 0; /* input before the current zs.next_in window */
    size_t produced = 0;
    int rc = 0;
    unsigned char chunk[GUNZIP_CHUNK];
    for (;;) {
        /* Feed at most UINT_MAX bytes at a time (avail_in is unsigned). */
        if (zs.avail_in == 0 && consumed < len) {
            size_t n = len - consumed;
            zs.next_in = (unsigned char *)in + consumed;
            zs.avail_in = n > UINT_MAX ? UINT_MAX : (unsigned)n;
            consumed += zs.avail_in;
        }
        /* One byte more than the cap allows tells "more than max" from
         * "exactly max". */
        size_t left = max - produced;
        zs.next_out = chunk;
        zs.avail_out = left < sizeof chunk ? (unsigned)left + 1 : (unsigned)sizeof chunk;
        unsigned want = zs.avail_out;
        int z = inflate(&zs, Z_NO_FLUSH);
        size_t got = want - zs.avail_out;
        size_t at = consumed - zs.avail_in; /* input offset reached */
        if (got > max - produced) {
            rc = core_fail(why, whylen, CORE_ELIMIT,
                           "offset %zu: decompressed data larger than %zu bytes", at, max);
            goto done;
        }
        core_buf_append(out, chunk, got);
        produced += got;
        if (z == Z_STREAM_END) {
            /* Another member may follow (gzip allows concatenation). */
            if (at == len)
                break;
            if (inflateReset(&zs) != Z_OK) {
                rc = core_fail(why, whylen, CORE_ECORRUPT, "offset %zu: inflateReset failed", at);
                goto done;
            }
            continue;
        }
        if (z == Z_DATA_ERROR || z == Z_NEED_DICT) {
            rc = core_fail(why, whylen, CORE_ECORRUPT, "offset %zu: corrupt data: %s", at,
                           zs.msg ? zs.msg : "needs a preset dictionary");
            goto done;
        }
        if (z == Z_MEM_ERROR) {
            rc = core_fail(why, whylen, -ENOMEM, "offset %zu: inflate: out of memory", at);
            goto done;
        }
        if (z == Z_BUF_ERROR && zs.avail_in == 0 && consumed == len) {
            /* No progress possible: the input ended inside a member. */
            rc = core_fail(why, whylen, CORE_ECORRUPT, "offset %zu: truncated compressed data", at);
            goto done;
        }
        if (z != Z_OK && z != Z_BUF_ERROR) {
            rc = core_fail(why, whylen, CORE_ECORRUPT, "offset %zu: inflate error %d", at, z);
            goto done;
        }
        if (z == Z_OK && got == 0 && zs.avail_in == 0 && consumed == len) {
            rc = core_fail(why, whylen, CORE_ECORRUPT, "offset %zu: truncated compressed data", at);
            goto done;
        }
    }
done:
    inflateEnd(&zs);
    if (rc) {
        out->len = start_len;
        if (out->data)
            out->data[start_len] = 0;
    }
    return rc;
}
