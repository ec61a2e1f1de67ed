/*
 * graph/: indexing a fixture repository and reading the graph file back;
 * resolution across files; determinism; bad input files; corrupted graph
 * files.
 */
#include "graph.h"
#include "graph_int.h"
#include "unit_graph.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <sys/stat.h>
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

static graph_index_opts quiet_opts(void)
{
    graph_index_opts o = {0};
    o.log = (core_logger){capture, NULL, CORE_LOG_DEBUG};
    return o;
}

/* unit_index_and_open() with what it logs, and only that, in `logged`. */
static graph *index_and_open(const char *root, const char *out, const graph_index_opts *o,
                             graph_index_stats *st)
{
    logged_len = 0;
    logged[0] = 0;
    return unit_index_and_open(root, out, o, st);
}

/* The shop fixture, indexed with quiet_opts(). */
static graph *open_shop(graph_index_stats *st)
{
    graph_index_opts o = quiet_opts();
    return index_and_open(unit_fixture("repos/shop"), unit_tmp_path("shop.graph"), &o, st);
}

/* A receiver bound to instances of several classes, chosen at run time
 * (a strategy or a backend): a call through it may run each class's
 * method, also through an attribute that names the bound method. A class
 * deriving from Python's object keeps the rule for a method name only
 * one class defines. */
TEST(calls_through_a_receiver_of_several_classes)
{
    graph_index_opts o = quiet_opts();
    graph *g =
        index_and_open(unit_fixture("repos/backends"), unit_tmp_path("backends.graph"), &o, NULL);
    const char *search = "conn.connection.Connection.search";
    CHECK_EDGE(g, search, "conn.strategies.SyncStrategy.send", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, search, "conn.strategies.MockStrategy.send", GRAPH_EDGE_CALLS);
    /* ReplayStrategy inherits MockStrategy's: that one twice. */
    uint32_t n, mock = unit_sym(g, "conn.strategies.MockStrategy.send");
    const graph_edge *e = graph_out_edges(g, unit_sym(g, search), &n);
    float w_mock = 0, w_sync = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].type != GRAPH_EDGE_CALLS)
            continue;
        if (e[i].node == mock)
            w_mock += e[i].weight;
        else if (e[i].node == unit_sym(g, "conn.strategies.SyncStrategy.send"))
            w_sync += e[i].weight;
    }
    CHECK(fabsf(w_mock - 2.0f * w_sync) < 1e-6f);
    CHECK_EDGE(g, "conn.strategies.Base.send", "conn.connection.Connection.next_message_id",
               GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "web/store.Store.find", "web/store.MemoryBackend.query", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "web/store.Store.find", "web/store.RemoteBackend.query", GRAPH_EDGE_CALLS);
    graph_close(g);
}

/* CommonJS: an object made by `new` of a module that exports a class
 * (`module.exports = Commands`, `const Commands = require('./commands')`)
 * is of that class, kept in an attribute or a local. Two classes have the
 * method, so that no call resolves by its name alone. */
