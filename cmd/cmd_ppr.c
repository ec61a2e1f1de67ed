/* pmrag ppr and pmrag impact. */
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "graph.h"
#include "ppr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --weights SPEC over the configuration's weights in *w. */
static int apply_weights_flag(const cli_cmd *cmd, const char *spec, ppr_weights *w)
{
    if (spec && ppr_weights_parse(spec, w) != 0)
        return cli_usage_error(cmd,
                               "--weights takes TYPE=NUMBER items (calls, inherits, imports, uses, "
                               "accesses, member_of, reverse), not '%s'",
                               spec);
    return 0;
}

static const char *type_name(uint8_t t)
{
    uint8_t base = t & (uint8_t)~PPR_REVERSE;
    return base < GRAPH_EDGE__COUNT ? graph_edge_type_name((graph_edge_type)base) : "edge";
}

typedef struct {
    const ppr_net *net;
    const graph *g; /* NULL with --edges */
    ppr_work *w;
    const ppr_opts *o;
    unsigned k, repeat;
    bool json, explain;
    double hubs_ms;
    uint64_t *times; /* repeat slots */
    core_buf *out;
} query_ctx;

/* What one query found, for its rendering. */
typedef struct {
    const ppr_entry *seeds;
    uint32_t nseeds;
    const ppr_entry *top;
    uint32_t nt;
    ppr_stats st;
    double median_us;
} query_result;

/* ,"share":S,"path":[{"from","to","type","reverse","prob"}...] */
static void explain_json(core_buf *b, const graph *g, const ppr_path *path)
{
    core_buf_puts(b, ",\"share\":");
    core_buf_json_double(b, path->share);
    core_buf_puts(b, ",\"path\":[");
    for (uint32_t s = 0; s < path->len; s++) {
        const ppr_step *sp = &path->steps[s];
        core_buf_printf(b, "%s{\"from\":", s ? "," : "");
        graph_symbol a;
        graph_get_symbol(g, sp->from, &a);
        core_buf_json_str(b, a.qualname, strlen(a.qualname));
        graph_get_symbol(g, sp->to, &a);
        core_buf_puts(b, ",\"to\":");
        core_buf_json_str(b, a.qualname, strlen(a.qualname));
        core_buf_printf(b, ",\"type\":\"%s\",\"reverse\":%s,\"prob\":", type_name(sp->type),
                        sp->type & PPR_REVERSE ? "true" : "false");
        core_buf_json_float(b, sp->prob);
        core_buf_putc(b, '}');
    }
    core_buf_putc(b, ']');
}

/* "       path: a calls-> b uses(rev)-> c  (40% of the score)" */
static void explain_text(core_buf *b, const graph *g, const ppr_path *path)
{
    core_buf_puts(b, "       path:");
    for (uint32_t s = 0; s < path->len; s++) {
        const ppr_step *sp = &path->steps[s];
        graph_symbol a;
        graph_get_symbol(g, sp->from, &a);
        core_buf_printf(b, " %s %s%s->", s ? "" : a.name, type_name(sp->type),
                        sp->type & PPR_REVERSE ? "(rev)" : "");
        graph_get_symbol(g, sp->to, &a);
        core_buf_printf(b, " %s", a.name);
    }
    core_buf_printf(b, "  (%.0f%% of the score)\n", 100 * path->share);
}

/* The highest-contribution path from the seeds to node; false if none. */
static bool explain(const query_ctx *q, const query_result *r, uint32_t node, ppr_path *path)
{
    return ppr_explain(q->w, r->seeds, r->nseeds, node, q->o->alpha, 1000000, path) == 0;
}

