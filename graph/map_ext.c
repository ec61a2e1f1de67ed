/*
 * Mapping activities to code from outside the graph: manual overrides read
 * from a YAML file (globs and PCRE2 regexes), and an external command (an
 * LLM behind a script) that answers batches of activities in JSON.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np, pipe2 */
#include "core_cfg.h"
#include "graph_int.h"

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
#include <yaml.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* ------------------------------------------------------------------ */
/* Globs on activity text                                              */
/* ------------------------------------------------------------------ */

/*
 * Decodes the UTF-8 character at s (n > 0 bytes) and writes its length. A
 * byte that does not start a valid sequence is one character of its own,
 * decoded above the Unicode range so that it equals only itself.
 */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    size_t l = core_utf8_valid_prefix((const char *)s, n < 4 ? n : 4);
    uint32_t c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (want == 0 || l < want) {
        *len = 1;
        return 0x110000u + c;
    }
    c &= 0x7fu >> want;
    for (size_t i = 1; i < want; i++)
        c = (c << 6) | (s[i] & 0x3fu);
    *len = want;
    return c;
}

/* A pattern character, with '\' escaping the next one. */
static uint32_t glob_char(const unsigned char *p, size_t n, size_t *i)
{
    size_t len;
    if (p[*i] == '\\' && *i + 1 < n)
        (*i)++;
    uint32_t c = utf8_next(p + *i, n - *i, &len);
    *i += len;
    return c;
}

/*
 * Matches c against the class that starts at p[*i] == '['; on return *i is
 * just past the closing ']'. Returns 1 (match), 0, or -1 when the class is
 * not closed.
 */
static int glob_class(const unsigned char *p, size_t n, size_t *i, uint32_t c)
{
    size_t k = *i + 1;
    bool negate = k < n && (p[k] == '!' || p[k] == '^');
    if (negate)
        k++;
    bool hit = false, first = true;
    while (k < n) {
        if (p[k] == ']' && !first) {
            *i = k + 1;
            return hit != negate;
        }
        first = false;
        uint32_t lo = glob_char(p, n, &k), hi = lo;
        if (k + 1 < n && p[k] == '-' && p[k + 1] != ']') {
            k++;
            hi = glob_char(p, n, &k);
        }
        hit |= lo <= c && c <= hi;
    }
    return -1;
}

/* Offset of the first unclosed '[' of a glob, or SIZE_MAX when it is fine. */
static size_t glob_check(const char *pat, size_t n)
{
    const unsigned char *p = (const unsigned char *)pat;
    for (size_t i = 0; i < n;) {
        if (p[i] == '[') {
            size_t at = i;
            if (glob_class(p, n, &i, 0) < 0)
                return at;
        } else {
            glob_char(p, n, &i);
        }
    }
    return SIZE_MAX;
}

/*
 * Whole-string glob match: '*' is any text (across '/', unlike
 * core_glob_match, which is for paths), '?' one character, [a-z] [!x] [^x]
 * classes, '\' escapes. Characters are UTF-8 code points. Backtracks only
 * to the last '*', so the cost is O(pattern * text) at worst.
 */