TEST(js_default_export_class_instances)
{
    unit_write_str("cjs/commands.js", "class Commands {\n"
                                      "  handle(m) { return m; }\n"
                                      "}\n"
                                      "module.exports = Commands;\n");
    unit_write_str("cjs/other.js", "class Other {\n"
                                   "  handle(m) { return m; }\n"
                                   "  onData(d) { return d; }\n"
                                   "}\n"
                                   "module.exports = { Other };\n");
    unit_write_str("cjs/conn.js", "const Commands = require('./commands');\n"
                                  "class Conn {\n"
                                  "  constructor(socket) {\n"
                                  "    this.commands = new Commands();\n"
                                  "    socket.on('data', this.onData.bind(this));\n"
                                  "  }\n"
                                  "  onData(d) { return this.commands.handle(d); }\n"
                                  "  once(d) {\n"
                                  "    const c = new Commands();\n"
                                  "    return c.handle(d) + this.onData.call(this, d);\n"
                                  "  }\n"
                                  "}\n"
                                  "module.exports = Conn;\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("cjs"), unit_tmp_path("cjs.graph"), &o, NULL);
    CHECK_EDGE(g, "conn.Conn.onData", "commands.Commands.handle", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "conn.Conn.once", "commands.Commands.handle", GRAPH_EDGE_CALLS);
    CHECK(!unit_has_edge(g, "conn.Conn.onData", "other.Other.handle", GRAPH_EDGE_CALLS));
    graph_close(g);
}

/* A call on an attribute holding an instance of an interface or a base
 * class that only its implementations or subclasses give the method
 * (`this.formatter.format` with `formatter: Formatter`), or whose own
 * method is abstract: it may run any of theirs; on a parameter, not. Two
 * of each, so that no call resolves by its name alone. */
TEST(calls_through_an_interface_or_an_abstract_method)
{
    unit_write_str("ifc/fmt.ts", "export interface Formatter {\n"
                                 "  format(e: string): string;\n"
                                 "}\n"
                                 "export class Plain implements Formatter {\n"
                                 "  format(e: string): string { return e; }\n"
                                 "}\n"
                                 "export class Fancy implements Formatter {\n"
                                 "  format(e: string): string { return `* ${e}`; }\n"
                                 "}\n");
    unit_write_str("ifc/transport.ts", "import { Formatter } from './fmt';\n"
                                       "export class Transport {\n"
                                       "  constructor(private readonly formatter: Formatter) {}\n"
                                       "  log(e: string): void {\n"
                                       "    process.stdout.write(this.formatter.format(e));\n"
                                       "  }\n"
                                       "}\n"
                                       "export function sample(f: Formatter): string {\n"
                                       "  return f.format('x');\n"
                                       "}\n");
    unit_write_str("ifc/store/__init__.py", "");
    unit_write_str("ifc/store/base.py", "import abc\n"
                                        "class Store(abc.ABC):\n"
                                        "    @abc.abstractmethod\n"
                                        "    def put(self, k):\n"
                                        "        ...\n"
                                        "class Disk(Store):\n"
                                        "    def put(self, k):\n"
                                        "        self.k = k\n"
                                        "class Mem(Store):\n"
                                        "    def put(self, k):\n"
                                        "        self.k = k\n");
    unit_write_str("ifc/store/svc.py", "from .base import Store\n"
                                       "class Svc:\n"
                                       "    def __init__(self, store: Store):\n"
                                       "        self.store = store\n"
                                       "    def save(self, k):\n"
                                       "        self.store.put(k)\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("ifc"), unit_tmp_path("ifc.graph"), &o, NULL);
    CHECK_EDGE(g, "transport.Transport.log", "fmt.Plain.format", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "transport.Transport.log", "fmt.Fancy.format", GRAPH_EDGE_CALLS);
    /* Not through a parameter (a function over any of them). */
    CHECK(!unit_has_edge(g, "transport.sample", "fmt.Plain.format", GRAPH_EDGE_CALLS));
    CHECK(!unit_has_edge(g, "transport.sample", "fmt.Fancy.format", GRAPH_EDGE_CALLS));
    CHECK_EDGE(g, "store.svc.Svc.save", "store.base.Store.put", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "store.svc.Svc.save", "store.base.Disk.put", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "store.svc.Svc.save", "store.base.Mem.put", GRAPH_EDGE_CALLS);
    graph_close(g);
}

static bool has_call(const graph *g, const char *from, const char *to)
{
    return unit_has_edge(g, from, to, GRAPH_EDGE_CALLS);
}

/* An untyped parameter takes the class its callers pass: `this` handed to
 * a factory whose closure calls back (through a local `_this`), `self`
 * handed to a constructor that keeps it in an attribute, or to a helper.
 * Each method name is defined by two classes, so no call below resolves
 * by its name alone; callers that pass different classes type nothing. */
TEST(parameters_typed_by_their_callers)
{
    unit_write_str("pt/js/handlers.js", "function connectHandler(self) {\n"
                                        "  return function () { self.setStatus('connect'); };\n"
                                        "}\n"
                                        "function either(x) { x.setStatus('?'); }\n"
                                        "exports.connectHandler = connectHandler;\n"
                                        "exports.either = either;\n");
    unit_write_str("pt/js/client.js",
                   "const handlers = require('./handlers');\n"
                   "class Client {\n"
                   "  setStatus(s) { this.s = s; }\n"
                   "  connect(stream) {\n"
                   "    const _this = this;\n"
                   "    stream.once('connect', handlers.connectHandler(_this));\n"
                   "    handlers.either(this);\n"
                   "  }\n"
                   "}\n"
                   "class Pool {\n"
                   "  setStatus(s) { this.s = s; }\n"
                   "  drain() { handlers.either(this); }\n"
                   "}\n"
                   "module.exports = { Client, Pool };\n");
    unit_write_str("pt/py/pkg/__init__.py", "");
    unit_write_str("pt/py/pkg/channel.py", "class Channel:\n"
                                           "    def __init__(self, transport, chanid):\n"
                                           "        self.transport = transport\n"
                                           "        self.chanid = chanid\n"
                                           "\n"
                                           "    def send(self, data):\n"
                                           "        self.transport._send(data)\n"
                                           "\n"
                                           "\n"
                                           "class Loopback:\n"
                                           "    def _send(self, data):\n"
                                           "        pass\n"
                                           "\n"
                                           "    def report(self, what):\n"
                                           "        pass\n");
    unit_write_str("pt/py/pkg/transport.py", "from pkg.channel import Channel\n"
                                             "\n"
                                             "\n"
                                             "def _note(t, what):\n"
                                             "    t.report(what)\n"
                                             "\n"
                                             "\n"
                                             "class Transport:\n"
                                             "    def open_channel(self, chanid):\n"
                                             "        _note(self, 'open')\n"
                                             "        return Channel(self, chanid)\n"
                                             "\n"
                                             "    def _send(self, data):\n"
                                             "        pass\n"
                                             "\n"
                                             "    def report(self, what):\n"
                                             "        pass\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("pt"), unit_tmp_path("pt.graph"), &o, NULL);
    CHECK(has_call(g, "js/handlers.connectHandler", "js/client.Client.setStatus"));
    CHECK(!has_call(g, "js/handlers.connectHandler", "js/client.Pool.setStatus"));
    CHECK(!has_call(g, "js/handlers.either", "js/client.Client.setStatus"));
    CHECK(!has_call(g, "js/handlers.either", "js/client.Pool.setStatus"));
    CHECK(has_call(g, "pkg.channel.Channel.send", "pkg.transport.Transport._send"));
    CHECK(!has_call(g, "pkg.channel.Channel.send", "pkg.channel.Loopback._send"));
    CHECK(has_call(g, "pkg.transport._note", "pkg.transport.Transport.report"));
    CHECK(!has_call(g, "pkg.transport._note", "pkg.channel.Loopback.report"));
    graph_close(g);
}

/* A class handed over to be made later types the parameter it is handed
 * to as that class itself: `super(config, MyConnection)` in a driver's
 * subclass, then `this.connection = new connection(config)` in the base's
 * constructor, read where it is written, makes the attribute an instance
 * of it. Callers that hand different classes type nothing. */
TEST(parameters_holding_a_class_typed_by_their_callers)
{
    unit_write_str("pc/driver.js",
                   "class Connection { execute(sql) { return sql; } }\n"
                   "class MyConnection extends Connection {\n"
                   "  execute(sql) { return sql + ';'; }\n"
                   "}\n"
                   "class OtherConnection extends Connection {\n"
                   "  execute(sql) { return sql + '!'; }\n"
                   "}\n"
                   "class Driver {\n"
                   "  constructor(config, connection) {\n"
                   "    this.connection = new connection(config);\n"
                   "  }\n"
                   "  run(sql) { return this.connection.execute(sql); }\n"
                   "}\n"
                   "class MyDriver extends Driver {\n"
                   "  constructor(config) { super(config, MyConnection); }\n"
                   "}\n"
                   "class Pool {\n"
                   "  constructor(make) { this.item = new make(); }\n"
                   "  use() { return this.item.execute('x'); }\n"
                   "}\n"
                   "const a = new Pool(MyConnection), b = new Pool(OtherConnection);\n"
                   "module.exports = { MyDriver, a, b };\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("pc"), unit_tmp_path("pc.graph"), &o, NULL);
    CHECK(has_call(g, "driver.Driver.run", "driver.MyConnection.execute"));
    CHECK(!has_call(g, "driver.Driver.run", "driver.OtherConnection.execute"));
    CHECK(!has_call(g, "driver.Pool.use", "driver.MyConnection.execute"));
    CHECK(!has_call(g, "driver.Pool.use", "driver.OtherConnection.execute"));
    graph_close(g);
}

/* In Python as in TS/JS: a method that runs the work it is handed and
 * logs the statement through a wrapper is the statement's emitter, once
 * for the text its callers build at run time, once per literal; a word a
 * method of a class named like an unknown receiver returns is the text
 * a wrapper's caller hands it. */
TEST(python_functions_running_handed_work)
{
    unit_write_str("prun/pkg/__init__.py", "");
    unit_write_str("prun/pkg/conn.py", "import logging\n"                                   /* 1 */
                                       "log = logging.getLogger(__name__)\n"                /* 2 */
                                       "class Conn:\n"                                      /* 3 */
                                       "    def log_query(self, query, took=None):\n"       /* 4 */
                                       "        log.debug(query)\n"                         /* 5 */
                                       "    def execute_query(self, query, run):\n"         /* 6 */
                                       "        rows = run()\n"                             /* 7 */
                                       "        self.log_query(query, took=1)\n"            /* 8 */
                                       "        return rows\n"                              /* 9 */
                                       "    def execute(self, q):\n"                        /* 10 */
                                       "        sql = q.strip()\n"                          /* 11 */
                                       "        return self.execute_query(sql, self.run)\n" /* 12 */
                                       "    def ping(self):\n"                              /* 13 */
                                       "        return self.execute_query('select 1', self.run)\n"
                                       "    def commit(self):\n" /* 15 */
                                       "        self.log_query(self.dialect.commit_sql())\n"
                                       "class Dialect:\n"
                                       "    def commit_sql(self):\n"
                                       "        return 'commit'\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("prun"), unit_tmp_path("prun.graph"), &o, NULL);
    static const char *const ping[] = {"select 1"};
    unit_check_run_time_sites(g, "pkg.conn.Conn.execute_query", 8, ping, 1);
    uint32_t first;
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.conn.Conn.execute"), &first), 0);
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.conn.Conn.ping"), &first), 0);
    graph_emit e = unit_emit_at(g, "pkg.conn.Conn.commit", 16);
    CHECK_STR(e.tmpl, "commit");
    graph_close(g);
}

/* A loop going through the statements a method of ours returns logs
 * each: the word it returns, and the format a local among them holds. */
TEST(python_a_loop_logs_each_statement_a_method_returns)
{
    unit_write_str("ploop/pkg/__init__.py", "");
    unit_write_str("ploop/pkg/db.py",
                   "import logging\n"                                                 /* 1 */
                   "log = logging.getLogger(__name__)\n"                              /* 2 */
                   "class Platform:\n"                                                /* 3 */
                   "    def begin_sql(self, level=None):\n"                           /* 4 */
                   "        if level:\n"                                              /* 5 */
                   "            sql = 'set transaction isolation level %s' % level\n" /* 6 */
                   "            return [sql, 'begin']\n"                              /* 7 */
                   "        return ['begin']\n"                                       /* 8 */
                   "class Conn:\n"                                                    /* 9 */
                   "    def log_query(self, query):\n"                                /* 10 */
                   "        log.info(query)\n"                                        /* 11 */
                   "    def begin(self, level=None):\n"                               /* 12 */
                   "        for q in self.platform.begin_sql(level):\n"               /* 13 */
                   "            self.log_query(q)\n");                                /* 14 */
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("ploop"), unit_tmp_path("ploop.graph"), &o, NULL);
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "pkg.db.Conn.begin"), &first);
    CHECK_INT(n, 2);
    uint32_t words = 0, formats = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        CHECK_INT(e.kind, GRAPH_EMIT_LOG);
        CHECK_INT(e.line, 14);
        words += strcmp(e.tmpl, "begin") == 0;
        formats += strcmp(e.tmpl, "set transaction isolation level %s") == 0;
    }
    CHECK_INT(words, 1);
    CHECK_INT(formats, 1);
    graph_close(g);
}

/* A logging function of the package's own that writes its callers'
 * arguments, joined, to the process's standard error: each call is a
 * site with the caller's words, whether the join is written in the
 * write or bound to a local first. */
TEST(python_a_function_writing_its_joined_args_to_stderr_logs_them)
{
    unit_write_str("pwrite/pkg/__init__.py", "");
    unit_write_str("pwrite/pkg/out.py",
                   "import sys\n"                             /* 1 */
                   "def msg(*message, **kw):\n"               /* 2 */
                   "    text = ' '.join(map(str, message))\n" /* 3 */
                   "    sys.stderr.write(text + '\\n')\n"     /* 4 */
                   "def note(*words):\n"                      /* 5 */
                   "    sys.stdout.write('note: ' + ' '.join(str(w) for w in words) + '\\n')\n"
                   "class Command:\n"                             /* 7 */
                   "    def __init__(self, stderr=None):\n"       /* 8 */
                   "        self.stderr = stderr or sys.stderr\n" /* 9 */
                   "    def fail(self, path):\n"                  /* 10 */
                   "        self.stderr.write(f'cannot open {path}\\n')\n");
    unit_write_str("pwrite/pkg/app.py", "from . import out\n"                                /* 1 */
                                        "def lost(n):\n"                                     /* 2 */
                                        "    out.msg('Connection lost after', n, 'bytes')\n" /* 3 */
                                        "def kept(n):\n"                                     /* 4 */
                                        "    out.note('kept', n, 'entries')\n");             /* 5 */
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("pwrite"), unit_tmp_path("pwrite.graph"), &o, NULL);
    const char *want[2][2] = {{"pkg.app.lost", "Connection lost after %s bytes\n"},
                              {"pkg.app.kept", "note: kept %s entries\n"}};
    for (int k = 0; k < 2; k++) {
        uint32_t first, n = graph_symbol_emits(g, unit_sym(g, want[k][0]), &first);
        CHECK_INT(n, 1);
        graph_emit e;
        graph_get_emit(g, first, &e);
        CHECK_INT(e.kind, GRAPH_EMIT_LOG);
        CHECK_STR(e.tmpl, want[k][1]);
    }
    uint32_t first;
    CHECK_INT(graph_symbol_emits(g, unit_sym(g, "pkg.out.Command.fail"), &first), 1);
    graph_emit e;
    graph_get_emit(g, first, &e);
    CHECK_INT(e.kind, GRAPH_EMIT_PRINT);
    CHECK_STR(e.tmpl, "cannot open %s\n");
    graph_close(g);
}

