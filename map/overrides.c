/*
 * Manual overrides: activities mapped to code by hand, from a YAML file of
 * rules whose patterns are globs or PCRE2 regexes (map_overrides_load,
 * map.h).
 */
#define _GNU_SOURCE /* memrchr */
#include "core_cfg.h"
#include "map_int.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* ------------------------------------------------------------------ */
/* Globs on activity text                                              */
/* ------------------------------------------------------------------ */

/*
 * Decodes the UTF-8 character at s (n > 0 bytes) and writes its length. A
 * byte that does not start a valid sequence is one character of its own,
 * decoded above the Unicode range so that it equals only itself.
 */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    size_t l = core_utf8_valid_prefix((const char *)s, n < 4 ? n : 4);
    uint32_t c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (want == 0 || l < want) {
        *len = 1;
        return 0x110000u + c;
    }
    c &= 0x7fu >> want;
    for (size_t i = 1; i < want; i++)
        c = (c << 6) | (s[i] & 0x3fu);
    *len = want;
    return c;
}

/* A pattern character, with '\' escaping the next one. */
static uint32_t glob_char(const unsigned char *p, size_t n, size_t *i)
{
    size_t len;
    if (p[*i] == '\\' && *i + 1 < n)
        (*i)++;
    uint32_t c = utf8_next(p + *i, n - *i, &len);
    *i += len;
    return c;
}

/*
 * Matches c against the class that starts at p[*i] == '['; on return *i is
 * just past the closing ']'. Returns 1 (match), 0, or -1 when the class is
 * not closed.
 */
static int glob_class(const unsigned char *p, size_t n, size_t *i, uint32_t c)
{
    size_t k = *i + 1;
    bool negate = k < n && (p[k] == '!' || p[k] == '^');
    if (negate)
        k++;
    bool hit = false, first = true;
    while (k < n) {
        if (p[k] == ']' && !first) {
            *i = k + 1;
            return hit != negate;
        }
        first = false;
        uint32_t lo = glob_char(p, n, &k), hi = lo;
        if (k + 1 < n && p[k] == '-' && p[k + 1] != ']') {
            k++;
            hi = glob_char(p, n, &k);
        }
        hit |= lo <= c && c <= hi;
    }
    return -1;
}

/* Offset of the first unclosed '[' of a glob, or SIZE_MAX when it is fine. */
static size_t glob_check(const char *pat, size_t n)
{
    const unsigned char *p = (const unsigned char *)pat;
    for (size_t i = 0; i < n;) {
        if (p[i] == '[') {
            size_t at = i;
            if (glob_class(p, n, &i, 0) < 0)
                return at;
        } else {
            glob_char(p, n, &i);
        }
    }
    return SIZE_MAX;
}

/*
 * Whole-string glob match: '*' is any text (across '/', unlike
 * core_glob_match, which is for paths), '?' one character, [a-z] [!x] [^x]
 * classes, '\' escapes. Characters are UTF-8 code points. Backtracks only
 * to the last '*', so the cost is O(pattern * text) at worst.
 */
