/*
 * The LMDB environment: opening, reads, the commit of a batch with map
 * growth, TTL expiry, statistics.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "sess_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MIB (1024u * 1024u)
#define DEFAULT_MAP (64u * MIB)
/* Entries read per transaction by the iterators. */
#define ITER_CHUNK 256
/* The layout of the tables; a different one is refused at open. */
#define LAYOUT_KEY "sess.layout"
#define LAYOUT "1"

struct sess_env {
    MDB_env *env;
    MDB_dbi cases, by_touch, dict, counts, offsets, meta;
    MDB_dbi requests, held; /* 0 in a read-only state from before the table */
    /* A read-only state written before held events were kept by number
     * first: its table under the old name, read as it is (0: none). A
     * writable open moves such entries into held and drops the table. */
    MDB_dbi held_by_case;
    /*
     * Every transaction of this process runs under this lock held shared;
     * changing the map size takes it exclusively, because LMDB requires
     * that no transaction of the process be open then. Writer-preferring,
     * so that a steady stream of readers cannot starve a resize.
     */
    pthread_rwlock_t lock;
    char *path;
    size_t map_size; /* changed only under the exclusive lock */
    size_t map_max;
    bool no_grow, read_only;
    uint64_t grows;
    core_logger log;
    int lock_fd; /* DIR/pmrag.lock, flock'ed by the writer; -1 if read-only */
};

/* An LMDB result as one of our codes. */
static int from_mdb(int rc)
{
    switch (rc) {
    case 0:
        return 0;
    case MDB_NOTFOUND:
        return CORE_ENOTFOUND;
    case MDB_MAP_FULL:
    case MDB_READERS_FULL:
    case MDB_TXN_FULL:
    case MDB_DBS_FULL:
    case MDB_BAD_VALSIZE:
        return CORE_ELIMIT;
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
        return CORE_ECORRUPT;
    case MDB_VERSION_MISMATCH:
        return CORE_EVERSION;
    case MDB_INVALID:
    case MDB_INCOMPATIBLE:
        return CORE_EFORMAT;
    default:
        return rc > 0 ? -rc : -EIO;
    }
}

/* A size for messages: "256 KiB", "64 MiB". */
static const char *size_text(size_t n, char *buf, size_t len)
{
    if (n >= MIB)
        snprintf(buf, len, "%zu MiB", n / MIB);
    else
        snprintf(buf, len, "%zu KiB", n / 1024);
    return buf;
}

/* Printable excerpt of a case id for messages. */
static int id_shown(size_t len)
{
    return len > 120 ? 120 : (int)len;
}

static void adopt_map_size(sess_env *e)
{
    pthread_rwlock_wrlock(&e->lock);
    /* Size 0 adopts the size another process grew the map to. */
    if (mdb_env_set_mapsize(e->env, 0) == 0) {
        MDB_envinfo info;
        mdb_env_info(e->env, &info);
        e->map_size = info.me_mapsize;
    }
    pthread_rwlock_unlock(&e->lock);
}

/* Begins a read transaction with the shared lock held; rtxn_end releases
 * both. */
static int rtxn_begin(sess_env *e, MDB_txn **txn)
{
    for (int tries = 0;; tries++) {
        pthread_rwlock_rdlock(&e->lock);
        int rc = mdb_txn_begin(e->env, NULL, MDB_RDONLY, txn);
        if (rc == 0)
            return 0;
        pthread_rwlock_unlock(&e->lock);
        if (rc != MDB_MAP_RESIZED || tries == 3)
            return rc;
        adopt_map_size(e);
    }
}

