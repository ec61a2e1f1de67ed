/* Option parsing, messages and progress for the subcommands. */
#include "cli.h"
#include "config.h"
#include "graph.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t err_mu = PTHREAD_MUTEX_INITIALIZER;
static bool progress_shown; /* a progress line is on screen (guarded by err_mu) */

static void list_push(cli_list *l, const char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = core_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static void clear_progress_locked(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = false;
    }
}

/*
 * One line on stderr: prefix, the message, suffix. Messages quote the
 * input (a CSV header, a field, an activity), which may be any bytes: the
 * message goes out escaped (core_buf_oneline), so that a binary file
 * cannot write control sequences to the terminal or break the line.
 */
static void err_line(const char *prefix, const char *suffix, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void err_line(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
    core_buf msg = {0}, esc = {0};
    core_buf_vprintf(&msg, fmt, ap);
    core_buf_oneline(&esc, msg.data ? msg.data : "", SIZE_MAX);
    pthread_mutex_lock(&err_mu);
    clear_progress_locked();
    fprintf(stderr, "%s%s%s\n", prefix, esc.data ? esc.data : "", suffix);
    pthread_mutex_unlock(&err_mu);
    core_buf_free(&esc);
    core_buf_free(&msg);
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    char prefix[64], suffix[80];
    snprintf(prefix, sizeof prefix, "pmrag %s: ", cmd->name);
    snprintf(suffix, sizeof suffix, " (see 'pmrag %s --help')", cmd->name);
    va_list ap;
    va_start(ap, fmt);
    err_line(prefix, suffix, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "pmrag %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    err_line(prefix, "", fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAIL;
}

int cli_exit_status(int rc)
{
    switch (rc) {
    case 0:
        return CLI_EXIT_OK;
    case -ENOENT:
    case -EACCES:
    case -EPERM:
    case -EISDIR:
    case -ENOTDIR:
    case -ENAMETOOLONG:
    case -ELOOP:
    case -EINVAL:
    case -EFBIG:
    case CORE_EFORMAT:
    case CORE_EVERSION:
    case CORE_ECORRUPT:
    case CORE_ELIMIT:
    case CORE_ENOTFOUND:
    case CORE_EAMBIGUOUS:
    case CORE_EUSAGE:
    case CORE_EENDIAN:
        return CLI_EXIT_USAGE;
    default:
        return CLI_EXIT_FAIL;
    }
}

/* The options every command takes (cli.h); a command's own table wins. */
static bool common_quiet;
static const char *common_cfg;
static cli_list common_sets;
static const cli_opt common_opts[] = {
    {"quiet", 'q', CLI_FLAG, &common_quiet, NULL, "no notes on stderr", 0, 0},
    {"config", 0, CLI_STR, &common_cfg, "FILE",
     "YAML configuration: checked, though this command reads none of its keys", 0, 0},
    {"set", 0, CLI_LIST, &common_sets, "KEY=VALUE", "one configuration key: checked likewise", 0,
     0},
};
#define NCOMMON (sizeof common_opts / sizeof common_opts[0])

bool cli_quiet(void)
{
    return common_quiet;
}

static const cli_opt *find_long_in(const cli_opt *opts, size_t nopts, const char *name, size_t n)
{
    for (size_t i = 0; i < nopts; i++)
        if (strlen(opts[i].name) == n && strncmp(opts[i].name, name, n) == 0)
            return &opts[i];
    return NULL;
}

static const cli_opt *find_long(const cli_cmd *cmd, const char *name, size_t n)
{
    const cli_opt *o = find_long_in(cmd->opts, cmd->nopts, name, n);
    return o ? o : find_long_in(common_opts, NCOMMON, name, n);
}

static const cli_opt *find_short(const cli_cmd *cmd, char c)
{
    for (size_t i = 0; i < cmd->nopts; i++)
        if (cmd->opts[i].short_name == c)
            return &cmd->opts[i];
    for (size_t i = 0; i < NCOMMON; i++)
        if (common_opts[i].short_name == c)
            return &common_opts[i];
    return NULL;
}

static int set_value(const cli_cmd *cmd, const cli_opt *o, const char *v)
{
    switch (o->type) {
    case CLI_STR:
        *(const char **)o->target = v;
        return 0;
    case CLI_CFG:
        ((cli_cfg_arg *)o->target)->value = v;
        return 0;
    case CLI_LIST:
        list_push(o->target, v);
        return 0;
    case CLI_UINT: {
        char *end;
        errno = 0;
        unsigned long x = strtoul(v, &end, 10);
        if (!*v || *end || errno || v[0] == '-' || x < o->min || x > o->max)
            return cli_usage_error(cmd, "--%s needs a whole number from %u to %u, not '%s'",
                                   o->name, o->min, o->max, v);
        *(unsigned *)o->target = (unsigned)x;
        return 0;
    }
    case CLI_FLAG:
        *(bool *)o->target = true;
        return 0;
    }
    return 0;
}

static int parse(const cli_cmd *cmd, int argc, char **argv, cli_list *args)
{
    bool only_args = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || a[1] == 0) {
            list_push(args, a);
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_help(cmd);
            return 1;
        }
        const cli_opt *o;
        const char *value = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            o = find_long(cmd, a + 2, n);
            if (!o)
                return cli_usage_error(cmd, "unknown option '%.*s'", (int)n + 2, a);
            if (eq) {
                if (o->type == CLI_FLAG)
                    return cli_usage_error(cmd, "--%s takes no value", o->name);
                value = eq + 1;
            }
        } else {
            o = find_short(cmd, a[1]);
            if (!o)
                return cli_usage_error(cmd, "unknown option '-%c'", a[1]);
            if (a[2]) {
                if (o->type == CLI_FLAG)
                    return cli_usage_error(cmd, "unknown option '%s'", a);
                value = a + 2;
            }
        }
        if (o->type == CLI_FLAG) {
            *(bool *)o->target = true;
            continue;
        }
        if (!value) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "--%s needs a value (%s)", o->name,
                                       o->metavar ? o->metavar : "VALUE");
            value = argv[++i];
        }
        int rc = set_value(cmd, o, value);
        if (rc)
            return rc;
    }
    if (args->n < cmd->min_args)
        return cli_usage_error(cmd, "missing argument: usage: pmrag %s %s", cmd->name, cmd->usage);
    if (args->n > cmd->max_args)
        return cli_usage_error(cmd, "unexpected argument '%s'", args->v[cmd->max_args]);
    return 0;
}

