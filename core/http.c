/*
 * A small HTTP/1.1 server on libmicrohttpd, for the OTLP/HTTP receiver and
 * the daemon's API.
 *
 * Threads. libmicrohttpd runs one internal polling thread that does all
 * socket I/O; it never runs a handler. When a request's body is complete
 * the connection is suspended and the request goes on a queue served by
 * our own pool of `threads` handler threads. A handler may block (the
 * daemon answers an OTLP export only after its state commit): that holds
 * one pool thread, never the I/O of the other connections. When the
 * handler returns, the pool thread builds the response and resumes the
 * connection; the polling thread then queues and sends it. Concurrency of
 * handlers is thus the pool size, and memory is bounded by the connection
 * limit (max_conns plus the probes' reserve) times the body limit.
 *
 * Bodies. Each request's body is collected in a buffer of our own. A
 * Content-Length over the limit is answered 413 before any of the body is
 * read (libmicrohttpd closes the connection after it). A chunked body is
 * only known to be too large while it arrives, and libmicrohttpd cannot
 * queue a response in the middle of an upload, so there the 413 is written
 * to the socket directly, the write side is shut down, and what the client
 * still sends is read and dropped for a little while (so that it reads the
 * 413 instead of a reset) before the connection is closed. Over TLS the
 * socket cannot be written behind GnuTLS's back: there the rest of the
 * body is dropped as it comes and the 413 queued when it ends, unless more
 * than the same little while follows (then the connection is just closed).
 *
 * Authentication and TLS. The bearer token is checked when the headers
 * have arrived, before the size limit and before any body is read, so a
 * client without it cannot make the server buffer anything. TLS is
 * libmicrohttpd's (GnuTLS); the certificate and key are read here so that
 * errors can name the file.
 *
 * Streams. A streamed response (Server-Sent Events) is a libmicrohttpd
 * response whose body comes from a callback on the polling thread. When
 * its queue is empty the callback suspends the connection and returns
 * nothing (libmicrohttpd's way to wait without spinning), and whoever
 * queues data resumes it; both under the stream's lock, so a resume never
 * misses a suspend. The reaper queues the keepalive text of idle streams
 * (a client that went away is only noticed by writing to it), and stop
 * ends every stream first: libmicrohttpd must not be stopped with a
 * connection suspended.
 */
#define _GNU_SOURCE /* strcasestr */
#include "core.h"
#include "core_http.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#define HTTP_DEFAULT_MAX_BODY ((size_t)64 << 20)
#define HTTP_DEFAULT_THREADS 2u
#define HTTP_DEFAULT_MAX_CONNS 256u
#define HTTP_DEFAULT_CONN_TIMEOUT 30u
#define HTTP_DEFAULT_HEADER_TIMEOUT 10u
#define HTTP_DEFAULT_BODY_TIMEOUT 60u
/* Connections accepted past max_conns when none can be evicted, for the
 * probe paths only: enough for a kubelet's liveness and readiness checks
 * and a load balancer's, few enough not to matter for memory. */
#define HTTP_PROBE_RESERVE 8u
/* How often deadlines are checked: the timeouts are whole seconds, so a
 * connection lives at most this much longer than its deadline. */
#define HTTP_REAP_NS 250000000ull
/* After a 413 sent in the middle of a chunked body, how much more of it is
 * read and dropped before the connection is closed. */
#define HTTP_LINGER_BYTES ((size_t)4 << 20)
/* Largest token, certificate and key files read. */
#define HTTP_TOKEN_MAX ((size_t)4096)
#define HTTP_PEM_MAX ((size_t)1 << 20)
/* Refused requests and connections closed for being slow are logged at
 * most this often (a client that loops on 401, or a slowloris, must not
 * flood the log). */
#define HTTP_REFUSAL_LOG_NS 10000000000ull
/* A stream with nothing to send for this long gets its keepalive text. */
#define HTTP_STREAM_KEEPALIVE_NS 15000000000ull
#define HTTP_STREAM_MAX_QUEUED ((size_t)1 << 20)
/* No SSL 3.0, TLS 1.0 or 1.1, whatever the system's GnuTLS allows. */
#define HTTP_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

typedef enum {
    RQ_HEADERS,    /* the request line and headers arrived */
    RQ_BODY,       /* receiving the body */
    RQ_DISCARD,    /* over the limit: dropping the rest, then closing (see tls_413) */
    RQ_DISPATCHED, /* suspended, queued for or running in a handler thread */
    RQ_READY,      /* resumed with a response to queue */
    RQ_SENT,       /* the response is queued */
} rq_state;

/* Where a connection is, for the slow-client limits. */
typedef enum {
    CN_HEADERS, /* waiting for a request line and headers (or idle, kept alive) */
    CN_BODY,    /* headers in, body arriving */
    CN_BUSY,    /* request complete: in a handler or its response being sent */
} cn_phase;

/* One per connection (libmicrohttpd's socket context), from its
 * NOTIFY_STARTED to its NOTIFY_CLOSED; in core_http.conns under conn_mu. */
typedef struct http_conn {
    struct http_conn *prev, *next;
    MHD_socket fd;
    int family;             /* AF_INET or AF_INET6; 0: address unknown */
    unsigned char addr[16]; /* the client address (4 bytes for IPv4) */
    cn_phase phase;
    uint64_t since_ns;    /* when the phase began: eviction takes the oldest */
    uint64_t deadline_ns; /* CN_HEADERS, CN_BODY: closed past it */
    bool extra;           /* admitted past the limits: probe paths only */
    bool closing;         /* shut down by us; libmicrohttpd has yet to notice */
} http_conn;

typedef struct http_rq {
    struct http_rq *next; /* queue link */
    core_http *srv;
    struct MHD_Connection *conn;
    http_conn *cn; /* NULL when libmicrohttpd gave no socket */
    rq_state state;
    bool counted; /* counted in srv->inflight */
    char *uri;    /* the request target as sent; the '?' is cut to a NUL */
    char *query;  /* into uri, or NULL */
    const char *method, *content_type, *content_encoding, *authorization; /* MHD's */
    char client[INET6_ADDRSTRLEN + 16]; /* the peer's address, for logs */
    core_buf body;
    size_t dropped; /* RQ_DISCARD: bytes dropped since the 413 */
    bool tls_413;   /* RQ_DISCARD over TLS: the 413 is still to be queued */
    struct MHD_Response *resp;
    unsigned status;
} http_rq;

/* A streamed response: the caller's reference and the response's. */
struct core_http_stream {
    pthread_mutex_t mu;
    core_buf q; /* queued, from off on not yet handed to libmicrohttpd */
    size_t off;
    size_t max;
    char *keepalive;  /* NULL: none */
    uint64_t last_ns; /* data was last queued or handed over */
    core_http *srv;   /* NULL until the handler returned and it was attached */
    struct MHD_Connection *conn;
    bool suspended; /* by the callback, waiting for data */
    bool ended;     /* no more data: end the body when the queue is empty */
    bool failed;    /* too slow: close without ending the body properly */
    bool gone;      /* the response is gone (client away, or finished) */
    int refs;
    struct core_http_stream *prev, *next; /* in srv->streams, under st_mu */
};

