/*
 * The gRPC wire pieces of the OTLP/gRPC receiver that need no socket
 * (otlp_grpc_int.h): message prefix, grpc-message percent-encoding, and
 * the google.rpc.Status of grpc-status-details-bin.
 *
 * The Status is written by hand rather than through protobuf-c: it is four
 * small nested messages of which we only ever send one shape, and writing
 * them here keeps google/rpc and google/protobuf .proto files out of the
 * build.
 */
#include "otlp_grpc_int.h"

#include "core_wire.h"
#include "otlp_int.h"

#include <stdio.h>
#include <string.h>

uint32_t ingest__grpc_prefix_len(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[1] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 8 | (uint32_t)b[4];
}

int ingest__grpc_unframe(const void *body, size_t len, size_t max, ingest__grpc_msg *msg, char *why,
                         size_t whylen)
{
    const uint8_t *b = body;
    if (len == 0) {
        snprintf(why, whylen, "no request message (the stream ended without one)");
        return INGEST__GRPC_INTERNAL;
    }
    if (len < INGEST__GRPC_PREFIX) {
        snprintf(why, whylen, "message prefix cut short: %zu of 5 bytes", len);
        return INGEST__GRPC_INTERNAL;
    }
    if (b[0] > 1) {
        snprintf(why, whylen, "message prefix: compressed flag %u (0 or 1 expected)", b[0]);
        return INGEST__GRPC_INTERNAL;
    }
    uint32_t n = ingest__grpc_prefix_len(b);
    if (n > max) {
        snprintf(why, whylen, "message of %u bytes is larger than %zu bytes (otlp.max_body)", n,
                 max);
        return INGEST__GRPC_RESOURCE_EXHAUSTED;
    }
    size_t have = len - INGEST__GRPC_PREFIX;
    if (have < n) {
        snprintf(why, whylen, "message cut short: the prefix says %u bytes, %zu came", n, have);
        return INGEST__GRPC_INTERNAL;
    }
    if (have > n) {
        snprintf(why, whylen,
                 "%zu bytes after the message (a unary call carries exactly one message)",
                 have - n);
        return INGEST__GRPC_INTERNAL;
    }
    msg->compressed = b[0] == 1;
    msg->data = b + INGEST__GRPC_PREFIX;
    msg->len = n;
    return INGEST__GRPC_OK;
}

void ingest__grpc_frame(core_buf *out, const void *msg, size_t n)
{
    uint8_t p[INGEST__GRPC_PREFIX] = {0, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
                                      (uint8_t)n};
    core_buf_append(out, p, sizeof p);
    core_buf_append(out, msg, n);
}

void ingest__grpc_pct_encode(core_buf *out, const char *text, size_t n, size_t max)
{
    static const char hex[] = "0123456789ABCDEF";
    if (n > max)
        n = ingest__utf8_cut(text, max);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        bool edge_space = c == ' ' && (i == 0 || i + 1 == n);
        if (c < 0x20 || c > 0x7e || c == '%' || edge_space) {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            core_buf_append(out, e, 3);
        } else {
            core_buf_append(out, &text[i], 1);
        }
    }
    if (!out->data)
        core_buf_puts(out, "");
}

void ingest__grpc_base64(core_buf *out, const void *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *b = p;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
        char e[4] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63], tab[v & 63]};
        core_buf_append(out, e, 4);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)b[i] << 16;
        char e[2] = {tab[v >> 18], tab[(v >> 12) & 63]};
        core_buf_append(out, e, 2);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8;
        char e[3] = {tab[v >> 18], tab[(v >> 12) & 63], tab[(v >> 6) & 63]};
        core_buf_append(out, e, 3);
    }
    if (!out->data)
        core_buf_puts(out, "");
}

#define RETRY_INFO_URL "type.googleapis.com/google.rpc.RetryInfo"

/* A google.rpc.RetryInfo{retry_delay: Duration{seconds}}, appended. */
static void put_retry_info(core_buf *b, unsigned seconds)
{
    core_buf dur = {0};
    core_wire_buf_tag(&dur, 1, CORE_WIRE_VARINT); /* Duration.seconds */
    core_wire_buf_varint(&dur, seconds);
    core_wire_buf_bytes(b, 1, dur.data, dur.len); /* RetryInfo.retry_delay */
    core_buf_free(&dur);
}

void ingest__grpc_status_details(core_buf *out, int code, const char *message, unsigned retry_s)
{
    core_buf st = {0}, any = {0}, info = {0};
    if (code) {
        core_wire_buf_tag(&st, 1, CORE_WIRE_VARINT); /* Status.code */
        /* int32: a negative one would be ten bytes; ours never are. */
        core_wire_buf_varint(&st, (uint64_t)(uint32_t)code);
    }
    if (message && *message)
        core_wire_buf_bytes(&st, 2, message, strlen(message)); /* Status.message */
    if (retry_s) {
        put_retry_info(&info, retry_s);
        core_wire_buf_bytes(&any, 1, RETRY_INFO_URL, strlen(RETRY_INFO_URL)); /* Any.type_url */
        core_wire_buf_bytes(&any, 2, info.data, info.len);                    /* Any.value */
        core_wire_buf_bytes(&st, 3, any.data, any.len);                       /* Status.details */
    }
    ingest__grpc_base64(out, st.data, st.len);
    core_buf_free(&st);
    core_buf_free(&any);
    core_buf_free(&info);
}

void ingest__grpc_retry_info(core_buf *out, unsigned retry_s)
{
    core_buf info = {0};
    put_retry_info(&info, retry_s);
    ingest__grpc_base64(out, info.data, info.len);
    core_buf_free(&info);
}

const char *ingest_grpc_code_name(int code)
{
    static const char *const names[] = {"OK",
                                        "CANCELLED",
                                        "UNKNOWN",
                                        "INVALID_ARGUMENT",
                                        "DEADLINE_EXCEEDED",
                                        "NOT_FOUND",
                                        "ALREADY_EXISTS",
                                        "PERMISSION_DENIED",
                                        "RESOURCE_EXHAUSTED",
                                        "FAILED_PRECONDITION",
                                        "ABORTED",
                                        "OUT_OF_RANGE",
                                        "UNIMPLEMENTED",
                                        "INTERNAL",
                                        "UNAVAILABLE",
                                        "DATA_LOSS",
                                        "UNAUTHENTICATED"};
    return code >= 0 && code < (int)(sizeof names / sizeof *names) ? names[code] : "?";
}
