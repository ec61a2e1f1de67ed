/*
 * The message an error's rendering carries (map__error_message). An
 * error logged whole shows its class and its stack around the text the
 * code gave it: `TypeError: bad input\n    at f (/srv/a.js:3:9)` (a
 * JavaScript stack, `err.stack` or `console.error(err)`), or
 * `{"stack":"...","message":"bad input"}` (its properties as JSON). Only
 * the text made where the error was (`new Error('bad input')`) can come
 * from the code; the rest is the run's. A message a structured logger
 * renders as a JSON object carries the code's text in one of its members
 * the same way (map__json_next), or renders the fields after it as
 * key=value pairs (map__kv_head). The frames of a JavaScript stack
 * are read here too (map__stack_frame), for what catches the error.
 */
#include "map_int.h"

#include <stdlib.h>
#include <string.h>

/* A line break inside a message: the byte, or the two characters a log
 * that keeps one record per line writes for it. Returns its length at s,
 * or 0. */
static size_t line_break(const char *s, size_t n)
{
    if (n >= 1 && s[0] == '\n')
        return 1;
    if (n >= 2 && s[0] == '\\' && s[1] == 'n')
        return 2;
    return 0;
}

/* Whether a stack frame's line begins at s[i] (a line break, white
 * space, "at "): where its text after "at " begins, or 0. */
static size_t frame_at(const char *s, size_t n, size_t i)
{
    size_t b = line_break(s + i, n - i);
    if (!b)
        return 0;
    size_t j = i + b, sp = 0;
    while (j < n && (s[j] == ' ' || s[j] == '\t'))
        j++, sp++;
    return sp && n - j >= 3 && memcmp(s + j, "at ", 3) == 0 ? j + 3 : 0;
}

/* Where the first frame of a stack begins in s, or n when none does. */
static size_t first_frame(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (frame_at(s, n, i))
            return i;
    return n;
}

/* The message of "Name: message" followed by a stack's frames: its
 * offset and length in s. Without frames, `Name: text` is as often a
 * message of its own (`Note: cache cold`, a traceback's last line that a
 * handler logs beside its own records) as an error's: then, with
 * frameless, the whole rest is the message, and the caller must find the
 * class named (map__error_named). */
static bool class_and_message(const char *s, size_t n, bool frameless, size_t *off, size_t *len)
{
    size_t i = 0;
    while (i < n && (is_word((unsigned char)s[i]) || s[i] == '$' || s[i] == '.'))
        i++;
    if (i == 0 || i + 2 > n || s[i] != ':' || s[i + 1] != ' ' || is_digit((unsigned char)s[0]))
        return false;
    size_t end = first_frame(s + i + 2, n - i - 2);
    if (end == 0 || (end == n - i - 2) != frameless)
        return false;
    *off = i + 2;
    *len = end;
    return true;
}

/* The JSON string value of member key in the object s[0, n), read as
 * far as it goes when the object was cut short (a log's length limit):
 * its raw text, escapes kept, at *off, *len. */
static bool raw_member(const char *s, size_t n, const char *key, size_t *off, size_t *len)
{
    size_t kl = strlen(key);
    for (size_t i = 1; i + kl + 4 <= n; i++) {
        if (s[i] != '"' || memcmp(s + i + 1, key, kl) != 0 || s[i + kl + 1] != '"')
            continue;
        size_t j = i + kl + 2;
        while (j < n && is_space((unsigned char)s[j]))
            j++;
        if (j >= n || s[j] != ':')
            continue;
        for (j++; j < n && is_space((unsigned char)s[j]);)
            j++;
        if (j >= n || s[j] != '"')
            continue;
        size_t a = ++j;
        while (j < n && s[j] != '"')
            j += s[j] == '\\' ? 2 : 1;
        *off = a;
        *len = (j < n ? j : n) - a;
        return true;
    }
    return false;
}

