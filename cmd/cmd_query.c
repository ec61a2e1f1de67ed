/*
 * pmrag query: the functions that emit a case's next event, from its
 * events so far and a model from pmrag mine, with the paths that put them
 * there.
 */
#include "cli.h"
#include "commands.h"
#include "graph.h"
#include "model.h"
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A node's text (an activity's comes from the log) escaped into t: the
 * text of t, valid until t's next use. */
static const char *node_text(const model_joint *md, uint32_t node, core_buf *t)
{
    core_buf raw = {0};
    model_node_text(md, node, &raw);
    core_buf_reset(t);
    core_buf_oneline(t, raw.data ? raw.data : "", 200);
    core_buf_free(&raw);
    return t->data ? t->data : "";
}

/* The trace's items: --trace's comma-separated ones (leading blanks
 * dropped), then each --event. Owned by the caller (items_free). */
typedef core_vec(char *) items_vec;

static void items_free(items_vec *items)
{
    for (size_t i = 0; i < items->n; i++)
        free(items->v[i]);
    core_vec_free(items);
}

static void items_collect(const char *trace, const cli_list *events, items_vec *items)
{
    for (const char *p = trace; p && *p;) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < n && p[i] == ' ')
            i++;
        core_vec_push(items, core_xstrndup(p + i, n - i));
        p += n;
        if (*p == ',')
            p++;
    }
    for (size_t i = 0; i < events->n; i++)
        core_vec_push(items, core_xstrdup(events->v[i]));
}

/* One result's explanation: the path from its seed and the share of the
 * score it carries. */
static void explain_text(core_buf *b, const model_joint *md, model_work *w, uint32_t symbol,
                         core_buf *t)
{
    ppr_path path;
    int erc = model_explain(md, w, symbol, 200000, &path);
    if (erc) {
        core_buf_printf(b, "      (no path: %s)\n", core_strerror(erc));
        return;
    }
    core_buf_printf(b, "      %s\n", node_text(md, path.seed, t));
    for (uint32_t j = 0; j < path.len; j++) {
        core_buf_printf(b, "        --%s (%.2f)--> %s\n", model_edge_name(path.steps[j].type),
                        (double)path.steps[j].prob, node_text(md, path.steps[j].to, t));
        core_buf_reset(t);
        if (path.steps[j].type == MODEL_EDGE_NEXT_SITE && model_explain_code(md, w, symbol, t))
            core_buf_printf(b, "        %s\n", t->data);
    }
    core_buf_printf(b, "      share of the score %.0f%%\n", 100 * path.share);
}

/* The answer for people: each event and what it was read as, then the
 * ranking, each result with its next activity or its explanation. */
static void query_text(core_buf *b, const model_joint *md, model_work *w, const map_mapper *m,
                       const items_vec *items, const model_query_event *ev, const core_buf *texts,
                       const model_pred *pred, uint32_t n, bool explain)
{
    const graph *g = map_mapper_graph(m);
    for (size_t i = 0; i < items->n; i++) {
        core_buf_printf(b, "event %zu: ", i + 1);
        core_buf_oneline(b, items->v[i], 70);
        /* "unmapped", as `pmrag map` and `eval` call what no strategy took */
        core_buf_printf(b, "\n         -> %s \"",
                        ev[i].strategy == MAP_BY_NONE ? "unmapped"
                                                      : map_strategy_name(ev[i].strategy));
        core_buf_oneline(b, texts->data + ev[i].text, 70);
        core_buf_puts(b, "\"\n");
    }
    if (n == 0)
        core_buf_puts(b, "no prediction: nothing in the trace is known to the model\n");
    core_buf t = {0};
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol s;
        graph_get_symbol(g, pred[i].symbol, &s);
        core_buf_printf(b, "%2u. %-50s %s:%u-%u  %.4g", i + 1, s.qualname, s.file, s.start_line,
                        s.end_line, (double)pred[i].score);
        /* A symbol that only fills the list is labelled on its own line
         * of the ranking: no activity predicts it, and a reader (or grep)
         * must not take it for one that was. */
        if (pred[i].near != UINT32_MAX) {
            graph_symbol ns;
            graph_get_symbol(g, pred[i].near, &ns);
            core_buf_printf(b, "  (near %s, fills the list)\n", ns.qualname);
            continue;
        }
        if (pred[i].activity == UINT32_MAX)
            core_buf_puts(b, "  (no predicted activity leads to it)");
        core_buf_putc(b, '\n');
        if (explain) {
            explain_text(b, md, w, pred[i].symbol, &t);
        } else if (pred[i].activity != UINT32_MAX) {
            map_activity pa;
            map_mapper_activity(m, pred[i].activity, &pa);
            core_buf_puts(b, "      next: \"");
            core_buf_oneline(b, pa.text, 90);
            core_buf_puts(b, "\"\n");
        }
    }
    core_buf_free(&t);
}

