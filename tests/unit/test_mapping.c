/*
 * Events to activities to symbols, and the model over them: message
 * abstraction (map_mask_message), the %-directive reader
 * (graph_directive), the template matcher on small Python, TypeScript
 * and JavaScript repositories (decorated messages, and the sites no
 * template shows), the composed mapper (map_mapper) and the
 * next-emitter model (model_joint) on hand-made cases.
 */
#include "graph.h"
#include "map.h"
#include "map_int.h"
#include "mapper_int.h"
#include "model_int.h"
#include "ppr.h"
#include "unit_graph.h"

#include <errno.h>
#include <math.h>
#include <sys/prctl.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static graph *index_dir(const char *dir)
{
    graph_index_opts o = {0};
    o.threads = 1;
    char out[512];
    snprintf(out, sizeof out, "%s.graph", dir);
    return unit_index_and_open(unit_tmp_path(dir), unit_tmp_path(out), &o, NULL);
}

#define CHECK_EMIT(g, id, qualname, lineno)                                                        \
    do {                                                                                           \
        graph_emit unit_e;                                                                         \
        graph_get_emit((g), (id), &unit_e);                                                        \
        CHECK_INT(unit_e.symbol, unit_sym((g), (qualname)));                                       \
        CHECK_INT(unit_e.line, (lineno));                                                          \
    } while (0)

static map_match match(const map_matcher *m, map_match_work *w, const char *msg, const char *logger,
                       const char *level, uint32_t *emits)
{
    return map_matcher_match(m, w, msg, strlen(msg), logger, level, emits, 16);
}

/* A matcher over g and a work area for it (matcher_done frees the three). */
static map_match_work *matcher_of(graph *g, map_matcher **m)
{
    CHECK_OK(map_matcher_build(g, NULL, m));
    return map_match_work_new(*m);
}

static void matcher_done(graph *g, map_matcher *m, map_match_work *w)
{
    map_match_work_free(w);
    map_matcher_free(m);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* map_mask_message                                                  */
/* ------------------------------------------------------------------ */

/* An activity placed by strategy strat at one symbol, qual. */
#define CHECK_ONE_SITE(a, g, qual, strat)                                                          \
    do {                                                                                           \
        CHECK_INT((a).strategy, strat);                                                            \
        CHECK_INT((a).nsyms, 1);                                                                   \
        CHECK_INT((a).syms[0], unit_sym(g, qual));                                                 \
    } while (0)

TEST(mask_message_table)
{
    static const struct {
        const char *in;
        size_t max;
        const char *out;
    } t[] = {
        /* numbers, fractions, dotted quads: one mask each */
        {"took 15 ms", 0, "took <num> ms"},
        {"ratio 1.5 of 2", 0, "ratio <num> of <num>"},
        {"from 10.0.0.1 port 8080", 0, "from <num> port <num>"},
        {"-3 items", 0, "-<num> items"},
        {"obj-17 gone", 0, "obj-<num> gone"},
        /* hexadecimal: 0x literals, long hex runs with digits */
        {"addr 0x7ffe12 ok", 0, "addr <hex> ok"},
        {"addr 0XAB", 0, "addr <hex>"},
        {"commit deadbeef12 merged", 0, "commit <hex> merged"},
        {"sha 9f86d081884c7d65 end", 0, "sha <hex> end"},
        /* short hex-looking words and words with digits are kept */
        {"face cafe beef 42abc", 0, "face cafe beef 42abc"},
        {"bucket s3 via sha256 and v2 user42", 0, "bucket s3 via sha256 and v2 user42"},
        /* generated ids: 4 digits or more, or 2 in a word of 10 or more */
        {"label UPS8360377886 printed", 0, "label <id> printed"},
        {"order ord_mmp36wa0xhqv placed", 0, "order <id> placed"},
        {"host web12 and webserver12", 0, "host web12 and <id>"},
        /* UUIDs */
        {"req 123e4567-e89b-12d3-a456-426614174000 done", 0, "req <uuid> done"},
        {"[123E4567-E89B-12D3-A456-426614174000]", 0, "[<uuid>]"},
        /* quoted strings, on one line; an apostrophe in a word is not a quote */
        {"user 'bob smith' said \"hi there\"", 0, "user '<*>' said \"<*>\""},
        {"don't stop", 0, "don't stop"},
        {"open 'unclosed", 0, "open 'unclosed"},
        {"a 'x\ny' b", 0, "a 'x y' b"},
        /* paths and URLs */
        {"open /var/log/app.log failed", 0, "open <path> failed"},
        {"read ./rel/x.txt and ../up/y", 0, "read <path> and <path>"},
        {"GET https://example.com/a?b=1 200", 0, "GET <path> <num>"},
        {"see (/etc/hosts)", 0, "see (<path>)"},
        /* A route template is one path: its braces are its own. */
        {"POST /orders/{order_id}/cancel", 0, "POST <path>"},
        {"GET /orders/{order_id}", 0, "GET <path>"},
        {"{at /a/b}", 0, "{at <path>}"},
        {"[/x/y[0]]", 0, "[<path>]"},
        {"ratio a/b and / alone", 0, "ratio a/b and / alone"},
        /* white space: runs fold, ends are dropped */
        {"  a  \t b\n\nc  ", 0, "a b c"},
        {"", 0, ""},
        {" \t\n", 0, ""},
        /* plain text stays */
        {"Sending request: done!", 0, "Sending request: done!"},
    };
    core_buf b = {0};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        core_buf_reset(&b);
        size_t n = map_mask_message(t[i].in, strlen(t[i].in), t[i].max, &b);
        CHECK_INT(n, b.len);
        CHECK_STR(b.len ? b.data : "", t[i].out);
    }
    /* Appends: what was in the buffer stays. */
    core_buf_reset(&b);
    core_buf_puts(&b, "x:");
    CHECK_INT(map_mask_message("n 5", 3, 0, &b), 7);
    CHECK_STR(b.data, "x:n <num>");
    /* Not NUL-terminated input: only n bytes are read. */
    core_buf_reset(&b);
    map_mask_message("took 15 ms and more", 10, 0, &b);
    CHECK_STR(b.data, "took <num> ms");
    core_buf_free(&b);
}

TEST(mask_message_truncation)
{
    core_buf b = {0};
    /* 0 means 256. */
    char big[600];
    memset(big, 'a', sizeof big);
    for (size_t i = 20; i < sizeof big; i += 20)
        big[i] = ' ';
    CHECK_INT(map_mask_message(big, sizeof big, 0, &b), 256);
    /* Cut at max inside a word. */
    core_buf_reset(&b);
    CHECK_INT(map_mask_message("abcdefghijkl", 12, 5, &b), 5);
    CHECK_STR(b.data, "abcde");
    /* "héllo wörld": h é(2) l l o ' ' w ö(2) r l d. At 9 bytes the cut
     * falls inside ö: the result ends before it. */
    const char *s = "h\xc3\xa9llo w\xc3\xb6rld";
    core_buf_reset(&b);
    CHECK_INT(map_mask_message(s, strlen(s), 9, &b), 8);
    CHECK_STR(b.data, "h\xc3\xa9llo w");
    core_buf_reset(&b);
    CHECK_INT(map_mask_message(s, strlen(s), 10, &b), 10);
    CHECK_STR(b.data, "h\xc3\xa9llo w\xc3\xb6");
    /* A 3-byte character (€, e2 82 ac) cut after one and after two bytes. */
    const char *euro = "ab \xe2\x82\xac x";
    for (size_t max = 4; max <= 5; max++) {
        core_buf_reset(&b);
        CHECK_INT(map_mask_message(euro, strlen(euro), max, &b), 3);
        CHECK_STR(b.data, "ab ");
    }
    core_buf_reset(&b);
    CHECK_INT(map_mask_message(euro, strlen(euro), 6, &b), 6);
    /* The result is never longer than max, placeholders included. */
    static const char *const over[] = {"abcdefgh 123", "abcdefg 0x1f", "abcdef '12345'",
                                       "abcd /var/log/x", "a 123e4567-e89b-12d3-a456-426614174000"};
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        core_buf_reset(&b);
        size_t n = map_mask_message(over[i], strlen(over[i]), 10, &b);
        CHECK(n <= 10);
        CHECK_INT(b.len, n);
    }
    /* Bytes that are not UTF-8 in the middle of a message do not end it
     * (a Latin-1 message keeps what follows). */
    core_buf_reset(&b);
    const char *latin1 = "caf\xe9 opened 3 times";
    map_mask_message(latin1, strlen(latin1), 0, &b);
    CHECK_STR(b.data, "caf\xe9 opened <num> times");
    core_buf_reset(&b);
    CHECK_INT(map_mask_message("caf\xe9", 4, 0, &b), 4);
    core_buf_free(&b);
}

/* ------------------------------------------------------------------ */
/* graph_directive                                                     */
/* ------------------------------------------------------------------ */

TEST(directive_table)
{
    static const struct {
        const char *s;
        size_t len;
    } t[] = {
        {"%%", 2},
        {"%%s", 2}, /* an escaped '%', then literal text */
        /* Python's and util.format's conversions; %j %o %O are Node's */
        {"%s", 2},
        {"%d", 2},
        {"%r", 2},
        {"%a", 2},
        {"%j", 2},
        {"%o", 2},
        {"%O", 2},
        {"%E", 2},
        /* flags, width, precision, '*' */
        {"%5.2f", 5},
        {"%-10s", 5},
        {"%+05d", 5},
        {"% d", 3},
        {"%#x", 3},
        {"%.f", 3},
        {"%*d", 3},
        {"%.*f", 4},
        /* length modifiers: any run of h, l, L, and nothing else */
        {"%ld", 3},
        {"%lld", 4},
        {"%hhd", 4},
        {"%Lf", 3},
        {"%zu", 0},
        {"%qd", 0},
        /* a mapping key, any text up to ')' */
        {"%(name)s", 8},
        {"%(name)-5d", 10},
        {"%(x y)r", 7},
        {"%(name", 0},
        {"%(a)", 0},
        /* only what the directive spans counts */
        {"%s tail", 2},
        {"%E%G", 2},
        /* not a directive: the '%' is literal */
        {"%", 0},
        {"%5", 0},
        {"%l", 0},
        {"%y", 0},
        {"%b", 0},
        {"%n", 0},
        {"%S", 0},
        {"%5.5.5f", 0},
        {"% ", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t got = graph_directive(t[i].s, strlen(t[i].s));
        if (got != t[i].len)
            unit_fail(__FILE__, __LINE__, "graph_directive(\"%s\") = %zu, want %zu", t[i].s, got,
                      t[i].len);
    }
    /* n bounds the reading: a conversion or ')' past it is not there. */
    CHECK_INT(graph_directive("%5.2f", 4), 0);
    CHECK_INT(graph_directive("%%", 1), 0);
    CHECK_INT(graph_directive("%(a)s", 3), 0);
    CHECK_INT(graph_directive("%(a)s", 5), 5);
}

/* ------------------------------------------------------------------ */
/* graph_brace_field                                                   */
/* ------------------------------------------------------------------ */

TEST(brace_field_table)
{
    static const struct {
        const char *s;
        size_t len;
    } t[] = {
        /* PEP 3101: arg_name ("." attr | "[" key "]")* ["!" conv] [":" spec] */
        {"{}", 2},
        {"{0}", 3},
        {"{12}", 4},
        {"{name}", 6},
        {"{name!r}", 8},
        {"{name!s}", 8},
        {"{name!a}", 8},
        {"{x.attr}", 8},
        {"{x.a.b}", 7},
        {"{x[key]}", 8},
        {"{x[0].y}", 8},
        {"{:>8}", 5},
        {"{0:.2f}", 7},
        {"{name!r:>10}", 12},
        {"{v:>{w}}", 8},
        {"{v:{w}.{p}}", 11},
        {"{naïve}", 8},
        {"{name} tail", 6},
        /* text, not a field */
        {"{{", 0},
        {"{{name}}", 0},
        {"{", 0},
        {"{name", 0},
        {"{ name }", 0},
        {"{'a': 1}", 0},
        {"{\"a\": 1}", 0},
        {"{0x}", 0},
        {"{1a}", 0},
        {"{x.}", 0},
        {"{x[]}", 0},
        {"{x[a}", 0},
        {"{name!x}", 0},
        {"{name!}", 0},
        {"{a-b}", 0},
        {"{v:{w:{z}}}", 0},
        {"}", 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t got = graph_brace_field(t[i].s, strlen(t[i].s));
        if (got != t[i].len)
            unit_fail(__FILE__, __LINE__, "graph_brace_field(\"%s\") = %zu, want %zu", t[i].s, got,
                      t[i].len);
    }
    /* n bounds the reading. */
    CHECK_INT(graph_brace_field("{name}", 5), 0);
    CHECK_INT(graph_brace_field("{name}", 6), 6);
    /* A field of 256 bytes or more is taken as text. */
    char big[300];
    big[0] = '{';
    memset(big + 1, 'a', 260);
    big[261] = '}';
    CHECK_INT(graph_brace_field(big, 262), 0);
}

/* ------------------------------------------------------------------ */
/* The template matcher: Python                                        */
/* ------------------------------------------------------------------ */

static const char orders_py[] =
    "import logging\n"
    "from opentelemetry import trace\n"
    "\n"
    "logger = logging.getLogger(__name__)\n"
    "tracer = trace.get_tracer(__name__)\n"
    "log = logging.getLogger(\"app.orders\")\n"
    "\n"
    "MSG_RETRY = \"retry %d of order %s\"\n"
    "MSG_FAIL = \"payment failed for card %s\"\n"
    "\n"
    "\n"
    "def place(order, x):\n"
    "    logger.debug(\"placing order %s now\", x)\n"
    "    logger.info(\"order %d has %(items)s items\", order, {\"items\": 1})\n"
    "    logger.info(\"total {} for {}\".format(order, x))\n"
    "    logger.warning(f\"order {order} shipped to {x}\")\n"
    "\n"
    "\n"
    "def root_says(x):\n"
    "    logging.info(\"hello from %s\", x)\n"
    "\n"
    "\n"
    "def module_says(x):\n"
    "    logger.info(\"hello from %s\", x)\n"
    "\n"
    "\n"
    "def retry(order, n):\n"
    "    log.warning(MSG_RETRY, n, order)\n"
    "\n"
    "\n"
    "def helper_log(msg, *args):\n"
    "    logger.error(msg, *args)\n"
    "\n"
    "\n"
    "def failing(card):\n"
    "    helper_log(MSG_FAIL, card)\n"
    "\n"
    "\n"
    "def multi(x):\n"
    "    logger.info(\"first line %s\\nsecond line\", x)\n"
    "\n"
    "\n"
    "def long_one(x):\n"
    "    logger.info(\"this is a very long template that keeps going on and on about %s and "
    "then even more text after it\", x)\n"
    "\n"
    "\n"
    "def spans():\n"
    "    with tracer.start_as_current_span(\"checkout\"):\n"
    "        pass\n"
    "\n"
    "\n"
    "def says_checkout():\n"
    "    logger.info(\"checkout\")\n"
    "\n"
    "\n"
    "def same_a():\n"
    "    logger.info(\"shared message %s\", 1)\n"
    "\n"
    "\n"
    "def level_a():\n"
    "    logger.info(\"level message %s\", 1)\n"
    "\n"
    "\n"
    "def level_b():\n"
    "    logger.error(\"level message %s\", 2)\n"
    "\n"
    "\n"
    "def literal_a(x):\n"
    "    logger.info(\"value is %s\", x)\n"
    "\n"
    "\n"
    "def literal_b(x):\n"
    "    logger.info(\"value is %s units\", x)\n"
    "\n"
    "\n"
    "def dump_a(x):\n"
    "    logger.debug(\"state: %s\", x)\n"
    "\n"
    "\n"
    "def dump_b(x, y):\n"
    "    logger.warning(\"state: %s, %s\", x, y)\n";

static const char billing_py[] = "import logging\n"
                                 "\n"
                                 "logger = logging.getLogger(__name__)\n"
                                 "\n"
                                 "\n"
                                 "def same_b():\n"
                                 "    logger.info(\"shared message %s\", 2)\n";

static graph *open_py(void)
{
    unit_write_str("py/pkg/__init__.py", "");
    unit_write_str("py/pkg/orders.py", orders_py);
    unit_write_str("py/pkg/billing.py", billing_py);
    return index_dir("py");
}

TEST(matcher_python_styles)
{
    graph *g = open_py();
    map_matcher *m;
    CHECK_OK(map_matcher_build(g, NULL, &m));
    CHECK(map_matcher_count(m) > 0);
    map_match_work *w = map_match_work_new(m);
    uint32_t e[16];
    map_match r;

    /* %s with logger.debug */
    r = match(m, w, "placing order 42 now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.nmatched, 1);
    CHECK_INT(r.flags, 0);
    CHECK_INT(r.literal, strlen("placing order  now"));
    CHECK_EMIT(g, e[0], "pkg.orders.place", unit_line_of(orders_py, "placing order"));
    graph_emit em;
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.level, GRAPH_LEVEL_DEBUG);
    CHECK_STR(em.tmpl, "placing order %s now");
    /* a hole matches any text, across lines, and nothing */
    r = match(m, w, "placing order a\nb c now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    r = match(m, w, "placing order  now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    /* anchored at both ends */
    CHECK_INT(match(m, w, "placing order 42 now!", NULL, NULL, e).nemits, 0);
    CHECK_INT(match(m, w, "xplacing order 42 now", NULL, NULL, e).nemits, 0);
    CHECK_INT(match(m, w, "placing order 42", NULL, NULL, e).nemits, 0);

    /* %d and %(name)s */
    r = match(m, w, "order 7 has {'items': 1} items", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.place", unit_line_of(orders_py, "has %(items)s"));
    /* "{}".format */
    r = match(m, w, "total 5 for bob", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.place", unit_line_of(orders_py, "total {}"));
    /* f-string */
    r = match(m, w, "order 7 shipped to Paris", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.place", unit_line_of(orders_py, "shipped to"));

    /* A constant logged by name matches at the site that logs it: a
     * direct match, not a constant's. */
    r = match(m, w, "retry 3 of order A1", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags & MAP_MATCH_CONST, 0);
    CHECK_EMIT(g, e[0], "pkg.orders.retry", unit_line_of(orders_py, "log.warning(MSG_RETRY"));
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.style, GRAPH_STYLE_REF);
    CHECK_STR(em.ref, "MSG_RETRY");
    CHECK_STR(em.logger, "app.orders");
    CHECK(em.ref_const != GRAPH_NONE);
    graph_emit c;
    graph_get_emit(g, em.ref_const, &c);
    CHECK_INT(c.kind, GRAPH_EMIT_CONST);
    CHECK_STR(c.name, "MSG_RETRY");
    CHECK_INT(c.line, unit_line_of(orders_py, "MSG_RETRY ="));
    /* Through a wrapper (helper_log logs its msg parameter): the call
     * to the wrapper is the site, in its caller, and logs the constant:
     * a direct match. */
    r = match(m, w, "payment failed for card 4242", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags & MAP_MATCH_CONST, 0);
    CHECK_EMIT(g, e[0], "pkg.orders.failing", unit_line_of(orders_py, "helper_log(MSG_FAIL"));
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.style, GRAPH_STYLE_REF);
    CHECK_STR(em.ref, "MSG_FAIL");
    CHECK(em.flags & GRAPH_EF_WRAPPER);
    CHECK_INT(em.level, GRAPH_LEVEL_ERROR);
    CHECK(em.ref_const != GRAPH_NONE);
    graph_get_emit(g, em.ref_const, &c);
    CHECK_INT(c.kind, GRAPH_EMIT_CONST);
    CHECK_STR(c.name, "MSG_FAIL");
    CHECK_STR(c.tmpl, "payment failed for card %s");
    CHECK_INT(c.line, unit_line_of(orders_py, "MSG_FAIL ="));
    CHECK_INT(c.symbol, unit_sym(g, "pkg.orders"));
    /* ... and the helper is flagged as logging a non-literal message */
    graph_symbol hs;
    graph_get_symbol(g, unit_sym(g, "pkg.orders.helper_log"), &hs);
    CHECK(hs.flags & GRAPH_SF_LOGS_DYNAMIC);

    /* A template with a newline: the real one and the escaped one. */
    r = match(m, w, "first line X\nsecond line", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.multi", unit_line_of(orders_py, "first line"));
    r = match(m, w, "first line X\\nsecond line", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.multi", unit_line_of(orders_py, "first line"));
    CHECK_INT(match(m, w, "first line X second line", NULL, NULL, e).nemits, 0);

    matcher_done(g, m, w);
}

/* Where memory may not be made executable (systemd's
 * MemoryDenyWriteExecute, or prctl PR_SET_MDWE as here) PCRE2's JIT
 * fails: the matcher must still match, interpreted. */
/* A logger that formats PEP 3101 with the call's keyword arguments
 * (structured loggers) leaves the format at the call as a plain literal:
 * its fields are holes, its "{{" a brace shown once or twice. */
static const char kwfmt_py[] =
    "import logging\n"
    "class Reactor:\n"
    "    log = make_logger()\n"
    "    def start(self, factory):\n"
    "        self.log.info('Starting factory {factory!r}', factory=factory)\n"
    "    def route(self, t):\n"
    "        self.log.debug('route {t[src]} -> {t.dst} in {0:>8}', 3, t=t)\n"
    "    def braces(self, n):\n"
    "        self.log.info('{{literal}} and {n} items', n=n)\n"
    "    def json_like(self, n):\n"
    "        self.log.info('body {\"a\": %s}', n)\n";

TEST(matcher_brace_fields)
{
    unit_write_str("kw/reactor.py", kwfmt_py);
    graph *g = index_dir("kw");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w, "Starting factory <Factory port=8080>", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("Starting factory "));
    CHECK_EMIT(g, e[0], "reactor.Reactor.start", unit_line_of(kwfmt_py, "Starting factory"));
    r = match(m, w, "route a -> b in        3", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("route  ->  in "));
    CHECK_EMIT(g, e[0], "reactor.Reactor.route", unit_line_of(kwfmt_py, "route {t[src]}"));
    /* str.format shows "{{" once; a logger that does not format, twice */
    CHECK_INT(match(m, w, "{literal} and 4 items", NULL, NULL, e).nemits, 1);
    CHECK_EMIT(g, e[0], "reactor.Reactor.braces", unit_line_of(kwfmt_py, "{{literal}}"));
    CHECK_INT(match(m, w, "{{literal}} and {n} items", NULL, NULL, e).nemits, 1);
    CHECK_INT(match(m, w, "{literal}} and 4 items!", NULL, NULL, e).nemits, 0);
    /* braces that are no field are text */
    r = match(m, w, "body {\"a\": 7}", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("body {\"a\": }"));
    CHECK_INT(match(m, w, "body 7", NULL, NULL, e).nemits, 0);
    matcher_done(g, m, w);
}

/* A wrapper that binds its message parameter again, with text around
 * what it held: its callers' texts, with that text around them, and the
 * `+=` an `if` may skip there or not. */
static const char rebound_py[] = "import logging\n"
                                 "logger = logging.getLogger(__name__)\n"
                                 "def debug(s, inst=None):\n"
                                 "    s = '[debug] ' + s\n"
                                 "    if inst is not None:\n"
                                 "        s += ' (%r)' % inst\n"
                                 "    logger.debug(s)\n"
                                 "def note(msg):\n"
                                 "    msg = f'note: {msg}'\n"
                                 "    logger.info(msg)\n"
                                 "class Chan:\n"
                                 "    def close(self):\n"
                                 "        debug('call: close()', self)\n"
                                 "    def open(self):\n"
                                 "        note('opening')\n";

TEST(matcher_wrapper_binds_its_message_again)
{
    unit_write_str("rebound/pkg/__init__.py", "");
    unit_write_str("rebound/pkg/rebound.py", rebound_py);
    graph *g = index_dir("rebound");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    uint32_t close_line = unit_line_of(rebound_py, "debug('call");
    map_match r =
        match(m, w, "[debug] call: close() (<pkg.rebound.Chan object at 0x7f01>)", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.rebound.Chan.close", close_line);
    CHECK_INT(match(m, w, "[debug] call: close()", NULL, NULL, e).nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.rebound.Chan.close", close_line);
    CHECK_INT(match(m, w, "note: opening", NULL, NULL, e).nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.rebound.Chan.open", unit_line_of(rebound_py, "note('opening"));
    /* the callers' text alone was never logged */
    CHECK_INT(match(m, w, "call: close()", NULL, NULL, e).nemits, 0);
    matcher_done(g, m, w);
}

/* A logging function handed in, the default a logger's method: calls to
 * the parameter log, at whatever level the caller hands. A helper that
 * does more than log (it sends the reply) and logs its parameter among
 * its own text is the emitter of what its callers pass it. */
static const char handed_py[] = "import logging\n"
                                "logger = logging.getLogger(__name__)\n"
                                "def line(msg, logfun=logger.info):\n"
                                "    logfun('[ftp] %s' % msg)\n"
                                "def reply(resp, logfun=logger.debug):\n"
                                "    send(resp + '\\r\\n')\n"
                                "    line('-> %s' % resp, logfun=logfun)\n"
                                "def warn_reply(resp):\n"
                                "    reply(resp, logfun=logger.warning)\n"
                                "def ftp_type(t):\n"
                                "    reply('200 Type set to: %s.' % t)\n"
                                "def start():\n"
                                "    line('ready for connections')\n";

TEST(matcher_logging_function_handed_in)
{
    unit_write_str("handed/pkg/__init__.py", "");
    unit_write_str("handed/pkg/ftp.py", handed_py);
    graph *g = index_dir("handed");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    CHECK_INT(match(m, w, "[ftp] ready for connections", NULL, "INFO", e).nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.ftp.start", unit_line_of(handed_py, "line('ready"));
    uint32_t at = unit_line_of(handed_py, "line('-> ");
    CHECK_INT(match(m, w, "[ftp] -> 200 Type set to: I.", NULL, "DEBUG", e).nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.ftp.reply", at);
    CHECK_INT(match(m, w, "[ftp] -> 550 Not enough privileges.", NULL, "WARNING", e).nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.ftp.reply", at);
    matcher_done(g, m, w);
}

/* Renderers of their own fill "@{name}", "${name}" or "#{a.b}" from the
 * fields handed with the message: the sigil and the field are one hole,
 * and a field bag handed after such a message is not appended. */
static const char sigil_js[] =
    "const { logger } = require('./logger');\n"
    "function allow(user) {\n"
    "  logger.info({ user: user.name }, 'access granted to: @{user}');\n"
    "}\n"
    "function fetch(method, uri) {\n"
    "  logger.info({ method, uri }, \"making request: '@{method} @{uri}'\");\n"
    "}\n"
    "function found(n) {\n"
    "  logger.info('search ok results @{total}', { total: n });\n"
    "}\n"
    "function quote(p) {\n"
    "  logger.warn('price ${amount} for #{item.name} (@{!code})', p);\n"
    "}\n"
    "function plain(p) {\n"
    "  logger.warn('cost: $', p);\n"
    "}\n"
    "function activity(err, status) {\n"
    "  let message = \"@{!status}, req: '@{method}'\";\n"
    "  message += err ? ', error: @{!error}' : ', bytes: @{in}/@{out}';\n"
    "  if (status > 499) message += ' (server)';\n"
    "  logger.http({ status }, message);\n"
    "}\n";

TEST(matcher_sigil_fields)
{
    unit_write_str("sigil/app.js", sigil_js);
    graph *g = index_dir("sigil");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w, "access granted to: alice", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.allow", unit_line_of(sigil_js, "access granted"));
    CHECK_INT(r.literal, strlen("access granted to: "));
    r = match(m, w, "making request: 'GET http://127.0.0.1:4873/@scope%2fpkg'", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.fetch", unit_line_of(sigil_js, "making request"));
    /* the object after the message fills its fields, it is not shown */
    r = match(m, w, "search ok results undefined", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.found", unit_line_of(sigil_js, "search ok"));
    r = match(m, w, "price 12.50 for lamp (A7)", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.quote", unit_line_of(sigil_js, "price"));
    /* a sigil with no field after it is text, and the argument shown */
    r = match(m, w, "cost: $ 12", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.plain", unit_line_of(sigil_js, "cost: $"));
    /* A message a local builds with `+=`: either arm of each piece, and
     * without the one that may not run. */
    static const char *const built[] = {
        "200, req: 'GET', bytes: 0/12", "ERR, req: 'GET', error: socket hang up",
        "503, req: 'PUT', error: upstream (server)", "503, req: 'PUT', bytes: 0/0 (server)"};
    for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
        r = match(m, w, built[i], NULL, NULL, e);
        CHECK_INT(r.nemits, 1);
        CHECK_EMIT(g, e[0], "app.activity", unit_line_of(sigil_js, "logger.http"));
    }
    CHECK_INT(match(m, w, "200, req: 'GET'", NULL, NULL, e).nemits, 0);
    matcher_done(g, m, w);

    graph_tmpl_piece pc;
    CHECK_INT(graph_tmpl_step("@{user} in", 10, 0, &pc), 7);
    CHECK(pc.hole);
    CHECK_INT(graph_tmpl_step("${a.b}", 6, 0, &pc), 6);
    CHECK(pc.hole);
    /* braces holding nothing, a brace, a line or a blank first: text */
    CHECK_INT(graph_tmpl_step("@{}", 3, 0, &pc), 1);
    CHECK(!pc.hole);
    CHECK_INT(graph_tmpl_step("#{ x }", 6, 0, &pc), 1);
    CHECK_INT(graph_tmpl_step("${a{b}}", 7, 0, &pc), 1);
    CHECK_INT(graph_tmpl_step("${a\nb}", 6, 0, &pc), 1);
    CHECK_INT(graph_tmpl_step("${abc", 5, 0, &pc), 1);
}

/* Tests shipped in the package: their literals do not take the product's
 * messages, and a message only they render waits for the other
 * strategies before it goes to them. */
static const char aside_factory_py[] = "import logging\n"
                                       "log = logging.getLogger(__name__)\n"
                                       "def start(factory):\n"
                                       "    log.info('Starting factory %s', factory)\n"
                                       "def build(parts):\n"
                                       "    log.debug(describe(parts))\n"
                                       "def encode(ct):\n"
                                       "    log.info('Setting Content-Type %s' % ct)\n"
                                       "def handshake(conn):\n"
                                       "    conn.note('Handshake completed with the peer')\n";
static const char aside_test_py[] = "import logging\n"
                                    "log = logging.getLogger(__name__)\n"
                                    "def test_start():\n"
                                    "    log.info('Starting factory <Factory port=1>')\n"
                                    "def test_build():\n"
                                    "    log.debug('built 3 parts in order')\n"
                                    "def test_assemble():\n"
                                    "    log.debug('assembled every part')\n"
                                    "def test_encode(page):\n"
                                    "    page.assert_body('text/html;charset=utf-8')\n"
                                    "def fail_msg(name, message):\n"
                                    "    log.error('<%s> %s', name, message)\n";

/* Two sites whose templates differ only in blanks between holes both
 * explain a message that shows them: the blank says nothing a hole does
 * not (a hole may hold one). A blank in the words still counts. */
TEST(matcher_blanks_between_holes_tell_nothing)
{
    unit_write_str("blanks/pkg/__init__.py", "");
    unit_write_str("blanks/pkg/query.py", "import logging\n"
                                          "log = logging.getLogger('pkg')\n"
                                          "def base(conn, sql, tail):\n"
                                          "    log.info('Executed (%s): %s%s', conn, sql, tail)\n"
                                          "def other(conn, sql, tail):\n"
                                          "    log.info('Executed (%s): %s %s', conn, sql, tail)\n"
                                          "def sent(n):\n"
                                          "    log.info('sent %s bytes', n)\n"
                                          "def sentb(n):\n"
                                          "    log.info('sent%s bytes', n)\n"
                                          "def pair(k, v):\n"
                                          "    log.info('%s= %s', k, v)\n"
                                          "def triple(k, v, w):\n"
                                          "    log.info('%s= %s %s', k, v, w)\n");
    graph *g = index_dir("blanks");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w, "Executed (default): SELECT VERSION() as v", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    /* (what the blank adds to the literal text is still reported) */
    CHECK_INT(r.literal, strlen("Executed ():  "));
    r = match(m, w, "sent 12 bytes", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.query.sent", 8);
    /* Next to no words: the blank is as much as they say, and still
     * decides. */
    r = match(m, w, "S= 250 OK", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.query.triple", 14);
    matcher_done(g, m, w);
}

/* Backends that log one text through debug functions a factory of the
 * package's own made from their namespaces: the log's logger (that
 * namespace behind the factory's prefix) tells which one logged. */
TEST(matcher_namespace_made_by_a_factory_tells_backends_apart)
{
    unit_write_str("ns/lib/logger.js", "const createDebug = require('debug');\n"
                                       "exports.debugContext = (n) => createDebug(`orm:${n}`);\n");
    unit_write_str("ns/lib/mysql.js", "const logger = require('./logger');\n"
                                      "const debug = logger.debugContext('sql:mysql');\n"
                                      "exports.run = (p) => { debug('parameters(%j)', p); };\n");
    unit_write_str("ns/lib/pg.js", "const logger = require('./logger');\n"
                                   "const debug = logger.debugContext('sql:pg');\n"
                                   "exports.run = (p) => { debug('parameters(%j)', p); };\n");
    graph *g = index_dir("ns");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w, "parameters([1,2])", "orm:sql:pg", NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pg.run", 3);
    CHECK_INT(match(m, w, "parameters([1,2])", NULL, NULL, e).nemits, 2);
    matcher_done(g, m, w);
}

TEST(matcher_sets_tests_aside)
{
    unit_write_str("aside/pkg/factory.py", aside_factory_py);
    unit_write_str("aside/pkg/test/test_factory.py", aside_test_py);
    graph *g = index_dir("aside");
    uint32_t e[16];
    for (int aside = 0; aside < 2; aside++) {
        map_matcher *m;
        map_matcher_opts mo = {.aside = aside ? MAP_ASIDE_DEFAULT : 0};
        CHECK_OK(map_matcher_build(g, &mo, &m));
        map_match_work *w = map_match_work_new(m);
        map_match r = match(m, w, "Starting factory <Factory port=1>", NULL, NULL, e);
        CHECK_INT(r.nemits, 1);
        if (aside)
            CHECK_EMIT(g, e[0], "factory.start", unit_line_of(aside_factory_py, "Starting"));
        else
            CHECK_EMIT(g, e[0], "test_factory.test_start", unit_line_of(aside_test_py, "Starting"));
        /* Only the test renders it: a match, flagged. */
        r = match(m, w, "built 3 parts in order", NULL, NULL, e);
        CHECK_INT(r.nemits, 1);
        CHECK_INT(!!(r.flags & MAP_MATCH_ASIDE), aside);
        /* A decorated message: the product's site renders the rest after
         * the decoration; a test's literal, a shorter rest of it that the
         * test hands a call that logs nothing, is the value it shows, and
         * no start of its own (set aside or not). */
        r = match(m, w, "[30/Nov/2026:14:14:51] ENC Setting Content-Type text/html;charset=utf-8",
                  NULL, NULL, e);
        CHECK_INT(r.nemits, 1);
        CHECK_EMIT(g, e[0], "factory.encode", unit_line_of(aside_factory_py, "Content-Type"));
        /* A test's shape that renders a decorated message whole ("<%s> %s")
         * does not keep the product's call from saying it was decorated. */
        r = match(m, w, "<12713.109> Handshake completed with the peer", NULL, NULL, e);
        CHECK_INT(r.nemits, 1);
        if (aside) {
            CHECK_EMIT(g, e[0], "factory.handshake", unit_line_of(aside_factory_py, "Handshake"));
            CHECK_INT(r.decoration, strlen("<12713.109> "));
        } else {
            CHECK_EMIT(g, e[0], "test_factory.fail_msg", unit_line_of(aside_test_py, "<%s> %s"));
            CHECK_INT(r.decoration, 0);
        }
        map_match_work_free(w);
        map_matcher_free(m);
    }
    /* The mapper: the product's dynamic site of the same logger first. */
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    map_event ev = {.text = "built 3 parts in order", .logger = "factory", .learn = true};
    ev.len = strlen(ev.text);
    uint32_t a, v;
    map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_activity pa;
    map_mapper_activity(mp, a, &pa);
    CHECK_ONE_SITE(pa, g, "factory.build", MAP_BY_LOGGER);
    /* A logger with no product site: the test's site, as the last resort. */
    ev.logger = "elsewhere";
    ev.text = "assembled every part";
    ev.len = strlen(ev.text);
    map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_mapper_activity(mp, a, &pa);
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.syms[0], unit_sym(g, "test_factory.test_assemble"));
    map_mapper_free(mp);
    graph_close(g);
}

/* One template at two sites, the message naming the class that logs. */
static const char named_py[] = "import logging\n"
                               "log = logging.getLogger(__name__)\n"
                               "class ServerProtocol:\n"
                               "    def made(self):\n"
                               "        log.debug('%r: connection made', self)\n"
                               "class ClientProtocol:\n"
                               "    def made(self):\n"
                               "        log.debug('%r: connection made', self)\n";

/* One template at two sites; callers hand one of them the word the
 * message shows. */
static const char passed_py[] = "import logging\n"
                                "log = logging.getLogger(__name__)\n"
                                "def parse_init(items):\n"
                                "    for k, v in items:\n"
                                "        log.debug('%s: %s', k, v)\n"
                                "def agreement(which, value):\n"
                                "    log.debug('%s: %s', which, value)\n"
                                "def negotiate(a, b):\n"
                                "    agreement('Cipher', a)\n"
                                "    agreement('Compression', b)\n";

TEST(mapper_duplicates_named_by_a_callers_literal)
{
    unit_write_str("passed/kex.py", passed_py);
    graph *g = index_dir("passed");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const struct {
        const char *text, *want;
    } t[] = {
        {"Cipher: aes128-ctr", "kex.agreement"},
        {"Compression: none", "kex.agreement"},
        {"kex algos: a,b,c", NULL},
        {"Ciphers: a,b", NULL}, /* a word, not the literal */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        map_event ev = {.text = t[i].text, .len = strlen(t[i].text), .learn = true};
        uint32_t a, v;
        map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
        map_activity pa;
        map_mapper_activity(mp, a, &pa);
        if (t[i].want) {
            CHECK_INT(pa.amb, MAP_AMB_MESSAGE);
            CHECK_INT(pa.syms[0], unit_sym(g, t[i].want));
        } else {
            CHECK_INT(pa.amb, MAP_AMB_TIED);
        }
    }
    map_mapper_free(mp);
    graph_close(g);
}

/* One template at sites in two files, logged through a logger each class
 * is handed (named for a component, "piper" and "relay", not for the
 * module): only the record's logger tells them apart, by the file its
 * other messages came from. */
static const char lgsend_py[] =
    "class Sendmail:\n"
    "    def __init__(self, logger):\n"
    "        self.logger = logger\n"
    "    def send(self, mail):\n"
    "        self.logger.info('Sending message %s', mail)\n"
    "        self.logger.error('Error occurred when piping %s', mail)\n";
static const char lgsmtp_py[] = "class Smtp:\n"
                                "    def __init__(self, logger):\n"
                                "        self.logger = logger\n"
                                "    def send(self, mail):\n"
                                "        self.logger.info('Sending message %s', mail)\n"
                                "        self.logger.info('Message sent %s', mail)\n";

/* Maps one message of logger at level (learnt from with learn) after the
 * activity *prev (none when NULL); returns its activity. */
static uint32_t map_one(map_mapper *mp, const char *text, const char *logger, const char *level,
                        bool learn, const uint32_t *prev)
{
    map_event ev = {
        .text = text, .len = strlen(text), .logger = logger, .level = level, .learn = learn};
    uint32_t a, v;
    map_mapper_map(mp, &ev, prev, prev ? 1 : 0, NULL, 0, &a, &v);
    return a;
}

/* Runs the deferred strategies and returns activity a as they left it. */
static map_activity finished(map_mapper *mp, uint32_t a)
{
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_activity pa;
    map_mapper_activity(mp, a, &pa);
    return pa;
}

/* Indexes dir, maps text (of logger) alone, and checks that it went to
 * the one function qual, by strategy st. */
static void check_alone(const char *dir, const char *text, const char *logger, const char *qual,
                        map_strategy st)
{
    graph *g = index_dir(dir);
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    map_activity pa = finished(mp, map_one(mp, text, logger, NULL, true, NULL));
    CHECK_ONE_SITE(pa, g, qual, st);
    map_mapper_free(mp);
    graph_close(g);
}

/* Maps one message of logger at level (learnt from) and returns its
 * activity. */
static map_activity map_logged(map_mapper *mp, const char *text, const char *logger,
                               const char *level)
{
    map_activity pa;
    map_mapper_activity(mp, map_one(mp, text, logger, level, true, NULL), &pa);
    return pa;
}

TEST(mapper_duplicates_in_the_file_of_their_logger)
{
    unit_write_str("lgfile/sendmail.py", lgsend_py);
    unit_write_str("lgfile/smtp.py", lgsmtp_py);
    unit_write_str("lgfile/spool.py", "def rotate(log, q):\n    log.info('Queue rotated %s', q)\n");
    graph *g = index_dir("lgfile");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const struct {
        const char *text, *logger, *want;
        map_ambiguity amb;
    } t[] = {
        /* before anything of its logger: tied */
        {"Sending message <a>", "piper", NULL, MAP_AMB_TIED},
        {"Message sent <b>", "relay", "smtp.Smtp.send", MAP_AMB_NONE},
        {"Error occurred when piping <c>", "piper", "sendmail.Sendmail.send", MAP_AMB_NONE},
        {"Sending message <d>", "piper", "sendmail.Sendmail.send", MAP_AMB_LOGGER},
        {"Sending message <e>", "relay", "smtp.Smtp.send", MAP_AMB_LOGGER},
        /* a logger never seen, or none: tied */
        {"Sending message <f>", "other", NULL, MAP_AMB_TIED},
        {"Sending message <g>", NULL, NULL, MAP_AMB_TIED},
        /* once most of its messages come from elsewhere, its one message
         * from the candidate's file names nothing */
        {"Queue rotated <h>", "piper", "spool.rotate", MAP_AMB_NONE},
        {"Queue rotated <i>", "piper", "spool.rotate", MAP_AMB_NONE},
        {"Sending message <j>", "piper", NULL, MAP_AMB_TIED},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const char *level = strncmp(t[i].text, "Error", 5) == 0 ? "ERROR" : "INFO";
        map_activity pa = map_logged(mp, t[i].text, t[i].logger, level);
        CHECK_INT(pa.amb, t[i].amb);
        if (t[i].want) {
            CHECK_INT(pa.nsyms, 1);
            CHECK_INT(pa.syms[0], unit_sym(g, t[i].want));
        } else {
            CHECK_INT(pa.nsyms, 2);
        }
    }
    /* A logger that logs from both candidates' files, however much more
     * from one (a library's two implementations, each case running one),
     * says only which runs more often: tied. */
    char text[64];
    for (int i = 0; i < 12; i++) {
        snprintf(text, sizeof text, "Message sent <m%d>", i);
        CHECK_INT(map_logged(mp, text, "relay", "INFO").amb, MAP_AMB_NONE);
    }
    CHECK_INT(map_logged(mp, "Error occurred when piping <z>", "relay", "ERROR").amb, MAP_AMB_NONE);
    map_activity pa = map_logged(mp, "Sending message <k>", "relay", "INFO");
    CHECK_INT(pa.amb, MAP_AMB_TIED);
    CHECK_INT(pa.nsyms, 2);
    map_mapper_free(mp);
    graph_close(g);
}

/* A client and a server log one text alike, and a protocol module logs
 * for both through whichever side's logger it was handed: each side's
 * logger sends most of its messages from the protocol module, and still
 * every message of the client's file comes through the client's logger,
 * none of the server's. */
static const char lgside_client_py[] = "class Client:\n"
                                       "    def connect(self):\n"
                                       "        self.log.debug('Connecting to %s', self.host)\n"
                                       "    def closed(self):\n"
                                       "        self.log.debug('Socket closed')\n"
                                       "        self.log.debug('Connection reset')\n";
static const char lgside_server_py[] = "class Server:\n"
                                       "    def accept(self):\n"
                                       "        self.log.debug('Accepted peer %s', self.peer)\n"
                                       "    def closed(self):\n"
                                       "        self.log.debug('Socket closed')\n";
static const char lgside_proto_py[] = "class Protocol:\n"
                                      "    def send(self, p):\n"
                                      "        self.log.debug('Outbound packet %s', p)\n"
                                      "    def reset(self):\n"
                                      "        self.log.debug('Connection reset')\n";

/* The two sides' messages and the protocol module's, for each side:
 * through its own logger, or, without loggers, the server's with the
 * time before each (digits that change from record to record). */
static void feed_sides(map_mapper *mp, bool by_logger)
{
    char deco[32], text[96];
    for (int i = 0; i < 30; i++) {
        const char *logger = by_logger ? i % 2 ? "side/server" : "side/client" : NULL;
        deco[0] = 0;
        if (!by_logger && i % 2)
            snprintf(deco, sizeof deco, "[%d.%03d] ", 1000 + i, 7 * i);
        snprintf(text, sizeof text, "%sOutbound packet <%d>", deco, i);
        map_logged(mp, text, logger, "DEBUG");
        snprintf(text, sizeof text, i % 2 ? "%sAccepted peer <%d>" : "%sConnecting to <%d>", deco,
                 i);
        if (i < 20)
            map_logged(mp, text, logger, "DEBUG");
    }
}

/* Maps text of logger and checks it went to want alone (by its logger
 * or decoration), or, want NULL, stayed tied between two. */
static void check_side(map_mapper *mp, const graph *g, const char *text, const char *logger,
                       const char *want)
{
    map_activity pa = map_logged(mp, text, logger, "DEBUG");
    CHECK_INT(pa.amb, want ? MAP_AMB_LOGGER : MAP_AMB_TIED);
    CHECK_INT(pa.nsyms, want ? 1 : 2);
    if (want)
        CHECK_INT(pa.syms[0], unit_sym(g, want));
}

TEST(mapper_duplicates_in_the_file_that_logs_through_their_logger)
{
    unit_write_str("lgside/client.py", lgside_client_py);
    unit_write_str("lgside/server.py", lgside_server_py);
    unit_write_str("lgside/protocol.py", lgside_proto_py);
    graph *g = index_dir("lgside");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    /* before the files have shown their loggers: tied, and so cached */
    check_side(mp, g, "Socket closed", "side/client", NULL);
    feed_sides(mp, true);
    check_side(mp, g, "Socket closed", "side/client", "client.Client.closed");
    check_side(mp, g, "Socket closed", "side/server", "server.Server.closed");
    check_side(mp, g, "Socket closed", "side/other", NULL);
    /* the protocol module logs through both: its text and the client's
     * stay tied whichever logger it came through */
    check_side(mp, g, "Connection reset", "side/client", NULL);
    map_mapper_free(mp);

    /* No logger at all, but the server's side logs through a function
     * that puts the time before each message: the decoration's shape
     * (its numbers aside) tells the sides apart as a logger would. */
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    feed_sides(mp, false);
    check_side(mp, g, "Socket closed", NULL, "client.Client.closed");
    check_side(mp, g, "[2001.5] Socket closed", NULL, "server.Server.closed");
    check_side(mp, g, "<2001.5> Socket closed", NULL, NULL);
    map_mapper_free(mp);
    graph_close(g);
}

/* A library with no logger hands its messages to its users as events
 * (`emit('debug', text)`), and they log the text alone: the words before
 * a sentence may be an event's name and a level, not the message. A
 * pair of names (`setHeader('Content-Type', 'text/html')`) stays one
 * candidate. */
static const char evlog_js[] = "const EventEmitter = require('events');\n"
                               "class Conn extends EventEmitter {\n"
                               "  open(host) {\n"
                               "    this.emit('debug', `handshake started with ${host}`);\n"
                               "    this.res.setHeader('Content-Type', 'text/html');\n"
                               "  }\n"
                               "  close(reason) {\n"
                               "    this.emit('log', 'warn', 'closing because ' + reason);\n"
                               "  }\n"
                               "}\n"
                               "module.exports = Conn;\n";

/* The candidate calls' sites of qualname at line (up to cap in out). */
static uint32_t calls_at(const graph *g, const char *qualname, uint32_t line, graph_emit *out,
                         uint32_t cap)
{
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, qualname), &first), found = 0;
    for (uint32_t i = 0; i < n && found < cap; i++) {
        graph_get_emit(g, first + i, &out[found]);
        found += out[found].kind == GRAPH_EMIT_CALL && out[found].line == line;
    }
    return found;
}

TEST(mapper_message_after_an_event_name)
{
    unit_write_str("evlog/conn.js", evlog_js);
    graph *g = index_dir("evlog");
    graph_emit es[8];
    CHECK_INT(calls_at(g, "conn.Conn.open", 4, es, 8), 2);
    CHECK_STR(es[0].tmpl, "debug %s");
    CHECK_STR(es[1].tmpl, "handshake started with %s");
    CHECK_INT(calls_at(g, "conn.Conn.open", 5, es, 8), 1);
    CHECK_INT(calls_at(g, "conn.Conn.close", 8, es, 8), 2);
    CHECK_STR(es[1].tmpl, "closing because %s");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const struct {
        const char *text, *want;
    } t[] = {
        {"handshake started with db.local", "conn.Conn.open"},
        {"closing because timeout", "conn.Conn.close"},
        {"debug handshake started with db.local", "conn.Conn.open"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        map_activity pa = map_logged(mp, t[i].text, NULL, NULL);
        CHECK_INT(pa.nsyms, 1);
        CHECK_INT(pa.syms[0], unit_sym(g, t[i].want));
    }
    map_mapper_free(mp);
    graph_close(g);
}

/* Two functions log one template through the logger their caller hands
 * them, and one file also logs a message of its own through it: the
 * logger is the caller's choice, and says nothing of which of the two
 * logged. */
TEST(mapper_duplicates_not_told_by_a_logger_handed_in)
{
    unit_write_str("lghand/run_a.py", "def run(log, job):\n"
                                      "    log.info('Running job %s', job)\n"
                                      "def start(log):\n"
                                      "    log.info('Executor started')\n");
    unit_write_str("lghand/run_b.py", "async def run(log, job):\n"
                                      "    log.info('Running job %s', job)\n");
    graph *g = index_dir("lghand");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    const char *texts[] = {"Executor started", "Executor started", "Running job <a>"};
    map_activity pa;
    for (size_t i = 0; i < 3; i++)
        pa = map_logged(mp, texts[i], "executor", "INFO");
    CHECK_INT(pa.amb, MAP_AMB_TIED);
    CHECK_INT(pa.nsyms, 2);
    map_mapper_free(mp);
    graph_close(g);
}

/* Variants (a subclass overriding its base's method) share the base's
 * logger and its file: a message of the base that both run says nothing
 * of which one logs. */
static const char lgvar_base_py[] = "class Client:\n"
                                    "    def __init__(self, logger):\n"
                                    "        self.logger = logger\n"
                                    "    def connect(self):\n"
                                    "        self.logger.info('Connected to %s', self)\n"
                                    "    def ping(self):\n"
                                    "        self.logger.info('Ping sent %s', self)\n";
static const char lgvar_aio_py[] = "from .base import Client\n"
                                   "class AsyncClient(Client):\n"
                                   "    def connect(self):\n"
                                   "        self.logger.info('Connected to %s', self)\n";

TEST(mapper_variants_not_told_apart_by_their_logger)
{
    unit_write_str("lgvar/pkg/__init__.py", "");
    unit_write_str("lgvar/pkg/base.py", lgvar_base_py);
    unit_write_str("lgvar/pkg/aio.py", lgvar_aio_py);
    graph *g = index_dir("lgvar");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    const char *texts[] = {"Ping sent <a>", "Ping sent <b>", "Connected to <c>"};
    map_activity pa;
    for (size_t i = 0; i < 3; i++)
        pa = map_logged(mp, texts[i], "wire", "INFO");
    CHECK_INT(pa.amb, MAP_AMB_TIED);
    CHECK_INT(pa.nsyms, 2);
    map_mapper_free(mp);
    graph_close(g);
}

TEST(mapper_duplicates_named_by_the_message)
{
    unit_write_str("named/proto.py", named_py);
    graph *g = index_dir("named");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const struct {
        const char *text, *want;
        map_ambiguity amb;
    } t[] = {
        {"<ClientProtocol peer=1>: connection made", "proto.ClientProtocol.made", MAP_AMB_MESSAGE},
        {"<ServerProtocol peer=2>: connection made", "proto.ServerProtocol.made", MAP_AMB_MESSAGE},
        /* a name inside a longer identifier names nothing */
        {"<MyClientProtocolX>: connection made", NULL, MAP_AMB_TIED},
        /* both names: neither */
        {"ClientProtocol to ServerProtocol: connection made", NULL, MAP_AMB_TIED},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        map_event ev = {.text = t[i].text, .len = strlen(t[i].text), .learn = true};
        uint32_t a, v;
        map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
        map_activity pa;
        map_mapper_activity(mp, a, &pa);
        CHECK_INT(pa.amb, t[i].amb);
        if (t[i].want) {
            CHECK_INT(pa.nsyms, 1);
            CHECK_INT(pa.syms[0], unit_sym(g, t[i].want));
        } else {
            CHECK_INT(pa.nsyms, 2);
        }
    }
    map_mapper_free(mp);
    graph_close(g);
}

/* A synchronous client and its asynchronous variant, a subclass that
 * overrides the methods that log: the same text at two sites each. The
 * base's constructor runs for both; each variant has a text of its own
 * (the subclass's own method, and the base's method it overrides). */
static const char variants_client_py[] =
    "import logging\n"
    "log = logging.getLogger('pkg.client')\n"
    "class Client(object):\n"
    "    def __init__(self, mode):\n"
    "        log.info('Client initialized for %s.', mode)\n"
    "    def connect(self, url):\n"
    "        log.info('Attempting connection to %s', url)\n"
    "        self._send('OPEN')\n"
    "    def _send(self, pkt):\n"
    "        log.info('Sending packet %s', pkt)\n"
    "    def _read_loop(self):\n"
    "        log.info('Read loop: connection closed, aborting')\n";
static const char variants_async_py[] =
    "import logging\n"
    "from pkg import client\n"
    "log = logging.getLogger('pkg.client')\n"
    "class AsyncClient(client.Client):\n"
    "    async def connect(self, url):\n"
    "        log.info('Attempting connection to %s', url)\n"
    "        await self._send('OPEN')\n"
    "    async def _send(self, pkt):\n"
    "        log.info('Sending packet %s', pkt)\n"
    "    async def _read_loop(self):\n"
    "        log.info('Read loop: cancelled')\n"
    "    async def _write_loop(self):\n"
    "        log.info('Write loop: connection closed, aborting')\n";

/* Writes the two variants above as package pkg under dir. */
static void write_variants(const char *dir)
{
    char path[256];
    static const char *const files[][2] = {{"__init__.py", ""},
                                           {"client.py", variants_client_py},
                                           {"asyncio_client.py", variants_async_py}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/pkg/%s", dir, files[i][0]);
        unit_write_str(path, files[i][1]);
    }
}

/* Maps one case's messages, each with the case's activities before it. */
static void map_case_msgs(map_mapper *mp, const char *const *msgs, uint32_t n, uint32_t *act,
                          uint32_t *var)
{
    uint32_t told[MAP_TOLD_MAX], ntold = 0;
    uint64_t seq[MAP_TOLD_MAX];
    for (uint32_t i = 0; i < n; i++) {
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
        map_mapper_map(mp, &ev, act, i, told, ntold, &act[i], &var[i]);
        map_told_note(mp, act[i], var[i], i + 1, told, seq, &ntold);
    }
}

static uint32_t only_sym(const map_mapper *mp, uint32_t act)
{
    map_activity pa;
    map_mapper_activity(mp, act, &pa);
    return pa.nsyms == 1 ? pa.syms[0] : GRAPH_NONE;
}

/* One part written twice, for threads and for asyncio, in files named
 * alike in sibling directories and logging the same texts; the classes
 * share no base. The stream each backend makes shows in one message. */
static const char twin_sync_backend_py[] = "class SyncStream:\n"
                                           "    pass\n"
                                           "class SyncBackend:\n"
                                           "    def connect(self):\n"
                                           "        return SyncStream()\n";
static const char twin_aio_backend_py[] = "class AioStream:\n"
                                          "    pass\n"
                                          "class AioBackend:\n"
                                          "    async def connect(self):\n"
                                          "        return AioStream()\n";
static const char twin_auto_backend_py[] = "class AutoBackend:\n"
                                           "    async def connect(self):\n"
                                           "        from pkg.backends.aio import AioBackend\n"
                                           "        return await AioBackend().connect()\n";
static const char twin_models_py[] = "class Request:\n"
                                     "    pass\n";
static const char twin_sync_py[] = "import logging\n"
                                   "from pkg.backends.sync import SyncBackend\n"
                                   "from pkg.models import Request\n"
                                   "log = logging.getLogger(__name__)\n"
                                   "class Connection:\n"
                                   "    def __init__(self):\n"
                                   "        self._backend = SyncBackend()\n"
                                   "    def open(self):\n"
                                   "        stream = self._backend.connect()\n"
                                   "        log.debug('connected stream=%r', stream)\n"
                                   "    def send(self, data):\n"
                                   "        log.debug('request %r', Request())\n"
                                   "        log.debug('sending %d bytes', len(data))\n";
static const char twin_async_py[] = "import logging\n"
                                    "from pkg.backends.auto import AutoBackend\n"
                                    "from pkg.models import Request\n"
                                    "log = logging.getLogger(__name__)\n"
                                    "class AsyncConnection:\n"
                                    "    def __init__(self):\n"
                                    "        self._backend = AutoBackend()\n"
                                    "    async def open(self):\n"
                                    "        stream = await self._backend.connect()\n"
                                    "        log.debug('connected stream=%r', stream)\n"
                                    "    async def send(self, data):\n"
                                    "        log.debug('request %r', Request())\n"
                                    "        log.debug('sending %d bytes', len(data))\n";

TEST(mapper_parallel_files_told_by_a_class_the_message_shows)
{
    static const char *const files[][2] = {
        {"twins/pkg/__init__.py", ""},
        {"twins/pkg/backends/__init__.py", ""},
        {"twins/pkg/_sync/__init__.py", ""},
        {"twins/pkg/_async/__init__.py", ""},
        {"twins/pkg/backends/sync.py", twin_sync_backend_py},
        {"twins/pkg/backends/aio.py", twin_aio_backend_py},
        {"twins/pkg/backends/auto.py", twin_auto_backend_py},
        {"twins/pkg/models.py", twin_models_py},
        {"twins/pkg/_sync/conn.py", twin_sync_py},
        {"twins/pkg/_async/conn.py", twin_async_py},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unit_write_str(files[i][0], files[i][1]);
    graph *g = index_dir("twins");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t sync_open = unit_sym(g, "pkg._sync.conn.Connection.open");
    uint32_t sync_send = unit_sym(g, "pkg._sync.conn.Connection.send");
    uint32_t async_open = unit_sym(g, "pkg._async.conn.AsyncConnection.open");
    uint32_t async_send = unit_sym(g, "pkg._async.conn.AsyncConnection.send");

    /* A class only one variant's code makes: its site, at once. */
    static const char *const sync_case[] = {
        "sending 5 bytes",
        "connected stream=<pkg.backends.sync.SyncStream object at 0x7f3a10>",
        "sending 7 bytes",
    };
    uint32_t act[3], var[3];
    map_case_msgs(mp, sync_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[0]), GRAPH_NONE);
    CHECK_INT(only_sym(mp, act[1]), sync_open);
    map_activity pa;
    map_mapper_activity(mp, act[1], &pa);
    CHECK_INT(pa.amb, MAP_AMB_MESSAGE);
    CHECK_INT(only_sym(mp, act[2]), sync_send);
    /* The complete case: the events before it too. */
    CHECK_INT(map_mapper_revise(mp, act, var, 3), 1);
    CHECK_INT(only_sym(mp, act[0]), sync_send);

    /* One the code makes through another part (the backend chosen at
     * run time): the nearest link still names one variant. */
    static const char *const async_case[] = {
        "sending 2 bytes",
        "connected stream=<pkg.backends.aio.AioStream object at 0x7f3a20>",
    };
    map_case_msgs(mp, async_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), async_open);
    CHECK_INT(map_mapper_revise(mp, act, var, 2), 1);
    CHECK_INT(only_sym(mp, act[0]), async_send);

    /* A class both variants use tells neither. */
    static const char *const shared_case[] = {"request <pkg.models.Request object at 0x7f3a30>"};
    map_case_msgs(mp, shared_case, 1, act, var);
    CHECK_INT(only_sym(mp, act[0]), GRAPH_NONE);
    map_mapper_free(mp);
    graph_close(g);
}

/* Two versions of one protocol, each served by a class of its own that
 * shares no base with the other, whose handlers log the same texts under
 * other names; the server holds both and each connection runs one. A
 * case tells its version by a text only that class logs, and one that
 * shows both versions side by side does not stop a later case of one
 * from telling its own. */
static const char parallel_server_py[] =
    "import logging\n"
    "log = logging.getLogger(__name__)\n"
    "class V1Commands:\n"
    "    def tree_connect(self, share):\n"
    "        log.info('Old dialect tree connect of %s', share)\n"
    "    def tree_disconnect(self, share):\n"
    "        log.info('Disconnecting share %s from the session', share)\n"
    "    def session_setup(self, user):\n"
    "        log.info('User %s authenticated successfully', user)\n"
    "class V2Commands:\n"
    "    def v2_tree_connect(self, share):\n"
    "        log.info('New dialect tree connect of %s', share)\n"
    "    def v2_tree_disconnect(self, share):\n"
    "        log.info('Disconnecting share %s from the session', share)\n"
    "    def v2_session_setup(self, user):\n"
    "        log.info('User %s authenticated successfully', user)\n"
    "class Server:\n"
    "    def __init__(self):\n"
    "        self.v1 = V1Commands()\n"
    "        self.v2 = V2Commands()\n"
    "    def handle(self, n):\n"
    "        log.info('Request %d received', n)\n";

TEST(mapper_parallel_classes_told_by_the_case)
{
    unit_write_str("parallel/proto/__init__.py", "");
    unit_write_str("parallel/proto/server.py", parallel_server_py);
    graph *g = index_dir("parallel");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t v1_off = unit_sym(g, "proto.server.V1Commands.tree_disconnect");
    uint32_t v2_off = unit_sym(g, "proto.server.V2Commands.v2_tree_disconnect");
    uint32_t v2_user = unit_sym(g, "proto.server.V2Commands.v2_session_setup");
    static const char *const v2_case[] = {
        "New dialect tree connect of DATA",
        "Disconnecting share DATA from the session",
        "User bob authenticated successfully",
    };
    uint32_t act[3], var[3];
    map_case_msgs(mp, v2_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[1]), v2_off);
    CHECK_INT(only_sym(mp, act[2]), v2_user);
    /* Both versions in one case (the class tells nothing there), then
     * a case of the first version alone, the server's own line between
     * its telling event and the text both log. */
    static const char *const mixed_case[] = {
        "Old dialect tree connect of PUB",
        "New dialect tree connect of DATA",
        "Disconnecting share DATA from the session",
    };
    map_case_msgs(mp, mixed_case, 3, act, var);
    static const char *const v1_case[] = {
        "Old dialect tree connect of PUB",
        "Request 7 received",
        "Disconnecting share PUB from the session",
    };
    map_case_msgs(mp, v1_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[2]), v1_off);
    map_mapper_free(mp);
    graph_close(g);
}

TEST(mapper_variants_told_by_the_case)
{
    write_variants("variants");
    graph *g = index_dir("variants");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t async_send = unit_sym(g, "pkg.asyncio_client.AsyncClient._send");
    uint32_t async_connect = unit_sym(g, "pkg.asyncio_client.AsyncClient.connect");
    uint32_t sync_send = unit_sym(g, "pkg.client.Client._send");
    uint32_t sync_connect = unit_sym(g, "pkg.client.Client.connect");

    /* The base's call self._send('OPEN') may reach either variant's
     * _send: the literal names neither (both are handed it). */
    static const char *const async_case[] = {
        "Client initialized for asyncio.",
        "Attempting connection to ws://a",
        "Sending packet OPEN",
        "Write loop: connection closed, aborting",
        "Sending packet PING",
        "Attempting connection to ws://b",
    };
    uint32_t act[6], var[6];
    map_case_msgs(mp, async_case, 6, act, var);
    map_activity pa;
    map_mapper_activity(mp, act[2], &pa);
    CHECK_INT(pa.amb, MAP_AMB_TIED);
    CHECK_INT(pa.nsyms, 2);
    /* Running: the constructor both variants inherit tells nothing, so
     * the events before the variant's own text stay with both sites... */
    CHECK_INT(only_sym(mp, act[1]), GRAPH_NONE);
    /* ...and after it, the variant's sites (the overrides an object of
     * the class runs), the ones decided so telling the next ones. */
    CHECK_INT(only_sym(mp, act[4]), async_send);
    CHECK_INT(only_sym(mp, act[5]), async_connect);
    map_mapper_activity(mp, act[4], &pa);
    CHECK_INT(pa.amb, MAP_AMB_CASE);

    /* The case complete: its first events too, their variants kept. */
    const char *vt_before;
    map_mapper_variant(mp, var[1], &vt_before);
    CHECK_INT(map_mapper_revise(mp, act, var, 6), 2);
    CHECK_INT(only_sym(mp, act[1]), async_connect);
    CHECK_INT(only_sym(mp, act[2]), async_send);
    CHECK_INT(only_sym(mp, act[4]), async_send);
    const char *vt_after;
    CHECK_INT(map_mapper_variant(mp, var[1], &vt_after), act[1]);
    CHECK_STR(vt_after, vt_before);

    /* The other variant, told by its own text at the end. */
    static const char *const sync_case[] = {
        "Client initialized for threading.",
        "Attempting connection to ws://c",
        "Sending packet OPEN",
        "Read loop: connection closed, aborting",
    };
    map_case_msgs(mp, sync_case, 4, act, var);
    CHECK_INT(map_mapper_revise(mp, act, var, 4), 2);
    CHECK_INT(only_sym(mp, act[1]), sync_connect);
    CHECK_INT(only_sym(mp, act[2]), sync_send);

    /* Both variants' own texts: the case runs both, and its sites decide
     * nothing; what the recent events chose stands. */
    static const char *const both_case[] = {
        "Write loop: connection closed, aborting",
        "Read loop: connection closed, aborting",
        "Attempting connection to ws://e",
    };
    map_case_msgs(mp, both_case, 3, act, var);
    uint32_t online = act[2];
    CHECK_INT(map_mapper_revise(mp, act, var, 3), 0);
    CHECK_INT(act[2], online);
    /* Seen side by side once, that template's variants are told apart by
     * nearness from then on; the others still by the case. */
    map_case_msgs(mp, async_case, 6, act, var);
    online = act[1];
    map_mapper_revise(mp, act, var, 6);
    CHECK_INT(act[1], online);
    CHECK_INT(only_sym(mp, act[2]), async_send);

    /* Nothing but what both variants run: all the sites stay. */
    static const char *const blind_case[] = {
        "Client initialized for threading.",
        "Attempting connection to ws://d",
        "Sending packet OPEN",
    };
    map_case_msgs(mp, blind_case, 3, act, var);
    CHECK_INT(map_mapper_revise(mp, act, var, 3), 0);
    CHECK_INT(only_sym(mp, act[1]), GRAPH_NONE);
    CHECK_INT(only_sym(mp, act[2]), GRAPH_NONE);
    map_mapper_free(mp);
    graph_close(g);
}

/* The files a logger was seen logging from, when more qualify than are
 * asked for: those with the most of its messages, not the graph's first
 * files (every database's driver logs the statements the base hands its
 * query runner; the one that runs logs more). */
TEST(mapper_logger_files_by_their_messages)
{
    char path[64], src[256];
    for (int k = 0; k < 12; k++) {
        snprintf(path, sizeof path, "lfiles/pkg/m%02d.py", k);
        snprintf(src, sizeof src,
                 "import logging\n"
                 "log = logging.getLogger(__name__)\n"
                 "def stage(x):\n"
                 "    log.info('stage %%s done', x)\n"
                 "def own(x):\n"
                 "    log.info('module m%02d alone did %%s', x)\n",
                 k);
        unit_write_str(path, src);
    }
    unit_write_str("lfiles/pkg/__init__.py", "");
    graph *g = index_dir("lfiles");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    char msg[64];
    for (int i = 0; i < 20; i++) {
        snprintf(msg, sizeof msg, "stage %d done", i);
        map_event ev = {.text = msg, .len = strlen(msg), .logger = "app", .learn = true};
        uint32_t a, v;
        map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(msg, sizeof msg, "module m11 alone did %d", i);
        map_event ev = {.text = msg, .len = strlen(msg), .logger = "app", .learn = true};
        uint32_t a, v;
        map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &a, &v);
    }
    uint32_t files[10];
    CHECK_INT(map__logger_files(mp, "app", files, 10), 10);
    graph_file_info f;
    graph_get_file(g, files[0], &f);
    CHECK(strstr(f.path, "m11.py") != NULL);
    CHECK_INT(map__logger_files(mp, "nobody", files, 10), 0);
    map_mapper_free(mp);
    graph_close(g);
}

/* A statement a builder holds, logged by the runner that runs it through
 * the logger whose other messages come from the runner's file: not by a
 * function far away that logs an error of its own (the constants'
 * strategy), but where that logger logs text made at run time. */
TEST(mapper_constant_placed_by_its_logger)
{
    unit_write_str("cheld/pkg/__init__.py", "");
    unit_write_str("cheld/pkg/runner.py", "import logging\n"
                                          "log = logging.getLogger('db')\n"
                                          "class Runner:\n"
                                          "    def query(self, sql):\n"
                                          "        log.info(sql)\n"
                                          "        self.conn.execute(sql)\n"
                                          "    def run_all(self, queries):\n"
                                          "        for q in queries:\n"
                                          "            self.query(q.sql)\n"
                                          "    def begin(self, name):\n"
                                          "        log.info('runner begins %s', name)\n");
    unit_write_str("cheld/pkg/builder.py",
                   "from pkg.runner import Runner\n"
                   "class Query:\n"
                   "    def __init__(self, sql):\n"
                   "        self.sql = sql\n"
                   "def create(runner, name, cols):\n"
                   "    runner.run_all([Query('CREATE TABLE %s (%s)' % (name, cols))])\n");
    unit_write_str("cheld/pkg/cache.py", "import logging\n"
                                         "from pkg.builder import create\n"
                                         "log = logging.getLogger('cache')\n"
                                         "def connect(client):\n"
                                         "    try:\n"
                                         "        client.open()\n"
                                         "    except OSError as err:\n"
                                         "        log.warning(err)\n"
                                         "def prepare(runner):\n"
                                         "    create(runner, 't', 'a')\n"
                                         "    connect(None)\n");
    graph *g = index_dir("cheld");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    char msg[64];
    uint32_t a = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(msg, sizeof msg, "runner begins w%d", i);
        map_one(mp, msg, "db", NULL, true, NULL);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(msg, sizeof msg, "CREATE TABLE t%d (a int)", i);
        a = map_one(mp, msg, "db", NULL, false, NULL);
    }
    map_activity pa = finished(mp, a);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK(pa.nsyms >= 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.runner.Runner.query"));
    map_mapper_free(mp);
    /* A logger that brings nothing else says nothing against the
     * constants' answer (the constant's own file is not where the
     * logger logs). */
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    for (int i = 0; i < 3; i++) {
        snprintf(msg, sizeof msg, "CREATE TABLE t%d (a int)", i);
        a = map_one(mp, msg, "solo", NULL, false, NULL);
    }
    pa = finished(mp, a);
    CHECK_INT(pa.strategy, MAP_BY_CONST);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.cache.connect"));
    map_mapper_free(mp);
    graph_close(g);
}

/* A file logger's tag renders any statement it is handed: next to the
 * logger's own messages, a statement that no template renders is not the
 * tag's (where the case was), but the runner's that the logger's other
 * statements came from. */
TEST(mapper_tag_is_nowhere_a_case_was)
{
    unit_write_str("tagpos/pkg/__init__.py", "");
    unit_write_str("tagpos/pkg/runner.py", "import logging\n"
                                           "log = logging.getLogger('db')\n"
                                           "class Runner:\n"
                                           "    def query(self, sql):\n"
                                           "        log.info(sql)\n"
                                           "        self.conn.execute(sql)\n"
                                           "    def commit(self, n):\n"
                                           "        self.query('COMMIT WORK NUMBER %d' % n)\n");
    unit_write_str("tagpos/pkg/filelog.py",
                   "import logging\n"
                   "log = logging.getLogger('db')\n"
                   "class FileLog:\n"
                   "    def write_log(self, kind, message):\n"
                   "        lines = []\n"
                   "        if kind == 'query':\n"
                   "            lines.append('[QUERY]: %s' % message)\n"
                   "        else:\n"
                   "            lines.append('[INFO]: log file %s opened' % message)\n"
                   "        self.out.write(lines)\n");
    graph *g = index_dir("tagpos");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    char msg[64];
    uint32_t a = 0;
    for (int i = 0; i < 10; i++) {
        snprintf(msg, sizeof msg, "[INFO]: log file /f%d opened", i);
        map_one(mp, msg, "file", NULL, true, NULL);
        snprintf(msg, sizeof msg, "[QUERY]: COMMIT WORK NUMBER %d", i);
        map_one(mp, msg, "file", NULL, true, NULL);
    }
    /* A statement right after the logger's own message. */
    for (int i = 0; i < 4; i++) {
        snprintf(msg, sizeof msg, "[INFO]: log file /g%d opened", i);
        uint32_t prev = map_one(mp, msg, "file", NULL, true, NULL);
        snprintf(msg, sizeof msg, "[QUERY]: DROP TABLE t%d", i);
        a = map_one(mp, msg, "file", NULL, true, &prev);
    }
    map_activity pa = finished(mp, a);
    CHECK(pa.nsyms >= 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.runner.Runner.query"));
    map_mapper_free(mp);
    graph_close(g);
}

/* A statement no template shows, of a logger whose other messages came
 * through a wrapper of ours (a transaction's `commit work` that Tx.commit
 * hands to note): the site without text made at that wrapper's call in
 * the function that runs the statements it is handed, not another site
 * without text in the files those messages came from. */
TEST(mapper_a_statement_goes_where_its_logger_wrapper_is_called)
{
    unit_write_str("lwrap/conn.js",
                   "class Conn {\n"
                   "  constructor(logger) { this.logger = logger; }\n"
                   "  note(statement, context = {}) {\n"
                   "    this.logger.logStatement({ level: 'info', ...context, statement });\n"
                   "  }\n"
                   "  async run(statement, work) {\n"
                   "    const rows = await work();\n"
                   "    this.note(statement, { took: 1 });\n"
                   "    return rows;\n"
                   "  }\n"
                   "}\n"
                   "exports.Conn = Conn;\n");
    unit_write_str("lwrap/tx.js", "const { Conn } = require('./conn');\n"
                                  "class Tx extends Conn {\n"
                                  "  begin() { this.note('begin work'); }\n"
                                  "  commit() { this.note('commit work'); }\n"
                                  "  rollback() { this.note('rollback work'); }\n"
                                  "  report() { this.logger.info(this.state.summary()); }\n"
                                  "}\n"
                                  "exports.Tx = Tx;\n");
    graph *g = index_dir("lwrap");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const char *const said[] = {"begin work", "commit work", "rollback work"};
    uint32_t a = 0;
    char msg[64];
    for (int i = 0; i < 6; i++) {
        map_one(mp, said[i % 3], "sql", NULL, true, NULL);
        snprintf(msg, sizeof msg, "select name from users where id = %d", i);
        a = map_one(mp, msg, "sql", NULL, false, NULL);
    }
    map_activity pa = finished(mp, a);
    CHECK_ONE_SITE(pa, g, "conn.Conn.run", MAP_BY_LOGGER);
    map_mapper_free(mp);
    graph_close(g);
}

/* A statement a function writes and hands to code that logs nothing
 * itself, which prepares it and hands it on to the one function that runs
 * the work it is handed and logs the statement: that function's event,
 * not the writer's. */
TEST(mapper_a_statement_is_logged_where_it_is_run)
{
    unit_write_str("lrun/conn.js",
                   "class Conn {\n"
                   "  constructor(logger) { this.logger = logger; }\n"
                   "  async executeQuery(query, run) {\n"
                   "    const rows = await run();\n"
                   "    this.logger.debug(query);\n"
                   "    return rows;\n"
                   "  }\n"
                   "  execute(q) {\n"
                   "    const sql = this.format(q);\n"
                   "    return this.executeQuery(sql, () => this.client.all(sql));\n"
                   "  }\n"
                   "  format(q) { return q.trim(); }\n"
                   "}\n"
                   "class Driver {\n"
                   "  constructor(conn) { this.conn = conn; }\n"
                   "  execute(q) { return this.conn.execute(q); }\n"
                   "  ping() { return this.execute('select 1 from dual'); }\n"
                   "}\n"
                   "module.exports = { Conn, Driver };\n");
    unit_write_str("lrun/app.js", "const { Conn, Driver } = require('./conn');\n"
                                  "function main(logger) {\n"
                                  "  const conn = new Conn(logger);\n"
                                  "  return new Driver(conn);\n"
                                  "}\n"
                                  "module.exports = { main };\n");
    check_alone("lrun", "select 1 from dual", "sql", "conn.Conn.executeQuery", MAP_BY_TEMPLATE);
}

/* "(job-12) begin": a label its logging function put before a word a
 * wrapper's caller hands it. A call building text in the shape of the
 * whole line ("(%s) %s", three literal bytes) is no evidence of where it
 * was logged, and sets no bar for the word after the label. */
TEST(mapper_a_label_before_a_word_a_wrapper_logs)
{
    unit_write_str("llabel/tx.js", "class Tx {\n"
                                   "  constructor(logger) { this.logger = logger; }\n"
                                   "  note(statement) { this.logger.info(statement); }\n"
                                   "  begin() { this.note('begin'); }\n"
                                   "  badge(job, text) { return paint(`(${job}) ${text}`); }\n"
                                   "}\n"
                                   "module.exports = { Tx };\n");
    check_alone("llabel", "(job-12) begin", "query", "tx.Tx.begin", MAP_BY_TEMPLATE);
}

/* A statement no template shows, next to an event of a function that
 * hands "index %s" to a call that logs nothing: that literal renders the
 * statement's tail, after what would be a decoration, but a quiet call
 * renders a whole message or none, and the statement goes to the
 * logger's site without text. */
TEST(mapper_a_quiet_call_explains_no_tail)
{
    unit_write_str("ltail/db.py", "import logging\n"
                                  "log = logging.getLogger('db')\n"
                                  "class Conn:\n"
                                  "    def run(self, statement):\n"
                                  "        log.info(statement)\n"
                                  "def begin(conn):\n"
                                  "    log.info('begin work on %s', conn)\n"
                                  "    describe('index %s' % conn.name)\n");
    graph *g = index_dir("ltail");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t a1 = map_one(mp, "begin work on main", "db", "INFO", true, NULL);
    uint32_t a2 = map_one(mp, "alter table t add index i_c (c)", "db", "INFO", true, &a1);
    map_activity p1 = finished(mp, a1);
    CHECK_ONE_SITE(p1, g, "db.begin", MAP_BY_TEMPLATE);
    map_activity p2;
    map_mapper_activity(mp, a2, &p2);
    CHECK_ONE_SITE(p2, g, "db.Conn.run", MAP_BY_LOGGER);
    map_mapper_free(mp);
    graph_close(g);
}

/* A record of a logger whose text only a print's level word and hole
 * render: a child's line the logger relayed, not the print. */
TEST(mapper_a_print_of_a_level_word_writes_no_record)
{
    unit_write_str("lrelay/tool/__init__.py", "");
    unit_write_str("lrelay/tool/child.py", "import logging\n"
                                           "log = logging.getLogger(__name__)\n"
                                           "def relay(proc):\n"
                                           "    for line in proc.stdout:\n"
                                           "        log.info(line)\n");
    unit_write_str("lrelay/tool/cli.py", "import sys\n"
                                         "def main(args):\n"
                                         "    try:\n"
                                         "        run(args)\n"
                                         "    except OSError as exc:\n"
                                         "        sys.stderr.write(f'ERROR: {exc}')\n");
    graph *g = index_dir("lrelay");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t a1 = map_one(mp, "ERROR: no such file", "tool.child", "INFO", true, NULL);
    uint32_t a2 = map_one(mp, "ERROR: disk full", "", "", true, NULL);
    map_activity p1 = finished(mp, a1);
    CHECK_ONE_SITE(p1, g, "tool.child.relay", MAP_BY_LOGGER);
    map_activity p2;
    map_mapper_activity(mp, a2, &p2);
    CHECK_ONE_SITE(p2, g, "tool.cli.main", MAP_BY_TEMPLATE);
    map_mapper_free(mp);
    graph_close(g);
}

/* A message a function builds in pieces, in a list it returns joined
 * (`lines.append(...)`, `return "\n".join(lines)`), is logged by its
 * callers: a list's method logs nothing. */
TEST(mapper_pieces_of_a_returned_list_are_logged_by_the_caller)
{
    unit_write_str("lpieces/py/__init__.py", "");
    unit_write_str(
        "lpieces/py/scope.py",
        "class Scope:\n"
        "    def formatted(self):\n"
        "        lines = []\n"
        "        if self.urls:\n"
        "            lines.append('Looking in indexes: {}'.format(', '.join(self.urls)))\n"
        "        lines.append('Looking in links: %s' % self.links)\n"
        "        return '\\n'.join(lines)\n");
    unit_write_str("lpieces/py/cmd.py", "import logging\n"
                                        "log = logging.getLogger(__name__)\n"
                                        "def trace(scope):\n"
                                        "    where = scope.formatted()\n"
                                        "    if where:\n"
                                        "        log.info(where)\n");
    unit_write_str("lpieces/js/scope.js", "function formatted(s) {\n"
                                          "  const parts = [];\n"
                                          "  if (s.files) parts.push(`Serving ${s.files} files`);\n"
                                          "  parts.push('Root directory ' + s.root);\n"
                                          "  return parts.join('; ');\n"
                                          "}\n"
                                          "module.exports = { formatted };\n");
    unit_write_str("lpieces/js/main.js", "const { formatted } = require('./scope');\n"
                                         "function report(s) {\n"
                                         "  const text = formatted(s);\n"
                                         "  console.log(text);\n"
                                         "}\n"
                                         "module.exports = { report };\n");
    graph *g = index_dir("lpieces");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t a1 = map_one(mp, "Looking in links: /srv/wheels", "py.cmd", "INFO", true, NULL);
    uint32_t a2 = map_one(mp, "Root directory /srv/www", "", "", true, NULL);
    map_activity p1 = finished(mp, a1), p2;
    map_mapper_activity(mp, a2, &p2);
    CHECK_INT(p1.nsyms, 1);
    CHECK_INT(p1.syms[0], unit_sym(g, "py.cmd.trace"));
    CHECK_INT(p2.nsyms, 1);
    CHECK_INT(p2.syms[0], unit_sym(g, "js/main.report"));
    map_mapper_free(mp);
    graph_close(g);
}

/* A message no template shows that several loggers route alike (an
 * application picks a logger per run; each formats the same call's
 * message): the sites without text in the files all their other
 * messages came from. */
TEST(mapper_several_loggers_share_a_file)
{
    static const char *const mods[][2] = {{"runner", "runner starts %s"},
                                          {"other", "other says hello to %s"},
                                          {"third", "third greets %s"}};
    char path[64], src[320];
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "lmix/pkg/%s.py", mods[k][0]);
        snprintf(src, sizeof src,
                 "import logging\n"
                 "log = logging.getLogger(__name__)\n"
                 "def run_%s(text):\n"
                 "    log.info(text)\n"
                 "def hello(name):\n"
                 "    log.info('%s', name)\n",
                 mods[k][0], mods[k][1]);
        unit_write_str(path, src);
    }
    unit_write_str("lmix/pkg/__init__.py", "");
    graph *g = index_dir("lmix");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    /* Logger a's messages come from runner and other, b's from runner
     * and third. */
    static const char *const said[][2] = {{"a", "other says hello to"}, {"b", "third greets"}};
    char msg[64];
    uint32_t a = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 20; i++) {
            if (i % 2)
                snprintf(msg, sizeof msg, "%s v%d", said[l][1], i);
            else
                snprintf(msg, sizeof msg, "runner starts %s%d", said[l][0], i);
            map_one(mp, msg, said[l][0], NULL, true, NULL);
        }
    for (int i = 0; i < 6; i++) {
        snprintf(msg, sizeof msg, "SELECT %d FROM t", i);
        a = map_one(mp, msg, i % 2 ? "b" : "a", NULL, false, NULL);
    }
    map_activity pa = finished(mp, a);
    CHECK_ONE_SITE(pa, g, "pkg.runner.run_runner", MAP_BY_LOGGER);
    map_mapper_free(mp);
    graph_close(g);
}

/* The groups of a template that only variants log, where a case's own
 * events tell nothing: the variant the rest of the log runs goes first,
 * and only when the log says it clearly (no case told the other). */
TEST(mapper_variants_weighted_by_what_the_log_runs)
{
    write_variants("variants_runs");
    graph *g = index_dir("variants_runs");
    uint32_t async_connect = unit_sym(g, "pkg.asyncio_client.AsyncClient.connect");
    static const char *const async_case[] = {
        "Write loop: connection closed, aborting",
        "Attempting connection to ws://a",
        "Sending packet OPEN",
    };
    static const char *const sync_case[] = {
        "Read loop: connection closed, aborting",
        "Attempting connection to ws://c",
        "Sending packet OPEN",
    };
    static const char *const blind_case[] = {"Attempting connection to ws://d"};
    for (int sync_runs = 0; sync_runs < 2; sync_runs++) {
        map_mapper *mp;
        CHECK_OK(map_mapper_new(g, NULL, &mp));
        uint32_t act[3], var[3];
        /* Cases of the asynchronous client, each told by its own text;
         * and as many of the other, or none. */
        for (int k = 0; k < 8; k++) {
            map_case_msgs(mp, async_case, 3, act, var);
            if (sync_runs)
                map_case_msgs(mp, sync_case, 3, act, var);
        }
        map_case_msgs(mp, blind_case, 1, act, var);
        uint32_t group = act[0];
        map_activity pa;
        map_mapper_activity(mp, group, &pa);
        CHECK_INT(pa.amb, MAP_AMB_TIED);
        char why[256];
        CHECK_OK(map_mapper_finish(mp, why, sizeof why));
        map_mapper_activity(mp, group, &pa);
        CHECK_INT(pa.nsyms, 2);
        if (sync_runs) {
            /* Both run as much: nothing said. */
            CHECK_INT(pa.amb, MAP_AMB_TIED);
        } else {
            CHECK_INT(pa.amb, MAP_AMB_RUNS);
            CHECK_INT(pa.syms[0], async_connect);
            CHECK(pa.conf[0] > 10 * pa.conf[1]);
            /* Again: the same, not weighted twice. */
            float c0 = pa.conf[0];
            CHECK_OK(map_mapper_finish(mp, why, sizeof why));
            map_mapper_activity(mp, group, &pa);
            CHECK_INT(pa.syms[0], async_connect);
            CHECK(pa.conf[0] == c0);
        }
        map_mapper_free(mp);
    }
    graph_close(g);
}

TEST(mapper_variants_told_by_a_value)
{
    unit_write_modes("modes");
    /* Variants that return their scheme but do not log alike: the scheme
     * a message shows tells nothing that a site could be told apart by. */
    unit_write_str("modes/pkg/clock.py", "import logging\n"
                                         "log = logging.getLogger('pkg.clock')\n"
                                         "def tick(n):\n"
                                         "    log.info('tick %d', n)\n");
    unit_write_str("modes/pkg/web.py", "import logging\n"
                                       "log = logging.getLogger('pkg.web')\n"
                                       "class Plain(object):\n"
                                       "    def scheme(self):\n"
                                       "        return 'http'\n"
                                       "    def fetch(self):\n"
                                       "        log.info('fetching over %s', self.scheme())\n"
                                       "class Secure(Plain):\n"
                                       "    def scheme(self):\n"
                                       "        return 'https'\n");
    graph *g = index_dir("modes");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t sync_modes = unit_sym(g, "pkg.client.Client.modes");
    uint32_t async_modes = unit_sym(g, "pkg.asyncio_client.AsyncClient.modes");
    uint32_t found[4];
    CHECK_INT(unit_literal_owners(g, "threading", found, 4), 1);
    CHECK_INT(found[0], sync_modes);
    CHECK_INT(unit_literal_owners(g, "OPEN", found, 4), 2);
    CHECK_INT(unit_literal_owners(g, "threadin", found, 4), 0);

    /* The mode names the variant: the events after it are its sites. */
    static const char *const sync_case[] = {
        "Client initialized for threading.",
        "Attempting connection to ws://a",
        "Sending packet OPEN",
    };
    uint32_t act[3], var[3];
    map_case_msgs(mp, sync_case, 3, act, var);
    map_activity pa;
    map_mapper_activity(mp, act[0], &pa);
    CHECK_STR(pa.text, "Client initialized for %s. (threading)");
    CHECK_INT(only_sym(mp, act[0]), unit_sym(g, "pkg.client.Client.__init__"));
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "pkg.client.Client.connect"));
    CHECK_INT(only_sym(mp, act[2]), unit_sym(g, "pkg.client.Client._send"));
    static const char *const async_case[] = {
        "Client initialized for aiohttp.",
        "Attempting connection to ws://b",
    };
    map_case_msgs(mp, async_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "pkg.asyncio_client.AsyncClient.connect"));
    CHECK(map_mapper_find(mp, "Client initialized for %s. (aiohttp)") == act[0]);
    CHECK(async_modes != sync_modes);

    /* The case remembers the variant named once at its start, long after
     * the message left its recent events; forgotten (an event placed
     * before it), it tells nothing. */
    static const char *const long_case[] = {
        "Client initialized for threading.",
        "tick 1",
        "tick 2",
        "tick 3",
        "tick 4",
        "tick 5",
        "tick 6",
        "tick 7",
        "tick 8",
        "tick 9",
        "Attempting connection to ws://e",
    };
    uint32_t lact[11], lvar[11];
    map_case_msgs(mp, long_case, 11, lact, lvar);
    CHECK_INT(only_sym(mp, lact[10]), unit_sym(g, "pkg.client.Client.connect"));
    uint32_t told[MAP_TOLD_MAX], ntold = 0;
    uint64_t seq[MAP_TOLD_MAX];
    for (uint32_t i = 0; i < 10; i++) {
        map_told_note(mp, lact[i], lvar[i], i + 1, told, seq, &ntold);
        map_told_note(mp, lact[0], lvar[0], i + 1, told, seq, &ntold); /* once only */
    }
    CHECK_INT(ntold, 1);
    CHECK_INT(told[0], sync_modes);
    CHECK_INT(seq[0], 1);
    uint32_t a, v;
    const char *text;
    map_event ev = {.text = long_case[10], .len = strlen(long_case[10])};
    map_mapper_peek(mp, &ev, lact, 10, told, ntold, &a, &v, &text);
    CHECK_INT(a, lact[10]);
    map_told_cut(1, seq, &ntold);
    CHECK_INT(ntold, 1);
    map_told_cut(0, seq, &ntold);
    CHECK_INT(ntold, 0);
    map_mapper_peek(mp, &ev, lact, 10, told, ntold, &a, &v, &text);
    CHECK(a != lact[10]);
    CHECK_STR(text, "Attempting connection to %s");

    /* A word both variants return ('OPEN') tells neither, and a mode no
     * code returns tells nothing. */
    static const char *const blind_case[] = {
        "Client initialized for gevent.",
        "Sending packet OPEN",
        "Attempting connection to ws://c",
    };
    map_case_msgs(mp, blind_case, 3, act, var);
    map_mapper_activity(mp, act[0], &pa);
    CHECK_STR(pa.text, "Client initialized for %s.");
    CHECK_INT(only_sym(mp, act[1]), GRAPH_NONE);
    CHECK_INT(only_sym(mp, act[2]), GRAPH_NONE);
    static const char *const web_case[] = {"fetching over https"};
    map_case_msgs(mp, web_case, 1, act, var);
    map_mapper_activity(mp, act[0], &pa);
    CHECK_STR(pa.text, "fetching over %s");
    map_mapper_free(mp);
    graph_close(g);
}

/* Worker kinds a registry names by word, each a class whose sites log
 * alike; the table is long enough that a scan for literal data would
 * skip it, but the classes it names keep it. */
static const char registry_py[] = "KINDS = {\n"
                                  "    'sync': 'reg.workers.sync.SyncWorker',\n"
                                  "    'threads': 'reg.workers.threads:ThreadWork',\n"
                                  "    'gevent': 'gevent.pywsgi.WSGIServer',\n"
                                  "    'eventlet': 'eventlet.wsgi.Server',\n"
                                  "    'tornado': 'tornado.httpserver.HTTPServer',\n"
                                  "    'default': 'reg.workers.sync.SyncWorker',\n"
                                  "}\n";
static const char registry_base_py[] = "import logging\n"
                                       "log = logging.getLogger('reg.error')\n"
                                       "class Worker:\n"
                                       "    def __init__(self, cfg):\n"
                                       "        self.cfg = cfg\n"
                                       "    def handle_error(self, req):\n"
                                       "        log.error('Failed request %s', req)\n";
static const char registry_sync_py[] =
    "import logging\n"
    "from reg.workers import base\n"
    "log = logging.getLogger('reg.error')\n"
    "access = logging.getLogger('reg.access')\n"
    "class SyncWorker(base.Worker):\n"
    "    def handle_request(self, req):\n"
    "        try:\n"
    "            req.run()\n"
    "        except Exception:\n"
    "            log.exception('Error handling request')\n"
    "        access.info(self.cfg.access_log_format % req.atoms())\n";
static const char registry_arbiter_py[] =
    "import logging\n"
    "log = logging.getLogger('reg.error')\n"
    "class Arbiter:\n"
    "    def start(self, cfg):\n"
    "        log.info('Using worker: %s', cfg.worker_class)\n";
/* A site of the access logger in no worker, which the kind a case names
 * says nothing of. */
static const char registry_proxy_py[] = "import logging\n"
                                        "access = logging.getLogger('reg.access')\n"
                                        "class Proxy:\n"
                                        "    def log_request(self, line):\n"
                                        "        access.info(line.render())\n";

/* The package above under dir, indexed. */
static graph *registry_graph(const char *dir)
{
    char threads_py[sizeof registry_sync_py + 8], path[256];
    snprintf(threads_py, sizeof threads_py, "%s", registry_sync_py);
    memcpy(strstr(threads_py, "SyncWorker"), "ThreadWork", 10);
    const char *const files[][2] = {{"__init__.py", ""},
                                    {"arbiter.py", registry_arbiter_py},
                                    {"proxy.py", registry_proxy_py},
                                    {"workers/__init__.py", registry_py},
                                    {"workers/base.py", registry_base_py},
                                    {"workers/sync.py", registry_sync_py},
                                    {"workers/threads.py", threads_py}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/reg/%s", dir, files[i][0]);
        unit_write_str(path, files[i][1]);
    }
    return index_dir(dir);
}

TEST(mapper_variants_told_by_a_registry_s_word)
{
    graph *g = registry_graph("reg");
    uint32_t sync = unit_sym(g, "reg.workers.sync.SyncWorker");
    uint32_t threads = unit_sym(g, "reg.workers.threads.ThreadWork");
    uint32_t found[4];
    CHECK_INT(unit_literal_owners(g, "sync", found, 4), 1);
    CHECK_INT(found[0], sync);
    CHECK_INT(unit_literal_owners(g, "threads", found, 4), 1);
    CHECK_INT(found[0], threads);
    CHECK_INT(unit_literal_owners(g, "default", found, 4), 1);
    CHECK_INT(unit_literal_owners(g, "gevent", found, 4), 0); /* not a class of ours */

    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const char *const sync_case[] = {"Using worker: sync", "Error handling request"};
    static const char *const threads_case[] = {"Using worker: threads", "Error handling request"};
    uint32_t act[2], var[2];
    map_case_msgs(mp, sync_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "reg.workers.sync.SyncWorker.handle_request"));
    map_case_msgs(mp, threads_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "reg.workers.threads.ThreadWork.handle_request"));

    /* A placement by nearness that found one kind's step keeps the other
     * kinds' too (they log alike); a method no sibling has stays alone. */
    uint32_t syms[4] = {unit_sym(g, "reg.workers.threads.ThreadWork.handle_request")};
    double w[4] = {0.5};
    CHECK_INT(map__add_sibling_variants(g, syms, w, 1, 4), 2);
    CHECK_INT(syms[1], unit_sym(g, "reg.workers.sync.SyncWorker.handle_request"));
    CHECK(w[1] == 0.5);
    syms[0] = unit_sym(g, "reg.workers.base.Worker.handle_error");
    CHECK_INT(map__add_sibling_variants(g, syms, w, 1, 4), 1);
    map_mapper_free(mp);
    graph_close(g);
}

/* Strategies of one hierarchy: a synchronous one whose sending path logs
 * through the base's get_response, a mock subclass of it that logs the
 * same text in its own post_send, and two platform siblings logging
 * alike. The base's constructor names the object's class. */
static const char strat_base_py[] = "import logging\n"
                                    "log = logging.getLogger('pkg')\n"
                                    "class Strategy(object):\n"
                                    "    def __init__(self):\n"
                                    "        log.info('instantiated <%s>', type(self).__name__)\n"
                                    "    def get_response(self, attr):\n"
                                    "        log.info('attribute set for <%s>', attr)\n"
                                    "class SyncStrategy(Strategy):\n"
                                    "    def post_send(self, attr):\n"
                                    "        return self.get_response(attr)\n"
                                    "class PosixStrategy(Strategy):\n"
                                    "    def poll(self, fd):\n"
                                    "        log.info('polling %s', fd)\n"
                                    "class WindowsStrategy(Strategy):\n"
                                    "    def poll(self, fd):\n"
                                    "        log.info('polling %s', fd)\n";
static const char strat_mock_py[] = "import logging\n"
                                    "from pkg.base import SyncStrategy\n"
                                    "log = logging.getLogger('pkg')\n"
                                    "class MockSyncStrategy(SyncStrategy):\n"
                                    "    def post_send(self, attr):\n"
                                    "        log.info('attribute set for <%s>', attr)\n";

TEST(mapper_class_named_by_a_message)
{
    unit_write_str("strat/pkg/__init__.py", "");
    unit_write_str("strat/pkg/base.py", strat_base_py);
    unit_write_str("strat/pkg/mock.py", strat_mock_py);
    unit_write_str("strat/pkg/clock.py", "import logging\n"
                                         "log = logging.getLogger('pkg.clock')\n"
                                         "def tick(n):\n"
                                         "    log.info('tick %d', n)\n"
                                         "def hooks(found):\n"
                                         "    log.info('hooks: %s', found)\n");
    graph *g = index_dir("strat");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    uint32_t base_get = unit_sym(g, "pkg.base.Strategy.get_response");
    uint32_t mock_send = unit_sym(g, "pkg.mock.MockSyncStrategy.post_send");
    uint32_t posix_poll = unit_sym(g, "pkg.base.PosixStrategy.poll");
    uint32_t win_poll = unit_sym(g, "pkg.base.WindowsStrategy.poll");

    /* The mock's object runs its own copy of the base's path; the
     * synchronous one the base's; the case says which long before. */
    static const char *const mock_case[] = {
        "instantiated <MockSyncStrategy>",
        "tick 1",
        "tick 2",
        "tick 3",
        "tick 4",
        "tick 5",
        "tick 6",
        "tick 7",
        "tick 8",
        "tick 9",
        "attribute set for <member>",
    };
    uint32_t act[11], var[11];
    map_case_msgs(mp, mock_case, 11, act, var);
    CHECK_INT(only_sym(mp, act[10]), mock_send);
    static const char *const sync_case[] = {"instantiated <SyncStrategy>", "tick 1",
                                            "attribute set for <member>"};
    map_case_msgs(mp, sync_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[2]), base_get);
    /* A platform's object runs its own sites, not its sibling's. */
    static const char *const posix_case[] = {"instantiated <PosixStrategy>", "polling 7"};
    map_case_msgs(mp, posix_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), posix_poll);
    static const char *const win_case[] = {"instantiated <WindowsStrategy>", "polling 7"};
    map_case_msgs(mp, win_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), win_poll);
    /* Named by no message: both sites stay. Named by two that disagree:
     * the one named last is the object at work now. */
    static const char *const blind_case[] = {"instantiated <Thing>", "polling 7"};
    map_case_msgs(mp, blind_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), GRAPH_NONE);
    static const char *const both_case[] = {"instantiated <PosixStrategy>",
                                            "instantiated <WindowsStrategy>", "polling 7"};
    map_case_msgs(mp, both_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[2]), win_poll);
    /* The class is a variant's value, not an activity of its own. */
    map_activity pa;
    map_mapper_activity(mp, act[0], &pa);
    CHECK_STR(pa.text, "instantiated <%s>");
    uint32_t told[MAP_TOLD_MAX], ntold = 0;
    uint64_t seq[MAP_TOLD_MAX];
    map_told_note(mp, act[0], var[0], 1, told, seq, &ntold);
    CHECK_INT(ntold, 1);
    CHECK_INT(told[0], unit_sym(g, "pkg.base.PosixStrategy"));
    /* Code outside the hierarchy that shows an object of it (handing a
     * request to it, a dispatcher) names the class of what logs next. */
    static const char *const hooks_case[] = {"hooks: [<WindowsStrategy>]", "tick 1", "polling 7"};
    map_case_msgs(mp, hooks_case, 3, act, var);
    ntold = 0;
    map_told_note(mp, act[0], var[0], 1, told, seq, &ntold);
    CHECK_INT(ntold, 1);
    CHECK_INT(only_sym(mp, act[2]), win_poll);
    map_mapper_free(mp);
    graph_close(g);
}

/* Messages no template takes, placed where their neighbours are: a site
 * of the neighbour's own function renders them, after the logger's
 * decoration, with too little literal text to be matched anywhere. Two
 * functions log such lines after their own headers (the sending and the
 * receiving side of an exchange). */
static const char sides_py[] = "import logging\n"
                               "log = logging.getLogger('ssh')\n"
                               "def send_ext_info(exts):\n"
                               "    log.debug('Sending extension info')\n"
                               "    for name, value in exts.items():\n"
                               "        log.debug('  %s: %s', name, value)\n"
                               "    log.debug('Sent %d extensions', len(exts))\n"
                               "def process_ext_info(exts):\n"
                               "    log.debug('Received extension info')\n"
                               "    for name, value in exts.items():\n"
                               "        log.debug('  %s: %s', name, value)\n"
                               "def cleanup(msg):\n"
                               "    log.debug(msg)\n";

/* Maps case msgs[0..n) in order, its records of logger (NULL: none)
 * (recent: the case's events so far). */
static void map_in_order(map_mapper *mp, const char *const *msgs, uint32_t n, const char *logger,
                         bool learn, uint32_t *act, uint32_t *var)
{
    for (uint32_t i = 0; i < n; i++) {
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .logger = logger, .learn = learn};
        map_mapper_map(mp, &ev, act, i, NULL, 0, &act[i], &var[i]);
    }
}

/* Maps three training cases of msgs[0..n) (n <= 8); act: the activities
 * of the last. */
static void map_case_thrice(map_mapper *mp, const char *const *msgs, uint32_t n, const char *logger,
                            uint32_t *act)
{
    uint32_t var[8];
    CHECK(n <= 8);
    for (int c = 0; c < 3; c++)
        map_in_order(mp, msgs, n, logger, true, act, var);
}

/* A record: its message, level and logger. */
typedef struct case_rec {
    const char *text, *level, *logger;
} case_rec;

/* Maps case r[0..n) in order (n <= 8), as map_in_order does; var (NULL:
 * not wanted): the variants. */
static void map_recs(map_mapper *mp, const case_rec *r, uint32_t n, bool learn, uint32_t *act,
                     uint32_t *var)
{
    uint32_t own[8];
    if (!var)
        var = own;
    CHECK(n <= 8);
    for (uint32_t i = 0; i < n; i++) {
        map_event ev = {.text = r[i].text,
                        .len = strlen(r[i].text),
                        .logger = r[i].logger,
                        .level = r[i].level,
                        .learn = learn};
        map_mapper_map(mp, &ev, act, i, NULL, 0, &act[i], &var[i]);
    }
}

/* A mapper of source src, written to path under dir and indexed (*g),
 * trained on `times` cases of r[0..n) and finished; act: the activities
 * of the last. */
static map_mapper *trained_on(const char *dir, const char *path, const char *src, const case_rec *r,
                              uint32_t n, int times, uint32_t *act, graph **g)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, path);
    unit_write_str(p, src);
    *g = index_dir(dir);
    map_mapper *mp;
    CHECK_OK(map_mapper_new(*g, NULL, &mp));
    for (int c = 0; c < times; c++)
        map_recs(mp, r, n, true, act, NULL);
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    return mp;
}

TEST(mapper_places_messages_by_position)
{
    unit_write_str("pos/ssh.py", sides_py);
    graph *g = index_dir("pos");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    const char *trace[] = {"[conn=0] Sending extension info", "[conn=0]   server-sig-algs: a,b",
                           "[conn=0] Sent 1 extensions"};
    uint32_t recent[3];
    map_case_thrice(mp, trace, 3, "ssh", recent);
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_activity pa;
    map_mapper_activity(mp, recent[1], &pa);
    CHECK_ONE_SITE(pa, g, "ssh.send_ext_info", MAP_BY_LOGGER);
    map_mapper_free(mp);
    graph_close(g);
}

/* A hook's default, called by the function its case's other events
 * come from, logs a request's method and path with one literal space
 * (`"%s %s"`) through an object the code cannot type: the logging
 * class's own site, which names the records' logger, is not where the
 * message comes from; the function the case was in calls the hook. */
static const char hook_py[] = "import logging\n"
                              "class Logger:\n"
                              "    LEVELS = {'debug': logging.DEBUG}\n"
                              "    def __init__(self):\n"
                              "        self.error_log = logging.getLogger('srv.error')\n"
                              "    def log(self, lvl, msg, *args):\n"
                              "        lvl = self.LEVELS.get(lvl, lvl)\n"
                              "        self.error_log.log(lvl, msg, *args)\n"
                              "class PreRequest:\n"
                              "    def pre_request(worker, req):\n"
                              "        worker.log.debug('%s %s', req.method, req.path)\n"
                              "class Worker:\n"
                              "    def __init__(self, cfg, log):\n"
                              "        self.cfg = cfg\n"
                              "        self.log = log\n"
                              "    def handle(self, req):\n"
                              "        self.cfg.pre_request(self, req)\n"
                              "        self.log.info('Request done: %s', req.path)\n"
                              "        self.log.info('Closing connection.')\n";

TEST(mapper_places_messages_in_what_the_case_s_function_calls)
{
    /* Not what the hook renders: "Ready" (no space), a sentence (its
     * holes would hold spaces), a path at another level than the hook's. */
    static const case_rec r[] = {{"GET /ok", "DEBUG", "srv.error"},
                                 {"Request done: /ok", "INFO", "srv.error"},
                                 {"Closing connection.", "INFO", "srv.error"},
                                 {"Ready", "DEBUG", "srv.error"},
                                 {"Connection 0 left intact", "DEBUG", "srv.error"},
                                 {"PUT /x", "ERROR", "srv.error"}};
    uint32_t act[6];
    graph *g;
    map_mapper *mp = trained_on("hook", "srv.py", hook_py, r, 6, 3, act, &g);
    map_activity pa;
    map_mapper_activity(mp, act[0], &pa);
    CHECK_ONE_SITE(pa, g, "srv.PreRequest.pre_request", MAP_BY_LOGGER);
    for (uint32_t i = 3; i < 6; i++) {
        map_mapper_activity(mp, act[i], &pa);
        CHECK(pa.nsyms > 0);
        CHECK(pa.syms[0] != unit_sym(g, "srv.PreRequest.pre_request"));
    }
    map_mapper_free(mp);
    graph_close(g);
}

/* The same shape where the logger also has a site of its own without
 * text, in a function that logs what it makes (a client's debug
 * callback): that site may be where a sentence with a space comes from,
 * and the shape alone does not rule it out. */
static const char callback_py[] = "import logging\n"
                                  "log = logging.getLogger('cb')\n"
                                  "class Client:\n"
                                  "    def setup(self, req):\n"
                                  "        log.info('Request prepared: %s', req.path)\n"
                                  "        log.debug('%s %s', req.method, req.url)\n"
                                  "    def on_debug(self, kind, raw):\n"
                                  "        text = raw.decode().strip()\n"
                                  "        log.debug('%s', text)\n";

TEST(mapper_keeps_a_logger_s_own_sites_beside_a_shape)
{
    static const case_rec r[] = {{"Request prepared: /a", "INFO", "cb"},
                                 {"Trying 10.0.0.1...", "DEBUG", "cb"}};
    uint32_t act[2];
    graph *g;
    map_mapper *mp = trained_on("cb", "cb.py", callback_py, r, 2, 3, act, &g);
    map_activity pa;
    map_mapper_activity(mp, act[1], &pa);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 2);
    map_mapper_free(mp);
    graph_close(g);
}

/* An access line in a format the configuration holds, logged by the
 * logging class for the function that served the request or the one
 * that failed it, as near to the lines around it in the code: each line
 * goes to the one its case was just in. */
static const char access_py[] =
    "import logging\n"
    "import traceback\n"
    "class AccessLogFormat:\n"
    "    name = 'access_log_format'\n"
    "    default = '%(h)s \"%(r)s\" %(s)s'\n"
    "class Logger:\n"
    "    def __init__(self, cfg):\n"
    "        self.cfg = cfg\n"
    "        self.error_log = logging.getLogger('srv.error')\n"
    "        self.access_log = logging.getLogger('srv.access')\n"
    "    def error(self, msg, *args):\n"
    "        self.error_log.error(msg, *args)\n"
    "    def info(self, msg, *args):\n"
    "        self.error_log.info(msg, *args)\n"
    "    def atoms(self, req, status):\n"
    "        return {'h': req.peer, 'r': req.line, 's': status}\n"
    "    def access(self, req, status):\n"
    "        atoms = self.atoms(req, status)\n"
    "        try:\n"
    "            self.access_log.info(self.cfg.access_log_format, atoms)\n"
    "        except Exception:\n"
    "            self.error(traceback.format_exc())\n"
    "class Worker:\n"
    "    def __init__(self, log):\n"
    "        self.log = log\n"
    "    def serve(self, req):\n"
    "        self.log.info('Serving %s', req.path)\n"
    "        self.log.access(req, 200)\n"
    "    def fail(self, req, exc):\n"
    "        self.log.error('Failed request %s', req.path)\n"
    "        self.log.access(req, 500)\n";

TEST(mapper_tells_a_constant_s_callers_apart_by_the_case)
{
    static const case_rec r[] = {{"Serving /a", "INFO", "srv.error"},
                                 {"10.0.0.1 \"GET /a HTTP/1.1\" 200", "INFO", "srv.access"},
                                 {"Failed request /b", "ERROR", "srv.error"},
                                 {"10.0.0.1 \"GET /b HTTP/1.1\" 500", "INFO", "srv.access"},
                                 {"Serving /c", "INFO", "srv.error"},
                                 {"10.0.0.1 \"GET /c HTTP/1.1\" 200", "INFO", "srv.access"}};
    uint32_t act[6];
    graph *g;
    map_mapper *mp = trained_on("access", "srv.py", access_py, r, 6, 4, act, &g);
    uint32_t serve = unit_sym(g, "srv.Worker.serve"), fail = unit_sym(g, "srv.Worker.fail");
    map_activity pa;
    map_mapper_activity(mp, act[1], &pa);
    CHECK_INT(pa.strategy, MAP_BY_CONST);
    CHECK_INT(pa.nsyms, 2);
    uint32_t var[6] = {0};
    CHECK_INT(map_mapper_place(mp, act, var, 6), 3);
    CHECK_INT(only_sym(mp, act[1]), serve);
    CHECK_INT(only_sym(mp, act[3]), fail);
    CHECK_INT(only_sym(mp, act[5]), serve);
    /* Lines mapped from then on, new ones and ones seen in training, each
     * with a variant of its own activity. */
    static const case_rec later[] = {{"Failed request /d", "ERROR", "srv.error"},
                                     {"10.0.0.2 \"GET /d HTTP/1.1\" 500", "INFO", "srv.access"},
                                     {"Serving /e", "INFO", "srv.error"},
                                     {"10.0.0.2 \"GET /e HTTP/1.1\" 200", "INFO", "srv.access"}};
    uint32_t v[6];
    map_recs(mp, later, 4, false, act, v);
    CHECK_INT(only_sym(mp, act[1]), fail);
    CHECK_INT(only_sym(mp, act[3]), serve);
    CHECK_INT(map_mapper_variant(mp, v[1], NULL), act[1]);
    CHECK_INT(map_mapper_variant(mp, v[3], NULL), act[3]);
    map_recs(mp, r + 2, 2, false, act, v);
    CHECK_INT(only_sym(mp, act[1]), fail);
    CHECK_INT(map_mapper_variant(mp, v[1], NULL), act[1]);
    map_recs(mp, r, 2, false, act, v);
    CHECK_INT(only_sym(mp, act[1]), serve);
    map_mapper_free(mp);
    graph_close(g);
}

/* An access line in a configured format, which only its logger places:
 * at each worker kind's step that logs one, and each event at the kind
 * its case named. */
TEST(mapper_worker_kind_picks_among_a_logger_s_sites)
{
    graph *g = registry_graph("regacc");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    static const case_rec sync_case[] = {{"Using worker: sync", "INFO", "reg.error"},
                                         {"10.0.0.1 GET /a 200", "INFO", "reg.access"}};
    static const case_rec threads_case[] = {{"Using worker: threads", "INFO", "reg.error"},
                                            {"10.0.0.1 GET /a 200", "INFO", "reg.access"}};
    uint32_t act[2], var[2] = {0};
    for (int i = 0; i < 3; i++) {
        map_recs(mp, sync_case, 2, true, act, NULL);
        map_recs(mp, threads_case, 2, true, act, NULL);
    }
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_recs(mp, sync_case, 2, false, act, NULL);
    map_activity pa;
    map_mapper_activity(mp, act[1], &pa);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 3);
    map_mapper_place(mp, act, var, 2);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "reg.workers.sync.SyncWorker.handle_request"));
    map_recs(mp, threads_case, 2, false, act, NULL);
    map_mapper_place(mp, act, var, 2);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "reg.workers.threads.ThreadWork.handle_request"));
    map_mapper_free(mp);
    graph_close(g);
}

/* A data message logged with next to no text of its own, by the
 * function the one before it calls right after logging. */
static const char next_py[] = "class Proto:\n"
                              "    def __init__(self, log):\n"
                              "        self.log = log\n"
                              "\n"
                              "    def connection_made(self, peer):\n"
                              "        self.log.debug('connection accepted from peer %s', peer)\n"
                              "        self._setup()\n"
                              "        self.log.debug('handshake sent to %s', peer)\n"
                              "\n"
                              "    def _setup(self):\n"
                              "        attrs = [(k, getattr(self, k)) for k in ('a', 'b')]\n"
                              "        self.log.debug('\\n%s', attrs)\n"
                              "\n"
                              "    def other(self, x):\n"
                              "        self.log.info('%s', x)\n";

TEST(mapper_places_messages_where_the_code_goes_next)
{
    unit_write_str("next/proto.py", next_py);
    graph *g = index_dir("next");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, &o, &mp));
    const char *trace[] = {"connection accepted from peer 10.0.0.1", "\n[('a', 1), ('b', 2)]",
                           "handshake sent to 10.0.0.1"};
    /* The same data after another byte than the newline the site's
     * template starts with: not what it renders. */
    const char *other[] = {"connection accepted from peer 10.0.0.2", "#[('a', 1), ('b', 2)]",
                           "handshake sent to 10.0.0.2"};
    uint32_t act[3], oact[3];
    map_case_thrice(mp, trace, 3, NULL, act);
    map_case_thrice(mp, other, 3, NULL, oact);
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_activity pa;
    map_mapper_activity(mp, act[1], &pa);
    CHECK_ONE_SITE(pa, g, "proto.Proto._setup", MAP_BY_LOGGER);
    map_mapper_activity(mp, oact[1], &pa);
    CHECK_INT(pa.nsyms, 0);
    map_mapper_free(mp);
    /* With the logger strategies off, nothing places it. */
    o.no_logger = true;
    CHECK_OK(map_mapper_new(g, &o, &mp));
    map_case_thrice(mp, trace, 3, NULL, act);
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_mapper_activity(mp, act[1], &pa);
    CHECK_INT(pa.nsyms, 0);
    map_mapper_free(mp);
    graph_close(g);
}

/* A server that formats the exception it caught into its message. */
static const char tb_py[] = "import logging\n"                         /* 1 */
                            "import traceback\n"                       /* 2 */
                            "\n"                                       /* 3 */
                            "logger = logging.getLogger(__name__)\n"   /* 4 */
                            "\n"                                       /* 5 */
                            "\n"                                       /* 6 */
                            "def report(text):\n"                      /* 7 */
                            "    logger.error(text)\n"                 /* 8 */
                            "\n"                                       /* 9 */
                            "\n"                                       /* 10 */
                            "def serve(app):\n"                        /* 11 */
                            "    try:\n"                               /* 12 */
                            "        return app()\n"                   /* 13 */
                            "    except Exception:\n"                  /* 14 */
                            "        report(traceback.format_exc())\n" /* 15 */
                            "\n"                                       /* 16 */
                            "\n"                                       /* 17 */
                            "def capture(fut, app):\n"                 /* 18 */
                            "    try:\n"                               /* 19 */
                            "        fut.result = app()\n"             /* 20 */
                            "    except Exception as e:\n"             /* 21 */
                            "        fut.error = e\n";                 /* 22 */

TEST(mapper_places_messages_by_their_traceback)
{
    unit_write_str("tb/srv/__init__.py", "");
    unit_write_str("tb/srv/core.py", tb_py);
    graph *g = index_dir("tb");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, &o, &mp));
    /* The first frame is the handler's: the frames after it, towards
     * where the exception was raised, do not count. */
    const char *caught =
        "Traceback (most recent call last):\n"
        "  File \"/usr/lib/python3/dist-packages/srv/core.py\", line 13, in serve\n"
        "    return app()\n"
        "  File \"/usr/lib/python3/dist-packages/srv/core.py\", line 20, in capture\n"
        "ValueError: boom";
    /* Escaped newlines, as a log that keeps a record on one line has them. */
    const char *escaped =
        "[30/Nov/2026:15:06:14] Traceback (most recent call last):\\n  File "
        "\"/opt/srv/core.py\", line 13, in serve\\n    return app()\\nKeyError: 'x'";
    /* Caught by a function that logs nothing (a future's callback logs it
     * later), a frame whose name is not the function's at that line (other
     * code): none of them. */
    const char *captured = "Traceback (most recent call last):\n"
                           "  File \"/x/srv/core.py\", line 20, in capture\nOSError: gone";
    const char *other = "Traceback (most recent call last):\n"
                        "  File \"/x/srv/core.py\", line 13, in handle\nOSError: gone";
    /* Caught by code outside the graph: its own frame first, whatever
     * frames of ours come after it. */
    const char *outside = "Traceback (most recent call last):\n"
                          "  File \"/srv/app/main.py\", line 9, in <module>\n"
                          "    run()\n"
                          "  File \"/x/srv/core.py\", line 13, in serve\nOSError: gone";
    const char *msgs[] = {caught, escaped, captured, other, outside};
    uint32_t act[5], v;
    for (int i = 0; i < 5; i++) {
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
        map_mapper_map(mp, &ev, NULL, 0, NULL, 0, &act[i], &v);
    }
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    map_activity pa;
    for (int i = 0; i < 2; i++) {
        map_mapper_activity(mp, act[i], &pa);
        CHECK_ONE_SITE(pa, g, "srv.core.serve", MAP_BY_STACK);
    }
    CHECK_STR(map_strategy_name(MAP_BY_STACK), "stack");
    for (int i = 2; i < 5; i++) {
        map_mapper_activity(mp, act[i], &pa);
        CHECK_INT(pa.nsyms, 0);
    }
    map_mapper_free(mp);
    graph_close(g);
}

/* A line both sides log is placed at both, and each event at the side
 * its case is at; a line whose only neighbour is another such line is
 * placed once that one is. */
TEST(mapper_places_messages_at_the_side_of_their_case)
{
    unit_write_str("sides/ssh.py", sides_py);
    graph *g = index_dir("sides");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    const char *sent[] = {"[conn=0] Sending extension info", "[conn=0]   global-requests-ok: "};
    const char *got[] = {"[conn=1] Received extension info",
                         "[conn=1]   global-requests-ok: ", "[conn=1]   server-sig-algs: a,b"};
    uint32_t a1[3], v1[3], a2[3], v2[3];
    for (int c = 0; c < 3; c++) {
        map_in_order(mp, sent, 2, "ssh", true, a1, v1);
        map_in_order(mp, got, 3, "ssh", true, a2, v2);
    }
    char why[256];
    CHECK_OK(map_mapper_finish(mp, why, sizeof why));
    uint32_t send = unit_sym(g, "ssh.send_ext_info"), recv = unit_sym(g, "ssh.process_ext_info");
    map_activity pa;
    /* Both sides' sites, for the message both log... */
    map_mapper_activity(mp, a2[1], &pa);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 2);
    /* ...and for the one after it, whose place is that message's. */
    map_mapper_activity(mp, a2[2], &pa);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 2);
    CHECK(pa.syms[0] == recv || pa.syms[1] == recv);
    /* Each event goes to its case's side: the events of the log... */
    CHECK_INT(map_mapper_place(mp, a1, v1, 2), 1);
    CHECK_INT(only_sym(mp, a1[1]), send);
    CHECK_INT(map_mapper_place(mp, a2, v2, 3), 2);
    CHECK_INT(only_sym(mp, a2[1]), recv);
    CHECK_INT(only_sym(mp, a2[2]), recv);
    map_mapper_activity(mp, a2[2], &pa);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(map_mapper_place(mp, a2, v2, 3), 0);
    /* ...and those mapped from then on. */
    map_in_order(mp, sent, 2, "ssh", false, a1, v1);
    CHECK_INT(only_sym(mp, a1[1]), send);
    map_in_order(mp, got, 3, "ssh", false, a2, v2);
    CHECK_INT(only_sym(mp, a2[1]), recv);
    CHECK_INT(only_sym(mp, a2[2]), recv);
    map_mapper_free(mp);
    /* Next to one side twice as often as to the other: that side. */
    map_mapper *one;
    uint32_t b1[3], w1[3], b2[3], w2[3];
    CHECK_OK(map_mapper_new(g, NULL, &one));
    const char *sent_more[] = {"[conn=0] Sending extension info",
                               "[conn=0]   global-requests-ok: ", "[conn=0] Sent 1 extensions"};
    for (int c = 0; c < 3; c++) {
        map_in_order(one, sent_more, 3, "ssh", true, b1, w1);
        map_in_order(one, got, 2, "ssh", true, b2, w2);
    }
    CHECK_OK(map_mapper_finish(one, why, sizeof why));
    CHECK_INT(map_mapper_place(one, b2, w2, 2), 0);
    map_mapper_activity(one, b2[1], &pa);
    CHECK_INT(pa.nsyms, 2);
    CHECK_INT(pa.syms[0], send);
    map_mapper_free(one);
    graph_close(g);
}

TEST(matcher_works_without_jit_memory)
{
#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
    if (prctl(PR_SET_MDWE, 1 /* PR_MDWE_REFUSE_EXEC_GAIN */, 0, 0, 0) != 0) {
        printf("      (kernel without PR_SET_MDWE: %s; nothing to check)\n", strerror(errno));
        return;
    }
    graph *g = open_py();
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w, "placing order 42 now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.place", unit_line_of(orders_py, "placing order"));
    CHECK_INT(match(m, w, "placing order 42 now!", NULL, NULL, e).nemits, 0);
    matcher_done(g, m, w);
}

/* A flood of distinct messages past max_activities folds into "<other>"
 * and stops growing the mapper: activities, variants, cached messages. */
TEST(mapper_flood_of_unique_messages_is_capped)
{
    graph *g = open_py();
    map_mapper_opts o = {.max_activities = 40, .no_tokens = true, .no_const = true};
    map_mapper *m;
    CHECK_OK(map_mapper_new(g, &o, &m));
    char msg[128];
    uint32_t a, v, prev = UINT32_MAX;
    for (int i = 0; i < 20000; i++) {
        /* words, not numbers: masking does not fold them */
        int n = snprintf(msg, sizeof msg, "unexpected %c%c%c%c state in %c%c%c", 'a' + i % 26,
                         'a' + i / 26 % 26, 'a' + i / 676 % 26, 'a' + i / 17576 % 26,
                         'a' + i * 7 % 26, 'a' + i * 11 % 26, 'a' + i * 13 % 26);
        map_event me = {.text = msg, .len = (size_t)n};
        map_mapper_map(m, &me, &prev, prev != UINT32_MAX, NULL, 0, &a, &v);
        prev = a;
    }
    uint32_t na = map_mapper_nactivities(m), nv = map_mapper_nvariants(m);
    CHECK(na <= 40);
    CHECK(nv <= 2 * 40 + na);
    printf("      %u activities, %u variants, %llu messages folded\n", na, nv,
           (unsigned long long)map_mapper_folded(m));
    CHECK(map_mapper_folded(m) > 10000);
    map_activity pa;
    map_mapper_activity(m, a, &pa);
    CHECK_STR(pa.text, "<other>");
    /* Known messages still map to their own activities. */
    snprintf(msg, sizeof msg, "placing order 42 now");
    map_event me = {.text = msg, .len = strlen(msg)};
    map_mapper_map(m, &me, NULL, 0, NULL, 0, &a, &v);
    map_mapper_activity(m, a, &pa);
    CHECK(strcmp(pa.text, "<other>") != 0 || na == 40);
    map_mapper_free(m);
    graph_close(g);
}

TEST(matcher_python_ties)
{
    graph *g = open_py();
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r;

    /* logging.info (the root logger) against the module's logger */
    r = match(m, w, "hello from bob", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    CHECK_INT(r.nmatched, 2);
    CHECK_INT(r.flags, 0);
    r = match(m, w, "hello from bob", "root", "INFO", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LOGGER);
    CHECK_EMIT(g, e[0], "pkg.orders.root_says", unit_line_of(orders_py, "logging.info("));
    r = match(m, w, "hello from bob", "pkg.orders", NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LOGGER);
    CHECK_EMIT(g, e[0], "pkg.orders.module_says", unit_line_of(orders_py, "logger.info(\"hello"));
    /* a logger that is neither narrows nothing */
    r = match(m, w, "hello from bob", "app.other", NULL, e);
    CHECK_INT(r.nemits, 2);
    CHECK_INT(r.flags, 0);

    /* The same template in two modules: the logger names the module. */
    r = match(m, w, "shared message 5", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    r = match(m, w, "shared message 5", "pkg.billing", NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LOGGER);
    CHECK_EMIT(g, e[0], "pkg.billing.same_b", unit_line_of(billing_py, "shared message"));
    /* a suffix on a '.' boundary agrees too (indexed from inside a package) */
    r = match(m, w, "shared message 5", "svc.pkg.orders", NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.same_a", unit_line_of(orders_py, "shared message"));

    /* The level decides. */
    r = match(m, w, "level message 9", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    r = match(m, w, "level message 9", NULL, "ERROR", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LEVEL);
    CHECK_EMIT(g, e[0], "pkg.orders.level_b", unit_line_of(orders_py, "logger.error(\"level"));
    r = match(m, w, "level message 9", NULL, "info", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.level_a", unit_line_of(orders_py, "logger.info(\"level"));
    /* a level no candidate logs at: none of them logged it */
    r = match(m, w, "level message 9", NULL, "WARN", e);
    CHECK_INT(r.nemits, 0);
    /* a level that is no level narrows nothing */
    r = match(m, w, "level message 9", NULL, "30", e);
    CHECK_INT(r.nemits, 2);
    CHECK_INT(r.flags, 0);
    /* logger first, then level */
    r = match(m, w, "level message 9", "pkg.orders", "error", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LEVEL);

    /* The more literal template wins. */
    r = match(m, w, "value is 5 units", NULL, NULL, e);
    CHECK_INT(r.nmatched, 2);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("value is  units"));
    CHECK_EMIT(g, e[0], "pkg.orders.literal_b", unit_line_of(orders_py, "value is %s units"));
    /* ...among the sites at the record's level: a debug record that the
     * warning's template renders too is the debug call's. */
    r = match(m, w, "state: a, b", NULL, "WARNING", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.dump_b", unit_line_of(orders_py, "state: %s, %s"));
    r = match(m, w, "state: a, b", NULL, "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.dump_a", unit_line_of(orders_py, "state: %s\""));
    r = match(m, w, "value is 5", NULL, NULL, e);
    CHECK_INT(r.nmatched, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.literal_a", unit_line_of(orders_py, "value is %s\""));

    /* Span names: "SPAN" picks the span, a log level the log call. */
    r = match(m, w, "checkout", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    r = match(m, w, "checkout", NULL, "SPAN", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LEVEL);
    CHECK_EMIT(g, e[0], "pkg.orders.spans", unit_line_of(orders_py, "start_as_current_span"));
    graph_emit em;
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.kind, GRAPH_EMIT_SPAN);
    r = match(m, w, "checkout", NULL, "INFO", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "pkg.orders.says_checkout",
               unit_line_of(orders_py, "logger.info(\"checkout"));

    /* max bounds what is written, not what is counted. */
    r = map_matcher_match(m, w, "hello from x", 12, NULL, NULL, e, 1);
    CHECK_INT(r.nemits, 2);

    matcher_done(g, m, w);
}

TEST(matcher_truncated_messages)
{
    graph *g = open_py();
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    const char *full = "this is a very long template that keeps going on and on about X and then "
                       "even more text after it";
    map_match r = map_matcher_match(m, w, full, strlen(full), NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, 0);
    /* Cut at 70 bytes, inside the literal after the hole. */
    r = map_matcher_match(m, w, full, 70, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_PARTIAL);
    CHECK_EMIT(g, e[0], "pkg.orders.long_one", unit_line_of(orders_py, "this is a very long"));
    /* Cut at exactly 64 bytes: still long enough. */
    r = map_matcher_match(m, w, full, 64, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_PARTIAL);
    /* Shorter than partial_min: no match. */
    r = map_matcher_match(m, w, full, 63, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 0);
    /* A long message that departs from the template's literal text is no
     * match (after the hole anything goes: it may be the hole's text,
     * cut short). */
    char bad[80];
    memcpy(bad, full, 70);
    bad[10] = 'Q';
    r = map_matcher_match(m, w, bad, 70, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 0);
    memcpy(bad, full, 70);
    bad[69] = 'Q';
    r = map_matcher_match(m, w, bad, 70, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_PARTIAL);
    /* partial_min is an option. */
    map_matcher *m2;
    map_matcher_opts o = {.partial_min = 30};
    CHECK_OK(map_matcher_build(g, &o, &m2));
    map_match_work *w2 = map_match_work_new(m2);
    r = map_matcher_match(m2, w2, full, 40, NULL, NULL, e, 16);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_PARTIAL);
    map_match_work_free(w2);
    map_matcher_free(m2);
    matcher_done(g, m, w);
}

/* ---- decorations: text a logging function puts before its caller's ---- */

static const char conn_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "PEER_RESET = \"connection reset by peer\"\n"
                              "\n"
                              "\n"
                              "def request(name):\n"
                              "    logger.debug(\"Sending request for %s\", name)\n"
                              "\n"
                              "\n"
                              "def close(x):\n"
                              "    logger.info(\"closed %s\", x)\n"
                              "\n"
                              "\n"
                              "def stop(x):\n"
                              "    logger.info(\"stopped %s\", x)\n"
                              "\n"
                              "\n"
                              "DEFAULT_KEX = []\n"
                              "DEFAULT_KEX.insert(0, \"curve25519-sha256@libssh.org\")\n"
                              "\n"
                              "\n"
                              "def negotiate(kex):\n"
                              "    logger.debug(\"Handshake: KEX algorithm: %s\", kex)\n";

TEST(matcher_decorations)
{
    unit_write_str("dec/conn.py", conn_py);
    graph *g = index_dir("dec");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];

    /* A context the logging function put first: the match starts after
     * it, at the site that renders the rest. */
    map_match r = match(m, w, "[conn=3, chan=1] Sending request for foo", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_DECORATED);
    CHECK_INT(r.decoration, strlen("[conn=3, chan=1] "));
    CHECK_INT(r.literal, strlen("Sending request for "));
    CHECK_EMIT(g, e[0], "conn.request", unit_line_of(conn_py, "Sending request"));
    /* After any separator, a blank or not. */
    r = match(m, w, "BASIC:Sending request for foo", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("BASIC:"));
    /* A prefix longer than what follows it (up to 96 bytes). */
    const char *longer = "[conn=3, chan=1, session=4f1c2a9e, user=admin] stopped now";
    r = match(m, w, longer, NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_DECORATED);
    CHECK_INT(r.decoration, strlen(longer) - strlen("stopped now"));
    CHECK_EMIT(g, e[0], "conn.stop", unit_line_of(conn_py, "stopped %s"));

    /* A bare constant found at a message's tail explains nothing before
     * it: no match, though the constant alone matches the whole of its
     * text. */
    CHECK_INT(match(m, w, "worker 7 saw connection reset by peer", NULL, NULL, e).nemits, 0);
    r = match(m, w, "connection reset by peer", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_CONST);

    /* A tail needs 8 literal bytes: "stopped " has them, "closed " does
     * not (though it matches when it is the whole message). */
    r = match(m, w, "[job=4] stopped now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("[job=4] "));
    CHECK_INT(r.literal, 8);
    CHECK_INT(match(m, w, "[job=4] closed now", NULL, NULL, e).nemits, 0);
    r = match(m, w, "closed now", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, 0);
    CHECK_EMIT(g, e[0], "conn.close", unit_line_of(conn_py, "closed %s"));

    /* The value a site shows after its literal, which elsewhere only a
     * list's insert() is handed, longer than the site's literal: the
     * site's start wins, not the value's. */
    r = match(m, w, "[12713.109] Handshake: KEX algorithm: curve25519-sha256@libssh.org", NULL,
              NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("[12713.109] "));
    CHECK_EMIT(g, e[0], "conn.negotiate", unit_line_of(conn_py, "KEX algorithm"));

    matcher_done(g, m, w);
}

/* A site of the record's own logger rendering the whole rest of a
 * decorated message with less literal text than a tail needs: the
 * formatter's `%(threadName)s: ` before `wrote %s`, where the whole
 * message fits a returned file name's format as well. */
static const char own_rest_py[] = "import logging\n"
                                  "\n"
                                  "log = logging.getLogger(__name__)\n"
                                  "\n"
                                  "\n"
                                  "def name_of(src, width):\n"
                                  "    return \"%s_%d.webp\" % (src, width)\n"
                                  "\n"
                                  "\n"
                                  "def report(path):\n"
                                  "    log.info(\"wrote %s\", path)\n";

TEST(matcher_a_short_rest_its_own_logger_logs)
{
    unit_write_str("ownrest/render.py", own_rest_py);
    graph *g = index_dir("ownrest");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    const char *msg = "thumb_0: wrote beach_320.webp";

    map_match r = match(m, w, msg, "render", "INFO", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_DECORATED);
    CHECK_INT(r.decoration, strlen("thumb_0: "));
    CHECK_EMIT(g, e[0], "render.report", unit_line_of(own_rest_py, "wrote %s"));
    /* Without the logger, or with another one, six bytes of "wrote " are
     * too few to say where the rest starts. */
    CHECK_INT(match(m, w, msg, NULL, NULL, e).decoration, 0);
    CHECK_INT(match(m, w, msg, "resize", "INFO", e).decoration, 0);
    /* Nor at another level than the site's. */
    CHECK_INT(match(m, w, msg, "render", "ERROR", e).decoration, 0);

    matcher_done(g, m, w);
}

/* A literal that is the whole rest of a decorated message, shorter than a
 * tail needs: a command a client hands its logging send function, the
 * "C: " its logger's, said whole where "%s: %s" says only a separator. */
static const char smtp_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "\n"
                              "\n"
                              "def on_log(kind, text):\n"
                              "    logger.debug(\"%s: %s\", kind, text)\n"
                              "\n"
                              "\n"
                              "def send(cmd):\n"
                              "    logger.debug(cmd)\n"
                              "\n"
                              "\n"
                              "def close():\n"
                              "    send(\"QUIT\")\n"
                              "\n"
                              "\n"
                              "def ok():\n"
                              "    send(\"OK\")\n"
                              "\n"
                              "\n"
                              "def pack(buf, word):\n"
                              "    return buf + word\n"
                              "\n"
                              "\n"
                              "def hello(buf):\n"
                              "    return pack(buf, \"HELO\")\n"
                              "\n"
                              "\n"
                              "def curve(buf):\n"
                              "    return pack(buf, \"nistp256\")\n";

/* msg matched whole, by the separator's template "%s: %s". */
static void whole_by_separator(const graph *g, const map_matcher *m, map_match_work *w,
                               const char *msg)
{
    uint32_t e[16];
    map_match r = match(m, w, msg, NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "smtp.on_log", unit_line_of(smtp_py, "%s: %s"));
}

TEST(matcher_decorated_exact_literal)
{
    unit_write_str("smtpdec/smtp.py", smtp_py);
    graph *g = index_dir("smtpdec");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];

    map_match r = match(m, w, "C: QUIT", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_DECORATED);
    CHECK_INT(r.decoration, strlen("C: "));
    CHECK_INT(r.literal, 4);
    CHECK_EMIT(g, e[0], "smtp.close", unit_line_of(smtp_py, "\"QUIT\""));
    /* Under EXACT_MIN bytes a literal is said by too much code: the
     * separator's template stays. */
    whole_by_separator(g, m, w, "C: OK");
    /* Nor a literal handed to a function that does not log it. */
    whole_by_separator(g, m, w, "C: HELO");
    /* A rest the literal does not render whole is no such rest. */
    whole_by_separator(g, m, w, "C: QUIT now");
    /* A literal inside a token (after a '-' between its words) is no
     * rest after a decoration, long as it is. */
    whole_by_separator(g, m, w, "HostKey: ecdsa-sha2-nistp256");

    matcher_done(g, m, w);
}

/* A sink that builds its lines with a tag before whatever text it is
 * handed: the tag's template renders every such message whole, and says
 * nothing of the rest, which a literal logged elsewhere says whole,
 * short as it is, or nothing the code says. */
static const char qlog_py[] =
    "import logging\n"
    "\n"
    "logger = logging.getLogger(__name__)\n"
    "\n"
    "\n"
    "class FileSink:\n"
    "    def write(self, records):\n"
    "        lines = []\n"
    "        for r in records:\n"
    "            if r.kind == 'query':\n"
    "                lines.append(\"[QUERY]: %s\" % r.text)\n"
    "            elif r.kind == 'key':\n"
    "                lines.append(\"Host key: %s\" % r.text)\n"
    "            elif r.kind == 'version':\n"
    "                lines.append(\"version: %s\" % r.text)\n"
    "            else:\n"
    "                lines.append(\"[DONE]: %s in %d ms\" % (r.text, r.ms))\n"
    "        self.out.write(lines)\n"
    "\n"
    "\n"
    "def commit():\n"
    "    logger.debug(\"COMMIT\")\n"
    "\n"
    "\n"
    "def begin():\n"
    "    logger.debug(\"BEGIN TRANSACTION\")\n"
    "\n"
    "\n"
    "def ok():\n"
    "    logger.debug(\"OK\")\n"
    "\n"
    "\n"
    "def probe():\n"
    "    logger.debug(\"ssh-ed25519\")\n";

TEST(matcher_rest_after_a_tag)
{
    unit_write_str("qtag/qlog.py", qlog_py);
    graph *g = index_dir("qtag");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];

    map_match r = match(m, w, "[QUERY]: COMMIT", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_DECORATED);
    CHECK_INT(r.decoration, strlen("[QUERY]: "));
    CHECK_EMIT(g, e[0], "qlog.commit", unit_line_of(qlog_py, "\"COMMIT\""));
    /* Longer than the tag, shorter than twice it. */
    r = match(m, w, "[QUERY]: BEGIN TRANSACTION", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("[QUERY]: "));
    CHECK_EMIT(g, e[0], "qlog.begin", unit_line_of(qlog_py, "BEGIN TRANSACTION"));
    /* Under EXACT_MIN bytes, or data no literal says: the tag alone
     * says nothing of where the text came from, so no template matches
     * (the strategies for text built at run time place it). */
    const char *const tagged[] = {"[QUERY]: OK", "[QUERY]: SELECT 1"};
    for (size_t i = 0; i < sizeof tagged / sizeof *tagged; i++)
        CHECK_INT(match(m, w, tagged[i], NULL, NULL, e).nemits, 0);
    /* Words before a value are no tag: they name the value, and the bar
     * stands, whatever literal the value is elsewhere. */
    r = match(m, w, "Host key: ssh-ed25519", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "qlog.FileSink.write", unit_line_of(qlog_py, "Host key"));
    /* Nor a word and its colon: `version: %s` labels the value. */
    r = match(m, w, "version: 2.4.1", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "qlog.FileSink.write", unit_line_of(qlog_py, "version: %s"));
    /* Nor is a template with text after its hole. */
    r = match(m, w, "[DONE]: COMMIT in 3 ms", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "qlog.FileSink.write", unit_line_of(qlog_py, "[DONE]"));

    matcher_done(g, m, w);
}

/* A word a call puts into a long text built elsewhere (a table's
 * temporary name in a statement) is no evidence of where the text was
 * logged: a candidate call's literal under a tenth of the message says
 * nothing, as one under 10 bytes and a third of it does not. */
static const char tmpname_py[] = "def quote(name):\n"
                                 "    return '\"' + name + '\"'\n"
                                 "\n"
                                 "\n"
                                 "def rebuild(schema, table):\n"
                                 "    return quote(\"%stemporary_%s\" % (schema, table))\n"
                                 "\n"
                                 "\n"
                                 "def shadow(table, copy):\n"
                                 "    return quote(\"%s kept as a copy of %s\" % (copy, table))\n";

TEST(matcher_a_word_in_a_long_text)
{
    unit_write_str("tmpname/ddl.py", tmpname_py);
    graph *g = index_dir("tmpname");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r = match(m, w,
                        "CREATE TABLE \"temporary_post\" (\"id\" integer PRIMARY KEY "
                        "AUTOINCREMENT NOT NULL, \"title\" varchar NOT NULL)",
                        NULL, NULL, e);
    CHECK_INT(r.nemits, 0);
    /* Nor in a shorter one, where it is over a tenth: one word is a
     * name's part. */
    r = match(m, w, "ALTER TABLE \"temporary_post\" RENAME", NULL, NULL, e);
    CHECK_INT(r.nemits, 0);
    /* Words over a tenth of a text still say something. */
    r = match(m, w, "ALTER TABLE \"post\" kept as a copy of \"temporary_post\" RENAME", NULL, NULL,
              e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "ddl.shadow", unit_line_of(tmpname_py, "kept as"));
    matcher_done(g, m, w);
}

/* ---- data a logger prints as it is ---- */

static const char wire_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "\n"
                              "\n"
                              "def setup(client):\n"
                              "    client.setopt(AGENT, \"Mozilla/5.0 (compatible; fetcher)\")\n"
                              "\n"
                              "\n"
                              "def trace(direction, line):\n"
                              "    logger.debug(\"%s %s\", direction, line)\n";

TEST(matcher_data_of_logger)
{
    unit_write_str("wdata/wire.py", wire_py);
    graph *g = index_dir("wdata");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    const char *line = "> User-Agent: Mozilla/5.0 (compatible; fetcher)";

    /* Without a logger, the literal a call hands out of the repository is
     * the only explanation of the message's text. */
    map_match r = match(m, w, line, NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("> User-Agent: "));
    CHECK_EMIT(g, e[0], "wire.setup", unit_line_of(wire_py, "Mozilla"));
    /* The record's logger prints data at that level through placeholders
     * only: the call is no evidence, and the match is left to the logger
     * and position strategies. */
    CHECK_INT(match(m, w, line, "wire", "DEBUG", e).nemits, 0);
    /* Not at a level where the logger has no such site, nor for another
     * logger. */
    CHECK_INT(match(m, w, line, "wire", "INFO", e).nemits, 1);
    CHECK_INT(match(m, w, line, "other", "DEBUG", e).nemits, 1);
    /* The whole literal is no data of a logger: the call stays. */
    CHECK_INT(match(m, w, "Mozilla/5.0 (compatible; fetcher)", "wire", "DEBUG", e).nemits, 1);

    matcher_done(g, m, w);
}

/* ---- a logging site of the record's logger before a call's literal ---- */

static const char http_enc_py[] = "def utf8(s):\n"
                                  "    return s.encode()\n"
                                  "\n"
                                  "\n"
                                  "def start_line(method, path):\n"
                                  "    return utf8(\"%s %s HTTP/1.1\" % (method, path))\n"
                                  "\n"
                                  "\n"
                                  "def status_line(code, reason):\n"
                                  "    return utf8(\"HTTP/1.1 %d %s\" % (code, reason))\n";

static const char http_curl_py[] = "import logging\n"
                                   "\n"
                                   "curl_log = logging.getLogger(\"web.curl\")\n"
                                   "\n"
                                   "\n"
                                   "def debug(kind, line):\n"
                                   "    curl_log.debug(\"> %s\", line)\n"
                                   "    curl_log.debug(\"< %s\", line)\n";

TEST(matcher_logging_site_of_the_records_logger_before_a_calls_literal)
{
    unit_write_str("hlog/encode.py", http_enc_py);
    unit_write_str("hlog/curl.py", http_curl_py);
    graph *g = index_dir("hlog");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    const char *line = "> POST /private HTTP/1.1";

    /* The call hands its literal to a function that logs nothing: with the
     * record's logger and level, the logging site that renders it is where
     * it came from, although the call's literal is longer. */
    map_match r = match(m, w, line, "web.curl", "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "curl.debug", unit_line_of(http_curl_py, "> %s"));
    /* Another logger, or none: nothing says the record is the logging
     * site's, and the most literal rendering stays. */
    r = match(m, w, line, "other", "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "encode.start_line", unit_line_of(http_enc_py, "HTTP/1.1"));
    r = match(m, w, line, NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "encode.start_line", unit_line_of(http_enc_py, "HTTP/1.1"));
    /* At a level the logging site does not log at, it is no evidence. */
    r = match(m, w, line, "web.curl", "INFO", e);
    CHECK_EMIT(g, e[0], "encode.start_line", unit_line_of(http_enc_py, "HTTP/1.1"));
    /* The same when the call's literal renders only what follows the
     * site's text ("< " before a status line): the site renders the whole
     * message, and a rest only such calls render is no decoration. */
    line = "< HTTP/1.1 200 OK";
    r = match(m, w, line, "web.curl", "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "curl.debug", unit_line_of(http_curl_py, "< %s"));
    r = match(m, w, line, "other", "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, strlen("< "));
    CHECK_EMIT(g, e[0], "encode.status_line", unit_line_of(http_enc_py, "HTTP/1.1 %d"));

    matcher_done(g, m, w);
}

/* ---- loggers imported by name, and sites that name another logger ---- */

static const char lg_log_py[] = "import logging\n"
                                "\n"
                                "app_log = logging.getLogger(\"svc.application\")\n"
                                "gen_log = logging.getLogger(\"svc.general\")\n"
                                "mod_log = logging.getLogger(__name__)\n";

static const char lg_init_py[] = "from .log import gen_log\n";

static const char lg_conn_py[] = "from .log import app_log, mod_log\n"
                                 "from . import gen_log\n"
                                 "\n"
                                 "\n"
                                 "class Guard:\n"
                                 "    def __init__(self, logger):\n"
                                 "        self.logger = logger\n"
                                 "\n"
                                 "    def __exit__(self, typ, value, tb):\n"
                                 "        self.logger.error(\"Uncaught exception\")\n"
                                 "\n"
                                 "\n"
                                 "def serve():\n"
                                 "    with Guard(app_log):\n"
                                 "        pass\n"
                                 "    gen_log.error(\"Uncaught exception\")\n"
                                 "    mod_log.info(\"serving\")\n";

TEST(matcher_logger_imported_by_name)
{
    unit_write_str("lgimp/svc/__init__.py", lg_init_py);
    unit_write_str("lgimp/svc/log.py", lg_log_py);
    unit_write_str("lgimp/svc/conn.py", lg_conn_py);
    graph *g = index_dir("lgimp");
    /* A logger imported by name has the name its module gave it, through
     * a package's re-export too; getLogger(__name__) is its module's. */
    graph_emit x = unit_emit_at(g, "svc.conn.serve", unit_line_of(lg_conn_py, "gen_log.error"));
    CHECK_STR(x.logger, "svc.general");
    x = unit_emit_at(g, "svc.conn.serve", unit_line_of(lg_conn_py, "mod_log.info"));
    CHECK_STR(x.logger, "svc.log");
    /* One handed to a constructor is not known. */
    x = unit_emit_at(g, "svc.conn.Guard.__exit__", unit_line_of(lg_conn_py, "self.logger.error"));
    CHECK_STR(x.logger, "");

    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    /* The record of the general logger is the site that names it; one of
     * the application logger is not: the site whose logger is not known
     * is what is left. */
    map_match r = match(m, w, "Uncaught exception", "svc.general", "ERROR", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "svc.conn.serve", unit_line_of(lg_conn_py, "gen_log.error"));
    r = match(m, w, "Uncaught exception", "svc.application", "ERROR", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "svc.conn.Guard.__exit__", unit_line_of(lg_conn_py, "self.logger.error"));
    /* Without a logger, both. */
    CHECK_INT(match(m, w, "Uncaught exception", NULL, "ERROR", e).nemits, 2);

    matcher_done(g, m, w);
}

/* ---- whole renderings before candidate calls ---- */

static const char jobs_run_py[] = "import logging\n"
                                  "from contextlib import contextmanager\n"
                                  "\n"
                                  "from opentelemetry import trace\n"
                                  "\n"
                                  "logger = logging.getLogger(__name__)\n"
                                  "tracer = trace.get_tracer(__name__)\n"
                                  "\n"
                                  "\n"
                                  "@contextmanager\n"
                                  "def timed(operation):\n"
                                  "    yield\n"
                                  "    logger.debug(\"%s took %.0f ms\", operation, 3.0)\n"
                                  "\n"
                                  "\n"
                                  "def buy(carrier):\n"
                                  "    with timed(f\"label purchase from {carrier}\"):\n"
                                  "        pass\n"
                                  "\n"
                                  "\n"
                                  "def handles(kind):\n"
                                  "    return lambda f: f\n"
                                  "\n"
                                  "\n"
                                  "@handles(\"shipment.track\")\n"
                                  "def track():\n"
                                  "    pass\n"
                                  "\n"
                                  "\n"
                                  "def execute(kind):\n"
                                  "    with tracer.start_as_current_span(f\"job {kind}\"):\n"
                                  "        pass\n";

TEST(matcher_whole_renderings_before_calls)
{
    unit_write_str("jrun/jobs.py", jobs_run_py);
    graph *g = index_dir("jrun");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];

    /* buy's literal is an argument of timed's own template: the event is
     * timed's logging call, although buy's call shows more literal text. */
    map_match r = match(m, w, "label purchase from ups took 221 ms", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "jobs.timed", unit_line_of(jobs_run_py, "took %.0f"));

    /* A span name is what the code passed: "job %s", not "job " put
     * before a literal some call passes. */
    r = match(m, w, "job shipment.track", NULL, "SPAN", e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "jobs.execute", unit_line_of(jobs_run_py, "job {kind}"));
    /* Nor as a log record: what a logging shape renders whole is not
     * taken for a decoration of a mere call's literal. */
    r = match(m, w, "job shipment.track", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.decoration, 0);
    CHECK_EMIT(g, e[0], "jobs.execute", unit_line_of(jobs_run_py, "job {kind}"));

    matcher_done(g, m, w);
}

/* ---- log sites no template shows ---- */

static const char jobs_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "audit = logging.getLogger(\"app.audit\")\n"
                              "\n"
                              "\n"
                              "def log_it(msg):\n"
                              "    logger.info(msg)\n"
                              "\n"
                              "\n"
                              "def start():\n"
                              "    log_it(\"job started\")\n"
                              "\n"
                              "\n"
                              "def report(result):\n"
                              "    logger.info(result.summary())\n"
                              "\n"
                              "\n"
                              "def trace(step):\n"
                              "    logger.debug(step)\n"
                              "\n"
                              "\n"
                              "def holes(a):\n"
                              "    logger.warning(\"%s\", a)\n"
                              "\n"
                              "\n"
                              "def done(n):\n"
                              "    logger.info(\"done with %s\", n)\n"
                              "    print(n)\n"
                              "    trace(n)\n"
                              "\n"
                              "\n"
                              "def record(entry):\n"
                              "    audit.error(entry)\n";

static graph *open_jobs(void)
{
    unit_write_str("jobs/pkg/__init__.py", "");
    unit_write_str("jobs/pkg/jobs.py", jobs_py);
    return index_dir("jobs");
}

/* The emit id of the one log site of qualname. */
static uint32_t log_site(const graph *g, const char *qualname)
{
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, qualname), &first), id = GRAPH_NONE;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        if (e.kind == GRAPH_EMIT_LOG) {
            CHECK(id == GRAPH_NONE);
            id = first + i;
        }
    }
    CHECK(id != GRAPH_NONE);
    return id;
}

TEST(matcher_unseen_sites)
{
    graph *g = open_jobs();
    map_matcher *m;
    CHECK_OK(map_matcher_build(g, NULL, &m));
    uint32_t report = log_site(g, "pkg.jobs.report"), trace = log_site(g, "pkg.jobs.trace"),
             holes = log_site(g, "pkg.jobs.holes"), record = log_site(g, "pkg.jobs.record");
    CHECK(report < trace && trace < holes);
    uint32_t e[8];

    /* The module logger's sites without text: a call's result, a
     * parameter, holes only. Not log_it's (a wrapper: its callers'
     * sites stand for it), not done's (a template), not print. */
    CHECK_INT(map_matcher_unseen(m, "pkg.jobs", NULL, 0, NULL, e, 8), 3);
    CHECK_INT(e[0], report);
    CHECK_INT(e[1], trace);
    CHECK_INT(e[2], holes);
    /* The level narrows them when some are at it ... */
    CHECK_INT(map_matcher_unseen(m, "pkg.jobs", NULL, 0, "INFO", e, 8), 1);
    CHECK_INT(e[0], report);
    CHECK_INT(map_matcher_unseen(m, "pkg.jobs", NULL, 0, "debug", e, 8), 1);
    CHECK_INT(e[0], trace);
    /* ... and not when none is. */
    CHECK_INT(map_matcher_unseen(m, "pkg.jobs", NULL, 0, "ERROR", e, 8), 3);
    /* A logger named as the module's on a '.' boundary agrees. */
    CHECK_INT(map_matcher_unseen(m, "svc.pkg.jobs", NULL, 0, "DEBUG", e, 8), 1);
    CHECK_INT(e[0], trace);
    /* A named logger. */
    CHECK_INT(map_matcher_unseen(m, "app.audit", NULL, 0, "INFO", e, 8), 1);
    CHECK_INT(e[0], record);
    /* Unknown, or no logger: nothing. */
    CHECK_INT(map_matcher_unseen(m, "app.other", NULL, 0, NULL, e, 8), 0);
    CHECK_INT(map_matcher_unseen(m, NULL, NULL, 0, "INFO", e, 8), 0);
    CHECK_INT(map_matcher_unseen(m, "", NULL, 0, "INFO", e, 8), 0);
    /* max bounds what is written, not what is counted. */
    e[1] = 12345;
    CHECK_INT(map_matcher_unseen(m, "pkg.jobs", NULL, 0, NULL, e, 1), 3);
    CHECK_INT(e[0], report);
    CHECK_INT(e[1], 12345);
    /* By file, whatever the loggers: every site of jobs.py without text;
     * a file with none, or no file, gives nothing. */
    graph_symbol rs;
    graph_get_symbol(g, unit_sym(g, "pkg.jobs.report"), &rs);
    uint32_t file = rs.file_id, other = file + 1 < graph_nfiles(g) ? file + 1 : file - 1;
    CHECK_INT(map_matcher_unseen(m, NULL, &file, 1, NULL, e, 8), 4);
    CHECK_INT(e[3], record);
    CHECK_INT(map_matcher_unseen(m, NULL, &file, 1, "debug", e, 8), 1);
    CHECK_INT(e[0], trace);
    CHECK_INT(map_matcher_unseen(m, NULL, &other, 1, NULL, e, 8), 0);
    CHECK_INT(map_matcher_unseen(m, NULL, NULL, 0, NULL, e, 8), 0);
    map_matcher_free(m);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* The template matcher: TypeScript                                    */
/* ------------------------------------------------------------------ */

static const char app_ts[] = "import debug from 'debug';\n"
                             "import pino from 'pino';\n"
                             "import { trace } from '@opentelemetry/api';\n"
                             "\n"
                             "const log = pino();\n"
                             "const dbg = debug('app:server');\n"
                             "const wdbg = debug('app:worker');\n"
                             "const tracer = trace.getTracer('app');\n"
                             "\n"
                             "export function serve(port: number) {\n"
                             "  console.log('listening on %s', port);\n"
                             "  dbg('request %o', port);\n"
                             "  log.info({ a: 1 }, 'pino message %s', port);\n"
                             "  console.error(`failed at ${port} now`);\n"
                             "}\n"
                             "\n"
                             "export function work(port: number) {\n"
                             "  wdbg('request %o', port);\n"
                             "  tracer.startActiveSpan('work item', (span) => span.end());\n"
                             "}\n";

TEST(matcher_typescript)
{
    unit_write_str("ts/app.ts", app_ts);
    graph *g = index_dir("ts");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    map_match r;

    r = match(m, w, "listening on 8080", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.serve", unit_line_of(app_ts, "console.log"));
    graph_emit em;
    graph_get_emit(g, e[0], &em);
    CHECK_STR(em.receiver, "console");
    CHECK_STR(em.method, "log");
    /* pino: the object first, the message second */
    r = match(m, w, "pino message x", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.serve", unit_line_of(app_ts, "pino message"));
    /* template literal */
    r = match(m, w, "failed at 80 now", NULL, "error", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.serve", unit_line_of(app_ts, "console.error"));
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.style, GRAPH_STYLE_TEMPLATE);
    /* debug loggers: the namespace is the logger name */
    r = match(m, w, "request 8080", NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    r = match(m, w, "request 8080", "app:worker", NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.flags, MAP_MATCH_LOGGER);
    CHECK_EMIT(g, e[0], "app.work", unit_line_of(app_ts, "wdbg('request"));
    r = match(m, w, "request 8080", "app:server", "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.serve", unit_line_of(app_ts, "dbg('request"));
    /* a span name */
    r = match(m, w, "work item", NULL, "SPAN", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "app.work", unit_line_of(app_ts, "startActiveSpan"));
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.kind, GRAPH_EMIT_SPAN);

    matcher_done(g, m, w);
}

/* Node's util.format, as debug uses it: %j and %o/%O are holes, and a
 * first argument that is not a string is shown (debug formats it with
 * "%O"), followed by the other arguments. */
static const char sync_js[] = "const debug = require('debug');\n"
                              "const log = debug('app:sync');\n"
                              "\n"
                              "function send(obj, host) {\n"
                              "  log('sent %j to %s', obj, host);\n"
                              "}\n"
                              "\n"
                              "function inspect(obj) {\n"
                              "  log('state %o then %O', obj, obj);\n"
                              "}\n"
                              "\n"
                              "function after(state) {\n"
                              "  log(state, 'after sync');\n"
                              "}\n"
                              "\n"
                              "function alone(state) {\n"
                              "  log(state);\n"
                              "}\n"
                              "\n"
                              "module.exports = { send, inspect, after, alone };\n";

TEST(matcher_javascript_util_format)
{
    unit_write_str("js/sync.js", sync_js);
    graph *g = index_dir("js");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    graph_emit em;

    map_match r = match(m, w, "sent {\"a\":1} to example.com", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("sent  to "));
    CHECK_EMIT(g, e[0], "sync.send", unit_line_of(sync_js, "sent %j"));
    graph_get_emit(g, e[0], &em);
    CHECK_STR(em.tmpl, "sent %j to %s");
    CHECK_STR(em.logger, "app:sync");
    r = match(m, w, "state { a: 1 } then { a: 1 }", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen("state  then "));
    CHECK_EMIT(g, e[0], "sync.inspect", unit_line_of(sync_js, "state %o"));

    /* log(state, 'after sync'): the value, a space, the literal. */
    uint32_t after = unit_line_of(sync_js, "'after sync'");
    r = match(m, w, "{ ready: true } after sync", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_INT(r.literal, strlen(" after sync"));
    CHECK_EMIT(g, e[0], "sync.after", after);
    graph_get_emit(g, e[0], &em);
    CHECK_STR(em.tmpl, "%s after sync");
    CHECK_INT(em.style, GRAPH_STYLE_CONCAT);
    r = match(m, w, "3 after sync", NULL, NULL, e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "sync.after", after);

    /* log(state) alone has no text: a site only its logger can point to. */
    em = unit_emit_at(g, "sync.alone", unit_line_of(sync_js, "log(state);"));
    CHECK_INT(em.style, GRAPH_STYLE_REF);
    CHECK_STR(em.tmpl, "");
    CHECK_INT(map_matcher_unseen(m, "app:sync", NULL, 0, NULL, e, 16), 1);
    CHECK_EMIT(g, e[0], "sync.alone", unit_line_of(sync_js, "log(state);"));

    matcher_done(g, m, w);
}

/* ------------------------------------------------------------------ */
/* The mapper                                                          */
/* ------------------------------------------------------------------ */

static const char ma_py[] = "import logging\n"
                            "\n"
                            "logger = logging.getLogger(__name__)\n"
                            "\n"
                            "\n"
                            "def run_alpha():\n"
                            "    logger.info(\"starting alpha\")\n"
                            "    alpha_worker()\n"
                            "\n"
                            "\n"
                            "def alpha_worker():\n"
                            "    logger.info(\"shared step %s\", 1)\n"
                            "\n"
                            "\n"
                            "def place(order):\n"
                            "    logger.debug(\"placing order %s now\", order)\n"
                            "    return order\n"
                            "\n"
                            "\n"
                            "def rebuild_search_index():\n"
                            "    return 1\n";

static const char mb_py[] = "import logging\n"
                            "\n"
                            "logger = logging.getLogger(__name__)\n"
                            "\n"
                            "\n"
                            "def run_beta():\n"
                            "    logger.info(\"starting beta\")\n"
                            "    beta_worker()\n"
                            "\n"
                            "\n"
                            "def beta_worker():\n"
                            "    logger.info(\"shared step %s\", 2)\n";

static const char pay_py[] = "import logging\n"
                             "\n"
                             "logger = logging.getLogger(__name__)\n"
                             "\n"
                             "MSG_FAIL = \"payment failed for card %s\"\n"
                             "\n"
                             "\n"
                             "def helper_log(msg, *args):\n"
                             "    logger.error(msg, *args)\n"
                             "\n"
                             "\n"
                             "def failing(card):\n"
                             "    msg = MSG_FAIL\n"
                             "    helper_log(msg, card)\n"
                             "\n"
                             "\n"
                             "def charge(card):\n"
                             "    logger.info(\"charging card %s\", card)\n";

static graph *open_mapper_repo(void)
{
    unit_write_str("mrepo/pkg/__init__.py", "");
    unit_write_str("mrepo/pkg/a.py", ma_py);
    unit_write_str("mrepo/pkg/b.py", mb_py);
    unit_write_str("mrepo/pkg/pay.py", pay_py);
    return index_dir("mrepo");
}

static map_mapper *new_mapper(const graph *g, const map_mapper_opts *o)
{
    map_mapper *m = NULL;
    CHECK_OK(map_mapper_new(g, o, &m));
    return m;
}

/* A message (logged by logger, NULL: none) and the one symbol whose
 * template places it. */
typedef struct {
    const char *msg, *logger, *sym;
} msg_at;

/* Indexes repo (under the test's directory) and maps each message of want
 * with tokens off: each must be placed by a template at its one symbol. */
static void check_placed(const char *repo, const msg_at *want, size_t n)
{
    graph *g = index_dir(repo);
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = g ? new_mapper(g, &o) : NULL;
    for (size_t i = 0; m && i < n; i++) {
        map_activity a = map_logged(m, want[i].msg, want[i].logger, NULL);
        uint32_t want_sym = unit_sym(g, want[i].sym);
        if (a.strategy != MAP_BY_TEMPLATE || a.nsyms != 1 || a.syms[0] != want_sym)
            unit_fail(__FILE__, __LINE__, "\"%s\": strategy %d, %u symbols, first %u; want %s (%u)",
                      want[i].msg, (int)a.strategy, a.nsyms, a.nsyms ? a.syms[0] : 0, want[i].sym,
                      want_sym);
    }
    map_mapper_free(m);
    graph_close(g);
}
#define CHECK_PLACED(repo, want) check_placed(repo, want, sizeof(want) / sizeof *(want))

/* Maps a message of a training event; returns its activity. */
static uint32_t map_msg(map_mapper *m, const char *text, uint32_t prev, uint32_t *var)
{
    map_event ev = {.text = text, .len = strlen(text), .learn = true};
    uint32_t a, v;
    map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &a, &v);
    if (var)
        *var = v;
    return a;
}

static map_activity activity(const map_mapper *m, uint32_t id)
{
    CHECK(id < map_mapper_nactivities(m));
    map_activity a;
    map_mapper_activity(m, id, &a);
    return a;
}

static void finish(map_mapper *m)
{
    char why[256];
    CHECK_OK(map_mapper_finish(m, why, sizeof why));
}

TEST(mapper_activities_variants_and_cache)
{
    graph *g = open_mapper_repo();
    map_mapper *m = new_mapper(g, NULL);
    /* The fold-over activity exists from the start, with nothing. */
    CHECK_INT(map_mapper_nactivities(m), 1);
    CHECK_STR(activity(m, 0).text, "<other>");
    CHECK_INT(map_mapper_find(m, "<other>"), 0);
    CHECK(map_mapper_graph(m) == g);

    uint32_t v1, v2, v3, v4;
    uint32_t a1 = map_msg(m, "placing order 42 now", UINT32_MAX, &v1);
    uint32_t a2 = map_msg(m, "placing order 42 now", a1, &v2);
    uint32_t a3 = map_msg(m, "placing order 43 now", UINT32_MAX, &v3);
    uint32_t a4 = map_msg(m, "placing order bob now", UINT32_MAX, &v4);
    /* One activity, the template's text; the abstracted messages are its
     * variants: 42 and 43 fold, bob does not. */
    CHECK_INT(a1, a2);
    CHECK_INT(a1, a3);
    CHECK_INT(a1, a4);
    CHECK_INT(v1, v2);
    CHECK_INT(v1, v3);
    CHECK(v4 != v1);
    map_activity pa = activity(m, a1);
    CHECK_STR(pa.text, "placing order %s now");
    CHECK_ONE_SITE(pa, g, "pkg.a.place", MAP_BY_TEMPLATE);
    CHECK(pa.conf[0] == 1.0f);
    CHECK_INT(pa.count, 4);
    CHECK_INT(pa.nvariants, 2);
    const char *vt;
    CHECK_INT(map_mapper_variant(m, v1, &vt), a1);
    CHECK_STR(vt, "placing order <num> now");
    CHECK_INT(map_mapper_variant(m, v4, &vt), a1);
    CHECK_STR(vt, "placing order bob now");
    CHECK_INT(map_mapper_find(m, "placing order %s now"), a1);
    CHECK_INT(map_mapper_find(m, "no such activity"), UINT32_MAX);

    /* Messages no template matches are abstracted into one activity. */
    uint32_t u1 = map_msg(m, "cache warm took 15 ms", UINT32_MAX, &v1);
    uint32_t u2 = map_msg(m, "cache   warm took 99 ms", u1, &v2);
    CHECK_INT(u1, u2);
    CHECK_INT(v1, v2);
    pa = activity(m, u1);
    CHECK_STR(pa.text, "cache warm took <num> ms");
    CHECK_INT(pa.nsyms, 0);
    CHECK_INT(pa.count, 2);
    CHECK_INT(pa.nvariants, 1);

    /* Spans: the name is the activity. */
    uint32_t s1 = map_msg(m, "starting alpha", UINT32_MAX, NULL);
    CHECK_STR(activity(m, s1).text, "starting alpha");
    CHECK_INT(activity(m, s1).syms[0], unit_sym(g, "pkg.a.run_alpha"));

    /* Counts are per event; ids stay after finish. */
    uint32_t n = map_mapper_nactivities(m);
    finish(m);
    CHECK_INT(map_msg(m, "placing order 42 now", UINT32_MAX, NULL), a1);
    CHECK_INT(map_mapper_nactivities(m), n);
    CHECK_INT(activity(m, a1).count, 5);
    map_mapper_free(m);
    graph_close(g);
}

TEST(mapper_nearest_candidate)
{
    graph *g = open_mapper_repo();
    map_mapper *m = new_mapper(g, NULL);
    uint32_t alpha = unit_sym(g, "pkg.a.alpha_worker"), beta = unit_sym(g, "pkg.b.beta_worker");
    /* Without a previous activity: the template's activity, with both
     * functions. */
    uint32_t g0 = map_msg(m, "shared step 1", UINT32_MAX, NULL);
    map_activity pa = activity(m, g0);
    CHECK_STR(pa.text, "shared step %s");
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 2);
    CHECK((pa.syms[0] == alpha && pa.syms[1] == beta) ||
          (pa.syms[0] == beta && pa.syms[1] == alpha));
    CHECK(pa.conf[0] == 0.5f && pa.conf[1] == 0.5f);
    /* After "starting alpha" (run_alpha calls alpha_worker): alpha_worker. */
    uint32_t sa = map_msg(m, "starting alpha", UINT32_MAX, NULL);
    uint32_t x = map_msg(m, "shared step 1", sa, NULL);
    pa = activity(m, x);
    CHECK_STR(pa.text, "shared step %s @pkg.a.alpha_worker");
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], alpha);
    /* After "starting beta": beta_worker. The cache is per message and
     * previous activity, not per message. */
    uint32_t sb = map_msg(m, "starting beta", UINT32_MAX, NULL);
    uint32_t y = map_msg(m, "shared step 7", sb, NULL);
    pa = activity(m, y);
    CHECK_STR(pa.text, "shared step %s @pkg.b.beta_worker");
    CHECK_INT(pa.syms[0], beta);
    CHECK_INT(map_msg(m, "shared step 1", sa, NULL), x);
    CHECK_INT(map_msg(m, "shared step 1", sb, NULL), y);
    /* A function of the same module is nearer to one of them: through
     * the module. */
    uint32_t pl = map_msg(m, "placing order 1 now", UINT32_MAX, NULL);
    CHECK_INT(map_msg(m, "shared step 1", pl, NULL), x);
    /* A previous activity near neither (another module): the group. */
    uint32_t ch = map_msg(m, "charging card 1", UINT32_MAX, NULL);
    CHECK_INT(activity(m, ch).nsyms, 1);
    CHECK_INT(map_msg(m, "shared step 1", ch, NULL), g0);
    /* An unmapped previous activity: the group. */
    uint32_t un = map_msg(m, "zzz qqq", UINT32_MAX, NULL);
    CHECK_INT(map_msg(m, "shared step 1", un, NULL), g0);
    /* The logger decides before proximity does. */
    map_event ev = {.text = "shared step 3", .len = 13, .logger = "pkg.b", .learn = true};
    uint32_t a, v;
    map_mapper_map(m, &ev, &sa, sa != UINT32_MAX, NULL, 0, &a, &v);
    CHECK_INT(activity(m, a).nsyms, 1);
    CHECK_INT(activity(m, a).syms[0], beta);
    map_mapper_free(m);
    graph_close(g);
}

/* peek answers as map does for what the mapper knows, and keeps nothing
 * for what it does not. */
TEST(mapper_peek_keeps_nothing)
{
    graph *g = open_mapper_repo();
    map_mapper *m = new_mapper(g, NULL);
    uint32_t sa = map_msg(m, "starting alpha", UINT32_MAX, NULL);
    uint32_t x = map_msg(m, "shared step 1", sa, NULL);
    uint32_t na = map_mapper_nactivities(m), nv = map_mapper_nvariants(m);
    uint64_t count = activity(m, x).count;
    uint32_t a, v;
    const char *text;
    /* Known: the same activity and variant as map, after the same
     * previous activity; the group when none. */
    map_event ev = {.text = "shared step 1", .len = 13};
    map_mapper_peek(m, &ev, &sa, sa != UINT32_MAX, NULL, 0, &a, &v, &text);
    CHECK_INT(a, x);
    CHECK_STR(text, "shared step %s @pkg.a.alpha_worker");
    CHECK(v != UINT32_MAX);
    /* A new number in a known template: the activity, no variant yet. */
    ev = (map_event){.text = "shared step 123456", .len = 18};
    map_mapper_peek(m, &ev, NULL, 0, NULL, 0, &a, &v, &text);
    CHECK_STR(text, "shared step %s");
    CHECK(a != UINT32_MAX);
    /* A template match whose activity was never made: none, its text. */
    ev = (map_event){.text = "charging card 77", .len = 16};
    map_mapper_peek(m, &ev, NULL, 0, NULL, 0, &a, &v, &text);
    CHECK_INT(a, UINT32_MAX);
    CHECK_INT(v, UINT32_MAX);
    CHECK_STR(text, "charging card %s");
    /* Nothing matches: none, its abstraction. */
    ev = (map_event){.text = "zzz 42 qqq", .len = 10};
    map_mapper_peek(m, &ev, &x, x != UINT32_MAX, NULL, 0, &a, &v, &text);
    CHECK_INT(a, UINT32_MAX);
    CHECK_STR(text, "zzz <num> qqq");
    /* None of it was kept. */
    CHECK_INT(map_mapper_nactivities(m), na);
    CHECK_INT(map_mapper_nvariants(m), nv);
    CHECK_INT(activity(m, x).count, count);
    /* And map still makes them. */
    uint32_t c = map_msg(m, "charging card 77", UINT32_MAX, NULL);
    CHECK_STR(activity(m, c).text, "charging card %s");
    CHECK_INT(map_mapper_nactivities(m), na + 1);
    map_mapper_free(m);
    graph_close(g);
}

static const char *variant_text(const map_mapper *m, uint32_t var, uint32_t *act)
{
    const char *text;
    *act = map_mapper_variant(m, var, &text);
    return text;
}

/* A message seen again answers from the cache what it answered the first
 * time, activity and variant; a message whose activity depends on the
 * previous one gets a variant for each activity, with the abstracted text
 * of the message (not of the message mapped just before it). */
TEST(mapper_cached_messages_keep_their_variants)
{
    graph *g = open_mapper_repo();
    map_mapper *m = new_mapper(g, NULL);
    uint32_t v1, v2, v3, va;
    uint32_t sa = map_msg(m, "starting alpha", UINT32_MAX, &v1);
    CHECK_INT(map_msg(m, "starting alpha", UINT32_MAX, &v2), sa);
    CHECK_INT(v2, v1);
    uint32_t a, v;
    const char *text;
    map_event ev = {.text = "starting alpha", .len = 14};
    map_mapper_peek(m, &ev, NULL, 0, NULL, 0, &a, &v, &text);
    CHECK_INT(a, sa);
    CHECK_INT(v, v1);
    CHECK_STR(text, activity(m, sa).text);
    CHECK_STR(variant_text(m, v1, &va), "starting alpha");
    CHECK_INT(va, sa);
    /* Another number: the same activity, the same abstraction. */
    uint32_t x = map_msg(m, "shared step 1", sa, &v1);
    CHECK_INT(map_msg(m, "shared step 22", sa, &v2), x);
    CHECK_INT(v2, v1);
    /* The cached "shared step 1" after another activity: another member
     * of the group, and its own variant, "shared step <num>". */
    uint32_t sb = map_msg(m, "starting beta", UINT32_MAX, NULL);
    uint32_t y = map_msg(m, "shared step 1", sb, &v3);
    CHECK(y != x);
    CHECK(v3 != v1);
    CHECK_STR(variant_text(m, v3, &va), "shared step <num>");
    CHECK_INT(va, y);
    CHECK_STR(variant_text(m, v1, &va), "shared step <num>");
    CHECK_INT(va, x);
    uint32_t nv = map_mapper_nvariants(m);
    CHECK_INT(map_msg(m, "shared step 1", sb, &v), y);
    CHECK_INT(v, v3);
    CHECK_INT(map_mapper_nvariants(m), nv);
    /* A variant restored by its text is the one mapping made. */
    CHECK_INT(map_mapper_restore_variant(m, y, "shared step <num>"), v3);
    CHECK_INT(map_mapper_nvariants(m), nv);
    map_mapper_free(m);
    graph_close(g);
}

TEST(mapper_constants_strategy)
{
    graph *g = open_mapper_repo();
    map_mapper *m = new_mapper(g, NULL);
    uint32_t a = map_msg(m, "payment failed for card 4242", UINT32_MAX, NULL);
    map_activity pa = activity(m, a);
    CHECK_STR(pa.text, "payment failed for card %s");
    CHECK_INT(pa.nsyms, 0); /* decided at finish */
    const uint32_t *cands;
    bool has_const;
    uint32_t nc = map__candidates(m, a, &cands, &has_const);
    CHECK(has_const);
    CHECK_INT(nc, 1);
    CHECK_INT(cands[0], unit_sym(g, "pkg.pay"));
    finish(m);
    pa = activity(m, a);
    /* The record of a message logged through a wrapper names the
     * wrapper's caller: failing() calls helper_log(), which logs a
     * non-literal message (and is called, so it is not taken itself).
     * The constant goes through a local variable, so the call to the
     * wrapper is no site of its own. */
    CHECK_ONE_SITE(pa, g, "pkg.pay.failing", MAP_BY_CONST);
    CHECK(pa.conf[0] == 1.0f);
    map_mapper_free(m);

    /* Turned off: the constant stays unmapped by it (tokens may not map
     * it either: nothing is named like a payment). */
    map_mapper_opts o = {.no_const = true, .no_tokens = true};
    m = new_mapper(g, &o);
    a = map_msg(m, "payment failed for card 4242", UINT32_MAX, NULL);
    finish(m);
    pa = activity(m, a);
    CHECK_INT(pa.nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* A format a function returns, its line written by its caller to a file
 * rather than logged: the caller makes the message. */
TEST(mapper_formatter_callers)
{
    unit_write_str("frepo/srv/__init__.py", "");
    unit_write_str("frepo/srv/access.py",
                   "import logging\n"
                   "log = logging.getLogger(__name__)\n"
                   "\n"
                   "def combined(ts, r):\n"
                   "    return '\"%(ip)s\" - - %(ts)s \"%(method)s %(uri)s\" %(code)d' % dict(\n"
                   "        ip=r.ip, ts=ts, method=r.method, uri=r.uri, code=r.code)\n"
                   "\n"
                   "class Site:\n"
                   "    def log(self, r):\n"
                   "        self.out.write(combined(self.now(), r) + '\\n')\n"
                   "\n"
                   "    def start(self):\n"
                   "        log.info('site starting on %s', self.port)\n");
    graph *g = index_dir("frepo");
    map_mapper *m = new_mapper(g, NULL);
    uint32_t s = map_msg(m, "site starting on 8080", UINT32_MAX, NULL);
    uint32_t a = map_msg(m, "\"10.0.0.1\" - - [29/Nov/2026:03:20:06] \"GET /\" 200", s, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "srv.access.Site.log", MAP_BY_CONST);
    map_mapper_free(m);
    graph_close(g);
}

/* Formats a formatter returns inside a structure (a dictionary's value, a
 * tuple's item), which its callers hand to logging with the rest: each
 * message is its caller's, not the module's that holds the constant. */
TEST(mapper_a_format_returned_in_a_structure_is_its_callers)
{
    unit_write_str("drepo/crawl/__init__.py", "");
    unit_write_str(
        "drepo/crawl/report.py",
        "import logging\n"
        "log = logging.getLogger(__name__)\n"
        "SAVED = 'Saved item from %(src)s' + '\\n' + '%(item)s'\n"
        "DROPPED = 'Dropped item: %(why)s'\n"
        "\n"
        "class Formatter:\n"
        "    def saved(self, item, src):\n"
        "        return {'level': logging.DEBUG, 'msg': SAVED,\n"
        "                'args': {'src': src, 'item': item}}\n"
        "    def dropped(self, item, why):\n"
        "        return {'level': logging.WARNING, 'msg': DROPPED, 'args': {'why': why}}\n"
        "    def failed(self, err):\n"
        "        return logging.ERROR, 'Failed to save: %(err)s', {'err': err}\n"
        "\n"
        "def unpack(d):\n"
        "    return d['level'], d['msg'], d['args']\n"
        "\n"
        "class Pipeline:\n"
        "    def __init__(self):\n"
        "        self.fmt = Formatter()\n"
        "    def on_saved(self, item, src):\n"
        "        log.log(*unpack(self.fmt.saved(item, src)))\n"
        "    def on_dropped(self, item, why):\n"
        "        kw = self.fmt.dropped(item, why)\n"
        "        log.log(*unpack(kw))\n"
        "    def on_failed(self, err):\n"
        "        log.log(*self.fmt.failed(err))\n"
        "    def start(self):\n"
        "        log.info('pipeline starting with %d stages', 3)\n");
    graph *g = index_dir("drepo");
    map_mapper *m = new_mapper(g, NULL);
    uint32_t s = map_msg(m, "pipeline starting with 3 stages", UINT32_MAX, NULL);
    uint32_t a = map_msg(m, "Saved item from <200 http://x/>\n{'id': 1}", s, NULL);
    uint32_t b = map_msg(m, "Dropped item: duplicate", a, NULL);
    uint32_t c = map_msg(m, "Failed to save: disk full", b, NULL);
    finish(m);
    static const char *const want[] = {"crawl.report.Pipeline.on_saved",
                                       "crawl.report.Pipeline.on_dropped",
                                       "crawl.report.Pipeline.on_failed"};
    uint32_t acts[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        map_activity pa = activity(m, acts[i]);
        CHECK_ONE_SITE(pa, g, want[i], MAP_BY_CONST);
    }
    map_mapper_free(m);
    graph_close(g);
}

/* An error's message made in its class's constructor (`super().__init__(
 * f"...")`, `super(`...`)`) is logged by what catches the error, never by
 * the constructor: the base constructor's call is where the text is made,
 * as a constructor call's, and the catcher logging it whole (`"%s"`, the
 * error itself) is the function near it that logs what it was handed. */
TEST(mapper_an_error_message_made_in_its_constructor_is_its_catchers)
{
    unit_write_str("errrepo/net/__init__.py", "");
    unit_write_str("errrepo/net/fetch.py",
                   "import logging\n"
                   "logger = logging.getLogger(__name__)\n"
                   "class FetchError(Exception):\n"
                   "    def __init__(self, url, status):\n"
                   "        super().__init__(f'fetching {url} failed with {status}')\n"
                   "class Fetcher:\n"
                   "    def fetch(self, url):\n"
                   "        logger.debug('fetching %s', url)\n"
                   "        if url.endswith('/bad'):\n"
                   "            raise FetchError(url, 500)\n"
                   "    def crawl(self, urls):\n"
                   "        for u in urls:\n"
                   "            try:\n"
                   "                self.fetch(u)\n"
                   "            except FetchError as e:\n"
                   "                logger.error('%s', e)\n"
                   "        logger.info('crawl finished')\n");
    unit_write_str("errrepo/web/errors.ts", "export class DialError extends Error {\n"
                                            "  constructor(host: string, code: string) {\n"
                                            "    super(`dialing ${host} failed with ${code}`);\n"
                                            "  }\n"
                                            "}\n");
    unit_write_str("errrepo/web/client.ts",
                   "import { DialError } from './errors';\n"
                   "export class Client {\n"
                   "  dial(host: string): void {\n"
                   "    console.log('connecting to %s', host);\n"
                   "    if (!host) throw new DialError(host, 'ECONNREFUSED');\n"
                   "  }\n"
                   "  run(host: string): void {\n"
                   "    try { this.dial(host); } catch (err) { console.error(err.message); }\n"
                   "    console.log('run finished');\n"
                   "  }\n"
                   "}\n");
    graph *g = index_dir("errrepo");
    map_mapper *m = new_mapper(g, NULL);
    uint32_t s = map_msg(m, "fetching http://x/bad", UINT32_MAX, NULL);
    uint32_t a = map_msg(m, "fetching http://x/bad failed with 500", s, NULL);
    map_msg(m, "crawl finished", a, NULL);
    s = map_msg(m, "connecting to db1", UINT32_MAX, NULL);
    uint32_t b = map_msg(m, "dialing db1 failed with ECONNREFUSED", s, NULL);
    map_msg(m, "run finished", b, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "net.fetch.Fetcher.crawl", MAP_BY_CONST);
    pa = activity(m, b);
    CHECK_ONE_SITE(pa, g, "web/client.Client.run", MAP_BY_CONST);
    map_mapper_free(m);
    graph_close(g);
}

/* An error rendered on one line as its class and text (`${err}`,
 * `String(err)`: "TypeError: invalid URL: /x") is the error's message
 * when the code makes an error of that class with that text, logged by
 * what catches it; a line whose name makes no such error is not. */
TEST(mapper_an_error_rendered_on_one_line_is_its_catchers)
{
    unit_write_str(
        "onerepo/http.js",
        "'use strict';\n"
        "class DialError extends Error {\n"
        "  constructor(host) { super(`dialing ${host} failed`); this.name = 'DialError'; }\n"
        "}\n"
        "function request(url, ms) {\n"
        "  if (ms > 1000) throw new DialError(url);\n"
        "  if (url.includes('bad')) throw new TypeError('invalid URL: ' + url);\n"
        "  return 200;\n"
        "}\n"
        "function fetchAll(urls) {\n"
        "  for (const [u, ms] of urls) {\n"
        "    try { console.log('GET %s %d', u, request(u, ms)); }\n"
        "    catch (err) { console.warn(`${err}`); }\n"
        "  }\n"
        "  console.log('fetched %d urls', urls.length);\n"
        "}\n"
        "module.exports = { fetchAll };\n");
    graph *g = index_dir("onerepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t s = map_msg(m, "GET /a 200", UINT32_MAX, NULL);
    uint32_t a = map_msg(m, "TypeError: invalid URL: /bad", s, NULL);
    uint32_t b = map_msg(m, "DialError: dialing /slow failed", a, NULL);
    uint32_t c = map_msg(m, "Note: invalid URL: /bad", b, NULL);
    map_msg(m, "fetched 3 urls", c, NULL);
    finish(m);
    uint32_t want = unit_sym(g, "http.fetchAll");
    map_activity pa = activity(m, a);
    CHECK_INT(pa.strategy, MAP_BY_CONST);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], want);
    pa = activity(m, b);
    CHECK_INT(pa.strategy, MAP_BY_CONST);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], want);
    pa = activity(m, c);
    CHECK(pa.strategy != MAP_BY_CONST);
    map_mapper_free(m);
    graph_close(g);
}

/* A structured logger renders an event as its text and then its fields
 * as key=value pairs, the bound ones among them: the text before the
 * pairs is what the call said. A bare hole never explains it. */
TEST(mapper_fields_after_the_event_are_the_loggers)
{
    unit_write_str("kvrepo/bill/__init__.py", "");
    unit_write_str(
        "kvrepo/bill/invoices.py",
        "import structlog\n"
        "log = structlog.get_logger(__name__)\n"
        "class Invoices:\n"
        "    def __init__(self, tenant):\n"
        "        self.log = log.bind(tenant=tenant)\n"
        "    def create(self, customer, amount):\n"
        "        self.log.info('invoice_created', customer=customer, amount=amount)\n"
        "    def fail(self, customer, reason):\n"
        "        log.error('invoice delivery failed', customer=customer, reason=reason)\n"
        "    def note(self, text):\n"
        "        log.info('%s', text)\n");
    graph *g = index_dir("kvrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a =
        map_logged(m, "invoice_created amount=100 customer=acme tenant=t0", NULL, NULL);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    CHECK_STR(a.text, "invoice_created");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "bill.invoices.Invoices.create"));
    a = map_logged(m,
                   "invoice delivery failed      customer=initech reason='no channel' "
                   "extra={'tries': 3, 'ids': [1, 2]}",
                   NULL, NULL);
    CHECK_ONE_SITE(a, g, "bill.invoices.Invoices.fail", MAP_BY_TEMPLATE);
    /* A formatter that joins `${k}=${v}` unquoted: a value may hold a
     * blank, up to the next pair. */
    a = map_logged(m, "invoice delivery failed customer=Acme Ltd reason=no channel tries=3", NULL,
                   NULL);
    CHECK_ONE_SITE(a, g, "bill.invoices.Invoices.fail", MAP_BY_TEMPLATE);
    /* Text the code does not say, before pairs, is not `%s`'s. */
    a = map_logged(m, "cache warm hits=3", NULL, NULL);
    CHECK_INT(a.nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* A message written as an indented block and reshaped by the call around
 * it (textwrap.dedent, inspect.cleandoc, str.strip) is logged as
 * reshaped: its template is the text the call gives, formats kept. */
TEST(mapper_a_message_dedented_where_it_is_written)
{
    unit_write_str("dedrepo/ops/__init__.py", "");
    unit_write_str("dedrepo/ops/notes.py",
                   "import inspect, logging, textwrap\n"
                   "from textwrap import dedent\n"
                   "log = logging.getLogger(__name__)\n"
                   "def banner(version, target):\n"
                   "    log.warning(textwrap.dedent(\"\"\"\\\n"
                   "        Deploying %s to %s.\n"
                   "          Do not interrupt.\"\"\") % (version, target))\n"
                   "def plain():\n"
                   "    log.info(dedent(\"\"\"\n"
                   "        Maintenance window open.\n"
                   "\n"
                   "        All writes are paused.\n"
                   "    \"\"\").strip())\n"
                   "def drain(target, n):\n"
                   "    log.info(inspect.cleandoc(\"\"\"Draining %s:\n"
                   "            %d connections left\n"
                   "              (%d idle)\n"
                   "            \"\"\"), target, n, 0)\n");
    graph *g = index_dir("dedrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "Deploying 1.3 to prod.\n  Do not interrupt.", NULL, NULL);
    CHECK_STR(a.text, "Deploying %s to %s.\n  Do not interrupt.");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "ops.notes.banner"));
    a = map_logged(m, "Maintenance window open.\n\nAll writes are paused.", NULL, NULL);
    CHECK_ONE_SITE(a, g, "ops.notes.plain", MAP_BY_TEMPLATE);
    a = map_logged(m, "Draining prod:\n3 connections left\n  (0 idle)", NULL, NULL);
    CHECK_STR(a.text, "Draining %s:\n%d connections left\n  (%d idle)");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "ops.notes.drain"));
    map_mapper_free(m);
    graph_close(g);
}

/* An error thrown by a function that nothing of ours calls (a command a
 * framework dispatches: `raise SystemExit("...")`, reported by the
 * runtime) is the raiser's event, as the last frame of its traceback
 * says, when nothing near places it. */
TEST(mapper_an_error_nothing_of_ours_catches_is_its_raisers)
{
    unit_write_str("exitrepo/tool/__init__.py", "");
    unit_write_str("exitrepo/tool/commands.py",
                   "import click\n"
                   "def status(name, dirty):\n"
                   "    click.echo(f'checking {name}')\n"
                   "    if dirty:\n"
                   "        raise SystemExit(f'error: {dirty} uncommitted changes in {name}')\n"
                   "    click.echo('nothing to do')\n");
    graph *g = index_dir("exitrepo");
    map_mapper *m = new_mapper(g, NULL);
    /* The error alone: a run that says nothing else. */
    uint32_t a = map_msg(m, "error: 3 uncommitted changes in gamma", UINT32_MAX, NULL);
    uint32_t s = map_msg(m, "checking alpha", UINT32_MAX, NULL);
    map_msg(m, "nothing to do", s, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "tool.commands.status", MAP_BY_CONST);
    map_mapper_free(m);
    graph_close(g);
}

/* A logging call whose method the run chooses (`getattr(log,
 * level)(...)`, `(urgent ? console.error : console.log)(...)`,
 * `console[level](...)`) is a logging call all the same, at a level the
 * run decides. */
TEST(mapper_a_logging_call_whose_method_the_run_chooses)
{
    unit_write_str("dynrepo/mon/__init__.py", "");
    unit_write_str(
        "dynrepo/mon/check.py",
        "import logging\n"
        "log = logging.getLogger(__name__)\n"
        "SEVERITY = {'ok': 'debug', 'down': 'error'}\n"
        "def check(service, status, ms):\n"
        "    getattr(log, SEVERITY[status])('Service %s is %s (%d ms)', service, status, ms)\n"
        "def page(who, urgent):\n"
        "    (log.critical if urgent else log.info)('Paging %s', who)\n");
    unit_write_str(
        "dynrepo/health.js",
        "'use strict';\n"
        "const LEVEL_OF = { ok: 'info', down: 'error' };\n"
        "function probe(name, state, ms) {\n"
        "  console[LEVEL_OF[state]]('probe %s: %s in %dms', name, state, ms);\n"
        "}\n"
        "function report(n, down) {\n"
        "  (down ? console.error : console.log)('report: %d checked, %d down', n, down);\n"
        "}\n"
        "module.exports = { probe, report };\n");
    graph *g = index_dir("dynrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const struct {
        const char *msg, *sym;
    } want[] = {
        {"Service api is ok (40 ms)", "mon.check.check"},
        {"Paging ann", "mon.check.page"},
        {"probe api: ok in 40ms", "health.probe"},
        {"report: 3 checked, 1 down", "health.report"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        map_activity a = map_logged(m, want[i].msg, NULL, NULL);
        CHECK_ONE_SITE(a, g, want[i].sym, MAP_BY_TEMPLATE);
    }
    map_mapper_free(m);
    graph_close(g);
}

/* A method of a module of ours chosen by a key the code shows
 * (`logger[lvl](...)` with `lvl = ok ? 'info' : 'warn'`) calls those
 * methods: what they put around the message is the caller's message's
 * too, and the caller emits it, not the module's methods. */
TEST(mapper_a_chosen_method_of_a_module_of_ours_is_its_call)
{
    unit_write_str("chorepo/levels.js", "'use strict';\n"
                                        "module.exports = {\n"
                                        "  info: (msg) => console.log(`INFO  ${msg}`),\n"
                                        "  warn: (msg) => console.warn(`WARN  ${msg}`),\n"
                                        "};\n");
    unit_write_str("chorepo/health.js", "'use strict';\n"
                                        "const logger = require('./levels');\n"
                                        "function report(name, state) {\n"
                                        "  const lvl = state === 'ok' ? 'info' : 'warn';\n"
                                        "  logger[lvl](`${name} is ${state}`);\n"
                                        "}\n"
                                        "module.exports = { report };\n");
    static const msg_at want[] = {
        {"INFO  api is ok", NULL, "health.report"},
        {"WARN  db is slow", NULL, "health.report"},
    };
    CHECK_PLACED("chorepo", want);
}

/* A function that works on its parameter (hands it to a call) and logs
 * it inside its own text emits that text: the parameter is a value, as a
 * format's argument is, not its callers' message. */
TEST(mapper_a_parameter_a_function_works_on_is_its_value)
{
    unit_write_str("valrepo/store.js",
                   "'use strict';\n"
                   "class MemoryStore {\n"
                   "  constructor() {\n"
                   "    this.map = new Map();\n"
                   "  }\n"
                   "  delete(key) {\n"
                   "    if (this.map.delete(key)) console.log(`store: deleted ${key}`);\n"
                   "    else console.warn(`store: cannot delete ${key}: ENOENT`);\n"
                   "  }\n"
                   "}\n"
                   "class Sessions {\n"
                   "  constructor() {\n"
                   "    this.store = new MemoryStore();\n"
                   "  }\n"
                   "  logout(user) {\n"
                   "    this.store.delete(`session:${user}`);\n"
                   "  }\n"
                   "}\n"
                   "module.exports = { Sessions };\n");
    static const msg_at want[] = {
        {"store: cannot delete session:ann: ENOENT", NULL, "store.MemoryStore.delete"},
        {"store: deleted session:bob", NULL, "store.MemoryStore.delete"},
    };
    CHECK_PLACED("valrepo", want);
}

/* A function a function returns runs when its own caller calls it. A
 * decorator's wrapper that does work and returns its result logs for
 * itself: the decorator's parameter in its text is a value, not the text
 * of the calls that decorate (`@deprecated('use capture()')`). A logger
 * made to order, which only logs, is still its maker's: its prefix is
 * the text of the call that makes it. */
TEST(mapper_a_returned_function_that_works_logs_for_itself)
{
    unit_write_str("laterrepo/deco.js", "'use strict';\n"
                                        "function deprecated(note) {\n"
                                        "  return function (target, name) {\n"
                                        "    return function (...args) {\n"
                                        "      console.warn(`${name} is deprecated: ${note}`);\n"
                                        "      return target.apply(this, args);\n"
                                        "    };\n"
                                        "  };\n"
                                        "}\n"
                                        "function makeLog(prefix) {\n"
                                        "  return (msg) => console.log(`[${prefix}] ${msg}`);\n"
                                        "}\n"
                                        "module.exports = { deprecated, makeLog };\n");
    unit_write_str("laterrepo/pay.js",
                   "'use strict';\n"
                   "const { deprecated, makeLog } = require('./deco');\n"
                   "const log = makeLog('gateway');\n"
                   "class Gateway {\n"
                   "  settle(id) {\n"
                   "    return id;\n"
                   "  }\n"
                   "}\n"
                   "Gateway.prototype.settle = deprecated('use capture() instead')(\n"
                   "  Gateway.prototype.settle, 'settle');\n"
                   "module.exports = { Gateway, log };\n");
    static const msg_at want[] = {
        {"settle is deprecated: use capture() instead", NULL, "deco.deprecated"},
        {"[gateway] charging 3", NULL, "pay"},
    };
    CHECK_PLACED("laterrepo", want);
}

/* A warning a caller caught (`catch_warnings(record=True)`) and logged
 * inside a message of its own is that caller's record, as an error's
 * text is its catcher's: the warning's text is no decorated message of
 * the warning's site. */
TEST(mapper_a_warning_logged_by_its_catcher_is_the_catchers)
{
    unit_write_str("warnrepo/pkg/__init__.py", "");
    unit_write_str("warnrepo/pkg/jobs.py",
                   "import logging\n"
                   "import warnings\n"
                   "log = logging.getLogger(__name__)\n"
                   "def check(paper):\n"
                   "    if paper not in ('A4', 'A3'):\n"
                   "        warnings.warn(f'paper {paper!r} unknown, using A4')\n"
                   "def submit(job, paper):\n"
                   "    with warnings.catch_warnings(record=True) as caught:\n"
                   "        check(paper)\n"
                   "    for w in caught:\n"
                   "        log.warning('job %s: %s', job, w.message)\n");
    static const msg_at want[] = {
        {"job j11: paper 'tabloid' unknown, using A4", NULL, "pkg.jobs.submit"},
        {"paper 'tabloid' unknown, using A4", NULL, "pkg.jobs.check"},
    };
    CHECK_PLACED("warnrepo", want);
}

/* An error's or a warning's text that opens with a hole, shown inside a
 * message its catcher's logging site renders whole (after a decoration,
 * or from the start): the hole would take the site's own words, and the
 * site is the record's. Alone, the text is still placed by its own site. */
TEST(mapper_a_caught_text_opening_with_a_hole_is_the_catchers)
{
    unit_write_str("headrepo/pkg/__init__.py", "");
    unit_write_str("headrepo/pkg/work.py",
                   "import logging\n"
                   "import warnings\n"
                   "log = logging.getLogger(__name__)\n"
                   "def render(src, w):\n"
                   "    if w > 4000:\n"
                   "        raise ValueError(f'{src}: width {w} beyond the 4000 px limit')\n"
                   "def run(src, w):\n"
                   "    try:\n"
                   "        render(src, w)\n"
                   "    except ValueError as e:\n"
                   "        log.error('render of %s failed: %s', src, e)\n"
                   "def check(n):\n"
                   "    if n > 250:\n"
                   "        warnings.warn('%d sheets exceed the tray capacity of %d' % (n, 250))\n"
                   "def submit(job, n):\n"
                   "    with warnings.catch_warnings(record=True) as caught:\n"
                   "        check(n)\n"
                   "    for x in caught:\n"
                   "        log.warning('job %s: %s', job, x.message)\n");
    static const msg_at want[] = {
        {"render of map.tif failed: map.tif: width 8000 beyond the 4000 px limit", NULL,
         "pkg.work.run"},
        /* The same behind a decoration the text's opening hole took too
         * (a format's `%(threadName)s: `): the site after it is the
         * catcher, though its literal text is less. */
        {"thumb_0: render of map.tif failed: map.tif: width 8000 beyond the 4000 px limit", NULL,
         "pkg.work.run"},
        {"job j10: 300 sheets exceed the tray capacity of 250", NULL, "pkg.work.submit"},
        {"300 sheets exceed the tray capacity of 250", NULL, "pkg.work.check"},
    };
    CHECK_PLACED("headrepo", want);
}

/* process.stdout.write(text) prints a line as console.log does, so a
 * function writing its parameters there is a wrapper: of three, the one
 * named like a message is its callers' text, the others holes. */
TEST(mapper_a_stream_writing_function_is_a_wrapper)
{
    unit_write_str("wrtrepo/tracing.js",
                   "'use strict';\n"
                   "function trace(severity, tag, text) {\n"
                   "  process.stdout.write(`${severity} ${tag} | ${text}\\n`);\n"
                   "}\n"
                   "module.exports = { trace };\n");
    unit_write_str("wrtrepo/task.js", "'use strict';\n"
                                      "const { trace } = require('./tracing');\n"
                                      "function finish(name) {\n"
                                      "  trace('D', 'task', 'DONE');\n"
                                      "}\n"
                                      "module.exports = { finish };\n");
    static const msg_at want[] = {
        {"D task | DONE", NULL, "task.finish"},
    };
    CHECK_PLACED("wrtrepo", want);
}

/* A logger handed to a constructor (`this.log?.info(text)`, the
 * file showing nothing of its type): the wrapper of ours whose class the
 * receiver is named after composes the caller's text. An unknown
 * receiver no wrapper of ours is named like keeps its method's reading
 * (the SMTP tests). */
TEST(mapper_a_handed_logger_is_the_wrapper_it_is_named_after)
{
    unit_write_str("direpo/logger.js", "'use strict';\n"
                                       "class Logger {\n"
                                       "  constructor(scope) { this.scope = scope; }\n"
                                       "  info(message) {\n"
                                       "    console.log(`INFO  [${this.scope}] ${message}`);\n"
                                       "  }\n"
                                       "}\n"
                                       "module.exports = { Logger };\n");
    unit_write_str("direpo/mailer.js", "'use strict';\n"
                                       "class Mailer {\n"
                                       "  constructor({ logger } = {}) { this.log = logger; }\n"
                                       "  send(to) {\n"
                                       "    this.log?.info(`mailed ${to}`);\n"
                                       "  }\n"
                                       "}\n"
                                       "module.exports = { Mailer };\n");
    static const msg_at want[] = {
        {"INFO  [shop.mailer] mailed ann@example.org", NULL, "mailer.Mailer.send"},
    };
    CHECK_PLACED("direpo", want);
}

/* A formatter's decoration that names the record's level (`DEBUG sync:
 * `) is no message's: after it, a message of few words is the caller's
 * (a start elsewhere must show 8 literal bytes). */
TEST(mapper_a_short_message_after_a_level_decoration)
{
    unit_write_str("lvrepo/sync.js", "'use strict';\n"
                                     "function push(log, file) {\n"
                                     "  log.debug(`pushed ${file}`);\n"
                                     "}\n"
                                     "function pull(log, file) {\n"
                                     "  log.debug(`pulled ${file} from the remote`);\n"
                                     "}\n"
                                     "module.exports = { push, pull };\n");
    static const msg_at want[] = {
        {"DEBUG sync: pushed a.txt", NULL, "sync.push"},
        {"2026-12-06T10:00:01Z [debug] sync: pushed a.txt", NULL, "sync.push"},
        {"DEBUG sync: pulled a.txt from the remote", NULL, "sync.pull"},
    };
    CHECK_PLACED("lvrepo", want);
}

/* The console is no logger handed in: `console.log(text)` keeps its own
 * reading though a class of ours named like it has a wrapper `log`. */
TEST(mapper_the_console_is_no_handed_logger)
{
    unit_write_str("conrepo/reporter.js", "'use strict';\n"
                                          "class ConsoleReporter {\n"
                                          "  log(msg) {\n"
                                          "    process.stdout.write(`> ${msg}\\n`);\n"
                                          "  }\n"
                                          "}\n"
                                          "function done(n) {\n"
                                          "  console.log('all suites finished');\n"
                                          "}\n"
                                          "module.exports = { ConsoleReporter, done };\n");
    graph *g = index_dir("conrepo");
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "reporter.done"), &first);
    CHECK_INT(n, 1);
    graph_close(g);
}

/* A tagged template logged (`fmt\`...\``, String.raw): the tag hands
 * the literal pieces and the values on, so the text is the template's. */
TEST(mapper_a_tagged_template_is_its_template)
{
    unit_write_str("tagrepo/stall.js",
                   "'use strict';\n"
                   "const fmt = (s, ...v) => String.raw({ raw: s }, ...v.map(String));\n"
                   "function sell(name, item) {\n"
                   "  console.warn(fmt`${name}: no price for ${item}, not sold`);\n"
                   "}\n"
                   "function save(day) {\n"
                   "  console.log(String.raw`export written to /data/day-${day}.csv`);\n"
                   "}\n"
                   "module.exports = { sell, save };\n");
    static const msg_at want[] = {
        {"herbs: no price for sage, not sold", NULL, "stall.sell"},
        {"export written to /data/day-mon.csv", NULL, "stall.save"},
    };
    CHECK_PLACED("tagrepo", want);
}

/* process.emitWarning(text, type, code): Node prints the text after
 * `(node:PID) [code] type: `; type and code are no part of it. */
TEST(mapper_a_node_warning_is_its_text)
{
    unit_write_str("warnrepo/pool.js",
                   "'use strict';\n"
                   "function make(opts) {\n"
                   "  if (opts.legacy) process.emitWarning('The legacy option is deprecated', "
                   "'DeprecationWarning', 'WP001');\n"
                   "}\n"
                   "module.exports = { make };\n");
    static const msg_at want[] = {
        {"(node:4242) [WP001] DeprecationWarning: The legacy option is deprecated", NULL,
         "pool.make"},
    };
    CHECK_PLACED("warnrepo", want);
}

/* A line of JSON made from an object literal (`console.log(JSON.stringify({
 * event: 'webhook_failed', hook: hook.id }))`): its template is the JSON
 * text, keys and literal values as written, a hole per other value. */
TEST(mapper_a_json_line_of_an_object_literal)
{
    unit_write_str("jsonrepo/hooks.js",
                   "'use strict';\n"
                   "function failed(hook, status) {\n"
                   "  console.log(JSON.stringify({ event: 'webhook_failed', hook: hook.id, status, "
                   "retry: true }));\n"
                   "}\n"
                   "function delivered(hook, body) {\n"
                   "  process.stdout.write(JSON.stringify({ event: 'webhook_delivered', hook: "
                   "hook.id, bytes: body.length }) + '\\n');\n"
                   "}\n"
                   "module.exports = { failed, delivered };\n");
    static const msg_at want[] = {
        {"{\"event\":\"webhook_failed\",\"hook\":\"wh_erp\",\"status\":422,\"retry\":true}", NULL,
         "hooks.failed"},
        {"{\"event\":\"webhook_delivered\",\"hook\":\"wh_erp\",\"bytes\":106}\n", NULL,
         "hooks.delivered"},
    };
    CHECK_PLACED("jsonrepo", want);
}

/* The debug module on a terminal writes the time since the namespace's
 * last line after the message (`+12ms`): no part of what the call said. */
TEST(mapper_the_debug_modules_elapsed_time_is_not_the_message)
{
    unit_write_str("elrepo/client.js", "'use strict';\n"
                                       "const debug = require('debug')('shop:client');\n"
                                       "function connect(host, n) {\n"
                                       "  debug('connect :: host %s, %d queued', host, n);\n"
                                       "}\n"
                                       "module.exports = { connect };\n");
    static const msg_at want[] = {
        {"  shop:client connect :: host db1, 2 queued +12ms", NULL, "client.connect"},
        {"shop:client connect :: host db1, 2 queued +3s", NULL, "client.connect"},
    };
    CHECK_PLACED("elrepo", want);
}

/* A function that prints one thing made of its message parameter
 * (`print(f"[app] {msg}")`), or its message among words of its own
 * (`print("[app]", msg, sep=" | ")`), is a wrapper, as one that logs it
 * is; a print to another file writes data (generated code), not its
 * callers' text. */
TEST(mapper_a_print_of_the_message_is_a_wrapper)
{
    unit_write_str("prrepo/app/__init__.py", "");
    unit_write_str("prrepo/app/cli.py", "import sys\n"
                                        "def say(msg):\n"
                                        "    print(f\"[app] {msg}\", file=sys.stderr)\n"
                                        "class Writer:\n"
                                        "    def __init__(self, out):\n"
                                        "        self.out = out\n"
                                        "    def write_line(self, line):\n"
                                        "        print(\"    \" + line, file=self.out)\n"
                                        "def note(msg):\n"
                                        "    print(\"[app]\", msg, sep=\" | \")\n"
                                        "def run(w):\n"
                                        "    say(\"loading the catalogue\")\n"
                                        "    w.write_line(\"def _execute():\")\n"
                                        "    note(\"catalogue loaded\")\n");
    static const msg_at want[] = {
        {"[app] loading the catalogue", NULL, "app.cli.run"},
        {"[app] | catalogue loaded", NULL, "app.cli.run"},
    };
    CHECK_PLACED("prrepo", want);
    /* The generated line handed to write_line is no logging site. */
    graph *g = index_dir("prrepo");
    CHECK_INT(unit_emit_at(g, "app.cli.run", 13).kind, GRAPH_EMIT_CALL);
    graph_close(g);
}

/* A logger of its own making whose method fills the format it is handed
 * (`text = format.format(**kwargs) if format else ""`, then printed with
 * the level): its callers' formats are the sites, wherever the call's
 * method name says no level (`log.failure(...)`). */
TEST(mapper_a_format_parameter_filled_by_its_function)
{
    unit_write_str("fmrepo/fw/__init__.py", "");
    unit_write_str("fmrepo/fw/logger.py",
                   "class Logger:\n"
                   "    def __init__(self, namespace):\n"
                   "        self.namespace = namespace\n"
                   "    def emit(self, level, format=None, **kwargs):\n"
                   "        text = format.format(**kwargs) if format else \"\"\n"
                   "        print(f\"[{self.namespace}#{level}] {text}\")\n"
                   "    def failure(self, format, failure=None, **kwargs):\n"
                   "        self.emit(\"critical\", format, failure=failure, **kwargs)\n");
    unit_write_str("fmrepo/fw/proto.py", "from .logger import Logger\n"
                                         "class Factory:\n"
                                         "    log = Logger(__name__)\n"
                                         "    def boom(self, f):\n"
                                         "        self.log.failure(\"Unhandled error in {where}\", "
                                         "failure=f, where=self)\n");
    static const msg_at want[] = {
        {"[fw.proto#critical] Unhandled error in <Factory>", NULL, "fw.proto.Factory.boom"},
    };
    CHECK_PLACED("fmrepo", want);
}

/* A translated format with its arguments after the translation
 * (`_("...") % name`, `ngettext(one, many, n) % {...}`) is the source
 * literal's format: the plural one for ngettext, as any count but one
 * renders it. */
TEST(mapper_a_translated_format_is_its_source_literal)
{
    unit_write_str("i18nrepo/pkg/__init__.py", "");
    unit_write_str("i18nrepo/pkg/install.py",
                   "import logging\n"
                   "from gettext import gettext as _, ngettext\n"
                   "log = logging.getLogger(__name__)\n"
                   "def verify(name):\n"
                   "    log.info(_('Verified signature of %s') % name)\n"
                   "def unpack(name, n):\n"
                   "    log.info(ngettext('Unpacked %(n)d file from %(name)s',\n"
                   "                      'Unpacked %(n)d files from %(name)s', n)\n"
                   "             % {'n': n, 'name': name})\n");
    static const msg_at want[] = {
        {"Verified signature of six", NULL, "pkg.install.verify"},
        {"Unpacked 300 files from numpy", NULL, "pkg.install.unpack"},
    };
    CHECK_PLACED("i18nrepo", want);
}

/* A record of a child logger (`harbor.yard.straddle1`, made by
 * getChild) tells the sites of one text apart by the module whose logger
 * is its nearest ancestor. */
TEST(mapper_a_child_logger_s_record_is_its_ancestor_module_s)
{
    unit_write_str("kidrepo/harbor/__init__.py", "");
    unit_write_str("kidrepo/harbor/cranes.py", "import logging\n"
                                               "log = logging.getLogger(__name__)\n"
                                               "class Crane:\n"
                                               "    def __init__(self, n):\n"
                                               "        self.log = log.getChild('crane%d' % n)\n"
                                               "    def lift(self, box):\n"
                                               "        self.log.info('lifted %s', box)\n");
    unit_write_str("kidrepo/harbor/yard.py", "import logging\n"
                                             "log = logging.getLogger(__name__)\n"
                                             "class Straddle:\n"
                                             "    def __init__(self, n):\n"
                                             "        self.log = log.getChild('straddle%d' % n)\n"
                                             "    def lift(self, box):\n"
                                             "        self.log.info('lifted %s', box)\n");
    static const msg_at want[] = {
        {"lifted MSKU1", "harbor.yard.straddle1", "harbor.yard.Straddle.lift"},
        {"lifted MSKU2", "harbor.cranes.crane2", "harbor.cranes.Crane.lift"},
    };
    CHECK_PLACED("kidrepo", want);
}

/* A literal an imported function styles (`click.style("On project ",
 * bold=True) + name`) is text of the message, its escapes aside. */
TEST(mapper_a_styled_literal_is_the_message_s_text)
{
    unit_write_str("stylrepo/tool/__init__.py", "");
    unit_write_str("stylrepo/tool/cmds.py",
                   "import click\n"
                   "def status(name):\n"
                   "    click.echo(click.style('On project ', bold=True) + name)\n"
                   "def done():\n"
                   "    click.echo(click.style('All checks passed', fg='green'))\n");
    static const msg_at want[] = {
        {"On project alpha", NULL, "tool.cmds.status"},
        {"All checks passed", NULL, "tool.cmds.done"},
    };
    CHECK_PLACED("stylrepo", want);
}

/* A call of an entry of a table of one logger's methods
 * (`self._report[kind](...)` with `self._report = {"up": log.info,
 * "flapping": log.warning}`) is a logging call at the level the key
 * chooses. */
TEST(mapper_a_table_of_logger_methods_called_by_key_logs)
{
    unit_write_str("tabrepo/mon/__init__.py", "");
    unit_write_str(
        "tabrepo/mon/watch.py",
        "import logging\n"
        "log = logging.getLogger(__name__)\n"
        "REPORT = {'ok': log.debug, 'down': log.error}\n"
        "class Monitor:\n"
        "    def __init__(self, service):\n"
        "        self.service = service\n"
        "        self._report = {'up': log.info, 'flapping': log.warning}\n"
        "    def transition(self, kind, n):\n"
        "        self._report[kind]('Service %s went %s %d times', self.service, kind, n)\n"
        "def probe(name, state):\n"
        "    REPORT[state]('probe of %s: %s', name, state)\n");
    static const msg_at want[] = {
        {"Service db went flapping 3 times", NULL, "mon.watch.Monitor.transition"},
        {"probe of api: down", NULL, "mon.watch.probe"},
    };
    CHECK_PLACED("tabrepo", want);
}

/* A wrapper whose logging call takes its message as an argument of a
 * literal format (`log.info("step %d: %s", n, text)`) is read as `"step
 * %d: %s" % (n, text)` is: the callers' text, the count a hole. */
TEST(mapper_a_message_passed_as_a_format_argument_is_the_callers)
{
    unit_write_str("argrepo/deploy/__init__.py", "");
    unit_write_str("argrepo/deploy/steps.py", "import logging\n"
                                              "log = logging.getLogger('deploy')\n"
                                              "def log_step(n, text):\n"
                                              "    log.info('step %d: %s', n, text)\n");
    unit_write_str("argrepo/deploy/collect.py",
                   "from .steps import log_step\n"
                   "def collect(pages):\n"
                   "    log_step(1, 'collected %d pages' % len(pages))\n");
    static const msg_at want[] = {
        {"step 1: collected 12 pages", "deploy", "deploy.collect.collect"},
    };
    CHECK_PLACED("argrepo", want);
}

/* A tag an adapter or formatter appends after the caller's text (`...
 * [carrier=parcelo]`) is read past, as one before it is. */
TEST(mapper_a_tag_after_the_message_is_read_past)
{
    unit_write_str("tailrepo/ship/__init__.py", "");
    unit_write_str("tailrepo/ship/push.py",
                   "import logging\n"
                   "log = logging.getLogger(__name__)\n"
                   "def push_all(shipments):\n"
                   "    log.info('all %d shipments booked', len(shipments))\n");
    static const msg_at want[] = {
        {"all 2 shipments booked [carrier=parcelo]", NULL, "ship.push.push_all"},
    };
    CHECK_PLACED("tailrepo", want);
}

/* console.count(label) and console.timeEnd(label) write the label and
 * then what the runtime counted or timed: "search requests: 3",
 * "sync: 12.5ms". */
TEST(mapper_a_console_count_or_timer_is_its_label)
{
    unit_write_str("cntrepo/limiter.js", "'use strict';\n"
                                         "function take(name) {\n"
                                         "  console.count(`${name} requests`);\n"
                                         "}\n"
                                         "function sync() {\n"
                                         "  console.time('sync of the ledger');\n"
                                         "  console.timeEnd('sync of the ledger');\n"
                                         "}\n"
                                         "module.exports = { take, sync };\n");
    graph *g = index_dir("cntrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "search requests: 3", NULL, NULL);
    CHECK_ONE_SITE(a, g, "limiter.take", MAP_BY_TEMPLATE);
    a = map_logged(m, "sync of the ledger: 12.503ms", NULL, NULL);
    CHECK_ONE_SITE(a, g, "limiter.sync", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* Python's string.Template ($name, ${name}, $$) kept in a constant and
 * filled by substitute(), and a format filled by format_map(). */
TEST(mapper_dollar_templates_and_format_map)
{
    unit_write_str("dolrepo/mail/__init__.py", "");
    unit_write_str("dolrepo/mail/texts.py",
                   "from string import Template\n"
                   "QUOTA = Template('Mailbox of ${user} is ${pct}% full, $$0.10 per MB over')\n"
                   "DIGEST = 'Digest #{n} for {user}: {count} new items'\n");
    unit_write_str("dolrepo/mail/sender.py",
                   "import logging\n"
                   "from .texts import QUOTA, DIGEST\n"
                   "log = logging.getLogger(__name__)\n"
                   "def quota(user, pct):\n"
                   "    log.warning(QUOTA.substitute(user=user, pct=pct))\n"
                   "def digest(user, n, count):\n"
                   "    log.info(DIGEST.format_map({'n': n, 'user': user, 'count': count}))\n");
    graph *g = index_dir("dolrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "Mailbox of bob is 97% full, $0.10 per MB over", NULL, NULL);
    CHECK_STR(a.text, "Mailbox of %s is %s%% full, $0.10 per MB over");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "mail.sender.quota"));
    a = map_logged(m, "Digest #3 for ann: 4 new items", NULL, NULL);
    CHECK_ONE_SITE(a, g, "mail.sender.digest", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* A wrapper that prints or logs its *args joined (`print(*args,
 * file=sys.stderr)`, `" ".join(str(a) for a in args)`, `"-".join(map(str,
 * args))`): each call's arguments, joined the same way, are its caller's
 * message, through a wrapper that passes its own *args on too. */
TEST(mapper_a_wrapper_that_joins_its_arguments_logs_its_callers_message)
{
    unit_write_str("joinrepo/cli/__init__.py", "");
    unit_write_str("joinrepo/cli/out.py", "import logging, sys\n"
                                          "log = logging.getLogger(__name__)\n"
                                          "def eprint(*args, **kwargs):\n"
                                          "    print(*args, file=sys.stderr, **kwargs)\n"
                                          "def log_call(*args, level=logging.INFO):\n"
                                          "    log.log(level, ' '.join(str(a) for a in args))\n"
                                          "def note(*parts):\n"
                                          "    log.info('-'.join(map(str, parts)))\n"
                                          "def say(*args):\n"
                                          "    eprint(*args)\n");
    unit_write_str("joinrepo/cli/jobs.py", "from .out import eprint, log_call, note, say\n"
                                           "def copy(n):\n"
                                           "    eprint('warning: large backup of', n, 'files')\n"
                                           "def post(amount, account):\n"
                                           "    log_call('posting', amount, 'to', account)\n"
                                           "def tag(a):\n"
                                           "    note('cache', a, 'cold')\n"
                                           "def shout(x):\n"
                                           "    say('loud noise at', x)\n");
    graph *g = index_dir("joinrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const struct {
        const char *msg, *text, *sym;
    } want[] = {
        {"warning: large backup of 400 files", "warning: large backup of %s files",
         "cli.jobs.copy"},
        {"posting 100 to cash", "posting %s to %s", "cli.jobs.post"},
        {"cache-7-cold", "cache-%s-cold", "cli.jobs.tag"},
        {"loud noise at 3", "loud noise at %s", "cli.jobs.shout"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        map_activity a = map_logged(m, want[i].msg, NULL, NULL);
        CHECK_STR(a.text, want[i].text);
        CHECK_INT(a.nsyms, 1);
        CHECK_INT(a.syms[0], unit_sym(g, want[i].sym));
    }
    map_mapper_free(m);
    graph_close(g);
}

/* A base class's method that logs a format by its name on the instance
 * (`self.log.info(self.MSG_OPEN, name)`) logs each subclass's own text of
 * it too: those messages are that method's. */
TEST(mapper_a_format_a_subclass_overrides_is_the_base_methods)
{
    unit_write_str("ovrepo/feeds/__init__.py", "");
    unit_write_str("ovrepo/feeds/sources.py", "import logging\n"
                                              "log = logging.getLogger(__name__)\n"
                                              "class Source:\n"
                                              "    MSG_OPEN = 'Opening source %s'\n"
                                              "    def __init__(self, name):\n"
                                              "        self.name = name\n"
                                              "    def load(self):\n"
                                              "        log.info(self.MSG_OPEN, self.name)\n");
    unit_write_str("ovrepo/feeds/kinds.py", "from .sources import Source\n"
                                            "class CsvSource(Source):\n"
                                            "    MSG_OPEN = 'Opening CSV file %s'\n"
                                            "class ApiSource(Source):\n"
                                            "    MSG_OPEN = 'Connecting to endpoint %s'\n");
    graph *g = index_dir("ovrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const char *const msgs[] = {"Opening source s1", "Opening CSV file stock.csv",
                                       "Connecting to endpoint api.example"};
    for (size_t i = 0; i < 3; i++) {
        map_activity a = map_logged(m, msgs[i], "feeds.sources", "INFO");
        CHECK_ONE_SITE(a, g, "feeds.sources.Source.load", MAP_BY_TEMPLATE);
    }
    map_mapper_free(m);
    graph_close(g);
}

/* A message a function of ours formats and returns, logged where it is
 * called (`console.log(TEXT.shipped(id, carrier))`), in TypeScript too,
 * an arrow's expression body being what it returns. */
TEST(mapper_a_typescript_message_an_arrow_returns_is_its_callers)
{
    unit_write_str(
        "arrowrepo/messages.ts",
        "export const TEXT = {\n"
        "  shipped: (id: string, carrier: string) => `order ${id} shipped via ${carrier}`,\n"
        "};\n"
        "export function refunded(id: string, n: number): string {\n"
        "  return `refund of ${n} EUR issued for ${id}`;\n"
        "}\n");
    unit_write_str("arrowrepo/orders.ts", "import { TEXT, refunded } from './messages';\n"
                                          "export function ship(id: string, carrier: string) {\n"
                                          "  console.log(TEXT.shipped(id, carrier));\n"
                                          "}\n"
                                          "export function refund(id: string) {\n"
                                          "  console.info(refunded(id, 7.5));\n"
                                          "}\n");
    graph *g = index_dir("arrowrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "order o-1 shipped via dhl", NULL, NULL);
    CHECK_ONE_SITE(a, g, "orders.ship", MAP_BY_TEMPLATE);
    a = map_logged(m, "refund of 7.5 EUR issued for o-2", NULL, NULL);
    CHECK_ONE_SITE(a, g, "orders.refund", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* A logger a factory of ours makes (`createLogger(ns)` returning an
 * object of methods that log with a prefix, and `child()` returning
 * another): its methods are wrappers, and each call is its caller's site
 * with the prefix, whatever the methods are named. */
TEST(mapper_a_logger_a_factory_of_ours_makes)
{
    unit_write_str("factrepo/make-log.js",
                   "'use strict';\n"
                   "function createLogger(ns) {\n"
                   "  return {\n"
                   "    info: (msg, ...a) => console.log(`${ns} INFO ${msg}`, ...a),\n"
                   "    debug: (msg, ...a) => console.log(`${ns} DEBUG ${msg}`, ...a),\n"
                   "    child: (sub) => createLogger(`${ns}:${sub}`),\n"
                   "  };\n"
                   "}\n"
                   "module.exports = { createLogger };\n");
    unit_write_str("factrepo/inventory.js", "'use strict';\n"
                                            "const { createLogger } = require('./make-log');\n"
                                            "const logger = createLogger('inv');\n"
                                            "function restock(sku, qty) {\n"
                                            "  const l = logger.child('restock');\n"
                                            "  l.debug('sku %s now at %d', sku, qty);\n"
                                            "}\n"
                                            "function audit(skus) {\n"
                                            "  logger.info('audit done: %s', skus.join(','));\n"
                                            "}\n"
                                            "module.exports = { restock, audit };\n");
    graph *g = index_dir("factrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "inv:restock DEBUG sku A-1 now at 15", NULL, NULL);
    CHECK_STR(a.text, "%s DEBUG sku %s now at %d");
    CHECK_ONE_SITE(a, g, "inventory.restock", MAP_BY_TEMPLATE);
    a = map_logged(m, "inv INFO audit done: A-1,B-2", NULL, NULL);
    CHECK_STR(a.text, "%s INFO audit done: %s");
    CHECK_ONE_SITE(a, g, "inventory.audit", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* A traceback printed whole (`traceback.print_exc()` after a print of
 * its own) is the function whose frame caught it, the first of the
 * traceback, though that function prints rather than logs. */
TEST(mapper_a_traceback_printed_whole_is_its_catchers)
{
    unit_write_str("tbrepo/plug/__init__.py", "");
    unit_write_str("tbrepo/plug/loader.py",
                   "import sys, traceback\n"
                   "def _import(name):\n"
                   "    raise ImportError(name)\n"
                   "def load(names):\n"
                   "    for n in names:\n"
                   "        try:\n"
                   "            _import(n)\n"
                   "        except ImportError:\n"
                   "            print('Failed to load %s' % n, file=sys.stderr)\n"
                   "            traceback.print_exc()\n");
    graph *g = index_dir("tbrepo");
    map_mapper *m = new_mapper(g, NULL);
    uint32_t s = map_msg(m, "Failed to load x", UINT32_MAX, NULL);
    uint32_t a = map_msg(m,
                         "Traceback (most recent call last):\n"
                         "  File \"/srv/app/plug/loader.py\", line 7, in load\n"
                         "    _import(n)\n"
                         "  File \"/srv/app/plug/loader.py\", line 3, in _import\n"
                         "    raise ImportError(name)\n"
                         "ImportError: x",
                         s, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "plug.loader.load", MAP_BY_STACK);
    map_mapper_free(m);
    graph_close(g);
}

/* A JavaScript error whose text no code of ours holds (the runtime's),
 * logged with its stack (`console.error(err)`): the first function of
 * ours on the stack, from where it was thrown outwards, that catches and
 * logs the line. Frames outside the graph, without a name or naming
 * another function than the one at their line are passed over. */
TEST(mapper_a_javascript_stack_is_its_catchers)
{
    unit_write_str("jsstack/config.js", "'use strict';\n"
                                        "function parse(text) {\n"
                                        "  return JSON.parse(text);\n"
                                        "}\n"
                                        "function load(file, text) {\n"
                                        "  try {\n"
                                        "    return parse(text);\n"
                                        "  } catch (err) {\n"
                                        "    console.error(err);\n"
                                        "  }\n"
                                        "}\n"
                                        "module.exports = { load };\n");
    graph *g = index_dir("jsstack");
    map_mapper *m = new_mapper(g, NULL);
    static const char head[] = "SyntaxError: Unexpected token } in JSON at position 1\n"
                               "    at JSON.parse (<anonymous>)\n";
    char msg[1024];
    snprintf(msg, sizeof msg,
             "%s    at parse (/srv/app/config.js:3:15)\n"
             "    at load (file:///srv/app/config.js:7:12)\n"
             "    at Object.<anonymous> (/srv/app/main.js:4:1)\n"
             "    at node:internal/main/run_main_module:28:49",
             head);
    uint32_t a = map_msg(m, msg, UINT32_MAX, NULL);
    /* The frame of load names another function: nothing is read. */
    snprintf(msg, sizeof msg,
             "%s    at parse (/srv/app/config.js:3:15)\n"
             "    at start (/srv/app/config.js:7:12)\n",
             head);
    uint32_t b = map_msg(m, msg, UINT32_MAX, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "config.load", MAP_BY_STACK);
    pa = activity(m, b);
    CHECK(pa.strategy != MAP_BY_STACK);
    map_mapper_free(m);
    graph_close(g);
}

/* A report printed with its format filled in place (`print("..." % n)`,
 * `.format()`) is that format's; a message a formatter rendered with the
 * traceback of what it reports after it is what the call said, not any
 * template whose hole would swallow the traceback. */
TEST(mapper_printed_formats_and_messages_with_their_traceback)
{
    unit_write_str("prrepo/tool/__init__.py", "");
    unit_write_str("prrepo/tool/cli.py",
                   "import logging, sys\n"
                   "log = logging.getLogger(__name__)\n"
                   "def scan(root, files):\n"
                   "    print('found %d files (%.1f MB) in %s' % (len(files), 0.25, root))\n"
                   "    print('{} skipped'.format(0), 'of', len(files))\n"
                   "    sys.stderr.write('warning: slow disk under %s\\n' % root)\n"
                   "def sync(url):\n"
                   "    log.info('sync of %s started', url)\n"
                   "    try:\n"
                   "        fetch(url)\n"
                   "    except ValueError:\n"
                   "        log.exception('sync of %s failed', url)\n");
    graph *g = index_dir("prrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "found 40 files (10.0 MB) in /home", NULL, NULL);
    CHECK_ONE_SITE(a, g, "tool.cli.scan", MAP_BY_TEMPLATE);
    a = map_logged(m, "0 skipped of 40", NULL, NULL);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "tool.cli.scan"));
    /* The line as collected, without the end the code wrote. */
    a = map_logged(m, "warning: slow disk under /home", NULL, NULL);
    CHECK_STR(a.text, "warning: slow disk under %s\n");
    CHECK_INT(a.nsyms, 1);
    static const char failed[] = "sync of https://h/x failed\n"
                                 "Traceback (most recent call last):\n"
                                 "  File \"cli.py\", line 9, in sync\n"
                                 "ValueError: sync of https://h/x started\n";
    a = map_logged(m, failed, "tool.cli", "ERROR");
    CHECK_STR(a.text, "sync of %s failed");
    a = map_logged(m, "sync of https://h/x failed\\nTraceback (most recent call last):\\n  File",
                   "tool.cli", "ERROR");
    CHECK_STR(a.text, "sync of %s failed");
    map_mapper_free(m);
    graph_close(g);
}

/* One word a caller hands to finish a function's own sentence
 * (`connect("localhost")` to `log.info("Connecting to database at " +
 * host)`) is a value that function logs: the event is the function's, not
 * the caller's. A message handed to a wrapper that puts a tag or a label
 * before it ("[db] ", "note: ") stays the caller's. */
TEST(mapper_a_word_that_finishes_a_functions_sentence_is_its_value)
{
    unit_write_str("valrepo/svc/__init__.py", "");
    unit_write_str("valrepo/svc/db.py", "import logging\n"
                                        "log = logging.getLogger(__name__)\n"
                                        "def connect(host):\n"
                                        "    log.info('Connecting to database at ' + host)\n"
                                        "def note(text):\n"
                                        "    log.info('[db] note: ' + text)\n"
                                        "def startup():\n"
                                        "    connect('localhost')\n"
                                        "    note('ready')\n");
    graph *g = index_dir("valrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "Connecting to database at localhost", "svc.db", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "svc.db.connect"));
    a = map_logged(m, "[db] note: ready", "svc.db", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "svc.db.startup"));
    map_mapper_free(m);
    graph_close(g);
}

/* An object handed to a logger after the message is metadata the logger
 * may keep out of the text (winston): the message alone is the site's too. */
TEST(mapper_an_object_after_the_message_may_be_metadata)
{
    unit_write_str("metarepo/mailer.js",
                   "const winston = require('winston');\n"
                   "const logger = winston.createLogger({});\n"
                   "class Mailer {\n"
                   "  send(to, subject) {\n"
                   "    logger.info('queued message for %s', to, { subject });\n"
                   "  }\n"
                   "  stats(n) {\n"
                   "    logger.debug('mailer stats', { sent: n });\n"
                   "  }\n"
                   "}\n"
                   "module.exports = Mailer;\n");
    graph *g = index_dir("metarepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "queued message for a@x.io", NULL, "info");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "mailer.Mailer.send"));
    a = map_logged(m, "mailer stats", NULL, "debug");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "mailer.Mailer.stats"));
    map_mapper_free(m);
    graph_close(g);
}

/* A message table imported by name from another module (`from .codes
 * import ERRORS`, then `log.warning(ERRORS["declined"], card)`): the
 * entry's text is the site's, as for a table of the module's own. */
TEST(mapper_an_entry_of_an_imported_message_table)
{
    unit_write_str("tblrepo/pay/__init__.py", "");
    unit_write_str("tblrepo/pay/codes.py",
                   "import enum\n"
                   "ERRORS = {\n"
                   "    'declined': 'Card ending %s was declined by the issuer',\n"
                   "    'limit': 'Amount %.2f exceeds the limit of %.2f',\n"
                   "}\n"
                   "class Msg(str, enum.Enum):\n"
                   "    REFUNDED = 'Refunded {amount} to {cust}'\n");
    unit_write_str("tblrepo/pay/charge.py",
                   "import logging\n"
                   "from .codes import ERRORS, Msg\n"
                   "log = logging.getLogger(__name__)\n"
                   "def charge(card, amount):\n"
                   "    log.error(ERRORS.get('limit'), amount, 500.0)\n"
                   "def verify(card):\n"
                   "    log.warning(ERRORS['declined'], card)\n"
                   "def refund(cust, amount):\n"
                   "    log.info(Msg.REFUNDED.value.format(amount=amount, cust=cust))\n");
    graph *g = index_dir("tblrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a =
        map_logged(m, "Card ending 1234 was declined by the issuer", "pay.charge", "WARNING");
    CHECK_ONE_SITE(a, g, "pay.charge.verify", MAP_BY_TEMPLATE);
    /* dict.get("key") reads the entry too, and an enum member's value is
     * the text it was given. */
    a = map_logged(m, "Amount 900.00 exceeds the limit of 500.00", "pay.charge", "ERROR");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "pay.charge.charge"));
    a = map_logged(m, "Refunded 7.5 to c4", "pay.charge", "INFO");
    CHECK_ONE_SITE(a, g, "pay.charge.refund", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* The same in JavaScript: a table the module exports (`module.exports =
 * { MESSAGES: {...} }`, `exports.CODES = {...}`) and its entries logged
 * where it is imported, with util.format reading its first argument as
 * the format, whatever comes after it. */
TEST(mapper_an_entry_of_an_exported_message_table)
{
    unit_write_str("jtblrepo/messages.js", "'use strict';\n"
                                           "module.exports = {\n"
                                           "  MESSAGES: {\n"
                                           "    notFound: 'Not found: %s',\n"
                                           "    forbidden: 'User %s is not allowed to %s',\n"
                                           "  },\n"
                                           "  KINDS: { counter: 'counter', gauge: 'gauge' },\n"
                                           "};\n");
    unit_write_str("jtblrepo/codes.js", "exports.CODES = { gone: 'Document %s was deleted' };\n"
                                        "exports.LEVELS = { low: 'low', high: 'high' };\n");
    unit_write_str("jtblrepo/api.js",
                   "'use strict';\n"
                   "const util = require('util');\n"
                   "const { MESSAGES } = require('./messages');\n"
                   "const { CODES } = require('./codes');\n"
                   "const LOCAL = { tooLarge: 'Payload of %d bytes exceeds %d' };\n"
                   "function get(id) {\n"
                   "  console.warn(MESSAGES.notFound, id);\n"
                   "  console.warn(CODES['gone'], id);\n"
                   "}\n"
                   "function post(user, kind, size) {\n"
                   "  if (size > 100) console.error(util.format(LOCAL.tooLarge, size, 100));\n"
                   "  const msg = util.format(MESSAGES.forbidden, user, 'create ' + kind);\n"
                   "  console.error(msg);\n"
                   "}\n"
                   "module.exports = { get, post };\n");
    graph *g = index_dir("jtblrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t get = unit_sym(g, "api.get"), post = unit_sym(g, "api.post");
    map_activity a = map_logged(m, "Not found: u2", NULL, NULL);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], get);
    a = map_logged(m, "Document u3 was deleted", NULL, NULL);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], get);
    a = map_logged(m, "Payload of 500 bytes exceeds 100", NULL, NULL);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], post);
    a = map_logged(m, "User guest is not allowed to create doc", NULL, NULL);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], post);
    /* An exported word is a name (an enum's value), no message: no
     * constant. */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "messages"), &first), words = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        words += e.kind == GRAPH_EMIT_CONST && strncmp(e.name, "KINDS.", 6) == 0;
    }
    CHECK_INT(words, 0);
    n = graph_symbol_emits(g, unit_sym(g, "codes"), &first);
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        words += e.kind == GRAPH_EMIT_CONST && strncmp(e.name, "LEVELS.", 7) == 0;
    }
    CHECK_INT(words, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* A wrapper that logs the entry of a message table its parameter keys
 * (`log.warning(ERRORS[code], *args)`): each caller's key names the
 * message, which is that caller's, through a wrapper of the wrapper too. */
TEST(mapper_a_table_entry_a_wrapper_logs_by_its_callers_key)
{
    unit_write_str("keyrepo/pay/__init__.py", "");
    unit_write_str("keyrepo/pay/codes.py",
                   "ERRORS = {\n"
                   "    'card_declined': 'Card ending %s was declined by the issuer',\n"
                   "    'expired': 'Card ending %s expired on %s',\n"
                   "}\n");
    unit_write_str("keyrepo/pay/charge.py", "import logging\n"
                                            "from .codes import ERRORS\n"
                                            "log = logging.getLogger(__name__)\n"
                                            "def reject(code, *args):\n"
                                            "    log.warning(ERRORS[code], *args)\n"
                                            "def deny(code, *args):\n"
                                            "    reject(code, *args)\n"
                                            "def charge(card):\n"
                                            "    reject('card_declined', card[-4:])\n"
                                            "def renew(card, when):\n"
                                            "    deny('expired', card[-4:], when)\n");
    graph *g = index_dir("keyrepo");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a =
        map_logged(m, "Card ending 5550 was declined by the issuer", "pay.charge", "WARNING");
    CHECK_ONE_SITE(a, g, "pay.charge.charge", MAP_BY_TEMPLATE);
    a = map_logged(m, "Card ending 1234 expired on 2026-11", "pay.charge", "WARNING");
    CHECK_ONE_SITE(a, g, "pay.charge.renew", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* Two functions that log the same constant through a helper, equally
 * near it: both are kept, half each, rather than one picked by its id. */
TEST(mapper_constants_tie_keeps_both)
{
    unit_write_str("trepo/twin/__init__.py", "");
    unit_write_str("trepo/twin/w.py", "import logging\n"
                                      "\n"
                                      "logger = logging.getLogger(__name__)\n"
                                      "\n"
                                      "MSG_TWIN = \"twin failure on %s\"\n"
                                      "\n"
                                      "\n"
                                      "def report(text, x):\n"
                                      "    logger.warning(text, x)\n"
                                      "\n"
                                      "\n"
                                      "def twin_a(x):\n"
                                      "    msg = MSG_TWIN\n"
                                      "    report(msg, x)\n"
                                      "\n"
                                      "\n"
                                      "def twin_b(x):\n"
                                      "    msg = MSG_TWIN\n"
                                      "    report(msg, x)\n");
    graph *g = index_dir("trepo");
    map_mapper *m = new_mapper(g, NULL);
    uint32_t a = map_msg(m, "twin failure on disk0", UINT32_MAX, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_INT(pa.strategy, MAP_BY_CONST);
    CHECK_INT(pa.nsyms, 2);
    uint32_t ta = unit_sym(g, "twin.w.twin_a"), tb = unit_sym(g, "twin.w.twin_b");
    CHECK((pa.syms[0] == ta && pa.syms[1] == tb) || (pa.syms[0] == tb && pa.syms[1] == ta));
    CHECK(pa.conf[0] > 0.49f && pa.conf[0] < 0.51f && pa.conf[1] > 0.49f && pa.conf[1] < 0.51f);
    map_mapper_free(m);
    graph_close(g);
}

static uint32_t map_rec(map_mapper *m, const char *text, const char *logger, const char *level);

/* A format kept in a constant, reaching the logging call through an
 * object (`policy.format`): the function that makes that call logs it,
 * though it is called by others; not the one that calls a wrapper with
 * other, known constants. */
TEST(mapper_constants_own_logging_call)
{
    unit_write_str("crepo/jobs/__init__.py", "");
    unit_write_str(
        "crepo/jobs/run.py",
        "import logging\n"
        "\n"
        "logger = logging.getLogger(__name__)\n"
        "\n"
        "FAIL_FMT = \"job %(name)s failed: %(exc)s\"\n"
        "OK_FMT = \"job %(name)s done\"\n"
        "\n"
        "\n"
        "class Policy:\n"
        "    def __init__(self, fmt, level):\n"
        "        self.format = fmt\n"
        "        self.level = level\n"
        "\n"
        "\n"
        "failed_policy = Policy(FAIL_FMT, logging.ERROR)\n"
        "\n"
        "\n"
        "def info(fmt, ctx):\n"
        "    logger.info(fmt, ctx)\n"
        "\n"
        "\n"
        "def policy_for(exc):\n"
        "    return failed_policy\n"
        "\n"
        "\n"
        "class Runner:\n"
        "    def run(self, name):\n"
        "        try:\n"
        "            self.load(\"settings\")\n"
        "            info(OK_FMT, {\"name\": name})\n"
        "        except Exception as exc:\n"
        "            self.on_failure(name, exc)\n"
        "\n"
        "    def load(self, key):\n"
        "        logger.debug(self.describe(key))\n"
        "\n"
        "    def describe(self, key):\n"
        "        return key.upper()\n"
        "\n"
        "    def on_failure(self, name, exc):\n"
        "        self.log_error(name, exc)\n"
        "\n"
        "    def log_error(self, name, exc):\n"
        "        policy = policy_for(exc)\n"
        "        logger.log(policy.level, policy.format, {\"name\": name, \"exc\": exc})\n");
    graph *g = index_dir("crepo");
    graph_symbol s;
    /* Called with data, not text: no function taking its callers' text. */
    graph_get_symbol(g, unit_sym(g, "jobs.run.Runner.log_error"), &s);
    CHECK(s.flags & GRAPH_SF_LOGS_DYNAMIC);
    CHECK(!(s.flags & GRAPH_SF_TAKES_TEXT));
    graph_get_symbol(g, unit_sym(g, "jobs.run.Runner.load"), &s);
    CHECK(!(s.flags & GRAPH_SF_TAKES_TEXT)); /* "settings": a key, not a message */
    map_mapper *m = new_mapper(g, NULL);
    uint32_t a = map_msg(m, "job build failed: boom", UINT32_MAX, NULL);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "jobs.run.Runner.log_error", MAP_BY_CONST);
    map_mapper_free(m);
    graph_close(g);
}

/* A logging helper that builds its message from its caller's text in a
 * way the code does not spell out (through another function), found by
 * its callers passing it text: the caller whose literal renders the
 * message, after the helper's decoration, is where it comes from. */
TEST(mapper_logger_helper_callers)
{
    unit_write_str("wrepo/bp/__init__.py", "");
    unit_write_str("wrepo/bp/core.py",
                   "import logging\n"
                   "\n"
                   "logger = logging.getLogger(__name__)\n"
                   "\n"
                   "\n"
                   "def _pre(obj, fmt):\n"
                   "    return f\"| {obj.name}: {fmt}\"\n"
                   "\n"
                   "\n"
                   "class Blueprint:\n"
                   "    name = \"Worker\"\n"
                   "\n"
                   "    def _debug(self, msg, *args):\n"
                   "        return logger.debug(_pre(self, msg), *args)\n"
                   "\n"
                   "    def apply(self):\n"
                   "        self._debug(\"Preparing the steps.\")\n"
                   "        self._debug(\"Building the graph...\")\n"
                   "\n"
                   "    def send_all(self, method, step):\n"
                   "        self._debug(\"%s %s...\", method.capitalize(), step)\n");
    graph *g = index_dir("wrepo");
    uint32_t dbg = unit_sym(g, "bp.core.Blueprint._debug");
    uint32_t send = unit_sym(g, "bp.core.Blueprint.send_all");
    graph_symbol s;
    graph_get_symbol(g, dbg, &s);
    CHECK(s.flags & GRAPH_SF_TAKES_TEXT);
    CHECK(!(s.flags & GRAPH_SF_WRAPPER)); /* its shape is not known */

    /* The call site's template renders the decorated message. */
    map_matcher *gm;
    CHECK_OK(map_matcher_build(g, NULL, &gm));
    map_match_work *w = map_match_work_new(gm);
    uint32_t first, n = graph_symbol_emits(g, send, &first), site = GRAPH_NONE;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        if (e.kind == GRAPH_EMIT_CALL && strcmp(e.tmpl, "%s %s...") == 0)
            site = first + i;
    }
    CHECK(site != GRAPH_NONE);
    const char *msg = "| Worker: Restarting event loop...";
    CHECK_INT(map_matcher_renders(gm, w, site, msg, strlen(msg)), 4); /* " ..." */
    CHECK_INT(map_matcher_renders(gm, w, site, "Restarting now", 14), 0);
    map_match_work_free(w);
    map_matcher_free(gm);

    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t a = map_rec(m, msg, "bp.core", "DEBUG");
    uint32_t b = map_rec(m, "| Worker: Preparing the steps.", "bp.core", "DEBUG");
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], send);
    /* A literal long enough to tell is a template match already. */
    pa = activity(m, b);
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.syms[0], unit_sym(g, "bp.core.Blueprint.apply"));
    map_mapper_free(m);
    graph_close(g);
}

/* A function bound from a factory call (`debug = make_debug(ns)`) that
 * the log proves to log once it has seen two of its call sites. */
static const char proven_client_py[] = "def make_debug(ns):\n"
                                       "    def emit(fmt, *args):\n"
                                       "        sink(ns, fmt, args)\n"
                                       "    return emit\n"
                                       "\n"
                                       "\n"
                                       "def sink(ns, fmt, args):\n"
                                       "    pass\n"
                                       "\n"
                                       "\n"
                                       "debug = make_debug(\"app:client\")\n"
                                       "\n"
                                       "\n"
                                       "class Client:\n"
                                       "    def connect(self):\n"
                                       "        debug(\"connect :: sending queued packets now\")\n"
                                       "\n"
                                       "    def handshake(self, sid):\n"
                                       "        debug(\"handshake finished for session %s\", sid)\n"
                                       "\n"
                                       "    def open(self, uri):\n"
                                       "        debug(\"opening %s\", uri)\n"
                                       "\n"
                                       "    def fail(self, err):\n"
                                       "        debug(\"error: %s\", err)\n";

/* A logging function the log proved ("error: %s" through a debug
 * function bound from a factory) words its messages: its one-word label
 * before a value is no tag a formatter puts before text it is handed. */
TEST(mapper_proven_callee_label_is_no_tag)
{
    unit_write_str("lrepo/cl/__init__.py", "");
    unit_write_str("lrepo/cl/client.py", proven_client_py);
    graph *g = index_dir("lrepo");
    map_mapper *m = new_mapper(g, NULL);
    map_msg(m, "connect :: sending queued packets now", UINT32_MAX, NULL);
    map_msg(m, "handshake finished for session 42", UINT32_MAX, NULL);
    uint32_t a = map_msg(m, "error: connect ECONNREFUSED 127.0.0.1:6379", UINT32_MAX, NULL);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "cl.client.Client.fail", MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* A function bound from a factory call (`debug = make_debug(ns)`), shown
 * by the log to log on two of its call sites: its other calls match as
 * logging calls do, however short their literal ("opening %s"), and a
 * message seen before that is matched when it comes again. */
TEST(mapper_proven_callee_short_literals)
{
    unit_write_str("drepo/cl/__init__.py", "");
    unit_write_str("drepo/cl/client.py", proven_client_py);
    graph *g = index_dir("drepo");
    uint32_t open = unit_sym(g, "cl.client.Client.open");
    map_mapper *m = new_mapper(g, NULL);
    /* Before the log shows what debug() is, 9 literal bytes of a mere
     * candidate call explain nothing. */
    uint32_t early = map_msg(m, "opening http://127.0.0.1:46519/socket.io/admin", UINT32_MAX, NULL);
    CHECK_STR(activity(m, early).text, "opening <path>");
    uint32_t c = map_msg(m, "connect :: sending queued packets now", UINT32_MAX, NULL);
    CHECK_INT(activity(m, c).syms[0], unit_sym(g, "cl.client.Client.connect"));
    uint32_t h = map_msg(m, "handshake finished for session 42", UINT32_MAX, NULL);
    CHECK_INT(activity(m, h).syms[0], unit_sym(g, "cl.client.Client.handshake"));
    /* Two sites proven: debug() logs. */
    uint32_t later = map_msg(m, "opening http://127.0.0.1:40111/socket.io/admin", UINT32_MAX, NULL);
    map_activity pa = activity(m, later);
    CHECK_STR(pa.text, "opening %s");
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], open);
    /* The message first seen unmatched is matched now. */
    CHECK_INT(map_msg(m, "opening http://127.0.0.1:46519/socket.io/admin", UINT32_MAX, NULL),
              later);
    map_mapper_free(m);
    graph_close(g);
}

/* Candidate calls whose method is a level word carry that level: a
 * record's level tells `diag.error(...)` from `diag.debug(...)` with the
 * same text, as it does for known logging calls. */
TEST(matcher_candidate_call_levels)
{
    unit_write_str("lrepo/det/__init__.py", "");
    unit_write_str("lrepo/det/run.py",
                   "def detect_async(diag, d, e):\n"
                   "    diag.debug(f\"{d} failed to load the detector: {e}\")\n"
                   "\n"
                   "\n"
                   "def detect_sync(diag, d, e):\n"
                   "    diag.error(f\"{d} failed to load the detector: {e}\")\n");
    graph *g = index_dir("lrepo");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t e[16];
    const char *msg = "Object failed to load the detector: timeout";
    map_match r = match(m, w, msg, NULL, NULL, e);
    CHECK_INT(r.nemits, 2);
    graph_emit em;
    graph_get_emit(g, e[0], &em);
    CHECK_INT(em.kind, GRAPH_EMIT_CALL);
    r = match(m, w, msg, NULL, "ERROR", e);
    CHECK_INT(r.nemits, 1);
    CHECK(r.flags & MAP_MATCH_LEVEL);
    CHECK_EMIT(g, e[0], "det.run.detect_sync", 6);
    r = match(m, w, msg, NULL, "DEBUG", e);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, e[0], "det.run.detect_async", 2);
    matcher_done(g, m, w);
}

/* Token similarity takes a message only near where its case was, and
 * only for a function the code shows logging text made at run time. */
static const char tok_py[] = "import logging\n"
                             "\n"
                             "logger = logging.getLogger(__name__)\n"
                             "\n"
                             "\n"
                             "def start(step):\n"
                             "    logger.info('service start')\n"
                             "    rebuild_search_index(step)\n"
                             "    render_search_result_page()\n"
                             "\n"
                             "\n"
                             "def rebuild_search_index(step):\n"
                             "    logger.debug(describe(step))\n"
                             "\n"
                             "\n"
                             "def describe(step):\n"
                             "    return str(step)\n"
                             "\n"
                             "\n"
                             "def render_search_result_page():\n"
                             "    return 1\n";
static const char tok_far_py[] = "import logging\n"
                                 "\n"
                                 "logger = logging.getLogger(__name__)\n"
                                 "\n"
                                 "\n"
                                 "def archive_old_index_files(n):\n"
                                 "    logger.debug(str(n))\n";

/* Maps "service start" then msg, twice; returns msg's activity. */
static uint32_t after_start(map_mapper *m, const char *msg)
{
    uint32_t a = UINT32_MAX;
    for (int c = 0; c < 2; c++)
        a = map_msg(m, msg, map_msg(m, "service start", UINT32_MAX, NULL), NULL);
    return a;
}

TEST(mapper_tokens_strategy)
{
    unit_write_str("tok/svc.py", tok_py);
    unit_write_str("tok/far.py", tok_far_py);
    graph *g = index_dir("tok");
    map_mapper_opts o = {.no_logger = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t a = after_start(m, "Rebuild search index 7");
    uint32_t r = after_start(m, "Render search result page 3");
    uint32_t f = after_start(m, "Archive old index files 9");
    uint32_t alone = map_msg(m, "Rebuild search index finished", UINT32_MAX, NULL);
    uint32_t z = after_start(m, "zzz qqq");
    CHECK_INT(activity(m, a).nsyms, 0);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "svc.rebuild_search_index", MAP_BY_TOKENS);
    CHECK(pa.conf[0] >= 0.25f && pa.conf[0] <= 1.0f);
    /* Similar, near, but logging nothing: unmapped. */
    CHECK_INT(activity(m, r).nsyms, 0);
    /* Similar and logging, but nowhere near the case: unmapped. */
    CHECK_INT(activity(m, f).nsyms, 0);
    /* No neighbour to be near to: unmapped. */
    CHECK_INT(activity(m, alone).nsyms, 0);
    /* Nothing similar: unmapped. */
    CHECK_INT(activity(m, z).nsyms, 0);
    map_mapper_free(m);

    /* A threshold above the cosine, or the strategy off: unmapped. */
    o.tokens_min = 0.999;
    m = new_mapper(g, &o);
    a = after_start(m, "Rebuild search index now please");
    finish(m);
    CHECK_INT(activity(m, a).nsyms, 0);
    map_mapper_free(m);
    o = (map_mapper_opts){.no_tokens = true, .no_logger = true};
    m = new_mapper(g, &o);
    a = after_start(m, "Rebuild search index 7");
    finish(m);
    CHECK_INT(activity(m, a).nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

TEST(mapper_code_attributes)
{
    graph *g = open_mapper_repo();
    uint32_t place = unit_sym(g, "pkg.a.place");
    uint32_t line = unit_line_of(ma_py, "return order");
    map_mapper_opts o = {.use_code_attrs = true, .no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    /* An absolute path: its longest suffix that is a graph file. */
    map_event ev = {.text = "zzz qqq",
                    .len = 7,
                    .code_file = "/srv/app/pkg/a.py",
                    .code_line = line,
                    .learn = true};
    uint32_t a, v;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    /* by function name and namespace, without a file */
    map_event ev2 = {.text = "www vvv",
                     .len = 7,
                     .code_function = "run_beta",
                     .code_namespace = "pkg.b",
                     .learn = true};
    uint32_t b;
    map_mapper_map(m, &ev2, NULL, 0, NULL, 0, &b, &v);
    /* Code attributes beat the template. */
    map_event ev3 = {.text = "starting alpha",
                     .len = 14,
                     .code_file = "pkg/b.py",
                     .code_line = unit_line_of(mb_py, "starting beta"),
                     .learn = true};
    uint32_t c;
    map_mapper_map(m, &ev3, NULL, 0, NULL, 0, &c, &v);
    finish(m);
    map_activity pa = activity(m, a);
    CHECK_INT(pa.strategy, MAP_BY_CODE);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], place);
    CHECK(pa.conf[0] == 1.0f);
    pa = activity(m, b);
    CHECK_INT(pa.strategy, MAP_BY_CODE);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.b.run_beta"));
    pa = activity(m, c);
    CHECK_INT(pa.strategy, MAP_BY_CODE);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.b.run_beta"));
    map_mapper_free(m);

    /* Events that may not teach (test cases): not used. */
    m = new_mapper(g, &o);
    ev.learn = false;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    ev3.learn = false;
    map_mapper_map(m, &ev3, NULL, 0, NULL, 0, &c, &v);
    finish(m);
    CHECK_INT(activity(m, a).nsyms, 0);
    CHECK_INT(activity(m, c).strategy, MAP_BY_TEMPLATE);
    CHECK_INT(activity(m, c).syms[0], unit_sym(g, "pkg.a.run_alpha"));
    map_mapper_free(m);

    /* Not allowed: not used either. */
    o.use_code_attrs = false;
    m = new_mapper(g, &o);
    ev.learn = true;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    finish(m);
    CHECK_INT(activity(m, a).nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

TEST(mapper_overrides_before_templates)
{
    graph *g = open_mapper_repo();
    const char *path = unit_write_str("ov.yaml", "- activity: \"placing order *\"\n"
                                                 "  symbols: [pkg.b.run_beta]\n"
                                                 "  confidence: 0.5\n");
    map_overrides *ov;
    char why[256];
    int rc = map_overrides_load(path, g, &ov, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "%s", why);
    map_mapper_opts o = {.overrides = ov};
    map_mapper *m = new_mapper(g, &o);
    uint32_t a = map_msg(m, "placing order 42 now", UINT32_MAX, NULL);
    uint32_t b = map_msg(m, "placing order 43 now", UINT32_MAX, NULL);
    uint32_t c = map_msg(m, "starting alpha", UINT32_MAX, NULL);
    finish(m);
    CHECK_INT(a, b);
    map_activity pa = activity(m, a);
    CHECK_ONE_SITE(pa, g, "pkg.b.run_beta", MAP_BY_OVERRIDE);
    CHECK(pa.conf[0] == 0.5f);
    CHECK_INT(pa.count, 2);
    /* a message no rule matches: the template */
    CHECK_INT(activity(m, c).strategy, MAP_BY_TEMPLATE);
    map_mapper_free(m);
    map_overrides_free(ov);
    graph_close(g);
}

TEST(mapper_max_activities_fold)
{
    graph *g = open_mapper_repo();
    map_mapper_opts o = {.max_activities = 3};
    map_mapper *m = new_mapper(g, &o);
    uint32_t a = map_msg(m, "starting alpha", UINT32_MAX, NULL);
    uint32_t b = map_msg(m, "zzz qqq", UINT32_MAX, NULL);
    CHECK_INT(a, 1);
    CHECK_INT(b, 2);
    /* Past the limit every new message, matched or not, folds into
     * "<other>", which has no symbols. */
    CHECK_INT(map_msg(m, "starting beta", UINT32_MAX, NULL), 0);
    CHECK_INT(map_msg(m, "placing order 3 now", UINT32_MAX, NULL), 0);
    CHECK_INT(map_msg(m, "shared step 3", UINT32_MAX, NULL), 0);
    CHECK_INT(map_msg(m, "www 1", UINT32_MAX, NULL), 0);
    CHECK_INT(map_msg(m, "payment failed for card 1", UINT32_MAX, NULL), 0);
    /* Known ones still map to themselves. */
    CHECK_INT(map_msg(m, "starting alpha", UINT32_MAX, NULL), a);
    CHECK_INT(map_mapper_nactivities(m), 3);
    finish(m);
    map_activity pa = activity(m, 0);
    CHECK_STR(pa.text, "<other>");
    CHECK_INT(pa.count, 5);
    CHECK_INT(pa.nsyms, 0);
    CHECK_INT(activity(m, a).nsyms, 1);
    map_mapper_free(m);
    graph_close(g);
}

/* Maps a message as a record of logger at level gives it. */
static uint32_t map_rec(map_mapper *m, const char *text, const char *logger, const char *level)
{
    map_event ev = {
        .text = text, .len = strlen(text), .logger = logger, .level = level, .learn = true};
    uint32_t a, v;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    return a;
}

TEST(mapper_logger_strategy)
{
    graph *g = open_jobs();
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    /* No template shows these messages; their logger and level do. */
    uint32_t info = map_rec(m, "3 rows copied", "pkg.jobs", "INFO");
    uint32_t debug = map_rec(m, "step compile finished", "pkg.jobs", "DEBUG");
    uint32_t audit = map_rec(m, "entry 9 gone", "app.audit", "ERROR");
    /* A level none of the logger's sites has: all of them. */
    uint32_t error = map_rec(m, "odd thing happened", "pkg.jobs", "ERROR");
    /* No logger, or several: nothing to go by. */
    uint32_t none = map_rec(m, "orphan line here", NULL, "INFO");
    uint32_t mixed = map_rec(m, "mixed source line", "pkg.jobs", "INFO");
    CHECK_INT(map_rec(m, "mixed source line", "app.audit", "INFO"), mixed);
    CHECK_INT(activity(m, info).nsyms, 0); /* decided at finish */
    finish(m);

    map_activity pa = activity(m, info);
    CHECK_STR(pa.text, "<num> rows copied");
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_STR(map_strategy_name(pa.strategy), "logger");
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.jobs.report"));
    CHECK(pa.conf[0] == 1.0f);
    pa = activity(m, debug);
    CHECK_ONE_SITE(pa, g, "pkg.jobs.trace", MAP_BY_LOGGER);
    pa = activity(m, audit);
    CHECK_ONE_SITE(pa, g, "pkg.jobs.record", MAP_BY_LOGGER);
    /* Several sites and no neighbours to say which is nearer: all,
     * evenly, in id order. */
    pa = activity(m, error);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 3);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.jobs.report"));
    CHECK_INT(pa.syms[1], unit_sym(g, "pkg.jobs.trace"));
    CHECK_INT(pa.syms[2], unit_sym(g, "pkg.jobs.holes"));
    for (uint32_t i = 0; i < 3; i++)
        CHECK(fabsf(pa.conf[i] - 1.0f / 3) < 1e-6f);
    CHECK_INT(activity(m, none).nsyms, 0);
    CHECK_INT(activity(m, mixed).nsyms, 0);
    map_mapper_free(m);

    /* After done's message, trace (which done calls) comes first, and
     * weighs more; the weights still sum to 1. */
    m = new_mapper(g, &o);
    uint32_t d = map_msg(m, "done with 5", UINT32_MAX, NULL);
    map_event ev = {.text = "odd thing happened",
                    .len = strlen("odd thing happened"),
                    .logger = "pkg.jobs",
                    .level = "ERROR",
                    .learn = true};
    uint32_t v;
    map_mapper_map(m, &ev, &d, d != UINT32_MAX, NULL, 0, &error, &v);
    finish(m);
    pa = activity(m, error);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 3);
    CHECK_INT(pa.syms[0], unit_sym(g, "pkg.jobs.trace"));
    /* The other two are as far from done: they tie, in id order. */
    CHECK_INT(pa.syms[1], unit_sym(g, "pkg.jobs.report"));
    CHECK_INT(pa.syms[2], unit_sym(g, "pkg.jobs.holes"));
    CHECK(pa.conf[0] > pa.conf[1] && pa.conf[1] == pa.conf[2]);
    CHECK(fabsf(pa.conf[0] + pa.conf[1] + pa.conf[2] - 1.0f) < 1e-5f);
    map_mapper_free(m);

    /* Turned off: unmapped. */
    o.no_logger = true;
    m = new_mapper(g, &o);
    info = map_rec(m, "3 rows copied", "pkg.jobs", "INFO");
    finish(m);
    pa = activity(m, info);
    CHECK_INT(pa.nsyms, 0);
    CHECK_INT(pa.strategy, MAP_BY_NONE);
    map_mapper_free(m);
    graph_close(g);
}

/* A span named at run time (`f"{method} {route}"`) has no text to
 * match: a span record goes to its function, as a log record goes to its
 * logger's sites without text, and log records never to a span's site. */
TEST(mapper_span_names_made_at_run_time)
{
    unit_write_str("spans/web/__init__.py", "");
    unit_write_str("spans/web/api.py",
                   "import logging\n"
                   "from opentelemetry import trace\n"
                   "\n"
                   "logger = logging.getLogger(__name__)\n"
                   "tracer = trace.get_tracer(__name__)\n"
                   "\n"
                   "\n"
                   "def handle(method, route):\n"
                   "    with tracer.start_as_current_span(f\"{method} {route}\"):\n"
                   "        return route\n"
                   "\n"
                   "\n"
                   "def show(item):\n"
                   "    logger.info(str(item))\n");
    graph *g = index_dir("spans");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t span = map_rec(m, "POST /orders", "web.api", "SPAN");
    uint32_t log = map_rec(m, "GET /orders", "web.api", "INFO");
    uint32_t event = map_rec(m, "PUT /orders", "web.api", "EVENT");
    finish(m);
    map_activity pa = activity(m, span);
    CHECK_ONE_SITE(pa, g, "web.api.handle", MAP_BY_LOGGER);
    pa = activity(m, log);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "web.api.show"));
    /* A span event's name: no span event site. */
    CHECK_INT(activity(m, event).nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* A connection that logs what it sends and receives, through a logger
 * named by the component ("smtp-conn"), which no site names. */
static const char conn_js[] =
    "class Conn {\n"
    "  constructor(logger) { this.logger = logger; }\n"
    "  send(str) {\n"
    "    this.logger.debug({ tnx: 'client' }, str.toString().trim());\n"
    "    this.socket.write(str + '\\r\\n');\n"
    "  }\n"
    "  quiet(str) {\n"
    "    this.logger.debug({ tnx: 'client' }, str.toString().trim());\n"
    "  }\n"
    "  hello() { this.send('EHLO client.example.test'); }\n"
    "  greet() { this.quiet('STARTTLS upgrade please'); }\n"
    "  onData(chunk) {\n"
    "    this.logger.info({ tnx: 'server' }, chunk.toString().trim());\n"
    "    this.handle(chunk);\n"
    "  }\n"
    "  handle(chunk) { return chunk; }\n"
    "  ready() { this.logger.info('Connection established to server'); }\n"
    "}\n"
    "module.exports = Conn;\n";

TEST(mapper_callee_that_does_more_than_log)
{
    unit_write_str("conn/lib/conn.js", conn_js);
    graph *g = index_dir("conn");
    uint32_t send = unit_sym(g, "lib/conn.Conn.send"), quiet = unit_sym(g, "lib/conn.Conn.quiet");
    graph_symbol s;
    graph_get_symbol(g, send, &s);
    CHECK(s.flags & GRAPH_SF_EFFECTS); /* logs, and writes to the socket */
    graph_get_symbol(g, quiet, &s);
    CHECK(!(s.flags & GRAPH_SF_EFFECTS)); /* only logs */

    /* hello's call passes a literal to send: the call's callee is send. */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "lib/conn.Conn.hello"), &first);
    CHECK_INT(n, 1);
    CHECK_INT(graph_emit_callee(g, first), send);

    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    /* send does more than log, so what it logs is its own event; quiet
     * only logs, so the event is its caller's. */
    uint32_t ehlo = map_rec(m, "EHLO client.example.test", "smtp-conn", "DEBUG");
    uint32_t tls = map_rec(m, "STARTTLS upgrade please", "smtp-conn", "DEBUG");
    uint32_t up = map_rec(m, "Connection established to server", "smtp-conn", "INFO");
    /* No template shows these; no site names their logger, but its
     * other messages came from conn.js: the sites there without text, at
     * the record's level. A logger never matched there gives nothing. */
    uint32_t reply = map_rec(m, "250 ok queued as 12", "smtp-conn", "INFO");
    uint32_t stray = map_rec(m, "451 try again later", "elsewhere", "INFO");
    finish(m);
    map_activity pa = activity(m, ehlo);
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], send);
    pa = activity(m, tls);
    CHECK_ONE_SITE(pa, g, "lib/conn.Conn.greet", MAP_BY_TEMPLATE);
    pa = activity(m, up);
    CHECK_INT(pa.syms[0], unit_sym(g, "lib/conn.Conn.ready"));
    pa = activity(m, reply);
    CHECK_ONE_SITE(pa, g, "lib/conn.Conn.onData", MAP_BY_LOGGER);
    CHECK_INT(activity(m, stray).nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* Two database drivers of one base: the base's code runs its statements
 * through this.query(), which each driver's runner implements by logging
 * the statement and running it. Each driver also logs a text of its own.
 * Beside them, a wrapper that logs its caller's message and keeps it. */
static const char runner_base_js[] =
    "class BaseRunner {\n"
    "  async begin() { await this.query('BEGIN TRANSACTION'); }\n"
    "  async commit() { await this.query('COMMIT'); }\n"
    "  async pragma(path, kind) {\n"
    "    const [, table] = path.split('.');\n"
    "    return this.query(`PRAGMA ${kind}(\"${table}\")`);\n"
    "  }\n"
    "  async describe(path) { return this.pragma(path, 'table_info'); }\n"
    "  async exists(name) {\n"
    "    const sql = `SELECT name FROM tables WHERE name = '${name}'`;\n"
    "    return this.query(sql);\n"
    "  }\n"
    "}\n"
    "class BaseDriver {\n"
    "  open() { console.log('driver opened'); }\n"
    "}\n"
    "class Notes {\n"
    "  note(message) { console.log(message); this.lines.push(message); }\n"
    "}\n"
    "function boot(notes) { notes.note('booting the engine'); }\n"
    "module.exports = { BaseRunner, BaseDriver, Notes, boot };\n";
static const char runner_lite_js[] = "const { BaseRunner, BaseDriver } = require('./base');\n"
                                     "class LiteRunner extends BaseRunner {\n"
                                     "  constructor(driver) { super(); this.driver = driver; }\n"
                                     "  async query(sql) {\n"
                                     "    this.driver.logger.logQuery(sql);\n"
                                     "    return this.driver.db.exec(sql);\n"
                                     "  }\n"
                                     "}\n"
                                     "class LiteDriver extends BaseDriver {\n"
                                     "  createRunner() { return new LiteRunner(this); }\n"
                                     "  vacuum() { console.log('lite vacuum done'); }\n"
                                     "}\n"
                                     "module.exports = { LiteDriver };\n";
static const char runner_pg_js[] = "const { BaseRunner, BaseDriver } = require('./base');\n"
                                   "class PgRunner extends BaseRunner {\n"
                                   "  constructor(driver) { super(); this.driver = driver; }\n"
                                   "  async query(sql) {\n"
                                   "    this.driver.logger.logQuery(sql);\n"
                                   "    return this.driver.client.send(sql);\n"
                                   "  }\n"
                                   "}\n"
                                   "class PgDriver extends BaseDriver {\n"
                                   "  createRunner() { return new PgRunner(this); }\n"
                                   "  analyze() { console.log('pg analyze done'); }\n"
                                   "}\n"
                                   "module.exports = { PgDriver };\n";

/* How many emit sites symbol sym has of kind (GRAPH_EMIT__COUNT: any)
 * and with template tmpl (NULL: any). */
static uint32_t sites_of(const graph *g, uint32_t sym, graph_emit_kind kind, const char *tmpl)
{
    uint32_t first, n = graph_symbol_emits(g, sym, &first), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        k += (kind == GRAPH_EMIT__COUNT || e.kind == kind) && (!tmpl || strcmp(e.tmpl, tmpl) == 0);
    }
    return k;
}

/* The flags of the one symbol qualname names. */
static uint32_t flags_of(const graph *g, const char *qualname)
{
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, qualname), &s);
    return s.flags;
}

TEST(mapper_statements_are_the_runner_s_and_its_driver_tells_which)
{
    unit_write_str("runners/lib/base.js", runner_base_js);
    unit_write_str("runners/lib/lite.js", runner_lite_js);
    unit_write_str("runners/lib/pg.js", runner_pg_js);
    graph *g = index_dir("runners");
    uint32_t lite = unit_sym(g, "lib/lite.LiteRunner.query"),
             pg = unit_sym(g, "lib/pg.PgRunner.query");
    /* A runner logs the statement it runs: data it acts on, so the
     * statement a caller passes is logged at the runner's site, not the
     * caller's. */
    CHECK(!(flags_of(g, "lib/lite.LiteRunner.query") & GRAPH_SF_WRAPPER));
    CHECK(sites_of(g, lite, GRAPH_EMIT__COUNT, "BEGIN TRANSACTION"));
    CHECK(sites_of(g, pg, GRAPH_EMIT__COUNT, "COMMIT"));
    CHECK(!sites_of(g, unit_sym(g, "lib/base.BaseRunner.begin"), GRAPH_EMIT__COUNT,
                    "BEGIN TRANSACTION"));
    /* So is a statement a helper builds from its caller's text and hands
     * to the runner: the helper logs nothing of its own. */
    CHECK(sites_of(g, lite, GRAPH_EMIT__COUNT, "PRAGMA table_info(\"%s\")"));
    CHECK(sites_of(g, pg, GRAPH_EMIT__COUNT, "PRAGMA table_info(\"%s\")"));
    CHECK(!sites_of(g, unit_sym(g, "lib/base.BaseRunner.describe"), GRAPH_EMIT__COUNT, NULL));
    /* And one built in a local first. */
    CHECK(sites_of(g, pg, GRAPH_EMIT__COUNT, "SELECT name FROM tables WHERE name = '%s'"));
    CHECK(!sites_of(g, unit_sym(g, "lib/base.BaseRunner.exists"), GRAPH_EMIT__COUNT, NULL));
    CHECK(!(flags_of(g, "lib/base.BaseRunner.pragma") & GRAPH_SF_WRAPPER));
    /* A message it keeps is still its callers' (named like one). */
    CHECK(flags_of(g, "lib/base.Notes.note") & GRAPH_SF_WRAPPER);
    CHECK(sites_of(g, unit_sym(g, "lib/base.boot"), GRAPH_EMIT__COUNT, "booting the engine"));

    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    /* Which runner runs, the driver's own text tells, however long
     * before. */
    static const char *const lite_case[] = {"lite vacuum done", "driver opened",
                                            "BEGIN TRANSACTION", "COMMIT"};
    uint32_t act[4], var[4];
    map_case_msgs(mp, lite_case, 4, act, var);
    CHECK_INT(only_sym(mp, act[2]), lite);
    CHECK_INT(only_sym(mp, act[3]), lite);
    /* The same, each message rendered as a JSON object by a structured
     * logger: the text is one of its string members. */
    static const char *const json_case[] = {"{\"level\": 30, \"msg\": \"lite vacuum done\"}",
                                            "{\"sql\": \"COMMIT\", \"ms\": 3}"};
    map_case_msgs(mp, json_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[0]), unit_sym(g, "lib/lite.LiteDriver.vacuum"));
    CHECK_INT(only_sym(mp, act[1]), lite);
    static const char *const pg_case[] = {"pg analyze done", "BEGIN TRANSACTION"};
    map_case_msgs(mp, pg_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), pg);
    /* Nothing tells: both runners stay. */
    static const char *const blind_case[] = {"driver opened", "COMMIT"};
    map_case_msgs(mp, blind_case, 2, act, var);
    CHECK_INT(only_sym(mp, act[1]), GRAPH_NONE);
    map_mapper_free(mp);
    graph_close(g);
}

/* A runner that hands its statement to another object's method of its
 * own name (`self.conn.execute(statement)` in Database.execute) acts on
 * it all the same: that call reaches no wrapper of ours. */
/* What a method returns is logged where its result is: a format a
 * constant holds (`return FORMAT.format(**f)`, `return self.FORMAT %
 * f`), through a local bound to the call, on an attribute bound to one of
 * two classes (`A() if v else B()`). */
TEST(mapper_a_format_a_method_returns_from_a_constant_is_its_callers)
{
    unit_write_str("retrepo/gw/__init__.py", "");
    unit_write_str("retrepo/gw/lines.py",
                   "import logging\n"
                   "log = logging.getLogger(__name__)\n"
                   "SUMMARY = '{service}: {calls} calls done'\n"
                   "class CallLine:\n"
                   "    FORMAT = '{peer} -> {method} took {ms}ms'\n"
                   "    def render(self, **fields):\n"
                   "        return self.FORMAT.format(**fields)\n"
                   "    def summary(self, **fields):\n"
                   "        return SUMMARY.format(**fields)\n"
                   "class QuietLine(CallLine):\n"
                   "    pass\n"
                   "class Gateway:\n"
                   "    def __init__(self, quiet):\n"
                   "        self.line = QuietLine() if quiet else CallLine()\n"
                   "    def finish(self, peer, ms):\n"
                   "        text = self.line.render(peer=peer, method='get', ms=ms)\n"
                   "        log.info(text)\n"
                   "    def close(self, n):\n"
                   "        log.info(self.line.summary(service='gw', calls=n))\n");
    graph *g = index_dir("retrepo");
    CHECK(
        sites_of(g, unit_sym(g, "gw.lines.Gateway.finish"), GRAPH_EMIT_LOG, "%s -> %s took %sms"));
    CHECK(sites_of(g, unit_sym(g, "gw.lines.Gateway.close"), GRAPH_EMIT_LOG, "%s: %s calls done"));
    graph_close(g);
}

TEST(mapper_a_runner_calling_its_own_name_on_another_object_acts)
{
    unit_write_str("pyrun/loans/__init__.py", "");
    unit_write_str("pyrun/loans/db.py",
                   "import logging\n"
                   "log = logging.getLogger('loans.sql')\n"
                   "class Database:\n"
                   "    def __init__(self, conn):\n"
                   "        self.conn = conn\n"
                   "    def _log_sql(self, statement, params):\n"
                   "        log.info(statement)\n"
                   "    def execute(self, statement, params=()):\n"
                   "        self._log_sql(statement, params)\n"
                   "        return self.conn.execute(statement, params).fetchall()\n"
                   "class Table:\n"
                   "    def __init__(self, db, name):\n"
                   "        self.db = db\n"
                   "        self.name = name\n"
                   "    def select(self, field):\n"
                   "        return self.db.execute('SELECT %s FROM %s' % (field, self.name))\n");
    graph *g = index_dir("pyrun");
    CHECK(sites_of(g, unit_sym(g, "loans.db.Database.execute"), GRAPH_EMIT__COUNT,
                   "SELECT %s FROM %s"));
    CHECK(
        !sites_of(g, unit_sym(g, "loans.db.Table.select"), GRAPH_EMIT__COUNT, "SELECT %s FROM %s"));
    graph_close(g);
}

/* What weighs a group's sites where nothing tells them apart comes from
 * the training contexts that told nothing either: cases that told their
 * variant say nothing of the cases that cannot. */
TEST(mapper_told_cases_do_not_weigh_the_untold)
{
    write_variants("variants_w");
    graph *g = index_dir("variants_w");
    map_mapper *mp;
    CHECK_OK(map_mapper_new(g, NULL, &mp));
    /* Every "Sending packet" follows the asynchronous variant's own text. */
    static const char *const told_case[] = {
        "Write loop: connection closed, aborting",
        "Sending packet OPEN",
        "Sending packet PING",
    };
    uint32_t act[3], var[3];
    for (int i = 0; i < 20; i++)
        map_case_msgs(mp, told_case, 3, act, var);
    CHECK_INT(only_sym(mp, act[1]), unit_sym(g, "pkg.asyncio_client.AsyncClient._send"));
    finish(mp);
    static const char *const blind_case[] = {"Sending packet OPEN"};
    map_case_msgs(mp, blind_case, 1, act, var);
    map_activity pa;
    map_mapper_activity(mp, act[0], &pa);
    CHECK_INT(pa.nsyms, 2);
    CHECK(pa.amb != MAP_AMB_TRACES);
    map_mapper_free(mp);
    graph_close(g);
}

/* A server's logger object: wrappers for its error log, and an access
 * method that renders the line from what the caller hands it, in a format
 * the configuration may replace, and logs its own failure to (a call in a
 * handler is not what the method is for); a subclass that also counts.
 * Two streams log access lines through it. A method that renders a line
 * from what no caller hands it (the current request) is its emitter. */
static const char facade_logs_py[] =
    "import logging\n"
    "import traceback\n"
    "from typing import TYPE_CHECKING\n"
    "if TYPE_CHECKING:\n"
    "    from .config import Config\n"
    "class Logger:\n"
    "    def __init__(self, config: 'Config'):\n"
    "        self.access_log_format = config.access_log_format\n"
    "        self.access_logger = logging.getLogger('srv.access')\n"
    "        self.error_logger = logging.getLogger('srv.error')\n"
    "        self.status_logger = logging.getLogger('srv.status')\n"
    "        self.status_format = config.status_format\n"
    "    async def access(self, request, response, took):\n"
    "        try:\n"
    "            self.access_logger.info(self.access_log_format, self.atoms(request, response, "
    "took))\n"
    "        except Exception:\n"
    "            await self.info(traceback.format_exc())\n"
    "    def current(self):\n"
    "        self.status_logger.info(self.status_format, self.atoms(serving.request, None, 0))\n"
    "    async def info(self, message, *args):\n"
    "        if self.error_logger is not None:\n"
    "            self.error_logger.info(message, *args)\n"
    "    def atoms(self, request, response, took):\n"
    "        return {'h': request, 's': response, 't': took}\n"
    "class CountingLogger(Logger):\n"
    "    async def access(self, request, response, took):\n"
    "        await super().access(request, response, took)\n"
    "        await self.increment('requests', 1)\n";
static const char facade_config_py[] = "from .logs import Logger\n"
                                       "class Config:\n"
                                       "    access_log_format = '%(h)s \"%(r)s\" %(s)s'\n"
                                       "    @property\n"
                                       "    def log(self) -> Logger:\n"
                                       "        return Logger(self)\n";
static const char facade_http_py[] =
    "from .config import Config\n"
    "class HTTPStream:\n"
    "    def __init__(self, config: Config):\n"
    "        self.config = config\n"
    "    async def start(self):\n"
    "        await self.config.log.info('Request started for %s', self.path)\n"
    "    async def done(self):\n"
    "        await self.config.log.access(self.scope, self.response, 0.1)\n"
    "    def served(self):\n"
    "        self.config.log.current()\n";
static const char facade_ws_py[] = "from .config import Config\n"
                                   "class WSStream:\n"
                                   "    def __init__(self, config: Config):\n"
                                   "        self.config = config\n"
                                   "    async def closed(self):\n"
                                   "        await self.config.log.access(self.scope, None, 0.2)\n";

TEST(mapper_access_lines_are_the_callers_of_the_logger_object)
{
    unit_write_str("srv/pkg/__init__.py", "");
    unit_write_str("srv/pkg/logs.py", facade_logs_py);
    unit_write_str("srv/pkg/config.py", facade_config_py);
    unit_write_str("srv/pkg/http.py", facade_http_py);
    unit_write_str("srv/pkg/ws.py", facade_ws_py);
    graph *g = index_dir("srv");
    uint32_t done = unit_sym(g, "pkg.http.HTTPStream.done"),
             closed = unit_sym(g, "pkg.ws.WSStream.closed");
    /* Each call of the access method is a site of its caller; the method
     * and its counting override stand for them. */
    CHECK(flags_of(g, "pkg.logs.Logger.access") & GRAPH_SF_WRAPPER);
    CHECK(flags_of(g, "pkg.logs.CountingLogger.access") & GRAPH_SF_WRAPPER);
    CHECK_INT(sites_of(g, unit_sym(g, "pkg.logs.Logger.access"), GRAPH_EMIT_LOG, NULL), 0);
    CHECK_INT(sites_of(g, unit_sym(g, "pkg.logs.CountingLogger.access"), GRAPH_EMIT_LOG, NULL), 0);
    CHECK_INT(sites_of(g, done, GRAPH_EMIT_LOG, NULL), 1);
    CHECK_INT(sites_of(g, closed, GRAPH_EMIT_LOG, NULL), 1);
    CHECK(!(flags_of(g, "pkg.logs.Logger.current") & GRAPH_SF_WRAPPER));
    CHECK_INT(sites_of(g, unit_sym(g, "pkg.logs.Logger.current"), GRAPH_EMIT_LOG, NULL), 1);
    CHECK_INT(sites_of(g, unit_sym(g, "pkg.http.HTTPStream.served"), GRAPH_EMIT_LOG, NULL), 0);

    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    /* Lines in the default format match the sites' format; lines in
     * another go where that logger's lines were seen logged. */
    uint32_t dflt = map_rec(m, "10.0.0.1 \"GET / 1.1\" 200", "srv.access", "INFO");
    uint32_t other = map_rec(m, "10.0.0.1 GET / 200 0.1", "srv.access", "INFO");
    finish(m);
    map_activity pa = activity(m, dflt);
    CHECK_INT(pa.strategy, MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 2);
    CHECK(pa.syms[0] == done || pa.syms[0] == closed);
    pa = activity(m, other);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 2);
    CHECK(pa.syms[0] == done || pa.syms[0] == closed);
    CHECK(pa.syms[1] == done || pa.syms[1] == closed);
    map_mapper_free(m);
    graph_close(g);
}

/* An access logger of no logger's shape (no method of it logs a message
 * it is handed): it compiles a format it holds, by default its class's,
 * renders the line from what its caller hands it and logs it through the
 * logger it was given; its failure is logged with the traceback. The
 * request handler's log_access only hands its parameters on (its call
 * named `.log`, taking a request, is no logging call), and
 * finish_response, which does the work, calls it twice. */
static const char held_log_py[] =
    "import logging\n"
    "class AccessLogger:\n"
    "    LOG_FORMAT = '%a \"%r\" %s %b \"%{Referer}i\"'\n"
    "    def __init__(self, logger, log_format=LOG_FORMAT):\n"
    "        self.logger = logger\n"
    "        self._log_format, self._methods = self.compile_format(log_format)\n"
    "    def compile_format(self, log_format):\n"
    "        return log_format.replace('%a', '%s'), []\n"
    "    def log(self, request, response, time):\n"
    "        try:\n"
    "            values = list()\n"
    "            for key, method in self._methods:\n"
    "                values.append(method(request, response, time))\n"
    "            self.logger.info(self._log_format % tuple(values))\n"
    "        except Exception:\n"
    "            self.logger.exception('Error in logging')\n";
static const char held_handler_py[] =
    "import logging\n"
    "from .access import AccessLogger\n"
    "access_log = logging.getLogger('web.access')\n"
    "class RequestHandler:\n"
    "    def __init__(self, access_log_class=AccessLogger):\n"
    "        self.access_logger = access_log_class(access_log)\n"
    "    def log_access(self, request, response, time):\n"
    "        if self.access_logger is not None:\n"
    "            self.access_logger.log(request, response, self.now() - time)\n"
    "    async def finish_response(self, request, resp, start):\n"
    "        try:\n"
    "            await resp.prepare(request)\n"
    "            await resp.write_eof()\n"
    "        except ConnectionError:\n"
    "            self.log_access(request, resp, start)\n"
    "            return True\n"
    "        else:\n"
    "            self.log_access(request, resp, start)\n"
    "            return False\n";

TEST(mapper_access_lines_of_a_format_the_object_holds_are_the_callers)
{
    unit_write_str("web/pkg/__init__.py", "");
    unit_write_str("web/pkg/access.py", held_log_py);
    unit_write_str("web/pkg/handler.py", held_handler_py);
    graph *g = index_dir("web");
    uint32_t fin = unit_sym(g, "pkg.handler.RequestHandler.finish_response");
    CHECK(flags_of(g, "pkg.access.AccessLogger.log") & GRAPH_SF_WRAPPER);
    CHECK(flags_of(g, "pkg.handler.RequestHandler.log_access") & GRAPH_SF_WRAPPER);
    CHECK_INT(sites_of(g, unit_sym(g, "pkg.access.AccessLogger.log"), GRAPH_EMIT_LOG, NULL), 1);
    CHECK_INT(
        sites_of(g, unit_sym(g, "pkg.handler.RequestHandler.log_access"), GRAPH_EMIT_LOG, NULL), 0);
    CHECK_INT(sites_of(g, fin, GRAPH_EMIT_LOG, NULL), 2);

    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t line = map_rec(m, "127.0.0.1 \"GET / HTTP/1.1\" 200 12 \"-\"", "web.access", "INFO");
    finish(m);
    map_activity pa = activity(m, line);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], fin);
    map_mapper_free(m);
    graph_close(g);
}

/* A value a line shows is no template of the line: a bare token handed
 * to a header table is where a response's type comes from, not where an
 * access line that ends with it is logged. */
TEST(matcher_a_bare_token_after_a_decoration_is_a_value)
{
    unit_write_str("tok/pkg/__init__.py", "");
    unit_write_str("tok/pkg/hdrs.py", "CONTENT_TYPE = 'Content-Type'\n");
    unit_write_str("tok/pkg/resp.py",
                   "from . import hdrs\n"
                   "def prepare(headers):\n"
                   "    headers.setdefault(hdrs.CONTENT_TYPE, 'application/octet-stream')\n");
    graph *g = index_dir("tok");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t line = map_rec(m, "POST /x 200 type=application/octet-stream", "web.access", "INFO");
    finish(m);
    map_activity pa = activity(m, line);
    CHECK(pa.strategy != MAP_BY_TEMPLATE);
    CHECK_INT(pa.nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* An ORM logs every statement as data, `(sql, params)`, at its base's
 * execute_sql, which its own code also calls with literal statements; a
 * driver's subclass in a module of its own overrides it, logging alike,
 * and nothing calls it by name. A statement the query builder made is the
 * base's: the override plays the same role and goes behind with it. */
static const char orm_base_py[] =
    "import logging\n"
    "logger = logging.getLogger('orm')\n"
    "class Database:\n"
    "    def connect(self):\n"
    "        logger.info('connected to %s', self.path)\n"
    "        self.pragma()\n"
    "    def execute_sql(self, sql, params=None):\n"
    "        logger.debug((sql, params))\n"
    "        return self.cursor().execute(sql, params or ())\n"
    "    def pragma(self):\n"
    "        return self.execute_sql('PRAGMA foreign_keys = ON')\n"
    "    def select(self, query):\n"
    "        return self.execute_sql(query.sql(), query.params)\n"
    "class SqliteDatabase(Database):\n"
    "    pass\n"
    "def add_column(database: Database, table):\n"
    "    database.execute_sql('ALTER TABLE %s ADD COLUMN c' % table)\n";
static const char orm_driver_py[] = "from orm.base import Database, logger\n"
                                    "class OtherDatabase(Database):\n"
                                    "    def execute_sql(self, sql, params=None):\n"
                                    "        logger.debug((sql, params))\n"
                                    "        return self.conn.run(sql, params)\n";

TEST(mapper_data_statements_go_to_the_base_before_an_override)
{
    unit_write_str("orm/orm/__init__.py", "");
    unit_write_str("orm/orm/base.py", orm_base_py);
    unit_write_str("orm/orm/a_ext.py", orm_driver_py);
    graph *g = index_dir("orm");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const char *const kase[][3] = {
        {"connected to /srv/app.db", "orm", "INFO"},
        {"('SELECT \"t1\".\"id\" FROM \"user\" AS \"t1\"', [1])", "orm", "DEBUG"}};
    uint32_t act[2];
    for (int c = 0; c < 3; c++) {
        uint32_t prev = UINT32_MAX;
        for (int i = 0; i < 2; i++) {
            map_event ev = {.text = kase[i][0],
                            .len = strlen(kase[i][0]),
                            .logger = kase[i][1],
                            .level = kase[i][2],
                            .learn = true};
            uint32_t v;
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act[i], &v);
            prev = act[i];
        }
    }
    uint32_t st = act[1];
    finish(m);
    map_activity pa = activity(m, st);
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK(pa.nsyms >= 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "orm.base.Database.execute_sql"));
    map_mapper_free(m);
    graph_close(g);
}

/* One template at two sites, one of which hands a colouring helper a
 * literal: that site's line is the literal's, and a line without it is
 * the other site's alone (the template as written is only its fallback). */
static const char twin_py[] =
    "import logging\n"
    "from .utils import blue\n"
    "log = logging.getLogger('jobs')\n"
    "class Worker:\n"
    "    def dequeue(self, queue, job):\n"
    "        log.info('%s: %s (%s)', queue.name, blue(job.text), job.id)\n"
    "    def perform(self, job):\n"
    "        log.info('%s: %s (%s)', job.origin, blue('Job OK'), job.id)\n";

TEST(matcher_a_template_as_written_beside_a_filled_one_is_a_fallback)
{
    unit_write_str("jobs/jobs/__init__.py", "");
    unit_write_str("jobs/jobs/utils.py", "def blue(text):\n    return '<' + text + '>'\n");
    unit_write_str("jobs/jobs/worker.py", twin_py);
    graph *g = index_dir("jobs");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t deq = map_rec(m, "low: <tasks.send_email(1)> (a1)", "jobs", "INFO");
    uint32_t ok = map_rec(m, "low: <Job OK> (a1)", "jobs", "INFO");
    finish(m);
    map_activity pa = activity(m, deq);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "jobs.worker.Worker.dequeue"));
    pa = activity(m, ok);
    CHECK_INT(pa.nsyms, 1);
    CHECK_INT(pa.syms[0], unit_sym(g, "jobs.worker.Worker.perform"));
    map_mapper_free(m);
    graph_close(g);
}

/* A client that logs the commands it sends (its callers' literals), the
 * replies it reads, and what is left when the connection closes, just
 * before saying so: three sites without text, one logger. Sending calls
 * onClose, which is so nearer to the commands than onData. */
static const char wire_js[] = "class Wire {\n"
                              "  constructor(logger) { this.logger = logger; }\n"
                              "  send(str) {\n"
                              "    if (this.socket.destroyed) return this.onClose();\n"
                              "    this.logger.debug({ tnx: 'client' }, str.toString().trim());\n"
                              "    this.socket.write(str + '\\r\\n');\n"
                              "  }\n"
                              "  hello() { this.send('EHLO client.example.test'); }\n"
                              "  mail() { this.send('MAIL FROM:<ann@example.test>'); }\n"
                              "  quit() { this.send('QUIT'); }\n"
                              "  onClose() {\n"
                              "    this.logger.debug({ tnx: 'server' }, this.rest.trim());\n"
                              "    this.logger.info('Connection closed');\n"
                              "  }\n"
                              "  onData(chunk) {\n"
                              "    this.logger.debug({ tnx: 'server' }, chunk.toString().trim());\n"
                              "    this.handle(chunk);\n"
                              "  }\n"
                              "  handle(chunk) { return chunk; }\n"
                              "}\n"
                              "module.exports = Wire;\n";

TEST(mapper_logger_strategy_follows_the_order_of_the_cases)
{
    unit_write_str("wire/lib/wire.js", wire_js);
    graph *g = index_dir("wire");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    /* Each case: a command, the server's reply, ... and the close. The
     * replies sit between commands, whose function is nearest; but that
     * function's known calls are the commands, and none renders a reply.
     * onClose is nearer than onData by the code, yet what it logs is
     * always followed by "Connection closed", which never follows these
     * replies. */
    static const char *const wire[][3] = {{"EHLO client.example.test", "smtp", "DEBUG"},
                                          {"250 Hello there", "smtp", "DEBUG"},
                                          {"MAIL FROM:<ann@example.test>", "smtp", "DEBUG"},
                                          {"250 Accepted", "smtp", "DEBUG"},
                                          {"QUIT", "smtp", "DEBUG"},
                                          {"221 Bye", "smtp", "DEBUG"},
                                          {"Connection closed", "smtp", "INFO"}};
    uint32_t act[7];
    for (int c = 0; c < 4; c++) {
        uint32_t prev = UINT32_MAX;
        for (int i = 0; i < 7; i++) {
            map_event ev = {.text = wire[i][0],
                            .len = strlen(wire[i][0]),
                            .logger = wire[i][1],
                            .level = wire[i][2],
                            .learn = true};
            uint32_t v;
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act[i], &v);
            prev = act[i];
        }
    }
    finish(m);
    uint32_t on_data = unit_sym(g, "lib/wire.Wire.onData"),
             send = unit_sym(g, "lib/wire.Wire.send");
    CHECK_INT(activity(m, act[0]).syms[0], send);
    for (int i = 1; i <= 3; i += 2) {
        map_activity pa = activity(m, act[i]);
        CHECK_INT(pa.strategy, MAP_BY_LOGGER);
        CHECK_INT(pa.nsyms, 3);
        CHECK_INT(pa.syms[0], on_data);
        CHECK_INT(pa.syms[1], unit_sym(g, "lib/wire.Wire.onClose"));
        CHECK_INT(pa.syms[2], send); /* kept, behind */
        CHECK(pa.conf[0] > pa.conf[1] && pa.conf[1] > pa.conf[2]);
        CHECK(fabsf(pa.conf[0] + pa.conf[1] + pa.conf[2] - 1.0f) < 1e-5f);
    }
    map_mapper_free(m);
    graph_close(g);
}

static const char smtp_js[] = "class Smtp {\n"
                              "  constructor(logger) { this.logger = logger; }\n"
                              "  send(str) {\n"
                              "    this.logger.debug({ tnx: 'client' }, str);\n"
                              "    this.socket.write(str + '\\r\\n');\n"
                              "    this.socket.once('reply', chunk => this.onData(chunk));\n"
                              "  }\n"
                              "  onData(chunk) {\n"
                              "    this.logger.debug({ tnx: 'server' }, chunk.toString().trim());\n"
                              "    this.next(chunk);\n"
                              "  }\n"
                              "  next(chunk) { return chunk; }\n"
                              "  stream(message) {\n"
                              "    message.on('chunk', line => {\n"
                              "      this.logger.debug({ tnx: 'message' }, line.toString());\n"
                              "      this.socket.write(line);\n"
                              "    });\n"
                              "    this.logger.info('%s bytes sent', message.length);\n"
                              "  }\n"
                              "  hello() { this.send('EHLO client.example.test'); }\n"
                              "  mail() { this.send('MAIL FROM:<ann@example.test>'); }\n"
                              "  rcpt() { this.send('RCPT TO:<bob@example.test>'); }\n"
                              "  data(message) {\n"
                              "    this.send('DATA');\n"
                              "    this.stream(message);\n"
                              "  }\n"
                              "  quit() { this.send('QUIT'); }\n"
                              "}\n"
                              "module.exports = Smtp;\n";

/* One run of the SMTP exchange below, six cases, its server replies
 * beginning with lead (as the logger frames them); *end is the activity of
 * the reply to DATA. */
static map_mapper *smtp_exchange(graph *g, const char *lead, uint32_t *end, uint32_t *hello)
{
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const char *const replies[][5] = {
        {"220 mx.example.test ready", "250 Hello there", "250 Sender ok", "250 Recipient ok",
         "221 Bye"},
        {"220 relay.example.test welcomes you", "250 Hi", "250 Sender accepted", "250 Will relay",
         "221 Closing"},
    };
    for (int c = 0; c < 6; c++) {
        const char *const *r = replies[c % 2];
        const char *msgs[] = {r[0],
                              "C: EHLO client.example.test",
                              r[1],
                              "C: MAIL FROM:<ann@example.test>",
                              r[2],
                              "C: RCPT TO:<bob@example.test>",
                              r[3],
                              "C: DATA",
                              "354 End data with <CR><LF>.<CR><LF>",
                              "1234 bytes sent",
                              "250 Queued as 1f2e3d",
                              "C: QUIT",
                              r[4]};
        uint32_t prev = UINT32_MAX;
        for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
            char text[128];
            bool reply = i % 2 == 0 || i == 10;
            snprintf(text, sizeof text, "%s%s", reply ? lead : "", msgs[i]);
            map_event ev = {.text = text,
                            .len = strlen(text),
                            .logger = "smtp",
                            .level = i == 9 ? "INFO" : "DEBUG",
                            .learn = true};
            uint32_t act, v;
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act, &v);
            if (i == 8)
                *end = act;
            else if (i == 2 && c == 0)
                *hello = act;
            prev = act;
        }
    }
    finish(m);
    return m;
}

/* The server's replies all begin "S: ", as the logger frames them. The
 * reply to DATA sits between the command of the function that streams the
 * message and what stream logs, and by nearness alone would be stream's;
 * the other replies are onData's, and so is this one. A word of prose
 * beginning them all is no such framing: nearness stands, as it does for
 * the replies it put at onData already. */
TEST(mapper_logger_messages_of_one_lead)
{
    unit_write_str("smtp/lib/smtp.js", smtp_js);
    graph *g = index_dir("smtp");
    uint32_t on_data = unit_sym(g, "lib/smtp.Smtp.onData"),
             stream = unit_sym(g, "lib/smtp.Smtp.stream");
    uint32_t end, hello;
    map_mapper *m = smtp_exchange(g, "S: ", &end, &hello);
    CHECK_INT(activity(m, hello).strategy, MAP_BY_LOGGER);
    CHECK_INT(activity(m, hello).syms[0], on_data);
    float hello_conf = activity(m, hello).conf[0];
    map_activity pa = activity(m, end);
    CHECK_STR(pa.text, "S: <num> End data with <CR><LF>.<CR><LF>");
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.nsyms, 2);
    CHECK_INT(pa.syms[0], on_data);
    CHECK_INT(pa.syms[1], stream);
    CHECK(pa.conf[0] > pa.conf[1]);
    CHECK(fabsf(pa.conf[0] + pa.conf[1] - 1.0f) < 1e-5f);
    map_mapper_free(m);

    /* Where nearness and the lead agree on the first, nearness's weights
     * stand: the same as where no lead is taken. */
    m = smtp_exchange(g, "Server ", &end, &hello);
    CHECK_INT(activity(m, hello).syms[0], on_data);
    CHECK(fabsf(activity(m, hello).conf[0] - hello_conf) < 1e-6f);
    pa = activity(m, end);
    CHECK_STR(pa.text, "Server <num> End data with <CR><LF>.<CR><LF>");
    CHECK_INT(pa.strategy, MAP_BY_LOGGER);
    CHECK_INT(pa.syms[0], stream);
    map_mapper_free(m);
    graph_close(g);
}

/* An error logged whole: the text its maker gave it, read out of each
 * rendering (a stack with line breaks as bytes or as backslash n, its
 * properties as JSON even when cut short), and nothing out of what is no
 * such rendering (`Name: text` without frames is as often a message of
 * its own). */
TEST(error_message_read_out_of_its_rendering)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"Error: export timed out\n    at Timeout._onTimeout (/srv/a.js:3:9)", "export timed out"},
        {"TypeError: bad: input\\n    at f (/srv/a.js:3:9)\\n    at g (/srv/a.js:9:1)",
         "bad: input"},
        {"{\"stack\":\"Error: x\\n    at f\",\"message\":\"root \\\"sampler\\\" missing\"}",
         "root \"sampler\" missing"},
        {"{\"stack\":\"Error: root sampler missing\\n    at new Sampler (/srv/a.js:4:2)\\n  ",
         "root sampler missing"},
        {"  RangeError: out of range\n   at f (/srv/a.js:1:1)  ", "out of range"},
        {"ConnectionResetError: [Errno 104] Connection reset by peer", NULL},
        {"Note: the cache is cold", NULL},
        {"Error\n    at f (/srv/a.js:1:1)", NULL},
        {"Error: \n    at f (/srv/a.js:1:1)", NULL},
        {"{\"code\":42}", NULL},
        {"12: not a name", NULL},
    };
    core_buf out = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bool got = map__error_message(cases[i].in, strlen(cases[i].in), &out);
        CHECK_INT(got, cases[i].want != NULL);
        if (got && cases[i].want)
            CHECK_STR(out.data, cases[i].want);
    }
    core_buf_free(&out);
}

/* The string members of a message rendered as a JSON object, in order,
 * past nested values and numbers, as far as a cut-short one goes. */
TEST(json_members_read_out_of_a_message)
{
    static const struct {
        const char *in;
        uint32_t k;
        const char *want;
    } cases[] = {
        {"{\"a\": 1, \"sql\": \"x \\\"y\\\"\", \"n\": {\"msg\": \"in\"}, \"t\": \"two\"}", 0,
         "x \"y\""},
        {"{\"a\": 1, \"sql\": \"x \\\"y\\\"\", \"n\": {\"msg\": \"in\"}, \"t\": \"two\"}", 1,
         "two"},
        {"{\"a\": 1, \"sql\": \"x\", \"n\": [\"in\", {\"b\": \"c\"}], \"t\": \"two\"}", 2, NULL},
        {"  {\"sql\":\"SELECT * FR", 0, "SELECT * FR"},
        {"{\"msg\":\"done\"", 0, "done"},
        {"[\"done\"]", 0, NULL},
        {"{\"a\":}", 0, NULL},
        {"done", 0, NULL},
    };
    core_buf out = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t at = 0;
        bool got = true;
        for (uint32_t k = 0; k <= cases[i].k && got; k++)
            got = map__json_next(cases[i].in, strlen(cases[i].in), &at, &out);
        CHECK_INT(got, cases[i].want != NULL);
        if (got && cases[i].want)
            CHECK_STR(out.data, cases[i].want);
    }
    core_buf_free(&out);
}

static const char exporter_js[] =
    "const debug = require('debug')('app:export');\n"                           /* 1 */
    "\n"                                                                        /* 2 */
    "function report(err) {\n"                                                  /* 3 */
    "  debug(err.stack);\n"                                                     /* 4 */
    "}\n"                                                                       /* 5 */
    "\n"                                                                        /* 6 */
    "class Exporter {\n"                                                        /* 7 */
    "  constructor(opts) {\n"                                                   /* 8 */
    "    if (!opts.root) report(new Error('Exporter needs a root sampler'));\n" /* 9 */
    "    debug('exporter ready');\n"                                            /* 10 */
    "  }\n"                                                                     /* 11 */
    "  send(batch) {\n"                                                         /* 12 */
    "    debug('sending batch of %d', batch.length);\n"                         /* 13 */
    "    return new Promise((resolve, reject) => {\n"                           /* 14 */
    "      const expire = () => reject(new Error('export timed out'));\n"       /* 15 */
    "      setTimeout(expire, 10);\n"                                           /* 16 */
    "    });\n"                                                                 /* 17 */
    "  }\n"                                                                     /* 18 */
    "  flush() {\n"                                                             /* 19 */
    "    debug('flushing');\n"                                                  /* 20 */
    "    return this.send([]).catch((err) => report(err));\n"                   /* 21 */
    "  }\n"                                                                     /* 22 */
    "  drain() {\n"                                                             /* 23 */
    "    return this.send([1]);\n"                                              /* 24 */
    "  }\n"                                                                     /* 25 */
    "}\n"                                                                       /* 26 */
    "\n"                                                                        /* 27 */
    "module.exports = { Exporter, report };\n";                                 /* 28 */

/* What an error logged whole is placed at: one handed to a call where it
 * is made is the maker's event (the constructor reporting it, of the two
 * copies of its class the one the case's other events come from); one that
 * rejects a promise (thrown) goes to what calls the function that made
 * the promise and catches (flush), not to the maker (expire, a function
 * inside send), nor to a caller that lets it through (drain). */
TEST(mapper_errors_logged_whole)
{
    unit_write_str("errs/lib/exporter.js", exporter_js);
    /* A copy of the class in another package, logging otherwise. */
    unit_write_str("errs/compat/exporter.js",
                   "const debug = require('debug')('vendor');\n"
                   "function report(err) { debug(err.stack); }\n"
                   "class Exporter {\n"
                   "  constructor(opts) {\n"
                   "    if (!opts.root) report(new Error('Exporter needs a root sampler'));\n"
                   "    debug('vendored exporter up');\n"
                   "  }\n"
                   "}\n"
                   "module.exports = { Exporter };\n");
    graph *g = index_dir("errs");
    uint32_t ctor = unit_sym(g, "lib/exporter.Exporter.constructor"),
             flush = unit_sym(g, "lib/exporter.Exporter.flush"),
             send = unit_sym(g, "lib/exporter.Exporter.send");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t root = UINT32_MAX, timed = UINT32_MAX;
    for (int c = 0; c < 6; c++) {
        char stack[256], json[256];
        snprintf(
            stack, sizeof stack,
            "Error: Exporter needs a root sampler\n    at new Exporter (/srv/lib/exporter.js:9:30)"
            "\n    at main (/srv/main.js:%d:3)",
            c + 1);
        snprintf(json, sizeof json,
                 "{\"stack\":\"Error: export timed out\\n    at Timeout._onTimeout "
                 "(/srv/lib/exporter.js:15:%d)\",\"message\":\"export timed out\"}",
                 c + 20);
        const char *msgs[] = {stack, "exporter ready", "flushing", "sending batch of 3", json};
        uint32_t prev = UINT32_MAX;
        for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
            map_event ev = {
                .text = msgs[i], .len = strlen(msgs[i]), .logger = "app:export", .learn = true};
            uint32_t act, v;
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act, &v);
            if (i == 0)
                root = act;
            else if (i == 4)
                timed = act;
            prev = act;
        }
    }
    finish(m);
    map_activity a = activity(m, root);
    CHECK_STR(a.text, "Exporter needs a root sampler");
    CHECK_INT(a.strategy, MAP_BY_CONST);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], ctor);
    a = activity(m, timed);
    CHECK_STR(a.text, "export timed out");
    CHECK_INT(a.strategy, MAP_BY_CONST);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], flush);
    CHECK(a.syms[0] != send);
    /* The dictionary keeps where the text was read from, for a mapper
     * that places it after a restart. */
    core_buf rec = {0};
    map_dict_put_activity(m, timed, &rec);
    map__dict_rec d;
    CHECK_OK(map__dict_decode(rec.data, rec.len, graph_nsymbols(g), &d));
    CHECK(d.has_const && d.error_text);
    map__dict_rec_free(&d);
    map_mapper *m2 = new_mapper(g, &o);
    uint32_t id;
    CHECK_OK(map_dict_restore_activity(m2, rec.data, rec.len, 1, false, &id));
    CHECK(map__error_text(m2, id));
    map_mapper_free(m2);
    core_buf_free(&rec);
    map_mapper_free(m);
    graph_close(g);
}

/* A function's text-less call sites, as the index kept them. */
static uint32_t dynamic_calls(const graph *g, uint32_t sym)
{
    uint32_t first, n = graph_symbol_emits(g, sym, &first), k = 0;
    for (uint32_t e = first; e < first + n; e++) {
        graph_emit em;
        graph_get_emit(g, e, &em);
        k += em.kind == GRAPH_EMIT_CALL && em.style == GRAPH_STYLE_DYNAMIC;
    }
    return k;
}

/* An API object the code does not know for a logger (`diag`, from a
 * package not indexed) logs literal text at some calls and text made at
 * run time at others (`diag.verbose(JSON.stringify(cfg))`). Once the log
 * shows the logger's messages going through that object, a message no
 * template shows goes to such a call near the case, and never to a call
 * on an object it was not seen through. */
TEST(mapper_logger_through_an_api_object)
{
    unit_write_str("apiobj/start.js",
                   "const { diag } = require('ext-api');\n"
                   "const { load } = require('./load');\n"
                   "function start(n) { diag.debug('starting with %d workers', n); "
                   "load({ port: n }); }\n"
                   "function stop() { diag.debug('stopping now'); }\n"
                   "module.exports = { start, stop };\n");
    unit_write_str("apiobj/load.js", "const { diag } = require('ext-api');\n"
                                     "const other = require('ext-other');\n"
                                     "function load(cfg) {\n"
                                     "  diag.debug('loading config');\n"
                                     "  const text = JSON.stringify(cfg);\n"
                                     "  diag.verbose(text);\n"
                                     "}\n"
                                     "function show(obj) { other.info('shown'); "
                                     "other.verbose(JSON.stringify(obj)); }\n"
                                     "function list(items) { for (const i of items) "
                                     "diag.debug(' %s', i); }\n"
                                     "module.exports = { load, show, list };\n");
    graph *g = index_dir("apiobj");
    uint32_t load = unit_sym(g, "load.load"), show = unit_sym(g, "load.show");
    /* The calls of a level-named method on a receiver with literal text
     * elsewhere in the file are kept, without text. */
    CHECK_INT(dynamic_calls(g, load), 1);
    CHECK_INT(dynamic_calls(g, show), 1);
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t data = UINT32_MAX, stranger = UINT32_MAX;
    for (int c = 0; c < 4; c++) {
        char workers[64], cfg[64];
        snprintf(workers, sizeof workers, "starting with %d workers", c + 2);
        snprintf(cfg, sizeof cfg, "{\"port\": %d}", 8000 + c);
        const char *msgs[] = {workers, "loading config", cfg, "stopping now"};
        uint32_t prev = UINT32_MAX;
        for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
            map_event ev = {.text = msgs[i],
                            .len = strlen(msgs[i]),
                            .logger = "diag",
                            .level = i == 2 ? "VERBOSE" : "DEBUG",
                            .learn = true};
            uint32_t act, v;
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act, &v);
            if (i == 2)
                data = act;
            prev = act;
        }
    }
    /* Another logger's data: nothing showed it going through either. */
    stranger = map_rec(m, "[1, 2, 3]", "audit", "VERBOSE");
    finish(m);
    map_activity a = activity(m, data);
    CHECK_INT(a.strategy, MAP_BY_LOGGER);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], load);
    /* Not a call on another object, nor one whose little text (a space)
     * does not render the message. */
    CHECK(a.syms[0] != show && a.syms[0] != unit_sym(g, "load.list"));
    CHECK_INT(activity(m, stranger).nsyms, 0);
    map_mapper_free(m);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

static const char flow_py[] = "import logging\n"
                              "\n"
                              "logger = logging.getLogger(__name__)\n"
                              "\n"
                              "\n"
                              "def fa():\n"
                              "    logger.info(\"apple event\")\n"
                              "\n"
                              "\n"
                              "def fb():\n"
                              "    logger.info(\"banana event\")\n"
                              "\n"
                              "\n"
                              "def fc():\n"
                              "    logger.info(\"cherry event\")\n"
                              "\n"
                              "\n"
                              "def fd():\n"
                              "    logger.info(\"damson event\")\n"
                              "\n"
                              "\n"
                              "def fe():\n"
                              "    logger.info(\"elder event\")\n"
                              "\n"
                              "\n"
                              "def fx():\n"
                              "    logger.info(\"xigua event\")\n"
                              "\n"
                              "\n"
                              "def fv(where):\n"
                              "    logger.info(\"visit %s\", where)\n";

static graph *open_flow(void)
{
    unit_write_str("flow/flow.py", flow_py);
    return index_dir("flow");
}

/* Cases as letters: A..E, X the functions' messages, H and K "visit home"
 * and "visit cart". */
static const char *letter_msg(char c)
{
    switch (c) {
    case 'A':
        return "apple event";
    case 'B':
        return "banana event";
    case 'C':
        return "cherry event";
    case 'D':
        return "damson event";
    case 'E':
        return "elder event";
    case 'X':
        return "xigua event";
    case 'H':
        return "visit home";
    case 'K':
        return "visit cart";
    default:
        unit_fail(__FILE__, __LINE__, "no message for '%c'", c);
    }
}

typedef struct seqs {
    uint32_t act[256], var[256], off[64];
    uint32_t ncases;
} seqs;

/* Maps the cases (one string of letters each) into s. */
static void map_cases(map_mapper *m, const char *const *cases, uint32_t n, seqs *s, bool learn)
{
    uint32_t k = 0;
    s->ncases = n;
    s->off[0] = 0;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t prev = UINT32_MAX;
        for (const char *p = cases[c]; *p; p++) {
            const char *msg = letter_msg(*p);
            map_event ev = {.text = msg, .len = strlen(msg), .learn = learn};
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &s->act[k], &s->var[k]);
            prev = s->act[k++];
        }
        s->off[c + 1] = k;
    }
}

static model_seqs as_seqs(const seqs *s)
{
    return (model_seqs){s->act, s->var, s->off, s->ncases};
}

/* The top-1 symbol for a prefix given as letters. */
static uint32_t top1(const model_joint *md, map_mapper *m, const char *prefix, model_pred *out)
{
    uint32_t act[32], var[32], n = 0;
    uint32_t prev = UINT32_MAX;
    for (const char *p = prefix; *p; p++, n++) {
        const char *msg = letter_msg(*p);
        map_event ev = {.text = msg, .len = strlen(msg)};
        map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &act[n], &var[n]);
        prev = act[n];
    }
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred p[10];
    uint32_t k = model_rank(md, w, act, var, n, 10, p);
    model_work_free(w);
    if (out)
        *out = p[0];
    return k ? p[0].symbol : UINT32_MAX;
}

static model_joint *train(map_mapper *m, const seqs *s, const model_params *p)
{
    model_seqs q = as_seqs(s);
    model_joint *md = NULL;
    CHECK_OK(model_train(m, &q, p, &md));
    return md;
}

static const char *const ABC_CASES[] = {"ABC", "ABD", "ABC", "XBD"};

TEST(model_order_two_decides)
{
    graph *g = open_flow();
    map_mapper *m = new_mapper(g, NULL);
    seqs s;
    map_cases(m, ABC_CASES, 4, &s, true);
    /* E is known to the mapper but never seen in training. */
    map_cases(m, (const char *const[]){"E"}, 1, &(seqs){0}, false);
    finish(m);
    uint32_t fb = unit_sym(g, "flow.fb"), fc = unit_sym(g, "flow.fc"), fd = unit_sym(g, "flow.fd"),
             fe = unit_sym(g, "flow.fe");
    model_params p = model_params_default();
    model_joint *md = train(m, &s, &p);
    model_stats st;
    model_get_stats(md, &st);
    CHECK_INT(st.train_cases, 4);
    CHECK_INT(st.train_events, 12);
    CHECK_INT(st.symbols, graph_nsymbols(g));
    CHECK_INT(st.activities, map_mapper_nactivities(m));
    CHECK_INT(st.variants_kept, 0);
    /* Contexts: [A] [X] [B] [A B] [X B]. */
    CHECK_INT(st.contexts, 5);
    /* B follows A three times out of three: fb. (X B was seen once: the
     * Witten-Bell weight of [X] is 1/2, and the current emitter, one hop
     * nearer than the predicted one, keeps the rest.) */
    CHECK_INT(top1(md, m, "A", NULL), fb);
    /* After B, order 1 says C or D 2:2; order 2 decides: A B -> C 2:1,
     * X B -> D. */
    model_pred pr;
    CHECK_INT(top1(md, m, "AB", &pr), fc);
    CHECK_INT(pr.activity, map_mapper_find(m, "cherry event"));
    CHECK_INT(top1(md, m, "XB", &pr), fd);
    CHECK_INT(pr.activity, map_mapper_find(m, "damson event"));
    /* Cold start: nothing follows C or E in training; the recency
     * fallback ranks the current emitter. */
    CHECK_INT(top1(md, m, "C", NULL), fc);
    CHECK_INT(top1(md, m, "E", NULL), fe);
    CHECK_INT(top1(md, m, "ABE", NULL), fe);
    model_free(md);

    /* With order 1 the two prefixes are the same to the model. */
    p.order = 1;
    md = train(m, &s, &p);
    model_get_stats(md, &st);
    CHECK_INT(st.contexts, 3);
    uint32_t t1 = top1(md, m, "AB", NULL), t2 = top1(md, m, "XB", NULL);
    CHECK(t1 == fc || t1 == fd);
    CHECK_INT(t1, t2);
    model_free(md);

    /* Only functions that emit an activity are ranked; never k past what
     * exists; k = 0 and an empty prefix rank nothing. */
    p = model_params_default();
    md = train(m, &s, &p);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred out[40];
    uint32_t n = model_rank(md, w, s.act, s.var, 2, 40, out);
    CHECK(n >= 2 && n <= 8);
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol sy;
        graph_get_symbol(g, out[i].symbol, &sy);
        CHECK_INT(sy.kind, GRAPH_SYM_FUNCTION);
        CHECK(out[i].score > 0);
        CHECK(i == 0 || out[i - 1].score >= out[i].score);
    }
    CHECK_INT(model_rank(md, w, s.act, s.var, 2, 0, out), 0);
    CHECK_INT(model_rank(md, w, s.act, s.var, 0, 10, out), 0);
    /* The seeds of the last ranking are contexts and activities. */
    model_rank(md, w, s.act, s.var, 2, 10, out);
    const ppr_entry *seeds;
    uint32_t ns = model_seeds(w, &seeds);
    CHECK(ns >= 2);
    uint32_t id;
    CHECK_INT(model_node(md, seeds[0].node, &id), MODEL_NODE_CONTEXT);
    core_buf b = {0};
    model_context_text(md, id, &b);
    CHECK_STR(b.data, "[apple event] > [banana event]");
    core_buf_free(&b);
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

TEST(model_variants_decide)
{
    graph *g = open_flow();
    map_mapper *m = new_mapper(g, NULL);
    static const char *const cases[] = {"HA", "KB", "HA", "KB", "HA", "KB"};
    seqs s;
    map_cases(m, cases, 6, &s, true);
    finish(m);
    uint32_t fa = unit_sym(g, "flow.fa"), fb = unit_sym(g, "flow.fb");
    /* H and K are one activity ("visit %s") with two variants. */
    CHECK_INT(s.act[0], s.act[2]);
    CHECK(s.var[0] != s.var[2]);
    model_params p = model_params_default();
    model_joint *md = train(m, &s, &p);
    model_stats st;
    model_get_stats(md, &st);
    CHECK_INT(st.variants_kept, 1);
    CHECK_INT(top1(md, m, "H", NULL), fa);
    CHECK_INT(top1(md, m, "K", NULL), fb);
    model_free(md);
    /* 2 variants of 6 events: kept up to a ratio of 1/3 ... */
    p.variant_min = 0;
    p.variant_ratio = 0.34;
    md = train(m, &s, &p);
    model_get_stats(md, &st);
    CHECK_INT(st.variants_kept, 1);
    CHECK_INT(top1(md, m, "K", NULL), fb);
    model_free(md);
    /* ... not below */
    p.variant_ratio = 0.3;
    md = train(m, &s, &p);
    model_get_stats(md, &st);
    CHECK_INT(st.variants_kept, 0);
    CHECK_INT(top1(md, m, "H", NULL), top1(md, m, "K", NULL));
    model_free(md);
    /* never */
    p.variant_ratio = 0;
    md = train(m, &s, &p);
    model_get_stats(md, &st);
    CHECK_INT(st.variants_kept, 0);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* Every prefix of every case, ranked by both models: identical. */
/* Both models rank every prefix of s alike: the same symbols, scores and
 * activities (tol 0), or scores within tol and the same symbols wherever
 * the scores are more than tol apart. */
static void check_same_rankings(const model_joint *m1, const model_joint *m2, const seqs *s,
                                double tol)
{
    model_work *w1, *w2;
    CHECK_OK(model_work_new(m1, &w1));
    CHECK_OK(model_work_new(m2, &w2));
    uint32_t total = 0;
    for (uint32_t c = 0; c < s->ncases; c++) {
        const uint32_t *act = s->act + s->off[c], *var = s->var + s->off[c];
        uint32_t len = s->off[c + 1] - s->off[c];
        for (uint32_t k = 1; k <= len; k++) {
            model_pred p1[10], p2[10];
            uint32_t n1 = model_rank(m1, w1, act, var, k, 10, p1);
            uint32_t n2 = model_rank(m2, w2, act, var, k, 10, p2);
            CHECK_INT(n1, n2);
            CHECK(n1 > 0);
            for (uint32_t i = 0; i < n1; i++) {
                if (tol == 0) {
                    CHECK_INT(p1[i].symbol, p2[i].symbol);
                    CHECK(p1[i].score == p2[i].score);
                    CHECK_INT(p1[i].activity, p2[i].activity);
                    continue;
                }
                CHECK(fabs(p1[i].score - p2[i].score) < tol);
                if (i + 1 < n1 && p1[i].score - p1[i + 1].score > tol)
                    CHECK_INT(p1[i].symbol, p2[i].symbol);
            }
            total++;
        }
    }
    CHECK(total > 0);
    model_work_free(w1);
    model_work_free(w2);
}

static const char *const MIXED_CASES[] = {"ABC", "ABD", "HAB", "KBD", "XBD", "ABCE", "HA", "KB"};

static model_joint *mixed_model(const graph *g, map_mapper **mp, seqs *s)
{
    map_mapper *m = new_mapper(g, NULL);
    map_cases(m, MIXED_CASES, 8, s, true);
    /* an unmapped activity too */
    map_event ev = {.text = "zzz 1", .len = 5, .learn = true};
    uint32_t a, v;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    finish(m);
    model_params p = model_params_default();
    p.order = 3;
    *mp = m;
    return train(m, s, &p);
}

/* The daemon's path: each case advanced event by event with the
 * warm-start rule ranks as the offline ranking of the same prefix does
 * (same symbols in the same order, scores within the vector's error
 * bound), for several decays, including 0 and an unmapped activity in
 * the middle of a case. */
TEST(model_warm_stream_equals_cold)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *md = mixed_model(g, &m, &s);
    /* a case with the unmapped activity inside it */
    map_event ev = {.text = "zzz 2", .len = 5};
    uint32_t za, zv;
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &za, &zv);
    CHECK(za < map_mapper_nactivities(m));
    const double decays[] = {0.5, 0, 0.9};
    for (size_t di = 0; di < sizeof decays / sizeof *decays; di++) {
        model_params p = *model_get_params(md);
        p.decay = decays[di];
        model_joint *x = train(m, &s, &p);
        CHECK_OK(model_stream_prepare(x, 64, 2));
        CHECK(model_stream_bytes(x) > 0);
        CHECK_INT(model_stream_prepare(x, 0, 1), CORE_EUSAGE);
        model_work *w;
        CHECK_OK(model_work_new(x, &w));
        uint32_t ranked = 0;
        for (uint32_t c = 0; c <= s.ncases; c++) {
            uint32_t act[16], var[16], len = 0;
            if (c < s.ncases) {
                for (uint32_t i = s.off[c]; i < s.off[c + 1]; i++, len++) {
                    act[len] = s.act[i];
                    var[len] = s.var[i];
                }
            } else { /* A, the unmapped message, B, C */
                act[0] = s.act[0], var[0] = s.var[0];
                act[1] = za, var[1] = zv;
                act[2] = s.act[1], var[2] = s.var[1];
                act[3] = s.act[2], var[3] = s.var[2];
                len = 4;
            }
            ppr_entry store[64];
            ppr_vec rec;
            ppr_vec_init(&rec, store, 64);
            double wsum = 0;
            for (uint32_t k = 1; k <= len; k++) {
                CHECK_OK(model_advance(x, w, &rec, &wsum, act[k - 1]));
                model_pred cold[10], warm[10];
                uint32_t n1 = model_rank(x, w, act, var, k, 10, cold);
                uint32_t n2 = model_rank_warm(x, w, act, var, k, &rec, wsum, 10, warm);
                CHECK_INT(n1, n2);
                for (uint32_t i = 0; i < n1; i++) {
                    CHECK_INT(cold[i].symbol, warm[i].symbol);
                    CHECK_INT(cold[i].activity, warm[i].activity);
                    CHECK(fabs(cold[i].score - warm[i].score) <= 1e-4 + rec.err);
                }
                ranked += n1 > 0;
            }
        }
        CHECK(ranked > 20);
        model_work_free(w);
        model_free(x);
    }
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* model_rank_warm memoises the push of a context after 4096
 * rankings: over 6000 rankings of repeating prefixes, one long-lived work
 * ranks bit for bit as a fresh work does. */
TEST(model_warm_memo_equals_fresh_work)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *md = mixed_model(g, &m, &s);
    CHECK_OK(model_stream_prepare(md, 64, 1));
    model_work *w, *fresh;
    CHECK_OK(model_work_new(md, &w));
    uint32_t same = 0;
    for (uint32_t round = 0; round < 6000; round++) {
        uint32_t c = round % s.ncases, len = s.off[c + 1] - s.off[c];
        uint32_t k = 1 + round / s.ncases % len;
        const uint32_t *act = s.act + s.off[c], *var = s.var + s.off[c];
        ppr_entry store[64];
        ppr_vec rec;
        ppr_vec_init(&rec, store, 64);
        double wsum = 0;
        for (uint32_t i = 0; i < k; i++)
            CHECK_OK(model_advance(md, w, &rec, &wsum, act[i]));
        model_pred a[10], b[10];
        uint32_t na = model_rank_warm(md, w, act, var, k, &rec, wsum, 10, a);
        if (round % 7 == 0 || round > 5900) {
            CHECK_OK(model_work_new(md, &fresh));
            uint32_t nb = model_rank_warm(md, fresh, act, var, k, &rec, wsum, 10, b);
            model_work_free(fresh);
            CHECK_INT(na, nb);
            for (uint32_t i = 0; i < na; i++) {
                CHECK_INT(a[i].symbol, b[i].symbol);
                CHECK_INT(a[i].activity, b[i].activity);
                CHECK_INT(a[i].near, b[i].near);
                CHECK(memcmp(&a[i].score, &b[i].score, sizeof a[i].score) == 0);
            }
            same++;
        }
    }
    CHECK(same > 900);
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* A list the walk leaves short is filled from the code graph: with
 * diffusion off (code_scale 0) and the next activity certain, the walk
 * ranks the next emitter (step) and, by recency, the current one (start);
 * the third place goes to deep, which step calls. The walked ranks are
 * those of a shorter list, and the filled one comes after them with a
 * lower score, no activity and the symbol it is near. */
TEST(model_fills_short_lists_from_code_graph)
{
    unit_write_str("fill/pkg/__init__.py", "");
    unit_write_str("fill/pkg/a.py", "import logging\n"
                                    "logger = logging.getLogger(__name__)\n"
                                    "\n"
                                    "def start():\n"
                                    "    logger.info(\"start event\")\n"
                                    "\n"
                                    "def step():\n"
                                    "    logger.info(\"step event\")\n"
                                    "    deep()\n"
                                    "\n"
                                    "def deep():\n"
                                    "    logger.info(\"deep event\")\n");
    unit_write_str("fill/other/__init__.py", "");
    unit_write_str("fill/other/b.py", "def other():\n"
                                      "    print(\"other event\")\n");
    graph *g = index_dir("fill");
    map_mapper *m = new_mapper(g, NULL);
    static const char *const cases[][2] = {{"start event", "step event"},
                                           {"start event", "step event"},
                                           {"deep event", "other event"}};
    seqs s = {.ncases = 3};
    uint32_t k = 0;
    for (uint32_t c = 0; c < 3; c++) {
        uint32_t prev = UINT32_MAX;
        for (uint32_t i = 0; i < 2; i++) {
            map_event ev = {.text = cases[c][i], .len = strlen(cases[c][i]), .learn = true};
            map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &s.act[k], &s.var[k]);
            prev = s.act[k++];
        }
        s.off[c + 1] = k;
    }
    finish(m);
    model_params p = model_params_default();
    p.order = 1;
    p.code_scale = 0;
    p.decay = 0;
    model_joint *md = train(m, &s, &p);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred full[10], two[2];
    uint32_t n = model_rank(md, w, s.act, s.var, 1, 10, full);
    uint32_t n2 = model_rank(md, w, s.act, s.var, 1, 2, two);
    uint32_t start = unit_sym(g, "pkg.a.start"), step = unit_sym(g, "pkg.a.step");
    uint32_t deep = unit_sym(g, "pkg.a.deep");
    CHECK_INT(n2, 2);
    CHECK(n >= 3);
    CHECK_INT(full[0].symbol, step);
    CHECK_INT(full[1].symbol, start);
    for (uint32_t i = 0; i < 2; i++) {
        CHECK_INT(two[i].symbol, full[i].symbol);
        CHECK(two[i].score == full[i].score);
        CHECK_INT(full[i].near, UINT32_MAX);
        CHECK(full[i].activity != UINT32_MAX);
    }
    CHECK_INT(full[2].symbol, deep);
    CHECK_INT(full[2].near, step);
    CHECK_INT(full[2].activity, UINT32_MAX);
    CHECK(full[2].score > 0 && full[2].score < full[1].score);
    /* other() is in an unrelated package, too far from the ranked ones */
    for (uint32_t i = 3; i < n; i++)
        CHECK(full[i].symbol != unit_sym(g, "other.b.other"));
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* Online learning: a model trained on half the cases, then given the
 * other half as windows, ranks as one trained on all of them. */
TEST(model_train_more_equals_training_on_all)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *tmp = mixed_model(g, &m, &s);
    model_free(tmp);
    model_params p = model_params_default();
    p.order = 3;
    p.variant_ratio = 0;
    p.variant_min = 0;
    model_joint *all = train(m, &s, &p);
    seqs half = s;
    half.ncases = 4;
    model_joint *base = train(m, &half, &p);
    model_follow_obs obs[64];
    size_t nobs = 0;
    uint64_t events = 0;
    for (uint32_t c = 4; c < s.ncases; c++) {
        uint32_t o0 = s.off[c], len = s.off[c + 1] - o0;
        events += len;
        for (uint32_t k = 1; k < len; k++) {
            uint32_t o = k < 16 ? k : 16;
            obs[nobs++] =
                (model_follow_obs){s.act + o0 + k - o, s.var + o0 + k - o, o, s.act[o0 + k], 1};
        }
    }
    CHECK(nobs > 5);
    model_joint *more;
    CHECK_OK(model_train_more(base, NULL, obs, nobs, events, s.ncases - 4, &more));
    model_stats sa, sm;
    model_get_stats(all, &sa);
    model_get_stats(more, &sm);
    CHECK_INT(sm.contexts, sa.contexts);
    CHECK_INT(sm.follows, sa.follows);
    CHECK_INT(sm.train_events, sa.train_events);
    CHECK_INT(sm.train_cases, sa.train_cases);
    check_same_rankings(all, more, &s, 1e-6);
    model_free(more);
    /* From a snapshot of the mapper: the same model, even when the mapper
     * has grown since the snapshot (the new activity gets no node). */
    model_mapper_snap *snap = model_mapper_snapshot(m);
    map_event me = {.text = "a message nobody wrote 12345", .len = 28};
    uint32_t na, nv;
    map_mapper_map(m, &me, NULL, 0, NULL, 0, &na, &nv);
    CHECK_INT(na, sa.activities);
    CHECK_OK(model_train_more(base, snap, obs, nobs, events, s.ncases - 4, &more));
    model_mapper_snap_free(snap);
    model_get_stats(more, &sm);
    CHECK_INT(sm.activities, sa.activities);
    CHECK_INT(sm.contexts, sa.contexts);
    check_same_rankings(all, more, &s, 1e-6);
    model_free(more);
    model_free(base);
    model_free(all);
    map_mapper_free(m);
    graph_close(g);
}

TEST(model_save_load_round_trip)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *md = mixed_model(g, &m, &s);
    const char *path = unit_tmp_path("flow.model");
    CHECK_OK(model_save(md, path));
    map_mapper *m2 = NULL;
    model_joint *md2 = NULL;
    char why[512];
    int rc = model_load(path, g, NULL, &m2, &md2, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "load: %s", why);
    /* The dictionary comes back with its ids. */
    CHECK_INT(map_mapper_nactivities(m2), map_mapper_nactivities(m));
    CHECK_INT(map_mapper_nvariants(m2), map_mapper_nvariants(m));
    for (uint32_t a = 0; a < map_mapper_nactivities(m); a++) {
        map_activity x = activity(m, a), y = activity(m2, a);
        CHECK_STR(x.text, y.text);
        CHECK_INT(x.strategy, y.strategy);
        CHECK_INT(x.nsyms, y.nsyms);
        CHECK_INT(x.count, y.count);
        CHECK_INT(x.nvariants, y.nvariants);
        for (uint32_t i = 0; i < x.nsyms; i++) {
            CHECK_INT(x.syms[i], y.syms[i]);
            CHECK(x.conf[i] == y.conf[i]);
        }
    }
    for (uint32_t v = 0; v < map_mapper_nvariants(m); v++) {
        const char *t1, *t2;
        CHECK_INT(map_mapper_variant(m, v, &t1), map_mapper_variant(m2, v, &t2));
        CHECK_STR(t1, t2);
    }
    model_stats s1, s2;
    model_get_stats(md, &s1);
    model_get_stats(md2, &s2);
    CHECK_INT(s1.contexts, s2.contexts);
    CHECK_INT(s1.edges, s2.edges);
    CHECK_INT(s1.follows, s2.follows);
    CHECK_INT(s1.variants_kept, s2.variants_kept);
    CHECK_INT(s1.train_events, s2.train_events);
    CHECK_INT(s1.train_cases, s2.train_cases);
    /* Field by field: the struct has padding, which memcmp would read. */
    const model_params *p1 = model_get_params(md), *p2 = model_get_params(md2);
    CHECK_INT(p1->order, p2->order);
    CHECK(p1->variant_ratio == p2->variant_ratio && p1->variant_min == p2->variant_min);
    CHECK(p1->alpha == p2->alpha && p1->code_scale == p2->code_scale);
    CHECK(p1->decay == p2->decay && p1->escape == p2->escape);
    CHECK(p1->code_prior == p2->code_prior && p1->case_prior == p2->case_prior);
    CHECK(memcmp(&p1->weights, &p2->weights, sizeof p1->weights) == 0);
    check_same_rankings(md, md2, &s, 0);
    /* Saving the loaded model gives the same bytes. */
    const char *path2 = unit_tmp_path("flow2.model");
    CHECK_OK(model_save(md2, path2));
    char *d1, *d2;
    size_t l1, l2;
    CHECK_OK(core_read_file(path, 1 << 20, &d1, &l1));
    CHECK_OK(core_read_file(path2, 1 << 20, &d2, &l2));
    CHECK_INT(l1, l2);
    CHECK(memcmp(d1, d2, l1) == 0);
    free(d1);
    free(d2);
    /* The loaded mapper maps messages as the trained one did. */
    CHECK_INT(map_msg(m2, "cherry event", UINT32_MAX, NULL), map_mapper_find(m, "cherry event"));
    CHECK_INT(map_msg(m2, "visit cart", UINT32_MAX, NULL), map_mapper_find(m, "visit %s"));
    model_free(md2);
    map_mapper_free(m2);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

static void expect_load_error(const char *path, const graph *g, const char *what)
{
    map_mapper *m = NULL;
    model_joint *md = NULL;
    char why[512] = "";
    int rc = model_load(path, g, NULL, &m, &md, why, sizeof why);
    if (rc == 0)
        unit_fail(__FILE__, __LINE__, "%s: loaded", path);
    CHECK(m == NULL);
    CHECK(md == NULL);
    if (!strstr(why, path) || !strstr(why, what))
        unit_fail(__FILE__, __LINE__, "why '%s' lacks '%s'", why, what);
}

TEST(model_file_errors)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *md = mixed_model(g, &m, &s);
    const char *path = unit_tmp_path("good.model");
    CHECK_OK(model_save(md, path));
    char *data;
    size_t len;
    CHECK_OK(core_read_file(path, 1 << 20, &data, &len));
    CHECK(len > 100);

    /* A flipped byte anywhere: a damaged file. */
    for (size_t at = 20; at < len; at += len / 7) {
        data[at] ^= 0x40;
        const char *p = unit_write("flip.model", data, len);
        expect_load_error(p, g, "damaged");
        data[at] ^= 0x40;
    }
    /* Truncated, at several places. */
    size_t cuts[] = {len - 1, len - 4, len / 2, 30};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *p = unit_write("cut.model", data, cuts[i]);
        map_mapper *m2 = NULL;
        model_joint *md2 = NULL;
        char why[512] = "";
        CHECK(model_load(p, g, NULL, &m2, &md2, why, sizeof why) != 0);
        CHECK(strstr(why, p) != NULL);
    }
    expect_load_error(unit_write("tiny.model", data, 5), g, "not a pmrag model file");
    expect_load_error(unit_write_str("text.model", "hello, this is not a model file"), g,
                      "not a pmrag model file");
    expect_load_error(unit_write("empty.model", "", 0), g, "not a pmrag model file");
    expect_load_error(unit_tmp_path("missing.model"), g, "No such file");
    /* Another version. */
    data[8] ^= 0x7f;
    expect_load_error(unit_write("ver.model", data, len), g, "version");
    data[8] ^= 0x7f;
    /* Older versions are read with no share for what they lack: they
     * rank as they did. The parameters start after magic, version, symbol
     * count and graph identity; code_prior and case_prior are the last of
     * them (order, variant_ratio, variant_min, alpha, code_scale, decay,
     * escape, the edge types' weights, reverse, code_prior, case_prior),
     * and the training counts and the flags follow. Version 4 lacks
     * case_prior; version 2 lacks both, and the flags. */
    size_t at = 8 + 4 + 4 + 8 + 4 + 8 + 4 + 8 * 4 + 8 * GRAPH_EDGE__COUNT + 8;
    CHECK_INT((unsigned char)data[8], 5);
    for (int version = 4; version >= 2; version -= 2) {
        /* [from, to) ranges cut, in order */
        size_t cut[2][2] = {{at + 8, at + 16}, {0, 0}}, ncut = 1;
        if (version == 2) {
            cut[0][0] = at;
            cut[1][0] = at + 16 + 16;
            cut[1][1] = at + 16 + 16 + 4;
            ncut = 2;
        }
        char *old = core_xmalloc(len);
        size_t olen = 0, from = 0;
        for (size_t i = 0; i < ncut; i++) {
            memcpy(old + olen, data + from, cut[i][0] - from);
            olen += cut[i][0] - from;
            from = cut[i][1];
        }
        memcpy(old + olen, data + from, len - from);
        olen += len - from;
        old[8] = (char)version;
        uint32_t crc = core_crc32(0, old, olen - 4);
        for (int i = 0; i < 4; i++)
            old[olen - 4 + i] = (char)(crc >> (8 * i));
        map_mapper *mo = NULL;
        model_joint *mdo = NULL;
        char whyo[512];
        int rco =
            model_load(unit_write("old.model", old, olen), g, NULL, &mo, &mdo, whyo, sizeof whyo);
        if (rco)
            unit_fail(__FILE__, __LINE__, "version %d: %s", version, whyo);
        CHECK(model_get_params(mdo)->case_prior == 0);
        CHECK(model_get_params(mdo)->code_prior ==
              (version == 4 ? model_get_params(md)->code_prior : 0));
        CHECK(model_get_params(mdo)->escape == model_get_params(md)->escape);
        model_free(mdo);
        map_mapper_free(mo);
        free(old);
    }

    /* A model of another graph is refused. */
    unit_write_str("flow2/flow.py", flow_py);
    unit_write_str("flow2/extra.py", "def more():\n    print(\"more\")\n");
    graph *g2 = index_dir("flow2");
    map_mapper *m2 = NULL;
    model_joint *md2 = NULL;
    char why[512];
    CHECK_INT(model_load(path, g2, NULL, &m2, &md2, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "another graph") != NULL);
    graph_close(g2);
    /* ... even with as many symbols (a line moved). */
    char *shifted = core_xmalloc(sizeof flow_py + 1);
    shifted[0] = '\n';
    memcpy(shifted + 1, flow_py, sizeof flow_py);
    unit_write_str("flow3/flow.py", shifted);
    free(shifted);
    graph *g3 = index_dir("flow3");
    CHECK_INT(graph_nsymbols(g3), graph_nsymbols(g));
    CHECK_INT(model_load(path, g3, NULL, &m2, &md2, why, sizeof why), CORE_EUSAGE);
    CHECK(strstr(why, "another graph") != NULL);
    graph_close(g3);

    free(data);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* The calibration's folds: contiguous runs of cases, in order, that
 * together are every case once, sizes within one of each other. */
TEST(model_calibration_folds_partition)
{
    const uint32_t ncases[] = {0, 1, 2, 3, 4, 5, 7, 8, 10, 11, 100, 1159, 4000000000u};
    const uint32_t folds[] = {0, 1, 2, 3, 4, 5, 7, 10, 11, 1000};
    for (size_t i = 0; i < sizeof ncases / sizeof *ncases; i++) {
        for (size_t j = 0; j < sizeof folds / sizeof *folds; j++) {
            uint32_t b[MODEL_MAX_FOLDS + 1];
            memset(b, 0xff, sizeof b);
            uint32_t n = ncases[i], want = folds[j] < 2 ? 2 : folds[j];
            if (want > MODEL_MAX_FOLDS)
                want = MODEL_MAX_FOLDS;
            if (want > n)
                want = n;
            uint32_t k = model_folds(n, folds[j], b);
            CHECK_INT(k, want);
            CHECK_INT(b[0], 0);
            CHECK_INT(b[k], n);
            uint32_t lo = UINT32_MAX, hi = 0;
            for (uint32_t f = 0; f < k; f++) {
                CHECK(b[f] < b[f + 1]); /* no fold is empty */
                uint32_t size = b[f + 1] - b[f];
                lo = size < lo ? size : lo;
                hi = size > hi ? size : hi;
            }
            if (k)
                CHECK(hi - lo <= 1);
        }
    }
}

static void log_to_buf(void *ud, core_log_level level, const char *msg)
{
    core_buf *b = ud;
    core_buf_printf(b, "[%s] %s\n", core_log_level_name(level), msg);
}

/* k-fold calibration: every training prefix is scored once per candidate,
 * each fold by a model trained on the other folds exactly (the log's
 * per-fold scores of the starting parameters are recomputed here by hand),
 * and the choice depends neither on the run nor on the threads. */
TEST(model_calibration_kfold)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_free(mixed_model(g, &m, &s));
    model_seqs q = as_seqs(&s);
    uint32_t prefixes = s.off[s.ncases] - s.ncases;
    for (uint32_t K = 2; K <= 5; K++) {
        model_params start = model_params_default();
        start.order = 3;
        start.calibrate_folds = K;
        /* Each fold's top-1 under the starting parameters, by hand: train
         * on the other cases, rank every prefix of the fold's cases. */
        uint32_t b[MODEL_MAX_FOLDS + 1];
        CHECK_INT(model_folds(s.ncases, K, b), K);
        char want[256] = "(folds";
        for (uint32_t f = 0; f < K; f++) {
            seqs fit = {.ncases = 0};
            uint32_t e = 0;
            for (uint32_t c = 0; c < s.ncases; c++) {
                if (c >= b[f] && c < b[f + 1])
                    continue;
                for (uint32_t i = s.off[c]; i < s.off[c + 1]; i++, e++) {
                    fit.act[e] = s.act[i];
                    fit.var[e] = s.var[i];
                }
                fit.off[++fit.ncases] = e;
            }
            model_joint *md = train(m, &fit, &start);
            model_work *w;
            CHECK_OK(model_work_new(md, &w));
            double top1 = 0;
            uint32_t n = 0;
            for (uint32_t c = b[f]; c < b[f + 1]; c++) {
                const uint32_t *act = s.act + s.off[c], *var = s.var + s.off[c];
                for (uint32_t k = 1; k < s.off[c + 1] - s.off[c]; k++, n++) {
                    map_activity pa;
                    map_mapper_activity(m, act[k], &pa);
                    model_pred pred[10];
                    if (!pa.nsyms || !model_rank(md, w, act, var, k, 10, pred))
                        continue;
                    for (uint32_t j = 0; j < pa.nsyms; j++)
                        if (pa.syms[j] == pred[0].symbol)
                            top1 += pa.conf[j];
                }
            }
            size_t at = strlen(want);
            snprintf(want + at, sizeof want - at, " %.4f", n ? top1 / n : 0);
            model_work_free(w);
            model_free(md);
        }
        strcat(want, ")");
        char head[128];
        snprintf(head, sizeof head, "%u-fold cross-validation over %u cases (%u prefixes)", K,
                 s.ncases, prefixes);
        model_params first = start;
        for (uint32_t th = 1; th <= 3; th++) {
            core_buf lb = {0};
            core_logger lg = {log_to_buf, &lb, CORE_LOG_INFO};
            model_params p = start;
            p.calibrate_threads = th;
            CHECK_OK(model_calibrate(m, &q, 4, &p, &lg));
            core_buf_putc(&lb, 0);
            if (!strstr(lb.data, head) || !strstr(lb.data, want) ||
                !strstr(lb.data, "per fold top-1"))
                unit_fail(__FILE__, __LINE__, "K=%u: log lacks '%s' or '%s':\n%s", K, head, want,
                          lb.data);
            core_buf_free(&lb);
            CHECK(p.alpha > 0 && p.alpha < 1);
            CHECK(p.order >= 1 && p.order <= MODEL_MAX_ORDER);
            CHECK_INT(p.calibrate_folds, K);
            CHECK_INT(p.calibrate_threads, th);
            if (th == 1) {
                first = p;
                continue;
            }
            CHECK_INT(p.order, first.order);
            CHECK(p.variant_ratio == first.variant_ratio);
            CHECK_INT(p.variant_min, first.variant_min);
            CHECK(p.alpha == first.alpha);
            CHECK(p.code_scale == first.code_scale);
            CHECK(p.decay == first.decay);
            CHECK(p.escape == first.escape);
        }
    }
    /* Below min_cases: untouched, and it says so. */
    core_buf lb = {0};
    core_logger lg = {log_to_buf, &lb, CORE_LOG_INFO};
    model_params p = model_params_default(), before = p;
    CHECK_OK(model_calibrate(m, &q, 9, &p, &lg));
    CHECK(memcmp(&p, &before, sizeof p) == 0);
    core_buf_putc(&lb, 0);
    CHECK(strstr(lb.data, "calibration skipped: 8 training cases (below 9)") != NULL);
    core_buf_free(&lb);
    map_mapper_free(m);
    graph_close(g);
}

TEST(model_calibration_and_determinism)
{
    graph *g = open_flow();
    map_mapper *m;
    seqs s;
    model_joint *md = mixed_model(g, &m, &s);
    model_free(md);
    model_seqs q = as_seqs(&s);
    /* Below min_cases: untouched. */
    model_params p = model_params_default(), before = p;
    p.alpha = 0.42;
    before = p;
    CHECK_OK(model_calibrate(m, &q, 100, &p, NULL));
    CHECK(memcmp(&p, &before, sizeof p) == 0);
    /* Above: a valid choice, the same one twice. */
    model_params p1 = model_params_default(), p2 = p1;
    CHECK_OK(model_calibrate(m, &q, 4, &p1, NULL));
    CHECK_OK(model_calibrate(m, &q, 4, &p2, NULL));
    CHECK(memcmp(&p1, &p2, sizeof p1) == 0);
    CHECK(p1.alpha > 0 && p1.alpha < 1);
    CHECK(p1.order >= 1 && p1.order <= MODEL_MAX_ORDER);
    /* Bad parameters are refused. */
    model_params bad = model_params_default();
    bad.alpha = 1.0;
    model_joint *x = NULL;
    CHECK_INT(model_train(m, &q, &bad, &x), CORE_EUSAGE);
    bad = model_params_default();
    bad.decay = 1.5;
    CHECK_INT(model_train(m, &q, &bad, &x), CORE_EUSAGE);
    /* Two trainings, identical rankings. */
    model_joint *a = train(m, &s, &p1), *b = train(m, &s, &p1);
    check_same_rankings(a, b, &s, 0);
    model_free(a);
    model_free(b);
    map_mapper_free(m);
    /* ... and from a mapper built again from scratch. */
    seqs s2;
    map_mapper *m2;
    model_joint *c = mixed_model(g, &m2, &s2);
    map_mapper *m3;
    seqs s3;
    model_joint *d = mixed_model(g, &m3, &s3);
    CHECK_INT(s2.ncases, s3.ncases);
    CHECK(memcmp(s2.act, s3.act, s2.off[s2.ncases] * sizeof *s2.act) == 0);
    CHECK(memcmp(s2.var, s3.var, s2.off[s2.ncases] * sizeof *s2.var) == 0);
    check_same_rankings(c, d, &s2, 0);
    model_free(c);
    model_free(d);
    map_mapper_free(m2);
    map_mapper_free(m3);
    graph_close(g);
}

/* ---- the code's successor prior ---- */

static graph *open_steps(void)
{
    unit_write_str("steps/pkg/__init__.py", "");
    unit_write_str("steps/pkg/a.py", "import logging\n"
                                     "log = logging.getLogger(__name__)\n"
                                     "\n"
                                     "def begin():\n"
                                     "    log.info(\"begin event\")\n"
                                     "    work()\n"
                                     "\n"
                                     "def work():\n"
                                     "    log.info(\"work event\")\n"
                                     "    log.info(\"work done\")\n"
                                     "\n"
                                     "def other():\n"
                                     "    log.info(\"other event\")\n");
    return index_dir("steps");
}

/* Maps one case's messages into s (appended as a case). */
static void map_case(map_mapper *m, seqs *s, const char *const *msgs, uint32_t n)
{
    uint32_t k = s->off[s->ncases], prev = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        map_event ev = {.text = msgs[i], .len = strlen(msgs[i]), .learn = true};
        map_mapper_map(m, &ev, &prev, prev != UINT32_MAX, NULL, 0, &s->act[k], &s->var[k]);
        prev = s->act[k++];
    }
    s->off[++s->ncases] = k;
}

/* With no trace at all, the walk backs off to what the code says can log
 * next: after begin's site, work's first one (a change of function), where
 * recency alone would say begin again. The explanation says so. */
TEST(model_code_prior_without_traces)
{
    graph *g = open_steps();
    map_mapper *m = new_mapper(g, NULL);
    seqs all = {.ncases = 0};
    static const char *const msgs[] = {"begin event", "work event", "work done", "other event"};
    map_case(m, &all, msgs, 4);
    finish(m);
    seqs none = {.ncases = 0};
    model_params p = model_params_default();
    uint32_t begin = unit_sym(g, "pkg.a.begin"), work = unit_sym(g, "pkg.a.work");
    model_pred pred[5];
    for (int prior = 0; prior < 2; prior++) {
        p.code_prior = prior ? 0.9 : 0;
        model_joint *md = train(m, &none, &p);
        model_work *w;
        CHECK_OK(model_work_new(md, &w));
        uint32_t n = model_rank(md, w, all.act, all.var, 1, 5, pred);
        CHECK(n >= 1);
        CHECK_INT(pred[0].symbol, prior ? work : begin);
        if (prior) {
            ppr_path path;
            CHECK_OK(model_explain(md, w, work, 100000, &path));
            CHECK_INT(path.len, 1);
            CHECK_INT(path.steps[0].type, MODEL_EDGE_NEXT_SITE);
            CHECK_STR(model_edge_name(MODEL_EDGE_NEXT_SITE), "next-site");
            core_buf t = {0};
            CHECK(model_explain_code(md, w, work, &t));
            CHECK(strstr(t.data, "from the code: pkg/a.py:5 (pkg.a.begin) -> pkg/a.py:9 "
                                 "(pkg.a.work)") == t.data);
            core_buf_free(&t);
            /* Nothing the code gave: no explanation of the code's. */
            core_buf u = {0};
            CHECK(!model_explain_code(md, w, unit_sym(g, "pkg.a.other"), &u));
            CHECK_INT(u.len, 0);
        }
        model_work_free(w);
        model_free(md);
    }
    map_mapper_free(m);
    graph_close(g);
}

/* With no trace, what followed the last activity earlier in the case
 * comes before what the code says: the case went begin -> other once, so
 * after begin again other is ranked first, where the code (and the first
 * time round) says work. The explanation says where it came from. */
TEST(model_case_own_past_without_traces)
{
    graph *g = open_steps();
    map_mapper *m = new_mapper(g, NULL);
    seqs all = {.ncases = 0};
    static const char *const msgs[] = {"begin event", "other event", "begin event"};
    map_case(m, &all, msgs, 3);
    finish(m);
    seqs none = {.ncases = 0};
    model_params p = model_params_default();
    p.code_prior = 0.9;
    uint32_t work = unit_sym(g, "pkg.a.work"), other = unit_sym(g, "pkg.a.other");
    model_joint *md = train(m, &none, &p);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred pred[5];
    CHECK(model_rank(md, w, all.act, all.var, 1, 5, pred) >= 1);
    CHECK_INT(pred[0].symbol, work);
    CHECK(model_rank(md, w, all.act, all.var, 3, 5, pred) >= 2);
    CHECK_INT(pred[0].symbol, other);
    CHECK_INT(pred[1].symbol, work);
    ppr_path path;
    CHECK_OK(model_explain(md, w, other, 100000, &path));
    CHECK_INT(path.len, 1);
    CHECK_INT(path.steps[0].type, MODEL_EDGE_IN_CASE);
    CHECK_STR(model_edge_name(MODEL_EDGE_IN_CASE), "earlier-in-case");
    CHECK_OK(model_explain(md, w, work, 100000, &path));
    CHECK_INT(path.steps[0].type, MODEL_EDGE_NEXT_SITE);
    /* Out of the window a daemon keeps of a case, the past is not read. */
    seqs far = {.ncases = 0};
    const char *longer[MODEL_CASE_WINDOW + 2];
    longer[0] = "begin event";
    longer[1] = "other event";
    for (uint32_t i = 2; i < MODEL_CASE_WINDOW + 1; i++)
        longer[i] = "work done";
    longer[MODEL_CASE_WINDOW + 1] = "begin event";
    map_case(m, &far, longer, MODEL_CASE_WINDOW + 2);
    CHECK(model_rank(md, w, far.act, far.var, MODEL_CASE_WINDOW + 2, 5, pred) >= 1);
    CHECK_INT(pred[0].symbol, work);
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* With no trace, the code's successors of a site take their share in
 * full when they account for a fair part of its flow, though most of it
 * goes where the graph cannot follow (here the end of the case): after
 * "begin event", half of begin's runs call work, which is ranked before
 * begin again. A site whose flow the code follows only a little way in
 * (idle's, work in one run of sixteen) leaves recency first. */
TEST(model_code_prior_weighs_what_the_code_knows)
{
    unit_write_str("knows/pkg/__init__.py", "");
    unit_write_str("knows/pkg/a.py", "import logging\n"
                                     "log = logging.getLogger(__name__)\n"
                                     "\n"
                                     "def begin(x):\n"
                                     "    log.info(\"begin event\")\n"
                                     "    if x:\n"
                                     "        work()\n"
                                     "\n"
                                     "def idle(x):\n"
                                     "    log.info(\"idle event\")\n"
                                     "    if x:\n"
                                     "        if x > 1:\n"
                                     "            if x > 2:\n"
                                     "                if x > 3:\n"
                                     "                    work()\n"
                                     "\n"
                                     "def work():\n"
                                     "    log.info(\"work event\")\n");
    graph *g = index_dir("knows");
    map_mapper *m = new_mapper(g, NULL);
    seqs all = {.ncases = 0};
    static const char *const msgs[] = {"begin event", "idle event", "work event"};
    map_case(m, &all, msgs, 3);
    finish(m);
    seqs none = {.ncases = 0};
    model_params p = model_params_default();
    model_joint *md = train(m, &none, &p);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred pred[5];
    CHECK(model_rank(md, w, all.act, all.var, 1, 5, pred) >= 2);
    CHECK_INT(pred[0].symbol, unit_sym(g, "pkg.a.work"));
    CHECK_INT(pred[1].symbol, unit_sym(g, "pkg.a.begin"));
    CHECK(model_rank(md, w, all.act + 1, all.var + 1, 1, 5, pred) >= 2);
    CHECK_INT(pred[0].symbol, unit_sym(g, "pkg.a.idle"));
    CHECK_INT(pred[1].symbol, unit_sym(g, "pkg.a.work"));
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* Where the contexts know what follows, they decide; a transition the
 * traces never showed still ranks, from the code, after what they know. */
TEST(model_code_prior_under_contexts)
{
    graph *g = open_steps();
    map_mapper *m = new_mapper(g, NULL);
    seqs s = {.ncases = 0};
    static const char *const seen[] = {"begin event", "other event"};
    for (int i = 0; i < 4; i++)
        map_case(m, &s, seen, 2);
    finish(m);
    model_params p = model_params_default();
    p.order = 1;
    model_joint *md = train(m, &s, &p);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred pred[5];
    uint32_t n = model_rank(md, w, s.act, s.var, 1, 5, pred);
    CHECK(n >= 2);
    CHECK_INT(pred[0].symbol, unit_sym(g, "pkg.a.other"));
    bool work = false;
    for (uint32_t i = 1; i < n; i++)
        work |= pred[i].symbol == unit_sym(g, "pkg.a.work");
    CHECK(work);
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* The daemon's first events: an activity the model has no node for (the
 * mapper met it since) is ranked from the code, through the mapper. */
TEST(model_code_prior_for_new_activities)
{
    graph *g = open_steps();
    map_mapper *m = new_mapper(g, NULL);
    static const uint32_t zero = 0;
    model_seqs none = {.off = &zero};
    model_params p = model_params_default();
    model_joint *md;
    CHECK_OK(model_train(m, &none, &p, &md));
    model_stats st;
    model_get_stats(md, &st);
    uint32_t a, v;
    map_event ev = {.text = "begin event", .len = 11};
    map_mapper_map(m, &ev, NULL, 0, NULL, 0, &a, &v);
    CHECK(a >= st.activities);
    model_work *w;
    CHECK_OK(model_work_new(md, &w));
    model_pred pred[5];
    uint32_t n = model_rank_warm(md, w, &a, &v, 1, NULL, 0, 5, pred);
    CHECK(n >= 1);
    CHECK_INT(pred[0].symbol, unit_sym(g, "pkg.a.work"));
    ppr_path path;
    CHECK_OK(model_explain(md, w, pred[0].symbol, 100000, &path));
    CHECK_INT(path.seed, unit_sym(g, "pkg.a.begin"));
    model_work_free(w);
    model_free(md);
    /* Recency knows it too, through the mapper: without the code's share,
     * the case's vector holds its emitter, which ranks first. */
    p.code_prior = 0;
    CHECK_OK(model_train(m, &none, &p, &md));
    CHECK_OK(model_stream_prepare(md, 64, 1));
    CHECK_OK(model_work_new(md, &w));
    ppr_entry storage[64];
    ppr_vec rec;
    ppr_vec_init(&rec, storage, 64);
    double wsum = 0;
    CHECK_OK(model_advance(md, w, &rec, &wsum, a));
    CHECK(rec.n >= 1 && wsum == 1);
    n = model_rank_warm(md, w, &a, &v, 1, &rec, wsum, 5, pred);
    CHECK(n >= 1);
    CHECK_INT(pred[0].symbol, unit_sym(g, "pkg.a.begin"));
    model_work_free(w);
    model_free(md);
    map_mapper_free(m);
    graph_close(g);
}

/* A handler written for a logger that tests its level with a bare call
 * (`if (log.trace())`) and renders util.format's way, run with one that
 * writes a record without a message for that call and drops what no
 * directive takes. */
static const char guard_js[] = "function handle(req, log) {\n"
                               "  log.trace({ err: req.err }, 'entering handler', req.err.name);\n"
                               "  if (log.trace()) {\n"
                               "    log.trace('state %j', req.state);\n"
                               "  }\n"
                               "  log.info('handled');\n"
                               "}\n"
                               "function other(log) {\n"
                               "  log.info('entering handler for %s', 'x');\n"
                               "  log.debug('other: %d items', 3);\n"
                               "}\n"
                               "module.exports = { handle, other };\n";

TEST(mapper_a_bare_logging_call_and_a_format_without_its_appended_values)
{
    unit_write_str("guard/lib/handle.js", guard_js);
    graph *g = index_dir("guard");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t handle = unit_sym(g, "handle.handle");
    uint32_t dropped = map_rec(m, "entering handler", "app", "TRACE");
    uint32_t appended = map_rec(m, "entering handler NotFoundError", "app", "TRACE");
    uint32_t empty = map_rec(m, "", "app", "TRACE");
    finish(m);
    map_activity a = activity(m, dropped);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], handle);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    a = activity(m, appended);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], handle);
    CHECK(dropped != appended);
    a = activity(m, empty);
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], handle);
    CHECK_INT(a.strategy, MAP_BY_TEMPLATE);
    map_mapper_free(m);
    graph_close(g);
}

/* Two bare logging calls, one function's right before it calls the
 * other's: an empty record just after the first one's is the second's,
 * though the first is nearest to itself. */
static const char send_flush_js[] = "function send(res, log) {\n"
                                    "  log.info('sending %d bytes', res.n);\n"
                                    "  if (log.trace()) {\n"
                                    "    log.trace('send entered');\n"
                                    "  }\n"
                                    "  flush(res, log);\n"
                                    "}\n"
                                    "function flush(res, log) {\n"
                                    "  if (res.log.trace()) {\n"
                                    "    res.log.trace('flushed');\n"
                                    "  }\n"
                                    "  res.end();\n"
                                    "}\n"
                                    "function parse(req, log) {\n"
                                    "  if (log.trace()) {\n"
                                    "    log.trace('parsing');\n"
                                    "  }\n"
                                    "}\n"
                                    "module.exports = { send, flush, parse };\n";

TEST(mapper_the_same_empty_record_twice_goes_where_the_code_goes_next)
{
    unit_write_str("sendflush/lib/res.js", send_flush_js);
    graph *g = index_dir("sendflush");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    static const char *const kase[] = {"sending 3 bytes", "", "", "sending 5 bytes", "", ""};
    uint32_t act[6], var[6];
    map_case_msgs(m, kase, 6, act, var);
    /* (The first may stay with all three: send, nearest to itself, is
     * not twice as near as flush, which it calls.) */
    CHECK(only_sym(m, act[1]) != unit_sym(g, "res.parse"));
    CHECK_INT(only_sym(m, act[2]), unit_sym(g, "res.flush"));
    CHECK_INT(only_sym(m, act[5]), unit_sym(g, "res.flush"));
    map_mapper_free(m);
    graph_close(g);
}

/* One line logged by three entry points of a request, each in a file of
 * its own: a fallback that would warn right after it (the log never shows
 * that warning), a bad-URL path that logs nothing else, and the route
 * handler, whose other line the log shows. */
static const char fallback_js[] =
    "function fallback(req, log) {\n"
    "  log.info({ req }, 'incoming request');\n"
    "  log.warn('the default handler did not catch this, report it');\n"
    "}\n"
    "module.exports = { fallback };\n";
static const char bad_url_js[] = "function onBadUrl(req, log) {\n"
                                 "  log.info({ req }, 'incoming request');\n"
                                 "}\n"
                                 "module.exports = { onBadUrl };\n";
static const char route_js[] = "function routeHandler(req, log) {\n"
                               "  if (req.old) {\n"
                               "    log.info('request aborted - invalid HTTP version');\n"
                               "    return;\n"
                               "  }\n"
                               "  log.info({ req }, 'incoming request');\n"
                               "}\n"
                               "module.exports = { routeHandler };\n";
static const char dispatch_js[] = "const { fallback } = require('./fallback');\n"
                                  "function dispatch(req, log) {\n"
                                  "  log.debug('dispatching %s', req.url);\n"
                                  "  if (req.lost) fallback(req, log);\n"
                                  "  else routes[req.url](req, log);\n"
                                  "}\n"
                                  "module.exports = { dispatch };\n";

TEST(mapper_a_line_the_code_would_follow_with_one_never_logged_is_not_there)
{
    unit_write_str("entry/lib/fallback.js", fallback_js);
    unit_write_str("entry/lib/bad.js", bad_url_js);
    unit_write_str("entry/lib/route.js", route_js);
    unit_write_str("entry/lib/dispatch.js", dispatch_js);
    graph *g = index_dir("entry");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    uint32_t fallback = unit_sym(g, "fallback.fallback"),
             handler = unit_sym(g, "route.routeHandler");
    static const char *const kase[] = {"dispatching /a", "incoming request",
                                       "request aborted - invalid HTTP version",
                                       "incoming request"};
    uint32_t act[4], var[4];
    for (int k = 0; k < 8; k++) {
        map_case_msgs(m, kase, 4, act, var);
        /* dispatch calls the fallback, the nearest: but it would warn. */
        CHECK(only_sym(m, act[1]) != fallback);
    }
    /* Where the case tells nothing, the group's order. */
    CHECK_INT(only_sym(m, act[3]), handler);
    finish(m);
    map_activity a = activity(m, map_mapper_find(m, "incoming request"));
    CHECK_INT(a.nsyms, 3);
    CHECK_INT(a.syms[0], handler);
    CHECK_INT(a.amb, MAP_AMB_RUNS);
    CHECK_INT(a.syms[2], fallback);
    map_mapper_free(m);

    /* Nothing shows the handler running: the fallback goes last alone,
     * and finish() again (the daemon's, after each batch) keeps the
     * weights as they are. */
    m = new_mapper(g, &o);
    static const char *const quiet[] = {"dispatching /a", "incoming request"};
    for (int k = 0; k < 8; k++)
        map_case_msgs(m, quiet, 2, act, var);
    finish(m);
    uint32_t group = map_mapper_find(m, "incoming request");
    map_activity first = activity(m, group);
    CHECK_INT(first.nsyms, 3);
    CHECK_INT(first.syms[2], fallback);
    CHECK(first.conf[2] < first.conf[1]);
    finish(m);
    map_activity again = activity(m, group);
    for (uint32_t i = 0; i < 3; i++) {
        CHECK_INT(again.syms[i], first.syms[i]);
        CHECK(again.conf[i] == first.conf[i]);
    }
    map_mapper_free(m);
    graph_close(g);
}

/* One service, one logger: two HTTP protocol variants whose every text
 * the other logs too, and a websocket handler with texts of its own. That
 * the log shows the logger's texts coming from the websocket's file, and
 * the handler running, says nothing of which module logged a text all
 * three log: the variants' files could never show themselves. */
static const char tell_h11_py[] = "import logging\n"
                                  "log = logging.getLogger('svc')\n"
                                  "class H11Protocol:\n"
                                  "    def run(self, app):\n"
                                  "        log.info('request started %s', app)\n"
                                  "        log.error('Exception in application')\n";
static const char tell_htt_py[] = "import logging\n"
                                  "log = logging.getLogger('svc')\n"
                                  "class HttProtocol:\n"
                                  "    def run(self, app):\n"
                                  "        log.info('request started %s', app)\n"
                                  "        log.error('Exception in application')\n";
static const char tell_ws_py[] = "import logging\n"
                                 "log = logging.getLogger('svc')\n"
                                 "class WebSocket:\n"
                                 "    def serve(self, app):\n"
                                 "        log.info('frame received %s', app)\n"
                                 "        log.error('Exception in application')\n";

TEST(mapper_a_module_that_cannot_show_itself_is_not_shown_absent)
{
    unit_write_str("tellsvc/svc/h11.py", tell_h11_py);
    unit_write_str("tellsvc/svc/htt.py", tell_htt_py);
    unit_write_str("tellsvc/svc/ws.py", tell_ws_py);
    graph *g = index_dir("tellsvc");
    map_mapper_opts o = {.no_tokens = true};
    uint32_t ws = unit_sym(g, "ws.WebSocket.serve");
    for (int source = 0; source < 2; source++) {
        /* First through the logger (its files), then with none (the
         * functions the log shows running). */
        const char *logger = source == 0 ? "svc" : NULL;
        map_mapper *m = new_mapper(g, &o);
        char text[64];
        for (int i = 0; i < 12; i++) {
            snprintf(text, sizeof text, "frame received %d", i);
            map_one(m, text, logger, "INFO", true, NULL);
            snprintf(text, sizeof text, "request started %d", i);
            map_one(m, text, logger, "INFO", true, NULL);
        }
        uint32_t a = map_one(m, "Exception in application", logger, "ERROR", true, NULL);
        CHECK(only_sym(m, a) != ws);
        finish(m);
        map_activity pa = activity(m, map_mapper_find(m, "Exception in application"));
        CHECK_INT(pa.nsyms, 3);
        CHECK_INT(pa.amb, MAP_AMB_TIED);
        CHECK(pa.conf[0] == pa.conf[2]);
        map_mapper_free(m);
    }
    graph_close(g);
}

/* An application's pino logger named like one of the framework's files:
 * in JavaScript that says nothing of where a record came from (in Python,
 * a logger is named after its module). */
static const char appname_server_js[] = "function onBadUrl(req, log) {\n"
                                        "  log.info({ req }, 'incoming request');\n"
                                        "}\n"
                                        "module.exports = { onBadUrl };\n";
static const char appname_route_js[] = "function routeHandler(req, log) {\n"
                                       "  log.info({ req }, 'incoming request');\n"
                                       "  log.info('request routed');\n"
                                       "}\n"
                                       "module.exports = { routeHandler };\n";

TEST(mapper_a_javascript_logger_named_like_a_file_is_no_sign_of_it)
{
    unit_write_str("appname/server.js", appname_server_js);
    unit_write_str("appname/lib/route.js", appname_route_js);
    unit_write_str("appname/py/server.py", "def on_bad_url(log):\n    log.info('incoming call')\n");
    unit_write_str("appname/py/route.py", "def route(log):\n    log.info('incoming call')\n");
    graph *g = index_dir("appname");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "incoming request", "server", "INFO");
    CHECK_INT(a.nsyms, 2);
    a = map_logged(m, "incoming call", "py.server", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "server.on_bad_url"));
    map_mapper_free(m);
    graph_close(g);
}

/* One text logged by two classes of a hierarchy, with the object's repr:
 * the subclass the message names runs the method it inherits, whatever
 * the case did before. */
static const char loops_py[] =
    "import logging\n"
    "log = logging.getLogger(__name__)\n"
    "class BaseLoop:\n"
    "    def __repr__(self):\n"
    "        return '<%s.%s>' % (type(self).__module__, type(self).__name__)\n"
    "class SelectLoop(BaseLoop):\n"
    "    def unregister(self, fd):\n"
    "        log.debug('fd was no longer registered (%r)', self)\n"
    "class BasePollLoop(BaseLoop):\n"
    "    def unregister(self, fd):\n"
    "        log.debug('fd was no longer registered (%r)', self)\n"
    "class PollLoop(BasePollLoop):\n"
    "    pass\n"
    "class EpollLoop(BasePollLoop):\n"
    "    pass\n";

TEST(mapper_the_class_a_message_names_runs_what_it_inherits)
{
    unit_write_str("loops/loops.py", loops_py);
    graph *g = index_dir("loops");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "fd was no longer registered (<loops.PollLoop>)", NULL, "DEBUG");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "loops.BasePollLoop.unregister"));
    CHECK_INT(a.amb, MAP_AMB_MESSAGE);
    a = map_logged(m, "fd was no longer registered (<loops.SelectLoop>)", NULL, "DEBUG");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "loops.SelectLoop.unregister"));
    map_mapper_free(m);
    graph_close(g);
}

/* A span started as the current one records an exception leaving it as a
 * span event named "exception", with no literal for it in the code: its
 * line is where such an event comes from, not the one literal "exception"
 * of a browser client's own tracing helper. */
static const char spans_pay_py[] =
    "import logging\n"
    "from opentelemetry import trace\n"
    "log = logging.getLogger(__name__)\n"
    "tracer = trace.get_tracer(__name__)\n"
    "def authorize(p):\n"
    "    log.info('authorizing %s', p)\n"
    "    with tracer.start_as_current_span('payment.authorize'):\n"
    "        p.charge()\n"
    "def refund(p):\n"
    "    with tracer.start_as_current_span('payment.refund', record_exception=False):\n"
    "        p.refund()\n";
static const char spans_web_ts[] =
    "export class RecordingSpan {\n"
    "  recordException(err: Error): void {\n"
    "    this.addEvent('exception', { 'exception.type': err.name });\n"
    "  }\n"
    "  addEvent(name: string, attrs: object): void {}\n"
    "}\n";

TEST(mapper_an_exception_leaving_a_python_span_is_its_event)
{
    unit_write_str("spanexc/pay/pay.py", spans_pay_py);
    unit_write_str("spanexc/web/span.ts", spans_web_ts);
    graph *g = index_dir("spanexc");
    uint32_t n = graph_nemits(g), events = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, i, &e);
        if (e.kind == GRAPH_EMIT_EVENT && strcmp(e.tmpl, "exception") == 0) {
            events++;
            if (e.symbol == unit_sym(g, "pay.authorize"))
                CHECK_INT(e.line, unit_line_of(spans_pay_py, "payment.authorize"));
            CHECK(e.symbol != unit_sym(g, "pay.refund"));
        }
    }
    CHECK_INT(events, 2);
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_event ev[2] = {{.text = "authorizing p1", .len = 14, .level = "INFO", .learn = true},
                       {.text = "exception", .len = 9, .level = "EVENT", .learn = true}};
    uint32_t act[2], var[2];
    map_mapper_map(m, &ev[0], NULL, 0, NULL, 0, &act[0], &var[0]);
    map_mapper_map(m, &ev[1], act, 1, NULL, 0, &act[1], &var[1]);
    CHECK_INT(only_sym(m, act[1]), unit_sym(g, "pay.authorize"));
    map_mapper_free(m);
    graph_close(g);
}

/* A helper whose logging call reports its caller's line (stacklevel=2)
 * logs on behalf of its callers: each call is the caller's site, with
 * the literal it passes filled in. The same helper without stacklevel
 * is where its records come from. */
static const char audit_py[] =
    "import logging\n"
    "_audit = logging.getLogger('shop.audit')\n"
    "_trail = logging.getLogger('shop.trail')\n"
    "def audit(action, order_id, actor='system'):\n"
    "    _audit.info('audit %s order=%s actor=%s', action, order_id, actor, stacklevel=2)\n"
    "def trail(action, order_id):\n"
    "    _trail.info('trail %s order=%s', action, order_id)\n";
static const char audit_orders_py[] = "from .audit import audit, trail\n"
                                      "def confirm(order):\n"
                                      "    audit('order.confirmed', order.id)\n"
                                      "    trail('order.confirmed', order.id)\n"
                                      "def cancel(order):\n"
                                      "    audit('order.cancelled', order.id, actor='customer')\n"
                                      "    trail('order.cancelled', order.id)\n";

TEST(mapper_a_helper_reporting_its_callers_line_is_theirs)
{
    unit_write_str("stacklvl/shop/__init__.py", "");
    unit_write_str("stacklvl/shop/audit.py", audit_py);
    unit_write_str("stacklvl/shop/orders.py", audit_orders_py);
    graph *g = index_dir("stacklvl");
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a =
        map_logged(m, "audit order.cancelled order=o1 actor=customer", "shop.audit", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "shop.orders.cancel"));
    a = map_logged(m, "audit order.confirmed order=o2 actor=system", "shop.audit", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "shop.orders.confirm"));
    a = map_logged(m, "trail order.cancelled order=o1", "shop.trail", "INFO");
    CHECK_INT(a.nsyms, 1);
    CHECK_INT(a.syms[0], unit_sym(g, "shop.audit.trail"));
    map_mapper_free(m);
    graph_close(g);
}

/* A logger class made on logging.Logger adds a method that logs an event
 * and its fields through the instance's own `info`: that call is a
 * logging call, and the method logs on behalf of its callers, so each
 * call of it is the caller's site, with the event it names filled in. */
static const char harbour_logs_py[] =
    "import logging\n"
    "class HarbourLogger(logging.Logger):\n"
    "    def audit(self, event, **fields):\n"
    "        pairs = ' '.join('%s=%s' % kv for kv in sorted(fields.items()))\n"
    "        self.info('AUDIT %s %s', event, pairs)\n"
    "logging.setLoggerClass(HarbourLogger)\n";
static const char harbour_booking_py[] = "import logging\n"
                                         "log = logging.getLogger(__name__)\n"
                                         "def book(ref, pax):\n"
                                         "    log.audit('booked', ref=ref, pax=pax)\n"
                                         "def cancel(ref):\n"
                                         "    log.audit('cancelled', ref=ref)\n";

TEST(mapper_a_logger_class_method_logs_for_its_callers)
{
    unit_write_str("harbour/ferry/__init__.py", "");
    unit_write_str("harbour/ferry/logs.py", harbour_logs_py);
    unit_write_str("harbour/ferry/booking.py", harbour_booking_py);
    graph *g = index_dir("harbour");
    graph_emit e = unit_emit_at(g, "ferry.logs.HarbourLogger.audit", 5);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    map_mapper_opts o = {.no_tokens = true};
    map_mapper *m = new_mapper(g, &o);
    map_activity a = map_logged(m, "AUDIT booked pax=2 ref=B1", "ferry.booking", "INFO");
    CHECK_INT(a.nsyms, 1);
    if (a.nsyms)
        CHECK_INT(a.syms[0], unit_sym(g, "ferry.booking.book"));
    a = map_logged(m, "AUDIT cancelled ref=B1", "ferry.booking", "INFO");
    CHECK_INT(a.nsyms, 1);
    if (a.nsyms)
        CHECK_INT(a.syms[0], unit_sym(g, "ferry.booking.cancel"));
    map_mapper_free(m);
    graph_close(g);
}

/* A process that logs, through its logger, each line a child process
 * printed, after a tag of its own: the record is the relaying site's,
 * though the printed line's template shows more literal text. Printed
 * by the child itself (no logger), the line is the print's. */
TEST(mapper_a_printed_line_relayed_by_a_logger_is_the_relays)
{
    unit_write_str("relayrepo/snap/__init__.py", "");
    unit_write_str("relayrepo/snap/agent.py",
                   "import sys\n"
                   "def main(volume, files):\n"
                   "    print('snapshot of %s started' % volume)\n"
                   "    print('copied %d files in the snapshot' % files)\n");
    unit_write_str("relayrepo/snap/scheduler.py",
                   "import logging\n"
                   "import subprocess\n"
                   "log = logging.getLogger(__name__)\n"
                   "def run_agent(volume):\n"
                   "    with subprocess.Popen(['agent', volume], stdout=subprocess.PIPE) as p:\n"
                   "        for line in p.stdout:\n"
                   "            log.info('agent[%s]: %s', volume, line.rstrip())\n");
    static const msg_at want[] = {
        {"agent[home]: snapshot of home started", "snap.scheduler", "snap.scheduler.run_agent"},
        {"agent[home]: copied 1200 files in the snapshot", "snap.scheduler",
         "snap.scheduler.run_agent"},
        {"snapshot of home started", NULL, "snap.agent.main"},
    };
    CHECK_PLACED("relayrepo", want);
}

/* A format a subclass extends by concatenation with its base's constant
 * (`FORMAT = CallLine.FORMAT + " req={req_bytes}B"`), or a module's
 * constant extended the same way: the base's template, then the added
 * pieces in its style; a message rendering the whole text matches it. */
TEST(mapper_a_constant_extended_by_concatenation_is_whole)
{
    unit_write_str("extconst/rpc/__init__.py", "");
    unit_write_str("extconst/rpc/lines.py",
                   "BASE = 'call to %s failed'\n"
                   "RETRY = BASE + ', retrying in %d s'\n"
                   "class CallLine:\n"
                   "    FORMAT = '{peer} -> {service}.{method} [{code}]'\n"
                   "class VerboseCallLine(CallLine):\n"
                   "    FORMAT = CallLine.FORMAT + ' req={req_bytes}B resp={resp_bytes}B'\n");
    graph *g = index_dir("extconst");
    graph_emit e = unit_emit_at(g, "rpc.lines", 2);
    CHECK_INT(e.kind, GRAPH_EMIT_CONST);
    CHECK_STR(e.tmpl, "call to %s failed, retrying in %d s");
    e = unit_emit_at(g, "rpc.lines.VerboseCallLine", 6);
    CHECK_INT(e.kind, GRAPH_EMIT_CONST);
    CHECK_INT(e.style, GRAPH_STYLE_BRACE);
    CHECK_STR(e.tmpl, "%s -> %s.%s [%s] req=%sB resp=%sB");
    graph_close(g);
}

/* json.dumps of a dictionary display is its JSON text, laid out as
 * Python's json module lays it out (the renderings below are the
 * interpreter's own): separators, sort_keys, ensure_ascii. */
TEST(mapper_a_json_dumps_of_a_dictionary_display_is_its_text)
{
    unit_write_str("pyjson/shop/__init__.py", "");
    unit_write_str(
        "pyjson/shop/events.py",
        "import json\n"
        "import logging\n"
        "from json import dumps\n"
        "log = logging.getLogger(__name__)\n"
        "def paid(order):\n"
        "    log.info(json.dumps({'event': 'paid', 'order': order.id, 'ok': True, 'n': 3, 'x': "
        "None}))\n"
        "    print(json.dumps({'b': 1, 'a': 'z', 'c': {'d': False}}, sort_keys=True))\n"
        "    log.warning(dumps({'event': 'late', 'by': order.late}, separators=(',', ':')))\n"
        "    log.info(json.dumps({'event': 'caf\\u00e9', 'k': 1}, ensure_ascii=False))\n"
        "    log.info(json.dumps({'event': 'caf\\u00e9', 'k': 2}))\n"
        "    log.info(json.dumps({'event': 'paid'}, indent=2))\n");
    graph *g = index_dir("pyjson");
    graph_emit e = unit_emit_at(g, "shop.events.paid", 6);
    CHECK_STR(e.tmpl, "{\"event\": \"paid\", \"order\": %s, \"ok\": true, \"n\": 3, \"x\": null}");
    e = unit_emit_at(g, "shop.events.paid", 7);
    CHECK_STR(e.tmpl, "{\"a\": \"z\", \"b\": 1, \"c\": {\"d\": false}}");
    e = unit_emit_at(g, "shop.events.paid", 8);
    CHECK_STR(e.tmpl, "{\"event\":\"late\",\"by\":%s}");
    e = unit_emit_at(g, "shop.events.paid", 9);
    CHECK_STR(e.tmpl, "{\"event\": \"caf\xc3\xa9\", \"k\": 1}");
    /* What ensure_ascii escapes, and an indent's lines, are not read. */
    e = unit_emit_at(g, "shop.events.paid", 10);
    CHECK_STR(e.tmpl, "{\"event\": %s, \"k\": 2}");
    e = unit_emit_at(g, "shop.events.paid", 11);
    CHECK_INT(e.style, GRAPH_STYLE_DYNAMIC);
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    static const struct {
        const char *msg;
        uint32_t line;
    } lines[] = {
        {"{\"event\": \"paid\", \"order\": 7, \"ok\": true, \"n\": 3, \"x\": null}", 6},
        {"{\"a\": \"z\", \"b\": 1, \"c\": {\"d\": false}}", 7},
        {"{\"event\":\"late\",\"by\":2}", 8},
        {"{\"event\": \"caf\xc3\xa9\", \"k\": 1}", 9},
        {"{\"event\": \"caf\\u00e9\", \"k\": 2}", 10},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        uint32_t em[16];
        map_match r = match(m, w, lines[i].msg, NULL, NULL, em);
        CHECK_INT(r.nemits, 1);
        CHECK_EMIT(g, em[0], "shop.events.paid", lines[i].line);
    }
    matcher_done(g, m, w);
}

/* A development server's logging, as such servers write it: one helper
 * picks the logger's method by a level its callers name
 * (`getattr(_logger, type)(message.rstrip(), *args)`), a handler's `log`
 * puts the client's address and the time around the caller's message in
 * an f-string, and the access line is the format its `log_request`
 * hands that. */
static const char devsrv_internal_py[] = "import logging\n"
                                         "_logger = logging.getLogger('devsrv')\n"
                                         "def _log(type, message, *args):\n"
                                         "    getattr(_logger, type)(message.rstrip(), *args)\n";

static const char devsrv_serving_py[] =
    "from ._internal import _log\n"
    "class Handler:\n"
    "    def log(self, type, message, *args):\n"
    "        _log(type, f'{self.address_string()} - - [{self.date()}] {message}\\n', *args)\n"
    "    def log_request(self, code, size):\n"
    "        self.log('info', '\"%s\" %s %s', self.requestline, code, size)\n"
    "def run(addr):\n"
    "    _log('warning', ' * Running on %s (CTRL+C to quit)', addr)\n";

TEST(mapper_a_level_chosen_by_getattr_passes_its_callers_message_on)
{
    unit_write_str("devsrv/devsrv/__init__.py", "");
    unit_write_str("devsrv/devsrv/_internal.py", devsrv_internal_py);
    unit_write_str("devsrv/devsrv/serving.py", devsrv_serving_py);
    graph *g = index_dir("devsrv");
    /* The message stripped of its line end, and an f-string around a
     * parameter named like a message, are passed on; the level is the
     * word the caller names. */
    graph_emit e = unit_emit_at(g, "devsrv.serving.Handler.log_request", 6);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK_STR(e.tmpl, "%s - - [%s] \"%s\" %s %s\n");
    CHECK_INT(e.level, GRAPH_LEVEL_INFO);
    e = unit_emit_at(g, "devsrv.serving.run", 8);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK_STR(e.tmpl, " * Running on %s (CTRL+C to quit)");
    CHECK_INT(e.level, GRAPH_LEVEL_WARNING);
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t em[16];
    const char *line = "127.0.0.1 - - [06/Dec/2026 22:37:55] \"GET /a HTTP/1.1\" 200 -";
    map_match r = match(m, w, line, "devsrv", "INFO", em);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, em[0], "devsrv.serving.Handler.log_request", 6);
    matcher_done(g, m, w);
}

/* The same server with a browser script of its own that fetches a URL:
 * the URL inside an access line of the server's logger is what the
 * request asked for, and the call (of a function the code does not
 * have) writes no record of that logger. */
TEST(mapper_a_call_of_no_function_of_ours_inside_an_own_loggers_line_is_no_start)
{
    unit_write_str("devjs/devsrv/__init__.py", "");
    unit_write_str("devjs/devsrv/_internal.py", devsrv_internal_py);
    unit_write_str("devjs/devsrv/serving.py", devsrv_serving_py);
    unit_write_str("devjs/devsrv/shared/debugger.js",
                   "function promptForPin() {\n"
                   "  fetch(`${document.location}?__debugger__=yes&cmd=printpin&s=${SECRET}`);\n"
                   "}\n");
    graph *g = index_dir("devjs");
    map_matcher *m;
    map_match_work *w = matcher_of(g, &m);
    uint32_t em[16];
    const char *line = "::1 - - [06/Dec/2026 22:37:55] \"GET "
                       "/?__debugger__=yes&cmd=printpin&s=pw2q01 HTTP/1.1\" 200 -";
    map_match r = match(m, w, line, "devsrv", "INFO", em);
    CHECK_INT(r.nemits, 1);
    CHECK_EMIT(g, em[0], "devsrv.serving.Handler.log_request", 6);
    matcher_done(g, m, w);
}
