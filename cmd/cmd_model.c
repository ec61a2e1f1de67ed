/*
 * pmrag map, mine, eval, predict and query: from an event log and a graph
 * to activities, a model, and ranked next emitters.
 */
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "evlog.h"
#include "graph.h"
#include "ingest.h"
#include "ppr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What the log commands share                                         */
/* ------------------------------------------------------------------ */

typedef struct log_args {
    const char *graph_path, *log_path, *format, *case_col, *activity_col, *time_col;
    const char *file_col, *function_col, *line_col, *overrides_path, *llm_cmd;
    bool skip_bad, learn_code_attrs, no_tokens, quiet, verbose, progress, json;
    const char *train_frac;
    const char *cfg_path;
    cli_list sets;
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
    {"skip-bad", 0, CLI_FLAG, &(a)->skip_bad, NULL,                                              \
     "count and skip malformed records instead of stopping at the first", 0, 0},                 \
    {"learn-code-attrs", 0, CLI_FLAG, &(a)->learn_code_attrs, NULL,                              \
     "let the mapping learn from the train split's code.* attributes (instrumented setting)",    \
     0, 0},                                                                                      \
    {"overrides", 0, CLI_STR, &(a)->overrides_path, "FILE",                                      \
     "YAML rules mapping activity patterns to symbols", 0, 0},                                   \
    {"llm-cmd", 0, CLI_STR, &(a)->llm_cmd, "CMD",                                                \
     "map what nothing else maps by asking CMD (JSON on stdin and stdout)", 0, 0},               \
    {"no-tokens", 0, CLI_FLAG, &(a)->no_tokens, NULL,                                            \
     "do not map activities by token similarity", 0, 0},                                        \
    {"progress", 0, CLI_FLAG, &(a)->progress, NULL,                                              \
     "show progress even when stderr is not a terminal", 0, 0},                                  \
    {"quiet", 'q', CLI_FLAG, &(a)->quiet, NULL, "no notes on stderr", 0, 0},                     \
    {"verbose", 'v', CLI_FLAG, &(a)->verbose, NULL,                                              \
     "also print the steps of the work (calibration candidates, folds, timings)", 0, 0},        \
    {"json", 0, CLI_FLAG, &(a)->json, NULL, "print JSON", 0, 0},                                 \
    CLI_CONFIG_OPTS(&(a)->cfg_path, &(a)->sets)
// clang-format on

typedef struct session {
    graph *g;
    graph_overrides *ov;
    ppr_mapper *m;
    evlog log;
    core_cfg *cfg;
    core_logger lg;
    ppr_model_params params;
    bool calibrate;
    uint32_t calib_min;
} session;

static void session_free(session *s)
{
    evlog_free(&s->log);
    ppr_mapper_free(s->m);
    graph_overrides_free(s->ov);
    if (s->g)
        graph_close(s->g);
    core_cfg_free(s->cfg);
}

static int parse_frac(const cli_cmd *cmd, const char *text, double *out)
{
    if (!text) {
        *out = 0.7;
        return 0;
    }
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v > 0 && v < 1))
        return cli_usage_error(cmd, "--train-frac takes a number between 0 and 1, not '%s'", text);
    *out = v;
    return 0;
}

/* Opens the graph, loads and maps the log, finishes the mapping. */
static int session_load(const cli_cmd *cmd, log_args *a, double train_frac, session *s)
{
    int rc = cli_config(cmd, a->cfg_path, &a->sets, &s->cfg);
    free(a->sets.v);
    a->sets.v = NULL;
    if (rc)
        return rc;
    s->params = config_model_params(s->cfg);
    s->calibrate = core_cfg_bool(s->cfg, "model.calibrate");
    s->calib_min = (uint32_t)core_cfg_int(s->cfg, "model.calibrate_min_cases");
    s->lg = cli_logger(a->quiet);
    if (a->verbose && !a->quiet)
        s->lg.min = CORE_LOG_INFO;
    if (!a->graph_path)
        return cli_usage_error(cmd, "missing --graph FILE");
    if (!a->log_path)
        return cli_usage_error(cmd, "missing --log FILE");
    evlog_opts eo = {
        .in = {.case_key = a->case_col,
               .activity_key = a->activity_col,
               .time_key = a->time_col,
               .skip_bad = a->skip_bad,
               .log = s->lg},
        .train_frac = train_frac,
        .file_key = a->file_col,
        .function_key = a->function_col,
        .line_key = a->line_col,
        .learn_code_attrs = a->learn_code_attrs,
        .progress = a->progress || cli_stderr_is_tty(),
    };
    if (a->format && ingest_format_parse(a->format, &eo.in.format) != 0)
        return cli_usage_error(cmd, "--format takes auto, csv, jsonl, xes or otlp-json, not '%s'",
                               a->format);
    rc = cli_open_graph(cmd->name, a->graph_path, &s->g);
    if (rc)
        return rc;
    char why[1024];
    if (a->overrides_path) {
        rc = graph_overrides_load(a->overrides_path, s->g, &s->ov, why, sizeof why);
        if (rc)
            return cli_error(cmd->name, "%s", why), CLI_EXIT_USAGE;
    }
    ppr_mapper_opts mo = {
        .use_code_attrs = a->learn_code_attrs,
        .overrides = s->ov,
        .no_tokens = a->no_tokens,
        .tokens_min = core_cfg_double(s->cfg, "map.tokens_min"),
        .llm_cmd = a->llm_cmd,
        .log = s->lg,
    };
    rc = ppr_mapper_new(s->g, &mo, &s->m);
    if (rc)
        return cli_error(cmd->name, "cannot build the template matcher: %s", core_strerror(rc));
    rc = evlog_load(a->log_path, &eo, s->m, &s->log, why, sizeof why);
    if (rc)
        return cli_error(cmd->name, "%s", why);
    if (s->log.bad)
        core_logf(&s->lg, CORE_LOG_WARN, "%s: %llu malformed records skipped", a->log_path,
                  (unsigned long long)s->log.bad);
    rc = ppr_mapper_finish(s->m, why, sizeof why);
    if (rc)
        core_logf(&s->lg, CORE_LOG_WARN, "%s", why);
    return 0;
}

/*
 * The start of every log command: the split (--train-frac when split, else
 * every case trains), then session_load. Returns 0, or the exit status
 * after reporting (and s freed).
 */
static int session_open(const cli_cmd *cmd, log_args *a, bool split, session *s)
{
    memset(s, 0, sizeof *s);
    double frac = 1.0;
    int rc = split ? parse_frac(cmd, a->train_frac, &frac) : 0;
    if (!rc)
        rc = session_load(cmd, a, frac, s);
    if (rc)
        session_free(s);
    return rc;
}