static void rtxn_end(sess_env *e, MDB_txn *txn)
{
    mdb_txn_abort(txn);
    pthread_rwlock_unlock(&e->lock);
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

static int mkdir_p(const char *path)
{
    char *p = core_xstrdup(path);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            rc = -errno;
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    if (rc)
        return rc;
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static int file_size(const char *dir, const char *name, size_t *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    *out = (size_t)st.st_size;
    return 0;
}

/* A held event's key in the table of the previous build: the case id,
 * NUL, the number big-endian. Returns the id's length, or -1 when key is
 * not one. */
static ptrdiff_t held_by_case_key(const MDB_val *k, uint64_t *no)
{
    const uint8_t *key = k->mv_data;
    size_t len = k->mv_size >= 9 ? k->mv_size - 9 : 0;
    if (k->mv_size < 10 || len > SESS_MAX_ID || key[len] != 0 || memchr(key, 0, len))
        return -1;
    *no = 0;
    for (int i = 0; i < 8; i++)
        *no = *no << 8 | key[len + 1 + i];
    return (ptrdiff_t)len;
}

/* The held table of the previous build kept entries by case id, so that
 * every held event and its release dirtied a page anywhere in the table;
 * keyed by number (arrival) they go where the last ones went. A writable
 * open moves the old entries over and drops the old table, in the same
 * transaction as the layout check; a read-only one reads it as it is. */
static int held_by_case_open(sess_env *e, MDB_txn *txn)
{
    MDB_dbi old;
    int rc = mdb_dbi_open(txn, "held", 0, &old);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return rc;
    if (e->read_only) {
        e->held_by_case = old;
        return 0;
    }
    MDB_cursor *cur;
    if ((rc = mdb_cursor_open(txn, old, &cur)) != 0)
        return rc;
    MDB_val k, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        uint64_t no;
        ptrdiff_t len = held_by_case_key(&k, &no);
        if (len < 0)
            continue; /* (skipped with a warning when it was read) */
        uint8_t nk[SESS_MAX_ID + 8];
        MDB_val nkv = {sess__held_key(k.mv_data, (size_t)len, no, nk), nk};
        if ((rc = mdb_put(txn, e->held, &nkv, &v, 0)) != 0)
            break;
    }
    mdb_cursor_close(cur);
    if (rc != MDB_NOTFOUND && rc != 0)
        return rc;
    return mdb_drop(txn, old, 1);
}

/* Opens the tables (creating them when writable) and checks the layout. */
static int open_tables(sess_env *e, char *why, size_t whylen)
{
    MDB_txn *txn;
    unsigned flags = e->read_only ? 0 : MDB_CREATE;
    int rc = mdb_txn_begin(e->env, NULL, e->read_only ? MDB_RDONLY : 0, &txn);
    if (rc) {
        return core_fail(why, whylen, from_mdb(rc), "%s: %s", e->path, mdb_strerror(rc));
    }
    static const char *const names[] = {"cases",   "by_touch", "dict",     "counts",
                                        "offsets", "meta",     "requests", "held_at"};
    MDB_dbi *dbis[] = {&e->cases,   &e->by_touch, &e->dict,     &e->counts,
                       &e->offsets, &e->meta,     &e->requests, &e->held};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        rc = mdb_dbi_open(txn, names[i], flags, dbis[i]);
        /* The requests and held tables came later: a state made before
         * them reads as one without requests or held events. */
        if (rc == MDB_NOTFOUND && e->read_only &&
            (dbis[i] == &e->requests || dbis[i] == &e->held)) {
            *dbis[i] = 0;
            continue;
        }
        if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE) {
            rc = core_fail(why, whylen, CORE_EFORMAT,
                           "%s: not a pmrag state directory (no '%s' table)", e->path, names[i]);
            goto fail;
        }
        if (rc) {
            rc = core_fail(why, whylen, from_mdb(rc), "%s: table '%s': %s", e->path, names[i],
                           mdb_strerror(rc));
            goto fail;
        }
    }
    if ((rc = held_by_case_open(e, txn)) != 0) {
        rc =
            core_fail(why, whylen, from_mdb(rc), "%s: table 'held': %s", e->path, mdb_strerror(rc));
        goto fail;
    }
    MDB_val k = {strlen(LAYOUT_KEY), (void *)LAYOUT_KEY}, v;
    rc = mdb_get(txn, e->meta, &k, &v);
    if (rc == MDB_NOTFOUND && !e->read_only) {
        v = (MDB_val){strlen(LAYOUT), (void *)LAYOUT};
        rc = mdb_put(txn, e->meta, &k, &v, 0);
    } else if (rc == MDB_NOTFOUND) {
        rc = core_fail(why, whylen, CORE_EFORMAT,
                       "%s: not a pmrag state directory (no layout version)", e->path);
        goto fail;
    } else if (rc == 0 &&
               (v.mv_size != strlen(LAYOUT) || memcmp(v.mv_data, LAYOUT, v.mv_size) != 0)) {
        rc = core_fail(why, whylen, CORE_EVERSION,
                       "%s: state layout version '%.*s', this build reads '%s'", e->path,
                       v.mv_size > 16 ? 16 : (int)v.mv_size, (const char *)v.mv_data, LAYOUT);
        goto fail;
    }
    if (rc) {
        rc = core_fail(why, whylen, from_mdb(rc), "%s: %s", e->path, mdb_strerror(rc));
        goto fail;
    }
    /* Committing (also a read-only transaction) keeps the table handles
     * open for every later transaction. */
    rc = mdb_txn_commit(txn);
    if (rc) {
        return core_fail(why, whylen, from_mdb(rc), "%s: %s", e->path, mdb_strerror(rc));
    }
    return 0;
fail:
    mdb_txn_abort(txn);
    return rc;
}

