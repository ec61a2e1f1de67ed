/* Unit tests of sink/: the prediction's wire forms and the Kafka producer. */
#include "sink.h"
#include "unit.h"
#include "unit_prediction.h"

#include "pmrag/v1/prediction.pb-c.h"

#include <errno.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <math.h>
#include <pthread.h>

/* ------------------------------------------------------------------ */
/* Fixtures                                                            */
/* ------------------------------------------------------------------ */

/* Three ranked items and every awkward string: quotes, backslashes,
 * control characters, non-ASCII, bytes that are not UTF-8, an embedded
 * NUL in the case id, an empty and a NULL activity; the last one fills the
 * list (near, with a byte that is not UTF-8). */
static const sink_ranked awkward_ranked[4] = {
    {"shop.cart.Cart.add", "method", "shop/cart.py", 10, 42, 0.5, "", NULL},
    {"bad\xff\xfe utf8 \xc3(", "function", "src/a b/\"q\".ts", 1, 1, 1.0 / 3, NULL, NULL},
    {"emoji \xf0\x9f\x98\x80 tab\t", "", NULL, 0, 0, 0.0, "next \\ step\r", NULL},
    {"shop.cart.Cart.clear", "method", "shop/cart.py", 44, 50, 0.25, NULL,
     "shop.cart.Cart.add \xff"},
};

static sink_prediction awkward(void)
{
    return (sink_prediction){
        .case_id = "c\"1\0x",
        .case_len = 5,
        .seq = 7,
        .revision = 2,
        .activity = "Zahlung fehlgeschlagen: \xe2\x9c\x93 \xc3\xb6\nzweite Zeile",
        .time_unix_nano = 1700000000123456789,
        .model_version = "m-2024.1",
        .graph_version = "0123456789abcdef",
        .ranked = awkward_ranked,
        .nranked = 4,
        .latency_us = 1234,
        .scored = true,
        .last_rank = 3,
    };
}

static const char awkward_json[] =
    "{\"case_id\":\"c\\\"1\\u0000x\",\"seq\":7,\"revision\":2,"
    "\"activity\":\"Zahlung fehlgeschlagen: \xe2\x9c\x93 \xc3\xb6\\nzweite Zeile\","
    "\"time_unix_nano\":1700000000123456789,\"model_version\":\"m-2024.1\","
    "\"graph_version\":\"0123456789abcdef\",\"ranked\":["
    "{\"symbol\":\"shop.cart.Cart.add\",\"kind\":\"method\",\"file\":\"shop/cart.py\","
    "\"start_line\":10,\"end_line\":42,\"score\":0.5,\"activity\":\"\",\"near\":\"\"},"
    "{\"symbol\":\"bad\xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd(\",\"kind\":\"function\","
    "\"file\":\"src/a b/\\\"q\\\".ts\",\"start_line\":1,\"end_line\":1,"
    "\"score\":0.3333333333333333,\"activity\":\"\",\"near\":\"\"},"
    "{\"symbol\":\"emoji \xf0\x9f\x98\x80 tab\\t\",\"kind\":\"\",\"file\":\"\","
    "\"start_line\":0,\"end_line\":0,\"score\":0,\"activity\":\"next \\\\ step\\r\",\"near\":\"\"},"
    "{\"symbol\":\"shop.cart.Cart.clear\",\"kind\":\"method\",\"file\":\"shop/cart.py\","
    "\"start_line\":44,\"end_line\":50,\"score\":0.25,\"activity\":\"\","
    "\"near\":\"shop.cart.Cart.add \xef\xbf\xbd\"}],"
    "\"latency_us\":1234,\"last_rank\":3}";

static void check_json_equal(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        size_t i = 0;
        while (got[i] && got[i] == want[i])
            i++;
        unit_fail(__FILE__, __LINE__, "JSON differs at byte %zu:\n got: %s\nwant: %s", i, got,
                  want);
    }
}

/* Byte offset in a decoder's "byte offset N: ..." reason. */
static size_t why_offset(const char *why)
{
    CHECK(strncmp(why, "byte offset ", 12) == 0);
    return (size_t)strtoull(why + 12, NULL, 10);
}

/* ------------------------------------------------------------------ */
/* Wire forms                                                          */
/* ------------------------------------------------------------------ */