bool cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_list *args, int *status)
{
    int rc = parse(cmd, argc, argv, args);
    if (rc == 0 && (common_cfg || common_sets.n)) {
        /* Given to a command that reads no key: still an error to report. */
        core_cfg *c;
        rc = cli_config(cmd, common_cfg, &common_sets, &c);
        core_cfg_free(c);
    }
    free(common_sets.v);
    memset(&common_sets, 0, sizeof common_sets);
    if (rc == 0)
        return true;
    free(args->v);
    memset(args, 0, sizeof *args);
    for (size_t i = 0; i < cmd->nopts; i++) {
        if (cmd->opts[i].type == CLI_LIST) {
            cli_list *l = cmd->opts[i].target;
            free(l->v);
            memset(l, 0, sizeof *l);
        }
    }
    *status = rc == 1 ? 0 : rc;
    return false;
}

static void help_option(const cli_opt *o);

void cli_help_footer(FILE *out)
{
    fprintf(out, "\nexit status: 0 success; 1 runtime failure (the work failed: memory, a write,\n"
                 "a port, a broker); 2 usage or bad input (an option, an argument, a\n"
                 "configuration value, or an input file that is missing, unreadable, empty or\n"
                 "malformed).\n");
}

void cli_group_help(FILE *out, const char *group, const char *summary, const cli_sub *subs,
                    size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s pmrag %s %s %s\n", i ? "      " : "usage:", group, subs[i].name,
                subs[i].usage);
    fprintf(out, "\n%s\n\nsubcommands:\n", summary);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-10s %s\n", subs[i].name, subs[i].summary);
    fprintf(out, "\n'pmrag %s SUBCOMMAND --help' describes one, with its options.\n\nexamples:\n",
            group);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  $ %s\n", subs[i].example);
    cli_help_footer(out);
}

