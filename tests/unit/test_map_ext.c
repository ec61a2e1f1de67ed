/*
 * map/overrides.c and map/llm.c: manual overrides from YAML (globs, regexes, every kind
 * of bad file) and the external mapping command (batches, bad items,
 * failures, timeouts, and no deadlock on large requests and responses).
 */
#include "graph.h"
#include "map.h"
#include "unit_graph.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static char logged[1 << 16];
static size_t logged_len;

static void capture(void *ud, core_log_level level, const char *msg)
{
    (void)ud;
    int n = snprintf(logged + logged_len, sizeof logged - logged_len, "%s: %s\n",
                     core_log_level_name(level), msg);
    if (n > 0 && logged_len + (size_t)n < sizeof logged)
        logged_len += (size_t)n;
}

static int count_in(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

#define CHECK_HAS(hay, needle)                                                                     \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            unit_fail(__FILE__, __LINE__, "\"%s\" not in \"%s\"", (needle), (hay));                \
    } while (0)

/* A tiny repository: two methods named run, to make "run" ambiguous. */
static graph *open_repo(void)
{
    unit_write_str("repo/pkg/__init__.py", "");
    unit_write_str("repo/pkg/svc.py", "class Alpha:\n"
                                      "    def run(self):\n"
                                      "        pass\n"
                                      "\n"
                                      "    def only_alpha(self):\n"
                                      "        pass\n"
                                      "\n"
                                      "\n"
                                      "class Beta:\n"
                                      "    def run(self):\n"
                                      "        pass\n"
                                      "\n"
                                      "\n"
                                      "def helper():\n"
                                      "    pass\n");
    graph_index_opts o = {0};
    o.log = (core_logger){capture, NULL, CORE_LOG_WARN};
    graph *g = unit_index_and_open(unit_tmp_path("repo"), unit_tmp_path("repo.graph"), &o, NULL);
    logged_len = 0;
    logged[0] = 0;
    return g;
}

/* ------------------------------------------------------------------ */
/* Overrides                                                           */
/* ------------------------------------------------------------------ */

static const char good_overrides[] =
    "# pmrag overrides\n"
    "- activity: \"Calling helper: *\"       # glob, whole string\n"
    "  symbols: [helper]\n"
    "- activity: \"/^retry needed.*$/i\"     # regex, case-insensitive\n"
    "  symbols: [Alpha.run, pkg.svc.Beta.run]\n"
    "  confidence: 0.5\n"
    "- activity: \"Step [0-9]? d?ne\"\n"
    "  symbols:\n"
    "    - Alpha.only_alpha\n"
    "  confidence: 0.75\n"
    "- activity: \"\\\\/api/*\"               # a glob that starts with '/'\n"
    "  symbols: [helper]\n"
    "- activity: /api/v1\n"
    "  symbols: [Alpha.run]\n";

static map_overrides *load_good(const graph *g)
{
    map_overrides *o = NULL;
    char why[512] = "";
    int rc =
        map_overrides_load(unit_write_str("good.yaml", good_overrides), g, &o, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "map_overrides_load: %d %s", rc, why);
    return o;
}

