/*
 * Kafka record values to events (ingest.h): the encoding, detected or
 * configured, picks the decoder.
 */
#include "ingest.h"

#include <string.h>

int ingest_kafka_encoding_parse(const char *name, ingest_kafka_encoding *out)
{
    static const struct {
        const char *name;
        ingest_kafka_encoding enc;
    } names[] = {{"auto", INGEST_KAFKA_AUTO},
                 {"otlp_proto", INGEST_KAFKA_OTLP_PROTO},
                 {"otlp_json", INGEST_KAFKA_OTLP_JSON},
                 {"json", INGEST_KAFKA_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].enc;
            return 0;
        }
    return CORE_EUSAGE;
}

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

static ingest_kafka_encoding sniff(const void *buf, size_t len)
{
    const char *end = (const char *)buf + len, *p = skip_space(buf, end);
    if (p == end || *p != '{')
        return INGEST_KAFKA_OTLP_PROTO;
    p = skip_space(p + 1, end);
    static const char *const keys[] = {"\"resourceSpans\"", "\"resourceLogs\"",
                                       "\"resource_spans\"", "\"resource_logs\""};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        size_t n = strlen(keys[i]);
        if ((size_t)(end - p) >= n && memcmp(p, keys[i], n) == 0)
            return INGEST_KAFKA_OTLP_JSON;
    }
    return INGEST_KAFKA_JSON;
}

int ingest_kafka_decode(const void *val, size_t len, ingest_kafka_encoding enc,
                        ingest_otlp_kind kind, const ingest_decode_opts *o,
                        int (*emit)(void *ud, const ingest_event *ev), void *ud,
                        ingest_decode_result *res, char *why, size_t whylen)
{
    if (enc == INGEST_KAFKA_AUTO)
        enc = sniff(val, len);
    if (enc != INGEST_KAFKA_JSON)
        return ingest_otlp_decode(
            kind, enc == INGEST_KAFKA_OTLP_JSON ? INGEST_ENC_JSON : INGEST_ENC_PROTO, val, len, o,
            emit, ud, res, why, whylen);
    if (res)
        memset(res, 0, sizeof *res);
    int rc = ingest_event_json_decode(val, len, o, emit, ud, why, whylen);
    if (res && rc == 0)
        res->accepted = 1;
    return rc;
}
