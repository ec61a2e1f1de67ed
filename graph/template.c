/*
 * The grammar of stored templates that the extractors write and the
 * mapping reads (graph.h): %-directives, in the syntax Python's
 * %-operator and Node's util.format share, and replacement fields in the
 * PEP 3101 syntax, which str.format and the loggers that format with
 * keyword arguments share.
 */
#include "graph.h"

#include <ctype.h>
#include <string.h>

size_t graph_directive(const char *s, size_t n)
{
    size_t i = 1;
    if (i < n && s[i] == '%')
        return 2;
    if (i < n && s[i] == '(') {
        const char *close = memchr(s + i, ')', n - i);
        if (!close)
            return 0;
        i = (size_t)(close - s) + 1;
    }
    while (i < n && s[i] && strchr("#0- +", s[i]))
        i++;
    while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '*'))
        i++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '*'))
            i++;
    }
    while (i < n && s[i] && strchr("hlL", s[i]))
        i++;
    if (i < n && s[i] && strchr("diouxXeEfFgGcrsajOo", s[i]))
        return i + 1;
    return 0;
}

/* Letters, digits, '_' and every byte of a UTF-8 sequence: what an
 * identifier is made of (Python's identifiers may be non-ASCII). */
static bool ident_byte(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           c >= 0x80;
}

/* An identifier at s[i..n): its end, or i when there is none (it may not
 * start with a digit). */
static size_t ident_end(const char *s, size_t i, size_t n)
{
    if (i >= n || (s[i] >= '0' && s[i] <= '9') || !ident_byte((unsigned char)s[i]))
        return i;
    while (i < n && ident_byte((unsigned char)s[i]))
        i++;
    return i;
}

/* A format spec may hold replacement fields of its own ("{:{width}}"),
 * one level deep; any other brace ends it as no field. */
#define FIELD_MAX 256

size_t graph_brace_field(const char *s, size_t n)
{
    if (n < 2 || s[0] != '{' || s[1] == '{')
        return 0;
    size_t i = 1;
    /* arg_name: an identifier, digits, or nothing (automatic numbering). */
    if (s[i] >= '0' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        i = ident_end(s, i, n);
    }
    /* ("." attribute_name | "[" element_index "]")* */
    while (i < n && (s[i] == '.' || s[i] == '[')) {
        if (s[i] == '.') {
            size_t e = ident_end(s, i + 1, n);
            if (e == i + 1)
                return 0;
            i = e;
        } else {
            const char *close = memchr(s + i + 1, ']', n - i - 1);
            if (!close || close == s + i + 1 || memchr(s + i + 1, '{', (size_t)(close - s) - i - 1))
                return 0;
            i = (size_t)(close - s) + 1;
        }
    }
    /* "!" conversion */
    if (i < n && s[i] == '!') {
        if (i + 1 >= n || !strchr("rsa", s[i + 1]) || s[i + 1] == '\0')
            return 0;
        i += 2;
    }
    /* ":" format_spec, with nested fields */
    if (i < n && s[i] == ':') {
        i++;
        while (i < n && s[i] != '}') {
            if (s[i] == '{') {
                size_t k = graph_brace_field(s + i, n - i);
                if (k == 0 || memchr(s + i + 1, '{', k - 2))
                    return 0;
                i += k;
            } else {
                i++;
            }
            if (i > FIELD_MAX)
                return 0;
        }
    }
    return i < n && s[i] == '}' && i < FIELD_MAX ? i + 1 : 0;
}

/* A placeholder that a sigil opens, "${name}", "#{name}", "@{user.name}",
 * "@{!name}": the syntax of many JavaScript and Ruby-style renderers,
 * which take an expression or a path, not PEP 3101. Its length after the
 * sigil, braces included; 0 when the braces hold nothing, a brace, a line
 * break, leading blank, or more than SIGIL_MAX bytes. The sigil goes with
 * the hole: whatever the renderer puts there replaces both. */
#define SIGIL_MAX 64

static size_t sigil_field(const char *s, size_t n)
{
    if (n < 3 || s[0] != '{' || s[1] == ' ' || s[1] == '}')
        return 0;
    for (size_t i = 1; i < n && i <= SIGIL_MAX + 1; i++) {
        if (s[i] == '}')
            return i + 1;
        if (s[i] == '{' || s[i] == '\n' || s[i] == '\0')
            return 0;
    }
    return 0;
}

size_t graph_tmpl_step(const char *t, size_t n, size_t i, graph_tmpl_piece *p)
{
    char c = t[i];
    if ((c == '$' || c == '#' || c == '@') && i + 1 < n && t[i + 1] == '{') {
        size_t k = sigil_field(t + i + 1, n - i - 1);
        if (k) {
            *p = (graph_tmpl_piece){.hole = true};
            return k + 1;
        }
    }
    *p = (graph_tmpl_piece){.lit = c};
    if (c == '%') {
        if (i + 1 < n && t[i + 1] == '%')
            return 2; /* a literal '%' */
        size_t d = graph_directive(t + i, n - i);
        if (d) {
            p->hole = true;
            return d;
        }
        return 1;
    }
    if (c == '{' || c == '}') {
        /* "{{" is "{" to str.format and "{{" to any other renderer. */
        if (i + 1 < n && t[i + 1] == c) {
            p->twice = true;
            return 2;
        }
        size_t k = c == '{' ? graph_brace_field(t + i, n - i) : 0;
        if (k) {
            p->hole = true;
            return k;
        }
    }
    return 1;
}
