/*
 * A state store that cannot take a commit (serve_int.h): the disk under
 * state.dir is full, or LMDB's map is at state.map_max. The daemon does
 * not stop for it. The committer keeps the batch it could not write
 * (sessions leaves a failed batch as it was) and tries it again every
 * second; meanwhile new input is refused in ways senders retry (OTLP/HTTP
 * 503 with Retry-After, OTLP/gRPC UNAVAILABLE with a RetryInfo, the Kafka
 * consumer paused), /readyz says why and pmrag_state_full is 1. When the
 * batch fits again (space freed, or expiry made room in the map) input is
 * taken again without a restart.
 *
 * Nothing acknowledged is lost and nothing is applied twice, because
 * nothing is acknowledged before its commit: the batch's OTLP requests
 * wait for it (a client that gives up and retries is recognised by the
 * request's id), its Kafka offsets are stored after it, and later
 * batches wait behind it. A stop while full gives up the batch: the state
 * is as of the last commit, which is what the restart resumes from.
 */
#include "serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Between two tries of a batch that did not fit. */
#define FULL_RETRY_MS 1000
/* How often the wait looks for a stop. */
#define FULL_POLL_MS 100

bool serve__full_error(int rc)
{
    /* CORE_ELIMIT: LMDB's map at state.map_max (or not allowed to grow);
     * the others: the file system (sess_batch_write). */
    return rc == -ENOSPC || rc == CORE_ELIMIT || rc == -EDQUOT || rc == -EFBIG;
}

static void full_enter(serve *s, const char *why)
{
    pthread_mutex_lock(&s->gmu);
    snprintf(s->full_why, sizeof s->full_why, "%s", why);
    pthread_mutex_unlock(&s->gmu);
    atomic_store(&s->full_since, core_now_ns());
    sink_gauge_set(s->g_full, 1);
    core_logf(&s->lg, CORE_LOG_ERROR,
              "%s: input refused (OTLP/HTTP 503, OTLP/gRPC UNAVAILABLE, Kafka paused) until the "
              "batch that did not fit is committed; it is tried again every %d s",
              why, FULL_RETRY_MS / 1000);
}

static void full_leave(serve *s)
{
    uint64_t since = atomic_exchange(&s->full_since, 0);
    sink_gauge_set(s->g_full, 0);
    core_logf(&s->lg, CORE_LOG_INFO,
              "state: the batch that did not fit is committed after %.1f s: input taken again",
              (double)(core_now_ns() - since) * 1e-9);
}

/* Waits up to ms, looking for a stop every FULL_POLL_MS. */
static void full_wait(serve *s, int ms)
{
    for (int waited = 0; waited < ms && !s->stop; waited += FULL_POLL_MS) {
        struct timespec ts = {0, FULL_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int serve__state_write(serve *s, const sess_batch *b, int (*between)(serve *s))
{
    char why[512];
    int rc = sess_batch_write(s->env, b, why, sizeof why);
    if (rc && serve__full_error(rc)) {
        full_enter(s, why);
        while (rc && serve__full_error(rc) && !s->stop) {
            full_wait(s, FULL_RETRY_MS);
            /* Expiry may make room in a full map. */
            if (between && !s->stop)
                (void)between(s);
            rc = sess_batch_write(s->env, b, why, sizeof why);
        }
        if (!rc)
            full_leave(s);
        else if (s->stop)
            core_logf(&s->lg, CORE_LOG_ERROR,
                      "stopping with the state store full: the last batch is not committed (the "
                      "restart resumes from the last commit; nothing acknowledged is lost)");
    }
    if (rc && !serve__full_error(rc))
        core_logf(&s->lg, CORE_LOG_ERROR, "%s", why);
    return rc;
}

bool serve__full(serve *s)
{
    return atomic_load(&s->full_since) != 0;
}

bool serve__full_why(serve *s, core_buf *why)
{
    uint64_t since = atomic_load(&s->full_since);
    if (!since)
        return false;
    pthread_mutex_lock(&s->gmu);
    core_buf_printf(why, "%s: input refused for %.0f s, until a commit fits", s->full_why,
                    (double)(core_now_ns() - since) * 1e-9);
    pthread_mutex_unlock(&s->gmu);
    return true;
}
