/*
 * sessions.h - the streaming daemon's per-case state in LMDB.
 *
 * One environment (a directory holding data.mdb and lock.mdb) keeps:
 *   cases     case id -> sess_case (compact, versioned encoding)
 *   by_touch  touched_ns (big-endian) + case id -> empty: the TTL index
 *   dict      activity id (uint32 big-endian) -> activity text
 *   counts    any key bytes -> uint64: online directly-follows counters
 *   offsets   topic NUL partition (int32 big-endian) -> next input offset
 *   held_at   number (uint64 big-endian) + case id -> bytes: the events
 *             cases hold back (the daemon's event-time window), in the
 *             caller's encoding, by their order of arrival
 *   meta      text key -> bytes (model version and the like); keys that
 *             start with "sess." are reserved for this module
 *
 * Writes go through a batch: an in-memory log of changes that
 * sess_batch_commit applies in one LMDB write transaction together with
 * the input offsets they came from, so that after a restart the state and
 * the offsets agree and consumption resumes exactly where the state is.
 *
 * Threading: one writer thread (the one that calls sess_batch_commit and
 * sess_expire; a batch belongs to one thread); read functions may be
 * called from any thread at the same time, including during a commit.
 * Each read call runs its own short read transaction. The map is grown
 * inside sess_batch_commit while no transaction of this process is open:
 * reads hold a shared lock, the resize takes it exclusively. So a read
 * callback (the *_iter functions) must not call any sess_ function on the
 * same environment, and should return quickly: while it runs, a resize in
 * the writer waits.
 *
 * Several processes may open one directory: one writer (sess_open without
 * read_only takes an exclusive lock on DIR/pmrag.lock; a second writer is
 * refused with -EBUSY) and any number of read-only openers (pmrag state).
 *
 * Errors: 0 or a negative code (core.h). Functions that take why/whylen
 * write a one-line reason naming the state directory there on failure.
 * Read functions that find a bad stored value report it, naming the case,
 * through the logger of sess_opts and return CORE_ECORRUPT or
 * CORE_EVERSION.
 */
#ifndef PMRAG_SESSIONS_H
#define PMRAG_SESSIONS_H

#include "core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SESS_MAX_TOKENS 16 /* last activities kept per case */
#define SESS_MAX_VEC 256   /* entries of the sparse PPR vector kept per case */
#define SESS_MAX_PRED 10   /* symbols of the latest prediction kept per case (for its scoring) */
#define SESS_MAX_SEEN 256  /* event fingerprints kept per case (duplicates applied once) */
#define SESS_MAX_TOLD 8    /* variants named by a case's values kept per case */
/* Longest case id, counter key, meta key and topic (LMDB keys are at most
 * 511 bytes; the TTL index prefixes 8 bytes to the case id). */
#define SESS_MAX_ID 500
#define SESS_MAX_TOPIC 400

typedef struct sess_entry {
    uint32_t node;
    float score;
} sess_entry;

/*
 * Where a token stands in its case's event-time order (what
 * model_order_ev says of the event, as it was placed), and the revision
 * of the prediction published after it.
 */
typedef struct sess_tok {
    int64_t key;   /* the time the case is ordered by; INT64_MIN: not known (stored
                      by a build before the order was kept: before any other) */
    int64_t shift; /* key minus the event's own time (a clock corrected) */
    int64_t dur;   /* a span's duration in ns; -1: unknown, or not a span */
    uint64_t span; /* the span it is, or the span it belongs to; 0: none */
    uint32_t depth;
    uint32_t rev; /* revision of the prediction published after it */
    bool is_span;
} sess_tok;

/*
 * The state of one case. Only the first ntok tokens, the first nvec
 * vector entries and the first nseen fingerprints are stored; the vector
 * is kept in the order given (no sorting), duplicates included.
 */
