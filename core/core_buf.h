/*
 * core_buf.h - growable buffers and text: appending, JSON literals, one-line
 * text for terminals, splitting lists, and the little-endian records that
 * files and messages read by other processes use.
 *
 * Threading and ownership: a core_buf belongs to one thread at a time; it
 * owns its memory (core_buf_free). A core_rd borrows the record it reads,
 * and the pointers it hands out point into that record. The other
 * functions are reentrant.
 */
#ifndef PMRAG_CORE_BUF_H
#define PMRAG_CORE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compiler attributes the core headers share (core.h includes this one
 * first). */
#if defined(__GNUC__) || defined(__clang__)
#define CORE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CORE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define CORE_PRINTF(f, a)
#define CORE_UNLIKELY(x) (x)
#endif

/* ------------------------------------------------------------------ */
/* Buffers and text                                                    */
/* ------------------------------------------------------------------ */

typedef struct core_buf {
    char *data; /* always NUL-terminated once anything was appended */
    size_t len, cap;
} core_buf;

void core_buf_append(core_buf *b, const void *p, size_t n);
/* Makes room for extra more bytes (and the NUL after them): the caller
 * writes at data + len, then advances len and writes the NUL. */
void core_buf_reserve(core_buf *b, size_t extra);
static inline void core_buf_putc(core_buf *b, char c)
{
    core_buf_append(b, &c, 1);
}
void core_buf_puts(core_buf *b, const char *s);
/* Append an integer in decimal, as printf's %llu and %lld would (without
 * the cost of parsing a format: JSON numbers on the hot path). */
void core_buf_put_uint(core_buf *b, uint64_t v);
void core_buf_put_int(core_buf *b, int64_t v);
void core_buf_printf(core_buf *b, const char *fmt, ...) CORE_PRINTF(2, 3);
void core_buf_vprintf(core_buf *b, const char *fmt, va_list ap);
/* Appends s as a JSON string literal with quotes; invalid UTF-8 becomes
 * U+FFFD, control characters are escaped. */
void core_buf_json_str(core_buf *b, const char *s, size_t n);
/* Appends a number in the shortest form that reads back the same. */
void core_buf_json_double(core_buf *b, double v);
/* The same for a float (shortest form that reads back as that float). */
void core_buf_json_float(core_buf *b, float v);
/* Appends text on one line for a terminal: newlines, tabs and carriage
 * returns escaped as backslash n, t, r, other control characters and bytes
 * that are not UTF-8 as \xHH; cut after max characters with "...". */
void core_buf_oneline(core_buf *b, const char *text, size_t max);
void core_buf_reset(core_buf *b);
void core_buf_free(core_buf *b);

/* Splits text at sep into items with blanks (spaces, tabs) trimmed, the
 * empty ones left out: a malloc'd array of malloc'd strings in *out (NULL
 * when there are none); returns how many. core_split_free frees them. */
size_t core_split(const char *text, char sep, char ***out);
void core_split_free(char **items, size_t n);

/* The value of a hexadecimal digit (either case), or -1 for any other
 * character. */
static inline int core_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decoding (RFC 3986): appends s[0, n) to out with every "%HH"
 * (two hex digits, either case) turned into its byte, and leaves out
 * NUL-terminated even when s is empty. A '%' that starts no such escape
 * is copied as it is; returns how many there were, so that a caller to
 * whom they are an error can refuse the text (an HTTP path) and one that
 * keeps them (a gRPC client reading grpc-message) need not look. */
size_t core_pct_decode(core_buf *out, const char *s, size_t n);

/* Length of the longest prefix of s (at most n bytes) that is valid UTF-8. */
size_t core_utf8_valid_prefix(const char *s, size_t n);
/* Appends s to b with each byte that is no part of a valid UTF-8 sequence
 * replaced by U+FFFD (as a protobuf decoder renders a bad string);
 * returns how many were replaced. */
size_t core_buf_utf8_repair(core_buf *b, const char *s, size_t n);

/*
 * Little-endian records: what pmrag writes for other processes or later
 * runs to read (model files, stored dictionary entries, changelog and
 * shared-count records) has one byte order whatever the machine.
 * core_buf_put_le appends v as n bytes (n <= 8); a core_rd reads a record
 * without ever reading past its end: a read that does not fit sets bad and
 * gives 0 (or NULL), so a decoder checks bad once at the end.
 */
void core_buf_put_le(core_buf *b, uint64_t v, int n);
static inline void core_buf_put_f32(core_buf *b, float v)
{
    uint32_t x;
    memcpy(&x, &v, 4);
    core_buf_put_le(b, x, 4);
}
static inline void core_buf_put_f64(core_buf *b, double v)
{
    uint64_t x;
    memcpy(&x, &v, 8);
    core_buf_put_le(b, x, 8);
}
static inline uint64_t core_get_le(const void *p, int n)
{
    const uint8_t *q = p;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)q[i] << (8 * i);
    return v;
}

typedef struct core_rd {
    const uint8_t *p, *end;
    bool bad;
} core_rd;

static inline core_rd core_rd_of(const void *data, size_t len)
{
    return (core_rd){(const uint8_t *)data, (const uint8_t *)data + len, false};
}
/* The next n bytes (borrowed from the record), or NULL past its end. */
const void *core_rd_bytes(core_rd *r, size_t n);
static inline uint64_t core_rd_le(core_rd *r, int n)
{
    const void *p = core_rd_bytes(r, (size_t)n);
    return p ? core_get_le(p, n) : 0;
}
static inline float core_rd_f32(core_rd *r)
{
    uint32_t x = (uint32_t)core_rd_le(r, 4);
    float v;
    memcpy(&v, &x, 4);
    return v;
}
static inline double core_rd_f64(core_rd *r)
{
    uint64_t x = core_rd_le(r, 8);
    double v;
    memcpy(&v, &x, 8);
    return v;
}
/* Bytes left to read. */
static inline size_t core_rd_left(const core_rd *r)
{
    return r->bad ? 0 : (size_t)(r->end - r->p);
}

#ifdef __cplusplus
}
#endif
#endif
