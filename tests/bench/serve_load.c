/*
 * serve_load.c - a load generator for `pmrag serve`: OTLP/HTTP protobuf
 * spans posted to POST /v1/traces over plain keep-alive sockets.
 *
 * The traffic is made from a real event log (the CSV of the demo
 * application's simulator: case_id, activity, level, logger columns), so
 * that the daemon's mapping sees the messages the demo code really logs.
 * --cases (10000) case slots are live at once; each plays one trace of the
 * log under a fresh case id (the log's case id is replaced by the new one
 * inside the messages too, as order ids are), and when its trace ends the
 * slot starts another trace under another id. Every event comes from a
 * slot drawn at random, so the events of many cases interleave as live
 * traffic does, and --batch (200) consecutive events make one
 * ExportTraceServiceRequest (one span per event: name = the message,
 * attributes case.id, level and logger; no code.* attributes, which would
 * tell the daemon the answer).
 *
 * The request bodies are encoded before the clock starts (--pool-events of
 * them, 500000 by default) so that the client spends its CPU on sending,
 * not encoding: on two cores every cycle the client takes is one the
 * daemon does not get. A run longer than the pool sends the pool again,
 * each lap's spans later by the time the pool's spans cover (1 us apart)
 * and with other span ids: the same case ids go on with the same traces once more,
 * as new events (their state keeps growing, which costs the daemon what a
 * new case would). Sent unchanged, they would be the same spans again,
 * which the daemon drops as duplicates or refuses as older than the events
 * their cases still store.
 * Case ids depend on --seed: runs against one daemon with different seeds
 * make different cases.
 *
 * --connections (4) threads each own one connection and take the next
 * request from a shared counter. With --rate R (events/s) request j is
 * due at start + j * batch / R and is not sent before (a token bucket of
 * one request: the schedule never bunches up to catch up, and requests
 * sent more than 1 ms after they were due are counted as late); with
 * --rate 0 they go as fast as the daemon answers. Latency is from the
 * first send of a request to its 200: the daemon answers only once the
 * events' state changes are committed to LMDB and their predictions
 * acknowledged by Kafka, so this is "accepted durably". 429 and 503 are
 * counted and retried after their Retry-After, the wait included in the
 * request's latency; with --no-retry a throttled request is dropped
 * instead (counted with its events) and the connection goes on at once
 * with the next one, as an exporter that ignores Retry-After would: the
 * overload test's way of pushing past the daemon's capacity. Either way
 * the Retry-After values seen are tallied (how many responses had none,
 * or one that is not a number of seconds). Two requests of one case in
 * flight on two connections may be applied in either order, as with
 * several exporters.
 *
 * Prints one JSON object on stdout (events sent and accepted, seconds,
 * events/s, latency percentiles in ms, throttled responses, errors) and a
 * line of summary on stderr. Exits 1 when a request failed for good (an
 * unexpected status, a connection that cannot be made), 2 on bad usage or
 * input.
 *
 *   bench_serve_load --log LOG.csv --url 127.0.0.1:4318 [--duration S |
 *                    --events N] [--rate R] [--connections C] [--batch B]
 *                    [--cases N] [--pool-events N] [--seed N] [--no-retry]
 */
#define _GNU_SOURCE /* clock_nanosleep, strcasestr, memmem */
#include "core.h"
#include "core_wire.h"
#include "ingest.h"
#include "unit_otlp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

typedef struct opts {
    const char *log, *url, *service;
    double duration, rate;
    uint64_t events, pool_events, seed;
    uint32_t connections, batch, cases;
    bool no_retry;
} opts;

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_serve_load --log LOG.csv --url HOST:PORT [options]\n"
            "  --duration S      send for S seconds (default 10)\n"
            "  --events N        send N events instead (rounded up to whole requests)\n"
            "  --rate R          events/s (0: as fast as the daemon answers; default 0)\n"
            "  --connections C   concurrent keep-alive connections (default 4)\n"
            "  --batch B         spans per request (default 200)\n"
            "  --cases N         cases live at once (default 10000)\n"
            "  --pool-events N   events encoded before the run, sent round (default 500000)\n"
            "  --seed N          random seed; runs with different seeds use different\n"
            "                    case ids (default 1)\n"
            "  --service NAME    service.name of the resource (default orderflow)\n"
            "  --no-retry        drop a request answered 429 or 503 (counted) instead of\n"
            "                    sending it again after its Retry-After\n");
}

