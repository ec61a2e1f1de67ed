/* pmrag symbols, pmrag graph stats, pmrag graph show: reading a graph file. */
#include "cli.h"
#include "commands.h"
#include "graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_kv_str(core_buf *b, const char *key, const char *v, bool comma)
{
    if (comma)
        core_buf_putc(b, ',');
    core_buf_json_str(b, key, strlen(key));
    core_buf_putc(b, ':');
    core_buf_json_str(b, v, strlen(v));
}

static void symbol_json(core_buf *b, const graph *g, uint32_t id)
{
    graph_symbol s;
    graph_get_symbol(g, id, &s);
    core_buf_printf(b, "{\"id\":%u", id);
    json_kv_str(b, "kind", graph_sym_kind_name(s.kind), true);
    json_kv_str(b, "name", s.name, true);
    json_kv_str(b, "qualname", s.qualname, true);
    json_kv_str(b, "file", s.file, true);
    core_buf_printf(b, ",\"start_line\":%u,\"end_line\":%u}", s.start_line, s.end_line);
}

/* Parses "class,method" into a mask of kinds. */
static int parse_kinds(const char *list, unsigned *mask)
{
    unsigned m = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool ok = false;
        for (int k = 0; k < GRAPH_SYM__COUNT; k++) {
            const char *name = graph_sym_kind_name((graph_sym_kind)k);
            if (strlen(name) == n && strncmp(name, p, n) == 0) {
                m |= 1u << k;
                ok = true;
            }
        }
        if (!ok)
            return -1;
        p += n;
        if (*p == ',')
            p++;
    }
    *mask = m;
    return 0;
}