static void render_json(const query_ctx *q, const query_result *r)
{
    core_buf *b = q->out;
    const ppr_opts *o = q->o;
    core_buf_puts(b, "{\"top\":[");
    for (uint32_t i = 0; i < r->nt; i++) {
        core_buf_printf(b, "%s{\"node\":%u,\"score\":", i ? "," : "", r->top[i].node);
        core_buf_json_float(b, r->top[i].score);
        if (q->g)
            graph_symbol_json(b, q->g, r->top[i].node);
        ppr_path path;
        if (q->explain && explain(q, r, r->top[i].node, &path))
            explain_json(b, q->g, &path);
        core_buf_putc(b, '}');
    }
    core_buf_printf(b, "],\"median_us\":%.3f,\"pushes\":%llu,\"error_bound\":", r->median_us,
                    (unsigned long long)r->st.pushes);
    core_buf_json_double(b, r->st.error_bound);
    core_buf_printf(b,
                    ",\"budget_hit\":%s,\"nodes\":%u,\"edges\":%zu,\"hubs\":%u,"
                    "\"hubs_ms\":%.1f,\"walks\":%u}\n",
                    r->st.budget_hit ? "true" : "false", ppr_net_nodes(q->net),
                    ppr_net_edges(q->net), o->hubs ? ppr_basis_count(o->hubs) : 0, q->hubs_ms,
                    o->walks);
}

static void render_text(const query_ctx *q, const query_result *r)
{
    core_buf *b = q->out;
    for (uint32_t i = 0; i < r->nt; i++) {
        const ppr_entry *t = &r->top[i];
        if (!q->g) {
            core_buf_printf(b, "%3u. node %-8u %.6g\n", i + 1, t->node, (double)t->score);
            continue;
        }
        graph_symbol s;
        graph_get_symbol(q->g, t->node, &s);
        core_buf_printf(b, "%3u. %-10.6g %-9s %s  %s:%u-%u\n", i + 1, (double)t->score,
                        graph_sym_kind_name(s.kind), s.qualname, s.file, s.start_line, s.end_line);
        ppr_path path;
        if (q->explain && explain(q, r, t->node, &path))
            explain_text(b, q->g, &path);
    }
    core_buf_printf(b, "%llu pushes, error bound %.3g%s, %.1f us (median of %u)\n",
                    (unsigned long long)r->st.pushes, r->st.error_bound,
                    r->st.budget_hit ? ", push budget hit" : "", r->median_us, q->repeat);
}

/* One query: timed `repeat` times, its results appended to q->out. */
static int query(const query_ctx *q, const ppr_entry *seeds, uint32_t nseeds)
{
    unsigned repeat = q->repeat, k = q->k;
    uint64_t *times = q->times;
    query_result r = {.seeds = seeds, .nseeds = nseeds};
    for (unsigned i = 0; i < repeat; i++) {
        uint64_t t0 = core_now_ns();
        int rc = ppr_push(q->w, seeds, nseeds, q->o, &r.st);
        times[i] = core_now_ns() - t0;
        if (rc)
            return cli_error("ppr", "%s", core_strerror(rc));
    }
    qsort(times, repeat, sizeof *times, cli_cmp_u64);
    unsigned mid = repeat / 2;
    r.median_us =
        (repeat % 2 ? (double)times[mid] : ((double)times[mid - 1] + (double)times[mid]) / 2) / 1e3;
    /* The seeds are left out of the results. */
    float *zero = core_xcalloc(nseeds, sizeof *zero);
    uint32_t *ids = core_xcalloc(nseeds, sizeof *ids);
    for (uint32_t i = 0; i < nseeds; i++)
        ids[i] = seeds[i].node;
    ppr_adjust adj = {ids, zero, nseeds};
    ppr_entry *top = core_xcalloc(k, sizeof *top);
    r.nt = ppr_work_topk(q->w, k, &adj, top);
    r.top = top;
    free(zero);
    free(ids);
    if (q->json)
        render_json(q, &r);
    else
        render_text(q, &r);
    free(top);
    return 0;
}

/* What pmrag ppr takes from the configuration, --weights over its weights. */
typedef struct {
    ppr_opts o;
    uint32_t nhub, hub_min_degree, hub_M;
    double hub_eps;
    ppr_weights wts;
} ppr_settings;

