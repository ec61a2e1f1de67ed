/*
 * kafka.c - the Kafka source: a librdkafka consumer group member whose
 * offsets follow the caller's state.
 *
 * Offsets: enable.auto.offset.store is off, so librdkafka stores nothing
 * on its own; ingest_kafka_done stores offsets after the caller's state
 * commit, and auto-commit sends what is stored (also when partitions are
 * revoked and when the consumer closes). On assignment the caller's
 * start_offset hook may override the group's committed offset, because the
 * state store commits its applied offsets in the same transaction as the
 * state, while the group's offset may trail it by a commit interval.
 *
 * Every librdkafka callback (rebalance, errors, statistics, commits, and
 * log lines through log.queue) is served by rd_kafka_consumer_poll on the
 * poll thread, so the caller's hooks and logger run on one thread and the
 * state here needs no lock, except the counters that get_stats reads.
 */
#include "ingest.h"

#include <errno.h>
#include <jansson.h>
#include <librdkafka/rdkafka.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A transient error of one kind is logged at most this often; the others
 * are counted and their number reported with the next line. */
#define KAFKA_ERR_LOG_NS (10ull * 1000000000ull)
/* Assignment log lines list this many partitions, then "...". */
#define KAFKA_LOG_PARTS 16

struct ingest_kafka {
    rd_kafka_t *rk;
    core_logger log;
    int64_t (*start_offset)(void *ud, const char *topic, int32_t partition);
    void (*assigned)(void *ud, const char *topic, int32_t partition);
    void (*revoked)(void *ud, const char *topic, int32_t partition);
    void *ud;

    /* Poll thread only. */
    /* The current assignment, each with the offset start_offset gave
     * (RD_KAFKA_OFFSET_INVALID when it gave none). */
    rd_kafka_topic_partition_list_t *owned;
    int fatal;   /* 0, or what every poll returns from now on */
    bool paused; /* ingest_kafka_pause: also the partitions assigned later */
    rd_kafka_resp_err_t last_err;
    uint64_t last_err_ns;
    uint64_t unlogged; /* errors since the last logged one */

    /* Read by ingest_kafka_get_stats from any thread. */
    pthread_mutex_t mu;
    ingest_kafka_stats st;

    /* ingest_kafka_wake, from any thread. */
    rd_kafka_queue_t *cq; /* the consumer queue, which the poll waits on */
    atomic_bool wake;
};

/* ------------------------------------------------------------------ */
/* Errors and logs                                                     */
/* ------------------------------------------------------------------ */

static void count_error(ingest_kafka *k)
{
    pthread_mutex_lock(&k->mu);
    k->st.errors++;
    pthread_mutex_unlock(&k->mu);
}

/* Errors that retrying cannot mend: the credentials or the ACLs are
 * wrong, and only an operator can change that. */
static bool is_permanent(rd_kafka_resp_err_t err)
{
    switch (err) {
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
        return true;
    default:
        return false;
    }
}

/* One place for errors from the error callback, failed fetches and failed
 * commits: fatal ones stop the consumer, the rest are counted and logged
 * at a bounded rate (a broker that is down reports every reconnect). */
static void note_error(ingest_kafka *k, rd_kafka_resp_err_t err, const char *what,
                       const char *reason)
{
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        char text[512];
        rd_kafka_resp_err_t orig = rd_kafka_fatal_error(k->rk, text, sizeof text);
        core_logf(&k->log, CORE_LOG_ERROR, "kafka: fatal error (%s): %s", rd_kafka_err2name(orig),
                  text);
        k->fatal = -EIO;
        count_error(k);
        return;
    }
    if (is_permanent(err)) {
        core_logf(&k->log, CORE_LOG_ERROR, "kafka: %s: %s (%s)", what, reason,
                  rd_kafka_err2name(err));
        k->fatal = -EACCES;
        count_error(k);
        return;
    }
    count_error(k);
    uint64_t now = core_now_ns();
    if (err == k->last_err && now - k->last_err_ns < KAFKA_ERR_LOG_NS) {
        k->unlogged++;
        return;
    }
    if (k->unlogged)
        core_logf(&k->log, CORE_LOG_WARN, "kafka: %s: %s (%s; %llu more errors since the last)",
                  what, reason, rd_kafka_err2name(err), (unsigned long long)k->unlogged);
    else
        core_logf(&k->log, CORE_LOG_WARN, "kafka: %s: %s (%s)", what, reason,
                  rd_kafka_err2name(err));
    k->last_err = err;
    k->last_err_ns = now;
    k->unlogged = 0;
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    note_error(opaque, (rd_kafka_resp_err_t)err, "broker", reason);
}