void cli_help(const cli_cmd *cmd)
{
    printf("usage: pmrag %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
    printf("\noptions:\n");
    for (size_t i = 0; i < cmd->nopts; i++)
        help_option(&cmd->opts[i]);
    for (size_t i = 0; i < NCOMMON; i++)
        if (!find_long_in(cmd->opts, cmd->nopts, common_opts[i].name, strlen(common_opts[i].name)))
            help_option(&common_opts[i]);
    printf("  %-28s %s\n", "-h, --help", "show this help");
    if (cmd->details)
        printf("\n%s\n", cmd->details);
    printf("\nexamples:\n");
    for (const char *p = cmd->examples; p && *p;) {
        size_t n = strcspn(p, "\n");
        printf("  $ %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    cli_help_footer(stdout);
}

static void help_option(const cli_opt *o)
{
    char left[64];
    int n;
    if (o->short_name)
        n = snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name);
    else
        n = snprintf(left, sizeof left, "    --%s", o->name);
    if (o->type != CLI_FLAG && n > 0 && (size_t)n < sizeof left)
        snprintf(left + n, sizeof left - (size_t)n, " %s", o->metavar ? o->metavar : "VALUE");
    if (o->type == CLI_CFG) {
        const char *key = ((const cli_cfg_arg *)o->target)->key;
        /* The key on a line of its own when it would pass column 100. */
        const char *def = pmrag_config_default(key);
        bool wrap = 31 + strlen(o->help) + strlen(key) + strlen(def) + 13 > 100;
        printf("  %-28s %s%s%*s[%s, default %s]\n", left, o->help, wrap ? "\n" : " ", wrap ? 31 : 0,
               "", key, def);
    } else {
        printf("  %-28s %s\n", left, o->help);
    }
}

int cli_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int cli_config(const cli_cmd *cmd, const char *path, const cli_list *sets, core_cfg **out)
{
    core_cfg *c = core_cfg_new(pmrag_config_table, pmrag_config_count);
    char why[768];
    int rc = 0;
    if (path && core_cfg_load(c, path, why, sizeof why) != 0)
        rc = cli_error(cmd->name, "%s", why);
    for (size_t i = 0; !rc && sets && i < sets->n; i++)
        if (core_cfg_set(c, sets->v[i], why, sizeof why) != 0)
            rc = (cli_error(cmd->name, "--set: %s", why), CLI_EXIT_USAGE);
    for (size_t i = 0; !rc && i < cmd->nopts; i++) {
        const cli_opt *o = &cmd->opts[i];
        const cli_cfg_arg *a = o->target;
        if (o->type != CLI_CFG || !a->value)
            continue;
        char origin[80];
        snprintf(origin, sizeof origin, "--%s", o->name);
        if (core_cfg_put(c, a->key, a->value, origin, why, sizeof why) != 0)
            rc = cli_usage_error(cmd, "--%s: %s", o->name, why);
    }
    if (rc) {
        core_cfg_free(c);
        *out = NULL;
        return CLI_EXIT_USAGE;
    }
    *out = c;
    return 0;
}

/* ---- logging ---- */

static void log_line(const char *prefix, const char *fmt, ...) CORE_PRINTF(2, 3);
static void log_line(const char *prefix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_line(prefix, "", fmt, ap);
    va_end(ap);
}

static void log_to_stderr(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    char prefix[48];
    snprintf(prefix, sizeof prefix, "pmrag: %s: ", core_log_level_name(level));
    log_line(prefix, "%s", msg);
}

core_logger cli_logger(bool quiet)
{
    core_logger lg = {log_to_stderr, NULL, quiet ? CORE_LOG_WARN : CORE_LOG_NOTE};
    return lg;
}

/* A daemon's lines say when: UTC, to the millisecond, first. */
static void log_to_stderr_timed(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + n, sizeof when - n, ".%03ldZ", ts.tv_nsec / 1000000);
    pthread_mutex_lock(&err_mu);
    clear_progress_locked();
    fprintf(stderr, "%s pmrag: %s: %s\n", when, core_log_level_name(level), msg);
    pthread_mutex_unlock(&err_mu);
}

core_logger cli_daemon_logger(bool quiet)
{
    core_logger lg = {log_to_stderr_timed, NULL, quiet ? CORE_LOG_WARN : CORE_LOG_NOTE};
    return lg;
}

bool cli_stderr_is_tty(void)
{
    return isatty(STDERR_FILENO) == 1;
}

/* ---- progress ---- */

struct cli_progress {
    const char *label, *unit;
    bool enabled;
    uint64_t start_ns, last_ns;
};

cli_progress *cli_progress_new(const char *label, const char *unit, bool enabled)
{
    cli_progress *p = core_xcalloc(1, sizeof *p);
    p->label = label;
    p->unit = unit;
    p->enabled = enabled;
    p->start_ns = p->last_ns = core_now_ns();
    return p;
}

void cli_progress_update(void *ud, uint64_t done, uint64_t total)
{
    cli_progress *p = ud;
    if (!p->enabled)
        return;
    uint64_t now = core_now_ns();
    /* Cheap early-out without the lock; a lost race only delays a redraw. */
    if (now - __atomic_load_n(&p->last_ns, __ATOMIC_RELAXED) < 100000000u && done != total)
        return;
    pthread_mutex_lock(&err_mu);
    if (now - p->last_ns >= 100000000u || done == total) {
        p->last_ns = now;
        double secs = (double)(now - p->start_ns) / 1e9;
        fprintf(stderr, "\r\033[K%s %llu/%llu %s (%.0f/s)", p->label, (unsigned long long)done,
                (unsigned long long)total, p->unit, secs > 0 ? (double)done / secs : 0.0);
        progress_shown = true;
    }
    pthread_mutex_unlock(&err_mu);
}

void cli_progress_done(cli_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&err_mu);
    clear_progress_locked();
    pthread_mutex_unlock(&err_mu);
    free(p);
}