/* Trains (and calibrates) a model on the training cases. */
static int session_model(session *s, const ppr_seqs *train, ppr_model **md)
{
    if (s->calibrate) {
        int rc = ppr_model_calibrate(s->m, train, s->calib_min, &s->params, &s->lg);
        if (rc)
            return rc;
    }
    return ppr_model_train(s->m, train, &s->params, md);
}

static void params_json(core_buf *b, const ppr_model_params *p)
{
    core_buf_printf(b, "{\"order\":%u,\"variant_ratio\":", p->order);
    core_buf_json_double(b, p->variant_ratio);
    core_buf_printf(b, ",\"variant_min\":%u,\"alpha\":", p->variant_min);
    core_buf_json_double(b, p->alpha);
    core_buf_puts(b, ",\"code_scale\":");
    core_buf_json_double(b, p->code_scale);
    core_buf_puts(b, ",\"decay\":");
    core_buf_json_double(b, p->decay);
    core_buf_puts(b, ",\"escape\":");
    core_buf_json_double(b, p->escape);
    core_buf_putc(b, '}');
}

static void params_text(core_buf *b, const ppr_model_params *p)
{
    core_buf_printf(b,
                    "order %u, variant_ratio %g, variant_min %u, alpha %g, code_scale %g, "
                    "decay %g, escape %g",
                    p->order, p->variant_ratio, p->variant_min, p->alpha, p->code_scale, p->decay,
                    p->escape);
}

/* Appends text on one line (newlines and tabs as \\n and \\t), cut at max
 * bytes with "...". */
static void oneline(core_buf *b, const char *text, size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p; p++, n++) {
        if (n >= max) {
            core_buf_puts(b, "...");
            return;
        }
        if (*p == '\n')
            core_buf_puts(b, "\\n");
        else if (*p == '\t')
            core_buf_puts(b, "\\t");
        else if (*p == '\r')
            core_buf_puts(b, "\\r");
        else
            core_buf_putc(b, *p);
    }
}

/* ------------------------------------------------------------------ */
/* Scoring against the truth                                           */
/* ------------------------------------------------------------------ */

/* Path match on whole components, one a suffix of the other (as the
 * bench's scorer). */
static bool path_match(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 2 && a[0] == '.' && a[1] == '/')
        a += 2, la -= 2;
    while (lb > 2 && b[0] == '.' && b[1] == '/')
        b += 2, lb -= 2;
    if (la == 0 || lb == 0)
        return false;
    const char *lo = la <= lb ? a : b, *hi = la <= lb ? b : a;
    size_t n = la <= lb ? la : lb, m = la <= lb ? lb : la;
    if (strcmp(hi + m - n, lo) != 0)
        return false;
    return n == m || hi[m - n - 1] == '/';
}

typedef struct rank_stats {
    uint64_t n, hit[4]; /* top 1, 3, 5, 10 */
    double rr;
} rank_stats;

static const unsigned KS[4] = {1, 3, 5, 10};

static void rank_add(rank_stats *r, int rank)
{
    r->n++;
    if (rank <= 0)
        return;
    for (int i = 0; i < 4; i++)
        if ((unsigned)rank <= KS[i])
            r->hit[i]++;
    r->rr += 1.0 / rank;
}

static double frac(uint64_t a, uint64_t n)
{
    return n ? (double)a / (double)n : 0;
}

/* The rank (1-based) of the first symbol that holds the truth, 0 if none. */
static int truth_rank(const graph *g, const uint32_t *syms, uint32_t n, const char *tfile,
                      uint32_t tline)
{
    for (uint32_t i = 0; i < n && i < 10; i++) {
        graph_symbol s;
        graph_get_symbol(g, syms[i], &s);
        if (s.start_line <= tline && tline <= s.end_line && path_match(s.file, tfile))
            return (int)i + 1;
    }
    return 0;
}

/* Dense symbol scores with a touched list, for the baselines. */
typedef struct acc {
    double *v;
    uint32_t *touched;
    uint32_t nt, n;
    const uint8_t *rankable;
} acc;

static void acc_add(acc *a, uint32_t s, double x)
{
    if (s >= a->n || !(x > 0))
        return;
    if (a->v[s] == 0)
        a->touched[a->nt++] = s;
    a->v[s] += x;
}

/* Top 10 by score (ties: lower id), then cleared. */
static uint32_t acc_top(acc *a, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->nt; i++) {
        uint32_t s = a->touched[i];
        if (a->rankable && !a->rankable[s])
            continue;
        uint32_t j = k < 10 ? k++ : 10;
        if (j == 10 && (a->v[s] < a->v[out[9]] || (a->v[s] == a->v[out[9]] && s > out[9])))
            continue;
        if (j == 10)
            j = 9;
        while (j > 0 &&
               (a->v[out[j - 1]] < a->v[s] || (a->v[out[j - 1]] == a->v[s] && out[j - 1] > s))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = s;
    }
    for (uint32_t i = 0; i < a->nt; i++)
        a->v[a->touched[i]] = 0;
    a->nt = 0;
    return k;
}

/* Spreads an activity's symbols (confidence-weighted) into the scores. */
static void acc_activity(acc *a, const ppr_mapper *m, uint32_t act, double w)
{
    if (act >= ppr_mapper_nactivities(m))
        return;
    ppr_activity pa;
    ppr_mapper_activity(m, act, &pa);
    for (uint32_t i = 0; i < pa.nsyms; i++)
        acc_add(a, pa.syms[i], w * pa.conf[i]);
}

/* Directly-follows counts of order 1 and 2 over the mapped activities. */
typedef struct df_model {
    core_map index; /* key -> entry in e */
    struct dfe {
        uint64_t ctx;
        uint32_t act, count;
    } * e;
    size_t n, cap;
    uint64_t *uni; /* activity counts as next */
    uint32_t A;
} df_model;

static uint64_t df_ctx(uint32_t order, uint32_t a, uint32_t b)
{
    return core_hash_u64(((uint64_t)order << 62) ^ ((uint64_t)a << 31) ^ b) | 1;
}

static void df_count(df_model *d, uint64_t ctx, uint32_t act)
{
    uint64_t key = core_hash_u64(ctx ^ ((uint64_t)act * 0x9e3779b97f4a7c15ull));
    if (key == UINT64_MAX)
        key = 0;
    bool ins;
    uint64_t *v = core_map_put(&d->index, key, &ins);
    if (ins) {
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 1024;
            d->e = core_xrealloc(d->e, d->cap * sizeof *d->e);
        }
        d->e[d->n] = (struct dfe){ctx, act, 0};
        *v = d->n++;
    }
    d->e[*v].count++;
}