int sess_open(const sess_opts *o, sess_env **out, char *why, size_t whylen)
{
    const char *path = o->path;
    if (!path || !*path) {
        return core_fail(why, whylen, CORE_EUSAGE, "no state directory given");
    }
    struct stat st;
    size_t data_bytes = 0;
    int rc;
    if (o->read_only) {
        /* Check before LMDB runs: even read-only, it would create
         * lock.mdb in any directory it is pointed at. */
        if (stat(path, &st) != 0) {
            rc = -errno;
            if (rc == -ENOENT)
                return core_fail(why, whylen, rc, "%s: no such state directory", path);
            return core_fail(why, whylen, rc, "%s: %s", path, strerror(-rc));
        }
        if (!S_ISDIR(st.st_mode)) {
            return core_fail(why, whylen, -ENOTDIR, "%s: not a directory", path);
        }
        if (file_size(path, "data.mdb", &data_bytes) != 0) {
            return core_fail(why, whylen, CORE_EFORMAT,
                             "%s: not a pmrag state directory (no data.mdb)", path);
        }
    } else {
        rc = mkdir_p(path);
        if (rc) {
            return core_fail(why, whylen, rc, "%s: cannot create the state directory: %s", path,
                             strerror(-rc));
        }
        file_size(path, "data.mdb", &data_bytes);
    }

    sess_env *e = core_xcalloc(1, sizeof *e);
    e->path = core_xstrdup(path);
    e->map_max = o->map_max;
    e->no_grow = o->no_grow;
    e->read_only = o->read_only;
    e->log = o->log;
    e->lock_fd = -1;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&e->lock, &attr);
    pthread_rwlockattr_destroy(&attr);

    if (!o->read_only) {
        /* LMDB would let two writers take turns; two daemons interleaving
         * their changes of one state would corrupt it logically. */
        char lpath[4096];
        snprintf(lpath, sizeof lpath, "%s/pmrag.lock", path);
        e->lock_fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (e->lock_fd < 0) {
            rc = -errno;
            rc = core_fail(why, whylen, rc, "%s: cannot open pmrag.lock: %s", path, strerror(-rc));
            goto fail;
        }
        if (flock(e->lock_fd, LOCK_EX | LOCK_NB) != 0) {
            rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
            rc = core_fail(why, whylen, rc, "%s: %s", path,
                           rc == -EBUSY ? "in use by another writer (pmrag.lock is locked)"
                                        : strerror(-rc));
            goto fail;
        }
    }

    rc = mdb_env_create(&e->env);
    if (rc) {
        rc = core_fail(why, whylen, from_mdb(rc), "%s: %s", path, mdb_strerror(rc));
        goto fail;
    }
    mdb_env_set_maxdbs(e->env, 16);
    if (!o->read_only) {
        /* Never below what the file already holds, or the first commit
         * after a restart would hit a full map; a page multiple so that
         * doubling keeps it one. */
        size_t want = o->map_size ? o->map_size : DEFAULT_MAP;
        if (want < data_bytes)
            want = data_bytes;
        long pg = sysconf(_SC_PAGESIZE);
        size_t page = pg > 0 ? (size_t)pg : 4096;
        want = (want + page - 1) / page * page;
        mdb_env_set_mapsize(e->env, want);
    }
    /* MDB_NOTLS: read transactions are not tied to a thread (readers run on
     * any thread, and one thread may read while it holds none). */
    rc = mdb_env_open(e->env, path, MDB_NOTLS | (o->read_only ? MDB_RDONLY : 0), 0644);
    if (rc) {
        if (rc == MDB_INVALID)
            rc = core_fail(why, whylen, from_mdb(rc), "%s: data.mdb is not an LMDB file", path);
        else if (rc == MDB_VERSION_MISMATCH)
            rc = core_fail(why, whylen, from_mdb(rc), "%s: written by another LMDB version", path);
        else
            rc =
                core_fail(why, whylen, from_mdb(rc), "%s: cannot open: %s", path, mdb_strerror(rc));
        goto fail;
    }
    rc = open_tables(e, why, whylen);
    if (rc)
        goto fail;
    MDB_envinfo info;
    mdb_env_info(e->env, &info);
    e->map_size = info.me_mapsize;
    *out = e;
    return 0;
fail:
    sess_close(e);
    return rc;
}

void sess_close(sess_env *e)
{
    if (!e)
        return;
    if (e->env)
        mdb_env_close(e->env);
    if (e->lock_fd >= 0)
        close(e->lock_fd); /* releases the flock */
    pthread_rwlock_destroy(&e->lock);
    free(e->path);
    free(e);
}

/* ------------------------------------------------------------------ */
/* Reads                                                               */
/* ------------------------------------------------------------------ */

/* Decodes a stored case, logging a failure with the case's name. */
static int decode_logged(sess_env *e, const char *id, size_t len, const MDB_val *v, sess_case *out)
{
    char why[160];
    int rc = sess__case_decode(v->mv_data, v->mv_size, out, why, sizeof why);
    if (rc)
        core_logf(&e->log, CORE_LOG_WARN, "state %s: case '%.*s': %s: %s", e->path, id_shown(len),
                  id, rc == CORE_EVERSION ? "unsupported value" : "corrupted value", why);
    return rc;
}

int sess_case_get(sess_env *e, const char *case_id, size_t len, sess_case *out)
{
    if (len == 0 || len > SESS_MAX_ID)
        return CORE_ENOTFOUND;
    MDB_txn *txn;
    int rc = rtxn_begin(e, &txn);
    if (rc)
        return from_mdb(rc);
    MDB_val k = {len, (void *)case_id}, v;
    rc = mdb_get(txn, e->cases, &k, &v);
    if (rc == 0) {
        sess_case tmp;
        rc = decode_logged(e, case_id, len, &v, &tmp);
        if (rc == 0)
            memcpy(out, &tmp, sizeof tmp);
    } else {
        rc = from_mdb(rc);
    }
    rtxn_end(e, txn);
    return rc;
}

static size_t offset_key(const char *topic, int32_t partition, uint8_t *key)
{
    size_t tlen = strlen(topic);
    memcpy(key, topic, tlen);
    key[tlen] = 0;
    sess__put_u32be(key + tlen + 1, (uint32_t)partition);
    return tlen + 5;
}

int sess_offset_get(sess_env *e, const char *topic, int32_t partition, int64_t *next_offset)
{
    if (!*topic || strlen(topic) > SESS_MAX_TOPIC)
        return CORE_ENOTFOUND;
    uint8_t key[SESS_MAX_TOPIC + 5];
    MDB_txn *txn;
    int rc = rtxn_begin(e, &txn);
    if (rc)
        return from_mdb(rc);
    MDB_val k = {offset_key(topic, partition, key), key}, v;
    rc = mdb_get(txn, e->offsets, &k, &v);
    if (rc == 0 && v.mv_size != 8) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: offset of %s/%d: corrupted value", e->path,
                  topic, partition);
        rc = CORE_ECORRUPT;
    } else if (rc == 0) {
        *next_offset = (int64_t)sess__get_u64le(v.mv_data);
    } else {
        rc = from_mdb(rc);
    }
    rtxn_end(e, txn);
    return rc;
}

