/*
 * The few fields an indexer reads from a JSON project file (core.h,
 * core_json_strings, core_json_strings_under), so that the code-graph
 * library needs no JSON parser of its own.
 */
#include "core.h"

#include <jansson.h>
#include <string.h>

/* The member a dotted path names, or NULL. */
static json_t *member_at(json_t *obj, const char *path)
{
    char key[128];
    while (obj && json_is_object(obj)) {
        const char *dot = strchr(path, '.');
        size_t k = dot ? (size_t)(dot - path) : strlen(path);
        if (k >= sizeof key)
            return NULL;
        memcpy(key, path, k);
        key[k] = '\0';
        obj = json_object_get(obj, key);
        if (!dot)
            return obj;
        path = dot + 1;
    }
    return NULL;
}

/* data[0..n) parsed, when it is a JSON object (the caller decrefs it). */
static json_t *load_object(const char *data, size_t n)
{
    json_error_t err;
    json_t *j = json_loadb(data, n, 0, &err);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

int core_json_strings(const char *data, size_t n, const char *const *paths, size_t npaths,
                      core_arena *a, char **out, size_t *len)
{
    json_t *j = load_object(data, n);
    if (!j)
        return -1;
    for (size_t i = 0; i < npaths; i++) {
        json_t *v = member_at(j, paths[i]);
        out[i] = NULL;
        len[i] = 0;
        if (json_is_string(v)) {
            len[i] = json_string_length(v);
            out[i] = core_arena_strndup(a, json_string_value(v), len[i]);
        }
    }
    json_decref(j);
    return 0;
}

/* How deep strings_under follows objects and arrays: project files nest a
 * few levels (exports' conditions); deeper is no such file. */
#define LEAF_DEPTH 16

static void strings_under(json_t *v, const char **keys, size_t nkeys, core_json_leaf_fn fn,
                          void *ud)
{
    if (json_is_string(v)) {
        fn(ud, keys, nkeys, json_string_value(v), json_string_length(v));
    } else if (json_is_array(v) && nkeys < LEAF_DEPTH) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) strings_under(x, keys, nkeys, fn, ud);
    } else if (json_is_object(v) && nkeys < LEAF_DEPTH) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            keys[nkeys] = k;
            strings_under(x, keys, nkeys + 1, fn, ud);
        }
    }
}

int core_json_strings_under(const char *data, size_t n, const char *member, core_json_leaf_fn fn,
                            void *ud)
{
    json_t *j = load_object(data, n);
    if (!j)
        return -1;
    const char *keys[LEAF_DEPTH];
    json_t *v = member_at(j, member);
    if (v)
        strings_under(v, keys, 0, fn, ud);
    json_decref(j);
    return 0;
}
