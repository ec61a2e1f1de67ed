/*
 * pmrag kafka-mock: librdkafka's mock Kafka cluster as a process of its
 * own, for tests and for trying pmrag with kcat before there is a Kafka.
 */
#include "cli.h"
#include "commands.h"
#include "ingest.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const default_topics[] = {"otlp_spans", "otlp_logs", "pmrag_predictions"};

int cmd_kafka_mock(int argc, char **argv)
{
    unsigned brokers = 1, partitions = 4;
    const char *ready_file = NULL;
    cli_list topics = {0};
    const cli_opt opts[] = {
        {"brokers", 0, CLI_UINT, &brokers, "N", "brokers in the cluster (default 1)", 1, 64},
        {"partitions", 0, CLI_UINT, &partitions, "P",
         "partitions of each topic it creates (default 4)", 1, 10000},
        {"topic", 0, CLI_LIST, &topics, "NAME",
         "create this topic (repeatable; default otlp_spans, otlp_logs, pmrag_predictions)", 0, 0},
        {"ready-file", 0, CLI_STR, &ready_file, "FILE",
         "once up, write {\"kafka_bootstrap\":\"host:port,...\"} to FILE (atomically)", 0, 0},
    };
    const cli_cmd cmd = {
        "kafka-mock",
        "[--brokers N] [--partitions P] [--topic NAME]... [--ready-file FILE]",
        "Runs librdkafka's mock Kafka cluster on 127.0.0.1 until SIGTERM or Ctrl-C,\n"
        "and prints its bootstrap address (host:port,...) on stdout. Every client\n"
        "given that address (pmrag serve's kafka.brokers, kcat -b) sees one cluster.",
        "The mock keeps messages in memory (about 5 MB per partition), and has\n"
        "consumer groups, keys and headers, but no transactions or compaction.\n"
        "Topics other than those created here are created on first use with a\n"
        "default partition count. The ready file is removed on exit.\n"
        "Example:\n"
        "  pmrag kafka-mock --partitions 2 &\n"
        "  echo 'case-1:hello' | kcat -P -b 127.0.0.1:PORT -t otlp_spans -K:",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    const char *const *names = topics.n ? topics.v : default_topics;
    size_t nnames = topics.n ? topics.n : sizeof default_topics / sizeof default_topics[0];

    /* Blocked before librdkafka starts its threads, which inherit the
     * mask: the signals then wait for sigwait below instead of killing
     * the process or landing on a broker thread. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    char why[512];
    ingest_kafka_mock *m = NULL;
    rc = ingest_kafka_mock_new((int)brokers, &m, why, sizeof why);
    if (rc) {
        rc = rc == CORE_EUSAGE ? cli_usage_error(&cmd, "%s", why) : cli_error(cmd.name, "%s", why);
        goto done;
    }
    for (size_t i = 0; i < nnames; i++) {
        int trc = ingest_kafka_mock_topic(m, names[i], (int)partitions, why, sizeof why);
        if (trc) {
            rc = cli_usage_error(&cmd, "%s", why);
            goto done;
        }
    }
    const char *boot = ingest_kafka_mock_bootstrap(m);
    if (ready_file) {
        core_buf b = {0};
        core_buf_puts(&b, "{\"kafka_bootstrap\":");
        core_buf_json_str(&b, boot, strlen(boot));
        core_buf_puts(&b, "}\n");
        int wrc = core_write_file_atomic(ready_file, b.data, b.len);
        core_buf_free(&b);
        if (wrc) {
            rc = cli_error(cmd.name, "cannot write %s: %s", ready_file, core_strerror(wrc));
            ready_file = NULL; /* not ours to remove */
            goto done;
        }
    }
    printf("%s\n", boot);
    fflush(stdout);
    fprintf(stderr, "pmrag kafka-mock: %u broker(s) at %s; %zu topic(s) of %u partition(s)%s",
            brokers, boot, nnames, partitions, nnames ? ": " : "");
    for (size_t i = 0; i < nnames; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
    fprintf(stderr, "\n");

    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    rc = 0;

done:
    if (ready_file && rc == 0)
        unlink(ready_file);
    ingest_kafka_mock_free(m);
    free(topics.v);
    return rc;
}