struct core_http {
    struct MHD_Daemon *d;
    core_http_handler h;
    void *ud;
    size_t max_body;
    core_logger log;
    char addr[INET6_ADDRSTRLEN + 16];
    char name[64];
    /* The token (NULL: no authentication) and the PEM certificate and key
     * libmicrohttpd serves TLS with; the secrets wiped when freed. */
    core_creds creds;
    const char *const *public_paths;
    const char *const *probe_paths;
    bool (*busy)(void *ud, const char *method, const char *path);
    unsigned max_conns, max_per_addr; /* max_per_addr 0: no limit of its own */
    uint64_t conn_timeout_ns, header_timeout_ns, body_timeout_ns;
    bool tls;
    /* Not mu: libmicrohttpd may log from calls made under mu. */
    pthread_mutex_t log_mu;
    bool capture;        /* under log_mu: keep libmicrohttpd's messages */
    char mhd_error[512]; /* ...here, to explain a failed start */

    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* queue not empty, or stopping */
    pthread_cond_t idle_cv; /* inflight went to 0 */
    http_rq *head, *tail;
    size_t inflight; /* dispatched and not yet completed */
    bool closing;    /* core_http_stop began: no more dispatching */
    bool stopping;   /* pool threads leave */
    pthread_t *workers;
    unsigned nworkers;
    _Atomic uint64_t requests, too_large, unauthorized;
    _Atomic uint64_t last_401_log_ns;

    /* The slow-client limits. Changed by the polling thread (connections
     * come and go, requests move on) and the reaper thread (deadlines);
     * conn_mu because libmicrohttpd calls us under none of its own. */
    pthread_mutex_t conn_mu;
    pthread_cond_t reap_cv;        /* reap_stop was set */
    http_conn *conns, *conns_tail; /* in order of opening */
    bool reap_stop;
    bool reaper_started;
    pthread_t reaper;
    _Atomic uint64_t timed_out, evicted, over_limit;
    _Atomic uint64_t last_slow_log_ns;

    /* Streamed responses being sent; taken before a stream's own lock. */
    pthread_mutex_t st_mu;
    core_http_stream *streams;
    bool streams_closed; /* core_http_stop ended them: new ones start ended */
    _Atomic uint64_t nstreams;
};

/* ------------------------------------------------------------------ */
/* Listening                                                           */
/* ------------------------------------------------------------------ */

/* Splits "host:port", "[v6]:port" or ":port" (an empty host: the wildcard
 * address getaddrinfo gives first). */
static bool split_listen(const char *spec, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || !colon[1] || strlen(colon + 1) >= portlen)
        return false;
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    if (strtoul(colon + 1, NULL, 10) > 65535)
        return false;
    strcpy(port, colon + 1);
    const char *h = spec;
    size_t n = (size_t)(colon - spec);
    if (n && h[0] == '[') {
        if (n < 2 || h[n - 1] != ']')
            return false;
        h++;
        n -= 2;
    } else if (memchr(h, ':', n)) {
        return false; /* a bare IPv6 address needs brackets */
    }
    if (n >= hostlen)
        return false;
    memcpy(host, h, n);
    host[n] = 0;
    return true;
}

static void format_addr(const struct sockaddr *ss, char *out, size_t outlen)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        port = ntohs(a->sin6_port);
        snprintf(out, outlen, "[%s]:%u", ip, port);
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        port = ntohs(a->sin_port);
        snprintf(out, outlen, "%s:%u", ip, port);
    }
}

/* Binds and listens on the first address of the host that works. */
int core_listen_tcp(const char *spec, int *fd_out, char *addr, size_t addrlen, char *why,
                    size_t whylen)
{
    char host[256], port[8];
    if (!spec || !split_listen(spec, host, sizeof host, port, sizeof port))
        return core_fail(why, whylen, CORE_EUSAGE, "listen %s: not host:port", spec ? spec : "");
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc != 0)
        return core_fail(why, whylen, CORE_EUSAGE, "listen %s: %s", spec, gai_strerror(rc));
    int err = -EADDRNOTAVAIL, fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            err = -errno;
            continue;
        }
        /* A restarted daemon must be able to bind while old connections
         * linger in TIME_WAIT. */
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
            break;
        err = -errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return core_fail(why, whylen, err, "listen %s: %s", spec, core_strerror(err));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        err = -errno;
        close(fd);
        return core_fail(why, whylen, err, "listen %s: %s", spec, core_strerror(err));
    }
    format_addr((const struct sockaddr *)&ss, addr, addrlen);
    *fd_out = fd;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Token, certificate and key                                          */
/* ------------------------------------------------------------------ */

bool core_key_is_secret(const char *key)
{
    static const char *const words[] = {
        "password", "secret", "token", "jaas", "key", "credential", "oauthbearer.config", "pem"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(key, words[i]))
            return true;
    return false;
}

bool core_ct_equal(const void *a, size_t alen, const void *b, size_t blen)
{
    /* Every byte of b is looked at whatever a holds; volatile keeps the
     * compiler from stopping at the first difference. The only branch
     * depends on the lengths, which the caller of a already knows. */
    const volatile unsigned char *pa = a, *pb = b;
    unsigned diff = alen != blen;
    for (size_t i = 0; i < blen; i++) {
        unsigned char x = i < alen ? pa[i] : 0;
        diff |= (unsigned)(x ^ pb[i]);
    }
    return diff == 0;
}

void core_secret_free(char *p, size_t n)
{
    if (!p)
        return;
    explicit_bzero(p, n);
    free(p);
}

/* Reads one of the files the server is given: what is the option's name
 * for errors. A secret that group or others may read is worth a warning,
 * not a refusal (a container may run as root with everything 0644). */
static int read_option_file(const core_logger *log, const char *listen, const char *what,
                            const char *path, size_t max, bool secret, char **out, size_t *len,
                            char *why, size_t whylen)
{
    int rc = core_read_file(path, max, out, len);
    if (rc == CORE_ELIMIT)
        return core_fail(why, whylen, CORE_EUSAGE, "listen %s: %s %s: larger than %zu bytes",
                         listen, what, path, max);
    if (rc)
        return core_fail(why, whylen, rc, "listen %s: %s %s: %s", listen, what, path,
                         core_strerror(rc));
    struct stat st;
    if (secret && stat(path, &st) == 0 && (st.st_mode & 077))
        core_logf(log, CORE_LOG_WARN,
                  "http %s: %s %s may be read by group or others (mode %04o): chmod 600 it", listen,
                  what, path, (unsigned)(st.st_mode & 07777));
    return 0;
}

/* The token: the file's text without surrounding white space, one run of
 * visible ASCII (what a header can carry). */
