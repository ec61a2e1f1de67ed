/*
 * core.h - utilities shared by every pmrag module.
 *
 * Errors, logging, arenas, hashing, string tables, files and paths,
 * threads and time; growable buffers and text in core_buf.h (included
 * here: every module writes into them). The configuration table
 * (core_cfg.h), the HTTP server (core_http.h) and protobuf's wire format
 * (core_wire.h) have headers of their own. No dependency on any other
 * pmrag module.
 *
 * Threading: every object here (arena, buffer, string table, map) belongs to
 * one thread at a time; nothing is locked inside. Functions without an object
 * argument (core_strerror, core_hash64, core_glob_match, ...) are reentrant.
 * core_logf may be called from any thread; the callback it forwards to must
 * be safe for that.
 *
 * Memory: small allocations abort the process on out-of-memory (there is no
 * useful recovery from a failed 64-byte malloc). Allocations whose size comes
 * from input return -ENOMEM instead; those functions say so.
 */
#ifndef PMRAG_CORE_H
#define PMRAG_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core_buf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/*
 * Functions return 0 on success or a negative code: either a negated errno
 * (-ENOENT, -ENOMEM, -EAGAIN for backpressure, ...) or one of these.
 * Out-parameters are written only on success.
 */
enum {
    CORE_EFORMAT = -1000,    /* input is not in the expected format */
    CORE_EVERSION = -1001,   /* format version not supported */
    CORE_ECORRUPT = -1002,   /* file failed an integrity check */
    CORE_ELIMIT = -1003,     /* a configured or built-in limit was hit */
    CORE_ENOTFOUND = -1004,  /* a named thing does not exist */
    CORE_EAMBIGUOUS = -1005, /* a name matches more than one thing */
    CORE_EUSAGE = -1006,     /* invalid arguments */
    CORE_EENDIAN = -1007,    /* written on a machine of the other byte order */
};

/* A static, human-readable description of an error code (never NULL). */
const char *core_strerror(int err);

/*
 * The one way a function reports an error to a caller's message buffer:
 * formats the message into why (cut to whylen bytes, NUL-terminated; why
 * may be NULL or whylen 0 when the caller does not want one) and returns
 * err, so that a failure is one statement:
 *     return core_fail(why, whylen, CORE_EFORMAT, "line %zu: no header", line);
 */
int core_fail(char *why, size_t whylen, int err, const char *fmt, ...) CORE_PRINTF(4, 5);

/* ------------------------------------------------------------------ */
/* Logging                                                             */
/* ------------------------------------------------------------------ */

typedef enum {
    CORE_LOG_DEBUG = 0,
    CORE_LOG_INFO = 1,
    CORE_LOG_NOTE = 2, /* something was skipped on purpose */
    CORE_LOG_WARN = 3, /* something was wrong with the input; work goes on */
    CORE_LOG_ERROR = 4,
} core_log_level;

/*
 * Libraries never print: they format a message and hand it to the caller's
 * callback. `msg` is valid only during the call.
 */
typedef void (*core_log_fn)(void *ud, core_log_level level, const char *msg);

typedef struct core_logger {
    core_log_fn fn; /* NULL: messages are dropped */
    void *ud;
    core_log_level min; /* messages below this level are not formatted */
} core_logger;

/* Formats and forwards one message; `lg` may be NULL. */
void core_logf(const core_logger *lg, core_log_level level, const char *fmt, ...) CORE_PRINTF(3, 4);

/* Name of a level: "debug", "info", "note", "warning", "error". */
const char *core_log_level_name(core_log_level level);

/* ------------------------------------------------------------------ */
/* Allocation                                                          */
/* ------------------------------------------------------------------ */

/* malloc/calloc/realloc that abort with a message on out-of-memory. */
void *core_xmalloc(size_t n);
void *core_xcalloc(size_t count, size_t n);
void *core_xrealloc(void *p, size_t n);
char *core_xstrdup(const char *s);
char *core_xstrndup(const char *s, size_t n);

/* Aborts with a message (for broken invariants, not for bad input). */
_Noreturn void core_panic(const char *fmt, ...) CORE_PRINTF(1, 2);

/*
 * Arena: bump allocation from large blocks, freed all at once. Fields are
 * private. Under AddressSanitizer every allocation is its own malloc so that
 * overflows are seen.
 */
typedef struct core_arena_block core_arena_block;
typedef struct core_arena {
    core_arena_block *head;
    size_t block_size;
    size_t used; /* bytes handed out since init/reset */
} core_arena;

/* block_size 0 picks 64 KiB. */
void core_arena_init(core_arena *a, size_t block_size);
/* Returns memory aligned to 16 bytes, valid until reset/free. n may be 0. */
void *core_arena_alloc(core_arena *a, size_t n);
void *core_arena_zalloc(core_arena *a, size_t n);
/* Copies n bytes of s and appends a NUL. */
char *core_arena_strndup(core_arena *a, const char *s, size_t n);
/* Frees every block but keeps the arena usable. */
void core_arena_reset(core_arena *a);
void core_arena_free(core_arena *a);

