/* The tree-sitter allocator: per-thread parse arenas (see graph_int.h). */
#define _GNU_SOURCE
#include "graph_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define TSALLOC_DISABLED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSALLOC_DISABLED 1
#endif
#endif

typedef struct {
    char *base;
    size_t cap, used, high;
    bool active;
    bool overflowed; /* this file spilled to the heap */
    bool failed;     /* reserving address space failed once; do not retry */
} tarena;

static _Thread_local tarena ta;

/* After a file that used more than this, the pages above it go back. */
#define KEEP_BYTES ((size_t)64 << 20)

#ifndef TSALLOC_DISABLED
/*
 * Every block carries a 16-byte header: its usable size and where it came
 * from. Tree-sitter's free/realloc may see either kind, so both need it.
 */
#define TAG_HEAP 0x68656170u
#define TAG_ARENA 0x6172656eu

typedef struct {
    size_t size;
    uint32_t tag;
    uint32_t pad;
} hdr;

/* Address space reserved per thread; pages are only committed when used.
 * A parse needs roughly 50-100 times the size of its file. */
static const size_t reserve_sizes[] = {(size_t)4 << 30, (size_t)1 << 30, (size_t)256 << 20};

static void *heap_alloc(size_t n)
{
    hdr *h = malloc(sizeof(hdr) + n);
    if (!h)
        core_panic("out of memory in the parser (%zu bytes)", n);
    h->size = n;
    h->tag = TAG_HEAP;
    return h + 1;
}

static void *ta_malloc(size_t n)
{
    if (ta.active) {
        size_t need = sizeof(hdr) + ((n + 15) & ~(size_t)15);
        if (ta.used + need <= ta.cap) {
            hdr *h = (hdr *)(ta.base + ta.used);
            ta.used += need;
            h->size = n;
            h->tag = TAG_ARENA;
            return h + 1;
        }
        /* Arena exhausted: the rest of this file goes to the heap, and
         * its trees must be freed the normal way. */
        ta.overflowed = true;
    }
    return heap_alloc(n);
}

static void *ta_calloc(size_t count, size_t n)
{
    if (n && count > SIZE_MAX / n)
        core_panic("parser allocation overflow");
    void *p = ta_malloc(count * n);
    memset(p, 0, count * n);
    return p;
}

static void ta_free(void *p)
{
    if (!p)
        return;
    hdr *h = (hdr *)p - 1;
    if (h->tag == TAG_HEAP) {
        h->tag = 0;
        free(h);
    }
    /* Arena blocks go when the arena is dropped. */
}

static void *ta_realloc(void *p, size_t n)
{
    if (!p)
        return ta_malloc(n);
    hdr *h = (hdr *)p - 1;
    if (h->tag == TAG_HEAP) {
        hdr *nh = realloc(h, sizeof(hdr) + n);
        if (!nh)
            core_panic("out of memory in the parser (%zu bytes)", n);
        nh->size = n;
        return nh + 1;
    }
    if (n <= h->size) {
        h->size = n;
        return p;
    }
    /* The last block of the arena grows in place: tree-sitter's arrays are
     * usually reallocated right after they are filled. */
    char *end = (char *)p + ((h->size + 15) & ~(size_t)15);
    size_t grow = ((n + 15) & ~(size_t)15) - ((h->size + 15) & ~(size_t)15);
    if (ta.active && end == ta.base + ta.used && ta.used + grow <= ta.cap) {
        ta.used += grow;
        h->size = n;
        return p;
    }
    void *q = ta_malloc(n);
    memcpy(q, p, h->size);
    return q;
}

#endif /* TSALLOC_DISABLED */

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void install(void)
{
#ifndef TSALLOC_DISABLED
    ts_set_allocator(ta_malloc, ta_calloc, ta_realloc, ta_free);
#endif
}

void graph__tsalloc_install(void)
{
    pthread_once(&install_once, install);
}

#ifndef TSALLOC_DISABLED
static bool env_disabled;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void read_env(void)
{
    /* For valgrind runs: let it see every tree-sitter allocation. */
    const char *v = getenv("PMRAG_NO_PARSE_ARENA");
    env_disabled = v && *v && strcmp(v, "0") != 0;
}
#endif

bool graph__tsalloc_begin(void)
{
#ifdef TSALLOC_DISABLED
    return false;
#else
    pthread_once(&env_once, read_env);
    if (env_disabled)
        return false;
    if (!ta.base && !ta.failed) {
        for (size_t i = 0; i < sizeof reserve_sizes / sizeof reserve_sizes[0]; i++) {
            void *p = mmap(NULL, reserve_sizes[i], PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p != MAP_FAILED) {
                ta.base = p;
                ta.cap = reserve_sizes[i];
                break;
            }
        }
        if (!ta.base)
            ta.failed = true;
    }
    if (!ta.base)
        return false;
    ta.used = 0;
    ta.overflowed = false;
    ta.active = true;
    return true;
#endif
}

void graph__tsalloc_end(void)
{
    if (!ta.active)
        return;
    ta.active = false;
    if (ta.used > ta.high)
        ta.high = ta.used;
    if (ta.high > KEEP_BYTES) {
        madvise(ta.base + KEEP_BYTES, ta.high - KEEP_BYTES, MADV_DONTNEED);
        ta.high = KEEP_BYTES;
    }
    ta.used = 0;
}

bool graph__tsalloc_active(void)
{
    return ta.active && !ta.overflowed;
}