static int token_load(const core_logger *log, const char *listen, const char *path, char **token,
                      size_t *toklen, char *why, size_t whylen)
{
    char *text;
    size_t len;
    int rc = read_option_file(log, listen, "token_file", path, HTTP_TOKEN_MAX, true, &text, &len,
                              why, whylen);
    if (rc)
        return rc;
    size_t b = 0, e = len;
    while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\r' || text[b] == '\n'))
        b++;
    while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r' ||
                     text[e - 1] == '\n'))
        e--;
    if (b == e) {
        core_secret_free(text, len);
        return core_fail(why, whylen, CORE_EUSAGE, "listen %s: token_file %s: empty", listen, path);
    }
    for (size_t i = b; i < e; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c <= 0x20 || c >= 0x7f) {
            core_secret_free(text, len);
            /* The offset, never the byte: it is part of a secret. */
            return core_fail(why, whylen, CORE_EUSAGE,
                             "listen %s: token_file %s: byte %zu is a space, control or non-ASCII "
                             "character (the token is one line of visible ASCII)",
                             listen, path, i);
        }
    }
    *toklen = e - b;
    *token = core_xmalloc(*toklen + 1);
    memcpy(*token, text + b, *toklen);
    (*token)[*toklen] = 0;
    core_secret_free(text, len);
    return 0;
}

/* Certificate and key are written only on success; on an error nothing
 * read is kept. */
static int tls_load(const core_logger *log, const char *listen, const char *cert, const char *key,
                    char **cert_pem, size_t *cert_len, char **key_pem, size_t *key_len, char *why,
                    size_t whylen)
{
    char *c = NULL, *k = NULL;
    size_t clen = 0, klen = 0;
    int rc = read_option_file(log, listen, "tls_cert", cert, HTTP_PEM_MAX, false, &c, &clen, why,
                              whylen);
    if (rc)
        goto fail;
    if (!strstr(c, "-----BEGIN CERTIFICATE-----")) {
        rc = core_fail(
            why, whylen, CORE_EUSAGE,
            "listen %s: tls_cert %s: no PEM certificate (-----BEGIN CERTIFICATE-----) in it",
            listen, cert);
        goto fail;
    }
    rc = read_option_file(log, listen, "tls_key", key, HTTP_PEM_MAX, true, &k, &klen, why, whylen);
    if (rc)
        goto fail;
    if (strstr(k, "-----BEGIN ENCRYPTED PRIVATE KEY-----") || strstr(k, "Proc-Type: 4,ENCRYPTED")) {
        rc = core_fail(why, whylen, CORE_EUSAGE,
                       "listen %s: tls_key %s: the key is encrypted; give it unencrypted (openssl "
                       "pkey -in %s -out NEW) and protect the file instead",
                       listen, key, key);
        goto fail;
    }
    if (!strstr(k, "PRIVATE KEY-----")) {
        rc = core_fail(
            why, whylen, CORE_EUSAGE,
            "listen %s: tls_key %s: no PEM private key (-----BEGIN ... PRIVATE KEY-----) in "
            "it",
            listen, key);
        goto fail;
    }
    *cert_pem = c;
    *cert_len = clen;
    *key_pem = k;
    *key_len = klen;
    return 0;
fail:
    free(c);
    core_secret_free(k, klen);
    return rc;
}

int core_creds_load(const core_creds_opts *o, const core_logger *log, core_creds *c, char *why,
                    size_t whylen)
{
    memset(c, 0, sizeof *c);
    const char *listen = o->listen ? o->listen : "";
    const char *cert = o->tls_cert, *key = o->tls_key;
    int rc = 0;
    if (o->token_file && *o->token_file &&
        (rc = token_load(log, listen, o->token_file, &c->token, &c->token_len, why, whylen)) != 0)
        return rc;
    if ((!cert || !*cert) && (!key || !*key))
        return 0;
    if (!cert || !*cert)
        rc = core_fail(why, whylen, CORE_EUSAGE, "listen %s: tls_key %s given without tls_cert",
                       listen, key);
    else if (!key || !*key)
        rc = core_fail(why, whylen, CORE_EUSAGE, "listen %s: tls_cert %s given without tls_key",
                       listen, cert);
    else if (o->no_tls)
        rc = core_fail(why, whylen, CORE_EUSAGE, "listen %s: tls_cert %s: %s", listen, cert,
                       o->no_tls);
    else
        rc = tls_load(log, listen, cert, key, &c->cert_pem, &c->cert_len, &c->key_pem, &c->key_len,
                      why, whylen);
    if (rc)
        core_creds_free(c);
    return rc;
}

void core_creds_free(core_creds *c)
{
    core_secret_free(c->token, c->token_len);
    free(c->cert_pem);
    core_secret_free(c->key_pem, c->key_len);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------ */
/* Slow clients                                                        */
/* ------------------------------------------------------------------ */

/*
 * libmicrohttpd's own limits are not enough against slow clients: its
 * timeout is one of inactivity (a byte every few seconds resets it), its
 * connection limit refuses the newcomer rather than the connection that
 * has been stalling for a minute, and its per-address limit does the
 * same. So each connection is followed here from open to close with the
 * phase its request is in, and
 *  - the reaper thread closes those past their header or body deadline;
 *  - a new connection past max_conns or max_per_addr closes the oldest
 *    connection still waiting for headers (then for a body) instead, and
 *    when there is none it is admitted as an "extra", within libmicrohttpd's
 *    limit of max_conns + HTTP_PROBE_RESERVE, for the probe paths only.
 * Closing is shutdown() of the socket: libmicrohttpd's next read sees the
 * end and it closes the connection as one the client ended. That is safe
 * from the reaper thread because libmicrohttpd notifies NOTIFY_CLOSED
 * (which takes the connection out of the list, under conn_mu) before it
 * closes the socket, so a socket in the list is still this connection's.
 * Connections in a handler or sending a response are never closed here.
 */

static bool same_addr(const http_conn *a, const http_conn *b)
{
    return a->family && a->family == b->family &&
           memcmp(a->addr, b->addr, a->family == AF_INET6 ? 16 : 4) == 0;
}

static void conn_peer(const http_conn *k, char *out, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (k->family)
        inet_ntop(k->family, k->addr, ip, sizeof ip);
    snprintf(out, len, "%s", ip);
}

/* Under conn_mu. A client that trips the limits in a loop must not flood
 * the log: one line every HTTP_REFUSAL_LOG_NS, with the count so far. */
static void conn_kill(core_http *s, http_conn *k, _Atomic uint64_t *counter, const char *why)
{
    k->closing = true;
    shutdown(k->fd, SHUT_RDWR);
    uint64_t n = atomic_fetch_add(counter, 1) + 1;
    uint64_t now = core_now_ns(), last = atomic_load(&s->last_slow_log_ns);
    if ((last == 0 || now - last >= HTTP_REFUSAL_LOG_NS) &&
        atomic_compare_exchange_strong(&s->last_slow_log_ns, &last, now)) {
        char peer[INET6_ADDRSTRLEN];
        conn_peer(k, peer, sizeof peer);
        core_logf(&s->log, CORE_LOG_NOTE,
                  "http %s: closed a connection from %s: %s (%llu so far; logged at most every "
                  "%llu s)",
                  s->addr, peer, why, (unsigned long long)n, HTTP_REFUSAL_LOG_NS / 1000000000ull);
    }
}

/* The connection to close to make room for c: the oldest waiting for its
 * headers, else the oldest receiving a body; of c's address when
 * same_only. Extras are not counted in the limits, so never chosen. Under
 * conn_mu. */
static http_conn *evictable(const core_http *s, const http_conn *c, bool same_only)
{
    http_conn *best = NULL;
    for (http_conn *k = s->conns; k; k = k->next) {
        if (k == c || k->closing || k->extra || k->phase == CN_BUSY)
            continue;
        if (same_only && !same_addr(k, c))
            continue;
        if (!best || k->phase < best->phase ||
            (k->phase == best->phase && k->since_ns < best->since_ns))
            best = k;
    }
    return best;
}

/* Whether c fits in max_conns and max_per_addr, once stalled connections
 * have been closed to make room. Under conn_mu. */
static bool admit(core_http *s, http_conn *c)
{
    unsigned total = 0, same = 0;
    for (const http_conn *k = s->conns; k; k = k->next) {
        if (k == c || k->closing || k->extra)
            continue;
        total++;
        same += same_addr(k, c);
    }
    while (s->max_per_addr && c->family && same >= s->max_per_addr) {
        http_conn *k = evictable(s, c, true);
        if (!k)
            return false;
        conn_kill(s, k, &s->evicted, "stalled, to make room (per-address limit)");
        same--;
        total--;
    }
    while (total >= s->max_conns) {
        http_conn *k = evictable(s, c, false);
        if (!k)
            return false;
        conn_kill(s, k, &s->evicted, "stalled, to make room (connection limit)");
        total--;
    }
    return true;
}

static void conn_phase(core_http *s, http_conn *k, cn_phase phase, uint64_t allowed_ns)
{
    if (!k)
        return;
    pthread_mutex_lock(&s->conn_mu);
    k->phase = phase;
    k->since_ns = core_now_ns();
    k->deadline_ns = k->since_ns + allowed_ns;
    pthread_mutex_unlock(&s->conn_mu);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    core_http *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        http_conn *k = *socket_context;
        if (!k)
            return;
        pthread_mutex_lock(&s->conn_mu);
        if (k->prev)
            k->prev->next = k->next;
        else
            s->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        else
            s->conns_tail = k->prev;
        pthread_mutex_unlock(&s->conn_mu);
        free(k);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fi =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!fi)
        return; /* not followed: libmicrohttpd's own timeout still applies */
    http_conn *k = core_xcalloc(1, sizeof *k);
    k->fd = fi->connect_fd;
    const union MHD_ConnectionInfo *ai =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ai && ai->client_addr && ai->client_addr->sa_family == AF_INET) {
        k->family = AF_INET;
        memcpy(k->addr, &((const struct sockaddr_in *)ai->client_addr)->sin_addr, 4);
    } else if (ai && ai->client_addr && ai->client_addr->sa_family == AF_INET6) {
        k->family = AF_INET6;
        memcpy(k->addr, &((const struct sockaddr_in6 *)ai->client_addr)->sin6_addr, 16);
    }
    k->phase = CN_HEADERS;
    k->since_ns = core_now_ns();
    k->deadline_ns = k->since_ns + s->header_timeout_ns;
    pthread_mutex_lock(&s->conn_mu);
    k->extra = !admit(s, k);
    k->prev = s->conns_tail;
    if (s->conns_tail)
        s->conns_tail->next = k;
    else
        s->conns = k;
    s->conns_tail = k;
    pthread_mutex_unlock(&s->conn_mu);
    *socket_context = k;
}

