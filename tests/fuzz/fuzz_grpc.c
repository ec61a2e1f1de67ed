/*
 * The OTLP/gRPC receiver's framing (ingest/otlp_grpc_int.h), white-box:
 * the body of a unary call as a pool thread sees it.
 *
 * Input: byte 0 sets the size limit (byte * 16 bytes), byte 1 the call
 * (bit 0: grpc-encoding gzip, bit 1: logs rather than traces, bit 5: a
 * RetryInfo in the status details; the low bits modulo 17 the status
 * code); the rest is the request body. What is checked:
 *  - unframing: a message only when the prefix, its flag and its length
 *    agree with the body exactly (no trailing bytes), within the limit;
 *    otherwise a status (RESOURCE_EXHAUSTED only for a length over the
 *    limit) and a reason; framing the message again gives the body back;
 *  - the message inflated (gzip) within the limit and decoded as the
 *    receiver does, every event checked (fuzz_check_event);
 *  - grpc-message: the body percent-encoded is visible ASCII only, with
 *    well-formed escapes and no space at either end, and decodes back to
 *    the start of the body; decoding any text never grows it;
 *  - grpc-status-details-bin: base64 of a google.rpc.Status whose code,
 *    message and RetryInfo read back as given.
 */
#include "fuzz.h"
#include "otlp_grpc_int.h"

#include <string.h>

#define MESSAGE_MAX 512

static int emit(void *ud, const ingest_event *ev)
{
    (void)ud;
    fuzz_check_event(ev, 0, 0);
    return 0;
}

static void check_unframe(const uint8_t *body, size_t len, size_t max, uint8_t call)
{
    ingest__grpc_msg m = {0};
    char why[256] = "";
    int code = ingest__grpc_unframe(body, len, max, &m, why, sizeof why);
    if (code != INGEST__GRPC_OK) {
        FUZZ_CHECK(code == INGEST__GRPC_INTERNAL || code == INGEST__GRPC_RESOURCE_EXHAUSTED);
        FUZZ_CHECK(why[0] != 0);
        if (code == INGEST__GRPC_RESOURCE_EXHAUSTED)
            FUZZ_CHECK(len >= INGEST__GRPC_PREFIX && ingest__grpc_prefix_len(body) > max);
        return;
    }
    FUZZ_CHECK(len >= INGEST__GRPC_PREFIX && body[0] <= 1);
    FUZZ_CHECK(m.compressed == (body[0] == 1));
    FUZZ_CHECK(m.data == body + INGEST__GRPC_PREFIX && m.len == len - INGEST__GRPC_PREFIX);
    FUZZ_CHECK(m.len <= max && ingest__grpc_prefix_len(body) == m.len);
    if (!m.compressed) {
        core_buf again = {0};
        ingest__grpc_frame(&again, m.data, m.len);
        FUZZ_CHECK(again.len == len && memcmp(again.data, body, len) == 0);
        core_buf_free(&again);
    }
    /* The message as the receiver reads it. */
    core_buf inflated = {0};
    const void *msg = m.data;
    size_t mlen = m.len;
    if (m.compressed) {
        if (!(call & 1))
            return; /* no grpc-encoding: INTERNAL, nothing more is read */
        char zwhy[256] = "";
        int rc = ingest_gunzip(m.data, m.len, max, &inflated, zwhy, sizeof zwhy);
        FUZZ_CHECK(rc == 0 || rc == CORE_ECORRUPT || rc == CORE_ELIMIT);
        if (rc) {
            FUZZ_CHECK(zwhy[0] != 0);
            core_buf_free(&inflated);
            return;
        }
        FUZZ_CHECK(inflated.len <= max);
        msg = inflated.data ? inflated.data : "";
        mlen = inflated.len;
    }
    ingest_decode_result res = {0};
    char dwhy[512] = "";
    int rc =
        ingest_otlp_decode((call & 2) ? INGEST_OTLP_LOGS : INGEST_OTLP_TRACES, INGEST_ENC_PROTO,
                           msg, mlen, NULL, emit, NULL, &res, dwhy, sizeof dwhy);
    FUZZ_CHECK(rc == 0 || rc == CORE_EFORMAT);
    if (rc == 0) {
        /* The answer is one framed message too. */
        core_buf out = {0}, framed = {0};
        ingest_otlp_response((call & 2) ? INGEST_OTLP_LOGS : INGEST_OTLP_TRACES, INGEST_ENC_PROTO,
                             res.rejected, res.rejected ? res.reject_reason : NULL, &out);
        ingest__grpc_frame(&framed, out.data, out.len);
        ingest__grpc_msg back;
        FUZZ_CHECK(ingest__grpc_unframe(framed.data, framed.len, framed.len, &back, dwhy,
                                        sizeof dwhy) == INGEST__GRPC_OK);
        FUZZ_CHECK(back.len == out.len && !back.compressed);
        core_buf_free(&out);
        core_buf_free(&framed);
    }
    core_buf_free(&inflated);
}