static int read_settings(const cli_cmd *cmd, const char *cfg_path, const cli_list *sets,
                         const char *wspec, ppr_settings *s)
{
    core_cfg *cfg;
    int rc = cli_config(cmd, cfg_path, sets, &cfg);
    if (rc)
        return rc;
    s->o = config_ppr_opts(cfg);
    s->nhub = (uint32_t)core_cfg_int(cfg, "ppr.hubs");
    s->hub_min_degree = (uint32_t)core_cfg_int(cfg, "ppr.hub_degree");
    s->hub_M = (uint32_t)core_cfg_int(cfg, "ppr.hub_M");
    s->hub_eps = core_cfg_double(cfg, "ppr.hub_eps");
    config_ppr_weights(cfg, &s->wts);
    rc = apply_weights_flag(cmd, wspec, &s->wts);
    core_cfg_free(cfg);
    return rc;
}

/* The net to walk: an edge list as it is, or the code graph of a graph
 * file weighted by wts (*g then stays open for the symbols' names). */
static int load_net(const cli_cmd *cmd, const char *edges_path, const char *graph_path,
                    const ppr_weights *wts, graph **g, ppr_net **net)
{
    int rc;
    if (edges_path) {
        char why[512];
        rc = ppr_net_load_edges(edges_path, net, why, sizeof why);
        if (rc)
            return cli_error(cmd->name, "%s", why), CLI_EXIT_USAGE;
        return 0;
    }
    rc = cli_open_graph(cmd->name, graph_path, g);
    if (rc)
        return rc;
    rc = ppr_net_from_graph(*g, wts, net);
    if (rc) {
        graph_close(*g);
        *g = NULL;
        return cli_error(cmd->name, "%s: %s", graph_path, core_strerror(rc));
    }
    return 0;
}

/* --seed LIST: symbols of g, or node ids of the edge list; equal weights
 * summing to 1. The array is the caller's to free. */
static int parse_seeds(const char *name, const char *list, const graph *g, const ppr_net *net,
                       const char *edges_path, ppr_entry **out, uint32_t *count)
{
    core_vec(ppr_entry) seeds = {0};
    const char *p = list;
    int rc = 0;
    while (*p && !rc) {
        size_t n = strcspn(p, ",");
        char item[1024];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), p);
        uint32_t id = 0;
        if (g) {
            rc = cli_find_symbol(name, g, item, &id);
        } else {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(item, &end, 10);
            if (!*item || *end || errno || item[0] == '-' || v >= ppr_net_nodes(net)) {
                cli_error(name, "--seed: '%s' is not a node id of %s (0..%u)", item, edges_path,
                          ppr_net_nodes(net) - 1);
                rc = CLI_EXIT_USAGE;
            }
            id = (uint32_t)v;
        }
        if (!rc)
            core_vec_push(&seeds, ((ppr_entry){id, 0}));
        p += n;
        if (*p == ',')
            p++;
    }
    if (rc) {
        core_vec_free(&seeds);
        return rc;
    }
    for (size_t i = 0; i < seeds.n; i++)
        seeds.v[i].score = 1.0f / (float)seeds.n;
    *out = seeds.v;
    *count = (uint32_t)seeds.n;
    return 0;
}

/* Hub vectors: of the s->nhub highest-degree nodes (those with at least
 * hub_min_degree edges), built without hubs or walks, timed. */
static int build_hubs(const char *name, const ppr_net *net, const ppr_settings *s, ppr_basis **hubs,
                      double *ms)
{
    uint32_t *hn = core_xcalloc(s->nhub, sizeof *hn);
    uint32_t got = ppr_net_hubs(net, s->nhub, s->hub_min_degree, hn);
    ppr_opts ho = s->o;
    ho.eps = s->hub_eps;
    ho.hubs = NULL;
    ho.walks = 0;
    uint64_t th = core_now_ns();
    int rc = got ? ppr_basis_build(net, hn, got, s->hub_M, &ho, 0, hubs) : 0;
    *ms = (double)(core_now_ns() - th) / 1e6;
    free(hn);
    if (rc)
        return cli_error(name, "hub vectors: %s", core_strerror(rc));
    return 0;
}