void cli_progress_stage(void *ud, const char *stage, uint64_t done, uint64_t total)
{
    cli_stages *st = ud;
    if (!st->p || strcmp(st->stage, stage) != 0) {
        cli_progress_done(st->p);
        st->p = cli_progress_new(stage, "events", st->enabled);
        st->stage = stage;
    }
    if (done != total) {
        cli_progress_update(st->p, done, total);
        return;
    }
    cli_progress_done(st->p); /* the stage's end (total is 0 while it runs) */
    st->p = NULL;
    st->stage = "";
}

int cli_write_stdout(const char *cmd, const char *data, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(STDOUT_FILENO, data + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE)
                return 0;
            return cli_error(cmd, "cannot write output: %s", strerror(errno));
        }
        off += (size_t)w;
    }
    return 0;
}

/* ---- graph files ---- */

int cli_open_graph(const char *cmd, const char *path, graph **g)
{
    char why[256];
    int rc = graph_open(path, g, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == -ENOENT || rc == -EACCES || rc == -EISDIR)
        cli_error(cmd, "cannot open %s: %s", path, why);
    else
        cli_error(cmd, "%s: %s", path, why);
    return CLI_EXIT_USAGE;
}

int cli_find_symbol(const char *cmd, const graph *g, const char *name, uint32_t *out)
{
    uint32_t ids[6];
    uint32_t n = graph_find(g, name, ids, 6);
    if (n == 1) {
        *out = ids[0];
        return 0;
    }
    if (n == 0) {
        cli_error(cmd, "no symbol named '%s'", name);
        return CLI_EXIT_USAGE;
    }
    core_buf b = {0};
    for (uint32_t i = 0; i < n && i < 6; i++) {
        graph_symbol s;
        graph_get_symbol(g, ids[i], &s);
        core_buf_printf(&b, "%s%s", i ? ", " : "", s.qualname);
    }
    cli_error(cmd, "'%s' matches %u symbols: %s%s; give more of the name", name, n, b.data,
              n > 6 ? ", ..." : "");
    core_buf_free(&b);
    return CLI_EXIT_USAGE;
}