/* librdkafka's syslog levels onto ours. What it logs at LOG_ERR (a broker
 * connection failing, mostly) also reaches on_error, which decides what it
 * means and logs it at a bounded rate, so those lines are only INFO. */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    ingest_kafka *k = rd_kafka_opaque(rk);
    if (!k)
        return;
    core_log_level l = level <= 2   ? CORE_LOG_ERROR
                       : level == 4 ? CORE_LOG_WARN
                       : level <= 6 ? CORE_LOG_INFO
                                    : CORE_LOG_DEBUG;
    core_logf(&k->log, l, "kafka: librdkafka %s: %s", fac, buf);
}

static void on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                      rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    (void)rk;
    ingest_kafka *k = opaque;
    /* _NO_OFFSET: an auto-commit with nothing new stored. */
    if (err == RD_KAFKA_RESP_ERR__NO_OFFSET)
        return;
    if (err) {
        note_error(k, err, "offset commit", rd_kafka_err2str(err));
        return;
    }
    for (int i = 0; offsets && i < offsets->cnt; i++) {
        const rd_kafka_topic_partition_t *p = &offsets->elems[i];
        if (p->err) {
            char what[300];
            snprintf(what, sizeof what, "offset commit of %s[%d]", p->topic, (int)p->partition);
            note_error(k, p->err, what, rd_kafka_err2str(p->err));
        }
    }
}

/* ------------------------------------------------------------------ */
/* Rebalances                                                          */
/* ------------------------------------------------------------------ */

static void set_assigned_count(ingest_kafka *k)
{
    pthread_mutex_lock(&k->mu);
    k->st.assigned = (uint32_t)k->owned->cnt;
    pthread_mutex_unlock(&k->mu);
}

static void log_parts(ingest_kafka *k, const char *verb, const rd_kafka_topic_partition_list_t *l,
                      bool offsets)
{
    if (!k->log.fn || k->log.min > CORE_LOG_INFO)
        return;
    core_buf b = {0};
    for (int i = 0; i < l->cnt && i < KAFKA_LOG_PARTS; i++) {
        const rd_kafka_topic_partition_t *p = &l->elems[i];
        core_buf_printf(&b, "%s%s[%d]", i ? ", " : "", p->topic, (int)p->partition);
        if (offsets && p->offset >= 0)
            core_buf_printf(&b, " from %lld", (long long)p->offset);
        else if (offsets)
            core_buf_puts(&b, " from the committed offset");
    }
    if (l->cnt > KAFKA_LOG_PARTS)
        core_buf_printf(&b, ", ... (%d in all)", l->cnt);
    core_logf(&k->log, CORE_LOG_INFO, "kafka: %s %s", verb, b.data ? b.data : "nothing");
    core_buf_free(&b);
}