/* Appends the JSON string text s[0, n) to out with its escapes read
 * (those of \uXXXX are kept as written: they never stand for a
 * template's text). */
static void put_unescaped(core_buf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            char e = s[++i];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
            if (e == 'u' || e == 'b' || e == 'f') {
                core_buf_putc(out, '\\');
                c = e;
            }
        }
        core_buf_putc(out, c);
    }
}

/* s[0, *n) without the blanks at its ends: its new start, *n its length. */
static const char *trimmed(const char *s, size_t *n)
{
    while (*n && is_space((unsigned char)*s))
        s++, --*n;
    while (*n && is_space((unsigned char)s[*n - 1]))
        --*n;
    return s;
}

bool map__error_message(const char *s, size_t n, core_buf *out)
{
    s = trimmed(s, &n);
    size_t off, len, mo, ml;
    if (n >= 2 && s[0] == '{') {
        /* The message member first; the stack's first line names the
         * class too, and comes first when an error's own properties are
         * listed (so it survives a cut that loses the message). */
        core_buf_reset(out);
        if (raw_member(s, n, "message", &off, &len) && len)
            put_unescaped(out, s + off, len);
        else if (raw_member(s, n, "stack", &off, &len) &&
                 class_and_message(s + off, len, false, &mo, &ml))
            put_unescaped(out, s + off + mo, ml);
        return out->len > 0;
    }
    if (!class_and_message(s, n, false, &off, &len))
        return false;
    core_buf_reset(out);
    core_buf_append(out, s + off, len);
    return true;
}

bool map__error_named(const char *s, size_t n, const char **name, size_t *name_len, core_buf *out)
{
    s = trimmed(s, &n);
    size_t off, len;
    if (!class_and_message(s, n, true, &off, &len))
        return false;
    *name = s;
    *name_len = off - 2;
    core_buf_reset(out);
    core_buf_append(out, s + off, len);
    return true;
}

/* Where the JSON value at s[i] (after blanks) ends: past a string, an
 * object or an array with what it holds, or a scalar. n when it runs to
 * the end (cut short). */
static size_t value_end(const char *s, size_t n, size_t i)
{
    uint32_t depth = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"';)
                i += s[i] == '\\' ? 2 : 1;
            if (!depth)
                return i < n ? i + 1 : n;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (!depth)
                return i;
            if (!--depth)
                return i + 1;
        } else if (!depth && (c == ',' || is_space((unsigned char)c))) {
            return i;
        }
    }
    return n;
}

bool map__json_next(const char *s, size_t n, size_t *at, core_buf *out)
{
    size_t i = *at;
    if (i == 0) {
        while (i < n && is_space((unsigned char)s[i]))
            i++;
        if (n - i < 2 || s[i] != '{')
            return false;
        i++;
    }
    while (i < n) {
        while (i < n && (is_space((unsigned char)s[i]) || s[i] == ','))
            i++;
        if (i >= n || s[i] != '"')
            return false;       /* the end, or no object */
        i = value_end(s, n, i); /* the key */
        while (i < n && is_space((unsigned char)s[i]))
            i++;
        if (i >= n || s[i] != ':')
            return false;
        for (i++; i < n && is_space((unsigned char)s[i]);)
            i++;
        size_t a = i;
        i = value_end(s, n, i);
        if (i == a)
            return false;
        if (s[a] != '"')
            continue;
        size_t b = i < n || s[n - 1] == '"' ? i - 1 : n; /* the closing quote, if any */
        core_buf_reset(out);
        put_unescaped(out, s + a + 1, b > a + 1 ? b - a - 1 : 0);
        *at = i;
        return true;
    }
    return false;
}

/* The end of a key=value pair's key at s[i] (a letter or '_', then word
 * bytes, '.' and '-') when '=' follows it; i when none does. */
