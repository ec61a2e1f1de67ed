/* Unit tests of core/. */
#include "core.h"
#include "core_cfg.h"
#include "core_wire.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>

TEST(strerror_names_codes)
{
    CHECK_STR(core_strerror(0), "success");
    CHECK_STR(core_strerror(CORE_ECORRUPT), "file is corrupted or truncated");
    CHECK_STR(core_strerror(-ENOENT), "No such file or directory");
    CHECK_STR(core_strerror(-99999), "unknown error");
}

static char last_msg[256];
static int last_level = -1;
static void capture(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    last_level = (int)level;
    snprintf(last_msg, sizeof last_msg, "%s", msg);
}

TEST(logger_filters_and_formats)
{
    core_logger lg = {capture, NULL, CORE_LOG_NOTE};
    core_logf(&lg, CORE_LOG_INFO, "dropped %d", 1);
    CHECK_INT(last_level, -1);
    core_logf(&lg, CORE_LOG_WARN, "kept %s:%d", "a.py", 7);
    CHECK_INT(last_level, CORE_LOG_WARN);
    CHECK_STR(last_msg, "kept a.py:7");
    /* Longer than the stack buffer. */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    core_logf(&lg, CORE_LOG_ERROR, "%s", big);
    CHECK_INT(strlen(last_msg), 255);
    core_logf(NULL, CORE_LOG_ERROR, "no logger is fine");
}

TEST(arena_alignment_and_reset)
{
    core_arena a;
    core_arena_init(&a, 128);
    for (int i = 0; i < 1000; i++) {
        char *p = core_arena_alloc(&a, (size_t)(i % 37) + 1);
        CHECK(((uintptr_t)p & 15) == 0);
        memset(p, 0xab, (size_t)(i % 37) + 1);
    }
    char *big = core_arena_alloc(&a, 100000);
    memset(big, 1, 100000);
    char *s = core_arena_strndup(&a, "hello world", 5);
    CHECK_STR(s, "hello");
    CHECK(a.used >= 100000);
    core_arena_reset(&a);
    CHECK_INT(a.used, 0);
    char *z = core_arena_zalloc(&a, 64);
    for (int i = 0; i < 64; i++)
        CHECK_INT(z[i], 0);
    core_arena_free(&a);
}

TEST(vec_grows)
{
    core_vec(int) v = {0};
    for (int i = 0; i < 10000; i++)
        core_vec_push(&v, i * 3);
    CHECK_INT(v.n, 10000);
    CHECK_INT(v.v[9999], 29997);
    core_vec_free(&v);
    CHECK(v.v == NULL);
}

TEST(hash_is_stable_and_spreads)
{
    const char *s = "pmrag";
    uint64_t h1 = core_hash64(s, 5, 0), h2 = core_hash64(s, 5, 0);
    CHECK(h1 == h2);
    CHECK(core_hash64(s, 5, 1) != h1);
    CHECK(core_hash64(s, 4, 0) != h1);
    /* Every length from 0 to 64 and a one-bit change give different hashes. */
    char buf[65] = {0};
    core_map seen = {0};
    for (size_t n = 0; n <= 64; n++) {
        bool ins;
        core_map_put(&seen, core_hash64(buf, n, 0) >> 1, &ins);
        CHECK(ins);
        buf[n / 2] ^= 1;
        core_map_put(&seen, core_hash64(buf, n, 0) >> 1, &ins);
        CHECK(ins || n / 2 >= n);
        buf[n / 2] ^= 1;
    }
    core_map_free(&seen);
    /* zlib's CRC-32 of "123456789" is the standard check value. */
    CHECK(core_crc32(0, "123456789", 9) == 0xcbf43926u);
}

TEST(map_put_get_many)
{
    core_map m = {0};
    for (uint64_t k = 0; k < 100000; k++) {
        bool ins;
        *core_map_put(&m, k * 7919, &ins) = k;
        CHECK(ins);
    }
    CHECK_INT(m.n, 100000);
    for (uint64_t k = 0; k < 100000; k++) {
        uint64_t *v = core_map_get(&m, k * 7919);
        CHECK(v && *v == k);
    }
    CHECK(core_map_get(&m, 3) == NULL);
    bool ins = true;
    CHECK_INT(*core_map_put(&m, 7919, &ins), 1);
    CHECK(!ins);
    core_map_free(&m);
}

TEST(smap_multi_values)
{
    core_smap m = {0};
    core_smap_add(&m, "a", 1, 1);
    core_smap_add(&m, "b", 1, 2);
    core_smap_add(&m, "a", 1, 3);
    core_smap_add(&m, "ab", 2, 4);
    uint32_t it, got[4], n = 0;
    for (uint32_t v = core_smap_get(&m, "a", 1, &it); v != UINT32_MAX;
         v = core_smap_next(&m, "a", 1, &it))
        got[n++] = v;
    CHECK_INT(n, 2);
    CHECK_INT(got[0], 3); /* newest first */
    CHECK_INT(got[1], 1);
    CHECK_INT(core_smap_get(&m, "ab", 2, &it), 4);
    CHECK_INT(core_smap_next(&m, "ab", 2, &it), UINT32_MAX);
    CHECK_INT(core_smap_get(&m, "zz", 2, &it), UINT32_MAX);
    /* Keys compare by bytes and length, not as C strings. */
    CHECK_INT(core_smap_get(&m, "abc", 2, &it), 4);
    core_smap_free(&m);
}

