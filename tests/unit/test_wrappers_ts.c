/*
 * Logging wrappers in TypeScript and JavaScript: the emit sites made at the
 * calls of functions that log a message their caller passes, on the small
 * repository in tests/fixtures/extract/wrappers_ts (indexed, so that
 * wrappers are found across files and through imports), and that the
 * messages the fixture would print match the callers' sites.
 */
#include "map.h"
#include "unit_graph.h"

static graph *open_fixture(void)
{
    graph_index_opts o = {0};
    return unit_index_and_open(unit_fixture("extract/wrappers_ts"), unit_tmp_path("wts.graph"), &o,
                               NULL);
}

/* The sites of a symbol that its code's shapes name (not the candidate
 * calls, whose callees the log may or may not show to log). */
static uint32_t emit_count(const graph *g, const char *qualname)
{
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, qualname), &first), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        k += e.kind != GRAPH_EMIT_CALL;
    }
    return k;
}

/* A wrapper's own logging call once calls were found: a site without a
 * template, which matches nothing. */
#define CHECK_GENERIC(e)                                                                           \
    do {                                                                                           \
        CHECK_STR((e).tmpl, "");                                                                   \
        CHECK_INT((e).flags &GRAPH_EF_WRAPPER, 0);                                                 \
    } while (0)

TEST(ts_wrapper_method_through_this)
{
    graph *g = open_fixture();
    /* this.log(level, msg) -> this.logger.log(level, `[chan ${this.id}]
     * ${msg}`): the level from a string and from an enum member, the text
     * around the message from the wrapper's template literal, the logger
     * from the class field. */
    const char *open = "channel.Channel.open";
    graph_emit e = unit_emit_at(g, open, 19);
    CHECK_WRAPPED(e, "[chan %s] opening %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_DEBUG, "chan");
    CHECK_STR(e.receiver, "@self");
    CHECK_STR(e.method, "log");
    e = unit_emit_at(g, open, 20);
    CHECK_WRAPPED(e, "[chan %s] opened %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "chan");
    CHECK_INT(e.nargs, 1);
    CHECK_INT(emit_count(g, open), 2);
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, open), &s);
    CHECK(s.flags & GRAPH_SF_LOGS);
    /* The wrapper's own call keeps no template that would match every
     * message it logs ("[chan %s] %s"). */
    e = unit_emit_at(g, "channel.Channel.log", 15);
    CHECK_GENERIC(e);
    CHECK_INT(e.style, GRAPH_STYLE_DYNAMIC);
    CHECK_INT(e.level, GRAPH_LEVEL_CUSTOM);
    graph_get_symbol(g, unit_sym(g, "channel.Channel.log"), &s);
    CHECK(s.flags & GRAPH_SF_LOGS_DYNAMIC);
    graph_close(g);
}