static size_t kv_key(const char *s, size_t n, size_t i)
{
    size_t j = i;
    if (j >= n || !is_word((unsigned char)s[j]) || is_digit((unsigned char)s[j]))
        return i;
    while (j < n && (is_word((unsigned char)s[j]) || s[j] == '.' || s[j] == '-'))
        j++;
    return j < n && s[j] == '=' ? j : i;
}

/* Where a pair's value at s[i] ends: past its closing quote when quoted
 * (`'disk full'`, a repr), past the bracket that closes it when it opens
 * one (`{'a': 1}`, `[1, 2]`), else at the next blank. SIZE_MAX when a
 * quote or a bracket is left open. */
static size_t kv_value(const char *s, size_t n, size_t i)
{
    uint32_t depth = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            for (i++; i < n && s[i] != c;)
                i += s[i] == '\\' ? 2 : 1;
            if (i >= n)
                return SIZE_MAX;
        } else if (c == '{' || c == '[' || c == '(') {
            depth++;
        } else if (c == '}' || c == ']' || c == ')') {
            if (depth)
                depth--;
        } else if (!depth && is_space((unsigned char)c)) {
            return i;
        }
    }
    return depth ? SIZE_MAX : n;
}

/* Where reading s[i, n) as key=value pairs, blanks between, stops: n
 * when it is nothing else. */
static size_t kv_stop(const char *s, size_t n, size_t i)
{
    while (i < n) {
        size_t k = kv_key(s, n, i);
        if (k == i)
            return i;
        size_t v = kv_value(s, n, k + 1);
        if (v == SIZE_MAX)
            return i;
        i = v;
        while (i < n && is_space((unsigned char)s[i]))
            i++;
    }
    return n;
}

/* Whether s[i, n), from a pair on, reads as pairs whose unquoted values
 * may go on past a blank (`plate=K-LM 7 capacity=1`, a formatter that
 * joins `${k}=${v}` unquoted), ending in a pair: a word without '=' after
 * a pair is the rest of its value. */
static bool kv_loose(const char *s, size_t n, size_t i)
{
    bool pair = false;
    while (i < n) {
        size_t k = kv_key(s, n, i), v;
        pair = k != i;
        if (pair) {
            v = kv_value(s, n, k + 1);
            if (v == SIZE_MAX)
                return false;
        } else {
            for (v = i; v < n && !is_space((unsigned char)s[v]);)
                v++;
        }
        i = v;
        while (i < n && is_space((unsigned char)s[i]))
            i++;
    }
    return pair;
}

/* Where a blank-led pair first starts in s[1, n); n when none does. */
static size_t kv_first(const char *s, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (is_space((unsigned char)s[i - 1]) && !is_space((unsigned char)s[i]) &&
            kv_key(s, n, i) != i)
            return i;
    return n;
}

/* Where the strict reading's pairs start in s[0, n) (blanks before
 * them trimmed); n when s does not end in pairs, or 0 when it is nothing
 * but pairs. */
static size_t kv_strict(const char *s, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        if (!is_space((unsigned char)s[i - 1]) || is_space((unsigned char)s[i]) ||
            kv_key(s, n, i) == i)
            continue;
        size_t stop = kv_stop(s, n, i);
        if (stop < n) {
            /* A reading from a later pair it went through stops there
             * too: on from there, so a long run costs one pass. */
            i = stop > i ? stop - 1 : i;
            continue;
        }
        size_t h = i;
        while (h && is_space((unsigned char)s[h - 1]))
            h--;
        return h;
    }
    return n;
}

size_t map__kv_head(const char *s, size_t len, bool loose)
{
    size_t n = len;
    while (n && is_space((unsigned char)s[n - 1]))
        n--;
    size_t h;
    if (!loose) {
        h = kv_strict(s, n);
    } else {
        h = kv_first(s, n);
        if (h == n || !kv_loose(s, n, h))
            return len;
        while (h && is_space((unsigned char)s[h - 1]))
            h--;
    }
    return h && h < n ? h : len;
}