TEST(overrides_glob_regex_and_confidence)
{
    graph *g = open_repo();
    map_overrides *o = load_good(g);
    CHECK_INT(map_overrides_count(o), 5);
    uint32_t syms[4], rule = 77;
    float conf[4];
    const char *t = "Calling helper: GET https://example.com/a?b=[1]";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    CHECK_INT(rule, 0);
    CHECK_INT(syms[0], unit_sym(g, "pkg.svc.helper"));
    CHECK(conf[0] == 1.0f);

    t = "RETRY NEEDED: attempt 2";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 2);
    CHECK_INT(rule, 1);
    CHECK_INT(syms[0], unit_sym(g, "pkg.svc.Alpha.run"));
    CHECK_INT(syms[1], unit_sym(g, "pkg.svc.Beta.run"));
    CHECK(conf[0] == 0.25f && conf[1] == 0.25f);
    /* max caps what is written, not what is returned. */
    syms[1] = 12345;
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, NULL, 1, NULL), 2);
    CHECK_INT(syms[1], 12345);
    /* The regex is anchored by its own ^. */
    t = "No retry needed";
    rule = 77;
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 0);
    CHECK_INT(rule, 77);

    t = "Step 3a dune";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    CHECK_INT(rule, 2);
    CHECK(conf[0] == 0.75f);
    t = "Step 7\xc3\xa9 done"; /* ? is one UTF-8 character */
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    t = "Step x1 done";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 0);

    t = "/api/orders/17";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    CHECK_INT(rule, 3);
    t = "/api/v1";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    CHECK_INT(rule, 3); /* the first rule that matches wins */

    /* Whole-string: a prefix is not enough; the length is honoured. */
    t = "Calling helper";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 0);
    t = "Calling helper: x";
    CHECK_INT(map_overrides_match(o, t, 14, syms, conf, 4, &rule), 0);
    /* Regexes see UTF-8 characters; invalid bytes are never matched by
     * them (so .* stops there), and are single characters to globs. */
    t = "Retry needed \xc3\xa9";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 2);
    t = "retry needed \xff\xfe";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 0);
    t = "Calling helper: \xff";
    CHECK_INT(map_overrides_match(o, t, strlen(t), syms, conf, 4, &rule), 1);
    map_overrides_free(o);
    graph_close(g);
}

typedef struct {
    const map_overrides *o;
    uint32_t helper, alpha_run;
    atomic_int bad;
} match_threads;

static void match_worker(void *arg, unsigned i)
{
    match_threads *m = arg;
    for (unsigned k = 0; k < 20000; k++) {
        uint32_t syms[2], rule;
        float conf[2];
        char text[64];
        int n =
            snprintf(text, sizeof text, (k + i) % 2 ? "retry NEEDED %u" : "Calling helper: %u", k);
        uint32_t got = map_overrides_match(m->o, text, (size_t)n, syms, conf, 2, &rule);
        bool ok =
            (k + i) % 2 ? got == 2 && syms[0] == m->alpha_run : got == 1 && syms[0] == m->helper;
        if (!ok)
            atomic_fetch_add(&m->bad, 1);
    }
}

TEST(overrides_match_from_threads)
{
    graph *g = open_repo();
    map_overrides *o = load_good(g);
    match_threads m = {o, unit_sym(g, "pkg.svc.helper"), unit_sym(g, "pkg.svc.Alpha.run"), 0};
    CHECK_OK(core_parallel(4, match_worker, &m));
    CHECK_INT(atomic_load(&m.bad), 0);
    map_overrides_free(o);
    graph_close(g);
}

/* Loads a bad file: the code, and a message naming path:line and needle. */
static void check_bad(const graph *g, const char *name, const char *text, int want_rc,
                      unsigned line, const char *needle, const char *needle2)
{
    char path[4096], where[4200], why[1024] = "";
    snprintf(path, sizeof path, "%s", unit_write_str(name, text));
    map_overrides *o = NULL;
    int rc = map_overrides_load(path, g, &o, why, sizeof why);
    if (rc != want_rc)
        unit_fail(__FILE__, __LINE__, "%s: rc %d, want %d (%s)", name, rc, want_rc, why);
    CHECK(o == NULL);
    snprintf(where, sizeof where, "%s:%u: ", path, line);
    CHECK_HAS(why, where);
    CHECK_HAS(why, needle);
    if (needle2)
        CHECK_HAS(why, needle2);
}

