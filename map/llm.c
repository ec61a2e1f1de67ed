/*
 * The external command: activities sent in batches to a user's command
 * (an LLM behind a script), which answers in JSON with the symbols that
 * emit them (map_llm_map, map.h).
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np, pipe2 */
#include "map_int.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* External command                                                    */
/* ------------------------------------------------------------------ */

#define LLM_MAX_RESPONSE (16u << 20)
#define LLM_STDERR_KEEP 200

typedef struct {
    core_buf out;                  /* stdout */
    char err[LLM_STDERR_KEEP + 1]; /* the first bytes of stderr */
    size_t errlen;
} llm_run;

/* Moves fd to 3 or above (so that the child's dup2 onto 0-2 cannot clobber
 * another of our descriptors); keeps close-on-exec. */
static int fd_above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int e = errno;
    close(fd);
    errno = e;
    return nfd;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Waits for pid until the deadline (ns); 0, or -ETIMEDOUT (not reaped). */
static int wait_until(pid_t pid, int *status, uint64_t deadline)
{
    unsigned nap = 1;
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid)
            return 0;
        if (w < 0 && errno != EINTR)
            return -errno;
        if (core_now_ns() >= deadline)
            return -ETIMEDOUT;
        poll(NULL, 0, (int)nap);
        nap = nap < 16 ? nap * 2 : 16;
    }
}

static void kill_and_reap(pid_t pid)
{
    int st;
    kill(-pid, SIGKILL); /* the whole process group: sh and what it started */
    kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
}

static void keep_stderr(llm_run *run, const char *buf, size_t n)
{
    size_t room = LLM_STDERR_KEEP - run->errlen;
    if (n > room)
        n = room;
    /* For a one-line message: newlines and other controls become spaces. */
    for (size_t i = 0; i < n; i++)
        run->err[run->errlen++] = (unsigned char)buf[i] < 0x20 ? ' ' : buf[i];
    run->err[run->errlen] = 0;
}

/*
 * Runs /bin/sh -c cmd in a process group of its own with req on its stdin,
 * collecting stdout and the start of stderr. Writing and reading go through
 * one poll() loop, so a command that prints before it reads (or never
 * reads) cannot deadlock against a large request. Returns 0 once the
 * command has exited with status 0, else a code and the reason in why.
 */
/* The command's three pipes (in: we write, it reads; out and err: it
 * writes), each end at descriptor 3 or above, close-on-exec. */
typedef struct llm_pipes {
    int in[2], out[2], err[2];
} llm_pipes;

static void pipes_close(llm_pipes *p)
{
    for (size_t i = 0; i < 2; i++) {
        close_fd(&p->in[i]);
        close_fd(&p->out[i]);
        close_fd(&p->err[i]);
    }
}

static int pipes_open(llm_pipes *p, char *why, size_t whylen)
{
    *p = (llm_pipes){{-1, -1}, {-1, -1}, {-1, -1}};
    int rc = 0;
    if (pipe2(p->in, O_CLOEXEC) || pipe2(p->out, O_CLOEXEC) || pipe2(p->err, O_CLOEXEC))
        rc = -errno;
    int *fds[] = {&p->in[0], &p->in[1], &p->out[0], &p->out[1], &p->err[0], &p->err[1]};
    for (size_t i = 0; !rc && i < 6; i++)
        if ((*fds[i] = fd_above_stdio(*fds[i])) < 0)
            rc = -errno;
    if (rc) {
        snprintf(why, whylen, "cannot make pipes: %s", strerror(-rc));
        pipes_close(p);
    }
    return rc;
}

/* Starts `/bin/sh -c cmd` on the pipes, in a process group of its own,
 * with the signals it may inherit set back to their defaults. */
static int spawn_shell(const char *cmd, const llm_pipes *p, pid_t *pid, char *why, size_t whylen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p->in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, p->out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p->err[1], 2);
    /* Nothing else of ours leaks into the command, close-on-exec or not. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_init(&attr);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    static const int reset[] = {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&dfl, reset[i]);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    int err = posix_spawn(pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err) {
        snprintf(why, whylen, "cannot run /bin/sh: %s", strerror(err));
        return -err;
    }
    return 0;
}

/*
 * Writes the request to the command's stdin while reading its stdout
 * (into run->out, up to LLM_MAX_RESPONSE) and stderr (its start kept),
 * until both close or the deadline passes (-ETIMEDOUT). A command that
 * exits without reading all of its stdin makes our write fail with EPIPE;
 * the signal that comes with it is blocked in this thread and taken back
 * afterwards, so the process's own SIGPIPE handling is left as it was.
 * Closes our ends of the pipes.
 */
