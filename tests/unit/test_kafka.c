/* The Kafka source against librdkafka's mock cluster, in process: every
 * message once and in order, resuming where the work was done, the
 * start_offset hook, property errors, lag, and a broker going down. */
#include "ingest.h"
#include "unit.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <time.h>

#define NPART 4
#define MAXMSG 32000

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static void test_log(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    fprintf(stderr, "  [%s] %s\n", core_log_level_name(level), msg);
}

static const core_logger quiet_log = {test_log, NULL, CORE_LOG_WARN};

static void quiet_rdkafka(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    (void)level;
    (void)fac;
    (void)buf;
}

static ingest_kafka_mock *mock_up(int brokers, const char *topic)
{
    ingest_kafka_mock *m;
    char why[256];
    int rc = ingest_kafka_mock_new(brokers, &m, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "mock: %s", why);
    rc = ingest_kafka_mock_topic(m, topic, NPART, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "mock topic: %s", why);
    return m;
}

/* Produces messages key "k<i>", value "v<i>" for i in [from, to) with the
 * default (key-hash) partitioner, and waits until all are acknowledged.
 * Record batches are kept small: a fetch returns at least one whole batch,
 * and the consumer's small fetches (see the broker test) should stay
 * small. */
static void produce(const char *boot, const char *topic, int from, int to)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    CHECK(rd_kafka_conf_set(conf, "bootstrap.servers", boot, err, sizeof err) == 0);
    CHECK(rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof err) == 0);
    CHECK(rd_kafka_conf_set(conf, "batch.num.messages", "100", err, sizeof err) == 0);
    rd_kafka_conf_set_log_cb(conf, quiet_rdkafka);
    rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    CHECK(p != NULL);
    for (int i = from; i < to; i++) {
        char key[32], val[32];
        int kn = snprintf(key, sizeof key, "k%d", i);
        int vn = snprintf(val, sizeof val, "v%d", i);
        rd_kafka_resp_err_t e;
        while ((e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(key, (size_t)kn),
                                      RD_KAFKA_V_VALUE(val, (size_t)vn),
                                      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)) ==
               RD_KAFKA_RESP_ERR__QUEUE_FULL)
            rd_kafka_poll(p, 10);
        CHECK_INT(e, 0);
    }
    CHECK_INT(rd_kafka_flush(p, 10000), 0);
    CHECK_INT(rd_kafka_outq_len(p), 0);
    rd_kafka_destroy(p);
}

/* What a consumer saw. */
typedef struct seen {
    uint8_t count[MAXMSG]; /* by message number */
    int64_t first[NPART];  /* first offset received per partition, -1 if none */
    int64_t last[NPART];   /* last offset received per partition, -1 if none */
    int64_t expect[NPART]; /* when >= 0: the next offset must be this (no gaps) */
    uint64_t n;
    ingest_kafka_pos batch[NPART]; /* this poll's last offset per partition */
    bool in_batch[NPART];
    int assigned, revoked; /* hook calls */
    int64_t hook[NPART];   /* start_offset's answer per partition */
    int refuse_at;         /* partition whose first message is refused once, or -1 */
    int never_done;        /* partition whose messages are never done, or -1 */
} seen;

static void seen_init(seen *s)
{
    memset(s, 0, sizeof *s);
    for (int p = 0; p < NPART; p++)
        s->first[p] = s->last[p] = s->expect[p] = s->hook[p] = -1;
    s->refuse_at = s->never_done = -1;
}