TEST(overrides_errors_name_file_line_and_key)
{
    graph *g = open_repo();
    check_bad(g, "unknown_key.yaml", "- activity: \"x\"\n  symbol: [helper]\n", CORE_EFORMAT, 2,
              "unknown key 'symbol'", NULL);
    check_bad(g, "no_symbols.yaml",
              "- activity: \"a\"\n  symbols: [helper]\n- activity: \"b\"\n  confidence: 1\n",
              CORE_EFORMAT, 3, "'symbols'", NULL);
    check_bad(g, "no_activity.yaml", "- symbols: [helper]\n", CORE_EFORMAT, 1, "'activity'", NULL);
    check_bad(g, "bad_regex.yaml",
              "- activity: ok\n  symbols: [helper]\n- activity: \"/a(b/\"\n  symbols: [helper]\n",
              CORE_EFORMAT, 3, "missing closing parenthesis", "offset 3");
    check_bad(g, "bad_flag.yaml", "- activity: /ab/g\n  symbols: [helper]\n", CORE_EFORMAT, 1,
              "flag 'g'", NULL);
    check_bad(g, "bad_glob.yaml", "- activity: \"Step [0-9\"\n  symbols: [helper]\n", CORE_EFORMAT,
              1, "'[' at offset 5", NULL);
    check_bad(g, "unknown_symbol.yaml",
              "- activity: a\n  symbols:\n    - helper\n    - nosuch.thing\n", CORE_ENOTFOUND, 4,
              "'nosuch.thing'", NULL);
    check_bad(g, "ambiguous.yaml", "- activity: a\n  symbols: [helper, run]\n", CORE_EAMBIGUOUS, 2,
              "'run' is ambiguous", "pkg.svc.Alpha.run, pkg.svc.Beta.run");
    check_bad(g, "twice.yaml", "- activity: a\n  symbols: [helper, pkg.svc.helper]\n", CORE_EFORMAT,
              2, "'pkg.svc.helper'", "twice");
    check_bad(g, "not_a_list.yaml", "activity: a\nsymbols: [helper]\n", CORE_EFORMAT, 1,
              "list of rules", NULL);
    check_bad(g, "rule_not_mapping.yaml", "- just a string\n", CORE_EFORMAT, 1, "mapping", NULL);
    check_bad(g, "symbols_scalar.yaml", "- activity: a\n  symbols: helper\n", CORE_EFORMAT, 2,
              "'symbols' must be", NULL);
    check_bad(g, "symbols_empty.yaml", "- activity: a\n  symbols: []\n", CORE_EFORMAT, 2,
              "'symbols' must be", NULL);
    check_bad(g, "conf_high.yaml", "- activity: a\n  symbols: [helper]\n  confidence: 1.5\n",
              CORE_EFORMAT, 3, "'confidence'", "1.5");
    check_bad(g, "conf_zero.yaml", "- activity: a\n  symbols: [helper]\n  confidence: 0\n",
              CORE_EFORMAT, 3, "'confidence'", NULL);
    check_bad(g, "conf_text.yaml", "- activity: a\n  symbols: [helper]\n  confidence: high\n",
              CORE_EFORMAT, 3, "'confidence'", "high");
    check_bad(g, "dup_key.yaml", "- activity: a\n  symbols: [helper]\n  activity: b\n",
              CORE_EFORMAT, 3, "'activity' is given twice", NULL);
    check_bad(g, "empty_activity.yaml", "- activity: \"\"\n  symbols: [helper]\n", CORE_EFORMAT, 1,
              "'activity'", NULL);
    check_bad(g, "syntax.yaml", "- activity: a\n  symbols: [helper\n- activity: b\n", CORE_EFORMAT,
              3, "", NULL);

    /* A missing file: the errno, and the path. */
    map_overrides *o = NULL;
    char why[512] = "";
    const char *missing = unit_tmp_path("missing.yaml");
    CHECK_INT(map_overrides_load(missing, g, &o, why, sizeof why), -ENOENT);
    CHECK_HAS(why, missing);
    /* An empty file, or only comments: no rules. */
    CHECK_OK(map_overrides_load(unit_write_str("empty.yaml", "# nothing yet\n"), g, &o, why,
                                sizeof why));
    CHECK_INT(map_overrides_count(o), 0);
    CHECK_INT(map_overrides_match(o, "x", 1, NULL, NULL, 0, NULL), 0);
    map_overrides_free(o);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* External command                                                    */
/* ------------------------------------------------------------------ */

typedef struct {
    size_t item;
    uint32_t symbol;
    float conf;
} mapped;

static mapped got[4096];
static size_t ngot;

static void collect(void *ud, size_t item, uint32_t symbol, float conf)
{
    (void)ud;
    if (ngot < sizeof got / sizeof got[0])
        got[ngot++] = (mapped){item, symbol, conf};
}

static const char *python(void)
{
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* A command line that runs the script text (written to the temp dir). */
static const char *script_cmd(const char *name, const char *interp, const char *text,
                              const char *args)
{
    static char cmd[8192];
    const char *path = unit_write_str(name, text);
    snprintf(cmd, sizeof cmd, "%s %s %s", interp, path, args ? args : "");
    return cmd;
}

/* Maps "call NAME" to NAME with confidence 0.5, "use candidate" to its
 * first candidate; exits 4 on "boom". Logs each run (and the candidates
 * it was given) to the file named by its argument. */
static const char mapper_py[] =
    "import json, sys\n"
    "req = json.load(sys.stdin)\n"
    "assert req['version'] == 1 and req['task'] == 'map-activities-to-code'\n"
    "log = open(sys.argv[1], 'a')\n"
    "log.write('run %d\\n' % len(req['activities']))\n"
    "out = []\n"
    "for a in req['activities']:\n"
    "    t = a['text']\n"
    "    for c in a['candidates']:\n"
    "        log.write('cand %s %s %d %d %s %d\\n' % (c['symbol'], c['file'], c['start_line'],\n"
    "                  c['end_line'], c['kind'], a['count']))\n"
    "    if t == 'boom':\n"
    "        sys.stderr.write('boom at id %d\\n' % a['id'])\n"
    "        sys.exit(4)\n"
    "    if t.startswith('call '):\n"
    "        out.append({'id': a['id'], 'symbols': [{'symbol': t[5:], 'confidence': 0.5}]})\n"
    "    elif t == 'use candidate' and a['candidates']:\n"
    "        out.append({'id': a['id'], 'symbols': [{'symbol': a['candidates'][0]['symbol'],\n"
    "                                                'confidence': 0.25}]})\n"
    "json.dump({'mappings': out}, sys.stdout)\n";

static map_llm_opts llm_opts(const char *cmd, uint32_t batch, uint32_t timeout_ms)
{
    map_llm_opts o = {cmd, batch, timeout_ms, {capture, NULL, CORE_LOG_WARN}};
    ngot = 0;
    logged_len = 0;
    logged[0] = 0;
    return o;
}

static const mapped *find_got(size_t item)
{
    for (size_t i = 0; i < ngot; i++)
        if (got[i].item == item)
            return &got[i];
    return NULL;
}

TEST(llm_batches_and_candidates)
{
    graph *g = open_repo();
    const char *log = unit_tmp_path("mapper.log");
    char args[4200];
    snprintf(args, sizeof args, "%s", log);
    map_llm_opts o = llm_opts(script_cmd("mapper.py", python(), mapper_py, args), 3, 0);
    static const char *const names[] = {"helper",  "Alpha.run",        "pkg.svc.Beta.run",
                                        "helper",  "Alpha.only_alpha", "pkg.svc.helper",
                                        "Beta.run"};
    char texts[7][64];
    map_llm_item items[7];
    for (size_t i = 0; i < 7; i++) {
        snprintf(texts[i], sizeof texts[i], "call %s", names[i]);
        items[i] = (map_llm_item){texts[i], i + 1, NULL, 0};
    }
    uint32_t failed = 99;
    char why[512] = "";
    CHECK_OK(map_llm_map(g, items, 7, &o, collect, NULL, &failed, why, sizeof why));
    CHECK_INT(failed, 0);
    CHECK_INT(ngot, 7);
    for (size_t i = 0; i < 7; i++) {
        const mapped *m = find_got(i);
        CHECK(m != NULL);
        CHECK_INT(m->symbol, unit_sym(g, names[i]));
        CHECK(m->conf == 0.5f);
    }
    char *data;
    size_t n;
    CHECK_OK(core_read_file(log, 1 << 20, &data, &n));
    CHECK_STR(data, "run 3\nrun 3\nrun 1\n"); /* three processes */
    free(data);
    CHECK_INT(logged_len, 0);

    /* Candidates are described to the command; n = 0 runs nothing. */
    unlink(log);
    uint32_t cand = unit_sym(g, "pkg.svc.Beta.run");
    map_llm_item ci = {"use candidate", 110, &cand, 1};
    o = llm_opts(o.cmd, 0, 0);
    CHECK_OK(map_llm_map(g, &ci, 1, &o, collect, NULL, NULL, why, sizeof why));
    CHECK_INT(ngot, 1);
    CHECK_INT(got[0].symbol, cand);
    CHECK(got[0].conf == 0.25f);
    CHECK_OK(map_llm_map(g, &ci, 0, &o, collect, NULL, NULL, why, sizeof why));
    CHECK_OK(core_read_file(log, 1 << 20, &data, &n));
    CHECK_STR(data, "run 1\ncand pkg.svc.Beta.run pkg/svc.py 10 11 method 110\n");
    free(data);

    /* Misuse is refused before anything runs. */
    uint32_t bad = graph_nsymbols(g);
    map_llm_item bi = {"x", 1, &bad, 1};
    CHECK_INT(map_llm_map(g, &bi, 1, &o, collect, NULL, NULL, why, sizeof why), CORE_EUSAGE);
    CHECK_HAS(why, "candidate");
    map_llm_opts none = llm_opts(NULL, 0, 0);
    CHECK_INT(map_llm_map(g, &ci, 1, &none, collect, NULL, NULL, why, sizeof why), CORE_EUSAGE);
    graph_close(g);
}

TEST(llm_bad_items_are_skipped_with_warnings)
{
    graph *g = open_repo();
    const char *cmd =
        script_cmd("bad_items.py", python(),
                   "import json, sys\n"
                   "json.load(sys.stdin)\n"
                   "print(json.dumps({'mappings': [\n"
                   "  {'id': 99, 'symbols': [{'symbol': 'helper'}]},\n"
                   "  {'id': 0, 'symbols': [{'symbol': 'nosuch', 'confidence': 0.5},\n"
                   "                        {'symbol': 'run', 'confidence': 0.5},\n"
                   "                        {'symbol': 'helper', 'confidence': 1.5},\n"
                   "                        {'symbol': 'helper', 'confidence': 0},\n"
                   "                        {'symbol': 'helper', 'confidence': 1e-50},\n"
                   "                        {'symbol': 'Alpha.run', 'confidence': 0.7},\n"
                   "                        'helper']},\n"
                   "  {'id': 'x', 'symbols': []},\n"
                   "  {'id': 1}]}))\n",
                   NULL);
    map_llm_opts o = llm_opts(cmd, 0, 0);
    map_llm_item items[2] = {{"a", 1, NULL, 0}, {"b", 1, NULL, 0}};
    uint32_t failed = 99;
    char why[512] = "";
    CHECK_OK(map_llm_map(g, items, 2, &o, collect, NULL, &failed, why, sizeof why));
    CHECK_INT(failed, 0);
    CHECK_INT(ngot, 2);
    CHECK_INT(got[0].item, 0);
    CHECK_INT(got[0].symbol, unit_sym(g, "Alpha.run"));
    CHECK(got[0].conf == 0.7f);
    CHECK_INT(got[1].symbol, unit_sym(g, "helper"));
    CHECK(got[1].conf == 1.0f);
    CHECK_INT(count_in(logged, "warning: llm batch 1 of 1 (items 0-1): "), 8);
    CHECK_HAS(logged, "id 99 is not an activity of this batch");
    CHECK_HAS(logged, "id 0: symbol 'nosuch' matches nothing");
    CHECK_HAS(logged, "id 0: symbol 'run' is ambiguous: 2 matches (pkg.svc.Alpha.run, "
                      "pkg.svc.Beta.run)");
    CHECK_INT(count_in(logged, "id 0: symbol 'helper': confidence"), 3);
    /* A float 0 is no confidence (found by fuzz_llm_reply). */
    CHECK_HAS(logged, "id 0: symbol 'helper': confidence 1e-50 rounds to 0; skipped");
    CHECK_HAS(logged, "mapping 2 has no integer \"id\"");
    CHECK_HAS(logged, "id 1 has no \"symbols\" list");
    graph_close(g);
}

TEST(llm_failed_batches)
{
    graph *g = open_repo();
    map_llm_item items[3] = {{"a", 1, NULL, 0}, {"b", 1, NULL, 0}, {"c", 1, NULL, 0}};
    uint32_t failed = 0;
    char why[512] = "";

    /* Not JSON: every batch fails; the first in why, the others logged. */
    map_llm_opts o = llm_opts(
        "cat >/dev/null; echo 'this is not json'; printf 'garbage\\non stderr\\n' >&2", 1, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), CORE_EFORMAT);
    CHECK_INT(failed, 3);
    CHECK_HAS(why, "llm batch 1 of 3 (items 0-0): the response is not JSON");
    CHECK_HAS(why, "; stderr: garbage on stderr");
    CHECK(why[strlen(why) - 1] != ' ');
    CHECK_HAS(logged, "llm batch 2 of 3 (items 1-1)");
    CHECK_HAS(logged, "llm batch 3 of 3 (items 2-2)");
    CHECK(!strstr(logged, "batch 1 of 3"));

    /* JSON of the wrong shape, and nothing at all. */
    o = llm_opts("cat >/dev/null; echo '[1, 2]'", 0, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), CORE_EFORMAT);
    CHECK_HAS(why, "\"mappings\" list");
    o = llm_opts("true", 0, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), CORE_EFORMAT);
    CHECK_HAS(why, "printed nothing");

    /* A non-zero exit status, even with a good response. */
    o = llm_opts("cat >/dev/null; echo '{\"mappings\":[]}'; echo it broke >&2; exit 3", 0, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), -EIO);
    CHECK_INT(failed, 1);
    CHECK_HAS(why, "llm batch 1 of 1 (items 0-2): the command exited with status 3");
    CHECK_HAS(why, "stderr: it broke");

    /* A signal. */
    o = llm_opts("kill -9 $$", 0, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), -EIO);
    CHECK_HAS(why, "killed by signal 9");

    /* More than 16 MiB. */
    o = llm_opts("cat >/dev/null; head -c 17000000 /dev/zero", 0, 0);
    CHECK_INT(map_llm_map(g, items, 3, &o, collect, NULL, &failed, why, sizeof why), CORE_ELIMIT);
    CHECK_HAS(why, "16 MiB");
    CHECK_INT(ngot, 0);
    graph_close(g);
}