typedef struct sess_case {
    uint64_t seq;           /* events applied to the case (its prefix length) */
    int64_t last_time_ns;   /* event time of the last event, INT64_MIN none */
    int64_t touched_ns;     /* wall-clock time of the last update (TTL) */
    uint32_t model_version; /* model the vector was computed with */
    bool closed;            /* ended by an end activity */
    uint32_t ntok;          /* last activities, oldest first (<= SESS_MAX_TOKENS) */
    uint32_t act[SESS_MAX_TOKENS], var[SESS_MAX_TOKENS];
    sess_tok tok[SESS_MAX_TOKENS]; /* their places in the case's order */
    uint32_t nvec;                 /* <= SESS_MAX_VEC */
    double vec_err;                /* mass dropped from the vector (an error bound) */
    double vec_wsum;               /* total weight of the decayed seed the vector stands for */
    sess_entry vec[SESS_MAX_VEC];
    /* Online accuracy. The latest prediction's symbols (graph symbol ids,
     * best first), scored when the case's next event arrives: how many
     * predictions of the case were scored, how many had the next emitter
     * within the top 1, 3 and 10, their reciprocal ranks summed, and the
     * rank the latest event had in the prediction before it (0: a miss,
     * -1: not scored, the case's first event). has_pred is false for a
     * case with no prediction yet, or one stored by a build before the
     * scoring (whose next event then is not scored). */
    bool has_pred;
    uint32_t npred; /* <= SESS_MAX_PRED */
    uint32_t pred[SESS_MAX_PRED];
    uint64_t scored, hit1, hit3, hit10;
    double rr;
    int32_t last_rank;
    /* Events received and held back, not applied yet (their bytes are in
     * the held table); fingerprints of the case's latest events, a ring
     * (seen_next: the slot the next one replaces once it is full), so that
     * an event received twice is applied once. */
    uint32_t nheld;
    uint32_t nseen, seen_next; /* nseen <= SESS_MAX_SEEN */
    uint64_t seen[SESS_MAX_SEEN];
    /* The variants (graph symbols) the case's events named by a value,
     * in the order they were first named, each with the seq of the event
     * that named it first: what the mapping reads of the case beyond its
     * last tokens (map_told_note). */
    uint32_t ntold; /* <= SESS_MAX_TOLD */
    uint32_t told[SESS_MAX_TOLD];
    uint64_t told_seq[SESS_MAX_TOLD];
} sess_case;

typedef struct sess_opts {
    const char *path; /* directory, created if missing (not when read_only) */
    size_t map_size;  /* initial map size, 0 = 64 MiB; raised to the data file's size */
    size_t map_max;   /* growth stops here (0 = no limit) */
    bool no_grow;     /* never grow: a full map is an error */
    bool read_only;   /* inspect only: nothing is created, commits are refused */
    core_logger log;  /* warnings about bad stored values, map growth (copied) */
} sess_opts;

typedef struct sess_env sess_env;

/*
 * Opens (creating when missing, unless read_only) the environment in
 * o->path. Errors name the path: -ENOENT "DIR: no such state directory"
 * (read_only), CORE_EFORMAT "DIR: not a pmrag state directory",
 * CORE_EVERSION for a layout this build does not know, -EBUSY when
 * another process has it open for writing, else an errno. *out is written
 * only on success; free it with sess_close.
 */
int sess_open(const sess_opts *o, sess_env **out, char *why, size_t whylen);
/* Closes the environment. No call on it may be running. NULL is a no-op. */
void sess_close(sess_env *e);

/* ---- reads: any thread ------------------------------------------------ */

/* Copies the committed state of a case into *out. CORE_ENOTFOUND when
 * absent; CORE_ECORRUPT / CORE_EVERSION (logged, naming the case) when its
 * stored value cannot be decoded. */
int sess_case_get(sess_env *e, const char *case_id, size_t len, sess_case *out);
/* The stored form of a case (compact, versioned), for copies kept
 * elsewhere (a changelog topic): appends it to out; CORE_ELIMIT when ntok,
 * nvec, npred or nseen is over the maximum. Decoding: CORE_EVERSION or
 * CORE_ECORRUPT (why names the byte) for what is not such a value.
 * Version 2 added the online-accuracy fields; a version 1 value (written
 * by a build before them) decodes with none (npred 0, counts 0,
 * last_rank -1). Version 3 added the tokens' places in the case's order,
 * the held count and the fingerprints; an older value decodes with none
 * (keys INT64_MIN, durations -1, counts 0). Values are always written as
 * version 3, which a build that reads only older ones refuses with
 * CORE_EVERSION. */
