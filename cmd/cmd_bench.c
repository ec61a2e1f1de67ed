/*
 * pmrag bench: benchmarks built into the binary (bench/). Options in, the
 * figures out: one size at a time, then a summary table.
 */
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "ppr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* "10000,100k,1M" */
static bool parse_sizes(const char *s, uint32_t **out, size_t *count)
{
    size_t cap = 8, n = 0;
    uint32_t *v = core_xmalloc(cap * sizeof *v);
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p || errno || *p == '-')
            goto bad;
        if (*end == 'k' || *end == 'K')
            x *= 1000, end++;
        else if (*end == 'm' || *end == 'M')
            x *= 1000000, end++;
        if (x < BENCH_SYNTH_MIN_NODES || x > 20000000)
            goto bad;
        if (n == cap)
            v = core_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = (uint32_t)x;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (n == 0)
        goto bad;
    *out = v;
    *count = n;
    return true;
bad:
    free(v);
    return false;
}

/* Progress on a terminal: the line of the step in progress (NULL: clear). */
static void progress(void *ud, const char *line)
{
    (void)ud;
    if (!cli_stderr_is_tty())
        return;
    fputs("\r\033[K", stderr);
    if (line)
        fprintf(stderr, "pmrag bench ppr: %s", line);
    fflush(stderr);
}

static int write_edges(const char *path, uint32_t n, unsigned seed, bool typed)
{
    bench_graph g;
    int rc = bench_synth(n, seed, &g);
    if (rc)
        return cli_error("bench ppr", "generating the graph: %s", core_strerror(rc));
    ppr_net *net = NULL;
    ppr_weights wt;
    ppr_weights_profile("default", &wt);
    if (!typed) {
        rc = ppr_net_from_edges(n, g.edges, g.m, &wt, &net);
        if (rc) {
            bench_graph_free(&g);
            return cli_error("bench ppr", "building the net: %s", core_strerror(rc));
        }
    }
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        int e = errno;
        ppr_net_free(net);
        bench_graph_free(&g);
        cli_error("bench ppr", "cannot open %s: %s", path, strerror(e));
        return CLI_EXIT_USAGE;
    }
    size_t written = 0;
    if (typed) {
        fprintf(f,
                "# pmrag bench ppr: synthetic code graph, %u nodes, seed %u: the generated typed\n"
                "# edges (src dst type weight). Loaded as an edge list (raw mode) this is NOT the\n"
                "# walk of the typed net: no reverse edges, no type weights.\n",
                n, seed);
        for (size_t i = 0; i < g.m && !ferror(f); i++) {
            const ppr_edge_in *e = &g.edges[i];
            fprintf(f, "%u %u %s %.9g\n", e->src, e->dst,
                    graph_edge_type_name((graph_edge_type)e->type), (double)e->weight);
        }
        written = g.m;
    } else {
        fprintf(f,
                "# pmrag bench ppr: synthetic code graph, %u nodes, seed %u: the effective edges\n"
                "# of its typed net (default profile, reverse edges included), one per line as\n"
                "# `u v calls P(u,v)`, so that raw mode walks exactly the same chain.\n",
                n, seed);
        for (uint32_t u = 0; u < n && !ferror(f); u++) {
            const uint32_t *dst;
            const float *prob;
            const uint8_t *type;
            uint32_t k = ppr_net_out(net, u, &dst, &prob, &type);
            for (uint32_t i = 0; i < k; i++)
                fprintf(f, "%u %u calls %.9g\n", u, dst[i], (double)prob[i]);
            written += k;
        }
    }
    int bad = ferror(f), e = bad ? errno : 0; /* the failed write's errno */
    errno = 0;
    if ((to_stdout ? fflush(f) : fclose(f)) != 0) {
        bad = 1;
        if (!e)
            e = errno;
    }
    ppr_net_free(net);
    bench_graph_free(&g);
    if (bad && to_stdout && e == EPIPE)
        return 0; /* a closed pipe (| head) is not an error */
    if (bad)
        return cli_error("bench ppr", "writing %s: %s", path, e ? strerror(e) : "write error");
    fprintf(stderr, "pmrag bench ppr: wrote %zu %s edges over %u nodes to %s\n", written,
            typed ? "typed" : "effective", n, to_stdout ? "stdout" : path);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */
static void summary_table(FILE *f, const bench_row *rows, size_t n)
{
    fprintf(f, "\n%9s %9s %8s | %9s %9s %8s %7s %8s | %7s %7s | %8s %8s %9s %9s | %6s %6s\n",
            "nodes", "net edges", "build ms", "cold med", "cold p99", "pushes", "recall", "L1",
            "basis s", "MiB", "warm med", "warm p99", "push med", "push p99", "state", "recall");
    fprintf(f, "%9s %9s %8s | %9s %9s %8s %7s %8s | %7s %7s | %8s %8s %9s %9s | %6s %6s\n", "", "",
            "", "us", "us", "/query", "top-10", "vs exact", "", "", "us", "us", "us", "us", "bytes",
            "warm");
    for (size_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char recall[16] = "-", l1[16] = "-", wrecall[16] = "-";
        if (!isnan(r->cold_recall)) {
            snprintf(recall, sizeof recall, "%.4f", r->cold_recall);
            snprintf(l1, sizeof l1, "%.2g", r->cold_l1);
        }
        if (!isnan(r->warm_recall))
            snprintf(wrecall, sizeof wrecall, "%.3f", r->warm_recall);
        fprintf(f,
                "%9u %9zu %8.0f | %9.0f %9.0f %8.0f %7s %8s | %7.2f %7.1f | %8.2f %8.2f %9.0f "
                "%9.0f | %6.0f %6s\n",
                r->nodes, r->net_edges, r->build_ms, r->cold_med_us, r->cold_p99_us, r->pushes,
                recall, l1, r->basis_s, (double)r->basis_bytes / (1 << 20), r->warm_med_us,
                r->warm_p99_us, r->push_med_us, r->push_p99_us, r->state_used_bytes, wrecall);
    }
}

/* Every size in turn, its figures on stdout as soon as it is done; then
 * the summary table of those done (on stderr with --json). Stops at the
 * first size that fails. */
static int run_sizes(const bench_cfg *cfg)
{
    bench_row *rows = core_xcalloc(cfg->nsizes, sizeof *rows);
    ppr_opts o = ppr_opts_default();
    o.alpha = cfg->alpha;
    o.eps = cfg->eps;
    o.walks = cfg->walks;
    int rc = 0;
    size_t done = 0;
    for (size_t i = 0; i < cfg->nsizes && rc == 0; i++) {
        core_buf b = {0};
        char why[512];
        rc = bench_ppr_size(cfg, &o, cfg->sizes[i], &b, &rows[i], why, sizeof why);
        if (rc == 0) {
            rc = cli_write_stdout("bench ppr", b.data, b.len);
            done++;
        } else {
            rc = cli_error("bench ppr", "%s", why);
        }
        core_buf_free(&b);
    }
    if (done)
        summary_table(cfg->json ? stderr : stdout, rows, done);
    free(rows);
    return rc;
}

/* A rate option: strictly between 0 and 1; *out is left alone without it. */
static bool parse_rate(const char *s, double *out)
{
    return !s || (parse_double(s, out) && *out > 0 && *out < 1);
}