static int exchange(llm_pipes *p, const char *req, size_t reqlen, uint64_t deadline, llm_run *run,
                    char *why, size_t whylen)
{
    sigset_t pipe_set, old_mask, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
    sigpending(&pending);
    bool pipe_was_pending = sigismember(&pending, SIGPIPE), got_epipe = false;

    int rc = 0;
    size_t off = 0;
    if (reqlen == 0)
        close_fd(&p->in[1]);
    char buf[1 << 16];
    while (rc == 0 && (p->out[0] >= 0 || p->err[0] >= 0)) {
        struct pollfd pf[3];
        int *who[3];
        nfds_t k = 0;
        if (p->in[1] >= 0) {
            pf[k] = (struct pollfd){p->in[1], POLLOUT, 0};
            who[k++] = &p->in[1];
        }
        if (p->out[0] >= 0) {
            pf[k] = (struct pollfd){p->out[0], POLLIN, 0};
            who[k++] = &p->out[0];
        }
        if (p->err[0] >= 0) {
            pf[k] = (struct pollfd){p->err[0], POLLIN, 0};
            who[k++] = &p->err[0];
        }
        uint64_t now = core_now_ns();
        if (now >= deadline) {
            rc = -ETIMEDOUT;
            break;
        }
        int n = poll(pf, k, (int)((deadline - now + 999999) / 1000000));
        if (n < 0 && errno != EINTR) {
            rc = -errno;
            snprintf(why, whylen, "poll: %s", strerror(errno));
        }
        for (nfds_t i = 0; n > 0 && i < k; i++) {
            if (!pf[i].revents)
                continue;
            if (who[i] == &p->in[1]) {
                size_t want = reqlen - off < sizeof buf ? reqlen - off : sizeof buf;
                ssize_t w = write(p->in[1], req + off, want);
                if (w > 0 && (off += (size_t)w) == reqlen)
                    close_fd(&p->in[1]);
                else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                    got_epipe |= errno == EPIPE;
                    close_fd(&p->in[1]); /* the command does not read the rest */
                }
                continue;
            }
            ssize_t r = read(*who[i], buf, sizeof buf);
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r <= 0) {
                close_fd(who[i]);
            } else if (who[i] == &p->err[0]) {
                keep_stderr(run, buf, (size_t)r);
            } else if (run->out.len + (size_t)r > LLM_MAX_RESPONSE) {
                rc = CORE_ELIMIT;
                snprintf(why, whylen, "the response is larger than %u MiB", LLM_MAX_RESPONSE >> 20);
            } else {
                core_buf_append(&run->out, buf, (size_t)r);
            }
        }
    }
    pipes_close(p);
    if (got_epipe && !pipe_was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}

/* Reaps the command: by the deadline, exited with status 0, or it failed
 * (killed and reaped when it was still running). */
static int reap(pid_t pid, int rc, uint64_t deadline, uint32_t timeout_ms, char *why, size_t whylen)
{
    int st = 0;
    if (rc == 0)
        rc = wait_until(pid, &st, deadline);
    if (rc) {
        kill_and_reap(pid);
        if (rc == -ETIMEDOUT)
            snprintf(why, whylen, "timed out after %u ms (killed)", timeout_ms);
        else if (!why[0])
            snprintf(why, whylen, "cannot wait for the command: %s", core_strerror(rc));
        return rc;
    }
    if (WIFSIGNALED(st)) {
        snprintf(why, whylen, "the command was killed by signal %d", WTERMSIG(st));
        return -EIO;
    }
    if (WEXITSTATUS(st) != 0) {
        snprintf(why, whylen, "the command exited with status %d", WEXITSTATUS(st));
        return -EIO;
    }
    return 0;
}

static int run_command(const char *cmd, const char *req, size_t reqlen, uint32_t timeout_ms,
                       llm_run *run, char *why, size_t whylen)
{
    llm_pipes p;
    pid_t pid;
    int rc = pipes_open(&p, why, whylen);
    if (!rc && (rc = spawn_shell(cmd, &p, &pid, why, whylen)) != 0)
        pipes_close(&p);
    if (rc)
        return rc;
    close_fd(&p.in[0]);
    close_fd(&p.out[1]);
    close_fd(&p.err[1]);
    fcntl(p.in[1], F_SETFL, fcntl(p.in[1], F_GETFL) | O_NONBLOCK);
    uint64_t deadline = core_now_ns() + (uint64_t)timeout_ms * 1000000u;
    rc = exchange(&p, req, reqlen, deadline, run, why, whylen);
    return reap(pid, rc, deadline, timeout_ms, why, whylen);
}

