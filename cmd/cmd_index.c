/* pmrag index: build a graph file. */
#include "cli.h"
#include "commands.h"
#include "graph.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The run's statistics as one JSON object on stdout. */
static int print_stats_json(const char *out, const graph_index_stats *st)
{
    core_buf b = {0};
    core_buf_printf(&b, "{\"output\":");
    core_buf_json_str(&b, out, strlen(out));
    core_buf_printf(
        &b,
        ",\"files_seen\":%llu,\"files_indexed\":%llu,\"files_duplicate\":%llu,"
        "\"files_generated\":%llu,\"files_binary\":%llu,\"files_too_large\":%llu,"
        "\"files_unreadable\":%llu,\"files_declarations\":%llu,\"files_partial\":%llu,"
        "\"bytes\":%llu,\"lines\":%llu,"
        "\"symbols\":%llu,\"edges\":%llu,\"emits\":%llu,\"calls\":%llu,"
        "\"calls_resolved\":%llu,\"calls_internal\":%llu,\"calls_internal_resolved\":%llu,"
        "\"seconds\":%.3f,\"seconds_discover\":%.3f,\"seconds_extract\":%.3f,"
        "\"seconds_resolve\":%.3f,\"seconds_write\":%.3f}\n",
        (unsigned long long)st->files_seen, (unsigned long long)st->files_indexed,
        (unsigned long long)st->files_duplicate, (unsigned long long)st->files_generated,
        (unsigned long long)st->files_binary, (unsigned long long)st->files_too_large,
        (unsigned long long)st->files_unreadable, (unsigned long long)st->files_declarations,
        (unsigned long long)st->files_partial, (unsigned long long)st->bytes,
        (unsigned long long)st->lines, (unsigned long long)st->symbols,
        (unsigned long long)st->edges, (unsigned long long)st->emits, (unsigned long long)st->calls,
        (unsigned long long)st->calls_resolved, (unsigned long long)st->calls_internal,
        (unsigned long long)st->calls_internal_resolved, st->seconds, st->seconds_discover,
        st->seconds_extract, st->seconds_resolve, st->seconds_write);
    int rc = cli_write_stdout("index", b.data, b.len);
    core_buf_free(&b);
    return rc;
}

/* The run in a few lines on stderr. */
static void print_stats_text(const char *out, const graph_index_stats *st)
{
    double share = st->calls ? 100.0 * (double)st->calls_resolved / (double)st->calls : 0;
    double ishare = st->calls_internal
                        ? 100.0 * (double)st->calls_internal_resolved / (double)st->calls_internal
                        : 0;
    fprintf(stderr,
            "pmrag: indexed %llu files (%llu lines) in %.2f s -> %s\n"
            "       %llu symbols, %llu edges, %llu emit sites; calls resolved %.1f%% "
            "(%.1f%% of calls to in-repo names)\n",
            (unsigned long long)st->files_indexed, (unsigned long long)st->lines, st->seconds, out,
            (unsigned long long)st->symbols, (unsigned long long)st->edges,
            (unsigned long long)st->emits, share, ishare);
    uint64_t skipped = st->files_generated + st->files_binary + st->files_too_large +
                       st->files_unreadable + st->files_declarations;
    if (skipped || st->files_partial || st->files_duplicate)
        fprintf(stderr,
                "       %llu identical copies indexed once; %llu with syntax errors (kept); "
                "%llu skipped (%llu generated, %llu binary, %llu too large, %llu unreadable, "
                "%llu declarations beside their code)\n",
                (unsigned long long)st->files_duplicate, (unsigned long long)st->files_partial,
                (unsigned long long)skipped, (unsigned long long)st->files_generated,
                (unsigned long long)st->files_binary, (unsigned long long)st->files_too_large,
                (unsigned long long)st->files_unreadable,
                (unsigned long long)st->files_declarations);
    if (st->files_indexed == 0)
        fprintf(stderr, "pmrag: warning: no source files found under the given directories\n");
}