int cmd_symbols(int argc, char **argv)
{
    bool json = false, jsonl = false;
    const char *kinds = NULL;
    const cli_opt opts[] = {
        {"json", 0, CLI_FLAG, &json, NULL, "one JSON array of symbols", 0, 0},
        {"jsonl", 0, CLI_FLAG, &jsonl, NULL, "one JSON object per line", 0, 0},
        {"kind", 0, CLI_STR, &kinds, "LIST",
         "only these kinds: module,class,interface,enum,type,function,method", 0, 0},
    };
    const cli_cmd cmd = {
        "symbols",
        "FILE [--json|--jsonl] [--kind LIST]",
        "Lists the symbols of a graph file.",
        "Print every symbol of a graph file: id, kind, name, qualified name, file\n"
        "(relative to the indexed root) and line span (1-based, inclusive)."
        "\n\n"
        "JSON fields: "
        "{\"id\",\"kind\",\"name\",\"qualname\",\"file\",\"start_line\",\"end_line\"}.",
        opts,
        sizeof opts / sizeof opts[0],
        1,
        1,
        "pmrag symbols app.pmg --kind function,method\n"
        "pmrag symbols app.pmg --jsonl | head",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    unsigned mask = ~0u;
    if (kinds && parse_kinds(kinds, &mask) != 0) {
        free(args.v);
        return cli_usage_error(&cmd,
                               "--kind takes kinds from module,class,interface,enum,type,"
                               "function,method, not '%s'",
                               kinds);
    }
    if (json && jsonl) {
        free(args.v);
        return cli_usage_error(&cmd, "--json and --jsonl exclude each other");
    }
    graph *g;
    rc = cli_open_graph(cmd.name, args.v[0], &g);
    free(args.v);
    if (rc)
        return rc;
    core_buf b = {0};
    uint32_t n = graph_nsymbols(g);
    bool first = true;
    if (json)
        core_buf_putc(&b, '[');
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        graph_symbol s;
        graph_get_symbol(g, i, &s);
        if (!(mask & (1u << s.kind)))
            continue;
        if (json || jsonl) {
            if (json && !first)
                core_buf_putc(&b, ',');
            if (json)
                core_buf_putc(&b, '\n');
            symbol_json(&b, g, i);
            if (jsonl)
                core_buf_putc(&b, '\n');
        } else {
            core_buf_printf(&b, "%-9s %s  %s:%u-%u\n", graph_sym_kind_name(s.kind), s.qualname,
                            s.file, s.start_line, s.end_line);
        }
        first = false;
        if (b.len > (1u << 20)) {
            rc = cli_write_stdout(cmd.name, b.data, b.len);
            core_buf_reset(&b);
        }
    }
    if (json)
        core_buf_puts(&b, "\n]\n");
    if (rc == 0)
        rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    graph_close(g);
    return rc;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* What pmrag graph stats --help says beyond its options. */
static const char graph_stats_help[] =
    "Counts of a graph file: files by language, symbols by kind, edges by type,\n"
    "emit sites by kind and message style, and the share of call sites resolved."
    "\n\n"
    "calls.resolved_share counts every call site; calls.internal_resolved_share only\n"
    "those whose callee name is the name of a symbol in the indexed code.";

static int graph_stats_cmd(int argc, char **argv)
{
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
    };
    const cli_cmd cmd = {
        "graph stats",
        "FILE [--json]",
        "Counts the files, symbols, edges and emit sites of a graph file.",
        graph_stats_help,
        opts,
        sizeof opts / sizeof opts[0],
        1,
        1,
        "pmrag graph stats app.pmg --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    graph *g;
    rc = cli_open_graph(cmd.name, args.v[0], &g);
    free(args.v);
    if (rc)
        return rc;
    graph_stats st;
    graph_get_stats(g, &st);
    core_buf b = {0};
    uint64_t nsym = 0, nedge = 0, nemit = 0;
    for (int k = 0; k < GRAPH_SYM__COUNT; k++)
        nsym += st.symbols_by_kind[k];
    for (int k = 0; k < GRAPH_EDGE__COUNT; k++)
        nedge += st.edges_by_type[k];
    for (int k = 0; k < GRAPH_EMIT__COUNT; k++)
        nemit += st.emits_by_kind[k];
    if (json) {
        core_buf_printf(&b, "{\"files\":%llu,\"files_by_lang\":{", (unsigned long long)st.files);
        for (int k = 0; k < GRAPH_LANG__COUNT; k++)
            core_buf_printf(&b, "%s\"%s\":%llu", k ? "," : "", graph_lang_name((graph_lang)k),
                            (unsigned long long)st.files_by_lang[k]);
        core_buf_puts(&b, "},\"files_by_role\":{");
        for (int k = 0; k < GRAPH_ROLE__COUNT; k++)
            core_buf_printf(&b, "%s\"%s\":{\"files\":%llu,\"lines\":%llu}", k ? "," : "",
                            graph_role_name((graph_role)k), (unsigned long long)st.files_by_role[k],
                            (unsigned long long)st.lines_by_role[k]);
        core_buf_printf(&b, "},\"files_partial\":%llu,\"files_duplicate\":%llu,\"lines\":%llu,",
                        (unsigned long long)st.files_partial,
                        (unsigned long long)st.files_duplicate, (unsigned long long)st.lines);
        core_buf_puts(&b, "\"symbols\":{");
        for (int k = 0; k < GRAPH_SYM__COUNT; k++)
            core_buf_printf(&b, "\"%s\":%llu,", graph_sym_kind_name((graph_sym_kind)k),
                            (unsigned long long)st.symbols_by_kind[k]);
        core_buf_printf(&b, "\"total\":%llu},\"edges\":{", (unsigned long long)nsym);
        for (int k = 0; k < GRAPH_EDGE__COUNT; k++)
            core_buf_printf(&b, "\"%s\":%llu,", graph_edge_type_name((graph_edge_type)k),
                            (unsigned long long)st.edges_by_type[k]);
        core_buf_printf(&b, "\"total\":%llu},\"emits\":{", (unsigned long long)nedge);
        for (int k = 0; k < GRAPH_EMIT__COUNT; k++)
            core_buf_printf(&b, "\"%s\":%llu,", graph_emit_kind_name((graph_emit_kind)k),
                            (unsigned long long)st.emits_by_kind[k]);
        core_buf_printf(&b, "\"total\":%llu},\"emit_styles\":{", (unsigned long long)nemit);
        for (int k = 0; k < GRAPH_STYLE__COUNT; k++)
            core_buf_printf(&b, "%s\"%s\":%llu", k ? "," : "", graph_style_name((graph_style)k),
                            (unsigned long long)st.emits_by_style[k]);
        core_buf_printf(
            &b,
            "},\"next_sites\":{\"edges\":%llu,\"from_emits\":%llu},"
            "\"value_literals\":%llu,\"calls\":{\"total\":%llu,\"resolved\":%llu,\"resolved_"
            "share\":%.4f,"
            "\"internal\":%llu,\"internal_resolved\":%llu,"
            "\"internal_resolved_share\":%.4f}}\n",
            (unsigned long long)st.next_sites, (unsigned long long)st.emits_with_next,
            (unsigned long long)st.value_literals, (unsigned long long)st.calls,
            (unsigned long long)st.calls_resolved, pct(st.calls_resolved, st.calls) / 100,
            (unsigned long long)st.calls_internal, (unsigned long long)st.calls_internal_resolved,
            pct(st.calls_internal_resolved, st.calls_internal) / 100);
    } else {
        core_buf_printf(&b, "files      %llu (", (unsigned long long)st.files);
        bool first = true;
        for (int k = 0; k < GRAPH_LANG__COUNT; k++) {
            if (!st.files_by_lang[k])
                continue;
            core_buf_printf(&b, "%s%s %llu", first ? "" : ", ", graph_lang_name((graph_lang)k),
                            (unsigned long long)st.files_by_lang[k]);
            first = false;
        }
        core_buf_printf(&b, "), %llu lines, %llu with syntax errors, %llu duplicates\n",
                        (unsigned long long)st.lines, (unsigned long long)st.files_partial,
                        (unsigned long long)st.files_duplicate);
        core_buf_puts(&b, "roles     ");
        for (int k = 0; k < GRAPH_ROLE__COUNT; k++)
            if (st.files_by_role[k] || k == GRAPH_ROLE_PRODUCT)
                core_buf_printf(&b, " %s %llu (%llu lines)", graph_role_name((graph_role)k),
                                (unsigned long long)st.files_by_role[k],
                                (unsigned long long)st.lines_by_role[k]);
        core_buf_putc(&b, '\n');
        core_buf_printf(&b, "symbols    %llu:", (unsigned long long)nsym);
        for (int k = 0; k < GRAPH_SYM__COUNT; k++)
            core_buf_printf(&b, " %s %llu", graph_sym_kind_name((graph_sym_kind)k),
                            (unsigned long long)st.symbols_by_kind[k]);
        core_buf_printf(&b, "\nedges      %llu:", (unsigned long long)nedge);
        for (int k = 0; k < GRAPH_EDGE__COUNT; k++)
            core_buf_printf(&b, " %s %llu", graph_edge_type_name((graph_edge_type)k),
                            (unsigned long long)st.edges_by_type[k]);
        core_buf_printf(&b, "\nemit sites %llu:", (unsigned long long)nemit);
        for (int k = 0; k < GRAPH_EMIT__COUNT; k++)
            core_buf_printf(&b, " %s %llu", graph_emit_kind_name((graph_emit_kind)k),
                            (unsigned long long)st.emits_by_kind[k]);
        core_buf_printf(&b,
                        "\nnext-site  %llu edges from %llu emit sites (what can log next, by "
                        "control flow)",
                        (unsigned long long)st.next_sites, (unsigned long long)st.emits_with_next);
        core_buf_printf(&b,
                        "\nliterals   %llu words functions return or registries key (modes, "
                        "backends, kinds: a value may name a variant)",
                        (unsigned long long)st.value_literals);
        core_buf_printf(
            &b, "\ncall sites %llu, resolved %.1f%%; to in-repo names %llu, resolved %.1f%%\n",
            (unsigned long long)st.calls, pct(st.calls_resolved, st.calls),
            (unsigned long long)st.calls_internal,
            pct(st.calls_internal_resolved, st.calls_internal));
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    graph_close(g);
    return rc;
}

static const char *flag_names(uint32_t f, char *buf, size_t cap)
{
    static const char *const names[] = {
        "static",   "classmethod", "getter",     "setter",  "constructor", "async", "nested",
        "exported", "bound",       "abstract",   "private", "generator",   "logs",  "logs-dynamic",
        "wrapper",  "effects",     "takes-text", "catches", "runs-handed"};
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(f & (1u << i)))
            continue;
        int n = snprintf(buf + k, cap - k, "%s%s", k ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= cap - k)
            break;
        k += (size_t)n;
    }
    return buf;
}