/* What pmrag bench ppr --help says beyond its options. */
static const char bench_ppr_help[] =
    "Measure the personalized-PageRank engine on synthetic code-like graphs: for\n"
    "each size, the net's build time and size; cold queries (a forward push from one\n"
    "seed: median and p99 time, pushes, error bound, and top-10 recall and L1 error\n"
    "against power iteration); the bases of the activity nodes (time, memory); and\n"
    "simulated cases, one event at a time (ppr_state_advance with decay 0.8 and the\n"
    "top 10): time per event with bases and without, state memory, and the warm\n"
    "states' recall and L1 error against an exact computation of the same decayed\n"
    "seed."
    "\n\n"
    "The graphs: modules of 10-60 nodes (module, classes, variables, methods,\n"
    "functions, member_of their parent), power-law out-degrees of mean ~6, targets\n"
    "mostly in the same or nearby modules and else by preferential attachment (hubs\n"
    "with thousands of in-edges), edge types in the proportions of real code graphs;\n"
    "the same --seed and size give the same graph. The net is built in typed mode\n"
    "(default profile: type weights and reverse edges).\n"
    "Cases walk a Markov chain over the activities (mostly functions; each has\n"
    "three likely successors nearby). Recall counts ties at the 10th score as found;\n"
    "cold top-10s leave the seed out.\n"
    "--write-edges FILE --size N writes the EFFECTIVE edges of the typed net, one\n"
    "line `u v calls P(u,v)` per out-edge with its transition probability, so that\n"
    "`pmrag ppr --edges FILE` (raw mode) and other tools walk exactly the same\n"
    "chain (this is what tests/bench/ppr_igraph.sh compares). With --typed it writes\n"
    "the generated `src dst type weight` edges instead, which raw mode would walk\n"
    "without reverse edges or type weights.";