int sess_meta_get(sess_env *e, const char *key, core_buf *val)
{
    size_t klen = strlen(key);
    if (klen == 0 || klen > SESS_MAX_ID)
        return CORE_ENOTFOUND;
    MDB_txn *txn;
    int rc = rtxn_begin(e, &txn);
    if (rc)
        return from_mdb(rc);
    MDB_val k = {klen, (void *)key}, v;
    rc = mdb_get(txn, e->meta, &k, &v);
    if (rc == 0) {
        core_buf_reset(val);
        core_buf_append(val, v.mv_data, v.mv_size); /* NUL-terminates, also when empty */
    }
    rtxn_end(e, txn);
    return from_mdb(rc);
}

/*
 * Calls fn for every entry of a table in key order, ITER_CHUNK entries
 * per read transaction: between chunks the lock is released (a resize may
 * run), and the next chunk starts after the last key seen.
 */
typedef int (*kv_fn)(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v);

static int iter_table(sess_env *e, MDB_dbi dbi, kv_fn fn, void *ud)
{
    uint8_t last[512];
    size_t last_len = 0;
    bool started = false;
    for (;;) {
        MDB_txn *txn;
        MDB_cursor *cur;
        int rc = rtxn_begin(e, &txn);
        if (rc)
            return from_mdb(rc);
        rc = mdb_cursor_open(txn, dbi, &cur);
        if (rc) {
            rtxn_end(e, txn);
            return from_mdb(rc);
        }
        MDB_val k = {last_len, last}, v;
        rc = mdb_cursor_get(cur, &k, &v, started ? MDB_SET_RANGE : MDB_FIRST);
        if (started && rc == 0 && k.mv_size == last_len && memcmp(k.mv_data, last, last_len) == 0)
            rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
        int stop = 0;
        for (int n = 0; rc == 0 && n < ITER_CHUNK; n++) {
            stop = fn(e, ud, &k, &v);
            if (stop)
                break;
            /* LMDB keys are at most 511 bytes. */
            last_len = k.mv_size < sizeof last ? k.mv_size : sizeof last;
            memcpy(last, k.mv_data, last_len);
            started = true;
            rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
        }
        mdb_cursor_close(cur);
        rtxn_end(e, txn);
        if (stop)
            return stop;
        if (rc == MDB_NOTFOUND)
            return 0;
        if (rc)
            return from_mdb(rc);
    }
}

typedef struct case_iter {
    sess_case_fn fn;
    void *ud;
    int bad; /* first decode error */
    sess_case c;
} case_iter;

static int case_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    case_iter *it = ud;
    int rc = decode_logged(e, k->mv_data, k->mv_size, v, &it->c);
    if (rc) {
        if (!it->bad)
            it->bad = rc;
        return 0;
    }
    return it->fn(it->ud, k->mv_data, k->mv_size, &it->c);
}

int sess_case_iter(sess_env *e, sess_case_fn fn, void *ud)
{
    /* The case is large (2.2 KiB): off the caller's stack. */
    case_iter *it = core_xmalloc(sizeof *it);
    it->fn = fn;
    it->ud = ud;
    it->bad = 0;
    int rc = iter_table(e, e->cases, case_kv, it);
    if (rc == 0)
        rc = it->bad;
    free(it);
    return rc;
}

int sess_case_recent(sess_env *e, int64_t before_ns, const char *before_id, size_t before_len,
                     sess_case_fn fn, void *ud)
{
    uint8_t last[8 + SESS_MAX_ID];
    size_t last_len = 0;
    if (before_id) {
        if (before_len > SESS_MAX_ID)
            return CORE_ELIMIT;
        last_len = sess__touch_key(before_ns, before_id, before_len, last);
    }
    /* The case is large: off the caller's stack. */
    sess_case *c = core_xmalloc(sizeof *c);
    int stop = 0;
    for (;;) {
        MDB_txn *txn;
        MDB_cursor *cur;
        int rc = rtxn_begin(e, &txn);
        if (rc) {
            free(c);
            return from_mdb(rc);
        }
        rc = mdb_cursor_open(txn, e->by_touch, &cur);
        if (rc) {
            rtxn_end(e, txn);
            free(c);
            return from_mdb(rc);
        }
        /* The entry before `last` (strictly), or the newest. */
        MDB_val k = {last_len, last}, v;
        if (last_len) {
            rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
            rc = rc == MDB_NOTFOUND ? mdb_cursor_get(cur, &k, &v, MDB_LAST)
                                    : (rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_PREV));
            /* SET_RANGE found a key >= last; LAST is < last unless equal. */
            if (rc == 0 && k.mv_size == last_len && memcmp(k.mv_data, last, last_len) == 0)
                rc = mdb_cursor_get(cur, &k, &v, MDB_PREV);
        } else {
            rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
        }
        for (int n = 0; rc == 0 && n < ITER_CHUNK && !stop; n++) {
            last_len = k.mv_size < sizeof last ? k.mv_size : sizeof last;
            memcpy(last, k.mv_data, last_len);
            if (k.mv_size > 8) {
                /* The case itself; an index entry whose case is gone or
                 * was touched since (not committed yet) is skipped. */
                MDB_val ck = {k.mv_size - 8, (uint8_t *)k.mv_data + 8}, cv;
                int64_t touched;
                if (mdb_get(txn, e->cases, &ck, &cv) == 0 &&
                    sess__case_touched(cv.mv_data, cv.mv_size, &touched) &&
                    touched == sess__touch_time(k.mv_data) &&
                    decode_logged(e, ck.mv_data, ck.mv_size, &cv, c) == 0)
                    stop = fn(ud, ck.mv_data, ck.mv_size, c);
            }
            if (!stop)
                rc = mdb_cursor_get(cur, &k, &v, MDB_PREV);
        }
        mdb_cursor_close(cur);
        rtxn_end(e, txn);
        if (stop || rc == MDB_NOTFOUND) {
            free(c);
            return stop;
        }
        if (rc) {
            free(c);
            return from_mdb(rc);
        }
    }
}

