/*
 * The OTLP record builder (otlp_int.h): what the JSON and protobuf
 * decoders share, so that both encodings give the same events. A decoder
 * starts a record, hands it attributes, values and the resource's, and
 * finishes it: the builder applies the limits (attributes kept, string
 * lengths), picks the case id (the first case attribute of the record,
 * then of its resource, then the trace id), rejects what cannot be a
 * record on its own, and emits.
 */
#include "otlp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* ------------------------------------------------------------------ */
/* Record builder                                                      */
/* ------------------------------------------------------------------ */

static const char *const default_case_attrs[] = {"case.id", "session.id", "enduser.id"};

void ingest__otlp_init(ingest__otlp *c, const ingest_decode_opts *o, bool partial)
{
    memset(c, 0, sizeof *c);
    c->case_attrs = o && o->case_attrs ? o->case_attrs : default_case_attrs;
    c->ncase = o && o->case_attrs ? o->ncase : 3;
    c->partial = partial;
    c->max_case_id = o ? o->max_case_id : 0;
    c->max_attrs = UINT32_MAX;
    c->max_str = SIZE_MAX;
    if (partial) {
        c->max_attrs = o && o->max_attrs ? o->max_attrs : 128;
        c->max_str = o && o->max_str ? o->max_str : 8192;
    }
}

void ingest__otlp_free(ingest__otlp *c)
{
    core_buf_free(&c->text);
    core_buf_free(&c->res_case);
    core_vec_free(&c->offs);
    core_vec_free(&c->hidden);
    core_vec_free(&c->attrs);
}

/* "resourceSpans[0].scopeSpans[1].spans[2]" */
static void where(const ingest__otlp *c, core_buf *b)
{
    for (int l = 0; l < c->level; l++)
        core_buf_printf(b, "%s%s[%zu]", l ? "." : "", c->names[l], c->idx[l]);
}

static void vmessage(const ingest__otlp *c, char *out, size_t outlen, const char *field,
                     const char *fmt, va_list ap)
{
    core_buf b = {0};
    where(c, &b);
    if (field)
        core_buf_printf(&b, "%sfield '%s'", b.len ? ": " : "", field);
    core_buf_puts(&b, b.len ? ": " : "");
    core_buf_vprintf(&b, fmt, ap);
    snprintf(out, outlen, "%s", b.data);
    core_buf_free(&b);
}

int ingest__otlp_bad(ingest__otlp *c, const char *field, const char *fmt, ...)
{
    if (c->why && c->whylen) {
        va_list ap;
        va_start(ap, fmt);
        vmessage(c, c->why, c->whylen, field, fmt, ap);
        va_end(ap);
    }
    return CORE_EFORMAT;
}

int ingest__otlp_reject(ingest__otlp *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (c->dry) {
        va_end(ap);
        return 0;
    }
    if (!c->partial) {
        if (c->why && c->whylen)
            vmessage(c, c->why, c->whylen, field, fmt, ap);
        va_end(ap);
        return CORE_EFORMAT;
    }
    if (c->res->rejected++ == 0)
        vmessage(c, c->res->reject_reason, sizeof c->res->reject_reason, field, fmt, ap);
    va_end(ap);
    return 0;
}

void ingest__otlp_start(ingest__otlp *c, bool case_only)
{
    core_buf_reset(&c->text);
    c->offs.n = 0;
    c->hidden.n = 0;
    c->nown = 0;
    c->case_only = case_only;
    c->cut = false;
    c->long_case = false;
}

/* Resource attributes are not part of the event: cutting them is not a
 * truncation of the record. */
static void mark_cut(ingest__otlp *c)
{
    if (!c->case_only)
        c->cut = true;
}

size_t ingest__utf8_cut(const char *s, size_t max)
{
    size_t k = max;
    for (int i = 0; i < 3 && k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80; i++)
        k--;
    /* Still inside a run of continuation bytes: not UTF-8 anyway. */
    return ((unsigned char)s[k] & 0xc0) == 0x80 ? max : k;
}

/* Protobuf strings come here: invalid UTF-8 is read as U+FFFD, as in an
 * OTLP JSON body (ingest__json_load), so that both give the same event. */
void ingest__otlp_put(ingest__otlp *c, const char *s, size_t n)
{
    bool cut = false;
    if (n > c->max_str && !c->whole) {
        n = ingest__utf8_cut(s, c->max_str);
        cut = true;
    }
    size_t off = c->text.len;
    core_buf_utf8_repair(&c->text, s, n);
    /* A bad byte became three: max_str bounds what is kept. */
    if (!c->whole && c->text.len - off > c->max_str) {
        c->text.len = off + ingest__utf8_cut(c->text.data + off, c->max_str);
        cut = true;
    }
    if (cut)
        mark_cut(c);
}

static bool is_case_key(const ingest__otlp *c, const char *key, size_t klen)
{
    for (size_t a = 0; a < c->ncase; a++)
        if (strlen(c->case_attrs[a]) == klen && memcmp(c->case_attrs[a], key, klen) == 0)
            return true;
    return false;
}

bool ingest__otlp_attr_begin(ingest__otlp *c, const char *key, size_t klen)
{
    bool is_case = is_case_key(c, key, klen);
    bool keep = !c->case_only && c->offs.n / 2 < c->max_attrs;
    if (!keep) {
        /* Over the cap it is dropped from the event, but may still be the
         * case id. */
        mark_cut(c);
        if (!is_case)
            return false;
    }
    bool visible = keep || c->case_only;
    if (visible)
        core_vec_push(&c->offs, c->text.len);
    else
        core_vec_push(&c->hidden, c->text.len);
    /* A case key is never cut: it must still match. Nor is its value:
     * cut, two long ids would be one case (one too long is refused at
     * the end of the record). */
    c->whole = is_case;
    if (is_case)
        core_buf_append(&c->text, key, klen);
    else
        ingest__otlp_put(c, key, klen);
    core_buf_putc(&c->text, 0);
    if (visible)
        core_vec_push(&c->offs, c->text.len);
    else
        core_vec_push(&c->hidden, c->text.len);
    c->value_off = c->text.len;
    return true;
}

