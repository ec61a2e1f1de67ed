#!/usr/bin/env node
'use strict';
/*
 * Event log of npm `typeorm` 0.3.31 (tsc output, CommonJS) driven over the
 * pure JavaScript/WebAssembly SQLite driver `sql.js` 1.17.0, all in this
 * process; nothing listens, nothing is fetched.
 *
 *   node gen_typeorm.js --repo                    # prints the dir to index
 *   node gen_typeorm.js --out .deps/logs/typeorm.csv.gz [--cases 700] [--seed 1] [--deps DIR]
 *
 * Indexed dir: <deps>/node_modules/typeorm, the whole package as installed
 * (truth paths `typeorm/...`): the CommonJS tree that runs, its `.d.ts`
 * files and the ESM copy under `browser/` that never runs here, every driver
 * included: 3074 files, of which pmrag reads 2049 (.js, .mjs and .d.ts);
 * indexing takes a few seconds.
 *
 * Logging: typeorm logs through one object, `connection.logger`, whose
 * interface (`Logger`) has six methods: `logQuery(query, parameters,
 * queryRunner)`, `logQueryError(error, query, parameters)`,
 * `logQuerySlow(time, query, parameters)`, `logSchemaBuild(message)`,
 * `logMigration(message)` and `log(level, message)`.  The messages are data:
 * the SQL text a query runner is about to run (`this.driver.connection.logger
 * .logQuery(query, parameters, this)` in `SqljsQueryRunner.query`, the same
 * statement in every other driver's query runner), its parameters, the
 * driver's error, the execution time, and the schema builder's and the
 * migration executor's template literals built from table, column, index and
 * migration names (`creating a new table: ${...}`, `Migration ${name} has
 * been executed successfully.`).  The DataSource option `logger` picks the
 * implementation, drawn per case: typeorm's `advanced-console`,
 * `simple-console`, `formatted-console` (SQL pretty-printed over several
 * lines), `file` (appends to `ormlogs.log` under the app root, here the temp
 * dir) or `debug` (npm `debug` 4.4.3, namespaces `typeorm:query:log`...),
 * all subclasses of `AbstractLogger` that filter by the `logging` option
 * and render in `writeLog`; or the application's own logger: a plain object
 * with the six methods (`custom`, its own format and its own level filter),
 * or a subclass of typeorm's `AbstractLogger` with its own `writeLog`
 * (`custom-abstract`).  The `logging` option is drawn per case: `all`,
 * `true` (queries and errors), `false` (slow queries and migration failures
 * only) or a subset of ["query","error","schema","warn","info","log",
 * "migration"]; for `debug` the same choice names the enabled namespaces.
 *
 * Capture: at the logger.  After the DataSource is built, each of the six
 * methods of its logger object is replaced by a function that calls the
 * original and collects what the original prints meanwhile: console output
 * (`console.log/info/warn/error`, rendered with `util.format` as Node prints
 * it; colours off with NO_COLOR set before typeorm loads, as on a pipe),
 * `debug` output (typeorm's copy of `debug` patched: no namespace, date,
 * colours or `+Nms`, args rendered with `util.formatWithOptions`), the
 * FileLogger's `PlatformTools.appendFileSync` data (each line without its
 * leading `[ISO date]`), or the lines the application logger produces.  One
 * call of a logger method that prints anything makes one record; its
 * printed lines are joined with `\n` (a failed query: `query failed: ...`
 * then `error: ...`; debug: `query: ...` then `parameters: [...]`).  A call
 * the logger filters out (logging option, level) prints nothing and makes no
 * record.  Activity = that text (`query: SELECT ... -- PARAMETERS: [...]`,
 * `[QUERY]: ...`, `creating a new table: post`...), newlines escaped, cut at
 * 500 characters; failed queries printed by `simple-console` and some
 * application loggers carry the driver error's stack.  level = typeorm's
 * message type of the method, upper-cased: QUERY, QUERY-ERROR, QUERY-SLOW,
 * SCHEMA-BUILD, MIGRATION, and LOG/INFO/WARN for `log(level, ...)`.
 * logger = the logger kind (`advanced-console`, ..., `custom`,
 * `custom-abstract`), for `debug` the namespace of the first line printed.
 * Emitter = the frame that called the logger method: the first stack frame
 * below the replacing function (e.g. `typeorm/driver/sqljs/
 * SqljsQueryRunner.js:70`, `typeorm/schema-builder/RdbmsSchemaBuilder.js`,
 * `typeorm/migration/MigrationExecutor.js`, `typeorm/query-builder/
 * QueryBuilder.js` for `printSql()`, `typeorm/util/
 * DirectoryExportedClassesLoader.js` for glob-loaded classes).  Records
 * whose caller lies outside typeorm are dropped (none are made: the
 * application never calls the logger itself).  Wrappers: none.  The logger
 * classes (`AbstractLogger` and its subclasses, and the `PlatformTools`
 * print helpers they use) are the logger itself, the implementation behind
 * the interface typeorm calls, and the application may replace them; no
 * typeorm function stands between a call site and the logger only to
 * forward (every call site calls `logger.logX(...)` directly), so
 * code.wrapped is always 0.
 *
 * A case is one DataSource lifetime (`type: 'sqljs'`, in memory) with its
 * own seeded PRNG:
 *   - entities defined for the case, from one or two of four domains, with
 *     per-case options: a blog (users with an embedded profile, posts,
 *     comments, tags; one-to-many, many-to-many with a join table, unique
 *     and composite indices, checks, soft delete, version and date columns,
 *     an entity listener that throws on a forbidden title), a shop
 *     (customers, products with a natural primary key and a stock check,
 *     orders with cascaded lines, composite unique), a catalog (single-table
 *     inheritance with child entities, a tree of categories as closure
 *     table, nested set or materialized path) and accounts (uuid keys,
 *     optimistic versions, simple-json and simple-array columns, one-to-one
 *     settings, transfers, a view entity); sometimes an `EntitySchema`
 *     loaded by a glob from the temp dir; `entityPrefix`, the relation load
 *     strategy, the query result cache and `maxQueryExecutionTime` (small
 *     in some cases: slow-query records, timing-dependent) drawn per case;
 *   - the schema from `synchronize` (sometimes with `dropSchema`), from
 *     `synchronize` over a database made by an earlier version of the
 *     entities (columns added, dropped, renamed and changed, indices,
 *     uniques, checks, foreign keys and tables added or dropped: the schema
 *     builder's diff records), or from migrations: a migration generated
 *     from the entities (the schema builder's `log()`, as `migration:
 *     generate` does), hand-written ones (add a column, indices, seed rows,
 *     rename), some failing (bad SQL, a thrown error, a missing table),
 *     classes or files loaded by a glob, run at initialize or by
 *     `runMigrations` in each transaction mode, then `showMigrations` and
 *     `undoLastMigration`;
 *   - subscribers, some throwing in a before-insert, after-load or
 *     before-commit hook;
 *   - then 2-10 steps: repository and query-builder CRUD, bulk inserts,
 *     finds with relations, joins, subqueries, counts and aggregates,
 *     updates, deletes, soft deletes and restores, upserts, increments,
 *     transactions committed and rolled back (a thrown error, a failing
 *     statement), query runners with savepoints and isolation levels, bad
 *     queries (unique, not-null, foreign-key and check violations, missing
 *     tables and columns, syntax errors), raw queries, relation query
 *     builders, tree and inheritance queries, optimistic-lock mismatches,
 *     cached finds, schema changes through the query runner, `printSql()`,
 *     synchronize again, clears; then `destroy()`.
 * The preparatory DataSources (the earlier database of an upgrade, the
 * generated migration) run before the case opens and are not captured.
 * Cases with fewer than 3 records are dropped.  Records of a DataSource of
 * an earlier case (none expected: all work is awaited) are dropped and
 * counted in the summary line.
 *
 * Messages contain generated names, uuids, dates and, for slow queries,
 * times measured by typeorm (Date.now() around `prepare`): a regenerated log
 * is close to, not equal to, an earlier one.  Fixtures (glob-loaded entity,
 * migration and subscriber files; the FileLogger's file, since typeorm's
 * `file` logger writes under the app root, set to the temp dir through
 * APP_ROOT_PATH) live in a temp dir removed at exit.  PMRAG_TIMING=1 prints
 * one line per case to stderr; PMRAG_ONLY=3,17 runs only those cases;
 * PMRAG_VERBOSE=1 prints unexpected step failures and a table of the errors
 * the steps met.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const util = require('util');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'typeorm', 700);
}

const args = parseArgs(process.argv);
const NM = path.join(args.deps, 'node_modules');
const TYPEORM_DIR = path.join(NM, 'typeorm');
if (!fs.existsSync(path.join(TYPEORM_DIR, 'package.json')) || !fs.existsSync(path.join(NM, 'sql.js', 'package.json'))) {
  process.stderr.write(`missing ${TYPEORM_DIR} or sql.js: run npm ci in ${args.deps}\n`);
  process.exit(1);
}
if (args.repo) {
  process.stdout.write(fs.realpathSync(TYPEORM_DIR) + '\n');
  process.exit(0);
}
if (!args.out) {
  process.stderr.write('usage: gen_typeorm.js --repo | --out FILE [--cases N] [--seed S] [--deps DIR]\n');
  process.exit(2);
}

// ---------------------------------------------------------------------------
// Fixtures: temp dir (app root of the FileLogger, glob-loaded files).
const { dir: TMP, cleanup } = require('./_capture').tempDir('typeorm');

// Colours off (typeorm's highlighter and prefixes use `ansis`, which reads
// these at load), the file logger's app root in the temp dir.
delete process.env.FORCE_COLOR;
process.env.NO_COLOR = '1';
process.env.APP_ROOT_PATH = TMP;
delete process.env.DEBUG;

const cap = require('./_capture');
require(path.join(NM, 'reflect-metadata'));
const T = require(TYPEORM_DIR);
const { PlatformTools } = require(path.join(TYPEORM_DIR, 'platform', 'PlatformTools.js'));
const createDebug = require(require.resolve('debug', { paths: [TYPEORM_DIR] }));

const log = new cap.EventLog(args.out, { indexDir: TYPEORM_DIR });

// ---------------------------------------------------------------------------
// Output sinks: while a logger method runs, what it prints goes to SINK.
let SINK = null;
let stray = 0;
let foreign = 0;
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const stripAnsi = (s) => String(s).replace(ANSI, '');

for (const m of ['log', 'info', 'warn', 'error', 'debug']) {
  // the generator itself never prints through console: everything printed is typeorm's
  console[m] = function capturedConsole(...a) {
    if (SINK) SINK.lines.push(stripAnsi(util.format(...a)));
    else stray++;
  };
}

{
  const origAppend = PlatformTools.appendFileSync;
  PlatformTools.appendFileSync = function capturedAppend(filename, data) {
    if (SINK) {
      for (const l of String(data).split('\r\n')) {
        if (l) SINK.lines.push(l.replace(/^\[\d{4}-\d\d-\d\dT[0-9:.]+Z\]/, ''));
      }
    }
    return origAppend.call(this, filename, data);
  };
}

createDebug.inspectOpts = Object.assign(createDebug.inspectOpts || {}, { colors: false, hideDate: true });
createDebug.formatArgs = function () { /* no namespace prefix, date, colours or +Nms */ };
createDebug.log = function capturedDebugLog(...a) {
  if (!SINK) { stray++; return; }
  SINK.lines.push(stripAnsi(util.formatWithOptions(createDebug.inspectOpts, ...a)));
  if (!SINK.ns && this && this.namespace) SINK.ns = this.namespace;
};
createDebug.disable();

