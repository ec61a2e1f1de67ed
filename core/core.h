/*
 * core.h - utilities shared by every pmrag module.
 *
 * Errors, logging, arenas, hashing, string tables, growable buffers, files
 * and paths, threads. No dependency on any other pmrag module.
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

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CORE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CORE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define CORE_PRINTF(f, a)
#define CORE_UNLIKELY(x) (x)
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

/* ------------------------------------------------------------------ */
/* Buffers and text                                                    */
/* ------------------------------------------------------------------ */

typedef struct core_buf {
    char *data; /* always NUL-terminated once anything was appended */
    size_t len, cap;
} core_buf;

void core_buf_append(core_buf *b, const void *p, size_t n);
/* Makes room for extra more bytes (and the NUL after them): the caller
 * writes at data + len, then advances len and writes the NUL. */
void core_buf_reserve(core_buf *b, size_t extra);
static inline void core_buf_putc(core_buf *b, char c)
{
    core_buf_append(b, &c, 1);
}
void core_buf_puts(core_buf *b, const char *s);
void core_buf_printf(core_buf *b, const char *fmt, ...) CORE_PRINTF(2, 3);
void core_buf_vprintf(core_buf *b, const char *fmt, va_list ap);
/* Appends s as a JSON string literal with quotes; invalid UTF-8 becomes
 * U+FFFD, control characters are escaped. */
void core_buf_json_str(core_buf *b, const char *s, size_t n);
/* Appends a number in the shortest form that reads back the same. */
void core_buf_json_double(core_buf *b, double v);
/* The same for a float (shortest form that reads back as that float). */
void core_buf_json_float(core_buf *b, float v);
/* Appends text on one line for a terminal (newlines, tabs and carriage
 * returns escaped as backslash n, t, r), cut after max bytes with "...". */
void core_buf_oneline(core_buf *b, const char *text, size_t max);
void core_buf_reset(core_buf *b);
void core_buf_free(core_buf *b);

/* Splits text at sep into items with blanks (spaces, tabs) trimmed, the
 * empty ones left out: a malloc'd array of malloc'd strings in *out (NULL
 * when there are none); returns how many. core_split_free frees them. */
size_t core_split(const char *text, char sep, char ***out);
void core_split_free(char **items, size_t n);

/* Length of the longest prefix of s (at most n bytes) that is valid UTF-8. */
size_t core_utf8_valid_prefix(const char *s, size_t n);

/*
 * Little-endian records: what pmrag writes for other processes or later
 * runs to read (model files, stored dictionary entries, changelog and
 * shared-count records) has one byte order whatever the machine.
 * core_buf_put_le appends v as n bytes (n <= 8); a core_rd reads a record
 * without ever reading past its end: a read that does not fit sets bad and
 * gives 0 (or NULL), so a decoder checks bad once at the end.
 */
void core_buf_put_le(core_buf *b, uint64_t v, int n);
static inline void core_buf_put_f32(core_buf *b, float v)
{
    uint32_t x;
    memcpy(&x, &v, 4);
    core_buf_put_le(b, x, 4);
}
static inline void core_buf_put_f64(core_buf *b, double v)
{
    uint64_t x;
    memcpy(&x, &v, 8);
    core_buf_put_le(b, x, 8);
}
static inline uint64_t core_get_le(const void *p, int n)
{
    const uint8_t *q = p;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)q[i] << (8 * i);
    return v;
}

typedef struct core_rd {
    const uint8_t *p, *end;
    bool bad;
} core_rd;