/* The user's callback of one iterator and its argument. */
typedef struct fn_ud {
    sess_dict_fn dict;
    sess_count_fn count;
    sess_offset_fn offset;
    sess_request_fn request;
    sess_held_fn held;
    void *ud;
} fn_ud;

static int dict_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    if (k->mv_size != 4) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: dict: key of %zu bytes skipped", e->path,
                  k->mv_size);
        return 0;
    }
    /* The callback gets a NUL-terminated text; LMDB values are not. */
    char small[256];
    char *text = v->mv_size < sizeof small ? small : core_xmalloc(v->mv_size + 1);
    memcpy(text, v->mv_data, v->mv_size);
    text[v->mv_size] = 0;
    int rc = f->dict(f->ud, sess__get_u32be(k->mv_data), text, v->mv_size);
    if (text != small)
        free(text);
    return rc;
}

int sess_dict_iter(sess_env *e, sess_dict_fn fn, void *ud)
{
    fn_ud f = {.dict = fn, .ud = ud};
    return iter_table(e, e->dict, dict_kv, &f);
}

static int count_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    if (v->mv_size != 8) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: counts: value of %zu bytes skipped", e->path,
                  v->mv_size);
        return 0;
    }
    return f->count(f->ud, k->mv_data, k->mv_size, sess__get_u64le(v->mv_data));
}

int sess_count_iter(sess_env *e, sess_count_fn fn, void *ud)
{
    fn_ud f = {.count = fn, .ud = ud};
    return iter_table(e, e->counts, count_kv, &f);
}

static int offset_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    const uint8_t *key = k->mv_data;
    size_t tlen = k->mv_size >= 5 ? k->mv_size - 5 : 0;
    if (k->mv_size < 6 || v->mv_size != 8 || key[tlen] != 0 || memchr(key, 0, tlen)) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: offsets: malformed entry skipped", e->path);
        return 0;
    }
    char topic[SESS_MAX_TOPIC + 1];
    if (tlen > SESS_MAX_TOPIC)
        return 0;
    memcpy(topic, key, tlen + 1);
    return f->offset(f->ud, topic, (int32_t)sess__get_u32be(key + tlen + 1),
                     (int64_t)sess__get_u64le(v->mv_data));
}

int sess_offset_iter(sess_env *e, sess_offset_fn fn, void *ud)
{
    fn_ud f = {.offset = fn, .ud = ud};
    return iter_table(e, e->offsets, offset_kv, &f);
}

static int request_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    if (k->mv_size != SESS_REQUEST_ID || v->mv_size != 8) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: requests: malformed entry skipped", e->path);
        return 0;
    }
    return f->request(f->ud, k->mv_data, (int64_t)sess__get_u64le(v->mv_data));
}

int sess_request_iter(sess_env *e, sess_request_fn fn, void *ud)
{
    if (!e->requests)
        return 0;
    fn_ud f = {.request = fn, .ud = ud};
    return iter_table(e, e->requests, request_kv, &f);
}

static int held_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    const uint8_t *key = k->mv_data;
    size_t len = k->mv_size > 8 ? k->mv_size - 8 : 0;
    if (!len || len > SESS_MAX_ID || memchr(key + 8, 0, len)) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: held: malformed entry skipped", e->path);
        return 0;
    }
    uint64_t no = 0;
    for (int i = 0; i < 8; i++)
        no = no << 8 | key[i];
    return f->held(f->ud, (const char *)key + 8, len, no, v->mv_data, v->mv_size);
}

static int held_by_case_kv(sess_env *e, void *ud, const MDB_val *k, const MDB_val *v)
{
    fn_ud *f = ud;
    uint64_t no;
    ptrdiff_t len = held_by_case_key(k, &no);
    if (len < 0) {
        core_logf(&e->log, CORE_LOG_WARN, "state %s: held: malformed entry skipped", e->path);
        return 0;
    }
    return f->held(f->ud, k->mv_data, (size_t)len, no, v->mv_data, v->mv_size);
}

int sess_held_iter(sess_env *e, sess_held_fn fn, void *ud)
{
    fn_ud f = {.held = fn, .ud = ud};
    int rc = e->held ? iter_table(e, e->held, held_kv, &f) : 0;
    if (!rc && e->held_by_case)
        rc = iter_table(e, e->held_by_case, held_by_case_kv, &f);
    return rc;
}

