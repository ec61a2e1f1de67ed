/* Protobuf's wire format (core_wire.h): what is not inline. */
#include "core_wire.h"

int core__wire_get_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    uint64_t x = 0;
    for (int i = 0; i < CORE_WIRE_VARINT_MAX; i++) {
        if (q + i >= end)
            return CORE_WIRE_ECUT;
        x |= (uint64_t)(q[i] & 0x7f) << (7 * i);
        if (q[i] < 0x80) {
            *v = x;
            *p = q + i + 1;
            return 0;
        }
    }
    return CORE_WIRE_ELONG;
}

void core_wire_buf_varint(core_buf *b, uint64_t v)
{
    core_buf_reserve(b, CORE_WIRE_VARINT_MAX);
    uint8_t *q = (uint8_t *)b->data + b->len;
    b->len += (size_t)(core_wire_put_varint(q, v) - q);
    b->data[b->len] = 0;
}

void core_wire_buf_tag(core_buf *b, uint32_t field, core_wire_type wt)
{
    core_wire_buf_varint(b, (uint64_t)field << 3 | (uint64_t)wt);
}

void core_wire_buf_bytes(core_buf *b, uint32_t field, const void *p, size_t n)
{
    core_wire_buf_tag(b, field, CORE_WIRE_LEN);
    core_wire_buf_varint(b, n);
    core_buf_append(b, p, n);
}

int core_wire_next(const uint8_t **p, const uint8_t *end, core_wire_field *f)
{
    const uint8_t *q = *p;
    *f = (core_wire_field){.wt = -1, .tag = q};
    if (q >= end)
        return 0;
    uint64_t tag;
    int rc = core_wire_get_varint(&q, end, &tag);
    if (rc)
        return rc;
    f->wt = (int)(tag & 7);
    f->val = q;
    if (tag >> 3 == 0 || tag >> 3 > CORE_WIRE_FIELD_MAX) {
        f->v = tag >> 3;
        return CORE_WIRE_ENUMBER;
    }
    f->num = (uint32_t)(tag >> 3);
    switch (f->wt) {
    case CORE_WIRE_VARINT:
        rc = core_wire_get_varint(&q, end, &f->v);
        if (rc)
            return rc;
        break;
    case CORE_WIRE_I64:
    case CORE_WIRE_I32: {
        int n = f->wt == CORE_WIRE_I64 ? 8 : 4;
        if (end - q < n)
            return CORE_WIRE_ECUT;
        f->v = core_get_le(q, n);
        q += n;
        break;
    }
    case CORE_WIRE_LEN:
        rc = core_wire_get_varint(&q, end, &f->v);
        if (rc)
            return rc;
        if (f->v > (uint64_t)(end - q)) {
            f->n = (size_t)(end - q);
            return CORE_WIRE_EPAST_END;
        }
        f->p = q;
        f->n = (size_t)f->v;
        q += f->n;
        break;
    case CORE_WIRE_GROUP_START:
    case CORE_WIRE_GROUP_END:
        return CORE_WIRE_EGROUP;
    default:
        return CORE_WIRE_ETYPE;
    }
    *p = q;
    return 1;
}
