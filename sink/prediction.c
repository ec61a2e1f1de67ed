/*
 * The prediction's wire forms: pmrag.v1.Prediction protobuf and JSON.
 *
 * The protobuf side is a small hand-written writer and reader for exactly
 * two messages, so that the sink depends on no generated code. Field
 * numbers here must match proto/pmrag/v1/prediction.proto:
 *
 *   Prediction:   1 case_id (string)  2 seq (uint64)  3 activity (string)
 *                 4 time_unix_nano (fixed64)  5 model_version (string)
 *                 6 ranked (RankedSymbol, repeated)  7 latency_us (uint64)
 *   RankedSymbol: 1 symbol  2 kind  3 file (strings)  4 start_line
 *                 5 end_line (uint32)  6 score (double)  7 activity (string)
 */
#include "sink.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

/* A string with its length: the common form of what the encoder is given
 * and what the decoder finds in the buffer. */
typedef struct pstr {
    const char *p;
    size_t n;
} pstr;

typedef struct ranked_v {
    pstr symbol, kind, file;
    uint32_t start_line, end_line;
    double score;
    pstr activity;
} ranked_v;

typedef struct pred_v {
    pstr case_id;
    uint64_t seq;
    pstr activity;
    uint64_t time_unix_nano;
    pstr model_version;
    uint64_t latency_us;
} pred_v;

static pstr cstr(const char *s)
{
    return (pstr){s ? s : "", s ? strlen(s) : 0};
}

static ranked_v ranked_from(const sink_ranked *r)
{
    return (ranked_v){cstr(r->symbol), cstr(r->kind), cstr(r->file),    r->start_line,
                      r->end_line,     r->score,      cstr(r->activity)};
}

