/*
 * core_http.h - the HTTP/1.1 server the OTLP/HTTP receiver and the API
 * share (libmicrohttpd underneath): bearer tokens, TLS, limits.
 *
 * Threading and ownership are described with core_http_start below: the
 * handler runs on the server's own threads, concurrently; the options'
 * strings are read at start (the probes list is borrowed until stop).
 */
#ifndef PMRAG_CORE_HTTP_H
#define PMRAG_CORE_HTTP_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* HTTP server                                                         */
/* ------------------------------------------------------------------ */

/*
 * A small HTTP/1.1 server (libmicrohttpd underneath) for the OTLP/HTTP
 * receiver and the daemon's API.
 *
 * Threads: one internal thread does all socket I/O; handlers run on a pool
 * of `threads` threads of the server's own, once per request, after the
 * whole body arrived (Content-Length or chunked). A handler may block (the
 * daemon answers only after its state commit): that holds one pool thread,
 * never the other connections' I/O, so at most `threads` handlers run at
 * once and further complete requests wait in a queue. Handlers therefore
 * run concurrently and must be thread-safe.
 *
 * Limits: a body over max_body is answered 413 and the connection closed:
 * at once when Content-Length says so, or as soon as a chunked body passes
 * the limit (the rest is not stored; over TLS the 413 comes when the body
 * ends, or the connection is closed without one when more than 4 MiB
 * follow).
 *
 * Slow clients (core_http_limits): a connection silent for conn_timeout
 * seconds is closed; so is one whose request line and headers have not all
 * arrived header_timeout seconds after it opened (or, kept alive, after its
 * previous response plus conn_timeout), or whose body has not all arrived
 * body_timeout seconds after its headers: trickling a byte now and then
 * does not keep a connection. When a new connection would pass max_conns,
 * or max_conns_per_addr from its client address, the oldest connection
 * still waiting for its headers (then the oldest still receiving a body;
 * of that address for the per-address limit) is closed to make room: a
 * flood of stalled connections costs complete requests nothing. Should
 * every connection be busy with a complete request, a few more (8) are
 * still accepted, but they may only ask for probe_paths (others get 503 +
 * Retry-After: 1 and the connection closed), so that health checks are
 * answered when everything else is taken.
 *
 * Authentication: with a token_file, every request but those to
 * public_paths must carry "Authorization: Bearer <token>" (the scheme in
 * any case); others are answered 401 with WWW-Authenticate: Bearer as soon
 * as their headers arrive (before any body is read, and before the 413
 * check), and never reach the handler. The token is compared in constant
 * time and never logged.
 *
 * TLS: with tls_cert and tls_key the listener speaks HTTPS only (TLS 1.2
 * and 1.3, through libmicrohttpd's GnuTLS).
 */
typedef struct core_http core_http;

/* One request, valid only during the handler call. */
typedef struct core_http_req {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* as sent (not percent-decoded), without the query */
    const char *query;        /* after '?', as sent; NULL when there is none */
    const char *content_type; /* header values, NULL when absent */
    const char *content_encoding;
    const char *authorization;
    const char *client; /* the peer's address ("ip:port"), for logs */
    const char *body;   /* never NULL; len bytes (followed by a NUL, not counted) */
    size_t len;
} core_http_req;

typedef struct core_http_stream core_http_stream;

/* What the handler fills in; it starts zeroed. */
typedef struct core_http_resp {
    int status; /* 100..599; anything else is logged and sent as 500 */
    /* Borrowed until the handler returns. NULL: text/plain when there is
     * a body, no header when there is none. */
    const char *content_type;
    core_buf body;     /* the server takes it over and frees it */
    int retry_after;   /* seconds for a Retry-After header; 0: none */
    const char *allow; /* Allow header (for 405), borrowed until the handler returns; NULL: none */
    core_http_stream *stream; /* set by core_http_stream_new: the body is streamed */
    /* More headers: name, value, name, value, ..., NULL; borrowed until
     * the handler returns (static strings, usually). NULL: none. */
    const char *const *headers;
} core_http_resp;

typedef void (*core_http_handler)(void *ud, const core_http_req *req, core_http_resp *resp);

