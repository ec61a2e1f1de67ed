/* Growable buffers and JSON text. */
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((noinline)) void buf_grow(core_buf *b, size_t extra)
{
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1) {
        if (ncap > SIZE_MAX / 2)
            core_panic("buffer too large");
        ncap *= 2;
    }
    b->data = core_xrealloc(b->data, ncap);
    b->cap = ncap;
}

static inline void buf_reserve(core_buf *b, size_t extra)
{
    if (b->len + extra + 1 > b->cap)
        buf_grow(b, extra);
}

void core_buf_reserve(core_buf *b, size_t extra)
{
    buf_reserve(b, extra);
}

void core_buf_append(core_buf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void core_buf_puts(core_buf *b, const char *s)
{
    core_buf_append(b, s, strlen(s));
}

void core_buf_put_uint(core_buf *b, uint64_t v)
{
    char t[20], *q = t + sizeof t;
    do {
        *--q = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    core_buf_append(b, q, (size_t)(t + sizeof t - q));
}

void core_buf_put_int(core_buf *b, int64_t v)
{
    if (v < 0) {
        core_buf_putc(b, '-');
        core_buf_put_uint(b, 0 - (uint64_t)v); /* INT64_MIN too */
        return;
    }
    core_buf_put_uint(b, (uint64_t)v);
}

void core_buf_vprintf(core_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void core_buf_printf(core_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    core_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static inline uint64_t rd8(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#define HIGH_BITS 0x8080808080808080ull

size_t core_utf8_valid_prefix(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII, the common case: 32 or 8 bytes at a time, and a tail
         * shorter than 8 as the last 8 bytes of the string (some already
         * seen: they are valid). */
        size_t left = n - i;
        if (left >= 32) {
            if (!((rd8(p + i) | rd8(p + i + 8) | rd8(p + i + 16) | rd8(p + i + 24)) & HIGH_BITS)) {
                i += 32;
                continue;
            }
        }
        if (left >= 8) {
            if (!(rd8(p + i) & HIGH_BITS)) {
                i += 8;
                continue;
            }
        } else if (n >= 8) {
            if (!(rd8(p + n - 8) & HIGH_BITS))
                return n;
        } else {
            unsigned char any = 0;
            for (size_t j = i; j < n; j++)
                any |= p[j];
            if (!(any & 0x80))
                return n;
        }
        size_t k = utf8_seq(p + i, left);
        if (!k)
            break;
        i += k;
    }
    return i;
}

void core_buf_json_str(core_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    core_buf_putc(b, '"');
    size_t run = 0; /* start of the pending run of plain bytes */
    size_t i = 0;
    while (i < n) {
        /* Eight bytes at a time while none needs a look: none below 0x20,
         * a quote, a backslash or past ASCII (the usual name or path). */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
            /* After the subtractions a byte's high bit is set only when it
             * is past ASCII (which w shows anyway), below 0x20, a quote or
             * a backslash, or just above such a byte (its borrow). */
            uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            if (((w - ones * 0x20) | (quote - ones) | (slash - ones) | w) & high)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        size_t k = c >= 0x80 ? utf8_seq(p + i, n - i) : 0;
        if (k) {
            i += k;
            continue;
        }
        core_buf_append(b, p + run, i - run);
        switch (c) {
        case '"':
            core_buf_append(b, "\\\"", 2);
            break;
        case '\\':
            core_buf_append(b, "\\\\", 2);
            break;
        case '\n':
            core_buf_append(b, "\\n", 2);
            break;
        case '\r':
            core_buf_append(b, "\\r", 2);
            break;
        case '\t':
            core_buf_append(b, "\\t", 2);
            break;
        default:
            if (c < 0x20) {
                char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                core_buf_append(b, esc, 6);
            } else {
                core_buf_append(b, "\xef\xbf\xbd", 3); /* U+FFFD */
            }
        }
        i++;
        run = i;
    }
    core_buf_append(b, p + run, n - run);
    core_buf_putc(b, '"');
}

size_t core_pct_decode(core_buf *out, const char *s, size_t n)
{
    buf_reserve(out, n); /* decoding never lengthens */
    char *q = out->data + out->len;
    size_t bare = 0;
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < n && (hi = core_hex_digit(s[i + 1])) >= 0 &&
            (lo = core_hex_digit(s[i + 2])) >= 0) {
            *q++ = (char)(hi << 4 | lo);
            i += 2;
        } else {
            bare += s[i] == '%';
            *q++ = s[i];
        }
    }
    out->len = (size_t)(q - out->data);
    out->data[out->len] = 0;
    return bare;
}

size_t core_buf_utf8_repair(core_buf *b, const char *s, size_t n)
{
    size_t bad = 0;
    while (n) {
        size_t k = core_utf8_valid_prefix(s, n);
        core_buf_append(b, s, k);
        if (k == n)
            break;
        core_buf_append(b, "\xef\xbf\xbd", 3); /* U+FFFD */
        bad++;
        s += k + 1;
        n -= k + 1;
    }
    return bad;
}

/* Digits of a double: SIG of them, correctly rounded (printf's are), and
 * the decimal exponent of the first. */
#define SIG 18
typedef struct digits {
    bool neg;
    int exp;
    char d[SIG + 1];
} digits;

static bool digits_of(double v, digits *o)
{
    char t[48];
    int n = snprintf(t, sizeof t, "%.*e", SIG - 1, v);
    const char *p = t;
    o->neg = *p == '-';
    p += o->neg;
    if (n <= 0 || (size_t)n >= sizeof t || p[1] != '.')
        return false;
    o->d[0] = p[0];
    memcpy(o->d + 1, p + 2, SIG - 1);
    o->d[SIG] = 0;
    o->exp = atoi(p + 2 + SIG - 1 + 1);
    return true;
}

/*
 * What "%.*g" prints for precision prec, from the digits: rounded at prec
 * (half up: the digits after are those of the exact value rounded, so
 * only an apparent tie, 5 then zeros, may hide which way the exact value
 * goes; false then, and the caller asks printf), and laid out as %g does:
 * exponent form when the rounded exponent is below -4 or not below prec,
 * trailing zeros dropped.
 */
static bool g_from_digits(const digits *x, int prec, char *out, size_t n)
{
    char d[SIG + 1];
    memcpy(d, x->d, (size_t)prec);
    int exp = x->exp;
    const char *tail = x->d + prec;
    bool up = tail[0] > '5';
    if (tail[0] == '5') {
        size_t k = 1;
        while (tail[k] == '0')
            k++;
        if (!tail[k])
            return false; /* looks like a tie */
        up = true;
    }
    int i = prec - 1;
    while (up && i >= 0) {
        if (d[i] == '9') {
            d[i--] = '0';
        } else {
            d[i]++;
            up = false;
        }
    }
    if (up) { /* 9.99.. became 10.0.. */
        memmove(d + 1, d, (size_t)prec - 1);
        d[0] = '1';
        exp++;
    }
    int last = prec - 1; /* the last significant digit kept */
    while (last > 0 && d[last] == '0')
        last--;
    char *q = out, *end = out + n - 8; /* room for an exponent */
    if (x->neg)
        *q++ = '-';
    if (exp < -4 || exp >= prec) {
        *q++ = d[0];
        if (last > 0) {
            *q++ = '.';
            for (int k = 1; k <= last && q < end; k++)
                *q++ = d[k];
        }
        int e = exp < 0 ? -exp : exp; /* at most 3 digits for a double */
        *q++ = 'e';
        *q++ = exp < 0 ? '-' : '+';
        if (e >= 100)
            *q++ = (char)('0' + e / 100);
        *q++ = (char)('0' + e / 10 % 10);
        *q++ = (char)('0' + e % 10);
        *q = 0;
        return true;
    }
    if (exp < 0) {
        *q++ = '0';
        *q++ = '.';
        for (int k = 0; k < -exp - 1 && q < end; k++)
            *q++ = '0';
        for (int k = 0; k <= last && q < end; k++)
            *q++ = d[k];
    } else {
        for (int k = 0; k <= exp && q < end; k++)
            *q++ = d[k];
        if (last > exp) {
            *q++ = '.';
            for (int k = exp + 1; k <= last && q < end; k++)
                *q++ = d[k];
        }
    }
    *q = 0;
    return true;
}

/* Whether v printed with precision p into tmp reads back to v; the
 * digits, when given, save printf the work. */
static bool reads_back(char *tmp, size_t n, int p, double v, bool is_float, const digits *x)
{
    if (!x || !g_from_digits(x, p, tmp, n))
        snprintf(tmp, n, "%.*g", p, v);
    return is_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v;
}

/* v with the shortest %g precision, 6 or more, that reads back to the
 * same value: as a double, or as a float when is_float; "null" if it is
 * not finite. */
static void json_shortest(core_buf *b, double v, bool is_float)
{
    if (!isfinite(v)) {
        core_buf_puts(b, "null");
        return;
    }
    /* A precision that reads back keeps doing so with more digits, and 17
     * (a float's 9) always does. A score of a prediction, the common case,
     * needs 15 to 17: tried in that order, laid out from one printf of
     * its digits (a printf per precision took half as long again), 15 and
     * 16 a read each. Below 15 (or for a float) the shortest is found by
     * bisection. */
    char tmp[40];
    int lo = 6, hi = is_float ? 9 : 15, done = 0;
    digits x;
    const digits *dx = !is_float && v != 0 && digits_of(v, &x) ? &x : NULL;
    if (!is_float && !reads_back(tmp, sizeof tmp, 15, v, false, dx)) {
        if (!reads_back(tmp, sizeof tmp, 16, v, false, dx) &&
            (!dx || !g_from_digits(dx, 17, tmp, sizeof tmp)))
            snprintf(tmp, sizeof tmp, "%.17g", v);
        core_buf_puts(b, tmp);
        return;
    }
    if (!is_float)
        done = 15; /* tmp holds it */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (reads_back(tmp, sizeof tmp, mid, v, is_float, dx)) {
            hi = mid;
            done = mid;
        } else {
            lo = mid + 1;
            done = 0; /* tmp holds a failed one now */
        }
    }
    if (done != lo)
        snprintf(tmp, sizeof tmp, "%.*g", lo, v);
    core_buf_puts(b, tmp);
}

void core_buf_json_double(core_buf *b, double v)
{
    json_shortest(b, v, false);
}

void core_buf_json_float(core_buf *b, float v)
{
    json_shortest(b, v, true);
}

void core_buf_reset(core_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = 0;
}

void core_buf_free(core_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void core_buf_put_le(core_buf *b, uint64_t v, int n)
{
    uint8_t x[8];
    for (int i = 0; i < n && i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    core_buf_append(b, x, (size_t)(n < 8 ? n : 8));
}

const void *core_rd_bytes(core_rd *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    const void *p = r->p;
    r->p += n;
    return p;
}

void core_buf_oneline(core_buf *b, const char *text, size_t max)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; n++) {
        if (n >= max) {
            core_buf_puts(b, "...");
            return;
        }
        if (*p == '\n')
            core_buf_puts(b, "\\n");
        else if (*p == '\t')
            core_buf_puts(b, "\\t");
        else if (*p == '\r')
            core_buf_puts(b, "\\r");
        else if (*p < 0x20 || *p == 0x7f)
            core_buf_printf(b, "\\x%02x", *p);
        if (*p < 0x20 || *p == 0x7f) {
            p++;
            continue;
        }
        if (*p < 0x80) {
            core_buf_putc(b, (char)*p++);
            continue;
        }
        /* A valid UTF-8 sequence goes through whole; any other byte is
         * shown as \xHH, so that binary input cannot drive the terminal
         * (escape sequences, broken characters). */
        size_t want = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
        size_t have = 1;
        while (have < want && p[have])
            have++;
        bool c1 = want == 2 && p[0] == 0xc2 && p[1] < 0xa0; /* C1 controls */
        if (!c1 && core_utf8_valid_prefix((const char *)p, have) == want) {
            core_buf_append(b, p, want);
            p += want;
        } else {
            core_buf_printf(b, "\\x%02x", *p++);
        }
    }
}

size_t core_split(const char *text, char sep, char ***out)
{
    char **v = NULL;
    size_t n = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, sep);
        size_t len = e ? (size_t)(e - p) : strlen(p), a = 0, b = len;
        while (a < b && (p[a] == ' ' || p[a] == '\t'))
            a++;
        while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'))
            b--;
        if (b > a) {
            v = core_xrealloc(v, (n + 1) * sizeof *v);
            v[n++] = core_xstrndup(p + a, b - a);
        }
        p += len;
        if (*p == sep)
            p++;
    }
    *out = v;
    return n;
}

void core_split_free(char **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i]);
    free(items);
}