static pred_v pred_from(const sink_prediction *p)
{
    pred_v v = {.seq = p->seq,
                .activity = cstr(p->activity),
                .time_unix_nano = (uint64_t)p->time_unix_nano,
                .model_version = cstr(p->model_version),
                .latency_us = p->latency_us};
    v.case_id = (pstr){p->case_len ? p->case_id : "", p->case_len};
    return v;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* Both the encoder and the decoder write JSON through these three, so the
 * two cannot drift apart. */
static void json_head(core_buf *out, const pred_v *v)
{
    core_buf_puts(out, "{\"case_id\":");
    core_buf_json_str(out, v->case_id.p, v->case_id.n);
    core_buf_printf(out, ",\"seq\":%" PRIu64 ",\"activity\":", v->seq);
    core_buf_json_str(out, v->activity.p, v->activity.n);
    /* fixed64 on the wire, a signed Unix time in the API. */
    core_buf_printf(
        out, ",\"time_unix_nano\":%" PRId64 ",\"model_version\":", (int64_t)v->time_unix_nano);
    core_buf_json_str(out, v->model_version.p, v->model_version.n);
    core_buf_puts(out, ",\"ranked\":[");
}

static void json_ranked(core_buf *out, const ranked_v *r, bool first)
{
    core_buf_puts(out, first ? "{\"symbol\":" : ",{\"symbol\":");
    core_buf_json_str(out, r->symbol.p, r->symbol.n);
    core_buf_puts(out, ",\"kind\":");
    core_buf_json_str(out, r->kind.p, r->kind.n);
    core_buf_puts(out, ",\"file\":");
    core_buf_json_str(out, r->file.p, r->file.n);
    core_buf_printf(out, ",\"start_line\":%" PRIu32 ",\"end_line\":%" PRIu32 ",\"score\":",
                    r->start_line, r->end_line);
    core_buf_json_double(out, r->score);
    core_buf_puts(out, ",\"activity\":");
    core_buf_json_str(out, r->activity.p, r->activity.n);
    core_buf_putc(out, '}');
}

static void json_tail(core_buf *out, const pred_v *v)
{
    core_buf_printf(out, "],\"latency_us\":%" PRIu64 "}", v->latency_us);
}

void sink_prediction_json(const sink_prediction *p, core_buf *out)
{
    pred_v v = pred_from(p);
    json_head(out, &v);
    for (uint32_t i = 0; i < p->nranked; i++) {
        ranked_v r = ranked_from(&p->ranked[i]);
        json_ranked(out, &r, i == 0);
    }
    json_tail(out, &v);
}

/* ------------------------------------------------------------------ */
/* Protobuf writer                                                     */
/* ------------------------------------------------------------------ */

typedef struct pbw {
    core_buf *out;
} pbw;

static void w_bytes(pbw *w, const void *p, size_t n)
{
    core_buf_append(w->out, p, n);
}

static void w_varint(pbw *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t i = 0;
    while (v >= 0x80) {
        tmp[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[i++] = (uint8_t)v;
    w_bytes(w, tmp, i);
}

static void w_tag(pbw *w, uint32_t field, int wt)
{
    w_varint(w, (uint64_t)field << 3 | (uint64_t)wt);
}

static void w_fixed64(pbw *w, uint32_t field, uint64_t v)
{
    uint8_t tmp[8];
    for (int i = 0; i < 8; i++)
        tmp[i] = (uint8_t)(v >> (8 * i));
    w_tag(w, field, WT_I64);
    w_bytes(w, tmp, 8);
}

static void w_uint(pbw *w, uint32_t field, uint64_t v)
{
    if (!v)
        return;
    w_tag(w, field, WT_VARINT);
    w_varint(w, v);
}

/* Appends s with every byte that does not start a valid UTF-8 sequence
 * replaced by U+FFFD: the same rule as core_buf_json_str(), so the JSON
 * of the cleaned string equals the JSON of the original. With count_only
 * nothing is written; returns the cleaned length either way. */
static size_t utf8_clean(pbw *w, const char *s, size_t n, bool count_only)
{
    size_t len = 0, i = 0;
    while (i < n) {
        size_t k = core_utf8_valid_prefix(s + i, n - i);
        if (!count_only)
            w_bytes(w, s + i, k);
        len += k;
        i += k;
        if (i < n) {
            if (!count_only)
                w_bytes(w, "\xef\xbf\xbd", 3);
            len += 3;
            i++;
        }
    }
    return len;
}

static void w_str(pbw *w, uint32_t field, pstr s)
{
    if (!s.n)
        return;
    w_tag(w, field, WT_LEN);
    if (core_utf8_valid_prefix(s.p, s.n) == s.n) {
        w_varint(w, s.n);
        w_bytes(w, s.p, s.n);
        return;
    }
    w_varint(w, utf8_clean(w, s.p, s.n, true));
    utf8_clean(w, s.p, s.n, false);
}

static void w_ranked_body(pbw *w, const ranked_v *r)
{
    w_str(w, 1, r->symbol);
    w_str(w, 2, r->kind);
    w_str(w, 3, r->file);
    w_uint(w, 4, r->start_line);
    w_uint(w, 5, r->end_line);
    uint64_t bits;
    memcpy(&bits, &r->score, sizeof bits);
    if (bits) /* -0.0 has bits and is kept, as protobuf does */
        w_fixed64(w, 6, bits);
    w_str(w, 7, r->activity);
}

void sink_prediction_pb(const sink_prediction *p, core_buf *out)
{
    pred_v v = pred_from(p);
    pbw w = {out};
    w_str(&w, 1, v.case_id);
    w_uint(&w, 2, v.seq);
    w_str(&w, 3, v.activity);
    if (v.time_unix_nano)
        w_fixed64(&w, 4, v.time_unix_nano);
    w_str(&w, 5, v.model_version);
    for (uint32_t i = 0; i < p->nranked; i++) {
        ranked_v r = ranked_from(&p->ranked[i]);
        /* The body is written once, after a one-byte length; a longer
         * length moves it up (cheaper than a counting pass, which would
         * check every string's UTF-8 twice). */
        w_tag(&w, 6, WT_LEN);
        size_t at = out->len;
        w_bytes(&w, "", 1);
        w_ranked_body(&w, &r);
        size_t n = out->len - at - 1;
        uint8_t len[10];
        size_t k = 0;
        for (uint64_t x = n; x >= 0x80; x >>= 7)
            len[k++] = (uint8_t)(x | 0x80);
        len[k] = (uint8_t)(n >> (7 * k));
        k++;
        if (k > 1) {
            core_buf_append(out, len, k - 1); /* room */
            memmove(out->data + at + k, out->data + at + 1, n);
        }
        memcpy(out->data + at, len, k);
    }
    w_uint(&w, 7, v.latency_us);
}

/* ------------------------------------------------------------------ */
/* Protobuf reader                                                     */
/* ------------------------------------------------------------------ */

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

/* Reads a varint at *pos: 0, or 1 when the input ends inside it, or 2
 * when it runs past 10 bytes. The caller words the error. */
static int r_varint(const uint8_t *b, size_t *pos, size_t end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (*pos + i >= end)
            return 1;
        uint8_t c = b[*pos + i];
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *pos += i + 1;
            *v = x;
            return 0;
        }
    }
    return 2;
}

static int varint_fail(int rc, char *why, size_t whylen, size_t at, const char *what, uint32_t num)
{
    const char *how = rc == 1 ? "truncated varint" : "varint longer than 10 bytes";
    if (!num)
        return fail(why, whylen, at, "%s (%s)", how, what);
    return fail(why, whylen, at, "%s (%s%" PRIu32 ")", how, what, num);
}

/* Reads the field at *pos (which is < end) and moves past it. */
static int r_field(const uint8_t *b, size_t *pos, size_t end, pb_field *f, char *why, size_t whylen)
{
    uint64_t tag;
    f->at = *pos;
    int rc = r_varint(b, pos, end, &tag);
    if (rc)
        return varint_fail(rc, why, whylen, f->at, "a field tag", 0);
    f->wt = (int)(tag & 7);
    if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
        return fail(why, whylen, f->at, "invalid field number %" PRIu64, tag >> 3);
    f->num = (uint32_t)(tag >> 3);
    switch (f->wt) {
    case WT_VARINT: {
        size_t at = *pos;
        rc = r_varint(b, pos, end, &f->v);
        return rc ? varint_fail(rc, why, whylen, at, "value of field ", f->num) : 0;
    }
    case WT_I64:
    case WT_I32: {
        size_t n = f->wt == WT_I64 ? 8 : 4;
        if (end - *pos < n)
            return fail(why, whylen, *pos, "truncated fixed-width value of field %" PRIu32, f->num);
        f->v = 0;
        for (size_t i = 0; i < n; i++)
            f->v |= (uint64_t)b[*pos + i] << (8 * i);
        *pos += n;
        return 0;
    }
    case WT_LEN: {
        size_t at = *pos;
        uint64_t n;
        rc = r_varint(b, pos, end, &n);
        if (rc)
            return varint_fail(rc, why, whylen, at, "length of field ", f->num);
        if (n > end - *pos)
            return fail(why, whylen, at,
                        "field %" PRIu32 ": length %" PRIu64 " runs past the end of the message",
                        f->num, n);
        f->off = *pos;
        f->len = (size_t)n;
        *pos += (size_t)n;
        return 0;
    }
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
    };
    static const int wts[] = {0, WT_LEN, WT_LEN, WT_LEN, WT_VARINT, WT_VARINT, WT_I64, WT_LEN};
    memset(r, 0, sizeof *r);
    r->symbol = r->kind = r->file = r->activity = (pstr){"", 0};
    while (pos < end) {
        pb_field f;
        int rc = r_field(b, &pos, end, &f, why, whylen);
        if (rc)
            return rc;
        if (f.num > 7)
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
        }
    }
    return 0;
}