TEST(strtab_interns_once)
{
    core_strtab t;
    core_strtab_init(&t);
    CHECK_INT(core_strtab_intern(&t, "", 0), 0);
    uint32_t a = core_strtab_intern(&t, "alpha", 5);
    uint32_t b = core_strtab_intern(&t, "beta", 4);
    CHECK(a != b && a != 0);
    CHECK_INT(core_strtab_intern(&t, "alphabet", 5), a);
    CHECK_STR(core_strtab_str(&t, b), "beta");
    CHECK_INT(core_strtab_find(&t, "beta", 4), b);
    CHECK(core_strtab_find(&t, "gamma", 5) == UINT32_MAX);
    /* A prefix of a stored string is its own string. */
    uint32_t al = core_strtab_intern(&t, "alp", 3);
    CHECK(al != a);
    CHECK_STR(core_strtab_str(&t, al), "alp");
    /* Embedded NULs cut the string. */
    CHECK_INT(core_strtab_intern(&t, "beta\0x", 6), b);
    char name[32];
    for (int i = 0; i < 50000; i++) {
        int n = snprintf(name, sizeof name, "sym%d", i);
        core_strtab_intern(&t, name, (size_t)n);
    }
    for (int i = 0; i < 50000; i += 997) {
        int n = snprintf(name, sizeof name, "sym%d", i);
        uint32_t off = core_strtab_find(&t, name, (size_t)n);
        CHECK(off != UINT32_MAX);
        CHECK_STR(core_strtab_str(&t, off), name);
    }
    core_strtab_free(&t);
}

TEST(buf_printf_and_json)
{
    core_buf b = {0};
    core_buf_printf(&b, "%d-%s", 42, "x");
    CHECK_STR(b.data, "42-x");
    core_buf_reset(&b);
    char longs[1000];
    memset(longs, 'y', sizeof longs - 1);
    longs[sizeof longs - 1] = 0;
    core_buf_printf(&b, "[%s]", longs);
    CHECK_INT(b.len, 1001);
    core_buf_reset(&b);
    const char in[] = "a\"b\\c\n\t\x01 \xc3\xa9 \xff end";
    core_buf_json_str(&b, in, sizeof in - 1);
    CHECK_STR(b.data, "\"a\\\"b\\\\c\\n\\t\\u0001 \xc3\xa9 \xef\xbf\xbd end\"");
    core_buf_reset(&b);
    core_buf_json_double(&b, 0.1);
    core_buf_putc(&b, ' ');
    core_buf_json_double(&b, 1.0 / 3.0);
    CHECK_STR(b.data, "0.1 0.3333333333333333");
    core_buf_reset(&b);
    core_buf_json_float(&b, 0.1f);
    core_buf_putc(&b, ' ');
    core_buf_json_float(&b, 1.0f / 3.0f);
    CHECK_STR(b.data, "0.1 0.33333334");
    core_buf_free(&b);
}

/* The definition: the first precision from 6 up that reads back. */
static void shortest_by_definition(char *out, size_t n, double v, bool is_float)
{
    for (int p = 6; p <= 17; p++) {
        snprintf(out, n, "%.*g", p, v);
        if (is_float ? strtof(out, NULL) == (float)v : strtod(out, NULL) == v)
            return;
    }
}

/* One value against the definition, as a double and as a float. */
static void json_number_check(core_buf *b, double v, bool f, int line)
{
    char want[40];
    core_buf_reset(b);
    if (f)
        core_buf_json_float(b, (float)v);
    else
        core_buf_json_double(b, v);
    shortest_by_definition(want, sizeof want, f ? (double)(float)v : v, f);
    if (strcmp(b->data, want) != 0)
        unit_fail(__FILE__, line, "%.17g: %s, want %s", v, b->data, want);
}

/* JSON numbers as the definition gives them, over values of every size
 * and length: random bit patterns, short decimals, scores; and where the
 * digits are rounded with a carry into a new exponent (next to a power
 * of ten, across the %g layouts' boundary) or at an exact tie (powers of
 * two and their odd multiples have short exact expansions). */
TEST(buf_json_numbers_are_the_shortest_that_read_back)
{
    core_buf b = {0};
    for (int k = -320; k <= 308; k++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", k);
        double p = strtod(t, NULL);
        double near[] = {p, nextafter(p, 0), nextafter(p, INFINITY), -nextafter(p, 0)};
        for (int i = 0; i < 4; i++)
            json_number_check(&b, near[i], false, __LINE__);
    }
    for (int k = -80; k <= 80; k++)
        for (int odd = 1; odd < 40; odd += 2)
            json_number_check(&b, ldexp(odd, k), false, __LINE__);
    char want[40];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        if (i % 3 == 0) {
            memcpy(&v, &x, sizeof v);
            if (!isfinite(v))
                continue;
        } else if (i % 3 == 1) {
            v = (double)(x % 100000) / 1000.0; /* short decimals */
        } else {
            v = (double)(x >> 11) / (double)(1ull << 53); /* scores in [0, 1) */
        }
        bool f = i % 5 == 0;
        if (f && !isfinite((float)v))
            continue;
        core_buf_reset(&b);
        if (f)
            core_buf_json_float(&b, (float)v);
        else
            core_buf_json_double(&b, v);
        shortest_by_definition(want, sizeof want, f ? (double)(float)v : v, f);
        if (strcmp(b.data, want) != 0)
            unit_fail(__FILE__, __LINE__, "%.17g: %s, want %s", v, b.data, want);
    }
    core_buf_free(&b);
}

