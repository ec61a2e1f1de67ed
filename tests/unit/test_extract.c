/*
 * Golden tests of the extractors: every source file below
 * tests/fixtures/extract/python and .../typescript is extracted and its
 * dump (graph__file_dump, with reads) compared with the file of the same
 * name plus ".expected". PMRAG_UPDATE_GOLDEN=1 rewrites the expected files
 * instead; review the diff before committing them.
 *
 * Then the emit sites of logging wrappers, on the small repository in
 * tests/fixtures/extract/wrappers (indexed: wrappers are found across
 * files), messages built in local variables before the logging call
 * (pkg/locals.py there), wrappers that format the caller's message into
 * a template of their own (pkg/fmt_wrappers.py), and the template
 * builder's truncation mark.
 */
#include "graph_int.h"
#include "map.h"
#include "unit.h"
#include "unit_graph.h"

#include <dirent.h>
#include <sys/stat.h>

/* src extracted as a file of lang into f (graph__file_free it). */
static void extract_as(graph_lang lang, const char *src, gx_file *f)
{
    graph__file_init(f);
    graph__extract(lang, src, strlen(src), f);
}

static int check_file(const char *path)
{
    graph_lang lang;
    if (!graph__lang_of_path(path, &lang))
        return 0;
    char *src;
    size_t n;
    if (core_read_file(path, 64u << 20, &src, &n) != 0)
        unit_fail(__FILE__, __LINE__, "cannot read %s", path);
    gx_file f;
    graph__file_init(&f);
    bool arena = graph__tsalloc_begin();
    graph__extract(lang, src, n, &f);
    core_buf got = {0};
    graph__file_dump(&f, &got, true);
    if (arena)
        graph__tsalloc_end();
    graph__file_free(&f);
    free(src);

    char exp_path[8192];
    snprintf(exp_path, sizeof exp_path, "%.4000s.expected", path);
    int failed = 0;
    if (getenv("PMRAG_UPDATE_GOLDEN")) {
        CHECK_OK(core_write_file_atomic(exp_path, got.data, got.len));
        printf("  updated %s\n", exp_path);
    } else {
        char *want;
        size_t wn;
        if (core_read_file(exp_path, 64u << 20, &want, &wn) != 0) {
            fprintf(stderr, "  %s: no expected output (run with PMRAG_UPDATE_GOLDEN=1)\n", path);
            failed = 1;
        } else {
            if (wn != got.len || memcmp(want, got.data, wn) != 0) {
                /* Show the first line that differs. */
                size_t line = 1, i = 0;
                while (i < wn && i < got.len && want[i] == got.data[i]) {
                    if (want[i] == '\n')
                        line++;
                    i++;
                }
                size_t ws = i, gs = i;
                while (ws > 0 && want[ws - 1] != '\n')
                    ws--;
                while (gs > 0 && got.data[gs - 1] != '\n')
                    gs--;
                int wl = (int)strcspn(want + ws, "\n"), gl = (int)strcspn(got.data + gs, "\n");
                fprintf(stderr, "  %s: line %zu differs\n    want: %.*s\n    got:  %.*s\n", path,
                        line, wl, want + ws, gl, got.data + gs);
                failed = 1;
            }
            free(want);
        }
    }
    core_buf_free(&got);
    return failed;
}

static int check_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        unit_fail(__FILE__, __LINE__, "cannot open %s", dir);
    int failed = 0, seen = 0;
    struct dirent *e;
    /* Sorted order keeps the output stable. */
    static char names[512][256];
    int nn = 0;
    while ((e = readdir(d)) && nn < 512) {
        if (e->d_name[0] == '.' || core_str_ends_with(e->d_name, ".expected"))
            continue;
        snprintf(names[nn++], 256, "%.255s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%.3800s/%.255s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            failed += check_dir(path);
            continue;
        }
        graph_lang lang;
        if (graph__lang_of_path(path, &lang))
            seen++;
        failed += check_file(path);
    }
    (void)seen;
    return failed;
}

TEST(extract_python_golden)
{
    CHECK_INT(check_dir(unit_fixture("extract/python")), 0);
}

TEST(extract_typescript_golden)
{
    CHECK_INT(check_dir(unit_fixture("extract/typescript")), 0);
}

/* ---- logging wrappers ---- */

static graph *open_wrappers(void)
{
    graph_index_opts o = {0};
    return unit_index_and_open(unit_fixture("extract/wrappers"), unit_tmp_path("w.graph"), &o,
                               NULL);
}

TEST(wrapper_method_called_through_self)
{
    graph *g = open_wrappers();
    const char *sc = "pkg.transport.Transport.start_client";
    /* .format(), %-format and logging's own arguments at the call; the
     * level from DEBUG / INFO (imported constants) and logging.WARNING;
     * the logger is the wrapper's. */
    graph_emit e = unit_emit_at(g, sc, 19);
    CHECK_WRAPPED(e, "starting thread (client mode): %s", GRAPH_STYLE_BRACE, GRAPH_LEVEL_DEBUG,
                  "pkg.transport");
    CHECK_STR(e.receiver, "@self");
    CHECK_STR(e.method, "_log");
    e = unit_emit_at(g, sc, 20);
    CHECK_WRAPPED(e, "Connected (version %s, client %s)", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO,
                  "pkg.transport");
    e = unit_emit_at(g, sc, 21);
    CHECK_WRAPPED(e, "window %d for %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_WARNING, "pkg.transport");
    CHECK_INT(e.nargs, 2);
    /* Attributed to the caller: the wrapper has no site with these
     * templates, and its own calls to the logger have none at all. */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "pkg.transport.Transport._log"), &first);
    CHECK_INT(n, 2);
    for (uint32_t i = 0; i < n; i++) {
        graph_get_emit(g, first + i, &e);
        CHECK_STR(e.tmpl, "");
        CHECK_INT(e.flags & GRAPH_EF_WRAPPER, 0);
    }
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, sc), &s);
    CHECK(s.flags & GRAPH_SF_LOGS);
    graph_close(g);
}

TEST(wrapper_of_a_wrapper)
{
    graph *g = open_wrappers();
    /* rekey -> _note(text) -> _log(DEBUG, text): the level is fixed by
     * the middle one; an f-string at the call. */
    graph_emit e = unit_emit_at(g, "pkg.transport.Transport.rekey", 27);
    CHECK_WRAPPED(e, "rekeying after %s bytes", GRAPH_STYLE_FSTRING, GRAPH_LEVEL_DEBUG,
                  "pkg.transport");
    CHECK_STR(e.method, "_note");
    /* close -> _forward(*args) -> _log(*args): positions pass through. */
    e = unit_emit_at(g, "pkg.transport.Transport.close", 33);
    CHECK_WRAPPED(e, "closing transport", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_INFO, "pkg.transport");
    /* The middle ones pass their parameter on: no site of their own. */
    uint32_t first;
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.transport.Transport._note"), &first), 0);
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.transport.Transport._forward"), &first), 0);
    graph_close(g);
}

TEST(wrapper_through_an_attribute_chain)
{
    graph *g = open_wrappers();
    /* self.transport (a constructor parameter) and self._transport (None)
     * cannot be resolved: `_log` wrappers by name, of the class named like
     * the attribute (Transport, not Channel with its prefix). */
    graph_emit e = unit_emit_at(g, "pkg.channel.Channel.kick", 18);
    CHECK_WRAPPED(e, "kicked by channel %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO,
                  "pkg.transport");
    CHECK_STR(e.receiver, "@self.transport");
    /* Client._log passes both on to self._transport._log. */
    e = unit_emit_at(g, "pkg.client.Client.connect", 13);
    CHECK_WRAPPED(e, "Connecting to %s", GRAPH_STYLE_BRACE, GRAPH_LEVEL_INFO, "pkg.transport");
    graph_close(g);
}

TEST(wrapper_text_around_the_message)
{
    graph *g = open_wrappers();
    /* "[chan " + self._name + "] " + msg, with logging's arguments. */
    graph_emit e = unit_emit_at(g, "pkg.channel.Channel.send_eof", 15);
    CHECK_WRAPPED(e, "[chan %s] EOF sent (%s)", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG,
                  "pkg.channel");
    CHECK_INT(e.nargs, 1);
    /* The wrapper's own site would match every message it logs: kept as
     * a site, without its template. */
    e = unit_emit_at(g, "pkg.channel.Channel._log", 12);
    CHECK_STR(e.tmpl, "");
    CHECK_INT(e.style, GRAPH_STYLE_DYNAMIC);
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, "pkg.channel.Channel._log"), &s);
    CHECK(s.flags & GRAPH_SF_LOGS_DYNAMIC);
    graph_close(g);
}

TEST(wrapper_module_functions)
{
    graph *g = open_wrappers();
    graph_emit e = unit_emit_at(g, "pkg.helpers.report", 12);
    CHECK_WRAPPED(e, "cannot open %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_WARNING, "pkg.helpers");
    CHECK_STR(e.receiver, "");
    CHECK_STR(e.method, "warn_user");
    /* By keyword. */
    e = unit_emit_at(g, "pkg.helpers.report", 13);
    CHECK_WRAPPED(e, "disk full", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_WARNING, "pkg.helpers");
    /* Through the module from another one. */
    e = unit_emit_at(g, "pkg.app.main", 6);
    CHECK_WRAPPED(e, "starting %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_WARNING, "pkg.helpers");
    CHECK_STR(e.receiver, "helpers");
    /* A call with a string to a function that does not log: only a
     * candidate, for the log to confirm or not. */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "pkg.helpers.report"), &first),
                    listed = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit x;
        graph_get_emit(g, first + i, &x);
        listed += x.kind != GRAPH_EMIT_CALL;
    }
    CHECK_INT(listed, 2);
    CHECK_INT(n, 3);
    /* A function that logs its parameter but that nobody calls keeps its
     * template. */
    e = unit_emit_at(g, "pkg.helpers.lonely", 18);
    CHECK_STR(e.tmpl, "[lonely] %s");
    CHECK_INT(e.flags & GRAPH_EF_WRAPPER, 0);
    graph_close(g);
}

