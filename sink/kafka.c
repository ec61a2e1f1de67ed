/* The Kafka producer for the output topic (librdkafka, idempotent). */
#include "sink.h"

#include <errno.h>
#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sends between two servings of delivery reports on the sending thread. */
#define SEND_SERVE_EVERY 64

struct sink_kafka {
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    core_logger log;
    /* Counters are atomics so that get_stats may run on another thread
     * (the /metrics handler) while the owner sends. */
    _Atomic uint64_t queued, delivered, failed;
    /* Messages of each epoch not yet reported, and those that failed. */
    _Atomic uint64_t ep_pending[SINK_KAFKA_EPOCHS], ep_failed[SINK_KAFKA_EPOCHS];
    uint64_t epoch;    /* open epoch: the sending thread's */
    unsigned unserved; /* sends since delivery reports were last served there */
    atomic_bool fatal;
    /* last_error is written by the owning thread (delivery reports and
     * error events are served there) and read by get_stats anywhere. */
    pthread_mutex_t err_lock;
    char last_error[256];
};

static void vset_last_error(sink_kafka *k, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&k->err_lock);
    vsnprintf(k->last_error, sizeof k->last_error, fmt, ap);
    pthread_mutex_unlock(&k->err_lock);
}

/* After a fatal error last_error keeps the fatal reason: what follows (the
 * queued messages failing one by one) is its consequence, not news. */
static void set_last_error(sink_kafka *k, const char *fmt, ...) CORE_PRINTF(2, 3);
static void set_last_error(sink_kafka *k, const char *fmt, ...)
{
    if (atomic_load(&k->fatal))
        return;
    va_list ap;
    va_start(ap, fmt);
    vset_last_error(k, fmt, ap);
    va_end(ap);
}

static void set_fatal_error(sink_kafka *k, const char *fmt, ...) CORE_PRINTF(2, 3);
static void set_fatal_error(sink_kafka *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset_last_error(k, fmt, ap);
    va_end(ap);
}

/* Runs on the thread that polls (send, poll, flush, free). */
static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    sink_kafka *k = opaque;
    /* Each message carries its epoch's pending counter (sink_kafka_send_to). */
    const _Atomic uint64_t *pend = m->_private;
    size_t ep = (size_t)(pend - k->ep_pending);
    if (!m->err) {
        atomic_fetch_add_explicit(&k->delivered, 1, memory_order_relaxed);
        atomic_fetch_sub(&k->ep_pending[ep], 1);
        return;
    }
    uint64_t n = atomic_fetch_add_explicit(&k->failed, 1, memory_order_relaxed) + 1;
    atomic_fetch_add(&k->ep_failed[ep], 1);
    atomic_fetch_sub(&k->ep_pending[ep], 1);
    set_last_error(k, "delivery to partition %d failed: %s", (int)m->partition,
                   rd_kafka_err2str(m->err));
    /* One line for the first failure and then one per power of two, so a
     * dead cluster does not turn into a line per message. */
    if ((n & (n - 1)) == 0)
        core_logf(&k->log, CORE_LOG_ERROR,
                  "kafka: %" PRIu64 " message(s) failed so far; latest: %s", n,
                  rd_kafka_err2str(m->err));
}

/* Records a fatal error once: the reason comes from rd_kafka_fatal_error(),
 * which names the underlying error rather than the generic __FATAL. */
static void note_fatal(sink_kafka *k)
{
    char reason[200];
    rd_kafka_resp_err_t err = rd_kafka_fatal_error(k->rk, reason, sizeof reason);
    if (atomic_exchange(&k->fatal, true))
        return;
    if (!err)
        snprintf(reason, sizeof reason, "unknown fatal error");
    set_fatal_error(k, "fatal: %s: %s", rd_kafka_err2name(err), reason);
    core_logf(&k->log, CORE_LOG_ERROR,
              "kafka: fatal producer error (%s): %s; no more messages will be sent",
              rd_kafka_err2name(err), reason);
}

/* Runs on the polling thread, like on_delivery. */
static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void)rk;
    sink_kafka *k = opaque;
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        note_fatal(k);
        return;
    }
    /* Everything else (brokers down, a timed-out request) is retried by
     * librdkafka; it is worth a line and a place in last_error. */
    set_last_error(k, "%s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
    core_logf(&k->log, CORE_LOG_WARN, "kafka: %s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)err),
              reason);
}