/*
 * Streamed responses (Server-Sent Events). A handler that calls
 * core_http_stream_new answers with a body of unknown length (chunked),
 * fed later, from any thread, with core_http_stream_send: the connection
 * then holds no handler thread, and while nothing is queued it is out of
 * the polling loop altogether (suspended), so an idle stream costs a
 * socket and this struct. Whatever the handler put in resp->body is sent
 * first. After 15 seconds without data the keepalive text is
 * sent, which is also how a client that went away is noticed. The
 * connection stays in the server's connection count while it streams.
 *
 * Ownership: core_http_stream_new returns the caller's reference; the
 * caller must give it back with core_http_stream_end exactly once (which
 * ends the body after what is queued) and not use the stream after. Send
 * and end may be called from any thread, concurrently with each other.
 * core_http_stop ends every stream (the client sees the body end) before
 * it returns; sends after that fail.
 */
/* Makes resp a streamed response (status 200 unless the handler says
 * otherwise). max_queued: bytes queued and not yet sent past which the
 * client is too slow (0: 1 MiB); keepalive: text sent when idle (copied;
 * NULL: none). */
core_http_stream *core_http_stream_new(core_http_resp *resp, size_t max_queued,
                                       const char *keepalive);
/* Queues n bytes. 0; -EPIPE when the stream has ended (the client went
 * away, core_http_stream_end or core_http_stop); CORE_ELIMIT when the
 * client is too slow (more than max_queued waiting): the stream is then
 * ended and closed, nothing more will be sent. */
int core_http_stream_send(core_http_stream *st, const void *p, size_t n);
/* Whether send would fail with -EPIPE or CORE_ELIMIT (a hint: the client
 * may go at any time). */
bool core_http_stream_closed(core_http_stream *st);
/* Ends the body once what is queued is sent, and gives back the caller's
 * reference. */
void core_http_stream_end(core_http_stream *st);

/* Connection limits (see core_http above); a zero field takes its
 * default. */
typedef struct core_http_limits {
    unsigned max_conns;          /* open connections; 0: 256 */
    unsigned max_conns_per_addr; /* from one client address; 0: no limit of its own */
    unsigned conn_timeout;       /* seconds of silence; 0: 30 */
    unsigned header_timeout;     /* seconds for a request line and headers; 0: 10 */
    unsigned body_timeout;       /* seconds for a body after its headers; 0: 60 */
} core_http_limits;

typedef struct core_http_opts {
    /* "host:port", "[v6]:port", or ":port" for the wildcard address
     * getaddrinfo gives first (usually 0.0.0.0; "[::]:port" for IPv6). The
     * host is a name or a literal, looked up with getaddrinfo; the first
     * address that binds is used. Port 0 picks a free port (see
     * core_http_address). */
    const char *listen;
    /* What the server is for, in its log lines ("http: NAME listening on
     * ADDR"), so that a process with several servers says which address
     * is which; copied. NULL: "server". */
    const char *name;
    size_t max_body;  /* bytes; 0 = 64 MiB */
    unsigned threads; /* handler threads; 0 = 2 */
    core_http_limits limits;
    core_logger log; /* copied; its callback is called from the server's threads */
    /* A file whose one line is the bearer token clients must send
     * (surrounding white space and the line end are not part of it); read
     * once by core_http_start. NULL or "": no authentication. */
    const char *token_file;
    /* Paths (exact, as sent, without the query) open without the token,
     * e.g. health checks; NULL-terminated, borrowed until core_http_stop.
     * NULL: none. */
    const char *const *public_paths;
    /* Paths (exact, as sent) a connection past limits.max_conns may ask
     * for: the health checks; NULL-terminated, borrowed until
     * core_http_stop. NULL: none (such connections are all answered 503). */
    const char *const *probe_paths;
    /* PEM files: the certificate (then its chain) and its private key
     * (not encrypted); both or neither. Read once by core_http_start. */
    const char *tls_cert;
    const char *tls_key;
    /* Asked (with core_http_start's ud) when a request's headers have
     * arrived, after the token check: true answers 503 with Retry-After:
     * 1 at once and closes the connection without reading the body, so
     * that refusing a request costs no memory. NULL: never. */
    bool (*busy)(void *ud, const char *method, const char *path);
} core_http_opts;

/*
 * Binds, listens and starts the threads. On success *out is owned by the
 * caller (core_http_stop) and h(ud, ...) may be called at once. Errors name
 * the address: CORE_EUSAGE for "listen foo: not host:port" or a name that
 * does not resolve, a negated errno from bind/listen
 * ("listen 127.0.0.1:4318: Address already in use"); and the file for a
 * token, certificate or key that cannot be read or used ("listen
 * 127.0.0.1:4318: token_file /etc/pmrag/token: No such file or
 * directory"). A token or key file that group or others may read is
 * logged as a warning.
 */