static void streams_keepalive(core_http *s);

static void *reaper_main(void *arg)
{
    core_http *s = arg;
    pthread_mutex_lock(&s->conn_mu);
    while (!s->reap_stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)HTTP_REAP_NS;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->reap_cv, &s->conn_mu, &ts);
        /* Not under conn_mu: streams have their own locks. */
        pthread_mutex_unlock(&s->conn_mu);
        streams_keepalive(s);
        pthread_mutex_lock(&s->conn_mu);
        if (s->reap_stop)
            break;
        uint64_t now = core_now_ns();
        for (http_conn *k = s->conns; k && !s->reap_stop; k = k->next)
            if (!k->closing && k->phase != CN_BUSY && now >= k->deadline_ns)
                conn_kill(s, k, &s->timed_out,
                          k->phase == CN_HEADERS ? "no complete request headers in time "
                                                   "(header_timeout)"
                                                 : "no complete body in time (body_timeout)");
    }
    pthread_mutex_unlock(&s->conn_mu);
    return NULL;
}

static void stop_reaper(core_http *s)
{
    if (!s->reaper_started)
        return;
    pthread_mutex_lock(&s->conn_mu);
    s->reap_stop = true;
    pthread_cond_broadcast(&s->reap_cv);
    pthread_mutex_unlock(&s->conn_mu);
    pthread_join(s->reaper, NULL);
    s->reaper_started = false;
}

