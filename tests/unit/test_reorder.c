/*
 * Event time in the daemon (serve/reorder.c), white-box: a daemon opened
 * on a small graph, events handed to it as the engine hands them, its
 * predictions read from its stdout. Held events are applied in their
 * order once their grace is over; a late one is placed where it belongs
 * and the predictions after it are published again with higher
 * revisions; too late ones are refused; duplicates are applied once; held
 * events survive a restart.
 */
#include "config.h"
#include "serve_int.h"
#include "unit.h"
#include "unit_graph.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ll
#define T0 1767323045000000000ll

static const char *graph_path(void)
{
    static char path[512];
    if (!path[0]) {
        unit_write_str("repo/steps.py", "import logging\n"
                                        "log = logging.getLogger(__name__)\n"
                                        "def one():\n    log.info('step one')\n"
                                        "def two():\n    log.info('step two')\n"
                                        "def three():\n    log.info('step three')\n");
        graph_index_opts io = {.threads = 1};
        snprintf(path, sizeof path, "%s", unit_tmp_path("steps.graph"));
        graph_close(unit_index_and_open(unit_tmp_path("repo"), path, &io, NULL));
        /* The predictions: the daemon's stdout, from now on. */
        fflush(stdout);
        int fd = open(unit_tmp_path("pred.jsonl"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0 && dup2(fd, 1) == 1);
        close(fd);
    }
    return path;
}

/* A daemon without listeners or Kafka, on graph g and the state in dir,
 * with KEY=VALUE settings (NULL-terminated). */
static serve *daemon_open_on(const char *g, const char *dir, const char *const *sets)
{
    core_cfg *cfg = core_cfg_new(pmrag_config_table, pmrag_config_count);
    char why[512];
    const char *base[] = {"otlp.listen=",
                          "otlp.grpc_listen=",
                          "api.listen=",
                          "kafka.embedded=false",
                          "serve.stdout=true",
                          "model.learn_online=false",
                          "limits.new_cases_per_second=0"};
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        CHECK_OK(core_cfg_set(cfg, base[i], why, sizeof why));
    CHECK_OK(core_cfg_put(cfg, "state.dir", unit_tmp_path(dir), "test", why, sizeof why));
    for (size_t i = 0; sets && sets[i]; i++)
        CHECK_OK(core_cfg_set(cfg, sets[i], why, sizeof why));
    serve_opts o = {.cfg = cfg, .graph_path = g};
    serve *s = NULL;
    int rc = serve_open(&o, &s, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "serve_open: %d %s", rc, why);
    return s;
}

static serve *daemon_open(const char *dir, const char *const *sets)
{
    return daemon_open_on(graph_path(), dir, sets);
}

/* An event of case id at ms past T0: a span (with its id and parent's,
 * trace "t") when span is not NULL, else a log record; from input message
 * km (NULL: an OTLP request). */
static void in_from(serve *s, const char *id, const char *activity, int64_t ms, const char *span,
                    const char *parent, const ingest_kafka_msg *km)
{
    ingest_attr at[3] = {{"trace_id", "t"}};
    uint32_t n = 1;
    if (span)
        at[n++] = (ingest_attr){"span_id", span};
    if (parent)
        at[n++] = (ingest_attr){"parent_span_id", parent};
    ingest_event ev = {.case_id = id,
                       .activity = activity,
                       .time_ns = T0 + ms * MS,
                       .attrs = at,
                       .nattrs = n,
                       .kind = span ? INGEST_SPAN : INGEST_LOG};
    pthread_mutex_lock(&s->mu);
    CHECK_OK(s->reorder_ns ? serve__reorder_hold(s, &ev, core_now_ns(), km) : 0);
    pthread_mutex_unlock(&s->mu);
}

static void in(serve *s, const char *id, const char *activity, int64_t ms, const char *span,
               const char *parent)
{
    in_from(s, id, activity, ms, span, parent, NULL);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* What is due by now released, everything committed. */
static void settle(serve *s)
{
    /* (A release stops at a full batch: the rest go after its commit.) */
    do {
        pthread_mutex_lock(&s->mu);
        CHECK_OK(serve__reorder_due(s, UINT64_MAX, NULL));
        pthread_mutex_unlock(&s->mu);
        CHECK_OK(serve__pipe_sync(s));
    } while (serve__reorder_wait_ns(s) == 0);
    fflush(stdout);
}

/* The predictions published since the last call, one "case seq rev
 * activity ms" line each. */
static void preds(core_buf *out)
{
    static long done;
    core_buf_reset(out);
    FILE *f = fopen(unit_tmp_path("pred.jsonl"), "r");
    CHECK(f != NULL);
    fseek(f, done, SEEK_SET);
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char id[64], act[64];
        unsigned long long seq, rev;
        long long t;
        const char *tp = strstr(line, "\"time_unix_nano\":");
        CHECK(tp != NULL);
        CHECK(sscanf(line,
                     "{\"case_id\":\"%63[^\"]\",\"seq\":%llu,\"revision\":%llu,\"activity\":\"%63[^"
                     "\"]\"",
                     id, &seq, &rev, act) == 4);
        CHECK(sscanf(tp, "\"time_unix_nano\":%lld", &t) == 1);
        core_buf_printf(out, "%s %llu %llu %s %lld\n", id, seq, rev, act, (t - T0) / MS);
    }
    done = ftell(f);
    fclose(f);
    if (!out->data)
        core_buf_puts(out, "");
}

static sess_case *stored(serve *s, const char *id)
{
    static sess_case c;
    CHECK_OK(sess_case_get(s->env, id, strlen(id), &c));
    return &c;
}

static int count_held(void *ud, const char *id, size_t len, uint64_t no, const void *v, size_t n)
{
    (void)id, (void)len, (void)no, (void)v, (void)n;
    (*(int *)ud)++;
    return 0;
}

static int held_in_state(serve *s)
{
    int n = 0;
    CHECK_OK(sess_held_iter(s->env, count_held, &n));
    return n;
}

static uint64_t counter(sink_counter *c)
{
    return sink_counter_get(c);
}

TEST(held_events_are_applied_in_event_time)
{
    static const char *const sets[] = {"serve.reorder_ms=60", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in(s, "c", "step three", 30, NULL, NULL);
    in(s, "c", "step one", 10, NULL, NULL);
    in(s, "c", "step two", 20, NULL, NULL);
    settle(s);
    /* Held: durable, nothing applied or published yet. */
    preds(&p);
    CHECK_STR(p.data, "");
    CHECK_INT(held_in_state(s), 3);
    /* Only the held entries are written until they are released. */
    sess_case none;
    CHECK_INT(sess_case_get(s->env, "c", 1, &none), CORE_ENOTFOUND);
    CHECK_INT(serve__reorder_nheld(s, "c", 1), 3);
    sleep_ms(90);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\nc 2 0 step two 20\nc 3 0 step three 30\n");
    CHECK_INT(held_in_state(s), 0);
    sess_case *c = stored(s, "c");
    CHECK_INT(c->seq, 3);
    CHECK_INT(c->nheld, 0);
    for (uint32_t i = 0; i < 3; i++)
        CHECK_INT(c->tok[i].key, T0 + (int64_t)(i + 1) * 10 * MS);
    CHECK_INT(counter(s->c_late), 0);
    core_buf_free(&p);
    serve_close(s);
}

TEST(a_late_event_is_placed_and_later_predictions_revised)
{
    static const char *const sets[] = {"serve.reorder_ms=20", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in(s, "c", "step one", 10, NULL, NULL);
    in(s, "c", "step two", 20, NULL, NULL);
    in(s, "c", "step three", 30, NULL, NULL);
    sleep_ms(40);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\nc 2 0 step two 20\nc 3 0 step three 30\n");
    /* One between the first two: it takes seq 2; the two after it move up
     * by one, published again (seq 4 is new: revision 0). */
    in(s, "c", "step one", 15, NULL, NULL);
    sleep_ms(40);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 2 1 step one 15\nc 3 1 step two 20\nc 4 0 step three 30\n");
    CHECK_INT(counter(s->c_late), 1);
    /* Another before it: every seq from 2 on again, one revision up. */
    in(s, "c", "step three", 12, NULL, NULL);
    sleep_ms(40);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 2 2 step three 12\nc 3 2 step one 15\nc 4 1 step two 20\n"
                      "c 5 0 step three 30\n");
    sess_case *c = stored(s, "c");
    CHECK_INT(c->seq, 5);
    static const int64_t want[] = {10, 12, 15, 20, 30};
    static const uint32_t revs[] = {0, 2, 2, 1, 0};
    for (uint32_t i = 0; i < 5; i++) {
        CHECK_INT(c->tok[i].key, T0 + want[i] * MS);
        CHECK_INT(c->tok[i].rev, revs[i]);
    }
    /* A late event scored against the prediction before its place: every
     * event but the first scored once. */
    CHECK_INT(c->scored, 4);
    CHECK_INT(counter(s->c_revised), 5);
    core_buf_free(&p);
    serve_close(s);
}

/* latency_us of the last prediction published for activity (-1: none). */
static long long latency_of(const char *activity)
{
    FILE *f = fopen(unit_tmp_path("pred.jsonl"), "r");
    CHECK(f != NULL);
    char line[8192], want[96];
    snprintf(want, sizeof want, "\"activity\":\"%s\"", activity);
    long long us = -1;
    while (fgets(line, sizeof line, f)) {
        const char *l = strstr(line, "\"latency_us\":");
        if (strstr(line, want) && l)
            CHECK(sscanf(l, "\"latency_us\":%lld", &us) == 1);
    }
    fclose(f);
    return us;
}

/* Placed late together with an event that came after it, an event's
 * latency still counts from its own arrival. */
TEST(a_late_event_s_latency_counts_from_its_own_arrival)
{
    static const char *const sets[] = {"serve.reorder_ms=120", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in(s, "c", "step three", 30, NULL, NULL);
    sleep_ms(130);
    settle(s);
    in(s, "c", "step two", 20, NULL, NULL);
    sleep_ms(100);
    in(s, "c", "step one", 10, NULL, NULL);
    sleep_ms(30);
    /* "step two" is due, and "step one" goes with it, first. */
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step three 30\nc 1 1 step one 10\nc 2 0 step two 20\n"
                      "c 3 0 step three 30\n");
    long long us = latency_of("step two");
    if (us < 120000)
        unit_fail(__FILE__, __LINE__, "step two was held 120 ms, its latency_us is %lld", us);
    core_buf_free(&p);
    serve_close(s);
}

TEST(too_late_events_are_refused)
{
    static const char *const sets[] = {"serve.reorder_ms=1", "serve.late_max_ms=1000", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    /* More events than a case stores: one before those it still has
     * cannot be placed. */
    for (int i = 0; i < 20; i++)
        in(s, "a", "step one", 100 + i, NULL, NULL);
    sleep_ms(10);
    settle(s);
    in(s, "a", "step two", 50, NULL, NULL);
    sleep_ms(10);
    settle(s);
    preds(&p);
    CHECK_INT(counter(s->c_too_late), 1);
    CHECK_INT(stored(s, "a")->seq, 20);
    CHECK_INT(stored(s, "a")->nheld, 0);
    /* Further behind the case's latest event than serve.late_max_ms: refused;
     * within it: placed. */
    in(s, "b", "step one", 10000, NULL, NULL);
    in(s, "b", "step one", 10001, NULL, NULL);
    sleep_ms(10);
    settle(s);
    in(s, "b", "step two", 5000, NULL, NULL);
    in(s, "b", "step three", 9500, NULL, NULL);
    sleep_ms(10);
    settle(s);
    preds(&p);
    CHECK(strstr(p.data, "b 1 1 step three 9500\n") != NULL);
    CHECK(strstr(p.data, "step two") == NULL);
    CHECK_INT(counter(s->c_too_late), 2);
    CHECK_INT(counter(s->c_late), 1);
    CHECK_INT(held_in_state(s), 0);
    core_buf_free(&p);
    serve_close(s);
}

TEST(duplicates_are_applied_once)
{
    static const char *const sets[] = {"serve.reorder_ms=5", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    /* The same span twice (another batch of a retrying exporter may carry
     * other attributes: the ids decide), the same log record twice, and a
     * log record like it at another time. */
    in(s, "c", "step one", 10, "s1", NULL);
    in(s, "c", "step one", 10, "s1", NULL);
    in(s, "c", "step two", 20, NULL, NULL);
    in(s, "c", "step two", 20, NULL, NULL);
    in(s, "c", "step two", 21, NULL, NULL);
    sleep_ms(20);
    settle(s);
    /* Also once released (a retry seconds later). */
    in(s, "c", "step one", 10, "s1", NULL);
    sleep_ms(20);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\nc 2 0 step two 20\nc 3 0 step two 21\n");
    CHECK_INT(counter(s->c_dups), 3);
    CHECK_INT(stored(s, "c")->nseen, 3);
    core_buf_free(&p);
    serve_close(s);
}

/* A case that holds events is not read again for each one it takes:
 * what its releases applied is known all the same, the duplicates of
 * those events and its count of events. */
TEST(a_case_that_holds_events_knows_what_its_releases_applied)
{
    static const char *const sets[] = {"serve.reorder_ms=40", "limits.case_events=3", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in(s, "c", "step one", 10, "s1", NULL);
    sleep_ms(25);
    in(s, "c", "step two", 20, "s2", NULL);
    sleep_ms(25);
    settle(s);
    /* step one released, step two still held. */
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\n");
    CHECK_INT(serve__reorder_nheld(s, "c", 1), 1);
    in(s, "c", "step one", 10, "s1", NULL);
    CHECK_INT(counter(s->c_dups), 1);
    in(s, "c", "step three", 30, "s3", NULL);
    /* One applied and two held: the case has no room for a fourth. */
    in(s, "c", "step four", 40, "s4", NULL);
    CHECK_INT(counter(s->c_lim_case_events), 1);
    sleep_ms(60);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 2 0 step two 20\nc 3 0 step three 30\n");
    CHECK_INT(stored(s, "c")->seq, 3);
    core_buf_free(&p);
    serve_close(s);
}

/* A request through the engine's queue, as the OTLP receivers hand one
 * over: cycles until it is answered or 3 s pass; whether it was (and its
 * result in *rc). */
static bool request(serve *s, const ingest_event *evs, size_t n, int *rc)
{
    pending p = {.kind = INGEST_OTLP_TRACES, .evs = evs, .n = n, .t0 = core_now_ns()};
    pthread_mutex_lock(&s->qmu);
    s->qhead = s->qtail = &p;
    s->qevents = n;
    pthread_mutex_unlock(&s->qmu);
    bool done = false;
    for (uint64_t t0 = core_now_ns(); !done && core_now_ns() - t0 < 3000 * MS;) {
        CHECK_OK(serve__cycle(s, false));
        pthread_mutex_lock(&s->qmu);
        done = p.done;
        pthread_mutex_unlock(&s->qmu);
    }
    if (!done) {
        /* (Off the daemon's lists before p goes out of scope.) */
        pthread_mutex_lock(&s->qmu);
        s->qhead = s->qtail = NULL;
        s->qevents = 0;
        pthread_mutex_unlock(&s->qmu);
        s->reqs = s->reqs_tail = NULL;
    }
    *rc = p.rc;
    return done;
}

TEST(a_request_of_duplicates_only_is_answered)
{
    /* Without the request ids (otlp.dedupe_seconds=0) a retry is known
     * only by its events' fingerprints: refused one by one, it queues no
     * change at all, and is answered all the same. */
    static const char *const sets[] = {"serve.reorder_ms=5", "otlp.dedupe_seconds=0", NULL};
    serve *s = daemon_open("st", sets);
    ingest_attr at[2] = {{"trace_id", "t"}, {"span_id", "s1"}};
    ingest_event ev = {.case_id = "c",
                       .activity = "step one",
                       .time_ns = T0,
                       .attrs = at,
                       .nattrs = 2,
                       .kind = INGEST_SPAN};
    int rc = -1;
    CHECK(request(s, &ev, 1, &rc));
    CHECK_INT(rc, 0);
    /* Held, then a retry while it is held, and one after its release. */
    CHECK(request(s, &ev, 1, &rc));
    CHECK_INT(rc, 0);
    sleep_ms(10);
    settle(s);
    CHECK_INT(stored(s, "c")->seq, 1);
    CHECK(request(s, &ev, 1, &rc));
    CHECK_INT(rc, 0);
    CHECK_INT(counter(s->c_dups), 2);
    CHECK_INT(stored(s, "c")->seq, 1);
    serve_close(s);
}

TEST(a_child_span_is_never_before_its_parent)
{
    static const char *const sets[] = {"serve.reorder_ms=20", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    /* The child's service runs 3 s behind; it ends first, and its log
     * comes with it. */
    in(s, "c", "step two", 200 - 3000, "s2", "s1");
    in(s, "c", "step three", 250 - 3000, NULL, NULL);
    in(s, "c", "step one", 100, "s1", NULL);
    sleep_ms(40);
    settle(s);
    preds(&p);
    /* (The log names no span: it keeps its own time.) */
    CHECK_STR(p.data, "c 1 0 step three -2750\nc 2 0 step one 100\nc 3 0 step two -2800\n");
    core_buf_free(&p);
    serve_close(s);
}

TEST(held_events_survive_a_restart)
{
    static const char *const sets[] = {"serve.reorder_ms=200", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in(s, "c", "step two", 20, NULL, NULL);
    in(s, "c", "step one", 10, NULL, NULL);
    settle(s);
    serve_close(s);
    s = daemon_open("st", sets);
    CHECK_INT(held_in_state(s), 2);
    CHECK_INT(serve__reorder_wait_ns(s) > 0, 1);
    /* Numbers go on after the restored ones: a new event comes after them
     * on a tie. */
    in(s, "c", "step three", 20, NULL, NULL);
    /* A retry of a restored one is known by its stored fingerprint. */
    in(s, "c", "step one", 10, NULL, NULL);
    CHECK_INT(counter(s->c_dups), 1);
    CHECK_INT(serve__reorder_nheld(s, "c", 1), 3);
    sleep_ms(250);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\nc 2 0 step two 20\nc 3 0 step three 20\n");
    CHECK_INT(held_in_state(s), 0);
    core_buf_free(&p);
    serve_close(s);
}

/* The variant a case's value named (the synchronous client's mode) is
 * kept in its state with the position of the event that named it; an
 * event placed before that one forgets it, and the event, applied again
 * after it, names it again at its new position. */
TEST(the_variants_told_follow_the_case_order)
{
    unit_write_modes("modes");
    graph_index_opts io = {.threads = 1};
    const char *gp = unit_tmp_path("modes.graph");
    graph *g = unit_index_and_open(unit_tmp_path("modes"), gp, &io, NULL);
    uint32_t sync_modes = unit_sym(g, "pkg.client.Client.modes");
    graph_close(g);
    graph_path(); /* the predictions to the file preds reads */
    static const char *const sets[] = {"serve.reorder_ms=20", NULL};
    serve *s = daemon_open_on(gp, "st", sets);
    core_buf p = {0};
    in(s, "v", "Client initialized for threading.", 10, NULL, NULL);
    in(s, "v", "Attempting connection to ws://a", 20, NULL, NULL);
    sleep_ms(40);
    settle(s);
    preds(&p);
    CHECK(strstr(p.data, "v 1 0 Client initialized for %s. (threading) 10\n") != NULL);
    sess_case *c = stored(s, "v");
    CHECK_INT(c->ntold, 1);
    CHECK_INT(c->told[0], sync_modes);
    CHECK_INT(c->told_seq[0], 1);
    in(s, "v", "Attempting connection to ws://b", 5, NULL, NULL);
    sleep_ms(40);
    settle(s);
    c = stored(s, "v");
    CHECK_INT(c->seq, 3);
    CHECK_INT(c->ntold, 1);
    CHECK_INT(c->told[0], sync_modes);
    CHECK_INT(c->told_seq[0], 2);
    core_buf_free(&p);
    serve_close(s);
}

/* A revoked partition (and a stop, with the changelog) releases the events
 * held for its cases at once, each case's in its order, and only those:
 * the cases of other partitions, and events that came over OTLP, wait for
 * their grace. The input message an event came in survives a restart. */
TEST(a_revoked_partition_releases_its_held_events)
{
    static const char *const sets[] = {"serve.reorder_ms=60000", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    ingest_kafka_msg p0 = {.topic = "events", .partition = 0, .offset = 7};
    ingest_kafka_msg p1 = {.topic = "events", .partition = 1, .offset = 3};
    in_from(s, "a", "step three", 30, NULL, NULL, &p0);
    in_from(s, "b", "step two", 20, NULL, NULL, &p1);
    in_from(s, "b", "step one", 10, NULL, NULL, &p1);
    p0.offset = 8;
    in_from(s, "a", "step one", 10, NULL, NULL, &p0);
    in(s, "o", "step one", 10, NULL, NULL);
    settle(s);
    serve_close(s);
    /* Restored: each keeps its partition. */
    s = daemon_open("st", sets);
    CHECK_INT(held_in_state(s), 5);
    pthread_mutex_lock(&s->mu);
    CHECK_OK(serve__reorder_release_partition(s, 1, "revoked"));
    pthread_mutex_unlock(&s->mu);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "b 1 0 step one 10\nb 2 0 step two 20\n");
    CHECK_INT(held_in_state(s), 3);
    CHECK_INT(serve__reorder_nheld(s, "a", 1), 2);
    /* A partition no held case came from: nothing. */
    pthread_mutex_lock(&s->mu);
    CHECK_OK(serve__reorder_release_partition(s, 5, "revoked"));
    pthread_mutex_unlock(&s->mu);
    CHECK_INT(held_in_state(s), 3);
    /* Every input partition (stopping): the OTLP event stays held. */
    pthread_mutex_lock(&s->mu);
    CHECK_OK(serve__reorder_release_partition(s, -1, "stopping"));
    pthread_mutex_unlock(&s->mu);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "a 1 0 step one 10\na 2 0 step three 30\n");
    CHECK_INT(held_in_state(s), 1);
    CHECK_INT(serve__reorder_nheld(s, "o", 1), 1);
    CHECK_INT(stored(s, "b")->seq, 2);
    CHECK_INT(stored(s, "a")->seq, 2);
    core_buf_free(&p);
    serve_close(s);
}

/* n cases PREFIX0.., each with "step one" at 10 ms and "step two" at 20,
 * held. */
static void in_pairs(serve *s, const char *prefix, int n)
{
    char id[32];
    for (int i = 0; i < 2 * n; i++) {
        snprintf(id, sizeof id, "%s%d", prefix, i / 2);
        in(s, id, i % 2 ? "step two" : "step one", 10 + i % 2 * 10, NULL, NULL);
    }
}

static size_t lines_of(const core_buf *b)
{
    size_t n = 0;
    for (const char *q = b->data; q && (q = strchr(q, '\n')); q++)
        n++;
    return n;
}

/* After a backlog the window's memory follows what it holds again: the
 * pools of held events and of cases give their free tails back, and what
 * comes after is held and released as before. */
TEST(the_window_gives_back_the_memory_of_a_backlog)
{
    static const char *const sets[] = {"serve.reorder_ms=30", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in_pairs(s, "b", 10000);
    pthread_mutex_lock(&s->mu);
    size_t peak = serve__reorder_bytes(s);
    pthread_mutex_unlock(&s->mu);
    sleep_ms(60);
    settle(s);
    preds(&p);
    CHECK_INT(lines_of(&p), 20000);
    CHECK_INT(held_in_state(s), 0);
    pthread_mutex_lock(&s->mu);
    size_t after = serve__reorder_bytes(s);
    pthread_mutex_unlock(&s->mu);
    if (!(after * 8 < peak))
        unit_fail(__FILE__, __LINE__, "the window holds %zu bytes after a backlog of %zu", after,
                  peak);
    in(s, "c", "step three", 30, NULL, NULL);
    in(s, "c", "step one", 10, NULL, NULL);
    sleep_ms(60);
    settle(s);
    preds(&p);
    CHECK_STR(p.data, "c 1 0 step one 10\nc 2 0 step three 30\n");
    core_buf_free(&p);
    serve_close(s);
}

TEST(a_burst_due_at_once_is_released_a_slice_at_a_time)
{
    static const char *const sets[] = {"serve.reorder_ms=30", NULL};
    serve *s = daemon_open("st", sets);
    core_buf p = {0};
    in_pairs(s, "s", 20);
    sleep_ms(60);
    /* All 40 are due; a slice of 10 releases five cases whole. */
    uint64_t n = 0;
    pthread_mutex_lock(&s->mu);
    CHECK_OK(serve__reorder_due(s, 10, &n));
    CHECK_INT(n, 10);
    CHECK_INT(serve__reorder_held(s), 30);
    CHECK_INT(serve__reorder_wait_ns(s), 0); /* the rest are still due */
    pthread_mutex_unlock(&s->mu);
    settle(s);
    preds(&p);
    CHECK_INT(lines_of(&p), 40);
    CHECK_INT(held_in_state(s), 0);
    core_buf_free(&p);
    serve_close(s);
}

TEST(the_window_takes_in_no_faster_than_the_engine_applies)
{
    static const char *const sets[] = {"serve.reorder_ms=1000", "serve.batch=10", NULL};
    serve *s = daemon_open("st", sets);
    pthread_mutex_lock(&s->mu);
    /* Nothing measured yet: two graces at the guessed 8 us an event. */
    CHECK_INT(serve__reorder_room(s), 250000);
    pthread_mutex_unlock(&s->mu);
    in_pairs(s, "r", 50);
    pthread_mutex_lock(&s->mu);
    /* A cycle took 1 s to take those 100 in: 10 ms an event, and the
     * room shrinks to two graces at that rate. */
    serve__reorder_note_cycle(s, 1000000000ull, 0);
    uint64_t room = serve__reorder_room(s);
    CHECK(room >= 195 && room <= 200);
    pthread_mutex_unlock(&s->mu);
    in_pairs(s, "q", 75);
    pthread_mutex_lock(&s->mu);
    /* 150 more taken in, in no time: 50 left, refilled at 125 a second. */
    serve__reorder_note_cycle(s, 0, 0);
    room = serve__reorder_room(s);
    CHECK(room >= 45 && room <= 60);
    pthread_mutex_unlock(&s->mu);
    serve_close(s);
}