int sess_case_encode(const sess_case *c, core_buf *out);
int sess_case_decode(const void *p, size_t n, sess_case *out, char *why, size_t whylen);
/* The next offset to consume of a topic partition. CORE_ENOTFOUND when
 * none was committed. */
int sess_offset_get(sess_env *e, const char *topic, int32_t partition, int64_t *next_offset);
/* Replaces the content of *val with the value of a meta key (NUL-terminated
 * after val->len bytes). CORE_ENOTFOUND when absent (val untouched). */
int sess_meta_get(sess_env *e, const char *key, core_buf *val);

/*
 * Iteration, in key order, over committed entries. Arguments passed to
 * the callback are valid only during the call. A non-zero return from the
 * callback stops the iteration and is returned. The iteration is not one
 * snapshot: it reads in chunks (short transactions, so that a long dump
 * does not hold up the writer); every entry present for the whole
 * iteration is seen exactly once, entries changed meanwhile may be seen
 * old or new.
 */
typedef int (*sess_case_fn)(void *ud, const char *case_id, size_t len, const sess_case *c);
/* Sorted by case id (bytewise). A case whose value cannot be decoded is
 * logged, naming it, and skipped; the iteration then returns
 * CORE_ECORRUPT (or CORE_EVERSION) at the end. */
int sess_case_iter(sess_env *e, sess_case_fn fn, void *ud);
/* Newest first (by touched_ns, then case id, both descending), through
 * the TTL index: the cases touched strictly before (before_ns,
 * before_id), or from the newest when before_id is NULL; a page of a
 * long list costs the page, not the list. Cases that cannot be decoded
 * are logged and skipped. Returns the callback's non-zero value or 0;
 * CORE_ELIMIT for a before_id over SESS_MAX_ID. */
int sess_case_recent(sess_env *e, int64_t before_ns, const char *before_id, size_t before_len,
                     sess_case_fn fn, void *ud);
typedef int (*sess_dict_fn)(void *ud, uint32_t id, const char *text, size_t len);
/* The activity dictionary in id order. text is NUL-terminated. */
int sess_dict_iter(sess_env *e, sess_dict_fn fn, void *ud);
typedef int (*sess_count_fn)(void *ud, const void *key, size_t klen, uint64_t count);
/* The counters in bytewise key order. */
int sess_count_iter(sess_env *e, sess_count_fn fn, void *ud);
typedef int (*sess_offset_fn)(void *ud, const char *topic, int32_t partition, int64_t next_offset);
/* By topic (bytewise), then partition (as unsigned: 0, 1, 2, ...). */
int sess_offset_iter(sess_env *e, sess_offset_fn fn, void *ud);

/*
 * Requests already applied (the OTLP/HTTP receiver's duplicate check): an
 * id of SESS_REQUEST_ID bytes and the time it was committed, written in
 * the same transaction as the state changes the request made.
 */
#define SESS_REQUEST_ID 16
typedef int (*sess_request_fn)(void *ud, const uint8_t *id, int64_t time_ns);
/* In bytewise id order. */
int sess_request_iter(sess_env *e, sess_request_fn fn, void *ud);

/*
 * The requests of the last minutes in memory (a duplicate check before
 * the state is read): ids with a state and a time, oldest first. Not
 * thread-safe: the owner locks.
 */
typedef enum {
    SESS_RECENT_NONE = 0, /* unknown (or dropped) */
    SESS_RECENT_PENDING,  /* being applied: wait for its outcome */
    SESS_RECENT_DONE,     /* committed */
} sess_recent_state;
typedef struct sess_recent sess_recent;
sess_recent *sess_recent_new(void);
void sess_recent_free(sess_recent *r); /* NULL: no-op */
sess_recent_state sess_recent_get(const sess_recent *r, const uint8_t *id);
/* Sets the state and time of id, adding it at the back when unknown;
 * SESS_RECENT_NONE drops it (its place stays until it reaches the front). */
void sess_recent_set(sess_recent *r, const uint8_t *id, sess_recent_state state, int64_t time_ns);
/* From the front: removes committed ids older than before_ns, and more
 * while over max_live ids are kept, calling gone(ud, id) for each; stops
 * at an id still pending. Returns how many committed ids went. */