/* Whether an extra connection (see above) may have this request. */
static bool is_probe(const core_http *s, const char *path)
{
    for (const char *const *p = s->probe_paths; p && *p; p++)
        if (strcmp(path, *p) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

static void rq_free(http_rq *r)
{
    if (r->resp)
        MHD_destroy_response(r->resp);
    core_buf_free(&r->body);
    free(r->uri);
    free(r);
}

static http_rq *rq_new(core_http *s, const char *uri)
{
    http_rq *r = core_xcalloc(1, sizeof *r);
    r->srv = s;
    r->uri = core_xstrdup(uri ? uri : "");
    char *q = strchr(r->uri, '?');
    if (q) {
        *q = 0;
        r->query = q + 1;
    }
    return r;
}

/* The full request target, before libmicrohttpd unescapes it and splits
 * off the query: handlers see the path as it was sent. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    http_rq *r = rq_new(cls, uri);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    /* The connection outlives the request: libmicrohttpd reports a
     * request completed (on_completed) before its connection closed. */
    r->cn = ci ? ci->socket_context : NULL;
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c;
    (void)toe;
    core_http *s = cls;
    http_rq *r = *con_cls;
    if (!r)
        return;
    *con_cls = NULL;
    if (r->counted) {
        pthread_mutex_lock(&s->mu);
        if (--s->inflight == 0)
            pthread_cond_broadcast(&s->idle_cv);
        pthread_mutex_unlock(&s->mu);
    }
    /* Kept alive, the connection may idle for conn_timeout and then has
     * header_timeout for the next request's headers. */
    conn_phase(s, r->cn, CN_HEADERS, s->conn_timeout_ns + s->header_timeout_ns);
    rq_free(r);
}

static struct MHD_Response *make_response(const char *ctype, core_buf *body, int retry_after,
                                          const char *allow, bool close_conn,
                                          const char *const *headers)
{
    struct MHD_Response *mr;
    if (body->len) {
        /* core_buf memory comes from malloc: MHD frees it. */
        mr = MHD_create_response_from_buffer(body->len, body->data, MHD_RESPMEM_MUST_FREE);
        if (mr)
            memset(body, 0, sizeof *body);
    } else {
        mr = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    }
    if (!mr)
        core_panic("http: cannot create a response");
    if (ctype)
        MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (retry_after > 0) {
        char num[24];
        snprintf(num, sizeof num, "%d", retry_after);
        MHD_add_response_header(mr, MHD_HTTP_HEADER_RETRY_AFTER, num);
    }
    if (allow)
        MHD_add_response_header(mr, MHD_HTTP_HEADER_ALLOW, allow);
    if (close_conn)
        MHD_add_response_header(mr, MHD_HTTP_HEADER_CONNECTION, "close");
    for (const char *const *h = headers; h && h[0] && h[1]; h += 2)
        MHD_add_response_header(mr, h[0], h[1]);
    return mr;
}

static enum MHD_Result queue_text(struct MHD_Connection *c, unsigned status, const char *text,
                                  bool close_conn)
{
    core_buf b = {0};
    core_buf_puts(&b, text);
    struct MHD_Response *mr =
        make_response("text/plain; charset=utf-8", &b, 0, NULL, close_conn, NULL);
    core_buf_free(&b);
    enum MHD_Result ret = MHD_queue_response(c, status, mr);
    MHD_destroy_response(mr);
    return ret;
}

/* Whether the request may go on: no token configured, a public path, or
 * "Bearer <token>" (RFC 6750; the scheme is case-insensitive, RFC 9110
 * 11.1). *wrong tells a bad token from none, for the error code. */
static bool authorized(const core_http *s, const char *path, const char *auth, bool *wrong)
{
    *wrong = false;
    if (!s->creds.token)
        return true;
    for (const char *const *p = s->public_paths; p && *p; p++)
        if (strcmp(path, *p) == 0)
            return true;
    if (!auth || strncasecmp(auth, "Bearer", 6) != 0 || (auth[6] != ' ' && auth[6] != '\t'))
        return false;
    *wrong = true;
    const char *t = auth + 7;
    while (*t == ' ' || *t == '\t')
        t++;
    size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        n--;
    return core_ct_equal(t, n, s->creds.token, s->creds.token_len);
}

/* 401, before the body is read (libmicrohttpd then closes the connection
 * if one was announced). The client's address is logged, rarely, never
 * what it sent. */
static enum MHD_Result refuse_401(core_http *s, struct MHD_Connection *c, const char *method,
                                  const char *path, bool wrong)
{
    atomic_fetch_add(&s->requests, 1);
    uint64_t n = atomic_fetch_add(&s->unauthorized, 1) + 1;
    uint64_t now = core_now_ns(), last = atomic_load(&s->last_401_log_ns);
    if ((last == 0 || now - last >= HTTP_REFUSAL_LOG_NS) &&
        atomic_compare_exchange_strong(&s->last_401_log_ns, &last, now)) {
        char peer[INET6_ADDRSTRLEN + 16] = "?";
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (ci && ci->client_addr)
            format_addr(ci->client_addr, peer, sizeof peer);
        core_logf(&s->log, CORE_LOG_WARN,
                  "http %s: %s %s from %s: %s bearer token: 401 (%llu refused so far; logged at "
                  "most every %llu s)",
                  s->addr, method, path, peer, wrong ? "wrong" : "no", (unsigned long long)n,
                  HTTP_REFUSAL_LOG_NS / 1000000000ull);
    }
    core_buf b = {0};
    core_buf_puts(&b, wrong ? "wrong bearer token\n"
                            : "this server needs an Authorization: Bearer token\n");
    struct MHD_Response *mr = make_response("text/plain; charset=utf-8", &b, 0, NULL, false, NULL);
    core_buf_free(&b);
    /* RFC 6750 3.1: no error code when no credentials were sent. */
    MHD_add_response_header(mr, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                            wrong ? "Bearer realm=\"pmrag\", error=\"invalid_token\""
                                  : "Bearer realm=\"pmrag\"");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, mr);
    MHD_destroy_response(mr);
    return ret;
}

static void too_large_text(const core_http *s, char *buf, size_t len)
{
    snprintf(buf, len, "request body larger than %zu bytes\n", s->max_body);
}

/*
 * A 413 in the middle of a chunked upload, written to the socket (see the
 * top of the file). The response is small and the socket's send buffer
 * empty (nothing else was sent for this request but maybe a 100 Continue),
 * so one send() normally takes all of it; if not, the client sees a
 * truncated response or a reset, which it also reads as a failure.
 */
static void send_raw_413(core_http *s, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return;
    char text[96], msg[256];
    too_large_text(s, text, sizeof text);
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 413 Payload Too Large\r\n"
                     "Content-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     strlen(text), text);
    if (n > 0 && (size_t)n < sizeof msg) {
        ssize_t w = send(ci->connect_fd, msg, (size_t)n, MSG_NOSIGNAL);
        (void)w;
    }
    shutdown(ci->connect_fd, SHUT_WR);
}

/* Whether a request may go on as far as the connection limits go: any on
 * a connection within them; on an extra one, a probe, or any once room has
 * been made for it (stalled connections are closed for a request that is
 * here whole before one still trickling in). */
static bool over_limit_ok(core_http *s, http_rq *r)
{
    pthread_mutex_lock(&s->conn_mu);
    if (r->cn->extra && !is_probe(s, r->uri) && admit(s, r->cn))
        r->cn->extra = false;
    bool ok = !r->cn->extra || is_probe(s, r->uri);
    pthread_mutex_unlock(&s->conn_mu);
    return ok;
}

static size_t header_size(const char *v, bool *ok)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    *ok = end != v && !*end && !errno && v[0] != '-';
    return x > SIZE_MAX ? SIZE_MAX : (size_t)x;
}

/* Suspends the connection and hands the request to the pool, unless the
 * server is stopping (then 503). Runs on the polling thread. */