static void show_edges(core_buf *b, const graph *g, uint32_t id, bool incoming, bool json,
                       bool *first_json)
{
    uint32_t n;
    const graph_edge *e = incoming ? graph_in_edges(g, id, &n) : graph_out_edges(g, id, &n);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++) {
        uint32_t count = 0;
        for (uint32_t i = 0; i < n; i++)
            count += e[i].type == t;
        if (!count)
            continue;
        if (!json)
            core_buf_printf(b, "%s %s (%u):\n", graph_edge_type_name((graph_edge_type)t),
                            incoming ? "from" : "to", count);
        for (uint32_t i = 0; i < n; i++) {
            if (e[i].type != t)
                continue;
            graph_symbol s;
            graph_get_symbol(g, e[i].node, &s);
            if (json) {
                if (!*first_json)
                    core_buf_putc(b, ',');
                *first_json = false;
                core_buf_printf(b, "{\"type\":\"%s\",\"direction\":\"%s\",\"weight\":",
                                graph_edge_type_name((graph_edge_type)t), incoming ? "in" : "out");
                core_buf_json_double(b, e[i].weight);
                core_buf_puts(b, ",\"symbol\":");
                symbol_json(b, g, e[i].node);
                core_buf_putc(b, '}');
            } else {
                core_buf_printf(b, "  %s %s  %s:%u", incoming ? "<-" : "->", s.qualname, s.file,
                                s.start_line);
                if (e[i].weight != 1.0f)
                    core_buf_printf(b, "  (weight %g)", (double)e[i].weight);
                core_buf_putc(b, '\n');
            }
        }
    }
}