TEST(pb_bytes_by_hand)
{
    static const sink_ranked r = {"s", NULL, NULL, 10, 0, 0.5, NULL, NULL};
    sink_prediction p = {
        .case_id = "c1",
        .case_len = 2,
        .seq = 3,
        .activity = "a",
        .time_unix_nano = 0x0102030405060708,
        .model_version = "m",
        .graph_version = "g",
        .ranked = &r,
        .nranked = 1,
        .latency_us = 150,
        .revision = 1,
    };
    static const uint8_t want[] = {
        0x0a, 2,    'c',  '1',                                /* 1 case_id, LEN */
        0x10, 3,                                              /* 2 seq, varint */
        0x1a, 1,    'a',                                      /* 3 activity */
        0x21, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* 4 fixed64, little-endian */
        0x2a, 1,    'm',                                      /* 5 model_version */
        0x32, 14,                                             /* 6 ranked, 14 bytes: */
        0x0a, 1,    's',                                      /*   1 symbol */
        0x20, 10,                                             /*   4 start_line */
        0x31, 0,    0,    0,    0,    0,    0,    0xe0, 0x3f, /*   6 score 0.5 as a double */
        0x38, 0x96, 0x01,                                     /* 7 latency_us 150 */
        0x48, 1,                                              /* 9 revision 1 */
        0x52, 1,    'g',                                      /* 10 graph_version */
    };
    core_buf b = {0};
    sink_prediction_pb(&p, &b);
    CHECK_INT(b.len, sizeof want);
    for (size_t i = 0; i < sizeof want; i++)
        if ((uint8_t)b.data[i] != want[i])
            unit_fail(__FILE__, __LINE__, "byte %zu: %02x, want %02x", i, (uint8_t)b.data[i],
                      want[i]);

    /* An all-default prediction is the empty message; a ranked item with
     * nothing set is still there, as an empty submessage. */
    static const sink_ranked empty_r = {0};
    sink_prediction e = {.ranked = &empty_r, .nranked = 1};
    core_buf_reset(&b);
    sink_prediction_pb(&e, &b);
    CHECK_INT(b.len, 2);
    CHECK_INT((uint8_t)b.data[0], 0x32);
    CHECK_INT((uint8_t)b.data[1], 0);
    /* A negative time is two's complement in the fixed64. */
    e = (sink_prediction){.time_unix_nano = -1};
    core_buf_reset(&b);
    sink_prediction_pb(&e, &b);
    CHECK_INT(b.len, 9);
    for (int i = 1; i < 9; i++)
        CHECK_INT((uint8_t)b.data[i], 0xff);
    core_buf_reset(&b);
    CHECK_OK(unit_prediction_pb_to_json("", 0, &b, NULL, 0));
    check_json_equal(b.data, "{\"case_id\":\"\",\"seq\":0,\"revision\":0,\"activity\":\"\","
                             "\"time_unix_nano\":0,"
                             "\"model_version\":\"\",\"graph_version\":\"\","
                             "\"ranked\":[],\"latency_us\":0,"
                             "\"last_rank\":null}");
    /* last_rank is optional: a scored miss (0) is written, as field 8. */
    e = (sink_prediction){.scored = true};
    core_buf_reset(&b);
    sink_prediction_pb(&e, &b);
    CHECK_INT(b.len, 2);
    CHECK_INT((uint8_t)b.data[0], 0x40);
    CHECK_INT((uint8_t)b.data[1], 0);
    core_buf_reset(&b);
    sink_prediction_json(&e, &b);
    CHECK(strstr(b.data, ",\"latency_us\":0,\"last_rank\":0}") != NULL);
    core_buf_free(&b);
}

TEST(json_of_awkward_strings)
{
    sink_prediction p = awkward();
    core_buf b = {0};
    core_buf_puts(&b, "prefix:"); /* appends, does not overwrite */
    sink_prediction_json(&p, &b);
    CHECK(strncmp(b.data, "prefix:", 7) == 0);
    check_json_equal(b.data + 7, awkward_json);
    CHECK_INT(core_utf8_valid_prefix(b.data, b.len), b.len);
    /* Not finite scores are null, and -0 keeps its sign. */
    sink_ranked odd[2] = {{.score = NAN}, {.score = -0.0}};
    sink_prediction q = {.ranked = odd, .nranked = 2};
    core_buf_reset(&b);
    sink_prediction_json(&q, &b);
    CHECK(strstr(b.data, "\"score\":null") != NULL);
    CHECK(strstr(b.data, "\"score\":-0,") != NULL);
    core_buf_free(&b);
}

