/*
 * The prediction's wire forms: pmrag.v1.Prediction protobuf and JSON.
 *
 * The protobuf side is a small hand-written writer for exactly two
 * messages, so that the sink depends on no generated code (the tests read
 * what it writes, with a reader of their own and with protobuf-c's
 * generated code). Field numbers here must match
 * proto/pmrag/v1/prediction.proto:
 *
 *   Prediction:   1 case_id (string)  2 seq (uint64)  3 activity (string)
 *                 4 time_unix_nano (fixed64)  5 model_version (string)
 *                 6 ranked (RankedSymbol, repeated)  7 latency_us (uint64)
 *                 8 last_rank (optional uint32)  9 revision (uint32)
 *                 10 graph_version (string)
 *   RankedSymbol: 1 symbol  2 kind  3 file (strings)  4 start_line
 *                 5 end_line (uint32)  6 score (double)  7 activity (string)
 *                 8 near (string)
 */
#include "sink.h"

#include "core_wire.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
    pstr activity, near;
} ranked_v;

typedef struct pred_v {
    pstr case_id;
    uint64_t seq;
    uint32_t revision;
    pstr activity;
    uint64_t time_unix_nano;
    pstr model_version, graph_version;
    uint64_t latency_us;
    bool scored;
    uint32_t last_rank;
} pred_v;

static pstr cstr(const char *s)
{
    return (pstr){s ? s : "", s ? strlen(s) : 0};
}

static ranked_v ranked_from(const sink_ranked *r)
{
    return (ranked_v){cstr(r->symbol), cstr(r->kind), cstr(r->file),     r->start_line,
                      r->end_line,     r->score,      cstr(r->activity), cstr(r->near)};
}

