/* Hashing, the integer map and the string table. */
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static inline uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* 64x64 -> 128-bit multiply, folded: the mixing step of the hash. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

#define K0 0xa0761d6478bd642full
#define K1 0xe7037ed1a0b428dbull
#define K2 0x8ebc6af09c88c6e3ull
#define K3 0x589965cc75374cc3ull

uint64_t core_hash64(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ^ mum(seed ^ K0, K1) ^ (uint64_t)n;
    size_t i = n;
    /* Two independent lanes over 16-byte chunks keep the multiplier busy. */
    if (i >= 16) {
        uint64_t h2 = h ^ K3;
        while (i >= 16) {
            h = mum(rd64(p) ^ K1, h ^ K2);
            h2 = mum(rd64(p + 8) ^ K3, h2 ^ K0);
            p += 16;
            i -= 16;
        }
        h = mum(h ^ K0, h2 ^ K1);
    }
    uint64_t a = 0, b = 0;
    if (i >= 8) {
        a = rd64(p);
        b = rd64(p + i - 8);
    } else if (i >= 4) {
        a = rd32(p);
        b = rd32(p + i - 4);
    } else if (i > 0) {
        a = ((uint64_t)p[0] << 16) | ((uint64_t)p[i >> 1] << 8) | p[i - 1];
    }
    h = mum(a ^ K1, b ^ h ^ K2);
    return mum(h ^ K0, (uint64_t)n ^ K3);
}

uint64_t core_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

uint32_t core_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    uLong c = crc;
    /* zlib takes uInt lengths; feed huge inputs in pieces. */
    while (n > 0) {
        uInt part = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, b, part);
        b += part;
        n -= part;
    }
    return (uint32_t)c;
}

/* ---- map ---- */

#define MAP_EMPTY UINT64_MAX