static void json_request(const graph *g, const map_llm_item *items, size_t first, size_t n,
                         core_buf *b)
{
    core_buf_puts(b, "{\"version\":1,\"task\":\"map-activities-to-code\",\"activities\":[");
    for (size_t i = 0; i < n; i++) {
        const map_llm_item *it = &items[first + i];
        core_buf_printf(b, "%s{\"id\":%zu,\"text\":", i ? "," : "", i);
        core_buf_json_str(b, it->text, strlen(it->text));
        core_buf_printf(b, ",\"count\":%llu,\"candidates\":[", (unsigned long long)it->count);
        for (uint32_t c = 0; c < it->ncandidates; c++) {
            graph_symbol s;
            graph_get_symbol(g, it->candidates[c], &s);
            core_buf_puts(b, c ? ",{\"symbol\":" : "{\"symbol\":");
            core_buf_json_str(b, s.qualname, strlen(s.qualname));
            core_buf_puts(b, ",\"file\":");
            core_buf_json_str(b, s.file, strlen(s.file));
            core_buf_printf(b, ",\"start_line\":%u,\"end_line\":%u,\"kind\":\"%s\"}", s.start_line,
                            s.end_line, graph_sym_kind_name(s.kind));
        }
        core_buf_puts(b, "]}");
    }
    core_buf_puts(b, "]}\n");
}

typedef struct {
    const graph *g;
    const core_logger *log;
    const char *label; /* "llm batch 2 of 3 (items 3-5)" */
    size_t first, n;
    void (*fn)(void *ud, size_t item, uint32_t symbol, float conf);
    void *ud;
} llm_batch;

/* One proposed symbol of one item: resolved and called back, or warned. */
static void llm_symbol(const llm_batch *b, long long id, json_t *js)
{
    const char *name = NULL;
    double conf = 1.0;
    json_t *jc = NULL;
    if (json_is_string(js)) {
        name = json_string_value(js);
    } else if (json_is_object(js)) {
        json_t *jn = json_object_get(js, "symbol");
        name = json_is_string(jn) ? json_string_value(jn) : NULL;
        jc = json_object_get(js, "confidence");
    }
    if (!name || !*name) {
        core_logf(b->log, CORE_LOG_WARN, "%s: id %lld: a symbol without a name; skipped", b->label,
                  id);
        return;
    }
    if (jc) {
        conf = json_is_number(jc) ? json_number_value(jc) : NAN;
        if (!(conf > 0 && conf <= 1)) {
            core_logf(b->log, CORE_LOG_WARN,
                      "%s: id %lld: symbol '%s': confidence is not a number in (0, 1]; skipped",
                      b->label, id, name);
            return;
        }
        /* fn gets the confidence as a float: one that rounds to 0 there
         * (below about 1e-45) would arrive as no confidence at all, which
         * the check above exists to keep out (found by
         * tests/fuzz/fuzz_llm_reply). */
        if (!((float)conf > 0)) {
            core_logf(b->log, CORE_LOG_WARN,
                      "%s: id %lld: symbol '%s': confidence %g rounds to 0; skipped", b->label, id,
                      name, conf);
            return;
        }
    }
    uint32_t ids[5];
    uint32_t n = graph_find(b->g, name, ids, 5);
    if (n == 0) {
        core_logf(b->log, CORE_LOG_WARN,
                  "%s: id %lld: symbol '%s' matches nothing in the graph; skipped", b->label, id,
                  name);
        return;
    }
    if (n > 1) {
        core_buf l = {0};
        for (uint32_t i = 0; i < n && i < 5; i++) {
            graph_symbol s;
            graph_get_symbol(b->g, ids[i], &s);
            core_buf_printf(&l, "%s%s", i ? ", " : "", s.qualname);
        }
        core_logf(b->log, CORE_LOG_WARN,
                  "%s: id %lld: symbol '%s' is ambiguous: %u matches (%s%s); skipped", b->label, id,
                  name, n, l.data, n > 5 ? ", ..." : "");
        core_buf_free(&l);
        return;
    }
    b->fn(b->ud, b->first + (size_t)id, ids[0], (float)conf);
}

/* Applies a response (graph_int.h); CORE_EFORMAT (with why) when it is
 * not one at all. */