TEST(pb_to_json_equals_json)
{
    sink_prediction p = awkward();
    core_buf pb = {0}, js = {0};
    sink_prediction_pb(&p, &pb);
    char why[200] = "";
    core_buf_puts(&js, "x");
    CHECK_OK(unit_prediction_pb_to_json(pb.data, pb.len, &js, why, sizeof why));
    check_json_equal(js.data + 1, awkward_json);

    /* Odd scores survive the round trip too. */
    sink_ranked odd[3] = {{.score = NAN}, {.score = -0.0}, {.score = INFINITY}};
    sink_prediction q = {.ranked = odd, .nranked = 3, .time_unix_nano = -5};
    core_buf want = {0};
    sink_prediction_json(&q, &want);
    core_buf_reset(&pb);
    core_buf_reset(&js);
    sink_prediction_pb(&q, &pb);
    CHECK_OK(unit_prediction_pb_to_json(pb.data, pb.len, &js, why, sizeof why));
    check_json_equal(js.data, want.data);
    CHECK(strstr(js.data, "\"time_unix_nano\":-5,") != NULL);
    core_buf_free(&want);
    core_buf_free(&pb);
    core_buf_free(&js);
}

TEST(pb_decoder_skips_unknown_and_last_wins)
{
    sink_prediction p = awkward();
    core_buf pb = {0}, js = {0};
    sink_prediction_pb(&p, &pb);
    /* Unknown fields of every wire type, before and after, and a second
     * seq that must win. */
    static const uint8_t extra[] = {
        0xf8, 0x06, 0x2a,                       /* field 111, varint 42 */
        0x6d, 1,    2,    3,   4,               /* field 13, fixed32 */
        0x61, 1,    2,    3,   4,   5, 6, 7, 8, /* field 12, fixed64 */
        0x72, 3,    'a',  'b', 'c',             /* field 14, LEN */
        0x10, 0x09,                             /* seq = 9 */
    };
    core_buf msg = {0};
    core_buf_append(&msg, extra, 3);
    core_buf_append(&msg, pb.data, pb.len);
    core_buf_append(&msg, extra, sizeof extra);
    CHECK_OK(unit_prediction_pb_to_json(msg.data, msg.len, &js, NULL, 0));
    p.seq = 9;
    core_buf want = {0};
    sink_prediction_json(&p, &want);
    check_json_equal(js.data, want.data);
    core_buf_free(&want);
    core_buf_free(&msg);
    core_buf_free(&pb);
    core_buf_free(&js);
}

/* Offset just past the top-level field at pos (test-side walker, for
 * well-formed input only). */
static size_t skip_field(const uint8_t *b, size_t pos)
{
    uint8_t tag = b[pos++];
    switch (tag & 7) {
    case 0:
        while (b[pos++] & 0x80)
            ;
        return pos;
    case 1:
        return pos + 8;
    case 2: {
        uint64_t n = 0;
        unsigned sh = 0;
        uint8_t c;
        do {
            c = b[pos++];
            n |= (uint64_t)(c & 0x7f) << sh;
            sh += 7;
        } while (c & 0x80);
        return pos + (size_t)n;
    }
    }
    unit_fail(__FILE__, __LINE__, "unexpected wire type %d", tag & 7);
}

TEST(pb_every_truncation_fails_with_an_offset)
{
    sink_prediction p = awkward();
    core_buf pb = {0};
    sink_prediction_pb(&p, &pb);
    const uint8_t *b = (const uint8_t *)pb.data;
    /* A prefix that ends between top-level fields is itself a valid
     * (shorter) message; every other prefix must be refused. */
    bool boundary[1024] = {0};
    CHECK(pb.len < sizeof boundary);
    for (size_t pos = 0; pos < pb.len; pos = skip_field(b, pos))
        boundary[pos] = true;
    size_t refused = 0;
    for (size_t n = 0; n < pb.len; n++) {
        /* An exact-size copy, so that a read past the end is an ASan
         * error rather than a read of the next byte. */
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, b, n);
        core_buf out = {0};
        core_buf_puts(&out, "keep");
        char why[200] = "";
        int rc = unit_prediction_pb_to_json(cut, n, &out, why, sizeof why);
        if (boundary[n]) {
            if (rc != 0)
                unit_fail(__FILE__, __LINE__, "prefix of %zu bytes refused: %s", n, why);
        } else {
            if (rc != CORE_EFORMAT)
                unit_fail(__FILE__, __LINE__, "prefix of %zu bytes: rc %d", n, rc);
            CHECK(why_offset(why) <= n);
            CHECK_STR(out.data, "keep"); /* left as it was */
            refused++;
        }
        core_buf_free(&out);
        free(cut);
    }
    CHECK(refused > pb.len / 2);
    core_buf_free(&pb);
}