/* The wrappers fixture's template matcher. */
typedef struct wmatch {
    graph *g;
    map_matcher *m;
    map_match_work *w;
} wmatch;

static wmatch wmatch_open(void)
{
    wmatch x = {.g = open_wrappers()};
    CHECK_OK(map_matcher_build(x.g, NULL, &x.m));
    x.w = map_match_work_new(x.m);
    return x;
}

static void wmatch_close(wmatch *x)
{
    map_match_work_free(x->w);
    map_matcher_free(x->m);
    graph_close(x->g);
}

/* How many sites match msg (logger and level may be NULL); the first in
 * *first when there is one. */
static uint32_t wmatch_msg(wmatch *x, const char *msg, const char *logger, const char *level,
                           graph_emit *first)
{
    uint32_t e[8];
    map_match r = map_matcher_match(x->m, x->w, msg, strlen(msg), logger, level, e, 8);
    if (r.nemits && first)
        graph_get_emit(x->g, e[0], first);
    return r.nemits;
}

TEST(wrapper_sites_match_and_nothing_matches_everything)
{
    wmatch x = wmatch_open();
    graph_emit em;
    CHECK_INT(wmatch_msg(&x, "[chan 7] EOF sent (7)", NULL, NULL, &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.channel.Channel.send_eof"));
    CHECK_INT(wmatch_msg(&x, "Connected (version 2.0, client x)", "pkg.transport", "INFO", &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.transport.Transport.start_client"));
    /* Neither wrapper's own call catches other messages. */
    CHECK_INT(wmatch_msg(&x, "[chan 7] something else entirely", NULL, NULL, NULL), 0);
    CHECK_INT(wmatch_msg(&x, "no template says this", NULL, NULL, NULL), 0);
    wmatch_close(&x);
}

/* A context manager that logs the name it was made with: its records are
 * the `with` line's, in the two forms its helper words them (a local
 * bound to the name whole, or to the name and its arguments), to the
 * logger the `with` hands it. An
 * attribute the constructor keeps, logged by an ordinary method among
 * its own words, stays that method's. */
TEST(context_manager_logs_the_name_it_was_made_with)
{
    wmatch x = wmatch_open();
    uint32_t fetch = unit_sym(x.g, "pkg.scopes.fetch");
    const char *const at_with[] = {"fetch.started url='http://x'", "fetch.complete"};
    for (size_t i = 0; i < 2; i++) {
        graph_emit em;
        CHECK(wmatch_msg(&x, at_with[i], NULL, NULL, &em) >= 1);
        CHECK_INT(em.symbol, fetch);
        CHECK_INT(em.line, 37);
        CHECK(em.flags & GRAPH_EF_WRAPPER);
        /* The logger the construction hands it, which it keeps. */
        CHECK_STR(em.logger, "pkg.scopes");
    }
    /* The protocol's own sites stay, for constructions without text. */
    uint32_t first;
    CHECK_INT(graph_symbol_emits(x.g, unit_sym(x.g, "pkg.scopes.Step.__enter__"), &first), 2);
    graph_emit em = unit_emit_at(x.g, "pkg.scopes.Conn.open", 33);
    CHECK_STR(em.tmpl, "Connected to %s");
    uint32_t n = graph_symbol_emits(x.g, fetch, &first);
    for (uint32_t i = 0; i < n; i++) {
        graph_get_emit(x.g, first + i, &em);
        CHECK(strstr(em.tmpl, "Connected") == NULL);
    }
    wmatch_close(&x);
}

/* ---- which functions are wrappers: found to a fixpoint ---- */

static const char used_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "DONE = \"all jobs done\"\n"
                              "\n"
                              "\n"
                              "def log_it(msg):\n"
                              "    logger.info(msg)\n"
                              "\n"
                              "\n"
                              "def outer(m):\n"
                              "    inner(m)\n"
                              "\n"
                              "\n"
                              "def inner(m):\n"
                              "    logger.debug(m)\n"
                              "\n"
                              "\n"
                              "def note(text):\n"
                              "    logger.warning(text)\n"
                              "\n"
                              "\n"
                              "def show(path):\n"
                              "    logger.info(path)\n"
                              "\n"
                              "\n"
                              "def walk(path):\n"
                              "    logger.error(path)\n"
                              "    walk(f\"{path}/sub\")\n"
                              "\n"
                              "\n"
                              "def run(p):\n"
                              "    log_it(\"user signed in\")\n"
                              "    outer(\"cache flushed to disk\")\n"
                              "    note(DONE)\n"
                              "    show(p)\n";

static bool is_wrapper(const graph *g, const char *qualname)
{
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, qualname), &s);
    return (s.flags & GRAPH_SF_WRAPPER) != 0;
}

TEST(wrapper_used_found_to_a_fixpoint)
{
    unit_write_str("used/pkg/__init__.py", "");
    unit_write_str("used/pkg/svc.py", used_py);
    graph_index_opts o = {0};
    o.threads = 1;
    graph *g = unit_index_and_open(unit_tmp_path("used"), unit_tmp_path("used.graph"), &o, NULL);
    /* Called with a literal, or a string constant: wrappers, and their
     * callers' calls are the sites. */
    CHECK(is_wrapper(g, "pkg.svc.log_it"));
    CHECK(is_wrapper(g, "pkg.svc.note"));
    graph_emit e = unit_emit_at(g, "pkg.svc.run", unit_line_of(used_py, "log_it(\"user"));
    CHECK_WRAPPED(e, "user signed in", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_INFO, "pkg.svc");
    e = unit_emit_at(g, "pkg.svc.run", unit_line_of(used_py, "note(DONE)"));
    CHECK_INT(e.style, GRAPH_STYLE_REF);
    CHECK_STR(e.ref, "DONE");
    CHECK(e.ref_const != GRAPH_NONE);
    /* inner is called only by outer, with outer's parameter; outer is
     * called (later in the file) with a literal: both are wrappers, and
     * the literal's site is run's, at inner's level. */
    CHECK(is_wrapper(g, "pkg.svc.outer"));
    CHECK(is_wrapper(g, "pkg.svc.inner"));
    e = unit_emit_at(g, "pkg.svc.run", unit_line_of(used_py, "outer(\"cache"));
    CHECK_WRAPPED(e, "cache flushed to disk", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_DEBUG, "pkg.svc");
    CHECK_STR(e.method, "outer");
    uint32_t first;
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.svc.outer"), &first), 0);
    /* Data passed to a function that logs it makes no wrapper: run's
     * own parameter (run is no wrapper), or a path walk builds from its
     * own for its recursive call. */
    CHECK(!is_wrapper(g, "pkg.svc.show"));
    CHECK(!is_wrapper(g, "pkg.svc.walk"));
    CHECK(!is_wrapper(g, "pkg.svc.run"));
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.svc.run"), &first), 3);

    map_matcher *m;
    CHECK_OK(map_matcher_build(g, NULL, &m));
    map_match_work *w = map_match_work_new(m);
    uint32_t ids[8];
    const char *msg = "cache flushed to disk";
    CHECK_INT(map_matcher_match(m, w, msg, strlen(msg), NULL, NULL, ids, 8).nemits, 1);
    graph_get_emit(g, ids[0], &e);
    CHECK_INT(e.symbol, unit_sym(g, "pkg.svc.run"));
    CHECK_INT(e.line, unit_line_of(used_py, "outer(\"cache"));
    /* What only the log's logger can point to: the sites of show and
     * walk, not the wrappers' own. */
    CHECK_INT(map_matcher_unseen(m, "pkg.svc", NULL, 0, NULL, ids, 8), 2);
    graph_get_emit(g, ids[0], &e);
    CHECK_INT(e.symbol, unit_sym(g, "pkg.svc.show"));
    graph_get_emit(g, ids[1], &e);
    CHECK_INT(e.symbol, unit_sym(g, "pkg.svc.walk"));
    map_match_work_free(w);
    map_matcher_free(m);
    graph_close(g);
}

/* ---- messages built in local variables (pkg/locals.py) ---- */

/* The emit sites of symbol qualname at line, at most cap; their number. */
/* The sites of a symbol at a line that the code's shapes name (logging
 * calls, wrappers, spans...): candidate calls (GRAPH_EMIT_CALL) left out,
 * as the log decides about those. */
static uint32_t emits_at(const graph *g, const char *qualname, uint32_t line, graph_emit *out,
                         uint32_t cap)
{
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, qualname), &first), found = 0;
    graph_emit x;
    for (uint32_t i = 0; i < n; i++) {
        graph_get_emit(g, first + i, &x);
        if (x.kind == GRAPH_EMIT_CALL)
            continue;
        if (x.line == line && found < cap)
            out[found++] = x;
        else if (x.line == line)
            found++;
    }
    return found;
}

/* The site among e[0 .. n) with template tmpl; fails if there is none. */
static graph_emit with_template(const graph_emit *e, uint32_t n, const char *tmpl)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].tmpl, tmpl) == 0)
            return e[i];
    unit_fail(__FILE__, __LINE__, "no emit site with template \"%s\"", tmpl);
}

/* Checks that the sites of qualname on line log exactly the n templates
 * t (in any order). */
static void templates_at(const graph *g, const char *qualname, uint32_t line, uint32_t n,
                         const char *const *t)
{
    graph_emit e[8];
    CHECK_INT(emits_at(g, qualname, line, e, 8), n);
    for (uint32_t i = 0; i < n; i++)
        with_template(e, n, t[i]);
}