static void assign(ingest_kafka *k, rd_kafka_topic_partition_list_t *parts, bool cooperative)
{
    /* An eager assignment is the whole assignment, not an increment. */
    if (!cooperative)
        while (k->owned->cnt > 0)
            rd_kafka_topic_partition_list_del_by_idx(k->owned, k->owned->cnt - 1);
    for (int i = 0; i < parts->cnt; i++) {
        rd_kafka_topic_partition_t *p = &parts->elems[i];
        int64_t off = k->start_offset ? k->start_offset(k->ud, p->topic, p->partition) : -1;
        p->offset = off >= 0 ? off : RD_KAFKA_OFFSET_INVALID;
        rd_kafka_topic_partition_list_add(k->owned, p->topic, p->partition)->offset = p->offset;
    }
    if (cooperative) {
        rd_kafka_error_t *e = rd_kafka_incremental_assign(k->rk, parts);
        if (e) {
            core_logf(&k->log, CORE_LOG_ERROR, "kafka: assigning partitions failed: %s",
                      rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            k->fatal = -EIO;
        }
    } else {
        rd_kafka_resp_err_t err = rd_kafka_assign(k->rk, parts);
        if (err) {
            core_logf(&k->log, CORE_LOG_ERROR, "kafka: assigning partitions failed: %s",
                      rd_kafka_err2str(err));
            k->fatal = -EIO;
        }
    }
    if (k->paused) {
        rd_kafka_resp_err_t err = rd_kafka_pause_partitions(k->rk, parts);
        if (err)
            core_logf(&k->log, CORE_LOG_WARN, "kafka: pausing new partitions failed: %s",
                      rd_kafka_err2str(err));
    }
    set_assigned_count(k);
    log_parts(k, "assigned", parts, true);
    for (int i = 0; k->assigned && i < parts->cnt; i++)
        k->assigned(k->ud, parts->elems[i].topic, parts->elems[i].partition);
}

static void revoke(ingest_kafka *k, rd_kafka_topic_partition_list_t *parts, bool cooperative)
{
    if (rd_kafka_assignment_lost(k->rk))
        core_logf(&k->log, CORE_LOG_WARN,
                  "kafka: the assignment was lost (this member was dropped from the group); "
                  "its uncommitted offsets will be consumed again");
    /* The caller flushes and commits its state (and calls
     * ingest_kafka_done) while the partitions are still assigned: the
     * offsets stored then are committed as they leave. */
    for (int i = 0; k->revoked && i < parts->cnt; i++)
        k->revoked(k->ud, parts->elems[i].topic, parts->elems[i].partition);
    log_parts(k, "revoked", parts, false);
    if (cooperative) {
        rd_kafka_error_t *e = rd_kafka_incremental_unassign(k->rk, parts);
        if (e) {
            core_logf(&k->log, CORE_LOG_ERROR, "kafka: unassigning partitions failed: %s",
                      rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            k->fatal = -EIO;
        }
        for (int i = 0; i < parts->cnt; i++)
            rd_kafka_topic_partition_list_del(k->owned, parts->elems[i].topic,
                                              parts->elems[i].partition);
    } else {
        rd_kafka_assign(k->rk, NULL);
        while (k->owned->cnt > 0)
            rd_kafka_topic_partition_list_del_by_idx(k->owned, k->owned->cnt - 1);
    }
    set_assigned_count(k);
}

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    ingest_kafka *k = opaque;
    /* cooperative-sticky is the default here, but a caller may pick an
     * eager strategy (range, roundrobin) through the properties. */
    bool cooperative = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        assign(k, parts, cooperative);
    } else if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
        revoke(k, parts, cooperative);
    } else {
        /* A failed rebalance: drop everything; the group is rejoined. */
        core_logf(&k->log, CORE_LOG_WARN, "kafka: rebalance failed: %s", rd_kafka_err2str(err));
        count_error(k);
        revoke(k, k->owned, false);
    }
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

