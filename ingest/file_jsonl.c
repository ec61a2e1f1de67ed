/*
 * JSONL event logs: one JSON object per line, keys as the CSV header's.
 * Blank lines are skipped. Values that are not strings become their JSON
 * text (numbers in shortest form, true, false, arrays and objects as
 * compact JSON); a null is as if the key were absent.
 */
#include "ingest_int.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct jsonl_state {
    json_t *root;             /* the current record */
    core_buf text;            /* rendered values that are not strings */
    core_vec(ingest_attr) kv; /* the record's fields */
    core_vec(size_t) offs;    /* offset in text of each field, or SIZE_MAX */
} jsonl_state;

static void render(const json_t *v, core_buf *out, bool top)
{
    switch (json_typeof(v)) {
    case JSON_STRING:
        if (top)
            core_buf_append(out, json_string_value(v), json_string_length(v));
        else
            core_buf_json_str(out, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        core_buf_printf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        core_buf_json_double(out, json_real_value(v));
        break;
    case JSON_TRUE:
        core_buf_puts(out, "true");
        break;
    case JSON_FALSE:
        core_buf_puts(out, "false");
        break;
    case JSON_NULL:
        core_buf_puts(out, "null");
        break;
    case JSON_ARRAY: {
        core_buf_putc(out, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                core_buf_putc(out, ',');
            render(json_array_get(v, i), out, false);
        }
        core_buf_putc(out, ']');
        break;
    }
    case JSON_OBJECT: {
        const char *key;
        json_t *val;
        bool first = true;
        core_buf_putc(out, '{');
        /* jansson iterates in insertion order: the order of the text. */
        json_object_foreach((json_t *)v, key, val)
        {
            if (!first)
                core_buf_putc(out, ',');
            first = false;
            core_buf_json_str(out, key, strlen(key));
            core_buf_putc(out, ':');
            render(val, out, false);
        }
        core_buf_putc(out, '}');
        break;
    }
    }
}

void ingest__json_text(const json_t *v, core_buf *out)
{
    render(v, out, true);
}

static int jsonl_open(ingest_file *f, char *why, size_t whylen)
{
    (void)why;
    (void)whylen;
    f->state = core_xcalloc(1, sizeof(jsonl_state));
    return 0;
}

static int jsonl_next(ingest_file *f, ingest_event *ev, char *why, size_t whylen)
{
    jsonl_state *s = f->state;
    const char *p;
    size_t n;
    int rc = ingest__reader_text_line(&f->rd, &p, &n, why, whylen);
    if (rc <= 0)
        return rc;
    f->st.records++;
    unsigned long long line = f->rd.line;
    json_decref(s->root);
    json_error_t jerr;
    s->root = json_loadb(p, n, 0, &jerr);
    if (!s->root)
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: column %d: invalid JSON: %s", f->path,
                         line, jerr.column, jerr.text);
    if (!json_is_object(s->root))
        return core_fail(why, whylen, INGEST__BAD, "%s:%llu: not a JSON object", f->path, line);
    core_buf_reset(&s->text);
    s->kv.n = 0;
    s->offs.n = 0;
    const char *key;
    json_t *val;
    json_object_foreach(s->root, key, val)
    {
        if (json_is_null(val))
            continue;
        if (json_is_string(val)) {
            core_vec_push(&s->kv, ((ingest_attr){key, json_string_value(val)}));
            core_vec_push(&s->offs, SIZE_MAX);
        } else {
            /* Rendered into text; pointed at once text stops moving. */
            core_vec_push(&s->kv, ((ingest_attr){key, NULL}));
            core_vec_push(&s->offs, s->text.len);
            ingest__json_text(val, &s->text);
            core_buf_putc(&s->text, 0);
        }
    }
    for (size_t i = 0; i < s->kv.n; i++)
        if (s->offs.v[i] != SIZE_MAX)
            s->kv.v[i].val = s->text.data + s->offs.v[i];
    ingest__roles roles;
    ingest__find_roles(f, s->kv.v, (uint32_t)s->kv.n, &roles);
    rc = ingest__make_event(f, s->kv.v, (uint32_t)s->kv.n, &roles, line, ev, why, whylen);
    return rc == 0 ? 1 : rc;
}

static void jsonl_close(ingest_file *f)
{
    jsonl_state *s = f->state;
    if (!s)
        return;
    json_decref(s->root);
    core_buf_free(&s->text);
    core_vec_free(&s->kv);
    core_vec_free(&s->offs);
    free(s);
    f->state = NULL;
}

const ingest__backend ingest__jsonl_backend = {jsonl_open, jsonl_next, jsonl_close};
