/*
 * graph/: the static successor model (flow_int.h, successors.c): what can
 * log next after each emit site, through the statements of a function,
 * the functions it calls, its callers and the callbacks it hands on, in
 * Python and in TypeScript/JavaScript; and the graph file's sections for
 * it, a version 2 file (written before them) read without them.
 */
#include "graph.h"
#include "graph_int.h"
#include "unit_graph.h"

#include <math.h>

static graph_index_opts quiet(void)
{
    graph_index_opts o = {0};
    o.log = (core_logger){NULL, NULL, CORE_LOG_ERROR};
    return o;
}

/* The site of the one emit whose template is tmpl. */
static uint32_t site(const graph *g, const char *tmpl)
{
    uint32_t found = UINT32_MAX;
    for (uint32_t e = 0; e < graph_nemits(g); e++) {
        graph_emit em;
        graph_get_emit(g, e, &em);
        if (strcmp(em.tmpl, tmpl) != 0)
            continue;
        if (found != UINT32_MAX)
            unit_fail(__FILE__, __LINE__, "two sites log \"%s\"", tmpl);
        found = e;
    }
    if (found == UINT32_MAX)
        unit_fail(__FILE__, __LINE__, "no site logs \"%s\"", tmpl);
    return found;
}

/* The weight of next-site edge a -> b (0: none). */
static double next_w(const graph *g, const char *a, const char *b)
{
    uint32_t n, to = site(g, b);
    const graph_next *nx = graph_next_sites(g, site(g, a), &n);
    for (uint32_t i = 0; i < n; i++)
        if (nx[i].emit == to)
            return nx[i].weight;
    return 0;
}

/* The heaviest successor of a: its template. */
static const char *heaviest(const graph *g, const char *a)
{
    uint32_t n;
    const graph_next *nx = graph_next_sites(g, site(g, a), &n);
    if (!n)
        return "(none)";
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (nx[i].weight > nx[best].weight)
            best = i;
    static graph_emit em;
    graph_get_emit(g, nx[best].emit, &em);
    return em.tmpl;
}

static const char py_src[] = "import logging\n"
                             "log = logging.getLogger(__name__)\n"
                             "\n"
                             "def helper():\n"
                             "    log.info('helper start')\n"
                             "    log.info('helper end')\n"
                             "\n"
                             "def run(x):\n"
                             "    log.info('run begins')\n"
                             "    helper()\n"
                             "    if x:\n"
                             "        log.info('branch a')\n"
                             "    else:\n"
                             "        log.info('branch b')\n"
                             "    log.info('run ends')\n"
                             "\n"
                             "def caller():\n"
                             "    run(1)\n"
                             "    log.info('after run')\n"
                             "\n"
                             "def loop(xs):\n"
                             "    log.info('loop before')\n"
                             "    for x in xs:\n"
                             "        log.info('loop body')\n"
                             "    log.info('loop after')\n"
                             "\n"
                             "def guarded():\n"
                             "    try:\n"
                             "        log.info('try body')\n"
                             "        helper()\n"
                             "    except ValueError:\n"
                             "        log.error('handler')\n"
                             "        raise ValueError('not a site')\n"
                             "    finally:\n"
                             "        log.info('finally')\n"
                             "\n"
                             "def early(x):\n"
                             "    log.info('early start')\n"
                             "    if x:\n"
                             "        return\n"
                             "    log.info('early rest')\n"
                             "\n"
                             "def hands_on(loop_):\n"
                             "    log.info('handing on')\n"
                             "    loop_.call_soon(helper)\n"
                             "    log.info('handed on')\n";

/* The graph of one source file, written as dir/path; dir.graph. */
static graph *index_one(const char *dir, const char *path, const char *src)
{
    char file[256], out[256];
    snprintf(file, sizeof file, "%s/%s", dir, path);
    snprintf(out, sizeof out, "%s.graph", dir);
    unit_write_str(file, src);
    graph_index_opts o = quiet();
    return unit_index_and_open(unit_tmp_path(dir), unit_tmp_path(out), &o, NULL);
}