TEST(local_message_each_way_of_building_it)
{
    graph *g = open_wrappers();
    /* Passed to a wrapper: the message's template, as if written inline. */
    graph_emit e = unit_emit_at(g, "pkg.locals.Session.percent", 19);
    CHECK_WRAPPED(e, "login failed for %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO, "pkg.locals");
    CHECK_STR(e.method, "_log");
    e = unit_emit_at(g, "pkg.locals.Session.brace", 23);
    CHECK_WRAPPED(e, "Authentication (%s) failed.", GRAPH_STYLE_BRACE, GRAPH_LEVEL_INFO,
                  "pkg.locals");
    e = unit_emit_at(g, "pkg.locals.Session.fstring", 27);
    CHECK_WRAPPED(e, "rekeyed after %s packets", GRAPH_STYLE_FSTRING, GRAPH_LEVEL_DEBUG,
                  "pkg.locals");
    /* A + chain, a `name = name + ...` and a conditional expression. */
    e = unit_emit_at(g, "pkg.locals.Session.grown", 94);
    CHECK_STR(e.tmpl, "user %s logged in");
    CHECK_INT(e.style, GRAPH_STYLE_CONCAT);
    graph_emit es[8];
    CHECK_INT(emits_at(g, "pkg.locals.Session.conditional", 89, es, 8), 2);
    CHECK_INT(with_template(es, 2, "fast path").style, GRAPH_STYLE_PLAIN);
    CHECK_INT(with_template(es, 2, "slow path for %s").style, GRAPH_STYLE_PERCENT);
    /* Passed to the logger itself: a site of its own. */
    e = unit_emit_at(g, "pkg.locals.Session.concat", 31);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK_INT(e.flags & GRAPH_EF_WRAPPER, 0);
    CHECK_STR(e.tmpl, "connected to %s at last");
    CHECK_INT(e.style, GRAPH_STYLE_CONCAT);
    CHECK_INT(e.level, GRAPH_LEVEL_INFO);
    CHECK_STR(e.logger, "pkg.locals");
    /* With logging's arguments, the directives of a plain literal are
     * holes. */
    e = unit_emit_at(g, "pkg.locals.Session.direct", 35);
    CHECK_STR(e.tmpl, "cannot read %s");
    CHECK_INT(e.style, GRAPH_STYLE_PERCENT);
    CHECK_INT(e.nargs, 1);
    /* So do those of a literal joined to a value by `+`, in a local or
     * inline: the joined text is the format (the value a hole); without
     * arguments its '%' is text. */
    e = unit_emit_at(g, "pkg.locals.Session.joined_format", 102);
    CHECK_STR(e.tmpl, "%d %s: %s");
    CHECK_INT(e.style, GRAPH_STYLE_CONCAT);
    CHECK_STR(unit_emit_at(g, "pkg.locals.Session.joined_inline", 105).tmpl, "error %d: %s");
    CHECK_STR(unit_emit_at(g, "pkg.locals.Session.joined_text", 108).tmpl, "100%% sure: %s");
    /* Chosen where it is passed: each branch's message, to a wrapper and
     * to a call of unknown callee alike (`or`: the first unless empty). */
    CHECK_INT(emits_at(g, "pkg.locals.Session.chosen_inline", 111, es, 8), 2);
    CHECK_INT(with_template(es, 2, "fast path").style, GRAPH_STYLE_PLAIN);
    CHECK_INT(with_template(es, 2, "slow path for %s").style, GRAPH_STYLE_PERCENT);
    e = unit_emit_at(g, "pkg.locals.Session.chosen_inline", 112);
    CHECK_STR(e.tmpl, "No thread for %s.");
    CHECK_INT(e.kind, GRAPH_EMIT_CALL);
    /* A branch known only at run time: text of run time, as before. */
    CHECK_INT(unit_emit_at(g, "pkg.locals.Session.chosen_inline", 113).style, GRAPH_STYLE_DYNAMIC);
    graph_close(g);
}

/* A format kept in a local and filled in the logging call, by
 * str.format or %: the literal's template, as if it were written there.
 * A parameter is no such local. */
TEST(local_format_filled_in_the_call)
{
    graph *g = open_wrappers();
    graph_emit e = unit_emit_at(g, "pkg.locals.Filled.formatted", 122);
    CHECK_STR(e.tmpl, "Invalid request from ip=%s: %s");
    CHECK_INT(e.style, GRAPH_STYLE_BRACE);
    CHECK_INT(e.level, GRAPH_LEVEL_DEBUG);
    e = unit_emit_at(g, "pkg.locals.Filled.percent", 126);
    CHECK_STR(e.tmpl, "peer %s went away");
    CHECK_INT(e.style, GRAPH_STYLE_PERCENT);
    e = unit_emit_at(g, "pkg.locals.Filled.unknown", 129);
    CHECK_STR(e.tmpl, "");
    graph_close(g);
}

/* A method called on its class with the instance passed first (a base
 * class's, from a subclass): the message is the argument after it. */
TEST(method_called_on_its_class)
{
    graph *g = open_wrappers();
    graph_emit e = unit_emit_at(g, "pkg.locals.Derived.send", 139);
    CHECK_STR(e.tmpl, "Error sending message to %s");
    CHECK_INT(e.level, GRAPH_LEVEL_WARNING);
    graph_close(g);
}

TEST(local_message_several_bindings)
{
    graph *g = open_wrappers();
    graph_emit e[8];
    /* if/else: one site per message, for the wrapper and the logger. */
    for (uint32_t line = 42; line <= 43; line++) {
        CHECK_INT(emits_at(g, "pkg.locals.Session.branches", line, e, 8), 2);
        CHECK_INT(with_template(e, 2, "channel open").style, GRAPH_STYLE_PLAIN);
        CHECK_INT(with_template(e, 2, "channel refused: %s").style, GRAPH_STYLE_BRACE);
    }
    /* A binding on every path hides the ones before it. */
    CHECK_STR(unit_emit_at(g, "pkg.locals.Session.reassigned", 48).tmpl, "second guess %s");
    /* += in an if: with and without it. */
    CHECK_INT(emits_at(g, "pkg.locals.Session.appended", 54, e, 8), 2);
    CHECK_INT(with_template(e, 2, "kex engine %s chosen").style, GRAPH_STYLE_BRACE);
    CHECK_INT(with_template(e, 2, "kex engine %s chosen, falling back to sha1").style,
              GRAPH_STYLE_CONCAT);
    /* += in both arms of an if: never both. */
    uint32_t n = emits_at(g, "pkg.locals.Session.either", 62, e, 8);
    CHECK(n >= 2 && n <= 3);
    with_template(e, n, "%s: same");
    with_template(e, n, "%s: local=%s, remote=%s");
    for (uint32_t i = 0; i < n; i++)
        CHECK(!(strstr(e[i].tmpl, "same") && strstr(e[i].tmpl, "local=")));
    /* for msg in (...): each value. */
    CHECK_INT(emits_at(g, "pkg.locals.Session.loop", 72, e, 8), 2);
    CHECK_INT(with_template(e, 2, "type %s not permitted").flags & GRAPH_EF_WRAPPER,
              GRAPH_EF_WRAPPER);
    with_template(e, 2, "allowed: %s");
    graph_close(g);
}

TEST(local_message_not_followed)
{
    graph *g = open_wrappers();
    graph_emit e[8];
    /* The nearest binding is a call's result: no template, even though a
     * string was bound before it. The wrapper's call is a site without
     * text, as the logger's own call is (a reference). */
    CHECK_INT(emits_at(g, "pkg.locals.Session.from_a_call", 67, e, 8), 1);
    CHECK_STR(e[0].tmpl, "");
    CHECK_INT(e[0].style, GRAPH_STYLE_DYNAMIC);
    CHECK_INT(e[0].level, GRAPH_LEVEL_INFO);
    CHECK_INT(emits_at(g, "pkg.locals.Session.from_a_call", 68, e, 8), 1);
    CHECK_STR(e[0].tmpl, "");
    CHECK_INT(e[0].style, GRAPH_STYLE_REF);
    /* A nested def's locals are its own, and do not leak out; nor does a
     * binding after the call; nor a local that only names a constant (the
     * mapping's constant strategy follows the constant's readers, as it
     * did before). Each call is a site without text. */
    CHECK_STR(unit_emit_at(g, "pkg.locals.Session.nested.inner", 77).tmpl, "only inside %s");
    static const struct {
        const char *sym;
        uint32_t line;
    } bare[] = {{"pkg.locals.Session.nested", 79},
                {"pkg.locals.Session.later", 83},
                {"pkg.locals.Session.named_constant", 98}};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        CHECK_INT(emits_at(g, bare[i].sym, bare[i].line, e, 8), 1);
        CHECK_STR(e[0].tmpl, "");
        CHECK_INT(e[0].style, GRAPH_STYLE_DYNAMIC);
    }
    graph_close(g);
}