/* What pmrag ppr --help says beyond its options. */
static const char ppr_help[] =
    "Personalized PageRank by forward push from the seed nodes (equal weights).\n"
    "Scores are the walk's mass at each node with restart probability alpha;\n"
    "dangling nodes return to the seeds. Seeds are not listed among the results."
    "\n\n"
    "With --edges, ids are 0..n-1 and edges are walked as given (weight as is, no\n"
    "reverse edge). With --graph, a code graph's edges are weighted by type and\n"
    "also walked backwards (reverse factor), see --profile and --weights.\n"
    "Options in [brackets] stand for configuration keys: a flag overrides --set,\n"
    "which overrides the --config file, which overrides the default.\n"
    "JSON: {\"top\":[{\"node\",\"score\"...}],\"median_us\",\"pushes\",\"error_bound\",\n"
    "\"budget_hit\",\"hubs\",\"hubs_ms\"}; median_us times the query alone (loading and\n"
    "hub vectors excluded: hubs_ms is their one-time cost).\n"
    "Hubs and walks make a cold query fast and accurate on graphs with very large\n"
    "hubs: the score vectors of the highest-degree nodes are computed once (--hubs),\n"
    "and a push that reaches a hub adds its vector instead of pushing through it;\n"
    "the residual mass the push leaves is then carried by random walks (--walks),\n"
    "which shrinks the error a larger --eps leaves. The defaults are such a query's,\n"
    "chosen by top-10 recall against an exact solver; --hubs 0 --walks 0 --eps 1e-7\n"
    "is a plain push, which needs no hub vectors built first.";