const METHOD_TYPE = {
  logQuery: 'QUERY', logQueryError: 'QUERY-ERROR', logQuerySlow: 'QUERY-SLOW',
  logSchemaBuild: 'SCHEMA-BUILD', logMigration: 'MIGRATION', log: null,
};

// Replace the six methods of a DataSource's logger by recording ones.
function instrumentLogger(logger, kind, caseId) {
  for (const m of Object.keys(METHOD_TYPE)) {
    const orig = logger[m];
    if (typeof orig !== 'function') continue;
    const entry = function typeormLoggerCall(...a) {
      if (log.caseId !== caseId) { foreign++; return undefined; }
      const prev = SINK;
      const sink = { lines: [], ns: null };
      SINK = sink;
      let r;
      try { r = orig.apply(this, a); } finally { SINK = prev; }
      if (sink.lines.length) {
        const level = METHOD_TYPE[m] || String(a[0]).toUpperCase();
        log.record(sink.lines.join('\n'), level, sink.ns || kind, entry);
      }
      return r;
    };
    logger[m] = entry;
  }
}

// The application's loggers.
function errText(e) { return e && e.message !== undefined ? e.message : String(e); }
function customLogger(levels, style) {
  // a plain object with its own format and its own level filter
  const on = (l) => levels === 'all' || levels.includes(l);
  const out = (s) => { if (SINK) SINK.lines.push(s); };
  const params = (p) => (p && p.length ? ` ${style === 'json' ? JSON.stringify({ params: p }) : JSON.stringify(p)}` : '');
  return {
    logQuery(q, p) { if (on('query')) out(style === 'json' ? `{"sql":${JSON.stringify(q)}}${params(p)}` : `[db] ${q}${params(p)}`); },
    logQueryError(e, q, p) {
      if (!on('error')) return;
      if (style === 'json') out(`{"error":${JSON.stringify(errText(e))},"sql":${JSON.stringify(q)}}${params(p)}`);
      else { out(`[db] query failed: ${q}${params(p)}`); out(`[db] ${e && e.stack ? e.stack : e}`); }
    },
    logQuerySlow(t, q, p) { out(style === 'json' ? `{"slow":${t},"sql":${JSON.stringify(q)}}` : `[db] slow query (${t} ms): ${q}${params(p)}`); },
    logSchemaBuild(msg) { if (on('schema')) out(style === 'json' ? `{"schema":${JSON.stringify(msg)}}` : `[schema] ${msg}`); },
    logMigration(msg) { out(style === 'json' ? `{"migration":${JSON.stringify(msg)}}` : `[migration] ${msg}`); },
    log(level, msg) { if (on(level)) out(style === 'json' ? `{"${level}":${JSON.stringify(String(msg))}}` : `[${level}] ${msg}`); },
  };
}

class AppLogger extends T.AbstractLogger {
  // the documented way to plug a logger in: typeorm's filtering and
  // rendering, the application's output
  constructor(options, opts) { super(options); this.opts = opts; }
  writeLog(level, logMessage, queryRunner) {
    const msgs = this.prepareLogMessages(logMessage, {
      highlightSql: false, appendParameterAsComment: this.opts.params, addColonToPrefix: this.opts.colon,
    }, queryRunner);
    for (const m of msgs) {
      const text = m.prefix ? `${m.prefix} ${m.message}` : String(m.message);
      if (SINK) SINK.lines.push(`${level.toUpperCase()}: ${text}`);
    }
  }
}

// ---------------------------------------------------------------------------
// Glob-loaded fixtures: an EntitySchema, migration files, a subscriber file.
const TS0 = 1700000000000;
fs.writeFileSync(path.join(TMP, 'package.json'), '{"type": "commonjs"}\n');
fs.mkdirSync(path.join(TMP, 'entities'));
fs.mkdirSync(path.join(TMP, 'migrations'));
fs.mkdirSync(path.join(TMP, 'subscribers'));
fs.mkdirSync(path.join(TMP, 'empty'));
fs.writeFileSync(path.join(TMP, 'entities', 'note.js'), `'use strict';
const { EntitySchema } = require(${JSON.stringify(TYPEORM_DIR)});
module.exports.NoteSchema = new EntitySchema({
  name: 'Note', tableName: 'note',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    body: { type: 'text' },
    pinned: { type: 'boolean', default: false },
    createdAt: { type: 'datetime', createDate: true },
  },
  indices: [{ name: 'IDX_note_pinned', columns: ['pinned'] }],
});
`);
fs.writeFileSync(path.join(TMP, 'migrations', `${TS0 + 1000}-CreateNote.js`), `'use strict';
module.exports.CreateNote${TS0 + 1000} = class CreateNote${TS0 + 1000} {
  async up(q) {
    await q.query('CREATE TABLE IF NOT EXISTS "note" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "body" text NOT NULL, "pinned" boolean NOT NULL DEFAULT (0), "createdAt" datetime NOT NULL DEFAULT (datetime(\\'now\\')))');
    await q.query('CREATE INDEX IF NOT EXISTS "IDX_note_pinned" ON "note" ("pinned")');
  }
  async down(q) { await q.query('DROP TABLE "note"'); }
};
`);
fs.writeFileSync(path.join(TMP, 'migrations', `${TS0 + 2000}-SeedNote.js`), `'use strict';
module.exports.SeedNote${TS0 + 2000} = class SeedNote${TS0 + 2000} {
  async up(q) {
    await q.query('INSERT INTO "note" ("body", "pinned") VALUES (?, ?), (?, ?)', ['welcome', 1, 'read me', 0]);
  }
  async down(q) { await q.query('DELETE FROM "note"'); }
};
`);
fs.writeFileSync(path.join(TMP, 'subscribers', 'audit.js'), `'use strict';
module.exports.AuditSubscriber = class AuditSubscriber {
  afterInsert(event) { this.inserts = (this.inserts || 0) + 1; }
  afterRemove(event) { this.removes = (this.removes || 0) + 1; }
};
`);

// ---------------------------------------------------------------------------
// Vocabulary.
const WORDS = ['alpha', 'bravo', 'cedar', 'delta', 'ember', 'fjord', 'garnet', 'harbor', 'iris', 'juniper',
  'kelp', 'lumen', 'maple', 'nectar', 'onyx', 'pepper', 'quartz', 'raven', 'sierra', 'tundra', 'umber',
  'violet', 'willow', 'xenon', 'yarrow', 'zephyr'];
const FIRST = ['ann', 'bob', 'cleo', 'dan', 'eve', 'finn', 'gus', 'hana', 'ivo', 'jun', 'kai', 'lea', 'mo', 'nia', 'oto', 'pia'];
const CITIES = ['Oslo', 'Lyon', 'Porto', 'Graz', 'Turku', 'Split', 'Cork', 'Ghent'];

// ---------------------------------------------------------------------------
// Entities.  Decorators applied by hand (plain JS): Column(type, opts)(proto, prop).
const prop = (dec, cls, name) => dec(cls.prototype, name);
function col(cls, name, type, opts) { prop(T.Column(type, opts || {}), cls, name); }
function named(name) {
  // a fresh class per case, named for typeorm's default names and messages
  return ({ [name]: class {} })[name];
}

function draw(R, spec) {
  const o = {};
  for (const [k, v] of Object.entries(spec)) o[k] = Array.isArray(v) ? R.pick(v) : (typeof v === 'number' ? R.chance(v) : v);
  return o;
}

// Each domain: options(R) -> o, mutate(R, o) -> an earlier version, build(o) -> {entities, kinds}
const DOMAINS = {};

DOMAINS.blog = {
  options: (R) => draw(R, {
    nameLen: [40, 60, 100], nameUnique: 0.75, emailUnique: 0.5, age: 0.6, bio: 0.5, bioName: ['bio', 'about'],
    profile: 0.4, titleLen: [80, 120, 200], titleIndex: 0.5, soft: 0.5, version: 0.4, pubIndex: 0.4,
    onDelete: ['CASCADE', 'SET NULL', 'NO ACTION'], cascadeComments: 0.5, tags: 0.7, joinTable: ['post_tags', null],
    viewsCheck: 0.35, authorCol: ['authorId', 'author_id'], eager: 0.2, listener: 0.35, comments: 0.85, legacy: false,
  }),
  mutate: (R, o) => {
    const v = Object.assign({}, o);
    for (const k of R.sample(['nameUnique', 'emailUnique', 'age', 'bio', 'titleIndex', 'soft', 'version', 'pubIndex',
      'tags', 'viewsCheck', 'comments', 'legacy', 'profile', 'rename', 'nameLen', 'titleLen', 'onDelete'], R.int(2, 5))) {
      if (k === 'rename') v.bioName = v.bioName === 'bio' ? 'about' : 'bio';
      else if (k === 'nameLen') v.nameLen = R.pick([30, 50, 255]);
      else if (k === 'titleLen') v.titleLen = R.pick([60, 150]);
      else if (k === 'onDelete') v.onDelete = R.pick(['CASCADE', 'SET NULL', 'NO ACTION']);
      else v[k] = !v[k];
    }
    return v;
  },
  build: (o) => {
    const Profile = named('Profile');
    col(Profile, 'city', 'varchar', { length: 40, nullable: true });
    col(Profile, 'zip', 'varchar', { length: 10, nullable: true });
    const User = named('User');
    const Post = named('Post');
    const Comment = named('Comment');
    const Tag = named('Tag');
    prop(T.PrimaryGeneratedColumn(), User, 'id');
    col(User, 'name', 'varchar', { length: o.nameLen, unique: o.nameUnique });
    col(User, 'email', 'varchar', { length: 120, nullable: true, unique: o.emailUnique });
    if (o.age) col(User, 'age', 'integer', { nullable: true });
    if (o.bio) col(User, o.bioName, 'text', { nullable: true });
    if (o.profile) prop(T.Column(() => Profile, { prefix: 'profile' }), User, 'profile');
    if (o.legacy) col(User, 'legacyFlag', 'boolean', { default: false });
    prop(T.CreateDateColumn(), User, 'createdAt');
    prop(T.OneToMany(() => Post, (p) => p.author), User, 'posts');
    T.Entity('user')(User);

    prop(T.PrimaryGeneratedColumn(), Post, 'id');
    col(Post, 'title', 'varchar', { length: o.titleLen });
    if (o.titleIndex) prop(T.Index(), Post, 'title');
    col(Post, 'body', 'text', { nullable: true });
    col(Post, 'views', 'integer', { default: 0 });
    col(Post, 'published', 'boolean', { default: false });
    prop(T.CreateDateColumn(), Post, 'createdAt');
    prop(T.UpdateDateColumn(), Post, 'updatedAt');
    if (o.soft) prop(T.DeleteDateColumn(), Post, 'deletedAt');
    if (o.version) prop(T.VersionColumn(), Post, 'version');
    prop(T.ManyToOne(() => User, (u) => u.posts, { onDelete: o.onDelete, nullable: true, eager: o.eager }), Post, 'author');
    if (o.authorCol !== 'authorId') prop(T.JoinColumn({ name: o.authorCol }), Post, 'author');
    if (o.comments) prop(T.OneToMany(() => Comment, (c) => c.post, { cascade: o.cascadeComments }), Post, 'comments');
    if (o.tags) {
      prop(T.ManyToMany(() => Tag, (t) => t.posts), Post, 'tags');
      prop(T.JoinTable(o.joinTable ? { name: o.joinTable } : {}), Post, 'tags');
    }
    if (o.listener) {
      Post.prototype.checkTitle = function checkTitle() {
        if (String(this.title || '').startsWith('forbidden')) throw new Error(`title not allowed: ${this.title}`);
      };
      prop(T.BeforeInsert(), Post, 'checkTitle');
      prop(T.BeforeUpdate(), Post, 'checkTitle');
    }
    if (o.pubIndex) T.Index('IDX_post_author_published', ['author', 'published'])(Post);
    if (o.viewsCheck) T.Check('CHK_post_views', '"views" >= 0')(Post);
    T.Entity('post')(Post);

    if (o.comments) {
      prop(T.PrimaryGeneratedColumn(), Comment, 'id');
      col(Comment, 'text', 'varchar', { length: 500 });
      col(Comment, 'score', 'integer', { default: 0 });
      prop(T.ManyToOne(() => Post, (p) => p.comments, { onDelete: 'CASCADE', nullable: false }), Comment, 'post');
      prop(T.ManyToOne(() => User, { nullable: true, onDelete: 'SET NULL' }), Comment, 'author');
      T.Entity('comment')(Comment);
    }
    if (o.tags) {
      prop(T.PrimaryGeneratedColumn(), Tag, 'id');
      col(Tag, 'label', 'varchar', { length: 30, unique: true });
      prop(T.ManyToMany(() => Post, (p) => p.tags), Tag, 'posts');
      T.Entity('tag')(Tag);
    }
    const entities = [User, Post].concat(o.comments ? [Comment] : []).concat(o.tags ? [Tag] : []);
    return { entities, cls: { User, Post, Comment: o.comments ? Comment : null, Tag: o.tags ? Tag : null } };
  },
};