/* A byte as core_buf_json_str writes it when it stands alone among
 * plain letters (a UTF-8 sequence whole). */
static const char *json_byte(const char *b)
{
    static char out[8];
    unsigned c = (unsigned char)b[0];
    if (c == '"' || c == '\\')
        snprintf(out, sizeof out, "\\%c", c);
    else if (c == '\n')
        snprintf(out, sizeof out, "\\n");
    else if (c < 0x20)
        snprintf(out, sizeof out, "\\u%04x", c);
    else if (c == 0xff)
        snprintf(out, sizeof out, "\xef\xbf\xbd");
    else
        snprintf(out, sizeof out, "%s", b);
    return out;
}

/* Strings are scanned eight bytes at a time: a byte that needs a look at
 * any place of a word, or past the last whole word, is still seen. */
TEST(buf_json_str_every_position)
{
    const char *odd[] = {"\x01", "\x1f",     "\n",           "\"",  "\\",
                         "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xff"};
    core_buf b = {0}, want = {0};
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++)
        for (size_t len = 1; len <= 26; len++)
            for (size_t at = 0; at < len; at++) {
                char s[40];
                size_t ol = strlen(odd[k]), n = 0;
                for (size_t i = 0; i < len; i++) {
                    if (i == at) {
                        memcpy(s + n, odd[k], ol);
                        n += ol;
                    } else {
                        s[n++] = (char)('a' + i % 26);
                    }
                }
                core_buf_reset(&b);
                core_buf_reset(&want);
                core_buf_json_str(&b, s, n);
                core_buf_putc(&want, '"');
                core_buf_append(&want, s, at);
                core_buf_puts(&want, json_byte(odd[k]));
                core_buf_append(&want, s + at + ol, n - at - ol);
                core_buf_putc(&want, '"');
                if (strcmp(b.data, want.data) != 0)
                    unit_fail(__FILE__, __LINE__, "byte %zu of %zu: %s, want %s", at, len, b.data,
                              want.data);
            }
    core_buf_free(&want);
    core_buf_free(&b);
}

TEST(buf_integers)
{
    core_buf b = {0};
    core_buf_put_uint(&b, 0);
    core_buf_putc(&b, ' ');
    core_buf_put_uint(&b, UINT64_MAX);
    core_buf_putc(&b, ' ');
    core_buf_put_int(&b, INT64_MIN);
    core_buf_putc(&b, ' ');
    core_buf_put_int(&b, -1);
    core_buf_putc(&b, ' ');
    core_buf_put_int(&b, 1709537445349060000);
    CHECK_STR(b.data, "0 18446744073709551615 -9223372036854775808 -1 1709537445349060000");
    core_buf_free(&b);
}

/* A binary file read as CSV had its bytes printed raw to the terminal:
 * what oneline writes is one line of printable text, UTF-8 kept. */
TEST(buf_oneline_escapes_bytes)
{
    core_buf b = {0};
    core_buf_oneline(&b, "a\nb\tc\rd\x1b[31m\x01\x7f caf\xc3\xa9 \xff\xfe \xc2\x9b \xe2\x82", 100);
    CHECK_STR(b.data, "a\\nb\\tc\\rd\\x1b[31m\\x01\\x7f caf\xc3\xa9 \\xff\\xfe \\xc2\\x9b "
                      "\\xe2\\x82");
    core_buf_reset(&b);
    core_buf_oneline(&b, "\xf0\x9f\x98\x80 abcdef", 4);
    CHECK_STR(b.data, "\xf0\x9f\x98\x80 ab...");
    core_buf_free(&b);
}

TEST(utf8_prefix)
{
    CHECK_INT(core_utf8_valid_prefix("abc", 3), 3);
    CHECK_INT(core_utf8_valid_prefix("a\xc3\xa9z", 4), 4);
    CHECK_INT(core_utf8_valid_prefix("a\xc3", 2), 1);
    CHECK_INT(core_utf8_valid_prefix("ab\xed\xa0\x80", 5), 2); /* surrogate */
    CHECK_INT(core_utf8_valid_prefix("\xc0\xaf", 2), 0);       /* overlong */
}

TEST(hex_digits_and_percent_decoding)
{
    CHECK_INT(core_hex_digit('0'), 0);
    CHECK_INT(core_hex_digit('a'), 10);
    CHECK_INT(core_hex_digit('F'), 15);
    CHECK_INT(core_hex_digit('g'), -1);
    CHECK_INT(core_hex_digit('\0'), -1);
    core_buf b = {0};
    CHECK_INT(core_pct_decode(&b, "", 0), 0);
    CHECK_STR(b.data, "");
    CHECK_INT(core_pct_decode(&b, "a%2Fb%c3%A9%00z", 15), 0);
    CHECK_INT(b.len, 7);
    CHECK(memcmp(b.data, "a/b\xc3\xa9\0z", 7) == 0);
    /* A '%' that starts no escape is copied and counted; the length
     * bounds the text (no escape is read past it). */
    core_buf_reset(&b);
    CHECK_INT(core_pct_decode(&b, "%%41%g1%4%41", 11), 4);
    CHECK_STR(b.data, "%A%g1%4%4");
    core_buf_free(&b);
}