static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_opts(int argc, char **argv, opts *o)
{
    *o = (opts){.duration = 10,
                .connections = 4,
                .batch = 200,
                .cases = 10000,
                .pool_events = 500000,
                .seed = 1,
                .service = "orderflow"};
    bool have_duration = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u;
        char *end;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            exit(0);
        }
        if (strcmp(a, "--no-retry") == 0) { /* the one option without a value */
            o->no_retry = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "bench_serve_load: %s: missing value\n", a);
            return false;
        }
        i++;
        if (strcmp(a, "--log") == 0) {
            o->log = v;
        } else if (strcmp(a, "--url") == 0) {
            o->url = v;
        } else if (strcmp(a, "--service") == 0) {
            o->service = v;
        } else if (strcmp(a, "--duration") == 0 || strcmp(a, "--rate") == 0) {
            double d = strtod(v, &end);
            if (end == v || *end || !(d >= 0) || d > 1e9 ||
                (strcmp(a, "--duration") == 0 && d <= 0)) {
                fprintf(stderr, "bench_serve_load: %s: '%s' is not a number in range\n", a, v);
                return false;
            }
            if (strcmp(a, "--rate") == 0) {
                o->rate = d;
            } else {
                o->duration = d;
                have_duration = true;
            }
        } else if (strcmp(a, "--events") == 0 && parse_u64(v, 1, UINT64_MAX / 2, &u)) {
            o->events = u;
        } else if (strcmp(a, "--pool-events") == 0 && parse_u64(v, 1, 100000000, &u)) {
            o->pool_events = u;
        } else if (strcmp(a, "--seed") == 0 && parse_u64(v, 0, UINT64_MAX, &u)) {
            o->seed = u;
        } else if (strcmp(a, "--connections") == 0 && parse_u64(v, 1, 1024, &u)) {
            o->connections = (uint32_t)u;
        } else if (strcmp(a, "--batch") == 0 && parse_u64(v, 1, 1000000, &u)) {
            o->batch = (uint32_t)u;
        } else if (strcmp(a, "--cases") == 0 && parse_u64(v, 1, 100000000, &u)) {
            o->cases = (uint32_t)u;
        } else {
            fprintf(stderr, "bench_serve_load: %s '%s': unknown option or value out of range\n", a,
                    v);
            usage();
            return false;
        }
    }
    if (!o->log || !o->url) {
        fprintf(stderr, "bench_serve_load: --log and --url are required\n");
        usage();
        return false;
    }
    if (o->events && have_duration) {
        fprintf(stderr, "bench_serve_load: --events and --duration exclude each other\n");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

/* One event of a trace; the strings live in the arena. */
typedef struct tev {
    const char *act, *level, *logger;
} tev;

/* One case of the log: its events are evs[first .. first + n). */
typedef struct trace {
    const char *case_id;
    uint32_t first, n;
} trace;

typedef struct logdata {
    core_arena ar;
    tev *evs;
    trace *traces;
    uint32_t nevs, ntraces;
} logdata;

static const char *attr_of(const ingest_event *ev, const char *key)
{
    for (uint32_t i = 0; i < ev->nattrs; i++)
        if (strcmp(ev->attrs[i].key, key) == 0)
            return ev->attrs[i].val;
    return NULL;
}

/* Reads the log and groups its events by case, in file order within a
 * case. Returns 0 or 2 (after saying why). */
static int log_load(const char *path, logdata *L)
{
    memset(L, 0, sizeof *L);
    core_arena_init(&L->ar, 1 << 20);
    ingest_file *f;
    char why[512];
    int rc = ingest_file_open(path, NULL, &f, why, sizeof why);
    if (rc) {
        fprintf(stderr, "bench_serve_load: %s\n", why);
        return 2;
    }
    core_map idx = {0}; /* case id hash -> trace number */
    core_vec(tev) raw = {0};
    core_vec(uint32_t) owner = {0};
    core_vec(trace) tr = {0};
    ingest_event ev;
    while ((rc = ingest_file_next(f, &ev, why, sizeof why)) == 1) {
        size_t cl = strlen(ev.case_id);
        uint64_t h = core_hash64(ev.case_id, cl, 7);
        if (h == UINT64_MAX)
            h = 0;
        bool ins;
        uint64_t *slot = core_map_put(&idx, h, &ins);
        if (ins) {
            core_vec_push(&tr, ((trace){core_arena_strndup(&L->ar, ev.case_id, cl), 0, 0}));
            *slot = tr.n - 1;
        } else if (strcmp(tr.v[*slot].case_id, ev.case_id) != 0) {
            continue; /* a 64-bit hash collision: drop the event, not worth a table */
        }
        const char *lv = attr_of(&ev, "level"), *lg = attr_of(&ev, "logger");
        tev t = {core_arena_strndup(&L->ar, ev.activity, strlen(ev.activity)),
                 lv ? core_arena_strndup(&L->ar, lv, strlen(lv)) : NULL,
                 lg ? core_arena_strndup(&L->ar, lg, strlen(lg)) : NULL};
        core_vec_push(&raw, t);
        core_vec_push(&owner, (uint32_t)*slot);
        tr.v[*slot].n++;
    }
    ingest_file_close(f);
    core_map_free(&idx);
    if (rc < 0 || raw.n == 0 || raw.n > UINT32_MAX) {
        fprintf(stderr, "bench_serve_load: %s\n", rc < 0 ? why : "the log has no events");
        core_vec_free(&raw);
        core_vec_free(&owner);
        core_vec_free(&tr);
        core_arena_free(&L->ar);
        return 2;
    }
    /* Counting sort by case, stable: each case's events in file order. */
    uint32_t off = 0;
    for (size_t i = 0; i < tr.n; i++) {
        tr.v[i].first = off;
        off += tr.v[i].n;
        tr.v[i].n = 0;
    }
    L->evs = core_xmalloc(raw.n * sizeof *L->evs);
    for (size_t i = 0; i < raw.n; i++) {
        trace *t = &tr.v[owner.v[i]];
        L->evs[t->first + t->n++] = raw.v[i];
    }
    L->nevs = (uint32_t)raw.n;
    L->traces = tr.v;
    L->ntraces = (uint32_t)tr.n;
    core_vec_free(&raw);
    core_vec_free(&owner);
    return 0;
}

static void log_free(logdata *L)
{
    free(L->evs);
    free(L->traces);
    core_arena_free(&L->ar);
}

/* ------------------------------------------------------------------ */
/* The request pool                                                    */
/* ------------------------------------------------------------------ */

typedef struct body {
    size_t off, len;
} body;

typedef struct pool {
    core_buf data; /* every body, back to back */
    body *bodies;
    size_t n;
    uint64_t events;
    int64_t span_ns; /* its spans' times lie within this: a lap moves them by it */
} pool;

/* A live case: the trace it plays, how far, under which id. */
typedef struct slot {
    uint32_t trace, pos;
    char id[24];
} slot;

/* text with every occurrence of from replaced by to (in a, or text itself
 * when from does not occur). */
static const char *replace_all(core_arena *a, const char *text, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    const char *hit = fl ? strstr(text, from) : NULL;
    if (!hit)
        return text;
    core_buf b = {0};
    const char *p = text;
    for (; hit; hit = strstr(p, from)) {
        core_buf_append(&b, p, (size_t)(hit - p));
        core_buf_append(&b, to, tl);
        p = hit + fl;
    }
    core_buf_puts(&b, p);
    const char *r = core_arena_strndup(a, b.data, b.len);
    core_buf_free(&b);
    return r;
}

static void slot_start(slot *s, const logdata *L, uint64_t *rng, uint64_t *next_id)
{
    s->trace = (uint32_t)(core_splitmix64(rng) % L->ntraces);
    s->pos = 0;
    /* Shaped like the demo's order ids; the counter keeps them unique
     * within a run, its start (the seed) between runs. */
    snprintf(s->id, sizeof s->id, "ord_%012llx", (unsigned long long)(*next_id)++);
}

/* Encodes pool_events events (rounded up to whole requests) drawn from
 * the live slots. Returns 0 or 2. */
static int pool_build(const opts *o, const logdata *L, pool *P)
{
    memset(P, 0, sizeof *P);
    uint64_t rng = o->seed, next_id = (o->seed & 0xffff) << 32;
    slot *slots = core_xmalloc((size_t)o->cases * sizeof *slots);
    for (uint32_t i = 0; i < o->cases; i++)
        slot_start(&slots[i], L, &rng, &next_id);
    size_t nreq = (size_t)((o->pool_events + o->batch - 1) / o->batch);
    P->bodies = core_xmalloc(nreq * sizeof *P->bodies);
    ingest_event *evs = core_xmalloc((size_t)o->batch * sizeof *evs);
    ingest_attr *attrs = core_xmalloc((size_t)o->batch * 2 * sizeof *attrs);
    core_arena scratch;
    core_arena_init(&scratch, 1 << 20);
    /* Span times: from now on, 1 us apart (the daemon keeps the last one
     * per case; nothing depends on them being in the future or past). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    int rc = 0;
    for (size_t r = 0; r < nreq; r++) {
        core_arena_reset(&scratch);
        for (uint32_t i = 0; i < o->batch; i++) {
            slot *s = &slots[core_splitmix64(&rng) % o->cases];
            const trace *tr = &L->traces[s->trace];
            const tev *e = &L->evs[tr->first + s->pos];
            uint32_t na = 0;
            ingest_attr *at = attrs + 2 * (size_t)i;
            if (e->level)
                at[na++] = (ingest_attr){"level", e->level};
            if (e->logger)
                at[na++] = (ingest_attr){"logger", e->logger};
            evs[i] = (ingest_event){
                .case_id = core_arena_strndup(&scratch, s->id, strlen(s->id)),
                .activity = replace_all(&scratch, e->act, tr->case_id, s->id),
                .time_ns = t,
                .attrs = at,
                .nattrs = na,
            };
            t += 1000;
            if (++s->pos == tr->n)
                slot_start(s, L, &rng, &next_id);
        }
        size_t before = P->data.len;
        rc = unit_otlp_spans(evs, o->batch, o->service, &P->data);
        if (rc) {
            fprintf(stderr, "bench_serve_load: encoding request %zu: %s\n", r, core_strerror(rc));
            rc = 2;
            break;
        }
        P->bodies[r] = (body){before, P->data.len - before};
        P->n++;
        P->events += o->batch;
    }
    P->span_ns = (int64_t)P->events * 1000;
    core_arena_free(&scratch);
    free(attrs);
    free(evs);
    free(slots);
    return rc;
}

/* The fields of one message of a request body as unit_otlp_spans lays it
 * out (depth 0 the request, 1 ResourceSpans, 2 ScopeSpans, 3 Span): a
 * span's span_id (2) XORed with key and its start and end times (7, 8)
 * shift_ns later. base..end is a copy of the body. Returns 0, or -1 for
 * what is not such a body. */
static int lap_fields(uint8_t *base, const uint8_t *p, const uint8_t *end, int depth, uint64_t key,
                      int64_t shift_ns)
{
    /* The message, and the field of it that holds the next depth. */
    static const uint32_t inner[3] = {1, 2, 2};
    core_wire_field f;
    int rc;
    while ((rc = core_wire_next(&p, end, &f)) == 1) {
        uint8_t *at = base + (f.val - base);
        if (depth < 3 && f.num == inner[depth] && f.wt == CORE_WIRE_LEN) {
            if (lap_fields(base, f.p, f.p + f.n, depth + 1, key, shift_ns) != 0)
                return -1;
        } else if (depth == 3 && f.num == 2 && f.wt == CORE_WIRE_LEN && f.n == 8) {
            uint8_t *id = base + (f.p - base);
            for (int i = 0; i < 8; i++)
                id[i] ^= (uint8_t)(key >> (8 * i));
        } else if (depth == 3 && (f.num == 7 || f.num == 8) && f.wt == CORE_WIRE_I64) {
            core_wire_put_fixed64(at, (uint64_t)((int64_t)f.v + shift_ns));
        }
    }
    return rc == 0 ? 0 : -1;
}

/* Body b of the pool as sent in lap (0: the first) into out: from the
 * second lap on, its spans later by lap times the pool's time span and
 * with span ids of their own, so that every lap's events are new ones
 * that follow the last lap's in each case. Returns the bytes to send, or
 * NULL for a body that is not what the pool holds. */
static const char *lap_body(const pool *P, const body *b, uint64_t lap, core_buf *out)
{
    const char *src = P->data.data + b->off;
    if (lap == 0)
        return src;
    core_buf_reset(out);
    core_buf_append(out, src, b->len);
    uint8_t *u = (uint8_t *)out->data;
    if (lap_fields(u, u, u + b->len, 0, core_hash_u64(lap), (int64_t)lap * P->span_ns) != 0)
        return NULL;
    return out->data;
}

/* ------------------------------------------------------------------ */
/* HTTP/1.1 client                                                     */
/* ------------------------------------------------------------------ */

typedef struct target {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char host[256];
} target;

/* "host:port", "http://host:port" or "http://host:port/..." */
static int target_resolve(const char *url, target *t)
{
    memset(t, 0, sizeof *t);
    if (strncmp(url, "http://", 7) == 0)
        url += 7;
    size_t n = strcspn(url, "/");
    if (n == 0 || n >= sizeof t->host)
        return CORE_EUSAGE;
    memcpy(t->host, url, n);
    t->host[n] = 0;
    char host[256];
    memcpy(host, t->host, n + 1);
    char *colon = strrchr(host, ':');
    if (!colon)
        return CORE_EUSAGE;
    *colon = 0;
    const char *h = host;
    if (h[0] == '[') { /* [::1]:4318 */
        h++;
        char *rb = strchr(host, ']');
        if (rb)
            *rb = 0;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(h, colon + 1, &hints, &ai) != 0)
        return CORE_ENOTFOUND;
    memcpy(&t->addr, ai->ai_addr, ai->ai_addrlen);
    t->addrlen = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

static int conn_open(const target *t)
{
    int fd = socket(t->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* Requests go out whole and are small in number: no Nagle delay. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *)&t->addr, t->addrlen) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Retry-After tallies: RA_VALUES counts per number of seconds, the last
 * slot for anything larger. */
#define RA_VALUES 62
enum { RA_ABSENT = -1, RA_BAD = -2 };

typedef struct response {
    int status;
    int retry_after; /* seconds; RA_ABSENT, or RA_BAD when not delta-seconds */
    bool close;      /* the server closes the connection after it */
    size_t body_len;
    char reason[128]; /* the start of a non-empty body, for errors */
} response;

/* A header's value (after "Name:" and spaces) in the header block, or
 * NULL. */
static const char *header_value(const char *hdr, size_t hlen, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = hdr, *end = hdr + hlen; p < end;) {
        const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > nl && p[nl] == ':' && strncasecmp(p, name, nl) == 0) {
            const char *v = p + nl + 1;
            while (v < eol && (*v == ' ' || *v == '\t'))
                v++;
            return v;
        }
        p = eol + 2;
    }
    return NULL;
}

/* What came in on a connection and was not used yet. */
typedef struct rbuf {
    char *data;
    size_t len, cap;
} rbuf;

/* Room for want bytes and a NUL. */
static void rbuf_reserve(rbuf *b, size_t want)
{
    if (b->cap >= want + 1)
        return;
    b->cap = want + 1 > 2 * b->cap ? want + 1 : 2 * b->cap;
    b->data = core_xrealloc(b->data, b->cap);
}

/* Reads one response (Content-Length bodies; keep-alive) through buf,
 * which keeps bytes past it for the next one. Returns 0, -ECONNRESET when
 * the connection ended, CORE_EFORMAT for what is not HTTP/1.x. */
static int read_response(int fd, rbuf *buf, response *r)
{
    memset(r, 0, sizeof *r);
    r->retry_after = RA_ABSENT;
    size_t hend = 0;
    for (;;) {
        const char *e = buf->len ? memmem(buf->data, buf->len, "\r\n\r\n", 4) : NULL;
        if (e) {
            hend = (size_t)(e - buf->data) + 4;
            break;
        }
        rbuf_reserve(buf, buf->len + 4096);
        ssize_t n = read(fd, buf->data + buf->len, buf->cap - buf->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -ECONNRESET;
        buf->len += (size_t)n;
        buf->data[buf->len] = 0;
    }
    if (hend < 12 || strncmp(buf->data, "HTTP/1.", 7) != 0)
        return CORE_EFORMAT;
    r->status = atoi(buf->data + 9);
    const char *v = header_value(buf->data, hend, "Content-Length");
    size_t clen = v ? strtoull(v, NULL, 10) : 0;
    if (header_value(buf->data, hend, "Transfer-Encoding"))
        return CORE_EFORMAT; /* the daemon sends lengths; chunked would be a change */
    if ((v = header_value(buf->data, hend, "Retry-After"))) {
        /* delta-seconds is 1*DIGIT (RFC 9110, 10.2.3), then the line end
         * or white space; an HTTP-date would be legal too but is not what
         * the daemon sends, so it counts as bad here. */
        char *end;
        errno = 0;
        long ra = v[0] >= '0' && v[0] <= '9' ? strtol(v, &end, 10) : -1;
        while (ra >= 0 && (*end == ' ' || *end == '\t'))
            end++;
        r->retry_after =
            ra < 0 || errno || ra > 86400 || (*end != '\r' && *end != '\n') ? RA_BAD : (int)ra;
    }
    if ((v = header_value(buf->data, hend, "Connection")) && strncasecmp(v, "close", 5) == 0)
        r->close = true;
    while (buf->len < hend + clen) {
        rbuf_reserve(buf, hend + clen > buf->len + 4096 ? hend + clen : buf->len + 4096);
        ssize_t n = read(fd, buf->data + buf->len, buf->cap - buf->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -ECONNRESET;
        buf->len += (size_t)n;
        buf->data[buf->len] = 0;
    }
    r->body_len = clen;
    if (r->status != 200 && clen) {
        size_t k = clen < sizeof r->reason - 1 ? clen : sizeof r->reason - 1;
        memcpy(r->reason, buf->data + hend, k);
        r->reason[k] = 0;
        for (char *p = r->reason; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
    }
    size_t used = hend + clen;
    memmove(buf->data, buf->data + used, buf->len - used);
    buf->len -= used;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The senders                                                         */
/* ------------------------------------------------------------------ */

typedef struct sender {
    core_vec(uint64_t) lat; /* ns, one per accepted request */
    uint64_t accepted_events, sent_events, requests, throttled, partial, late, reconnects;
    uint64_t errors, last_done_ns;
    uint64_t status_429, status_503, dropped_events;
    uint64_t ra_absent, ra_bad, ra_count[RA_VALUES];
    int fatal; /* 0, or why the sender gave up */
    char fatal_why[512];
} sender;

typedef struct run {
    const opts *o;
    const target *t;
    const pool *P;
    uint64_t start_ns, deadline_ns, nreq_max; /* nreq_max: 0 = by time */
    atomic_uint_fast64_t next;
    atomic_bool abort;
    sender *s;
} run;

static void sleep_until(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void sender_main(void *arg, unsigned idx)
{
    run *R = arg;
    sender *me = &R->s[idx];
    const opts *o = R->o;
    rbuf in = {0};
    core_buf lapped = {0};
    int fd = -1, fails = 0;
    while (!atomic_load(&R->abort)) {
        uint64_t j = atomic_fetch_add(&R->next, 1);
        if (R->nreq_max && j >= R->nreq_max)
            break;
        if (o->rate > 0) {
            uint64_t due = R->start_ns + (uint64_t)((double)j * o->batch * 1e9 / o->rate);
            if (!R->nreq_max && due >= R->deadline_ns)
                break;
            uint64_t now = core_now_ns();
            if (now < due)
                sleep_until(due);
            else if (now - due > 1000000)
                me->late++;
        }
        if (!R->nreq_max && core_now_ns() >= R->deadline_ns)
            break;
        const body *b = &R->P->bodies[j % R->P->n];
        const char *data = lap_body(R->P, b, j / R->P->n, &lapped);
        if (!data) {
            me->fatal = CORE_EFORMAT;
            snprintf(me->fatal_why, sizeof me->fatal_why, "request %llu of the pool: not spans",
                     (unsigned long long)(j % R->P->n));
            goto out;
        }
        char hdr[512];
        int hl = snprintf(hdr, sizeof hdr,
                          "POST /v1/traces HTTP/1.1\r\nHost: %s\r\n"
                          "Content-Type: application/x-protobuf\r\nContent-Length: %zu\r\n\r\n",
                          R->t->host, b->len);
        uint64_t t0 = core_now_ns();
        bool sent = false;
        for (;;) {
            if (fd < 0) {
                fd = conn_open(R->t);
                if (fd < 0) {
                    if (++fails > 20) {
                        me->fatal = fd;
                        snprintf(me->fatal_why, sizeof me->fatal_why, "connect %s: %s", R->t->host,
                                 strerror(-fd));
                        goto out;
                    }
                    usleep(50000);
                    continue;
                }
                in.len = 0;
            }
            struct iovec iov[2] = {{hdr, (size_t)hl}, {(void *)data, b->len}};
            response r;
            int rc = write_all(fd, iov, 2);
            if (!rc && !sent) {
                sent = true;
                me->sent_events += o->batch;
            }
            if (!rc)
                rc = read_response(fd, &in, &r);
            me->requests++;
            if (rc) {
                /* The connection broke (the daemon restarting, or closing
                 * an idle connection): the request is sent again on a new
                 * one; a 200 never came, so nothing was applied twice
                 * unless the daemon had applied it and the answer was
                 * lost, which the count below would show. */
                close(fd);
                fd = -1;
                me->reconnects++;
                if (++fails > 20) {
                    me->fatal = rc;
                    snprintf(me->fatal_why, sizeof me->fatal_why, "%s: %s", R->t->host,
                             core_strerror(rc));
                    goto out;
                }
                continue;
            }
            fails = 0;
            if (r.close) {
                close(fd);
                fd = -1;
            }
            if (r.status == 200) {
                uint64_t t1 = core_now_ns();
                core_vec_push(&me->lat, t1 - t0);
                me->accepted_events += o->batch;
                /* An empty ExportTraceServiceResponse is full success;
                 * a body carries partial_success (rejected spans). */
                if (r.body_len)
                    me->partial++;
                me->last_done_ns = t1;
                break;
            }
            if (r.status == 429 || r.status == 503) {
                me->throttled++;
                if (r.status == 429)
                    me->status_429++;
                else
                    me->status_503++;
                if (r.retry_after == RA_ABSENT)
                    me->ra_absent++;
                else if (r.retry_after == RA_BAD)
                    me->ra_bad++;
                else
                    me->ra_count[r.retry_after < RA_VALUES - 1 ? r.retry_after : RA_VALUES - 1]++;
                if (o->no_retry) {
                    me->dropped_events += o->batch;
                    break;
                }
                int ra = r.retry_after >= 0 && r.retry_after <= 60 ? r.retry_after : 1;
                usleep((useconds_t)ra * 1000000u);
                continue;
            }
            me->errors++;
            me->fatal = CORE_EFORMAT;
            snprintf(me->fatal_why, sizeof me->fatal_why, "HTTP %d: %s", r.status, r.reason);
            goto out;
        }
    }
out:
    if (me->fatal)
        atomic_store(&R->abort, true);
    if (fd >= 0)
        close(fd);
    free(in.data);
    core_buf_free(&lapped);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of sorted v, in ms. */
static double pct_ms(const uint64_t *v, size_t n, double q)
{
    if (!n)
        return 0;
    size_t i = (size_t)(q * (double)n);
    if (i >= n)
        i = n - 1;
    return (double)v[i] * 1e-6;
}

int main(int argc, char **argv)
{
    opts o;
    if (!parse_opts(argc, argv, &o))
        return 2;
    target t;
    int rc = target_resolve(o.url, &t);
    if (rc) {
        fprintf(stderr, "bench_serve_load: --url '%s': expected HOST:PORT that resolves\n", o.url);
        return 2;
    }
    logdata L;
    if (log_load(o.log, &L) != 0)
        return 2;
    uint64_t t0 = core_now_ns();
    pool P;
    if (o.events && o.events < o.pool_events)
        o.pool_events = o.events;
    if (pool_build(&o, &L, &P) != 0) {
        core_buf_free(&P.data);
        free(P.bodies);
        log_free(&L);
        return 2;
    }
    double encode_s = (double)(core_now_ns() - t0) * 1e-9;

    run R = {.o = &o, .t = &t, .P = &P};
    R.s = calloc(o.connections, sizeof *R.s);
    if (!R.s)
        core_panic("out of memory");
    if (o.events)
        R.nreq_max = (o.events + o.batch - 1) / o.batch;
    R.start_ns = core_now_ns();
    R.deadline_ns = R.start_ns + (uint64_t)(o.duration * 1e9);
    rc = core_parallel(o.connections, sender_main, &R);
    if (rc) {
        fprintf(stderr, "bench_serve_load: cannot start the sender threads: %s\n",
                core_strerror(rc));
        return 2;
    }

    sender tot = {0};
    core_vec(uint64_t) lat = {0};
    int fatal = 0;
    for (uint32_t i = 0; i < o.connections; i++) {
        sender *s = &R.s[i];
        tot.accepted_events += s->accepted_events;
        tot.sent_events += s->sent_events;
        tot.requests += s->requests;
        tot.throttled += s->throttled;
        tot.partial += s->partial;
        tot.late += s->late;
        tot.reconnects += s->reconnects;
        tot.errors += s->errors;
        tot.status_429 += s->status_429;
        tot.status_503 += s->status_503;
        tot.dropped_events += s->dropped_events;
        tot.ra_absent += s->ra_absent;
        tot.ra_bad += s->ra_bad;
        for (int k = 0; k < RA_VALUES; k++)
            tot.ra_count[k] += s->ra_count[k];
        if (s->last_done_ns > tot.last_done_ns)
            tot.last_done_ns = s->last_done_ns;
        for (size_t k = 0; k < s->lat.n; k++)
            core_vec_push(&lat, s->lat.v[k]);
        if (s->fatal && !fatal) {
            fatal = s->fatal;
            fprintf(stderr, "bench_serve_load: connection %u: %s\n", i, s->fatal_why);
        }
        core_vec_free(&s->lat);
    }
    if (lat.n)
        qsort(lat.v, lat.n, sizeof *lat.v, cmp_u64);
    double secs =
        tot.last_done_ns > R.start_ns ? (double)(tot.last_done_ns - R.start_ns) * 1e-9 : 0;
    double eps = secs > 0 ? (double)tot.accepted_events / secs : 0;
    double mean = 0;
    for (size_t k = 0; k < lat.n; k++)
        mean += (double)lat.v[k];
    mean = lat.n ? mean / (double)lat.n * 1e-6 : 0;

    /* {"1": n, ...}: the Retry-After values seen, "61" meaning 61 or more. */
    char ra[RA_VALUES * 24] = "{";
    size_t ral = 1;
    for (int k = 0; k < RA_VALUES; k++)
        if (tot.ra_count[k])
            ral += (size_t)snprintf(ra + ral, sizeof ra - ral, "%s\"%d\":%llu", ral > 1 ? "," : "",
                                    k, (unsigned long long)tot.ra_count[k]);
    snprintf(ra + ral, sizeof ra - ral, "}");

    printf("{\"bench\":\"serve_load\",\"url\":\"%s\",\"connections\":%u,\"batch\":%u,"
           "\"cases\":%u,\"rate_target\":%.0f,\"pool_events\":%llu,\"pool_bytes\":%zu,"
           "\"bytes_per_event\":%.1f,\"encode_s\":%.3f,\"events_sent\":%llu,"
           "\"events_accepted\":%llu,\"requests_ok\":%zu,\"seconds\":%.3f,\"events_per_s\":%.0f,"
           "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"mean\":%.3f},"
           "\"throttled\":%llu,\"partial\":%llu,\"late\":%llu,\"reconnects\":%llu,"
           "\"errors\":%llu,\"no_retry\":%s,\"requests\":%llu,\"throttled_429\":%llu,"
           "\"throttled_503\":%llu,\"events_dropped\":%llu,"
           "\"retry_after\":{\"absent\":%llu,\"bad\":%llu,\"seconds\":%s}}\n",
           t.host, o.connections, o.batch, o.cases, o.rate, (unsigned long long)P.events,
           P.data.len, P.events ? (double)P.data.len / (double)P.events : 0, encode_s,
           (unsigned long long)tot.sent_events, (unsigned long long)tot.accepted_events, lat.n,
           secs, eps, pct_ms(lat.v, lat.n, 0.5), pct_ms(lat.v, lat.n, 0.9),
           pct_ms(lat.v, lat.n, 0.99), lat.n ? (double)lat.v[lat.n - 1] * 1e-6 : 0, mean,
           (unsigned long long)tot.throttled, (unsigned long long)tot.partial,
           (unsigned long long)tot.late, (unsigned long long)tot.reconnects,
           (unsigned long long)tot.errors, o.no_retry ? "true" : "false",
           (unsigned long long)tot.requests, (unsigned long long)tot.status_429,
           (unsigned long long)tot.status_503, (unsigned long long)tot.dropped_events,
           (unsigned long long)tot.ra_absent, (unsigned long long)tot.ra_bad, ra);
    fprintf(stderr,
            "serve_load: %llu events accepted in %.2f s = %.0f events/s (target %s); request "
            "latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; %llu throttled%s, %llu late\n",
            (unsigned long long)tot.accepted_events, secs, eps, o.rate > 0 ? "paced" : "max",
            pct_ms(lat.v, lat.n, 0.5), pct_ms(lat.v, lat.n, 0.99),
            lat.n ? (double)lat.v[lat.n - 1] * 1e-6 : 0, (unsigned long long)tot.throttled,
            o.no_retry ? " (dropped)" : "", (unsigned long long)tot.late);
    fflush(stdout);
    core_vec_free(&lat);
    free(R.s);
    core_buf_free(&P.data);
    free(P.bodies);
    log_free(&L);
    return fatal ? 1 : 0;
}