DOMAINS.shop = {
  options: (R) => draw(R, {
    tierCheck: 0.5, emailUnique: 0.7, skuLen: [12, 16, 32], stockCheck: 0.7, priceType: ['decimal', 'real', 'integer'],
    lineUnique: 0.5, statusIndex: 0.5, cascadeLines: 0.8, qtyCheck: 0.6, orderSoft: 0.3, note: 0.4, lineDelete: ['CASCADE', 'NO ACTION'],
    discount: 0.3, legacy: false,
  }),
  mutate: (R, o) => {
    const v = Object.assign({}, o);
    for (const k of R.sample(['tierCheck', 'emailUnique', 'stockCheck', 'lineUnique', 'statusIndex', 'qtyCheck', 'orderSoft',
      'note', 'discount', 'legacy', 'skuLen', 'priceType'], R.int(2, 5))) {
      if (k === 'skuLen') v.skuLen = R.pick([10, 20, 64]);
      else if (k === 'priceType') v.priceType = R.pick(['decimal', 'real', 'integer'].filter((t) => t !== o.priceType));
      else v[k] = !v[k];
    }
    return v;
  },
  build: (o) => {
    const Customer = named('Customer');
    const Product = named('Product');
    const Order = named('Order');
    const OrderLine = named('OrderLine');
    prop(T.PrimaryGeneratedColumn(), Customer, 'id');
    col(Customer, 'name', 'varchar', { length: 80 });
    col(Customer, 'email', 'varchar', { length: 120, unique: o.emailUnique });
    col(Customer, 'tier', 'varchar', { length: 10, default: 'basic' });
    if (o.legacy) col(Customer, 'faxNumber', 'varchar', { length: 20, nullable: true });
    prop(T.OneToMany(() => Order, (x) => x.customer), Customer, 'orders');
    if (o.tierCheck) T.Check('CHK_customer_tier', `"tier" IN ('basic','gold','platinum')`)(Customer);
    T.Entity('customer')(Customer);

    prop(T.PrimaryColumn('varchar', { length: o.skuLen }), Product, 'sku');
    col(Product, 'title', 'varchar', { length: 120 });
    col(Product, 'price', o.priceType, o.priceType === 'decimal' ? { precision: 10, scale: 2, default: 0 } : { default: 0 });
    col(Product, 'stock', 'integer', { default: 0 });
    if (o.discount) col(Product, 'discount', 'real', { nullable: true });
    if (o.stockCheck) T.Check('CHK_product_stock', '"stock" >= 0')(Product);
    T.Entity('product')(Product);

    prop(T.PrimaryGeneratedColumn(), Order, 'id');
    col(Order, 'status', 'varchar', { length: 16, default: 'new' });
    col(Order, 'total', 'integer', { default: 0 });
    if (o.note) col(Order, 'note', 'text', { nullable: true });
    prop(T.CreateDateColumn(), Order, 'placedAt');
    if (o.orderSoft) prop(T.DeleteDateColumn(), Order, 'cancelledAt');
    prop(T.ManyToOne(() => Customer, (c) => c.orders, { nullable: false, onDelete: 'CASCADE' }), Order, 'customer');
    prop(T.OneToMany(() => OrderLine, (l) => l.order, { cascade: o.cascadeLines }), Order, 'lines');
    if (o.statusIndex) T.Index('IDX_order_customer_status', ['customer', 'status'])(Order);
    T.Entity('orders')(Order);

    prop(T.PrimaryGeneratedColumn(), OrderLine, 'id');
    col(OrderLine, 'qty', 'integer', { default: 1 });
    prop(T.ManyToOne(() => Order, (x) => x.lines, { onDelete: o.lineDelete, nullable: false }), OrderLine, 'order');
    prop(T.ManyToOne(() => Product, { nullable: false, eager: false }), OrderLine, 'product');
    if (o.lineUnique) T.Unique('UQ_line_order_product', ['order', 'product'])(OrderLine);
    if (o.qtyCheck) T.Check('CHK_line_qty', '"qty" > 0')(OrderLine);
    T.Entity('order_line')(OrderLine);
    return { entities: [Customer, Product, Order, OrderLine], cls: { Customer, Product, Order, OrderLine } };
  },
};

DOMAINS.catalog = {
  options: (R) => draw(R, {
    tree: ['closure-table', 'nested-set', 'materialized-path'], kindCol: ['kind', 'type'], isbnUnique: 0.5, tracks: 0.7,
    priceIndex: 0.5, categoryOnItem: 0.85, slug: 0.5, legacy: false,
  }),
  mutate: (R, o) => {
    const v = Object.assign({}, o);
    for (const k of R.sample(['isbnUnique', 'tracks', 'priceIndex', 'slug', 'legacy', 'categoryOnItem'], R.int(1, 3))) v[k] = !v[k];
    return v;
  },
  build: (o) => {
    const Category = named('Category');
    const Item = named('Item');
    prop(T.PrimaryGeneratedColumn(), Category, 'id');
    col(Category, 'name', 'varchar', { length: 60 });
    if (o.slug) col(Category, 'slug', 'varchar', { length: 60, nullable: true, unique: true });
    prop(T.TreeChildren(), Category, 'children');
    prop(T.TreeParent({ onDelete: o.tree === 'nested-set' ? undefined : 'CASCADE' }), Category, 'parent');
    T.Tree(o.tree)(Category);
    T.Entity('category')(Category);

    prop(T.PrimaryGeneratedColumn(), Item, 'id');
    col(Item, 'title', 'varchar', { length: 100 });
    col(Item, 'price', 'integer', { default: 0 });
    if (o.priceIndex) prop(T.Index('IDX_item_price'), Item, 'price');
    if (o.legacy) col(Item, 'barcode', 'varchar', { length: 32, nullable: true });
    if (o.categoryOnItem) prop(T.ManyToOne(() => Category, { nullable: true, onDelete: 'SET NULL' }), Item, 'category');
    T.TableInheritance({ column: { type: 'varchar', name: o.kindCol } })(Item);
    T.Entity('item')(Item);
    const Book = ({ Book: class extends Item {} }).Book;
    col(Book, 'isbn', 'varchar', { length: 17, nullable: true, unique: o.isbnUnique });
    col(Book, 'pages', 'integer', { nullable: true });
    T.ChildEntity('book')(Book);
    const Disc = ({ Disc: class extends Item {} }).Disc;
    if (o.tracks) col(Disc, 'tracks', 'integer', { nullable: true });
    col(Disc, 'label', 'varchar', { length: 40, nullable: true });
    T.ChildEntity('disc')(Disc);
    return { entities: [Category, Item, Book, Disc], cls: { Category, Item, Book, Disc } };
  },
};

DOMAINS.accounts = {
  options: (R) => draw(R, {
    balanceCheck: 0.6, tags: 0.6, meta: 0.6, settings: 0.6, view: 0.5, noteLen: [80, 200], ownerIndex: 0.5, legacy: false,
  }),
  mutate: (R, o) => {
    const v = Object.assign({}, o);
    for (const k of R.sample(['balanceCheck', 'tags', 'meta', 'settings', 'view', 'ownerIndex', 'legacy', 'noteLen'], R.int(1, 4))) {
      if (k === 'noteLen') v.noteLen = o.noteLen === 80 ? 200 : 80;
      else v[k] = !v[k];
    }
    return v;
  },
  build: (o) => {
    const Account = named('Account');
    const Transfer = named('Transfer');
    const Settings = named('AccountSettings');
    const Summary = named('AccountSummary');
    prop(T.PrimaryGeneratedColumn('uuid'), Account, 'id');
    col(Account, 'owner', 'varchar', { length: 60 });
    if (o.ownerIndex) prop(T.Index('IDX_account_owner'), Account, 'owner');
    col(Account, 'balance', 'integer', { default: 0 });
    if (o.tags) col(Account, 'tags', 'simple-array', { nullable: true });
    if (o.meta) col(Account, 'meta', 'simple-json', { nullable: true });
    if (o.legacy) col(Account, 'pin', 'varchar', { length: 4, nullable: true });
    prop(T.VersionColumn(), Account, 'version');
    prop(T.CreateDateColumn(), Account, 'openedAt');
    if (o.balanceCheck) T.Check('CHK_account_balance', '"balance" >= 0')(Account);
    if (o.settings) {
      prop(T.OneToOne(() => Settings, (s) => s.account, { cascade: true, nullable: true }), Account, 'settings');
      prop(T.JoinColumn(), Account, 'settings');
    }
    T.Entity('account')(Account);

    prop(T.PrimaryGeneratedColumn(), Transfer, 'id');
    col(Transfer, 'amount', 'integer');
    col(Transfer, 'note', 'varchar', { length: o.noteLen, nullable: true });
    prop(T.CreateDateColumn(), Transfer, 'at');
    prop(T.ManyToOne(() => Account, { nullable: false, onDelete: 'CASCADE' }), Transfer, 'from');
    prop(T.ManyToOne(() => Account, { nullable: false, onDelete: 'CASCADE' }), Transfer, 'to');
    T.Entity('transfer')(Transfer);

    const entities = [Account, Transfer];
    if (o.settings) {
      prop(T.PrimaryGeneratedColumn(), Settings, 'id');
      col(Settings, 'currency', 'varchar', { length: 3, default: 'EUR' });
      col(Settings, 'overdraft', 'boolean', { default: false });
      prop(T.OneToOne(() => Account, (a) => a.settings), Settings, 'account');
      T.Entity('account_settings')(Settings);
      entities.push(Settings);
    }
    if (o.view) {
      prop(T.ViewColumn(), Summary, 'owner');
      prop(T.ViewColumn(), Summary, 'balance');
      prop(T.ViewColumn(), Summary, 'sent');
      const p = o.prefix || '';
      T.ViewEntity('account_summary', {
        expression: 'SELECT "a"."owner" AS "owner", "a"."balance" AS "balance", ' +
          `(SELECT COUNT(*) FROM "${p}transfer" "t" WHERE "t"."fromId" = "a"."id") AS "sent" FROM "${p}account" "a"`,
      })(Summary);
      entities.push(Summary);
    }
    return { entities, cls: { Account, Transfer, Settings: o.settings ? Settings : null, Summary: o.view ? Summary : null } };
  },
};

