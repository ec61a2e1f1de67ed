/*
 * Reading stored templates (map_int.h): one walk over every placeholder
 * syntax the extractors leave in a template, for the matcher's patterns
 * and the text index's tokens alike.
 */
#include "map_int.h"

size_t map__tmpl_step(const char *t, size_t n, size_t i, map__tmpl_piece *p)
{
    char c = t[i];
    *p = (map__tmpl_piece){.lit = c};
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