static int64_t json_i64(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/*
 * The lag of one assigned partition from its statistics: the end (the
 * last stable offset, which is the high watermark without transactions)
 * minus the position the state has reached: the stored offset (what was
 * done), else the start offset the hook gave, else the group's committed
 * offset, else the start of the partition. -1 when the end is not known
 * yet (the partition has not been fetched from).
 */
static int64_t partition_lag(const json_t *tp, int64_t hook_start)
{
    int64_t end = json_i64(tp, "ls_offset");
    if (end < 0)
        end = json_i64(tp, "hi_offset");
    int64_t lo = json_i64(tp, "lo_offset");
    if (end < 0)
        return -1;
    int64_t pos = json_i64(tp, "stored_offset");
    if (pos < 0)
        pos = hook_start;
    if (pos < 0)
        pos = json_i64(tp, "committed_offset");
    if (pos < 0 || (lo >= 0 && pos < lo))
        pos = lo;
    if (pos < 0)
        return -1;
    return end > pos ? end - pos : 0;
}

static int on_stats(rd_kafka_t *rk, char *text, size_t len, void *opaque)
{
    (void)rk;
    ingest_kafka *k = opaque;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        core_logf(&k->log, CORE_LOG_DEBUG, "kafka: unreadable statistics: %s", jerr.text);
        return 0;
    }
    const json_t *topics = json_object_get(root, "topics");
    int64_t lag = 0;
    bool known = false;
    for (int i = 0; i < k->owned->cnt; i++) {
        const rd_kafka_topic_partition_t *p = &k->owned->elems[i];
        char num[16];
        snprintf(num, sizeof num, "%d", (int)p->partition);
        const json_t *tp =
            json_object_get(json_object_get(json_object_get(topics, p->topic), "partitions"), num);
        int64_t l = tp ? partition_lag(tp, p->offset) : -1;
        if (l >= 0) {
            lag += l;
            known = true;
        }
    }
    bool broker_up = false;
    const char *name;
    json_t *b;
    json_object_foreach(json_object_get(root, "brokers"), name, b)
    {
        const char *state = json_string_value(json_object_get(b, "state"));
        if (state && strcmp(state, "UP") == 0)
            broker_up = true;
    }
    const json_t *cg = json_object_get(root, "cgrp");
    const char *cg_state = json_string_value(json_object_get(cg, "state"));
    const char *join = json_string_value(json_object_get(cg, "join_state"));
    bool joining = join && strcmp(join, "steady") != 0;
    bool up = broker_up && cg_state && strcmp(cg_state, "up") == 0 &&
              (json_i64(cg, "assignment_size") > 0 || joining);
    pthread_mutex_lock(&k->mu);
    k->st.lag = known ? lag : -1;
    k->st.up = up;
    pthread_mutex_unlock(&k->mu);
    json_decref(root);
    return 0; /* librdkafka frees text */
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */
/* ------------------------------------------------------------------ */

/* Properties whose values the delivery guarantee or the callbacks here
 * depend on, or that have an option of their own. */
static const char *const reserved_props[] = {
    "bootstrap.servers",  "metadata.broker.list",     "group.id",
    "enable.auto.commit", "enable.auto.offset.store", "log.queue",
};

/*
 * Sets one property, with an error naming the key but never repeating the
 * value: librdkafka's own message quotes it, and values such as
 * sasl.password are secrets. Where the message has something useful beyond
 * the value (a range, the allowed words) that part is kept.
 */
static int conf_set(rd_kafka_conf_t *conf, const char *key, const char *val, char *why,
                    size_t whylen)
{
    char err[512] = "";
    rd_kafka_conf_res_t res = rd_kafka_conf_set(conf, key, val, err, sizeof err);
    if (res == RD_KAFKA_CONF_OK)
        return 0;
    if (res == RD_KAFKA_CONF_UNKNOWN) {
        snprintf(why, whylen, "kafka property '%s': unknown (not a librdkafka property)", key);
        return CORE_EUSAGE;
    }
    const char *range = strstr(err, "allowed range ");
    if (!*val || !strstr(err, val))
        snprintf(why, whylen, "kafka property '%s': invalid value: %s", key, err);
    else if (range)
        snprintf(why, whylen, "kafka property '%s': invalid value (%s)", key, range);
    else if (strstr(err, "Expected bool"))
        snprintf(why, whylen, "kafka property '%s': invalid value (true or false)", key);
    else
        snprintf(why, whylen, "kafka property '%s': invalid value", key);
    return CORE_EUSAGE;
}

static int build_conf(const ingest_kafka_opts *o, rd_kafka_conf_t *conf, char *why, size_t whylen)
{
    char num[32];
    snprintf(num, sizeof num, "%d", o->stats_interval_ms > 0 ? o->stats_interval_ms : 5000);
    const char *base[][2] = {
        {"bootstrap.servers", o->bootstrap},
        {"group.id", o->group},
        {"client.id", "pmrag"},
        {"partition.assignment.strategy", "cooperative-sticky"},
        {"enable.auto.commit", "true"},
        {"enable.auto.offset.store", "false"},
        {"auto.offset.reset", "earliest"},
        {"statistics.interval.ms", num},
        {"log.queue", "true"},
    };
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        int rc = conf_set(conf, base[i][0], base[i][1], why, whylen);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < o->nprops; i++) {
        const char *kv = o->props[i];
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv) {
            /* Without '=' the whole text could be a secret: show none of it. */
            snprintf(why, whylen, "kafka property #%zu: expected key=value", i + 1);
            return CORE_EUSAGE;
        }
        char *key = core_xstrndup(kv, (size_t)(eq - kv));
        int rc = 0;
        for (size_t j = 0; j < sizeof reserved_props / sizeof reserved_props[0]; j++)
            if (strcmp(key, reserved_props[j]) == 0) {
                snprintf(why, whylen, "kafka property '%s': set by pmrag, cannot be given", key);
                rc = CORE_EUSAGE;
            }
        if (!rc)
            rc = conf_set(conf, key, eq + 1, why, whylen);
        free(key);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Reading one partition to its end                                    */
/* ------------------------------------------------------------------ */

/* The ingest view of a librdkafka message (valid while m lives). */
static ingest_kafka_msg msg_view(const rd_kafka_message_t *m)
{
    rd_kafka_timestamp_type_t tstype;
    return (ingest_kafka_msg){
        .topic = rd_kafka_topic_name(m->rkt),
        .partition = m->partition,
        .offset = m->offset,
        .key = m->key,
        .klen = m->key_len,
        .val = m->payload,
        .vlen = m->len,
        .timestamp_ms = rd_kafka_message_timestamp(m, &tstype),
    };
}

/* A consumer with o's settings that is given partitions by the caller
 * (no group membership used, nothing committed). */
static int assign_only_consumer(const ingest_kafka_opts *o, rd_kafka_t **out, char *why,
                                size_t whylen)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int rc = build_conf(o, conf, why, whylen);
    if (!rc)
        rc = conf_set(conf, "enable.auto.commit", "false", why, whylen);
    if (rc) {
        rd_kafka_conf_destroy(conf);
        return rc;
    }
    char err[512];
    *out = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!*out) {
        rd_kafka_conf_destroy(conf);
        snprintf(why, whylen, "kafka: %s", err);
        return CORE_EUSAGE;
    }
    return 0;
}