/* The free list is LMDB's table 0; each record holds a count, then that
 * many page numbers. */
size_t sess_free_bytes(sess_env *e)
{
    MDB_txn *txn;
    if (rtxn_begin(e, &txn) != 0)
        return 0;
    size_t n = 0;
    MDB_cursor *c;
    if (mdb_cursor_open(txn, 0, &c) == 0) {
        MDB_val k, v;
        while (mdb_cursor_get(c, &k, &v, MDB_NEXT) == 0)
            if (v.mv_size >= sizeof(size_t)) {
                size_t cnt;
                memcpy(&cnt, v.mv_data, sizeof cnt);
                n += cnt;
            }
        mdb_cursor_close(c);
    }
    MDB_stat st;
    mdb_env_stat(e->env, &st);
    rtxn_end(e, txn);
    return n * (size_t)st.ms_psize;
}

size_t sess_resident_bytes(sess_env *e)
{
    /* LMDB does not say where its map is (me_mapaddr is only set for a
     * fixed map); the kernel's list of the process's mappings does. */
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char dir[PATH_MAX], want[PATH_MAX + 16], line[PATH_MAX + 128];
    snprintf(want, sizeof want, "%s/data.mdb", realpath(e->path, dir) ? dir : e->path);
    size_t kb = 0, wl = strlen(want);
    bool in = false;
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
            line[--n] = 0;
        unsigned long long v;
        if (line[0] >= '0' && line[0] <= '9' && strchr(line, '-') && strchr(line, ' '))
            in = n >= wl && strcmp(line + n - wl, want) == 0; /* a mapping's first line */
        else if (in && sscanf(line, "Rss: %llu kB", &v) == 1)
            kb += (size_t)v;
    }
    fclose(f);
    return kb * 1024;
}

void sess_get_stats(sess_env *e, sess_stats *out)
{
    memset(out, 0, sizeof *out);
    MDB_txn *txn;
    if (rtxn_begin(e, &txn) == 0) {
        MDB_stat st;
        if (mdb_stat(txn, e->cases, &st) == 0)
            out->cases = st.ms_entries;
        if (mdb_stat(txn, e->dict, &st) == 0)
            out->dict = st.ms_entries;
        if (mdb_stat(txn, e->counts, &st) == 0)
            out->counters = st.ms_entries;
        if (mdb_stat(txn, e->offsets, &st) == 0)
            out->offsets = st.ms_entries;
        if (e->requests && mdb_stat(txn, e->requests, &st) == 0)
            out->requests = st.ms_entries;
        if (e->held && mdb_stat(txn, e->held, &st) == 0)
            out->held = st.ms_entries;
        if (e->held_by_case && mdb_stat(txn, e->held_by_case, &st) == 0)
            out->held += st.ms_entries;
        MDB_envinfo info;
        mdb_env_stat(e->env, &st);
        mdb_env_info(e->env, &info);
        out->page_size = st.ms_psize;
        out->map_size = info.me_mapsize;
        out->used_bytes = (info.me_last_pgno + 1) * (size_t)st.ms_psize;
        out->grows = e->grows;
        rtxn_end(e, txn);
    }
    file_size(e->path, "data.mdb", &out->file_bytes);
}

/* ------------------------------------------------------------------ */
/* The commit                                                          */
/* ------------------------------------------------------------------ */