/*
 * Growable array of any element type:
 *     core_vec(int) v = {0};  core_vec_push(&v, 42);  free(v.v);
 */
#define core_vec(T)                                                                                \
    struct {                                                                                       \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    }
/* Bytes a vector has allocated. */
#define core_vec_bytes(vec) ((vec).cap * sizeof *(vec).v)
#define core_vec_reserve(vec, want)                                                                \
    core__vec_reserve((void **)&(vec)->v, &(vec)->cap, sizeof(*(vec)->v), (want))
#define core_vec_push(vec, x)                                                                      \
    do {                                                                                           \
        if ((vec)->n == (vec)->cap)                                                                \
            core_vec_reserve(vec, (vec)->n + 1);                                                   \
        (vec)->v[(vec)->n++] = (x);                                                                \
    } while (0)
#define core_vec_free(vec)                                                                         \
    do {                                                                                           \
        free((vec)->v);                                                                            \
        (vec)->v = NULL;                                                                           \
        (vec)->n = (vec)->cap = 0;                                                                 \
    } while (0)
void core__vec_reserve(void **v, size_t *cap, size_t elem, size_t want);

/* ------------------------------------------------------------------ */
/* Hashing and maps                                                    */
/* ------------------------------------------------------------------ */

/* A fast 64-bit hash of n bytes; different seeds give independent hashes. */
uint64_t core_hash64(const void *p, size_t n, uint64_t seed);
/* Mixes one 64-bit value (for integer keys). */
uint64_t core_hash_u64(uint64_t x);
/* splitmix64: advances *state and returns the next pseudo-random 64-bit
 * value. Small and fast; for sampling and seeding, not for secrets. */
static inline uint64_t core_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* A uniform double in [0, 1) from the top 53 bits of a 64-bit value. */
static inline double core_unit_double(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}
/* CRC-32 (zlib's polynomial), continuing from crc (start with 0). */
uint32_t core_crc32(uint32_t crc, const void *p, size_t n);

/*
 * Map from 64-bit keys to 64-bit values, open addressing. The key
 * UINT64_MAX is reserved.
 */
typedef struct core_map_slot {
    uint64_t key, val; /* together: a lookup that hits reads one cache line */
} core_map_slot;
typedef struct core_map {
    core_map_slot *slots;
    size_t n, cap; /* cap is 0 or a power of two */
} core_map;

/* Returns a pointer to the value slot for key, inserting 0 if absent
 * (*inserted says which). The pointer is valid until the next insert. */
uint64_t *core_map_put(core_map *m, uint64_t key, bool *inserted);
/* Returns the value slot or NULL. */
uint64_t *core_map_get(const core_map *m, uint64_t key);
/* Starts fetching key's slot into the cache (for several lookups whose
 * misses should overlap); no effect on the map. */
void core_map_prefetch(const core_map *m, uint64_t key);
void core_map_free(core_map *m);
static inline size_t core_map_bytes(const core_map *m)
{
    return m->cap * sizeof *m->slots;
}

/*
 * Multimap from strings to 32-bit values. Keys are borrowed: they must
 * outlive the map. Several values per key are kept (newest first).
 */
typedef struct core_smap_ent {
    const char *key;
    uint32_t keylen;
    uint32_t val;
    uint32_t next; /* next entry with the same hash, or UINT32_MAX */
} core_smap_ent;

typedef struct core_smap {
    core_map heads; /* hash -> newest entry */
    core_smap_ent *ent;
    size_t n, cap;
} core_smap;

void core_smap_add(core_smap *m, const char *key, size_t keylen, uint32_t val);
/*
 * Iteration over a key's values: `it` starts at 0 (core_smap_get writes
 * it); each call returns the next value or UINT32_MAX when done:
 *     uint32_t it = 0; for (uint32_t v = core_smap_get(m, k, n, &it);
 *          v != UINT32_MAX; v = core_smap_next(m, k, n, &it)) ...
 */
uint32_t core_smap_get(const core_smap *m, const char *key, size_t keylen, uint32_t *it);
uint32_t core_smap_next(const core_smap *m, const char *key, size_t keylen, uint32_t *it);
void core_smap_free(core_smap *m);

/*
 * String table: interns byte strings into one contiguous blob and returns
 * each string's offset in it. Offset 0 is the empty string. Every string
 * is stored NUL-terminated, so base + offset is a C string; a string with
 * an embedded NUL is cut at it. Interning
 * the same bytes twice returns the same offset; the blob's content depends
 * only on the order of first insertion.
 */
typedef struct core_strtab {
    char *data;
    size_t len, cap;
    core_map index; /* hash -> offset; collisions chained in `next` */
    uint32_t *next; /* indexed by string number */
    uint32_t *offs; /* string number -> offset */
    size_t count, count_cap;
} core_strtab;