static inline core_rd core_rd_of(const void *data, size_t len)
{
    return (core_rd){(const uint8_t *)data, (const uint8_t *)data + len, false};
}
/* The next n bytes (borrowed from the record), or NULL past its end. */
const void *core_rd_bytes(core_rd *r, size_t n);
static inline uint64_t core_rd_le(core_rd *r, int n)
{
    const void *p = core_rd_bytes(r, (size_t)n);
    return p ? core_get_le(p, n) : 0;
}
static inline float core_rd_f32(core_rd *r)
{
    uint32_t x = (uint32_t)core_rd_le(r, 4);
    float v;
    memcpy(&v, &x, 4);
    return v;
}
static inline double core_rd_f64(core_rd *r)
{
    uint64_t x = core_rd_le(r, 8);
    double v;
    memcpy(&v, &x, 8);
    return v;
}
/* Bytes left to read. */
static inline size_t core_rd_left(const core_rd *r)
{
    return r->bad ? 0 : (size_t)(r->end - r->p);
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
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/*
 * Configuration is a table: every key with its type, default, bounds and
 * help. The same table parses YAML files and KEY=VALUE overrides,
 * validates (errors name the file, line and key, and the allowed range),
 * and prints the reference. Keys are dotted paths ("ppr.alpha"); in YAML
 * they nest as mappings (ppr: {alpha: 0.2}).
 */
typedef enum {
    CORE_CFG_BOOL,
    CORE_CFG_INT,
    CORE_CFG_DOUBLE,
    CORE_CFG_STRING,
    CORE_CFG_ENUM, /* one of choices */
} core_cfg_type;

typedef struct core_cfg_item {
    const char *key;
    core_cfg_type type;
    const char *def;            /* the default, as it would be written */
    double min, max;            /* INT and DOUBLE: inclusive bounds */
    const char *const *choices; /* ENUM: NULL-terminated */
    const char *help;
} core_cfg_item;

typedef struct core_cfg core_cfg;

/* Values of every key of the table (borrowed; it must outlive the
 * config), starting at their defaults. */
core_cfg *core_cfg_new(const core_cfg_item *table, size_t n);
void core_cfg_free(core_cfg *c);

/*
 * Reads a YAML file over the current values. Unknown keys, wrong types,
 * values out of range and YAML syntax errors are refused with
 * "FILE:LINE: ..." in why (then nothing is changed). CORE_EFORMAT on such
 * errors, an errno if the file cannot be read.
 */
int core_cfg_load(core_cfg *c, const char *path, char *why, size_t whylen);
/* One KEY=VALUE setting (from the command line); CORE_EUSAGE with why. */
int core_cfg_set(core_cfg *c, const char *assignment, char *why, size_t whylen);
/* Sets key to value, remembering origin (e.g. the flag that gave it);
 * CORE_EUSAGE with the reason in why (the value and the allowed range, or
 * an unknown key). */
int core_cfg_put(core_cfg *c, const char *key, const char *value, const char *origin, char *why,
                 size_t whylen);

/* Current values; the key must be in the table with that type (a
 * mismatch is a programming error and aborts). Strings are valid until
 * the key is set again or the config is freed. */
bool core_cfg_bool(const core_cfg *c, const char *key);
int64_t core_cfg_int(const core_cfg *c, const char *key);
double core_cfg_double(const core_cfg *c, const char *key);
const char *core_cfg_str(const core_cfg *c, const char *key);
/* Any key's current value as it was written ("0.2", "yes"); NULL for a
 * key not in the table. */
const char *core_cfg_text(const core_cfg *c, const char *key);
/* Where the current value came from: "default", "FILE:LINE", "--set". */
const char *core_cfg_origin(const core_cfg *c, const char *key);
/* True when the key was given (by a file, --set or a flag), not left at
 * its default. */
bool core_cfg_is_set(const core_cfg *c, const char *key);

/*
 * Reads and parses a YAML file (at most 16 MiB) into *doc, libyaml's
 * yaml_document_t, which the caller frees with yaml_document_delete().
 * Errors: "PATH: reason" (the file's errno) or "PATH:LINE: problem"
 * (CORE_EFORMAT) in why. For every module that reads YAML.
 */
struct yaml_document_s;
int core_yaml_load_file(const char *path, struct yaml_document_s *doc, char *why, size_t whylen);

/* The reference: a Markdown table of the keys (key, type and range,
 * default, help). */
void core_cfg_reference(const core_cfg_item *table, size_t n, core_buf *out);
/* The current values as YAML, each with its origin in a comment. */
void core_cfg_dump(const core_cfg *c, core_buf *out);

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
/* Wall-clock time (CLOCK_REALTIME) in nanoseconds since the Unix epoch:
 * for times kept across restarts and shown to people. */
int64_t core_wall_ns(void);

/* ------------------------------------------------------------------ */
/* HTTP server                                                         */
/* ------------------------------------------------------------------ */

/*
 * A small HTTP/1.1 server (libmicrohttpd underneath) for the OTLP/HTTP
 * receiver and the daemon's API.
 *
 * Threads: one internal thread does all socket I/O; handlers run on a pool
 * of `threads` threads of the server's own, once per request, after the
 * whole body arrived (Content-Length or chunked). A handler may block (the
 * daemon answers only after its state commit): that holds one pool thread,
 * never the other connections' I/O, so at most `threads` handlers run at
 * once and further complete requests wait in a queue. Handlers therefore
 * run concurrently and must be thread-safe.
 *
 * Limits: a body over max_body is answered 413 and the connection closed:
 * at once when Content-Length says so, or as soon as a chunked body passes
 * the limit (the rest is not stored; over TLS the 413 comes when the body
 * ends, or the connection is closed without one when more than 4 MiB
 * follow). Idle or stalled connections are closed after 30 seconds; at most
 * max_conns connections are open at once.
 *
 * Authentication: with a token_file, every request but those to
 * public_paths must carry "Authorization: Bearer <token>" (the scheme in
 * any case); others are answered 401 with WWW-Authenticate: Bearer as soon
 * as their headers arrive (before any body is read, and before the 413
 * check), and never reach the handler. The token is compared in constant
 * time and never logged.
 *
 * TLS: with tls_cert and tls_key the listener speaks HTTPS only (TLS 1.2
 * and 1.3, through libmicrohttpd's GnuTLS).
 */
typedef struct core_http core_http;

/* One request, valid only during the handler call. */
typedef struct core_http_req {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* as sent (not percent-decoded), without the query */
    const char *query;        /* after '?', as sent; NULL when there is none */
    const char *content_type; /* header values, NULL when absent */
    const char *content_encoding;
    const char *authorization;
    const char *body; /* never NULL; len bytes (followed by a NUL, not counted) */
    size_t len;
} core_http_req;

/* What the handler fills in; it starts zeroed. */
typedef struct core_http_resp {
    int status; /* 100..599; anything else is logged and sent as 500 */
    /* Borrowed until the handler returns. NULL: text/plain when there is
     * a body, no header when there is none. */
    const char *content_type;
    core_buf body;     /* the server takes it over and frees it */
    int retry_after;   /* seconds for a Retry-After header; 0: none */
    const char *allow; /* Allow header (for 405), borrowed until the handler returns; NULL: none */
} core_http_resp;

typedef void (*core_http_handler)(void *ud, const core_http_req *req, core_http_resp *resp);

typedef struct core_http_opts {
    /* "host:port", "[v6]:port", or ":port" for the wildcard address
     * getaddrinfo gives first (usually 0.0.0.0; "[::]:port" for IPv6). The
     * host is a name or a literal, looked up with getaddrinfo; the first
     * address that binds is used. Port 0 picks a free port (see
     * core_http_address). */
    const char *listen;
    size_t max_body;    /* bytes; 0 = 64 MiB */
    unsigned threads;   /* handler threads; 0 = 2 */
    unsigned max_conns; /* open connections; 0 = 256 */
    core_logger log;    /* copied; its callback is called from the server's threads */
    /* A file whose one line is the bearer token clients must send
     * (surrounding white space and the line end are not part of it); read
     * once by core_http_start. NULL or "": no authentication. */
    const char *token_file;
    /* Paths (exact, as sent, without the query) open without the token,
     * e.g. health checks; NULL-terminated, borrowed until core_http_stop.
     * NULL: none. */
    const char *const *public_paths;
    /* PEM files: the certificate (then its chain) and its private key
     * (not encrypted); both or neither. Read once by core_http_start. */
    const char *tls_cert;
    const char *tls_key;
    /* Asked (with core_http_start's ud) when a request's headers have
     * arrived, after the token check: true answers 503 with Retry-After:
     * 1 at once and closes the connection without reading the body, so
     * that refusing a request costs no memory. NULL: never. */
    bool (*busy)(void *ud, const char *method, const char *path);
} core_http_opts;

/*
 * Binds, listens and starts the threads. On success *out is owned by the
 * caller (core_http_stop) and h(ud, ...) may be called at once. Errors name
 * the address: CORE_EUSAGE for "listen foo: not host:port" or a name that
 * does not resolve, a negated errno from bind/listen
 * ("listen 127.0.0.1:4318: Address already in use"); and the file for a
 * token, certificate or key that cannot be read or used ("listen
 * 127.0.0.1:4318: token_file /etc/pmrag/token: No such file or
 * directory"). A token or key file that group or others may read is
 * logged as a warning.
 */
int core_http_start(const core_http_opts *o, core_http_handler h, void *ud, core_http **out,
                    char *why, size_t whylen);

/* The bound address as "host:port" or "[v6]:port", with the real port
 * when 0 was asked. Valid until core_http_stop. */
const char *core_http_address(const core_http *s);

typedef struct core_http_stats {
    uint64_t requests;     /* requests received whole or refused (413, 401) */
    uint64_t too_large;    /* refused with 413 by the server (never reached the handler) */
    uint64_t unauthorized; /* refused with 401 (never reached the handler) */
} core_http_stats;

/* A snapshot of the counters (each atomic). Any thread, until stop. */
void core_http_get_stats(const core_http *s, core_http_stats *out);

/*
 * Stops accepting connections, lets every request whose handler was
 * called (or queued) finish and its response be sent (a request whose body
 * is still arriving gets 503; responses from then on say Connection:
 * close), then closes every connection, joins the threads and frees s.
 * Blocks as long as the handlers do. s may be NULL. Not from a handler.
 */
void core_http_stop(core_http *s);

/*
 * Whether a (alen bytes) equals b (blen bytes), in a time that depends on
 * blen and not on where they differ: pass the secret as b and what a
 * client sent as a. Any thread.
 */
bool core_ct_equal(const void *a, size_t alen, const void *b, size_t blen);
/* Whether a configuration key (a librdkafka property, say) names a
 * credential or key material, whose value must never be shown:
 * password, secret, token, jaas, key, credential, pem,
 * oauthbearer.config. Over-matching (ssl.key.location) costs nothing. */
bool core_key_is_secret(const char *key);

#ifdef __cplusplus
}
#endif
#endif
