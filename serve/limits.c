/*
 * Limits that watch the whole process (serve_int.h): limits.memory_bytes,
 * and the refusals of input: the OTLP receivers' when the queue is full,
 * the memory over its limit or the state store full (full.c), the Kafka
 * consumer's pause for the last two.
 */
#include "serve_int.h"

#include <malloc.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Anonymous resident memory in bytes (resident minus file-backed and
 * shared pages: LMDB's map is page cache, not ours), or 0. */
uint64_t serve__anon_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, resident, shared;
    int n = f ? fscanf(f, "%llu %llu %llu", &size, &resident, &shared) : 0;
    if (f)
        fclose(f);
    if (n != 3 || shared > resident)
        return 0;
    return (uint64_t)(resident - shared) * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void *mem_main(void *arg)
{
    serve *s = arg;
    uint64_t last_trim = 0;
    pthread_mutex_lock(&s->mem_mu);
    while (!s->mem_quit) {
        pthread_mutex_unlock(&s->mem_mu);
        uint64_t anon = serve__anon_bytes(), now = core_now_ns();
        bool over = atomic_load(&s->mem_over);
        /* Freed memory the allocator still holds counts as in use: give
         * it back before refusing input, and while refusing it. */
        if (anon > (over ? s->mem_limit / 10 * 9 : s->mem_limit) &&
            now - last_trim > 500000000ull) {
            malloc_trim(0);
            last_trim = now;
            anon = serve__anon_bytes();
        }
        atomic_store(&s->mem_anon, anon);
        if (!over && anon > s->mem_limit) {
            atomic_store(&s->mem_over, true);
            core_logf(
                &s->lg, CORE_LOG_WARN,
                "memory: %.0f MiB in use, over limits.memory_bytes (%.0f MiB): input "
                "refused (OTLP/HTTP 503, OTLP/gRPC UNAVAILABLE, Kafka paused) until under %.0f MiB",
                (double)anon / 1048576.0, (double)s->mem_limit / 1048576.0,
                0.9 * (double)s->mem_limit / 1048576.0);
        } else if (over && anon < s->mem_limit / 10 * 9) {
            atomic_store(&s->mem_over, false);
            core_logf(&s->lg, CORE_LOG_INFO, "memory: %.0f MiB in use: input taken again",
                      (double)anon / 1048576.0);
        }
        pthread_mutex_lock(&s->mem_mu);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (!s->mem_quit)
            pthread_cond_timedwait(&s->mem_cv, &s->mem_mu, &ts);
    }
    pthread_mutex_unlock(&s->mem_mu);
    return NULL;
}

void serve__mem_watch_start(serve *s)
{
    s->mem_limit = (uint64_t)core_cfg_int(s->cfg, "limits.memory_bytes");
    if (!s->mem_limit)
        return;
    pthread_mutex_init(&s->mem_mu, NULL);
    pthread_cond_init(&s->mem_cv, NULL);
    s->mem_thread_on = pthread_create(&s->mem_thread, NULL, mem_main, s) == 0;
    if (!s->mem_thread_on)
        core_logf(&s->lg, CORE_LOG_WARN, "memory: cannot start the watcher: no memory limit");
}

void serve__mem_watch_stop(serve *s)
{
    if (!s->mem_thread_on)
        return;
    pthread_mutex_lock(&s->mem_mu);
    s->mem_quit = true;
    pthread_cond_signal(&s->mem_cv);
    pthread_mutex_unlock(&s->mem_mu);
    pthread_join(s->mem_thread, NULL);
    s->mem_thread_on = false;
}

/* Receiver thread, when a request's headers are in: over
 * limits.memory_bytes, or with the state store full, refused before its
 * body is read. */
bool serve__otlp_refuse_early(void *ud)
{
    serve *s = ud;
    if (atomic_load(&s->mem_over)) {
        sink_counter_add(s->c_lim_memory, 1);
        return true;
    }
    if (serve__full(s)) {
        sink_counter_add(s->c_lim_full, 1);
        return true;
    }
    return false;
}

bool serve__input_held(serve *s)
{
    return atomic_load(&s->mem_over) || serve__full(s);
}

void serve__kafka_hold(serve *s)
{
    bool hold = serve__input_held(s);
    if (!s->kin || hold == s->kafka_paused)
        return;
    s->kafka_paused = hold;
    ingest_kafka_pause(s->kin, hold);
    if (hold)
        sink_counter_add(atomic_load(&s->mem_over) ? s->c_lim_memory : s->c_lim_full, 1);
}

/* Receiver thread, before decoding a body: the queue is full (or the
 * daemon stopping), so the request would be refused anyway. (Not the
 * memory limit: a body read is memory spent, and refusing it would not
 * give it back.) */
bool serve__otlp_busy(void *ud)
{
    serve *s = ud;
    pthread_mutex_lock(&s->qmu);
    bool busy = s->stopping || s->qevents >= s->qmax;
    pthread_mutex_unlock(&s->qmu);
    return busy;
}