void core_strtab_init(core_strtab *t);
/* Returns the offset of the string, adding it if new. Aborts when the
 * blob would pass 4 GiB (the offsets are 32-bit). */
uint32_t core_strtab_intern(core_strtab *t, const char *s, size_t n);
/* Returns the offset of the string or UINT32_MAX when absent. */
uint32_t core_strtab_find(const core_strtab *t, const char *s, size_t n);
static inline const char *core_strtab_str(const core_strtab *t, uint32_t off)
{
    return t->data + off;
}
void core_strtab_free(core_strtab *t);
/* Bytes t has allocated. */
static inline size_t core_strtab_bytes(const core_strtab *t)
{
    return t->cap + core_map_bytes(&t->index) + t->count_cap * (sizeof *t->next + sizeof *t->offs);
}
static inline size_t core_smap_bytes(const core_smap *m)
{
    return core_map_bytes(&m->heads) + m->cap * sizeof *m->ent;
}

/* ------------------------------------------------------------------ */
/* Files and paths                                                     */
/* ------------------------------------------------------------------ */

/*
 * Reads a whole regular file into a malloc'd, NUL-terminated buffer owned
 * by the caller. Files larger than max bytes give CORE_ELIMIT; a directory
 * gives -EISDIR.
 */
int core_read_file(const char *path, size_t max, char **out, size_t *len);

/*
 * The string members of the JSON object in data[0..n) that paths name:
 * "name" a member of the object, "a.b" member b of member a. out[i] is a
 * NUL-terminated copy in a, or NULL when that member is missing or not a
 * string; len[i] its length. For project files (package.json) whose few
 * fields an indexer reads. Returns 0, or -1 when data is not a JSON
 * object. Thread-safe; a is the caller's.
 */
int core_json_strings(const char *data, size_t n, const char *const *paths, size_t npaths,
                      core_arena *a, char **out, size_t *len);

/*
 * Every string under member `member` of the JSON object in data[0..n)
 * (itself, or inside its objects and arrays, depth first), handed to fn with the keys of the
 * objects on the way below member (keys[0..nkeys); arrays add none). For a project file's nested
 * fields (package.json's "exports" and "browser"). Returns 0 (nothing
 * when the member is missing), or -1 when data is not a JSON object.
 */
typedef void (*core_json_leaf_fn)(void *ud, const char *const *keys, size_t nkeys, const char *s,
                                  size_t len);
int core_json_strings_under(const char *data, size_t n, const char *member, core_json_leaf_fn fn,
                            void *ud);

/* Read-only mapping of a whole file. */
typedef struct core_mmap {
    const void *data;
    size_t size;
} core_mmap;
int core_mmap_open(const char *path, core_mmap *m);
void core_mmap_close(core_mmap *m);

/*
 * Writes data to path atomically: a temporary file in the same directory,
 * fsync, rename. Readers see the old file or the new one, never a part.
 */
int core_write_file_atomic(const char *path, const void *data, size_t n);

/*
 * Glob match of a '/'-separated path. `*` and `?` do not cross '/', `**`
 * matches any number of whole components, `[abc]`, `[a-z]`, `[!x]` are
 * classes, `\` escapes. A pattern without '/' matches any single component
 * of the path (so `node_modules` or `*.min.js` match at any depth); a
 * pattern with '/' matches the whole path, and a trailing '/' is ignored.
 */
bool core_glob_match(const char *pattern, const char *path);

/* True when s ends with suffix. */
bool core_str_ends_with(const char *s, const char *suffix);

/* ------------------------------------------------------------------ */
/* Threads and time                                                    */
/* ------------------------------------------------------------------ */

/* Number of CPUs this process may run on (at least 1). */
unsigned core_ncpus(void);

/*
 * Runs fn(arg, i) on nthreads threads (i = 0..nthreads-1; the calling
 * thread is number 0) and waits for all. Threads get a 64 MiB stack. If a
 * thread cannot be created, fewer run and the first error is returned, so
 * fn should take its work from a shared queue rather than by its number.
 */
int core_parallel(unsigned nthreads, void (*fn)(void *arg, unsigned i), void *arg);

/* Monotonic clock in nanoseconds. */
uint64_t core_now_ns(void);

/* A token bucket: up to burst tokens, refilled at rate per second, full
 * at first. Not thread-safe: its owner serializes the calls. */
typedef struct core_bucket {
    double rate, burst, tokens;
    uint64_t at_ns; /* the last refill (core_now_ns) */
} core_bucket;
void core_bucket_init(core_bucket *b, double rate, double burst, uint64_t now_ns);
/* Takes a token if there is one (after the refill up to now_ns). */
bool core_bucket_take(core_bucket *b, uint64_t now_ns);
/* Wall-clock time (CLOCK_REALTIME) in nanoseconds since the Unix epoch:
 * for times kept across restarts and shown to people. */
int64_t core_wall_ns(void);

#ifdef __cplusplus
}
#endif
#endif
