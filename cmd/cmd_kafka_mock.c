/*
 * pmrag kafka-mock: librdkafka's mock Kafka cluster as a process of its
 * own, for tests and for trying pmrag with kcat before there is a Kafka.
 *
 * With --control, a thread reads fault-injection commands (brokers down
 * and up, round-trip delays, request errors) one per line and answers each
 * on stdout, so that a test can break the cluster under a running client
 * and know when the break is in place.
 */
#include "cli.h"
#include "commands.h"
#include "ingest.h"

#include <errno.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const default_topics[] = {"otlp_spans", "otlp_logs", "pmrag_predictions"};

/* ------------------------------------------------------------------ */
/* Fault injection (--control)                                         */
/* ------------------------------------------------------------------ */

/* Kafka protocol request types by name (the ApiKey numbers of the
 * protocol), for the `error` and `clear` commands. */
static const struct {
    const char *name;
    int16_t key;
} api_keys[] = {
    {"Produce", 0},
    {"Fetch", 1},
    {"ListOffsets", 2},
    {"Metadata", 3},
    {"OffsetCommit", 8},
    {"OffsetFetch", 9},
    {"FindCoordinator", 10},
    {"JoinGroup", 11},
    {"Heartbeat", 12},
    {"LeaveGroup", 13},
    {"SyncGroup", 14},
    {"DescribeGroups", 15},
    {"ListGroups", 16},
    {"SaslHandshake", 17},
    {"ApiVersions", 18},
    {"CreateTopics", 19},
    {"DeleteTopics", 20},
    {"DeleteRecords", 21},
    {"InitProducerId", 22},
    {"OffsetForLeaderEpoch", 23},
    {"AddPartitionsToTxn", 24},
    {"AddOffsetsToTxn", 25},
    {"EndTxn", 26},
    {"TxnOffsetCommit", 28},
    {"DescribeConfigs", 32},
    {"AlterConfigs", 33},
    {"SaslAuthenticate", 36},
    {"CreatePartitions", 37},
};

typedef struct ctl {
    rd_kafka_mock_cluster_t *mc;
    int brokers;
    int ports[64];               /* the brokers' listeners (--brokers is at most 64) */
    atomic_bool busy, poke_stop; /* a command waits for the mock's thread; poker, stop */
    pthread_t poker;
    int fd;
    bool close_fd;    /* not stdin */
    bool stop_at_eof; /* a FIFO opened for writing too never ends */
    atomic_bool stop;
    pthread_t thread;
} ctl;

