/* Threads and time. */
#define _GNU_SOURCE
#include "core.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

unsigned core_ncpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

struct par_arg {
    void (*fn)(void *, unsigned);
    void *arg;
    unsigned i;
};

static void *par_main(void *p)
{
    struct par_arg *a = p;
    a->fn(a->arg, a->i);
    return NULL;
}

int core_parallel(unsigned nthreads, void (*fn)(void *arg, unsigned i), void *arg)
{
    if (nthreads <= 1) {
        fn(arg, 0);
        return 0;
    }
    pthread_t *th = core_xcalloc(nthreads, sizeof *th);
    struct par_arg *args = core_xcalloc(nthreads, sizeof *args);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    /* Tree walks recurse; give them room beyond the 8 MiB default for
     * pathological nesting (the walkers also cap their depth). */
    pthread_attr_setstacksize(&attr, 64u << 20);
    unsigned started = 0;
    int err = 0;
    for (unsigned i = 1; i < nthreads; i++) {
        args[i] = (struct par_arg){fn, arg, i};
        int rc = pthread_create(&th[i], &attr, par_main, &args[i]);
        if (rc) {
            err = -rc;
            break;
        }
        started = i;
    }
    pthread_attr_destroy(&attr);
    /* The calling thread does share 0 itself. */
    fn(arg, 0);
    for (unsigned i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    free(th);
    free(args);
    return err;
}

uint64_t core_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void core_bucket_init(core_bucket *b, double rate, double burst, uint64_t now_ns)
{
    *b = (core_bucket){rate, burst, burst, now_ns};
}

bool core_bucket_take(core_bucket *b, uint64_t now_ns)
{
    if (now_ns > b->at_ns) {
        b->tokens += (double)(now_ns - b->at_ns) * 1e-9 * b->rate;
        if (b->tokens > b->burst)
            b->tokens = b->burst;
        b->at_ns = now_ns;
    }
    if (b->tokens < 1)
        return false;
    b->tokens -= 1;
    return true;
}

int64_t core_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
