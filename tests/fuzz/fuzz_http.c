/*
 * HTTP requests (core/http.c) to the OTLP/HTTP receiver
 * (ingest/otlp_http.c) and the daemon's API routes (sink/api.c): both are
 * started once, on 127.0.0.1 with ephemeral ports, and each input is sent
 * as raw bytes on a new loopback connection, the write side shut, the
 * answer read to the end. A request line naming /v1/traces or /v1/logs
 * goes to the receiver, anything else to the API, which wants a bearer
 * token (Authorization: Bearer fuzz-token). The receiver's body
 * limit is small (4 KiB) so that 413s, on the wire and after gunzip, are
 * in reach.
 *
 * Behind the routes sit stubs: the receiver's batch function checks the
 * events and fails as the first activity asks ("EAGAIN", "ELIMIT",
 * "EIO"); the API's case lookup and query answer by the id or the JSON
 * document. A 500 is a failure unless a stub asked for one.
 */
#define _GNU_SOURCE /* memmem */
#include "fuzz.h"
#include "sink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define OTLP_MAX_BODY 4096
#define OTLP_MAX_STR 64
/* The API wants "Authorization: Bearer fuzz-token" (but on /livez, /readyz
 * and /metrics). */
#define FUZZ_TOKEN "fuzz-token"

static ingest_otlp_http *otlp;
static sink_api *api;
static struct sockaddr_in otlp_sa, api_sa;
/* A stub returned an error that the server must answer with 500. */
static atomic_bool want_500;
static atomic_uint ready_calls;

static int batch(void *ud, ingest_otlp_kind kind, const ingest_event *evs, size_t n,
                 const uint8_t *id)
{
    (void)ud;
    (void)kind;
    fuzz_sink += id[0] ^ id[INGEST_REQUEST_ID - 1];
    FUZZ_CHECK(n > 0);
    for (size_t i = 0; i < n; i++)
        fuzz_check_event(&evs[i], OTLP_MAX_STR, 0);
    if (strcmp(evs[0].activity, "EAGAIN") == 0)
        return -EAGAIN;
    if (strcmp(evs[0].activity, "ELIMIT") == 0)
        return CORE_ELIMIT;
    if (strcmp(evs[0].activity, "EIO") == 0) {
        atomic_store(&want_500, true);
        return -EIO;
    }
    return 0;
}

static int get_case(void *ud, const char *id, core_buf *json)
{
    (void)ud;
    FUZZ_CHECK(id[0] != 0);
    if (strcmp(id, "EIO") == 0) {
        atomic_store(&want_500, true);
        return -EIO;
    }
    if (id[0] != 'c')
        return CORE_ENOTFOUND;
    core_buf_puts(json, "{\"case_id\":");
    core_buf_json_str(json, id, strlen(id));
    core_buf_puts(json, "}");
    return 0;
}

static int query(void *ud, const char *body, size_t len, core_buf *json, char *why, size_t whylen)
{
    (void)ud;
    json_error_t err;
    json_t *doc = json_loadb(body, len, 0, &err);
    if (!doc) {
        snprintf(why, whylen, "offset %d: %s", err.position, err.text);
        return CORE_EFORMAT;
    }
    int rc = 0;
    if (json_object_get(doc, "limit")) {
        snprintf(why, whylen, "too many");
        rc = CORE_ELIMIT;
    } else if (json_object_get(doc, "fail")) {
        atomic_store(&want_500, true);
        rc = -EIO;
    } else if (!json_is_object(doc)) {
        rc = CORE_EUSAGE;
    } else {
        char *text = json_dumps(doc, JSON_COMPACT);
        core_buf_puts(json, text);
        free(text);
    }
    json_decref(doc);
    return rc;
}

static void metrics(void *ud, core_buf *text)
{
    (void)ud;
    core_buf_puts(text, "# TYPE pmrag_fuzz counter\npmrag_fuzz_total 1\n");
}

static bool ready(void *ud, core_buf *why)
{
    (void)ud;
    if (atomic_fetch_add(&ready_calls, 1) % 2)
        return true;
    core_buf_puts(why, "warming up");
    return false;
}

static void to_sockaddr(const char *addr, struct sockaddr_in *sa)
{
    const char *colon = strrchr(addr, ':');
    FUZZ_CHECK(colon != NULL);
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)atoi(colon + 1));
    sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static char token_path[256];

static void stop_servers(void)
{
    ingest_otlp_http_stop(otlp);
    sink_api_stop(api);
    unlink(token_path);
    char *slash = strrchr(token_path, '/');
    if (slash) {
        *slash = 0;
        rmdir(token_path);
    }
}