TEST(wire_varints_round_trip_at_every_length)
{
    static const uint64_t vals[] = {0,       1,       127,        128,        16383,     16384,
                                    2097151, 2097152, UINT32_MAX, 1ull << 56, UINT64_MAX};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t b[CORE_WIRE_VARINT_MAX + 3] = {0};
        uint8_t *end = core_wire_put_varint(b, vals[i]);
        CHECK_INT(end - b, core_wire_varint_len(vals[i]));
        /* Read with and without slack after it: the inline path needs
         * three bytes to look at. */
        for (size_t slack = 0; slack <= 3; slack += 3) {
            const uint8_t *q = b;
            uint64_t v = 7;
            CHECK_INT(core_wire_get_varint(&q, end + slack, &v), 0);
            CHECK(v == vals[i] && q == end);
            q = b;
            if (end - b > 1)
                CHECK_INT(core_wire_get_varint(&q, end - 1, &v), CORE_WIRE_ECUT);
            CHECK(q == b);
        }
    }
    CHECK_INT(core_wire_varint_len(UINT64_MAX), CORE_WIRE_VARINT_MAX);
    /* Eleven bytes are too long; a tenth byte's bits past 64 are dropped. */
    uint8_t lng[12];
    memset(lng, 0xff, sizeof lng);
    const uint8_t *q = lng;
    uint64_t v;
    CHECK_INT(core_wire_get_varint(&q, lng + sizeof lng, &v), CORE_WIRE_ELONG);
    lng[9] = 0x7f;
    CHECK_INT(core_wire_get_varint(&q, lng + sizeof lng, &v), 0);
    CHECK(v == UINT64_MAX && q == lng + 10);
    for (int64_t z = -3; z <= 3; z++)
        CHECK(core_wire_unzigzag(core_wire_zigzag(z)) == z);
    CHECK(core_wire_zigzag(-1) == 1 && core_wire_zigzag(1) == 2);
    CHECK(core_wire_zigzag(INT64_MIN) == UINT64_MAX);
    CHECK(core_wire_unzigzag(UINT64_MAX) == INT64_MIN);
}

TEST(wire_fields_are_read_skipped_and_faults_named)
{
    core_buf b = {0};
    core_wire_buf_tag(&b, 1, CORE_WIRE_VARINT);
    core_wire_buf_varint(&b, 300);
    core_wire_buf_bytes(&b, 2, "hi", 2);
    uint8_t fx[14], *e = core_wire_put_tag(fx, 3, CORE_WIRE_I64);
    e = core_wire_put_fixed64(e, 0x0102030405060708ull);
    e = core_wire_put_tag(e, 4, CORE_WIRE_I32);
    e = core_wire_put_fixed32(e, 0xa0b0c0d0u);
    core_buf_append(&b, fx, (size_t)(e - fx));
    CHECK_INT(b.len, 3 + 4 + 9 + 5);
    CHECK(memcmp(b.data, "\x08\xac\x02\x12\x02hi\x19\x08\x07", 10) == 0);
    const uint8_t *p = (const uint8_t *)b.data, *end = p + b.len;
    core_wire_field f;
    CHECK_INT(core_wire_next(&p, end, &f), 1);
    CHECK(f.num == 1 && f.wt == CORE_WIRE_VARINT && f.v == 300 && !f.p);
    CHECK_INT(core_wire_next(&p, end, &f), 1);
    CHECK(f.num == 2 && f.wt == CORE_WIRE_LEN && f.n == 2 && memcmp(f.p, "hi", 2) == 0);
    CHECK_INT(core_wire_next(&p, end, &f), 1);
    CHECK(f.num == 3 && f.v == 0x0102030405060708ull);
    CHECK_INT(core_wire_next(&p, end, &f), 1);
    CHECK(f.num == 4 && f.v == 0xa0b0c0d0u);
    CHECK_INT(core_wire_next(&p, end, &f), 0);
    /* Faults: where they are, and nothing moved. */
    static const struct {
        const char *bytes;
        size_t n;
        int rc, wt;
    } bad[] = {
        {"\x80", 1, CORE_WIRE_ECUT, -1},
        {"\x00\x01", 2, CORE_WIRE_ENUMBER, 0},
        {"\x08\x80", 2, CORE_WIRE_ECUT, 0},
        {"\x09\x01\x02", 3, CORE_WIRE_ECUT, 1},
        {"\x12\x05"
         "ab",
         4, CORE_WIRE_EPAST_END, 2},
        {"\x1b", 1, CORE_WIRE_EGROUP, 3},
        {"\x0e\x00", 2, CORE_WIRE_ETYPE, 6},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const uint8_t *s = (const uint8_t *)bad[i].bytes, *q = s;
        CHECK_INT(core_wire_next(&q, s + bad[i].n, &f), bad[i].rc);
        CHECK_INT(f.wt, bad[i].wt);
        CHECK(q == s && f.tag == s);
    }
    const uint8_t *s = (const uint8_t *)"\x12\x05"
                                        "ab",
                  *q = s;
    core_wire_next(&q, s + 4, &f);
    CHECK(f.v == 5 && f.n == 2 && f.val == s + 1);
    core_buf_free(&b);
}