int cmd_ppr(int argc, char **argv)
{
    const char *edges_path = NULL, *graph_path = NULL, *seed_list = NULL, *wspec = NULL,
               *cfg_path = NULL;
    unsigned k = 10, repeat = 1;
    bool json = false, explain = false, each = false;
    cli_list sets = {0};
    cli_cfg_arg alpha = {"ppr.alpha", NULL}, eps = {"ppr.eps", NULL},
                max_pushes = {"ppr.max_pushes", NULL}, profile = {"ppr.profile", NULL},
                nhubs = {"ppr.hubs", NULL}, hub_degree = {"ppr.hub_degree", NULL},
                hub_m = {"ppr.hub_M", NULL}, hub_eps = {"ppr.hub_eps", NULL},
                walks = {"ppr.walks", NULL}, walk_seed = {"ppr.walk_seed", NULL};
    const cli_opt opts[] = {
        {"edges", 0, CLI_STR, &edges_path, "FILE", "a plain edge list: 'src dst type weight' lines",
         0, 0},
        {"graph", 0, CLI_STR, &graph_path, "FILE", "a graph file from pmrag index", 0, 0},
        {"seed", 0, CLI_STR, &seed_list, "LIST",
         "seed nodes, comma-separated: ids with --edges, symbols with --graph (required)", 0, 0},
        {"alpha", 0, CLI_CFG, &alpha, "A", "restart probability", 0, 0},
        {"eps", 0, CLI_CFG, &eps, "E", "push threshold per unit of out-degree", 0, 0},
        {"top", 'k', CLI_UINT, &k, "K", "results to show (default 10)", 1, 100000},
        {"repeat", 0, CLI_UINT, &repeat, "R", "run the query R times; report the median time", 1,
         1000000},
        {"max-pushes", 0, CLI_CFG, &max_pushes, "N",
         "stop after N pushes, 0: never (the result says so)", 0, 0},
        {"profile", 0, CLI_CFG, &profile, "NAME",
         "edge weights: default, debug, refactor (--graph)", 0, 0},
        {"weights", 0, CLI_STR, &wspec, "SPEC",
         "weights over the profile's: calls=1.2,reverse=0.2,... (--graph)", 0, 0},
        {"hubs", 0, CLI_CFG, &nhubs, "N",
         "precompute vectors of the N highest-degree nodes; pushes stop at them (timed apart)", 0,
         0},
        {"hub-degree", 0, CLI_CFG, &hub_degree, "D", "hubs have at least D edges", 0, 0},
        {"hub-M", 0, CLI_CFG, &hub_m, "M", "entries kept per hub vector", 0, 0},
        {"hub-eps", 0, CLI_CFG, &hub_eps, "E", "push threshold of hub vectors", 0, 0},
        {"walks", 0, CLI_CFG, &walks, "W",
         "after the push, carry its residual with W random walks (0: none)", 0, 0},
        {"walk-seed", 0, CLI_CFG, &walk_seed, "S", "seed of the walks", 0, 0},
        {"explain", 0, CLI_FLAG, &explain, NULL,
         "show each result's highest-contribution path from the seeds (--graph)", 0, 0},
        {"each", 0, CLI_FLAG, &each, NULL,
         "run each seed as a query of its own (one result, or JSON line, per seed)", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
        CLI_CONFIG_OPTS(&cfg_path, &sets),
    };
    const cli_cmd cmd = {
        "ppr",
        "(--edges FILE | --graph FILE) --seed LIST [options]",
        "Runs personalized PageRank from seed nodes, on a graph file or an edge list.",
        ppr_help,
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag ppr --graph app.pmg --seed shop.checkout -k 10 --explain\n"
        "pmrag ppr --edges edges.txt --seed 0,5 --alpha 0.15 --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    ppr_settings s;
    rc = read_settings(&cmd, cfg_path, &sets, wspec, &s);
    free(sets.v);
    if (rc)
        return rc;
    if (!!edges_path == !!graph_path)
        return cli_usage_error(&cmd, "give exactly one of --edges FILE and --graph FILE");
    if (!seed_list || !*seed_list)
        return cli_usage_error(&cmd, "missing --seed LIST");
    if (explain && !graph_path)
        return cli_usage_error(&cmd, "--explain needs --graph");

    graph *g = NULL;
    ppr_net *net = NULL;
    rc = load_net(&cmd, edges_path, graph_path, &s.wts, &g, &net);
    if (rc)
        return rc;
    ppr_entry *seeds = NULL;
    uint32_t nseeds = 0;
    ppr_basis *hubs = NULL;
    double hubs_ms = 0;
    ppr_work *w = NULL;
    uint64_t *times = NULL;
    core_buf b = {0};
    rc = parse_seeds(cmd.name, seed_list, g, net, edges_path, &seeds, &nseeds);
    if (rc)
        goto done;
    if (s.nhub) {
        rc = build_hubs(cmd.name, net, &s, &hubs, &hubs_ms);
        if (rc)
            goto done;
        s.o.hubs = hubs;
    }
    rc = ppr_work_new(net, &w);
    if (rc) {
        rc = cli_error(cmd.name, "%s", core_strerror(rc));
        goto done;
    }
    times = core_xcalloc(repeat, sizeof *times);
    query_ctx qc = {net, g, w, &s.o, k, repeat, json, explain, hubs_ms, times, &b};
    if (each) {
        /* Every seed its own query: one JSON line (or block) each. */
        for (uint32_t i = 0; i < nseeds && rc == 0; i++) {
            ppr_entry one = {seeds[i].node, 1.0f};
            rc = query(&qc, &one, 1);
        }
    } else {
        rc = query(&qc, seeds, nseeds);
    }
    if (rc == 0)
        rc = cli_write_stdout(cmd.name, b.data, b.len);
done:
    core_buf_free(&b);
    free(times);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    free(seeds);
    ppr_net_free(net);
    graph_close(g);
    return rc;
}

int cmd_impact(int argc, char **argv)
{
    bool json = false;
    const char *wspec = NULL, *cfg_path = NULL;
    unsigned max = 0;
    cli_list sets = {0};
    cli_cfg_arg threshold = {"impact.threshold", NULL}, decay = {"impact.decay", NULL},
                profile = {"ppr.profile", NULL};
    const cli_opt opts[] = {
        {"threshold", 0, CLI_CFG, &threshold, "T", "drop dependents scoring below T", 0, 0},
        {"decay", 0, CLI_CFG, &decay, "D", "score factor per hop", 0, 0},
        {"max", 0, CLI_UINT, &max, "N", "at most N results", 1, 100000000},
        {"profile", 0, CLI_CFG, &profile, "NAME", "edge-type confidences: default, debug, refactor",
         0, 0},
        {"weights", 0, CLI_STR, &wspec, "SPEC",
         "confidences over the profile's: calls=1,uses=0.3,...", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
        CLI_CONFIG_OPTS(&cfg_path, &sets),
    };
    const cli_cmd cmd = {
        "impact",
        "FILE SYMBOL [options]",
        "Lists the symbols that depend on a symbol (its blast radius).",
        "The blast radius of changing SYMBOL: the symbols that depend on it through\n"
        "reverse calls, inherits (subclasses), uses and imports, transitively. A\n"
        "dependent's score is the best product, along a chain, of the edge-type\n"
        "confidence (the ppr.weights of the configuration: calls 1.0, inherits 0.9,\n"
        "imports 0.7, uses 0.5 by default), the edge's resolution confidence (at\n"
        "most 1) and the per-hop decay."
        "\n\n"
        "Options in [brackets] stand for configuration keys (see 'pmrag config').\n"
        "JSON: {\"symbol\":{...},\"dependents\":[{\"symbol\",\"kind\",\"file\",\"start_line\",\n"
        "\"end_line\",\"score\",\"depth\",\"via\",\"type\"}]}",
        opts,
        sizeof opts / sizeof opts[0],
        2,
        2,
        "pmrag impact app.pmg shop.db.save\n"
        "pmrag impact app.pmg Cart.total --profile refactor --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    core_cfg *cfg;
    rc = cli_config(&cmd, cfg_path, &sets, &cfg);
    free(sets.v);
    if (rc) {
        free(args.v);
        return rc;
    }
    ppr_impact_opts o = config_impact_opts(cfg);
    o.max_results = max;
    rc = apply_weights_flag(&cmd, wspec, &o.weights);
    core_cfg_free(cfg);
    if (rc) {
        free(args.v);
        return rc;
    }
    graph *g;
    rc = cli_open_graph(cmd.name, args.v[0], &g);
    if (rc) {
        free(args.v);
        return rc;
    }
    uint32_t id;
    rc = cli_find_symbol(cmd.name, g, args.v[1], &id);
    free(args.v);
    if (rc) {
        graph_close(g);
        return rc;
    }
    ppr_impact *res;
    uint32_t n;
    rc = ppr_impact_of(g, id, &o, &res, &n);
    if (rc) {
        graph_close(g);
        return cli_error(cmd.name, "%s", core_strerror(rc));
    }
    core_buf b = {0};
    graph_symbol s, via;
    graph_get_symbol(g, id, &s);
    if (json) {
        core_buf_printf(&b, "{\"symbol\":{\"id\":%u", id);
        graph_symbol_json(&b, g, id);
        core_buf_puts(&b, "},\"dependents\":[");
        for (uint32_t i = 0; i < n; i++) {
            core_buf_printf(&b, "%s{\"id\":%u", i ? "," : "", res[i].node);
            graph_symbol_json(&b, g, res[i].node);
            core_buf_puts(&b, ",\"score\":");
            core_buf_json_float(&b, res[i].score);
            graph_get_symbol(g, res[i].via, &via);
            core_buf_printf(&b, ",\"depth\":%u,\"via\":", res[i].depth);
            core_buf_json_str(&b, via.qualname, strlen(via.qualname));
            core_buf_printf(&b, ",\"type\":\"%s\"}", graph_edge_type_name(res[i].type));
        }
        core_buf_puts(&b, "]}\n");
    } else {
        core_buf_printf(&b, "changing %s %s (%s:%u-%u) affects %u symbol%s:\n",
                        graph_sym_kind_name(s.kind), s.qualname, s.file, s.start_line, s.end_line,
                        n, n == 1 ? "" : "s");
        for (uint32_t i = 0; i < n; i++) {
            graph_symbol d;
            graph_get_symbol(g, res[i].node, &d);
            graph_get_symbol(g, res[i].via, &via);
            core_buf_printf(&b, "  %.3f  %-9s %s  %s:%u  (%s %s, depth %u)\n", (double)res[i].score,
                            graph_sym_kind_name(d.kind), d.qualname, d.file, d.start_line,
                            graph_edge_type_name(res[i].type), via.name, res[i].depth);
        }
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    free(res);
    graph_close(g);
    return rc;
}