static enum MHD_Result dispatch(core_http *s, http_rq *r, struct MHD_Connection *c,
                                const char *method)
{
    atomic_fetch_add(&s->requests, 1);
    r->conn = c;
    r->method = method;
    r->content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    r->content_encoding =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING);
    r->authorization =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    snprintf(r->client, sizeof r->client, "?");
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr)
        format_addr(ci->client_addr, r->client, sizeof r->client);
    pthread_mutex_lock(&s->mu);
    if (s->closing) {
        pthread_mutex_unlock(&s->mu);
        r->state = RQ_SENT;
        return queue_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "server is stopping\n", true);
    }
    conn_phase(s, r->cn, CN_BUSY, 0);
    /* Suspend before the request can be seen by a pool thread, which
     * resumes it when done. */
    MHD_suspend_connection(c);
    r->state = RQ_DISPATCHED;
    r->counted = true;
    s->inflight++;
    r->next = NULL;
    if (s->tail)
        s->tail->next = r;
    else
        s->head = r;
    s->tail = r;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    return MHD_YES;
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *data,
                                 size_t *size, void **con_cls)
{
    (void)version;
    core_http *s = cls;
    http_rq *r = *con_cls;
    if (!r)
        r = *con_cls = rq_new(s, url); /* not reached: on_uri made it */

    switch (r->state) {
    case RQ_HEADERS: {
        r->state = RQ_BODY;
        conn_phase(s, r->cn, CN_BODY, s->body_timeout_ns);
        if (r->cn && !over_limit_ok(s, r)) {
            r->state = RQ_SENT;
            atomic_fetch_add(&s->requests, 1);
            atomic_fetch_add(&s->over_limit, 1);
            core_buf b = {0};
            core_buf_puts(&b, "too many connections, retry later\n");
            struct MHD_Response *mr =
                make_response("text/plain; charset=utf-8", &b, 1, NULL, true, NULL);
            enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, mr);
            MHD_destroy_response(mr);
            return ret;
        }
        bool wrong;
        if (!authorized(
                s, r->uri,
                MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
                &wrong)) {
            r->state = RQ_SENT;
            return refuse_401(s, c, method, r->uri, wrong);
        }
        const char *te =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
        const char *cl =
            MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && !(te && strcasestr(te, "chunked"))) {
            bool ok;
            size_t n = header_size(cl, &ok);
            if (ok && n > s->max_body) {
                /* Answered before the body is read; MHD then closes the
                 * connection rather than read the body. */
                char text[96];
                too_large_text(s, text, sizeof text);
                core_logf(&s->log, CORE_LOG_NOTE, "http %s: %s %s: Content-Length %zu: 413",
                          s->addr, method, r->uri, n);
                r->state = RQ_SENT;
                atomic_fetch_add(&s->requests, 1);
                atomic_fetch_add(&s->too_large, 1);
                return queue_text(c, MHD_HTTP_CONTENT_TOO_LARGE, text, true);
            }
        }
        if (s->busy && s->busy(s->ud, method, r->uri)) {
            r->state = RQ_SENT;
            atomic_fetch_add(&s->requests, 1);
            core_buf b = {0};
            core_buf_puts(&b, "busy, retry later\n");
            struct MHD_Response *mr =
                make_response("text/plain; charset=utf-8", &b, 1, NULL, true, NULL);
            enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, mr);
            MHD_destroy_response(mr);
            return ret;
        }
        /* The first call has no body data; should a version of
         * libmicrohttpd pass some, it is taken as body below. */
        if (!*size)
            return MHD_YES;
    }
    /* fall through */
    case RQ_BODY:
        if (*size) {
            if (*size > s->max_body - r->body.len) {
                core_logf(&s->log, CORE_LOG_NOTE,
                          "http %s: %s %s: body over %zu bytes: 413, connection closed", s->addr,
                          method, r->uri, s->max_body);
                if (s->tls)
                    r->tls_413 = true;
                else
                    send_raw_413(s, c);
                atomic_fetch_add(&s->requests, 1);
                atomic_fetch_add(&s->too_large, 1);
                r->state = RQ_DISCARD;
                r->dropped = *size;
                *size = 0;
                return MHD_YES;
            }
            core_buf_append(&r->body, data, *size);
            *size = 0;
            return MHD_YES;
        }
        return dispatch(s, r, c, method);
    case RQ_DISCARD:
        /* Closing the connection is the only way out: the 413 is on the
         * wire already (over TLS: it is queued once the body ends). */
        if (*size && r->dropped < HTTP_LINGER_BYTES) {
            r->dropped += *size;
            *size = 0;
            return MHD_YES;
        }
        if (!*size && r->tls_413) {
            /* The body ended: now libmicrohttpd can send the answer. */
            char text[96];
            too_large_text(s, text, sizeof text);
            r->state = RQ_SENT;
            return queue_text(c, MHD_HTTP_CONTENT_TOO_LARGE, text, true);
        }
        return MHD_NO;
    case RQ_READY: {
        r->state = RQ_SENT;
        enum MHD_Result ret = MHD_queue_response(c, r->status, r->resp);
        MHD_destroy_response(r->resp);
        r->resp = NULL;
        return ret;
    }
    case RQ_DISPATCHED:
    case RQ_SENT:
        break;
    }
    return MHD_NO; /* not reached */
}

/* ------------------------------------------------------------------ */
/* Streamed responses                                                  */
/* ------------------------------------------------------------------ */

core_http_stream *core_http_stream_new(core_http_resp *resp, size_t max_queued,
                                       const char *keepalive)
{
    core_http_stream *st = core_xcalloc(1, sizeof *st);
    pthread_mutex_init(&st->mu, NULL);
    st->max = max_queued ? max_queued : HTTP_STREAM_MAX_QUEUED;
    st->keepalive = keepalive ? core_xstrdup(keepalive) : NULL;
    st->last_ns = core_now_ns();
    st->refs = 2; /* the caller's, and the response's (given back if never attached) */
    if (resp->body.len) {
        core_buf_append(&st->q, resp->body.data, resp->body.len);
        core_buf_reset(&resp->body);
    }
    resp->stream = st;
    if (!resp->status)
        resp->status = 200;
    return st;
}

static void stream_unref(core_http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    bool last = --st->refs == 0;
    pthread_mutex_unlock(&st->mu);
    if (!last)
        return;
    pthread_mutex_destroy(&st->mu);
    core_buf_free(&st->q);
    free(st->keepalive);
    free(st);
}

/* Under st->mu: lets the polling thread at a waiting stream again. */
static void stream_wake(core_http_stream *st)
{
    if (st->suspended && !st->gone) {
        st->suspended = false;
        MHD_resume_connection(st->conn);
    }
}

int core_http_stream_send(core_http_stream *st, const void *p, size_t n)
{
    pthread_mutex_lock(&st->mu);
    int rc = 0;
    if (st->gone || st->ended) {
        rc = st->failed ? CORE_ELIMIT : -EPIPE;
    } else if (st->q.len - st->off + n > st->max) {
        st->failed = st->ended = true;
        rc = CORE_ELIMIT;
    } else {
        if (st->off == st->q.len) {
            core_buf_reset(&st->q);
            st->off = 0;
        }
        core_buf_append(&st->q, p, n);
        st->last_ns = core_now_ns();
    }
    stream_wake(st);
    pthread_mutex_unlock(&st->mu);
    return rc;
}

bool core_http_stream_closed(core_http_stream *st)
{
    pthread_mutex_lock(&st->mu);
    bool closed = st->gone || st->ended;
    pthread_mutex_unlock(&st->mu);
    return closed;
}

void core_http_stream_end(core_http_stream *st)
{
    if (!st)
        return;
    pthread_mutex_lock(&st->mu);
    st->ended = true;
    stream_wake(st);
    pthread_mutex_unlock(&st->mu);
    stream_unref(st);
}

/* libmicrohttpd's content reader (polling thread). */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    core_http_stream *st = cls;
    pthread_mutex_lock(&st->mu);
    ssize_t n;
    if (st->failed) {
        n = MHD_CONTENT_READER_END_WITH_ERROR;
    } else if (st->q.len > st->off) {
        size_t k = st->q.len - st->off < max ? st->q.len - st->off : max;
        memcpy(buf, st->q.data + st->off, k);
        st->off += k;
        st->last_ns = core_now_ns();
        n = (ssize_t)k;
    } else if (st->ended) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* Nothing to send: out of the loop until stream_wake. */
        st->suspended = true;
        MHD_suspend_connection(st->conn);
        n = 0;
    }
    pthread_mutex_unlock(&st->mu);
    return n;
}

/* libmicrohttpd is done with the response (sent, or the client went). */
static void stream_gone(void *cls)
{
    core_http_stream *st = cls;
    core_http *s = st->srv;
    pthread_mutex_lock(&s->st_mu);
    pthread_mutex_lock(&st->mu);
    st->gone = true;
    st->suspended = false;
    if (st->prev)
        st->prev->next = st->next;
    else
        s->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
    pthread_mutex_unlock(&st->mu);
    pthread_mutex_unlock(&s->st_mu);
    atomic_fetch_sub(&s->nstreams, 1);
    stream_unref(st);
}