static graph *index_py(void)
{
    return index_one("py", "app.py", py_src);
}

TEST(python_statements_branches_and_calls)
{
    graph *g = index_py();
    /* A callee's first site comes before what follows the call. */
    CHECK_STR(heaviest(g, "run begins"), "helper start");
    CHECK(next_w(g, "run begins", "branch a") > 0);
    CHECK(next_w(g, "helper start", "helper end") > 0.99);
    /* Branches share evenly; the caller goes on after the callee ends. */
    double a = next_w(g, "branch a", "run ends"), b = next_w(g, "branch b", "run ends");
    CHECK(a > 0.99 && b > 0.99);
    double ha = next_w(g, "helper end", "branch a"), hb = next_w(g, "helper end", "branch b");
    CHECK(ha > 0.1 && fabs(ha - hb) < 1e-3);
    /* The end of a function: its caller's next site. */
    CHECK_STR(heaviest(g, "run ends"), "after run");
    /* A loop comes back, or goes on. */
    CHECK(next_w(g, "loop body", "loop body") > 0.2);
    CHECK(next_w(g, "loop body", "loop after") > 0.2);
    CHECK(next_w(g, "loop before", "loop after") > 0.2);
    /* A try's body may raise into its handler; both reach the finally. */
    CHECK(next_w(g, "try body", "handler") > 0);
    CHECK(next_w(g, "try body", "handler") < next_w(g, "try body", "helper start"));
    CHECK(next_w(g, "handler", "finally") == 0); /* it raises on (past finally) */
    CHECK(next_w(g, "helper end", "finally") > 0);
    /* An early return skips the rest. */
    CHECK(next_w(g, "early start", "early rest") > 0.4 &&
          next_w(g, "early start", "early rest") < 0.6);
    /* A function handed on as a callback may run after the call. */
    CHECK(next_w(g, "handing on", "helper start") > 0);
    CHECK(next_w(g, "handing on", "handed on") > 0);
    /* An exception's message is no site. */
    uint32_t n;
    graph_next_sites(g, site(g, "not a site"), &n);
    CHECK_INT(n, 0);
    /* Weights are probabilities. */
    for (uint32_t e = 0; e < graph_nemits(g); e++) {
        const graph_next *nx = graph_next_sites(g, e, &n);
        double sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            CHECK(nx[i].weight > 0 && nx[i].weight <= 1);
            CHECK(i == 0 || nx[i - 1].emit < nx[i].emit);
            sum += nx[i].weight;
        }
        CHECK(sum <= 1.0001);
    }
    graph_stats st;
    graph_get_stats(g, &st);
    CHECK(st.next_sites >= 15 && st.emits_with_next >= 10);
    graph_close(g);
}

static const char ts_src[] = "const debug = require('debug')('app');\n"
                             "export class Conn {\n"
                             "  start(): void {\n"
                             "    debug('start');\n"
                             "    this.step();\n"
                             "    debug('done');\n"
                             "  }\n"
                             "  step(): void {\n"
                             "    debug('step');\n"
                             "  }\n"
                             "  on(ev: string, cb: () => void): void {}\n"
                             "  wire(): void {\n"
                             "    debug('wiring');\n"
                             "    this.on('close', () => {\n"
                             "      debug('callback');\n"
                             "      return;\n"
                             "    });\n"
                             "    debug('wired');\n"
                             "  }\n"
                             "  pick(n: number): void {\n"
                             "    switch (n) {\n"
                             "      case 1:\n"
                             "        debug('one');\n"
                             "      case 2:\n"
                             "        debug('two');\n"
                             "        break;\n"
                             "      default:\n"
                             "        debug('other');\n"
                             "    }\n"
                             "    debug('picked');\n"
                             "  }\n"
                             "  async later(): Promise<void> {\n"
                             "    debug('awaiting');\n"
                             "    await this.fetch();\n"
                             "    debug('awaited');\n"
                             "  }\n"
                             "  async fetch(): Promise<void> {\n"
                             "    debug('fetching');\n"
                             "  }\n"
                             "}\n";