/* The pieces a function puts into a list it returns (whole or joined) are
 * formats it returns, not calls of a logging function; those of a list
 * it keeps stay candidate calls. What the function returns is the
 * message of a call logging it, through a const local too. */
TEST(python_and_js_pieces_of_a_returned_list_are_returned_formats)
{
    unit_write_str("lpiece/pkg/__init__.py", "");
    unit_write_str("lpiece/pkg/fmt.py",
                   "def locations(urls):\n"                                  /* 1 */
                   "    lines = list()\n"                                    /* 2 */
                   "    lines.append('Looking in indexes: %s' % urls)\n"     /* 3 */
                   "    lines.insert(0, 'Locations follow')\n"               /* 4 */
                   "    return lines\n"                                      /* 5 */
                   "def check(values, log):\n"                               /* 6 */
                   "    errors = []\n"                                       /* 7 */
                   "    errors.append(f'bad value {values[0]}')\n"           /* 8 */
                   "    return len(errors)\n");                              /* 9 */
    unit_write_str("lpiece/fmt.js", "function summary(s) {\n"                /* 1 */
                                    "  const out = [];\n"                    /* 2 */
                                    "  out.push(`Serving ${s.n} files`);\n"  /* 3 */
                                    "  return out.join('\\n');\n"            /* 4 */
                                    "}\n"                                    /* 5 */
                                    "function keep(s, errs) {\n"             /* 6 */
                                    "  const seen = [];\n"                   /* 7 */
                                    "  seen.push(`Serving ${s.n} files`);\n" /* 8 */
                                    "  return seen.length;\n"                /* 9 */
                                    "}\n"                                    /* 10 */
                                    "function show(s) {\n"                   /* 11 */
                                    "  const text = summary(s);\n"           /* 12 */
                                    "  console.log(text);\n"                 /* 13 */
                                    "}\n"
                                    "module.exports = { summary, keep, show };\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("lpiece"), unit_tmp_path("lpiece.graph"), &o, NULL);
    static const struct {
        const char *sym, *tmpl;
        int kind;
    } want[] = {{"pkg.fmt.locations", "Looking in indexes: %s", GRAPH_EMIT_CONST},
                {"pkg.fmt.locations", "Locations follow", GRAPH_EMIT_CONST},
                {"pkg.fmt.check", "bad value %s", GRAPH_EMIT_CALL},
                {"fmt.summary", "Serving %s files", GRAPH_EMIT_CONST},
                {"fmt.keep", "Serving %s files", GRAPH_EMIT_CALL},
                /* a const local bound to the formatter's result, logged */
                {"fmt.show", "Serving %s files", GRAPH_EMIT_LOG}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t first, n = graph_symbol_emits(g, unit_sym(g, want[k].sym), &first), found = 0;
        for (uint32_t i = first; i < first + n; i++) {
            graph_emit e;
            graph_get_emit(g, i, &e);
            if (strcmp(e.tmpl, want[k].tmpl) == 0) {
                CHECK_INT(e.kind, want[k].kind);
                found++;
            }
        }
        CHECK_INT(found, 1);
    }
    graph_close(g);
}

/* A message encoded to bytes (`("... %d" % n).encode("ascii")`, handed
 * to a progress callback) keeps its text, and a literal repeated a
 * literal number of times (`"=" * 6 + " Summary"`) is written out. */
TEST(python_encoded_and_repeated_literals_are_message_text)
{
    unit_write_str("penc/pkg/__init__.py", "");
    unit_write_str(
        "penc/pkg/pack.py",
        "def copy(entries, progress):\n"
        "    for i, e in enumerate(entries):\n"
        "        progress(('copying pack entries: %d/%d\\r' % (i, len(entries))).encode('ascii'))\n"
        "def show(out):\n"
        "    out.write('=' * 6 + ' Summary ' + 3 * '-' + '\\n')\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("penc"), unit_tmp_path("penc.graph"), &o, NULL);
    static const char *const want[][2] = {{"pkg.pack.copy", "copying pack entries: %d/%d\r"},
                                          {"pkg.pack.show", "====== Summary ---\n"}};
    for (int k = 0; k < 2; k++) {
        uint32_t first, n = graph_symbol_emits(g, unit_sym(g, want[k][0]), &first);
        CHECK_INT(n, 1);
        graph_emit e;
        graph_get_emit(g, first, &e);
        CHECK_INT(e.kind, GRAPH_EMIT_CALL);
        CHECK_STR(e.tmpl, want[k][1]);
    }
    graph_close(g);
}

/* The fields a logger keeps apart from the message (an object, or a
 * value no directive takes): the message alone is a reading too, a
 * fallback beside the one util.format would print. */
TEST(js_fields_after_the_message_are_a_second_reading)
{
    unit_write_str("jfields/group.js",
                   "class Group {\n"                                                   /* 1 */
                   "  joined(name) {\n"                                                /* 2 */
                   "    const payload = { groupId: this.groupId };\n"                  /* 3 */
                   "    this.logger.info('Consumer has joined the group', payload);\n" /* 4 */
                   "    this.logger.info('%s joined', name);\n"                        /* 5 */
                   "    this.logDebug('Connecting', { ssl: true });\n"                 /* 6 */
                   "  }\n"
                   "}\n"
                   "module.exports = { Group };\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("jfields"), unit_tmp_path("jfields.graph"), &o, NULL);
    static const struct {
        uint32_t line;
        const char *full, *alone;
    } want[] = {{4, "Consumer has joined the group %s", "Consumer has joined the group"},
                {5, "%s joined", NULL},
                {6, "Connecting %s", "Connecting"}};
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "group.Group.joined"), &first);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        uint32_t full = 0, alone = 0, at = 0;
        for (uint32_t i = 0; i < n; i++) {
            graph_emit e;
            graph_get_emit(g, first + i, &e);
            if (e.line != want[k].line)
                continue;
            at++;
            full += strcmp(e.tmpl, want[k].full) == 0;
            alone += want[k].alone && strcmp(e.tmpl, want[k].alone) == 0 &&
                     (e.flags & GRAPH_EF_FALLBACK);
        }
        uint32_t readings = want[k].alone ? 2 : 1;
        CHECK_INT(at, readings);
        CHECK_INT(full, 1);
        CHECK_INT(alone, readings - 1);
    }
    graph_close(g);
}

/* The word-like literals a function returns, which a message's value
 * may name a variant by (graph_literal_at). */