size_t ingest__otlp_value_begin(ingest__otlp *c)
{
    return c->text.len;
}

void ingest__otlp_value_end(ingest__otlp *c, size_t off)
{
    size_t n = c->text.len - off;
    if (n > c->max_str && !c->whole) {
        c->text.len = off + ingest__utf8_cut(c->text.data + off, c->max_str);
        mark_cut(c);
    } else if (n > c->max_str) {
        c->long_case = true;
    }
    core_buf_putc(&c->text, 0);
}

/* Only the value that became the case id stays whole: another case key's
 * value is an attribute like any other, bounded by max_str. */
static void cut_other_cases(ingest__otlp *c, size_t case_off)
{
    for (size_t i = 1; i < c->offs.n; i += 2) {
        char *v = c->text.data + c->offs.v[i];
        if (c->offs.v[i] == case_off || strlen(v) <= c->max_str)
            continue;
        v[ingest__utf8_cut(v, c->max_str)] = 0;
        mark_cut(c);
    }
}

void ingest__otlp_attr_end(ingest__otlp *c)
{
    ingest__otlp_value_end(c, c->value_off);
    c->whole = false;
}

void ingest__otlp_own_done(ingest__otlp *c)
{
    c->nown = c->offs.n;
}

void ingest__otlp_extra(ingest__otlp *c, const char *key, const char *val, size_t vlen)
{
    core_vec_push(&c->offs, c->text.len);
    core_buf_puts(&c->text, key);
    core_buf_putc(&c->text, 0);
    core_vec_push(&c->offs, c->text.len);
    ingest__otlp_put(c, val, vlen);
    core_buf_putc(&c->text, 0);
}

/* The first case attribute with a non-empty value, in order of preference
 * and then of the attributes (the kept ones come before the hidden ones
 * on the wire too); an offset into text, SIZE_MAX if none. */
static size_t find_case(const ingest__otlp *c, size_t nkept)
{
    const char *t = c->text.data;
    for (size_t a = 0; a < c->ncase; a++) {
        for (size_t i = 0; i + 1 < nkept; i += 2)
            if (strcmp(t + c->offs.v[i], c->case_attrs[a]) == 0 && t[c->offs.v[i + 1]])
                return c->offs.v[i + 1];
        for (size_t i = 0; i + 1 < c->hidden.n; i += 2)
            if (strcmp(t + c->hidden.v[i], c->case_attrs[a]) == 0 && t[c->hidden.v[i + 1]])
                return c->hidden.v[i + 1];
    }
    return SIZE_MAX;
}

void ingest__otlp_resource_done(ingest__otlp *c)
{
    c->has_res_case = false;
    size_t off = find_case(c, c->offs.n);
    if (off != SIZE_MAX) {
        core_buf_reset(&c->res_case);
        core_buf_puts(&c->res_case, c->text.data + off);
        c->has_res_case = true;
    }
}

bool ingest__otlp_zero_hex(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '0')
            return false;
    return true;
}

int ingest__otlp_finish(ingest__otlp *c, const char *trace_hex, size_t tlen, size_t act_off,
                        int64_t t, ingest_kind kind, int64_t end)
{
    if (c->dry)
        return 0;
    size_t case_off = find_case(c, c->nown);
    if (case_off == SIZE_MAX) {
        const char *src = NULL;
        size_t n = 0;
        if (c->has_res_case) {
            src = c->res_case.data;
            n = c->res_case.len;
        } else if (tlen && !(c->partial && ingest__otlp_zero_hex(trace_hex, tlen))) {
            src = trace_hex;
            n = tlen;
        }
        if (!src) {
            char keys[256] = "";
            size_t kl = 0;
            for (size_t a = 0; a < c->ncase && kl < sizeof keys; a++)
                kl += (size_t)snprintf(keys + kl, sizeof keys - kl, "'%s', ", c->case_attrs[a]);
            return ingest__otlp_reject(c, NULL, "no case id: no attribute %sand no trace id", keys);
        }
        case_off = c->text.len;
        c->whole = true;
        ingest__otlp_put(c, src, n);
        c->whole = false;
        core_buf_putc(&c->text, 0);
    }
    size_t clen = strlen(c->text.data + case_off);
    if (c->max_case_id && clen > c->max_case_id)
        return ingest__otlp_reject(c, NULL, "case id of %zu bytes: longer than the %zu-byte limit",
                                   clen, c->max_case_id);
    if (c->long_case)
        cut_other_cases(c, case_off);
    c->attrs.n = 0;
    core_vec_reserve(&c->attrs, c->offs.n / 2);
    for (size_t i = 0; i + 1 < c->offs.n; i += 2)
        c->attrs.v[c->attrs.n++] =
            (ingest_attr){c->text.data + c->offs.v[i], c->text.data + c->offs.v[i + 1]};
    ingest_event ev = {
        .case_id = c->text.data + case_off,
        .activity = c->text.data + act_off,
        .time_ns = t,
        .line = 0,
        .attrs = c->attrs.v,
        .nattrs = (uint32_t)c->attrs.n,
        .kind = kind,
        .end_ns = end,
    };
    int rc = c->emit(c->ud, &ev);
    if (rc == 0) {
        c->res->accepted++;
        c->res->truncated += c->cut;
    }
    return rc;
}