static int on_msg(void *ud, const ingest_kafka_msg *m)
{
    seen *s = ud;
    CHECK_STR(m->topic, "t");
    CHECK(m->partition >= 0 && m->partition < NPART);
    int p = m->partition;
    if (s->refuse_at == p) {
        s->refuse_at = -1;
        return -EAGAIN;
    }
    /* Offsets only go up, with no gap where one is expected. */
    if (s->last[p] >= 0 && m->offset <= s->last[p])
        unit_fail(__FILE__, __LINE__, "partition %d: offset %lld after %lld", p,
                  (long long)m->offset, (long long)s->last[p]);
    if (s->expect[p] >= 0 && m->offset != s->expect[p])
        unit_fail(__FILE__, __LINE__, "partition %d: offset %lld, expected %lld", p,
                  (long long)m->offset, (long long)s->expect[p]);
    if (s->first[p] < 0)
        s->first[p] = m->offset;
    s->last[p] = m->offset;
    s->expect[p] = m->offset + 1;
    char key[32], val[32];
    CHECK(m->klen < sizeof key && m->vlen < sizeof val);
    memcpy(key, m->key, m->klen);
    key[m->klen] = 0;
    memcpy(val, m->val, m->vlen);
    val[m->vlen] = 0;
    int i = atoi(val + 1);
    CHECK(val[0] == 'v' && i >= 0 && i < MAXMSG);
    CHECK_INT(atoi(key + 1), i);
    CHECK(m->timestamp_ms > 0);
    s->count[i]++;
    s->n++;
    s->batch[p] = (ingest_kafka_pos){m->topic, p, m->offset};
    s->in_batch[p] = true;
    return 0;
}

static int64_t hook_start(void *ud, const char *topic, int32_t partition)
{
    seen *s = ud;
    CHECK_STR(topic, "t");
    CHECK(partition >= 0 && partition < NPART);
    return s->hook[partition];
}

static void hook_assigned(void *ud, const char *topic, int32_t partition)
{
    (void)topic;
    (void)partition;
    ((seen *)ud)->assigned++;
}

static void hook_revoked(void *ud, const char *topic, int32_t partition)
{
    (void)topic;
    (void)partition;
    ((seen *)ud)->revoked++;
}

/* The state commit of a real caller: here, every batch is done at once.
 * The topic pointers of the batch are only valid during on_msg, so the
 * positions name the topic again. */
static void commit_batch(ingest_kafka *k, seen *s)
{
    ingest_kafka_pos pos[NPART];
    size_t n = 0;
    for (int p = 0; p < NPART; p++)
        if (s->in_batch[p] && p != s->never_done) {
            pos[n] = s->batch[p];
            pos[n++].topic = "t";
            s->in_batch[p] = false;
        }
    CHECK_OK(ingest_kafka_done(k, pos, n));
}

static void *wake_later(void *arg)
{
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
    ingest_kafka_wake(arg);
    return NULL;
}

static ingest_kafka *consumer(const char *boot, const char *group, seen *s,
                              const char *const *props, size_t nprops)
{
    static const char *const topics[] = {"t"};
    ingest_kafka_opts o = {
        .bootstrap = boot,
        .group = group,
        .topics = topics,
        .ntopics = 1,
        .props = props,
        .nprops = nprops,
        .start_offset = hook_start,
        .assigned = hook_assigned,
        .revoked = hook_revoked,
        .ud = s,
        .stats_interval_ms = 100,
        .log = quiet_log,
    };
    ingest_kafka *k;
    char why[512];
    int rc = ingest_kafka_new(&o, &k, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "ingest_kafka_new: %d %s", rc, why);
    return k;
}

/* Polls (committing after each batch) until s->n reaches want or
 * timeout_ms passes; step, when given, runs after every poll. */
static void drain(ingest_kafka *k, seen *s, uint64_t want, int timeout_ms,
                  void (*step)(ingest_kafka *k, seen *s, void *ud), void *ud)
{
    uint64_t end = core_now_ns() + (uint64_t)timeout_ms * 1000000u;
    while (s->n < want && core_now_ns() < end) {
        int rc = ingest_kafka_poll(k, 500, 100, on_msg, s);
        CHECK(rc >= 0);
        commit_batch(k, s);
        if (step)
            step(k, s, ud);
    }
    if (s->n != want)
        unit_fail(__FILE__, __LINE__, "received %llu messages, want %llu", (unsigned long long)s->n,
                  (unsigned long long)want);
}

/* Polls for ms milliseconds, failing on any message. */
static void expect_quiet(ingest_kafka *k, seen *s, int ms)
{
    uint64_t before = s->n, end = core_now_ns() + (uint64_t)ms * 1000000u;
    while (core_now_ns() < end)
        CHECK(ingest_kafka_poll(k, 500, 50, on_msg, s) >= 0);
    CHECK_INT(s->n, before);
}