/* The emit sites that can log next after emit (the successor model):
 * JSON [{"line","file","symbol","weight"}] by emit, or text lines, the
 * heaviest first, at most SHOW_NEXT. */
#define SHOW_NEXT 8

static int cmp_next_weight(const void *a, const void *b)
{
    const graph_next *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return (x->emit > y->emit) - (x->emit < y->emit);
}

static void show_next(core_buf *b, const graph *g, uint32_t emit, bool json)
{
    uint32_t n;
    const graph_next *nx = graph_next_sites(g, emit, &n);
    if (json) {
        core_buf_puts(b, ",\"next_sites\":[");
        for (uint32_t i = 0; i < n; i++) {
            graph_emit t;
            graph_get_emit(g, nx[i].emit, &t);
            graph_symbol ts;
            graph_get_symbol(g, t.symbol, &ts);
            core_buf_printf(b, "%s{\"line\":%u", i ? "," : "", t.line);
            json_kv_str(b, "file", ts.file, true);
            json_kv_str(b, "symbol", ts.qualname, true);
            core_buf_puts(b, ",\"weight\":");
            core_buf_json_double(b, nx[i].weight);
            core_buf_putc(b, '}');
        }
        core_buf_putc(b, ']');
        return;
    }
    graph_next *by = core_xmalloc((n ? n : 1) * sizeof *by);
    memcpy(by, nx, n * sizeof *by);
    qsort(by, n, sizeof *by, cmp_next_weight);
    for (uint32_t i = 0; i < n && i < SHOW_NEXT; i++) {
        graph_emit t;
        graph_get_emit(g, by[i].emit, &t);
        graph_symbol ts;
        graph_get_symbol(g, t.symbol, &ts);
        core_buf_printf(b, "              next-site %.3f  %s:%u  %s\n", (double)by[i].weight,
                        ts.file, t.line, ts.qualname);
    }
    if (n > SHOW_NEXT)
        core_buf_printf(b, "              ... %u more\n", n - SHOW_NEXT);
    free(by);
}

/* The class an object made with an emit's text is: the callee's name
 * (`PaymentError(...)`), or, for a constructor's call to its base's
 * (`super().__init__(msg)`), the constructor's own class. */