// Subscribers (some throwing).
function makeSubscriber(R, cls, name) {
  const mode = R.pick(['quiet', 'quiet', 'beforeInsert', 'afterLoad', 'beforeCommit', 'beforeRemove']);
  const target = cls;
  const S = named(name);
  S.prototype.listenTo = function listenTo() { return target; };
  let n = 0;
  S.prototype.beforeInsert = function beforeInsert(ev) {
    n++;
    if (mode === 'beforeInsert' && n % 3 === 0) throw new Error(`${name}: insert rejected by subscriber`);
  };
  S.prototype.afterLoad = function afterLoad(ent) {
    if (mode === 'afterLoad' && ent && typeof ent === 'object' && ++n % 5 === 0) throw new Error(`${name}: afterLoad failed`);
  };
  S.prototype.beforeRemove = function beforeRemove() { if (mode === 'beforeRemove') throw new Error(`${name}: removal forbidden`); };
  S.prototype.beforeSoftRemove = S.prototype.beforeRemove;
  S.prototype.beforeTransactionCommit = function beforeTransactionCommit() {
    if (mode === 'beforeCommit' && ++n % 4 === 0) throw new Error(`${name}: commit vetoed`);
  };
  return S;
}

// ---------------------------------------------------------------------------
// Case context and data.
function resetMetadata() {
  // every case defines its classes afresh; the decorators' global storage is emptied
  global.typeormMetadataArgsStorage = undefined;
}

function word(R) { return R.pick(WORDS); }
function sentence(R, n) { const a = []; for (let i = 0; i < n; i++) a.push(word(R)); return a.join(' '); }

function track(ctx, key, v) {
  if (v === undefined || v === null) return;
  (ctx.ids[key] = ctx.ids[key] || []).push(v);
  if (ctx.ids[key].length > 60) ctx.ids[key].shift();
}
function anyId(ctx, key, missing) {
  const a = ctx.ids[key] || [];
  if (!a.length || (missing && ctx.R.chance(missing))) return key === 'Account' ? '00000000-0000-4000-8000-000000000000' : 99000 + ctx.R.int(1, 999);
  return ctx.R.pick(a);
}

function makeRow(ctx, kind) {
  const R = ctx.R;
  const o = ctx.opts;
  const u = ctx.uniq++;
  switch (kind) {
    case 'User': {
      const r = { name: `${R.pick(FIRST)}_${u}`, email: R.chance(0.9) ? `${R.pick(FIRST)}${u}@example.test` : null };
      if (o.blog.age) r.age = R.int(16, 90);
      if (o.blog.bio && R.chance(0.5)) r[o.blog.bioName] = sentence(R, R.int(3, 12));
      if (o.blog.profile && R.chance(0.7)) r.profile = { city: R.pick(CITIES), zip: String(R.int(1000, 99999)) };
      return r;
    }
    case 'Post': {
      const r = { title: R.chance(0.06) && o.blog.listener ? `forbidden ${word(R)}` : `${word(R)} ${word(R)} ${u}`,
        body: R.chance(0.6) ? sentence(R, R.int(5, 30)) : null, views: R.int(0, 500), published: R.chance(0.5) };
      if (R.chance(0.85)) r.author = { id: anyId(ctx, 'User', 0.05) };
      if (ctx.cls.Comment && o.blog.cascadeComments && R.chance(0.4)) {
        r.comments = Array.from({ length: R.int(1, 3) }, () => ({ text: sentence(R, 4), score: R.int(0, 5) }));
      }
      return r;
    }
    case 'Comment': return { text: sentence(R, R.int(2, 10)), score: R.int(-2, 9), post: { id: anyId(ctx, 'Post', 0.05) },
      author: R.chance(0.6) ? { id: anyId(ctx, 'User') } : null };
    case 'Tag': return { label: `${word(R)}${R.chance(0.3) ? '' : u}` };
    case 'Customer': return { name: `${R.pick(FIRST)} ${word(R)}`, email: `c${R.chance(0.1) ? 1 : u}@shop.test`,
      tier: R.chance(0.08) ? 'diamond' : R.pick(['basic', 'gold', 'platinum']) };
    case 'Product': return { sku: `SKU-${word(R).slice(0, 3).toUpperCase()}-${u}`, title: `${word(R)} ${word(R)}`,
      price: R.int(1, 9999) / (o.shop.priceType === 'integer' ? 1 : 100), stock: R.chance(0.06) ? -1 : R.int(0, 50) };
    case 'Order': {
      const r = { status: R.pick(['new', 'paid', 'shipped', 'cancelled']), total: 0, customer: { id: anyId(ctx, 'Customer', 0.04) } };
      if (o.shop.cascadeLines && R.chance(0.6)) {
        r.lines = Array.from({ length: R.int(1, 4) }, () => ({ qty: R.chance(0.05) ? 0 : R.int(1, 5), product: { sku: anyId(ctx, 'Product', 0.05) } }));
      }
      return r;
    }
    case 'OrderLine': return { qty: R.chance(0.06) ? 0 : R.int(1, 9), order: { id: anyId(ctx, 'Order', 0.05) },
      product: { sku: anyId(ctx, 'Product', 0.05) } };
    case 'Category': return { name: `${word(R)}-${u}`, slug: o.catalog.slug && R.chance(0.7) ? `${word(R)}-${R.int(1, 30)}` : undefined,
      parent: ctx.ids.Category && ctx.ids.Category.length && R.chance(0.7) ? { id: anyId(ctx, 'Category') } : null };
    case 'Book': return { title: `${word(R)} of ${word(R)}`, price: R.int(5, 80), isbn: R.chance(0.8) ? `978-${R.int(0, 9)}-${R.int(100, 999)}-${R.int(10, 99)}` : null,
      pages: R.int(40, 900), category: o.catalog.categoryOnItem && ctx.ids.Category ? { id: anyId(ctx, 'Category') } : undefined };
    case 'Disc': return { title: `${word(R)} ${word(R)}`, price: R.int(5, 40), tracks: o.catalog.tracks ? R.int(4, 20) : undefined,
      label: R.chance(0.6) ? word(R) : null, category: o.catalog.categoryOnItem && ctx.ids.Category ? { id: anyId(ctx, 'Category') } : undefined };
    case 'Account': {
      const r = { owner: `${R.pick(FIRST)}${u}`, balance: R.chance(0.05) ? -R.int(1, 50) : R.int(0, 1000) };
      if (o.accounts.tags) r.tags = R.sample(WORDS, R.int(0, 3));
      if (o.accounts.meta) r.meta = { tier: R.pick(['a', 'b']), since: 2000 + R.int(0, 24) };
      if (o.accounts.settings && R.chance(0.5)) r.settings = { currency: R.pick(['EUR', 'USD', 'NOK']), overdraft: R.chance(0.3) };
      return r;
    }
    case 'Transfer': return { amount: R.int(1, 300), note: R.chance(0.4) ? sentence(R, 3) : null,
      from: { id: anyId(ctx, 'Account', 0.05) }, to: { id: anyId(ctx, 'Account', 0.05) } };
    case 'Note': return { body: sentence(R, R.int(2, 6)), pinned: R.chance(0.3) };
    default: return {};
  }
}

const ID_PROP = { Product: 'sku' };
// entity kinds of the case -> target (class or schema name)
function kinds(ctx) { return Object.keys(ctx.targets); }
function repo(ctx, kind, manager) { return (manager || ctx.ds.manager).getRepository(ctx.targets[kind]); }
function idOf(kind, e) { return e ? e[ID_PROP[kind] || 'id'] : undefined; }

function expected(e) {
  // errors the steps provoke on purpose or that follow from the case's setup
  return !!e && (e instanceof T.TypeORMError ||
    /rejected by subscriber|afterLoad failed|removal forbidden|commit vetoed|title not allowed|planned rollback|migration (step )?failed/.test(e.message));
}

// ---------------------------------------------------------------------------
// Steps.
const STEPS = {};

STEPS.insertOne = async (ctx, R) => {
  const k = R.pick(ctx.insertable);
  const r = repo(ctx, k);
  const row = makeRow(ctx, k);
  const saved = R.chance(0.7) ? await r.save(r.create(row)) : (await r.insert(row), row);
  track(ctx, k, idOf(k, saved));
};

STEPS.insertMany = async (ctx, R, kind) => {
  const k = kind || R.pick(ctx.insertable);
  const r = repo(ctx, k);
  const n = R.pick([2, 3, 4, 6, 10, 25]);
  const rows = Array.from({ length: n }, () => makeRow(ctx, k));
  const how = R.pick(['save', 'save', 'insert', 'qb']);
  if (how === 'save') {
    const saved = await r.save(rows.map((x) => r.create(x)), { chunk: R.chance(0.3) ? R.pick([5, 10]) : undefined });
    for (const s of saved) track(ctx, k, idOf(k, s));
  } else if (how === 'insert') {
    const res = await r.insert(rows);
    for (const id of res.identifiers || []) track(ctx, k, id && idOf(k, id));
  } else {
    const qb = r.createQueryBuilder().insert().into(ctx.targets[k]).values(rows);
    if (R.chance(0.5)) qb.orIgnore();
    const res = await qb.execute();
    for (const id of res.identifiers || []) track(ctx, k, id && idOf(k, id));
  }
};