TEST(returned_words_are_kept)
{
    unit_write_str("words/transport.ts",
                   "export class Transport {\n"
                   "  modes(): string[] { return ['polling', 'websocket']; }\n"
                   "  name(): string { return \"http-1\"; }\n"
                   "  note(): string { const s = 'kept out'; return s; }\n"
                   "}\n"
                   "export class Fast extends Transport {\n"
                   "  modes(): string[] { return ['websocket']; }\n"
                   "  check(m: string): boolean { return m === 'polling'; }\n"
                   "}\n");
    unit_write_str("words/base.py", "class Base:\n"
                                    "    def modes(self):\n"
                                    "        return ['threading', 'x', b'raw', 'two words']\n"
                                    "    def kind(self):\n"
                                    "        return 'posix'\n"
                                    "    def used(self, m):\n"
                                    "        return m == 'select'\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("words"), unit_tmp_path("words.graph"), &o, NULL);
    uint32_t own[4];
    CHECK_INT(unit_literal_owners(g, "polling", own, 4), 1);
    CHECK_INT(own[0], unit_sym(g, "transport.Transport.modes"));
    CHECK_INT(unit_literal_owners(g, "websocket", own, 4), 2);
    CHECK_INT(unit_literal_owners(g, "http-1", own, 4), 1);
    CHECK_INT(unit_literal_owners(g, "threading", own, 4), 1);
    CHECK_INT(own[0], unit_sym(g, "base.Base.modes"));
    CHECK_INT(unit_literal_owners(g, "posix", own, 4), 1);
    /* Too short, not a word, compared rather than returned. */
    CHECK_INT(unit_literal_owners(g, "x", own, 4), 0);
    CHECK_INT(unit_literal_owners(g, "two words", own, 4), 0);
    CHECK_INT(unit_literal_owners(g, "select", own, 4), 0);
    CHECK_INT(unit_literal_owners(g, "kept out", own, 4), 0);
    graph_close(g);
}

/* A registry's words stand for the classes they key, in TypeScript by a
 * name or a member of an imported namespace; a value that is no class of
 * ours keys nothing. (Python's string paths: mapper_variants_told_by_a_
 * registry_s_word.) */
TEST(registry_words_name_their_classes)
{
    unit_write_str("kinds/kinds.ts", "import { SyncWorker } from './sync';\n"
                                     "import * as t from './threads';\n"
                                     "export const KINDS = {\n"
                                     "  sync: SyncWorker,\n"
                                     "  'threads': t.ThreadWorker,\n"
                                     "  biggest: Math.max,\n"
                                     "  ab: SyncWorker,\n"
                                     "};\n");
    unit_write_str("kinds/sync.ts", "export class SyncWorker { run(): void {} }\n");
    unit_write_str("kinds/threads.ts", "export class ThreadWorker { run(): void {} }\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("kinds"), unit_tmp_path("kinds.graph"), &o, NULL);
    uint32_t own[4];
    CHECK_INT(unit_literal_owners(g, "sync", own, 4), 1);
    CHECK_INT(own[0], unit_sym(g, "sync.SyncWorker"));
    CHECK_INT(unit_literal_owners(g, "threads", own, 4), 1);
    CHECK_INT(own[0], unit_sym(g, "threads.ThreadWorker"));
    CHECK_INT(unit_literal_owners(g, "biggest", own, 4), 0);
    CHECK_INT(unit_literal_owners(g, "ab", own, 4), 0); /* too short for a word */
    graph_close(g);
}

TEST(shop_symbols_and_spans)
{
    graph_index_stats st;
    graph *g = open_shop(&st);
    CHECK_INT(st.files_indexed, 9);
    CHECK_INT(graph_nfiles(g), 9);
    graph_symbol s;
    graph_get_symbol(g, unit_sym(g, "shop.orders.OrderService.place"), &s);
    CHECK_INT(s.kind, GRAPH_SYM_METHOD);
    CHECK_STR(s.name, "place");
    CHECK_STR(s.file, "shop/orders.py");
    CHECK_INT(s.start_line, 16);
    CHECK_INT(s.end_line, 24);
    graph_symbol parent;
    graph_get_symbol(g, s.parent, &parent);
    CHECK_STR(parent.qualname, "shop.orders.OrderService");
    /* Packages: __init__ is the package; a directory without one is not. */
    graph_get_symbol(g, unit_sym(g, "shop"), &s);
    CHECK_INT(s.kind, GRAPH_SYM_MODULE);
    CHECK_STR(s.file, "shop/__init__.py");
    graph_get_symbol(g, unit_sym(g, "run.main"), &s);
    CHECK_STR(s.file, "tools/run.py");
    graph_get_symbol(g, unit_sym(g, "shop.payments.gateway.CardGateway._send"), &s);
    CHECK(s.flags & GRAPH_SF_LOGS);
    CHECK_STR(graph_root(g, 0), unit_fixture("repos/shop"));
    graph_close(g);
}

TEST(shop_cross_file_resolution)
{
    graph *g = open_shop(NULL);
    /* self.x with the type from a constructor call; a package re-export. */
    CHECK_EDGE(g, "shop.orders.OrderService.place", "shop.inventory.Inventory.reserve",
               GRAPH_EDGE_CALLS);
    /* self.gateway is annotated Gateway: the base method, and the
     * override reached through self._send inside it. */
    CHECK_EDGE(g, "shop.orders.OrderService.place", "shop.payments.gateway.Gateway.charge",
               GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "shop.payments.gateway.Gateway.charge", "shop.payments.gateway.Gateway.validate",
               GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "shop.payments.gateway.Gateway.charge", "shop.payments.gateway.CardGateway._send",
               GRAPH_EDGE_CALLS);
    /* Constructors through the class name, relative imports two levels up. */
    CHECK_EDGE(g, "shop.orders.OrderService.__init__", "shop.inventory.Inventory.__init__",
               GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "shop.payments.gateway.CardGateway._send", "shop.errors.PaymentError.__init__",
               GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "shop.payments.gateway.CardGateway._send", "shop.log.log_event",
               GRAPH_EDGE_CALLS);
    /* Absolute imports from a script outside the package. */
    CHECK_EDGE(g, "run.main", "shop.orders.OrderService.place", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "run.main", "shop.orders.OrderService.__init__", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "run.main", "shop.errors.ShopError", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "shop.orders", "shop.errors", GRAPH_EDGE_IMPORTS);
    CHECK_EDGE(g, "shop.payments.gateway.CardGateway", "shop.payments.gateway.Gateway",
               GRAPH_EDGE_INHERITS);
    CHECK_EDGE(g, "shop.errors.PaymentError", "shop.errors.ShopError", GRAPH_EDGE_INHERITS);
    CHECK_EDGE(g, "shop.orders.OrderService.__init__", "shop.payments.gateway.Gateway",
               GRAPH_EDGE_USES);
    CHECK_EDGE(g, "shop.orders.OrderService.place", "shop.orders.OrderService",
               GRAPH_EDGE_MEMBER_OF);
    /* In-edges mirror out-edges. */
    uint32_t n, target = unit_sym(g, "shop.inventory.Inventory.reserve");
    const graph_edge *in = graph_in_edges(g, target, &n);
    bool found = false;
    for (uint32_t i = 0; i < n; i++)
        found |= in[i].node == unit_sym(g, "shop.orders.OrderService.place") &&
                 in[i].type == GRAPH_EDGE_CALLS;
    CHECK(found);
    graph_stats st;
    graph_get_stats(g, &st);
    CHECK(st.calls_internal > 0);
    CHECK(st.calls_internal_resolved * 10 >= st.calls_internal * 9);
    graph_close(g);
}

TEST(shop_emit_sites)
{
    graph *g = open_shop(NULL);
    uint32_t first;
    uint32_t n = graph_symbol_emits(g, unit_sym(g, "shop.orders.OrderService.place"), &first);
    CHECK_INT(n, 2);
    graph_emit e;
    graph_get_emit(g, first, &e);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK_INT(e.level, GRAPH_LEVEL_INFO);
    CHECK_STR(e.tmpl, "placing order %s");
    CHECK_STR(e.logger, "shop.orders"); /* __name__ is the module */
    CHECK_INT(e.line, 17);
    graph_get_emit(g, first + 1, &e);
    CHECK_INT(e.style, GRAPH_STYLE_REF);
    CHECK_STR(e.ref, "errors.OUT_OF_STOCK");
    CHECK(e.ref_const != GRAPH_NONE);
    graph_emit c;
    graph_get_emit(g, e.ref_const, &c);
    CHECK_INT(c.kind, GRAPH_EMIT_CONST);
    CHECK_STR(c.name, "OUT_OF_STOCK");
    CHECK_STR(c.tmpl, "item %s is out of stock");
    graph_symbol owner;
    graph_get_symbol(g, c.symbol, &owner);
    CHECK_STR(owner.qualname, "shop.errors");
    /* A constant imported by name and passed to a wrapper (log_event
     * logs its template parameter): the call is a site of the caller. */
    n = graph_symbol_emits(g, unit_sym(g, "shop.payments.gateway.CardGateway._send"), &first);
    CHECK_INT(n, 3);
    graph_get_emit(g, first, &e);
    CHECK_INT(e.kind, GRAPH_EMIT_LOG);
    CHECK_INT(e.style, GRAPH_STYLE_REF);
    CHECK(e.flags & GRAPH_EF_WRAPPER);
    CHECK_INT(e.level, GRAPH_LEVEL_INFO);
    CHECK_STR(e.ref, "PAYMENT_DECLINED");
    CHECK(e.ref_const != GRAPH_NONE);
    graph_get_emit(g, e.ref_const, &c);
    CHECK_STR(c.name, "PAYMENT_DECLINED");
    /* raise PaymentError(order_id, "limit"): a candidate, made by a
     * constructor (its text is logged elsewhere, if at all). */
    graph_get_emit(g, first + 1, &e);
    CHECK_INT(e.kind, GRAPH_EMIT_CALL);
    CHECK(e.flags & GRAPH_EF_CTOR);
    CHECK_STR(e.method, "PaymentError");
    CHECK_STR(e.tmpl, "limit");
    graph_get_emit(g, first + 2, &e);
    CHECK_STR(e.tmpl, "charged %s cents for %s");
    /* print() in _notify */
    n = graph_symbol_emits(g, unit_sym(g, "shop.orders.OrderService._notify"), &first);
    CHECK_INT(n, 1);
    graph_get_emit(g, first, &e);
    CHECK_INT(e.kind, GRAPH_EMIT_PRINT);
    CHECK_STR(e.tmpl, "order %s %s");
    graph_close(g);
}

TEST(find_exact_suffix_ambiguous)
{
    graph *g = open_shop(NULL);
    uint32_t ids[8];
    CHECK_INT(graph_find(g, "shop.inventory.Inventory", ids, 8), 1);
    CHECK_INT(graph_find(g, "Inventory.reserve", ids, 8), 1);
    CHECK_INT(graph_find(g, "__init__", ids, 8), 3);     /* ambiguous: three constructors */
    CHECK_INT(graph_find(g, "nory.reserve", ids, 8), 0); /* not on a boundary */
    CHECK_INT(graph_find(g, "no.such.thing", ids, 8), 0);
    graph_close(g);
}

static void read_all(const char *path, char **data, size_t *n)
{
    CHECK_OK(core_read_file(path, 1u << 30, data, n));
}

TEST(deterministic_bytes)
{
    const char *roots[] = {unit_fixture("repos/shop")};
    graph_index_opts o = quiet_opts();
    o.threads = 1;
    CHECK_OK(graph_index(roots, 1, unit_tmp_path("a.graph"), &o, NULL));
    o.threads = 4;
    CHECK_OK(graph_index(roots, 1, unit_tmp_path("b.graph"), &o, NULL));
    CHECK_OK(graph_index(roots, 1, unit_tmp_path("c.graph"), &o, NULL));
    char *a, *b, *c;
    size_t na, nb, nc;
    read_all(unit_tmp_path("a.graph"), &a, &na);
    read_all(unit_tmp_path("b.graph"), &b, &nb);
    read_all(unit_tmp_path("c.graph"), &c, &nc);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    CHECK(nb == nc && memcmp(b, c, nb) == 0);
    free(a);
    free(b);
    free(c);
}

/* The file is little-endian whatever the machine: decoded byte by byte,
 * its fields say what graph_open() reads through the structs. */
TEST(graph_file_is_little_endian)
{
    graph *g = open_shop(NULL);
    char *data;
    size_t n;
    read_all(unit_tmp_path("shop.graph"), &data, &n);
    const unsigned char *p = (const unsigned char *)data;
    CHECK(p[12] == 4 && p[13] == 3 && p[14] == 2 && p[15] == 1); /* the byte-order mark */
    CHECK(core_get_le(p + 8, 4) == GF_VERSION);
    CHECK(core_get_le(p + 16, 8) == n);
    uint32_t nsec = (uint32_t)core_get_le(p + 24, 4);
    uint64_t sym_at = 0, edge_at = 0, stats_at = 0;
    for (uint32_t i = 0; i < nsec; i++) {
        const unsigned char *s = p + sizeof(gf_header) + i * sizeof(gf_section);
        uint32_t id = (uint32_t)core_get_le(s, 4);
        uint64_t off = core_get_le(s + 8, 8);
        sym_at = id == GF_SYMBOLS ? off : sym_at;
        edge_at = id == GF_OUT_EDGES ? off : edge_at;
        stats_at = id == GF_STATS ? off : stats_at;
    }
    CHECK(sym_at && edge_at && stats_at);
    graph_symbol s;
    graph_get_symbol(g, 1, &s);
    const unsigned char *rec = p + sym_at + sizeof(gf_symbol);
    CHECK(core_get_le(rec + offsetof(gf_symbol, start_line), 4) == s.start_line);
    CHECK(core_get_le(rec + offsetof(gf_symbol, end_line), 4) == s.end_line);
    CHECK(rec[offsetof(gf_symbol, kind)] == s.kind);
    const uint32_t *offs;
    const graph_edge *edges;
    graph_csr(g, false, &offs, &edges);
    uint32_t bits = (uint32_t)core_get_le(p + edge_at + offsetof(graph_edge, weight), 4);
    float w;
    memcpy(&w, &bits, sizeof w);
    CHECK(core_get_le(p + edge_at, 4) == edges[0].node && w == edges[0].weight);
    graph_stats st;
    graph_get_stats(g, &st);
    CHECK(core_get_le(p + stats_at, 8) == st.files && st.files > 0);
    free(data);
    graph_close(g);
}

TEST(deterministic_with_duplicates)
{
    /* Groups of identical files, of different sizes, so that which copy a
     * thread extracts first varies from run to run. */
    char path[64], body[256];
    for (int i = 0; i < 120; i++) {
        snprintf(path, sizeof path, "dup/d%03d/m%d.py", i, i % 7);
        int group = i % 12;
        core_buf b = {0};
        for (int k = 0; k < 1 + group * 40; k++) {
            snprintf(body, sizeof body, "def f%d_%d():\n    return g(%d)\n", group, k, k);
            core_buf_puts(&b, body);
        }
        unit_write(path, b.data, b.len);
        core_buf_free(&b);
    }
    /* Taken once: the loop below would outlast unit_tmp_path()'s ring. */
    const char *roots[] = {unit_tmp_path("dup")};
    const char *d0 = unit_tmp_path("d0.graph"), *d1 = unit_tmp_path("d1.graph");
    graph_index_opts o = quiet_opts();
    o.threads = 4;
    graph_index_stats st;
    CHECK_OK(graph_index(roots, 1, d0, &o, &st));
    CHECK_INT(st.files_duplicate, 108);
    char *first;
    size_t nfirst;
    read_all(d0, &first, &nfirst);
    for (int run = 1; run < 6; run++) {
        o.threads = run % 2 ? 4 : 1;
        CHECK_OK(graph_index(roots, 1, d1, &o, NULL));
        char *again;
        size_t n;
        read_all(d1, &again, &n);
        CHECK(n == nfirst && memcmp(first, again, n) == 0);
        free(again);
    }
    /* The first file of each group in path order is the original. */
    graph *g = unit_graph_open(d0);
    for (uint32_t i = 0; i < graph_nfiles(g); i++) {
        graph_file_info fi;
        graph_get_file(g, i, &fi);
        bool dup = (fi.flags & GRAPH_FF_DUPLICATE) != 0;
        CHECK(dup == (i >= 12));
    }
    graph_close(g);
    free(first);
}

/* Rewrites the header CRC after a deliberate change, so that the
 * structural checks (not the checksum) must catch it. */
static void fix_crc(char *data, size_t n)
{
    gf_header h;
    memcpy(&h, data, sizeof h);
    h.crc = core_crc32(0, data + sizeof h, n - sizeof h);
    memcpy(data, &h, sizeof h);
}

static int open_bytes(const char *data, size_t n, char *why, size_t whylen)
{
    const char *p = unit_tmp_path("bad.graph");
    CHECK_OK(core_write_file_atomic(p, data, n));
    graph *g = NULL;
    int rc = graph_open(p, &g, why, whylen);
    if (rc == 0)
        graph_close(g);
    return rc;
}

TEST(corrupted_graph_files_are_rejected)
{
    graph *g = open_shop(NULL);
    graph_close(g);
    char *data;
    size_t n;
    read_all(unit_tmp_path("shop.graph"), &data, &n);
    char *copy = core_xmalloc(n);
    char why[256];

    CHECK_INT(open_bytes(data, 10, why, sizeof why), CORE_EFORMAT);
    memcpy(copy, data, n);
    copy[0] = 'X';
    CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "not a pmrag graph file") != NULL);
    /* Truncated. */
    CHECK_INT(open_bytes(data, n - 8, why, sizeof why), CORE_ECORRUPT);
    CHECK(strstr(why, "truncated") != NULL);
    /* Another version; the other byte order. */
    memcpy(copy, data, n);
    gf_header h;
    memcpy(&h, copy, sizeof h);
    h.version = 99;
    memcpy(copy, &h, sizeof h);
    CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_EVERSION);
    CHECK(strstr(why, "version 99") != NULL);
    memcpy(&h, data, sizeof h);
    h.byte_order = 0x04030201u;
    memcpy(copy, &h, sizeof h);
    CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_EENDIAN);
    /* Any flipped byte after the header: the checksum. */
    for (size_t off = sizeof(gf_header); off < n; off += n / 97 + 1) {
        memcpy(copy, data, n);
        copy[off] ^= 0x5a;
        CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_ECORRUPT);
    }
    /* Valid checksum, broken structure: a symbol's file index, an edge's
     * node, a section offset. */
    memcpy(&h, data, sizeof h);
    gf_section secs[GF__SECTION_COUNT];
    memcpy(secs, data + sizeof h, h.nsections * sizeof(gf_section));
    for (uint32_t i = 0; i < h.nsections; i++) {
        memcpy(copy, data, n);
        if (secs[i].id == GF_SYMBOLS) {
            gf_symbol s;
            memcpy(&s, copy + secs[i].offset, sizeof s);
            s.file = 1000000;
            memcpy(copy + secs[i].offset, &s, sizeof s);
        } else if (secs[i].id == GF_OUT_EDGES && secs[i].count) {
            graph_edge e;
            memcpy(&e, copy + secs[i].offset, sizeof e);
            e.node = 0xfffffff0u;
            memcpy(copy + secs[i].offset, &e, sizeof e);
        } else if (secs[i].id == GF_STRTAB) {
            copy[secs[i].offset + secs[i].count - 1] = 'x';
        } else {
            continue;
        }
        fix_crc(copy, n);
        CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_ECORRUPT);
    }
    memcpy(copy, data, n);
    gf_section s0;
    memcpy(&s0, copy + sizeof h, sizeof s0);
    s0.offset = n + 8;
    memcpy(copy + sizeof h, &s0, sizeof s0);
    fix_crc(copy, n);
    CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_ECORRUPT);
    /* Missing file: errno. */
    graph *none;
    CHECK_INT(graph_open(unit_tmp_path("missing.graph"), &none, why, sizeof why), -ENOENT);
    free(copy);
    free(data);
}