static bool glob_match(const char *pat, size_t pn, const char *txt, size_t tn)
{
    const unsigned char *p = (const unsigned char *)pat, *t = (const unsigned char *)txt;
    size_t pi = 0, ti = 0, star_p = SIZE_MAX, star_t = 0;
    while (ti < tn) {
        if (pi < pn && p[pi] == '*') {
            while (pi < pn && p[pi] == '*')
                pi++;
            star_p = pi;
            star_t = ti;
            continue;
        }
        if (pi < pn) {
            size_t tl, q = pi;
            uint32_t tc = utf8_next(t + ti, tn - ti, &tl);
            bool ok;
            if (p[pi] == '?') {
                q++;
                ok = true;
            } else if (p[pi] == '[') {
                ok = glob_class(p, pn, &q, tc) == 1;
            } else {
                ok = glob_char(p, pn, &q) == tc;
            }
            if (ok) {
                pi = q;
                ti += tl;
                continue;
            }
        }
        if (star_p == SIZE_MAX)
            return false;
        size_t tl;
        utf8_next(t + star_t, tn - star_t, &tl);
        star_t += tl;
        ti = star_t;
        pi = star_p;
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

/* ------------------------------------------------------------------ */
/* Overrides                                                           */
/* ------------------------------------------------------------------ */

typedef struct {
    char *glob; /* NULL for a regex */
    size_t globlen;
    pcre2_code *re;
    uint32_t first, nsyms; /* into graph_overrides.syms */
    float conf;
} override_rule;

struct graph_overrides {
    override_rule *rules;
    uint32_t nrules;
    uint32_t *syms;
    /*
     * Match data for regexes, reused across calls: a call takes one from
     * the pool (or makes one) and gives it back, so that threads never
     * share one and the pool grows only to the number of threads that
     * match at the same time.
     */
    pthread_mutex_t lock;
    core_vec(pcre2_match_data *) pool;
};

typedef struct {
    const char *path;
    const graph *g;
    yaml_document_t *doc;
    core_vec(override_rule) rules;
    core_vec(uint32_t) syms;
    char *why;
    size_t whylen;
    int rc;
} ov_loader;

static bool ov_fail(ov_loader *l, int rc, const yaml_node_t *at, const char *fmt, ...)
    CORE_PRINTF(4, 5);
static bool ov_fail(ov_loader *l, int rc, const yaml_node_t *at, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->why, l->whylen, "%s:%zu: %s", l->path, at ? at->start_mark.line + 1 : 0, msg);
    l->rc = rc;
    return false;
}

static const char *scalar(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* "/body/flags" is a regex when flags are letters; anything else a glob. */
static bool is_regex(const char *s, size_t n, size_t *close)
{
    if (n < 2 || s[0] != '/')
        return false;
    const char *last = memrchr(s + 1, '/', n - 1);
    if (!last)
        return false;
    for (const char *f = last + 1; f < s + n; f++)
        if (!((*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z')))
            return false;
    *close = (size_t)(last - s);
    return true;
}

static bool ov_pattern(ov_loader *l, const yaml_node_t *v, override_rule *r)
{
    const char *s = scalar(v);
    size_t n = v->data.scalar.length, close;
    if (n == 0)
        return ov_fail(l, CORE_EFORMAT, v, "'activity' is empty");
    if (!is_regex(s, n, &close)) {
        size_t at = glob_check(s, n);
        if (at != SIZE_MAX)
            return ov_fail(l, CORE_EFORMAT, v,
                           "'activity' glob '%s': '[' at offset %zu is not closed", s, at);
        r->glob = core_xstrndup(s, n);
        r->globlen = n;
        return true;
    }
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    for (size_t i = close + 1; i < n; i++) {
        if (s[i] != 'i')
            return ov_fail(l, CORE_EFORMAT, v,
                           "'activity' regex '%s': unknown flag '%c' (the only flag is i)", s,
                           s[i]);
        opts |= PCRE2_CASELESS;
    }
    int err;
    PCRE2_SIZE off;
    r->re = pcre2_compile((PCRE2_SPTR)s + 1, close - 1, opts, &err, &off, NULL);
    if (!r->re) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(err, msg, sizeof msg) < 0)
            snprintf((char *)msg, sizeof msg, "error %d", err);
        return ov_fail(l, CORE_EFORMAT, v, "'activity' regex '%s': %s at offset %zu", s,
                       (const char *)msg, (size_t)off);
    }
    /* Without JIT support the interpreter matches; nothing to report. */
    (void)pcre2_jit_compile(r->re, PCRE2_JIT_COMPLETE);
    return true;
}

static bool ov_symbol(ov_loader *l, const yaml_node_t *v, uint32_t first)
{
    if (v->type != YAML_SCALAR_NODE || v->data.scalar.length == 0)
        return ov_fail(l, CORE_EFORMAT, v, "'symbols' must be a list of symbol names");
    const char *name = scalar(v);
    uint32_t ids[5];
    uint32_t n = graph_find(l->g, name, ids, 5);
    if (n == 0)
        return ov_fail(l, CORE_ENOTFOUND, v, "symbol '%s' matches nothing in the graph", name);
    if (n > 1) {
        core_buf b = {0};
        for (uint32_t i = 0; i < n && i < 5; i++) {
            graph_symbol s;
            graph_get_symbol(l->g, ids[i], &s);
            core_buf_printf(&b, "%s%s", i ? ", " : "", s.qualname);
        }
        ov_fail(l, CORE_EAMBIGUOUS, v,
                "symbol '%s' is ambiguous: %u matches (%s%s); give more of its qualified name",
                name, n, b.data, n > 5 ? ", ..." : "");
        core_buf_free(&b);
        return false;
    }
    for (size_t i = first; i < l->syms.n; i++) {
        if (l->syms.v[i] == ids[0]) {
            graph_symbol s;
            graph_get_symbol(l->g, ids[0], &s);
            return ov_fail(l, CORE_EFORMAT, v, "symbol '%s' (%s) is listed twice in this rule",
                           name, s.qualname);
        }
    }
    core_vec_push(&l->syms, ids[0]);
    return true;
}

static bool ov_rule(ov_loader *l, const yaml_node_t *node)
{
    if (node->type != YAML_MAPPING_NODE)
        return ov_fail(l, CORE_EFORMAT, node,
                       "each rule must be a mapping with 'activity' and 'symbols'");
    static const char *const keys[] = {"activity", "symbols", "confidence"};
    const yaml_node_t *val[3] = {0};
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(l->doc, p->value);
        if (!k || !v || k->type != YAML_SCALAR_NODE)
            return ov_fail(l, CORE_EFORMAT, k ? k : node, "keys must be plain names");
        size_t i = 0;
        while (i < 3 && strcmp(scalar(k), keys[i]) != 0)
            i++;
        if (i == 3)
            return ov_fail(l, CORE_EFORMAT, k,
                           "unknown key '%s' (allowed: activity, symbols, confidence)", scalar(k));
        if (val[i])
            return ov_fail(l, CORE_EFORMAT, k, "key '%s' is given twice (first at line %zu)",
                           keys[i], val[i]->start_mark.line + 1);
        val[i] = v;
    }
    if (!val[0])
        return ov_fail(l, CORE_EFORMAT, node, "rule has no 'activity'");
    if (!val[1])
        return ov_fail(l, CORE_EFORMAT, node, "rule has no 'symbols'");
    override_rule r = {.first = (uint32_t)l->syms.n, .conf = 1.0f};
    /* Pushed first, so that a failure below frees what it holds. */
    core_vec_push(&l->rules, r);
    override_rule *rp = &l->rules.v[l->rules.n - 1];
    if (val[0]->type != YAML_SCALAR_NODE)
        return ov_fail(l, CORE_EFORMAT, val[0], "'activity' must be a text pattern, not a %s",
                       val[0]->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
    if (!ov_pattern(l, val[0], rp))
        return false;
    const yaml_node_t *sv = val[1];
    if (sv->type != YAML_SEQUENCE_NODE ||
        sv->data.sequence.items.start == sv->data.sequence.items.top)
        return ov_fail(l, CORE_EFORMAT, sv, "'symbols' must be a non-empty list of symbol names");
    for (yaml_node_item_t *it = sv->data.sequence.items.start; it < sv->data.sequence.items.top;
         it++) {
        yaml_node_t *s = yaml_document_get_node(l->doc, *it);
        if (!s || !ov_symbol(l, s, rp->first))
            return s ? false : ov_fail(l, CORE_EFORMAT, sv, "'symbols' has a bad item");
    }
    rp->nsyms = (uint32_t)(l->syms.n - rp->first);
    if (val[2]) {
        const yaml_node_t *c = val[2];
        char *end = NULL;
        double d = c->type == YAML_SCALAR_NODE ? strtod(scalar(c), &end) : NAN;
        if (!end || end == scalar(c) || *end || !(d > 0 && d <= 1))
            return ov_fail(l, CORE_EFORMAT, c, "'confidence' must be a number in (0, 1], not '%s'",
                           c->type == YAML_SCALAR_NODE ? scalar(c) : "a list or mapping");
        rp->conf = (float)d;
    }
    return true;
}

static void free_rules(override_rule *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].glob);
        pcre2_code_free(r[i].re);
    }
    free(r);
}