/* Runs on librdkafka's threads: core_logger callbacks must allow that. */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    sink_kafka *k = rd_kafka_opaque(rk);
    /* syslog levels: 0-3 error, 4 warning, 5 notice, 6 info, 7 debug. */
    core_log_level lv = level <= 3   ? CORE_LOG_ERROR
                        : level == 4 ? CORE_LOG_WARN
                        : level == 5 ? CORE_LOG_NOTE
                        : level == 6 ? CORE_LOG_INFO
                                     : CORE_LOG_DEBUG;
    core_logf(&k->log, lv, "kafka %s: %s", fac, buf);
}

/* Copies librdkafka's reason into why, each occurrence of val replaced by
 * "<redacted>" when the key is secret. */
static void reason_redacted(char *why, size_t whylen, const char *key, const char *val,
                            const char *reason)
{
    core_buf b = {0};
    size_t vn = strlen(val);
    const char *p = reason;
    if (core_key_is_secret(key) && vn) {
        const char *hit;
        while ((hit = strstr(p, val))) {
            core_buf_append(&b, p, (size_t)(hit - p));
            core_buf_puts(&b, "<redacted>");
            p = hit + vn;
        }
    }
    core_buf_puts(&b, p);
    snprintf(why, whylen, "kafka property %s: %s", key, b.data);
    core_buf_free(&b);
}

/* Sets key=val on conf; CORE_EUSAGE naming the key when refused. */
static int conf_set(rd_kafka_conf_t *conf, const char *key, const char *val, char *why,
                    size_t whylen)
{
    char err[512];
    rd_kafka_conf_res_t r = rd_kafka_conf_set(conf, key, val, err, sizeof err);
    if (r == RD_KAFKA_CONF_OK)
        return 0;
    if (r == RD_KAFKA_CONF_UNKNOWN)
        snprintf(why, whylen, "kafka property %s: unknown to librdkafka %s (%s)", key,
                 rd_kafka_version_str(), err);
    else
        reason_redacted(why, whylen, key, val, err);
    return CORE_EUSAGE;
}

/* Splits "key=value" and sets it. The value is never put into why except
 * through librdkafka's reason, redacted for secret keys. */
static int conf_set_prop(rd_kafka_conf_t *conf, size_t i, const char *prop, char *why,
                         size_t whylen)
{
    const char *eq = prop ? strchr(prop, '=') : NULL;
    if (!eq || eq == prop) {
        /* Without an '=' there is no telling key from value, so nothing
         * of it is echoed. */
        snprintf(why, whylen, "kafka property #%zu: expected key=value", i + 1);
        return CORE_EUSAGE;
    }
    char *key = core_xstrndup(prop, (size_t)(eq - prop));
    int rc = conf_set(conf, key, eq + 1, why, whylen);
    free(key);
    return rc;
}

int sink_kafka_new(const sink_kafka_opts *o, sink_kafka **out, char *why, size_t whylen)
{
    static const char *const defaults[][2] = {
        {"enable.idempotence", "true"},
        {"acks", "all"},
        {"linger.ms", "5"},
        /* The Java client's partitioner: a case lands where a Java
         * producer (or Kafka Streams) would put the same key. */
        {"partitioner", "murmur2_random"},
    };
    if (!o->bootstrap || !*o->bootstrap) {
        snprintf(why, whylen, "kafka: no bootstrap servers given");
        return CORE_EUSAGE;
    }
    if (!o->topic || !*o->topic) {
        snprintf(why, whylen, "kafka: no output topic given");
        return CORE_EUSAGE;
    }
    sink_kafka *k = core_xcalloc(1, sizeof *k);
    k->log = o->log;
    pthread_mutex_init(&k->err_lock, NULL);
    int rc = CORE_EUSAGE;
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++)
        if ((rc = conf_set(conf, defaults[i][0], defaults[i][1], why, whylen)) != 0)
            goto fail_conf;
    if ((rc = conf_set(conf, "bootstrap.servers", o->bootstrap, why, whylen)) != 0)
        goto fail_conf;
    for (size_t i = 0; i < o->nprops; i++)
        if ((rc = conf_set_prop(conf, i, o->props[i], why, whylen)) != 0)
            goto fail_conf;
    /* Idempotence is what keeps retries from duplicating or reordering a
     * case's predictions; consumers of the topic rely on it. Checked
     * after the fact so that every spelling of "false" is caught. */
    char val[16];
    size_t vlen = sizeof val;
    if (rd_kafka_conf_get(conf, "enable.idempotence", val, &vlen) != RD_KAFKA_CONF_OK ||
        strcmp(val, "true") != 0) {
        snprintf(why, whylen,
                 "kafka property enable.idempotence: the producer is always idempotent");
        rc = CORE_EUSAGE;
        goto fail_conf;
    }
    rd_kafka_conf_set_opaque(conf, k);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_error);
    rd_kafka_conf_set_log_cb(conf, on_log);

    char err[512];
    /* rd_kafka_new takes conf on success only; on failure it is ours. */
    k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!k->rk) {
        snprintf(why, whylen, "kafka: %s", err);
        rc = CORE_EUSAGE;
        goto fail_conf;
    }
    conf = NULL; /* the client's now */
    k->rkt = rd_kafka_topic_new(k->rk, o->topic, NULL);
    if (!k->rkt) {
        snprintf(why, whylen, "kafka topic %s: %s", o->topic,
                 rd_kafka_err2str(rd_kafka_last_error()));
        rc = CORE_EUSAGE;
        goto fail_rk;
    }
    core_logf(&k->log, CORE_LOG_INFO, "kafka: producing to %s via %s (idempotent, acks=all)",
              o->topic, o->bootstrap);
    *out = k;
    return 0;