int cmd_index(int argc, char **argv)
{
    const char *out = NULL, *langs = NULL;
    cli_list excludes = {0};
    bool no_default = false, include_generated = false, progress = false, quiet = false,
         json = false;
    unsigned threads = 0;
    const cli_opt opts[] = {
        {"output", 'o', CLI_STR, &out, "FILE", "graph file to write (required)", 0, 0},
        {"lang", 0, CLI_STR, &langs, "LIST", "languages to index: py,ts,tsx,js (default: all)", 0,
         0},
        {"exclude", 0, CLI_LIST, &excludes, "GLOB",
         "skip paths matching GLOB (repeatable; adds to the defaults)", 0, 0},
        {"no-default-excludes", 0, CLI_FLAG, &no_default, NULL,
         "also index .git, node_modules, virtualenvs, build/dist dirs", 0, 0},
        {"include-generated", 0, CLI_FLAG, &include_generated, NULL,
         "index minified/generated files too (*.min.js, very long lines, source-map stubs)", 0, 0},
        {"threads", 'j', CLI_UINT, &threads, "N", "worker threads (default: one per CPU)", 1, 256},
        {"progress", 0, CLI_FLAG, &progress, NULL,
         "show progress even when stderr is not a terminal", 0, 0},
        {"quiet", 'q', CLI_FLAG, &quiet, NULL, "no notes about skipped or partial files", 0, 0},
        {"json", 0, CLI_FLAG, &json, NULL, "print the run's statistics as JSON on stdout", 0, 0},
    };
    const cli_cmd cmd = {
        "index",
        "DIR... -o FILE [options]",
        "Builds a graph file from Python, TypeScript and JavaScript sources.",
        "Extract symbols, references and emit sites (logging calls, spans, string\n"
        "constants) from every .py/.pyi/.ts/.mts/.cts/.tsx/.js/.mjs/.cjs/.jsx file under\n"
        "the directories, resolve names across files into typed edges, and write one\n"
        "graph file. With several directories, file paths start with each one's name."
        "\n\n"
        "Skipped by default: .git .hg .svn node_modules bower_components __pycache__\n"
        ".venv venv (and any dir with pyvenv.cfg) .tox .nox .mypy_cache .pytest_cache\n"
        ".ruff_cache .eggs *.egg-info .next .nuxt .cache .idea .vscode, and build/ or\n"
        "dist/ next to a project manifest (package.json, setup.py, pyproject.toml, ...)\n"
        "unless they are Python packages.\n"
        "Globs: '*' and '?' stay within a path component, '**' spans components; a\n"
        "pattern without '/' matches any component (e.g. 'tests', '*.spec.ts').",
        opts,
        sizeof opts / sizeof opts[0],
        1,
        1024,
        "pmrag index src/ -o app.pmg\n"
        "pmrag index backend/ frontend/ -o app.pmg --exclude tests --json",
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    if (!out) {
        free(args.v);
        free(excludes.v);
        return cli_usage_error(&cmd, "missing -o FILE (where to write the graph)");
    }
    graph_index_opts o = {0};
    if (langs && graph_lang_mask_parse(langs, &o.langs) != 0) {
        free(args.v);
        free(excludes.v);
        return cli_usage_error(&cmd, "--lang takes a list of py, ts, tsx, js, not '%s'", langs);
    }
    /* A root that is not there is a usage error (exit 2); whatever fails
     * later (writing the output) is not. */
    for (size_t i = 0; i < args.n; i++) {
        struct stat st;
        if (stat(args.v[i], &st) != 0) {
            int e = errno;
            rc = cli_error(cmd.name, "%s: %s", args.v[i], strerror(e));
            free(args.v);
            free(excludes.v);
            return CLI_EXIT_USAGE;
        }
    }
    o.excludes = excludes.v;
    o.nexcludes = excludes.n;
    o.no_default_excludes = no_default;
    o.include_generated = include_generated;
    o.threads = threads;
    o.log = cli_logger(quiet);
    cli_progress *pr = cli_progress_new("indexing", "files", progress || cli_stderr_is_tty());
    o.progress = cli_progress_update;
    o.progress_ud = pr;
    graph_index_stats st;
    rc = graph_index(args.v, args.n, out, &o, &st);
    cli_progress_done(pr);
    free(excludes.v);
    if (rc) {
        free(args.v);
        /* The library logged the detail (file or root at fault). */
        return rc == CORE_EUSAGE || rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    }
    free(args.v);
    if (json)
        return print_stats_json(out, &st);
    print_stats_text(out, &st);
    return 0;
}