int ingest_kafka_read_partition(const ingest_kafka_opts *o, const char *topic, int32_t partition,
                                int64_t from, int timeout_ms,
                                int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud,
                                int64_t *next, char *why, size_t whylen)
{
    rd_kafka_t *rk;
    int rc = assign_only_consumer(o, &rk, why, whylen);
    if (rc)
        return rc;
    int64_t lo = 0, hi = 0;
    rd_kafka_resp_err_t e =
        rd_kafka_query_watermark_offsets(rk, topic, partition, &lo, &hi, timeout_ms);
    if (e) {
        snprintf(why, whylen, "kafka %s[%d]: watermarks: %s", topic, (int)partition,
                 rd_kafka_err2str(e));
        rd_kafka_destroy(rk);
        return e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC || e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION
                   ? CORE_ENOTFOUND
                   : -EIO;
    }
    if (from < lo) {
        core_logf(&o->log, CORE_LOG_WARN,
                  "kafka %s[%d]: offsets %lld to %lld are gone (retention): what they held "
                  "is lost",
                  topic, (int)partition, (long long)from, (long long)lo - 1);
        from = lo;
    }
    *next = from;
    rc = 0;
    if (from < hi) {
        rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(l, topic, partition)->offset = from;
        e = rd_kafka_assign(rk, l);
        rd_kafka_topic_partition_list_destroy(l);
        uint64_t deadline = core_now_ns() + (uint64_t)timeout_ms * 1000000u;
        while (!e && !rc && *next < hi) {
            rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
            if (!m) {
                if (core_now_ns() > deadline) {
                    snprintf(why, whylen, "kafka %s[%d]: read to %lld of %lld in %d ms", topic,
                             (int)partition, (long long)*next, (long long)hi, timeout_ms);
                    rc = -ETIMEDOUT;
                }
                continue;
            }
            if (m->err) {
                if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                    snprintf(why, whylen, "kafka %s[%d]: %s", topic, (int)partition,
                             rd_kafka_message_errstr(m));
                    rc = -EIO;
                }
                rd_kafka_message_destroy(m);
                continue;
            }
            ingest_kafka_msg msg = msg_view(m);
            rc = on_msg(ud, &msg);
            *next = m->offset + 1;
            rd_kafka_message_destroy(m);
        }
        if (e) {
            snprintf(why, whylen, "kafka %s[%d]: assign: %s", topic, (int)partition,
                     rd_kafka_err2str(e));
            rc = -EIO;
        }
    }
    rd_kafka_destroy(rk);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Following every partition of a topic                                */