TEST(fail_formats_and_returns_the_error)
{
    char why[8] = "x";
    CHECK_INT(core_fail(why, sizeof why, CORE_EFORMAT, "line %d: %s", 12, "bad"), CORE_EFORMAT);
    CHECK_STR(why, "line 12"); /* cut to the buffer */
    CHECK_INT(core_fail(NULL, 0, -ENOENT, "unused %d", 1), -ENOENT);
}

TEST(glob_matches)
{
    CHECK(core_glob_match("node_modules", "a/node_modules/b.js"));
    CHECK(core_glob_match("*.min.js", "dist/x.min.js"));
    CHECK(!core_glob_match("*.min.js", "dist/x.js"));
    CHECK(core_glob_match("tests/**", "tests/a/b/c.py"));
    CHECK(core_glob_match("**/fixtures/*.py", "a/b/fixtures/x.py"));
    CHECK(core_glob_match("**/fixtures/*.py", "fixtures/x.py"));
    CHECK(!core_glob_match("**/fixtures/*.py", "fixtures/y/x.py"));
    CHECK(core_glob_match("src/*.ts", "src/a.ts"));
    CHECK(!core_glob_match("src/*.ts", "src/sub/a.ts"));
    CHECK(core_glob_match("build/", "build"));
    CHECK(core_glob_match("[ab]?.py", "x/a1.py"));
    CHECK(!core_glob_match("[!ab]?.py", "x/a1.py"));
    CHECK(core_glob_match("v[0-9].py", "v7.py"));
    CHECK(core_glob_match("*", "anything/at/all"));
    CHECK(core_glob_match("a\\*b", "a*b"));
    CHECK(!core_glob_match("a\\*b", "axb"));
    CHECK(core_glob_match("./src/**/*.js", "src/x/y.js"));
}

TEST(files_read_write_mmap)
{
    const char *path = unit_tmp_path("f.txt");
    CHECK_OK(core_write_file_atomic(path, "hello\n", 6));
    char *data;
    size_t n;
    CHECK_OK(core_read_file(path, 100, &data, &n));
    CHECK_INT(n, 6);
    CHECK_STR(data, "hello\n");
    free(data);
    CHECK_INT(core_read_file(path, 3, &data, &n), CORE_ELIMIT);
    CHECK_INT(core_read_file(unit_tmpdir(), 100, &data, &n), -EISDIR);
    CHECK_INT(core_read_file(unit_tmp_path("nope"), 100, &data, &n), -ENOENT);
    core_mmap m;
    CHECK_OK(core_mmap_open(path, &m));
    CHECK_INT(m.size, 6);
    CHECK(memcmp(m.data, "hello\n", 6) == 0);
    core_mmap_close(&m);
    CHECK(core_str_ends_with("a.min.js", ".min.js"));
    CHECK(!core_str_ends_with("js", ".min.js"));
}

TEST(json_strings_by_path)
{
    core_arena a;
    core_arena_init(&a, 256);
    const char *doc = "{\"name\": \"pkg\", \"main\": 3, \"directories\": {\"test\": \"t/\\u00e9\"},"
                      " \"deep\": {\"x\": {}}}";
    static const char *const paths[] = {"name",     "main",    "directories.test",
                                        "deep.x.y", "missing", "name.z"};
    char *v[6];
    size_t len[6];
    CHECK_OK(core_json_strings(doc, strlen(doc), paths, 6, &a, v, len));
    CHECK_STR(v[0], "pkg");
    CHECK_INT(len[0], 3);
    CHECK(v[1] == NULL);           /* a number is not a string */
    CHECK_STR(v[2], "t/\xc3\xa9"); /* escapes decoded, UTF-8 kept */
    CHECK_INT(len[2], 4);
    CHECK(v[3] == NULL && v[4] == NULL && v[5] == NULL);
    CHECK_INT(core_json_strings("[1]", 3, paths, 1, &a, v, len), -1);
    CHECK_INT(core_json_strings("{\"name\":", 8, paths, 1, &a, v, len), -1);
    core_arena_free(&a);
}

static void leaf_line(void *ud, const char *const *keys, size_t nkeys, const char *s, size_t len)
{
    core_buf *b = ud;
    for (size_t i = 0; i < nkeys; i++) {
        core_buf_append(b, keys[i], strlen(keys[i]));
        core_buf_putc(b, '>');
    }
    core_buf_append(b, s, len);
    core_buf_putc(b, '|');
}

TEST(json_strings_under_a_member)
{
    const char *doc = "{\"exports\": {\".\": {\"node\": {\"require\": \"./i.js\"},"
                      " \"browser\": \"./b/i.js\"}, \"./x\": [\"./x.js\", 3, {\"a\": \"./y\"}]},"
                      " \"main\": \"m.js\", \"n\": 1}";
    core_buf b = {0};
    CHECK_OK(core_json_strings_under(doc, strlen(doc), "exports", leaf_line, &b));
    core_buf_putc(&b, 0);
    CHECK_STR(b.data, ".>node>require>./i.js|.>browser>./b/i.js|./x>./x.js|./x>a>./y|");
    b.len = 0;
    CHECK_OK(core_json_strings_under(doc, strlen(doc), "main", leaf_line, &b)); /* a string */
    CHECK_OK(core_json_strings_under(doc, strlen(doc), "n", leaf_line, &b));    /* no string */
    CHECK_OK(core_json_strings_under(doc, strlen(doc), "none", leaf_line, &b));
    core_buf_putc(&b, 0);
    CHECK_STR(b.data, "m.js|");
    CHECK_INT(core_json_strings_under("[]", 2, "exports", leaf_line, &b), -1);
    core_buf_free(&b);
}