static bool parse_int(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* A request type by name (any case) or number. */
static bool parse_api(const char *s, int16_t *out)
{
    long v;
    if (parse_int(s, 0, 32767, &v)) {
        *out = (int16_t)v;
        return true;
    }
    for (size_t i = 0; i < sizeof api_keys / sizeof api_keys[0]; i++)
        if (strcasecmp(s, api_keys[i].name) == 0 ||
            (strncasecmp(s, api_keys[i].name, strlen(api_keys[i].name)) == 0 &&
             strcasecmp(s + strlen(api_keys[i].name), "Request") == 0)) {
            *out = api_keys[i].key;
            return true;
        }
    return false;
}

/* An error by librdkafka's name (NOT_LEADER_FOR_PARTITION, _TRANSPORT;
 * any case, RD_KAFKA_RESP_ERR_ prefix optional) or number. */
static bool parse_err(const char *s, rd_kafka_resp_err_t *out)
{
    long v;
    if (parse_int(s, -200, 32767, &v)) {
        *out = (rd_kafka_resp_err_t)v;
        return true;
    }
    if (strncasecmp(s, "RD_KAFKA_RESP_ERR_", 18) == 0)
        s += 18;
    const struct rd_kafka_err_desc *d;
    size_t n;
    rd_kafka_get_err_descs(&d, &n);
    for (size_t i = 0; i < n; i++)
        if (d[i].name && strcasecmp(d[i].name, s) == 0) {
            *out = d[i].code;
            return true;
        }
    return false;
}

/* A broker id (1..brokers) or "all" (-1). */
static bool parse_broker(const ctl *c, const char *s, int32_t *out)
{
    long v;
    if (strcmp(s, "all") == 0) {
        *out = -1;
        return true;
    }
    if (!parse_int(s, 1, c->brokers, &v))
        return false;
    *out = (int32_t)v;
    return true;
}

/*
 * librdkafka 2.0's mock cluster can miss the wake-up for a command: its
 * thread then sleeps in poll() until some socket activity, and the
 * command's caller waits with it (for ever on an idle cluster). So while
 * a command is in progress, this thread connects to the brokers'
 * listeners every 20 ms, which wakes it.
 */
static void *ctl_poke_main(void *arg)
{
    ctl *c = arg;
    while (!atomic_load(&c->poke_stop)) {
        usleep(20000);
        if (!atomic_load(&c->busy))
            continue;
        for (int i = 0; i < c->brokers; i++) {
            int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0)
                continue;
            struct sockaddr_in a = {.sin_family = AF_INET,
                                    .sin_port = htons((uint16_t)c->ports[i]),
                                    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
            (void)connect(fd, (struct sockaddr *)&a, sizeof a);
            close(fd);
        }
    }
    return NULL;
}

/* The brokers' ports, from "127.0.0.1:port,..." in broker order. */
static void ctl_ports(ctl *c, const char *boot)
{
    for (int i = 0; i < c->brokers && boot; i++) {
        const char *colon = strchr(boot, ':');
        c->ports[i] = colon ? atoi(colon + 1) : 0;
        boot = strchr(boot, ',');
        if (boot)
            boot++;
    }
}

/* Broker-wide settings one broker at a time: "all" is a loop here rather
 * than librdkafka's -1, which not every version takes. */
static rd_kafka_resp_err_t each_broker(ctl *c, int32_t id, const char *what, int arg)
{
    for (int32_t b = id < 0 ? 1 : id; b <= (id < 0 ? c->brokers : id); b++) {
        rd_kafka_resp_err_t err =
            strcmp(what, "down") == 0 ? rd_kafka_mock_broker_set_down(c->mc, b)
            : strcmp(what, "up") == 0 ? rd_kafka_mock_broker_set_up(c->mc, b)
                                      : rd_kafka_mock_broker_set_rtt(c->mc, b, arg);
        if (err)
            return err;
    }
    return RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* Runs one command line; writes what it did, or why not, to why. */
static int ctl_run(ctl *c, char *line, char *why, size_t whylen)
{
    char *w[8];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && n < 8;
         t = strtok_r(NULL, " \t\r", &save))
        w[n++] = t;
    if (n == 0 || w[0][0] == '#')
        return 1; /* blank or a comment: nothing to answer */
    const char *cmd = w[0];
    int32_t id;
    long v, cnt = 1;
    rd_kafka_resp_err_t err;
    int16_t api;
    if (strcmp(cmd, "down") == 0 || strcmp(cmd, "up") == 0) {
        if (n != 2 || !parse_broker(c, w[1], &id)) {
            snprintf(why, whylen, "usage: %s BROKER|all (brokers are 1 to %d)", cmd, c->brokers);
            return -1;
        }
        if ((err = each_broker(c, id, cmd, 0)) != 0) {
            snprintf(why, whylen, "%s %s: %s", cmd, w[1], rd_kafka_err2str(err));
            return -1;
        }
        snprintf(why, whylen, "%s %s", cmd, w[1]);
        return 0;
    }
    if (strcmp(cmd, "rtt") == 0) {
        if (n != 3 || !parse_broker(c, w[1], &id) || !parse_int(w[2], 0, 3600000, &v)) {
            snprintf(why, whylen, "usage: rtt BROKER|all MS (brokers are 1 to %d)", c->brokers);
            return -1;
        }
        if ((err = each_broker(c, id, cmd, (int)v)) != 0) {
            snprintf(why, whylen, "rtt %s: %s", w[1], rd_kafka_err2str(err));
            return -1;
        }
        snprintf(why, whylen, "rtt %s %ld", w[1], v);
        return 0;
    }
    if (strcmp(cmd, "error") == 0) {
        if (n < 3 || n > 4) {
            snprintf(why, whylen, "usage: error REQUEST ERROR [COUNT]");
            return -1;
        }
        if (!parse_api(w[1], &api)) {
            snprintf(why, whylen, "unknown request type '%s' (Produce, Fetch, ...)", w[1]);
            return -1;
        }
        if (!parse_err(w[2], &err)) {
            snprintf(why, whylen,
                     "unknown error '%s' (a librdkafka name such as "
                     "NOT_LEADER_FOR_PARTITION, or a number)",
                     w[2]);
            return -1;
        }
        if (n == 4 && !parse_int(w[3], 1, 1000000, &cnt)) {
            snprintf(why, whylen, "COUNT '%s' is not 1 to 1000000", w[3]);
            return -1;
        }
        rd_kafka_resp_err_t *errs = core_xmalloc((size_t)cnt * sizeof *errs);
        for (long i = 0; i < cnt; i++)
            errs[i] = err;
        rd_kafka_mock_push_request_errors_array(c->mc, api, (size_t)cnt, errs);
        free(errs);
        snprintf(why, whylen, "error %s %s %ld", w[1], rd_kafka_err2name(err), cnt);
        return 0;
    }
    if (strcmp(cmd, "clear") == 0) {
        if (n != 2 || !parse_api(w[1], &api)) {
            snprintf(why, whylen, "usage: clear REQUEST");
            return -1;
        }
        rd_kafka_mock_clear_request_errors(c->mc, api);
        snprintf(why, whylen, "clear %s", w[1]);
        return 0;
    }
    snprintf(why, whylen, "unknown command '%s' (down, up, rtt, error, clear)", cmd);
    return -1;
}

/* Answers on stdout ("ok CMD" or "error: why"), one line each, so that a
 * test knows when a fault is in place; stderr keeps a log. */
static void ctl_line(ctl *c, char *line)
{
    char why[512];
    atomic_store(&c->busy, true);
    int rc = ctl_run(c, line, why, sizeof why);
    atomic_store(&c->busy, false);
    if (rc > 0)
        return;
    if (rc == 0) {
        printf("ok %s\n", why);
        fprintf(stderr, "pmrag kafka-mock: control: %s\n", why);
    } else {
        printf("error: %s\n", why);
        fprintf(stderr, "pmrag kafka-mock: control: %s\n", why);
    }
    fflush(stdout);
}

static void *ctl_main(void *arg)
{
    ctl *c = arg;
    char buf[1024];
    size_t len = 0;
    bool overlong = false;
    while (!atomic_load(&c->stop)) {
        struct pollfd pfd = {c->fd, POLLIN, 0};
        int pr = poll(&pfd, 1, 100); /* wakes up to see the stop flag */
        if (pr < 0 && errno != EINTR)
            break;
        if (pr <= 0)
            continue;
        ssize_t got = read(c->fd, buf + len, sizeof buf - 1 - len);
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (got <= 0) {
            if (c->stop_at_eof)
                break;
            usleep(100000);
            continue;
        }
        len += (size_t)got;
        char *start = buf, *nl;
        while ((nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
            *nl = 0;
            if (overlong) {
                overlong = false;
                printf("error: line longer than %zu bytes\n", sizeof buf - 1);
                fflush(stdout);
            } else {
                ctl_line(c, start);
            }
            start = nl + 1;
        }
        len -= (size_t)(start - buf);
        memmove(buf, start, len);
        if (len == sizeof buf - 1) {
            overlong = true; /* the rest of the line is dropped */
            len = 0;
        }
    }
    return NULL;
}

/* Opens the control input: "-" is stdin; a path that does not exist
 * becomes a FIFO (removed on exit, *made set); a FIFO is opened for
 * writing too, so that it stays open between writers. */
static int ctl_open(ctl *c, const char *path, bool *made, char *why, size_t whylen)
{
    *made = false;
    if (strcmp(path, "-") == 0) {
        c->fd = STDIN_FILENO;
        c->stop_at_eof = true;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT || mkfifo(path, 0600) != 0) {
            snprintf(why, whylen, "--control %s: %s", path, strerror(errno));
            return -1;
        }
        *made = true;
        st.st_mode = S_IFIFO;
    }
    bool fifo = S_ISFIFO(st.st_mode);
    c->fd = open(path, (fifo ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
    if (c->fd < 0) {
        snprintf(why, whylen, "--control %s: %s", path, strerror(errno));
        if (*made)
            unlink(path);
        *made = false;
        return -1;
    }
    c->close_fd = true;
    c->stop_at_eof = !fifo;
    return 0;
}

/* The reader of the control input, and the poker the mock needs while a
 * command is in progress (ctl_poke_main). */
static int ctl_start(ctl *c, const char *boot)
{
    ctl_ports(c, boot);
    if (pthread_create(&c->poker, NULL, ctl_poke_main, c) != 0)
        return -1;
    if (pthread_create(&c->thread, NULL, ctl_main, c) != 0) {
        atomic_store(&c->poke_stop, true);
        pthread_join(c->poker, NULL);
        return -1;
    }
    return 0;
}

static void ctl_stop(ctl *c)
{
    /* The poker last: a command in progress may need it to finish. */
    atomic_store(&c->stop, true);
    pthread_join(c->thread, NULL);
    atomic_store(&c->poke_stop, true);
    pthread_join(c->poker, NULL);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

/* The cluster with its topics; *m is set (and the caller's to free) once
 * the cluster is up, even when a topic fails. */
static int mock_start(const cli_cmd *cmd, unsigned brokers, unsigned partitions,
                      const char *const *names, size_t nnames, ingest_kafka_mock **m)
{
    char why[512];
    int rc = ingest_kafka_mock_new((int)brokers, m, why, sizeof why);
    if (rc)
        return rc == CORE_EUSAGE ? cli_usage_error(cmd, "%s", why)
                                 : cli_error(cmd->name, "%s", why);
    for (size_t i = 0; i < nnames; i++)
        if (ingest_kafka_mock_topic(*m, names[i], (int)partitions, why, sizeof why) != 0)
            return cli_usage_error(cmd, "%s", why);
    return 0;
}

/* {"kafka_bootstrap":"host:port,..."}, written atomically. */
static int write_ready(const char *name, const char *path, const char *boot)
{
    core_buf b = {0};
    core_buf_puts(&b, "{\"kafka_bootstrap\":");
    core_buf_json_str(&b, boot, strlen(boot));
    core_buf_puts(&b, "}\n");
    int rc = core_write_file_atomic(path, b.data, b.len);
    core_buf_free(&b);
    if (rc)
        return cli_error(name, "cannot write %s: %s", path, core_strerror(rc));
    return 0;
}

/* The bootstrap address on stdout (what a script reads), the cluster on
 * stderr. */
static void announce(const char *boot, unsigned brokers, unsigned partitions,
                     const char *const *names, size_t nnames)
{
    printf("%s\n", boot);
    fflush(stdout);
    fprintf(stderr, "pmrag kafka-mock: %u broker(s) at %s; %zu topic(s) of %u partition(s)%s",
            brokers, boot, nnames, partitions, nnames ? ": " : "");
    for (size_t i = 0; i < nnames; i++)
        fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
    fprintf(stderr, "\n");
}

int cmd_kafka_mock(int argc, char **argv)
{
    unsigned brokers = 1, partitions = 4;
    const char *ready_file = NULL, *control = NULL;
    cli_list topics = {0};
    const cli_opt opts[] = {
        {"brokers", 0, CLI_UINT, &brokers, "N", "brokers in the cluster (default 1)", 1, 64},
        {"partitions", 0, CLI_UINT, &partitions, "P",
         "partitions of each topic it creates (default 4)", 1, 10000},
        {"topic", 0, CLI_LIST, &topics, "NAME",
         "create this topic (repeatable; default otlp_spans, otlp_logs, pmrag_predictions)", 0, 0},
        {"ready-file", 0, CLI_STR, &ready_file, "FILE",
         "once up, write {\"kafka_bootstrap\":\"host:port,...\"} to FILE (atomically)", 0, 0},
        {"control", 0, CLI_STR, &control, "FILE",
         "read fault-injection commands from FILE, one per line (a FIFO, created if missing "
         "and removed on exit; - for stdin); see below",
         0, 0},
    };
    const cli_cmd cmd = {
        "kafka-mock",
        "[--brokers N] [--partitions P] [--topic NAME]... [--ready-file FILE] [--control FILE]",
        "Runs librdkafka's mock Kafka cluster (for tests, and for trying pmrag with kcat).",
        "Runs librdkafka's mock Kafka cluster on 127.0.0.1 until SIGTERM or Ctrl-C,\n"
        "and prints its bootstrap address (host:port,...) on stdout. Every client\n"
        "given that address (pmrag serve's kafka.brokers, kcat -b) sees one cluster."
        "\n\n"
        "The mock keeps messages in memory (about 5 MB per partition), and has\n"
        "consumer groups, keys and headers, but no transactions or compaction.\n"
        "Topics other than those created here are created on first use with a\n"
        "default partition count. The ready file is removed on exit.\n"
        "\n"
        "Fault injection: with --control, each line read is one command, answered on\n"
        "stdout with 'ok COMMAND' once it is in effect, or 'error: WHY':\n"
        "  down BROKER|all          disconnect the broker(s) and refuse connections\n"
        "                           (no leader change: their partitions are unavailable)\n"
        "  up BROKER|all            accept connections again\n"
        "  rtt BROKER|all MS        delay every response by MS milliseconds (0: none)\n"
        "  error REQUEST ERROR [N]  the next N requests (default 1) of that type, to any\n"
        "                           broker and about any topic, fail with ERROR\n"
        "  clear REQUEST            drop the errors still queued for that type\n"
        "Brokers are numbered 1 to N. REQUEST is a protocol request name (Produce,\n"
        "Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch, FindCoordinator,\n"
        "JoinGroup, Heartbeat, LeaveGroup, SyncGroup, InitProducerId, ...) or its\n"
        "ApiKey number; ERROR is librdkafka's error name (NOT_LEADER_FOR_PARTITION,\n"
        "REQUEST_TIMED_OUT, _TRANSPORT to drop the connection, ...) or its number.\n"
        "Lines starting with # are ignored.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag kafka-mock --partitions 2 &\n"
        "echo 'case-1:hello' | kcat -P -b 127.0.0.1:PORT -t otlp_spans -K:\n"
        "pmrag kafka-mock --brokers 3 --control /tmp/faults &\n"
        "echo 'down 2' >/tmp/faults; sleep 10; echo 'up 2' >/tmp/faults\n"
        "echo 'error Produce NOT_LEADER_FOR_PARTITION 5' >/tmp/faults",
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

    ingest_kafka_mock *m = NULL;
    ctl c = {.brokers = (int)brokers, .fd = -1};
    bool made_fifo = false, ctl_running = false;
    rc = mock_start(&cmd, brokers, partitions, names, nnames, &m);
    if (rc)
        goto done;
    /* The control input is open before the ready file says we are up, so
     * that a command written as soon as it appears is not lost. */
    c.mc = ingest_kafka_mock_cluster(m);
    char why[512];
    if (control && ctl_open(&c, control, &made_fifo, why, sizeof why) != 0) {
        rc = cli_usage_error(&cmd, "%s", why);
        goto done;
    }
    const char *boot = ingest_kafka_mock_bootstrap(m);
    if (ready_file && (rc = write_ready(cmd.name, ready_file, boot)) != 0) {
        ready_file = NULL; /* not ours to remove */
        goto done;
    }
    announce(boot, brokers, partitions, names, nnames);
    if (control) {
        if (ctl_start(&c, boot) != 0) {
            rc = cli_error(cmd.name, "cannot start the control threads");
            goto done;
        }
        ctl_running = true;
    }

    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    rc = 0;

done:
    if (ctl_running)
        ctl_stop(&c);
    if (c.close_fd)
        close(c.fd);
    if (made_fifo)
        unlink(control);
    if (ready_file && rc == 0)
        unlink(ready_file);
    ingest_kafka_mock_free(m);
    free(topics.v);
    return rc;
}