function randomWhere(ctx, R, k) {
  const T_ = T;
  switch (k) {
    case 'User': return R.pick([{ name: T_.Like(`${R.pick(FIRST)}%`) }, { id: T_.In([1, 2, 3, anyId(ctx, 'User')]) },
      ctx.opts.blog.age ? { age: T_.MoreThan(R.int(20, 60)) } : { email: T_.IsNull() }, {}]);
    case 'Post': return R.pick([{ published: R.chance(0.5) }, { views: T_.Between(10, R.int(50, 400)) },
      { title: T_.ILike(`%${word(R)}%`) }, { author: { id: anyId(ctx, 'User') } }, {}]);
    case 'Comment': return R.pick([{ score: T_.MoreThanOrEqual(3) }, { post: { id: anyId(ctx, 'Post') } }, {}]);
    case 'Tag': return R.pick([{ label: T_.Like(`${word(R)}%`) }, {}]);
    case 'Customer': return R.pick([{ tier: R.pick(['gold', 'basic']) }, { email: T_.Like('%@shop.test') }, {}]);
    case 'Product': return R.pick([{ stock: T_.LessThan(5) }, { price: T_.MoreThan(10) }, { sku: anyId(ctx, 'Product') }, {}]);
    case 'Order': return R.pick([{ status: T_.In(['new', 'paid']) }, { customer: { id: anyId(ctx, 'Customer') } }, {}]);
    case 'OrderLine': return R.pick([{ qty: T_.MoreThan(2) }, {}]);
    case 'Category': return R.pick([{ name: T_.Like(`${word(R)}%`) }, {}]);
    case 'Book': case 'Disc': case 'Item': return R.pick([{ price: T_.LessThanOrEqual(R.int(10, 60)) }, { title: T_.Like(`%${word(R)}%`) }, {}]);
    case 'Account': return R.pick([{ balance: T_.MoreThan(100) }, { owner: T_.Like(`${R.pick(FIRST)}%`) }, {}]);
    case 'Transfer': return R.pick([{ amount: T_.MoreThan(50) }, {}]);
    case 'Note': return R.pick([{ pinned: true }, {}]);
    default: return {};
  }
}

function relationsFor(ctx, R, k) {
  const meta = ctx.ds.getMetadata(ctx.targets[k]);
  const rels = meta.relations.map((r) => r.propertyName).filter((p) => !['parent', 'children'].includes(p) || R.chance(0.3));
  if (!rels.length || R.chance(0.35)) return undefined;
  const out = {};
  for (const p of R.sample(rels, R.int(1, rels.length))) out[p] = true;
  if (out.comments && ctx.cls.Comment && R.chance(0.4)) out.comments = { author: true };
  if (out.lines && R.chance(0.5)) out.lines = { product: true };
  return out;
}

STEPS.find = async (ctx, R) => {
  const k = R.pick(ctx.findable);
  const r = repo(ctx, k);
  const opts = { where: randomWhere(ctx, R, k) };
  const rel = relationsFor(ctx, R, k);
  if (rel) opts.relations = rel;
  if (R.chance(0.4)) opts.take = R.int(1, 10);
  if (R.chance(0.2)) opts.skip = R.int(0, 5);
  if (R.chance(0.4)) opts.order = { [ID_PROP[k] || 'id']: R.pick(['ASC', 'DESC']) };
  if (ctx.softKinds.includes(k) && R.chance(0.3)) opts.withDeleted = true;
  if (ctx.dsOpts.cache && R.chance(0.5)) opts.cache = R.pick([true, 5000]);
  if (R.chance(0.15)) opts.relationLoadStrategy = R.pick(['join', 'query']);
  const how = R.pick(['find', 'find', 'findOne', 'findAndCount', 'count', 'exists', 'findOneOrFail']);
  if (how === 'find') await r.find(opts);
  else if (how === 'findOne') await r.findOne(opts);
  else if (how === 'findAndCount') await r.findAndCount(opts);
  else if (how === 'count') await r.count({ where: opts.where });
  else if (how === 'exists') await r.exists({ where: opts.where });
  else await r.findOneOrFail({ where: { [ID_PROP[k] || 'id']: anyId(ctx, k, 0.4) } });
};

STEPS.aggregate = async (ctx, R) => {
  const pairs = [['Post', 'views'], ['Comment', 'score'], ['Product', 'stock'], ['Product', 'price'], ['Order', 'total'],
    ['OrderLine', 'qty'], ['Book', 'price'], ['Item', 'price'], ['Account', 'balance'], ['Transfer', 'amount']]
    .filter(([k]) => ctx.targets[k]);
  if (!pairs.length) return STEPS.find(ctx, R);
  const [k, c] = R.pick(pairs);
  const r = repo(ctx, k);
  const f = R.pick(['sum', 'average', 'minimum', 'maximum']);
  await r[f](c, R.chance(0.5) ? randomWhere(ctx, R, k) : undefined);
};

STEPS.queryBuilder = async (ctx, R) => {
  const k = R.pick(ctx.findable);
  const meta = ctx.ds.getMetadata(ctx.targets[k]);
  const alias = k.toLowerCase().slice(0, 3);
  const qb = ctx.ds.getRepository(ctx.targets[k]).createQueryBuilder(alias);
  for (const rel of R.sample(meta.relations.filter((x) => !x.isTreeChildren), R.int(0, 2))) {
    const a = `${alias}_${rel.propertyName}`;
    if (R.chance(0.6)) qb.leftJoinAndSelect(`${alias}.${rel.propertyName}`, a);
    else qb.innerJoin(`${alias}.${rel.propertyName}`, a);
  }
  const idc = ID_PROP[k] || 'id';
  const form = R.pick(['param', 'in', 'brackets', 'subquery', 'none', 'bad']);
  if (form === 'param') qb.where(`${alias}.${idc} ${R.pick(['>', '<>', '='])} :v`, { v: anyId(ctx, k) });
  else if (form === 'in') qb.where(`${alias}.${idc} IN (:...ids)`, { ids: (ctx.ids[k] || [1]).slice(0, R.int(1, 6)) });
  else if (form === 'brackets') {
    qb.where(new T.Brackets((b) => { b.where(`${alias}.${idc} IS NOT NULL`).orWhere(`${alias}.${idc} = :z`, { z: 0 }); }));
  } else if (form === 'subquery') {
    qb.where((sq) => `${alias}.${idc} IN ` + sq.subQuery().select(`s.${idc}`).from(ctx.targets[k], 's').limit(5).getQuery());
  } else if (form === 'bad') {
    qb.where(`${alias}.${R.pick(['nope', 'deleted', 'ownerName'])} = :x`, { x: 1 });
  }
  if (R.chance(0.4)) qb.orderBy(`${alias}.${idc}`, R.pick(['ASC', 'DESC']));
  if (R.chance(0.3)) qb.take(R.int(1, 5)).skip(R.int(0, 3));
  if (ctx.dsOpts.cache && R.chance(0.3)) qb.cache(true);
  if (R.chance(0.12)) qb.printSql();
  const how = R.pick(['getMany', 'getOne', 'getRawMany', 'getCount', 'getManyAndCount', 'getRawOne']);
  await qb[how]();
};

STEPS.groupBy = async (ctx, R) => {
  const opts = [];
  if (ctx.cls.Post) opts.push(() => ctx.ds.getRepository(ctx.cls.Post).createQueryBuilder('p').select('p.authorId', 'author')
    .addSelect('COUNT(*)', 'n').addSelect('SUM(p.views)', 'views').groupBy('p.authorId').having('COUNT(*) > :m', { m: R.int(0, 2) }));
  if (ctx.cls.Order) opts.push(() => ctx.ds.getRepository(ctx.cls.Order).createQueryBuilder('o').select('o.status', 'status')
    .addSelect('COUNT(o.id)', 'n').groupBy('o.status').orderBy('n', 'DESC'));
  if (ctx.cls.OrderLine) opts.push(() => ctx.ds.getRepository(ctx.cls.OrderLine).createQueryBuilder('l').leftJoin('l.product', 'p')
    .select('p.sku', 'sku').addSelect('SUM(l.qty)', 'qty').groupBy('p.sku'));
  if (ctx.cls.Item) opts.push(() => ctx.ds.getRepository(ctx.cls.Item).createQueryBuilder('i').select(`i.${ctx.opts.catalog.kindCol}`, 'kind')
    .addSelect('AVG(i.price)', 'avg').groupBy(`i.${ctx.opts.catalog.kindCol}`));
  if (ctx.cls.Transfer) opts.push(() => ctx.ds.getRepository(ctx.cls.Transfer).createQueryBuilder('t').select('t.fromId', 'from')
    .addSelect('SUM(t.amount)', 'total').groupBy('t.fromId'));
  if (!opts.length) return STEPS.find(ctx, R);
  const qb = R.pick(opts)();
  if (R.chance(0.15)) qb.printSql();
  await qb.getRawMany();
};

STEPS.update = async (ctx, R) => {
  const k = R.pick(ctx.insertable);
  const r = repo(ctx, k);
  const idc = ID_PROP[k] || 'id';
  const patch = makeRow(ctx, k);
  for (const key of Object.keys(patch)) {
    if (typeof patch[key] === 'object' && patch[key] !== null && !Array.isArray(patch[key]) && key !== 'meta' && key !== 'profile') delete patch[key];
    else if (key === idc || Array.isArray(patch[key]) || R.chance(0.4)) delete patch[key];
  }
  if (!Object.keys(patch).length) return STEPS.find(ctx, R);
  const how = R.pick(['update', 'qb', 'saveLoaded', 'updateWhere']);
  if (how === 'update') await r.update(anyId(ctx, k, 0.15), patch);
  else if (how === 'updateWhere') await r.update(randomWhere(ctx, R, k), patch);
  else if (how === 'qb') {
    await r.createQueryBuilder().update(ctx.targets[k]).set(patch).where(`${idc} = :id`, { id: anyId(ctx, k) }).execute();
  } else {
    const e = await r.findOne({ where: { [idc]: anyId(ctx, k) } });
    if (e) { Object.assign(e, patch); await r.save(e); }
  }
};

STEPS.remove = async (ctx, R) => {
  const k = R.pick(ctx.insertable);
  const r = repo(ctx, k);
  const idc = ID_PROP[k] || 'id';
  const how = R.pick(['delete', 'remove', 'qb', 'deleteMany']);
  if (how === 'delete') await r.delete(anyId(ctx, k, 0.2));
  else if (how === 'deleteMany') await r.delete({ [idc]: T.In((ctx.ids[k] || []).slice(0, R.int(1, 4))) });
  else if (how === 'qb') await r.createQueryBuilder().delete().from(ctx.targets[k]).where(`${idc} = :id`, { id: anyId(ctx, k) }).execute();
  else {
    const e = await r.findOne({ where: { [idc]: anyId(ctx, k) } });
    if (e) await r.remove(e);
  }
};

STEPS.softDelete = async (ctx, R) => {
  if (!ctx.softKinds.length) return STEPS.remove(ctx, R);
  const k = R.pick(ctx.softKinds);
  const r = repo(ctx, k);
  const how = R.pick(['softDelete', 'restore', 'softRemove', 'recover', 'withDeleted']);
  const id = anyId(ctx, k);
  if (how === 'softDelete') await r.softDelete(id);
  else if (how === 'restore') await r.restore(id);
  else if (how === 'withDeleted') await r.find({ withDeleted: true, where: { id: T.In((ctx.ids[k] || []).slice(0, 5)) } });
  else {
    const e = await r.findOne({ where: { id }, withDeleted: how === 'recover' });
    if (e) await (how === 'softRemove' ? r.softRemove(e) : r.recover(e));
  }
};