/* ------------------------------------------------------------------ */

struct ingest_kafka_tail {
    rd_kafka_t *rk;
};

int ingest_kafka_tail_new(const ingest_kafka_opts *o, const char *topic,
                          int64_t (*start)(void *ud, int32_t partition), void *ud,
                          ingest_kafka_tail **out, char *why, size_t whylen)
{
    rd_kafka_t *rk;
    int rc = assign_only_consumer(o, &rk, why, whylen);
    if (rc)
        return rc;
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
    rd_kafka_topic_destroy(rkt);
    if (!e && (md->topic_cnt != 1 || md->topics[0].err || md->topics[0].partition_cnt == 0))
        e = md->topic_cnt == 1 && md->topics[0].err ? md->topics[0].err
                                                    : RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
    if (e) {
        snprintf(why, whylen, "kafka topic %s: %s", topic, rd_kafka_err2str(e));
        if (md)
            rd_kafka_metadata_destroy(md);
        rd_kafka_destroy(rk);
        return e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC || e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
                   ? CORE_ENOTFOUND
                   : -EIO;
    }
    rd_kafka_topic_partition_list_t *l =
        rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
    for (int i = 0; i < md->topics[0].partition_cnt; i++) {
        int32_t p = md->topics[0].partitions[i].id;
        int64_t off = start ? start(ud, p) : -1;
        rd_kafka_topic_partition_list_add(l, topic, p)->offset =
            off >= 0 ? off : RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_metadata_destroy(md);
    e = rd_kafka_assign(rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (e) {
        snprintf(why, whylen, "kafka topic %s: assign: %s", topic, rd_kafka_err2str(e));
        rd_kafka_destroy(rk);
        return -EIO;
    }
    ingest_kafka_tail *t = core_xcalloc(1, sizeof *t);
    t->rk = rk;
    *out = t;
    return 0;
}

int ingest_kafka_tail_poll(ingest_kafka_tail *t, uint32_t max,
                           int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud)
{
    uint32_t n = 0;
    while (n < max) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(t->rk, 0);
        if (!m)
            break;
        if (m->err) {
            rd_kafka_message_destroy(m);
            continue;
        }
        ingest_kafka_msg msg = msg_view(m);
        on_msg(ud, &msg);
        rd_kafka_message_destroy(m);
        n++;
    }
    return (int)n;
}

void ingest_kafka_tail_free(ingest_kafka_tail *t)
{
    if (!t)
        return;
    rd_kafka_consumer_close(t->rk);
    rd_kafka_destroy(t->rk);
    free(t);
}

/* ------------------------------------------------------------------ */
/* The consumer                                                        */
/* ------------------------------------------------------------------ */

int ingest_kafka_new(const ingest_kafka_opts *o, ingest_kafka **out, char *why, size_t whylen)
{
    if (!o->bootstrap || !*o->bootstrap) {
        snprintf(why, whylen, "kafka: bootstrap: no brokers given");
        return CORE_EUSAGE;
    }
    if (!o->group || !*o->group) {
        snprintf(why, whylen, "kafka: group: no consumer group given");
        return CORE_EUSAGE;
    }
    if (o->ntopics == 0) {
        snprintf(why, whylen, "kafka: topics: no topic given");
        return CORE_EUSAGE;
    }
    for (size_t i = 0; i < o->ntopics; i++)
        if (!o->topics[i] || !*o->topics[i]) {
            snprintf(why, whylen, "kafka: topics: topic #%zu is empty", i + 1);
            return CORE_EUSAGE;
        }

    ingest_kafka *k = core_xcalloc(1, sizeof *k);
    k->log = o->log;
    k->start_offset = o->start_offset;
    k->assigned = o->assigned;
    k->revoked = o->revoked;
    k->ud = o->ud;
    k->owned = rd_kafka_topic_partition_list_new(16);
    k->st.lag = -1;
    pthread_mutex_init(&k->mu, NULL);

    int rc;
    char err[512];
    rd_kafka_topic_partition_list_t *subs = NULL;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rc = build_conf(o, conf, why, whylen);
    if (rc)
        goto fail_conf;
    rd_kafka_conf_set_opaque(conf, k);
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_conf_set_stats_cb(conf, on_stats);
    rd_kafka_conf_set_offset_commit_cb(conf, on_commit);
    rd_kafka_conf_set_log_cb(conf, on_log);
    k->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!k->rk) {
        /* Inconsistent properties are found here (e.g. ssl.* files). */
        snprintf(why, whylen, "kafka: %s", err);
        rc = CORE_EUSAGE;
        goto fail_conf;
    }
    /* conf belongs to k->rk from here. Log lines and other events go to
     * the consumer queue, served by the poll thread. */
    rd_kafka_set_log_queue(k->rk, NULL);
    rd_kafka_poll_set_consumer(k->rk);
    k->cq = rd_kafka_queue_get_consumer(k->rk);

    subs = rd_kafka_topic_partition_list_new((int)o->ntopics);
    for (size_t i = 0; i < o->ntopics; i++)
        rd_kafka_topic_partition_list_add(subs, o->topics[i], RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t serr = rd_kafka_subscribe(k->rk, subs);
    rd_kafka_topic_partition_list_destroy(subs);
    if (serr) {
        snprintf(why, whylen, "kafka: topics: cannot subscribe: %s", rd_kafka_err2str(serr));
        rc = CORE_EUSAGE;
        goto fail_rk;
    }
    *out = k;
    return 0;

fail_rk:
    rd_kafka_destroy(k->rk);
    goto fail;
fail_conf:
    rd_kafka_conf_destroy(conf);
fail:
    rd_kafka_topic_partition_list_destroy(k->owned);
    pthread_mutex_destroy(&k->mu);
    free(k);
    return rc;
}

/* Puts a partition back to offset, so that the message the caller did not
 * take comes again. Messages of that partition already fetched past it
 * are dropped by librdkafka (the seek starts a new fetch version). */
static void rewind_to(ingest_kafka *k, const rd_kafka_message_t *m)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, rd_kafka_topic_name(m->rkt), m->partition)->offset =
        m->offset;
    rd_kafka_error_t *e = rd_kafka_seek_partitions(k->rk, l, 0);
    if (e) {
        /* Nothing taken was lost: the partition resumes from the stored or
         * the committed offset when it is next assigned. Until then it
         * would skip this message, so stop. */
        core_logf(&k->log, CORE_LOG_ERROR, "kafka: cannot rewind %s[%d] to %lld: %s",
                  rd_kafka_topic_name(m->rkt), (int)m->partition, (long long)m->offset,
                  rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        k->fatal = -EIO;
    }
    rd_kafka_topic_partition_list_destroy(l);
}