static bool is_hex_upper(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

static void check_percent(const uint8_t *text, size_t n)
{
    core_buf e = {0}, d = {0};
    ingest__grpc_pct_encode(&e, (const char *)text, n, MESSAGE_MAX);
    FUZZ_CHECK(e.data != NULL);
    for (size_t i = 0; i < e.len; i++) {
        char c = e.data[i];
        FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
        if (c == '%')
            FUZZ_CHECK(i + 2 < e.len && is_hex_upper(e.data[i + 1]) && is_hex_upper(e.data[i + 2]));
    }
    FUZZ_CHECK(e.len == 0 || (e.data[0] != ' ' && e.data[e.len - 1] != ' '));
    FUZZ_CHECK(core_pct_decode(&d, e.data, e.len) == 0); /* every '%' is an escape */
    size_t got = d.len;
    FUZZ_CHECK(got <= n && got <= MESSAGE_MAX);
    FUZZ_CHECK(got == 0 || memcmp(d.data, text, got) == 0);
    /* Cut only past the limit, and then by less than one character. */
    FUZZ_CHECK(n > MESSAGE_MAX ? got + 4 > MESSAGE_MAX : got == n);
    core_buf_reset(&d);
    /* Each '%' either starts an escape (three bytes become one) or is
     * counted and copied. */
    size_t bare = core_pct_decode(&d, (const char *)text, n), pcts = 0;
    for (size_t i = 0; i < n; i++)
        pcts += text[i] == '%';
    FUZZ_CHECK(d.len <= n && (n - d.len) % 2 == 0 && bare + (n - d.len) / 2 == pcts);
    core_buf_free(&e);
    core_buf_free(&d);
}

/* Reads a base64 text without padding (what ingest__grpc_base64 writes). */
static void unbase64(const char *s, size_t n, core_buf *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FUZZ_CHECK(n % 4 != 1);
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = memchr(tab, s[i], 64);
        FUZZ_CHECK(p != NULL && s[i] != 0);
        acc = acc << 6 | (uint32_t)(p - tab);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            char c = (char)(acc >> bits);
            core_buf_append(out, &c, 1);
            acc &= (1u << bits) - 1;
        }
    }
}

static uint64_t varint(core_rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        const uint8_t *b = core_rd_bytes(r, 1);
        FUZZ_CHECK(b != NULL);
        v |= (uint64_t)(*b & 0x7f) << shift;
        if (!(*b & 0x80))
            return v;
    }
    fuzz_fail(__FILE__, __LINE__, "varint longer than 10 bytes");
}

static void check_details(const uint8_t *text, size_t n, uint8_t call)
{
    char msg[201];
    size_t mlen = strnlen((const char *)text, n < 200 ? n : 200);
    memcpy(msg, text, mlen);
    msg[mlen] = 0;
    int code = (call & 0x1f) % 17;
    unsigned retry = (call & 0x20) ? 1 + (call >> 6) : 0;
    core_buf b64 = {0}, raw = {0};
    ingest__grpc_status_details(&b64, code, msg, retry);
    unbase64(b64.data, b64.len, &raw);
    core_rd r = core_rd_of(raw.data ? raw.data : "", raw.len);
    int got_code = 0;
    bool got_msg = mlen == 0, got_retry = false;
    while (r.p < r.end) {
        uint64_t tag = varint(&r);
        if (tag == (1 << 3 | 0)) {
            got_code = (int)varint(&r);
            continue;
        }
        FUZZ_CHECK((tag & 7) == 2);
        uint64_t len = varint(&r);
        const uint8_t *p = core_rd_bytes(&r, (size_t)len);
        FUZZ_CHECK(p != NULL);
        if (tag >> 3 == 2) {
            FUZZ_CHECK(len == mlen && memcmp(p, msg, mlen) == 0);
            got_msg = true;
        } else {
            FUZZ_CHECK(tag >> 3 == 3 && retry);
            /* Any{type_url, value: RetryInfo{retry_delay: Duration{seconds}}} */
            static const char url[] = "type.googleapis.com/google.rpc.RetryInfo";
            core_rd a = core_rd_of(p, (size_t)len);
            FUZZ_CHECK(varint(&a) == (1 << 3 | 2) && varint(&a) == sizeof url - 1);
            const void *u = core_rd_bytes(&a, sizeof url - 1);
            FUZZ_CHECK(u && memcmp(u, url, sizeof url - 1) == 0);
            FUZZ_CHECK(varint(&a) == (2 << 3 | 2));
            (void)varint(&a);
            FUZZ_CHECK(varint(&a) == (1 << 3 | 2)); /* RetryInfo.retry_delay */
            (void)varint(&a);
            FUZZ_CHECK(varint(&a) == (1 << 3 | 0)); /* Duration.seconds */
            FUZZ_CHECK(varint(&a) == retry && a.p == a.end);
            got_retry = true;
        }
    }
    FUZZ_CHECK(got_code == code && got_msg && got_retry == (retry != 0));
    core_buf_free(&b64);
    core_buf_free(&raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    size_t max = (size_t)data[0] << 4;
    uint8_t call = data[1];
    const uint8_t *body = data + 2;
    size_t len = size - 2;
    check_unframe(body, len, max, call);
    check_percent(body, len);
    check_details(body, len, call);
    return 0;
}
