/*
 * A Python pre-scan that finds large literal data: list, tuple, set and
 * dict displays holding only numbers, short strings and nested displays
 * (Unicode tables, lookup tables, test vectors). They hold no symbol, no
 * call and no message, and they are a fifth of the bytes of a typical
 * site-packages, so the parser is not shown their insides: the display
 * parses as an empty one, with the byte offsets and lines of everything
 * else unchanged. Displays with prose in a string ("order not found")
 * are kept whole: message catalogs are what the mapping needs.
 *
 * The scan is a tokenizer, not a parser: strings (all prefixes, triple
 * quotes, escapes), comments, brackets. Anything it is unsure of makes
 * the enclosing display "not data". The extractor re-parses the whole
 * text if a parse with ranges reports errors, so a mistake here costs
 * time, never correctness.
 */
#include "py_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Smaller displays are not worth a range. */
#define MIN_DATA_BYTES 256
#define MAX_STACK 256

typedef struct {
    uint32_t open;    /* offset of the bracket */
    bool literal_pos; /* a display, not a call or a subscript */
    bool pure;        /* only literals so far */
    bool prose;       /* a string with words in it */
} frame;

typedef enum {
    PT_NONE,  /* start of input / after a newline at depth 0 */
    PT_VALUE, /* a name, number, string or closing bracket: `[` after it subscripts */
    PT_OP,    /* an operator, opening bracket, comma, colon or keyword */
} prev_kind;

static bool is_ident_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80;
}

static bool is_ident(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

/* Keywords after which a bracket starts a display. */
static bool keyword_before_value(const char *s, size_t n)
{
    static const char *const kw[] = {"return", "yield", "in",   "else",  "and",    "or",    "not",
                                     "is",     "if",    "elif", "while", "assert", "await", "from"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
            return true;
    return false;
}

static bool is_literal_name(const char *s, size_t n)
{
    return (n == 4 && (memcmp(s, "True", 4) == 0 || memcmp(s, "None", 4) == 0)) ||
           (n == 5 && memcmp(s, "False", 5) == 0);
}

/* Is [s, s+n) a string prefix (r, b, u, f, rb, br, fr, rf in any case)? */
static bool string_prefix(const char *s, size_t n, bool *is_f)
{
    if (n == 0 || n > 2)
        return false;
    bool f = false;
    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)s[i]);
        if (c == 'f')
            f = true;
        else if (c != 'r' && c != 'b' && c != 'u')
            return false;
    }
    *is_f = f;
    return true;
}

/* What a string's contents read as: a word, a dotted path, other. */
typedef enum { STR_OTHER, STR_WORD, STR_PATH } str_kind;

/*
 * Skips the string starting with the quote at s[i]; returns the offset
 * after it. Sets *prose when the contents hold two words separated by a
 * space, *interp for an f-string with a replacement field, and *kind.
 */
static size_t skip_string(const char *s, size_t n, size_t i, bool is_f, bool *prose, bool *interp,
                          str_kind *kind)
{
    char q = s[i];
    bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
    size_t j = i + (triple ? 3 : 1);
    size_t body = j;
    for (; j < n; j++) {
        char c = s[j];
        if (c == '\\') {
            j++;
            continue;
        }
        if (c == '\n' && !triple)
            break; /* unterminated: let the parser complain */
        if (c == q && (!triple || (j + 2 < n && s[j + 1] == q && s[j + 2] == q)))
            break;
    }
    size_t end = j;
    *kind = graph_value_literal(s + body, end - body)  ? STR_WORD
            : graph__dotted_path(s + body, end - body) ? STR_PATH
                                                       : STR_OTHER;
    for (size_t k = body; k + 2 < end; k++) {
        if (isalpha((unsigned char)s[k]) && s[k + 1] == ' ' && isalpha((unsigned char)s[k + 2]) &&
            k > body && isalpha((unsigned char)s[k - 1])) {
            *prose = true;
            break;
        }
    }
    if (is_f && memchr(s + body, '{', end - body))
        *interp = true;
    if (j >= n)
        return n;
    return j + (triple ? 3 : 1);
}

/* The scan's state: the open brackets, what came before, the ranges. */
typedef struct {
    frame stack[MAX_STACK];
    int depth;
    prev_kind prev;
    /* A registry's entry, `'sync': 'pkg.workers.sync.SyncWorker'`: 1
     * after a word, 2 after a word and a colon. A display holding one is
     * kept, since its words name the classes they choose (py_walk.c,
     * registry_word). */
    int entry;
    core_vec(uint32_t) starts, ends;
} scan;

