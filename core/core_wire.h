/*
 * core_wire.h - protobuf's wire format: varints, zigzag, field tags,
 * fixed-width and length-delimited fields. The one implementation behind
 * every protobuf we read or write by hand (OTLP requests, the gRPC status
 * the receiver answers with, the published prediction) and behind the
 * varints of the stored case encoding.
 *
 * Writing: core_wire_put_* write at q, where the caller has made room (a
 * varint takes at most CORE_WIRE_VARINT_MAX bytes, core_wire_varint_len
 * says how many exactly), and return the byte after what they wrote;
 * core_wire_buf_* append to a core_buf.
 * Reading never passes the end it is given; a read that fails moves
 * nothing and says why with a CORE_WIRE_E* code, for the caller to word
 * (each decoder names offsets and fields its own way).
 *
 * Threading and ownership: everything here is reentrant. A field that
 * core_wire_next reads points into the bytes it was read from (borrowed).
 */
#ifndef PMRAG_CORE_WIRE_H
#define PMRAG_CORE_WIRE_H

#include "core_buf.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CORE_WIRE_INLINE static inline __attribute__((always_inline))
#else
#define CORE_WIRE_INLINE static inline
#endif

/* Wire types, by protobuf's names. */
typedef enum core_wire_type {
    CORE_WIRE_VARINT = 0,
    CORE_WIRE_I64 = 1,
    CORE_WIRE_LEN = 2,
    CORE_WIRE_GROUP_START = 3, /* proto2 groups: no proto3 writer sends them */
    CORE_WIRE_GROUP_END = 4,
    CORE_WIRE_I32 = 5,
} core_wire_type;

#define CORE_WIRE_VARINT_MAX 10        /* bytes of the longest varint */
#define CORE_WIRE_FIELD_MAX 0x1fffffff /* the largest field number, 2^29 - 1 */

/* What a read found wrong. */
enum {
    CORE_WIRE_ECUT = -1,      /* the input ends inside a varint or a fixed-width value */
    CORE_WIRE_ELONG = -2,     /* a varint of more than CORE_WIRE_VARINT_MAX bytes */
    CORE_WIRE_ENUMBER = -3,   /* field number 0 or past CORE_WIRE_FIELD_MAX */
    CORE_WIRE_EPAST_END = -4, /* a length that runs past the end */
    CORE_WIRE_EGROUP = -5,    /* wire type GROUP_START or GROUP_END */
    CORE_WIRE_ETYPE = -6,     /* wire type 6 or 7 */
};

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* Bytes of v as a varint (1 to 10). */
static inline size_t core_wire_varint_len(uint64_t v)
{
    size_t k = 1;
    while (v >= 0x80) {
        v >>= 7;
        k++;
    }
    return k;
}

/* Base-128, least significant group first, the high bit set on every
 * byte but the last. */
static inline uint8_t *core_wire_put_varint(uint8_t *q, uint64_t v)
{
    while (v >= 0x80) {
        *q++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *q++ = (uint8_t)v;
    return q;
}

/* A field's tag: its number and wire type as one varint (one byte for the
 * numbers 1 to 15). */
static inline uint8_t *core_wire_put_tag(uint8_t *q, uint32_t field, core_wire_type wt)
{
    return core_wire_put_varint(q, (uint64_t)field << 3 | (uint64_t)wt);
}

/* Fixed-width values are little-endian. */
static inline uint8_t *core_wire_put_fixed32(uint8_t *q, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *q++ = (uint8_t)(v >> (8 * i));
    return q;
}
static inline uint8_t *core_wire_put_fixed64(uint8_t *q, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *q++ = (uint8_t)(v >> (8 * i));
    return q;
}

/* Signed integers of sint64: small magnitudes, either sign, give small
 * varints (0, -1, 1, -2 ... become 0, 1, 2, 3 ...). */
static inline uint64_t core_wire_zigzag(int64_t v)
{
    return (uint64_t)v << 1 ^ (uint64_t)(v >> 63);
}
static inline int64_t core_wire_unzigzag(uint64_t z)
{
    return (int64_t)(z >> 1 ^ (~(z & 1) + 1));
}

/* The same, appended to b. */
void core_wire_buf_varint(core_buf *b, uint64_t v);
void core_wire_buf_tag(core_buf *b, uint32_t field, core_wire_type wt);
/* A length-delimited field: tag, length, then n bytes of p. */
void core_wire_buf_bytes(core_buf *b, uint32_t field, const void *p, size_t n);

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

int core__wire_get_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *v);

/*
 * Reads the varint at *p, before end: 0 with *v, *p moved past it; or
 * CORE_WIRE_ECUT, CORE_WIRE_ELONG. Bits a tenth byte carries past the
 * 64th are dropped, as protobuf's own readers do. Varints of one to three
 * bytes (tags, lengths, small numbers: nearly all of them) are read
 * inline, the rest by a call.
 */
CORE_WIRE_INLINE int core_wire_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    if (end - q >= 3) {
        if (q[0] < 0x80) {
            *v = q[0];
            *p = q + 1;
            return 0;
        }
        if (q[1] < 0x80) {
            *v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
            *p = q + 2;
            return 0;
        }
        if (q[2] < 0x80) {
            *v = (uint64_t)(q[0] & 0x7f) | (uint64_t)(q[1] & 0x7f) << 7 | (uint64_t)q[2] << 14;
            *p = q + 3;
            return 0;
        }
    }
    return core__wire_get_varint_slow(p, end, v);
}

/* One field as read: what its wire type does not set is zero (or NULL). */
typedef struct core_wire_field {
    uint32_t num;       /* 0 until the tag is read (and for an invalid number) */
    int wt;             /* core_wire_type; -1 when the tag could not be read */
    uint64_t v;         /* VARINT, I64, I32: the value. LEN: the length, also one
                           past the end. An invalid field number: the number */
    const uint8_t *tag; /* where the field starts */
    const uint8_t *val; /* where its value (a LEN field's length) starts */
    const uint8_t *p;   /* LEN: the payload */
    size_t n;           /* LEN: its length; one past the end: the bytes there are */
} core_wire_field;

/*
 * Reads the field at *p, before end, and moves *p past it (past a LEN
 * field's payload too: a field the caller does not know is skipped by
 * reading it). Returns 1 with *f, 0 when *p is at end, or a CORE_WIRE_E*
 * code with what *f got to (f->wt < 0: the tag itself was at fault).
 */
int core_wire_next(const uint8_t **p, const uint8_t *end, core_wire_field *f);

#ifdef __cplusplus
}
#endif
#endif