int map__llm_parse_reply(const graph *g, const char *data, size_t len, size_t first, size_t n,
                         const char *label, const core_logger *log,
                         void (*fn)(void *ud, size_t item, uint32_t symbol, float conf), void *ud,
                         char *why, size_t whylen)
{
    const llm_batch batch = {g, log, label, first, n, fn, ud};
    const llm_batch *b = &batch;
    if (len == 0) {
        snprintf(why, whylen, "the command printed nothing on stdout");
        return CORE_EFORMAT;
    }
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (!root) {
        snprintf(why, whylen, "the response is not JSON (line %d, column %d: %s)", jerr.line,
                 jerr.column, jerr.text);
        return CORE_EFORMAT;
    }
    json_t *maps = json_is_object(root) ? json_object_get(root, "mappings") : NULL;
    if (!json_is_array(maps)) {
        json_decref(root);
        snprintf(why, whylen, "the response is not an object with a \"mappings\" list");
        return CORE_EFORMAT;
    }
    size_t i;
    json_t *m;
    json_array_foreach(maps, i, m)
    {
        json_t *jid = json_is_object(m) ? json_object_get(m, "id") : NULL;
        json_t *syms = json_is_object(m) ? json_object_get(m, "symbols") : NULL;
        if (!json_is_integer(jid)) {
            core_logf(b->log, CORE_LOG_WARN, "%s: mapping %zu has no integer \"id\"; skipped",
                      b->label, i);
            continue;
        }
        long long id = (long long)json_integer_value(jid);
        if (id < 0 || (unsigned long long)id >= b->n) {
            core_logf(b->log, CORE_LOG_WARN,
                      "%s: id %lld is not an activity of this batch (0-%zu); skipped", b->label, id,
                      b->n - 1);
            continue;
        }
        if (!json_is_array(syms)) {
            core_logf(b->log, CORE_LOG_WARN, "%s: id %lld has no \"symbols\" list; skipped",
                      b->label, id);
            continue;
        }
        size_t k;
        json_t *js;
        json_array_foreach(syms, k, js)
        {
            llm_symbol(b, id, js);
        }
    }
    json_decref(root);
    return 0;
}

int map_llm_map(const graph *g, const map_llm_item *items, size_t n, const map_llm_opts *o,
                void (*fn)(void *ud, size_t item, uint32_t symbol, float conf), void *ud,
                uint32_t *failed, char *why, size_t whylen)
{
    if (!why)
        whylen = 0;
    if (!o || !o->cmd || !*o->cmd || !fn) {
        snprintf(why, whylen, "no command to map activities with");
        return CORE_EUSAGE;
    }
    uint32_t nsyms = graph_nsymbols(g);
    for (size_t i = 0; i < n; i++) {
        if (!items[i].text) {
            snprintf(why, whylen, "activity %zu has no text", i);
            return CORE_EUSAGE;
        }
        for (uint32_t c = 0; c < items[i].ncandidates; c++) {
            if (items[i].candidates[c] >= nsyms) {
                snprintf(why, whylen, "activity %zu: candidate %u is not a symbol of the graph", i,
                         items[i].candidates[c]);
                return CORE_EUSAGE;
            }
        }
    }
    size_t per = o->batch ? o->batch : 50;
    uint32_t timeout = o->timeout_ms ? o->timeout_ms : 60000;
    size_t nbatches = (n + per - 1) / per;
    int first_rc = 0;
    uint32_t nfailed = 0;
    core_buf req = {0};
    for (size_t bi = 0; bi < nbatches; bi++) {
        size_t first = bi * per, bn = n - first < per ? n - first : per;
        char label[96];
        snprintf(label, sizeof label, "llm batch %zu of %zu (items %zu-%zu)", bi + 1, nbatches,
                 first, first + bn - 1);
        core_buf_reset(&req);
        json_request(g, items, first, bn, &req);
        llm_run run = {0};
        char msg[512] = "";
        uint64_t t0 = core_now_ns();
        int rc = run_command(o->cmd, req.data, req.len, timeout, &run, msg, sizeof msg);
        while (run.errlen && run.err[run.errlen - 1] == ' ')
            run.err[--run.errlen] = 0;
        if (rc == 0)
            rc = map__llm_parse_reply(g, run.out.data, run.out.len, first, bn, label, &o->log, fn,
                                      ud, msg, sizeof msg);
        if (rc) {
            char full[1024];
            snprintf(full, sizeof full, "%s: %s%s%s", label, msg, run.errlen ? "; stderr: " : "",
                     run.err);
            if (nfailed++ == 0) {
                first_rc = rc;
                snprintf(why, whylen, "%s", full);
            } else {
                core_logf(&o->log, CORE_LOG_WARN, "%s", full);
            }
        } else {
            if (run.errlen)
                core_logf(&o->log, CORE_LOG_DEBUG, "%s: stderr: %s", label, run.err);
            core_logf(&o->log, CORE_LOG_DEBUG, "%s: answered in %.2f s", label,
                      (double)(core_now_ns() - t0) / 1e9);
        }
        core_buf_free(&run.out);
    }
    core_buf_free(&req);
    if (failed)
        *failed = nfailed;
    return first_rc;
}