TEST(typescript_callbacks_switch_and_await)
{
    graph *g = index_one("ts", "src/conn.ts", ts_src);
    CHECK_STR(heaviest(g, "start"), "step");
    CHECK_STR(heaviest(g, "step"), "done");
    /* A callback written inline may run after the call it is handed to,
     * and its return ends it, not the method. */
    CHECK(next_w(g, "wiring", "callback") > 0.3);
    CHECK(next_w(g, "wiring", "wired") > 0.3);
    CHECK(next_w(g, "callback", "wired") > 0.99);
    /* Cases fall through until a break. */
    CHECK(next_w(g, "one", "two") > 0.99);
    CHECK(next_w(g, "two", "picked") > 0.99);
    CHECK(next_w(g, "other", "picked") > 0.99);
    CHECK(next_w(g, "two", "other") == 0);
    /* await: the callee's sites, then what follows. */
    CHECK_STR(heaviest(g, "awaiting"), "fetching");
    CHECK(next_w(g, "fetching", "awaited") > 0.5);
    graph_close(g);
}

/* A logging function of the codebase's own that does more than wrap
 * (it renders the message itself), called with messages of one word and
 * a hole: candidate sites as much as messages of two words are, while a
 * lone word (a key, a name) is none. */
static const char own_log_src[] = "import logging\n"
                                  "logger = logging.getLogger(__name__)\n"
                                  "LEVEL = 1\n"
                                  "\n"
                                  "def log(detail, message, *args):\n"
                                  "    if detail <= LEVEL:\n"
                                  "        text = ('%d:' % detail) + message % args\n"
                                  "        logger.log(logging.INFO, text.encode().decode())\n"
                                  "\n"
                                  "class Strategy:\n"
                                  "    def __init__(self, conn):\n"
                                  "        log(1, 'creating strategy for %s', conn)\n"
                                  "        self.size = getattr(conn, 'size')\n"
                                  "        log(1, 'instantiated <%s>', self)\n"
                                  "        log(1, 'ready')\n";

TEST(one_word_and_a_hole_reads_as_a_message)
{
    graph *g = index_one("own", "strategy.py", own_log_src);
    CHECK_STR(heaviest(g, "creating strategy for %s"), "instantiated <%s>");
    uint32_t n;
    graph_next_sites(g, site(g, "instantiated <%s>"), &n);
    CHECK(n > 0);
    graph_next_sites(g, site(g, "size"), &n);
    CHECK_INT(n, 0);
    graph_next_sites(g, site(g, "ready"), &n);
    CHECK_INT(n, 0);
    graph_close(g);
}

/* A callback handed over with a name shows, as util.format prints it, by
 * the name util.inspect gives it: no words of a message, so a name and a
 * callback are no candidate site, while text of two words is. */
static const char callback_src[] = "const debug = require('debug')('app');\n"
                                   "function wire(emitter) {\n"
                                   "  debug('wiring');\n"
                                   "  emitter.on('close', () => 1);\n"
                                   "  emitter.once('closing now', async function later() {});\n"
                                   "  debug('wired');\n"
                                   "}\n"
                                   "module.exports = { wire };\n";

TEST(a_callback_handed_over_reads_as_no_message)
{
    graph *g = index_one("cb", "wire.js", callback_src);
    uint32_t n;
    graph_next_sites(g, site(g, "close [Function (anonymous)]"), &n);
    CHECK_INT(n, 0);
    graph_next_sites(g, site(g, "closing now [AsyncFunction: later]"), &n);
    CHECK(n > 0);
    CHECK(next_w(g, "wiring", "wired") > 0);
    graph_close(g);
}

/* Many branches, each splitting its weight by three, before a log every
 * path reaches: the weights, each rounded to a float along the flows, add
 * up to a hair above 1, and a graph file holding such a weight is one its
 * reader refuses. */