/* Found by fuzz_graph: an infinite edge weight passed graph_open (only
 * NaN and negatives were refused), and the file then failed later, as
 * invalid arguments to the PPR network. */
/* graph_load's promise: the graph is a copy, so the file written over in
 * place (here truncated to nothing, then filled with other bytes) changes
 * nothing of it; and a bad file is refused as graph_open refuses it. */
TEST(graph_load_is_a_copy)
{
    graph *g = open_shop(NULL);
    uint32_t nsyms = graph_nsymbols(g);
    graph_close(g);
    const char *path = unit_tmp_path("shop.graph");
    char why[256];
    CHECK_OK(graph_load(path, &g, why, sizeof why));
    CHECK_INT(graph_nsymbols(g), nsyms);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (int i = 0; i < 100000; i++)
        fputc('x', f);
    fclose(f);
    uint32_t ids[8];
    CHECK_INT(graph_find(g, "shop.inventory.Inventory", ids, 8), 1);
    graph_symbol sy;
    graph_get_symbol(g, ids[0], &sy);
    CHECK(strcmp(sy.qualname, "shop.inventory.Inventory") == 0);
    graph_close(g);
    CHECK_INT(graph_load(path, &g, why, sizeof why), CORE_EFORMAT);
    CHECK(strstr(why, "not a pmrag graph file") != NULL);
    CHECK(graph_load(unit_tmp_path("no-such.graph"), &g, why, sizeof why) == -ENOENT);
}