static int cmp_dfe(const void *a, const void *b)
{
    const struct dfe *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->count < y->count) - (x->count > y->count);
}

static void df_train(df_model *d, const ppr_seqs *tr, uint32_t A)
{
    memset(d, 0, sizeof *d);
    d->A = A;
    d->uni = core_xcalloc(A ? A : 1, sizeof *d->uni);
    for (uint32_t c = 0; c < tr->ncases; c++) {
        const uint32_t *act = tr->act + tr->off[c];
        uint32_t len = tr->off[c + 1] - tr->off[c];
        for (uint32_t k = 1; k < len; k++) {
            if (act[k] < A)
                d->uni[act[k]]++;
            df_count(d, df_ctx(1, act[k - 1], 0), act[k]);
            if (k >= 2)
                df_count(d, df_ctx(2, act[k - 2], act[k - 1]), act[k]);
        }
    }
    qsort(d->e, d->n, sizeof *d->e, cmp_dfe);
    core_map_free(&d->index);
    /* Re-index: ctx -> first entry. */
    for (size_t i = 0; i < d->n; i++) {
        if (i > 0 && d->e[i - 1].ctx == d->e[i].ctx)
            continue;
        bool ins;
        uint64_t *v = core_map_put(&d->index, d->e[i].ctx == UINT64_MAX ? 0 : d->e[i].ctx, &ins);
        *v = i;
    }
}

static void df_free(df_model *d)
{
    core_map_free(&d->index);
    free(d->e);
    free(d->uni);
}

/* Next-activity distribution of a context into the scores; false if the
 * context was never seen. */
static bool df_predict(const df_model *d, const ppr_mapper *m, uint64_t ctx, acc *a)
{
    uint64_t *v = core_map_get(&d->index, ctx == UINT64_MAX ? 0 : ctx);
    if (!v)
        return false;
    uint64_t total = 0;
    for (size_t i = *v; i < d->n && d->e[i].ctx == ctx; i++)
        total += d->e[i].count;
    for (size_t i = *v; i < d->n && d->e[i].ctx == ctx; i++)
        acc_activity(a, m, d->e[i].act, (double)d->e[i].count / (double)total);
    return true;
}

static void df_unigram(const df_model *d, const ppr_mapper *m, acc *a)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < d->A; i++)
        total += d->uni[i];
    for (uint32_t i = 0; i < d->A; i++)
        if (d->uni[i])
            acc_activity(a, m, i, (double)d->uni[i] / (double)total);
}

/* ------------------------------------------------------------------ */
/* pmrag map                                                           */
/* ------------------------------------------------------------------ */

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

/* Per strategy: events and activities, and (with truth) events whose
 * activity's first symbol holds the truth line. */
typedef struct map_totals {
    uint64_t events[PPR_MAP__COUNT], acts[PPR_MAP__COUNT], correct[PPR_MAP__COUNT];
    uint64_t total, truth_total;
} map_totals;

static void mapping_totals(const session *s, uint32_t c0, uint32_t c1, map_totals *t)
{
    memset(t, 0, sizeof *t);
    const evlog *l = &s->log;
    uint32_t A = ppr_mapper_nactivities(s->m);
    uint8_t *seen = core_xcalloc(A ? A : 1, 1);
    for (uint32_t i = l->off[c0]; i < l->off[c1]; i++) {
        const evlog_event *e = &l->ev[i];
        ppr_activity pa;
        ppr_mapper_activity(s->m, e->act, &pa);
        ppr_map_strategy st = pa.nsyms ? pa.strategy : PPR_MAP_NONE;
        t->events[st]++;
        t->total++;
        if (!seen[e->act]) {
            seen[e->act] = 1;
            t->acts[st]++;
        }
        if (l->has_truth) {
            t->truth_total++;
            if (pa.nsyms && truth_rank(s->g, pa.syms, pa.nsyms > 10 ? 10 : pa.nsyms,
                                       evlog_str(l, e->tfile), e->tline) == 1)
                t->correct[st]++;
        }
    }
    free(seen);
}

static void coverage_json(core_buf *b, const map_totals *t, bool truth)
{
    core_buf_printf(b, "{\"events\":%llu,\"mapped\":", (unsigned long long)t->total);
    core_buf_json_double(b, frac(t->total - t->events[PPR_MAP_NONE], t->total));
    core_buf_puts(b, ",\"by_strategy\":{");
    for (int st = 0; st < PPR_MAP__COUNT; st++) {
        core_buf_printf(b, "%s\"%s\":", st ? "," : "", ppr_map_strategy_name(st));
        core_buf_json_double(b, frac(t->events[st], t->total));
    }
    core_buf_putc(b, '}');
    if (truth) {
        core_buf_puts(b, ",\"first_symbol_correct\":");
        uint64_t c = 0;
        for (int st = 0; st < PPR_MAP__COUNT; st++)
            c += t->correct[st];
        core_buf_json_double(b, frac(c, t->truth_total));
    }
    core_buf_putc(b, '}');
}