static int del_touch(sess_env *e, MDB_txn *txn, int64_t t, const void *id, size_t len)
{
    uint8_t key[8 + SESS_MAX_ID];
    MDB_val k = {sess__touch_key(t, id, len, key), key};
    int rc = mdb_del(txn, e->by_touch, &k, NULL);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

static int put_touch(sess_env *e, MDB_txn *txn, int64_t t, const void *id, size_t len)
{
    uint8_t key[8 + SESS_MAX_ID];
    MDB_val k = {sess__touch_key(t, id, len, key), key}, v = {0, NULL};
    return mdb_put(txn, e->by_touch, &k, &v, 0);
}

/* The touched_ns of the committed value of a case: 1 found, 0 absent, -1
 * present but unreadable (logged), or an LMDB error. The cursor is left
 * on the case when it is there, for the change to go to without a second
 * search. */
static int old_touched(sess_env *e, MDB_cursor *cur, const MDB_val *k, int64_t *t)
{
    MDB_val key = *k, v;
    int rc = mdb_cursor_get(cur, &key, &v, MDB_SET_KEY);
    if (rc == MDB_NOTFOUND)
        return 0;
    if (rc)
        return rc;
    if (!sess__case_touched(v.mv_data, v.mv_size, t)) {
        core_logf(&e->log, CORE_LOG_WARN,
                  "state %s: case '%.*s': unreadable value replaced (its TTL index entry stays "
                  "until it expires)",
                  e->path, id_shown(k->mv_size), (const char *)k->mv_data);
        return -1;
    }
    return 1;
}

/* Cursors of the write transaction on the tables changed most. */
typedef struct apply_cur {
    MDB_cursor *cases, *counts;
} apply_cur;

static int apply_op(sess_env *e, MDB_txn *txn, apply_cur *cur, const sess_batch *b,
                    const sess__op *op)
{
    const char *key = b->data.data + op->koff;
    const uint8_t *val = (const uint8_t *)b->data.data + op->voff;
    MDB_val k = {op->klen, (void *)key}, v = {op->vlen, (void *)val};
    int64_t t_old = 0, t_new = 0;
    int rc;
    switch (op->kind) {
    case SESS__OP_CASE: {
        int had = old_touched(e, cur->cases, &k, &t_old);
        if (had < -1 || had > 1)
            return had;
        /* Found (readable or not), the cursor is on the case: the TTL index
         * is another table, whose changes leave it there. */
        if (op->del) {
            if (had == 0)
                return 0;
            if (had == 1 && (rc = del_touch(e, txn, t_old, key, op->klen)) != 0)
                return rc;
            rc = mdb_cursor_del(cur->cases, 0);
            return rc == MDB_NOTFOUND ? 0 : rc;
        }
        sess__case_touched(val, op->vlen, &t_new);
        if (had != 1 || t_old != t_new) {
            if (had == 1 && (rc = del_touch(e, txn, t_old, key, op->klen)) != 0)
                return rc;
            if ((rc = put_touch(e, txn, t_new, key, op->klen)) != 0)
                return rc;
        }
        return mdb_cursor_put(cur->cases, &k, &v, had ? MDB_CURRENT : 0);
    }
    case SESS__OP_TOUCH:
        rc = mdb_del(txn, e->by_touch, &k, NULL);
        return rc == MDB_NOTFOUND ? 0 : rc;
    case SESS__OP_COUNT: {
        MDB_val ck = k, old;
        uint64_t n = 0;
        rc = mdb_cursor_get(cur->counts, &ck, &old, MDB_SET_KEY);
        if (rc == 0 && old.mv_size == 8)
            n = sess__get_u64le(old.mv_data);
        else if (rc == 0)
            core_logf(&e->log, CORE_LOG_WARN, "state %s: counter of %u bytes: bad value reset",
                      e->path, op->klen);
        else if (rc != MDB_NOTFOUND)
            return rc;
        n = n > UINT64_MAX - op->delta ? UINT64_MAX : n + op->delta;
        uint8_t nb[8];
        sess__put_u64le(nb, n);
        v = (MDB_val){8, nb};
        return mdb_cursor_put(cur->counts, &k, &v, rc == 0 ? MDB_CURRENT : 0);
    }
    case SESS__OP_DICT:
        return mdb_put(txn, e->dict, &k, &v, 0);
    case SESS__OP_OFFSET:
        return mdb_put(txn, e->offsets, &k, &v, 0);
    case SESS__OP_META:
        return mdb_put(txn, e->meta, &k, &v, 0);
    case SESS__OP_REQUEST:
    case SESS__OP_HELD: {
        MDB_dbi dbi = op->kind == SESS__OP_HELD ? e->held : e->requests;
        if (op->del) {
            rc = mdb_del(txn, dbi, &k, NULL);
            return rc == MDB_NOTFOUND ? 0 : rc;
        }
        return mdb_put(txn, dbi, &k, &v, 0);
    }
    }
    core_panic("sess: change of unknown kind %u", op->kind);
}

/* One attempt: a write transaction with every live change. Returns an
 * LMDB code; the transaction is gone either way. */
static int apply(sess_env *e, const sess_batch *b)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(e->env, NULL, 0, &txn);
    if (rc)
        return rc;
    apply_cur cur;
    if ((rc = mdb_cursor_open(txn, e->cases, &cur.cases)) != 0 ||
        (rc = mdb_cursor_open(txn, e->counts, &cur.counts)) != 0) {
        mdb_txn_abort(txn); /* (closes a cursor it has) */
        return rc;
    }
    for (size_t i = 0; i < b->ops.n; i++) {
        if (b->ops.v[i].dead)
            continue;
        rc = apply_op(e, txn, &cur, b, &b->ops.v[i]);
        if (rc) {
            mdb_txn_abort(txn);
            return rc;
        }
    }
    /* A write transaction's cursors go with it. */
    return mdb_txn_commit(txn); /* frees the transaction also on failure */
}

/* True when the file system of dir has (almost) no room left for us. */
static bool disk_full(const char *dir)
{
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return false;
    return (uint64_t)fs.f_bavail * fs.f_frsize < 1024 * 1024;
}

static int grow(sess_env *e, size_t size)
{
    pthread_rwlock_wrlock(&e->lock);
    int rc = mdb_env_set_mapsize(e->env, size);
    if (rc == 0) {
        MDB_envinfo info;
        mdb_env_info(e->env, &info);
        e->map_size = info.me_mapsize;
        e->grows++;
    }
    pthread_rwlock_unlock(&e->lock);
    return rc;
}

int sess_batch_commit(sess_env *e, sess_batch *b, char *why, size_t whylen)
{
    int rc = sess_batch_write(e, b, why, whylen);
    if (rc == 0)
        sess_batch_clear(b);
    return rc;
}

