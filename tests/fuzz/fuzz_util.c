/* Helpers of the fuzz targets (see fuzz.h). */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", file, line, what);
    abort();
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("pmrag-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) {
        perror("ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0) {
            perror("pwrite");
            abort();
        }
        done += (size_t)w;
    }
    return path;
}

/* Lengths go here, so that the compiler cannot drop the strlen() calls
 * that make AddressSanitizer read every byte. */
volatile size_t fuzz_sink;

void fuzz_check_event(const ingest_event *ev, size_t max_str, size_t max_case_id)
{
    FUZZ_CHECK(ev->case_id && ev->case_id[0]);
    FUZZ_CHECK(ev->activity);
    size_t n = strlen(ev->case_id);
    FUZZ_CHECK(!max_case_id || n <= max_case_id);
    n = strlen(ev->activity);
    FUZZ_CHECK(!max_str || n <= max_str);
    FUZZ_CHECK(ev->nattrs == 0 || ev->attrs);
    for (uint32_t i = 0; i < ev->nattrs; i++) {
        FUZZ_CHECK(ev->attrs[i].key && ev->attrs[i].val);
        fuzz_sink += strlen(ev->attrs[i].key);
        n = strlen(ev->attrs[i].val);
        /* The attribute that gave the case id is as whole as the id. */
        FUZZ_CHECK(!max_str || n <= max_str || strcmp(ev->attrs[i].val, ev->case_id) == 0);
        fuzz_sink += n;
    }
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    return core_xstrndup((const char *)data, size);
}