TEST(llm_batches_after_a_failed_one_still_run)
{
    graph *g = open_repo();
    const char *log = unit_tmp_path("mapper.log");
    char args[4200];
    snprintf(args, sizeof args, "%s", log);
    map_llm_opts o = llm_opts(script_cmd("mapper.py", python(), mapper_py, args), 3, 0);
    map_llm_item items[7];
    for (size_t i = 0; i < 7; i++)
        items[i] = (map_llm_item){i == 4 ? "boom" : "call helper", 1, NULL, 0};
    uint32_t failed = 0;
    char why[512] = "";
    CHECK_INT(map_llm_map(g, items, 7, &o, collect, NULL, &failed, why, sizeof why), -EIO);
    CHECK_INT(failed, 1);
    CHECK_HAS(why, "llm batch 2 of 3 (items 3-5): the command exited with status 4; stderr: boom "
                   "at id 1");
    CHECK_INT(ngot, 4);
    for (size_t i = 0; i < ngot; i++)
        CHECK(got[i].item < 3 || got[i].item == 6);
    graph_close(g);
}

TEST(llm_timeout_kills_the_process_group)
{
    graph *g = open_repo();
    const char *pidfile = unit_tmp_path("sleep.pid");
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "sleep 30 & echo $! > %s; wait", pidfile);
    map_llm_opts o = llm_opts(cmd, 0, 300);
    map_llm_item item = {"a", 1, NULL, 0};
    char why[512] = "";
    uint64_t t0 = core_now_ns();
    CHECK_INT(map_llm_map(g, &item, 1, &o, collect, NULL, NULL, why, sizeof why), -ETIMEDOUT);
    double secs = (double)(core_now_ns() - t0) / 1e9;
    if (secs < 0.29 || secs > 1.3)
        unit_fail(__FILE__, __LINE__, "took %.2f s with a 0.3 s timeout", secs);
    CHECK_HAS(why, "llm batch 1 of 1 (items 0-0): timed out after 300 ms");

    /* The background sleep went with its shell: gone, or a zombie. */
    char *data;
    size_t n;
    CHECK_OK(core_read_file(pidfile, 64, &data, &n));
    int pid = atoi(data);
    free(data);
    CHECK(pid > 0);
    bool dead = false;
    for (int i = 0; i < 100 && !dead; i++) {
        char stat_path[64], *st;
        snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", pid);
        if (core_read_file(stat_path, 4096, &st, &n) != 0) {
            dead = true;
        } else {
            const char *close = strrchr(st, ')');
            dead = close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
            free(st);
        }
        if (!dead)
            usleep(10000);
    }
    CHECK(dead);

    /* A command that closes its output but stays: the same timeout. */
    o = llm_opts("cat >/dev/null; echo '{\"mappings\":[]}'; exec >&- 2>&-; sleep 30", 0, 300);
    t0 = core_now_ns();
    CHECK_INT(map_llm_map(g, &item, 1, &o, collect, NULL, NULL, why, sizeof why), -ETIMEDOUT);
    secs = (double)(core_now_ns() - t0) / 1e9;
    CHECK(secs < 1.3);
    graph_close(g);
}

