/*
 * One event as one JSON object: the "json" encoding of Kafka records,
 * with the key names of our JSONL files (case_id, activity, timestamp) or
 * PM4Py's (case:concept:name, concept:name, time:timestamp).
 *
 * Values that are strings are pointed at where jansson keeps them; only
 * values that must be rendered (numbers, arrays, ...) or cut go into one
 * buffer per call.
 */
#include "otlp_int.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The first present (non-null) of two keys; *key gets its name. */
static const json_t *role(const json_t *root, const char *a, const char *b, const char **key)
{
    const json_t *v = json_object_get(root, a);
    *key = a;
    if (!v || json_is_null(v)) {
        v = json_object_get(root, b);
        *key = b;
    }
    if (v && json_is_null(v))
        v = NULL;
    if (!v)
        *key = a;
    return v;
}

/* A value quoted in a message: at most 60 bytes. */
static int quoted(size_t n)
{
    return n > 60 ? 60 : (int)n;
}

int ingest_event_json_decode(const void *buf, size_t len, const ingest_decode_opts *o,
                             int (*emit)(void *ud, const ingest_event *ev), void *ud, char *why,
                             size_t whylen)
{
    uint32_t max_attrs = o && o->max_attrs ? o->max_attrs : 128;
    size_t max_str = o && o->max_str ? o->max_str : 8192;
    json_error_t jerr;
    json_t *root = ingest__json_load(buf, len, &jerr);
    if (!root)
        return core_fail(why, whylen, CORE_EFORMAT, "offset %d: invalid JSON: %s", jerr.position,
                         jerr.text);
    core_buf text = {0};
    core_vec(ingest_attr) attrs = {0};
    core_vec(size_t) offs = {0}; /* per attribute: offset in text, or SIZE_MAX */
    int rc;
    if (!json_is_object(root)) {
        rc = core_fail(why, whylen, CORE_EFORMAT, "not a JSON object");
        goto done;
    }
    const char *ckey, *akey, *tkey;
    const json_t *cv = role(root, "case_id", "case:concept:name", &ckey);
    const json_t *av = role(root, "activity", "concept:name", &akey);
    const json_t *tv = role(root, "timestamp", "time:timestamp", &tkey);
    if (!cv) {
        rc = core_fail(why, whylen, CORE_EFORMAT,
                       "field 'case_id': missing (nor 'case:concept:name')");
        goto done;
    }
    if (!json_is_string(cv)) {
        rc = core_fail(why, whylen, CORE_EFORMAT, "field '%s': not a string", ckey);
        goto done;
    }
    if (!json_string_length(cv)) {
        rc = core_fail(why, whylen, CORE_EFORMAT, "field '%s': empty case id", ckey);
        goto done;
    }
    if (!av) {
        rc = core_fail(why, whylen, CORE_EFORMAT, "field 'activity': missing (nor 'concept:name')");
        goto done;
    }
    if (!json_is_string(av)) {
        rc = core_fail(why, whylen, CORE_EFORMAT, "field '%s': not a string", akey);
        goto done;
    }
    int64_t t = INGEST_NO_TIME;
    if (tv) {
        char num[64];
        const char *s = NULL;
        size_t n = 0;
        if (json_is_string(tv)) {
            s = json_string_value(tv);
            n = json_string_length(tv);
        } else if (json_is_integer(tv)) {
            n = (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(tv));
            s = num;
        } else if (json_is_real(tv)) {
            /* Full precision: "1700000000.25" must keep its fraction. */
            n = (size_t)snprintf(num, sizeof num, "%.17g", json_real_value(tv));
            s = num;
        }
        if (!s) {
            rc = core_fail(why, whylen, CORE_EFORMAT,
                           "field '%s': not a time (a string or a number)", tkey);
            goto done;
        }
        if (n && ingest_parse_time(s, n, &t) != 0) {
            rc = core_fail(why, whylen, CORE_EFORMAT, "field '%s': not a time: '%.*s'", tkey,
                           quoted(n), s);
            goto done;
        }
    }

    /* The activity is cut to max_str like any value; the case id never
     * (cut, two cases would become one): one too long is refused. */
    const char *case_id = json_string_value(cv), *activity = json_string_value(av);
    size_t act_off = SIZE_MAX;
    if (o && o->max_case_id && json_string_length(cv) > o->max_case_id) {
        rc = core_fail(why, whylen, CORE_EFORMAT,
                       "field '%s': case id of %zu bytes: longer than the %zu-byte limit", ckey,
                       json_string_length(cv), o->max_case_id);
        goto done;
    }
    if (json_string_length(av) > max_str) {
        act_off = text.len;
        core_buf_append(&text, activity, ingest__utf8_cut(activity, max_str));
        core_buf_putc(&text, 0);
    }

    const char *key;
    json_t *val;
    json_object_foreach(root, key, val)
    {
        if (val == cv || val == av || val == tv || json_is_null(val))
            continue;
        if (attrs.n >= max_attrs)
            break;
        if (json_is_string(val) && json_string_length(val) <= max_str) {
            core_vec_push(&attrs, ((ingest_attr){key, json_string_value(val)}));
            core_vec_push(&offs, SIZE_MAX);
            continue;
        }
        /* Rendered into text; pointed at once text stops moving. */
        size_t off = text.len;
        if (json_is_string(val))
            core_buf_append(&text, json_string_value(val), json_string_length(val));
        else
            ingest__json_text(val, &text);
        if (text.len - off > max_str)
            text.len = off + ingest__utf8_cut(text.data + off, max_str);
        core_buf_putc(&text, 0);
        core_vec_push(&attrs, ((ingest_attr){key, NULL}));
        core_vec_push(&offs, off);
    }
    for (size_t i = 0; i < attrs.n; i++)
        if (offs.v[i] != SIZE_MAX)
            attrs.v[i].val = text.data + offs.v[i];
    ingest_event ev = {
        .case_id = case_id,
        .activity = act_off == SIZE_MAX ? activity : text.data + act_off,
        .time_ns = t,
        .line = 0,
        .attrs = attrs.v,
        .nattrs = (uint32_t)attrs.n,
    };
    rc = emit(ud, &ev);
done:
    json_decref(root);
    core_buf_free(&text);
    core_vec_free(&attrs);
    core_vec_free(&offs);
    return rc;
}
