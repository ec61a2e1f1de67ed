/*
 * pmrag map, mine, eval and predict: from an event log and a graph to
 * activities, a model, scores and ranked next emitters. The work is
 * model_train_from_log (model/) and the scoring (eval/); here are the
 * options and the output.
 */
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "eval.h"
#include "graph.h"
#include "ingest.h"
#include "model.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
     "map to tests, examples and vendored code as to the product (map.include_tests)", 0, 0},    \
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

static void session_free(session *s)
{
    model_log_free(&s->log);
    map_mapper_free(s->m);
    map_overrides_free(s->ov);
    map_remap_free(&s->remap);
    if (s->old)
        graph_close(s->old);
    if (s->g)
        graph_close(s->g);
    core_cfg_free(s->cfg);
}

/* --train-frac: 0.7 when not given. */
static int parse_frac(const cli_cmd *cmd, const char *text, double *out)
{
    char *end = NULL;
    *out = text ? strtod(text, &end) : 0.7;
    if (text && (*end || !(*out > 0 && *out < 1)))
        return cli_usage_error(cmd, "--train-frac takes a number between 0 and 1, not '%s'", text);
    return 0;
}

/* Says on stderr what was done with --model: used as it is, or re-mapped
 * (the counts of the report; pmrag remap prints all of it). */
static void model_note(const char *cmd, const char *model_path, const char *graph_path,
                       const session *s)
{
    if (!s->remap.remapped) {
        fprintf(stderr, "%s: using %s as it is (trained on %s)\n", cmd, model_path, graph_path);
        return;
    }
    core_buf b = {0};
    map_remap_format(&s->remap, s->m, false, 1, &b);
    const char *nl = memchr(b.data, '\n', b.len);
    fprintf(stderr, "%s: %s was trained on another graph: re-mapped onto %s: %.*s\n", cmd,
            model_path, graph_path, (int)(nl ? nl - b.data : (ptrdiff_t)b.len), b.data);
    core_buf_free(&b);
}

/*
 * The start of every log command: the split (--train-frac when split, else
 * every case trains), the graph, then model_train_from_log (a model into
 * *md when md is not NULL). Returns 0, or the exit status after reporting
 * (and s freed).
 */