static void check_each_once(const seen *s, int from, int to)
{
    for (int i = 0; i < MAXMSG; i++) {
        int want = i >= from && i < to;
        if (s->count[i] != want)
            unit_fail(__FILE__, __LINE__, "message %d seen %d times, want %d", i, s->count[i],
                      want);
    }
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

TEST(mock_cluster_errors)
{
    ingest_kafka_mock *m;
    char why[256];
    CHECK_INT(ingest_kafka_mock_new(0, &m, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "brokers") != NULL);
    CHECK_OK(ingest_kafka_mock_new(2, &m, why, sizeof why));
    const char *boot = ingest_kafka_mock_bootstrap(m);
    CHECK(strncmp(boot, "127.0.0.1:", 10) == 0);
    CHECK(strchr(boot, ',') != NULL); /* two brokers */
    CHECK(ingest_kafka_mock_cluster(m) != NULL);
    CHECK_OK(ingest_kafka_mock_topic(m, "a", 3, why, sizeof why));
    CHECK_INT(ingest_kafka_mock_topic(m, "a", 3, why, sizeof why), -EEXIST);
    CHECK(strstr(why, "'a'") != NULL);
    CHECK_INT(ingest_kafka_mock_topic(m, "b", 0, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "partitions") != NULL);
    CHECK_INT(ingest_kafka_mock_topic(m, "", 1, why, sizeof why), CORE_EUSAGE);
    ingest_kafka_mock_free(m);
    ingest_kafka_mock_free(NULL);
}

TEST(properties_are_checked_and_values_never_shown)
{
    static const char *const topics[] = {"t"};
    ingest_kafka_opts o = {
        .bootstrap = "127.0.0.1:1", .group = "g", .topics = topics, .ntopics = 1};
    ingest_kafka *k = NULL;
    char why[512];
    struct {
        const char *prop, *key;
    } bad[] = {
        {"no.such.property=secret-1", "'no.such.property'"},
        {"session.timeout.ms=secret-2", "'session.timeout.ms'"},
        {"session.timeout.ms=0", "allowed range"},
        {"auto.offset.reset=secret-3", "'auto.offset.reset'"},
        {"enable.auto.offset.store=true", "'enable.auto.offset.store'"},
        {"group.id=other", "'group.id'"},
        {"secret-4", "#2"},
        {"=secret-5", "#2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *props[] = {"fetch.wait.max.ms=50", bad[i].prop};
        o.props = props;
        o.nprops = 2;
        why[0] = 0;
        CHECK_INT(ingest_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
        if (!strstr(why, bad[i].key) || strstr(why, "secret"))
            unit_fail(__FILE__, __LINE__, "%s: why is '%s'", bad[i].prop, why);
    }
    CHECK(k == NULL);
    o.props = NULL;
    o.nprops = 0;
    o.ntopics = 0;
    CHECK_INT(ingest_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "topics") != NULL);
    o.ntopics = 1;
    o.group = NULL;
    CHECK_INT(ingest_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "group") != NULL);
    o.group = "g";
    o.bootstrap = "";
    CHECK_INT(ingest_kafka_new(&o, &k, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "bootstrap") != NULL);
}

/*
 * 20k keyed messages over 4 partitions, consumed in batches with a commit
 * after each: every message once, offsets gapless per partition, lag down
 * to 0. A second member of the same group, started after the first left,
 * gets only what was produced since.
 */
TEST(consume_all_then_resume_after_done)
{
    ingest_kafka_mock *m = mock_up(1, "t");
    const char *boot = ingest_kafka_mock_bootstrap(m);
    produce(boot, "t", 0, 20000);

    seen *s = core_xmalloc(sizeof *s);
    seen_init(s);
    for (int p = 0; p < NPART; p++)
        s->expect[p] = 0; /* from the start of every partition */
    /* The mock cluster waits session.timeout.ms - 1 s after a member
     * leaves before the group takes a new one: keep it short, but well
     * above the 3 s the mock holds a first JoinGroup (a member must not
     * time out while it waits there). */
    const char *gp[] = {"session.timeout.ms=5000", "heartbeat.interval.ms=500"};
    ingest_kafka *k = consumer(boot, "g1", s, gp, 2);
    drain(k, s, 20000, 15000, NULL, NULL);
    check_each_once(s, 0, 20000);
    for (int p = 0; p < NPART; p++)
        CHECK(s->last[p] > 0); /* every partition had messages */
    CHECK_INT(s->last[0] + s->last[1] + s->last[2] + s->last[3] + NPART, 20000);
    CHECK_INT(s->assigned, NPART);

    /* The statistics catch up: everything done, nothing lagging. */
    ingest_kafka_stats st;
    uint64_t end = core_now_ns() + 5000000000u;
    do {
        CHECK_INT(ingest_kafka_poll(k, 100, 50, on_msg, s), 0);
        ingest_kafka_get_stats(k, &st);
    } while ((st.lag != 0 || !st.up) && core_now_ns() < end);

    /* ingest_kafka_wake ends a wait from another thread, and a wake that
     * comes first ends the next poll's wait at once. */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, wake_later, k) == 0);
    uint64_t t0 = core_now_ns();
    CHECK_INT(ingest_kafka_poll(k, 100, 5000, on_msg, s), 0);
    uint64_t took = core_now_ns() - t0;
    pthread_join(th, NULL);
    CHECK(took >= 100000000u && took < 2000000000u);
    ingest_kafka_wake(k);
    t0 = core_now_ns();
    CHECK_INT(ingest_kafka_poll(k, 100, 5000, on_msg, s), 0);
    CHECK(core_now_ns() - t0 < 1000000000u);
    CHECK_INT(st.lag, 0);
    CHECK(st.up);
    CHECK_INT(st.assigned, NPART);
    CHECK_INT(st.messages, 20000);
    ingest_kafka_free(k);
    CHECK_INT(s->revoked, NPART);

    /* Same group, new member: what was done is not delivered again. */
    produce(boot, "t", 20000, 21000);
    seen *s2 = core_xmalloc(sizeof *s2);
    seen_init(s2);
    for (int p = 0; p < NPART; p++)
        s2->expect[p] = s->last[p] + 1;
    k = consumer(boot, "g1", s2, gp, 2);
    drain(k, s2, 1000, 15000, NULL, NULL);
    expect_quiet(k, s2, 300);
    check_each_once(s2, 20000, 21000);
    ingest_kafka_free(k);
    free(s);
    free(s2);
    ingest_kafka_mock_free(m);
}