int sess_batch_write(sess_env *e, const sess_batch *b, char *why, size_t whylen)
{
    if (e->read_only) {
        return core_fail(why, whylen, -EROFS, "state %s: opened read-only", e->path);
    }
    if (b->ops.n == 0)
        return 0;
    for (int resized = 0;;) {
        pthread_rwlock_rdlock(&e->lock);
        int rc = apply(e, b);
        pthread_rwlock_unlock(&e->lock);
        if (rc == 0)
            return 0;
        if (rc == MDB_MAP_FULL) {
            pthread_rwlock_rdlock(&e->lock); /* a reader may adopt a new size */
            size_t cur = e->map_size;
            pthread_rwlock_unlock(&e->lock);
            char sz[32];
            if (e->no_grow) {
                return core_fail(why, whylen, CORE_ELIMIT,
                                 "state %s: map full at %s (map growth disabled)", e->path,
                                 size_text(cur, sz, sizeof sz));
            }
            if (e->map_max && cur >= e->map_max) {
                return core_fail(why, whylen, CORE_ELIMIT,
                                 "state %s: map full at %s (state.map_max)", e->path,
                                 size_text(cur, sz, sizeof sz));
            }
            size_t next = cur > SIZE_MAX / 2 ? SIZE_MAX : cur * 2;
            if (e->map_max && next > e->map_max)
                next = e->map_max;
            rc = grow(e, next);
            if (rc) {
                return core_fail(why, whylen, from_mdb(rc),
                                 "state %s: cannot grow the map to %s: %s", e->path,
                                 size_text(next, sz, sizeof sz), mdb_strerror(rc));
            }
            core_logf(&e->log, CORE_LOG_INFO, "state %s: map grown to %s", e->path,
                      size_text(e->map_size, sz, sizeof sz));
            continue;
        }
        if (rc == MDB_MAP_RESIZED && resized++ < 3) {
            adopt_map_size(e);
            continue;
        }
        /* LMDB reports a short write as EIO, and a full disk usually
         * shows first as a short write: ask the file system. */
        if (rc == ENOSPC || (rc == EIO && disk_full(e->path))) {
            return core_fail(why, whylen, -ENOSPC, "state %s: no space left on device", e->path);
        }
        if (rc == EDQUOT || rc == EFBIG) {
            return core_fail(why, whylen, -rc, "state %s: data.mdb cannot grow: %s", e->path,
                             strerror(rc));
        }
        return core_fail(why, whylen, from_mdb(rc), "state %s: commit failed: %s", e->path,
                         mdb_strerror(rc));
    }
}

/* ------------------------------------------------------------------ */
/* TTL                                                                 */
/* ------------------------------------------------------------------ */

uint64_t sess_expire(sess_env *e, sess_batch *b, int64_t now_ns, int64_t ttl_ns, uint64_t max)
{
    if (max == 0 || e->read_only)
        return 0;
    int64_t cutoff;
    if (ttl_ns < 0 || __builtin_sub_overflow(now_ns, ttl_ns, &cutoff))
        cutoff = ttl_ns < 0 ? now_ns : INT64_MIN;
    MDB_txn *txn;
    MDB_cursor *cur;
    int rc = rtxn_begin(e, &txn);
    if (rc) {
        core_logf(&e->log, CORE_LOG_ERROR, "state %s: expiry: %s", e->path, mdb_strerror(rc));
        return 0;
    }
    rc = mdb_cursor_open(txn, e->by_touch, &cur);
    if (rc) {
        rtxn_end(e, txn);
        core_logf(&e->log, CORE_LOG_ERROR, "state %s: expiry: %s", e->path, mdb_strerror(rc));
        return 0;
    }
    /* Work per call is bounded by max: expired cases and stale index
     * entries (left by an unreadable value) count alike. */
    uint64_t expired = 0, stale = 0;
    MDB_val k, v;
    rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; rc == 0 && expired + stale < max; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size <= 8 || k.mv_size > 8 + SESS_MAX_ID) {
            sess__batch_push(b, SESS__OP_TOUCH, k.mv_data, k.mv_size, NULL, 0);
            stale++;
            continue;
        }
        int64_t t = sess__touch_time(k.mv_data);
        if (t >= cutoff)
            break;
        const char *id = (const char *)k.mv_data + 8;
        size_t len = k.mv_size - 8;
        const sess__op *op = sess__batch_find(b, SESS__OP_CASE, id, len);
        int64_t tc;
        if (op) {
            /* The batch has the case's latest state: a fresh put keeps
             * it, a delete is already queued. */
            if (!op->del &&
                sess__case_touched((const uint8_t *)b->data.data + op->voff, op->vlen, &tc) &&
                tc < cutoff) {
                sess_batch_case_del(b, id, len);
                expired++;
            }
            continue;
        }
        MDB_val ck = {len, (void *)id}, cv;
        int got = mdb_get(txn, e->cases, &ck, &cv);
        if (got != 0 && got != MDB_NOTFOUND) {
            rc = got;
            break;
        }
        bool readable = got == 0 && sess__case_touched(cv.mv_data, cv.mv_size, &tc);
        if (got == 0 && (!readable || tc == t)) {
            /* Expired. The commit finds the index entry of a readable
             * value itself; that of an unreadable one is named here. */
            if (!readable)
                sess__batch_push(b, SESS__OP_TOUCH, k.mv_data, k.mv_size, NULL, 0);
            sess_batch_case_del(b, id, len);
            expired++;
        } else {
            /* The index entry outlived its case's value (replaced while
             * unreadable, so its entry could not be found): drop it. */
            sess__batch_push(b, SESS__OP_TOUCH, k.mv_data, k.mv_size, NULL, 0);
            stale++;
        }
    }
    if (rc && rc != MDB_NOTFOUND)
        core_logf(&e->log, CORE_LOG_ERROR, "state %s: expiry: %s", e->path, mdb_strerror(rc));
    mdb_cursor_close(cur);
    rtxn_end(e, txn);
    return expired;
}