size_t sess_recent_expire(sess_recent *r, int64_t before_ns, size_t max_live,
                          void (*gone)(void *ud, const uint8_t *id), void *ud);
/* Ids kept (pending or committed). */
size_t sess_recent_count(const sess_recent *r);

/*
 * Events held back (the daemon's event-time window): values the caller
 * encodes, each under its case and a number unique in the environment
 * that grows with arrival (new entries go where the last ones went), written in the same
 * transaction as the state and offsets they came with, so that an acknowledged event held back is
 * neither lost nor applied twice after a crash. Callback arguments are valid only during the call.
 */
typedef int (*sess_held_fn)(void *ud, const char *case_id, size_t len, uint64_t no, const void *val,
                            size_t n);
/* By number. Malformed keys are logged and skipped. */
int sess_held_iter(sess_env *e, sess_held_fn fn, void *ud);

typedef struct sess_stats {
    uint64_t cases, dict, counters, offsets, requests, held; /* entries of each table */
    size_t map_size;                                         /* current map size */
    size_t used_bytes; /* pages in use by LMDB (last page + 1) * page size */
    size_t file_bytes; /* size of data.mdb */
    size_t page_size;
    uint64_t grows; /* map growths by this process since sess_open */
} sess_stats;
/* Fills *out (zeros what cannot be read). */
void sess_get_stats(sess_env *e, sess_stats *out);
/* Of sess_stats.used_bytes, the bytes on LMDB's free list: freed by writes
 * that no reader needs any more, reused before the file grows (0 when it
 * cannot be read). Walks the free list, so it is read apart from the
 * counts that every case listing needs. */
size_t sess_free_bytes(sess_env *e);
/* Of sess_stats.used_bytes, those in memory now: the resident pages of
 * the store's map (what the process's RSS counts of it); 0 when it cannot
 * be read. */
size_t sess_resident_bytes(sess_env *e);

/* ---- writes: the writer thread -------------------------------------- */

/*
 * A batch: changes queued in memory, applied in order and atomically by
 * sess_batch_commit. The batch copies everything it is given. Later
 * changes of one key replace earlier ones (counter deltas add up), so a
 * case updated per event costs one write per commit.
 *
 * The queueing functions return 0, or without queueing anything:
 * CORE_EUSAGE for an empty key, CORE_ELIMIT for a case id or counter key
 * longer than SESS_MAX_ID, a topic longer than SESS_MAX_TOPIC or with a
 * NUL, a meta key longer than SESS_MAX_ID, a dict text or meta value
 * over 64 MiB, or a case with ntok, nvec, npred or nseen over the maximum
 * (or seen_next past nseen).
 */
typedef struct sess_batch sess_batch;
sess_batch *sess_batch_new(void);
/* Queues the whole state of a case (replacing any queued state of it). */
int sess_batch_case_put(sess_batch *b, const char *case_id, size_t len, const sess_case *c);
/* Queues the deletion of a case (and of its TTL index entry). Deleting an
 * absent case is not an error. */
int sess_batch_case_del(sess_batch *b, const char *case_id, size_t len);
int sess_batch_dict_put(sess_batch *b, uint32_t id, const char *text, size_t len);
/* Adds delta to a counter (created at 0; saturates at UINT64_MAX). */
int sess_batch_count_add(sess_batch *b, const void *key, size_t klen, uint64_t delta);
int sess_batch_offset_put(sess_batch *b, const char *topic, int32_t partition, int64_t next_offset);
/* Records a request id (sess_request_iter), or deletes one (absent: no
 * error). */
int sess_batch_request_put(sess_batch *b, const uint8_t id[SESS_REQUEST_ID], int64_t time_ns);
int sess_batch_request_del(sess_batch *b, const uint8_t id[SESS_REQUEST_ID]);
/* key is a NUL-terminated text. */
int sess_batch_meta_put(sess_batch *b, const char *key, const void *val, size_t len);
/* Records event no of a case as held (its bytes, at most 64 MiB), or
 * deletes it (absent: no error). */
int sess_batch_held_put(sess_batch *b, const char *case_id, size_t len, uint64_t no,
                        const void *val, size_t n);