STEPS.upsert = async (ctx, R) => {
  const cands = [['User', ['name']], ['Tag', ['label']], ['Product', ['sku']], ['Customer', ['email']], ['Note', ['id']]]
    .filter(([k]) => ctx.targets[k] && ctx.insertable.includes(k));
  if (!cands.length) return STEPS.insertOne(ctx, R);
  const [k, conflict] = R.pick(cands);
  const r = repo(ctx, k);
  const rows = Array.from({ length: R.int(1, 4) }, () => makeRow(ctx, k));
  if (k === 'Product' && ctx.ids.Product && R.chance(0.6)) rows[0].sku = anyId(ctx, 'Product');
  if (k === 'User' && R.chance(0.5)) rows[0].name = `${R.pick(FIRST)}_${R.int(0, 5)}`;
  for (const row of rows) for (const key of Object.keys(row)) if (row[key] && typeof row[key] === 'object' && !Array.isArray(row[key]) && key !== 'meta' && key !== 'profile') delete row[key];
  if (R.chance(0.7)) {
    await r.upsert(rows, { conflictPaths: conflict, skipUpdateIfNoValuesChanged: R.chance(0.5) });
  } else {
    const cols = Object.keys(rows[0]).filter((c) => !conflict.includes(c));
    await r.createQueryBuilder().insert().into(ctx.targets[k]).values(rows).orUpdate(cols.length ? cols : conflict, conflict).execute();
  }
};

STEPS.increment = async (ctx, R) => {
  const pairs = [['Post', 'views'], ['Comment', 'score'], ['Product', 'stock'], ['Account', 'balance'], ['OrderLine', 'qty']]
    .filter(([k]) => ctx.targets[k]);
  if (!pairs.length) return STEPS.update(ctx, R);
  const [k, c] = R.pick(pairs);
  const r = repo(ctx, k);
  const where = { [ID_PROP[k] || 'id']: anyId(ctx, k) };
  if (R.chance(0.5)) await r.increment(where, c, R.int(1, 10));
  else await r.decrement(where, c, R.int(1, 80));
};

async function someWork(ctx, R, m, n) {
  for (let i = 0; i < n; i++) {
    const k = R.pick(ctx.insertable);
    const r = repo(ctx, k, m);
    const w = R.int(0, 3);
    if (w === 0) { const s = await r.save(r.create(makeRow(ctx, k))); track(ctx, k, idOf(k, s)); }
    else if (w === 1) await r.find({ where: randomWhere(ctx, R, k), take: 5 });
    else if (w === 2) await r.update(anyId(ctx, k), pickPatch(ctx, R, k));
    else await r.delete(anyId(ctx, k, 0.3));
  }
}
function pickPatch(ctx, R, k) {
  const p = {
    User: { email: `${R.pick(FIRST)}@example.test` }, Post: { views: R.int(0, 900) }, Comment: { score: R.int(0, 9) }, Tag: { label: `${word(R)}x${ctx.uniq++}` },
    Customer: { tier: R.pick(['gold', 'basic', 'diamond']) }, Product: { stock: R.int(-2, 40) }, Order: { status: R.pick(['paid', 'shipped']) },
    OrderLine: { qty: R.int(0, 4) }, Category: { name: word(R) }, Book: { pages: R.int(10, 99) }, Disc: { label: word(R) },
    Account: { owner: `${R.pick(FIRST)}${ctx.uniq++}` }, Transfer: { note: word(R) }, Note: { pinned: R.chance(0.5) },
  }[k];
  return p || {};
}

STEPS.transaction = async (ctx, R) => {
  const fail = R.pick([null, null, 'throw', 'badsql', 'constraint']);
  const iso = R.chance(0.3) ? R.pick(['READ UNCOMMITTED', 'SERIALIZABLE']) : undefined;
  const body = async (m) => {
    await someWork(ctx, R, m, R.int(1, 4));
    if (R.chance(0.25)) {
      // nested: a savepoint
      await m.transaction(async (m2) => {
        await someWork(ctx, R, m2, R.int(1, 2));
        if (R.chance(0.4)) throw new Error('planned rollback of the savepoint');
      }).catch((e) => { if (!expected(e)) throw e; });
    }
    if (fail === 'throw') throw new Error('planned rollback');
    if (fail === 'badsql') await m.query(R.pick(['SELECT * FROM "missing_table"', 'UPDATE SET x = 1', 'SELECT nope FROM "sqlite_master"']));
    if (fail === 'constraint') await badQuery(ctx, R, m);
  };
  if (iso) await ctx.ds.transaction(iso, body); else await ctx.ds.transaction(body);
};

STEPS.queryRunner = async (ctx, R) => {
  const qr = ctx.ds.createQueryRunner();
  await qr.connect();
  try {
    await qr.startTransaction(R.chance(0.3) ? R.pick(['READ UNCOMMITTED', 'SERIALIZABLE']) : undefined);
    await someWork(ctx, R, qr.manager, R.int(1, 3));
    if (R.chance(0.4)) {
      await qr.startTransaction();
      await someWork(ctx, R, qr.manager, 1);
      if (R.chance(0.5)) await qr.rollbackTransaction(); else await qr.commitTransaction();
    }
    if (R.chance(0.3)) await badQuery(ctx, R, qr.manager).catch(() => {});
    if (R.chance(0.5)) await qr.commitTransaction(); else await qr.rollbackTransaction();
  } catch (e) {
    if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => {});
    throw e;
  } finally {
    await qr.release();
  }
};

async function badQuery(ctx, R, m) {
  m = m || ctx.ds.manager;
  const opts = [
    () => m.query('SELECT * FROM "no_such_table" WHERE "id" = ?', [R.int(1, 9)]),
    () => m.query(R.pick(['SELEC 1', 'INSERT INTO', 'DELETE FROM WHERE id = 1', 'SELECT * FROM (SELECT 1'])),
    () => m.query('SELECT "nope" FROM "sqlite_master"'),
    () => m.query('SELECT ? + ?', [1]),
  ];
  if (ctx.cls.User && ctx.opts.blog.nameUnique && ctx.ids.User) opts.push(async () => {
    const u = await m.findOne(ctx.cls.User, { where: { id: anyId(ctx, 'User') } });
    if (u) await m.insert(ctx.cls.User, { name: u.name });
  });
  if (ctx.cls.Tag && ctx.ids.Tag) opts.push(() => m.query('INSERT INTO "' + ctx.table('tag') + '" ("label") SELECT "label" FROM "' + ctx.table('tag') + '" LIMIT 1'));
  if (ctx.cls.Comment) opts.push(() => m.insert(ctx.cls.Comment, { text: 'orphan', post: { id: 424242 } }));
  if (ctx.cls.Post) opts.push(() => m.insert(ctx.cls.Post, { title: null }));
  if (ctx.cls.Product && ctx.opts.shop.stockCheck) opts.push(() => m.insert(ctx.cls.Product, { sku: `NEG-${ctx.uniq++}`, title: 'x', stock: -5 }));
  if (ctx.cls.Customer && ctx.opts.shop.tierCheck) opts.push(() => m.insert(ctx.cls.Customer, { name: 'z', email: `z${ctx.uniq++}@x`, tier: 'iron' }));
  if (ctx.cls.Account && ctx.opts.accounts.balanceCheck) opts.push(() => m.insert(ctx.cls.Account, { owner: 'neg', balance: -1 }));
  if (ctx.cls.Order) opts.push(() => m.insert(ctx.cls.Order, { status: 'new', customer: { id: 31337 } }));
  await R.pick(opts)();
}
STEPS.badQuery = async (ctx, R) => badQuery(ctx, R);

STEPS.raw = async (ctx, R) => {
  const t = R.pick(ctx.tables);
  const opts = [
    () => ctx.ds.query(`SELECT COUNT(*) AS "n" FROM "${t}"`),
    () => ctx.ds.query(`SELECT * FROM "${t}" LIMIT ?`, [R.int(1, 5)]),
    () => ctx.ds.query(`PRAGMA table_info("${t}")`),
    () => ctx.ds.query(`EXPLAIN QUERY PLAN SELECT * FROM "${t}" WHERE rowid > ?`, [R.int(0, 9)]),
    () => ctx.ds.query('SELECT "name", "type" FROM "sqlite_master" WHERE "type" IN (?, ?) ORDER BY "name"', ['table', 'index']),
    () => ctx.ds.query('PRAGMA foreign_key_check'),
    () => ctx.ds.query(`WITH RECURSIVE "seq"("n") AS (SELECT 1 UNION ALL SELECT "n" + 1 FROM "seq" WHERE "n" < ?) SELECT SUM("n") AS "s" FROM "seq"`, [R.int(10, 3000)]),
  ];
  await R.pick(opts)();
};

STEPS.relations = async (ctx, R) => {
  const opts = [];
  if (ctx.cls.Tag && ctx.ids.Post && ctx.ids.Tag) opts.push(async () => {
    const rq = ctx.ds.createQueryBuilder().relation(ctx.cls.Post, 'tags').of(anyId(ctx, 'Post'));
    const w = R.int(0, 3);
    if (w === 0) await rq.add(R.sample(ctx.ids.Tag, R.int(1, 3)));
    else if (w === 1) await rq.remove(anyId(ctx, 'Tag'));
    else if (w === 2) await rq.loadMany();
    else await rq.addAndRemove([anyId(ctx, 'Tag')], [anyId(ctx, 'Tag')]);
  });
  if (ctx.cls.Post && ctx.ids.Post) opts.push(async () => {
    const rq = ctx.ds.createQueryBuilder().relation(ctx.cls.Post, 'author').of(anyId(ctx, 'Post'));
    if (R.chance(0.5)) await rq.set(R.chance(0.2) ? null : anyId(ctx, 'User', 0.1)); else await rq.loadOne();
  });
  if (ctx.cls.Post && ctx.cls.Tag) opts.push(async () => {
    const p = await ctx.ds.getRepository(ctx.cls.Post).findOne({ where: { id: anyId(ctx, 'Post') }, relations: { tags: true } });
    if (p) {
      p.tags = (p.tags || []).concat([{ id: anyId(ctx, 'Tag', 0.1) }]).slice(R.int(0, 1));
      await ctx.ds.getRepository(ctx.cls.Post).save(p);
    }
  });
  if (ctx.cls.Order && ctx.ids.Order) opts.push(async () => {
    await ctx.ds.getRepository(ctx.cls.Order).find({ where: { id: anyId(ctx, 'Order') }, relations: { lines: { product: true }, customer: true } });
  });
  if (ctx.cls.Customer && ctx.ids.Customer) opts.push(async () => {
    const rq = ctx.ds.createQueryBuilder().relation(ctx.cls.Customer, 'orders').of(anyId(ctx, 'Customer'));
    await rq.loadMany();
  });
  if (ctx.cls.Settings && ctx.ids.Account) opts.push(async () => {
    await ctx.ds.getRepository(ctx.cls.Account).find({ relations: { settings: true }, take: R.int(1, 5) });
  });
  if (!opts.length) return STEPS.find(ctx, R);
  await R.pick(opts)();
};