static int session_open(const cli_cmd *cmd, log_args *a, bool split, session *s, model_joint **md,
                        bool truth)
{
    memset(s, 0, sizeof *s);
    double frac = 1.0;
    int rc = split ? parse_frac(cmd, a->train_frac, &frac) : 0;
    if (!rc)
        rc = cli_config(cmd, a->cfg_path, &a->sets, &s->cfg);
    free(a->sets.v);
    a->sets.v = NULL;
    if (rc)
        goto fail;
    /* The mapping flags stand for keys, so that the mapper's options come
     * from the configuration alone, as the daemon's do. */
    char why[1024];
    if ((a->no_tokens &&
         core_cfg_put(s->cfg, "map.tokens", "false", "--no-tokens", why, sizeof why) != 0) ||
        (a->include_tests && core_cfg_put(s->cfg, "map.include_tests", "true", "--include-tests",
                                          why, sizeof why) != 0) ||
        (a->llm_cmd &&
         core_cfg_put(s->cfg, "map.llm_cmd", a->llm_cmd, "--llm-cmd", why, sizeof why) != 0)) {
        rc = cli_usage_error(cmd, "%s", why);
        goto fail;
    }
    s->to = config_train_opts(s->cfg, cli_logger(a->quiet));
    if (a->verbose && !a->quiet)
        s->to.log.min = CORE_LOG_INFO;
    if (!a->graph_path || !a->log_path) {
        rc = cli_usage_error(cmd, "missing %s", a->graph_path ? "--log FILE" : "--graph FILE");
        goto fail;
    }
    s->progress.enabled = a->progress || cli_stderr_is_tty();
    model_log_opts lo = {
        .in = {.case_key = a->case_col,
               .activity_key = a->activity_col,
               .time_key = a->time_col,
               .skip_bad = a->skip_bad,
               .log = s->to.log},
        .train_frac = frac,
        .file_key = a->file_col,
        .function_key = a->function_col,
        .line_key = a->line_col,
        .learn_code_attrs = a->learn_code_attrs,
        .require_truth = truth,
        .progress = cli_progress_stage,
        .progress_ud = &s->progress,
    };
    if (a->order && strcmp(a->order, "time") != 0 && strcmp(a->order, "arrival") != 0) {
        rc = cli_usage_error(cmd, "--order takes time or arrival, not '%s'", a->order);
        goto fail;
    }
    lo.arrival_order = a->order && strcmp(a->order, "arrival") == 0;
    if (a->format && ingest_format_parse(a->format, &lo.in.format) != 0) {
        rc = cli_usage_error(cmd, "--format takes auto, csv, jsonl, xes or otlp-json, not '%s'",
                             a->format);
        goto fail;
    }
    if ((rc = cli_open_graph(cmd->name, a->graph_path, &s->g)) != 0)
        goto fail;
    if (a->overrides_path &&
        map_overrides_load(a->overrides_path, s->g, &s->ov, why, sizeof why) != 0) {
        cli_error(cmd->name, "%s", why);
        rc = CLI_EXIT_USAGE;
        goto fail;
    }
    map_mapper_opts mo = config_mapper_opts(s->cfg, s->ov, s->to.log);
    /* Offline, learning from code.* is the instrumented setting of an
     * evaluation, chosen per run; map.code_attrs is the daemon's. */
    mo.use_code_attrs = a->learn_code_attrs;
    if (a->old_graph_path && !a->model_path) {
        rc = cli_usage_error(cmd, "--old-graph goes with --model");
        goto fail;
    }
    if (a->old_graph_path && (rc = cli_open_graph(cmd->name, a->old_graph_path, &s->old)) != 0)
        goto fail;
    s->to.model_path = a->model_path;
    s->to.load = (model_load_opts){.remap = true, .old = s->old, .report = &s->remap};
    int trc = model_train_from_log(s->g, &mo, a->log_path, &lo, &s->to, &s->m, &s->log, md, why,
                                   sizeof why);
    if (trc != 0) {
        cli_error(cmd->name, "%s", why);
        rc = cli_exit_status(trc);
        goto fail;
    }
    if (a->model_path && !a->quiet)
        model_note(cmd->name, a->model_path, a->graph_path, s);
    return 0;
fail:
    session_free(s);
    return rc;
}

/* The mapping's largest misses that map and eval list. */
#define MISSES 10

typedef struct act_order {
    uint32_t id;
    uint64_t count;
} act_order;

