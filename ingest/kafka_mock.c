/*
 * kafka_mock.c - librdkafka's mock Kafka cluster behind a small handle.
 *
 * The mock cluster lives inside an rd_kafka_t: its brokers are threads of
 * that handle, listening on 127.0.0.1. A producer handle with no brokers of
 * its own hosts it here; every client (ours, a test's, kcat) is given the
 * cluster's bootstrap address, so that they all see one cluster.
 * (librdkafka's test.mock.num.brokers would instead give each client a
 * private cluster of its own.)
 */
#include "ingest.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>

/* Bounds that keep a typo from starting thousands of broker threads. */
#define MOCK_MAX_BROKERS 64
#define MOCK_MAX_PARTITIONS 10000

struct ingest_kafka_mock {
    rd_kafka_t *host;
    rd_kafka_mock_cluster_t *cluster;
    int brokers;
};

/* The hosting handle has nothing to say that a caller could act on (it has
 * no brokers of its own to connect to), and libraries do not print. */
static void mock_quiet_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    (void)level;
    (void)fac;
    (void)buf;
}

int ingest_kafka_mock_new(int brokers, ingest_kafka_mock **out, char *why, size_t whylen)
{
    if (brokers < 1 || brokers > MOCK_MAX_BROKERS) {
        snprintf(why, whylen, "kafka mock: brokers: %d is out of range (1 to %d)", brokers,
                 MOCK_MAX_BROKERS);
        return CORE_EUSAGE;
    }
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set_log_cb(conf, mock_quiet_log);
    /* rd_kafka_new takes the configuration only on success. */
    rd_kafka_t *host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (!host) {
        rd_kafka_conf_destroy(conf);
        snprintf(why, whylen, "kafka mock: cannot create the hosting client: %s", err);
        return -ENOMEM;
    }
    rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(host, brokers);
    if (!cluster) {
        rd_kafka_destroy(host);
        /* Creation fails when a listening socket cannot be opened. */
        snprintf(why, whylen, "kafka mock: cannot start %d broker(s) on 127.0.0.1", brokers);
        return -EADDRNOTAVAIL;
    }
    ingest_kafka_mock *m = core_xcalloc(1, sizeof *m);
    m->host = host;
    m->cluster = cluster;
    m->brokers = brokers;
    *out = m;
    return 0;
}

const char *ingest_kafka_mock_bootstrap(const ingest_kafka_mock *m)
{
    return rd_kafka_mock_cluster_bootstraps(m->cluster);
}

int ingest_kafka_mock_topic(ingest_kafka_mock *m, const char *topic, int partitions, char *why,
                            size_t whylen)
{
    if (!topic || !*topic) {
        snprintf(why, whylen, "kafka mock: topic: the name is empty");
        return CORE_EUSAGE;
    }
    if (partitions < 1 || partitions > MOCK_MAX_PARTITIONS) {
        snprintf(why, whylen, "kafka mock: topic '%s': partitions: %d is out of range (1 to %d)",
                 topic, partitions, MOCK_MAX_PARTITIONS);
        return CORE_EUSAGE;
    }
    /* Replicas only show in metadata (the mock does not copy data), but a
     * replication factor above 1 when there are brokers for it makes the
     * metadata look like a real cluster's. */
    int replicas = m->brokers < 3 ? m->brokers : 3;
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(m->cluster, topic, partitions, replicas);
    if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        snprintf(why, whylen, "kafka mock: topic '%s': already exists", topic);
        return -EEXIST;
    }
    if (err) {
        snprintf(why, whylen, "kafka mock: topic '%s': %s", topic, rd_kafka_err2str(err));
        return CORE_EUSAGE;
    }
    return 0;
}

void *ingest_kafka_mock_cluster(ingest_kafka_mock *m)
{
    return m->cluster;
}

void ingest_kafka_mock_free(ingest_kafka_mock *m)
{
    if (!m)
        return;
    rd_kafka_mock_cluster_destroy(m->cluster);
    rd_kafka_destroy(m->host);
    free(m);
}