static const char split_src[] =
    "const log = require('./log');\n"
    "function f(a, b, c) {\n"
    "  log.info('start');\n"
    "  switch (a) {\n"
    "    case 1: switch (b) { case 1: g(); break; case 2: h(); break; default: k(); } break;\n"
    "    case 2: switch (c) { case 1: g(); break; case 2: h(); break; default: k(); } break;\n"
    "    default: switch (b + c) { case 1: g(); break; case 2: h(); break; default: k(); }\n"
    "  }\n"
    "  try { if (a) { g(); } else if (b) { h(); } else { k(); } }\n"
    "  catch (e) { if (c) g(); else h(); }\n"
    "  log.info('end');\n"
    "}\n"
    "function g() {}\n"
    "function h() {}\n"
    "function k() {}\n"
    "module.exports = { f };\n";

TEST(weights_of_many_branches_stay_within_one)
{
    graph *g = index_one("split", "a.js", split_src);
    CHECK(g != NULL);
    double w = next_w(g, "start", "end");
    CHECK(w > 0.99);
    CHECK(w <= 1.0);
    graph_close(g);
}

TEST(successors_are_deterministic)
{
    unit_write_str("det/a.py", py_src);
    unit_write_str("det/b.ts", ts_src);
    const char *roots[] = {unit_tmp_path("det")};
    graph_index_opts o = quiet();
    char *x, *y;
    size_t nx, ny;
    o.threads = 1;
    CHECK_OK(graph_index(roots, 1, unit_tmp_path("d1.graph"), &o, NULL));
    o.threads = 4;
    CHECK_OK(graph_index(roots, 1, unit_tmp_path("d2.graph"), &o, NULL));
    CHECK_OK(core_read_file(unit_tmp_path("d1.graph"), 1u << 30, &x, &nx));
    CHECK_OK(core_read_file(unit_tmp_path("d2.graph"), 1u << 30, &y, &ny));
    CHECK(nx == ny && memcmp(x, y, nx) == 0);
    free(x);
    free(y);
}

/* The bytes of a graph file with sections ids (n of them) left out of its
 * table, at version v, its checksum made right. */
static size_t without_sections(const char *data, size_t n, char *out, const uint32_t *ids,
                               uint32_t nids, uint32_t v)
{
    memcpy(out, data, n);
    gf_header h;
    memcpy(&h, out, sizeof h);
    gf_section secs[GF_MAX_SECTIONS];
    memcpy(secs, data + sizeof h, h.nsections * sizeof *secs);
    uint32_t k = 0;
    for (uint32_t i = 0; i < h.nsections; i++) {
        bool drop = false;
        for (uint32_t j = 0; j < nids; j++)
            drop |= secs[i].id == ids[j];
        if (!drop)
            secs[k++] = secs[i];
    }
    memset(out + sizeof h, 0, h.nsections * sizeof *secs);
    memcpy(out + sizeof h, secs, k * sizeof *secs);
    h.nsections = k;
    h.version = v;
    memcpy(out, &h, sizeof h);
    memcpy(&h, out, sizeof h);
    h.crc = core_crc32(0, out + sizeof h, n - sizeof h);
    memcpy(out, &h, sizeof h);
    return n;
}

static int open_copy(const char *data, size_t n, char *why, size_t whylen, graph **g)
{
    const char *p = unit_tmp_path("copy.graph");
    CHECK_OK(core_write_file_atomic(p, data, n));
    *g = NULL;
    return graph_open(p, g, why, whylen);
}