int core_http_start(const core_http_opts *o, core_http_handler h, void *ud, core_http **out,
                    char *why, size_t whylen);

/* The bound address as "host:port" or "[v6]:port", with the real port
 * when 0 was asked. Valid until core_http_stop. */
const char *core_http_address(const core_http *s);

typedef struct core_http_stats {
    uint64_t requests;     /* requests received whole or refused (413, 401) */
    uint64_t too_large;    /* refused with 413 by the server (never reached the handler) */
    uint64_t unauthorized; /* refused with 401 (never reached the handler) */
    uint64_t timed_out;    /* connections closed for header_timeout or body_timeout */
    uint64_t evicted;      /* stalled connections closed to make room for a new one */
    uint64_t over_limit;   /* requests refused with 503 on a connection past the limits */
    uint64_t streams;      /* streamed responses open now */
} core_http_stats;

/* A snapshot of the counters (each atomic). Any thread, until stop. */
void core_http_get_stats(const core_http *s, core_http_stats *out);

/*
 * Stops accepting connections, lets every request whose handler was
 * called (or queued) finish and its response be sent (a request whose body
 * is still arriving gets 503; responses from then on say Connection:
 * close), then closes every connection, joins the threads and frees s.
 * Blocks as long as the handlers do. s may be NULL. Not from a handler.
 */
void core_http_stop(core_http *s);

/*
 * The pieces of core_http_start that other servers (the OTLP/gRPC
 * receiver) share, with the same rules and error texts.
 *
 * core_listen_tcp binds and listens on spec (core_http_opts.listen's
 * forms) with a non-blocking, close-on-exec socket: 0 with *fd (owned by
 * the caller) and the bound "host:port" in addr (the real port when 0 was
 * asked), or an error naming the address.
 */
int core_listen_tcp(const char *spec, int *fd, char *addr, size_t addrlen, char *why,
                    size_t whylen);

/* What core_creds_load reads: core_http_opts' fields of the same names. */
typedef struct core_creds_opts {
    const char *listen; /* named in errors and warnings; NULL: "" */
    const char *token_file;
    const char *tls_cert;
    const char *tls_key;
    /* NULL, or why the server cannot serve TLS (its library was built
     * without it): a certificate and key given are then refused with this
     * text, before their files are read. */
    const char *no_tls;
} core_creds_opts;

/* A server's token, certificate and key; each NUL-terminated. */
typedef struct core_creds {
    char *token; /* NULL: no token_file */
    size_t token_len;
    char *cert_pem; /* certificate (and chain); NULL: no TLS */
    size_t cert_len;
    char *key_pem; /* its unencrypted private key; NULL: no TLS */
    size_t key_len;
} core_creds;

/*
 * Reads what a server needs before it listens, so that a mistake in a file
 * is found before anything is bound: the token_file when one is given
 * (not NULL or ""), then the certificate and key when either is (both are
 * then required). The rules are core_http_opts': the token is the file's
 * one line of visible ASCII; a PEM certificate, an unencrypted PEM key; a
 * file group or others may read is worth a warning to log, not a refusal.
 * Returns 0 with *c (owned by the caller: core_creds_free), or an error
 * naming listen and the option and file at fault, with *c empty.
 */
int core_creds_load(const core_creds_opts *o, const core_logger *log, core_creds *c, char *why,
                    size_t whylen);
/* Frees what c holds, the secrets overwritten first; c is left empty (a
 * field taken over may be set to NULL beforehand). */
void core_creds_free(core_creds *c);
/* Overwrites n bytes of p, then frees it; p may be NULL. */
void core_secret_free(char *p, size_t n);

/*
 * Whether a (alen bytes) equals b (blen bytes), in a time that depends on
 * blen and not on where they differ: pass the secret as b and what a
 * client sent as a. Any thread.
 */
bool core_ct_equal(const void *a, size_t alen, const void *b, size_t blen);
/* Whether a configuration key (a librdkafka property, say) names a
 * credential or key material, whose value must never be shown:
 * password, secret, token, jaas, key, credential, pem,
 * oauthbearer.config. Over-matching (ssl.key.location) costs nothing. */
bool core_key_is_secret(const char *key);

#ifdef __cplusplus
}
#endif
#endif