static atomic_int par_sum;
static atomic_int par_next;
static void par_fn(void *arg, unsigned i)
{
    (void)arg;
    (void)i;
    for (;;) {
        int k = atomic_fetch_add(&par_next, 1);
        if (k >= 1000)
            break;
        atomic_fetch_add(&par_sum, k);
    }
}

TEST(parallel_runs_all_work)
{
    CHECK(core_ncpus() >= 1);
    CHECK_OK(core_parallel(4, par_fn, NULL));
    CHECK_INT(atomic_load(&par_sum), 999 * 1000 / 2);
    uint64_t t0 = core_now_ns();
    CHECK(core_now_ns() >= t0);
}

static const char *const cfg_modes[] = {"fast", "exact", NULL};
static const core_cfg_item cfg_table[] = {
    {"ppr.alpha", CORE_CFG_DOUBLE, "0.15", 0.001, 0.999, NULL, "restart probability"},
    {"ppr.hubs", CORE_CFG_INT, "0", 0, 1000, NULL, "hub vectors"},
    {"ppr.mode", CORE_CFG_ENUM, "fast", 0, 0, cfg_modes, "how"},
    {"ppr.weights.calls", CORE_CFG_DOUBLE, "1.0", 0, 100, NULL, "calls"},
    {"log.json", CORE_CFG_BOOL, "false", 0, 0, NULL, "JSON logs"},
    {"name", CORE_CFG_STRING, "pmrag", 0, 0, NULL, "a name"},
};
#define CFG_N (sizeof cfg_table / sizeof cfg_table[0])

/* Loads text as a YAML file; returns the status and leaves why. */
static int cfg_load_text(core_cfg *c, const char *text, char *why, size_t n)
{
    return core_cfg_load(c, unit_write_str("c.yaml", text), why, n);
}

TEST(config_defaults_and_file)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.15);
    CHECK_STR(core_cfg_origin(c, "ppr.alpha"), "default");
    CHECK(!core_cfg_is_set(c, "ppr.alpha"));
    char why[512] = "";
    CHECK_OK(cfg_load_text(c,
                           "# comment\nppr:\n  alpha: 0.2\n  weights:\n    calls: 1.5\n"
                           "  mode: exact\nlog: {json: yes}\nname: svc\n",
                           why, sizeof why));
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.2);
    CHECK(core_cfg_double(c, "ppr.weights.calls") == 1.5);
    CHECK_STR(core_cfg_str(c, "ppr.mode"), "exact");
    CHECK(core_cfg_bool(c, "log.json"));
    CHECK_STR(core_cfg_str(c, "name"), "svc");
    CHECK(core_cfg_is_set(c, "ppr.alpha"));
    const char *o = core_cfg_origin(c, "ppr.alpha");
    CHECK(core_str_ends_with(o, "c.yaml:3"));
    CHECK_INT(core_cfg_int(c, "ppr.hubs"), 0);
    /* An empty file changes nothing. */
    CHECK_OK(cfg_load_text(c, "", why, sizeof why));
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.2);
    core_cfg_free(c);
}

TEST(config_errors_name_line_and_change_nothing)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    char why[512];
    /* The first key is valid, the second is not: nothing is applied. */
    CHECK_INT(cfg_load_text(c, "ppr:\n  alpha: 0.3\n  hubs: 5000\n", why, sizeof why),
              CORE_EFORMAT);
    CHECK(strstr(why, "c.yaml:3:") != NULL);
    CHECK(strstr(why, "ppr.hubs") != NULL);
    CHECK(strstr(why, "from 0 to 1000") != NULL);
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.15);
    /* Each file is refused with a reason that contains `why`. */
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"ppr:\n  alpah: 0.3\n", ":2: unknown key 'ppr.alpah'"},
        {"ppr: 3\n", "is a section"},
        {"ppr:\n  weights:\n    calls: {a: 1}\n",
         ":3: key 'ppr.weights.calls' takes a single value, not a mapping"},
        {"ppr:\n  alpha: 0.3\n  alpha: 0.4\n", ":3: key 'ppr.alpha' is given twice (first at "},
        {"ppr:\n  alpha: [1, 2]\n", "single value"},
        {"ppr:\n  alpha:\n", "no value"},
        {"ppr:\n  alpha: abc\n", "'abc' is not a number"},
        {"ppr:\n  mode: slow\n", "not one of fast, exact"},
        {"log:\n  json: maybe\n", "not true or false"},
        {"- a\n- b\n", "must be a mapping"},
        {"ppr:\n  alpha: 0.2\n bad: [\n", "c.yaml:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = cfg_load_text(c, bad[i].text, why, sizeof why);
        if (rc != CORE_EFORMAT)
            unit_fail(__FILE__, __LINE__, "bad[%zu] returned %d", i, rc);
        if (!strstr(why, bad[i].why))
            unit_fail(__FILE__, __LINE__, "bad[%zu]: \"%s\" lacks \"%s\"", i, why, bad[i].why);
    }
    CHECK_INT(core_cfg_load(c, unit_tmp_path("none.yaml"), why, sizeof why), -ENOENT);
    CHECK(strstr(why, "none.yaml") != NULL);
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.15);
    CHECK_STR(core_cfg_str(c, "ppr.mode"), "fast");
    core_cfg_free(c);
}