int sess_batch_held_del(sess_batch *b, const char *case_id, size_t len, uint64_t no);
/*
 * Looks a case up among the queued changes, so the writer reads its own
 * writes: returns 1 when the latest queued change of the case is a put
 * (its state copied to *out), 0 when it is a delete, -1 when the batch
 * does not touch the case (then ask sess_case_get).
 */
int sess_batch_case_find(const sess_batch *b, const char *case_id, size_t len, sess_case *out);
/* Changes queued (every call counts, also those replaced by later ones). */
size_t sess_batch_size(const sess_batch *b);
/* Bytes the batch holds (its changes, their keys and values, its index). */
size_t sess_batch_bytes(const sess_batch *b);

/*
 * Applies the batch in one write transaction, durable on return (LMDB
 * syncs the data file at every commit). On success the batch is emptied
 * for reuse. When the map is full the transaction is aborted, the
 * map doubled (up to map_max) and the batch applied again: nothing is
 * lost. At map_max: CORE_ELIMIT, "state DIR: map full at N MiB
 * (state.map_max)" (with no_grow: "... (map growth disabled)"); when the disk is full: -ENOSPC,
 * "state DIR: no space left on device" (LMDB reports a short write as EIO: when the file system
 * then has under 1 MiB free, that is taken as a full disk); other write errors as -errno. On any
 * failure the transaction is aborted (the committed state is as before the call) and the batch is
 * kept, so the caller may stop cleanly or retry. Refused (-EROFS) on a read-only environment.
 * Writer thread only.
 */
int sess_batch_commit(sess_env *e, sess_batch *b, char *why, size_t whylen);
/* The same write, leaving the batch as it is (to be cleared by its owner):
 * the owner's other threads may go on reading it (sess_batch_case_find)
 * while the writer thread writes it. */
int sess_batch_write(sess_env *e, const sess_batch *b, char *why, size_t whylen);
/* Empties the batch without applying it. */
void sess_batch_clear(sess_batch *b);
void sess_batch_free(sess_batch *b);

/*
 * TTL: queues into b the deletion of committed cases whose touched_ns is
 * older than now_ns - ttl_ns, oldest first, at most max of them per call
 * (so that a large expiry does not stall the writer). Walks the by_touch
 * index, not every case. Cases with a queued change in b are left alone
 * unless that change is a put that is itself too old. Index entries
 * left without their case (one whose value was unreadable when it was
 * replaced) are queued for removal too and count against max. Returns the
 * number of cases queued for deletion (0 on a read error, which is
 * logged). Writer thread only.
 */
uint64_t sess_expire(sess_env *e, sess_batch *b, int64_t now_ns, int64_t ttl_ns, uint64_t max);

/*
 * A case's lifecycle: the rules a case lives by, whatever stores it.
 *   admission   a case the state does not have starts only when the
 *               bucket of new cases has a token: it holds one second's
 *               worth of new_cases_per_second and refills continuously
 *               (0: no limit);
 *   cap         a case takes at most max_events events (0: no limit);
 *   end         an event whose activity is one of end_activities (texts
 *               separated by ';', blanks around them ignored) closes its
 *               case, which is then deleted;
 *   idle        a case untouched for the TTL is forgotten (sess_expire).
 * The caller counts what the rules refuse. A sess_rules belongs to one
 * thread at a time (the admission bucket changes); the options are copied.
 */
typedef struct sess_rules_opts {
    uint64_t new_cases_per_second;
    uint64_t max_events;
    const char *end_activities;
} sess_rules_opts;

typedef struct sess_rules sess_rules;
sess_rules *sess_rules_new(const sess_rules_opts *o);
void sess_rules_free(sess_rules *r); /* NULL: no-op */
/* Whether a new case may start at now_ns (monotonic); takes its token. */
bool sess_rules_admit(sess_rules *r, uint64_t now_ns);
/* Whether a case of seq events applied and nheld held has room for one
 * more. */
bool sess_rules_room(const sess_rules *r, uint64_t seq, uint32_t nheld);
/* Whether an event of this activity ends its case. */
bool sess_rules_ends(const sess_rules *r, const char *activity);

#ifdef __cplusplus
}
#endif
#endif