/* A string scanned: the display it is in takes what it says. */
static void note_string(scan *sc, bool prose, bool interp, str_kind kind)
{
    if (sc->depth > 0) {
        frame *f = &sc->stack[sc->depth - 1];
        f->prose |= prose || (sc->entry == 2 && kind == STR_PATH);
        if (interp)
            f->pure = false;
    }
    sc->entry = kind == STR_WORD ? 1 : 0;
    sc->prev = PT_VALUE;
}

/* A name at s[i] (a keyword, or a string's prefix); returns where the
 * scan goes on. */
static size_t scan_name(scan *sc, const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && is_ident((unsigned char)s[j]))
        j++;
    bool is_f;
    if (j < n && (s[j] == '"' || s[j] == '\'') && string_prefix(s + i, j - i, &is_f)) {
        bool prose = false, interp = false;
        str_kind kind;
        j = skip_string(s, n, j, is_f, &prose, &interp, &kind);
        note_string(sc, prose, interp, kind);
        return j;
    }
    sc->entry = 0;
    bool kw = keyword_before_value(s + i, j - i);
    if (sc->depth > 0 && !is_literal_name(s + i, j - i))
        sc->stack[sc->depth - 1].pure = false;
    sc->prev = kw ? PT_OP : PT_VALUE;
    return j;
}

/* A closing bracket at offset i: the display it closes becomes a range
 * if it is data. */
static void close_bracket(scan *sc, size_t i)
{
    if (sc->depth == 0) {
        sc->prev = PT_VALUE;
        return;
    }
    frame fr = sc->stack[--sc->depth];
    size_t len = i - fr.open;
    if (fr.pure && fr.literal_pos && !fr.prose && len >= MIN_DATA_BYTES) {
        /* Drop ranges recorded inside this one. */
        while (sc->starts.n && sc->starts.v[sc->starts.n - 1] > fr.open) {
            sc->starts.n--;
            sc->ends.n--;
        }
        core_vec_push(&sc->starts, fr.open + 1);
        core_vec_push(&sc->ends, (uint32_t)i);
    }
    if (sc->depth > 0) {
        sc->stack[sc->depth - 1].pure &= fr.pure && fr.literal_pos;
        sc->stack[sc->depth - 1].prose |= fr.prose;
    }
    sc->prev = PT_VALUE;
}

uint32_t graph__py_data_ranges(const char *s, size_t n, uint32_t **out_starts, uint32_t **out_ends)
{
    scan scanner = {.prev = PT_NONE};
    scan *sc = &scanner;
    bool overflow = false;
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '#') {
            const char *nl = memchr(s + i, '\n', n - i);
            i = nl ? (size_t)(nl - s) : n;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\\') {
            i++;
            continue;
        }
        if (c == '\n') {
            if (sc->depth == 0)
                sc->prev = PT_NONE;
            i++;
            continue;
        }
        if (c == '"' || c == '\'') {
            bool prose = false, interp = false;
            str_kind kind;
            i = skip_string(s, n, i, false, &prose, &interp, &kind);
            note_string(sc, prose, interp, kind);
            continue;
        }
        if (is_ident_start(c)) {
            i = scan_name(sc, s, n, i);
            continue;
        }
        if (isdigit(c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
            size_t j = i + 1;
            /* Digits, letters (hex, exponents, j), dots, underscores, and a
             * sign right after an exponent. */
            while (j < n &&
                   (isalnum((unsigned char)s[j]) || s[j] == '.' || s[j] == '_' ||
                    ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
                j++;
            sc->prev = PT_VALUE;
            sc->entry = 0;
            i = j;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            if (sc->depth == MAX_STACK) {
                overflow = true;
                break;
            }
            if (sc->depth > 0 && sc->prev == PT_VALUE)
                sc->stack[sc->depth - 1].pure = false; /* a call or subscript inside */
            sc->stack[sc->depth++] = (frame){(uint32_t)i, sc->prev != PT_VALUE, true, false};
            sc->prev = PT_OP;
            sc->entry = 0;
            i++;
            continue;
        }
        if (c == ')' || c == ']' || c == '}') {
            sc->entry = 0;
            close_bracket(sc, i);
            i++;
            continue;
        }
        /* Operators and punctuation. Inside a display only , : and unary
         * signs keep it data. */
        if (sc->depth > 0 && c != ',' && c != ':' && c != '-' && c != '+')
            sc->stack[sc->depth - 1].pure = false;
        sc->entry = c == ':' && sc->entry == 1 ? 2 : 0;
        sc->prev = PT_OP;
        i++;
    }
    uint32_t count = 0;
    if (overflow) {
        core_vec_free(&sc->starts);
        core_vec_free(&sc->ends);
    } else {
        *out_starts = sc->starts.v;
        *out_ends = sc->ends.v;
        count = (uint32_t)sc->starts.n;
    }
    return count;
}