STEPS.domain = async (ctx, R) => {
  const opts = [];
  if (ctx.cls.Category) {
    opts.push(async () => {
      const tr = ctx.ds.getTreeRepository(ctx.cls.Category);
      const w = R.int(0, 4);
      if (w === 0) await tr.findTrees({ depth: R.int(1, 4) });
      else if (w === 1 || w === 2) {
        const c = await tr.findOne({ where: { id: anyId(ctx, 'Category') } });
        if (c) await (w === 1 ? tr.findDescendantsTree(c) : tr.findAncestors(c));
      } else if (w === 3) await tr.findRoots();
      else {
        const c = await tr.findOne({ where: { id: anyId(ctx, 'Category') } });
        if (c) await tr.countDescendants(c);
      }
    });
    opts.push(async () => {
      const tr = ctx.ds.getTreeRepository(ctx.cls.Category);
      let parent = null;
      for (let i = 0; i < R.int(1, 3); i++) {
        const c = await tr.save(tr.create({ name: `${word(R)}-${ctx.uniq++}`, parent }));
        track(ctx, 'Category', c.id);
        parent = c;
      }
    });
  }
  if (ctx.cls.Item) opts.push(async () => {
    const k = R.pick(['Item', 'Book', 'Disc']);
    await ctx.ds.getRepository(ctx.targets[k]).find({ where: randomWhere(ctx, R, k), take: R.int(1, 8),
      relations: ctx.opts.catalog.categoryOnItem && R.chance(0.5) ? { category: true } : undefined });
  });
  if (ctx.cls.Account) {
    opts.push(async () => {
      // a transfer: two balance updates and a row, all or nothing
      await ctx.ds.transaction(async (m) => {
        const amount = R.int(1, 900);
        const from = anyId(ctx, 'Account');
        const to = anyId(ctx, 'Account');
        await m.decrement(ctx.cls.Account, { id: from }, 'balance', amount);
        await m.increment(ctx.cls.Account, { id: to }, 'balance', amount);
        await m.insert(ctx.cls.Transfer, { amount, from: { id: from }, to: { id: to }, note: R.chance(0.3) ? word(R) : null });
      });
    });
    opts.push(async () => {
      // optimistic lock with a stale version
      await ctx.ds.getRepository(ctx.cls.Account).findOne({ where: { id: anyId(ctx, 'Account') },
        lock: { mode: 'optimistic', version: R.int(1, 3) } });
    });
    if (ctx.cls.Summary) opts.push(() => ctx.ds.getRepository(ctx.cls.Summary).find({ take: R.int(1, 10) }));
  }
  if (ctx.cls.Order && ctx.ids.Customer) opts.push(async () => {
    // an order with lines, stock taken in the same transaction
    await ctx.ds.transaction(async (m) => {
      const o = await m.save(ctx.cls.Order, { status: 'new', customer: { id: anyId(ctx, 'Customer') } });
      track(ctx, 'Order', o.id);
      for (let i = 0; i < R.int(1, 3); i++) {
        const sku = anyId(ctx, 'Product', 0.1);
        const qty = R.int(1, 6);
        await m.insert(ctx.cls.OrderLine, { qty, order: { id: o.id }, product: { sku } });
        await m.decrement(ctx.cls.Product, { sku }, 'stock', qty);
      }
      await m.update(ctx.cls.Order, o.id, { status: 'paid', total: R.int(10, 500) });
    });
  });
  if (ctx.cls.Post && ctx.opts.blog.listener) opts.push(async () => {
    const r = ctx.ds.getRepository(ctx.cls.Post);
    await r.save(r.create({ title: `forbidden ${word(R)}`, views: 0 }));
  });
  if (!opts.length) return STEPS.find(ctx, R);
  await R.pick(opts)();
};

STEPS.schemaChange = async (ctx, R) => {
  const qr = ctx.ds.createQueryRunner();
  try {
    const t = R.pick(ctx.tables);
    const w = R.int(0, 6);
    if (w === 0) await qr.addColumn(t, new T.TableColumn({ name: `extra_${ctx.uniq++}`, type: R.pick(['integer', 'varchar', 'text']), isNullable: true }));
    else if (w === 1) {
      const tbl = await qr.getTable(t);
      const c = tbl && tbl.columns.find((x) => !x.isPrimary && !x.isGenerated);
      if (c) await qr.createIndex(t, new T.TableIndex({ name: `IDX_${t}_${c.name}_${ctx.uniq++}`, columnNames: [c.name], isUnique: R.chance(0.3) }));
    } else if (w === 2) {
      await qr.createTable(new T.Table({ name: `scratch_${ctx.uniq++}`, columns: [
        { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'payload', type: 'text', isNullable: true }] }), true);
    } else if (w === 3) {
      await qr.hasTable(t); await qr.hasColumn(t, R.pick(['id', 'name', 'title', 'nope']));
    } else if (w === 4) {
      await ctx.ds.synchronize();
    } else if (w === 5) {
      await qr.dropTable(R.pick(['scratch_0', t + '_missing']), R.chance(0.5));
    } else {
      await qr.renameColumn(t, R.pick(['title', 'name', 'label', 'body']), `renamed_${ctx.uniq++}`);
    }
  } finally {
    await qr.release();
  }
};

STEPS.migrations = async (ctx, R) => {
  if (!ctx.dsOpts.migrations || !ctx.dsOpts.migrations.length) return STEPS.find(ctx, R);
  const w = R.int(0, 3);
  if (w === 0) await ctx.ds.showMigrations();
  else if (w === 1) await ctx.ds.undoLastMigration({ transaction: R.pick(['all', 'each', 'none']) });
  else await ctx.ds.runMigrations({ transaction: R.pick(['all', 'each', 'none']), fake: R.chance(0.1) });
};

STEPS.clear = async (ctx, R) => {
  const k = R.pick(ctx.insertable);
  if (R.chance(0.5)) await ctx.ds.manager.clear(ctx.targets[k]);
  else await ctx.ds.manager.createQueryBuilder().delete().from(ctx.targets[k]).execute();
};

STEPS.bigLookup = async (ctx, R) => {
  // long IN lists: large statements to prepare (slow-query records in cases with a small limit)
  const k = R.pick(ctx.findable);
  const ids = Array.from({ length: R.pick([200, 500, 900]) }, (_, i) => (k === 'Account' ? `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` : i + 1));
  await repo(ctx, k).find({ where: { [ID_PROP[k] || 'id']: T.In(ids) } });
};

const STEP_WEIGHTS = [
  ['insertOne', 10], ['insertMany', 7], ['find', 12], ['aggregate', 3], ['queryBuilder', 9], ['groupBy', 3], ['update', 7],
  ['remove', 5], ['softDelete', 4], ['upsert', 4], ['increment', 3], ['transaction', 7], ['queryRunner', 4], ['badQuery', 6],
  ['raw', 4], ['relations', 6], ['domain', 7], ['schemaChange', 3], ['migrations', 2], ['clear', 1], ['bigLookup', 2],
];
function pickStep(R) {
  const total = STEP_WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let x = R.rand() * total;
  for (const [n, w] of STEP_WEIGHTS) { x -= w; if (x < 0) return n; }
  return 'find';
}

// ---------------------------------------------------------------------------
// Schema setups.
const LEVELS = ['query', 'error', 'schema', 'warn', 'info', 'log', 'migration'];
const DEBUG_NS = {
  query: ['typeorm:query:log'], error: ['typeorm:query:error', 'typeorm:error'], schema: ['typeorm:schema'],
  warn: ['typeorm:warn'], info: ['typeorm:info'], log: ['typeorm:log'], migration: ['typeorm:migration'],
};

function buildEntities(R, o, pick) {
  resetMetadata();
  const cls = {};
  const entities = [];
  for (const d of pick) {
    const b = DOMAINS[d].build(o[d]);
    Object.assign(cls, b.cls);
    entities.push(...b.entities);
  }
  return { cls, entities };
}

function migrationClass(name, ts, up, down, extra) {
  const C = named(`${name}${ts}`);
  C.prototype.up = up;
  C.prototype.down = down || (async () => {});
  if (extra) Object.assign(C.prototype, extra);
  return C;
}

async function generatedMigrations(R, baseOpts, entities, fromDb) {
  // what `migration:generate` does: the schema builder's log() of the entities
  // against an empty (or the earlier) database, run by an uncaptured DataSource
  const prep = new T.DataSource(Object.assign({}, baseOpts, { entities, synchronize: false, migrations: [], logging: false,
    logger: customLogger([], 'text'), database: fromDb, migrationsRun: false, subscribers: [] }));
  await prep.initialize();
  const sql = await prep.driver.createSchemaBuilder().log();
  await prep.destroy();
  const ups = sql.upQueries.map((q) => [q.query, q.parameters]);
  const downs = sql.downQueries.map((q) => [q.query, q.parameters]).reverse();
  return { ups, downs };
}

async function earlierDatabase(baseOpts, entities) {
  const prep = new T.DataSource(Object.assign({}, baseOpts, { entities, synchronize: true, migrations: [], logging: false,
    logger: customLogger([], 'text'), subscribers: [] }));
  await prep.initialize();
  // some rows, so that later column changes copy data
  const data = prep.driver.export();
  await prep.destroy();
  return data;
}