static bool glob_match(const char *pat, size_t pn, const char *txt, size_t tn)
{
    const unsigned char *p = (const unsigned char *)pat, *t = (const unsigned char *)txt;
    size_t pi = 0, ti = 0, star_p = SIZE_MAX, star_t = 0;
    while (ti < tn) {
        if (pi < pn && p[pi] == '*') {
            while (pi < pn && p[pi] == '*')
                pi++;
            star_p = pi;
            star_t = ti;
            continue;
        }
        if (pi < pn) {
            size_t tl, q = pi;
            uint32_t tc = utf8_next(t + ti, tn - ti, &tl);
            bool ok;
            if (p[pi] == '?') {
                q++;
                ok = true;
            } else if (p[pi] == '[') {
                ok = glob_class(p, pn, &q, tc) == 1;
            } else {
                ok = glob_char(p, pn, &q) == tc;
            }
            if (ok) {
                pi = q;
                ti += tl;
                continue;
            }
        }
        if (star_p == SIZE_MAX)
            return false;
        size_t tl;
        utf8_next(t + star_t, tn - star_t, &tl);
        star_t += tl;
        ti = star_t;
        pi = star_p;
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

/* ------------------------------------------------------------------ */
/* Overrides                                                           */
/* ------------------------------------------------------------------ */

typedef struct {
    char *glob; /* NULL for a regex */
    size_t globlen;
    pcre2_code *re;
    uint32_t first, nsyms; /* into map_overrides.syms */
    float conf;
} override_rule;

struct map_overrides {
    override_rule *rules;
    uint32_t nrules;
    uint32_t *syms;
    /*
     * Match data for regexes, reused across calls: a call takes one from
     * the pool (or makes one) and gives it back, so that threads never
     * share one and the pool grows only to the number of threads that
     * match at the same time.
     */
    pthread_mutex_t lock;
    core_vec(pcre2_match_data *) pool;
};

typedef struct {
    const char *path;
    const graph *g;
    yaml_document_t *doc;
    core_vec(override_rule) rules;
    core_vec(uint32_t) syms;
    char *why;
    size_t whylen;
    int rc;
} ov_loader;

static bool ov_fail(ov_loader *l, int rc, const yaml_node_t *at, const char *fmt, ...)
    CORE_PRINTF(4, 5);
static bool ov_fail(ov_loader *l, int rc, const yaml_node_t *at, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->why, l->whylen, "%s:%zu: %s", l->path, at ? at->start_mark.line + 1 : 0, msg);
    l->rc = rc;
    return false;
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* "/body/flags" is a regex when flags are letters; anything else a glob. */
static bool is_regex(const char *s, size_t n, size_t *close)
{
    if (n < 2 || s[0] != '/')
        return false;
    const char *last = memrchr(s + 1, '/', n - 1);
    if (!last)
        return false;
    for (const char *f = last + 1; f < s + n; f++)
        if (!((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z')))
            return false;
    *close = (size_t)(last - s);
    return true;
}

static bool ov_pattern(ov_loader *l, const yaml_node_t *v, override_rule *r)
{
    const char *s = scalar(v);
    size_t n = v->data.scalar.length, close;
    if (n == 0)
        return ov_fail(l, CORE_EFORMAT, v, "'activity' is empty");
    if (!is_regex(s, n, &close)) {
        size_t at = glob_check(s, n);
        if (at != SIZE_MAX)
            return ov_fail(l, CORE_EFORMAT, v,
                           "'activity' glob '%s': '[' at offset %zu is not closed", s, at);
        r->glob = core_xstrndup(s, n);
        r->globlen = n;
        return true;
    }
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    for (size_t i = close + 1; i < n; i++) {
        if (s[i] != 'i')
            return ov_fail(l, CORE_EFORMAT, v,
                           "'activity' regex '%s': unknown flag '%c' (the only flag is i)", s,
                           s[i]);
        opts |= PCRE2_CASELESS;
    }
    int err;
    PCRE2_SIZE off;
    r->re = pcre2_compile((PCRE2_SPTR)s + 1, close - 1, opts, &err, &off, NULL);
    if (!r->re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", err);
        return ov_fail(l, CORE_EFORMAT, v, "'activity' regex '%s': %s at offset %zu", s,
                       (const char *)msg, (size_t)off);
    }
    /* Without JIT support the interpreter matches; nothing to report. */
    (void)pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
    return true;
}

static bool ov_symbol(ov_loader *l, const yaml_node_t *v, uint32_t first)
{
    if (v->type != YAML_SCALAR_NODE || v->data.scalar.length == 0)
        return ov_fail(l, CORE_EFORMAT, v, "'symbols' must be a list of symbol names");
    const char *name = scalar(v);
    uint32_t ids[5];
    uint32_t n = graph_find(l->g, name, ids, 5);
    if (n == 0)
        return ov_fail(l, CORE_ENOTFOUND, v, "symbol '%s' matches nothing in the graph", name);
    if (n > 1) {
        core_buf b = {0};
        for (uint32_t i = 0; i < n && i < 5; i++) {
            graph_symbol s;
            graph_get_symbol(l->g, ids[i], &s);
            core_buf_printf(&b, "%s%s", i ? ", " : "", s.qualname);
        }
        ov_fail(l, CORE_EAMBIGUOUS, v,
                "symbol '%s' is ambiguous: %u matches (%s%s); give more of its qualified name",
                name, n, b.data, n > 5 ? ", ..." : "");
        core_buf_free(&b);
        return false;
    }
    for (size_t i = first; i < l->syms.n; i++) {
        if (l->syms.v[i] == ids[0]) {
            graph_symbol s;
            graph_get_symbol(l->g, ids[0], &s);
            return ov_fail(l, CORE_EFORMAT, v, "symbol '%s' (%s) is listed twice in this rule",
                           name, s.qualname);
        }
    }
    core_vec_push(&l->syms, ids[0]);
    return true;
}

static bool ov_rule(ov_loader *l, const yaml_node_t *node)
{
    if (node->type != YAML_MAPPING_NODE)
        return ov_fail(l, CORE_EFORMAT, node,
                       "each rule must be a mapping with 'activity' and 'symbols'");
    static const char *const keys[] = {"activity", "symbols", "confidence"};
    const yaml_node_t *val[3] = {0};
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(l->doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE)
            return ov_fail(l, CORE_EFORMAT, k ? k : node, "keys must be plain names");
        size_t i = 0;
        while (i < 3 && strcmp(scalar(k), keys[i]) != 0)
            i++;
        if (i == 3)
            return ov_fail(l, CORE_EFORMAT, k,
                           "unknown key '%s' (allowed: activity, symbols, confidence)", scalar(k));
        if (val[i])
            return ov_fail(l, CORE_EFORMAT, k, "key '%s' is given twice (first at line %zu)",
                           keys[i], val[i]->start_mark.line + 1);
        val[i] = v;
    }
    if (!val[0])
        return ov_fail(l, CORE_EFORMAT, node, "rule has no 'activity'");
    if (!val[1])
        return ov_fail(l, CORE_EFORMAT, node, "rule has no 'symbols'");
    override_rule r = {.first = (uint32_t)l->syms.n, .conf = 1.0f};
    /* Pushed first, so that a failure below frees what it holds. */
    core_vec_push(&l->rules, r);
    override_rule *rp = &l->rules.v[l->rules.n - 1];
    if (val[0]->type != YAML_SCALAR_NODE)
        return ov_fail(l, CORE_EFORMAT, val[0], "'activity' must be a text pattern, not a %s",
                       val[0]->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
    if (!ov_pattern(l, val[0], rp))
        return false;
    const yaml_node_t *sv = val[1];
    if (sv->type != YAML_SEQUENCE_NODE ||
        sv->data.sequence.items.start == sv->data.sequence.items.top)
        return ov_fail(l, CORE_EFORMAT, sv, "'symbols' must be a non-empty list of symbol names");
    for (yaml_node_item_t *it = sv->data.sequence.items.start; it < sv->data.sequence.items.top;
         it++) {
        yaml_node_t *s = yaml_document_get_node(l->doc, *it);
        if (!s || !ov_symbol(l, s, rp->first))
            return s ? false : ov_fail(l, CORE_EFORMAT, sv, "'symbols' has a bad item");
    }
    rp->nsyms = (uint32_t)(l->syms.n - rp->first);
    if (val[2]) {
        const yaml_node_t *c = val[2];
        char *end = NULL;
        double d = c->type == YAML_SCALAR_NODE ? strtod(scalar(c), &end) : NAN;
        if (!end || end == scalar(c) || *end || !(d > 0 && d <= 1))
            return ov_fail(l, CORE_EFORMAT, c, "'confidence' must be a number in (0, 1], not '%s'",
                           c->type == YAML_SCALAR_NODE ? scalar(c) : "a list or mapping");
        rp->conf = (float)d;
    }
    return true;
}

static void free_rules(override_rule *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].glob);
        pcre2_code_free(r[i].re);
    }
    free(r);
}

int map_overrides_load(const char *path, const graph *g, map_overrides **out, char *why,
                       size_t whylen)
{
    if (!why)
        whylen = 0;
    yaml_document_t doc;
    int rc = core_yaml_load_file(path, &doc, why, whylen);
    if (rc)
        return rc;
    ov_loader l = {.path = path, .g = g, .doc = &doc, .why = why, .whylen = whylen};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool ok = true;
    if (root && root->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = root->data.sequence.items.start;
             ok && it < root->data.sequence.items.top; it++) {
            yaml_node_t *node = yaml_document_get_node(&doc, *it);
            ok = node ? ov_rule(&l, node) : ov_fail(&l, CORE_EFORMAT, root, "bad list item");
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)) {
        ok = ov_fail(&l, CORE_EFORMAT, root,
                     "the top level must be a list of rules (- activity: ..., symbols: [...])");
    }
    yaml_document_delete(&doc);
    if (!ok) {
        free_rules(l.rules.v, l.rules.n);
        core_vec_free(&l.syms);
        return l.rc;
    }
    map_overrides *o = core_xcalloc(1, sizeof *o);
    o->rules = l.rules.v;
    o->nrules = (uint32_t)l.rules.n;
    o->syms = l.syms.v;
    pthread_mutex_init(&o->lock, NULL);
    *out = o;
    return 0;
}

void map_overrides_free(map_overrides *o)
{
    if (!o)
        return;
    free_rules(o->rules, o->nrules);
    free(o->syms);
    for (size_t i = 0; i < o->pool.n; i++)
        pcre2_match_data_free(o->pool.v[i]);
    core_vec_free(&o->pool);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

uint32_t map_overrides_count(const map_overrides *o)
{
    return o ? o->nrules : 0;
}

static bool regex_match(const map_overrides *co, const pcre2_code *re, const char *s, size_t n,
                        pcre2_match_data **md)
{
    /* The pool is the one mutable part; the rules are never written. */
    map_overrides *o = (map_overrides *)co;
    if (!*md) {
        pthread_mutex_lock(&o->lock);
        if (o->pool.n)
            *md = o->pool.v[--o->pool.n];
        pthread_mutex_unlock(&o->lock);
        /* One pair is enough: only whether it matched is wanted. */
        if (!*md && !(*md = pcre2_match_data_create(1, NULL)))
            core_panic("out of memory (pcre2 match data)");
    }
    /* Errors (a match or depth limit hit) count as no match. */
    return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, *md, NULL) >= 0;
}

uint32_t map_overrides_match(const map_overrides *o, const char *activity, size_t len,
                             uint32_t *syms, float *conf, uint32_t max, uint32_t *rule)
{
    if (!o)
        return 0;
    pcre2_match_data *md = NULL;
    uint32_t found = 0;
    for (uint32_t i = 0; i < o->nrules; i++) {
        const override_rule *r = &o->rules[i];
        bool hit = r->glob ? glob_match(r->glob, r->globlen, activity, len)
                           : regex_match(o, r->re, activity, len, &md);
        if (!hit)
            continue;
        for (uint32_t k = 0; k < r->nsyms && k < max; k++) {
            syms[k] = o->syms[r->first + k];
            if (conf)
                conf[k] = r->conf / (float)r->nsyms;
        }
        if (rule)
            *rule = i;
        found = r->nsyms;
        break;
    }
    if (md) {
        map_overrides *mo = (map_overrides *)o;
        pthread_mutex_lock(&mo->lock);
        /* NOLINTNEXTLINE(bugprone-sizeof-expression): the pool's elements are pointers */
        core_vec_push(&mo->pool, md);
        pthread_mutex_unlock(&mo->lock);
    }
    return found;
}
