/*
 * cli.h - what the subcommands share: one option table per command drives
 * parsing, validation and --help; messages to stderr; progress lines.
 *
 * Conventions: `pmrag CMD --help` prints help and exits 0; every error is
 * one line naming the command and what is at fault, and the exit status
 * comes from one table, the same for every command (below).
 */
#ifndef PMRAG_CLI_H
#define PMRAG_CLI_H

#include "core.h"
#include "core_cfg.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The exit statuses of every command (docs/commands.md, 'pmrag --help'):
 * one fault gives one status whichever command meets it.
 *   0  success;
 *   1  runtime failure: the arguments and the input were good but the
 *      work failed (out of memory, a write error, a port in use, a broker
 *      or helper process failing);
 *   2  usage or bad input: an unknown option, a missing or bad argument or
 *      configuration value, or an input file the user named that is
 *      missing, unreadable, empty where it must not be, or malformed.
 */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* The exit status for a negative error code of a library (core_strerror's
 * codes and -errno): CLI_EXIT_USAGE when the fault is in what the user
 * gave (a missing or unreadable file, a bad format or version, a limit
 * the input passes), CLI_EXIT_FAIL otherwise; 0 for 0. */
int cli_exit_status(int rc);

typedef enum {
    CLI_FLAG, /* bool, no value */
    CLI_STR,  /* const char * */
    CLI_LIST, /* repeatable: appended to a cli_list */
    CLI_UINT, /* unsigned, with bounds */
    CLI_CFG,  /* sets a configuration key: target is a cli_cfg_arg */
} cli_type;

/* The target of a CLI_CFG option: the key it sets and the value given
 * (NULL if the flag was not). Its help shows the key and its default; the
 * value is checked against the key's type and range by cli_config. */
typedef struct cli_cfg_arg {
    const char *key;
    const char *value;
} cli_cfg_arg;

typedef struct cli_list {
    const char **v;
    size_t n, cap;
} cli_list;

typedef struct cli_opt {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 if none */
    cli_type type;
    void *target;        /* bool*, const char**, cli_list*, unsigned*, cli_cfg_arg* */
    const char *metavar; /* value name in help: FILE, GLOB, N */
    const char *help;
    unsigned min, max; /* CLI_UINT bounds */
} cli_opt;

typedef struct cli_cmd {
    const char *name;    /* "index", "graph stats" */
    const char *usage;   /* after the name: "DIR... -o FILE [options]" */
    const char *summary; /* one sentence: what the command does ('pmrag --help' says the same) */
    const char *details; /* paragraphs after the options, or NULL */
    const cli_opt *opts;
    size_t nopts;
    unsigned min_args, max_args; /* positional arguments */
    const char *examples;        /* command lines, one a line, each after "  $ " */
} cli_cmd;

/*
 * Every command takes --quiet (-q), --config FILE and --set KEY=VALUE, so
 * that a script can pass them to any: a command that lists them in its own
 * table gets them there; one that does not still has the configuration
 * checked (an error exits 2) and --quiet drops notes (cli_quiet).
 *
 * Parses argv (argv[0] is the first argument after the command name).
 * Positional arguments go to args (borrowed from argv). Returns true when
 * the command should run; false when it should exit with *status: 0 after
 * --help, CLI_EXIT_USAGE after printing the error line. On false, args and
 * every CLI_LIST option's list have been freed.
 */
bool cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_list *args, int *status);
void cli_help(const cli_cmd *cmd);
/* Whether --quiet was given to a command whose table does not list it. */
bool cli_quiet(void);
/* The exit status table, which ends every help ('pmrag --help' too). */
void cli_help_footer(FILE *out);

/* A command made of subcommands (graph, state, bench): its help lists
 * them, each with its usage, what it does and an example. */
typedef struct cli_sub {
    const char *name;    /* "stats" */
    const char *usage;   /* after "pmrag GROUP NAME" */
    const char *summary; /* the subcommand's one sentence */
    const char *example; /* one command line */
} cli_sub;
void cli_group_help(FILE *out, const char *group, const char *summary, const cli_sub *subs,
                    size_t n);

/*
 * Configuration: the options --config FILE and --set KEY=VALUE, to put in
 * a command's option table, and the effective configuration they give:
 * defaults, then the file, then each --set, then the command's CLI_CFG
 * flags (the most specific wins). An error (file, line and key, or the
 * flag and its allowed range) is reported in one line; returns 0 or
 * CLI_EXIT_USAGE.
 */
// clang-format off
#define CLI_CONFIG_OPTS(path, sets)                                                       \
    {"config", 0, CLI_STR, (path), "FILE", "YAML configuration (see 'pmrag config --help')", \
     0, 0},                                                                               \
    {"set", 0, CLI_LIST, (sets), "KEY=VALUE", "set one configuration key (repeatable)", 0, 0}
// clang-format on
int cli_config(const cli_cmd *cmd, const char *path, const cli_list *sets, core_cfg **out);

/* "pmrag CMD: message" on stderr; cli_usage_error adds "(see 'pmrag CMD
 * --help')" and returns CLI_EXIT_USAGE, cli_error returns CLI_EXIT_FAIL
 * (a caller whose fault is bad input returns CLI_EXIT_USAGE itself). */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) CORE_PRINTF(2, 3);
int cli_error(const char *cmd, const char *fmt, ...) CORE_PRINTF(2, 3);

/* A core_logger that writes "pmrag: warning: ..." lines to stderr,
 * clearing a progress line first. quiet drops notes. */
core_logger cli_logger(bool quiet);
/* The same, each line led by its time (UTC, ISO 8601): for the daemon. */
core_logger cli_daemon_logger(bool quiet);

/* Progress on stderr: "label done/total (rate/s)", redrawn at most ten
 * times a second; only when enabled (a terminal, or --progress). Safe to
 * call from several threads. */
typedef struct cli_progress cli_progress;
cli_progress *cli_progress_new(const char *label, const char *unit, bool enabled);
void cli_progress_update(void *p, uint64_t done, uint64_t total);
void cli_progress_done(cli_progress *p);
bool cli_stderr_is_tty(void);
/* Progress of work done in named stages (model_log_opts.progress): a
 * progress line per stage, cleared when the stage says it is done
 * (done == total). ud is a cli_stages, zeroed but for enabled. */
typedef struct cli_stages {
    cli_progress *p;
    const char *stage;
    bool enabled;
} cli_stages;
void cli_progress_stage(void *ud, const char *stage, uint64_t done, uint64_t total);

/* qsort comparator of uint64_t values (timings), ascending. */
int cli_cmp_u64(const void *a, const void *b);

/* Writes buffered text to stdout; returns 0 or 1 after reporting a write
 * error (a closed pipe is not an error). */
int cli_write_stdout(const char *cmd, const char *data, size_t n);

/* Opens a graph file; on failure prints "pmrag CMD: cannot open PATH: why"
 * (or the reason it was rejected) and returns CLI_EXIT_USAGE. */
struct graph;
int cli_open_graph(const char *cmd, const char *path, struct graph **g);
/* One symbol by qualified name or unique suffix; on none or several,
 * prints which and returns CLI_EXIT_USAGE. */
int cli_find_symbol(const char *cmd, const struct graph *g, const char *name, uint32_t *out);

#endif