static void map_grow(core_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    core_map_slot *slots = core_xmalloc(ncap * sizeof *slots);
    for (size_t i = 0; i < ncap; i++)
        slots[i].key = MAP_EMPTY;
    for (size_t i = 0; i < m->cap; i++) {
        uint64_t k = m->slots[i].key;
        if (k == MAP_EMPTY)
            continue;
        size_t j = core_hash_u64(k) & (ncap - 1);
        while (slots[j].key != MAP_EMPTY)
            j = (j + 1) & (ncap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = ncap;
}

uint64_t *core_map_put(core_map *m, uint64_t key, bool *inserted)
{
    if (key == MAP_EMPTY)
        core_panic("core_map: reserved key");
    if ((m->n + 1) * 4 > m->cap * 3)
        map_grow(m);
    size_t j = core_hash_u64(key) & (m->cap - 1);
    while (m->slots[j].key != MAP_EMPTY) {
        if (m->slots[j].key == key) {
            if (inserted)
                *inserted = false;
            return &m->slots[j].val;
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->slots[j].key = key;
    m->slots[j].val = 0;
    m->n++;
    if (inserted)
        *inserted = true;
    return &m->slots[j].val;
}

uint64_t *core_map_get(const core_map *m, uint64_t key)
{
    if (!m->cap || key == MAP_EMPTY)
        return NULL;
    size_t j = core_hash_u64(key) & (m->cap - 1);
    while (m->slots[j].key != MAP_EMPTY) {
        if (m->slots[j].key == key)
            return &m->slots[j].val;
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

void core_map_prefetch(const core_map *m, uint64_t key)
{
    if (!m->cap)
        return;
    __builtin_prefetch(&m->slots[core_hash_u64(key) & (m->cap - 1)]);
}

void core_map_free(core_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* ---- string table ---- */

/*
 * The index maps a string's hash to the number of the first string with
 * that hash; further strings with the same hash are chained through next[].
 * Chains are almost always of length one.
 */
#define STR_NONE UINT32_MAX

void core_strtab_init(core_strtab *t)
{
    memset(t, 0, sizeof *t);
    core_strtab_intern(t, "", 0);
}

static uint32_t strtab_lookup(const core_strtab *t, uint64_t h, const char *s, size_t n)
{
    uint64_t *slot = core_map_get(&t->index, h);
    if (!slot)
        return STR_NONE;
    for (uint32_t k = (uint32_t)*slot; k != STR_NONE; k = t->next[k]) {
        uint32_t off = t->offs[k];
        /* strncmp stops at the stored string's NUL, so it never reads
         * past it; s itself holds no NUL (cut by the callers). */
        if (strncmp(t->data + off, s, n) == 0 && t->data[off + n] == 0)
            return off;
    }
    return STR_NONE;
}

uint32_t core_strtab_find(const core_strtab *t, const char *s, size_t n)
{
    n = strnlen(s, n);
    if (n == 0)
        return 0;
    return strtab_lookup(t, core_hash64(s, n, 0x5eed) & ~(uint64_t)0 >> 1, s, n);
}

uint32_t core_strtab_intern(core_strtab *t, const char *s, size_t n)
{
    n = strnlen(s, n);
    /* The top bit is cleared so the hash can never be the map's reserved
     * key. */
    uint64_t h = core_hash64(s, n, 0x5eed) & ~(uint64_t)0 >> 1;
    if (t->count > 0) {
        uint32_t off = strtab_lookup(t, h, s, n);
        if (off != STR_NONE)
            return off;
        if (n == 0)
            return 0;
    }
    if (t->len + n + 1 > UINT32_MAX)
        core_panic("string table over 4 GiB");
    if (t->len + n + 1 > t->cap) {
        size_t ncap = t->cap ? t->cap : 4096;
        while (ncap < t->len + n + 1)
            ncap *= 2;
        t->data = core_xrealloc(t->data, ncap);
        t->cap = ncap;
    }
    uint32_t off = (uint32_t)t->len;
    if (n)
        memcpy(t->data + off, s, n);
    t->data[off + n] = 0;
    t->len += n + 1;
    if (t->count == t->count_cap) {
        t->count_cap = t->count_cap ? t->count_cap * 2 : 256;
        t->next = core_xrealloc(t->next, t->count_cap * sizeof *t->next);
        t->offs = core_xrealloc(t->offs, t->count_cap * sizeof *t->offs);
    }
    uint32_t k = (uint32_t)t->count++;
    t->offs[k] = off;
    bool ins;
    uint64_t *slot = core_map_put(&t->index, h, &ins);
    t->next[k] = ins ? STR_NONE : (uint32_t)*slot;
    *slot = k;
    return off;
}

void core_strtab_free(core_strtab *t)
{
    free(t->data);
    free(t->next);
    free(t->offs);
    core_map_free(&t->index);
    memset(t, 0, sizeof *t);
}

/* ---- string multimap ---- */

static uint64_t smap_hash(const char *key, size_t n)
{
    return core_hash64(key, n, 0x5ca1ab1e) & ~(uint64_t)0 >> 1;
}

void core_smap_add(core_smap *m, const char *key, size_t keylen, uint32_t val)
{
    if (keylen > UINT32_MAX)
        core_panic("core_smap: key too long");
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        if (m->cap > UINT32_MAX)
            core_panic("core_smap: too many entries");
        m->ent = core_xrealloc(m->ent, m->cap * sizeof *m->ent);
    }
    bool ins;
    uint64_t *head = core_map_put(&m->heads, smap_hash(key, keylen), &ins);
    uint32_t e = (uint32_t)m->n++;
    m->ent[e] = (core_smap_ent){key, (uint32_t)keylen, val, ins ? UINT32_MAX : (uint32_t)*head};
    *head = e;
}

/* Scans the chain from entry e for the key; returns its value and leaves
 * *it at the entry after it. */
static uint32_t smap_scan(const core_smap *m, const char *key, size_t keylen, uint32_t e,
                          uint32_t *it)
{
    for (; e != UINT32_MAX; e = m->ent[e].next) {
        const core_smap_ent *x = &m->ent[e];
        if (x->keylen == keylen && memcmp(x->key, key, keylen) == 0) {
            *it = x->next;
            return x->val;
        }
    }
    *it = UINT32_MAX;
    return UINT32_MAX;
}

uint32_t core_smap_get(const core_smap *m, const char *key, size_t keylen, uint32_t *it)
{
    uint64_t *head = core_map_get(&m->heads, smap_hash(key, keylen));
    if (!head) {
        *it = UINT32_MAX;
        return UINT32_MAX;
    }
    return smap_scan(m, key, keylen, (uint32_t)*head, it);
}

uint32_t core_smap_next(const core_smap *m, const char *key, size_t keylen, uint32_t *it)
{
    return smap_scan(m, key, keylen, *it, it);
}

void core_smap_free(core_smap *m)
{
    core_map_free(&m->heads);
    free(m->ent);
    memset(m, 0, sizeof *m);
}
