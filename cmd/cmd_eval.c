/*
 * pmrag eval and predict: scores and ranked next emitters over a log's
 * test split. The work is model_train_from_log (model/) and the scoring
 * (eval/); here are the options and the output.
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

/* What pmrag eval --help says beyond its options. */
static const char eval_help[] =
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
    "--added-since GRAPH scores the 'added' subset too: targets whose true line is\n"
    "a logging site whose template text no logging site of GRAPH has (a message\n"
    "the older release does not log: an added path, or a reworded message). A\n"
    "site whose message is built at run time has no text to compare and is not\n"
    "counted. With --model trained on GRAPH, this is how a model carried across a\n"
    "release does on what that release added."
    "\n\n"
    "--learning-curve trains on the first K training cases (by first event) for K =\n"
    "0, 5, 20, 100 and all, and scores the same test cases each time: pmrag, df2,\n"
    "and df2 over the true emitters (the log mapped again by its code.* columns).\n"
    "JSON: {\"task\":\"next-event-localization\",\"n\",\"top_k\":{\"1\",\"3\",\"5\",\"10\"},\n"
    "\"mrr\",\"coverage\",\"change\",\"unseen\"[,\"added\"],\"baselines\":{NAME:{\"all\",\n"
    "\"change\"}},\"params\"...}.";

/* The sites of the log's graph whose template text no site of the older
 * graph at path has, into *added (eval_added_sites); 0 or an error said. */
static int added_sites(const char *name, const char *path, const session *s, uint8_t **added)
{
    graph *old = NULL;
    int rc = cli_open_graph(name, path, &old);
    if (rc != 0)
        return rc;
    *added = eval_added_sites(s->g, old, &s->log);
    graph_close(old);
    return 0;
}

/* The learning curve over s's log (n points at the sizes k), from the
 * configured parameters rather than the ones calibrated on the whole
 * training split; with_true: df2 over the true emitters too, from the log
 * mapped again by its code.* columns with the options in a_true (whose
 * --set list the session takes). */
static int learning_curve(const cli_cmd *cmd, const session *s, log_args *a_true, bool with_true,
                          const uint32_t *k, uint32_t n, eval_curve_point *points)
{
    model_train_opts to = s->to;
    to.params = config_model_params(s->cfg);
    session st;
    if (with_true) {
        a_true->learn_code_attrs = true;
        a_true->quiet = true;
        with_true = log_session_open(cmd, a_true, true, &st, NULL, true) == 0;
        a_true->sets.v = NULL; /* (session_open freed it) */
    }
    int rc = eval_learning_curve(s->m, &s->log, &to, with_true ? st.m : NULL,
                                 with_true ? &st.log : NULL, k, n, points);
    if (with_true)
        log_session_free(&st);
    return rc;
}

/* The report as JSON or text on stdout. */
static int write_report(const char *name, const eval_report *rep, bool json)
{
    core_buf o = {0};
    if (json)
        eval_report_json(rep, &o);
    else
        eval_report_text(rep, &o);
    int rc = cli_write_stdout(name, o.data, o.len);
    core_buf_free(&o);
    return rc;
}

int cmd_eval(int argc, char **argv)
{
    log_args a = {0};
    bool curve = false, no_baselines = false;
    const char *added_since = NULL;
    const cli_opt opts[] = {
        LOG_OPTS(&a),
        {"train-frac", 0, CLI_STR, &a.train_frac, "F",
         "share of cases (by first event) that train; the rest test (default 0.7; 0: the code "
         "alone predicts every case)",
         0, 0},
        {"learning-curve", 0, CLI_FLAG, &curve, NULL,
         "also score pmrag, df2 and df2 over the true emitters trained on the first 0, 5, 20, "
         "100 and all training cases",
         0, 0},
        {"no-baselines", 0, CLI_FLAG, &no_baselines, NULL, "score pmrag alone", 0, 0},
        {"added-since", 0, CLI_STR, &added_since, "GRAPH",
         "also score the targets logged by paths added since GRAPH, an older release's graph", 0,
         0},
        MODEL_OPTS(&a),
    };
    const cli_cmd cmd = {
        "eval",
        "--graph FILE --log FILE [--train-frac 0.7] [options]",
        "Scores next-event localization on a log's test split, with baselines.",
        eval_help,
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag eval --graph app.pmg --log events.csv --train-frac 0.7\n"
        "pmrag eval --graph app.pmg --log events.csv --learning-curve --json\n"
        "pmrag eval --graph v2.pmg --log v2.csv --model v1.model --old-graph v1.pmg "
        "--added-since v1.pmg",
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
    if ((rc = log_session_open(&cmd, &a, true, &s, &md, true)) != 0) {
        free(a_true.sets.v);
        return rc;
    }
    model_seqs train = model_log_train(&s.log);
    eval_baselines *b = NULL;
    if (!no_baselines && (rc = eval_baselines_new(s.g, s.m, &train, &b)) != 0) {
        free(a_true.sets.v);
        model_free(md);
        log_session_free(&s);
        return cli_error(cmd.name, "baselines: %s", core_strerror(rc));
    }
    uint8_t *added = NULL;
    if (added_since && (rc = added_sites(cmd.name, added_since, &s, &added)) != 0) {
        free(a_true.sets.v);
        eval_baselines_free(b);
        model_free(md);
        log_session_free(&s);
        return rc;
    }
    eval_result r;
    uint64_t t0 = core_now_ns();
    rc = eval_run(s.m, &s.log, md, b, added, &r);
    free(added);
    double eval_s = (double)(core_now_ns() - t0) / 1e9;
    eval_mapping mt;
    eval_mapping_count(s.m, &s.log, s.log.ntrain, s.log.ncases, &mt);
    eval_miss misses[MISSES];
    uint32_t nmiss = eval_mapping_misses(s.m, &s.log, s.log.ntrain, s.log.ncases, misses, MISSES);
    /* The learning curve starts each time from the configured parameters,
     * not the ones calibrated for the whole training split. */
    static const uint32_t curve_n[] = {0, 5, 20, 100, UINT32_MAX};
    eval_curve_point points[5];
    if (curve && !rc)
        rc = learning_curve(&cmd, &s, &a_true, !a.learn_code_attrs, curve_n, 5, points);
    if (!rc) {
        eval_report rep = {.mapper = s.m,
                           .misses = misses,
                           .nmisses = nmiss,
                           .added_since = added_since,
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
        rc = write_report(cmd.name, &rep, a.json);
    } else {
        rc = cli_error(cmd.name, "%s", core_strerror(rc));
    }
    free(a_true.sets.v);
    eval_baselines_free(b);
    model_free(md);
    log_session_free(&s);
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
         "share of cases (by first event) that train; the rest are predicted (default 0.7; 0: "
         "every case, from the code alone)",
         0, 0},
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
        "pmrag predict --graph app.pmg --log events.csv -k 5 -o predictions.jsonl\n"
        "pmrag predict --graph app.pmg --log events.csv --train-frac 0 -o from-the-code.jsonl",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    model_joint *md = NULL;
    if ((rc = log_session_open(&cmd, &a, true, &s, &md, false)) != 0)
        return rc;
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        model_free(md);
        log_session_free(&s);
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
    log_session_free(&s);
    return rc;
}