TEST(config_set_and_put)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    char why[512];
    CHECK_OK(core_cfg_set(c, "ppr.hubs=12", why, sizeof why));
    CHECK_INT(core_cfg_int(c, "ppr.hubs"), 12);
    CHECK_STR(core_cfg_origin(c, "ppr.hubs"), "--set");
    CHECK_INT(core_cfg_set(c, "ppr.hubs=1.5", why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "key 'ppr.hubs'") != NULL);
    CHECK_INT(core_cfg_set(c, "ppr.hubs", why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "KEY=VALUE") != NULL);
    CHECK_INT(core_cfg_set(c, "nope=1", why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "unknown key 'nope'") != NULL);
    CHECK_INT(core_cfg_set(c, "ppr.alpha=1", why, sizeof why), CORE_EUSAGE);
    CHECK_INT(core_cfg_set(c, "ppr.alpha=nan", why, sizeof why), CORE_EUSAGE);
    CHECK_INT(core_cfg_int(c, "ppr.hubs"), 12);
    CHECK_OK(core_cfg_put(c, "ppr.alpha", "0.5", "--alpha", why, sizeof why));
    CHECK(core_cfg_double(c, "ppr.alpha") == 0.5);
    CHECK_STR(core_cfg_origin(c, "ppr.alpha"), "--alpha");
    CHECK_INT(core_cfg_put(c, "ppr.alpha", "2", "--alpha", why, sizeof why), CORE_EUSAGE);
    CHECK_STR(why, "'2' is not a number from 0.001 to 0.999");
    core_cfg_free(c);
}

/* Found by fuzz_config: an empty string set with --set was dumped as
 * `name: ""`, which the loader took for a key without a value. A quoted
 * empty scalar is an empty string; only a plain one (`name:`, `~`, `null`)
 * is no value. */
TEST(config_empty_string_reloads)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    char why[512];
    CHECK_OK(core_cfg_set(c, "name=", why, sizeof why));
    CHECK_OK(core_cfg_set(c, "ppr.mode=exact", why, sizeof why));
    core_buf b = {0};
    core_cfg_dump(c, &b);
    CHECK(strstr(b.data, "name: \"\"  # --set\n") != NULL);
    core_cfg *d = core_cfg_new(cfg_table, CFG_N);
    if (cfg_load_text(d, b.data, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "the dump does not load back: %s", why);
    CHECK_STR(core_cfg_str(d, "name"), "");
    CHECK(core_cfg_is_set(d, "name"));
    CHECK_OK(cfg_load_text(d, "name: ''\n", why, sizeof why));
    CHECK_STR(core_cfg_str(d, "name"), "");
    CHECK_OK(cfg_load_text(d, "name: \"null\"\n", why, sizeof why));
    CHECK_STR(core_cfg_str(d, "name"), "null");
    /* Still no value: plain empty, ~ and null. */
    CHECK_INT(cfg_load_text(d, "name:\n", why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "has no value") != NULL);
    CHECK_INT(cfg_load_text(d, "name: ~\n", why, sizeof why), CORE_EFORMAT);
    /* A quoted "" for a number is a wrong value, not a missing one. */
    CHECK_INT(cfg_load_text(d, "ppr:\n  alpha: \"\"\n", why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "'' is not a number") != NULL);
    core_buf_free(&b);
    core_cfg_free(d);
    core_cfg_free(c);
}

/* Found by fuzz_config: the dump wrote control characters and line breaks
 * raw into a double-quoted scalar (YAML refuses the first and folds the
 * second into a space), and numbers with leading white space (which
 * strtod skips) as they were, line breaks included. */
TEST(config_dump_escapes_what_yaml_would_change)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    char why[512];
    static const char awkward[] = "a\x01"
                                  "b\nc\td\re\x7f \xc2\x80\xc2\x85 \xe2\x80\xa8"
                                  "\xe2\x80\xa9 \xef\xbb\xbf \xef\xbf\xbf caf\xc3\xa9 "
                                  "\xf0\x9f\x98\x80 \"q\" \\";
    CHECK_OK(core_cfg_put(c, "name", awkward, "--name", why, sizeof why));
    core_buf b = {0};
    core_cfg_dump(c, &b);
    CHECK(strstr(b.data, "name: \"a\\x01b\\nc\\td\\x0de\\x7f \\u0080\\u0085 \\u2028\\u2029 "
                         "\\ufeff \\uffff caf\xc3\xa9 \xf0\x9f\x98\x80 \\\"q\\\" \\\\\"") != NULL);
    core_cfg *d = core_cfg_new(cfg_table, CFG_N);
    if (cfg_load_text(d, b.data, why, sizeof why) != 0)
        unit_fail(__FILE__, __LINE__, "the dump does not load back: %s", why);
    CHECK_STR(core_cfg_str(d, "name"), awkward);
    /* A value YAML cannot hold is refused when set. */
    CHECK_INT(core_cfg_set(c, "name=\xff", why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "not valid UTF-8") != NULL);
    /* Leading white space is not part of a number. */
    CHECK_INT(cfg_load_text(d, "ppr:\n  alpha: \"\\n 0.5\"\n", why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "is not a number") != NULL);
    CHECK_INT(core_cfg_set(c, "ppr.hubs= 5", why, sizeof why), CORE_EUSAGE);
    CHECK_INT(core_cfg_set(c, "ppr.alpha=\t0.5", why, sizeof why), CORE_EUSAGE);
    CHECK_OK(core_cfg_set(c, "ppr.alpha=0.5", why, sizeof why));
    core_buf_free(&b);
    core_cfg_free(d);
    core_cfg_free(c);
}