static pred_v pred_from(const sink_prediction *p)
{
    pred_v v = {.seq = p->seq,
                .revision = p->revision,
                .activity = cstr(p->activity),
                .time_unix_nano = (uint64_t)p->time_unix_nano,
                .model_version = cstr(p->model_version),
                .graph_version = cstr(p->graph_version),
                .latency_us = p->latency_us,
                .scored = p->scored,
                .last_rank = p->last_rank};
    v.case_id = (pstr){p->case_len ? p->case_id : "", p->case_len};
    return v;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static void json_head(core_buf *out, const pred_v *v)
{
    core_buf_puts(out, "{\"case_id\":");
    core_buf_json_str(out, v->case_id.p, v->case_id.n);
    core_buf_puts(out, ",\"seq\":");
    core_buf_put_uint(out, v->seq);
    core_buf_puts(out, ",\"revision\":");
    core_buf_put_uint(out, v->revision);
    core_buf_puts(out, ",\"activity\":");
    core_buf_json_str(out, v->activity.p, v->activity.n);
    /* fixed64 on the wire, a signed Unix time in the API. */
    core_buf_puts(out, ",\"time_unix_nano\":");
    core_buf_put_int(out, (int64_t)v->time_unix_nano);
    core_buf_puts(out, ",\"model_version\":");
    core_buf_json_str(out, v->model_version.p, v->model_version.n);
    core_buf_puts(out, ",\"graph_version\":");
    core_buf_json_str(out, v->graph_version.p, v->graph_version.n);
    core_buf_puts(out, ",\"ranked\":");
}

static void json_ranked(core_buf *out, const ranked_v *r, bool first)
{
    core_buf_puts(out, first ? "{\"symbol\":" : ",{\"symbol\":");
    core_buf_json_str(out, r->symbol.p, r->symbol.n);
    core_buf_puts(out, ",\"kind\":");
    core_buf_json_str(out, r->kind.p, r->kind.n);
    core_buf_puts(out, ",\"file\":");
    core_buf_json_str(out, r->file.p, r->file.n);
    core_buf_puts(out, ",\"start_line\":");
    core_buf_put_uint(out, r->start_line);
    core_buf_puts(out, ",\"end_line\":");
    core_buf_put_uint(out, r->end_line);
    core_buf_puts(out, ",\"score\":");
    core_buf_json_double(out, r->score);
    core_buf_puts(out, ",\"activity\":");
    core_buf_json_str(out, r->activity.p, r->activity.n);
    core_buf_puts(out, ",\"near\":");
    core_buf_json_str(out, r->near.p, r->near.n);
    core_buf_putc(out, '}');
}

static void json_tail(core_buf *out, const pred_v *v)
{
    core_buf_puts(out, ",\"latency_us\":");
    core_buf_put_uint(out, v->latency_us);
    core_buf_puts(out, ",\"last_rank\":");
    if (v->scored)
        core_buf_put_uint(out, v->last_rank);
    else
        core_buf_puts(out, "null");
    core_buf_putc(out, '}');
}

void sink_ranked_json(const sink_ranked *r, uint32_t n, core_buf *out)
{
    core_buf_putc(out, '[');
    for (uint32_t i = 0; i < n; i++) {
        ranked_v v = ranked_from(&r[i]);
        json_ranked(out, &v, i == 0);
    }
    core_buf_putc(out, ']');
}

void sink_prediction_json(const sink_prediction *p, core_buf *out)
{
    pred_v v = pred_from(p);
    json_head(out, &v);
    sink_ranked_json(p->ranked, p->nranked, out);
    json_tail(out, &v);
}

/* ------------------------------------------------------------------ */
/* Protobuf writer                                                     */
/* ------------------------------------------------------------------ */

/*
 * The writer measures first and writes once: every field's size is known
 * before its bytes go out (a string's from one UTF-8 check, which it needs
 * anyway), so the buffer grows at most once per ranked symbol and the
 * bytes are stored straight, with no length to move up afterwards.
 */

/* A string field as it goes on the wire: wire is its length once cleaned
 * (n when it is valid UTF-8, the common case; then valid is set). */
typedef struct wstr {
    pstr s;
    size_t wire;
    bool valid;
} wstr;

/* Every byte that does not start a valid UTF-8 sequence is replaced by
 * U+FFFD: the same rule as core_buf_json_str(), so the JSON of the cleaned
 * string equals the JSON of the original. Writes the cleaned bytes at q
 * (when q is not NULL); returns their length. */
static size_t utf8_clean(uint8_t *q, const char *s, size_t n)
{
    static const uint8_t fffd[3] = {0xef, 0xbf, 0xbd}; /* U+FFFD in UTF-8 */
    size_t len = 0, i = 0;
    while (i < n) {
        size_t k = core_utf8_valid_prefix(s + i, n - i);
        if (q)
            memcpy(q + len, s + i, k);
        len += k;
        i += k;
        if (i < n) {
            if (q)
                memcpy(q + len, fffd, sizeof fffd);
            len += sizeof fffd;
            i++;
        }
    }
    return len;
}

static wstr wstr_of(pstr s)
{
    wstr w = {s, s.n, true};
    if (s.n && core_utf8_valid_prefix(s.p, s.n) != s.n) {
        w.valid = false;
        w.wire = utf8_clean(NULL, s.p, s.n);
    }
    return w;
}

/* Bytes of a string field: none for an empty string (proto3 default).
 * Field numbers here are all below 16: a tag is one byte. */
static size_t str_size(const wstr *w)
{
    return w->s.n ? 1 + core_wire_varint_len(w->wire) + w->wire : 0;
}

static uint8_t *put_str(uint8_t *q, uint32_t field, const wstr *w)
{
    if (!w->s.n)
        return q;
    q = core_wire_put_tag(q, field, CORE_WIRE_LEN);
    q = core_wire_put_varint(q, w->wire);
    if (w->valid)
        memcpy(q, w->s.p, w->s.n);
    else
        utf8_clean(q, w->s.p, w->s.n);
    return q + w->wire;
}

static size_t uint_size(uint64_t v)
{
    return v ? 1 + core_wire_varint_len(v) : 0;
}

static uint8_t *put_uint(uint8_t *q, uint32_t field, uint64_t v)
{
    if (!v)
        return q;
    q = core_wire_put_tag(q, field, CORE_WIRE_VARINT);
    return core_wire_put_varint(q, v);
}

static uint8_t *put_fixed64(uint8_t *q, uint32_t field, uint64_t v)
{
    q = core_wire_put_tag(q, field, CORE_WIRE_I64);
    return core_wire_put_fixed64(q, v);
}

/* Reserves n bytes of out and returns where they start. */
static uint8_t *out_room(core_buf *out, size_t n)
{
    core_buf_reserve(out, n);
    return (uint8_t *)out->data + out->len;
}

/* Takes the bytes written up to q into out. */
static void out_done(core_buf *out, const uint8_t *q)
{
    out->len = (size_t)((const char *)q - out->data);
    out->data[out->len] = 0;
}

static void put_ranked(core_buf *out, const sink_ranked *sr)
{
    ranked_v r = ranked_from(sr);
    wstr sym = wstr_of(r.symbol), kind = wstr_of(r.kind), file = wstr_of(r.file),
         act = wstr_of(r.activity), near = wstr_of(r.near);
    uint64_t bits;
    memcpy(&bits, &r.score, sizeof bits);
    /* -0.0 has bits and is kept, as protobuf does */
    size_t body = str_size(&sym) + str_size(&kind) + str_size(&file) + uint_size(r.start_line) +
                  uint_size(r.end_line) + (bits ? 9 : 0) + str_size(&act) + str_size(&near);
    uint8_t *q = out_room(out, 1 + core_wire_varint_len(body) + body);
    q = core_wire_put_tag(q, 6, CORE_WIRE_LEN);
    q = core_wire_put_varint(q, body);
    q = put_str(q, 1, &sym);
    q = put_str(q, 2, &kind);
    q = put_str(q, 3, &file);
    q = put_uint(q, 4, r.start_line);
    q = put_uint(q, 5, r.end_line);
    if (bits)
        q = put_fixed64(q, 6, bits);
    q = put_str(q, 7, &act);
    q = put_str(q, 8, &near);
    out_done(out, q);
}

void sink_prediction_pb(const sink_prediction *p, core_buf *out)
{
    pred_v v = pred_from(p);
    wstr case_id = wstr_of(v.case_id), act = wstr_of(v.activity), model = wstr_of(v.model_version);
    size_t head = str_size(&case_id) + uint_size(v.seq) + str_size(&act) +
                  (v.time_unix_nano ? 9 : 0) + str_size(&model);
    uint8_t *q = out_room(out, head);
    q = put_str(q, 1, &case_id);
    q = put_uint(q, 2, v.seq);
    q = put_str(q, 3, &act);
    if (v.time_unix_nano)
        q = put_fixed64(q, 4, v.time_unix_nano);
    q = put_str(q, 5, &model);
    out_done(out, q);
    for (uint32_t i = 0; i < p->nranked; i++)
        put_ranked(out, &p->ranked[i]);
    wstr graph = wstr_of(v.graph_version);
    q = out_room(out, uint_size(v.latency_us) +
                          (v.scored ? 1 + core_wire_varint_len(v.last_rank) : 0) +
                          uint_size(v.revision) + str_size(&graph));
    q = put_uint(q, 7, v.latency_us);
    /* An optional field: present when scored, a miss's 0 too. */
    if (v.scored) {
        q = core_wire_put_tag(q, 8, CORE_WIRE_VARINT);
        q = core_wire_put_varint(q, v.last_rank);
    }
    q = put_uint(q, 9, v.revision);
    q = put_str(q, 10, &graph);
    out_done(out, q);
}
