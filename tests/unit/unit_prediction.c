/*
 * A reader of pmrag.v1.Prediction for the tests (unit_prediction.h): the
 * daemon only writes predictions, so the reader lives with the tests that
 * check what it writes. It is strict, so that a test learns exactly what
 * is wrong with bytes it did not expect, and it writes its JSON with the
 * daemon's own encoder, so that "the bytes decode to the JSON" compares
 * the two wire forms and not two JSON writers.
 */
#include "unit_prediction.h"
#include "core_wire.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string in the buffer. */
typedef struct pstr {
    const char *p;
    size_t n;
} pstr;

typedef struct ranked_v {
    pstr symbol, kind, file;
    uint32_t start_line, end_line;
    double score;
    pstr activity, near;
} ranked_v;

/* One field as found in the buffer. Offsets are from the start of the
 * whole message, nested ones included, so errors point into what the
 * user has. */
typedef struct pb_field {
    uint32_t num;
    int wt;
    size_t at;  /* offset of the tag */
    uint64_t v; /* VARINT, I64, I32: the value */
    size_t off; /* LEN: offset of the data ... */
    size_t len; /* ... and its length */
} pb_field;

static int fail(char *why, size_t whylen, size_t at, const char *fmt, ...) CORE_PRINTF(4, 5);
static int fail(char *why, size_t whylen, size_t at, const char *fmt, ...)
{
    if (why && whylen) {
        char msg[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(why, whylen, "byte offset %zu: %s", at, msg);
    }
    return CORE_EFORMAT;
}

static int varint_fail(int rc, char *why, size_t whylen, size_t at, const char *what, uint32_t num)
{
    const char *how = rc == CORE_WIRE_ECUT ? "truncated varint" : "varint longer than 10 bytes";
    if (!num)
        return fail(why, whylen, at, "%s (%s)", how, what);
    return fail(why, whylen, at, "%s (%s%" PRIu32 ")", how, what, num);
}

/* Reads the field at *pos (which is < end) and moves past it, through the
 * wire reader the product's decoders use, wording its errors. The members
 * its wire type does not set are zero, also on failure. */
static int r_field(const uint8_t *b, size_t *pos, size_t end, pb_field *f, char *why, size_t whylen)
{
    const uint8_t *q = b + *pos;
    core_wire_field w;
    int rc = core_wire_next(&q, b + end, &w);
    *f = (pb_field){.num = w.num, .wt = w.wt, .at = *pos};
    size_t at = w.val ? (size_t)(w.val - b) : *pos; /* where the value starts */
    switch (rc) {
    case 1:
        if (w.wt == CORE_WIRE_LEN) {
            f->off = (size_t)(w.p - b);
            f->len = w.n;
        } else {
            f->v = w.v;
        }
        *pos = (size_t)(q - b);
        return 0;
    case CORE_WIRE_ENUMBER:
        return fail(why, whylen, f->at, "invalid field number %" PRIu64, w.v);
    case CORE_WIRE_ECUT:
    case CORE_WIRE_ELONG:
        if (w.wt < 0)
            return varint_fail(rc, why, whylen, f->at, "a field tag", 0);
        if (w.wt == CORE_WIRE_VARINT)
            return varint_fail(rc, why, whylen, at, "value of field ", f->num);
        if (w.wt == CORE_WIRE_LEN)
            return varint_fail(rc, why, whylen, at, "length of field ", f->num);
        return fail(why, whylen, at, "truncated fixed-width value of field %" PRIu32, f->num);
    case CORE_WIRE_EPAST_END:
        return fail(why, whylen, at,
                    "field %" PRIu32 ": length %" PRIu64 " runs past the end of the message",
                    f->num, w.v);
    default:
        /* Groups are a proto2 relic no writer of this schema produces;
         * skipping one would need a nesting walk for nothing. */
        return fail(why, whylen, f->at,
                    "field %" PRIu32 ": unsupported wire type %d (group or reserved)", f->num,
                    f->wt);
    }
}

static int want_wt(const pb_field *f, int wt, const char *name, char *why, size_t whylen)
{
    static const char *const wt_names[] = {"varint", "fixed64",   "length-delimited",
                                           "group",  "end-group", "fixed32"};
    if (f->wt == wt)
        return 0;
    return fail(why, whylen, f->at, "%s has wire type %s, expected %s", name, wt_names[f->wt],
                wt_names[wt]);
}

static pstr field_str(const uint8_t *b, const pb_field *f)
{
    return (pstr){(const char *)b + f->off, f->len};
}

/* Decodes the RankedSymbol in [pos, end). */
static int r_ranked(const uint8_t *b, size_t pos, size_t end, ranked_v *r, char *why, size_t whylen)
{
    static const char *const names[] = {
        NULL,
        "RankedSymbol.symbol",
        "RankedSymbol.kind",
        "RankedSymbol.file",
        "RankedSymbol.start_line",
        "RankedSymbol.end_line",
        "RankedSymbol.score",
        "RankedSymbol.activity",
        "RankedSymbol.near",
    };
    static const int wts[] = {0,
                              CORE_WIRE_LEN,
                              CORE_WIRE_LEN,
                              CORE_WIRE_LEN,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_I64,
                              CORE_WIRE_LEN,
                              CORE_WIRE_LEN};
    memset(r, 0, sizeof *r);
    r->symbol = r->kind = r->file = r->activity = r->near = (pstr){"", 0};
    while (pos < end) {
        pb_field f;
        int rc = r_field(b, &pos, end, &f, why, whylen);
        if (rc)
            return rc;
        if (f.num > 8)
            continue; /* unknown: skipped */
        rc = want_wt(&f, wts[f.num], names[f.num], why, whylen);
        if (rc)
            return rc;
        switch (f.num) {
        case 1:
            r->symbol = field_str(b, &f);
            break;
        case 2:
            r->kind = field_str(b, &f);
            break;
        case 3:
            r->file = field_str(b, &f);
            break;
        case 4:
            r->start_line = (uint32_t)f.v; /* uint32 keeps the low bits, as protobuf does */
            break;
        case 5:
            r->end_line = (uint32_t)f.v;
            break;
        case 6:
            memcpy(&r->score, &f.v, sizeof r->score);
            break;
        case 7:
            r->activity = field_str(b, &f);
            break;
        case 8:
            r->near = field_str(b, &f);
            break;
        }
    }
    return 0;
}

/* A NUL-terminated copy of s (cut at a NUL inside it: sink_ranked's
 * strings are C strings). */
static char *dup_str(pstr s)
{
    char *c = malloc(s.n + 1);
    memcpy(c, s.p, s.n);
    c[s.n] = 0;
    return c;
}

int unit_prediction_pb_to_json(const void *buf, size_t len, core_buf *out, char *why, size_t whylen)
{
    static const char *const names[] = {
        NULL,
        "Prediction.case_id",
        "Prediction.seq",
        "Prediction.activity",
        "Prediction.time_unix_nano",
        "Prediction.model_version",
        "Prediction.ranked",
        "Prediction.latency_us",
        "Prediction.last_rank",
        "Prediction.revision",
        "Prediction.graph_version",
    };
    static const int wts[] = {0,
                              CORE_WIRE_LEN,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_LEN,
                              CORE_WIRE_I64,
                              CORE_WIRE_LEN,
                              CORE_WIRE_LEN,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_VARINT,
                              CORE_WIRE_LEN};
    const uint8_t *b = buf;
    pstr case_id = {"", 0}, activity = {"", 0}, model_version = {"", 0}, graph_version = {"", 0};
    sink_prediction p = {0};
    ranked_v *rv = NULL;
    size_t nr = 0;

    /* Everything is checked before anything is written: out is left as it
     * was on failure. The scalars may come in any order, and the last
     * occurrence of each wins; the ranked items are kept in wire order. */
    size_t pos = 0;
    int rc = 0;
    while (pos < len && !rc) {
        pb_field f;
        rc = r_field(b, &pos, len, &f, why, whylen);
        if (rc || f.num > 10)
            continue;
        rc = want_wt(&f, wts[f.num], names[f.num], why, whylen);
        if (rc)
            continue;
        switch (f.num) {
        case 1:
            case_id = field_str(b, &f);
            break;
        case 2:
            p.seq = f.v;
            break;
        case 3:
            activity = field_str(b, &f);
            break;
        case 4:
            p.time_unix_nano = (int64_t)f.v;
            break;
        case 5:
            model_version = field_str(b, &f);
            break;
        case 6:
            rv = realloc(rv, (nr + 1) * sizeof *rv);
            rc = r_ranked(b, f.off, f.off + f.len, &rv[nr], why, whylen);
            nr += !rc;
            break;
        case 7:
            p.latency_us = f.v;
            break;
        case 8:
            p.scored = true;
            p.last_rank = (uint32_t)f.v; /* uint32 keeps the low bits, as protobuf does */
            break;
        case 9:
            p.revision = (uint32_t)f.v;
            break;
        case 10:
            graph_version = field_str(b, &f);
            break;
        }
    }
    if (rc) {
        free(rv);
        return rc;
    }
    sink_ranked *r = calloc(nr ? nr : 1, sizeof *r);
    for (size_t i = 0; i < nr; i++)
        r[i] = (sink_ranked){dup_str(rv[i].symbol),   dup_str(rv[i].kind), dup_str(rv[i].file),
                             rv[i].start_line,        rv[i].end_line,      rv[i].score,
                             dup_str(rv[i].activity), dup_str(rv[i].near)};
    p.case_id = case_id.p;
    p.case_len = case_id.n;
    char *act = dup_str(activity), *model = dup_str(model_version), *graph = dup_str(graph_version);
    p.activity = act;
    p.model_version = model;
    p.graph_version = graph;
    p.ranked = r;
    p.nranked = (uint32_t)nr;
    sink_prediction_json(&p, out);
    for (size_t i = 0; i < nr; i++) {
        free((char *)r[i].symbol);
        free((char *)r[i].kind);
        free((char *)r[i].file);
        free((char *)r[i].activity);
        free((char *)r[i].near);
    }
    free(r);
    free(rv);
    free(act);
    free(model);
    free(graph);
    return 0;
}