TEST(infinite_edge_weights_are_rejected)
{
    graph *g = open_shop(NULL);
    graph_close(g);
    char *data;
    size_t n;
    read_all(unit_tmp_path("shop.graph"), &data, &n);
    gf_header h;
    memcpy(&h, data, sizeof h);
    gf_section secs[GF__SECTION_COUNT];
    memcpy(secs, data + sizeof h, h.nsections * sizeof(gf_section));
    char why[256];
    int tried = 0;
    for (uint32_t i = 0; i < h.nsections; i++) {
        if ((secs[i].id != GF_OUT_EDGES && secs[i].id != GF_IN_EDGES) || !secs[i].count)
            continue;
        static const float bad[] = {INFINITY, -INFINITY, NAN, -1.0f};
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            char *copy = core_xmalloc(n);
            memcpy(copy, data, n);
            graph_edge e;
            memcpy(&e, copy + secs[i].offset, sizeof e);
            e.weight = bad[k];
            memcpy(copy + secs[i].offset, &e, sizeof e);
            fix_crc(copy, n);
            CHECK_INT(open_bytes(copy, n, why, sizeof why), CORE_ECORRUPT);
            CHECK(strstr(why, "bad node, type or weight") != NULL);
            free(copy);
            tried++;
        }
        /* The largest finite weight is a weight. */
        char *copy = core_xmalloc(n);
        memcpy(copy, data, n);
        graph_edge e;
        memcpy(&e, copy + secs[i].offset, sizeof e);
        e.weight = FLT_MAX;
        memcpy(copy + secs[i].offset, &e, sizeof e);
        fix_crc(copy, n);
        CHECK_OK(open_bytes(copy, n, why, sizeof why));
        free(copy);
    }
    CHECK_INT(tried, 8);
    free(data);
}

TEST(bad_input_files_are_reported_and_skipped)
{
    unit_write_str("repo/good.py", "def ok():\n    return 1\n");
    /* Binary content with a source extension. */
    unit_write("repo/blob.py",
               "\x7f"
               "ELF\0\0\0\x01\x02",
               9);
    /* Invalid UTF-8 in a string and a comment: indexed. */
    unit_write_str("repo/latin1.py", "# caf\xe9\ndef bad_utf8():\n    return '\xff\xfe'\n");
    /* A 10 MB file on one line: skipped as generated. */
    size_t big = 10u << 20;
    char *line = core_xmalloc(big + 1);
    memset(line, '1', big);
    memcpy(line, "X = ", 4);
    line[big] = 0;
    unit_write("repo/oneline.py", line, big);
    free(line);
    /* Deep nesting: 5000 nested calls (deeper than the walkers follow),
     * 20000 nested parentheses, 90 nested functions (CPython refuses
     * more than 100 levels of indentation). */
    core_buf deep = {0};
    core_buf_puts(&deep, "y = ");
    for (int i = 0; i < 5000; i++)
        core_buf_puts(&deep, i % 100 == 99 ? "f(\n" : "f(");
    core_buf_putc(&deep, '1');
    for (int i = 0; i < 5000; i++)
        core_buf_puts(&deep, i % 100 == 99 ? ")\n" : ")");
    core_buf_puts(&deep, "\nx = ");
    for (int i = 0; i < 20000; i++)
        core_buf_puts(&deep, i % 100 == 99 ? "(\n" : "(");
    core_buf_putc(&deep, '1');
    for (int i = 0; i < 20000; i++)
        core_buf_puts(&deep, i % 100 == 99 ? ")\n" : ")");
    core_buf_puts(&deep, "\n");
    for (int i = 0; i < 90; i++) {
        for (int k = 0; k < i; k++)
            core_buf_puts(&deep, " ");
        core_buf_printf(&deep, "def f%d():\n", i);
    }
    for (int k = 0; k < 90; k++)
        core_buf_puts(&deep, " ");
    core_buf_puts(&deep, "pass\ndef after_deep():\n    pass\n");
    unit_write("repo/deep.py", deep.data, deep.len);
    core_buf_free(&deep);
    /* A broken symlink with a source name. */
    CHECK(symlink("/nonexistent/target.py", unit_tmp_path("repo/dangling.py")) == 0);
    /* An unreadable file (permissions apply only when not root: drop to
     * nobody for the rest of this test process if we are root). */
    const char *locked = unit_write("repo/locked.py", "def hidden():\n    pass\n", 23);
    CHECK(chmod(locked, 0) == 0);
    if (geteuid() == 0) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "chmod -R a+rwX %s/repo && chmod 0 %s && chmod a+rwx %s",
                 unit_tmpdir(), locked, unit_tmpdir());
        CHECK(system(cmd) == 0);
        CHECK(setgid(65534) == 0 && setuid(65534) == 0);
    }

    graph_index_opts o = quiet_opts();
    graph_index_stats st;
    graph *g = index_and_open(unit_tmp_path("repo"), unit_tmp_path("bad.graph"), &o, &st);
    CHECK_INT(st.files_binary, 1);
    CHECK_INT(st.files_generated, 1);
    CHECK_INT(st.files_unreadable, 1);
    CHECK(strstr(logged, "blob.py: skipped: binary content") != NULL);
    CHECK(strstr(logged, "oneline.py: skipped: looks generated") != NULL);
    CHECK(strstr(logged, "locked.py: cannot read: Permission denied") != NULL);
    CHECK(strstr(logged, "dangling.py: broken symbolic link") != NULL);
    CHECK(strstr(logged, "deep.py: nesting deeper than") != NULL);
    /* Everything else made it. */
    uint32_t ids[2];
    CHECK_INT(graph_find(g, "good.ok", ids, 2), 1);
    CHECK_INT(graph_find(g, "latin1.bad_utf8", ids, 2), 1);
    CHECK_INT(graph_find(g, "deep.after_deep", ids, 2), 1);
    CHECK_INT(graph_find(g, "deep.f0", ids, 2), 1);
    CHECK_INT(graph_find(g, "deep.f0.f1.f2", ids, 2), 1);
    /* The nesting note is all that is said of deep.py. */
    const char *deep_note = strstr(logged, "deep.py:");
    CHECK(deep_note && strncmp(deep_note, "deep.py: nesting", 16) == 0);
    CHECK(strstr(deep_note + 1, "deep.py:") == NULL);
    graph_close(g);
}