static void coverage_text(core_buf *b, const map_totals *t, bool truth)
{
    core_buf_printf(b, "%-10s %10s %8s %10s%s\n", "strategy", "events", "share", "activities",
                    truth ? "  first symbol correct" : "");
    for (int st = 1; st <= PPR_MAP__COUNT; st++) {
        int k = st % PPR_MAP__COUNT; /* none last */
        if (!t->events[k] && k != PPR_MAP_NONE)
            continue;
        core_buf_printf(b, "%-10s %10llu %7.1f%% %10llu", k ? ppr_map_strategy_name(k) : "unmapped",
                        (unsigned long long)t->events[k], 100 * frac(t->events[k], t->total),
                        (unsigned long long)t->acts[k]);
        if (truth && k)
            core_buf_printf(b, "  %6.1f%%", 100 * frac(t->correct[k], t->events[k]));
        core_buf_putc(b, '\n');
    }
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
        "Maps every event of a log to an activity and the activity to the symbols that\n"
        "emit it, and reports the coverage: per activity its count, the chosen symbols\n"
        "with their confidence and the strategy that chose them; then the share of\n"
        "events each strategy mapped.",
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
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    if ((rc = session_open(&cmd, &a, false, &s)) != 0)
        return rc;
    uint32_t A = ppr_mapper_nactivities(s.m);
    act_order *ord = core_xmalloc((A ? A : 1) * sizeof *ord);
    uint32_t n = 0;
    for (uint32_t i = 0; i < A; i++) {
        ppr_activity pa;
        ppr_mapper_activity(s.m, i, &pa);
        if (pa.count)
            ord[n++] = (act_order){i, pa.count};
    }
    qsort(ord, n, sizeof *ord, cmp_act_order);
    if (top && top < n)
        n = top;
    map_totals t;
    mapping_totals(&s, 0, s.log.ncases, &t);
    core_buf b = {0};
    if (a.json) {
        core_buf_puts(&b, "{\"activities\":[");
        for (uint32_t i = 0; i < n; i++) {
            ppr_activity pa;
            ppr_mapper_activity(s.m, ord[i].id, &pa);
            core_buf_puts(&b, i ? ",{\"activity\":" : "{\"activity\":");
            core_buf_json_str(&b, pa.text, strlen(pa.text));
            core_buf_printf(&b, ",\"count\":%llu,\"strategy\":\"%s\",\"variants\":%u,\"symbols\":[",
                            (unsigned long long)pa.count,
                            ppr_map_strategy_name(pa.nsyms ? pa.strategy : PPR_MAP_NONE),
                            pa.nvariants);
            for (uint32_t k = 0; k < pa.nsyms; k++) {
                if (k)
                    core_buf_putc(&b, ',');
                core_buf_puts(&b, "{\"confidence\":");
                core_buf_json_float(&b, pa.conf[k]);
                cli_json_symbol_fields(&b, s.g, pa.syms[k]);
                core_buf_putc(&b, '}');
            }
            core_buf_puts(&b, "]}");
        }
        core_buf_puts(&b, "],\"coverage\":");
        coverage_json(&b, &t, s.log.has_truth);
        core_buf_puts(&b, "}\n");
    } else {
        for (uint32_t i = 0; i < n; i++) {
            ppr_activity pa;
            ppr_mapper_activity(s.m, ord[i].id, &pa);
            core_buf_printf(&b, "%8llu  %-8s  ", (unsigned long long)pa.count,
                            ppr_map_strategy_name(pa.nsyms ? pa.strategy : PPR_MAP_NONE));
            oneline(&b, pa.text, 100);
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
        coverage_text(&b, &t, s.log.has_truth);
    }
    free(ord);
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    session_free(&s);
    return rc;
}

/* ------------------------------------------------------------------ */
/* eval and predict                                                    */
/* ------------------------------------------------------------------ */

enum { BL_BM25, BL_TOKENS, BL_DF1, BL_DF2, BL_SAME, BL_PAGERANK, BL_PPR_NO_FOLLOWS, BL__COUNT };
static const char *const BL_NAMES[BL__COUNT] = {
    "bm25", "tokens", "df1", "df2", "same_function", "global_pagerank", "ppr_no_follows",
};

typedef struct baselines {
    graph_text *text;
    df_model df;
    acc a;
    ppr_net *code;
    ppr_work *cw;
    uint32_t global[10], nglobal;
} baselines;

static bool rankable_symbol(const graph *g, uint32_t s)
{
    graph_symbol sy;
    graph_get_symbol(g, s, &sy);
    return sy.kind == GRAPH_SYM_FUNCTION || sy.kind == GRAPH_SYM_METHOD;
}

static int baselines_init(baselines *b, const session *s, const ppr_seqs *train)
{
    memset(b, 0, sizeof *b);
    int rc = graph_text_build(s->g, NULL, &b->text);
    if (rc)
        return rc;
    uint32_t S = graph_nsymbols(s->g);
    df_train(&b->df, train, ppr_mapper_nactivities(s->m));
    b->a.v = core_xcalloc(S ? S : 1, sizeof *b->a.v);
    b->a.touched = core_xmalloc((S ? S : 1) * sizeof *b->a.touched);
    b->a.n = S;
    uint8_t *rk = core_xcalloc(S ? S : 1, 1);
    for (uint32_t i = 0; i < S; i++)
        rk[i] = rankable_symbol(s->g, i);
    b->a.rankable = rk;
    ppr_weights w;
    ppr_weights_profile("default", &w);
    rc = ppr_net_from_graph(s->g, &w, &b->code);
    if (!rc)
        rc = ppr_work_new(b->code, &b->cw);
    if (rc)
        return rc;
    /* Global PageRank: a uniform seed; the same ranking for every prefix. */
    ppr_entry *seeds = core_xmalloc((S ? S : 1) * sizeof *seeds);
    for (uint32_t i = 0; i < S; i++)
        seeds[i] = (ppr_entry){i, 1.0f / (float)S};
    ppr_opts o = ppr_opts_default();
    o.eps = 1e-9;
    rc = ppr_push(b->cw, seeds, S, &o, NULL);
    free(seeds);
    if (rc)
        return rc;
    for (uint32_t i = 0; i < S; i++)
        acc_add(&b->a, i, ppr_work_score(b->cw, i));
    b->nglobal = acc_top(&b->a, b->global);
    return 0;
}

static void baselines_free(baselines *b)
{
    graph_text_free(b->text);
    df_free(&b->df);
    free(b->a.v);
    free(b->a.touched);
    free((void *)b->a.rankable);
    ppr_work_free(b->cw);
    ppr_net_free(b->code);
}

/* The baseline's top 10 for the prefix act[0..k). */
static uint32_t baseline_rank(baselines *b, const session *s, int which, const uint32_t *act,
                              uint32_t k, uint32_t *out)
{
    const ppr_mapper *m = s->m;
    uint32_t cur = act[k - 1];
    ppr_activity pa;
    ppr_mapper_activity(m, cur, &pa);
    switch (which) {
    case BL_BM25:
    case BL_TOKENS: {
        graph_text_hit hits[10];
        uint32_t n = which == BL_BM25
                         ? graph_text_bm25(b->text, pa.text, strlen(pa.text), 10, hits)
                         : graph_text_tfidf(b->text, pa.text, strlen(pa.text), 10, hits);
        for (uint32_t i = 0; i < n; i++)
            out[i] = hits[i].symbol;
        return n;
    }
    case BL_DF1:
    case BL_DF2:
        if (!(which == BL_DF2 && k >= 2 &&
              df_predict(&b->df, m, df_ctx(2, act[k - 2], act[k - 1]), &b->a)) &&
            !df_predict(&b->df, m, df_ctx(1, act[k - 1], 0), &b->a))
            df_unigram(&b->df, m, &b->a);
        return acc_top(&b->a, out);
    case BL_SAME:
        acc_activity(&b->a, m, cur, 1.0);
        return acc_top(&b->a, out);
    case BL_PAGERANK:
        memcpy(out, b->global, b->nglobal * sizeof *out);
        return b->nglobal;
    default: {
        /* Plain PPR over the code graph from the current emitters. */
        ppr_entry seeds[64];
        uint32_t ns = 0;
        for (uint32_t i = 0; i < pa.nsyms && ns < 64; i++)
            seeds[ns++] = (ppr_entry){pa.syms[i], pa.conf[i]};
        if (ns == 0)
            return 0;
        ppr_opts o = ppr_opts_default();
        o.eps = 1e-5; /* a ranking of the top 10 needs no more */
        if (ppr_push(b->cw, seeds, ns, &o, NULL) != 0)
            return 0;
        ppr_entry top[40];
        uint32_t n = ppr_work_topk(b->cw, 40, NULL, top);
        for (uint32_t i = 0; i < n; i++)
            acc_add(&b->a, top[i].node, top[i].score);
        return acc_top(&b->a, out);
    }
    }
}

static bool is_change(const evlog *l, uint32_t i)
{
    const evlog_event *p = &l->ev[i - 1], *e = &l->ev[i];
    return p->tfile != e->tfile || p->tfunc != e->tfunc;
}

static void stats_json(core_buf *b, const rank_stats *r)
{
    core_buf_printf(b, "{\"n\":%llu,\"top_k\":{", (unsigned long long)r->n);
    for (int i = 0; i < 4; i++) {
        core_buf_printf(b, "%s\"%u\":", i ? "," : "", KS[i]);
        core_buf_json_double(b, frac(r->hit[i], r->n));
    }
    core_buf_puts(b, "},\"mrr\":");
    core_buf_json_double(b, r->n ? r->rr / (double)r->n : 0);
    core_buf_putc(b, '}');
}

/* Scores the model (and, with b, the baselines) on the test cases of l. */
typedef struct eval_result {
    rank_stats all, change;
    rank_stats bl_all[BL__COUNT], bl_change[BL__COUNT];
    uint64_t unpredictable;
} eval_result;

static int evaluate(session *s, const ppr_model *md, baselines *b, eval_result *r)
{
    memset(r, 0, sizeof *r);
    ppr_model_work *w;
    int rc = ppr_model_work_new(md, &w);
    if (rc)
        return rc;
    const evlog *l = &s->log;
    ppr_pred pred[10];
    uint32_t syms[10];
    for (uint32_t c = l->ntrain; c < l->ncases; c++) {
        uint32_t o = l->off[c], len = l->off[c + 1] - o;
        for (uint32_t k = 1; k < len; k++) {
            const evlog_event *t = &l->ev[o + k];
            const char *tfile = evlog_str(l, t->tfile);
            bool ch = is_change(l, o + k);
            uint32_t np = ppr_model_rank(md, w, l->act + o, l->var + o, k, 10, pred);
            for (uint32_t i = 0; i < np; i++)
                syms[i] = pred[i].symbol;
            if (np == 0)
                r->unpredictable++;
            int rank = truth_rank(s->g, syms, np, tfile, t->tline);
            rank_add(&r->all, rank);
            if (ch)
                rank_add(&r->change, rank);
            if (!b)
                continue;
            for (int bl = 0; bl < BL__COUNT; bl++) {
                uint32_t n = baseline_rank(b, s, bl, l->act + o, k, syms);
                rank = truth_rank(s->g, syms, n, tfile, t->tline);
                rank_add(&r->bl_all[bl], rank);
                if (ch)
                    rank_add(&r->bl_change[bl], rank);
            }
        }
    }
    ppr_model_work_free(w);
    return 0;
}

/* The last n training cases as sequences (the learning curve). */
static ppr_seqs last_train(const evlog *l, uint32_t n)
{
    if (n > l->ntrain)
        n = l->ntrain;
    return (ppr_seqs){l->act, l->var, l->off + (l->ntrain - n), n};
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
         "also report top-1 when training on 0, 10, 30, 100 and all train cases", 0, 0},
        {"no-baselines", 0, CLI_FLAG, &no_baselines, NULL, "score pmrag alone", 0, 0},
    };
    const cli_cmd cmd = {
        "eval",
        "--graph FILE --log FILE [--train-frac 0.7] [options]",
        "Next-event localization: cases are ordered by their first event, the first\n"
        "share trains, and for every prefix k = 1..n-1 of every test case the functions\n"
        "ranked for event k+1 are checked against its truth (code.filepath and\n"
        "code.lineno: a hit when the file matches and the line is inside the symbol).\n"
        "Unmapped or unpredictable targets count as misses.",
        "Baselines, computed in the same run over the same mapping: bm25 and tokens\n"
        "(BM25 and TF-IDF over names, docstrings and templates, query = the last\n"
        "activity), df1 and df2 (directly-follows of order 1 and 2), same_function (the\n"
        "current activity's emitters), global_pagerank, ppr_no_follows (PageRank over\n"
        "the code graph from the current emitters). The 'change' subset keeps targets\n"
        "whose function differs from the previous event's. Nothing learns from code.*\n"
        "columns unless --learn-code-attrs (then only from the train split).\n"
        "JSON: {\"task\":\"next-event-localization\",\"n\",\"top_k\":{\"1\",\"3\",\"5\",\"10\"},\n"
        "\"mrr\",\"coverage\",\"change\",\"baselines\":{NAME:{\"all\",\"change\"}},\"params\"...}.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    if ((rc = session_open(&cmd, &a, true, &s)) != 0)
        return rc;
    if (!s.log.has_truth) {
        session_free(&s);
        return cli_error(cmd.name,
                         "%s: events without truth columns (code.filepath/code.file.path and "
                         "code.lineno/code.line.number; see --file-col, --line-col)",
                         a.log_path);
    }
    ppr_seqs train = evlog_train(&s.log);
    ppr_model *md;
    uint64_t t0 = core_now_ns();
    rc = session_model(&s, &train, &md);
    if (rc) {
        session_free(&s);
        return cli_error(cmd.name, "training failed: %s", core_strerror(rc));
    }
    double train_s = (double)(core_now_ns() - t0) / 1e9;
    baselines b;
    bool with_bl = !no_baselines;
    if (with_bl && (rc = baselines_init(&b, &s, &train)) != 0) {
        ppr_model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "baselines: %s", core_strerror(rc));
    }
    eval_result r;
    t0 = core_now_ns();
    rc = evaluate(&s, md, with_bl ? &b : NULL, &r);
    double eval_s = (double)(core_now_ns() - t0) / 1e9;
    map_totals mt;
    mapping_totals(&s, s.log.ntrain, s.log.ncases, &mt);
    /* Learning curve. */
    static const uint32_t curve_n[] = {0, 10, 30, 100, UINT32_MAX};
    double curve_top1[5] = {0};
    uint32_t curve_cases[5] = {0};
    if (curve && !rc) {
        for (int i = 0; i < 5 && !rc; i++) {
            ppr_seqs tr = last_train(&s.log, curve_n[i]);
            ppr_model_params p = config_model_params(s.cfg);
            if (s.calibrate)
                rc = ppr_model_calibrate(s.m, &tr, s.calib_min, &p, NULL);
            ppr_model *cm;
            if (!rc)
                rc = ppr_model_train(s.m, &tr, &p, &cm);
            if (rc)
                break;
            eval_result cr;
            rc = evaluate(&s, cm, NULL, &cr);
            curve_top1[i] = frac(cr.all.hit[0], cr.all.n);
            curve_cases[i] = tr.ncases;
            ppr_model_free(cm);
        }
    }
    if (rc) {
        if (with_bl)
            baselines_free(&b);
        ppr_model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "%s", core_strerror(rc));
    }
    ppr_model_stats ms;
    ppr_model_get_stats(md, &ms);
    core_buf o = {0};
    if (a.json) {
        core_buf_printf(&o, "{\"task\":\"next-event-localization\",\"n\":%llu,\"top_k\":{",
                        (unsigned long long)r.all.n);
        for (int i = 0; i < 4; i++) {
            core_buf_printf(&o, "%s\"%u\":", i ? "," : "", KS[i]);
            core_buf_json_double(&o, frac(r.all.hit[i], r.all.n));
        }
        core_buf_puts(&o, "},\"mrr\":");
        core_buf_json_double(&o, r.all.n ? r.all.rr / (double)r.all.n : 0);
        core_buf_puts(&o, ",\"coverage\":");
        coverage_json(&o, &mt, true);
        core_buf_puts(&o, ",\"change\":");
        stats_json(&o, &r.change);
        core_buf_printf(&o, ",\"unpredictable\":%llu,\"baselines\":{",
                        (unsigned long long)r.unpredictable);
        for (int bl = 0; with_bl && bl < BL__COUNT; bl++) {
            core_buf_printf(&o, "%s\"%s\":{\"all\":", bl ? "," : "", BL_NAMES[bl]);
            stats_json(&o, &r.bl_all[bl]);
            core_buf_puts(&o, ",\"change\":");
            stats_json(&o, &r.bl_change[bl]);
            core_buf_putc(&o, '}');
        }
        core_buf_printf(&o, "},\"cases\":{\"train\":%u,\"test\":%u},\"params\":", s.log.ntrain,
                        s.log.ncases - s.log.ntrain);
        params_json(&o, &s.params);
        core_buf_printf(&o, ",\"model\":{\"activities\":%u,\"contexts\":%u,\"variants_kept\":%u}",
                        ms.activities, ms.contexts, ms.variants_kept);
        if (curve) {
            core_buf_puts(&o, ",\"learning_curve\":[");
            for (int i = 0; i < 5; i++) {
                core_buf_printf(&o, "%s{\"train_cases\":%u,\"top1\":", i ? "," : "",
                                curve_cases[i]);
                core_buf_json_double(&o, curve_top1[i]);
                core_buf_putc(&o, '}');
            }
            core_buf_putc(&o, ']');
        }
        core_buf_puts(&o, ",\"seconds\":{\"train\":");
        core_buf_json_double(&o, train_s);
        core_buf_puts(&o, ",\"eval\":");
        core_buf_json_double(&o, eval_s);
        core_buf_puts(&o, "}}\n");
    } else {
        core_buf_printf(&o,
                        "%llu events, %u cases: %u train, %u test; %llu targets (%llu change)\n",
                        (unsigned long long)s.log.nevents, s.log.ncases, s.log.ntrain,
                        s.log.ncases - s.log.ntrain, (unsigned long long)r.all.n,
                        (unsigned long long)r.change.n);
        core_buf_puts(&o, "model: ");
        params_text(&o, &s.params);
        core_buf_printf(&o,
                        "\n       %u activities, %u contexts, %u with variants; trained in "
                        "%.2f s, scored in %.2f s\n\n",
                        ms.activities, ms.contexts, ms.variants_kept, train_s, eval_s);
        core_buf_printf(&o, "%-18s %7s %7s %7s %7s %7s   %7s %7s %7s\n", "", "top-1", "top-3",
                        "top-5", "top-10", "MRR", "chg@1", "chg@3", "chg MRR");
        for (int row = -1; row < (with_bl ? BL__COUNT : 0); row++) {
            const rank_stats *x = row < 0 ? &r.all : &r.bl_all[row];
            const rank_stats *y = row < 0 ? &r.change : &r.bl_change[row];
            core_buf_printf(&o, "%-18s %7.3f %7.3f %7.3f %7.3f %7.3f   %7.3f %7.3f %7.3f\n",
                            row < 0 ? "pmrag" : BL_NAMES[row], frac(x->hit[0], x->n),
                            frac(x->hit[1], x->n), frac(x->hit[2], x->n), frac(x->hit[3], x->n),
                            x->n ? x->rr / (double)x->n : 0, frac(y->hit[0], y->n),
                            frac(y->hit[1], y->n), y->n ? y->rr / (double)y->n : 0);
        }
        core_buf_puts(&o, "\nmapping of the test events:\n");
        coverage_text(&o, &mt, true);
        if (curve) {
            core_buf_puts(&o, "\nlearning curve (top-1):");
            for (int i = 0; i < 5; i++)
                core_buf_printf(&o, "  %u cases %.3f", curve_cases[i], curve_top1[i]);
            core_buf_putc(&o, '\n');
        }
    }
    rc = cli_write_stdout(cmd.name, o.data, o.len);
    core_buf_free(&o);
    if (with_bl)
        baselines_free(&b);
    ppr_model_free(md);
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
    };
    const cli_cmd cmd = {
        "predict",
        "--graph FILE --log FILE [-k 10] [--train-frac 0.7] [options]",
        "Learns on the train split and writes one JSON line per prefix of every test\n"
        "case: {\"case_id\",\"prefix_len\",\"ranked\":[{\"file\",\"symbol\",\"kind\",\n"
        "\"start_line\",\"end_line\",\"score\",\"activity\"|\"near\"}...]}, best first.",
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
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    session s;
    if ((rc = session_open(&cmd, &a, true, &s)) != 0)
        return rc;
    ppr_seqs train = evlog_train(&s.log);
    ppr_model *md;
    rc = session_model(&s, &train, &md);
    if (rc) {
        session_free(&s);
        return cli_error(cmd.name, "training failed: %s", core_strerror(rc));
    }
    FILE *out = stdout;
    if (out_path && !(out = fopen(out_path, "w"))) {
        ppr_model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "cannot write %s", out_path);
    }
    ppr_model_work *w;
    rc = ppr_model_work_new(md, &w);
    ppr_pred *pred = core_xmalloc(k * sizeof *pred);
    core_buf b = {0};
    const evlog *l = &s.log;
    for (uint32_t c = l->ntrain; c < l->ncases && !rc; c++) {
        uint32_t o = l->off[c], len = l->off[c + 1] - o;
        const char *cid = evlog_str(l, l->case_id[c]);
        for (uint32_t p = 1; p < len; p++) {
            uint32_t n = ppr_model_rank(md, w, l->act + o, l->var + o, p, k, pred);
            core_buf_reset(&b);
            core_buf_puts(&b, "{\"case_id\":");
            core_buf_json_str(&b, cid, strlen(cid));
            core_buf_printf(&b, ",\"prefix_len\":%u,", p);
            core_buf_puts(&b, "\"ranked\":");
            cli_json_ranked(&b, s.g, s.m, pred, n);
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
    ppr_model_work_free(w);
    ppr_model_free(md);
    session_free(&s);
    return rc;
}

/* ------------------------------------------------------------------ */
/* mine and query                                                      */
/* ------------------------------------------------------------------ */

/* The activities that start (end) the most cases, at most k, most first:
 * JSON [{"activity","cases"},...] or text lines. */
static void boundary_activities(const ppr_seqs *all, const ppr_mapper *m, bool end, uint32_t k,
                                bool json, core_buf *b)
{
    uint32_t A = ppr_mapper_nactivities(m);
    uint32_t *count = core_xcalloc(A ? A : 1, sizeof *count);
    for (uint32_t c = 0; c < all->ncases; c++) {
        if (all->off[c + 1] == all->off[c])
            continue;
        uint32_t a = all->act[end ? all->off[c + 1] - 1 : all->off[c]];
        if (a < A)
            count[a]++;
    }
    if (json)
        core_buf_putc(b, '[');
    for (uint32_t n = 0; n < k; n++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t a = 0; a < A; a++)
            if (count[a] && (best == UINT32_MAX || count[a] > count[best]))
                best = a;
        if (best == UINT32_MAX)
            break;
        ppr_activity pa;
        ppr_mapper_activity(m, best, &pa);
        if (json) {
            core_buf_puts(b, n ? ",{\"activity\":" : "{\"activity\":");
            core_buf_json_str(b, pa.text, strlen(pa.text));
            core_buf_printf(b, ",\"cases\":%u}", count[best]);
        } else {
            core_buf_printf(b, "       %s %6u  %s\n", end ? "end  " : "start", count[best],
                            pa.text);
        }
        count[best] = 0;
    }
    if (json)
        core_buf_putc(b, ']');
    free(count);
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
        "Learns from a whole log: maps its events to activities and symbols, mines the\n"
        "directly-follows contexts, calibrates the model by cross-validation over the\n"
        "cases (model.calibrate_folds folds) and writes the model file used by\n"
        "'pmrag query' and 'pmrag serve'.",
        "The model is tied to the graph file it was mined with.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!out_path)
        return cli_usage_error(&cmd, "missing -o MODEL");
    session s;
    if ((rc = session_open(&cmd, &a, false, &s)) != 0)
        return rc;
    ppr_seqs all = evlog_all(&s.log);
    ppr_model *md;
    rc = session_model(&s, &all, &md);
    if (rc) {
        session_free(&s);
        return cli_error(cmd.name, "training failed: %s", core_strerror(rc));
    }
    rc = ppr_model_save(md, out_path);
    if (rc) {
        ppr_model_free(md);
        session_free(&s);
        return cli_error(cmd.name, "cannot write %s: %s", out_path, core_strerror(rc));
    }
    ppr_model_stats st;
    ppr_model_get_stats(md, &st);
    core_buf b = {0};
    if (a.json) {
        core_buf_printf(&b, "{\"model\":");
        core_buf_json_str(&b, out_path, strlen(out_path));
        core_buf_printf(&b,
                        ",\"cases\":%u,\"events\":%llu,\"activities\":%u,\"contexts\":%u,"
                        "\"variants_kept\":%u,\"edges\":%zu,\"params\":",
                        s.log.ncases, (unsigned long long)s.log.nevents, st.activities, st.contexts,
                        st.variants_kept, st.edges);
        params_json(&b, &s.params);
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
        params_text(&b, &s.params);
        core_buf_puts(&b,
                      "\n       cases that start and end with each activity (the five most):\n");
        boundary_activities(&all, s.m, false, 5, false, &b);
        boundary_activities(&all, s.m, true, 5, false, &b);
    }
    rc = a.json ? cli_write_stdout(cmd.name, b.data, b.len) : (fputs(b.data, stderr), 0);
    core_buf_free(&b);
    ppr_model_free(md);
    session_free(&s);
    return rc;
}