size_t map__elapsed_head(const char *s, size_t len)
{
    size_t n = len;
    while (n && is_space((unsigned char)s[n - 1]))
        n--;
    size_t u = n;
    while (u && s[u - 1] >= 'a' && s[u - 1] <= 'z')
        u--;
    static const char *const units[] = {"ms", "s", "m", "h", "d"};
    bool unit = false;
    for (size_t i = 0; i < sizeof units / sizeof units[0] && !unit; i++)
        unit = n - u == strlen(units[i]) && memcmp(s + u, units[i], n - u) == 0;
    size_t d = u;
    while (d && is_digit((unsigned char)s[d - 1]))
        d--;
    if (!unit || d == u || d < 3 || s[d - 1] != '+' || !is_space((unsigned char)s[d - 2]))
        return len;
    size_t h = d - 1;
    while (h && is_space((unsigned char)s[h - 1]))
        h--;
    return h ? h : len;
}

size_t map__first_line(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] != '\r' && !line_break(s + i, n - i))
        i++;
    return i;
}

bool map__stack_head(const char *s, size_t n)
{
    size_t off, len;
    return class_and_message(s, n, false, &off, &len);
}

/* A frame's text p[0, n) (after "at ") read into f; false when it names
 * no file and line. */
static bool frame_of(const char *p, size_t n, map_frame *f)
{
    const char *loc = p, *loc_end = p + n;
    f->name[0] = '\0';
    if (n > 0 && p[n - 1] == ')') {
        const char *open = NULL;
        for (const char *q = p; q < p + n; q++)
            if (*q == '(')
                open = q;
        if (!open)
            return false;
        loc = open + 1;
        loc_end = p + n - 1;
        /* The name before it, without `async `, `new ` and `[as x]`. */
        const char *ne = open;
        while (ne > p && ne[-1] == ' ')
            ne--;
        if (ne > p && ne[-1] == ']') {
            while (ne > p && ne[-1] != '[')
                ne--;
            while (ne > p && (ne[-1] == '[' || ne[-1] == ' '))
                ne--;
        }
        const char *nb = ne;
        while (nb > p && nb[-1] != '.' && nb[-1] != ' ')
            nb--;
        size_t nl = (size_t)(ne - nb);
        if (nl < sizeof f->name) {
            memcpy(f->name, nb, nl);
            f->name[nl] = '\0';
        }
    }
    if (loc_end - loc > 7 && memcmp(loc, "file://", 7) == 0)
        loc += 7;
    /* FILE:LINE:COL, read from the right (a path may hold colons). */
    const char *c2 = loc_end;
    while (c2 > loc && c2[-1] != ':')
        c2--;
    const char *c1 = c2 > loc ? c2 - 1 : loc;
    while (c1 > loc && c1[-1] != ':')
        c1--;
    if (c1 <= loc + 1 || c2 <= c1 + 1 || loc[0] != '/')
        return false;
    size_t pl = (size_t)(c1 - 1 - loc);
    if (pl >= sizeof f->path)
        return false;
    unsigned long line = 0;
    for (const char *q = c1; q < c2 - 1; q++) {
        if (!is_digit((unsigned char)*q) || line > UINT32_MAX / 10)
            return false;
        line = line * 10 + (unsigned long)(*q - '0');
    }
    if (line == 0 || line > UINT32_MAX)
        return false;
    memcpy(f->path, loc, pl);
    f->path[pl] = '\0';
    f->line = (uint32_t)line;
    return true;
}

bool map__stack_frame(const char *s, size_t n, size_t *at, map_frame *f)
{
    for (size_t i = *at; i < n; i++) {
        size_t j = frame_at(s, n, i);
        if (!j)
            continue;
        size_t e = j + map__first_line(s + j, n - j);
        if (frame_of(s + j, e - j, f)) {
            *at = e;
            return true;
        }
        i = e - 1;
    }
    *at = n;
    return false;
}