/* About 2 MB of request: 2000 activities of 1 KB. */
static map_llm_item *big_request(char **text)
{
    *text = core_xmalloc(1025);
    memset(*text, 'q', 1024);
    (*text)[1024] = 0;
    map_llm_item *items = core_xcalloc(2000, sizeof *items);
    for (size_t i = 0; i < 2000; i++)
        items[i] = (map_llm_item){*text, 1, NULL, 0};
    return items;
}

TEST(llm_no_deadlock_on_large_requests)
{
    graph *g = open_repo();
    char *text;
    map_llm_item *items = big_request(&text);
    char why[512] = "";

    /* Prints 2 MB before it reads anything, then answers. */
    const char *cmd = script_cmd(
        "print_first.py", python(),
        "import json, sys\n"
        "sys.stdout.write('{\"pad\": \"' + 'x' * (2 << 20) + '\", ')\n"
        "sys.stdout.flush()\n"
        "req = json.load(sys.stdin)\n"
        "n = len(req['activities'])\n"
        "sys.stdout.write('\"mappings\": [{\"id\": %d, \"symbols\": [\"helper\"]}]}' % (n - 1))\n",
        NULL);
    map_llm_opts o = llm_opts(cmd, 5000, 20000);
    CHECK_OK(map_llm_map(g, items, 2000, &o, collect, NULL, NULL, why, sizeof why));
    CHECK_INT(ngot, 1);
    CHECK_INT(got[0].item, 1999);
    CHECK_INT(got[0].symbol, unit_sym(g, "helper"));

    /* Never reads its stdin at all. */
    cmd =
        script_cmd("never_reads.py", python(),
                   "import sys\n"
                   "sys.stdout.write('{\"pad\": \"' + 'y' * (2 << 20) + '\", '\n"
                   "                 '\"mappings\": [{\"id\": 0, \"symbols\": [\"helper\"]}]}')\n",
                   NULL);
    o = llm_opts(cmd, 5000, 20000);
    CHECK_OK(map_llm_map(g, items, 2000, &o, collect, NULL, NULL, why, sizeof why));
    CHECK_INT(ngot, 1);
    CHECK_INT(got[0].item, 0);

    /* The SIGPIPE of that write did not reach the process. */
    sigset_t pending;
    sigpending(&pending);
    CHECK(!sigismember(&pending, SIGPIPE));
    free(items);
    free(text);
    graph_close(g);
}

TEST(llm_data_never_reaches_the_shell)
{
    graph *g = open_repo();
    char inj[4300];
    snprintf(inj, sizeof inj, "call helper'; touch %s; echo '$(touch %s)`touch %s`",
             unit_tmp_path("inj1"), unit_tmp_path("inj2"), unit_tmp_path("inj3"));
    const char *log = unit_tmp_path("mapper.log");
    char args[4200];
    snprintf(args, sizeof args, "%s", log);
    map_llm_opts o = llm_opts(script_cmd("mapper.py", python(), mapper_py, args), 0, 0);
    map_llm_item item = {inj, 1, NULL, 0};
    char why[512] = "";
    CHECK_OK(map_llm_map(g, &item, 1, &o, collect, NULL, NULL, why, sizeof why));
    CHECK_INT(ngot, 0); /* the text after "call " names no symbol */
    CHECK_HAS(logged, "matches nothing");
    CHECK(access(unit_tmp_path("inj1"), F_OK) != 0);
    CHECK(access(unit_tmp_path("inj2"), F_OK) != 0);
    CHECK(access(unit_tmp_path("inj3"), F_OK) != 0);
    graph_close(g);
}