/* The dump wrote a section's heading twice when the table lists its keys
 * apart (pmrag's model.* keys around map.*): YAML readers keep one. */
TEST(config_dump_writes_each_section_once)
{
    static const core_cfg_item t[] = {
        {"a.x", CORE_CFG_INT, "1", 0, 9, NULL, "x"},
        {"b.y", CORE_CFG_INT, "2", 0, 9, NULL, "y"},
        {"a.sub.p", CORE_CFG_INT, "3", 0, 9, NULL, "p"},
        {"top", CORE_CFG_INT, "4", 0, 9, NULL, "top"},
        {"a.z", CORE_CFG_INT, "5", 0, 9, NULL, "z"},
        {"b.sub.q", CORE_CFG_INT, "6", 0, 9, NULL, "q"},
        {"a.sub.r", CORE_CFG_INT, "7", 0, 9, NULL, "r"},
    };
    core_cfg *c = core_cfg_new(t, sizeof t / sizeof t[0]);
    char why[512];
    CHECK_OK(core_cfg_set(c, "a.sub.r=8", why, sizeof why));
    CHECK_OK(core_cfg_set(c, "a.z=0", why, sizeof why));
    core_buf b = {0};
    core_cfg_dump(c, &b);
    CHECK_STR(b.data, "a:\n"
                      "  # x: 1  (default)\n"
                      "  sub:\n"
                      "    # p: 3  (default)\n"
                      "    r: 8  # --set\n"
                      "  z: 0  # --set\n"
                      "b:\n"
                      "  # y: 2  (default)\n"
                      "  sub:\n"
                      "    # q: 6  (default)\n"
                      "# top: 4  (default)\n");
    core_cfg *d = core_cfg_new(t, sizeof t / sizeof t[0]);
    CHECK_OK(cfg_load_text(d, b.data, why, sizeof why));
    CHECK_INT(core_cfg_int(d, "a.sub.r"), 8);
    CHECK_INT(core_cfg_int(d, "a.z"), 0);
    core_buf_free(&b);
    core_cfg_free(d);
    core_cfg_free(c);
}

TEST(config_dump_reloads_and_reference)
{
    core_cfg *c = core_cfg_new(cfg_table, CFG_N);
    char why[512];
    CHECK_OK(core_cfg_set(c, "ppr.weights.calls=2", why, sizeof why));
    CHECK_OK(core_cfg_set(c, "name=a \"b\" \\ # c", why, sizeof why));
    core_buf b = {0};
    core_cfg_dump(c, &b);
    CHECK(strstr(b.data, "ppr:\n  # alpha: 0.15  (default)\n") != NULL);
    CHECK(strstr(b.data, "  weights:\n    calls: 2  # --set\n") != NULL);
    CHECK(strstr(b.data, "log:\n  # json: false  (default)\n") != NULL);
    /* What dump writes loads back to the same values. */
    core_cfg *d = core_cfg_new(cfg_table, CFG_N);
    CHECK_OK(cfg_load_text(d, b.data, why, sizeof why));
    CHECK(core_cfg_double(d, "ppr.weights.calls") == 2);
    CHECK_STR(core_cfg_str(d, "name"), "a \"b\" \\ # c");
    CHECK(!core_cfg_bool(d, "log.json"));
    /* Keys at their default stay unset; a section left empty is fine. */
    CHECK(!core_cfg_is_set(d, "ppr.alpha"));
    CHECK(!core_cfg_is_set(d, "log.json"));
    CHECK(core_cfg_is_set(d, "ppr.weights.calls"));
    core_buf_free(&b);
    core_cfg_reference(cfg_table, CFG_N, &b);
    CHECK(strstr(b.data, "| `ppr.alpha` | number 0.001..0.999 | `0.15` | restart probability |") !=
          NULL);
    CHECK(strstr(b.data, "| `ppr.mode` | `fast`, `exact` | `fast` | how |") != NULL);
    core_buf_free(&b);
    core_cfg_free(d);
    core_cfg_free(c);
}

TEST(bucket_burst_then_rate)
{
    core_bucket b;
    core_bucket_init(&b, 1.0, 2.0, 1000);
    CHECK(core_bucket_take(&b, 1000));
    CHECK(core_bucket_take(&b, 1000));
    CHECK(!core_bucket_take(&b, 1000));
    CHECK(!core_bucket_take(&b, 1000 + 500000000ull)); /* half a token */
    CHECK(core_bucket_take(&b, 1000 + 1000000000ull));
    /* Never more than the burst, however long it waited. */
    uint64_t later = 1000 + 100 * 1000000000ull;
    CHECK(core_bucket_take(&b, later));
    CHECK(core_bucket_take(&b, later));
    CHECK(!core_bucket_take(&b, later));
}
