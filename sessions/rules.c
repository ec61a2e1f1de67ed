/*
 * A case's lifecycle (sessions.h): admission of new cases, the event cap
 * and the activities that end a case.
 */
#include "sessions.h"

#include <stdlib.h>
#include <string.h>

struct sess_rules {
    uint64_t rate, max_events;
    double tokens;
    uint64_t refill_ns;
    char **ends;
    size_t nends;
};

sess_rules *sess_rules_new(const sess_rules_opts *o)
{
    sess_rules *r = core_xcalloc(1, sizeof *r);
    r->rate = o->new_cases_per_second;
    r->max_events = o->max_events;
    r->tokens = (double)r->rate;
    r->refill_ns = core_now_ns();
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
    if (!r->rate)
        return true;
    if (now_ns > r->refill_ns) {
        r->tokens += (double)(now_ns - r->refill_ns) * 1e-9 * (double)r->rate;
        if (r->tokens > (double)r->rate)
            r->tokens = (double)r->rate;
        r->refill_ns = now_ns;
    }
    if (r->tokens < 1)
        return false;
    r->tokens -= 1;
    return true;
}

bool sess_rules_room(const sess_rules *r, const sess_case *c)
{
    return !r->max_events || c->seq < r->max_events;
}

bool sess_rules_ends(const sess_rules *r, const char *activity)
{
    for (size_t i = 0; i < r->nends; i++)
        if (strcmp(r->ends[i], activity) == 0)
            return true;
    return false;
}