/* The API's bearer token, in a file of its own. */
static void write_token(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[200];
    snprintf(dir, sizeof dir, "%s/pmrag-fuzz-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(token_path, sizeof token_path, "%s/token", dir);
    if (core_write_file_atomic(token_path, FUZZ_TOKEN "\n", strlen(FUZZ_TOKEN) + 1) != 0 ||
        chmod(token_path, 0600) != 0) {
        perror(token_path);
        exit(1);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char why[256];
    ingest_otlp_recv_opts o = {
        .listen = "127.0.0.1:0",
        .max_body = OTLP_MAX_BODY,
        .threads = 2,
        .max_str = OTLP_MAX_STR,
    };
    if (ingest_otlp_http_start(&o, batch, NULL, &otlp, why, sizeof why) != 0) {
        fprintf(stderr, "otlp receiver: %s\n", why);
        exit(1);
    }
    write_token();
    sink_api_ops ops = {.get_case = get_case, .query = query, .metrics = metrics, .ready = ready};
    sink_api_opts ao = {.listen = "127.0.0.1:0", .token_file = token_path, .metrics_open = true};
    if (sink_api_start(&ao, &ops, &api, why, sizeof why) != 0) {
        fprintf(stderr, "api: %s\n", why);
        exit(1);
    }
    to_sockaddr(ingest_otlp_http_address(otlp), &otlp_sa);
    to_sockaddr(sink_api_address(api), &api_sa);
    atexit(stop_servers);
    return 0;
}

/* The status of the final answer in raw ("HTTP/1.1 200 ...", after any
 * 100 Continue), 0 when there is none, or -1 when raw is not HTTP. */
static int final_status(const core_buf *raw)
{
    size_t at = 0;
    for (;;) {
        if (raw->len - at < 13)
            return 0;
        const char *p = raw->data + at;
        if (memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ' || p[12] != ' ')
            return -1;
        int status = atoi(p + 9);
        if (status < 100 || status > 599)
            return -1;
        if (status >= 200)
            return status;
        const char *end = memmem(p, raw->len - at, "\r\n\r\n", 4);
        if (!end)
            return 0;
        at = (size_t)(end + 4 - raw->data);
    }
}

/* Sends the request, shuts the write side and reads the answer to the
 * end (the server closes after it, or at once for a request cut short);
 * returns the final status, 0 when none came, -1 when the answer was not
 * HTTP, or -2 when the connection could not be made (errno says why). */
static int exchange(const struct sockaddr_in *sa, const uint8_t *data, size_t size)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    FUZZ_CHECK(fd >= 0);
    /* Connected before the timeouts are set: SO_SNDTIMEO bounds connect
     * too, and on a loaded machine the server's backlog may take longer
     * than that to drain, which is no finding. */
    if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -2;
    }
    /* Answers take milliseconds; should one not come (the server still
     * waiting for more), the input is given up after a moment. */
    struct timeval tv = {0, 300 * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    for (size_t done = 0; done < size;) {
        ssize_t w = send(fd, data + done, size - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* the server answered early and closed (413) */
        done += (size_t)w;
    }
    /* The end of the request after a pause: libmicrohttpd (edge-triggered
     * epoll) reads once per wake-up and does not see an end that arrived
     * with the data, so an unfinished request would wait for the 300 ms. */
    usleep(1000);
    shutdown(fd, SHUT_WR);
    core_buf raw = {0};
    char buf[8192];
    for (;;) {
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (raw.len < ((size_t)1 << 20))
            core_buf_append(&raw, buf, (size_t)r);
    }
    /* Closed with a reset: this side sent the first FIN, so a plain close
     * would hold the port in TIME_WAIT for a minute, and at hundreds of
     * inputs a second the loopback's ephemeral ports run out (connect
     * fails with EADDRNOTAVAIL) within the fuzzing run. */
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
    int status = final_status(&raw);
    core_buf_free(&raw);
    return status;
}

/* A finding must happen again: on a loaded machine a connection can fail
 * or an answer come too late for the socket timeouts, which says nothing
 * about the server, while what the server does wrong it does each time.
 * So a bad outcome is tried twice more before it is reported. */
#define HTTP_ATTEMPTS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *eol = memchr(data, '\n', size);
    size_t first = eol ? (size_t)(eol - data) : size;
    bool to_otlp =
        memmem(data, first, "/v1/traces", 10) != NULL || memmem(data, first, "/v1/logs", 8) != NULL;
    int status = 0, err = 0;
    for (int attempt = 0; attempt < HTTP_ATTEMPTS; attempt++) {
        if (attempt)
            usleep(50 * 1000);
        atomic_store(&want_500, false);
        status = exchange(to_otlp ? &otlp_sa : &api_sa, data, size);
        err = errno;
        if (status >= 0 && (status != 500 || atomic_load(&want_500)))
            return 0;
    }
    char what[160];
    if (status == -2)
        snprintf(what, sizeof what, "connect to the %s: %s", to_otlp ? "receiver" : "API",
                 strerror(err));
    else if (status == -1)
        snprintf(what, sizeof what, "the answer is not HTTP/1.x with a status line");
    else
        snprintf(what, sizeof what, "500 that no stub asked for");
    fuzz_fail(__FILE__, __LINE__, what);
}
