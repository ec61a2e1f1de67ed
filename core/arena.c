/* Bump allocation from large blocks. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define CORE_ARENA_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORE_ARENA_MALLOC 1
#endif
#endif

struct core_arena_block {
    core_arena_block *next;
    size_t size, pos;
    /* Keeps data 16-byte aligned on every ABI we build for. */
    _Alignas(16) unsigned char data[];
};

void core_arena_init(core_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->used = 0;
}

#ifndef CORE_ARENA_MALLOC
static core_arena_block *arena_new_block(core_arena *a, size_t need)
{
    size_t size = a->block_size;
    if (need > size)
        size = need;
    core_arena_block *b = core_xmalloc(sizeof *b + size);
    b->size = size;
    b->pos = 0;
    b->next = a->head;
    a->head = b;
    return b;
}
#endif

void *core_arena_alloc(core_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n)
        core_panic("arena allocation too large (%zu bytes)", n);
    a->used += need;
#ifdef CORE_ARENA_MALLOC
    /* One block per allocation, sized exactly, so ASan sees overflows. */
    core_arena_block *b = core_xmalloc(sizeof *b + (n ? n : 1));
    b->size = n;
    b->pos = n;
    b->next = a->head;
    a->head = b;
    return b->data;
#else
    core_arena_block *b = a->head;
    if (!b || b->size - b->pos < need) {
        /* A big request gets its own block behind the current one, so the
         * space left in the current block is not thrown away. */
        if (b && need > a->block_size / 4) {
            core_arena_block *big = core_xmalloc(sizeof *big + need);
            big->size = need;
            big->pos = need;
            big->next = b->next;
            b->next = big;
            return big->data;
        }
        b = arena_new_block(a, need);
    }
    void *p = b->data + b->pos;
    b->pos += need;
    return p;
#endif
}

void *core_arena_zalloc(core_arena *a, size_t n)
{
    void *p = core_arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *core_arena_strndup(core_arena *a, const char *s, size_t n)
{
    char *p = core_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void core_arena_reset(core_arena *a)
{
    core_arena_free(a);
}

void core_arena_free(core_arena *a)
{
    core_arena_block *b = a->head;
    while (b) {
        core_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
}