static const char *node_text(const ppr_model *md, const ppr_mapper *m, const graph *g,
                             uint32_t node, core_buf *b)
{
    core_buf_reset(b);
    uint32_t id;
    switch (ppr_model_node(md, node, &id)) {
    case PPR_NODE_SYMBOL: {
        graph_symbol s;
        graph_get_symbol(g, id, &s);
        core_buf_printf(b, "%s", s.qualname);
        break;
    }
    case PPR_NODE_ACTIVITY: {
        ppr_activity pa;
        ppr_mapper_activity(m, id, &pa);
        core_buf_puts(b, "activity \"");
        oneline(b, pa.text, 80);
        core_buf_putc(b, '"');
        break;
    }
    case PPR_NODE_CONTEXT: {
        core_buf t = {0};
        ppr_model_context_text(md, id, &t);
        core_buf_puts(b, "context ");
        oneline(b, t.data ? t.data : "", 240);
        core_buf_free(&t);
        break;
    }
    default:
        core_buf_puts(b, "(sink)");
    }
    return b->data;
}

static const char *edge_name(uint8_t t)
{
    if (t == PPR_EDGE_FOLLOWS)
        return "follows";
    if (t == PPR_EDGE_EMITS)
        return "emits";
    uint8_t base = t & (uint8_t)~PPR_REVERSE;
    if (base < GRAPH_EDGE__COUNT)
        return graph_edge_type_name((graph_edge_type)base);
    return "edge";
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
        "--graph FILE --model FILE --trace \"a,b,c\" [-k 5] [--explain] [--json]",
        "Ranks the functions that emit the next event of a case, given its events so\n"
        "far (oldest first), with a model from 'pmrag mine'.",
        "Each event is mapped as a log line would be: a rendered message, a span name\n"
        "or an activity as 'pmrag map' prints it. --trace items come first, then each\n"
        "--event. JSON: {\"trace\":[{\"event\",\"activity\",\"strategy\"}],\"ranked\":[...]}.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    if (!graph_path || !model_path) {
        free(events.v);
        return cli_usage_error(&cmd, "missing --graph FILE or --model FILE");
    }
    /* The trace's items. */
    core_vec(char *) items = {0};
    for (const char *p = trace; p && *p;) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < n && p[i] == ' ')
            i++;
        core_vec_push(&items, core_xstrndup(p + i, n - i));
        p += n;
        if (*p == ',')
            p++;
    }
    for (size_t i = 0; i < events.n; i++)
        core_vec_push(&items, core_xstrdup(events.v[i]));
    free(events.v);
    if (items.n == 0) {
        core_vec_free(&items);
        return cli_usage_error(&cmd, "give the case's events with --trace or --event");
    }
    graph *g = NULL;
    rc = cli_open_graph(cmd.name, graph_path, &g);
    ppr_mapper *m = NULL;
    ppr_model *md = NULL;
    char why[1024];
    if (!rc && (rc = ppr_model_load(model_path, g, NULL, &m, &md, why, sizeof why)) != 0) {
        cli_error(cmd.name, "%s", why);
        rc = CLI_EXIT_USAGE;
    }
    if (rc) {
        for (size_t i = 0; i < items.n; i++)
            free(items.v[i]);
        core_vec_free(&items);
        if (g)
            graph_close(g);
        return rc;
    }
    uint32_t *act = core_xmalloc(items.n * sizeof *act), *var = core_xmalloc(items.n * sizeof *var);
    uint32_t prev = UINT32_MAX;
    for (size_t i = 0; i < items.n; i++) {
        ppr_map_event ev = {.text = items.v[i], .len = strlen(items.v[i])};
        ppr_mapper_map(m, &ev, prev, &act[i], &var[i]);
        prev = act[i];
    }
    ppr_model_work *w;
    rc = ppr_model_work_new(md, &w);
    ppr_pred *pred = core_xmalloc(k * sizeof *pred);
    uint32_t n = rc ? 0 : ppr_model_rank(md, w, act, var, (uint32_t)items.n, k, pred);
    core_buf b = {0}, t = {0};
    if (json) {
        core_buf_puts(&b, "{\"trace\":[");
        for (size_t i = 0; i < items.n; i++) {
            ppr_activity pa;
            ppr_mapper_activity(m, act[i], &pa);
            core_buf_puts(&b, i ? ",{\"event\":" : "{\"event\":");
            core_buf_json_str(&b, items.v[i], strlen(items.v[i]));
            core_buf_puts(&b, ",\"activity\":");
            core_buf_json_str(&b, pa.text, strlen(pa.text));
            core_buf_printf(&b, ",\"strategy\":\"%s\"}",
                            ppr_map_strategy_name(pa.nsyms ? pa.strategy : PPR_MAP_NONE));
        }
        core_buf_puts(&b, "],");
        core_buf_puts(&b, "\"ranked\":");
        cli_json_ranked(&b, g, m, pred, n);
        core_buf_puts(&b, "}\n");
    } else {
        for (size_t i = 0; i < items.n; i++) {
            ppr_activity pa;
            ppr_mapper_activity(m, act[i], &pa);
            core_buf_printf(&b, "event %zu: ", i + 1);
            oneline(&b, items.v[i], 70);
            core_buf_printf(&b, "\n         -> %s \"",
                            ppr_map_strategy_name(pa.nsyms ? pa.strategy : PPR_MAP_NONE));
            oneline(&b, pa.text, 70);
            core_buf_puts(&b, "\"\n");
        }
        if (n == 0)
            core_buf_puts(&b, "no prediction: nothing in the trace is known to the model\n");
        for (uint32_t i = 0; i < n; i++) {
            graph_symbol s;
            graph_get_symbol(g, pred[i].symbol, &s);
            core_buf_printf(&b, "%2u. %-50s %s:%u-%u  %.4g\n", i + 1, s.qualname, s.file,
                            s.start_line, s.end_line, (double)pred[i].score);
            if (pred[i].near != UINT32_MAX) {
                graph_symbol ns;
                graph_get_symbol(g, pred[i].near, &ns);
                core_buf_printf(&b, "      near %s in the code graph (fills the list)\n",
                                ns.qualname);
                continue;
            }
            if (pred[i].activity != UINT32_MAX && !explain) {
                ppr_activity pa;
                ppr_mapper_activity(m, pred[i].activity, &pa);
                core_buf_puts(&b, "      next: \"");
                oneline(&b, pa.text, 90);
                core_buf_puts(&b, "\"\n");
            }
            if (!explain)
                continue;
            const ppr_entry *seeds;
            uint32_t ns = ppr_model_seeds(w, &seeds);
            ppr_path path;
            int erc = ppr_explain(ppr_model_ppr_work(w), seeds, ns, pred[i].symbol,
                                  ppr_model_get_params(md)->alpha, 200000, &path);
            if (erc) {
                core_buf_printf(&b, "      (no path: %s)\n", core_strerror(erc));
                continue;
            }
            core_buf_printf(&b, "      %s\n", node_text(md, m, g, path.seed, &t));
            for (uint32_t j = 0; j < path.len; j++)
                core_buf_printf(&b, "        --%s (%.2f)--> %s\n", edge_name(path.steps[j].type),
                                (double)path.steps[j].prob,
                                node_text(md, m, g, path.steps[j].to, &t));
            core_buf_printf(&b, "      share of the score %.0f%%\n", 100 * path.share);
        }
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    core_buf_free(&t);
    free(pred);
    ppr_model_work_free(w);
    free(act);
    free(var);
    for (size_t i = 0; i < items.n; i++)
        free(items.v[i]);
    core_vec_free(&items);
    ppr_model_free(md);
    ppr_mapper_free(m);
    graph_close(g);
    return rc;
}