static int graph_show_cmd(int argc, char **argv)
{
    bool json = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_FLAG, &json, NULL, "print JSON", 0, 0},
    };
    const cli_cmd cmd = {
        "graph show",
        "FILE SYMBOL [--json]",
        "Shows a symbol's neighbours by edge type and its emit sites.",
        "A symbol's neighbours by edge type (both directions) and its emit sites, each\n"
        "with the emit sites that can log next after it by control flow (next-site: the\n"
        "static successor model, the heaviest first). SYMBOL is a qualified name\n"
        "(pkg.mod.Class.method) or a unique suffix of one (Class.method).",
        opts,
        sizeof opts / sizeof opts[0],
        2,
        2,
        "pmrag graph show app.pmg shop.checkout",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    graph *g;
    rc = cli_open_graph(cmd.name, args.v[0], &g);
    if (rc) {
        free(args.v);
        return rc;
    }
    uint32_t id;
    rc = cli_find_symbol(cmd.name, g, args.v[1], &id);
    if (rc) {
        free(args.v);
        graph_close(g);
        return rc;
    }
    free(args.v);
    graph_symbol s;
    graph_get_symbol(g, id, &s);
    core_buf b = {0};
    uint32_t first_emit, nemits = graph_symbol_emits(g, id, &first_emit);
    if (json) {
        core_buf_puts(&b, "{\"symbol\":");
        symbol_json(&b, g, id);
        core_buf_puts(&b, ",\"edges\":[");
        bool first = true;
        show_edges(&b, g, id, false, true, &first);
        show_edges(&b, g, id, true, true, &first);
        core_buf_puts(&b, "],\"emits\":[");
        for (uint32_t i = 0; i < nemits; i++) {
            graph_emit e;
            graph_get_emit(g, first_emit + i, &e);
            core_buf_printf(&b, "%s{\"line\":%u", i ? "," : "", e.line);
            json_kv_str(&b, "kind", graph_emit_kind_name(e.kind), true);
            json_kv_str(&b, "style", graph_style_name(e.style), true);
            json_kv_str(&b, "level", graph_level_name(e.level), true);
            json_kv_str(&b, "template", e.tmpl, true);
            json_kv_str(&b, "receiver", e.receiver, true);
            json_kv_str(&b, "method", e.method, true);
            json_kv_str(&b, "logger", e.logger, true);
            json_kv_str(&b, "ref", e.ref, true);
            json_kv_str(&b, "name", e.name, true);
            show_next(&b, g, first_emit + i, true);
            core_buf_putc(&b, '}');
        }
        core_buf_puts(&b, "]}\n");
    } else {
        char fl[256];
        core_buf_printf(&b, "%s %s  %s:%u-%u", graph_sym_kind_name(s.kind), s.qualname, s.file,
                        s.start_line, s.end_line);
        if (s.flags)
            core_buf_printf(&b, "  [%s]", flag_names(s.flags, fl, sizeof fl));
        core_buf_putc(&b, '\n');
        if (*s.doc)
            core_buf_printf(&b, "  \"%s\"\n", s.doc);
        bool unused = true;
        show_edges(&b, g, id, false, false, &unused);
        show_edges(&b, g, id, true, false, &unused);
        if (nemits)
            core_buf_printf(&b, "emit sites (%u):\n", nemits);
        for (uint32_t i = 0; i < nemits; i++) {
            graph_emit e;
            graph_get_emit(g, first_emit + i, &e);
            core_buf_printf(&b, "  line %-5u %-5s %-8s ", e.line, graph_emit_kind_name(e.kind),
                            e.level != GRAPH_LEVEL_NONE ? graph_level_name(e.level) : "");
            if (*e.name)
                core_buf_printf(&b, "%s = ", e.name);
            if (*e.tmpl)
                core_buf_json_str(&b, e.tmpl, strlen(e.tmpl));
            else if (*e.ref)
                core_buf_printf(&b, "<%s>", e.ref);
            else
                core_buf_puts(&b, "<dynamic>");
            if (*e.logger)
                core_buf_printf(&b, "  logger %s", e.logger);
            if (e.flags & GRAPH_EF_CTOR) /* an object (an error) made with the text */
                core_buf_printf(&b, "  made by %s%s", graph_emit_maker(g, &e),
                                e.flags & GRAPH_EF_THROWN   ? ", thrown"
                                : e.flags & GRAPH_EF_HANDED ? ", handed to a call"
                                                            : "");
            core_buf_putc(&b, '\n');
            show_next(&b, g, first_emit + i, false);
        }
    }
    rc = cli_write_stdout(cmd.name, b.data, b.len);
    core_buf_free(&b);
    graph_close(g);
    return rc;
}

int cmd_graph(int argc, char **argv)
{
    static const cli_sub subs[] = {
        {"stats", "FILE [--json]",
         "Counts the files, symbols, edges and emit sites of a graph file.",
         "pmrag graph stats app.pmg --json"},
        {"show", "FILE SYMBOL [--json]",
         "Shows a symbol's neighbours by edge type and its emit sites.",
         "pmrag graph show app.pmg shop.checkout"},
    };
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        cli_group_help(argc < 1 ? stderr : stdout, "graph",
                       "Reads a graph file: its statistics (stats) and a symbol's neighbourhood "
                       "(show).",
                       subs, sizeof subs / sizeof subs[0]);
        return argc < 1 ? CLI_EXIT_USAGE : 0;
    }
    if (strcmp(argv[0], "stats") == 0)
        return graph_stats_cmd(argc - 1, argv + 1);
    if (strcmp(argv[0], "show") == 0)
        return graph_show_cmd(argc - 1, argv + 1);
    fprintf(stderr,
            "pmrag graph: unknown subcommand '%s' (stats or show; see 'pmrag graph --help')\n",
            argv[0]);
    return CLI_EXIT_USAGE;
}
