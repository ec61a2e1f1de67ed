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

/* One query: timed `repeat` times, its results appended to q->out. */
static int query(const query_ctx *q, const ppr_entry *seeds, uint32_t nseeds)
{
    unsigned repeat = q->repeat, k = q->k;
    const ppr_opts o = *q->o;
    const graph *g = q->g;
    ppr_work *w = q->w;
    uint64_t *times = q->times;
    ppr_stats st = {0};
    for (unsigned r = 0; r < repeat; r++) {
        uint64_t t0 = core_now_ns();
        int rc = ppr_push(w, seeds, nseeds, &o, &st);
        times[r] = core_now_ns() - t0;
        if (rc)
            return cli_error("ppr", "%s", core_strerror(rc));
    }
    qsort(times, repeat, sizeof *times, cli_cmp_u64);
    unsigned mid = repeat / 2;
    double median_us =
        (repeat % 2 ? (double)times[mid] : ((double)times[mid - 1] + (double)times[mid]) / 2) / 1e3;
    float *zero = core_xcalloc(nseeds, sizeof *zero);
    uint32_t *ids = core_xcalloc(nseeds, sizeof *ids);
    for (uint32_t i = 0; i < nseeds; i++)
        ids[i] = seeds[i].node;
    ppr_adjust adj = {ids, zero, nseeds};
    ppr_entry *top = core_xcalloc(k, sizeof *top);
    uint32_t nt = ppr_work_topk(w, k, &adj, top);
    free(zero);
    free(ids);
    core_buf *b = q->out;
    if (q->json) {
        core_buf_puts(b, "{\"top\":[");
        for (uint32_t i = 0; i < nt; i++) {
            core_buf_printf(b, "%s{\"node\":%u,\"score\":", i ? "," : "", top[i].node);
            core_buf_json_float(b, top[i].score);
            if (g)
                graph_symbol_json(b, g, top[i].node);
            if (q->explain) {
                ppr_path path;
                int er = ppr_explain(w, seeds, nseeds, top[i].node, o.alpha, 1000000, &path);
                if (er == 0) {
                    core_buf_puts(b, ",\"share\":");
                    core_buf_json_double(b, path.share);
                    core_buf_puts(b, ",\"path\":[");
                    for (uint32_t s = 0; s < path.len; s++) {
                        const ppr_step *sp = &path.steps[s];
                        core_buf_printf(b, "%s{\"from\":", s ? "," : "");
                        graph_symbol a;
                        graph_get_symbol(g, sp->from, &a);
                        core_buf_json_str(b, a.qualname, strlen(a.qualname));
                        graph_get_symbol(g, sp->to, &a);
                        core_buf_puts(b, ",\"to\":");
                        core_buf_json_str(b, a.qualname, strlen(a.qualname));
                        core_buf_printf(
                            b, ",\"type\":\"%s\",\"reverse\":%s,\"prob\":", type_name(sp->type),
                            sp->type & PPR_REVERSE ? "true" : "false");
                        core_buf_json_float(b, sp->prob);
                        core_buf_putc(b, '}');
                    }
                    core_buf_putc(b, ']');
                }
            }
            core_buf_putc(b, '}');
        }
        core_buf_printf(b, "],\"median_us\":%.3f,\"pushes\":%llu,\"error_bound\":", median_us,
                        (unsigned long long)st.pushes);
        core_buf_json_double(b, st.error_bound);
        core_buf_printf(b,
                        ",\"budget_hit\":%s,\"nodes\":%u,\"edges\":%zu,\"hubs\":%u,"
                        "\"hubs_ms\":%.1f,\"walks\":%u}\n",
                        st.budget_hit ? "true" : "false", ppr_net_nodes(q->net),
                        ppr_net_edges(q->net), o.hubs ? ppr_basis_count(o.hubs) : 0, q->hubs_ms,
                        o.walks);
    } else {
        for (uint32_t i = 0; i < nt; i++) {
            if (g) {
                graph_symbol s;
                graph_get_symbol(g, top[i].node, &s);
                core_buf_printf(b, "%3u. %-10.6g %-9s %s  %s:%u-%u\n", i + 1, (double)top[i].score,
                                graph_sym_kind_name(s.kind), s.qualname, s.file, s.start_line,
                                s.end_line);
                ppr_path path;
                if (q->explain &&
                    ppr_explain(w, seeds, nseeds, top[i].node, o.alpha, 1000000, &path) == 0) {
                    core_buf_puts(b, "       path:");
                    for (uint32_t s2 = 0; s2 < path.len; s2++) {
                        const ppr_step *sp = &path.steps[s2];
                        graph_symbol a;
                        graph_get_symbol(g, sp->from, &a);
                        core_buf_printf(b, " %s %s%s->", s2 ? "" : a.name, type_name(sp->type),
                                        sp->type & PPR_REVERSE ? "(rev)" : "");
                        graph_get_symbol(g, sp->to, &a);
                        core_buf_printf(b, " %s", a.name);
                    }
                    core_buf_printf(b, "  (%.0f%% of the score)\n", 100 * path.share);
                }
            } else {
                core_buf_printf(b, "%3u. node %-8u %.6g\n", i + 1, top[i].node,
                                (double)top[i].score);
            }
        }
        core_buf_printf(b, "%llu pushes, error bound %.3g%s, %.1f us (median of %u)\n",
                        (unsigned long long)st.pushes, st.error_bound,
                        st.budget_hit ? ", push budget hit" : "", median_us, repeat);
    }
    free(top);
    return 0;
}

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
        "which shrinks the error a larger --eps leaves. E.g. --eps 3e-6 --hubs 100\n"
        "--walks 2000.",
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
    core_cfg *cfg;
    rc = cli_config(&cmd, cfg_path, &sets, &cfg);
    free(sets.v);
    if (rc)
        return rc;
    ppr_opts o = config_ppr_opts(cfg);
    uint32_t nhub = (uint32_t)core_cfg_int(cfg, "ppr.hubs");
    uint32_t hub_min_degree = (uint32_t)core_cfg_int(cfg, "ppr.hub_degree");
    uint32_t hub_M = (uint32_t)core_cfg_int(cfg, "ppr.hub_M");
    double hub_eps_v = core_cfg_double(cfg, "ppr.hub_eps");
    ppr_weights wts;
    config_ppr_weights(cfg, &wts);
    rc = apply_weights_flag(&cmd, wspec, &wts);
    core_cfg_free(cfg);
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
    char why[512];
    if (edges_path) {
        rc = ppr_net_load_edges(edges_path, &net, why, sizeof why);
        if (rc)
            return cli_error(cmd.name, "%s", why), CLI_EXIT_USAGE;
    } else {
        rc = cli_open_graph(cmd.name, graph_path, &g);
        if (rc)
            return rc;
        rc = ppr_net_from_graph(g, &wts, &net);
        if (rc) {
            graph_close(g);
            return cli_error(cmd.name, "%s: %s", graph_path, core_strerror(rc));
        }
    }
    /* Seeds. */
    core_vec(ppr_entry) seeds = {0};
    core_vec(uint32_t) seed_ids = {0};
    const char *p = seed_list;
    rc = 0;
    while (*p && !rc) {
        size_t n = strcspn(p, ",");
        char item[1024];
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), p);
        uint32_t id = 0;
        if (g) {
            rc = cli_find_symbol(cmd.name, g, item, &id);
        } else {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(item, &end, 10);
            if (!*item || *end || errno || item[0] == '-' || v >= ppr_net_nodes(net)) {
                cli_error(cmd.name, "--seed: '%s' is not a node id of %s (0..%u)", item, edges_path,
                          ppr_net_nodes(net) - 1);
                rc = CLI_EXIT_USAGE;
            }
            id = (uint32_t)v;
        }
        if (!rc) {
            core_vec_push(&seed_ids, id);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    ppr_work *w = NULL;
    uint64_t *times = NULL;
    ppr_basis *hubs = NULL;
    double hubs_ms = 0;
    if (rc)
        goto done;
    if (nhub) {
        uint32_t *hn = core_xcalloc(nhub, sizeof *hn);
        uint32_t got = ppr_net_hubs(net, nhub, hub_min_degree, hn);
        ppr_opts ho = o;
        ho.eps = hub_eps_v;
        ho.hubs = NULL;
        ho.walks = 0;
        uint64_t th = core_now_ns();
        rc = got ? ppr_basis_build(net, hn, got, hub_M, &ho, 0, &hubs) : 0;
        hubs_ms = (double)(core_now_ns() - th) / 1e6;
        free(hn);
        if (rc) {
            rc = cli_error(cmd.name, "hub vectors: %s", core_strerror(rc));
            goto done;
        }
        o.hubs = hubs;
    }
    for (size_t i = 0; i < seed_ids.n; i++)
        core_vec_push(&seeds, ((ppr_entry){seed_ids.v[i], 1.0f / (float)seed_ids.n}));
    rc = ppr_work_new(net, &w);
    if (rc) {
        rc = cli_error(cmd.name, "%s", core_strerror(rc));
        goto done;
    }
    times = core_xcalloc(repeat, sizeof *times);
    core_buf b = {0};
    query_ctx qc = {net, g, w, &o, k, repeat, json, explain, hubs_ms, times, &b};
    if (each) {
        /* Every seed its own query: one JSON line (or block) each. */
        for (size_t i = 0; i < seeds.n && rc == 0; i++) {
            ppr_entry one = {seeds.v[i].node, 1.0f};
            rc = query(&qc, &one, 1);
        }
    } else {
        rc = query(&qc, seeds.v, (uint32_t)seeds.n);
    }
    if (rc) {
        core_buf_free(&b);
        goto done;
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
done:
    free(times);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    core_vec_free(&seeds);
    core_vec_free(&seed_ids);
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
