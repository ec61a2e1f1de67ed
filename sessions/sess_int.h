/* Private to sessions/: the case encoding and the batch's layout. */
#ifndef PMRAG_SESS_INT_H
#define PMRAG_SESS_INT_H

#include "sessions.h"

/* Version byte of an encoded case (versions 1 to 3 are still read, and
 * 3 is still written for a case with nothing version 4 adds). */
#define SESS__CASE_VERSION 4
/* Upper bound of an encoded case: header 18, seq 10, model 5, two counts
 * 10, tokens 16 * 10, error and weight 16, vector 256 * (5 + 4) (2560 in
 * all), then the prediction 1 + 10 * 5 and the scores 4 * 10 + 5 + 8
 * (2680), the tokens' order 16 * (1 + 3 * 10 + 8 + 2 * 5) (784), the
 * fingerprints 3 * 5 + 256 * 8 (2063) and the variants told 1 + 8 * (5 +
 * 10) (121). */
#define SESS__CASE_MAX 5648
/* Largest dict text or meta value (a sanity bound, not an LMDB one). */
#define SESS__MAX_VALUE (64u << 20)
/* Offset of touched_ns (8 bytes, little-endian) in an encoded case: kept
 * fixed so that the TTL index can be maintained without a full decode. */
#define SESS__TOUCHED_OFF 2

/* Kinds of queued changes. */
enum {
    SESS__OP_CASE = 1,  /* put (vlen > 0) or delete (del) of a case */
    SESS__OP_TOUCH = 2, /* removal of a stale TTL index entry */
    SESS__OP_DICT = 3,
    SESS__OP_COUNT = 4,
    SESS__OP_OFFSET = 5,
    SESS__OP_META = 6,
    SESS__OP_REQUEST = 7, /* put or delete (del) of a request id */
    SESS__OP_HELD = 8,    /* put or delete (del) of a held event */
};

typedef struct sess__op {
    uint8_t kind;
    bool del;      /* SESS__OP_CASE, SESS__OP_REQUEST: a delete */
    bool dead;     /* replaced by a later change of the same key */
    uint32_t prev; /* previous change with the same key hash, or UINT32_MAX */
    uint32_t klen, vlen;
    size_t koff, voff; /* in the batch's data */
    uint64_t delta;    /* SESS__OP_COUNT */
} sess__op;

struct sess_batch {
    core_vec(sess__op) ops;
    core_buf data;  /* keys and values of every change */
    core_map index; /* hash of kind and key -> latest change */
    size_t calls;   /* sess_batch_size */
};

/* Whether c's counts are within their bounds (what encoding needs). */
bool sess__case_fits(const sess_case *c);
/* Encodes c (already validated: sess__case_fits) into out, which holds
 * SESS__CASE_MAX bytes; returns the length. */
size_t sess__case_encode(const sess_case *c, uint8_t *out);
/* Decodes n bytes. CORE_EVERSION for an unknown version byte,
 * CORE_ECORRUPT for anything malformed; why names the byte at fault. *out
 * is written whatever the result (garbage on failure). */
int sess__case_decode(const uint8_t *p, size_t n, sess_case *out, char *why, size_t whylen);
/* touched_ns of an encoded case; false when the value is too short or of
 * an unknown version. */
bool sess__case_touched(const uint8_t *p, size_t n, int64_t *touched);

/* A held event's key: the number big-endian, then the case id (numbers
 * are unique in the environment, and come in order of arrival). out holds
 * SESS_MAX_ID + 8 bytes; returns the length. */
size_t sess__held_key(const char *id, size_t len, uint64_t no, uint8_t *out);

/* The TTL index key: touched_ns with its sign bit flipped, big-endian (so
 * that bytewise order is time order), then the case id. out holds 8 +
 * SESS_MAX_ID bytes; returns the length. */
size_t sess__touch_key(int64_t touched, const char *id, size_t len, uint8_t *out);
int64_t sess__touch_time(const uint8_t *key);

/* The latest queued change of a key (dead or not), or NULL. */
const sess__op *sess__batch_find(const sess_batch *b, uint8_t kind, const void *key, size_t klen);
/* Queues a change (the value may be NULL with vlen 0), marking earlier
 * changes of the same key dead. Returns the new change. */
sess__op *sess__batch_push(sess_batch *b, uint8_t kind, const void *key, size_t klen,
                           const void *val, size_t vlen);

static inline void sess__put_u64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint64_t sess__get_u64le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static inline void sess__put_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline uint32_t sess__get_u32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