static void message_error(ingest_kafka *k, const rd_kafka_message_t *m)
{
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        core_logf(&k->log, CORE_LOG_DEBUG, "kafka: end of %s[%d] at %lld",
                  m->rkt ? rd_kafka_topic_name(m->rkt) : "?", (int)m->partition,
                  (long long)m->offset);
        return;
    }
    char what[300];
    if (m->rkt)
        snprintf(what, sizeof what, "consume from %s[%d]", rd_kafka_topic_name(m->rkt),
                 (int)m->partition);
    else
        snprintf(what, sizeof what, "consume");
    note_error(k, m->err, what, rd_kafka_message_errstr(m));
}

int ingest_kafka_poll(ingest_kafka *k, uint32_t max, int timeout_ms,
                      int (*on_msg)(void *ud, const ingest_kafka_msg *m), void *ud)
{
    if (k->fatal)
        return k->fatal;
    if (max > INT_MAX)
        max = INT_MAX;
    uint64_t deadline = core_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
    uint32_t n = 0;
    int stop = 0;
    while (n < max && !k->fatal) {
        int wait = 0;
        if (n == 0) {
            /* Callbacks and errors do not end the wait for the first
             * message; only the deadline does. */
            uint64_t now = core_now_ns();
            wait = now < deadline ? (int)((deadline - now + 999999) / 1000000) : 0;
        }
        if (wait && atomic_exchange(&k->wake, false))
            break;
        rd_kafka_message_t *m = rd_kafka_consumer_poll(k->rk, wait);
        if (!m) {
            if (n == 0 && core_now_ns() < deadline && !atomic_exchange(&k->wake, false))
                continue;
            break;
        }
        if (m->err) {
            message_error(k, m);
            rd_kafka_message_destroy(m);
            continue;
        }
        ingest_kafka_msg msg = msg_view(m);
        int rc = on_msg(ud, &msg);
        if (rc) {
            rewind_to(k, m);
            rd_kafka_message_destroy(m);
            stop = rc;
            break;
        }
        rd_kafka_message_destroy(m);
        n++;
    }
    if (n) {
        pthread_mutex_lock(&k->mu);
        k->st.messages += n;
        pthread_mutex_unlock(&k->mu);
    }
    if (k->fatal)
        return k->fatal;
    if (stop < 0)
        return stop;
    return (int)n;
}