TEST(version_2_files_are_read_without_successors)
{
    graph *g = index_py();
    uint32_t nemits = graph_nemits(g);
    graph_close(g);
    char *data, why[256];
    size_t n;
    CHECK_OK(core_read_file(unit_tmp_path("py.graph"), 1u << 30, &data, &n));
    char *copy = core_xmalloc(n);
    const uint32_t ids[] = {GF_NEXT_OFFS, GF_NEXT_SITES, GF_LITERALS};
    /* A version 2 file: no successors (nor value literals), everything
     * else as it was. */
    without_sections(data, n, copy, ids, 3, 2);
    CHECK_OK(open_copy(copy, n, why, sizeof why, &g));
    CHECK_INT(graph_nemits(g), nemits);
    for (uint32_t e = 0; e < nemits; e++) {
        uint32_t k;
        graph_next_sites(g, e, &k);
        CHECK_INT(k, 0);
    }
    graph_close(g);
    /* A version 3 file must have them; a version 2 file must not. */
    without_sections(data, n, copy, ids, 2, 3);
    CHECK_INT(open_copy(copy, n, why, sizeof why, &g), CORE_ECORRUPT);
    CHECK(strstr(why, "lacks section") != NULL);
    without_sections(data, n, copy, ids, 0, 2);
    CHECK_INT(open_copy(copy, n, why, sizeof why, &g), CORE_ECORRUPT);
    /* Version 3 has no value literals, which version 4 must have. */
    without_sections(data, n, copy, ids + 2, 1, 3);
    CHECK_OK(open_copy(copy, n, why, sizeof why, &g));
    uint32_t owners[1];
    CHECK_INT(unit_literal_owners(g, "helper", owners, 1), 0);
    graph_close(g);
    without_sections(data, n, copy, ids + 2, 1, 4);
    CHECK_INT(open_copy(copy, n, why, sizeof why, &g), CORE_ECORRUPT);
    CHECK(strstr(why, "lacks section") != NULL);
    /* Version 1 is refused, saying which versions are read. */
    without_sections(data, n, copy, ids, 0, 1);
    CHECK_INT(open_copy(copy, n, why, sizeof why, &g), CORE_EVERSION);
    CHECK(strstr(why, "versions 2 to 4") != NULL);
    /* A successor pointing past the emits, or weighing more than 1. */
    gf_header h;
    memcpy(&h, data, sizeof h);
    gf_section secs[GF_MAX_SECTIONS];
    memcpy(secs, data + sizeof h, h.nsections * sizeof *secs);
    for (uint32_t i = 0; i < h.nsections; i++) {
        if (secs[i].id != GF_NEXT_SITES || !secs[i].count)
            continue;
        for (int bad = 0; bad < 2; bad++) {
            memcpy(copy, data, n);
            graph_next x;
            memcpy(&x, copy + secs[i].offset, sizeof x);
            if (bad)
                x.weight = 2.0f;
            else
                x.emit = nemits;
            memcpy(copy + secs[i].offset, &x, sizeof x);
            without_sections(copy, n, copy, ids, 0, 3);
            CHECK_INT(open_copy(copy, n, why, sizeof why, &g), CORE_ECORRUPT);
        }
    }
    free(copy);
    free(data);
}

/* A test that calls the product: the test's site is followed by the
 * product's first site, but the product's last site is not followed by
 * the test's sites (the product runs without its tests); after the
 * product's own caller, the product's next site. */
TEST(product_flow_stays_out_of_tests)
{
    unit_write_str("roles/pkg/__init__.py", "");
    unit_write_str("roles/pkg/core.py", "import logging\n"
                                        "log = logging.getLogger(__name__)\n"
                                        "\n"
                                        "def work():\n"
                                        "    log.info('work starts')\n"
                                        "    log.info('work ends')\n"
                                        "\n"
                                        "def main():\n"
                                        "    work()\n"
                                        "    log.info('main goes on')\n");
    unit_write_str("roles/tests/test_core.py", "import logging\n"
                                               "from pkg.core import work\n"
                                               "log = logging.getLogger(__name__)\n"
                                               "\n"
                                               "def test_work():\n"
                                               "    log.info('test begins')\n"
                                               "    work()\n"
                                               "    log.info('test checks')\n");
    graph_index_opts o = quiet();
    graph *g = unit_index_and_open(unit_tmp_path("roles"), unit_tmp_path("roles.graph"), &o, NULL);
    CHECK(next_w(g, "test begins", "work starts") > 0.5);
    CHECK(next_w(g, "work ends", "main goes on") > 0.5);
    CHECK(next_w(g, "work ends", "test checks") == 0);
    graph_close(g);
}