/* The response of a stream (pool thread, after the handler). */
static struct MHD_Response *stream_response(core_http *s, http_rq *r, core_http_stream *st,
                                            const char *ctype)
{
    struct MHD_Response *mr =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_gone);
    if (!mr)
        core_panic("http: cannot create a response");
    if (ctype)
        MHD_add_response_header(mr, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(mr, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    /* Proxies that buffer (nginx) would hold the events back. */
    MHD_add_response_header(mr, "X-Accel-Buffering", "no");
    pthread_mutex_lock(&s->st_mu);
    pthread_mutex_lock(&st->mu);
    st->srv = s;
    st->conn = r->conn;
    if (s->streams_closed)
        st->ended = true;
    pthread_mutex_unlock(&st->mu);
    st->prev = NULL;
    st->next = s->streams;
    if (s->streams)
        s->streams->prev = st;
    s->streams = st;
    pthread_mutex_unlock(&s->st_mu);
    atomic_fetch_add(&s->nstreams, 1);
    return mr;
}

/* The reaper's round: idle streams get their keepalive text. */
static void streams_keepalive(core_http *s)
{
    uint64_t now = core_now_ns();
    pthread_mutex_lock(&s->st_mu);
    for (core_http_stream *st = s->streams; st; st = st->next) {
        pthread_mutex_lock(&st->mu);
        if (st->keepalive && !st->ended && !st->gone && st->q.len == st->off &&
            now - st->last_ns >= HTTP_STREAM_KEEPALIVE_NS) {
            core_buf_puts(&st->q, st->keepalive);
            st->last_ns = now;
            stream_wake(st);
        }
        pthread_mutex_unlock(&st->mu);
    }
    pthread_mutex_unlock(&s->st_mu);
}

/* Ends every stream (stop), and any made from now on. */
static void streams_close(core_http *s)
{
    pthread_mutex_lock(&s->st_mu);
    s->streams_closed = true;
    for (core_http_stream *st = s->streams; st; st = st->next) {
        pthread_mutex_lock(&st->mu);
        st->ended = true;
        stream_wake(st);
        pthread_mutex_unlock(&st->mu);
    }
    pthread_mutex_unlock(&s->st_mu);
}

/* ------------------------------------------------------------------ */
/* Handler pool                                                        */
/* ------------------------------------------------------------------ */

static void run_handler(core_http *s, http_rq *r, bool closing)
{
    core_http_req q = {
        .method = r->method,
        .path = r->uri,
        .query = r->query,
        .content_type = r->content_type,
        .content_encoding = r->content_encoding,
        .authorization = r->authorization,
        .client = r->client,
        .body = r->body.data ? r->body.data : "",
        .len = r->body.len,
    };
    core_http_resp resp = {0};
    s->h(s->ud, &q, &resp);
    if (resp.stream && resp.status >= 100 && resp.status <= 599) {
        r->resp = stream_response(s, r, resp.stream, resp.content_type);
        r->status = (unsigned)resp.status;
        core_buf_free(&resp.body);
        return;
    }
    if (resp.stream) {
        /* Never attached: the caller's end frees it; the response's
         * reference goes here. */
        resp.stream->gone = true;
        stream_unref(resp.stream);
    }
    if (resp.status < 100 || resp.status > 599) {
        core_logf(&s->log, CORE_LOG_ERROR, "http %s: %s %s: handler gave status %d", s->addr,
                  r->method, r->uri, resp.status);
        core_buf_reset(&resp.body);
        core_buf_puts(&resp.body, "internal error\n");
        resp.status = 500;
        resp.content_type = NULL;
    }
    const char *ctype = resp.content_type;
    if (!ctype && resp.body.len)
        ctype = "text/plain; charset=utf-8";
    r->resp = make_response(ctype, &resp.body, resp.retry_after, resp.allow, closing, resp.headers);
    r->status = (unsigned)resp.status;
    core_buf_free(&resp.body);
}

static void *worker_main(void *arg)
{
    core_http *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->head && !s->stopping)
            pthread_cond_wait(&s->work_cv, &s->mu);
        http_rq *r = s->head;
        if (!r) {
            pthread_mutex_unlock(&s->mu);
            return NULL;
        }
        s->head = r->next;
        if (!s->head)
            s->tail = NULL;
        bool closing = s->closing;
        pthread_mutex_unlock(&s->mu);

        run_handler(s, r, closing);
        r->state = RQ_READY;
        /* From here on the request belongs to the polling thread again. */
        MHD_resume_connection(r->conn);
    }
}

/* ------------------------------------------------------------------ */
/* Start and stop                                                      */
/* ------------------------------------------------------------------ */

static void on_mhd_log(void *cls, const char *fmt, va_list ap) CORE_PRINTF(2, 0);
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    core_http *s = cls;
    pthread_mutex_lock(&s->log_mu);
    bool capture = s->capture;
    pthread_mutex_unlock(&s->log_mu);
    if (!capture && (!s->log.fn || s->log.min > CORE_LOG_DEBUG))
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
        msg[--n] = 0;
    if (capture) {
        /* Every message of a failed start, in order: the first usually
         * says what, the last that it gave up. */
        pthread_mutex_lock(&s->log_mu);
        size_t used = strlen(s->mhd_error);
        snprintf(s->mhd_error + used, sizeof s->mhd_error - used, "%s%s", used ? "; " : "", msg);
        pthread_mutex_unlock(&s->log_mu);
    }
    core_logf(&s->log, CORE_LOG_DEBUG, "http %s: libmicrohttpd: %s", s->addr, msg);
}

static void stop_workers(core_http *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    for (unsigned i = 0; i < s->nworkers; i++)
        pthread_join(s->workers[i], NULL);
    s->nworkers = 0;
}