void ingest_kafka_pause(ingest_kafka *k, bool pause)
{
    if (k->paused == pause)
        return;
    k->paused = pause;
    if (k->owned->cnt == 0)
        return;
    /* Fetching stops or starts again at the position of the last
     * message handed out, so nothing is skipped either way. */
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_copy(k->owned);
    rd_kafka_resp_err_t err =
        pause ? rd_kafka_pause_partitions(k->rk, l) : rd_kafka_resume_partitions(k->rk, l);
    if (err)
        core_logf(&k->log, CORE_LOG_WARN, "kafka: %s partitions failed: %s",
                  pause ? "pausing" : "resuming", rd_kafka_err2str(err));
    rd_kafka_topic_partition_list_destroy(l);
}

int ingest_kafka_done(ingest_kafka *k, const ingest_kafka_pos *pos, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pos[i].offset < 0 || !pos[i].topic) {
            core_logf(&k->log, CORE_LOG_ERROR, "kafka: done: position #%zu has offset %lld", i + 1,
                      (long long)pos[i].offset);
            return CORE_EUSAGE;
        }
    rd_kafka_topic_partition_list_t *l =
        rd_kafka_topic_partition_list_new(n < INT_MAX ? (int)n : INT_MAX);
    for (size_t i = 0; i < n; i++) {
        rd_kafka_topic_partition_t *p =
            rd_kafka_topic_partition_list_find(l, pos[i].topic, pos[i].partition);
        if (!p)
            rd_kafka_topic_partition_list_add(l, pos[i].topic, pos[i].partition)->offset =
                pos[i].offset + 1;
        else if (pos[i].offset + 1 > p->offset)
            p->offset = pos[i].offset + 1;
    }
    /* Per-partition errors are in the list: a partition revoked since its
     * messages were polled gives _STATE (its new owner takes over from the
     * state); the call's own result only repeats them. */
    (void)rd_kafka_offsets_store(k->rk, l);
    for (int i = 0; i < l->cnt; i++) {
        const rd_kafka_topic_partition_t *p = &l->elems[i];
        if (p->err)
            core_logf(&k->log, CORE_LOG_NOTE,
                      "kafka: offset %lld of %s[%d] not stored: %s (no longer assigned?)",
                      (long long)p->offset, p->topic, (int)p->partition, rd_kafka_err2str(p->err));
    }
    rd_kafka_topic_partition_list_destroy(l);
    return 0;
}

void ingest_kafka_get_stats(ingest_kafka *k, ingest_kafka_stats *out)
{
    pthread_mutex_lock(&k->mu);
    *out = k->st;
    pthread_mutex_unlock(&k->mu);
}

void ingest_kafka_wake(ingest_kafka *k)
{
    atomic_store(&k->wake, true);
    if (k->cq)
        rd_kafka_queue_yield(k->cq);
}

void ingest_kafka_free(ingest_kafka *k)
{
    if (!k)
        return;
    /* Serves the final revoke (the caller's revoked hook) and commits the
     * stored offsets. */
    rd_kafka_resp_err_t err = rd_kafka_consumer_close(k->rk);
    if (err)
        core_logf(&k->log, CORE_LOG_WARN, "kafka: closing the consumer: %s", rd_kafka_err2str(err));
    if (k->cq)
        rd_kafka_queue_destroy(k->cq);
    rd_kafka_destroy(k->rk);
    rd_kafka_topic_partition_list_destroy(k->owned);
    pthread_mutex_destroy(&k->mu);
    free(k);
}
