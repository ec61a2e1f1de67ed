/*
 * TypeScript/JavaScript extraction: doc comments. The JSDoc comment a
 * declaration takes, and the file's leading comment.
 */
#include "ts_int.h"

#include <string.h>

static bool is_jsdoc(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    return b - a >= 5 && memcmp(x->src + a, "/**", 3) == 0 && x->src[a + 3] != '/';
}

/* Comment text without its markers: `/ **`, `* /`, leading `*` on each line
 * and `//`. Stops at the first block tag (`@param`) once there is text.
 * Normalised by graph__doc. */
static const char *comment_doc(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
    const char *s = x->src + a;
    size_t n = b - a;
    core_buf *out = &x->scratch;
    core_buf_reset(out);
    bool block = n >= 2 && s[1] == '*';
    if (block) {
        size_t i = 2;
        while (i < n && s[i] == '*')
            i++;
        size_t end = n >= 2 && s[n - 2] == '*' && s[n - 1] == '/' ? n - 2 : n;
        while (end > i && s[end - 1] == '*')
            end--;
        while (i < end) {
            size_t eol = i;
            while (eol < end && s[eol] != '\n')
                eol++;
            size_t j = i;
            while (j < eol && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
                j++;
            while (j < eol && s[j] == '*')
                j++;
            while (j < eol && (s[j] == ' ' || s[j] == '\t'))
                j++;
            if (j < eol && s[j] == '@' && out->len > 0)
                break;
            core_buf_append(out, s + j, eol - j);
            core_buf_putc(out, '\n');
            i = eol + 1;
        }
    } else {
        size_t i = 0;
        while (i < n && s[i] == '/')
            i++;
        core_buf_append(out, s + i, n - i);
    }
    if (!out->len)
        return NULL;
    return graph__doc(x->f, out->data, out->len);
}

/* Only whitespace and line comments between byte a and byte b? *blank
 * says whether an empty line is among them. */
static bool gap_is_blank(tx *x, uint32_t a, uint32_t b, bool *blank)
{
    *blank = false;
    if (a > b || b - a > 4096)
        return false;
    int run = 0; /* newlines since the last text */
    for (uint32_t i = a; i < b; i++) {
        char ch = x->src[i];
        if (ch == '\n') {
            if (++run >= 2)
                *blank = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\r') {
            continue;
        } else if (ch == '/' && i + 1 < b && x->src[i + 1] == '/') {
            while (i + 1 < b && x->src[i + 1] != '\n')
                i++;
            run = 0;
        } else {
            return false;
        }
    }
    return true;
}

/* The JSDoc comment right before `outer` (no empty line between), if any;
 * taken only once. */
const char *graph__ts_take_doc(tx *x, TSNode outer)
{
    if (is_null(x->doc))
        return NULL;
    bool blank;
    if (!gap_is_blank(x, ts_node_end_byte(x->doc), ts_node_start_byte(outer), &blank) || blank)
        return NULL;
    const char *d = comment_doc(x, x->doc);
    x->doc = gx_null();
    return d;
}

/* A comment walked past: a JSDoc one is the doc of what comes next. */
void graph__ts_note_comment(tx *x, TSNode c)
{
    if (is_jsdoc(x, c))
        x->doc = c;
}

/* A tool's comment, not documentation: eslint-disable, @ts-check,
 * /// <reference ...>, ... */
static bool directive_comment(tx *x, TSNode c)
{
    uint32_t a = ts_node_start_byte(c) + 2, b = ts_node_end_byte(c);
    while (a < b &&
           (x->src[a] == '*' || x->src[a] == '/' || x->src[a] == ' ' || x->src[a] == '\t' ||
            x->src[a] == '\n' || x->src[a] == '\r' || x->src[a] == '!'))
        a++;
    static const char *const tools[] = {
        "eslint", "tslint",     "@ts-",  "jshint",  "jscs:",      "istanbul",     "prettier",
        "c8 ",    "<reference", "@flow", "#region", "#endregion", "biome-ignore", "@jsx"};
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        size_t n = strlen(tools[i]);
        if (b - a >= n && memcmp(x->src + a, tools[i], n) == 0)
            return true;
    }
    return false;
}

/* The file's leading comment: a block comment, or a run of line comments;
 * not a JSDoc comment that belongs to the declaration right after it. */
const char *graph__ts_module_doc(tx *x, TSNode root)
{
    TSTreeCursor *c = kids(x, 0, root);
    if (!c)
        return NULL;
    TSNode first = gx_null(), last = gx_null(), next = gx_null();
    bool lines = false;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_HASH_BANG_LINE)
            continue;
        if (is_null(first) && t == N_EXPRESSION_STATEMENT &&
            ty(x, ts_node_named_child(ch, 0)) == N_STRING)
            continue; /* 'use strict' */
        bool line = t == N_COMMENT && x->src[ts_node_start_byte(ch) + 1] == '/';
        if (is_null(first) && t == N_COMMENT && directive_comment(x, ch))
            continue;
        if (is_null(first)) {
            if (t != N_COMMENT)
                break;
            first = last = ch;
            lines = line;
            continue;
        }
        if (lines && line && ts_node_start_point(ch).row == ts_node_end_point(last).row + 1) {
            last = ch;
            continue;
        }
        next = ch;
        break;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (is_null(first))
        return NULL;
    if (!lines && is_jsdoc(x, first) && !is_null(next)) {
        unsigned t = ty(x, next);
        bool blank;
        if (t != N_COMMENT && t != N_IMPORT_STATEMENT && t != N_EXPRESSION_STATEMENT &&
            gap_is_blank(x, ts_node_end_byte(first), ts_node_start_byte(next), &blank) && !blank)
            return NULL;
    }
    if (!lines)
        return comment_doc(x, first);
    /* Line comments: their texts joined. */
    core_buf *b = &x->scratch;
    core_buf_reset(b);
    uint32_t a = ts_node_start_byte(first), e = ts_node_end_byte(last);
    for (uint32_t i = a; i < e;) {
        while (i < e &&
               (x->src[i] == ' ' || x->src[i] == '\t' || x->src[i] == '\n' || x->src[i] == '\r'))
            i++;
        while (i < e && x->src[i] == '/')
            i++;
        uint32_t j = i;
        while (j < e && x->src[j] != '\n')
            j++;
        core_buf_append(b, x->src + i, j - i);
        core_buf_putc(b, '\n');
        i = j;
    }
    return b->len ? graph__doc(x->f, b->data, b->len) : NULL;
}