fail_rk:
    rd_kafka_destroy(k->rk);
fail_conf:
    if (conf)
        rd_kafka_conf_destroy(conf);
    pthread_mutex_destroy(&k->err_lock);
    free(k);
    return rc;
}

static int send_err(sink_kafka *k, rd_kafka_resp_err_t err)
{
    switch (err) {
    case RD_KAFKA_RESP_ERR__FATAL:
        note_fatal(k);
        return -ENOTRECOVERABLE;
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
        set_last_error(k, "send: %s", rd_kafka_err2str(err));
        return -EMSGSIZE;
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
        set_last_error(k, "send to %s: %s", rd_kafka_topic_name(k->rkt), rd_kafka_err2str(err));
        return CORE_ENOTFOUND;
    default:
        set_last_error(k, "send: %s", rd_kafka_err2str(err));
        return -EIO;
    }
}

/* One message into partition (-1: the partitioner's), with nh headers
 * (copied): sink_kafka_send_to's contract. */
static int produce(sink_kafka *k, int32_t partition, const void *key, size_t klen, const void *val,
                   size_t vlen, const sink_kafka_header *h, size_t nh, int block_ms)
{
    if (atomic_load(&k->fatal))
        return -ENOTRECOVERABLE;
    /* Reports are served in bulk: a poll per send was a third of what
     * producing cost the daemon's engine, and whoever waits for an epoch
     * or flushes serves them all anyway. */
    if (++k->unserved >= SEND_SERVE_EVERY) {
        k->unserved = 0;
        rd_kafka_poll(k->rk, 0);
    }
    uint64_t deadline = core_now_ns() + (uint64_t)(block_ms > 0 ? block_ms : 0) * 1000000u;
    _Atomic uint64_t *pend = &k->ep_pending[k->epoch % SINK_KAFKA_EPOCHS];
    for (;;) {
        /* librdkafka takes the headers only when the message is queued. */
        rd_kafka_headers_t *hdrs = nh ? rd_kafka_headers_new(nh) : NULL;
        for (size_t i = 0; i < nh; i++)
            rd_kafka_header_add(hdrs, h[i].name, -1, h[i].value, (ssize_t)h[i].len);
        /* Counted before: the report may come before producev returns. */
        atomic_fetch_add(pend, 1);
        rd_kafka_resp_err_t err = rd_kafka_producev(
            k->rk, RD_KAFKA_V_RKT(k->rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_PARTITION(partition < 0 ? RD_KAFKA_PARTITION_UA : partition),
            RD_KAFKA_V_KEY(key, klen), RD_KAFKA_V_VALUE((void *)val, val ? vlen : 0),
            RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_OPAQUE((void *)pend), RD_KAFKA_V_END);
        if (!err) {
            atomic_fetch_add_explicit(&k->queued, 1, memory_order_relaxed);
            return 0;
        }
        atomic_fetch_sub(pend, 1);
        if (hdrs)
            rd_kafka_headers_destroy(hdrs);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
            return send_err(k, err);
        uint64_t now = core_now_ns();
        if (now >= deadline)
            return -EAGAIN;
        /* Delivery reports free queue slots; serving them is the wait. */
        uint64_t left_ms = (deadline - now + 999999) / 1000000;
        rd_kafka_poll(k->rk, left_ms < 100 ? (int)left_ms : 100);
    }
}

int sink_kafka_send(sink_kafka *k, const void *key, size_t klen, const void *val, size_t vlen,
                    int block_ms)
{
    return produce(k, -1, key, klen, val, vlen, NULL, 0, block_ms);
}

int sink_kafka_send_to(sink_kafka *k, int32_t partition, const void *key, size_t klen,
                       const void *val, size_t vlen, int block_ms)
{
    return produce(k, partition, key, klen, val, vlen, NULL, 0, block_ms);
}

int sink_kafka_send_headers(sink_kafka *k, const void *key, size_t klen, const void *val,
                            size_t vlen, const sink_kafka_header *h, size_t nh, int block_ms)
{
    return produce(k, -1, key, klen, val, vlen, h, nh, block_ms);
}

uint64_t sink_kafka_epoch_close(sink_kafka *k)
{
    return k->epoch++;
}

int sink_kafka_epoch_wait(sink_kafka *k, uint64_t ep, int timeout_ms)
{
    size_t i = (size_t)(ep % SINK_KAFKA_EPOCHS);
    uint64_t deadline = core_now_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
    while (atomic_load(&k->ep_pending[i]) > 0) {
        if (core_now_ns() >= deadline) {
            core_logf(&k->log, CORE_LOG_WARN,
                      "kafka: %" PRIu64 " message(s) still in flight after %d ms",
                      atomic_load(&k->ep_pending[i]), timeout_ms);
            return -ETIMEDOUT;
        }
        rd_kafka_poll(k->rk, 1);
    }
    if (atomic_exchange(&k->ep_failed[i], 0) > 0)
        return atomic_load(&k->fatal) ? -ENOTRECOVERABLE : -EIO;
    return atomic_load(&k->fatal) ? -ENOTRECOVERABLE : 0;
}

void sink_kafka_poll(sink_kafka *k, int timeout_ms)
{
    rd_kafka_poll(k->rk, timeout_ms);
}

static uint64_t in_flight(sink_kafka *k)
{
    uint64_t q = atomic_load(&k->queued), d = atomic_load(&k->delivered),
             f = atomic_load(&k->failed);
    return q > d + f ? q - d - f : 0;
}

int sink_kafka_flush(sink_kafka *k, int timeout_ms)
{
    rd_kafka_flush(k->rk, timeout_ms);
    /* rd_kafka_flush serves the delivery reports, so the counters are
     * exact here; its own outq_len also counts protocol requests. */
    uint64_t left = in_flight(k);
    if (left) {
        core_logf(&k->log, CORE_LOG_WARN,
                  "kafka: %" PRIu64 " message(s) still in flight after %d ms", left, timeout_ms);
        return -ETIMEDOUT;
    }
    return atomic_load(&k->fatal) ? -ENOTRECOVERABLE : 0;
}

void sink_kafka_get_stats(sink_kafka *k, sink_kafka_stats *out)
{
    memset(out, 0, sizeof *out);
    out->queued = atomic_load(&k->queued);
    out->delivered = atomic_load(&k->delivered);
    out->failed = atomic_load(&k->failed);
    uint64_t left =
        out->queued > out->delivered + out->failed ? out->queued - out->delivered - out->failed : 0;
    out->in_flight = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
    out->fatal = atomic_load(&k->fatal);
    pthread_mutex_lock(&k->err_lock);
    memcpy(out->last_error, k->last_error, sizeof out->last_error);
    pthread_mutex_unlock(&k->err_lock);
}

void sink_kafka_free(sink_kafka *k)
{
    if (!k)
        return;
    if (sink_kafka_flush(k, 10000) == -ETIMEDOUT) {
        uint64_t left = in_flight(k);
        /* Purged messages come back as failed delivery reports, so they
         * are counted like any other loss; the flush serves them. */
        rd_kafka_purge(k->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_flush(k->rk, 1000);
        core_logf(&k->log, CORE_LOG_WARN, "kafka: dropped %" PRIu64 " undelivered message(s)",
                  left);
    }
    rd_kafka_topic_destroy(k->rkt);
    rd_kafka_destroy(k->rk);
    pthread_mutex_destroy(&k->err_lock);
    free(k);
}