TEST(excludes_and_generated)
{
    unit_write_str("r/setup.py", "x = 1\n");
    unit_write_str("r/pkg/__init__.py", "");
    unit_write_str("r/pkg/mod.py", "def f():\n    pass\n");
    unit_write_str("r/pkg/build/__init__.py", "");
    unit_write_str("r/pkg/build/step.py", "def step():\n    pass\n");
    unit_write_str("r/build/lib/pkg/mod.py", "def stale():\n    pass\n");
    unit_write_str("r/node_modules/dep/index.js", "function dep() {}\n");
    unit_write_str("r/.venv/lib/x.py", "def venv(): pass\n");
    unit_write_str("r/env2/pyvenv.cfg", "home = /usr\n");
    unit_write_str("r/env2/lib/y.py", "def venv2(): pass\n");
    unit_write_str("r/web/app.min.js", "function a(){}\n");
    core_buf minified = {0};
    for (int i = 0; i < 3000; i++)
        core_buf_printf(&minified, "function f%d(a){return a+%d};", i, i);
    core_buf_putc(&minified, '\n');
    unit_write("r/web/bundle.js", minified.data, minified.len);
    core_buf_free(&minified);
    unit_write_str("r/web/app.ts", "export function app(): void {}\n");
    unit_write_str("r/web/stub.js", "\n//# sourceMappingURL=stub.js.map\n");
    unit_write_str("r/tests/test_mod.py", "def test_f():\n    pass\n");

    const char *root = unit_tmp_path("r");
    graph_index_opts o = quiet_opts();
    graph_index_stats st;
    graph *g = index_and_open(root, unit_tmp_path("x.graph"), &o, &st);
    uint32_t ids[2];
    CHECK_INT(graph_find(g, "pkg.mod.f", ids, 2), 1);
    CHECK_INT(graph_find(g, "pkg.build.step.step", ids, 2), 1); /* a package named build */
    CHECK_INT(graph_find(g, "stale", ids, 2), 0);               /* build/ next to setup.py */
    CHECK_INT(graph_find(g, "venv", ids, 2), 0);
    CHECK_INT(graph_find(g, "venv2", ids, 2), 0);
    CHECK_INT(graph_find(g, "dep", ids, 2), 0);
    CHECK_INT(st.files_generated, 3); /* app.min.js, bundle.js, stub.js */
    CHECK(strstr(logged, "web/app.min.js: skipped: minified") != NULL);
    CHECK(strstr(logged, "web/stub.js: skipped: only a source map reference") != NULL);
    CHECK_INT(graph_find(g, "test_mod.test_f", ids, 2), 1);
    graph_close(g);

    const char *ex[] = {"tests", "*.ts"};
    o.excludes = ex;
    o.nexcludes = 2;
    o.include_generated = true;
    g = index_and_open(root, unit_tmp_path("y.graph"), &o, &st);
    CHECK_INT(graph_find(g, "test_mod.test_f", ids, 2), 0);
    CHECK_INT(graph_find(g, "web/app.app", ids, 2), 0);
    CHECK_INT(graph_find(g, "web/bundle.f2999", ids, 2), 1);
    CHECK_INT(st.files_generated, 0);
    graph_close(g);

    o.excludes = NULL;
    o.nexcludes = 0;
    o.no_default_excludes = true;
    o.langs = 1u << GRAPH_LANG_PYTHON;
    g = index_and_open(root, unit_tmp_path("z.graph"), &o, &st);
    CHECK_INT(graph_find(g, "stale", ids, 2), 1);
    CHECK_INT(graph_find(g, "venv", ids, 2), 1);
    CHECK_INT(graph_find(g, "dep", ids, 2), 0); /* not Python */
    graph_close(g);
}

TEST(several_roots)
{
    unit_write_str("a/app/x.py", "def x():\n    pass\n");
    unit_write_str("b/web/y.ts", "export const y = () => 1;\n");
    unit_write_str("c/app/z.py", "def z():\n    pass\n");
    const char *a = unit_tmp_path("a/app"), *b = unit_tmp_path("b/web"),
               *c = unit_tmp_path("c/app");
    const char *roots[] = {a, b};
    graph_index_opts o = quiet_opts();
    CHECK_OK(graph_index(roots, 2, unit_tmp_path("m.graph"), &o, NULL));
    graph *g = unit_graph_open(unit_tmp_path("m.graph"));
    graph_symbol s;
    /* The root's name starts the paths; a root that is not a Python
     * package does not start module names (it is what sys.path holds). */
    graph_get_symbol(g, unit_sym(g, "x.x"), &s);
    CHECK_STR(s.file, "app/x.py");
    graph_get_symbol(g, unit_sym(g, "web/y.y"), &s);
    CHECK_STR(s.file, "web/y.ts");
    CHECK_INT(graph_nroots(g), 2);
    graph_close(g);
    const char *clash[] = {a, c};
    logged_len = 0;
    CHECK_INT(graph_index(clash, 2, unit_tmp_path("n.graph"), &o, NULL), CORE_EUSAGE);
    CHECK(strstr(logged, "have the same name 'app'") != NULL);
    const char *missing[] = {"/no/such/dir"};
    CHECK_INT(graph_index(missing, 1, unit_tmp_path("o.graph"), &o, NULL), -ENOENT);
}

/* A monorepo of built packages: each manifest names its compiled output
 * (build/src/index.js), which is not in the tree; the sources it is built
 * from are, at the same path under the output folder or under src/. */
