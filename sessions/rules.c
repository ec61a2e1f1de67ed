/*
 * A case's lifecycle (sessions.h): admission of new cases, the event cap
 * and the activities that end a case.
 */
#include "sessions.h"

#include <stdlib.h>
#include <string.h>

struct sess_rules {
    uint64_t rate, max_events;
    core_bucket admit; /* new cases: rate per second, a second's worth at once */
    char **ends;
    size_t nends;
};

sess_rules *sess_rules_new(const sess_rules_opts *o)
{
    sess_rules *r = core_xcalloc(1, sizeof *r);
    r->rate = o->new_cases_per_second;
    r->max_events = o->max_events;
    core_bucket_init(&r->admit, (double)r->rate, (double)r->rate, core_now_ns());
    r->nends = core_split(o->end_activities, ';', &r->ends);
    return r;
}

void sess_rules_free(sess_rules *r)
{
    if (!r)
        return;
    core_split_free(r->ends, r->nends);
    free(r);
}

bool sess_rules_admit(sess_rules *r, uint64_t now_ns)
{
    return !r->rate || core_bucket_take(&r->admit, now_ns);
}

bool sess_rules_room(const sess_rules *r, uint64_t seq, uint32_t nheld)
{
    /* Held events were received: they count as the case's. */
    return !r->max_events || seq + nheld < r->max_events;
}

bool sess_rules_ends(const sess_rules *r, const char *activity)
{
    for (size_t i = 0; i < r->nends; i++)
        if (strcmp(r->ends[i], activity) == 0)
            return true;
    return false;
}