int graph_overrides_load(const char *path, const graph *g, graph_overrides **out, char *why,
                         size_t whylen)
{
    if (!why)
        whylen = 0;
    yaml_document_t doc;
    int rc = core_yaml_load_file(path, &doc, why, whylen);
    if (rc)
        return rc;
    ov_loader l = {.path = path, .g = g, .doc = &doc, .why = why, .whylen = whylen};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool ok = true;
    if (root && root->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = root->data.sequence.items.start;
             ok && it < root->data.sequence.items.top; it++) {
            yaml_node_t *node = yaml_document_get_node(&doc, *it);
            ok = node ? ov_rule(&l, node) : ov_fail(&l, CORE_EFORMAT, root, "bad list item");
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)) {
        ok = ov_fail(&l, CORE_EFORMAT, root,
                     "the top level must be a list of rules (- activity: ..., symbols: [...])");
    }
    yaml_document_delete(&doc);
    if (!ok) {
        free_rules(l.rules.v, l.rules.n);
        core_vec_free(&l.syms);
        return l.rc;
    }
    graph_overrides *o = core_xcalloc(1, sizeof *o);
    o->rules = l.rules.v;
    o->nrules = (uint32_t)l.rules.n;
    o->syms = l.syms.v;
    pthread_mutex_init(&o->lock, NULL);
    *out = o;
    return 0;
}

