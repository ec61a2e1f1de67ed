/*
 * otlp_grpc_int.h - private to ingest/: the gRPC wire pieces of the
 * OTLP/gRPC receiver that need no socket and no HTTP/2 session, kept apart
 * so that the unit test and the fuzzer reach them directly: the 5-byte
 * message prefix, the percent-encoding of grpc-message, and the
 * google.rpc.Status (with a google.rpc.RetryInfo) carried base64-encoded in
 * grpc-status-details-bin. Everything here is reentrant and borrows its
 * arguments for the call.
 */
#ifndef PMRAG_INGEST_OTLP_GRPC_INT_H
#define PMRAG_INGEST_OTLP_GRPC_INT_H

#include "ingest.h"

/* gRPC status codes the receiver answers with (the numbers are gRPC's). */
enum {
    INGEST__GRPC_OK = 0,
    INGEST__GRPC_INVALID_ARGUMENT = 3,
    INGEST__GRPC_RESOURCE_EXHAUSTED = 8,
    INGEST__GRPC_UNIMPLEMENTED = 12,
    INGEST__GRPC_INTERNAL = 13,
    INGEST__GRPC_UNAVAILABLE = 14,
    INGEST__GRPC_UNAUTHENTICATED = 16,
};

/* The length of the message prefix: a compressed flag, then the message's
 * length as a 32-bit big-endian number. */
#define INGEST__GRPC_PREFIX 5

/* The one message of a unary request, pointing into the body it came from. */
typedef struct ingest__grpc_msg {
    bool compressed;
    const uint8_t *data;
    size_t len;
} ingest__grpc_msg;

/*
 * Takes the single length-prefixed message out of a unary request's body
 * (everything the stream's DATA frames carried). Returns INGEST__GRPC_OK
 * with *msg, or the status to answer with and why: RESOURCE_EXHAUSTED when
 * the prefix announces more than max bytes; INTERNAL for a body shorter
 * than its prefix says, a flag byte other than 0 or 1, no message at all,
 * or bytes after the message (a second message on a unary call). Only the
 * prefix decides: the message's bytes are not looked at.
 */
int ingest__grpc_unframe(const void *body, size_t len, size_t max, ingest__grpc_msg *msg, char *why,
                         size_t whylen);

/* The length the prefix at p (INGEST__GRPC_PREFIX bytes) announces. */
uint32_t ingest__grpc_prefix_len(const void *p);

/* Appends the prefix and then n bytes of msg (never compressed) to out. */
void ingest__grpc_frame(core_buf *out, const void *msg, size_t n);

/*
 * Appends text as a grpc-message value: bytes outside the visible ASCII
 * range and space (0x20-0x7e), and '%', become %XX (upper-case hex), as
 * the gRPC over HTTP/2 protocol asks; a space at either end is encoded too,
 * as HTTP/2 header values may not start or end with one. At most max bytes
 * of text are encoded (cut at a UTF-8 character boundary). core_pct_decode
 * reads it back.
 */
void ingest__grpc_pct_encode(core_buf *out, const char *text, size_t n, size_t max);

/*
 * Appends, base64-encoded without padding (what -bin headers carry), a
 * google.rpc.Status with code and message and, when retry_s > 0, one
 * detail: a google.protobuf.Any holding a google.rpc.RetryInfo whose
 * retry_delay is retry_s seconds (what an OTLP exporter reads to know that
 * a RESOURCE_EXHAUSTED is worth retrying, and when).
 */
void ingest__grpc_status_details(core_buf *out, int code, const char *message, unsigned retry_s);

/*
 * Appends, base64-encoded without padding, the google.rpc.RetryInfo alone
 * (retry_delay retry_s seconds): the value of the google.rpc.retryinfo-bin
 * trailer, which some exporters (the Python SDK's) read instead of the
 * Status details.
 */
void ingest__grpc_retry_info(core_buf *out, unsigned retry_s);

/* Appends the base64 of n bytes of p (standard alphabet, no padding). */
void ingest__grpc_base64(core_buf *out, const void *p, size_t n);

/* "OK", "INVALID_ARGUMENT", ... for the codes 0 to 16; "?" otherwise. */
const char *ingest__grpc_code_name(int code);

#endif