async function setupSchema(ctx, R) {
  const mode = R.pick(['sync', 'sync', 'sync', 'sync', 'drop', 'upgrade', 'upgrade', 'upgrade', 'migrations', 'migrations', 'migrations', 'none']);
  ctx.mode = mode;
  const base = { type: 'sqljs', entityPrefix: ctx.dsOpts.entityPrefix };
  if (mode === 'sync' || mode === 'drop') {
    ctx.dsOpts.synchronize = true;
    ctx.dsOpts.dropSchema = mode === 'drop';
  } else if (mode === 'upgrade') {
    const older = {};
    for (const d of ctx.domains) older[d] = DOMAINS[d].mutate(R, ctx.opts[d]);
    const dropDomain = ctx.domains.length > 1 && R.chance(0.2) ? ctx.domains[1] : null;
    const v1 = buildEntities(R, older, ctx.domains.filter((d) => d !== dropDomain));
    ctx.dsOpts.database = await earlierDatabase(base, v1.entities);
    ctx.dsOpts.synchronize = R.chance(0.85);
    if (!ctx.dsOpts.synchronize) {
      ctx.dsOpts.migrations = [migrationClass('Upgrade', TS0 + 50000,
        async function up(q) { throw new Error('migration step failed: upgrade not written yet'); })];
      ctx.runMigrations = true;
    }
  } else if (mode === 'migrations') {
    const fromOlder = R.chance(0.25);
    let db;
    if (fromOlder) {
      const older = {};
      for (const d of ctx.domains) older[d] = DOMAINS[d].mutate(R, ctx.opts[d]);
      db = await earlierDatabase(base, buildEntities(R, older, ctx.domains).entities);
      ctx.dsOpts.database = db;
    }
    const cur = buildEntities(R, ctx.opts, ctx.domains);
    const gen = await generatedMigrations(R, base, cur.entities, db);
    const migs = [];
    let ts = TS0 + 100000 + R.int(0, 900) * 1000;
    const failAt = R.chance(0.3) ? R.pick(['first', 'middle', 'last']) : null;
    const failing = (why) => migrationClass(R.pick(['AddAuditTrigger', 'BackfillTotals', 'SplitNames']), ts += 1000, async function up(q) {
      if (why === 'sql') await q.query('ALTER TABLE "does_not_exist" ADD COLUMN "x" integer');
      else if (why === 'syntax') await q.query('CREATE TABLEX "t" ("id" integer)');
      else throw new Error('migration failed: data check did not pass');
    });
    if (failAt === 'first') migs.push(failing(R.pick(['sql', 'syntax', 'throw'])));
    migs.push(migrationClass(fromOlder ? 'SyncSchema' : 'InitialSchema', ts += 1000, async function up(q) {
      for (const [sql, p] of gen.ups) await q.query(sql, p);
    }, async function down(q) {
      for (const [sql, p] of gen.downs) await q.query(sql, p);
    }));
    if (failAt === 'middle') migs.push(failing(R.pick(['sql', 'syntax', 'throw'])));
    const tables = cur.entities.map((e) => ctx.ds0Table(e)).filter(Boolean);
    if (R.chance(0.5) && tables.length) {
      const t = R.pick(tables);
      const cname = `added_${R.int(1, 99)}`;
      migs.push(migrationClass('AddColumn', ts += 1000, async function up(q) {
        await q.addColumn(t, new T.TableColumn({ name: cname, type: 'varchar', length: '40', isNullable: true }));
      }, async function down(q) { await q.dropColumn(t, cname); }, R.chance(0.3) ? { transaction: R.chance(0.5) } : undefined));
    }
    if (R.chance(0.4) && tables.length) {
      const t = R.pick(tables);
      migs.push(migrationClass('AddIndex', ts += 1000, async function up(q) {
        const tbl = await q.getTable(t);
        const c = tbl && tbl.columns.find((x) => !x.isPrimary);
        if (c) await q.createIndex(t, new T.TableIndex({ name: `IDX_mig_${t}_${c.name}`, columnNames: [c.name] }));
      }, async function down(q) {
        const tbl = await q.getTable(t);
        const i = tbl && tbl.indices.find((x) => x.name && x.name.startsWith('IDX_mig_'));
        if (i) await q.dropIndex(t, i);
      }));
    }
    if (R.chance(0.35) && tables.length) {
      const t = R.pick(tables);
      migs.push(migrationClass('Stats', ts += 1000, async function up(q) {
        await q.query(`CREATE TABLE IF NOT EXISTS "stats" ("name" varchar PRIMARY KEY NOT NULL, "rows" integer NOT NULL)`);
        await q.query(`INSERT OR REPLACE INTO "stats" ("name", "rows") SELECT ?, COUNT(*) FROM "${t}"`, [t]);
      }, async function down(q) { await q.query('DROP TABLE "stats"'); }));
    }
    if (failAt === 'last') migs.push(failing(R.pick(['sql', 'syntax', 'throw'])));
    ctx.dsOpts.migrations = R.chance(0.2) ? migs.concat([path.join(TMP, 'migrations', '*.js')]) : migs;
    if (R.chance(0.08)) ctx.dsOpts.migrations.push(path.join(TMP, 'empty', '*.js'));
    ctx.dsOpts.migrationsTableName = R.pick([undefined, 'typeorm_migrations', 'schema_history']);
    ctx.dsOpts.migrationsTransactionMode = R.pick(['all', 'each', 'none']);
    ctx.dsOpts.migrationsRun = R.chance(0.5);
    ctx.dsOpts.synchronize = false;
    ctx.runMigrations = !ctx.dsOpts.migrationsRun;
  } else {
    // 'none': the schema is made at run time, by synchronize() after initialize
    ctx.dsOpts.synchronize = false;
    ctx.lateSync = true;
  }
}

// ---------------------------------------------------------------------------
async function caseBody(ck, R) {
  const nDom = R.chance(0.35) ? 2 : 1;
  const domains = R.sample(Object.keys(DOMAINS), nDom);
  const opts = {};
  for (const d of Object.keys(DOMAINS)) opts[d] = DOMAINS[d].options(R);
  const ctx = { R, domains, opts, ids: {}, uniq: 1, dsOpts: {} };
  ctx.dsOpts.entityPrefix = R.chance(0.2) ? R.pick(['app_', 't_']) : '';
  opts.accounts.prefix = ctx.dsOpts.entityPrefix;
  ctx.table = (n) => ctx.dsOpts.entityPrefix + n;
  ctx.ds0Table = (e) => {
    const t = T.getMetadataArgsStorage().tables.find((x) => x.target === e);
    return t && t.type !== 'view' && t.name ? ctx.table(t.name) : null;
  };

  // logging
  const kind = R.pick(['advanced-console', 'advanced-console', 'simple-console', 'simple-console', 'formatted-console', 'file',
    'file', 'debug', 'debug', 'custom', 'custom', 'custom-abstract', 'custom-abstract']);
  let levels;
  const lr = R.rand();
  if (lr < 0.25) levels = 'all';
  else if (lr < 0.35) levels = true;
  else if (lr < 0.4) levels = false;
  else {
    levels = LEVELS.filter((l) => R.chance(l === 'query' ? 0.6 : l === 'error' || l === 'schema' ? 0.75 : 0.55));
    if (!levels.length) levels = ['error'];
  }
  const slowMax = R.chance(0.3) ? R.pick([1, 1, 2, 3]) : (R.chance(0.3) ? 1000 : undefined);

  await setupSchema(ctx, R);
  const { cls, entities } = buildEntities(R, opts, domains);
  ctx.cls = cls;
  ctx.targets = {};
  for (const [k, v] of Object.entries(cls)) if (v && k !== 'Summary' && k !== 'Settings') ctx.targets[k] = v;
  const dsOpts = Object.assign(ctx.dsOpts, {
    type: 'sqljs',
    entities: entities.slice(),
    logging: levels,
    maxQueryExecutionTime: slowMax,
    relationLoadStrategy: R.pick(['join', 'join', 'query']),
    subscribers: [],
  });
  if (R.chance(0.2)) {
    const found = R.chance(0.85);
    dsOpts.entities.push(path.join(TMP, found ? 'entities' : 'empty', '*.js'));
    if (found) ctx.targets.Note = 'Note';
  }
  if (R.chance(0.15)) dsOpts.cache = R.chance(0.5) ? true : { type: 'database', tableName: 'query_cache', duration: 2000 };
  if (R.chance(0.15)) { dsOpts.autoSave = true; dsOpts.autoSaveCallback = () => {}; }
  if (R.chance(0.4)) {
    const ks = Object.keys(ctx.targets).filter((k) => typeof ctx.targets[k] === 'function');
    for (const k of R.sample(ks, R.int(1, 2))) dsOpts.subscribers.push(makeSubscriber(R, ctx.targets[k], `${k}Subscriber`));
  }
  if (R.chance(0.1)) dsOpts.subscribers.push(path.join(TMP, 'subscribers', '*.js'));

  if (kind === 'debug') {
    const lv = levels === 'all' ? LEVELS : levels === true ? ['query', 'error'] : levels === false ? [] : levels;
    const ns = [].concat(...lv.map((l) => DEBUG_NS[l]));
    ns.push('typeorm:query:slow');
    createDebug.enable(ns.join(','));
    delete process.env.DEBUG;
  } else {
    createDebug.disable();
  }
  if (kind === 'custom') dsOpts.logger = customLogger(levels === 'all' || levels === true ? 'all' : (levels || []), R.pick(['text', 'json']));
  else if (kind === 'custom-abstract') dsOpts.logger = new AppLogger(levels, { params: R.chance(0.7), colon: R.chance(0.5) });
  else dsOpts.logger = kind;

  // the case opens: from here on, what the logger prints is recorded
  log.caseId = ck;
  const ds = new T.DataSource(dsOpts);
  ctx.ds = ds;
  instrumentLogger(ds.logger, kind, ck);
  try {
    await ds.initialize();
  } catch (e) {
    // a failing migration at initialize (migrationsRun) leaves the DataSource closed
    if (!expected(e) && process.env.PMRAG_VERBOSE) process.stderr.write(`${ck} initialize: ${e.stack}\n`);
    if (ds.isInitialized) await ds.destroy().catch(() => {});
    return { kind, mode: ctx.mode };
  }
  ctx.tables = ds.entityMetadatas.filter((m) => m.tableType !== 'view' && m.tableType !== 'entity-child').map((m) => m.tablePath);
  ctx.insertable = Object.keys(ctx.targets).filter((k) => !['Item', 'Summary'].includes(k) && ctx.targets[k]);
  ctx.findable = Object.keys(ctx.targets);
  ctx.softKinds = Object.keys(ctx.targets).filter((k) => { try { return !!ds.getMetadata(ctx.targets[k]).deleteDateColumn; } catch (e) { return false; } });
  try {
    if (ctx.lateSync) await ds.synchronize(R.chance(0.3));
    if (ctx.runMigrations) await ds.runMigrations({ transaction: R.pick(['all', 'each', 'none']) }).catch((e) => { if (!expected(e)) throw e; });
    if (R.chance(0.15) && ds.migrations.length) await ds.showMigrations();
  } catch (e) {
    if (!expected(e) && process.env.PMRAG_VERBOSE) process.stderr.write(`${ck} setup: ${e.stack}\n`);
  }
  // seed rows
  for (const k of ctx.insertable) {
    if (!R.chance(0.75)) continue;
    try { await STEPS.insertMany(ctx, R, k); } catch (e) { if (!expected(e) && process.env.PMRAG_VERBOSE) process.stderr.write(`${ck} seed ${k}: ${e.stack}\n`); }
  }
  const n = R.int(2, 10);
  for (let i = 0; i < n; i++) {
    const s = pickStep(R);
    try {
      await STEPS[s](ctx, R);
    } catch (e) {
      const ek = `${s} ${e && e.constructor ? e.constructor.name : 'Error'}: ${String(e && e.message).slice(0, 70)}`;
      stepErrors.set(ek, (stepErrors.get(ek) || 0) + 1);
      if (!expected(e) && process.env.PMRAG_VERBOSE) process.stderr.write(`${ck} step ${s}: ${e.stack}\n`);
    }
  }
  await ds.destroy();
  return { kind, mode: ctx.mode };
}

const stepErrors = new Map();

async function runCase(i) {
  const ck = `c${String(i).padStart(5, '0')}`;
  const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
  const t0 = Date.now();
  let info = {};
  try {
    let timer;
    info = await Promise.race([caseBody(ck, R), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error('case timeout')), 20000); })])
      .finally(() => clearTimeout(timer));
  } catch (e) {
    if (process.env.PMRAG_VERBOSE) process.stderr.write(`${ck}: ${(e && e.stack) || e}\n`);
  }
  log.caseId = null;
  if (process.env.PMRAG_TIMING) process.stderr.write(`${ck} ${info.kind} ${info.mode} ${Date.now() - t0}ms ${log._rows.length} events\n`);
  log.endCase();
  try { fs.rmSync(path.join(TMP, 'ormlogs.log'), { force: true }); } catch (e) { /* ignore */ }
}

async function main() {
  const t0 = Date.now();
  const only = process.env.PMRAG_ONLY ? new Set(process.env.PMRAG_ONLY.split(',').map(Number)) : null;
  for (let i = 0; i < args.cases; i++) if (!only || only.has(i)) await runCase(i);
  await log.finish();
  if (process.env.PMRAG_VERBOSE) for (const [k, v] of [...stepErrors].sort((a, b) => b[1] - a[1])) process.stderr.write(`${v} ${k}\n`);
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s` +
    ` (${foreign} records of earlier cases dropped, ${stray} prints outside a logger call)\n`);
  cleanup();
  process.exit(0);
}

process.on('unhandledRejection', () => {});
main().catch((e) => { process.stderr.write(String((e && e.stack) || e) + '\n'); cleanup(); process.exit(1); });