void graph_overrides_free(graph_overrides *o)
{
    if (!o)
        return;
    free_rules(o->rules, o->nrules);
    free(o->syms);
    for (size_t i = 0; i < o->pool.n; i++)
        pcre2_match_data_free(o->pool.v[i]);
    core_vec_free(&o->pool);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

uint32_t graph_overrides_count(const graph_overrides *o)
{
    return o ? o->nrules : 0;
}

static bool regex_match(const graph_overrides *co, const pcre2_code *re, const char *s, size_t n,
                        pcre2_match_data **md)
{
    /* The pool is the one mutable part; the rules are never written. */
    graph_overrides *o = (graph_overrides *)co;
    if (!*md) {
        pthread_mutex_lock(&o->lock);
        if (o->pool.n)
            *md = o->pool.v[--o->pool.n];
        pthread_mutex_unlock(&o->lock);
        /* One pair is enough: only whether it matched is wanted. */
        if (!*md && !(*md = pcre2_match_data_create(1, NULL)))
            core_panic("out of memory (pcre2 match data)");
    }
    /* Errors (a match or depth limit hit) count as no match. */
    return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, *md, NULL) >= 0;
}

uint32_t graph_overrides_match(const graph_overrides *o, const char *activity, size_t len,
                               uint32_t *syms, float *conf, uint32_t max, uint32_t *rule)
{
    if (!o)
        return 0;
    pcre2_match_data *md = NULL;
    uint32_t found = 0;
    for (uint32_t i = 0; i < o->nrules; i++) {
        const override_rule *r = &o->rules[i];
        bool hit = r->glob ? glob_match(r->glob, r->globlen, activity, len)
                           : regex_match(o, r->re, activity, len, &md);
        if (!hit)
            continue;
        for (uint32_t k = 0; k < r->nsyms && k < max; k++) {
            syms[k] = o->syms[r->first + k];
            if (conf)
                conf[k] = r->conf / (float)r->nsyms;
        }
        if (rule)
            *rule = i;
        found = r->nsyms;
        break;
    }
    if (md) {
        graph_overrides *mo = (graph_overrides *)o;
        pthread_mutex_lock(&mo->lock);
        /* NOLINTNEXTLINE(bugprone-sizeof-expression): the pool's elements are pointers */
        core_vec_push(&mo->pool, md);
        pthread_mutex_unlock(&mo->lock);
    }
    return found;
}

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
static int run_command(const char *cmd, const char *req, size_t reqlen, uint32_t timeout_ms,
                       llm_run *run, char *why, size_t whylen)
{
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    int rc = 0;
    if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
        rc = -errno;
        snprintf(why, whylen, "cannot make pipes: %s", strerror(errno));
        goto fail_pipes;
    }
    int *fds[] = {&pin[0], &pin[1], &pout[0], &pout[1], &perr[0], &perr[1]};
    for (size_t i = 0; i < 6; i++) {
        if ((*fds[i] = fd_above_stdio(*fds[i])) < 0) {
            rc = -errno;
            snprintf(why, whylen, "cannot make pipes: %s", strerror(errno));
            goto fail_pipes;
        }
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
    posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
    posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
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
    pid_t pid;
    int err = posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err) {
        rc = -err;
        snprintf(why, whylen, "cannot run /bin/sh: %s", strerror(err));
        goto fail_pipes;
    }
    close_fd(&pin[0]);
    close_fd(&pout[1]);
    close_fd(&perr[1]);
    fcntl(pin[1], F_SETFL, fcntl(pin[1], F_GETFL) | O_NONBLOCK);

    /*
     * A command that exits without reading all of its stdin makes our
     * write fail with EPIPE; the signal that comes with it is blocked in
     * this thread and taken back afterwards, so the process's own SIGPIPE
     * handling is left as it was.
     */
    sigset_t pipe_set, old_mask, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
    sigpending(&pending);
    bool pipe_was_pending = sigismember(&pending, SIGPIPE), got_epipe = false;

    uint64_t deadline = core_now_ns() + (uint64_t)timeout_ms * 1000000u;
    size_t off = 0;
    if (reqlen == 0)
        close_fd(&pin[1]);
    char buf[1 << 16];
    while (rc == 0 && (pout[0] >= 0 || perr[0] >= 0)) {
        struct pollfd pf[3];
        int *who[3];
        nfds_t k = 0;
        if (pin[1] >= 0) {
            pf[k] = (struct pollfd){pin[1], POLLOUT, 0};
            who[k++] = &pin[1];
        }
        if (pout[0] >= 0) {
            pf[k] = (struct pollfd){pout[0], POLLIN, 0};
            who[k++] = &pout[0];
        }
        if (perr[0] >= 0) {
            pf[k] = (struct pollfd){perr[0], POLLIN, 0};
            who[k++] = &perr[0];
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
            if (who[i] == &pin[1]) {
                size_t want = reqlen - off < sizeof buf ? reqlen - off : sizeof buf;
                ssize_t w = write(pin[1], req + off, want);
                if (w > 0 && (off += (size_t)w) == reqlen)
                    close_fd(&pin[1]);
                else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                    got_epipe |= errno == EPIPE;
                    close_fd(&pin[1]); /* the command does not read the rest */
                }
                continue;
            }
            ssize_t r = read(*who[i], buf, sizeof buf);
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r <= 0) {
                close_fd(who[i]);
            } else if (who[i] == &perr[0]) {
                keep_stderr(run, buf, (size_t)r);
            } else if (run->out.len + (size_t)r > LLM_MAX_RESPONSE) {
                rc = CORE_ELIMIT;
                snprintf(why, whylen, "the response is larger than %u MiB", LLM_MAX_RESPONSE >> 20);
            } else {
                core_buf_append(&run->out, buf, (size_t)r);
            }
        }
    }
    close_fd(&pin[1]);
    close_fd(&pout[0]);
    close_fd(&perr[0]);
    if (got_epipe && !pipe_was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);

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

fail_pipes:
    for (size_t i = 0; i < 2; i++) {
        close_fd(&pin[i]);
        close_fd(&pout[i]);
        close_fd(&perr[i]);
    }
    return rc;
}

static void json_request(const graph *g, const graph_llm_item *items, size_t first, size_t n,
                         core_buf *b)
{
    core_buf_puts(b, "{\"version\":1,\"task\":\"map-activities-to-code\",\"activities\":[");
    for (size_t i = 0; i < n; i++) {
        const graph_llm_item *it = &items[first + i];
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
int graph__llm_parse_reply(const graph *g, const char *data, size_t len, size_t first, size_t n,
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

int graph_llm_map(const graph *g, const graph_llm_item *items, size_t n, const graph_llm_opts *o,
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
            rc = graph__llm_parse_reply(g, run.out.data, run.out.len, first, bn, label, &o->log, fn,
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