int sink_prediction_pb_to_json(const void *buf, size_t len, core_buf *out, char *why, size_t whylen)
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
    };
    static const int wts[] = {0, WT_LEN, WT_VARINT, WT_LEN, WT_I64, WT_LEN, WT_LEN, WT_VARINT};
    const uint8_t *b = buf;
    pred_v v = {.case_id = {"", 0}, .activity = {"", 0}, .model_version = {"", 0}};

    /* Two passes and no allocation: the first checks everything and keeps
     * the scalars (the last occurrence of each wins, and they may come in
     * any order), the second writes the ranked items in wire order. The
     * second cannot fail on bytes the first accepted. */
    size_t pos = 0;
    while (pos < len) {
        pb_field f;
        int rc = r_field(b, &pos, len, &f, why, whylen);
        if (rc)
            return rc;
        if (f.num > 7)
            continue;
        rc = want_wt(&f, wts[f.num], names[f.num], why, whylen);
        if (rc)
            return rc;
        switch (f.num) {
        case 1:
            v.case_id = field_str(b, &f);
            break;
        case 2:
            v.seq = f.v;
            break;
        case 3:
            v.activity = field_str(b, &f);
            break;
        case 4:
            v.time_unix_nano = f.v;
            break;
        case 5:
            v.model_version = field_str(b, &f);
            break;
        case 6: {
            ranked_v r;
            rc = r_ranked(b, f.off, f.off + f.len, &r, why, whylen);
            if (rc)
                return rc;
            break;
        }
        case 7:
            v.latency_us = f.v;
            break;
        }
    }

    json_head(out, &v);
    bool first = true;
    for (pos = 0; pos < len;) {
        pb_field f;
        if (r_field(b, &pos, len, &f, NULL, 0) != 0)
            core_panic("prediction decoder: second pass disagrees with the first");
        if (f.num != 6)
            continue;
        ranked_v r;
        if (r_ranked(b, f.off, f.off + f.len, &r, NULL, 0) != 0)
            core_panic("prediction decoder: second pass disagrees with the first");
        json_ranked(out, &r, first);
        first = false;
    }
    json_tail(out, &v);
    return 0;
}