static void server_free(core_http *s)
{
    core_creds_free(&s->creds);
    free(s->workers);
    pthread_cond_destroy(&s->reap_cv);
    pthread_mutex_destroy(&s->conn_mu);
    pthread_cond_destroy(&s->idle_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->log_mu);
    pthread_mutex_destroy(&s->st_mu);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* A server's settings from o, with their defaults, and its locks; nothing
 * started. */
static core_http *server_new(const core_http_opts *o, core_http_handler h, void *ud)
{
    core_http *s = core_xcalloc(1, sizeof *s);
    s->h = h;
    s->ud = ud;
    s->max_body = o->max_body ? o->max_body : HTTP_DEFAULT_MAX_BODY;
    s->log = o->log;
    snprintf(s->name, sizeof s->name, "%s", o->name ? o->name : "server");
    s->public_paths = o->public_paths;
    s->busy = o->busy;
    s->probe_paths = o->probe_paths;
    const core_http_limits *l = &o->limits;
    s->max_conns = l->max_conns ? l->max_conns : HTTP_DEFAULT_MAX_CONNS;
    s->max_per_addr = l->max_conns_per_addr;
    unsigned conn_timeout = l->conn_timeout ? l->conn_timeout : HTTP_DEFAULT_CONN_TIMEOUT;
    s->conn_timeout_ns = conn_timeout * 1000000000ull;
    s->header_timeout_ns =
        (l->header_timeout ? l->header_timeout : HTTP_DEFAULT_HEADER_TIMEOUT) * 1000000000ull;
    s->body_timeout_ns =
        (l->body_timeout ? l->body_timeout : HTTP_DEFAULT_BODY_TIMEOUT) * 1000000000ull;
    pthread_mutex_init(&s->conn_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->reap_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->st_mu, NULL);
    pthread_mutex_init(&s->log_mu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->idle_cv, NULL);
    return s;
}

/* The worker threads and the reaper; 0 or the error, said. */
static int start_threads(core_http *s, const core_http_opts *o, char *why, size_t whylen)
{
    unsigned want = o->threads ? o->threads : HTTP_DEFAULT_THREADS;
    s->workers = core_xcalloc(want, sizeof *s->workers);
    for (unsigned i = 0; i < want; i++) {
        int rc = pthread_create(&s->workers[i], NULL, worker_main, s);
        if (rc) {
            return core_fail(why, whylen, -rc, "listen %s: cannot start a thread: %s", o->listen,
                             core_strerror(-rc));
        }
        s->nworkers++;
    }
    int rc = pthread_create(&s->reaper, NULL, reaper_main, s);
    if (rc) {
        return core_fail(why, whylen, -rc, "listen %s: cannot start a thread: %s", o->listen,
                         core_strerror(-rc));
    }
    s->reaper_started = true;
    return 0;
}

/* libmicrohttpd on the listening socket *fd (which it owns from then on:
 * *fd is -1 after a failure too); 0 or the error, said. */
static int start_daemon(core_http *s, const core_http_opts *o, int *fd, char *why, size_t whylen)
{
    unsigned conn_timeout = (unsigned)(s->conn_timeout_ns / 1000000000ull);
    int err;
    /* libmicrohttpd's limit is the hard one; ours (max_conns) is kept by
     * closing stalled connections, and the reserve is for probes. */
    unsigned hard_limit = s->max_conns + HTTP_PROBE_RESERVE;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    struct MHD_OptionItem tls_opts[] = {
        {MHD_OPTION_HTTPS_MEM_KEY, 0, s->creds.key_pem},
        {MHD_OPTION_HTTPS_MEM_CERT, 0, s->creds.cert_pem},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)HTTP_TLS_PRIORITIES},
        {MHD_OPTION_END, 0, NULL},
    };
    if (s->tls)
        flags |= MHD_USE_TLS;
    else
        tls_opts[0].option = MHD_OPTION_END;
    /* libmicrohttpd says why it cannot start (a key that does not match
     * the certificate, say) only to its logger. */
    pthread_mutex_lock(&s->log_mu);
    s->capture = true;
    pthread_mutex_unlock(&s->log_mu);
    /* The logger comes first so that libmicrohttpd never prints on its
     * own while the other options are read. */
    s->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_access, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)*fd, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection,
        s, MHD_OPTION_CONNECTION_TIMEOUT, conn_timeout, MHD_OPTION_CONNECTION_LIMIT, hard_limit,
        MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    pthread_mutex_lock(&s->log_mu);
    s->capture = false;
    pthread_mutex_unlock(&s->log_mu);
    if (!s->d) {
        if (s->tls)
            err = core_fail(why, whylen, CORE_EUSAGE, "listen %s: tls_cert %s, tls_key %s: %s",
                            o->listen, o->tls_cert, o->tls_key,
                            s->mhd_error[0] ? s->mhd_error : "libmicrohttpd cannot use them");
        else
            err = core_fail(why, whylen, -EIO, "listen %s: libmicrohttpd failed to start%s%s",
                            o->listen, s->mhd_error[0] ? ": " : "", s->mhd_error);
        /* Whether libmicrohttpd closed the socket it was given on its way
         * out is not documented: leak it rather than risk closing a
         * number another thread has reused since. */
        *fd = -1;
        return err;
    }
    return 0;
}

int core_http_start(const core_http_opts *o, core_http_handler h, void *ud, core_http **out,
                    char *why, size_t whylen)
{
    if (!o || !h || !out)
        return core_fail(why, whylen, CORE_EUSAGE, "core_http_start: missing argument");
    core_http *s = server_new(o, h, ud);
    /* A certificate is refused with this, before its file is read, when
     * libmicrohttpd cannot serve TLS. */
    char no_tls[160] = "";
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        snprintf(no_tls, sizeof no_tls,
                 "this libmicrohttpd (%s) was built without TLS support (GnuTLS)",
                 MHD_get_version());
    /* The files first: a mistake in them is found before anything
     * listens. */
    core_creds_opts co = {.listen = o->listen,
                          .token_file = o->token_file,
                          .tls_cert = o->tls_cert,
                          .tls_key = o->tls_key,
                          .no_tls = no_tls[0] ? no_tls : NULL};
    int fd = -1;
    int err = core_creds_load(&co, &s->log, &s->creds, why, whylen);
    if (err)
        goto fail_free;
    s->tls = s->creds.cert_pem != NULL;
    err = core_listen_tcp(o->listen, &fd, s->addr, sizeof s->addr, why, whylen);
    if (err)
        goto fail_free;

    err = start_threads(s, o, why, whylen);
    if (err)
        goto fail_workers;
    err = start_daemon(s, o, &fd, why, whylen);
    if (err)
        goto fail_workers;
    core_logf(&s->log, CORE_LOG_INFO, "http: %s listening on %s (%s%s)", s->name, s->addr,
              s->tls ? "HTTPS" : "plain HTTP", s->creds.token ? ", bearer token" : "");
    *out = s;
    return 0;

fail_workers:
    stop_reaper(s);
    stop_workers(s);
    if (fd >= 0)
        close(fd);
fail_free:
    server_free(s);
    return err;
}

const char *core_http_address(const core_http *s)
{
    return s->addr;
}

void core_http_get_stats(const core_http *s, core_http_stats *out)
{
    core_http *m = (core_http *)s; /* atomics are only read */
    out->requests = atomic_load(&m->requests);
    out->too_large = atomic_load(&m->too_large);
    out->unauthorized = atomic_load(&m->unauthorized);
    out->timed_out = atomic_load(&m->timed_out);
    out->evicted = atomic_load(&m->evicted);
    out->over_limit = atomic_load(&m->over_limit);
    out->streams = atomic_load(&m->nstreams);
}

void core_http_stop(core_http *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    pthread_mutex_unlock(&s->mu);
    /* Refuse new connections at once; the ones open go on. */
    MHD_socket lfd = MHD_quiesce_daemon(s->d);
    if (lfd != MHD_INVALID_SOCKET)
        close(lfd);
    /* Streams would keep their requests in flight for ever. */
    streams_close(s);
    /* Every dispatched request is answered (its handler returns and the
     * response is sent, or the client goes away or times out). With
     * `closing` set nothing new is dispatched, so this ends. */
    pthread_mutex_lock(&s->mu);
    while (s->inflight)
        pthread_cond_wait(&s->idle_cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    stop_workers(s);
    stop_reaper(s);
    MHD_stop_daemon(s->d);
    core_logf(&s->log, CORE_LOG_INFO, "http: %s stopped listening on %s", s->name, s->addr);
    server_free(s);
}
