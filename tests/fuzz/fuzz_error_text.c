/*
 * The reading of an error logged whole (map__error_message, map/errtext.c):
 * any bytes a log line may hold. What it reads is never longer than the
 * line, is terminated, and is read the same way twice; out of a stack (a
 * line that is no JSON object) it is a piece of the line as it is. The
 * one-line reading (map__error_named) gives the text after the name, and
 * the text before key=value fields (map__kv_head) or an elapsed time
 * (map__elapsed_head) is a first part of the line, ending in no blank.
 * A JavaScript stack's frames (map__stack_frame) move forward through
 * the line, each an absolute path found in it and a line number.
 */
#define _GNU_SOURCE /* memmem */
#include "fuzz.h"
#include "map_int.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    core_buf a = {0}, b = {0};
    bool got = map__error_message(s, size, &a);
    FUZZ_CHECK(map__error_message(s, size, &b) == got);
    if (got) {
        FUZZ_CHECK(a.len > 0 && a.len <= size);
        FUZZ_CHECK(a.data[a.len] == '\0');
        FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
        size_t k = 0;
        while (k < size && (s[k] == ' ' || (s[k] >= '\t' && s[k] <= '\r')))
            k++;
        if (k == size || s[k] != '{')
            FUZZ_CHECK(memmem(s, size, a.data, a.len) != NULL);
    }
    const char *name;
    size_t nl;
    if (map__error_named(s, size, &name, &nl, &a)) {
        FUZZ_CHECK(name >= s && nl > 0 && name + nl + 2 + a.len <= s + size);
        FUZZ_CHECK(name[nl] == ':' && memcmp(name + nl + 2, a.data, a.len) == 0);
    }
    for (int k = 0; k < 3; k++) {
        size_t h = k < 2 ? map__kv_head(s, size, k == 1) : map__elapsed_head(s, size);
        FUZZ_CHECK(h <= size);
        if (h < size)
            FUZZ_CHECK(h > 0 && !(s[h - 1] == ' ' || (s[h - 1] >= '\t' && s[h - 1] <= '\r')));
    }
    FUZZ_CHECK(map__first_line(s, size) <= size);
    map_frame f;
    size_t at = 0, last = 0;
    while (map__stack_frame(s, size, &at, &f)) {
        FUZZ_CHECK(at > last && at <= size && f.line > 0);
        FUZZ_CHECK(f.path[0] == '/' && memmem(s, size, f.path, strlen(f.path)) != NULL);
        FUZZ_CHECK(strlen(f.name) < sizeof f.name);
        last = at;
    }
    FUZZ_CHECK(at == size);
    core_buf_free(&a);
    core_buf_free(&b);
    return 0;
}