/* Commits offsets for group g2 without joining it (as a tool resetting a
 * group would). */
static void commit_group_offsets(const char *boot, const char *group, const int64_t *offs)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    CHECK(rd_kafka_conf_set(conf, "bootstrap.servers", boot, err, sizeof err) == 0);
    CHECK(rd_kafka_conf_set(conf, "group.id", group, err, sizeof err) == 0);
    rd_kafka_conf_set_log_cb(conf, quiet_rdkafka);
    rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    CHECK(c != NULL);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(NPART);
    for (int p = 0; p < NPART; p++)
        if (offs[p] >= 0)
            rd_kafka_topic_partition_list_add(l, "t", p)->offset = offs[p];
    CHECK_INT(rd_kafka_commit(c, l, 0), 0);
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
}

/*
 * The state store's offset wins over the group's: partition 2 has a
 * committed offset of 300 but the hook says 100; partition 0 is left to the
 * committed 50; partitions 1 and 3 have no commit and start at 0. Also: a
 * message on_msg refuses comes again, and the lag counts exactly the
 * messages of a partition whose work is never done.
 */
TEST(start_offset_hook_wins_over_committed)
{
    ingest_kafka_mock *m = mock_up(1, "t");
    const char *boot = ingest_kafka_mock_bootstrap(m);
    produce(boot, "t", 0, 4000);
    const int64_t committed[NPART] = {50, -1, 300, -1};
    commit_group_offsets(boot, "g2", committed);

    seen *s = core_xmalloc(sizeof *s);
    seen_init(s);
    s->hook[2] = 100;
    s->refuse_at = 3;
    s->never_done = 1;
    const int64_t start[NPART] = {50, 0, 100, 0};
    memcpy(s->expect, start, sizeof start);
    ingest_kafka *k = consumer(boot, "g2", s, NULL, 0);
    uint64_t end = core_now_ns() + 10000000000u;
    bool refused = false;
    ingest_kafka_stats st = {0};
    while (core_now_ns() < end) {
        int rc = ingest_kafka_poll(k, 500, 100, on_msg, s);
        if (rc == -EAGAIN) {
            refused = true;
            CHECK_INT(s->refuse_at, -1);
        } else {
            CHECK(rc >= 0);
        }
        commit_batch(k, s);
        /* Everything from the start offsets on has arrived, and the
         * statistics show partition 1's messages, all of them, as lag. */
        ingest_kafka_get_stats(k, &st);
        if (s->n == 4000 - 50 - 100 && st.lag == s->last[1] + 1)
            break;
    }
    CHECK_INT(s->n, 4000 - 50 - 100);
    CHECK(s->last[1] > 0);
    CHECK_INT(st.lag, s->last[1] + 1);
    CHECK(refused);
    CHECK_INT(s->first[0], 50);
    CHECK_INT(s->first[1], 0);
    CHECK_INT(s->first[2], 100);
    CHECK_INT(s->first[3], 0); /* refused once, delivered again */
    ingest_kafka_free(k);
    free(s);
    ingest_kafka_mock_free(m);
}

