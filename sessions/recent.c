/*
 * Recent request ids (sessions.h, sess_recent): a FIFO of entries in the
 * order they were added, and a map from the first 8 bytes of an id to the
 * entry's sequence number. Entries leave from the front only, so the map
 * is not cleaned entry by entry: a slot whose sequence number is no
 * longer live (or whose entry has another id) reads as absent, and the
 * map is rebuilt from the live entries when it holds twice as many keys.
 */
#include "sessions.h"

#include <stdlib.h>
#include <string.h>

typedef struct recent_ent {
    uint8_t id[SESS_REQUEST_ID];
    int64_t time_ns;
    uint8_t state; /* sess_recent_state; SESS_RECENT_NONE: dropped */
} recent_ent;

struct sess_recent {
    recent_ent *v; /* ring of cap entries; v[(head + i) % cap] is the i-th oldest */
    size_t head, n, cap;
    uint64_t first_seq; /* sequence number of the oldest entry */
    size_t live;        /* entries not dropped */
    core_map index;     /* key(id) -> sequence number */
};

static uint64_t key_of(const uint8_t *id)
{
    uint64_t k;
    memcpy(&k, id, 8);
    return k == UINT64_MAX ? k - 1 : k; /* core_map's empty key */
}

sess_recent *sess_recent_new(void)
{
    return core_xcalloc(1, sizeof(sess_recent));
}

void sess_recent_free(sess_recent *r)
{
    if (!r)
        return;
    free(r->v);
    core_map_free(&r->index);
    free(r);
}

static recent_ent *at(const sess_recent *r, size_t i)
{
    return &r->v[(r->head + i) % r->cap];
}

static recent_ent *find(const sess_recent *r, const uint8_t *id)
{
    const uint64_t *slot = core_map_get(&r->index, key_of(id));
    if (!slot || *slot < r->first_seq || *slot - r->first_seq >= r->n)
        return NULL;
    recent_ent *e = at(r, (size_t)(*slot - r->first_seq));
    if (e->state == SESS_RECENT_NONE || memcmp(e->id, id, SESS_REQUEST_ID) != 0)
        return NULL;
    return e;
}

sess_recent_state sess_recent_get(const sess_recent *r, const uint8_t *id)
{
    const recent_ent *e = find(r, id);
    return e ? (sess_recent_state)e->state : SESS_RECENT_NONE;
}

static void reindex(sess_recent *r)
{
    core_map_free(&r->index);
    for (size_t i = 0; i < r->n; i++) {
        const recent_ent *e = at(r, i);
        if (e->state == SESS_RECENT_NONE)
            continue;
        bool ins;
        *core_map_put(&r->index, key_of(e->id), &ins) = r->first_seq + i;
    }
}

void sess_recent_set(sess_recent *r, const uint8_t *id, sess_recent_state state, int64_t time_ns)
{
    recent_ent *e = find(r, id);
    if (e) {
        if (state == SESS_RECENT_NONE)
            r->live--;
        e->state = (uint8_t)state;
        e->time_ns = time_ns;
        return;
    }
    if (state == SESS_RECENT_NONE)
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        recent_ent *v = core_xmalloc(cap * sizeof *v);
        for (size_t i = 0; i < r->n; i++)
            v[i] = *at(r, i);
        free(r->v);
        r->v = v;
        r->cap = cap;
        r->head = 0;
    }
    e = at(r, r->n);
    memcpy(e->id, id, SESS_REQUEST_ID);
    e->time_ns = time_ns;
    e->state = (uint8_t)state;
    bool ins;
    *core_map_put(&r->index, key_of(id), &ins) = r->first_seq + r->n;
    r->n++;
    r->live++;
}

size_t sess_recent_expire(sess_recent *r, int64_t before_ns, size_t max_live,
                          void (*gone)(void *ud, const uint8_t *id), void *ud)
{
    size_t done = 0;
    while (r->n) {
        recent_ent *e = at(r, 0);
        if (e->state == SESS_RECENT_PENDING)
            break; /* its commit decides; it is never long */
        if (e->state == SESS_RECENT_DONE) {
            if (e->time_ns >= before_ns && r->live <= max_live)
                break;
            if (gone)
                gone(ud, e->id);
            r->live--;
            done++;
        }
        r->head = (r->head + 1) % r->cap;
        r->n--;
        r->first_seq++;
    }
    if (r->index.n > 64 && r->index.n > 2 * r->live)
        reindex(r);
    return done;
}

size_t sess_recent_count(const sess_recent *r)
{
    return r->live;
}