static void check_bad(const void *buf, size_t len, size_t want_off, const char *want_text)
{
    char why[200] = "";
    core_buf out = {0};
    int rc = unit_prediction_pb_to_json(buf, len, &out, why, sizeof why);
    if (rc != CORE_EFORMAT || why_offset(why) != want_off || !strstr(why, want_text))
        unit_fail(__FILE__, __LINE__, "rc %d, why \"%s\"; want offset %zu and \"%s\"", rc, why,
                  want_off, want_text);
    CHECK(out.len == 0);
    core_buf_free(&out);
}

TEST(pb_garbage_is_refused_with_offsets)
{
    check_bad("\x00", 1, 0, "invalid field number");
    check_bad("\x10\x01\x0b", 3, 2, "unsupported wire type"); /* a group */
    check_bad("\x10\x01\x08\x01", 4, 2, "Prediction.case_id has wire type varint");
    check_bad("\x21\x01\x02", 3, 1, "truncated fixed-width");
    check_bad("\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, 1, "longer than 10");
    check_bad("\x10\x80", 2, 1, "truncated varint");
    check_bad("\x0a\x05"
              "ab",
              4, 1, "past the end");
    /* Inside a RankedSymbol, offsets still count from the message start. */
    check_bad("\x10\x01\x32\x02\x08\x01", 6, 4, "RankedSymbol.symbol has wire type varint");
    check_bad("\x10\x01\x32\x02\x0a\x05", 6, 5, "past the end");
    check_bad("\x32\x01\x31", 3, 3, "truncated fixed-width");
    check_bad("\x32\x02\x30\x01", 4, 2, "RankedSymbol.score has wire type varint");

    /* Random bytes and random damage to a valid message: refused or
     * decoded, never a crash, and what decodes is valid UTF-8. */
    sink_prediction p = awkward();
    core_buf pb = {0}, out = {0};
    sink_prediction_pb(&p, &pb);
    uint64_t rng = 42;
    size_t ok = 0, bad = 0;
    for (int iter = 0; iter < 20000; iter++) {
        size_t n;
        uint8_t *buf;
        if (iter & 1) {
            n = core_splitmix64(&rng) % 48;
            buf = malloc(n ? n : 1);
            for (size_t i = 0; i < n; i++)
                buf[i] = (uint8_t)core_splitmix64(&rng);
        } else {
            n = pb.len;
            buf = malloc(n);
            memcpy(buf, pb.data, n);
            for (int k = 0; k < 3; k++)
                buf[core_splitmix64(&rng) % n] = (uint8_t)core_splitmix64(&rng);
        }
        char why[200] = "";
        core_buf_reset(&out);
        int rc = unit_prediction_pb_to_json(buf, n, &out, why, sizeof why);
        if (rc == 0) {
            CHECK(strncmp(out.data, "{\"case_id\":", 11) == 0);
            CHECK_INT(core_utf8_valid_prefix(out.data, out.len), out.len);
            ok++;
        } else {
            CHECK_INT(rc, CORE_EFORMAT);
            CHECK(why_offset(why) <= n);
            bad++;
        }
        free(buf);
    }
    CHECK(ok > 100 && bad > 100);
    core_buf_free(&pb);
    core_buf_free(&out);
}

/* protobuf-c's generated code (proto/pmrag/v1/prediction.proto) reads our
 * bytes as the same fields, and our decoder reads its bytes. */
/* Ranked items whose length prefix takes one, two and three bytes (the
 * writer reserves one and moves longer bodies up). */
TEST(pb_long_ranked_items_agree_with_protobuf_c)
{
    static const size_t sizes[] = {100, 127, 128, 300, 16383, 16384, 20000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *sym = malloc(sizes[i] + 1);
        memset(sym, 'x', sizes[i]);
        sym[sizes[i]] = 0;
        sink_ranked r[2] = {{sym, "method", "a/b.py", 1, 2, 0.25, "act", NULL},
                            {"short", "function", "c.ts", 3, 4, 0.125, NULL, "s"}};
        sink_prediction p = {.case_id = "case-1",
                             .case_len = 6,
                             .seq = 3,
                             .activity = "a",
                             .model_version = "v1",
                             .ranked = r,
                             .nranked = 2};
        core_buf pb = {0};
        sink_prediction_pb(&p, &pb);
        Pmrag__V1__Prediction *m =
            pmrag__v1__prediction__unpack(NULL, pb.len, (const uint8_t *)pb.data);
        CHECK(m != NULL);
        CHECK_INT(m->n_ranked, 2);
        CHECK_INT(strlen(m->ranked[0]->symbol), sizes[i]);
        CHECK_STR(m->ranked[1]->symbol, "short");
        size_t n = pmrag__v1__prediction__get_packed_size(m);
        uint8_t *theirs = malloc(n);
        CHECK_INT(pmrag__v1__prediction__pack(m, theirs), n);
        CHECK_INT(n, pb.len);
        CHECK(memcmp(theirs, pb.data, n) == 0);
        free(theirs);
        pmrag__v1__prediction__free_unpacked(m, NULL);
        core_buf_free(&pb);
        free(sym);
    }
}

TEST(pb_agrees_with_protobuf_c)
{
    sink_prediction p = awkward();
    core_buf pb = {0};
    sink_prediction_pb(&p, &pb);
    Pmrag__V1__Prediction *m =
        pmrag__v1__prediction__unpack(NULL, pb.len, (const uint8_t *)pb.data);
    CHECK(m != NULL);
    CHECK(memcmp(m->case_id, "c\"1\0x", 6) == 0);
    CHECK_INT(m->seq, 7);
    CHECK_STR(m->activity, p.activity);
    CHECK_INT(m->time_unix_nano, 1700000000123456789);
    CHECK_STR(m->model_version, "m-2024.1");
    CHECK_INT(m->latency_us, 1234);
    CHECK_INT(m->scored_case, PMRAG__V1__PREDICTION__SCORED_LAST_RANK);
    CHECK_INT(m->last_rank, 3);
    CHECK_INT(m->revision, 2);
    CHECK_STR(m->graph_version, "0123456789abcdef");
    CHECK_INT(m->n_ranked, 4);
    CHECK_STR(m->ranked[0]->symbol, "shop.cart.Cart.add");
    CHECK_STR(m->ranked[0]->kind, "method");
    CHECK_STR(m->ranked[0]->file, "shop/cart.py");
    CHECK_INT(m->ranked[0]->start_line, 10);
    CHECK_INT(m->ranked[0]->end_line, 42);
    CHECK(m->ranked[0]->score == 0.5);
    CHECK_STR(m->ranked[0]->activity, "");
    /* Invalid UTF-8 arrives cleaned, so strict decoders accept it. */
    CHECK_STR(m->ranked[1]->symbol, "bad\xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd(");
    CHECK_STR(m->ranked[1]->file, "src/a b/\"q\".ts");
    CHECK(m->ranked[1]->score == 1.0 / 3);
    CHECK_STR(m->ranked[2]->symbol, "emoji \xf0\x9f\x98\x80 tab\t");
    CHECK_STR(m->ranked[2]->kind, "");
    CHECK_STR(m->ranked[2]->activity, "next \\ step\r");
    CHECK_STR(m->ranked[2]->near, "");
    CHECK_STR(m->ranked[3]->activity, "");
    CHECK_STR(m->ranked[3]->near, "shop.cart.Cart.add \xef\xbf\xbd");

    pmrag__v1__prediction__free_unpacked(m, NULL);

    /* protobuf-c's encoding of the same message is byte for byte ours
     * (both are canonical), and our decoder reads it. Its strings are C
     * strings, so this time the case id has no NUL. */
    p.case_len = 3;
    core_buf_reset(&pb);
    sink_prediction_pb(&p, &pb);
    m = pmrag__v1__prediction__unpack(NULL, pb.len, (const uint8_t *)pb.data);
    CHECK(m != NULL);
    size_t n = pmrag__v1__prediction__get_packed_size(m);
    uint8_t *theirs = malloc(n);
    CHECK_INT(pmrag__v1__prediction__pack(m, theirs), n);
    CHECK_INT(n, pb.len);
    CHECK(memcmp(theirs, pb.data, n) == 0);
    core_buf js = {0}, want = {0};
    CHECK_OK(unit_prediction_pb_to_json(theirs, n, &js, NULL, 0));
    sink_prediction_json(&p, &want);
    check_json_equal(js.data, want.data);
    core_buf_free(&want);
    free(theirs);
    pmrag__v1__prediction__free_unpacked(m, NULL);

    /* A scored miss has its 0 on the wire, and protobuf-c reads it as
     * present; an unscored prediction has none. */
    sink_prediction q = {.seq = 2, .scored = true};
    for (int scored = 1; scored >= 0; scored--) {
        q.scored = scored;
        core_buf_reset(&pb);
        sink_prediction_pb(&q, &pb);
        m = pmrag__v1__prediction__unpack(NULL, pb.len, (const uint8_t *)pb.data);
        CHECK(m != NULL);
        CHECK_INT(m->scored_case, scored ? PMRAG__V1__PREDICTION__SCORED_LAST_RANK
                                         : PMRAG__V1__PREDICTION__SCORED__NOT_SET);
        CHECK_INT(m->last_rank, 0);
        n = pmrag__v1__prediction__get_packed_size(m);
        theirs = malloc(n);
        CHECK_INT(pmrag__v1__prediction__pack(m, theirs), n);
        CHECK_INT(n, pb.len);
        CHECK(memcmp(theirs, pb.data, n) == 0);
        free(theirs);
        pmrag__v1__prediction__free_unpacked(m, NULL);
    }
    core_buf_free(&js);
    core_buf_free(&pb);
}

/* ------------------------------------------------------------------ */
/* Kafka                                                               */
/* ------------------------------------------------------------------ */

#define TOPIC "pmrag_predictions"

/* Log lines arrive on librdkafka's threads. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static core_buf log_text;
static unsigned log_lines;

static void capture_log(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    pthread_mutex_lock(&log_lock);
    core_buf_printf(&log_text, "%s: %s\n", core_log_level_name(level), msg);
    log_lines++;
    pthread_mutex_unlock(&log_lock);
}

static bool log_contains(const char *s)
{
    pthread_mutex_lock(&log_lock);
    bool r = log_text.data && strstr(log_text.data, s);
    pthread_mutex_unlock(&log_lock);
    return r;
}

static void quiet_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk, (void)level, (void)fac, (void)buf;
}

typedef struct mock {
    rd_kafka_t *rk; /* a throwaway client that owns the mock cluster */
    rd_kafka_mock_cluster_t *mc;
    const char *bootstraps;
} mock;

