/*
 * The start of pmrag map, mine, eval and predict (log_session.h).
 */
#include "log_session.h"

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

void log_session_free(session *s)
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

/* --train-frac: 0.7 when not given. 0 trains on no case: every case is
 * predicted from the code alone, as a daemon's first events are. 1 would
 * leave nothing to predict. */
static int log_parse_frac(const cli_cmd *cmd, const char *text, double *out)
{
    char *end = NULL;
    *out = text ? strtod(text, &end) : 0.7;
    if (text && (end == text || *end || !(*out >= 0 && *out < 1)))
        return cli_usage_error(
            cmd, "--train-frac takes a number from 0 up to but not including 1, not '%s'", text);
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
int log_session_open(const cli_cmd *cmd, log_args *a, bool split, session *s, model_joint **md,
                     bool truth)
{
    memset(s, 0, sizeof *s);
    double frac = 1.0;
    int rc = split ? log_parse_frac(cmd, a->train_frac, &frac) : 0;
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
        /* A mapping reported without a model is of complete cases. */
        .whole_cases = md == NULL,
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
    log_session_free(s);
    return rc;
}
