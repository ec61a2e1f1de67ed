/*
 * The few string fields an indexer reads from a JSON project file
 * (core.h, core_json_strings), so that the code-graph library needs no
 * JSON parser of its own.
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

int core_json_strings(const char *data, size_t n, const char *const *paths, size_t npaths,
                      core_arena *a, char **out, size_t *len)
{
    json_error_t err;
    json_t *j = json_loadb(data, n, 0, &err);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        return -1;
    }
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