/* Takes broker 2 (the leader of partitions 0 and 1) down once 3000
 * messages have arrived, and up again 800 ms later. */
typedef struct fault {
    rd_kafka_mock_cluster_t *mc;
    uint64_t down_ns;
    bool down, up;
    uint64_t at_down, at_up;
    int64_t last_at_up[NPART];
} fault;

static void fault_step(ingest_kafka *k, seen *s, void *ud)
{
    (void)k;
    fault *f = ud;
    if (!f->down && s->n >= 3000) {
        CHECK_INT(rd_kafka_mock_broker_set_down(f->mc, 2), 0);
        f->down = true;
        f->down_ns = core_now_ns();
        f->at_down = s->n;
    } else if (f->down && !f->up && core_now_ns() - f->down_ns > 800000000u) {
        CHECK_INT(rd_kafka_mock_broker_set_up(f->mc, 2), 0);
        f->up = true;
        f->at_up = s->n;
        memcpy(f->last_at_up, s->last, sizeof f->last_at_up);
    }
}

TEST(broker_down_and_up_loses_nothing)
{
    ingest_kafka_mock *m = mock_up(3, "t");
    rd_kafka_mock_cluster_t *mc = ingest_kafka_mock_cluster(m);
    /* The group's coordinator stays up; the partitions' leaders are the
     * other two brokers. */
    CHECK_INT(rd_kafka_mock_coordinator_set(mc, "group", "g4", 1), 0);
    for (int p = 0; p < NPART; p++)
        CHECK_INT(rd_kafka_mock_partition_set_leader(mc, "t", p, p < 2 ? 2 : 3), 0);
    const char *boot = ingest_kafka_mock_bootstrap(m);
    produce(boot, "t", 0, 20000);

    seen *s = core_xmalloc(sizeof *s);
    seen_init(s);
    for (int p = 0; p < NPART; p++)
        s->expect[p] = 0;
    /* Small fetches, so that consuming takes many of them and the broker
     * goes down halfway; quick reconnects, so that the test is short. */
    const char *props[] = {"fetch.message.max.bytes=4096", "queued.min.messages=1000",
                           "reconnect.backoff.ms=50", "reconnect.backoff.max.ms=200"};
    ingest_kafka *k = consumer(boot, "g4", s, props, sizeof props / sizeof props[0]);
    fault f = {.mc = mc};
    drain(k, s, 20000, 15000, fault_step, &f);
    CHECK(f.down && f.up);
    /* Partitions 0 and 1 stalled while their leader was down, and went on
     * after it came back. */
    CHECK(f.at_down < 20000);
    CHECK(s->last[0] > f.last_at_up[0]);
    CHECK(s->last[1] > f.last_at_up[1]);
    check_each_once(s, 0, 20000);
    ingest_kafka_stats st;
    ingest_kafka_get_stats(k, &st);
    fprintf(stderr, "  down at %llu, up at %llu messages; %llu errors\n",
            (unsigned long long)f.at_down, (unsigned long long)f.at_up,
            (unsigned long long)st.errors);
    ingest_kafka_free(k);
    free(s);
    ingest_kafka_mock_free(m);
}