static void mock_start(mock *m)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    m->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!m->rk)
        unit_fail(__FILE__, __LINE__, "rd_kafka_new: %s", err);
    m->mc = rd_kafka_mock_cluster_new(m->rk, 1);
    CHECK(m->mc != NULL);
    m->bootstraps = rd_kafka_mock_cluster_bootstraps(m->mc);
    CHECK_INT(rd_kafka_mock_topic_create(m->mc, TOPIC, 4, 1), 0);
}

static void mock_stop(mock *m)
{
    rd_kafka_mock_cluster_destroy(m->mc);
    rd_kafka_destroy(m->rk);
}

/* Kafka's murmur2 (the Java client's default partitioner), for checking
 * that librdkafka's murmur2_random puts keys where Java would. */
static uint32_t kafka_murmur2(const void *key, size_t len)
{
    const uint8_t *d = key;
    const uint32_t m = 0x5bd1e995;
    uint32_t h = 0x9747b28c ^ (uint32_t)len;
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        uint32_t k = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 |
                     (uint32_t)d[i + 3] << 24;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    switch (len & 3) {
    case 3:
        h ^= (uint32_t)d[i + 2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)d[i + 1] << 8;
        /* fall through */
    case 1:
        h ^= d[i];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

#define NCASES 500
#define NMSGS 10000

TEST(kafka_mock_cluster_order_and_partitions)
{
    mock mk;
    mock_start(&mk);
    /* A secret among the extra properties must never reach the log. */
    const char *props[] = {"sasl.password=hunter2-very-secret", "debug=conf,msg,protocol"};
    sink_kafka_opts o = {
        .bootstrap = mk.bootstraps,
        .topic = TOPIC,
        .props = props,
        .nprops = 2,
        .log = {capture_log, NULL, CORE_LOG_DEBUG},
    };
    sink_kafka *k = NULL;
    char why[512] = "";
    int rc = sink_kafka_new(&o, &k, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sink_kafka_new: %s", why);

    uint64_t t0 = core_now_ns();
    core_buf val = {0};
    static const sink_ranked r[2] = {{"a.f", "function", "a.py", 1, 9, 0.75, "next", NULL},
                                     {"b.g", "method", "b.py", 3, 4, 0.25, NULL, "a.f"}};
    for (int i = 0; i < NMSGS; i++) {
        char key[32];
        int klen = snprintf(key, sizeof key, "case-%03d", i % NCASES);
        sink_prediction p = {.case_id = key,
                             .case_len = (size_t)klen,
                             .seq = (uint64_t)(i / NCASES) + 1,
                             .activity = "act",
                             .time_unix_nano = 1700000000000000000 + i,
                             .model_version = "v1",
                             .ranked = r,
                             .nranked = 2,
                             .latency_us = (uint64_t)i};
        core_buf_reset(&val);
        sink_prediction_pb(&p, &val);
        rc = sink_kafka_send(k, key, (size_t)klen, val.data, val.len, 1000);
        if (rc)
            unit_fail(__FILE__, __LINE__, "send %d: %s", i, core_strerror(rc));
    }
    CHECK_OK(sink_kafka_flush(k, 5000));
    sink_kafka_stats st;
    sink_kafka_get_stats(k, &st);
    CHECK_INT(st.queued, NMSGS);
    CHECK_INT(st.delivered, NMSGS);
    CHECK_INT(st.failed, 0);
    CHECK_INT(st.in_flight, 0);
    CHECK(!st.fatal);
    sink_kafka_free(k);
    uint64_t t1 = core_now_ns();

    /* Read the topic back with a plain consumer. */
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    CHECK_INT(rd_kafka_conf_set(conf, "bootstrap.servers", mk.bootstraps, err, sizeof err), 0);
    CHECK_INT(rd_kafka_conf_set(conf, "group.id", "test_sink", err, sizeof err), 0);
    CHECK_INT(rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err), 0);
    rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!c)
        unit_fail(__FILE__, __LINE__, "consumer: %s", err);
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(4);
    for (int i = 0; i < 4; i++)
        rd_kafka_topic_partition_list_add(parts, TOPIC, i)->offset = RD_KAFKA_OFFSET_BEGINNING;
    CHECK_INT(rd_kafka_assign(c, parts), 0);
    rd_kafka_topic_partition_list_destroy(parts);

    int partition_of[NCASES];
    uint64_t next_seq[NCASES];
    for (int i = 0; i < NCASES; i++) {
        partition_of[i] = -1;
        next_seq[i] = 1;
    }
    int got = 0, per_partition[4] = {0};
    core_buf js = {0};
    uint64_t deadline = core_now_ns() + 8000000000ull;
    while (got < NMSGS && core_now_ns() < deadline) {
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(c, 100);
        if (!msg)
            continue;
        if (msg->err) {
            rd_kafka_message_destroy(msg);
            continue;
        }
        int ci;
        char kstr[32];
        CHECK(msg->key_len < sizeof kstr);
        memcpy(kstr, msg->key, msg->key_len);
        kstr[msg->key_len] = 0;
        CHECK(sscanf(kstr, "case-%d", &ci) == 1 && ci >= 0 && ci < NCASES);
        /* Same key, same partition: the one Java's partitioner picks. */
        if (partition_of[ci] < 0)
            partition_of[ci] = msg->partition;
        CHECK_INT(msg->partition, partition_of[ci]);
        CHECK_INT(msg->partition, (kafka_murmur2(msg->key, msg->key_len) & 0x7fffffff) % 4);
        /* Send order within the key's partition, no gaps, no duplicates. */
        core_buf_reset(&js);
        CHECK_OK(unit_prediction_pb_to_json(msg->payload, msg->len, &js, NULL, 0));
        char want[96];
        snprintf(want, sizeof want,
                 "{\"case_id\":\"%s\",\"seq\":%" PRIu64 ",\"revision\":0,\"activity\":\"act\"",
                 kstr, next_seq[ci]);
        if (strncmp(js.data, want, strlen(want)) != 0)
            unit_fail(__FILE__, __LINE__, "message %d: %s, want %s...", got, js.data, want);
        next_seq[ci]++;
        per_partition[msg->partition]++;
        got++;
        rd_kafka_message_destroy(msg);
    }
    CHECK_INT(got, NMSGS);
    for (int i = 0; i < NCASES; i++)
        CHECK_INT(next_seq[i], NMSGS / NCASES + 1);
    for (int i = 0; i < 4; i++)
        CHECK(per_partition[i] > 0);
    /* Nothing more arrives: no duplicates after the last one. */
    rd_kafka_message_t *extra = rd_kafka_consumer_poll(c, 200);
    CHECK(extra == NULL || extra->err);
    if (extra)
        rd_kafka_message_destroy(extra);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    mock_stop(&mk);
    core_buf_free(&js);
    core_buf_free(&val);

    CHECK(log_lines > 0);
    CHECK(!log_contains("hunter2"));
    fprintf(stderr, "  %d messages produced and flushed in %.0f ms\n", NMSGS,
            (double)(t1 - t0) / 1e6);
}

TEST(kafka_bad_properties_are_usage_errors)
{
    sink_kafka *k = NULL;
    char why[512];
    const char *unknown[] = {"linger.ms=1", "no.such.property=1"};
    sink_kafka_opts o = {.bootstrap = "127.0.0.1:1", .topic = TOPIC, .props = unknown, .nprops = 2};
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "no.such.property") != NULL);
    CHECK(k == NULL);

    const char *invalid[] = {"acks=sometimes"};
    o.props = invalid;
    o.nprops = 1;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "acks") != NULL);

    const char *noeq[] = {"hunter2"};
    o.props = noeq;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "#1") && strstr(why, "key=value") && !strstr(why, "hunter2"));

    const char *noidem[] = {"enable.idempotence=false"};
    o.props = noidem;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "enable.idempotence") != NULL);
    const char *noidem2[] = {"enable.idempotence=0"};
    o.props = noidem2;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "enable.idempotence") != NULL);

    /* Refused only when the client is made: acks=1 with idempotence. */
    const char *conflict[] = {"acks=1"};
    o.props = conflict;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "acks") != NULL);

    o.props = NULL;
    o.nprops = 0;
    o.bootstrap = NULL;
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "bootstrap") != NULL);
    o.bootstrap = "127.0.0.1:1";
    o.topic = "";
    CHECK_INT(sink_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "topic") != NULL);
    CHECK(k == NULL);
}