static int bench_ppr(int argc, char **argv)
{
    bench_cfg cfg = {
        .seed = 1,
        .cases = 2000,
        .events_min = 20,
        .events_max = 200,
        .activities = 1000,
        .M = PPR_DEFAULT_M,
        .hubs = PPR_COLD_HUBS,
        .hub_degree = PPR_COLD_HUB_DEGREE,
        .hub_M = 1024,
        .walks = PPR_COLD_WALKS,
        .queries = 200,
        .exact = UINT32_MAX, /* not given */
        .progress = progress,
    };
    const char *sizes = NULL, *alpha = NULL, *eps = NULL, *edges_out = NULL, *hub_eps = NULL;
    unsigned size = 0;
    bool typed = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_FLAG, &cfg.json, NULL,
         "one JSON object per size on stdout, the summary table on stderr", 0, 0},
        {"sizes", 0, CLI_STR, &sizes, "LIST",
         "graph sizes in nodes, e.g. 10000,100k,1M (default: 10000,100000,1000000)", 0, 0},
        {"seed", 0, CLI_UINT, &cfg.seed, "S", "seed of the generator and of the draws (default 1)",
         0, UINT32_MAX},
        {"queries", 0, CLI_UINT, &cfg.queries, "N", "cold queries per size (default 200)", 1,
         1000000},
        {"exact", 0, CLI_UINT, &cfg.exact, "N",
         "of those, checked against power iteration (default 20; 3 from 500k nodes)", 0, 64},
        {"cases", 0, CLI_UINT, &cfg.cases, "N", "simulated cases (default 2000)", 1, 1000000},
        {"events-min", 0, CLI_UINT, &cfg.events_min, "N", "fewest events in a case (default 20)", 1,
         100000},
        {"events-max", 0, CLI_UINT, &cfg.events_max, "N", "most events in a case (default 200)", 1,
         100000},
        {"activities", 0, CLI_UINT, &cfg.activities, "A",
         "activity nodes with a precomputed basis (default 1000)", 1, 10000000},
        {"M", 0, CLI_UINT, &cfg.M, "M", "entries kept per case state and basis (default 256)", 1,
         PPR_MAX_M},
        {"alpha", 0, CLI_STR, &alpha, "A", "restart probability (default 0.15)", 0, 0},
        {"eps", 0, CLI_STR, &eps, "E", "push threshold (default 3e-6)", 0, 0},
        {"threads", 'j', CLI_UINT, &cfg.threads, "N",
         "threads building the bases (default: one per CPU)", 1, 256},
        {"hubs", 0, CLI_UINT, &cfg.hubs, "N",
         "precompute vectors of the N highest-degree nodes; pushes stop at them (default 100)", 0,
         10000000},
        {"hub-degree", 0, CLI_UINT, &cfg.hub_degree, "D", "hubs have at least D edges (default 32)",
         1, 100000000},
        {"hub-M", 0, CLI_UINT, &cfg.hub_M, "M", "entries kept per hub vector (default 1024)", 1,
         PPR_MAX_M},
        {"hub-eps", 0, CLI_STR, &hub_eps, "E", "push threshold of the hub vectors (default 1e-7)",
         0, 0},
        {"walks", 0, CLI_UINT, &cfg.walks, "W",
         "random walks carrying each cold query's residual (default 2000; 0: none)", 0, 100000000},
        {"write-edges", 0, CLI_STR, &edges_out, "FILE",
         "write the graph of --size N as an edge list instead ('-': stdout)", 0, 0},
        {"size", 0, CLI_UINT, &size, "N", "nodes of the graph --write-edges writes", 0, 20000000},
        {"typed", 0, CLI_FLAG, &typed, NULL,
         "with --write-edges: the generated typed edges, not the net's effective ones", 0, 0},
    };
    const cli_cmd cmd = {
        "bench ppr",
        "[options]",
        "Benchmarks personalized PageRank on synthetic code-like graphs.",
        bench_ppr_help,
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
        "pmrag bench ppr --sizes 10000,100k\n"
        "pmrag bench ppr --write-edges edges.txt --size 100000",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    cfg.alpha = PPR_DEFAULT_ALPHA;
    cfg.eps = PPR_COLD_EPS;
    cfg.hub_eps = 1e-7;
    if (!parse_rate(alpha, &cfg.alpha))
        return cli_usage_error(&cmd, "--alpha takes a number between 0 and 1, not '%s'", alpha);
    if (!parse_rate(eps, &cfg.eps))
        return cli_usage_error(&cmd, "--eps takes a number between 0 and 1, not '%s'", eps);
    if (!parse_rate(hub_eps, &cfg.hub_eps))
        return cli_usage_error(&cmd, "--hub-eps takes a number between 0 and 1, not '%s'", hub_eps);
    if (cfg.events_min > cfg.events_max)
        return cli_usage_error(&cmd, "--events-min %u is above --events-max %u", cfg.events_min,
                               cfg.events_max);
    if (edges_out) {
        if (size < BENCH_SYNTH_MIN_NODES)
            return cli_usage_error(&cmd, "--write-edges needs --size N (at least %u nodes)",
                                   BENCH_SYNTH_MIN_NODES);
        return write_edges(edges_out, size, cfg.seed, typed);
    }
    if (size || typed)
        return cli_usage_error(&cmd, "--size and --typed go with --write-edges");
    if (!parse_sizes(sizes ? sizes : "10000,100000,1000000", &cfg.sizes, &cfg.nsizes))
        return cli_usage_error(&cmd,
                               "--sizes takes node counts from %u to 20M separated by commas, "
                               "not '%s'",
                               BENCH_SYNTH_MIN_NODES, sizes);

    rc = run_sizes(&cfg);
    free(cfg.sizes);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    static const cli_sub subs[] = {
        {"ppr", "[options]", "Benchmarks personalized PageRank on synthetic code-like graphs.",
         "pmrag bench ppr --sizes 10000,100k"},
    };
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        /* Their figures are printed; nothing is asserted. */
        cli_group_help(stdout, "bench", "Benchmarks built into pmrag (bench ppr).", subs,
                       sizeof subs / sizeof subs[0]);
        return 0;
    }
    if (strcmp(argv[0], "ppr") == 0)
        return bench_ppr(argc - 1, argv + 1);
    fprintf(stderr, "pmrag bench: unknown benchmark '%s' (see 'pmrag bench --help')\n", argv[0]);
    return CLI_EXIT_USAGE;
}