TEST(local_message_matches)
{
    wmatch x = wmatch_open();
    graph_emit em;
    CHECK_INT(wmatch_msg(&x, "Authentication (password) failed.", "pkg.locals", "INFO", &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.locals.Session.brace"));
    CHECK(wmatch_msg(&x, "kex engine curve25519 chosen, falling back to sha1", "pkg.locals",
                     "DEBUG", &em) >= 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.locals.Session.appended"));
    wmatch_close(&x);
}

/* ---- literal arguments filled into the template (pkg/filled.py) ---- */

TEST(literal_arguments_fill_the_template)
{
    graph *g = open_wrappers();
    /* A helper given a literal: the template as written, and one with the
     * literal between two holes (the helper's decoration, 13). A pick
     * among literals, from a local tuple or an inline one: one site per
     * value, the hole replaced (23, 24, 32). */
    graph_emit e[8];
    CHECK_INT(emits_at(g, "pkg.filled.chosen", 32, e, 8), 2);
    CHECK_INT(with_template(e, 2, "fast path: %d items").level, GRAPH_LEVEL_INFO);
    /* A mapping key or a width changes the text (33, 34), parameters are
     * not literals (28): left as holes. A local or `self.name` bound to
     * literals on every path to the call (in its own block, 41, or both
     * arms of a conditional, 43) fills it. Not when a path may bring
     * another value: an attribute bound only in an if arm (bound elsewhere
     * too, perhaps, 46), a local a loop rebinds (49), an attribute bound
     * to what a call returns (54), or not bound at all (52). A message
     * formatted into a local first: its template spliced into the hole,
     * holes and all (58, 60); not when a path brings a plain literal (62). */
    static const struct {
        const char *sym;
        uint32_t line, n;
        const char *t[3];
    } want[] = {
        {"pkg.filled.Wire.receive",
         13,
         2,
         {"{action}{peer}: {msg}", "{action}Receive({action}{peer}: {msg}"}},
        {"pkg.filled.transcript", 23, 3, {"* %s", "< %s", "> %s"}},
        {"pkg.filled.transcript", 24, 2, {"in %r", "out %r"}},
        {"pkg.filled.chosen", 32, 2, {"fast path: %d items", "slow path: %d items"}},
        {"pkg.filled.chosen", 33, 1, {"%(who)s left"}},
        {"pkg.filled.chosen", 34, 1, {"%-6s|%s"}},
        {"pkg.filled.request", 28, 1, {"%s %s"}},
        {"pkg.filled.Connection.modify", 41, 1, {"connection is read-only for <%s>"}},
        {"pkg.filled.Connection.modify",
         43,
         2,
         {"changes must be a dictionary for <%s>", "changes must be a list for <%s>"}},
        {"pkg.filled.Connection.modify", 46, 1, {"%s for <%s>"}},
        {"pkg.filled.Connection.modify", 49, 1, {"%s for <%s>"}},
        {"pkg.filled.Connection.bind", 52, 1, {"%s for <%s>"}},
        {"pkg.filled.Connection.bind", 54, 1, {"%s for <%s>"}},
        {"pkg.filled.Connection.lookup", 58, 1, {"key '%s' not present for <%s>"}},
        {"pkg.filled.Connection.lookup", 60, 1, {"%s of %s read: %s"}},
        {"pkg.filled.Connection.lookup", 62, 1, {"%s!"}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        templates_at(g, want[i].sym, want[i].line, want[i].n, want[i].t);
    graph_close(g);
}

TEST(literal_arguments_tell_twins_apart)
{
    wmatch x = wmatch_open();
    graph_emit em;
    CHECK_INT(wmatch_msg(&x, "\x1b[1mTransmit(\x1b[0mpeer-1: HELLO", "pkg.filled", "TRACE", &em),
              1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.filled.Wire.transmit"));
    CHECK_INT(wmatch_msg(&x, "\x1b[1mReceive(\x1b[0mpeer-1: WELCOME", "pkg.filled", "TRACE", &em),
              1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.filled.Wire.receive"));
    CHECK_INT(wmatch_msg(&x, "> User-Agent: curl", "pkg.filled", "DEBUG", &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.filled.transcript"));
    /* "%s %s" has too little text to match anything; the values filled in
     * do not make it catch other lines. */
    CHECK_INT(wmatch_msg(&x, "GET http://example.com/", "pkg.filled", "DEBUG", &em), 0);
    /* More arguments than the template's holes (a logging function of the
     * code's own reading ":hex" as how to show the value before it): no
     * literal is said to fill a hole, and the template as written matches;
     * as many as it has are filled as ever. */
    CHECK_INT(wmatch_msg(&x, "sent 0x1 0x2 to peer-1", NULL, NULL, &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.filled.sent"));
    CHECK_INT(wmatch_msg(&x, "sending took 5 ms", "pkg.filled", "INFO", &em), 1);
    CHECK_STR(em.tmpl, "sending took %d ms");
    wmatch_close(&x);
}

/* The templates of the LOG sites on a line of an extracted file, in
 * order: how many (up to cap into out). */
static uint32_t log_templates(const gx_file *f, uint32_t line, const char **out, uint32_t cap)
{
    uint32_t n = 0;
    for (size_t i = 0; i < f->emits.n; i++) {
        const gx_emit *e = &f->emits.v[i];
        if (e->line != line || e->kind != GRAPH_EMIT_LOG)
            continue;
        if (n < cap)
            out[n] = e->tmpl;
        n++;
    }
    return n;
}

TEST(literal_arguments_fill_the_template_javascript)
{
    static const char src[] = "const debug = require('debug')('app:wire');\n"           /* 1 */
                              "function send(msg) {\n"                                  /* 2 */
                              "  debug('%s%s: %s', paint('Transmit('), this.p, msg);\n" /* 3 */
                              "}\n"                                                     /* 4 */
                              "function transcript(kind, line) {\n"                     /* 5 */
                              "  const marks = ['*', '<', '>'];\n"                      /* 6 */
                              "  debug('%s %s', marks[kind], line);\n"                  /* 7 */
                              "  debug('%s %s', kind ? 'in' : 'out', line);\n"          /* 8 */
                              "  debug('%d items', 'x');\n"                             /* 9 */
                              "  debug('req', kind ? 'fast' : 'slow', line);\n"         /* 10 */
                              "  debug('%s %s', line, kind);\n"                         /* 11 */
                              "  const why = kind ? 'closed' : 'timed out';\n"          /* 12 */
                              "  debug('%s: %s', why, line);\n"                         /* 13 */
                              "  let note = 'first';\n"                                 /* 14 */
                              "  debug('note %s', note);\n"                             /* 15 */
                              "  note = 'second';\n"                                    /* 16 */
                              "  for (const it of line) debug('item %s', it);\n"        /* 17 */
                              "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    /* A helper's call on a literal (3): the template as written, and one
     * with the literal between two holes. Picks among literals (7, 8,
     * 10): one site per value, for a directive's argument and for one
     * util.format appends. %d shows no string as it is (9); parameters
     * are no literals (11). A const bound to literals is one of them
     * (13); so is a let that only literals are bound to, wherever (15: a
     * loop may come back to the line after the later one); a loop's
     * binding (17) is not. */
    static const struct {
        uint32_t line, n;
        const char *t[3];
    } want[] = {{3, 2, {"%s%s: %s", "%sTransmit(%s%s: %s"}},
                {7, 3, {"* %s", "< %s", "> %s"}},
                {8, 2, {"in %s", "out %s"}},
                {10, 2, {"req fast %s", "req slow %s"}},
                {9, 1, {"%d items"}},
                {11, 1, {"%s %s"}},
                {13, 2, {"timed out: %s", "closed: %s"}},
                {15, 2, {"note first", "note second"}},
                {17, 1, {"item %s"}}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        const char *t[8];
        CHECK_INT(log_templates(&f, want[w].line, t, 8), want[w].n);
        for (uint32_t k = 0; k < want[w].n; k++)
            CHECK_STR(t[k], want[w].t[k]);
    }
    graph__file_free(&f);
}

/* Checks the templates of the LOG sites on line `line` of f: n of them,
 * the first as written, the second (when n is 2) t1. */
static void check_line(const gx_file *f, uint32_t line, uint32_t n, const char *t0, const char *t1)
{
    const char *t[8];
    CHECK_INT(log_templates(f, line, t, 8), n);
    CHECK_STR(t[0], t0);
    if (n == 2)
        CHECK_STR(t[1], t1);
}

/* util.format shows a function it is handed as util.inspect names it: a
 * name handed with a callback (an event's, a route's) holds no hole that
 * the text of a message could fill. */
TEST(a_function_handed_to_util_format_is_shown_by_its_name)
{
    static const char js[] = "function wire(conn, log) {\n"                            /* 1 */
                             "  conn.on('available', () => conn.next());\n"            /* 2 */
                             "  conn.once('drained', async function later() {});\n"    /* 3 */
                             "  conn.on('ready', function* () {}, conn.id);\n"         /* 4 */
                             "  console.log('hook %s set', conn.id, async () => 1);\n" /* 5 */
                             "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    static const char *const want[] = {NULL,
                                       NULL,
                                       "available [Function (anonymous)]",
                                       "drained [AsyncFunction: later]",
                                       "ready [GeneratorFunction (anonymous)] %s",
                                       "hook %s set [AsyncFunction (anonymous)]"};
    uint32_t seen = 0;
    for (size_t i = 0; i < f.emits.n; i++) {
        const gx_emit *e = &f.emits.v[i];
        if (e->line < 2 || e->line > 5)
            continue;
        CHECK_STR(e->tmpl, want[e->line]);
        seen |= 1u << e->line;
    }
    CHECK_INT(seen, 0x3c);
    graph__file_free(&f);
}

/* The flags of the constructor site on a line of f whose template is
 * tmpl (0 when there is none, ~0u when it is no constructor's). */
static uint32_t ctor_flags(const gx_file *f, uint32_t line, const char *tmpl)
{
    for (size_t i = 0; i < f->emits.n; i++) {
        const gx_emit *e = &f->emits.v[i];
        if (e->line == line && e->tmpl && strcmp(e->tmpl, tmpl) == 0)
            return e->flags & GRAPH_EF_CTOR ? e->flags : ~0u;
    }
    return 0;
}

/* The flags of the symbol named name in f (~0u when there is none). */
static uint32_t sym_flags(const gx_file *f, const char *name)
{
    for (size_t i = 0; i < f->syms.n; i++)
        if (strcmp(f->syms.v[i].name, name) == 0)
            return f->syms.v[i].flags;
    return ~0u;
}

/* A function that handles what its calls throw is marked: a try with a
 * handler, a promise's .catch(); a finally alone handles nothing. */
TEST(functions_that_catch)
{
    static const char js[] = "function a() { try { b(); } catch (e) { c(e); } }\n"
                             "function b() { return d().catch(c); }\n"
                             "function c() { try { d(); } finally { e(); } }\n"
                             "function d() { return d2().then(c); }\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    CHECK(sym_flags(&f, "a") & GRAPH_SF_CATCHES);
    CHECK(sym_flags(&f, "b") & GRAPH_SF_CATCHES);
    CHECK(!(sym_flags(&f, "c") & GRAPH_SF_CATCHES));
    CHECK(!(sym_flags(&f, "d") & GRAPH_SF_CATCHES));
    graph__file_free(&f);
    static const char py[] = "def a():\n    try:\n        b()\n    except OSError:\n        pass\n"
                             "def c():\n    try:\n        b()\n    finally:\n        pass\n";
    extract_as(GRAPH_LANG_PYTHON, py, &f);
    CHECK(sym_flags(&f, "a") & GRAPH_SF_CATCHES);
    CHECK(!(sym_flags(&f, "c") & GRAPH_SF_CATCHES));
    graph__file_free(&f);
}

/* A function that calls what a parameter of its holds runs work its
 * caller hands it, in both languages; a call of another name, or of a
 * parameter's method, is not that. */
TEST(functions_that_run_handed_work)
{
    static const char js[] = "async function a(sql, work) { const r = await work(); log(sql); }\n"
                             "function b(sql, conn) { return conn.run(sql); }\n"
                             "function c(sql) { return run(sql); }\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    CHECK(sym_flags(&f, "a") & GRAPH_SF_RUNS_HANDED);
    CHECK(!(sym_flags(&f, "b") & GRAPH_SF_RUNS_HANDED));
    CHECK(!(sym_flags(&f, "c") & GRAPH_SF_RUNS_HANDED));
    graph__file_free(&f);
    static const char py[] = "def a(sql, work):\n    rows = work()\n    log(sql)\n"
                             "def b(sql, conn):\n    return conn.run(sql)\n";
    extract_as(GRAPH_LANG_PYTHON, py, &f);
    CHECK(sym_flags(&f, "a") & GRAPH_SF_RUNS_HANDED);
    CHECK(!(sym_flags(&f, "b") & GRAPH_SF_RUNS_HANDED));
    graph__file_free(&f);
}

/* An error made with literal text is a candidate site in both languages,
 * marked with what becomes of it where it is made: thrown (a promise
 * rejected with it is thrown to whoever awaits it), handed to a call, or
 * kept in a name. */
TEST(what_becomes_of_an_error_made_here)
{
    static const char js[] =
        "function run(handler, result, done) {\n"                            /* 1 */
        "  if (!result) throw new Error('no result');\n"                     /* 2 */
        "  handler(result.error ?? new Error('export failed'));\n"           /* 3 */
        "  const err = new Error('kept aside');\n"                           /* 4 */
        "  done((new TypeError('bad type')));\n"                             /* 5 */
        "  return new Promise((resolve, reject) => {\n"                      /* 6 */
        "    setTimeout(() => reject(new Error('timed out')), 10);\n"        /* 7 */
        "    done(new Error('done with it'));\n"                             /* 8 */
        "  }).then(() => Promise.reject(new RangeError('out of range')));\n" /* 9 */
        "}\n"                                                                /* 10 */
        "function outer(reject) { reject(new Error('not a promise')); }\n";  /* 11 */
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    const uint32_t how = GRAPH_EF_THROWN | GRAPH_EF_HANDED;
    CHECK_INT(ctor_flags(&f, 2, "no result") & how, GRAPH_EF_THROWN);
    CHECK_INT(ctor_flags(&f, 3, "export failed") & how, GRAPH_EF_HANDED);
    CHECK_INT(ctor_flags(&f, 4, "kept aside") & how, 0);
    CHECK(ctor_flags(&f, 4, "kept aside") & GRAPH_EF_CTOR);
    CHECK_INT(ctor_flags(&f, 5, "bad type") & how, GRAPH_EF_HANDED);
    CHECK_INT(ctor_flags(&f, 7, "timed out") & how, GRAPH_EF_THROWN);
    CHECK_INT(ctor_flags(&f, 8, "done with it") & how, GRAPH_EF_HANDED);
    CHECK_INT(ctor_flags(&f, 9, "out of range") & how, GRAPH_EF_THROWN);
    CHECK_INT(ctor_flags(&f, 11, "not a promise") & how, GRAPH_EF_HANDED);
    graph__file_free(&f);

    static const char py[] = "def run(handler, result):\n"                             /* 1 */
                             "    if not result:\n"                                    /* 2 */
                             "        raise ValueError('no result')\n"                 /* 3 */
                             "    handler(result.error or OSError('export failed'))\n" /* 4 */
                             "    err = KeyError('kept aside')\n";                     /* 5 */
    extract_as(GRAPH_LANG_PYTHON, py, &f);
    CHECK_INT(ctor_flags(&f, 3, "no result") & how, GRAPH_EF_THROWN);
    CHECK_INT(ctor_flags(&f, 4, "export failed") & how, GRAPH_EF_HANDED);
    CHECK_INT(ctor_flags(&f, 5, "kept aside") & how, 0);
    CHECK(ctor_flags(&f, 5, "kept aside") & GRAPH_EF_CTOR);
    graph__file_free(&f);
}

/* A literal given to a method of a value only says how the method works
 * on it (a separator, an encoding, a key): the rendering holds it only by
 * chance (a list of one joins to no separator), and a second template
 * with it would split one site's events by their data. A function's call
 * or a module's is a helper working on the literal, as before. */
TEST(a_method_of_a_value_holds_no_literal)
{
    static const char js[] = "const chalk = require('chalk');\n"                   /* 1 */
                             "const debug = require('debug')('app:mail');\n"       /* 2 */
                             "function send(id, to, hash) {\n"                     /* 3 */
                             "  debug('Sending %s to <%s>', id, to.join(', '));\n" /* 4 */
                             "  debug('hash %s', hash.digest('base64'));\n"        /* 5 */
                             "  debug('%s%s', chalk.red.bold('Transmit('), id);\n" /* 6 */
                             "  debug('%s%s', this.paint('Receive('), id);\n"      /* 7 */
                             "}\n";
    static const char py[] =
        "import logging\n"                                                   /* 1 */
        "import click\n"                                                     /* 2 */
        "log = logging.getLogger(__name__)\n"                                /* 3 */
        "def fetch(resp, url):\n"                                            /* 4 */
        "    log.debug('Fetched %s as %s', url, resp.headers.get('Type'))\n" /* 5 */
        "    log.debug('%s%s', click.style('Receive(', fg='red'), url)\n"    /* 6 */
        "    log.debug('%s%s', self.paint('Receive('), url)\n"               /* 7 */
        "    log.debug('%s%s', paint('Receive('), url)\n";                   /* 8 */
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    check_line(&f, 4, 1, "Sending %s to <%s>", NULL);
    check_line(&f, 5, 1, "hash %s", NULL);
    check_line(&f, 6, 2, "%s%s", "%sTransmit(%s%s");
    check_line(&f, 7, 1, "%s%s", NULL);
    graph__file_free(&f);
    extract_as(GRAPH_LANG_PYTHON, py, &f);
    check_line(&f, 5, 1, "Fetched %s as %s", NULL);
    check_line(&f, 6, 2, "%s%s", "%sReceive(%s%s");
    check_line(&f, 7, 1, "%s%s", NULL);
    check_line(&f, 8, 2, "%s%s", "%sReceive(%s%s");
    graph__file_free(&f);
}

/* A local that only ever holds literals (a `let` a switch binds) fills
 * the hole it gives, in a template literal as in a util.format call: two
 * functions that log one template are then told apart by the literals
 * each picks. A local bound to anything else, or written other than by
 * `=`, keeps the hole. */
TEST(a_local_holding_only_literals_fills_its_hole)
{
    static const char js[] = "const debug = require('debug')('app:kex');\n" /* 1 */
                             "function start(group) {\n"                    /* 2 */
                             "  let type;\n"                                /* 3 */
                             "  switch (group) {\n"                         /* 4 */
                             "    case 'dh': type = 'KEXDH_INIT'; break;\n" /* 5 */
                             "    default: type = 'KEXECDH_INIT';\n"        /* 6 */
                             "  }\n"                                        /* 7 */
                             "  debug(`Outbound: Sending ${type}`);\n"      /* 8 */
                             "  var side = group ? 'client' : 'server';\n"  /* 9 */
                             "  debug('%s: %s started', side, type);\n"     /* 10 */
                             "  let step = 'one';\n"                        /* 11 */
                             "  step += '!';\n"                             /* 12 */
                             "  debug(`step ${step}`);\n"                   /* 13 */
                             "  let peer = 'none';\n"                       /* 14 */
                             "  peer = group.peer;\n"                       /* 15 */
                             "  debug(`peer ${peer}`);\n"                   /* 16 */
                             "  let kind = 'a';\n"                          /* 17 */
                             "  [kind] = group.kinds;\n"                    /* 18 */
                             "  debug(`kind ${kind}`);\n"                   /* 19 */
                             "  debug(`from ${outer}`);\n"                  /* 20 */
                             "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    check_line(&f, 8, 2, "Outbound: Sending KEXDH_INIT", "Outbound: Sending KEXECDH_INIT");
    const char *t[8];
    CHECK_INT(log_templates(&f, 10, t, 8), 4);
    CHECK_STR(t[0], "client: KEXDH_INIT started");
    CHECK_STR(t[3], "server: KEXECDH_INIT started");
    check_line(&f, 13, 1, "step %s", NULL);
    check_line(&f, 16, 1, "peer %s", NULL);
    check_line(&f, 19, 1, "kind %s", NULL);
    check_line(&f, 20, 1, "from %s", NULL);
    graph__file_free(&f);
}

/* ---- wrappers that format the message (pkg/fmt_wrappers.py) ---- */

TEST(wrapper_formats_the_message)
{
    graph *g = open_wrappers();
    const char *run = "pkg.fmt_callers.run";
    /* An f-string, a %-format and a .format with the parameter as one
     * field: the text around it goes around the caller's message. */
    graph_emit e = unit_emit_at(g, run, 7);
    CHECK_WRAPPED(e, "[%s] opened %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG, "pkg.fmt");
    CHECK_STR(e.method, "_log");
    CHECK_INT(e.nargs, 1);
    e = unit_emit_at(g, run, 8);
    CHECK_WRAPPED(e, "[%s] disk low: %d%%", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_WARNING, "pkg.fmt");
    e = unit_emit_at(g, run, 9);
    CHECK_WRAPPED(e, "%s: ready", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    /* Built in a local first: a + chain, an f-string. */
    e = unit_emit_at(g, run, 10);
    CHECK_WRAPPED(e, "[x] started %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    e = unit_emit_at(g, run, 11);
    CHECK_WRAPPED(e, "<%s> lost %s (error)", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_ERROR, "pkg.fmt");
    /* .format by keyword and by number; "%s" % msg adds nothing. */
    e = unit_emit_at(g, run, 12);
    CHECK_WRAPPED(e, "%s says hello", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    e = unit_emit_at(g, run, 13);
    CHECK_WRAPPED(e, "%s | ping", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    e = unit_emit_at(g, run, 14);
    CHECK_WRAPPED(e, "solo %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO, "pkg.fmt");
    /* The wrappers' own sites would match anything they log. */
    e = unit_emit_at(g, "pkg.fmt_wrappers.Node._log", 14);
    CHECK_STR(e.tmpl, "");
    CHECK_INT(e.style, GRAPH_STYLE_DYNAMIC);
    e = unit_emit_at(g, "pkg.fmt_wrappers.Node.note", 24);
    CHECK_STR(e.tmpl, "");
    graph_close(g);
}

TEST(wrapper_formats_not_a_message)
{
    graph *g = open_wrappers();
    graph_emit e[8];
    /* {msg!r}, {msg:>10}, %d, a field used twice, a template held
     * elsewhere, a local with two bindings, %r, and a parameter not named
     * like a message: it is not the message. The callers have no site
     * there, and each function keeps its own. */
    for (uint32_t line = 16; line <= 24; line++)
        if (line != 22)
            CHECK_INT(emits_at(g, "pkg.fmt_callers.run", line, e, 8), 0);
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.quoted", 45).tmpl, "got %s");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.spec", 48).tmpl, "got %s");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.counted", 51).tmpl, "%d items");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.twice", 54).tmpl, "%s / %s");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.repr_percent", 69).tmpl, "got %r");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.connecting", 72).tmpl, "connecting to %s");
    CHECK_INT(emits_at(g, "pkg.fmt_wrappers.Node.from_elsewhere", 63, e, 8), 2);
    with_template(e, 2, "seen %s");
    graph_close(g);
}

/* A parameter the function keeps (self.state = new) is a value it logs
 * in text of its own, whatever passes it: the function's site keeps its
 * template and its callers get none; one only logged is the message. */
TEST(wrapper_not_a_parameter_kept)
{
    graph *g = open_wrappers();
    graph_emit e[8];
    CHECK_STR(unit_emit_at(g, "pkg.state.Link._move", 15).tmpl, "[link] state %s -> %s");
    CHECK_INT(emits_at(g, "pkg.state.Link.start", 22, e, 8), 0);
    CHECK_WRAPPED(unit_emit_at(g, "pkg.state.Link.start", 23), "[link] note: started",
                  GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG, "pkg.state");
    graph_close(g);
}

/* Beside the message, one more parameter in the wrapper's text: the
 * callers' text for it goes there. */
TEST(wrapper_formats_a_second_parameter)
{
    graph *g = open_wrappers();
    const char *run = "pkg.fmt_callers.run", *rec = "pkg.fmt_callers.record";
    /* The one named like a message is the message, the other the slot. */
    graph_emit e = unit_emit_at(g, run, 15);
    CHECK_WRAPPED(e, "first and second", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    e = unit_emit_at(g, run, 22);
    CHECK_WRAPPED(e, "p1: p2", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "pkg.fmt");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Node.two", 42).tmpl, "");
    /* " ".join((clock, context, msg)), reached by calling the instance
     * (its __call__ passes *args on): an empty message is a site when the
     * context word is text. */
    e = unit_emit_at(g, rec, 28);
    CHECK_WRAPPED(e, "%s HTTP ", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_CUSTOM, "pkg.fmt");
    e = unit_emit_at(g, rec, 29);
    CHECK_WRAPPED(e, "%s ENGINE engine started", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_CUSTOM, "pkg.fmt");
    /* A wrapper of it that passes its own parameter into the slot. */
    e = unit_emit_at(g, rec, 30);
    CHECK_WRAPPED(e, "%s DISK quota reached", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_CUSTOM, "pkg.fmt");
    /* Left at its default, or not text: a hole. */
    CHECK_STR(unit_emit_at(g, rec, 31).tmpl, "%s %s no context");
    CHECK_STR(unit_emit_at(g, rec, 33).tmpl, "%s %s from %s");
    /* Only holes and blanks: no site. */
    graph_emit es[8];
    CHECK_INT(emits_at(g, rec, 32, es, 8), 0);
    /* Three parameters, one named like a message: the message, the
     * others values the wrapper's text shows, holes to its callers. */
    CHECK_STR(unit_emit_at(g, rec, 34).tmpl, "%s %s ready");
    CHECK_STR(unit_emit_at(g, "pkg.fmt_wrappers.Journal.pair", 94).tmpl, "");
    graph_close(g);
}

/* A message a function of ours formats and returns, passed to a wrapper
 * by its caller (pkg/returned.py): the caller's site has its format. */
TEST(wrapper_logs_what_a_function_returns)
{
    graph *g = open_wrappers();
    const char *f = "pkg.returned.respond";
    /* Through a local, with the format in an UPPER_CASE local; called
     * directly, with a local .format(); str() of an object the class
     * made: its __str__. */
    graph_emit e = unit_emit_at(g, f, 35);
    CHECK_WRAPPED(e, "[auth] Digest realm=\"%s\", nonce=\"%s\"", GRAPH_STYLE_CONCAT,
                  GRAPH_LEVEL_DEBUG, "pkg.returned");
    e = unit_emit_at(g, f, 36);
    CHECK_WRAPPED(e, "[auth] Basic realm=%s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG,
                  "pkg.returned");
    e = unit_emit_at(g, f, 39);
    CHECK_WRAPPED(e, "[auth] authorization : %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG,
                  "pkg.returned");
    /* What the function returns is no format: no site. */
    graph_emit es[8];
    CHECK_INT(emits_at(g, f, 37, es, 8), 0);
    /* Logged directly. */
    e = unit_emit_at(g, f, 40);
    CHECK_STR(e.tmpl, "Basic realm=%s");
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    /* A function handed its caller's message decorates it: no site with
     * its format, which would match every message passed. */
    uint32_t n = emits_at(g, "pkg.returned.debug", 48, es, 8);
    CHECK(n >= 1);
    for (uint32_t i = 0; i < n; i++)
        CHECK(strcmp(es[i].tmpl, "| %s: %s") != 0);
    graph_close(g);
}

TEST(wrapper_formats_match)
{
    wmatch x = wmatch_open();
    graph_emit em;
    CHECK_INT(wmatch_msg(&x, "[a] opened 5", "pkg.fmt", "DEBUG", &em), 1);
    CHECK_INT(em.symbol, unit_sym(x.g, "pkg.fmt_callers.run"));
    CHECK_INT(em.line, 7);
    wmatch_close(&x);
}

/* ---- the template builder's truncation mark ---- */

static void extract_str(const char *src, gx_file *f)
{
    extract_as(GRAPH_LANG_PYTHON, src, f);
}

static const gx_emit *emit_on_line(const gx_file *f, uint32_t line)
{
    for (size_t i = 0; i < f->emits.n; i++)
        if (f->emits.v[i].line == line)
            return &f->emits.v[i];
    unit_fail(__FILE__, __LINE__, "no emit site on line %u", line);
}

/* The emit site on line, or NULL when there is none. */
static const gx_emit *emit_or_null(const gx_file *f, uint32_t line)
{
    for (size_t i = 0; i < f->emits.n; i++)
        if (f->emits.v[i].line == line)
            return &f->emits.v[i];
    return NULL;
}

/* ((a+a)+(a+a))...: 2^depth names, every one a hole. */
static void balanced_sum(core_buf *b, int depth)
{
    if (depth == 0) {
        core_buf_putc(b, 'a');
        return;
    }
    core_buf_putc(b, '(');
    balanced_sum(b, depth - 1);
    core_buf_putc(b, '+');
    balanced_sum(b, depth - 1);
    core_buf_putc(b, ')');
}

TEST(truncated_mark_is_not_left_behind)
{
    /* A constant built from names only is dropped; when its holes ran
     * past GRAPH_TEMPLATE_MAX, the mark used to stay set, so the next
     * site came out empty and flagged as cut. */
    core_buf src = {0};
    core_buf_puts(&src, "import logging\nlogger = logging.getLogger(__name__)\nX = ");
    balanced_sum(&src, 12);
    core_buf_puts(&src, "\nlogger.info(\"after %s\", 1)\n");
    gx_file f;
    extract_str(src.data, &f);
    const gx_emit *e = emit_on_line(&f, 4);
    CHECK_STR(e->tmpl, "after %s");
    CHECK_INT(e->flags & GRAPH_EF_TRUNCATED, 0);
    graph__file_free(&f);
    core_buf_free(&src);
}

TEST(long_brace_constant_is_kept_truncated)
{
    /* A constant longer than GRAPH_TEMPLATE_MAX with {fields} and no
     * %-directive is built twice (as a %-format, then as a str.format
     * template); the first build's mark used to make the second empty,
     * and the constant was lost. */
    core_buf src = {0};
    core_buf_puts(&src, "MSG = \"order {} ");
    for (int i = 0; i < 5000; i++)
        core_buf_putc(&src, 'x');
    core_buf_puts(&src, "\"\nSHORT = \"ok {}\"\n");
    gx_file f;
    extract_str(src.data, &f);
    const gx_emit *e = emit_on_line(&f, 1);
    CHECK_INT(e->kind, GRAPH_EMIT_CONST);
    CHECK_STR(e->name, "MSG");
    CHECK_INT(e->style, GRAPH_STYLE_BRACE);
    CHECK(e->flags & GRAPH_EF_TRUNCATED);
    CHECK(e->tmpl && strncmp(e->tmpl, "order %s xxx", 12) == 0);
    CHECK_INT(strlen(e->tmpl), GRAPH_TEMPLATE_MAX);
    e = emit_on_line(&f, 2);
    CHECK_STR(e->tmpl, "ok %s");
    CHECK_INT(e->flags & GRAPH_EF_TRUNCATED, 0);
    graph__file_free(&f);
    core_buf_free(&src);
}

/* A constant in the access-log syntax ("%a %t \"%r\" %{Referer}i", filled
 * by a formatter of its own) is a template of holes, in Python and in
 * JavaScript; a date format, which names no field in braces, keeps its
 * letters, and a literal '%' stays one. */
TEST(access_log_format_constant)
{
    static const char py[] = "LOG_FORMAT = '%a %t \"%r\" %s %b \"%{Referer}i\" %{X-Id}o 50%%'\n"
                             "DATE = '%Y-%m-%d %H:%M'\n";
    gx_file f;
    extract_str(py, &f);
    const gx_emit *e = emit_on_line(&f, 1);
    CHECK_INT(e->kind, GRAPH_EMIT_CONST);
    CHECK_STR(e->tmpl, "%a %s \"%r\" %s %s \"%s\" %s 50%%");
    CHECK_INT(e->style, GRAPH_STYLE_PERCENT);
    CHECK_STR(emit_on_line(&f, 2)->tmpl, "%%Y-%%m-%d %%H:%%M");
    graph__file_free(&f);
    static const char js[] = "const FORMAT = '%h %l %u %t \"%r\" %>s %b \"%{User-agent}i\"';\n"
                             "const HALF = '%{name} %b';\n";
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    e = emit_on_line(&f, 1);
    CHECK_INT(e->kind, GRAPH_EMIT_CONST);
    CHECK_STR(e->tmpl, "%s %s %u %s \"%r\" %s %s \"%s\"");
    /* a name in braces without its letter is no directive */
    CHECK_STR(emit_on_line(&f, 2)->tmpl, "%%{name} %%b");
    graph__file_free(&f);
}

/* A debug logger kept in an attribute, a caller's own or one made
 * (`this.log = opts.log || createDebug('ns')`): its calls log at debug
 * with the namespace as logger, as a name bound to one does. */
TEST(debug_logger_in_an_attribute)
{
    static const char js[] =
        "const createDebug = require('debug');\n"
        "class Client {\n"
        "  constructor(opts) { this.log = opts.log || createDebug('shop:client'); }\n"
        "  connect(host) {\n"
        "    this.log('connect :: host %s', host);\n"
        "  }\n"
        "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, js, &f);
    const gx_emit *e = emit_on_line(&f, 5);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK_INT(e->level, GRAPH_LEVEL_DEBUG);
    CHECK_STR(e->tmpl, "connect :: host %s");
    CHECK_STR(e->logger, "shop:client");
    graph__file_free(&f);
}

/* log.log(*adapter(entry)): the level and message come unpacked from a
 * value made at run time; the function logs a message of its own making
 * (where a format kept in a constant is logged). */
TEST(unpacked_logging_call_is_dynamic)
{
    static const char src[] = "import logging\n"
                              "log = logging.getLogger(__name__)\n"
                              "def engine(entry):\n"
                              "    log.log(*adapter(entry))\n";
    gx_file f;
    extract_str(src, &f);
    const gx_emit *e = emit_on_line(&f, 4);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK_INT(e->style, GRAPH_STYLE_DYNAMIC);
    CHECK(e->sym >= 0);
    CHECK(f.syms.v[e->sym].flags & GRAPH_SF_LOGS_DYNAMIC);
    graph__file_free(&f);
}

/* functools.partial(log.info, "fmt", ...) bound to a name or an
 * attribute: each call of it logs that message at the method's level
 * (log.log: the bound level), its arguments after the bound ones. */
TEST(partial_with_a_bound_message_logs_where_called)
{
    static const char src[] = "import logging\n"                                         /* 1 */
                              "from functools import partial\n"                          /* 2 */
                              "log = logging.getLogger(__name__)\n"                      /* 3 */
                              "jammed = partial(log.error, 'jammed on page %d of %s')\n" /* 4 */
                              "class P:\n"                                               /* 5 */
                              "    def __init__(self, name):\n"                          /* 6 */
                              "        self.low = partial(log.log, logging.WARNING,\n"   /* 7 */
                              "                           '[%s] low %s: %d left', name)\n"
                              "    def feed(self, page, job, left):\n" /* 9 */
                              "        jammed(page, job)\n"            /* 10 */
                              "        self.low('paper', left)\n";     /* 11 */
    gx_file f;
    extract_str(src, &f);
    const gx_emit *e = emit_on_line(&f, 10);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK_STR(e->tmpl, "jammed on page %d of %s");
    CHECK_INT(e->level, GRAPH_LEVEL_ERROR);
    CHECK_INT(e->nargs, 2);
    e = emit_on_line(&f, 11);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK_STR(e->tmpl, "[%s] low %s: %d left");
    CHECK_INT(e->level, GRAPH_LEVEL_WARNING);
    CHECK_INT(e->nargs, 3);
    graph__file_free(&f);
}

/* Foo.MESSAGE = '...' at the top of a module (a compiled static field)
 * is a constant; the same inside a function is not. */
TEST(static_field_assigned_is_a_constant)
{
    static const char src[] = "class Formatter {}\n"
                              "Formatter.DROPPED = 'dropped item %s because %s';\n"
                              "function f() { Formatter.other = 'set at run time %s'; }\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const gx_emit *e = emit_on_line(&f, 2);
    CHECK_INT(e->kind, GRAPH_EMIT_CONST);
    CHECK_STR(e->name, "Formatter.DROPPED");
    CHECK_STR(e->tmpl, "dropped item %s because %s");
    for (size_t i = 0; i < f.emits.n; i++)
        CHECK(f.emits.v[i].line != 3);
    graph__file_free(&f);
}

/* JavaScript: a message built in a local before the call is followed, as
 * in Python: each value the function binds the name to before the call
 * (a ternary's two arms) is a site on the call's line; a parameter is a
 * wrapper's, not followed; a value bound after the call is not one. */
TEST(local_message_javascript)
{
    static const char src[] =
        "const debug = require('debug')('app:a');\n"                               /* 1 */
        "function pick(n, fmt) {\n"                                                /* 2 */
        "  let text = n > 3 ? 'giving up after ' + n + ' tries' : `retry ${n}`;\n" /* 3 */
        "  debug(text);\n"                                                         /* 4 */
        "  debug(fmt);\n"                                                          /* 5 */
        "  text = 'set after the call ' + n;\n"                                    /* 6 */
        "  const line = 'sent ' + n + ' bytes';\n"                                 /* 7 */
        "  this.out.write(line);\n"                                                /* 8 */
        "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const char *on4[2] = {NULL, NULL};
    uint32_t n4 = 0, n5 = 0, n8 = 0;
    for (size_t i = 0; i < f.emits.n; i++) {
        const gx_emit *e = &f.emits.v[i];
        if (e->line == 4 && n4 < 2)
            on4[n4++] = e->tmpl;
        else if (e->line == 4)
            n4++;
        n5 += e->line == 5 && e->tmpl && e->tmpl[0];
        if (e->line == 8) {
            n8++;
            CHECK_INT(e->kind, GRAPH_EMIT_CALL);
            CHECK_STR(e->tmpl, "sent %s bytes");
        }
    }
    CHECK_INT(n4, 2);
    /* Nearest first: the alternative arm is the later value. */
    CHECK_STR(on4[0], "retry %s");
    CHECK_STR(on4[1], "giving up after %s tries");
    CHECK_INT(n5, 0);
    CHECK_INT(n8, 1);
    graph__file_free(&f);
}

/* A template literal that reads a const local holding a text reads that
 * text in its place, also from a function nested in the one that binds
 * it (a closure); a local that may hold several values, or that another
 * binding changes, stays a hole. */
TEST(const_local_text_inside_a_template_literal)
{
    static const char src[] = "function run(log, id, sql, more) {\n"                   /* 1 */
                              "  let tail = '';\n"                                     /* 2 */
                              "  if (more) tail = `; ${more}`;\n"                      /* 3 */
                              "  const fmt = `(${id || 'default'}): ${sql}${tail}`;\n" /* 4 */
                              "  const verb = 'Executing';\n"                          /* 5 */
                              "  log(`${verb} ${fmt}`);\n"                             /* 6 */
                              "  return () => {\n"                                     /* 7 */
                              "    log(`Executed ${fmt}`);\n"                          /* 8 */
                              "    log(`${verb} for ${id}`, 'x');\n"                   /* 9 */
                              "  };\n"                                                 /* 10 */
                              "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const gx_emit *e = emit_on_line(&f, 6);
    CHECK_STR(e->tmpl, "Executing (%s): %s%s");
    e = emit_on_line(&f, 8);
    CHECK_STR(e->tmpl, "Executed (%s): %s%s");
    /* The holes left are the substitutions that stay (not the text's). */
    e = emit_on_line(&f, 9);
    CHECK_STR(e->tmpl, "Executing for %s x");
    graph__file_free(&f);
}

/* A call no listed shape knows, handed a format a local of the function
 * holds and filled there (`msg.format(x)`, `fmt % x`), or a sentence in a
 * local: a candidate site of that text, as the literal in its place
 * would be. A bare word in a local is no message. */
TEST(a_format_in_a_local_makes_a_candidate)
{
    static const char py[] = "from .util import debug\n"                    /* 1 */
                             "def load(path, n):\n"                         /* 2 */
                             "    err = \"Didn't see any {}, skipping.\"\n" /* 3 */
                             "    debug(err.format(path))\n"                /* 4 */
                             "    fmt = \"loaded %d files\"\n"              /* 5 */
                             "    debug(fmt % n)\n"                         /* 6 */
                             "    msg = \"Saw --help, printing help\"\n"    /* 7 */
                             "    debug(msg)\n"                             /* 8 */
                             "    key = \"help\"\n"                         /* 9 */
                             "    lookup(key)\n";                           /* 10 */
    gx_file f;
    extract_as(GRAPH_LANG_PYTHON, py, &f);
    const gx_emit *e = emit_on_line(&f, 4);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK_STR(e->tmpl, "Didn't see any %s, skipping.");
    e = emit_on_line(&f, 6);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK_STR(e->tmpl, "loaded %d files");
    e = emit_on_line(&f, 8);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK_STR(e->tmpl, "Saw --help, printing help");
    CHECK(emit_or_null(&f, 10) == NULL);
    graph__file_free(&f);
}

/* A logger's own timers (`logger.time(label)` ... `logger.timeEnd(label)`)
 * print the label and the time, as console's do: the label is the
 * message, under the logger's name, the one a `&&` guard hands over. */
TEST(a_logger_s_timer_prints_its_label)
{
    static const char src[] =
        "function seal(compilation, compiler) {\n"                                 /* 1 */
        "  const logger = compilation && compilation.getLogger('webpack.Seal');\n" /* 2 */
        "  logger.time('optimize chunks');\n"                                      /* 3 */
        "  logger.timeEnd('optimize chunks');\n"                                   /* 4 */
        "  logger.timeAggregateEnd('hash modules');\n"                             /* 5 */
        "  compiler.timeEnd('not a logger');\n"                                    /* 6 */
        "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const gx_emit *e = emit_or_null(&f, 3);
    CHECK(e == NULL || e->kind != GRAPH_EMIT_LOG);
    e = emit_on_line(&f, 4);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK_STR(e->tmpl, "optimize chunks: %s");
    CHECK_STR(e->logger, "webpack.Seal");
    e = emit_on_line(&f, 5);
    CHECK_STR(e->tmpl, "hash modules: %s");
    e = emit_or_null(&f, 6);
    CHECK(e == NULL || e->kind != GRAPH_EMIT_LOG);
    graph__file_free(&f);
}

/* An object whose `message` reads as a sentence, handed to a call no
 * listed shape knows (a logger's profiler): a candidate site of that
 * text. A `message` that is a bare word or no text is none. */
TEST(an_object_with_a_message_is_a_candidate)
{
    static const char src[] =
        "function run(log, remote, n) {\n"                                /* 1 */
        "  const timer = log.startTimer();\n"                             /* 2 */
        "  timer.done({ message: `sync with ${remote} finished`, n });\n" /* 3 */
        "  reply({ status: 200, message: 'ok' });\n"                      /* 4 */
        "  reply({ message: remote });\n"                                 /* 5 */
        "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const gx_emit *e = emit_on_line(&f, 3);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK_STR(e->tmpl, "sync with %s finished");
    for (size_t i = 0; i < f.emits.n; i++)
        CHECK_INT(f.emits.v[i].line, 3);
    graph__file_free(&f);
}

/* A statement built in a local and handed on beside a bare word, a name
 * (`this.execute(sql, params, 'run')`): the local's text is the message,
 * alone; the pieces appended before a branch hands it through a call of
 * another (`sql = transform(sql)`) still count. */
TEST(a_local_statement_beside_a_name_is_the_message)
{
    static const char src[] = "function insert(table, fields, transform) {\n" /* 1 */
                              "  let sql = `insert into ${table} `;\n"        /* 2 */
                              "  sql += '(' + fields.join(', ') + ')';\n"     /* 3 */
                              "  if (transform) {\n"                          /* 4 */
                              "    sql = transform(sql);\n"                   /* 5 */
                              "  }\n"                                         /* 6 */
                              "  return this.execute(sql, [], 'run');\n"      /* 7 */
                              "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    bool seen = false;
    for (size_t i = 0; i < f.emits.n; i++) {
        const gx_emit *e = &f.emits.v[i];
        if (e->line != 7)
            continue;
        CHECK_INT(e->kind, GRAPH_EMIT_CALL);
        CHECK_STR(e->tmpl, "insert into %s (%s)");
        seen = true;
    }
    CHECK(seen);
    graph__file_free(&f);
}

/* A function made by a call of another one from a name alone (a debug
 * namespace behind a factory of the package's own) logs, when it does,
 * under that name: its candidate calls carry it as their logger. A
 * name with blanks is text, not a namespace. */
TEST(a_function_made_from_a_name_logs_under_it)
{
    static const char src[] = "const logger = require('./logger');\n"             /* 1 */
                              "const debug = logger.debugContext('sql:mysql');\n" /* 2 */
                              "const say = translate('hello there');\n"           /* 3 */
                              "function run(params) {\n"                          /* 4 */
                              "  debug('parameters(%j)', params);\n"              /* 5 */
                              "  say('parameters(%j)', params);\n"                /* 6 */
                              "}\n"                                               /* 7 */
                              "function proxy(fn, args) {\n"                      /* 8 */
                              "  const logger = getGlobal('diag');\n"             /* 9 */
                              "  logger[fn](...args);\n"                          /* 10 */
                              "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    const gx_emit *e = emit_on_line(&f, 5);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK_STR(e->tmpl, "parameters(%j)");
    CHECK_STR(e->logger, "sql:mysql");
    e = emit_on_line(&f, 6);
    CHECK_INT(e->kind, GRAPH_EMIT_CALL);
    CHECK(e->logger == NULL || e->logger[0] == '\0');
    /* A logger object got that way is not named by it: the name is what
     * a global registry is keyed by, no logger's. */
    e = emit_on_line(&f, 10);
    CHECK_INT(e->kind, GRAPH_EMIT_LOG);
    CHECK(e->logger == NULL || e->logger[0] == '\0');
    graph__file_free(&f);
}

/* logger.info({ msg: '...' + x }): each text property of a record passed
 * alone is a candidate message on the call's line; with a message after
 * it (pino's (object, 'message')), the message is that one. */
TEST(object_message_javascript)
{
    static const char src[] = "const logger = require('pino')();\n"                          /* 1 */
                              "function serve(port) {\n"                                     /* 2 */
                              "  logger.info({ msg: 'listening on port ' + port, n: 1 });\n" /* 3 */
                              "  logger.info({ port, tag: 'a b' }, 'bound %s', port);\n"     /* 4 */
                              "}\n";
    gx_file f;
    extract_as(GRAPH_LANG_JAVASCRIPT, src, &f);
    uint32_t n3 = 0, n4 = 0;
    for (size_t i = 0; i < f.emits.n; i++) {
        const gx_emit *e = &f.emits.v[i];
        if (e->line == 3) {
            n3++;
            CHECK_INT(e->kind, GRAPH_EMIT_LOG);
            CHECK_STR(e->tmpl, "listening on port %s");
        } else if (e->line == 4) {
            n4++;
            CHECK_STR(e->tmpl, "bound %s");
        }
    }
    CHECK_INT(n3, 1);
    CHECK_INT(n4, 1);
    graph__file_free(&f);
}

/* ---- bounds of the local-message lookup ---- */

TEST(local_message_bounds)
{
    /* Twelve arms, each binding msg: at most LOCAL_MAX_ALTS (8) sites,
     * the nearest bindings first. */
    core_buf src = {0};
    core_buf_puts(&src, "import logging\nlogger = logging.getLogger(__name__)\ndef f(k):\n");
    for (int i = 0; i < 12; i++)
        core_buf_printf(&src, "    %s k == %d:\n        msg = \"arm %d of %%s\" %% k\n",
                        i ? "elif" : "if", i, i);
    core_buf_puts(&src, "    logger.info(msg)\n");
    /* A message with no text of its own gives nothing (it would match
     * anything): the site keeps the name. */
    core_buf_puts(&src, "def g(x):\n    msg = \"\"\n    msg += str(x)\n    logger.info(msg)\n");
    gx_file f;
    extract_str(src.data, &f);
    uint32_t n = 0;
    bool last = false;
    for (size_t i = 0; i < f.emits.n; i++) {
        const gx_emit *e = &f.emits.v[i];
        if (e->line != 28)
            continue;
        n++;
        last |= e->tmpl && strcmp(e->tmpl, "arm 11 of %s") == 0;
        CHECK(!e->tmpl || strcmp(e->tmpl, "arm 0 of %s") != 0);
    }
    CHECK_INT(n, 8);
    CHECK(last);
    const gx_emit *e = emit_on_line(&f, 32);
    CHECK(!e->tmpl);
    CHECK_INT(e->style, GRAPH_STYLE_REF);
    CHECK_STR(e->ref, "msg");
    graph__file_free(&f);
    core_buf_free(&src);
}

/* self.logger bound in a base class of another file: the subclass's
 * sites log through the same logger as the base's (its twin logs the
 * same text, and the log's logger name must not tell them apart). */
static const char base_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger('pkg.client')\n"
                              "\n"
                              "class Client:\n"
                              "    def __init__(self):\n"
                              "        self.logger = logger\n"
                              "\n"
                              "    def send(self, p):\n"
                              "        self.logger.info('Sending packet %s', p)\n";
static const char sub_py[] = "from . import base\n"
                             "\n"
                             "class AsyncClient(base.Client):\n"
                             "    async def send(self, p):\n"
                             "        self.logger.info('Sending packet %s', p)\n"
                             "\n"
                             "class Other:\n"
                             "    def send(self, p):\n"
                             "        self.logger.info('Sending packet %s', p)\n";

TEST(logger_of_an_attribute_bound_in_a_base_class)
{
    unit_write_str("inherit/pkg/__init__.py", "");
    unit_write_str("inherit/pkg/base.py", base_py);
    unit_write_str("inherit/pkg/sub.py", sub_py);
    graph_index_opts o = {0};
    o.threads = 1;
    graph *g =
        unit_index_and_open(unit_tmp_path("inherit"), unit_tmp_path("inherit.graph"), &o, NULL);
    graph_emit e = unit_emit_at(g, "pkg.base.Client.send", 10);
    CHECK_STR(e.logger, "pkg.client");
    e = unit_emit_at(g, "pkg.sub.AsyncClient.send", 5);
    CHECK_STR(e.logger, "pkg.client");
    /* A class that is no subclass knows no logger of its own. */
    e = unit_emit_at(g, "pkg.sub.Other.send", 9);
    CHECK_STR(e.logger, "");
    graph_close(g);
}
