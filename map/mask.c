/*
 * Masking: a rendered message abstracted into the text of its activity,
 * so that messages differing only in numbers, ids, quoted strings and
 * paths fold into one (map_mask_message, map.h).
 */
#include "map_int.h"

#include <string.h>

const uint8_t map__byte_class[256] = {
    0,  0,  0,  0,  0,  0,  0,  0,  0,  16, 16, 16, 16, 16, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0,
    0,  0,  0,  0,  0,  0,  0,  0,  16, 0,  0,  0,  0,  0,  0, 0, 0, 0,  0,  0,  0,  0,  0,  0,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0,  0,  0,  0,  0, 0, 0, 14, 14, 14, 14, 14, 14, 6,
    6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  6,  6, 6, 6, 6,  6,  0,  0,  0,  0,  4,
    0,  14, 14, 14, 14, 14, 14, 6,  6,  6,  6,  6,  6,  6,  6, 6, 6, 6,  6,  6,  6,  6,  6,  6,
    6,  6,  6,  0,  0,  0,  0,  0,  4,  4,  4,  4,  4,  4,  4, 4, 4, 4,  4,  4,  4,  4,  4,  4,
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4, 4, 4, 4,  4,  4,  4,  4,  4,  4,
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4, 4, 4, 4,  4,  4,  4,  4,  4,  4,
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4, 4, 4, 4,  4,  4,  4,  4,  4,  4,
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4, 4, 4, 4,  4,  4,  4,  4,  4,  4,
    4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4,  4, 4,
};

/* Length of a UUID at s (8-4-4-4-12 hex digits), or 0. */
static size_t uuid_at(const char *s, size_t n)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    size_t i = 0;
    if (n < 36)
        return 0;
    for (int g = 0; g < 5; g++) {
        for (int k = 0; k < groups[g]; k++, i++)
            if (!is_hex((unsigned char)s[i]))
                return 0;
        if (g < 4) {
            if (s[i] != '-')
                return 0;
            i++;
        }
    }
    return i < n && is_word((unsigned char)s[i]) ? 0 : i;
}

/* A path or URL starts at s (after no word byte): "/a/b", "./x",
 * "scheme://". Returns its length (up to white space or a quote), or 0. */
static size_t path_at(const char *s, size_t n)
{
    size_t i = 0;
    /* scheme:// */
    while (i < n && (is_alnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    bool url = i > 0 && i + 2 < n && s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/';
    if (!url) {
        if (n >= 2 && s[0] == '.' && s[1] == '/')
            i = 2;
        else if (n >= 3 && s[0] == '.' && s[1] == '.' && s[2] == '/')
            i = 3;
        else if (n >= 2 && s[0] == '/' && is_word((unsigned char)s[1]))
            i = 1;
        else
            return 0;
    }
    /* A closer ends the path unless the path opened it: a route template
     * "/orders/{order_id}" is one path, "(see /tmp/x)" stops before ")". */
    size_t slashes = 0, open[3] = {0, 0, 0};
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c) || c == '\'' || c == '"' || c == ',' || c == '>')
            break;
        int closer = c == '}' ? 0 : c == ')' ? 1 : c == ']' ? 2 : -1;
        if (closer >= 0) {
            if (open[closer] == 0)
                break;
            open[closer]--;
        } else if (c == '{' || c == '(' || c == '[') {
            open[c == '{' ? 0 : c == '(' ? 1 : 2]++;
        } else if (c == '/') {
            slashes++;
        }
    }
    /* "/" alone, or a fraction like "a/b" without a leading slash, is not a
     * path; "/x" with one slash is (an absolute path), URLs always are. */
    if (!url && slashes < 1)
        return 0;
    return i;
}

#define PUT_LIT(o, lit) (memcpy((o), (lit), sizeof(lit) - 1), (o) += sizeof(lit) - 1)

/*
 * The word s[i, w) (ndigits of its bytes digits; hex: all of it hex
 * digits) at o: a number (with its fraction, or a dotted address) as one
 * mask, a long hex run with digits, a generated id, or the word as it is,
 * cut to room. Sets *next past what it took; returns o moved on.
 */