static int cmp_act_order(const void *a, const void *b)
{
    const act_order *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

int cmd_map(int argc, char **argv)
{
    log_args a = {0};
    unsigned top = 0;
    const cli_opt opts[] = {
        LOG_OPTS(&a),
        {"top", 'n', CLI_UINT, &top, "N", "list only the N most frequent activities", 0, 100000000},
    };
    const cli_cmd cmd = {
        "map",
        "--graph FILE --log FILE [options]",
        "Maps a log's events to activities and the activities to the symbols that emit them.",
        "Maps every event of a log to an activity and the activity to the symbols that\n"
        "emit it, and reports the coverage: per activity its count, the chosen symbols\n"
        "with their confidence and the strategy that chose them; then the share of\n"
        "events each strategy mapped."
        "\n\n"
        "Strategies, in order: code (with --learn-code-attrs), override (--overrides),\n"
        "template (logger and span templates of the code), const (templates held in\n"
        "constants, followed through the code graph), tokens (TF-IDF), llm (--llm-cmd).\n"
        "With truth columns in the log (code.filepath and code.lineno), the share of\n"
        "events whose first symbol holds the truth line is shown per strategy.\n"
        "JSON: {\"activities\":[{\"activity\",\"count\",\"strategy\",\"variants\",\"symbols\":\n"
        "[{\"symbol\",\"kind\",\"file\",\"start_line\",\"end_line\",\"confidence\"}]}],"
        "\"coverage\"}.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag map --graph app.pmg --log events.csv -n 20\n"
        "pmrag map --graph app.pmg --log events.jsonl.gz --overrides rules.yaml --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    if ((rc = session_open(&cmd, &a, false, &s, NULL, false)) != 0)
        return rc;
    uint32_t A = map_mapper_nactivities(s.m);
    act_order *ord = core_xmalloc((A ? A : 1) * sizeof *ord);
    uint32_t n = 0;
    for (uint32_t i = 0; i < A; i++) {
        map_activity pa;
        map_mapper_activity(s.m, i, &pa);
        if (pa.count)
            ord[n++] = (act_order){i, pa.count};
    }
    qsort(ord, n, sizeof *ord, cmp_act_order);
    if (top && top < n)
        n = top;
    eval_mapping t;
    eval_mapping_count(s.m, &s.log, 0, s.log.ncases, &t);
    eval_miss misses[MISSES];
    uint32_t nmiss = eval_mapping_misses(s.m, &s.log, 0, s.log.ncases, misses, MISSES);
    core_buf b = {0};
    if (a.json) {
        core_buf_puts(&b, "{\"activities\":[");
        for (uint32_t i = 0; i < n; i++) {
            map_activity pa;
            map_mapper_activity(s.m, ord[i].id, &pa);
            core_buf_puts(&b, i ? ",{\"activity\":" : "{\"activity\":");
            core_buf_json_str(&b, pa.text, strlen(pa.text));
            core_buf_printf(&b, ",\"count\":%llu,\"strategy\":\"%s\",\"variants\":%u,\"symbols\":[",
                            (unsigned long long)pa.count,
                            map_strategy_name(pa.nsyms ? pa.strategy : MAP_BY_NONE), pa.nvariants);
            for (uint32_t k = 0; k < pa.nsyms; k++) {
                if (k)
                    core_buf_putc(&b, ',');
                core_buf_puts(&b, "{\"confidence\":");
                core_buf_json_float(&b, pa.conf[k]);
                graph_symbol_json(&b, s.g, pa.syms[k]);
                core_buf_putc(&b, '}');
            }
            core_buf_puts(&b, "]}");
        }
        core_buf_puts(&b, "],\"coverage\":");
        eval_mapping_json(&t, s.log.has_truth, &b);
        core_buf_puts(&b, ",\"misses\":");
        eval_misses_json(s.m, &s.log, misses, nmiss, &b);
        core_buf_puts(&b, "}\n");
    } else {
        for (uint32_t i = 0; i < n; i++) {
            map_activity pa;
            map_mapper_activity(s.m, ord[i].id, &pa);
            core_buf_printf(&b, "%8llu  %-8s  ", (unsigned long long)pa.count,
                            map_strategy_name(pa.nsyms ? pa.strategy : MAP_BY_NONE));
            core_buf_oneline(&b, pa.text, 100);
            core_buf_putc(&b, '\n');
            for (uint32_t k = 0; k < pa.nsyms && k < 5; k++) {
                graph_symbol sy;
                graph_get_symbol(s.g, pa.syms[k], &sy);
                core_buf_printf(&b, "%20.2f  %s  %s:%u-%u\n", pa.conf[k], sy.qualname, sy.file,
                                sy.start_line, sy.end_line);
            }
            if (pa.nsyms > 5)
                core_buf_printf(&b, "%20s  ... %u more\n", "", pa.nsyms - 5);
        }
        core_buf_printf(&b, "\n%llu events in %u cases, %u activities\n",
                        (unsigned long long)s.log.nevents, s.log.ncases, A);
        eval_mapping_text(&t, s.log.has_truth, &b);
        if (nmiss) {
            core_buf_printf(&b, "\nlargest misses (%s/events, strategy, activity):\n",
                            s.log.has_truth ? "missed" : "unmapped");
            eval_misses_text(s.m, &s.log, misses, nmiss, &b);
        }
    }
    free(ord);
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    session_free(&s);
    return rc;
}

int cmd_eval(int argc, char **argv)
{
    log_args a = {0};
    bool curve = false, no_baselines = false;
    const cli_opt opts[] = {
        LOG_OPTS(&a),
        {"train-frac", 0, CLI_STR, &a.train_frac, "F",
         "share of cases (by first event) that train; the rest test (default 0.7)", 0, 0},
        {"learning-curve", 0, CLI_FLAG, &curve, NULL,
         "also score pmrag, df2 and df2 over the true emitters trained on the first 0, 5, 20, "
         "100 and all training cases",
         0, 0},
        {"no-baselines", 0, CLI_FLAG, &no_baselines, NULL, "score pmrag alone", 0, 0},
        MODEL_OPTS(&a),
    };
    const cli_cmd cmd = {
        "eval",
        "--graph FILE --log FILE [--train-frac 0.7] [options]",
        "Scores next-event localization on a log's test split, with baselines.",
        "Next-event localization: cases are ordered by their first event, the first\n"
        "share trains, and for every prefix k = 1..n-1 of every test case the functions\n"
        "ranked for event k+1 are checked against its truth (code.filepath and\n"
        "code.lineno: a hit when the file matches and the line is inside the symbol).\n"
        "Unmapped or unpredictable targets count as misses."
        "\n\n"
        "Baselines, computed in the same run over the same mapping: bm25 and tokens\n"
        "(BM25 and TF-IDF over names, docstrings and templates, query = the last\n"
        "activity), df1 and df2 (directly-follows of order 1 and 2), same_function (the\n"
        "current activity's emitters), global_pagerank, ppr_no_follows (PageRank over\n"
        "the code graph from the current emitters). The 'change' subset keeps targets\n"
        "whose function differs from the previous event's; the 'unseen' subset those\n"
        "whose transition (the previous event's activity to the true next emitter) no\n"
        "training case shows. Nothing learns from code.* columns unless\n"
        "--learn-code-attrs (then only from the train split)."
        "\n\n"
        "--learning-curve trains on the first K training cases (by first event) for K =\n"
        "0, 5, 20, 100 and all, and scores the same test cases each time: pmrag, df2,\n"
        "and df2 over the true emitters (the log mapped again by its code.* columns).\n"
        "JSON: {\"task\":\"next-event-localization\",\"n\",\"top_k\":{\"1\",\"3\",\"5\",\"10\"},\n"
        "\"mrr\",\"coverage\",\"change\",\"baselines\":{NAME:{\"all\",\"change\"}},\"params\"...}.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag eval --graph app.pmg --log events.csv --train-frac 0.7\n"
        "pmrag eval --graph app.pmg --log events.csv --learning-curve --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (curve && a.model_path)
        return cli_usage_error(&cmd, "--learning-curve trains its own models: not with --model");
    /* The learning curve maps the log a second time, by its true emitters,
     * with the same options: session_open frees the --set list it reads. */
    log_args a_true = a;
    a_true.sets.v = NULL;
    if (curve && a.sets.n) {
        a_true.sets.v = core_xmalloc(a.sets.n * sizeof *a.sets.v);
        memcpy(a_true.sets.v, a.sets.v, a.sets.n * sizeof *a.sets.v);
    }
    session s;
    model_joint *md = NULL;
    if ((rc = session_open(&cmd, &a, true, &s, &md, true)) != 0) {
        free(a_true.sets.v);
        return rc;
    }
    model_seqs train = model_log_train(&s.log);
    eval_baselines *b = NULL;
    if (!no_baselines && (rc = eval_baselines_new(s.g, s.m, &train, &b)) != 0) {
        free(a_true.sets.v);
        model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "baselines: %s", core_strerror(rc));
    }
    eval_result r;
    uint64_t t0 = core_now_ns();
    rc = eval_run(s.m, &s.log, md, b, &r);
    double eval_s = (double)(core_now_ns() - t0) / 1e9;
    eval_mapping mt;
    eval_mapping_count(s.m, &s.log, s.log.ntrain, s.log.ncases, &mt);
    eval_miss misses[MISSES];
    uint32_t nmiss = eval_mapping_misses(s.m, &s.log, s.log.ntrain, s.log.ncases, misses, MISSES);
    /* The learning curve starts each time from the configured parameters,
     * not the ones calibrated for the whole training split. */
    static const uint32_t curve_n[] = {0, 5, 20, 100, UINT32_MAX};
    eval_curve_point points[5];
    if (curve && !rc) {
        model_train_opts to = s.to;
        to.params = config_model_params(s.cfg);
        session st;
        bool with_true = !a.learn_code_attrs;
        if (with_true) {
            a_true.learn_code_attrs = true;
            a_true.quiet = true;
            with_true = session_open(&cmd, &a_true, true, &st, NULL, true) == 0;
            a_true.sets.v = NULL; /* (session_open freed it) */
        }
        rc = eval_learning_curve(s.m, &s.log, &to, with_true ? st.m : NULL,
                                 with_true ? &st.log : NULL, curve_n, 5, points);
        if (with_true)
            session_free(&st);
    }
    if (!rc) {
        eval_report rep = {.mapper = s.m,
                           .misses = misses,
                           .nmisses = nmiss,
                           .log = &s.log,
                           .result = &r,
                           .baselines = b != NULL,
                           .mapping = &mt,
                           .params = &s.to.params,
                           .ncurve = curve ? 5 : 0,
                           .curve = points,
                           .train_seconds = s.to.seconds,
                           .eval_seconds = eval_s};
        model_get_stats(md, &rep.model);
        core_buf o = {0};
        if (a.json)
            eval_report_json(&rep, &o);
        else
            eval_report_text(&rep, &o);
        rc = cli_write_stdout(cmd.name, o.data, o.len);
        core_buf_free(&o);
    } else {
        rc = cli_error(cmd.name, "%s", core_strerror(rc));
    }
    free(a_true.sets.v);
    eval_baselines_free(b);
    model_free(md);
    session_free(&s);
    return rc;
}

int cmd_predict(int argc, char **argv)
{
    log_args a = {0};
    unsigned k = 10;
    const char *out_path = NULL;
    const cli_opt opts[] = {
        LOG_OPTS(&a),
        {"train-frac", 0, CLI_STR, &a.train_frac, "F",
         "share of cases (by first event) that train; the rest are predicted (default 0.7)", 0, 0},
        {"top", 'k', CLI_UINT, &k, "K", "symbols per prefix (default 10)", 1, 1000},
        {"output", 'o', CLI_STR, &out_path, "FILE", "write the JSONL here instead of stdout", 0, 0},
        MODEL_OPTS(&a),
    };
    const cli_cmd cmd = {
        "predict",
        "--graph FILE --log FILE [-k 10] [--train-frac 0.7] [options]",
        "Writes the ranked next emitters of every prefix of a log's test cases.",
        "Learns on the train split and writes one JSON line per prefix of every test\n"
        "case: {\"case_id\",\"prefix_len\",\"ranked\":[{\"file\",\"symbol\",\"kind\",\n"
        "\"start_line\",\"end_line\",\"score\",\"activity\"|\"near\"}...]}, best first."
        "\n\n"
        "The split is eval's: cases ordered by first event (ties by id), the first\n"
        "--train-frac train. Files are relative to the indexed root; lines 1-based and\n"
        "inclusive. 'activity' is the predicted next activity the symbol comes from.\n"
        "When the model puts its mass on fewer than k symbols, the rest of the list is\n"
        "filled with the emitting symbols nearest them in the code graph: those have\n"
        "'near' (the ranked symbol they were reached from) instead of 'activity'.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag predict --graph app.pmg --log events.csv -k 5 -o predictions.jsonl",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    model_joint *md = NULL;
    if ((rc = session_open(&cmd, &a, true, &s, &md, false)) != 0)
        return rc;
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "cannot write %s", out_path);
    }
    model_work *w;
    rc = model_work_new(md, &w);
    model_pred *pred = core_xmalloc(k * sizeof *pred);
    core_buf b = {0};
    const model_log *l = &s.log;
    for (uint32_t c = l->ntrain; c < l->ncases && !rc; c++) {
        uint32_t o = l->off[c], len = l->off[c + 1] - o;
        const char *cid = model_log_str(l, l->case_id[c]);
        for (uint32_t p = 1; p < len; p++) {
            uint32_t n = model_rank(md, w, l->act + o, l->var + o, p, k, pred);
            core_buf_reset(&b);
            core_buf_puts(&b, "{\"case_id\":");
            core_buf_json_str(&b, cid, strlen(cid));
            core_buf_printf(&b, ",\"prefix_len\":%u,\"ranked\":", p);
            serve_ranked_json(&b, s.m, pred, n);
            core_buf_puts(&b, "}\n");
            if (fwrite(b.data, 1, b.len, out) != b.len) {
                rc = cli_error(cmd.name, "write error");
                break;
            }
        }
    }
    if (out != stdout && fclose(out) != 0 && !rc)
        rc = cli_error(cmd.name, "cannot write %s", out_path);
    core_buf_free(&b);
    free(pred);
    model_work_free(w);
    model_free(md);
    session_free(&s);
    return rc;
}

/* The activities that start (end) the most cases, at most k (at most 5),
 * most first: JSON [{"activity","cases"},...] or text lines. */
static void boundary_activities(const model_seqs *all, const map_mapper *m, bool end, uint32_t k,
                                bool json, core_buf *b)
{
    uint32_t acts[5], counts[5];
    uint32_t n =
        model_seqs_boundary(all, map_mapper_nactivities(m), end, k < 5 ? k : 5, acts, counts);
    if (json)
        core_buf_putc(b, '[');
    for (uint32_t i = 0; i < n; i++) {
        map_activity pa;
        map_mapper_activity(m, acts[i], &pa);
        if (json) {
            core_buf_puts(b, i ? ",{\"activity\":" : "{\"activity\":");
            core_buf_json_str(b, pa.text, strlen(pa.text));
            core_buf_printf(b, ",\"cases\":%u}", counts[i]);
        } else {
            core_buf_printf(b, "       %s %6u  ", end ? "end  " : "start", counts[i]);
            core_buf_oneline(b, pa.text, 100);
            core_buf_putc(b, '\n');
        }
    }
    if (json)
        core_buf_putc(b, ']');
}

int cmd_mine(int argc, char **argv)
{
    log_args a = {0};
    const char *out_path = NULL;
    const cli_opt opts[] = {
        LOG_OPTS(&a),
        {"output", 'o', CLI_STR, &out_path, "FILE", "the model file to write (required)", 0, 0},
    };
    const cli_cmd cmd = {
        "mine",
        "--graph FILE --log FILE -o MODEL [options]",
        "Learns a model (activities, directly-follows contexts) from a log.",
        "Learns from a whole log: maps its events to activities and symbols, mines the\n"
        "directly-follows contexts, calibrates the model by cross-validation over the\n"
        "cases (model.calibrate_folds folds) and writes the model file used by\n"
        "'pmrag query' and 'pmrag serve'."
        "\n\n"
        "The model is tied to the graph file it was mined with.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag mine --graph app.pmg --log events.csv -o app.model",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!out_path)
        return cli_usage_error(&cmd, "missing -o MODEL");
    session s;
    model_joint *md = NULL;
    if ((rc = session_open(&cmd, &a, false, &s, &md, false)) != 0)
        return rc;
    model_seqs all = model_log_all(&s.log);
    rc = model_save(md, out_path);
    if (rc) {
        model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "cannot write %s: %s", out_path, core_strerror(rc));
    }
    model_stats st;
    model_get_stats(md, &st);
    core_buf b = {0};
    if (a.json) {
        core_buf_printf(&b, "{\"model\":");
        core_buf_json_str(&b, out_path, strlen(out_path));
        core_buf_printf(&b,
                        ",\"cases\":%u,\"events\":%llu,\"activities\":%u,\"contexts\":%u,"
                        "\"variants_kept\":%u,\"edges\":%zu,\"params\":",
                        s.log.ncases, (unsigned long long)s.log.nevents, st.activities, st.contexts,
                        st.variants_kept, st.edges);
        model_params_format(&s.to.params, true, &b);
        core_buf_puts(&b, ",\"start_activities\":");
        boundary_activities(&all, s.m, false, 5, true, &b);
        core_buf_puts(&b, ",\"end_activities\":");
        boundary_activities(&all, s.m, true, 5, true, &b);
        core_buf_puts(&b, "}\n");
    } else {
        core_buf_printf(&b,
                        "pmrag: mined %u cases (%llu events) -> %s\n       %u activities, %u "
                        "contexts (%u activities with variants), %zu edges\n       ",
                        s.log.ncases, (unsigned long long)s.log.nevents, out_path, st.activities,
                        st.contexts, st.variants_kept, st.edges);
        model_params_format(&s.to.params, false, &b);
        core_buf_puts(&b,
                      "\n       cases that start and end with each activity (the five most):\n");
        boundary_activities(&all, s.m, false, 5, false, &b);
        boundary_activities(&all, s.m, true, 5, false, &b);
    }
    rc = a.json ? cli_write_stdout(cmd.name, b.data, b.len) : (fputs(b.data, stderr), 0);
    core_buf_free(&b);
    model_free(md);
    session_free(&s);
    return rc;
}