/* No broker: a full queue is backpressure (-EAGAIN after block_ms), and
 * messages that time out are counted as failed with the reason. */
TEST(kafka_backpressure_and_failed_deliveries)
{
    const char *props[] = {"queue.buffering.max.messages=5", "message.timeout.ms=200",
                           "socket.connection.setup.timeout.ms=1000"};
    sink_kafka_opts o = {.bootstrap = "127.0.0.1:1", /* nothing listens there */
                         .topic = TOPIC,
                         .props = props,
                         .nprops = 3,
                         .log = {capture_log, NULL, CORE_LOG_WARN}};
    sink_kafka *k = NULL;
    char why[512] = "";
    int rc = sink_kafka_new(&o, &k, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sink_kafka_new: %s", why);
    for (int i = 0; i < 5; i++)
        CHECK_OK(sink_kafka_send(k, "k", 1, "v", 1, 0));
    uint64_t t0 = core_now_ns();
    CHECK_INT(sink_kafka_send(k, "k", 1, "v", 1, 50), -EAGAIN);
    uint64_t waited = core_now_ns() - t0;
    CHECK(waited >= 45000000ull && waited < 1000000000ull);
    CHECK_INT(sink_kafka_send(k, "k", 1, "v", 1, 0), -EAGAIN);
    sink_kafka_stats st;
    sink_kafka_get_stats(k, &st);
    CHECK_INT(st.queued, 5);
    CHECK_INT(st.in_flight, 5);
    /* The messages time out after 200 ms; flush serves the reports. */
    CHECK_OK(sink_kafka_flush(k, 5000));
    sink_kafka_get_stats(k, &st);
    CHECK_INT(st.failed, 5);
    CHECK_INT(st.delivered, 0);
    CHECK_INT(st.in_flight, 0);
    CHECK(!st.fatal);
    CHECK(strstr(st.last_error, "delivery") != NULL);
    CHECK(log_contains("failed so far"));
    sink_kafka_free(k);
}

/* A fatal idempotent-producer error (the cluster refuses the producer id)
 * is surfaced: stats.fatal, last_error, and send refuses. */
TEST(kafka_fatal_error_is_surfaced)
{
    mock mk;
    mock_start(&mk);
    rd_kafka_mock_push_request_errors(mk.mc, 22 /* InitProducerId */, 1,
                                      RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED);
    sink_kafka_opts o = {
        .bootstrap = mk.bootstraps, .topic = TOPIC, .log = {capture_log, NULL, CORE_LOG_WARN}};
    sink_kafka *k = NULL;
    char why[512] = "";
    int rc = sink_kafka_new(&o, &k, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "sink_kafka_new: %s", why);
    sink_kafka_stats st = {0};
    uint64_t deadline = core_now_ns() + 5000000000ull;
    while (!st.fatal && core_now_ns() < deadline) {
        rc = sink_kafka_send(k, "k", 1, "v", 1, 0);
        CHECK(rc == 0 || rc == -ENOTRECOVERABLE);
        sink_kafka_poll(k, 20);
        sink_kafka_get_stats(k, &st);
    }
    if (!st.fatal)
        unit_fail(__FILE__, __LINE__, "no fatal error; last_error \"%s\", log:\n%s", st.last_error,
                  log_text.data ? log_text.data : "");
    if (!strstr(st.last_error, "fatal") || !strstr(st.last_error, "CLUSTER_AUTHORIZATION_FAILED"))
        unit_fail(__FILE__, __LINE__, "last_error \"%s\"", st.last_error);
    CHECK_INT(sink_kafka_send(k, "k", 1, "v", 1, 0), -ENOTRECOVERABLE);
    CHECK(log_contains("fatal"));
    rc = sink_kafka_flush(k, 2000);
    CHECK(rc == -ENOTRECOVERABLE);
    sink_kafka_free(k);
    mock_stop(&mk);
}
