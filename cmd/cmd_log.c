/*
 * pmrag map and mine: from an event log and a graph to activities and a
 * model. The work is model_train_from_log (model/); here are the options
 * and the output.
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
        "template (logger and span templates of the code; an error logged whole by the\n"
        "text it was made with), const (templates held in constants, and errors, followed\n"
        "through the code graph to what catches or reports them), logger (a message no\n"
        "template shows: where its case was, its logger's sites that log text made at\n"
        "run time, where the code goes next, the calls with such text through an object\n"
        "its other messages went through), stack (the first frame of a Python\n"
        "traceback it carries), tokens (TF-IDF, to a function near the case that\n"
        "logs text made at run time), llm (--llm-cmd).\n"
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
    if ((rc = log_session_open(&cmd, &a, false, &s, NULL, false)) != 0)
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
    log_session_free(&s);
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
    if ((rc = log_session_open(&cmd, &a, false, &s, &md, false)) != 0)
        return rc;
    model_seqs all = model_log_all(&s.log);
    rc = model_save(md, out_path);
    if (rc) {
        model_free(md);
        log_session_free(&s);
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
    log_session_free(&s);
    return rc;
}