int cmd_query(int argc, char **argv)
{
    const char *graph_path = NULL, *model_path = NULL, *trace = NULL;
    cli_list events = {0};
    unsigned k = 5;
    bool json = false, explain = false;
    const cli_opt opts[] = {
        {"graph", 0, CLI_STR, &graph_path, "FILE", "graph file (required)", 0, 0},
        {"model", 0, CLI_STR, &model_path, "FILE", "model file from pmrag mine (required)", 0, 0},
        {"trace", 0, CLI_STR, &trace, "LIST",
         "the case so far: events (messages or activities) separated by commas", 0, 0},
        {"event", 'e', CLI_LIST, &events, "TEXT",
         "one more event of the trace (repeatable; for texts with commas)", 0, 0},
        {"top", 'k', CLI_UINT, &k, "K", "results (default 5)", 1, 1000},
        {"explain", 0, CLI_FLAG, &explain, NULL,
         "show, per result, the path and edge types that put it there", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
    };
    const cli_cmd cmd = {
        "query",
        "--graph FILE --model FILE (--trace \"a,b,c\" | -e TEXT...) [-k 5] [--explain] [--json]",
        "Ranks the functions that emit a trace's next event.",
        "Ranks the functions that emit the next event of a case, given its events so\n"
        "far (oldest first), with a model from 'pmrag mine'."
        "\n\n"
        "Each event is mapped as a log line would be: a rendered message, a span name\n"
        "or an activity as 'pmrag map' prints it. The model is only read: an event it\n"
        "has never seen is unknown, as it is to the daemon's POST /v1/query. --trace\n"
        "items come first, then each --event. A result marked '(near X, fills the\n"
        "list)' is predicted by no activity: when the model puts its mass on fewer than\n"
        "k symbols, the list is filled with the emitting symbols nearest them in the\n"
        "code graph (JSON: 'near' instead of 'activity').\n"
        "JSON: {\"trace\":[{\"event\",\"activity\",\"strategy\",\"known\"}],\"ranked\":[...]},\n"
        "as POST /v1/query answers.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag query --graph app.pmg --model app.model --trace 'user 7 logged in,cart updated'\n"
        "pmrag query --graph app.pmg --model app.model -e 'cart: 3 items, total 42' --explain",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    items_vec items = {0};
    items_collect(trace, &events, &items);
    free(events.v);
    if (!graph_path || !model_path) {
        items_free(&items);
        return cli_usage_error(&cmd, "missing --graph FILE or --model FILE");
    }
    if (items.n == 0) {
        items_free(&items);
        return cli_usage_error(&cmd, "give the case's events with --trace or --event");
    }
    graph *g = NULL;
    map_mapper *m = NULL;
    model_joint *md = NULL;
    model_work *w = NULL;
    char why[1024];
    rc = cli_open_graph(cmd.name, graph_path, &g);
    if (!rc && (rc = model_load(model_path, g, NULL, &m, &md, why, sizeof why)) != 0) {
        cli_error(cmd.name, "%s", why);
        rc = cli_exit_status(rc);
    }
    if (!rc && (rc = model_work_new(md, &w)) != 0)
        rc = cli_error(cmd.name, "%s", core_strerror(rc));
    if (rc)
        goto out;
    uint32_t n = (uint32_t)items.n;
    map_event *evs = core_xcalloc(n, sizeof *evs);
    for (uint32_t i = 0; i < n; i++)
        evs[i] = (map_event){.text = items.v[i], .len = strlen(items.v[i])};
    model_query_event *ev = core_xmalloc(n * sizeof *ev);
    model_pred *pred = core_xmalloc(k * sizeof *pred);
    core_buf texts = {0}, b = {0};
    uint32_t np = model_query(md, w, m, evs, n, k, ev, &texts, pred);
    if (json) {
        serve_query_json(&b, m, evs, ev, n, &texts, NULL, pred, np);
        core_buf_putc(&b, '\n');
    } else {
        query_text(&b, md, w, m, &items, ev, &texts, pred, np, explain);
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    core_buf_free(&texts);
    free(pred);
    free(ev);
    free(evs);
out:
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    if (g)
        graph_close(g);
    items_free(&items);
    return rc;
}
