/*
 * What pmrag map, mine, eval and predict share (cmd/ only): their options,
 * and the session every one of them starts with: the graph, the log
 * mapped through a mapper, the configuration, the training options and,
 * when asked, the model (log_session.c).
 */
#ifndef PMRAG_CMD_LOG_SESSION_H
#define PMRAG_CMD_LOG_SESSION_H

#include "cli.h"
#include "map.h"
#include "model.h"

typedef struct log_args {
    const char *graph_path, *log_path, *format, *case_col, *activity_col, *time_col;
    const char *file_col, *function_col, *line_col, *overrides_path, *llm_cmd, *order;
    bool skip_bad, learn_code_attrs, no_tokens, include_tests, quiet, verbose, progress, json;
    const char *train_frac;
    const char *cfg_path;
    cli_list sets;
    const char *model_path, *old_graph_path; /* eval and predict */
} log_args;

// clang-format off
#define LOG_OPTS(a)                                                                              \
    {"graph", 0, CLI_STR, &(a)->graph_path, "FILE", "graph file from pmrag index (required)",    \
     0, 0},                                                                                      \
    {"log", 0, CLI_STR, &(a)->log_path, "FILE",                                                  \
     "event log: CSV, JSONL, XES or OTLP JSON, gzip or not (required)", 0, 0},                   \
    {"format", 0, CLI_STR, &(a)->format, "FMT", "auto (default), csv, jsonl, xes, otlp-json",   \
     0, 0},                                                                                      \
    {"case-col", 0, CLI_STR, &(a)->case_col, "NAME",                                             \
     "case column (default case_id, then case:concept:name)", 0, 0},                             \
    {"activity-col", 0, CLI_STR, &(a)->activity_col, "NAME",                                     \
     "activity column (default activity, then concept:name)", 0, 0},                             \
    {"time-col", 0, CLI_STR, &(a)->time_col, "NAME",                                             \
     "time column (default timestamp, then time:timestamp)", 0, 0},                              \
    {"file-col", 0, CLI_STR, &(a)->file_col, "NAME",                                             \
     "truth file column (default code.file.path, then code.filepath)", 0, 0},                    \
    {"function-col", 0, CLI_STR, &(a)->function_col, "NAME",                                     \
     "truth function column (default code.function.name, then code.function)", 0, 0},           \
    {"line-col", 0, CLI_STR, &(a)->line_col, "NAME",                                             \
     "truth line column (default code.line.number, then code.lineno)", 0, 0},                    \
    {"order", 0, CLI_STR, &(a)->order, "ORDER",                                                  \
     "each case's events in event time (time, the default: as the daemon orders them) or in "   \
     "the order of the file (arrival)", 0, 0},                                                   \
    {"skip-bad", 0, CLI_FLAG, &(a)->skip_bad, NULL,                                              \
     "count and skip malformed records instead of stopping at the first", 0, 0},                 \
    {"learn-code-attrs", 0, CLI_FLAG, &(a)->learn_code_attrs, NULL,                              \
     "let the mapping learn from the train split's code.* attributes (instrumented setting)",    \
     0, 0},                                                                                      \
    {"overrides", 0, CLI_STR, &(a)->overrides_path, "FILE",                                      \
     "YAML rules mapping activity patterns to symbols", 0, 0},                                   \
    {"llm-cmd", 0, CLI_STR, &(a)->llm_cmd, "CMD",                                                \
     "map what nothing else maps by asking CMD (JSON on stdin and stdout; map.llm_cmd)", 0, 0},  \
    {"no-tokens", 0, CLI_FLAG, &(a)->no_tokens, NULL,                                            \
     "do not map activities by token similarity (map.tokens=false)", 0, 0},                     \
    {"include-tests", 0, CLI_FLAG, &(a)->include_tests, NULL,                                    \
     "map to tests, examples, vendored code and browser builds as to the product (map.include_tests)", 0, 0},    \
    {"progress", 0, CLI_FLAG, &(a)->progress, NULL,                                              \
     "show progress even when stderr is not a terminal", 0, 0},                                  \
    {"quiet", 'q', CLI_FLAG, &(a)->quiet, NULL, "no notes on stderr", 0, 0},                     \
    {"verbose", 'v', CLI_FLAG, &(a)->verbose, NULL,                                              \
     "also print the steps of the work (calibration candidates, folds, timings)", 0, 0},        \
    {"json", 0, CLI_FLAG, &(a)->json, NULL, "print JSON", 0, 0},                                 \
    CLI_CONFIG_OPTS(&(a)->cfg_path, &(a)->sets)
/* A model to use instead of training one (eval, predict). */
#define MODEL_OPTS(a)                                                                            \
    {"model", 0, CLI_STR, &(a)->model_path, "FILE",                                              \
     "use this model from pmrag mine instead of training on the train split (one trained on "    \
     "another release's graph is re-mapped onto --graph, as pmrag remap does)", 0, 0},           \
    {"old-graph", 0, CLI_STR, &(a)->old_graph_path, "FILE",                                      \
     "the graph --model was trained on, when it is not --graph (see pmrag remap)", 0, 0}
// clang-format on

/* What the log commands share: the graph, the log mapped through the
 * mapper, the configuration and the training options. */
typedef struct session {
    graph *g, *old;
    map_overrides *ov;
    map_mapper *m;
    model_log log;
    core_cfg *cfg;
    model_train_opts to;
    cli_stages progress;
    map_remap remap; /* what loading --model did */
} session;

/* The mapping's largest misses that map and eval list. */
#define MISSES 10

void log_session_free(session *s);
/*
 * The start of every log command: the split (--train-frac when split, else
 * every case trains), the graph, then model_train_from_log (a model into
 * *md when md is not NULL). Returns 0, or the exit status after reporting
 * (and s freed).
 */
int log_session_open(const cli_cmd *cmd, log_args *a, bool split, session *s, model_joint **md,
                     bool truth);

#endif