static inline char *put_word(const char *s, size_t n, size_t i, size_t w, size_t ndigits, bool hex,
                             char *o, size_t room, size_t *next)
{
    size_t j = w;
    if (ndigits == j - i) {
        /* 1.5, 10.0.0.1: one number, one mask. */
        while (j + 1 < n && s[j] == '.' && is_digit((unsigned char)s[j + 1])) {
            j++;
            while (j < n && is_digit((unsigned char)s[j]))
                j++;
        }
        PUT_LIT(o, "<num>");
    } else if (hex && ndigits > 0 && j - i >= 8) {
        PUT_LIT(o, "<hex>");
    } else if (ndigits >= 4 || (ndigits >= 2 && j - i >= 10)) {
        /* A generated id: "UPS8360377886", "ord_mmp36wa0xhqv";
         * "s3", "sha256", "utf8" and "us-west-2" stay. */
        PUT_LIT(o, "<id>");
    } else {
        /* Keep the word, but mask digits inside it ("s3" stays,
         * "obj-17" becomes "obj-<num>" through the next round). */
        size_t keep = j - i;
        if (keep > room)
            keep = room;
        memcpy(o, s + i, keep);
        o += keep;
    }
    *next = j;
    return o;
}

/* The length of p[0, len) cut to max: a placeholder may have gone past it.
 * A cut never ends inside a UTF-8 sequence; bytes that are not UTF-8 are
 * otherwise kept (a Latin-1 message keeps the text after its first
 * accented letter). */
static size_t utf8_cut(const char *p0, size_t len, size_t max)
{
    if (len < max)
        return len;
    len = max;
    const unsigned char *p = (const unsigned char *)p0;
    size_t lead = len, cont = 0;
    while (lead > 0 && cont < 3 && (p[lead - 1] & 0xC0) == 0x80)
        lead--, cont++;
    if (lead > 0) {
        unsigned char c = p[lead - 1];
        size_t need = c >= 0xF8 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (need > cont)
            len = lead - 1;
    }
    return len;
}

size_t map_mask_message(const char *s, size_t n, size_t max, core_buf *out)
{
    if (max == 0)
        max = 256;
    /* A step starts below max and writes at most a space and a 6-byte
     * placeholder (a kept word is cut at max): room for all at once. */
    core_buf_reserve(out, max + 8);
    char *const o0 = out->data + out->len;
    char *o = o0;
    bool space = false;
    for (size_t i = 0; i < n && (size_t)(o - o0) < max;) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) {
            space = true;
            i++;
            continue;
        }
        if (space && o > o0)
            *o++ = ' ';
        space = false;
        if (i > 0 && is_word((unsigned char)s[i - 1])) {
            /* Inside a word's run of punctuation ("obj-17", "a.b"): no
             * placeholder starts here. */
            *o++ = (char)c;
            i++;
            continue;
        }
        /* One scan of the word here: where its letters and digits end
         * (whether a UUID, 8 hex digits then '-', or a URL's scheme, then
         * '+', '-', '.' or ':', may start; most words are neither), where
         * it ends, its digits, and whether all of it is hex. */
        size_t e = n, w = i, ndigits = 0;
        bool hex = true;
        for (; w < n; w++) {
            uint8_t cl = map__byte_class[(unsigned char)s[w]];
            if (!(cl & MAP__WORD))
                break;
            if (!(cl & MAP__ALNUM) && e == n)
                e = w;
            ndigits += cl & MAP__DIGIT;
            hex = hex && (cl & MAP__HEX);
        }
        if (e > w)
            e = w;
        size_t k;
        bool may_uuid = e - i == 8 && e < n && s[e] == '-';
        bool may_path = e > i ? e < n && (s[e] == '+' || s[e] == '-' || s[e] == '.' || s[e] == ':')
                              : c == '+' || c == '-' || c == '.' || c == '/';
        if (may_uuid && (k = uuid_at(s + i, n - i)) > 0) {
            PUT_LIT(o, "<uuid>");
            i += k;
            continue;
        }
        if (may_path && (k = path_at(s + i, n - i)) > 0) {
            PUT_LIT(o, "<path>");
            i += k;
            continue;
        }
        if (c == '\'' || c == '"') {
            /* A quoted string up to its closing quote on the same line. */
            size_t j = i + 1;
            while (j < n && (unsigned char)s[j] != c && s[j] != '\n')
                j++;
            if (j < n && (unsigned char)s[j] == c) {
                *o++ = (char)c;
                PUT_LIT(o, "<*>");
                *o++ = (char)c;
                i = j + 1;
                continue;
            }
        }
        if (c == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
            is_hex((unsigned char)s[i + 2])) {
            size_t j = i + 2;
            while (j < n && is_hex((unsigned char)s[j]))
                j++;
            PUT_LIT(o, "<hex>");
            i = j;
            continue;
        }
        if (is_word(c)) {
            o = put_word(s, n, i, w, ndigits, hex, o, max - (size_t)(o - o0), &i);
            continue;
        }
        *o++ = (char)c;
        i++;
    }
    size_t len = utf8_cut(o0, (size_t)(o - o0), max);
    out->len += len;
    out->data[out->len] = '\0';
    return len;
}