TEST(workspace_packages_by_their_built_entry)
{
    unit_write_str("ws/packages/core/package.json",
                   "{\"name\": \"@acme/core\", \"main\": \"build/src/index.js\"}");
    unit_write_str("ws/packages/core/src/index.ts", "export * from './attrs';\n");
    unit_write_str("ws/packages/core/src/attrs.ts",
                   "export function clean(a: object) { return a; }\n");
    unit_write_str("ws/packages/util/package.json",
                   "{\"name\": \"@acme/util\", \"main\": \"lib/index.js\"}");
    unit_write_str("ws/packages/util/src/index.ts",
                   "export function pad(s: string) { return s; }\n");
    unit_write_str("ws/packages/util/src/deep.ts", "export function deep() { return 1; }\n");
    unit_write_str("ws/packages/sdk/src/span.ts",
                   "import { clean } from '@acme/core';\n"
                   "import { pad } from '@acme/util';\n"
                   "import { deep } from '@acme/util/lib/deep';\n"
                   "export function start(a: object) { clean(a); pad('x'); deep(); }\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("ws"), unit_tmp_path("ws.graph"), &o, NULL);
    CHECK_EDGE(g, "packages/sdk/src/span.start", "packages/core/src/attrs.clean", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "packages/sdk/src/span.start", "packages/util/src/index.pad", GRAPH_EDGE_CALLS);
    CHECK_EDGE(g, "packages/sdk/src/span.start", "packages/util/src/deep.deep", GRAPH_EDGE_CALLS);
    graph_close(g);
}

/* ---- file roles ---- */

TEST(role_of_path_table)
{
    static const struct {
        const char *path;
        graph_role role;
    } t[] = {
        {"pkg/mod.py", GRAPH_ROLE_PRODUCT},
        {"pkg/testing_helpers.py", GRAPH_ROLE_PRODUCT},
        {"pkg/contest.py", GRAPH_ROLE_PRODUCT},
        {"pkg/latest.py", GRAPH_ROLE_PRODUCT},
        {"pkg/test_mod.py", GRAPH_ROLE_TEST},
        {"pkg/mod_test.py", GRAPH_ROLE_TEST},
        {"pkg/conftest.py", GRAPH_ROLE_TEST},
        {"pkg/tests.py", GRAPH_ROLE_TEST},
        {"pkg/test/util.py", GRAPH_ROLE_TEST},
        {"tests/helpers/x.py", GRAPH_ROLE_TEST},
        {"src/__tests__/app.js", GRAPH_ROLE_TEST},
        {"src/app.test.ts", GRAPH_ROLE_TEST},
        {"src/app.spec.tsx", GRAPH_ROLE_TEST},
        {"lib/client_spec.js", GRAPH_ROLE_TEST},
        {"spec/support/x.js", GRAPH_ROLE_TEST},
        {"examples/echo.py", GRAPH_ROLE_EXAMPLE},
        {"docs/samples/a.js", GRAPH_ROLE_EXAMPLE},
        {"benchmarks/run.py", GRAPH_ROLE_BENCHMARK},
        {"pkg/bench_parse.py", GRAPH_ROLE_BENCHMARK},
        {"src/parse.bench.js", GRAPH_ROLE_BENCHMARK},
        {"pkg/_vendor/six.py", GRAPH_ROLE_VENDORED},
        {"third_party/x/tests/test_y.py", GRAPH_ROLE_VENDORED}, /* the outermost decides */
        {"pkg/api_pb2.py", GRAPH_ROLE_GENERATED},
        {"pkg/api_pb2_grpc.py", GRAPH_ROLE_GENERATED},
        {"src/schema.generated.ts", GRAPH_ROLE_GENERATED},
        {"test_top.py", GRAPH_ROLE_TEST},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        graph_role r = graph__role_of_path(t[i].path);
        if (r != t[i].role)
            unit_fail(__FILE__, __LINE__, "role of %s: %s, want %s", t[i].path, graph_role_name(r),
                      graph_role_name(t[i].role));
    }
    CHECK(graph__generated_header("# automatically generated by the FlatBuffers compiler, "
                                  "do not modify\n",
                                  70));
    CHECK(graph__generated_header("// @generated by protoc\n", 24));
    CHECK(!graph__generated_header("# This module generated the report\n", 35));
}

static void collect_path(void *ud, const char *s, size_t n)
{
    core_buf *b = ud;
    core_buf_append(b, s, n);
    core_buf_putc(b, '|');
}

TEST(testpaths_settings)
{
    static const struct {
        const char *text, *want;
    } t[] = {
        {"[tool.pytest.ini_options]\ntestpaths = [\"tests\", 'integration']\n",
         "tests|integration|"},
        {"[tool.pytest.ini_options]\ntestpaths = [\n  \"a/t\",  # unit\n  \"b\",\n]\nx = 1\n",
         "a/t|b|"},
        {"[pytest]\ntestpaths = tests docs\n", "tests|docs|"},
        {"[tool:pytest]\ntestpaths =\n    tests\n    more ; comment\nother = 1\n", "tests|more|"},
        {"testpaths = \"t\"\n", "t|"},
        {"# testpaths = no\n  testpaths = indented\n", ""},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        core_buf b = {0};
        core_buf_putc(&b, 0);
        b.len = 0;
        graph__testpaths(t[i].text, strlen(t[i].text), collect_path, &b);
        core_buf_putc(&b, 0);
        if (strcmp(b.data, t[i].want) != 0)
            unit_fail(__FILE__, __LINE__, "testpaths of case %zu: '%s', want '%s'", i, b.data,
                      t[i].want);
        core_buf_free(&b);
    }
}

/* Fails the test unless file path of g is indexed with role want. */
static void check_role(const graph *g, const char *path, graph_role want)
{
    for (uint32_t f = 0; f < graph_nfiles(g); f++) {
        graph_file_info fi;
        graph_get_file(g, f, &fi);
        if (strcmp(fi.path, path) != 0)
            continue;
        if (fi.role != want)
            unit_fail(__FILE__, __LINE__, "%s: role %s, want %s", path, graph_role_name(fi.role),
                      graph_role_name(want));
        return;
    }
    unit_fail(__FILE__, __LINE__, "%s not indexed", path);
}

TEST(roles_in_the_graph)
{
    unit_write_str("rr/pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = [\"checks\"]\n");
    unit_write_str("rr/pkg/mod.py", "def f():\n    pass\n");
    unit_write_str("rr/pkg/tests/test_mod.py", "def test_f():\n    pass\n");
    unit_write_str("rr/checks/smoke.py", "def smoke():\n    pass\n");
    unit_write_str("rr/pkg/gen.py", "# Code generated by a tool. DO NOT EDIT.\nX = 1\n");
    unit_write_str("rr/js/package.json", "{\"name\": \"w\", \"directories\": {\"test\": \"qa\"}}");
    unit_write_str("rr/js/qa/run.js", "function run() {}\n");
    unit_write_str("rr/js/index.js", "function main() {}\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("rr"), unit_tmp_path("rr.graph"), &o, NULL);
    static const struct {
        const char *path;
        graph_role role;
    } want[] = {
        {"pkg/mod.py", GRAPH_ROLE_PRODUCT},   {"pkg/tests/test_mod.py", GRAPH_ROLE_TEST},
        {"checks/smoke.py", GRAPH_ROLE_TEST}, {"pkg/gen.py", GRAPH_ROLE_GENERATED},
        {"js/qa/run.js", GRAPH_ROLE_TEST},    {"js/index.js", GRAPH_ROLE_PRODUCT},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        check_role(g, want[i].path, want[i].role);
    graph_stats st;
    graph_get_stats(g, &st);
    CHECK_INT(st.files_by_role[GRAPH_ROLE_TEST], 3);
    CHECK_INT(st.files_by_role[GRAPH_ROLE_PRODUCT], 2);
    CHECK_INT(st.files_by_role[GRAPH_ROLE_GENERATED], 1);
    graph_close(g);
}

/* A compiled package: declarations beside the code they describe are
 * left out, so the names and the calls are the code's; a logger's method
 * per kind of message is a logging call. */
static const char runner_js[] = "\"use strict\";\n"
                                "const Base_1 = require(\"./base\");\n"
                                "class Runner extends Base_1.Base {\n"
                                "    async query(sql) {\n"
                                "        this.connection.logger.logQuery(sql, [], this);\n"
                                "        return this.db.run(sql);\n"
                                "    }\n"
                                "}\n"
                                "exports.Runner = Runner;\n";

TEST(declarations_beside_their_code)
{
    unit_write_str("dts/base.js", "\"use strict\";\n"
                                  "class Base {\n"
                                  "    async begin() {\n"
                                  "        await this.query(\"BEGIN TRANSACTION\");\n"
                                  "    }\n"
                                  "}\n"
                                  "exports.Base = Base;\n");
    unit_write_str("dts/base.d.ts", "export declare abstract class Base {\n"
                                    "    begin(): Promise<void>;\n"
                                    "    abstract query(sql: string): Promise<any>;\n"
                                    "}\n");
    unit_write_str("dts/runner.js", runner_js);
    unit_write_str("dts/runner.d.ts", "import { Base } from \"./base\";\n"
                                      "export declare class Runner extends Base {\n"
                                      "    query(sql: string): Promise<any>;\n"
                                      "}\n");
    unit_write_str("dts/types.d.ts", "export interface Options {\n    name: string;\n}\n");
    graph_index_opts o = quiet_opts();
    graph_index_stats st;
    graph *g = index_and_open(unit_tmp_path("dts"), unit_tmp_path("dts.graph"), &o, &st);
    CHECK_INT(st.files_seen, 5);
    CHECK_INT(st.files_declarations, 2);
    CHECK_INT(st.files_indexed, 3); /* the code, and the declarations of no code */
    /* The base's call reaches the subclass's method, not a declaration. */
    CHECK_EDGE(g, "base.Base.begin", "runner.Runner.query", GRAPH_EDGE_CALLS);
    /* The logger's call logs the statement the runner runs: its own
     * site, and the one of the statement the base passes. */
    uint32_t first, n = graph_symbol_emits(g, unit_sym(g, "runner.Runner.query"), &first);
    uint32_t line = unit_line_of(runner_js, "logQuery"), own = 0, passed = 0;
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        if (e.line != line || e.kind != GRAPH_EMIT_LOG)
            continue;
        CHECK_INT(e.level, GRAPH_LEVEL_CUSTOM);
        own += strcmp(e.method, "logQuery") == 0 && e.tmpl[0] == 0;
        passed += strcmp(e.tmpl, "BEGIN TRANSACTION") == 0;
    }
    CHECK_INT(own, 1);
    CHECK_INT(passed, 1);
    graph_close(g);
}

/* A package's build for browsers, as its package.json declares it. */
TEST(roles_of_a_browser_build)
{
    /* A second tree the "browser" conditions name (its subpath export
     * is no Node entry), and a file the "browser" field swaps in beside
     * Node's in the same folder. */
    unit_write_str("bb/orm/package.json",
                   "{\"name\": \"orm\", \"main\": \"./index.js\","
                   " \"browser\": {\"./lib/fs.js\": \"./lib/fs-web.js\", \"net\": false},"
                   " \"exports\": {\".\": {\"types\": \"./index.d.ts\","
                   " \"node\": {\"require\": \"./index.js\"}, \"browser\": {\"require\":"
                   " \"./index.js\", \"import\": \"./browser/index.js\"}},"
                   " \"./browser\": {\"default\": \"./browser/index.js\"}}}");
    unit_write_str("bb/orm/index.js", "function main() {}\n");
    unit_write_str("bb/orm/lib/fs.js", "function read() {}\n");
    unit_write_str("bb/orm/lib/fs-web.js", "function read() {}\n");
    unit_write_str("bb/orm/browser/index.js", "function main() {}\n");
    unit_write_str("bb/orm/browser/lib/q.js", "function q() {}\n");
    /* A browser string beside a main in its own folder: only that file. */
    unit_write_str("bb/cli/package.json",
                   "{\"name\": \"cli\", \"main\": \"lib/node.js\", \"browser\": \"./lib/web.js\"}");
    unit_write_str("bb/cli/lib/node.js", "function run() {}\n");
    unit_write_str("bb/cli/lib/web.js", "function run() {}\n");
    /* A browser entry in a folder that is no copy of the Node tree (the
     * Node entry is not its path below it): the entry alone. */
    unit_write_str("bb/mix/package.json",
                   "{\"name\": \"mix\", \"main\": \"index.js\", \"browser\": \"./lib/web.js\"}");
    unit_write_str("bb/mix/index.js", "function main() {}\n");
    unit_write_str("bb/mix/lib/net.js", "function open() {}\n");
    unit_write_str("bb/mix/lib/web.js", "function open() {}\n");
    graph_index_opts o = quiet_opts();
    graph *g = index_and_open(unit_tmp_path("bb"), unit_tmp_path("bb.graph"), &o, NULL);
    static const struct {
        const char *path;
        graph_role role;
    } want[] = {
        {"orm/index.js", GRAPH_ROLE_PRODUCT},         {"orm/lib/fs.js", GRAPH_ROLE_PRODUCT},
        {"orm/lib/fs-web.js", GRAPH_ROLE_BROWSER},    {"orm/browser/index.js", GRAPH_ROLE_BROWSER},
        {"orm/browser/lib/q.js", GRAPH_ROLE_BROWSER}, {"cli/lib/node.js", GRAPH_ROLE_PRODUCT},
        {"cli/lib/web.js", GRAPH_ROLE_BROWSER},       {"mix/lib/net.js", GRAPH_ROLE_PRODUCT},
        {"mix/lib/web.js", GRAPH_ROLE_BROWSER},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        check_role(g, want[i].path, want[i].role);
    CHECK_STR(graph_role_name(GRAPH_ROLE_BROWSER), "browser");
    graph_close(g);
}