TEST(ts_wrapper_functions_across_files)
{
    graph *g = open_fixture();
    /* Imported from ./log: an arrow function with a prefix, and trace ->
     * logInfo (a wrapper of a wrapper), whose logger is pino's "app". */
    const char *close = "channel.Channel.close";
    graph_emit e = unit_emit_at(g, close, 24);
    CHECK_WRAPPED(e, "[app] closing %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_WARNING, "");
    CHECK_STR(e.receiver, "");
    CHECK_STR(e.method, "warn");
    e = unit_emit_at(g, close, 25);
    CHECK_WRAPPED(e, "closed", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_INFO, "app");
    CHECK_STR(e.method, "trace");
    /* shout(msg) takes a message but does not log it: its call is only a
     * candidate. */
    CHECK_INT(emit_count(g, close), 2);
    e = unit_emit_at(g, close, 26);
    CHECK_INT(e.kind, GRAPH_EMIT_CALL);
    CHECK_STR(e.method, "shout");
    /* The middle one passes its parameter on: no site of its own. */
    CHECK_INT(emit_count(g, "log.trace"), 0);
    CHECK_INT(emit_count(g, "log.shout"), 0);
    /* console.warn("[app] " + m) once calls were found. */
    CHECK_GENERIC(unit_emit_at(g, "log.warn", 13));
    /* A wrapper nobody calls keeps its template. */
    e = unit_emit_at(g, "log.lonely", 22);
    CHECK_STR(e.tmpl, "[lonely] %s");
    CHECK_INT(e.flags & GRAPH_EF_WRAPPER, 0);
    graph_close(g);
}

TEST(ts_wrapper_of_ours_named_like_a_logger)
{
    graph *g = open_fixture();
    /* `logging.trace(level, tag, text)` on a module of ours: its shape
     * reads the call (the tag and the text, around " | "), not the
     * method's name (a message first), and one site is left. */
    const char *dial = "dialer.Dialer.dial";
    graph_emit e = unit_emit_at(g, dial, 5);
    CHECK_WRAPPED(e, "dialer | dialing %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_ERROR, "");
    e = unit_emit_at(g, dial, 6);
    CHECK_WRAPPED(e, "[info] dialed %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    /* A method that hands its parameter to one of them is a wrapper with
     * the same text around it, once. */
    e = unit_emit_at(g, dial, 7);
    CHECK_WRAPPED(e, "[info] noted %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    CHECK_INT(emit_count(g, dial), 3);
    /* A constant passed for the tag is its text. */
    e = unit_emit_at(g, "dialer.Dialer.redial", 15);
    CHECK_WRAPPED(e, "redialer | redialing %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_ERROR, "");
    graph_close(g);
}

TEST(ts_wrapper_templates_and_constants)
{
    graph *g = open_fixture();
    /* A template literal with the caller's own parameter in it: a site
     * here (signIn itself is a wrapper nobody calls with a string). */
    graph_emit e = unit_emit_at(g, "app.signIn", 6);
    CHECK_WRAPPED(e, "user %s signed in", GRAPH_STYLE_TEMPLATE, GRAPH_LEVEL_INFO, "app");
    /* A message held in a constant. */
    e = unit_emit_at(g, "app.signOut", 10);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK(e.flags & GRAPH_EF_WRAPPER);
    CHECK_INT(e.style, GRAPH_STYLE_REF);
    CHECK_STR(e.ref, "SIGNED_OUT");
    CHECK(e.ref_const != GRAPH_NONE);
    graph_emit c;
    graph_get_emit(g, e.ref_const, &c);
    CHECK_STR(c.tmpl, "user %s signed out");
    CHECK_INT(e.nargs, 1);
    /* TSX. */
    e = unit_emit_at(g, "ui.Button", 4);
    CHECK_WRAPPED(e, "render button %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO, "app");
    graph_close(g);
}

TEST(ts_wrapper_child_logger_and_bound_method)
{
    graph *g = open_fixture();
    /* this.logger.child({...}).info(msg, ...args), and an arrow-function
     * field passing `[say] ${text}` on to it. */
    const char *start = "session.Session.start";
    graph_emit e = unit_emit_at(g, start, 13);
    CHECK_WRAPPED(e, "session started for %s", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_INFO, "session");
    e = unit_emit_at(g, start, 14);
    CHECK_WRAPPED(e, "[say] hello", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "session");
    CHECK_STR(e.method, "say");
    /* say's own call only decorates what its callers pass: no site. */
    CHECK_INT(emit_count(g, "session.Session.say"), 0);
    graph_close(g);
}

TEST(js_wrappers_debug_npmlog_console)
{
    graph *g = open_fixture();
    const char *q = "db.query";
    /* debug('app:db') with util.format directives and ...args passed on. */
    graph_emit e = unit_emit_at(g, q, 19);
    CHECK_WRAPPED(e, "query %s took %dms", GRAPH_STYLE_PERCENT, GRAPH_LEVEL_DEBUG, "app:db");
    CHECK_INT(e.nargs, 2);
    /* npmlog's log.silly(title, msg): the title before the message, and
     * the message alone as a fallback (a logger that renders the title
     * apart, or not at all). */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, q), &first), at20 = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_get_emit(g, first + i, &e);
        if (e.line != 20)
            continue;
        at20++;
        bool fb = (e.flags & GRAPH_EF_FALLBACK) != 0;
        CHECK_WRAPPED(e, fb ? "connecting to %s" : "db connecting to %s", e.style,
                      GRAPH_LEVEL_TRACE, "");
        CHECK_INT(e.style, fb ? GRAPH_STYLE_TEMPLATE : GRAPH_STYLE_CONCAT);
    }
    CHECK_INT(at20, 2);
    /* console.log("[db]", ...parts): all the callers' arguments, appended
     * after the tag as util.format appends them. */
    e = unit_emit_at(g, q, 21);
    CHECK_WRAPPED(e, "[db] rows: %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    e = unit_emit_at(g, q, 22);
    CHECK_WRAPPED(e, "[db] took %s ms for %s", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    /* console.log(...args): the first a format whose directives take the
     * arguments after it, the rest appended. */
    e = unit_emit_at(g, q, 23);
    CHECK_WRAPPED(e, "%s rows in %dms (cached)", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    /* (A concatenation's hole is its own value, no directive.) */
    e = unit_emit_at(g, q, 24);
    CHECK_WRAPPED(e, "took %s ms", GRAPH_STYLE_CONCAT, GRAPH_LEVEL_INFO, "");
    CHECK_INT(emit_count(g, q), 7);
    CHECK_GENERIC(unit_emit_at(g, "db.silly", 11));
    CHECK_GENERIC(unit_emit_at(g, "db.printAll", 15));
    graph_close(g);
}

/* The one site that msg matches, and its symbol's qualname. */
static const char *match_one(const graph *g, map_matcher *m, map_match_work *w, const char *msg,
                             uint32_t *line)
{
    uint32_t e[8];
    map_match r = map_matcher_match(m, w, msg, strlen(msg), NULL, NULL, e, 8);
    if (r.nemits != 1)
        unit_fail(__FILE__, __LINE__, "'%s' matches %u sites", msg, r.nemits);
    graph_emit em;
    graph_get_emit(g, e[0], &em);
    graph_symbol s;
    graph_get_symbol(g, em.symbol, &s);
    *line = em.line;
    return s.qualname;
}

TEST(ts_wrapper_messages_map_to_callers)
{
    graph *g = open_fixture();
    map_matcher *m;
    CHECK_OK(map_matcher_build(g, NULL, &m));
    map_match_work *w = map_match_work_new(m);
    /* What the fixture prints, and where it is logged from. */
    static const struct {
        const char *msg, *sym;
        uint32_t line;
    } cases[] = {
        {"[chan 7] opening main", "channel.Channel.open", 19},
        {"[chan 7] opened 3", "channel.Channel.open", 20},
        {"[app] closing main", "channel.Channel.close", 24},
        {"closed", "channel.Channel.close", 25},
        {"session started for bob", "session.Session.start", 13},
        {"[say] hello", "session.Session.start", 14},
        {"user 42 signed in", "app.signIn", 6},
        {"render button OK", "ui.Button", 4},
        {"query select 1 took 5ms", "db.query", 19},
        {"db connecting to select 1", "db.query", 20},
        {"[db] rows: 5", "db.query", 21},
        {"2026-11-30T03:20:06.000Z | flush | flushing main", "channel.Channel.flush", 30},
        {"chan | flushed", "channel.Channel.flush", 31},
        {"[link 3] starting", "link.Link.start", 24},
        {"[link 3] note: started", "link.Link.start", 26},
        /* moveTo keeps what it is passed (this.state = next): the state
         * is its own message's value, not its callers' message, and the
         * literal a caller passes it is no site of the caller's. */
        {"[link 3] IDLE -> CONNECTING", "link.Link.moveTo", 15},
        {"[link 3] CONNECTING -> SHUTDOWN", "link.Link.moveTo", 15},
        {"dialer | dialing 10.0.0.7:50051", "dialer.Dialer.dial", 5},
        {"[info] dialed 10.0.0.7:50051", "dialer.Dialer.dial", 6},
        {"[info] noted 10.0.0.7:50051", "dialer.Dialer.dial", 7},
        {"redialer | redialing 10.0.0.7:50051", "dialer.Dialer.redial", 15},
        /* A function that logs JSON.stringify of what it is passed: the
         * object literal a caller writes is the caller's message. */
        {"{\"event\":\"checkout\",\"cart\":\"c-9\",\"total\":12.5}", "audit.Cart.checkout", 13},
        {"{\"event\":\"paid\",\"ok\":true,\"amount\":12.5}", "audit.Cart.checkout", 14},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t line;
        const char *q = match_one(g, m, w, cases[i].msg, &line);
        CHECK_STR(q, cases[i].sym);
        CHECK_INT(line, cases[i].line);
    }
    /* No wrapper's own call catches what its callers did not say. */
    uint32_t e[8];
    static const char *const none[] = {"[chan 7] something else entirely", "[app] unknown",
                                       "[say] goodbye", "[db] something",
                                       "{\"event\":\"refund\",\"cart\":\"c-9\"}"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CHECK_INT(map_matcher_match(m, w, none[i], strlen(none[i]), NULL, NULL, e, 8).nemits, 0);
    map_match_work_free(w);
    map_matcher_free(m);
    graph_close(g);
}

/* Two packages as a TypeScript compiler writes them for CommonJS, in
 * tests/fixtures/extract/tsc_packages: @acme/sql's class extends
 * `store_1.Link`, which @acme/store's index re-exports through
 * `__exportStar(require('./link'), exports)` and link/index through
 * another; `Clock` through `Object.defineProperty(exports, 'Clock', {
 * get })`. */
static graph *open_packages(void)
{
    graph_index_opts o = {0};
    return unit_index_and_open(unit_fixture("extract/tsc_packages"), unit_tmp_path("tscp.graph"),
                               &o, NULL);
}

TEST(ts_compiled_packages_reach_each_other)
{
    graph *g = open_packages();
    CHECK_EDGE(g, "sql/index.SqlLink", "store/link/Link.Link", GRAPH_EDGE_INHERITS);
    CHECK_EDGE(g, "sql/index.SqlLink.stamp", "store/clock.Clock.now", GRAPH_EDGE_CALLS);
    /* Link.note hands its statement to `this.logger.logStatement({ level,
     * ...context, statement })`: the field the method names is the
     * message, so note is a wrapper, and the inherited call in the other
     * package is a site with the caller's text. */
    graph_emit e = unit_emit_at(g, "sql/index.SqlLink.begin", 6);
    CHECK_WRAPPED(e, "start transaction", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_CUSTOM, "");
    /* The word a method of ours returns, through a receiver of unknown
     * type (`this.dialect`, SqlDialect by its name), directly and as an
     * element of a list a loop goes through; of a method returning
     * several, none. Of the two dialects' beginSQL, each list's words and
     * the statement one of them builds in a local: a site each. */
    e = unit_emit_at(g, "sql/index.SqlLink.commit", 22);
    CHECK_WRAPPED(e, "commit", GRAPH_STYLE_PLAIN, GRAPH_LEVEL_CUSTOM, "");
    static const char *const begins[] = {"begin", "set transaction isolation level %s"};
    uint32_t first, ne = graph_symbol_emits(g, unit_sym(g, "sql/index.SqlLink.open"), &first);
    CHECK_INT(ne, 2);
    uint32_t words = 0;
    for (uint32_t i = 0; i < ne && i < 2; i++) {
        graph_get_emit(g, first + i, &e);
        CHECK_INT(e.line, 26);
        words += strcmp(e.tmpl, begins[0]) == 0;
        CHECK_WRAPPED(e, begins[strcmp(e.tmpl, begins[0]) != 0], e.style, GRAPH_LEVEL_CUSTOM, "");
    }
    CHECK_INT(words, 1);
    e = unit_emit_at(g, "sql/index.SqlLink.mode", 30);
    CHECK_INT(e.style, GRAPH_STYLE_DYNAMIC);
    graph_close(g);
}

/* Link.run(statement, work) awaits the work its caller hands it and then
 * logs the statement with how long it took: the statement is data it acts
 * on, so what it logs is its own event, at its call of the wrapper, for
 * the text a caller builds at run time (query) as for a literal (ping);
 * the callers have no site. */
TEST(ts_a_function_running_handed_work_logs_its_text)
{
    graph *g = open_packages();
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, "store/link/Link.Link.run"), &s);
    CHECK(s.flags & GRAPH_SF_RUNS_HANDED);
    CHECK_INT(s.flags & GRAPH_SF_WRAPPER, 0);
    static const char *const ping[] = {"select 1"};
    unit_check_run_time_sites(g, "store/link/Link.Link.run", 11, ping, 1);
    CHECK_INT(emit_count(g, "sql/index.SqlLink.query"), 0);
    CHECK_INT(emit_count(g, "sql/index.SqlLink.ping"), 0);
    graph_close(g);
}
